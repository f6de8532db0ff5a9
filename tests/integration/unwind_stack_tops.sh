#!/bin/sh
# Stack tops (stacktops.h): while the command runs, each spilled stack copy
# is cut to the part its thread's unwinding reads, learned from one sample
# per thread.  The same workloads are recorded with the cut (the default)
# and without it (record.stack_tops false): the cut must leave most of the
# bytes out and change no stack, on the main thread, on threads, and across
# fork and exec.  2 MiB rings, so that most samples are spilled, at about
# 4 kHz, so that each thread has many more samples than the ones it
# spills whole before its top is learned (BP_STACK_TOP_AFTER).  The
# workloads' main threads read their stacks to the top first
# (WL_FULL_STACK, workload.h): a copy without the cut is then whole in
# every run, not ended early by the random untouched gap under the
# environment, so that the comparison measures the cut.  The main
# thread's stack is read to its top first (unwind_chain full-stack): a
# copy without the cut is then the full 8 KiB in every run, not cut short
# by the random untouched gap under the environment.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"
. "$top_srcdir/tests/unwind_lib.sh"

need_workload unwind_chain threads forkexec forkexec_child
WL_FULL_STACK=1
export WL_FULL_STACK

for mode in tops whole; do
  tops=true
  [ "$mode" = whole ] && tops=false
  BENCHPROF_STACK_TOPS=$tops record "$mode-chain" -q --call-graph dwarf \
    -F 3989 -m 512 -- "$WORKLOADS/unwind_chain" 0.5 full-stack
  expect_status "$mode-chain" 0
  BENCHPROF_STACK_TOPS=$tops record "$mode-threads" -q --call-graph dwarf \
    -F 3989 -m 512 -- "$WORKLOADS/threads" 0.25
  expect_status "$mode-threads" 0
  BENCHPROF_STACK_TOPS=$tops record "$mode-fe" -q --call-graph dwarf \
    -F 3989 -m 512 -- "$WORKLOADS/forkexec" 0.3 "$WORKLOADS/forkexec_child"
  expect_status "$mode-fe" 0
done
validate tops-threads

pycheck "the cut leaves most stack bytes out of the spill files" <<'PY'
import json, os
t = os.environ["TMP"]
def per_sample(name):
    s = json.load(open(os.path.join(t, name, "summary.json")))
    n = s["unwind_samples"]
    assert n > 500 and s["spilled_bytes"] > 0, (name, s)
    return s["spilled_bytes"] / n, s
for w, most in (("chain", 0.7), ("threads", 0.5), ("fe", 0.7)):
    cut, s = per_sample("tops-" + w)
    whole, sw = per_sample("whole-" + w)
    print("  %s: %.0f bytes spilled per sample with the cut, %.0f without; "
          "%d threads learned" % (w, cut, whole, s["stack_tops_learned"]))
    assert cut <= most * whole, (w, cut, whole)
    assert sw["stack_tops_learned"] == 0, sw
    assert s["stack_tops_learned"] >= 1, s
PY

pycheck "the cut changes no stack: as many reach the outermost frame" <<'PY'
import json, os
import artifacts as A
t = os.environ["TMP"]
OUTER = {"_start", "clone", "clone3", "__clone", "__clone3", "start_thread"}
def whole_share(name):
    stacks = A.folded_stacks(os.path.join(t, name, "profile.folded"))
    n = A.total_count(stacks)
    whole = sum(s.count for s in stacks
                if s.frames and A.func_of(s.frames[0]) in OUTER)
    s = json.load(open(os.path.join(t, name, "summary.json")))
    return 100.0 * whole / n, s["unwind_truncated"], s["unwind_samples"]
for w in ("chain", "threads", "fe"):
    cut, cut_trunc, cut_n = whole_share("tops-" + w)
    full, full_trunc, full_n = whole_share("whole-" + w)
    print("  %s: %.2f%% of stacks whole with the cut (%d of %d truncated), "
          "%.2f%% without (%d of %d)" % (w, cut, cut_trunc, cut_n, full,
                                          full_trunc, full_n))
    assert cut >= 95.0 and cut >= full - 1.0, (w, cut, full)
    assert cut_trunc <= full_trunc + cut_n // 1000, (w, cut_trunc, full_trunc)
PY

pycheck "threads: every worker's stack is whole with the cut" <<'PY'
import os
import artifacts as A
t = os.environ["TMP"]
stacks = A.folded_stacks(os.path.join(t, "tops-threads", "profile.folded"))
for k in range(4):
    fn = "worker_%d_loop" % k
    mine = [s for s in stacks if any(A.func_of(f) == fn for f in s.frames)]
    n = A.total_count(mine)
    ok = sum(s.count for s in mine
             if A.func_of(s.frames[0]) in ("clone", "clone3", "__clone",
                                            "__clone3", "start_thread"))
    print("  %s: %d samples, %d under clone" % (fn, n, ok))
    assert n >= 50 and ok >= 0.97 * n, (fn, n, ok)
PY

finish
