#!/bin/sh
# The fuzz targets (tests/hardening.mk) in make check: each replays its
# seed corpus and every input kept under tests/fuzz/regressions/NAME/
# (crashes found earlier, fixed since), then fuzzes briefly from a scratch
# copy of the corpus.  A crash, leak or sanitizer report fails the test and
# the input is left in the log's folder as crash-*/leak-*.
. "$top_srcdir/tests/lib.sh"

seconds=${FUZZ_SMOKE_SECONDS:-1}
fuzzdir=$top_builddir/tests/fuzz
srcfuzz=$top_srcdir/tests/fuzz
# every target in the source tree, so one without a build rule fails here
names=$(cd "$srcfuzz" && ls fuzz_*.c | sed 's/^fuzz_//; s/\.c$//')

for n in $names; do
  bin=$fuzzdir/fuzz_$n
  if [ ! -x "$bin" ]; then
    fail "fuzz_$n was not built: the fuzz targets need clang with libFuzzer" \
      "(scripts/setup-debian.sh --test installs it)"
    continue
  fi
  inputs=$(find "$srcfuzz/corpus/$n" "$srcfuzz/regressions/$n" -type f \
    2>/dev/null | sort)
  count=$(echo "$inputs" | grep -c .)
  check "fuzz_$n has a seed corpus" [ "$count" -gt 0 ]
  # shellcheck disable=SC2086 # one argument per input file
  if (cd "$TMP" && "$bin" -runs=1 $inputs) >"$TMP/$n.replay" 2>&1 &&
     grep -q "Executed .* in" "$TMP/$n.replay"; then
    pass "fuzz_$n replays its $count corpus and regression inputs"
  else
    fail "fuzz_$n crashes on a kept input"
    tail -n 40 "$TMP/$n.replay" >&2
  fi
  mkdir -p "$TMP/$n.corpus"
  cp "$srcfuzz/corpus/$n"/* "$TMP/$n.corpus/"
  if (cd "$TMP" && "$bin" -max_total_time="$seconds" -timeout=10 \
       -max_len=65536 "$TMP/$n.corpus") >"$TMP/$n.fuzz" 2>&1; then
    pass "fuzz_$n: ${seconds}s of fuzzing find nothing"
  else
    fail "fuzz_$n: ${seconds}s of fuzzing found a crash"
    tail -n 60 "$TMP/$n.fuzz" >&2
    cp "$TMP"/crash-* "$TMP"/leak-* "$TMP"/timeout-* . 2>/dev/null
  fi
done
finish
