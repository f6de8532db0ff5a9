#!/bin/sh
# Network failures while publishing: connection refused, 500 then
# success, 429 with Retry-After, a server that hangs past the timeout, a
# truncated answer after the server took the report, a store that fails.
# Each publication is delivered after a retry or left in the spool; the
# benchmark's exit status never changes (with --strict a failure makes it
# non-zero); benchprof flush delivers the rest, and every report reaches
# Bencher exactly once (one per idempotency key) with the stored bytes
# matching the manifest's sha256.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"

make_harness
HASH=0123456789abcdef0123456789abcdef01234567
export BENCHER_API_TOKEN="$TOKEN"
# a fresh spool and store per case: run CASE [options] [-- harness exit]
run() {
  case_=$1
  shift
  "$BENCHPROF" run -q -o "$TMP/$case_.out" --bmf "$TMP/h.json" \
    --project demo --branch main --testbed box --hash $HASH \
    --store "file://$TMP/$case_.store" --spool "$TMP/$case_.spool" \
    --retries 2 --retry-delay 0.05 --timeout 2 "$@" 2>>"$TMP/$case_.err"
}
harness() {
  echo "$TMP/harness.sh" "$TMP/h.json" "$@"
}
spooled() {
  [ "$(ls "$TMP/$1.spool" | wc -l)" -eq "$2" ]
}

# once LOG N: N reports made, each key posted until it got one report,
# every body valid
once() {
  python3 - "$@" <<'PY'
import json, sys
log, n = sys.argv[1], int(sys.argv[2])
runs = [e for e in json.load(open(log)) if e.get("path") == "/v0/run"]
made = [e for e in runs if e.get("report_uuid") and not e.get("repeat")]
assert len(made) == n, [(e.get("fault"), e.get("status")) for e in runs]
keys = {e["idempotency_key"] for e in made}
assert len(keys) == n, keys
for e in runs:
    if e.get("report_uuid"):
        assert e["valid"], e
        first = [m for m in made if m["idempotency_key"] ==
                 e["idempotency_key"]][0]
        assert e["report_uuid"] == first["report_uuid"], (e, first)
PY
}

# manifest_uuid CASE LOG: the run's manifest has the one report's uuid
manifest_uuid() {
  python3 - "$TMP/$1.out/manifest.json" "$2" <<'PY'
import json, sys
pub = json.load(open(sys.argv[1]))["publication"]
runs = [e for e in json.load(open(sys.argv[2]))
        if e.get("path") == "/v0/run" and e.get("report_uuid")]
assert pub["state"] == "delivered", pub
assert pub["report_uuid"] == runs[0]["report_uuid"], (pub, runs[0])
PY
}

# 1. connection refused: a port nobody listens on (yet)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export BENCHER_HOST="http://127.0.0.1:$PORT"
# (a failed command's run is published only with --allow-failure)
run refused --allow-failure -- $(harness 3)
check "refused: the benchmark's status (3) is unchanged" [ $? -eq 3 ]
run refused -- $(harness 0)
check "refused: status 0 without --strict" [ $? -eq 0 ]
run refused --strict -- $(harness 0)
check "refused: non-zero with --strict" [ $? -ne 0 ]
check "refused: three publications spooled" spooled refused 3
check "refused: the run's manifest says spooled, and why" python3 -c "
import json
p = json.load(open('$TMP/refused.out/manifest.json'))['publication']
assert p['state'] == 'spooled' and p['error'] and p['spool_id'], p"
check "refused: the message says so" grep -q "spooled as" "$TMP/refused.err"
"$BENCHPROF" flush --spool "$TMP/refused.spool" --retries 0 --timeout 2 \
  >"$TMP/flush0.out" 2>&1
check "refused: flush while still refused exits 1" [ $? -eq 1 ]
check "refused: flush says still spooled" grep -q "still spooled" \
  "$TMP/flush0.out"
# a newer run of the same branch and testbed, delivered at once (no
# token, no Bencher): its latest pointer must survive the older
# publications flushed after it
NEWER=fedcba9876543210fedcba9876543210fedcba98
BENCHER_API_TOKEN= run refused --hash $NEWER -- $(harness 0)
check "refused: a newer run without Bencher is delivered" \
  grep -q '"delivered"' "$TMP/refused.out/manifest.json"
standin refused --port "$PORT"
"$BENCHPROF" flush --spool "$TMP/refused.spool" --retries 2 --retry-delay 0.05 \
  --timeout 2 >"$TMP/flush1.out" 2>&1
check "refused: flush delivers everything, exit 0" [ $? -eq 0 ]
check "refused: flush reports three deliveries" \
  [ "$(grep -c ': delivered' "$TMP/flush1.out")" -eq 3 ]
check "refused: spool empty" spooled refused 0
check "refused: three reports, each once" once "$TMP/refused.log" 3
check "refused: stored artifacts match" store_ok "$TMP/refused.store"
check "refused: the latest pointer still names the newer run" python3 -c "
import json
p = json.load(open('$TMP/refused.store/demo/main/latest/box.json'))
assert p['hash'] == '$NEWER', p"
"$BENCHPROF" flush --spool "$TMP/refused.spool" >"$TMP/flush2.out" 2>&1
check "refused: a second flush has nothing to do" [ $? -eq 0 ]
check "refused: still three reports" once "$TMP/refused.log" 3

# 2. 500, then success (a retry within the run)
# one stand-in from here on, its faults and log set per case
# (the refused case's stand-in: its log is refused.log, reset each time)
case_faults() {
  control "$2"
  ln -sf "$TMP/refused.log" "$TMP/$1.log"
}
case_faults s500 '{"faults": "500", "fault_path": "/v0/run", "reset": true}'
run s500 -- $(harness 0)
check "500: delivered by a retry, exit 0" [ $? -eq 0 ]
check "500: one report" once "$TMP/s500.log" 1
check "500: the manifest has its uuid" manifest_uuid s500 "$TMP/s500.log"

# 3. 429 with Retry-After
case_faults s429 '{"faults": "429:1", "fault_path": "/v0/run", "reset": true}'
run s429 -- $(harness 0)
check "429: delivered after Retry-After, exit 0" [ $? -eq 0 ]
check "429: the stand-in answered 429 first" python3 -c "
import json
runs = [e for e in json.load(open('$TMP/s429.log')) if e.get('path') == '/v0/run']
assert runs[0]['fault'] == '429:1' and len(runs) == 2, runs"
check "429: one report" once "$TMP/s429.log" 1

# 4. a server that hangs past the timeout, then takes the report anyway
case_faults hang '{"faults": "hang:2", "fault_path": "/v0/run", "reset": true}'
run hang --retries 0 --timeout 1 -- $(harness 0)
check "hang: exit 0" [ $? -eq 0 ]
check "hang: spooled" spooled hang 1
i=0
while ! grep -q report_uuid "$TMP/hang.log" && [ $i -lt 100 ]; do
  sleep 0.1; i=$((i + 1))
done
check "hang: the server took the report after the client gave up" \
  grep -q report_uuid "$TMP/hang.log"
"$BENCHPROF" flush --spool "$TMP/hang.spool" >"$TMP/hang.flush" 2>&1
check "hang: flush delivers" [ $? -eq 0 ]
check "hang: the same report, not a second one" once "$TMP/hang.log" 1
check "hang: the run's manifest now says delivered" manifest_uuid hang \
  "$TMP/hang.log"

# 5. the server takes the report but the answer is cut short
case_faults trunc '{"faults_after": "truncate", "fault_path": "/v0/run", "reset": true}'
run trunc -- $(harness 0)
check "truncated: delivered by a retry, exit 0" [ $? -eq 0 ]
check "truncated: posted twice, one report" python3 -c "
import json
runs = [e for e in json.load(open('$TMP/trunc.log')) if e.get('path') == '/v0/run']
assert len(runs) == 2 and runs[1]['repeat'], runs"
check "truncated: one report" once "$TMP/trunc.log" 1
check "truncated: the manifest has its uuid" manifest_uuid trunc \
  "$TMP/trunc.log"

# 6. the store fails: the report goes, the artifacts wait for flush (the
# artifacts go in parallel: the failures are an artifact's three attempts,
# whichever order the requests come in)
case_faults sfail '{"reset": true}'
mkdir -p "$TMP/put-root"
python3 "$SERVERS/put_server.py" --root "$TMP/put-root" \
  --port-file "$TMP/put.port" --fail-path "/profile.json.gz:3" \
  >"$TMP/put.log" 2>&1 &
PIDS="$PIDS $!"
pport=$(wait_port "$TMP/put.port")
"$BENCHPROF" run -q -o "$TMP/sfail.out" --bmf "$TMP/h.json" --project demo \
  --branch main --testbed box --hash $HASH --strict \
  --store "http://127.0.0.1:$pport/b" --spool "$TMP/sfail.spool" \
  --retries 2 --retry-delay 0.05 --timeout 2 -- $(harness 0) \
  2>"$TMP/sfail.err"
check "store fails: --strict makes it non-zero" [ $? -ne 0 ]
check "store fails: spooled" spooled sfail 1
check "store fails: the report went anyway" once "$TMP/sfail.log" 1
"$BENCHPROF" flush --spool "$TMP/sfail.spool" >"$TMP/sfail.flush" 2>&1
check "store fails: flush delivers" [ $? -eq 0 ]
check "store fails: the report was not posted again" python3 -c "
import json
runs = [e for e in json.load(open('$TMP/sfail.log')) if e.get('path') == '/v0/run']
assert len(runs) == 1, runs"
check "store fails: stored artifacts match" store_ok "$TMP/put-root/b"
check "store fails: the flushed manifest has the report's plot ids" \
  python3 - "$TMP/sfail.log" "$TMP/put-root/b/demo/main/$HASH/box/manifest.json" \
  <<'PY'
import json, sys
a = [e for e in json.load(open(sys.argv[1]))
     if e.get("path") == "/v0/run"][0]["answer"]
m = json.load(open(sys.argv[2]))
pub = m["publication"]["bencher"]
assert (pub["report_uuid"], pub["branch_uuid"], pub["head_uuid"],
        pub["testbed_uuid"]) == (a["uuid"], a["branch"]["uuid"],
                                 a["branch"]["head"]["uuid"],
                                 a["testbed"]["uuid"]), (pub, a)
r = a["results"][0][0]
b = [x for x in m["benchmarks"] if x["name"] == r["benchmark"]["name"]][0]
assert b["bencher"]["benchmark_uuid"] == r["benchmark"]["uuid"], b
assert b["bencher"]["measures"] == {x["measure"]["slug"]: x["measure"]["uuid"]
                                    for x in r["measures"]}, b
PY
check "store fails: each artifact stored once after the failures" \
  python3 - "$TMP/put.log" <<'PY'
import collections, sys
puts = [l.split()[1] for l in open(sys.argv[1])
        if l.startswith("PUT ") and " 20" in l]
dup = [p for p, n in collections.Counter(puts).items() if n > 1]
# 7: the artifacts, the manifest and the latest pointer; then the
# store's static pages (site.h): three lists and four pages
site = [p for p in puts if p.endswith("/index.html") or "/~" in p and
        p.endswith("s.json")]
assert not dup and len(puts) == 7 + 7 and len(site) == 7, (dup, puts)
PY
check "no token in any output, run directory or spool" no_token "$TMP"/*.err \
  "$TMP"/*.out "$TMP"/*.spool "$TMP"/*.flush "$TMP/flush0.out"
finish
