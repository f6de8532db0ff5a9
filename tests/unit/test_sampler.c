/* The sampler hands records out in time order across CPUs (sampler.h),
 * however they reached it: read live, spilled to files while the command
 * ran and read back, or left in the rings at its end and read in place
 * after the files.  Four threads spin on two or more CPUs, so every ring
 * gets records, and small rings make them spill while it runs. */
#include "bp_setup.h"
#include "check.h"
#include "records.h"
#include "sampler.h"
#include "unwind.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

struct order {
  struct bp_rec_layout lay;
  uint64_t records, samples, timed;
  uint64_t last, backwards;  /* records older than one before them */
};

static bp_code on_record(void *ctx, const void *rec, size_t len)
{
  struct order *o = ctx;
  struct bp_rec r;
  o->records++;
  if(bpi_records_parse(&o->lay, rec, len, &r) || !r.sid.has_time)
    return BP_OK;
  o->samples += r.type == BP_REC_SAMPLE;
  o->timed++;
  if(r.sid.time < o->last)
    o->backwards++;
  else
    o->last = r.sid.time;
  return BP_OK;
}

/* Sample "prog secs" (threads: 4 threads, secs of CPU each) at 4000 Hz
 * with rings of pages pages (stack copies of stack bytes, 0: none),
 * spilling to spill_dir (NULL: read live); with fsize, files larger than
 * that cannot be written (a disk that fills up while the command runs).
 * Returns the most bytes of records the sampler held queued. */
static uint64_t run(const char *threads, const char *secs, uint32_t pages,
                    uint32_t stack, const char *spill_dir, bool want_spill,
                    rlim_t fsize)
{
  struct rlimit old = {0}, lim;
  void (*old_xfsz)(int) = SIG_DFL;
  if(fsize) {
    CHECK(!getrlimit(RLIMIT_FSIZE, &old));
    lim = old;
    lim.rlim_cur = fsize;
    old_xfsz = signal(SIGXFSZ, SIG_IGN);
    CHECK(!setrlimit(RLIMIT_FSIZE, &lim));
  }
  char *argv[] = {(char *)threads, (char *)secs, NULL};
  struct bp_sampler *smp = NULL;
  struct bp_err err = {0};
  struct bp_sampler_opts o = {.argv = argv, .ring_pages = pages,
                              .input_fd = -1, .spill_dir = spill_dir,
                              .whole_stacks = fsize != 0};
  struct bp_sample_cfg cfg = {.freq = 4000};
  if(stack) {
    cfg.regs_user = bpi_unwind_regs_mask();
    cfg.stack_user = stack;
  }
  cfg.attr.type = PERF_TYPE_SOFTWARE;
  cfg.attr.config = PERF_COUNT_SW_CPU_CLOCK;
  cfg.attr.exclude_kernel = 1;
  cfg.attr.exclude_hv = 1;
  struct bp_sampler_info info;
  struct order ord = {0};
  bool ok = !bpi_sampler_new(&smp, &o, &err) &&
            !bpi_sampler_open(smp, &cfg, &info, &err);
  if(ok) {
    ord.lay = *bpi_sampler_layout(smp);
    ok = !bpi_sampler_start(smp, &err) &&
         !bpi_sampler_run(smp, on_record, &ord, &err);
  }
  if(fsize) {
    CHECK(!setrlimit(RLIMIT_FSIZE, &old));
    signal(SIGXFSZ, old_xfsz);
  }
  if(!ok)
    fprintf(stderr, "sampling %s: %s\n", threads, err.msg);
  CHECK(ok);
  int spill_errno = smp ? bpi_sampler_spill_errno(smp) : 0;
  uint64_t trimmed = 0;
  uint64_t spilled = smp ? bpi_sampler_spilled(smp, &trimmed) : 0;
  printf("  %u pages, %u-byte stacks, %s: %" PRIu64 " records (%" PRIu64
         " samples), %" PRIu64 " bytes spilled%s, %" PRIu64 " out of order\n",
         pages, stack, spill_dir ? "spilled" : "live", ord.records,
         ord.samples, spilled, spill_errno ? " (then read live)" : "",
         ord.backwards);
  CHECK_EQ_INT(spill_errno != 0, fsize != 0);
  CHECK(ord.samples > 1000);  /* at least 4 x 0.1 s of CPU at 4000 Hz */
  CHECK_EQ_INT(ord.backwards, 0);
  CHECK_EQ_INT(bpi_sampler_corrupt(smp), 0);
  CHECK(want_spill ? spilled > 0 : spilled == 0);
  /* the command is reaped, and so is the helper that freed the files
   * as they were read back (spill.h): nothing is left running */
  errno = 0;
  CHECK(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD);
  uint64_t freed = smp ? bpi_sampler_spill_freed(smp) : 0;
  printf("  %" PRIu64 " bytes freed while read back\n", freed);
  CHECK(freed <= spilled);
  /* at least a step (8 MiB) of each file read; not when a file failed
   * while the command ran (read back then, with the command running) */
  if(!fsize && spilled > (16u << 20))
    CHECK(freed >= spilled / 4);
  uint64_t peak = smp ? bpi_sampler_queue_peak(smp) : 0;
  bpi_sampler_free(smp);
  return peak;
}

int main(void)
{
  const char *dir = getenv("WORKLOADS");
  CHECK(dir != NULL);
  if(!dir)
    return check_exit();
  char threads[4096];
  snprintf(threads, sizeof(threads), "%s/threads", dir);
  const char *tmp = getenv("TMPDIR");
  if(!tmp || !*tmp)
    tmp = "/tmp";
  run(threads, "0.3", 16, 0, NULL, false, 0);    /* live, woken often */
  run(threads, "0.3", 16, 0, tmp, true, 0);      /* spilled, rest in place */
  run(threads, "0.3", 512, 8192, tmp, true, 0);  /* stack copies, 2 MiB */
  /* the files take 2 MiB each (in memory, then as much on disk), then
   * the rest is read live: the command still runs when the first spill
   * fails (whole stack copies: cut to their threads' tops, stacktops.h,
   * the samples would fit) */
  run(threads, "0.3", 512, 8192, tmp, true, 2u << 20);
  /* it all fits, even on one CPU (14 MB of samples; 32 MiB rings woken
   * at about 24 MB): read in place */
  run(threads, "0.1", 8192, 8192, tmp, false, 0);
  /* one CPU's file starts 0.4 s after the other's (about 7 MB of it):
   * it waits until the other catches up (REPLAY_AHEAD_NS) instead of
   * being read into the queue round after round meanwhile (without the
   * rule: 6.3 MB queued; with it 1.4 MB: a round of 256 KiB from each
   * file and ring, and up to 10 ms more of each) */
  char late[4096];
  snprintf(late, sizeof(late), "%s/latecpu", dir);
  uint64_t peak = run(late, "0.8", 512, 8192, tmp, true, 0);
  printf("  latecpu: at most %" PRIu64 " bytes queued\n", peak);
  CHECK(peak > 0 && peak < (3u << 20));
  return check_exit();
}
