#!/bin/sh
# A target killed by SIGSEGV: benchprof exits 139 like a shell would, and
# the profile of what ran before the crash is still written, complete and
# valid.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need_workload segv
# no core file to write (or pipe to a handler) on the crash
ulimit -c 0 2>/dev/null || :

record segv -- "$WORKLOADS/segv" 0.3
expect_status segv 139
check "the target's output came through" \
  grep -qx 'segv: writing through NULL' "$TMP/segv.out"
check "the stderr summary was printed" \
  grep -q 'segv_work' "$TMP/segv.err"
validate segv

pycheck "the profile holds the work before the crash" <<'PY'
import os
import artifacts as A
a = A.load_dir(os.path.join(os.environ["TMP"], "segv"))
s = a["summary"]
assert s["exit_status"] == 139, "summary.json exit_status %r" % (
    s["exit_status"],)
assert a["gecko"]["meta"]["benchprof"]["exit_status"] == 139, \
    "Gecko meta.benchprof.exit_status %r" % (
        a["gecko"]["meta"]["benchprof"].get("exit_status"),)
bad = A.expect_in_dso(a, "segv_work", "segv", 80)
assert not bad, "\n".join(bad)
PY

finish
