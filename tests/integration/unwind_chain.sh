#!/bin/sh
# C and C++ built with -O2 -fomit-frame-pointer: with --call-graph dwarf the
# chain main -> a -> b -> leaf is in >= 95% of the leaf's samples; with
# --call-graph fp it is not (so the stack copy is what finds the callers).
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"
. "$top_srcdir/tests/unwind_lib.sh"

need_workload unwind_chain unwind_chain_cxx

# prog and its chain, outermost first
try() {
  prog=$1
  shift
  record "$prog-dwarf" -q --call-graph dwarf -- "$WORKLOADS/$prog" 0.5
  expect_status "$prog-dwarf" 0
  validate "$prog-dwarf"
  pct=$(chain_pct "$TMP/$prog-dwarf" "$@")
  echo "  $prog dwarf: $pct% of $* leaf samples have the whole chain"
  check "$prog: dwarf finds the chain in >= 95% of the leaf's samples" \
    at_least "$pct" 95
  check "$prog: summary.json says dwarf, with unwinding counts" \
    test "$(summary_field "$TMP/$prog-dwarf" call_graph)" = dwarf -a \
    "$(summary_field "$TMP/$prog-dwarf" dwarf_samples)" -gt 0

  record "$prog-fp" -q --call-graph fp -- "$WORKLOADS/$prog" 0.5
  expect_status "$prog-fp" 0
  pct=$(chain_pct "$TMP/$prog-fp" "$@")
  echo "  $prog fp: $pct% of leaf samples have the whole chain"
  check "$prog: frame pointers alone do not find it (< 95%)" \
    sh -c "[ \"$pct\" != -1.0 ] && awk 'BEGIN { exit !($pct < 95) }'"
}

try unwind_chain main chain_a chain_b chain_leaf
try unwind_chain_cxx main chain::a chain::b chain::leaf

finish
