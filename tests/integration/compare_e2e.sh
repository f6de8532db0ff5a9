#!/bin/sh
# benchprof compare end to end: one workload built twice (the head build's
# cmp_changed does 4 times the work), each run through `benchprof run
# --adapter json` (it prints its own latency and throughput), then
# compared.  The comment names cmp_changed as the top regression, the
# measures move the right way (latency and task-clock up, throughput
# down: all regressions; latency and throughput confirmed by the bounds
# the workload reports, task-clock, one value a side, unconfirmed), the
# flame graphs are well-formed XML, and the
# viewer links decode back to the profile URLs given.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need python3 "apt-get install python3"
need xmllint "apt-get install libxml2-utils"
need_workload cmpwork_base
need_workload cmpwork_head

# the same program name on both sides, as two commits of one project; 600
# rounds (about 400 and 800 samples).  (cmpwork slices its rounds finely:
# when each function ran 0.2 ms at a time, the 1 ms sampling clock beat
# against the rounds and equal shares came out between 23% and 43%, so
# cmp_steady once shrank more than cmp_changed grew.)
ROUNDS=600
mkdir -p "$TMP/b" "$TMP/h"
cp "$WORKLOADS/cmpwork_base" "$TMP/b/cmpwork"
cp "$WORKLOADS/cmpwork_head" "$TMP/h/cmpwork"

"$BENCHPROF" run -q -o "$TMP/base" --adapter json -- "$TMP/b/cmpwork" \
  "$ROUNDS" >"$TMP/base.out" 2>"$TMP/base.err"
status=$?
expect_status base 0
"$BENCHPROF" run -q -o "$TMP/head" --adapter json -- "$TMP/h/cmpwork" \
  "$ROUNDS" >"$TMP/head.out" 2>"$TMP/head.err"
status=$?
expect_status head 0

BASE_URL="https://artifacts.example/p/main/1111111/tb/"
HEAD_URL="http://127.0.0.1:8123/p/feature%20x/2222222/tb"
"$BENCHPROF" compare -o "$TMP/cmp" --base-url "$BASE_URL" \
  --head-url "$HEAD_URL" --compare-url "https://ci.example/cmp/" \
  "$TMP/base" "$TMP/head" >"$TMP/compare.out" 2>"$TMP/compare.err"
status=$?
expect_status compare 0
check "the summary names the regression and the function" \
  grep -q "cmpwork: [a-z-]* +.*(regression); function that grew most: cmp_changed" \
  "$TMP/compare.err"
check "the output files are there" sh -c 'for f in compare.json comment.md \
  diff.folded diff.svg diff-negated.svg; do [ -s "$1/$f" ] || exit 1; done' \
  sh "$TMP/cmp"

pycheck "the measures move the right way, confirmed where there is spread" <<'PY'
import json, os
c = json.load(open(os.path.join(os.environ["TMP"], "cmp", "compare.json")))
assert c["regressions"] == 1 and c["improvements"] == 0, c
b = c["benchmarks"][0]
assert b["name"] == "cmpwork" and b["flag"] == "regression", b
m = {x["slug"]: x for x in b["measures"]}
assert m["latency"]["delta"] > 0 and m["latency"]["flag"] == "regression", m
assert m["throughput"]["delta"] < 0 and m["throughput"]["higher_is_better"]
assert m["throughput"]["flag"] == "regression", m
# task-clock is counted on every machine (a software counter)
assert m["task-clock"]["delta"] > 0, m
# one value a side, no spread: beyond the threshold but not confirmed
assert m["task-clock"]["change"] == "regression", m
assert m["task-clock"]["flag"] == "unchanged", m
assert m["task-clock"]["unconfirmed"] and m["task-clock"]["basis"] == "single"
# the harness's own bounds (5 batches) confirm latency and throughput
assert m["latency"]["basis"] == "bounds" and m["latency"]["confirmed"], m
assert m["task-clock"]["pct"] > 50, m     # 2.5x the work
man = json.load(open(os.path.join(os.environ["TMP"], "head", "manifest.json")))
for cnt in man["counters"]:
    if cnt["available"]:
        assert cnt["slug"] in m, (cnt, m)
f = b["functions"][0]
assert f["name"] == "cmp_changed" and f["d_self_pp"] > 10, b["functions"]
for name in ("cmp_steady", "cmp_other"):
    steady = [x for x in b["functions"] if x["name"] == name][0]
    assert steady["d_self_pp"] < -5, steady
PY

pycheck "the comment: marker, summary, table, cmp_changed the top function" <<'PY'
import os, re
md = open(os.path.join(os.environ["TMP"], "cmp", "comment.md")).read()
assert md.startswith("<!-- benchprof:comment "), md[:80]
assert "### benchprof: \U0001F534 1 regression confirmed, 0 unconfirmed; " \
    "0 improvements confirmed, 0 unconfirmed; 0 unchanged\n" in md, md[:300]
assert re.search(r"^\*\*1 regression confirmed, 0 unconfirmed\*\*, worst: "
                 r"\*\*cmpwork\*\* \S+ \+\S+% \(\+\S+% to \+\S+%\) \(regression\)$",
                 md, re.M), md[:400]
assert "| Measure | Base | Head | Change |" in md
assert re.search(r"^\| latency \| .* \| \+.*regression \|$", md, re.M), md
assert "\U0001F534 Grew most: **cmp_changed** (self +" in md, md
rows = md.split("Functions whose cost changed significantly (CPU time per run")[1]
first = [l for l in rows.splitlines() if l.startswith("| ") and
         not l.startswith("| Function")][0]
assert first.startswith("| cmp_changed |") and "\U0001F534" in first, first
assert len(md) <= 65536
PY

pycheck "the profiler links decode back to the given profile URLs" \
  "$BASE_URL" "$HEAD_URL" <<'PY'
import os, re, sys, json
from urllib.parse import urlsplit, parse_qs, unquote
base, head = sys.argv[1], sys.argv[2]
md = open(os.path.join(os.environ["TMP"], "cmp", "comment.md")).read()
links = dict((t, u) for t, u in re.findall(r"\[([^\]]+)\]\(([^)]+)\)", md))
cmp = urlsplit(links["Firefox Profiler"])
assert (cmp.scheme, cmp.netloc, cmp.path) == \
    ("https", "profiler.firefox.com", "/compare/calltree/"), cmp
views = parse_qs(cmp.query)["profiles[]"]
assert views == [links["base"], links["head"]], views
def file_url(view):
    v = urlsplit(view)
    m = re.fullmatch(r"/from-url/([^/]+)/calltree/", v.path)
    assert v.netloc == "profiler.firefox.com" and m, view
    q = parse_qs(v.query)
    assert q["thread"] == ["0"], q
    return unquote(m.group(1)), q["profileName"][0]
want_base = base.rstrip("/") + "/profile.json.gz"
want_head = head.rstrip("/") + "/profile.json.gz"
assert file_url(views[0]) == (want_base, "base: cmpwork"), file_url(views[0])
assert file_url(views[1]) == (want_head, "head: cmpwork"), file_url(views[1])
assert links["diff"] == "https://ci.example/cmp/diff.svg"
PY

check "diff.svg is well-formed XML" xmllint --noout "$TMP/cmp/diff.svg"
check "diff-negated.svg is well-formed XML" \
  xmllint --noout "$TMP/cmp/diff-negated.svg"
pycheck "the flame graphs: sized by head / base, red grew, unchanged white" <<'PY'
import os, re
d = os.path.join(os.environ["TMP"], "cmp")
def frames(name):
    svg = open(os.path.join(d, name), encoding="utf-8").read()
    out = {}
    for title, w, fill in re.findall(
            r'<g><title>([^<]*)</title><rect x="[^"]*" y="[^"]*" '
            r'width="([^"]*)" height="[^"]*" rx="2" fill="([^"]*)"', svg):
        out.setdefault(title.split(" (")[0], (float(w), fill, title))
    return out
head, base = frames("diff.svg"), frames("diff-negated.svg")
ch, st = head["cmp_changed"], head["cmp_steady"]
assert ch[0] > 2 * st[0], (ch, st)             # head: changed dominates
assert re.fullmatch(r"rgb\(255,\d+,\d+\)", ch[1]), ch   # grew: red
# cmp_steady's share shrank, but its own cost per run did not change:
# by absolute change it is within the noise, white (not blue)
assert st[1] == "rgb(250,250,250)" and "within noise" in st[2], st
assert "base " in ch[2] and "head " in ch[2] and "change +" in ch[2], ch
# the costs as the comment writes them ("89.94 ms"), never 8.994e+07 ns
t = "(ns|\u00b5s|ms|s)"
for f in list(head.values()) + list(base.values()):
    assert re.search(r"; per run: base [0-9.]+ %s, head [0-9.]+ %s, change "
                     r"[-+][0-9.]+ %s \u00b1 [0-9.]+ %s" % (t, t, t, t),
                     f[2]), f
bch, bst = base["cmp_changed"], base["cmp_steady"]
assert bch[0] < 2 * bst[0], (bch, bst)         # base: about even
PY
pycheck "diff.folded: stack, base count, head count; totals match" <<'PY'
import json, os
t = os.environ["TMP"]
lines = open(os.path.join(t, "cmp", "diff.folded")).read().splitlines()
tot = [0, 0]
for l in lines:
    stack, b, h = l.rsplit(" ", 2)
    tot[0] += int(b); tot[1] += int(h)
    assert stack.startswith("cmpwork;"), l
c = json.load(open(os.path.join(t, "cmp", "compare.json")))["benchmarks"][0]
assert tot == [c["base"]["samples"], c["head"]["samples"]], (tot, c)
PY

# a benchmark on one side only; bad input
"$BENCHPROF" run -q -o "$TMP/other" --name other -- "$TMP/b/cmpwork" 20 \
  >/dev/null 2>&1
"$BENCHPROF" compare -o "$TMP/cmp2" "$TMP/base" "$TMP/other" \
  >/dev/null 2>"$TMP/cmp2.err"
check "different benchmarks compare (exit 0)" [ $? -eq 0 ]
check "one new, one removed" grep -q "0 unchanged, 1 new, 1 removed" \
  "$TMP/cmp2.err"
check "the comment lists them, each with its one side's values" sh -c \
  'grep -q "^New benchmarks (not in base), as the head measured them:" "$1" &&
   grep -q "^- \*\*other\*\*: task-clock [0-9.]* [mµ]*s" "$1" &&
   grep -q "^Removed benchmarks (not in head), as the base measured them:" \
     "$1" &&
   grep -q "^- \*\*cmpwork\*\*: latency [0-9.]* [mµ]*s, throughput" "$1"' \
  sh "$TMP/cmp2/comment.md"
check "no benchmark on both sides: no diff files said or written" sh -c \
  'grep -q "written to .*: compare.json, comment.md (no differential" "$1" &&
   ! grep -q "diff.folded" "$1" && [ ! -e "$2/diff.folded" ]' sh \
  "$TMP/cmp2.err" "$TMP/cmp2"
"$BENCHPROF" compare "$TMP/base" "$TMP/nowhere" 2>"$TMP/bad.err"
check "a missing run directory: exit 1" [ $? -eq 1 ]
check "and the error names it" grep -q "nowhere/manifest.json" "$TMP/bad.err"
"$BENCHPROF" compare --threshold -3 "$TMP/base" "$TMP/head" 2>/dev/null
check "a bad threshold: exit 2" [ $? -eq 2 ]
"$BENCHPROF" compare "$TMP/base" 2>/dev/null
check "one directory: exit 2" [ $? -eq 2 ]
# the head sampled another event (page faults against the clock): its
# functions are compared by share only, and the comment says why
"$BENCHPROF" run -q -o "$TMP/pf" --adapter json -e perf::PAGE-FAULTS -c 1 \
  -- "$TMP/h/cmpwork" "$ROUNDS" >/dev/null 2>&1
"$BENCHPROF" compare -o "$TMP/cmp-pf" "$TMP/base" "$TMP/pf" >/dev/null 2>&1
check "different sampled events: exit 0" [ $? -eq 0 ]
pycheck "different sampled events: no costs, the comment says why" <<'PY'
import json, os
t = os.environ["TMP"]
c = json.load(open(os.path.join(t, "cmp-pf", "compare.json")))["benchmarks"][0]
assert c["cost_unit"] is None and c["cost_per"] is None, c["cost_unit"]
md = open(os.path.join(t, "cmp-pf", "comment.md")).read()
assert "The sides sampled different events (base `cpu-clock`, head " \
       "`perf::PAGE-FAULTS`)" in md, md
assert "Functions whose share of the samples changed most" in md, md
PY
# a folded stack 100,000 frames deep (a hostile or foreign file; the flame
# graphs walk stacks recursively): refused with its place, no crash
cp -R "$TMP/head" "$TMP/deep"
python3 -c 'print("cmpwork;" + "f;" * 100000 + "g 5")' \
  >"$TMP/deep/profile.folded"
"$BENCHPROF" compare -o "$TMP/cmp-deep" "$TMP/base" "$TMP/deep" \
  >/dev/null 2>"$TMP/deep.err"
check "a stack 100,000 frames deep: exit 1, the file and line named" \
  sh -c '[ $1 -eq 1 ] && grep -q "deep/profile.folded:1: a stack of more" "$2"' \
  sh $? "$TMP/deep.err"
finish
