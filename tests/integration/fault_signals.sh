#!/bin/sh
# benchprof itself is signalled mid-run.
#  - SIGTERM: passed on to the command, which decides: one that traps it
#    and exits 3 makes benchprof exit 3; one killed by it makes benchprof
#    exit 143 (128+15).  Either way benchprof reaps it and writes the
#    (partial) profile, every artifact complete.
#  - SIGKILL: benchprof cannot do anything, so the kernel must: the
#    command was started with PR_SET_PDEATHSIG(SIGKILL) and dies with
#    benchprof instead of running on; nothing half-written is left.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/fault_lib.sh"

# wait_for WHAT COMMAND...: poll COMMAND (up to 20 s), fail if never true
wait_for() {
  what=$1
  shift
  i=0
  while ! "$@"; do
    i=$((i + 1))
    if [ $i -gt 200 ]; then
      fail "gave up waiting: $what"
      return 1
    fi
    sleep 0.1
  done
  return 0
}

gone() {
  ! kill -0 "$1" 2>/dev/null
}
valid() {
  PYTHONPATH="$top_srcdir/tests" python3 "$top_srcdir/tests/artifacts.py" \
    validate "$1" >/dev/null
}
ready() {
  [ -s "$1" ]
}

# 1. SIGTERM to a command that traps it
cat >"$TMP/trap.sh" <<'SH'
trap 'echo "got TERM"; exit 3' TERM
echo started >"$1"
while :; do :; done
SH
"$BENCHPROF" record -q -o "$TMP/term1" -- sh "$TMP/trap.sh" "$TMP/ready1" \
  >"$TMP/out1" 2>"$TMP/err1" &
bp=$!
wait_for "the command starts" ready "$TMP/ready1"
sleep 0.2
kill -TERM $bp
wait $bp
rc=$?
check "SIGTERM reached the command" grep -q "got TERM" "$TMP/out1"
check "benchprof exits with the command's status 3 (got $rc)" [ "$rc" -eq 3 ]
check "the profile is written and valid" valid "$TMP/term1"

# 2. SIGTERM to a command that dies of it
"$BENCHPROF" record -q -o "$TMP/term2" -- \
  sh -c "$PIDFILE_EXEC" "$TMP/pid2" "$WORKLOADS/threads" 30 \
  >/dev/null 2>"$TMP/err2" &
bp=$!
check "the command starts" wait_file "$TMP/pid2" $bp
sleep 0.3
kill -TERM $bp
wait $bp
rc=$?
check "benchprof exits 143 for a command killed by SIGTERM (got $rc)" \
  [ "$rc" -eq 143 ]
check "the partial profile is written and valid" valid "$TMP/term2"
check "no temporary file is left" \
  [ -z "$(find "$TMP/term2" -name '*.tmp*' -o -name '.*' -type f)" ]

# 3. SIGKILL: the command must not outlive benchprof (its FIFO's
# directory, which nothing removes after a SIGKILL, goes in $TMP)
TMPDIR="$TMP" "$BENCHPROF" record -q -o "$TMP/kill" -- \
  sh -c "$PIDFILE_EXEC" "$TMP/pid3" "$WORKLOADS/threads" 30 \
  >/dev/null 2>"$TMP/err3" &
bp=$!
check "the command starts" wait_file "$TMP/pid3" $bp
target=$(cat "$TMP/pid3")
sleep 0.3
kill -KILL $bp
wait $bp 2>/dev/null
check "the command ($target) dies with benchprof" wait_for "pid $target exits" gone "$target"
kill -KILL "$target" 2>/dev/null
check "nothing half-written in the output folder" \
  [ -z "$(find "$TMP/kill" -type f 2>/dev/null)" ]
finish
