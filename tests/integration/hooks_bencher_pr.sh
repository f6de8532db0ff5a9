#!/bin/sh
# The Bencher bare-metal runner path of a pull request, from runner job to
# posted comment (stand-ins for Bencher and GitHub):
#   1. the base branch's job and the pull request's job each run under the
#      image's entrypoint (runner-hooks/bencher): BMF with the counters in
#      the job's output file, profiles in the store; benchprof posts no
#      report but creates the counters' measures with their units first;
#   2. the runner posts each job's output file to Bencher as its report
#      (simulated): the counters arrive as measures with their units, not
#      as unitless measures Bencher makes up;
#   3. the user's CI, after `bencher run` returned: `benchprof compare
#      main@BASE feature@HEAD` against the store (the command the job's
#      log gives), then `benchprof comment`
#      posts the comment on the pull request: the same comment the job
#      wrote inside the runner, where nothing could post it;
#   4. the store's pages show the pull request run's verdict;
#   5. a branch with '%' and '@': the job's command still finds its run.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"
. "$top_srcdir/tests/hooks_lib.sh"

standin bencher
runner_config "$TMP/runner.json"
BENCHPROF_CONFIG="$TMP/runner.json"
GH_TOKEN="ghs_standin_token_runner_pr"
export BENCHPROF_CONFIG
mkdir -p "$TMP/gh" "$TMP/results"
python3 "$SERVERS/github_standin.py" "$TMP/gh" "$GH_TOKEN" 3 \
  2>"$TMP/gh/server.err" &
PIDS="$PIDS $!"
API="http://127.0.0.1:$(wait_port "$TMP/gh/port")"
# the job's command: a real workload, its BMF into the output file
{
  echo '#!/bin/sh'
  echo "\"$WORKLOADS/split\" 0.1 >/dev/null"
  echo 'printf "{\"sort/1k\": {\"latency\": {\"value\": %s}}}" "$2" >"$1"'
} >"$TMP/harness.sh"
chmod +x "$TMP/harness.sh"
ENTRY="$HOOKS/bencher/entrypoint.sh"

# job NAME BRANCH HASH LATENCY [START_POINT START_POINT_HASH]: a runner
# job in its own directory (its own VM), then the runner's report of its
# output file
job() {
  name=$1 branch=$2 hash=$3 value=$4
  mkdir -p "$TMP/$name"
  (cd "$TMP/$name" &&
   BENCHER_API_TOKEN=$TOKEN BENCHER_PROJECT=widget BENCHER_BRANCH=$branch \
   BENCHER_HASH=$hash BENCHER_TESTBED=metal-1 \
   BENCHER_START_POINT=${5:-} BENCHER_START_POINT_HASH=${6:-} \
   "$ENTRY" --file "$TMP/$name/bmf.json" -- "$TMP/harness.sh" \
     "$TMP/$name/bmf.json" "$value" >"$TMP/$name.out" 2>"$TMP/$name.err")
  status=$?
  # the runner hands the output file to Bencher, which makes the report
  python3 - "$BENCHER_URL" "$TOKEN" "$branch" "$hash" \
    "$TMP/$name/bmf.json" "${5:-}" <<'PY'
import json, sys, urllib.request
url, token, branch, head, path, start = sys.argv[1:]
run = {"project": "widget", "branch": branch, "hash": head,
       "testbed": "bench-box", "start_time": "2026-01-01T00:00:00Z",
       "end_time": "2026-01-01T00:00:01Z", "results": [open(path).read()],
       "settings": {"adapter": "json"}}
if start:
    run["start_point"] = {"branch": start, "clone_thresholds": True,
                          "reset": True}
req = urllib.request.Request(url + "/v0/run", data=json.dumps(run).encode(),
                             headers={"Authorization": "Bearer " + token,
                                      "Content-Type": "application/json"})
assert urllib.request.urlopen(req).status == 201
PY
}

job base main "$BASE_SHA" 1000
check "base job: the command's exit status" [ "$status" -eq 0 ]
job head feature "$HEAD_SHA" 2000 main "$BASE_SHA"
check "PR job: the command's exit status" [ "$status" -eq 0 ]
check "PR job: benchprof posted no report, said the measures are made" \
  grep -q "no Bencher report (--no-bencher); the counters' measures" \
  "$TMP/head.err"
check "PR job: its comment written inside the runner, nothing posted it" \
  test -s "$TMP/head/benchprof-out/compare/comment.md"

check "the counters reach Bencher as measures with their units" python3 - \
  "$TMP/bencher.log" <<'PY'
import json, sys
log = json.load(open(sys.argv[1]))
runs = [i for i, e in enumerate(log) if e.get("path") == "/v0/run"]
made = [(i, e["body"]) for i, e in enumerate(log)
        if e.get("path") == "/v0/projects/widget/measures" and
        e.get("status") == 201]
assert len(runs) == 2 and all(log[i]["status"] == 201 for i in runs), runs
units = {b["slug"]: b["units"] for _, b in made}
assert units.get("task-clock") == "nanoseconds", units
# made before the runner's first report, which then finds them
assert max(i for i, _ in made) < runs[0], (made, runs)
for i in runs:
    for it in log[i]["answer"]["results"]:
        for b in it:
            for m in b["measures"]:
                slug = m["measure"]["slug"]
                if slug != "latency":
                    assert m["measure"]["units"] != "units", m
                    assert m["measure"]["units"] == units[slug], m
print("measures made with units:", sorted(units))
PY

# the job's log says that nothing in the runner posts the comment (its
# comment.md is in a VM that is gone), and gives the CI's command
check "PR job: says the runner cannot post the comment" grep -q \
  "compare: benchprof-out/compare/comment.md stays in this runner, which cannot post it; post it from the CI step after 'bencher run'" \
  "$TMP/head.err"
hint=$(sed -n "s/.*which reads the same store: \(benchprof compare [^,]*\), then 'benchprof comment --markdown benchprof-compare\/comment.md' (runner-hooks\/bencher\/README.md)\$/\1/p" \
  "$TMP/head.err")
check "PR job: the CI's command names the run's project, testbed and sides" \
  [ "$hint" = "benchprof compare --project 'widget' --testbed 'bench-box' 'main@$BASE_SHA' 'feature@$HEAD_SHA'" ]
check "PR job: not told to post a file of the runner" sh -c \
  "! grep -q \"post it with 'benchprof comment --markdown benchprof-out\" \
     '$TMP/head.err'"

# the user's CI after `bencher run` returned: the command the job's log
# gave (compare in the store), then post
cd "$TMP" || exit 1
eval "\"\$BENCHPROF\" ${hint#benchprof }" >"$TMP/compare.out" 2>"$TMP/compare.err"
check "compare BASE@... HEAD@... (the job's hint): exit 0" [ $? -eq 0 ]
check "compare: both sides from the store" grep -q \
  "head: widget/feature/$HEAD_SHA/bench-box/manifest.json" "$TMP/compare.err"
BENCHPROF_GITHUB_TOKEN=$GH_TOKEN "$BENCHPROF" comment \
  --markdown "$TMP/benchprof-compare/comment.md" --github own/repo --pr 7 \
  --api-url "$API" >"$TMP/comment.out" 2>"$TMP/comment.err"
check "comment: exit 0" [ $? -eq 0 ]
check "the pull request has the comment, the one the runner's job wrote" \
  python3 - "$TMP/gh/state.json" "$TMP/benchprof-compare/comment.md" \
  "$TMP/head/benchprof-out/compare/comment.md" <<'PY'
import json, sys
state = json.load(open(sys.argv[1]))
posted = [c for c in state if c["issue"] == 7]
ci, job = open(sys.argv[2]).read(), open(sys.argv[3]).read()
assert len(posted) == 1, posted
assert "<!-- benchprof:comment widget/bench-box -->" in posted[0]["body"]
# the file as it is, then the verdict line of its compare.json
body, verdict = posted[0]["body"].rstrip("\n").rsplit("\n", 1)
assert verdict.startswith("<!-- benchprof:verdict head="), verdict
assert body.strip() == ci.strip(), (posted[0]["body"], ci)
assert ci == job, "the CI's comment differs from the job's"
assert "sort/1k" in ci and "latency" in ci, ci
PY
check "the store's page of the PR run shows its verdict" python3 - \
  "$TMP/store/widget/feature/$HEAD_SHA/bench-box/index.html" <<'PY'
import sys
page = open(sys.argv[1]).read()
assert 'id="verdict"' in page and "Comparison with main" in page, page
assert '<div class="comment">' in page
PY
check "the page's verdict counts benchmarks as the comment's title does" \
  python3 - "$TMP/store/widget/feature/$HEAD_SHA/bench-box/index.html" \
  "$TMP/benchprof-compare/comment.md" <<'PY'
import re, sys
page, md = open(sys.argv[1]).read(), open(sys.argv[2]).read()
t = re.search(r"(\d+) regressions? confirmed, (\d+) unconfirmed; (\d+) "
              r"improvements? confirmed, (\d+) unconfirmed; (\d+) unchanged", md)
v = re.search(r"\((\d+) regressions, (\d+) improvements, (\d+) unchanged, "
              r"(\d+) unconfirmed", page)
assert t and v, (md[:300], page)
r, ur, i, ui, u = map(int, t.groups())
assert tuple(map(int, v.groups())) == (r, i, u, ur + ui), (t.groups(),
                                                           v.groups())
PY
# a branch with '%' and '@' (compare percent-decodes the branch and
# splits at the last '@'): the hint's command still finds both runs
mkdir -p "$TMP/odd"
(cd "$TMP/odd" &&
 BENCHER_PROJECT=widget BENCHER_BRANCH='fix/100%@odd' BENCHER_HASH=$SHA9 \
 BENCHER_TESTBED=metal-1 BENCHER_START_POINT=main \
 BENCHER_START_POINT_HASH=$BASE_SHA \
 "$ENTRY" --file "$TMP/odd/bmf.json" -- "$TMP/harness.sh" \
   "$TMP/odd/bmf.json" 1500 >"$TMP/odd.out" 2>"$TMP/odd.err")
hint=$(sed -n "s/.*which reads the same store: \(benchprof compare [^,]*\), then .*/\1/p" \
  "$TMP/odd.err")
check "odd branch: the hint escapes '%' and '@' in the branch" \
  [ "$hint" = "benchprof compare --project 'widget' --testbed 'bench-box' 'main@$BASE_SHA' 'fix/100%25%40odd@$SHA9'" ]
(cd "$TMP/odd" && eval "\"\$BENCHPROF\" ${hint#benchprof }") \
  >"$TMP/odd-compare.out" 2>"$TMP/odd-compare.err"
check "odd branch: the hint's compare finds both runs" sh -c \
  "[ $? -eq 0 ] && grep -qF 'head: widget/fix%2F100%25@odd/$SHA9/' \
     '$TMP/odd-compare.err'"
check "no token in any output" sh -c \
  "! grep -rqF -e '$TOKEN' -e '$GH_TOKEN' '$TMP'/*.out '$TMP'/*.err \
     '$TMP/store'"
finish
