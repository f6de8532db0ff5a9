/* buf: a growable byte buffer for building text and binary output
 * (JSON, protobuf, SVG).  Allocation failure is sticky: after the first
 * failure every append is a no-op and bpi_buf_failed() reports it, so
 * writers append freely and check once at the end.  Owns its memory. */
#ifndef BP_LIB_BUF_H
#define BP_LIB_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bp_buf {
  char *data;
  size_t len;
  size_t cap;
  bool failed;
  /* optional: where full chunks go (bpi_buf_set_sink) */
  bool (*sink)(void *ctx, const void *data, size_t len);
  void *sink_ctx;
};

void bpi_buf_init(struct bp_buf *b);
void bpi_buf_cleanup(struct bp_buf *b);
void bpi_buf_reset(struct bp_buf *b);   /* len = 0, keeps memory */
bool bpi_buf_failed(const struct bp_buf *b);

/* Stream instead of growing: once b holds about 64 KiB, what it holds is
 * handed to sink and b starts again empty (a false return makes b failed).
 * For writers that only append; bpi_buf_flush hands over the rest. */
void bpi_buf_set_sink(struct bp_buf *b,
                      bool (*sink)(void *ctx, const void *data, size_t len),
                      void *ctx);
bool bpi_buf_flush(struct bp_buf *b);

/* Room for extra more bytes and a NUL after b->len, for a writer that
 * fills b->data in place (then sets b->len); false when out of memory
 * (b is then failed).  Not for a buffer with a sink (it may flush). */
bool bpi_buf_reserve(struct bp_buf *b, size_t extra);

void bpi_buf_add(struct bp_buf *b, const void *data, size_t len);
void bpi_buf_addc(struct bp_buf *b, char c);
void bpi_buf_adds(struct bp_buf *b, const char *s);
void bpi_buf_printf(struct bp_buf *b, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));
/* v in decimal; what bpi_buf_printf(b, "%" PRIu64, v) adds, without the
 * cost of a printf for exporters writing one number per sample. */
void bpi_buf_u64(struct bp_buf *b, uint64_t v);

/* Length of the valid UTF-8 sequence at s (NUL-terminated) and its code
 * point in *cp; 0 when s does not start one (invalid, overlong, surrogate,
 * beyond U+10FFFF). */
size_t bpi_utf8_seq(const unsigned char *s, uint32_t *cp);

/* Escaping for the output languages.  Each appends s escaped, without the
 * surrounding quotes.  Invalid UTF-8 bytes become U+FFFD so the output is
 * always valid UTF-8. */
void bpi_buf_json_str(struct bp_buf *b, const char *s);   /* adds "..." */
void bpi_buf_xml_text(struct bp_buf *b, const char *s);   /* &<>"' */
/* s as one POSIX shell word: '...' with each ' written '\'', so that a
 * command line benchprof prints can be pasted back.  With bare_ok, a
 * non-empty word of letters, digits and _-.,/:=+@% only is added as it is
 * (no character there means anything to the shell). */
void bpi_buf_shell_word(struct bp_buf *b, const char *s, bool bare_ok);

/* Lowercase hex of len bytes into out (2 * len + 1 bytes, NUL-terminated). */
void bpi_hex_encode(const unsigned char *bytes, size_t len, char *out);

/* Protobuf primitives (little helpers for the pprof exporter). */
void bpi_buf_varint(struct bp_buf *b, uint64_t v);

#endif
