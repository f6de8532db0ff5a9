#!/bin/sh
# A fleet behind an internal CA: the store and the forge speak HTTPS with
# a certificate only network.ca_file trusts.  Every request benchprof
# makes goes by the configuration's network settings: publishing, the
# pull request's comparison (which fetches the base from the store) and
# benchprof comment (the forge's API).  Without the CA file each is
# refused with the certificate's reason.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"
. "$top_srcdir/tests/forge_lib.sh"

if ! command -v openssl >/dev/null; then
  echo "SKIP: no openssl command to make a test certificate"
  exit 77
fi
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
  -addext subjectAltName=IP:127.0.0.1 -keyout "$TMP/key.pem" \
  -out "$TMP/cert.pem" >"$TMP/openssl.log" 2>&1 ||
  { fail "openssl could not make a certificate: $(cat "$TMP/openssl.log")"; finish; }
outside_ci

python3 "$top_srcdir/tests/servers/put_server.py" --root "$TMP/root" \
  --port-file "$TMP/store.port" --tls-cert "$TMP/cert.pem" \
  --tls-key "$TMP/key.pem" >"$TMP/store.log" 2>"$TMP/store.err" &
at_exit "kill $! 2>/dev/null"
port=$(wait_port "$TMP/store.port")
[ -n "$port" ] || { fail "the store did not start"; finish; }
STORE="https://127.0.0.1:$port/profiles"

# config FILE [CA]: the store over HTTPS, the CA file when given
config() {
  ca=${2:+, \"ca_file\": \"$2\"}
  cat >"$1" <<JSON
{"store": {"url": "$STORE"}, "spool": "$TMP/spool-$(basename "$1" .json)",
 "bencher": {"project": "widget", "testbed": "box"},
 "network": {"retries": 0, "timeout": 10$ca}}
JSON
}
config "$TMP/ca.json" "$TMP/cert.pem"
config "$TMP/noca.json"

BASE=1111111111111111111111111111111111111111
HEAD=2222222222222222222222222222222222222222
"$BENCHPROF" run -q --config "$TMP/ca.json" -o "$TMP/base" --branch main \
  --hash $BASE -- true 2>"$TMP/base.err"
check "the base run: exit 0" [ $? -eq 0 ]
check "the base run: published over HTTPS" \
  [ -s "$TMP/root/profiles/widget/main/latest/box.json" ]

# the pull request's run: its comparison fetches the base from the store
"$BENCHPROF" run --config "$TMP/ca.json" -o "$TMP/head" --branch feature \
  --hash $HEAD --base-branch main --base-hash $BASE -- true \
  >/dev/null 2>"$TMP/head.err"
check "the pull request's run: exit 0" [ $? -eq 0 ]
check "its comparison found the base through the CA file" \
  grep -q "compare with main (111111111111)" "$TMP/head.err"
check "no certificate complaint" sh -c "! grep -qi certificate '$TMP/head.err'"
check "the comparison's comment is written" [ -s "$TMP/head/compare/comment.md" ]

# the forge behind the same CA: benchprof comment takes the file's
# network settings; without the CA file it is refused, and says why
TOKEN="ghs_tls_token_5c1e"
FORGE_TLS_CERT="$TMP/cert.pem" FORGE_TLS_KEY="$TMP/key.pem" \
  forge_standin github "$TMP/gh" "$TOKEN" 0
API="https://${FORGE_URL#http://}"
printf '{"5": "%s"}\n' "$HEAD" >"$TMP/gh/pulls.json"
GITHUB_TOKEN=$TOKEN "$BENCHPROF" comment --config "$TMP/ca.json" \
  --markdown "$TMP/head/compare/comment.md" --github own/repo --pr 5 \
  --api-url "$API" >"$TMP/c1.out" 2>"$TMP/c1.err"
check "comment through the CA file: exit 0" [ $? -eq 0 ]
check "comment through the CA file: the stand-in has it" \
  grep -q '"POST", "path": "/repos/own/repo/issues/5/comments"' \
  "$TMP/gh/requests.log"
GITHUB_TOKEN=$TOKEN "$BENCHPROF" comment --config "$TMP/noca.json" \
  --markdown "$TMP/head/compare/comment.md" --github own/repo --pr 5 \
  --api-url "$API" >"$TMP/c2.out" 2>"$TMP/c2.err"
check "comment without the CA file: refused" [ $? -ne 0 ]
check "comment without the CA file: says why" grep -qi certificate \
  "$TMP/c2.err"
check "no token in any output" sh -c \
  "! grep -r -e '$TOKEN' '$TMP'/*.out '$TMP'/*.err"
finish
