#!/bin/sh
# C++: two instances of a class template in nested namespaces are hot, and
# every artifact names them demangled, with parameter lists:
# bench::detail::Accumulator<double>::run(int) and <long>.  With
# --no-demangle the same functions keep their mangled names.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need_workload cxx
need xmllint "Debian package libxml2-utils"

record cxx -q -- "$WORKLOADS/cxx" 0.5
expect_status cxx 0
validate cxx
check "flamegraph.svg with C++ names is well-formed XML" \
  xmllint --noout "$TMP/cxx/flamegraph.svg"

pycheck "the template instances are demangled in every artifact" <<'PY'
import os
import artifacts as A
d = os.path.join(os.environ["TMP"], "cxx")
a = A.load_dir(d)
names = ["bench::detail::Accumulator<double>::run(int)",
         "bench::detail::Accumulator<long>::run(int)"]
bad = []
for fn in names:
    bad += A.expect_in_dso(a, fn, "cxx", 15)
folded = A.folded_stacks(os.path.join(d, "profile.folded"))
leaves = A.self_counts(folded)
svg = {n for n, _, _ in a["svg"]}
for fn in names:
    if leaves[fn] < 0.15 * A.total_count(folded):
        bad.append("profile.folded: %s has %d samples" % (fn, leaves[fn]))
    if fn not in svg:
        bad.append("flamegraph.svg has no frame %s" % fn)
mangled = sorted({f for st in folded for f in st.frames
                  if f.startswith("_Z")})
if mangled:
    bad.append("mangled names left in profile.folded: %s" % mangled)
assert not bad, "\n".join(bad)
PY

record raw -q --no-demangle -- "$WORKLOADS/cxx" 0.2
expect_status raw 0
pycheck "--no-demangle keeps the mangled names" <<'PY'
import os
import artifacts as A
d = os.path.join(os.environ["TMP"], "raw")
leaves = A.self_counts(A.folded_stacks(os.path.join(d, "profile.folded")))
for sym in ("_ZN5bench6detail11AccumulatorIdE3runEi",
            "_ZN5bench6detail11AccumulatorIlE3runEi"):
    assert leaves[sym] > 0, "no leaf %s in %s" % (sym, leaves)
s = A.read_summary(os.path.join(d, "summary.json"))
assert A.summary_function(s, "_ZN5bench6detail11AccumulatorIdE3runEi"), \
    "summary.json: %s" % [f["name"] for f in s["top_functions"]]
PY

finish
