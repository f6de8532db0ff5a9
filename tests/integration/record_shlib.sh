#!/bin/sh
# Shared libraries: shlib spends as long in bpwork_hot of the linked
# libbpwork.so as in bpplugin_hot of libbpplugin.so, which it dlopens and
# unloads again before it exits.  Both functions are resolved and
# attributed to their library in every artifact.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need_workload shlib libbpwork.so libbpplugin.so

record shlib -q -- "$WORKLOADS/shlib" 0.3 "$WORKLOADS/libbpplugin.so"
expect_status shlib 0
validate shlib

pycheck "bpwork_hot in libbpwork.so, bpplugin_hot in libbpplugin.so" <<'PY'
import os
import artifacts as A
a = A.load_dir(os.path.join(os.environ["TMP"], "shlib"))
bad = A.expect_in_dso(a, "bpwork_hot", "libbpwork.so", 30) + \
    A.expect_in_dso(a, "bpplugin_hot", "libbpplugin.so", 30)
unresolved = sorted({f for st in A.gecko_stacks(a["gecko"]) for f in st.frames
                     if f.startswith("0x") and "(in libbp" in f})
if unresolved:
    bad.append("unresolved library frames: %s" % unresolved)
folded = A.folded_stacks(os.path.join(os.environ["TMP"], "shlib",
                                      "profile.folded"))
leaves = A.self_counts(folded)
for fn in ("bpwork_hot", "bpplugin_hot"):
    if leaves[fn] < 0.3 * A.total_count(folded):
        bad.append("profile.folded: %s has %d of %d samples" % (
            fn, leaves[fn], A.total_count(folded)))
assert not bad, "\n".join(bad)
PY

finish
