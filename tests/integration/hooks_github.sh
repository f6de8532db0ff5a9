#!/bin/sh
# The GitHub Actions runner hooks in a simulated pull request job: the
# runner's .env names the hooks, a configuration with profiling on, the
# default variables, an event payload and the environment files
# ($GITHUB_ENV, $GITHUB_PATH, $GITHUB_STEP_SUMMARY) in $TMP.
# job-started checks the machine and hands the later steps BENCHPROF_OUTPUT
# and a PATH with benchprof-wrap and the shim of the wrapped command; a
# step `benchprof-wrap harness` and a step `mybench run` (wrapped by its
# shim) are profiled, their exit status passed through, their artifacts
# stored; Bencher refuses the second report, so it waits in the spool
# until job-completed flushes it; job-completed posts the comment on the
# pull request (a GitHub API stand-in).  Then: a pull request job with no
# comment file, a disabled runner (no trace in the job), an invalid
# configuration (warning; strict: the job fails).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"
. "$top_srcdir/tests/hooks_lib.sh"

standin bencher
make_harness
make_mybench
GH_TOKEN_VALUE="ghs_hooks_token_5e1d"
mkdir -p "$TMP/gh"
python3 "$SERVERS/github_standin.py" "$TMP/gh" "$GH_TOKEN_VALUE" 3 \
  2>"$TMP/gh/server.err" &
PIDS="$PIDS $!"
GH_API="http://127.0.0.1:$(wait_port "$TMP/gh/port")"
runner_config "$TMP/runner.json"
cat >"$TMP/event.json" <<JSON
{"pull_request": {"number": 5,
  "head": {"ref": "feature/x", "sha": "$HEAD_SHA"},
  "base": {"ref": "main", "sha": "$BASE_SHA"}}}
JSON

# the runner's own environment (its .env) and a job's default variables
BENCHPROF_CONFIG="$TMP/runner.json"
BENCHPROF_WRAP_COMMANDS="mybench:run"
BENCHPROF_GITHUB_TOKEN=$GH_TOKEN_VALUE
BENCHER_API_TOKEN=$TOKEN
export BENCHPROF_CONFIG BENCHPROF_WRAP_COMMANDS BENCHPROF_GITHUB_TOKEN \
  BENCHER_API_TOKEN
job_env() {
  GITHUB_ACTIONS=true GITHUB_EVENT_NAME=pull_request
  GITHUB_EVENT_PATH="$TMP/event.json" GITHUB_REPOSITORY=own/repo
  GITHUB_API_URL=$GH_API GITHUB_SHA=$MERGE_SHA GITHUB_REF_NAME=5/merge
  GITHUB_HEAD_REF=feature/x GITHUB_BASE_REF=main
  GITHUB_STEP_SUMMARY="$TMP/summary-$1"
  export GITHUB_ACTIONS GITHUB_EVENT_NAME GITHUB_EVENT_PATH GITHUB_REPOSITORY \
    GITHUB_API_URL GITHUB_SHA GITHUB_REF_NAME GITHUB_HEAD_REF GITHUB_BASE_REF \
    GITHUB_STEP_SUMMARY
  gh_files "$1"
}

# ---- job 1: a pull request job
job_env 1
$SH "$HOOKS/github/job-started.sh" >"$TMP/started1.out" 2>&1
check "started: exit 0" [ $? -eq 0 ]
if [ "$(id -u)" = 0 ]; then paranoid_line="running as root: user and kernel"
else paranoid_line="perf_event_paranoid="; fi
check "started: the machine check" grep -q "$paranoid_line" \
  "$TMP/started1.out"
check "started: the sample rate limit" grep -q \
  "perf_event_max_sample_rate=" "$TMP/started1.out"
check "started: the PMU or the software fallback" grep -Eq \
  "hardware PMU|software clock" "$TMP/started1.out"
check "started: BENCHPROF_OUTPUT in \$GITHUB_ENV, absolute" grep -qx \
  "BENCHPROF_OUTPUT=$TMP/ws-1/benchprof-out" "$TMP/env-1"
check "started: BENCHPROF_CONFIG in \$GITHUB_ENV" grep -qx \
  "BENCHPROF_CONFIG=$TMP/runner.json" "$TMP/env-1"
check "started: benchprof-wrap's directory in \$GITHUB_PATH" grep -qx \
  "$TMP/bin" "$TMP/path-1"
check "started: the shim directory in \$GITHUB_PATH" grep -qx \
  "$TMP/temp-1/benchprof-shims" "$TMP/path-1"
check "started: a shim for mybench" [ -x "$TMP/temp-1/benchprof-shims/mybench" ]

# step 1: benchprof-wrap in the step; the harness fails with 3 (a failed
# run is published only with --allow-failure, which the runner gives here)
BENCHPROF_RUN_ARGS="--bmf $TMP/h.json --allow-failure" gh_step benchprof-wrap \
  "$TMP/harness.sh" "$TMP/h.json" 3 >"$TMP/step1.out" 2>"$TMP/step1.err"
check "step 1: the command's exit status (3)" [ $? -eq 3 ]
check "step 1: artifacts in BENCHPROF_OUTPUT" \
  [ -s "$TMP/ws-1/benchprof-out/profile.json.gz" ]
check "step 1: one report reached Bencher" [ "$(reports)" = 1 ]
check "step 1: the pull request's identity" python3 - "$TMP" "$HEAD_SHA" \
  "$BASE_SHA" <<'PY'
import json, sys
tmp, head, base = sys.argv[1:]
log = [e for e in json.load(open(tmp + "/bencher.log"))
       if e.get("path") == "/v0/run"]
b = log[0]["body"]
assert b["project"] == "widget" and b["testbed"] == "bench-box", b
assert b["branch"] == "feature/x" and b["hash"] == head, b
assert b["start_point"]["branch"] == "main", b
assert b["start_point"]["hash"] == base, b
PY

# step 2: "mybench run" goes through the shim; Bencher fails twice (the
# run's attempt, benchprof-wrap's flush), so the report is spooled
control '{"faults": "500,500", "fault_path": "/v0/run"}'
BENCHPROF_RUN_ARGS="--adapter json" gh_step mybench run >"$TMP/step2.out" \
  2>"$TMP/step2.err"
check "step 2: exit 0" [ $? -eq 0 ]
check "step 2: the benchmark's stdout passes through" grep -q \
  "mybench/sort" "$TMP/step2.out"
check "step 2: the shim ran it under benchprof" python3 - \
  "$TMP/ws-1/benchprof-out/manifest.json" "$TMP/tools/mybench" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert m["command"].startswith(sys.argv[2] + " run"), m["command"]
assert [b["name"] for b in m["benchmarks"]] == ["mybench/sort"], m
PY
check "step 2: the publication waits in the spool" sh -c \
  "ls '$TMP/spool' | grep -q ."
gh_step mybench --version >"$TMP/step3.out" 2>"$TMP/step3.err"
check "step 3: mybench without 'run' is not wrapped" sh -c \
  "grep -q 'mybench 1.0' '$TMP/step3.out' && [ ! -s '$TMP/step3.err' ]"

# benchprof run wrote the pull request's comment (no base stored yet)
md="$TMP/ws-1/benchprof-out/compare/comment.md"
check "run wrote the comment" grep -q "benchprof:comment widget/bench-box" \
  "$md"

# job-completed: a fresh $GITHUB_ENV (the hook does not see the job's)
: >"$GITHUB_ENV"
$SH "$HOOKS/github/job-completed.sh" >"$TMP/completed1.out" 2>&1
check "completed: exit 0" [ $? -eq 0 ]
check "completed: the spool was flushed" spool_empty
check "completed: Bencher now has both reports" [ "$(reports)" = 2 ]
check "completed: the comment was posted on pull request 5" python3 - \
  "$TMP/gh" <<'PY'
import json, os, sys
d = sys.argv[1]
reqs = [json.loads(l) for l in open(os.path.join(d, "requests.log"))]
posts = [r for r in reqs if r["method"] == "POST"]
assert len(posts) == 1, reqs
assert posts[0]["path"] == "/repos/own/repo/issues/5/comments", posts
state = json.load(open(os.path.join(d, "state.json")))
assert any("benchprof:comment widget/bench-box" in c["body"]
           for c in state), state
PY
check "the store holds the job's artifacts" store_ok "$TMP/store"

# ---- job 2: a pull request job whose steps ran nothing under benchprof
job_env 2
$SH "$HOOKS/github/job-started.sh" >/dev/null 2>&1
$SH "$HOOKS/github/job-completed.sh" >"$TMP/completed2.out" 2>&1
check "no comment file: exit 0" [ $? -eq 0 ]
check "no comment file: a note says so" grep -q "was not written" \
  "$TMP/completed2.out"
check "no comment file: because no benchmark ran under benchprof" grep -q \
  "no benchmark ran under benchprof" "$TMP/completed2.out"

# ---- job 2b: the benchmark ran under benchprof and failed: a failed run
# is not compared, and the completed hook says that, not "no benchmark"
job_env 2b
$SH "$HOOKS/github/job-started.sh" >/dev/null 2>&1
BENCHPROF_RUN_ARGS="--bmf $TMP/h2b.json" gh_step benchprof-wrap \
  "$TMP/harness.sh" "$TMP/h2b.json" 3 >/dev/null 2>"$TMP/step2b.err"
check "failed run: the command's exit status (3)" [ $? -eq 3 ]
: >"$GITHUB_ENV"
$SH "$HOOKS/github/job-completed.sh" >"$TMP/completed2b.out" 2>&1
check "failed run: completed exits 0" [ $? -eq 0 ]
check "failed run: the reason is the failure" grep -q \
  "was not written (the benchmark ran under benchprof and failed (exit status 3)" \
  "$TMP/completed2b.out"
check "failed run: not called a job where no benchmark ran" sh -c \
  "! grep -q 'no benchmark ran' '$TMP/completed2b.out'"
# a later job in the same workspace (an absolute "output" is shared the
# same way) that runs nothing: the failed run is not its own
job_env 2b
$SH "$HOOKS/github/job-started.sh" >/dev/null 2>&1
$SH "$HOOKS/github/job-completed.sh" >"$TMP/completed2c.out" 2>&1
check "next job: the previous job's run is not its reason" grep -q \
  "no benchmark ran under benchprof" "$TMP/completed2c.out"
# results that could not be read: nothing to compare, and said so
job_env 2d
$SH "$HOOKS/github/job-started.sh" >/dev/null 2>&1
BENCHPROF_RUN_ARGS="--adapter json" gh_step benchprof-wrap sh -c \
  'echo not-bmf' >/dev/null 2>&1
: >"$GITHUB_ENV"
$SH "$HOOKS/github/job-completed.sh" >"$TMP/completed2d.out" 2>&1
check "unreadable results: the reason says so" grep -q \
  "results could not be read" "$TMP/completed2d.out"
# a harness that exits 0 without writing its --bmf file: it ran under
# benchprof (profiled), which is not "no benchmark ran"; a step with a
# suite, and one without
for suite in "" nb; do
  job_env "2e$suite"
  $SH "$HOOKS/github/job-started.sh" >/dev/null 2>&1
  BENCHPROF_SUITE=$suite BENCHPROF_RUN_ARGS="--bmf $TMP/never.json" \
    gh_step benchprof-wrap sh -c 'exit 0' >/dev/null 2>"$TMP/step2e$suite.err"
  check "no results written${suite:+ (suite $suite)}: exit 0, profiled" \
    sh -c "[ $? -eq 0 ] && grep -q 'the harness wrote no results' \
             '$TMP/step2e$suite.err'"
  : >"$GITHUB_ENV"
  $SH "$HOOKS/github/job-completed.sh" >"$TMP/completed2e$suite.out" 2>&1
  check "no results written${suite:+ (suite $suite)}: the reason says so" \
    grep -q "the benchmark ran under benchprof, but its harness wrote no results" \
    "$TMP/completed2e$suite.out"
  check "no results written${suite:+ (suite $suite)}: not 'no benchmark ran'" \
    sh -c "! grep -q 'no benchmark ran' '$TMP/completed2e$suite.out'"
done
# the next job in that workspace runs nothing: the last job's profiles
# (kept in its output directory) are not this job's
job_env 2e
$SH "$HOOKS/github/job-started.sh" >/dev/null 2>&1
$SH "$HOOKS/github/job-completed.sh" >"$TMP/completed2f.out" 2>&1
check "next job: the last job's profiles are not its reason" grep -q \
  "no benchmark ran under benchprof" "$TMP/completed2f.out"

# ---- job 3: the runner's configuration says "enabled": false
runner_config "$TMP/off.json" false
job_env 3
BENCHPROF_CONFIG="$TMP/off.json" $SH "$HOOKS/github/job-started.sh" \
  >"$TMP/started3.out" 2>&1
check "disabled: started exits 0" [ $? -eq 0 ]
check "disabled: says profiling is off" grep -q "profiling is off" \
  "$TMP/started3.out"
check "disabled: nothing for the job's steps" sh -c \
  "[ ! -s '$TMP/env-3' ] && [ ! -s '$TMP/path-3' ]"
"$TMP/harness.sh" "$TMP/h3d.json" 4 >"$TMP/direct.out" 2>"$TMP/direct.err"
BENCHPROF_CONFIG="$TMP/off.json" gh_step benchprof-wrap "$TMP/harness.sh" \
  "$TMP/h3.json" 4 >"$TMP/step31.out" 2>"$TMP/step31.err"
check "disabled: benchprof-wrap passes the status through" [ $? -eq 4 ]
check "disabled: byte-identical output" sh -c "cmp -s '$TMP/direct.out' \
'$TMP/step31.out' && cmp -s '$TMP/direct.err' '$TMP/step31.err'"
check "disabled: no output directory" [ ! -e "$TMP/ws-3/benchprof-out" ]
BENCHPROF_CONFIG="$TMP/off.json" $SH "$HOOKS/github/job-completed.sh" \
  >"$TMP/completed3.out" 2>&1
check "disabled: completed exits 0" [ $? -eq 0 ]

# ---- job 4: an invalid configuration
echo '{"enabled": true, "record": {"frequncy": 99}}' >"$TMP/bad.json"
job_env 4
BENCHPROF_CONFIG="$TMP/bad.json" $SH "$HOOKS/github/job-started.sh" \
  >"$TMP/started4.out" 2>&1
check "invalid: started exits 0" [ $? -eq 0 ]
check "invalid: a ::warning:: for the job's log" grep -q "^::warning::" \
  "$TMP/started4.out"
BENCHPROF_CONFIG="$TMP/bad.json" gh_step benchprof-wrap "$TMP/harness.sh" \
  "$TMP/h4.json" 0 >/dev/null 2>"$TMP/step41.err"
check "invalid: the step runs unprofiled, with the warning" sh -c \
  "grep -q 'frequncy' '$TMP/step41.err' && [ ! -e '$TMP/ws-4/benchprof-out' ]"
BENCHPROF_STRICT=1 BENCHPROF_CONFIG="$TMP/bad.json" \
  $SH "$HOOKS/github/job-started.sh" >"$TMP/started5.out" 2>&1
check "invalid and strict: started fails the job" [ $? -ne 0 ]
check "invalid and strict: an ::error::" grep -q "^::error::" \
  "$TMP/started5.out"

# ---- job 5: benchprof-wrap missing on the runner: the job still runs
job_env 5
BENCHPROF_WRAP="$TMP/nonexistent/benchprof-wrap" \
  $SH "$HOOKS/github/job-started.sh" >"$TMP/started6.out" 2>&1
check "wrapper missing: started exits 0 with a warning" sh -c \
  "[ $? -eq 0 ] && grep -q '^::warning::' '$TMP/started6.out' &&
   [ ! -s '$TMP/env-5' ]"

check "no token in any output, spool or store" no_token "$TMP"/*.out \
  "$TMP"/*.err "$TMP/spool" "$TMP/store" "$TMP/ws-1"
check "the GitHub token in no output" sh -c \
  "! grep -rqF '$GH_TOKEN_VALUE' '$TMP'/*.out '$TMP'/*.err"
finish
