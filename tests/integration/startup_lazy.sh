#!/bin/sh
# libcurl and libmicrohttpd are loaded at first use, not at start-up
# (http.c, serve.c): glibc's LD_DEBUG=files names every object a process
# loads, and how.  `benchprof --version` and `record` load neither (but do
# load libdw: the trace is real); a run publishing to an http:// store
# (put_server.py) dlopen()s libcurl and not libmicrohttpd; serve the
# opposite.  Then the error path: an unloadable library (an empty file,
# then a shared object without the functions) found first through
# LD_LIBRARY_PATH is an error naming the library and dlerror()'s text,
# never a crash: serve exits 1, run spools the publication, and flush
# delivers it once the real library is found again.
# libpfm4 likewise (events.c): record and run with their default events
# (perf's generic names, encoded from a built-in table) load no libpfm;
# a name only libpfm4 knows, one with a modifier, and `events` dlopen() it,
# and an unloadable one fails just those, naming the library.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"

HASH=0123456789abcdef0123456789abcdef01234567
HASH2=1111111111111111111111111111111111111111
# no debuginfod servers: this test needs no network
unset DEBUGINFOD_URLS
mkdir -p "$TMP/store"

# traced NAME CMD...: run CMD with LD_DEBUG=files, the trace in $TMP/NAME.ld
traced() {
  name=$1
  shift
  LD_DEBUG=files "$@" 2>"$TMP/$name.ld"
}

# the names dlopen() is given (configure read them from the libraries)
soname() {
  sed -n "s/^#define $1 \"\(.*\)\"$/\1/p" "$top_builddir/bp_autoconf.h"
}
CURL_SO=$(soname CURL_SONAME)
MHD_SO=$(soname MHD_SONAME)
PFM_SO=$(soname PFM_SONAME)
[ -n "$CURL_SO" ] && [ -n "$MHD_SO" ] && [ -n "$PFM_SO" ] ||
  { fail "no CURL_SONAME, MHD_SONAME or PFM_SONAME in bp_autoconf.h"; finish; }

# loads NAME FILE: the trace of NAME shows FILE loaded, however
loads() {
  grep -q "file=$2 \[0\];  " "$TMP/$1.ld"
}

# dlopened NAME FILE: loaded by dlopen(), not as a dependency
dlopened() {
  grep -q "file=$2 \[0\];  dynamically loaded by" "$TMP/$1.ld"
}

# lacks NAME FILE: the trace of NAME does not show FILE.  (libdw may
# dlopen libdebuginfod, which brings libcurl-gnutls.so.4: another file.)
lacks() {
  ! grep -q "file=$2 " "$TMP/$1.ld"
}

# --- start-up: neither library
traced version "$BENCHPROF" --version >/dev/null
check "--version runs" [ $? -eq 0 ]
check "--version: the trace lists libdw" loads version libdw.so.1
check "--version: no libcurl, libmicrohttpd or TLS library loaded" \
  sh -c '! grep -q "libcurl\|libmicrohttpd\|libssl\|libgnutls" "$0"' \
  "$TMP/version.ld"

traced record "$BENCHPROF" record -q --no-counters -o "$TMP/rec" -- true
check "record runs" [ $? -eq 0 ]
check "record: the trace lists libdw" loads record libdw.so.1
check "record: $CURL_SO not loaded" lacks record "$CURL_SO"
check "record: $MHD_SO not loaded" lacks record "$MHD_SO"

# --- libpfm4: only for what the built-in generic names do not cover.
# (Where events.c has no table for the architecture every name needs it.)
generic=yes
case $(uname -m) in
  x86_64|i?86) ;;
  *) generic=no ;;
esac
check "--version: $PFM_SO not loaded" lacks version "$PFM_SO"
traced rec-default "$BENCHPROF" record -q -o "$TMP/rec-default" -- true
check "record with counters runs" [ $? -eq 0 ]
traced run-default "$BENCHPROF" run -q -o "$TMP/run-default" -- true
check "run with default events runs" [ $? -eq 0 ]
check "run: the counters were read" grep -q '"name":.*"task-clock"' \
  "$TMP/run-default/summary.json"
traced stat-default "$BENCHPROF" stat -- true
check "stat with default counters runs" [ $? -eq 0 ]
traced run-counters "$BENCHPROF" run -q -e task-clock \
  -C cycles,cpu-clock,Instructions,faults -o "$TMP/run-counters" -- true
check "run with generic -e and -C runs" [ $? -eq 0 ]
if [ $generic = yes ]; then
  for t in record rec-default run-default stat-default run-counters; do
    check "$t: default or generic events load no $PFM_SO" lacks $t "$PFM_SO"
  done
fi
traced rec-pfm "$BENCHPROF" record -q --no-counters \
  -e perf::PERF_COUNT_SW_CPU_CLOCK -o "$TMP/rec-pfm" -- true
check "record -e perf::PERF_COUNT_SW_CPU_CLOCK runs" [ $? -eq 0 ]
check "record -e perf::...: $PFM_SO dlopen()ed" dlopened rec-pfm "$PFM_SO"
traced rec-mod "$BENCHPROF" record -q --no-counters -e cycles:u \
  -o "$TMP/rec-mod" -- true
check "record -e cycles:u runs" [ $? -eq 0 ]
check "record -e cycles:u: $PFM_SO dlopen()ed" dlopened rec-mod "$PFM_SO"
traced stat-mod "$BENCHPROF" stat -C instructions:u -- true
check "stat -C instructions:u runs" [ $? -eq 0 ]
check "stat -C instructions:u: $PFM_SO dlopen()ed" dlopened stat-mod "$PFM_SO"
traced events "$BENCHPROF" events cpu-clock >"$TMP/events.out"
check "events runs" [ $? -eq 0 ]
check "events: lists perf::CPU-CLOCK" grep -qi "^perf::cpu-clock " \
  "$TMP/events.out"
check "events: $PFM_SO dlopen()ed" dlopened events "$PFM_SO"
traced unknown "$BENCHPROF" record -q -e cyclez -o "$TMP/unknown" -- true
check "record -e cyclez: exit status 2 or more" [ $? -ge 2 ]
check "record -e cyclez: suggestions from libpfm4" \
  grep -q "unknown event 'cyclez' (did you mean: cycles" "$TMP/unknown.ld"
check "record -e cyclez: $PFM_SO dlopen()ed" dlopened unknown "$PFM_SO"

# --- symbolizing a stripped program with no debug file installed (dash):
# libdw's standard search ends with debuginfod, which loads libdebuginfod
# and its own libcurl even with no server set; benchprof looks locally only
dash=$(command -v dash)
traced stripped "$BENCHPROF" record -q --no-counters -F 4000 -o "$TMP/dash" \
  -- "$dash" -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'
check "record of dash runs" [ $? -eq 0 ]
check "record of dash: samples in dash itself" grep -q "(in dash)\|;dash\|^dash" \
  "$TMP/dash/profile.folded"
check "record of dash: no libdebuginfod, no libcurl of any kind" \
  sh -c '! grep -q "file=libdebuginfod\|file=libcurl" "$0"' "$TMP/stripped.ld"

# --- publishing to an http:// store: libcurl, dlopen()ed
python3 "$SERVERS/put_server.py" --root "$TMP/http-root" \
  --port-file "$TMP/put.port" >"$TMP/put.log" 2>&1 &
PIDS="$PIDS $!"
port=$(wait_port "$TMP/put.port")
[ -n "$port" ] || { fail "put_server did not start"; finish; }
store="http://127.0.0.1:$port/bucket"
opts="--project demo --branch main --testbed box --retries 0"

traced publish "$BENCHPROF" run -q --no-counters -o "$TMP/pub" \
  --store "$store" --spool "$TMP/spool1" $opts --hash $HASH -- true
check "run with an http store exits 0" [ $? -eq 0 ]
check "run: the manifest reached the store" \
  grep -q "^PUT /bucket/demo/main/$HASH/box/manifest.json 200$" "$TMP/put.log"
check "run: $CURL_SO dlopen()ed" dlopened publish "$CURL_SO"
check "run: $MHD_SO not loaded" lacks publish "$MHD_SO"

# --- serve: libmicrohttpd, dlopen()ed
LD_DEBUG=files "$BENCHPROF" serve --port 0 "$TMP/store" \
  >"$TMP/serve.out" 2>"$TMP/serve.ld" &
spid=$!
i=0
while ! grep -q '^serving .* at http://' "$TMP/serve.out" && [ $i -lt 200 ] &&
      kill -0 $spid 2>/dev/null; do
  sleep 0.05
  i=$((i + 1))
done
check "serve prints its URL" grep -q '^serving .* at http://' "$TMP/serve.out"
kill -TERM $spid 2>/dev/null
wait $spid
check "serve stops with status 0" [ $? -eq 0 ]
check "serve: $MHD_SO dlopen()ed" dlopened serve "$MHD_SO"
check "serve: $CURL_SO not loaded" lacks serve "$CURL_SO"

# --- the error path: a library that cannot be loaded
mkdir -p "$TMP/empty" "$TMP/nosym"
: >"$TMP/empty/$CURL_SO"
: >"$TMP/empty/$MHD_SO"
echo 'int benchprof_not_curl;' >"$TMP/nosym.c"
${CC:-cc} -shared -fPIC -o "$TMP/nosym/$CURL_SO" "$TMP/nosym.c" ||
  fail "building a shared object"
cp "$TMP/nosym/$CURL_SO" "$TMP/nosym/$MHD_SO"

LD_LIBRARY_PATH="$TMP/empty" "$BENCHPROF" serve --port 0 "$TMP/store" \
  >"$TMP/bad-serve.out" 2>"$TMP/bad-serve.err"
check "serve, empty libmicrohttpd: exit status 1" [ $? -eq 1 ]
check "serve, empty libmicrohttpd: says which library and why" \
  grep -qF "benchprof: error: cannot load $MHD_SO: $TMP/empty/$MHD_SO: file too short" \
  "$TMP/bad-serve.err"
LD_LIBRARY_PATH="$TMP/nosym" "$BENCHPROF" serve --port 0 "$TMP/store" \
  >"$TMP/nosym-serve.out" 2>"$TMP/nosym-serve.err"
check "serve, no MHD functions: exit status 1" [ $? -eq 1 ]
check "serve, no MHD functions: names the missing symbol" \
  grep -q "^benchprof: error: cannot load $MHD_SO: .*undefined symbol: MHD_" \
  "$TMP/nosym-serve.err"

for lib in empty nosym; do
  LD_LIBRARY_PATH="$TMP/$lib" "$BENCHPROF" run -q --no-counters \
    -o "$TMP/bad-$lib" --store "$store" --spool "$TMP/spool-$lib" \
    $opts --hash $HASH2 -- true \
    2>"$TMP/bad-$lib.err"
  check "run, $lib libcurl: the benchmark's status stays 0" [ $? -eq 0 ]
  check "run, $lib libcurl: spooled, saying which library" \
    grep -qF ": cannot load $CURL_SO: $TMP/$lib/$CURL_SO: " \
    "$TMP/bad-$lib.err"
  check "run, $lib libcurl: one publication in the spool" \
    [ "$(ls "$TMP/spool-$lib" | wc -l)" -eq 1 ]
done
check "run, nosym libcurl: names the missing symbol" \
  grep -q "undefined symbol: curl_" "$TMP/bad-nosym.err"
check "run, unloadable libcurl: nothing reached the store" \
  sh -c '! grep -q "/$1/" "$0"' "$TMP/put.log" $HASH2

# libpfm4 unloadable: only what needs it fails, saying which library
mkdir -p "$TMP/empty-pfm" "$TMP/nosym-pfm"
: >"$TMP/empty-pfm/$PFM_SO"
cp "$TMP/nosym/$CURL_SO" "$TMP/nosym-pfm/$PFM_SO"
for lib in empty nosym; do
  LD_LIBRARY_PATH="$TMP/$lib-pfm" "$BENCHPROF" record -q --no-counters \
    -e cycles:u -o "$TMP/bad-pfm-$lib" -- true 2>"$TMP/bad-pfm-$lib.err"
  check "record -e cycles:u, $lib libpfm: fails (status 1)" [ $? -eq 1 ]
  check "record -e cycles:u, $lib libpfm: says which library" \
    grep -qF "benchprof: error: cannot load $PFM_SO: " "$TMP/bad-pfm-$lib.err"
  if [ $generic = yes ]; then
    LD_LIBRARY_PATH="$TMP/$lib-pfm" "$BENCHPROF" run -q \
      -o "$TMP/good-pfm-$lib" -- true 2>"$TMP/good-pfm-$lib.err"
    check "run with default events, $lib libpfm: exit status 0" [ $? -eq 0 ]
  fi
done
check "empty libpfm: dlerror()'s text" \
  grep -qF "$TMP/empty-pfm/$PFM_SO: file too short" "$TMP/bad-pfm-empty.err"
check "libpfm without its functions: names the missing symbol" \
  grep -q "undefined symbol: pfm_" "$TMP/bad-pfm-nosym.err"

"$BENCHPROF" flush --spool "$TMP/spool-empty" --retries 0 \
  >"$TMP/flush.out" 2>&1
check "flush with the real libcurl delivers the spooled publication" \
  [ $? -eq 0 ]
check "flush: the manifest reached the store" \
  grep -q "^PUT /bucket/demo/main/$HASH2/box/manifest.json 200$" \
  "$TMP/put.log"
check "flush: the spool is empty" [ -z "$(ls "$TMP/spool-empty")" ]

finish
