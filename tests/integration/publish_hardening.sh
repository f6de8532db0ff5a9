#!/bin/sh
# Publications that used to leak, get stuck or collide (issue 21): a
# password in BENCHER_HOST or another URL (F9), an uppercase commit hash
# that the API refuses for ever (F3), two runs in one second without a
# commit (F7).  Against the Bencher stand-in on 127.0.0.1, a file://
# store and a spool per case; the latest pointer's race (F4) against
# file://, http:// and s3:// stores.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"

make_harness
HASH=0123456789abcdef0123456789abcdef01234567
export BENCHER_API_TOKEN="$TOKEN"
standin bencher
PASS=pw-$$-SECRETpassword

# run CASE [options]: a run of the harness publishing to the stand-in
run() {
  case_=$1
  shift
  timeout 120 "$BENCHPROF" run -q -o "$TMP/$case_.out" --bmf "$TMP/h.json" \
    --project demo --branch main --testbed box \
    --store "file://$TMP/$case_.store" --spool "$TMP/$case_.spool" \
    --retries 0 --timeout 5 "$@" -- "$TMP/harness.sh" "$TMP/h.json" 0 \
    >"$TMP/$case_.stdout" 2>"$TMP/$case_.err"
}

# ---------------------------------------------------------------- F9
cred_url=$(echo "$BENCHER_URL" | sed "s|http://|http://user:$PASS@|")
BENCHER_HOST=$cred_url run cred --hash $HASH
rc=$?
check "F9: the benchmark's status survives a credentialed BENCHER_HOST ($rc)" \
  [ $rc -eq 0 ]
# (BENCHER_HOST is also a config key: the configuration refuses it first)
check "F9: refused, and said why" \
  grep -q "BENCHER_HOST.*without credentials\|BENCHER_HOST) URL has credentials" \
  "$TMP/cred.err"
check "F9: the password is nowhere (output, run directory, spool, store)" \
  sh -c '! grep -rqF "$1" "$2"/cred.*' sh "$PASS" "$TMP"
check "F9: nothing reached Bencher" \
  sh -c '! grep -q "/v0/run" "$1"' sh "$TMP/bencher.log"
# the same in the config file: an error that does not echo the password
printf '{"bencher": {"host": "%s"}}\n' "$cred_url" >"$TMP/cred.json"
"$BENCHPROF" config check --config "$TMP/cred.json" >"$TMP/credcfg.out" 2>&1
rc=$?
check "F9: config check refuses bencher.host with credentials ($rc)" [ $rc -ne 0 ]
check "F9: ... saying so" grep -q "without credentials" "$TMP/credcfg.out"
check "F9: ... without echoing the password" \
  sh -c '! grep -qF "$1" "$2"' sh "$PASS" "$TMP/credcfg.out"
run credpub --hash $HASH --public-url "http://reader:$PASS@example.com/s"
check "F9: --public-url with credentials is refused" \
  grep -q "credentials" "$TMP/credpub.err"
check "F9: ... and not written anywhere" \
  sh -c '! grep -rqF "$1" "$2"/credpub.*' sh "$PASS" "$TMP"

# ---------------------------------------------------------------- F3
export BENCHER_HOST="$BENCHER_URL"
# an uppercase --hash is the same commit: sent lowercase, delivered
UPPER=0123456789ABCDEF0123456789ABCDEF01234567
run upper --hash $UPPER
rc=$?
check "F3: an uppercase hash is delivered ($rc)" [ $rc -eq 0 ] &&
  check "F3: nothing left in the spool" [ -z "$(ls "$TMP/upper.spool")" ]
check "F3: Bencher got the lowercase hash" python3 -c "
import json, sys
runs = [e for e in json.load(open('$TMP/bencher.log')) if e.get('path') == '/v0/run' and e.get('report_uuid')]
assert runs and all('0123456789abcdef' in json.dumps(e) and '0123456789ABCDEF' not in json.dumps(e) for e in runs), runs"
check "F3: stored under the lowercase commit" \
  [ -f "$TMP/upper.store/demo/main/$HASH/box/manifest.json" ]

# a final 400 from Bencher: the publication is marked rejected, said once
control '{"faults": "400"}'
run rejected --hash $HASH
rc=$?
check "F3: a rejected publication keeps the benchmark's status ($rc)" [ $rc -eq 0 ]
check "F3: run says it was rejected, and how to drop it" \
  grep -q "rejected: .*HTTP 400" "$TMP/rejected.err"
check "F3: ... kept in the spool" [ "$(ls "$TMP/rejected.spool" | wc -l)" -eq 1 ]
"$BENCHPROF" flush --spool "$TMP/rejected.spool" >"$TMP/rflush.out" 2>&1
rc=$?
check "F3: flush no longer fails on it ($rc)" [ $rc -eq 0 ]
check "F3: flush does not send it again" \
  [ "$(python3 -c "import json; print(sum(1 for e in json.load(open('$TMP/bencher.log')) if e.get('fault') == '400' or e.get('status') == 400))")" -le 1 ]
"$BENCHPROF" flush --spool "$TMP/rejected.spool" --list >"$TMP/rlist.out" 2>&1
check "F3: flush --list shows it rejected, with the reason" \
  grep -q "	rejected	.*demo/main@$HASH on box	.*HTTP 400" "$TMP/rlist.out"
id=$(cut -f1 "$TMP/rlist.out")
"$BENCHPROF" flush --spool "$TMP/rejected.spool" --drop rejected \
  >"$TMP/rdrop.out" 2>&1
check "F3: flush --drop rejected removes it" \
  sh -c 'grep -q "^$1: dropped (it was rejected)$" "$2" && [ -z "$(ls "$3")" ]' \
  sh "$id" "$TMP/rdrop.out" "$TMP/rejected.spool"
"$BENCHPROF" flush --spool "$TMP/rejected.spool" --drop "$id" >/dev/null 2>&1
check "F3: dropping it again is an error" [ $? -ne 0 ]

# spooled while Bencher answered 503; refused for good by the next flush:
# that flush reports it (exit 1), the one after says nothing (exit 0)
control '{"faults": "503"}'
run later --hash $HASH
check "F3: spooled after a 503" [ "$(ls "$TMP/later.spool" | wc -l)" -eq 1 ]
control '{"faults": "422"}'
"$BENCHPROF" flush --spool "$TMP/later.spool" --retries 0 >"$TMP/lflush1.out" 2>&1
rc=$?
check "F3: the flush that meets the refusal reports it ($rc)" \
  sh -c '[ $1 -eq 1 ] && grep -q ": rejected, never sent again .*HTTP 422" "$2"' \
  sh $rc "$TMP/lflush1.out"
"$BENCHPROF" flush --spool "$TMP/later.spool" --retries 0 >"$TMP/lflush2.out" 2>&1
rc=$?
check "F3: the next flush is quiet about it ($rc)" \
  sh -c '[ $1 -eq 0 ] && ! grep -q "rejected," "$2"' sh $rc "$TMP/lflush2.out"
check "F3: ... and it is still listed" \
  sh -c '"$1" flush --spool "$2" --list | grep -q "	rejected	"' \
  sh "$BENCHPROF" "$TMP/later.spool"

# ---------------------------------------------------------------- F1
# the spool cannot hold the publication: delivered directly, and said
control '{"reset": true}'
: >"$TMP/afile"
timeout 120 "$BENCHPROF" run -q -o "$TMP/direct.out" --bmf "$TMP/h.json" \
  --project demo --branch main --testbed box --hash $HASH \
  --store "file://$TMP/direct.store" --spool "$TMP/afile/spool" \
  --retries 0 --timeout 5 -- "$TMP/harness.sh" "$TMP/h.json" 0 \
  >/dev/null 2>"$TMP/direct.err"
rc=$?
check "F1: an unusable spool: the run succeeds ($rc)" [ $rc -eq 0 ]
check "F1: ... says the spool cannot hold it and it was delivered directly" \
  grep -q "the spool cannot hold the publication (.*afile.*): delivered directly" \
  "$TMP/direct.err"
check "F1: ... the manifest says delivered, and why not spooled" python3 -c "
import json
p = json.load(open('$TMP/direct.out/manifest.json'))['publication']
assert p['state'] == 'delivered' and 'afile' in p['not_spooled'] and p['report_uuid'], p"
check "F1: ... the store has the stored manifest" \
  [ -f "$TMP/direct.store/demo/main/$HASH/box/manifest.json" ]

# a real full file system: a 200 KB tmpfs (a mount namespace of our own),
# nearly full, as the spool; once with Bencher up, once with it failing
cat >"$TMP/fullspool.sh" <<'SH'
#!/bin/sh
# fullspool.sh CASE: run with a nearly full tmpfs as the spool
mkdir -p "$TMP/mnt-$1" && mount -t tmpfs -o size=200k tmpfs "$TMP/mnt-$1" &&
  dd if=/dev/zero of="$TMP/mnt-$1/fill" bs=1k count=196 2>/dev/null
timeout 120 "$BENCHPROF" run -q -o "$TMP/$1.out" --bmf "$TMP/h.json" \
  --project demo --branch main --testbed box --hash "$HASH" \
  --store "file://$TMP/$1.store" --spool "$TMP/mnt-$1/spool" \
  --retries 0 --timeout 5 -- "$TMP/harness.sh" "$TMP/h.json" 0 \
  >/dev/null 2>"$TMP/$1.err"
SH
chmod +x "$TMP/fullspool.sh"
export TMP HASH
if unshare -rm true 2>/dev/null; then
  unshare -rm "$TMP/fullspool.sh" full
  rc=$?
  check "F1: a full spool: the run succeeds ($rc)" [ $rc -eq 0 ]
  check "F1: ... delivered directly, and said" \
    grep -q "the spool cannot hold the publication (.*No space left on device.*): delivered directly" \
    "$TMP/full.err"
  check "F1: ... the manifest says delivered" python3 -c "
import json
p = json.load(open('$TMP/full.out/manifest.json'))['publication']
assert p['state'] == 'delivered' and p['report_uuid'], p"
  control '{"faults": "503,503,503,503"}'
  unshare -rm "$TMP/fullspool.sh" fullfail
  rc=$?
  check "F1: a full spool and Bencher failing: the status survives ($rc)" [ $rc -eq 0 ]
  check "F1: ... says what was lost" \
    grep -q "not published: .*HTTP 503" "$TMP/fullfail.err"
  check "F1: ... the manifest says failed, and why" python3 -c "
import json
p = json.load(open('$TMP/fullfail.out/manifest.json'))['publication']
assert p['state'] == 'failed' and 'No space' in p['not_spooled'] and p['error'], p"
else
  echo "note: no mount namespace here (unshare -rm): the tmpfs case did not run"
fi

# ---------------------------------------------------------------- F8
# SIGTERM (then SIGINT) while Bencher hangs on a request: the benchmark's
# status (3) survives, benchprof says why, the publication stays spooled
# (the run's manifest says so) and a later flush delivers it (a failed
# command's run is published only with --allow-failure)
for sig in TERM INT; do
  control '{"reset": true, "faults": "hang:60,hang:60"}'
  timeout 120 "$BENCHPROF" run -q -o "$TMP/sig$sig.out" --bmf "$TMP/h.json" \
    --allow-failure --project demo --branch main --testbed box --hash $HASH \
    --store "file://$TMP/sig$sig.store" --spool "$TMP/sig$sig.spool" \
    --retries 0 --timeout 100 -- "$TMP/harness.sh" "$TMP/h.json" 3 \
    >/dev/null 2>"$TMP/sig$sig.err" &
  pid=$!
  i=0
  while ! grep -q fault_started "$TMP/bencher.log" 2>/dev/null && [ $i -lt 300 ]; do
    sleep 0.1
    i=$((i + 1))
  done
  kill -$sig $pid
  wait $pid
  rc=$?
  check "F8: SIG$sig while publishing: the benchmark's status 3 ($rc)" [ $rc -eq 3 ]
  check "F8: SIG$sig: said" grep -q "publishing interrupted by" "$TMP/sig$sig.err"
  check "F8: SIG$sig: the manifest says spooled" python3 -c "
import json, os
p = json.load(open('$TMP/sig$sig.out/manifest.json'))['publication']
assert p['state'] == 'spooled' and 'interrupted' in p['error'], p
assert os.path.isdir(os.path.join('$TMP/sig$sig.spool', p['spool_id'])), p"
  control '{"faults": ""}'
  "$BENCHPROF" flush --spool "$TMP/sig$sig.spool" >"$TMP/sig$sig.flush" 2>&1
  check "F8: SIG$sig: flush delivers it" \
    sh -c '[ $? -eq 0 ] || true; grep -q ": delivered" "$1" && [ -z "$(ls "$2")" ]' \
    sh "$TMP/sig$sig.flush" "$TMP/sig$sig.spool"
done

# ---------------------------------------------------------- F10 F11 F13
# 2,000 benchmarks without markers, among them a 256-byte name, 130 x é
# and one named manifest.json: delivered to a file:// store, the whole
# run's profile stored once (not 5 files per benchmark), every key part
# bounded, the run's manifest.json a file
python3 - "$TMP/many.json" <<'PY'
import json, sys
names = ["a" * 256, "\u00e9" * 130, "manifest.json", "~run"]
names += ["bench/%04d" % i for i in range(2000)]
json.dump({n: {"latency": {"value": 1.0 + i}} for i, n in enumerate(names)},
          open(sys.argv[1], "w"))
PY
printf '#!/bin/sh\n"%s" 0.1 >/dev/null\ncp "%s" "$1"\n' "$WORKLOADS/split" \
  "$TMP/many.json" >"$TMP/many.sh"
chmod +x "$TMP/many.sh"
timeout 300 "$BENCHPROF" run -q --no-bencher -o "$TMP/many.out" \
  --bmf "$TMP/many.bmf" --project demo --branch main --testbed box \
  --hash $HASH --store "file://$TMP/many.store" --spool "$TMP/many.spool" \
  -- "$TMP/many.sh" "$TMP/many.bmf" >/dev/null 2>"$TMP/many.err"
rc=$?
check "F10/F13: 2,004 benchmarks published ($rc)" \
  sh -c '[ $1 -eq 0 ] && [ -z "$(ls "$2")" ]' sh $rc "$TMP/many.spool"
check "F13: the whole run's artifacts stored once" \
  [ "$(find "$TMP/many.store" -type f | wc -l)" -lt 20 ]
check "F10/F11/F13: every benchmark's artifacts named in the stored manifest, each stored, no part over 120 bytes" \
  python3 - "$TMP/many.store" "$HASH" <<'PY'
import json, os, sys
root, h = sys.argv[1], sys.argv[2]
man = os.path.join(root, "demo", "main", h, "box", "manifest.json")
assert os.path.isfile(man), man
m = json.load(open(man))
names = {b["name"] for b in m["benchmarks"]}
assert {"a" * 256, "\u00e9" * 130, "manifest.json", "~run"} <= names
assert len(names) >= 2004, len(names)
keys = set()
for b in m["benchmarks"]:
    for a in b["artifacts"]:
        keys.add(a["key"])
        assert all(len(p) <= 120 for p in a["key"].split("/")), a["key"]
for k in keys:
    assert os.path.isfile(os.path.join(root, k)), k
for d, _, fs in os.walk(root):
    for f in fs:
        assert len(f.encode()) <= 120, f
PY

# ---------------------------------------------------------------- F4
# latest never moves backwards, even when an older publication races a
# newer one: the older writer reads (nothing there), decides to write
# "2026-01-01" and is slow about it; meanwhile the newer one writes
# "2026-12-31".  The older one's conditional write then fails (file: it
# held the lock, so the newer one waited and read it; http and s3:
# If-None-Match / If-Match gets 412, which the SigV4 proxy in front of
# s3rver enforces as S3 does), it reads again and keeps the newer
# pointer.
tool="$top_builddir/tests/unit/store_tool"
python3 "$SERVERS/put_server.py" --root "$TMP/latest.root" \
  --port-file "$TMP/latest.port" >"$TMP/latest.log" 2>&1 &
PIDS="$PIDS $!"
lport=$(wait_port "$TMP/latest.port")
start_s3
for kind in file http s3; do
  case $kind in
    file) store="file://$TMP/latest.files" opts= want=written log= ;;
    http) store="http://127.0.0.1:$lport/s" opts= want=kept
          log="$TMP/latest.log" ;;
    s3) store="s3://bkt/latest" want=kept log="$TMP/s3p.log"
        opts="--endpoint http://127.0.0.1:$pport --path-style" ;;
  esac
  # $opts is unquoted: it holds several options
  "$tool" $opts --decide-delay-ms 1500 update "$store" p/b/latest/tb.json \
    2026-01-01 >"$TMP/older.out" 2>&1 &
  older=$!
  # the newer one starts once the older one has read (nothing there) and
  # is deciding: seen in the server's log, or, for files, after a while
  if [ -n "$log" ]; then
    wait_line "$log" "GET [^ ]*p/b/latest/tb.json 404" 10
  else
    sleep 0.5
  fi
  "$tool" $opts update "$store" p/b/latest/tb.json 2026-12-31 \
    >"$TMP/newer.out" 2>&1
  wait $older
  check "F4 ($kind): the newer run's pointer is written" \
    grep -q "^written$" "$TMP/newer.out"
  # file: the older one held the lock and wrote first, the newer one
  # waited for it; http, s3: the older one's write came second, got 412
  check "F4 ($kind): the older one, racing it: $want" \
    grep -q "^$want$" "$TMP/older.out"
  check "F4 ($kind): latest names the newer run" \
    [ "$("$tool" $opts get "$store" p/b/latest/tb.json)" = 2026-12-31 ]
done
check "F4: the http writes were conditional (a 412 seen)" \
  grep -q "^PUT /s/p/b/latest/tb.json 412" "$TMP/latest.log"
check "F4: the s3 writes were conditional (a 412 seen)" \
  grep -q "PUT /bkt/latest/p/b/latest/tb.json 412" "$TMP/s3p.log"

# ---------------------------------------------------------------- F7
# two runs at once without a commit (outside any git checkout, no CI
# variables): two identities, two stored manifests
for n in 1 2; do
  (cd "$TMP" && env -u GITHUB_ACTIONS -u GITHUB_SHA -u GITLAB_CI \
    -u CI_COMMIT_SHA -u BENCHER_HASH "$BENCHPROF" run -q --no-bencher \
    -o "$TMP/local$n.out" --bmf "$TMP/h.json" --project demo \
    --branch main --testbed box --store "file://$TMP/local.store" \
    --spool "$TMP/local.spool" -- "$TMP/harness.sh" "$TMP/h.json" 0 \
    >/dev/null 2>"$TMP/local$n.err") &
  runs="${runs:-} $!"
done
# shellcheck disable=SC2086 # one pid per word
wait $runs
check "F7: two runs without a commit get two stored manifests" \
  [ "$(find "$TMP/local.store" -name manifest.json | wc -l)" -eq 2 ]
check "F7: local identities are local-<time>-<8 hex digits>" python3 -c "
import json, re
urls = [json.load(open('$TMP/local%d.out/manifest.json' % n))['publication']['manifest_url'] for n in (1, 2)]
ids = [u.split('/')[-3] for u in urls]
assert ids[0] != ids[1], ids
assert all(re.fullmatch(r'local-[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}', i) for i in ids), ids"
finish
