#!/bin/sh
# A Rust release binary without frame pointers (-C opt-level=2
# -C force-frame-pointers=no): --call-graph dwarf finds
# unwind_rust::main -> chain_a -> chain_b -> chain_leaf in >= 95% of the
# leaf's samples, frame pointers do not.  --no-inline: chain_leaf's time
# is in core's wrapping_add, inlined into it, which would otherwise be the
# leaf; this test is about the machine frames the unwinder finds.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"
. "$top_srcdir/tests/unwind_lib.sh"

if [ -z "${RUSTC:-}" ]; then
  fail "configure found no rustc, so the Rust workload was not built (install rustc, see scripts/setup-debian.sh --test)"
  finish
fi
need_workload unwind_rust

chain="unwind_rust::main unwind_rust::chain_a unwind_rust::chain_b unwind_rust::chain_leaf"
record dwarf -q --no-inline --call-graph dwarf -- "$WORKLOADS/unwind_rust" 0.5
expect_status dwarf 0
validate dwarf
pct=$(chain_pct "$TMP/dwarf" $chain)
echo "  dwarf: $pct% of chain_leaf samples have the whole chain"
check "dwarf finds the chain in >= 95% of chain_leaf's samples" \
  at_least "$pct" 95

record fp -q --no-inline --call-graph fp -- "$WORKLOADS/unwind_rust" 0.5
expect_status fp 0
pct=$(chain_pct "$TMP/fp" $chain)
echo "  fp: $pct% of chain_leaf samples have the whole chain"
check "frame pointers alone do not find it (< 95%)" \
  sh -c "[ \"$pct\" != -1.0 ] && awk 'BEGIN { exit !($pct < 95) }'"

finish
