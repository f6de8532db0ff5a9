/* profile_offcpu: the off-CPU part of the profile model (--off-cpu).
 * Intervals a thread spent switched out, each charged to the stack it had
 * when it left the CPU, aggregated per (thread, stack) in p->off_counts
 * and kept as a timeline spilled to a temporary file, like the samples. */
#include "bp_setup.h"
#include "profile.h"
#include "buf.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static bool grow_off_counts(struct bp_profile *p)
{
  if(p->noff_counts < p->off_counts_cap)
    return true;
  uint32_t cap = p->off_counts_cap ? p->off_counts_cap * 2 : 64;
  struct bp_off_count *n = realloc(p->off_counts, cap * sizeof(*n));
  if(!n)
    return false;
  p->off_counts = n;
  p->off_counts_cap = cap;
  return true;
}

bp_code bpi_profile_add_off(struct bp_profile *p, uint32_t thread,
                            uint32_t stack, uint64_t time_ns, uint64_t dur_ns,
                            bool preempted)
{
  uint32_t idx = bpi_map_get(&p->off_index, thread, stack);
  if(idx == BP_NONE) {
    if(!grow_off_counts(p))
      return BPE_NOMEM;
    idx = p->noff_counts;
    if(bpi_map_put(&p->off_index, thread, stack, idx))
      return BPE_NOMEM;
    p->off_counts[idx] = (struct bp_off_count){.thread = thread,
                                               .stack = stack};
    p->noff_counts++;
  }
  struct bp_off_count *c = &p->off_counts[idx];
  c->count++;
  c->ns += dur_ns;
  if(preempted)
    c->preempt_ns += dur_ns;
  if(!p->off_timeline) {
    p->off_timeline = tmpfile();
    if(!p->off_timeline)
      return BPE_IO;
  }
  struct bp_off_sample s = {.thread = thread, .stack = stack,
                            .time_ns = time_ns, .dur_ns = dur_ns,
                            .preempted = preempted};
  if(fwrite(&s, sizeof(s), 1, p->off_timeline) != 1)
    return BPE_IO;
  p->off_timeline_len++;
  return BP_OK;
}

bp_code bpi_profile_off_rewind(const struct bp_profile *p)
{
  if(!p->off_timeline)
    return BP_OK;
  if(fflush(p->off_timeline) || fseek(p->off_timeline, 0, SEEK_SET))
    return BPE_IO;
  return BP_OK;
}

bool bpi_profile_off_next(const struct bp_profile *p,
                          struct bp_off_sample *out)
{
  return p->off_timeline &&
         fread(out, sizeof(*out), 1, p->off_timeline) == 1;
}

uint64_t bpi_profile_off_ns(const struct bp_profile *p, uint64_t *preempt_ns)
{
  uint64_t ns = 0, pre = 0;
  for(uint32_t i = 0; i < p->noff_counts; i++) {
    ns += p->off_counts[i].ns;
    pre += p->off_counts[i].preempt_ns;
  }
  if(preempt_ns)
    *preempt_ns = pre;
  return ns;
}

void bpi_profile_thread_times(const struct bp_profile *p, uint64_t *on_ns,
                              uint64_t *off_ns)
{
  /* one pass over each table, not one per thread: a program of
   * thousands of threads has as many (thread, stack) counts again */
  memset(on_ns, 0, p->nthreads * sizeof(*on_ns));
  memset(off_ns, 0, p->nthreads * sizeof(*off_ns));
  if(p->meta.time_event)
    for(uint32_t i = 0; i < p->ncounts; i++)
      if(p->counts[i].thread < p->nthreads)
        on_ns[p->counts[i].thread] += p->counts[i].weight;
  for(uint32_t i = 0; i < p->noff_counts; i++)
    if(p->off_counts[i].thread < p->nthreads)
      off_ns[p->off_counts[i].thread] += p->off_counts[i].ns;
}

/* How much of [t, t + dur) lies in the n ranges, sorted and disjoint;
 * *first gets where that part begins. */
static uint64_t overlap_ns(const struct bp_range *r, size_t n, uint64_t t,
                           uint64_t dur, uint64_t *first)
{
  uint64_t end = t + dur < t ? UINT64_MAX : t + dur, in = 0;
  for(size_t i = 0; i < n && r[i].start_ns < end; i++) {
    uint64_t lo = r[i].start_ns > t ? r[i].start_ns : t;
    uint64_t hi = r[i].end_ns < end ? r[i].end_ns : end;
    if(hi <= lo)
      continue;
    if(!in)
      *first = lo;
    in += hi - lo;
  }
  return in;
}

bp_code bpi_profile_off_copy(struct bp_profile *d, const struct bp_profile *s,
                             const struct bp_range *r, size_t n,
                             bp_code (*stack_of)(void *ctx, uint32_t old,
                                                 uint32_t *out),
                             void *ctx)
{
  struct bp_off_sample o;
  bp_code rc = bpi_profile_off_rewind(s);
  while(!rc && bpi_profile_off_next(s, &o)) {
    /* a wait is the range's for the part of it inside the range: one
     * begun before a benchmark started, or still going when it ended,
     * is only partly its */
    uint64_t start = o.time_ns;
    uint64_t in = overlap_ns(r, n, o.time_ns, o.dur_ns, &start);
    if(in)
      rc = stack_of(ctx, o.stack, &o.stack);
    if(in && !rc)
      rc = bpi_profile_add_off(d, o.thread, o.stack, start, in, o.preempted);
  }
  return rc;
}

uint64_t bpi_profile_off_blocked_in(const struct bp_profile *p,
                                    const struct bp_range *r, size_t n)
{
  struct bp_off_sample o;
  uint64_t ns = 0, start;
  if(bpi_profile_off_rewind(p))
    return 0;
  while(bpi_profile_off_next(p, &o))
    if(!o.preempted)
      ns += overlap_ns(r, n, o.time_ns, o.dur_ns, &start);
  return ns;
}

/* One distinct (thread, frame names) of the off-CPU counts, as
 * bpi_profile_off_top gathers them: its text (in a buffer that may still
 * move: off, then text) and the first count of it in table order. */
struct named_wait {
  size_t off;
  const char *text;
  uint32_t first;
  struct bp_off_count sum;
};

/* The text of count c: its thread, then its frames' labels leaf first,
 * cleaned as the folded file cleans them, NUL-terminated. */
static void wait_text(struct bp_buf *b, const struct bp_profile *p,
                      const struct bp_off_count *c)
{
  char tmp[64];
  bpi_buf_printf(b, "%" PRIu32, c->thread);
  for(uint32_t s = c->stack; s < p->nstacks; s = p->stacks[s].parent) {
    bpi_buf_addc(b, ';');
    bpi_profile_clean_name(b, bpi_profile_frame_label(p, p->stacks[s].frame,
                                                      tmp, sizeof(tmp)),
                           ';');
  }
  bpi_buf_addc(b, '\0');
}

static int by_text_then_first(const void *a, const void *b)
{
  const struct named_wait *x = a, *y = b;
  int d = strcmp(x->text, y->text);
  if(d)
    return d;
  return x->first < y->first ? -1 : 1;
}

static int by_ns_desc(const void *a, const void *b)
{
  const struct named_wait *x = a, *y = b;
  if(x->sum.ns != y->sum.ns)
    return x->sum.ns > y->sum.ns ? -1 : 1;
  /* ties in table order, so the output does not depend on qsort */
  return x->first < y->first ? -1 : 1;
}

/* Sorted by text, the waits of one text added up into the first of them;
 * returns how many distinct texts. */
static size_t merge_same_text(struct named_wait *w, size_t n)
{
  qsort(w, n, sizeof(*w), by_text_then_first);
  size_t k = 0;
  for(size_t i = 0; i < n; i++) {
    if(k && !strcmp(w[k - 1].text, w[i].text)) {
      w[k - 1].sum.count += w[i].sum.count;
      w[k - 1].sum.ns += w[i].sum.ns;
      w[k - 1].sum.preempt_ns += w[i].sum.preempt_ns;
    }
    else
      w[k++] = w[i];
  }
  return k;
}

size_t bpi_profile_off_top(const struct bp_profile *p, struct bp_off_count *out,
                           size_t max)
{
  uint32_t n = p->noff_counts;
  if(!n || !max)
    return 0;
  struct named_wait *w = malloc(n * sizeof(*w));
  struct bp_buf text;
  bpi_buf_init(&text);
  size_t k = 0;
  if(w) {
    for(uint32_t i = 0; i < n; i++) {
      w[i] = (struct named_wait){.off = text.len, .first = i,
                                 .sum = p->off_counts[i]};
      wait_text(&text, p, &p->off_counts[i]);
    }
    if(!bpi_buf_failed(&text)) {
      for(uint32_t i = 0; i < n; i++)
        w[i].text = text.data + w[i].off;
      size_t groups = merge_same_text(w, n);
      qsort(w, groups, sizeof(*w), by_ns_desc);
      k = groups < max ? groups : max;
      for(size_t i = 0; i < k; i++)
        out[i] = w[i].sum;
    }
  }
  bpi_buf_cleanup(&text);
  free(w);
  return k;
}
