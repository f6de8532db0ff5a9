#!/bin/sh
# Two jobs at once on one runner host, sharing the runner example's
# absolute "output" (GitLab's concurrent > 1, two GitHub runners with one
# configuration), through the real hooks and the GitHub and GitLab
# stand-ins:
#   - interleaved: A started, A's step, B started, B's step, A completed,
#     B completed; each job writes into its own OUTPUT/job=ID (GitHub:
#     run, attempt, job and runner name; GitLab: CI_JOB_ID), B's started
#     hook leaves A's comparison alone, and each posts one comment, on its
#     own pull request, with its own numbers;
#   - GitLab: two job shells alive at once (pre_build_script, script,
#     then post_build_script after the other job's script ran), each note
#     with its own numbers;
#   - a started hook prunes other jobs' job=* directories where nothing
#     changed for two days, never one touched within the day (nor one
#     whose top is old but a file in it is new), nor a job= link's target;
#   - a matrix's two jobs (one run, one job id) on two runners get two
#     directories, told apart by RUNNER_NAME, else by RUNNER_TEMP; a
#     relative "output" and a shell outside CI get none.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"
. "$top_srcdir/tests/hooks_lib.sh"

standin bencher
GH_TOKEN_VALUE="ghs_concurrent_token_3b8e"
GL_TOKEN_VALUE="glpat-concurrent-token-7d20"
mkdir -p "$TMP/tools"
start_forges
OUT=$TMP/shared/out

# the benchmark: a real workload, and its latency from MYBENCH_LATENCY,
# so that each job's comment carries its own number
cat >"$TMP/tools/mybench" <<SH
#!/bin/sh
[ "\$1" = run ] || { echo "mybench 1.0"; exit 0; }
"$WORKLOADS/split" 0.1 >/dev/null
echo "{\"mybench/sort\": {\"latency\": {\"value\": \$MYBENCH_LATENCY}}}"
SH
chmod +x "$TMP/tools/mybench"

# concurrent_config FILE [MORE]: the runner's configuration, its output
# directory absolute
concurrent_config() {
  cat >"$1" <<JSON
{"enabled": true, "output": "$OUT", "spool": "$TMP/spool",
 "store": {"url": "file://$TMP/store"},
 "bencher": {"host": "$BENCHER_URL", "project": "demo",
             "testbed": "bench-box"},
 "network": {"retries": 0, "timeout": 5}${2:-}}
JSON
}
concurrent_config "$TMP/github.json" \
  ', "comment": {"token_env": "BENCHPROF_GITHUB_TOKEN"}'
concurrent_config "$TMP/gitlab.json"
hook_env

# in_job NAME RUN EVENT LATENCY CMD...: CMD in GitHub job NAME (run RUN
# of the workflow's job "bench", on runner NAME), its files as they are,
# the benchmark measuring LATENCY
in_job() {
  (
    gh_job_env "$1" "$3"
    GITHUB_RUN_ID=$2 GITHUB_RUN_ATTEMPT=1 GITHUB_JOB=bench
    RUNNER_NAME=runner-$1 MYBENCH_LATENCY=$4
    export GITHUB_RUN_ID GITHUB_RUN_ATTEMPT GITHUB_JOB RUNNER_NAME \
      MYBENCH_LATENCY
    shift 4
    "$@"
  )
}
started() { $SH "$HOOKS/github/job-started.sh"; }
completed() { $SH "$HOOKS/github/job-completed.sh"; }

# comment_on DIR ISSUE: the bodies of the comments (notes) on ISSUE
comment_on() {
  python3 - "$1" "$2" <<'PY'
import json, os, sys
state = json.load(open(os.path.join(sys.argv[1], "state.json")))
for c in state:
    if c.get("issue", c.get("mr")) == int(sys.argv[2]):
        sys.stdout.write(c["body"])
PY
}

# age PATH WHEN: PATH's times set to WHEN (touch -d)
age() {
  touch -d "$2" "$1"
}

# ---------------------------------------------------------------- GitHub
# main's run first: the base both pull requests compare with
(gh_job main)
in_job main 700 "" 1000 started >"$TMP/main.out" 2>&1
in_job main 700 "" 1000 gh_step mybench run >>"$TMP/main.out" 2>&1
in_job main 700 "" 1000 completed >>"$TMP/main.out" 2>&1
JOB_MAIN=$OUT/job=github-700-1-bench-runner-main
check "main: its run in its own job directory" \
  [ -s "$JOB_MAIN/manifest.json" ]
check "main: nothing in the shared directory itself" \
  [ ! -e "$OUT/manifest.json" ]
check "main: BENCHPROF_OUTPUT is the job's directory" grep -qx \
  "BENCHPROF_OUTPUT=$JOB_MAIN" "$TMP/env-main"

# what jobs that ended long ago, or not, left
mkdir -p "$OUT/job=crashed/compare" "$OUT/job=yesterday" \
  "$OUT/job=still-writing" "$TMP/elsewhere"
echo old >"$OUT/job=crashed/compare/comment.md"
age "$OUT/job=crashed/compare/comment.md" '2 days ago'
age "$OUT/job=crashed/compare" '2 days ago'
age "$OUT/job=crashed" '2 days ago'
age "$OUT/job=yesterday" '20 hours ago'
echo new >"$OUT/job=still-writing/manifest.json"
age "$OUT/job=still-writing" '3 days ago'
age "$TMP/elsewhere" '3 days ago'
ln -s "$TMP/elsewhere" "$OUT/job=link"
age "$JOB_MAIN" '2 days ago'
find "$JOB_MAIN" -exec touch -d '2 days ago' {} +

gh_event "$TMP/event7.json" 7 $SHA7
gh_event "$TMP/event8.json" 8 $SHA8
(gh_job a "$TMP/event7.json")
(gh_job b "$TMP/event8.json")
JOB_A=$OUT/job=github-701-1-bench-runner-a
JOB_B=$OUT/job=github-702-1-bench-runner-b
in_job a 701 "$TMP/event7.json" 1500 started >"$TMP/a.out" 2>&1
check "A started: exit 0" [ $? -eq 0 ]
check "A started: the two-day-old job directory pruned" \
  [ ! -e "$OUT/job=crashed" ]
check "A started: so is main's, untouched for two days" [ ! -e "$JOB_MAIN" ]
in_job a 701 "$TMP/event7.json" 1500 gh_step mybench run \
  >"$TMP/a-step.out" 2>"$TMP/a-step.err"
check "A's step: exit 0" [ $? -eq 0 ]
check "A's step: compared in A's directory" \
  [ -s "$JOB_A/compare/comment.md" ]
in_job b 702 "$TMP/event8.json" 2500 started >"$TMP/b.out" 2>&1
check "B started: exit 0" [ $? -eq 0 ]
check "B started: A's comparison still there" \
  [ -s "$JOB_A/compare/comment.md" ]
check "B started: A's run still there" [ -s "$JOB_A/manifest.json" ]
check "B started: a directory touched within the day kept" \
  [ -d "$OUT/job=yesterday" ]
check "B started: one with a file written within the day kept" \
  [ -s "$OUT/job=still-writing/manifest.json" ]
check "B started: a job= link left, and what it names" sh -c \
  '[ -L "$1/job=link" ] && [ -d "$2" ]' sh "$OUT" "$TMP/elsewhere"
check "B started: its own directory made" [ -d "$JOB_B" ]
in_job b 702 "$TMP/event8.json" 2500 gh_step mybench run \
  >"$TMP/b-step.out" 2>"$TMP/b-step.err"
check "B's step: exit 0" [ $? -eq 0 ]
check "B's step: compared in B's directory" \
  [ -s "$JOB_B/compare/comment.md" ]
in_job a 701 "$TMP/event7.json" 1500 completed >>"$TMP/a.out" 2>&1
check "A completed: exit 0" [ $? -eq 0 ]
in_job b 702 "$TMP/event8.json" 2500 completed >>"$TMP/b.out" 2>&1
check "B completed: exit 0" [ $? -eq 0 ]
comment_on "$TMP/gh" 7 >"$TMP/on7.md"
comment_on "$TMP/gh" 8 >"$TMP/on8.md"
check "pull request 7: one comment" [ \
  "$(grep -c '^<!-- benchprof:comment' "$TMP/on7.md")" = 1 ]
check "pull request 8: one comment" [ \
  "$(grep -c '^<!-- benchprof:comment' "$TMP/on8.md")" = 1 ]
# mine LATENCY THEIRS FILE: FILE compares a head of LATENCY with main's
# 1000 (its change in the comment), not THEIRS
mine() {
  grep -qF "latency +$1%" "$3" && ! grep -qF "latency +$2%" "$3"
}
check "pull request 7: A's numbers, not B's" mine 50.00 150.00 "$TMP/on7.md"
check "pull request 8: B's numbers, not A's" mine 150.00 50.00 "$TMP/on8.md"
# posted: the job's comment.md as it is, then its verdict line
posted_is() {   # posted_is FILE POSTED [FILE2 POSTED2]
  sed '$d' "$2" | cmp -s "$1" - &&
    tail -n 1 "$2" | grep -q '^<!-- benchprof:verdict head=[0-9a-f]* ' &&
    { [ $# -lt 4 ] || posted_is "$3" "$4"; }
}
check "each comment is its job's comment.md" posted_is \
  "$JOB_A/compare/comment.md" \
  "$TMP/on7.md" "$JOB_B/compare/comment.md" "$TMP/on8.md"

# the job directory's name: run, attempt, job and runner; none outside
# a CI job, nor for a relative output
(gh_job m1)
check "a matrix's two jobs on two runners: the first one's directory" [ \
  "$(in_job m1 900 "" 1 benchprof-wrap --output)" = \
  "$OUT/job=github-900-1-bench-runner-m1" ]
check "a matrix's two jobs on two runners: the second one's, another" [ \
  "$(in_job m2 900 "" 1 benchprof-wrap --output)" = \
  "$OUT/job=github-900-1-bench-runner-m2" ]
# without RUNNER_NAME (GitHub sets it; a runner that does not), the
# runner is told by its RUNNER_TEMP (gh_job's $TMP/temp-NAME)
unnamed() { (unset RUNNER_NAME; "$@"); }
JOB_U1=$OUT/job=github-900-1-bench-temp-$(temp_hash m1)
JOB_U2=$OUT/job=github-900-1-bench-temp-$(temp_hash m2)
check "no RUNNER_NAME: two runners' RUNNER_TEMP, two names" \
  [ "$JOB_U1" != "$JOB_U2" ]
check "no RUNNER_NAME: the matrix's first job, its runner's directory" [ \
  "$(in_job m1 900 "" 1 unnamed benchprof-wrap --output)" = "$JOB_U1" ]
check "no RUNNER_NAME: the second job, its own runner's directory" [ \
  "$(in_job m2 900 "" 1 unnamed benchprof-wrap --output)" = "$JOB_U2" ]
in_job m1 900 "" 1 unnamed started >"$TMP/m1.out" 2>&1
check "no RUNNER_NAME: the started hook names the same directory" grep -qx \
  "BENCHPROF_OUTPUT=$JOB_U1" "$TMP/env-m1"
check "no RUNNER_NAME: the started hook made it" [ -d "$JOB_U1" ]
check "--output outside a CI job: the shared directory itself" [ \
  "$(BENCHPROF_CONFIG="$TMP/github.json" benchprof-wrap --output)" = \
  "$OUT" ]
check "--output with BENCHPROF_OUTPUT already the job's directory" [ \
  "$(in_job a 701 "" 1 env BENCHPROF_OUTPUT="$JOB_A" benchprof-wrap \
     --output)" = "$JOB_A" ]
# a BENCHPROF_OUTPUT ending in a slash names the same job directory:
# --new-job still prunes the other jobs' stale ones
mkdir -p "$OUT/job=stale"
age "$OUT/job=stale" '2 days ago'
check "--new-job with BENCHPROF_OUTPUT=job=ID/: exit 0" \
  in_job a 701 "" 1 env BENCHPROF_OUTPUT="$JOB_A//" benchprof-wrap --new-job
check "--new-job with BENCHPROF_OUTPUT=job=ID/: a stale job's directory pruned" \
  [ ! -e "$OUT/job=stale" ]
check "--new-job with BENCHPROF_OUTPUT=job=ID/: its own directory kept" \
  [ -d "$JOB_A" ]
cat >"$TMP/relative.json" <<JSON
{"enabled": true, "output": "bench-out"}
JSON
check "--output, relative: the job's own work tree, as it was" [ \
  "$(in_job a 701 "" 1 env BENCHPROF_CONFIG="$TMP/relative.json" \
     benchprof-wrap --output)" = bench-out ]

# ---------------------------------------------------------------- GitLab
unset GITHUB_ACTIONS GITHUB_EVENT_PATH GITHUB_EVENT_NAME GITHUB_SHA \
  GITHUB_REF_NAME GITHUB_REPOSITORY GITHUB_API_URL GITHUB_WORKSPACE \
  GITHUB_ENV GITHUB_PATH RUNNER_TEMP
GITLAB_TOKEN=$GL_TOKEN_VALUE
export GITLAB_TOKEN
NOTES=/api/v4/projects/77/merge_requests
# main's pipeline for the base commit (GitLab's project is its own
# repository: its own base)
(gl_job 300 "" $BASE_SHA main
 gl_mr_unset
 MYBENCH_LATENCY=1000
 export MYBENCH_LATENCY
 gl_run 'mybench run') >"$TMP/gl-main.out" 2>&1
check "GitLab main: exit 0" [ $? -eq 0 ]
check "GitLab main: its run in job=gitlab-300" \
  [ -s "$OUT/job=gitlab-300/manifest.json" ]

# gl_held NAME LATENCY: the job's shell in the background, stopped after
# its script (NAME.ran) until NAME.go is written; its pid in $HELD
gl_held() {
  mkfifo "$TMP/$1.go"
  (MYBENCH_LATENCY=$2
   export MYBENCH_LATENCY
   gl_run "mybench run
echo ran >'$TMP/$1.ran'
read go <'$TMP/$1.go'") >"$TMP/$1.out" 2>&1 &
  HELD=$!
  PIDS="$PIDS $HELD"
}
# release NAME PID: the held job's post_build_script runs; its status
release() {
  timeout 60 sh -c 'echo go >"$1"' sh "$TMP/$1.go" || return 1
  wait "$2"
}

gl_job 301 21 $SHA7 feature/seven
gl_held gla 1700
PID_A=$HELD
check "GitLab A: its script ran" wait_line "$TMP/gla.ran" ran 120
gl_job 302 22 $SHA8 feature/eight
gl_held glb 2700
PID_B=$HELD
check "GitLab B: its script ran" wait_line "$TMP/glb.ran" ran 120
check "GitLab: A's comparison kept while B ran" \
  [ -s "$OUT/job=gitlab-301/compare/comment.md" ]
release gla $PID_A
check "GitLab A completed: exit 0" [ $? -eq 0 ]
release glb $PID_B
check "GitLab B completed: exit 0" [ $? -eq 0 ]
comment_on "$TMP/gl" 21 >"$TMP/on21.md"
comment_on "$TMP/gl" 22 >"$TMP/on22.md"
check "merge request 21: one note" [ \
  "$(grep -c '^<!-- benchprof:comment' "$TMP/on21.md")" = 1 ]
check "merge request 22: one note" [ \
  "$(grep -c '^<!-- benchprof:comment' "$TMP/on22.md")" = 1 ]
check "merge request 21: A's numbers" mine 70.00 170.00 "$TMP/on21.md"
check "merge request 22: B's numbers" mine 170.00 70.00 "$TMP/on22.md"
check "GitLab: each job's BENCHPROF_OUTPUT was its own directory" sh -c \
  'grep -q "artifacts in $1/job=gitlab-301\$" "$2" &&
   grep -q "artifacts in $1/job=gitlab-302\$" "$3"' sh "$OUT" \
  "$TMP/gla.out" "$TMP/glb.out"

check "no token in any output" sh -c "! grep -rqF -e '$GH_TOKEN_VALUE' \
  -e '$GL_TOKEN_VALUE' '$TMP'/*.out '$TMP'/*.err '$OUT' '$TMP/store' \
  '$TMP/spool'"
finish
