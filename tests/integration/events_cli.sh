#!/bin/sh
# benchprof events: the software clock is listed as openable, --json writes
# valid JSON, the table's columns fit the longest name, a misspelt
# pattern gets the "did you mean" that -e gives, and a bad option is a
# usage error (exit 2).
. "${top_srcdir:?run through make check}/tests/lib.sh"

# the software clock opens wherever perf_event_open works at all
if ! "$BENCHPROF" events cpu-clock >"$TMP/clock.txt" 2>"$TMP/clock.err"; then
  cat "$TMP/clock.err" >&2
  fail "benchprof events cpu-clock exits 0"
fi
clock='^perf::(cpu-clock|PERF_COUNT_SW_CPU_CLOCK) +'
if grep -Eiq "${clock}no \\((EACCES|EPERM|ENOSYS)" "$TMP/clock.txt"; then
  echo "SKIP: perf_event_open refused the software clock"
  exit 77
fi
check "cpu-clock is listed as openable" \
  grep -Eiq "${clock}yes" "$TMP/clock.txt"
check "a count line ends the table" \
  grep -Eq '^[0-9]+ events?, [0-9]+ can be opened$' "$TMP/clock.txt"

# --json: an array of objects with the documented keys
if "$BENCHPROF" events --json cycles >"$TMP/cycles.json"; then
  pass "benchprof events --json cycles exits 0"
else
  fail "benchprof events --json cycles exits 0"
fi
check "--json output is valid JSON" \
  python3 -m json.tool "$TMP/cycles.json" "$TMP/cycles.pretty.json"
check "--json rows carry name, pmu, can_open, errno_name, description" \
  python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))
keys = {"name", "pmu", "can_open", "errno_name", "description"}
assert isinstance(rows, list) and rows
for r in rows:
    assert set(r) == keys, r
    assert "cycles" in r["name"].lower()
    assert r["can_open"] in (True, False, None)
    assert (r["errno_name"] is None) == (r["can_open"] is not False)
' "$TMP/cycles.json"

# the columns are as wide as their longest entry: a long event name
# (perf::PERF_COUNT_HW_STALLED_CYCLES_FRONTEND is 43 characters) does not
# push its row's OPENS and DESCRIPTION out of line
"$BENCHPROF" events --no-probe >"$TMP/all.txt"
check "events --no-probe exits 0" test $? -eq 0
"$BENCHPROF" events >"$TMP/probed.txt"
check "events exits 0" test $? -eq 0
for f in all probed; do
  check "$f: every row's columns start under their heading" python3 - \
    "$TMP/$f.txt" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
head, rows = lines[0], lines[1:-1]
assert head.startswith("EVENT ") and rows, lines[:3]
o, d = head.index(" OPENS ") + 1, head.index(" DESCRIPTION") + 1
longest = max(len(r.split(" ")[0]) for r in rows)
assert o == longest + 1, (o, longest)
for r in rows:
    name = r.split(" ")[0]
    assert r[len(name):o].strip() == "" and r[o] != " ", r
    assert r[d - 1] == " " and (len(r) == d or r[d] != " "), r
PY
done

# a pattern nothing contains: exit 1, with the names -e would suggest
"$BENCHPROF" events --no-probe cylces >"$TMP/typo.txt" 2>"$TMP/typo.err"
status=$?
check "a pattern nothing contains exits 1" test "$status" -eq 1
check "it says nothing contains it" \
  grep -q "no event name contains 'cylces'" "$TMP/typo.err"
check "it suggests cycles" \
  grep -Eiq "did you mean: ([^?]*, )?([a-z0-9_]*::)?(cycles|cpu-cycles)[,?]" \
  "$TMP/typo.err"
"$BENCHPROF" record -e cylces -o "$TMP/rec" -- true >/dev/null \
  2>"$TMP/typo_e.err"
check "-e suggests the same names" sh -c '
  a=$(sed -n "s/.*did you mean: \([^?]*\)?.*/\1/p" "$1")
  b=$(sed -n "s/.*did you mean: \([^?]*\)?.*/\1/p" "$2")
  test -n "$a" && test "$a" = "$b"' sh "$TMP/typo.err" "$TMP/typo_e.err"

# usage errors exit 2 and say why on stderr
"$BENCHPROF" events --no-such-option >/dev/null 2>"$TMP/bad.err"
status=$?
check "a bad option exits 2" test "$status" -eq 2
check "a bad option is explained" grep -q 'no-such-option' "$TMP/bad.err"

"$BENCHPROF" events --help >"$TMP/help.txt"
status=$?
check "--help exits 0" test "$status" -eq 0
check "--help shows the usage" \
  grep -q '^usage: benchprof events' "$TMP/help.txt"

finish
