#!/bin/sh
# Inlined functions are frames of their own.  tests/workloads/inline
# (-O2 -g) spends half its CPU time in inl_mix, always inlined into
# inl_caller, and half in inl_twin, a real function with the same loop.
# inl_mix must be a frame, under inl_caller, with inl_twin's share, in
# profile.folded, in pprof (go tool pprof -top and -traces read the
# Location's Lines), in Gecko (profiler-cli's call tree) and in
# summary.json; --no-inline charges the time to inl_caller again.
# The share: inl_mix / (inl_mix + inl_twin) is within 4 binomial standard
# deviations (0.5 / sqrt(n)) of one half, plus 3 points for the few
# instructions the compiler may keep outside the inlined body.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

SETUP="scripts/setup-debian.sh --test"
need python3 "$SETUP"
need go "$SETUP"
need profiler-cli "$SETUP"
need_workload inline

record inl -q --call-graph dwarf -- "$WORKLOADS/inline" 1
expect_status inl 0
validate inl

pycheck "folded: inl_mix under inl_caller with inl_twin's share" <<'PY'
import os
import artifacts as A
stacks = A.folded_stacks(os.path.join(os.environ["TMP"], "inl",
                                      "profile.folded"))
self = A.self_counts(stacks, A.folded_func)
mix, twin = self.get("inl_mix", 0), self.get("inl_twin", 0)
under = sum(s.count for s in stacks
            if [A.folded_func(f) for f in s.frames][-2:] ==
            ["inl_caller", "inl_mix"])
A.expect_even("folded", mix, twin)
assert under == mix, "only %d of inl_mix's %d samples under inl_caller" % (
    under, mix)
PY

pycheck "pprof: -top and -traces name inl_mix, under inl_caller" <<'PY'
import os
import artifacts as A
path = os.path.join(os.environ["TMP"], "inl", "profile.pb.gz")
# pprof shows "inl_mix (inline)": it read it from the Location's inner
# Lines, as an inlined call (the readers drop the mark to compare names)
out = A.go_pprof(["-top", "-sample_index=samples"], path)
assert "inl_mix (inline)" in out, out
INL = "inl_mix"
rows, total = A.go_pprof_top(path)
A.expect_even("go tool pprof -top", rows.get(INL, (0,))[0],
              rows.get("inl_twin", (0,))[0])
traces = A.go_pprof_traces(path)
mix = sum(s.count for _, s in traces if s.frames[-1] == INL)
under = sum(s.count for _, s in traces
            if s.frames[-2:] == ["inl_caller", INL])
assert mix and under == mix, "-traces: %d of %d under inl_caller" % (
    under, mix)
PY

pycheck "Gecko: profiler-cli's call tree has inl_mix under inl_caller" <<'PY'
import os
import artifacts as A
tmp = os.environ["TMP"]
with A.ProfilerCli(os.path.join(tmp, "inl", "profile.json.gz"),
                   os.environ["PROFILER_CLI_SESSION_DIR"], "inl") as cli:
    t = cli.threads()[0]["threadHandle"]
    stacks = A.calltree_stacks(cli.top_down(t), "name")
self = A.self_counts(stacks)
A.expect_even("profiler-cli", self.get("inl_mix", 0),
              self.get("inl_twin", 0))
under = sum(s.count for s in stacks
            if s.frames[-2:] == ["inl_caller", "inl_mix"])
assert under == self["inl_mix"], "%d of %d under inl_caller" % (
    under, self["inl_mix"])
PY

pycheck "summary.json ranks inl_mix with its file" <<'PY'
import os
import artifacts as A
s = A.read_summary(os.path.join(os.environ["TMP"], "inl", "summary.json"))
f = A.summary_function(s, "inl_mix")
assert f and f.get("file", "").endswith("inline.c"), f
PY

record noinl -q --call-graph dwarf --no-inline -- "$WORKLOADS/inline" 0.3
expect_status noinl 0
check "--no-inline: no inl_mix frame" \
  sh -c "! grep -q inl_mix '$TMP/noinl/profile.folded'"
check "--no-inline: inl_caller is a leaf" \
  grep -q ';inl_caller [0-9]*$' "$TMP/noinl/profile.folded"
finish
