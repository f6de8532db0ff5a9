#!/bin/sh
# benchprof run: the BMF report with counter measures, the manifest that
# attaches the artifacts, the three ways a harness hands over its results,
# and malformed results (clear error, raw output kept, profiles written).
. "$top_srcdir/tests/lib.sh"

schema="$BENCHPROF_CONTRACTS/bencher/bmf.schema.json"
[ -f "$schema" ] || { echo "FAIL: the BMF schema is missing: $schema"; exit 1; }

# validate DIR [BENCH...]: report.json follows the schema, holds the
# benchmarks, and manifest.json's sizes and hashes are the files'
validate() {
  python3 - "$schema" "$@" <<'PY'
import hashlib, json, os, sys
import jsonschema
schema, out, benches = sys.argv[1], sys.argv[2], sys.argv[3:]
report = json.load(open(os.path.join(out, "report.json")))
jsonschema.validate(report, json.load(open(schema)))
assert sorted(report) == sorted(benches), (sorted(report), benches)
man = json.load(open(os.path.join(out, "manifest.json")))
assert man["report"] == "report.json"
kinds = {a["kind"] for a in man["artifacts"]}
assert kinds == {"firefox-profiler", "pprof", "folded-stacks", "flamegraph",
                 "summary"}, kinds
for a in man["artifacts"]:
    data = open(os.path.join(out, a["file"]), "rb").read()
    assert a["bytes"] == len(data), a
    assert a["sha256"] == hashlib.sha256(data).hexdigest(), a
assert [b["name"] for b in man["benchmarks"]] == list(report), man
assert man["event"]["used"] and "fallback" in man["event"]
assert man["samples"] > 0
PY
}

# counters DIR BENCH: the counted totals are measures of BENCH, with the
# stable slugs, and what could not be counted is absent (never 0)
counters() {
  python3 - "$@" <<'PY'
import json, os, sys
out, bench = sys.argv[1], sys.argv[2]
report = json.load(open(os.path.join(out, "report.json")))
man = json.load(open(os.path.join(out, "manifest.json")))
m = report[bench]
for c in man["counters"]:
    if c["available"]:
        assert m[c["slug"]]["value"] == c["value"], (c, m)
    else:
        assert c["slug"] not in m, (c, m)
assert m["task-clock"]["value"] > 1e7, m       # ns: the work took > 10 ms
assert m["page-faults"]["value"] > 0, m
PY
}

# 1. --bmf FILE: the harness writes BMF to a file
{
  echo '#!/bin/sh'
  echo "\"$WORKLOADS/split\" 0.2 >/dev/null"
  echo "printf '%s' '{\"sort/1k\": {\"latency\": {\"value\": 1234.5, \"lower_value\": 1200, \"upper_value\": 1300}, \"throughput\": {\"value\": 42}}}' >\"\$1\""
  echo 'echo harness-done'
} >"$TMP/harness.sh"
chmod +x "$TMP/harness.sh"
"$BENCHPROF" run -q -o "$TMP/bmf" --bmf "$TMP/h.json" -- \
  "$TMP/harness.sh" "$TMP/h.json" >"$TMP/stdout" 2>"$TMP/stderr"
check "run --bmf exits 0" [ $? -eq 0 ]
check "the harness's stdout passes through" grep -qx harness-done "$TMP/stdout"
check "report and manifest are valid and agree with the files" \
  validate "$TMP/bmf" "sort/1k"
check "counters are measures of the benchmark" counters "$TMP/bmf" "sort/1k"
check "the harness's measures are untouched" python3 - "$TMP/bmf" <<'PY'
import json, sys
m = json.load(open(sys.argv[1] + "/report.json"))["sort/1k"]
assert m["latency"] == {"value": 1234.5, "lower_value": 1200,
                        "upper_value": 1300}, m
assert m["throughput"] == {"value": 42}, m
PY

# 2. --adapter json: BMF on stdout, which still reaches our stdout whole
printf '%s' '{"hash \"x\"\n../y": {"latency": {"value": 7}}}' >"$TMP/bmf.json"
"$BENCHPROF" run -q -o "$TMP/json" --adapter json -- \
  sh -c '"$1" 0.1 >/dev/null; cat "$2"' sh "$WORKLOADS/split" "$TMP/bmf.json" \
  >"$TMP/stdout" 2>"$TMP/stderr"
check "run --adapter json exits 0" [ $? -eq 0 ]
check "stdout is passed through byte for byte" cmp -s "$TMP/bmf.json" "$TMP/stdout"
check "a hostile benchmark name survives, escaped" \
  validate "$TMP/json" "$(printf 'hash "x"\n../y')"

# 3. no harness results: one benchmark, named by --name or the command
"$BENCHPROF" run -q -o "$TMP/plain" -- "$WORKLOADS/split" 0.2 >/dev/null 2>&1
check "without results the benchmark is the command's name" \
  validate "$TMP/plain" split
check "and carries the counters" counters "$TMP/plain" split
"$BENCHPROF" run -q -o "$TMP/named" --name my-bench -- \
  "$WORKLOADS/split" 0.1 >/dev/null 2>&1
check "--name names it" validate "$TMP/named" my-bench

# 4. malformed results: error with the place, raw output kept, profiles
#    written, non-zero exit; the command's own status wins
printf '%s' '{"a": {"latency": {"value": 1' >"$TMP/trunc.json"
"$BENCHPROF" run -q -o "$TMP/bad" --adapter json -- \
  sh -c '"$1" 0.1 >/dev/null; cat "$2"' sh "$WORKLOADS/split" "$TMP/trunc.json" \
  >/dev/null 2>"$TMP/stderr"
check "truncated results exit non-zero" [ $? -ne 0 ]
check "the error says where the JSON broke" grep -q "stdout:1:" "$TMP/stderr"
check "the raw output is kept" cmp -s "$TMP/trunc.json" "$TMP/bad/harness-output.txt"
check "the profiles are still written" \
  sh -c "[ -s '$TMP/bad/profile.json.gz' ] && [ -s '$TMP/bad/profile.folded' ]"
check "no report is written from bad results" [ ! -e "$TMP/bad/report.json" ]
printf '%s' '{"a": {"latency": {"value": "fast"}}}' >"$TMP/type.json"
"$BENCHPROF" run -q -o "$TMP/bad2" --adapter json -- \
  sh -c 'cat "$1"; exit 3' sh "$TMP/type.json" >/dev/null 2>"$TMP/stderr"
check "the command's exit status (3) is not hidden" [ $? -eq 3 ]
check "a wrong type is named with its path" grep -q 'latency.*value' "$TMP/stderr"
"$BENCHPROF" run -q -o "$TMP/bad3" --bmf "$TMP/none.json" -- true 2>"$TMP/stderr"
check "a harness that wrote no file fails" [ $? -ne 0 ]
check "and says so" grep -q "wrote no results" "$TMP/stderr"
# a file a previous job left (a self-hosted runner keeps its workspace)
# that this harness did not write is not this run's results
printf '%s' '{"stale": {"latency": {"value": 1}}}' >"$TMP/old.json"
touch -d '2020-01-01' "$TMP/old.json"
"$BENCHPROF" run -q -o "$TMP/stale" --no-publish --bmf "$TMP/old.json" -- \
  true 2>"$TMP/stderr"
check "a results file the harness left untouched: exit 1, said so" \
  sh -c '[ $1 -eq 1 ] && grep -q "old.json is as it was before" "$2"' sh $? \
  "$TMP/stderr"
check "and no report is made of it" [ ! -e "$TMP/stale/report.json" ]
"$BENCHPROF" run -q -o "$TMP/fresh" --no-publish --bmf "$TMP/old.json" -- \
  sh -c 'printf %s "{\"fresh\": {\"latency\": {\"value\": 2}}}" >"$1"' \
  sh "$TMP/old.json" 2>"$TMP/stderr"
check "the same file rewritten by the harness is read" \
  sh -c '[ $1 -eq 0 ] && grep -q fresh "$2"' sh $? "$TMP/fresh/report.json"

# artifacts that cannot be written (a directory where a file goes): no
# crash, no report pointing at them, the command's own status comes back
mkdir -p "$TMP/nowrite/profile.folded/x"
"$BENCHPROF" run -q -o "$TMP/nowrite" -- sh -c '
  echo "begin - a" >"$BENCHPROF_CONTROL"; echo "end -" >"$BENCHPROF_CONTROL"
  exit 3' >/dev/null 2>"$TMP/stderr"
check "an artifact that cannot be written: the command's status (3)" \
  [ $? -eq 3 ]
check "and no report or manifest" sh -c \
  '[ ! -e "$1/report.json" ] && [ ! -e "$1/manifest.json" ]' sh "$TMP/nowrite"
"$BENCHPROF" run -q -o "$TMP/nowrite" -- true 2>"$TMP/stderr"
check "the same with a command that succeeded: status 1" [ $? -eq 1 ]
check "and the error names the file" grep -q "profile.folded" "$TMP/stderr"

# 5. bad command lines
"$BENCHPROF" run --adapter xml -- true 2>/dev/null
check "an unknown adapter exits 2" [ $? -eq 2 ]
"$BENCHPROF" run --bmf a --adapter json -- true 2>/dev/null
check "--bmf with --adapter exits 2" [ $? -eq 2 ]
"$BENCHPROF" record --bmf a -- true 2>/dev/null
check "--bmf is not a record option" [ $? -eq 2 ]
"$BENCHPROF" run -q --no-publish -o "$TMP/r20" --retries 20 -- true
check "--retries 20 (the configuration's most) is taken" [ $? -eq 0 ]
"$BENCHPROF" run --no-publish --retries 21 -- true 2>"$TMP/stderr"
check "--retries 21 exits 2 and names the range" \
  sh -c '[ $1 -eq 2 ] && grep -q -- "--retries.*0 to 20" "$2"' sh $? \
  "$TMP/stderr"
"$BENCHPROF" flush --spool '' 2>"$TMP/stderr"
check "an empty --spool exits 2 and says so" \
  sh -c '[ $1 -eq 2 ] && grep -q -- "--spool: empty" "$2"' sh $? "$TMP/stderr"
"$BENCHPROF" run --no-publish -o "$TMP/nostore" --store '' -- true \
  2>"$TMP/stderr"
check "an empty --store exits 2 and says so" \
  sh -c '[ $1 -eq 2 ] && grep -q -- "--store: empty" "$2"' sh $? "$TMP/stderr"
# --branch "$GITHUB_HEAD_REF" on a push: empty, so not given (CI says it)
"$BENCHPROF" run -q --no-publish -o "$TMP/nobranch" --branch '' -- \
  sh -c 'echo ran' >"$TMP/stdout" 2>"$TMP/stderr"
check "an empty --branch is not given: the command runs" \
  sh -c '[ $1 -eq 0 ] && grep -q ran "$2"' sh $? "$TMP/stdout"
"$BENCHPROF" run --no-publish --name '' -- true 2>"$TMP/stderr"
check "an empty --name exits 2 and says so" \
  sh -c '[ $1 -eq 2 ] && grep -q -- "--name: empty" "$2"' sh $? "$TMP/stderr"
finish
