/* report_int: what the report's files share (report.c: the report and
 * its writer; report_parse.c: strict JSON and messages; report_bmf.c and
 * report_gbench.c: the two readers).  Internal to them. */
#ifndef BP_LIB_REPORT_INT_H
#define BP_LIB_REPORT_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "report.h"

/* Bytes of a name shown in a message before it is cut with "...". */
#define SHOW_NAME 48
/* Bytes of the origin shown in a message. */
#define SHOW_ORIGIN 96

/* ---------------------------------------------------- report.c: arrays */

/* arr with room for extra (>= 1) more after its n elements; NULL when out
 * of memory (arr is then unchanged). */
void *bpi_report_grow(void *arr, size_t n, size_t extra, size_t elem);
/* A malloc'd copy of s in which each byte that does not belong to a valid
 * UTF-8 sequence is U+FFFD; NULL when out of memory. */
char *bpi_report_name_dup(const char *s);
/* Append a benchmark (a measure) that takes over name (slug), malloc'd;
 * NULL when out of memory, name (slug) then still the caller's. */
struct bp_bench *bpi_report_push_bench(struct bp_report *r, char *name);
struct bp_measure *bpi_report_push_measure(struct bp_bench *b, char *slug,
                                           double value);
/* The shortest of %.15g, %.16g and %.17g that reads back as v, with '.'
 * whatever the locale. */
void bpi_report_fmt_num(char *out, size_t cap, double v);

/* ----------------------------------------------- report_parse.c: messages */

/* A message piece: a bounded, always NUL-terminated string. */
struct text {
  char s[320];
  size_t len;
};

void bpi_report_text_add(struct text *t, const char *s, size_t n);
/* Append s escaped as a message shows it, cut with "..." after max bytes. */
void bpi_report_show(struct text *t, const char *s, size_t max);
/* Append "<s>" shown, at most SHOW_NAME bytes of it. */
void bpi_report_show_quoted(struct text *t, const char *s);
/* "a string", "a number", ... for messages. */
const char *bpi_report_type_name(const cJSON *j);

/* A parse in progress: where the document came from and what it holds. */
struct parse {
  const char *origin;
  struct bp_err *err;
  struct bp_report out;  /* what the document holds so far */
};

/* The origin as messages show it. */
void bpi_report_show_origin(struct text *t, const struct parse *ps);
/* BPE_FORMAT "origin:LINE:COL: invalid JSON[: why]" for the byte at off. */
bp_code bpi_report_fail_at(struct parse *ps, const char *json, size_t len,
                           size_t off, const char *why);
/* BPE_FORMAT "origin: at PATH: WHAT". */
bp_code bpi_report_fail_path(struct parse *ps, const struct text *path,
                             const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));
/* Parse json (len bytes) into *out; with standins, NaN and Infinity are
 * read as numbers that are not finite.  A NUL byte or \u0000 is refused. */
bp_code bpi_report_parse_json(struct parse *ps, const char *json, size_t len,
                              bool standins, cJSON **out);

#endif
