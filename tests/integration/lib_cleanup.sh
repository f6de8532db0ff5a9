#!/bin/sh
# The test libraries' one cleanup (tests/lib.sh's at_exit): whatever the
# order the libraries are sourced in and whatever a test adds, the one
# EXIT trap stops the stand-in servers publish_lib.sh started, runs the
# test's own commands (the last added first, with their variables' values
# at the end, the test's directory removed last), keeps the test's exit
# status, and runs on SIGTERM too.  A second `trap ... EXIT` would replace
# it, so no test sets one.
. "$top_srcdir/tests/lib.sh"

# A test in miniature: sources the libraries in $CHILD_LIBS, starts a
# Bencher stand-in, adds two commands, then exits 3 (or takes a SIGTERM).
# What it did is in $CHILD_OUT.*
cat >"$TMP/child.sh" <<'SH'
. "$top_srcdir/tests/lib.sh"
for lib in $CHILD_LIBS; do
  . "$top_srcdir/tests/$lib"
done
standin bencher
echo "$PIDS" >"$CHILD_OUT.pids"
echo "$TMP" >"$CHILD_OUT.tmp"
at_exit 'echo "first added: $LATE" >>"$CHILD_OUT.ran"'
at_exit 'test -d "$TMP" && echo "last added: in $TEST_NAME" >>"$CHILD_OUT.ran"'
LATE=late
if [ "$CHILD_MODE" = term ]; then
  kill -TERM $$
  sleep 30
fi
exit 3
SH

# gone PID: the process ended (or is a zombie waiting for its parent), within 10 s
gone() {
  i=0
  while [ $i -lt 100 ]; do
    [ -d "/proc/$1" ] || return 0
    case $(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) in
      Z*|X*|'') return 0 ;;
    esac
    sleep 0.1
    i=$((i + 1))
  done
  return 1
}

# child NAME MODE LIBS...: runs the miniature test; checks what it left
child() {
  name=$1 mode=$2
  shift 2
  CHILD_LIBS="$*" CHILD_OUT="$TMP/$name" CHILD_MODE=$mode BP_KEEP_TMP= \
    TMPDIR="$TMP" sh "$TMP/child.sh" >"$TMP/$name.out" 2>&1
  got=$?
  want=3
  [ "$mode" = term ] && want=143
  check "$name: the exit status survives the cleanup ($got, want $want)" \
    [ "$got" -eq "$want" ]
  pids=$(cat "$TMP/$name.pids" 2>/dev/null)
  check "$name: a stand-in was started" [ -n "$pids" ]
  for p in $pids; do
    check "$name: stand-in $p is stopped" gone "$p"
    kill "$p" 2>/dev/null  # not to leave it running if it was not
  done
  check "$name: the added commands ran, the last added first, before the directory went" \
    [ "$(cat "$TMP/$name.ran" 2>/dev/null)" = "last added: in child
first added: late" ]
  dir=$(cat "$TMP/$name.tmp" 2>/dev/null)
  check "$name: its directory is removed" test -n "$dir" -a ! -e "$dir"
  if [ "$got" -ne "$want" ] || [ ! -s "$TMP/$name.ran" ]; then
    sed 's/^/  child: /' "$TMP/$name.out" >&2
  fi
}

# publish_lib.sh then record_lib.sh: the order whose second trap used to
# leave the stand-ins running
child publish-record exit publish_lib.sh record_lib.sh
child record-publish exit record_lib.sh publish_lib.sh
child publish exit publish_lib.sh
child publish-record-term term publish_lib.sh record_lib.sh

# every test that sources lib.sh leaves its EXIT trap alone
traps=$(cd "$top_srcdir" && grep -lF 'tests/lib.sh' tests/*.sh \
          tests/integration/*.sh tests/pmu/*.sh 2>/dev/null |
        xargs grep -nE '^[[:space:]]*trap .*[[:space:]](EXIT|0)[[:space:]]*$' |
        grep -v '^tests/lib\.sh:')
check "no test but lib.sh sets an EXIT trap (at_exit instead)${traps:+: $traps}" \
  [ -z "$traps" ]
finish
