/* unwind: DWARF call-frame unwinding of sampled user stacks (libdwfl).
 *
 * Input: a process's file mappings (reported once per process, at their
 * runtime addresses) and, per sample, the user registers and the copy of
 * the top of the user stack that PERF_SAMPLE_REGS_USER and
 * PERF_SAMPLE_STACK_USER carried.  Output: the sample's program counters,
 * leaf first, each return address already moved back into its call.
 * CFI comes from .eh_frame and .debug_frame; libdwfl caches it per module,
 * and one Dwfl is kept per process (up to a bound) for all its samples.
 * A fast path compiles the usual rows of x86-64 CFI (CFA = rsp/rbp + N,
 * return address and rbp saved at CFA + k) once per address range and
 * walks the stack copy itself; a sample that meets anything else (CFA
 * expressions, signal frames, code without CFI) goes through libdwfl.
 * Owns the Dwfl handles.  x86-64 only for now.  Not thread-safe. */
#ifndef BP_LIB_UNWIND_H
#define BP_LIB_UNWIND_H

#include <stdbool.h>
#include <stdint.h>

#include "benchprof/benchprof.h"

/* How stacks are recorded (--call-graph). */
enum bp_call_graph {
  BP_CALL_GRAPH_AUTO = 0, /* both; per sample the better chain (converter.h) */
  BP_CALL_GRAPH_FP,       /* the kernel's frame-pointer callchain */
  BP_CALL_GRAPH_DWARF,    /* registers + stack copy, unwound after the run */
  BP_CALL_GRAPH_LBR,      /* Intel LBR call stacks, user space (records.h) */
};

/* The registers to sample for unwinding (sample_regs_user), 0 when this
 * architecture is not supported. */
uint64_t bpi_unwind_regs_mask(void);

struct bp_unwind;

/* A file mapped executable in a process. bias: runtime address minus the
 * ELF virtual address. */
struct bp_unwind_module {
  uint64_t start, end;
  uint64_t bias;
  const char *path;
};

struct bp_unwind_sample {
  uint32_t pid, tid;
  uint64_t regs_mask;         /* the layout's sample_regs_user */
  const uint64_t *regs;       /* in mask bit order */
  uint32_t nregs;
  const unsigned char *stack; /* copy of [sp, sp + stack_len) */
  uint64_t stack_len;
};

enum bp_unwind_status {
  BP_UNWIND_COMPLETE = 0, /* reached the outermost frame */
  BP_UNWIND_TRUNCATED,    /* ran off the end of the stack copy */
  BP_UNWIND_FAILED,       /* stopped for another reason (no CFI, ...) */
};

bp_code bpi_unwind_new(struct bp_unwind **out);
void bpi_unwind_free(struct bp_unwind *u);

/* Whether pid's modules were reported already. */
bool bpi_unwind_has_proc(struct bp_unwind *u, uint32_t pid);

/* Report pid's mappings (before its first sample).  Files that cannot be
 * read are left out: their frames end the unwinding. */
bp_code bpi_unwind_add_proc(struct bp_unwind *u, uint32_t pid,
                            const struct bp_unwind_module *mods, uint32_t n);

/* Report pid's mappings as /proc/PID/maps shows them now, its files
 * found by their paths: for a process that is still running (stack
 * tops, stacktops.h).  BPE_IO when they cannot be read (the process is
 * gone, or not ours to look at). */
bp_code bpi_unwind_add_live_proc(struct bp_unwind *u, uint32_t pid);

/* Forget pid's mappings (it exec'd or exited). */
void bpi_unwind_drop_proc(struct bp_unwind *u, uint32_t pid);

/* Unwind one sample into pcs (at most max, leaf first); *n receives how
 * many.  Returns the status; *n is at least 1 when the registers held a
 * pc. */
enum bp_unwind_status bpi_unwind_sample(struct bp_unwind *u,
                                        const struct bp_unwind_sample *s,
                                        uint64_t *pcs, uint32_t max,
                                        uint32_t *n);

/* How far an unwinding went into its sample's stack copy. */
struct bp_unwind_reach {
  uint64_t used;    /* bytes of the copy, from its start, the unwinding
                       looked at: the end of the highest word it read or
                       checked there (the rest made no difference) */
  bool outermost;   /* the chain ended at the outermost frame (_start,
                       clone: undefined return address, or entry code),
                       not at a zero return address or a missing row */
};

/* The same, and *reach says how far it went. */
enum bp_unwind_status bpi_unwind_sample_used(struct bp_unwind *u,
                                             const struct bp_unwind_sample *s,
                                             uint64_t *pcs, uint32_t max,
                                             uint32_t *n,
                                             struct bp_unwind_reach *reach);

/* Samples unwound by the fast path (rows of CFI compiled once per
 * address range, applied to the stack copy directly) and by libdwfl (a
 * row the fast path does not handle, or the fast path switched off). */
struct bp_unwind_stats {
  uint64_t fast, slow;
};

void bpi_unwind_get_stats(const struct bp_unwind *u,
                          struct bp_unwind_stats *out);

/* Whether to try the fast path (the default) before libdwfl.  Both give
 * the same pcs and status; off, every sample goes through libdwfl (for
 * the tests that compare them). */
void bpi_unwind_set_fast(struct bp_unwind *u, bool on);

#endif
