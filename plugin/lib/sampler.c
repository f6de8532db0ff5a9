#include "bp_setup.h"
#include "sampler.h"
#include "err.h"
#include "events.h"
#include "ring.h"
#include "spill.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* 2 MiB per CPU: a few seconds of frame-pointer samples at 997 Hz fit, so
 * a short benchmark does not wake us before it ends (with stack copies
 * the recorder asks for larger rings: record.h) */
#define DEFAULT_RING_PAGES 512
/* Data area of a ring reading a spill file back: many records per
 * refill, and more than the largest record (64 KiB). */
#define SPILL_READER_BYTES (1024 * 1024)
#define MIN_RING_PAGES 8
/* Room left free above the wake-up point with stack copies: at least
 * this, and at least what a CPU fills in STACK_ROOM_MS, counting a
 * sample's registers, callchain and header as SAMPLE_OTHER_BYTES */
#define STACK_RING_ROOM (1024 * 1024)
#define STACK_ROOM_MS 250
#define SAMPLE_OTHER_BYTES 512

/* One record read from a ring, waiting to be delivered in time order.  It
 * stays where the kernel wrote it (the ring's tail is only published past
 * records already delivered), unless it wrapped around the ring's end:
 * then it is copied to the arena. */
struct queued {
  uint64_t time;
  uint64_t seq;   /* arrival order, so equal times keep their order */
  const unsigned char *ptr;  /* in the ring; NULL: at off in the arena */
  size_t off;
  size_t len;
  uint64_t pos;   /* the ring position it starts at */
  uint32_t ring;
};

struct bp_sampler {
  pid_t pid;
  int go_fd;        /* write end: releases the waiting child */
  int exec_err_fd;  /* read end: errno from a failed exec, EOF on success */
  int pidfd;        /* -1 when pidfd_open is not available */
  int out_fd;       /* read end of the command's stdout, or -1 */
  void (*on_output)(void *ctx, const char *data, size_t len);
  void *output_ctx;
  int input_fd;     /* see bp_sampler_opts; -1 when none */
  void (*on_input)(void *ctx);
  void *input_ctx;
  bool started, reaped;
  bool status_lost;   /* reaped by the kernel: no exit status */
  bool stdout_broken; /* our stdout is gone: keep reading, stop copying */
  int wait_status;
  uint64_t start_ns, end_ns;
  double start_epoch_ms;

  int *cpus;
  uint32_t ncpus;
  int *fds;          /* one event per CPU */
  void **maps;
  size_t map_len;
  struct bp_ring *rings;
  uint32_t ring_pages;
  struct bp_rec_layout layout;

  struct queued *queue;
  size_t nqueue, queue_cap;
  uint64_t queued_bytes, queue_peak;  /* records' bytes in the queue */
  struct queued *sort_tmp;  /* queue_cap entries, for merging */
  size_t sort_cap;
  unsigned char *arena;
  size_t arena_len, arena_cap;
  uint64_t seq;
  uint64_t corrupt;
  uint64_t spilled, spill_trimmed;  /* bytes in the spill files; stack
                                       bytes left out of them */
  uint64_t spill_freed;  /* ... of them freed by the helper as read */
  bool rings_behind;  /* the last round left records in a ring */

  /* Deferred reading (spill.h): while the command runs, rings are only
   * moved to files; records are read back from them once it exited.
   * active is what read_rings() reads: the live rings (ncpus of them),
   * or, replaying, the readers (2 * ncpus, n_active()): one over each
   * spill file, then the live rings themselves, moved in for the replay
   * (what was left in a ring is newer than anything in its file, and is
   * read where the kernel wrote it instead of being written out and read
   * back). */
  struct bp_ring *active;
  struct bp_spill *spills;      /* one per ring, or NULL: read live */
  struct bp_ring *readers;      /* see active, while replaying */
  bool *reader_more;            /* its file has bytes not in the reader */
  uint64_t *reader_last;        /* time of the last record read from it */
  bool replaying;
  int spill_errno;              /* why spilling stopped early, or 0 */
  const char *spill_dir;        /* bp_sampler_opts.spill_dir */
  struct bp_spill_freer freer;  /* frees the files as they are read */
};

static uint64_t now_ns(clockid_t clk)
{
  struct timespec ts;
  clock_gettime(clk, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static long perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
                            int group_fd, unsigned long flags)
{
  return syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static int pidfd_open_compat(pid_t pid)
{
#ifdef SYS_pidfd_open
  return (int)syscall(SYS_pidfd_open, pid, 0);
#else
  (void)pid;
  errno = ENOSYS;
  return -1;
#endif
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

/* Whether SIGPIPE and SIGCHLD were ignored when benchprof started (only
 * SIG_IGN survives exec).  Read before the caller changes them (it
 * ignores SIGPIPE while it copies output), so every command, however
 * many we start, gets what benchprof's parent gave benchprof. */
static int orig_pipe_ign = -1, orig_chld_ign = -1;

static void note_orig_signals(void)
{
  struct sigaction sa;
  if(orig_pipe_ign < 0 && !sigaction(SIGPIPE, NULL, &sa))
    orig_pipe_ign = sa.sa_handler == SIG_IGN;
  if(orig_chld_ign < 0 && !sigaction(SIGCHLD, NULL, &sa))
    orig_chld_ign = sa.sa_handler == SIG_IGN;
}

static void child_wait_and_exec(int go_rd, int err_wr, int out_wr,
                                char *const *argv, char *const *envp,
                                pid_t parent)
{
  char go;
  ssize_t n;
  /* benchprof killed outright (SIGKILL, the OOM killer: nothing of ours
   * runs to pass a signal on) must not leave the command running on the
   * runner for ever: the kernel kills it when benchprof dies.  It survives
   * exec (except of set-user-ID programs), the command's own children do
   * not inherit it, and a command whose benchprof is alive never sees it
   * fire.  getppid() catches a benchprof that died before the prctl. */
  if(prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
    _exit(127);
  if(orig_pipe_ign >= 0)
    signal(SIGPIPE, orig_pipe_ign ? SIG_IGN : SIG_DFL);
  if(orig_chld_ign >= 0)
    signal(SIGCHLD, orig_chld_ign ? SIG_IGN : SIG_DFL);
  do
    n = read(go_rd, &go, 1);
  while(n < 0 && errno == EINTR);
  if(n != 1)
    _exit(127);  /* benchprof gave up before starting us */
  close(go_rd);
  if(out_wr >= 0 && (dup2(out_wr, STDOUT_FILENO) < 0 || close(out_wr)))
    _exit(127);
  if(envp)
    execvpe(argv[0], argv, envp);
  else
    execvp(argv[0], argv);
  int e = errno;
  ssize_t w = write(err_wr, &e, sizeof(e));
  (void)w;
  _exit(127);
}

/* Our environment with add ("NAME=value") in place of any NAME=; built
 * before fork, so the child only execs.  The strings are environ's. */
static char **env_with(const char *add)
{
  extern char **environ;
  size_t n = 0, key = strcspn(add, "=") + 1;
  while(environ[n])
    n++;
  char **envp = malloc((n + 2) * sizeof(*envp));
  if(!envp)
    return NULL;
  size_t j = 0;
  for(size_t i = 0; i < n; i++)
    if(strncmp(environ[i], add, key))
      envp[j++] = environ[i];
  envp[j++] = (char *)add;
  envp[j] = NULL;
  return envp;
}

bp_code bpi_sampler_new(struct bp_sampler **out,
                        const struct bp_sampler_opts *o, struct bp_err *err)
{
  int go[2] = {-1, -1}, ex[2] = {-1, -1}, so[2] = {-1, -1};
  struct bp_sampler *s = calloc(1, sizeof(*s));
  if(!s)
    return bpi_err_set(err, BPE_NOMEM, 0, "sampler");
  s->pidfd = -1;
  s->go_fd = s->exec_err_fd = s->out_fd = -1;
  s->freer.pid = s->freer.wr = -1;
  s->on_output = o->on_output;
  s->output_ctx = o->output_ctx;
  s->input_fd = o->on_input ? o->input_fd : -1;
  s->on_input = o->on_input;
  s->input_ctx = o->input_ctx;
  s->ring_pages = o->ring_pages ? o->ring_pages : DEFAULT_RING_PAGES;
  s->spill_dir = o->spill_dir;
  if(s->ring_pages & (s->ring_pages - 1)) {
    free(s);
    return bpi_err_set(err, BPE_INVAL, 0,
                       "ring pages must be a power of two, not %u",
                       o->ring_pages);
  }
  if(!o->argv || !o->argv[0] || !o->argv[0][0]) {
    free(s);
    return bpi_err_set(err, BPE_INVAL, 0, "no command given");
  }
  char **envp = NULL;
  if(o->env_add && !(envp = env_with(o->env_add))) {
    bpi_err_set(err, BPE_NOMEM, 0, "environment");
    goto fail;
  }
  if(pipe2(go, O_CLOEXEC) || pipe2(ex, O_CLOEXEC) ||
     (o->on_output && pipe2(so, O_CLOEXEC))) {
    bpi_err_set(err, BPE_SYS, errno, "pipe");
    goto fail;
  }
  note_orig_signals();
  pid_t self = getpid();
  s->pid = fork();
  if(s->pid < 0) {
    bpi_err_set(err, BPE_SYS, errno, "fork");
    goto fail;
  }
  if(s->pid == 0) {
    close(go[1]);
    close(ex[0]);
    if(so[0] >= 0)
      close(so[0]);
    child_wait_and_exec(go[0], ex[1], so[1], o->argv, envp, self);
  }
  free(envp);
  envp = NULL;
  close(go[0]);
  close(ex[1]);
  s->go_fd = go[1];
  s->exec_err_fd = ex[0];
  if(so[1] >= 0) {
    close(so[1]);
    s->out_fd = so[0];
    fcntl(s->out_fd, F_SETFL, fcntl(s->out_fd, F_GETFL) | O_NONBLOCK);
  }
  s->pidfd = pidfd_open_compat(s->pid);
  *out = s;
  return BP_OK;
fail:
  for(int i = 0; i < 2; i++) {
    if(go[i] >= 0)
      close(go[i]);
    if(ex[i] >= 0)
      close(ex[i]);
    if(so[i] >= 0)
      close(so[i]);
  }
  free(envp);
  free(s);
  return err->code;
}

static void free_spills(struct bp_sampler *s)
{
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

static void close_events(struct bp_sampler *s)
{
  free_spills(s);
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

static void reap(struct bp_sampler *s, int options)
{
  if(s->reaped || s->pid <= 0)
    return;
  int st;
  pid_t r;
  do
    r = waitpid(s->pid, &st, options);
  while(r < 0 && errno == EINTR);
  if(r == s->pid) {
    s->reaped = true;
    s->wait_status = st;
    s->end_ns = now_ns(CLOCK_MONOTONIC);
  }
  else if(r < 0 && errno == ECHILD) {
    /* SIGCHLD ignored: the kernel reaped it and kept the status */
    s->reaped = true;
    s->wait_status = 0;
    s->status_lost = true;
    s->end_ns = now_ns(CLOCK_MONOTONIC);
  }
}

void bpi_sampler_free(struct bp_sampler *s)
{
  if(!s)
    return;
  if(!s->started && s->pid > 0 && !s->reaped)
    kill(s->pid, SIGKILL);
  if(s->go_fd >= 0)
    close(s->go_fd);  /* a waiting child reads EOF and exits */
  if(s->exec_err_fd >= 0)
    close(s->exec_err_fd);
  reap(s, 0);
  if(s->pidfd >= 0)
    close(s->pidfd);
  if(s->out_fd >= 0)
    close(s->out_fd);
  close_events(s);
  free(s->queue);
  free(s->sort_tmp);
  free(s->arena);
  free(s);
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

bp_code bpi_sampler_open(struct bp_sampler *s, const struct bp_sample_cfg *c,
                         struct bp_sampler_info *info, struct bp_err *err)
{
  memset(info, 0, sizeof(*info));
  close_events(s);
  bp_code rc = bpi_sampler_online_cpus(&s->cpus, &s->ncpus);
  if(rc)
    return bpi_err_set(err, rc, 0, "reading the online CPUs");
  s->fds = malloc(s->ncpus * sizeof(*s->fds));
  s->maps = calloc(s->ncpus, sizeof(*s->maps));
  s->rings = calloc(s->ncpus, sizeof(*s->rings));
  if(!s->fds || !s->maps || !s->rings) {
    close_events(s);
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
    close_events(s);
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
      close_events(s);
      return bpi_err_set(err, BPE_NOMEM, 0, "sampler spill files");
    }
    for(uint32_t i = 0; i < s->ncpus; i++) {
      bpi_spill_init(&s->spills[i], s->spill_dir);
      if(s->layout.sample_type & PERF_SAMPLE_STACK_USER)
        bpi_spill_trim_stacks(&s->spills[i], &s->layout);
    }
  }
  return BP_OK;
}

const struct bp_rec_layout *bpi_sampler_layout(const struct bp_sampler *s)
{
  return &s->layout;
}

bp_code bpi_sampler_start(struct bp_sampler *s, struct bp_err *err)
{
  char go = 'g';
  s->start_epoch_ms = (double)now_ns(CLOCK_REALTIME) / 1e6;
  s->start_ns = now_ns(CLOCK_MONOTONIC);
  s->started = true;
  ssize_t w = write(s->go_fd, &go, 1);
  close(s->go_fd);
  s->go_fd = -1;
  if(w != 1) {
    reap(s, 0);
    return bpi_err_set(err, BPE_EXEC, errno, "cannot release the command");
  }
  int child_errno = 0;
  ssize_t n;
  do
    n = read(s->exec_err_fd, &child_errno, sizeof(child_errno));
  while(n < 0 && errno == EINTR);
  close(s->exec_err_fd);
  s->exec_err_fd = -1;
  if(n == (ssize_t)sizeof(child_errno)) {
    reap(s, 0);
    return bpi_err_set(err, BPE_EXEC, child_errno, "cannot run the command");
  }
  return BP_OK;
}

static bp_code queue_record(struct bp_sampler *s, uint32_t ring,
                            const void *rec, size_t len)
{
  struct bp_ring *r = &s->active[ring];
  bool copy = rec == r->scratch;  /* wrapped: the scratch copy is reused */
  if(copy && s->arena_len + len > s->arena_cap) {
    size_t cap = s->arena_cap ? s->arena_cap : 65536;
    while(cap < s->arena_len + len)
      cap *= 2;
    unsigned char *a = realloc(s->arena, cap);
    if(!a)
      return BPE_NOMEM;
    s->arena = a;
    s->arena_cap = cap;
  }
  if(s->nqueue == s->queue_cap) {
    size_t cap = s->queue_cap ? s->queue_cap * 2 : 1024;
    struct queued *q = realloc(s->queue, cap * sizeof(*q));
    if(!q)
      return BPE_NOMEM;
    s->queue = q;
    s->queue_cap = cap;
  }
  struct queued q = {
    .time = bpi_records_time(&s->layout, rec, len), .seq = s->seq++,
    .ptr = rec, .len = len, .pos = r->tail - len, .ring = ring,
  };
  if(copy) {
    memcpy(s->arena + s->arena_len, rec, len);
    q.ptr = NULL;
    q.off = s->arena_len;
    s->arena_len += len;
  }
  s->queue[s->nqueue++] = q;
  s->queued_bytes += len;
  if(s->queued_bytes > s->queue_peak)
    s->queue_peak = s->queued_bytes;
  return BP_OK;
}

/* Arena records by offset, ring records after them. */
static int by_offset(const void *a, const void *b)
{
  const struct queued *x = a, *y = b;
  if(!x->ptr != !y->ptr)
    return x->ptr ? 1 : -1;
  return x->off < y->off ? -1 : x->off > y->off;
}

static int by_time(const void *a, const void *b)
{
  const struct queued *x = a, *y = b;
  if(x->time != y->time)
    return x->time < y->time ? -1 : 1;
  return x->seq < y->seq ? -1 : (x->seq > y->seq);
}

/* How many rings s->active holds (see there). */
static uint32_t n_active(const struct bp_sampler *s)
{
  return s->replaying ? 2 * s->ncpus : s->ncpus;
}

/* How far ahead in time one spill file may be read of the others. */
#define REPLAY_AHEAD_NS 10000000ULL

/* Bytes taken from one ring per round: the queue stays bounded by this
 * times the number of CPUs, however far behind the reader is. */
#define RING_ROUND_BYTES (256 * 1024)

/* Queue what the rings hold (up to RING_ROUND_BYTES each).
 * *limit receives the time up to which every record has certainly been
 * read: records carry the CLOCK_MONOTONIC time the kernel took just
 * before writing them, so anything stamped a millisecond before this
 * round began is already in some ring, and anything stamped a millisecond
 * before the last record read from a ring left unfinished is not among
 * what that ring still holds.  Newer records wait for the next round,
 * when a ring read earlier in this round may still add older ones.
 * Replaying spill files (and, after them, what the rings still hold),
 * every record is already written: only the second rule applies, a reader
 * is unfinished while its file is, and a reader whose records are already
 * more than REPLAY_AHEAD_NS newer than the least advanced one's waits:
 * what it read stays queued (mapped, spill.h, or in the ring) until the
 * others catch up, and would pile up for as long as the run was. */
static bp_code read_rings(struct bp_sampler *s, uint64_t *limit, bool *more)
{
  *more = false;
  uint64_t behind = UINT64_MAX;  /* the least advanced unfinished file */
  if(s->replaying) {
    *limit = UINT64_MAX;
    for(uint32_t i = 0; i < n_active(s); i++)
      if((s->active[i].tail != __atomic_load_n(&s->active[i].page->data_head,
                                               __ATOMIC_ACQUIRE) ||
          s->reader_more[i]) && s->reader_last[i] < behind)
        behind = s->reader_last[i];
  }
  else {
    uint64_t begin = now_ns(CLOCK_MONOTONIC);
    *limit = begin > 1000000 ? begin - 1000000 : 0;
  }
  for(uint32_t i = 0; i < n_active(s); i++) {
    struct bp_ring *r = &s->active[i];
    const void *rec;
    size_t len, taken = 0;
    bp_code rc = BP_OK;
    bool queued = false;
    bool ahead = s->replaying && behind != UINT64_MAX &&
                 s->reader_last[i] > behind + REPLAY_AHEAD_NS;
    if(!ahead && bpi_ring_begin(r)) {
      while(taken < RING_ROUND_BYTES && bpi_ring_next(r, &rec, &len, &rc)) {
        rc = queue_record(s, i, rec, len);
        if(rc)
          return rc;
        taken += len;
        queued = true;
      }
      if(rc)
        return rc;
    }
    uint64_t last = queued ? s->queue[s->nqueue - 1].time : 0;
    if(s->replaying) {
      if(queued)
        s->reader_last[i] = last;
      last = s->reader_last[i];
    }
    bool unfinished = r->tail != r->head ||
                      (s->replaying && s->reader_more[i]);
    if(unfinished)
      *more = true;
    if(unfinished && (queued || s->replaying)) {
      uint64_t t = last > 1000000 ? last - 1000000 : 0;
      if(t < *limit)
        *limit = t;
    }
  }
  return BP_OK;
}

/* Give the kernel back each ring's space up to its oldest record still
 * queued (all of what was read when none is). */
static void release_rings(struct bp_sampler *s)
{
  struct bp_ring *rings = s->active;
  for(uint32_t i = 0; i < n_active(s); i++)
    rings[i].keep = rings[i].tail;
  for(size_t j = 0; j < s->nqueue; j++) {
    struct bp_ring *r = &rings[s->queue[j].ring];
    if(s->queue[j].pos < r->keep)
      r->keep = s->queue[j].pos;
  }
  for(uint32_t i = 0; i < n_active(s); i++)
    bpi_ring_consume_to(&rings[i], rings[i].keep);
}

/* Records are delivered PREFETCH_AHEAD ahead of their turn's memory:
 * the parts of a sample the converter reads (its fixed fields, callchain,
 * registers and the top of its stack copy, PREFETCH_HEAD bytes, and its
 * end, where dyn_size is) are asked of memory while the records before it
 * are unwound.  Read back from a spill file they were written long before
 * and are no longer in any cache: one miss after the other, a sample's
 * 8 KiB apart, took more time than unwinding them. */
#define PREFETCH_AHEAD 2
#define PREFETCH_HEAD 1024

static void prefetch_record(const unsigned char *p, size_t len)
{
  size_t head = len < PREFETCH_HEAD ? len : PREFETCH_HEAD;
  for(size_t at = 0; at < head; at += 64)
    __builtin_prefetch(p + at);
  __builtin_prefetch(p + len - 1);
}

/* Merge the sorted runs a[lo, mid) and a[mid, hi) into out[lo, hi). */
static void merge_runs(const struct queued *a, size_t lo, size_t mid,
                       size_t hi, struct queued *out)
{
  size_t i = lo, j = mid, k = lo;
  while(i < mid && j < hi)
    out[k++] = by_time(&a[j], &a[i]) < 0 ? a[j++] : a[i++];
  while(i < mid)
    out[k++] = a[i++];
  while(j < hi)
    out[k++] = a[j++];
}

/* Sort the queue by time (then arrival).  It is a few runs already in
 * order: what the last round kept, then each ring's new records as they
 * were read (a ring's records follow each other in time); so it is
 * merged run by run, adjacent pairs at a time, in O(n log runs) instead
 * of being sorted from scratch each round (qsort was a sixth of the time
 * after the run with 100k samples).  BPE_NOMEM. */
static bp_code sort_queue(struct bp_sampler *s)
{
  size_t n = s->nqueue, sorted = 1;
  while(sorted < n && by_time(&s->queue[sorted - 1], &s->queue[sorted]) <= 0)
    sorted++;
  if(sorted >= n)
    return BP_OK;
  if(s->sort_cap < n) {
    struct queued *t = realloc(s->sort_tmp, s->queue_cap * sizeof(*t));
    if(!t)
      return BPE_NOMEM;
    s->sort_tmp = t;
    s->sort_cap = s->queue_cap;
  }
  struct queued *a = s->queue, *b = s->sort_tmp;
  for(;;) {
    /* one pass: merge each run with the next */
    size_t lo = 0, runs = 0;
    while(lo < n) {
      size_t mid = lo + 1;
      while(mid < n && by_time(&a[mid - 1], &a[mid]) <= 0)
        mid++;
      size_t hi = mid < n ? mid + 1 : n;
      while(hi < n && by_time(&a[hi - 1], &a[hi]) <= 0)
        hi++;
      merge_runs(a, lo, mid, hi, b);
      lo = hi;
      runs++;
    }
    struct queued *t = a;
    a = b;
    b = t;
    if(runs == 1)
      break;
  }
  if(a != s->queue)
    memcpy(s->queue, a, n * sizeof(*a));
  return BP_OK;
}

/* Deliver queued records up to limit in time order; keep the rest. */
static bp_code deliver(struct bp_sampler *s, uint64_t limit, bp_record_fn fn,
                       void *ctx, bp_code *cb_rc)
{
  if(sort_queue(s))
    return BPE_NOMEM;
  size_t i = 0;
  for(; i < s->nqueue && s->queue[i].time <= limit; i++) {
    const struct queued *q = &s->queue[i];
    if(i + PREFETCH_AHEAD < s->nqueue) {
      const struct queued *n = q + PREFETCH_AHEAD;
      prefetch_record(n->ptr ? n->ptr : s->arena + n->off, n->len);
    }
    if(*cb_rc == BP_OK)
      *cb_rc = fn(ctx, q->ptr ? q->ptr : s->arena + q->off, q->len);
    s->queued_bytes -= q->len;
  }
  size_t keep = s->nqueue - i;
  if(keep)
    memmove(s->queue, s->queue + i, keep * sizeof(*s->queue));
  s->nqueue = keep;
  /* compact the copies that wait for the next round to the front of the
   * arena, in place: records move only towards the front, so ordering
   * them by offset first makes every move safe (the queue stays in time
   * order when there are none, the usual case: merging it is then one
   * run more) */
  bool copies = false;
  for(size_t j = 0; j < keep && !copies; j++)
    copies = !s->queue[j].ptr;
  if(copies)
    qsort(s->queue, keep, sizeof(*s->queue), by_offset);
  size_t len = 0;
  for(size_t j = 0; j < keep && !s->queue[j].ptr; j++) {
    struct queued *q = &s->queue[j];
    if(q->off != len)
      memmove(s->arena + len, s->arena + q->off, q->len);
    q->off = len;
    len += q->len;
  }
  s->arena_len = len;
  release_rings(s);
  return BP_OK;
}

static bool child_done(struct bp_sampler *s, const struct pollfd *pidpoll)
{
  if(pidpoll && !(pidpoll->revents & POLLIN))
    return false;
  reap(s, WNOHANG);
  return s->reaped;
}

static bool write_all(int fd, const char *p, size_t len)
{
  while(len) {
    ssize_t n = write(fd, p, len);
    if(n < 0 && errno == EINTR)
      continue;
    if(n <= 0)
      return false;
    p += n;
    len -= (size_t)n;
  }
  return true;
}

/* Copy what the command wrote to its stdout to ours, unchanged, and hand
 * it to the caller unless it came after the command exited (late: from a
 * process it left behind, not its results).  Reads until the pipe is
 * empty; closes it at EOF. */
static void pump_output(struct bp_sampler *s, bool late)
{
  char buf[65536];
  while(s->out_fd >= 0) {
    ssize_t n = read(s->out_fd, buf, sizeof(buf));
    if(n < 0 && errno == EINTR)
      continue;
    if(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return;
    if(n <= 0) {
      close(s->out_fd);
      s->out_fd = -1;
      return;
    }
    /* our stdout may be closed (EPIPE; SIGPIPE is ignored here): the
     * command's output still counts for the report */
    if(!s->stdout_broken && !write_all(STDOUT_FILENO, buf, (size_t)n))
      s->stdout_broken = true;
    if(!late)
      s->on_output(s->output_ctx, buf, (size_t)n);
  }
}

/* After the command exited, its stdout pipe stays open while a process it
 * left behind holds it: keep copying until the pipe closes, as the
 * terminal would have shown that output without --adapter, but for at
 * most LATE_OUTPUT_MS, so a daemon holding the pipe cannot stall the
 * run.  That output is relayed only, not taken as the command's. */
#define LATE_OUTPUT_MS 10000
static void relay_late_output(struct bp_sampler *s)
{
  struct timespec t0, now;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pump_output(s, false);  /* what it wrote just before it exited */
  while(s->out_fd >= 0) {
    clock_gettime(CLOCK_MONOTONIC, &now);
    long spent = (long)(now.tv_sec - t0.tv_sec) * 1000 +
      (now.tv_nsec - t0.tv_nsec) / 1000000;
    if(spent >= LATE_OUTPUT_MS)
      break;
    struct pollfd p = { .fd = s->out_fd, .events = POLLIN };
    if(poll(&p, 1, (int)(LATE_OUTPUT_MS - spent)) < 0 && errno != EINTR)
      break;
    pump_output(s, true);
  }
}

/* Move records from the rings to the callback, in time order up to limit,
 * until the active rings (and, replaying, their files) hold nothing
 * more, or only what a round left (live, after the command exited, every
 * round goes until they are empty). */
static void read_and_deliver(struct bp_sampler *s, bool final,
                             bp_record_fn fn, void *ctx, bp_code *rc,
                             bp_code *cb_rc)
{
  uint64_t limit;
  bool more;
  do {
    if(s->replaying)
      for(uint32_t i = 0; !*rc && i < s->ncpus; i++)
        *rc = bpi_spill_refill(&s->spills[i], &s->readers[i],
                               &s->reader_more[i]);
    size_t before = s->nqueue;
    if(!*rc)
      *rc = read_rings(s, &limit, &more);
    size_t read = s->nqueue;
    if(!*rc)
      *rc = deliver(s, final && !more ? UINT64_MAX : limit, fn, ctx, cb_rc);
    /* a round that neither read nor delivered anything would repeat for
     * ever (a reader filled with records all within a millisecond of
     * each other): hand out what is queued, a little out of order */
    if(!*rc && more && read == before && s->nqueue == read)
      *rc = deliver(s, UINT64_MAX, fn, ctx, cb_rc);
  } while(!*rc && final && more);
  s->rings_behind = !*rc && more;  /* after an error nothing reads them */
}

/* Move the unread bytes of every ring that woke us (of all with woke
 * NULL) to its spill file: one that did not is not full enough to be
 * worth a system call, nor is one that only says its command exited
 * (POLLHUP: the final drain reads it where it is).  False (errno kept in
 * spill_errno) when a file would not take them. */
static bool spill_rings(struct bp_sampler *s, const struct pollfd *woke)
{
  for(uint32_t i = 0; i < s->ncpus; i++) {
    if(woke && !(woke[i].revents & POLLIN))
      continue;
    if(bpi_spill_take(&s->spills[i], &s->rings[i])) {
      s->spill_errno = errno ? errno : EIO;
      return false;
    }
  }
  return true;
}

/* Move ring i into the replay's readers (after the files), or back. */
static void move_ring(struct bp_ring *to, struct bp_ring *from)
{
  *to = *from;
  memset(from, 0, sizeof(*from));  /* the scratch buffer went with it */
}

/* Whether a file still has records to read, or queued. */
static bool files_pending(const struct bp_sampler *s)
{
  for(uint32_t i = 0; i < s->ncpus; i++)
    if(s->readers[i].tail != s->readers[i].page->data_head ||
       s->reader_more[i])
      return true;
  for(size_t j = 0; j < s->nqueue; j++)
    if(s->queue[j].ring < s->ncpus)
      return true;
  return false;
}

/* Hand what the spill files hold, merged with what the rings hold after
 * them, to the callback in time order, then drop the files: from then on
 * the rings are read live.  final: the command exited, everything is
 * read.  Otherwise (a file refused more while it runs) the rings keep
 * filling, faster than records may be handed out: rounds go on only
 * until nothing of the files is left, read or queued (the rings are read
 * alongside, so that nothing they hold is older than what went out). */
static bp_code replay_spills(struct bp_sampler *s, bool final,
                             bp_record_fn fn, void *ctx, bp_code *cb_rc)
{
  bp_code rc = BP_OK;
  uint32_t n = s->ncpus;
  /* before the files are mapped and the records read (spill.h) */
  if(final)
    bpi_spill_freer_start(&s->freer, s->spills, n);
  for(uint32_t i = 0; !rc && i < n; i++)
    rc = bpi_spill_reader(&s->spills[i], &s->readers[i], SPILL_READER_BYTES);
  if(!rc) {
    for(uint32_t i = 0; i < n; i++) {
      move_ring(&s->readers[n + i], &s->rings[i]);
      s->reader_more[n + i] = false;
      s->reader_last[n + i] = 0;
    }
    s->active = s->readers;
    s->replaying = true;
    if(final)
      read_and_deliver(s, true, fn, ctx, &rc, cb_rc);
    else
      do
        read_and_deliver(s, false, fn, ctx, &rc, cb_rc);
      while(!rc && files_pending(s));
    for(uint32_t i = 0; i < n; i++)
      move_ring(&s->rings[i], &s->readers[n + i]);
    /* what is still queued (not final) is the rings', moved back */
    for(size_t j = 0; j < s->nqueue; j++)
      s->queue[j].ring -= n;
  }
  for(uint32_t i = 0; i < s->ncpus; i++) {
    s->corrupt += s->readers[i].corrupt;
    s->spilled += s->spills[i].written;
    s->spill_trimmed += s->spills[i].trimmed;
    s->spill_freed += s->spills[i].freed;
  }
  /* after a failure, what is still queued may point into the readers */
  if(rc) {
    s->nqueue = 0;
    s->queued_bytes = 0;
    s->arena_len = 0;
  }
  s->replaying = false;
  s->active = s->rings;
  free_spills(s);
  return rc;
}

/* While the command runs: move the bytes of the rings that woke us (pfd,
 * one per ring) to the spill files, or without them read the records now.
 * final: the command exited; read everything (the files, then the rings:
 * what is still in a ring is not written out to be read back). */
static void drain(struct bp_sampler *s, const struct pollfd *pfd, bool final,
                  bp_record_fn fn, void *ctx, bp_code *rc, bp_code *cb_rc,
                  struct bp_err *err)
{
  if(*rc)
    return;
  if(s->spills) {
    if(!final && spill_rings(s, pfd)) {
      s->rings_behind = false;
      return;
    }
    *rc = replay_spills(s, final, fn, ctx, cb_rc);
    if(*rc) {
      bpi_err_set(err, *rc, errno, "reading back the spilled rings");
      return;
    }
  }
  read_and_deliver(s, final, fn, ctx, rc, cb_rc);
  if(*rc)
    bpi_err_set(err, *rc, 0, "reading the rings");
}

bp_code bpi_sampler_run(struct bp_sampler *s, bp_record_fn fn, void *ctx,
                        struct bp_err *err)
{
  /* rings, then the pidfd, the command's stdout and the input fd; -1 is
   * skipped */
  uint32_t n = s->ncpus;
  struct pollfd *pfd = calloc(n + 3, sizeof(*pfd));
  if(!pfd)
    return bpi_err_set(err, BPE_NOMEM, 0, "poll set");
  for(uint32_t i = 0; i < n; i++) {
    pfd[i].fd = s->fds[i];
    pfd[i].events = POLLIN;
  }
  pfd[n].fd = s->pidfd;
  pfd[n].events = POLLIN;
  pfd[n + 1].fd = s->out_fd;
  pfd[n + 1].events = POLLIN;
  pfd[n + 2].fd = s->input_fd;
  pfd[n + 2].events = POLLIN;
  bp_code rc = BP_OK, cb_rc = BP_OK;
  while(!s->reaped) {
    /* without a pidfd, look for the exit every 50 ms */
    /* ring wake-ups are edge-triggered: with records left behind, only
     * look whether anything else happened */
    int r = poll(pfd, n + 3, s->rings_behind ? 0 : s->pidfd >= 0 ? 1000 : 50);
    if(r < 0 && errno != EINTR && !rc)
      rc = bpi_err_set(err, BPE_SYS, errno, "poll");
    for(uint32_t i = 0; i < n; i++)
      if(pfd[i].revents & (POLLHUP | POLLERR))
        pfd[i].fd = -1;  /* no more wake-ups from it; drained below */
    if(s->out_fd >= 0 && pfd[n + 1].revents) {
      pump_output(s, false);
      pfd[n + 1].fd = s->out_fd;
    }
    if(s->input_fd >= 0 && pfd[n + 2].revents)
      s->on_input(s->input_ctx);
    drain(s, pfd, false, fn, ctx, &rc, &cb_rc, err);
    child_done(s, s->pidfd >= 0 ? &pfd[n] : NULL);
  }
  relay_late_output(s);  /* its children may still write */
  if(s->on_input)
    s->on_input(s->input_ctx);
  drain(s, NULL, true, fn, ctx, &rc, &cb_rc, err);
  for(uint32_t i = 0; i < n; i++)
    s->corrupt += s->rings[i].corrupt;
  free(pfd);
  if(!rc && cb_rc)
    rc = cb_rc;
  return rc;
}

pid_t bpi_sampler_pid(const struct bp_sampler *s)
{
  return s->pid;
}

int bpi_sampler_wait_status(const struct bp_sampler *s)
{
  return s->wait_status;
}

uint64_t bpi_sampler_start_ns(const struct bp_sampler *s)
{
  return s->start_ns;
}

double bpi_sampler_start_epoch_ms(const struct bp_sampler *s)
{
  return s->start_epoch_ms;
}

uint64_t bpi_sampler_end_ns(const struct bp_sampler *s)
{
  return s->end_ns;
}

uint64_t bpi_sampler_corrupt(const struct bp_sampler *s)
{
  return s->corrupt;
}

uint64_t bpi_sampler_spilled(const struct bp_sampler *s, uint64_t *trimmed)
{
  *trimmed = s->spill_trimmed;
  return s->spilled;
}

uint64_t bpi_sampler_spill_freed(const struct bp_sampler *s)
{
  return s->spill_freed;
}

uint64_t bpi_sampler_queue_peak(const struct bp_sampler *s)
{
  return s->queue_peak;
}

int bpi_sampler_spill_errno(const struct bp_sampler *s)
{
  return s->spill_errno;
}
