#!/bin/sh
# The profiled binary is deleted, or replaced by another program, while it
# runs.  benchprof symbolizes after the run, from the file system, so the
# file it finds is gone or is not the one that ran.  No crash, every
# artifact valid, and each frame of the binary either has one of ITS
# function names or is shown as "0xADDR (in victim)": never a name from
# the replacement (the build id the kernel reported no longer matches).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/fault_lib.sh"

# run_victim NAME WHAT: profile a copy of the threads workload and, once it
# runs, apply WHAT to the copy
run_victim() {
  name=$1
  what=$2
  mkdir -p "$TMP/$name"
  cp "$WORKLOADS/threads" "$TMP/$name/victim"
  "$BENCHPROF" record -q -g fp --no-counters -o "$TMP/$name/out" -- \
    sh -c "$PIDFILE_EXEC" "$TMP/$name/pid" "$TMP/$name/victim" 1.0 \
    >/dev/null 2>"$TMP/$name/stderr" &
  bp=$!
  wait_file "$TMP/$name/pid" $bp
  target=$(cat "$TMP/$name/pid")
  n=0
  until readlink "/proc/$target/exe" | grep -q victim; do
    n=$((n + 1))
    [ $n -gt 1200 ] && break
    sleep 0.02
  done
  case $what in
    delete) rm -f "$TMP/$name/victim" ;;
    replace) cp "$WORKLOADS/forks" "$TMP/$name/new" &&
             mv -f "$TMP/$name/new" "$TMP/$name/victim" ;;
  esac
  check "$name: it happened while the program ran" \
    grep -q victim "/proc/$target/cmdline"
  wait $bp
  rc=$?
  check "$name: benchprof exits 0 (got $rc)" [ "$rc" -eq 0 ]
  check "$name: every artifact is valid" env PYTHONPATH="$top_srcdir/tests" \
    python3 "$top_srcdir/tests/artifacts.py" validate "$TMP/$name/out"
  # its symbols, and the PLT stubs of the functions it imports
  { nm "$WORKLOADS/threads" | awk '{ print $NF }'
    nm -D --undefined-only "$WORKLOADS/threads" |
      awk '{ sub(/@.*/, "", $NF); print $NF "@plt" }'
  } >"$TMP/$name/names"
  check "$name: frames of the victim are its names or 0xADDR (in victim)" \
    env PYTHONPATH="$top_srcdir/tests" python3 - "$TMP/$name" <<'PY'
import os, re, sys
import artifacts as A
d = sys.argv[1]
own = set(open(os.path.join(d, "names")).read().split())
a = A.load_dir(os.path.join(d, "out"))
seen = 0
for s in A.gecko_stacks(a["gecko"]):
    for f in s.frames:
        fn, lib = A.split_location(f)
        if lib != "victim":
            continue
        seen += 1
        assert fn in own or re.fullmatch(r"0x[0-9a-f]+", fn), \
            "%r is not a function of the program that ran" % f
assert seen, "no frame in victim at all"
PY
}

run_victim deleted delete
run_victim replaced replace
check "replaced: stderr has no crash report" \
  sh -c "! grep -qi 'sanitizer\|segmentation' '$TMP/replaced/stderr'"
finish
