# tests of the events part
check_PROGRAMS += tests/unit/test_events
TESTS += tests/unit/test_events
tests_unit_test_events_SOURCES = tests/unit/test_events.c
tests_unit_test_events_CPPFLAGS = $(unit_cppflags)
tests_unit_test_events_LDADD = $(unit_ldadd)

TESTS += tests/integration/events_cli.sh
EXTRA_DIST += tests/integration/events_cli.sh
