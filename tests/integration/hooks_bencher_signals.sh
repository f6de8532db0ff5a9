#!/bin/sh
# Signals sent to the Bencher runner's entrypoint (a cancelled job):
#   - without a file it becomes benchprof run (exec): TERM, HUP and INT
#     reach the benchmark as with benchprof-wrap, and SIGKILL of the
#     entrypoint kills the benchmark too;
#   - with a file it must replace the file after the run, so benchprof
#     run is its child: TERM and HUP are passed on, INT as TERM (the
#     background job's command would ignore SIGINT); the entrypoint waits
#     for the run and exits with the benchmark's status; SIGKILL of the
#     entrypoint reaches the benchmark as TERM (benchprof run
#     --die-with-parent), and no process of the job is left;
#   - either way the run is "interrupted" in manifest.json, not published;
#   - a setup that fails before the benchmark (--keep-status: it runs
#     unprofiled in benchprof run's place) still flushes the spool.
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
export BENCHPROF_CONFIG
unset BENCHPROF_RUN_ARGS BENCHPROF_BENCHER_FILE
mkdir -p "$TMP/store"
ENTRY="$HOOKS/bencher/entrypoint.sh"

unset ROUNDS
make_signal_bench

# entry MODE SIG: the entrypoint (MODE file: with --file) runs the
# benchmark in the background (with SIGINT at its default, as a job's
# shell gives its command), SIG sent to the entrypoint's pid once the
# benchmark runs; $erc: the entrypoint's exit status
entry() {
  tag=$1.$2
  MARK="$TMP/mark.$tag" SIG=$2 FILE=
  [ "$1" = file ] && FILE="$TMP/results.$2.json"
  export MARK FILE
  rm -rf "$TMP/out"
  set --
  [ -z "$FILE" ] || set -- --file "$FILE" --
  python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$ENTRY" "$@" "$TMP/bench.sh" \
    >"$TMP/entry.$tag.out" 2>"$TMP/entry.$tag.err" &
  epid=$!
  wait_line "$MARK" '^started' 20 || fail "$tag: the benchmark never started"
  kill "-$SIG" "$epid"
  wait "$epid"
  erc=$?
}

for mode in stdout file; do
  for sig in TERM HUP INT; do
    entry $mode $sig
    got=$sig
    [ $mode = file ] && [ $sig = INT ] && got=TERM
    check_interrupted "$mode $sig" $got "$TMP/mark.$mode.$sig" "$erc" \
      "$TMP/entry.$mode.$sig.err"
  done
done
check "file: the interrupted run's report replaced the file" cmp -s \
  "$TMP/results.INT.json" "$TMP/out/report.json"

# killed MODE: the entrypoint (MODE file: with --file) started in a
# session of its own (the job's processes: the entrypoint, benchprof
# run, its helper, the benchmark and its sleep) and SIGKILLed once the
# benchmark runs, as a runner's hard timeout does; $epid its pid (and
# the session's id).  The benchmark, left alone, would run for 60 s:
# three times session_ends' bound.
killed() {
  MARK="$TMP/mark.KILL.$1" FILE='' ROUNDS=300
  [ "$1" = file ] && FILE="$TMP/results.KILL.json"
  export MARK FILE ROUNDS
  rm -rf "$TMP/out"
  set --
  [ -z "$FILE" ] || set -- --file "$FILE" --
  python3 -c 'import os, sys
os.setsid()
os.execvp(sys.argv[1], sys.argv[1:])' "$ENTRY" "$@" "$TMP/bench.sh" \
    >"$TMP/entry.KILL.out" 2>"$TMP/entry.KILL.err" &
  epid=$!
  wait_line "$MARK" '^started' 20 || fail "KILL $1: the benchmark never started"
  kill -KILL "$epid"
  wait "$epid" 2>/dev/null  # (bash says "Killed")
}

# SIGKILL without a file: nothing of the entrypoint runs; the benchmark
# must die with it (the entrypoint is benchprof run, PR_SET_PDEATHSIG)
killed stdout
check "KILL: nothing of the job is left within 20 s" session_ends "$epid"
session_kill "$epid"
check "KILL: it never finished" sh -c "! grep -q finished '$MARK'"

# SIGKILL with a file: benchprof run is the entrypoint's child; it gets
# SIGTERM when the entrypoint dies (--die-with-parent) and passes it on,
# so the benchmark stops as for a cancelled job (its trap runs) and
# nothing of the job runs on
killed file
unset ROUNDS
check "KILL, file: nothing of the job is left within 20 s" \
  session_ends "$epid"
session_kill "$epid"
check "KILL, file: the benchmark got TERM (its trap ran)" \
  grep -qx "got TERM" "$MARK"
check "KILL, file: it never finished" sh -c "! grep -q finished '$MARK'"
check "KILL, file: the run is interrupted in manifest.json" grep -q \
  '"outcome":[[:space:]]*"interrupted"' "$TMP/out/manifest.json"
check "KILL, file: benchprof run said it was not published" grep -q \
  "interrupted.*not published" "$TMP/entry.KILL.err"
check "KILL, file: the file keeps the benchmark's BMF" grep -qx \
  '{"b": {"latency": {"value": 1}}}' "$FILE"
check "KILL, file: nothing in the store" sh -c \
  "[ -z \"\$(find '$TMP/store' -type f | sed -n 1p)\" ]"

# --die-with-parent and a parent that died before benchprof could ask
# for the signal (none would come): the command is not run, said why
rm -f "$TMP/ran"
sh -c 'parent=$$
(sleep 0.5; exec "$1" run --die-with-parent "$parent" -- touch "$2") &
exit 0' sh "$BENCHPROF" "$TMP/ran" >"$TMP/orphan.out" 2>"$TMP/orphan.err"
wait_line "$TMP/orphan.err" 'not run' 20
check "a parent gone first: the command is not run" [ ! -e "$TMP/ran" ]
check "a parent gone first: said why" grep -q \
  "^benchprof: error: --die-with-parent [0-9]*: benchprof's parent is pid" \
  "$TMP/orphan.err"

# left alone, with a file: passes, the file is the report, published
MARK="$TMP/mark.none" FILE="$TMP/results.none.json" ROUNDS=3
export MARK FILE ROUNDS
rm -rf "$TMP/out"
echo stdin-line | "$ENTRY" --file "$FILE" -- sh -c \
  'read -r l; echo "read $l" >>"$MARK"; exec "$0"' "$TMP/bench.sh" \
  >"$TMP/entry.none.out" 2>"$TMP/entry.none.err"
check "no signal: exit 0 ($?)" [ $? -eq 0 ]
check "no signal: the benchmark finished" grep -q finished "$MARK"
check "no signal: the benchmark read the entrypoint's stdin" \
  grep -qx "read stdin-line" "$MARK"
check "no signal: the run passed" grep -q \
  '"outcome":[[:space:]]*"passed"' "$TMP/out/manifest.json"
check "no signal: the file is the run's report" cmp -s "$FILE" \
  "$TMP/out/report.json"
check "no signal: it is in the store" sh -c \
  "[ -n \"\$(find '$TMP/store' -type f | sed -n 1p)\" ]"

# a publication spooled (the store a file), then a setup that fails
# before the benchmark (its output directory under a file): the
# benchmark runs unprofiled, and the spool is flushed all the same
rm -rf "$TMP/store" "$TMP/out"
: >"$TMP/store"
MARK="$TMP/mark.spool" FILE="$TMP/results.spool.json"
"$ENTRY" --file "$FILE" -- "$TMP/bench.sh" >"$TMP/entry.spool.out" \
  2>"$TMP/entry.spool.err"
id=$(sed -n "s/.*publication spooled as \([^ ]*\) in .*/\1/p" \
  "$TMP/entry.spool.err")
check "a publication is spooled" [ -n "$id" ]
rm -f "$TMP/store"
mkdir "$TMP/store"
# (a relative output, which config check leaves to the job's directory:
# an absolute one under a file is an invalid configuration, and the
# entrypoint would run the command without benchprof run at all)
sed 's|"output": "[^"]*"|"output": "rel-out"|' "$TMP/runner.json" \
  >"$TMP/runner-rel.json"
: >"$TMP/rel-out"
MARK="$TMP/mark.setup" FILE="$TMP/results.setup.json"
(cd "$TMP" && BENCHPROF_CONFIG="$TMP/runner-rel.json" "$ENTRY" \
  --file "$FILE" -- "$TMP/bench.sh" >"$TMP/entry.setup.out" \
  2>"$TMP/entry.setup.err")
check "a failed setup: the benchmark's status ($?)" [ $? -eq 0 ]
check "the benchmark ran (unprofiled)" grep -q finished "$TMP/mark.setup"
check "it says so" grep -q "running the command unprofiled" \
  "$TMP/entry.setup.err"
check "the spool was flushed all the same" grep -q "^$id" \
  "$TMP/entry.setup.err"
check "nothing waits in the spool" [ ! -e "$TMP/spool/$id" ]
finish
