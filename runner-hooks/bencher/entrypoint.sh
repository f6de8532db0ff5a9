#!/bin/sh
# The entrypoint of a benchmark image for Bencher's bare-metal runner:
#
#   entrypoint.sh [--file FILE] [--] CMD [ARGS...]
#
# CMD (the job's command) writes its BMF results to FILE (--file, else
# $BENCHPROF_BENCHER_FILE), the output file the job declares and the
# runner hands back to Bencher.  Under benchprof, FILE is replaced by
# the report of `benchprof run` (the harness's BMF plus one measure per
# counter): only BMF, nothing else.  Profiles go to the store of the
# configuration, never into FILE; benchprof posts no Bencher report (the
# runner's is the one).  Without FILE, CMD prints its BMF on stdout,
# which passes through untouched.  Exits with CMD's status (results
# benchprof cannot read are a warning, unless strict).  Profiling off,
# no configuration file, benchprof that cannot be run, or impossible: CMD
# runs as it is; an invalid configuration or BENCHPROF_RUN_ARGS (more
# options for benchprof run, as benchprof-wrap takes them) too, with a
# warning, unless strict mode is on: then exit 2, CMD not run
# (--each google-benchmark in BENCHPROF_RUN_ARGS needs FILE, which then
# gets its report).  TERM,
# HUP and INT sent to the entrypoint (a cancelled job) reach CMD (INT as
# TERM with FILE); the run is then interrupted, the status CMD's.  A
# SIGKILL of the entrypoint stops CMD too (TERM with FILE).
# Install: runner-hooks/bencher/README.md.
wrap=${BENCHPROF_WRAP:-benchprof-wrap}
bp=${BENCHPROF:-benchprof}
file=${BENCHPROF_BENCHER_FILE:-}
case ${1:-} in
  --file) file=${2:?--file FILE}; shift 2 ;;
esac
[ "${1:-}" != -- ] || shift
[ $# -gt 0 ] || { echo "usage: entrypoint.sh [--file FILE] [--] CMD [ARGS...]" >&2; exit 2; }
# as benchprof-wrap: off runs CMD as it is; an invalid configuration, or
# a benchprof that cannot be run, too (with a warning) unless strict mode
# is on ("strict": true, BENCHPROF_STRICT): then exit 2, CMD not run
"$wrap" --enabled
case $? in
  0) ;;
  1) exec "$@" ;;
  3) echo "benchprof: error: the configuration is not usable and strict mode is on: the command is not run" >&2
     exit 2 ;;
  *) echo "benchprof: warning: running the command unprofiled" >&2
     exec "$@" ;;
esac
"$wrap" --check >&2 || exec "$@"
out=$("$wrap" --output)
# benchprof run then says that a pull request's comment cannot be posted
# from inside the runner, and how the CI after the job posts it
BENCHPROF_HOOKS=bencher
export BENCHPROF_HOOKS
# BENCHPROF_RUN_ARGS: more options for benchprof run, as benchprof-wrap
# takes them; checked first with the entrypoint's own, so that a mistake
# (or one that clashes with --bmf) is named and CMD runs unprofiled, or
# in strict mode not at all (exit 2)
# --each google-benchmark in BENCHPROF_RUN_ARGS reads each invocation's
# results itself and writes one report.json, which then replaces FILE as
# a --bmf harness's report does: the entrypoint adds no --bmf; without
# FILE there is no way to hand that report back (stdout carries Google
# Benchmark's own JSON, not BMF)
case " ${BENCHPROF_RUN_ARGS:-} " in
  *" --each "*|*" --each="*) each=1 ;;
  *) each= ;;
esac
# refused: the entrypoint's own arguments before CMD, dropped to run CMD
# unprofiled
if [ -n "$file" ] && [ -n "$each" ]; then
  set -- -- "$@"
  own=1
elif [ -n "$file" ]; then
  set -- --bmf "$file" -- "$@"
  own=3
else
  set -- --adapter json -- "$@"
  own=3
fi
# say_unprofiled WHAT: why the command cannot be profiled.  Strict mode
# refuses to run it (exit 2); otherwise a warning, and the caller runs the
# command unprofiled (shift "$own"; exec "$@")
say_unprofiled() {
  if "$wrap" --strict; then
    echo "benchprof: error: $1; strict mode: the command is not run" >&2
    exit 2
  fi
  echo "benchprof: warning: $1; running the command unprofiled" >&2
}
if [ -n "$each" ] && [ -z "$file" ]; then
  what="BENCHPROF_RUN_ARGS has --each, which needs --file (or BENCHPROF_BENCHER_FILE): its report reaches Bencher through the job's output file, as stdout carries the harness's own JSON, not BMF"
  say_unprofiled "$what"
  shift "$own"
  exec "$@"
fi
if [ -n "${BENCHPROF_RUN_ARGS:-}" ]; then
  # shellcheck disable=SC2086 # BENCHPROF_RUN_ARGS: options, split on purpose
  bad=$("$bp" run --check-options --no-bencher -o "$out" \
        ${BENCHPROF_RUN_ARGS} "$@" 2>&1 >/dev/null)
  rc=$?
  if [ "$rc" -ne 0 ]; then
    bad=$(printf '%s\n' "$bad" | sed -n 1p | sed 's/^benchprof: error: //')
    # named, never shown: the options may hold a secret
    what="BENCHPROF_RUN_ARGS is not usable by benchprof run (${bad:-exit $rc})"
    say_unprofiled "$what"
    shift "$own"
    exec "$@"
  fi
fi
# --keep-status: benchprof's own failures (results it cannot read, a
# setup that fails before CMD starts) never change CMD's exit status,
# unless strict.  --flush: what could not be published waits in the
# spool; benchprof run tries it once more when the run is done (before
# CMD when a failed setup runs it unprofiled in run's place).
if [ -z "$file" ]; then
  # nothing to do after the run: this PID becomes benchprof run's (exec),
  # so that TERM, INT or HUP sent to the entrypoint (a cancelled job)
  # reach CMD as with plain benchprof run, the run counts as interrupted,
  # and a SIGKILL kills CMD too (PR_SET_PDEATHSIG)
  # shellcheck disable=SC2086
  exec "$bp" run --keep-status --flush --no-bencher -o "$out" \
    ${BENCHPROF_RUN_ARGS:-} "$@"
fi
# With FILE the report replaces the harness's file after the run, so the
# entrypoint cannot exec benchprof run: it runs it in the background and
# passes TERM and HUP on to it (benchprof passes them to CMD), and INT as
# TERM: a background job of a shell starts with SIGINT ignored, which a
# shell script cannot even trap, so an INT passed on as it is would not
# stop CMD.  Then it waits for benchprof run to end.  Its stdin is the
# entrypoint's (fd 3: a background job's would be /dev/null).  A SIGKILL
# (a runner's hard timeout) runs none of this: --die-with-parent has the
# kernel send benchprof run SIGTERM when the entrypoint dies, which it
# passes on to CMD, so that neither runs on alone.
# signature FILE: inode, size and times of FILE, empty when absent
signature() {
  stat -c '%i %s %Y %y %z' "$1" 2>/dev/null || true
}
rm -f "$out/report.json"
before=$(signature "$file")
exec 3<&0
# shellcheck disable=SC2086
"$bp" run --keep-status --flush --no-bencher --die-with-parent $$ \
  -o "$out" ${BENCHPROF_RUN_ARGS:-} "$@" 0<&3 3<&- &
child=$!
exec 3<&-
trap 'kill -TERM "$child" 2>/dev/null' TERM INT
trap 'kill -HUP "$child" 2>/dev/null' HUP
# a trapped signal ends wait early (status above 128): wait again while
# benchprof run is there; a last wait gets a status the shell kept when
# it reaped the child between the two (127: none kept, the one we have)
wait "$child"
status=$?
while kill -0 "$child" 2>/dev/null; do
  wait "$child"
  status=$?
done
wait "$child" 2>/dev/null
last=$?
[ "$last" -eq 127 ] || status=$last
trap - TERM INT HUP
# the merged report replaces the harness's file in one rename; without
# one (benchprof failed) the harness's own BMF stays
if [ -s "$out/report.json" ] &&
   cp "$out/report.json" "$file.benchprof.tmp" &&
   mv -f "$file.benchprof.tmp" "$file"; then
  :
else
  rm -f "$file.benchprof.tmp"
  if [ -e "$file" ] && [ -n "$before" ] &&
     [ "$(signature "$file")" = "$before" ]; then
    echo "benchprof: the harness did not write $file: it holds what was there before the command ran (a previous job's results, not this run's)" >&2
  elif [ -e "$file" ]; then
    echo "benchprof: $file keeps the harness's results (no report)" >&2
  else
    echo "benchprof: the harness wrote no $file: there are no results to hand back" >&2
  fi
fi
exit "$status"
