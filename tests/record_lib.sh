# Helpers for the integration scripts that profile a workload or read
# artifacts; sourced after lib.sh.  A tool a test needs and cannot find
# fails the test.

PYTHONPATH="$top_srcdir/tests${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH
# no __pycache__ in the source tree
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE
# profiler-cli keeps its daemons' sockets here; they are stopped at exit
PROFILER_CLI_SESSION_DIR="$TMP/profiler-cli"
export PROFILER_CLI_SESSION_DIR
# go tool pprof keeps nothing outside the test's directory
PPROF_TMPDIR="$TMP"
export PPROF_TMPDIR

bp_stop_profiler_cli() {
  if [ -d "$PROFILER_CLI_SESSION_DIR" ]; then
    profiler-cli stop --all >/dev/null 2>&1
  fi
}
at_exit bp_stop_profiler_cli

# need TOOL HINT: fail now, with the way to install it, when TOOL is missing
need() {
  if ! command -v "$1" >/dev/null 2>&1; then
    fail "$1 not found in PATH ($2)"
    finish
  fi
}

# need_workload NAME...: fails the test now when a workload was not built
need_workload() {
  for w in "$@"; do
    if [ ! -x "$WORKLOADS/$w" ]; then
      fail "workload $WORKLOADS/$w was not built"
      finish
    fi
  done
}

# record NAME [OPTIONS...] -- CMD...: runs benchprof record -o $TMP/NAME,
# stdout to $TMP/NAME.out, stderr to $TMP/NAME.err, exit status in $status
record() {
  name=$1
  shift
  "$BENCHPROF" record -o "$TMP/$name" "$@" >"$TMP/$name.out" \
    2>"$TMP/$name.err"
  status=$?
}

# expect_status NAME WANT: checks $status, showing benchprof's stderr when
# it is not the expected one
expect_status() {
  if [ "$status" -eq "$2" ]; then
    pass "$1: exit status $2"
  else
    fail "$1: exit status $status, expected $2"
    sed 's/^/  stderr: /' "$TMP/$1.err" >&2
  fi
}

# pycheck DESCRIPTION [ARGS...] <<'EOF' ... EOF: runs the Python program on
# stdin (tests/artifacts.py importable, TMP in the environment); an
# exception or a non-zero exit fails the check and shows why
pycheck() {
  desc=$1
  shift
  if TMP="$TMP" python3 - "$@"; then pass "$desc"; else fail "$desc"; fi
}

# validate NAME: every artifact in $TMP/NAME exists, parses, passes its
# format's checks, and all describe the same samples
validate() {
  check "$1: artifacts are well formed and agree" \
    python3 "$top_srcdir/tests/artifacts.py" validate "$TMP/$1"
}

# pmu_present: true when the kernel has a hardware PMU for user code
pmu_present() {
  for d in /sys/bus/event_source/devices/cpu \
      /sys/bus/event_source/devices/cpu_core \
      /sys/bus/event_source/devices/cpu_atom \
      /sys/bus/event_source/devices/armv8_pmuv3*; do
    [ -e "$d" ] && return 0
  done
  return 1
}
