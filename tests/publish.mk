# tests of the publish part (bencher.c, spool.c, publish.c, flush)
#   test_bencher         the JsonNewRun body (identity, start point,
#                        results as a BMF string, idempotency key), UUIDs
#   test_spool           add/list/lock/mark/remove, leftovers, hostile paths
#   test_publish         the latest pointer's order: commit times, then
#                        end times; a stored manifest's order (end times)
#   publish_bencher.sh   run -> the Bencher stand-in (bodies validated
#                        against Bencher's OpenAPI): reports, pull request
#                        start point, measures once, uuid in the manifest,
#                        no token anywhere
#   publish_store.sh     file://, s3:// (s3rver) and http:// stores: layout,
#                        sha256 of stored bytes, latest pointer, hostile
#                        names; an S3 403 names the AWS variables
#   publish_faults.sh    refused, 500, 429, hang, truncated answer: spooled,
#                        exit status unchanged (--strict: not), flush
#                        delivers exactly once
#   publish_kill.sh      SIGKILL while publishing; flush completes it
#   publish_hardening.sh credentials in BENCHER_HOST and other URLs,
#                        uppercase hashes and rejected entries, unique
#                        local identities, a full spool, signals while
#                        publishing (issue 21)
#   run_outcome.sh       failed and interrupted runs kept locally, marked
#                        in the manifest, not published (--allow-failure:
#                        published); a reused -o directory keeps no report
#                        or manifest of the run before; --keep-status
#   run_interrupted_results.sh  a run interrupted before the harness
#                        wrote its results (--bmf missing, partial or a
#                        previous job's, stdout, the Bencher entrypoint):
#                        a warning, not "invalid JSON"; manifest marked
#                        interrupted with no report, profile kept, not
#                        published; not interrupted: still an error
#   run_interrupted_many.sh  --repeat and --each interrupted before every
#                        invocation wrote its results: none started after
#                        the signal, manifest marked interrupted (signal,
#                        status) listing what ran, no report, not
#                        published; compare says a side was interrupted
#   run_interrupted_anytime.sh  a TERM while no command runs (the
#                        artifacts written, between repetitions or
#                        benchmarks): manifest marked interrupted, none
#                        started after it, not published, exit 143; an
#                        interrupted run's marked benchmarks are listed
#                        and cleared by the next run
#   run_signal_exited.sh a TERM reaches the command only while it runs:
#                        one that traps it and exits 0 gives 0; one that
#                        had exited (not yet reaped) never got it: 143;
#                        marked interrupted either way
#   run_stale_benches.sh a reused output directory keeps no benchmark
#                        directory of the run before (--new-job too);
#                        files benchprof did not write stay
#   run_stale_nested.sh  nor anything else the run before made and the
#                        new one did not: the marks' folders inside
#                        --each's benchmark folders, benchmark folders
#                        after a plain run, the artifacts at the top after
#                        --each; --repeat; after a SIGTERM or a SIGKILL
#   publish_run_profile.sh  marked benchmarks: the whole run's profile is
#                        stored too (key part "."); bencher.console_url is
#                        where the comment's Bencher links point
#   publish_firefox_lost.sh  the Firefox upload's answer lost: one public
#                        upload, never repeated; refused: stays spooled
#   publish_parallel.sh  a store with a network's delays: connections
#                        reused, artifacts 8 at a time, one object failing
#                        among many retried alone, manifest after the
#                        artifacts and latest last
#   publish_flush_busy.sh  two flushes of one spool: a publication the
#                        other one delivers is skipped; --strict waits
#                        and fails only on what the other could not send
#   publish_flush_scope.sh  one spool, many projects: in a CI job flush
#                        (--list, --drop rejected) takes the job's
#                        project's only, the others counted, never named
#                        nor sent; --project, --all-projects; a pull
#                        request's run delivers its base's spooled runs
#                        before comparing
#   publish_spool_hints.sh  a store's 401 names the token's variable (or
#                        none sent), once per flush; a publication spooled
#                        for a store URL the configuration no longer
#                        names, or waiting over a day: one line pointing
#                        at flush --drop
#   publish_latest_order.sh  latest names the newest commit (git's
#                        committer time), not the run that ended last: an
#                        old commit re-run or flushed late leaves it; an
#                        unknown hash falls back to the end time
#   publish_same_commit.sh  two runs of one commit and testbed: an older
#                        run flushed after a newer one leaves the newer
#                        run's objects alone (file:// and http:// stores,
#                        its Bencher report still made), a manifest race
#                        (412) keeps the newer one, run says so too; the
#                        usual order still replaces
#   publish_suites.sh    a job's two benchmark steps with --suite: each
#                        its own manifest, latest pointer, PR comparison,
#                        comment and commit status; without suites the
#                        second step warns that it replaces the first;
#                        no base: each suite's own comment, and what the
#                        base branch has instead; a base of another
#                        command said in the comment
#   publish_config_checks.sh  a store URL's query never printed, an
#                        unreadable ca_file named before the command, an
#                        IP S3 endpoint path-style, no spool directory:
#                        delivered directly
#   publish_same_name.sh two GitLab projects named alike share the store's
#                        project: the second's main leaves the first's
#                        latest (warned, run and flush), its merge request
#                        finds no base and says why; the first's compares
#   run_flush_config.sh  run --flush sends the run's own spool: that of
#                        --config FILE (no BENCHPROF_CONFIG) or --spool
#                        DIR; a failed setup (--keep-status) flushes too
#   run_step_severity.sh a store that is unreachable: publishing and the
#                        comparison fail as warnings, one line says the
#                        job keeps the benchmark's status; --strict (or
#                        "strict": true): errors, exit 1
publish_unit_tests = tests/unit/test_bencher tests/unit/test_spool \
  tests/unit/test_publish
check_PROGRAMS += $(publish_unit_tests)
publish_integration_tests = tests/integration/publish_bencher.sh \
  tests/integration/publish_store.sh tests/integration/publish_faults.sh \
  tests/integration/publish_kill.sh tests/integration/publish_hardening.sh \
  tests/integration/run_outcome.sh tests/integration/publish_run_profile.sh \
  tests/integration/run_stale_benches.sh \
  tests/integration/run_stale_nested.sh \
  tests/integration/run_interrupted_results.sh \
  tests/integration/run_interrupted_many.sh \
  tests/integration/run_interrupted_anytime.sh \
  tests/integration/run_signal_exited.sh \
  tests/integration/publish_firefox_lost.sh \
  tests/integration/publish_parallel.sh tests/integration/publish_local.sh \
  tests/integration/publish_latest_order.sh \
  tests/integration/publish_same_commit.sh \
  tests/integration/publish_same_name.sh \
  tests/integration/publish_suites.sh \
  tests/integration/publish_flush_busy.sh \
  tests/integration/publish_flush_scope.sh \
  tests/integration/publish_spool_hints.sh \
  tests/integration/publish_config_checks.sh \
  tests/integration/run_flush_config.sh \
  tests/integration/run_step_severity.sh
TESTS += $(publish_unit_tests) $(publish_integration_tests)
EXTRA_DIST += $(publish_integration_tests) tests/publish_lib.sh \
  tests/servers/bencher_standin.py

tests_unit_test_bencher_SOURCES = tests/unit/test_bencher.c
tests_unit_test_bencher_CPPFLAGS = $(unit_cppflags)
tests_unit_test_bencher_LDADD = $(unit_ldadd)

tests_unit_test_spool_SOURCES = tests/unit/test_spool.c
tests_unit_test_spool_CPPFLAGS = $(unit_cppflags)
tests_unit_test_spool_LDADD = $(unit_ldadd)

tests_unit_test_publish_SOURCES = tests/unit/test_publish.c
tests_unit_test_publish_CPPFLAGS = $(unit_cppflags)
tests_unit_test_publish_LDADD = $(unit_ldadd)
