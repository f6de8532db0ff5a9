/* profile: the model between recording and the exporters.
 *
 * Input: libraries, frames, stacks, threads and samples added by the
 * converter while records stream in.  Output: read-only tables for the
 * exporters (Gecko, pprof, folded, SVG, summary).
 *
 * Everything is interned and referred to by uint32_t index ("handle"):
 *   strings  -> p->strings (bpi_profile_str)
 *   libs     -> p->libs      a mapped file or [kernel.kallsyms]
 *   funcs    -> p->funcs     (name, file, lib); filled by symbolization
 *   frames   -> p->frames    (lib, module-relative address); func/line set
 *                            by symbolization, BP_NONE/0 before
 *   stacks   -> p->stacks    prefix tree: (parent stack, frame), root first:
 *                            a stack's frame is its innermost (leaf) frame
 *   threads  -> p->threads   one per tid seen
 * Samples are kept twice: aggregated per (thread, stack) in p->counts, which
 * grows with distinct stacks only, and as a timeline (time, stack, weight)
 * spilled to an unlinked temporary file, so memory does not grow with the
 * length of the run.
 *
 * Owns every table and string.  Not thread-safe.  Exporters take
 * `const struct bp_profile *` and must not modify it.
 */
#ifndef BP_LIB_PROFILE_H
#define BP_LIB_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "counters.h"
#include "hash.h"

struct bp_buf;

/* The library of user-space addresses in no mapping known (garbage that a
 * frame-pointer walk read, code whose mapping no record told of), and the
 * function all of them are, as perf has it: an address there names
 * nothing, and the same code is at another address in each run (ASLR). */
#define BP_UNMAPPED "[unknown]"
/* The function of every address in anonymous executable memory (JIT
 * code, memfd) that no perf-PID.map names, for the same reason. */
#define BP_ANON_CODE "[anon]"

enum bp_frame_kind {
  BP_FRAME_USER = 0,
  BP_FRAME_KERNEL = 1,
};

struct bp_lib {
  uint32_t name;      /* basename: "libc.so.6", "[kernel.kallsyms]" */
  uint32_t path;      /* full path as mapped */
  uint32_t build_id;  /* lowercase hex, "" when unknown */
  uint64_t lo, hi;    /* lowest and highest frame address seen (pprof) */
};

struct bp_func {
  uint32_t name;       /* demangled; "0x1a2b" when unresolved */
  uint32_t file;       /* source file, "" when unknown */
  uint32_t lib;
  uint32_t start_line; /* 0 when unknown */
  bool unresolved;     /* no symbol: name is the address in hex */
};

/* A frame is one function at one address.  Where the compiler inlined
 * calls at the address, the function the code belongs to is the frame
 * (lib, addr) and each inlined call is a frame of its own at the same
 * address, with inline_depth 1 (called by the outer function) ... N (the
 * innermost) and outer pointing at the real frame; stacks hold them all,
 * innermost as the leaf, so every artifact shows them as functions. */
struct bp_frame {
  uint32_t lib;
  uint64_t addr;   /* ELF virtual address inside lib (absolute for kernel) */
  uint32_t func;   /* BP_NONE until symbolized */
  uint32_t line;   /* 0 when unknown */
  uint8_t kind;    /* enum bp_frame_kind */
  uint8_t inline_depth; /* 0: the machine frame; see above */
  uint32_t outer;  /* an inlined call's machine frame; BP_NONE for those */
};

struct bp_stack {
  uint32_t parent;  /* BP_NONE for an outermost frame */
  uint32_t frame;
};

struct bp_thread {
  uint32_t pid, tid;
  uint32_t name;          /* comm of the thread */
  uint32_t process_name;  /* comm of the process (its main thread) */
  uint64_t start_ns;      /* CLOCK_MONOTONIC of the first record seen */
  uint64_t end_ns;        /* ... and of the last */
  uint64_t samples;
};

/* Samples aggregated by (thread, stack). */
struct bp_stack_count {
  uint32_t thread;
  uint32_t stack;
  uint64_t count;   /* number of samples */
  uint64_t weight;  /* sum of sample periods (ns of CPU for clock events) */
};

/* One sample of the timeline. */
struct bp_sample {
  uint32_t thread;
  uint32_t stack;   /* BP_NONE: no stack could be recorded */
  uint64_t time_ns; /* CLOCK_MONOTONIC */
  uint64_t weight;  /* the sample's period */
};

/* Off-CPU time (--off-cpu) aggregated by (thread, stack): the stack the
 * thread had when it was switched out. */
struct bp_off_count {
  uint32_t thread;
  uint32_t stack;      /* BP_NONE: no stack was recorded */
  uint64_t count;      /* intervals */
  uint64_t ns;         /* their total length */
  uint64_t preempt_ns; /* ... of it runnable but preempted (the rest: the
                        * thread blocked, a voluntary wait) */
};

/* One off-CPU interval of the timeline. */
struct bp_off_sample {
  uint32_t thread;
  uint32_t stack;
  uint64_t time_ns;    /* CLOCK_MONOTONIC when it was switched out */
  uint64_t dur_ns;     /* until it ran again */
  uint64_t preempted;  /* 1: preempted while runnable; 0: it blocked */
};

/* What a marker stands for.  Only benchmark markers make a benchmark's
 * profile (slice.h); a repetition marker spans one whole recording of
 * the command that a merged profile holds (profile_merge.h), so that
 * slicing the merged profile cuts at the benchmarks' markers, not at
 * the repetitions'. */
enum bp_marker_kind {
  BP_MARKER_BENCHMARK = 0,     /* a benchmark the harness marked */
  BP_MARKER_REPETITION         /* one repetition of benchprof run --repeat */
};

/* An interval of the run: one benchmark the harness marked (control.h),
 * or one repetition of the command in a merged profile. */
struct bp_marker {
  char *name;                  /* as the harness sent it: any bytes */
  enum bp_marker_kind kind;
  uint64_t start_ns, end_ns;   /* CLOCK_MONOTONIC, [start, end) */
  struct bp_counter *counters; /* deltas over the interval (owned) */
  size_t ncounters;
  uint32_t thread;             /* the track that shows it: the main thread
                                  of the process that ran it (a merged
                                  recording's); BP_NONE: the run's main
                                  thread, bpi_profile_main_thread */
};

/* Facts about the run, written into every artifact's metadata. */
struct bp_profile_meta {
  char *requested_event; /* what the user asked for */
  char *event;           /* the event really used (libpfm4's full name) */
  char *fallback_reason; /* NULL unless another event replaced the request */
  bool time_event;       /* periods are nanoseconds (cpu-clock, task-clock) */
  uint64_t freq;         /* sampling frequency in Hz, 0 when by period */
  uint64_t period;       /* sampling period when freq == 0 */
  /* precise_ip asked for and used (lowered while the PMU refused it);
   * precise_max: :P, the highest the PMU accepts, was asked for */
  unsigned precise_requested, precise_used;
  bool precise_max;
  char *call_graph;      /* "fp" */
  char *command;         /* the command line, shell-quoted */
  char *host;
  double start_epoch_ms; /* wall clock when the target started */
  uint64_t start_ns;     /* CLOCK_MONOTONIC when the target started */
  uint64_t end_ns;       /* ... and when it ended */
  /* A benchmark's slice (bpi_profile_slice_ranges) spans its first begin
   * to its last end, other benchmarks' and unmarked time between its
   * ranges included: its time is only its ranges', marked_ns (their
   * lengths summed, overlaps once).  bpi_profile_duration_ns. */
  bool sliced;
  uint64_t marked_ns;
  int exit_status;       /* as a shell reports it (128+N for signal N) */
  uint64_t samples;      /* samples recorded */
  uint64_t lost_records; /* PERF_RECORD_LOST total of lost samples */
  uint64_t lost_events;  /* number of PERF_RECORD_LOST records */
  uint64_t throttled;    /* PERF_RECORD_THROTTLE count */
  uint64_t corrupt_records; /* ring bytes or records that made no sense */
  uint64_t ring_bytes;   /* data bytes of each CPU's ring */
  uint64_t unresolved_frames; /* frames of sampled stacks without a
                               * symbol (0xADDR, fn_START) */
  double symbolize_ms;   /* time spent symbolizing */
  /* modules whose symbol tables were read for this profile, and those
   * reused from an earlier recording of the same run (symbols.h) */
  uint32_t symbol_tables_read, symbol_tables_reused;
  /* DWARF unwinding (--call-graph dwarf or auto) */
  uint32_t stack_bytes;       /* user stack copied per sample, 0: none */
  char *call_graph_fallback;  /* NULL unless DWARF data could not be used */
  double unwind_ms;           /* time spent unwinding after the run */
  uint64_t unwind_samples;    /* samples with a stack copy, unwound */
  uint64_t dwarf_samples;     /* ... whose stack came from DWARF */
  uint64_t unwind_truncated;  /* ran off the end of the stack copy */
  uint64_t spilled_bytes;     /* records moved to $TMPDIR during the run */
  uint64_t spill_trimmed_bytes; /* stack bytes left out: past dyn_size,
                                   or above their thread's top */
  uint64_t stack_tops_learned;  /* threads whose top was learned
                                   (stacktops.h) */
  uint64_t unwind_failed;     /* stopped early for another reason */
  struct bp_counter *counters; /* totals counted in the same run (owned) */
  size_t ncounters;
  /* Kernel time: sampled by default where permitted (record.h) */
  bool kernel_unsampled;      /* kernel time is in no sample: why */
  bool kernel_user_choice;    /* ... because the user asked (--all-user, :u) */
  char *kernel_reason;        /* ... (NULL when it is sampled) */
  double task_clock_ns;       /* the task-clock counter, 0 when unknown */
  /* Off-CPU time (--off-cpu): recorded at all; the stacks at switch-out
   * sampled (off_cpu_stack_note NULL), or else why not: each interval is
   * then charged to the thread's last on-CPU sample's stack */
  bool off_cpu;
  char *off_cpu_stack_note;
};

struct bp_profile {
  struct bp_profile_meta meta;
  struct bp_strtab strings;

  struct bp_lib *libs;
  uint32_t nlibs, libs_cap;
  struct bp_func *funcs;
  uint32_t nfuncs, funcs_cap;
  struct bp_frame *frames;
  uint32_t nframes, frames_cap;
  struct bp_stack *stacks;
  uint32_t nstacks, stacks_cap;
  struct bp_thread *threads;
  uint32_t nthreads, threads_cap;
  struct bp_stack_count *counts;
  uint32_t ncounts, counts_cap;

  /* interning indexes */
  struct bp_map lib_index;    /* (hash(path), hash(build id)) -> lib */
  struct bp_map func_index;   /* (name, lib<<32|file) -> func */
  struct bp_map frame_index;  /* (lib, addr|kind<<63) -> frame */
  struct bp_map stack_index;  /* (parent, frame) -> stack */
  struct bp_map thread_index; /* (pid, tid) -> thread */
  struct bp_map count_index;  /* (thread, stack) -> count */

  FILE *timeline;             /* spilled struct bp_sample records */
  uint64_t timeline_len;

  struct bp_off_count *off_counts;  /* profile_offcpu.c */
  uint32_t noff_counts, off_counts_cap;
  struct bp_map off_index;    /* (thread, stack) -> off_counts */
  FILE *off_timeline;         /* spilled struct bp_off_sample records */
  uint64_t off_timeline_len;

  struct bp_marker *markers;  /* in the order they began (merged: each
                                 recording's benchmark markers, then its
                                 repetition marker) */
  size_t nmarkers;
};

bp_code bpi_profile_new(struct bp_profile **out);
void bpi_profile_free(struct bp_profile *p);

/* Interning.  Each returns the index, or BP_NONE when memory ran out. */
uint32_t bpi_profile_string(struct bp_profile *p, const char *s);
uint32_t bpi_profile_lib(struct bp_profile *p, const char *path,
                         const char *build_id);
uint32_t bpi_profile_func(struct bp_profile *p, const char *name,
                          const char *file, uint32_t lib,
                          uint32_t start_line);
uint32_t bpi_profile_frame(struct bp_profile *p, uint32_t lib, uint64_t addr,
                           enum bp_frame_kind kind);
/* The inlined call at depth (1 ...) in the machine frame outer, calling
 * func at line; created once per (outer, depth). */
uint32_t bpi_profile_inline_frame(struct bp_profile *p, uint32_t outer,
                                  uint8_t depth, uint32_t func,
                                  uint32_t line);
uint32_t bpi_profile_stack(struct bp_profile *p, uint32_t parent,
                           uint32_t frame);
/* The thread (pid, tid), created on first use with name "" */
uint32_t bpi_profile_thread(struct bp_profile *p, uint32_t pid, uint32_t tid);

/* Keep a copy of the run's counter totals in the metadata. */
bp_code bpi_profile_set_counters(struct bp_profile *p,
                                 const struct bp_counter *c, size_t n);

/* Set a meta string field (copies s; NULL clears). */
bp_code bpi_profile_meta_set(char **field, const char *s);

/* Count one sample and append it to the timeline. */
bp_code bpi_profile_add_sample(struct bp_profile *p, uint32_t thread,
                               uint32_t stack, uint64_t time_ns,
                               uint64_t weight);

/* Add a benchmark marker (copies name and counters). */
bp_code bpi_profile_add_marker(struct bp_profile *p, const char *name,
                               uint64_t start_ns, uint64_t end_ns,
                               const struct bp_counter *c, size_t n);
/* The same for a marker of another kind. */
bp_code bpi_profile_add_marker_kind(struct bp_profile *p,
                                    enum bp_marker_kind kind,
                                    const char *name, uint64_t start_ns,
                                    uint64_t end_ns,
                                    const struct bp_counter *c, size_t n);
/* The run's main thread: the first thread of the first process seen
 * (the command's), which carries the run's markers; 0 when none is. */
uint32_t bpi_profile_main_thread(const struct bp_profile *p);

/* The thread whose track shows marker m (bpi_profile_main_thread unless
 * the marker names its own). */
uint32_t bpi_profile_marker_thread(const struct bp_profile *p,
                                   const struct bp_marker *m);

/* How many of p's markers are benchmark markers. */
size_t bpi_profile_benchmark_markers(const struct bp_profile *p);

/* How long the profile's time is: a slice's marked time (the sum of its
 * ranges), else end - start (0 when the end is not after the start).
 * Every artifact's duration is this. */
uint64_t bpi_profile_duration_ns(const struct bp_profile_meta *m);

/* A new profile with src's metadata but only the samples whose time is
 * in [t0, t1), its start and end set to t0 and t1, no markers and no
 * counters.  Its tables hold only what those samples (and off-CPU
 * intervals) use: libs, funcs, frames, stacks and strings get new handles
 * (a parent stack's still below its children's); threads keep theirs,
 * and all of them are there. */
bp_code bpi_profile_slice(const struct bp_profile *src, uint64_t t0,
                          uint64_t t1, struct bp_profile **out);

/* The same over several time ranges [start, end) (a benchmark the harness
 * ran more than once): the samples in any of them; start and end are the
 * first start and the last end, its duration (bpi_profile_duration_ns)
 * the ranges' lengths summed. */
struct bp_range {
  uint64_t start_ns, end_ns;
};
bp_code bpi_profile_slice_ranges(const struct bp_profile *src,
                                 const struct bp_range *ranges, size_t n,
                                 struct bp_profile **out);

/* The time of every sample of a timeline, read once, so that each of many
 * slices reads only its own samples (a suite's run is sliced once per
 * benchmark: scanning the whole timeline each time made it quadratic).
 * sorted false: the times go back somewhere, and slicing scans. */
struct bp_timeline_index {
  uint64_t *times;
  uint64_t n;
  bool sorted;
};
bp_code bpi_profile_timeline_index(const struct bp_profile *p,
                                   struct bp_timeline_index *ix);
void bpi_timeline_index_cleanup(struct bp_timeline_index *ix);
/* bpi_profile_slice_ranges through ix (p's index, or NULL: a scan) */
bp_code bpi_profile_slice_indexed(const struct bp_profile *src,
                                  const struct bp_range *ranges, size_t n,
                                  const struct bp_timeline_index *ix,
                                  struct bp_profile **out);

/* Whether t is in one of the n ranges, sorted and disjoint. */
bool bpi_profile_in_ranges(const struct bp_range *r, size_t n, uint64_t t);

/* Timeline reading: rewind, then next() until it returns false. */
bp_code bpi_profile_timeline_rewind(const struct bp_profile *p);
bool bpi_profile_timeline_next(const struct bp_profile *p,
                               struct bp_sample *out);
/* Up to max samples of the timeline at once; returns how many (0 at the
 * end). */
size_t bpi_profile_timeline_read(const struct bp_profile *p,
                                 struct bp_sample *out, size_t max);

/* Accessors. */
static inline const char *bpi_profile_str(const struct bp_profile *p,
                                          uint32_t id)
{
  return bpi_strtab_get(&p->strings, id);
}
/* Name of a frame's function, "" when not symbolized. */
const char *bpi_profile_frame_name(const struct bp_profile *p, uint32_t frame);
/* The label folded stacks, flame graphs and pprof show for a frame: the
 * function name, or, without a symbol, the unresolved function's name and
 * the library: "0x1a2b (in libfoo.so)", "fn_1a00 (in libfoo.so)" (the
 * unwind-table range of stripped code); BP_UNMAPPED or BP_ANON_CODE alone
 * for an address in no mapping or in anonymous memory.  Returns a pointer into buf or into the profile. */
const char *bpi_profile_frame_label(const struct bp_profile *p,
                                    uint32_t frame, char *buf, size_t len);
/* Basename of a frame's library. */
const char *bpi_profile_frame_lib(const struct bp_profile *p, uint32_t frame);
/* Append name to b made safe for line- and field-based formats: invalid
 * UTF-8 becomes U+FFFD, control characters (newlines included) a space and,
 * when sep is not '\0', each sep a ':'.  The exporters all clean names this
 * way so folded stacks, flame graph, pprof and Gecko show the same text. */
void bpi_profile_clean_name(struct bp_buf *b, const char *name, char sep);
/* The library of the profiled program itself: the one whose file name the
 * first process's name (its comm, at most 15 characters) was taken from.
 * BP_NONE when no library matches. */
uint32_t bpi_profile_main_lib(const struct bp_profile *p);
/* Number of frames in a stack (its depth). */
uint32_t bpi_profile_stack_depth(const struct bp_profile *p, uint32_t stack);
/* The depth of the deepest stack that has samples. */
uint32_t bpi_profile_max_depth(const struct bp_profile *p);

/* Distinct frames of the stacks that have samples whose function has no
 * symbol (shown as an address or an unwind-table range): what
 * meta.unresolved_frames reports, so it matches what the artifacts show
 * (frames only in chains that were replaced, say, count nowhere). */
uint64_t bpi_profile_unresolved_frames(const struct bp_profile *p);

/* Nanoseconds of CPU the samples stand for (time events only: the sum
 * of their periods). */
uint64_t bpi_profile_sampled_ns(const struct bp_profile *p);
/* The percentage of task-clock no sample stands for: kernel time when it
 * was not sampled.  -1 when unknown (no task-clock counted, or not a
 * time event). */
double bpi_profile_unsampled_pct(const struct bp_profile *p);
/* One line for people, "" when kernel time was sampled: "kernel time not
 * sampled (WHY): 76.9% of task-clock is in no sample". */
void bpi_profile_unsampled_note(const struct bp_profile *p, char *buf,
                                size_t len);

/* Off-CPU time (profile_offcpu.c).  Add one interval: counted per
 * (thread, stack) and appended to the off-CPU timeline. */
bp_code bpi_profile_add_off(struct bp_profile *p, uint32_t thread,
                            uint32_t stack, uint64_t time_ns, uint64_t dur_ns,
                            bool preempted);
/* Off-CPU timeline reading: rewind, then next() until it returns false. */
bp_code bpi_profile_off_rewind(const struct bp_profile *p);
bool bpi_profile_off_next(const struct bp_profile *p,
                          struct bp_off_sample *out);
/* Total off-CPU ns, and of it preempted (preempt_ns may be NULL). */
uint64_t bpi_profile_off_ns(const struct bp_profile *p, uint64_t *preempt_ns);
/* On-CPU (sample periods of a time event, else 0) and off-CPU ns of
 * every thread: on_ns[t] and off_ns[t], both of p->nthreads entries. */
void bpi_profile_thread_times(const struct bp_profile *p, uint64_t *on_ns,
                              uint64_t *off_ns);
/* The off-CPU intervals of src (a profile whose threads d shares), each
 * cut to its overlap with the n sorted, disjoint ranges (only that part
 * counts; none when it overlaps none), its stack d's handle for it
 * (stack_of(ctx, src's, &d's), which may add it to d). */
bp_code bpi_profile_off_copy(struct bp_profile *d, const struct bp_profile *s,
                             const struct bp_range *r, size_t n,
                             bp_code (*stack_of)(void *ctx, uint32_t old,
                                                 uint32_t *out),
                             void *ctx);
/* The ns p's threads spent blocked (not preempted) within the n sorted,
 * disjoint ranges. */
uint64_t bpi_profile_off_blocked_in(const struct bp_profile *p,
                                    const struct bp_range *r, size_t n);
/* The max largest waits (by ns), sorted, into out; returns how many.
 * Counts whose thread and frame names (labels) are the same add up into
 * one, the stack of the first of them kept: the folded file and the
 * flame graph merge them by text too, and calls of one function from
 * several places in its caller (a loop unrolled) are several stacks of
 * the model. */
size_t bpi_profile_off_top(const struct bp_profile *p,
                           struct bp_off_count *out, size_t max);

/* Functions ranked by self samples (the leaf frame's function), totals
 * from p->counts. */
struct bp_func_share {
  uint32_t func;
  uint64_t self;   /* samples with this function as leaf */
  uint64_t total;  /* samples with this function anywhere on the stack */
};
/* Fills up to max entries sorted by self descending; returns how many.
 * *total_samples receives the sum of all counts. */
size_t bpi_profile_top_funcs(const struct bp_profile *p,
                             struct bp_func_share *out, size_t max,
                             uint64_t *total_samples);

#endif
