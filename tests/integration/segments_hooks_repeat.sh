#!/bin/sh
# Benchmarks marked by the hooks (benchprof/hooks.h) under run --repeat 3:
# each one's profile has the samples of all 3 repetitions (its markers
# from every repetition; the repetitions' own markers are no benchmarks),
# and the whole run's Gecko profile shows each repetition's markers on the
# track of the process that ran it.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need python3 "apt-get install python3"
need_workload hooks_harness
hh="$WORKLOADS/hooks_harness"

for n in 1 3; do
  "$BENCHPROF" run -q -o "$TMP/r$n" --repeat $n -- "$hh" \
    >"$TMP/r$n.out" 2>"$TMP/r$n.err"
  status=$?
  expect_status "r$n" 0
done
for b in alpha beta gamma; do
  validate "r3/$b"
done
pycheck "3 repetitions: each benchmark's profile covers all 3" <<'PY'
import json, os, artifacts
tmp = os.environ["TMP"]
def benches(d):
    man = json.load(open(os.path.join(tmp, d, "manifest.json")))
    return {b["name"]: b for b in man["benchmarks"]}
one, three = benches("r1"), benches("r3")
# the repetitions' markers are not benchmarks
assert sorted(three) == ["alpha", "beta", "gamma"], sorted(three)
assert not [d for d in os.listdir(os.path.join(tmp, "r3"))
            if d.startswith("repetition")], os.listdir(os.path.join(tmp, "r3"))
for name, b in three.items():
    d = os.path.join(tmp, "r3", b["profile"])
    s = artifacts.read_summary(os.path.join(d, "summary.json"))
    pids = {t["pid"] for t in s["threads"] if t["samples"] > 0}
    assert len(pids) == 3, (name, pids)      # one process a repetition
    assert b["runs"] == 3, (name, b["runs"])
    stacks = artifacts.folded_stacks(os.path.join(d, "profile.folded"))
    total = artifacts.total_count(stacks)
    assert total == b["samples"], (name, total, b["samples"])
    # ~3x one repetition's samples (each runs a fixed CPU time)
    assert b["samples"] >= 2 * one[name]["samples"] > 0, \
        (name, b["samples"], one[name]["samples"])
    hot = artifacts.self_counts(stacks, artifacts.func_of)["hot_" + name]
    assert hot > 0.8 * total, (name, hot, total)
    # its counters over the 3 repetitions, its measures the median of 3
    assert len(b["repetitions"]["task-clock"]) == 3, b["repetitions"]
PY
pycheck "the whole-run Gecko profile: every repetition's benchmark markers, and a repetition marker each" <<'PY'
import os, artifacts
p = artifacts.read_gecko(os.path.join(os.environ["TMP"], "r3",
                                      "profile.json.gz"))
marks = [(th["stringTable"][m[0]], m[5]["type"]) for th in p["threads"]
         for m in th["markers"]["data"]]
bench = [n for n, t in marks if t == "BenchprofBenchmark"]
reps = [n for n, t in marks if t == "BenchprofRepetition"]
assert sorted(bench) == sorted(["alpha", "beta", "gamma"] * 3), marks
assert sorted(reps) == ["repetition 1", "repetition 2", "repetition 3"], marks
PY
pycheck "each repetition's markers on its own process's main thread" <<'PY'
import os, artifacts
p = artifacts.read_gecko(os.path.join(os.environ["TMP"], "r3",
                                      "profile.json.gz"))
pids = set()
for th in p["threads"]:
    marks = [(th["stringTable"][m[0]], m[1], m[2], m[5]["type"])
             for m in th["markers"]["data"]]
    reps = [m for m in marks if m[3] == "BenchprofRepetition"]
    bench = [m for m in marks if m[3] == "BenchprofBenchmark"]
    if not reps and not bench:
        continue
    # one repetition a track: the main thread of the process that ran it
    assert th["pid"] == th["tid"], (th["pid"], th["tid"], marks)
    assert len(reps) == 1, (th["pid"], marks)
    pids.add(th["pid"])
    _, r0, r1, _ = reps[0]
    assert sorted(n for n, *_ in bench) == ["alpha", "beta", "gamma"], \
        (th["pid"], marks)
    # its benchmarks ran while this process lived, in this repetition
    end = th["unregisterTime"]
    for n, t0, t1, _ in bench:
        assert r0 <= t0 <= t1 <= r1, (th["pid"], n, t0, t1, r0, r1)
        assert th["registerTime"] <= t0 and (end is None or t1 <= end), \
            (th["pid"], n, t0, t1, th["registerTime"], end)
assert len(pids) == 3, pids
PY
pycheck "report.json: each measure the median of its 3 values" <<'PY'
import json, math, os
tmp = os.environ["TMP"]
rep = json.load(open(os.path.join(tmp, "r3", "report.json")))
man = json.load(open(os.path.join(tmp, "r3", "manifest.json")))
for b in man["benchmarks"]:
    for slug, v in b["repetitions"].items():
        s = sorted(v)
        m = rep[b["name"]][slug]
        got = (m["lower_value"], m["value"], m["upper_value"])
        assert all(math.isclose(x, y, rel_tol=1e-12)
                   for x, y in zip(got, s)), (b["name"], slug, m, v)
tc = {b: rep[b]["task-clock"]["value"] for b in rep}
for b, want in (("alpha", 0.1e9), ("beta", 0.2e9), ("gamma", 0.3e9)):
    assert 0.8 * want < tc[b] < 1.5 * want, tc
PY
finish
