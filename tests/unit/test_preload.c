/* Unit test of plugin/lib/preload.c and bpi_symbols_predict() on real
 * processes: the modules predicted for sleep are those it maps; the
 * modules of a running sleep read on the preload thread and handed to a
 * symbolizer, which then uses them instead of reading them again; the
 * predicted ones read before the exec; a preload stopped at once; one
 * whose process is gone. */
#include "bp_setup.h"
#include "preload.h"
#include "symbols.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static const char *path_env;

/* sleep 60, returned once it has exec'd (a close-on-exec pipe closes);
 * -1 when it could not start. */
static pid_t spawn_sleeper(void)
{
  int fds[2];
  if(pipe2(fds, O_CLOEXEC))
    return -1;
  pid_t pid = fork();
  if(pid < 0)
    return -1;
  if(!pid) {
    close(fds[0]);
    execlp("sleep", "sleep", "60", (char *)NULL);
    int e = errno;
    if(write(fds[1], &e, sizeof(e)) < 0)
      _exit(126);
    _exit(127);
  }
  close(fds[1]);
  int e;
  ssize_t n;
  do
    n = read(fds[0], &e, sizeof(e));
  while(n < 0 && errno == EINTR);
  close(fds[0]);
  if(n != 0) {
    waitpid(pid, NULL, 0);
    return -1;
  }
  return pid;
}

static void end_child(pid_t pid)
{
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
}

/* The thread runs at SCHED_IDLE: on a busy machine it may wait long for
 * a CPU, so wait for it to end rather than for a set time. */
static bool wait_done(struct bp_preload *p)
{
  struct timespec tick = {0, 10 * 1000 * 1000};
  for(int i = 0; i < 12000; i++) {
    if(bpi_preload_done(p))
      return true;
    nanosleep(&tick, NULL);
  }
  return false;
}

/* The code mappings of pid's maps, as preload.c picks them: executable,
 * a file's or the vDSO.  Their distinct paths are counted; the one
 * ending in want (and its file offset) is copied out. */
static size_t code_paths(pid_t pid, const char *want, char *found,
                         size_t cap, unsigned long *pgoff)
{
  char name[64], line[PATH_MAX + 128], seen[64][PATH_MAX];
  size_t n = 0;
  snprintf(name, sizeof(name), "/proc/%ld/maps", (long)pid);
  FILE *f = fopen(name, "r");
  if(!f)
    return 0;
  found[0] = '\0';
  while(fgets(line, sizeof(line), f)) {
    char perms[8];
    unsigned long off;
    int at = 0;
    if(sscanf(line, "%*x-%*x %7s %lx %*x:%*x %*u %n", perms, &off, &at) != 2
       || !at || perms[2] != 'x')
      continue;
    char *path = line + at;
    path[strcspn(path, "\n")] = '\0';
    if(path[0] != '/' && strcmp(path, "[vdso]"))
      continue;
    bool dup = false;
    for(size_t i = 0; i < n; i++)
      dup |= !strcmp(seen[i], path);
    if(!dup && n < 64)
      snprintf(seen[n++], PATH_MAX, "%s", path);
    if(strstr(path, want) && strlen(path) < cap) {
      snprintf(found, cap, "%s", path);
      *pgoff = off;
    }
  }
  fclose(f);
  return n;
}

/* Wait (a loaded machine may take long) until pid's loader mapped libc:
 * its path and file offset.  false when it never does. */
static bool wait_libc(pid_t pid, char *libc, size_t cap, unsigned long *pgoff)
{
  struct timespec tick = {0, 10 * 1000 * 1000};
  for(int i = 0; i < 6000; i++) {
    code_paths(pid, "/libc.so", libc, cap, pgoff);
    if(libc[0])
      return true;
    nanosleep(&tick, NULL);
  }
  return false;
}

/* Everything the thread read goes to the symbolizer, which uses it:
 * libc's module is adopted, not read again, and counted as read once a
 * lookup uses it. */
static void test_reads_modules(void)
{
  pid_t pid = spawn_sleeper();
  CHECK(pid > 0);
  if(pid <= 0)
    return;
  struct bp_symbols *s = NULL;
  struct bp_preload *p = NULL;
  /* all mapped before the first pass: what that pass reads is known */
  char libc[PATH_MAX];
  unsigned long pgoff = 0;
  CHECK(wait_libc(pid, libc, sizeof(libc), &pgoff));
  CHECK_EQ_INT(bpi_symbols_new(&s, NULL), BP_OK);
  CHECK_EQ_INT(bpi_preload_start(&p, NULL, NULL), BP_OK);
  bpi_preload_follow(p, pid);
  if(s && p) {
    CHECK(wait_done(p));
    size_t want = code_paths(pid, "/libc.so", libc, sizeof(libc), &pgoff);
    CHECK(want >= 3);  /* sleep, ld.so, libc (and the vDSO) */
    CHECK(libc[0] != '\0');
    unsigned taken = bpi_preload_stop(p, s);
    CHECK_EQ_INT(taken, want);
    CHECK_EQ_INT(bpi_symbols_modules(s), want);
    struct bp_symbols_tables t;
    bpi_symbols_tables(s, &t);
    CHECK_EQ_INT(t.read, 0);

    int64_t delta = 0;
    CHECK_EQ_INT(bpi_symbols_vaddr_delta(s, libc, pgoff, &delta), BP_OK);
    char hex[2 * 64 + 1];
    CHECK_EQ_INT(bpi_symbols_build_id(s, libc, hex, sizeof(hex)), BP_OK);
    CHECK(strlen(hex) >= 32);
    CHECK_EQ_INT(bpi_symbols_modules(s), want);  /* nothing read again */
    bpi_symbols_tables(s, &t);
    CHECK_EQ_INT(t.read, 1);
  }
  else
    bpi_preload_stop(p, s);
  end_child(pid);
  bpi_symbols_free(s);
}

/* Stopped right after it started: whatever it read by then is handed
 * over and usable; the module it was reading is the thread's to drop
 * (LSan, in the sanitizer build, finds it freed once the thread ends:
 * the process is gone then, so it ends at its next pass). */
static void test_stop_at_once(void)
{
  pid_t pid = spawn_sleeper();
  CHECK(pid > 0);
  if(pid <= 0)
    return;
  struct bp_symbols *s = NULL;
  struct bp_preload *p = NULL;
  CHECK_EQ_INT(bpi_symbols_new(&s, NULL), BP_OK);
  CHECK_EQ_INT(bpi_preload_start(&p, "sleep", path_env), BP_OK);
  bpi_preload_follow(p, pid);
  unsigned taken = bpi_preload_stop(p, s);
  /* the program itself is mapped from the exec on; the libraries may
   * not be yet */
  char exe[PATH_MAX];
  unsigned long pgoff = 0;
  size_t all = code_paths(pid, "/sleep", exe, sizeof(exe), &pgoff);
  CHECK(taken <= all);
  CHECK_EQ_INT(bpi_symbols_modules(s), taken);
  int64_t delta = 0;
  CHECK(exe[0] != '\0');
  CHECK_EQ_INT(bpi_symbols_vaddr_delta(s, exe, pgoff, &delta), BP_OK);
  end_child(pid);
  bpi_symbols_free(s);
  /* room for the thread to end before the leak check at exit */
  struct timespec wait = {0, 300 * 1000 * 1000};
  nanosleep(&wait, NULL);
}

/* A process that is gone: no maps, nothing read, and the thread ends. */
static void test_process_gone(void)
{
  pid_t pid = spawn_sleeper();
  CHECK(pid > 0);
  if(pid <= 0)
    return;
  end_child(pid);
  struct bp_symbols *s = NULL;
  struct bp_preload *p = NULL;
  CHECK_EQ_INT(bpi_symbols_new(&s, NULL), BP_OK);
  CHECK_EQ_INT(bpi_preload_start(&p, NULL, NULL), BP_OK);
  bpi_preload_follow(p, pid);
  CHECK(p && wait_done(p));
  CHECK_EQ_INT(bpi_preload_stop(p, s), 0);
  CHECK_EQ_INT(bpi_symbols_modules(s), 0);
  bpi_symbols_free(s);
}

static size_t count(char **paths)
{
  size_t n = 0;
  while(paths && paths[n])
    n++;
  return n;
}

static bool has_path(char **paths, const char *want)
{
  for(size_t i = 0; paths && paths[i]; i++)
    if(!strcmp(paths[i], want))
      return true;
  return false;
}

/* sleep's predicted modules: each one it maps (once the loader is done),
 * named as its maps name them; a missing program and a script: only the
 * vDSO, and the script itself. */
static void test_predict(void)
{
  char **paths = bpi_symbols_predict("sleep", path_env);
  CHECK(count(paths) >= 4);  /* sleep, ld.so, libc, the vDSO */
  CHECK(has_path(paths, "[vdso]"));
  pid_t pid = spawn_sleeper();
  CHECK(pid > 0);
  char libc[PATH_MAX];
  unsigned long pgoff;
  CHECK(pid > 0 && wait_libc(pid, libc, sizeof(libc), &pgoff));
  CHECK(pid > 0 && has_path(paths, libc));
  for(size_t i = 0; pid > 0 && paths && paths[i]; i++) {
    char found[PATH_MAX];
    code_paths(pid, paths[i], found, sizeof(found), &pgoff);
    if(strcmp(found, paths[i]))
      fprintf(stderr, "predicted %s, not in sleep's maps\n", paths[i]);
    CHECK_EQ_STR(found, paths[i]);
  }
  if(pid > 0)
    end_child(pid);
  bpi_symbols_predict_free(paths);

  paths = bpi_symbols_predict("/nonexistent/program", path_env);
  CHECK_EQ_INT(count(paths), 1);
  CHECK(has_path(paths, "[vdso]"));
  bpi_symbols_predict_free(paths);

  char script[] = "/tmp/bp-preload-script-XXXXXX";
  int fd = mkstemp(script);
  CHECK(fd >= 0);
  if(fd < 0)
    return;
  CHECK(write(fd, "#!/bin/sh\n", 10) == 10);
  close(fd);
  char real[PATH_MAX];
  CHECK(realpath(script, real) != NULL);
  /* the kernel maps its interpreter, not the script */
  paths = bpi_symbols_predict(script, path_env);
  CHECK_EQ_INT(count(paths), 1);
  CHECK(!has_path(paths, real));
  CHECK(has_path(paths, "[vdso]"));
  bpi_symbols_predict_free(paths);
  unlink(script);
}

/* The predicted modules are read before the command's exec: with a pid
 * that is gone, they are all the thread reads. */
static void test_predicted_first(void)
{
  pid_t pid = spawn_sleeper();
  CHECK(pid > 0);
  if(pid <= 0)
    return;
  end_child(pid);
  char **paths = bpi_symbols_predict("sleep", path_env);
  size_t n = count(paths);
  CHECK(n >= 4);
  struct bp_symbols *s = NULL;
  struct bp_preload *p = NULL;
  CHECK_EQ_INT(bpi_symbols_new(&s, NULL), BP_OK);
  CHECK_EQ_INT(bpi_preload_start(&p, "sleep", path_env), BP_OK);
  bpi_preload_follow(p, pid);
  CHECK(p && wait_done(p));
  CHECK_EQ_INT(bpi_preload_stop(p, s), n);
  CHECK_EQ_INT(bpi_symbols_modules(s), n);
  for(size_t i = 0; paths && paths[i]; i++) {
    int64_t delta;
    /* each one adopted: looked up, nothing read again */
    if(strcmp(paths[i], "[vdso]"))
      CHECK_EQ_INT(bpi_symbols_vaddr_delta(s, paths[i], 0, &delta), BP_OK);
  }
  CHECK_EQ_INT(bpi_symbols_modules(s), n);
  bpi_symbols_predict_free(paths);
  bpi_symbols_free(s);
}

int main(void)
{
  path_env = getenv("PATH");
  test_predict();
  test_predicted_first();
  test_reads_modules();
  test_stop_at_once();
  test_process_gone();
  return check_exit();
}
