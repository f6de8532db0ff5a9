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
 * Exact counters: write "begin!" and "end!" instead of "begin" and "end",
 * then wait for one byte on the FIFO named BENCHPROF_CONTROL plus ".ack"
 * (open it once, for reading, nonblocking, and poll it).  benchprof
 * writes that byte after it has read the counters for the line, so they
 * are read while the benchmark is stopped at its begin and end rather
 * than whenever benchprof gets to the line.  These hooks do that, and
 * give up waiting after BENCHPROF_HOOKS_ACK_MS (a benchprof that died
 * never hangs the harness).  A line without '!' gets no ack.
 *
 * Works in C and C++ on Linux.  Under a strict -std=c11 (no POSIX
 * declarations) the times are left to benchprof ("-"), which stamps each
 * line when it reads it.  Each translation unit that includes this opens
 * the FIFO once. */
#ifndef BENCHPROF_HOOKS_H
#define BENCHPROF_HOOKS_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef O_CLOEXEC
#define BENCHPROF_HOOKS_CLOEXEC_ O_CLOEXEC
#else
#define BENCHPROF_HOOKS_CLOEXEC_ 0
#endif

/* Lines stay under PIPE_BUF: longer names are cut (at an escape's end). */
#define BENCHPROF_HOOKS_NAME_MAX 3000

/* How long to wait for benchprof's ack of a begin or an end. */
#ifndef BENCHPROF_HOOKS_ACK_MS
#define BENCHPROF_HOOKS_ACK_MS 5000
#endif

/* Store a freshly opened fd in *slot (-2: not opened yet) and return the
 * one that counts.  Threads may race to the first call: one open wins, the
 * others close theirs (compare-and-swap), so no fd leaks. */
static inline int benchprof_hooks_publish_(int *slot, int mine)
{
  int expected = -2;
  if(__atomic_compare_exchange_n(slot, &expected, mine, 0, __ATOMIC_ACQ_REL,
                                 __ATOMIC_ACQUIRE))
    return mine;
  if(mine >= 0)
    close(mine);
  return expected;
}

/* The FIFO's fd, opened on first use; -1 when not under benchprof. */
static inline int benchprof_hooks_fd_(void)
{
  static int fd = -2;
  int cur = __atomic_load_n(&fd, __ATOMIC_ACQUIRE);
  if(cur != -2)
    return cur;
  const char *path = getenv("BENCHPROF_CONTROL");
  int mine = -1;
  /* O_NONBLOCK: fail (ENXIO) rather than hang when nobody reads */
  if(path && *path)
    mine = open(path, O_WRONLY | O_NONBLOCK | BENCHPROF_HOOKS_CLOEXEC_);
  /* then block: a full FIFO waits for benchprof instead of losing lines */
  if(mine >= 0)
    (void)fcntl(mine, F_SETFL, fcntl(mine, F_GETFL) & ~O_NONBLOCK);
  return benchprof_hooks_publish_(&fd, mine);
}

/* The ack FIFO's fd (BENCHPROF_CONTROL ".ack", read end, nonblocking),
 * opened on first use like the FIFO; -1 when there is none (an older
 * benchprof): lines are then written without '!'. */
static inline int benchprof_hooks_ack_fd_(void)
{
  static int fd = -2;
  int cur = __atomic_load_n(&fd, __ATOMIC_ACQUIRE);
  if(cur != -2)
    return cur;
  const char *path = getenv("BENCHPROF_CONTROL");
  char ack[4096];
  int mine = -1;
  if(path && *path &&
     (size_t)snprintf(ack, sizeof(ack), "%s.ack", path) < sizeof(ack))
    mine = open(ack, O_RDONLY | O_NONBLOCK | BENCHPROF_HOOKS_CLOEXEC_);
  return benchprof_hooks_publish_(&fd, mine);
}

/* Wait for one ack byte.  Several threads may wait at once: each takes
 * one byte, whichever; the others keep waiting. */
static inline void benchprof_hooks_wait_ack_(int fd)
{
  struct pollfd p;
  p.fd = fd;
  p.events = POLLIN;
  for(;;) {
    p.revents = 0;
    int r = poll(&p, 1, BENCHPROF_HOOKS_ACK_MS);
    if(r < 0 && errno == EINTR)
      continue;
    if(r <= 0)
      return;  /* timed out: benchprof is gone or stuck */
    char byte;
    ssize_t n = read(fd, &byte, 1);
    if(n == 1)
      return;
    if(n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
      return;  /* EOF or an error: no ack is coming */
  }
}

/* "T" of a line: CLOCK_MONOTONIC in ns, or "-" where it is not declared */
static inline void benchprof_hooks_now_(char *out, size_t len)
{
#ifdef CLOCK_MONOTONIC
  struct timespec ts;
  if(clock_gettime(CLOCK_MONOTONIC, &ts) == 0) {
    snprintf(out, len, "%llu",
             (unsigned long long)ts.tv_sec * 1000000000ULL +
             (unsigned long long)ts.tv_nsec);
    return;
  }
#endif
  snprintf(out, len, "-");
}

static inline void benchprof_hooks_write_(int fd, const char *line,
                                          size_t len)
{
  ssize_t n;
  do
    n = write(fd, line, len);
  while(n < 0 && errno == EINTR);
}

/* Send "VERB[!] T[ NAME]\n" (NAME percent-encoded) and, when benchprof
 * offers acks, wait until it has read its counters. */
static inline void benchprof_hooks_send_(const char *verb, const char *name)
{
  static const char hex[] = "0123456789ABCDEF";
  char line[4000];
  int fd = benchprof_hooks_fd_();
  if(fd < 0)
    return;
  int ack = benchprof_hooks_ack_fd_();
  char now[24];
  benchprof_hooks_now_(now, sizeof(now));
  int at = snprintf(line, sizeof(line), "%s%s %s", verb, ack >= 0 ? "!" : "",
                    now);
  size_t len = at > 0 ? (size_t)at : 0;
  if(name) {
    line[len++] = ' ';
    for(const unsigned char *p = (const unsigned char *)name;
        *p && len < BENCHPROF_HOOKS_NAME_MAX; p++) {
      if(*p < 0x21 || *p == 0x7f || *p == '%') {
        line[len++] = '%';
        line[len++] = hex[*p >> 4];
        line[len++] = hex[*p & 15];
      }
      else
        line[len++] = (char)*p;
    }
    if(!*name)
      line[len++] = '?';  /* an empty name would make the line invalid */
  }
  line[len++] = '\n';
  benchprof_hooks_write_(fd, line, len);
  if(ack >= 0)
    benchprof_hooks_wait_ack_(ack);
}

/* A benchmark called name starts now (ends the one that is running). */
static inline void benchprof_begin(const char *name)
{
  benchprof_hooks_send_("begin", name ? name : "");
}

/* The running benchmark ends now. */
static inline void benchprof_end(void)
{
  benchprof_hooks_send_("end", NULL);
}

#endif
