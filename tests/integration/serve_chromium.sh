#!/bin/sh
# benchprof serve in a real browser: headless Chromium screenshots the
# index page and a benchmark's page; the PNGs are decoded (python3, zlib)
# and must show a rendered page: text and links on the index, and on the
# benchmark's page the flame graph (an <object> with the served SVG) in
# its warm colours.
. "$top_srcdir/tests/lib.sh"

SETUP="scripts/setup-debian.sh installs it"
if ! command -v chromium >/dev/null 2>&1; then
  fail "chromium not found ($SETUP)"
  finish
fi

"$BENCHPROF" run -o "$TMP/run" -- "$top_builddir/examples/bench" \
  >"$TMP/run.log" 2>&1 || { cat "$TMP/run.log"; fail "benchprof run"; finish; }
python3 "$top_srcdir/tests/serve_fixture.py" "$TMP/run" "$TMP/store" \
  "$TMP/outside" || { fail "building the store"; finish; }

"$BENCHPROF" serve --port 0 "$TMP/store" >"$TMP/serve.out" 2>"$TMP/serve.err" &
PID=$!
PORT=
tries=0
while [ -z "$PORT" ] && [ $tries -lt 400 ] && kill -0 "$PID" 2>/dev/null; do
  PORT=$(sed -n 's|^serving .* at http://127\.0\.0\.1:\([0-9][0-9]*\)/$|\1|p' \
    "$TMP/serve.out")
  [ -n "$PORT" ] || sleep 0.05
  tries=$((tries + 1))
done
if [ -z "$PORT" ]; then
  cat "$TMP/serve.err"
  fail "serve printed no URL"
  finish
fi
BASE=http://127.0.0.1:$PORT

# shot NAME PATH: a 1200x900 screenshot of BASE/PATH in $TMP/NAME.png
shot() {
  mkdir -p "$TMP/home" "$TMP/profile-$1"
  HOME=$TMP/home timeout 60 chromium --headless --no-sandbox --disable-gpu \
    --no-first-run --disable-extensions --disable-dev-shm-usage \
    --virtual-time-budget=10000 \
    --user-data-dir="$TMP/profile-$1" --window-size=1200,900 \
    --screenshot="$TMP/$1.png" "$BASE$2" >"$TMP/$1.log" 2>&1
  if [ ! -s "$TMP/$1.png" ]; then
    tail -5 "$TMP/$1.log"
    return 1
  fi
}

# both at once: each browser spends most of its time starting
shot index / &
index_pid=$!
shot bench /demo/main/c0ffee1/ci-x86/bench/ &
bench_pid=$!
check "screenshot of the index page" wait "$index_pid"
check "screenshot of a benchmark's page" wait "$bench_pid"

# 1200x900 as asked, the index's text and links, the page's flame graph
check "the index page rendered with its text and links" \
  python3 "$top_srcdir/tests/png_stats.py" "$TMP/index.png" width:1200 \
  height:900 colours:10 ink:1000 link:100
if python3 "$top_srcdir/tests/png_stats.py" "$TMP/bench.png" width:1200 \
  height:900 colours:50 warm:100000; then
  pass "the benchmark's page rendered, the flame graph in colour"
else
  fail "the benchmark's page rendered, the flame graph in colour"
  # what the graph held, to tell a profile of another shape from a page
  # shot before it was drawn
  echo "flamegraph.svg: $(grep -c '<rect' "$TMP/run/flamegraph.svg") rects"
  python3 -c 'import json, sys; print("samples:", json.load(open(sys.argv[1])).get("samples"))' \
    "$TMP/run/summary.json"
fi

kill -TERM "$PID"
wait "$PID"
check "serve stops with status 0" [ $? -eq 0 ]
finish
