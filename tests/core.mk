# Unit tests of the core recording path: rings, records, procs, the model.
check_PROGRAMS += tests/unit/test_records tests/unit/test_core
TESTS += tests/unit/test_records tests/unit/test_core
tests_unit_test_records_SOURCES = tests/unit/test_records.c
tests_unit_test_records_CPPFLAGS = $(unit_cppflags)
tests_unit_test_records_LDADD = $(unit_ldadd)
tests_unit_test_core_SOURCES = tests/unit/test_core.c
tests_unit_test_core_CPPFLAGS = $(unit_cppflags)
tests_unit_test_core_LDADD = $(unit_ldadd)
# records in time order from live, spilled and in-place rings
check_PROGRAMS += tests/unit/test_sampler
TESTS += tests/unit/test_sampler
tests_unit_test_sampler_SOURCES = tests/unit/test_sampler.c
tests_unit_test_sampler_CPPFLAGS = $(unit_cppflags)
tests_unit_test_sampler_LDADD = $(unit_ldadd)
EXTRA_tests_unit_test_sampler_DEPENDENCIES = tests/workloads/threads \
  tests/workloads/latecpu

# JIT code named from /tmp/perf-PID.map
check_PROGRAMS += tests/workloads/jit
tests_workloads_jit_SOURCES = tests/workloads/jit.c
tests_workloads_jit_CFLAGS = -O1 -g -fno-omit-frame-pointer
tests_workloads_jit_LDFLAGS = -Wl,--build-id
TESTS += tests/integration/record_jit.sh
EXTRA_DIST += tests/integration/record_jit.sh

# frames no file names (anonymous code, the execve call while the kernel
# loads the new image): one function each, in profiles and comparisons
check_PROGRAMS += tests/workloads/anonexec
tests_workloads_anonexec_SOURCES = tests/workloads/anonexec.c
tests_workloads_anonexec_CFLAGS = -O1 -g -fno-omit-frame-pointer
tests_workloads_anonexec_LDFLAGS = -Wl,--build-id
TESTS += tests/integration/record_unnamed.sh
EXTRA_DIST += tests/integration/record_unnamed.sh

# kernel frames with -k
TESTS += tests/integration/record_kernel.sh
EXTRA_DIST += tests/integration/record_kernel.sh

# layout boundaries and banned functions
TESTS += tests/checksrc.sh
EXTRA_DIST += tests/checksrc.sh

# the test libraries' one cleanup: at_exit, run by lib.sh's EXIT trap
TESTS += tests/integration/lib_cleanup.sh
EXTRA_DIST += tests/integration/lib_cleanup.sh

# counting: benchprof stat on known work
check_PROGRAMS += tests/workloads/touch
tests_workloads_touch_SOURCES = tests/workloads/touch.c tests/workloads/workload.h
tests_workloads_touch_CFLAGS = -O1 -g -fno-omit-frame-pointer -pthread
tests_workloads_touch_LDFLAGS = -Wl,--build-id -pthread
TESTS += tests/integration/stat_counters.sh
EXTRA_DIST += tests/integration/stat_counters.sh

# benchprof run: the report, the manifest, harness adapters
check_PROGRAMS += tests/workloads/gbench
tests_workloads_gbench_SOURCES = tests/workloads/gbench.cc
tests_workloads_gbench_CXXFLAGS = -O2 -g -fno-omit-frame-pointer
tests_workloads_gbench_LDFLAGS = -Wl,--build-id -pthread
tests_workloads_gbench_LDADD = -lbenchmark
TESTS += tests/integration/run_report.sh tests/integration/run_gbench.sh
EXTRA_DIST += tests/integration/run_report.sh tests/integration/run_gbench.sh

# lost samples are reported
TESTS += tests/integration/record_lost.sh
EXTRA_DIST += tests/integration/record_lost.sh

# counting without privileges: kernel-only counters dropped with a reason
TESTS += tests/integration/stat_unprivileged.sh
EXTRA_DIST += tests/integration/stat_unprivileged.sh
