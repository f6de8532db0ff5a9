#!/bin/sh
# Secret values on the benchmark's command line (--token=X, --password X,
# API_KEY=X, --aws-secret-access-key=X, --db-pass X, an Authorization
# header's credentials, a Basic scheme's, a URL's user:password@, the
# password of curl's and wget's -u/--user/--proxy-user user:password,
# separate, attached or in a shell command string) are ***
# in everything benchprof
# writes and publishes: the manifest's "command", summary.json, the
# flame graph, the Gecko and pprof profiles, the file:// store's copies.
# The workload still gets the real values (it writes its arguments to a
# file outside the run directory), and arguments that only look alike
# (--keys-count=7, -u with a user alone) are kept, and so is an option
# after one that carried its secret attached ("-Hx-api-key: V" --header).
. "$top_srcdir/tests/lib.sh"

HASH=0123456789abcdef0123456789abcdef01234567
S1="ghp_SECRETone$$"
S2="pw_SECRETtwo$$"
S3="SECRETthree$$"
S4="aws_SECRETfour$$"
S5="auth_SECRETfive$$"
S6="bearer_SECRETsix$$"
S7="url_SECRETseven$$"
S8="db_SECRETeight$$"
S9="basic_SECRETnine$$"
S10="u_SECRETten$$"
S11="user_SECRETeleven$$"
S12="uatt_SECRETtwelve$$"
S13="sh_SECRETthirteen$$"
S14="proxy_SECRETfourteen$$"
S15="hkey_SECRETfifteen$$"
{
  echo '#!/bin/sh'
  echo "printf '%s\\n' \"\$@\" >'$TMP/args'"
  echo "\"$WORKLOADS/split\" 0.1 >/dev/null"
  echo 'python3 -c "import json,sys; json.dump({\"b\": {\"latency\": {\"value\": 5}}}, open(sys.argv[1], \"w\"))" "$1"'
} >"$TMP/harness.sh"
chmod +x "$TMP/harness.sh"

"$BENCHPROF" run -v -o "$TMP/out" --bmf "$TMP/h.json" --project demo \
  --branch main --testbed box --hash $HASH --store "file://$TMP/store" \
  --retries 1 --timeout 5 --spool "$TMP/spool" -- \
  "$TMP/harness.sh" "$TMP/h.json" --token="$S1" --password "$S2" \
  "API_KEY=$S3" --aws-secret-access-key="$S4" -X-Auth "$S5" \
  -H "Authorization: Bearer $S6" "https://user:$S7@db.example/x" \
  --db-pass "$S8" "--header=Authorization: Basic $S9" \
  -u "user:$S10" "--user=bob:$S11" "-uroot:$S12" \
  "curl -s -u 'user:$S13' https://h.example/x" --proxy-user "p:$S14" \
  -u plainuser "-Hx-api-key: $S15" --header "X-Trace: 1" \
  --keys-count=7 >"$TMP/stdout" 2>"$TMP/stderr"
check "run exits 0" [ $? -eq 0 ]
check "delivered to the store" python3 -c "
import json
p = json.load(open('$TMP/out/manifest.json'))['publication']
assert p['state'] == 'delivered', p"
check "the workload got the real arguments" [ "$(cat "$TMP/args")" = \
"$TMP/h.json
--token=$S1
--password
$S2
API_KEY=$S3
--aws-secret-access-key=$S4
-X-Auth
$S5
-H
Authorization: Bearer $S6
https://user:$S7@db.example/x
--db-pass
$S8
--header=Authorization: Basic $S9
-u
user:$S10
--user=bob:$S11
-uroot:$S12
curl -s -u 'user:$S13' https://h.example/x
--proxy-user
p:$S14
-u
plainuser
-Hx-api-key: $S15
--header
X-Trace: 1
--keys-count=7" ]
check "the manifest's command has *** for each secret value" python3 - \
  "$TMP/out/manifest.json" "$TMP/harness.sh" "$TMP/h.json" <<'PY'
import json, sys
man, harness, bmf = sys.argv[1:4]
cmd = json.load(open(man))["command"]
want = (f"{harness} {bmf} '--token=***' --password '***' 'API_KEY=***' "
        "'--aws-secret-access-key=***' -X-Auth '***' "
        "-H 'Authorization: Bearer ***' 'https://***@db.example/x' "
        "--db-pass '***' '--header=Authorization: Basic ***' "
        "-u 'user:***' '--user=bob:***' '-uroot:***' "
        "'curl -s -u '\\''user:***'\\'' https://h.example/x' "
        "--proxy-user 'p:***' -u plainuser '-Hx-api-key: ***' "
        "--header 'X-Trace: 1' --keys-count=7")
assert cmd == want, (cmd, want)
PY
for f in summary.json flamegraph.svg; do
  check "$f is written" sh -c "find '$TMP/out' -name $f | grep -q ."
done
check "the store holds the artifacts" \
  sh -c "[ \$(find '$TMP/store' -type f | wc -l) -ge 5 ]"

# every file written, gzip members opened, searched for each secret
check "no secret in any file written or stored, nor on stdout/stderr" \
  python3 - "$S1" "$S2" "$S3" "$S4" "$S5" "$S6" "$S7" "$S8" "$S9" "$S10" \
  "$S11" "$S12" "$S13" "$S14" "$S15" -- \
  "$TMP/out" "$TMP/store" \
  "$TMP/stdout" "$TMP/stderr" <<'PY'
import gzip, os, sys
sep = sys.argv.index("--")
secrets = [s.encode() for s in sys.argv[1:sep]]
files = []
for p in sys.argv[sep + 1:]:
    if os.path.isdir(p):
        files += [os.path.join(d, f) for d, _, fs in os.walk(p) for f in fs]
    else:
        files.append(p)
assert len(files) > 5, files
for f in files:
    data = open(f, "rb").read()
    if data[:2] == b"\x1f\x8b":
        data += gzip.decompress(data)
    for s in secrets:
        assert s not in data, (f, s)
PY
finish
