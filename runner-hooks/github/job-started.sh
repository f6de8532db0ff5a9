#!/bin/sh
# ACTIONS_RUNNER_HOOK_JOB_STARTED for a self-hosted GitHub Actions runner:
# checks what the machine allows and, when the configuration turns
# profiling on, makes benchprof the wrapper of this job's benchmark steps:
# $GITHUB_PATH puts benchprof-wrap (and the shims of
# $BENCHPROF_WRAP_COMMANDS) first on the PATH of the later steps, and
# $GITHUB_ENV gives them BENCHPROF_OUTPUT, BENCHPROF_HOOKS (and
# BENCHPROF_CONFIG).  No
# configuration file, profiling off, benchprof that cannot be run: the job
# is left as it is.  Exit 0 unless the configuration is invalid and strict
# (the job then fails).
# Install: runner-hooks/github/README.md.
wrap=${BENCHPROF_WRAP:-benchprof-wrap}
# the runner runs this with bash -e: every status is caught
state=0
"$wrap" --enabled || state=$?
case $state in
  1) echo "benchprof: profiling is off on this runner (its configuration does not say \"enabled\": true)"
     exit 0 ;;
  2) echo "::warning::benchprof: the configuration is invalid ('benchprof config check' says why); benchmarks run unprofiled"
     exit 0 ;;
  4) echo "::warning::benchprof: benchprof cannot be run on this runner (see above); benchmarks run unprofiled"
     exit 0 ;;
  3) echo "::error::benchprof: the configuration is invalid and strict mode is on ('benchprof config check' says why)"
     exit 1 ;;
  0) ;;
  *) echo "::warning::benchprof: $wrap failed ($state); benchmarks run unprofiled"
     exit 0 ;;
esac
if ! "$wrap" --check; then
  echo "::warning::benchprof: no perf event can be opened on this runner; benchmarks run unprofiled"
  echo "BENCHPROF_ENABLED=0" >>"$GITHUB_ENV"
  exit 0
fi
# a comparison left by a previous job is not this job's: job-completed
# must not post it (an absolute "output" is shared: this job gets its own
# OUTPUT/job=ID, and other jobs' left for a day are pruned)
"$wrap" --new-job || true
out=$("$wrap" --output)
case $out in
  /*) ;;
  *) out=${GITHUB_WORKSPACE:-$PWD}/$out ;;
esac
# BENCHPROF_HOOKS: benchprof run then says job-completed posts the comment
{
  echo "BENCHPROF_OUTPUT=$out"
  echo "BENCHPROF_HOOKS=github"
  [ -z "${BENCHPROF_CONFIG:-}" ] || echo "BENCHPROF_CONFIG=$BENCHPROF_CONFIG"
} >>"$GITHUB_ENV"
bin=$(dirname "$(command -v "$wrap")")
shims=${BENCHPROF_SHIM_DIR:-${RUNNER_TEMP:-/tmp}/benchprof-shims}
if [ -n "${BENCHPROF_WRAP_COMMANDS:-}" ] && "$wrap" --shims "$shims"; then
  echo "$shims" >>"$GITHUB_PATH"
  echo "benchprof: wrapping $BENCHPROF_WRAP_COMMANDS (shims in $shims)"
fi
# GITHUB_PATH prepends: the last line written comes first
echo "$bin" >>"$GITHUB_PATH"
echo "benchprof: profiling on; 'benchprof-wrap CMD' in a step profiles CMD; artifacts in $out"
