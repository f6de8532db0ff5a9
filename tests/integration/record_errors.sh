#!/bin/sh
# Errors before the target runs: a command that cannot be started (127, or
# 126 when it is not executable, like a shell), an unknown event (2, with
# the close match), an output directory that cannot be made (1, before the
# command runs) and bad option values (2).  Each says why on stderr.
. "${top_srcdir:?run through make check}/tests/lib.sh"
. "$top_srcdir/tests/record_lib.sh"

# expect NAME STATUS REGEX: $status is STATUS and benchprof's stderr
# matches the extended REGEX (case-insensitive)
expect() {
  expect_status "$1" "$2"
  if grep -Eiq -e "$3" "$TMP/$1.err"; then
    pass "$1: stderr says /$3/"
  else
    fail "$1: stderr does not match /$3/"
    sed 's/^/  stderr: /' "$TMP/$1.err" >&2
  fi
}

# a command that leaves a mark when it runs
ran="$TMP/ran"
mark() {
  check "$1: the command did not run" test ! -e "$ran"
  rm -f "$ran"
}

record missing -- "$TMP/no-such-command" arg
expect missing 127 'no-such-command.*(not found|no such file)'

record missing_path -- benchprof-no-such-command-in-path
expect missing_path 127 'benchprof-no-such-command-in-path.*not found'

printf '#!/bin/sh\ntouch "%s"\n' "$ran" >"$TMP/script.sh"
chmod 644 "$TMP/script.sh"
record notexec -- "$TMP/script.sh"
expect notexec 126 'script.sh.*permission denied'
mark notexec

record event -e cyclez -- touch "$ran"
expect event 2 'did you mean:.*\<cycles\>'
check "event: the unknown name is quoted" grep -q 'cyclez' "$TMP/event.err"
mark event

# root ignores permission bits: make the output directory's parent a file
: >"$TMP/afile"
"$BENCHPROF" record -o "$TMP/afile/out" -- touch "$ran" \
  >"$TMP/outdir.out" 2>"$TMP/outdir.err"
status=$?
expect outdir 1 'afile/out'
check "outdir: the reason is given" \
  grep -Eiq 'not a directory|cannot|could not|failed' "$TMP/outdir.err"
mark outdir

# bad_option NAME REGEX OPTION...: exit 2, stderr matches REGEX, and the
# command did not run
bad_option() {
  name=$1 regex=$2
  shift 2
  "$BENCHPROF" record -o "$TMP/$name" "$@" -- touch "$ran" \
    >"$TMP/$name.out" 2>"$TMP/$name.err"
  status=$?
  expect "$name" 2 "$regex"
  mark "$name"
}
bad_option F_word "-F.*'abc'" -F abc
bad_option F_zero "-F.*'0'" -F 0
bad_option F_negative "-F.*'-5'" -F -5
bad_option F_huge "-F.*'99999999999'" -F 99999999999
bad_option c_zero "-c.*'0'" -c 0
bad_option c_word "-c.*'xyz'" -c xyz
bad_option F_and_c "-F and -c are both given" -F 100 -c 100
bad_option m_odd "-m.*'3'" -m 3
bad_option g_mode "dwarfish" -g dwarfish
bad_option unknown_option "no-such-option" --no-such-option

"$BENCHPROF" record -o "$TMP/nocmd" >"$TMP/nocmd.out" 2>"$TMP/nocmd.err"
status=$?
expect nocmd 2 'no command'

finish
