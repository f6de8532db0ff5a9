# Off-CPU profiles (--off-cpu): a workload that sleeps in one function and
# computes in another, and one whose two threads contend for a mutex.
check_PROGRAMS += tests/workloads/offcpu
tests_workloads_offcpu_SOURCES = tests/workloads/offcpu.c \
  tests/workloads/workload.h
tests_workloads_offcpu_CFLAGS = $(workload_cflags) -pthread
tests_workloads_offcpu_LDFLAGS = $(workload_ldflags) -pthread

TESTS += tests/integration/record_offcpu.sh
EXTRA_DIST += tests/integration/record_offcpu.sh

# A benchmark that waits longer on the head, both sides --off-cpu: compare
# writes and links an off-CPU differential flame graph (diff.offcpu.svg).
TESTS += tests/integration/compare_offcpu.sh
EXTRA_DIST += tests/integration/compare_offcpu.sh

# A frame pointer that points at itself: the kernel's frame-pointer walk
# repeats one non-code address to its depth limit; those frames are cut.
check_PROGRAMS += tests/workloads/fploop
tests_workloads_fploop_SOURCES = tests/workloads/fploop.c \
  tests/workloads/workload.h
tests_workloads_fploop_CFLAGS = $(workload_cflags)
tests_workloads_fploop_LDFLAGS = $(workload_ldflags)

TESTS += tests/integration/record_fploop.sh
EXTRA_DIST += tests/integration/record_fploop.sh
