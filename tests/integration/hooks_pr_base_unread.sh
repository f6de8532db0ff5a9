#!/bin/sh
# A pull request job whose base cannot be read is not a pull request
# without a base.  Through the GitHub runner hooks, with an http(s) store
# (the put_server stand-in, a bearer token) and the GitHub API stand-in:
#   - main publishes its run; pull request 7's job posts a good comment
#     and a commit status;
#   - the store is stopped, and pull request 7's job runs again: the
#     benchmark's output and exit status are its own, the run is spooled,
#     `run` says the base could not be read, from which store (its host)
#     and that the comment is not updated this time; no comment.md, so
#     the completed hook posts nothing, and says why; `benchprof comment
#     --ci` on the missing file posts nothing either; the good comment and
#     its status are left as they were; nothing on the forge names the
#     store or carries a transport error;
#   - `benchprof compare` with the store stopped fails, says so, and
#     removes the comment.md an earlier comparison left in its directory;
#   - the store answers again: flush delivers the spooled run, and a new
#     job comments as before;
#   - the store answers 503 to every request (after the retries): the
#     same as unreachable;
#   - the store refuses the token (401 on a GET): said as refused
#     credentials, naming $BENCHPROF_STORE_TOKEN, not as "no base";
#   - a base branch that has no run at all (404) still gets the no-base
#     comment, and it names no store URL.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"
. "$top_srcdir/tests/hooks_lib.sh"

standin bencher
make_mybench
GH_TOKEN_VALUE="ghs_unread_token_4f1a"
STORE_TOKEN_VALUE="store-token-unread-9c3e"
mkdir -p "$TMP/gh" "$TMP/put-root"
python3 "$SERVERS/github_standin.py" "$TMP/gh" "$GH_TOKEN_VALUE" 0 \
  2>"$TMP/gh/server.err" &
PIDS="$PIDS $!"
GH_API="http://127.0.0.1:$(wait_port "$TMP/gh/port")"
touch "$TMP/gh/requests.log"

# start_store [PORT] [ARGS...]: the http store on PORT (0: a free one);
# its pid in $STORE_PID, its port in $SPORT
start_store() {
  rm -f "$TMP/put.port"
  p=${1:-0}
  shift
  python3 "$SERVERS/put_server.py" --root "$TMP/put-root" \
    --port-file "$TMP/put.port" --port "$p" --token "$STORE_TOKEN_VALUE" \
    "$@" >>"$TMP/put.log" 2>&1 &
  STORE_PID=$!
  PIDS="$PIDS $STORE_PID"
  SPORT=$(wait_port "$TMP/put.port")
  [ -n "$SPORT" ] || { echo "FAIL: the store did not start"; \
                       cat "$TMP/put.log"; exit 1; }
}
stop_store() {
  kill "$STORE_PID" 2>/dev/null
  wait "$STORE_PID" 2>/dev/null
}
start_store 0
STORE_URL="http://127.0.0.1:$SPORT/bp"

cat >"$TMP/github.json" <<JSON
{"enabled": true, "output": "$TMP/out", "spool": "$TMP/spool",
 "store": {"url": "$STORE_URL"},
 "bencher": {"host": "$BENCHER_URL", "project": "demo",
             "testbed": "bench-box"},
 "network": {"retries": 1, "timeout": 5},
 "comment": {"token_env": "BENCHPROF_GITHUB_TOKEN"}}
JSON
hook_env
BENCHPROF_STORE_TOKEN=$STORE_TOKEN_VALUE
export BENCHPROF_STORE_TOKEN

# pr_event FILE NUMBER HEAD_SHA HEAD_REF: gh_event's payload, and the
# stand-in knows the head
pr_event() {
  gh_event "$@"
  printf '{"%s": "%s"}\n' "$2" "$3" >"$TMP/gh/pulls.json"
}

# posted METHOD PATH_PREFIX: how many requests of the stand-in matched
posted() {
  python3 - "$TMP/gh/requests.log" "$1" "$2" <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
print(len([r for r in reqs if r["method"] == sys.argv[2] and
           r["path"].startswith(sys.argv[3]) and 0 < r["status"] < 300]))
PY
}
# forge_state: what the stand-in holds (comments, statuses)
forge_state() {
  cat "$TMP/gh/state.json"
}

# job: the whole job (started hook, the step, completed hook); N names
# its files: $TMP/N.step.out, .step.err, .step.rc, .hooks
job() {
  $SH "$HOOKS/github/job-started.sh" >"$TMP/$1.hooks" 2>&1
  gh_step mybench run >"$TMP/$1.step.out" 2>"$TMP/$1.step.err"
  echo $? >"$TMP/$1.step.rc"
  $SH "$HOOKS/github/job-completed.sh" >>"$TMP/$1.hooks" 2>&1
}
spooled() {
  ls "$TMP/spool" 2>/dev/null | grep -v '^\.' | grep -c .
}

# ------------------------------------------------ main, and a good comment
gh_job push
job main
check "main: published to the http store" \
  [ -s "$TMP/put-root/bp/demo/main/latest/bench-box.json" ]

pr_event "$TMP/event7.json" 7 $SHA7 feature/seven
gh_job pr7 "$TMP/event7.json"
job pr7
check "pull request 7: a comparison with main" \
  grep -q 'Comparing' "$TMP/out/compare/comment.md"
check "pull request 7: its comment posted once" \
  [ "$(posted POST /repos/org/demo/issues/7/comments)" = 1 ]
check "pull request 7: a commit status set" \
  [ "$(posted POST /repos/org/demo/statuses/$SHA7)" = 1 ]
forge_state >"$TMP/forge-good.json"
cp "$TMP/out/compare/comment.md" "$TMP/compare-good.md"
patched=$(posted PATCH /repos/org/demo/issues/comments/)

# ------------------------------------- the store stopped: the job again
stop_store
gh_job pr7b "$TMP/event7.json"
job unreach
check "store stopped: the benchmark's exit status is its own" \
  [ "$(cat "$TMP/unreach.step.rc")" = 0 ]
check "store stopped: the benchmark's output is its own" \
  grep -qF '{"mybench/sort": {"latency": {"value": 42}}}' \
  "$TMP/unreach.step.out"
check "store stopped: the run is in the spool" [ "$(spooled)" -ge 1 ]
check "store stopped: run says the base could not be read, and where" \
  grep -qF "compare: the base could not be read from the store at http://127.0.0.1:$SPORT (the store is unreachable" \
  "$TMP/unreach.step.err"
check "store stopped: ... after the transport's retries" \
  grep -q "the base could not be read.*(after 2 attempts)" \
  "$TMP/unreach.step.err"
check "store stopped: ... and that the comment is not updated, and how" \
  grep -qF "no pull request comment is written or updated this time ($TMP/out/compare/no-comment.txt says why; the one posted before stays): re-run the job, or 'benchprof compare' with the same store, once the store answers" \
  "$TMP/unreach.step.err"
check "store stopped: not said as no base" \
  sh -c "! grep -q 'no base' '$TMP/unreach.step.err'"
check "store stopped: no comment.md, and why in no-comment.txt" sh -c \
  "[ ! -e '$TMP/out/compare/comment.md' ] &&
   grep -qx 'the base could not be read: the store (http://127.0.0.1:$SPORT) did not answer (store unreachable); the pull request.s comment was left as it was: re-run the job, or .benchprof compare., once the store answers' \
     '$TMP/out/compare/no-comment.txt'"
check "store stopped: the completed hook posts nothing, and says why" \
  grep -qF "benchprof: no comment: $TMP/out/compare/comment.md was not written (the base could not be read: the store (http://127.0.0.1:$SPORT) did not answer" \
  "$TMP/unreach.hooks"
(
  export BENCHPROF_CONFIG
  cd "$TMP/ws-pr7b" &&
    benchprof comment --ci --markdown "$TMP/out/compare/comment.md"
) >"$TMP/unreach.comment.out" 2>&1
check "store stopped: 'benchprof comment --ci' has nothing to post" \
  [ $? -ne 0 ]
check "store stopped: the good comment and its status are as they were" \
  cmp -s "$TMP/forge-good.json" "$TMP/gh/state.json"
check "store stopped: no new POST or PATCH on the forge" sh -c \
  "[ '$(posted POST /repos/org/demo/issues/7/comments)' = 1 ] &&
   [ '$(posted POST /repos/org/demo/statuses/)' = 1 ] &&
   [ '$(posted PATCH /repos/org/demo/issues/comments/)' = '$patched' ]"
# benchprof compare by hand, the store still stopped, into a directory an
# earlier comparison wrote: it fails, says why, and leaves no comment.md
mkdir -p "$TMP/by-hand"
cp "$TMP/compare-good.md" "$TMP/by-hand/comment.md"
benchprof compare -o "$TMP/by-hand" --store "$STORE_URL" --project demo \
  --testbed bench-box main@latest "feature%2Fseven@$SHA7" \
  >"$TMP/by-hand.out" 2>"$TMP/by-hand.err"
check "compare, store stopped: exit 1" [ $? -eq 1 ]
check "compare, store stopped: an error that says the base could not be read" \
  grep -qF "benchprof: error: compare: the base could not be read from the store at http://127.0.0.1:$SPORT (the store is unreachable" \
  "$TMP/by-hand.err"
check "compare, store stopped: the earlier comment.md is gone" sh -c \
  "[ ! -e '$TMP/by-hand/comment.md' ] && [ -s '$TMP/by-hand/no-comment.txt' ]"
check "store stopped: no token in any output" sh -c "! grep -rqF \
  -e '$GH_TOKEN_VALUE' -e '$STORE_TOKEN_VALUE' '$TMP'/*.out '$TMP'/*.err \
  '$TMP'/*.hooks '$TMP/out' '$TMP/spool'"

# ---------------------------- the store answers again: flush delivers
start_store "$SPORT"
rm -rf "$TMP/put-root/bp/demo/feature%2Fseven"
benchprof flush >"$TMP/flush.out" 2>&1
check "store back: flush succeeds" [ $? -eq 0 ]
check "store back: the spool is empty" [ "$(spooled)" = 0 ]
check "store back: flush delivered the run of pull request 7" \
  [ -s "$TMP/put-root/bp/demo/feature%2Fseven/$SHA7/bench-box/manifest.json" ]
# a new job comments as before (its comment is the same comparison, so
# the one there stays or is updated: never a no-base comment)
gh_job pr7c "$TMP/event7.json"
job back
check "store back: the job compares and comments again" sh -c \
  "grep -q 'Comparing' '$TMP/out/compare/comment.md' &&
   [ ! -e '$TMP/out/compare/no-comment.txt' ]"
check "store back: the comment on 7 is a comparison, not 'no base'" \
  python3 - "$TMP/gh/state.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
text = json.dumps(s)
assert "no base to compare with" not in text, text[:400]
assert "Comparing" in text, text[:400]
PY

# --------------------------- 503 to every request: the same as stopped
stop_store
start_store "$SPORT" --faults "$(python3 -c 'print(",".join(["503"] * 200))')"
gh_job pr7d "$TMP/event7.json"
forge_state >"$TMP/forge-before-503.json"
job busy
check "503: the benchmark's exit status and output are its own" sh -c \
  "[ \"\$(cat '$TMP/busy.step.rc')\" = 0 ] &&
   grep -qF 'mybench/sort' '$TMP/busy.step.out'"
check "503: run says the base could not be read (HTTP 503)" \
  grep -q "the base could not be read from the store at http://127.0.0.1:$SPORT (the store is unreachable.*HTTP 503" \
  "$TMP/busy.step.err"
check "503: no comment.md; no-comment.txt says HTTP 503" sh -c \
  "[ ! -e '$TMP/out/compare/comment.md' ] &&
   grep -q 'answered HTTP 503 after its retries (store unreachable)' \
     '$TMP/out/compare/no-comment.txt'"
check "503: the comment on the forge is as it was" \
  cmp -s "$TMP/forge-before-503.json" "$TMP/gh/state.json"
check "503: the run is in the spool" [ "$(spooled)" -ge 1 ]

# ------------------ the store refuses the token: credentials, not no base
stop_store
start_store "$SPORT" --get-token
BENCHPROF_STORE_TOKEN="wrong-store-token-0b8d"
gh_job pr7e "$TMP/event7.json"
forge_state >"$TMP/forge-before-401.json"
job refused
BENCHPROF_STORE_TOKEN=$STORE_TOKEN_VALUE
check "401: the benchmark's exit status is its own" \
  [ "$(cat "$TMP/refused.step.rc")" = 0 ]
check "401: run says the store refused the credentials" \
  grep -qF "compare: the base could not be read: the store at http://127.0.0.1:$SPORT refused the credentials (HTTP 401; a configuration error, not a missing base)" \
  "$TMP/refused.step.err"
check "401: ... naming the token's variable" \
  grep -qF 'compare: check the store'"'"'s token in $BENCHPROF_STORE_TOKEN: the store refused it' \
  "$TMP/refused.step.err"
check "401: not said as no base" \
  sh -c "! grep -q 'no base to compare' '$TMP/refused.step.err'"
check "401: no comment.md; the hook says the credentials were refused" \
  sh -c "[ ! -e '$TMP/out/compare/comment.md' ] &&
   grep -q 'no comment: .*not written (the base could not be read: the store (http://127.0.0.1:$SPORT) refused the credentials (HTTP 401)' \
     '$TMP/refused.hooks'"
check "401: the comment on the forge is as it was" \
  cmp -s "$TMP/forge-before-401.json" "$TMP/gh/state.json"
check "401: no token in any output" sh -c "! grep -rqF \
  -e wrong-store-token -e '$STORE_TOKEN_VALUE' '$TMP'/refused.* \
  '$TMP/out'"

# --------------- no run of the base at all (404): the no-base comment
stop_store
start_store "$SPORT"
cat >"$TMP/event9.json" <<JSON
{"pull_request": {"number": 9,
  "head": {"ref": "feature/nine", "sha": "$SHA7", "label": "org:feature/nine",
           "repo": {"full_name": "org/demo", "owner": {"login": "org"}}},
  "base": {"ref": "release", "sha": "$BASE_SHA",
           "repo": {"full_name": "org/demo", "owner": {"login": "org"}}}}}
JSON
printf '{"9": "%s"}\n' "$SHA7" >"$TMP/gh/pulls.json"
gh_job pr9 "$TMP/event9.json"
job nobase
check "404: the no-base comment is written and posted" sh -c \
  "grep -q '^### benchprof: no base to compare with' \
     '$TMP/out/compare/comment.md' &&
   [ '$(posted POST /repos/org/demo/issues/9/comments)' = 1 ] &&
   [ ! -e '$TMP/out/compare/no-comment.txt' ]"
check "404: the no-base comment names no store URL" sh -c \
  "! grep -qF '127.0.0.1:$SPORT' '$TMP/out/compare/comment.md' &&
   grep -q 'has no run on testbed .* in the store' \
     '$TMP/out/compare/comment.md'"
check "404: run still says where it looked" \
  grep -qF "in $STORE_URL" "$TMP/nobase.step.err"
finish
