#!/bin/sh
# Verdicts a pull request can trust, on real runs of `benchprof run`:
# - a harness's BMF bounds: a change beyond the threshold whose bounds
#   overlap the base's is not confirmed; bounds apart confirm it;
# - one value a side (no spread): the change is "unconfirmed (single run)"
#   and not counted;
# - the gate (--fail-on-regression, comment.fail_on_regression) exits 3 on
#   a confirmed regression only.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need python3 "apt-get install python3"

# a harness that prints its own BMF (the value and bounds given)
bmf_run() {  # DIR VALUE LOWER UPPER
  "$BENCHPROF" run -q --no-publish -o "$1" --adapter json --no-counters -- \
    sh -c "echo '{\"parse\": {\"latency\": {\"value\": $2, \"lower_value\": $3, \"upper_value\": $4}}}'" \
    >"$1.out" 2>"$1.err"
}

bmf_run "$TMP/base" 100 90 130
bmf_run "$TMP/overlap" 120 105 140       # +20%, its bounds overlap base's
bmf_run "$TMP/apart" 150 140 160         # +50%, above base's upper bound

cmp() {  # NAME BASE HEAD [OPTIONS]
  name=$1 base=$2 head=$3
  shift 3
  "$BENCHPROF" compare -o "$TMP/cmp-$name" "$@" "$base" "$head" \
    >"$TMP/cmp-$name.out" 2>"$TMP/cmp-$name.err"
}

cmp overlap "$TMP/base" "$TMP/overlap" --fail-on-regression
status=$?
expect_status "overlapping bounds: no confirmed regression, the gate passes" 0
pycheck "overlapping bounds: beyond the threshold, within the noise" \
  "$TMP/cmp-overlap" <<'PY'
import json, os, sys
c = json.load(open(os.path.join(sys.argv[1], "compare.json")))
assert c["regressions"] == 0 and c["unchanged"] == 1, c
m = c["benchmarks"][0]["measures"][0]
assert m["basis"] == "bounds" and m["change"] == "regression", m
assert not m["confirmed"] and not m["unconfirmed"], m
assert m["interval_pct"] == [-25.0, 50.0], m    # 105-130 .. 140-90
md = open(os.path.join(sys.argv[1], "comment.md")).read()
assert "**0 regressions confirmed, 0 unconfirmed**" in md, md[:400]
assert "within noise |" in md, md
PY

cmp apart "$TMP/base" "$TMP/apart" --fail-on-regression
status=$?
expect_status "bounds apart: a confirmed regression, the gate fails (3)" 3
check "the gate says why" grep -q \
  "1 confirmed regression (--fail-on-regression): exit status 3" \
  "$TMP/cmp-apart.err"
cmp apart-nogate "$TMP/base" "$TMP/apart"
status=$?
expect_status "without --fail-on-regression the same comparison exits 0" 0

# one value a side: a plain command with its task-clock, run twice; its
# change (whatever the machine did) is never counted, never fails the gate
"$BENCHPROF" run -q --no-publish -o "$TMP/single-a" --counters task-clock \
  --name spin -- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' \
  >/dev/null 2>"$TMP/single-a.err"
"$BENCHPROF" run -q --no-publish -o "$TMP/single-b" --counters task-clock \
  --name spin -- sh -c 'i=0; while [ $i -lt 60000 ]; do i=$((i+1)); done' \
  >/dev/null 2>"$TMP/single-b.err"
cmp single "$TMP/single-a" "$TMP/single-b" --fail-on-regression
status=$?
expect_status "one value a side: the gate passes" 0
pycheck "one value a side: 3x the work is an unconfirmed regression" \
  "$TMP/cmp-single" <<'PY'
import json, os, sys
c = json.load(open(os.path.join(sys.argv[1], "compare.json")))
m = {x["slug"]: x for x in c["benchmarks"][0]["measures"]}["task-clock"]
assert m["change"] == "regression" and m["unconfirmed"], m
assert c["regressions"] == 0 and c["unconfirmed_regressions"] == 1, c
md = open(os.path.join(sys.argv[1], "comment.md")).read()
assert "**0 regressions confirmed, 1 unconfirmed**" in md, md[:400]
assert "_unconfirmed regression (single run)_" in md, md
PY

finish
