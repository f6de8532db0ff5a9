# Helpers for the hooks_*.sh tests; sourced after tests/lib.sh and
# tests/publish_lib.sh.  $TMP/bin holds benchprof and benchprof-wrap as a
# runner machine has them on its PATH.
HOOKS="$top_srcdir/runner-hooks"
mkdir -p "$TMP/bin"
ln -s "$BENCHPROF" "$TMP/bin/benchprof"
ln -s "$HOOKS/benchprof-wrap" "$TMP/bin/benchprof-wrap"
PATH="$TMP/bin:$PATH"
export PATH
unset BENCHPROF_CONFIG BENCHPROF_ENABLED BENCHPROF_STRICT BENCHPROF_OUTPUT \
  BENCHPROF_WRAP_COMMANDS BENCHPROF_RUN_ARGS BENCHPROF_SPOOL GITHUB_ACTIONS \
  GITLAB_CI BENCHER_PROJECT BENCHER_BRANCH BENCHER_HASH BENCHER_TESTBED \
  GITHUB_TOKEN GITLAB_TOKEN CI_JOB_TOKEN
HEAD_SHA=1111111111111111111111111111111111111111
BASE_SHA=2222222222222222222222222222222222222222
MERGE_SHA=3333333333333333333333333333333333333333

# a runner's configuration: on, a file store, the stand-in as Bencher
runner_config() {
  cat >"$1" <<JSON
{"enabled": ${2:-true}, "spool": "$TMP/spool",
 "store": {"url": "file://$TMP/store"},
 "bencher": {"host": "$BENCHER_URL", "project": "widget",
             "testbed": "bench-box"},
 "network": {"retries": 0, "timeout": 5},
 "comment": {"token_env": "BENCHPROF_GITHUB_TOKEN"}}
JSON
}

# the benchmark of the runner operator's jobs: "mybench run" runs a real
# workload and prints its BMF; anything else is not a benchmark
make_mybench() {
  mkdir -p "$TMP/tools"
  {
    echo '#!/bin/sh'
    echo 'if [ "$1" = run ]; then'
    echo "  \"$WORKLOADS/split\" 0.1 >/dev/null"
    echo "  echo '{\"mybench/sort\": {\"latency\": {\"value\": 42}}}'"
    echo '  exit 0'
    echo 'fi'
    echo 'echo "mybench 1.0"'
  } >"$TMP/tools/mybench"
  chmod +x "$TMP/tools/mybench"
}

# hook_shell: how the runner runs a hook (GitHub: bash -e, else sh -e)
hook_shell() {
  if command -v bash >/dev/null 2>&1; then echo "bash -e"; else echo "sh -e"; fi
}

# reports [LOG]: the valid /v0/run requests the stand-in answered 201
reports() {
  python3 - "${1:-$TMP/bencher.log}" <<'PY'
import json, sys
log = [e for e in json.load(open(sys.argv[1])) if e.get("path") == "/v0/run"]
print(len([e for e in log if e.get("status") == 201 and e.get("valid")]))
PY
}

# spool_empty: nothing waits in the spool
spool_empty() {
  [ -z "$(ls -A "$TMP/spool" 2>/dev/null | grep -v '^\.')" ]
}
