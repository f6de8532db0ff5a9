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
 * Output: after the run, bpi_spill_reader() makes a bp_ring over a
 * buffer of our own that bpi_spill_refill() fills from the file as the
 * reader consumes it (the default: on a virtual machine that costs less
 * CPU than a mapping, bpi_spill_init), or, with no_map cleared, over the
 * file mapped whole (records read where they lie; bpi_spill_refill()
 * gives the pages behind the reader back, so the file never becomes our
 * memory, and makes sure those ahead of it can be read, so that a disk
 * error is an error and not a SIGBUS).  The
 * same record reader serves both.  The file holds
 * whole records back to back (data_head only ever moves past whole
 * records).
 *
 * With a layout (bpi_spill_trim_stacks), a sample's user stack copy is
 * written only up to its dyn_size, the bytes the kernel really copied:
 * the record keeps its form (size field = the bytes kept, rounded up to 8,
 * then dyn_size) with its header's size lowered to match, so the reader
 * and the unwinder see what they saw before, less the bytes nobody reads.
 * A main thread's copy stops where its stack mapping ends, often a third
 * short of 8 KiB; those bytes no longer pass through the page cache while
 * the benchmark runs, nor fill $TMPDIR.  Records that wrap around the end
 * of the ring are written as they are.  With stack tops (stacktops.h) a
 * copy is cut further, to the part its thread's unwinding reads.
 *
 * Memory first (bpi_spill_use_memory): the file's first bytes go to an
 * unnamed file in memory (memfd) while a budget shared by the rings'
 * files lasts, the rest to $TMPDIR.  Why: a file on disk that large is
 * written out while the command runs (the kernel's writeback, its
 * proactive reclaim on some machines), read back from the disk after it,
 * and its freed blocks discarded; at a million samples with stack copies
 * waiting for that was more than half of the time from the command's exit
 * to the artifacts.  Memory is taken only up to the budget (a quarter of
 * what the kernel reports available when the first bytes are spilled,
 * struct bp_spill_memory), so a long run still ends up on the disk
 * rather than out of memory.  Readers see one file either way.
 *
 * Owns the files and the buffers.  Not thread-safe. */
#ifndef BP_LIB_SPILL_H
#define BP_LIB_SPILL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "benchprof/benchprof.h"
#include "records.h"
#include "ring.h"

struct spill_batch;
struct bp_stack_tops;
struct bp_spill_freer;

/* The bytes the files of one recording may still keep in memory.  The
 * budget shrinks while the run goes on if the machine's available memory
 * does: every check_every bytes taken (0: BP_SPILL_MEMORY_CHECK) the files
 * may hold at most a quarter of what is available plus what they hold,
 * so a benchmark that needs its memory later gets it (memory taken is
 * never given back during the run, but no more is taken). */
#define BP_SPILL_MEMORY_CHECK (64u << 20)
struct bp_spill_memory {
  /* true: left is a quarter of MemAvailable, read when the first bytes
   * are spilled (a command that spills nothing never reads it) */
  bool unsized;
  uint64_t left;
  uint64_t taken;         /* in memory now, all files */
  uint64_t unchecked;     /* taken since the last check */
  uint64_t check_every;
  /* MemAvailable in bytes now (NULL: /proc/meminfo's; 0: unknown) */
  uint64_t (*available)(void);
};

struct bp_spill {
  int fd;              /* on disk: -1 until the first byte goes there */
  const char *dir;     /* where the unnamed temporary file goes */
  int mem_fd;          /* in memory: -1 until the first byte goes there */
  uint64_t mem_len;    /* the file's first bytes, those in mem_fd; the
                          rest is in fd from its offset 0 */
  bool mem_done;       /* no more bytes go to memory */
  struct bp_spill_memory *memory;  /* the budget, or NULL: disk only */
  uint64_t written;    /* bytes in the file (both parts) */
  uint64_t read;       /* bytes moved back into the reader's buffer */
  uint64_t filled;     /* the reader's position up to which bytes are in;
                          data_head stops at the last whole record */
  void *buf;           /* the reader's control page and data area */
  void *map;           /* or, reading it mapped, the file */
  uint64_t released;   /* bytes of the mapping given back */
  uint64_t page;       /* the page size, for giving them back */
  uint64_t checked;    /* bytes of the mapping known to be readable */
  uint64_t faulted;    /* ... of them read back from the disk to be so */
  bool populate;       /* the kernel has MADV_POPULATE_READ */
  bool no_cachestat;   /* ask mincore() what is in memory, not cachestat(2)
                          (the kernel has none; tests set it) */
  bool no_map;         /* read through buf even where mapping works: the
                          default (bpi_spill_init says why); false: map */
  const struct bp_rec_layout *trim;  /* set: trim stack copies (above) */
  struct bp_stack_tops *tops;        /* set: trim them to their tops */
  uint64_t trimmed;    /* stack bytes left out of the file */
  struct spill_batch *batch;         /* the writes of one take */
  struct bp_spill_freer *freer;      /* set: frees what was read */
  uint32_t freer_slot;               /* this file's number there */
  uint64_t freed;                    /* bytes handed to the freer */
};

/* After the run, reading the files back: a helper process that holds a
 * copy of their descriptors and punches out (FALLOC_FL_PUNCH_HOLE) what
 * the readers are done with, then closes its copies once they closed
 * theirs, while benchprof unwinds and writes the artifacts on another CPU.
 * Why: the files' page cache is freed when their last descriptor closes,
 * and for hundreds of megabytes of stack copies that was close to half of
 * the time from the command's exit to the artifacts.  A process and not a
 * thread: creating a thread makes glibc take over a signal of its own,
 * which commands started later would no longer inherit as the user left
 * it.  Forked while benchprof's heap is still small (before the rings
 * are read), so the parent's copy-on-write faults stay few.  pid -1: no
 * helper (no fork, or no files), the readers' own close frees it all. */
struct bp_spill_freer {
  pid_t pid;
  int wr;   /* socket to it: struct freer_msg, see spill.c */
};

/* Start the helper for the n files of sps (those with bytes), and make
 * their readers tell it what they are done with.  false: no helper. */
bool bpi_spill_freer_start(struct bp_spill_freer *f, struct bp_spill *sps,
                           uint32_t n);

/* Call after bpi_spill_cleanup() of every file it serves: the helper
 * closes its copies (freeing what is left) and is waited for, so that
 * none of that work goes on after benchprof returns. */
void bpi_spill_freer_finish(struct bp_spill_freer *f);

/* dir: an existing directory for the file (not copied; must outlive sp). */
void bpi_spill_init(struct bp_spill *sp, const char *dir);
void bpi_spill_cleanup(struct bp_spill *sp);

/* Keep the file's first bytes in memory while m (shared by the files of
 * one recording, not copied; must outlive sp) has room for them. */
void bpi_spill_use_memory(struct bp_spill *sp, struct bp_spill_memory *m);

/* The kernel's MemAvailable in bytes (0 when it cannot be read). */
uint64_t bpi_spill_mem_available(void);

/* Leave the bytes of stack copies past dyn_size out of the file; lay: the
 * events' layout (not copied; must outlive sp). */
void bpi_spill_trim_stacks(struct bp_spill *sp,
                           const struct bp_rec_layout *lay);
/* With stack tops as well (stacktops.h, shared by the files of one
 * recording, not owned; must outlive the writing): each copy is kept only
 * up to its thread's top, and the record's dyn_size lowered to match.
 * Needs bpi_spill_trim_stacks. */
void bpi_spill_use_tops(struct bp_spill *sp, struct bp_stack_tops *tops);

/* Append the ring's unread bytes to the file and hand their space back to
 * the kernel, a megabyte at a time.  BPE_IO with errno set when the file
 * cannot take them all: then what was written is kept and its space
 * handed back, and the rest stays in the ring (the file is cut back to the
 * end of the last whole write, a record boundary). */
bp_code bpi_spill_take(struct bp_spill *sp, struct bp_ring *r);

/* Make *r a ring reading the file back: mapped, or (no_map, or a file
 * that cannot be mapped) through a data area of size bytes (a power of
 * two, at least the largest record: 64 KiB).  BPE_NOMEM. */
bp_code bpi_spill_reader(struct bp_spill *sp, struct bp_ring *r,
                         uint64_t size);

/* Move as much of the file as fits into the reader's free space (mapped:
 * give back the pages read past).  *more: whether the file still has
 * bytes that did not fit.  BPE_IO (errno set) when the file cannot be
 * read. */
bp_code bpi_spill_refill(struct bp_spill *sp, struct bp_ring *r, bool *more);

#endif
