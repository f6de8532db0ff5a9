/* comment, Markdown: the pieces of the pull request comment that must be
 * safe whatever the names and URLs hold: untrusted text escaped with
 * backslashes (shortened when long), code spans, link targets, the
 * Firefox Profiler's and Bencher's URLs, and the hidden marker that finds
 * the comment again. */
#include "bp_setup.h"
#include "comment_int.h"
#include "err.h"
#include "text.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define ELLIPSIS "\xe2\x80\xa6"        /* U+2026 */
#define PROFILER "https://profiler.firefox.com"

/* ------------------------------------------------------------- escaping */

/* Characters of s (UTF-8 sequences; an invalid byte counts as one). */
static size_t count_chars(const char *s)
{
  size_t n = 0;
  for(; *s; s++)
    if(((unsigned char)*s & 0xc0) != 0x80)
      n++;
  return n;
}

/* s with the insides of top-level <...> replaced by an ellipsis:
 * "std::map<int, std::vector<x>>::find" -> "std::map<...>::find". */
static void collapse_templates(struct bp_buf *b, const char *s)
{
  int depth = 0;
  for(; *s; s++) {
    if(*s == '<') {
      if(!depth++)
        bpi_buf_adds(b, "<" ELLIPSIS);
      continue;
    }
    if(*s == '>' && depth) {
      if(!--depth)
        bpi_buf_addc(b, '>');
      continue;
    }
    if(!depth)
      bpi_buf_addc(b, *s);
  }
  bpi_buf_addc(b, '\0');
}

static bool name_char(unsigned char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_';
}

/* Where a cut at s, inside name, leaves no part of a word or of a "::"
 * at the start: "…:State::StateIterator" (cut in "benchmark::State")
 * read as a name that does not exist; "…State::StateIterator" does not.
 * s itself when no such boundary is left. */
static const char *word_boundary(const char *name, const char *s)
{
  const char *p = s;
  if(p == name)
    return s;
  bool in_word = name_char((unsigned char)p[-1]) &&
                 name_char((unsigned char)*p);
  bool in_colons = p[-1] == ':' && *p == ':';
  if(!in_word && !in_colons)
    return s;
  while(name_char((unsigned char)*p))
    p++;
  if(p[0] == ':' && p[1] != ':')   /* the second colon of a "::" */
    p++;
  return *p ? p : s;
}

/* The last max - 1 characters of s after an ellipsis, from a word's
 * start where the cut fell inside one. */
static void keep_end(struct bp_buf *b, const char *s, size_t max)
{
  const char *name = s;
  size_t chars = count_chars(s), skip = chars - (max - 1);
  for(; *s && skip; s++)
    if(((unsigned char)s[1] & 0xc0) != 0x80)
      skip--;
  s = word_boundary(name, s);
  bpi_buf_adds(b, ELLIPSIS);
  bpi_buf_adds(b, s);
  bpi_buf_addc(b, '\0');
}

/* Markdown (GFM) and HTML punctuation, escaped with a backslash, which
 * reads as plain text in a notification e-mail too (where "&#95;" showed
 * raw): a "\|" cannot split a table cell, "\<" open a tag, "\&" start
 * an entity, "\#" (issue links) and "\$" (math) neither.  An '@' that
 * could start a mention (GitHub links it whatever escapes it) is a
 * numeric reference; see at_inert. */
static bool md_special(unsigned char c)
{
  return c && strchr("\\`*_{}[]<>|&~#!$", c);
}

static bool word_char(unsigned char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c >= 0x80;
}

static bool ascii_alnum(unsigned char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9');
}

/* Whether the '@' at p in s cannot start a mention, so it is shown as it
 * is: a mention needs a letter or digit after the '@' and no letter or
 * digit before it ("user@host", "BM_Sort@1k" and "a @ b" are text). */
static bool at_inert(const char *s, const unsigned char *p)
{
  return (p > (const unsigned char *)s && ascii_alnum(p[-1])) ||
         !word_char(p[1]);   /* a non-ASCII letter too, to be safe */
}

static void md_escape(struct bp_buf *b, const char *s)
{
  const unsigned char *p = (const unsigned char *)s;
  while(*p) {
    uint32_t cp;
    size_t n;
    if(*p < 0x80) {
      /* an underscore inside a word never emphasizes (GFM): as it is */
      bool inword = *p == '_' && p > (const unsigned char *)s &&
                    word_char(p[-1]) && word_char(p[1]);
      if(*p == '\n' || *p == '\r' || *p == '\t')
        bpi_buf_addc(b, ' ');
      else if(*p < 0x20 || *p == 0x7f)
        bpi_buf_adds(b, "\xef\xbf\xbd");
      else if(*p == '@' && !at_inert(s, p))
        bpi_buf_adds(b, "&#64;");
      else if(md_special(*p) && !inword) {
        bpi_buf_addc(b, '\\');
        bpi_buf_addc(b, (char)*p);
      }
      else
        bpi_buf_addc(b, (char)*p);
      p++;
    }
    else if((n = bpi_utf8_seq(p, &cp)) != 0) {
      /* line and paragraph separators would break a table row */
      if(cp == 0x2028 || cp == 0x2029 || cp == 0x85)
        bpi_buf_addc(b, ' ');
      else
        bpi_buf_add(b, p, n);
      p += n;
    }
    else {
      bpi_buf_adds(b, "\xef\xbf\xbd");
      p++;
    }
  }
}

void bpi_comment_md_text(struct bp_buf *b, const char *name,
                         size_t max_chars)
{
  struct bp_buf a, c;
  const char *s = name ? name : "";
  if(max_chars < 8)
    max_chars = 8;
  if(count_chars(s) <= max_chars) {
    md_escape(b, s);
    return;
  }
  bpi_buf_init(&a);
  bpi_buf_init(&c);
  collapse_templates(&a, s);
  if(!bpi_buf_failed(&a))
    s = a.data;
  if(count_chars(s) > max_chars) {
    keep_end(&c, s, max_chars);
    if(!bpi_buf_failed(&c))
      s = c.data;
  }
  if(bpi_buf_failed(&a) || bpi_buf_failed(&c))
    b->failed = true;
  md_escape(b, s);
  bpi_buf_cleanup(&c);
  bpi_buf_cleanup(&a);
}

/* A code span when s can be one, else escaped text. */
void bpi_comment_md_code(struct bp_buf *b, const char *s)
{
  bool plain = *s && count_chars(s) <= BP_COMMENT_NAME_CHARS;
  for(const unsigned char *p = (const unsigned char *)s; plain && *p; p++)
    plain = *p >= 0x20 && *p < 0x7f && *p != '`' && *p != '|';
  if(!plain) {
    bpi_comment_md_text(b, s, BP_COMMENT_NAME_CHARS);
    return;
  }
  bpi_buf_addc(b, '`');
  bpi_buf_adds(b, s);
  bpi_buf_addc(b, '`');
}

void bpi_comment_url_encode(struct bp_buf *b, const char *s)
{
  bpi_text_pct_encode(b, s, NULL);
}

bool bpi_comment_bencher_plot(struct bp_buf *b,
                              const struct bp_comment_plot *p)
{
  static const char *const names[] = {"branches", "heads", "testbeds",
                                      "benchmarks", "measures"};
  const char *vals[] = {p->branch, p->head, p->testbed, p->benchmark,
                        p->measure};
  int64_t window = (int64_t)BP_COMMENT_PLOT_DAYS * 86400 * 1000;
  if(!p->project || !*p->project || !p->report || !*p->report ||
     p->end_ms <= 0)
    return false;
  for(size_t i = 0; i < BP_ARRAY_LEN(vals); i++)
    if(!vals[i] || !*vals[i])
      return false;
  const char *console = p->console && *p->console ? p->console :
                        "https://bencher.dev";
  size_t n = strlen(console);
  while(n && console[n - 1] == '/')
    n--;
  bpi_buf_add(b, console, n);
  bpi_buf_adds(b, "/perf/");
  bpi_comment_url_encode(b, p->project);
  for(size_t i = 0; i < BP_ARRAY_LEN(vals); i++) {
    bpi_buf_printf(b, "%c%s=", i ? '&' : '?', names[i]);
    bpi_comment_url_encode(b, vals[i]);
  }
  bpi_buf_printf(b, "&start_time=%" PRId64 "&end_time=%" PRId64
                 "&report=", p->end_ms > window ? p->end_ms - window : 0,
                 p->end_ms);
  bpi_comment_url_encode(b, p->report);
  return true;
}

static const char *measure_uuid(const struct bp_cmp_bench *cb,
                                const char *slug)
{
  for(size_t i = 0; slug && i < cb->nmeasures; i++)
    if(!strcmp(cb->measures[i].slug, slug))
      return cb->measures[i].bencher_uuid;
  return NULL;
}

bool bpi_comment_bench_plot(struct bp_buf *b, const struct bp_cmp *c,
                            const struct bp_cmp_bench *cb,
                            const char **slug)
{
  const struct bp_cmp_side *h = &c->head;
  *slug = cb->max_slug && measure_uuid(cb, cb->max_slug) ? cb->max_slug
                                                         : "latency";
  struct bp_comment_plot p = {
    .console = h->bencher_url, .project = h->bencher_project,
    .branch = h->bencher_branch, .head = h->bencher_head,
    .testbed = h->bencher_testbed, .benchmark = cb->bencher_uuid,
    .measure = measure_uuid(cb, *slug), .report = h->report_uuid,
    .end_ms = h->bencher_end_ms,
  };
  return bpi_comment_bencher_plot(b, &p);
}

/* A link target: only http(s) URLs; bytes that could end the target or
 * start markup are percent-encoded. */
bool bpi_comment_md_url(struct bp_buf *b, const char *url)
{
  static const char hex[] = "0123456789ABCDEF";
  if(!bpi_text_web_url(url))
    return false;
  for(const unsigned char *p = (const unsigned char *)url; *p; p++) {
    if(*p > 0x20 && *p < 0x7f && !strchr("()<>\"'`|\\^{} ", *p))
      bpi_buf_addc(b, (char)*p);
    else {
      char esc[3] = {'%', hex[*p >> 4], hex[*p & 15]};
      bpi_buf_add(b, esc, 3);
    }
  }
  return true;
}

void bpi_comment_profiler_view(struct bp_buf *b, const char *file_url,
                               unsigned thread, const char *name)
{
  bpi_buf_adds(b, PROFILER "/from-url/");
  bpi_comment_url_encode(b, file_url);
  bpi_buf_printf(b, "/calltree/?thread=%u", thread);
  if(name && *name) {
    bpi_buf_adds(b, "&profileName=");
    bpi_comment_url_encode(b, name);
  }
}

void bpi_comment_profiler_compare(struct bp_buf *b, const char *view_a,
                                  const char *view_b)
{
  bpi_buf_adds(b, PROFILER "/compare/calltree/?profiles[]=");
  bpi_comment_url_encode(b, view_a);
  bpi_buf_adds(b, "&profiles[]=");
  bpi_comment_url_encode(b, view_b);
}

/* s with the characters a marker cannot hold as '_'. */
static void add_marker_name(struct bp_buf *b, const char *s)
{
  for(; *s; s++) {
    bool ok = (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
              (*s >= '0' && *s <= '9') || (*s && strchr("._-/", *s));
    bpi_buf_addc(b, ok ? *s : '_');
  }
}

void bpi_comment_marker(struct bp_buf *b, const char *project,
                        const char *testbed, const char *suite)
{
  bpi_buf_adds(b, "<!-- benchprof:comment ");
  add_marker_name(b, project && *project ? project : "default");
  bpi_buf_addc(b, '/');
  add_marker_name(b, testbed && *testbed ? testbed : "local");
  if(suite && *suite) {
    bpi_buf_adds(b, BP_COMMENT_MARKER_SUITE);
    add_marker_name(b, suite);
  }
  bpi_buf_adds(b, " -->");
}

char *bpi_comment_marker_suite(const char *marker)
{
  const char *s = marker ? strstr(marker, BP_COMMENT_MARKER_SUITE) : NULL;
  if(!s)
    return NULL;
  s += strlen(BP_COMMENT_MARKER_SUITE);
  size_t n = strcspn(s, " ");
  return n ? strndup(s, n) : NULL;
}

char *bpi_comment_find_marker(const char *text)
{
  const char *start = strstr(text, "<!-- benchprof:comment ");
  const char *end = start ? strstr(start, " -->") : NULL;
  if(!end)
    return NULL;
  size_t n = (size_t)(end - start) + 4;
  char *m = malloc(n + 1);
  if(m) {
    memcpy(m, start, n);
    m[n] = '\0';
  }
  return m;
}

/* ----------------------------------------------------- compared line */

/* Whether v can stand in the compared line as a field's value: it fits,
 * and nothing in it can end the HTML comment or the field ("--", '>',
 * spaces); a time must be one. */
static bool field_ok(const char *v, size_t n, bool time)
{
  int64_t ms;
  if(!n || n >= BP_COMMENT_FIELD_MAX)
    return false;
  for(size_t i = 0; i < n; i++) {
    char c = v[i];
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
              (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              (c == '-' && (!i || v[i - 1] != '-')) ||
              (time && (c == ':' || c == '+'));
    if(!ok)
      return false;
  }
  if(!time)
    return true;
  char t[BP_COMMENT_FIELD_MAX];
  memcpy(t, v, n);
  t[n] = '\0';
  return bpi_text_iso8601_ms(t, &ms);
}

static const char *const compared_keys[] = {"head", "commit_time",
                                            "end_time"};

void bpi_comment_compared_line(struct bp_buf *b, const struct bp_run_when *w)
{
  const char *values[] = {w->commit, w->commit_time, w->end_time};
  size_t mark = b->len;
  bool any = false;
  bpi_buf_adds(b, BP_COMMENT_COMPARED_PREFIX);
  for(size_t i = 0; i < BP_ARRAY_LEN(values); i++) {
    if(!values[i] || !field_ok(values[i], strlen(values[i]), i > 0))
      continue;
    bpi_buf_printf(b, "%s%s=%s", any ? " " : "", compared_keys[i],
                   values[i]);
    any = true;
  }
  if(any)
    bpi_buf_adds(b, " -->\n");
  else
    b->len = mark;   /* nothing known: no line */
}

bool bpi_comment_find_compared(const char *text,
                               struct bp_comment_compared *out)
{
  char *into[] = {out->head, out->commit_time, out->end_time};
  memset(out, 0, sizeof(*out));
  const char *s = text ? strstr(text, BP_COMMENT_COMPARED_PREFIX) : NULL;
  if(!s)
    return false;
  s += strlen(BP_COMMENT_COMPARED_PREFIX);
  size_t line = strcspn(s, "\n");
  const char *close = strstr(s, " -->");
  if(!close || (size_t)(close - s) > line)
    return false;   /* not closed on its line: not ours */
  while(s < close) {
    size_t n = strcspn(s, " ");
    if(s + n > close)
      n = (size_t)(close - s);
    const char *eq = memchr(s, '=', n);
    for(size_t i = 0; eq && i < BP_ARRAY_LEN(compared_keys); i++) {
      size_t klen = strlen(compared_keys[i]);
      size_t vlen = n - klen - 1;
      if((size_t)(eq - s) == klen && !memcmp(s, compared_keys[i], klen) &&
         field_ok(eq + 1, vlen, i > 0)) {
        memcpy(into[i], eq + 1, vlen);
        into[i][vlen] = '\0';
      }
    }
    s += n + (s + n < close);
  }
  return true;
}

struct bp_run_when bpi_comment_compared_when(
  const struct bp_comment_compared *c)
{
  return (struct bp_run_when){c->head[0] ? c->head : NULL,
                              c->commit_time[0] ? c->commit_time : NULL,
                              c->end_time[0] ? c->end_time : NULL};
}
