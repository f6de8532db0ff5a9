#!/bin/sh
# benchprof serve, who may read the store and what its links name:
#   - a request from a web page of another origin is refused (403, no
#     Access-Control-Allow-Origin), pages, artifacts and preflights alike;
#     the Firefox Profiler's origin, this server's own and --allow-origin
#     ones are answered with their own origin named (never '*');
#   - links come from the bound address, or --public-url, never from the
#     request's Host header (a page that makes the browser send another
#     Host gets no links to it);
#   - the same pages as the store's static ones: .../index.html is its
#     directory's page, the branch page lists the runs, a PR run's page
#     shows its verdict and comment;
#   - a benchmark the harness marked: its page shows its own figures, not
#     the whole run's (unwinding, lost records, exit status).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"
. "$top_srcdir/tests/publish_lib.sh"

need python3 "apt-get install python3"
need_workload split hooks_harness
outside_ci

BASE=1111111111111111111111111111111111111111
HEAD=2222222222222222222222222222222222222222
MARKED=3333333333333333333333333333333333333333
{
  echo '#!/bin/sh'
  echo "\"$WORKLOADS/split\" 0.05 >/dev/null"
  echo 'printf "{\"tiny\": {\"latency\": {\"value\": %s}}}" "$2" >"$1"'
} >"$TMP/tiny.sh"
chmod +x "$TMP/tiny.sh"
opts="--project demo --testbed box --store file://$TMP/store
  --spool $TMP/spool --retries 1"
# shellcheck disable=SC2086
"$BENCHPROF" run -q -o "$TMP/base" $opts --branch main --hash $BASE \
  --bmf "$TMP/b.json" -- "$TMP/tiny.sh" "$TMP/b.json" 100 2>"$TMP/base.err"
# shellcheck disable=SC2086
"$BENCHPROF" run -o "$TMP/head" $opts --branch feature/x --hash $HEAD \
  --base-branch main --base-hash $BASE --bmf "$TMP/h.json" -- \
  "$TMP/tiny.sh" "$TMP/h.json" 300 >/dev/null 2>"$TMP/head.err"
check "the PR run compared with its base" \
  grep -q "compare with main (111111111111)" "$TMP/head.err"
# shellcheck disable=SC2086
"$BENCHPROF" run -q -o "$TMP/marked" $opts --branch marks --hash $MARKED \
  -- "$WORKLOADS/hooks_harness" >/dev/null 2>"$TMP/marked.err"
check "the marked run published" \
  grep -q '"delivered"' "$TMP/marked/manifest.json"

# start_serve NAME ARGS...: benchprof serve; its URL in $URL
start_serve() {
  name=$1
  shift
  "$BENCHPROF" serve --port 0 "$@" "$TMP/store" >"$TMP/$name.out" \
    2>"$TMP/$name.err" &
  PIDS="$PIDS $!"
  URL=
  i=0
  while [ -z "$URL" ] && [ $i -lt 200 ]; do
    URL=$(sed -n 's|^serving .* at \(http://127\.0\.0\.1:[0-9]*/\)$|\1|p' \
      "$TMP/$name.out")
    [ -n "$URL" ] || sleep 0.05
    i=$((i + 1))
  done
  [ -n "$URL" ]
}
check "serve starts" start_serve plain
check "serve with --public-url and --allow-origin starts" start_serve public \
  --public-url https://perf.example.com/store --allow-origin \
  https://dash.example.com:8443
PLAIN=$(sed -n 's|^serving .* at \(http://[^ ]*\)$|\1|p' "$TMP/plain.out")

python3 - "$PLAIN" "$URL" "$HEAD" "$MARKED" <<'EOF' || fail "HTTP checks"
import http.client
import sys
import urllib.parse

plain, public, head, marked = sys.argv[1:]
fails = 0


def check(desc, ok):
    global fails
    print(("ok: " if ok else "FAIL: ") + desc)
    if not ok:
        fails += 1


def request(base, method, path, headers=None):
    u = urllib.parse.urlsplit(base)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    c.request(method, path, headers=headers or {})
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, \
        body.decode("utf-8", "replace")


FIREFOX = "https://profiler.firefox.com"
EVIL = "https://evil.example"
run_page = "/demo/feature%%252Fx/%s/box/" % head
s, h, page = request(plain, "GET", run_page)
check("the PR run's page answers", s == 200)
# the paths a browser would read
paths = ["/", run_page, run_page + "~run/summary.json"]
for p in paths:
    s, h, body = request(plain, "GET", p, {"Origin": EVIL})
    check("another origin refused: GET %s -> %d" % (p, s),
          s == 403 and "access-control-allow-origin" not in h and
          "summary" not in body and "Verdict" not in body)
s, h, _ = request(plain, "OPTIONS", run_page + "~run/summary.json",
                  {"Origin": EVIL, "Access-Control-Request-Method": "GET"})
check("another origin's preflight refused", s == 403 and
      "access-control-allow-origin" not in h)
for origin in (FIREFOX, plain.rstrip("/")):
    s, h, _ = request(plain, "GET", run_page + "~run/summary.json",
                      {"Origin": origin})
    check("origin %s allowed and named" % origin,
          s == 200 and h.get("access-control-allow-origin") == origin and
          "Origin" in h.get("vary", ""))
s, h, _ = request(public, "GET", "/", {"Origin": "https://dash.example.com:8443"})
check("--allow-origin's origin allowed and named", s == 200 and
      h.get("access-control-allow-origin") == "https://dash.example.com:8443")
s, h, _ = request(public, "GET", "/", {"Origin": "https://perf.example.com"})
check("--public-url's origin allowed", s == 200 and
      h.get("access-control-allow-origin") == "https://perf.example.com")
s, h, _ = request(public, "GET", "/", {"Origin": EVIL})
check("... and still no other", s == 403)

# links: never from Host
s, h, page = request(plain, "GET", run_page, {"Host": "evil.example:80"})
check("a Host header names nothing in the page", s == 200 and
      "evil.example" not in page and
      urllib.parse.quote(plain, safe="") in page)
s, h, page = request(public, "GET", run_page, {"Host": "evil.example"})
check("--public-url names the profile in from-url links",
      urllib.parse.quote("https://perf.example.com/store/demo/", safe="")
      in page and "evil.example" not in page)

# the same pages as the store's static ones
s1, _, dirpage = request(plain, "GET", "/demo/feature%252Fx/")
s2, h2, indexpage = request(plain, "GET", "/demo/feature%252Fx/index.html")
check("index.html is its directory's page", s1 == s2 == 200 and
      dirpage == indexpage and h2.get("content-type", "")
      .startswith("text/html"))
check("the branch page lists the runs with the verdict",
      '<table class="runs">' in dirpage and head[:12] in dirpage and
      "against main" in dirpage and 'class="verdict ' in dirpage)
s, _, page = request(plain, "GET", run_page)
check("the run's page shows its measures, verdict and comment",
      "Measures" in page and 'id="verdict"' in page and
      '<div class="comment">' in page and "benchprof:comment" not in page)
s, _, page = request(plain, "GET", "/demo/")
check("listings hide the static pages' files",
      "~branches.json" not in page and ">index.html<" not in page)

# a marked benchmark's page: its own figures only
s, _, page = request(plain, "GET", "/demo/marks/%s/box/alpha/" % marked)
check("a marked benchmark's page answers", s == 200 and "Summary" in page)
check("... says its figures are its own", 'id="slice"' in page)
check("... without the whole run's", all(k not in page for k in (
    "unwind_samples", "spilled_bytes", "lost_events", "exit_status")))
check("... with its own samples", ">samples<" in page)
sys.exit(1 if fails else 0)
EOF
check "the marked benchmark's summary does repeat the whole run's figures" \
  grep -q '"unwind_samples"' "$TMP/marked/alpha/summary.json"
finish
