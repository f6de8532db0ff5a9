# tests of the symbols part

check_PROGRAMS += tests/unit/test_symbols
TESTS += tests/unit/test_symbols
tests_unit_test_symbols_SOURCES = tests/unit/test_symbols.c
tests_unit_test_symbols_CPPFLAGS = $(unit_cppflags)
tests_unit_test_symbols_LDADD = $(unit_ldadd)

# Fixtures with known layout: built by hand, not as check_PROGRAMS, so the
# user's CFLAGS (-O2, sanitizers) cannot move their lines or inline them.
# The test finds them under $top_builddir/tests/unit/fixtures.
OBJCOPY = objcopy
symfix_src = $(srcdir)/tests/unit/fixtures/symfix.c
symfix_cflags = -g -O0 -fno-omit-frame-pointer
symfix_dir = tests/unit/fixtures
symfix_outputs = $(symfix_dir)/symfix_nopie $(symfix_dir)/symfix_pie \
  $(symfix_dir)/symfix_split $(symfix_dir)/symfix_cxx \
  $(symfix_dir)/symfix_opt
EXTRA_tests_unit_test_symbols_DEPENDENCIES = $(symfix_outputs)
EXTRA_DIST += tests/unit/fixtures/symfix.c tests/unit/fixtures/symfix.cc \
  tests/unit/fixtures/symfix.rs tests/unit/fixtures/symopt.cc
CLEANFILES += $(symfix_outputs) $(symfix_dir)/symfix_split.debug \
  $(symfix_dir)/symfix_split.full

# a known build id, which the test expects back
$(symfix_dir)/symfix_nopie: $(symfix_src)
	@$(MKDIR_P) $(symfix_dir)
	$(AM_V_CC)$(CC) $(symfix_cflags) -fno-pie -no-pie \
	  -Wl,--build-id=0x0123456789abcdef0123456789abcdef01234567 \
	  -o $@ $(symfix_src)

$(symfix_dir)/symfix_pie: $(symfix_src)
	@$(MKDIR_P) $(symfix_dir)
	$(AM_V_CC)$(CC) $(symfix_cflags) -fPIE -pie -Wl,--build-id -o $@ \
	  $(symfix_src)

# everything (symbols too) only in symfix_split.debug, found by debuglink
$(symfix_dir)/symfix_split: $(symfix_src)
	@$(MKDIR_P) $(symfix_dir)
	$(AM_V_CC)$(CC) $(symfix_cflags) -fPIE -pie -Wl,--build-id \
	  -o $@.full $(symfix_src)
	$(AM_V_GEN)$(OBJCOPY) --only-keep-debug $@.full $@.debug && \
	  $(OBJCOPY) --strip-all --add-gnu-debuglink=$@.debug $@.full $@ && \
	  rm -f $@.full

# no build id at all
$(symfix_dir)/symfix_cxx: $(srcdir)/tests/unit/fixtures/symfix.cc
	@$(MKDIR_P) $(symfix_dir)
	$(AM_V_GEN)$(CXX) $(symfix_cflags) -Wl,--build-id=none -o $@ \
	  $(srcdir)/tests/unit/fixtures/symfix.cc

# optimized as programs ship (-O2, main in .text.startup): what its
# comment says it holds depends on it
$(symfix_dir)/symfix_opt: $(srcdir)/tests/unit/fixtures/symopt.cc
	@$(MKDIR_P) $(symfix_dir)
	$(AM_V_GEN)$(CXX) -O2 -g -o $@ \
	  $(srcdir)/tests/unit/fixtures/symopt.cc

# Inlined functions as frames of their own: an always_inline function in
# an -O2 -g build (record_inline.sh).
check_PROGRAMS += tests/workloads/inline
tests_workloads_inline_SOURCES = tests/workloads/inline.c \
  tests/workloads/workload.h
tests_workloads_inline_CFLAGS = -O2 -g -fomit-frame-pointer
tests_workloads_inline_LDFLAGS = $(workload_ldflags)
TESTS += tests/integration/record_inline.sh
EXTRA_DIST += tests/integration/record_inline.sh

# Kernel time sampled by default where permitted; its share stated where not.
TESTS += tests/integration/record_kernel_default.sh
EXTRA_DIST += tests/integration/record_kernel_default.sh

# Stripped code by unwind-table function, honest counts, one name per
# address (record_stripped.sh).
check_PROGRAMS += tests/workloads/alias
tests_workloads_alias_SOURCES = tests/workloads/alias.c \
  tests/workloads/workload.h
tests_workloads_alias_CFLAGS = $(workload_cflags)
tests_workloads_alias_LDFLAGS = $(workload_ldflags)
TESTS += tests/integration/record_stripped.sh
EXTRA_DIST += tests/integration/record_stripped.sh

# Debug files from a local debuginfod server, opt-in (--debuginfod); no
# server asked when off.  The test builds its library and program itself.
TESTS += tests/integration/record_debuginfod.sh
EXTRA_DIST += tests/integration/record_debuginfod.sh \
  tests/workloads/fidlib.c tests/workloads/fidmain.c

# run --each reads the symbol tables of an unchanged binary once, and a
# binary rebuilt between benchmarks again.  The test builds its two
# versions of the harness itself.
TESTS += tests/integration/symbols_each.sh
EXTRA_DIST += tests/integration/symbols_each.sh tests/workloads/symswap.c
