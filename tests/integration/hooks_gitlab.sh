#!/bin/sh
# The GitLab Runner snippets in a simulated merge request pipeline: the
# job's shell is what GitLab Runner writes, pre_build_script sourced, then
# the job's script, then post_build_script, all under `set -e`, with the
# CI_* variables of a merge request.  The sourced snippet exports
# BENCHPROF_OUTPUT and puts the shim of the wrapped command first on PATH,
# so the job's unchanged "mybench run" is profiled and published; the
# report that failed waits in the spool until post_build_script flushes it;
# the note is not posted without a token and says where it stays.  A
# disabled runner leaves the job's output as it is; an invalid strict
# configuration ends the job in pre_build_script.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"
. "$top_srcdir/tests/hooks_lib.sh"

standin bencher
make_mybench
runner_config "$TMP/runner.json"
hook_env
BENCHPROF_CONFIG="$TMP/runner.json"
GITLAB_CI=true CI_MERGE_REQUEST_IID=9 CI_MERGE_REQUEST_SOURCE_BRANCH_NAME=fix/y
CI_MERGE_REQUEST_SOURCE_BRANCH_SHA=$HEAD_SHA
CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main
CI_MERGE_REQUEST_DIFF_BASE_SHA=$BASE_SHA CI_COMMIT_SHA=$MERGE_SHA
CI_COMMIT_REF_NAME=fix/y CI_PROJECT_NAME=widget CI_PROJECT_ID=77
CI_API_V4_URL="http://127.0.0.1:9/api/v4" CI_JOB_ID=501
CI_BUILDS_DIR="$TMP/builds" CI_PROJECT_DIR="$TMP/builds/widget"
export BENCHPROF_CONFIG GITLAB_CI CI_MERGE_REQUEST_IID \
  CI_MERGE_REQUEST_SOURCE_BRANCH_NAME CI_MERGE_REQUEST_SOURCE_BRANCH_SHA \
  CI_MERGE_REQUEST_TARGET_BRANCH_NAME CI_MERGE_REQUEST_DIFF_BASE_SHA \
  CI_COMMIT_SHA CI_COMMIT_REF_NAME CI_PROJECT_NAME CI_PROJECT_ID \
  CI_API_V4_URL CI_JOB_ID CI_BUILDS_DIR CI_PROJECT_DIR
mkdir -p "$CI_PROJECT_DIR"
PATH="$PATH:$TMP/tools"

# job SCRIPT: the job's shell: pre_build_script, SCRIPT, post_build_script
job() {
  (cd "$CI_PROJECT_DIR" && sh -e -c "
. '$HOOKS/gitlab/pre_build_script.sh'
$1
sh '$HOOKS/gitlab/post_build_script.sh'")
}

control '{"faults": "500,500", "fault_path": "/v0/run"}'
job 'echo "PATH first: ${PATH%%:*}"
echo "output: $BENCHPROF_OUTPUT"
mybench run
mybench --version' >"$TMP/job1.out" 2>"$TMP/job1.err"
check "merge request job: exit 0" [ $? -eq 0 ]
if [ "$(id -u)" = 0 ]; then paranoid_line="running as root: user and kernel"
else paranoid_line="perf_event_paranoid="; fi
check "pre_build_script: the machine check" grep -q \
  "$paranoid_line" "$TMP/job1.out"
check "pre_build_script: the shims first on the job's PATH" grep -qx \
  "PATH first: $TMP/builds/benchprof-shims-501" "$TMP/job1.out"
check "pre_build_script: BENCHPROF_OUTPUT exported, absolute" grep -qx \
  "output: $CI_PROJECT_DIR/benchprof-out" "$TMP/job1.out"
check "the script's benchmark output passes through" grep -q \
  "mybench/sort" "$TMP/job1.out"
check "mybench without 'run' is not wrapped" grep -qx "mybench 1.0" \
  "$TMP/job1.out"
check "the benchmark was profiled" \
  [ -s "$CI_PROJECT_DIR/benchprof-out/profile.json.gz" ]
check "post_build_script: the spool was flushed" spool_empty
check "the report reached Bencher with the merge request's identity" \
  python3 - "$TMP" "$HEAD_SHA" "$BASE_SHA" <<'PY'
import json, sys
tmp, head, base = sys.argv[1:]
log = [e for e in json.load(open(tmp + "/bencher.log"))
       if e.get("path") == "/v0/run"]
ok = [e for e in log if e["status"] == 201 and e["valid"]]
assert len(ok) == 1 and len(log) == 3, log  # two 500s, then delivered
b = ok[0]["body"]
assert b["branch"] == "fix/y" and b["hash"] == head, b
assert b["start_point"]["branch"] == "main", b
assert b["start_point"]["hash"] == base, b
assert b["project"] == "widget" and b["testbed"] == "bench-box", b
PY
check "the store holds the artifacts" store_ok "$TMP/store"
# run wrote the merge request's note (no base in the store yet); without a
# token post_build_script says where it stays
md="$CI_PROJECT_DIR/benchprof-out/compare/comment.md"
check "run wrote the note" grep -q "benchprof:comment widget/bench-box" "$md"
check "no token: post_build_script says the note stays in the file" \
  grep -q "stays in $md" "$TMP/job1.err"

# a job whose script ran no benchmark under benchprof: no note to post
rm -rf "$CI_PROJECT_DIR/benchprof-out/compare"
(cd "$CI_PROJECT_DIR" && sh "$HOOKS/gitlab/post_build_script.sh") \
  >"$TMP/post2.out" 2>&1
check "no note: post_build_script exits 0" [ $? -eq 0 ]
check "no note: says so" grep -q "was not written" "$TMP/post2.out"

# a disabled runner: the job's output is its own
runner_config "$TMP/off.json" false
rm -rf "$CI_PROJECT_DIR/benchprof-out"
BENCHPROF_CONFIG="$TMP/off.json" job 'mybench run' >"$TMP/job3.out" \
  2>"$TMP/job3.err"
check "disabled: exit 0" [ $? -eq 0 ]
"$TMP/tools/mybench" run >"$TMP/direct.out" 2>"$TMP/direct.err"
check "disabled: the benchmark's output is byte-identical" sh -c \
  "grep -v '^benchprof: ' '$TMP/job3.out' | cmp -s - '$TMP/direct.out'"
check "disabled: no output directory" [ ! -e "$CI_PROJECT_DIR/benchprof-out" ]

# an invalid configuration, strict: the job ends in pre_build_script
echo '{"enabled": true, "outptu": "x"}' >"$TMP/bad.json"
BENCHPROF_CONFIG="$TMP/bad.json" BENCHPROF_STRICT=1 job \
  'touch "$CI_BUILDS_DIR/script-ran"' >"$TMP/job4.out" 2>&1
check "invalid and strict: the job fails" [ $? -ne 0 ]
check "invalid and strict: its script never ran" \
  [ ! -e "$CI_BUILDS_DIR/script-ran" ]
BENCHPROF_CONFIG="$TMP/bad.json" job 'mybench run' >"$TMP/job5.out" 2>&1
check "invalid: the job runs, unprofiled, with a warning" sh -c \
  "grep -q 'configuration is invalid' '$TMP/job5.out' &&
   grep -q mybench/sort '$TMP/job5.out' &&
   [ ! -e '$CI_PROJECT_DIR/benchprof-out' ]"
check "no token in any output, spool or store" no_token "$TMP"/*.out \
  "$TMP"/*.err "$TMP/spool" "$TMP/store"
finish
