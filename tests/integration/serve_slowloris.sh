#!/bin/sh
# benchprof serve under slow clients (issue 21, F17): 200 connections
# from 127.0.0.1 sending a header line every 2 s and 130 from 127.0.0.3
# sending nothing.  A viewer's requests (from 127.0.0.1 and 127.0.0.2) are
# still answered at once; every slow connection is closed by the header
# deadline (10 s, not moved by the trickled bytes) within 20 s; one
# address cannot hold more than its share (300 idle connections from
# 127.0.0.4: some are refused, the viewer still gets answers).
. "$top_srcdir/tests/lib.sh"

mkdir -p "$TMP/store/p/main/0123/tb/b"
echo '{}' >"$TMP/store/p/main/0123/tb/b/summary.json"
"$BENCHPROF" serve --port 0 "$TMP/store" >"$TMP/serve.out" \
  2>"$TMP/serve.err" &
PID=$!
at_exit 'kill $PID 2>/dev/null'
PORT=
tries=0
while [ -z "$PORT" ] && [ $tries -lt 400 ] && kill -0 "$PID" 2>/dev/null; do
  PORT=$(sed -n 's|^serving .* at http://127\.0\.0\.1:\([0-9][0-9]*\)/$|\1|p' \
    "$TMP/serve.out")
  [ -n "$PORT" ] || sleep 0.05
  tries=$((tries + 1))
done
[ -n "$PORT" ] || { fail "serve did not start"; cat "$TMP/serve.err"; finish; }

timeout 120 python3 - "$PORT" >"$TMP/loris.out" 2>&1 <<'PY'
import socket, sys, threading, time
port = int(sys.argv[1])

def connect(src):
    s = socket.socket()
    s.bind((src, 0))
    s.settimeout(5)
    s.connect(("127.0.0.1", port))
    return s

def closed(s):
    """True when the server has closed s (EOF or reset)."""
    s.setblocking(False)
    try:
        return s.recv(4096) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True
    finally:
        s.setblocking(True)

def view(src):
    """One viewer request from src: its status, or the error."""
    try:
        s = connect(src)
        s.sendall(b"GET /p/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while True:
            d = s.recv(65536)
            if not d:
                break
            data += d
        s.close()
        return data.split(b"\r\n", 1)[0].decode()
    except OSError as e:
        return "error: %s" % e

fails = []
def check(what, ok):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        fails.append(what)

t0 = time.monotonic()
trickle = []
for _ in range(200):
    s = connect("127.0.0.1")
    s.sendall(b"GET / HTTP/1.1\r\n")
    trickle.append(s)
idle = [connect("127.0.0.3") for _ in range(130)]
stop = False
def trickler():
    n = 0
    while not stop:
        time.sleep(2)
        n += 1
        for s in trickle:
            try:
                s.sendall(b"X-Slow-%d: 1\r\n" % n)
            except OSError:
                pass
threading.Thread(target=trickler, daemon=True).start()

time.sleep(1)
for src in ("127.0.0.1", "127.0.0.2"):
    got = view(src)
    check("a viewer from %s is answered among 330 slow connections (%s)"
          % (src, got), got.startswith("HTTP/1.1 200"))

# the deadline: every slow connection closed by 20 s, trickling or not
left = trickle + idle
while left and time.monotonic() - t0 < 20:
    time.sleep(0.5)
    left = [s for s in left if not closed(s)]
check("all 330 slow connections closed within 20 s (%d left after %.1f s)"
      % (len(left), time.monotonic() - t0), not left)
check("... none before the deadline's 10 s", time.monotonic() - t0 >= 10)
stop = True

# one address cannot take every connection
flood = []
for _ in range(300):
    try:
        flood.append(connect("127.0.0.4"))
    except OSError:
        pass
time.sleep(1)
open_ = [s for s in flood if not closed(s)]
check("300 connections from one address: %d kept, the rest refused"
      % len(open_), 0 < len(open_) < 300)
got = view("127.0.0.2")
check("the viewer is answered during the flood (%s)" % got,
      got.startswith("HTTP/1.1 200"))
sys.exit(1 if fails else 0)
PY
rc=$?
cat "$TMP/loris.out"
check "slow clients do not take serve down (exit $rc)" [ $rc -eq 0 ]
check "serve still runs" kill -0 $PID
finish
