#!/bin/sh
# --call-graph auto (the default) keeps the better chain per sample: the
# DWARF one on code without frame pointers, and full frame-pointer stacks
# on the frame-pointer workloads (deep recursion beyond the stack copy).
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"
. "$top_srcdir/tests/unwind_lib.sh"

need_workload unwind_chain deep threads

record chain -q -- "$WORKLOADS/unwind_chain" 0.5
expect_status chain 0
validate chain
check "auto is the default" test "$(summary_field "$TMP/chain" call_graph)" = auto
pct=$(chain_pct "$TMP/chain" main chain_a chain_b chain_leaf)
echo "  unwind_chain auto: $pct% of chain_leaf samples have the whole chain"
check "auto finds the chain without frame pointers (>= 95%)" at_least "$pct" 95
pycheck "summary.json reports the unwinding time and counts" <<'PY'
import json, os
s = json.load(open(os.path.join(os.environ["TMP"], "chain", "summary.json")))
print("  unwind_ms %s, %d unwound, %d from DWARF, %d truncated, %d failed" % (
    s["unwind_ms"], s["unwind_samples"], s["dwarf_samples"],
    s["unwind_truncated"], s["unwind_failed"]))
assert isinstance(s["unwind_ms"], (int, float)) and s["unwind_ms"] >= 0
assert s["unwind_samples"] >= s["dwarf_samples"] > 0
assert s["stack_bytes"] == 8192 and s["call_graph_fallback"] is None
PY

# a stack that ends at an unmapped page: the kernel copies less than
# 8 KiB, and the spill files keep only what it copied (spill.c); 2 MiB
# rings, so that 0.5 s of samples (4 MB) are spilled while it runs
record small -q -m 512 -- "$WORKLOADS/unwind_chain" 0.5 small-stack
expect_status small 0
validate small
pct=$(chain_pct "$TMP/small" spin chain_a chain_b chain_leaf)
echo "  unwind_chain small-stack: $pct% of chain_leaf samples have the whole chain"
check "short stack copies: the chain still unwinds (>= 95%)" at_least "$pct" 95
pycheck "short stack copies: their unused bytes stay out of the spill files" <<'PY'
import json, os
s = json.load(open(os.path.join(os.environ["TMP"], "small", "summary.json")))
n = s["unwind_samples"]
print("  %d samples: %d bytes spilled, %d stack bytes left out" % (
    n, s["spilled_bytes"], s["spill_trimmed_bytes"]))
assert n > 100 and s["spilled_bytes"] > 0
# each copy is the thread's few frames and its TLS, far below 8 KiB
assert s["spill_trimmed_bytes"] >= n * 2048, s
assert s["spilled_bytes"] < n * 6144, s
PY

record deep -q --call-graph auto -- "$WORKLOADS/deep" 0.4 120
expect_status deep 0
validate deep
pycheck "deep (frame pointers, 120 frames) keeps its full stacks" <<'PY'
import os
import artifacts as A
d = os.path.join(os.environ["TMP"], "deep")
stacks = A.folded_stacks(os.path.join(d, "profile.folded"))
bottom = [s for s in stacks if s.frames[-1:] == ["deep_bottom"]]
n = A.total_count(bottom)
deep = sum(s.count for s in bottom if s.frames.count("deep_recurse") >= 100)
print("  deep_bottom: %d samples, %d with >= 100 deep_recurse frames"
      % (n, deep))
assert n >= 50 and deep >= 0.9 * n
PY

record threads -q --call-graph auto -- "$WORKLOADS/threads" 0.3
expect_status threads 0
validate threads

record fp -q --call-graph fp -- "$WORKLOADS/unwind_chain" 0.2
expect_status fp 0
check "fp unwinds nothing after the run" \
  test "$(summary_field "$TMP/fp" unwind_samples)" = 0

finish
