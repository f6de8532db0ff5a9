#!/bin/sh
# TLS in http.c: verification is always on.  put_server.py speaks HTTPS
# with a certificate made here for 127.0.0.1: trusted through --ca-file it
# works; without it, or under another host name, the request is refused
# (and not retried); a CA file that is not there is a clear error.
. "$top_srcdir/tests/lib.sh"
tool="$top_builddir/tests/unit/store_tool"
server="$top_srcdir/tests/servers/put_server.py"
if ! command -v openssl >/dev/null; then
  echo "SKIP: no openssl command to make a test certificate"
  exit 77
fi
pids=
at_exit 'for p in $pids; do kill "$p" 2>/dev/null; done'

openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
  -addext subjectAltName=IP:127.0.0.1 -keyout "$TMP/key.pem" \
  -out "$TMP/cert.pem" >"$TMP/openssl.log" 2>&1 ||
  { fail "openssl could not make a certificate: $(cat "$TMP/openssl.log")"; finish; }

python3 "$server" --root "$TMP/root" --port-file "$TMP/port" \
  --tls-cert "$TMP/cert.pem" --tls-key "$TMP/key.pem" >"$TMP/server.log" \
  2>"$TMP/server.err" &
pids="$pids $!"
i=0
while [ ! -s "$TMP/port" ] && [ $i -lt 300 ]; do
  sleep 0.1
  i=$((i + 1))
done
[ -s "$TMP/port" ] || { fail "the server did not start"; finish; }
port=$(cat "$TMP/port")
printf 'tls body' >"$TMP/body"
fast="--retries 2 --backoff-ms 50 --timeout-ms 5000"

"$tool" -v $fast --ca-file "$TMP/cert.pem" put "https://127.0.0.1:$port/s" \
  k.txt "$TMP/body" >"$TMP/ok.out" 2>"$TMP/ok.err"
check "trusted through --ca-file: stored" [ $? -eq 0 ]
check "stored whole" cmp -s "$TMP/body" "$TMP/root/s/k.txt"
check "over TLS: the server logged it" grep -q '^PUT /s/k.txt 200$' \
  "$TMP/server.log"

"$tool" -v $fast put "https://127.0.0.1:$port/s" k2.txt "$TMP/body" \
  >"$TMP/untrusted.out" 2>"$TMP/untrusted.err"
check "an unknown CA is refused (BPE_NET)" [ $? -eq 12 ]
check "with curl's reason" grep -qi 'certificate' "$TMP/untrusted.err"
check "not retried" [ "$(grep -c '(attempt ' "$TMP/untrusted.err")" -eq 1 ]
check "nothing stored" [ ! -e "$TMP/root/s/k2.txt" ]

"$tool" $fast --ca-file "$TMP/cert.pem" put "https://localhost:$port/s" \
  k3.txt "$TMP/body" >"$TMP/name.out" 2>"$TMP/name.err"
check "another host name than the certificate's is refused" [ $? -eq 12 ]
check "the message says why" grep -qi 'subject name\|host name\|hostname' \
  "$TMP/name.err"

"$tool" $fast --ca-file "$TMP/missing.pem" put "https://127.0.0.1:$port/s" \
  k4.txt "$TMP/body" >"$TMP/noca.out" 2>"$TMP/noca.err"
check "a CA file that is not there: BPE_INVAL" [ $? -eq 2 ]
check "named in the message" grep -qi 'CA cert\|CA file\|certificate' \
  "$TMP/noca.err"
finish
