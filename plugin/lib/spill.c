#include "bp_setup.h"
#include "spill.h"
#include "stacktops.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

/* The reader's control page: what bpi_ring_init() reads the data area's
 * place and size from, as it would from the kernel's. */
#define CONTROL_BYTES 4096

void bpi_spill_init(struct bp_spill *sp, const char *dir)
{
  memset(sp, 0, sizeof(*sp));
  sp->fd = -1;
  sp->mem_fd = -1;
  sp->dir = dir ? dir : "/tmp";
  /* read back through a buffer: on the virtual machines CI runs on, the
   * first touch of each page of a mapping costs an exit to the
   * hypervisor, and reading the file mapped took 2 to 3 times the CPU of
   * pread() into a buffer that stays mapped (100k samples: 0.6-0.8 s of
   * benchprof's CPU after the run against 0.25-0.4 s; 300k: 2.0-2.4 s
   * against 0.75 s) */
  sp->no_map = true;
}

void bpi_spill_trim_stacks(struct bp_spill *sp,
                           const struct bp_rec_layout *lay)
{
  sp->trim = lay;
}

void bpi_spill_use_tops(struct bp_spill *sp, struct bp_stack_tops *tops)
{
  sp->tops = tops;
}

void bpi_spill_use_memory(struct bp_spill *sp, struct bp_spill_memory *m)
{
  sp->memory = m;
}

uint64_t bpi_spill_mem_available(void)
{
  FILE *f = fopen("/proc/meminfo", "re");
  char line[256];
  unsigned long long kib = 0;
  bool found = false;
  if(!f)
    return 0;
  while(!found && fgets(line, sizeof(line), f))
    found = sscanf(line, "MemAvailable: %llu kB", &kib) == 1;
  fclose(f);
  return found ? (uint64_t)kib * 1024 : 0;
}

/* MemAvailable now, as m reads it. */
static uint64_t available_now(const struct bp_spill_memory *m)
{
  return m->available ? m->available() : bpi_spill_mem_available();
}

/* bytes more in memory: the budget checked against the memory available
 * now (struct bp_spill_memory). */
static void memory_taken(struct bp_spill_memory *m, uint64_t bytes)
{
  m->left -= bytes;
  m->taken += bytes;
  m->unchecked += bytes;
  if(m->unchecked < (m->check_every ? m->check_every : BP_SPILL_MEMORY_CHECK))
    return;
  m->unchecked = 0;
  uint64_t avail = available_now(m);
  uint64_t cap = (avail + m->taken) / 4;
  uint64_t room = cap > m->taken ? cap - m->taken : 0;
  if(room < m->left)
    m->left = room;
}

void bpi_spill_cleanup(struct bp_spill *sp)
{
  if(sp->map)
    munmap(sp->map, (size_t)sp->written);
  sp->map = NULL;
  free(sp->batch);
  sp->batch = NULL;
  if(sp->fd >= 0)
    close(sp->fd);
  sp->fd = -1;
  if(sp->mem_fd >= 0)
    close(sp->mem_fd);
  sp->mem_fd = -1;
  free(sp->buf);
  sp->buf = NULL;
}

/* An unnamed file in dir: gone with its last descriptor, even when
 * benchprof is killed. */
static int open_unnamed(const char *dir)
{
  int fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
  if(fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
    return fd;
  /* a file system without O_TMPFILE: a named one, unlinked at once */
  char path[4096];
  int n = snprintf(path, sizeof(path), "%s/.benchprof-spill.XXXXXX", dir);
  if(n < 0 || (size_t)n >= sizeof(path)) {
    errno = ENAMETOOLONG;
    return -1;
  }
  fd = mkostemp(path, O_CLOEXEC);
  if(fd >= 0)
    unlink(path);
  return fd;
}

/* Pieces of one pwritev, in file order: ranges of the ring and the
 * rewritten words of trimmed samples (their header, their stack size). */
#define BATCH_PIECES 1024  /* IOV_MAX on Linux */
#define RECORD_PIECES 6    /* the most one record adds (trimmed, or split) */
#define RECORD_WORDS 3     /* the words one trimmed record rewrites */
/* Bytes per write at most: the ring's space is handed back after each, so
 * a large ring does not stay full (losing samples) while all of it is
 * being written. */
#define BATCH_BYTES (1024 * 1024)
struct spill_batch {
  struct iovec iov[BATCH_PIECES];
  uint64_t words[BATCH_PIECES];
  int n, nwords;
  uint64_t bytes;
};

static void add_piece(struct spill_batch *b, const void *base, size_t len)
{
  if(!len)
    return;
  struct iovec *last = b->n ? &b->iov[b->n - 1] : NULL;
  if(last && (const unsigned char *)last->iov_base + last->iov_len == base)
    last->iov_len += len;
  else
    b->iov[b->n++] = (struct iovec){(void *)base, len};
  b->bytes += len;
}

static void add_word(struct spill_batch *b, uint64_t w)
{
  b->words[b->nwords] = w;
  add_piece(b, &b->words[b->nwords++], sizeof(w));
}

/* len bytes of the ring from pos, in one or two pieces around its end. */
static void add_ring(struct spill_batch *b, const struct bp_ring *r,
                     uint64_t pos, uint64_t len)
{
  uint64_t off = pos & (r->size - 1);
  uint64_t first = len < r->size - off ? len : r->size - off;
  add_piece(b, r->data + off, (size_t)first);
  add_piece(b, r->data, (size_t)(len - first));
}

static void read_header(const struct bp_ring *r, uint64_t pos,
                        struct perf_event_header *h)
{
  bpi_ring_copy(r, pos, h, sizeof(*h));
}

/* The sample at pos without the bytes of its stack copy past dyn_size;
 * false (nothing added) when it has none to drop, wraps around the ring's
 * end, or does not parse (then it goes as it is, for the reader to judge). */
static bool add_trimmed(struct bp_spill *sp, struct spill_batch *b,
                        const struct bp_ring *r, uint64_t pos,
                        struct perf_event_header h)
{
  uint64_t off = pos & (r->size - 1);
  if(off + h.size > r->size)
    return false;
  const unsigned char *rec = r->data + off;
  struct bp_rec parsed;
  if(bpi_records_parse(sp->trim, rec, h.size, &parsed) ||
     parsed.type != BP_REC_SAMPLE || !parsed.u.sample.stack)
    return false;
  const struct bp_rec_sample *st = &parsed.u.sample;
  uint64_t keep = sp->tops ? bpi_stack_tops_keep(sp->tops, parsed.sid.pid,
                                                 parsed.sid.tid, st)
                           : (st->stack_dyn_size + 7) & ~(uint64_t)7;
  if(keep >= st->stack_size)
    return false;
  /* the record: ... u64 size, data[size], u64 dyn_size (only when size is
   * not 0), then whatever follows; dyn_size no larger than what is kept */
  size_t size_at = (size_t)(st->stack - rec) - sizeof(uint64_t);
  size_t rest_at = size_at + 2 * sizeof(uint64_t) + (size_t)st->stack_size;
  uint64_t dropped = st->stack_size - keep + (keep ? 0 : sizeof(uint64_t));
  struct perf_event_header nh = h;
  nh.size = (uint16_t)(h.size - dropped);
  uint64_t w;
  memcpy(&w, &nh, sizeof(w));
  add_word(b, w);
  add_piece(b, rec + sizeof(h), size_at - sizeof(h));
  add_word(b, keep);
  add_piece(b, st->stack, (size_t)keep);
  if(keep)
    add_word(b, st->stack_dyn_size < keep ? st->stack_dyn_size : keep);
  add_piece(b, rec + rest_at, h.size - rest_at);
  sp->trimmed += dropped;
  return true;
}

/* An exit or an exec: what the stack tops learned of it no longer holds
 * (the record goes to the file as it is).  One that wraps around the
 * ring's end is parsed from a copy (they are small; the stack tops'
 * marks catch what is missed). */
static void tell_tops(struct bp_spill *sp, const struct bp_ring *r,
                      uint64_t pos, struct perf_event_header h)
{
  uint64_t off = pos & (r->size - 1);
  unsigned char copy[512];
  const unsigned char *rec = r->data + off;
  if(off + h.size > r->size) {
    if(h.size > sizeof(copy))
      return;
    bpi_ring_copy(r, pos, copy, h.size);
    rec = copy;
  }
  struct bp_rec parsed;
  if(bpi_records_parse(sp->trim, rec, h.size, &parsed))
    return;
  if(parsed.type == BP_REC_EXIT)
    bpi_stack_tops_exit(sp->tops, parsed.u.task.pid, parsed.u.task.tid);
  else if(parsed.type == BP_REC_COMM && parsed.u.comm.exec)
    bpi_stack_tops_exec(sp->tops, parsed.u.comm.pid);
}

/* Whether the next bytes go to memory: all of the file so far is there
 * and the budget has room for them (the memory file made if need be).
 * Once not, never again: the file's part in memory is its beginning. */
static bool to_memory(struct bp_spill *sp, uint64_t bytes)
{
  struct bp_spill_memory *m = sp->memory;
  if(m && m->unsized) {  /* the first spill of the recording */
    m->left = available_now(m) / 4;
    m->unsized = false;
  }
  if(!sp->mem_done && m && m->left >= bytes &&
     (sp->mem_fd >= 0 ||
      (sp->mem_fd = memfd_create("benchprof-spill", MFD_CLOEXEC)) >= 0))
    return true;
  sp->mem_done = true;
  return false;
}

/* No more bytes go to memory: what a failed write left past mem_len is
 * given back. */
static void end_memory(struct bp_spill *sp)
{
  sp->mem_done = true;
  if(sp->mem_fd >= 0) {
    int rc = ftruncate(sp->mem_fd, (off_t)sp->mem_len);
    (void)rc;  /* it is never read past mem_len either way */
  }
}

/* pwritev all of the batch to fd at off; false (errno set) unless all of
 * it was written. */
static bool write_all(int fd, const struct spill_batch *b, uint64_t off)
{
  for(;;) {
    ssize_t n = pwritev(fd, b->iov, b->n, (off_t)off);
    if(n < 0 && errno == EINTR)
      continue;
    if(n < 0 || (uint64_t)n != b->bytes) {
      if(n >= 0)
        errno = ENOSPC;  /* a short write: the file system is full */
      return false;
    }
    return true;
  }
}

/* Append the batch to the file: to memory while the budget lasts (a
 * write memory refuses goes to the disk instead), then to $TMPDIR; false
 * (errno set) unless all of it was written. */
static bool write_batch(struct bp_spill *sp, struct spill_batch *b)
{
  if(b->n && to_memory(sp, b->bytes)) {
    if(write_all(sp->mem_fd, b, sp->written)) {
      sp->written += b->bytes;
      sp->mem_len += b->bytes;
      memory_taken(sp->memory, b->bytes);
      b->n = 0;
    }
    else {
      end_memory(sp);
    }
  }
  if(b->n) {
    if(sp->fd < 0 && (sp->fd = open_unnamed(sp->dir)) < 0)
      return false;
    if(!write_all(sp->fd, b, sp->written - sp->mem_len))
      return false;
    sp->mem_done = true;
    sp->written += b->bytes;
  }
  b->n = b->nwords = 0;
  b->bytes = 0;
  return true;
}

/* Cut the file back to its first len bytes (a record boundary, in the
 * part on disk: a write to memory never fails).  False (errno set) when
 * it cannot be. */
static bool cut_back(struct bp_spill *sp, uint64_t len)
{
  sp->written = len;
  if(sp->fd < 0 || len < sp->mem_len)
    return true;
  return !ftruncate(sp->fd, (off_t)(len - sp->mem_len));
}

bp_code bpi_spill_take(struct bp_spill *sp, struct bp_ring *r)
{
  if(!bpi_ring_begin(r))
    return BP_OK;
  if(!sp->batch && !(sp->batch = calloc(1, sizeof(*sp->batch)))) {
    errno = ENOMEM;
    return BPE_IO;
  }
  /* both start on a record boundary, and so does every batch: a failure
   * goes back to where the last written batch ended, so the file never
   * ends inside a record and the ring is read on from there */
  struct spill_batch *b = sp->batch;
  uint64_t written0 = sp->written, trimmed0 = sp->trimmed, pos = r->tail;
  bool ok = true;
  b->n = b->nwords = 0;
  b->bytes = 0;
  while(pos != r->head) {
    bool full = b->n > BATCH_PIECES - RECORD_PIECES ||
                b->nwords > BATCH_PIECES - RECORD_WORDS ||
                b->bytes >= BATCH_BYTES;
    if(full) {
      if(!(ok = write_batch(sp, b)))
        break;
      r->tail = pos;
      bpi_ring_consume(r);
      written0 = sp->written;
      trimmed0 = sp->trimmed;
    }
    struct perf_event_header h;
    uint64_t left = r->head - pos;
    if(left >= sizeof(h))
      read_header(r, pos, &h);
    if(left < sizeof(h) || h.size < sizeof(h) || h.size > left) {
      /* no whole record: the bytes as they are, for the reader to count */
      add_ring(b, r, pos, left);
      pos = r->head;
      break;
    }
    if(sp->tops && (h.type == PERF_RECORD_EXIT ||
                    h.type == PERF_RECORD_COMM))
      tell_tops(sp, r, pos, h);
    if(!sp->trim || h.type != PERF_RECORD_SAMPLE ||
       !add_trimmed(sp, b, r, pos, h))
      add_ring(b, r, pos, h.size);
    pos += h.size;
  }
  if(ok)
    ok = write_batch(sp, b);
  if(!ok) {
    int e = errno;
    sp->trimmed = trimmed0;
    if(!cut_back(sp, written0))
      e = errno;  /* then reading it back fails too, and says why */
    errno = e;
    return BPE_IO;
  }
  r->tail = pos;
  bpi_ring_consume(r);
  return BP_OK;
}

/* The descriptor that holds all of the file, or -1 when it is in two
 * parts (then it is read through a buffer). */
static int whole_fd(const struct bp_spill *sp)
{
  return sp->mem_len == sp->written ? sp->mem_fd
         : !sp->mem_len            ? sp->fd
                                   : -1;
}

/* Pages read past are given back in steps of this many bytes: each step
 * is a system call, and what is not given back yet is our memory. */
#define RELEASE_STEP (1u << 20)

/* The whole file mapped as the reader's data area, positions never
 * wrapping: records are handed out where they lie, with no copy.  False
 * (nothing changed) when the file cannot be mapped. */
static bool map_reader(struct bp_spill *sp, struct bp_ring *r)
{
  int fd = whole_fd(sp);
  if(!sp->written || sp->no_map || fd < 0)
    return false;
  void *m = mmap(NULL, (size_t)sp->written, PROT_READ, MAP_SHARED, fd, 0);
  if(m == MAP_FAILED)
    return false;
  sp->buf = calloc(1, CONTROL_BYTES);
  if(!sp->buf) {
    munmap(m, (size_t)sp->written);
    return false;
  }
  uint64_t size = 4096;
  while(size < sp->written)
    size *= 2;
  struct perf_event_mmap_page *pg = sp->buf;
  pg->data_offset = CONTROL_BYTES;
  pg->data_size = size;
  bpi_ring_init(r, sp->buf, size);
  r->data = m;
  sp->map = m;
  sp->released = 0;
  sp->checked = 0;
  sp->faulted = 0;
  sp->populate = true;
  sp->read = sp->filled = sp->written;
  pg->data_head = sp->written;  /* a cut last record: the reader skips it */
  return true;
}

/* Ahead of the reader, the mapped file is checked this many bytes at a
 * time: a page that is not in memory (written out and dropped since) is
 * faulted in with MADV_POPULATE_READ, so that one that cannot be read
 * back (an I/O error) is an error returned here, not a SIGBUS that would
 * kill benchprof, and the command's status with it, in the middle of a
 * record.  The pages of a file written moments ago are all in memory, and
 * cachestat(2), or mincore() before Linux 6.5, says so for a whole step
 * in one call (populating them anyway cost a tenth of the time to
 * artifacts).  Between two refills the reader
 * reads at most a round (256 KiB, sampler.c) and a record past its
 * position: well within one step. */
#define CHECK_STEP (1u << 20)

/* cachestat(2), Linux 6.5: how many pages of a file's range are in the
 * page cache, in one walk of the range (mincore() looks each page up on
 * its own: a tenth of the time left after the run, at 100k samples with
 * stack copies).  Older kernels lack the call (ENOSYS) and older headers
 * its number, which the architectures below share; others (alpha, mips)
 * number it their own way, and without headers that know it ask
 * mincore(). */
#if defined(__NR_cachestat)
#define SPILL_NR_CACHESTAT __NR_cachestat
#elif defined(__x86_64__) || defined(__i386__) || defined(__aarch64__) || \
  defined(__arm__) || defined(__riscv) || defined(__powerpc__) || \
  defined(__s390__)
#define SPILL_NR_CACHESTAT 451
#endif
struct spill_cachestat_range {
  uint64_t off, len;
};
struct spill_cachestat {
  uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted;
};

/* 1: all of the range is in memory, 0: not all, -1: cannot tell. */
static int cached_all(struct bp_spill *sp, uint64_t off, uint64_t len,
                      uint64_t pages)
{
#ifdef SPILL_NR_CACHESTAT
  if(sp->no_cachestat)
    return -1;
  struct spill_cachestat_range range = {off, len};
  struct spill_cachestat st;
  if(syscall(SPILL_NR_CACHESTAT, whole_fd(sp), &range, &st, 0)) {
    sp->no_cachestat = true;  /* ENOSYS (before 6.5) or refused */
    return -1;
  }
  return st.nr_cache >= pages;
#else
  (void)off;
  (void)len;
  (void)pages;
  sp->no_cachestat = true;
  return -1;
#endif
}

/* Whether every page of len bytes of the mapping from off is in memory. */
static bool resident(struct bp_spill *sp, uint64_t off, uint64_t len)
{
  unsigned char vec[CHECK_STEP / 4096];
  uint64_t pages = (len + sp->page - 1) / sp->page;
  int all = cached_all(sp, off, len, pages);
  if(all >= 0)
    return all;
  if(pages > sizeof(vec) ||
     mincore((unsigned char *)sp->map + off, (size_t)len, vec))
    return false;
  for(uint64_t i = 0; i < pages; i++)
    if(!(vec[i] & 1))
      return false;
  return true;
}

static bp_code check_ahead(struct bp_spill *sp, const struct bp_ring *r)
{
  uint64_t want = r->tail + CHECK_STEP;
  if(want > sp->written)
    want = sp->written;
  while(sp->checked < want) {
    uint64_t len = sp->written - sp->checked;
    if(len > CHECK_STEP)
      len = CHECK_STEP;
    len = (len + sp->page - 1) & ~(sp->page - 1);
    if(sp->populate && !resident(sp, sp->checked, len)) {
      if(madvise((unsigned char *)sp->map + sp->checked, (size_t)len,
                 MADV_POPULATE_READ)) {
        if(errno == EINTR)
          continue;
        if(errno != EINVAL)
          return BPE_IO;
        sp->populate = false;  /* before Linux 5.14: faulted as it is read */
      }
      else {
        sp->faulted += len;
      }
    }
    sp->checked += len;
  }
  return BP_OK;
}

/* The helper punches out a file's bytes this many at a time: each step
 * is a message, a system call and a journal transaction. */
#define FREE_STEP (8u << 20)

struct freer_msg {
  uint32_t slot;
  uint64_t upto;  /* the file's bytes before this are no longer read */
};

/* Tell the helper the file's bytes before upto (a page boundary, or the
 * file's end) are read. */
static void tell_freer(struct bp_spill *sp, uint64_t upto)
{
  if(!sp->freer || upto <= sp->freed ||
     (upto < sp->freed + FREE_STEP && upto != sp->written))
    return;
  struct freer_msg m = {.slot = sp->freer_slot, .upto = upto};
  ssize_t n;
  /* not a pipe: a helper that died must not raise SIGPIPE here */
  do
    n = send(sp->freer->wr, &m, sizeof(m), MSG_NOSIGNAL);
  while(n < 0 && errno == EINTR);
  if(n != (ssize_t)sizeof(m)) {
    sp->freer = NULL;  /* it is gone: our own close frees the rest */
    return;
  }
  sp->freed = upto;
}

/* Give back the mapped pages the reader is done with. */
static void release_read(struct bp_spill *sp)
{
  const struct perf_event_mmap_page *pg = sp->buf;
  uint64_t upto = pg->data_tail & ~(sp->page - 1);
  if(pg->data_tail == sp->written)
    upto = sp->written;
  if(upto < sp->released + RELEASE_STEP && upto != sp->written)
    return;
  if(upto > sp->released) {
    /* page aligned at the start; the end may be the file's last byte */
    uint64_t len = (upto - sp->released + sp->page - 1) & ~(sp->page - 1);
    madvise((unsigned char *)sp->map + sp->released, (size_t)len,
            MADV_DONTNEED);
    sp->released = upto;
    tell_freer(sp, upto);
  }
}

bp_code bpi_spill_reader(struct bp_spill *sp, struct bp_ring *r,
                         uint64_t size)
{
  free(sp->buf);
  sp->buf = NULL;
  sp->page = (uint64_t)sysconf(_SC_PAGESIZE);
  if(map_reader(sp, r))
    return BP_OK;
  /* a file that fits in less gets an area of its size, a power of two
   * and at least the largest record: what the reader never uses it never
   * touches (calloc clears what the heap hands out again).  Nothing
   * written (a short command spills nothing) is nothing to read: a
   * token area, not 64 KiB per CPU cleared for nothing (on a virtual
   * machine each fresh page cleared costs about 10 us) */
  uint64_t fits = sp->written ? 65536 : 64;
  while(fits < sp->written && fits < size)
    fits *= 2;
  if(fits < size)
    size = fits;
  sp->buf = calloc(1, CONTROL_BYTES + size);
  if(!sp->buf)
    return BPE_NOMEM;
  struct perf_event_mmap_page *pg = sp->buf;
  pg->data_offset = CONTROL_BYTES;
  pg->data_size = size;
  sp->read = 0;
  sp->filled = 0;
  bpi_ring_init(r, sp->buf, size);
  return BP_OK;
}

/* The reader's head moved past the whole records among the filled bytes,
 * as the kernel only ever publishes whole records: the record reader takes
 * a header that runs past the head for corruption.  A header that can
 * never be whole (smaller than itself, larger than the area) is published
 * with everything filled, for the reader to count and skip. */
static uint64_t whole_records_end(const struct bp_ring *r, uint64_t head,
                                  uint64_t filled)
{
  while(filled - head >= sizeof(struct perf_event_header)) {
    struct perf_event_header h;
    read_header(r, head, &h);
    if(h.size < sizeof(h) || h.size > r->size)
      return filled;
    if(h.size > filled - head)
      break;
    head += h.size;
  }
  return head;
}

/* pread() of the file at pos, from the part that holds pos (up to its
 * end). */
static ssize_t read_at(const struct bp_spill *sp, void *buf, size_t len,
                       uint64_t pos)
{
  if(pos >= sp->mem_len)
    return pread(sp->fd, buf, len, (off_t)(pos - sp->mem_len));
  if(len > sp->mem_len - pos)
    len = (size_t)(sp->mem_len - pos);
  return pread(sp->mem_fd, buf, len, (off_t)pos);
}

bp_code bpi_spill_refill(struct bp_spill *sp, struct bp_ring *r, bool *more)
{
  struct perf_event_mmap_page *pg = sp->buf;
  if(sp->map) {
    release_read(sp);
    *more = false;
    return check_ahead(sp, r);
  }
  uint64_t tail = pg->data_tail;
  bp_code rc = BP_OK;
  while(sp->read < sp->written && sp->filled - tail < r->size) {
    uint64_t off = sp->filled & (r->size - 1);
    uint64_t len = r->size - (sp->filled - tail);  /* free space */
    if(len > r->size - off)
      len = r->size - off;                         /* up to the area's end */
    if(len > sp->written - sp->read)
      len = sp->written - sp->read;
    ssize_t n = read_at(sp, r->data + off, (size_t)len, sp->read);
    if(n < 0 && errno == EINTR)
      continue;
    if(n <= 0) {
      if(n == 0)
        errno = EIO;  /* shorter than what was written to it */
      rc = BPE_IO;
      break;
    }
    sp->read += (uint64_t)n;
    sp->filled += (uint64_t)n;
  }
  /* what is in the buffer is no longer read from the file */
  tell_freer(sp, sp->read == sp->written ? sp->read
                                         : sp->read & ~(sp->page - 1));
  pg->data_head = whole_records_end(r, pg->data_head, sp->filled);
  if(rc || sp->read == sp->written)
    pg->data_head = sp->filled;  /* a cut last record: the reader skips it */
  *more = !rc && (sp->read < sp->written || pg->data_head != sp->filled);
  return rc;
}

/* ---------------------------------------------------------- the freer */

/* In the helper: close every descriptor but the n in keep (sorted), so
 * that it holds nothing else of benchprof's open. */
static void close_others(const int *keep, uint32_t n)
{
#ifdef SYS_close_range
  unsigned lo = 3;
  for(uint32_t i = 0; i <= n; i++) {
    unsigned hi = i < n ? (unsigned)keep[i] : ~0u;
    if(hi > lo)
      syscall(SYS_close_range, lo, hi - 1, 0);
    if(i < n && (unsigned)keep[i] + 1 > lo)
      lo = (unsigned)keep[i] + 1;  /* (one of ours may be below 3) */
  }
#else
  (void)keep;
  (void)n;
#endif
}

static int by_fd(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* A file as the helper sees it: its part in memory (mem_len bytes, the
 * first), then its part on disk; -1: no such part. */
struct freer_file {
  int mem_fd, fd;
  uint64_t mem_len;
};

/* Punch out the file's bytes [from, to) from the parts that hold them.
 * False when the file system cannot. */
static bool punch(const struct freer_file *f, uint64_t from, uint64_t to)
{
  int mode = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
  if(from < f->mem_len) {
    uint64_t end = to < f->mem_len ? to : f->mem_len;
    if(fallocate(f->mem_fd, mode, (off_t)from, (off_t)(end - from)))
      return false;
    from = end;
  }
  if(from < to && f->fd >= 0 &&
     fallocate(f->fd, mode, (off_t)(from - f->mem_len), (off_t)(to - from)))
    return false;
  return true;
}

/* The helper's life: punch out what it is told, close all at the end.
 * Without memory for its bookkeeping it exits at once: then benchprof's
 * own close frees the files, as without a helper. */
static void freer_main(int rd, const struct freer_file *files, uint32_t n)
{
  uint64_t *done = calloc(n, sizeof(*done));
  int *keep = calloc(2 * (size_t)n + 1, sizeof(*keep));
  if(!done || !keep)
    _exit(0);
  /* benchprof's handlers (passing signals on to the command) are not
   * the helper's business */
  for(int sig = 1; sig < NSIG; sig++) {
    struct sigaction sa;
    if(!sigaction(sig, NULL, &sa) && sa.sa_handler != SIG_IGN &&
       sa.sa_handler != SIG_DFL)
      signal(sig, SIG_DFL);
  }
  uint32_t k = 0;
  keep[k++] = rd;
  for(uint32_t i = 0; i < n; i++) {
    if(files[i].mem_fd >= 0)
      keep[k++] = files[i].mem_fd;
    if(files[i].fd >= 0)
      keep[k++] = files[i].fd;
  }
  qsort(keep, k, sizeof(*keep), by_fd);
  close_others(keep, k);
  struct freer_msg m;
  for(;;) {
    ssize_t got = recv(rd, &m, sizeof(m), 0);
    if(got < 0 && errno == EINTR)
      continue;
    if(got != (ssize_t)sizeof(m))
      break;  /* the end: benchprof closed its copies, or died */
    if(m.slot >= n || m.upto <= done[m.slot])
      continue;
    if(punch(&files[m.slot], done[m.slot], m.upto))
      done[m.slot] = m.upto;
    else
      done[m.slot] = UINT64_MAX;  /* not supported here: the close does it */
  }
  for(uint32_t i = 0; i < k; i++)
    if(keep[i] != rd)
      close(keep[i]);
  _exit(0);
}

bool bpi_spill_freer_start(struct bp_spill_freer *f, struct bp_spill *sps,
                           uint32_t n)
{
  f->pid = -1;
  f->wr = -1;
  int p[2];
  struct freer_file *fds = calloc(n ? n : 1, sizeof(*fds));
  uint32_t files = 0;
  for(uint32_t i = 0; fds && i < n; i++) {
    bool has = sps[i].written > 0;
    fds[i] = (struct freer_file){
      .mem_fd = has && sps[i].mem_len ? sps[i].mem_fd : -1,
      .fd = has && sps[i].written > sps[i].mem_len ? sps[i].fd : -1,
      .mem_len = sps[i].mem_len,
    };
    files += has;
  }
  bool ok = fds && files &&
            !socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, p);
  if(ok) {
    pid_t pid = fork();
    if(pid == 0) {
      close(p[1]);
      freer_main(p[0], fds, n);
    }
    close(p[0]);
    if(pid < 0) {
      close(p[1]);
      ok = false;
    }
    else {
      f->pid = pid;
      f->wr = p[1];
      for(uint32_t i = 0; i < n; i++)
        if(sps[i].written) {
          sps[i].freer = f;
          sps[i].freer_slot = i;
          sps[i].freed = 0;
        }
    }
  }
  free(fds);
  return ok;
}

void bpi_spill_freer_finish(struct bp_spill_freer *f)
{
  if(f->wr >= 0)
    close(f->wr);
  f->wr = -1;
  if(f->pid > 0) {
    int st;
    while(waitpid(f->pid, &st, 0) < 0 && errno == EINTR)
      ;
  }
  f->pid = -1;
}
