#!/bin/sh
# The http(s):// store backend and http.c's retry policy against
# tests/servers/put_server.py: bearer token, byte-identical round trip with
# Content-Type/Content-Encoding, a refused token, then injected faults
# (500, 429 + Retry-After, a hang past the timeout, a truncated answer, a
# dropped connection, a final 404, retries exhausted, connection refused),
# checked by attempt counts and the server's own log, never by timing.
. "$top_srcdir/tests/lib.sh"
tool="$top_builddir/tests/unit/store_tool"
server="$top_srcdir/tests/servers/put_server.py"
token="tok-$$-secret"
pids=
at_exit 'for p in $pids; do kill "$p" 2>/dev/null; done'

# start NAME [put_server options]: a server logging to $TMP/NAME.log
start() {
  name=$1
  shift
  python3 "$server" --root "$TMP/$name.root" --port-file "$TMP/$name.port" \
    "$@" >"$TMP/$name.log" 2>"$TMP/$name.err" &
  pids="$pids $!"
}

# base NAME: wait for server NAME's port; prints its base URL
base() {
  i=0
  while [ ! -s "$TMP/$1.port" ] && [ $i -lt 300 ]; do
    sleep 0.1
    i=$((i + 1))
  done
  [ -s "$TMP/$1.port" ] || { echo "FAIL: server $1 did not start" >&2; exit 1; }
  echo "http://127.0.0.1:$(cat "$TMP/$1.port")/runs"
}

# quick retries so the faults cost little time
fast="--retries 3 --backoff-ms 50 --timeout-ms 1000 --connect-timeout-ms 1000"

# attempts FILE: the attempts store_tool -v reported
attempts() {
  grep -c '(attempt [0-9]*/[0-9]*)$' "$1"
}

# lines FILE PATTERN: how many lines of FILE match PATTERN
lines() {
  grep -c -- "$2" "$1"
}

head -c 70000 /dev/urandom >"$TMP/blob"
key="proj/$("$tool" part feature/x)/abc123/tb/$("$tool" part ..)/profile.json.gz"
check "the key parts are escaped" \
  [ "$key" = "proj/feature%2Fx/abc123/tb/%2E%2E/profile.json.gz" ]

# Two servers, started together (python is slow to start on a busy
# machine): one with a token, one whose faults hit successive requests;
# the fault calls below are sequential, so each gets its item(s) in turn
# and the "ok" after a retried fault is its second attempt.
start main --token "$token"
start faults --faults 500,ok,429:1,ok,hang:5,ok,truncate,ok,drop,ok,404,503,503,503
url=$(base main) || exit 1
furl=$(base faults) || exit 1

# --- round trip with a bearer token
STORE_TOKEN=$token "$tool" -v $fast put "$url" "$key" "$TMP/blob" \
  >"$TMP/put.out" 2>"$TMP/put.err"
check "put with the token succeeds" [ $? -eq 0 ]
check "one attempt" [ "$(attempts "$TMP/put.err")" -eq 1 ]
check "the token is redacted in -v" \
  grep -q '^\* > Authorization: <redacted>$' "$TMP/put.err"
check "the server decoded the key once into one file per part" \
  cmp -s "$TMP/blob" "$TMP/main.root/runs/proj/feature%2Fx/abc123/tb/%2E%2E/profile.json.gz"
"$tool" get "$url" "$key" >"$TMP/got" 2>"$TMP/get.err"
check "get returns the bytes put" cmp -s "$TMP/blob" "$TMP/got"
check "the server saw the escaped path" \
  grep -q '^PUT /runs/proj/feature%252Fx/abc123/tb/%252E%252E/profile.json.gz 200$' \
  "$TMP/main.log"
check "GET answers the stored Content-Type and Content-Encoding" \
  python3 - "$url" "$key" <<'PY'
import sys, urllib.request
base, key = sys.argv[1], sys.argv[2]
path = "/".join(urllib.request.quote(p, safe="") for p in key.split("/"))
with urllib.request.urlopen(base + "/" + path) as r:
    h = r.headers
    assert h["Content-Type"] == "application/json", h["Content-Type"]
    assert h["Content-Encoding"] == "gzip", h["Content-Encoding"]
    assert h["Access-Control-Allow-Origin"] == "*"
PY
check "the public URL escapes the key again" \
  [ "$("$tool" url "$url" "$key")" = "$url/proj/feature%252Fx/abc123/tb/%252E%252E/profile.json.gz" ]

# --- a wrong token: final, the server's message shown, no token shown
STORE_TOKEN="wrong-$token" "$tool" -v $fast put "$url" p/x "$TMP/blob" \
  >"$TMP/bad.out" 2>"$TMP/bad.err"
check "a wrong token is BPE_HTTP (13)" [ $? -eq 13 ]
check "401 with the server's message" \
  grep -q "PUT $url/p/x: HTTP 401: missing or wrong bearer token" "$TMP/bad.err"
check "a 401 is not retried" [ "$(attempts "$TMP/bad.err")" -eq 1 ]
check "no token in any output" \
  sh -c "! grep -r -e '$token' '$TMP'/*.out '$TMP'/*.err"
"$tool" get "$url" p/nothing >"$TMP/nf.out" 2>"$TMP/nf.err"
check "a missing object is BPE_NOT_FOUND (15)" [ $? -eq 15 ]
check "not found says which key" grep -q "no object 'p/nothing'" "$TMP/nf.err"

# --- faults, in the order of the faults server's list
# fault NAME WANT_RC [store_tool options]: put f/NAME on the faults server
fault() {
  name=$1 want=$2
  shift 2
  "$tool" -v $fast "$@" put "$furl" "f/$name" "$TMP/blob" \
    >"$TMP/$name.out" 2>"$TMP/$name.tool"
  rc=$?
  check "$name: exit status $want" [ "$rc" -eq "$want" ]
}
flog="$TMP/faults.log"

fault f500 0
check "500: two attempts" [ "$(attempts "$TMP/f500.tool")" -eq 2 ]
check "500: the server saw the fault, then stored it" \
  [ "$(lines "$flog" '^PUT /runs/f/f500 fault 500$')" -eq 1 -a \
    "$(lines "$flog" '^PUT /runs/f/f500 200$')" -eq 1 ]
check "500: stored whole" cmp -s "$TMP/blob" "$TMP/faults.root/runs/f/f500"

fault f429 0
check "429: two attempts" [ "$(attempts "$TMP/f429.tool")" -eq 2 ]
check "429: the wait is the server's Retry-After, not the backoff" \
  grep -q '^\* -> HTTP 429; retrying in 1000 ms$' "$TMP/f429.tool"
check "429: fault then success in the server log" \
  [ "$(lines "$flog" '^PUT /runs/f/f429 fault 429:1$')" -eq 1 -a \
    "$(lines "$flog" '^PUT /runs/f/f429 200$')" -eq 1 ]

fault hang 0
check "hang: two attempts" [ "$(attempts "$TMP/hang.tool")" -eq 2 ]
check "hang: the first timed out" grep -q 'timed out' "$TMP/hang.tool"
check "hang: the server saw the hang, then stored it" \
  [ "$(lines "$flog" '^PUT /runs/f/hang fault hang:5$')" -eq 1 -a \
    "$(lines "$flog" '^PUT /runs/f/hang 200$')" -eq 1 ]

fault trunc 0
check "truncate: two attempts" [ "$(attempts "$TMP/trunc.tool")" -eq 2 ]
check "truncate: the short answer was seen as such" \
  grep -q 'transfer closed with 1000 bytes remaining' "$TMP/trunc.tool"
check "truncate: stored on the second attempt" \
  [ "$(lines "$flog" '^PUT /runs/f/trunc 200$')" -eq 1 ]

fault drop 0
check "drop: two attempts" [ "$(attempts "$TMP/drop.tool")" -eq 2 ]
check "drop: stored on the second attempt" \
  [ "$(lines "$flog" '^PUT /runs/f/drop 200$')" -eq 1 ]

fault f404 13
check "404: final after one attempt" [ "$(attempts "$TMP/f404.tool")" -eq 1 ]
check "404: the server saw exactly one request" \
  [ "$(lines "$flog" '^PUT /runs/f/f404 ')" -eq 1 ]
check "404: its message is shown" \
  grep -q "PUT $furl/f/f404: HTTP 404: injected 404" "$TMP/f404.tool"

fault f503 12 --retries 2
check "503 x3 with 2 retries: BPE_NET after three attempts" \
  [ "$(attempts "$TMP/f503.tool")" -eq 3 ]
check "503: the server saw three requests" \
  [ "$(lines "$flog" '^PUT /runs/f/f503 fault 503$')" -eq 3 ]
check "503: the last answer and the attempt count in the message" \
  grep -q "HTTP 503: injected 503 (after 3 attempts)" "$TMP/f503.tool"
check "503: nothing stored" [ ! -e "$TMP/faults.root/runs/f/f503" ]

# --- connection refused: a port that was free a moment ago
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
"$tool" -v $fast --retries 2 put "http://127.0.0.1:$port/x" k "$TMP/blob" \
  >"$TMP/refused.out" 2>"$TMP/refused.tool"
check "refused: BPE_NET (12)" [ $? -eq 12 ]
check "refused: three attempts" [ "$(attempts "$TMP/refused.tool")" -eq 3 ]
check "refused: curl's reason and the URL in the message" \
  grep -q "store_tool: network.*: PUT http://127.0.0.1:$port/x/k: .*connect.* (after 3 attempts)" \
  "$TMP/refused.tool"

finish
