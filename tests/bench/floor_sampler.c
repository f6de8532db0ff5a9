/* floor_sampler: the kernel's floor for sampling, for the harness.
 *
 *   floor_sampler [-F HZ] [-g fp|dwarf[,BYTES]] [-m PAGES] [-k] [-s]
 *                 [-w BYTES] [-v] -- CMD...
 *
 * Opens the same events benchprof record opens (software cpu-clock, one
 * per online CPU, pid = the child, inherit, frequency HZ, callchain, the
 * same sample_type and side-band records, enable_on_exec) on a forked
 * child that execs CMD once the events are in place, then only drains the
 * rings: it reads data_head and publishes it as data_tail, never looking at
 * a record.  What this costs is what any sampler has to pay; benchprof's
 * own CPU time is compared with it.  -g dwarf asks for what benchprof's
 * dwarf and auto modes ask for: the user registers and BYTES (default
 * 8192) of user stack per sample.  Rings of 512 pages unless -m says
 * otherwise (the harness passes the size benchprof used).  -k samples
 * the kernel too, with kernel frames (benchprof's default where it is
 * permitted).  -s asks for what --off-cpu asks for: context-switch
 * records on the sampling event and the software context-switches event
 * sampled at every switch with the same sample layout, into the same
 * rings (-w: their stack copies of BYTES, fewer than -g's, as benchprof's
 * default call graph asks).  Exits with CMD's status. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
  return syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int online_cpus(int *cpus, int max)
{
  char line[4096];
  int n = 0;
  FILE *f = fopen("/sys/devices/system/cpu/online", "r");
  if(f && fgets(line, sizeof(line), f)) {
    char *s = line;
    while(*s && *s != '\n' && n < max) {
      char *end;
      long lo = strtol(s, &end, 10), hi = lo;
      s = end;
      if(*s == '-') {
        hi = strtol(s + 1, &end, 10);
        s = end;
      }
      for(long c = lo; c <= hi && n < max; c++)
        cpus[n++] = (int)c;
      if(*s == ',')
        s++;
    }
  }
  if(f)
    fclose(f);
  if(n == 0) {
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    for(n = 0; n < c && n < max; n++)
      cpus[n] = n;
  }
  return n;
}

static uint64_t drained;

static void drain(struct perf_event_mmap_page *pg)
{
  uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = pg->data_tail;
  drained += head - tail;
  __atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
}

/* benchprof's wake-up point (bpi_sampler_watermark, sampler.c): left
 * free with stack copies, an eighth of the ring or what 250 ms of samples
 * at freq fill (stack + 512 bytes each) if more, at least 1 MiB and at
 * most half the ring; a quarter without */
static uint32_t wake_point(uint32_t ring_bytes, uint32_t stack_bytes,
                           uint64_t freq)
{
  if(!stack_bytes)
    return ring_bytes / 4 * 3;
  uint64_t room = ring_bytes / 8;
  uint64_t fill = freq * ((uint64_t)stack_bytes + 512) * 250 / 1000;
  if(room < fill)
    room = fill;
  if(room < 1024 * 1024)
    room = 1024 * 1024;
  if(room > ring_bytes / 2)
    room = ring_bytes / 2;
  return ring_bytes - (uint32_t)room;
}

/* The context-switches event, every switch sampled with the sampling
 * event's layout (kernel mode: it fires in the scheduler), writing into
 * the sampling event's ring.  Its fd stays open until exit. */
static int open_switch_event(const struct perf_event_attr *a, pid_t pid,
                             int cpu, int ring_fd, unsigned long stack)
{
  struct perf_event_attr w = *a;
  if(stack && w.sample_stack_user > stack)
    w.sample_stack_user = (uint32_t)stack;
  w.type = PERF_TYPE_SOFTWARE;
  w.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
  w.freq = 0;
  w.sample_period = 1;
  w.exclude_kernel = 0;
  w.mmap = w.mmap2 = w.comm = w.comm_exec = w.task = 0;
  w.build_id = 0;
  w.context_switch = 0;
  w.watermark = 0;
  w.wakeup_events = 0;
  long fd = perf_open(&w, pid, cpu);
  if(fd < 0 || ioctl((int)fd, PERF_EVENT_IOC_SET_OUTPUT, ring_fd)) {
    perror("context-switches event");
    return -1;
  }
  return 0;
}

int main(int argc, char **argv)
{
  unsigned long freq = 997, pages = 0, stack = 0;
  unsigned long switch_stack = 0;
  int verbose = 0, kernel = 0, switches = 0, opt;
  while((opt = getopt(argc, argv, "+F:g:m:ksw:v")) != -1) {
    switch(opt) {
    case 'F': freq = strtoul(optarg, NULL, 10); break;
    case 'g':
      if(!strcmp(optarg, "fp"))
        stack = 0;
      else if(!strncmp(optarg, "dwarf", 5))
        stack = optarg[5] == ',' ? strtoul(optarg + 6, NULL, 10) : 8192;
      else {
        fprintf(stderr, "floor_sampler: -g fp or dwarf[,BYTES]\n");
        return 2;
      }
      break;
    case 'm': pages = strtoul(optarg, NULL, 10); break;
    case 'k': kernel = 1; break;
    case 's': switches = 1; break;
    case 'w': switch_stack = strtoul(optarg, NULL, 10); break;
    case 'v': verbose = 1; break;
    default:
      fprintf(stderr, "usage: floor_sampler [-F HZ] [-g fp|dwarf[,BYTES]] "
              "[-m PAGES] [-k] [-s] [-w BYTES] [-v] -- CMD...\n");
      return 2;
    }
  }
  if(!pages)
    pages = 512;  /* benchprof's default (sampler.c, record.h) */
  if(optind >= argc) {
    fprintf(stderr, "floor_sampler: no command\n");
    return 2;
  }
  int cpus[1024];
  int ncpus = online_cpus(cpus, 1024);
  long page = sysconf(_SC_PAGESIZE);
  size_t map_len = (size_t)(pages + 1) * (size_t)page;

  int go[2];
  if(pipe2(go, O_CLOEXEC)) {
    perror("pipe");
    return 1;
  }
  pid_t pid = fork();
  if(pid < 0) {
    perror("fork");
    return 1;
  }
  if(pid == 0) {
    char c;
    close(go[1]);
    if(read(go[0], &c, 1) != 1)
      _exit(127);
    execvp(argv[optind], argv + optind);
    perror("exec");
    _exit(127);
  }
  close(go[0]);

  struct perf_event_attr a;
  memset(&a, 0, sizeof(a));
  a.size = sizeof(a);
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_CPU_CLOCK;
  a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                  PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
  a.freq = 1;
  a.sample_freq = freq;
  a.disabled = 1;
  a.enable_on_exec = 1;
  a.inherit = 1;
  a.mmap = 1;
  a.mmap2 = 1;
  a.comm = 1;
  a.comm_exec = 1;
  a.task = 1;
  a.sample_id_all = 1;
  a.use_clockid = 1;
  a.clockid = CLOCK_MONOTONIC;
  a.exclude_kernel = !kernel;
  a.exclude_hv = 1;
  a.exclude_guest = 1;
  a.exclude_callchain_kernel = !kernel;
  a.watermark = 1;
  a.wakeup_watermark = wake_point((uint32_t)(pages * (unsigned long)page),
                                  (uint32_t)stack, freq);
  if(stack) {
    /* benchprof's bpi_unwind_regs_mask(): ax..ip and r8..r15 (x86-64) */
    a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
    a.sample_regs_user = ((1ULL << 9) - 1) | (0xffULL << 16);
    a.sample_stack_user = (uint32_t)stack;
  }
#ifdef PERF_RECORD_MISC_MMAP_BUILD_ID
  a.build_id = 1;
#endif
  if(switches) {
    /* benchprof's fill_sampling_attr() and fill_switch_attr() */
    a.context_switch = 1;
    a.sample_type |= PERF_SAMPLE_IDENTIFIER;
  }

  int *fds = calloc((size_t)ncpus, sizeof(*fds));
  struct perf_event_mmap_page **maps = calloc((size_t)ncpus, sizeof(*maps));
  struct pollfd *pfd = calloc((size_t)ncpus + 1, sizeof(*pfd));
  if(!fds || !maps || !pfd)
    return 1;
  for(int i = 0; i < ncpus; i++) {
    long fd = perf_open(&a, pid, cpus[i]);
#ifdef PERF_RECORD_MISC_MMAP_BUILD_ID
    if(fd < 0 && errno == EINVAL && a.build_id) {
      a.build_id = 0; /* old kernel: benchprof drops it too */
      fd = perf_open(&a, pid, cpus[i]);
    }
#endif
    if(fd < 0) {
      perror("perf_event_open");
      kill(pid, SIGKILL);
      return 1;
    }
    fds[i] = (int)fd;
    void *m = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fds[i], 0);
    if(m == MAP_FAILED) {
      perror("mmap");
      kill(pid, SIGKILL);
      return 1;
    }
    maps[i] = m;
    pfd[i].fd = fds[i];
    pfd[i].events = POLLIN;
    if(switches && open_switch_event(&a, pid, cpus[i], fds[i], switch_stack)) {
      kill(pid, SIGKILL);
      return 1;
    }
  }
  int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  pfd[ncpus].fd = pidfd;
  pfd[ncpus].events = POLLIN;

  if(write(go[1], "g", 1) != 1) {
    perror("write");
    return 1;
  }
  close(go[1]);

  int status = 0;
  for(;;) {
    int r = poll(pfd, (nfds_t)ncpus + 1, pidfd >= 0 ? 1000 : 50);
    if(r < 0 && errno != EINTR) {
      perror("poll");
      break;
    }
    for(int i = 0; i < ncpus; i++)
      drain(maps[i]);
    pid_t w = waitpid(pid, &status, WNOHANG);
    if(w == pid)
      break;
  }
  for(int i = 0; i < ncpus; i++) {
    drain(maps[i]);
    munmap(maps[i], map_len);
    close(fds[i]);
  }
  if(verbose)
    fprintf(stderr, "floor_sampler: %d CPUs, %lu Hz, %llu bytes drained\n",
            ncpus, freq, (unsigned long long)drained);
  if(WIFSIGNALED(status))
    return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}
