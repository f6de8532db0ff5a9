#!/bin/sh
# Commit hashes given to run and ci, on the command line or by CI
# variables, as a job's log shows them:
# - --hash and --base-hash take a full commit hash (40 hex digits, 64 in
#   a SHA-256 repository, any case): a branch name, an abbreviated hash or
#   another length is a usage error naming the option and the value (exit
#   2) for run, run --check-options and ci, and run's command is never
#   started;
# - a hash variable (GITHUB_SHA, CI_MERGE_REQUEST_DIFF_BASE_SHA, ...) that
#   is not one: the same, naming the variable, unless a flag gave the value
#   (the flag wins); with --keep-status the command runs unprofiled and its
#   exit status is kept;
# - a valid base hash the store holds no run of is no error: exit 0, the
#   log and comment.md say that no base run was found and which key was
#   looked for; once the base branch has a run, its latest is compared.
. "$top_srcdir/tests/lib.sh"

cd "$TMP" || exit 1
outside_ci
unset BENCHPROF_CONFIG BENCHPROF_STORE BENCHPROF_STRICT GITHUB_EVENT_NAME \
  CI_MERGE_REQUEST_EVENT_TYPE CI_MERGE_REQUEST_SOURCE_BRANCH_SHA \
  CI_MERGE_REQUEST_DIFF_BASE_SHA CI_MERGE_REQUEST_TARGET_BRANCH_SHA
BENCHPROF_CONFIG="$TMP/none.json"   # no file: only the flags
export BENCHPROF_CONFIG
echo '{}' >"$TMP/none.json"
# git is asked in the test's directory: no repository around it
GIT_CEILING_DIRECTORIES=$TMP
export GIT_CEILING_DIRECTORIES

ran="$TMP/ran"
HEAD=2222222222222222222222222222222222222222
BASE=1111111111111111111111111111111111111111
ABSENT=abcdef12abcdef12abcdef12abcdef12abcdef12
ID="--project p --branch feat --testbed t -o $TMP/out"

# refused NAME REGEX CMD...: CMD exits 2, stderr matches REGEX (fixed
# string), nothing on stdout, and a benchmark never ran
refused() {
  name=$1 what=$2
  shift 2
  "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
  st=$?
  check "$name: exit 2 ($st)" [ "$st" -eq 2 ]
  check "$name: says \"$what\"" grep -qF -e "$what" "$TMP/$name.err"
  check "$name: the benchmark did not run" [ ! -e "$ran.$name" ]
  check "$name: nothing on stdout" [ ! -s "$TMP/$name.out" ]
}

# ---- flags: run, run --check-options, ci; each option, several values
for value in main abc abc1234 "$HEAD"0 0123456789abcdef0123456789abcdef0123456g \
    "v1.0"; do
  for opt in hash base-hash; do
    n="run-$opt-$value"
    expect="--$opt '$value': expected a full commit hash, 40 hex digits (64 in a SHA-256 repository)"
    refused "$n" "$expect" "$BENCHPROF" run $ID --base-branch main \
      "--$opt" "$value" -- sh -c "touch '$ran.$n'"
    refused "check-$n" "$expect" "$BENCHPROF" run --check-options $ID \
      --base-branch main "--$opt" "$value" -- true
    refused "ci-$opt-$value" "$expect" "$BENCHPROF" ci "--$opt=$value"
  done
done
check "an abbreviated hash: told it is one" grep -qF \
  "an abbreviated hash cannot name a run in the store" \
  "$TMP/run-base-hash-abc1234.err"
check "a branch name: told a name is not a hash" grep -qF \
  "a branch, tag or other name is not one" "$TMP/run-base-hash-main.err"
check "41 hex digits: told the length is wrong" grep -qF \
  "another number of digits" "$TMP/run-hash-${HEAD}0.err"

# a value with a control character is shown without it
n=run-ctl
refused "$n" "--base-hash 'ab?cd'" "$BENCHPROF" run $ID --base-branch main \
  --base-hash "$(printf 'ab\033cd')" -- sh -c "touch '$ran.$n'"

# the hashes that are one: full SHA-1 (any case), SHA-256, and empty
# (not given, as an unset variable in a job's script)
for value in "$HEAD" ABCDEF12ABCDEF12ABCDEF12ABCDEF12ABCDEF12 \
    "$HEAD$(echo "$HEAD" | cut -c1-24)" ""; do
  "$BENCHPROF" run --check-options $ID --base-branch main \
    --hash "$HEAD" --base-hash "$value" -- true 2>"$TMP/ok.err"
  st=$?
  check "--base-hash '$value' is taken ($st)" [ "$st" -eq 0 ]
  "$BENCHPROF" ci --hash "$value" >/dev/null 2>&1
  st=$?
  check "ci --hash '$value' is taken ($st)" [ "$st" -eq 0 ]
done

# ---- CI variables: run and ci name the variable; the command never runs
# var_refused NAME VAR VALUE ENV...: VAR=VALUE among ENV
var_refused() {
  name=$1 var=$2 value=$3
  shift 3
  expect="$var: '$value' is not a commit hash"
  refused "$name" "$expect" env "$@" "$var=$value" "$BENCHPROF" run $ID \
    -- sh -c "touch '$ran.$name'"
  check "$name: says the command was not run" grep -qF \
    "the command was not run" "$TMP/$name.err"
  refused "check-$name" "$expect" env "$@" "$var=$value" \
    "$BENCHPROF" run --check-options $ID -- true
  refused "ci-$name" "$expect" env "$@" "$var=$value" "$BENCHPROF" ci
}
var_refused gh-sha GITHUB_SHA abc GITHUB_ACTIONS=true GITHUB_EVENT_NAME=push
var_refused gl-sha CI_COMMIT_SHA main GITLAB_CI=true
var_refused gl-source CI_MERGE_REQUEST_SOURCE_BRANCH_SHA abc1234 \
  GITLAB_CI=true
var_refused gl-base CI_MERGE_REQUEST_DIFF_BASE_SHA main GITLAB_CI=true \
  CI_MERGE_REQUEST_IID=7 CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main
var_refused gl-target CI_MERGE_REQUEST_TARGET_BRANCH_SHA deadbeef \
  GITLAB_CI=true CI_MERGE_REQUEST_EVENT_TYPE=merged_result \
  CI_MERGE_REQUEST_IID=7 CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main
var_refused bencher-hash BENCHER_HASH xyz
var_refused bencher-base BENCHER_START_POINT_HASH HEAD~1 \
  BENCHER_START_POINT=main

# a flag gives the value: the variable is not read, the run goes on
GITHUB_ACTIONS=true GITHUB_EVENT_NAME=push GITHUB_SHA=abc \
  "$BENCHPROF" run -q $ID --no-publish --hash "$HEAD" \
  -- sh -c "touch '$ran.flag'" 2>"$TMP/flag.err"
st=$?
check "--no-publish: no identity needed, the command runs ($st)" sh -c \
  "[ $st -eq 0 ] && [ -e '$ran.flag' ]"
rm -f "$ran.flag"
GITHUB_ACTIONS=true GITHUB_EVENT_NAME=push GITHUB_SHA=abc \
  "$BENCHPROF" run -q $ID --hash "$HEAD" \
  -- sh -c "touch '$ran.flag'" 2>"$TMP/flag.err"
st=$?
check "--hash wins over a bad GITHUB_SHA: the command runs ($st)" sh -c \
  "[ $st -eq 0 ] && [ -e '$ran.flag' ]"
check "--hash wins: published under it" \
  [ -f "$XDG_DATA_HOME/benchprof/store/p/feat/$HEAD/t/manifest.json" ]

# --keep-status keeps its promise: said, then the command runs unprofiled
# with its own exit status
GITHUB_ACTIONS=true GITHUB_EVENT_NAME=push GITHUB_SHA=abc \
  "$BENCHPROF" run --keep-status -o "$TMP/keep" --project p --branch feat \
  --testbed t -- sh -c "touch '$ran.keep'; exit 7" 2>"$TMP/keep.err"
st=$?
check "--keep-status: the command's status ($st)" [ "$st" -eq 7 ]
check "--keep-status: the command ran" [ -e "$ran.keep" ]
check "--keep-status: says the variable and that it runs unprofiled" sh -c \
  "grep -qF \"GITHUB_SHA: 'abc' is not a commit hash\" '$TMP/keep.err' &&
   grep -qF 'running the command unprofiled (--keep-status)' '$TMP/keep.err'"
check "--keep-status: nothing recorded" [ ! -e "$TMP/keep/report.json" ]
# the job does not fail over it: the variable's message is a warning
check "--keep-status: the variable said as a warning, no error: line" sh -c \
  "grep -q \"^benchprof: warning: .*GITHUB_SHA: 'abc' is not a commit hash\" \
     '$TMP/keep.err' && ! grep -q 'error:' '$TMP/keep.err'"

# ---- a valid base hash the store holds no run of: no error
"$BENCHPROF" run $ID --hash "$HEAD" --base-branch main --base-hash "$ABSENT" \
  -- sh -c "touch '$ran.absent'" >"$TMP/absent.out" 2>"$TMP/absent.err"
st=$?
check "no base run: exit 0 ($st)" [ "$st" -eq 0 ]
check "no base run: the command ran" [ -e "$ran.absent" ]
check "no base run: the log says so, and which key was looked for" sh -c \
  "grep -qF 'compare: no base to compare with: commit abcdef12abcd of branch' \
     '$TMP/absent.err' &&
   grep -qF 'no p/main/$ABSENT/t/manifest.json' '$TMP/absent.err' &&
   grep -qF 'no p/main/latest/t.json' '$TMP/absent.err'"
check "no base run: comment.md says so" sh -c \
  "grep -qF 'no base to compare with' '$TMP/out/compare/comment.md' &&
   grep -qF 'p/main/$ABSENT/t/manifest.json' '$TMP/out/compare/comment.md'"

# the base branch gets a run (another commit): it is compared instead
"$BENCHPROF" run -q --project p --branch main --testbed t -o "$TMP/main" \
  --hash "$BASE" -- true 2>"$TMP/main.err"
check "the base branch's run: exit 0" [ $? -eq 0 ]
"$BENCHPROF" run $ID --hash "$HEAD" --base-branch main --base-hash "$ABSENT" \
  -- true >"$TMP/latest.out" 2>"$TMP/latest.err"
st=$?
check "base commit without a run: exit 0 ($st)" [ "$st" -eq 0 ]
check "base commit without a run: says it, and compares main's latest" \
  grep -qF "the base commit abcdef12abcd has no run; comparing with main's latest instead" \
  "$TMP/latest.err"
check "base commit without a run: comment.md names the latest's commit" \
  grep -qF "compared with the latest run of \`main\` (\`1111111\`)" \
  "$TMP/out/compare/comment.md"
finish
