# tests of the report part
#   test_report          BMF parsing and its messages, Google Benchmark
#                        conversion, counters, merging, write and read back,
#                        allocation failures
#   test_sha256          FIPS 180-4 vectors; files against sha256sum
#   report_fixture       a BMF or Google Benchmark file in, BMF out
#   report_schema.sh     that output against Bencher's BMF schema
#                        (python3-jsonschema); hostile names; bad inputs
report_unit_tests = tests/unit/test_report tests/unit/test_sha256
check_PROGRAMS += $(report_unit_tests) tests/unit/report_fixture
TESTS += $(report_unit_tests) tests/integration/report_schema.sh
EXTRA_DIST += tests/integration/report_schema.sh

tests_unit_test_report_SOURCES = tests/unit/test_report.c
tests_unit_test_report_CPPFLAGS = $(unit_cppflags)
tests_unit_test_report_LDADD = $(unit_ldadd)

tests_unit_test_sha256_SOURCES = tests/unit/test_sha256.c
tests_unit_test_sha256_CPPFLAGS = $(unit_cppflags)
tests_unit_test_sha256_LDADD = $(unit_ldadd)

tests_unit_report_fixture_SOURCES = tests/unit/report_fixture.c
tests_unit_report_fixture_CPPFLAGS = $(unit_cppflags)
tests_unit_report_fixture_LDADD = $(unit_ldadd)
