/* parallel: a loop over n independent items on a few worker threads.
 * Input: the item count, the work for one item and its context.  Output:
 * BP_OK, or the error of the lowest-numbered item that failed (what the
 * same loop run in order would have returned).  Owns nothing; threads
 * are made and joined within the call.
 *
 * The work for item i must touch only what belongs to item i (its slot
 * in an array the caller made beforehand) and shared data it only
 * reads.  After an item fails no new item starts, as a sequential loop
 * would stop; items already running finish. */
#ifndef BP_LIB_PARALLEL_H
#define BP_LIB_PARALLEL_H

#include "benchprof/benchprof.h"

#include <stddef.h>

typedef bp_code (*bp_item_fn)(void *ctx, size_t i, struct bp_err *err);

/* Below this many small items (a benchmark's files, its comparison) a
 * loop stays on the calling thread: threads cost more than the work. */
#define BP_PARALLEL_MIN_ITEMS 64

/* Workers for n items: the online CPUs, at most 8, and 1 below
 * min_items (a thread costs more than a few small items); what
 * bpi_parallel_set_workers said instead, when it did. */
unsigned bpi_parallel_workers(size_t n, size_t min_items);

/* How many workers every later loop uses, 1..64 (the command's
 * BENCHPROF_THREADS: tests compare a pool's result with one thread's);
 * 0 goes back to the default.  Process-wide; call it before any loop. */
void bpi_parallel_set_workers(unsigned n);

/* fn(ctx, i, err) for every i in [0, n), on `workers` threads (the
 * calling one among them); workers <= 1 runs them in order here. */
bp_code bpi_parallel_for(size_t n, unsigned workers, bp_item_fn fn,
                         void *ctx, struct bp_err *err);

#endif
