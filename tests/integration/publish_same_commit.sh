#!/bin/sh
# Two runs of one commit on one testbed (a job run again): the store
# keeps the newer run (the later end time), whichever order their
# publications arrive in.  Run 1 waits in the spool while the store
# fails, run 2 publishes, then flush delivers run 1: run 2's stored
# manifest, artifacts, latest pointer and pages stay as they are (not
# written again), flush says its store objects were left alone, and run
# 1's Bencher report is still made.  In the usual order (older first,
# newer later, directly or from the spool) the newer run replaces the
# older one.  A file:// store (delivered straight from the run directory)
# and an http:// one (the spool, a GET of the manifest first).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"

outside_ci
HASH=0123456789abcdef0123456789abcdef01234567
# a real workload, then its second argument as the benchmark's latency:
# each run's stored manifest says which run it is
{
  echo '#!/bin/sh'
  echo "\"$WORKLOADS/split\" 0.1 >/dev/null"
  echo "printf '{\"sort/1k\": {\"latency\": {\"value\": %s}}}' \"\$2\" >\"\$1\""
} >"$TMP/harness.sh"
chmod +x "$TMP/harness.sh"

# run CASE STORE_URL SPOOL VALUE [options]: one run of commit HASH
run() {
  case_=$1 url=$2 spool=$3 value=$4
  shift 4
  "$BENCHPROF" run -o "$TMP/$case_.out" --bmf "$TMP/h.json" \
    --project demo --branch main --testbed box --hash $HASH \
    --store "$url" --spool "$spool" --retry-delay 0.05 --timeout 5 "$@" \
    -- "$TMP/harness.sh" "$TMP/h.json" "$value" 2>"$TMP/$case_.err"
}
# snapshot DIR: every file under DIR with its inode, time and sha256
snapshot() {
  python3 - "$1" <<'PY'
import hashlib, os, sys
root = sys.argv[1]
for d, _, fs in sorted(os.walk(root)):
    for f in sorted(fs):
        p = os.path.join(d, f)
        st = os.stat(p)
        print(os.path.relpath(p, root), st.st_ino, st.st_mtime_ns,
              hashlib.sha256(open(p, "rb").read()).hexdigest())
PY
}
# stored_is STORE CASE VALUE: the commit's stored manifest is run CASE's
# (its latency VALUE, each artifact with the sha256 run CASE wrote, the
# stored bytes matching), and latest names it
stored_is() {
  store_ok "$1" && python3 - "$1" "$TMP/$2.out/manifest.json" "$3" "$HASH" <<'PY'
import hashlib, json, os, sys
root, run_man, value, commit = sys.argv[1:]
m = json.load(open(os.path.join(root, "demo/main", commit, "box/manifest.json")))
assert m["results"]["sort/1k"]["latency"]["value"] == float(value), m["results"]
run = json.load(open(run_man))
want = {(b["name"], a["file"]): a["sha256"]
        for b in run["benchmarks"] for a in b["artifacts"]}
got = {(b["name"], a["file"]): a["sha256"]
       for b in m["benchmarks"] for a in b["artifacts"]}
assert want and got == want, (got, want)
for b in m["benchmarks"]:
    for a in b["artifacts"]:
        data = open(os.path.join(root, a["key"]), "rb").read()
        assert hashlib.sha256(data).hexdigest() == want[(b["name"], a["file"])], a
latest = json.load(open(os.path.join(root, "demo/main/latest/box.json")))
assert latest["end_time"] == m["publication"]["end_time"], (latest, m["publication"])
assert latest["manifest"] == "demo/main/%s/box/manifest.json" % commit, latest
PY
}
# pub_of CASE FIELD: that field of the run directory's publication
pub_of() {
  python3 -c "
import json, sys
v = json.load(open(sys.argv[1]))['publication'].get(sys.argv[2])
print('null' if v is None else v)" "$TMP/$1.out/manifest.json" "$2"
}
empty() {
  [ -z "$(ls -A "$1" 2>/dev/null)" ]
}

unset BENCHER_API_TOKEN
# 1. file:// store: run 1 spooled (a file where the project's folder goes),
# run 2 delivered straight from its run directory, run 1 flushed late
S="$TMP/a.store"
mkdir -p "$S"
: >"$S/demo"
run a1 "file://$S" "$TMP/a.spool" 1
check "file, run 1: spooled" [ "$(ls "$TMP/a.spool" | wc -l)" -eq 1 ]
rm "$S/demo"
run a2 "file://$S" "$TMP/a.spool" 2
check "file, run 2: delivered" [ "$(pub_of a2 state)" = delivered ]
check "file, run 2: stored" stored_is "$S" a2 2
snapshot "$S" >"$TMP/a.before"
"$BENCHPROF" flush --spool "$TMP/a.spool" >"$TMP/a.flush" 2>&1
check "file, run 1 flushed late: exit 0" [ $? -eq 0 ]
check "file, run 1 flushed late: the spool is empty" empty "$TMP/a.spool"
check "file, run 1 flushed late: the store is run 2's still" \
  stored_is "$S" a2 2
snapshot "$S" >"$TMP/a.after"
check "file, run 1 flushed late: no store object written again" \
  cmp -s "$TMP/a.before" "$TMP/a.after"
check "file, run 1 flushed late: flush says they were left alone" \
  grep -q "delivered (.*; its store objects were left alone: the store has \
a newer run of commit 0123456 on testbed box (ended 20" "$TMP/a.flush"
check "file, run 1 flushed late: its run directory says so" python3 -c "
import json, sys
p = json.load(open(sys.argv[1]))['publication']
assert p['state'] == 'delivered' and p['manifest_url'] is None, p
assert 'newer run of commit 0123456' in p['superseded'], p" \
  "$TMP/a1.out/manifest.json"

# 2. file:// store, the usual order: the newer run replaces the older one,
# delivered directly and flushed from the spool
S="$TMP/b.store"
run b1 "file://$S" "$TMP/b.spool" 1
check "file, older first: stored" stored_is "$S" b1 1
run b2 "file://$S" "$TMP/b.spool" 2
check "file, newer later: replaces it" stored_is "$S" b2 2
check "file, newer later: nothing said about older runs" \
  sh -c '! grep -q "left alone" "$1"' sh "$TMP/b2.err"
mv "$S/demo/main/latest" "$TMP/b.latest"
: >"$S/demo/main/latest"
run b3 "file://$S" "$TMP/b.spool" 3
check "file, newer again, latest failing: spooled" \
  [ "$(ls "$TMP/b.spool" | wc -l)" -eq 1 ]
rm "$S/demo/main/latest"
mv "$TMP/b.latest" "$S/demo/main/latest"
"$BENCHPROF" flush --spool "$TMP/b.spool" >"$TMP/b.flush" 2>&1
check "file, newer flushed: exit 0, the spool empty" \
  sh -c '[ $1 -eq 0 ] && [ -z "$(ls -A "$2")" ]' sh $? "$TMP/b.spool"
check "file, newer flushed: replaces it" stored_is "$S" b3 3
check "file, newer flushed: nothing left alone" \
  sh -c '! grep -q "left alone" "$1"' sh "$TMP/b.flush"

# 3. http:// store and Bencher: run 1's profile.folded and its report are
# refused once (no retries), so it is spooled with its other artifacts
# stored; run 2 publishes everything; flushing run 1 then makes its
# Bencher report but sends no store object (only the manifest's GET)
export BENCHER_API_TOKEN="$TOKEN"
standin bencher --faults 500 --fault-path /v0/run
export BENCHER_HOST="$BENCHER_URL"
mkdir -p "$TMP/put-root"
python3 "$SERVERS/put_server.py" --root "$TMP/put-root" \
  --port-file "$TMP/put.port" --fail-path "/profile.folded:1" \
  >"$TMP/put.log" 2>&1 &
PIDS="$PIDS $!"
pport=$(wait_port "$TMP/put.port")
[ -n "$pport" ] || { fail "put_server did not start"; finish; }
U="http://127.0.0.1:$pport/b"
S="$TMP/put-root/b"
run c1 "$U" "$TMP/c.spool" 1 --retries 0
check "http, run 1: spooled" [ "$(ls "$TMP/c.spool" | wc -l)" -eq 1 ]
check "http, run 1: its report was refused" python3 -c "
import json, sys
runs = [e for e in json.load(open(sys.argv[1])) if e.get('path') == '/v0/run']
assert runs and not [e for e in runs if e.get('report_uuid')], runs" \
  "$TMP/bencher.log"
run c2 "$U" "$TMP/c.spool" 2
check "http, run 2: delivered" [ "$(pub_of c2 state)" = delivered ]
check "http, run 2: stored" stored_is "$S" c2 2
snapshot "$S" >"$TMP/c.before"
wc -l <"$TMP/put.log" >"$TMP/c.lines"
"$BENCHPROF" flush --spool "$TMP/c.spool" >"$TMP/c.flush" 2>&1
check "http, run 1 flushed late: exit 0, the spool empty" \
  sh -c '[ $1 -eq 0 ] && [ -z "$(ls -A "$2")" ]' sh $? "$TMP/c.spool"
check "http, run 1 flushed late: the store is run 2's still" \
  stored_is "$S" c2 2
snapshot "$S" >"$TMP/c.after"
check "http, run 1 flushed late: no store object written again" \
  cmp -s "$TMP/c.before" "$TMP/c.after"
check "http, run 1 flushed late: one GET of the manifest, no PUT" \
  python3 - "$TMP/put.log" "$(cat "$TMP/c.lines")" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()[int(sys.argv[2]):]
reqs = [l for l in lines if l.startswith(("GET ", "PUT "))]
assert len(reqs) == 1 and reqs[0].startswith("GET ") and \
    reqs[0].split()[1].endswith("/box/manifest.json"), reqs
PY
check "http, run 1 flushed late: flush says they were left alone" \
  grep -q "left alone: the store has a newer run of commit 0123456" \
  "$TMP/c.flush"
check "http, run 1 flushed late: its Bencher report made (one per run)" \
  python3 - "$TMP/bencher.log" "$TMP/c1.out/manifest.json" <<'PY'
import json, sys
made = [e for e in json.load(open(sys.argv[1]))
        if e.get("path") == "/v0/run" and e.get("report_uuid")]
assert len(made) == 2 and len({e["idempotency_key"] for e in made}) == 2, made
pub = json.load(open(sys.argv[2]))["publication"]
assert pub["report_uuid"] == made[1]["report_uuid"], (pub, made)
PY
check "http, run 1 flushed late: the flush names its report" \
  grep -q "Bencher report" "$TMP/c.flush"

# 4. http:// store, the usual order from an empty store: one GET of the
# manifest (answered 404) before the artifacts, none again for its
# conditional write; the newer run then replaces it
unset BENCHER_API_TOKEN
U="http://127.0.0.1:$pport/d"
wc -l <"$TMP/put.log" >"$TMP/d.lines"
run d1 "$U" "$TMP/d.spool" 1
check "http, older first: stored" stored_is "$TMP/put-root/d" d1 1
check "http, older first: the manifest read once (404), then written" \
  python3 - "$TMP/put.log" "$(cat "$TMP/d.lines")" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()[int(sys.argv[2]):]
man = [l for l in lines if l.split()[1:2] and
       l.split()[1].endswith("/box/manifest.json")]
assert [l.split()[0] + " " + l.split()[2] for l in man] == \
    ["GET 404", "PUT 200"], man
PY
run d2 "$U" "$TMP/d.spool" 2
check "http, newer later: replaces it" stored_is "$TMP/put-root/d" d2 2

# newer MANIFEST OUT: MANIFEST as a newer run's (it ended in 2099, latency
# 99), written to OUT atomically
newer() {
  python3 - "$1" "$2" <<'PY'
import json, os, sys
m = json.load(open(sys.argv[1]))
m["publication"]["end_time"] = "2099-01-01T00:00:00.000Z"
m["results"]["sort/1k"]["latency"]["value"] = 99
os.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True)
with open(sys.argv[2] + ".tmp", "w") as f:
    json.dump(m, f)
os.replace(sys.argv[2] + ".tmp", sys.argv[2])
PY
}
MAN="demo/main/$HASH/box/manifest.json"

# 5. a race: run 1's manifest is refused once (spooled with its artifacts
# stored); when flush writes it (no stored manifest seen before the
# artifacts), a newer run's manifest comes in while the PUT is on its way:
# (held 5 s by the server) the conditional write (If-None-Match: *) gets 412, reads the newer one
# and leaves it, and latest and the pages are not written either
mkdir -p "$TMP/race-root"
python3 "$SERVERS/put_server.py" --root "$TMP/race-root" \
  --port-file "$TMP/race.port" --fail-path "/box/manifest.json:1" \
  --slow-path "/box/manifest.json:5" >"$TMP/race.log" 2>&1 &
PIDS="$PIDS $!"
rport=$(wait_port "$TMP/race.port")
[ -n "$rport" ] || { fail "put_server did not start"; finish; }
S="$TMP/race-root/e"
run e1 "http://127.0.0.1:$rport/e" "$TMP/e.spool" 1 --retries 0
check "race, run 1: spooled" [ "$(ls "$TMP/e.spool" | wc -l)" -eq 1 ]
check "race, run 1: its artifacts stored, not its manifest" \
  sh -c '[ -d "$1/demo" ] && [ ! -e "$1/$2" ]' sh "$S" "$MAN"
wc -l <"$TMP/race.log" >"$TMP/e.lines"
"$BENCHPROF" flush --spool "$TMP/e.spool" --timeout 10 >"$TMP/e.flush" 2>&1 &
flush=$!
wait_line "$TMP/race.log" "^PUT .*/box/manifest.json slow" 20
newer "$TMP/put-root/b/$MAN" "$TMP/e.newer"
cp "$TMP/e.newer" "$S/$MAN.new" && mv "$S/$MAN.new" "$S/$MAN"
wait $flush
check "race: flush exit 0, the spool empty" \
  sh -c '[ $1 -eq 0 ] && [ -z "$(ls -A "$2")" ]' sh $? "$TMP/e.spool"
check "race: the newer manifest stays" cmp -s "$TMP/e.newer" "$S/$MAN"
check "race: flush says the store objects were left alone" \
  grep -q "left alone: the store has a newer run of commit 0123456 on \
testbed box (ended 2099-01-01T00:00:00.000Z)" "$TMP/e.flush"
check "race: 412, read again, nothing else written" \
  python3 - "$TMP/race.log" "$(cat "$TMP/e.lines")" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()[int(sys.argv[2]):]
reqs = [" ".join(l.split()[0:3:2]) for l in lines
        if l.startswith(("GET ", "PUT ")) and not l.endswith(" slow")]
assert reqs == ["GET 404", "PUT 412", "GET 200"], lines
PY

# 6. run itself: a file:// store that has a newer run of the commit (a
# runner whose clock is ahead, or a run published by a later job first):
# run says its store objects were left alone
S="$TMP/f.store"
run f1 "file://$S" "$TMP/f.spool" 1
newer "$S/$MAN" "$S/$MAN"
snapshot "$S" >"$TMP/f.before"
run f2 "file://$S" "$TMP/f.spool" 2
check "run: exit 0" [ $? -eq 0 ]
check "run: delivered" [ "$(pub_of f2 state)" = delivered ]
check "run: says its store objects were left alone" \
  grep -q "delivered; its store objects were left alone: the store has a \
newer run of commit 0123456 on testbed box (ended 2099-01-01T00:00:00.000Z)" \
  "$TMP/f2.err"
check "run: no manifest URL said" \
  sh -c '! grep -q "published: manifest" "$1"' sh "$TMP/f2.err"
snapshot "$S" >"$TMP/f.after"
check "run: no store object written" cmp -s "$TMP/f.before" "$TMP/f.after"
check "run: nothing spooled" empty "$TMP/f.spool"

# 7. a damaged stored manifest (a disk error, a hand edit, a writer that
# died mid-object on a store without atomic writes): it holds only this
# commit's run, so the next run of the commit replaces it, as a plain
# write did, instead of failing on it for good
S="$TMP/g.store"
run g1 "file://$S" "$TMP/g.spool" 1
printf 'not json{' >"$S/$MAN"
run g2 "file://$S" "$TMP/g.spool" 2
check "damaged manifest, file://: exit 0" [ $? -eq 0 ]
check "damaged manifest, file://: delivered" [ "$(pub_of g2 state)" = delivered ]
check "damaged manifest, file://: replaced by the run's" stored_is "$S" g2 2
check "damaged manifest, file://: nothing spooled" empty "$TMP/g.spool"
printf 'not json{' >"$TMP/put-root/d/$MAN"
run d3 "$U" "$TMP/d.spool" 3
check "damaged manifest, http: exit 0" [ $? -eq 0 ]
check "damaged manifest, http: delivered" [ "$(pub_of d3 state)" = delivered ]
check "damaged manifest, http: replaced by the run's" \
  stored_is "$TMP/put-root/d" d3 3
check "damaged manifest, http: nothing spooled" empty "$TMP/d.spool"
finish
