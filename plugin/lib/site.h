/* site: the viewer as static pages in the store, so that a bucket website
 * or a CDN in front of the store is the viewer (no server to run):
 *   index.html                          the projects
 *   {project}/index.html                its branches, newest run first
 *   {project}/{branch}/index.html       its runs, newest first: commit,
 *                                       time, testbed, exit status, key
 *                                       measures, a PR run's verdict
 *   {project}/{branch}/{commit}/{testbed}/index.html   one run: its
 *                                       measures, its comparison with the
 *                                       base (verdict, the comment, each
 *                                       diff.svg), its benchmarks with
 *                                       their flame graphs inline and
 *                                       Firefox Profiler links
 * (keys: storekey.h).  Pages are made from three lists, one object per
 * level (~projects.json, {project}/~branches.json,
 * {project}/{branch}/~runs.json), each changed only by a conditional
 * update (bpi_store_update) that merges one run into what is there, so
 * runners publishing at once all stay listed.  Each page carries the
 * generation of the list it was made from and is written only over an
 * older one, so a slow writer never puts back a page without the newest
 * runs.
 *
 * Rendering (site_pages.c) is shared with `benchprof serve`, which shows
 * the same runs table and run sections for a file store. */
#ifndef BP_LIB_SITE_H
#define BP_LIB_SITE_H

#include <stdbool.h>
#include <stddef.h>

#include "benchprof/benchprof.h"
#include "buf.h"
#include "store.h"

struct cJSON;
struct bp_cmp;
struct bp_manifest;

/* ------------------------------------------------ the store (site.c) */

/* After a run's stored manifest (man: publish.c's, as rundir.h's parser
 * would read it from the store) is in the store: list the run in its
 * branch, its branch in its project, the project in the store, and write
 * the four pages. */
bp_code bpi_site_publish(struct bp_store *st, const struct bp_manifest *man,
                         struct bp_err *err);

/* After the pull request comparison c of the run stored under run: store
 * its comment (Markdown) under the run's ~run/comment.md, add the verdict
 * to the run's entry and write the pages again. */
bp_code bpi_site_compare(struct bp_store *st, const struct bp_store_run *run,
                         const struct bp_cmp *c, const char *comment,
                         struct bp_err *err);

/* Write every page again from the lists in the store (`benchprof index`):
 * after an upgrade, or when a publisher stopped between its list and its
 * pages. */
struct bp_site_stats {
  size_t projects, branches, runs, pages;
};
bp_code bpi_site_rebuild(struct bp_store *st, struct bp_site_stats *s,
                         struct bp_err *err);

/* ------------------------------------------ rendering (site_pages.c) */

/* How links are made.  page: what a link to a directory's page ends with
 * ("index.html" in the store, "" for serve, whose directories are
 * pages).  url_base: the absolute URL of the store's root (ending in
 * '/') for the Firefox Profiler's from-url links; NULL: each artifact's
 * public URL from the stored manifest. */
struct bp_site_links {
  const char *page;
  const char *url_base;
};

/* A run's entry in its branch's list, from its stored manifest (parsed by
 * rundir.h): identity, times, outcome, exit status, its first measures.
 * NULL when the manifest has no identity (not a stored one) or out of
 * memory. */
struct cJSON *bpi_site_run_entry(const struct bp_manifest *m);

/* A page: <head> (title, style, a Content-Security-Policy that lets it
 * load nothing but the store's own files, its generation) and the
 * breadcrumbs to the levels above (names[0..n-1], their pages reached by
 * "../" steps), then the heading title. */
void bpi_site_html_begin(struct bp_buf *b, const char *title,
                         const char *const *names, size_t n, size_t depth,
                         const struct bp_site_links *l, long generation);
void bpi_site_html_end(struct bp_buf *b);

/* Lists: the projects (~projects.json's "projects"), the branches
 * ("branches"), the runs ("runs": a table, newest first as kept). */
void bpi_site_html_projects(struct bp_buf *b, const struct cJSON *list,
                            const struct bp_site_links *l);
void bpi_site_html_branches(struct bp_buf *b, const struct cJSON *list,
                            const struct bp_site_links *l);
void bpi_site_html_runs(struct bp_buf *b, const struct cJSON *runs,
                        const struct bp_site_links *l);

/* A run's sections: what it was, its measures (the stored report), its
 * comparison (entry's "verdict", comment: the Markdown rendered, each
 * diff.svg inline), its benchmarks (flame graphs inline, Firefox Profiler
 * links).  Links are relative to the run's directory. */
void bpi_site_html_run(struct bp_buf *b, const struct bp_manifest *m,
                       const struct cJSON *entry, const char *comment,
                       const struct bp_site_links *l);

/* Markdown (what comment.c writes: headings, tables, lists, links,
 * emphasis, code, backslash escapes, its own <details>/<summary>) as
 * HTML; any other markup is shown as text. */
void bpi_site_html_markdown(struct bp_buf *b, const char *md);

/* The generation a page says it was made from; -1 when none. */
long bpi_site_page_generation(const char *html, size_t len);

#endif
