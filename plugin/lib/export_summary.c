/* summary.json: the facts of one run in a small, stable JSON object for
 * scripts and the comment writer: event (and any fallback), sample and loss
 * counts, timing, threads and the top functions.  The key set is fixed;
 * unknown values are null, never missing.
 *
 * Off-CPU time (--off-cpu; null otherwise): each thread's on-CPU and
 * off-CPU milliseconds, and "off_cpu": the totals, blocked and preempted,
 * and the stacks that waited longest. */
#include "bp_setup.h"
#include "export.h"
#include "err.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#define TOP_FUNCS 20
#define TOP_WAITS 10

/* Numbers are written from integers so the output never depends on the
 * locale's decimal point nor on printf rounding of doubles. */
static void add_fixed3(struct bp_buf *b, int64_t thousandths)
{
  uint64_t v = thousandths < 0 ? (uint64_t)0 - (uint64_t)thousandths
                               : (uint64_t)thousandths;
  bpi_buf_printf(b, "%s%" PRIu64 ".%03" PRIu64, thousandths < 0 ? "-" : "",
                 v / 1000, v % 1000);
}

/* A double with three decimals, null when not finite (or absurd). */
static void add_double(struct bp_buf *b, double v)
{
  double t = v * 1000.0;
  if(!isfinite(t) || t > 9e18 || t < -9e18)
    bpi_buf_adds(b, "null");
  else
    add_fixed3(b, (int64_t)(t < 0 ? t - 0.5 : t + 0.5));
}

/* part / whole as a percentage with two decimals */
static void add_pct(struct bp_buf *b, uint64_t part, uint64_t whole)
{
  uint64_t hundredths = whole ? (part * 10000 + whole / 2) / whole : 0;
  bpi_buf_printf(b, "%" PRIu64 ".%02" PRIu64, hundredths / 100,
                 hundredths % 100);
}

static void add_key(struct bp_buf *b, const char *key)
{
  bpi_buf_json_str(b, key);
  bpi_buf_addc(b, ':');
}

/* A JSON string, or null for a missing one. */
static void add_str_or_null(struct bp_buf *b, const char *s)
{
  if(s)
    bpi_buf_json_str(b, s);
  else
    bpi_buf_adds(b, "null");
}

static void add_event(struct bp_buf *b, const struct bp_profile *p)
{
  const struct bp_profile_meta *m = &p->meta;
  add_key(b, "event");
  bpi_buf_adds(b, "{");
  add_key(b, "requested");
  add_str_or_null(b, m->requested_event);
  bpi_buf_adds(b, ",");
  add_key(b, "used");
  add_str_or_null(b, m->event);
  bpi_buf_printf(b, ",\"fallback\":%s,",
                 m->fallback_reason ? "true" : "false");
  add_key(b, "fallback_reason");
  add_str_or_null(b, m->fallback_reason);
  if(m->freq)
    bpi_buf_printf(b, ",\"frequency_hz\":%" PRIu64 ",\"period\":null",
                   m->freq);
  else
    bpi_buf_printf(b, ",\"frequency_hz\":null,\"period\":%" PRIu64,
                   m->period);
  /* the events the samples stand for (the sum of their periods: ns of
   * CPU for a clock), so a sample's count converts to the event's unit */
  uint64_t total = 0;
  for(uint32_t i = 0; i < p->ncounts; i++)
    total += p->counts[i].weight;
  bpi_buf_printf(b, ",\"sampled_total\":%" PRIu64, total);
  bpi_buf_printf(b, ",\"time_based\":%s", m->time_event ? "true" : "false");
  if(m->precise_requested)  /* skid: what was asked, what the PMU took */
    bpi_buf_printf(b, ",\"precise\":{\"requested\":%u,\"used\":%u,"
                   "\"max\":%s,\"lowered\":%s}}", m->precise_requested,
                   m->precise_used, m->precise_max ? "true" : "false",
                   m->precise_used < m->precise_requested ? "true" : "false");
  else
    bpi_buf_adds(b, ",\"precise\":null}");
}

static uint32_t count_processes(const struct bp_profile *p)
{
  struct bp_map seen;
  uint32_t n = 0;
  bpi_map_init(&seen);
  for(uint32_t i = 0; i < p->nthreads; i++) {
    if(bpi_map_get(&seen, p->threads[i].pid, 0) != BP_NONE)
      continue;
    if(bpi_map_put(&seen, p->threads[i].pid, 0, 1)) {
      n = BP_NONE;
      break;
    }
    n++;
  }
  bpi_map_cleanup(&seen);
  return n;
}

static void add_threads(struct bp_buf *b, const struct bp_profile *p)
{
  size_t n = p->nthreads ? p->nthreads : 1;
  uint64_t *on_ns = malloc(n * sizeof(*on_ns));
  uint64_t *off_ns = malloc(n * sizeof(*off_ns));
  if(!on_ns || !off_ns) {
    free(on_ns);
    free(off_ns);
    b->failed = true;   /* out of memory: the export fails */
    return;
  }
  bpi_profile_thread_times(p, on_ns, off_ns);
  add_key(b, "threads");
  bpi_buf_addc(b, '[');
  for(uint32_t i = 0; i < p->nthreads; i++) {
    const struct bp_thread *t = &p->threads[i];
    bpi_buf_printf(b, "%s\n  {\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
                   ",\"name\":", i ? "," : "", t->pid, t->tid);
    bpi_buf_json_str(b, bpi_profile_str(p, t->name));
    bpi_buf_adds(b, ",\"process\":");
    bpi_buf_json_str(b, bpi_profile_str(p, t->process_name));
    bpi_buf_printf(b, ",\"samples\":%" PRIu64, t->samples);
    uint64_t on = on_ns[i], off = off_ns[i];
    bpi_buf_adds(b, ",\"on_cpu_ms\":");
    if(p->meta.time_event)
      add_fixed3(b, (int64_t)((on + 500) / 1000));
    else
      bpi_buf_adds(b, "null");
    bpi_buf_adds(b, ",\"off_cpu_ms\":");
    if(p->meta.off_cpu)
      add_fixed3(b, (int64_t)((off + 500) / 1000));
    else
      bpi_buf_adds(b, "null");
    bpi_buf_addc(b, '}');
  }
  bpi_buf_adds(b, "]");
  free(on_ns);
  free(off_ns);
}

/* ns as milliseconds with three decimals */
static void add_ms(struct bp_buf *b, uint64_t ns)
{
  add_fixed3(b, (int64_t)((ns + 500) / 1000));
}

/* The innermost user-space function of a stack: where the thread called
 * what made it wait ("" when the stack has no user frame). */
static const char *waiting_in(const struct bp_profile *p, uint32_t stack)
{
  for(uint32_t s = stack; s < p->nstacks; s = p->stacks[s].parent) {
    const struct bp_frame *f = &p->frames[p->stacks[s].frame];
    if(f->kind == BP_FRAME_USER)
      return bpi_profile_frame_name(p, p->stacks[s].frame);
  }
  return "";
}

/* One waiting stack: its thread, frames (root first), where it waited
 * and for how long. */
static void add_wait(struct bp_buf *b, const struct bp_profile *p,
                     const struct bp_off_count *c, uint64_t all)
{
  char tmp[64];
  uint32_t tid = c->thread < p->nthreads ? p->threads[c->thread].tid : 0;
  bpi_buf_printf(b, "{\"tid\":%" PRIu32 ",\"waiting_in\":", tid);
  bpi_buf_json_str(b, waiting_in(p, c->stack));
  bpi_buf_adds(b, ",\"frames\":[");
  uint32_t depth = bpi_profile_stack_depth(p, c->stack);
  for(uint32_t k = depth; k-- > 0;) {  /* root first */
    uint32_t s = c->stack;
    for(uint32_t up = 0; up < k; up++)
      s = p->stacks[s].parent;
    if(k + 1 < depth)
      bpi_buf_addc(b, ',');
    bpi_buf_json_str(b, bpi_profile_frame_label(p, p->stacks[s].frame, tmp,
                                                sizeof(tmp)));
  }
  bpi_buf_printf(b, "],\"waits\":%" PRIu64 ",\"ms\":", c->count);
  add_ms(b, c->ns);
  bpi_buf_adds(b, ",\"blocked_ms\":");
  add_ms(b, c->ns - c->preempt_ns);
  bpi_buf_adds(b, ",\"preempted_ms\":");
  add_ms(b, c->preempt_ns);
  bpi_buf_adds(b, ",\"pct\":");
  add_pct(b, c->ns, all);
  bpi_buf_addc(b, '}');
}

/* "off_cpu": null without --off-cpu. */
static void add_off_cpu(struct bp_buf *b, const struct bp_profile *p)
{
  add_key(b, "off_cpu");
  if(!p->meta.off_cpu) {
    bpi_buf_adds(b, "null");
    return;
  }
  uint64_t pre, all = bpi_profile_off_ns(p, &pre);
  bpi_buf_adds(b, "{\"ms\":");
  add_ms(b, all);
  bpi_buf_adds(b, ",\"blocked_ms\":");
  add_ms(b, all - pre);
  bpi_buf_adds(b, ",\"preempted_ms\":");
  add_ms(b, pre);
  bpi_buf_printf(b, ",\"stacks_sampled\":%s,",
                 p->meta.off_cpu_stack_note ? "false" : "true");
  add_key(b, "stack_note");
  add_str_or_null(b, p->meta.off_cpu_stack_note);
  bpi_buf_adds(b, ",\"top_stacks\":[");
  struct bp_off_count top[TOP_WAITS];
  size_t n = bpi_profile_off_top(p, top, TOP_WAITS);
  for(size_t i = 0; i < n; i++) {
    bpi_buf_adds(b, i ? ",\n  " : "\n  ");
    add_wait(b, p, &top[i], all);
  }
  bpi_buf_adds(b, "]}");
}

static void add_func(struct bp_buf *b, const struct bp_profile *p,
                     const struct bp_func_share *s, uint64_t all)
{
  const struct bp_func *f = &p->funcs[s->func];
  bpi_buf_adds(b, "{\"name\":");
  bpi_buf_json_str(b, bpi_profile_str(p, f->name));
  bpi_buf_adds(b, ",\"lib\":");
  bpi_buf_json_str(b, f->lib < p->nlibs ?
                   bpi_profile_str(p, p->libs[f->lib].name) : "");
  bpi_buf_adds(b, ",\"file\":");
  bpi_buf_json_str(b, bpi_profile_str(p, f->file));
  bpi_buf_printf(b, ",\"self\":%" PRIu64 ",\"total\":%" PRIu64
                 ",\"self_pct\":", s->self, s->total);
  add_pct(b, s->self, all);
  bpi_buf_adds(b, ",\"total_pct\":");
  add_pct(b, s->total, all);
  bpi_buf_addc(b, '}');
}

static void add_top(struct bp_buf *b, const struct bp_profile *p)
{
  struct bp_func_share top[TOP_FUNCS];
  uint64_t all;
  size_t n = bpi_profile_top_funcs(p, top, TOP_FUNCS, &all);
  add_key(b, "top_functions");
  bpi_buf_addc(b, '[');
  for(size_t i = 0; i < n; i++) {
    bpi_buf_adds(b, i ? ",\n  " : "\n  ");
    add_func(b, p, &top[i], all);
  }
  bpi_buf_adds(b, "]");
}

/* The DWARF unwinding facts (zeros with --call-graph fp). */
static void add_unwind(struct bp_buf *b, const struct bp_profile_meta *m)
{
  bpi_buf_adds(b, ",\n");
  add_key(b, "call_graph_fallback");
  add_str_or_null(b, m->call_graph_fallback);
  bpi_buf_printf(b, ",\n\"stack_bytes\":%" PRIu32 ",\n\"unwind_samples\":%"
                 PRIu64 ",\n\"dwarf_samples\":%" PRIu64
                 ",\n\"unwind_truncated\":%" PRIu64
                 ",\n\"unwind_failed\":%" PRIu64
                 ",\n\"spilled_bytes\":%" PRIu64
                 ",\n\"spill_trimmed_bytes\":%" PRIu64
                 ",\n\"stack_tops_learned\":%" PRIu64 ",\n\"unwind_ms\":",
                 m->stack_bytes, m->unwind_samples, m->dwarf_samples,
                 m->unwind_truncated, m->unwind_failed, m->spilled_bytes,
                 m->spill_trimmed_bytes, m->stack_tops_learned);
  add_double(b, m->unwind_ms);
}

/* Whether kernel time was sampled and, when it was not, why and what
 * share of task-clock is in no sample (null: unknown). */
static void add_kernel(struct bp_buf *b, const struct bp_profile *p)
{
  const struct bp_profile_meta *m = &p->meta;
  double pct = bpi_profile_unsampled_pct(p);
  bpi_buf_printf(b, ",\n\"kernel_sampled\":%s,\n",
                 m->kernel_unsampled ? "false" : "true");
  add_key(b, "kernel_unsampled_reason");
  add_str_or_null(b, m->kernel_unsampled ? m->kernel_reason : NULL);
  bpi_buf_adds(b, ",\n\"task_clock_ms\":");
  if(m->task_clock_ns > 0)
    add_double(b, m->task_clock_ns / 1e6);
  else
    bpi_buf_adds(b, "null");
  bpi_buf_adds(b, ",\n\"sampled_ms\":");
  if(m->time_event)
    add_double(b, (double)bpi_profile_sampled_ns(p) / 1e6);
  else
    bpi_buf_adds(b, "null");
  bpi_buf_adds(b, ",\n\"unsampled_pct\":");
  if(pct >= 0)
    add_double(b, pct);
  else
    bpi_buf_adds(b, "null");
}

static bp_code summary_write(const struct bp_profile *p, struct bp_buf *b,
                             struct bp_err *err)
{
  const struct bp_profile_meta *m = &p->meta;
  uint32_t procs = count_processes(p);
  if(procs == BP_NONE)
    return bpi_err_set(err, BPE_NOMEM, 0, "summary: counting processes");
  bpi_buf_adds(b, "{\n");
  add_key(b, "benchprof_version");
  bpi_buf_json_str(b, BENCHPROF_VERSION);
  bpi_buf_adds(b, ",\n");
  add_key(b, "command");
  add_str_or_null(b, m->command);
  bpi_buf_adds(b, ",\n");
  add_key(b, "host");
  add_str_or_null(b, m->host);
  bpi_buf_adds(b, ",\n");
  add_event(b, p);
  bpi_buf_adds(b, ",\n");
  add_key(b, "call_graph");
  add_str_or_null(b, m->call_graph);
  bpi_buf_printf(b, ",\n\"samples\":%" PRIu64 ",\n\"lost\":%" PRIu64
                 ",\n\"lost_events\":%" PRIu64 ",\n\"throttled\":%" PRIu64
                 ",\n\"corrupt_records\":%" PRIu64 ",\n\"ring_bytes\":%" PRIu64
                 ",\n\"start_time_ms\":",
                 m->samples, m->lost_records, m->lost_events, m->throttled,
                 m->corrupt_records, m->ring_bytes);
  add_double(b, m->start_epoch_ms);
  bpi_buf_adds(b, ",\n\"duration_ms\":");
  /* microseconds, rounded, keep three decimals of milliseconds */
  add_fixed3(b, (int64_t)((bpi_profile_duration_ns(m) + 500) / 1000));
  bpi_buf_printf(b, ",\n\"exit_status\":%d,\n\"unresolved_frames\":%" PRIu64
                 ",\n\"symbolize_ms\":", m->exit_status,
                 m->unresolved_frames);
  add_double(b, m->symbolize_ms);
  bpi_buf_printf(b, ",\n\"symbol_tables\":{\"read\":%" PRIu32
                 ",\"reused\":%" PRIu32 "}", m->symbol_tables_read,
                 m->symbol_tables_reused);
  add_kernel(b, p);
  add_unwind(b, m);
  bpi_buf_printf(b, ",\n\"processes\":%" PRIu32 ",\n", procs);
  add_threads(b, p);
  bpi_buf_adds(b, ",\n");
  add_top(b, p);
  bpi_buf_adds(b, ",\n");
  add_off_cpu(b, p);
  bpi_buf_adds(b, ",\n");
  add_key(b, "counters");
  bpi_counters_json(b, m->counters, m->ncounters);
  bpi_buf_adds(b, "\n}\n");
  return BP_OK;
}

const struct bp_exporter bpi_export_summary = {
  "summary", BP_FILE_SUMMARY, false, summary_write, NULL
};
