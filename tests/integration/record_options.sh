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

mkdir "$TMP/cwd"
(cd "$TMP/cwd" && "$BENCHPROF" record -q -- "$WORKLOADS/split" 0.1) \
  >"$TMP/cwd.out" 2>"$TMP/cwd.err"
status=$?
check "without -o: exit status 0" test "$status" -eq 0
check "without -o: artifacts in ./benchprof-out" \
  python3 "$top_srcdir/tests/artifacts.py" validate "$TMP/cwd/benchprof-out"

finish
