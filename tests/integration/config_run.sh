#!/bin/sh
# benchprof run (and record, flush, ci) with a configuration file:
# - "enabled": false or BENCHPROF_ENABLED=0: the command is executed as it
#   is: byte-identical stdout and stderr, the same exit status (also when
#   killed by a signal), the same PID, no perf event open in it, no output
#   directory;
# - an invalid or missing named file: a warning, then the same unprofiled
#   run; --strict or BENCHPROF_STRICT=1: exit 2 and the command never runs;
# - no file at all: a profiled run on the defaults;
# - flags win over BENCHPROF_* variables, which win over the file (output
#   directory, frequency, counters, call graph; identity in benchprof ci);
# - the file's publishing settings (store, spool, Bencher host, project,
#   testbed, token variable) reach the publication.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"

SPLIT="$WORKLOADS/split"
cd "$TMP" || exit 1
unset BENCHPROF_CONFIG BENCHPROF_ENABLED BENCHPROF_STRICT BENCHPROF_OUTPUT \
  BENCHPROF_FREQUENCY BENCHPROF_COUNTERS BENCHPROF_STORE BENCHPROF_PROJECT \
  BENCHPROF_TESTBED BENCHER_HOST BENCHER_API_TOKEN GITHUB_ACTIONS GITLAB_CI \
  BENCHER_PROJECT BENCHER_BRANCH BENCHER_HASH BENCHER_TESTBED

# the job's command: prints its PID, whether a perf event is open in it,
# on both streams, and exits with its first argument
cat >"$TMP/job.sh" <<'SH'
#!/bin/sh
perf=none
for f in /proc/$$/fd/*; do
  case $(readlink "$f" 2>/dev/null) in *perf_event*) perf=open ;; esac
done
echo "pid $$ perf $perf args $*"
echo "to stderr" >&2
[ -z "${2:-}" ] || echo "$$" >"$2"
[ -z "${3:-}" ] || sleep "$3"
exit "$1"
SH
chmod +x "$TMP/job.sh"
echo '{"enabled": false, "output": "should-not-exist"}' >"$TMP/off.json"
echo '{"enabeld": true}' >"$TMP/bad.json"

# same_as_direct NAME STATUS ARGS...: benchprof run ARGS... -- job.sh
# STATUS behaves byte for byte as job.sh STATUS
same_as_direct() {
  name=$1
  st=$2
  shift 2
  "$TMP/job.sh" "$st" >"$TMP/$name.d.out" 2>"$TMP/$name.d.err"
  d=$?
  "$BENCHPROF" run "$@" -- "$TMP/job.sh" "$st" >"$TMP/$name.out" \
    2>"$TMP/$name.err"
  r=$?
  check "$name: same exit status ($d)" [ "$r" -eq "$d" ]
  # the PIDs differ; everything else is the same
  sed 's/^pid [0-9]*/pid N/' "$TMP/$name.d.out" >"$TMP/$name.d.cmp"
  sed 's/^pid [0-9]*/pid N/' "$TMP/$name.out" >"$TMP/$name.cmp"
  check "$name: same stdout" cmp -s "$TMP/$name.d.cmp" "$TMP/$name.cmp"
  check "$name: no perf event in the command" grep -q "perf none" \
    "$TMP/$name.out"
}

# 1. disabled by the file
same_as_direct off 3 --config "$TMP/off.json"
check "off: byte-identical stderr" cmp -s "$TMP/off.d.err" "$TMP/off.err"
check "off: no output directory" [ ! -e "$TMP/should-not-exist" ]
check "off: no default output directory" [ ! -e "$TMP/benchprof-out" ]

# 2. disabled by the environment (no file), with run's own options
BENCHPROF_ENABLED=0 same_as_direct env_off 0 -o "$TMP/out-env" -F 99
check "env off: byte-identical stderr" cmp -s "$TMP/env_off.d.err" \
  "$TMP/env_off.err"
check "env off: no output directory" [ ! -e "$TMP/out-env" ]

# 3. disabled: the same process (exec), so signals reach the command
"$BENCHPROF" run --config "$TMP/off.json" -- "$TMP/job.sh" 0 \
  "$TMP/pid" 30 >/dev/null 2>&1 &
bg=$!
i=0
while [ ! -s "$TMP/pid" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
check "off: the command has benchprof's PID" [ "$(cat "$TMP/pid")" = "$bg" ]
kill -TERM "$bg"
wait "$bg"
st=$?
check "off: SIGTERM ends it as it would end the command (143)" \
  [ "$st" -eq 143 ]

# 4. an invalid file: a warning, then the command unprofiled
same_as_direct bad 4 --config "$TMP/bad.json"
check "bad: the warning names the key and the suggestion" grep -q \
  'enabeld.*did you mean "enabled"' "$TMP/bad.err"
check "bad: the command's stderr still comes" grep -q "to stderr" \
  "$TMP/bad.err"
check "bad: no output directory" [ ! -e "$TMP/benchprof-out" ]
same_as_direct missing 0 --config "$TMP/nonexistent.json"
check "missing named file: a warning" grep -q "nonexistent.json" \
  "$TMP/missing.err"

# 5. strict: exit 2 and the command never runs
"$BENCHPROF" run --strict --config "$TMP/bad.json" -- "$TMP/job.sh" 0 \
  "$TMP/ran1" >"$TMP/strict.out" 2>"$TMP/strict.err"
check "--strict: exit 2" [ $? -eq 2 ]
check "--strict: the command did not run" [ ! -e "$TMP/ran1" ]
check "--strict: says why" grep -q "enabeld" "$TMP/strict.err"
BENCHPROF_STRICT=1 BENCHPROF_CONFIG="$TMP/bad.json" "$BENCHPROF" run -- \
  "$TMP/job.sh" 0 "$TMP/ran2" >/dev/null 2>&1
check "BENCHPROF_STRICT=1: exit 2" [ $? -eq 2 ]
check "BENCHPROF_STRICT=1: the command did not run" [ ! -e "$TMP/ran2" ]

# 6. no file at all (the default path is absent here): profiled
if [ ! -e /etc/benchprof/config.json ]; then
  (cd "$TMP" && "$BENCHPROF" run -q --no-publish -- "$SPLIT" 0.05 \
    >/dev/null 2>"$TMP/nofile.err")
  check "no config: a profiled run" [ -s "$TMP/benchprof-out/manifest.json" ]
fi

# 7. precedence: flags > environment > file
cat >"$TMP/cfg.json" <<JSON
{"output": "$TMP/out-file", "record": {"frequency": 101,
 "counters": ["task-clock"], "call_graph": "fp"}}
JSON
freq() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(d["event"]["frequency_hz"], ",".join(c["name"] for c in d["counters"]),
      d["call_graph"])' "$1/summary.json"
}
"$BENCHPROF" run -q --no-publish --config "$TMP/cfg.json" -- "$SPLIT" 0.05 \
  >/dev/null 2>&1
check "file: its output, frequency, counters and call graph" \
  [ "$(freq "$TMP/out-file")" = "101 task-clock fp" ]
BENCHPROF_OUTPUT="$TMP/out-env" BENCHPROF_FREQUENCY=202 \
  BENCHPROF_COUNTERS=page-faults "$BENCHPROF" run -q --no-publish \
  --config "$TMP/cfg.json" -- "$SPLIT" 0.05 >/dev/null 2>&1
check "environment over the file" \
  [ "$(freq "$TMP/out-env")" = "202 page-faults fp" ]
BENCHPROF_OUTPUT="$TMP/out-env2" BENCHPROF_FREQUENCY=202 \
  "$BENCHPROF" run -q --no-publish --config "$TMP/cfg.json" \
  -o "$TMP/out-flag" -F 303 -g dwarf -- "$SPLIT" 0.05 >/dev/null 2>&1
check "flags over the environment" \
  [ "$(freq "$TMP/out-flag")" = "303 task-clock dwarf" ]
check "flags over the environment: not the variable's directory" \
  [ ! -e "$TMP/out-env2" ]
"$BENCHPROF" record -q --config "$TMP/cfg.json" -o "$TMP/rec" -- "$SPLIT" \
  0.05 >/dev/null 2>&1
check "record: the file's frequency" [ "$(freq "$TMP/rec")" = \
  "101 task-clock fp" ]
# the rings: the file's size per CPU, the variable over it, -m over both
ring_bytes() {
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ring_bytes"])' \
    "$1/summary.json"
}
printf '{"record": {"ring_mib": 4}}' >"$TMP/ring.json"
"$BENCHPROF" run -q --no-publish --config "$TMP/ring.json" -o "$TMP/ring-f" \
  -- "$SPLIT" 0.05 >/dev/null 2>&1
check "file: record.ring_mib sets the rings" [ "$(ring_bytes "$TMP/ring-f")" = 4194304 ]
BENCHPROF_RING_MIB=8 "$BENCHPROF" record -q --config "$TMP/ring.json" \
  -o "$TMP/ring-e" -- "$SPLIT" 0.05 >/dev/null 2>&1
check "environment: BENCHPROF_RING_MIB over the file" \
  [ "$(ring_bytes "$TMP/ring-e")" = 8388608 ]
BENCHPROF_RING_MIB=8 "$BENCHPROF" record -q --config "$TMP/ring.json" -m 256 \
  -o "$TMP/ring-m" -- "$SPLIT" 0.05 >/dev/null 2>&1
check "flags: -m over the environment" \
  [ "$(ring_bytes "$TMP/ring-m")" = $((256 * $(getconf PAGESIZE))) ]
"$BENCHPROF" record --strict --config "$TMP/bad.json" -o "$TMP/rec2" -- \
  "$TMP/job.sh" 0 "$TMP/ran3" >/dev/null 2>&1
check "record --strict with an invalid file: exit 2" [ $? -eq 2 ]
check "record --strict with an invalid file: not run" [ ! -e "$TMP/ran3" ]

# 8. publishing from the file: store, spool, Bencher host, project,
# testbed, token variable; --project wins over the file's
standin bencher
HASH=0123456789abcdef0123456789abcdef01234567
make_harness
cat >"$TMP/pub.json" <<JSON
{"output": "$TMP/out-pub", "spool": "$TMP/spool",
 "store": {"url": "file://$TMP/store"},
 "bencher": {"host": "$BENCHER_URL", "project": "cfgproj",
             "testbed": "cfgbed", "token_env": "MY_BENCHER_TOKEN"},
 "network": {"retries": 0, "timeout": 5}}
JSON
MY_BENCHER_TOKEN=$TOKEN "$BENCHPROF" run --config "$TMP/pub.json" \
  --bmf "$TMP/h.json" --branch main --hash $HASH -- "$TMP/harness.sh" \
  "$TMP/h.json" >/dev/null 2>"$TMP/pub1.err"
check "publish from the file: exit 0" [ $? -eq 0 ]
MY_BENCHER_TOKEN=$TOKEN "$BENCHPROF" run --config "$TMP/pub.json" \
  --project flagproj --bmf "$TMP/h.json" --branch main --hash $HASH -- \
  "$TMP/harness.sh" "$TMP/h.json" >/dev/null 2>"$TMP/pub2.err"
check "publish, --project: exit 0" [ $? -eq 0 ]
check "the file's project, testbed and token reached Bencher; the flag \
won" python3 - "$TMP" <<'PY'
import json, os, sys
tmp = sys.argv[1]
log = [e for e in json.load(open(tmp + "/bencher.log"))
       if e.get("path") == "/v0/run"]
assert len(log) == 2, log
assert all(e["auth_ok"] and e["valid"] for e in log), log
assert [e["body"]["project"] for e in log] == ["cfgproj", "flagproj"], log
assert all(e["body"]["testbed"] == "cfgbed" for e in log), log
for p in ("cfgproj", "flagproj"):
    assert os.path.exists("%s/store/%s/main/latest/cfgbed.json" % (tmp, p)), p
PY
check "the file's spool was used and is empty" [ -d "$TMP/spool" ]

# 9. flush reads the same file (its spool), benchprof ci its identity
"$BENCHPROF" flush --config "$TMP/pub.json" >/dev/null 2>"$TMP/flush.err"
check "flush --config: exit 0" [ $? -eq 0 ]
check "flush --config: the file's spool" grep -q "$TMP/spool" \
  "$TMP/flush.err"
mkdir -p "$TMP/nogit"
(cd "$TMP/nogit" && env GIT_CEILING_DIRECTORIES="$TMP" GITHUB_ACTIONS=true \
  GITHUB_REPOSITORY=acme/widget GITHUB_REF_NAME=main GITHUB_SHA=$HASH \
  "$BENCHPROF" ci --json --config "$TMP/pub.json" --branch flagbranch \
  --pr 7 >"$TMP/ci.json")
check "ci: flags, then the file, then GitHub" python3 - "$TMP/ci.json" \
  "$HASH" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["branch"] == "flagbranch" and d["from"]["branch"] == "flag", d
assert d["pr"] == "7" and d["from"]["pr"] == "flag", d
assert d["project"] == "cfgproj", d
assert d["from"]["project"] == "config bencher.project", d
assert d["testbed"] == "cfgbed", d
assert d["hash"] == sys.argv[2] and d["from"]["hash"] == "GITHUB_SHA", d
PY
check "the token is in no output, spool or store" no_token "$TMP"/*.err \
  "$TMP/spool" "$TMP/store" "$TMP/out-pub"
# a token in a file others can read: run warns, and never prints the token
printf '{"bencher": {"token": "cfg-secret-%s"}}\n' 12345 >"$TMP/tok.json"
chmod 644 "$TMP/tok.json"
"$BENCHPROF" run -q --config "$TMP/tok.json" --no-publish -o "$TMP/tok.out" \
  -- true 2>"$TMP/tok.err"
check "a readable token file: run warns" \
  grep -q "holds bencher.token and others can read it" "$TMP/tok.err"
check "a readable token file: the token is not printed or written" \
  sh -c "! grep -rq cfg-secret-12345 '$TMP/tok.err' '$TMP/tok.out'"

finish
