#!/bin/sh
# The exporters' files, read by the tools people open them with.
#
# tests/unit/export_fixture writes the artifacts of the synthetic profile
# (tests/unit/synthetic_profile.h: 800 samples of 1 ms in 3 threads of 2
# processes; the leaves hot_loop and cold_path split 75/25 in every thread).
# Each validator must load its file and see that split (within 1 point):
#   profiler-cli     profile.json.gz  Firefox Profiler's own loading code,
#                                     after tests/artifacts.py has checked
#                                     the table bounds it does not check
#   go tool pprof    profile.pb.gz    -top and -raw
#   pprof-format     profile.pb.gz    the npm decoder (Node tools)
#   xmllint, node    flamegraph.svg   well-formed; tooltips carry the split;
#                                     its script parses
#   python3          profile.folded and summary.json agree, and all the
#                    artifacts describe the same samples (artifacts.py)
# The readers are tests/artifacts.py's.  A missing validator fails the test:
# a skip would hide a broken artifact.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

SETUP="scripts/setup-debian.sh --test"
need python3 "$SETUP"
need profiler-cli "$SETUP"
need go "$SETUP"
need node "$SETUP"
need npm "$SETUP"
need xmllint "$SETUP"
NODE_PATH=$(npm root -g 2>/dev/null)
export NODE_PATH
if ! node -e 'require("pprof-format")' 2>/dev/null; then
  fail "npm pprof-format not found in $NODE_PATH ($SETUP)"
  finish
fi

if ! "$top_builddir/tests/unit/export_fixture" "$TMP/out"; then
  fail "export_fixture writes the artifacts"
  finish
fi

# (a) Firefox Profiler ------------------------------------------------------
pycheck "profile.json.gz: Gecko tables in bounds" <<'PY'
import os
import artifacts as A
A.validate_gecko(A.read_gecko(
    os.path.join(os.environ["TMP"], "out", "profile.json.gz")))
PY

# One profiler-cli session answers everything, saved to cli.json for the
# checks below; ProfilerCli waits out a slow daemon start and stops it.
rm -f "$TMP/cli.json"
pycheck "profiler-cli loads profile.json.gz" <<'PY'
import json, os
import artifacts as A
tmp = os.environ["TMP"]
with A.ProfilerCli(os.path.join(tmp, "out", "profile.json.gz"),
                   os.environ["PROFILER_CLI_SESSION_DIR"], "bp-export") as cli:
    threads = cli.threads()
    handles = [t["threadHandle"] for t in threads]
    answers = {
        "info": cli.text("profile", "info"),
        "threads": threads,
        "top_down": {str(t["tid"]): cli.top_down(t["threadHandle"])
                     for t in threads},
        "top_down_all": cli.top_down(",".join(handles)),
        "markers": cli.json("thread", "markers", "--thread", handles[0]),
    }
with open(os.path.join(tmp, "cli.json"), "w") as f:
    json.dump(answers, f)
PY

if [ -f "$TMP/cli.json" ]; then
  pycheck "profiler-cli: 3 threads in 2 processes" <<'PY'
import json, os
cli = json.load(open(os.path.join(os.environ["TMP"], "cli.json")))
assert "3 threads across 2 processes" in cli["info"], cli["info"]
PY

  pycheck "profiler-cli: thread names, processes and ids" <<'PY'
import json, os
cli = json.load(open(os.path.join(os.environ["TMP"], "cli.json")))
got = sorted((t["name"], t["processName"], str(t["pid"]), t["tid"])
             for t in cli["threads"])
want = sorted([("bench", "bench", "1000", 1000),
               ('pool;worker"<1>', "bench", "1000", 1001),
               ("hel;per", "hel;per", "2000", 2000)])
assert got == want, "threads: %r, expected %r" % (got, want)
PY

  pycheck "profiler-cli: every thread, and all three, split 75/25" <<'PY'
import json, os
import artifacts as A
cli = json.load(open(os.path.join(os.environ["TMP"], "cli.json")))
trees = dict(cli["top_down"], all=cli["top_down_all"])
want_total = {"1000": 400, "1001": 200, "2000": 200, "all": 800}
assert set(trees) == set(want_total), "trees for %s" % sorted(trees)
bad = []
for key, tree in sorted(trees.items()):
    what = "top-down " + ("tid " + key if key != "all" else "all threads")
    stacks = A.calltree_stacks(tree, "name")
    total = tree["totalSamples"]
    if total != want_total[key] or A.total_count(stacks) != total:
        bad.append("%s: %d samples (%d self), expected %d" % (
            what, total, A.total_count(stacks), want_total[key]))
    try:
        A.expect_shares(what, A.self_counts(stacks), total,
                        {"hot_loop": 75.0, "cold_path": 25.0}, 1.0)
    except AssertionError as e:
        bad.append(str(e))
assert not bad, "\n".join(bad)
PY

  pycheck "profiler-cli: the run marker" <<'PY'
import json, os
import artifacts as A
tmp = os.environ["TMP"]
cli = json.load(open(os.path.join(tmp, "cli.json")))
command = A.read_summary(os.path.join(tmp, "out", "summary.json"))["command"]
runs = [m for t in cli["markers"]["byType"]
        if t["markerName"] == "benchprof run" for m in t["topMarkers"]]
assert [m["label"] for m in runs] == [command], \
    "benchprof run markers %r, expected one labelled %r" % (runs, command)
PY
fi

# (b) go tool pprof ---------------------------------------------------------
pycheck "go tool pprof -top: flat split 75/25" <<'PY'
import os
import artifacts as A
path = os.path.join(os.environ["TMP"], "out", "profile.pb.gz")
for index, want_total in (("samples", 800), ("cpu", 0.8)):
    rows, total = A.go_pprof_top(path, index)
    assert abs(total - want_total) < 1e-9, "-sample_index=%s: total %s" % (
        index, total)
    A.expect_shares("-top -sample_index=" + index,
                    {f: v[0] for f, v in rows.items()}, total,
                    {"hot_loop": 75.0, "cold_path": 25.0}, 1.0)
PY

pycheck "go tool pprof -raw: 800 samples of 1 ms" <<'PY'
import os
import artifacts as A
types, rows = A.go_pprof_raw(
    os.path.join(os.environ["TMP"], "out", "profile.pb.gz"))
assert types == [("samples", "count"), ("cpu", "nanoseconds")], types
count = sum(v[0] for v, _ in rows)
ns = sum(v[1] for v, _ in rows)
assert count == 800 and ns == 800 * 1000000, "%d samples, %d ns" % (count, ns)
assert all(v[1] == v[0] * 1000000 for v, _ in rows), rows
PY

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
' "$TMP/out/profile.pb.gz"

# (d) flame graph -----------------------------------------------------------
check "xmllint: flamegraph.svg is well-formed" \
  xmllint --noout "$TMP/out/flamegraph.svg"

pycheck "flamegraph.svg tooltips split 75/25" <<'PY'
import os
import artifacts as A
frames = A.svg_frames(os.path.join(os.environ["TMP"], "out", "flamegraph.svg"))
assert frames["all"] == 800, "root 'all': %d samples" % frames["all"]
A.expect_shares("svg", frames, frames["all"],
                {"hot_loop": 75.0, "cold_path": 25.0}, 1.0)
PY

pycheck "flamegraph.svg script parses" <<'PY'
import os, subprocess
import xml.etree.ElementTree as ET
import artifacts as A
tmp = os.environ["TMP"]
root = ET.parse(os.path.join(tmp, "out", "flamegraph.svg")).getroot()
scripts = [s.text or "" for s in root.iter(A.SVG_NS + "script")]
assert len(scripts) == 1, "%d <script> elements" % len(scripts)
js = os.path.join(tmp, "flamegraph.js")
with open(js, "w", encoding="utf-8") as f:
    f.write(scripts[0])
assert subprocess.run(["node", "--check", js]).returncode == 0, \
    "node --check rejects the script"
PY

# (e) folded stacks and summary, and all the artifacts ----------------------
pycheck "profile.folded and summary.json agree" <<'PY'
import os
import artifacts as A
d = os.path.join(os.environ["TMP"], "out")
stacks = A.folded_stacks(os.path.join(d, "profile.folded"))
leaves, total = A.self_counts(stacks), A.total_count(stacks)
assert total == 800, "folded: %d samples" % total
A.expect_shares("folded", leaves, total,
                {"hot_loop": 75.0, "cold_path": 25.0}, 1.0)
s = A.read_summary(os.path.join(d, "summary.json"))
assert s["samples"] == total, "summary: %d samples, folded %d" % (
    s["samples"], total)
for name in ("hot_loop", "cold_path"):
    fn = A.summary_function(s, name)
    assert fn, "summary.json top_functions lacks %s" % name
    assert abs(fn["self_pct"] - A.share(leaves, name, total)) <= 1.0, \
        "summary %s: self_pct %.2f, folded %.2f" % (
            name, fn["self_pct"], A.share(leaves, name, total))
    assert fn["self"] == leaves[name], "summary %s: self %d, folded %d" % (
        name, fn["self"], leaves[name])
PY

validate out

finish
