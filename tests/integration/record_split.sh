#!/bin/sh
# A known split: the split workload spends 75% of its CPU in split_hot75 and
# 25% in split_hot25 (identical bodies, 3N and N iterations per round).
# Every artifact, and every viewer that reads one, shows both shares within
# 5 points: profile.folded, summary.json, profile.pb.gz (decoded here and by
# go tool pprof), profile.json.gz (decoded here and by profiler-cli), the
# flame graph's tooltips and the summary printed on stderr.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need_workload split
need go "Debian package golang-go"
need profiler-cli "npm install -g @firefox-devtools/profiler-cli"
need xmllint "Debian package libxml2-utils"

# about 3000 samples: the sampling noise of a share is under 1 point
record split -F 2999 -- "$WORKLOADS/split" 1.0
expect_status split 0
validate split
check "flamegraph.svg is well-formed XML" \
  xmllint --noout "$TMP/split/flamegraph.svg"

pycheck "75/25 within 5 points in every artifact and viewer" <<'PY'
import os
import artifacts as A

d = os.path.join(os.environ["TMP"], "split")
EXPECT = {"split_hot75": 75.0, "split_hot25": 25.0}
shares = {}  # artifact -> {function: percent}

def add(artifact, counts, total):
    shares[artifact] = {f: A.share(counts, f, total) for f in EXPECT}

folded = A.folded_stacks(os.path.join(d, "profile.folded"))
add("profile.folded", A.self_counts(folded), A.total_count(folded))

summary = A.read_summary(os.path.join(d, "summary.json"))
shares["summary.json self_pct"] = {}
shares["summary.json self/samples"] = {}
for f in EXPECT:
    fn = A.summary_function(summary, f)
    assert fn, "summary.json top_functions lacks %s" % f
    assert fn["lib"] == "split", "%s: lib %r" % (f, fn["lib"])
    shares["summary.json self_pct"][f] = fn["self_pct"]
    shares["summary.json self/samples"][f] = \
        100.0 * fn["self"] / summary["samples"]

gecko = A.read_gecko(os.path.join(d, "profile.json.gz"))
gs = A.gecko_stacks(gecko)
add("profile.json.gz", A.self_counts(gs, A.func_of), A.total_count(gs))
for f in EXPECT:
    assert A.self_counts(gs)["%s (in split)" % f], \
        "no Gecko frame '%s (in split)'" % f

pp = A.read_pprof(os.path.join(d, "profile.pb.gz"))
for unit in (("samples", "count"), ("cpu", "nanoseconds")):
    st = pp.stacks(*unit)
    add("profile.pb.gz %s/%s" % unit, A.self_counts(st), A.total_count(st))

for index in ("samples", "cpu"):
    rows, total = A.go_pprof_top(os.path.join(d, "profile.pb.gz"), index)
    shares["go tool pprof -top (%s)" % index] = {
        f: 100.0 * rows.get(f, (0, 0))[0] / total for f in EXPECT}

svg = A.read_svg(os.path.join(d, "flamegraph.svg"))
shares["flamegraph.svg %"] = {f: sum(p for n, _, p in svg if n == f)
                              for f in EXPECT}
shares["flamegraph.svg samples"] = {
    f: 100.0 * sum(c for n, c, _ in svg if n == f) / svg[0][1]
    for f in EXPECT}

with A.ProfilerCli(os.path.join(d, "profile.json.gz"),
                   os.environ["PROFILER_CLI_SESSION_DIR"]) as cli:
    threads = cli.threads()
    assert len(threads) == 1, "profiler-cli sees %d threads" % len(threads)
    tree = cli.top_down(threads[0]["threadHandle"])
    cs = A.calltree_stacks(tree)
    add("profiler-cli samples-top-down",
        A.self_counts(cs, lambda f: f.split("!", 1)[-1]),
        tree["totalSamples"])

# and the summary benchprof prints: "benchprof:   75.1%  split_hot75 (in split)"
import re
printed = {}
for line in open(os.path.join(os.environ["TMP"], "split.err")):
    m = re.match(r"^benchprof: +([0-9.]+)% +(\S+) +(\(in split\)|\[split\])$",
                 line)
    if m and m.group(2) in EXPECT:
        printed[m.group(2)] = float(m.group(1))
assert set(printed) == set(EXPECT), "stderr summary lists %s" % printed
shares["stderr summary"] = printed

bad = []
for artifact, got in shares.items():
    print("  %-32s %s" % (artifact, "  ".join(
        "%s %.2f%%" % (f, got[f]) for f in EXPECT)))
    for f, want in EXPECT.items():
        if abs(got[f] - want) > 5.0:
            bad.append("%s: %s %.2f%%, expected %.0f%% +- 5" % (
                artifact, f, got[f], want))
assert not bad, "\n".join(bad)
PY

finish
