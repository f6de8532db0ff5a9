/* report: BMF and Google Benchmark JSON in, BMF out (parsed with cJSON,
 * as every small JSON document of the library is: see plugin/README.md).
 *
 * A parse builds a report of its own and hands it to the caller's only
 * when the whole document is valid, so a failed parse leaves the caller's
 * report as it was.  Names are stored as valid UTF-8: a byte that is not
 * part of a valid sequence becomes U+FFFD, so what is written is what was
 * stored and two names never collide only in the output.  Messages show
 * names escaped and shortened (show()), never raw. */
#include "bp_setup.h"
#include "report.h"
#include "err.h"

#include <locale.h>
#include <math.h>   /* isfinite, isnan: macros, no libm */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* Bytes of a name shown in a message before it is cut with "...". */
#define SHOW_NAME 48
/* Bytes of the origin shown in a message. */
#define SHOW_ORIGIN 96

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
static void *grow(void *arr, size_t n, size_t extra, size_t elem)
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
static char *name_dup(const char *s)
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

/* ------------------------------------------------------------- messages */

/* A message piece: a bounded, always NUL-terminated string. */
struct text {
  char s[320];
  size_t len;
};

static void text_add(struct text *t, const char *s, size_t n)
{
  size_t room = sizeof(t->s) - 1 - t->len;
  if(n > room)
    n = room;
  memcpy(t->s + t->len, s, n);
  t->len += n;
  t->s[t->len] = '\0';
}

/* Code points a terminal would act on rather than show: C1 controls,
 * zero-width and bidirectional formatting characters, the BOM. */
static bool is_format_cp(uint32_t cp)
{
  return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x200b && cp <= 0x200f) ||
         (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x206f) ||
         cp == 0xfeff || (cp >= 0xfff9 && cp <= 0xfffb);
}

/* Append s as a message shows it: printable ASCII and ordinary UTF-8 as
 * they are, '"' and '\\' escaped, \n \r \t, other control bytes and
 * invalid bytes as \xNN, formatting code points as \uNNNN; cut with "..."
 * after max bytes. */
static void show(struct text *t, const char *s, size_t max)
{
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  size_t used = 0;
  while(*p) {
    char unit[8];
    size_t n, adv = 1;
    uint32_t cp;
    if(*p == '"' || *p == '\\')
      n = (size_t)snprintf(unit, sizeof(unit), "\\%c", *p);
    else if(*p == '\n')
      n = (size_t)snprintf(unit, sizeof(unit), "\\n");
    else if(*p == '\r')
      n = (size_t)snprintf(unit, sizeof(unit), "\\r");
    else if(*p == '\t')
      n = (size_t)snprintf(unit, sizeof(unit), "\\t");
    else if(*p < 0x20 || *p == 0x7f)
      n = (size_t)snprintf(unit, sizeof(unit), "\\x%02x", *p);
    else if((adv = bpi_utf8_seq(p, &cp)) == 0) {
      n = (size_t)snprintf(unit, sizeof(unit), "\\x%02x", *p);
      adv = 1;
    }
    else if(is_format_cp(cp))
      n = (size_t)snprintf(unit, sizeof(unit), "\\u%04x", (unsigned)cp);
    else {
      memcpy(unit, p, adv);
      n = adv;
    }
    if(used + n > max) {
      text_add(t, "...", 3);
      return;
    }
    text_add(t, unit, n);
    used += n;
    p += adv;
  }
}

/* Append "<name>" shown. */
static void show_quoted(struct text *t, const char *s)
{
  text_add(t, "\"", 1);
  show(t, s, SHOW_NAME);
  text_add(t, "\"", 1);
}

static const char *type_name(const cJSON *j)
{
  if(cJSON_IsString(j))
    return "a string";
  if(cJSON_IsNumber(j))
    return "a number";
  if(cJSON_IsObject(j))
    return "an object";
  if(cJSON_IsArray(j))
    return "an array";
  if(cJSON_IsBool(j))
    return "a boolean";
  if(cJSON_IsNull(j))
    return "null";
  return "an unknown value";
}

/* The shortest of %.15g, %.16g and %.17g that reads back as v, with '.'
 * whatever the locale; integers below 2^53 without an exponent. */
static void fmt_num(char *out, size_t cap, double v)
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
static struct bp_bench *push_bench(struct bp_report *r, char *name)
{
  struct bp_bench *arr = grow(r->benches, r->nbenches, 1, sizeof(*arr));
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
static struct bp_measure *push_measure(struct bp_bench *b, char *slug,
                                       double value)
{
  struct bp_measure *arr = grow(b->measures, b->nmeasures, 1, sizeof(*arr));
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
  char *copy = name_dup(name);
  if(!copy)
    return NULL;
  struct bp_bench *b = find_bench(r, copy);
  if(!b) {
    b = push_bench(r, copy);
    if(b)
      return b;
  }
  free(copy);
  return b;
}

bp_code bpi_report_add_measure(struct bp_bench *b, const char *slug,
                               double value)
{
  if(!b || !slug || !*slug || !isfinite(value))
    return BPE_INVAL;
  char *copy = name_dup(slug);
  if(!copy)
    return BPE_NOMEM;
  if(find_measure(b, copy)) {
    free(copy);
    return BP_OK;
  }
  if(!push_measure(b, copy, value)) {
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
static bp_code commit(struct bp_report *r, struct bp_report *t)
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
      struct bp_measure *arr = grow(rb->measures, rb->nmeasures,
                                    tb->nmeasures, sizeof(*arr));
      if(!arr) {
        rc = BPE_NOMEM;
        goto out;
      }
      rb->measures = arr;
    }
  }
  if(nnew) {
    struct bp_bench *arr = grow(r->benches, r->nbenches, nnew,
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

/* ------------------------------------------------------------ duplicates */

struct key {
  const char *s;
  size_t i;
};

static int key_cmp(const void *a, const void *b)
{
  const struct key *x = a, *y = b;
  int c = strcmp(x->s, y->s);
  if(c)
    return c;
  return x->i < y->i ? -1 : x->i > y->i;
}

/* The first name in keys (by i) equal to an earlier one, NULL when all
 * differ.  Sorts keys. */
static const char *first_repeat(struct key *keys, size_t n)
{
  const char *found = NULL;
  size_t found_i = SIZE_MAX;
  qsort(keys, n, sizeof(*keys), key_cmp);
  for(size_t k = 1; k < n; k++) {
    if(!strcmp(keys[k].s, keys[k - 1].s) && keys[k].i < found_i) {
      found = keys[k].s;
      found_i = keys[k].i;
    }
  }
  return found;
}

/* ------------------------------------------------------------- parsing */

struct parse {
  const char *origin;
  struct bp_err *err;
  struct bp_report out;  /* what the document holds so far */
};

/* The origin as messages show it. */
static void show_origin(struct text *t, const struct parse *ps)
{
  show(t, ps->origin, SHOW_ORIGIN);
}

/* origin:LINE:COL: invalid JSON, for the byte at off of json (len bytes);
 * columns count characters, not bytes. */
static bp_code fail_at(struct parse *ps, const char *json, size_t len,
                       size_t off, const char *why)
{
  struct text o = {.len = 0};
  size_t line = 1, col = 1;
  if(off > len)
    off = len;
  for(size_t i = 0; i < off; i++) {
    if(json[i] == '\n') {
      line++;
      col = 1;
    }
    else if(((unsigned char)json[i] & 0xc0) != 0x80)
      col++;
  }
  show_origin(&o, ps);
  if(!why && off >= len)
    why = "unexpected end of input";
  return bpi_err_set(ps->err, BPE_FORMAT, 0, "%s:%zu:%zu: invalid JSON%s%s",
                     o.s, line, col, why ? ": " : "", why ? why : "");
}

/* origin: at PATH: WHAT */
static bp_code fail_path(struct parse *ps, const struct text *path,
                         const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));

static bp_code fail_path(struct parse *ps, const struct text *path,
                         const char *fmt, ...)
{
  struct text o = {.len = 0};
  char what[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof(what), fmt, ap);
  va_end(ap);
  show_origin(&o, ps);
  return bpi_err_set(ps->err, BPE_FORMAT, 0, "%s: at %s: %s", o.s,
                     path->len ? path->s : "the top level", what);
}

/* The lexer's view of strings: finds, outside strings, the tokens NaN and
 * Infinity (Google Benchmark writes them for non-finite numbers), and
 * inside strings the escape \u0000, which cJSON would silently turn into
 * the end of the string. */
enum lex_kind { LEX_END, LEX_NONFINITE, LEX_NUL_ESCAPE };

struct lex {
  const char *s;
  size_t len, i;
  bool in_str;
};

static bool is_word(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_';
}

/* Whether the word w (n bytes) stands alone at l->s + at. */
static bool word_at(const struct lex *l, size_t at, const char *w, size_t n)
{
  return l->len - at >= n && !memcmp(l->s + at, w, n) &&
         (at == 0 || !is_word(l->s[at - 1])) &&
         (at + n == l->len || !is_word(l->s[at + n]));
}

/* The next token of interest at or after l->i: *at and *n say where. */
static enum lex_kind lex_next(struct lex *l, size_t *at, size_t *n)
{
  while(l->i < l->len) {
    size_t i = l->i++;
    char c = l->s[i];
    if(l->in_str) {
      if(c == '"')
        l->in_str = false;
      else if(c == '\\' && l->i < l->len) {
        l->i++;
        if(l->s[i + 1] == 'u' && l->len - i >= 6 &&
           !memcmp(l->s + i + 2, "0000", 4)) {
          *at = i;
          *n = 6;
          return LEX_NUL_ESCAPE;
        }
      }
    }
    else if(c == '"')
      l->in_str = true;
    else if((c == 'N' && word_at(l, i, "NaN", 3)) ||
            (c == 'I' && word_at(l, i, "Infinity", 8))) {
      *at = i;
      *n = c == 'N' ? 3 : 8;
      l->i = i + *n;
      return LEX_NONFINITE;
    }
  }
  return LEX_END;
}

/* What stands in for NaN and Infinity: cJSON reads it as infinity, which
 * the checks then reject as not finite, with the path. */
#define NONFINITE_STANDIN "1e999"

/* The offset in the original text of offset off in the text with the
 * stand-ins (both walks see the same tokens). */
static size_t map_offset(const char *json, size_t len, size_t off)
{
  struct lex l = {.s = json, .len = len};
  size_t at, n, delta_new = 0, orig = 0;
  enum lex_kind k;
  while((k = lex_next(&l, &at, &n)) != LEX_END) {
    if(k != LEX_NONFINITE)
      continue;
    size_t new_at = at + delta_new - orig;
    if(off < new_at)
      break;
    if(off < new_at + sizeof(NONFINITE_STANDIN) - 1)
      return at;
    delta_new += sizeof(NONFINITE_STANDIN) - 1;
    orig += n;
  }
  return off - delta_new + orig;
}

/* Parse json into *out.  With standins, NaN and Infinity are read as
 * numbers that are not finite. */
static bp_code parse_json(struct parse *ps, const char *json, size_t len,
                          bool standins, cJSON **out)
{
  struct bp_buf copy;
  struct lex l = {.s = json, .len = len};
  size_t at, n, done = 0;
  enum lex_kind k;
  bp_code rc = BP_OK;
  *out = NULL;
  const char *nul = memchr(json, '\0', len);
  if(nul)
    return fail_at(ps, json, len, (size_t)(nul - json), "a NUL byte");
  bpi_buf_init(&copy);
  while((k = lex_next(&l, &at, &n)) != LEX_END) {
    if(k == LEX_NUL_ESCAPE) {
      rc = fail_at(ps, json, len, at, "\\u0000 in a string");
      goto out;
    }
    if(!standins)
      continue;
    bpi_buf_add(&copy, json + done, at - done);
    bpi_buf_adds(&copy, NONFINITE_STANDIN);
    done = at + n;
  }
  bpi_buf_add(&copy, json + done, len - done);
  if(bpi_buf_failed(&copy)) {
    rc = bpi_err_set(ps->err, BPE_NOMEM, 0, "reading %s", ps->origin);
    goto out;
  }
  const char *end = NULL;
  /* the length counts the NUL so that trailing garbage is an error */
  *out = cJSON_ParseWithLengthOpts(copy.data, copy.len + 1, &end, true);
  if(!*out) {
    size_t off = end ? (size_t)(end - copy.data) : 0;
    rc = fail_at(ps, json, len, standins ? map_offset(json, len, off) : off,
                 NULL);
  }
out:
  bpi_buf_cleanup(&copy);
  return rc;
}

/* ------------------------------------------------------------------ BMF */

static void bmf_path(struct text *t, const char *bench, const char *measure,
                     const char *key)
{
  t->len = 0;
  t->s[0] = '\0';
  const char *parts[3] = {bench, measure, key};
  for(int i = 0; i < 3 && parts[i]; i++) {
    text_add(t, "[", 1);
    show_quoted(t, parts[i]);
    text_add(t, "]", 1);
  }
}

static const char *const measure_keys[] = {
  "value", "lower_value", "upper_value"
};

/* One measure of b: {"value": n, "lower_value": n?, "upper_value": n?};
 * bname is b's name as the document spells it, for messages. */
static bp_code bmf_measure(struct parse *ps, struct bp_bench *b,
                           const char *bname, const cJSON *m)
{
  const cJSON *field[3] = {NULL, NULL, NULL};
  double v[3] = {0, 0, 0};
  struct text path, name = {.len = 0};
  const cJSON *k;
  bmf_path(&path, bname, m->string, NULL);
  if(!cJSON_IsObject(m))
    return fail_path(ps, &path, "expected an object with \"value\", got %s",
                     type_name(m));
  cJSON_ArrayForEach(k, m) {
    size_t i = 0;
    while(i < 3 && strcmp(k->string, measure_keys[i]))
      i++;
    if(i == 3 || field[i])
      show_quoted(&name, k->string);
    if(i == 3)
      return fail_path(ps, &path, "unknown key %s (a measure has value, "
                       "lower_value and upper_value)", name.s);
    if(field[i])
      return fail_path(ps, &path, "duplicate key %s", name.s);
    field[i] = k;
  }
  if(!field[0])
    return fail_path(ps, &path, "missing \"value\"");
  for(int i = 0; i < 3; i++) {
    if(!field[i])
      continue;
    bmf_path(&path, bname, m->string, measure_keys[i]);
    if(!cJSON_IsNumber(field[i]))
      return fail_path(ps, &path, "expected a number, got %s",
                       type_name(field[i]));
    v[i] = field[i]->valuedouble;
    if(!isfinite(v[i]))
      return fail_path(ps, &path, "number out of range (not finite)");
  }
  bmf_path(&path, bname, m->string, NULL);
  char a[40], c[40];
  fmt_num(c, sizeof(c), v[0]);
  if(field[1] && v[1] > v[0]) {
    fmt_num(a, sizeof(a), v[1]);
    return fail_path(ps, &path, "lower_value %s is greater than value %s",
                     a, c);
  }
  if(field[2] && v[0] > v[2]) {
    fmt_num(a, sizeof(a), v[2]);
    return fail_path(ps, &path, "value %s is greater than upper_value %s",
                     c, a);
  }
  char *slug = name_dup(m->string);
  struct bp_measure *pm = slug ? push_measure(b, slug, v[0]) : NULL;
  if(!pm) {
    free(slug);
    return bpi_err_set(ps->err, BPE_NOMEM, 0, "reading %s", ps->origin);
  }
  pm->has_lower = field[1] != NULL;
  pm->lower = v[1];
  pm->has_upper = field[2] != NULL;
  pm->upper = v[2];
  return BP_OK;
}

/* The first measure slug of b that repeats an earlier one (after invalid
 * bytes became U+FFFD), as a message piece. */
static bp_code bmf_dup_measures(struct parse *ps, const struct bp_bench *b)
{
  if(b->nmeasures < 2)
    return BP_OK;
  struct key *keys = malloc(b->nmeasures * sizeof(*keys));
  if(!keys)
    return bpi_err_set(ps->err, BPE_NOMEM, 0, "reading %s", ps->origin);
  for(size_t i = 0; i < b->nmeasures; i++)
    keys[i] = (struct key){b->measures[i].slug, i};
  const char *dup = first_repeat(keys, b->nmeasures);
  bp_code rc = BP_OK;
  if(dup) {
    struct text path, name = {.len = 0};
    bmf_path(&path, b->name, NULL, NULL);
    show_quoted(&name, dup);
    rc = fail_path(ps, &path, "duplicate measure %s", name.s);
  }
  free(keys);
  return rc;
}

static bp_code bmf_bench(struct parse *ps, const cJSON *j)
{
  struct text path;
  const cJSON *m;
  bmf_path(&path, j->string, NULL, NULL);
  if(!j->string[0])
    return fail_path(ps, &path, "empty benchmark name");
  if(!cJSON_IsObject(j))
    return fail_path(ps, &path, "expected an object of measures, got %s",
                     type_name(j));
  char *name = name_dup(j->string);
  struct bp_bench *b = name ? push_bench(&ps->out, name) : NULL;
  if(!b) {
    free(name);
    return bpi_err_set(ps->err, BPE_NOMEM, 0, "reading %s", ps->origin);
  }
  cJSON_ArrayForEach(m, j) {
    if(!m->string[0]) {
      bmf_path(&path, j->string, "", NULL);
      return fail_path(ps, &path, "empty measure name");
    }
    bp_code rc = bmf_measure(ps, b, j->string, m);
    if(rc)
      return rc;
  }
  return bmf_dup_measures(ps, b);
}

static bp_code bmf_dup_benches(struct parse *ps)
{
  const struct bp_report *r = &ps->out;
  if(r->nbenches < 2)
    return BP_OK;
  struct key *keys = malloc(r->nbenches * sizeof(*keys));
  if(!keys)
    return bpi_err_set(ps->err, BPE_NOMEM, 0, "reading %s", ps->origin);
  for(size_t i = 0; i < r->nbenches; i++)
    keys[i] = (struct key){r->benches[i].name, i};
  const char *dup = first_repeat(keys, r->nbenches);
  bp_code rc = BP_OK;
  if(dup) {
    struct text path = {.len = 0}, name = {.len = 0};
    show_quoted(&name, dup);
    rc = fail_path(ps, &path, "duplicate benchmark %s", name.s);
  }
  free(keys);
  return rc;
}

static bp_code bmf_build(struct parse *ps, const cJSON *root)
{
  struct text top = {.len = 0};
  const cJSON *j;
  if(!cJSON_IsObject(root))
    return fail_path(ps, &top, "expected an object of benchmarks, got %s",
                     type_name(root));
  cJSON_ArrayForEach(j, root) {
    bp_code rc = bmf_bench(ps, j);
    if(rc)
      return rc;
  }
  return bmf_dup_benches(ps);
}

bp_code bpi_report_parse_bmf(struct bp_report *r, const char *json,
                             size_t len, const char *origin,
                             struct bp_err *err)
{
  struct parse ps = {.origin = origin ? origin : "input", .err = err};
  cJSON *root = NULL;
  if(!r || (!json && len))
    return bpi_err_set(err, BPE_INVAL, 0, "no report or no input");
  bpi_report_init(&ps.out);
  bp_code rc = parse_json(&ps, json ? json : "", len, false, &root);
  if(!rc)
    rc = bmf_build(&ps, root);
  if(!rc)
    rc = commit(r, &ps.out);
  if(rc == BPE_NOMEM)
    bpi_err_set(err, rc, 0, "reading %s", ps.origin);
  bpi_report_cleanup(&ps.out);
  cJSON_Delete(root);
  return rc;
}

/* ------------------------------------------------------ Google Benchmark */

/* One benchmark of the document: its iteration rows, or its mean. */
struct run {
  char *name;        /* valid UTF-8, owned */
  size_t n;          /* iteration rows */
  double sum, min, max;
  double iterations; /* the iteration rows' "iterations", summed */
  double cpu_ns;     /* their CPU time, ns (cpu_time x iterations) */
  bool has_mean;     /* a "mean" aggregate row (aggregates-only output) */
  double mean;
  bool failed;       /* a row has error_occurred */
};

struct gbench {
  struct parse *ps;
  struct run *runs;
  size_t nruns;
  size_t nfailed;
  struct text first_error;  /* shown: ["name"]: message */
};

static void gb_path(struct text *t, long row, const char *field)
{
  t->len = 0;
  t->s[0] = '\0';
  if(row < 0) {
    text_add(t, field, strlen(field));
    return;
  }
  char tmp[48];
  int n = snprintf(tmp, sizeof(tmp), "benchmarks[%ld]", row);
  text_add(t, tmp, (size_t)n);
  if(field) {
    text_add(t, ".", 1);
    text_add(t, field, strlen(field));
  }
}

/* The member key of obj, NULL when it has none; an error when it has it
 * twice (cJSON would keep both and read the first). */
static bp_code gb_get(struct gbench *g, const cJSON *obj, long row,
                      const char *key, const cJSON **out)
{
  const cJSON *k;
  *out = NULL;
  cJSON_ArrayForEach(k, obj) {
    if(strcmp(k->string, key))
      continue;
    if(*out) {
      struct text path;
      gb_path(&path, row, key);
      return fail_path(g->ps, &path, "duplicate key \"%s\"", key);
    }
    *out = k;
  }
  return BP_OK;
}

/* A string member: required or not, never empty. */
static bp_code gb_string(struct gbench *g, const cJSON *obj, long row,
                         const char *key, bool required, const char **out)
{
  const cJSON *j;
  struct text path;
  bp_code rc = gb_get(g, obj, row, key, &j);
  *out = NULL;
  if(rc)
    return rc;
  gb_path(&path, row, key);
  if(!j && required) {
    gb_path(&path, row, NULL);
    return fail_path(g->ps, &path, "missing \"%s\"", key);
  }
  if(!j)
    return BP_OK;
  if(!cJSON_IsString(j))
    return fail_path(g->ps, &path, "expected a string, got %s", type_name(j));
  if(!j->valuestring[0])
    return fail_path(g->ps, &path, "empty string");
  *out = j->valuestring;
  return BP_OK;
}

/* A boolean member, false when absent. */
static bp_code gb_bool(struct gbench *g, const cJSON *obj, long row,
                       const char *key, bool *out)
{
  const cJSON *j;
  bp_code rc = gb_get(g, obj, row, key, &j);
  *out = false;
  if(rc || !j)
    return rc;
  if(!cJSON_IsBool(j)) {
    struct text path;
    gb_path(&path, row, key);
    return fail_path(g->ps, &path, "expected a boolean, got %s",
                     type_name(j));
  }
  *out = cJSON_IsTrue(j);
  return BP_OK;
}

/* The row's real_time in nanoseconds. */
static bp_code gb_time_ns(struct gbench *g, const cJSON *row, long i,
                          double *ns)
{
  static const struct {
    const char *name;
    double ns;
  } units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  const cJSON *t;
  const char *unit;
  struct text path;
  bp_code rc = gb_get(g, row, i, "real_time", &t);
  if(!rc)
    rc = gb_string(g, row, i, "time_unit", true, &unit);
  if(rc)
    return rc;
  gb_path(&path, i, t ? "real_time" : NULL);
  if(!t)
    return fail_path(g->ps, &path, "missing \"real_time\"");
  if(!cJSON_IsNumber(t))
    return fail_path(g->ps, &path, "expected a number, got %s",
                     type_name(t));
  if(!isfinite(t->valuedouble) || t->valuedouble < 0)
    return fail_path(g->ps, &path, "expected a finite number >= 0");
  for(size_t u = 0; u < BP_ARRAY_LEN(units); u++) {
    if(strcmp(unit, units[u].name))
      continue;
    *ns = t->valuedouble * units[u].ns;
    if(!isfinite(*ns))
      return fail_path(g->ps, &path, "number out of range");
    return BP_OK;
  }
  struct text shown = {.len = 0};
  show_quoted(&shown, unit);
  gb_path(&path, i, "time_unit");
  return fail_path(g->ps, &path, "expected \"ns\", \"us\", \"ms\" or \"s\", "
                   "got %s", shown.s);
}

/* The run called name, added when missing; NULL when out of memory. */
static struct run *gb_run(struct gbench *g, const char *name)
{
  char *copy = name_dup(name);
  if(!copy)
    return NULL;
  for(size_t i = g->nruns; i-- > 0;) {
    if(!strcmp(g->runs[i].name, copy)) {
      free(copy);
      return &g->runs[i];
    }
  }
  struct run *arr = grow(g->runs, g->nruns, 1, sizeof(*arr));
  if(!arr) {
    free(copy);
    return NULL;
  }
  g->runs = arr;
  struct run *r = &g->runs[g->nruns++];
  memset(r, 0, sizeof(*r));
  r->name = copy;
  return r;
}

static bp_code gb_nomem(struct gbench *g)
{
  return bpi_err_set(g->ps->err, BPE_NOMEM, 0, "reading %s", g->ps->origin);
}

/* Remember the first failed benchmark for the message when all failed. */
static void gb_note_error(struct gbench *g, const char *name,
                          const char *msg)
{
  if(g->nfailed++)
    return;
  struct text *t = &g->first_error;
  text_add(t, "[", 1);
  show_quoted(t, name);
  text_add(t, "]: ", 3);
  show(t, msg ? msg : "(no message)", 2 * SHOW_NAME);
}

static bool positive(const cJSON *j)
{
  return cJSON_IsNumber(j) && isfinite(j->valuedouble) && j->valuedouble > 0;
}

/* The work an iteration row measured, for function costs per iteration
 * (compare): its "iterations" and their CPU time ("cpu_time", in the
 * row's unit, which real_time_ns converts).  Rows without them add
 * nothing. */
static void gb_work(struct run *r, const cJSON *row, double real_time_ns)
{
  const cJSON *it = cJSON_GetObjectItemCaseSensitive(row, "iterations");
  const cJSON *cpu = cJSON_GetObjectItemCaseSensitive(row, "cpu_time");
  const cJSON *real = cJSON_GetObjectItemCaseSensitive(row, "real_time");
  if(!positive(it))
    return;
  r->iterations += it->valuedouble;
  if(positive(cpu) && positive(real))
    r->cpu_ns += real_time_ns * cpu->valuedouble / real->valuedouble *
                 it->valuedouble;
}

static bp_code gb_row(struct gbench *g, const cJSON *row, long i)
{
  const char *name, *run_name, *type, *agg = NULL, *agg_unit = NULL;
  const char *msg = NULL;
  const cJSON *reps = NULL;
  bool error = false, skipped = false;
  struct text path;
  gb_path(&path, i, NULL);
  if(!cJSON_IsObject(row))
    return fail_path(g->ps, &path, "expected an object, got %s",
                     type_name(row));
  bp_code rc = gb_string(g, row, i, "name", true, &name);
  if(!rc)
    rc = gb_string(g, row, i, "run_name", false, &run_name);
  if(!rc)
    rc = gb_string(g, row, i, "run_type", true, &type);
  if(!rc)
    rc = gb_get(g, row, i, "repetitions", &reps);
  if(!rc && reps && !cJSON_IsNumber(reps)) {
    gb_path(&path, i, "repetitions");
    return fail_path(g->ps, &path, "expected a number, got %s",
                     type_name(reps));
  }
  if(!rc)
    rc = gb_bool(g, row, i, "error_occurred", &error);
  if(!rc)
    rc = gb_bool(g, row, i, "skipped", &skipped);
  if(rc)
    return rc;
  bool aggregate = !strcmp(type, "aggregate");
  if(!aggregate && strcmp(type, "iteration")) {
    struct text shown = {.len = 0};
    show_quoted(&shown, type);
    gb_path(&path, i, "run_type");
    return fail_path(g->ps, &path, "expected \"iteration\" or "
                     "\"aggregate\", got %s", shown.s);
  }
  if(aggregate) {
    rc = gb_string(g, row, i, "aggregate_name", true, &agg);
    if(!rc)
      rc = gb_string(g, row, i, "aggregate_unit", false, &agg_unit);
    if(rc)
      return rc;
  }
  if(error) {
    rc = gb_string(g, row, i, "error_message", false, &msg);
    if(rc)
      return rc;
  }
  if(!run_name)
    run_name = name;

  /* rows that say nothing about the benchmark's time */
  if(skipped && !error)
    return BP_OK;
  if(aggregate && (strcmp(agg, "mean") ||
                   (agg_unit && strcmp(agg_unit, "time"))))
    return BP_OK;

  struct run *r = gb_run(g, run_name);
  if(!r)
    return gb_nomem(g);
  if(error) {
    if(!r->failed)
      gb_note_error(g, run_name, msg);
    r->failed = true;
    return BP_OK;
  }
  double ns = 0;
  rc = gb_time_ns(g, row, i, &ns);
  if(rc)
    return rc;
  if(aggregate) {
    r->has_mean = true;
    r->mean = ns;
  }
  else {
    if(!r->n || ns < r->min)
      r->min = ns;
    if(!r->n || ns > r->max)
      r->max = ns;
    r->sum += ns;
    r->n++;
    gb_work(r, row, ns);
  }
  return BP_OK;
}

/* The runs as benchmarks with a "latency" measure. */
static bp_code gb_finish(struct gbench *g)
{
  struct parse *ps = g->ps;
  for(size_t i = 0; i < g->nruns; i++) {
    struct run *r = &g->runs[i];
    double value;
    if(r->failed || (!r->n && !r->has_mean))
      continue;
    if(r->n) {
      value = r->sum / (double)r->n;
      if(!isfinite(value)) {
        struct text path = {.len = 0};
        text_add(&path, "[", 1);
        show_quoted(&path, r->name);
        text_add(&path, "]", 1);
        return fail_path(ps, &path, "the mean time is out of range");
      }
      /* the sum may round: keep the mean within its bounds */
      if(value < r->min)
        value = r->min;
      if(value > r->max)
        value = r->max;
    }
    else
      value = r->mean;
    struct bp_bench *b = push_bench(&ps->out, r->name);
    if(!b)
      return gb_nomem(g);
    r->name = NULL;
    b->iterations = r->iterations;
    if(r->iterations > 0 && r->cpu_ns > 0 && isfinite(r->cpu_ns))
      b->iteration_cpu_ns = r->cpu_ns / r->iterations;
    char *slug = strdup("latency");
    struct bp_measure *m = slug ? push_measure(b, slug, value) : NULL;
    if(!m) {
      free(slug);
      return gb_nomem(g);
    }
    if(r->n > 1) {
      m->has_lower = m->has_upper = true;
      m->lower = r->min;
      m->upper = r->max;
    }
  }
  if(!ps->out.nbenches && g->nfailed) {
    struct text o = {.len = 0};
    show_origin(&o, ps);
    return bpi_err_set(ps->err, BPE_FORMAT, 0, "%s: every benchmark "
                       "failed (%zu); the first: %s", o.s, g->nfailed,
                       g->first_error.s);
  }
  return BP_OK;
}

static bp_code gb_build(struct gbench *g, const cJSON *root)
{
  struct text path = {.len = 0};
  const cJSON *rows, *row;
  long i = 0;
  if(!cJSON_IsObject(root))
    return fail_path(g->ps, &path, "expected a Google Benchmark object, "
                     "got %s", type_name(root));
  bp_code rc = gb_get(g, root, -1, "benchmarks", &rows);
  if(rc)
    return rc;
  if(!rows)
    return fail_path(g->ps, &path, "missing \"benchmarks\"");
  gb_path(&path, -1, "benchmarks");
  if(!cJSON_IsArray(rows))
    return fail_path(g->ps, &path, "expected an array, got %s",
                     type_name(rows));
  cJSON_ArrayForEach(row, rows) {
    rc = gb_row(g, row, i++);
    if(rc)
      return rc;
  }
  return gb_finish(g);
}

bp_code bpi_report_parse_gbench(struct bp_report *r, const char *json,
                                size_t len, const char *origin,
                                struct bp_err *err)
{
  struct parse ps = {.origin = origin ? origin : "input", .err = err};
  struct gbench g = {.ps = &ps};
  cJSON *root = NULL;
  if(!r || (!json && len))
    return bpi_err_set(err, BPE_INVAL, 0, "no report or no input");
  bpi_report_init(&ps.out);
  bp_code rc = parse_json(&ps, json ? json : "", len, true, &root);
  if(!rc)
    rc = gb_build(&g, root);
  if(!rc)
    rc = commit(r, &ps.out);
  if(rc == BPE_NOMEM)
    bpi_err_set(err, rc, 0, "reading %s", ps.origin);
  for(size_t i = 0; i < g.nruns; i++)
    free(g.runs[i].name);
  free(g.runs);
  bpi_report_cleanup(&ps.out);
  cJSON_Delete(root);
  return rc;
}

/* ---------------------------------------------------------------- write */

static void write_num(struct bp_buf *out, const char *key, double v)
{
  char num[40];
  fmt_num(num, sizeof(num), v);
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
  fmt_num(num, sizeof(num), m->value);
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
