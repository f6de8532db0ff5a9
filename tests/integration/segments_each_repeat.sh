#!/bin/sh
# run --repeat 3 --each google-benchmark: each benchmark's invocation runs
# 3 times, its 3 profiles merged into one (a repetition marker each), its
# measures' 3 values in the manifest, their median and least..largest in
# report.json.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

schema="$BENCHPROF_CONTRACTS/bencher/bmf.schema.json"
need python3 "apt-get install python3"
need_workload gbench

"$BENCHPROF" run -o "$TMP/each" --repeat 3 --each google-benchmark -- \
  "$WORKLOADS/gbench" --benchmark_min_time=0.05 \
  >"$TMP/each.out" 2>"$TMP/each.err"
status=$?
expect_status each 0
validate each/BM_Small
validate each/BM_Large
check "each invocation's JSON passed through (2 benchmarks x 3)" \
  [ "$(grep -c '"benchmarks"' "$TMP/each.out")" -eq 6 ]
pycheck "each benchmark's profile: its 3 invocations, its own code" <<'PY'
import json, os, artifacts
out = os.path.join(os.environ["TMP"], "each")
man = json.load(open(os.path.join(out, "manifest.json")))
assert man["repeat"] == 3, man.get("repeat")
samples = {b["name"]: b["samples"] for b in man["benchmarks"]}
for b in ("BM_Small", "BM_Large"):
    d = os.path.join(out, b)
    s = artifacts.read_summary(os.path.join(d, "summary.json"))
    pids = {t["pid"] for t in s["threads"] if t["samples"] > 0}
    assert s["processes"] == 3 and len(pids) == 3, (b, s["processes"], pids)
    stacks = artifacts.folded_stacks(os.path.join(d, "profile.folded"))
    total = artifacts.total_count(stacks)
    assert total == samples[b] == s["samples"], (b, total, samples, s["samples"])
    mine = sum(x.count for x in stacks
               if any(artifacts.func_of(f).startswith(b + "(") or
                      artifacts.func_of(f) == b for f in x.frames))
    assert total > 20 and mine > 0.6 * total, (b, mine, total)
    p = artifacts.read_gecko(os.path.join(d, "profile.json.gz"))
    marks = sorted((th["stringTable"][m[0]], m[5]["type"])
                   for th in p["threads"] for m in th["markers"]["data"]
                   if m[5]["type"] != "BenchprofRun")
    assert marks == [("repetition %d" % i, "BenchprofRepetition")
                     for i in (1, 2, 3)], marks
    schemas = [x["name"] for x in p["meta"]["markerSchema"]]
    assert "BenchprofRepetition" in schemas, schemas
PY
pycheck "manifest: 3 values a measure; report: their median, least, largest" \
  "$schema" <<'PY'
import json, math, os, sys, jsonschema
out = os.path.join(os.environ["TMP"], "each")
rep = json.load(open(os.path.join(out, "report.json")))
jsonschema.validate(rep, json.load(open(sys.argv[1])))
assert sorted(rep) == ["BM_Large", "BM_Small"], rep
man = json.load(open(os.path.join(out, "manifest.json")))
assert sorted(b["name"] for b in man["benchmarks"]) == sorted(rep), man
for b in man["benchmarks"]:
    assert b["exit_status"] == 0, b
    values = b["repetitions"]
    assert "latency" in values and "task-clock" in values, values
    assert sorted(values) == sorted(rep[b["name"]]), (values, rep[b["name"]])
    for slug, v in values.items():
        assert len(v) == 3, (b["name"], slug, v)
        m = rep[b["name"]][slug]
        s = sorted(v)
        # manifest.json writes 15 significant digits when they read back
        # within cJSON's epsilon; report.json writes every digit
        got = (m["lower_value"], m["value"], m["upper_value"])
        assert all(math.isclose(x, y, rel_tol=1e-12)
                   for x, y in zip(got, s)), (slug, m, v)
    # task-clock is one invocation's (the median), not the 3 summed
    tc = values["task-clock"]
    assert rep[b["name"]]["task-clock"]["value"] < 1.5 * max(tc), tc
PY
finish
