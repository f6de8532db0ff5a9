/* sampler: runs the command under sampling perf events and streams the
 * records out of the rings in time order.  The only perf_event_open and
 * mmap user of the recording path.
 *
 * Lifecycle: bpi_sampler_new() forks the command, which waits on a pipe;
 * bpi_sampler_open() opens one inherited sampling event per online CPU on
 * it (each with its own ring) and may be called again with another event
 * after a failure (the software-clock fallback); bpi_sampler_start()
 * releases the command, which execs (the events are enabled on exec, so
 * benchprof's own work is not sampled); bpi_sampler_run() drains the rings
 * until the command exits (into spill files, when asked to) and hands
 * every record to a callback, ordered by time across CPUs.  Owns the child, the event fds and the rings.
 * Not thread-safe. */
#ifndef BP_LIB_SAMPLER_H
#define BP_LIB_SAMPLER_H

#include <linux/perf_event.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "benchprof/benchprof.h"
#include "records.h"

struct bp_sampler;

struct bp_sampler_opts {
  char *const *argv;    /* command and arguments; argv[0] looked up in PATH */
  uint32_t ring_pages;  /* data pages per CPU ring, a power of two; 0: 512 */
  /* With on_output, the command's stdout is a pipe: everything it writes
   * is copied to our stdout unchanged and also handed to on_output (the
   * harness's results, for the report).  After the command exited, what
   * processes it left behind still write is copied until the pipe closes
   * (at most 10 s), but not handed to on_output. */
  void (*on_output)(void *ctx, const char *data, size_t len);
  void *output_ctx;
  /* "NAME=value" added to the command's environment (replacing NAME), or
   * NULL; benchprof's own environment is not changed. */
  const char *env_add;
  /* Another fd to watch while the command runs (or -1): on_input is
   * called when it is readable, and once more after the command exited.
   * The control FIFO (control.c) uses it. */
  int input_fd;
  void (*on_input)(void *ctx);
  void *input_ctx;
  /* The signal mask the command starts with, or NULL: the caller's when
   * it calls bpi_sampler_new.  The fork itself is made with every signal
   * blocked, and the child unblocks only once its handlers are back to
   * the defaults, so a signal that reaches it first acts as on the
   * command.  A caller that passes signals on blocks them until it knows
   * the command's pid (a signal meanwhile is then passed on, not lost),
   * and gives here the mask it had before. */
  const sigset_t *sigmask;
  /* A directory for temporary files, or NULL.  With one, the rings are
   * only moved to unnamed files there while the command runs and their
   * records handed to the callback once it exited (spill.h): the least
   * CPU taken from the benchmark while it runs.  If a file cannot take
   * more (a full disk), what it holds is handed out then and the rest is
   * read live (bpi_sampler_spill_errno() says why). */
  const char *spill_dir;
  /* The files' first bytes are kept in memory, up to a quarter of what
   * the kernel reports available (spill.h), unless this is set: all of
   * them go to spill_dir. */
  bool spill_disk_only;
  /* Stack copies are spilled only up to the part their thread's
   * unwinding reads (stacktops.h), unless this is set: then up to their
   * dyn_size. */
  bool whole_stacks;
};

struct bp_sample_cfg {
  struct perf_event_attr attr; /* the encoded event (type, config, exclude_*) */
  uint64_t freq;               /* samples per second, or 0 to use period */
  uint64_t period;             /* events per sample when freq is 0 */
  bool kernel_callchain;       /* also record kernel frames */
  /* DWARF unwinding: user registers (sample_regs_user mask) and bytes of
   * user stack per sample (a multiple of 8, at most 65528); 0: none */
  uint64_t regs_user;
  uint32_t stack_user;
  /* Intel LBR call stacks: the PMU records user-space calls and returns
   * (PERF_SAMPLE_BRANCH_STACK, branch_sample_type CALL_STACK | USER) */
  bool lbr;
  /* Off-CPU intervals: context-switch records (attr.context_switch) and,
   * for the stack at switch-out, the software context-switches event
   * sampled every switch with the same call graph, into the same rings;
   * every sample then carries PERF_SAMPLE_IDENTIFIER
   * (bpi_sampler_switch_ids() tells the two apart) */
  bool off_cpu;
  /* off_cpu with stack copies: bytes of user stack in the switch samples
   * when fewer than stack_user (0: stack_user).  A copy per switch is
   * most of what --off-cpu costs the kernel; at switch-out a thread is
   * in a system call, and with the auto call graph a copy too short for
   * its whole stack falls back to the frame-pointer chain */
  uint32_t switch_stack_user;
};

/* What bpi_sampler_open() really did. */
struct bp_sampler_info {
  uint64_t freq;            /* after clamping to perf_event_max_sample_rate */
  uint64_t max_sample_rate; /* the kernel's limit when it was read */
  bool freq_clamped;
  bool kernel_dropped;      /* kernel frames refused (paranoid): user only */
  bool build_id_dropped;    /* kernel too old for build ids in MMAP2 */
  bool stack_dropped;       /* the kernel refused user registers/stack */
  int stack_errno;          /* ... with this errno */
  /* precise_ip (skid) asked for and used: lowered one step at a time
   * while the PMU refused it, as perf does; precise_errno: its answer */
  unsigned precise_requested, precise_used;
  int precise_errno;
  uint32_t ncpus;
  uint32_t ring_pages;
  /* what was asked for: ring_pages is less when the kernel refused the
   * rings as over the locked-memory limit (EPERM), halved until it
   * accepted them */
  uint32_t ring_pages_asked;
  /* off_cpu: the switch-out stacks are sampled; when not (the kernel
   * refused the context-switches event: it samples in kernel mode, which
   * perf_event_paranoid 2 forbids), off_cpu_errno says why and only the
   * context-switch records come */
  bool off_cpu_stacks;
  int off_cpu_errno;
};

/* Record callback: return BP_OK to go on.  An error stops delivering
 * records, but the command still runs to its end and is reaped. */
typedef bp_code (*bp_record_fn)(void *ctx, const void *rec, size_t len);

bp_code bpi_sampler_new(struct bp_sampler **out,
                        const struct bp_sampler_opts *o, struct bp_err *err);
/* Kills a command that never started; reaps it in every case. */
void bpi_sampler_free(struct bp_sampler *s);

/* Open the sampling events.  BPE_NO_PMU when the machine has no usable PMU
 * for this event (the caller may fall back and call again), BPE_PERM when
 * perf_event_paranoid forbids it, BPE_EVENT_OPEN otherwise. */
bp_code bpi_sampler_open(struct bp_sampler *s, const struct bp_sample_cfg *c,
                         struct bp_sampler_info *info, struct bp_err *err);

/* How to parse the records of the opened events. */
const struct bp_rec_layout *bpi_sampler_layout(const struct bp_sampler *s);

/* The sample ids (PERF_SAMPLE_IDENTIFIER) of the context-switches events
 * (off_cpu with stacks), one per CPU; *n is 0 when none. */
const uint64_t *bpi_sampler_switch_ids(const struct bp_sampler *s,
                                       size_t *n);

/* Release the command.  BPE_EXEC (err says why, sys_errno set) when it
 * could not be executed; it has then been reaped. */
bp_code bpi_sampler_start(struct bp_sampler *s, struct bp_err *err);

/* Drain until the command exits, then drain the rest. */
bp_code bpi_sampler_run(struct bp_sampler *s, bp_record_fn fn, void *ctx,
                        struct bp_err *err);

pid_t bpi_sampler_pid(const struct bp_sampler *s);
/* Wait status of the command (valid after run, or a failed start). */
int bpi_sampler_wait_status(const struct bp_sampler *s);
/* CLOCK_MONOTONIC ns and wall-clock ms when the command was released,
 * and CLOCK_MONOTONIC ns when it was reaped. */
uint64_t bpi_sampler_start_ns(const struct bp_sampler *s);
double bpi_sampler_start_epoch_ms(const struct bp_sampler *s);
uint64_t bpi_sampler_end_ns(const struct bp_sampler *s);
/* Bytes the spill files held (spill.h), and *trimmed: the bytes of stack
 * copies past their dyn_size that were left out of them. */
uint64_t bpi_sampler_spilled(const struct bp_sampler *s, uint64_t *trimmed);

/* Bytes of the spill files the helper freed while they were read back
 * (spill.h, bp_spill_freer); the rest was freed when they were closed. */
uint64_t bpi_sampler_spill_freed(const struct bp_sampler *s);
/* Threads whose stack top the spills learned (stacktops.h), once the
 * command exited. */
uint64_t bpi_sampler_stack_tops_learned(const struct bp_sampler *s);

/* Records with a header that made no sense (ring corruption). */
uint64_t bpi_sampler_corrupt(const struct bp_sampler *s);
/* Why records were read live after all with a spill_dir (an errno), or 0
 * when they were not. */
int bpi_sampler_spill_errno(const struct bp_sampler *s);

/* The most bytes of records queued at once, waiting to be handed out in
 * time order (the memory reading them back takes besides the rings). */
uint64_t bpi_sampler_queue_peak(const struct bp_sampler *s);

/* Online CPUs, from /sys/devices/system/cpu/online. */
bp_code bpi_sampler_online_cpus(int **cpus, uint32_t *n);

/* The wake-up watermark of a ring of ring_bytes for samples with
 * stack_bytes of stack copy (0: none) at freq Hz (0: a fixed period);
 * sampler.c says why. */
uint32_t bpi_sampler_watermark(uint32_t ring_bytes, uint32_t stack_bytes,
                               uint64_t freq);

#endif
