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

# hold ID's lock for 1.5 s as another flush would, then do what its
# delivery does (DELIVER=1: the entry leaves the spool) or not
hold() {
  flock "$SPOOL/$ID/lock" sh -c "sleep 1.5; [ $1 = 0 ] || rm -rf '$SPOOL/$ID'" &
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
wait "$HOLDER"

hold 1
"$BENCHPROF" flush --strict --spool "$SPOOL" --retries 0 --timeout 2 \
  >"$TMP/f3.out" 2>"$TMP/f3.err"
check "strict, the other one delivered it: no failure" [ $? -eq 0 ]
check "strict: says the other one delivered it" \
  grep -q "^1 publication delivered by another benchprof$" "$TMP/f3.out"
wait "$HOLDER"
check "the spool is empty" [ -z "$(ls "$SPOOL")" ]
finish
