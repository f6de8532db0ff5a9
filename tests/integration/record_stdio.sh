#!/bin/sh
# The target's stdin, stdout and stderr are its own, and benchprof exits
# with its status: what goes in comes out unchanged, benchprof writes
# nothing to stdout, and the exit status (or 128+signal) is the target's.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

# the loop gives the profile some samples to validate, even under load
printf 'a\nb\n' | "$BENCHPROF" record -q -o "$TMP/o1" -- \
  sh -c 'cat; i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done
         echo err >&2; exit 7' >"$TMP/o1.out" 2>"$TMP/o1.err"
status=$?
check "exit status 7 is passed through" test "$status" -eq 7
printf 'a\nb\n' >"$TMP/o1.want"
check "stdout is exactly the input" cmp "$TMP/o1.want" "$TMP/o1.out"
check "the target's stderr comes through" grep -qx 'err' "$TMP/o1.err"
check "with -q, benchprof adds at most warnings to stderr" \
  sh -c "! grep -v -e '^err\$' -e '^benchprof: warning: ' '$TMP/o1.err'"
validate o1

# 1 MiB of binary data through cat; the summary goes to stderr only
head -c 1048576 /dev/urandom >"$TMP/blob"
"$BENCHPROF" record -o "$TMP/o2" -- cat <"$TMP/blob" >"$TMP/o2.out" \
  2>"$TMP/o2.err"
status=$?
check "cat: exit status 0" test "$status" -eq 0
check "cat: binary stdin reaches stdout unchanged" cmp "$TMP/blob" \
  "$TMP/o2.out"
check "cat: the summary is on stderr" grep -q 'samples' "$TMP/o2.err"

for code in 0 1 255; do
  "$BENCHPROF" record -q -o "$TMP/x$code" -- sh -c "exit $code" \
    >/dev/null 2>"$TMP/x$code.err"
  status=$?
  check "exit status $code is passed through" test "$status" -eq "$code"
done

"$BENCHPROF" record -q -o "$TMP/sig" -- sh -c 'kill -TERM $$' \
  >/dev/null 2>"$TMP/sig.err"
status=$?
check "a target killed by SIGTERM gives 143" test "$status" -eq 143

# options after the command are the command's own
"$BENCHPROF" record -q -o "$TMP/own" -- sh -c 'echo "$@"' sh -o -q -F x \
  >"$TMP/own.out" 2>"$TMP/own.err"
status=$?
check "the command's options are its own" \
  sh -c "[ $status -eq 0 ] && [ \"\$(cat '$TMP/own.out')\" = '-o -q -F x' ]"

# benchprof ends its process once the artifacts are written, leaving its
# memory to the exit: still the command's status, its output, the whole
# summary on stderr, and nothing left behind where the markers' FIFO was
# (the runtime directory, a memory file system)
mkdir -m 700 "$TMP/run"
XDG_RUNTIME_DIR="$TMP/run" "$BENCHPROF" record -o "$TMP/end" -- \
  sh -c 'echo "control=$BENCHPROF_CONTROL"; exit 5' >"$TMP/end.out" \
  2>"$TMP/end.err"
status=$?
check "last exit: status 5 is passed through" test "$status" -eq 5
check "last exit: the FIFO was in the runtime directory" \
  grep -q "^control=$TMP/run/benchprof-ctl\.[A-Za-z0-9]*/control\$" "$TMP/end.out"
check "last exit: the summary's last line is on stderr" \
  grep -q '^benchprof: artifacts in ' "$TMP/end.err"
check "last exit: the FIFO and its directory are gone" \
  test -z "$(ls -A "$TMP/run")"
validate end

finish
