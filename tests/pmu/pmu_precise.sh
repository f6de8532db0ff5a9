#!/bin/sh
# perf's modifiers and the precise fallback, through the fake PMU: a
# precision the PMU refuses (EOPNOTSUPP above FAKEPMU_MAX_PRECISE) is
# lowered one step at a time as perf does, the hardware event is kept (no
# software clock), and the precision used is stated on stderr, in
# summary.json, the Gecko meta and the pprof comments.  :u :k :pp :P
# become libpfm4's attributes; what has no counterpart is refused with the
# right spelling.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"
. "$top_srcdir/tests/pmu/pmu_lib.sh"

need_workload split
pmu_note

# 1. precise=2 where the PMU takes at most 1: cycles kept at precise_ip=1
knobs FAKEPMU_MAX_PRECISE=1
record p2 -e cycles:precise=2 -- "$WORKLOADS/split" 0.3
expect_status p2 0
validate p2
check "stderr says precise_ip=2 was refused and 1 is used" \
  grep -q "refused precise_ip=2 (EOPNOTSUPP); keeping the event with precise_ip=1" \
  "$TMP/p2.err"
check "no software-clock fallback" \
  sh -c "! grep -Ei 'software clock|no hardware PMU' '$TMP/p2.err'"
pycheck "cycles kept with precise_ip 1, in every artifact" <<'PY'
import os
import artifacts as A, fakelog as L
opens = L.sampling(L.load())
tried = [o["precise_ip"] for o in opens if o["cpu"] == opens[0]["cpu"]]
assert tried[:2] == [2, 1], tried           # one step down, not straight to 0
assert all(o["errno"] == "EOPNOTSUPP" for o in opens if o["precise_ip"] == 2)
ok = L.ok(opens)
assert ok and all(o["precise_ip"] == 1 and o["type"] == L.PERF_TYPE_HARDWARE
                  for o in ok), ok
a = A.load_dir(os.path.join(os.environ["TMP"], "p2"))
ev = a["summary"]["event"]
assert ev["fallback"] is False and ev["time_based"] is False, ev
assert ev["precise"] == {"requested": 2, "used": 1, "max": False,
                         "lowered": True}, ev
meta = a["gecko"]["meta"]["benchprof"]
assert meta["precise_requested"] == 2 and meta["precise_used"] == 1, meta
comments = "\n".join(a["pprof"].comments)
assert "precise_ip 1, 2 requested" in comments, comments
assert a["summary"]["samples"] > 20
PY

# 2. :pp where the PMU takes it: precise_ip 2, no warning
knobs
record pp -e cycles:pp -- "$WORKLOADS/split" 0.2
expect_status pp 0
check "cycles:pp: no warning" sh -c "! grep -q 'warning' '$TMP/pp.err'"
check "cycles:pp: the precision is noted" \
  grep -q "'cycles:pp': sampling with precise_ip=2" "$TMP/pp.err"
pycheck "cycles:pp is precise_ip 2 on the hardware event" <<'PY'
import os
import artifacts as A, fakelog as L
for o in L.sampling(L.load()):
    assert o["result"] >= 0 and o["precise_ip"] == 2, o
    assert o["type"] == L.PERF_TYPE_HARDWARE and o["config"] == L.HW_CPU_CYCLES, o
    assert o["exclude_user"] == 0, o   # the privilege levels: the default
ev = A.load_dir(os.path.join(os.environ["TMP"], "pp"))["summary"]["event"]
assert ev["requested"] == "cycles:pp" and ev["used"] == "cycles:pp", ev
assert ev["precise"]["used"] == 2 and ev["precise"]["lowered"] is False, ev
PY

# 3. :P: the highest the PMU accepts, tried from 3 down
knobs FAKEPMU_MAX_PRECISE=1
record pmax -e cycles:P -- "$WORKLOADS/split" 0.2
expect_status pmax 0
check "cycles:P: the precision found is noted, not warned about" \
  grep -q "highest precision the PMU accepts is precise_ip=1" "$TMP/pmax.err"
pycheck "cycles:P tries 3, 2, 1" <<'PY'
import os
import artifacts as A, fakelog as L
opens = L.sampling(L.load())
cpu0 = [o["precise_ip"] for o in opens if o["cpu"] == opens[0]["cpu"]]
assert cpu0 == [3, 2, 1], cpu0
ev = A.load_dir(os.path.join(os.environ["TMP"], "pmax"))["summary"]["event"]
assert ev["precise"] == {"requested": 3, "used": 1, "max": True,
                         "lowered": True}, ev
PY

# 4. no precision at all: :ppp still samples cycles, at precise_ip 0
knobs FAKEPMU_MAX_PRECISE=0
record p0 -e instructions:ppp -c 500000 -- "$WORKLOADS/split" 0.2
expect_status p0 0
pycheck "instructions:ppp on a PMU without precision: kept, precise_ip 0" <<'PY'
import os
import artifacts as A, fakelog as L
opens = L.sampling(L.load())
assert [o["precise_ip"] for o in opens if o["cpu"] == opens[0]["cpu"]] == [3, 2, 1, 0]
ev = A.load_dir(os.path.join(os.environ["TMP"], "p0"))["summary"]["event"]
assert ev["used"] == "instructions:ppp" and ev["fallback"] is False, ev
assert ev["precise"]["used"] == 0 and ev["period"] == 500000, ev
PY

# 5. counting: :k and :u become exclude bits; precision lowered silently
knobs FAKEPMU_MAX_PRECISE=0
"$BENCHPROF" stat --json -C 'cycles:k,instructions:upp' -- \
  "$WORKLOADS/split" 0.1 >/dev/null 2>"$TMP/stat.json"
check "stat with perf modifiers exits 0" [ $? -eq 0 ]
pycheck "stat: :k counts the kernel only, :upp user space at precise 0" <<'PY'
import json, os
import fakelog as L
cnt = L.ok(L.counting(L.load()))
cyc = [o for o in cnt if o["config"] == L.HW_CPU_CYCLES]
ins = [o for o in cnt if o["config"] == L.HW_INSTRUCTIONS]
assert cyc and cyc[0]["exclude_user"] == 1 and cyc[0]["exclude_kernel"] == 0, cyc
assert ins and ins[0]["exclude_user"] == 0 and ins[0]["exclude_kernel"] == 1, ins
assert ins[0]["precise_ip"] == 0, ins
stat = json.load(open(os.path.join(os.environ["TMP"], "stat.json")))
c = {x["name"]: x for x in stat["counters"]}
assert c["instructions:upp"]["available"], c
PY

# 6. what cannot be translated: exit 2 with the right spelling
knobs
for case in 'cycles:S|count events with --counters' \
            'cycles:pppp|at most three p' \
            'cycles:ue|write libpfm4'"'"'s '"'"':excl'"'" \
            'cycles:precise2|did you mean '"'"'precise=2'"'"'?'; do
  ev=${case%%|*}
  says=${case#*|}
  "$BENCHPROF" record -o "$TMP/bad" -e "$ev" -- true 2>"$TMP/bad.err"
  check "$ev: exit 2" [ $? -eq 2 ]
  check "$ev: says what to write" grep -qF "$says" "$TMP/bad.err"
done
finish
