#!/bin/sh
# The command forks 500 short children (1 ms of CPU each, one after
# another).  Every child is followed (inherited events), benchprof's own
# memory stays bounded (processes are small records, not a copy each of
# everything), the command's status comes through and every artifact is
# valid.  Call graphs are frame pointers: the fork storm is the point, not
# the stack copies.
. "$top_srcdir/tests/lib.sh"

check "500 forks under benchprof" python3 - "$BENCHPROF" "$WORKLOADS/forks" \
  "$TMP" <<'PY'
import resource, subprocess, sys
bp, forks, tmp = sys.argv[1:]
with open(tmp + "/stdout", "w") as out, open(tmp + "/stderr", "w") as err:
    rc = subprocess.call([bp, "record", "-q", "-g", "fp", "--no-counters",
                          "-o", tmp + "/out", "--", forks, "500", "1"],
                         stdout=out, stderr=err)
assert rc == 0, "benchprof exited %d" % rc
assert open(tmp + "/stdout").read().strip() == "500", "not all children ran"
# the largest RSS among benchprof and its children, in KiB
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print("peak RSS %d KiB" % peak)
# generous, ASan builds included: unbounded growth per child would be far
# beyond (500 copies of a process's maps and names)
assert peak < 400 * 1024, "benchprof grew to %d KiB" % peak
PY
check "every artifact is valid" env PYTHONPATH="$top_srcdir/tests" \
  python3 "$top_srcdir/tests/artifacts.py" validate "$TMP/out"
check "the children were followed" env PYTHONPATH="$top_srcdir/tests" \
  python3 - "$TMP/out" <<'PY'
import sys
import artifacts as A
a = A.load_dir(sys.argv[1])
s = a["summary"]
pids = {t["pid"] for t in s["threads"]}
# 500 ms of CPU in children at ~1 kHz: most of them show up with a sample
assert len(pids) > 100, "%d processes sampled" % len(pids)
fn = A.summary_function(s, "fork_child_work")
assert fn and fn["self"] > 100, fn
PY
finish
