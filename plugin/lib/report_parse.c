/* report_parse: what the two report readers (report_bmf.c,
 * report_gbench.c) share: the strict JSON read (cJSON, with NaN and
 * Infinity read as numbers that are not finite where asked, \u0000 and NUL
 * bytes refused) and the messages that say where a document broke
 * (origin:LINE:COL for bad JSON, origin: at PATH for a wrong value), with
 * names escaped and shortened (bpi_report_show), never raw. */
#include "bp_setup.h"
#include "report_int.h"
#include "err.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------- messages */

void bpi_report_text_add(struct text *t, const char *s, size_t n)
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
void bpi_report_show(struct text *t, const char *s, size_t max)
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
      bpi_report_text_add(t, "...", 3);
      return;
    }
    bpi_report_text_add(t, unit, n);
    used += n;
    p += adv;
  }
}

/* Append "<name>" shown. */
void bpi_report_show_quoted(struct text *t, const char *s)
{
  bpi_report_text_add(t, "\"", 1);
  bpi_report_show(t, s, SHOW_NAME);
  bpi_report_text_add(t, "\"", 1);
}

const char *bpi_report_type_name(const cJSON *j)
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

/* ------------------------------------------------------------- parsing */

/* The origin as messages show it. */
void bpi_report_show_origin(struct text *t, const struct parse *ps)
{
  bpi_report_show(t, ps->origin, SHOW_ORIGIN);
}

/* origin:LINE:COL: invalid JSON, for the byte at off of json (len bytes);
 * columns count characters, not bytes. */
bp_code bpi_report_fail_at(struct parse *ps, const char *json, size_t len,
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
  bpi_report_show_origin(&o, ps);
  if(!why && off >= len)
    why = "unexpected end of input";
  return bpi_err_set(ps->err, BPE_FORMAT, 0, "%s:%zu:%zu: invalid JSON%s%s",
                     o.s, line, col, why ? ": " : "", why ? why : "");
}

/* origin: at PATH: WHAT */
bp_code bpi_report_fail_path(struct parse *ps, const struct text *path,
                             const char *fmt, ...)
{
  struct text o = {.len = 0};
  char what[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof(what), fmt, ap);
  va_end(ap);
  bpi_report_show_origin(&o, ps);
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
bp_code bpi_report_parse_json(struct parse *ps, const char *json, size_t len,
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
    return bpi_report_fail_at(ps, json, len, (size_t)(nul - json),
                              "a NUL byte");
  bpi_buf_init(&copy);
  while((k = lex_next(&l, &at, &n)) != LEX_END) {
    if(k == LEX_NUL_ESCAPE) {
      rc = bpi_report_fail_at(ps, json, len, at, "\\u0000 in a string");
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
    rc = bpi_report_fail_at(ps, json, len, standins ? map_offset(json, len,
                            off) : off,
                            NULL);
  }
out:
  bpi_buf_cleanup(&copy);
  return rc;
}
