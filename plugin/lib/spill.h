/* spill: a perf ring's raw bytes moved to a temporary file while the
 * command runs, and read back as a ring after it exited.
 *
 * Why: reading records (parsing, ordering them across CPUs, interning
 * stacks, copying stack dumps) while the benchmark runs takes CPU the
 * benchmark may need.  Moving the bytes out of the ring is all that has to
 * happen then (the kernel needs the space back); the rest waits for the
 * command to exit, as `perf record` leaves it to `perf report`.
 *
 * Input: a bp_ring (ring.h) of a live event, whose unread bytes
 * bpi_spill_take() appends to the file in ring order and consumes.
 * Output: after the run, bpi_spill_reader() makes a bp_ring over the file,
 * mapped, so the same record reader serves both, and records are read
 * where they lie.  The file holds
 * whole records back to back (data_head only ever moves past whole
 * records).  Owns the file and the buffer.  Not thread-safe. */
#ifndef BP_LIB_SPILL_H
#define BP_LIB_SPILL_H

#include <stdbool.h>
#include <stdint.h>

#include "benchprof/benchprof.h"
#include "ring.h"

struct bp_spill {
  int fd;              /* -1 until the first byte is taken */
  const char *dir;     /* where the unnamed temporary file goes */
  uint64_t written;    /* bytes in the file */
  void *buf;           /* the reader's control page */
  void *map;           /* the file, mapped for reading back */
  uint64_t released;   /* bytes of the mapping given back */
};

/* dir: an existing directory for the file (not copied; must outlive sp). */
void bpi_spill_init(struct bp_spill *sp, const char *dir);
void bpi_spill_cleanup(struct bp_spill *sp);

/* Append the ring's unread bytes to the file and hand their space back to
 * the kernel.  BPE_IO with errno set when the file cannot take them all:
 * then neither changed (the file is cut back to where it was). */
bp_code bpi_spill_take(struct bp_spill *sp, struct bp_ring *r);

/* Make *r a ring reading the whole file back in place (mapped; its head
 * at the end, nothing wraps).  BPE_IO (errno set), BPE_NOMEM. */
bp_code bpi_spill_reader(struct bp_spill *sp, struct bp_ring *r);

/* Give back the pages of the mapping before the reader's published tail
 * (in steps, and at the end), so memory stays flat however long the file. */
void bpi_spill_release(struct bp_spill *sp, const struct bp_ring *r);

#endif
