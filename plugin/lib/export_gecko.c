/* Gecko: the Firefox Profiler's own format, version 24 (what its `perf
 * script` importer writes; the viewer upgrades it on load, forever).
 *
 * Every thread sits in the top-level `threads` array with its pid, so the
 * viewer groups tracks by process.  Each thread has its own string, frame
 * and stack tables: the model's global tables are remapped per thread to the
 * rows that thread uses, parents first.  Frame locations are always
 * "name (in lib)": the viewer takes function and library from that shape.
 * Samples come from the timeline, sorted by time per thread; for a time
 * event threadCPUDelta carries each sample's period in microseconds.
 *
 * Off-CPU time (--off-cpu): the format has no per-sample weights (the
 * viewer reads one row as one sample), so each wait becomes rows one
 * sampling interval apart on its thread's track, each with the waiting
 * stack and a CPU delta of 0: the CPU graph shows the thread idle and the
 * call tree counts its waits in the same unit as its CPU samples.  Time
 * shorter than an interval is carried per (thread, stack), never to
 * another stack's wait; what is left at the end is rounded to whole rows
 * per thread, given to the stacks with the most left, so each stack has
 * its own time to within an interval and each thread its total to within
 * half of one. */
#include "bp_setup.h"
#include "export.h"
#include "err.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define GECKO_VERSION 24

/* Category indexes in meta.categories */
enum { CAT_OTHER = 0, CAT_USER = 1, CAT_KERNEL = 2 };

/* Off-CPU time of one (thread, stack) not yet in a row: less than one
 * interval after each of its waits. */
struct off_carry {
  uint64_t ns;
  uint64_t time_ns;   /* its last wait's switch-out: where a row rounded
                         up from the rest goes */
  uint32_t thread, stack;
};

/* One thread's rows of the global tables. */
struct thread_view {
  uint32_t *stack_row;  /* global stack -> row, BP_NONE when unused */
  uint32_t *frame_row;  /* global frame -> row, BP_NONE when unused */
  uint32_t *stacks;     /* row -> global stack */
  uint32_t nstacks;
  uint32_t *frames;     /* row -> global frame */
  uint32_t nframes;
  struct bp_strtab strings;
};

struct gecko {
  const struct bp_profile *p;
  struct bp_buf *out;
  struct bp_buf name;         /* scratch: a location string */
  struct bp_sample *samples;  /* threads [chunk_lo, chunk_hi) of the
                                 timeline, sorted by (thread, time) */
  uint64_t nsamples, samples_cap;
  uint64_t *thread_samples;   /* samples per thread in the timeline */
  uint64_t *thread_at;        /* where load_chunk puts a thread's next */
  struct bp_sample *block;    /* READ_SAMPLES read from the timeline */
  uint32_t chunk_hi;
  uint32_t *by_thread;        /* count indexes grouped by thread ... */
  uint32_t *thread_start;     /* ... thread t's at [start[t], start[t+1]) */
  struct thread_view v;
  uint32_t main_thread;       /* carries the run marker */
  size_t *markers;            /* marker indexes grouped by thread ... */
  size_t *marker_start;       /* ... thread t's at [start[t], start[t+1]) */
  struct off_carry *off_carry;  /* per p->off_counts entry */
};

/* v in decimal at out; returns the length (at most 20). */
static size_t put_u64(char *out, uint64_t v)
{
  char tmp[20];
  size_t n = sizeof(tmp);
  do {
    tmp[--n] = (char)('0' + v % 10);
    v /= 10;
  } while(v);
  memcpy(out, tmp + n, sizeof(tmp) - n);
  return sizeof(tmp) - n;
}

/* v / 10^digits as a JSON number without trailing zeros, at out (room for
 * DECIMAL_MAX bytes); returns the length.  From integers, so no locale or
 * double rounding gets in. */
#define DECIMAL_MAX 44
static size_t put_decimal(char *out, int64_t v, unsigned digits)
{
  uint64_t scale = 1, mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  size_t n = 0;
  for(unsigned i = 0; i < digits; i++)
    scale *= 10;
  uint64_t frac = mag % scale;
  if(v < 0)
    out[n++] = '-';
  n += put_u64(out + n, mag / scale);
  if(!frac)
    return n;
  while(frac % 10 == 0) {
    frac /= 10;
    digits--;
  }
  /* frac < 10^digits: its digits right-aligned, zero-padded */
  out[n++] = '.';
  for(unsigned i = digits; i-- > 0;) {
    out[n + i] = (char)('0' + frac % 10);
    frac /= 10;
  }
  return n + digits;
}

static void add_decimal(struct bp_buf *b, int64_t v, unsigned digits)
{
  char tmp[DECIMAL_MAX];
  bpi_buf_add(b, tmp, put_decimal(tmp, v, digits));
}

/* Milliseconds since the profile's start for a CLOCK_MONOTONIC time, to
 * the microsecond (as perf script prints them): nanosecond digits made
 * the samples table a third larger and the file slower to compress, and
 * no sampling rate the kernel allows tells them apart. */
static int64_t rel_us(const struct bp_profile *p, uint64_t ns)
{
  /* rounded on the unsigned magnitude: a record's time can be anything,
   * and no difference of two of them may overflow (the fuzzer found
   * INT64_MAX - 30 + 500) */
  bool before = ns < p->meta.start_ns;
  uint64_t d = before ? p->meta.start_ns - ns : ns - p->meta.start_ns;
  int64_t us = (int64_t)(d / 1000 + (d % 1000 >= 500));
  return before ? -us : us;
}

static void add_rel_ms(struct bp_buf *b, const struct bp_profile *p,
                       uint64_t ns)
{
  add_decimal(b, rel_us(p, ns), 3);
}

/* ---------------------------------------------------------------- input */

static int by_thread_time(const void *a, const void *b)
{
  const struct bp_sample *x = a, *y = b;
  if(x->thread != y->thread)
    return x->thread < y->thread ? -1 : 1;
  if(x->time_ns != y->time_ns)
    return x->time_ns < y->time_ns ? -1 : 1;
  if(x->stack != y->stack)
    return x->stack < y->stack ? -1 : 1;
  return (x->weight > y->weight) - (x->weight < y->weight);
}

/* Samples held at once: the timeline is read in chunks of whole threads,
 * so memory stays bounded however long the run was (one thread with more
 * samples than this is still read whole). */
#define CHUNK_SAMPLES 65536

/* Timeline samples read at once. */
#define READ_SAMPLES 4096

static uint64_t interval_ns(const struct bp_profile_meta *m);

/* rows off-CPU rows of one wait, one interval apart from time_ns: counted
 * into thread_samples (count) or stored at thread_at, as samples of
 * weight 0. */
static void put_off_rows(struct gecko *g, const struct off_carry *at,
                         uint64_t rows, uint64_t step, bool count)
{
  if(count) {
    g->thread_samples[at->thread] += rows;
    return;
  }
  for(uint64_t j = 0; j < rows; j++)
    g->samples[g->thread_at[at->thread]++] = (struct bp_sample){
      .thread = at->thread, .stack = at->stack,
      .time_ns = at->time_ns + j * step, .weight = 0};
  g->nsamples += rows;
}

/* Threads in order, each one's stacks with the most time left first. */
static int by_thread_most_left(const void *a, const void *b)
{
  const struct off_carry *x = a, *y = b;
  if(x->thread != y->thread)
    return x->thread < y->thread ? -1 : 1;
  if(x->ns != y->ns)
    return x->ns > y->ns ? -1 : 1;
  return (x->stack > y->stack) - (x->stack < y->stack);
}

/* The time left after the last waits, rounded per thread: its total to
 * the nearest interval, one row each to the stacks with the most left
 * (each has less than an interval left, so none needs two).  Sorts the
 * carries of threads [lo, hi) to the front of g->off_carry. */
static void off_rows_left(struct gecko *g, uint32_t lo, uint32_t hi,
                          uint64_t step, bool count)
{
  const struct bp_profile *p = g->p;
  struct off_carry *left = g->off_carry;
  uint32_t n = 0;
  for(uint32_t k = 0; k < p->noff_counts; k++)
    if(left[k].ns && left[k].thread >= lo && left[k].thread < hi)
      left[n++] = left[k];
  qsort(left, n, sizeof(*left), by_thread_most_left);
  for(uint32_t i = 0, end; i < n; i = end) {
    uint64_t sum = 0;
    for(end = i; end < n && left[end].thread == left[i].thread; end++)
      sum = left[end].ns > UINT64_MAX - sum ? UINT64_MAX
                                              : sum + left[end].ns;
    uint64_t owed = sum / step + (sum % step >= step - step / 2);
    for(uint32_t j = i; j < end && owed; j++, owed--)
      put_off_rows(g, &left[j], 1, step, count);
  }
}

/* The off-CPU rows of the threads [lo, hi): walks the off-CPU timeline
 * (each thread's waits in time order), turning each wait into one row per
 * sampling interval its stack has waited, the rest carried to that
 * stack's next wait, then what is left (off_rows_left).  Rows are counted
 * into thread_samples (count) or stored at thread_at, as samples of
 * weight 0: both passes make the same rows. */
static bp_code off_rows(struct gecko *g, uint32_t lo, uint32_t hi, bool count)
{
  const struct bp_profile *p = g->p;
  if(!p->off_timeline_len)
    return BP_OK;
  uint64_t step = interval_ns(&p->meta);
  memset(g->off_carry, 0, p->noff_counts * sizeof(*g->off_carry));
  bp_code rc = bpi_profile_off_rewind(p);
  struct bp_off_sample o;
  while(!rc && bpi_profile_off_next(p, &o)) {
    if(o.thread < lo || o.thread >= hi)
      continue;
    /* every wait is counted per (thread, stack) by the model, the other
     * exporters' source; one it does not know is in none of them */
    uint32_t k = bpi_map_get(&p->off_index, o.thread, o.stack);
    if(k >= p->noff_counts)
      continue;
    struct off_carry *c = &g->off_carry[k];
    uint64_t rows = o.dur_ns / step, part = o.dur_ns % step;
    /* carried + part, both under one step, without overflowing */
    if(part >= step - c->ns) {
      rows++;
      part -= step - c->ns;
    }
    else
      part += c->ns;
    *c = (struct off_carry){.ns = part, .time_ns = o.time_ns,
                            .thread = o.thread, .stack = o.stack};
    put_off_rows(g, c, rows, step, count);
  }
  if(!rc)
    off_rows_left(g, lo, hi, step, count);
  return rc;
}

/* Count the timeline's samples per thread. */
static bp_code count_samples(struct gecko *g, struct bp_err *err)
{
  const struct bp_profile *p = g->p;
  g->thread_samples = calloc((size_t)p->nthreads + 1, sizeof(uint64_t));
  g->thread_at = calloc((size_t)p->nthreads + 1, sizeof(uint64_t));
  g->block = malloc(READ_SAMPLES * sizeof(*g->block));
  g->off_carry = calloc(p->noff_counts ? p->noff_counts : 1,
                        sizeof(*g->off_carry));
  if(!g->thread_samples || !g->thread_at || !g->block || !g->off_carry)
    return bpi_err_set(err, BPE_NOMEM, 0, "gecko: timeline");
  if(off_rows(g, 0, p->nthreads, true))
    return bpi_err_set(err, BPE_IO, 0, "gecko: the off-CPU timeline");
  if(!p->timeline_len)
    return BP_OK;
  bp_code rc = bpi_profile_timeline_rewind(p);
  if(rc)
    return bpi_err_set(err, rc, 0, "gecko: rewinding the timeline");
  uint64_t n = 0;
  size_t got;
  while(n < p->timeline_len &&
        (got = bpi_profile_timeline_read(p, g->block, READ_SAMPLES))) {
    for(size_t i = 0; i < got; i++)
      if(g->block[i].thread < p->nthreads)
        g->thread_samples[g->block[i].thread]++;
    n += got;
  }
  if(n != p->timeline_len)
    return bpi_err_set(err, BPE_IO, 0, "gecko: timeline cut short");
  return BP_OK;
}

/* Read the samples of threads lo.. (as many whole threads as fit in a
 * chunk, at least one), each thread's in a run of its own.  Rings deliver
 * per CPU, so samples of one thread may come out of order; the viewer
 * wants them sorted.  They come sorted by time nearly always: a run is
 * only sorted when it is not. */
static bp_code load_chunk(struct gecko *g, uint32_t lo, struct bp_err *err)
{
  const struct bp_profile *p = g->p;
  uint64_t want = g->thread_samples[lo];
  uint32_t hi = lo + 1;
  while(hi < p->nthreads && want + g->thread_samples[hi] <= CHUNK_SAMPLES)
    want += g->thread_samples[hi++];
  g->chunk_hi = hi;
  g->nsamples = 0;
  if(!want)
    return BP_OK;
  if(want > SIZE_MAX / sizeof(*g->samples))
    return bpi_err_set(err, BPE_NOMEM, 0, "gecko: timeline too long");
  if(want > g->samples_cap) {
    struct bp_sample *m = realloc(g->samples,
                                  (size_t)want * sizeof(*g->samples));
    if(!m)
      return bpi_err_set(err, BPE_NOMEM, 0, "gecko: timeline");
    g->samples = m;
    g->samples_cap = want;
  }
  uint64_t at = 0;
  for(uint32_t t = lo; t < hi; t++) {
    g->thread_at[t] = at;
    at += g->thread_samples[t];
  }
  if(off_rows(g, lo, hi, false))
    return bpi_err_set(err, BPE_IO, 0, "gecko: the off-CPU timeline");
  bp_code rc = bpi_profile_timeline_rewind(p);
  if(rc)
    return bpi_err_set(err, rc, 0, "gecko: rewinding the timeline");
  uint64_t n = 0;
  size_t got;
  while(n < p->timeline_len && g->nsamples < want &&
        (got = bpi_profile_timeline_read(p, g->block, READ_SAMPLES))) {
    for(size_t i = 0; i < got; i++) {
      uint32_t t = g->block[i].thread;
      if(t >= lo && t < hi && g->thread_at[t] < want) {
        g->samples[g->thread_at[t]++] = g->block[i];
        g->nsamples++;
      }
    }
    n += got;
  }
  if(g->nsamples != want)
    return bpi_err_set(err, BPE_IO, 0, "gecko: timeline cut short");
  at = 0;
  for(uint32_t t = lo; t < hi; t++) {
    struct bp_sample *run = g->samples + at;
    uint64_t len = g->thread_samples[t];
    for(uint64_t i = 1; i < len; i++)
      if(by_thread_time(&run[i - 1], &run[i]) > 0) {
        qsort(run, len, sizeof(*run), by_thread_time);
        break;
      }
    at += len;
  }
  return BP_OK;
}

/* Counting sort of p->counts by thread. */
static bp_code group_counts(struct gecko *g, struct bp_err *err)
{
  const struct bp_profile *p = g->p;
  g->by_thread = calloc(p->ncounts ? p->ncounts : 1, sizeof(uint32_t));
  g->thread_start = calloc((size_t)p->nthreads + 2, sizeof(uint32_t));
  if(!g->by_thread || !g->thread_start)
    return bpi_err_set(err, BPE_NOMEM, 0, "gecko: grouping stacks");
  for(uint32_t i = 0; i < p->ncounts; i++)
    if(p->counts[i].thread < p->nthreads)
      g->thread_start[p->counts[i].thread + 2]++;
  for(uint32_t t = 2; t < p->nthreads + 2; t++)
    g->thread_start[t] += g->thread_start[t - 1];
  /* thread_start[t + 1] now is where thread t begins; fill shifts it */
  for(uint32_t i = 0; i < p->ncounts; i++)
    if(p->counts[i].thread < p->nthreads)
      g->by_thread[g->thread_start[p->counts[i].thread + 1]++] = i;
  return BP_OK;
}

/* Counting sort of p->markers by the thread that shows each
 * (bpi_profile_marker_thread: a merged repetition's markers on its own
 * process's track), in the order they began within a thread. */
static bp_code group_markers(struct gecko *g, struct bp_err *err)
{
  const struct bp_profile *p = g->p;
  g->markers = calloc(p->nmarkers ? p->nmarkers : 1, sizeof(size_t));
  g->marker_start = calloc((size_t)p->nthreads + 2, sizeof(size_t));
  if(!g->markers || !g->marker_start)
    return bpi_err_set(err, BPE_NOMEM, 0, "gecko: grouping markers");
  if(!p->nthreads)
    return BP_OK;  /* no track to show them on */
  for(size_t i = 0; i < p->nmarkers; i++)
    g->marker_start[bpi_profile_marker_thread(p, &p->markers[i]) + 2]++;
  for(uint32_t t = 2; t < p->nthreads + 2; t++)
    g->marker_start[t] += g->marker_start[t - 1];
  /* marker_start[t + 1] now is where thread t begins; fill shifts it */
  for(size_t i = 0; i < p->nmarkers; i++)
    g->markers[g->marker_start[bpi_profile_marker_thread(p, &p->markers[i]) +
                               1]++] = i;
  return BP_OK;
}

/* ---------------------------------------------------------------- view */

static bp_code view_init(struct thread_view *v, const struct bp_profile *p,
                         struct bp_err *err)
{
  size_t ns = p->nstacks ? p->nstacks : 1, nf = p->nframes ? p->nframes : 1;
  bpi_strtab_init(&v->strings);
  v->stack_row = malloc(ns * sizeof(uint32_t));
  v->frame_row = malloc(nf * sizeof(uint32_t));
  v->stacks = malloc(ns * sizeof(uint32_t));
  v->frames = malloc(nf * sizeof(uint32_t));
  if(!v->stack_row || !v->frame_row || !v->stacks || !v->frames)
    return bpi_err_set(err, BPE_NOMEM, 0, "gecko: thread tables");
  memset(v->stack_row, 0xff, ns * sizeof(uint32_t));  /* all BP_NONE */
  memset(v->frame_row, 0xff, nf * sizeof(uint32_t));
  return BP_OK;
}

static void view_cleanup(struct thread_view *v)
{
  bpi_strtab_cleanup(&v->strings);
  free(v->stack_row);
  free(v->frame_row);
  free(v->stacks);
  free(v->frames);
}

/* Forget the previous thread's rows (only those it set). */
static void view_reset(struct thread_view *v)
{
  for(uint32_t i = 0; i < v->nstacks; i++)
    v->stack_row[v->stacks[i]] = BP_NONE;
  for(uint32_t i = 0; i < v->nframes; i++)
    v->frame_row[v->frames[i]] = BP_NONE;
  v->nstacks = v->nframes = 0;
  bpi_strtab_cleanup(&v->strings);
  bpi_strtab_init(&v->strings);
}

static int by_u32(const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* Mark stack s and its ancestors used by the thread. */
static void view_add_stack(struct thread_view *v, const struct bp_profile *p,
                           uint32_t s)
{
  for(; s < p->nstacks && v->stack_row[s] == BP_NONE;
      s = p->stacks[s].parent) {
    v->stack_row[s] = 0;  /* seen; the row comes after sorting */
    v->stacks[v->nstacks++] = s;
  }
}

/* Rows for the stacks thread t uses and all their ancestors.  A parent is
 * always interned before its children, so ascending global order puts
 * parents first, as the format requires. */
static void view_build(struct gecko *g, uint32_t t)
{
  const struct bp_profile *p = g->p;
  struct thread_view *v = &g->v;
  view_reset(v);
  for(uint32_t i = g->thread_start[t]; i < g->thread_start[t + 1]; i++)
    view_add_stack(v, p, p->counts[g->by_thread[i]].stack);
  for(uint32_t i = 0; i < p->noff_counts; i++)
    if(p->off_counts[i].thread == t)
      view_add_stack(v, p, p->off_counts[i].stack);
  qsort(v->stacks, v->nstacks, sizeof(uint32_t), by_u32);
  for(uint32_t row = 0; row < v->nstacks; row++) {
    uint32_t s = v->stacks[row], f = p->stacks[s].frame;
    v->stack_row[s] = row;
    if(f < p->nframes && v->frame_row[f] == BP_NONE) {
      v->frame_row[f] = v->nframes;
      v->frames[v->nframes++] = f;
    }
  }
}

/* Index of s in the thread's string table; BP_NONE when memory ran out
 * (the caller's buffer is marked failed so the export fails). */
static uint32_t view_string(struct gecko *g, const char *s)
{
  uint32_t id = bpi_strtab_intern(&g->v.strings, s);
  if(id == BP_NONE)
    g->out->failed = true;
  return id;
}

/* "name (in lib)", the only shape the viewer reads as a native frame. */
static uint32_t frame_location(struct gecko *g, uint32_t frame)
{
  const struct bp_profile *p = g->p;
  const struct bp_frame *f = &p->frames[frame];
  const char *lib = bpi_profile_frame_lib(p, frame);
  bpi_buf_reset(&g->name);
  if(f->func < p->nfuncs)  /* unresolved: "0x1a2b" or "fn_1a00" */
    bpi_profile_clean_name(&g->name, bpi_profile_frame_name(p, frame), '\0');
  else
    bpi_buf_printf(&g->name, "0x%" PRIx64, f->addr);
  bpi_buf_adds(&g->name, " (in ");
  size_t lib_at = g->name.len;
  bpi_profile_clean_name(&g->name, *lib ? lib : "[unknown]", '\0');
  bpi_buf_addc(&g->name, ')');
  if(bpi_buf_failed(&g->name)) {
    g->out->failed = true;
    return 0;
  }
  /* a ')' in the library would end the viewer's "(in ...)" match early */
  for(size_t i = lib_at; i + 1 < g->name.len; i++)
    if(g->name.data[i] == ')')
      g->name.data[i] = ']';
  return view_string(g, g->name.data);
}

/* ---------------------------------------------------------------- output */

static void add_category(struct bp_buf *b, const char *name,
                         const char *color)
{
  bpi_buf_printf(b, "{\"name\":\"%s\",\"color\":\"%s\","
                 "\"subcategories\":[\"Other\"]}", name, color);
}

static void add_str_field(struct bp_buf *b, const char *key, const char *s)
{
  bpi_buf_printf(b, "\"%s\":", key);
  if(s)
    bpi_buf_json_str(b, s);
  else
    bpi_buf_adds(b, "null");
}

/* Our own facts about the run; the viewer ignores unknown meta keys. */
static void add_benchprof_meta(struct bp_buf *b, const struct bp_profile *p)
{
  const struct bp_profile_meta *m = &p->meta;
  bpi_buf_adds(b, "\"benchprof\":{\"version\":\"" BENCHPROF_VERSION "\",");
  if(m->off_cpu) {  /* rows with a CPU delta of 0 are waits */
    bpi_buf_adds(b, "\"off_cpu\":true,");
    add_str_field(b, "off_cpu_stack_note", m->off_cpu_stack_note);
    bpi_buf_adds(b, ",");
  }
  add_str_field(b, "event", m->event);
  bpi_buf_addc(b, ',');
  add_str_field(b, "requested_event", m->requested_event);
  bpi_buf_printf(b, ",\"fallback\":%s,",
                 m->fallback_reason ? "true" : "false");
  add_str_field(b, "fallback_reason", m->fallback_reason);
  bpi_buf_printf(b, ",\"precise_requested\":%u,\"precise_used\":%u",
                 m->precise_requested, m->precise_used);
  bpi_buf_printf(b, ",\"frequency\":%" PRIu64 ",\"period\":%" PRIu64
                 ",\"samples\":%" PRIu64 ",\"lost\":%" PRIu64
                 ",\"throttled\":%" PRIu64 ",", m->freq, m->period,
                 m->samples, m->lost_records, m->throttled);
  add_str_field(b, "command", m->command);
  bpi_buf_addc(b, ',');
  add_str_field(b, "host", m->host);
  bpi_buf_printf(b, ",\"exit_status\":%d,\"kernel_sampled\":%s,",
                 m->exit_status, m->kernel_unsampled ? "false" : "true");
  char note[320];
  bpi_profile_unsampled_note(p, note, sizeof(note));
  add_str_field(b, "unsampled", *note ? note : NULL);
  double pct = bpi_profile_unsampled_pct(p);
  if(m->kernel_unsampled && pct >= 0)
    bpi_buf_printf(b, ",\"unsampled_pct\":%.1f}", pct);
  else
    bpi_buf_adds(b, ",\"unsampled_pct\":null}");
}

/* The interval in nanoseconds: 1/freq, or the period of a clock event. */
static uint64_t interval_ns(const struct bp_profile_meta *m)
{
  if(m->freq)
    return 1000000000u / m->freq;
  if(m->time_event && m->period)
    return m->period;
  return 1000000;  /* unknown: the viewer only uses it for drawing */
}

/* The run marker's schema: command and exit status in its tooltip. */
static const char run_schema[] =
  "{\"name\":\"BenchprofRun\",\"display\":[\"marker-chart\","
  "\"marker-table\",\"timeline-overview\"],"
  "\"tooltipLabel\":\"benchprof run\","
  "\"tableLabel\":\"{marker.data.command}\","
  "\"chartLabel\":\"{marker.data.command}\",\"data\":["
  "{\"key\":\"command\",\"label\":\"Command\",\"format\":\"string\","
  "\"searchable\":true},"
  "{\"key\":\"exitStatus\",\"label\":\"Exit status\",\"format\":\"integer\"}"
  "]}";

/* One benchmark the harness marked: its name in the chart. */
static const char bench_schema[] =
  "{\"name\":\"BenchprofBenchmark\",\"display\":[\"marker-chart\","
  "\"marker-table\",\"timeline-overview\"],"
  "\"tooltipLabel\":\"{marker.name}\","
  "\"tableLabel\":\"{marker.data.benchmark}\","
  "\"chartLabel\":\"{marker.data.benchmark}\",\"data\":["
  "{\"key\":\"benchmark\",\"label\":\"Benchmark\",\"format\":\"string\","
  "\"searchable\":true}]}";

/* One repetition of benchprof run --repeat (a merged profile's). */
static const char repetition_schema[] =
  "{\"name\":\"BenchprofRepetition\",\"display\":[\"marker-chart\","
  "\"marker-table\",\"timeline-overview\"],"
  "\"tooltipLabel\":\"{marker.name}\","
  "\"tableLabel\":\"{marker.data.repetition}\","
  "\"chartLabel\":\"{marker.data.repetition}\",\"data\":["
  "{\"key\":\"repetition\",\"label\":\"Repetition\",\"format\":\"string\","
  "\"searchable\":true}]}";

static void add_meta(struct bp_buf *b, const struct bp_profile *p)
{
  const struct bp_profile_meta *m = &p->meta;
  double start_us = m->start_epoch_ms * 1000.0;
  bpi_buf_printf(b, "\"meta\":{\"version\":%d,\"interval\":", GECKO_VERSION);
  add_decimal(b, (int64_t)interval_ns(m), 6);
  bpi_buf_adds(b, ",\"startTime\":");
  add_decimal(b, start_us > 0 && start_us < 9e18 ?
              (int64_t)(start_us + 0.5) : 0, 3);
  bpi_buf_adds(b, ",\"shutdownTime\":null,\"processType\":0,"
               "\"product\":\"benchprof\",\"stackwalk\":1,\"debug\":0,"
               "\"gcpoison\":0,\"asyncstack\":0,\"presymbolicated\":true,");
  if(m->time_event)
    bpi_buf_adds(b, "\"sampleUnits\":{\"time\":\"ms\",\"eventDelay\":\"ms\","
                 "\"threadCPUDelta\":\"\xc2\xb5s\"},");
  bpi_buf_adds(b, "\"categories\":[");
  add_category(b, "Other", "grey");
  bpi_buf_addc(b, ',');
  add_category(b, "User", "yellow");
  bpi_buf_addc(b, ',');
  add_category(b, "Kernel", "orange");
  bpi_buf_adds(b, "],\"markerSchema\":[");
  bpi_buf_adds(b, run_schema);
  bpi_buf_addc(b, ',');
  bpi_buf_adds(b, bench_schema);
  bpi_buf_addc(b, ',');
  bpi_buf_adds(b, repetition_schema);
  bpi_buf_adds(b, "],");
  add_benchprof_meta(b, p);
  bpi_buf_adds(b, "},\n");
}

/* Breakpad's debug id of an ELF file: the first 16 bytes of the build id
 * as a little-endian GUID, upper-case hex, then the age "0". */
static void add_breakpad_id(struct bp_buf *b, const char *build_id)
{
  static const int order[16] = {3, 2, 1, 0, 5, 4, 7, 6,
                                8, 9, 10, 11, 12, 13, 14, 15};
  static const char hex[] = "0123456789ABCDEF";
  size_t len = strlen(build_id);
  char id[34];
  if(!len) {
    bpi_buf_adds(b, "\"\"");
    return;
  }
  for(int i = 0; i < 16; i++) {
    size_t at = (size_t)order[i] * 2;
    char hi = at < len ? build_id[at] : '0';
    char lo = at + 1 < len ? build_id[at + 1] : '0';
    id[i * 2] = hex[(hi >= 'a' ? hi - 'a' + 10 : hi >= 'A' ? hi - 'A' + 10 :
                     hi - '0') & 15];
    id[i * 2 + 1] = hex[(lo >= 'a' ? lo - 'a' + 10 : lo >= 'A' ?
                         lo - 'A' + 10 : lo - '0') & 15];
  }
  id[32] = '0';
  id[33] = '\0';
  bpi_buf_json_str(b, id);
}

/* The libraries, for the viewer's library list; frames do not point into
 * them (their locations are already names), so ranges are informative. */
static void add_libs(struct bp_buf *b, const struct bp_profile *p)
{
  bpi_buf_adds(b, "\"libs\":[");
  for(uint32_t i = 0; i < p->nlibs; i++) {
    const struct bp_lib *l = &p->libs[i];
    const char *name = bpi_profile_str(p, l->name);
    const char *path = bpi_profile_str(p, l->path);
    bool seen = l->lo <= l->hi;
    bpi_buf_adds(b, i ? ",\n{" : "\n{");
    add_str_field(b, "name", name);
    bpi_buf_addc(b, ',');
    add_str_field(b, "path", path);
    bpi_buf_addc(b, ',');
    add_str_field(b, "debugName", name);
    bpi_buf_addc(b, ',');
    add_str_field(b, "debugPath", path);
    bpi_buf_adds(b, ",\"breakpadId\":");
    add_breakpad_id(b, bpi_profile_str(p, l->build_id));
    bpi_buf_addc(b, ',');
    add_str_field(b, "codeId", bpi_profile_str(p, l->build_id));
    bpi_buf_printf(b, ",\"arch\":\"\",\"start\":%" PRIu64 ",\"end\":%" PRIu64
                   ",\"offset\":0}", seen ? l->lo : 0,
                   seen ? l->hi + 1 : 0);
  }
  bpi_buf_adds(b, "],\n");
}

/* One interval marker per benchmark, after the run marker, named as the
 * harness named it (cleaned like every other name); a merged profile's
 * repetitions are markers of their own type.  Those of thread t;
 * *first: nothing written before them in the list. */
static void add_bench_markers(struct gecko *g, uint32_t t, bool first)
{
  const struct bp_profile *p = g->p;
  struct bp_buf *b = g->out;
  for(size_t k = g->marker_start[t]; k < g->marker_start[t + 1]; k++) {
    const struct bp_marker *m = &p->markers[g->markers[k]];
    bpi_buf_reset(&g->name);
    bpi_profile_clean_name(&g->name, m->name, '\0');
    const char *name = bpi_buf_failed(&g->name) || !g->name.data
                         ? "" : g->name.data;
    bpi_buf_printf(b, "%s[%" PRIu32 ",", first ? "\n" : ",\n",
                   view_string(g, name));
    first = false;
    add_rel_ms(b, p, m->start_ns);
    bpi_buf_addc(b, ',');
    add_rel_ms(b, p, m->end_ns);
    bool rep = m->kind == BP_MARKER_REPETITION;
    bpi_buf_printf(b, ",1,%d,{\"type\":\"%s\",", CAT_OTHER,
                   rep ? "BenchprofRepetition" : "BenchprofBenchmark");
    add_str_field(b, rep ? "repetition" : "benchmark", name);
    bpi_buf_adds(b, "}]");
  }
}

/* The run marker on the main thread; each marker on the thread that
 * shows it. */
static void add_markers(struct gecko *g, uint32_t t)
{
  const struct bp_profile *p = g->p;
  struct bp_buf *b = g->out;
  bool run = t == g->main_thread;
  bpi_buf_adds(b, "\"markers\":{\"schema\":{\"name\":0,\"startTime\":1,"
               "\"endTime\":2,\"phase\":3,\"category\":4,\"data\":5},"
               "\"data\":[");
  if(run) {
    uint64_t end = p->meta.end_ns > p->meta.start_ns ? p->meta.end_ns
                                                     : p->meta.start_ns;
    bpi_buf_printf(b, "[%" PRIu32 ",0,", view_string(g, "benchprof run"));
    add_rel_ms(b, p, end);
    bpi_buf_printf(b, ",1,%d,{\"type\":\"BenchprofRun\",", CAT_OTHER);
    add_str_field(b, "command", p->meta.command ? p->meta.command : "");
    bpi_buf_printf(b, ",\"exitStatus\":%d}]", p->meta.exit_status);
  }
  add_bench_markers(g, t, !run);
  bpi_buf_adds(b, "]},\n");
}

static void add_samples(struct gecko *g, uint32_t t, uint64_t *next)
{
  const struct bp_profile *p = g->p;
  struct bp_buf *b = g->out;
  bool cpu = p->meta.time_event;
  bpi_buf_printf(b, "\"samples\":{\"schema\":{\"stack\":0,\"time\":1,"
                 "\"eventDelay\":2%s},\"data\":[",
                 cpu ? ",\"threadCPUDelta\":3" : "");
  uint64_t first = *next;
  for(uint64_t i = first; i < g->nsamples && g->samples[i].thread == t;
      i++) {
    const struct bp_sample *s = &g->samples[i];
    uint32_t row = s->stack < p->nstacks ? g->v.stack_row[s->stack] : BP_NONE;
    /* one row built here and appended once: this runs per sample */
    char line[8 + 20 + 1 + DECIMAL_MAX + 3 + DECIMAL_MAX + 2];
    size_t n = 0;
    if(i > first)
      line[n++] = ',';
    line[n++] = '\n';
    line[n++] = '[';
    if(row == BP_NONE) {
      memcpy(line + n, "null", 4);
      n += 4;
    }
    else
      n += put_u64(line + n, row);
    line[n++] = ',';
    n += put_decimal(line + n, rel_us(p, s->time_ns), 3);  /* add_rel_ms */
    line[n++] = ',';
    line[n++] = '0';
    if(cpu) {
      line[n++] = ',';
      n += put_decimal(line + n, (int64_t)(s->weight > INT64_MAX ? INT64_MAX
                                                                 : s->weight),
                       3);
    }
    line[n++] = ']';
    bpi_buf_add(b, line, n);
    *next = i + 1;
  }
  bpi_buf_adds(b, "]},\n");
}

/* An inlined call is a row of its own, as its function; the Gecko
 * format's frame table has no column to mark it inlined (inlineDepth is
 * the processed format's, which the viewer fills with 0 on loading). */
static void add_frame_table(struct gecko *g)
{
  const struct bp_profile *p = g->p;
  struct bp_buf *b = g->out;
  bpi_buf_adds(b, "\"frameTable\":{\"schema\":{\"location\":0,"
               "\"relevantForJS\":1,\"innerWindowID\":2,"
               "\"implementation\":3,\"line\":4,\"column\":5,"
               "\"category\":6,\"subcategory\":7},\"data\":[");
  for(uint32_t row = 0; row < g->v.nframes; row++) {
    const struct bp_frame *f = &p->frames[g->v.frames[row]];
    bpi_buf_printf(b, "%s[%" PRIu32 ",false,0,null,", row ? ",\n" : "\n",
                   frame_location(g, g->v.frames[row]));
    if(f->line)
      bpi_buf_printf(b, "%" PRIu32, f->line);
    else
      bpi_buf_adds(b, "null");
    bpi_buf_printf(b, ",null,%d,0]",
                   f->kind == BP_FRAME_KERNEL ? CAT_KERNEL : CAT_USER);
  }
  bpi_buf_adds(b, "]},\n");
}

static void add_stack_table(struct gecko *g)
{
  const struct bp_profile *p = g->p;
  struct bp_buf *b = g->out;
  bpi_buf_adds(b, "\"stackTable\":{\"schema\":{\"prefix\":0,\"frame\":1},"
               "\"data\":[");
  for(uint32_t row = 0; row < g->v.nstacks; row++) {
    const struct bp_stack *s = &p->stacks[g->v.stacks[row]];
    bpi_buf_adds(b, row ? ",\n[" : "\n[");
    if(s->parent < p->nstacks)
      bpi_buf_printf(b, "%" PRIu32, g->v.stack_row[s->parent]);
    else
      bpi_buf_adds(b, "null");
    bpi_buf_printf(b, ",%" PRIu32 "]", g->v.frame_row[s->frame]);
  }
  bpi_buf_adds(b, "]},\n");
}

static void add_string_table(struct gecko *g)
{
  struct bp_buf *b = g->out;
  bpi_buf_adds(b, "\"stringTable\":[");
  for(size_t i = 0; i < g->v.strings.count; i++) {
    bpi_buf_adds(b, i ? ",\n" : "\n");
    bpi_buf_json_str(b, bpi_strtab_get(&g->v.strings, (uint32_t)i));
  }
  bpi_buf_adds(b, "]");
}

static void add_thread(struct gecko *g, uint32_t t, uint64_t *next_sample)
{
  const struct bp_profile *p = g->p;
  const struct bp_thread *th = &p->threads[t];
  struct bp_buf *b = g->out;
  const char *name = bpi_profile_str(p, th->name);
  const char *proc = bpi_profile_str(p, th->process_name);
  view_build(g, t);
  bpi_buf_adds(b, t ? ",\n{" : "\n{");
  /* a comm can be unknown (the thread ended before we asked) */
  if(*name || *proc)
    add_str_field(b, "name", *name ? name : proc);
  else
    bpi_buf_printf(b, "\"name\":\"[tid %" PRIu32 "]\"", th->tid);
  bpi_buf_adds(b, ",\"processType\":\"default\",");
  if(*name || *proc)
    add_str_field(b, "processName", *proc ? proc : name);
  else
    bpi_buf_printf(b, "\"processName\":\"[pid %" PRIu32 "]\"", th->pid);
  bpi_buf_printf(b, ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
                 ",\"registerTime\":", th->pid, th->tid);
  if(th->start_ns)
    add_rel_ms(b, p, th->start_ns);
  else
    bpi_buf_adds(b, "0");
  bpi_buf_adds(b, ",\"unregisterTime\":");
  if(th->end_ns)
    add_rel_ms(b, p, th->end_ns);
  else
    bpi_buf_adds(b, "null");
  bpi_buf_adds(b, ",\n");
  add_markers(g, t);
  add_samples(g, t, next_sample);
  add_frame_table(g);   /* interns the locations ... */
  add_stack_table(g);
  add_string_table(g);  /* ... so the string table comes last */
  bpi_buf_adds(b, "}");
}

static bp_code gecko_write(const struct bp_profile *p, struct bp_buf *out,
                           struct bp_err *err)
{
  struct gecko g = {.p = p, .out = out,
                    .main_thread = bpi_profile_main_thread(p)};
  uint64_t next_sample = 0;
  bpi_buf_init(&g.name);
  bp_code rc = count_samples(&g, err);
  if(!rc)
    rc = group_counts(&g, err);
  if(!rc)
    rc = group_markers(&g, err);
  if(!rc)
    rc = view_init(&g.v, p, err);
  if(rc)
    goto out;

  bpi_buf_adds(out, "{");
  add_meta(out, p);
  add_libs(out, p);
  bpi_buf_adds(out, "\"pausedRanges\":[],\"processes\":[],\n\"threads\":[");
  for(uint32_t t = 0; t < p->nthreads && !bpi_buf_failed(out); t++) {
    if(t >= g.chunk_hi) {
      rc = load_chunk(&g, t, err);
      if(rc)
        goto out;
      next_sample = 0;
    }
    /* samples of threads the model does not know are skipped */
    while(next_sample < g.nsamples && g.samples[next_sample].thread < t)
      next_sample++;
    add_thread(&g, t, &next_sample);
  }
  bpi_buf_adds(out, "]}\n");
out:
  view_cleanup(&g.v);
  bpi_buf_cleanup(&g.name);
  free(g.thread_start);
  free(g.by_thread);
  free(g.markers);
  free(g.marker_start);
  free(g.samples);
  free(g.thread_samples);
  free(g.thread_at);
  free(g.block);
  free(g.off_carry);
  return rc;
}

const struct bp_exporter bpi_export_gecko = {
  "gecko", BP_FILE_GECKO, true, gecko_write, NULL
};
