#!/bin/sh
# The exporters' files, read by the tools people open them with.
#
# tests/unit/export_fixture writes the artifacts of the synthetic profile
# (tests/unit/synthetic_profile.h: 800 samples in 3 threads of 2 processes;
# the leaves hot_loop and cold_path split 75/25 in every thread).  Each
# validator must load its file and see that split (within 1 point):
#   profiler-cli     profile.json.gz  Firefox Profiler's own loading code
#   go tool pprof    profile.pb.gz    -top and -raw
#   pprof-format     profile.pb.gz    the npm decoder (Node tools)
#   xmllint          flamegraph.svg   well-formed; tooltips carry the split
#   python3          profile.folded and summary.json agree
# A missing validator fails the test: a skip would hide a broken artifact.
. "$top_srcdir/tests/lib.sh"

FIXTURE=$top_builddir/tests/unit/export_fixture
OUT=$TMP/out
SESSION=bp-export
PROFILER_CLI_SESSION_DIR=$TMP/profiler-cli
export PROFILER_CLI_SESSION_DIR
PPROF_TMPDIR=$TMP
export PPROF_TMPDIR
# profiler-cli starts a daemon: stop it whatever happens
trap 'profiler-cli stop --all >/dev/null 2>&1; rm -rf "$TMP"' EXIT

for tool in python3 profiler-cli go node npm xmllint; do
  command -v "$tool" >/dev/null 2>&1 ||
    fail "validator missing: $tool (scripts/setup-debian.sh --test)"
done
NODE_PATH=$(npm root -g 2>/dev/null)
export NODE_PATH
node -e 'require("pprof-format")' 2>/dev/null ||
  fail "validator missing: npm pprof-format (scripts/setup-debian.sh --test)"
[ "$FAILS" -eq 0 ] || finish

mkdir -p "$PROFILER_CLI_SESSION_DIR"
if ! "$FIXTURE" "$OUT"; then
  fail "export_fixture writes the artifacts"
  finish
fi

# The checks that parse tool output, one subcommand each.
cat >"$TMP/check.py" <<'EOF'
import json, re, sys

HOT, COLD = "hot_loop", "cold_path"

def near(what, got, want):
    if abs(got - want) > 1.0:
        sys.exit("%s: %.2f%%, expected %.2f%%" % (what, got, want))

def split(what, hot, cold, total, want_total):
    if total != want_total:
        sys.exit("%s: %s samples, expected %s" % (what, total, want_total))
    near(what + " " + HOT, 100.0 * hot / total, 75.0)
    near(what + " " + COLD, 100.0 * cold / total, 25.0)

def topdown(path, want_total):
    """profiler-cli thread samples-top-down --json"""
    self_by_name = {}
    def walk(node):
        name = node.get("name")
        self_by_name[name] = self_by_name.get(name, 0) + node["selfSamples"]
        for child in node.get("children", []):
            walk(child)
    root = json.load(open(path))["regularCallTree"]
    walk(root)
    split(path, self_by_name.get(HOT, 0), self_by_name.get(COLD, 0),
          root["totalSamples"], int(want_total))

def threads(path):
    """profiler-cli thread list --json"""
    got = sorted((t["name"], t["processName"], str(t["pid"]), t["tid"])
                 for t in json.load(open(path))["threads"])
    want = sorted([("bench", "bench", "1000", 1000),
                   ('pool;worker"<1>', "bench", "1000", 1001),
                   ("hel;per", "hel;per", "2000", 2000)])
    if got != want:
        sys.exit("threads: %r, expected %r" % (got, want))

def pprof_top(path):
    """go tool pprof -top: flat% per function"""
    flat = {}
    for line in open(path):
        m = re.match(r"\s*\S+\s+([\d.]+)%\s+[\d.]+%\s+\S+\s+[\d.]+%\s+(.*)$",
                     line)
        if m:
            flat[m.group(2).strip()] = float(m.group(1))
    near("pprof -top flat " + HOT, flat.get(HOT, 0.0), 75.0)
    near("pprof -top flat " + COLD, flat.get(COLD, 0.0), 25.0)

def pprof_raw(path):
    """go tool pprof -raw: sample counts and weights add up"""
    text = open(path).read()
    if "samples/count cpu/nanoseconds" not in text:
        sys.exit("pprof -raw: sample types missing")
    rows = re.findall(r"^\s+(\d+)\s+(\d+): [\d ]+$", text, re.M)
    count = sum(int(r[0]) for r in rows)
    ns = sum(int(r[1]) for r in rows)
    if count != 800 or ns != 800 * 1000000:
        sys.exit("pprof -raw: %d samples, %d ns" % (count, ns))

def svg(path):
    """flame graph tooltips: name (N samples, P%)"""
    text = open(path, encoding="utf-8").read()
    titles = re.findall(r"<title>(.*?) \((\d+) samples?, ([\d.]+)%\)</title>",
                        text)
    by_name = {}
    for name, n, _ in titles:
        by_name[name] = by_name.get(name, 0) + int(n)
    split("svg", by_name.get(HOT, 0), by_name.get(COLD, 0),
          by_name.get("all", 0), 800)

def folded_summary(folded, summary):
    """the folded stacks and summary.json tell the same story"""
    leaves, total = {}, 0
    for line in open(folded, encoding="utf-8"):
        stack, n = line.rstrip("\n").rsplit(" ", 1)
        leaf = stack.split(";")[-1]
        leaves[leaf] = leaves.get(leaf, 0) + int(n)
        total += int(n)
    split("folded", leaves.get(HOT, 0), leaves.get(COLD, 0), total, 800)
    s = json.load(open(summary))
    if s["samples"] != total:
        sys.exit("summary: %d samples, folded %d" % (s["samples"], total))
    top = {f["name"]: f for f in s["top_functions"]}
    for name in (HOT, COLD):
        near("summary " + name, top[name]["self_pct"],
             100.0 * leaves[name] / total)
        if top[name]["self"] != leaves[name]:
            sys.exit("summary %s: self %d, folded %d"
                     % (name, top[name]["self"], leaves[name]))

globals()[sys.argv[1]](*sys.argv[2:])
EOF
pycheck() {
  python3 "$TMP/check.py" "$@"
}

# (a) Firefox Profiler ------------------------------------------------------
cli() {
  profiler-cli "$@" --session "$SESSION"
}
if profiler-cli load "$OUT/profile.json.gz" --session "$SESSION" \
     >"$TMP/load.log" 2>&1; then
  pass "profiler-cli loads profile.json.gz"
  check "profiler-cli: info runs" cli profile info >"$TMP/info.txt"
  check "profiler-cli: 3 threads in 2 processes" \
    grep -q "3 threads across 2 processes" "$TMP/info.txt"
  cli thread list --json >"$TMP/threads.json"
  check "profiler-cli: thread names, processes and ids" \
    pycheck threads "$TMP/threads.json"
  for t in 0 1 2; do
    cli thread samples-top-down --thread "t-$t" --json >"$TMP/td$t.json"
  done
  check "profiler-cli: t-0 splits 75/25" pycheck topdown "$TMP/td0.json" 400
  check "profiler-cli: t-1 splits 75/25" pycheck topdown "$TMP/td1.json" 200
  check "profiler-cli: t-2 splits 75/25" pycheck topdown "$TMP/td2.json" 200
  cli thread samples-top-down --thread t-0,t-1,t-2 --json >"$TMP/tdall.json"
  check "profiler-cli: all threads split 75/25" \
    pycheck topdown "$TMP/tdall.json" 800
  cli thread markers --thread t-0 >"$TMP/markers.txt"
  check "profiler-cli: the run marker" \
    grep -q "benchprof run" "$TMP/markers.txt"
else
  cat "$TMP/load.log" >&2
  fail "profiler-cli loads profile.json.gz"
fi
profiler-cli stop --all >/dev/null 2>&1

# (b) go tool pprof ---------------------------------------------------------
if go tool pprof -top "$OUT/profile.pb.gz" >"$TMP/top.txt" 2>&1; then
  check "go tool pprof -top: flat split 75/25" pycheck pprof_top "$TMP/top.txt"
else
  cat "$TMP/top.txt" >&2
  fail "go tool pprof -top reads profile.pb.gz"
fi
if go tool pprof -raw "$OUT/profile.pb.gz" >"$TMP/raw.txt" 2>&1; then
  check "go tool pprof -raw: 800 samples of 1 ms" \
    pycheck pprof_raw "$TMP/raw.txt"
else
  cat "$TMP/raw.txt" >&2
  fail "go tool pprof -raw reads profile.pb.gz"
fi

# (c) npm pprof-format ------------------------------------------------------
check "pprof-format decodes profile.pb.gz, split 75/25" node -e '
const { Profile } = require("pprof-format");
const zlib = require("zlib"), fs = require("fs");
const p = Profile.decode(zlib.gunzipSync(fs.readFileSync(process.argv[1])));
const str = p.stringTable.strings;
if (str[0] !== "") throw new Error("string_table[0] is not empty");
const fn = new Map(p.function.map((f) => [String(f.id), str[f.name]]));
const leafOf = new Map(p.location.map((l) =>
  [String(l.id), fn.get(String(l.line[0].functionId))]));
const flat = {};
let total = 0;
for (const s of p.sample) {
  const leaf = leafOf.get(String(s.locationId[0]));
  flat[leaf] = (flat[leaf] || 0) + Number(s.value[0]);
  total += Number(s.value[0]);
}
if (total !== 800 || flat.hot_loop !== 600 || flat.cold_path !== 200)
  throw new Error("split " + JSON.stringify(flat) + " of " + total);
' "$OUT/profile.pb.gz"

# (d) flame graph -----------------------------------------------------------
check "xmllint: flamegraph.svg is well-formed" \
  xmllint --noout "$OUT/flamegraph.svg"
check "flamegraph.svg tooltips split 75/25" pycheck svg "$OUT/flamegraph.svg"
sed -n '/<script/,/<\/script>/p' "$OUT/flamegraph.svg" |
  sed '1d;$d' >"$TMP/flamegraph.js"
check "flamegraph.svg script parses" node --check "$TMP/flamegraph.js"

# (e) folded stacks and summary ---------------------------------------------
check "profile.folded and summary.json agree" \
  pycheck folded_summary "$OUT/profile.folded" "$OUT/summary.json"

finish
