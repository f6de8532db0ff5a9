#!/bin/sh
# The shims of the runner README's example, in a simulated GitHub Actions
# job: BENCHPROF_WRAP_COMMANDS="cargo:bench make:bench ./run-benchmarks"
# with BENCHPROF_RUN_ARGS="--adapter json".
#   - job-started accepts every entry (no "ignoring"), writes a shim for
#     cargo, make and run-benchmarks;
#   - "make bench" that only builds (prints no JSON, exits 0) is profiled,
#     warned about (warnings, no error), and the step passes with make's status; "make bench"
#     that fails keeps its status; in strict mode the step fails;
#   - "make build" runs the real make, untouched;
#   - a step that runs "run-benchmarks" (the path entry's shim) profiles
#     ./run-benchmarks of the workspace; "./run-benchmarks" written out
#     runs unprofiled (it never looks at PATH), as the log says.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"
. "$top_srcdir/tests/hooks_lib.sh"

cat >"$TMP/runner.json" <<JSON
{"enabled": true, "spool": "$TMP/spool", "store": {"url": "file://$TMP/store"},
 "bencher": {"project": "demo", "testbed": "bench-box"},
 "network": {"retries": 0, "timeout": 5}}
JSON
mkdir -p "$TMP/tools" "$TMP/ws"
# a make whose "bench" target only builds (or fails with MAKE_FAIL)
cat >"$TMP/tools/make" <<SH
#!/bin/sh
echo "make \$*: cc -o bench bench.c"
"$WORKLOADS/split" 0.1
exit \${MAKE_FAIL:-0}
SH
# the repository's own benchmark script, run by path
cat >"$TMP/ws/run-benchmarks" <<SH
#!/bin/sh
"$WORKLOADS/split" 0.1
echo '{"suite/sort": {"latency": {"value": 7}}}'
SH
chmod +x "$TMP/tools/make" "$TMP/ws/run-benchmarks"

BENCHPROF_CONFIG="$TMP/runner.json"
BENCHPROF_WRAP_COMMANDS="cargo:bench make:bench ./run-benchmarks"
BENCHPROF_RUN_ARGS="--adapter json --no-publish"
GITHUB_ACTIONS=true GITHUB_SHA=$HEAD_SHA GITHUB_REF_NAME=main
GITHUB_REPOSITORY=org/demo GITHUB_WORKSPACE="$TMP/ws"
RUNNER_TEMP="$TMP/temp" GITHUB_ENV="$TMP/env" GITHUB_PATH="$TMP/path"
export BENCHPROF_CONFIG BENCHPROF_WRAP_COMMANDS BENCHPROF_RUN_ARGS \
  GITHUB_ACTIONS GITHUB_SHA GITHUB_REF_NAME GITHUB_REPOSITORY \
  GITHUB_WORKSPACE RUNNER_TEMP GITHUB_ENV GITHUB_PATH
mkdir -p "$RUNNER_TEMP"
: >"$GITHUB_ENV"
: >"$GITHUB_PATH"

# step CMD...: a later step (as hooks_github.sh's)
step() {
  (
    while IFS= read -r line; do
      case $line in *=*) export "${line?}" ;; esac
    done <"$GITHUB_ENV"
    # the runner's own make comes before the system's; the job's PATH
    # entries before both
    PATH="$TMP/tools:$PATH"
    while IFS= read -r dir; do PATH="$dir:$PATH"; done <"$GITHUB_PATH"
    export PATH
    cd "$GITHUB_WORKSPACE" && "$@"
  )
}
OUT="$TMP/ws/benchprof-out"

$(hook_shell) "$HOOKS/github/job-started.sh" >"$TMP/started.out" 2>&1
check "started: exit 0" [ $? -eq 0 ]
check "started: no entry ignored" sh -c "! grep -q ignoring '$TMP/started.out'"
check "started: shims for cargo, make and run-benchmarks" sh -c \
  "for s in cargo make run-benchmarks; do
     [ -x '$TMP/temp/benchprof-shims/'\$s ] || exit 1; done"
check "started: the log says how a path entry is wrapped" grep -q \
  "benchprof-wrap ./run-benchmarks" "$TMP/started.out"

step make bench >"$TMP/s1.out" 2>"$TMP/s1.err"
check "make bench that only builds: the step passes" [ $? -eq 0 ]
check "make bench: its output passes through" grep -q "cc -o bench" \
  "$TMP/s1.out"
check "make bench: profiled" [ -s "$OUT/profile.json.gz" ]
# --keep-status: results that cannot be read are a warning (where and
# what), then a warning that the job keeps make's status
check "make bench: the results warning, then the status kept" sh -c \
  "grep -q '^benchprof: warning: stdout:1:1' '$TMP/s1.err' &&
   grep -q 'warning: no report.*keeps the benchmark.s exit status (0)' '$TMP/s1.err' &&
   ! grep -q '^benchprof: error:' '$TMP/s1.err'"
MAKE_FAIL=5 step make bench >/dev/null 2>&1
check "make bench that fails: its status (5)" [ $? -eq 5 ]
BENCHPROF_STRICT=1 step make bench >/dev/null 2>"$TMP/s3.err"
check "strict: make bench without results fails the step" [ $? -ne 0 ]

rm -rf "$OUT"
step make build >"$TMP/s4.out" 2>"$TMP/s4.err"
check "make build: the real make, untouched" sh -c "[ $? -eq 0 ] &&
  grep -q 'make build' '$TMP/s4.out' && [ ! -s '$TMP/s4.err' ] &&
  [ ! -e '$OUT' ]"

step run-benchmarks >"$TMP/s5.out" 2>"$TMP/s5.err"
check "run-benchmarks by name: exit 0" [ $? -eq 0 ]
check "run-benchmarks by name: ./run-benchmarks profiled" python3 - \
  "$OUT/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert m["command"].startswith("./run-benchmarks"), m["command"]
assert [b["name"] for b in m["benchmarks"]] == ["suite/sort"], m
PY
rm -rf "$OUT"
step ./run-benchmarks >"$TMP/s6.out" 2>"$TMP/s6.err"
check "./run-benchmarks written out: runs, unprofiled" sh -c "[ $? -eq 0 ] &&
  grep -q suite/sort '$TMP/s6.out' && [ ! -e '$OUT' ]"
finish
