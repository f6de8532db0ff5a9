#!/bin/sh
# What benchprof run says about a pull request's comment: in a CI job set
# up by benchprof's runner hooks (the started hooks set BENCHPROF_HOOKS:
# GitHub's through $GITHUB_ENV, GitLab's exported) the job's end hook
# posts it, and run says so instead of "post it with 'benchprof
# comment'"; outside them, or with a variable left by another CI
# system's hooks, or when the end hook will not post it (the run's -o is
# not the hooks' BENCHPROF_OUTPUT nor a suite's directory in it, or
# comments are off), run says how to post it.
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
  name=$1
  shift
  "$BENCHPROF" run -o "$TMP/$name" --project demo --testbed box \
    --branch feature/x --hash $HEAD --base-branch main --base-hash $BASE \
    --retries 0 --bmf "$TMP/$name.json" "$@" -- "$TMP/harness.sh" \
    "$TMP/$name.json" >/dev/null 2>"$TMP/$name.err"
}
HOOKED="the job's end hook posts it"
BYHAND="post it with 'benchprof comment --markdown"

prrun plain
check "no CI: compared" grep -q "compare with main" "$TMP/plain.err"
check "no CI: how to post it" grep -qF "$BYHAND $TMP/plain/compare/comment.md'" \
  "$TMP/plain.err"
check "no CI: no end hook named" sh -c '! grep -qF "$1" "$2"' sh "$HOOKED" \
  "$TMP/plain.err"

# the hooks' output directory: the started hooks' BENCHPROF_OUTPUT
GITHUB_ACTIONS=true BENCHPROF_HOOKS=github BENCHPROF_OUTPUT="$TMP/gh" \
  prrun gh
check "github job with the hooks: the end hook posts it" grep -qF \
  "compare: $TMP/gh/compare/comment.md ($HOOKED)" "$TMP/gh.err"
check "github job with the hooks: not 'post it with'" sh -c \
  '! grep -qF "$1" "$2"' sh "$BYHAND" "$TMP/gh.err"
GITLAB_CI=true BENCHPROF_HOOKS=gitlab BENCHPROF_OUTPUT="$TMP/gl" prrun gl
check "gitlab job with the hooks: the end hook posts it" grep -qF \
  "compare: $TMP/gl/compare/comment.md ($HOOKED)" "$TMP/gl.err"
GITHUB_ACTIONS=true prrun nohooks
check "github job without the hooks: how to post it" grep -qF "$BYHAND" \
  "$TMP/nohooks.err"
GITHUB_ACTIONS=true BENCHPROF_HOOKS=gitlab BENCHPROF_OUTPUT="$TMP/other" \
  prrun other
check "another system's BENCHPROF_HOOKS: how to post it" grep -qF \
  "$BYHAND" "$TMP/other.err"

# a suite's run writes into BENCHPROF_OUTPUT/suite=NAME: the end hook
# posts it (no -o: the output is the hooks')
"$BENCHPROF" run -o "$TMP/base-s1" --project demo --testbed box --suite s1 \
  --branch main --hash $BASE --retries 0 --bmf "$TMP/base-s1.json" -- \
  "$TMP/harness.sh" "$TMP/base-s1.json" >/dev/null 2>"$TMP/base-s1.err"
check "suite s1's base run: exit 0" [ $? -eq 0 ]
GITHUB_ACTIONS=true BENCHPROF_HOOKS=github BENCHPROF_OUTPUT="$TMP/hooked" \
  "$BENCHPROF" run --project demo --testbed box --suite s1 \
  --branch feature/x --hash $HEAD --base-branch main --base-hash $BASE \
  --retries 0 --bmf "$TMP/suite.json" -- "$TMP/harness.sh" \
  "$TMP/suite.json" >/dev/null 2>"$TMP/suite.err"
check "a suite in the hooks' output: the end hook posts it" grep -qF \
  "compare: $TMP/hooked/suite=s1/compare/comment.md ($HOOKED)" \
  "$TMP/suite.err"

# -o elsewhere: the end hook never looks there
GITHUB_ACTIONS=true BENCHPROF_HOOKS=github BENCHPROF_OUTPUT="$TMP/hooked" \
  prrun elsewhere
check "-o not the hooks' output: how to post it" grep -qF \
  "$BYHAND $TMP/elsewhere/compare/comment.md'" "$TMP/elsewhere.err"
check "-o not the hooks' output: no end hook named" sh -c \
  '! grep -qF "$1" "$2"' sh "$HOOKED" "$TMP/elsewhere.err"

# comments off: the end hook posts nothing
GITHUB_ACTIONS=true BENCHPROF_HOOKS=github BENCHPROF_OUTPUT="$TMP/off" \
  BENCHPROF_COMMENT=0 prrun off
check "comments off (BENCHPROF_COMMENT=0): compared" grep -q \
  "compare with main" "$TMP/off.err"
check "comments off: how to post it" grep -qF \
  "$BYHAND $TMP/off/compare/comment.md'" "$TMP/off.err"
check "comments off: no end hook named" sh -c \
  '! grep -qF "$1" "$2"' sh "$HOOKED" "$TMP/off.err"
finish
