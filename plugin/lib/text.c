/* text: small codecs (see text.h). */
#include "bp_setup.h"
#include "text.h"
#include "buf.h"
#include "err.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void bpi_text_pct_encode(struct bp_buf *b, const char *s, const char *keep)
{
  static const char hex[] = "0123456789ABCDEF";
  for(const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
       (*p >= '0' && *p <= '9') || strchr("-._~", *p) ||
       (keep && strchr(keep, *p)))
      bpi_buf_addc(b, (char)*p);
    else {
      char esc[3] = {'%', hex[*p >> 4], hex[*p & 15]};
      bpi_buf_add(b, esc, 3);
    }
  }
}

int bpi_text_hex_value(char c)
{
  if(c >= '0' && c <= '9')
    return c - '0';
  if(c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if(c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

bool bpi_text_pct_decode(struct bp_buf *out, const char *s, size_t len,
                         bool strict)
{
  for(size_t i = 0; i < len; i++) {
    int hi = i + 2 < len && s[i] == '%' ? bpi_text_hex_value(s[i + 1]) : -1;
    int lo = hi >= 0 ? bpi_text_hex_value(s[i + 2]) : -1;
    if(lo >= 0) {
      bpi_buf_addc(out, (char)(hi * 16 + lo));
      i += 2;
    }
    else if(s[i] == '%' && strict)
      return false;
    else
      bpi_buf_addc(out, s[i]);
  }
  return true;
}

bool bpi_text_utf8_valid(const char *s)
{
  const unsigned char *u = (const unsigned char *)s;
  uint32_t cp;
  while(*u) {
    size_t n = bpi_utf8_seq(u, &cp);
    if(!n)
      return false;
    u += n;
  }
  return true;
}

/* n digits at *p into *v; false when they are not all digits */
static bool digits(const char **p, int n, unsigned *v)
{
  *v = 0;
  for(int i = 0; i < n; i++, (*p)++) {
    if(**p < '0' || **p > '9')
      return false;
    *v = *v * 10 + (unsigned)(**p - '0');
  }
  return true;
}

/* ".5" is 500 ms; digits finer than ms are dropped. */
static bool fraction(const char **p, unsigned *ms)
{
  *ms = 0;
  if(**p != '.')
    return true;
  (*p)++;
  if(**p < '0' || **p > '9')
    return false;
  for(int i = 0; i < 3 || (**p >= '0' && **p <= '9'); i++) {
    unsigned digit = **p >= '0' && **p <= '9' ? (unsigned)(*(*p)++ - '0')
                                              : 0;
    if(i < 3)
      *ms = *ms * 10 + digit;
  }
  return true;
}

/* "Z", "+hh:mm" or "-hh:mm" as seconds east of UTC. */
static bool offset(const char **p, int64_t *secs)
{
  unsigned oh, om;
  *secs = 0;
  if(**p == 'Z' || **p == 'z') {
    (*p)++;
    return true;
  }
  if(**p != '+' && **p != '-')
    return false;
  int sign = *(*p)++ == '+' ? 1 : -1;
  if(!digits(p, 2, &oh) || *(*p)++ != ':' || !digits(p, 2, &om) ||
     oh > 23 || om > 59)
    return false;
  *secs = sign * (int64_t)(oh * 3600 + om * 60);
  return true;
}

bool bpi_text_iso8601_ms(const char *iso, int64_t *ms)
{
  unsigned y, mo, d, h, mi, s, frac;
  int64_t east;
  const char *p = iso;
  if(!p || !digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo) ||
     *p++ != '-' || !digits(&p, 2, &d) || (*p != 'T' && *p != 't') ||
     !(p++, digits(&p, 2, &h)) || *p++ != ':' || !digits(&p, 2, &mi) ||
     *p++ != ':' || !digits(&p, 2, &s) || !fraction(&p, &frac) ||
     !offset(&p, &east))
    return false;
  if(*p || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
     s > 60)
    return false;
  /* the calendar is libc's: timegm takes the fields as UTC */
  struct tm tm = {.tm_year = (int)y - 1900, .tm_mon = (int)mo - 1,
                  .tm_mday = (int)d, .tm_hour = (int)h, .tm_min = (int)mi,
                  .tm_sec = (int)s};
  time_t t = timegm(&tm);
  *ms = ((int64_t)t - east) * 1000 + frac;
  return true;
}

const char *bpi_json_str(const cJSON *obj, const char *name)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* -------------------------------------------------------------- numbers */

bool bpi_text_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
  if(!s || !*s || strspn(s, "0123456789") != strlen(s))
    return false;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if(errno || *end || v < min || v > max)
    return false;
  *out = v;
  return true;
}

bool bpi_text_number(const char *s, double min, double max, double *out)
{
  /* only what a decimal number is made of: strtod would also take
   * leading space, hex, "inf" and "nan" */
  if(!s || !*s || strspn(s, "0123456789.eE+-") != strlen(s))
    return false;
  errno = 0;
  char *end;
  double v = strtod(s, &end);
  if(errno || end == s || *end || !(v >= min && v <= max))
    return false;
  *out = v;
  return true;
}

/* --------------------------------------------------------- edit distance */

static bool same_byte(char x, char y, bool nocase)
{
  if(nocase)
    return tolower((unsigned char)x) == tolower((unsigned char)y);
  return x == y;
}

size_t bpi_text_edit_distance(const char *a, size_t la, const char *b,
                              size_t lb, bool nocase)
{
  size_t row[BP_TEXT_EDIT_MAX + 1];
  if(la > BP_TEXT_EDIT_MAX || lb > BP_TEXT_EDIT_MAX)
    return SIZE_MAX;
  for(size_t j = 0; j <= lb; j++)
    row[j] = j;
  for(size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for(size_t j = 1; j <= lb; j++) {
      size_t up = row[j];
      size_t best = diag + !same_byte(a[i - 1], b[j - 1], nocase);
      if(up + 1 < best)
        best = up + 1;
      if(row[j - 1] + 1 < best)
        best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[lb];
}

/* ----------------------------------------------------------------- paths */

char *bpi_text_path_join(const char *dir, const char *name)
{
  size_t ld = strlen(dir), ln = strlen(name);
  char *path = malloc(ld + 1 + ln + 1);
  if(!path)
    return NULL;
  memcpy(path, dir, ld);
  path[ld] = '/';
  memcpy(path + ld + 1, name, ln + 1);
  return path;
}

/* ------------------------------------------------------------ call graph */

bp_code bpi_text_call_graph(const char *s, uint32_t max_bytes,
                            enum bp_call_graph *mode, uint32_t *bytes,
                            struct bp_err *err)
{
  uint64_t v;
  if(!strcmp(s, "fp") || !strcmp(s, "auto") || !strcmp(s, "lbr")) {
    *mode = s[0] == 'f' ? BP_CALL_GRAPH_FP :
            s[0] == 'l' ? BP_CALL_GRAPH_LBR : BP_CALL_GRAPH_AUTO;
    *bytes = 0;
    return BP_OK;
  }
  if(strncmp(s, "dwarf", 5) || (s[5] && s[5] != ','))
    return bpi_err_set(err, BPE_INVAL, 0, "'%s' is not fp, dwarf[,BYTES], "
                       "auto or lbr", s);
  if(s[5] && (!bpi_text_u64(s + 6, 8, max_bytes, &v) || (v & 7)))
    return bpi_err_set(err, BPE_INVAL, 0, "stack size '%s' must be a "
                       "multiple of 8 from 8 to %u bytes", s + 6,
                       (unsigned)max_bytes);
  *mode = BP_CALL_GRAPH_DWARF;
  *bytes = s[5] ? (uint32_t)v : 0;
  return BP_OK;
}

bool bpi_text_web_url(const char *url)
{
  return url && (!strncmp(url, "https://", 8) || !strncmp(url, "http://", 7));
}
