#!/bin/sh
# A user whose locked-memory limit is below benchprof's rings (not root,
# ulimit -l 0, only kernel.perf_event_mlock_kb left): the kernel refuses
# the rings (EPERM), benchprof halves them until it accepts them, says
# so with both limits, and the recording is whole: the command's status
# and output, the samples, valid artifacts, the smaller rings in
# summary.json.  Runs the recording as user nobody, so the test must run
# as root (CI does); it fails, not skips, otherwise.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need_workload split
need setpriv "apt-get install util-linux"
if [ "$(id -u)" -ne 0 ]; then
  fail "record_memlock.sh runs benchprof as nobody: run it as root (CI does)"
  finish
fi
# an unprivileged user may profile its own processes up to paranoid 2
# (Debian's kernels default to 3: none at all)
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$paranoid" -gt 2 ]; then
  echo 2 >/proc/sys/kernel/perf_event_paranoid
  at_exit "echo $paranoid >/proc/sys/kernel/perf_event_paranoid"
fi

chmod o+x "$TMP"
mkdir -m 777 "$TMP/nobody"
setpriv --reuid=65534 --regid=65534 --clear-groups sh -c '
  ulimit -l 0 &&
  exec "$1" record -o "$2/out" -- sh -c "\"\$1\" 0.3; echo done; exit 3" \
    sh "$3"' sh "$BENCHPROF" "$TMP/nobody" "$WORKLOADS/split" \
  >"$TMP/nobody.out" 2>"$TMP/nobody.err"
status=$?
cat "$TMP/nobody.err"
check "as nobody, ulimit -l 0: the command's status survives (got $status)" \
  [ "$status" -eq 3 ]
check "as nobody, ulimit -l 0: the command's output survives" \
  grep -qx done "$TMP/nobody.out"
check "the smaller rings are said, with both limits" \
  grep -q "warning: rings of [0-9]* KiB per CPU instead of [0-9]* KiB: .*kernel.perf_event_mlock_kb [0-9]*, then ulimit -l 0" \
  "$TMP/nobody.err"
check "the recording is whole: its artifacts are well formed and agree" \
  python3 "$top_srcdir/tests/artifacts.py" validate "$TMP/nobody/out"
pycheck "summary.json: samples, none lost, rings smaller than the default" \
  <<'PY'
import json, os
s = json.load(open(os.path.join(os.environ["TMP"], "nobody", "out",
                                "summary.json")))
print("  %d samples, %d lost, rings of %d bytes" % (
    s["samples"], s["lost"], s["ring_bytes"]))
assert s["samples"] > 100 and s["lost"] == 0, s
# the default with stack copies is 2 to 32 MiB per CPU
assert 0 < s["ring_bytes"] < 2 << 20, s["ring_bytes"]
PY
finish
