#!/bin/sh
# Publishing many objects to a store across a network (issue 23): the
# connections one publication opens are reused, its artifacts go several
# at a time (at most 8), one object failing among many is retried alone
# (the others are stored once), and the stored manifest still comes after
# every artifact and the latest pointer after the manifest.  The store is
# put_server.py with a network's delays (20 ms a request, 50 ms a new
# connection); it counts the connections it accepted and the requests it
# handled at the same time.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need_workload hooks_harness
unset BENCHPROF_CONFIG GITHUB_ACTIONS GITLAB_CI
HASH=0123456789abcdef0123456789abcdef01234567
BENCHES=20   # marked benchmarks: 5 artifacts each, and the run's own 5

# store NAME [put_server options]: a store with the network's delays; its
# URL in $url, its request log in $TMP/NAME.log, its counts in
# $TMP/NAME.stats
store() {
  name=$1
  shift
  python3 "$SERVERS/put_server.py" --root "$TMP/$name.root" \
    --port-file "$TMP/$name.port" --stats "$TMP/$name.stats" \
    --request-delay-ms 20 --connect-delay-ms 50 "$@" \
    >"$TMP/$name.log" 2>&1 &
  PIDS="$PIDS $!"
  port=$(wait_port "$TMP/$name.port")
  [ -n "$port" ] || { echo "FAIL: the store did not start"; \
                      cat "$TMP/$name.log"; exit 1; }
  url="http://127.0.0.1:$port/b"
}

# publish NAME [options]: a run of $BENCHES marked benchmarks published
# to the store NAME
publish() {
  name=$1
  shift
  "$BENCHPROF" run -q -o "$TMP/$name.out" --project demo --branch main \
    --testbed box --hash $HASH --store "$url" --spool "$TMP/$name.spool" \
    --retry-delay 0.05 --timeout 10 "$@" \
    -- "$WORKLOADS/hooks_harness" short $BENCHES 2 >/dev/null \
    2>"$TMP/$name.err"
}

# stat NAME FIELD: a count of the store NAME
stat() {
  python3 -c "import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" \
    "$TMP/$1.stats" "$2"
}

# order_ok LOG BENCHES: each artifact stored (200) once, every artifact's
# PUT before the manifest's, the manifest's before the latest pointer's
order_ok() {
  python3 - "$1" "$2" <<'PY'
import collections, sys
log, benches = sys.argv[1], int(sys.argv[2])
lines = [l.split() for l in open(log) if l.startswith(("PUT ", "GET "))]
ok = [(m, p) for m, p, s in lines if s.startswith("2")]
puts = [p for m, p in ok if m == "PUT"]
# the run's artifacts: under its testbed, neither its manifest nor the
# store's static pages (index.html, ~*.json: written after latest)
arts = [p for p in puts if "/box/" in p
        and not p.endswith(("/manifest.json", "/index.html"))]
dup = [p for p, n in collections.Counter(puts).items() if n > 1]
assert not dup, dup
assert len(arts) == 5 * benches + 5, len(arts)
man = [i for i, p in enumerate(puts) if p.endswith("/box/manifest.json")]
lat = [i for i, p in enumerate(puts) if "/latest/" in p]
assert len(man) == 1 and len(lat) == 1, (man, lat)
last_art = max(i for i, p in enumerate(puts) if p in arts)
assert last_art < man[0] < lat[0], (last_art, man, lat)
PY
}

# 1. all goes well: few connections, several requests at a time
store ok
publish ok
check "published: exit 0" [ $? -eq 0 ]
check "published: nothing left in the spool" \
  [ "$(ls "$TMP/ok.spool" | wc -l)" -eq 0 ]
check "every artifact stored once; manifest after them, latest last" \
  order_ok "$TMP/ok.log" $BENCHES
check "the stored manifest matches the artifacts" store_ok "$TMP/ok.root/b"
conns=$(stat ok connections)
reqs=$(stat ok requests)
inflight=$(stat ok max_in_flight)
check "connections reused: $conns for $reqs requests (at most 16)" \
  [ "$conns" -ge 1 -a "$conns" -le 16 -a "$conns" -lt $((reqs / 4)) ]
check "artifacts sent in parallel: up to $inflight at a time (2..8)" \
  [ "$inflight" -ge 2 -a "$inflight" -le 8 ]

# 2. one object fails twice among 105: retried alone, then delivered
store retry --fail-path "/s7/profile.pb.gz:2"
publish retry --retries 2
check "one object failing twice: delivered (exit 0)" [ $? -eq 0 ]
check "one object failing twice: nothing left in the spool" \
  [ "$(ls "$TMP/retry.spool" | wc -l)" -eq 0 ]
check "the failing object sent 3 times, each other one once" python3 - \
  "$TMP/retry.log" <<'PY'
import collections, sys
puts = collections.Counter(l.split()[1] for l in open(sys.argv[1])
                           if l.startswith("PUT "))
bad = [p for p in puts if p.endswith("/s7/profile.pb.gz")]
assert len(bad) == 1 and puts[bad[0]] == 3, puts
assert all(n == 1 for p, n in puts.items() if p != bad[0]), puts
PY
check "retry: manifest after every artifact, latest last" \
  order_ok "$TMP/retry.log" $BENCHES

# 3. one object fails past its retries: every other one is stored, the
# manifest and latest wait; flush sends that object, then them
store left --fail-path "/s7/profile.pb.gz:2"
publish left --retries 1
check "one object failing for good: spooled" \
  [ "$(ls "$TMP/left.spool" | wc -l)" -eq 1 ]
check "one object failing for good: no manifest or latest stored yet" \
  sh -c "! grep -qE '^PUT .*(/manifest.json|/latest/).* 200' '$TMP/left.log'"
check "one object failing for good: every other artifact stored" \
  [ "$(grep -c '^PUT .* 200$' "$TMP/left.log")" -eq $((5 * BENCHES + 4)) ]
before=$(wc -l <"$TMP/left.log")
"$BENCHPROF" flush --spool "$TMP/left.spool" >"$TMP/left.flush" 2>&1
check "flush delivers it" [ $? -eq 0 ]
check "flush sends that object alone, then the manifest and latest" \
  python3 - "$TMP/left.log" "$before" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()[int(sys.argv[2]):]
puts = [l.split()[1] for l in lines if l.startswith("PUT ")]
assert len(puts) >= 3, puts
assert puts[0].endswith("/s7/profile.pb.gz"), puts
assert puts[1].endswith("/box/manifest.json"), puts
assert "/latest/" in puts[2], puts
# then only the store's static pages
assert all(p.endswith("/index.html") or p.rsplit("/", 1)[1].startswith("~")
           for p in puts[3:]), puts
PY
check "flush: manifest after every artifact, latest last" \
  order_ok "$TMP/left.log" $BENCHES
check "flush: the stored manifest matches the artifacts" \
  store_ok "$TMP/left.root/b"
finish
