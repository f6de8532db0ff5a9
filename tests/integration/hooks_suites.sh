#!/bin/sh
# A job with several wrapped benchmark steps, each with its own suite
# (BENCHPROF_SUITE per step), through the real runner hooks against the
# GitHub and GitLab stand-ins, the runner's absolute "output" kept between
# jobs (each job in its own OUTPUT/job=ID):
#   - each suite's run writes into OUTPUT/suite=NAME (--output still
#     names OUTPUT, the job's): no step overwrites another's run or
#     comparison;
#   - the completed hook posts one comment per suite, each with its
#     suite's marker, and the commit statuses benchprof/a and benchprof/b;
#     a post that fails does not stop the next one, nor fail the job,
#     and its reason is a warning, unless strict (BENCHPROF_STRICT=1:
#     exit 1 and an error, GitHub and GitLab);
#   - a suite step and a step without a suite: two comments (benchprof/a
#     and benchprof); the last job's suite=b, in its own directory, is
#     never posted;
#   - a suite's comparison written for another pull request (identity.json)
#     is skipped, and the log says why, while the other suite's is posted;
#   - GitLab: pre_build_script / post_build_script, two notes, two
#     statuses.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"
. "$top_srcdir/tests/hooks_lib.sh"

standin bencher
make_mybench
GH_TOKEN_VALUE="ghs_suites_hook_token_4a07"
GL_TOKEN_VALUE="glpat-suites-hook-token-6b19"
start_forges
SHARED=$TMP/out

# suites_config FILE PROJECT [MORE]: the runner's configuration, its
# output directory absolute and shared by every job
suites_config() {
  cat >"$1" <<JSON
{"enabled": true, "output": "$SHARED", "spool": "$TMP/spool",
 "store": {"url": "file://$TMP/store"},
 "bencher": {"host": "$BENCHER_URL", "project": "$2",
             "testbed": "bench-box"},
 "network": {"retries": 0, "timeout": 5}${3:-}}
JSON
}
suites_config "$TMP/github.json" demo \
  ', "comment": {"token_env": "BENCHPROF_GITHUB_TOKEN"}'
# GitLab's project is another repository: a project of its own
suites_config "$TMP/gitlab.json" demo-gl
hook_env
unset BENCHPROF_SUITE

# ---------------------------------------------------------------- GitHub

# gh_run_job NAME [EVENT]: gh_job's, run NAME of the workflow's job
# "bench" (a step that replaces another step's run of the job is told so);
# OUT: its own directory in the shared output (no RUNNER_NAME: its
# runner named by its RUNNER_TEMP, the same in both hooks)
gh_run_job() {
  gh_job "$@"
  GITHUB_RUN_ID=$1 GITHUB_RUN_ATTEMPT=1 GITHUB_JOB=bench
  export GITHUB_RUN_ID GITHUB_RUN_ATTEMPT GITHUB_JOB
  OUT=$SHARED/job=github-$1-1-bench-temp-$(temp_hash "$1")
}

# suite_step SUITE: a later step running "mybench run" (the shim), with
# BENCHPROF_SUITE=SUITE in its environment (none when SUITE is empty)
suite_step() {
  (
    if [ -n "$1" ]; then
      BENCHPROF_SUITE=$1
      export BENCHPROF_SUITE
    fi
    gh_step mybench run
  )
}

# comments DIR ISSUE: the markers (first lines) of the comments on
# ISSUE, sorted, one a line
comments() {
  python3 - "$1" "$2" <<'PY'
import json, os, sys
d, issue = sys.argv[1], int(sys.argv[2])
state = json.load(open(os.path.join(d, "state.json")))
print("\n".join(sorted(c["body"].split("\n", 1)[0] for c in state
                       if c["issue"] == issue)))
PY
}

# contexts DIR SHA: the commit status contexts (GitLab: names) set on SHA,
# sorted, one a line
contexts() {
  python3 - "$1" "$2" <<'PY'
import json, os, sys
d, sha = sys.argv[1], sys.argv[2]
p = os.path.join(d, "statuses.json")
st = json.load(open(p)) if os.path.exists(p) else []
print("\n".join(sorted(s.get("context") or s.get("name") for s in st
                       if s["sha"] == sha)))
PY
}

# marker SUITE: the first line of a comment of project demo, testbed
# bench-box (no SUITE: the marker of a run without a suite)
marker() {
  echo "<!-- benchprof:comment demo/bench-box${1:+ suite=$1} -->"
}

# job 0: a push to main, a step without a suite, then suites a and b: the
# base of each
gh_run_job 100
$SH "$HOOKS/github/job-started.sh" >"$TMP/gh0.out" 2>&1
suite_step '' >"$TMP/gh0-none.out" 2>"$TMP/gh0-none.err"
cp "$OUT/manifest.json" "$TMP/manifest-of-none.json"
suite_step a >"$TMP/gh0-a.out" 2>"$TMP/gh0-a.err"
suite_step b >"$TMP/gh0-b.out" 2>"$TMP/gh0-b.err"
$SH "$HOOKS/github/job-completed.sh" >>"$TMP/gh0.out" 2>&1
check "push job: each suite's run in its own directory, OUTPUT's untouched" \
  sh -c '[ -s "$1/suite=a/manifest.json" ] &&
    [ -s "$1/suite=b/manifest.json" ] &&
    cmp -s "$1/manifest.json" "$2"' sh "$OUT" "$TMP/manifest-of-none.json"
check "push job: each suite's latest on main, and the run's without one" \
  sh -c 'grep -q "$2" "$1/demo/main/latest/bench-box~~a.json" &&
   grep -q "$2" "$1/demo/main/latest/bench-box~~b.json" &&
   grep -q "$2" "$1/demo/main/latest/bench-box.json"' \
  sh "$TMP/store" "$BASE_SHA"
check "push job: no step told it replaces another's run" sh -c \
  '! grep -q "another step" "$1"/gh0-*.err' sh "$TMP"
check "push job: --output names the job's own directory" sh -c \
  '[ "$(BENCHPROF_CONFIG=$2 benchprof-wrap --output)" = "$1" ]' \
  sh "$OUT" "$TMP/github.json"

# job 1: pull request 7, two suite steps: two comments, two statuses; the
# first post fails (its comment file is not one benchprof wrote), the
# second is still posted
gh_event "$TMP/event7.json" 7 $SHA7
gh_run_job 101 "$TMP/event7.json"
$SH "$HOOKS/github/job-started.sh" >"$TMP/gh1.out" 2>&1
suite_step a >"$TMP/gh1-a.out" 2>"$TMP/gh1-a.err"
suite_step b >"$TMP/gh1-b.out" 2>"$TMP/gh1-b.err"
check "pull request 7: each suite compared with its own base" python3 - \
  "$OUT" "$BASE_SHA" <<'PY'
import json, os, sys
for s in "ab":
    c = json.load(open(os.path.join(sys.argv[1], "suite=" + s, "compare",
                                    "compare.json")))
    assert c["suite"] == s and c["base"]["hash"] == sys.argv[2], c
    assert c["new"] == 0 and c["removed"] == 0, c
PY
(BENCHPROF_CONFIG="$TMP/github.json" benchprof-wrap --job-comment) \
  >"$TMP/jc7.out" 2>"$TMP/jc7.err"
check "pull request 7: --job-comment gives both suites' comments" sh -c \
  '[ "$(cat "$2")" = "$1/suite=a/compare/comment.md
$1/suite=b/compare/comment.md" ] && [ ! -s "$3" ]' sh "$OUT" "$TMP/jc7.out" \
  "$TMP/jc7.err"
cp -R "$OUT/suite=b/compare" "$TMP/compare-of-7-b"
cp "$OUT/suite=a/compare/comment.md" "$TMP/comment-7-a.md"
echo "not a comment" >"$OUT/suite=a/compare/comment.md"
$SH "$HOOKS/github/job-completed.sh" >>"$TMP/gh1.out" 2>&1
check "pull request 7, one post failing: exit 0" [ $? -eq 0 ]
check "pull request 7: the failed post is said" grep -q \
  "could not be posted; it is in $OUT/suite=a/compare/comment.md" \
  "$TMP/gh1.out"
check "pull request 7: suite b's comment posted after it" [ \
  "$(comments "$TMP/gh" 7)" = "$(marker b)" ]
check "pull request 7: comment's reason is a warning, no error: line" \
  sh -c "grep -q '^benchprof: warning: .*suite=a/compare/comment.md: no benchprof marker' \
           '$TMP/gh1.out' && ! grep -q 'error:' '$TMP/gh1.out'"
# strict mode fails the job over a comment that could not be posted, as
# over a publication left in the spool; the other suite's is still posted
BENCHPROF_STRICT=1 $SH "$HOOKS/github/job-completed.sh" >"$TMP/gh1s.out" 2>&1
check "pull request 7, one post failing, strict: exit 1" [ $? -eq 1 ]
check "pull request 7, strict: the failed post is said" grep -q \
  "could not be posted; it is in $OUT/suite=a/compare/comment.md" \
  "$TMP/gh1s.out"
check "pull request 7, strict: comment's reason is an error" grep -q \
  "^benchprof: error: .*suite=a/compare/comment.md: no benchprof marker" \
  "$TMP/gh1s.out"
check "pull request 7, strict: suite b's comment still the one" [ \
  "$(comments "$TMP/gh" 7)" = "$(marker b)" ]
cp "$TMP/comment-7-a.md" "$OUT/suite=a/compare/comment.md"
$SH "$HOOKS/github/job-completed.sh" >"$TMP/gh1b.out" 2>&1
check "pull request 7 again: exit 0" [ $? -eq 0 ]
check "pull request 7: two comments, one per suite" [ \
  "$(comments "$TMP/gh" 7)" = "$(marker a)
$(marker b)" ]
check "pull request 7: statuses benchprof/a and benchprof/b" sh -c \
  '[ "$(echo "$1" | sort -u)" = "benchprof/a
benchprof/b" ]' sh "$(contexts "$TMP/gh" $SHA7)"

# job 2: pull request 8, a suite step and a step without a suite; the
# last job's suite=b is in the last job's directory, never posted
gh_event "$TMP/event8.json" 8 $SHA8
LAST=$OUT
gh_run_job 102 "$TMP/event8.json"
$SH "$HOOKS/github/job-started.sh" >"$TMP/gh2.out" 2>&1
check "pull request 8: no suite directory in its own, the last job's left" \
  sh -c '[ ! -e "$1/suite=a" ] && [ ! -e "$1/suite=b" ] &&
    [ -d "$2/suite=b" ]' sh "$OUT" "$LAST"
suite_step a >"$TMP/gh2-a.out" 2>"$TMP/gh2-a.err"
suite_step '' >"$TMP/gh2-none.out" 2>"$TMP/gh2-none.err"
check "pull request 8: the step without a suite kept suite a's comparison" \
  sh -c '[ -s "$1/suite=a/compare/comment.md" ] &&
    [ -s "$1/compare/comment.md" ]' sh "$OUT"
$SH "$HOOKS/github/job-completed.sh" >>"$TMP/gh2.out" 2>&1
check "pull request 8: exit 0" [ $? -eq 0 ]
check "pull request 8: suite a's comment and the one without a suite" [ \
  "$(comments "$TMP/gh" 8)" = "$(marker)
$(marker a)" ]
check "pull request 8: statuses benchprof and benchprof/a" [ \
  "$(contexts "$TMP/gh" $SHA8)" = "benchprof
benchprof/a" ]
check "pull request 8: nothing more on 7" [ "$(comments "$TMP/gh" 7 |
  wc -l)" -eq 2 ]

# job 3: pull request 9, two suites; suite b's comparison is replaced by
# pull request 7's (another runner on the same directory): skipped, said
# why, and suite a's posted
gh_event "$TMP/event9.json" 9 $SHA9
gh_run_job 103 "$TMP/event9.json"
$SH "$HOOKS/github/job-started.sh" >"$TMP/gh3.out" 2>&1
suite_step a >"$TMP/gh3-a.out" 2>"$TMP/gh3-a.err"
suite_step b >"$TMP/gh3-b.out" 2>"$TMP/gh3-b.err"
rm -rf "$OUT/suite=b/compare"
cp -R "$TMP/compare-of-7-b" "$OUT/suite=b/compare"
$SH "$HOOKS/github/job-completed.sh" >>"$TMP/gh3.out" 2>&1
check "pull request 9: exit 0" [ $? -eq 0 ]
check "pull request 9: suite a's comment only" [ \
  "$(comments "$TMP/gh" 9)" = "$(marker a)" ]
check "pull request 9: suite b's skipped, and why" grep -q \
  "not posted: $OUT/suite=b/compare/comment.md was written by another job" \
  "$TMP/gh3.out"
check "pull request 9: nothing more on 7" [ "$(comments "$TMP/gh" 7 |
  wc -l)" -eq 2 ]

# job 4: pull request 9 again, no benchmark step: nothing posted, and the
# log says why (no suite directory: the output directory's own)
gh_run_job 104 "$TMP/event9.json"
$SH "$HOOKS/github/job-started.sh" >"$TMP/gh4.out" 2>&1
$SH "$HOOKS/github/job-completed.sh" >>"$TMP/gh4.out" 2>&1
check "no benchmark: exit 0" [ $? -eq 0 ]
check "no benchmark: the log says none was written" grep -q \
  "benchprof: no comment: $OUT/compare/comment.md was not written (no benchmark ran" \
  "$TMP/gh4.out"
check "no benchmark: nothing more on 9" [ "$(comments "$TMP/gh" 9)" = \
  "$(marker a)" ]

# ---------------------------------------------------------------- GitLab
unset GITHUB_ACTIONS GITHUB_EVENT_PATH GITHUB_EVENT_NAME GITHUB_SHA \
  GITHUB_REF_NAME GITHUB_REPOSITORY GITHUB_API_URL GITHUB_WORKSPACE \
  GITHUB_ENV GITHUB_PATH RUNNER_TEMP GITHUB_RUN_ID GITHUB_RUN_ATTEMPT \
  GITHUB_JOB
GITLAB_TOKEN=$GL_TOKEN_VALUE
export GITLAB_TOKEN
gl_job 201 11 $SHA7 feature/eleven
# gl_suites: the job's script: two suite steps
gl_suites='BENCHPROF_SUITE=a mybench run
BENCHPROF_SUITE=b mybench run'
# main's pipeline for the base commit first: each suite's base
(gl_job 200 "" $BASE_SHA main
 gl_mr_unset
 gl_run "$gl_suites") >"$TMP/gl0.out" 2>&1
check "GitLab main: exit 0" [ $? -eq 0 ]
check "GitLab main: each suite's latest" sh -c \
  'grep -q "$2" "$1/demo-gl/main/latest/bench-box~~a.json" &&
   grep -q "$2" "$1/demo-gl/main/latest/bench-box~~b.json"' \
  sh "$TMP/store" "$BASE_SHA"
gl_run "$gl_suites" >"$TMP/gl1.out" 2>&1
check "merge request 11: exit 0" [ $? -eq 0 ]
check "merge request 11: two notes, one per suite" python3 - "$TMP/gl" <<'PY'
import json, os, sys
reqs = [json.loads(l) for l in open(os.path.join(sys.argv[1],
                                                 "requests.log"))]
posts = [r for r in reqs if r["method"] == "POST" and r["status"] < 300 and
         r["path"] == "/api/v4/projects/77/merge_requests/11/notes"]
assert len(posts) == 2, posts
state = json.dumps(json.load(open(os.path.join(sys.argv[1], "state.json"))))
for s in "ab":
    assert ("benchprof:comment demo-gl/bench-box suite=%s -->" % s) in state, s
PY
check "merge request 11: statuses benchprof/a and benchprof/b" [ \
  "$(contexts "$TMP/gl" $SHA7)" = "benchprof/a
benchprof/b" ]
# a note that cannot be posted: a warning, and in strict mode the job
# fails over it, as over a publication left in the spool
GL_OUT=$(benchprof-wrap --output)
echo "not a note" >"$GL_OUT/suite=a/compare/comment.md"
(cd "$CI_PROJECT_DIR" && sh "$HOOKS/gitlab/post_build_script.sh") \
  >"$TMP/gl2.out" 2>&1
check "merge request 11, one note failing: exit 0" [ $? -eq 0 ]
check "merge request 11: the note's reason is a warning, no error: line" \
  sh -c "grep -q '^benchprof: warning: .*suite=a/compare/comment.md: no benchprof marker' \
           '$TMP/gl2.out' && ! grep -q 'error:' '$TMP/gl2.out'"
(cd "$CI_PROJECT_DIR" &&
 BENCHPROF_STRICT=1 sh "$HOOKS/gitlab/post_build_script.sh") \
  >"$TMP/gl2s.out" 2>&1
check "merge request 11, one note failing, strict: exit 1" [ $? -eq 1 ]
check "merge request 11, strict: the failed note is said" grep -q \
  "the note could not be posted; it is in $GL_OUT/suite=a/compare/comment.md" \
  "$TMP/gl2s.out"
check "merge request 11, strict: the note's reason is an error" grep -q \
  "^benchprof: error: .*suite=a/compare/comment.md: no benchprof marker" \
  "$TMP/gl2s.out"

check "no token in any output" sh -c "! grep -rqF -e '$GH_TOKEN_VALUE' \
  -e '$GL_TOKEN_VALUE' '$TMP'/*.out '$TMP'/*.err '$SHARED' '$TMP/store' \
  '$TMP/spool'"
finish
