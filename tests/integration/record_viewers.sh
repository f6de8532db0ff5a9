#!/bin/sh
# The viewers read what we wrote and see what we see: on a profile of three
# processes (forkexec -> exec forkexec_child -> fork), profiler-cli loads
# profile.json.gz and its per-thread top-down trees are exactly our stacks,
# go tool pprof -top and -traces read profile.pb.gz and agree with
# profile.folded, and summary.json counts the same threads and samples.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need_workload forkexec forkexec_child
need go "Debian package golang-go"
need profiler-cli "npm install -g @firefox-devtools/profiler-cli"

record fe -q -- "$WORKLOADS/forkexec" 0.3 "$WORKLOADS/forkexec_child"
expect_status fe 0
validate fe

pycheck "profiler-cli: the same threads, and each top-down tree is ours" <<'PY'
import collections, os
import artifacts as A

d = os.path.join(os.environ["TMP"], "fe")
gecko = A.read_gecko(os.path.join(d, "profile.json.gz"))
summary = A.read_summary(os.path.join(d, "summary.json"))
ours = {(t["pid"], t["tid"]): t for t in gecko["threads"]}
assert len(ours) == len(gecko["threads"]), "duplicate tids in Gecko"
assert {(t["pid"], t["tid"], t["name"]) for t in summary["threads"]} == \
    {(t["pid"], t["tid"], t["name"]) for t in gecko["threads"]}, \
    "summary.json and profile.json.gz list different threads"
for t in summary["threads"]:
    n = len(ours[(t["pid"], t["tid"])]["samples"]["data"])
    assert t["samples"] == n, "tid %d: summary %d samples, Gecko %d" % (
        t["tid"], t["samples"], n)

with A.ProfilerCli(os.path.join(d, "profile.json.gz"),
                   os.environ["PROFILER_CLI_SESSION_DIR"]) as cli:
    rows = cli.threads()
    seen = {(int(r["pid"]), int(r["tid"])): r for r in rows}
    assert set(seen) == set(ours), "profiler-cli threads %s, ours %s" % (
        sorted(seen), sorted(ours))
    for key, row in sorted(seen.items()):
        th = ours[key]
        assert row["name"] == th["name"], (row["name"], th["name"])
        want = A.merge(A.gecko_thread_stacks(th), A.cli_label)
        tree = cli.top_down(row["threadHandle"])
        got = A.merge(A.calltree_stacks(tree))
        assert tree["totalSamples"] == len(th["samples"]["data"]), \
            "tid %d: profiler-cli counts %d samples, the file has %d" % (
                key[1], tree["totalSamples"], len(th["samples"]["data"]))
        assert got == want, "tid %d: profiler-cli tree differs:\n%s" % (
            key[1], "\n".join("%s: cli %d, ours %d" % (";".join(k),
                              got[k], want[k])
                              for k in set(got) | set(want)
                              if got[k] != want[k]))
        print("  tid %d (%s): %d samples, %d stacks agree" % (
            key[1], th["name"], tree["totalSamples"], len(want)))
PY

pycheck "profile.folded groups the Gecko threads by process name" <<'PY'
import collections, os
import artifacts as A
d = os.path.join(os.environ["TMP"], "fe")
gecko = A.read_gecko(os.path.join(d, "profile.json.gz"))
folded = A.read_folded(os.path.join(d, "profile.folded"))
byproc = collections.defaultdict(list)
for th in gecko["threads"]:
    byproc[th["processName"]] += A.gecko_thread_stacks(th)
assert set(byproc) == set(folded), "processes: Gecko %s, folded %s" % (
    sorted(byproc), sorted(folded))
for proc, stacks in byproc.items():
    want = A.merge(stacks, A.func_of)
    got = A.merge(folded[proc], A.func_of)
    assert got == want, "%s: folded %s\n  Gecko %s" % (proc, got, want)
PY

pycheck "go tool pprof -top: flat and cum per function agree with folded" <<'PY'
import os
import artifacts as A
d = os.path.join(os.environ["TMP"], "fe")
stacks = A.folded_stacks(os.path.join(d, "profile.folded"))
flat = A.self_counts(stacks, A.func_of)
cum = A.total_counts(stacks, A.func_of)
rows, total = A.go_pprof_top(os.path.join(d, "profile.pb.gz"))
# an unresolved frame is '0xADDR (in DSO)' in pprof, '0xADDR' here; an
# inlined one 'NAME (inline)' in pprof, 'NAME' here
rows = {A.func_of(A.pprof_name(k)): v for k, v in rows.items()}
assert total == A.total_count(stacks), "pprof total %s, folded %d" % (
    total, A.total_count(stacks))
bad = []
for fn in set(cum) | set(rows):
    got = rows.get(fn, (0, 0))
    if got != (flat[fn], cum[fn]):
        bad.append("%s: pprof flat/cum %s/%s, folded %d/%d" % (
            fn, got[0], got[1], flat[fn], cum[fn]))
assert not bad, "\n".join(bad)
for fn in ("fe_parent_work", "fe_child_work", "fe_grandchild_work"):
    assert flat[fn] > 0.2 * total, "%s: only %d of %d samples" % (
        fn, flat[fn], total)
PY

pycheck "go tool pprof -traces: per-thread stacks agree with Gecko" <<'PY'
import collections, os
import artifacts as A
d = os.path.join(os.environ["TMP"], "fe")
gecko = A.read_gecko(os.path.join(d, "profile.json.gz"))
traces = A.go_pprof_traces(os.path.join(d, "profile.pb.gz"))
got = collections.defaultdict(collections.Counter)
for labels, st in traces:
    assert {"pid", "tid", "thread"} <= set(labels), labels
    got[(int(labels["pid"]), int(labels["tid"]), labels["thread"])][
        tuple(A.func_of(A.pprof_name(f)) for f in st.frames)] += st.count
want = {(t["pid"], t["tid"], t["name"]):
        A.merge(A.gecko_thread_stacks(t), A.func_of)
        for t in gecko["threads"] if t["samples"]["data"]}
assert set(got) == set(want), "threads: pprof %s, Gecko %s" % (
    sorted(got), sorted(want))
for k in want:
    assert got[k] == want[k], "%s: pprof %s\n  Gecko %s" % (k, got[k],
                                                           want[k])
PY

finish
