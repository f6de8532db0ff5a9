#!/bin/sh
# "strict": true in a configuration file that is otherwise invalid: the
# operator asked that a configuration benchprof cannot use fail the job,
# so it does, as with --strict or BENCHPROF_STRICT=1: run exits 2 and the
# command never runs (a wrong type, a misspelt key), record, flush, ci
# and comment exit 2, config check says strict mode is on, and
# benchprof-wrap refuses to run the command (--enabled: 3).
# BENCHPROF_STRICT=0 still turns it off, and a file that is not JSON at
# all says nothing about strict (a warning, the command runs).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/publish_lib.sh"
. "$top_srcdir/tests/hooks_lib.sh"

cd "$TMP" || exit 1
ran="$TMP/ran"
echo '{"strict": true, "output": 5}' >"$TMP/type.json"
echo '{"strict":true,"record":{"frequncy":99}}' >"$TMP/key.json"
echo '{"strict": true, "enabled": true, "store": {"url": "/data/store"}}' \
  >"$TMP/url.json"
printf '{"strict": true, "output": "x",\n' >"$TMP/syntax.json"

# strict_refuses NAME FILE: run with FILE exits 2 without running CMD,
# and says the file's problem and that strict mode is on
strict_refuses() {
  "$BENCHPROF" run --config "$2" --no-publish -- \
    sh -c "touch '$ran'; exit 7" >"$TMP/$1.out" 2>"$TMP/$1.err"
  st=$?
  check "$1: exit 2 ($st)" [ "$st" -eq 2 ]
  check "$1: the command did not run" [ ! -e "$ran" ]
  check "$1: says strict mode is on" grep -q "strict mode is on" \
    "$TMP/$1.err"
  check "$1: names the file" grep -qF "$2" "$TMP/$1.err"
  check "$1: no 'running the command unprofiled'" sh -c \
    "! grep -q unprofiled '$TMP/$1.err'"
  rm -f "$ran"
}
strict_refuses type "$TMP/type.json"
check "type: says which key" grep -q '\$\.output' "$TMP/type.err"
strict_refuses key "$TMP/key.json"
check "key: the misspelt key and the suggestion" grep -q \
  'frequncy.*did you mean "frequency"' "$TMP/key.err"
strict_refuses url "$TMP/url.json"

# the environment still wins over the file
BENCHPROF_STRICT=0 "$BENCHPROF" run --config "$TMP/key.json" --no-publish \
  -- sh -c "touch '$ran'; exit 7" >/dev/null 2>"$TMP/env0.err"
st=$?
check "BENCHPROF_STRICT=0: the command's status (7, got $st)" [ "$st" -eq 7 ]
check "BENCHPROF_STRICT=0: the command ran" [ -e "$ran" ]
check "BENCHPROF_STRICT=0: a warning" grep -q "ignoring the configuration" \
  "$TMP/env0.err"
rm -f "$ran"

# not JSON: nothing in it can be read, strict included
"$BENCHPROF" run --config "$TMP/syntax.json" --no-publish \
  -- sh -c "touch '$ran'; exit 7" >/dev/null 2>"$TMP/syntax.err"
st=$?
check "JSON syntax error: the command's status (7, got $st)" [ "$st" -eq 7 ]
check "JSON syntax error: the command ran" [ -e "$ran" ]
rm -f "$ran"

# the other commands that load the configuration
"$BENCHPROF" record --config "$TMP/key.json" -o "$TMP/rec" -- \
  touch "$ran" >/dev/null 2>"$TMP/record.err"
st=$?
check "record: exit 2 ($st)" [ "$st" -eq 2 ]
check "record: the command did not run" [ ! -e "$ran" ]
"$BENCHPROF" flush --config "$TMP/key.json" --spool "$TMP/spool" \
  >/dev/null 2>"$TMP/flush.err"
st=$?
check "flush: exit 2 ($st)" [ "$st" -eq 2 ]
"$BENCHPROF" ci --config "$TMP/key.json" >/dev/null 2>"$TMP/ci.err"
st=$?
check "ci: exit 2 ($st)" [ "$st" -eq 2 ]
echo "hello" >"$TMP/comment.md"
"$BENCHPROF" comment --config "$TMP/key.json" --markdown "$TMP/comment.md" \
  --github own/repo --pr 1 --api-url http://127.0.0.1:9 >/dev/null \
  2>"$TMP/comment.err"
st=$?
check "comment: exit 2 ($st)" [ "$st" -eq 2 ]
"$BENCHPROF" config check --config "$TMP/key.json" >/dev/null \
  2>"$TMP/check.err"
st=$?
check "config check: exit 2 ($st)" [ "$st" -eq 2 ]
check "config check: says strict mode is on" grep -q \
  "^benchprof: error: .*strict mode is on" "$TMP/check.err"
"$BENCHPROF" config check --config "$TMP/syntax.json" >/dev/null \
  2>"$TMP/check2.err"
check "config check, not JSON: strict mode not claimed" sh -c \
  "! grep -q 'strict mode' '$TMP/check2.err'"

# benchprof-wrap: --enabled says 3, the command is not run
BENCHPROF_CONFIG="$TMP/key.json" benchprof-wrap --enabled 2>"$TMP/en.err"
st=$?
check "benchprof-wrap --enabled: 3 ($st)" [ "$st" -eq 3 ]
BENCHPROF_CONFIG="$TMP/key.json" benchprof-wrap --strict
check "benchprof-wrap --strict: on" [ $? -eq 0 ]
BENCHPROF_CONFIG="$TMP/type.json" benchprof-wrap sh -c \
  "touch '$ran'; exit 7" >/dev/null 2>"$TMP/wrap.err"
st=$?
check "benchprof-wrap: exit 2 ($st)" [ "$st" -eq 2 ]
check "benchprof-wrap: the command did not run" [ ! -e "$ran" ]
check "benchprof-wrap: says strict mode is on" grep -q \
  "strict mode is on: the command is not run" "$TMP/wrap.err"
rm -f "$ran"
BENCHPROF_STRICT=0 BENCHPROF_CONFIG="$TMP/type.json" benchprof-wrap sh -c \
  "touch '$ran'; exit 7" >/dev/null 2>"$TMP/wrap0.err"
st=$?
check "benchprof-wrap, BENCHPROF_STRICT=0: the command's status ($st)" \
  [ "$st" -eq 7 ]
check "benchprof-wrap, BENCHPROF_STRICT=0: the command ran" [ -e "$ran" ]

finish
