#!/bin/sh
# Deep recursion: deep recurses 120 frames of deep_recurse, then spins in
# deep_bottom.  Its stacks keep at least 100 frames in every artifact and in
# profiler-cli's call tree (kernel.perf_event_max_stack, 127 by default,
# caps how many the kernel records).
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need_workload deep
need profiler-cli "npm install -g @firefox-devtools/profiler-cli"

max_stack=$(cat /proc/sys/kernel/perf_event_max_stack)
if [ "$max_stack" -lt 110 ]; then
  fail "kernel.perf_event_max_stack is $max_stack: raise it to 127 (sysctl) to test deep stacks"
  finish
fi

record deep -q -- "$WORKLOADS/deep" 0.4 120
expect_status deep 0
validate deep

pycheck "deep_bottom's stacks are >= 100 frames deep everywhere" <<'PY'
import os
import artifacts as A
d = os.path.join(os.environ["TMP"], "deep")
a = A.load_dir(d)
folded = A.folded_stacks(os.path.join(d, "profile.folded"))
per = {
    "profile.folded": folded,
    "profile.json.gz": [A.Stack([A.func_of(f) for f in s.frames], s.count)
                        for s in A.gecko_stacks(a["gecko"])],
    "profile.pb.gz": a["pprof"].stacks(),
}
with A.ProfilerCli(os.path.join(d, "profile.json.gz"),
                   os.environ["PROFILER_CLI_SESSION_DIR"]) as cli:
    tree = cli.top_down(cli.threads()[0]["threadHandle"])
per["profiler-cli"] = [A.Stack([f.split("!", 1)[-1] for f in s.frames],
                               s.count) for s in A.calltree_stacks(tree)]
bad = []
for art, stacks in per.items():
    bottom = [s for s in stacks if s.frames[-1:] == ["deep_bottom"]]
    n = A.total_count(bottom)
    deep = sum(s.count for s in bottom
               if s.frames.count("deep_recurse") >= 100)
    depth = max((len(s.frames) for s in bottom), default=0)
    print("  %-16s deep_bottom %d samples, %d with >= 100 deep_recurse "
          "frames, deepest stack %d frames" % (art, n, deep, depth))
    if n < 0.8 * A.total_count(stacks) or deep < 0.9 * n:
        bad.append(art)
assert not bad, "too shallow in %s" % bad
PY

finish
