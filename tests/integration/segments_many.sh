#!/bin/sh
# A name marked many times (issue 21, F12): 100,000 begin/end pairs of one
# benchmark name, with the default counters read at each.  The counters of
# each run are added to the name's total as it ends and the name is kept
# once, so memory grows by a time range per run: peak RSS stays under
# 200 MB (it was about 5 KB per run, over 500 MB here).  The benchmark's
# own profile and its counters (task-clock in the run's report) are there.
. "$top_srcdir/tests/lib.sh"

cat >"$TMP/marks.py" <<'PY'
import os, sys
n = int(sys.argv[1])
fd = os.open(os.environ["BENCHPROF_CONTROL"], os.O_WRONLY)
chunk = b"begin - rep\nend -\n" * 500
for _ in range(n // 500):
    os.write(fd, chunk)
os.close(fd)
PY
/usr/bin/time -f %M -o "$TMP/rss" timeout 300 "$BENCHPROF" record \
  -o "$TMP/out" -- python3 "$TMP/marks.py" 100000 >"$TMP/log" 2>&1
rc=$?
check "100,000 runs of one name: recorded (exit $rc)" [ $rc -eq 0 ]
check "one benchmark marked" grep -q "1 benchmark marked" "$TMP/log"
check "its own profile" [ -f "$TMP/out/rep/summary.json" ]
kb=$(tail -1 "$TMP/rss")
check "peak RSS under 200 MB ($kb KB)" [ "$kb" -lt 200000 ]
finish
