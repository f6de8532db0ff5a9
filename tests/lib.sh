# Shared helpers for the integration scripts; sourced, not run.
# Environment (set by make check): BENCHPROF, top_srcdir, top_builddir,
# WORKLOADS.
set -u
: "${BENCHPROF:?run through make check}"
TEST_NAME=$(basename "$0" .sh)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/bp-$TEST_NAME.XXXXXX")
XDG_DATA_HOME=$TMP/xdg-data XDG_STATE_HOME=$TMP/xdg-state; export XDG_DATA_HOME XDG_STATE_HOME
# benchprof comment waits comment.settle (2 s) after writing a comment before
# reading it back; the stand-in forges answer at once and land every edit
# before their answer, so a tenth of that is enough here and keeps the many
# tests that post a comment from sleeping minutes in all.  A test about the
# read-back's timing sets its own.
BENCHPROF_COMMENT_SETTLE=${BENCHPROF_COMMENT_SETTLE:-0.2}; export BENCHPROF_COMMENT_SETTLE
FAILS=0

# Cleanup: a test or a helper library adds what must happen when the test
# ends (servers stopped, mounts undone, settings restored) with at_exit,
# never with a trap of its own: a second `trap ... EXIT` replaces the
# first, and whatever the first would have stopped keeps running.
BP_AT_EXIT=""

# at_exit COMMAND: runs COMMAND (one line of shell, evaluated then, so its
# variables have their values at the end) when the test ends, however it
# ends; the last added runs first, so the test's directory goes last.
at_exit() {
  BP_AT_EXIT="$1
$BP_AT_EXIT"
}

# bp_cleanup: runs the at_exit commands, each even when one before it
# failed, and only once (the EXIT trap; a signal exits through it too).
bp_cleanup() {
  set +u
  bp_cmds=$BP_AT_EXIT
  BP_AT_EXIT=""
  bp_ifs=$IFS
  set -f  # a command's own words are not globbed by this loop
  IFS='
'
  for bp_cmd in $bp_cmds; do
    IFS=$bp_ifs
    set +f
    eval "$bp_cmd"
  done
  IFS=$bp_ifs
  set +f
}
trap bp_cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# the test's directory, unless BP_KEEP_TMP is set (to look at it after)
bp_remove_tmp() {
  if [ -n "${BP_KEEP_TMP:-}" ]; then
    echo "kept $TMP" >&2
  else
    rm -rf "$TMP"
  fi
}
at_exit bp_remove_tmp

fail() {
  echo "FAIL: $*" >&2
  FAILS=$((FAILS + 1))
}

pass() {
  echo "ok: $*"
}

# outside_ci: forget the CI and Bencher variables of the job running the
# suite, so that benchprof sees only what a test sets itself
outside_ci() {
  unset GITHUB_ACTIONS GITHUB_EVENT_PATH GITHUB_BASE_REF GITHUB_HEAD_REF \
    GITHUB_REF_NAME GITHUB_SHA GITHUB_REPOSITORY GITHUB_REPOSITORY_ID \
    GITLAB_CI CI_MERGE_REQUEST_IID CI_COMMIT_REF_NAME CI_COMMIT_SHA \
    BENCHER_PROJECT BENCHER_BRANCH BENCHER_HASH BENCHER_TESTBED \
    BENCHER_START_POINT BENCHER_START_POINT_HASH BENCHER_API_TOKEN \
    GITHUB_RUN_ID GITHUB_RUN_ATTEMPT GITHUB_JOB CI_JOB_ID BENCHPROF_SUITE
}

# wait_line FILE PATTERN [SECONDS]: until FILE has a line matching
# PATTERN (grep), looked at every 10 ms, SECONDS at most (default 30);
# false when it never does
wait_line() {
  wait_line_n=0  # sh has no locals: a name no caller uses
  while ! grep -q "$2" "$1" 2>/dev/null; do
    [ $wait_line_n -ge $((${3:-30} * 100)) ] && return 1
    sleep 0.01
    wait_line_n=$((wait_line_n + 1))
  done
}

# interrupt TAG ARGS...: benchprof run ARGS in the background, TERM sent
# to it once the harness wrote "started" to $MARK ($TMP/mark.TAG); its
# output in $TMP/out.TAG and $TMP/err.TAG, its exit status in $st
interrupt() {
  tag=$1
  shift
  MARK="$TMP/mark.$tag"
  export MARK
  "$BENCHPROF" run -q "$@" >"$TMP/out.$tag" 2>"$TMP/err.$tag" &
  bp=$!
  wait_line "$MARK" '^started' 30 || fail "$tag: the harness never started"
  kill -TERM $bp
  wait $bp
  st=$?
}

# check DESCRIPTION COMMAND...: runs COMMAND, fails the test when it fails
check() {
  desc=$1
  shift
  if "$@"; then pass "$desc"; else fail "$desc"; fi
}

finish() {
  if [ "$FAILS" -ne 0 ]; then
    echo "$FAILS check(s) failed in $TEST_NAME" >&2
    exit 1
  fi
  exit 0
}
