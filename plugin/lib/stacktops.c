#include "bp_setup.h"
#include "stacktops.h"

#include <stdbool.h>
#include <stdlib.h>

#include "hash.h"
#include "unwind.h"

/* perf's x86-64 number of the stack pointer (asm/perf_regs.h) */
#define PERF_REG_SP 7

/* Frames unwound at most to learn a top: a deeper stack is left whole. */
#define LEARN_FRAMES 512

enum top_state { TOP_LEARNING, TOP_KNOWN, TOP_GIVEN_UP };

struct thread_top {
  uint64_t top;     /* TOP_KNOWN: the address the copies end at */
  uint8_t state;    /* enum top_state */
  uint8_t tries;    /* unwindings that did not reach the outermost frame */
};

/* what bpi_unwind_add_live_proc made of a process (none: not tried) */
enum { PROC_REPORTED = 1, PROC_UNREADABLE, PROC_EXECED };

struct bp_stack_tops {
  struct bp_unwind *unwind;
  uint64_t regs_mask;
  int sp_at;                 /* the stack pointer's place in regs, or -1 */
  struct bp_map by_tid;      /* tid -> index in threads */
  struct thread_top *threads;
  uint32_t nthreads, cap;
  struct bp_map procs;       /* pid -> PROC_* */
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
  t->sp_at = (regs_mask >> PERF_REG_SP) & 1
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

/* Whether pid's mappings are reported to the unwinder (read from /proc
 * on first sight; a process that cannot be read is not tried again). */
static bool proc_ready(struct bp_stack_tops *t, uint32_t pid)
{
  uint32_t st = bpi_map_get(&t->procs, pid, 0);
  if(st == BP_NONE || st == PROC_EXECED) {
    st = bpi_unwind_add_live_proc(t->unwind, pid) ? PROC_UNREADABLE
                                                   : PROC_REPORTED;
    if(bpi_map_put(&t->procs, pid, 0, st))
      return false;
  }
  return st == PROC_REPORTED;
}

/* Unwind s to learn its thread's top; on failure count a try. */
static void learn(struct bp_stack_tops *t, struct thread_top *th,
                  uint32_t pid, uint32_t tid, const struct bp_rec_sample *s,
                  uint64_t sp)
{
  struct bp_unwind_sample us = {
    .pid = pid, .tid = tid, .regs_mask = t->regs_mask, .regs = s->regs,
    .nregs = s->nregs, .stack = s->stack, .stack_len = s->stack_dyn_size,
  };
  uint32_t n = 0;
  uint64_t used = 0;
  enum bp_unwind_status st = BP_UNWIND_FAILED;
  if(proc_ready(t, pid))
    st = bpi_unwind_sample_used(t->unwind, &us, t->pcs, LEARN_FRAMES, &n,
                                &used);
  if(st == BP_UNWIND_COMPLETE && n < LEARN_FRAMES) {
    th->top = sp + used + BP_STACK_TOP_MARGIN;
    th->state = TOP_KNOWN;
    t->stats.learned++;
  }
  else if(++th->tries >= BP_STACK_TOP_TRIES) {
    th->state = TOP_GIVEN_UP;
    t->stats.given_up++;
  }
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
  if(!th)
    return whole;
  if(th->state == TOP_LEARNING)
    learn(t, th, pid, tid, s, sp);
  if(th->state != TOP_KNOWN || sp >= th->top || th->top - sp >= whole)
    return whole;
  /* on the stack the top was learned on, below it within reach */
  uint64_t keep = (th->top - sp + 7) & ~(uint64_t)7;
  t->stats.cut += whole - keep;
  return keep;
}

void bpi_stack_tops_exit(struct bp_stack_tops *t, uint32_t tid)
{
  uint32_t i = bpi_map_get(&t->by_tid, tid, 0);
  if(i != BP_NONE)
    t->threads[i] = (struct thread_top){0};
}

void bpi_stack_tops_exec(struct bp_stack_tops *t, uint32_t pid)
{
  bpi_stack_tops_exit(t, pid);  /* after exec only its main thread runs */
  bpi_unwind_drop_proc(t->unwind, pid);
  if(bpi_map_get(&t->procs, pid, 0) != BP_NONE)
    (void)bpi_map_put(&t->procs, pid, 0, PROC_EXECED);  /* read again */
}

void bpi_stack_tops_get_stats(const struct bp_stack_tops *t,
                              struct bp_stack_tops_stats *out)
{
  *out = t->stats;
}
