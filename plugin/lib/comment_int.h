/* comment_int: what comment.c (the layout) takes from comment_md.c (the
 * Markdown that must be safe: escaping, code spans, link targets) and
 * comment_lists.c (benchmarks not compared whole).  Internal to them. */
#ifndef BP_LIB_COMMENT_INT_H
#define BP_LIB_COMMENT_INT_H

#include <stdbool.h>

#include "buf.h"
#include "comment.h"

/* A code span when s can be one, else escaped text. */
void bpi_comment_md_code(struct bp_buf *b, const char *s);
/* A link target: only http(s) URLs (false, nothing added, for others);
 * bytes that could end the target or start markup percent-encoded. */
bool bpi_comment_md_url(struct bp_buf *b, const char *url);

/* comment_lists.c.  The benchmarks of c on one side only (which: new
 * or removed), at most 50 named: with values, a line each with that
 * side's key measures (latency, throughput, task-clock first, three at
 * most) and its profile's Firefox Profiler view when it has a web URL;
 * without, their names on one line. */
void bpi_comment_one_sided(struct bp_buf *b, const struct bp_cmp *c,
                           enum bp_cmp_presence which, bool values);
/* Into view (NUL-terminated): the Firefox Profiler view of cb's profile
 * on one side (head, else base), labelled "head: NAME"; false when that
 * profile has no web URL. */
bool bpi_comment_side_view(struct bp_buf *view, const struct bp_cmp_bench *cb,
                           bool head);
/* One note naming the benchmarks compared by measures only
 * (bpi_compare_profile_missing) and which side lacks its profile. */
void bpi_comment_missing_profiles(struct bp_buf *b, const struct bp_cmp *c);
/* In a benchmark's details: why it has no function comparison, when a
 * side has no profile of it. */
void bpi_comment_missing_why(struct bp_buf *b, const struct bp_cmp_bench *cb);

#endif
