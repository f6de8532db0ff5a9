#!/bin/sh
# A TERM to benchprof run counts as passed on to the command only when the
# command was still running; the command's own exit status then says how
# the run ended ("unless the command that got the signal exited
# otherwise"):
#   1. the command traps TERM and exits 0: benchprof exits 0, the run is
#      marked interrupted;
#   2. the command had already exited 0 but was not reaped yet when TERM
#      came (benchprof is held stopped from before the exit until after
#      the signal was sent; resumed, it handles the pending signal
#      before it returns to the loop that reaps: the order is certain,
#      as benchprof runs no other thread while a command runs): it
#      never got the signal, so benchprof exits 143 as for a signal
#      between commands, and the run is marked interrupted.
# shellcheck disable=SC1091 # the library is make check's
. "${top_srcdir:?run through make check}/tests/lib.sh"
outside_ci
unset BENCHPROF_CONFIG BENCHPROF_STRICT BENCHPROF_OUTPUT BENCHPROF_RUN_ARGS

# the harness: writes its pid to $1, traps TERM (says so in $1, exits 0),
# waits for the file $2, prints its results and exits 0
cat >"$TMP/harness.sh" <<'SH'
#!/bin/sh
trap 'echo "got TERM" >>"$1"; echo "{\"b\": {\"latency\": {\"value\": 1}}}"; exit 0' TERM
echo "pid $$" >"$1"
while [ ! -e "$2" ]; do sleep 0.01; done
echo '{"b": {"latency": {"value": 1}}}'
exit 0
SH
chmod +x "$TMP/harness.sh"

# outcome DIR: the manifest's outcome and signal
outcome() {
  python3 -c 'import json, sys; m = json.load(open(sys.argv[1]))
print(m.get("outcome"), m.get("signal"))' "$1/manifest.json"
}

# start TAG: benchprof run of the harness in the background ($bp), once
# the harness runs ($hpid)
start() {
  "$BENCHPROF" run -q --no-publish -o "$TMP/run.$1" --adapter json -- \
    "$TMP/harness.sh" "$TMP/mark.$1" "$TMP/go.$1" \
    >"$TMP/out.$1" 2>"$TMP/err.$1" &
  bp=$!
  wait_line "$TMP/mark.$1" '^pid' 30 || fail "$1: the harness never started"
  hpid=$(sed -n 's/^pid //p' "$TMP/mark.$1")
}

# zombie PID: the process has exited and is not reaped
zombie() {
  [ "$(sed 's/.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null)" = Z ]
}

# 1. TERM while the harness runs: it gets it and exits 0
start trapped
kill -TERM $bp
wait $bp
st=$?
check "trapped: the harness got TERM" grep -q "got TERM" "$TMP/mark.trapped"
check "trapped: the harness's own status 0 (was $st)" [ "$st" -eq 0 ]
check "trapped: marked interrupted by SIGTERM" \
  [ "$(outcome "$TMP/run.trapped")" = "interrupted SIGTERM" ]

# 2. TERM after the harness exited, before benchprof reaped it
start exited
kill -STOP $bp
touch "$TMP/go.exited"
n=0
while ! zombie "$hpid" && [ $n -lt 3000 ]; do sleep 0.01; n=$((n + 1)); done
check "exited: the harness exited and waits to be reaped" zombie "$hpid"
kill -TERM $bp
kill -CONT $bp
wait $bp
st=$?
# not_got FILE: the harness did not say it got TERM
not_got() {
  ! grep -q "got TERM" "$1"
}
check "exited: the harness never got TERM" not_got "$TMP/mark.exited"
check "exited: the signal's status 143, not the harness's 0 (was $st)" \
  [ "$st" -eq 143 ]
check "exited: marked interrupted by SIGTERM" \
  [ "$(outcome "$TMP/run.exited")" = "interrupted SIGTERM" ]
finish
