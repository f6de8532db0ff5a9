#!/bin/sh
# What `make install` puts on a machine: benchprof, benchprof-wrap, the
# runner hooks, the header-only benchprof/hooks.h (it compiles on its
# own) and no benchprof.h (it declares the library's API, and the library
# is internal, not installed); the man pages benchprof(1) and
# benchprof-wrap(1), which render without warnings and whose SYNOPSIS
# puts each command on its own line.
. "$top_srcdir/tests/lib.sh"

ROOT="$TMP/root"
make -s -C "$top_builddir" install DESTDIR="$ROOT" >"$TMP/install.out" 2>&1
check "make install DESTDIR=...: exit 0" [ $? -eq 0 ]
# find NAME: the installed file called NAME (one path, or nothing)
find_one() {
  find "$ROOT" -name "$1" -type f | head -n 1
}
check "benchprof and benchprof-wrap installed" sh -c \
  "[ -n \"\$(find '$ROOT' -path '*/bin/benchprof')\" ] &&
   [ -n \"\$(find '$ROOT' -path '*/bin/benchprof-wrap')\" ]"
check "the GitHub hooks installed" [ -n "$(find_one job-completed.sh)" ]
HOOKS_H=$(find_one hooks.h)
check "benchprof/hooks.h installed" [ -n "$HOOKS_H" ]
check "benchprof.h not installed (no library declares it)" \
  [ -z "$(find_one benchprof.h)" ]
check "no library or pkg-config file pointing at one" sh -c \
  "[ -z \"\$(find '$ROOT' -name 'libbenchprof*' -o -name '*.pc')\" ]"
if command -v cc >/dev/null 2>&1; then
  printf '#include <benchprof/hooks.h>\nint main(void){benchprof_begin("a");benchprof_end();return 0;}\n' \
    >"$TMP/use.c"
  check "hooks.h compiles with only the installed include directory" \
    cc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Werror \
    -I"$(dirname "$(dirname "$HOOKS_H")")" -o "$TMP/use" "$TMP/use.c"
fi

# render PAGE: the page as a terminal shows it, groff's warnings kept
render() {
  groff -man -Tascii -ww -P-c -P-b -P-u "$1" 2>"$TMP/groff.err" |
    sed 's/  */ /g'
}
for page in benchprof.1 benchprof-wrap.1; do
  path=$(find_one "$page")
  check "$page installed" [ -n "$path" ]
  render "$path" >"$TMP/$page.txt"
  check "$page renders without warnings" [ ! -s "$TMP/groff.err" ]
done
# each SYNOPSIS command begins its own line
for cmd in record run flush stat events serve config ci compare comment; do
  check "benchprof(1) SYNOPSIS: 'benchprof $cmd' begins a line" grep -Eq \
    "^ *benchprof $cmd( |\$)" "$TMP/benchprof.1.txt"
done
check "benchprof(1) SYNOPSIS: serve's line holds no other command" sh -c \
  "! grep -E 'benchprof serve.*benchprof config' '$TMP/benchprof.1.txt' &&
   ! grep -E -- '--base-hash H benchprof compare' '$TMP/benchprof.1.txt'"
check "benchprof(1) refers to benchprof-wrap(1)" grep -q "benchprof-wrap(1)" \
  "$TMP/benchprof.1.txt"
check "benchprof-wrap(1) documents every mode" sh -c \
  "for m in --enabled --check --output --new-job --job-comment --shims \
     BENCHPROF_RUN_ARGS BENCHPROF_WRAP_COMMANDS; do
     grep -q -- \"\$m\" '$TMP/benchprof-wrap.1.txt' || exit 1; done"
finish
