/* compare, functions: the folded stacks of both sides of a benchmark ->
 * its differential lines and each function's self and total samples,
 * shares and absolute costs with their Poisson intervals, named when
 * beyond the benchmark's own noise, most changed first. */
#include "bp_setup.h"
#include "compare_int.h"
#include "buf.h"
#include "counters.h"
#include "err.h"
#include "fileio.h"
#include "profile.h"
#include "stats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bp_code stacks_add(struct stacks *st, int side, const char *stack,
                          uint64_t n)
{
  uint32_t id = bpi_strtab_intern(&st->text, stack);
  if(id == BP_NONE)
    return BPE_NOMEM;
  if(id >= st->cap) {
    size_t cap = st->cap ? st->cap * 2 : 64;
    for(int i = 0; i < 2; i++) {
      uint64_t *c = realloc(st->count[i], cap * sizeof(*c));
      if(!c)
        return BPE_NOMEM;
      memset(c + st->cap, 0, (cap - st->cap) * sizeof(*c));
      st->count[i] = c;
    }
    st->cap = cap;
  }
  st->count[side][id] += n;
  st->total[side] += n;
  return BP_OK;
}

/* The most frames of one stack compare reads.  Recordings stop at 1024
 * return addresses (converter.c), a few more with inlined frames; the
 * flame graphs walk stacks recursively, so a folded file from elsewhere
 * with a stack 100,000 deep must be refused, not crash them. */
#define MAX_FOLDED_FRAMES 16384

static bool too_deep(const char *stack)
{
  size_t frames = 1;
  for(const char *s = stack; (s = strchr(s, ';')); s++)
    if(++frames > MAX_FOLDED_FRAMES)
      return true;
  return false;
}

/* Whether the len bytes at s are "0x" and lowercase hex digits. */
static bool is_hex_address(const char *s, size_t len)
{
  return len > 2 && !strncmp(s, "0x", 2) &&
         strspn(s + 2, "0123456789abcdef") >= len - 2;
}

/* What an older benchprof labelled by its address, a frame of len bytes
 * at f: BP_UNMAPPED for "0x1a2b (in [unknown])" (in no mapping),
 * BP_ANON_CODE for "0x1a2b (in perf-PID.map)" (anonymous code no map
 * names); NULL for any other frame. */
static const char *unnamed_group(const char *f, size_t len)
{
  const char *in = memchr(f, ' ', len);
  if(!in || !is_hex_address(f, (size_t)(in - f)))
    return NULL;
  size_t rest = len - (size_t)(in - f);
  static const char unmapped[] = " (in " BP_UNMAPPED ")";
  if(rest == sizeof(unmapped) - 1 && !memcmp(in, unmapped, rest))
    return BP_UNMAPPED;
  /* " (in perf-" digits ".map)" */
  static const char perf[] = " (in perf-", map[] = ".map)";
  size_t lp = sizeof(perf) - 1, lm = sizeof(map) - 1;
  if(rest <= lp + lm || memcmp(in, perf, lp) ||
     memcmp(in + rest - lm, map, lm))
    return NULL;
  size_t digits = rest - lp - lm;
  return strspn(in + lp, "0123456789") >= digits ? BP_ANON_CODE : NULL;
}

/* The stack with each frame that names only an address no file holds
 * relabelled as profiles label them now (BP_UNMAPPED, BP_ANON_CODE), in
 * place: a base recorded by an older benchprof must not show the same
 * code at other addresses than the head's (ASLR) as functions that
 * vanished and new ones. */
static void group_unnamed(char *stack)
{
  char *to = stack;
  for(const char *f = stack; *f;) {
    size_t len = strcspn(f, ";");
    const char *group = unnamed_group(f, len);
    if(group) {
      memcpy(to, group, strlen(group));  /* never longer than the frame */
      to += strlen(group);
    }
    else {
      memmove(to, f, len);
      to += len;
    }
    f += len;
    if(*f)
      *to++ = *f++;
  }
  *to = '\0';
}

/* Parse "stack count" lines; the count follows the last space. */
bp_code bpi_cmp_read_folded(struct stacks *st, int side, const char *path,
                           struct bp_err *err)
{
  char *text = NULL;
  size_t len = 0, lineno = 0;
  struct bp_buf marked;   /* a line of an older profile, kernel marked */
  bpi_buf_init(&marked);
  bp_code rc = bpi_file_read(path, &text, &len, err);
  for(char *line = text; !rc && line && *line;) {
    char *nl = strchr(line, '\n');
    if(nl)
      *nl = '\0';
    lineno++;
    if(*line) {
      char *sp = strrchr(line, ' '), *end = NULL;
      unsigned long long n = 0;
      if(sp) {
        errno = 0;
        n = strtoull(sp + 1, &end, 10);
      }
      if(!sp || sp == line || end == sp + 1 || *end || errno ||
         sp[1] == '-')
        rc = bpi_err_set(err, BPE_FORMAT, 0, "%s:%zu: expected 'stack "
                         "count'", path, lineno);
      else {
        *sp = '\0';
        group_unnamed(line);
        const char *stack = bpi_cmp_mark_kernel(line, &marked) ? marked.data
                                                                : line;
        if(bpi_buf_failed(&marked))
          rc = bpi_err_set(err, BPE_NOMEM, 0, "%s: stacks", path);
        else if(too_deep(stack))
          rc = bpi_err_set(err, BPE_FORMAT, 0, "%s:%zu: a stack of more "
                           "than %d frames", path, lineno, MAX_FOLDED_FRAMES);
        else if((rc = stacks_add(st, side, stack, n)))
          rc = bpi_err_set(err, rc, 0, "%s: stacks", path);
      }
    }
    line = nl ? nl + 1 : NULL;
  }
  bpi_buf_cleanup(&marked);
  free(text);
  return rc;
}

/* The length of stack's first frame (the process name). */
static size_t root_len(const char *stack)
{
  return strcspn(stack, ";");
}

/* The process names (first frames) of each side's stacks, and each
 * name's samples on that side (samples[side][name id in roots[side]]). */
struct roots {
  struct bp_strtab names[2];
  uint64_t *samples[2];
  size_t cap[2];
};

static void roots_cleanup(struct roots *r)
{
  for(int side = 0; side < 2; side++) {
    bpi_strtab_cleanup(&r->names[side]);
    free(r->samples[side]);
  }
}

static bp_code roots_add(struct roots *r, int side, const char *name,
                         uint64_t n)
{
  uint32_t id = bpi_strtab_intern(&r->names[side], name);
  if(id == BP_NONE)
    return BPE_NOMEM;
  if(id >= r->cap[side]) {
    size_t cap = r->cap[side] ? 2 * r->cap[side] : 16;
    uint64_t *s = realloc(r->samples[side], cap * sizeof(*s));
    if(!s)
      return BPE_NOMEM;
    memset(s + r->cap[side], 0, (cap - r->cap[side]) * sizeof(*s));
    r->samples[side] = s;
    r->cap[side] = cap;
  }
  r->samples[side][id] += n;
  return BP_OK;
}

static bp_code side_roots(const struct stacks *st, struct roots *r)
{
  struct bp_buf name;
  bpi_buf_init(&name);
  bp_code rc = BP_OK;
  for(size_t i = 0; !rc && i < st->text.count; i++) {
    const char *s = bpi_strtab_get(&st->text, (uint32_t)i);
    bpi_buf_reset(&name);
    bpi_buf_add(&name, s, root_len(s));
    bpi_buf_addc(&name, '\0');
    if(bpi_buf_failed(&name))
      rc = BPE_NOMEM;
    for(int side = 0; !rc && side < 2; side++)
      if(st->count[side][i])
        rc = roots_add(r, side, name.data, st->count[side][i]);
  }
  bpi_buf_cleanup(&name);
  return rc;
}

/* The one process name of side's that the other side has not, when it
 * holds most of side's samples: the benchmark's program.  NULL when
 * there is none, several, or it is a minor one (a helper the other side
 * did not start).  Names in brackets ("[pid N]", the unsampled time's
 * line) are no program's. */
static const char *lone_root(const struct roots *r, const struct stacks *st,
                             int side)
{
  const char *found = NULL;
  uint64_t samples = 0;
  for(uint32_t i = 0; i < r->names[side].count; i++) {
    const char *name = bpi_strtab_get(&r->names[side], i);
    if(name[0] == '[' ||
       bpi_strtab_find(&r->names[!side], name) != BP_NONE)
      continue;
    if(found)
      return NULL;
    found = name;
    samples = r->samples[side][i];
  }
  return found && 2 * samples > st->total[side] ? found : NULL;
}

void bpi_cmp_stacks_cleanup(struct stacks *st)
{
  bpi_strtab_cleanup(&st->text);
  free(st->count[0]);
  free(st->count[1]);
}

/* st's stacks again, those of the process old under new_root. */
static bp_code rename_root(const struct stacks *st, const char *old,
                           const char *new_root, struct stacks *out)
{
  size_t olen = strlen(old);
  struct bp_buf text;
  bpi_buf_init(&text);
  bp_code rc = BP_OK;
  for(size_t i = 0; !rc && i < st->text.count; i++) {
    const char *s = bpi_strtab_get(&st->text, (uint32_t)i);
    bool rename = root_len(s) == olen && !strncmp(s, old, olen);
    bpi_buf_reset(&text);
    if(rename) {
      bpi_buf_adds(&text, new_root);
      s += olen;
    }
    bpi_buf_adds(&text, s);
    bpi_buf_addc(&text, '\0');
    if(bpi_buf_failed(&text))
      rc = BPE_NOMEM;
    for(int side = 0; !rc && side < 2; side++)
      if(st->count[side][i])
        rc = stacks_add(out, side, text.data, st->count[side][i]);
  }
  bpi_buf_cleanup(&text);
  return rc;
}

bp_code bpi_cmp_rename_root(struct stacks *st, const char *old,
                            const char *new_root)
{
  struct stacks nst = {.cap = 0};
  bpi_strtab_init(&nst.text);
  bp_code rc = rename_root(st, old, new_root, &nst);
  if(rc) {
    bpi_cmp_stacks_cleanup(&nst);
    return rc;
  }
  bpi_cmp_stacks_cleanup(st);
  *st = nst;
  return BP_OK;
}

bp_code bpi_cmp_match_roots(struct stacks *st, char **base_name,
                            char **head_name)
{
  struct roots r;
  memset(&r, 0, sizeof(r));
  bpi_strtab_init(&r.names[0]);
  bpi_strtab_init(&r.names[1]);
  *base_name = *head_name = NULL;
  bp_code rc = side_roots(st, &r);
  const char *old = rc ? NULL : lone_root(&r, st, 0);
  const char *new_root = rc ? NULL : lone_root(&r, st, 1);
  if(old && new_root) {
    char *b = strdup(old), *h = strdup(new_root);
    rc = b && h ? bpi_cmp_rename_root(st, old, new_root) : BPE_NOMEM;
    if(rc) {
      free(b);
      free(h);
    }
    else {
      *base_name = b;
      *head_name = h;
    }
  }
  roots_cleanup(&r);
  return rc;
}

static int by_stack(const void *a, const void *b)
{
  const struct bp_diff_line *x = a, *y = b;
  return strcmp(x->stack, y->stack);
}

bp_code bpi_cmp_stack_lines(struct bp_diff_line **lines, size_t *nlines,
                            const struct stacks *st)
{
  size_t n = st->text.count;
  *lines = calloc(n ? n : 1, sizeof(**lines));
  if(!*lines)
    return BPE_NOMEM;
  for(size_t i = 0; i < n; i++) {
    struct bp_diff_line *l = &(*lines)[i];
    l->stack = strdup(bpi_strtab_get(&st->text, (uint32_t)i));
    if(!l->stack)
      return BPE_NOMEM;
    l->base = st->count[0][i];
    l->head = st->count[1][i];
    (*nlines)++;
  }
  qsort(*lines, *nlines, sizeof(**lines), by_stack);
  return BP_OK;
}

bp_code bpi_cmp_diff_lines(struct bp_cmp_bench *b, const struct stacks *st)
{
  return bpi_cmp_stack_lines(&b->lines, &b->nlines, st);
}

/* -------------------------------------------------------------- functions */

struct funcs {
  struct bp_strtab names;
  uint64_t *self[2], *total[2];
  uint64_t *seen;          /* the stack that last counted it, + 1 */
  size_t cap;
  /* every line's frames, root first (function ids), for telling an
   * ancestor's change from its callees' (mark_echoes) */
  uint32_t *frames;
  size_t nframes, frames_cap;
  size_t *line_start;      /* line i's frames: [line_start[i],
                              line_start[i + 1]) */
};

static bool frames_add(struct funcs *f, uint32_t id)
{
  if(f->nframes == f->frames_cap) {
    size_t cap = f->frames_cap ? 2 * f->frames_cap : 256;
    uint32_t *a = realloc(f->frames, cap * sizeof(*a));
    if(!a)
      return false;
    f->frames = a;
    f->frames_cap = cap;
  }
  f->frames[f->nframes++] = id;
  return true;
}

static uint32_t func_id(struct funcs *f, const char *name)
{
  uint32_t id = bpi_strtab_intern(&f->names, name);
  if(id == BP_NONE || id < f->cap)
    return id;
  size_t cap = f->cap ? f->cap * 2 : 64;
  uint64_t **arrays[] = {&f->self[0], &f->self[1], &f->total[0],
                         &f->total[1], &f->seen};
  for(size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) {
    uint64_t *a = realloc(*arrays[i], cap * sizeof(*a));
    if(!a)
      return BP_NONE;
    memset(a + f->cap, 0, (cap - f->cap) * sizeof(*a));
    *arrays[i] = a;
  }
  f->cap = cap;
  return id;
}

/* The function key of every frame from an interrupt's entry up: one
 * kernel function (its mark is taken off with the others'). */
#define INTERRUPTS_KEY BP_CMP_INTERRUPTS BP_CMP_KERNEL_MARK

/* Count one stack's samples: self for the leaf, total once per distinct
 * function on it (recursion counts once).  The first frame is the
 * process, not a function.  Functions are keyed by their frame's text, a
 * kernel frame's mark included (a kernel function and a user function of
 * one name are two); the frames an interrupt ran are one function,
 * INTERRUPTS_KEY, the leaf. */
static bp_code count_stack(struct funcs *f, struct bp_buf *scratch,
                           const char *stack, uint64_t stack_no,
                           const uint64_t n[2])
{
  const char *frame = strchr(stack, ';');
  uint32_t id = BP_NONE;
  while(frame) {
    frame++;
    const char *end = strchr(frame, ';');
    size_t len = end ? (size_t)(end - frame) : strlen(frame);
    if(bpi_cmp_interrupt_frame(frame, len)) {
      frame = INTERRUPTS_KEY;
      len = strlen(frame);
      end = NULL;   /* the rest of the stack is the interrupt's */
    }
    bpi_buf_reset(scratch);
    bpi_buf_add(scratch, frame, len);
    bpi_buf_addc(scratch, '\0');
    if(bpi_buf_failed(scratch))
      return BPE_NOMEM;
    id = func_id(f, scratch->data);
    if(id == BP_NONE || !frames_add(f, id))
      return BPE_NOMEM;
    if(f->seen[id] != stack_no + 1) {
      f->seen[id] = stack_no + 1;
      f->total[0][id] += n[0];
      f->total[1][id] += n[1];
    }
    frame = end;
  }
  if(id != BP_NONE) {
    f->self[0][id] += n[0];
    f->self[1][id] += n[1];
  }
  return BP_OK;
}

static double share(uint64_t n, uint64_t total)
{
  return total ? 100.0 * (double)n / (double)total : 0;
}

static double func_score(const struct bp_cmp_func *f, bool cost)
{
  double s = absd(cost ? f->d_self_cost : f->d_self);
  double t = absd(cost ? f->d_total_cost : f->d_total);
  return s > t ? s : t;
}

/* Most changed first (absolute costs when known, else shares); ties: the
 * larger self change (the leaf, not its callers), then by name. */
static int by_change_how(const struct bp_cmp_func *x,
                         const struct bp_cmp_func *y, bool cost)
{
  double sx = func_score(x, cost), sy = func_score(y, cost);
  if(sx != sy)
    return sx > sy ? -1 : 1;
  double dx = absd(cost ? x->d_self_cost : x->d_self);
  double dy = absd(cost ? y->d_self_cost : y->d_self);
  if(dx != dy)
    return dx > dy ? -1 : 1;
  return strcmp(x->name, y->name);
}

static int by_change(const void *a, const void *b)
{
  return by_change_how(a, b, false);
}

/* Absolute costs: every caller's total holds its callees' change, so the
 * self change ranks first (where the time went), then the total's. */
static int by_cost_change(const void *a, const void *b)
{
  const struct bp_cmp_func *x = a, *y = b;
  double sx = absd(x->d_self_cost), sy = absd(y->d_self_cost);
  if(sx != sy)
    return sx > sy ? -1 : 1;
  return by_change_how(x, y, true);
}

bool bpi_compare_beyond_band(const struct bp_cmp_band *band, double base,
                             double d, double half)
{
  double lo = band ? band->lo * base : 0, hi = band ? band->hi * base : 0;
  return d - half > hi || d + half < lo;
}

double bpi_compare_band_floor(const struct bp_cmp_band *band, double total)
{
  if(!band || band->basis != BP_CMP_BAND_INTERVAL)
    return 0;   /* no measured spread: a drift's band is proportional */
  double wider = -band->lo > band->hi ? -band->lo : band->hi;
  return wider * total;
}

bool bpi_compare_band_wide(const struct bp_cmp_band *band)
{
  return band && (band->lo < 0 || band->hi > 0);
}

void bpi_compare_band_text(const struct bp_cmp_band *band,
                           struct bp_buf *out)
{
  if(band->basis == BP_CMP_BAND_INTERVAL && band->measure)
    bpi_buf_printf(out, "%s's interval", band->measure);
  else if(band->measure)   /* the measure is the total: no interval */
    bpi_buf_printf(out, "%s's own change, with no interval", band->measure);
  else
    bpi_buf_adds(out, "the total cost's change");
  bpi_buf_printf(out, ", %+.1f%% to %+.1f%%", 100 * band->lo,
                 100 * band->hi);
}

/* b's measure of slug, when both sides have it. */
static const struct bp_cmp_measure *both_sides(const struct bp_cmp_bench *b,
                                               const char *slug)
{
  for(size_t i = 0; slug && i < b->nmeasures; i++) {
    const struct bp_cmp_measure *m = &b->measures[i];
    if(m->in_base && m->in_head && !strcmp(m->slug, slug))
      return m;
  }
  return NULL;
}

/* The measure of the counter named like the first len bytes of event. */
static const struct bp_cmp_measure *counter_of(const struct bp_cmp_bench *b,
                                               const char *event, size_t len)
{
  char *name = strndup(event, len);
  char *slug = name ? bpi_counter_slug(name) : NULL;
  const struct bp_cmp_measure *m = both_sides(b, slug);
  free(slug);
  free(name);
  return m;
}

/* The measure whose change is the whole benchmark's, in what its
 * function costs count: for a clock the task-clock counter (else the
 * clock's own); for a hardware event the counter of its name, else of
 * its name without modifiers ("cycles" for "cycles:u"); with none of
 * them, per iteration, the harness's time of one ("latency", wall time
 * where the costs are CPU time).  The counters are per iteration where
 * the costs are (run_outputs.c).  NULL when the report has none. */
static const struct bp_cmp_measure *whole_measure(const struct bp_cmp_bench *b)
{
  const char *event = b->head.event ? b->head.event : b->base.event;
  const struct bp_cmp_measure *m = NULL;
  if(b->head.time_event)
    m = both_sides(b, "task-clock");
  if(!m && event)
    m = counter_of(b, event, strlen(event));
  if(!m && event && strchr(event, ':'))
    m = counter_of(b, event, strcspn(event, ":"));
  if(!m && b->per_iteration)
    m = both_sides(b, "latency");
  return m;
}

static double min0(double x)
{
  return x < 0 ? x : 0;
}

static double max0(double x)
{
  return x > 0 ? x : 0;
}

/* Whether the benchmark's confirmed verdict (another measure's, the
 * harness's latency from its bounds) goes the way of its total cost's
 * change: more cost for a regression, less for an improvement.  That
 * change is then the benchmark's, not a drift. */
static bool total_confirmed(const struct bp_cmp_bench *b, double change)
{
  return (b->flag == BP_CMP_REGRESSION && change > 0) ||
         (b->flag == BP_CMP_IMPROVEMENT && change < 0);
}

void bpi_cmp_noise_band(const struct bp_cmp_bench *b,
                        const struct bp_cmp_measure *m, double total,
                        const char *total_measure, struct bp_cmp_band *band)
{
  double lo = total, hi = total;
  *band = (struct bp_cmp_band){.basis = BP_CMP_BAND_CONFIRMED};
  if(m && m->flag) {
    band->measure = m->slug;
    return;
  }
  if(m && m->has_interval) {
    band->basis = BP_CMP_BAND_INTERVAL;
    band->measure = m->slug;
    lo = m->pct_lo / 100;
    hi = m->pct_hi / 100;
  }
  else {
    if(!b->shared_profile && total_confirmed(b, total)) {
      band->measure = b->max_slug;
      return;
    }
    band->basis = BP_CMP_BAND_TOTAL;
    band->measure = total_measure;
  }
  band->lo = min0(lo);
  band->hi = max0(hi);
}

/* The change b's own noise allows every function (struct bp_cmp_band):
 * none when its measure's change is confirmed (a uniform real change is
 * then every function's); the measure's interval when it has one; else
 * the change of the profile's total cost, the most a uniform drift can
 * have made of it, unless the benchmark's verdict confirms that
 * change. */
static void noise_band(struct bp_cmp_bench *b)
{
  /* a shared profile: another benchmark's change is in it too */
  const struct bp_cmp_measure *m = b->shared_profile ? NULL
                                                     : whole_measure(b);
  double base = (double)b->base.samples * bpi_compare_sample_cost(b, 0);
  double head = (double)b->head.samples * bpi_compare_sample_cost(b, 1);
  bpi_cmp_noise_band(b, m, base > 0 ? head / base - 1 : 0, NULL, &b->band);
}

/* Each function's cost per run on both sides and its change, with a
 * Poisson interval of the change from the sample counts, z wide; named
 * (significant) when that interval lies beyond what the benchmark's
 * noise band makes of its base cost. */
static void func_costs(struct bp_cmp_func *f, double wb, double wh, double z,
                       const struct bp_cmp_band *band)
{
  f->base_self_cost = (double)f->base_self * wb;
  f->head_self_cost = (double)f->head_self * wh;
  f->base_total_cost = (double)f->base_total * wb;
  f->head_total_cost = (double)f->head_total * wh;
  f->d_self_cost = f->head_self_cost - f->base_self_cost;
  f->d_total_cost = f->head_total_cost - f->base_total_cost;
  f->self_half = bpi_stats_poisson_halfwidth(f->base_self, wb, f->head_self,
                                             wh, z);
  f->total_half = bpi_stats_poisson_halfwidth(f->base_total, wb,
                                              f->head_total, wh, z);
  f->self_significant = bpi_compare_beyond_band(band, f->base_self_cost,
                                                f->d_self_cost, f->self_half);
  f->total_significant = bpi_compare_beyond_band(band, f->base_total_cost,
                                                 f->d_total_cost,
                                                 f->total_half);
}

/* ------------------------------------------------------------- echoes */

/* The most significant functions mark_echoes judges: each is a scan of
 * the lines, and a table shows ten. */
#define MAX_ECHO_CANDIDATES 200
/* The most frames all those scans read: a profile of a million frames
 * has 64 of its callers judged (a few tenths of a second), the rest keep
 * their rows. */
#define ECHO_FRAME_BUDGET ((size_t)64 << 20)

/* Where the first frame of function fi is on line l, or SIZE_MAX. */
static size_t frame_of(const struct funcs *f, const uint32_t *pos, size_t l,
                       size_t fi)
{
  for(size_t k = f->line_start[l]; k < f->line_start[l + 1]; k++)
    if(pos[f->frames[k]] == fi)
      return k;
  return SIZE_MAX;
}

/* Whether function fi's total change is its listed callees': its samples
 * on the lines that pass through no listed function below it change no
 * more than the benchmark's noise allows (its own self change among
 * them), and at least one line does pass through one.  Such a caller
 * (main, a harness's loop) would only repeat a callee's row. */
static bool is_echo(const struct bp_cmp_bench *b, const struct funcs *f,
                    const uint32_t *pos, const bool *listed, size_t fi)
{
  uint64_t rest[2] = {0, 0};
  bool below = false;
  for(size_t l = 0; l < b->nlines; l++) {
    size_t k = frame_of(f, pos, l, fi);
    if(k == SIZE_MAX)
      continue;
    bool through = false;
    for(k++; k < f->line_start[l + 1] && !through; k++)
      through = listed[pos[f->frames[k]]];
    below |= through;
    if(!through) {
      rest[0] += b->lines[l].base;
      rest[1] += b->lines[l].head;
    }
  }
  if(!below)
    return false;
  double wb = bpi_compare_sample_cost(b, 0), wh = bpi_compare_sample_cost(b, 1);
  double base = (double)rest[0] * wb, d = (double)rest[1] * wh - base;
  double half = bpi_stats_poisson_halfwidth(rest[0], wb, rest[1], wh,
                                            b->func_z);
  return !bpi_compare_beyond_band(&b->band, base, d, half);
}

/* The shallowest frame each function is on: callers before callees. */
static size_t *min_depths(const struct bp_cmp_bench *b, const struct funcs *f,
                          const uint32_t *pos)
{
  size_t *d = malloc((b->nfuncs ? b->nfuncs : 1) * sizeof(*d));
  for(size_t i = 0; d && i < b->nfuncs; i++)
    d[i] = SIZE_MAX;
  for(size_t l = 0; d && l < b->nlines; l++)
    for(size_t k = f->line_start[l]; k < f->line_start[l + 1]; k++) {
      size_t fi = pos[f->frames[k]], depth = k - f->line_start[l];
      if(depth < d[fi])
        d[fi] = depth;
    }
  return d;
}

struct echo_order {
  const size_t *depth;
};

/* Significant functions whose self change is not: deepest first, so
 * that a callee is listed before its callers are judged. */
static int by_depth(const void *a, const void *b, void *ctx)
{
  const struct echo_order *o = ctx;
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  if(o->depth[x] != o->depth[y])
    return o->depth[x] > o->depth[y] ? -1 : 1;
  return x < y ? -1 : x > y;
}

/* Sort idx[0..n) by by_depth (insertion: a few hundred at most). */
static void sort_by_depth(size_t *idx, size_t n, struct echo_order *o)
{
  for(size_t i = 1; i < n; i++)
    for(size_t j = i; j > 0 && by_depth(&idx[j], &idx[j - 1], o) < 0; j--) {
      size_t t = idx[j];
      idx[j] = idx[j - 1];
      idx[j - 1] = t;
    }
}

/* Mark the callers whose change only repeats their listed callees'
 * (bp_cmp_func.echo).  Listed: the functions whose self change is
 * significant, then, deepest first, those whose total change is and
 * which are no echo. */
static bp_code mark_echoes(struct bp_cmp_bench *b, const struct funcs *f)
{
  uint32_t *pos = malloc((f->names.count ? f->names.count : 1) *
                         sizeof(*pos));
  bool *listed = calloc(b->nfuncs ? b->nfuncs : 1, sizeof(*listed));
  size_t *cand = malloc(MAX_ECHO_CANDIDATES * sizeof(*cand));
  size_t *depth = NULL, ncand = 0;
  bp_code rc = pos && listed && cand ? BP_OK : BPE_NOMEM;
  for(size_t i = 0; !rc && i < b->nfuncs; i++)
    pos[bpi_strtab_find(&f->names, b->funcs[i].name)] = (uint32_t)i;
  for(size_t i = 0; !rc && i < b->nfuncs; i++) {
    const struct bp_cmp_func *fn = &b->funcs[i];
    listed[i] = fn->self_significant;
    if(!fn->self_significant && fn->total_significant &&
       ncand < MAX_ECHO_CANDIDATES)
      cand[ncand++] = i;
  }
  if(!rc && ncand && !(depth = min_depths(b, f, pos)))
    rc = BPE_NOMEM;
  if(!rc && ncand) {
    struct echo_order o = {.depth = depth};
    sort_by_depth(cand, ncand, &o);
  }
  for(size_t c = 0; !rc && c < ncand; c++) {
    if((c + 1) * f->nframes > ECHO_FRAME_BUDGET)
      break;
    size_t i = cand[c];
    b->funcs[i].echo = is_echo(b, f, pos, listed, i);
    listed[i] = !b->funcs[i].echo;
  }
  free(depth);
  free(cand);
  free(listed);
  free(pos);
  return rc;
}

/* Each kernel function's name without its mark: kernel says it. */
static void strip_kernel_marks(struct bp_cmp_bench *b)
{
  for(size_t i = 0; i < b->nfuncs; i++)
    if(b->funcs[i].kernel)
      b->funcs[i].name[strlen(b->funcs[i].name) -
                       strlen(BP_CMP_KERNEL_MARK)] = '\0';
}

bp_code bpi_cmp_bench_funcs(struct bp_cmp_bench *b, const struct stacks *st)
{
  struct funcs f = {.cap = 0};
  struct bp_buf scratch;
  bp_code rc = BP_OK;
  bpi_strtab_init(&f.names);
  bpi_buf_init(&scratch);
  f.line_start = malloc((b->nlines + 1) * sizeof(*f.line_start));
  if(!f.line_start)
    rc = BPE_NOMEM;
  for(size_t i = 0; !rc && i < b->nlines; i++) {
    uint64_t n[2] = {b->lines[i].base, b->lines[i].head};
    f.line_start[i] = f.nframes;
    rc = count_stack(&f, &scratch, b->lines[i].stack, i, n);
  }
  if(!rc)
    f.line_start[b->nlines] = f.nframes;
  size_t count = f.names.count;
  if(!rc)
    b->funcs = calloc(count ? count : 1, sizeof(*b->funcs));
  if(!rc && !b->funcs)
    rc = BPE_NOMEM;
  for(size_t i = 0; !rc && i < count; i++) {
    struct bp_cmp_func *fn = &b->funcs[i];
    fn->name = strdup(bpi_strtab_get(&f.names, (uint32_t)i));
    if(!fn->name) {
      rc = BPE_NOMEM;
      break;
    }
    b->nfuncs++;
    fn->kernel = bpi_cmp_kernel_frame(fn->name, strlen(fn->name));
    fn->interrupts = !strcmp(fn->name, INTERRUPTS_KEY);
    fn->base_self = f.self[0][i];
    fn->head_self = f.self[1][i];
    fn->base_total = f.total[0][i];
    fn->head_total = f.total[1][i];
    fn->d_self = share(fn->head_self, st->total[1]) -
                 share(fn->base_self, st->total[0]);
    fn->d_total = share(fn->head_total, st->total[1]) -
                  share(fn->base_total, st->total[0]);
  }
  /* costs only in one unit: a side that sampled page faults against one
   * that sampled the clock would set events beside nanoseconds */
  b->has_cost = b->base.per_sample > 0 && b->head.per_sample > 0 &&
                bpi_compare_same_unit(b);
  /* per iteration only when both sides know theirs: a side that ran more
   * iterations costs more per run for the same work */
  b->per_iteration = b->base.iterations > 0 && b->head.iterations > 0 &&
                     !b->shared_profile;
  if(b->has_cost) {
    /* one unit on both sides: a clock's ns, else the event's count */
    b->unit = b->head.time_event ? "ns" : "events";
    /* every function is tested at once: one false "grew most" in a
     * hundred comparisons at most, however many functions there are */
    b->func_z = bpi_stats_z_family(b->nfuncs);
    noise_band(b);
    for(size_t i = 0; i < b->nfuncs; i++)
      func_costs(&b->funcs[i], bpi_compare_sample_cost(b, 0),
                 bpi_compare_sample_cost(b, 1), b->func_z, &b->band);
  }
  if(!rc)
    qsort(b->funcs, b->nfuncs, sizeof(*b->funcs),
          b->has_cost ? by_cost_change : by_change);
  if(!rc && b->has_cost)
    rc = mark_echoes(b, &f);   /* finds functions by their keys */
  strip_kernel_marks(b);
  for(int i = 0; i < 2; i++) {
    free(f.self[i]);
    free(f.total[i]);
  }
  free(f.seen);
  free(f.frames);
  free(f.line_start);
  bpi_buf_cleanup(&scratch);
  bpi_strtab_cleanup(&f.names);
  return rc;
}

/* Most of a side's samples: one function holding that much is where
 * any change of the benchmark's is. */
#define DOMINANT_SHARE 0.9

const struct bp_cmp_func *bpi_compare_dominant_func(
  const struct bp_cmp_bench *b)
{
  for(size_t i = 0; b->base.samples && b->head.samples && i < b->nfuncs;
      i++) {
    const struct bp_cmp_func *f = &b->funcs[i];
    if(!f->interrupts &&
       (double)f->base_self >= DOMINANT_SHARE * (double)b->base.samples &&
       (double)f->head_self >= DOMINANT_SHARE * (double)b->head.samples)
      return f;
  }
  return NULL;
}

bool bpi_compare_same_unit(const struct bp_cmp_bench *b)
{
  const struct bp_cmp_profile *x = &b->base, *y = &b->head;
  if(x->time_event || y->time_event)
    return x->time_event && y->time_event;  /* ns on both sides */
  return x->event && y->event && !strcmp(x->event, y->event);
}

bool bpi_compare_has_diff(const struct bp_cmp_bench *b)
{
  return b->presence == BP_CMP_BOTH && b->base.dir && b->head.dir &&
         !bpi_compare_profile_missing(b) &&
         (b->base.samples || b->head.samples);
}

bool bpi_compare_has_off_diff(const struct bp_cmp_bench *b)
{
  return bpi_compare_has_diff(b) && b->off_nlines;
}

double bpi_compare_sample_cost(const struct bp_cmp_bench *b, int side)
{
  const struct bp_cmp_profile *p = side ? &b->head : &b->base;
  double per = b->per_iteration ? p->iterations : p->runs;
  return per > 0 ? p->per_sample / per : p->per_sample;
}

const char *bpi_compare_cost_per(const struct bp_cmp_bench *b)
{
  return b->per_iteration ? "iteration" : "run";
}

/* By absolute cost: the largest significant self change that way, else
 * the largest significant total change. */
static const struct bp_cmp_func *top_by_cost(const struct bp_cmp_bench *b,
                                             bool grew)
{
  const struct bp_cmp_func *self = NULL, *total = NULL;
  double sign = grew ? 1 : -1;
  for(size_t i = 0; i < b->nfuncs; i++) {
    const struct bp_cmp_func *f = &b->funcs[i];
    if(f->interrupts)
      continue;   /* the machine's, not the benchmark's doing */
    if(f->self_significant && sign * f->d_self_cost > 0 &&
       (!self || sign * f->d_self_cost > sign * self->d_self_cost))
      self = f;
    if(f->total_significant && !f->echo && sign * f->d_total_cost > 0 &&
       (!total || sign * f->d_total_cost > sign * total->d_total_cost))
      total = f;
  }
  return self ? self : total;
}

const struct bp_cmp_func *bpi_compare_top_func(const struct bp_cmp_bench *b,
                                               bool grew)
{
  const struct bp_cmp_func *best = NULL;
  double sign = grew ? 1 : -1;
  if(b->has_cost)
    return top_by_cost(b, grew);
  for(size_t i = 0; i < b->nfuncs; i++) {
    const struct bp_cmp_func *f = &b->funcs[i];
    double s = sign * f->d_self, t = sign * f->d_total;
    if(f->interrupts || s < 0 || t < 0 || (s == 0 && t == 0))
      continue;
    if(!best || s > sign * best->d_self ||
       (s == sign * best->d_self && t > sign * best->d_total))
      best = f;
  }
  return best;
}

/* The function whose self cost moved most the way asked (grew for a
 * regression, shrank for an improvement), else the most changed; NULL
 * when no function's cost changed. */
static const struct bp_cmp_func *largest_func(const struct bp_cmp_bench *b,
                                              bool grew)
{
  double sign = grew ? 1 : -1;
  const struct bp_cmp_func *most = NULL;
  for(size_t i = 0; i < b->nfuncs; i++) {   /* most changed first */
    const struct bp_cmp_func *f = &b->funcs[i];
    if(f->interrupts)
      continue;
    if(sign * f->d_self_cost > 0)
      return f;
    if(!most)
      most = f;
  }
  return most && most->d_self_cost != 0 ? most : NULL;
}

const struct bp_cmp_func *bpi_compare_interrupts(const struct bp_cmp_bench *b)
{
  for(size_t i = 0; i < b->nfuncs; i++) {
    const struct bp_cmp_func *f = &b->funcs[i];
    if(f->interrupts)
      return (b->has_cost ? f->self_significant : f->d_self != 0) ? f : NULL;
  }
  return NULL;
}

enum bp_cmp_no_func bpi_compare_no_func_why(const struct bp_cmp_bench *b,
                                            bool grew,
                                            const struct bp_cmp_func **f)
{
  const struct bp_cmp_func *d = b->has_cost ? bpi_compare_dominant_func(b)
                                            : NULL;
  *f = NULL;
  /* only a change the samples show is spread over it: one within the
   * sampling's own noise is none on the CPU (a latency +86% beside a
   * task-clock +1% read "spread over spin(long)", sending the reader to
   * a function that did not change) */
  if(d && d->d_self_cost != 0 &&
     bpi_compare_beyond_band(NULL, d->base_self_cost, d->d_self_cost,
                             d->self_half)) {
    *f = d;
    return BP_CMP_NO_FUNC_DOMINANT;
  }
  if(!b->base.samples || !b->head.samples)
    return BP_CMP_NO_FUNC_SAMPLES;
  if(!b->has_cost)
    return BP_CMP_NO_FUNC_SHARES;
  *f = largest_func(b, grew);
  if(!*f)
    return BP_CMP_NO_FUNC_UNCHANGED;
  return bpi_compare_beyond_band(NULL, (*f)->base_self_cost,
                                 (*f)->d_self_cost, (*f)->self_half)
         ? BP_CMP_NO_FUNC_BAND : BP_CMP_NO_FUNC_SAMPLING;
}
