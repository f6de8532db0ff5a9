#!/bin/sh
# A frame-pointer walk that goes round in a loop: the fploop workload
# computes in spin_in_loop and sleeps in nap_in_loop with the frame
# pointer on a frame that points at itself, its return address a heap
# address.  The kernel's callchains repeat that address to their depth
# limit (127 frames); in every artifact the stacks end at the function
# where the walk started, with no frame of the loop: not in profile.folded,
# profile.offcpu.folded, pprof (on-CPU and off_cpu samples) nor
# summary.json's top stacks, with frame pointers and with the default
# (auto), where the looping chain was long enough to beat the DWARF one.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need_workload fploop
case $(uname -m) in
  x86_64|aarch64) ;;
  *) echo "SKIP: fploop sets the frame pointer by hand on x86-64 and arm64 only"
     exit 77 ;;
esac

for mode in fp auto; do
  record "$mode" -q --off-cpu --call-graph "$mode" -- "$WORKLOADS/fploop"
  expect_status "$mode" 0
done

pycheck "no frame of the loop in any artifact, the stacks end where the walk began" <<'PY'
import json, os
import artifacts as A
tmp = os.environ["TMP"]

def loop_frames(frames):
    return [f for f in frames if "[unknown]" in f or f.startswith("0x")]

for mode in ("fp", "auto"):
    d = os.path.join(tmp, mode)
    for name, want in (("profile.folded", "spin_in_loop"),
                       ("profile.offcpu.folded", "nap_in_loop")):
        stacks = [s for v in A.read_folded(os.path.join(d, name)).values()
                  for s in v]
        mine = [s for s in stacks if want in s.frames]
        bad = [s for s in mine if loop_frames(s.frames)]
        print("  %s %s: %d stacks under %s, longest %d frames, %d with "
              "unknown frames" % (mode, name, len(mine), want,
                                  max(len(s.frames) for s in mine) if mine
                                  else 0, len(bad)))
        assert mine, "no stack under %s in %s" % (want, name)
        assert not bad, bad[0].frames[:8]
    p = A.read_pprof(os.path.join(d, "profile.pb.gz"))
    vi = p.value_index("off_cpu", "nanoseconds")
    for locs, vals, _ in p.samples:
        fr = p.frames(locs)
        if "spin_in_loop" in fr or "nap_in_loop" in fr:
            assert not loop_frames(fr), (mode, fr[:8])
    naps = [vals[vi] for locs, vals, _ in p.samples
            if vals[vi] and "nap_in_loop" in p.frames(locs)]
    assert sum(naps) >= 0.2e9, "nap_in_loop waited %d ns" % sum(naps)
    s = json.load(open(os.path.join(d, "summary.json")))
    top = [w for w in s["off_cpu"]["top_stacks"]
           if "nap_in_loop" in w["frames"]]
    assert top, s["off_cpu"]["top_stacks"]
    assert not loop_frames(top[0]["frames"]), top[0]["frames"]
    print("  %s summary.json: %s" % (mode, ";".join(top[0]["frames"][:3])))
PY

finish
