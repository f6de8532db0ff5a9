#!/bin/sh
# Whatever goes wrong with benchprof, its configuration or its
# environment, a wrapped benchmark still runs: its stdin, stdout, stderr
# and exit status are its own, and benchprof's trouble is a warning.
# - benchprof's own setup fails before the command starts (an output
#   directory that cannot be made, no control FIFO, an event that cannot
#   be opened; plain, --repeat, --each): `benchprof run --keep-status`,
#   and so benchprof-wrap, runs the command unprofiled (strict: exit 1,
#   the command not run); the errno is said once.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"
. "$top_srcdir/tests/hooks_lib.sh"

standin bencher
make_harness
runner_config "$TMP/on.json"
runner_config "$TMP/off.json" false
BENCHER_API_TOKEN=$TOKEN
export BENCHER_API_TOKEN
mkdir -p "$TMP/tools" "$TMP/job"
cd "$TMP/job" || exit 1

# the benchmark: reads a line of stdin, writes both streams, exits $1
cat >"$TMP/tools/bench" <<'SH'
#!/bin/sh
read -r line || line=none
echo "bench out: $line"
echo "bench err: $line" >&2
exit "${1:-0}"
SH
chmod +x "$TMP/tools/bench"
printf 'from stdin\n' | "$TMP/tools/bench" 3 >"$TMP/direct.out" \
  2>"$TMP/direct.err"

# wrapped NAME ARGS...: printf 'from stdin' | benchprof-wrap bench ARGS...
# into $TMP/NAME.out and .err, its status in $status
wrapped() {
  name=$1
  shift
  printf 'from stdin\n' | benchprof-wrap "$TMP/tools/bench" "$@" \
    >"$TMP/$name.out" 2>"$TMP/$name.err"
  status=$?
}

# own NAME: the command ran as it would alone: status 3, the same stdout,
# the same stderr once benchprof's own lines are left out
own() {
  [ "$status" -eq 3 ] && cmp -s "$TMP/direct.out" "$TMP/$1.out" &&
    grep -v '^benchprof' "$TMP/$1.err" | cmp -s "$TMP/direct.err" -
}

# unprofiled NAME WHAT: the command ran as its own, with a warning (no
# error) from benchprof, and nothing was profiled into the job's
# default output directory
unprofiled() {
  check "$2: the command's stdin, stdout, stderr and status (3)" own "$1"
  check "$2: a warning says it runs unprofiled" \
    grep -q "^benchprof.*warning: .*unprofiled" "$TMP/$1.err"
  check "$2: no error" sh -c "! grep -q '^benchprof[^:]*: error' \
'$TMP/$1.err'"
  check "$2: nothing profiled" [ ! -e "$TMP/job/benchprof-out/profile.folded" ]
}

# ---- 1. benchprof's own setup fails before the command starts
BENCHPROF_CONFIG="$TMP/on.json"
export BENCHPROF_CONFIG
: >"$TMP/afile"
BENCHPROF_OUTPUT="$TMP/afile/out" wrapped outdir 3
unprofiled outdir "output directory under a file"
check "output directory: named, its errno said once" sh -c \
  "grep -q 'afile/out.*Not a directory' '$TMP/outdir.err' &&
   ! grep -q 'Not a directory: Not a directory' '$TMP/outdir.err'"
BENCHPROF_OUTPUT=/proc/benchprof-out wrapped proc 3
unprofiled proc "output directory that cannot be made"
check "output directory: the reason" grep -q "benchprof-out" "$TMP/proc.err"
BENCHPROF_OUTPUT="$TMP/afile/out" BENCHPROF_RUN_ARGS="--repeat 2" \
  wrapped repeat 3
unprofiled repeat "--repeat 2, output directory under a file"
BENCHPROF_OUTPUT="$TMP/afile/out" \
  BENCHPROF_RUN_ARGS="--each google-benchmark" wrapped each 3
unprofiled each "--each, output directory under a file"
TMPDIR="$TMP/none" XDG_RUNTIME_DIR="$TMP/none" wrapped fifo 3
unprofiled fifo "no control FIFO"
check "no control FIFO: the reason" grep -q "FIFO" "$TMP/fifo.err"
BENCHPROF_RUN_ARGS="-e no-such-event" wrapped event 3
unprofiled event "an event that cannot be opened"
check "event: the reason" grep -q "no-such-event" "$TMP/event.err"
# benchprof run itself, as benchprof-wrap runs it
printf 'from stdin\n' | "$BENCHPROF" run --keep-status --no-publish \
  -o "$TMP/afile/out" -- "$TMP/tools/bench" 3 >"$TMP/run.out" \
  2>"$TMP/run.err"
status=$?
unprofiled run "benchprof run --keep-status"
# strict: benchprof's failure is fatal, as documented
BENCHPROF_STRICT=1 BENCHPROF_OUTPUT="$TMP/afile/out" wrapped strict 3
check "strict: exit 1, the command not run" sh -c \
  "[ $status -eq 1 ] && [ ! -s '$TMP/strict.out' ]"
# without --keep-status (a person's benchprof run): as before
"$BENCHPROF" run --no-publish -o "$TMP/afile/out" -- "$TMP/tools/bench" 3 \
  </dev/null >"$TMP/plain.out" 2>"$TMP/plain.err"
status=$?
check "without --keep-status: exit 1, the command not run" sh -c \
  "[ $status -eq 1 ] && [ ! -s '$TMP/plain.out' ]"
unset BENCHPROF_CONFIG

finish
