#!/bin/sh
# How a run ends decides what is published, and a reused output directory
# never keeps a previous run's report:
#   - a command that exits 1, one killed by SIGTERM sent to benchprof
#     after 1 s of a 5 s benchmark, and one that catches SIGTERM and
#     exits 0: artifacts and manifest kept locally, the manifest says
#     "failed" or "interrupted", nothing reaches Bencher or the store, the
#     branch's latest still names the last passing run;
#   - the same for a run with --repeat whose repetitions fail;
#   - --allow-failure publishes a failed run (report and latest);
#   - a run in a reused -o directory whose results cannot be read leaves
#     no report.json, manifest.json or compare/ of the run before;
#   - --keep-status: results that cannot be read are a warning (where
#     they broke, and that the job keeps the command's status and has no
#     report), never an "error:" line, and the command's status stays
#     (0); strict mode still fails, with an error;
#   - a harness that prints nothing for --adapter is said to, with no
#     empty harness-output.txt.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"

standin bencher
make_harness
export BENCHER_API_TOKEN="$TOKEN" BENCHER_HOST="$BENCHER_URL"
unset BENCHPROF_CONFIG BENCHPROF_STRICT GITHUB_ACTIONS GITLAB_CI
H1=1111111111111111111111111111111111111111
H2=2222222222222222222222222222222222222222
H3=3333333333333333333333333333333333333333
H4=4444444444444444444444444444444444444444
H5=5555555555555555555555555555555555555555
common="--project demo --branch main --testbed box --store file://$TMP/store --spool $TMP/spool --retries 0 --timeout 5"
LATEST="$TMP/store/demo/main/latest/box.json"

# runs: how many reports the stand-in accepted
runs() {
  python3 - "$TMP/bencher.log" <<'PY'
import json, sys
log = json.load(open(sys.argv[1]))
print(len([e for e in log if e.get("path") == "/v0/run"
           and e.get("status") == 201]))
PY
}

# outcome DIR: the manifest's outcome and exit status
outcome() {
  python3 -c 'import json, sys; m = json.load(open(sys.argv[1]))
print(m.get("outcome"), m.get("exit_status"))' "$1/manifest.json"
}

# 1. a passing run: published, latest names it
"$BENCHPROF" run -q -o "$TMP/out" --bmf "$TMP/h.json" --hash $H1 $common \
  -- "$TMP/harness.sh" "$TMP/h.json" >/dev/null 2>"$TMP/err1"
check "passing run: exit 0" [ $? -eq 0 ]
check "passing run: marked passed" [ "$(outcome "$TMP/out")" = "passed 0" ]
check "passing run: latest names it" grep -q $H1 "$LATEST"
check "passing run: one report" [ "$(runs)" = 1 ]

# 2. the command exits 1: kept, marked, not published
"$BENCHPROF" run -q -o "$TMP/out" --bmf "$TMP/h.json" --hash $H2 $common \
  -- "$TMP/harness.sh" "$TMP/h.json" 1 >/dev/null 2>"$TMP/err2"
check "failed run: the command's status (1)" [ $? -eq 1 ]
check "failed run: marked failed in the manifest" [ "$(outcome \
  "$TMP/out")" = "failed 1" ]
check "failed run: artifacts and report kept locally" sh -c \
  "[ -s '$TMP/out/profile.json.gz' ] && [ -s '$TMP/out/report.json' ]"
check "failed run: nothing sent to Bencher" [ "$(runs)" = 1 ]
check "failed run: latest unchanged, nothing stored" sh -c \
  "grep -q $H1 '$LATEST' && [ ! -e '$TMP/store/demo/main/$H2' ]"
check "failed run: nothing spooled" sh -c \
  "[ -z \"\$(ls -A '$TMP/spool' 2>/dev/null | grep -v '^\\.')\" ]"
check "failed run: says why" grep -q "failed (exit status 1): not published" \
  "$TMP/err2"

# 2b. with --repeat, a repetition that fails makes the run a failed one
"$BENCHPROF" run -q --repeat 2 -o "$TMP/rep" --bmf "$TMP/h.json" --hash $H2 \
  $common -- "$TMP/harness.sh" "$TMP/h.json" 1 >/dev/null 2>"$TMP/err2b"
check "failed repetitions: the command's status (1)" [ $? -eq 1 ]
check "failed repetitions: marked failed in the manifest" [ "$(outcome \
  "$TMP/rep")" = "failed 1" ]
check "failed repetitions: nothing sent to Bencher" [ "$(runs)" = 1 ]
check "failed repetitions: latest unchanged, nothing stored" sh -c \
  "grep -q $H1 '$LATEST' && [ ! -e '$TMP/store/demo/main/$H2' ]"

# 3. SIGTERM to benchprof after 1 s of a 5 s benchmark
"$BENCHPROF" run -q -o "$TMP/out" --hash $H3 $common -- \
  "$WORKLOADS/split" 5 >/dev/null 2>"$TMP/err3" &
bp=$!
sleep 1
kill -TERM $bp
wait $bp
st=$?
check "interrupted run: the command's status (143)" [ $st -eq 143 ]
check "interrupted run: marked interrupted" [ "$(outcome "$TMP/out")" = \
  "interrupted 143" ]
check "interrupted run: a profile of the run so far" \
  [ -s "$TMP/out/profile.json.gz" ]
check "interrupted run: nothing sent" [ "$(runs)" = 1 ]
check "interrupted run: latest unchanged" grep -q $H1 "$LATEST"

# 4. the command catches SIGTERM and exits 0: still interrupted
"$BENCHPROF" run -q -o "$TMP/out" --hash $H3 $common -- \
  sh -c 'trap "exit 0" TERM; while :; do :; done' >/dev/null \
  2>"$TMP/err4" &
bp=$!
sleep 1
kill -TERM $bp
wait $bp
check "caught SIGTERM: exit 0" [ $? -eq 0 ]
check "caught SIGTERM: marked interrupted" [ "$(outcome "$TMP/out")" = \
  "interrupted 0" ]
check "caught SIGTERM: nothing sent" [ "$(runs)" = 1 ]
check "caught SIGTERM: latest unchanged" grep -q $H1 "$LATEST"

# 5. --allow-failure publishes a failed run
"$BENCHPROF" run -q -o "$TMP/out" --bmf "$TMP/h.json" --hash $H4 $common \
  --allow-failure -- "$TMP/harness.sh" "$TMP/h.json" 2 >/dev/null \
  2>"$TMP/err5"
check "--allow-failure: the command's status (2)" [ $? -eq 2 ]
check "--allow-failure: published" [ "$(runs)" = 2 ]
check "--allow-failure: latest moved" grep -q $H4 "$LATEST"
check "--allow-failure: the stored manifest says failed" python3 - \
  "$TMP/store/demo/main/$H4/box/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert m["outcome"] == "failed" and m["exit_status"] == 2, m
PY

# 6. a reused -o directory: a run whose results cannot be read leaves no
#    report, manifest or comparison of the run before
mkdir -p "$TMP/out/compare"
echo '<!-- benchprof:comment old -->' >"$TMP/out/compare/comment.md"
check "before: the last run's report and manifest" sh -c \
  "[ -s '$TMP/out/report.json' ] && [ -s '$TMP/out/manifest.json' ]"
"$BENCHPROF" run -q -o "$TMP/out" --adapter json --no-publish -- \
  sh -c '"$1" 0.1; echo "not json"' sh "$WORKLOADS/split" >/dev/null \
  2>"$TMP/err6"
check "unreadable results: exit non-zero" [ $? -ne 0 ]
check "unreadable results: no report.json of the run before" \
  [ ! -e "$TMP/out/report.json" ]
check "unreadable results: no manifest.json of the run before" \
  [ ! -e "$TMP/out/manifest.json" ]
check "unreadable results: no compare/ of the run before" \
  [ ! -e "$TMP/out/compare" ]
check "unreadable results: this run's profiles and raw output" sh -c \
  "[ -s '$TMP/out/profile.json.gz' ] &&
   grep -q 'not json' '$TMP/out/harness-output.txt'"

# 7. --keep-status: a "make bench" that only builds
"$BENCHPROF" run -q -o "$TMP/k" --adapter json --no-publish --keep-status \
  -- sh -c '"$1" 0.1; echo "cc -o bench bench.c"' sh "$WORKLOADS/split" \
  >"$TMP/out7" 2>"$TMP/err7"
check "--keep-status: the command's status (0)" [ $? -eq 0 ]
# the job did not fail: what could not be read is a warning that still
# says where, and no line calls it an error
check "--keep-status: where the results broke, as a warning" grep -q \
  '^benchprof: warning: .*stdout:1:1' "$TMP/err7"
check "--keep-status: no report, the job keeps the status (0)" grep -q \
  "^benchprof: warning: no report for this run .*the job keeps the benchmark's exit status (0) (--keep-status)" \
  "$TMP/err7"
check "--keep-status: no error: line" sh -c "! grep -q 'error:' '$TMP/err7'"
# a --bmf file that is no JSON: its path and position, as a warning
printf 'not json\n' >"$TMP/bad.json"
"$BENCHPROF" run -q -o "$TMP/kb" --bmf "$TMP/bad.json" --no-publish \
  --keep-status -- sh -c 'touch "$1"' sh "$TMP/bad.json" \
  >/dev/null 2>"$TMP/err7b"
check "--keep-status, bad --bmf: the command's status (0)" [ $? -eq 0 ]
check "--keep-status, bad --bmf: the file and position, as a warning" \
  grep -q "^benchprof: warning: .*$TMP/bad.json:1:" "$TMP/err7b"
check "--keep-status, bad --bmf: no error: line" \
  sh -c "! grep -q 'error:' '$TMP/err7b'"
check "--keep-status: the command's output passes through" grep -q \
  "cc -o bench" "$TMP/out7"
"$BENCHPROF" run -q -o "$TMP/k" --adapter json --no-publish --keep-status \
  -- sh -c 'echo building; exit 4' >/dev/null 2>&1
check "--keep-status: a failing command's status (4)" [ $? -eq 4 ]
"$BENCHPROF" run -q -o "$TMP/k" --adapter json --no-publish --keep-status \
  --strict -- sh -c 'echo building' >/dev/null 2>"$TMP/err7s"
check "--keep-status --strict: fails" [ $? -ne 0 ]
check "--keep-status --strict: said as an error" grep -q \
  '^benchprof: error: .*stdout:1:1' "$TMP/err7s"
BENCHPROF_STRICT=1 "$BENCHPROF" run -q -o "$TMP/k" --adapter json \
  --no-publish --keep-status -- sh -c 'echo building' >/dev/null 2>&1
check "--keep-status, BENCHPROF_STRICT=1: fails" [ $? -ne 0 ]

# a harness that prints nothing where --adapter reads its results: said
# as that, not as JSON that ended before it began, and no empty
# harness-output.txt is named as its output
for adapter in json google-benchmark; do
  "$BENCHPROF" run -q -o "$TMP/e-$adapter" --adapter "$adapter" \
    --no-publish --keep-status -- sh -c 'exit 4' >/dev/null \
    2>"$TMP/empty-$adapter.err"
  check "nothing on stdout ($adapter): the command's status (4)" [ $? -eq 4 ]
  check "nothing on stdout ($adapter): said so" grep -qx \
    "benchprof: warning: the harness printed nothing on stdout, where --adapter $adapter reads its results" \
    "$TMP/empty-$adapter.err"
  check "nothing on stdout ($adapter): no JSON error, no raw output file" \
    sh -c "! grep -q 'invalid JSON' '$TMP/empty-$adapter.err' &&
           [ ! -e '$TMP/e-$adapter/harness-output.txt' ]"
done

check "no token in any output, spool or store" no_token "$TMP"/err* \
  "$TMP/out" "$TMP/store"
finish
