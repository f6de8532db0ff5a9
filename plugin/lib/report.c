/* report: the report itself (struct bp_report: benchmarks and their
 * measures, names stored as valid UTF-8) and its BMF writer.  The two
 * readers live beside it: report_bmf.c (BMF) and report_gbench.c (Google
 * Benchmark JSON), on what report_parse.c gives them (strict JSON, messages
 * that say where).  Parsed with cJSON, as every small JSON document of the
 * library is (plugin/README.md); the BMF is written as a stream here so
 * that its numbers are the shortest that read back.
 *
 * A parse builds a report of its own and hands it to the caller's only
 * when the whole document is valid (bpi_report_commit), so a failed parse
 * leaves the caller's report as it was.  Names are stored as valid UTF-8:
 * a byte that is not part of a valid sequence becomes U+FFFD, so what is
 * written is what was stored and two names never collide only in the
 * output. */
#include "bp_setup.h"
#include "report.h"
#include "report_int.h"
#include "err.h"
#include "hash.h"

#include <locale.h>
#include <math.h>   /* isfinite, isnan: macros, no libm */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- arrays */

/* Arrays grow to powers of two and their capacity follows from their
 * count: with n > 0 elements, room for cap_for(n). */
static size_t cap_for(size_t n)
{
  size_t c = 4;
  while(c < n)
    c *= 2;
  return c;
}

/* arr with room for extra (>= 1) more after its n elements; NULL when out
 * of memory (arr is then unchanged). */
void *bpi_report_grow(void *arr, size_t n, size_t extra, size_t elem)
{
  if(n > SIZE_MAX / 4 / elem || extra > SIZE_MAX / 4 / elem - n)
    return NULL;
  size_t need = n + extra;
  if(n && need <= cap_for(n))
    return arr;
  return realloc(arr, cap_for(need) * elem);
}

/* ---------------------------------------------------------------- UTF-8 */

/* A malloc'd copy of s in which each byte that does not belong to a valid
 * UTF-8 sequence is U+FFFD; NULL when out of memory. */
char *bpi_report_name_dup(const char *s)
{
  static const char fffd[] = "\xef\xbf\xbd";
  const unsigned char *p = (const unsigned char *)s;
  size_t len = 0;
  uint32_t cp;
  for(size_t i = 0; p[i];) {
    size_t n = bpi_utf8_seq(p + i, &cp);
    len += n ? n : 3;
    i += n ? n : 1;
  }
  char *out = malloc(len + 1);
  if(!out)
    return NULL;
  char *o = out;
  for(size_t i = 0; p[i];) {
    size_t n = bpi_utf8_seq(p + i, &cp);
    if(n) {
      memcpy(o, p + i, n);
      o += n;
      i += n;
    }
    else {
      memcpy(o, fffd, 3);
      o += 3;
      i++;
    }
  }
  *o = '\0';
  return out;
}

/* ---------------------------------------------------------------- numbers */

/* The shortest of %.15g, %.16g and %.17g that reads back as v, with '.'
 * whatever the locale; integers below 2^53 without an exponent. */
void bpi_report_fmt_num(char *out, size_t cap, double v)
{
  if(!isfinite(v))
    snprintf(out, cap, "%s", isnan(v) ? "NaN" : v < 0 ? "-inf" : "inf");
  else if(v > -9007199254740992.0 && v < 9007199254740992.0 &&
          v == (double)(int64_t)v)
    snprintf(out, cap, "%.0f", v);
  else {
    for(int prec = 15; prec <= 17; prec++) {
      snprintf(out, cap, "%.*g", prec, v);
      if(strtod(out, NULL) == v)
        break;
    }
  }
  const char *dp = localeconv()->decimal_point;
  if(dp && dp[0] && dp[0] != '.' && !dp[1]) {
    char *c = strchr(out, dp[0]);
    if(c)
      *c = '.';
  }
}

/* ---------------------------------------------------------------- report */

void bpi_report_init(struct bp_report *r)
{
  memset(r, 0, sizeof(*r));
}

static void bench_cleanup(struct bp_bench *b)
{
  for(size_t i = 0; i < b->nmeasures; i++)
    free(b->measures[i].slug);
  free(b->measures);
  free(b->name);
}

void bpi_report_cleanup(struct bp_report *r)
{
  if(!r)
    return;
  for(size_t i = 0; i < r->nbenches; i++)
    bench_cleanup(&r->benches[i]);
  free(r->benches);
  bpi_report_init(r);
}

static struct bp_bench *find_bench(const struct bp_report *r,
                                   const char *name)
{
  for(size_t i = r->nbenches; i-- > 0;) {
    if(!strcmp(r->benches[i].name, name))
      return &r->benches[i];
  }
  return NULL;
}

static struct bp_measure *find_measure(const struct bp_bench *b,
                                       const char *slug)
{
  for(size_t i = 0; i < b->nmeasures; i++) {
    if(!strcmp(b->measures[i].slug, slug))
      return &b->measures[i];
  }
  return NULL;
}

/* Append a benchmark that takes over name (malloc'd); NULL when out of
 * memory, name then still the caller's. */
struct bp_bench *bpi_report_push_bench(struct bp_report *r, char *name)
{
  struct bp_bench *arr = bpi_report_grow(r->benches, r->nbenches, 1,
                                         sizeof(*arr));
  if(!arr)
    return NULL;
  r->benches = arr;
  struct bp_bench *b = &r->benches[r->nbenches++];
  memset(b, 0, sizeof(*b));
  b->name = name;
  return b;
}

/* Append a measure that takes over slug (malloc'd); NULL when out of
 * memory, slug then still the caller's. */
struct bp_measure *bpi_report_push_measure(struct bp_bench *b, char *slug,
                                           double value)
{
  struct bp_measure *arr = bpi_report_grow(b->measures, b->nmeasures, 1,
                                           sizeof(*arr));
  if(!arr)
    return NULL;
  b->measures = arr;
  struct bp_measure *m = &b->measures[b->nmeasures++];
  memset(m, 0, sizeof(*m));
  m->slug = slug;
  m->value = value;
  return m;
}

struct bp_bench *bpi_report_bench(struct bp_report *r, const char *name)
{
  if(!r || !name || !*name)
    return NULL;
  char *copy = bpi_report_name_dup(name);
  if(!copy)
    return NULL;
  struct bp_bench *b = find_bench(r, copy);
  if(!b) {
    b = bpi_report_push_bench(r, copy);
    if(b)
      return b;
  }
  free(copy);
  return b;
}

/* name's position (name as bpi_report_name_dup made it), added to r
 * and to ix when missing; BP_NONE when out of memory. */
static uint32_t bench_at(struct bp_report *r, struct bp_name_index *ix,
                         char *name)
{
  uint32_t at = bpi_name_index_find(ix, name);
  if(at != BP_NONE) {
    free(name);
    return at;
  }
  if(r->nbenches >= BP_NONE || !bpi_report_push_bench(r, name)) {
    free(name);
    return BP_NONE;
  }
  at = (uint32_t)(r->nbenches - 1);
  return bpi_name_index_add(ix, r->benches[at].name, at) ? BP_NONE : at;
}

bp_code bpi_report_bench_all(struct bp_report *r, const char *const *names,
                             size_t n, size_t *at)
{
  struct bp_name_index ix;
  bpi_name_index_init(&ix);
  bp_code rc = r->nbenches < BP_NONE ? BP_OK : BPE_NOMEM;
  /* the last of equal names first, as find_bench finds it */
  for(size_t i = r->nbenches; !rc && i-- > 0;)
    rc = bpi_name_index_add(&ix, r->benches[i].name, (uint32_t)i);
  for(size_t i = 0; !rc && i < n; i++) {
    if(!names[i] || !*names[i]) {
      rc = BPE_INVAL;
      break;
    }
    char *copy = bpi_report_name_dup(names[i]);
    at[i] = copy ? bench_at(r, &ix, copy) : BP_NONE;
    if(at[i] == BP_NONE)
      rc = BPE_NOMEM;
  }
  bpi_name_index_cleanup(&ix);
  return rc;
}

bp_code bpi_report_add_measure(struct bp_bench *b, const char *slug,
                               double value)
{
  if(!b || !slug || !*slug || !isfinite(value))
    return BPE_INVAL;
  char *copy = bpi_report_name_dup(slug);
  if(!copy)
    return BPE_NOMEM;
  if(find_measure(b, copy)) {
    free(copy);
    return BP_OK;
  }
  if(!bpi_report_push_measure(b, copy, value)) {
    free(copy);
    return BPE_NOMEM;
  }
  return BP_OK;
}

bp_code bpi_report_add_counters(struct bp_bench *b,
                                const struct bp_counter *c, size_t n)
{
  if(!b || (n && !c))
    return BPE_INVAL;
  for(size_t i = 0; i < n; i++) {
    /* an unavailable counter has no value; one that is not finite (no
     * running time at all) has none either */
    if(!c[i].available || !c[i].slug || !*c[i].slug ||
       !isfinite(c[i].value))
      continue;
    bp_code rc = bpi_report_add_measure(b, c[i].slug, c[i].value);
    if(rc)
      return rc;
  }
  return BP_OK;
}

/* Move the measures of src into dst, whose array has room for them: a
 * measure dst already has takes the new value and bounds. */
static void merge_measures(struct bp_bench *dst, struct bp_bench *src)
{
  for(size_t i = 0; i < src->nmeasures; i++) {
    struct bp_measure *m = &src->measures[i];
    struct bp_measure *old = find_measure(dst, m->slug);
    if(old) {
      char *slug = old->slug;
      *old = *m;
      old->slug = slug;
      free(m->slug);
    }
    else
      dst->measures[dst->nmeasures++] = *m;
  }
  if(src->iterations > 0) {
    dst->iterations = src->iterations;
    dst->iteration_cpu_ns = src->iteration_cpu_ns;
  }
  free(src->measures);
  free(src->name);
}

/* Hand the parsed report t to r: t's benchmarks are added, and the
 * measures of a benchmark r already has replace its own (the harness's
 * measures win).  Either everything moves or, out of memory, nothing does:
 * room is made first.  t is left empty either way. */
bp_code bpi_report_commit(struct bp_report *r, struct bp_report *t)
{
  bp_code rc = BP_OK;
  size_t *at = NULL;
  size_t nnew = 0;
  if(!r->nbenches) {
    free(r->benches);
    *r = *t;
    bpi_report_init(t);
    return BP_OK;
  }
  if(!t->nbenches)
    return BP_OK;
  at = malloc(t->nbenches * sizeof(*at));
  if(!at) {
    rc = BPE_NOMEM;
    goto out;
  }
  for(size_t i = 0; i < t->nbenches; i++) {
    struct bp_bench *tb = &t->benches[i];
    struct bp_bench *rb = find_bench(r, tb->name);
    at[i] = rb ? (size_t)(rb - r->benches) : SIZE_MAX;
    if(!rb)
      nnew++;
    else if(tb->nmeasures) {
      struct bp_measure *arr = bpi_report_grow(rb->measures, rb->nmeasures,
                                               tb->nmeasures, sizeof(*arr));
      if(!arr) {
        rc = BPE_NOMEM;
        goto out;
      }
      rb->measures = arr;
    }
  }
  if(nnew) {
    struct bp_bench *arr = bpi_report_grow(r->benches, r->nbenches, nnew,
                                           sizeof(*arr));
    if(!arr) {
      rc = BPE_NOMEM;
      goto out;
    }
    r->benches = arr;
  }
  for(size_t i = 0; i < t->nbenches; i++) {
    if(at[i] == SIZE_MAX)
      r->benches[r->nbenches++] = t->benches[i];
    else
      merge_measures(&r->benches[at[i]], &t->benches[i]);
  }
  free(t->benches);
  bpi_report_init(t);
out:
  free(at);
  bpi_report_cleanup(t);
  return rc;
}

/* ---------------------------------------------------------------- write */

static void write_num(struct bp_buf *out, const char *key, double v)
{
  char num[40];
  bpi_report_fmt_num(num, sizeof(num), v);
  bpi_buf_printf(out, ",\n      \"%s\": %s", key, num);
}

/* A measure can be written when its numbers are finite and in order;
 * parse and add_measure only make such measures. */
static bool writable(const struct bp_measure *m)
{
  if(!m->slug || !m->slug[0] || !isfinite(m->value))
    return false;
  if(m->has_lower && (!isfinite(m->lower) || m->lower > m->value))
    return false;
  return !m->has_upper || (isfinite(m->upper) && m->value <= m->upper);
}

static void write_measure(struct bp_buf *out, const struct bp_measure *m,
                          bool first)
{
  char num[40];
  bpi_buf_adds(out, first ? "\n    " : ",\n    ");
  bpi_buf_json_str(out, m->slug);
  bpi_report_fmt_num(num, sizeof(num), m->value);
  bpi_buf_printf(out, ": {\n      \"value\": %s", num);
  if(m->has_lower)
    write_num(out, "lower_value", m->lower);
  if(m->has_upper)
    write_num(out, "upper_value", m->upper);
  bpi_buf_adds(out, "\n    }");
}

void bpi_report_write_bmf(const struct bp_report *r, struct bp_buf *out)
{
  bool first_bench = true;
  bpi_buf_addc(out, '{');
  for(size_t i = 0; r && i < r->nbenches; i++) {
    const struct bp_bench *b = &r->benches[i];
    bool first = true;
    if(!b->name || !b->name[0])
      continue;
    bpi_buf_adds(out, first_bench ? "\n  " : ",\n  ");
    first_bench = false;
    bpi_buf_json_str(out, b->name);
    bpi_buf_adds(out, ": {");
    for(size_t k = 0; k < b->nmeasures; k++) {
      if(!writable(&b->measures[k]))
        continue;
      write_measure(out, &b->measures[k], first);
      first = false;
    }
    bpi_buf_adds(out, first ? "}" : "\n  }");
  }
  bpi_buf_adds(out, first_bench ? "}\n" : "\n}\n");
}
