#!/bin/sh
# Kernel time by default.  dd copying /dev/zero to /dev/null spends most of
# its CPU time in read(2) and write(2).
#  - Where sampling the kernel is permitted (root, CAP_PERFMON or
#    perf_event_paranoid <= 1), `benchprof record` without options has
#    samples for at least 90% of dd's task-clock (the median of 3 runs:
#    one run at 997 Hz misses a sample period or two, not 10%).
#  - Where it is not (here: dd run as nobody with perf_event_paranoid 2,
#    set for the test and restored), stderr, summary.json, the Gecko meta,
#    the pprof comments and the flame graph say kernel time was not
#    sampled and what share of task-clock is in no sample; the share
#    agrees with the samples and the counter (100 - sampled / task-clock).
#  - There, the folded stacks end with "[not sampled: kernel time] N", N
#    that time in samples: read the way flamegraph.pl reads folded
#    stacks it is a root beside the process at the unsampled share, and
#    `benchprof compare` of two such runs works, with the stack in
#    diff.folded and no function made of it.
#  - --all-user asks for user space only: no kernel frame, and the reason
#    is stated.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

DD="dd if=/dev/zero of=/dev/null bs=4k count=300000"

permitted() {
  [ "$(id -u)" -eq 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 1 ]
}

if permitted; then
  for i in 1 2 3; do
    record "dd$i" -q -- $DD
    expect_status "dd$i" 0
  done
  pycheck "by default the samples cover >= 90% of task-clock (median of 3)" <<'PY'
import os, statistics
import artifacts as A
tmp = os.environ["TMP"]
cover = []
for i in (1, 2, 3):
    s = A.read_summary(os.path.join(tmp, "dd%d" % i, "summary.json"))
    assert s["kernel_sampled"] is True, s["kernel_unsampled_reason"]
    cover.append(100.0 * s["sampled_ms"] / s["task_clock_ms"])
    k = [f for f in s["top_functions"] if f["lib"] == "[kernel.kallsyms]"]
    assert k, "no kernel function among the top functions"
print("  coverage of task-clock: %s" % ", ".join("%.1f%%" % c for c in cover))
assert statistics.median(cover) >= 90, cover
PY
  validate dd1
else
  echo "  (sampling the kernel is not permitted here: only the statement is checked)"
fi

# not permitted: nobody under perf_event_paranoid >= 2
if [ "$(id -u)" -eq 0 ]; then
  command -v setpriv >/dev/null ||
    { fail "setpriv (util-linux) is needed to drop privileges"; finish; }
  old=$(cat /proc/sys/kernel/perf_event_paranoid)
  if [ "$old" -lt 2 ]; then
    echo 2 >/proc/sys/kernel/perf_event_paranoid ||
      { fail "cannot set kernel.perf_event_paranoid"; finish; }
    at_exit 'echo "$old" >/proc/sys/kernel/perf_event_paranoid'
  fi
  chmod 777 "$TMP"
  cp "$BENCHPROF" "$TMP/benchprof"
  chmod 755 "$TMP/benchprof"
  run_as() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
else
  cp "$BENCHPROF" "$TMP/benchprof"
  run_as() { "$@"; }
fi
if [ "$(id -u)" -ne 0 ] && permitted; then
  fail "kernel sampling is permitted to this user: run as root (the test drops privileges) to check the statement"
  finish
fi
run_as "$TMP/benchprof" record -o "$TMP/user" -- $DD \
  >"$TMP/user.out" 2>"$TMP/user.err"
check "not permitted: dd still ran under benchprof" \
  test -f "$TMP/user/summary.json"
check "not permitted: stderr warns of the share of task-clock in no sample" \
  grep -q "warning: kernel time not sampled (not permitted.*: [0-9.]*% of task-clock is in no sample" \
  "$TMP/user.err"
pycheck "not permitted: summary.json, Gecko, pprof and the SVG state it" <<'PY'
import os, re
import artifacts as A
d = os.path.join(os.environ["TMP"], "user")
s = A.read_summary(os.path.join(d, "summary.json"))
assert s["kernel_sampled"] is False, s
assert "not permitted" in s["kernel_unsampled_reason"], s
want = 100.0 - 100.0 * s["sampled_ms"] / s["task_clock_ms"]
assert abs(s["unsampled_pct"] - want) < 0.01, (s["unsampled_pct"], want)
# dd lives in read(2) and write(2): a real share is missing
assert s["unsampled_pct"] > 20, s["unsampled_pct"]
# the note is worded from the unrounded share; summary.json's number
# is rounded to 3 decimals, so rounding it again to 1 can differ by 0.1
# at a boundary (56.8496 -> 56.850 -> "56.9"): take the Gecko meta's
# note, check its number against summary.json's share, and look for the
# same note in pprof and the SVG
g = A.read_gecko(os.path.join(d, "profile.json.gz"))["meta"]["benchprof"]
assert g["kernel_sampled"] is False, g
m = re.search(r"([0-9.]+)% of task-clock is in no sample$", g["unsampled"])
assert m, g
assert abs(float(m.group(1)) - s["unsampled_pct"]) <= 0.0501, (m.group(0), s)
note = m.group(0)
print("  " + note)
assert abs(g["unsampled_pct"] - s["unsampled_pct"]) < 0.06, g
p = A.read_pprof(os.path.join(d, "profile.pb.gz"))
assert any(note in c for c in p.comments), p.comments
svg = open(os.path.join(d, "flamegraph.svg"), encoding="utf-8").read()
assert note in svg, "flame graph does not say it"
PY

# The folded stacks have no comments: the CPU time in no sample is a
# stack of its own, "[not sampled: kernel time] N" alone on the last
# line, N that time in samples; every artifact still describes the same
# samples (validate checks N against summary.json too).
validate user
pycheck "not permitted: the folded stacks state the share as a stack of its own, read as flamegraph.pl reads it" <<'PY'
import os, re
import artifacts as A
d = os.path.join(os.environ["TMP"], "user")
s = A.read_summary(os.path.join(d, "summary.json"))
missing = A.folded_unsampled(os.path.join(d, "profile.folded"))
sampled = A.total_count(A.folded_stacks(os.path.join(d, "profile.folded")))
share = 100.0 * missing / (missing + sampled)
print("  folded: %s %d of %d: %.1f%%, summary.json %.1f%%" % (
    A.FOLDED_UNSAMPLED, missing, missing + sampled, share, s["unsampled_pct"]))
assert abs(share - s["unsampled_pct"]) < 0.5, (share, s["unsampled_pct"])
# flamegraph.pl's own line pattern; the first frame is a root of the graph
roots = {}
for line in open(os.path.join(d, "profile.folded"), encoding="utf-8"):
    m = re.match(r"^(.*)\s+?(\d+(?:\.\d*)?)$", line.rstrip("\n"))
    assert m, "flamegraph.pl would skip %r" % line
    root = m.group(1).split(";")[0]
    roots[root] = roots.get(root, 0) + int(m.group(2))
assert roots.get(A.FOLDED_UNSAMPLED) == missing and roots.get("dd") == sampled, roots
PY
# compare reads it: two runs without kernel samples compare, their
# difference of unsampled time is a stack of diff.folded, and no function
# is made of it
for side in ua ub; do
  run_as env HOME="$TMP" "$TMP/benchprof" run -q -o "$TMP/$side" --no-bencher \
    -- $DD >"$TMP/$side.out" 2>"$TMP/$side.err"
  check "not permitted: run $side: exit 0" [ $? -eq 0 ]
done
"$BENCHPROF" compare -o "$TMP/cmp" "$TMP/ua" "$TMP/ub" >"$TMP/cmp.out" 2>&1
check "not permitted: compare of two such runs: exit 0" [ $? -eq 0 ]
pycheck "not permitted: compare's diff.folded has the unsampled stack, compare.json no function of it" <<'PY'
import glob, json, os
import artifacts as A
tmp = os.environ["TMP"]
diffs = glob.glob(os.path.join(tmp, "cmp", "**", "diff.folded"), recursive=True)
assert diffs, "no diff.folded"
want = [A.folded_unsampled(os.path.join(tmp, side, "profile.folded"))
        for side in ("ua", "ub")]
lines = [l.split() for l in open(diffs[0]) if l.startswith(A.FOLDED_UNSAMPLED + " ")]
assert len(lines) == 1, lines
got = [int(x) for x in lines[0][-2:]]
assert got == want, (got, want)
text = open(os.path.join(tmp, "cmp", "compare.json")).read()
assert "not sampled" not in text, "compare.json names the unsampled stack"
assert json.loads(text)
PY

record allu -q --all-user -- $DD
expect_status allu 0
check "--all-user: no kernel frames" \
  sh -c "! grep -q 'kernel.kallsyms' '$TMP/allu/profile.folded'"
check "--all-user: summary.json says user space only was asked for" \
  grep -q '"kernel_unsampled_reason":"user space only was asked for"' \
  "$TMP/allu/summary.json"
finish
