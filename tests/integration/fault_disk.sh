#!/bin/sh
# The output folder's file system is full, or read-only.  benchprof says
# so clearly (what, where, why) and exits non-zero; every artifact that is
# there is whole (made without a name and linked into place, or written to
# a temporary file and renamed) and no temporary file is left behind.
# And with TMPDIR unset, a runtime directory without room for the
# markers' FIFOs is given up for the next place.
# All use a small tmpfs of their own, so
# this test must run as root (CI does); it fails, not skips, otherwise.
. "$top_srcdir/tests/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
  fail "fault_disk.sh mounts a tmpfs: run it as root (CI does)"
  finish
fi
mounted=
# unmounted before the test's directory goes
at_exit 'for m in $mounted; do umount "$m" 2>/dev/null; done'

mount_tmpfs() {  # DIR OPTIONS
  mkdir -p "$1"
  if ! mount -t tmpfs -o "$2" tmpfs "$1"; then
    fail "cannot mount a tmpfs on $1 ($2): this test needs mount(2)"
    finish
  fi
  mounted="$1 $mounted"
}

# no file may be a leftover: only the artifacts' own names, each valid
whole_or_absent() {
  PYTHONPATH="$top_srcdir/tests" python3 - "$1" <<'PY'
import gzip, json, os, sys
import xml.etree.ElementTree as ET
import artifacts as A
d = sys.argv[1]
if not os.path.isdir(d):
    sys.exit(0)
for name in os.listdir(d):
    p = os.path.join(d, name)
    assert name in A.ARTIFACTS, "leftover file %s" % name
    if name.endswith(".json"):
        json.load(open(p))
    elif name == "profile.json.gz":
        A.read_gecko(p)
    elif name == "profile.pb.gz":
        A.read_pprof(p)
    elif name.endswith(".svg"):
        ET.parse(p)
    elif name == "profile.folded":
        A.read_folded(p)
    print("whole: %s" % name)
PY
}

# 1. disk full: 16 pages, most taken by a filler, a few left for artifacts
mount_tmpfs "$TMP/full" size=64k
head -c 50000 /dev/zero >"$TMP/full/filler"
"$BENCHPROF" record -q -o "$TMP/full/out" -- "$WORKLOADS/threads" 0.2 \
  >/dev/null 2>"$TMP/full.err"
rc=$?
cat "$TMP/full.err"
check "disk full: benchprof fails (got $rc)" [ "$rc" -ne 0 ]
check "disk full: the error names the file and says why" \
  grep -q "cannot write '.*'.*No space left on device" "$TMP/full.err"
check "disk full: what is there is whole, no temporary file" \
  whole_or_absent "$TMP/full/out"

# 2. read-only output folder: refused before the command runs
mount_tmpfs "$TMP/ro" size=64k,ro
"$BENCHPROF" record -q -o "$TMP/ro/out" -- touch "$TMP/ran" \
  >/dev/null 2>"$TMP/ro.err"
rc=$?
cat "$TMP/ro.err"
check "read-only: benchprof fails (got $rc)" [ "$rc" -ne 0 ]
check "read-only: the error names the folder and says why" \
  grep -q "directory '.*/ro/out'.*Read-only file system" "$TMP/ro.err"
check "read-only: the command did not run for nothing" [ ! -e "$TMP/ran" ]
check "read-only: nothing written" [ -z "$(ls -A "$TMP/ro")" ]

# 3. the output folder exists and is read-only (a read-only bind mount)
mount_tmpfs "$TMP/rw" size=64k
mkdir "$TMP/rw/out"
if mount --bind -o ro "$TMP/rw/out" "$TMP/rw/out" 2>/dev/null ||
   { mount --bind "$TMP/rw/out" "$TMP/rw/out" &&
     mount -o remount,bind,ro "$TMP/rw/out"; }; then
  mounted="$TMP/rw/out $mounted"
  "$BENCHPROF" record -q -o "$TMP/rw/out" -- true >/dev/null 2>"$TMP/rw.err"
  rc=$?
  cat "$TMP/rw.err"
  check "read-only existing folder: benchprof fails (got $rc)" [ "$rc" -ne 0 ]
  check "read-only existing folder: a clear error" \
    grep -q "cannot write to output directory .*Read-only file system" \
    "$TMP/rw.err"
  check "read-only existing folder: nothing written" \
    [ -z "$(ls -A "$TMP/rw/out")" ]
else
  fail "cannot make a read-only bind mount"
fi

# 4. TMPDIR is full and nothing is kept in memory (record.spill_memory
# false): the rings cannot be spilled there during the run, so
# benchprof reads them live instead, says so, and loses no sample.  128 KiB
# rings at 4000 Hz wake benchprof every 0.2 s or so.  ASan's instrumented
# reader drains them more slowly (with kernel frames sampled by default it
# lost samples at 128 KiB): 256 KiB there, still far less than the run
# writes, so the samples are read live either way (the warning below).
mount_tmpfs "$TMP/tmpfull" size=64k
head -c 60000 /dev/zero >"$TMP/tmpfull/filler" 2>/dev/null
pages=32
ldd "$BENCHPROF" | grep -q libasan && pages=64
TMPDIR="$TMP/tmpfull" BENCHPROF_SPILL_MEMORY=false "$BENCHPROF" record -g fp \
  -F 4000 -m $pages -o "$TMP/spill" \
  -- "$WORKLOADS/threads" 0.5 >/dev/null 2>"$TMP/spill.err"
rc=$?
cat "$TMP/spill.err"
check "full TMPDIR: the command's status survives (got $rc)" [ "$rc" -eq 0 ]
check "full TMPDIR: a warning says the samples were read live, and why" \
  grep -q "cannot keep the samples in .*tmpfull during the run (No space left on device); read them while the command ran" \
  "$TMP/spill.err"
check "full TMPDIR: nothing lost, nothing corrupt" \
  grep -q " samples, 0 lost" "$TMP/spill.err"
check "full TMPDIR: the profile is whole and has the run's samples" \
  python3 - "$TMP/spill/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["samples"] > 1000, s["samples"]
assert s.get("corrupt_records", 0) == 0, s
PY

# 4b. the same full TMPDIR, the spill kept in memory (the default): the
# run's samples never need TMPDIR; all of them spilled, nothing said
TMPDIR="$TMP/tmpfull" "$BENCHPROF" record -g fp -F 4000 -m $pages \
  -o "$TMP/spillmem" -- "$WORKLOADS/threads" 0.5 >/dev/null 2>"$TMP/spillmem.err"
rc=$?
check "full TMPDIR, spill in memory: status 0 (got $rc)" [ "$rc" -eq 0 ]
check "full TMPDIR, spill in memory: no warning about TMPDIR" \
  sh -c '! grep -q "cannot keep the samples" "$1"' - "$TMP/spillmem.err"
check "full TMPDIR, spill in memory: spilled, nothing lost or corrupt" \
  python3 - "$TMP/spillmem/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print("  %d samples, %d lost, %d bytes spilled" % (
    s["samples"], s["lost"], s["spilled_bytes"]))
assert s["samples"] > 1000 and s["lost"] == 0, s
assert s["spilled_bytes"] > 0, s
assert s.get("corrupt_records", 0) == 0, s
PY

# 5. the same full TMPDIR with rings the run fits in (16 MiB per CPU; about
# 10 MB of 8 KiB stack copies in all): nothing needs to go to TMPDIR, and
# nothing is said about it
TMPDIR="$TMP/tmpfull" "$BENCHPROF" record -F 997 -m 4096 -o "$TMP/fits" \
  -- "$WORKLOADS/threads" 0.3 >/dev/null 2>"$TMP/fits.err"
rc=$?
check "full TMPDIR, run fits in the rings: status 0 (got $rc)" [ "$rc" -eq 0 ]
check "full TMPDIR, run fits in the rings: no warning about TMPDIR" \
  sh -c '! grep -q "cannot keep the samples" "$1"' - "$TMP/fits.err"
check "full TMPDIR, run fits in the rings: all samples, none spilled" \
  python3 - "$TMP/fits/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print("  %d samples, %d lost, %d bytes spilled, rings of %d bytes" % (
    s["samples"], s["lost"], s["spilled_bytes"], s["ring_bytes"]))
assert s["samples"] > 400 and s["lost"] == 0, s
assert s["spilled_bytes"] == 0, s
PY

# 6. TMPDIR unset, the runtime directory has room for the markers' FIFO
# directory but not for the FIFOs (a tmpfs of two inodes: its root and
# one more, the directory; mkfifo then fails with ENOSPC, as mkdir and
# mkfifo by hand there show): that place is given up whole, its
# directory removed, and the
# FIFOs go to the next place (/dev/shm, else /tmp), where the markers work
mount_tmpfs "$TMP/xdg" size=64k,nr_inodes=2
cat >"$TMP/marked.sh" <<'SH'
#!/bin/sh
echo "control=$BENCHPROF_CONTROL"
echo "begin - fallback" >"$BENCHPROF_CONTROL"
"$1" 0.1 >/dev/null
echo "end -" >"$BENCHPROF_CONTROL"
SH
chmod +x "$TMP/marked.sh"
env -u TMPDIR XDG_RUNTIME_DIR="$TMP/xdg" "$BENCHPROF" record -q \
  -o "$TMP/fifo" -- "$TMP/marked.sh" "$WORKLOADS/split" >"$TMP/fifo.out" \
  2>"$TMP/fifo.err"
rc=$?
cat "$TMP/fifo.err"
check "no room for the FIFOs in the runtime directory: status 0 (got $rc)" \
  [ "$rc" -eq 0 ]
check "no room for the FIFOs in the runtime directory: they went to the \
next place" grep -Eq '^control=(/dev/shm|/tmp)/benchprof-ctl\.[A-Za-z0-9]+/control$' \
  "$TMP/fifo.out"
check "no room for the FIFOs in the runtime directory: nothing left there" \
  [ -z "$(ls -A "$TMP/xdg")" ]
check "no room for the FIFOs in the runtime directory: the markers worked" \
  [ -f "$TMP/fifo/fallback/profile.folded" ]
finish
