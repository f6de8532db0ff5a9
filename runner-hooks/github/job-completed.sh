#!/bin/sh
# ACTIONS_RUNNER_HOOK_JOB_COMPLETED for a self-hosted GitHub Actions
# runner: sends what is waiting in the spool (benchprof flush) and, on a
# pull request, posts or updates each comment a `benchprof run` of this
# job wrote for this pull request and commit (<output>/compare/comment.md,
# and each suite's <output>/suite=NAME/compare/comment.md).
# Never fails the job, unless strict (the configuration's "strict": true,
# or BENCHPROF_STRICT) and something could not be delivered: a publication
# left in the spool, or a comment that could not be posted.
# Install: runner-hooks/github/README.md.
wrap=${BENCHPROF_WRAP:-benchprof-wrap}
bp=${BENCHPROF:-benchprof}
"$wrap" --enabled || exit 0
status=0
if ! "$bp" flush; then
  echo "::warning::benchprof: some publications are still in the spool; the next job's hook sends them"
  # strict as benchprof reads it: the configuration's "strict": true, or
  # BENCHPROF_STRICT
  if "$wrap" --strict; then status=1; fi
fi
# this hook does not see what job-started put in $GITHUB_ENV: benchprof-wrap
# finds the output directory again by the same rule (an absolute "output"
# is shared: this job's is its OUTPUT/job=ID), and gives a comment only
# when a run of this job wrote it for this pull request and commit
if ! "$bp" ci --json 2>/dev/null | grep -q '"pr": "'; then
  echo "benchprof: not a pull request: no comment"
elif mds=$("$wrap" --job-comment); then
  # one a line: the step's without a suite and each suite's (its own
  # marker and status); one that fails never stops the others, and
  # fails the job in strict mode as an undelivered publication does (the
  # loop is a subshell: its exit status says whether one failed)
  # outside strict mode the job goes on without a comment that could not
  # be posted: benchprof comment then says why as a warning, not an error
  severity=--warn-on-failure
  if "$wrap" --strict; then severity=; fi
  if ! printf '%s\n' "$mds" | (
    unposted=0
    while IFS= read -r md; do
      "$bp" comment --ci ${severity:+"$severity"} --markdown "$md" \
        </dev/null && continue
      echo "::warning::benchprof: the comment could not be posted; it is in $md"
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
