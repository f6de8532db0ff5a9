#!/bin/sh
# A user whose locked-memory limit is below benchprof's rings (not root,
# ulimit -l 0, only kernel.perf_event_mlock_kb left): the kernel refuses
# the rings (EPERM), benchprof halves them until it accepts them, says
# so with both limits, and the recording is whole: the command's status
# and output, its samples, valid artifacts, the smaller rings in
# summary.json.  The recording runs as a uid of its own (the kernel's
# allowance is per user: tests running as nobody at the same time would
# share it), so the test must run as root (CI does); it fails, not
# skips, otherwise.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

need_workload split
need setpriv "apt-get install util-linux"
if [ "$(id -u)" -ne 0 ]; then
  fail "record_memlock.sh runs benchprof as another user: run it as root (CI does)"
  finish
fi
# an unprivileged user may profile its own processes up to paranoid 2
# (Debian's kernels default to 3: none at all)
old=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$old" -gt 2 ]; then
  echo 2 >/proc/sys/kernel/perf_event_paranoid ||
    { fail "cannot set kernel.perf_event_paranoid"; finish; }
  at_exit 'echo "$old" >/proc/sys/kernel/perf_event_paranoid'
fi

# copies that user can reach, wherever the build tree lives
uid=65521
chmod 777 "$TMP"
cp "$BENCHPROF" "$TMP/benchprof"
cp "$WORKLOADS/split" "$TMP/split"
chmod 755 "$TMP/benchprof" "$TMP/split"
# 199 Hz: 8 KiB stack copies fill 512 KiB rings in about 0.3 s, time
# enough for benchprof to copy them out on a busy machine
setpriv --reuid=$uid --regid=$uid --clear-groups sh -c '
  ulimit -l 0 &&
  exec "$1" record -F 199 -o "$2/out" -- sh -c "\"\$1\" 0.5; echo done; exit 3" \
    sh "$3"' sh "$TMP/benchprof" "$TMP" "$TMP/split" \
  >"$TMP/user.out" 2>"$TMP/user.err"
status=$?
cat "$TMP/user.err"
check "ulimit -l 0: the command's status survives (got $status)" \
  [ "$status" -eq 3 ]
check "ulimit -l 0: the command's output survives" \
  grep -qx done "$TMP/user.out"
check "the smaller rings are said, with both limits" \
  grep -q "warning: rings of [0-9]* KiB per CPU instead of [0-9]* KiB: .*kernel.perf_event_mlock_kb [0-9]*, then ulimit -l 0" \
  "$TMP/user.err"
check "the recording is whole: its artifacts are well formed and agree" \
  python3 "$top_srcdir/tests/artifacts.py" validate "$TMP/out"
pycheck "summary.json: the run's samples, rings smaller than the default" \
  <<'PY'
import json, os
s = json.load(open(os.path.join(os.environ["TMP"], "out", "summary.json")))
print("  %d samples, %d lost, rings of %d bytes" % (
    s["samples"], s["lost"], s["ring_bytes"]))
# 0.5 s of CPU at 199 Hz: about 100
assert s["samples"] + s["lost"] > 60 and s["samples"] > 50, s
# the default with stack copies is 2 to 32 MiB per CPU
assert 0 < s["ring_bytes"] < 2 << 20, s["ring_bytes"]
PY
finish
