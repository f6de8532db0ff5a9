#!/bin/sh
# A message's severity follows the job's outcome.  benchprof run on a pull
# request whose store is unreachable (a closed port on 127.0.0.1): without
# strict, publishing and the comparison fail as warnings only (no
# `error:` line), one last warning says what failed and that the job
# keeps the benchmark's exit status, and the status is the benchmark's
# (0 or not); with --strict, or "strict": true in the configuration, the
# same failures are errors and the run exits 1 (a failing benchmark's
# own status still wins).  A CA bundle that cannot be read is said the
# same way before the command runs.  The benchmark's output always
# passes through.
. "$top_srcdir/tests/lib.sh"

outside_ci
cd "$TMP" || exit 1
# nothing listens on PORT: bound and closed again
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$TMP/harness.sh" <<'EOF'
#!/bin/sh
echo "harness output line"
printf '%s' '{"sort/1k": {"latency": {"value": 1234.5}}}' >"$1"
exit "${2:-0}"
EOF
chmod +x "$TMP/harness.sh"
echo '{"strict": true}' >"$TMP/strict-config.json"
HASH=0123456789abcdef0123456789abcdef01234567

# run CASE EXIT [options]: the harness exits EXIT; stdout, stderr and the
# exit status in $TMP/CASE.out, .err and $st; a pull request (a base
# branch) of its own spool, the store unreachable
run() {
  case_=$1
  code=$2
  shift 2
  "$BENCHPROF" run -q -o "$TMP/$case_.dir" --bmf "$TMP/$case_.json" \
    --project demo --branch feature --base-branch main --testbed box \
    --hash $HASH --store "http://127.0.0.1:$PORT/store" \
    --spool "$TMP/$case_.spool" --retries 0 --timeout 2 "$@" -- \
    "$TMP/harness.sh" "$TMP/$case_.json" "$code" \
    >"$TMP/$case_.out" 2>"$TMP/$case_.err"
  st=$?
}

# kept CASE EXIT: warnings only, the summary line last, the status kept
kept() {
  check "$1: exit $2, the benchmark's ($st)" [ "$st" -eq "$2" ]
  check "$1: the benchmark's output passes through" \
    grep -qx "harness output line" "$TMP/$1.out"
  check "$1: no error: line" sh -c "! grep -q 'error:' '$TMP/$1.err'"
  check "$1: the spooled publication is a warning" \
    grep -q '^benchprof: warning: publication spooled as ' "$TMP/$1.err"
  check "$1: the unread base is a warning" \
    grep -q '^benchprof: warning: compare: the base could not be read' \
    "$TMP/$1.err"
  check "$1: the last line says what failed and that the status is kept" \
    sh -c "tail -n 1 '$TMP/$1.err' | grep -qxF \"benchprof: warning: \
the benchmark's exit status ($2) is kept although publishing and the \
comparison failed (above); --strict fails the job on these\""
  check "$1: one such line" \
    [ "$(grep -c 'is kept although' "$TMP/$1.err")" -eq 1 ]
}

run pass 0
kept pass 0
run fail 3 --allow-failure
kept fail 3

# strict CASE: the same failures as errors, and the last line says that
# strict mode fails the job: exit 1
strict() {
  check "$1: exit 1 ($st)" [ "$st" -eq 1 ]
  check "$1: the benchmark's output passes through" \
    grep -qx "harness output line" "$TMP/$1.out"
  check "$1: the spooled publication is an error" \
    grep -q '^benchprof: error: publication spooled as ' "$TMP/$1.err"
  check "$1: the unread base is an error" \
    grep -q '^benchprof: error: compare: the base could not be read' \
    "$TMP/$1.err"
  check "$1: the last line says strict mode fails the job" \
    sh -c "tail -n 1 '$TMP/$1.err' | grep -qxF 'benchprof: error: \
publishing and the comparison failed (above), and strict mode fails the \
job on these: exit status 1'"
  check "$1: no 'is kept' warning" \
    sh -c "! grep -q 'is kept although' '$TMP/$1.err'"
}
run strict 0 --strict
strict strict
run strictcfg 0 --config "$TMP/strict-config.json"
strict strictcfg

# strict, the benchmark failing: its status wins, the failures are errors
run strictfail 3 --strict --allow-failure
check "strict, failing benchmark: exit 3 ($st)" [ "$st" -eq 3 ]
check "strict, failing benchmark: the publication is an error" \
  grep -q '^benchprof: error: publication spooled as ' "$TMP/strictfail.err"
check "strict, failing benchmark: the last line says the status is its own" \
  sh -c "tail -n 1 '$TMP/strictfail.err' | grep -qxF 'benchprof: error: \
publishing and the comparison failed (above); the exit status is the \
benchmark'\"'\"'s (3)'"

# not a pull request: only publishing is named
"$BENCHPROF" run -q -o "$TMP/push.dir" --bmf "$TMP/push.json" \
  --project demo --branch main --testbed box --hash $HASH \
  --store "http://127.0.0.1:$PORT/store" --spool "$TMP/push.spool" \
  --retries 0 --timeout 2 -- "$TMP/harness.sh" "$TMP/push.json" 0 \
  >"$TMP/push.out" 2>"$TMP/push.err"
check "push: exit 0 ($?)" [ $? -eq 0 ]
check "push: no error: line" sh -c "! grep -q 'error:' '$TMP/push.err'"
check "push: the last line names publishing alone" \
  sh -c "tail -n 1 '$TMP/push.err' | grep -qxF \"benchprof: warning: the \
benchmark's exit status (0) is kept although publishing failed (above); \
--strict fails the job on it\""

# a CA bundle that cannot be read: a warning before the command, which
# runs, then the publication fails (an error and exit 1 under --strict,
# the command not run)
run ca 0 --ca-file "$TMP/no-such-ca.pem"
check "ca: exit 0 ($st)" [ "$st" -eq 0 ]
check "ca: the command ran" grep -qx "harness output line" "$TMP/ca.out"
check "ca: no error: line" sh -c "! grep -q 'error:' '$TMP/ca.err'"
check "ca: the bundle is a warning" grep -q \
  "^benchprof: warning: --ca-file: cannot read the CA bundle" "$TMP/ca.err"
check "ca: the last line says the status is kept" \
  sh -c "tail -n 1 '$TMP/ca.err' | grep -q 'is kept although publishing'"
run cas 0 --ca-file "$TMP/no-such-ca.pem" --strict
check "ca, strict: exit 1 ($st)" [ "$st" -eq 1 ]
check "ca, strict: the bundle is an error" grep -q \
  "^benchprof: error: --ca-file: cannot read the CA bundle" "$TMP/cas.err"
check "ca, strict: the command did not run" \
  sh -c "! grep -q 'harness output line' '$TMP/cas.out'"

finish
