#!/bin/sh
# Function costs per benchmark iteration: a Google Benchmark harness whose
# one benchmark does the same work per iteration, run for at least 0.2 s
# on the base and 0.8 s on the head, so the head runs some 4x the
# iterations.  Per run, work_unit costs about 4x as much on the head; per
# iteration (Google Benchmark's iterations and CPU time known on both
# sides) it costs the same, and is not named as grown.  The counters too
# are per iteration: task-clock is about one iteration's CPU time, and
# does not grow with the iterations; page faults per iteration, mostly
# the start-up divided among them, fall, and are not counted.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need python3 "apt-get install python3"
gb="$WORKLOADS/gbiter"
[ -x "$gb" ] || { echo "FAIL: $gb was not built (libbenchmark-dev)"; exit 1; }

gb_run() {  # DIR MIN_TIME
  "$BENCHPROF" run -q --no-publish -o "$1" --adapter google-benchmark \
    -- "$gb" --benchmark_format=json \
    --benchmark_min_time="$2" >"$1.out" 2>"$1.err"
}
gb_run "$TMP/base" 0.2
check "the base run (0.2 s) exits 0" [ $? -eq 0 ]
gb_run "$TMP/head" 0.8
check "the head run (0.8 s) exits 0" [ $? -eq 0 ]
check "the manifests keep Google Benchmark's iterations and CPU time" \
  python3 -c '
import json, sys
b, h = (json.load(open(d + "/manifest.json"))["benchmarks"][0]
        for d in sys.argv[1:])
assert h["iterations"] > 2 * b["iterations"] > 0, (b, h)
assert b["iteration_cpu_ns"] > 0 and h["iteration_cpu_ns"] > 0, (b, h)
' "$TMP/base" "$TMP/head"

check "the counters are per iteration: task-clock is one iteration's CPU" \
  python3 -c '
import json, os, sys
for d in sys.argv[1:]:
    m = json.load(open(d + "/manifest.json"))["benchmarks"][0]
    r = json.load(open(d + "/report.json"))["BM_Work"]
    ratio = r["task-clock"]["value"] / m["iteration_cpu_ns"]
    # the whole run would be some 100 (base) to 400 (head) iterations
    assert 0.5 < ratio < 2, (d, ratio, r["task-clock"], m["iteration_cpu_ns"])
' "$TMP/base" "$TMP/head"
"$BENCHPROF" compare -o "$TMP/cmp" "$TMP/base" "$TMP/head" \
  >"$TMP/cmp.out" 2>"$TMP/cmp.err"
check "compare exits 0" [ $? -eq 0 ]
pycheck "costs per iteration: work_unit the same on both sides" \
  "$TMP/cmp" <<'PY'
import json, os, sys
c = json.load(open(os.path.join(sys.argv[1], "compare.json")))
b = c["benchmarks"][0]
brief = {k: b[k] for k in ("name", "cost_per", "base", "head")}
assert b["name"] == "BM_Work" and b["cost_per"] == "iteration", brief
assert b["head"]["iterations"] > 2 * b["base"]["iterations"] > 0, brief
f = [x for x in b["functions"] if x["name"].startswith("work_unit")]
assert f, [x["name"] for x in b["functions"]]
f = f[0]
# 4x the iterations at the same speed is no change of task-clock
tc = [m for m in b["measures"] if m["slug"] == "task-clock"][0]
assert abs(tc["pct"]) < 50, tc
# per run the head would cost some 4x (its samples as many times the base's)
assert f["head_self"] > 2 * f["base_self"], f
# per iteration: within the noise, and the two costs within 25%
assert not f["self_significant"], f
ratio = f["head_self_cost"] / f["base_self_cost"]
assert 0.75 < ratio < 1.33, (ratio, f)
# a work_unit iteration is some 1e6 multiply-adds: 0.1 to 100 ms of CPU
assert 1e5 < f["base_self_cost"] < 1e8, f
PY
pycheck "the comment says the costs are per iteration and names no growth" \
  "$TMP/cmp" <<'PY'
import os, sys
md = open(os.path.join(sys.argv[1], "comment.md")).read()
assert "Grew most" not in md, md
assert "per run" not in md, md
PY
# page faults per iteration are mostly the process's start divided
# among the iterations: 4x the iterations cut them, which the comment
# shows with both counts and does not count (docs/verdicts.md)
pycheck "page faults the iteration count moved: shown, not counted" \
  "$TMP/cmp" <<'PY'
import json, os, re, sys
c = json.load(open(os.path.join(sys.argv[1], "compare.json")))
b = c["benchmarks"][0]
pf = [m for m in b["measures"] if m["slug"] == "page-faults"][0]
assert pf["per_iteration"] and pf["delta"] < 0, pf
assert pf["follows_iterations"] and pf["flag"] == "unchanged", pf
assert pf["change"] == "unchanged" and not pf["unconfirmed"], pf
assert b["key_measure"] != "page-faults", b["key_measure"]
bi, hi = b["base"]["harness_iterations"], b["head"]["harness_iterations"]
assert hi > 2 * bi > 0, (bi, hi)
md = open(os.path.join(sys.argv[1], "comment.md")).read()
assert "| Measure, per iteration | Base | Head | Change |" in md, md
row = re.search(r"^\| page-faults \|.*$", md, re.M)
assert row, md
assert row.group(0).endswith(
    " follows the iteration count (base %.0f, head %.0f iterations): "
    "not counted |" % (bi, hi)), row.group(0)
assert not re.search(r"[0-9]e[-+][0-9]", md), md
PY
pycheck "the flame graphs' costs are per iteration too, in the comment's units" \
  "$TMP/cmp" <<'PY'
import json, os, re, sys
c = json.load(open(os.path.join(sys.argv[1], "compare.json")))
d = os.path.join(sys.argv[1], c["benchmarks"][0]["dir"])
for name in ("diff.svg", "diff-negated.svg"):
    svg = open(os.path.join(d, name), encoding="utf-8").read()
    assert "per run" not in svg, name
    titles = re.findall(r"<title>([^<]*)</title>", svg)
    cost = [t for t in titles if "; per iteration: base " in t]
    assert cost and len(cost) == len(titles), (name, titles[:3])
    t = "(ns|\u00b5s|ms|s)"
    for x in cost:
        assert re.search(r"; per iteration: base [0-9.]+ %s, head [0-9.]+ %s, "
                         r"change [-+][0-9.]+ %s \u00b1 [0-9.]+ %s" %
                         (t, t, t, t), x), x
PY
finish
