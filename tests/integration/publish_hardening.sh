#!/bin/sh
# Publications that used to leak, get stuck or collide (issue 21): a
# password in BENCHER_HOST or another URL (F9), an uppercase commit hash
# that the API refuses for ever (F3), two runs in one second without a
# commit (F7).  Against the Bencher stand-in on 127.0.0.1, a file://
# store and a spool per case.
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

finish
