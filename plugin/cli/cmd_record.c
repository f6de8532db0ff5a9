/* benchprof record: run a command under the sampler and write its profile
 * artifacts, and one profile per benchmark the harness marked (slice.c);
 * say what was recorded.  The options are record_opts.c's.  The command's
 * stdin, stdout and stderr are its own; benchprof exits with the
 * command's status. */
#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"

#include "buf.h"
#include "config.h"
#include "counters.h"
#include "err.h"
#include "export.h"
#include "fileio.h"
#include "record.h"
#include "rundir.h"
#include "slice.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define TOP_FUNCS 10

/* A file in dir that leaves no name behind: unnamed (O_TMPFILE) where
 * the file system allows it, else a named one removed at once.  The
 * unnamed one spares the directory an entry made and removed again, a
 * tenth of a millisecond of every recording here. */
static int probe_file(const char *dir)
{
#ifdef O_TMPFILE
  int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if(fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
    return fd;
#endif
  char probe[PATH_MAX];
  snprintf(probe, sizeof(probe), "%s/.benchprof-probe.XXXXXX", dir);
  int fd2 = mkstemp(probe);
  if(fd2 >= 0)
    unlink(probe);
  return fd2;
}

bool bp_cli_setup_survivable(const struct bp_record_args *a)
{
  return a->run && a->keep_status && !a->pub.strict;
}

void bp_cli_setup_failed(struct bp_record_args *a, const struct bp_err *err,
                         bp_code rc)
{
  a->setup_failed = true;
  if(bp_cli_setup_survivable(a))
    bp_msg_warn_err(err, rc);
  else
    bp_msg_err(err, rc);
}

/* benchprof run: "." noted in the run directory before its artifacts are
 * written there, so that the next run into it removes them even when this
 * one leaves no manifest (a SIGKILL) and the next writes none there, or
 * not all of them (--each, no --off-cpu). */
static bp_code note_own_artifacts(const struct bp_record_args *a,
                                  struct bp_err *err)
{
  static const char *const own = ".";
  return a->run ? bpi_rundir_note_bench_dirs(a->output, &own, 1, err)
                : BP_OK;
}

/* Fail before the benchmark runs, not after, when artifacts cannot be
 * written: create the directory and a file in it. */
static bool output_writable(struct bp_record_args *a)
{
  struct bp_err err = {0};
  const char *dir = a->output;
  bp_code rc = bpi_file_mkdirs(dir, &err);
  if(rc) {
    bp_cli_setup_failed(a, &err, rc);
    return false;
  }
  int fd = probe_file(dir);
  if(fd < 0) {
    bpi_err_set(&err, BPE_IO, errno, "cannot write to output directory "
                "'%s'", dir);
    bp_cli_setup_failed(a, &err, BPE_IO);
    return false;
  }
  close(fd);
  return true;
}

/* The kernel's locked-memory limits on a user's rings, for the warning:
 * kernel.perf_event_mlock_kb (every user's allowance for perf rings) and
 * RLIMIT_MEMLOCK (ulimit -l, counted past it), as text. */
static void memlock_limits(char *out, size_t len)
{
  char kb[32] = "?";
  FILE *f = fopen("/proc/sys/kernel/perf_event_mlock_kb", "re");
  if(f && fgets(kb, sizeof(kb), f))
    kb[strcspn(kb, "\n")] = '\0';
  else
    snprintf(kb, sizeof(kb), "?");
  if(f)
    fclose(f);
  struct rlimit rl;
  char lim[32] = "?";
  if(!getrlimit(RLIMIT_MEMLOCK, &rl))
    snprintf(lim, sizeof(lim), rl.rlim_cur == RLIM_INFINITY ? "unlimited" :
             "%llu", (unsigned long long)(rl.rlim_cur / 1024));
  snprintf(out, len, "kernel.perf_event_mlock_kb %s, then ulimit -l %s",
           kb, lim);
}

/* Rings smaller than asked: the locked-memory limit, not -m, decided. */
static void note_rings_cut(const struct bp_sampler_info *si)
{
  if(!si->ring_pages || si->ring_pages >= si->ring_pages_asked)
    return;
  long page = sysconf(_SC_PAGESIZE);
  char limits[96];
  memlock_limits(limits, sizeof(limits));
  bp_msg_warn("rings of %llu KiB per CPU instead of %llu KiB: more is over "
              "the memory the kernel lets this user lock (%s); the samples "
              "are copied out while the command runs, and some are lost if "
              "benchprof falls behind (raise either limit, or give it "
              "CAP_IPC_LOCK)",
              (unsigned long long)si->ring_pages * (unsigned long long)page
              / 1024, (unsigned long long)si->ring_pages_asked *
              (unsigned long long)page / 1024, limits);
}

static void note_event(const struct bp_record_info *info)
{
  if(info->fallback_reason)
    bp_msg_warn("%s; sampling the software clock (%s) instead",
                info->fallback_reason, info->event);
  const struct bp_sampler_info *si = &info->sampler;
  if(!info->fallback_reason && info->precise_max)
    bp_msg_note("'%s': the highest precision the PMU accepts is "
                "precise_ip=%u", info->requested_event, si->precise_used);
  else if(!info->fallback_reason && si->precise_used < si->precise_requested)
    bp_msg_warn("'%s': the PMU refused precise_ip=%u (%s); keeping the "
                "event with precise_ip=%u (more skid)", info->requested_event,
                si->precise_requested,
                strerrorname_np(si->precise_errno) ?
                strerrorname_np(si->precise_errno) : "error",
                si->precise_used);
  else if(!info->fallback_reason && si->precise_requested)
    bp_msg_note("'%s': sampling with precise_ip=%u", info->requested_event,
                si->precise_used);
  if(info->sampler.freq_clamped)
    bp_msg_warn("frequency lowered to %" PRIu64
                " Hz (kernel.perf_event_max_sample_rate)",
                info->sampler.freq);
  if(info->sampler.kernel_dropped)
    bp_msg_warn("kernel frames are not permitted here "
                "(perf_event_paranoid); recording user space only");
  note_rings_cut(si);
  if(info->call_graph_fallback && !strcmp(info->call_graph, "auto"))
    bp_msg_warn("%s; recording with --call-graph auto instead",
                info->call_graph_fallback);
  else if(info->call_graph_fallback)
    bp_msg_warn("%s; recording frame-pointer stacks only",
                info->call_graph_fallback);
}

/* The rings were read while the command ran after all (not the plan:
 * that takes CPU from it): say why. */
static void note_spill(const struct bp_record_info *info)
{
  if(info->spill_errno)
    bp_msg_warn("cannot keep the samples in %s during the run (%s); read "
                "them while the command ran instead (TMPDIR chooses the "
                "directory)", info->spill_dir, strerror(info->spill_errno));
}

/* --off-cpu: the time off CPU, blocked and preempted, and the stacks'
 * source when they could not be sampled. */
static void note_off_cpu(const struct bp_profile *p)
{
  if(!p->meta.off_cpu)
    return;
  uint64_t pre, all = bpi_profile_off_ns(p, &pre);
  bp_msg_note("off CPU: %.3f s (%.3f s blocked, %.3f s preempted); "
              BP_FILE_OFFCPU_FOLDED ", " BP_FILE_OFFCPU_SVG,
              (double)all / 1e9, (double)(all - pre) / 1e9,
              (double)pre / 1e9);
  if(p->meta.off_cpu_stack_note)
    bp_msg_warn("off CPU: %s", p->meta.off_cpu_stack_note);
}

/* What the debuginfod lookups (--debuginfod) did, after symbolizing. */
static void note_debuginfod(const struct bp_record_info *info)
{
  const struct bp_debuginfod_stats *d = &info->debuginfod;
  if(d->asked)
    bp_msg_note("debuginfod: debug files for %u of the %u module%s "
                "without local ones", d->found, d->asked,
                d->asked == 1 ? "" : "s");
  if(d->stopped)
    bp_msg_warn("debuginfod: %s; the other modules were symbolized from "
                "local files only", d->error);
}

/* What DWARF unwinding did, after the run. */
static void note_unwind(const struct bp_profile_meta *m)
{
  if(!m->unwind_samples)
    return;
  bp_msg_note("call graph %s: %" PRIu64 " stacks unwound in %.0f ms, "
              "%" PRIu64 " from DWARF, %" PRIu64 " truncated, %" PRIu64
              " stopped early", m->call_graph, m->unwind_samples,
              m->unwind_ms, m->dwarf_samples, m->unwind_truncated,
              m->unwind_failed);
  if(m->unwind_truncated * 100 > m->unwind_samples)
    bp_msg_warn("%" PRIu64 " stacks were deeper than the %" PRIu32
                "-byte stack copy and end early; try --call-graph "
                "dwarf,BYTES with more bytes", m->unwind_truncated,
                m->stack_bytes);
}

/* How many symbol tables an invocation of --each or --repeat found
 * read already by an earlier one (said only when it did). */
static void note_symbol_tables(const struct bp_profile_meta *m)
{
  if(m->symbol_tables_reused)
    bp_msg_note("symbol tables: %" PRIu32 " read, %" PRIu32 " reused from "
                "the earlier invocations", m->symbol_tables_read,
                m->symbol_tables_reused);
}

/* One line of counted totals, one of what could not be counted. */
static void note_counters(const struct bp_counter *c, size_t n)
{
  struct bp_buf got, missing;
  bpi_buf_init(&got);
  bpi_buf_init(&missing);
  for(size_t i = 0; i < n; i++) {
    if(!c[i].available) {
      bpi_buf_printf(&missing, "%s%s", missing.len ? ", " : "", c[i].name);
      continue;
    }
    if(!strcmp(c[i].unit, "ns"))
      bpi_buf_printf(&got, "%s%s %.2f ms", got.len ? ", " : "", c[i].name,
                     c[i].value / 1e6);
    else
      bpi_buf_printf(&got, "%s%s %.0f", got.len ? ", " : "", c[i].name,
                     c[i].value);
  }
  if(got.len && !bpi_buf_failed(&got))
    bp_msg_note("counted: %s", got.data);
  if(missing.len && !bpi_buf_failed(&missing))
    bp_msg_note("not counted here: %s (see " BP_FILE_SUMMARY ")", missing.data);
  bpi_buf_cleanup(&got);
  bpi_buf_cleanup(&missing);
}

static void print_summary(const struct bp_profile *p, const char *dir,
                          const struct bp_record_info *info)
{
  const struct bp_profile_meta *m = &p->meta;
  double secs = (double)bpi_profile_duration_ns(m) / 1e9;
  uint32_t procs = 0;
  for(uint32_t i = 0; i < p->nthreads; i++)
    procs += p->threads[i].pid == p->threads[i].tid;
  if(m->freq)
    bp_msg_note("event %s at %" PRIu64 " Hz%s", m->event, m->freq,
                m->fallback_reason ? " (software clock fallback)" : "");
  else
    bp_msg_note("event %s, period %" PRIu64, m->event, m->period);
  bp_msg_note("%" PRIu64 " samples, %" PRIu64 " lost, %.2f s, "
              "%u process%s, %u thread%s", m->samples, m->lost_records, secs,
              procs, procs == 1 ? "" : "es", p->nthreads,
              p->nthreads == 1 ? "" : "s");
  const struct bp_sampler_info *si = &info->sampler;
  if(m->lost_records)
    bp_msg_warn("the kernel dropped %" PRIu64 " samples (rings full); "
                "try %s or a lower -F", m->lost_records,
                si->ring_pages < si->ring_pages_asked ?
                "a higher locked-memory limit (the rings were cut to it)" :
                "a larger -m");
  if(m->throttled)
    bp_msg_warn("the kernel throttled sampling %" PRIu64 " times",
                m->throttled);
  if(m->corrupt_records)
    bp_msg_warn("%" PRIu64 " records in the rings made no sense and were "
                "skipped (corrupt_records in " BP_FILE_SUMMARY ")",
                m->corrupt_records);
  note_unwind(m);
  note_symbol_tables(m);
  char unsampled[320];
  bpi_profile_unsampled_note(p, unsampled, sizeof(unsampled));
  if(*unsampled && m->kernel_user_choice)
    bp_msg_note("%s", unsampled);  /* asked for: no surprise */
  else if(*unsampled)
    bp_msg_warn("%s", unsampled);
  struct bp_func_share top[TOP_FUNCS];
  uint64_t total;
  size_t n = bpi_profile_top_funcs(p, top, TOP_FUNCS, &total);
  while(n && top[n - 1].self == 0)
    n--;  /* only functions that were running when sampled */
  if(n)
    bp_msg_note("top functions by self samples:");
  for(size_t i = 0; i < n; i++) {
    const struct bp_func *f = &p->funcs[top[i].func];
    bp_msg_note("  %5.1f%%  %s (in %s)", 100.0 * (double)top[i].self /
                (double)total, bpi_profile_str(p, f->name),
                bpi_profile_str(p, p->libs[f->lib].name));
  }
  note_counters(m->counters, m->ncounters);
  note_off_cpu(p);
  bp_msg_note("artifacts in %s/: " BP_FILE_GECKO " (Firefox Profiler), "
              BP_FILE_PPROF " (pprof), " BP_FILE_FOLDED ", " BP_FILE_SVG ", "
              BP_FILE_SUMMARY, dir);
}

void bp_cli_record_cleanup(struct bp_record_args *a)
{
  bpi_slice_free(a->marked, a->nmarked);
  a->marked = NULL;
  a->nmarked = 0;
}

void bp_cli_record_args_free(struct bp_record_args *a)
{
  free(a->debuginfod_env);
  a->debuginfod_env = NULL;
  free(a->suite_output);
  a->suite_output = NULL;
}

/* Bad marker lines are the harness's bug, not a reason to fail: say so
 * once. */
static void note_control(const struct bp_control_stats *st)
{
  if(!st)
    return;
  if(st->bad_lines)
    bp_msg_warn("%" PRIu64 " line%s on " BP_CONTROL_ENV " could not be "
                "read and %s ignored (see benchprof(1) for the format)",
                st->bad_lines, st->bad_lines == 1 ? "" : "s",
                st->bad_lines == 1 ? "was" : "were");
  if(st->unmatched_end)
    bp_msg_warn("%" PRIu64 " benchmark end%s without a begin ignored",
                st->unmatched_end, st->unmatched_end == 1 ? "" : "s");
}

/* Whether a leak checker watches this process (ASan's, or liblsan
 * preloaded into a plain build: tests/integration/fault_leaks.sh).  It
 * checks at a normal exit, which must then free everything first.  Asked
 * of the loaded libraries at run time (a weak reference could be
 * resolved to nothing at link time). */
static bool leaks_checked(void)
{
#ifdef __SANITIZE_ADDRESS__
  return true;
#else
  return dlsym(RTLD_DEFAULT, "__lsan_do_leak_check") != NULL;
#endif
}

/* The end of `benchprof record` once the artifacts are written: the
 * recording's rings, symbol tables and profile are not taken apart one
 * free() and munmap() at a time and no library's destructor runs; only
 * what the recording made on disk is removed (bpi_recorder_end()), our
 * output flushed, and the exit returns the rest at once.  A recording
 * of a 50 ms command took 0.6 ms less of benchprof's CPU this way
 * (clang's driver skips its frees for the same reason).  Where a leak
 * checker watches, everything is freed as before, for it to check. */
static void end_process(struct bp_recorder *rec, int status)
{
  if(leaks_checked())
    return;
  bpi_recorder_end(rec);
  fflush(NULL);
  _exit(status);
}

static int record_and_write(struct bp_record_args *a, struct bp_profile **out)
{
  *out = NULL;
  bp_msg_set_quiet(a->quiet);
  if(!output_writable(a))
    return BP_EXIT_ERROR;

  struct bp_err err = {0};
  struct bp_recorder *rec = NULL;
  struct bp_profile *prof = NULL;
  sigset_t before;
  bp_cli_hold_signals(&before);
  a->rec.sigmask = &before;
  bp_code rc = bpi_recorder_new(&rec, &a->rec, &err);
  a->rec.sigmask = NULL;
  if(rc) {
    bp_cli_release_signals(&before);
    /* the command was not started (its process is held until the
     * recorder is ready, and ends without running it) */
    bp_cli_setup_failed(a, &err, rc);
    return rc == BPE_EVENT_UNKNOWN || rc == BPE_INVAL ? BP_EXIT_USAGE
                                                      : BP_EXIT_ERROR;
  }
  a->started = true;
  /* The command was forked with our environment; from here on only
   * benchprof reads it.  libdw would ask debuginfod servers for every
   * module without local debug info: a runner is no place for that
   * latency, so symbolize from local files unless --debuginfod (whose
   * servers the symbolizer has been given already) asks for it. */
  unsetenv("DEBUGINFOD_URLS");
  note_event(bpi_recorder_info(rec));
  bp_cli_forward_signals(bpi_recorder_pid(rec));
  bp_cli_release_signals(&before);
  rc = bpi_recorder_run(rec, &err);
  bp_cli_stop_forwarding();
  note_spill(bpi_recorder_info(rec));
  if(rc == BPE_EXEC) {
    int status = bp_cli_exec_failure(&err, a->rec.argv[0]);
    bpi_recorder_free(rec);
    return status;
  }
  int status = bpi_recorder_exit_status(rec);
  a->failed = rc != BP_OK;
  if(rc) {
    bp_msg_err(&err, rc);  /* the run's records are partial; still write */
    if(status == 0)
      status = BP_EXIT_ERROR;  /* never hide the command's own failure */
  }
  note_control(bpi_recorder_control_stats(rec));
  rc = bpi_recorder_finish(rec, &prof, &err);
  note_debuginfod(bpi_recorder_info(rec));
  if(!rc)
    rc = note_own_artifacts(a, &err);
  if(!rc)
    rc = bpi_export_all(prof, a->output, &a->written, &err);
  if(!rc)
    rc = bpi_slice_export_noted(prof, a->output, a->run, &a->marked,
                                &a->nmarked, &err);
  if(rc) {
    bp_msg_err(&err, rc);
    a->failed = true;
    if(status == 0)
      status = BP_EXIT_ERROR;  /* never hide the command's own failure */
  }
  else {
    print_summary(prof, a->output, bpi_recorder_info(rec));
    if(a->nmarked)
      bp_msg_note("%zu benchmark%s marked: a profile each in %s/<name>/",
                  a->nmarked, a->nmarked == 1 ? "" : "s", a->output);
  }
  if(a->exit_when_written)
    end_process(rec, status);
  bpi_recorder_free(rec);
  *out = prof;
  return status;
}

/* The variables the debuginfod lookups set and remove while benchprof
 * symbolizes (and DEBUGINFOD_URLS, removed by record_and_write): the
 * user's values are put back after, so that the next command benchprof
 * starts (run --repeat's next repetition) gets the user's environment. */
static const char *const debuginfod_env[] = {
  "DEBUGINFOD_URLS", "DEBUGINFOD_TIMEOUT", "DEBUGINFOD_MAXTIME",
  "DEBUGINFOD_CACHE_PATH",
};
#define NDEBUGINFOD_ENV BP_ARRAY_LEN(debuginfod_env)

static bool save_debuginfod_env(char *saved[NDEBUGINFOD_ENV])
{
  for(size_t i = 0; i < NDEBUGINFOD_ENV; i++) {
    const char *v = getenv(debuginfod_env[i]);
    if(v && !(saved[i] = strdup(v)))
      return false;
  }
  return true;
}

static void restore_debuginfod_env(char *saved[NDEBUGINFOD_ENV])
{
  for(size_t i = 0; i < NDEBUGINFOD_ENV; i++) {
    int rc = saved[i] ? setenv(debuginfod_env[i], saved[i], 1)
                      : unsetenv(debuginfod_env[i]);
    if(rc)
      bp_msg_warn("%s could not be restored: %s", debuginfod_env[i],
                  strerror(errno));
    free(saved[i]);
  }
}

int bp_cli_record(struct bp_record_args *a, struct bp_profile **out)
{
  char *saved[NDEBUGINFOD_ENV] = {NULL};
  if(!save_debuginfod_env(saved)) {
    for(size_t i = 0; i < NDEBUGINFOD_ENV; i++)
      free(saved[i]);
    bp_msg_error("out of memory");
    *out = NULL;
    return BP_EXIT_ERROR;
  }
  int status = record_and_write(a, out);
  restore_debuginfod_env(saved);
  return status;
}

int cmd_record(int argc, char **argv)
{
  struct bp_record_args a;
  struct bp_config cfg;
  enum bp_cli_config cs;
  /* record profiles whatever "enabled" says (a person asked for it); an
   * invalid file leaves the defaults, unless strict */
  bp_cli_record_defaults(&a, false);
  int status = bp_cli_record_setup(argc, argv, &a, &cfg,
                                   "recording with the defaults", &cs);
  if(status < 0) {
    struct bp_profile *prof;
    a.exit_when_written = true;
    status = bp_cli_record(&a, &prof);
    bpi_profile_free(prof);
  }
  bp_cli_record_cleanup(&a);
  bp_cli_record_args_free(&a);
  bpi_config_cleanup(&cfg);
  return status;
}
