/* sampler_open: the sampling events.  Their attributes, the fallbacks
 * when a kernel or PMU refuses a part of them (precise_ip, build ids,
 * stack copies, kernel frames), one inherited event per online CPU with
 * its ring (smaller rings past the locked-memory budget), and the spill
 * files that take the rings' bytes while the command runs. */
#include "bp_setup.h"
#include "sampler_int.h"
#include "err.h"
#include "events.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MIN_RING_PAGES 8
/* Room left free above the wake-up point with stack copies: at least
 * this, and at least what a CPU fills in STACK_ROOM_MS, counting a
 * sample's registers, callchain and header as SAMPLE_OTHER_BYTES */
#define STACK_RING_ROOM (1024 * 1024)
#define STACK_ROOM_MS 250
#define SAMPLE_OTHER_BYTES 512

static long perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
                            int group_fd, unsigned long flags)
{
  return syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

/* Parse "0-3,5,7-8" into a list of CPU numbers. */
static bp_code parse_cpu_list(const char *s, int **cpus, uint32_t *n)
{
  int *list = NULL;
  uint32_t count = 0, cap = 0;
  while(*s && *s != '\n') {
    char *end;
    long lo = strtol(s, &end, 10), hi = lo;
    if(end == s || lo < 0)
      goto bad;
    s = end;
    if(*s == '-') {
      hi = strtol(s + 1, &end, 10);
      if(end == s + 1 || hi < lo)
        goto bad;
      s = end;
    }
    for(long c = lo; c <= hi; c++) {
      if(count == cap) {
        cap = cap ? cap * 2 : 16;
        int *nl = realloc(list, cap * sizeof(*nl));
        if(!nl) {
          free(list);
          return BPE_NOMEM;
        }
        list = nl;
      }
      list[count++] = (int)c;
    }
    if(*s == ',')
      s++;
  }
  if(!count)
    goto bad;
  *cpus = list;
  *n = count;
  return BP_OK;
bad:
  free(list);
  return BPE_FORMAT;
}

bp_code bpi_sampler_online_cpus(int **cpus, uint32_t *n)
{
  char line[4096];
  FILE *f = fopen("/sys/devices/system/cpu/online", "r");
  if(f) {
    bool ok = fgets(line, sizeof(line), f) != NULL;
    fclose(f);
    if(ok && parse_cpu_list(line, cpus, n) == BP_OK)
      return BP_OK;
  }
  long count = sysconf(_SC_NPROCESSORS_ONLN);
  if(count < 1)
    count = 1;
  int *list = calloc((size_t)count, sizeof(*list));
  if(!list)
    return BPE_NOMEM;
  for(long i = 0; i < count; i++)
    list[i] = (int)i;
  *cpus = list;
  *n = (uint32_t)count;
  return BP_OK;
}

void bpi_sampler_free_tops(struct bp_sampler *s)
{
  if(!s->tops)
    return;
  bpi_stack_tops_get_stats(s->tops, &s->tops_stats);
  bpi_stack_tops_free(s->tops);
  s->tops = NULL;
  for(uint32_t i = 0; s->spills && i < s->ncpus; i++)
    bpi_spill_use_tops(&s->spills[i], NULL);  /* nothing more is cut */
}

void bpi_sampler_free_spills(struct bp_sampler *s)
{
  bpi_sampler_free_tops(s);
  /* (the second half of readers is empty outside a replay) */
  for(uint32_t i = 0; s->spills && i < s->ncpus; i++) {
    bpi_spill_cleanup(&s->spills[i]);
    if(s->readers)
      bpi_ring_cleanup(&s->readers[i]);
  }
  bpi_spill_freer_finish(&s->freer);  /* after our copies are closed */
  free(s->spills);
  free(s->readers);
  free(s->reader_more);
  free(s->reader_last);
  s->spills = NULL;
  s->readers = NULL;
  s->reader_more = NULL;
  s->reader_last = NULL;
}

/* Close the context-switches events (they write into the rings). */
static void close_switch_events(struct bp_sampler *s)
{
  for(uint32_t i = 0; s->switch_fds && i < s->nswitch; i++)
    if(s->switch_fds[i] >= 0)
      close(s->switch_fds[i]);
  free(s->switch_fds);
  free(s->switch_ids);
  s->switch_fds = NULL;
  s->switch_ids = NULL;
  s->nswitch = 0;
}

void bpi_sampler_close_events(struct bp_sampler *s)
{
  bpi_sampler_free_spills(s);
  close_switch_events(s);
  for(uint32_t i = 0; i < s->ncpus; i++) {
    if(s->rings)
      bpi_ring_cleanup(&s->rings[i]);
    if(s->maps && s->maps[i])
      munmap(s->maps[i], s->map_len);
    if(s->fds && s->fds[i] >= 0)
      close(s->fds[i]);
  }
  free(s->rings);
  free(s->maps);
  free(s->fds);
  free(s->cpus);
  s->rings = NULL;
  s->maps = NULL;
  s->fds = NULL;
  s->cpus = NULL;
  s->ncpus = 0;
}

static uint64_t read_max_sample_rate(void)
{
  FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
  unsigned long long v = 0;
  if(f) {
    if(fscanf(f, "%llu", &v) != 1)
      v = 0;
    fclose(f);
  }
  return v;
}

/* Wake us late: a wake-up costs CPU the benchmark may need, and moving a
 * ring's bytes to a file (spill.h) costs it too: a run that fits in the
 * rings wakes us only at its end.  What is left free must absorb the
 * records that arrive until we have handed back the first megabyte
 * (spill.c writes one at a time): with stack copies an eighth of the
 * ring, or what a CPU fills in STACK_ROOM_MS at freq if more (with a
 * fixed period the rate is unknown: half the ring), at least 1 MiB and
 * at most half the ring; with frame-pointer records (small) a quarter. */
uint32_t bpi_sampler_watermark(uint32_t ring_bytes, uint32_t stack_bytes,
                               uint64_t freq)
{
  if(!stack_bytes)
    return ring_bytes / 4 * 3;
  uint64_t room = ring_bytes / 8;
  uint64_t per_sample = (uint64_t)stack_bytes + SAMPLE_OTHER_BYTES;
  uint64_t fill = freq ? freq * per_sample * STACK_ROOM_MS / 1000 : ring_bytes;
  if(room < fill)
    room = fill;
  if(room < STACK_RING_ROOM)
    room = STACK_RING_ROOM;
  if(room > ring_bytes / 2)
    room = ring_bytes / 2;
  return ring_bytes - (uint32_t)room;
}

static void fill_sampling_attr(struct perf_event_attr *a,
                               const struct bp_sample_cfg *c, uint64_t freq,
                               uint32_t ring_bytes)
{
  a->size = sizeof(*a);
  a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                   PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
  if(freq) {
    a->freq = 1;
    a->sample_freq = freq;
  }
  else {
    a->freq = 0;
    a->sample_period = c->period;
  }
  a->disabled = 1;
  a->enable_on_exec = 1;
  a->inherit = 1;
  a->mmap = 1;
  a->mmap2 = 1;
  a->comm = 1;
  a->comm_exec = 1;
  a->task = 1;
  a->sample_id_all = 1;
  a->use_clockid = 1;
  a->clockid = CLOCK_MONOTONIC;
  /* build_id is the caller's: on until a kernel refuses it */
  if(!c->kernel_callchain)
    a->exclude_kernel = 1;
  a->exclude_callchain_kernel = a->exclude_kernel;
  a->watermark = 1;
  a->wakeup_watermark = bpi_sampler_watermark(
      ring_bytes, c->stack_user && c->regs_user ? c->stack_user : 0, freq);
  if(c->stack_user && c->regs_user) {
    a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
    a->sample_regs_user = c->regs_user;
    a->sample_stack_user = c->stack_user;
  }
  else {
    a->sample_regs_user = 0;
    a->sample_stack_user = 0;
  }
  /* off-CPU: switch records from this event, and an id in every sample
   * (first, where the records of any event sharing the ring put it) */
  a->context_switch = c->off_cpu;
  if(c->off_cpu)
    a->sample_type |= PERF_SAMPLE_IDENTIFIER;
  if(c->lbr) {
    a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
    a->branch_sample_type = PERF_SAMPLE_BRANCH_CALL_STACK |
                            PERF_SAMPLE_BRANCH_USER;
  }
  else {
    a->sample_type &= ~(uint64_t)PERF_SAMPLE_BRANCH_STACK;
    a->branch_sample_type = 0;
  }
}

/* Open the event on every CPU; on failure close what was opened and return
 * the errno of the failing open. */
static int open_on_cpus(struct bp_sampler *s, struct perf_event_attr *a,
                        int *failed_cpu)
{
  for(uint32_t i = 0; i < s->ncpus; i++) {
    long fd = perf_event_open(a, s->pid, s->cpus[i], -1, PERF_FLAG_FD_CLOEXEC);
    if(fd < 0) {
      int e = errno;
      for(uint32_t j = 0; j < i; j++) {
        close(s->fds[j]);
        s->fds[j] = -1;
      }
      *failed_cpu = s->cpus[i];
      return e;
    }
    s->fds[i] = (int)fd;
  }
  return 0;
}

/* Close the events and their rings, keeping the CPU list. */
static void close_fds(struct bp_sampler *s)
{
  for(uint32_t i = 0; i < s->ncpus; i++) {
    if(s->maps[i])
      munmap(s->maps[i], s->map_len);
    s->maps[i] = NULL;
    if(s->fds[i] >= 0)
      close(s->fds[i]);
    s->fds[i] = -1;
  }
}

/* Map a ring of pages data pages on every event; returns 0 or the errno. */
static int map_rings(struct bp_sampler *s, uint32_t pages)
{
  long page = sysconf(_SC_PAGESIZE);
  s->map_len = (size_t)(pages + 1) * (size_t)page;
  for(uint32_t i = 0; i < s->ncpus; i++) {
    s->maps[i] = mmap(NULL, s->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
                      s->fds[i], 0);
    if(s->maps[i] == MAP_FAILED) {
      int e = errno;
      s->maps[i] = NULL;
      return e;
    }
  }
  for(uint32_t i = 0; i < s->ncpus; i++)
    bpi_ring_init(&s->rings[i], s->maps[i], (uint64_t)pages * page);
  return 0;
}

/* Open the events with rings of pages data pages.  The wake-up watermark
 * is fixed at open (fill_sampling_attr()): smaller rings (EPERM: over the
 * locked-memory budget) are opened again from scratch rather than mapped
 * with a watermark that no longer fits.  Returns 0 or the errno; *cpu is
 * the CPU whose open failed. */
static int open_with_rings(struct bp_sampler *s, struct perf_event_attr *a,
                           const struct bp_sample_cfg *c,
                           struct bp_sampler_info *info, int *cpu,
                           bool *mmap_failed)
{
  long page = sysconf(_SC_PAGESIZE);
  info->ring_pages_asked = s->ring_pages;
  for(uint32_t pages = s->ring_pages;; pages /= 2) {
    fill_sampling_attr(a, c, info->freq, (uint32_t)((uint64_t)pages * page));
    int e = open_on_cpus(s, a, cpu);
    if(e)
      return e;
    e = map_rings(s, pages);
    if(!e) {
      info->ring_pages = pages;
      return 0;
    }
    close_fds(s);
    if(e != EPERM || pages / 2 < MIN_RING_PAGES) {
      *mmap_failed = true;
      return e;
    }
  }
}

/* open_with_rings(), lowering precise_ip one step at a time while the PMU
 * refuses the precision (perf's evsel__precise_ip_fallback): the event is
 * kept, with more skid.  When no level opens, the precision asked for is
 * restored and its errno returned. */
static int open_precise(struct bp_sampler *s, struct perf_event_attr *a,
                        const struct bp_sample_cfg *c,
                        struct bp_sampler_info *info, int *cpu,
                        bool *mmap_failed)
{
  unsigned asked = a->precise_ip;
  int e = open_with_rings(s, a, c, info, cpu, mmap_failed);
  int first = e;
  while(e && !*mmap_failed && a->precise_ip > 0 &&
        bpi_event_errno_precise(e)) {
    a->precise_ip--;
    e = open_with_rings(s, a, c, info, cpu, mmap_failed);
  }
  if(e && !*mmap_failed) {
    a->precise_ip = asked;
    e = first;
  }
  if(!e && a->precise_ip != asked)
    info->precise_errno = first;
  info->precise_used = a->precise_ip;
  return e;
}

/* The attributes of the off-CPU stacks' event, from the sampling
 * event's (same sample layout, so the records of both parse alike): the
 * software context-switches event, every switch sampled.  It fires in
 * the scheduler, in kernel mode: with exclude_kernel it would never
 * sample, so kernel mode is asked for (kernel frames only when the
 * sampling event has them).  Its stack copy may be shorter
 * (switch_stack_user): the kernel copies it at every switch. */
static void fill_switch_attr(struct perf_event_attr *w,
                             const struct perf_event_attr *a,
                             const struct bp_sample_cfg *c)
{
  *w = *a;
  if(c->switch_stack_user && w->sample_stack_user > c->switch_stack_user)
    w->sample_stack_user = c->switch_stack_user;
  w->type = PERF_TYPE_SOFTWARE;
  w->config = PERF_COUNT_SW_CONTEXT_SWITCHES;
  w->freq = 0;
  w->sample_period = 1;
  w->precise_ip = 0;
  w->exclude_kernel = 0;
  w->exclude_hv = 0;
  w->exclude_guest = 0;
  w->exclude_host = 0;
  /* the sampling event reports mappings, names, tasks and switches */
  w->mmap = w->mmap2 = w->comm = w->comm_exec = w->task = 0;
  w->build_id = 0;
  w->context_switch = 0;
  w->watermark = 0;
  w->wakeup_events = 0;
}

/* Open the context-switches event on every CPU and send its samples into
 * that CPU's ring.  Returns 0 or the errno (everything closed then). */
static int open_switch_events(struct bp_sampler *s,
                              const struct perf_event_attr *a,
                              const struct bp_sample_cfg *c)
{
  struct perf_event_attr w;
  fill_switch_attr(&w, a, c);
  s->switch_fds = malloc(s->ncpus * sizeof(*s->switch_fds));
  s->switch_ids = calloc(s->ncpus, sizeof(*s->switch_ids));
  if(!s->switch_fds || !s->switch_ids) {
    close_switch_events(s);
    return ENOMEM;
  }
  s->nswitch = s->ncpus;
  for(uint32_t i = 0; i < s->ncpus; i++)
    s->switch_fds[i] = -1;
  for(uint32_t i = 0; i < s->ncpus; i++) {
    long fd = perf_event_open(&w, s->pid, s->cpus[i], -1,
                              PERF_FLAG_FD_CLOEXEC);
    if(fd < 0) {
      int e = errno;
      close_switch_events(s);
      return e;
    }
    s->switch_fds[i] = (int)fd;
    if(ioctl((int)fd, PERF_EVENT_IOC_SET_OUTPUT, s->fds[i]) ||
       ioctl((int)fd, PERF_EVENT_IOC_ID, &s->switch_ids[i])) {
      int e = errno;
      close_switch_events(s);
      return e;
    }
  }
  return 0;
}

bp_code bpi_sampler_open(struct bp_sampler *s, const struct bp_sample_cfg *c,
                         struct bp_sampler_info *info, struct bp_err *err)
{
  memset(info, 0, sizeof(*info));
  bpi_sampler_close_events(s);
  bp_code rc = bpi_sampler_online_cpus(&s->cpus, &s->ncpus);
  if(rc)
    return bpi_err_set(err, rc, 0, "reading the online CPUs");
  s->fds = malloc(s->ncpus * sizeof(*s->fds));
  s->maps = calloc(s->ncpus, sizeof(*s->maps));
  s->rings = calloc(s->ncpus, sizeof(*s->rings));
  if(!s->fds || !s->maps || !s->rings) {
    bpi_sampler_close_events(s);
    return bpi_err_set(err, BPE_NOMEM, 0, "sampler rings");
  }
  for(uint32_t i = 0; i < s->ncpus; i++)
    s->fds[i] = -1;

  info->ncpus = s->ncpus;
  info->max_sample_rate = read_max_sample_rate();
  info->freq = c->freq;
  if(c->freq && info->max_sample_rate && c->freq > info->max_sample_rate) {
    info->freq = info->max_sample_rate;
    info->freq_clamped = true;
  }
  struct perf_event_attr a = c->attr;
  a.build_id = 1;
  int cpu = -1;
  bool mmap_failed = false;
  struct bp_sample_cfg fp;
  info->precise_requested = c->attr.precise_ip;
  int e = open_precise(s, &a, c, info, &cpu, &mmap_failed);
  if(e == EINVAL && !mmap_failed) {  /* build ids in MMAP2: Linux 5.12 */
    a = c->attr;
    a.build_id = 0;
    info->build_id_dropped = true;
    e = open_precise(s, &a, c, info, &cpu, &mmap_failed);
  }
  if(e && e != EACCES && e != EPERM && !mmap_failed && c->stack_user) {
    /* no user registers or stack copy here: frame pointers only */
    fp = *c;
    info->stack_dropped = true;
    info->stack_errno = e;
    fp.stack_user = 0;
    fp.regs_user = 0;
    c = &fp;
    e = open_precise(s, &a, c, info, &cpu, &mmap_failed);
  }
  if((e == EACCES || e == EPERM) && !mmap_failed && !a.exclude_kernel) {
    a.exclude_kernel = 1;
    a.exclude_callchain_kernel = 1;
    info->kernel_dropped = true;
    e = open_precise(s, &a, c, info, &cpu, &mmap_failed);
  }
  if(e) {
    bpi_sampler_close_events(s);
    if(mmap_failed)
      return bpi_err_set(err, BPE_SYS, e, "mmap of the sampling rings");
    if(bpi_event_errno_no_pmu(e) && c->attr.type != PERF_TYPE_SOFTWARE)
      return bpi_err_set(err, BPE_NO_PMU, e, "no usable PMU for the event");
    if(e == EACCES || e == EPERM)
      return bpi_err_set(err, BPE_PERM, e,
                         "perf_event_open on CPU %d (check "
                         "/proc/sys/kernel/perf_event_paranoid)", cpu);
    const char *advice = bpi_event_errno_advice(e);
    if(!advice)
      return bpi_err_set(err, BPE_EVENT_OPEN, e, "perf_event_open on CPU %d",
                         cpu);
    /* the advice says what the errno means: no strerror() after it */
    bpi_err_set(err, BPE_EVENT_OPEN, 0, "perf_event_open on CPU %d failed "
                "with %s: %s", cpu, strerrorname_np(e) ? strerrorname_np(e)
                                                        : "an error", advice);
    if(err)
      err->sys_errno = e;
    return BPE_EVENT_OPEN;
  }
  if(c->off_cpu) {
    info->off_cpu_errno = open_switch_events(s, &a, c);
    info->off_cpu_stacks = !info->off_cpu_errno;
  }
  s->layout.sample_type = a.sample_type;
  s->layout.branch_sample_type = a.branch_sample_type;
  s->layout.sample_id_all = a.sample_id_all;
  s->layout.sample_regs_user = a.sample_regs_user;
  s->active = s->rings;
  if(s->spill_dir) {
    s->spills = calloc(s->ncpus, sizeof(*s->spills));
    s->readers = calloc(2 * (size_t)s->ncpus, sizeof(*s->readers));
    s->reader_more = calloc(2 * (size_t)s->ncpus, sizeof(*s->reader_more));
    s->reader_last = calloc(2 * (size_t)s->ncpus, sizeof(*s->reader_last));
    if(!s->spills || !s->readers || !s->reader_more || !s->reader_last) {
      bpi_sampler_close_events(s);
      return bpi_err_set(err, BPE_NOMEM, 0, "sampler spill files");
    }
    /* its budget read when something is spilled: most recordings never
     * spill, and reading /proc/meminfo was a tenth of a millisecond */
    s->spill_memory = (struct bp_spill_memory){
      .unsized = !s->spill_disk_only};
    bool stacks = s->layout.sample_type & PERF_SAMPLE_STACK_USER;
    s->tops_stats = (struct bp_stack_tops_stats){0};
    /* without it every copy is kept up to its dyn_size, as before */
    if(stacks && !s->whole_stacks && s->layout.sample_regs_user &&
       bpi_stack_tops_new(&s->tops, s->layout.sample_regs_user))
      s->tops = NULL;
    for(uint32_t i = 0; i < s->ncpus; i++) {
      bpi_spill_init(&s->spills[i], s->spill_dir);
      bpi_spill_use_memory(&s->spills[i], &s->spill_memory);
      if(stacks)
        bpi_spill_trim_stacks(&s->spills[i], &s->layout);
      if(s->tops)
        bpi_spill_use_tops(&s->spills[i], s->tops);
    }
  }
  return BP_OK;
}

const uint64_t *bpi_sampler_switch_ids(const struct bp_sampler *s, size_t *n)
{
  *n = s->nswitch;
  return s->switch_ids;
}

const struct bp_rec_layout *bpi_sampler_layout(const struct bp_sampler *s)
{
  return &s->layout;
}
