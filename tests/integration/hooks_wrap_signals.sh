#!/bin/sh
# Signals sent to benchprof-wrap (a cancelled CI job, a shim's caller):
#   - TERM, HUP and INT reach the benchmark as with plain benchprof run
#     (its trap runs), the wrapper exits only after it, with its status,
#     and the run is "interrupted" in manifest.json, not published;
#   - SIGKILL of the wrapper kills the benchmark too, not left running.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"
. "$top_srcdir/tests/hooks_lib.sh"

cat >"$TMP/runner.json" <<JSON
{"enabled": true, "output": "$TMP/out", "spool": "$TMP/spool",
 "store": {"url": "file://$TMP/store"},
 "bencher": {"project": "demo", "testbed": "bench-box"},
 "network": {"retries": 0, "timeout": 5}, "comment": {"enabled": false}}
JSON
BENCHPROF_CONFIG="$TMP/runner.json"
BENCHPROF_RUN_ARGS="--no-bencher"
export BENCHPROF_CONFIG BENCHPROF_RUN_ARGS
mkdir -p "$TMP/store"

unset ROUNDS FILE
make_signal_bench

# wrap SIG: benchprof-wrap runs the benchmark in the background (with
# SIGINT at its default, as a job's shell gives a step), SIG sent to the
# wrapper's pid once the benchmark runs; $wrc: the wrapper's exit status
wrap() {
  MARK="$TMP/mark.$1"
  export MARK
  rm -rf "$TMP/out"
  python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' benchprof-wrap "$TMP/bench.sh" \
    >"$TMP/wrap.$1.out" 2>"$TMP/wrap.$1.err" &
  wpid=$!
  wait_line "$MARK" '^started' 20 || fail "$1: the benchmark never started"
  kill "-$1" "$wpid"
  wait "$wpid"
  wrc=$?
}

for sig in TERM HUP INT; do
  wrap $sig
  check_interrupted "$sig" $sig "$TMP/mark.$sig" "$wrc" "$TMP/wrap.$sig.err"
done

# SIGKILL: nothing of the wrapper runs; the benchmark must die with it
# (benchprof run is the wrapper, and PR_SET_PDEATHSIG kills its command)
MARK="$TMP/mark.KILL"
export MARK
benchprof-wrap "$TMP/bench.sh" >"$TMP/wrap.KILL.out" 2>&1 &
wpid=$!
wait_line "$MARK" '^started' 20 || fail "KILL: the benchmark never started"
bpid=$(sed -n 's/^started //p' "$MARK")
kill -KILL "$wpid"
wait "$wpid"
check "KILL: the benchmark (pid $bpid) dies with the wrapper" \
  dies_soon "$bpid"
[ -n "$bpid" ] && kill -KILL "$bpid" 2>/dev/null
check "KILL: it never finished" sh -c "! grep -q finished '$MARK'"

# a run left alone still passes and is published
MARK="$TMP/mark.none" ROUNDS=3
export MARK ROUNDS
rm -rf "$TMP/out"
benchprof-wrap "$TMP/bench.sh" >"$TMP/wrap.none.out" 2>"$TMP/wrap.none.err"
check "no signal: exit 0" [ $? -eq 0 ]
check "no signal: the benchmark finished" grep -q finished "$MARK"
check "no signal: the run passed" grep -q '"outcome":[[:space:]]*"passed"' \
  "$TMP/out/manifest.json"
check "no signal: it is in the store" sh -c \
  "[ -n \"\$(find '$TMP/store' -type f | sed -n 1p)\" ]"
finish
