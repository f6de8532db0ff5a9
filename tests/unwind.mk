# DWARF unwinding (--call-graph dwarf and auto): workloads built the way
# most code ships, -O2 without frame pointers, so that frame-pointer
# callchains lose their callers and only the stack copy can bring them back.
# Their own flags, never AM_CFLAGS (see integration.mk).
unwind_cflags = -O2 -g -fomit-frame-pointer

check_PROGRAMS += tests/workloads/unwind_chain tests/workloads/unwind_chain_cxx \
  tests/workloads/unwind_qsort tests/workloads/unwind_recurse

tests_workloads_unwind_chain_SOURCES = tests/workloads/unwind_chain.c \
  tests/workloads/workload.h
tests_workloads_unwind_chain_CFLAGS = $(unwind_cflags) -pthread
tests_workloads_unwind_chain_LDFLAGS = $(workload_ldflags) -pthread

tests_workloads_unwind_chain_cxx_SOURCES = tests/workloads/unwind_chain.cc \
  tests/workloads/workload.h
tests_workloads_unwind_chain_cxx_CXXFLAGS = $(unwind_cflags)
tests_workloads_unwind_chain_cxx_LDFLAGS = $(workload_ldflags)

tests_workloads_unwind_qsort_SOURCES = tests/workloads/unwind_qsort.c \
  tests/workloads/workload.h
tests_workloads_unwind_qsort_CFLAGS = $(unwind_cflags)
tests_workloads_unwind_qsort_LDFLAGS = $(workload_ldflags)

tests_workloads_unwind_recurse_SOURCES = tests/workloads/unwind_recurse.c \
  tests/workloads/workload.h
tests_workloads_unwind_recurse_CFLAGS = $(unwind_cflags)
tests_workloads_unwind_recurse_LDFLAGS = $(workload_ldflags)

# A Rust release build without frame pointers, v0 mangling.
$(workload_dir)/unwind_rust: $(workload_src)/unwind_chain.rs
	@$(MKDIR_P) $(workload_dir)
	$(AM_V_GEN)MAKEFLAGS= MFLAGS= $(RUSTC) --crate-name unwind_rust \
	  --edition 2021 -C opt-level=2 -C force-frame-pointers=no -g \
	  -C symbol-mangling-version=v0 -o $@ $(workload_src)/unwind_chain.rs

EXTRA_DIST += tests/workloads/unwind_chain.rs tests/unwind_lib.sh
CLEANFILES += $(workload_dir)/unwind_rust

unwind_tests = \
  tests/integration/unwind_chain.sh \
  tests/integration/unwind_rust.sh \
  tests/integration/unwind_qsort.sh \
  tests/integration/unwind_truncated.sh \
  tests/integration/unwind_auto.sh \
  tests/integration/unwind_stack_tops.sh
TESTS += $(unwind_tests)
EXTRA_DIST += $(unwind_tests)

if HAVE_RUSTC
tests/integration/unwind_rust.log: $(workload_dir)/unwind_rust
endif

# The fast path against libdwfl on the samples of the workloads above.
check_PROGRAMS += tests/unit/test_unwind
TESTS += tests/unit/test_unwind
tests_unit_test_unwind_SOURCES = tests/unit/test_unwind.c
tests_unit_test_unwind_CPPFLAGS = $(unit_cppflags)
tests_unit_test_unwind_LDADD = $(unit_ldadd)
EXTRA_tests_unit_test_unwind_DEPENDENCIES = tests/workloads/unwind_chain \
  tests/workloads/unwind_chain_cxx tests/workloads/unwind_qsort \
  tests/workloads/unwind_recurse
