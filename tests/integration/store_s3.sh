#!/bin/sh
# The s3:// store backend against s3rver (npm), behind
# tests/servers/s3_sigv4_proxy.py: s3rver 3.x accepts any V4 signature
# from a known access key id (checked first below), so the proxy recomputes
# each signature and the payload hash the way S3 does.  Checks: path-style
# and virtual-host round trips, byte for byte, with Content-Type and
# Content-Encoding kept; a wrong secret key refused with S3's message; a
# missing key is BPE_NOT_FOUND, a missing bucket is not; the session token
# is sent and signed; no secret in any output, -v included.
. "$top_srcdir/tests/lib.sh"
tool="$top_builddir/tests/unit/store_tool"
proxy="$top_srcdir/tests/servers/s3_sigv4_proxy.py"
s3rver=$(command -v s3rver || true)
if [ -z "$s3rver" ] && command -v npm >/dev/null; then
  s3rver="$(npm root -g)/s3rver/bin/s3rver.js"
fi
if [ -z "$s3rver" ] || [ ! -e "$s3rver" ]; then
  echo "SKIP: s3rver is not installed (npm install -g s3rver)"
  exit 77
fi
pids=
at_exit 'for p in $pids; do kill "$p" 2>/dev/null; done'

mkdir "$TMP/s3data"
"$s3rver" -d "$TMP/s3data" -a 127.0.0.1 -p 0 --configure-bucket bkt \
  --service-endpoint localhost >"$TMP/s3rver.log" 2>&1 &
pids="$pids $!"
wait_line "$TMP/s3rver.log" 'listening on 127.0.0.1:[0-9]' ||
  { fail "s3rver did not start: $(cat "$TMP/s3rver.log")"; finish; }
s3port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$TMP/s3rver.log")

python3 "$proxy" --upstream "$s3port" --port-file "$TMP/proxy.port" \
  --key S3RVER --secret S3RVER >"$TMP/proxy.log" 2>"$TMP/proxy.err" &
pids="$pids $!"
wait_line "$TMP/proxy.port" '[0-9]' ||
  { fail "the proxy did not start"; finish; }
port=$(cat "$TMP/proxy.port")

AWS_ACCESS_KEY_ID=S3RVER
AWS_SECRET_ACCESS_KEY=S3RVER
AWS_SESSION_TOKEN="session-$$-secret"
export AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN
fast="--retries 1 --backoff-ms 50 --timeout-ms 10000"
path_style="--endpoint http://127.0.0.1:$port --path-style"
direct="--endpoint http://127.0.0.1:$s3port --path-style"

head -c 50000 /dev/urandom >"$TMP/blob"
printf '{"meta": {}}' | gzip -c >"$TMP/profile.json.gz"
key="proj/$("$tool" part feature/x)/abc/tb/bench/profile.json.gz"

# why the proxy: s3rver alone takes a wrong secret
AWS_SECRET_ACCESS_KEY=not-the-secret "$tool" $fast $direct \
  put s3://bkt probe "$TMP/blob" >/dev/null 2>"$TMP/direct.err"
check "s3rver alone accepts a wrong secret (so the proxy checks)" [ $? -eq 0 ]

# --- path-style
"$tool" -v $fast $path_style put s3://bkt/pre "$key" "$TMP/profile.json.gz" \
  >"$TMP/put.out" 2>"$TMP/put.err"
check "path-style put" [ $? -eq 0 ]
check "the proxy checked and passed it" \
  grep -q "^PUT /bkt/pre/proj/feature%252Fx/abc/tb/bench/profile.json.gz 200$" \
  "$TMP/proxy.log"
check "s3rver holds the key with the part decoded once" \
  [ -f "$TMP/s3data/bkt/pre/proj/feature%2Fx/abc/tb/bench/profile.json.gz._S3rver_object" ]
"$tool" -v $fast $path_style get s3://bkt/pre "$key" >"$TMP/got" \
  2>"$TMP/get.err"
check "path-style get" [ $? -eq 0 ]
check "byte for byte" cmp -s "$TMP/profile.json.gz" "$TMP/got"
check "Content-Type kept" grep -qi '^\* < Content-Type: application/json' \
  "$TMP/get.err"
check "Content-Encoding kept" grep -qi '^\* < Content-Encoding: gzip' \
  "$TMP/get.err"
check "the session token is sent, redacted" \
  grep -q '^\* > x-amz-security-token: <redacted>$' "$TMP/put.err"
check "the signature is redacted" \
  grep -q '^\* > Authorization: <redacted>$' "$TMP/put.err"
check "the payload hash is sent" \
  grep -q '^\* > x-amz-content-sha256: [0-9a-f]\{64\}$' "$TMP/put.err"

# --- virtual-host: bkt.s3.localhost (curl resolves *.localhost locally)
"$tool" $fast --endpoint "http://s3.localhost:$port" \
  put s3://bkt/vh blob.bin "$TMP/blob" >"$TMP/vh.out" 2>"$TMP/vh.err"
check "virtual-host put" [ $? -eq 0 ]
check "the request path has no bucket" grep -q '^PUT /vh/blob.bin 200$' \
  "$TMP/proxy.log"
"$tool" $fast $path_style get s3://bkt/vh blob.bin >"$TMP/vh.got"
check "what virtual-host put, path-style gets" cmp -s "$TMP/blob" "$TMP/vh.got"
check "the public URL of a virtual-host store" \
  [ "$("$tool" --endpoint "http://s3.localhost:$port" url s3://bkt/vh "$key")" = \
    "http://bkt.s3.localhost:$port/vh/proj/feature%252Fx/abc/tb/bench/profile.json.gz" ]

# --- a wrong secret is refused, with S3's message, not retried
AWS_SECRET_ACCESS_KEY=wrong-secret-$$ "$tool" -v $fast $path_style \
  put s3://bkt/pre bad "$TMP/blob" >"$TMP/wrong.out" 2>"$TMP/wrong.err"
check "wrong secret: BPE_HTTP (13)" [ $? -eq 13 ]
check "wrong secret: S3's code and message" \
  grep -q "PUT http://127.0.0.1:$port/bkt/pre/bad: HTTP 403: SignatureDoesNotMatch: The request signature" \
  "$TMP/wrong.err"
check "wrong secret: one attempt" \
  [ "$(grep -c '(attempt ' "$TMP/wrong.err")" -eq 1 ]
check "wrong secret: nothing stored" \
  [ ! -e "$TMP/s3data/bkt/pre/bad._S3rver_object" ]

# --- not found
"$tool" $fast $path_style get s3://bkt/pre nothing/here >"$TMP/nf.out" \
  2>"$TMP/nf.err"
check "missing key: BPE_NOT_FOUND (15)" [ $? -eq 15 ]
check "missing key: a clear message" \
  grep -q "no object 'nothing/here' in s3://bkt/pre" "$TMP/nf.err"
"$tool" $fast $path_style get s3://nobucket k >"$TMP/nb.out" 2>"$TMP/nb.err"
check "missing bucket: BPE_HTTP (13), not a missing object" [ $? -eq 13 ]
check "missing bucket: S3's code" grep -q "HTTP 404: NoSuchBucket" "$TMP/nb.err"

# --- no secret anywhere: outputs, -v lines
check "no secret key, key id or session token in any output" \
  sh -c "! grep -e S3RVER -e '$AWS_SESSION_TOKEN' -e 'wrong-secret-$$' \
    '$TMP'/*.out '$TMP'/*.err"
finish
