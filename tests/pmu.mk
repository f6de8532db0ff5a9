# ------------------------------------------------------------ fake PMU
# The hardware-counter branch run on machines without a PMU (VMs, CI):
#   libfakepmu.so     LD_PRELOAD library (tests/pmu/fakepmu.c): hardware,
#                     raw and cache events opened as the software clock,
#                     every attribute logged, refusals on demand
#   pmu_sample.sh     record and run on the hardware branch: cycles by
#                     frequency, instructions by -c period
#   pmu_precise.sh    perf's modifiers; precise_ip lowered step by step
#   pmu_counters.sh   stat: groups split, multiplexed counts scaled
#   pmu_errors.sh     EBUSY, EMFILE, EACCES, EINVAL: each with its message
#   pmu_vendor.sh     Intel and AMD events (LIBPFM_FORCE_PMU) encoded as
#                     libpfm4 documents them
#   pmu_lbr.sh        --call-graph lbr: the attribute, and auto where the
#                     PMU refuses it
#   pmu_hardware.sh   tests/pmu/run-on-hardware.sh: "no PMU" here, the
#                     real checks where one opens
#   test_lbr          unit: LBR call stacks -> call chains
fakepmu_so = tests/pmu/libfakepmu.so
$(fakepmu_so): $(srcdir)/tests/pmu/fakepmu.c
	@$(MKDIR_P) tests/pmu
	$(AM_V_CC)$(CC) -std=gnu11 -O1 -g -Wall -Wextra -fPIC -shared \
	  -o $@ $(srcdir)/tests/pmu/fakepmu.c -ldl -pthread

pmu_tests = tests/pmu/pmu_sample.sh tests/pmu/pmu_precise.sh \
  tests/pmu/pmu_counters.sh tests/pmu/pmu_errors.sh \
  tests/pmu/pmu_vendor.sh tests/pmu/pmu_lbr.sh tests/pmu/pmu_hardware.sh
TESTS += $(pmu_tests)
# docs/hardware.md: which of these paths were also seen on real hardware
EXTRA_DIST += $(pmu_tests) tests/pmu/fakepmu.c tests/pmu/pmu_lib.sh \
  docs/hardware.md \
  tests/pmu/run-on-hardware.sh tests/pmu/fakelog.py
CLEANFILES += $(fakepmu_so)
$(pmu_tests:.sh=.log): $(fakepmu_so)

check_PROGRAMS += tests/unit/test_lbr
TESTS += tests/unit/test_lbr
tests_unit_test_lbr_SOURCES = tests/unit/test_lbr.c
tests_unit_test_lbr_CPPFLAGS = $(unit_cppflags)
tests_unit_test_lbr_LDADD = $(unit_ldadd)
