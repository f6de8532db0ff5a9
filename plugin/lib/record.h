/* record: the whole recording path behind one small API, for the record
 * and run commands: encode the event, start the command under the
 * sampler (falling back to the software clock when the machine has no PMU
 * for the event), convert records as they arrive, then symbolize.
 *
 * Lifecycle: bpi_recorder_new() (the command is forked but waits),
 * bpi_recorder_run() (it runs; returns when it exited),
 * bpi_recorder_finish() (hands out the profile), bpi_recorder_free().
 * Owns the sampler, converter and symbolizer; the profile until finish. */
#ifndef BP_LIB_RECORD_H
#define BP_LIB_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "benchprof/benchprof.h"
#include "control.h"
#include "profile.h"
#include "sampler.h"
#include "symbols.h"
#include "unwind.h"

struct bp_recorder;

/* User stack copied per sample by default with dwarf and auto (perf's). */
#define BP_RECORD_STACK_BYTES 8192
/* the stack copy of --off-cpu's switch samples with the auto call graph */
#define BP_RECORD_SWITCH_STACK_BYTES 2048
#define BP_RECORD_MAX_STACK_BYTES 65528
/* The rings by default with dwarf and auto: together up to 64 MiB of
 * kernel memory, from 2 to 32 MiB per CPU (a power of two; halved while
 * the kernel's lock budget refuses it).  8 KiB stack copies at 997 Hz
 * fill about 8 MB a second: with 32 MiB rings (two CPUs) a 2 s benchmark
 * never wakes benchprof, so nothing of its records is moved while it runs. */
#define BP_RECORD_DWARF_RING_BUDGET (64u << 20)
#define BP_RECORD_DWARF_RING_MIN (2u << 20)
#define BP_RECORD_DWARF_RING_MAX (32u << 20)

struct bp_record_opts {
  const char *event;       /* libpfm4 event string */
  uint64_t freq;           /* Hz; 0 to sample every period events */
  uint64_t period;
  bool kernel;             /* kernel time too, where permitted (default:
                            * true; false: user space only) */
  bool kernel_explicit;    /* -k: try it whatever the permissions say
                            * (the kernel may refuse: kernel_dropped) */
  uint32_t ring_pages;     /* 0: default (larger with DWARF stacks) */
  enum bp_call_graph call_graph; /* fp, dwarf, auto or lbr */
  uint32_t stack_bytes;    /* user stack copied per sample; 0: 8192 */
  bool demangle;
  enum bp_lines lines;     /* which modules get file:line (symbols.h) */
  bool no_inline;          /* no frames for inlined calls */
  /* debuginfod servers asked for the debug files missing on the machine
   * (space-separated URLs); NULL: none is asked (symbols.h) */
  const char *debuginfod;
  const char *debuginfod_cache;  /* NULL: libdebuginfod's default */
  long debuginfod_timeout_ms;    /* all lookups together; 0: the default */
  char *const *argv;       /* the command */
  const char *counters;    /* events to count in the same run; NULL: none */
  bool counters_user_only; /* count user space only */
  /* see struct bp_sampler_opts: the command's stdout, teed */
  void (*on_output)(void *ctx, const char *data, size_t len);
  void *output_ctx;
  const sigset_t *sigmask; /* the command's; see struct bp_sampler_opts */
  /* Take benchmark markers from the command (control.h): the command gets
   * BENCHPROF_CONTROL, and the profile one marker per benchmark. */
  bool control;
  const char *tmpdir;      /* its FIFO and the spilled rings (TMPDIR);
                              NULL: /tmp, and the FIFO on a memory file
                              system when there is one (control.h) */
  const char *runtime_dir; /* the user's XDG_RUNTIME_DIR, or NULL */
  bool spill_disk_only;    /* no spilled ring bytes kept in memory
                              (record.spill_memory false, sampler.h) */
  bool whole_stacks;       /* spilled stack copies kept whole up to their
                              dyn_size (record.stack_tops false) */
  /* Off-CPU time too: every interval a thread spends switched out,
   * charged to its stack at switch-out (sampler.h, converter.h) */
  bool off_cpu;
  /* A symbolizer shared by the recordings of one run (bpi_record_symbols_new),
   * so that the symbol tables of binaries that did not change are read
   * once; NULL: the recorder makes its own.  Not freed by the recorder. */
  struct bp_symbols *symbols;
};

struct bp_record_info {
  const char *requested_event;
  const char *event;            /* libpfm4's name of the event used */
  const char *fallback_reason;  /* NULL when the requested event is used */
  const char *call_graph;       /* "fp", "dwarf", "auto" or "lbr", as used */
  const char *call_graph_fallback; /* why DWARF or LBR was not used, or NULL */
  bool precise_max;             /* :P: the highest precision accepted */
  struct bp_sampler_info sampler;
  bool kernel_sampled;          /* kernel time is in the samples */
  const char *kernel_reason;    /* when not: why */
  bool kernel_user_choice;      /* ... the user asked for user space only */
  const char *spill_dir;        /* where the rings went during the run */
  int spill_errno;              /* after run: why they were read live */
  bool off_cpu;                 /* off-CPU intervals are recorded */
  const char *off_cpu_stack_note; /* ... but not their stacks: why */
  struct bp_debuginfod_stats debuginfod;  /* after finish */
};

/* Whether this process may sample kernel code, decided as perf does:
 * CAP_PERFMON or CAP_SYS_ADMIN in its effective set, or
 * kernel.perf_event_paranoid at most 1.  why (NULL or len bytes) says
 * what refuses it. */
bool bpi_record_kernel_permitted(char *why, size_t len);

bp_code bpi_recorder_new(struct bp_recorder **out,
                         const struct bp_record_opts *o, struct bp_err *err);

/* A symbolizer for the recordings made with options like o, to share
 * through o->symbols (the caller frees it after the last recorder). */
bp_code bpi_record_symbols_new(const struct bp_record_opts *o,
                               struct bp_symbols **out);
void bpi_recorder_free(struct bp_recorder *r);
/* For a process that exits next (bpi_recorder_free()'s alternative):
 * only what the recording made on disk is removed (the control FIFOs'
 * directory); its memory, mappings and descriptors are left for the exit
 * to return at once, instead of one free() and munmap() at a time.
 * r is unusable after. */
void bpi_recorder_end(struct bp_recorder *r);

const struct bp_record_info *bpi_recorder_info(const struct bp_recorder *r);
pid_t bpi_recorder_pid(const struct bp_recorder *r);

/* Run the command to its end.  BPE_EXEC when it could not be started. */
bp_code bpi_recorder_run(struct bp_recorder *r, struct bp_err *err);

/* The command's status as a shell reports it: the exit code, or 128+N when
 * signal N killed it. */
int bpi_recorder_exit_status(const struct bp_recorder *r);

/* The counter totals (after run); NULL and 0 when none were asked for. */
const struct bp_counter *bpi_recorder_counters(const struct bp_recorder *r,
                                               size_t *n);

/* What the control FIFO saw (after run); NULL without control. */
const struct bp_control_stats *bpi_recorder_control_stats(
  const struct bp_recorder *r);

/* Symbolize and fill the metadata; *out is the caller's afterwards
 * (bpi_profile_free). */
bp_code bpi_recorder_finish(struct bp_recorder *r, struct bp_profile **out,
                            struct bp_err *err);

#endif
