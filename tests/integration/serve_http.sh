#!/bin/sh
# benchprof serve over HTTP: a store built from a real run's artifacts
# (tests/serve_fixture.py: a branch with a slash, a hostile benchmark
# name, symlinks out of the store) is served on 127.0.0.1 with --port 0;
# python3's http.client checks the index pages (names decoded and
# escaped, commits newest first), the artifacts (byte-identical, CORS,
# content type and encoding, HEAD), the printed from-url links, that
# nothing outside the root can be read, that only GET/HEAD/OPTIONS are
# answered, and that SIGTERM and SIGINT stop it with status 0.
. "$top_srcdir/tests/lib.sh"

# serve_start NAME ARGS...: start benchprof serve in the background and
# wait for its first line; sets PID and PORT.
serve_start() {
  name=$1
  shift
  "$BENCHPROF" serve "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
  PID=$!
  PORT=
  tries=0
  while [ -z "$PORT" ] && [ $tries -lt 400 ] && kill -0 "$PID" 2>/dev/null; do
    PORT=$(sed -n \
      's|^serving .* at http://127\.0\.0\.1:\([0-9][0-9]*\)/$|\1|p' \
      "$TMP/$name.out")
    [ -n "$PORT" ] || sleep 0.05
    tries=$((tries + 1))
  done
  [ -n "$PORT" ]
}

# stop_with SIGNAL: send it and expect exit status 0
stop_with() {
  kill -"$1" "$PID"
  wait "$PID"
  status=$?
  [ $status -eq 0 ] || { echo "exit status $status"; cat "$TMP/$name.err"; }
  return $status
}

"$BENCHPROF" run -o "$TMP/run" -- "$top_builddir/examples/bench" \
  >"$TMP/run.log" 2>&1 || { cat "$TMP/run.log"; fail "benchprof run"; finish; }
python3 "$top_srcdir/tests/serve_fixture.py" "$TMP/run" "$TMP/store" \
  "$TMP/outside" || { fail "building the store"; finish; }

if serve_start serve --port 0 "$TMP/store"; then
  pass "serve prints its URL"
else
  cat "$TMP/serve.err"
  fail "serve printed no URL"
  finish
fi

check "listens on 127.0.0.1 only" python3 - "$PORT" <<'EOF'
import sys
port = int(sys.argv[1])
found = []
for table in ("/proc/net/tcp", "/proc/net/tcp6"):
    try:
        lines = open(table).read().splitlines()[1:]
    except OSError:
        continue
    for line in lines:
        f = line.split()
        addr, p = f[1].split(":")
        if int(p, 16) == port and f[3] == "0A":  # LISTEN
            found.append(addr)
print("listening on", found)
sys.exit(0 if found == ["0100007F"] else 1)
EOF

python3 - "$PORT" "$TMP/fixture.json" "$TMP/serve.out" "$TMP/store" \
  <<'EOF' || fail "HTTP checks"
import http.client
import json
import os
import re
import sys
import urllib.parse

port = int(sys.argv[1])
fixture = json.load(open(sys.argv[2]))
printed = open(sys.argv[3]).read()
store = sys.argv[4]
base = "http://127.0.0.1:%d" % port
fails = 0


def check(desc, ok):
    global fails
    print(("ok: " if ok else "FAIL: ") + desc)
    if not ok:
        fails += 1


def request(method, path, headers=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.putrequest(method, path, skip_host=False, skip_accept_encoding=True)
    for k, v in (headers or {}).items():
        c.putheader(k, v)
    c.endheaders()
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, body


def url_of(key):
    """A store key's URL path: each part escaped again."""
    return "/" + "/".join(urllib.parse.quote(p, safe="")
                          for p in key.split("/"))


hostile = fixture["hostile"]
esc_hostile = "&lt;img src=x onerror=alert(1)&gt;"

# index pages
s, h, body = request("GET", "/")
page = body.decode()
check("/ is an HTML page", s == 200 and h.get("content-type", "")
      .startswith("text/html"))
check("/ lists the project", 'href="demo/"' in page and ">demo<" in page)
check("no CORS header for a request without an Origin",
      "access-control-allow-origin" not in h)
FIREFOX = "https://profiler.firefox.com"
s, h, body = request("GET", "/", {"Origin": FIREFOX})
check("pages name the Firefox Profiler's origin when it asks",
      s == 200 and h.get("access-control-allow-origin") == FIREFOX and
      "Origin" in h.get("vary", ""))

s, h, body = request("GET", "/demo/")
page = body.decode()
check("/demo/ lists branches by their names",
      ">feature/x<" in page and ">main<" in page)
check("a branch with a slash links to its escaped directory",
      'href="feature%252Fx/"' in page)
check("symlinks out of the store are not listed",
      "escape" not in page and "leak" not in page)

s, h, body = request("GET", "/demo/main/")
page = body.decode()
new, old = page.find(">c0ffee1<"), page.find(">0ld<")
check("commits newest first", 0 <= new < old)
check("the branch page shows its latest pointer",
      'href="/demo/main/c0ffee1/ci-x86/"' in page)

s, h, body = request("GET", "/demo/feature%252Fx/abc123/ci-x86/")
page = body.decode()
check("testbed page lists the hostile benchmark escaped",
      s == 200 and esc_hostile in page)
check("no raw markup from a name reaches a page", hostile not in page
      and "<img" not in page)
check("testbed page links the manifest", 'href="manifest.json"' in page)

hostile_key = [f for f in fixture["files"] if f["benchmark"] == hostile
               and f["file"] == "flamegraph.svg"][0]["key"]
bench_path = url_of(hostile_key.rsplit("/", 1)[0]) + "/"
s, h, body = request("GET", bench_path)
page = body.decode()
check("benchmark page answers", s == 200)
check("benchmark page title and heading escaped",
      "<h1>%s</h1>" % esc_hostile in page and hostile not in page)
check("benchmark page shows the flame graph inline",
      re.search(r'<object[^>]*data="flamegraph\.svg"', page) is not None)
check("benchmark page shows the summary and top functions",
      ">samples<" in page and "Top functions" in page)
m = re.search(r'href="https://profiler\.firefox\.com/from-url/([^"/]+)/"',
              page)
prof_url = urllib.parse.unquote(m.group(1)) if m else ""
check("benchmark page links the Firefox Profiler at this server",
      prof_url == base + bench_path + "profile.json.gz")
check("HTML pages carry a Content-Security-Policy",
      "default-src 'none'" in h.get("content-security-policy", ""))

# compare links: this branch's benchmark against the other's latest
s, h, body = request("GET", "/demo/feature%252Fx/abc123/ci-x86/bench/")
page = body.decode()
m = re.search(r'class="compare" href="https://profiler\.firefox\.com/'
              r'compare/calltree/\?profiles\[\]=([^&"]+)&amp;'
              r'profiles\[\]=([^&"]+)"', page)
views = [urllib.parse.unquote(x) for x in m.groups()] if m else []
print("compare views:", views)


def view_target(view):
    m = re.fullmatch(r"https://profiler\.firefox\.com/from-url/([^/]+)/"
                     r"calltree/\?thread=0", view)
    return urllib.parse.unquote(m.group(1)) if m else None


check("compare link: main's latest as base, this profile as head",
      [view_target(v) for v in views] ==
      [base + "/demo/main/c0ffee1/ci-x86/bench/profile.json.gz",
       base + "/demo/feature%252Fx/abc123/ci-x86/bench/profile.json.gz"])
check("compare link names the other branch and its commit",
      "with branch main at c0ffee1" in page)
s, h, body = request("GET", bench_path)
check("no compare link where the other branch lacks the benchmark",
      'class="compare"' not in body.decode())

s, h, body = request("GET", bench_path[:-1])
check("a directory without '/' redirects to it",
      s == 301 and h.get("location") == bench_path)

# artifacts: byte-identical, with the store's type and encoding
types = {"profile.json.gz": ("application/json", "gzip"),
         "profile.pb.gz": ("application/octet-stream", None),
         "profile.folded": ("text/plain; charset=utf-8", None),
         "flamegraph.svg": ("image/svg+xml", None),
         "summary.json": ("application/json", None)}
bad = []
for f in fixture["files"]:
    s, h, body = request("GET", url_of(f["key"]),
                         {"Accept-Encoding": "gzip",
                          "Origin": "https://profiler.firefox.com"})
    want = open(f["path"], "rb").read()
    ctype, cenc = types[f["file"]]
    if (s != 200 or body != want or
            h.get("access-control-allow-origin") !=
            "https://profiler.firefox.com" or
            h.get("content-type") != ctype or
            h.get("content-encoding") != cenc):
        bad.append((f["key"], s, h.get("content-type"),
                    h.get("content-encoding")))
print("artifacts served:", len(fixture["files"]), "wrong:", bad)
check("every artifact byte-identical with CORS, type and encoding",
      not bad and len(fixture["files"]) == 20)

f = fixture["files"][0]
s, h, body = request("HEAD", url_of(f["key"]))
check("HEAD: headers without a body",
      s == 200 and body == b"" and
      int(h.get("content-length", -1)) == os.path.getsize(f["path"]))

# the printed links
links = re.findall(r"firefox profiler: https://profiler\.firefox\.com/"
                   r"from-url/([^/\s]+)/", printed)
targets = sorted(urllib.parse.unquote(x) for x in links)
want = sorted(base + url_of(f["key"]) for f in fixture["files"]
              if f["file"] == "profile.json.gz" and f["commit"] != "0ld")
check("one printed from-url link per latest profile", targets == want)
ok = True
for t in targets:
    s, h, body = request("GET", t[len(base):])
    ok = ok and s == 200 and body[:2] == b"\x1f\x8b"
check("each printed link fetches its gzipped profile", ok and targets)
check("printed names of hostile benchmarks have no control characters",
      all(c >= " " for line in printed.splitlines() for c in line))

# nothing outside the root
secret = b"SECRET-OUTSIDE-THE-STORE"
attempts = ["/../secret.txt", "/../outside/secret.txt",
            "/demo/../../outside/secret.txt", "/%2e%2e/outside/secret.txt",
            "/%2E%2E/outside/secret.txt", "/demo/%2e%2e/%2e%2e/outside/",
            "/..%2foutside%2fsecret.txt", "/%2e%2e%2foutside%2fsecret.txt",
            "/demo/main/leak.txt", "/demo/escape/secret.txt",
            "/demo/escape/", "//etc/passwd", "/etc/passwd",
            fixture["secret"], "/./demo/", "/demo/%00/", "/%zz",
            "/demo/main/c0ffee1/ci-x86/manifest.json/",
            "http://127.0.0.1:%d/../secret.txt" % port, "secret.txt"]
leaks = []
for a in attempts:
    s, h, body = request("GET", a)
    print("GET", a, "->", s)
    if s not in (400, 403, 404) or secret in body or b"root:" in body:
        leaks.append((a, s))
check("traversal attempts refused, nothing outside the root read",
      not leaks)
s, _, _ = request("GET", "/demo/main/leak.txt")
check("a symlink out of the store is forbidden", s == 403)
s, _, _ = request("GET", "/%2e%2e/outside/secret.txt")
check("an encoded dot segment is forbidden", s == 403)

# read-only
target = url_of(fixture["files"][0]["key"])
before = open(fixture["files"][0]["path"], "rb").read()
for method in ("POST", "PUT", "DELETE", "PATCH"):
    s, h, body = request(method, target, {"Content-Length": "0",
                                          "Origin": FIREFOX})
    check(method + " refused with 405 and Allow",
          s == 405 and "GET" in h.get("allow", "") and
          h.get("access-control-allow-origin") == FIREFOX)
s, h, _ = request("PUT", "/demo/new.txt", {"Content-Length": "5"})
check("PUT creates nothing", s == 405 and
      not os.path.exists(os.path.join(store, "demo", "new.txt")))
check("the artifact is unchanged",
      open(fixture["files"][0]["path"], "rb").read() == before)

s, h, body = request("OPTIONS", target,
                     {"Origin": "https://profiler.firefox.com",
                      "Access-Control-Request-Method": "GET",
                      "Access-Control-Request-Headers": "range"})
check("OPTIONS preflight allowed",
      s in (200, 204) and h.get("access-control-allow-origin") == FIREFOX and
      "GET" in h.get("access-control-allow-methods", "") and
      h.get("access-control-allow-headers") == "range")

sys.exit(1 if fails else 0)
EOF

check "SIGTERM stops serve with status 0" stop_with TERM
grep -q "stopping" "$TMP/serve.err" || fail "no note when stopping"

# a background job starts with SIGINT ignored: serve still stops on it
if serve_start serve2 --port 0 "file://$TMP/store"; then
  check "SIGINT stops serve with status 0" stop_with INT
else
  fail "serve with a file:// URL"
fi

# bad command lines and stores
"$BENCHPROF" serve --port 70000 "$TMP/store" 2>"$TMP/e1"
check "--port out of range: usage error" [ $? -eq 2 ]
"$BENCHPROF" serve --port 0 "$TMP/nothing-here" 2>"$TMP/e2"
check "a missing store: error" [ $? -eq 1 ]
check "the error names the store" grep -q "nothing-here" "$TMP/e2"
"$BENCHPROF" serve --port 0 --bind localhost "$TMP/store" 2>"$TMP/e3"
check "a non-numeric bind address: error" [ $? -eq 1 ]
"$BENCHPROF" serve --port 0 s3://bucket/prefix 2>"$TMP/e4"
check "a remote store: usage error" [ $? -eq 2 ]
if serve_start serve3 --port 0 "$TMP/store"; then
  "$BENCHPROF" serve --port "$PORT" "$TMP/store" 2>"$TMP/e5"
  check "a port in use: error" [ $? -eq 1 ]
  check "the error says where it could not listen" \
    grep -q "cannot listen on 127.0.0.1 port $PORT" "$TMP/e5"
  check "serve stops with status 0" stop_with TERM
fi
# no STORE_DIR: the store run publishes to (the configuration's
# store.url, else $XDG_DATA_HOME/benchprof/store), never the current
# directory
mkdir -p "$TMP/xdg/benchprof"
ln -s "$TMP/store" "$TMP/xdg/benchprof/store"
unset BENCHPROF_CONFIG BENCHPROF_STORE
export XDG_DATA_HOME="$TMP/xdg"
if serve_start serve4 --port 0; then
  check "no STORE_DIR: the default store is served" \
    grep -q "^serving $TMP/xdg/benchprof/store at " "$TMP/serve4.out"
  check "no STORE_DIR: its latest profiles are listed" \
    grep -q "^latest " "$TMP/serve4.out"
  check "serve stops with status 0" stop_with TERM
else
  fail "serve without STORE_DIR"
fi
printf '{"store": {"url": "file://%s"}}\n' "$TMP/store" >"$TMP/serve.json"
export BENCHPROF_CONFIG="$TMP/serve.json" XDG_DATA_HOME="$TMP/nothing"
if serve_start serve5 --port 0; then
  check "no STORE_DIR: the configuration's store.url is served" \
    grep -q "^serving $TMP/store at " "$TMP/serve5.out"
  check "serve stops with status 0" stop_with TERM
else
  fail "serve without STORE_DIR, with a configuration"
fi
unset BENCHPROF_CONFIG
# --config FILE, as every other command takes it: its store.url
if serve_start serve6 --port 0 --config "$TMP/serve.json"; then
  check "--config FILE: its store.url is served" \
    grep -q "^serving $TMP/store at " "$TMP/serve6.out"
  check "serve stops with status 0" stop_with TERM
else
  fail "serve --config FILE: $(cat "$TMP/serve6.err")"
fi
export XDG_DATA_HOME="$TMP/none"
"$BENCHPROF" serve --port 0 >/dev/null 2>"$TMP/e6"
check "no STORE_DIR and no store yet: an error" [ $? -eq 1 ]
check "no STORE_DIR and no store yet: the error names where it looked" \
  grep -q "$TMP/none/benchprof/store" "$TMP/e6"

"$BENCHPROF" serve --help | grep -q "usage: benchprof serve" ||
  fail "serve --help"

finish
