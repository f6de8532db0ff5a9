#!/bin/sh
# LeakSanitizer over `benchprof record` of the multi-threaded workload
# (DWARF stack copies spooled and unwound, counters, every exporter).  In
# the sanitizer build (configure --enable-sanitizers) LSan is part of ASan;
# in a plain build liblsan is preloaded into benchprof (it needs no
# instrumentation), so both builds run this check.  First a program that
# leaks on purpose proves LSan is really watching; then benchprof must
# exit 0 with no leak report.
. "$top_srcdir/tests/lib.sh"

cat >"$TMP/leaker.c" <<'C'
#include <stdlib.h>
void *volatile keep;
int main(void)
{
  keep = malloc(123);
  keep = 0;   /* the only pointer is gone: a leak */
  return 0;
}
C
# $CC is unquoted: it may carry flags
# shellcheck disable=SC2086
if ldd "$BENCHPROF" | grep -q libasan; then
  mode="ASan's LeakSanitizer"
  check "build the leaker with ASan" $CC -g -fsanitize=address \
    -o "$TMP/leaker" "$TMP/leaker.c"
  preload=
else
  mode="liblsan, preloaded"
  preload=$($CC -print-file-name=liblsan.so)
  check "liblsan is installed ($preload)" [ -f "$preload" ]
  check "build the leaker" $CC -g -o "$TMP/leaker" "$TMP/leaker.c"
fi
echo "leak checks by $mode"
ASAN_OPTIONS=detect_leaks=1:exitcode=23
LSAN_OPTIONS=exitcode=23
export ASAN_OPTIONS LSAN_OPTIONS

env ${preload:+LD_PRELOAD=$preload} "$TMP/leaker" 2>"$TMP/leaker.err"
rc=$?
check "LSan is active: the deliberate leak is reported (exit $rc)" \
  [ "$rc" -eq 23 ]
check "LSan is active: its report names the leak" \
  grep -q "LeakSanitizer: detected memory leaks" "$TMP/leaker.err"

# the command itself is not ours to check: env drops the preload for it;
# verbosity=2 makes LSan say when it stops benchprof's threads to scan
ASAN_OPTIONS=$ASAN_OPTIONS:verbosity=2 LSAN_OPTIONS=$LSAN_OPTIONS:verbosity=2 \
env ${preload:+LD_PRELOAD=$preload} "$BENCHPROF" record -q -o "$TMP/out" -- \
  env -u LD_PRELOAD "$WORKLOADS/threads" 0.2 >/dev/null 2>"$TMP/record.err"
rc=$?
check "record exits 0 under LSan (got $rc)" [ "$rc" -eq 0 ]
if grep -q "LeakSanitizer" "$TMP/record.err"; then
  fail "record leaks:"
  cat "$TMP/record.err" >&2
else
  pass "record reports no leak"
fi
check "LSan did scan benchprof as it exited" \
  grep -q "Attached to thread" "$TMP/record.err"
check "and wrote its artifacts" [ -s "$TMP/out/summary.json" ]
finish
