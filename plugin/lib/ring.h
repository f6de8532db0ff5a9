/* ring: reading one perf_event mmap ring buffer.
 *
 * Input: the mmap'd area (a struct perf_event_mmap_page, then the data
 * area of a power-of-two size).  Output: whole records, one at a time; a
 * record that wraps around the end of the data area is copied into the
 * ring's scratch buffer so the caller always sees contiguous bytes.
 * data_head is read with acquire ordering before records are read, and
 * data_tail published with release ordering after they were consumed, as
 * the kernel's ABI requires.  A corrupt header (size 0 or larger than the
 * unread bytes) makes the ring skip to the head and count it.
 * Owns the scratch buffer, not the mapping.  One reader per ring. */
#ifndef BP_LIB_RING_H
#define BP_LIB_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "benchprof/benchprof.h"

struct bp_ring {
  struct perf_event_mmap_page *page;
  unsigned char *data;   /* start of the data area */
  uint64_t size;         /* bytes in the data area, a power of two */
  uint64_t head;         /* data_head loaded by bpi_ring_begin() */
  uint64_t tail;         /* our read position */
  uint64_t keep;         /* scratch for the reader: oldest position in use */
  unsigned char *scratch;
  size_t scratch_cap;
  uint64_t corrupt;      /* headers that made no sense */
};

/* base is the start of the mapping (the control page); data_size the size
 * of the data area when the page does not say (older kernels). */
void bpi_ring_init(struct bp_ring *r, void *base, uint64_t data_size);
void bpi_ring_cleanup(struct bp_ring *r);

/* Snapshot data_head (acquire).  Returns true when there is unread data. */
bool bpi_ring_begin(struct bp_ring *r);

/* The next whole record up to the snapshot: true with *rec and *len set, or
 * false when none is left (or memory for a wrapped copy ran out: then
 * *err is BPE_NOMEM).  The pointer is valid until the next call. */
bool bpi_ring_next(struct bp_ring *r, const void **rec, size_t *len,
                   bp_code *err);

/* Copy len bytes (at most the ring's size) from ring position pos,
 * wrapping around the data area's end. */
void bpi_ring_copy(const struct bp_ring *r, uint64_t pos, void *dst,
                   size_t len);

/* Publish our position (release) so the kernel can reuse the space. */
void bpi_ring_consume(struct bp_ring *r);
/* The same up to pos only (tail - pos bytes of records read by
 * bpi_ring_next stay in place and their pointers valid): for a reader that
 * delivers records later, straight from the ring.  Records that wrapped
 * were handed out in the scratch buffer and must be copied by then. */
void bpi_ring_consume_to(struct bp_ring *r, uint64_t pos);

#endif
