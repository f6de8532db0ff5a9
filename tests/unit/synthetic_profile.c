/* The synthetic profile of synthetic_profile.h, built through the model's
 * own interning calls as the converter would. */
#include "bp_setup.h"
#include "synthetic_profile.h"

#include <stdlib.h>

#define NSTACKS 7

struct synth_stack {
  uint32_t thread;   /* index into threads[] below */
  uint32_t frames[3];/* root first, indexes into the frame list */
  uint32_t count;
};

enum { F_MAIN, F_WORK, F_HOT, F_HOT2, F_COLD, F_START, F_UNRES, F_KERN,
       NFRAMES };

static const struct synth_stack stacks[NSTACKS] = {
  {0, {F_MAIN, F_WORK, F_HOT}, 300},
  {0, {F_MAIN, F_WORK, F_COLD}, 100},
  {1, {F_MAIN, F_WORK, F_HOT}, 50},
  {1, {F_START, F_UNRES, F_HOT2}, 100},
  {1, {F_START, F_UNRES, F_COLD}, 50},
  {2, {F_MAIN, F_KERN, F_HOT}, 150},
  {2, {F_MAIN, F_KERN, F_COLD}, 50},
};

struct timed {
  uint64_t time_ns;
  uint32_t thread;
  uint32_t stack;
};

static int by_time(const void *a, const void *b)
{
  const struct timed *x = a, *y = b;
  if(x->time_ns != y->time_ns)
    return x->time_ns < y->time_ns ? -1 : 1;
  return (x->thread > y->thread) - (x->thread < y->thread);
}

static uint32_t frame(struct bp_profile *p, uint32_t lib, uint64_t addr,
                      enum bp_frame_kind kind, uint32_t func, uint32_t line)
{
  uint32_t f = bpi_profile_frame(p, lib, addr, kind);
  if(f != BP_NONE) {
    p->frames[f].func = func;
    p->frames[f].line = line;
  }
  return f;
}

static bp_code set_meta(struct bp_profile *p)
{
  struct bp_profile_meta *m = &p->meta;
  bp_code rc = bpi_profile_meta_set(&m->requested_event, "cycles");
  if(!rc)
    rc = bpi_profile_meta_set(&m->event, "cpu-clock");
  if(!rc)
    rc = bpi_profile_meta_set(&m->fallback_reason,
                              "no hardware PMU (virtual machine)");
  if(!rc)
    rc = bpi_profile_meta_set(&m->call_graph, "fp");
  if(!rc)
    rc = bpi_profile_meta_set(&m->command, "./bench --size 10 'a b'");
  if(!rc)
    rc = bpi_profile_meta_set(&m->host, "testhost");
  /* one counted total and one this machine could not count */
  struct bp_counter counters[2] = {
    {.name = "task-clock", .slug = "task-clock", .unit = "ns",
     .available = true, .raw = 400000000, .value = 400000000.0,
     .running = 1.0},
    {.name = "cycles", .slug = "cycles", .unit = "cycles",
     .available = false, .reason = "no hardware PMU (ENOENT)"},
  };
  if(!rc)
    rc = bpi_profile_set_counters(p, counters, 2);
  m->time_event = true;
  m->freq = 1000;
  m->start_epoch_ms = 1700000000000.5;
  m->start_ns = SYNTH_START_NS;
  m->end_ns = SYNTH_START_NS + 401000000;
  m->exit_status = 0;
  m->lost_records = 3;
  m->lost_events = 1;
  m->throttled = 2;
  m->unresolved_frames = 1;
  m->symbolize_ms = 12.5;
  m->symbol_tables_read = 4;
  m->symbol_tables_reused = 2;
  m->stack_bytes = 8192;
  m->unwind_samples = 7;
  m->dwarf_samples = 6;
  m->unwind_truncated = 1;
  m->spilled_bytes = 1048576;
  m->ring_bytes = 33554432;
  m->spill_trimmed_bytes = 4096;
  m->stack_tops_learned = 3;
  m->unwind_ms = 2.5;
  return rc;
}

static bp_code add_frames(struct bp_profile *p, uint32_t *f)
{
  uint32_t bench = bpi_profile_lib(p, "/usr/bin/bench",
                                   "0123456789abcdef0123456789abcdef01234567");
  uint32_t libc = bpi_profile_lib(p, "/lib/x86_64-linux-gnu/libc.so.6",
                                  "89abcdef0123456789abcdef0123456789abcdef");
  uint32_t kern = bpi_profile_lib(p, "[kernel.kallsyms]", "");
  uint32_t unres = bpi_profile_func(p, "0x2a40", "", libc, 0);
  if(unres == BP_NONE)
    return BPE_NOMEM;
  p->funcs[unres].unresolved = true;
  uint32_t hot = bpi_profile_func(p, SYNTH_HOT, "src/hot.c", bench, 30);
  f[F_MAIN] = frame(p, bench, 0x1100, BP_FRAME_USER,
                    bpi_profile_func(p, "main", "src/bench.c", bench, 10), 12);
  f[F_WORK] = frame(p, bench, 0x1200, BP_FRAME_USER,
                    bpi_profile_func(p, SYNTH_WORK, "src/bench.c", bench, 20),
                    22);
  f[F_HOT] = frame(p, bench, 0x1300, BP_FRAME_USER, hot, 31);
  f[F_HOT2] = frame(p, bench, 0x1310, BP_FRAME_USER, hot, 33);
  f[F_COLD] = frame(p, bench, 0x1400, BP_FRAME_USER,
                    bpi_profile_func(p, SYNTH_COLD, "src/cold.c", bench, 40),
                    41);
  f[F_START] = frame(p, libc, 0x9000, BP_FRAME_USER,
                     bpi_profile_func(p, "start_thread", "", libc, 0), 0);
  f[F_UNRES] = frame(p, libc, 0x2a40, BP_FRAME_USER, unres, 0);
  f[F_KERN] = frame(p, kern, 0xffffffff81000100ull, BP_FRAME_KERNEL,
                    bpi_profile_func(p, "entry_SYSCALL_64", "", kern, 0), 0);
  for(int i = 0; i < NFRAMES; i++)
    if(f[i] == BP_NONE || p->frames[f[i]].func == BP_NONE)
      return BPE_NOMEM;
  return BP_OK;
}

static bp_code add_threads(struct bp_profile *p, uint32_t *t)
{
  static const struct {
    uint32_t pid, tid;
    const char *name, *process;
  } def[3] = {
    {1000, 1000, "bench", "bench"},
    {1000, 1001, SYNTH_WORKER, "bench"},
    {2000, 2000, "hel;per", "hel;per"},
  };
  for(int i = 0; i < 3; i++) {
    t[i] = bpi_profile_thread(p, def[i].pid, def[i].tid);
    if(t[i] == BP_NONE)
      return BPE_NOMEM;
    p->threads[t[i]].name = bpi_profile_string(p, def[i].name);
    p->threads[t[i]].process_name = bpi_profile_string(p, def[i].process);
    p->threads[t[i]].start_ns = SYNTH_START_NS + (uint64_t)i * 300000;
  }
  return BP_OK;
}

/* Each thread's samples, 1 ms apart, mixed by a fixed pseudo-random
 * shuffle so hot and cold alternate irregularly over time. */
static struct timed *make_timeline(const uint32_t *stack_ids)
{
  struct timed *all = calloc(SYNTH_SAMPLES, sizeof(*all));
  uint32_t n = 0, per_thread[3] = {0, 0, 0};
  uint32_t seed = 12345;
  if(!all)
    return NULL;
  for(int s = 0; s < NSTACKS; s++)
    for(uint32_t k = 0; k < stacks[s].count; k++)
      all[n++] = (struct timed){0, stacks[s].thread, stack_ids[s]};
  for(uint32_t i = n - 1; i > 0; i--) {  /* Fisher-Yates, fixed seed */
    seed = seed * 1103515245u + 12345u;
    uint32_t j = (seed >> 8) % (i + 1);
    struct timed tmp = all[i];
    all[i] = all[j];
    all[j] = tmp;
  }
  for(uint32_t i = 0; i < n; i++) {
    uint32_t th = all[i].thread;
    all[i].time_ns = SYNTH_START_NS + th * 300000 +
                     (uint64_t)per_thread[th]++ * SYNTH_PERIOD_NS;
  }
  qsort(all, n, sizeof(*all), by_time);
  return all;
}

static bp_code add_samples(struct bp_profile *p, const uint32_t *f,
                           const uint32_t *t)
{
  uint32_t ids[NSTACKS];
  for(int s = 0; s < NSTACKS; s++) {
    uint32_t id = BP_NONE;
    for(int d = 0; d < 3; d++)
      id = bpi_profile_stack(p, id, f[stacks[s].frames[d]]);
    if(id == BP_NONE)
      return BPE_NOMEM;
    ids[s] = id;
  }
  struct timed *all = make_timeline(ids);
  if(!all)
    return BPE_NOMEM;
  /* thread 0's first two samples (at 0 and 1 ms; the other threads are
   * between) arrive out of order, as they may from two CPU rings */
  struct timed tmp = all[0];
  all[0] = all[3];
  all[3] = tmp;
  bp_code rc = BP_OK;
  for(uint32_t i = 0; !rc && i < SYNTH_SAMPLES; i++) {
    uint32_t th = t[all[i].thread];
    rc = bpi_profile_add_sample(p, th, all[i].stack, all[i].time_ns,
                                SYNTH_PERIOD_NS);
    if(all[i].time_ns > p->threads[th].end_ns)
      p->threads[th].end_ns = all[i].time_ns;
  }
  free(all);
  return rc;
}

bp_code synth_profile_new(struct bp_profile **out)
{
  struct bp_profile *p = NULL;
  uint32_t f[NFRAMES], t[3];
  bp_code rc = bpi_profile_new(&p);
  if(!rc)
    rc = set_meta(p);
  if(!rc)
    rc = add_frames(p, f);
  if(!rc)
    rc = add_threads(p, t);
  if(!rc)
    rc = add_samples(p, f, t);
  if(rc) {
    bpi_profile_free(p);
    return rc;
  }
  *out = p;
  return BP_OK;
}
