#!/bin/sh
# benchprof stat on known work: page faults from touching fresh pages,
# task-clock against getrusage, totals over threads and a forked child,
# counters this machine cannot count reported unavailable (never 0).
. "$top_srcdir/tests/lib.sh"

pages=3000
"$BENCHPROF" stat --json -- "$WORKLOADS/touch" $pages 0.2 \
  >"$TMP/stdout" 2>"$TMP/stat.json"
rc=$?
check "stat exits with the command's status (0)" [ "$rc" -eq 0 ]
check "the command's stdout passes through" \
  grep -q '^rusage cpu_ns=' "$TMP/stdout"

check "counters agree with getrusage" python3 - "$TMP/stat.json" \
  "$TMP/stdout" "$pages" <<'PY'
import json, re, sys
stat = json.load(open(sys.argv[1]))
m = re.search(r"cpu_ns=(\d+) minflt=(\d+)", open(sys.argv[2]).read())
cpu_ns, minflt, pages = int(m.group(1)), int(m.group(2)), int(sys.argv[3])
c = {x["slug"]: x for x in stat["counters"]}
assert set(c) == {"instructions", "cycles", "branches", "branch-misses",
                  "cache-references", "cache-misses", "task-clock",
                  "page-faults"}, c.keys()
tc, pf = c["task-clock"], c["page-faults"]
assert tc["available"] and pf["available"], (tc, pf)
# three burners of 0.2 s each (main, thread, child): counted in one total
assert tc["value"] >= 0.55e9, tc
# getrusage counts a little before exec and the exit path too: 10%
assert abs(tc["value"] - cpu_ns) <= 0.10 * cpu_ns, (tc["value"], cpu_ns)
assert pf["value"] >= pages, (pf["value"], pages)
assert abs(pf["value"] - minflt) <= 0.10 * minflt + 50, (pf["value"], minflt)
for x in stat["counters"]:
    if x["available"]:
        assert x["value"] > 0 and 0 < x["running"] <= 1, x
    else:
        # never a number for what was not counted, always a reason
        assert "value" not in x and x["reason"], x
sys.exit(0)
PY

# the table: one row per counter, unavailable ones marked with the reason
"$BENCHPROF" stat -- "$WORKLOADS/touch" 100 0.05 >/dev/null 2>"$TMP/table"
check "the table names task-clock in msec" grep -q 'msec *task-clock' "$TMP/table"
check "the table states the elapsed time" grep -q 'seconds time elapsed' "$TMP/table"
if [ -e /sys/bus/event_source/devices/cpu ] ||
   [ -e /sys/bus/event_source/devices/cpu_core ]; then
  check "instructions are counted on a machine with a PMU" \
    grep -q '[0-9] *instructions' "$TMP/table"
else
  check "instructions are marked not counted without a PMU" \
    grep -q '<not counted> *instructions *(not supported' "$TMP/table"
fi

# bad input
"$BENCHPROF" stat --counters cyclez -- true 2>"$TMP/err"
check "an unknown counter exits 2" [ $? -eq 2 ]
check "and suggests the close match" grep -q "did you mean.*cycles" "$TMP/err"
"$BENCHPROF" stat -- "$TMP/does-not-exist" 2>"$TMP/err"
check "a missing command exits 127" [ $? -eq 127 ]
sh -c 'exit 0'
"$BENCHPROF" stat -C task-clock -- sh -c 'exit 5' 2>/dev/null
check "the command's exit status comes back" [ $? -eq 5 ]
finish
