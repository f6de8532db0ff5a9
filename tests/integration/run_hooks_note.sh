#!/bin/sh
# What benchprof run says about a pull request's comment: in a CI job set
# up by benchprof's runner hooks (the started hooks set BENCHPROF_HOOKS:
# GitHub's through $GITHUB_ENV, GitLab's exported) the job's end hook
# posts it, and run says so instead of "post it with 'benchprof
# comment'"; outside them, or with a variable left by another CI
# system's hooks, run says how to post it.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"
. "$top_srcdir/tests/hooks_lib.sh"

make_harness
printf '{"enabled": true, "spool": "%s/spool", "store": {"url": "file://%s/store"}}\n' \
  "$TMP" "$TMP" >"$TMP/runner.json"
BENCHPROF_CONFIG="$TMP/runner.json"
export BENCHPROF_CONFIG
if ! benchprof-wrap --check >"$TMP/check.out" 2>&1; then
  echo "SKIP: no perf event can be opened here"
  exit 77
fi

# the GitHub started hook hands the later steps BENCHPROF_HOOKS=github
GITHUB_ACTIONS=true GITHUB_REPOSITORY=own/repo
export GITHUB_ACTIONS GITHUB_REPOSITORY
gh_files 1
$SH "$HOOKS/github/job-started.sh" >"$TMP/started.out" 2>&1
check "github started: exit 0" [ $? -eq 0 ]
check "github started: BENCHPROF_HOOKS=github in \$GITHUB_ENV" grep -qx \
  "BENCHPROF_HOOKS=github" "$TMP/env-1"

# the GitLab pre_build_script exports BENCHPROF_HOOKS=gitlab to the job
unset GITHUB_ACTIONS GITHUB_REPOSITORY
GITLAB_CI=true CI_JOB_ID=41 CI_PROJECT_NAME=demo
CI_BUILDS_DIR="$TMP/builds" CI_PROJECT_DIR="$TMP/builds/41"
export GITLAB_CI CI_JOB_ID CI_PROJECT_NAME CI_BUILDS_DIR CI_PROJECT_DIR
gl_run "echo \"hooks=\${BENCHPROF_HOOKS:-}\" >'$TMP/gl.env'" \
  >"$TMP/gl.out" 2>&1
check "gitlab job: BENCHPROF_HOOKS=gitlab in the job's shell" grep -qx \
  "hooks=gitlab" "$TMP/gl.env"
unset GITLAB_CI CI_JOB_ID CI_PROJECT_NAME CI_BUILDS_DIR CI_PROJECT_DIR

# prrun NAME: a pull request's run against main's base run, stderr in
# NAME.err
BASE=2222222222222222222222222222222222222222
HEAD=1111111111111111111111111111111111111111
"$BENCHPROF" run -o "$TMP/base" --project demo --testbed box --branch main \
  --hash $BASE --retries 0 --bmf "$TMP/base.json" -- "$TMP/harness.sh" \
  "$TMP/base.json" >/dev/null 2>"$TMP/base.err"
check "base run: exit 0" [ $? -eq 0 ]
prrun() {
  "$BENCHPROF" run -o "$TMP/$1" --project demo --testbed box \
    --branch feature/x --hash $HEAD --base-branch main --base-hash $BASE \
    --retries 0 --bmf "$TMP/$1.json" -- "$TMP/harness.sh" "$TMP/$1.json" \
    >/dev/null 2>"$TMP/$1.err"
}
HOOKED="the job's end hook posts it"
BYHAND="post it with 'benchprof comment --markdown"

prrun plain
check "no CI: compared" grep -q "compare with main" "$TMP/plain.err"
check "no CI: how to post it" grep -qF "$BYHAND $TMP/plain/compare/comment.md'" \
  "$TMP/plain.err"
check "no CI: no end hook named" sh -c '! grep -qF "$1" "$2"' sh "$HOOKED" \
  "$TMP/plain.err"

GITHUB_ACTIONS=true BENCHPROF_HOOKS=github prrun gh
check "github job with the hooks: the end hook posts it" grep -qF \
  "compare: $TMP/gh/compare/comment.md ($HOOKED)" "$TMP/gh.err"
check "github job with the hooks: not 'post it with'" sh -c \
  '! grep -qF "$1" "$2"' sh "$BYHAND" "$TMP/gh.err"
GITLAB_CI=true BENCHPROF_HOOKS=gitlab prrun gl
check "gitlab job with the hooks: the end hook posts it" grep -qF \
  "compare: $TMP/gl/compare/comment.md ($HOOKED)" "$TMP/gl.err"
GITHUB_ACTIONS=true prrun nohooks
check "github job without the hooks: how to post it" grep -qF "$BYHAND" \
  "$TMP/nohooks.err"
GITHUB_ACTIONS=true BENCHPROF_HOOKS=gitlab prrun other
check "another system's BENCHPROF_HOOKS: how to post it" grep -qF \
  "$BYHAND" "$TMP/other.err"
finish
