#!/bin/sh
# The Bencher runner entrypoint in a simulated Bencher job (BENCHER_*
# variables set by the job's definition, a token in the environment): the
# job's command writes its BMF to the declared output file; after the
# entrypoint that file holds only BMF (valid against the BMF schema): the
# harness's measures plus the counters; the profiles are in the store,
# never in the file; benchprof posted no Bencher report of its own; the
# command's exit status passes through; the spool is flushed.  A job whose
# command fails gets its file (and its exit status) but nothing in the
# store: a failed run is never the branch's latest.  Without a
# file, stdout passes through untouched.  Disabled: the file is exactly
# what the harness wrote and nothing else is written.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"
. "$top_srcdir/tests/hooks_lib.sh"

standin bencher
make_harness
make_mybench
runner_config "$TMP/runner.json"
BENCHPROF_CONFIG="$TMP/runner.json"
BENCHER_API_TOKEN=$TOKEN BENCHER_PROJECT=widget BENCHER_BRANCH=main
BENCHER_HASH=$HEAD_SHA BENCHER_TESTBED=metal-1
export BENCHPROF_CONFIG BENCHER_API_TOKEN BENCHER_PROJECT BENCHER_BRANCH \
  BENCHER_HASH BENCHER_TESTBED
mkdir -p "$TMP/job" "$TMP/results"
cd "$TMP/job" || exit 1
ENTRY="$HOOKS/bencher/entrypoint.sh"

# bmf_only FILE: FILE is one BMF document, valid against the schema
bmf_only() {
  python3 - "$1" "$BMF_SCHEMA" <<'PY'
import json, sys, jsonschema
doc = json.load(open(sys.argv[1]))
jsonschema.validate(doc, json.load(open(sys.argv[2])))
assert list(doc) == ["sort/1k"], doc
m = doc["sort/1k"]
assert m["latency"]["value"] == 1234.5, m
assert "task-clock" in m, m  # the counters were added
PY
}

"$ENTRY" --file "$TMP/results/bmf.json" -- "$TMP/harness.sh" \
  "$TMP/results/bmf.json" 0 >"$TMP/e1.out" 2>"$TMP/e1.err"
check "file: the command's exit status (0)" [ $? -eq 0 ]
check "file: only BMF in it, the counters added" bmf_only \
  "$TMP/results/bmf.json"
check "file: no temporary file left next to it" sh -c \
  "[ \"\$(ls '$TMP/results')\" = bmf.json ]"
check "file: the profiles are in the store" store_ok "$TMP/store"
# the job's BENCHER_* identity; the configuration's testbed comes first
check "file: stored under the job's identity" \
  [ -s "$TMP/store/widget/main/latest/bench-box.json" ]
check "file: benchprof posted no Bencher report" [ "$(reports)" = 0 ]
check "file: says so" grep -q "no Bencher report (--no-bencher)" \
  "$TMP/e1.err"
check "file: the spool is empty" spool_empty

# the command fails: its status and its file, nothing stored
FAILED_SHA=4444444444444444444444444444444444444444
BENCHER_HASH=$FAILED_SHA "$ENTRY" --file "$TMP/results/bmf.json" -- \
  "$TMP/harness.sh" "$TMP/results/bmf.json" 5 >"$TMP/e1f.out" \
  2>"$TMP/e1f.err"
check "failed: the command's exit status (5)" [ $? -eq 5 ]
check "failed: only BMF in the file, the counters added" bmf_only \
  "$TMP/results/bmf.json"
check "failed: nothing stored, latest unchanged" sh -c \
  "[ ! -e '$TMP/store/widget/main/$FAILED_SHA' ] &&
   grep -q $HEAD_SHA '$TMP/store/widget/main/latest/bench-box.json'"
check "failed: says so" grep -q "not published" "$TMP/e1f.err"

# BMF on stdout: passes through untouched
"$TMP/tools/mybench" run >"$TMP/direct.out"
BENCHPROF_BENCHER_FILE= "$ENTRY" "$TMP/tools/mybench" run \
  >"$TMP/e2.out" 2>"$TMP/e2.err"
check "stdout: exit 0" [ $? -eq 0 ]
check "stdout: byte-identical to the command's" cmp -s "$TMP/direct.out" \
  "$TMP/e2.out"
check "stdout: profiled too" grep -q "mybench/sort" \
  "$TMP/job/benchprof-out/report.json"

# disabled: the harness's file exactly, nothing else written
runner_config "$TMP/off.json" false
rm -rf "$TMP/job/benchprof-out"
"$TMP/harness.sh" "$TMP/direct.json" 0
BENCHPROF_CONFIG="$TMP/off.json" BENCHPROF_BENCHER_FILE="$TMP/results/off.json" \
  "$ENTRY" "$TMP/harness.sh" "$TMP/results/off.json" 0 >"$TMP/e3.out" \
  2>"$TMP/e3.err"
check "disabled: exit 0" [ $? -eq 0 ]
check "disabled: the file is the harness's own" cmp -s "$TMP/direct.json" \
  "$TMP/results/off.json"
check "disabled: no output, nothing said" sh -c \
  "[ ! -e '$TMP/job/benchprof-out' ] && [ ! -s '$TMP/e3.out' ] && [ ! -s '$TMP/e3.err' ]"
check "no token in any output, file, spool or store" no_token "$TMP"/*.out \
  "$TMP"/*.err "$TMP/results" "$TMP/spool" "$TMP/store"
finish
