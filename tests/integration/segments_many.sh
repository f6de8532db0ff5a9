#!/bin/sh
# A name marked many times (issue 21, F12): 5,000 then 25,000 begin/end
# pairs of one benchmark name, with the default counters read at each.
# The counters of each run are added to the name's total as it ends and
# the name is kept once, so memory grows by a time range per run: the
# 20,000 more runs cost under 1.5 KB each (about 5 KB before).
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
# runs N: record N runs of one name; its peak RSS (KB) in $TMP/rss.N.
# (In the sanitizer build ASan keeps freed memory in quarantine, which
# would count as growth: a small one here.)
runs() {
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1" \
  /usr/bin/time -f %M -o "$TMP/rss.$1" timeout 600 "$BENCHPROF" record \
    -o "$TMP/out.$1" -- python3 "$TMP/marks.py" "$1" >"$TMP/log.$1" 2>&1
}
runs 5000
rc1=$?
runs 25000
rc2=$?
check "5,000 and 25,000 runs of one name: recorded ($rc1, $rc2)" \
  [ $((rc1 + rc2)) -eq 0 ]
check "one benchmark marked" grep -q "1 benchmark marked" "$TMP/log.25000"
check "its own profile" [ -f "$TMP/out.25000/rep/summary.json" ]
# what 20,000 more runs cost: under 1.5 KB each (about 5 KB before; the
# difference of two runs leaves out what every run costs, also under ASan)
a=$(tail -1 "$TMP/rss.5000")
b=$(tail -1 "$TMP/rss.25000")
check "memory per run under 1.5 KB ($a KB -> $b KB for 20,000 more)" \
  [ $(( (b - a) * 1000 / 20000 )) -lt 1500 ]
finish
