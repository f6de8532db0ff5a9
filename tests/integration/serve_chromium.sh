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

check "both pages rendered, the flame graph in colour" \
  python3 - "$TMP/index.png" "$TMP/bench.png" <<'EOF'
import struct
import sys
import zlib


def decode_png(path):
    """(width, height, bytes per pixel, rows of bytes) of an 8-bit RGB or
    RGBA PNG."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB",
                                                                chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    assert depth == 8 and ctype in (2, 6) and interlace == 0, \
        "unexpected PNG format %d/%d/%d" % (depth, ctype, interlace)
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytes(stride)
    rows = []
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)]
        if f == 2:      # Up: whole row at once
            line = bytes((x + b) & 255 for x, b in zip(line, prev))
        elif f != 0:    # Sub, Average, Paeth: byte by byte
            line = bytearray(line)
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                if f == 1:
                    line[i] = (line[i] + a) & 255
                elif f == 3:
                    line[i] = (line[i] + (a + b) // 2) & 255
                elif f == 4:
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    pred = a if pa <= pb and pa <= pc else \
                        (b if pb <= pc else c)
                    line[i] = (line[i] + pred) & 255
            line = bytes(line)
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def stats(path):
    w, h, bpp, rows = decode_png(path)
    colours, ink, warm, link = set(), 0, 0, 0
    for line in rows:
        pixels = list(zip(line[0::bpp], line[1::bpp], line[2::bpp]))
        colours.update(pixels)
        ink += sum(1 for r, g, b in pixels if r < 200 or g < 200 or b < 200)
        # the flame graph's palette
        warm += sum(1 for r, g, b in pixels if r > 150 and r - b > 80)
        # unvisited links
        link += sum(1 for r, g, b in pixels
                    if b > 150 and b - r > 100 and b - g > 100)
    print("%s: %dx%d, %d colours, %d non-white, %d warm, %d link pixels"
          % (path, w, h, len(colours), ink, warm, link))
    return w, h, len(colours), ink, warm, link


ok = True
w, h, colours, ink, warm, link = stats(sys.argv[1])
if (w, h) != (1200, 900) or colours < 10 or ink < 1000 or link < 100:
    print("FAIL: the index page shows no text and links")
    ok = False
w, h, colours, ink, warm, link = stats(sys.argv[2])
if (w, h) != (1200, 900) or colours < 50 or warm < 100000:
    print("FAIL: the benchmark page shows no flame graph")
    ok = False
sys.exit(0 if ok else 1)
EOF

kill -TERM "$PID"
wait "$PID"
check "serve stops with status 0" [ $? -eq 0 ]
finish
