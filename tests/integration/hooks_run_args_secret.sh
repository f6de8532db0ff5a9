#!/bin/sh
# BENCHPROF_RUN_ARGS that benchprof run refuses is named, never shown, by
# benchprof-wrap (its warning, and its error in strict mode) and by the
# Bencher entrypoint: its options may hold a secret (a store URL's
# user:password@, a signed URL's X-Amz-Signature, a token).  The
# command still runs unprofiled (strict: exit 2, not run), and benchprof's
# own reason is still given (with the secret hidden).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"
. "$top_srcdir/tests/hooks_lib.sh"

cat >"$TMP/on.json" <<JSON
{"enabled": true, "spool": "$TMP/spool", "store": {"url": "file://$TMP/store"},
 "network": {"retries": 0, "timeout": 5}}
JSON
mkdir -p "$TMP/job"
cd "$TMP/job" || exit 1
PW="SEKRETpw$$"
SIG="SEKRETsig$$"
TOK="SEKRETtok$$"
F="$TMP/bmf.json"
cat >"$TMP/harness.sh" <<SH
#!/bin/sh
echo ran >>"$TMP/ran.txt"
printf '%s' '{"b": {"latency": {"value": 1}}}' >"$F"
SH
chmod +x "$TMP/harness.sh"

# each: refused options with a secret (a URL with credentials, a signed
# query, a token beside an unknown option); NAME ARGS
cases() {
  "$1" pw "--store https://u:$PW@store.example/x"
  "$1" sig "--bogus-option --store https://store.example/x?X-Amz-Signature=$SIG"
  "$1" tok "--bogus-option --token $TOK"
}

# wrap NAME ARGS [strict]: benchprof-wrap runs the harness
wrap() {
  rm -f "$TMP/ran.txt"
  BENCHPROF_STRICT=${3:-0} BENCHPROF_CONFIG="$TMP/on.json" \
    BENCHPROF_RUN_ARGS=$2 benchprof-wrap "$TMP/harness.sh" \
    >"$TMP/w_$1.out" 2>"$TMP/w_$1.err"
  rc=$?
}

# no_secret FILES...: none of the secrets in any of them
no_secret() {
  ! grep -q -e "$PW" -e "$SIG" -e "$TOK" "$@"
}

wrap_case() {
  wrap "$1" "$2"
  check "wrap $1: exit 0, the command runs (was $rc)" \
    sh -c "[ $rc -eq 0 ] && [ -f '$TMP/ran.txt' ]"
  check "wrap $1: the warning names the variable" grep -q \
    "warning: BENCHPROF_RUN_ARGS is not usable by benchprof run (.*); running the command unprofiled" \
    "$TMP/w_$1.err"
  check "wrap $1: no secret on stdout or stderr" \
    no_secret "$TMP/w_$1.out" "$TMP/w_$1.err"
  wrap "s$1" "$2" 1
  check "wrap $1, strict: exit 2, the command not run (was $rc)" \
    sh -c "[ $rc -eq 2 ] && [ ! -f '$TMP/ran.txt' ]"
  check "wrap $1, strict: the error names the variable" grep -q \
    "error: BENCHPROF_RUN_ARGS is not usable by benchprof run" \
    "$TMP/w_s$1.err"
  check "wrap $1, strict: no secret on stdout or stderr" \
    no_secret "$TMP/w_s$1.out" "$TMP/w_s$1.err"
}
cases wrap_case
check "wrap: benchprof's reason is given (a URL with credentials)" \
  grep -q "got a URL with credentials" "$TMP/w_pw.err"
check "wrap: benchprof's reason is given (the unknown option)" \
  grep -q "bogus-option" "$TMP/w_tok.err"

# the Bencher entrypoint: the same refusal, the same silence
entry() {
  rm -f "$TMP/ran.txt"
  BENCHPROF_STRICT=${3:-0} BENCHPROF_CONFIG="$TMP/on.json" \
    BENCHPROF_RUN_ARGS=$2 sh "$HOOKS/bencher/entrypoint.sh" --file "$F" \
    -- "$TMP/harness.sh" >"$TMP/b_$1.out" 2>"$TMP/b_$1.err"
  rc=$?
}
entry_case() {
  entry "$1" "$2"
  check "bencher $1: the command runs (was $rc)" [ -f "$TMP/ran.txt" ]
  check "bencher $1: the warning names the variable" grep -q \
    "BENCHPROF_RUN_ARGS is not usable by benchprof run" "$TMP/b_$1.err"
  check "bencher $1: no secret on stdout or stderr" \
    no_secret "$TMP/b_$1.out" "$TMP/b_$1.err"
  entry "s$1" "$2" 1
  check "bencher $1, strict: exit 2, the command not run (was $rc)" \
    sh -c "[ $rc -eq 2 ] && [ ! -f '$TMP/ran.txt' ]"
  check "bencher $1, strict: no secret on stdout or stderr" \
    no_secret "$TMP/b_s$1.out" "$TMP/b_s$1.err"
}
cases entry_case
finish
