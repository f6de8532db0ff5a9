#!/bin/sh
# The Bencher entrypoint acts on the configuration and BENCHPROF_RUN_ARGS
# as benchprof-wrap does:
#   - "strict": true beside a wrong key: exit 2, the command not run;
#     without strict a warning and the command runs unprofiled (exit 0);
#   - BENCHPROF_RUN_ARGS is honoured (-F 50 samples at 50 Hz); a bad
#     option is named with the variable and the command runs unprofiled
#     (its file untouched); strict: exit 2, not run; one that clashes with
#     the entrypoint's own (--adapter beside --file) is refused too.
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

entry strictbogus "$TMP/strict.json" "--bogus-option"
check "strict, RUN_ARGS bogus: exit 2 (was $rc)" [ "$rc" -eq 2 ]
check "strict, RUN_ARGS bogus: the command is not run" sh -c \
  "! [ -f '$TMP/ran.txt' ]"
check "strict, RUN_ARGS bogus: says so" grep -q \
  "BENCHPROF_RUN_ARGS is not usable.*strict mode" \
  "$TMP/strictbogus.err"
finish
