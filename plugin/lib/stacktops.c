#include "bp_setup.h"
#include "stacktops.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "unwind.h"

/* perf's number of the stack pointer (asm/perf_regs.h); -1 where the
 * unwinder does not unwind (unwind.h: x86-64 only) */
#if defined(__x86_64__)
#define PERF_REG_SP 7
#else
#define PERF_REG_SP (-1)
#endif

/* Frames unwound at most to learn a top: a deeper stack is left whole. */
#define LEARN_FRAMES 512

enum top_state { TOP_LEARNING, TOP_KNOWN, TOP_GIVEN_UP };

struct thread_top {
  uint64_t top;     /* TOP_KNOWN: the address the copies end at */
  uint64_t mark_at; /* the highest word the learning read ... */
  uint64_t mark;    /* ... and its value: still there, the same stack */
  uint32_t seen;    /* samples of it before learning */
  uint8_t state;    /* enum top_state */
  uint8_t tries;    /* unwindings done for it */
};

/* what was made of a process's mappings (none: not read yet) */
enum { PROC_UNREADABLE = 1, PROC_STALE };

struct bp_stack_tops {
  struct bp_unwind *unwind;
  uint64_t regs_mask;
  int sp_at;                 /* the stack pointer's place in regs, or -1 */
  struct bp_map by_tid;      /* tid -> index in threads */
  struct thread_top *threads;
  uint32_t nthreads, cap;
  struct bp_map procs;       /* pid -> PROC_*, once there was a reason */
  uint64_t pcs[LEARN_FRAMES];
  struct bp_stack_tops_stats stats;
};

bp_code bpi_stack_tops_new(struct bp_stack_tops **out, uint64_t regs_mask)
{
  struct bp_stack_tops *t = calloc(1, sizeof(*t));
  if(!t)
    return BPE_NOMEM;
  bp_code rc = bpi_unwind_new(&t->unwind);
  if(rc) {
    free(t);
    return rc;
  }
  t->regs_mask = regs_mask;
  t->sp_at = PERF_REG_SP >= 0 && ((regs_mask >> PERF_REG_SP) & 1)
               ? __builtin_popcountll(regs_mask &
                                      ((1ULL << PERF_REG_SP) - 1))
               : -1;
  bpi_map_init(&t->by_tid);
  bpi_map_init(&t->procs);
  *out = t;
  return BP_OK;
}

void bpi_stack_tops_free(struct bp_stack_tops *t)
{
  if(!t)
    return;
  bpi_unwind_free(t->unwind);
  bpi_map_cleanup(&t->by_tid);
  bpi_map_cleanup(&t->procs);
  free(t->threads);
  free(t);
}

struct bp_unwind *bpi_stack_tops_unwinder(struct bp_stack_tops *t)
{
  return t->unwind;
}

/* tid's entry, made (learning) on first sight; NULL without memory. */
static struct thread_top *thread_of(struct bp_stack_tops *t, uint32_t tid)
{
  uint32_t i = bpi_map_get(&t->by_tid, tid, 0);
  if(i != BP_NONE)
    return &t->threads[i];
  if(t->nthreads == t->cap) {
    uint32_t cap = t->cap ? t->cap * 2 : 16;
    struct thread_top *nt = realloc(t->threads, cap * sizeof(*nt));
    if(!nt)
      return NULL;
    t->threads = nt;
    t->cap = cap;
  }
  if(bpi_map_put(&t->by_tid, tid, 0, t->nthreads))
    return NULL;
  t->threads[t->nthreads] = (struct thread_top){0};
  return &t->threads[t->nthreads++];
}

/* Whether the unwinder has pid's mappings: reported already (by us, or
 * by the caller, bpi_stack_tops_unwinder), else read from /proc now.  A
 * process that cannot be read is not tried again. */
static bool proc_ready(struct bp_stack_tops *t, uint32_t pid)
{
  if(bpi_unwind_has_proc(t->unwind, pid))
    return true;
  if(bpi_map_get(&t->procs, pid, 0) == PROC_UNREADABLE)
    return false;
  if(!bpi_unwind_add_live_proc(t->unwind, pid))
    return true;
  (void)bpi_map_put(&t->procs, pid, 0, PROC_UNREADABLE);
  return false;
}

/* The copy's word at addr, if the copy holds it. */
static bool copy_word(const struct bp_rec_sample *s, uint64_t sp,
                      uint64_t addr, uint64_t *out)
{
  if(addr < sp || s->stack_dyn_size < 8 || addr - sp > s->stack_dyn_size - 8)
    return false;
  memcpy(out, s->stack + (addr - sp), 8);
  return true;
}

/* Unwind s to learn its thread's top: only a chain that reached the
 * outermost frame and read the stack says where its outer frames lie.
 * Every unwinding counts a try; after the last the thread keeps whole
 * copies. */
static void learn(struct bp_stack_tops *t, struct thread_top *th,
                  uint32_t pid, uint32_t tid, const struct bp_rec_sample *s,
                  uint64_t sp)
{
  struct bp_unwind_sample us = {
    .pid = pid, .tid = tid, .regs_mask = t->regs_mask, .regs = s->regs,
    .nregs = s->nregs, .stack = s->stack, .stack_len = s->stack_dyn_size,
  };
  uint32_t n = 0;
  struct bp_unwind_reach reach = {0};
  enum bp_unwind_status st = BP_UNWIND_FAILED;
  th->tries++;
  if(proc_ready(t, pid))
    st = bpi_unwind_sample_used(t->unwind, &us, t->pcs, LEARN_FRAMES, &n,
                                &reach);
  uint64_t mark;
  if(st == BP_UNWIND_COMPLETE && reach.outermost && n < LEARN_FRAMES &&
     reach.used >= 8 && copy_word(s, sp, sp + reach.used - 8, &mark)) {
    th->top = sp + reach.used + BP_STACK_TOP_MARGIN;
    th->mark_at = sp + reach.used - 8;
    th->mark = mark;
    if(th->state != TOP_KNOWN)
      t->stats.learned++;
    th->state = TOP_KNOWN;
  }
  else if(th->tries >= BP_STACK_TOP_TRIES) {
    if(th->state == TOP_KNOWN)
      t->stats.learned--;
    th->state = TOP_GIVEN_UP;
    t->stats.given_up++;
  }
}

/* Whether sp lies below th's top within a copy of whole bytes. */
static bool within_reach(const struct thread_top *th, uint64_t sp,
                         uint64_t whole)
{
  return sp < th->top && th->top - sp < whole;
}

/* Whether s lies on the stack th's top was learned on: within reach, and
 * the highest word the learning read still in place (another stack
 * there, a new process with the same tid, or a frame of the outer ones
 * since returned from, holds something else). */
static bool on_learned_stack(const struct thread_top *th,
                             const struct bp_rec_sample *s, uint64_t sp,
                             uint64_t whole)
{
  uint64_t word;
  return within_reach(th, sp, whole) &&
         copy_word(s, sp, th->mark_at, &word) && word == th->mark;
}

uint64_t bpi_stack_tops_keep(struct bp_stack_tops *t, uint32_t pid,
                             uint32_t tid, const struct bp_rec_sample *s)
{
  uint64_t whole = (s->stack_dyn_size + 7) & ~(uint64_t)7;
  if(t->sp_at < 0 || (uint32_t)t->sp_at >= s->nregs || !s->regs_abi ||
     !s->stack_dyn_size || s->stack_dyn_size > s->stack_size)
    return whole;
  uint64_t sp = s->regs[t->sp_at];
  struct thread_top *th = thread_of(t, tid);
  if(!th || th->state == TOP_GIVEN_UP)
    return whole;
  if(th->state == TOP_LEARNING) {
    if(++th->seen < BP_STACK_TOP_AFTER)
      return whole;
    learn(t, th, pid, tid, s, sp);
  }
  else if(within_reach(th, sp, whole) && !on_learned_stack(th, s, sp, whole))
    learn(t, th, pid, tid, s, sp);  /* within reach, not the same stack */
  if(th->state != TOP_KNOWN || !on_learned_stack(th, s, sp, whole))
    return whole;
  return (th->top - sp + 7) & ~(uint64_t)7;
}

void bpi_stack_tops_exit(struct bp_stack_tops *t, uint32_t pid,
                         uint32_t tid)
{
  uint32_t i = bpi_map_get(&t->by_tid, tid, 0);
  if(i != BP_NONE)
    t->threads[i] = (struct thread_top){0};
  if(tid == pid) {
    /* the process is gone: a new one with its pid is read afresh */
    bpi_unwind_drop_proc(t->unwind, pid);
    if(bpi_map_get(&t->procs, pid, 0) != BP_NONE)
      (void)bpi_map_put(&t->procs, pid, 0, PROC_STALE);
  }
}

void bpi_stack_tops_exec(struct bp_stack_tops *t, uint32_t pid)
{
  /* after exec only its main thread runs, on a new stack, in new
   * mappings */
  bpi_stack_tops_exit(t, pid, pid);
}

void bpi_stack_tops_get_stats(const struct bp_stack_tops *t,
                              struct bp_stack_tops_stats *out)
{
  *out = t->stats;
}
