#!/bin/sh
# --call-graph lbr (Intel LBR call stacks, user space).  Through the fake
# PMU: where the PMU takes it, the sampling events carry
# PERF_SAMPLE_BRANCH_STACK with branch_sample_type CALL_STACK | USER and
# no stack copies, and the run is reported as lbr (the fake cannot fill a
# branch stack, so it records no samples: the conversion of branch stacks
# into call chains is test_lbr's); where the PMU refuses it (EOPNOTSUPP),
# benchprof says so and records with --call-graph auto.  Without the fake
# (no PMU here) the same request ends on the software clock with auto.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"
. "$top_srcdir/tests/pmu/pmu_lib.sh"

need_workload split
pmu_note

# 1. accepted
knobs
record lbr --call-graph lbr -- "$WORKLOADS/split" 0.2
expect_status lbr 0
check "no call-graph warning" sh -c "! grep -q 'warning' '$TMP/lbr.err'"
pycheck "LBR call stacks asked for, reported as lbr" <<'PY'
import json, os
import fakelog as L
smp = L.sampling(L.load())
assert smp and all(o["result"] >= 0 for o in smp), smp
for o in smp:
    assert o["type"] == L.PERF_TYPE_HARDWARE, o
    assert o["sample_type"] & L.PERF_SAMPLE_BRANCH_STACK, o
    assert o["branch_sample_type"] == (L.PERF_SAMPLE_BRANCH_CALL_STACK |
                                       L.PERF_SAMPLE_BRANCH_USER), o
    assert o["sample_regs_user"] == 0 and o["sample_stack_user"] == 0, o
s = json.load(open(os.path.join(os.environ["TMP"], "lbr", "summary.json")))
assert s["call_graph"] == "lbr" and s["call_graph_fallback"] is None, s
assert s["corrupt_records"] == 0 and s["stack_bytes"] == 0, s
assert s["event"]["used"] == "cycles" and s["event"]["fallback"] is False
PY

# 2. refused: auto instead, said so
knobs FAKEPMU_LBR=refuse
record refused --call-graph lbr -- "$WORKLOADS/split" 0.3
expect_status refused 0
validate refused
check "the refusal and the mode used are stated" grep -qF \
  "the PMU refused LBR call stacks for 'cycles' (EOPNOTSUPP); recording with --call-graph auto instead" \
  "$TMP/refused.err"
pycheck "refused LBR: cycles with the auto call graph" <<'PY'
import os
import artifacts as A, fakelog as L
opens = L.sampling(L.load())
assert opens[0]["branch_sample_type"] and opens[0]["errno"] == "EOPNOTSUPP", opens[0]
ok = L.ok(opens)
assert ok and all(o["branch_sample_type"] == 0 and
                  not o["sample_type"] & L.PERF_SAMPLE_BRANCH_STACK and
                  o["sample_stack_user"] == 8192 and
                  o["type"] == L.PERF_TYPE_HARDWARE for o in ok), ok
s = A.load_dir(os.path.join(os.environ["TMP"], "refused"))["summary"]
assert s["call_graph"] == "auto" and "LBR" in s["call_graph_fallback"], s
assert s["event"]["used"] == "cycles" and s["samples"] > 20, s
assert s["unwind_samples"] == s["samples"], s
PY

# 3. no PMU at all (the real kernel here, no fake): auto on the clock
BENCHPROF=$REAL_BENCHPROF
if [ ! -e /sys/bus/event_source/devices/cpu ] &&
   [ ! -e /sys/bus/event_source/devices/cpu_core ]; then
  record nopmu --call-graph lbr -- "$WORKLOADS/split" 0.2
  expect_status nopmu 0
  validate nopmu
  pycheck "no PMU: the software clock, with the auto call graph" <<'PY'
import os
import artifacts as A
s = A.load_dir(os.path.join(os.environ["TMP"], "nopmu"))["summary"]
assert s["event"]["used"] == "cpu-clock" and s["event"]["fallback"], s
assert s["call_graph"] == "auto" and "LBR" in s["call_graph_fallback"], s
PY
fi
finish
