/* comment: a comparison (compare.h) -> the pull request comment, and the
 * requests that put it on GitHub or GitLab, updated in place.
 *
 * The Markdown has a hidden marker first (`<!-- benchprof:comment
 * project/testbed -->`), then a hidden line that says which comparison
 * it is (`<!-- benchprof:compared head=... -->`, below), a title and a
 * verdict line, "Comparing head
 * (sha) with base (sha)", a summary table with a row per benchmark, then
 * per benchmark a table of measures (a change the data do not confirm is
 * "within noise" when its interval holds 0, else "not confirmed beyond
 * T%"), the top changed functions (or why none is named) and their
 * table (callers that only repeat a listed callee's change left out; a
 * cut table says "N of M shown"; benchmarks sharing the whole run's
 * profile get one section of its functions, after them), a note when
 * wall time (latency) moved but CPU time (task-clock) did not (and
 * whether that change is counted: "slower (faster) in wall time only"
 * is not, docs/verdicts.md), and
 * viewer links (Firefox Profiler compare view, each profile, the
 * differential flame graph, Bencher).  It never exceeds max_chars: it
 * degrades a benchmark at a time, least changed first (the details and
 * then the table rows of those within the threshold; the function rows,
 * details and rows of those beyond it) and a note says what went.
 * Names are untrusted: Markdown and HTML in them are escaped, long ones
 * shortened.
 * When the base is the base branch's latest run for want of the base
 * commit's (base_latest), a note under "Comparing" says so and the title
 * calls the verdict provisional.
 *
 * Posting is split into pure steps (URLs, request bodies, finding our
 * comment in a list answer) and one driver, bpi_comment_post, that sends
 * through a transport (bpi_http_send in benchprof, a fake in the unit
 * test).  Owns: nothing beyond the out-parameters documented below.
 * Not thread-safe. */
#ifndef BP_LIB_COMMENT_H
#define BP_LIB_COMMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "benchprof/benchprof.h"
#include "buf.h"
#include "compare.h"
#include "http.h"
#include "runorder.h"

#define BP_COMMENT_MAX_CHARS 65536   /* GitHub's limit for a comment body */
#define BP_COMMENT_NAME_CHARS 80     /* longer names are shortened */

struct bp_comment_opts {
  const char *project;       /* in the marker; NULL: the comparison's, */
  const char *testbed;       /* else "default" and "local" */
  const char *suite;         /* the run's suite (publish.h), in the
                                marker and the title; NULL or "": none */
  size_t max_functions;      /* rows per benchmark; 0: 10 */
  bool no_functions;         /* no function rows at all (a setting of 0);
                                the "Grew most" line stays */
  size_t max_chars;          /* 0: BP_COMMENT_MAX_CHARS */
  const char *compare_url;   /* where the compare directory is served, for
                                the differential flame graph; NULL */
  bool run_output;           /* the comparison is a run's (OUT is the run
                                directory's compare/), its comment posted
                                on a pull request: an unlinked diff.svg
                                is named there, on the runner, nothing
                                being beside a posted comment */
  bool base_foreign;         /* no base: the base branch's run in the store
                                is another repository's (one named alike),
                                so running the base branch is not the fix */
  const char *base_hint;     /* no base: what the base branch has instead
                                (bpi_compare_suite_hint), the advice in
                                place of running the base branch; NULL */
  bool base_latest;          /* the base is the base branch's latest run,
                                the base commit having none: the title
                                calls the verdict provisional and a note
                                beside "Comparing" says so */
  const char *base_wanted;   /* with base_latest: the base commit looked
                                for; NULL unknown */
  const char *private_store; /* the store's URL as given when its
                                artifacts need credentials to read and it
                                has no public URL (their links are left
                                out): a note says so and what to set;
                                NULL */
};

/* Append the comment for c to out.  BPE_NOMEM only. */
bp_code bpi_comment_markdown(const struct bp_cmp *c,
                             const struct bp_comment_opts *o,
                             struct bp_buf *out, struct bp_err *err);

/* The comment when a pull request has no base to compare with: the
 * marker (so a later run with a base edits it), head's branch and commit,
 * the base branch looked for and why nothing was found (escaped). */
bp_code bpi_comment_no_base(const struct bp_comment_opts *o,
                            const struct bp_cmp_side *head,
                            const char *base_branch, const char *why,
                            struct bp_buf *out, struct bp_err *err);

/* `<!-- benchprof:comment project/testbed -->`, with a suite (not NULL
 * nor "") `<!-- benchprof:comment project/testbed suite=SUITE -->`: each
 * suite its own comment, and a run without one keeps the marker of old
 * (no marker is a part of another: " -->" follows the testbed).
 * Characters other than letters, digits and "._-/" become '_', so it
 * cannot end the comment and the space stays the suite's separator. */
#define BP_COMMENT_MARKER_SUITE " suite="
void bpi_comment_marker(struct bp_buf *b, const char *project,
                        const char *testbed, const char *suite);
/* The suite a marker (bpi_comment_find_marker's) names, as it stands
 * there (malloc'd), or NULL when it names none (or out of memory). */
char *bpi_comment_marker_suite(const char *marker);
/* The marker in text, malloc'd, or NULL when it has none. */
char *bpi_comment_find_marker(const char *text);

/* Which comparison a comment shows, its second hidden line:
 *   <!-- benchprof:compared head=HASH commit_time=ISO end_time=ISO -->
 * head: the head commit (its full hash); commit_time: that commit's
 * committer time; end_time: when the head's run ended.  A field whose
 * value is unknown (or not one: a hash is letters, digits, '.', '_' and
 * '-', a time ISO 8601) is left out, the line too when all are.  Before
 * editing the comment on the pull request, bpi_comment_post reads the
 * line there and leaves a comment about a newer comparison alone (the
 * order of runorder.h); a comment without the line (an older benchprof)
 * is replaced.  Unknown fields are passed over when read. */
#define BP_COMMENT_COMPARED_PREFIX "<!-- benchprof:compared "
#define BP_COMMENT_FIELD_MAX 72    /* a field's value, its NUL included */
struct bp_comment_compared {
  char head[BP_COMMENT_FIELD_MAX];         /* "" unknown, and below */
  char commit_time[BP_COMMENT_FIELD_MAX];
  char end_time[BP_COMMENT_FIELD_MAX];
};
/* The line, its newline included, for the comparison w's head is. */
void bpi_comment_compared_line(struct bp_buf *b,
                               const struct bp_run_when *w);
/* The line in text: false (*out all "") when it has none. */
bool bpi_comment_find_compared(const char *text,
                               struct bp_comment_compared *out);
/* c as the order sees it: "" fields NULL; borrows c's strings. */
struct bp_run_when bpi_comment_compared_when(
  const struct bp_comment_compared *c);

/* An untrusted name as Markdown text: shortened to max_chars characters
 * (template arguments collapsed, then the end kept), and every character
 * Markdown or HTML gives a meaning escaped. */
void bpi_comment_md_text(struct bp_buf *b, const char *name,
                         size_t max_chars);
/* Percent-encode s as a URL component (RFC 3986 unreserved kept). */
void bpi_comment_url_encode(struct bp_buf *b, const char *s);
/* A Firefox Profiler view of the Gecko profile at file_url, one thread
 * selected, labelled name; and the compare view of two such views. */
void bpi_comment_profiler_view(struct bp_buf *b, const char *file_url,
                               unsigned thread, const char *name);
void bpi_comment_profiler_compare(struct bp_buf *b, const char *view_a,
                                  const char *view_b);

/* Bencher's plot of one benchmark's measure (as bencher run links it):
 *   CONSOLE/perf/PROJECT?branches=U&heads=U&testbeds=U&benchmarks=U
 *     &measures=U&start_time=MS&end_time=MS&report=U
 * start_time 30 days before end_ms, every value percent-encoded.  Adds
 * nothing and returns false when a piece is missing. */
#define BP_COMMENT_PLOT_DAYS 30
struct bp_comment_plot {
  const char *console;     /* NULL: https://bencher.dev */
  const char *project;     /* slug */
  const char *branch, *head, *testbed, *benchmark, *measure, *report;
  int64_t end_ms;          /* the report's end; <= 0: unknown */
};
bool bpi_comment_bencher_plot(struct bp_buf *b,
                              const struct bp_comment_plot *p);
/* The plot of benchmark cb in c's head report: its most changed measure
 * (cb->max_slug), else latency; *slug says which.  false (nothing added)
 * when Bencher's answer did not give every id it needs. */
bool bpi_comment_bench_plot(struct bp_buf *b, const struct bp_cmp *c,
                            const struct bp_cmp_bench *cb,
                            const char **slug);

#include "forge.h"   /* posting it */

#endif
