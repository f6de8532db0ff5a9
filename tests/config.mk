# tests of the config part
#   test_config        parsing, JSON paths and suggestions in errors,
#                      line:column of syntax errors, environment overrides,
#                      redaction, token lookup
#   test_ci            identity from Bencher, GitHub (push, pull request
#                      payload, malformed payload), GitLab variables
#   config_check.sh    benchprof config check/show/keys on real files:
#                      errors, missing file, permissions warning, overrides,
#                      tokens never printed; the examples against the schema
#                      and the schema's keys against the parser's
#   config_comment_file.sh  comment.file: a pull request's run copies its
#                      comment there (absolute, relative), removes a stale
#                      copy when it writes no comment
#   config_check_dirs.sh  config check as an unprivileged user: an output
#                      or spool directory it can neither write nor make is
#                      an error naming the key, path, user and fix
#   ci_detect.sh       benchprof ci in simulated GitHub, GitLab and Bencher
#                      jobs and in a real git repository
config_unit_tests = tests/unit/test_config tests/unit/test_ci
check_PROGRAMS += $(config_unit_tests)
TESTS += $(config_unit_tests) tests/integration/config_check.sh \
  tests/integration/ci_detect.sh tests/integration/config_comment_file.sh \
  tests/integration/config_check_dirs.sh
EXTRA_DIST += tests/integration/config_check.sh \
  tests/integration/config_check_dirs.sh \
  tests/integration/ci_detect.sh tests/integration/config_comment_file.sh config/benchprof.schema.json \
  config/runner-example.json config/local-example.json config/README.md

# ci_hash_options.sh: --hash/--base-hash and the CI hash variables refused
# before run's command starts; a valid base hash without a run is no error
TESTS += tests/integration/ci_hash_options.sh
EXTRA_DIST += tests/integration/ci_hash_options.sh

tests_unit_test_config_SOURCES = tests/unit/test_config.c
tests_unit_test_config_CPPFLAGS = $(unit_cppflags)
tests_unit_test_config_LDADD = $(unit_ldadd)

tests_unit_test_ci_SOURCES = tests/unit/test_ci.c
tests_unit_test_ci_CPPFLAGS = $(unit_cppflags)
tests_unit_test_ci_LDADD = $(unit_ldadd)
