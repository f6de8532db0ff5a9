#!/bin/sh
# The completed hooks (GitHub's job-completed.sh, GitLab's
# post_build_script.sh) take strict mode from the configuration as
# benchprof does: "strict": true in the file fails the hook when the
# spool cannot be delivered, exactly as BENCHPROF_STRICT=1 does; without
# strict the hook exits 0 (a warning), and BENCHPROF_STRICT=0 turns the
# file's strict off.  The publication waits in the spool because its
# store (an http one on 127.0.0.1) refuses connections.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"
. "$top_srcdir/tests/hooks_lib.sh"

outside_ci
cd "$TMP" || exit 1
# a port nothing listens on: bound and closed again
DEAD=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
# config FILE STRICT: profiling on, the dead store, the test's spool
config() {
  cat >"$1" <<JSON
{"enabled": true, "strict": $2, "spool": "$TMP/spool",
 "store": {"url": "http://127.0.0.1:$DEAD/store"},
 "bencher": {"project": "widget", "testbed": "bench-box"},
 "network": {"retries": 0, "timeout": 5, "connect_timeout": 2}}
JSON
}
config "$TMP/lenient.json" false
config "$TMP/strict.json" true

# a publication that cannot be delivered, left in the spool
BENCHPROF_CONFIG="$TMP/lenient.json" "$BENCHPROF" run -q -o "$TMP/out" \
  --branch main --hash "$HEAD_SHA" -- true >/dev/null 2>"$TMP/run.err"
check "the run left a publication in the spool" sh -c \
  "[ -n \"\$(ls -A '$TMP/spool' 2>/dev/null)\" ]"

# completed NAME HOOK CONFIG [VAR=VALUE]: the hook's exit status in $st
completed() {
  name=$1 hook=$2 cfg=$3
  shift 3
  env BENCHPROF_CONFIG="$cfg" "$@" $SH "$HOOKS/$hook" >"$TMP/$name.out" \
    2>&1
  st=$?
}

for hook in github/job-completed.sh gitlab/post_build_script.sh; do
  n=${hook%%/*}
  completed "$n-lenient" "$hook" "$TMP/lenient.json"
  check "$n: not strict, nothing delivered: exit 0 ($st)" [ "$st" -eq 0 ]
  check "$n: not strict: says the spool still holds it" grep -q \
    "still in the spool" "$TMP/$n-lenient.out"
  completed "$n-strict" "$hook" "$TMP/strict.json"
  check "$n: \"strict\": true, nothing delivered: exit 1 ($st)" \
    [ "$st" -eq 1 ]
  completed "$n-env" "$hook" "$TMP/lenient.json" BENCHPROF_STRICT=1
  check "$n: BENCHPROF_STRICT=1, nothing delivered: exit 1 ($st)" \
    [ "$st" -eq 1 ]
  completed "$n-env0" "$hook" "$TMP/strict.json" BENCHPROF_STRICT=0
  check "$n: BENCHPROF_STRICT=0 over the file: exit 0 ($st)" [ "$st" -eq 0 ]
done

# benchprof-wrap --strict, which the hooks ask
BENCHPROF_CONFIG="$TMP/strict.json" benchprof-wrap --strict
check "benchprof-wrap --strict: the file's strict" [ $? -eq 0 ]
BENCHPROF_CONFIG="$TMP/lenient.json" benchprof-wrap --strict
check "benchprof-wrap --strict: not strict" [ $? -eq 1 ]
BENCHPROF_STRICT=1 BENCHPROF_CONFIG="$TMP/lenient.json" benchprof-wrap \
  --strict
check "benchprof-wrap --strict: BENCHPROF_STRICT=1" [ $? -eq 0 ]
BENCHPROF_STRICT=1 BENCHPROF_CONFIG="$TMP/none.json" benchprof-wrap --strict
check "benchprof-wrap --strict: BENCHPROF_STRICT=1 without a config file" \
  [ $? -eq 0 ]
BENCHPROF_CONFIG="$TMP/none.json" benchprof-wrap --strict
check "benchprof-wrap --strict: no config file, no BENCHPROF_STRICT" \
  [ $? -eq 1 ]

finish
