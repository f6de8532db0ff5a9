#!/bin/sh
# GitLab's shim directories ($CI_BUILDS_DIR/benchprof-shims-$CI_JOB_ID):
#   - post_build_script removes the job's own at its end;
#   - a failed job's (post_build_script never runs) is removed by the next
#     job's pre_build_script once its job shell is gone;
#   - never one of a job still running (its shell alive on this host), nor
#     one of another host changed within a day, nor a directory with
#     anything in it that benchprof did not write; another host's that
#     nothing touched for a day goes.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"
. "$top_srcdir/tests/hooks_lib.sh"

make_mybench
cat >"$TMP/runner.json" <<JSON
{"enabled": true, "spool": "$TMP/spool", "store": {"url": "file://$TMP/store"},
 "bencher": {"project": "widget", "testbed": "bench-box"},
 "network": {"retries": 0, "timeout": 5}, "comment": {"enabled": false}}
JSON
BENCHPROF_CONFIG="$TMP/runner.json"
BENCHPROF_WRAP_COMMANDS="mybench:run"
BENCHPROF_RUN_ARGS="--adapter json --no-publish"
GITLAB_CI=true CI_COMMIT_SHA=$HEAD_SHA CI_COMMIT_REF_NAME=main
CI_PROJECT_NAME=widget CI_PROJECT_ID=77
CI_API_V4_URL="http://127.0.0.1:9/api/v4"
CI_BUILDS_DIR="$TMP/builds" CI_PROJECT_DIR="$TMP/builds/widget"
export BENCHPROF_CONFIG BENCHPROF_WRAP_COMMANDS BENCHPROF_RUN_ARGS \
  GITLAB_CI CI_COMMIT_SHA CI_COMMIT_REF_NAME CI_PROJECT_NAME CI_PROJECT_ID \
  CI_API_V4_URL CI_BUILDS_DIR CI_PROJECT_DIR
mkdir -p "$CI_PROJECT_DIR"
PATH="$PATH:$TMP/tools"
B="$TMP/builds"

# job ID SCRIPT: the job's shell (pre_build_script, SCRIPT,
# post_build_script, under set -e) of job ID
job() {
  (cd "$CI_PROJECT_DIR" && CI_JOB_ID=$1 sh -e -c "
. '$HOOKS/gitlab/pre_build_script.sh'
$2
sh '$HOOKS/gitlab/post_build_script.sh'")
}

# shims DIR PID HOST: a shim directory as pre_build_script leaves it
shims() {
  benchprof-wrap --shims "$1" && echo "$2 $3" >"$1/.job"
}

job 601 'command -v mybench; mybench run >/dev/null' >"$TMP/j601.out" 2>&1
check "job 601: exit 0" [ $? -eq 0 ]
check "job 601: mybench ran through its shim" grep -qx \
  "$B/benchprof-shims-601/mybench" "$TMP/j601.out"
check "job 601: its shims removed at its end" [ ! -e "$B/benchprof-shims-601" ]

job 602 'mybench run >/dev/null; false' >"$TMP/j602.out" 2>&1
check "job 602 fails" [ $? -ne 0 ]
check "job 602 (failed): its shims stay until a later job" \
  [ -f "$B/benchprof-shims-602/.job" ]

# a job still running on this host (its shell: a live process)
sleep 300 &
live=$!
at_exit "kill $live 2>/dev/null"
shims "$B/benchprof-shims-700" "$live" "$(uname -n)"
# another host's (a container's): changed now, and two days ago
shims "$B/benchprof-shims-800" 1 other-host
shims "$B/benchprof-shims-801" 1 other-host
find "$B/benchprof-shims-801" -exec touch -d '2 days ago' {} +
# a job that ended, but someone put a file of their own in its directory
dead=$(sh -c 'echo $$')
shims "$B/benchprof-shims-900" "$dead" "$(uname -n)"
echo "mine" >"$B/benchprof-shims-900/notes.txt"

job 603 'mybench run >/dev/null' >"$TMP/j603.out" 2>&1
check "job 603: exit 0" [ $? -eq 0 ]
check "job 603: its own removed at its end" [ ! -e "$B/benchprof-shims-603" ]
check "job 603: the failed job 602's removed" [ ! -e "$B/benchprof-shims-602" ]
check "job 603: the running job's kept" [ -x "$B/benchprof-shims-700/mybench" ]
check "job 603: another host's changed today kept" \
  [ -x "$B/benchprof-shims-800/mybench" ]
check "job 603: another host's unchanged for two days removed" \
  [ ! -e "$B/benchprof-shims-801" ]
check "job 603: a directory with a file not benchprof's kept" \
  [ -f "$B/benchprof-shims-900/notes.txt" ]
check "job 603: the job's project directory untouched" [ -d "$CI_PROJECT_DIR" ]

# the running job ends: the next job removes its shims
kill "$live"
wait "$live" 2>/dev/null
job 604 'true' >"$TMP/j604.out" 2>&1
check "job 604: the ended job 700's removed" [ ! -e "$B/benchprof-shims-700" ]
check "job 604: its own removed at its end" [ ! -e "$B/benchprof-shims-604" ]
finish
