#!/bin/sh
# tests/pmu/run-on-hardware.sh, the script that runs the hardware checks
# on a machine with a PMU: here (no PMU) it says "no PMU" and exits 0;
# under the fake PMU it takes the hardware path and every check passes
# (multiplexed counters scaled, LBR refused and the fallback stated); a
# PMU that refuses the trial open (EBUSY) is a failure, not "no PMU".
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need_workload split
script=$top_srcdir/tests/pmu/run-on-hardware.sh
fake=$top_builddir/tests/pmu/libfakepmu.so
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
export ASAN_OPTIONS

sh "$script" "$top_builddir" >"$TMP/real.out" 2>&1
rc=$?
sed 's/^/  real: /' "$TMP/real.out"
if [ -e /sys/bus/event_source/devices/cpu ] ||
   [ -e /sys/bus/event_source/devices/cpu_core ]; then
  check "with a PMU: the hardware checks pass" [ "$rc" -eq 0 ]
  check "with a PMU: the report is printed" \
    grep -q 'all hardware checks passed' "$TMP/real.out"
else
  check "no PMU here: exit 0" [ "$rc" -eq 0 ]
  check "no PMU here: said so" grep -q '^no PMU: ' "$TMP/real.out"
fi

env LD_PRELOAD="$fake" FAKEPMU_LBR=refuse FAKEPMU_SCALE=0.5 \
  sh "$script" "$top_builddir" >"$TMP/fake.out" 2>&1
rc=$?
sed 's/^/  fake: /' "$TMP/fake.out"
check "fake PMU: exit 0" [ "$rc" -eq 0 ]
check "fake PMU: the PMU opens, and it is named the fake" \
  grep -q '^PMU opens: the fake PMU' "$TMP/fake.out"
for step in cycles count precise lbr multiplex; do
  check "fake PMU: $step ok" grep -q "^$step  *ok " "$TMP/fake.out"
done
check "fake PMU: multiplexed counters reported scaled" \
  grep -q '^multiplex .* 11 counted, 11 scaled (lowest 0.50)' "$TMP/fake.out"
check "fake PMU: the LBR fallback is stated" \
  grep -q '^lbr .*refused LBR call stacks' "$TMP/fake.out"

env LD_PRELOAD="$fake" FAKEPMU_FAIL=EBUSY sh "$script" "$top_builddir" \
  >"$TMP/busy.out" 2>&1
check "a busy PMU: exit 1" [ $? -eq 1 ]
check "a busy PMU: not 'no PMU'" grep -q 'refused a trial open of instructions (EBUSY)' \
  "$TMP/busy.out"
finish
