#!/bin/sh
# Signals sent to benchprof go to the target, and the partial profile is
# written: SIGINT reaches the sigint workload's handler (which prints a line
# and exits 42); SIGTERM kills a shell loop that keeps the default action
# (exit 143).
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need_workload sigint

# wait_for FILE: up to 30 s for FILE to appear
wait_for() {
  i=0
  while [ ! -e "$1" ] && [ "$i" -lt 300 ]; do
    sleep 0.1
    i=$((i + 1))
  done
  [ -e "$1" ]
}

# run_and_signal NAME SIGNAL READY CMD...: starts benchprof on CMD in the
# background, waits for CMD to create READY, lets it run a little, sends
# SIGNAL to benchprof (not to CMD) and waits; exit status in $status
run_and_signal() {
  name=$1 sig=$2 ready=$3
  shift 3
  "$BENCHPROF" record -o "$TMP/$name" "$@" >"$TMP/$name.out" \
    2>"$TMP/$name.err" &
  bp=$!
  if wait_for "$ready"; then
    pass "$name: the target started"
    sleep 0.3  # some samples to write
    kill "-$sig" "$bp"
  else
    fail "$name: the target did not start within 30 s"
    kill -KILL "$bp"
  fi
  wait "$bp"
  status=$?
}

run_and_signal int INT "$TMP/int.ready" -- "$WORKLOADS/sigint" \
  "$TMP/int.ready"
expect_status int 42
check "int: the target's handler ran and printed its line" \
  grep -qx 'sigint: caught SIGINT' "$TMP/int.out"
validate int
pycheck "int: the partial profile has the work and exit status 42" <<'PY'
import os
import artifacts as A
a = A.load_dir(os.path.join(os.environ["TMP"], "int"))
assert a["summary"]["exit_status"] == 42, a["summary"]["exit_status"]
bad = A.expect_in_dso(a, "sigint_work", "sigint", 50)
assert not bad, "\n".join(bad)
PY

run_and_signal term TERM "$TMP/term.ready" -- \
  sh -c 'touch "$1"; while :; do :; done' sh "$TMP/term.ready"
expect_status term 143
validate term
pycheck "term: the partial profile has samples and exit status 143" <<'PY'
import os
import artifacts as A
a = A.load_dir(os.path.join(os.environ["TMP"], "term"))
assert a["summary"]["exit_status"] == 143, a["summary"]["exit_status"]
assert a["summary"]["samples"] > 0, "no samples"
PY

finish
