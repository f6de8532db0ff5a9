#!/bin/sh
# A comparator called by libc's qsort (libc has no frame pointers, only
# .eh_frame): its samples unwind through libc back to sort_all and main.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"
. "$top_srcdir/tests/unwind_lib.sh"

need_workload unwind_qsort

record qsort -q --call-graph dwarf -- "$WORKLOADS/unwind_qsort" 0.5
expect_status qsort 0
validate qsort

pycheck "slow_cmp's samples go through libc's qsort to sort_all and main" <<'PY'
import os
import artifacts as A
d = os.path.join(os.environ["TMP"], "qsort")
stacks = A.folded_stacks(os.path.join(d, "profile.folded"))
cmp = [s for s in stacks if s.frames[-1:] == ["slow_cmp"]]
n = A.total_count(cmp)
def through_libc(fr):
    if "main" not in fr or "sort_all" not in fr:
        return False
    i = fr.index("sort_all")
    between = fr[i + 1:-1]
    return bool(between) and all(
        "sort" in f or f.startswith("qsort") for f in between)
ok = sum(s.count for s in cmp if through_libc(s.frames))
print("  slow_cmp: %d samples, %d (%.1f%%) via libc's qsort to main"
      % (n, ok, 100.0 * ok / max(n, 1)))
assert n >= 50, "too few slow_cmp samples: %d" % n
assert ok >= 0.9 * n, [s for s in cmp if not through_libc(s.frames)][:3]
PY

finish
