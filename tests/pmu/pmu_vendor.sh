#!/bin/sh
# Vendor events on the hardware branch: libpfm4 encodes the events of a
# forced PMU model (LIBPFM_FORCE_PMU) and the fake PMU opens them, so the
# attributes benchprof passes to perf_event_open can be compared with the
# vendors' documented encodings (PERF_TYPE_RAW, config = umask << 8 |
# event select):
#   Intel Ice Lake (icl), Intel SDM vol. 3B, 64-ia-32 event tables:
#     INST_RETIRED.ANY_P            event C0H umask 00H
#     BR_MISP_RETIRED.ALL_BRANCHES  event C5H umask 00H
#     MEM_LOAD_RETIRED.L3_MISS      event D1H umask 20H (PEBS)
#   AMD Zen 3 (amd64_fam19h_zen3), PPR for family 19h, core PMC events:
#     Retired Instructions                     PMCx0C0
#     Retired Branch Instructions              PMCx0C2
#     Retired Branch Instructions Mispredicted PMCx0C3
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"
. "$top_srcdir/tests/pmu/pmu_lib.sh"

need_workload split
pmu_note

# 1. Intel: sampling by period, a precise event, counting
knobs LIBPFM_FORCE_PMU=icl
record icl -e INST_RETIRED:ANY_P -c 2000000 -- "$WORKLOADS/split" 0.2
expect_status icl 0
validate icl
pycheck "icl INST_RETIRED:ANY_P: raw 0x00c0, by period" <<'PY'
import os
import artifacts as A, fakelog as L
smp = L.ok(L.sampling(L.load()))
assert smp
for o in smp:
    assert o["type"] == L.PERF_TYPE_RAW and o["config"] == 0x00c0, o
    assert o["config1"] == 0 and o["precise_ip"] == 0, o
    assert o["exclude_user"] == 0, o
    assert o["exclude_guest"] == 1, o       # libpfm4's default: host only
    assert o["freq"] == 0 and o["sample"] == 2000000, o
ev = A.load_dir(os.path.join(os.environ["TMP"], "icl"))["summary"]["event"]
assert ev["used"] == "INST_RETIRED:ANY_P" and ev["fallback"] is False, ev
PY

record iclp -e icl::MEM_LOAD_RETIRED:L3_MISS:pp -c 100000 -- \
  "$WORKLOADS/split" 0.1
expect_status iclp 0
pycheck "icl MEM_LOAD_RETIRED:L3_MISS:pp: raw 0x20d1, precise_ip 2" <<'PY'
import fakelog as L
smp = L.ok(L.sampling(L.load()))
assert smp and all(o["type"] == L.PERF_TYPE_RAW and o["config"] == 0x20d1 and
                   o["precise_ip"] == 2 for o in smp), smp
PY

"$BENCHPROF" stat --json \
  -C 'INST_RETIRED:ANY_P,icl::BR_MISP_RETIRED:ALL_BRANCHES:k' -- \
  "$WORKLOADS/split" 0.1 >/dev/null 2>"$TMP/iclstat.json"
check "icl: stat exits 0" [ $? -eq 0 ]
pycheck "icl: counted with the documented codes; :k counts the kernel only" <<'PY'
import json, os
import fakelog as L
cnt = {o["config"]: o for o in L.ok(L.counting(L.load()))
       if o["type"] == L.PERF_TYPE_RAW}
assert set(cnt) == {0x00c0, 0x00c5}, cnt
assert cnt[0x00c0]["exclude_kernel"] == 0      # stat counts the kernel too
assert cnt[0x00c5]["exclude_user"] == 1 and cnt[0x00c5]["exclude_kernel"] == 0
stat = json.load(open(os.path.join(os.environ["TMP"], "iclstat.json")))
assert all(c["available"] for c in stat["counters"]), stat
PY

# 2. AMD Zen 3
knobs LIBPFM_FORCE_PMU=amd64_fam19h_zen3
record zen -e RETIRED_INSTRUCTIONS -- "$WORKLOADS/split" 0.2
expect_status zen 0
validate zen
pycheck "zen3 RETIRED_INSTRUCTIONS: raw 0x0c0 by frequency" <<'PY'
import os
import artifacts as A, fakelog as L
smp = L.ok(L.sampling(L.load()))
assert smp
for o in smp:
    assert o["type"] == L.PERF_TYPE_RAW and o["config"] == 0x0c0, o
    assert o["exclude_user"] == 0 and o["exclude_hv"] == 1, o
    assert o["freq"] == 1 and o["sample"] == 997, o
ev = A.load_dir(os.path.join(os.environ["TMP"], "zen"))["summary"]["event"]
assert ev["used"] == "RETIRED_INSTRUCTIONS" and ev["fallback"] is False, ev
PY
"$BENCHPROF" stat --json -u -C \
  'RETIRED_BRANCH_INSTRUCTIONS,amd64_fam19h_zen3::RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED' \
  -- "$WORKLOADS/split" 0.1 >/dev/null 2>"$TMP/zenstat.json"
check "zen3: stat exits 0" [ $? -eq 0 ]
pycheck "zen3: counted with the documented codes" <<'PY'
import fakelog as L
cnt = {o["config"]: o for o in L.ok(L.counting(L.load()))
       if o["type"] == L.PERF_TYPE_RAW}
assert set(cnt) == {0x0c2, 0x0c3}, cnt
assert all(o["exclude_kernel"] == 1 for o in cnt.values()), cnt  # -u
PY
# no precise modifier on AMD's core PMU in libpfm4: said so, exit 2
"$BENCHPROF" record -o "$TMP/zenp" -e RETIRED_INSTRUCTIONS:pp -- true \
  2>"$TMP/zenp.err"
check "zen3 :pp: exit 2" [ $? -eq 2 ]
check "zen3 :pp: no precise sampling for it, drop the modifier" \
  grep -qF 'no precise sampling for this event: drop :p, :pp' "$TMP/zenp.err"

# 3. events: the forced model's events open on the fake PMU
knobs LIBPFM_FORCE_PMU=icl
"$BENCHPROF" events --json MEM_INST_RETIRED >"$TMP/events.json" 2>&1
pycheck "events probes a vendor event through the hardware branch" <<'PY'
import json, os
ev = json.load(open(os.path.join(os.environ["TMP"], "events.json")))
m = [e for e in ev if e["name"] == "icl::MEM_INST_RETIRED"]
assert m and m[0]["can_open"] is True, ev
PY
finish
