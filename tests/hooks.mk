# tests of the runner integration: the configuration in run, and the hooks
#   config_run.sh        run/record/flush/ci with a configuration: disabled
#                        (byte-identical, same PID and status, no perf
#                        event, no files), invalid (warning, unprofiled;
#                        strict: exit 2), precedence, publishing settings
#   hooks_github.sh      job-started / a wrapped step / job-completed in a
#                        simulated GitHub Actions pull request job
#   hooks_gitlab.sh      pre_build_script / script / post_build_script in a
#                        simulated GitLab merge request pipeline
#   hooks_bencher.sh     the Bencher runner entrypoint: only BMF in the
#                        output file, profiles in the store
#   hooks_bencher_pr.sh  the Bencher runner's pull request path, from the
#                        runner jobs (counters' measures made with their
#                        units) to the comment posted by the CI with
#                        benchprof compare and benchprof comment
#   hooks_shellcheck.sh  every hook script passes shellcheck
#   hooks_pr_flow.sh     the pull request flow with a shared absolute
#                        output directory: only a comment this job wrote
#                        for this pull request is posted (GitHub, GitLab);
#                        fork pull requests get owner:branch and leave the
#                        base's latest alone; GitLab's job token refused
#                        for notes, and the log says what to set
#   hooks_suites.sh      a job of several wrapped steps, each its own
#                        suite: one comment and status per suite posted by
#                        the completed hooks (GitHub, GitLab), a stale
#                        suite's directory removed, another pull request's
#                        skipped with the reason
#   hooks_pr_base_unread.sh  a base the http store cannot give (stopped,
#                        503, 401 on the token) is not "no base": the
#                        run and its exit status are its own and spooled,
#                        no comment.md (the good comment and status stay),
#                        the logs say what and where; flush delivers it
#                        later; a 404 base still gets the no-base comment
#   hooks_gitlab_s3.sh   GitLab jobs with an S3 store (s3rver): main's run
#                        is the merge request's base, its note posted,
#                        then edited; a refused AWS secret: spooled, the
#                        note kept, the hook names the AWS variables (no
#                        token), no secret shown; the next job flushes
#   hooks_concurrent.sh  two jobs at once sharing an absolute output
#                        (GitHub hooks interleaved, two GitLab job shells
#                        alive): each in its own OUTPUT/job=ID, each
#                        comment with its own numbers; other jobs'
#                        directories pruned after a day, never sooner
#   hooks_shims.sh       the README's shims: a path entry, a make bench
#                        that only builds passes (strict: fails)
#   config_strict.sh     "strict": true in an invalid file: run, record,
#                        flush, ci, comment and benchprof-wrap fail (exit
#                        2, the command not run); BENCHPROF_STRICT=0 wins
#   hooks_strict.sh      the completed hooks fail on what could not be
#                        delivered when the file says "strict": true
#   hooks_bencher_opts.sh  the Bencher entrypoint's strict mode and
#                        BENCHPROF_RUN_ARGS, as benchprof-wrap's
#   hooks_gitlab_shims.sh  GitLab's per-job shim directories: removed at
#                        the job's end, a failed job's by a later job once
#                        its shell is gone; a live job's and foreign files
#                        never
#   hooks_wrap_signals.sh  TERM, HUP, INT sent to benchprof-wrap reach
#                        the benchmark, the run is interrupted and the
#                        wrapper exits after it; SIGKILL kills it too
#   hooks_bencher_signals.sh  TERM, HUP, INT sent to the Bencher
#                        entrypoint reach the benchmark (exec without a
#                        file; passed on, INT as TERM, with one), the run
#                        is interrupted, the benchmark's status; a failed
#                        setup still flushes the spool
#   hooks_run_args_secret.sh  a refused BENCHPROF_RUN_ARGS is named, its
#                        value (a URL's password, a signature, a token)
#                        never shown, by benchprof-wrap and the Bencher
#                        entrypoint
#   hooks_unprofiled.sh  the benchmark runs, with its own stdio and status,
#                        whatever goes wrong with benchprof: a setup that
#                        fails before it starts (output directory, FIFO,
#                        event), no configuration file (off in every
#                        hook), a bad BENCHPROF_RUN_ARGS, a benchprof that
#                        cannot be run; the Bencher entrypoint's status
#   run_hooks_note.sh    the started hooks set BENCHPROF_HOOKS; run then
#                        says the job's end hook posts the comment when
#                        it wrote into their BENCHPROF_OUTPUT (or a
#                        suite's in it) and comments are on
#   install_layout.sh    make install DESTDIR=: programs, hooks, hooks.h
#                        (compiles alone), no benchprof.h, both man pages
#                        render cleanly, one SYNOPSIS line per command
hooks_tests = tests/integration/config_run.sh \
  tests/integration/hooks_github.sh tests/integration/hooks_gitlab.sh \
  tests/integration/hooks_bencher.sh tests/integration/hooks_bencher_pr.sh \
  tests/integration/hooks_shellcheck.sh \
  tests/integration/hooks_pr_flow.sh tests/integration/hooks_suites.sh \
  tests/integration/hooks_pr_base_unread.sh \
  tests/integration/hooks_gitlab_s3.sh \
  tests/integration/hooks_concurrent.sh \
  tests/integration/hooks_shims.sh \
  tests/integration/hooks_unprofiled.sh \
  tests/integration/hooks_run_args_secret.sh \
  tests/integration/hooks_wrap_signals.sh \
  tests/integration/hooks_bencher_signals.sh \
  tests/integration/hooks_bencher_opts.sh \
  tests/integration/hooks_gitlab_shims.sh \
  tests/integration/config_strict.sh tests/integration/hooks_strict.sh \
  tests/integration/run_hooks_note.sh \
  tests/integration/install_layout.sh
TESTS += $(hooks_tests)
EXTRA_DIST += $(hooks_tests) tests/hooks_lib.sh \
  tests/servers/gitlab_standin.py
