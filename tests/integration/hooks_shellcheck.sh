#!/bin/sh
# Every runner hook script is POSIX sh that passes shellcheck (installed by
# scripts/setup-debian.sh --test), and so are the scripts' shims as
# benchprof-wrap writes them.
. "$top_srcdir/tests/lib.sh"

command -v shellcheck >/dev/null 2>&1 || {
  echo "FAIL: shellcheck is not installed (scripts/setup-debian.sh --test)"
  exit 1
}
H="$top_srcdir/runner-hooks"
for f in "$H/benchprof-wrap" "$H/github/job-started.sh" \
  "$H/github/job-completed.sh" "$H/gitlab/pre_build_script.sh" \
  "$H/gitlab/post_build_script.sh" "$H/bencher/entrypoint.sh"; do
  check "shellcheck -s sh $(basename "$(dirname "$f")")/$(basename "$f")" \
    shellcheck -s sh "$f"
done
BENCHPROF_WRAP_COMMANDS="cargo:bench make" "$H/benchprof-wrap" --shims \
  "$TMP/shims"
check "a shim per entry" [ -x "$TMP/shims/cargo" -a -x "$TMP/shims/make" ]
check "shellcheck of the shims" shellcheck -s sh "$TMP/shims/cargo" \
  "$TMP/shims/make"
check "the executables are executable" sh -c "[ -x '$H/benchprof-wrap' ] &&
  [ -x '$H/github/job-started.sh' ] && [ -x '$H/bencher/entrypoint.sh' ]"
finish
