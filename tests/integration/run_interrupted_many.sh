#!/bin/sh
# A run of many invocations interrupted (TERM to benchprof run, a
# cancelled job) before all of them wrote their results:
#   - --repeat 3, the second repetition interrupted before its results
#     (--allow-failure given): no repetition started after the signal,
#     manifest.json marked "interrupted" with the signal and the
#     command's status, naming no report, the merged profile of both
#     repetitions that ran (the interrupted one marked so), what the
#     harness printed kept, nothing published, stored or spooled;
#   - --repeat 3, the second repetition interrupted but writing its
#     results on its way out: the run is still incomplete, so no report;
#   - --each google-benchmark (and with --repeat 2), the second of three
#     benchmarks interrupted: the third never runs, the manifest lists the
#     two that ran with their profiles, no report, nothing published;
#   - compare with an interrupted run on either side: says that side's
#     run was interrupted (signal, status) and that there is nothing to
#     compare, exit status non-zero; no "invalid harness output" guess.
# shellcheck disable=SC1091,SC2086 # the libraries are make check's; $common is a list of options
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"

standin bencher
export BENCHER_API_TOKEN="$TOKEN" BENCHER_HOST="$BENCHER_URL"
unset BENCHPROF_CONFIG BENCHPROF_STRICT BENCHPROF_BENCHER_FILE
H1=1111111111111111111111111111111111111111
common="--project demo --branch main --testbed box --store file://$TMP/store --spool $TMP/spool --retries 0 --timeout 5"
mkdir -p "$TMP/store"

# the --repeat harness: counts its invocations in $COUNT; from the
# $SLOW_FROM-th on it prints part of its results, says it started and
# sleeps before it would print the rest (with $GRACEFUL, a TERM makes
# it print them all and exit 0)
cat >"$TMP/repeat.sh" <<SH
#!/bin/sh
n=\$(cat "\$COUNT" 2>/dev/null || echo 0)
n=\$((n + 1))
echo \$n >"\$COUNT"
"$WORKLOADS/split" 0.2 >/dev/null
if [ \$n -ge "\$SLOW_FROM" ]; then
  [ -z "\${GRACEFUL:-}" ] ||
    trap 'printf "%s\n" "1}}}"; exit 0' TERM
  printf '%s' '{"sort/1k": {"latency": {"value": '
  echo started >>"\$MARK"
  i=0
  while [ \$i -lt 100 ]; do sleep 0.1; i=\$((i + 1)); done
fi
printf '%s\n' '{"sort/1k": {"latency": {"value": 1}}}'
SH

# the --each harness: a Google Benchmark binary of BM_a, BM_b and BM_c;
# BM_b prints part of its document, says it started and sleeps; each
# invocation's arguments go to $CALLS
cat >"$TMP/gbench.sh" <<SH
#!/bin/sh
case "\$*" in
  *--benchmark_list_tests*) printf 'BM_a\nBM_b\nBM_c\n'; exit 0 ;;
esac
echo "\$*" >>"\$CALLS"
name=\$(printf '%s\n' "\$*" | sed -n 's/.*--benchmark_filter=^\\([A-Za-z_]*\\).*/\\1/p')
"$WORKLOADS/split" 0.2 >/dev/null
if [ "\$name" = BM_b ]; then
  printf '%s' '{"context": {"date": "x"}, "benchmarks": ['
  echo started >>"\$MARK"
  i=0
  while [ \$i -lt 100 ]; do sleep 0.1; i=\$((i + 1)); done
fi
printf '{"context": {}, "benchmarks": [{"name": "%s", "run_type": "iteration", "iterations": 100, "real_time": 5.0, "cpu_time": 5.0, "time_unit": "ns"}]}\n' "\$name"
SH
chmod +x "$TMP/repeat.sh" "$TMP/gbench.sh"

# runs: how many reports the stand-in accepted
runs() {
  python3 - "$TMP/bencher.log" <<'PY'
import json, sys
log = json.load(open(sys.argv[1]))
print(len([e for e in log if e.get("path") == "/v0/run"
           and e.get("status") == 201]))
PY
}

# manifest DIR: the manifest's outcome, signal, exit status and report
manifest() {
  python3 -c 'import json, sys; m = json.load(open(sys.argv[1]))
print(m.get("outcome"), m.get("signal"), m.get("exit_status"),
      m.get("report"))' "$1/manifest.json"
}

# unpublished TAG DIR STATUS: an interrupted run of many invocations
# left locally, incomplete: no report, nothing anywhere else
unpublished() {
  check "$1: the command's status ($3, was $st)" [ "$st" -eq "$3" ]
  check "$1: marked interrupted by SIGTERM, no report" [ \
    "$(manifest "$2")" = "interrupted SIGTERM $3 None" ]
  check "$1: no report.json" [ ! -e "$2/report.json" ]
  check "$1: says it was not published" grep -q \
    "interrupted (exit status $3) in .*: not published and not compared" \
    "$TMP/err.$1"
  check "$1: no error" sh -c "! grep -q 'error:' '$TMP/err.$1'"
  check "$1: nothing sent to Bencher" [ "$(runs)" = 0 ]
  check "$1: nothing stored" sh -c \
    "[ -z \"\$(find '$TMP/store' -type f | sed -n 1p)\" ]"
  check "$1: nothing spooled" sh -c \
    "[ -z \"\$(ls -A '$TMP/spool' 2>/dev/null | grep -v '^\\.')\" ]"
}

# markers DIR: the repetition markers of DIR's Firefox profile, sorted
markers() {
  python3 - "$1/profile.json.gz" <<'PY'
import gzip, json, sys
p = json.load(gzip.open(sys.argv[1]))
names = set()
for t in p["threads"]:
    for row in t["markers"]["data"]:
        data = row[-1]
        if isinstance(data, dict) and \
           data.get("type") == "BenchprofRepetition":
            names.add(data["repetition"])
print(";".join(sorted(names)))
PY
}

# 1. --repeat 3, --allow-failure: the second repetition interrupted
COUNT="$TMP/count.repeat" SLOW_FROM=2 interrupt repeat -o "$TMP/o1" \
  --repeat 3 --adapter json --hash $H1 $common --allow-failure \
  -- "$TMP/repeat.sh"
unpublished repeat "$TMP/o1" 143
check "repeat: no repetition started after the signal" [ \
  "$(cat "$TMP/count.repeat")" = 2 ]
check "repeat: says where it stopped and what completed" grep -qF \
  "the run was interrupted in repetition 2 of 3: no report (the 1 repetition that completed is not a run of 3)" \
  "$TMP/err.repeat"
check "repeat: the manifest says 3 repetitions were asked" python3 -c \
  'import json, sys; assert json.load(open(sys.argv[1]))["repeat"] == 3' \
  "$TMP/o1/manifest.json"
check "repeat: the profile has both repetitions that ran" [ \
  "$(markers "$TMP/o1")" = \
  "repetition 1;repetition 2 (interrupted)" ]
check "repeat: the manifest lists the profile's artifacts" python3 -c '
import json, os, sys
m = json.load(open(os.path.join(sys.argv[1], "manifest.json")))
files = [a["file"] for a in m["artifacts"]]
assert "profile.json.gz" in files, files
for a in m["artifacts"]:
    assert os.path.getsize(os.path.join(sys.argv[1], a["file"])) == \
        a["bytes"], a' "$TMP/o1"
check "repeat: what the harness printed is kept" [ "$(cat \
  "$TMP/o1/harness-output.txt")" = '{"sort/1k": {"latency": {"value": ' ]

# 2. --repeat 3: the second repetition interrupted, its results written
#    on its way out; one of three is still no run
COUNT="$TMP/count.graceful" SLOW_FROM=2 GRACEFUL=1 interrupt graceful \
  -o "$TMP/o2" --repeat 3 --adapter json --hash $H1 $common \
  -- "$TMP/repeat.sh"
unpublished graceful "$TMP/o2" 0
check "graceful: no repetition started after the signal" [ \
  "$(cat "$TMP/count.graceful")" = 2 ]
check "graceful: no report of 2 repetitions of 3" grep -qF \
  "(the 2 repetitions that completed are not a run of 3)" \
  "$TMP/err.graceful"

# 3. --each google-benchmark: BM_b interrupted, BM_c never runs
CALLS="$TMP/calls.each" interrupt each -o "$TMP/o3" \
  --each google-benchmark --hash $H1 $common -- "$TMP/gbench.sh"
unpublished each "$TMP/o3" 143
check "each: BM_c never started" [ "$(grep -c . "$TMP/calls.each")" = 2 ]
check "each: no directory for BM_c" [ ! -e "$TMP/o3/BM_c" ]
check "each: says where it stopped" grep -qF \
  "the run was interrupted in benchmark 2 of 3 (BM_b): no report" \
  "$TMP/err.each"
check "each: the manifest lists the two that ran, with their profiles" \
  python3 -c '
import json, os, sys
d = sys.argv[1]
m = json.load(open(os.path.join(d, "manifest.json")))
got = {b["name"]: b for b in m["benchmarks"]}
assert sorted(got) == ["BM_a", "BM_b"], got
assert got["BM_a"]["exit_status"] == 0, got["BM_a"]
assert got["BM_b"]["exit_status"] == 143, got["BM_b"]
for b in got.values():
    files = [a["file"] for a in b["artifacts"]]
    assert b["profile"] + "/profile.json.gz" in files, b
    for a in b["artifacts"]:
        assert os.path.getsize(os.path.join(d, a["file"])) == a["bytes"], a
' "$TMP/o3"
check "each: what BM_b printed is kept" grep -qF '"benchmarks": [' \
  "$TMP/o3/BM_b/harness-output.txt"

# 4. --each --repeat 2: the same, each benchmark repeated
CALLS="$TMP/calls.eachrep" interrupt eachrep -o "$TMP/o4" --repeat 2 \
  --each google-benchmark --hash $H1 $common -- "$TMP/gbench.sh"
unpublished eachrep "$TMP/o4" 143
check "each --repeat: BM_a twice, BM_b once, BM_c never" [ \
  "$(sed 's/.*filter=^\([A-Za-z_]*\).*/\1/' "$TMP/calls.eachrep" | \
     tr '\n' ' ')" = "BM_a BM_a BM_b " ]
check "each --repeat: BM_b's profile is its repetition that ran" [ \
  "$(markers "$TMP/o4/BM_b")" = "repetition 1 (interrupted)" ]
check "each --repeat: the manifest lists BM_a and BM_b" python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
assert sorted(b["name"] for b in m["benchmarks"]) == ["BM_a", "BM_b"], m
' "$TMP/o4/manifest.json"

# 5. compare with an interrupted side, either one
printf '%s' '{"sort/1k": {"latency": {"value": 1}}}' >"$TMP/good.json"
"$BENCHPROF" run -q -o "$TMP/good" --no-publish --bmf "$TMP/good.json" \
  -- "$WORKLOADS/split" 0.1 >/dev/null 2>"$TMP/err.good"
check "compare: the passing run to compare with" [ -s "$TMP/good/report.json" ]
for side in base head; do
  if [ $side = base ]; then
    "$BENCHPROF" compare "$TMP/o1" "$TMP/good" -o "$TMP/cmp.$side" \
      >/dev/null 2>"$TMP/err.cmp.$side"
  else
    "$BENCHPROF" compare "$TMP/good" "$TMP/o3" -o "$TMP/cmp.$side" \
      >/dev/null 2>"$TMP/err.cmp.$side"
  fi
  cst=$?
  check "compare, interrupted $side: fails ($cst)" [ "$cst" -ne 0 ]
  check "compare, interrupted $side: says so, with signal and status" \
    grep -q "the $side run .* was interrupted by SIGTERM (exit status 143) before its harness wrote its results: it has no report, so there is nothing to compare" \
    "$TMP/err.cmp.$side"
  check "compare, interrupted $side: no guess at invalid output" sh -c \
    "! grep -q 'invalid' '$TMP/err.cmp.$side'"
done

check "no token in any output, spool or store" no_token "$TMP"/err.* \
  "$TMP"/o? "$TMP/store"
finish
