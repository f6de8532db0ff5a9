#!/bin/sh
# Frames that no file names, on two real runs of the anonexec workload
# (it execs itself 40 times, then runs a loop copied into anonymous
# executable memory that no perf-PID.map names):
# - the samples taken while the kernel loads each new image (after it
#   swapped the address spaces) have their user-space frame, the execve
#   call, in the image the exec replaces: that frame is libc's execve,
#   the first exec's (benchprof's own forked child) included, not an
#   address in no mapping;
# - the anonymous code is one function, [anon], whatever its address,
#   and no frame is labelled by an address in no file ("0x... (in
#   [unknown])", "0x... (in perf-PID.map)"): in every artifact;
# - compared, the two runs' anonymous code (at other addresses: ASLR) is
#   one function on both sides, not one that vanished and one new: not
#   in compare.json, the comment or the diff flame graph.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need python3 "apt-get install python3"
need_workload anonexec
if [ "$(uname -m)" != x86_64 ]; then
  echo "SKIP: the anonexec workload writes x86-64 machine code"
  exit 77
fi
# kernel frames show the samples taken inside execve
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$(id -u)" -eq 0 ] || [ "$paranoid" -le 1 ]; then
  KERNEL=1
else
  KERNEL=0
fi
export KERNEL

for side in base head; do
  "$BENCHPROF" run -q --no-publish -F 10000 -o "$TMP/$side" \
    --name anonexec -- "$WORKLOADS/anonexec" 40 0.3 \
    >"$TMP/$side.out" 2>"$TMP/$side.err"
  check "run $side exits 0" [ $? -eq 0 ]
  validate "$side"
done
"$BENCHPROF" compare -o "$TMP/cmp" "$TMP/base" "$TMP/head" \
  >"$TMP/cmp.out" 2>"$TMP/cmp.err"
check "compare exits 0" [ $? -eq 0 ]

pycheck "the execve call is named while the kernel loads the new image" <<'PY'
import os, re
import artifacts as A
tmp = os.environ["TMP"]
for side in ("base", "head"):
    stacks = [s for v in A.read_folded(os.path.join(tmp, side,
                                                   "profile.folded")).values()
              for s in v]
    loading = [s for s in stacks if "load_elf_binary" in s.frames]
    n = sum(s.count for s in loading)
    print("  %s: %d samples in load_elf_binary" % (side, n))
    if os.environ["KERNEL"] != "1":
        assert n == 0, loading[:3]
        continue
    # 40 execs at 10 kHz: each spends far more than 0.1 ms there
    assert n >= 20, n
    for s in loading:
        user = s.frames[:s.frames.index("load_elf_binary")]
        bad = [f for f in user if f == "[unknown]" or f.startswith("0x")]
        assert not bad, s.frames
    # before the new image's registers are set its user frame is execve
    # (after, the new program's entry point, ld.so's _start)
    named = sum(s.count for s in loading if s.frames[0] == "execve")
    assert named * 2 >= n, (named, n, loading[:5])
PY

pycheck "anonymous code is one function, no frame is an address in no file" <<'PY'
import gzip, json, os, re
import artifacts as A
tmp = os.environ["TMP"]
by_address = re.compile(r"^0x[0-9a-f]+ \(in (\[unknown\]|perf-[0-9]+\.map)\)$")
for side in ("base", "head"):
    d = os.path.join(tmp, side)
    stacks = [s for v in A.read_folded(os.path.join(d, "profile.folded")
                                       ).values() for s in v]
    total = sum(s.count for s in stacks)
    anon = sum(s.count for s in stacks if "[anon]" in s.frames)
    print("  %s: [anon] in %d of %d samples" % (side, anon, total))
    # the loop is nearly all the work after the execs
    assert anon * 2 >= total, (anon, total)
    for s in stacks:
        assert not [f for f in s.frames if by_address.match(f)], s.frames
    svg = open(os.path.join(d, "flamegraph.svg")).read()
    assert "<title>[anon] (" in svg, "no [anon] in flamegraph.svg"
    assert not re.search(r"<title>0x[0-9a-f]+ \(in (\[unknown\]|perf-)",
                         svg)
    p = A.read_pprof(os.path.join(d, "profile.pb.gz"))
    names = {f for locs, _, _ in p.samples for f in p.frames(locs)}
    assert "[anon]" in names and not [f for f in names
                                      if by_address.match(f)], names
    s = json.load(open(os.path.join(d, "summary.json")))
    top = [f["name"] for f in s["top_functions"]]
    assert top[0] == "[anon]", top
PY

pycheck "compared, the anonymous code is one function on both sides" \
  "$TMP/cmp" <<'PY'
import json, os, re, sys
d = sys.argv[1]
c = json.load(open(os.path.join(d, "compare.json")))
b = c["benchmarks"][0]
fs = {f["name"]: f for f in b["functions"]}
anon = fs.get("[anon]")
assert anon and not anon["new"] and not anon["vanished"], anon
assert anon["base_self"] > 0 and anon["head_self"] > 0, anon
# the same code at other addresses, once named by them on each side,
# would be a function vanished and one new
odd = [n for n in fs if n.startswith("0x") and "(in " in n and
       ("[unknown]" in n or "perf-" in n)]
assert not odd, odd
# (a frame-pointer walk's garbage, [unknown], can be a sample or two on
# one side only: sampled, not renamed)
md = open(os.path.join(d, "comment.md")).read()
assert not re.search(r"0x[0-9a-f]+ \(in (\[unknown\]|perf-)", md), md
assert "[anon] (new)" not in md and "[anon] (vanished)" not in md, md
diff = open(os.path.join(d, "diff.folded")).read()
assert not re.search(r"0x[0-9a-f]+ \(in (\[unknown\]|perf-)", diff)
assert ";[anon] " in diff or ";[anon];" in diff, diff[:2000]
PY

finish
