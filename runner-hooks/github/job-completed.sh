#!/bin/sh
# ACTIONS_RUNNER_HOOK_JOB_COMPLETED for a self-hosted GitHub Actions
# runner: sends what is waiting in the spool (benchprof flush) and, on a
# pull request, posts or updates the comment a `benchprof run` of this job
# wrote (<output>/compare/comment.md) for this pull request and commit.
# Never fails the job, unless strict (the configuration's "strict": true,
# or BENCHPROF_STRICT) and something could not be delivered.
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
# finds the output directory again by the same rule, and gives the comment
# only when a run of this job wrote it for this pull request and commit
# (an absolute "output" keeps the last job's)
if ! "$bp" ci --json 2>/dev/null | grep -q '"pr": "'; then
  echo "benchprof: not a pull request: no comment"
elif md=$("$wrap" --job-comment); then
  "$bp" comment --ci --markdown "$md" ||
    echo "::warning::benchprof: the comment could not be posted; it is in $md"
else
  echo "benchprof: no comment: $md"
fi
exit "$status"
