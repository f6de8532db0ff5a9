#!/bin/sh
# Hostile names through everything publishing added: benchmark, branch,
# testbed and project names carrying the classic payloads (quotes,
# backslash, </script>, ]]>, an <img onerror>, ../.., %2e%2e, control
# characters, invalid UTF-8, {{, a newline, backticks, |, a Markdown
# javascript: link, ;).  Checks: every store key keeps each name inside
# its own part and nothing lands outside the store; the stored manifest
# is valid UTF-8 JSON that gives each name back as data; an identity name
# that is not UTF-8 is refused with a clear error; `benchprof compare`'s
# comment.md escapes every name for Markdown and HTML (no raw <, no
# javascript: link); `benchprof serve` pages escape them for HTML.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"

HASH_A=0123456789abcdef0123456789abcdef01234567
HASH_B=1123456789abcdef0123456789abcdef01234567
python3 - "$TMP/names.json" <<'PY'
import json, sys
names = ['"quote"', 'back\\slash', '</script><script>alert(1)</script>',
         ']]>', '<img src=x onerror=alert(1)>', '../..', '%2e%2e/%2E%2E',
         'ctl\x01\x1b[31m\x7f', 'bad\udcff\udcfeutf8', '{{7*7}}',
         'new\nline', '`tick`', 'pi|pe', '[x](javascript:alert(1))',
         'semi;colon']
json.dump(names, open(sys.argv[1], "w"))
PY
# the harness: a real workload, then a BMF with every name (invalid
# UTF-8 as raw bytes), latency VALUE + i
cat >"$TMP/bmf.py" <<'PY'
import json, sys
names = json.load(open(sys.argv[2]))
v = float(sys.argv[3])
doc = {n: {"latency": {"value": v + i}} for i, n in enumerate(names)}
text = json.dumps(doc, ensure_ascii=False)
open(sys.argv[1], "wb").write(text.encode("utf-8", "surrogateescape"))
PY
{
  echo '#!/bin/sh'
  echo "\"$WORKLOADS/split\" 0.1 >/dev/null"
  echo "python3 \"$TMP/bmf.py\" \"\$1\" \"$TMP/names.json\" \"\$2\""
} >"$TMP/harness.sh"
chmod +x "$TMP/harness.sh"
PROJECT='proj"<x>`|'
BRANCH=$(printf 'br/<img src=x onerror=alert(1)>`|{{]]>"\\\001\n../..%%2e%%2e](javascript:alert(1))x')
TESTBED='tb</script>%2e%2e/..'
store="$TMP/store"

publish() {
  "$BENCHPROF" run -q -o "$TMP/$1" --bmf "$TMP/h.json" --project "$PROJECT" \
    --branch "$BRANCH" --testbed "$TESTBED" --hash "$2" \
    --store "file://$store" --spool "$TMP/spool" -- \
    "$TMP/harness.sh" "$TMP/h.json" "$3" 2>"$TMP/$1.err"
}
publish base $HASH_A 10
check "base run exits 0" [ $? -eq 0 ]
publish head $HASH_B 20
check "head run exits 0" [ $? -eq 0 ]
check "both delivered" sh -c "grep -q '\"delivered\"' '$TMP/base/manifest.json' &&
  grep -q '\"delivered\"' '$TMP/head/manifest.json'"

# 1. store keys and the stored manifests
# (a part longer than 120 bytes once encoded is bounded: the branch here
# is; store_tool part gives the part expected)
check "store: each name in its own key part, nothing outside the store" \
  python3 - "$store" "$TMP" "$TMP/names.json" "$PROJECT" "$BRANCH" \
  "$TESTBED" "$top_builddir/tests/unit/store_tool" <<'PY'
import json, os, subprocess, sys, urllib.parse
store, tmp, names_file, project, branch, testbed, tool = sys.argv[1:8]
def part(name):
    return subprocess.run([tool, "part", name], check=True,
                          capture_output=True).stdout.decode()[:-1]
names = json.load(open(names_file))
# as report.c keeps them: invalid UTF-8 becomes U+FFFD
want = {n.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        for n in names}
files = [os.path.relpath(os.path.join(d, f), store)
         for d, _, fs in os.walk(store) for f in fs]
benches = set()
# the store's static pages (site.h) and their lists, one per level
site = {("index.html",), ("~projects.json",)}
for f in files:
    parts = f.split("/")
    for p in parts:
        assert p not in ("", ".", "..") and "/" not in p, f
        assert not any(ord(c) < 32 or c == "\x7f" for c in p), f
    if tuple(parts) in site:
        continue
    if (len(parts) == 2 and parts[1] in ("index.html", "~branches.json")) \
            or (len(parts) == 3 and parts[2] in ("index.html", "~runs.json")):
        assert urllib.parse.unquote(parts[0]) == project, f
        assert len(parts) == 2 or parts[1] == part(branch), f
        continue
    if len(parts) == 5 and parts[4] == "index.html":
        parts = parts[:4] + ["manifest.json"]   # the run's page
    names_ = [urllib.parse.unquote(p, errors="strict") for p in parts]
    assert names_[0] == project and parts[1] == part(branch), names_
    if names_[2] == "latest":
        assert len(parts) == 4 and names_[3] == testbed + ".json", names_
        continue
    assert names_[2] in ("0123456789abcdef0123456789abcdef01234567",
                         "1123456789abcdef0123456789abcdef01234567"), names_
    assert names_[3] == testbed, names_
    if len(parts) == 5:
        assert names_[4] == "manifest.json", names_
        continue
    assert len(parts) == 6, f
    benches.add(parts[4])
# no benchmark has markers: each refers to the whole run's artifacts,
# stored once under ~run (the names are checked in the manifests below)
assert benches == {"~run"}, benches
# nothing escaped next to the store or the run directories
stray = [e for e in os.listdir(tmp)
         if e not in ("store", "base", "head", "spool", "names.json",
                      "bmf.py", "harness.sh", "h.json", "base.err",
                      "head.err", "xdg")]
assert not stray, stray
PY
check "store: the static pages show every name escaped, never as markup" \
  python3 - "$store" "$TMP/names.json" "$PROJECT" "$BRANCH" "$TESTBED" <<'PY'
import json, os, sys
store, names_file = sys.argv[1:3]
names = [n.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
         for n in json.load(open(names_file))] + sys.argv[3:6]
pages = [os.path.join(d, f) for d, _, fs in os.walk(store) for f in fs
         if f == "index.html"]
assert len(pages) == 3 + 2, pages   # store, project, branch, two runs
marked = [n for n in names if "<" in n or '"' in n]
assert marked, names
for path in pages:
    page = open(path, encoding="utf-8").read()
    for n in marked:
        assert n not in page, (path, n)
    assert "<script" not in page.lower(), path
PY
check "store: the stored manifests are valid UTF-8 JSON, names as data" \
  python3 - "$store" "$TMP/names.json" "$BRANCH" "$TESTBED" <<'PY'
import json, os, sys
store, names_file, branch, testbed = sys.argv[1:5]
names = json.load(open(names_file))
want = {n.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        for n in names}
mans = [os.path.join(d, f) for d, _, fs in os.walk(store) for f in fs
        if f == "manifest.json"]
assert len(mans) == 2, mans
for path in mans:
    m = json.loads(open(path, "rb").read().decode("utf-8", "strict"))
    assert set(m["results"]) == want, sorted(set(m["results"]) ^ want)
    assert {b["name"] for b in m["benchmarks"]} == want
    ident = m["publication"]["identity"]
    assert ident["branch"] == branch and ident["testbed"] == testbed, ident
    for b in m["benchmarks"]:
        for a in b["artifacts"]:
            assert os.path.isfile(os.path.join(store, a["key"])), a
PY

# 2. an identity name that is not UTF-8: refused, said, status kept
bad=$(printf 'tb\377')
"$BENCHPROF" run -q -o "$TMP/bad" --bmf "$TMP/h.json" --project p \
  --branch main --testbed "$bad" --hash $HASH_A --store "file://$TMP/bad.store" \
  --spool "$TMP/bad.spool" -- "$TMP/harness.sh" "$TMP/h.json" 1 \
  2>"$TMP/bad.err"
check "a testbed that is not UTF-8: the benchmark's status (0)" [ $? -eq 0 ]
check "a testbed that is not UTF-8: a clear error" \
  grep -q "the testbed name is not valid UTF-8" "$TMP/bad.err"
check "a testbed that is not UTF-8: nothing stored or spooled" \
  sh -c "[ ! -e '$TMP/bad.store' ] && [ -z \"\$(ls '$TMP/bad.spool' 2>/dev/null)\" ]"
rm -rf "$TMP/bad" "$TMP/bad.err"

# 3. compare and its comment
"$BENCHPROF" compare -q -o "$TMP/cmp" "$TMP/base" "$TMP/head" \
  2>"$TMP/cmp.err"
check "compare exits 0" [ $? -eq 0 ]
check "comment.md: every name escaped, no raw <, no javascript: link" \
  python3 - "$TMP/cmp/comment.md" "$TMP/names.json" <<'PY'
import html, json, re, sys
md = open(sys.argv[1], "rb").read().decode("utf-8", "strict")
names = json.load(open(sys.argv[2]))
lines = md.split("\n")
assert lines[0].startswith("<!-- benchprof:comment ") and \
    lines[0].endswith(" -->"), lines[0]
rest = "\n".join(lines[1:])
# the only raw markup is benchprof's own collapsing; every other "<" is
# backslash-escaped, so a name's markup reads as text
OWN = re.compile(r"</?(details|summary)>")
raw = [l for l in lines[1:] if re.search(r"(?<!\\)<", OWN.sub("", l))]
assert not raw, raw[:3]
# a link needs an unescaped "](": "\](javascript:" is text
assert not re.search(r"(?<!\\)\]\(\s*javascript:", rest, re.I), \
    "javascript: link"
assert "{{" not in rest and "`tick`" not in rest and "pi|pe" not in rest
# the benchmarks share the harness's one profile: its functions are in
# one section of their own, after the benchmarks' headings
SHARED = "#### Functions of the whole run"
assert lines.count(SHARED) == 1, "no single whole-run section"
heads = [l for l in lines if l.startswith("#### ") and l != SHARED]
# each benchmark's heading shows its name: unescaped (Markdown's
# backslash escapes, HTML entities), it reads back
def unescape(h):
    return html.unescape(re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", h))
shown = "\n".join(unescape(h) for h in heads)
for n in ('"quote"', 'back\\slash', '</script><script>alert(1)</script>',
          '<img src=x onerror=alert(1)>', '[x](javascript:alert(1))',
          '`tick`', 'pi|pe', '{{7*7}}', 'new line'):
    assert n in shown, (n, heads)
assert len(heads) == len(names), len(heads)
PY
"$BENCHPROF" compare -o "$TMP/cmp2" "$TMP/base" "$TMP/head" \
  2>"$TMP/cmp2.err" >/dev/null
check "compare's summary: one line per message, no control characters" \
  python3 - "$TMP/cmp2.err" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
lines = data.split(b"\n")[:-1]
assert lines and any(b"regression" in l for l in lines), data[:300]
for l in lines:
    assert l.startswith(b"benchprof: "), l
    assert not any(c < 0x20 or c == 0x7f for c in l), l
PY
check "compare.json: valid UTF-8 JSON with the names" python3 -c "
import json, sys
c = json.loads(open(sys.argv[1], 'rb').read().decode('utf-8', 'strict'))
names = {b['name'] for b in c['benchmarks']}
assert '<img src=x onerror=alert(1)>' in names and 'new\nline' in names, names
" "$TMP/cmp/compare.json"

# 4. serve: every page of the store, HTML escaped
"$BENCHPROF" serve --port 0 "$store" >"$TMP/serve.out" 2>"$TMP/serve.err" &
PIDS="$PIDS $!"
i=0
while ! grep -q "^serving .* at http" "$TMP/serve.out" && [ $i -lt 100 ]; do
  sleep 0.1
  i=$((i + 1))
done
url=$(sed -n 's/^serving .* at \(http[^ ]*\).*/\1/p' "$TMP/serve.out")
check "serve started" [ -n "$url" ]
check "serve: no page carries markup or a script from a name" \
  python3 - "$url" "$TMP/names.json" <<'PY'
import html.parser, sys, urllib.parse, urllib.request
base = sys.argv[1]

class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.bad, self.text = [], [], []

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "img", "iframe"):
            self.bad.append(tag)
        for k, v in attrs:
            if k.startswith("on"):
                self.bad.append((tag, k, v))
            if k in ("href", "src", "data") and v and \
               v.strip().lower().startswith("javascript:"):
                self.bad.append((tag, k, v))
            if k == "href" and v:
                self.links.append(v)

    def handle_data(self, d):
        self.text.append(d)

seen, todo, text = set(), [base], []
while todo and len(seen) < 300:
    u = todo.pop()
    if u in seen:
        continue
    seen.add(u)
    with urllib.request.urlopen(u, timeout=10) as r:
        body, ctype = r.read(), r.headers.get("Content-Type", "")
    if "html" not in ctype:
        continue
    p = Page()
    p.feed(body.decode("utf-8", "strict"))
    assert not p.bad, (u, p.bad[:3])
    text.append("".join(p.text))
    for link in p.links:
        full = urllib.parse.urljoin(u, link)
        if full.startswith(base) and full.endswith("/"):
            todo.append(full)
# root, project, branch, 2 commits, 2 testbeds, their ~run pages, latest
assert len(seen) >= 9, len(seen)
alltext = "\n".join(text)
# the names serve shows: project, branch (a bounded part: its prefix),
# testbed; benchmarks without markers have no page of their own (their
# artifacts are the whole run's, under ~run), their names are checked in
# the stored manifests and the comment above
for n in ('<img src=x onerror=alert(1)>', 'proj"<x>`|',
          'tb</script>%2e%2e/..'):
    assert n in alltext, n
PY
finish
