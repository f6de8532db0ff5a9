#!/bin/sh
# Four threads named worker-0 .. worker-3 (pthread_setname_np), each in its
# own function worker_K_loop for the same CPU time: four tracks with those
# names in the Firefox Profiler, each holding its own function's samples,
# and the same threads in summary.json and pprof's labels.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need_workload threads
need profiler-cli "npm install -g @firefox-devtools/profiler-cli"

record thr -q -- "$WORKLOADS/threads" 0.3
expect_status thr 0
validate thr

pycheck "Gecko: a thread per worker, with its own function's samples" <<'PY'
import collections, os
import artifacts as A
a = A.load_dir(os.path.join(os.environ["TMP"], "thr"))
names = ["worker-%d" % k for k in range(4)]
threads = a["gecko"]["threads"]
by_name = collections.defaultdict(list)
for th in threads:
    by_name[th["name"]].append(th)
bad = []
for name in names:
    if len(by_name[name]) != 1:
        bad.append("%d Gecko threads named %s" % (len(by_name[name]), name))
assert not bad, "\n".join(bad) + "\nthreads: %s" % [
    (t["name"], t["tid"]) for t in threads]
workers = [by_name[n][0] for n in names]
KERNEL = "(in [kernel.kallsyms])"
pid = workers[0]["pid"]
assert len({t["tid"] for t in workers}) == 4, "workers share a tid"
counts = []
for k, th in enumerate(workers):
    if th["pid"] != pid or th["processName"] != "threads":
        bad.append("%s: pid %d process %r" % (th["name"], th["pid"],
                                              th["processName"]))
    stacks = A.gecko_thread_stacks(th)
    n = A.total_count(stacks)
    # the user-mode leaf: kernel frames on top of it (an interrupt the
    # machine took while the worker ran, which a loaded VM charges it
    # 10% of its samples for) are no other thread's code
    own = sum(s.count for s in stacks
              if [f for f in s.frames if not f.endswith(KERNEL)][-1:] ==
              ["worker_%d_loop (in threads)" % k])
    counts.append(n)
    print("  %s (tid %d): %d samples, %d in worker_%d_loop" % (
        th["name"], th["tid"], n, own, k))
    if own < 0.9 * n:
        bad.append("%s: %d of %d samples in worker_%d_loop's user code" % (
            th["name"], own, n, k))
# same CPU time each: no worker far below the others
for th, n in zip(workers, counts):
    if n < 0.5 * max(counts):
        bad.append("%s: %d samples, another worker %d" % (
            th["name"], n, max(counts)))
assert not bad, "\n".join(bad)
PY

pycheck "summary.json and pprof labels name the same four workers" <<'PY'
import collections, os
import artifacts as A
a = A.load_dir(os.path.join(os.environ["TMP"], "thr"))
s = a["summary"]
assert s["processes"] == 1, "%d processes" % s["processes"]
gecko = {t["tid"]: (t["name"], len(t["samples"]["data"]))
         for t in a["gecko"]["threads"]}
summ = {t["tid"]: (t["name"], t["samples"]) for t in s["threads"]}
assert summ == gecko, "summary.json %s\nGecko %s" % (summ, gecko)
per = collections.defaultdict(collections.Counter)
for locs, vals, labels in a["pprof"].samples:
    per[labels.get("thread")][a["pprof"].frames(locs)[-1]] += vals[0]
for k in range(4):
    leaves = per["worker-%d" % k]
    assert leaves and leaves.most_common(1)[0][0] == "worker_%d_loop" % k, \
        "pprof thread label worker-%d: %s" % (k, leaves)
PY

pycheck "profiler-cli shows the four worker tracks" <<'PY'
import os
import artifacts as A
d = os.path.join(os.environ["TMP"], "thr")
with A.ProfilerCli(os.path.join(d, "profile.json.gz"),
                   os.environ["PROFILER_CLI_SESSION_DIR"]) as cli:
    rows = cli.threads()
    info = cli.json("profile", "info", "--all")
names = sorted(r["name"] for r in rows)
for k in range(4):
    assert names.count("worker-%d" % k) == 1, names
assert len({r["pid"] for r in rows}) == 1, "threads in several processes"
print("  profiler-cli threads: %s" % names)
PY

finish
