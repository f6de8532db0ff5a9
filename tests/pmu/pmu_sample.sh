#!/bin/sh
# The hardware branch of record and run, through the fake PMU: cycles
# sampled by frequency and instructions by period (-c) are opened as
# PERF_TYPE_HARDWARE events with freq/sample_freq or sample_period as
# asked, no software-clock fallback is claimed, the samples arrive and
# every artifact names the hardware event; run's report carries the
# hardware counters as measures.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"
. "$top_srcdir/tests/pmu/pmu_lib.sh"

need_workload split
pmu_note

# 1. cycles at 997 Hz (the default event and rate)
record freq -- "$WORKLOADS/split" 0.3
expect_status freq 0
validate freq
check "no software-clock fallback is claimed" \
  sh -c "! grep -Ei 'software clock|no hardware PMU' '$TMP/freq.err'"
pycheck "cycles sampled by frequency on the hardware branch" <<'PY'
import os
import artifacts as A, fakelog as L
opens = L.load()
smp = L.ok(L.sampling(opens))
assert smp, opens
for o in smp:
    assert o["type"] == L.PERF_TYPE_HARDWARE and o["config"] == L.HW_CPU_CYCLES, o
    assert o["freq"] == 1 and o["sample"] == 997, o
    assert o["inherit"] == 1 and o["enable_on_exec"] == 1, o
assert len({o["cpu"] for o in smp}) == len(smp), "one event per CPU"
a = A.load_dir(os.path.join(os.environ["TMP"], "freq"))
ev = a["summary"]["event"]
assert ev["used"] == "cycles" and ev["fallback"] is False, ev
assert ev["time_based"] is False and ev["frequency_hz"] == 997, ev
assert ev["precise"] is None, ev
assert a["summary"]["samples"] > 20, a["summary"]["samples"]
assert ("cycles", "count") in a["pprof"].sample_types, a["pprof"].sample_types
meta = a["gecko"]["meta"]["benchprof"]
assert meta["event"] == "cycles" and meta["fallback"] is False, meta
PY

# 2. instructions every 1,000,000 events (-c)
record period -e instructions -c 1000000 -- "$WORKLOADS/split" 0.3
expect_status period 0
validate period
pycheck "instructions sampled by period on the hardware branch" <<'PY'
import os
import artifacts as A, fakelog as L
smp = L.ok(L.sampling(L.load()))
assert smp
for o in smp:
    assert o["type"] == L.PERF_TYPE_HARDWARE, o
    assert o["config"] == L.HW_INSTRUCTIONS, o
    assert o["freq"] == 0 and o["sample"] == 1000000, o
ev = A.load_dir(os.path.join(os.environ["TMP"], "period"))["summary"]["event"]
assert ev["used"] == "instructions" and ev["fallback"] is False, ev
assert ev["frequency_hz"] is None and ev["period"] == 1000000, ev
assert ev["time_based"] is False, ev
PY
check "the period is stated on stderr" \
  grep -q 'event instructions, period 1000000' "$TMP/period.err"

# 3. run: the profile on the hardware branch, hardware counters as measures
"$BENCHPROF" run -q --no-publish -o "$TMP/run" -- "$WORKLOADS/split" 0.3 \
  >/dev/null 2>"$TMP/run.err"
check "run exits 0" [ $? -eq 0 ]
pycheck "run: cycles sampled, cycles and instructions counted" <<'PY'
import json, os
import fakelog as L
out = os.path.join(os.environ["TMP"], "run")
man = json.load(open(os.path.join(out, "manifest.json")))
assert man["event"]["used"] == "cycles" and man["event"]["fallback"] is False, man["event"]
report = json.load(open(os.path.join(out, "report.json")))
(bench,) = report.values()
counters = {c["slug"]: c for c in man["counters"]}
for slug in ("cycles", "instructions", "branches"):
    assert counters[slug]["available"], counters[slug]
    assert bench[slug]["value"] == counters[slug]["value"] > 0, (slug, bench)
cnt = L.ok(L.counting(L.load()))
assert any(o["type"] == L.PERF_TYPE_HARDWARE and o["config"] == L.HW_INSTRUCTIONS
           for o in cnt), cnt
PY
finish
