#!/bin/sh
# A real Google Benchmark harness through run --adapter google-benchmark:
# every benchmark becomes a BMF benchmark with its latency in ns.
. "$top_srcdir/tests/lib.sh"

schema="$BENCHPROF_CONTRACTS/bencher/bmf.schema.json"
gb="$WORKLOADS/gbench"
[ -x "$gb" ] || { echo "FAIL: $gb was not built (libbenchmark-dev)"; exit 1; }

"$BENCHPROF" run -q -o "$TMP/out" --adapter google-benchmark -- \
  "$gb" --benchmark_format=json --benchmark_min_time=0.05 \
  >"$TMP/stdout" 2>"$TMP/stderr"
check "run --adapter google-benchmark exits 0" [ $? -eq 0 ]
check "Google Benchmark's JSON still reaches stdout" \
  python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$TMP/stdout"
check "latencies in ns, in the schema, BM_Large slower" \
  python3 - "$schema" "$TMP/out/report.json" "$TMP/stdout" <<'PY'
import json, sys
import jsonschema
schema, report, gb = (json.load(open(p)) for p in sys.argv[1:])
jsonschema.validate(report, schema)
assert sorted(report) == ["BM_Large", "BM_Small"], report
for b in gb["benchmarks"]:
    unit = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b["time_unit"]]
    got = report[b["name"]]["latency"]["value"]
    assert abs(got - b["real_time"] * unit) <= 1e-6 * got, (b, got)
assert report["BM_Large"]["latency"]["value"] > \
       3 * report["BM_Small"]["latency"]["value"], report
PY
check "several benchmarks in one process: counters not attached, said so" \
  grep -q "counters cover all of them" "$TMP/stderr"
finish
