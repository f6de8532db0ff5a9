# tests of the integration part: small workloads with known profiles, and
# scripts that run them under the real benchprof and read every artifact.
#
# The workloads are built with their own flags, never AM_CFLAGS (no
# sanitizers: the segv workload must die of SIGSEGV) and never inlined away:
# each keeps its hot function and the frame pointers leading to it.
workload_cflags = -O1 -g -fno-omit-frame-pointer
workload_ldflags = -Wl,--build-id
workload_dir = tests/workloads
workload_src = $(srcdir)/tests/workloads

check_PROGRAMS += tests/workloads/split tests/workloads/threads \
  tests/workloads/forkexec tests/workloads/forkexec_child \
  tests/workloads/shlib tests/workloads/cxx tests/workloads/deep \
  tests/workloads/segv tests/workloads/sigint

tests_workloads_split_SOURCES = tests/workloads/split.c \
  tests/workloads/workload.h
tests_workloads_split_CFLAGS = $(workload_cflags)
tests_workloads_split_LDFLAGS = $(workload_ldflags)

check_PROGRAMS += tests/workloads/latecpu
tests_workloads_latecpu_SOURCES = tests/workloads/latecpu.c \
  tests/workloads/workload.h
tests_workloads_latecpu_CFLAGS = $(workload_cflags) -pthread
tests_workloads_latecpu_LDFLAGS = $(workload_ldflags) -pthread

tests_workloads_threads_SOURCES = tests/workloads/threads.c \
  tests/workloads/workload.h
tests_workloads_threads_CFLAGS = $(workload_cflags) -pthread
tests_workloads_threads_LDFLAGS = $(workload_ldflags) -pthread

tests_workloads_forkexec_SOURCES = tests/workloads/forkexec.c \
  tests/workloads/workload.h
tests_workloads_forkexec_CFLAGS = $(workload_cflags)
tests_workloads_forkexec_LDFLAGS = $(workload_ldflags)

tests_workloads_forkexec_child_SOURCES = tests/workloads/forkexec_child.c \
  tests/workloads/workload.h
tests_workloads_forkexec_child_CFLAGS = $(workload_cflags)
tests_workloads_forkexec_child_LDFLAGS = $(workload_ldflags)

# shlib links libbpwork.so (found next to it through $ORIGIN) and dlopens
# libbpplugin.so, whose path the test passes on its command line
tests_workloads_shlib_SOURCES = tests/workloads/shlib.c \
  tests/workloads/workload.h
tests_workloads_shlib_CFLAGS = $(workload_cflags)
tests_workloads_shlib_LDFLAGS = $(workload_ldflags) -Wl,-rpath,'$$ORIGIN'
tests_workloads_shlib_LDADD = $(workload_dir)/libbpwork.so -ldl

tests_workloads_cxx_SOURCES = tests/workloads/cxx.cc \
  tests/workloads/workload.h
tests_workloads_cxx_CXXFLAGS = $(workload_cflags)
tests_workloads_cxx_LDFLAGS = $(workload_ldflags)

tests_workloads_deep_SOURCES = tests/workloads/deep.c \
  tests/workloads/workload.h
tests_workloads_deep_CFLAGS = $(workload_cflags)
tests_workloads_deep_LDFLAGS = $(workload_ldflags)

tests_workloads_segv_SOURCES = tests/workloads/segv.c \
  tests/workloads/workload.h
tests_workloads_segv_CFLAGS = $(workload_cflags)
tests_workloads_segv_LDFLAGS = $(workload_ldflags)

tests_workloads_sigint_SOURCES = tests/workloads/sigint.c \
  tests/workloads/workload.h
tests_workloads_sigint_CFLAGS = $(workload_cflags)
tests_workloads_sigint_LDFLAGS = $(workload_ldflags)

# Shared libraries and the Rust program: custom rules, sources from
# $(srcdir), outputs in the build tree.
$(workload_dir)/libbpwork.so: $(workload_src)/bpwork.c \
  $(workload_src)/workload.h
	@$(MKDIR_P) $(workload_dir)
	$(AM_V_CC)$(CC) $(workload_cflags) -fPIC -shared $(workload_ldflags) \
	  -Wl,-soname,libbpwork.so -o $@ $(workload_src)/bpwork.c

$(workload_dir)/libbpplugin.so: $(workload_src)/bpplugin.c \
  $(workload_src)/workload.h
	@$(MKDIR_P) $(workload_dir)
	$(AM_V_CC)$(CC) $(workload_cflags) -fPIC -shared $(workload_ldflags) \
	  -Wl,-soname,libbpplugin.so -o $@ $(workload_src)/bpplugin.c

# v0 mangling, so the profile shows crate::module::fn only if benchprof
# demangles it.  rustc is no make: it gets no jobserver to complain about.
$(workload_dir)/bprust: $(workload_src)/bprust.rs
	@$(MKDIR_P) $(workload_dir)
	$(AM_V_GEN)MAKEFLAGS= MFLAGS= $(RUSTC) --crate-name bprust --edition 2018 \
	  -C symbol-mangling-version=v0 -C force-frame-pointers=yes -g \
	  -C opt-level=1 -o $@ $(workload_src)/bprust.rs

EXTRA_DIST += tests/workloads/bpwork.c tests/workloads/bpplugin.c \
  tests/workloads/bprust.rs tests/artifacts.py tests/record_lib.sh
CLEANFILES += $(workload_dir)/libbpwork.so $(workload_dir)/libbpplugin.so \
  $(workload_dir)/bprust

# The integration scripts.  Each profiles one workload; a script whose
# workload is not a check program names its extra build outputs below.
integration_tests = \
  tests/integration/record_split.sh \
  tests/integration/record_viewers.sh \
  tests/integration/record_threads.sh \
  tests/integration/record_forkexec.sh \
  tests/integration/record_shlib.sh \
  tests/integration/record_cxx.sh \
  tests/integration/record_rust.sh \
  tests/integration/record_deep.sh \
  tests/integration/record_segv.sh \
  tests/integration/record_sigint.sh \
  tests/integration/record_errors.sh \
  tests/integration/options_usage.sh \
  tests/integration/record_stdio.sh \
  tests/integration/record_fallback.sh \
  tests/integration/record_options.sh \
  tests/integration/record_memlock.sh
TESTS += $(integration_tests)
EXTRA_DIST += $(integration_tests)

tests/integration/record_shlib.log: $(workload_dir)/libbpplugin.so
if HAVE_RUSTC
tests/integration/record_rust.log: $(workload_dir)/bprust
endif
