/* fakepmu: an LD_PRELOAD library that lets benchprof take its hardware
 * branch on a machine without a hardware PMU (most VMs and CI runners).
 *
 * benchprof opens events with syscall(SYS_perf_event_open, ...).  This
 * library wraps libc's syscall() and, for that one system call, opens a
 * hardware, raw or hardware-cache event (or one of a dynamic PMU type) as
 * the software clock (cpu-clock) instead, with the same sampling settings,
 * so the kernel accepts it and produces real samples and counts.  Every
 * other system call goes to libc untouched.  Knobs, all environment
 * variables read at each call:
 *
 *   FAKEPMU_LOG=FILE        append one line per perf_event_open: the
 *                           attributes asked for and the result
 *   FAKEPMU_MAX_PRECISE=N   precise_ip above N: EOPNOTSUPP (as x86 does)
 *   FAKEPMU_MAX_GROUP=N     a group of more than N hardware counters:
 *                           EINVAL (the kernel's answer for a group that
 *                           cannot be scheduled at once)
 *   FAKEPMU_SCALE=R         0 < R < 1: reads of counting events report
 *                           time_running = R * time_enabled and counts
 *                           R times the real ones (multiplexing)
 *   FAKEPMU_FAIL=NAME       EBUSY, EMFILE, EACCES or EINVAL for every
 *                           hardware event (or only the one whose config
 *                           is FAKEPMU_FAIL_CONFIG, decimal or 0x hex)
 *   FAKEPMU_LBR=refuse      branch_sample_type (LBR): EOPNOTSUPP.
 *                           Otherwise LBR is accepted, but the software
 *                           clock can record no branch stack, so such an
 *                           event is opened with a period that never
 *                           expires: no samples, only the attributes.
 *
 * Software events are opened as asked (and logged).  The read() and
 * close() wrappers only touch fds this library opened for counting.
 * Test code: not installed. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_FDS 4096

/* What we know of an fd we opened. */
struct fake_fd {
  bool used;
  bool hardware;          /* a hardware event opened as the clock */
  bool counting;          /* no sampling: reads are scaled */
  uint64_t read_format;
  int leader;             /* group leader's fd, itself for a leader */
  int members;            /* hardware events in the group (leaders) */
};

static struct fake_fd fds[MAX_FDS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

typedef long (*syscall_fn)(long, ...);
typedef ssize_t (*read_fn)(int, void *, size_t);
typedef int (*close_fn)(int);

static syscall_fn real_syscall(void)
{
  static syscall_fn fn;
  if(!fn)
    fn = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
  return fn;
}

static read_fn real_read(void)
{
  static read_fn fn;
  if(!fn)
    fn = (read_fn)dlsym(RTLD_NEXT, "read");
  return fn;
}

static close_fn real_close(void)
{
  static close_fn fn;
  if(!fn)
    fn = (close_fn)dlsym(RTLD_NEXT, "close");
  return fn;
}

static long env_long(const char *name, long dflt)
{
  const char *v = getenv(name);
  if(!v || !*v)
    return dflt;
  return strtol(v, NULL, 0);
}

static bool is_hardware(const struct perf_event_attr *a)
{
  return a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_RAW ||
         a->type == PERF_TYPE_HW_CACHE || a->type >= PERF_TYPE_MAX;
}

static int errno_named(const char *name)
{
  static const struct { const char *name; int num; } names[] = {
    {"EBUSY", EBUSY}, {"EMFILE", EMFILE}, {"EACCES", EACCES},
    {"EINVAL", EINVAL}, {"EPERM", EPERM}, {"ENOSPC", ENOSPC},
    {"EOPNOTSUPP", EOPNOTSUPP}, {"ENOENT", ENOENT},
  };
  for(size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
    if(!strcmp(name, names[i].name))
      return names[i].num;
  return 0;
}

/* One line of key=value pairs, written with one write() so that lines of
 * several processes do not mix. */
static void log_open(const struct perf_event_attr *a, pid_t pid, int cpu,
                     int group_fd, unsigned long flags, long result, int err)
{
  const char *path = getenv("FAKEPMU_LOG");
  if(!path || !*path)
    return;
  char line[1024];
  int n = snprintf(line, sizeof(line),
    "pid=%d cpu=%d group_fd=%d flags=0x%lx type=%u config=0x%llx "
    "config1=0x%llx config2=0x%llx precise_ip=%u freq=%u sample=%llu "
    "sample_type=0x%llx read_format=0x%llx branch_sample_type=0x%llx "
    "exclude_user=%u exclude_kernel=%u exclude_hv=%u exclude_guest=%u "
    "exclude_host=%u exclude_callchain_kernel=%u inherit=%u disabled=%u "
    "enable_on_exec=%u pinned=%u exclusive=%u sample_regs_user=0x%llx "
    "sample_stack_user=%u result=%ld errno=%s\n",
    (int)pid, cpu, group_fd, flags, a->type, (unsigned long long)a->config,
    (unsigned long long)a->config1, (unsigned long long)a->config2,
    a->precise_ip, a->freq, (unsigned long long)a->sample_period,
    (unsigned long long)a->sample_type, (unsigned long long)a->read_format,
    (unsigned long long)a->branch_sample_type, a->exclude_user,
    a->exclude_kernel, a->exclude_hv, a->exclude_guest, a->exclude_host,
    a->exclude_callchain_kernel, a->inherit, a->disabled, a->enable_on_exec,
    a->pinned, a->exclusive, (unsigned long long)a->sample_regs_user,
    a->sample_stack_user, result, result < 0 ? strerrorname_np(err) : "0");
  if(n <= 0)
    return;
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if(fd < 0)
    return;
  ssize_t w = write(fd, line, (size_t)n < sizeof(line) ? (size_t)n
                                                       : sizeof(line) - 1);
  (void)w;
  real_close()(fd);
}

/* The errno a knob asks for this attr, or 0 to open it. */
static int refusal(const struct perf_event_attr *a, int group_fd)
{
  const char *fail = getenv("FAKEPMU_FAIL");
  if(fail && *fail) {
    const char *only = getenv("FAKEPMU_FAIL_CONFIG");
    if(!only || !*only || strtoull(only, NULL, 0) == a->config)
      return errno_named(fail) ? errno_named(fail) : EINVAL;
  }
  if(a->precise_ip > env_long("FAKEPMU_MAX_PRECISE", 3))
    return EOPNOTSUPP;
  const char *lbr = getenv("FAKEPMU_LBR");
  if((a->sample_type & PERF_SAMPLE_BRANCH_STACK) && lbr &&
     !strcmp(lbr, "refuse"))
    return EOPNOTSUPP;
  long max_group = env_long("FAKEPMU_MAX_GROUP", 0);
  if(max_group > 0 && group_fd >= 0 && group_fd < MAX_FDS &&
     fds[group_fd].used && fds[group_fd].members >= max_group)
    return EINVAL;
  return 0;
}

/* The attr the kernel really gets: the software clock in place of a
 * hardware event, with everything else as asked. */
static void as_software(struct perf_event_attr *k)
{
  k->type = PERF_TYPE_SOFTWARE;
  k->config = PERF_COUNT_SW_CPU_CLOCK;
  k->config1 = 0;
  k->config2 = 0;
  k->precise_ip = 0;
  k->exclude_guest = 0;
  k->exclude_host = 0;
  k->pinned = 0;
  k->exclusive = 0;
  if(k->sample_type & PERF_SAMPLE_BRANCH_STACK) {
    /* nothing can fill a branch stack: never sample at all */
    k->sample_type &= ~(uint64_t)PERF_SAMPLE_BRANCH_STACK;
    k->branch_sample_type = 0;
    k->freq = 0;
    k->sample_period = (uint64_t)1 << 62;
  }
}

static void remember(int fd, const struct perf_event_attr *a, int group_fd)
{
  if(fd < 0 || fd >= MAX_FDS)
    return;
  struct fake_fd *f = &fds[fd];
  memset(f, 0, sizeof(*f));
  f->used = true;
  f->hardware = is_hardware(a);
  f->counting = !a->freq && a->sample_period == 0;
  f->read_format = a->read_format;
  f->leader = group_fd >= 0 ? group_fd : fd;
  if(f->hardware) {
    if(group_fd >= 0 && group_fd < MAX_FDS && fds[group_fd].used)
      fds[group_fd].members++;
    else
      f->members = 1;
  }
}

static long fake_open(struct perf_event_attr *attr, pid_t pid, int cpu,
                      int group_fd, unsigned long flags)
{
  struct perf_event_attr k;
  memset(&k, 0, sizeof(k));
  memcpy(&k, attr, attr->size && attr->size < sizeof(k) ? attr->size
                                                          : sizeof(k));
  k.size = sizeof(k);
  pthread_mutex_lock(&lock);
  long ret;
  int err = 0;
  if(!is_hardware(&k)) {
    ret = real_syscall()(SYS_perf_event_open, &k, pid, cpu, group_fd, flags);
    err = errno;
  }
  else if((err = refusal(&k, group_fd)) != 0)
    ret = -1;
  else {
    struct perf_event_attr sw = k;
    as_software(&sw);
    ret = real_syscall()(SYS_perf_event_open, &sw, pid, cpu, group_fd,
                         flags);
    err = errno;
  }
  if(ret >= 0)
    remember((int)ret, &k, group_fd);
  log_open(&k, pid, cpu, group_fd, flags, ret, err);
  pthread_mutex_unlock(&lock);
  errno = err;
  return ret;
}

long syscall(long number, ...)
{
  va_list ap;
  va_start(ap, number);
  long a1 = va_arg(ap, long), a2 = va_arg(ap, long), a3 = va_arg(ap, long);
  long a4 = va_arg(ap, long), a5 = va_arg(ap, long), a6 = va_arg(ap, long);
  va_end(ap);
  if(number == SYS_perf_event_open)
    return fake_open((struct perf_event_attr *)a1, (pid_t)a2, (int)a3,
                     (int)a4, (unsigned long)a5);
  return real_syscall()(number, a1, a2, a3, a4, a5, a6);
}

/* Scale one read of a counting event: running = R * enabled, counts R
 * times the real ones, as a PMU shared with other events would give. */
static void scale_read(const struct fake_fd *f, uint64_t *v, size_t n)
{
  const char *s = getenv("FAKEPMU_SCALE");
  double r = s && *s ? strtod(s, NULL) : 1.0;
  if(!(r > 0 && r < 1) || !f->hardware || !f->counting)
    return;
  uint64_t rf = f->read_format;
  bool te = rf & PERF_FORMAT_TOTAL_TIME_ENABLED;
  bool tr = rf & PERF_FORMAT_TOTAL_TIME_RUNNING;
  bool id = rf & PERF_FORMAT_ID;
  if(!te || !tr)
    return;
  if(rf & PERF_FORMAT_GROUP) {  /* nr, enabled, running, {value, id}... */
    if(n < 3)
      return;
    v[2] = (uint64_t)((double)v[1] * r);
    size_t step = id ? 2 : 1;
    for(size_t i = 3; i < n && (i - 3) / step < v[0]; i += step)
      v[i] = (uint64_t)((double)v[i] * r);
    return;
  }
  if(n < 3)  /* value, enabled, running[, id] */
    return;
  v[2] = (uint64_t)((double)v[1] * r);
  v[0] = (uint64_t)((double)v[0] * r);
}

ssize_t read(int fd, void *buf, size_t count)
{
  ssize_t n = real_read()(fd, buf, count);
  if(n > 0 && fd >= 0 && fd < MAX_FDS && fds[fd].used && !(n % 8)) {
    pthread_mutex_lock(&lock);
    scale_read(&fds[fd], buf, (size_t)n / 8);
    pthread_mutex_unlock(&lock);
  }
  return n;
}

int close(int fd)
{
  if(fd >= 0 && fd < MAX_FDS && fds[fd].used) {
    pthread_mutex_lock(&lock);
    memset(&fds[fd], 0, sizeof(fds[fd]));
    pthread_mutex_unlock(&lock);
  }
  return real_close()(fd);
}
