#!/usr/bin/env bash
# Set up a Debian 12 machine and run the whole test suite:
#   1. install build and test dependencies (scripts/setup-debian.sh --test)
#   2. build with -Werror in build/ and run `make check`
#   3. build with ASan+UBSan in build-asan/ and run `make check` again
#   4. `make distcheck` (optional: CHECK_DISTCHECK=1): the tarball builds,
#      installs and passes a test of each part (the full suite already ran
#      twice above)
# Ends with the line "N passed, N failed" (tests of all builds together).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1

bash scripts/setup-debian.sh --test || { echo "setup failed"; exit 1; }
autoreconf -fi >/dev/null || { echo "autoreconf failed"; exit 1; }

jobs=$(nproc 2>/dev/null || echo 2)
passed=0
failed=0

# count_results DIR: add the automake harness' totals of DIR to ours
count_results() {
  local log=$1/test-suite.log p f e x
  if [ ! -f "$log" ]; then
    failed=$((failed + 1))
    return
  fi
  p=$(sed -n 's/^# PASS: *\([0-9]*\)$/\1/p' "$log")
  f=$(sed -n 's/^# FAIL: *\([0-9]*\)$/\1/p' "$log")
  e=$(sed -n 's/^# ERROR: *\([0-9]*\)$/\1/p' "$log")
  x=$(sed -n 's/^# XPASS: *\([0-9]*\)$/\1/p' "$log")
  passed=$((passed + ${p:-0}))
  failed=$((failed + ${f:-0} + ${e:-0} + ${x:-0}))
}

# run_suite DIR CONFIGURE-ARGS...: configure, build and check in DIR
run_suite() {
  local dir=$1
  shift
  rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || return 1
  if ! "$top/configure" -q "$@" || ! make -j"$jobs" >build.log 2>&1; then
    tail -n 40 build.log 2>/dev/null
    echo "build in $dir failed"
    failed=$((failed + 1))
    cd "$top" || exit 1
    return 1
  fi
  make -j"$jobs" check
  count_results "$dir"
  [ -f test-suite.log ] && grep -q '^# FAIL: *[1-9]' test-suite.log &&
    cat test-suite.log
  cd "$top" || exit 1
}

run_suite "$top/build" --enable-werror
run_suite "$top/build-asan" --enable-werror --enable-sanitizers

if [ "${CHECK_DISTCHECK:-0}" = 1 ]; then
  dist_tests="tests/checksrc.sh tests/unit/test_core tests/unit/test_store \
tests/unit/test_config tests/integration/run_report.sh \
tests/integration/publish_store.sh tests/integration/compare_e2e.sh \
tests/integration/config_check.sh tests/integration/hooks_shellcheck.sh \
tests/integration/serve_http.sh"
  if (cd "$top/build" &&
      make -j"$jobs" distcheck TESTS="$dist_tests" >distcheck.log 2>&1); then
    passed=$((passed + 1))
  else
    tail -n 40 "$top/build/distcheck.log"
    failed=$((failed + 1))
  fi
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
