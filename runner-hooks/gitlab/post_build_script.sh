#!/bin/sh
# GitLab Runner post_build_script: sends what is waiting in the spool
# (benchprof flush) and, in a merge request pipeline, posts or updates the
# note `benchprof run` wrote (<output>/compare/comment.md).  Exit 0 unless
# strict (BENCHPROF_STRICT) and something could not be delivered.
# Install: runner-hooks/gitlab/README.md.
wrap=${BENCHPROF_WRAP:-benchprof-wrap}
bp=${BENCHPROF:-benchprof}
"$wrap" --enabled || exit 0
status=0
if ! "$bp" flush; then
  echo "benchprof: warning: some publications are still in the spool; the next job sends them"
  case ${BENCHPROF_STRICT:-} in 1|true|yes|on) status=1 ;; esac
fi
out=$("$wrap" --output)
case $out in
  /*) ;;
  *) out=${CI_PROJECT_DIR:-$PWD}/$out ;;
esac
md=$out/compare/comment.md
if [ -z "${CI_MERGE_REQUEST_IID:-}" ]; then
  echo "benchprof: not a merge request pipeline: no comment"
elif [ -f "$md" ]; then
  "$bp" comment --ci --markdown "$md" ||
    echo "benchprof: warning: the note could not be posted; it is in $md"
else
  echo "benchprof: no comment: $md was not written (no benchmark ran under benchprof in this job)"
fi
exit "$status"
