/* sampler's internals, shared by its three files and nothing else:
 * sampler.c (the command: fork/exec handshake, its output, the poll loop
 * until it exits), sampler_open.c (the events: attributes, fallbacks,
 * one ring per CPU and their spill files) and sampler_queue.c (the
 * time-ordered queue: records read from the rings or spill files, merged
 * across CPUs and handed out in time order). */
#ifndef BP_LIB_SAMPLER_INT_H
#define BP_LIB_SAMPLER_INT_H

#include "sampler.h"
#include "ring.h"
#include "spill.h"
#include "stacktops.h"

#include <poll.h>
#include <time.h>

/* Data area of a ring reading a spill file back: many records per
 * refill, and more than the largest record (64 KiB). */
#define SPILL_READER_BYTES (1024 * 1024)

/* One record read from a ring, waiting to be delivered in time order.  It
 * stays where the kernel wrote it (the ring's tail is only published past
 * records already delivered), unless it wrapped around the ring's end:
 * then it is copied to the arena. */
struct queued {
  uint64_t time;
  uint64_t seq;   /* arrival order, so equal times keep their order */
  const unsigned char *ptr;  /* in the ring; NULL: at off in the arena */
  size_t off;
  size_t len;
  uint64_t pos;   /* the ring position it starts at */
  uint32_t ring;
};

struct bp_sampler {
  pid_t pid;
  int go_fd;        /* write end: releases the waiting child */
  int exec_err_fd;  /* read end: errno from a failed exec, EOF on success */
  int pidfd;        /* -1 when pidfd_open is not available */
  int out_fd;       /* read end of the command's stdout, or -1 */
  void (*on_output)(void *ctx, const char *data, size_t len);
  void *output_ctx;
  int input_fd;     /* see bp_sampler_opts; -1 when none */
  void (*on_input)(void *ctx);
  void *input_ctx;
  bool started, reaped;
  bool status_lost;   /* reaped by the kernel: no exit status */
  bool stdout_broken; /* our stdout is gone: keep reading, stop copying */
  int wait_status;
  uint64_t start_ns, end_ns;
  double start_epoch_ms;

  int *cpus;
  uint32_t ncpus;
  int *fds;          /* one event per CPU */
  int *switch_fds;   /* off-CPU: context-switches, per CPU, into fds' ring */
  uint64_t *switch_ids;
  uint32_t nswitch;
  void **maps;
  size_t map_len;
  struct bp_ring *rings;
  uint32_t ring_pages;
  struct bp_rec_layout layout;

  struct queued *queue;
  size_t nqueue, queue_cap;
  uint64_t queued_bytes, queue_peak;  /* records' bytes in the queue */
  struct queued *sort_tmp;  /* queue_cap entries, for merging */
  size_t sort_cap;
  unsigned char *arena;
  size_t arena_len, arena_cap;
  uint64_t seq;
  uint64_t corrupt;
  uint64_t spilled, spill_trimmed;  /* bytes in the spill files; stack
                                       bytes left out of them */
  uint64_t spill_freed;  /* ... of them freed by the helper as read */
  bool rings_behind;  /* the last round left records in a ring */

  /* Deferred reading (spill.h): while the command runs, rings are only
   * moved to files; records are read back from them once it exited.
   * active is what read_rings() reads: the live rings (ncpus of them),
   * or, replaying, the readers (2 * ncpus, n_active()): one over each
   * spill file, then the live rings themselves, moved in for the replay
   * (what was left in a ring is newer than anything in its file, and is
   * read where the kernel wrote it instead of being written out and read
   * back). */
  struct bp_ring *active;
  struct bp_spill *spills;      /* one per ring, or NULL: read live */
  struct bp_ring *readers;      /* see active, while replaying */
  bool *reader_more;            /* its file has bytes not in the reader */
  uint64_t *reader_last;        /* time of the last record read from it */
  bool replaying;
  int spill_errno;              /* why spilling stopped early, or 0 */
  const char *spill_dir;        /* bp_sampler_opts.spill_dir */
  bool spill_disk_only;         /* bp_sampler_opts.spill_disk_only */
  bool whole_stacks;            /* bp_sampler_opts.whole_stacks */
  struct bp_stack_tops *tops;   /* the spills' stack tops, or NULL */
  struct bp_stack_tops_stats tops_stats;  /* theirs, once freed */
  struct bp_spill_freer freer;  /* frees the files as they are read */
  struct bp_spill_memory spill_memory;  /* what they may keep in memory */
};

/* The clock's time in ns. */
uint64_t bpi_sampler_now_ns(clockid_t clk);

/* Close the events, unmap their rings and drop the spill files
 * (sampler_open.c). */
void bpi_sampler_close_events(struct bp_sampler *s);
/* Drop the spills' stack tops, keeping their counts (sampler_open.c):
 * once nothing more is spilled, their unwinder's files and memory go. */
void bpi_sampler_free_tops(struct bp_sampler *s);
/* Drop the spill files and their readers (sampler_open.c). */
void bpi_sampler_free_spills(struct bp_sampler *s);

/* While the command runs: move the bytes of the rings that woke us (pfd,
 * one per ring) to the spill files, or without them read the records now.
 * final: the command exited; read everything (sampler_queue.c). */
void bpi_sampler_drain(struct bp_sampler *s, const struct pollfd *pfd,
                       bool final, bp_record_fn fn, void *ctx, bp_code *rc,
                       bp_code *cb_rc, struct bp_err *err);

#endif
