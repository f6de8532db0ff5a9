#!/bin/sh
# The report's BMF against Bencher's own schema.
#
# tests/unit/report_fixture reads a BMF or Google Benchmark file, adds a few
# made-up counters to every benchmark and writes BMF.  python3's jsonschema
# validates that output against tests/contracts/bencher/bmf.schema.json
# (the schema Bencher publishes), and it must be strict JSON: valid UTF-8,
# no duplicate keys, no empty names.  Hostile benchmark names must come out
# escaped and intact (invalid bytes as U+FFFD), and malformed inputs must
# fail with one line on stderr that says where (line:column or JSON path).
# A missing schema or jsonschema fails the test: a skip would hide a report
# Bencher rejects.
. "${top_srcdir:?run through make check}/tests/lib.sh"

SETUP="scripts/setup-debian.sh --test"
FIXTURE="$top_builddir/tests/unit/report_fixture"
SCHEMA="$BENCHPROF_CONTRACTS/bencher/bmf.schema.json"
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE

if [ ! -f "$SCHEMA" ]; then
  fail "Bencher's BMF schema not found at $SCHEMA"
  finish
fi
if ! command -v python3 >/dev/null 2>&1 ||
   ! python3 -c 'import jsonschema' 2>/dev/null; then
  fail "python3 with jsonschema not found ($SETUP)"
  finish
fi
if [ ! -x "$FIXTURE" ]; then
  fail "$FIXTURE was not built"
  finish
fi
mkdir -p "$TMP/in" "$TMP/bad"

# valid NAME FORMAT EXPECT: the fixture turns $TMP/in/NAME.json into BMF
# that the schema accepts; EXPECT (python, with the document as doc)
# checks what it says
valid() {
  name=$1
  if ! "$FIXTURE" "$2" "$TMP/in/$name.json" >"$TMP/$name.bmf" \
       2>"$TMP/$name.err"; then
    fail "$name: report_fixture failed: $(cat "$TMP/$name.err")"
    return
  fi
  if python3 - "$SCHEMA" "$TMP/$name.bmf" "$3" <<'PY'
import json, sys
import jsonschema
schema_path, out_path, expect = sys.argv[1:4]
with open(schema_path) as f:
    schema = json.load(f)
with open(out_path, "rb") as f:
    text = f.read().decode("utf-8")      # strict: invalid UTF-8 fails
def no_dups(pairs):
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), "duplicate keys %r" % keys
    return dict(pairs)
doc = json.loads(text, object_pairs_hook=no_dups)   # strict: no raw controls
jsonschema.Draft7Validator.check_schema(schema)
jsonschema.Draft7Validator(schema).validate(doc)
# patternProperties ".+" does not cover "": Bencher needs a name
assert all(doc) and all(all(m) for m in doc.values()), "empty name"
for bench, measures in doc.items():
    for slug, m in measures.items():
        assert set(m) <= {"value", "lower_value", "upper_value"}, m
        assert m.get("lower_value", m["value"]) <= m["value"], (bench, m)
        assert m["value"] <= m.get("upper_value", m["value"]), (bench, m)
        assert "cycles" not in measures, "an unavailable counter came out"
exec(expect)
PY
  then
    pass "$name: BMF that the schema accepts"
  else
    fail "$name: output rejected ($TMP/$name.bmf)"
    cat "$TMP/$name.bmf" >&2
  fi
}

# invalid NAME FORMAT WANT: the fixture fails on $TMP/bad/NAME.json, writes
# nothing to stdout and one line to stderr that contains WANT
invalid() {
  name=$1
  "$FIXTURE" "$2" "$TMP/bad/$name.json" >"$TMP/$name.out" \
    2>"$TMP/$name.err"
  st=$?
  if [ "$st" -ne 1 ]; then
    fail "$name: exit status $st, not 1"
  elif [ -s "$TMP/$name.out" ]; then
    fail "$name: wrote to stdout"
  elif ! grep -qF -- "$3" "$TMP/$name.err"; then
    fail "$name: stderr lacks '$3': $(cat "$TMP/$name.err")"
  elif [ "$(wc -l <"$TMP/$name.err")" -ne 1 ]; then
    fail "$name: stderr is not one line: $(cat "$TMP/$name.err")"
  else
    pass "$name: $3"
  fi
}

# ---------------------------------------------------------------- valid
cat >"$TMP/in/plain.json" <<'EOF'
{
  "sort": {
    "latency": {"value": 1.5, "lower_value": 1, "upper_value": 2},
    "instructions": {"value": 7}
  },
  "search/1024": {"throughput": {"value": 1e308}},
  "nothing": {}
}
EOF
valid plain bmf '
assert list(doc) == ["sort", "search/1024", "nothing"], list(doc)
s = doc["sort"]
assert list(s) == ["latency", "instructions", "task-clock", "cache-misses"]
assert s["latency"] == {"value": 1.5, "lower_value": 1, "upper_value": 2}
assert s["instructions"] == {"value": 7}, "the harness measure wins"
assert s["task-clock"] == {"value": 2500000.5}
assert doc["search/1024"]["throughput"]["value"] == 1e308
assert doc["search/1024"]["instructions"]["value"] == 123456
'

# hostile names: quotes, escapes, controls, markup, paths, shell, bidi
# override, valid and invalid UTF-8, in benchmark names and measure slugs
python3 - "$TMP/in/hostile.json" <<'PY'
import sys
names = [
    b'a \\"quoted\\" name', b"new\\nline\\ttab", b"../../etc/passwd",
    b"</script><script>alert(1)</script>", b"'; rm -rf / #",
    b"$(touch pwned)", b"caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac",
    b"rlo \xe2\x80\xae gnp.exe", b"bad \xff\xfe bytes", b"esc \\u001b[31m",
    b"raw\x01ctl",
]
body = b",\n".join(b'"' + n + b'": {"lat\\"ency": {"value": %d}}' % i
                   for i, n in enumerate(names))
with open(sys.argv[1], "wb") as f:
    f.write(b"{\n" + body + b"\n}\n")
PY
valid hostile bmf '
want = ["a \"quoted\" name", "new\nline\ttab", "../../etc/passwd",
        "</script><script>alert(1)</script>", "\x27; rm -rf / #",
        "$(touch pwned)", "caf\u00e9 \u65e5\u672c", "rlo \u202e gnp.exe",
        "bad \ufffd\ufffd bytes", "esc \x1b[31m", "raw\x01ctl"]
assert list(doc) == want, list(doc)
for i, n in enumerate(want):
    assert doc[n]["lat\"ency"]["value"] == i
assert "</script>" not in text and "\x1b" not in text and "\x01" not in text
'
# what was written reads back to the same text
if "$FIXTURE" bmf "$TMP/hostile.bmf" >"$TMP/again.bmf" 2>"$TMP/again.err" &&
   cmp -s "$TMP/hostile.bmf" "$TMP/again.bmf"; then
  pass "hostile: written BMF reads back to the same text"
else
  fail "hostile: written BMF does not read back: $(cat "$TMP/again.err")"
fi

# Google Benchmark: units, repetitions, aggregates, errors, NaN/Infinity
cat >"$TMP/in/gbench.json" <<'EOF'
{
  "context": {
    "date": "2024-05-01T10:00:00+00:00", "host_name": "runner",
    "executable": "./bench", "num_cpus": 8, "mhz_per_cpu": 3000,
    "caches": [{"type": "Data", "level": 1, "size": 32768,
                "num_sharing": 2}],
    "load_avg": [0.1, 0.2, 0.3], "library_build_type": "release",
    "json_schema_version": 1
  },
  "benchmarks": [
    {"name": "BM_us", "family_index": 0, "per_family_instance_index": 0,
     "run_name": "BM_us", "run_type": "iteration", "repetitions": 1,
     "repetition_index": 0, "threads": 1, "iterations": 1000,
     "real_time": 1.5e+00, "cpu_time": 1.4e+00, "time_unit": "us",
     "items_per_second": Infinity},
    {"name": "BM_rep/8", "run_name": "BM_rep/8", "run_type": "iteration",
     "repetitions": 3, "repetition_index": 0, "threads": 1,
     "iterations": 10, "real_time": 1.0e+01, "cpu_time": 1.0e+01,
     "time_unit": "ms"},
    {"name": "BM_rep/8", "run_name": "BM_rep/8", "run_type": "iteration",
     "repetitions": 3, "repetition_index": 1, "threads": 1,
     "iterations": 10, "real_time": 3.0e+01, "cpu_time": 3.0e+01,
     "time_unit": "ms"},
    {"name": "BM_rep/8", "run_name": "BM_rep/8", "run_type": "iteration",
     "repetitions": 3, "repetition_index": 2, "threads": 1,
     "iterations": 10, "real_time": 2.0e+01, "cpu_time": 2.0e+01,
     "time_unit": "ms"},
    {"name": "BM_rep/8_mean", "run_name": "BM_rep/8",
     "run_type": "aggregate", "repetitions": 3, "threads": 1,
     "aggregate_name": "mean", "aggregate_unit": "time", "iterations": 3,
     "real_time": 2.0e+01, "cpu_time": 2.0e+01, "time_unit": "ms"},
    {"name": "BM_rep/8_cv", "run_name": "BM_rep/8",
     "run_type": "aggregate", "repetitions": 3, "threads": 1,
     "aggregate_name": "cv", "aggregate_unit": "percentage",
     "iterations": 3, "real_time": NaN, "cpu_time": NaN},
    {"name": "BM_fails", "run_name": "BM_fails", "run_type": "iteration",
     "repetitions": 1, "threads": 1, "error_occurred": true,
     "error_message": "no input", "iterations": 0, "real_time": 0,
     "cpu_time": 0, "time_unit": "ns"},
    {"name": "BM_s", "run_name": "BM_s", "run_type": "iteration",
     "repetitions": 1, "threads": 1, "iterations": 1,
     "real_time": 2.5e-01, "cpu_time": 2.5e-01, "time_unit": "s"}
  ]
}
EOF
valid gbench gbench '
assert list(doc) == ["BM_us", "BM_rep/8", "BM_s"], list(doc)
assert doc["BM_us"]["latency"] == {"value": 1500}
assert doc["BM_rep/8"]["latency"] == {"value": 2e7, "lower_value": 1e7,
                                      "upper_value": 3e7}
assert doc["BM_s"]["latency"] == {"value": 2.5e8}
assert doc["BM_s"]["instructions"] == {"value": 123456}
'

# ---------------------------------------------------------------- invalid
printf '{"sort": {"latency": {"value": 1' >"$TMP/bad/truncated.json"
invalid truncated bmf "bad/truncated.json:1:33: invalid JSON"
printf '{\n  "sort": {\n    "latency": {"value": 1,}\n  }\n}\n' \
  >"$TMP/bad/comma.json"
# (cJSON points just after the brace here; the line is what matters)
invalid comma bmf "bad/comma.json:3:"
: >"$TMP/bad/empty.json"
invalid empty bmf "bad/empty.json:1:1: invalid JSON: unexpected end of input"
printf '[{"value": 1}]' >"$TMP/bad/array.json"
invalid array bmf "at the top level: expected an object of benchmarks"
printf '{"sort": {"latency": {"value": "12"}}}' >"$TMP/bad/string.json"
want='bad/string.json: at ["sort"]["latency"]["value"]: expected a number,'
invalid string bmf "$want got a string"
printf '{"sort": {"latency": 12}}' >"$TMP/bad/bare.json"
invalid bare bmf 'at ["sort"]["latency"]: expected an object with "value"'
printf '{"sort": {"latency": {"lower_value": 1}}}' >"$TMP/bad/novalue.json"
invalid novalue bmf 'at ["sort"]["latency"]: missing "value"'
printf '{"sort": {"latency": {"value": 1e999}}}' >"$TMP/bad/huge.json"
invalid huge bmf 'at ["sort"]["latency"]["value"]: number out of range'
printf '{"sort": {}, "sort": {}}' >"$TMP/bad/dup.json"
invalid dup bmf 'duplicate benchmark "sort"'
printf '{"sort": {"latency": {"value": 1, "unit": "ns"}}}' \
  >"$TMP/bad/unknown.json"
invalid unknown bmf 'at ["sort"]["latency"]: unknown key "unit"'
printf '{"sort": {"latency": {"value": 1, "lower_value": 2}}}' \
  >"$TMP/bad/bounds.json"
invalid bounds bmf 'lower_value 2 is greater than value 1'
printf '{"": {}}' >"$TMP/bad/noname.json"
invalid noname bmf 'at [""]: empty benchmark name'
# a hostile name in a message is escaped, on one line
printf '{"a\\nb\033[2J\377": {"m": {"value": null}}}' >"$TMP/bad/hostile.json"
invalid hostile bmf \
  'at ["a\nb\x1b[2J\xff"]["m"]["value"]: expected a number, got null'
python3 - "$TMP/bad/gbench.json" <<'PY'
import json, sys
rows = [{"name": n, "run_name": n, "run_type": "iteration",
         "real_time": 1.0, "time_unit": "ns"} for n in "abcd"]
rows[3]["real_time"] = "fast"
with open(sys.argv[1], "w") as f:
    json.dump({"context": {}, "benchmarks": rows}, f)
PY
invalid gbench gbench \
  'at benchmarks[3].real_time: expected a number, got a string'
printf '{"benchmarks": [{"name": "a", "run_type": "iteration", %s}]}' \
  '"real_time": 1, "time_unit": "fortnights"' >"$TMP/bad/unit.json"
want='at benchmarks[0].time_unit: expected "ns", "us", "ms" or "s",'
invalid unit gbench "$want got \"fortnights\""
printf '{"benchmarks": [{"name": "a", "run_type": "iteration", %s}]}' \
  '"error_occurred": true, "error_message": "boom"' >"$TMP/bad/allfail.json"
invalid allfail gbench 'every benchmark failed (1); the first: ["a"]: boom'
printf '{"sort": {}}' >"$TMP/bad/notgbench.json"
invalid notgbench gbench 'at the top level: missing "benchmarks"'
invalid missing bmf "cannot open"

finish
