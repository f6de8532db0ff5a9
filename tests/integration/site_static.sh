#!/bin/sh
# The viewer as static pages in the store (site.h), without a server:
#   file:// store: a base run on main, a pull request run of feature/x
#   that compares with it (a confirmed regression), then six runs of main
#   published at once.  The branch page lists every run (none lost to a
#   concurrent publisher), the PR run's row and page carry the verdict,
#   the comment rendered and its diff.svg inline; headless Chromium
#   screenshots show the runs list (links, the verdict's red) and the run
#   page (the flame graphs); `benchprof index` writes a removed page again.
#   s3:// store (s3rver behind the SigV4-checking proxy): a base run, a
#   PR run and three runs published at once; the pages are read back over
#   HTTP from s3rver as a browser would (text/html), list every run and
#   show the PR run's verdict, in Chromium too.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"
. "$top_srcdir/tests/publish_lib.sh"

need python3 "apt-get install python3"
need_workload cmpwork_base cmpwork_head split
SETUP="scripts/setup-debian.sh installs it"
for tool in chromium s3rver; do
  command -v $tool >/dev/null 2>&1 || { fail "$tool not found ($SETUP)"; finish; }
done
outside_ci

BASE=1111111111111111111111111111111111111111
HEAD=2222222222222222222222222222222222222222
mkdir -p "$TMP/b" "$TMP/h"
cp "$WORKLOADS/cmpwork_base" "$TMP/b/cmpwork"
cp "$WORKLOADS/cmpwork_head" "$TMP/h/cmpwork"
# a small harness: its BMF names one latency
{
  echo '#!/bin/sh'
  echo "\"$WORKLOADS/split\" 0.05 >/dev/null"
  echo 'printf "{\"tiny\": {\"latency\": {\"value\": %s}}}" "$2" >"$1"'
} >"$TMP/tiny.sh"
chmod +x "$TMP/tiny.sh"

STORE="file://$TMP/store"
# run NAME STORE_OPTS ARGS...: benchprof run into $TMP/NAME, published
run() {
  name=$1 sopts=$2
  shift 2
  # shellcheck disable=SC2086
  "$BENCHPROF" run -o "$TMP/$name" --project demo --testbed box $sopts \
    --spool "$TMP/spool-$name" --retries 2 --timeout 20 "$@" \
    >"$TMP/$name.out" 2>"$TMP/$name.err"
}

# --- the file store
run base "--store $STORE" --adapter json --branch main --hash $BASE \
  -- "$TMP/b/cmpwork" 600
check "base run published" grep -q '"delivered"' "$TMP/base/manifest.json"
run head "--store $STORE" --adapter json --branch feature/x --hash $HEAD \
  --base-branch main --base-hash $BASE -- "$TMP/h/cmpwork" 600
check "the PR run compared with its base: a regression" \
  grep -q "compare with main (111111111111): 1 regression" "$TMP/head.err"
# six publishers at once on main
pids=
for i in 1 2 3 4 5 6; do
  run "c$i" "--store $STORE" --branch main --hash "a$i${BASE#??}" \
    --bmf "$TMP/c$i.json" -- "$TMP/tiny.sh" "$TMP/c$i.json" "$i" &
  pids="$pids $!"
done
for p in $pids; do wait "$p"; done

# pages NAME STORE_ROOT_URL FETCH: the checks of a store's pages, FETCH
# a python expression reading a key (k) as text
pages_ok() {
  python3 - "$1" "$2" "$BASE" "$HEAD" <<'PY'
import json, re, sys, urllib.parse, urllib.request
kind, root, base, head = sys.argv[1:]
def get(key):
    url = root + "/".join(urllib.parse.quote(p, safe="") for p in
                          key.split("/"))
    with urllib.request.urlopen(url) as r:
        return r.read().decode(), r.headers.get("Content-Type", "")
main, ctype = get("demo/main/index.html")
assert ctype.startswith("text/html"), ctype
runs = json.loads(get("demo/main/~runs.json")[0])["runs"]
n = 7 if kind == "file" else 5
commits = [r["commit"] for r in runs]
assert len(commits) == n and base in commits, commits
ends = [r["end_time"] for r in runs]
assert ends == sorted(ends, reverse=True), "not newest first: %s" % ends
links = re.findall(r'<a class="run" href="([^"]+)"', main)
assert len(links) == n, links
for c in commits:
    assert any(l.startswith(c + "/") for l in links), (c, links)
    page, _ = get("demo/main/%s/box/index.html" % c)
    assert "Measures" in page, c
assert "passed (exit 0)" in main
feature, _ = get("demo/feature%2Fx/index.html")
assert 'class="verdict regression"' in feature if kind == "file" else \
    'class="verdict ' in feature, feature
assert "against main" in feature
run, _ = get("demo/feature%2Fx/" + head + "/box/index.html")
assert 'id="verdict"' in run, run
assert "Comparison with main" in run
assert '<div class="comment">' in run and "<table>" in run
# the comment's own markup rendered, its marker never shown
assert "benchprof:comment" not in run and "&lt;details" not in run
if kind == "s3":
    # the profiles' public URLs are http: the Firefox Profiler can load them
    assert 'class="profiler" href="https://profiler.firefox.com/from-url/' \
        in run, run
if kind == "file":
    assert 'class="flame diff"' in run and "diff.svg" in run
    assert 'class="verdict regression"' in run
projects, _ = get("index.html")
assert 'href="demo/index.html"' in projects, projects
branches, _ = get("demo/index.html")
assert 'href="feature%252Fx/index.html"' in branches, branches
assert 'href="main/index.html"' in branches, branches
print(kind, "store pages:", n, "runs on main, the PR run's verdict shown")
PY
}
check "file store: every run listed, newest first, the PR's verdict" \
  pages_ok file "file://$TMP/store/"

# shot NAME URL: a 1200x900 screenshot of URL in $TMP/NAME.png
shot() {
  mkdir -p "$TMP/home" "$TMP/profile-$1"
  HOME=$TMP/home timeout 60 chromium --headless --no-sandbox --disable-gpu \
    --no-first-run --disable-extensions --disable-dev-shm-usage \
    --user-data-dir="$TMP/profile-$1" --window-size=1200,900 \
    --screenshot="$TMP/$1.png" "$2" >"$TMP/$1.log" 2>&1
  [ -s "$TMP/$1.png" ] || { tail -5 "$TMP/$1.log"; return 1; }
}
FEATURE="file://$TMP/store/demo/feature%252Fx"
shot runs "$FEATURE/index.html" &
p1=$!
shot run "$FEATURE/$HEAD/box/index.html" &
p2=$!
check "file store: screenshot of the PR branch's runs" wait $p1
check "file store: screenshot of the PR run's page" wait $p2
check "file store: the runs list rendered with its verdict in red" \
  python3 "$top_srcdir/tests/png_stats.py" "$TMP/runs.png" colours:10 \
  ink:1000 link:100 red:100
# the differential flame graph colours only the frames beyond the noise
# (cmp_changed, red, some 10,000 warm pixels here); a page without the
# graph has a few hundred (the runs list above: under 400)
check "file store: the run's page shows its flame graphs" \
  python3 "$top_srcdir/tests/png_stats.py" "$TMP/run.png" colours:50 \
  warm:4000

rm "$TMP/store/demo/main/index.html"
"$BENCHPROF" index --store "$STORE" >"$TMP/index.out" 2>"$TMP/index.err"
check "index: exit 0" [ $? -eq 0 ]
check "index: says what it wrote" \
  grep -q "pages written (1 projects, 2 branches, 8 runs)" "$TMP/index.out"
check "index: the removed page is back, every run listed" \
  pages_ok file "file://$TMP/store/"
mkdir -p "$TMP/nothing"
"$BENCHPROF" index --store "file://$TMP/nothing" >/dev/null 2>"$TMP/e.err"
check "index of a store without lists: error" [ $? -eq 1 ]
check "index of a store without lists: says so" \
  grep -q "no list of projects" "$TMP/e.err"
"$BENCHPROF" index --store "file://$TMP/mistyped" >/dev/null 2>"$TMP/e2.err"
check "index of a missing store directory: error" [ $? -eq 1 ]
check "index of a missing store directory: says so" \
  grep -q "mistyped: the store's directory cannot be read: No such file" \
  "$TMP/e2.err"

# --- s3rver behind the SigV4-checking proxy
start_s3
S3="--store s3://bkt/pre --s3-path-style --s3-endpoint http://127.0.0.1:$pport
  --s3-region us-east-1"
run s3base "$S3" --branch main --hash $BASE --bmf "$TMP/s3b.json" \
  -- "$TMP/tiny.sh" "$TMP/s3b.json" 100
run s3head "$S3" --branch feature/x --hash $HEAD --base-branch main \
  --base-hash $BASE --bmf "$TMP/s3h.json" -- "$TMP/tiny.sh" \
  "$TMP/s3h.json" 300
check "s3: the PR run compared with its base" \
  grep -q "compare with main (111111111111)" "$TMP/s3head.err"
pids=
for i in 1 2 3; do
  run "s$i" "$S3" --branch main --hash "a$i${BASE#??}" \
    --bmf "$TMP/s$i.json" -- "$TMP/tiny.sh" "$TMP/s$i.json" "$i" &
  pids="$pids $!"
done
for p in $pids; do wait "$p"; done
for n in s3base s3head s1 s2 s3; do
  grep -q '"delivered"' "$TMP/$n/manifest.json" ||
    { cat "$TMP/$n.err"; fail "s3: $n not delivered"; }
done
# a list read while another publisher's PUT of it is still being written
# (half its bytes, the ETag of the whole) is read again, never started
# afresh: the runs listed before stay listed
python3 "$SERVERS/s3_sigv4_proxy.py" --upstream "$s3port" \
  --port-file "$TMP/s3t.port" --key S3RVER --secret "$SECRET" \
  --torn-get "main/~runs.json:2" >"$TMP/s3t.log" 2>&1 &
PIDS="$PIDS $!"
tport=$(wait_port "$TMP/s3t.port")
run s4 "--store s3://bkt/pre --s3-path-style --s3-endpoint \
  http://127.0.0.1:$tport --s3-region us-east-1" --branch main \
  --hash "a4${BASE#??}" --bmf "$TMP/s4.json" -- "$TMP/tiny.sh" \
  "$TMP/s4.json" 4
check "s3: torn reads of the runs list happened" \
  [ "$(grep -c 'runs.json torn' "$TMP/s3t.log")" -eq 2 ]
check "s3: the run after torn reads delivered" \
  grep -q '"delivered"' "$TMP/s4/manifest.json"
# read as a bucket website's visitor would: plain GETs, no signature
S3WEB="http://127.0.0.1:$s3port/bkt/pre/"
for n in s1 s2 s3; do tail -3 "$TMP/$n.err"; done
check "s3 store: every run listed, the PR's verdict, served as HTML" \
  pages_ok s3 "$S3WEB"
shot s3runs "${S3WEB}demo/feature%252Fx/index.html"
check "s3 store: screenshot of the PR branch's runs" [ -s "$TMP/s3runs.png" ]
check "s3 store: the runs list rendered" \
  python3 "$top_srcdir/tests/png_stats.py" "$TMP/s3runs.png" colours:10 \
  ink:1000 link:100
check "s3: the proxy saw only good signatures" \
  sh -c "! grep -q ' 403' '$TMP/s3p.log'"
check "no secret in any output or page" \
  no_token "$TMP"/*.err "$TMP/store" "$TMP/s3"
finish
