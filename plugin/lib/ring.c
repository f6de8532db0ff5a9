#include "bp_setup.h"
#include "ring.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void bpi_ring_init(struct bp_ring *r, void *base, uint64_t data_size)
{
  memset(r, 0, sizeof(*r));
  r->page = base;
  uint64_t off = r->page->data_offset;
  uint64_t size = r->page->data_size;
  if(!off || !size) { /* kernels before 4.1 leave these zero */
    off = (uint64_t)sysconf(_SC_PAGESIZE);
    size = data_size;
  }
  r->data = (unsigned char *)base + off;
  r->size = size;
  r->tail = __atomic_load_n(&r->page->data_tail, __ATOMIC_RELAXED);
}

void bpi_ring_cleanup(struct bp_ring *r)
{
  free(r->scratch);
  r->scratch = NULL;
  r->scratch_cap = 0;
}

bool bpi_ring_begin(struct bp_ring *r)
{
  r->head = __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
  return r->head != r->tail;
}

void bpi_ring_copy(const struct bp_ring *r, uint64_t pos, void *dst,
                   size_t len)
{
  uint64_t off = pos & (r->size - 1);
  size_t first = (size_t)(r->size - off);
  if(first > len)
    first = len;
  memcpy(dst, r->data + off, first);
  memcpy((unsigned char *)dst + first, r->data, len - first);
}

bool bpi_ring_next(struct bp_ring *r, const void **rec, size_t *len,
                   bp_code *err)
{
  *err = BP_OK;
  uint64_t avail = r->head - r->tail;
  if(avail == 0)
    return false;
  struct perf_event_header h;
  if(avail < sizeof(h)) {
    r->corrupt++;
    r->tail = r->head;
    return false;
  }
  bpi_ring_copy(r, r->tail, &h, sizeof(h));
  if(h.size < sizeof(h) || h.size > avail) {
    /* nothing after a broken header can be trusted: skip what we have */
    r->corrupt++;
    r->tail = r->head;
    return false;
  }
  uint64_t off = r->tail & (r->size - 1);
  if(off + h.size <= r->size) {
    *rec = r->data + off;
  }
  else {
    if(r->scratch_cap < h.size) {
      unsigned char *s = realloc(r->scratch, h.size);
      if(!s) {
        *err = BPE_NOMEM;
        return false;
      }
      r->scratch = s;
      r->scratch_cap = h.size;
    }
    bpi_ring_copy(r, r->tail, r->scratch, h.size);
    *rec = r->scratch;
  }
  *len = h.size;
  r->tail += h.size;
  return true;
}

void bpi_ring_consume(struct bp_ring *r)
{
  __atomic_store_n(&r->page->data_tail, r->tail, __ATOMIC_RELEASE);
}

void bpi_ring_consume_to(struct bp_ring *r, uint64_t pos)
{
  __atomic_store_n(&r->page->data_tail, pos, __ATOMIC_RELEASE);
}
