# Helpers for the hooks_*.sh tests; sourced after tests/lib.sh and
# tests/publish_lib.sh.  $TMP/bin holds benchprof and benchprof-wrap as a
# runner machine has them on its PATH.
HOOKS="$top_srcdir/runner-hooks"
mkdir -p "$TMP/bin"
ln -s "$BENCHPROF" "$TMP/bin/benchprof"
ln -s "$HOOKS/benchprof-wrap" "$TMP/bin/benchprof-wrap"
PATH="$TMP/bin:$PATH"
export PATH
unset BENCHPROF_CONFIG BENCHPROF_ENABLED BENCHPROF_STRICT BENCHPROF_OUTPUT \
  BENCHPROF_WRAP_COMMANDS BENCHPROF_RUN_ARGS BENCHPROF_SPOOL GITHUB_ACTIONS \
  GITLAB_CI BENCHER_PROJECT BENCHER_BRANCH BENCHER_HASH BENCHER_TESTBED \
  GITHUB_TOKEN GITLAB_TOKEN CI_JOB_TOKEN GITHUB_RUN_ID GITHUB_RUN_ATTEMPT \
  GITHUB_JOB RUNNER_NAME CI_JOB_ID
HEAD_SHA=1111111111111111111111111111111111111111
BASE_SHA=2222222222222222222222222222222222222222
MERGE_SHA=3333333333333333333333333333333333333333
# the heads of the pull requests of the tests with several
SHA7=7777777777777777777777777777777777777777
SHA8=8888888888888888888888888888888888888888
SHA9=9999999999999999999999999999999999999999

# a runner's configuration: on, a file store, the stand-in as Bencher
runner_config() {
  cat >"$1" <<JSON
{"enabled": ${2:-true}, "spool": "$TMP/spool",
 "store": {"url": "file://$TMP/store"},
 "bencher": {"host": "$BENCHER_URL", "project": "widget",
             "testbed": "bench-box"},
 "network": {"retries": 0, "timeout": 5},
 "comment": {"token_env": "BENCHPROF_GITHUB_TOKEN"}}
JSON
}

# the benchmark of the runner operator's jobs: "mybench run" runs a real
# workload and prints its BMF; anything else is not a benchmark
make_mybench() {
  mkdir -p "$TMP/tools"
  {
    echo '#!/bin/sh'
    echo 'if [ "$1" = run ]; then'
    echo "  \"$WORKLOADS/split\" 0.1 >/dev/null"
    echo "  echo '{\"mybench/sort\": {\"latency\": {\"value\": 42}}}'"
    echo '  exit 0'
    echo 'fi'
    echo 'echo "mybench 1.0"'
  } >"$TMP/tools/mybench"
  chmod +x "$TMP/tools/mybench"
}

# start_forges: the GitHub and GitLab stand-ins, in $TMP/gh and $TMP/gl,
# for the tokens GH_TOKEN_VALUE and GL_TOKEN_VALUE (GitHub with no seeded
# comments); GH_API and GL_API their API URLs.  Not in a subshell: the
# servers' pids go into PIDS, which publish_lib.sh's exit stops.
start_forges() {
  mkdir -p "$TMP/gh" "$TMP/gl"
  python3 "$SERVERS/github_standin.py" "$TMP/gh" "$GH_TOKEN_VALUE" 0 \
    2>"$TMP/gh/server.err" &
  PIDS="$PIDS $!"
  python3 "$SERVERS/gitlab_standin.py" "$TMP/gl" "$GL_TOKEN_VALUE" \
    2>"$TMP/gl/server.err" &
  PIDS="$PIDS $!"
  GH_API="http://127.0.0.1:$(wait_port "$TMP/gh/port")"
  GL_API="http://127.0.0.1:$(wait_port "$TMP/gl/port")/api/v4"
}

# hook_shell: how the runner runs a hook (GitHub: bash -e, else sh -e)
hook_shell() {
  if command -v bash >/dev/null 2>&1; then echo "bash -e"; else echo "sh -e"; fi
}
# SH: the hooks' shell, $SH "$HOOKS/..." running a hook
SH=$(hook_shell)

# hook_env: the runner's own environment (its .env) as the jobs of
# make_mybench's operator see it: "mybench run" wrapped, its output read
# as BMF JSON, the Bencher stand-in's token, and where GH_TOKEN_VALUE is
# set, the GitHub token the configurations' comment.token_env names
hook_env() {
  BENCHPROF_WRAP_COMMANDS="mybench:run"
  BENCHPROF_RUN_ARGS="--adapter json"
  BENCHER_API_TOKEN=$TOKEN
  export BENCHPROF_WRAP_COMMANDS BENCHPROF_RUN_ARGS BENCHER_API_TOKEN
  if [ -n "${GH_TOKEN_VALUE:-}" ]; then
    BENCHPROF_GITHUB_TOKEN=$GH_TOKEN_VALUE
    export BENCHPROF_GITHUB_TOKEN
  fi
}

# reports [LOG]: the valid /v0/run requests the stand-in answered 201
reports() {
  python3 - "${1:-$TMP/bencher.log}" <<'PY'
import json, sys
log = [e for e in json.load(open(sys.argv[1])) if e.get("path") == "/v0/run"]
print(len([e for e in log if e.get("status") == 201 and e.get("valid")]))
PY
}

# spool_empty: nothing waits in the spool
spool_empty() {
  [ -z "$(ls -A "$TMP/spool" 2>/dev/null | grep -v '^\.')" ]
}

# ------------------------------------------- a GitHub Actions job emulated
# As the runner drives the hooks: job-started and job-completed see the
# job's variables; a later step also sees what job-started wrote to
# $GITHUB_ENV and $GITHUB_PATH.  Set GH_API (the stand-in's URL) first.

# gh_event FILE NUMBER HEAD_SHA [HEAD_REF [HEAD_REPO]]: a pull_request
# payload into org/demo's main (BASE_SHA); HEAD_REF defaults to
# feature/NUMBER, HEAD_REPO to org/demo
gh_event() {
  from=${5:-org/demo}
  ref=${4:-feature/$2}
  cat >"$1" <<JSON
{"pull_request": {"number": $2,
  "head": {"ref": "$ref", "sha": "$3", "label": "${from%%/*}:$ref",
           "repo": {"full_name": "$from",
                    "owner": {"login": "${from%%/*}"}}},
  "base": {"ref": "main", "sha": "$BASE_SHA",
           "repo": {"full_name": "org/demo", "owner": {"login": "org"}}}}}
JSON
}

# gh_files NAME: job NAME's workspace, temporary directory and (empty)
# environment files
gh_files() {
  GITHUB_WORKSPACE="$TMP/ws-$1" RUNNER_TEMP="$TMP/temp-$1"
  GITHUB_ENV="$TMP/env-$1" GITHUB_PATH="$TMP/path-$1"
  export GITHUB_WORKSPACE RUNNER_TEMP GITHUB_ENV GITHUB_PATH
  mkdir -p "$GITHUB_WORKSPACE" "$RUNNER_TEMP"
  : >"$GITHUB_ENV"
  : >"$GITHUB_PATH"
}

# gh_job_env NAME [EVENT]: the variables of a GitHub Actions job of
# org/demo with the runner configuration $TMP/github.json: a pull request
# with EVENT (gh_event's), else a push to main; its files as they are
# (another job's hooks may have run in between)
gh_job_env() {
  BENCHPROF_CONFIG="$TMP/github.json"
  GITHUB_ACTIONS=true GITHUB_REPOSITORY=org/demo GITHUB_API_URL=$GH_API
  if [ -n "${2:-}" ]; then
    GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH=$2
    GITHUB_SHA=$MERGE_SHA GITHUB_REF_NAME=merge
  else
    GITHUB_EVENT_NAME=push GITHUB_EVENT_PATH=
    GITHUB_SHA=$BASE_SHA GITHUB_REF_NAME=main
  fi
  GITHUB_WORKSPACE="$TMP/ws-$1" RUNNER_TEMP="$TMP/temp-$1"
  GITHUB_ENV="$TMP/env-$1" GITHUB_PATH="$TMP/path-$1"
  export BENCHPROF_CONFIG GITHUB_ACTIONS GITHUB_REPOSITORY GITHUB_API_URL \
    GITHUB_EVENT_NAME GITHUB_EVENT_PATH GITHUB_SHA GITHUB_REF_NAME \
    GITHUB_WORKSPACE RUNNER_TEMP GITHUB_ENV GITHUB_PATH
}

# temp_hash NAME: what names job NAME's runner in its job=ID directory
# without RUNNER_NAME (gh_job_env sets none): the first 8 hex digits of
# the SHA-256 of its RUNNER_TEMP's path
temp_hash() {
  python3 -c 'import hashlib, sys
print(hashlib.sha256(sys.argv[1].encode()).hexdigest()[:8])' \
    "$TMP/temp-$1"
}

# gh_job NAME [EVENT]: gh_job_env's job, starting: its files new
gh_job() {
  gh_job_env "$@"
  gh_files "$1"
}

# gh_step CMD...: a later step of the job, as the runner starts it: the
# variables of $GITHUB_ENV set, each $GITHUB_PATH line put first on PATH
# (the tools of make_mybench last)
gh_step() {
  (
    while IFS= read -r line; do
      case $line in *=*) export "${line?}" ;; esac
    done <"$GITHUB_ENV"
    while IFS= read -r dir; do PATH="$dir:$PATH"; done <"$GITHUB_PATH"
    PATH="$PATH:$TMP/tools"
    export PATH
    cd "$GITHUB_WORKSPACE" && "$@"
  )
}

# ---------------------------------------------- a GitLab CI job emulated
# gl_job NAME IID SHA BRANCH [SOURCE_PROJECT_ID SOURCE_PATH]: a merge
# request pipeline's variables (GitLab project 77, org/demo, at GL_API)
# with the runner configuration $TMP/gitlab.json; job id NAME
gl_job() {
  BENCHPROF_CONFIG="$TMP/gitlab.json"
  GITLAB_CI=true CI_MERGE_REQUEST_IID=$2
  CI_MERGE_REQUEST_SOURCE_BRANCH_NAME=$4
  CI_MERGE_REQUEST_SOURCE_BRANCH_SHA=$3
  CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main
  CI_MERGE_REQUEST_DIFF_BASE_SHA=$BASE_SHA CI_COMMIT_SHA=$3
  CI_COMMIT_REF_NAME=$4 CI_PROJECT_NAME=demo CI_PROJECT_ID=77
  CI_MERGE_REQUEST_PROJECT_ID=77
  CI_MERGE_REQUEST_SOURCE_PROJECT_ID=${5:-77}
  CI_MERGE_REQUEST_SOURCE_PROJECT_PATH=${6:-org/demo}
  CI_API_V4_URL=$GL_API CI_JOB_ID=$1
  CI_BUILDS_DIR="$TMP/builds" CI_PROJECT_DIR="$TMP/builds/$1"
  export BENCHPROF_CONFIG GITLAB_CI CI_MERGE_REQUEST_IID \
    CI_MERGE_REQUEST_SOURCE_BRANCH_NAME CI_MERGE_REQUEST_SOURCE_BRANCH_SHA \
    CI_MERGE_REQUEST_TARGET_BRANCH_NAME CI_MERGE_REQUEST_DIFF_BASE_SHA \
    CI_COMMIT_SHA CI_COMMIT_REF_NAME CI_PROJECT_NAME CI_PROJECT_ID \
    CI_MERGE_REQUEST_PROJECT_ID CI_MERGE_REQUEST_SOURCE_PROJECT_ID \
    CI_MERGE_REQUEST_SOURCE_PROJECT_PATH CI_API_V4_URL CI_JOB_ID \
    CI_BUILDS_DIR CI_PROJECT_DIR
  mkdir -p "$CI_PROJECT_DIR"
}

# gl_mr_unset: the merge request's variables unset (a branch pipeline)
gl_mr_unset() {
  unset CI_MERGE_REQUEST_IID CI_MERGE_REQUEST_SOURCE_BRANCH_NAME \
    CI_MERGE_REQUEST_SOURCE_BRANCH_SHA CI_MERGE_REQUEST_TARGET_BRANCH_NAME \
    CI_MERGE_REQUEST_DIFF_BASE_SHA CI_MERGE_REQUEST_PROJECT_ID \
    CI_MERGE_REQUEST_SOURCE_PROJECT_ID CI_MERGE_REQUEST_SOURCE_PROJECT_PATH
}

# gl_run SCRIPT: the job's one shell, as GitLab Runner writes it:
# pre_build_script (sourced), SCRIPT, post_build_script
gl_run() {
  mkdir -p "$CI_PROJECT_DIR"
  (cd "$CI_PROJECT_DIR" && PATH="$PATH:$TMP/tools" sh -e -c "
. '$HOOKS/gitlab/pre_build_script.sh'
$1
sh '$HOOKS/gitlab/post_build_script.sh'")
}

# check_interrupted LABEL GOT MARK STATUS ERR: a benchmark stopped by a
# signal sent to its wrapper (benchprof-wrap, the Bencher entrypoint):
# its trap ran for GOT and it did not finish (MARK, the file bench.sh
# writes), the wrapper exited after it with its status 9 (STATUS), the
# run in $TMP/out is recorded as interrupted, the wrapper said it was not
# published (ERR), and nothing reached $TMP/store
check_interrupted() {
  check "$1: the benchmark got $2 (its trap ran)" grep -qx "got $2" "$3"
  check "$1: the benchmark did not run on to its end" sh -c \
    "! grep -q finished '$3'"
  check "$1: the wrapper exits after it, with its status (9, was $4)" \
    [ "$4" -eq 9 ]
  check "$1: the run is interrupted in manifest.json" grep -q \
    '"outcome":[[:space:]]*"interrupted"' "$TMP/out/manifest.json"
  check "$1: it says it was not published" grep -q \
    "interrupted.*not published" "$5"
  check "$1: nothing in the store" sh -c \
    "[ -z \"\$(find '$TMP/store' -type f | sed -n 1p)\" ]"
}

# make_signal_bench: $TMP/bench.sh, the benchmark the signal tests run
# under benchprof-wrap or the Bencher entrypoint: writes its BMF (to
# $FILE when set, else stdout), says it started (with its pid) in $MARK;
# TERM, HUP or INT: "got SIG" there and exit 9; left alone it runs
# $ROUNDS rounds of 0.2 s (default 100: 20 s) and says it finished
make_signal_bench() {
  cat >"$TMP/bench.sh" <<'SH'
#!/bin/sh
trap 'echo "got TERM" >>"$MARK"; exit 9' TERM
trap 'echo "got HUP" >>"$MARK"; exit 9' HUP
trap 'echo "got INT" >>"$MARK"; exit 9' INT
bmf='{"b": {"latency": {"value": 1}}}'
if [ -n "${FILE:-}" ]; then echo "$bmf" >"$FILE"; else echo "$bmf"; fi
echo "started $$" >>"$MARK"
i=0
while [ $i -lt "${ROUNDS:-100}" ]; do sleep 0.2; i=$((i + 1)); done
echo finished >>"$MARK"
SH
  chmod +x "$TMP/bench.sh"
}

# session_left SID [SECONDS]: the processes of session SID (a job
# started with setsid) still alive after waiting up to SECONDS (default
# 0) for them to end, one pid a line; zombies (dead, waiting for whoever
# adopted them to reap them) are not
session_left() {
  python3 - "$1" "${2:-0}" <<'PY'
import os, sys, time

def alive(sid):
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/stat" % pid) as f:
                stat = f.read()
        except OSError:
            continue   # gone meanwhile
        # after "pid (comm) ": state, ppid, pgrp, session
        fields = stat[stat.rindex(")") + 2:].split()
        if fields[0] != "Z" and fields[3] == sid:
            pids.append(pid)
    return pids

deadline = time.monotonic() + float(sys.argv[2])
while alive(sys.argv[1]) and time.monotonic() < deadline:
    time.sleep(0.05)
print("\n".join(alive(sys.argv[1])))
PY
}

# session_ends SID: no process of session SID is left within 20 seconds
# of wall time (the benchmark stopping, benchprof writing the interrupted
# run's artifacts: a bound for a loaded runner, not a speed)
session_ends() {
  [ -z "$(session_left "$1" 20)" ]
}

# session_kill SID: what is left of session SID killed (after a failed
# check, so that no test leaves a process behind)
session_kill() {
  for session_kill_pid in $(session_left "$1"); do
    kill -KILL "$session_kill_pid" 2>/dev/null
  done
}

# dies_soon PID: PID is gone within 5 seconds
dies_soon() {
  dies_soon_n=0  # sh has no locals: a name no caller uses
  while kill -0 "$1" 2>/dev/null; do
    [ $dies_soon_n -ge 500 ] && return 1
    sleep 0.01
    dies_soon_n=$((dies_soon_n + 1))
  done
}
