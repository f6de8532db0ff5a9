#!/bin/sh
# Counter groups and multiplexing on the hardware branch, through the fake
# PMU: a PMU that holds two counters at a time (EINVAL for a larger group)
# makes stat split the list into groups, all counted; reads that say a
# counter ran half of the time (time_running < time_enabled) are scaled
# back and marked as such in the table, stat --json and run's manifest; a
# counter that never ran is not reported as a number.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"
. "$top_srcdir/tests/pmu/pmu_lib.sh"

need_workload split
pmu_note
list=cycles,instructions,branches,branch-misses,cache-references,task-clock

# 1. groups of at most two hardware counters
knobs FAKEPMU_MAX_GROUP=2
"$BENCHPROF" stat --json -C "$list" -- "$WORKLOADS/split" 0.2 \
  >/dev/null 2>"$TMP/groups.json"
check "stat exits 0" [ $? -eq 0 ]
pycheck "five hardware counters in groups of two, all counted" <<'PY'
import collections, json, os
import fakelog as L
opens = L.counting(L.load())
ok = L.ok(opens)
hw = [o for o in ok if o["type"] == L.PERF_TYPE_HARDWARE]
leaders = {o["result"] for o in hw if o["group_fd"] == -1}
size = collections.Counter(o["group_fd"] if o["group_fd"] != -1 else o["result"]
                           for o in hw)
assert len(hw) == 5, hw
assert len(leaders) == 3 and max(size.values()) == 2, size
# the third counter of a group was refused with EINVAL and led a new one
assert any(o["errno"] == "EINVAL" and o["group_fd"] != -1 for o in opens), opens
stat = json.load(open(os.path.join(os.environ["TMP"], "groups.json")))
for c in stat["counters"]:
    assert c["available"] and c["running"] == 1.0, c
PY

# 2. counted half of the time: scaled, and said so.  touch reports the
#    CPU time getrusage saw; the fake counts CPU time for every hardware
#    event, so each one scaled back must come near it.
need_workload touch
knobs FAKEPMU_SCALE=0.5
"$BENCHPROF" stat --json -C "$list" -- "$WORKLOADS/touch" 100 0.3 \
  >"$TMP/scaled.out" 2>"$TMP/scaled.json"
check "stat (multiplexed) exits 0" [ $? -eq 0 ]
pycheck "multiplexed counters scaled by enabled/running" <<'PY'
import json, os, re
tmp = os.environ["TMP"]
stat = json.load(open(os.path.join(tmp, "scaled.json")))
cpu_ns = int(re.search(r"cpu_ns=(\d+)", open(os.path.join(tmp, "scaled.out")).read()).group(1))
c = {x["slug"]: x for x in stat["counters"]}
for slug in ("cycles", "instructions", "branches", "branch-misses",
             "cache-references", "task-clock"):
    x = c[slug]
    # a group is scheduled as a whole: its software member is scaled too
    assert x["available"] and 0.49 <= x["running"] <= 0.51, x
    # the reported value is the raw count extrapolated to the whole time
    assert abs(x["value"] - x["raw"] / x["running"]) <= 0.01 * x["value"], x
    # about the CPU time the command used, not half of it
    assert abs(x["value"] - cpu_ns) <= 0.15 * cpu_ns, (x, cpu_ns)
PY
"$BENCHPROF" stat -C "$list" -- "$WORKLOADS/split" 0.1 >/dev/null \
  2>"$TMP/scaled.txt"
check "the table marks scaled counters" \
  grep -q 'instructions .*(scaled, counted 50.0% of the time)' "$TMP/scaled.txt"

# 3. never scheduled (time_running 0): no number, a reason
knobs FAKEPMU_SCALE=0.0000000000001
"$BENCHPROF" stat --json -C cycles,instructions -- "$WORKLOADS/split" 0.1 \
  >/dev/null 2>"$TMP/never.json"
pycheck "a counter that never ran is unavailable, with the reason" <<'PY'
import json, os
stat = json.load(open(os.path.join(os.environ["TMP"], "never.json")))
c = {x["slug"]: x for x in stat["counters"]}
for slug in ("cycles", "instructions"):
    assert c[slug]["available"] is False and "value" not in c[slug], c
    assert "never counted" in c[slug]["reason"], c
PY

# 4. run: the manifest keeps the scaling of each measure
knobs FAKEPMU_SCALE=0.5
"$BENCHPROF" run -q --no-publish -o "$TMP/run" -- "$WORKLOADS/split" 0.2 \
  >/dev/null 2>"$TMP/run.err"
check "run (multiplexed) exits 0" [ $? -eq 0 ]
pycheck "run: scaled hardware measures, marked in the manifest" <<'PY'
import json, os
out = os.path.join(os.environ["TMP"], "run")
man = json.load(open(os.path.join(out, "manifest.json")))
(bench,) = json.load(open(os.path.join(out, "report.json"))).values()
c = {x["slug"]: x for x in man["counters"]}
assert 0.49 <= c["instructions"]["running"] <= 0.51, c["instructions"]
v = c["instructions"]["value"]
assert abs(bench["instructions"]["value"] - v) <= 1e-9 * v, (bench, v)
assert abs(v - c["instructions"]["raw"] / c["instructions"]["running"]) <= 0.01 * v
PY
finish
