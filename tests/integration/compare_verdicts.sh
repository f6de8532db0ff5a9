#!/bin/sh
# Verdicts a pull request can trust, on real runs of `benchprof run`:
# - a harness's BMF bounds: a change beyond the threshold whose bounds
#   overlap the base's is not confirmed; bounds apart by more than the
#   threshold confirm it;
# - one value a side (no spread): the change is "unconfirmed (single run)"
#   and not counted;
# - the gate (--fail-on-regression, comment.fail_on_regression) exits 3 on
#   a confirmed regression only;
# - --repeat 5 on both sides, the machine loaded by two busy loops: an
#   unchanged benchmark gives 0 regressions, three times over; a
#   one-function benchmark doing twice the work is a confirmed regression
#   that names the function with a significant absolute increase; latency
#   down and task-clock up gives a headline naming the regression.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need python3 "apt-get install python3"
need_workload cmpwork_base
need_workload onefunc

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

# expect_gate NAME DESCRIPTION WANT: the exit status of `cmp NAME`; when it
# is not WANT, compare's stderr and every measure's verdict show why
expect_gate() {
  if [ "$status" -eq "$3" ]; then
    pass "$2: exit status $3"
    return
  fi
  fail "$2: exit status $status, expected $3"
  sed 's/^/  stderr: /' "$TMP/cmp-$1.err" >&2
  python3 - "$TMP/cmp-$1/compare.json" >&2 <<'PY' || true
import json, sys
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    for m in b["measures"]:
        print("  measure:", b["name"], m["slug"], m["change"],
              "confirmed" if m["confirmed"] else "not confirmed",
              m.get("pct"), m.get("interval_pct"), m.get("p_value"))
PY
}

cmp overlap "$TMP/base" "$TMP/overlap" --fail-on-regression
status=$?
expect_gate overlap "overlapping bounds: no confirmed regression, the gate passes" 0
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
expect_gate apart "bounds apart: a confirmed regression, the gate fails (3)" 3
check "the gate says why" grep -q \
  "1 confirmed regression (--fail-on-regression): exit status 3" \
  "$TMP/cmp-apart.err"
cmp apart-nogate "$TMP/base" "$TMP/apart"
status=$?
expect_gate apart-nogate "without --fail-on-regression the same comparison exits 0" 0

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
expect_gate single "one value a side: the gate passes" 0
pycheck "one value a side: 3x the work is an unconfirmed regression" \
  "$TMP/cmp-single" <<'PY'
import json, os, sys
c = json.load(open(os.path.join(sys.argv[1], "compare.json")))
m = {x["slug"]: x for x in c["benchmarks"][0]["measures"]}["task-clock"]
assert m["change"] == "regression" and m["unconfirmed"], m
assert c["regressions"] == 0 and c["unconfirmed_regressions"] == 1, c
# counted once, as the comment's title counts it: not also "unchanged"
assert c["unchanged"] == 0 and c["unconfirmed_improvements"] == 0, c
md = open(os.path.join(sys.argv[1], "comment.md")).read()
assert "**0 regressions confirmed, 1 unconfirmed**" in md, md[:400]
assert "_unconfirmed regression (single run)_" in md, md
PY

# ------------------------------------------------------------ --repeat 5
# a loaded machine: two busy loops for as long as the runs last
sh -c 'while :; do :; done' &
LOAD1=$!
sh -c 'while :; do :; done' &
LOAD2=$!
at_exit 'kill $LOAD1 $LOAD2 2>/dev/null'

rrun() {  # DIR CMD...
  dir=$1
  shift
  "$BENCHPROF" run -q --no-publish --repeat 5 -o "$dir" "$@" \
    >"$dir.out" 2>"$dir.err"
}

for i in 1 2 3; do
  rrun "$TMP/same-a$i" --adapter json -- "$WORKLOADS/cmpwork_base" 60
  rrun "$TMP/same-b$i" --adapter json -- "$WORKLOADS/cmpwork_base" 60
  cmp "same$i" "$TMP/same-a$i" "$TMP/same-b$i" --fail-on-regression
  status=$?
  expect_gate "same$i" "unchanged, --repeat 5, loaded (try $i): the gate passes" 0
  pycheck "unchanged, --repeat 5, loaded (try $i): 0 regressions" \
    "$TMP/cmp-same$i" "$TMP/same-a$i" <<'PY'
import json, os, sys
c = json.load(open(os.path.join(sys.argv[1], "compare.json")))
assert c["regressions"] == 0 and c["unconfirmed_regressions"] == 0, c
m = {x["slug"]: x for x in c["benchmarks"][0]["measures"]}
assert m["latency"]["basis"] == "mann-whitney", m["latency"]
assert len(m["latency"]["base_values"]["repetitions"]) == 5, m["latency"]
# the report: the median, and the least and largest of the 5 values
man = json.load(open(os.path.join(sys.argv[2], "manifest.json")))
assert man["repeat"] == 5, man
v = sorted(man["benchmarks"][0]["repetitions"]["latency"])
r = json.load(open(os.path.join(sys.argv[2], "report.json")))["cmpwork"]
assert r["latency"] == {"value": v[2], "lower_value": v[0],
                        "upper_value": v[4]}, (r, v)
PY
done
check "one profile for the 5 repetitions (5 processes in it)" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
assert len({t["pid"] for t in s["threads"]}) == 5, s["threads"]
' "$TMP/same-a1/summary.json"

# the viewer links open each side's median repetition by samples, and
# the comment says which, of 5, beside them
cmp links "$TMP/same-a1" "$TMP/same-b1" \
  --base-url http://127.0.0.1:9/a/ --head-url http://127.0.0.1:9/b/
pycheck "the links say which repetition they open" "$TMP/cmp-links" \
  "$TMP/same-a1" "$TMP/same-b1" <<'PY'
import json, os, re, sys
md = open(os.path.join(sys.argv[1], "comment.md")).read()
g = re.search(r"\n_The Firefox Profiler links open one repetition a side, "
              r"the median by samples \(the base's ([1-5]) of 5, the head's "
              r"([1-5]) of 5\); the tables cover all repetitions\._\n", md)
assert g, md
for side, run in enumerate(sys.argv[2:]):
    t = json.load(open(os.path.join(run, "summary.json")))["threads"]
    n = [x["samples"] for x in t]
    assert len(n) == 5, t   # one process a repetition, in their order
    want = sorted(range(5), key=lambda i: (n[i], i))[2] + 1
    assert int(g.group(side + 1)) == want, (g.groups(), n)
PY

# one function, twice the work
rrun "$TMP/one-base" --adapter json -- "$WORKLOADS/onefunc" 300
rrun "$TMP/one-head" --adapter json -- "$WORKLOADS/onefunc" 600
cmp one "$TMP/one-base" "$TMP/one-head" --fail-on-regression
status=$?
expect_gate one "one function doing 2x the work: the gate fails (3)" 3
pycheck "it names checksum_block with a significant absolute increase" \
  "$TMP/cmp-one" <<'PY'
import json, os, sys
c = json.load(open(os.path.join(sys.argv[1], "compare.json")))
assert c["regressions"] == 1, c
b = c["benchmarks"][0]
m = {x["slug"]: x for x in b["measures"]}
assert m["task-clock"]["confirmed"] and m["task-clock"]["basis"] == \
    "mann-whitney", m["task-clock"]
assert 60 < m["task-clock"]["pct"] < 140, m["task-clock"]
f = b["functions"][0]
assert f["name"] == "checksum_block", b["functions"][:3]
assert f["self_significant"] and f["d_self_cost"] > 0, f
# about twice: +100% of its own base cost, outside its interval
assert 0.6 < f["d_self_cost"] / f["base_self_cost"] < 1.4, f
assert f["d_self_cost"] > f["d_self_half"], f
assert b["cost_unit"] == "ns" and b["cost_per"] == "run", b
md = open(os.path.join(sys.argv[1], "comment.md")).read()
assert "Grew most: **checksum_block** (self +" in md, md
PY

# latency down (no more sleeping), task-clock up (3x the work: under
# make check's load beside the busy loops one side's task-clock spread
# 1.4x, so 1.5x the work could not always be told from it)
# (the sleep dwarfs the work however loaded the machine is)
rrun "$TMP/inv-base" --adapter json -- "$WORKLOADS/onefunc" 50 1500
rrun "$TMP/inv-head" --adapter json -- "$WORKLOADS/onefunc" 150 0
cmp inv "$TMP/inv-base" "$TMP/inv-head"
pycheck "latency down, task-clock up: the headline names the regression" \
  "$TMP/cmp-inv" <<'PY'
import json, os, re, sys
c = json.load(open(os.path.join(sys.argv[1], "compare.json")))
b = c["benchmarks"][0]
m = {x["slug"]: x for x in b["measures"]}
assert m["latency"]["flag"] == "improvement", m["latency"]
assert m["task-clock"]["flag"] == "regression", m["task-clock"]
assert b["flag"] == "regression" and b["key_measure"] == "task-clock", b
md = open(os.path.join(sys.argv[1], "comment.md")).read()
assert re.search(r"^\*\*1 regression confirmed, 0 unconfirmed\*\*, worst: "
                 r"\*\*onefunc\*\* task-clock \+", md, re.M), md[:500]
assert "#### \U0001F534 onefunc: task-clock +" in md, md
# the sleep that went is wall time only (without --off-cpu nothing shows
# it was the code's): latency's fall is not counted as an improvement
assert m["latency"]["wall_time_only"] and m["latency"]["confirmed"], m
assert c["regressions"] == 1 and c["improvements"] == 0, c
assert c["faster_wall_time_only"] == 0, c   # counted once, as regressed
assert re.search(r"^\| latency \| .* \U0001f7e0 faster in wall time only \|$",
                 md, re.M), md
assert "latency fell by at least " in md and "CPU time not at all" in md, md
PY

kill $LOAD1 $LOAD2 2>/dev/null
finish
