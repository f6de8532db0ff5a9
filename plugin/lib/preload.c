#include "bp_setup.h"
#include "preload.h"

#include "hash.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Quiet passes over the maps (nothing new in them) before the thread ends,
 * the first QUIET_FIRST_MS after the last one that found something, each
 * next one twice as long after the one before. */
#define QUIET_PASSES 3
#define QUIET_FIRST_MS 1

struct bp_preload {
  pthread_mutex_t lock;  /* guards all below but predicted and seen */
  pthread_cond_t wake;   /* stop was set, or pid */
  bool stop;
  bool done;             /* the thread read all it will */
  unsigned refs;         /* the caller's and the thread's */
  struct bp_sym_module **ready;  /* read, not yet handed over */
  size_t nready, ready_cap;
  pid_t pid;             /* the command's, after its exec; 0 before */
  char **predicted;      /* the thread's: read first */
  struct bp_strtab seen; /* the thread's: module paths read */
};

static void destroy(struct bp_preload *p)
{
  for(size_t i = 0; i < p->nready; i++)
    bpi_symbols_module_free(p->ready[i]);
  free(p->ready);
  bpi_symbols_predict_free(p->predicted);
  bpi_strtab_cleanup(&p->seen);
  pthread_cond_destroy(&p->wake);
  pthread_mutex_destroy(&p->lock);
  free(p);
}

/* The caller or the thread lets go of p; the last one frees it. */
static void release(struct bp_preload *p)
{
  pthread_mutex_lock(&p->lock);
  bool last = --p->refs == 0;
  pthread_mutex_unlock(&p->lock);
  if(last)
    destroy(p);
}

static bool stopping(struct bp_preload *p)
{
  pthread_mutex_lock(&p->lock);
  bool stop = p->stop;
  pthread_mutex_unlock(&p->lock);
  return stop;
}

/* Wait ms, or less when stopped.  false when stopped. */
static bool nap(struct bp_preload *p, unsigned ms)
{
  struct timespec until;
  clock_gettime(CLOCK_MONOTONIC, &until);
  until.tv_nsec += (long)ms * 1000000L;
  until.tv_sec += until.tv_nsec / 1000000000L;
  until.tv_nsec %= 1000000000L;
  pthread_mutex_lock(&p->lock);
  while(!p->stop &&
        pthread_cond_timedwait(&p->wake, &p->lock, &until) != ETIMEDOUT)
    ;
  bool stop = p->stop;
  pthread_mutex_unlock(&p->lock);
  return !stop;
}

/* Keep m for the caller; false (m freed) when it has stopped. */
static bool keep(struct bp_preload *p, struct bp_sym_module *m)
{
  pthread_mutex_lock(&p->lock);
  bool kept = false;
  if(!p->stop && p->nready < p->ready_cap) {
    p->ready[p->nready++] = m;
    kept = true;
  }
  else if(!p->stop) {
    size_t cap = p->ready_cap ? 2 * p->ready_cap : 16;
    struct bp_sym_module **r = realloc(p->ready, cap * sizeof(*r));
    if(r) {
      p->ready = r;
      p->ready_cap = cap;
      p->ready[p->nready++] = m;
      kept = true;
    }
  }
  pthread_mutex_unlock(&p->lock);
  if(!kept)
    bpi_symbols_module_free(m);
  return kept;
}

/* The module path of one line of /proc/PID/maps ("START-END PERMS OFFSET
 * DEV INODE PATH"), or NULL when the mapping is not executable, not a
 * file's (anonymous, stack, heap) or its file was deleted.  The line's
 * newline is cut. */
static const char *code_path(char *line)
{
  char perms[8];
  int at = 0;
  if(sscanf(line, "%*x-%*x %7s %*x %*x:%*x %*u %n", perms, &at) != 1 ||
     !at || strlen(perms) < 3 || perms[2] != 'x')
    return NULL;
  char *path = line + at;
  path[strcspn(path, "\n")] = '\0';
  size_t len = strlen(path);
  static const char deleted[] = " (deleted)";
  if(len >= sizeof(deleted) - 1 &&
     !strcmp(path + len - (sizeof(deleted) - 1), deleted))
    return NULL;
  return path[0] == '/' || !strcmp(path, "[vdso]") ? path : NULL;
}

/* The paths of the code mappings of the maps that were not seen before,
 * one after another in fresh (each with its '\0').  -1 when the maps
 * cannot be read (the process is gone), else how many. */
static int new_paths(struct bp_preload *p, pid_t pid, char **fresh,
                     size_t *len)
{
  char name[64];
  snprintf(name, sizeof(name), "/proc/%ld/maps", (long)pid);
  FILE *f = fopen(name, "re");
  if(!f)
    return -1;
  FILE *out = open_memstream(fresh, len);
  if(!out) {
    fclose(f);
    return -1;
  }
  char *line = NULL;
  size_t cap = 0;
  int n = 0;
  while(getline(&line, &cap, f) > 0) {
    const char *path = code_path(line);
    if(!path || bpi_strtab_find(&p->seen, path) != BP_NONE)
      continue;
    if(bpi_strtab_intern(&p->seen, path) == BP_NONE)
      break;
    fputs(path, out);
    fputc('\0', out);
    n++;
  }
  free(line);
  fclose(f);
  return fclose(out) ? -1 : n;
}

/* Read path's module for the caller.  false when stopped (or out of
 * memory). */
static bool read_one(struct bp_preload *p, const char *path)
{
  struct bp_sym_module *m = stopping(p) ? NULL :
                            bpi_symbols_read_module(path);
  return m && keep(p, m);
}

/* Read the modules of pid's code mappings not read before.  -1 when the
 * maps cannot be read or the thread was stopped, else how many were new. */
static int pass(struct bp_preload *p, pid_t pid)
{
  char *fresh = NULL;
  size_t len = 0;
  int n = new_paths(p, pid, &fresh, &len);
  const char *path = fresh;
  for(int i = 0; i < n; i++, path += strlen(path) + 1)
    if(!read_one(p, path)) {
      n = -1;
      break;
    }
  free(fresh);
  return n;
}

/* The predicted modules, before the command starts.  false when
 * stopped. */
static bool read_predicted(struct bp_preload *p)
{
  for(size_t i = 0; p->predicted && p->predicted[i]; i++) {
    const char *path = p->predicted[i];
    if(bpi_strtab_find(&p->seen, path) != BP_NONE)
      continue;
    if(bpi_strtab_intern(&p->seen, path) == BP_NONE ||
       !read_one(p, path))
      return false;
  }
  return true;
}

/* The command's pid once it has exec'd (0 when stopped first). */
static pid_t wait_for_exec(struct bp_preload *p)
{
  pthread_mutex_lock(&p->lock);
  while(!p->stop && !p->pid)
    pthread_cond_wait(&p->wake, &p->lock);
  pid_t pid = p->stop ? 0 : p->pid;
  pthread_mutex_unlock(&p->lock);
  return pid;
}

static void read_until_settled(struct bp_preload *p)
{
  unsigned quiet = 0, wait_ms = QUIET_FIRST_MS;
  if(!read_predicted(p))
    return;
  pid_t pid = wait_for_exec(p);
  if(!pid)
    return;
  for(;;) {
    int n = pass(p, pid);
    if(n < 0)
      return;
    if(n > 0) {
      quiet = 0;
      wait_ms = QUIET_FIRST_MS;
      continue;
    }
    if(++quiet > QUIET_PASSES || !nap(p, wait_ms))
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
  pthread_mutex_lock(&p->lock);
  p->done = true;
  pthread_mutex_unlock(&p->lock);
  release(p);
  return NULL;
}

bp_code bpi_preload_start(struct bp_preload **out, char **predicted)
{
  *out = NULL;
  struct bp_preload *p = calloc(1, sizeof(*p));
  if(!p) {
    bpi_symbols_predict_free(predicted);
    return BPE_NOMEM;
  }
  p->predicted = predicted;
  pthread_condattr_t ca;
  if(pthread_condattr_init(&ca)) {
    bpi_symbols_predict_free(predicted);
    free(p);
    return BPE_SYS;
  }
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  int e = pthread_cond_init(&p->wake, &ca);
  pthread_condattr_destroy(&ca);
  if(e) {
    bpi_symbols_predict_free(predicted);
    free(p);
    return BPE_SYS;
  }
  pthread_mutex_init(&p->lock, NULL);
  bpi_strtab_init(&p->seen);
  p->refs = 2;
  pthread_t t;
  if(pthread_create(&t, NULL, preload_main, p)) {
    destroy(p);
    return BPE_SYS;
  }
  pthread_detach(t);
  *out = p;
  return BP_OK;
}

void bpi_preload_follow(struct bp_preload *p, pid_t pid)
{
  if(!p)
    return;
  pthread_mutex_lock(&p->lock);
  p->pid = pid;
  pthread_cond_signal(&p->wake);
  pthread_mutex_unlock(&p->lock);
}

bool bpi_preload_done(struct bp_preload *p)
{
  pthread_mutex_lock(&p->lock);
  bool done = p->done;
  pthread_mutex_unlock(&p->lock);
  return done;
}

unsigned bpi_preload_stop(struct bp_preload *p, struct bp_symbols *s)
{
  if(!p)
    return 0;
  pthread_mutex_lock(&p->lock);
  p->stop = true;
  pthread_cond_signal(&p->wake);
  struct bp_sym_module **ready = p->ready;
  size_t n = p->nready;
  p->ready = NULL;
  p->nready = p->ready_cap = 0;
  pthread_mutex_unlock(&p->lock);
  unsigned taken = 0;
  for(size_t i = 0; i < n; i++)
    taken += bpi_symbols_adopt(s, ready[i]);
  free(ready);
  release(p);
  return taken;
}
