#include "bp_setup.h"
#include "spill.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* The reader's control page: what bpi_ring_init() reads the data area's
 * place and size from, as it would from the kernel's. */
#define CONTROL_BYTES 4096

void bpi_spill_init(struct bp_spill *sp, const char *dir)
{
  memset(sp, 0, sizeof(*sp));
  sp->fd = -1;
  sp->dir = dir ? dir : "/tmp";
}

void bpi_spill_cleanup(struct bp_spill *sp)
{
  if(sp->fd >= 0)
    close(sp->fd);
  sp->fd = -1;
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

bp_code bpi_spill_take(struct bp_spill *sp, struct bp_ring *r)
{
  if(!bpi_ring_begin(r))
    return BP_OK;
  if(sp->fd < 0 && (sp->fd = open_unnamed(sp->dir)) < 0)
    return BPE_IO;
  /* both start on a record boundary: a failure goes back to them, so the
   * file never ends inside a record and the ring is read on from there */
  uint64_t tail0 = r->tail, written0 = sp->written;
  bp_code rc = BP_OK;
  while(r->tail != r->head) {
    /* the unread bytes, in at most two pieces: up to the end of the data
     * area, then from its start */
    uint64_t off = r->tail & (r->size - 1);
    uint64_t len = r->head - r->tail;
    struct iovec iov[2] = {{r->data + off, (size_t)len}, {r->data, 0}};
    if(off + len > r->size) {
      iov[0].iov_len = (size_t)(r->size - off);
      iov[1].iov_len = (size_t)(len - iov[0].iov_len);
    }
    ssize_t n = pwritev(sp->fd, iov, iov[1].iov_len ? 2 : 1,
                        (off_t)sp->written);
    if(n < 0 && errno == EINTR)
      continue;
    if(n <= 0) {
      int e = n == 0 ? ENOSPC : errno;
      r->tail = tail0;
      sp->written = written0;
      if(ftruncate(sp->fd, (off_t)written0))
        e = errno;  /* then reading it back fails too, and says why */
      errno = e;
      return BPE_IO;
    }
    r->tail += (uint64_t)n;
    sp->written += (uint64_t)n;
  }
  bpi_ring_consume(r);
  return rc;
}

bp_code bpi_spill_reader(struct bp_spill *sp, struct bp_ring *r,
                         uint64_t size)
{
  free(sp->buf);
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
    uint64_t off = head & (r->size - 1);
    size_t first = (size_t)(r->size - off);
    if(first >= sizeof(h)) {
      memcpy(&h, r->data + off, sizeof(h));
    }
    else {
      memcpy(&h, r->data + off, first);
      memcpy((unsigned char *)&h + first, r->data, sizeof(h) - first);
    }
    if(h.size < sizeof(h) || h.size > r->size)
      return filled;
    if(h.size > filled - head)
      break;
    head += h.size;
  }
  return head;
}

bp_code bpi_spill_refill(struct bp_spill *sp, struct bp_ring *r, bool *more)
{
  struct perf_event_mmap_page *pg = sp->buf;
  uint64_t tail = pg->data_tail;
  bp_code rc = BP_OK;
  while(sp->read < sp->written && sp->filled - tail < r->size) {
    uint64_t off = sp->filled & (r->size - 1);
    uint64_t len = r->size - (sp->filled - tail);  /* free space */
    if(len > r->size - off)
      len = r->size - off;                         /* up to the area's end */
    if(len > sp->written - sp->read)
      len = sp->written - sp->read;
    ssize_t n = pread(sp->fd, r->data + off, (size_t)len, (off_t)sp->read);
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
  pg->data_head = whole_records_end(r, pg->data_head, sp->filled);
  if(rc || sp->read == sp->written)
    pg->data_head = sp->filled;  /* a cut last record: the reader skips it */
  *more = !rc && (sp->read < sp->written || pg->data_head != sp->filled);
  return rc;
}
