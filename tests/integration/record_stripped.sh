#!/bin/sh
# Honest names and counts.
#  - Stripped code: a copy of tests/workloads/inline without any symbol
#    (strip --strip-all keeps .eh_frame) shows each hot function as one
#    entry "fn_START (in inline-stripped)", START the address of
#    inl_twin and of inl_caller in the unstripped file; its self samples
#    are the sum over every address inside the function (pprof's
#    Locations) and no address of it shows up under another name.
#  - unresolved_frames is what the artifacts show: the distinct addresses
#    of pprof's sampled Locations without a symbol (0 for a program whose
#    every frame has one).
#  - unwind_failed: 0 when every stack reaches _start (a single-threaded
#    program, DWARF unwinding).
#  - Several functions at one address (libc's malloc and __libc_malloc):
#    the name people write, the same in every artifact.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need python3 "scripts/setup-debian.sh --test"
need_workload inline alias
strip --strip-all -o "$TMP/inline-stripped" "$WORKLOADS/inline"
nm "$WORKLOADS/inline" >"$TMP/nm.txt"

record strip -q --call-graph dwarf -- "$TMP/inline-stripped" 1
expect_status strip 0
validate strip
pycheck "stripped: each hot function is one fn_START entry, the sum of its addresses" <<'PY'
import os
import artifacts as A
tmp = os.environ["TMP"]
d = os.path.join(tmp, "strip")
addr = {}
for line in open(os.path.join(tmp, "nm.txt")):
    f = line.split()
    if len(f) == 3:
        addr[f[2]] = int(f[0], 16)
s = A.read_summary(os.path.join(d, "summary.json"))
top = {f["name"]: f for f in s["top_functions"]}
want = ["fn_%x" % addr["inl_twin"], "fn_%x" % addr["inl_caller"]]
got = [f["name"] for f in s["top_functions"][:2]]
assert sorted(got) == sorted(want), "top 2 %s, expected %s" % (got, want)
A.expect_even("fn_ twin/caller", top[want[0]]["self"], top[want[1]]["self"])
p = A.read_pprof(os.path.join(d, "profile.pb.gz"))
vi = p.value_index("samples", "count")
ends = sorted(addr.values())
for name in want:
    start = int(name[3:], 16)
    end = min(a for a in ends if a > start)  # the next symbol
    label = name + " (in inline-stripped)"
    inside, named = 0, 0
    for locs, vals, _ in p.samples:
        loc = p.locations[locs[0]]
        fname = p.functions[loc["lines"][-1][0]]["name"]
        if start <= loc["address"] < end:
            inside += vals[vi]
            assert fname == label, "0x%x is %r, not %r" % (
                loc["address"], fname, label)
        named += vals[vi] if fname == label else 0
    assert inside == named == top[name]["self"], (name, inside, named,
                                                  top[name]["self"])
folded = open(os.path.join(d, "profile.folded")).read()
assert "fn_%x (in inline-stripped)" % addr["inl_twin"] in folded
PY

pycheck "unresolved_frames: the addresses without a symbol in pprof's samples" <<'PY'
import os
import artifacts as A
d = os.path.join(os.environ["TMP"], "strip")
s = A.read_summary(os.path.join(d, "summary.json"))
p = A.read_pprof(os.path.join(d, "profile.pb.gz"))
unresolved = set()
for locs, _, _ in p.samples:
    for lid in locs:
        loc = p.locations[lid]
        name = p.functions[loc["lines"][-1][0]]["name"]
        if " (in " in name and (name.startswith("0x") or
                                name.startswith("fn_")):
            unresolved.add((loc["mapping"], loc["address"]))
print("  %d unresolved frames, summary says %d" % (
    len(unresolved), s["unresolved_frames"]))
assert len(unresolved) == s["unresolved_frames"] > 0
PY

# user space only: a sample in the kernel while exec completes has no user
# stack to reach _start from
record whole -q --all-user --call-graph dwarf -- "$WORKLOADS/inline" 0.5
expect_status whole 0
pycheck "unwind_failed 0 and unresolved_frames 0 when every stack is whole and named" <<'PY'
import os
import artifacts as A
d = os.path.join(os.environ["TMP"], "whole")
s = A.read_summary(os.path.join(d, "summary.json"))
stacks = A.folded_stacks(os.path.join(d, "profile.folded"))
roots = {st.frames[0] for st in stacks}
# whole stacks start at an entry point: the program's _start, or, for a
# sample in a shared library's constructor before it, the dynamic
# loader's _dl_start_user (whose unwind table ends the chain there too)
assert "_start" in roots and roots <= {"_start", "_dl_start_user"}, (
    "stacks start at %s" % sorted(roots))
unnamed = {f for st in stacks for f in st.frames if f.startswith("0x")}
assert s["unwind_failed"] == 0, s["unwind_failed"]
assert s["unresolved_frames"] == len(unnamed) == 0, (
    s["unresolved_frames"], unnamed)
PY

record alias -q -- "$WORKLOADS/alias" 0.5
expect_status alias 0
pycheck "malloc, not __libc_malloc, in every artifact" <<'PY'
import os
import artifacts as A
a = A.load_dir(os.path.join(os.environ["TMP"], "alias"))
names = {
    "folded": {A.folded_func(f) for v in a["folded"].values() for st in v
               for f in st.frames},
    "pprof": {f["name"] for f in a["pprof"].functions.values()},
    "gecko": {A.func_of(x) for t in a["gecko"]["threads"]
              for x in t["stringTable"]},
    "svg": {A.func_of(n) for n, _, _ in a["svg"]},
}
for what, got in sorted(names.items()):
    assert "malloc" in got, "%s has no malloc" % what
    bad = sorted(n for n in got if n in ("__libc_malloc", "__libc_free",
                                         "__malloc", "__free"))
    assert not bad, "%s names %s" % (what, bad)
PY
finish
