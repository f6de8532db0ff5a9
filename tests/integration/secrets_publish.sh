#!/bin/sh
# No secret leaks from a full publishing run.  Every credential benchprof
# takes is in play at once, each a distinct recognisable string: the
# Bencher token (stand-in), an http:// store's BENCHPROF_STORE_TOKEN
# (put_server.py), AWS key id, secret key and session token (s3rver behind
# the SigV4-checking proxy) and GITHUB_TOKEN (github_standin.py).  Every
# command runs with -v (the request lines it prints are the likeliest
# leak).  The second run's Bencher answers 503, so its
# publication goes to the spool, and `benchprof flush -v` delivers it.
# Then every byte benchprof wrote (stdout, stderr, the run directories,
# the spool, the stores, $TMPDIR) is searched for each secret, plain and
# in base64, and none is found.  (The warning for a config file with a
# token that others may read: config_check.sh.)
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"

s3rver=$(command -v s3rver || true)
if [ -z "$s3rver" ] && command -v npm >/dev/null; then
  s3rver="$(npm root -g)/s3rver/bin/s3rver.js"
fi
if [ -z "$s3rver" ] || [ ! -e "$s3rver" ]; then
  echo "SKIP: s3rver is not installed (npm install -g s3rver)"
  exit 77
fi

HASH=0123456789abcdef0123456789abcdef01234567
STORE_TOKEN="store_tok_$$_QWxhZGRpbjpvcGVu"
AWS_KEY=S3RVER  # the one key id s3rver knows
AWS_SECRET="aws/secret+key_$$_wJalrXUtnFEMI"
AWS_SESSION="aws-session-token-$$-FwoGZXIvYXdz"
GH_TOKEN="ghs_secretsTest_$$_9f8e7d"
make_harness
mkdir -p "$TMP/tmpdir" "$TMP/state" "$TMP/data" "$TMP/cfg"
# benchprof's own temp files and defaults land under $TMP, to be searched
export TMPDIR="$TMP/tmpdir" XDG_STATE_HOME="$TMP/state" \
  XDG_DATA_HOME="$TMP/data" XDG_CONFIG_HOME="$TMP/cfg"

# --- servers
standin bencher
mkdir -p "$TMP/http-root"
python3 "$SERVERS/put_server.py" --root "$TMP/http-root" \
  --port-file "$TMP/put.port" --token "$STORE_TOKEN" >"$TMP/put.log" 2>&1 &
PIDS="$PIDS $!"
hport=$(wait_port "$TMP/put.port")
mkdir -p "$TMP/s3data"
"$s3rver" -d "$TMP/s3data" -a 127.0.0.1 -p 0 --configure-bucket bkt \
  >"$TMP/s3rver.log" 2>&1 &
PIDS="$PIDS $!"
wait_line "$TMP/s3rver.log" "listening on 127.0.0.1:[0-9]"
s3port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' \
  "$TMP/s3rver.log")
python3 "$SERVERS/s3_sigv4_proxy.py" --upstream "$s3port" \
  --port-file "$TMP/s3p.port" --key "$AWS_KEY" --secret "$AWS_SECRET" \
  >"$TMP/s3p.log" 2>&1 &
PIDS="$PIDS $!"
pport=$(wait_port "$TMP/s3p.port")
mkdir -p "$TMP/gh"
python3 "$SERVERS/github_standin.py" "$TMP/gh" "$GH_TOKEN" 3 \
  2>"$TMP/gh/server.err" &
PIDS="$PIDS $!"
i=0
while [ ! -s "$TMP/gh/port" ] && [ $i -lt 100 ]; do
  sleep 0.1
  i=$((i + 1))
done
if [ -z "$hport" ] || [ -z "$s3port" ] || [ -z "$pport" ] ||
   [ ! -s "$TMP/gh/port" ]; then
  fail "a server did not start"
  finish
fi
GH_API="http://127.0.0.1:$(cat "$TMP/gh/port")"
opts="--project demo --branch main --testbed box --hash $HASH
  --retries 1 --retry-delay 0.05 --timeout 5 --spool $TMP/spool -v"

# 1. Bencher (token) and an s3:// store (key, secret, session token)
# s3rver checks the key id only; the proxy checks the signature
# shellcheck disable=SC2086 # opts are words
BENCHER_API_TOKEN=$TOKEN BENCHER_HOST=$BENCHER_URL \
AWS_ACCESS_KEY_ID=$AWS_KEY AWS_SECRET_ACCESS_KEY=$AWS_SECRET \
AWS_SESSION_TOKEN=$AWS_SESSION \
  "$BENCHPROF" run -o "$TMP/out1" --bmf "$TMP/h.json" $opts \
  --store "s3://bkt/pre" --s3-path-style --s3-endpoint \
  "http://127.0.0.1:$pport" --s3-region us-east-1 -- \
  "$TMP/harness.sh" "$TMP/h.json" >"$TMP/run1.out" 2>"$TMP/run1.err"
check "bencher + s3: run exits 0" [ $? -eq 0 ]
check "bencher + s3: delivered" grep -q '"delivered"' "$TMP/out1/manifest.json"
check "bencher + s3: -v printed request lines" grep -q "PUT http" "$TMP/run1.err"
check "bencher + s3: the session token was sent (redacted)" \
  grep -qi "x-amz-security-token: <redacted>" "$TMP/run1.err"

# 2. an http:// store (bearer) and a Bencher that answers 503: spooled
control '{"faults": "503,503,503,503,503,503,503,503,503,503,503,503"}'
# shellcheck disable=SC2086
BENCHER_API_TOKEN=$TOKEN BENCHER_HOST=$BENCHER_URL \
BENCHPROF_STORE_TOKEN=$STORE_TOKEN \
  "$BENCHPROF" run -o "$TMP/out2" --bmf "$TMP/h.json" $opts \
  --store "http://127.0.0.1:$hport/bucket" -- \
  "$TMP/harness.sh" "$TMP/h.json" >"$TMP/run2.out" 2>"$TMP/run2.err"
check "failing Bencher: run exits 0" [ $? -eq 0 ]
check "failing Bencher: the publication is spooled" \
  [ -n "$(ls "$TMP/spool" 2>/dev/null)" ]

# 2b. servers that echo the request's headers in their error answers (a
# careless proxy's error page): the message benchprof shows and keeps
# must carry the servers' words without the credentials
python3 "$SERVERS/put_server.py" --root "$TMP/echo-root" \
  --port-file "$TMP/echo.port" --token "$STORE_TOKEN" \
  --faults "echo:400:180,echo:400:180,echo:400:180,echo:400:180" \
  >"$TMP/echo.log" 2>&1 &
PIDS="$PIDS $!"
eport=$(wait_port "$TMP/echo.port")
# shellcheck disable=SC2086
BENCHER_API_TOKEN=$TOKEN BENCHER_HOST=$BENCHER_URL \
BENCHPROF_STORE_TOKEN=$STORE_TOKEN \
  "$BENCHPROF" run -o "$TMP/out2b" --bmf "$TMP/h.json" $opts \
  --spool "$TMP/spool2b" --store "http://127.0.0.1:$eport/bucket" -- \
  "$TMP/harness.sh" "$TMP/h.json" >"$TMP/run2b.out" 2>"$TMP/run2b.err"
check "echoing store: run exits 0" [ $? -eq 0 ]
control '{"faults": "echo:403,echo:403,echo:403,echo:403"}'
# shellcheck disable=SC2086
BENCHER_API_TOKEN=$TOKEN BENCHER_HOST=$BENCHER_URL \
BENCHPROF_STORE_TOKEN=$STORE_TOKEN \
  "$BENCHPROF" run -o "$TMP/out2c" --bmf "$TMP/h.json" $opts \
  --spool "$TMP/spool2c" --store "http://127.0.0.1:$hport/bucket" -- \
  "$TMP/harness.sh" "$TMP/h.json" >"$TMP/run2c.out" 2>"$TMP/run2c.err"
check "echoing Bencher: run exits 0" [ $? -eq 0 ]
control '{"faults": ""}'
# the store's message is cut at 200 bytes inside the token (180 bytes of
# filler, "Bearer ", then the token): redacted before the cut
check "echoing servers: their words are shown, credentials redacted" sh -c \
  "grep 'xxxxxxxxxxxx' '$TMP/run2b.err' | grep -q 'Bearer <redacted>' &&
   grep 'rejected, you sent' '$TMP/run2c.err' | grep -q 'Bearer <redacted>'"

# 3. flush -v, Bencher back
control '{"faults": ""}'
BENCHER_API_TOKEN=$TOKEN BENCHER_HOST=$BENCHER_URL \
BENCHPROF_STORE_TOKEN=$STORE_TOKEN \
  "$BENCHPROF" flush -v --spool "$TMP/spool" --retries 1 \
  --retry-delay 0.05 --timeout 5 >"$TMP/flush.out" 2>"$TMP/flush.err"
check "flush exits 0" [ $? -eq 0 ]
check "flush -v printed request lines" grep -q "POST http" "$TMP/flush.err"
check "flush delivered the spooled publication" sh -c \
  "grep -q delivered '$TMP/flush.out' && [ -z \"\$(ls '$TMP/spool')\" ]"

# 4. a comment on a pull request, -v
printf '<!-- benchprof:comment demo/box -->\nbody\n' >"$TMP/c.md"
GITHUB_TOKEN=$GH_TOKEN "$BENCHPROF" comment -v --markdown "$TMP/c.md" \
  --github own/repo --pr 5 --api-url "$GH_API" >"$TMP/comment.out" \
  2>"$TMP/comment.err"
check "comment exits 0" [ $? -eq 0 ]
check "-v shows each Authorization header as <redacted>" sh -c \
  "grep -q 'Authorization: <redacted>' '$TMP/run1.err' &&
   grep -q 'Authorization: <redacted>' '$TMP/run2.err' &&
   grep -q 'Authorization: <redacted>' '$TMP/comment.err'"

# --- the search: everything benchprof wrote; the servers' own logs and
# state are theirs (they record what they were sent) and left out
check "the servers saw the credentials (the search is not vacuous)" \
  sh -c "grep -q 'delivered' '$TMP/out2/manifest.json' &&
         [ -n \"\$(ls '$TMP/http-root/bucket' 2>/dev/null)\" ] &&
         [ -n \"\$(find '$TMP/s3data/bkt' -type f)\" ]"
places="$TMP/run1.out $TMP/run1.err $TMP/run2.out $TMP/run2.err
  $TMP/run2b.out $TMP/run2b.err $TMP/out2b $TMP/spool2b
  $TMP/run2c.out $TMP/run2c.err $TMP/out2c $TMP/spool2c
  $TMP/flush.out $TMP/flush.err $TMP/comment.out $TMP/comment.err
  $TMP/out1 $TMP/out2 $TMP/spool $TMP/http-root $TMP/s3data $TMP/tmpdir
  $TMP/state $TMP/data $TMP/cfg $TMP/h.json"
# absent NAME VALUE: VALUE, plain or base64 (with or without padding), is
# in no file of $places
absent() {
  b64=$(printf '%s' "$2" | base64 -w0)
  # shellcheck disable=SC2016,SC2086 # expanded by the inner sh; words
  check "$1 appears nowhere, plain or base64" \
    sh -c 'v=$1 b=$2; shift 2; ! grep -rqF -e "$v" -e "$b" \
      -e "$(printf %s "$b" | tr -d =)" "$@"' sh "$2" "$b64" $places
}
absent "the Bencher token" "$TOKEN"
absent "the store token" "$STORE_TOKEN"
# a message cut inside the token must not show its beginning either
absent "the store token's first 12 characters" \
  "$(printf %s "$STORE_TOKEN" | cut -c1-12)"
absent "the AWS key id" "$AWS_KEY"
absent "the AWS secret key" "$AWS_SECRET"
absent "the AWS session token" "$AWS_SESSION"
absent "the GitHub token" "$GH_TOKEN"
finish
