#!/bin/sh
# What a run does with store and network settings it cannot use as they
# are: a store URL with a query is refused without printing the query (a
# token); an unreadable network.ca_file, or one that holds no PEM
# certificate, is named before the command runs
# (--strict: the command does not run); an S3 endpoint given as an IP
# address gets path-style URLs (bucket.127.0.0.1 resolves nowhere); with
# no spool directory (no HOME, XDG_STATE_HOME or spool) the publication is
# delivered directly, and one that fails says it cannot be spooled.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"

unset BENCHPROF_CONFIG BENCHPROF_SPOOL BENCHPROF_STORE BENCHPROF_CA_FILE \
  GITHUB_ACTIONS GITLAB_CI BENCHER_API_TOKEN
make_harness
HASH=0123456789abcdef0123456789abcdef01234567
ident="--project demo --branch main --testbed box --hash $HASH"
secret=q-$$-secret

# 1. a store URL with a query: refused, the query never printed
cat >"$TMP/query.json" <<JSON
{"store": {"url": "http://127.0.0.1:1/prefix?X-Token=$secret"},
 "spool": "$TMP/spool1", "network": {"retries": 0}}
JSON
"$BENCHPROF" run --config "$TMP/query.json" -o "$TMP/out1" $ident -- \
  "$TMP/harness.sh" "$TMP/h.json" >/dev/null 2>"$TMP/err1"
check "a store URL with a query: the run exits 0" [ $? -eq 0 ]
check "a store URL with a query: refused, redacted, nothing published" \
  sh -c "grep -qF \"store 'http://127.0.0.1:1/prefix?<redacted>': no query\" '$TMP/err1' &&
         grep -q 'nothing was published' '$TMP/err1'"
check "a store URL with a query: a warning, no error: line (exit 0)" \
  sh -c "grep -q \"^benchprof: warning: .*: no query\" '$TMP/err1' &&
         ! grep -q 'error:' '$TMP/err1'"
check "the query is in no output, run directory or spool" \
  sh -c "! grep -rqF '$secret' '$TMP/err1' '$TMP/out1' '$TMP/spool1' 2>/dev/null"

# 2. network.ca_file that cannot be read: said before the command runs
cat >"$TMP/ca.json" <<JSON
{"store": {"url": "file://$TMP/store2"}, "spool": "$TMP/spool2",
 "network": {"ca_file": "$TMP/no-such-ca.pem"}}
JSON
cat >"$TMP/marker.sh" <<EOF2
#!/bin/sh
echo ran >"\$1"
EOF2
chmod +x "$TMP/marker.sh"
"$BENCHPROF" run --config "$TMP/ca.json" -o "$TMP/out2" $ident -- \
  "$TMP/marker.sh" "$TMP/ran2" >/dev/null 2>"$TMP/err2"
check "an unreadable ca_file: the run goes on, exit 0" \
  sh -c "[ $? -eq 0 ] && [ -s '$TMP/ran2' ]"
check "an unreadable ca_file: key and path named, before the command ran" \
  sh -c "head -1 '$TMP/err2' | grep -qF \"network.ca_file: cannot read the CA bundle '$TMP/no-such-ca.pem'\""
check "an unreadable ca_file: a warning (the job keeps its status)" \
  sh -c "head -1 '$TMP/err2' | grep -q '^benchprof: warning: ' &&
         ! grep -q 'error:' '$TMP/err2'"
"$BENCHPROF" run --strict --config "$TMP/ca.json" -o "$TMP/out2s" $ident \
  -- "$TMP/marker.sh" "$TMP/ran2s" >/dev/null 2>"$TMP/err2s"
check "an unreadable ca_file with --strict: exit 1, the command not run" \
  sh -c "[ $? -eq 1 ] && [ ! -e '$TMP/ran2s' ] &&
         grep -qF 'error: network.ca_file: cannot read' '$TMP/err2s'"

# a readable file that is no CA bundle: said before the command runs too
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$TMP/passwd"
cat >"$TMP/ca-text.json" <<JSON
{"store": {"url": "file://$TMP/store2"}, "spool": "$TMP/spool2",
 "network": {"ca_file": "$TMP/passwd"}}
JSON
"$BENCHPROF" run --strict --config "$TMP/ca-text.json" -o "$TMP/out2t" \
  $ident -- "$TMP/marker.sh" "$TMP/ran2t" >/dev/null 2>"$TMP/err2t"
check "a ca_file with no PEM certificate, --strict: exit 1, the command not run" \
  sh -c "[ $? -eq 1 ] && [ ! -e '$TMP/ran2t' ] &&
         grep -qF \"network.ca_file: the CA bundle '$TMP/passwd' holds no PEM certificate\" '$TMP/err2t'"
: >"$TMP/empty.pem"
"$BENCHPROF" run --config "$TMP/ca.json" --ca-file "$TMP/empty.pem" \
  -o "$TMP/out2e" $ident -- "$TMP/marker.sh" "$TMP/ran2e" >/dev/null \
  2>"$TMP/err2e"
check "an empty --ca-file: the run goes on, the option named first" \
  sh -c "[ $? -eq 0 ] && [ -s '$TMP/ran2e' ] &&
         head -1 '$TMP/err2e' | grep -qF -- \"--ca-file: the CA bundle '$TMP/empty.pem' holds no PEM certificate\""

# 3. an S3 endpoint given as an IP address, path_style false: path style
start_s3
cat >"$TMP/s3ip.json" <<JSON
{"store": {"url": "s3://bkt/pre",
           "s3": {"endpoint": "http://127.0.0.1:$pport",
                  "region": "us-east-1", "path_style": false}},
 "spool": "$TMP/spool3", "network": {"retries": 0}}
JSON
check "an IP endpoint without path_style: config check passes" \
  "$BENCHPROF" config check --config "$TMP/s3ip.json"
"$BENCHPROF" run --config "$TMP/s3ip.json" -o "$TMP/out3" $ident -- \
  "$TMP/harness.sh" "$TMP/h.json" >/dev/null 2>"$TMP/err3"
check "an IP endpoint without path_style: delivered" \
  sh -c "[ $? -eq 0 ] && grep -q '\"delivered\"' '$TMP/out3/manifest.json' &&
         ! grep -q 'resolve' '$TMP/err3'"
check "an IP endpoint: the requests name the bucket in the path" \
  grep -q '^PUT /bkt/pre/demo/main/.* 200$' "$TMP/s3p.log"

# 4. no spool directory: delivered directly; a failure says it is lost
TOKEN_VALUE=store-token-$$
python3 "$SERVERS/put_server.py" --root "$TMP/put-root" \
  --port-file "$TMP/put.port" --port 0 --token "$TOKEN_VALUE" \
  >>"$TMP/put.log" 2>&1 &
PIDS="$PIDS $!"
sport=$(wait_port "$TMP/put.port")
[ -n "$sport" ] || { echo "FAIL: the store did not start"; exit 1; }
nospool() {
  env -u HOME -u XDG_STATE_HOME BENCHPROF_STORE_TOKEN="$TOKEN_VALUE" \
    "$BENCHPROF" run --retries 0 --store "$1" -o "$2" $ident -- \
    "$TMP/harness.sh" "$TMP/h.json" >/dev/null 2>"$3"
}
nospool "http://127.0.0.1:$sport/st" "$TMP/out4" "$TMP/err4"
check "no spool directory: exit 0" [ $? -eq 0 ]
check "no spool directory: said, and delivered directly" \
  sh -c "grep -q 'no spool directory' '$TMP/err4' &&
         grep -q 'delivered directly' '$TMP/err4' &&
         ! grep -q 'nothing was published' '$TMP/err4'"
check "no spool directory: the manifest says delivered, not spooled" \
  python3 - "$TMP/out4/manifest.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["publication"]
assert p["state"] == "delivered", p
assert "no spool directory" in p.get("not_spooled", ""), p
PY
check "no spool directory: the store holds the run" \
  sh -c "find '$TMP/put-root' -name manifest.json | grep -q ."
nospool "http://127.0.0.1:1/st" "$TMP/out5" "$TMP/err5"
check "no spool directory, store down: exit 0" [ $? -eq 0 ]
check "no spool directory, store down: not published, cannot be spooled" \
  sh -c "grep -q 'cannot be spooled' '$TMP/err5' &&
         grep -q 'not published' '$TMP/err5'"
finish
