#!/bin/sh
# benchprof killed (SIGKILL) in the middle of publishing: while Bencher
# hangs on the report, and while the store hangs on an artifact.  The
# spool is left consistent (the publication whole, the parts that were
# done marked, nothing half-written), the run's exit status is gone with
# it, and the next flush completes it: exactly one report, every artifact
# stored with its manifest's sha256.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"

make_harness
HASH=0123456789abcdef0123456789abcdef01234567
export BENCHER_API_TOKEN="$TOKEN"

# consistent SPOOL PARTS...: one publication, whole, with exactly the
# done markers named, and no temporary files left
consistent() {
  python3 - "$@" <<'PY'
import json, os, sys
spool, want = sys.argv[1], sorted(sys.argv[2:])
pubs = [p for p in os.listdir(spool) if not p.startswith(".")]
assert len(pubs) == 1, os.listdir(spool)
d = os.path.join(spool, pubs[0])
meta = json.load(open(os.path.join(d, "publication.json")))
assert meta["identity"]["hash"].startswith("0123"), meta
assert "token" not in json.dumps(meta).lower(), meta
json.load(open(os.path.join(d, "files", "manifest.json")))
done = sorted(os.listdir(os.path.join(d, "done")))
assert not [f for f in done if f.startswith(".")], done
# an artifact's mark is a line of done.log, not a file of its own
assert not [f for f in done if f.startswith("artifact-")], done
log = os.path.join(d, "done.log")
text = open(log).read() if os.path.exists(log) else ""
assert text == "" or text.endswith("\n"), text
arts = text.split()
assert all(a.startswith("artifact-") for a in arts) and len(set(arts)) == len(arts), arts
other = done
if want and want[0].startswith("artifacts<"):
    n = int(want[0][len("artifacts<"):])
    assert 0 < len(arts) < n, done
    want = want[1:]
elif want and want[0] == "artifacts=5":
    assert len(arts) == 5, done
    want = want[1:]
assert other == want, (other, want)
PY
}

# 1. killed while Bencher hangs on the report
standin kill --fault-path /v0/run --faults hang:3
export BENCHER_HOST="$BENCHER_URL"
"$BENCHPROF" run -q -o "$TMP/out1" --bmf "$TMP/h.json" --project demo \
  --branch main --testbed box --hash $HASH --store "file://$TMP/store1" \
  --spool "$TMP/spool1" --retries 0 --timeout 20 -- \
  "$TMP/harness.sh" "$TMP/h.json" 2>"$TMP/err1" &
bp=$!
check "bencher hang: the report request arrived" wait_line "$TMP/kill.log" \
  fault_started 10
kill -KILL $bp
wait $bp 2>/dev/null
check "bencher hang: the spool holds the publication, artifacts and \
measures done, the report not" consistent "$TMP/spool1" artifacts=5 measures
check "bencher hang: the server took the report after the kill" \
  wait_line "$TMP/kill.log" report_uuid 10
"$BENCHPROF" flush --spool "$TMP/spool1" --retry-delay 0.05 \
  >"$TMP/flush1" 2>&1
check "bencher hang: flush delivers" [ $? -eq 0 ]
check "bencher hang: spool empty" [ -z "$(ls "$TMP/spool1")" ]
check "bencher hang: exactly one report" python3 - "$TMP/kill.log" <<'PY'
import json, sys
runs = [e for e in json.load(open(sys.argv[1]))
        if e.get("path") == "/v0/run" and e.get("report_uuid")]
assert len(runs) == 2 and runs[1]["repeat"], runs
assert runs[0]["report_uuid"] == runs[1]["report_uuid"], runs
PY
check "bencher hang: the store is complete" store_ok "$TMP/store1"
check "bencher hang: the run's manifest says delivered" \
  grep -q '"delivered"' "$TMP/out1/manifest.json"

# 2. killed while the store hangs on the third artifact: the first
# request is the GET of the stored manifest (is a newer run of the
# commit there?), then two artifacts' PUTs go through
control '{"reset": true}'
mkdir -p "$TMP/put-root"
python3 "$SERVERS/put_server.py" --root "$TMP/put-root" \
  --port-file "$TMP/put.port" --faults ok,ok,ok,hang:3 >"$TMP/put.log" 2>&1 &
PIDS="$PIDS $!"
pport=$(wait_port "$TMP/put.port")
"$BENCHPROF" run -q -o "$TMP/out2" --bmf "$TMP/h.json" --project demo \
  --branch main --testbed box --hash $HASH \
  --store "http://127.0.0.1:$pport/b" --spool "$TMP/spool2" --retries 0 \
  --timeout 20 -- "$TMP/harness.sh" "$TMP/h.json" 2>"$TMP/err2" &
bp=$!
check "store hang: the third PUT arrived" wait_line "$TMP/put.log" "fault hang" 10
kill -KILL $bp
wait $bp 2>/dev/null
check "store hang: the spool holds the publication, two artifacts done" \
  consistent "$TMP/spool2" "artifacts<5"
"$BENCHPROF" flush --spool "$TMP/spool2" --retry-delay 0.05 \
  >"$TMP/flush2" 2>&1
check "store hang: flush delivers" [ $? -eq 0 ]
check "store hang: one report" python3 - "$TMP/kill.log" <<'PY'
import json, sys
runs = [e for e in json.load(open(sys.argv[1]))
        if e.get("path") == "/v0/run" and e.get("report_uuid")]
assert len(runs) == 1, runs
PY
check "store hang: the store is complete" store_ok "$TMP/put-root/b"
check "no token in any output or file" no_token "$TMP/err1" "$TMP/err2" \
  "$TMP/flush1" "$TMP/flush2" "$TMP/out1" "$TMP/out2" "$TMP/store1" \
  "$TMP/put-root"
finish
