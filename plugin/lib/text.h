/* text: the small codecs several stages need, written once: URL
 * percent-encoding and decoding, hex digits, UTF-8 validation, ISO 8601
 * times, strict numbers with a range, the edit distance behind "did you
 * mean", a path joined, the call-graph option's grammar.  Pure
 * functions; buffers are the caller's. */
#ifndef BP_LIB_TEXT_H
#define BP_LIB_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "benchprof/benchprof.h"
#include "unwind.h"   /* enum bp_call_graph */

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

/* Whether url is an http:// or https:// one: what a browser, the Firefox
 * Profiler or a PR comment's link can open (not file://, not NULL). */
bool bpi_text_web_url(const char *url);

/* obj's member name when it is a string, else NULL (obj may be NULL). */
struct cJSON;
const char *bpi_json_str(const struct cJSON *obj, const char *name);

/* An ISO 8601 time (YYYY-MM-DDTHH:MM:SS, optional fraction, Z or
 * +hh:mm/-hh:mm) as ms since 1970; false (*ms untouched) when it is not
 * one. */
bool bpi_text_iso8601_ms(const char *iso, int64_t *ms);

/* Strict numbers, for options, variables and settings: the whole of s
 * is the number, nothing before or after it (no space, sign, "0x", "inf"
 * or "nan"), and it lies in [min, max].  False (*out untouched) when it
 * does not; the caller says which option and range. */
/* A whole decimal number: digits only. */
bool bpi_text_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* A decimal number: [-+]digits[.digits][e[-+]digits] (or .digits). */
bool bpi_text_number(const char *s, double min, double max, double *out);
/* The least min of bpi_text_number that means "more than 0". */
#define BP_TEXT_ABOVE_ZERO 2.2250738585072014e-308   /* DBL_MIN */

/* The Levenshtein distance of a[0..la) and b[0..lb) (bytes; ASCII letters
 * compared without case when nocase), SIZE_MAX when either is longer than
 * BP_TEXT_EDIT_MAX: what "did you mean" suggestions rank by. */
#define BP_TEXT_EDIT_MAX 128
size_t bpi_text_edit_distance(const char *a, size_t la, const char *b,
                              size_t lb, bool nocase);

/* "dir/name", malloc'd; NULL when out of memory. */
char *bpi_text_path_join(const char *dir, const char *name);

/* The call-graph option (--call-graph, record.call_graph):
 * fp | dwarf[,BYTES] | auto | lbr, BYTES a multiple of 8 from 8 to
 * max_bytes.  *mode and *bytes (0: the default size) set; BPE_INVAL with
 * a message saying what is wrong ("'x' is not fp, dwarf[,BYTES], auto or
 * lbr", or the stack size) when s is not one. */
bp_code bpi_text_call_graph(const char *s, uint32_t max_bytes,
                            enum bp_call_graph *mode, uint32_t *bytes,
                            struct bp_err *err);

#endif
