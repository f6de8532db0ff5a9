# tests of the export part
#   test_export              every exporter on a synthetic profile, read back
#   export_fixture           writes that profile's artifacts for the validators
#   export_validators.sh     profiler-cli, go tool pprof, pprof-format, xmllint
#   node_engines.sh          the node on PATH satisfies the JavaScript
#                            validators' declared engines.node
export_unit_tests = tests/unit/test_export
check_PROGRAMS += $(export_unit_tests) tests/unit/export_fixture
TESTS += $(export_unit_tests) tests/integration/export_validators.sh \
  tests/integration/node_engines.sh
EXTRA_DIST += tests/unit/synthetic_profile.h \
  tests/integration/export_validators.sh tests/integration/node_engines.sh

tests_unit_test_export_SOURCES = tests/unit/test_export.c \
  tests/unit/synthetic_profile.c tests/unit/synthetic_profile.h
tests_unit_test_export_CPPFLAGS = $(unit_cppflags)
tests_unit_test_export_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
tests_unit_test_export_LDADD = $(unit_ldadd)

tests_unit_export_fixture_SOURCES = tests/unit/export_fixture.c \
  tests/unit/synthetic_profile.c tests/unit/synthetic_profile.h
tests_unit_export_fixture_CPPFLAGS = $(unit_cppflags)
tests_unit_export_fixture_LDADD = $(unit_ldadd)
