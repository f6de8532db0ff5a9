#!/bin/sh
# What a server's answer may cost (issue 21, F2 and the Retry-After and
# flush bounds), against tests/servers/put_server.py and the Bencher
# stand-in: an endless chunked body and endless header lines fail the
# request at their caps with a clear error (not retried, memory bounded:
# without the caps the client reads until it runs out of memory); a
# Retry-After longer than --max-retry-after is cut to it (the wait the
# debug line announces, not a timing); a deadline cuts a hanging attempt
# and stops retries, and `flush --deadline` leaves what it could not send
# in the spool.  Every command runs under timeout(1), so a missing bound
# fails the test instead of hanging it.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"
tool="$top_builddir/tests/unit/store_tool"

# start NAME FAULTS: a put_server answering with FAULTS; its base URL in $url
start() {
  python3 "$SERVERS/put_server.py" --root "$TMP/$1.root" \
    --port-file "$TMP/$1.port" --faults "$2" >"$TMP/$1.log" \
    2>"$TMP/$1.err" &
  PIDS="$PIDS $!"
  port=$(wait_port "$TMP/$1.port")
  [ -n "$port" ] || { echo "FAIL: server $1 did not start"; exit 1; }
  url="http://127.0.0.1:$port/runs"
}

# get NAME [store_tool options]: GET a key from server NAME, stderr in
# $TMP/NAME.out; the exit status is store_tool's (124: it never ended)
get() {
  name=$1
  shift
  timeout 120 "$tool" -v --retries 2 --backoff-ms 50 "$@" get "$url" \
    k/object >/dev/null 2>"$TMP/$name.out"
}

attempts() {
  grep -c '(attempt [0-9]*/[0-9]*)$' "$1"
}

# 1. an endless chunked body: cut at the cap, BPE_NET (12), one attempt
start endless endless,endless
get endless --max-answer 1048576
rc=$?
check "endless body: fails with BPE_NET (got $rc)" [ $rc -eq 12 ]
check "endless body: the error names the cap" \
  grep -q "GET http://127.0.0.1:[0-9]*/runs/k/object: the answer's body bytes are larger than 1048576 bytes" "$TMP/endless.out"
check "endless body: not retried" [ "$(attempts "$TMP/endless.out")" -eq 1 ]
# the default cap (256 MiB) holds too; peak memory stays near it
/usr/bin/time -f '%M' -o "$TMP/endless.rss" timeout 120 "$tool" --retries 0 \
  get "$url" k/object >/dev/null 2>"$TMP/endless-default.out"
rc=$?
check "endless body, default cap: fails with BPE_NET (got $rc)" [ $rc -eq 12 ]
check "endless body, default cap: named" \
  grep -q "larger than 268435456 bytes" "$TMP/endless-default.out"
check "endless body, default cap: peak RSS under 600 MB ($(cat "$TMP/endless.rss") KB)" \
  [ "$(tail -1 "$TMP/endless.rss")" -lt 600000 ]

# 2. header lines without end
start headers bigheaders
get headers
rc=$?
check "endless headers: fails with BPE_NET (got $rc)" [ $rc -eq 12 ]
check "endless headers: the error says so" \
  grep -q "the answer's headers are larger than 65536 bytes" "$TMP/headers.out"
check "endless headers: not retried" [ "$(attempts "$TMP/headers.out")" -eq 1 ]

# 3. Retry-After: 3600 is cut to the operator's limit
mkdir -p "$TMP/ra.root/runs/k"
echo hello >"$TMP/ra.root/runs/k/object"
start ra 429:3600
get ra --max-retry-after-ms 300
rc=$?
check "Retry-After: delivered after the wait (got $rc)" [ $rc -eq 0 ]
check "Retry-After 3600 s waited 300 ms" \
  grep -q "retrying in 300 ms" "$TMP/ra.out"

# 4. a deadline: a hanging server and an attempt limit of 60 s; the
#    deadline (1.5 s) cuts the attempt and no retry starts after it
start hang hang:90,hang:90,hang:90
get hang --timeout-ms 60000 --deadline-ms 1500
rc=$?
check "deadline: the hanging request fails with BPE_NET (got $rc)" [ $rc -eq 12 ]
check "deadline: one attempt, cut" [ "$(attempts "$TMP/hang.out")" -eq 1 ]
check "deadline: the error says no time was left" \
  grep -q "ran out before another attempt\|no time for another attempt" \
  "$TMP/hang.out"
# 503s and a first backoff of 5 s: the deadline of 2 s leaves no time for it
start busy 503,503,503
get busy --backoff-ms 5000 --deadline-ms 2000
rc=$?
check "deadline: 503 then no retry (got $rc)" [ $rc -eq 12 ]
check "deadline: one attempt" [ "$(attempts "$TMP/busy.out")" -eq 1 ]
check "deadline: the message says why" \
  grep -q "HTTP 503: injected 503; the deadline leaves no time for another attempt" \
  "$TMP/busy.out"

# 5. benchprof: a publication spooled while Bencher answers 503, then a
#    flush while it hangs: --deadline ends it, the entry stays; then a
#    flush while it asks to wait an hour: --max-retry-after cuts the wait
make_harness
HASH=0123456789abcdef0123456789abcdef01234567
export BENCHER_API_TOKEN="$TOKEN"
standin bencher --faults 503
BENCHER_HOST=$BENCHER_URL timeout 120 "$BENCHPROF" run -q \
  -o "$TMP/out" --bmf "$TMP/h.json" --project demo --branch main \
  --testbed box --hash $HASH --store "file://$TMP/store" \
  --spool "$TMP/spool" --retries 0 --timeout 2 -- \
  "$TMP/harness.sh" "$TMP/h.json" 0 2>"$TMP/run.err"
check "flush: a publication was spooled" [ "$(ls "$TMP/spool" | wc -l)" -eq 1 ]
control '{"faults": "hang:90,hang:90,hang:90,hang:90"}'
timeout 60 "$BENCHPROF" flush --spool "$TMP/spool" --timeout 60 --retries 3 \
  --deadline 1.5 >"$TMP/flush.out" 2>&1
rc=$?
check "flush --deadline: ends with 1 (got $rc)" [ $rc -eq 1 ]
check "flush --deadline: still spooled, and why" \
  grep -q "still spooled.*timed out.*the deadline leaves no time" "$TMP/flush.out"
check "flush --deadline: the entry is kept" [ "$(ls "$TMP/spool" | wc -l)" -eq 1 ]
control '{"faults": "429:3600"}'
timeout 60 "$BENCHPROF" flush --spool "$TMP/spool" --max-retry-after 0.2 -v \
  >"$TMP/flush2.out" 2>&1
rc=$?
check "flush --max-retry-after: delivered (got $rc)" [ $rc -eq 0 ]
check "flush --max-retry-after: waited 200 ms" \
  grep -q "retrying in 200 ms" "$TMP/flush2.out"
check "bad --deadline is a usage error" \
  sh -c '"$1" flush --deadline soon >/dev/null 2>&1; [ $? -eq 2 ]' sh "$BENCHPROF"
finish
