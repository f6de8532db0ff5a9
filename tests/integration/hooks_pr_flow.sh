#!/bin/sh
# The pull request flow through the runner hooks with the runner example's
# absolute "output" (kept between jobs), a file store, the Bencher
# stand-in and GitHub and GitLab API stand-ins:
#   - a job for pull request 7 runs a benchmark and posts its comment; the
#     next job, for pull request 8, runs none: nothing is posted on 8
#     (job-started removed the last job's compare/); a comparison left by
#     another job that the started hook could not remove is not posted
#     either (its identity.json names pull request 7);
#   - the same on GitLab (pre_build_script / post_build_script, notes);
#   - a pull request from a fork whose branch is also called main: the run
#     is stored and reported as contributor:main, main's latest still
#     names the base commit, and the comment compares with main's run;
#     the same for a GitLab merge request from a forked project (compared
#     with GitLab main's run of the base commit: GitHub's, published under
#     the same project name, is another repository's);
#   - GitLab with only the job's CI_JOB_TOKEN (which GitLab's notes API
#     refuses): no note, and the job log says what to set;
#   - a comment POST whose answer is lost: one comment, not two, and the
#     next job edits it.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"
. "$top_srcdir/tests/hooks_lib.sh"

standin bencher
make_mybench
GH_TOKEN_VALUE="ghs_flow_token_71c2"
GL_TOKEN_VALUE="glpat-flow-token-93d1"
start_forges

# a runner's configuration as the example has it: an absolute output
# directory that every job of the runner shares
flow_config() {
  cat >"$1" <<JSON
{"enabled": true, "output": "$TMP/out", "spool": "$TMP/spool",
 "store": {"url": "file://$TMP/store"},
 "bencher": {"host": "$BENCHER_URL", "project": "demo",
             "testbed": "bench-box"},
 "network": {"retries": 0, "timeout": 5}$2}
JSON
}
flow_config "$TMP/github.json" \
  ', "comment": {"token_env": "BENCHPROF_GITHUB_TOKEN"}'
flow_config "$TMP/gitlab.json" ''
hook_env

# ---------------------------------------------------------------- GitHub

# posted LOG METHOD PATH: how many requests of the stand-in match
posted() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])] if sys.argv[1] else []
print(len([r for r in reqs if r["method"] == sys.argv[2] and
           r["path"] == sys.argv[3] and r["status"] < 300]))
PY
}
touch "$TMP/gh/requests.log" "$TMP/gl/requests.log"

# job 0: a push to main, the base every pull request compares with
gh_job push
$SH "$HOOKS/github/job-started.sh" >"$TMP/gh0.out" 2>&1
gh_step mybench run >"$TMP/gh0-step.out" 2>"$TMP/gh0-step.err"
check "github push job: profiled" [ -s "$TMP/out/manifest.json" ]
$SH "$HOOKS/github/job-completed.sh" >>"$TMP/gh0.out" 2>&1
check "github push job: main's latest names its commit" grep -q \
  "$BASE_SHA" "$TMP/store/demo/main/latest/bench-box.json"

# job 1: pull request 7 runs the benchmark; its comment is posted on 7
gh_event "$TMP/event7.json" 7 $SHA7 feature/seven
gh_job pr7 "$TMP/event7.json"
$SH "$HOOKS/github/job-started.sh" >"$TMP/gh1.out" 2>&1
gh_step mybench run >"$TMP/gh1-step.out" 2>"$TMP/gh1-step.err"
check "pull request 7: the run wrote its comment and identity" sh -c \
  "[ -s '$TMP/out/compare/comment.md' ] &&
   grep -q '\"pr\": \"7\"' '$TMP/out/compare/identity.json'"
$SH "$HOOKS/github/job-completed.sh" >>"$TMP/gh1.out" 2>&1
check "pull request 7: exit 0" [ $? -eq 0 ]
check "pull request 7: its comment posted on 7" [ "$(posted \
  "$TMP/gh/requests.log" POST /repos/org/demo/issues/7/comments)" = 1 ]
cp -R "$TMP/out/compare" "$TMP/compare-of-7"

# job 2: pull request 8 runs no benchmark: nothing is posted on 8
gh_event "$TMP/event8.json" 8 $SHA8 feature/eight
gh_job pr8 "$TMP/event8.json"
$SH "$HOOKS/github/job-started.sh" >"$TMP/gh2.out" 2>&1
check "pull request 8: job-started removed the last job's comparison" \
  [ ! -e "$TMP/out/compare" ]
$SH "$HOOKS/github/job-completed.sh" >>"$TMP/gh2.out" 2>&1
check "pull request 8: exit 0" [ $? -eq 0 ]
check "pull request 8: no comment posted" [ "$(posted \
  "$TMP/gh/requests.log" POST /repos/org/demo/issues/8/comments)" = 0 ]
check "pull request 8: the log says none was written" grep -q \
  "was not written" "$TMP/gh2.out"

# job 3: pull request 8 again, and pull request 7's comparison appears in
# the output directory after job-started (another runner on the same
# directory): its identity is not this job's, it is not posted
gh_job pr8b "$TMP/event8.json"
$SH "$HOOKS/github/job-started.sh" >"$TMP/gh3.out" 2>&1
cp -R "$TMP/compare-of-7" "$TMP/out/compare"
$SH "$HOOKS/github/job-completed.sh" >>"$TMP/gh3.out" 2>&1
check "another job's comparison: exit 0" [ $? -eq 0 ]
check "another job's comparison: not posted on 8" [ "$(posted \
  "$TMP/gh/requests.log" POST /repos/org/demo/issues/8/comments)" = 0 ]
check "another job's comparison: nor on 7 again" [ "$(posted \
  "$TMP/gh/requests.log" POST /repos/org/demo/issues/7/comments)" = 1 ]
check "another job's comparison: the log says why" grep -q \
  "written by another job" "$TMP/gh3.out"

# job 4: pull request 9 from the fork contributor/demo, branch main
gh_event "$TMP/event9.json" 9 $SHA9 main contributor/demo
gh_job fork "$TMP/event9.json"
$SH "$HOOKS/github/job-started.sh" >"$TMP/gh4.out" 2>&1
gh_step mybench run >"$TMP/gh4-step.out" 2>"$TMP/gh4-step.err"
$SH "$HOOKS/github/job-completed.sh" >>"$TMP/gh4.out" 2>&1
check "fork: main's latest still names the base commit" sh -c \
  "grep -q '$BASE_SHA' '$TMP/store/demo/main/latest/bench-box.json' &&
   ! grep -q '$SHA9' '$TMP/store/demo/main/latest/bench-box.json'"
check "fork: Bencher got branch contributor:main, start point main" \
  python3 - "$TMP/bencher.log" "$SHA9" <<'PY'
import json, sys
runs = [e["body"] for e in json.load(open(sys.argv[1]))
        if e.get("path") == "/v0/run" and e.get("status") == 201]
mine = [b for b in runs if b["hash"] == sys.argv[2]]
assert len(mine) == 1, runs
assert mine[0]["branch"] == "contributor:main", mine[0]
assert mine[0]["start_point"]["branch"] == "main", mine[0]
PY
check "fork: compared with main's run, not with itself" python3 - \
  "$TMP/out/compare/compare.json" "$BASE_SHA" "$SHA9" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
assert c["base"]["hash"] == sys.argv[2], c["base"]
assert c["head"]["hash"] == sys.argv[3], c["head"]
assert c["head"]["branch"] == "contributor:main", c["head"]
PY
check "fork: the comment posted on 9" [ "$(posted \
  "$TMP/gh/requests.log" POST /repos/org/demo/issues/9/comments)" = 1 ]

# job 5: pull request 10; GitHub makes the comment but its answer is lost:
# one comment, and the next job for 10 edits it
gh_event "$TMP/event10.json" 10 $SHA8 feature/ten
for n in 1 2; do
  gh_job "pr10-$n" "$TMP/event10.json"
  $SH "$HOOKS/github/job-started.sh" >"$TMP/gh5-$n.out" 2>&1
  gh_step mybench run >/dev/null 2>&1
  [ $n -eq 2 ] || touch "$TMP/gh/lose-next-post"
  $SH "$HOOKS/github/job-completed.sh" >>"$TMP/gh5-$n.out" 2>&1
done
check "lost answer: the POST's answer was lost" [ ! -e "$TMP/gh/lose-next-post" ]
check "lost answer: one comment on 10, edited by the next job" python3 - \
  "$TMP/gh" <<'PY'
import json, os, sys
d = sys.argv[1]
reqs = [json.loads(l) for l in open(os.path.join(d, "requests.log"))]
mine = [r for r in reqs if "/issues/10/" in r["path"] or
        r["method"] == "PATCH"]
posts = [r for r in mine if r["method"] == "POST"]
assert [p["status"] for p in posts] == [0], posts
state = json.load(open(os.path.join(d, "state.json")))
on10 = [c for c in state if c["issue"] == 10]
assert len(on10) == 1, on10
assert any(r["method"] == "PATCH" and r["path"].endswith("/%d" % on10[0]["id"])
           for r in reqs), reqs
PY

# ---------------------------------------------------------------- GitLab
unset GITHUB_ACTIONS GITHUB_EVENT_PATH GITHUB_EVENT_NAME GITHUB_SHA \
  GITHUB_REF_NAME GITHUB_REPOSITORY GITHUB_API_URL GITHUB_WORKSPACE \
  GITHUB_ENV GITHUB_PATH RUNNER_TEMP

NOTES=/api/v4/projects/77/merge_requests

GITLAB_TOKEN=$GL_TOKEN_VALUE
export GITLAB_TOKEN
# GitLab's project 77 publishes under the same project name as GitHub's
# org/demo, but is another repository: its merge requests take a base of
# its own, main's pipeline for the base commit (a mirror's: the same
# commit), never GitHub's run; main's latest stays GitHub's
gl_job 100 "" $BASE_SHA main
gl_mr_unset
gl_run 'mybench run' >"$TMP/gl0.out" 2>&1
check "GitLab main: exit 0" [ $? -eq 0 ]
check "GitLab main: main's latest left to GitHub's org/demo, said" grep -q \
  "belongs to another repository named alike" "$TMP/gl0.out"
check "GitLab main: the other repository is not named" sh -c \
  "! grep -q 'github:' '$TMP/gl0.out'"

gl_job 101 11 $SHA7 feature/seven
gl_run 'mybench run' >"$TMP/gl1.out" 2>&1
check "merge request 11: exit 0" [ $? -eq 0 ]
check "merge request 11: its note posted" [ "$(posted \
  "$TMP/gl/requests.log" POST $NOTES/11/notes)" = 1 ]
cp -R "$TMP/out/job=gitlab-101/compare" "$TMP/compare-of-11"

gl_job 102 12 $SHA8 feature/eight
gl_run 'echo no benchmark here' >"$TMP/gl2.out" 2>&1
check "merge request 12 without a benchmark: exit 0" [ $? -eq 0 ]
check "merge request 12 without a benchmark: no note" [ "$(posted \
  "$TMP/gl/requests.log" POST $NOTES/12/notes)" = 0 ]
check "merge request 12 without a benchmark: nor on 11 again" [ "$(posted \
  "$TMP/gl/requests.log" POST $NOTES/11/notes)" = 1 ]

gl_job 103 12 $SHA8 feature/eight
gl_run "cp -R '$TMP/compare-of-11' \"\$BENCHPROF_OUTPUT/compare\"" \
  >"$TMP/gl3.out" 2>&1
check "another job's comparison: no note on 12" [ "$(posted \
  "$TMP/gl/requests.log" POST $NOTES/12/notes)" = 0 ]
check "another job's comparison: the log says why" grep -q \
  "written by another job" "$TMP/gl3.out"

# a merge request from the forked project 5678 (contributor/demo), main
gl_job 104 13 $SHA9 main 5678 contributor/demo
gl_run 'mybench run' >"$TMP/gl4.out" 2>&1
check "fork merge request: exit 0" [ $? -eq 0 ]
check "fork merge request: main's latest still names the base commit" \
  grep -q "$BASE_SHA" "$TMP/store/demo/main/latest/bench-box.json"
check "fork merge request: compared with main as contributor:main" \
  python3 - "$TMP/out/job=gitlab-104/compare/compare.json" "$BASE_SHA" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
assert c["base"]["hash"] == sys.argv[2], c["base"]
assert c["base"]["branch"] == "main", c["base"]
assert c["head"]["branch"] == "contributor:main", c["head"]
PY

# only the job's CI_JOB_TOKEN: GitLab refuses it for notes
unset GITLAB_TOKEN
CI_JOB_TOKEN="job-token-value-5521"
export CI_JOB_TOKEN
gl_job 105 14 $SHA8 feature/eight
gl_run 'mybench run' >"$TMP/gl5.out" 2>&1
check "job token only: the job passes" [ $? -eq 0 ]
check "job token only: no note" [ "$(posted "$TMP/gl/requests.log" POST \
  $NOTES/14/notes)" = 0 ]
check "job token only: the log says to set GITLAB_TOKEN" grep -q \
  "access token with the api scope in \$GITLAB_TOKEN" "$TMP/gl5.out"
unset CI_JOB_TOKEN

check "no token in any output" sh -c "! grep -rqF -e '$GH_TOKEN_VALUE' \
  -e '$GL_TOKEN_VALUE' -e job-token-value '$TMP'/*.out '$TMP/out' \
  '$TMP/store' '$TMP/spool'"
finish
