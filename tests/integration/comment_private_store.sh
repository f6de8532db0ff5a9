#!/bin/sh
# A store a browser cannot read: an http store that takes a bearer token
# (tests/servers/put_server.py --token) with no public URL, and an s3://
# store without one.
#   - `config check` warns (exit 0), naming the store key and the key to
#     set (store.public_url); with a public URL it says nothing of it;
#   - a pull request's run published there writes a comment with no link
#     into the store (which would answer 401 to a browser): it says why,
#     once for the whole comment (no benchmark repeats "No viewer links"),
#     names the differential flame graph's key and the key to set;
#   - with --public-url the same flow links the store's URLs again.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"
. "$top_srcdir/tests/publish_lib.sh"

need python3 "apt-get install python3"
outside_ci
make_harness
unset BENCHER_API_TOKEN BENCHPROF_PUBLIC_URL BENCHPROF_STORE
STORE_TOKEN="store-tok-$$-secret"
export BENCHPROF_STORE_TOKEN="$STORE_TOKEN"
python3 "$SERVERS/put_server.py" --root "$TMP/root" \
  --port-file "$TMP/put.port" --token "$STORE_TOKEN" >"$TMP/put.log" \
  2>"$TMP/put.err" &
PIDS="$PIDS $!"
port=$(wait_port "$TMP/put.port")
[ -n "$port" ] || { fail "the store stand-in did not start"; finish; }
URL="http://127.0.0.1:$port/runs"

# config check: the private store without and with a public URL
printf '{"enabled": true, "store": {"url": "%s"}}\n' "$URL" >"$TMP/priv.json"
"$BENCHPROF" config check --config "$TMP/priv.json" >"$TMP/cc1.out" \
  2>"$TMP/cc1.err"
check "config check, private http store: valid (exit 0)" [ $? -eq 0 ]
check "config check, private http store: warns, naming both keys" grep -q \
  "^benchprof: warning: .*\$.store.url: $URL needs credentials to read and no public URL is set: .*set store.public_url" \
  "$TMP/cc1.err"
printf '{"enabled": true, "store": {"url": "%s", "public_url": "%s"}}\n' \
  "$URL" "https://profiles.example.com/runs" >"$TMP/pub.json"
"$BENCHPROF" config check --config "$TMP/pub.json" >"$TMP/cc2.out" \
  2>"$TMP/cc2.err"
check "config check, with a public URL: valid, no warning" sh -c \
  "[ $? -eq 0 ] && ! grep -q 'public URL is set' '$TMP/cc2.err'"
printf '{"enabled": true, "store": {"url": "s3://bkt/runs", "s3": {"endpoint": "http://127.0.0.1:9", "region": "us-east-1"}}}\n' \
  >"$TMP/s3.json"
AWS_ACCESS_KEY_ID=AKIDEXAMPLE AWS_SECRET_ACCESS_KEY=secretexample \
  "$BENCHPROF" config check --config "$TMP/s3.json" >"$TMP/cc3.out" \
  2>"$TMP/cc3.err"
check "config check, s3 store: valid (exit 0)" [ $? -eq 0 ]
check "config check, s3 store: warns, naming store.public_url" grep -q \
  "^benchprof: warning: .*\$.store.url: s3://bkt/runs needs credentials to read and no public URL is set: .*store.public_url" \
  "$TMP/cc3.err"
check "no secret in config check's output" sh -c \
  "! grep -q -e secretexample -e '$STORE_TOKEN' '$TMP'/cc*"

BASE=1111111111111111111111111111111111111111
HEAD1=2222222222222222222222222222222222222222
HEAD2=3333333333333333333333333333333333333333
common="--project demo --testbed box --store $URL --spool $TMP/spool
  --retries 0 --timeout 5 --bmf $TMP/h.json"
# run NAME ARGS...: benchprof run of the harness into $TMP/NAME
run() {
  name=$1
  shift
  # shellcheck disable=SC2086
  "$BENCHPROF" run -o "$TMP/$name" $common "$@" -- "$TMP/harness.sh" \
    "$TMP/h.json" >"$TMP/$name.out" 2>"$TMP/$name.err"
  # shellcheck disable=SC2034 # read by expect_status (record_lib.sh)
  status=$?
}
run base --branch main --hash "$BASE"
expect_status base 0
run head1 --branch feature/x --hash "$HEAD1" --base-branch main \
  --base-hash "$BASE"
expect_status head1 0
md1="$TMP/head1/compare/comment.md"
check "private store: the comment was written" [ -s "$md1" ]
check "private store: the diff was stored (the server holds it)" sh -c \
  "find '$TMP/root' -name diff.svg | grep -q ."
# a link target (markdown's](URL), or the profiler's from-url/ encoding)
check "private store: no link into the store" sh -c \
  "! grep -qF -e '](http://127.0.0.1:$port' -e '127.0.0.1%3A$port' '$md1'"
check "private store: the comment says why and what to set" grep -qF \
  "needs credentials to read, and no public URL is set" "$md1"
# said once for the whole comment, not again under each benchmark
check "private store: said once" [ "$(grep -c 'needs credentials' "$md1")" -eq 1 ]
check "private store: no per-benchmark 'No viewer links' line" sh -c \
  "! grep -q 'No viewer links' '$md1'"
# shellcheck disable=SC2016 # the backquotes are the comment's own
check "private store: it names store.public_url" grep -qF \
  '`store.public_url`' "$md1"
# shellcheck disable=SC2016 # the backquotes are the comment's own
check "private store: the differential flame graph's key is named" grep -q \
  'is in the store, at `demo/feature%2Fx/.*diff.svg`' "$md1"

# a public URL (here the same server, as a proxy in front of it would
# be): the comment links into it again, and says nothing of credentials
run head2 --branch feature/x --hash "$HEAD2" --base-branch main \
  --base-hash "$BASE" --public-url "$URL"
expect_status head2 0
md2="$TMP/head2/compare/comment.md"
check "public URL: the comment links into the store" grep -qF \
  "127.0.0.1:$port/runs/" "$md2"
check "public URL: no credentials note" \
  sh -c "! grep -q 'needs credentials' '$md2'"
check "no token in any output" sh -c \
  "! grep -rqF '$STORE_TOKEN' '$TMP'/*.out '$TMP'/*.err '$TMP/head1' '$TMP/head2'"
finish
