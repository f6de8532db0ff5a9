#include "bp_setup.h"
#include "preload.h"

#include "fileio.h"
#include "hash.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* Quiet passes over the maps (nothing new in them) before the thread is
 * done, the first QUIET_FIRST_MS after the last one that found something,
 * each next one twice as long after the one before. */
#define QUIET_PASSES 3
#define QUIET_FIRST_MS 1

/* Modules handed over at most; a program that maps more code files has
 * the rest read after its end. */
#define READY_MAX 512

/* nready once bpi_preload_stop() took the modules: nothing more is
 * handed over, and the thread stops. */
#define CLOSED SIZE_MAX

/* No lock is shared with the thread: SCHED_IDLE may leave it off the CPU
 * for long on a busy machine, and the caller must never wait for it.  The
 * modules go through ready[] and one atomic count, which the caller
 * closes; wake-ups go through an eventfd. */
struct bp_preload {
  _Atomic size_t nready;     /* ready[0, nready) are published; CLOSED */
  _Atomic unsigned refs;     /* the caller's and the thread's */
  _Atomic pid_t pid;         /* the command's after its exec, else 0 */
  _Atomic bool done;         /* the thread read all it will */
  int wake_fd;               /* eventfd: the pid came, or CLOSED */
  pthread_t thread;
  struct bp_sym_module *ready[READY_MAX];
  /* the thread's alone */
  char *argv0, *search_path; /* for bpi_symbols_predict */
  struct bp_strtab seen;     /* module paths read */
};

static void destroy(struct bp_preload *p)
{
  if(p->wake_fd >= 0)
    close(p->wake_fd);
  free(p->argv0);
  free(p->search_path);
  bpi_strtab_cleanup(&p->seen);
  free(p);
}

/* The caller or the thread lets go of p; the last one frees it. */
static void release(struct bp_preload *p)
{
  if(atomic_fetch_sub(&p->refs, 1) == 1)
    destroy(p);
}

static bool stopped(struct bp_preload *p)
{
  return atomic_load_explicit(&p->nready, memory_order_acquire) == CLOSED;
}

static void wake(struct bp_preload *p)
{
  uint64_t one = 1;
  ssize_t n = write(p->wake_fd, &one, sizeof(one));
  (void)n;  /* only fails when the count is full: it is awake then */
}

/* Wait for a wake-up, at most ms (-1: for ever).  false once stopped. */
static bool wait_wake(struct bp_preload *p, int ms)
{
  struct pollfd pfd = {.fd = p->wake_fd, .events = POLLIN};
  if(!stopped(p) && poll(&pfd, 1, ms) > 0) {
    uint64_t count;
    ssize_t n = read(p->wake_fd, &count, sizeof(count));
    (void)n;
  }
  return !stopped(p);
}

/* Hand m to the caller; false (m freed) once it stopped taking them. */
static bool publish(struct bp_preload *p, struct bp_sym_module *m)
{
  size_t i = atomic_load_explicit(&p->nready, memory_order_relaxed);
  if(i != CLOSED && i < READY_MAX) {
    p->ready[i] = m;
    if(atomic_compare_exchange_strong_explicit(&p->nready, &i, i + 1,
                                               memory_order_release,
                                               memory_order_relaxed))
      return true;
  }
  bpi_symbols_module_free(m);
  return false;
}

/* Read path's module for the caller, once.  false when stopped (or out
 * of memory). */
static bool read_one(struct bp_preload *p, const char *path)
{
  if(bpi_strtab_find(&p->seen, path) != BP_NONE)
    return true;
  if(stopped(p) || bpi_strtab_intern(&p->seen, path) == BP_NONE)
    return false;
  struct bp_sym_module *m = bpi_symbols_read_module(path);
  return m && publish(p, m);
}

/* The module path of one line of /proc/PID/maps ("START-END PERMS OFFSET
 * DEV INODE PATH", NUL-terminated), or NULL when the mapping is not
 * executable, not a file's (anonymous, stack, heap) or its file was
 * deleted. */
static const char *code_path(char *line)
{
  char perms[8];
  int at = 0;
  if(sscanf(line, "%*x-%*x %7s %*x %*x:%*x %*u %n", perms, &at) != 1 ||
     !at || strlen(perms) < 3 || perms[2] != 'x')
    return NULL;
  char *path = line + at;
  size_t len = strlen(path);
  static const char deleted[] = " (deleted)";
  if(len >= sizeof(deleted) - 1 &&
     !strcmp(path + len - (sizeof(deleted) - 1), deleted))
    return NULL;
  return path[0] == '/' || !strcmp(path, "[vdso]") ? path : NULL;
}

/* Read the modules of pid's code mappings not read before.  -1 when the
 * maps cannot be read (the process is gone) or the thread was stopped,
 * else how many were new. */
static int pass(struct bp_preload *p, pid_t pid)
{
  char name[64], *maps = NULL;
  size_t len = 0;
  snprintf(name, sizeof(name), "/proc/%ld/maps", (long)pid);
  if(bpi_file_read_max(name, (size_t)64 << 20, &maps, &len, NULL))
    return -1;
  int n = 0;
  for(char *line = maps; n >= 0 && line < maps + len; ) {
    char *end = memchr(line, '\n', (size_t)(maps + len - line));
    if(end)
      *end = '\0';
    const char *path = code_path(line);
    if(path && bpi_strtab_find(&p->seen, path) == BP_NONE)
      n = read_one(p, path) ? n + 1 : -1;
    line = end ? end + 1 : maps + len;
  }
  free(maps);
  return n;
}

/* The modules told before the command runs.  false when stopped. */
static bool read_predicted(struct bp_preload *p)
{
  if(!p->argv0)
    return true;
  char **paths = bpi_symbols_predict(p->argv0, p->search_path);
  bool ok = true;
  for(size_t i = 0; ok && paths && paths[i]; i++)
    ok = read_one(p, paths[i]);
  bpi_symbols_predict_free(paths);
  return ok;
}

static void read_until_settled(struct bp_preload *p)
{
  if(!read_predicted(p))
    return;
  pid_t pid;
  while(!(pid = atomic_load(&p->pid)))
    if(!wait_wake(p, -1))
      return;
  unsigned quiet = 0;
  int wait_ms = QUIET_FIRST_MS;
  for(;;) {
    int n = pass(p, pid);
    if(n < 0)
      return;
    if(n > 0) {
      quiet = 0;
      wait_ms = QUIET_FIRST_MS;
      continue;
    }
    if(++quiet > QUIET_PASSES || !wait_wake(p, wait_ms))
      return;
    wait_ms *= 2;
  }
}

static void *preload_main(void *arg)
{
  struct bp_preload *p = arg;
  struct sched_param idle = {.sched_priority = 0};
  if(!pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle))
    read_until_settled(p);
  /* parked until stopped: a thread's CPU time leaves /proc/PID/task with
   * it, and whoever reads benchprof's there (make bench splits its CPU
   * at the command's main and end) would not see what this one took */
  atomic_store(&p->done, true);
  while(wait_wake(p, -1))
    ;
  release(p);
  return NULL;
}

bp_code bpi_preload_start(struct bp_preload **out, const char *argv0,
                          const char *search_path)
{
  *out = NULL;
  struct bp_preload *p = calloc(1, sizeof(*p));
  if(!p)
    return BPE_NOMEM;
  bpi_strtab_init(&p->seen);
  p->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  p->argv0 = argv0 ? strdup(argv0) : NULL;
  p->search_path = search_path ? strdup(search_path) : NULL;
  if(p->wake_fd < 0 || (argv0 && !p->argv0) ||
     (search_path && !p->search_path)) {
    bp_code rc = p->wake_fd < 0 ? BPE_SYS : BPE_NOMEM;
    destroy(p);
    return rc;
  }
  atomic_init(&p->nready, 0);
  atomic_init(&p->refs, 2);
  atomic_init(&p->pid, 0);
  atomic_init(&p->done, false);
  if(pthread_create(&p->thread, NULL, preload_main, p)) {
    destroy(p);
    return BPE_SYS;
  }
  pthread_detach(p->thread);
  *out = p;
  return BP_OK;
}

void bpi_preload_follow(struct bp_preload *p, pid_t pid)
{
  if(!p)
    return;
  atomic_store(&p->pid, pid);
  wake(p);
}

bool bpi_preload_done(struct bp_preload *p)
{
  return atomic_load(&p->done);
}

unsigned bpi_preload_stop(struct bp_preload *p, struct bp_symbols *s)
{
  if(!p)
    return 0;
  /* A module it is still reading, it drops when done: at our priority
   * that is soon, where the kernel lets us raise it (root; not others,
   * for whom leaving SCHED_IDLE takes RLIMIT_NICE).  Before the count is
   * closed: the thread is alive until it sees that. */
  struct sched_param normal = {.sched_priority = 0};
  pthread_setschedparam(p->thread, SCHED_OTHER, &normal);
  size_t n = atomic_exchange_explicit(&p->nready, CLOSED,
                                      memory_order_acq_rel);
  wake(p);
  unsigned taken = 0;
  for(size_t i = 0; i < n; i++)
    taken += bpi_symbols_adopt(s, p->ready[i]);
  release(p);
  return taken;
}
