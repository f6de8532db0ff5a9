/* stacktops: how much of each thread's stack copy its unwinding reads,
 * learned while the command runs, so that a spill file (spill.h) keeps
 * only that much of every sample.
 *
 * Why: the kernel copies up to 8 KiB of user stack per sample (less only
 * where the stack's mapping ends), but unwinding reads only up to the
 * outermost frame (_start, clone).  Above it lie the environment and
 * auxiliary vector (the main thread) or the thread's descriptor and TLS,
 * and the kernel copies past a thread stack's end into whatever is mapped
 * there.  At a million samples that was 8 GB written, read back and
 * freed, of which the unwinding needed a fifth.
 *
 * How: the outermost frames of a thread never move while it runs, so the
 * highest stack address its unwinding reads is the same for every sample
 * taken on that stack.  A sample of each thread is unwound, once the
 * thread has had BP_STACK_TOP_AFTER spilled whole (the process's
 * mappings read from /proc/PID/maps), and when that reached the
 * outermost frame (not merely a zero return address or code without
 * CFI) the address past the highest word it read, plus a margin, becomes
 * the thread's top, and that word its mark.  A later sample whose stack
 * pointer lies within a copy's reach below the top, and whose copy still
 * holds the mark where it was, keeps the bytes up to the top.  One within
 * reach with another word there (a different stack at those addresses, a
 * new process with the same tid, the dynamic loader's frames replaced by
 * main's) is unwound to learn again; any other (a signal stack, a
 * coroutine's own stack, a thread given up) keeps all the kernel copied.
 * An exit or an exec forgets what was learned of its threads, and of its
 * process's mappings.
 *
 * Input: parsed samples (records.h) with user registers and a stack copy,
 * and the layout's register mask.  Output: the bytes of each copy to keep.
 * Owns an unwinder (unwind.h) of its own.  Not thread-safe. */
#ifndef BP_LIB_STACKTOPS_H
#define BP_LIB_STACKTOPS_H

#include <stdint.h>

#include "benchprof/benchprof.h"
#include "records.h"

/* Bytes kept above the highest word the first unwinding read: later
 * samples' reads of the same outermost frames lie at the same addresses;
 * the margin covers a check of a word or two more there. */
#define BP_STACK_TOP_MARGIN 256

/* Samples of a thread spilled whole before its top is learned: learning
 * (reading the process's mappings, its libraries' CFI) costs about
 * 0.4 ms of CPU while the command runs, as much as spilling about a
 * hundred whole copies does, so short-lived threads and processes (a
 * benchmark that forks many) are left whole and long ones pay it once. */
#define BP_STACK_TOP_AFTER 128

/* Samples of a thread unwound to learn (and learn again) its top, at
 * most: then it keeps whole copies.  Bounds the unwinding done while the
 * command runs for a thread that never unwinds whole or keeps changing
 * stacks. */
#define BP_STACK_TOP_TRIES 8

struct bp_stack_tops;

struct bp_stack_tops_stats {
  uint64_t learned;  /* threads whose top is known (again, after an
                        exit or exec forgot it) */
  uint64_t given_up; /* threads that keep whole copies */
};

bp_code bpi_stack_tops_new(struct bp_stack_tops **out, uint64_t regs_mask);
void bpi_stack_tops_free(struct bp_stack_tops *t);

/* The bytes of sample s's stack copy to keep (at most its dyn_size,
 * rounded up to 8), s being a sample of thread tid of process pid. */
uint64_t bpi_stack_tops_keep(struct bp_stack_tops *t, uint32_t pid,
                             uint32_t tid, const struct bp_rec_sample *s);

/* Thread tid of process pid exited: what was learned of it (and, for
 * the process's main thread, of its mappings) no longer holds. */
void bpi_stack_tops_exit(struct bp_stack_tops *t, uint32_t pid,
                         uint32_t tid);
/* Process pid exec'd: its mappings and its thread's top are new. */
void bpi_stack_tops_exec(struct bp_stack_tops *t, uint32_t pid);

/* The unwinder it learns with.  A caller that has a process's mappings
 * may report them there (bpi_unwind_add_proc) before its samples: then
 * /proc is not read for it (tests of processes that have exited). */
struct bp_unwind *bpi_stack_tops_unwinder(struct bp_stack_tops *t);

void bpi_stack_tops_get_stats(const struct bp_stack_tops *t,
                              struct bp_stack_tops_stats *out);

#endif
