/* pprof: the profile as a perftools.profiles.Profile protobuf (profile.proto
 * of google/pprof), encoded by hand.  go tool pprof, Pyroscope, Parca,
 * Grafana and speedscope read it.
 *
 * Ids are the model's indexes plus one (pprof reserves 0): mapping = lib + 1,
 * location = frame + 1, function = func + 1.  A frame without a resolved
 * function gets a function of its own, id nfuncs + 1 + frame, named like the
 * folded stacks name it ("0x1a2b (in libfoo.so)"), because speedscope drops
 * locations without one.  Samples come from p->counts: one per (thread,
 * stack), locations leaf first.  Calls inlined at an address are frames of
 * their own in the model (profile.h); here they are pprof's way: Lines of
 * the machine frame's Location, innermost first, the machine frame's
 * function last, and no Location of their own.
 *
 * With --off-cpu a third sample type, off_cpu in nanoseconds, holds the
 * time threads spent switched out: one sample per (thread, stack) and
 * kind of wait, labelled switch=blocked or switch=preempted, with zero
 * samples and CPU time (go tool pprof -sample_index=off_cpu). */
#include "bp_setup.h"
#include "export.h"
#include "err.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Profile field numbers */
enum {
  PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3,
  PROFILE_LOCATION = 4, PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6,
  PROFILE_TIME_NANOS = 9, PROFILE_DURATION_NANOS = 10,
  PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12, PROFILE_COMMENT = 13,
  PROFILE_DEFAULT_SAMPLE_TYPE = 14
};

#define WIRE_VARINT 0
#define WIRE_LEN 2

/* Encoding state: the string table and scratch buffers for nested
 * messages (a message is built in scratch, then copied with its length). */
struct enc {
  struct bp_strtab strings;
  struct bp_buf msg;     /* the message being built (Sample, Location...) */
  struct bp_buf sub;     /* a message inside it (Line, Label) or packed */
  struct bp_buf name;    /* a cleaned string before interning */
  bool nomem;
};

static void key(struct bp_buf *b, uint32_t field, uint32_t wire)
{
  bpi_buf_varint(b, ((uint64_t)field << 3) | wire);
}

/* A varint field; proto3 leaves out zeros. */
static void put_u64(struct bp_buf *b, uint32_t field, uint64_t v)
{
  if(!v)
    return;
  key(b, field, WIRE_VARINT);
  bpi_buf_varint(b, v);
}

static void put_bytes(struct bp_buf *b, uint32_t field, const void *data,
                      size_t len)
{
  key(b, field, WIRE_LEN);
  bpi_buf_varint(b, len);
  bpi_buf_add(b, data, len);
}

/* Append a finished scratch message as field of b and empty the scratch. */
static void put_msg(struct bp_buf *b, uint32_t field, struct bp_buf *m)
{
  put_bytes(b, field, m->data, m->len);
  bpi_buf_reset(m);
}

/* String table index of s, cleaned so the table is valid UTF-8. */
static uint64_t str(struct enc *e, const char *s)
{
  bpi_buf_reset(&e->name);
  bpi_profile_clean_name(&e->name, s, '\0');
  uint32_t id = bpi_strtab_intern(&e->strings,
                                  e->name.data ? e->name.data : "");
  if(id == BP_NONE || bpi_buf_failed(&e->name)) {
    e->nomem = true;
    return 0;
  }
  return id;
}

static void put_value_type(struct enc *e, struct bp_buf *b, uint32_t field,
                           const char *type, const char *unit)
{
  put_u64(&e->sub, 1, str(e, type));
  put_u64(&e->sub, 2, str(e, unit));
  put_msg(b, field, &e->sub);
}

/* "cycles" for "cycles", "cpu/cycles/u", "perf::CYCLES:u" and the like:
 * pprof names sample types by a short word. */
static void short_event(const struct bp_profile_meta *m, char *out,
                        size_t len)
{
  const char *ev = m->requested_event && *m->requested_event ?
                   m->requested_event : m->event ? m->event : "";
  const char *colons = strstr(ev, "::");
  const char *slash;
  size_t n = 0;
  if(colons)
    ev = colons + 2;
  slash = strchr(ev, '/');
  if(slash && slash[1])  /* pmu/event/modifiers */
    ev = slash + 1;
  for(; *ev && !strchr(":/,=", *ev) && n + 1 < len; ev++)
    out[n++] = (*ev >= 'A' && *ev <= 'Z') ? (char)(*ev - 'A' + 'a') : *ev;
  out[n] = '\0';
  if(!n)
    snprintf(out, len, "events");
}

/* The period of one sample, in the unit of the weight. */
static uint64_t sample_period(const struct bp_profile *p)
{
  const struct bp_profile_meta *m = &p->meta;
  if(!m->freq)
    return m->period;
  if(m->time_event)
    return 1000000000u / m->freq;
  /* by frequency the kernel adapts the period: report the mean */
  uint64_t n = 0, w = 0;
  for(uint32_t i = 0; i < p->ncounts; i++) {
    n += p->counts[i].count;
    w += p->counts[i].weight;
  }
  return n ? (w + n / 2) / n : 0;
}

static void put_types(struct enc *e, const struct bp_profile *p,
                      struct bp_buf *b)
{
  char ev[64];
  const char *type = "cpu", *unit = "nanoseconds";
  if(!p->meta.time_event) {
    short_event(&p->meta, ev, sizeof(ev));
    type = ev;
    unit = "count";
  }
  put_value_type(e, b, PROFILE_SAMPLE_TYPE, "samples", "count");
  put_value_type(e, b, PROFILE_SAMPLE_TYPE, type, unit);
  if(p->meta.off_cpu)
    put_value_type(e, b, PROFILE_SAMPLE_TYPE, "off_cpu", "nanoseconds");
  put_value_type(e, b, PROFILE_PERIOD_TYPE, type, unit);
  put_u64(b, PROFILE_PERIOD, sample_period(p));
  put_u64(b, PROFILE_DEFAULT_SAMPLE_TYPE, str(e, type));
}

static void put_comments(struct enc *e, const struct bp_profile *p,
                         struct bp_buf *b)
{
  const struct bp_profile_meta *m = &p->meta;
  struct bp_buf line;
  bpi_buf_init(&line);
  bpi_buf_adds(&line, "benchprof " BENCHPROF_VERSION);
  put_u64(b, PROFILE_COMMENT, str(e, line.data));
  if(m->command) {
    bpi_buf_reset(&line);
    bpi_buf_printf(&line, "command: %s", m->command);
    put_u64(b, PROFILE_COMMENT, str(e, line.data));
  }
  bpi_buf_reset(&line);
  bpi_buf_printf(&line, "event: %s", m->event ? m->event : "");
  if(m->fallback_reason)
    bpi_buf_printf(&line, " (instead of %s: %s)",
                   m->requested_event ? m->requested_event : "",
                   m->fallback_reason);
  if(m->precise_requested)
    bpi_buf_printf(&line, " (precise_ip %u, %u requested)", m->precise_used,
                   m->precise_requested);
  put_u64(b, PROFILE_COMMENT, str(e, line.data));
  char note[320];
  bpi_profile_unsampled_note(p, note, sizeof(note));
  if(*note)
    put_u64(b, PROFILE_COMMENT, str(e, note));
  if(m->off_cpu_stack_note)
    put_u64(b, PROFILE_COMMENT, str(e, m->off_cpu_stack_note));
  if(bpi_buf_failed(&line))
    e->nomem = true;
  bpi_buf_cleanup(&line);
}

/* Which libs have file names and line numbers (Mapping.has_*). */
#define LIB_FILES 1
#define LIB_LINES 2
#define LIB_INLINES 4

static uint8_t *lib_flags(const struct bp_profile *p)
{
  uint8_t *flags = calloc(p->nlibs ? p->nlibs : 1, 1);
  if(!flags)
    return NULL;
  for(uint32_t i = 0; i < p->nframes; i++) {
    const struct bp_frame *f = &p->frames[i];
    if(f->lib >= p->nlibs)
      continue;
    if(f->line)
      flags[f->lib] |= LIB_LINES;
    if(f->inline_depth)
      flags[f->lib] |= LIB_INLINES;
    if(f->func < p->nfuncs && *bpi_profile_str(p, p->funcs[f->func].file))
      flags[f->lib] |= LIB_FILES;
  }
  return flags;
}

static void put_mappings(struct enc *e, const struct bp_profile *p,
                         struct bp_buf *b)
{
  uint8_t *flags = lib_flags(p);
  if(!flags) {
    e->nomem = true;
    return;
  }
  /* pprof takes the first mapping for the main binary (its "File:"), so
   * the program goes first; ids keep following the model's indexes */
  uint32_t main_lib = bpi_profile_main_lib(p);
  for(uint32_t k = 0; k < p->nlibs; k++) {
    uint32_t i = k;
    if(main_lib != BP_NONE)
      i = k == 0 ? main_lib : (k <= main_lib ? k - 1 : k);
    const struct bp_lib *l = &p->libs[i];
    put_u64(&e->msg, 1, (uint64_t)i + 1);
    if(l->lo <= l->hi) {
      put_u64(&e->msg, 2, l->lo);
      put_u64(&e->msg, 3, l->hi == UINT64_MAX ? l->hi : l->hi + 1);
    }
    put_u64(&e->msg, 5, str(e, bpi_profile_str(p, l->path)));
    put_u64(&e->msg, 6, str(e, bpi_profile_str(p, l->build_id)));
    /* every location has a function: pprof must not symbolize again */
    put_u64(&e->msg, 7, 1);
    put_u64(&e->msg, 8, !!(flags[i] & LIB_FILES));
    put_u64(&e->msg, 9, !!(flags[i] & LIB_LINES));
    put_u64(&e->msg, 10, !!(flags[i] & LIB_INLINES));
    put_msg(b, PROFILE_MAPPING, &e->msg);
  }
  free(flags);
}

static bool frame_resolved(const struct bp_profile *p, uint32_t frame)
{
  uint32_t f = p->frames[frame].func;
  return f < p->nfuncs && !p->funcs[f].unresolved;
}

static uint64_t function_id(const struct bp_profile *p, uint32_t frame)
{
  if(frame_resolved(p, frame))
    return (uint64_t)p->frames[frame].func + 1;
  return (uint64_t)p->nfuncs + 1 + frame;
}

/* An inlined-call frame, ordered by (machine frame, depth from the
 * innermost) so that a Location's Lines are one run of them. */
struct inl {
  uint32_t outer, depth, frame;
};

static int by_outer_innermost(const void *a, const void *b)
{
  const struct inl *x = a, *y = b;
  if(x->outer != y->outer)
    return x->outer < y->outer ? -1 : 1;
  return (x->depth < y->depth) - (x->depth > y->depth);
}

/* The inlined-call frames, sorted; *n of them.  NULL with n = 0 when there
 * are none, or when memory ran out (e->nomem set). */
static struct inl *inlined_frames(struct enc *e, const struct bp_profile *p,
                                  uint32_t *n)
{
  *n = 0;
  for(uint32_t i = 0; i < p->nframes; i++)
    *n += p->frames[i].inline_depth != 0;
  if(!*n)
    return NULL;
  struct inl *inl = malloc(*n * sizeof(*inl));
  uint32_t k = 0;
  if(!inl) {
    e->nomem = true;
    *n = 0;
    return NULL;
  }
  for(uint32_t i = 0; i < p->nframes; i++)
    if(p->frames[i].inline_depth)
      inl[k++] = (struct inl){.outer = p->frames[i].outer,
                              .depth = p->frames[i].inline_depth,
                              .frame = i};
  qsort(inl, *n, sizeof(*inl), by_outer_innermost);
  return inl;
}

static void put_line(struct enc *e, const struct bp_profile *p,
                     uint32_t frame)
{
  put_u64(&e->sub, 1, function_id(p, frame));
  put_u64(&e->sub, 2, p->frames[frame].line);
  put_msg(&e->msg, 4, &e->sub);
}

static void put_locations(struct enc *e, const struct bp_profile *p,
                          struct bp_buf *b)
{
  uint32_t ninl, k = 0;
  struct inl *inl = inlined_frames(e, p, &ninl);
  for(uint32_t i = 0; i < p->nframes; i++) {
    const struct bp_frame *f = &p->frames[i];
    if(f->inline_depth)
      continue;
    put_u64(&e->msg, 1, (uint64_t)i + 1);
    if(f->lib < p->nlibs)
      put_u64(&e->msg, 2, (uint64_t)f->lib + 1);
    put_u64(&e->msg, 3, f->addr);
    while(k < ninl && inl[k].outer < i)
      k++;
    for(; k < ninl && inl[k].outer == i; k++)
      put_line(e, p, inl[k].frame);
    put_line(e, p, i);
    put_msg(b, PROFILE_LOCATION, &e->msg);
  }
  free(inl);
}

static void put_function(struct enc *e, struct bp_buf *b, uint64_t id,
                         const char *name, const char *file,
                         uint32_t start_line)
{
  uint64_t name_id = str(e, name);
  put_u64(&e->msg, 1, id);
  put_u64(&e->msg, 2, name_id);
  put_u64(&e->msg, 3, name_id);  /* names are demangled already */
  put_u64(&e->msg, 4, str(e, file));
  put_u64(&e->msg, 5, start_line);
  put_msg(b, PROFILE_FUNCTION, &e->msg);
}

static void put_functions(struct enc *e, const struct bp_profile *p,
                          struct bp_buf *b)
{
  char tmp[64];
  for(uint32_t i = 0; i < p->nfuncs; i++) {
    const struct bp_func *f = &p->funcs[i];
    if(!f->unresolved)
      put_function(e, b, (uint64_t)i + 1, bpi_profile_str(p, f->name),
                   bpi_profile_str(p, f->file), f->start_line);
  }
  for(uint32_t i = 0; i < p->nframes; i++) {
    if(!frame_resolved(p, i) && !p->frames[i].inline_depth)
      put_function(e, b, function_id(p, i),
                   bpi_profile_frame_label(p, i, tmp, sizeof(tmp)), "", 0);
  }
}

static void put_label(struct enc *e, const char *k, const char *s,
                      uint64_t num)
{
  put_u64(&e->sub, 1, str(e, k));
  if(s)
    put_u64(&e->sub, 2, str(e, s));
  else
    put_u64(&e->sub, 3, num);
  put_msg(&e->msg, 3, &e->sub);
}

/* One Sample: the stack's locations, leaf first, the values (samples,
 * their weight and, with off-CPU time, its nanoseconds), the thread's
 * labels and, off CPU, the kind of wait. */
static void put_sample(struct enc *e, const struct bp_profile *p,
                       struct bp_buf *b, uint32_t thread, uint32_t stack,
                       const uint64_t *values, const char *wait)
{
  for(uint32_t s = stack; s < p->nstacks; s = p->stacks[s].parent)
    if(!p->frames[p->stacks[s].frame].inline_depth)  /* in its Location */
      bpi_buf_varint(&e->sub, (uint64_t)p->stacks[s].frame + 1);
  if(e->sub.len)
    put_msg(&e->msg, 1, &e->sub);
  for(int v = 0; v < (p->meta.off_cpu ? 3 : 2); v++)
    bpi_buf_varint(&e->sub, values[v]);
  put_msg(&e->msg, 2, &e->sub);
  if(thread < p->nthreads) {
    const struct bp_thread *t = &p->threads[thread];
    put_label(e, "pid", NULL, t->pid);
    put_label(e, "tid", NULL, t->tid);
    put_label(e, "thread", bpi_profile_str(p, t->name), 0);
  }
  if(wait)
    put_label(e, "switch", wait, 0);
  put_msg(b, PROFILE_SAMPLE, &e->msg);
}

static void put_samples(struct enc *e, const struct bp_profile *p,
                        struct bp_buf *b)
{
  for(uint32_t i = 0; i < p->ncounts; i++) {
    const struct bp_stack_count *c = &p->counts[i];
    uint64_t v[3] = {c->count, c->weight, 0};
    put_sample(e, p, b, c->thread, c->stack, v, NULL);
  }
  for(uint32_t i = 0; i < p->noff_counts; i++) {
    const struct bp_off_count *c = &p->off_counts[i];
    uint64_t blocked[3] = {0, 0, c->ns - c->preempt_ns};
    uint64_t preempted[3] = {0, 0, c->preempt_ns};
    if(blocked[2])
      put_sample(e, p, b, c->thread, c->stack, blocked, "blocked");
    if(preempted[2])
      put_sample(e, p, b, c->thread, c->stack, preempted, "preempted");
  }
}

static void put_strings(struct enc *e, struct bp_buf *b)
{
  for(size_t i = 0; i < e->strings.count; i++) {
    const char *s = bpi_strtab_get(&e->strings, (uint32_t)i);
    put_bytes(b, PROFILE_STRING_TABLE, s, strlen(s));
  }
}

static bp_code pprof_write(const struct bp_profile *p, struct bp_buf *b,
                           struct bp_err *err)
{
  const struct bp_profile_meta *m = &p->meta;
  struct enc e = {.nomem = false};
  bpi_strtab_init(&e.strings);
  bpi_buf_init(&e.msg);
  bpi_buf_init(&e.sub);
  bpi_buf_init(&e.name);
  str(&e, "");  /* string_table[0] must be "" */

  put_types(&e, p, b);
  put_samples(&e, p, b);
  put_mappings(&e, p, b);
  put_locations(&e, p, b);
  put_functions(&e, p, b);
  if(m->start_epoch_ms > 0)
    put_u64(b, PROFILE_TIME_NANOS, (uint64_t)(m->start_epoch_ms * 1e6));
  if(bpi_profile_duration_ns(m))
    put_u64(b, PROFILE_DURATION_NANOS, bpi_profile_duration_ns(m));
  put_comments(&e, p, b);
  put_strings(&e, b);

  bool failed = e.nomem || bpi_buf_failed(&e.msg) || bpi_buf_failed(&e.sub);
  bpi_buf_cleanup(&e.name);
  bpi_buf_cleanup(&e.sub);
  bpi_buf_cleanup(&e.msg);
  bpi_strtab_cleanup(&e.strings);
  if(failed)
    return bpi_err_set(err, BPE_NOMEM, 0, "pprof: building the protobuf");
  return BP_OK;
}

const struct bp_exporter bpi_export_pprof = {
  "pprof", BP_FILE_PPROF, true, pprof_write, NULL
};
