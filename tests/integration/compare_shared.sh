#!/bin/sh
# One Google Benchmark invocation (no --each, no markers) runs both of its
# benchmarks in one process: they share the whole run's profile.  The
# head leaves BM_Large out (--benchmark_filter), so its code vanishes
# from that profile.  compare must say the functions are the whole run's,
# compare them once (not in each benchmark's details), never credit
# BM_Small with BM_Large's vanished code, and say on stderr that the
# benchmarks sharing the profile share one set of diffs.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need python3 "apt-get install python3"
gb="$WORKLOADS/gbench"
[ -x "$gb" ] || { echo "FAIL: $gb was not built (libbenchmark-dev)"; exit 1; }

grun() {
  dir=$1
  shift
  "$BENCHPROF" run -q --no-publish -F 2000 -o "$TMP/$dir" \
    --adapter google-benchmark -- "$gb" --benchmark_format=json \
    --benchmark_min_time=0.1 "$@" >"$TMP/$dir.out" 2>"$TMP/$dir.err"
  check "run $dir exits 0" [ $? -eq 0 ]
}

grun base
grun head --benchmark_filter=BM_Small

# both benchmarks on both sides: the stderr names one folder of diffs
"$BENCHPROF" compare -o "$TMP/same" "$TMP/base" "$TMP/base" \
  >"$TMP/same.out" 2>"$TMP/same.err"
check "compare base with itself exits 0" [ $? -eq 0 ]
check "stderr: one folder of diffs for the 2 benchmarks sharing the profile" \
  grep -q "diff-negated.svg in 1 folder for 2 benchmarks (benchmarks that \
share the whole run's profile share its diffs)" "$TMP/same.err"
check "stderr: no 'of 2 benchmarks'" \
  sh -c '! grep -q "of 2 benchmarks" "$1"' sh "$TMP/same.err"
check "one diff.svg, in the compare folder itself" \
  sh -c '[ -f "$1/diff.svg" ] && [ "$(find "$1" -name diff.svg | wc -l)" -eq 1 ]' \
  sh "$TMP/same"

"$BENCHPROF" compare -o "$TMP/cmp" "$TMP/base" "$TMP/head" \
  >"$TMP/cmp.out" 2>"$TMP/cmp.err"
check "compare base with head exits 0" [ $? -eq 0 ]
# a changed benchmark's summary line names no function of the run's
check "stderr: a BM_Small line has no functions of its own" \
  sh -c '! grep "BM_Small: " "$1" | grep -v -q "no functions of its own \
(its profile is the whole run'"'"'s"' sh "$TMP/cmp.err"

pycheck "the whole run's functions, once; BM_Small not credited with BM_Large's" \
  "$TMP/cmp" "$TMP/same" <<'PY'
import json, os, re, sys
cmp, same = sys.argv[1:]
c = json.load(open(os.path.join(cmp, "compare.json")))
bs = {b["name"]: b for b in c["benchmarks"]}
assert bs["BM_Small"]["presence"] == "both", bs["BM_Small"]["presence"]
assert bs["BM_Large"]["presence"] == "removed", bs["BM_Large"]["presence"]
assert bs["BM_Small"]["shared_profile"] and bs["BM_Large"]["shared_profile"]
# the noise band is the profile's own total change (about -50%: BM_Large's
# half of the run is gone), whatever BM_Small's verdict
assert bs["BM_Small"]["functions_noise_band_basis"] == "total-cost", \
    bs["BM_Small"]["functions_noise_band_basis"]
assert bs["BM_Small"]["cost_per"] == "run", bs["BM_Small"]["cost_per"]
large = [f for f in bs["BM_Small"]["functions"] if "BM_Large" in f["name"]]
assert large and all(f["vanished"] for f in large), large
md = open(os.path.join(cmp, "comment.md")).read()
details = md.split("#### BM_Small", 1)[1].split("</details>", 1)[0]
assert "BM_Large" not in details, details
assert "_Functions: none of its own. Its profile is the whole run's" in details
assert md.count("#### Functions of the whole run") == 1, md
sec = md.split("#### Functions of the whole run", 1)[1]
assert "functions of BM_Small (and, in the base only, BM_Large)" in sec, sec
assert md.count("| Function |") <= 1 and \
    md.count("| Function |") == sec.count("| Function |"), md
assert md.count("The differential flame graph is `diff.svg`") == 1, md
# base with itself: two benchmarks, one comparison of their functions
md = open(os.path.join(same, "comment.md")).read()
assert md.count("#### Functions of the whole run") == 1, md
assert md.count("_Functions: none of its own.") == 2, md
assert "functions of BM_Large, BM_Small</summary>" in md or \
    "functions of BM_Small, BM_Large</summary>" in md, md
PY

# every diff a benchmark's details point to was written: the shared
# profile's one folder, linked from a served compare folder or named
# beside the comment
"$BENCHPROF" compare -o "$TMP/served" --compare-url https://ci.example/c/ \
  "$TMP/base" "$TMP/head" >"$TMP/served.out" 2>"$TMP/served.err"
check "compare with --compare-url exits 0" [ $? -eq 0 ]
pycheck "no benchmark points to a diff that was not written" \
  "$TMP/served" "$TMP/cmp" <<'PY'
import os, re, sys
served, cmp = sys.argv[1:]
md = open(os.path.join(served, "comment.md")).read()
links = re.findall(r"\]\(https://ci\.example/c/([^)]*)\)", md)
assert links, md
for l in links:
    assert os.path.isfile(os.path.join(served, l)), l
md = open(os.path.join(cmp, "comment.md")).read()
paths = re.findall(r"`([^`]*)` beside this comment", md)
assert paths, md
for p in paths:
    assert os.path.isfile(os.path.join(cmp, p)), p
PY
finish
