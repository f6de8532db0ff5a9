#!/bin/sh
# Two benchprof processes flushing one spool (two completed hooks at
# once): a publication the other one is delivering (its lock held) is
# skipped.  Without --strict that is no failure.  With --strict, flush
# waits for the other one: the publication it delivered (gone from the
# spool) is no failure either, one it could not deliver is.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"

outside_ci
make_harness
# a port nothing listens on: the publication stays in the spool
DEAD=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
SPOOL="$TMP/spool"
"$BENCHPROF" run -q -o "$TMP/out" --bmf "$TMP/h.json" --project demo \
  --branch main --testbed box --store "http://127.0.0.1:$DEAD/s" \
  --spool "$SPOOL" --retries 0 --timeout 2 -- \
  "$TMP/harness.sh" "$TMP/h.json" >/dev/null 2>"$TMP/run.err"
ID=$(ls "$SPOOL")
check "one publication waits in the spool" [ -n "$ID" ] && [ -d "$SPOOL/$ID" ]

# hold DELIVER [SECONDS]: hold ID's lock (1.5 s) as another flush would,
# then do what its delivery does (DELIVER=1: the entry leaves the spool)
# or not
hold() {
  # its own process group, so that all of it can be stopped at once
  setsid flock "$SPOOL/$ID/lock" sh -c "sleep ${2:-1.5}; [ $1 = 0 ] || rm -rf '$SPOOL/$ID'" &
  HOLDER=$!
  sleep 0.3
}

hold 0
"$BENCHPROF" flush --spool "$SPOOL" --retries 0 >"$TMP/f1.out" 2>"$TMP/f1.err"
check "not strict: the busy one is skipped, no failure" [ $? -eq 0 ]
check "not strict: says another benchprof delivers it" \
  grep -q "$ID: skipped, another benchprof is delivering it" "$TMP/f1.out"
wait "$HOLDER"

hold 0
"$BENCHPROF" flush --strict --spool "$SPOOL" --retries 0 --timeout 2 \
  >"$TMP/f2.out" 2>"$TMP/f2.err"
check "strict, the other one could not deliver it: a failure" [ $? -eq 1 ]
check "strict, the other one could not deliver it: says it is still there" \
  grep -q "^1 publication the other benchprof was delivering still in the spool" \
  "$TMP/f2.out"
wait "$HOLDER"

# the wait ends with --deadline, and with SIGTERM, long before the other
# one lets go (30 s)
hold 0 30
"$BENCHPROF" flush --strict --spool "$SPOOL" --retries 0 --timeout 2 \
  --deadline 1 >"$TMP/f4.out" 2>"$TMP/f4.err"
check "strict, --deadline 1: a failure" [ $? -eq 1 ]
check "strict, --deadline 1: ended while the other one still held it" \
  kill -0 "$HOLDER"
"$BENCHPROF" flush --strict --spool "$SPOOL" --retries 0 --timeout 2 \
  >"$TMP/f5.out" 2>"$TMP/f5.err" &
FLUSH=$!
sleep 1
kill -TERM "$FLUSH"
wait "$FLUSH"
check "strict, SIGTERM while waiting: a failure" [ $? -ne 0 ]
check "strict, SIGTERM: ended while the other one still held it" \
  kill -0 "$HOLDER"
check "strict, SIGTERM: says it was interrupted, once" \
  [ "$(grep -c "publishing interrupted by" "$TMP/f5.err")" -eq 1 ]
kill -- -"$HOLDER" 2>/dev/null
wait "$HOLDER" 2>/dev/null

hold 1
"$BENCHPROF" flush --strict --spool "$SPOOL" --retries 0 --timeout 2 \
  >"$TMP/f3.out" 2>"$TMP/f3.err"
check "strict, the other one delivered it: no failure" [ $? -eq 0 ]
check "strict: says the other one delivered it" \
  grep -q "^1 publication delivered by another benchprof$" "$TMP/f3.out"
wait "$HOLDER"
check "the spool is empty" [ -z "$(ls "$SPOOL")" ]
finish
