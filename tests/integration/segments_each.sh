#!/bin/sh
# run --each google-benchmark: the harness's benchmarks, listed with
# --benchmark_list_tests, each recorded as its own invocation.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

schema="$BENCHPROF_CONTRACTS/bencher/bmf.schema.json"
need python3 "apt-get install python3"
need_workload gbench

"$BENCHPROF" run -o "$TMP/each" --each google-benchmark -- \
  "$WORKLOADS/gbench" --benchmark_min_time=0.2 \
  >"$TMP/each.out" 2>"$TMP/each.err"
status=$?
expect_status each 0
validate each/BM_Small
validate each/BM_Large
pycheck "each profile is its own benchmark's code (>80%)" <<'PY'
import os, artifacts
tmp = os.environ["TMP"]
for b in ("BM_Small", "BM_Large"):
    stacks = artifacts.folded_stacks(os.path.join(tmp, "each", b,
                                                  "profile.folded"))
    total = artifacts.total_count(stacks)
    mine = sum(s.count for s in stacks
               if any(artifacts.func_of(f).startswith(b + "(") or
                      artifacts.func_of(f) == b for f in s.frames))
    assert total > 20 and mine > 0.8 * total, (b, mine, total)
PY
pycheck "one report: both latencies and their counters, in the schema" \
  "$schema" <<'PY'
import json, os, sys, jsonschema
out = os.path.join(os.environ["TMP"], "each")
rep = json.load(open(os.path.join(out, "report.json")))
jsonschema.validate(rep, json.load(open(sys.argv[1])))
assert sorted(rep) == ["BM_Large", "BM_Small"], rep
for b in rep.values():
    assert b["latency"]["value"] > 0 and b["task-clock"]["value"] > 0, b
assert rep["BM_Large"]["latency"]["value"] > \
       3 * rep["BM_Small"]["latency"]["value"], rep
man = json.load(open(os.path.join(out, "manifest.json")))
assert sorted(b["profile"] for b in man["benchmarks"]) == \
       ["BM_Large", "BM_Small"], man
for b in man["benchmarks"]:
    assert b["exit_status"] == 0 and b["samples"] > 0, b
    for a in b["artifacts"]:
        assert a["file"].startswith(b["profile"] + "/"), a
        assert os.path.getsize(os.path.join(out, a["file"])) == a["bytes"]
PY
check "each invocation's JSON passed through (two documents)" \
  [ "$(grep -c '"benchmarks"' "$TMP/each.out")" -eq 2 ]

# the first non-zero status of the invocations is benchprof's
"$BENCHPROF" run -o "$TMP/bad" --each google-benchmark -- \
  "$WORKLOADS/gbench" --benchmark_min_time=0.01 --no-such-flag \
  >"$TMP/bad.out" 2>"$TMP/bad.err"
status=$?
check "a harness that refuses its flags: non-zero status" [ $status -ne 0 ]

# the commands get the signal dispositions benchprof was given: the
# SIGPIPE benchprof ignores while it copies output must not leak into the
# next invocation's command (nor SIGCHLD's reset)
cat >"$TMP/fake-gbench" <<'SH'
#!/bin/sh
case "$1" in
  --benchmark_list_tests*) printf 'BM_A\nBM_B\n'; exit 0 ;;
esac
grep SigIgn /proc/self/status >>"$SIGLOG"
name=${1#*^}
printf '{"benchmarks": [{"name": "%s", "run_type": "iteration", ' "${name%?}"
printf '"iterations": 1, "real_time": 1, "cpu_time": 1, "time_unit": "ns"}]}\n'
SH
chmod +x "$TMP/fake-gbench"
# SIGPIPE and SIGHUP at their defaults to begin with, whatever this test
# was started with (a CI job under nohup, a shell's background job):
# `env --default-signal`, since a shell cannot undo an ignore it inherited
dflt="env --default-signal=PIPE,HUP"
SIGLOG="$TMP/sig-direct" $dflt "$TMP/fake-gbench" x >/dev/null
SIGLOG="$TMP/sig-each" $dflt "$BENCHPROF" run -q -o "$TMP/sig" \
  --each google-benchmark -- "$TMP/fake-gbench" >"$TMP/sig.out" \
  2>"$TMP/sig.err"
status=$?
expect_status sig 0
check "both invocations' commands ignore what it would alone" sh -c '
  [ "$(wc -l <"$1/sig-each")" -eq 2 ] &&
  [ "$(sort -u "$1/sig-each")" = "$(cat "$1/sig-direct")" ]' sh "$TMP"
# inherited_ignore NAME SIG: benchprof started with SIG ignored (SIGPIPE
# from a pipeline's writer, SIGHUP under nohup), the other one at its
# default: both invocations' commands ignore SIG too, as the command
# alone would, not only the first
inherited_ignore() {
  other=PIPE
  [ "$2" = PIPE ] && other=HUP
  set -- "$1" "$2" "env --default-signal=$other --ignore-signal=$2"
  SIGLOG="$TMP/sig-$1-direct" $3 "$TMP/fake-gbench" x >/dev/null
  SIGLOG="$TMP/sig-$1-each" $3 "$BENCHPROF" run -q -o "$TMP/sig-$1" \
    --each google-benchmark -- "$TMP/fake-gbench" >/dev/null 2>&1
  check "an inherited SIG_IGN for SIG$2 is passed on, to both" sh -c '
    [ "$(wc -l <"$1/sig-$2-each")" -eq 2 ] &&
    [ "$(sort -u "$1/sig-$2-each")" = "$(cat "$1/sig-$2-direct")" ] &&
    [ "$(cat "$1/sig-$2-direct")" != "$(cat "$1/sig-direct")" ]' sh "$TMP" "$1"
}
inherited_ignore ign PIPE
inherited_ignore hup HUP

check "--each belongs to run" sh -c \
  '! "$BENCHPROF" record --each google-benchmark -- true 2>/dev/null'
finish
