#include "bp_setup.h"
#include "buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bpi_buf_init(struct bp_buf *b)
{
  memset(b, 0, sizeof(*b));
}

void bpi_buf_cleanup(struct bp_buf *b)
{
  free(b->data);
  bpi_buf_init(b);
}

void bpi_buf_reset(struct bp_buf *b)
{
  b->len = 0;
}

bool bpi_buf_failed(const struct bp_buf *b)
{
  return b->failed;
}

#define SINK_CHUNK 65536

void bpi_buf_set_sink(struct bp_buf *b,
                      bool (*sink)(void *ctx, const void *data, size_t len),
                      void *ctx)
{
  b->sink = sink;
  b->sink_ctx = ctx;
}

bool bpi_buf_flush(struct bp_buf *b)
{
  if(b->failed)
    return false;
  if(b->sink && b->len) {
    if(!b->sink(b->sink_ctx, b->data, b->len)) {
      b->failed = true;
      return false;
    }
    b->len = 0;
    b->data[0] = '\0';
  }
  return true;
}

static bool reserve(struct bp_buf *b, size_t extra)
{
  if(b->failed)
    return false;
  if(b->len + extra + 1 <= b->cap)
    return true;
  if(b->sink && b->len && b->cap >= SINK_CHUNK) {
    if(!bpi_buf_flush(b))
      return false;
    if(extra + 1 <= b->cap)
      return true;
  }
  size_t cap = b->cap ? b->cap : 256;
  while(cap < b->len + extra + 1) {
    if(cap > SIZE_MAX / 2) {
      b->failed = true;
      return false;
    }
    cap *= 2;
  }
  char *d = realloc(b->data, cap);
  if(!d) {
    b->failed = true;
    return false;
  }
  b->data = d;
  b->cap = cap;
  return true;
}

bool bpi_buf_reserve(struct bp_buf *b, size_t extra)
{
  return reserve(b, extra);
}

void bpi_buf_add(struct bp_buf *b, const void *data, size_t len)
{
  if(!reserve(b, len))
    return;
  if(len)
    memcpy(b->data + b->len, data, len);
  b->len += len;
  b->data[b->len] = '\0';
}

void bpi_buf_addc(struct bp_buf *b, char c)
{
  bpi_buf_add(b, &c, 1);
}

void bpi_buf_adds(struct bp_buf *b, const char *s)
{
  bpi_buf_add(b, s, strlen(s));
}

void bpi_buf_printf(struct bp_buf *b, const char *fmt, ...)
{
  va_list ap;
  size_t room = b->cap > b->len ? b->cap - b->len : 0;
  va_start(ap, fmt);
  /* straight into the free space; a second pass only when it did not fit */
  int n = vsnprintf(room ? b->data + b->len : NULL, room, fmt, ap);
  va_end(ap);
  if(n >= 0 && (size_t)n < room && !b->failed) {
    b->len += (size_t)n;
    return;
  }
  if(n < 0 || !reserve(b, (size_t)n)) {
    b->failed = true;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

void bpi_buf_u64(struct bp_buf *b, uint64_t v)
{
  char tmp[20];
  size_t n = sizeof(tmp);
  do {
    tmp[--n] = (char)('0' + v % 10);
    v /= 10;
  } while(v);
  bpi_buf_add(b, tmp + n, sizeof(tmp) - n);
}

size_t bpi_utf8_seq(const unsigned char *s, uint32_t *cp)
{
  unsigned char c = s[0];
  size_t n;
  uint32_t v;
  if(c < 0x80) {
    *cp = c;
    return 1;
  }
  if(c >= 0xc2 && c <= 0xdf) {
    n = 2;
    v = c & 0x1f;
  }
  else if(c >= 0xe0 && c <= 0xef) {
    n = 3;
    v = c & 0x0f;
  }
  else if(c >= 0xf0 && c <= 0xf4) {
    n = 4;
    v = c & 0x07;
  }
  else
    return 0;
  for(size_t i = 1; i < n; i++) {
    if((s[i] & 0xc0) != 0x80)
      return 0;
    v = (v << 6) | (s[i] & 0x3f);
  }
  /* overlong forms, surrogates and code points past U+10FFFF */
  if((n == 3 && (v < 0x800 || (v >= 0xd800 && v <= 0xdfff))) ||
     (n == 4 && (v < 0x10000 || v > 0x10ffff)))
    return 0;
  *cp = v;
  return n;
}

static size_t utf8_len(const unsigned char *s)
{
  uint32_t cp;
  return bpi_utf8_seq(s, &cp);
}

/* Append s, valid UTF-8 sequences as they are, each invalid byte as
 * invalid (the language's spelling of U+FFFD), and each ASCII byte through
 * ascii(), which appends it escaped as its language needs. */
static void add_escaped(struct bp_buf *b, const char *str, const char *invalid,
                        void (*ascii)(struct bp_buf *, unsigned char))
{
  const unsigned char *s = (const unsigned char *)(str ? str : "");
  while(*s) {
    size_t n = utf8_len(s);
    if(n == 0) {
      bpi_buf_adds(b, invalid);
      s++;
    }
    else if(n > 1) {
      bpi_buf_add(b, s, n);
      s += n;
    }
    else {
      ascii(b, *s++);
    }
  }
}

static void json_ascii(struct bp_buf *b, unsigned char c)
{
  switch(c) {
  case '"': bpi_buf_adds(b, "\\\""); break;
  case '\\': bpi_buf_adds(b, "\\\\"); break;
  case '\n': bpi_buf_adds(b, "\\n"); break;
  case '\r': bpi_buf_adds(b, "\\r"); break;
  case '\t': bpi_buf_adds(b, "\\t"); break;
  default:
    /* '<' is escaped too so JSON embedded in HTML cannot close a tag */
    if(c < 0x20 || c == 0x7f || c == '<')
      bpi_buf_printf(b, "\\u%04x", c);
    else
      bpi_buf_addc(b, (char)c);
  }
}

static void xml_ascii(struct bp_buf *b, unsigned char c)
{
  switch(c) {
  case '&': bpi_buf_adds(b, "&amp;"); break;
  case '<': bpi_buf_adds(b, "&lt;"); break;
  case '>': bpi_buf_adds(b, "&gt;"); break;
  case '"': bpi_buf_adds(b, "&quot;"); break;
  case '\'': bpi_buf_adds(b, "&#39;"); break;
  default:
    /* control characters are not allowed in XML 1.0 at all */
    if(c < 0x20 && c != '\t' && c != '\n')
      bpi_buf_adds(b, "\xef\xbf\xbd");
    else
      bpi_buf_addc(b, (char)c);
  }
}

void bpi_buf_json_str(struct bp_buf *b, const char *str)
{
  bpi_buf_addc(b, '"');
  add_escaped(b, str, "\\ufffd", json_ascii);
  bpi_buf_addc(b, '"');
}

void bpi_buf_xml_text(struct bp_buf *b, const char *str)
{
  add_escaped(b, str, "\xef\xbf\xbd", xml_ascii);
}

void bpi_buf_shell_word(struct bp_buf *b, const char *s, bool bare_ok)
{
  static const char bare[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                             "0123456789_-.,/:=+@%";
  if(bare_ok && s[0] && strspn(s, bare) == strlen(s)) {
    bpi_buf_adds(b, s);
    return;
  }
  bpi_buf_addc(b, '\'');
  for(; *s; s++)
    if(*s == '\'')
      bpi_buf_adds(b, "'\\''");
    else
      bpi_buf_addc(b, *s);
  bpi_buf_addc(b, '\'');
}

void bpi_buf_varint(struct bp_buf *b, uint64_t v)
{
  unsigned char tmp[10];
  size_t n = 0;
  do {
    unsigned char byte = v & 0x7f;
    v >>= 7;
    if(v)
      byte |= 0x80;
    tmp[n++] = byte;
  } while(v);
  bpi_buf_add(b, tmp, n);
}

void bpi_hex_encode(const unsigned char *bytes, size_t len, char *out)
{
  static const char digits[] = "0123456789abcdef";
  for(size_t i = 0; i < len; i++) {
    out[2 * i] = digits[bytes[i] >> 4];
    out[2 * i + 1] = digits[bytes[i] & 15];
  }
  out[2 * len] = '\0';
}
