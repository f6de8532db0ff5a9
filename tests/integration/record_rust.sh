#!/bin/sh
# Rust with v0 symbol mangling (rustc -C symbol-mangling-version=v0): the
# hot bprust::hot::crunch is demangled to its crate::module::fn path in
# every artifact and sits under bprust::main (Rust keeps frame pointers in
# leaf functions too).  --no-demangle shows the _R symbol instead.
# --no-inline: crunch's time is in core's wrapping_add, inlined into it,
# which would otherwise be the leaf (record_inline.sh tests that); this
# test is about the names of real functions.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

if [ -z "${RUSTC:-}" ]; then
  fail "configure found no rustc, so the Rust workload was not built (install rustc, see scripts/setup-debian.sh --test)"
  finish
fi
need_workload bprust
check "bprust's symbols are v0-mangled" \
  sh -c "nm '$WORKLOADS/bprust' | grep -q ' _RNvNtCs[0-9A-Za-z_]*_6bprust3hot6crunch\$'"

record rust -q --no-inline -- "$WORKLOADS/bprust" 0.4
expect_status rust 0
validate rust

pycheck "bprust::hot::crunch is demangled in every artifact" <<'PY'
import os
import artifacts as A
d = os.path.join(os.environ["TMP"], "rust")
a = A.load_dir(d)
bad = A.expect_in_dso(a, "bprust::hot::crunch", "bprust", 70)
folded = A.folded_stacks(os.path.join(d, "profile.folded"))
mine = [s for s in folded if s.frames[-1:] == ["bprust::hot::crunch"]]
n = A.total_count(mine)
under_main = sum(s.count for s in mine if "bprust::main" in s.frames)
if under_main < 0.9 * n:
    bad.append("%d of %d crunch samples are under bprust::main" % (
        under_main, n))
mangled = sorted({f for st in folded for f in st.frames
                  if f.startswith("_R") or f.startswith("_ZN")})
if mangled:
    bad.append("mangled names left in profile.folded: %s" % mangled)
if "bprust::hot::crunch" not in {n for n, _, _ in a["svg"]}:
    bad.append("flamegraph.svg has no frame bprust::hot::crunch")
assert not bad, "\n".join(bad)
PY

record raw -q --no-inline --no-demangle -- "$WORKLOADS/bprust" 0.2
expect_status raw 0
pycheck "--no-demangle keeps the v0 symbol" <<'PY'
import os, re
import artifacts as A
d = os.path.join(os.environ["TMP"], "raw")
leaves = A.self_counts(A.folded_stacks(os.path.join(d, "profile.folded")))
top = leaves.most_common(1)[0][0]
assert re.match(r"^_RNvNtCs\w+_6bprust3hot6crunch$", top), leaves
PY

finish
