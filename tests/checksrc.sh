#!/bin/sh
# The boundaries the layout promises, checked on the sources:
# - the library never prints or exits (the command prints, in msgs.c);
# - each third-party library is used by exactly one file of the library;
# - the library never includes the command's headers;
# - no unbounded string functions or unchecked number parsing.
. "$top_srcdir/tests/lib.sh"
cd "$top_srcdir" || exit 1
lib=plugin/lib
cli=plugin/cli

# only_in PATTERN FILE...: PATTERN appears in no other plugin/ source
only_in() {
  pattern=$1
  shift
  found=$(grep -lE "$pattern" $lib/*.c $lib/*.h $cli/*.c $cli/*.h | sort)
  allowed=$(printf '%s\n' "$@" | sort)
  [ "$found" = "$allowed" ] || {
    echo "'$pattern' used in: $(echo $found) (allowed: $*)"
    return 1
  }
}

check "libpfm4 only in events.c" only_in '<perfmon/' $lib/events.c
check "libdw and libelf only in the symbolizer (symbols*.c) and unwind.c" \
  only_in '<(elfutils/|gelf\.h|libelf\.h|dwarf\.h)' $lib/symbols.c $lib/symbols_dwarf.c \
  $lib/symbols_cxxname.c $lib/symbols_int.h $lib/unwind.c
check "libiberty only in symbols.c" only_in '<libiberty/' $lib/symbols.c
check "zlib only in fileio.c" only_in '<zlib\.h>' $lib/fileio.c
check "libcurl only in http's files (through http_int.h)" \
  only_in '<curl/' $lib/http_int.h
check "libdebuginfod only in symbols_debuginfod.c" \
  only_in 'BP_DEBUGINFOD_SONAME' $lib/symbols_debuginfod.c
check "libmicrohttpd only in serve's HTTP files (through serve_mhd.h)" \
  only_in '<microhttpd\.h>' $lib/serve_mhd.h
check "perf_event_open only in sampler_open.c, counters.c and events.c (probes)" \
  only_in 'SYS_perf_event_open' $lib/counters.c $lib/events.c $lib/sampler_open.c
check "the library does not print" \
  sh -c "! grep -nE '\\b(printf|fprintf|puts|perror|exit)\\(' $lib/*.c | grep -v '^$lib/[a-z_]*\\.c:[0-9]*: *\\*'"
check "the library does not include the command" \
  sh -c "! grep -n '#include \"\\(cli\\|msgs\\)\\.h\"' $lib/*.c $lib/*.h"
check "no unbounded string functions or atoi" \
  sh -c "! grep -nE '\\b(sprintf|strcpy|strcat|strncpy|strtok|gets|atoi|atol)\\(' $lib/*.c $cli/*.c"
check "getenv is not used in the library" \
  sh -c "! grep -n 'getenv' $lib/*.c"
finish
