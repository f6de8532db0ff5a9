#!/bin/sh
# A fork + exec chain: forkexec forks, its child execs forkexec_child, which
# forks again.  All three processes are followed; each hot function shows up
# in its own binary (DSO) in every artifact, under the right process.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need_workload forkexec forkexec_child

record fe -q -- "$WORKLOADS/forkexec" 0.3 "$WORKLOADS/forkexec_child"
expect_status fe 0
validate fe

pycheck "each hot function is in its own binary, with its share" <<'PY'
import os
import artifacts as A
a = A.load_dir(os.path.join(os.environ["TMP"], "fe"))
bad = []
# each process spends the same CPU time in its function: a third each
for fn, lib in (("fe_parent_work", "forkexec"),
                ("fe_child_work", "forkexec_child"),
                ("fe_grandchild_work", "forkexec_child")):
    bad += A.expect_in_dso(a, fn, lib, 20)
assert not bad, "\n".join(bad)
PY

pycheck "three processes, named after their programs, each with its work" <<'PY'
import collections, os
import artifacts as A
d = os.path.join(os.environ["TMP"], "fe")
a = A.load_dir(d)
s = a["summary"]
assert s["processes"] == 3, "summary.json: %d processes" % s["processes"]
pids = {t["pid"] for t in s["threads"]}
assert len(pids) == 3, "summary.json threads in %d processes" % len(pids)
# the process whose samples are in fe_X_work, per artifact
work = {"fe_parent_work": "forkexec", "fe_child_work": "forkexec_child",
        "fe_grandchild_work": "forkexec_child"}
where = collections.defaultdict(set)
for th in a["gecko"]["threads"]:
    for st in A.gecko_thread_stacks(th):
        leaf = A.func_of(st.frames[-1]) if st.frames else None
        if leaf in work:
            where[leaf].add((th["pid"], th["processName"], th["name"]))
bad = []
for fn, proc in work.items():
    if len(where[fn]) != 1:
        bad.append("Gecko: %s runs in %s, expected one process" % (
            fn, sorted(where[fn])))
        continue
    pid, pname, tname = next(iter(where[fn]))
    if pname != proc or tname != proc:
        bad.append("Gecko: %s runs in process %r thread %r (pid %d), "
                   "expected %r" % (fn, pname, tname, pid, proc))
if len({next(iter(v))[0] for v in where.values() if v}) != 3:
    bad.append("Gecko: the three functions are not in three processes: %s"
               % dict(where))
folded = A.read_folded(os.path.join(d, "profile.folded"))
for fn, proc in work.items():
    roots = {p for p, stacks in folded.items()
             for st in stacks if st.frames and st.frames[-1] == fn}
    if roots != {proc}:
        bad.append("profile.folded: %s under %s, expected %s" % (
            fn, sorted(roots), proc))
for t in s["threads"]:
    if t["name"] not in ("forkexec", "forkexec_child") or \
            t["process"] != t["name"]:
        bad.append("summary.json thread %s" % t)
assert not bad, "\n".join(bad)
PY

finish
