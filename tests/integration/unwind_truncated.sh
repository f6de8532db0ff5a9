#!/bin/sh
# A recursion deeper than the stack copy: 200 frames of recurse_down with
# 256-byte locals under --call-graph dwarf,1024.  The samples are counted as
# truncated and their stacks simply end: nothing but recurse_down frames
# above recurse_bottom (no made-up callers).  With a 65528-byte copy the
# same stacks reach main.  Bad stack sizes are usage errors.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"
. "$top_srcdir/tests/unwind_lib.sh"

need_workload unwind_recurse

record small -q --call-graph dwarf,1024 -- "$WORKLOADS/unwind_recurse" 0.5 200
expect_status small 0
validate small
trunc=$(summary_field "$TMP/small" unwind_truncated)
unwound=$(summary_field "$TMP/small" unwind_samples)
echo "  dwarf,1024: $trunc of $unwound stacks truncated"
check "summary.json counts truncated stacks" at_least "$trunc" 1
check "summary.json says 1024 bytes were copied" \
  test "$(summary_field "$TMP/small" stack_bytes)" = 1024

pycheck "truncated stacks end at the copy, with no made-up frames" <<'PY'
import os
import artifacts as A
d = os.path.join(os.environ["TMP"], "small")
stacks = A.folded_stacks(os.path.join(d, "profile.folded"))
bottom = [s for s in stacks if s.frames[-1:] == ["recurse_bottom"]]
n = A.total_count(bottom)
bad = [s for s in bottom
       if any(f != "recurse_down" for f in s.frames[:-1])
       or len(s.frames) > 1024 // 256 + 2]
print("  recurse_bottom: %d samples, %d stacks with other frames"
      % (n, len(bad)))
assert n >= 50, "too few recurse_bottom samples: %d" % n
assert not bad, bad[:3]
PY

record big -q --call-graph dwarf,65528 -- "$WORKLOADS/unwind_recurse" 0.5 200
expect_status big 0
pycheck "with 65528 bytes the stacks reach main through 200 frames" <<'PY'
import os
import artifacts as A
d = os.path.join(os.environ["TMP"], "big")
stacks = A.folded_stacks(os.path.join(d, "profile.folded"))
bottom = [s for s in stacks if s.frames[-1:] == ["recurse_bottom"]]
n = A.total_count(bottom)
full = sum(s.count for s in bottom if "main" in s.frames
           and s.frames.count("recurse_down") == 201)
print("  recurse_bottom: %d samples, %d with main and 201 recurse_down"
      % (n, full))
assert n >= 50 and full >= 0.9 * n
PY

for bad in dwarf,1001 dwarf,0 dwarf,70000 dwarf,x dwarfish lbrx; do
  record "bad-$bad" --call-graph "$bad" -- true
  expect_status "bad-$bad" 2
  check "--call-graph $bad: a clear message" \
    grep -q -- "--call-graph" "$TMP/bad-$bad.err"
done
check "a bad size says what is allowed" \
  grep -q "multiple of 8" "$TMP/bad-dwarf,1001.err"

# LBR call stacks need a PMU that has them: without one the run goes on
# with the default call graph and says so (pmu_lbr.sh covers a PMU)
record lbr --call-graph lbr -- true
expect_status lbr 0
check "--call-graph lbr without LBR: recorded with auto, and said" \
  grep -q -- "--call-graph auto instead" "$TMP/lbr.err"

finish
