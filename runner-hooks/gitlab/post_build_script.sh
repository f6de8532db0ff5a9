#!/bin/sh
# GitLab Runner post_build_script: sends what is waiting in the spool
# (benchprof flush) and, in a merge request pipeline, posts or updates
# each note a `benchprof run` of this job wrote for this merge request and
# commit (<output>/compare/comment.md, and each suite's
# <output>/suite=NAME/compare/comment.md).  Exit 0 unless strict (the
# configuration's "strict": true, or BENCHPROF_STRICT) and something could
# not be delivered: a publication left in the spool, or a note that
# could not be posted.
# Install: runner-hooks/gitlab/README.md.
wrap=${BENCHPROF_WRAP:-benchprof-wrap}
bp=${BENCHPROF:-benchprof}
# the job's shims (pre_build_script's) are not needed after its script;
# a failed job's are removed by a later job's pre_build_script
if [ -z "${BENCHPROF_SHIM_DIR:-}" ] && [ -n "${CI_JOB_ID:-}" ]; then
  "$wrap" --remove-shims "${CI_BUILDS_DIR:-/tmp}/benchprof-shims-$CI_JOB_ID" || :
fi
"$wrap" --enabled || exit 0
status=0
if ! "$bp" flush; then
  echo "benchprof: warning: some publications are still in the spool; the next job sends them"
  # strict as benchprof reads it: the configuration's "strict": true, or
  # BENCHPROF_STRICT
  if "$wrap" --strict; then status=1; fi
fi
# a note only when a run of this job wrote it for this merge request and
# commit (in this job's own OUTPUT/job=ID when "output" is absolute)
if [ -z "${CI_MERGE_REQUEST_IID:-}" ]; then
  echo "benchprof: not a merge request pipeline: no comment"
elif mds=$("$wrap" --job-comment); then
  # one a line: the step's without a suite and each suite's (its own
  # marker and status); one that fails never stops the others, and
  # fails the job in strict mode as an undelivered publication does (the
  # loop is a subshell: its exit status says whether one failed)
  # outside strict mode the job goes on without a note that could not
  # be posted: benchprof comment then says why as a warning, not an error
  severity=--warn-on-failure
  if "$wrap" --strict; then severity=; fi
  if ! printf '%s\n' "$mds" | (
    unposted=0
    while IFS= read -r md; do
      "$bp" comment --ci ${severity:+"$severity"} --markdown "$md" \
        </dev/null && continue
      echo "benchprof: warning: the note could not be posted; it is in $md"
      unposted=1
    done
    exit "$unposted"
  ); then
    if "$wrap" --strict; then status=1; fi
  fi
else
  printf '%s\n' "$mds" | sed 's/^/benchprof: no comment: /'
fi
exit "$status"
