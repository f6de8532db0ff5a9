/* benchprof/hooks.h: mark benchmarks for benchprof, header only.
 *
 *   benchprof_begin("sort/1000");  ... the benchmark ...  benchprof_end();
 *
 * Under `benchprof record` or `benchprof run`, the samples taken between
 * begin and end make that benchmark's own profile (DIR/<name>/), the
 * counters are read at both ends, and the whole-run Firefox profile gets
 * a marker.  Not under benchprof (BENCHPROF_CONTROL unset) both calls
 * return at once, after one getenv on the first call.
 *
 * The protocol, for any language: BENCHPROF_CONTROL names a FIFO; open it
 * for writing once and write one line per event, each in a single write()
 * of fewer than PIPE_BUF (4096) bytes so lines from several threads never
 * mix:
 *   begin <T> <NAME>\n
 *   end <T>\n
 * T is CLOCK_MONOTONIC in nanoseconds (decimal), or "-" for "when
 * benchprof reads the line" (a shell: echo "begin - name" >"$BENCHPROF_CONTROL").
 * NAME is the benchmark's name, any bytes, with every byte below 0x21,
 * 0x7f and '%' written as %XX (hex); %00 is not allowed.  A begin while a
 * benchmark is open ends that one; an end with none open is ignored; lines
 * that do not parse are counted and ignored.
 *
 * Needs POSIX.1-2008 (clock_gettime, O_CLOEXEC): compile with
 * -D_POSIX_C_SOURCE=200809L or -std=gnu11 when using -std=c11.
 * Each translation unit that includes this opens the FIFO once. */
#ifndef BENCHPROF_HOOKS_H
#define BENCHPROF_HOOKS_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Lines stay under PIPE_BUF: longer names are cut (at an escape's end). */
#define BENCHPROF_HOOKS_NAME_MAX 3000

/* The FIFO's fd, opened on first use; -1 when not under benchprof. */
static inline int benchprof_hooks_fd_(void)
{
  static int fd = -2;
  if(fd == -2) {
    const char *path = getenv("BENCHPROF_CONTROL");
    fd = -1;
    /* O_NONBLOCK: fail (ENXIO) rather than hang when nobody reads */
    if(path && *path)
      fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    /* then block: a full FIFO waits for benchprof instead of losing lines */
    if(fd >= 0)
      (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  }
  return fd;
}

static inline unsigned long long benchprof_hooks_now_(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (unsigned long long)ts.tv_sec * 1000000000ULL +
         (unsigned long long)ts.tv_nsec;
}

static inline void benchprof_hooks_write_(int fd, const char *line,
                                          size_t len)
{
  ssize_t n;
  do
    n = write(fd, line, len);
  while(n < 0 && errno == EINTR);
}

static inline void benchprof_begin(const char *name)
{
  static const char hex[] = "0123456789ABCDEF";
  char line[4000];
  int fd = benchprof_hooks_fd_();
  if(fd < 0)
    return;
  int at = snprintf(line, sizeof(line), "begin %llu ", benchprof_hooks_now_());
  size_t len = at > 0 ? (size_t)at : 0;
  for(const unsigned char *p = (const unsigned char *)(name ? name : "");
      *p && len < BENCHPROF_HOOKS_NAME_MAX; p++) {
    if(*p < 0x21 || *p == 0x7f || *p == '%') {
      line[len++] = '%';
      line[len++] = hex[*p >> 4];
      line[len++] = hex[*p & 15];
    }
    else
      line[len++] = (char)*p;
  }
  if(!name || !*name)
    line[len++] = '?';  /* an empty name would make the line invalid */
  line[len++] = '\n';
  benchprof_hooks_write_(fd, line, len);
}

static inline void benchprof_end(void)
{
  char line[40];
  int fd = benchprof_hooks_fd_();
  if(fd < 0)
    return;
  int at = snprintf(line, sizeof(line), "end %llu\n", benchprof_hooks_now_());
  if(at > 0)
    benchprof_hooks_write_(fd, line, (size_t)at);
}

#endif
