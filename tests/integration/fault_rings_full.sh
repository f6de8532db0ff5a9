#!/bin/sh
# The command exits while its rings are full: one-page rings (-m 1), fast
# sampling of four busy threads, and benchprof stopped (SIGSTOP) from just
# after the start until the command has exited, so nobody drains the rings
# while they overflow and the command is gone when benchprof reads them.
# benchprof must still read what is there, count what the kernel dropped,
# reap the command and write every artifact whole.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/fault_lib.sh"

"$BENCHPROF" record -m 1 -F 10000 -o "$TMP/out" -- \
  sh -c "$PIDFILE_EXEC" "$TMP/pid" "$WORKLOADS/threads" 0.3 \
  >/dev/null 2>"$TMP/stderr" &
bp=$!
state=
if wait_file "$TMP/pid" $bp; then
  target=$(cat "$TMP/pid")
  kill -STOP $bp
  # the command runs on alone; wait until it is a zombie (exited, unreaped)
  n=0
  while [ $n -lt 1200 ]; do
    state=$(state_of "$target")
    [ "$state" = Z ] && break
    sleep 0.05
    n=$((n + 1))
  done
  kill -CONT $bp
fi
check "the command exited while benchprof was stopped" [ "$state" = Z ]
wait $bp
rc=$?
check "benchprof exits with the command's status 0 (got $rc)" [ "$rc" -eq 0 ]
check "every artifact is whole and valid" env PYTHONPATH="$top_srcdir/tests" \
  python3 "$top_srcdir/tests/artifacts.py" validate "$TMP/out"
check "the dropped samples are counted" python3 - "$TMP/out/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["lost"] > 0 and s["lost_events"] > 0, (s["lost"], s["lost_events"])
assert s["samples"] > 0, s["samples"]
assert s["exit_status"] == 0, s["exit_status"]
PY
check "stderr says so" grep -q "the kernel dropped [0-9]* samples" \
  "$TMP/stderr"
finish
