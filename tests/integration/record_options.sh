#!/bin/sh
# Sampling options do what they say: -F sets the rate, -c a fixed period
# (nanoseconds of the software clock), -m the ring size, and without -o
# the artifacts go to ./benchprof-out.  The split workload spends a fixed
# CPU time, so the number of samples follows from the rate.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need_workload split

# 0.4 s of CPU at 499 Hz: about 200 samples
record freq -q -e cpu-clock -F 499 -- "$WORKLOADS/split" 0.4
expect_status freq 0
validate freq
# a period of 0.5 ms: about 800 samples in 0.4 s
record period -q -e cpu-clock -c 500000 -- "$WORKLOADS/split" 0.4
expect_status period 0
validate period
pycheck "-F and -c set the sampling rate" <<'PY'
import os
import artifacts as A
tmp = os.environ["TMP"]
f = A.read_summary(os.path.join(tmp, "freq", "summary.json"))
c = A.read_summary(os.path.join(tmp, "period", "summary.json"))
print("  -F 499: %d samples, event %s" % (f["samples"], f["event"]))
print("  -c 500000: %d samples, event %s" % (c["samples"], c["event"]))
assert f["event"]["frequency_hz"] == 499 and f["event"]["period"] is None, \
    f["event"]
assert c["event"]["period"] == 500000 and \
    c["event"]["frequency_hz"] is None, c["event"]
# generous bounds: start-up adds CPU time, the rate is what is checked
assert 120 <= f["samples"] <= 320, "-F 499: %d samples" % f["samples"]
assert 480 <= c["samples"] <= 1280, "-c 500000: %d samples" % c["samples"]
assert c["samples"] > 2.5 * f["samples"], "the period did not change the rate"
pp = A.read_pprof(os.path.join(tmp, "period", "profile.pb.gz"))
assert pp.period == 500000, "pprof period %d" % pp.period
PY

record pages -q -m 8 -- "$WORKLOADS/split" 0.2
expect_status pages 0
validate pages
record fp -q -g fp -- "$WORKLOADS/split" 0.1
expect_status fp 0
# rings that spill while the command runs (2 MiB: 0.5 s of stack copies
# are 4 MB) and still hold records at its end: what was spilled is read
# back first, then what the rings hold, merged in time order across CPUs
record merged -q -m 512 -- "$WORKLOADS/split" 0.5
expect_status merged 0
validate merged
pycheck "-m sets the rings; stack copies get larger ones by default" <<'PY'
import os
import artifacts as A
tmp = os.environ["TMP"]
page = os.sysconf("SC_PAGESIZE")
ncpus = 0
for part in open("/sys/devices/system/cpu/online").read().strip().split(","):
    lo, _, hi = part.partition("-")
    ncpus += int(hi or lo) - int(lo) + 1
per_cpu = 32 << 20   # 64 MiB in all, 2 to 32 MiB per CPU (record.h)
while per_cpu > 2 << 20 and per_cpu * ncpus > 64 << 20:
    per_cpu //= 2
got = {n: A.read_summary(os.path.join(tmp, n, "summary.json"))["ring_bytes"]
       for n in ("pages", "fp", "freq")}
print("  ring bytes per CPU (%d CPUs): %r" % (ncpus, got))
assert got["pages"] == 8 * page, got
assert got["fp"] == 2 << 20, got
assert got["freq"] == per_cpu, (got, per_cpu)
PY
pycheck "spilled and unspilled records: all of them, in time order" <<'PY'
import os
import artifacts as A
d = os.path.join(os.environ["TMP"], "merged")
s = A.read_summary(os.path.join(d, "summary.json"))
print("  %d samples, %d lost, %d bytes spilled, rings of %d bytes" % (
    s["samples"], s["lost"], s["spilled_bytes"], s["ring_bytes"]))
assert s["spilled_bytes"] > 0 and s["lost"] == 0, s
assert s["samples"] >= 300, s  # 0.5 s of CPU at 997 Hz
p = A.read_gecko(os.path.join(d, "profile.json.gz"))
n = 0
for t in p["threads"]:
    schema, data = A._table(t, "samples")
    col = schema["time"]
    times = [row[col] for row in data]
    n += len(times)
    assert times == sorted(times), "thread %s: samples out of time order" % t["name"]
assert n == s["samples"], (n, s["samples"])
PY

mkdir "$TMP/cwd"
(cd "$TMP/cwd" && "$BENCHPROF" record -q -- "$WORKLOADS/split" 0.1) \
  >"$TMP/cwd.out" 2>"$TMP/cwd.err"
status=$?
check "without -o: exit status 0" test "$status" -eq 0
check "without -o: artifacts in ./benchprof-out" \
  python3 "$top_srcdir/tests/artifacts.py" validate "$TMP/cwd/benchprof-out"

finish
