# Shared helpers for the integration scripts; sourced, not run.
# Environment (set by make check): BENCHPROF, top_srcdir, top_builddir,
# WORKLOADS.
set -u
: "${BENCHPROF:?run through make check}"
TEST_NAME=$(basename "$0" .sh)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/bp-$TEST_NAME.XXXXXX")
XDG_DATA_HOME=$TMP/xdg-data XDG_STATE_HOME=$TMP/xdg-state; export XDG_DATA_HOME XDG_STATE_HOME
trap 'rm -rf "$TMP"' EXIT
FAILS=0

fail() {
  echo "FAIL: $*" >&2
  FAILS=$((FAILS + 1))
}

pass() {
  echo "ok: $*"
}

# check DESCRIPTION COMMAND...: runs COMMAND, fails the test when it fails
check() {
  desc=$1
  shift
  if "$@"; then pass "$desc"; else fail "$desc"; fi
}

finish() {
  if [ "$FAILS" -ne 0 ]; then
    echo "$FAILS check(s) failed in $TEST_NAME" >&2
    exit 1
  fi
  exit 0
}
