#!/bin/sh
# The errors a real PMU gives, through the fake PMU: EBUSY (another tool
# holds the counters), EMFILE, EACCES and EINVAL, each with its own
# message: record stops with the reason and what to do (once, without the
# errno's text twice); stat reports the counter unavailable with the same
# reason, never as 0, and still counts the software events.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"
. "$top_srcdir/tests/pmu/pmu_lib.sh"

need_workload split
pmu_note

for case in \
  "EBUSY|in use by another program" \
  "EMFILE|raise the limit (ulimit -n)" \
  "EACCES|perf_event_paranoid" \
  "EINVAL|the kernel refused the attributes"; do
  e=${case%%|*}
  says=${case#*|}
  knobs FAKEPMU_FAIL="$e"

  record "rec$e" -- "$WORKLOADS/split" 0.05
  check "record, $e: exit 1" [ "$status" -eq 1 ]
  check "record, $e: the event and the reason" \
    grep -qF "error: event 'cycles': perf_event_open on CPU" "$TMP/rec$e.err"
  check "record, $e: what to do" grep -qF "$says" "$TMP/rec$e.err"
  check "record, $e: one line, the errno's text once" python3 - \
    "$TMP/rec$e.err" <<'PY'
import os, sys
text = open(sys.argv[1]).read()
lines = [l for l in text.splitlines() if l.strip()]
assert len(lines) == 1, lines
for err in ("Device or resource busy", "Too many open files",
            "Permission denied", "Invalid argument"):
    assert text.count(err) <= 1, text
PY
  check "record, $e: no software-clock fallback" \
    sh -c "! grep -q 'software clock' '$TMP/rec$e.err'"

  "$BENCHPROF" stat --json -C cycles,instructions,task-clock -- \
    "$WORKLOADS/split" 0.05 >/dev/null 2>"$TMP/stat$e.json"
  check "stat, $e: exits with the command's status" [ $? -eq 0 ]
  pycheck "stat, $e: hardware counters unavailable with the reason" \
    "$e" "$says" <<'PY'
import json, os, sys
import fakelog as L
e, says = sys.argv[1], sys.argv[2]
stat = json.load(open(os.path.join(os.environ["TMP"], "stat%s.json" % e)))
c = {x["slug"]: x for x in stat["counters"]}
for slug in ("cycles", "instructions"):
    assert c[slug]["available"] is False and "value" not in c[slug], c[slug]
    assert e in c[slug]["reason"] and says in c[slug]["reason"], c[slug]
assert c["task-clock"]["available"] and c["task-clock"]["value"] > 0, c
assert all(o["errno"] == e for o in L.load() if o["type"] == L.PERF_TYPE_HARDWARE)
PY
done

# one event refused, the others counted (FAKEPMU_FAIL_CONFIG: instructions)
knobs FAKEPMU_FAIL=EBUSY FAKEPMU_FAIL_CONFIG=1
"$BENCHPROF" stat --json -C cycles,instructions,branches -- \
  "$WORKLOADS/split" 0.05 >/dev/null 2>"$TMP/one.json"
pycheck "stat: only the refused counter is missing" <<'PY'
import json, os
stat = json.load(open(os.path.join(os.environ["TMP"], "one.json")))
c = {x["slug"]: x for x in stat["counters"]}
assert not c["instructions"]["available"] and "EBUSY" in c["instructions"]["reason"], c
assert c["cycles"]["available"] and c["branches"]["available"], c
PY
finish
