#!/bin/sh
# The event really used is stated: where the hardware event cannot be
# opened (no PMU, as on most VMs) benchprof falls back to the software
# clock and says so on stderr and in summary.json, the Gecko meta and the
# pprof comments; where a PMU exists it samples cycles and claims no
# fallback.  Asking for the software clock is never a fallback.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need_workload split

if pmu_present; then pmu=1; else pmu=0; fi
echo "hardware PMU present: $pmu"

record def -- "$WORKLOADS/split" 0.2
expect_status def 0
validate def
if [ "$pmu" -eq 1 ]; then
  check "no fallback warning with a PMU" \
    sh -c "! grep -Ei 'instead|clock fallback' '$TMP/def.err'"
else
  check "the fallback is stated on stderr" \
    grep -Eiq 'cycles.*cpu-clock|cpu-clock.*cycles' "$TMP/def.err"
  check "stderr gives the reason (no PMU)" grep -iq 'pmu' "$TMP/def.err"
fi

pycheck "summary.json, Gecko meta and pprof state the event used" "$pmu" <<'PY'
import os, sys
import artifacts as A
pmu = sys.argv[1] == "1"
a = A.load_dir(os.path.join(os.environ["TMP"], "def"))
ev = a["summary"]["event"]
meta = a["gecko"]["meta"]["benchprof"]
comments = "\n".join(a["pprof"].comments)
print("  summary.json event: %s" % ev)
assert ev["requested"] == "cycles", ev
assert meta["requested_event"] == "cycles", meta
assert ev["frequency_hz"] == 997 and meta["frequency"] == 997, (ev, meta)
if pmu:
    assert ev["used"] == "cycles" and ev["fallback"] is False, ev
    assert ev["fallback_reason"] is None, ev
    assert meta["event"] == "cycles" and meta["fallback"] is False, meta
    assert ev["time_based"] is False, ev
    assert ("cycles", "count") in a["pprof"].sample_types, \
        a["pprof"].sample_types
else:
    assert ev["used"] in ("cpu-clock", "task-clock"), ev
    assert ev["fallback"] is True and ev["time_based"] is True, ev
    assert "pmu" in (ev["fallback_reason"] or "").lower(), ev
    assert meta["event"] == ev["used"] and meta["fallback"] is True, meta
    assert meta["fallback_reason"] == ev["fallback_reason"], meta
    assert ev["used"] in comments and "cycles" in comments, comments
    assert ("cpu", "nanoseconds") in a["pprof"].sample_types, \
        a["pprof"].sample_types
PY

record clock -e cpu-clock -- "$WORKLOADS/split" 0.2
expect_status clock 0
check "no fallback warning for the software clock itself" \
  sh -c "! grep -Ei 'instead|clock fallback' '$TMP/clock.err'"
pycheck "cpu-clock requested: used as is, no fallback" <<'PY'
import os
import artifacts as A
a = A.load_dir(os.path.join(os.environ["TMP"], "clock"))
ev = a["summary"]["event"]
assert ev["used"] == "cpu-clock" and ev["fallback"] is False, ev
assert ev["fallback_reason"] is None and ev["time_based"] is True, ev
assert a["gecko"]["meta"]["benchprof"]["fallback"] is False
PY

finish
