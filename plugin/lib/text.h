/* text: the small codecs several stages need, written once: URL
 * percent-encoding and decoding, hex digits, UTF-8 validation, ISO 8601
 * times.  (libcurl's curl_easy_escape does the encoding in http.c, where
 * libcurl is loaded; these are for the stages that never load it.)
 * Pure functions; buffers are the caller's. */
#ifndef BP_LIB_TEXT_H
#define BP_LIB_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bp_buf;

/* Append s percent-encoded: RFC 3986's unreserved bytes ([A-Za-z0-9-._~])
 * and those in keep (e.g. "/" for a path) stay, every other byte is %XX. */
void bpi_text_pct_encode(struct bp_buf *b, const char *s, const char *keep);

/* Append s[0..len) with each %XX decoded.  strict: a '%' that starts no
 * escape fails (false); otherwise it is kept as it is. */
bool bpi_text_pct_decode(struct bp_buf *out, const char *s, size_t len,
                         bool strict);

/* The value of a hex digit, -1 when c is none. */
int bpi_text_hex_value(char c);

/* Whether s is valid UTF-8 (no overlong form, surrogate or byte beyond
 * U+10FFFF). */
bool bpi_text_utf8_valid(const char *s);

/* obj's member name when it is a string, else NULL (obj may be NULL). */
struct cJSON;
const char *bpi_json_str(const struct cJSON *obj, const char *name);

/* An ISO 8601 time (YYYY-MM-DDTHH:MM:SS, optional fraction, Z or
 * +hh:mm/-hh:mm) as ms since 1970; false (*ms untouched) when it is not
 * one. */
bool bpi_text_iso8601_ms(const char *iso, int64_t *ms);

#endif
