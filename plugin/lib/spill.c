#include "bp_setup.h"
#include "spill.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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
  if(sp->map)
    munmap(sp->map, (size_t)sp->written);
  sp->map = NULL;
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

/* The file's bytes are read in place, mapped: records are handed out
 * where they lie, not copied, and the pages the reader is done with are
 * given back as it goes, so a long run's file never becomes our memory. */
bp_code bpi_spill_reader(struct bp_spill *sp, struct bp_ring *r)
{
  free(sp->buf);
  sp->buf = calloc(1, CONTROL_BYTES);
  if(!sp->buf)
    return BPE_NOMEM;
  /* a power of two at least the file's size: positions never wrap */
  uint64_t size = 4096;
  while(size < sp->written)
    size *= 2;
  struct perf_event_mmap_page *pg = sp->buf;
  pg->data_offset = CONTROL_BYTES;
  pg->data_size = size;
  bpi_ring_init(r, sp->buf, size);
  r->data = NULL;
  sp->released = 0;
  if(sp->written) {
    void *m = mmap(NULL, (size_t)sp->written, PROT_READ, MAP_SHARED, sp->fd,
                   0);
    if(m == MAP_FAILED)
      return BPE_IO;
    sp->map = m;
    r->data = m;
  }
  pg->data_head = sp->written;
  return BP_OK;
}

void bpi_spill_release(struct bp_spill *sp, const struct bp_ring *r)
{
  if(!sp->map)
    return;
  struct perf_event_mmap_page *pg = sp->buf;
  uint64_t page = 4096, upto = pg->data_tail & ~(page - 1);
  /* in steps of 1 MiB or more: each call costs a system call */
  if(upto < sp->released + (1u << 20) && pg->data_tail != r->head)
    return;
  if(upto > sp->released) {
    madvise((unsigned char *)sp->map + sp->released,
            (size_t)(upto - sp->released), MADV_DONTNEED);
    sp->released = upto;
  }
}
