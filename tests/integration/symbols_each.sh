#!/bin/sh
# run --each: the symbol tables of the binaries its invocations run are
# read once and reused while they do not change (summary.json
# symbol_tables), and read again when the program is rebuilt between two
# benchmarks, whose profile then names the new build's functions.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need python3 "apt-get install python3"
src="$top_srcdir/tests/workloads/symswap.c"
# $CC is unquoted: it may carry flags
${CC:-cc} -g -O1 -fno-omit-frame-pointer -DHOT=hot_v1 -o "$TMP/harness" \
  "$src" && \
  ${CC:-cc} -g -O1 -fno-omit-frame-pointer -DHOT=hot_v2 \
    -o "$TMP/harness.v2" "$src" || { fail "building $src"; finish; }

# the same program for all three benchmarks.  User space only: a kernel
# sample would add kallsyms to the counts, or not, by chance
# (test_symbols checks kallsyms across recordings)
"$BENCHPROF" run --all-user -o "$TMP/same" --each google-benchmark -- "$TMP/harness" \
  >"$TMP/same.out" 2>"$TMP/same.err"
status=$?
expect_status same 0
pycheck "3 invocations of one program: its tables read by the first only" \
  <<'PY'
import json, os
out = os.path.join(os.environ["TMP"], "same")
t = {b: json.load(open(os.path.join(out, b, "summary.json")))["symbol_tables"]
     for b in ("BM_A", "BM_B", "BM_C")}
assert t["BM_A"]["read"] >= 2 and t["BM_A"]["reused"] == 0, t
for b in ("BM_B", "BM_C"):
    assert t[b]["read"] == 0 and t[b]["reused"] == t["BM_A"]["read"], t
PY
check "the reuse is said on stderr" \
  grep -q 'symbol tables: 0 read, [1-9][0-9]* reused' "$TMP/same.err"

# the program rebuilt (another file renamed over it) before BM_C
cp "$TMP/harness.v2" "$TMP/harness.new"
SYMSWAP_NEW="$TMP/harness.new" "$BENCHPROF" run --all-user -o "$TMP/swap" \
  --each google-benchmark -- "$TMP/harness" >"$TMP/swap.out" \
  2>"$TMP/swap.err"
status=$?
expect_status swap 0
check "BM_C ran the new build" [ ! -e "$TMP/harness.new" ]
pycheck "the rebuilt program's table read again, its new names profiled" \
  <<'PY'
import json, os, artifacts
out = os.path.join(os.environ["TMP"], "swap")
def tables(b):
    return json.load(open(os.path.join(out, b, "summary.json")))["symbol_tables"]
def funcs(b):
    stacks = artifacts.folded_stacks(os.path.join(out, b, "profile.folded"))
    return {artifacts.func_of(f) for s in stacks for f in s.frames}
a, c = tables("BM_A"), tables("BM_C")
assert c["read"] == 1 and c["reused"] == a["read"] - 1, (a, c)
assert "hot_v1" in funcs("BM_A") and "hot_v2" not in funcs("BM_A")
assert "hot_v2" in funcs("BM_C") and "hot_v1" not in funcs("BM_C"), funcs("BM_C")
PY
finish
