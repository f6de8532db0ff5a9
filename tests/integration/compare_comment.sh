#!/bin/sh
# The comment says what each benchmark's verdict is, on real runs:
# - the title counts an unconfirmed change as unconfirmed, not as
#   unchanged, in the words of the verdict line and the commit status;
# - a change within the noise keeps its row in the summary table: its
#   key measure, change and interval, "within noise"; beyond the
#   threshold, a line says why no function is named;
# - a change whose interval leaves 0 out but reaches inside the threshold
#   is "not confirmed beyond 5%", not "within noise" (the sides differ);
# - the note says why a change is unconfirmed: one value on a side, or
#   --repeat 3 (values a side, but too few for the test at 99%); a single
#   run's change beside a tested measure of an unchanged benchmark is
#   said not to be counted;
# - a benchmark beyond the threshold that names no function says why;
# - a confirmed latency (wall time) regression that task-clock (CPU time)
#   does not share gets a note: the time went waiting, --off-cpu shows
#   where; the verdict stays.
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
# +20% is beyond the threshold, only within the noise: a line says why
# no function is named (the reader asks what grew)
assert md.count("\nNo function is named: ") + \
    md.count("\nThe change is spread over ") == 1, md
PY

bmf_run "$TMP/differ" 140 133 150        # +40%, +3% to +60%: 0 left out
cmp differ "$TMP/base" "$TMP/differ"
pycheck "an interval without 0 inside the threshold: not confirmed, not noise" \
  "$TMP/cmp-differ" <<'PY'
import json, os, sys
c = json.load(open(os.path.join(sys.argv[1], "compare.json")))
assert c["regressions"] == 0 and c["unchanged"] == 1, c   # still unchanged
md = open(os.path.join(sys.argv[1], "comment.md")).read()
assert "\n| parse | latency | +40.00% (+3.00% to +60.00%) | not confirmed " \
    "beyond 5% |\n" in md, md
assert "\n#### parse: latency +40.00% (not confirmed beyond 5%)\n" in md, md
assert "within noise" not in md, md
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
# the note names the measure it is about
assert "\n_latency has one value on a side: its change is unconfirmed " \
    "(single run), beyond the threshold but with no spread to test it " \
    "against; run with `--repeat 5` (or report bounds) to confirm or " \
    "dismiss it._\n" in md, md
assert "too few repetitions" not in md, md
# a shell's echo has next to no samples: no function named, and why
assert "\nNo function is named: " in md, md
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
assert "\n_latency has fewer than 5 repetitions on a side: its change is " \
    "unconfirmed (too few repetitions), beyond the threshold but with so " \
    "few no change can be confirmed at 99% confidence, however large" in md, \
    md
assert "one value" not in md, md
PY
# latency (the harness's wall time) +140%, confirmed; task-clock (CPU
# time) +2% (-2% to +6%): a loaded runner, or a lock, not more work
wall_run() {  # DIR LATENCY TASK_CLOCK (each with +-1 bounds)
  "$BENCHPROF" run -q --no-publish -o "$1" --adapter json --no-counters -- \
    sh -c "echo '{\"parse\": {\"latency\": {\"value\": $2, \"lower_value\": $(($2 - 1)), \"upper_value\": $(($2 + 1))}, \"task-clock\": {\"value\": $3, \"lower_value\": $(($3 - 1)), \"upper_value\": $(($3 + 1))}}}'" \
    >"$1.out" 2>"$1.err"
}
wall_run "$TMP/wall-a" 100 50
wall_run "$TMP/wall-b" 240 51
wall_run "$TMP/wall-c" 240 120
cmp wall "$TMP/wall-a" "$TMP/wall-b"
pycheck "wall time up, CPU time not: slower in wall time only, not counted" \
  "$TMP/cmp-wall" <<'PY'
import json, os, sys
c = json.load(open(os.path.join(sys.argv[1], "compare.json")))
assert c["regressions"] == 0 and c["slower_wall_time_only"] == 1, c
assert c["faster_wall_time_only"] == 0 and c["unchanged"] == 0, c
assert c["wall_time_only"] == "separate", c
b = c["benchmarks"][0]
assert b["verdict"] == "slower in wall time only", b
assert b["flag"] == "unchanged" and b["wall_time_only"] == "regression", b
lat = {m["slug"]: m for m in b["measures"]}["latency"]
assert lat["confirmed"] and lat["wall_time_only"], lat
md = open(os.path.join(sys.argv[1], "comment.md")).read()
assert "\n### benchprof: \U0001f7e0 0 regressions confirmed, 0 unconfirmed; " \
    "0 improvements confirmed, 0 unconfirmed; 1 slower in wall time only " \
    "(CPU time unchanged: waiting, or a busier runner); 0 unchanged\n" in md, \
    md[:600]
assert "\U0001f534" not in md, md
assert "| parse | latency | +140.00% (+138.00% to +142.00%) | \U0001f7e0 " \
    "slower in wall time only |\n" in md, md
assert "\n#### \U0001f7e0 parse: latency +140.00% (wall time only)\n\n" \
    "_latency is wall-clock " \
    "time, and task-clock (CPU time) is not a confirmed regression (+2.00%, " \
    "-2.00% to +6.00%): latency rose by at least 138 ns, CPU time by at " \
    "most 3 ns, so most of the extra time was not spent on the CPU but " \
    "waiting (a loaded runner, locks, I/O, sleeping)" in md, md
assert "It is not counted as a confirmed regression: a busier runner in " \
    "one job than in the other looks the same" in md, md
assert "an off-CPU profile (`benchprof run --off-cpu` on both sides) shows " \
    "where._\n" in md, md
assert "\nNo function is named: " in md, md
err = open(sys.argv[1] + ".err").read()
assert "0 regressions confirmed, 0 unconfirmed; 0 improvements confirmed, " \
    "0 unconfirmed; 1 slower in wall time only (CPU time unchanged: " \
    "waiting, or a busier runner); 0 unchanged" in err, err
PY
# the gate does not fail on it
"$BENCHPROF" compare -q --fail-on-regression -o "$TMP/cmp-wall-gate" \
  "$TMP/wall-a" "$TMP/wall-b" >/dev/null 2>"$TMP/cmp-wall-gate.err"
check "wall time only: --fail-on-regression exits 0" [ $? -eq 0 ]
# comment.wall_time_only "regression" (a dedicated runner): counted, and
# then the gate fails
printf '{"comment": {"wall_time_only": "regression"}}\n' >"$TMP/wall.json"
"$BENCHPROF" compare -q --config "$TMP/wall.json" --fail-on-regression \
  -o "$TMP/cmp-wall-counted" "$TMP/wall-a" "$TMP/wall-b" >/dev/null \
  2>"$TMP/cmp-wall-counted.err"
check "wall_time_only regression: --fail-on-regression exits 3" [ $? -eq 3 ]
pycheck "wall_time_only regression: a confirmed regression, as before" \
  "$TMP/cmp-wall-counted" <<'PY'
import json, os, sys
c = json.load(open(os.path.join(sys.argv[1], "compare.json")))
assert c["regressions"] == 1 and c["slower_wall_time_only"] == 0, c
assert c["wall_time_only"] == "regression", c
assert c["benchmarks"][0]["verdict"] == "regression", c["benchmarks"][0]
md = open(os.path.join(sys.argv[1], "comment.md")).read()
assert "\n#### \U0001f534 parse: latency +140.00%\n\n_latency is " in md, md
assert "The verdict stands (`comment.wall_time_only` is \"regression\")" \
    in md, md
assert "wall time only" not in md.replace("comment.wall_time_only", ""), md
PY
# a bad value: said with its key, and compare does not run
printf '{"comment": {"wall_time_only": "yes"}}\n' >"$TMP/wall-bad.json"
"$BENCHPROF" compare -q --config "$TMP/wall-bad.json" \
  -o "$TMP/cmp-wall-bad" "$TMP/wall-a" "$TMP/wall-b" >/dev/null \
  2>"$TMP/cmp-wall-bad.err"
check "wall_time_only \"yes\": refused" [ $? -ne 0 ]
check "wall_time_only \"yes\": the error names the key and the values" \
  grep -q 'comment.wall_time_only: expected "separate" .* or "regression" (it is), got "yes"' \
  "$TMP/cmp-wall-bad.err"
cmp wall-cpu "$TMP/wall-a" "$TMP/wall-c"
pycheck "wall time and CPU time up together: no such note" \
  "$TMP/cmp-wall-cpu" <<'PY'
import os, sys
md = open(os.path.join(sys.argv[1], "comment.md")).read()
assert "task-clock | 50 ns | 120 ns" in md, md
assert "wall-clock" not in md, md
PY

# latency confirmed from the harness's bounds, task-clock with one value
# a side (no bounds): the title counts a confirmed regression, and the
# note on the single run names task-clock, so the two never read as a
# contradiction
mixed_run() {  # DIR LATENCY TASK_CLOCK (latency with +-1 bounds)
  "$BENCHPROF" run -q --no-publish -o "$1" --adapter json --no-counters -- \
    sh -c "echo '{\"parse\": {\"latency\": {\"value\": $2, \"lower_value\": $(($2 - 1)), \"upper_value\": $(($2 + 1))}, \"task-clock\": {\"value\": $3}}}'" \
    >"$1.out" 2>"$1.err"
}
mixed_run "$TMP/mixed-a" 100 50
mixed_run "$TMP/mixed-b" 240 100
cmp mixed "$TMP/mixed-a" "$TMP/mixed-b"
pycheck "a confirmed latency and a single-run task-clock: the note names it" \
  "$TMP/cmp-mixed" <<'PY'
import os, sys
md = open(os.path.join(sys.argv[1], "comment.md")).read()
assert "\n### benchprof: \U0001f534 1 regression confirmed" in md, md[:400]
assert "\n_task-clock has one value on a side: its change is unconfirmed " \
    "(single run), beyond the threshold but with no spread to test it " \
    "against" in md, md
assert "_latency has" not in md, md
assert "| task-clock | 50 ns | 100 ns | +50 ns (+100.00%) _unconfirmed " \
    "regression (single run)_ |" in md, md
PY

# latency unchanged within its bounds, task-clock doubled from one value a
# side: the benchmark is unchanged (the tested measure gives the verdict),
# and the note says task-clock's change was not counted
mixed_run "$TMP/mixed-c" 100 100
cmp uncounted "$TMP/mixed-a" "$TMP/mixed-c"
pycheck "an unchanged latency and a single-run task-clock: not counted, said so" \
  "$TMP/cmp-uncounted" <<'PY'
import json, os, sys
c = json.load(open(os.path.join(sys.argv[1], "compare.json")))
assert c["unchanged"] == 1 and c["unconfirmed_regressions"] == 0, c
md = open(os.path.join(sys.argv[1], "comment.md")).read()
assert "\n_task-clock has one value on a side: its change is not counted " \
    "in the verdict (single run), since another measure of the same benchmark " \
    "was tested against spread and gives the verdict instead._\n" in md, md
assert "its change is unconfirmed" not in md, md
PY
finish
