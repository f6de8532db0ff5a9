#!/bin/sh
# A GitLab runner whose store is S3 (s3rver behind the SigV4-checking
# proxy), through pre_build_script / script / post_build_script with the
# GitLab and Bencher stand-ins:
#   - main's pipeline publishes to S3; a merge request's job reads its
#     base from there and posts its note; the job run again edits that
#     note (one note);
#   - a job whose AWS secret S3 refuses: the benchmark's status is its
#     own, its run waits in the spool, the note stays as it was, and the
#     hook's reason names the AWS variables to check (an s3:// store has
#     no token) in GitLab's words, never a secret; the next job delivers
#     the spool.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"
. "$top_srcdir/tests/hooks_lib.sh"
command -v s3rver >/dev/null ||
  { echo "SKIP: s3rver is not installed (npm install -g s3rver)"; exit 77; }

standin bencher
make_mybench
GH_TOKEN_VALUE="ghs_s3_token_5a0e"
GL_TOKEN_VALUE="glpat-s3-token-61b7"
start_forges
start_s3
cat >"$TMP/gitlab.json" <<JSON
{"enabled": true, "output": "$TMP/out", "spool": "$TMP/spool",
 "store": {"url": "s3://bkt/pre",
           "s3": {"endpoint": "http://127.0.0.1:$pport",
                  "region": "us-east-1", "path_style": true}},
 "bencher": {"host": "$BENCHER_URL", "project": "demo",
             "testbed": "bench-box"},
 "network": {"retries": 0, "timeout": 5}}
JSON
hook_env
GITLAB_TOKEN=$GL_TOKEN_VALUE
export GITLAB_TOKEN
NOTES=/api/v4/projects/77/merge_requests/11/notes
touch "$TMP/gl/requests.log"

# requests METHOD PATH: how many requests of the stand-in matched, answered
requests() {
  python3 - "$TMP/gl/requests.log" "$1" "$2" <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
print(len([r for r in reqs if r["method"] == sys.argv[2] and
           r["path"].startswith(sys.argv[3]) and 0 < r["status"] < 300]))
PY
}
# spooled: how many publications wait in the spool
spooled() {
  find "$TMP/spool" -mindepth 1 -maxdepth 1 ! -name '.*' 2>/dev/null |
    grep -c .
}

gl_job 200 "" "$BASE_SHA" main
gl_mr_unset
gl_run 'mybench run' >"$TMP/main.out" 2>&1
check "main: exit 0" [ $? -eq 0 ]
check "main: its run is in S3" grep -q "$BASE_SHA" \
  "$TMP/s3/bkt/pre/demo/main/latest/bench-box.json._S3rver_object"

gl_job 201 11 "$SHA7" feature/seven
gl_run 'mybench run' >"$TMP/mr.out" 2>&1
check "merge request 11: exit 0" [ $? -eq 0 ]
check "merge request 11: compared with main's run, read from S3" python3 - \
  "$TMP/out/job=gitlab-201/compare/compare.json" "$BASE_SHA" "$SHA7" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
assert c["base"]["hash"] == sys.argv[2], c["base"]
assert c["head"]["hash"] == sys.argv[3], c["head"]
PY
check "merge request 11: its note posted" [ "$(requests POST $NOTES)" = 1 ]

gl_job 202 11 "$SHA7" feature/seven
gl_run 'mybench run' >"$TMP/again.out" 2>&1
check "merge request 11 again: exit 0" [ $? -eq 0 ]
check "merge request 11 again: the note edited, not another posted" \
  sh -c "[ $(requests POST $NOTES) = 1 ] && [ $(requests PUT $NOTES/) = 1 ]"
cp "$TMP/gl/state.json" "$TMP/notes-before.json"

gl_job 203 11 "$SHA7" feature/seven
AWS_SECRET_ACCESS_KEY=not-the-s3-secret-77 gl_run 'mybench run' \
  >"$TMP/refused.out" 2>&1
check "S3 refuses the secret: exit 0" [ $? -eq 0 ]
check "S3 refuses the secret: the run waits in the spool" [ "$(spooled)" -ge 1 ]
check "S3 refuses the secret: the note is as it was" \
  cmp -s "$TMP/notes-before.json" "$TMP/gl/state.json"
# shellcheck disable=SC2016 # the variables' names, as the hook prints them
check "S3 refuses the secret: the hook names the AWS variables" grep -qF \
  'no comment: '"$TMP"'/out/job=gitlab-203/compare/comment.md was not written (the base could not be read: the store (http://127.0.0.1:'"$pport"') refused the credentials (HTTP 403): check the store'"'"'s AWS credentials ($AWS_ACCESS_KEY_ID, $AWS_SECRET_ACCESS_KEY, $AWS_SESSION_TOKEN);' \
  "$TMP/refused.out"
check "S3 refuses the secret: in GitLab's words (the merge request's note)" \
  grep -q "the merge request's note was left as it was: re-run the job" \
  "$TMP/refused.out"
check "S3 refuses the secret: no store token asked for (there is none)" \
  sh -c "! grep -q \"check the store's token\" '$TMP/refused.out'"
check "S3 refuses the secret: no secret in any output" sh -c \
  "! grep -rqF -e not-the-s3-secret -e '$SECRET' -e '$GL_TOKEN_VALUE' \
     -e '$TOKEN' '$TMP'/*.out '$TMP/out'"

gl_job 204 11 "$SHA7" feature/seven
gl_run 'echo no benchmark in this job' >"$TMP/later.out" 2>&1
check "the next job: exit 0, the spool delivered to S3" \
  sh -c "[ $? -eq 0 ] && [ $(spooled) -eq 0 ]"
finish
