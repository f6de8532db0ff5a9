# tests of one profile per benchmark (issue 3)
#   test_control         the marker protocol's parser, the FIFO end to end,
#                        unbalanced markers, directory names from hostile
#                        benchmark names, profile slices
#   test_slice           one profile per marked benchmark (slice.c): grouped
#                        by name, counters summed, reserved names avoided,
#                        artifacts written, a symbolic link refused
#   segments_hooks.sh    a C harness marking 3 benchmarks (benchprof/hooks.h):
#                        one dominated profile each, Gecko markers, report
#                        with per-benchmark task-clock in the BMF schema;
#                        hostile names; markers from sh; no-ops without
#                        benchprof
#   segments_each.sh     run --each google-benchmark on tests/workloads/gbench
#   segments_many.sh     100,000 runs of one name: memory per run bounded
#   segments_each_repeat.sh  run --repeat 3 --each: a merged profile per
#                        benchmark, 3 values per measure, median and range
#   segments_hooks_repeat.sh  hooks-marked benchmarks under --repeat 3: each
#                        one's profile covers all 3 repetitions
#   segments_threads.sh  300 benchmarks written on one thread and on four:
#                        the same files, manifest, store; a bad
#                        BENCHPROF_THREADS said
check_PROGRAMS += tests/unit/test_control tests/unit/test_slice \
  tests/workloads/hooks_harness
TESTS += tests/unit/test_control tests/unit/test_slice \
  tests/integration/segments_hooks.sh \
  tests/integration/segments_each.sh tests/integration/segments_many.sh \
  tests/integration/segments_each_repeat.sh \
  tests/integration/segments_hooks_repeat.sh \
  tests/integration/segments_threads.sh
EXTRA_DIST += tests/integration/segments_hooks.sh \
  tests/integration/segments_each.sh tests/integration/segments_many.sh \
  tests/integration/segments_each_repeat.sh \
  tests/integration/segments_hooks_repeat.sh \
  tests/integration/segments_threads.sh

tests_unit_test_control_SOURCES = tests/unit/test_control.c
tests_unit_test_control_CPPFLAGS = $(unit_cppflags)
tests_unit_test_control_LDADD = $(unit_ldadd)

tests_unit_test_slice_SOURCES = tests/unit/test_slice.c
tests_unit_test_slice_CPPFLAGS = $(unit_cppflags)
tests_unit_test_slice_LDADD = $(unit_ldadd)

# a workload: no sanitizers (AM_CFLAGS), frame pointers for the stacks
tests_workloads_hooks_harness_SOURCES = tests/workloads/hooks_harness.c \
  tests/workloads/workload.h
tests_workloads_hooks_harness_CPPFLAGS = -I$(top_srcdir)/plugin/include \
  -I$(top_srcdir)/tests/workloads
tests_workloads_hooks_harness_CFLAGS = -O1 -g -fno-omit-frame-pointer
tests_workloads_hooks_harness_LDFLAGS = -Wl,--build-id

# hooks.h compiles and works in strict C11 and in C++
check_PROGRAMS += tests/workloads/hooks_strict tests/workloads/hooks_strict_cxx
tests_workloads_hooks_strict_SOURCES = tests/workloads/hooks_strict.c
tests_workloads_hooks_strict_CFLAGS = -std=c11 -pedantic -Wall -Wextra -Werror -O1 -g -fno-omit-frame-pointer
tests_workloads_hooks_strict_cxx_SOURCES = tests/workloads/hooks_strict.cc
tests_workloads_hooks_strict_cxx_CXXFLAGS = -std=c++11 -Wall -Wextra -Werror -O1 -g -fno-omit-frame-pointer
TESTS += tests/integration/segments_strict.sh
EXTRA_DIST += tests/integration/segments_strict.sh
