# Helpers for the publish_*.sh tests; sourced after tests/lib.sh.
# The Bencher stand-in and other servers run on 127.0.0.1 and are stopped
# on exit.
OPENAPI="$BENCHPROF_CONTRACTS/bencher/openapi.json"
BMF_SCHEMA="$BENCHPROF_CONTRACTS/bencher/bmf.schema.json"
SERVERS="$top_srcdir/tests/servers"
TOKEN="bencher_run_TESTtokenSECRETvalue0123456789"
PIDS=""
at_exit 'for p in $PIDS; do kill "$p" 2>/dev/null; done'

for f in "$OPENAPI" "$BMF_SCHEMA"; do
  [ -f "$f" ] || { echo "FAIL: contract missing: $f"; exit 1; }
done

# wait_port FILE: the port a server wrote to FILE (empty after 10 s)
wait_port() {
  i=0
  while [ ! -s "$1" ] && [ $i -lt 100 ]; do
    sleep 0.1
    i=$((i + 1))
  done
  cat "$1" 2>/dev/null
}

# standin NAME [--faults SPEC] [--faults-after SPEC]: start a Bencher
# stand-in; its URL in $BENCHER_URL, its log in $TMP/NAME.log
standin() {
  name=$1
  shift
  python3 "$SERVERS/bencher_standin.py" --openapi "$OPENAPI" \
    --bmf-schema "$BMF_SCHEMA" --port-file "$TMP/$name.port" \
    --log "$TMP/$name.log" --token "$TOKEN" "$@" \
    >"$TMP/$name.server" 2>&1 &
  PIDS="$PIDS $!"
  port=$(wait_port "$TMP/$name.port")
  [ -n "$port" ] || { echo "FAIL: the stand-in did not start"; \
                      cat "$TMP/$name.server"; exit 1; }
  BENCHER_URL="http://127.0.0.1:$port"
}

# control JSON: new faults for the stand-in (see bencher_standin.py)
control() {
  curl -sf -X POST -H "Content-Type: application/json" --data "$1" \
    "$BENCHER_URL/_control" >/dev/null
}

# a small real workload and its BMF, the harness the tests run
make_harness() {
  {
    echo '#!/bin/sh'
    echo "\"$WORKLOADS/split\" 0.1 >/dev/null"
    echo "printf '%s' '{\"sort/1k\": {\"latency\": {\"value\": 1234.5}}}' >\"\$1\""
    echo 'exit "${2:-0}"'
  } >"$TMP/harness.sh"
  chmod +x "$TMP/harness.sh"
}

# no_token DIR...: the token appears in no file under DIR...
no_token() {
  ! grep -rqF "$TOKEN" "$@"
}

# store_ok STORE_DIR: the stored manifests list every artifact with the
# sha256 of the stored bytes, and the latest pointers name manifests
store_ok() {
  python3 - "$1" <<'PY'
import hashlib, json, os, sys
root = sys.argv[1]
# os.walk, not glob: key parts may start with a dot ("..%2F")
files = [os.path.relpath(os.path.join(d, f), root)
         for d, _, fs in os.walk(root) for f in fs]
mans = [os.path.join(root, f) for f in files
        if len(f.split("/")) == 5 and f.endswith("/manifest.json")]
latest = [os.path.join(root, f) for f in files
          if len(f.split("/")) == 4 and f.split("/")[2] == "latest"]
assert mans, "no stored manifest under %s" % root
for path in mans:
    m = json.load(open(path))
    n = 0
    for b in m["benchmarks"]:
        for a in b["artifacts"]:
            data = open(os.path.join(root, a["key"]), "rb").read()
            assert hashlib.sha256(data).hexdigest() == a["sha256"], a
            assert len(data) == a["bytes"], a
            n += 1
    assert n >= 5, (path, n)
    assert m["publication"]["identity"]["project"], m["publication"]
assert latest, "no latest pointer under %s" % root
for path in latest:
    p = json.load(open(path))
    assert os.path.exists(os.path.join(root, p["manifest"])), p
PY
}

# s3rver (bucket bkt, files in $TMP/s3) behind the SigV4-checking proxy:
# sets s3port (s3rver's own), pport (the proxy's), SECRET and the AWS_*
# credentials; both servers' pids join $PIDS.
start_s3() {
  mkdir -p "$TMP/s3"
  s3rver --directory "$TMP/s3" --address 127.0.0.1 --port 0 \
    --configure-bucket bkt --silent >"$TMP/s3rver.out" 2>&1 &
  PIDS="$PIDS $!"
  wait_line "$TMP/s3rver.out" "listening on" 10
  s3port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' \
    "$TMP/s3rver.out")
  SECRET="S3RVER-secret-$TOKEN"
  python3 "$SERVERS/s3_sigv4_proxy.py" --upstream "$s3port" \
    --port-file "$TMP/s3p.port" --key S3RVER --secret "$SECRET" \
    >"$TMP/s3p.log" 2>&1 &
  PIDS="$PIDS $!"
  pport=$(wait_port "$TMP/s3p.port")
  export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY="$SECRET"
}
