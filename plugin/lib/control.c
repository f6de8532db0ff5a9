#include "bp_setup.h"
#include "control.h"
#include "err.h"
#include "hash.h"
#include "text.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct bp_control {
  char dir[PATH_MAX];
  char env[PATH_MAX + 32];   /* BENCHPROF_CONTROL=<dir>/control */
  const char *path;          /* inside env */
  char ack_path[PATH_MAX];   /* <path>.ack */
  int rd, wr;
  int ack;                   /* both ends of the ack FIFO, nonblocking */
  bp_code rc;                /* the first failure: lines are then dropped */
  char line[BP_CONTROL_LINE_MAX];
  size_t len;
  bool overlong;             /* dropping the rest of a too long line */
  struct bp_counters *cs;
  struct bp_counter_snap *open_snap, *snap;
  bool open;                 /* a segment is open: the last one */
  struct bp_segment *segs;
  size_t nsegs, cap;
  /* each name once; first[id]: its first segment, which holds the
   * counters summed over every run of the name */
  struct bp_strtab names;
  size_t *first;
  size_t first_cap;
  struct bp_control_stats stats;
};

/* Close and remove what make_fifos_in() made (as far as it got). */
static void remove_fifos(struct bp_control *c)
{
  int *fds[] = {&c->rd, &c->wr, &c->ack};
  for(size_t i = 0; i < BP_ARRAY_LEN(fds); i++) {
    if(*fds[i] >= 0)
      close(*fds[i]);
    *fds[i] = -1;
  }
  if(c->dir[0]) {
    unlink(c->path);
    unlink(c->ack_path);
    rmdir(c->dir);
  }
  c->dir[0] = '\0';
}

/* The private directory (0700: only our user can write markers) made in
 * parent, the FIFO and its ack FIFO in it, opened.  The ack FIFO is
 * opened read-write so that our acks never fail for want of a reader,
 * and a harness can open it without blocking.  false with errno, nothing
 * left behind, when one of them fails. */
static bool make_fifos_in(struct bp_control *c, const char *parent)
{
  if((size_t)snprintf(c->dir, sizeof(c->dir), "%s/benchprof-ctl.XXXXXX",
                      parent) >= sizeof(c->dir)) {
    c->dir[0] = '\0';
    errno = ENAMETOOLONG;
    return false;
  }
  if(!mkdtemp(c->dir)) {
    c->dir[0] = '\0';
    return false;
  }
  snprintf(c->env, sizeof(c->env), BP_CONTROL_ENV "=%s/control", c->dir);
  c->path = c->env + strlen(BP_CONTROL_ENV "=");
  snprintf(c->ack_path, sizeof(c->ack_path), "%s" BP_CONTROL_ACK_SUFFIX,
           c->path);
  if(mkfifo(c->path, 0600) ||
     (c->rd = open(c->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0 ||
     (c->wr = open(c->path, O_WRONLY | O_CLOEXEC)) < 0 ||
     mkfifo(c->ack_path, 0600) ||
     (c->ack = open(c->ack_path, O_RDWR | O_NONBLOCK | O_CLOEXEC)) < 0) {
    int e = errno;
    remove_fifos(c);
    errno = e;
    return false;
  }
  return true;
}

/* Where the FIFOs go: in tmp when the user set TMPDIR (a sandbox may
 * share only that with the command); else on a memory file system this
 * user may write (the runtime directory, then /dev/shm), else in /tmp.
 * Each place is tried whole, the next one when something fails there.
 * Why a memory file system: a FIFO keeps nothing on disk, but a disk
 * file system still allocates and frees its inodes: the directory and
 * the two FIFOs took 160 us to make and remove on this project's test
 * machines' ext4, 28 us on tmpfs, and every recording pays it.  runtime:
 * XDG_RUNTIME_DIR (NULL: none).  *where is the last place tried. */
static bool make_fifos(struct bp_control *c, const char *tmp,
                       const char *runtime, const char **where)
{
  if(tmp && *tmp) {
    *where = tmp;
    return make_fifos_in(c, tmp);
  }
  const char *places[] = {runtime, "/dev/shm", "/tmp"};
  const size_t n = BP_ARRAY_LEN(places);
  for(size_t i = 0; i < n; i++) {
    const char *p = places[i];
    /* /tmp, the last, is always tried: its failure is the error */
    if(!p || p[0] != '/' || (i + 1 < n && access(p, W_OK | X_OK)))
      continue;
    *where = p;
    if(make_fifos_in(c, p))
      return true;
  }
  return false;
}

bp_code bpi_control_new(struct bp_control **out, const char *tmp,
                        const char *runtime, struct bp_err *err)
{
  struct bp_control *c = calloc(1, sizeof(*c));
  if(!c)
    return bpi_err_set(err, BPE_NOMEM, 0, "control");
  c->rd = c->wr = c->ack = -1;
  bpi_strtab_init(&c->names);
  const char *where = NULL;
  if(!make_fifos(c, tmp, runtime, &where)) {
    int e = errno;
    free(c);
    return bpi_err_set(err, BPE_SYS, e, "control FIFO in '%s'", where);
  }
  *out = c;
  return BP_OK;
}

static void free_segments(struct bp_control *c)
{
  for(size_t i = 0; i < c->nsegs; i++)
    bpi_counters_copy_free(c->segs[i].counters, c->segs[i].ncounters);
  free(c->segs);
  free(c->first);
  bpi_strtab_cleanup(&c->names);
}

void bpi_control_free(struct bp_control *c)
{
  if(!c)
    return;
  remove_fifos(c);
  free_segments(c);
  free(c->open_snap);
  free(c->snap);
  free(c);
}

const char *bpi_control_env(const struct bp_control *c)
{
  return c->env;
}

int bpi_control_fd(const struct bp_control *c)
{
  return c->rd;
}

void bpi_control_set_counters(struct bp_control *c, struct bp_counters *cs)
{
  c->cs = cs;
}

/* Percent-decode; raw bytes the protocol says must be encoded, a bad
 * escape or an encoded NUL make the line bad. */
static bp_code decode_name(const char *s, size_t len, char **out)
{
  char *name = malloc(len + 1);
  size_t j = 0;
  if(!name)
    return BPE_NOMEM;
  for(size_t i = 0; i < len; i++) {
    unsigned char ch = (unsigned char)s[i];
    if(ch < 0x21 || ch == 0x7f)
      goto bad;
    if(ch == '%') {
      int hi = i + 2 < len ? bpi_text_hex_value(s[i + 1]) : -1;
      int lo = i + 2 < len ? bpi_text_hex_value(s[i + 2]) : -1;
      if(hi < 0 || lo < 0 || (hi == 0 && lo == 0))
        goto bad;
      ch = (unsigned char)(hi * 16 + lo);
      i += 2;
    }
    name[j++] = (char)ch;
  }
  if(!j)
    goto bad;
  name[j] = '\0';
  *out = name;
  return BP_OK;
bad:
  free(name);
  return BPE_FORMAT;
}

/* "-" or a decimal number of nanoseconds, up to the next space or end. */
static bool parse_ns(const char *s, size_t len, uint64_t *ns)
{
  if(len == 1 && s[0] == '-') {
    *ns = 0;
    return true;
  }
  if(!len || len > 19)
    return false;
  uint64_t v = 0;
  for(size_t i = 0; i < len; i++) {
    if(s[i] < '0' || s[i] > '9')
      return false;
    v = v * 10 + (uint64_t)(s[i] - '0');
  }
  *ns = v ? v : 1;  /* 0 is "-": a real time of 0 cannot happen */
  return true;
}

static bool word(const char *line, size_t len, const char *w, size_t *at)
{
  size_t n = strlen(w);
  if(len < n || memcmp(line, w, n) || (len > n && line[n] != ' '))
    return false;
  *at = len > n ? n + 1 : n;
  return true;
}

bp_code bpi_control_parse(const char *line, size_t len, char **name,
                          uint64_t *ns)
{
  size_t at;
  *name = NULL;
  if(word(line, len, "end", &at) || word(line, len, "end!", &at))
    return at < len && parse_ns(line + at, len - at, ns) ? BP_OK
                                                          : BPE_FORMAT;
  if((!word(line, len, "begin", &at) && !word(line, len, "begin!", &at)) ||
     at >= len)
    return BPE_FORMAT;
  const char *sp = memchr(line + at, ' ', len - at);
  if(!sp || !parse_ns(line + at, (size_t)(sp - line) - at, ns))
    return BPE_FORMAT;
  size_t off = (size_t)(sp - line) + 1;
  return decode_name(line + off, len - off, name);
}

/* Read the counters into snap; on failure the segment's counters are
 * reported as not counted. */
static void read_counters(struct bp_control *c, struct bp_counter_snap *snap)
{
  struct bp_err ignored = {0};
  if(c->cs && bpi_counters_snapshot(c->cs, snap, &ignored)) {
    size_t n;
    bpi_counters_list(c->cs, &n);
    memset(snap, 0, n * sizeof(*snap));
  }
}

/* The counters of a run are added to its name's first segment as the run
 * ends: a name run 400,000 times keeps one set of counters, not one per
 * run (each is a few KiB). */
static bp_code end_segment(struct bp_control *c, uint64_t ns)
{
  struct bp_segment *s = &c->segs[c->nsegs - 1];
  c->open = false;
  s->end_ns = ns > s->begin_ns ? ns : s->begin_ns;
  if(!c->cs)
    return BP_OK;
  read_counters(c, c->snap);
  struct bp_counter *delta = NULL;
  size_t n = 0;
  bp_code rc = bpi_counters_delta(c->cs, c->open_snap, c->snap, &delta, &n);
  if(rc)
    return rc;
  struct bp_segment *sum = &c->segs[c->first[s->name_id]];
  if(sum == s) {
    s->counters = delta;
    s->ncounters = n;
    return BP_OK;
  }
  if(sum->ncounters == n)
    bpi_counters_add(sum->counters, delta, n);
  bpi_counters_copy_free(delta, n);
  return BP_OK;
}

/* The name's id; the first segment of a new name is the next one. */
static uint32_t name_id(struct bp_control *c, const char *name)
{
  uint32_t id = bpi_strtab_intern(&c->names, name);
  if(id == BP_NONE || id < c->first_cap)
    return id;
  size_t cap = c->first_cap ? c->first_cap * 2 : 16;
  size_t *first = realloc(c->first, cap * sizeof(*first));
  if(!first)
    return BP_NONE;
  c->first = first;
  c->first_cap = cap;
  return id;
}

static bp_code begin_segment(struct bp_control *c, char *name, uint64_t ns)
{
  size_t had = c->names.count;
  uint32_t id = name_id(c, name);
  free(name);
  if(id == BP_NONE)
    return BPE_NOMEM;
  if(c->nsegs == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 16;
    struct bp_segment *s = realloc(c->segs, cap * sizeof(*s));
    if(!s)
      return BPE_NOMEM;
    c->segs = s;
    c->cap = cap;
  }
  if(c->names.count > had)
    c->first[id] = c->nsegs;
  c->segs[c->nsegs++] = (struct bp_segment){
    .name = bpi_strtab_get(&c->names, id), .name_id = id, .begin_ns = ns,
    .end_ns = ns};
  c->open = true;
  if(c->cs)
    read_counters(c, c->open_snap);
  return BP_OK;
}

static bp_code apply_line(struct bp_control *c, const char *line, size_t len,
                          uint64_t now_ns)
{
  char *name;
  uint64_t ns;
  bp_code rc = bpi_control_parse(line, len, &name, &ns);
  if(rc == BPE_FORMAT) {
    c->stats.bad_lines++;
    return BP_OK;
  }
  if(rc)
    return rc;
  if(!ns)
    ns = now_ns;
  if(!name) {
    if(!c->open) {
      c->stats.unmatched_end++;
      return BP_OK;
    }
    return end_segment(c, ns);
  }
  if(c->open) {
    c->stats.implicit_end++;
    rc = end_segment(c, ns);
    if(rc) {
      free(name);
      return rc;
    }
  }
  return begin_segment(c, name, ns);
}

/* A line whose verb ends in '!' waits for one byte on the ack FIFO, sent
 * once its counters are read; even a line that does not parse gets it,
 * so the harness never waits for nothing. */
static bool wants_ack(const char *line, size_t len)
{
  return (len >= 6 && !memcmp(line, "begin!", 6)) ||
         (len >= 4 && !memcmp(line, "end!", 4));
}

static void send_ack(struct bp_control *c)
{
  ssize_t n;
  do  /* nonblocking: a harness that stopped reading cannot stop us */
    n = write(c->ack, "!", 1);
  while(n < 0 && errno == EINTR);
}

/* Apply one complete line; after a failure lines are only acked. */
static void take_line(struct bp_control *c, uint64_t now_ns)
{
  if(c->overlong)
    c->stats.bad_lines++;
  else if(!c->rc)
    c->rc = apply_line(c, c->line, c->len, now_ns);
  if(!c->overlong && wants_ack(c->line, c->len))
    send_ack(c);
  c->overlong = false;
  c->len = 0;
}

/* Split what arrived into lines; a line longer than the buffer is bad and
 * dropped up to its newline. */
static void take_bytes(struct bp_control *c, const char *p, size_t n,
                       uint64_t now_ns)
{
  for(size_t i = 0; i < n; i++) {
    if(p[i] == '\n')
      take_line(c, now_ns);
    else if(c->len == sizeof(c->line))
      c->overlong = true;
    else if(!c->overlong)
      c->line[c->len++] = p[i];
  }
}

static bp_code alloc_snaps(struct bp_control *c)
{
  size_t n = 0;
  if(!c->cs || c->snap)
    return BP_OK;
  bpi_counters_list(c->cs, &n);
  c->snap = calloc(n ? n : 1, sizeof(*c->snap));
  c->open_snap = calloc(n ? n : 1, sizeof(*c->open_snap));
  return c->snap && c->open_snap ? BP_OK : BPE_NOMEM;
}

/* After a failure the FIFO is still drained (and acked), so the poll
 * loop does not spin on it and the harness never blocks on a full FIFO. */
bp_code bpi_control_read(struct bp_control *c, uint64_t now_ns)
{
  char buf[8192];
  if(!c->rc)
    c->rc = alloc_snaps(c);
  for(;;) {
    ssize_t n = read(c->rd, buf, sizeof(buf));
    if(n < 0 && errno == EINTR)
      continue;
    if(n <= 0)
      break;  /* EAGAIN: all read (no EOF: we hold a write end) */
    take_bytes(c, buf, (size_t)n, now_ns);
  }
  return c->rc;
}

bp_code bpi_control_finish(struct bp_control *c, uint64_t end_ns)
{
  bpi_control_read(c, end_ns);
  if(c->len && !c->overlong)  /* a last line without newline */
    take_line(c, end_ns);
  c->len = 0;
  if(!c->rc && c->open) {
    c->stats.implicit_end++;
    c->rc = end_segment(c, end_ns);
  }
  return c->rc;
}

const struct bp_segment *bpi_control_segments(const struct bp_control *c,
                                              size_t *n)
{
  *n = c->nsegs;
  return c->segs;
}

const struct bp_control_stats *bpi_control_stats(const struct bp_control *c)
{
  return &c->stats;
}

/* ------------------------------------------------------- directory names */

static bool is_safe(unsigned char ch)
{
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
         (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
}

/* name -> [A-Za-z0-9._-]{1,BP_CONTROL_DIRNAME_MAX}, not starting with '.'
 * (hidden, "." and "..") or '-' (read as an option by tools). */
static void sanitize(const char *name, char *out)
{
  size_t j = 0;
  for(const unsigned char *p = (const unsigned char *)name;
      *p && j < BP_CONTROL_DIRNAME_MAX; p++)
    out[j++] = is_safe(*p) ? (char)*p : '_';
  if(!j)
    out[j++] = '_';
  if(out[0] == '.' || out[0] == '-')
    out[0] = '_';
  out[j] = '\0';
}


void bpi_control_dirnames_free(char **names, size_t n)
{
  for(size_t i = 0; names && i < n; i++)
    free(names[i]);
  free(names);
}

/* The first free name of base, base-2, base-3...; next[] (one per
 * distinct base, 0 meaning 2) remembers where to look next, so n equal
 * names cost O(n) look-ups in the set of names taken, not O(n^2). */
static bp_code unique_name(struct bp_strtab *used, struct bp_strtab *bases,
                           size_t *next, const char *base, char *cand,
                           size_t len)
{
  uint32_t b = bpi_strtab_intern(bases, base);
  if(b == BP_NONE)
    return BPE_NOMEM;
  snprintf(cand, len, "%s", base);
  while(bpi_strtab_find(used, cand) != BP_NONE) {
    if(!next[b])
      next[b] = 2;
    snprintf(cand, len, "%s-%zu", base, next[b]++);
  }
  return bpi_strtab_intern(used, cand) == BP_NONE ? BPE_NOMEM : BP_OK;
}

bp_code bpi_control_dirnames(const char *const *names, size_t n,
                             const char *const *reserved, char ***out)
{
  char **res = calloc(n ? n : 1, sizeof(*res));
  char base[BP_CONTROL_DIRNAME_MAX + 1], cand[BP_CONTROL_DIRNAME_MAX + 24];
  struct bp_strtab used, bases;
  size_t *next = calloc(n ? n : 1, sizeof(*next));  /* <= n bases */
  bp_code rc = res && next ? BP_OK : BPE_NOMEM;
  bpi_strtab_init(&used);
  bpi_strtab_init(&bases);
  for(size_t i = 0; !rc && reserved && reserved[i]; i++)
    if(bpi_strtab_intern(&used, reserved[i]) == BP_NONE)
      rc = BPE_NOMEM;
  for(size_t i = 0; !rc && i < n; i++) {
    sanitize(names[i], base);
    rc = unique_name(&used, &bases, next, base, cand, sizeof(cand));
    if(!rc && !(res[i] = strdup(cand)))
      rc = BPE_NOMEM;
  }
  free(next);
  bpi_strtab_cleanup(&used);
  bpi_strtab_cleanup(&bases);
  if(rc) {
    bpi_control_dirnames_free(res, n);
    return rc;
  }
  *out = res;
  return BP_OK;
}
