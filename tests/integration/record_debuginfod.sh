#!/bin/sh
# Debug files from debuginfod (--debuginfod), against a local debuginfod
# server (Debian package debuginfod) serving the debug info of a library
# the test builds: tests/workloads/fidlib.c built -g with a build id, its
# debug info split off (objcopy --only-keep-debug) into the server's
# folder, the library stripped; fidmain calls it.
#  - Off (the default), with DEBUGINFOD_URLS naming the server as Debian
#    sets it for every login: the server gets no request, and the
#    library's local function has no name (fn_START).
#  - --debuginfod (its servers from DEBUGINFOD_URLS): the function is
#    named in folded, pprof (go tool pprof -top) and summary.json, with
#    nearly all the samples; the server was asked for the library's build
#    id; stderr says how many debug files were found.
#  - A second run with the same cache (symbols.debuginfod_cache): no build
#    id is asked for again (the library's, found, nor any not found), the
#    name is still there.
#  - The config key symbols.debuginfod alone turns the lookups on;
#    --no-debuginfod turns them off over it.
#  - A server that never answers: the run ends within the time budget
#    (symbols.debuginfod_timeout, 2 s here, where libdebuginfod alone
#    waits 90 s), says so, and the command's output and status survive.
#  - --debuginfod with no server anywhere is a usage error.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"
. "$top_srcdir/tests/publish_lib.sh"

need debuginfod "Debian package debuginfod (scripts/setup-debian.sh --test)"
need objcopy "binutils"
need python3 "scripts/setup-debian.sh --test"

# the library and the program
mkdir -p "$TMP/lib" "$TMP/srv"
# $CC is unquoted: it may carry flags
${CC:-cc} -g -O1 -fPIC -shared -Wl,--build-id -o "$TMP/libfid.full.so" \
  "$top_srcdir/tests/workloads/fidlib.c" &&
  objcopy --only-keep-debug "$TMP/libfid.full.so" "$TMP/srv/libfid.debug" &&
  objcopy --strip-all "$TMP/libfid.full.so" "$TMP/lib/libfid.so" &&
  ${CC:-cc} -g -O1 -o "$TMP/fidmain" "$top_srcdir/tests/workloads/fidmain.c" \
    -L"$TMP/lib" -lfid -Wl,-rpath,"$TMP/lib" ||
  { fail "cannot build the library and its program"; finish; }
buildid=$(python3 - "$TMP/lib/libfid.so" <<'PY'
import re, subprocess, sys
out = subprocess.run(["readelf", "-n", sys.argv[1]], capture_output=True,
                     text=True).stdout
print(re.search(r"Build ID: ([0-9a-f]+)", out).group(1))
PY
)
[ -n "$buildid" ] || { fail "the library has no build id"; finish; }
check "the stripped library does not name fid_hidden_spin" \
  sh -c '! nm -D "$1" | grep -q fid_hidden_spin && ! nm "$1" 2>/dev/null | grep -q fid_hidden_spin' \
  sh "$TMP/lib/libfid.so"

# free_port: a port nothing listens on now
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# metric NAME: the value of a line of the server's /metrics, 0 when absent
metric() {
  python3 - "$port" "$1" <<'PY'
import sys, urllib.request
port, name = sys.argv[1:3]
text = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % port,
                              timeout=10).read().decode()
vals = [float(l.rsplit(" ", 1)[1]) for l in text.splitlines()
        if l.startswith(name + " ")]
print(int(vals[0]) if vals else 0)
PY
}

# start the server; it has scanned its folder when the file is counted
started=
for try in 1 2 3; do
  port=$(free_port)
  debuginfod -F "$TMP/srv" -p "$port" -d "$TMP/debuginfod.sqlite" -v \
    >"$TMP/debuginfod.log" 2>&1 &
  PIDS="$PIDS $!"
  i=0
  while [ $i -lt 100 ]; do
    if [ "$(metric 'scanned_files_total{source="file"}' 2>/dev/null)" = 1 ] &&
       [ "$(metric 'thread_work_pending{role="scan"}')" = 0 ]; then
      started=yes
      break
    fi
    sleep 0.2
    i=$((i + 1))
  done
  [ -n "$started" ] && break
done
[ -n "$started" ] || { fail "debuginfod did not start or scan"; cat "$TMP/debuginfod.log" >&2; finish; }
# requests: the debug info requests the server has counted; it counts one
# after answering it, so read until two reads half a second apart agree
requests() {
  a=$(metric 'http_requests_total{type="debuginfo"}')
  while sleep 0.5; b=$(metric 'http_requests_total{type="debuginfo"}'); [ "$a" != "$b" ]; do
    a=$b
  done
  echo "$a"
}
URL="http://127.0.0.1:$port"

# 1. off: DEBUGINFOD_URLS set as Debian sets it, no --debuginfod
DEBUGINFOD_URLS=$URL record off -- "$TMP/fidmain"
expect_status off 0
check "off: the server got no request" [ "$(requests)" = 0 ]
check "off: the library's function is not named" \
  sh -c '! grep -q fid_hidden_spin "$1/off/profile.folded"' sh "$TMP"
check "off: its addresses are one fn_START of libfid.so" \
  grep -q "fn_[0-9a-f]* (in libfid.so)" "$TMP/off/profile.folded"

# 2. on: the servers from DEBUGINFOD_URLS, the cache in the configuration
printf '{"symbols": {"debuginfod_cache": "%s"}}\n' "$TMP/cache" >"$TMP/cfg.json"
DEBUGINFOD_URLS=$URL record on --config "$TMP/cfg.json" --debuginfod \
  -- "$TMP/fidmain"
expect_status on 0
check "on: the server was asked for the library's debug info" \
  grep -q "GET /buildid/$buildid/debuginfo 200" "$TMP/debuginfod.log"
check "on: stderr counts the debug files found" \
  grep -q "debuginfod: debug files for 1 of the [0-9]* module" "$TMP/on.err"
check "on: the file is in the cache" test -s "$TMP/cache/$buildid/debuginfo"
validate on
pycheck "on: fid_hidden_spin is named in folded, pprof and summary.json, with most samples" <<'PY'
import os
import artifacts as A
d = os.path.join(os.environ["TMP"], "on")
name = "fid_hidden_spin"
stacks = A.folded_stacks(os.path.join(d, "profile.folded"))
total = A.total_count(stacks)
self_ = A.self_counts(stacks)
print("  folded: %s %d of %d samples" % (name, self_[name], total))
assert self_[name] >= 0.8 * total, self_.most_common(5)
rows, ptotal = A.go_pprof_top(os.path.join(d, "profile.pb.gz"))
pname = [n for n in rows if n.startswith("fid_hidden_spin")]
assert pname and rows[pname[0]][0] >= 0.8 * ptotal, (pname, rows)
s = A.read_summary(os.path.join(d, "summary.json"))
top = s["top_functions"][0]
assert top["name"] == "fid_hidden_spin" and top["lib"] == "libfid.so", top
PY

# 3. again with the same cache: no further request
DEBUGINFOD_URLS=$URL record again --config "$TMP/cfg.json" --debuginfod \
  -- "$TMP/fidmain"
expect_status again 0
# which modules get samples varies (ld.so, libc: a sample or none), so a
# module first sampled now may be asked for; one asked before may not
requests >/dev/null  # the log is written: the counts have settled
pycheck "again: no build id was asked for twice (the cache answered, found or not)" "$TMP/debuginfod.log" "$buildid" <<'PY'
import collections, re, sys
log, lib = sys.argv[1:3]
asked = collections.Counter(re.findall(r"GET /buildid/([0-9a-f]+)/debuginfo",
                                       open(log).read()))
print("  requests per build id: %s" % dict(asked))
assert asked[lib] == 1, asked
assert all(n == 1 for n in asked.values()), asked
PY
check "again: the function is still named" \
  grep -q "fid_hidden_spin" "$TMP/again/profile.folded"

# 3b. the config key alone turns the lookups on (the same cache answers);
# --no-debuginfod turns them off again
printf '{"symbols": {"debuginfod": "%s", "debuginfod_cache": "%s"}}\n' \
  "$URL" "$TMP/cache" >"$TMP/key.json"
env -u DEBUGINFOD_URLS "$BENCHPROF" record -o "$TMP/key" --config "$TMP/key.json" \
  -- "$TMP/fidmain" >/dev/null 2>"$TMP/key.err"
check "symbols.debuginfod alone: the function is named" \
  grep -q "fid_hidden_spin" "$TMP/key/profile.folded"
env -u DEBUGINFOD_URLS "$BENCHPROF" record -o "$TMP/nokey" --config "$TMP/key.json" \
  --no-debuginfod -- "$TMP/fidmain" >/dev/null 2>"$TMP/nokey.err"
check "--no-debuginfod over the key: not named" \
  sh -c '! grep -q fid_hidden_spin "$1/nokey/profile.folded"' sh "$TMP"

# 4. a server that never answers: the time budget ends the lookups
python3 "$SERVERS/put_server.py" --root "$TMP/hang.root" \
  --port-file "$TMP/hang.port" --faults "hang:60,hang:60,hang:60,hang:60" \
  >"$TMP/hang.log" 2>&1 &
PIDS="$PIDS $!"
hport=$(wait_port "$TMP/hang.port")
[ -n "$hport" ] || { fail "the silent server did not start"; finish; }
printf '{"symbols": {"debuginfod_timeout": 2, "debuginfod_cache": "%s"}}\n' \
  "$TMP/cache2" >"$TMP/slow.json"
start=$(date +%s)
timeout 60 "$BENCHPROF" record -o "$TMP/slow" --config "$TMP/slow.json" \
  --debuginfod="http://127.0.0.1:$hport" -- "$TMP/fidmain" \
  >"$TMP/slow.out" 2>"$TMP/slow.err"
status=$?
took=$(( $(date +%s) - start ))
expect_status slow 0
echo "  the run with a silent server took ${took}s"
check "silent server: the run ends within the budget (not libdebuginfod's 90 s)" \
  [ "$took" -lt 30 ]
check "silent server: stderr says the lookups stopped" \
  grep -q "debuginfod: no answer within the time allowed; the other modules were symbolized from local files only" \
  "$TMP/slow.err"
check "silent server: the command's output survives" \
  grep -q "^fidmain done" "$TMP/slow.out"
check "silent server: the profile is written" test -s "$TMP/slow/profile.folded"

# 5. --debuginfod with no server anywhere
env -u DEBUGINFOD_URLS "$BENCHPROF" record -o "$TMP/none" --debuginfod \
  -- true >/dev/null 2>"$TMP/none.err"
st=$?
check "no server: usage error (exit 2)" [ "$st" -eq 2 ]
check "no server: says where servers come from" \
  grep -q "no debuginfod server: give --debuginfod=URLS" "$TMP/none.err"
finish
