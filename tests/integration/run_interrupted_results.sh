#!/bin/sh
# A run interrupted (TERM to benchprof run, a cancelled job) before the
# harness wrote its results:
#   - --bmf FILE missing, partly written or left by a previous job, and
#     --adapter google-benchmark with nothing on stdout: a warning that
#     the benchmark was interrupted before it wrote its results (no
#     "invalid JSON" error), manifest.json marked "interrupted" with the
#     signal's status, naming no report, the profile of what ran kept,
#     what the harness wrote of its results kept, nothing published or
#     compared (not even with --allow-failure);
#   - the Bencher entrypoint with --file: the same, and the file is left
#     as the harness left it;
#   - results that are invalid when the run was not interrupted stay an
#     error, and the run leaves no manifest.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"
. "$top_srcdir/tests/hooks_lib.sh"

standin bencher
export BENCHER_API_TOKEN="$TOKEN" BENCHER_HOST="$BENCHER_URL"
unset BENCHPROF_BENCHER_FILE
H1=1111111111111111111111111111111111111111
common="--project demo --branch main --testbed box --store file://$TMP/store --spool $TMP/spool --retries 0 --timeout 5"
mkdir -p "$TMP/store"

# the harness: works a little, says it started, writes $PARTIAL (if
# any) into its results file $1, then sleeps before it would write them
cat >"$TMP/harness.sh" <<SH
#!/bin/sh
"$WORKLOADS/split" 0.2 >/dev/null
[ -z "\${PARTIAL:-}" ] || printf '%s' "\$PARTIAL" >"\$1"
echo started >>"\$MARK"
i=0
while [ \$i -lt 100 ]; do sleep 0.1; i=\$((i + 1)); done
printf '%s' '{"sort/1k": {"latency": {"value": 1}}}' >"\$1"
SH
chmod +x "$TMP/harness.sh"

# runs: how many reports the stand-in accepted
runs() {
  python3 - "$TMP/bencher.log" <<'PY'
import json, sys
log = json.load(open(sys.argv[1]))
print(len([e for e in log if e.get("path") == "/v0/run"
           and e.get("status") == 201]))
PY
}

# manifest DIR: the manifest's outcome, exit status and report
manifest() {
  python3 -c 'import json, sys; m = json.load(open(sys.argv[1]))
print(m.get("outcome"), m.get("exit_status"), m.get("report"))' \
    "$1/manifest.json"
}

# unreported TAG DIR WHERE: what every interrupted run without results
# shows (WHERE: the results' origin named in the warning)
unreported() {
  check "$1: the signal's status (143, was $st)" [ "$st" -eq 143 ]
  check "$1: marked interrupted, no report" [ "$(manifest "$2")" = \
    "interrupted 143 None" ]
  check "$1: no report.json" [ ! -e "$2/report.json" ]
  check "$1: the profile of what ran" [ -s "$2/profile.json.gz" ]
  check "$1: says it was interrupted before its results" grep -qF \
    "the benchmark was interrupted before it wrote its results ($3): no report" \
    "$TMP/err.$1"
  check "$1: no error about the results" sh -c \
    "! grep -q 'invalid JSON\|error:' '$TMP/err.$1'"
}

# 1. --bmf, the harness interrupted before it wrote the file
rm -f "$TMP/h1.json"
interrupt missing -o "$TMP/o1" --bmf "$TMP/h1.json" --hash $H1 $common \
  -- "$TMP/harness.sh" "$TMP/h1.json"
unreported missing "$TMP/o1" "$TMP/h1.json"
check "missing: says it is not published" grep -q \
  "interrupted (exit status 143) before the benchmark wrote its results: not published" \
  "$TMP/err.missing"
check "missing: nothing sent to Bencher" [ "$(runs)" = 0 ]
check "missing: nothing stored" sh -c \
  "[ -z \"\$(find '$TMP/store' -type f | sed -n 1p)\" ]"
check "missing: nothing spooled" sh -c \
  "[ -z \"\$(ls -A '$TMP/spool' 2>/dev/null | grep -v '^\\.')\" ]"

# 2. --bmf partly written, --allow-failure: still not published; what
#    was written is kept
PARTIAL='{"sort/1k": {"lat' interrupt partial -o "$TMP/o2" \
  --bmf "$TMP/h2.json" --hash $H1 $common --allow-failure \
  -- "$TMP/harness.sh" "$TMP/h2.json"
unreported partial "$TMP/o2" "$TMP/h2.json"
check "partial: the harness's file as it left it" [ "$(cat \
  "$TMP/h2.json")" = '{"sort/1k": {"lat' ]
check "partial: what it wrote kept in the run directory" [ "$(cat \
  "$TMP/o2/harness-output.txt")" = '{"sort/1k": {"lat' ]
check "partial, --allow-failure: nothing sent to Bencher" [ "$(runs)" = 0 ]
check "partial, --allow-failure: nothing stored" sh -c \
  "[ -z \"\$(find '$TMP/store' -type f | sed -n 1p)\" ]"

# 3. --bmf left by a previous job: not read
printf '%s' '{"old": {"latency": {"value": 9}}}' >"$TMP/h3.json"
touch -d '1 hour ago' "$TMP/h3.json"
interrupt stale -o "$TMP/o3" --bmf "$TMP/h3.json" --no-publish \
  -- "$TMP/harness.sh" "$TMP/h3.json"
unreported stale "$TMP/o3" "$TMP/h3.json"
check "stale: the previous results are not in the run" sh -c \
  "! grep -rqF '\"old\"' '$TMP/o3'"

# 4. --adapter google-benchmark: nothing on stdout yet
interrupt gbench -o "$TMP/o4" --adapter google-benchmark --no-publish \
  -- "$TMP/harness.sh" "$TMP/h4.json"
unreported gbench "$TMP/o4" stdout

# 5. the Bencher entrypoint with --file
cat >"$TMP/runner.json" <<JSON
{"enabled": true, "output": "$TMP/o5", "spool": "$TMP/spool",
 "store": {"url": "file://$TMP/store"},
 "bencher": {"project": "demo", "testbed": "bench-box"},
 "network": {"retries": 0, "timeout": 5}, "comment": {"enabled": false}}
JSON
MARK="$TMP/mark.entry"
export MARK
BENCHPROF_CONFIG="$TMP/runner.json" \
  "$HOOKS/bencher/entrypoint.sh" --file "$TMP/h5.json" \
  -- "$TMP/harness.sh" "$TMP/h5.json" >"$TMP/out.entry" 2>"$TMP/err.entry" &
ep=$!
wait_line "$MARK" '^started' 30 || fail "entry: the harness never started"
kill -TERM $ep
wait $ep
st=$?
unreported entry "$TMP/o5" "$TMP/h5.json"
check "entry: no results file made up" [ ! -e "$TMP/h5.json" ]
check "entry: nothing stored" sh -c \
  "[ -z \"\$(find '$TMP/store' -type f | sed -n 1p)\" ]"

# 6. not interrupted: a partial results file stays an error, no manifest
printf '%s' '{"sort/1k": {"lat' >"$TMP/h6.json"
"$BENCHPROF" run -q -o "$TMP/o6" --bmf "$TMP/h6.json" --no-publish \
  -- "$WORKLOADS/split" 0.1 >/dev/null 2>"$TMP/err.invalid"
st=$?
check "invalid, not interrupted: fails ($st)" [ "$st" -ne 0 ]
check "invalid, not interrupted: the error says what and where" grep -q \
  "error: .*h6.json:1:[0-9]*: invalid JSON" "$TMP/err.invalid"
check "invalid, not interrupted: no manifest" [ ! -e "$TMP/o6/manifest.json" ]
check "invalid, not interrupted: no interrupted warning" sh -c \
  "! grep -q 'was interrupted' '$TMP/err.invalid'"

check "no token in any output, spool or store" no_token "$TMP"/err.* \
  "$TMP"/o? "$TMP/store"
finish
