#!/bin/sh
# benchprof run stores its artifacts under
# {project}/{branch}/{commit}/{testbed}/{benchmark}/{file}, then the
# stored manifest (every artifact with the sha256 of the stored bytes),
# then the branch's latest pointer, last; hostile branch, testbed and
# benchmark names stay inside their key part; the same through an
# http:// store (put_server.py, bearer token) and an s3:// store (s3rver
# behind a SigV4-checking proxy).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"

STORE_TOOL="$top_builddir/tests/unit/store_tool"
HASH=0123456789abcdef0123456789abcdef01234567
BENCH='../up/and "out"
x'
BRANCH='../../feature/x y'
TESTBED='box/../../..'
{
  echo '#!/bin/sh'
  echo "\"$WORKLOADS/split\" 0.1 >/dev/null"
  echo 'python3 -c "import json,sys; json.dump({sys.argv[2]: {\"latency\": {\"value\": 5}}}, open(sys.argv[1], \"w\"))" "$1" "$2"'
} >"$TMP/harness.sh"
chmod +x "$TMP/harness.sh"
opts="--project demo --retries 2 --timeout 5 --spool $TMP/spool"

# layout KEYROOT_LISTING_CMD: the stored manifest's keys have six parts,
# each decoding to its name, under the store's root
layout() {
  python3 - "$@" <<'PY'
import json, os, sys, urllib.parse
man_path, bench, branch, testbed, h = sys.argv[1:6]
m = json.load(open(man_path))
ident = m["publication"]["identity"]
assert ident["branch"] == branch and ident["testbed"] == testbed, ident
keys = [a["key"] for b in m["benchmarks"] for a in b["artifacts"]]
assert len(keys) == 5, keys
for k in keys:
    parts = k.split("/")
    assert len(parts) == 6, k
    names = [urllib.parse.unquote(p) for p in parts]
    # a benchmark without markers: the whole run's artifacts, under ~run
    assert names[:4] == ["demo", branch, h, testbed] and parts[4] == "~run", names
    for p in parts:
        assert p not in ("", ".", "..") and not any(ord(c) < 32 for c in p)
assert [b["name"] for b in m["benchmarks"]] == [bench], m["benchmarks"]
assert m["results"][bench]["latency"]["value"] == 5, m["results"]
PY
}

# 1. file:// store
"$BENCHPROF" run -q -o "$TMP/out" --bmf "$TMP/h.json" --branch "$BRANCH" \
  --testbed "$TESTBED" --hash $HASH --store "file://$TMP/store" $opts -- \
  "$TMP/harness.sh" "$TMP/h.json" "$BENCH" 2>"$TMP/err1"
check "file store: run exits 0" [ $? -eq 0 ]
check "file store: delivered" python3 -c "
import json, sys
p = json.load(open('$TMP/out/manifest.json'))['publication']
assert p['state'] == 'delivered', p" 
man=$(find "$TMP/store" -name manifest.json | head -1)
# the stored manifest is made from the run's parsed one: its keys, URLs
# and report must not leak back into the run directory's
check "file store: the run's manifest has no store keys or report, the stored one has" \
  python3 - "$TMP/out/manifest.json" "$man" <<'PY'
import json, sys
run, stored = (json.load(open(p)) for p in sys.argv[1:3])
def arts(m):
    return m.get("artifacts", []) + [a for b in m.get("benchmarks", [])
                                     for a in b.get("artifacts", [])]
assert arts(run) and len(arts(run)) == len(arts(stored)), (len(arts(run)), len(arts(stored)))
assert not any(k in a for a in arts(run) for k in ("key", "url", "firefox_url")), arts(run)[:2]
assert all("key" in a and "url" in a for a in arts(stored)), arts(stored)[:2]
assert "results" not in run and "results" in stored, sorted(run)
assert run["publication"]["state"] == "delivered" and "identity" in stored["publication"]
PY
check "file store: one manifest" [ "$(find "$TMP/store" -name manifest.json | wc -l)" -eq 1 ]
check "file store: keys keep each name in its part" \
  layout "$man" "$BENCH" "$BRANCH" "$TESTBED" $HASH
check "file store: artifacts match their sha256" store_ok "$TMP/store"
check "file store: nothing outside the store" \
  sh -c "[ -z \"\$(find '$TMP' -newer '$TMP/harness.sh' -type f | grep -v -e '^$TMP/store/' -e '^$TMP/out/' -e '^$TMP/h.json' -e '^$TMP/err1' -e '^$TMP/xdg')\" ]"
check "file store: the latest pointer names this manifest" python3 - \
  "$TMP/store" <<'PY'
import json, os, sys
root = sys.argv[1]
ls = [os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs
      if os.path.basename(d) == "latest"]
assert len(ls) == 1, ls
p = json.load(open(ls[0]))
assert p["testbed"] == "box/../../.." and p["commit"] == p["hash"], p
assert os.path.isfile(os.path.join(root, p["manifest"])), p
assert p["manifest_url"].startswith("file://"), p
PY

# 2. http:// store: bearer token, the latest pointer is the last PUT
mkdir -p "$TMP/http-root"
python3 "$SERVERS/put_server.py" --root "$TMP/http-root" \
  --port-file "$TMP/put.port" --token "$TOKEN" >"$TMP/put.log" 2>&1 &
PIDS="$PIDS $!"
port=$(wait_port "$TMP/put.port")
BENCHPROF_STORE_TOKEN="$TOKEN" "$BENCHPROF" run -q -o "$TMP/out2" \
  --bmf "$TMP/h.json" --branch main --testbed box --hash $HASH \
  --store "http://127.0.0.1:$port/bucket" $opts -- \
  "$TMP/harness.sh" "$TMP/h.json" simple 2>"$TMP/err2"
check "http store: run exits 0" [ $? -eq 0 ]
check "http store: artifacts, then manifest, then latest" python3 - \
  "$TMP/put.log" <<'PY'
import sys
puts = [l.split()[1] for l in open(sys.argv[1]) if l.startswith("PUT ")]
# then the store's static pages (site.h), each level's list before its page
site = ["/bucket/demo/main/~runs.json", "/box/index.html",
        "/bucket/demo/main/index.html", "/bucket/demo/~branches.json",
        "/bucket/demo/index.html", "/bucket/~projects.json",
        "/bucket/index.html"]
assert len(puts) == 7 + len(site), puts
assert all(p.endswith(s) for p, s in zip(puts[7:], site)), puts
puts = puts[:7]
assert puts[-1] == "/bucket/demo/main/latest/box.json", puts
assert puts[-2].endswith("/box/manifest.json"), puts
assert all("/~run/" in p for p in puts[:5]), puts
PY
check "http store: artifacts match their sha256" store_ok "$TMP/http-root/bucket"
check "http store: the manifest points at http URLs" python3 - \
  "$TMP/out2/manifest.json" "$port" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["publication"]
assert p["manifest_url"] == ("http://127.0.0.1:%s/bucket/demo/main/%s/box/"
                             "manifest.json" % (sys.argv[2], "0123456789abcdef0123456789abcdef01234567")), p
PY
BENCHPROF_STORE_TOKEN=wrong "$BENCHPROF" run -q -o "$TMP/out3" \
  --bmf "$TMP/h.json" --branch main --testbed box --hash $HASH \
  --store "http://127.0.0.1:$port/bucket" $opts -- \
  "$TMP/harness.sh" "$TMP/h.json" simple 2>"$TMP/err3"
check "http store, wrong token: the benchmark's status stays 0" [ $? -eq 0 ]
check "http store, wrong token: spooled with the server's answer" \
  grep -q "spooled.*401" "$TMP/err3"
env -u BENCHPROF_STORE_TOKEN "$BENCHPROF" run -o "$TMP/out3b" \
  --bmf "$TMP/h.json" --branch main --testbed box --hash $HASH \
  --store "http://127.0.0.1:$port/bucket" $opts -- \
  "$TMP/harness.sh" "$TMP/h.json" simple >/dev/null 2>"$TMP/err3b"
check "http store, no token: the note names the variable" \
  grep -q 'no bearer token: \$BENCHPROF_STORE_TOKEN is not set' "$TMP/err3b"
BENCHPROF_STORE_TOKEN=wrong "$BENCHPROF" run -o "$TMP/out3c" \
  --bmf "$TMP/h.json" --branch main --testbed box --hash $HASH \
  --store "http://127.0.0.1:$port/bucket" $opts -- \
  "$TMP/harness.sh" "$TMP/h.json" simple >/dev/null 2>"$TMP/err3c"
check "http store, with a token: no such note" sh -c \
  "grep -q 'spooled' '$TMP/err3c' && ! grep -q 'no bearer token' '$TMP/err3c'"

# 3. s3:// store: s3rver behind the SigV4-checking proxy, path style
start_s3
"$BENCHPROF" run -q -o "$TMP/out4" --bmf "$TMP/h.json" --branch "$BRANCH" \
  --testbed box --hash $HASH --store "s3://bkt/pre" --s3-path-style \
  --s3-endpoint "http://127.0.0.1:$pport" --s3-region us-east-1 $opts -- \
  "$TMP/harness.sh" "$TMP/h.json" "$BENCH" 2>"$TMP/err4"
check "s3 store: run exits 0" [ $? -eq 0 ]
check "s3 store: delivered" grep -q '"delivered"' "$TMP/out4/manifest.json"
check "s3 store: stored bytes match the manifest's sha256" python3 - \
  "$STORE_TOOL" "$pport" <<'PY'
import hashlib, json, subprocess, sys
tool, port = sys.argv[1:]
def get(key):
    return subprocess.run([tool, "--endpoint", "http://127.0.0.1:" + port,
                           "--path-style", "get", "s3://bkt/pre", key],
                          check=True, capture_output=True).stdout
h = "0123456789abcdef0123456789abcdef01234567"
latest = json.loads(get("demo/..%2F..%2Ffeature%2Fx%20y/latest/box.json"))
m = json.loads(get(latest["manifest"]))
n = 0
for b in m["benchmarks"]:
    for a in b["artifacts"]:
        data = get(a["key"])
        assert hashlib.sha256(data).hexdigest() == a["sha256"], a
        n += 1
assert n == 5, n
PY
check "s3 store: the proxy saw only good signatures" \
  sh -c "! grep -q ' 403' '$TMP/s3p.log'"
# a secret the store refuses: spooled, and the note names the variables
# the credentials came from (never their values)
AWS_SECRET_ACCESS_KEY=not-the-s3-secret "$BENCHPROF" run \
  -o "$TMP/out4b" --bmf "$TMP/h.json" --branch main --testbed box \
  --hash $HASH --store "s3://bkt/pre" --s3-path-style \
  --s3-endpoint "http://127.0.0.1:$pport" --s3-region us-east-1 $opts \
  --retries 0 -- "$TMP/harness.sh" "$TMP/h.json" simple 2>"$TMP/err4b"
check "s3 store, wrong secret: run exits 0" [ $? -eq 0 ]
check "s3 store, wrong secret: the credentials' variables named" grep -q \
  'the store s3://bkt/pre refused the credentials from \$AWS_ACCESS_KEY_ID and \$AWS_SECRET_ACCESS_KEY (HTTP 403)' \
  "$TMP/err4b"
check "s3 store, wrong secret: no value shown" sh -c \
  "! grep -q -e 'not-the-s3-secret' -e '$SECRET' '$TMP/err4b'"
# 4. benchmarks the harness marks (hooks.h): each its own profile
# directory, stored under that directory's name
"$BENCHPROF" run -q -o "$TMP/out5" --branch main --testbed box --hash $HASH \
  --store "file://$TMP/store5" $opts -- "$WORKLOADS/hooks_harness" \
  >/dev/null 2>"$TMP/err5"
check "marked benchmarks: run exits 0" [ $? -eq 0 ]
check "marked benchmarks: stored per profile directory" python3 - \
  "$TMP/out5/manifest.json" <<'PY'
import json, sys
pub = json.load(open(sys.argv[1]))["publication"]
m = json.load(open(pub["manifest_url"][len("file://"):]))
dirs = {}
for b in m["benchmarks"]:
    for a in b["artifacts"]:
        part = a["key"].split("/")[4]
        dirs.setdefault(b["profile"], set()).add(part)
for d, parts in dirs.items():
    assert d != "." and parts == {d}, (d, parts)
assert {"alpha", "beta", "gamma"} <= set(dirs), dirs
PY
check "marked benchmarks: artifacts match their sha256" store_ok "$TMP/store5"

# 5. a store URL that cannot work: a usage error naming the option, as
# any bad option value is (so run --check-options, which the runner
# hooks ask first, refuses it too), before the command runs; nothing
# spooled
"$BENCHPROF" run -q -o "$TMP/out6" --bmf "$TMP/h.json" --branch main \
  --testbed box --store "ftp://example/x" --project demo \
  --spool "$TMP/spool6" -- sh -c "touch '$TMP/ran6'" 2>"$TMP/err6"
check "bad store URL: a usage error (exit 2)" [ $? -eq 2 ]
check "bad store URL: said so, naming the option" \
  grep -q -- "--store 'ftp://example/x'" "$TMP/err6"
check "bad store URL: the command did not run" [ ! -e "$TMP/ran6" ]
check "bad store URL: nothing spooled" [ -z "$(ls "$TMP/spool6" 2>/dev/null)" ]

check "no secret in any output, run directory or spool" \
  no_token "$TMP/err1" "$TMP/err2" "$TMP/err3" "$TMP/err4" "$TMP/out" \
  "$TMP/out2" "$TMP/out3" "$TMP/out4" "$TMP/spool" "$TMP/store"
finish
