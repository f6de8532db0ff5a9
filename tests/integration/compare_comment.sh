#!/bin/sh
# The comment says what each benchmark's verdict is, on real runs:
# - the title counts an unconfirmed change as unconfirmed, not as
#   unchanged, in the words of the verdict line and the commit status;
# - a change within the noise keeps its row in the summary table: its
#   key measure, change and interval, "within noise";
# - the note says why a change is unconfirmed: one value on a side, or
#   --repeat 3 (values a side, but too few for the test at 99%).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need python3 "apt-get install python3"

# a harness that prints its own BMF: parse's latency, and its bounds
# when given
bmf_run() {  # DIR VALUE [LOWER UPPER]
  bounds=
  [ $# -eq 4 ] && bounds=", \"lower_value\": $3, \"upper_value\": $4"
  "$BENCHPROF" run -q --no-publish -o "$1" --adapter json --no-counters -- \
    sh -c "echo '{\"parse\": {\"latency\": {\"value\": $2$bounds}}}'" \
    >"$1.out" 2>"$1.err"
}

# --repeat 3: each repetition prints VALUE + its number (1, 2, 3)
cat >"$TMP/rep.sh" <<'SH'
n=$(cat "$1" 2>/dev/null || echo 0)
n=$((n + 1))
echo $n >"$1"
echo "{\"parse\": {\"latency\": {\"value\": $(($2 + n))}}}"
SH
rep_run() {  # DIR VALUE
  "$BENCHPROF" run -q --no-publish --repeat 3 -o "$1" --adapter json \
    --no-counters -- sh "$TMP/rep.sh" "$1.count" "$2" >"$1.out" 2>"$1.err"
}

cmp() {  # NAME BASE HEAD
  "$BENCHPROF" compare -o "$TMP/cmp-$1" "$2" "$3" >"$TMP/cmp-$1.out" \
    2>"$TMP/cmp-$1.err"
  check "$1: compare succeeds" [ $? -eq 0 ]
}

bmf_run "$TMP/base" 100 90 130
bmf_run "$TMP/noise" 120 105 140         # +20%, its bounds overlap base's
cmp noise "$TMP/base" "$TMP/noise"
pycheck "within the noise: its row has the change, its interval, the verdict" \
  "$TMP/cmp-noise" <<'PY'
import os, sys
md = open(os.path.join(sys.argv[1], "comment.md")).read()
assert "\n### benchprof: 0 regressions confirmed, 0 unconfirmed; " \
    "0 improvements confirmed, 0 unconfirmed; 1 unchanged\n" in md, md[:400]
assert "\n| parse | latency | +20.00% (-25.00% to +50.00%) | within noise |\n" \
    in md, md
assert "\n#### parse: latency +20.00% (within noise)\n" in md, md
PY

bmf_run "$TMP/single-a" 100
bmf_run "$TMP/single-b" 200
cmp single "$TMP/single-a" "$TMP/single-b"
pycheck "one value a side: the title counts it unconfirmed, the note says why" \
  "$TMP/cmp-single" <<'PY'
import os, sys
md = open(os.path.join(sys.argv[1], "comment.md")).read()
assert "\n### benchprof: 0 regressions confirmed, 1 unconfirmed; " \
    "0 improvements confirmed, 0 unconfirmed; 0 unchanged\n\n" \
    "**0 regressions confirmed, 1 unconfirmed**" in md, md[:400]
assert "\n| parse | latency | +100.00% | _unconfirmed regression (single " \
    "run)_ |\n" in md, md
assert "_Unconfirmed (single run): beyond the threshold, but with one " \
    "value on a side there is no spread" in md, md
assert "too few repetitions" not in md, md
# the command's summary counts as the title does: not also "1 unchanged"
err = open(sys.argv[1] + ".err").read()
assert "0 regressions confirmed, 1 unconfirmed; 0 improvements confirmed, " \
    "0 unconfirmed; 0 unchanged (threshold 5%)" in err, err
PY

rep_run "$TMP/rep-a" 100
rep_run "$TMP/rep-b" 200
cmp repeat3 "$TMP/rep-a" "$TMP/rep-b"
pycheck "--repeat 3: too few repetitions, and the note says so" \
  "$TMP/cmp-repeat3" <<'PY'
import json, os, sys
c = json.load(open(os.path.join(sys.argv[1], "compare.json")))
m = c["benchmarks"][0]["measures"][0]
assert m["basis"] == "mann-whitney" and m["unconfirmed"], m
assert len(m["base_values"]["repetitions"]) == 3, m
md = open(os.path.join(sys.argv[1], "comment.md")).read()
assert "\n### benchprof: 0 regressions confirmed, 1 unconfirmed; " in md, \
    md[:400]
assert "_unconfirmed regression (too few repetitions)_ |\n" in md, md
assert "_Unconfirmed (too few repetitions): beyond the threshold, but with " \
    "fewer than 5 repetitions on a side no change can be confirmed at 99% " \
    "confidence" in md, md
assert "one value" not in md, md
PY
finish
