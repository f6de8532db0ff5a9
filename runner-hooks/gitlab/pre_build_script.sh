# GitLab Runner pre_build_script snippet: SOURCED into the job's shell
# (". .../pre_build_script.sh" in config.toml), so what it exports reaches
# the job's script.  Checks what the machine allows and, when the
# configuration turns profiling on, exports BENCHPROF_OUTPUT and puts
# benchprof-wrap (and the shims of $BENCHPROF_WRAP_COMMANDS) first on
# PATH.  No configuration file, profiling off, benchprof that cannot be
# run: the job is left as it is.  An invalid configuration in strict mode
# ends the job (exit 1).
# Install: runner-hooks/gitlab/README.md.
# shellcheck shell=sh
_bp_wrap=${BENCHPROF_WRAP:-benchprof-wrap}
_bp_state=0
"$_bp_wrap" --enabled || _bp_state=$?
case $_bp_state in
  0)
    if "$_bp_wrap" --check; then
      # a previous job's comparison is not this job's to post; an
      # absolute "output" is shared (concurrent jobs): this job's is its
      # OUTPUT/job=ID, where no other job's hooks look
      "$_bp_wrap" --new-job || :
      _bp_out=$("$_bp_wrap" --output)
      case $_bp_out in
        /*) ;;
        *) _bp_out=${CI_PROJECT_DIR:-$PWD}/$_bp_out ;;
      esac
      BENCHPROF_OUTPUT=$_bp_out
      export BENCHPROF_OUTPUT
      # benchprof run then says post_build_script posts the comment
      BENCHPROF_HOOKS=gitlab
      export BENCHPROF_HOOKS
      PATH=$(dirname "$(command -v "$_bp_wrap")"):$PATH
      # one shim directory per job, removed by post_build_script; one a
      # failed or cancelled job left is removed here once its job's
      # shell ($$, written to its .job) is gone.  An operator's own
      # BENCHPROF_SHIM_DIR is left to the operator.
      _bp_shims=${BENCHPROF_SHIM_DIR:-${CI_BUILDS_DIR:-/tmp}/benchprof-shims-${CI_JOB_ID:-0}}
      [ -n "${BENCHPROF_SHIM_DIR:-}" ] ||
        "$_bp_wrap" --prune-shims "${_bp_shims%/*}" "$_bp_shims" || :
      if [ -n "${BENCHPROF_WRAP_COMMANDS:-}" ] &&
         "$_bp_wrap" --shims "$_bp_shims"; then
        [ -n "${BENCHPROF_SHIM_DIR:-}" ] ||
          echo "$$ $(uname -n)" >"$_bp_shims/.job" || :
        PATH=$_bp_shims:$PATH
        echo "benchprof: wrapping $BENCHPROF_WRAP_COMMANDS"
      fi
      export PATH
      echo "benchprof: profiling on; 'benchprof-wrap CMD' profiles CMD; artifacts in $BENCHPROF_OUTPUT"
    else
      BENCHPROF_ENABLED=0
      export BENCHPROF_ENABLED
      echo "benchprof: warning: no perf event can be opened here; benchmarks run unprofiled"
    fi ;;
  1) echo "benchprof: profiling is off on this runner (its configuration does not say \"enabled\": true)" ;;
  2) echo "benchprof: warning: the configuration is invalid ('benchprof config check' says why); benchmarks run unprofiled" ;;
  4) echo "benchprof: warning: benchprof cannot be run on this runner (see above); benchmarks run unprofiled" ;;
  3) echo "benchprof: error: the configuration is invalid and strict mode is on ('benchprof config check' says why)"
     exit 1 ;;
  *) echo "benchprof: warning: $_bp_wrap failed ($_bp_state); benchmarks run unprofiled" ;;
esac
unset _bp_wrap _bp_state _bp_out _bp_shims
