#!/bin/sh
# The opt-in Firefox Profiler upload is never repeated once the public
# store may have the profile: the stand-in stores the upload and drops the
# connection without answering (a lost answer).  One upload, not two: the
# run says so, its publication completes without a Firefox link, and a
# later flush uploads nothing.  An upload refused at the connection
# (nothing sent) is not taken for a lost one: it waits in the spool.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"

standin bencher
make_harness
unset BENCHPROF_CONFIG GITHUB_ACTIONS GITLAB_CI
export BENCHER_API_TOKEN="$TOKEN" BENCHER_HOST="$BENCHER_URL"
HASH=0123456789abcdef0123456789abcdef01234567
common="--project demo --branch main --testbed box --hash $HASH --store file://$TMP/store --spool $TMP/spool --retries 3 --retry-delay 0.05 --timeout 5"

# uploads: the uploads the store took (a profile token recorded)
uploads() {
  python3 - "$TMP/bencher.log" <<'PY'
import json, sys
log = [e for e in json.load(open(sys.argv[1]))
       if e.get("path") == "/compressed-store" and e.get("profile_token")]
print(len(log))
PY
}

control '{"faults_after": "drop", "fault_path": "/compressed-store"}'
"$BENCHPROF" run -q -o "$TMP/out" --bmf "$TMP/h.json" --firefox-upload \
  --firefox-api "$BENCHER_URL" $common -- "$TMP/harness.sh" "$TMP/h.json" \
  >/dev/null 2>"$TMP/run.err"
check "lost answer: run exits 0" [ $? -eq 0 ]
check "lost answer: the store took one upload, not two" [ "$(uploads)" = 1 ]
check "lost answer: said" grep -q "not uploaded again" "$TMP/run.err"
check "lost answer: the publication completed, no Firefox link" python3 - \
  "$TMP/out/manifest.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["publication"]
assert p["state"] == "delivered", p
assert p.get("firefox_url") is None, p
PY
control '{"faults_after": ""}'
"$BENCHPROF" flush --spool "$TMP/spool" >"$TMP/flush.out" 2>&1
check "lost answer: a later flush uploads nothing" [ "$(uploads)" = 1 ]

# refused at the connection (nothing sent): not taken for a lost answer;
# the upload stays pending in the spool for flush
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$BENCHPROF" run -q -o "$TMP/out2" --bmf "$TMP/h.json" --firefox-upload \
  --firefox-api "http://127.0.0.1:$PORT" $common --spool "$TMP/spool2" \
  --hash 89abcdef0123456789abcdef0123456789abcdef -- "$TMP/harness.sh" \
  "$TMP/h.json" >/dev/null 2>"$TMP/run2.err"
check "refused: run exits 0" [ $? -eq 0 ]
check "refused: not called lost" sh -c "! grep -q 'not uploaded again' \
  '$TMP/run2.err'"
check "refused: the publication waits in the spool for the upload" python3 - \
  "$TMP/out2/manifest.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["publication"]
assert p["state"] == "spooled", p
PY
check "no token anywhere" no_token "$TMP"/*.err "$TMP/out" "$TMP/store"
finish
