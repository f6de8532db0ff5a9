#!/bin/sh
# The comment's words, on real runs of `benchprof run` and `compare`:
# - `--repeat 5` on one side, one value (or `--repeat 3`, too few for the
#   test) on the other: the note on the unconfirmed change names the side
#   short of values (the base, or this PR) and tells only that side to
#   repeat; one value against `--repeat 3`: one note tells both sides;
# - an unconfirmed regression and an unconfirmed improvement: the verdict
#   line names the largest of each;
# - a counter one side did not count: "not measured on head" (or on
#   base), not "gone";
# - a pull request whose head does less work (a file:// store, no public
#   URL): "Shrank most" starts its line, and with no link to reach it the
#   comment names the differential flame graph's key in the store, which
#   holds it.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need python3 "apt-get install python3"
need_workload cmpwork_base cmpwork_head
outside_ci

# --repeat N: each repetition prints VALUE + its number (1 to N)
cat >"$TMP/rep.sh" <<'SH'
n=$(cat "$1" 2>/dev/null || echo 0)
n=$((n + 1))
echo $n >"$1"
echo "{\"parse\": {\"latency\": {\"value\": $(($2 + n))}}}"
SH
rep_run() {  # DIR VALUE [REPEAT]
  "$BENCHPROF" run -q --no-publish --repeat "${3:-5}" -o "$1" --adapter json \
    --no-counters -- sh "$TMP/rep.sh" "$1.count" "$2" >"$1.out" 2>"$1.err"
}
# a harness that prints its own BMF (one value a side)
bmf_run() {  # DIR BMF
  "$BENCHPROF" run -q --no-publish -o "$1" --adapter json --no-counters -- \
    sh -c "echo '$2'" >"$1.out" 2>"$1.err"
}
cmp() {  # NAME BASE HEAD
  "$BENCHPROF" compare -o "$TMP/cmp-$1" "$2" "$3" >"$TMP/cmp-$1.out" \
    2>"$TMP/cmp-$1.err"
  check "$1: compare succeeds" [ $? -eq 0 ]
}

rep_run "$TMP/rep" 100
bmf_run "$TMP/one" '{"parse": {"latency": {"value": 200}}}'
cmp head-one "$TMP/rep" "$TMP/one"
cmp base-one "$TMP/one" "$TMP/rep"
pycheck "repeated base, one value in the PR: the note tells the PR to repeat" \
  "$TMP" <<'PY'
import json, os, sys
d = os.path.join(sys.argv[1], "cmp-head-one")
m = json.load(open(os.path.join(d, "compare.json")))["benchmarks"][0] \
    ["measures"][0]
assert len(m["base_values"]["repetitions"]) == 5 and m["unconfirmed"], m
md = open(os.path.join(d, "comment.md")).read()
assert "\n_latency has one value in this PR (the base's run has spread): " \
    "its change is unconfirmed (single run), beyond the threshold but with " \
    "no spread to test it against; run this PR with `--repeat 5` too (or " \
    "report bounds here) to confirm or dismiss it._\n" in md, md
assert "on a side" not in md and "run the base" not in md, md
PY
pycheck "one value on the base, a repeated PR: the note tells the base to repeat" \
  "$TMP" <<'PY'
import os, sys
md = open(os.path.join(sys.argv[1], "cmp-base-one", "comment.md")).read()
assert "\n_latency has one value on the base (this PR's run has spread): " \
    "its change is unconfirmed (single run), beyond the threshold but with " \
    "no spread to test it against; run the base branch with `--repeat 5` " \
    "too (or report bounds there) to confirm or dismiss it._\n" in md, md
assert "on a side" not in md and "run this PR" not in md, md
PY

# --repeat 3 against --repeat 5: too few on one side only
rep_run "$TMP/rep3" 200 3
rep_run "$TMP/rep3-b" 100 3
cmp head-three "$TMP/rep" "$TMP/rep3"
cmp base-three "$TMP/rep3" "$TMP/rep"
cmp both-three "$TMP/rep3-b" "$TMP/rep3"
pycheck "--repeat 5 and --repeat 3: the note tells the side with 3 to repeat" \
  "$TMP" <<'PY'
import os, sys
def md(name):
    return open(os.path.join(sys.argv[1], "cmp-" + name, "comment.md")).read()
tail = ": its change is unconfirmed (too few repetitions), beyond the " \
    "threshold but with so few no change can be confirmed at 99% " \
    "confidence, however large; "
head = md("head-three")
assert "\n_latency has fewer than 5 repetitions in this PR (the base's run " \
    "has 5 or more)" + tail + "run this PR with `--repeat 5` or more to " \
    "confirm or dismiss it._\n" in head, head
base = md("base-three")
assert "\n_latency has fewer than 5 repetitions on the base (this PR's run " \
    "has 5 or more)" + tail + "run the base branch with `--repeat 5` or " \
    "more to confirm or dismiss it._\n" in base, base
for m in (head, base):
    assert "on a side" not in m and "both sides" not in m, m
# 3 a side: both are told
both = md("both-three")
assert "\n_latency has fewer than 5 repetitions on a side" + tail + \
    "run with `--repeat 5` or more on both sides to confirm or dismiss " \
    "it._\n" in both, both
PY

# one value on a side, --repeat 3 on the other: repeating only the side
# with one value would leave 3 repetitions, too few, so both are told
bmf_run "$TMP/one-low" '{"parse": {"latency": {"value": 100}}}'
cmp base-one-head-three "$TMP/one-low" "$TMP/rep3"
cmp base-three-head-one "$TMP/rep3" "$TMP/one-low"
pycheck "one value against --repeat 3: one note tells both sides to repeat" \
  "$TMP" <<'PY'
import os, sys
def md(name):
    return open(os.path.join(sys.argv[1], "cmp-" + name, "comment.md")).read()
tail = ": its change is unconfirmed (single run), beyond the threshold but " \
    "with no spread to test it against; run the base branch and this PR " \
    "with `--repeat 5` or more to confirm or dismiss it._\n"
base = md("base-one-head-three")
assert "\n_latency has one value on the base (this PR's run has spread, " \
    "from fewer than 5 repetitions)" + tail in base, base
head = md("base-three-head-one")
assert "\n_latency has one value in this PR (the base's run has spread, " \
    "from fewer than 5 repetitions)" + tail in head, head
for m in (base, head):
    assert m.count("--repeat") == 1, m
    assert "too (or report" not in m and "on a side" not in m, m
PY

bmf_run "$TMP/two-a" \
  '{"a": {"latency": {"value": 100}}, "b": {"latency": {"value": 100}}}'
bmf_run "$TMP/two-b" \
  '{"a": {"latency": {"value": 200}}, "b": {"latency": {"value": 50}}}'
cmp both-kinds "$TMP/two-a" "$TMP/two-b"
pycheck "an unconfirmed regression and improvement: the verdict line names both" \
  "$TMP/cmp-both-kinds" <<'PY'
import os, sys
md = open(os.path.join(sys.argv[1], "comment.md")).read()
assert "\n**0 regressions confirmed, 1 unconfirmed**; largest unconfirmed " \
    "regression: **a** latency +100.00%; largest unconfirmed improvement: " \
    "**b** latency -50.00%\n" in md, md[:600]
PY

# the same command, page-faults counted on the base only
spin() {  # DIR COUNTERS
  "$BENCHPROF" run -q --no-publish -o "$1" --counters "$2" --name spin -- \
    sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' \
    >"$1.out" 2>"$1.err"
}
spin "$TMP/cnt-a" task-clock,page-faults
spin "$TMP/cnt-b" task-clock
cmp counters "$TMP/cnt-a" "$TMP/cnt-b"
cmp counters-rev "$TMP/cnt-b" "$TMP/cnt-a"
pycheck "a counter on one side only: not measured on the other, never gone" \
  "$TMP" <<'PY'
import os, re, sys
for name, want in (("counters", "not measured on head"),
                   ("counters-rev", "not measured on base")):
    md = open(os.path.join(sys.argv[1], "cmp-" + name, "comment.md")).read()
    row = re.search(r"^\| page-faults \|.*$", md, re.M)
    assert row and row.group(0).endswith(" | %s |" % want), (name, md)
    assert "gone" not in md and "new measure" not in md, md
PY

# a pull request whose head does less: cmp_changed 4x the work on the
# base; published to a file:// store without a public URL
BASE=1111111111111111111111111111111111111111
HEAD=2222222222222222222222222222222222222222
mkdir -p "$TMP/b" "$TMP/h"
cp "$WORKLOADS/cmpwork_head" "$TMP/b/cmpwork"
cp "$WORKLOADS/cmpwork_base" "$TMP/h/cmpwork"
pr_run() {  # NAME DIR ARGS...
  name=$1 dir=$2
  shift 2
  "$BENCHPROF" run -o "$TMP/$name" --adapter json --project wp --testbed tb \
    --store "file://$TMP/store" --spool "$TMP/spool" "$@" \
    -- "$TMP/$dir/cmpwork" 600 >"$TMP/$name.out" 2>"$TMP/$name.err"
  status=$?
}
pr_run base b --branch main --hash $BASE
expect_status base 0
pr_run head h --branch feature/x --hash $HEAD --base-branch main \
  --base-hash $BASE
expect_status head 0
pycheck "less work: Shrank most starts its line; diff.svg's store key is named" \
  "$TMP/head/compare" "$TMP/store" "$HEAD" <<'PY'
import os, re, sys
d, store, head = sys.argv[1:4]
md = open(os.path.join(d, "comment.md")).read()
assert "\n\U0001f7e2 Shrank most: **cmp_changed** (self -" in md, md
assert "shrank most" not in md, md
# nothing is beside a posted comment: the store's key, where it is
assert "beside this comment (`compare/" not in md, md
assert "run's folder" not in md, md
keys = re.findall(r"\nThe differential flame graph is in the store, at "
                  r"`([^`]+)`\.\n", md)
assert len(keys) == 1, md
key = keys[0]
assert key.startswith("wp/feature%2Fx/" + head + "/tb/") and \
    key.endswith("/diff.svg"), key
svg = open(os.path.join(d, "diff.svg")).read()
assert svg.lstrip().startswith("<?xml") or "<svg" in svg[:400], svg[:200]
assert open(os.path.join(store, key)).read() == svg, key
PY
finish
