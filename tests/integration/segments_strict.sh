#!/bin/sh
# The public hooks header from strict C11 and from C++: the benchmark's
# own directory of artifacts appears, dominated by its hot function.
. "$top_srcdir/tests/lib.sh"

for prog in hooks_strict hooks_strict_cxx; do
  "$BENCHPROF" record -q -o "$TMP/$prog" -- "$WORKLOADS/$prog" \
    >/dev/null 2>"$TMP/$prog.err"
  check "$prog exits 0" [ $? -eq 0 ]
  check "$prog: the benchmark 'strict' got its own profile" \
    [ -s "$TMP/$prog/strict/profile.folded" ]
  check "$prog: its profile is its hot function" python3 - \
    "$TMP/$prog/strict/profile.folded" <<'PY'
import sys
total = hot = 0
for line in open(sys.argv[1]):
    stack, n = line.rsplit(" ", 1)
    total += int(n)
    hot += int(n) if "strict_hot" in stack else 0
assert total > 0 and hot >= 0.8 * total, (hot, total)
PY
done
finish
