# tests of the compare part
#   test_compare        run directories written by hand: measure deltas,
#                       flags and directions, function shares, new and
#                       removed (one of each named but for a build hash:
#                       one benchmark, its off-CPU time too), differential
#                       folded and flame graphs, bad input
#   test_comment        hostile names escaped, the 65,536 cut with its note,
#                       viewer links, the forge requests through a fake
#                       transport (list pages, marker, PATCH/PUT or POST)
#   compare_e2e.sh      a workload built twice (head: one function slower),
#                       both runs compared: the comment names it, the deltas
#                       have the right sign, the SVGs are well-formed, the
#                       links decode back to the profiles' URLs
#   compare_pr.sh       the pull request flow through a store served over
#                       HTTP: run finds the base (commit, else latest,
#                       else says so), the links decode back to the stored
#                       artifacts, compare BRANCH@COMMIT refs, the comment
#                       posted then edited on a GitHub stand-in
#   compare_verdicts.sh real runs: overlapping BMF bounds confirm nothing,
#                       bounds apart do; one value a side is unconfirmed;
#                       --fail-on-regression exits 3 on a confirmed
#                       regression only
#   compare_funcs_noise.sh --repeat 5 runs whose every function moves
#                       within task-clock's noise name none of them; one
#                       function doing 4x the work is still named
#   compare_config.sh   benchprof compare takes the store, project,
#                       testbed and threshold from run's configuration
#   comment_github.sh   benchprof comment against a GitHub API stand-in:
#                       POST once, then PATCH the same comment; no token:
#                       the summary file (needs http.c)
#   comment_gitlab.sh   benchprof comment against a GitLab API stand-in:
#                       the note, and the verdict as the head commit's
#                       status as GitLab's commit status API takes it
#   comment_three_jobs.sh three jobs of one request write its comment at
#                       once (GitHub and GitLab stand-ins, their edits
#                       landing oldest last): the comment ends with the
#                       newest comparison, each status on its own commit
#   comment_slow_edit.sh an older head's edit held until the new head's
#                       job ended (GitHub and GitLab stand-ins): the
#                       comment is marked as not of the head, no status
#                       set for the new head; its next run puts it back
#   compare_iterations.sh a Google Benchmark harness run for 200 and 600
#                       iterations of the same work: function costs per
#                       iteration, not a regression because more ran
#   compare_many.sh     45 changed benchmarks: the stderr summary lists 20
#                       and says how many more; compare.json has all;
#                       120, 500 and 2000: the comment stays under the
#                       limit, its table with as many rows as fit, the
#                       largest changes, and a note of what went
#   compare_comment.sh  the title counts unconfirmed changes as such; a
#                       change within the noise keeps its row; the note
#                       says why: one value a side, or --repeat 3; a
#                       single run beside a tested measure: not counted
#   comment_bencher_spooled.sh a pull request's run while Bencher refuses
#                       its report: the comment says the report waits in
#                       the spool; after a flush the next job's links
#                       Bencher and says nothing of it
#   comment_private_store.sh an http store with a token and an s3 store,
#                       no public URL: config check warns; the comment
#                       links nothing in the store, says why, names keys
#   comment_wording.sh  the advice names the side short of values (one,
#                       or --repeat 3) when the other repeated (5); the
#                       verdict line names unconfirmed
#                       changes of both kinds; a counter on one side is
#                       "not measured"; "Shrank most"; the diff.svg path
#                       when no link reaches it
#   compare_missing.sh  a side without a benchmark's profile (files gone,
#                       none recorded, an object the store lost): the
#                       measures compared, the comment says so, no diff;
#                       new and removed benchmarks with their values
#   compare_hashname.sh a binary named with its build's hash on each side
#                       (mybench-3f2a9c1d, mybench-77ab0e12): compared as
#                       one benchmark, its regression gates; several such
#                       are not paired; cargo's hash left out of the
#                       default name; a plain base name and a hashed
#                       head's are paired too; the same program in
#                       another directory, or with a secret value hidden
#                       (***) on one side, is not "another command"
#   compare_headline.sh what a verdict rests on: a single run's counter
#                       is not counted where the harness's measure was
#                       tested; the waiting note needs intervals and
#                       compares ns; a confirmed change names its one
#                       dominant function; latency heads a tie
#   compare_kernel.sh   dd's system calls, 3x the bytes: kernel frames
#                       marked in profile.folded, kernel functions named
#                       with "(kernel)", system-call time not taken for
#                       the machine's interrupts, which are never "grew
#                       most"
#   compare_shared.sh   one Google Benchmark invocation (no --each): its
#                       benchmarks share the whole run's profile, whose
#                       functions are compared once, no benchmark credited
#                       with a removed one's vanished code; stderr names
#                       one folder of diffs
#   compare_parallel.sh 108 benchmarks (8 sharing the run's folder) on
#                       the worker threads: the output is one thread's,
#                       byte for byte, the shared files the last one's,
#                       the error the first broken benchmark's
compare_unit_tests = tests/unit/test_compare tests/unit/test_comment
check_PROGRAMS += $(compare_unit_tests) tests/workloads/cmpwork_base \
  tests/workloads/cmpwork_head tests/workloads/onefunc
TESTS += $(compare_unit_tests) tests/integration/compare_e2e.sh \
  tests/integration/compare_pr.sh tests/integration/comment_github.sh \
  tests/integration/compare_verdicts.sh \
  tests/integration/compare_config.sh tests/integration/comment_gitlab.sh \
  tests/integration/compare_iterations.sh tests/integration/compare_many.sh \
  tests/integration/compare_parallel.sh tests/integration/compare_comment.sh \
  tests/integration/compare_funcs_noise.sh \
  tests/integration/compare_missing.sh \
  tests/integration/compare_hashname.sh tests/integration/comment_wording.sh \
  tests/integration/compare_headline.sh tests/integration/compare_shared.sh \
  tests/integration/compare_kernel.sh \
  tests/integration/comment_three_jobs.sh \
  tests/integration/comment_slow_edit.sh \
  tests/integration/comment_bencher_spooled.sh \
  tests/integration/comment_private_store.sh
EXTRA_DIST += tests/integration/compare_config.sh \
  tests/integration/comment_bencher_spooled.sh \
  tests/integration/comment_private_store.sh \
  tests/integration/compare_missing.sh \
  tests/integration/compare_hashname.sh tests/integration/comment_wording.sh \
  tests/integration/compare_funcs_noise.sh \
  tests/integration/compare_headline.sh tests/integration/compare_shared.sh \
  tests/integration/compare_kernel.sh \
  tests/integration/compare_many.sh tests/integration/compare_parallel.sh \
  tests/integration/compare_comment.sh \
  tests/integration/compare_iterations.sh \
  tests/integration/comment_gitlab.sh \
  tests/integration/comment_three_jobs.sh \
  tests/integration/comment_slow_edit.sh \
  tests/integration/compare_e2e.sh tests/integration/compare_pr.sh \
  tests/integration/compare_verdicts.sh \
  tests/integration/comment_github.sh tests/servers/github_standin.py \
  tests/servers/forge.py tests/forge_lib.sh

tests_unit_test_compare_SOURCES = tests/unit/test_compare.c
tests_unit_test_compare_CPPFLAGS = $(unit_cppflags)
tests_unit_test_compare_LDADD = $(unit_ldadd)

tests_unit_test_comment_SOURCES = tests/unit/test_comment.c
tests_unit_test_comment_CPPFLAGS = $(unit_cppflags)
tests_unit_test_comment_LDADD = $(unit_ldadd)

# one source, two builds: the head build's cmp_changed does 4x the work
tests_workloads_cmpwork_base_SOURCES = tests/workloads/cmpwork.c \
  tests/workloads/workload.h
tests_workloads_cmpwork_base_CFLAGS = $(workload_cflags) -DCMP_SLOWER=1
tests_workloads_cmpwork_base_LDFLAGS = $(workload_ldflags)
tests_workloads_cmpwork_head_SOURCES = tests/workloads/cmpwork.c \
  tests/workloads/workload.h
tests_workloads_cmpwork_head_CFLAGS = $(workload_cflags) -DCMP_SLOWER=4
tests_workloads_cmpwork_head_LDFLAGS = $(workload_ldflags)

# one function does all the work (compare_verdicts.sh)
tests_workloads_onefunc_SOURCES = tests/workloads/onefunc.c \
  tests/workloads/workload.h
tests_workloads_onefunc_CFLAGS = $(workload_cflags)
tests_workloads_onefunc_LDFLAGS = $(workload_ldflags)

# Google Benchmark, a given number of iterations of the same work
# (compare_iterations.sh)
check_PROGRAMS += tests/workloads/gbiter
tests_workloads_gbiter_SOURCES = tests/workloads/gbiter.cc
tests_workloads_gbiter_CXXFLAGS = -O1 -g -fno-omit-frame-pointer
tests_workloads_gbiter_LDFLAGS = -Wl,--build-id -pthread
tests_workloads_gbiter_LDADD = -lbenchmark
