#!/bin/sh
# The Bencher entrypoint acts on the configuration and BENCHPROF_RUN_ARGS
# as benchprof-wrap does:
#   - "strict": true beside a wrong key: exit 2, the command not run;
#     without strict a warning and the command runs unprofiled (exit 0);
#   - BENCHPROF_RUN_ARGS is honoured (-F 50 samples at 50 Hz); a bad
#     option is named with the variable and the command runs unprofiled
#     (its file untouched); strict: exit 2, not run; one that clashes with
#     the entrypoint's own (--adapter beside --file) is refused too;
#   - --each google-benchmark with --file: the run's report replaces the
#     file; without one it is refused (said why; strict: exit 2).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"
. "$top_srcdir/tests/hooks_lib.sh"

cat >"$TMP/runner.json" <<JSON
{"enabled": true, "spool": "$TMP/spool", "store": {"url": "file://$TMP/store"},
 "bencher": {"project": "widget", "testbed": "bench-box"},
 "network": {"retries": 0, "timeout": 5}}
JSON
cat >"$TMP/strict.json" <<JSON
{"enabled": true, "strict": true, "spool": "$TMP/spool",
 "store": {"url": "file://$TMP/store"},
 "bencher": {"project": "widget", "testbed": "bench-box"},
 "network": {"retries": 0, "timeout": 5}}
JSON
printf '%s\n' '{"enabled": true, "strict": true, "record": {"frequncy": 99}}' \
  >"$TMP/strict-bad.json"
printf '%s\n' '{"enabled": true, "record": {"frequncy": 99}}' >"$TMP/bad.json"
# the harness: its BMF to $1, a line in ran.txt each time it runs
cat >"$TMP/harness.sh" <<SH
#!/bin/sh
echo ran >>"$TMP/ran.txt"
"$WORKLOADS/split" 0.1 >/dev/null
printf '%s' '{"sort/1k": {"latency": {"value": 1234.5}}}' >"\$1"
SH
chmod +x "$TMP/harness.sh"
BENCHER_PROJECT=widget BENCHER_BRANCH=main BENCHER_HASH=$HEAD_SHA
BENCHER_TESTBED=metal-1
export BENCHER_PROJECT BENCHER_BRANCH BENCHER_HASH BENCHER_TESTBED
mkdir -p "$TMP/job" "$TMP/results"
cd "$TMP/job" || exit 1
ENTRY="$HOOKS/bencher/entrypoint.sh"
F="$TMP/results/bmf.json"

# entry NAME CONFIG [RUN_ARGS]: the entrypoint with --file, its status in
# $rc, stderr in $TMP/NAME.err; ran.txt and the file start afresh
entry() {
  rm -f "$TMP/ran.txt" "$F"
  BENCHPROF_CONFIG=$2 BENCHPROF_RUN_ARGS=${3:-} sh "$ENTRY" --file "$F" \
    -- "$TMP/harness.sh" "$F" >"$TMP/$1.out" 2>"$TMP/$1.err"
  rc=$?
}
ran() { [ -f "$TMP/ran.txt" ]; }
counters() { grep -q task-clock "$F"; }

entry strictbad "$TMP/strict-bad.json"
check "strict, bad key: exit 2 (was $rc)" [ "$rc" -eq 2 ]
check "strict, bad key: the command is not run" sh -c "! [ -f '$TMP/ran.txt' ]"
check "strict, bad key: names the key" grep -q frequncy "$TMP/strictbad.err"
check "strict, bad key: says the command is not run" grep -q \
  "strict mode is on: the command is not run" "$TMP/strictbad.err"

entry bad "$TMP/bad.json"
check "bad key: exit 0 (was $rc)" [ "$rc" -eq 0 ]
check "bad key: the command runs" ran
check "bad key: unprofiled (the harness's own file)" sh -c "! grep -q task-clock '$F'"
check "bad key: a warning" grep -q "running the command unprofiled" \
  "$TMP/bad.err"

entry args "$TMP/runner.json" "-F 50"
check "RUN_ARGS -F 50: exit 0 (was $rc)" [ "$rc" -eq 0 ]
check "RUN_ARGS -F 50: sampled at 50 Hz" grep -q " at 50 Hz" "$TMP/args.err"
check "RUN_ARGS -F 50: the counters in the file" counters

entry bogus "$TMP/runner.json" "-F 50 --bogus-option"
check "RUN_ARGS bogus: exit 0 (was $rc)" [ "$rc" -eq 0 ]
check "RUN_ARGS bogus: the command runs" ran
check "RUN_ARGS bogus: names the variable and the option" grep -q \
  "BENCHPROF_RUN_ARGS is not usable.*bogus-option" \
  "$TMP/bogus.err"
check "RUN_ARGS bogus: unprofiled (the harness's own file)" sh -c \
  "! grep -q task-clock '$F' && grep -q 1234.5 '$F'"

entry clash "$TMP/runner.json" "--adapter json"
check "RUN_ARGS --adapter beside --file: refused, exit 0 (was $rc)" \
  [ "$rc" -eq 0 ]
check "RUN_ARGS --adapter beside --file: says why" grep -q \
  "BENCHPROF_RUN_ARGS is not usable.*--bmf and --adapter" \
  "$TMP/clash.err"
check "RUN_ARGS --adapter beside --file: the command runs" ran

# --each google-benchmark: the entrypoint adds no --bmf, and the run's
# report (each benchmark with its own counters) replaces the file
rm -f "$F"
BENCHPROF_CONFIG="$TMP/runner.json" BENCHPROF_RUN_ARGS="--each google-benchmark" \
  sh "$ENTRY" --file "$F" -- "$WORKLOADS/gbench" --benchmark_min_time=0.01 \
  >"$TMP/each.out" 2>"$TMP/each.err"
check "RUN_ARGS --each with --file: exit 0 (was $?)" [ $? -eq 0 ]
check "RUN_ARGS --each with --file: not refused" sh -c \
  "! grep -q 'not usable\\|unprofiled' '$TMP/each.err'"
check "RUN_ARGS --each with --file: the file is the run's report" python3 - \
  "$F" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert sorted(r) == ["BM_Large", "BM_Small"], r
for b in r.values():
    assert b["latency"]["value"] > 0 and b["task-clock"]["value"] > 0, r
PY
# without a file there is no way to hand its report back: said, and the
# command runs unprofiled (strict: not at all)
for conf in runner strict; do
  BENCHPROF_CONFIG="$TMP/$conf.json" BENCHPROF_RUN_ARGS="--each google-benchmark" \
    sh "$ENTRY" "$WORKLOADS/gbench" --benchmark_min_time=0.01 \
    >"$TMP/each-$conf.out" 2>"$TMP/each-$conf.err"
  echo $? >"$TMP/each-$conf.rc"
done
check "RUN_ARGS --each without a file: exit 0, the command ran" sh -c \
  "[ \$(cat '$TMP/each-runner.rc') -eq 0 ] && grep -q BM_Small '$TMP/each-runner.out'"
check "RUN_ARGS --each without a file: says --each needs --file" grep -q \
  "warning: BENCHPROF_RUN_ARGS has --each, which needs --file .*; running the command unprofiled" \
  "$TMP/each-runner.err"
check "strict, RUN_ARGS --each without a file: exit 2, not run" sh -c \
  "[ \$(cat '$TMP/each-strict.rc') -eq 2 ] && ! grep -q BM_Small '$TMP/each-strict.out'"

entry strictbogus "$TMP/strict.json" "--bogus-option"
check "strict, RUN_ARGS bogus: exit 2 (was $rc)" [ "$rc" -eq 2 ]
check "strict, RUN_ARGS bogus: the command is not run" sh -c \
  "! [ -f '$TMP/ran.txt' ]"
check "strict, RUN_ARGS bogus: says so" grep -q \
  "BENCHPROF_RUN_ARGS is not usable.*strict mode" \
  "$TMP/strictbogus.err"
finish
