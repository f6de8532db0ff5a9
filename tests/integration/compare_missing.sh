#!/bin/sh
# compare when a side has no profile of a benchmark, and benchmarks on
# one side only, on real runs:
# - a base run directory without its profile files (an artifact not
#   copied): compare succeeds, compares the measures, and the comment
#   says the base's profile is missing; no diff is written nor said;
# - one benchmark of a suite (--each) without its profile on the head:
#   the other keeps its functions and diff;
# - a benchmark whose manifest names no profile (a run without one);
# - a base in a store that lost its folded stacks (compare BRANCH@COMMIT,
#   as a pull request's run fetches it): the same, also over a fetch an
#   earlier comparison left in the output directory;
# - a new benchmark: the head's key measures and a link to its profile;
#   a removed one: the base's values.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need python3 "apt-get install python3"
need_workload cmpwork_base cmpwork_head gbench
outside_ci

BASE=1111111111111111111111111111111111111111
run_cmp() {  # NAME WORKLOAD [RUN OPTIONS...]
  name=$1 w=$2
  shift 2
  "$BENCHPROF" run -q -o "$TMP/$name" --adapter json "$@" -- \
    "$WORKLOADS/$w" 100 >"$TMP/$name.out" 2>"$TMP/$name.err"
  check "$name: run succeeds" [ $? -eq 0 ]
}
cmp() {  # NAME BASE HEAD [COMPARE OPTIONS...]
  name=$1 b=$2 h=$3
  shift 3
  "$BENCHPROF" compare -o "$TMP/cmp-$name" "$@" "$b" "$h" \
    >"$TMP/cmp-$name.out" 2>"$TMP/cmp-$name.err"
  check "$name: compare succeeds" [ $? -eq 0 ]
}

run_cmp base cmpwork_base --no-publish
run_cmp head cmpwork_head --no-publish

# (1) the base's profile files gone
cp -R "$TMP/base" "$TMP/base-np"
rm "$TMP/base-np"/profile.* "$TMP/base-np/flamegraph.svg"
cmp noprof "$TMP/base-np" "$TMP/head" \
  --head-url "https://artifacts.example/h/"
pycheck "a base without its profile: measures compared, the comment says so" \
  "$TMP/cmp-noprof" <<'PY'
import json, os, re, sys
d = sys.argv[1]
c = json.load(open(os.path.join(d, "compare.json")))
b = c["benchmarks"][0]
assert b["name"] == "cmpwork" and b["presence"] == "both", b
assert b["base"]["profile"] == "missing", b["base"]
assert b["base"]["missing_file"] == "profile.folded", b["base"]
assert b["head"]["profile"] == "profiled", b["head"]
m = {x["slug"]: x for x in b["measures"]}
# compared: the head's work is larger (whether one run's bounds confirm
# it depends on the machine's load, which is not this test's question)
assert m["latency"]["delta"] > 0 and m["latency"]["change"] == "regression", m
assert b["functions"] == [], b["functions"]
md = open(os.path.join(d, "comment.md")).read()
assert "\n| cmpwork | latency | +" in md, md
assert "\n_Compared by their measures only, without a function comparison " \
    "or differential flame graph: cmpwork (the base's profile is " \
    "missing)._\n" in md, md
assert "\n_No function comparison or differential flame graph: the base's " \
    "profile is missing (its run names `profile.folded`, which is not " \
    "there: an artifact that was not stored or copied, or that the store " \
    "lost)._\n" in md, md
# the head's profile alone is linked; no "no viewer links" note
assert re.search(r"\n\[head\]\(https://profiler\.firefox\.com/from-url/"
                 r"https%3A%2F%2Fartifacts\.example%2Fh%2Fprofile\.json\.gz/",
                 md), md
assert "No viewer links" not in md and "Grew most" not in md, md
# the missing profile is the reason, said once: not "too few samples (0
# in the base's profile)" beside it
assert "No function is named" not in md, md
for f in ("diff.folded", "diff.svg", "diff-negated.svg"):
    assert not os.path.exists(os.path.join(d, f)), f
err = open(d + ".err").read()
assert "cmpwork: latency +" in err and \
    "no function comparison (no profile on the base)" in err, err
assert "warning: cmpwork: no profile on the base: its measures are " \
    "compared, its functions are not" in err, err
assert "written to %s/: compare.json, comment.md (no differential flame " \
    "graph" % d in err and "diff.folded" not in err, err
PY

# (2) a suite, one benchmark's profile gone on the head
"$BENCHPROF" run -q --no-publish -o "$TMP/gb-base" --each google-benchmark \
  -- "$WORKLOADS/gbench" --benchmark_min_time=0.05 \
  --benchmark_filter='BM_Small|BM_Large' >"$TMP/gb-base.out" 2>&1
check "gbench base: run succeeds" [ $? -eq 0 ]
"$BENCHPROF" run -q --no-publish -o "$TMP/gb-head" --each google-benchmark \
  -- "$WORKLOADS/gbench" --benchmark_min_time=0.05 \
  --benchmark_filter='BM_Small|BM_Large' >"$TMP/gb-head.out" 2>&1
check "gbench head: run succeeds" [ $? -eq 0 ]
cp -R "$TMP/gb-head" "$TMP/gb-head-np"
rm "$TMP/gb-head-np/BM_Large/profile.folded"
cmp suite "$TMP/gb-base" "$TMP/gb-head-np"
pycheck "one benchmark without its head profile: the other keeps its diff" \
  "$TMP/cmp-suite" <<'PY'
import json, os, sys
d = sys.argv[1]
c = json.load(open(os.path.join(d, "compare.json")))
b = {x["name"]: x for x in c["benchmarks"]}
assert b["BM_Large"]["head"]["profile"] == "missing", b["BM_Large"]["head"]
assert b["BM_Small"]["head"]["profile"] == "profiled", b["BM_Small"]
assert b["BM_Small"]["functions"], b["BM_Small"]
assert os.path.exists(os.path.join(d, "BM_Small", "diff.svg"))
assert not os.path.exists(os.path.join(d, "BM_Large", "diff.svg"))
md = open(os.path.join(d, "comment.md")).read()
assert "without a function comparison or differential flame graph: " \
    "BM_Large (the head's profile is missing)._" in md, md
err = open(d + ".err").read()
assert "and diff.folded, diff.svg, diff-negated.svg of 1 benchmark\n" in err, err
PY

# (3) a benchmark its run has no profile of (its manifest names none)
cp -R "$TMP/gb-base" "$TMP/gb-off"
python3 - "$TMP/gb-off/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for b in m["benchmarks"]:
    b["artifacts"] = [a for a in b["artifacts"]
                      if a["kind"] != "folded-stacks"]
json.dump(m, open(sys.argv[1], "w"))
PY
cmp off "$TMP/gb-off" "$TMP/gb-base"
pycheck "a run without profiles: said as such" "$TMP/cmp-off" <<'PY'
import json, os, sys
d = sys.argv[1]
c = json.load(open(os.path.join(d, "compare.json")))
for b in c["benchmarks"]:
    assert b["base"]["profile"] == "none", b["base"]
    assert b["measures"] and b["functions"] == [], b
md = open(os.path.join(d, "comment.md")).read()
assert "the base's run has no profile of it (a run without profiling)" \
    in md, md
PY

# (4) the base from a store that lost its folded stacks
"$BENCHPROF" run -q -o "$TMP/stored" --adapter json --no-bencher \
  --store "file://$TMP/store" --project p --testbed tb --branch main \
  --hash "$BASE" -- "$WORKLOADS/cmpwork_base" 100 >"$TMP/stored.out" \
  2>"$TMP/stored.err"
check "stored base: run succeeds" [ $? -eq 0 ]
storeopts="--store file://$TMP/store --project p --testbed tb"
# shellcheck disable=SC2086
cmp store-whole "main@$BASE" "$TMP/head" $storeopts
check "the whole stored base has its profile, and a diff" sh -c \
  'grep -q "\"profile\": \"profiled\", \"missing_file\": null" "$1/compare.json" &&
   ! grep -q "\"profile\": \"missing\"" "$1/compare.json" &&
   [ -s "$1/diff.svg" ]' sh "$TMP/cmp-store-whole"
rm "$TMP/store/p/main/$BASE/tb/~run/profile.folded"
# into the output directory the whole base was fetched into before
# shellcheck disable=SC2086
"$BENCHPROF" compare -o "$TMP/cmp-store-whole" $storeopts "main@$BASE" \
  "$TMP/head" >/dev/null 2>"$TMP/cmp-store.err"
check "a store that lost the base's folded stacks: compare succeeds" \
  [ $? -eq 0 ]
pycheck "and says the base's profile is missing" "$TMP/cmp-store-whole" \
  "$TMP/cmp-store.err" <<'PY'
import json, os, sys
d = sys.argv[1]
c = json.load(open(os.path.join(d, "compare.json")))
b = c["benchmarks"][0]
assert b["base"]["profile"] == "missing" and b["functions"] == [], b
assert c["base"]["hash"] == "1" * 40, c["base"]
md = open(os.path.join(d, "comment.md")).read()
assert "cmpwork (the base's profile is missing)" in md, md
assert "no profile on the base" in open(sys.argv[2]).read()
PY

# (5) new and removed benchmarks: their one side's values
"$BENCHPROF" run -q --no-publish -o "$TMP/gb-small" --each google-benchmark \
  -- "$WORKLOADS/gbench" --benchmark_min_time=0.05 \
  --benchmark_filter=BM_Small >"$TMP/gb-small.out" 2>&1
check "gbench BM_Small only: run succeeds" [ $? -eq 0 ]
cmp new "$TMP/gb-small" "$TMP/gb-head" \
  --head-url "https://artifacts.example/h/"
cmp removed "$TMP/gb-base" "$TMP/gb-small" \
  --base-url "https://artifacts.example/b/"
cmp new-np "$TMP/gb-small" "$TMP/gb-head-np"
pycheck "a new benchmark: the head's values and its profile's link" \
  "$TMP/cmp-new" "$TMP/cmp-removed" "$TMP/cmp-new-np" <<'PY'
import json, os, re, sys
from urllib.parse import unquote
new, removed = sys.argv[1], sys.argv[2]
md = open(os.path.join(new, "comment.md")).read()
c = json.load(open(os.path.join(new, "compare.json")))
large = [b for b in c["benchmarks"] if b["name"] == "BM_Large"][0]
assert large["presence"] == "new" and large["base"]["profile"] is None
lat = [m for m in large["measures"] if m["slug"] == "latency"][0]
assert lat["head"] > 0 and lat["base"] is None, lat
assert "\nNew benchmarks (not in base), as the head measured them:\n\n" \
    in md, md
line = re.search(r"^- \*\*BM_Large\*\*: (.*)$", md, re.M)
assert line, md
# Google Benchmark's values are per iteration, which the line says once
assert re.match(r"per iteration: latency [0-9.]+ (ns|\u00b5s|ms|s), "
                r"task-clock [0-9.]+ (ns|\u00b5s|ms|s), ", line.group(1)), \
    line.group(1)
assert "e-0" not in line.group(1), line.group(1)
link = re.search(r" \u00b7 \[profile\]\((https://profiler\.firefox\.com/"
                 r"from-url/([^/]+)/[^)]*)\)$", line.group(1))
assert link, line.group(1)
assert unquote(link.group(2)) == \
    "https://artifacts.example/h/BM_Large/profile.json.gz", link.group(2)
# a new benchmark whose profile is gone: said on its line
md = open(os.path.join(sys.argv[3], "comment.md")).read()
assert re.search(r"^- \*\*BM_Large\*\*: per iteration: latency .* "
                 r"\u00b7 _profile "
                 r"missing_$", md, re.M), md
md = open(os.path.join(removed, "comment.md")).read()
assert "\nRemoved benchmarks (not in head), as the base measured them:\n\n" \
    in md, md
assert re.search(r"^- \*\*BM_Large\*\*: per iteration: latency [0-9.]+ .* \u00b7 "
                 r"\[profile\]\(https://profiler\.firefox\.com/from-url/"
                 r"https%3A%2F%2Fartifacts\.example%2Fb%2FBM_Large", md,
                 re.M), md
PY
finish
