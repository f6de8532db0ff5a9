/* site: the static pages in the store (see site.h): the three lists
 * merged by conditional updates, then the pages made from what was
 * merged, each written only over a page of an older generation. */
#include "bp_setup.h"
#include "site.h"

#include "buf.h"
#include "compare.h"
#include "err.h"
#include "rundir.h"
#include "storekey.h"
#include "text.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define RUNS_KEPT 1000   /* per branch list: the oldest leave it */
#define HTML_TYPE "text/html; charset=utf-8"

static const struct bp_site_links store_links = {BP_STORE_PAGE, NULL};

/* short for text.h's getter, used on every line of the lists */
static const char *str(const cJSON *o, const char *name)
{
  return bpi_json_str(o, name);
}

/* ------------------------------------------------------------ lists */

/* Which list an update merges into, and the item it merges. */
enum list_kind { LIST_RUNS, LIST_BRANCHES, LIST_PROJECTS };

static const char *const list_names[] = {"runs", "branches", "projects"};
static const char *const list_ids[] = {"key", "part", "part"};

struct merge {
  enum list_kind kind;
  const cJSON *item;
  cJSON *merged;       /* out: the document written (or kept) */
  long generation;     /* out: its generation */
};

/* end_time descending, then id ascending (ISO 8601 sorts as text). */
static int newest_first(const void *a, const void *b)
{
  const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
  const char *tx = str(x, "end_time"), *ty = str(y, "end_time");
  int c = strcmp(ty ? ty : "", tx ? tx : "");
  if(c)
    return c;
  const char *ix = str(x, "key") ? str(x, "key") : str(x, "part");
  const char *iy = str(y, "key") ? str(y, "key") : str(y, "part");
  return strcmp(ix ? ix : "", iy ? iy : "");
}

static int by_name(const void *a, const void *b)
{
  const char *x = str(*(const cJSON *const *)a, "name");
  const char *y = str(*(const cJSON *const *)b, "name");
  return strcmp(x ? x : "", y ? y : "");
}

/* The list's items sorted (runs and branches newest first, projects by
 * name), runs cut to RUNS_KEPT; false when out of memory. */
static bool sort_list(cJSON *list, enum list_kind kind)
{
  size_t n = (size_t)cJSON_GetArraySize(list), i = 0;
  if(n < 2)
    return true;
  cJSON **items = malloc(n * sizeof(*items));
  if(!items)
    return false;
  while(list->child) {
    items[i++] = cJSON_DetachItemViaPointer(list, list->child);
  }
  qsort(items, n, sizeof(*items),
        kind == LIST_PROJECTS ? by_name : newest_first);
  for(i = 0; i < n; i++) {
    if(kind == LIST_RUNS && i >= RUNS_KEPT)
      cJSON_Delete(items[i]);
    else
      cJSON_AddItemToArray(list, items[i]);
  }
  free(items);
  return true;
}

/* old, updated with what item says; a run keeps its verdict when item
 * has none (a late publication after the comparison), a branch or a
 * project its newest run. */
static void merge_item(cJSON *list, cJSON *old, const cJSON *item,
                       enum list_kind kind)
{
  const char *old_end = str(old, "end_time"), *end = str(item, "end_time");
  if(kind != LIST_RUNS && old_end && end && strcmp(old_end, end) > 0) {
    /* an older run: only the count of runs may grow */
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(item, "runs");
    const cJSON *had = cJSON_GetObjectItemCaseSensitive(old, "runs");
    if(cJSON_IsNumber(runs) && cJSON_IsNumber(had) &&
       runs->valuedouble > had->valuedouble)
      cJSON_SetNumberValue((cJSON *)had, runs->valuedouble);
    return;
  }
  cJSON *copy = cJSON_Duplicate(item, true);
  if(!copy)
    return;
  const cJSON *verdict = cJSON_GetObjectItemCaseSensitive(old, "verdict");
  if(kind == LIST_RUNS && verdict &&
     !cJSON_GetObjectItemCaseSensitive(copy, "verdict"))
    cJSON_AddItemToObject(copy, "verdict", cJSON_Duplicate(verdict, true));
  const cJSON *runs = cJSON_GetObjectItemCaseSensitive(copy, "runs");
  const cJSON *had = cJSON_GetObjectItemCaseSensitive(old, "runs");
  if(cJSON_IsNumber(runs) && cJSON_IsNumber(had) &&
     had->valuedouble > runs->valuedouble)
    cJSON_SetNumberValue((cJSON *)runs, had->valuedouble);
  cJSON_ReplaceItemViaPointer(list, old, copy);
}

/* bpi_store_update's decision: the stored list (cur) with the item
 * merged in, one generation on. */
static int decide_list(void *ctx, const char *cur, size_t len, char **out)
{
  struct merge *m = ctx;
  const char *name = list_names[m->kind], *id = list_ids[m->kind];
  cJSON_Delete(m->merged);
  m->merged = cur ? cJSON_ParseWithLength(cur, len) : NULL;
  if(cur && !cJSON_IsObject(m->merged)) {
    /* caught mid-write, or damaged: starting it again would drop the
     * runs the others listed */
    cJSON_Delete(m->merged);
    m->merged = NULL;
    return BP_STORE_REREAD;
  }
  if(!m->merged)
    m->merged = cJSON_CreateObject();
  cJSON *list = cJSON_GetObjectItemCaseSensitive(m->merged, name);
  if(!cJSON_IsArray(list)) {
    cJSON_DeleteItemFromObjectCaseSensitive(m->merged, name);
    list = cJSON_AddArrayToObject(m->merged, name);
  }
  const cJSON *g = cJSON_GetObjectItemCaseSensitive(m->merged, "generation");
  m->generation = cJSON_IsNumber(g) && g->valuedouble >= 0 &&
    g->valuedouble < 1e15 ? (long)g->valuedouble + 1 : 1;
  cJSON_DeleteItemFromObjectCaseSensitive(m->merged, "generation");
  if(!list || !cJSON_AddNumberToObject(m->merged, "generation",
                                       (double)m->generation))
    return -1;
  const char *want = str(m->item, id);
  cJSON *old = NULL, *e;
  cJSON_ArrayForEach(e, list) {
    const char *have = str(e, id);
    if(have && want && !strcmp(have, want)) {
      old = e;
      break;
    }
  }
  if(old)
    merge_item(list, old, m->item, m->kind);
  else
    cJSON_AddItemToArray(list, cJSON_Duplicate(m->item, true));
  if(!sort_list(list, m->kind))
    return -1;
  *out = cJSON_Print(m->merged);
  return *out ? 1 : -1;
}

static bp_code update_list(struct bp_store *st, const char *key,
                           struct merge *m, struct bp_err *err)
{
  bp_code rc = bpi_store_update(st, key, "application/json", decide_list, m,
                                err);
  if(!rc && !m->merged)
    rc = bpi_err_set(err, BPE_NOMEM, 0, "%s", key);
  return rc;
}

/* ------------------------------------------------------------ pages */

struct page {
  const char *html;
  long generation;
};

/* A page replaces one of an older (or the same) generation only. */
static int decide_page(void *ctx, const char *cur, size_t len, char **out)
{
  const struct page *p = ctx;
  if(cur && bpi_site_page_generation(cur, len) > p->generation)
    return 0;
  *out = strdup(p->html);
  return *out ? 1 : -1;
}

static bp_code put_page(struct bp_store *st, const char *key,
                        struct bp_buf *html, long generation,
                        struct bp_err *err)
{
  bpi_buf_addc(html, '\0');
  if(!key || bpi_buf_failed(html))
    return bpi_err_set(err, BPE_NOMEM, 0, "page %s", key ? key : "");
  struct page p = {html->data, generation};
  return bpi_store_update(st, key, HTML_TYPE, decide_page, &p, err);
}

static const cJSON *list_of(const cJSON *doc, enum list_kind kind)
{
  return cJSON_GetObjectItemCaseSensitive(doc, list_names[kind]);
}

static long generation_of(const cJSON *doc)
{
  const cJSON *g = cJSON_GetObjectItemCaseSensitive(doc, "generation");
  return cJSON_IsNumber(g) ? (long)g->valuedouble : 0;
}

static bp_code root_page(struct bp_store *st, const cJSON *projects,
                         struct bp_err *err)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  long gen = generation_of(projects);
  bpi_site_html_begin(&b, "benchprof store", NULL, 0, 0, &store_links, gen);
  bpi_site_html_projects(&b, list_of(projects, LIST_PROJECTS), &store_links);
  bpi_site_html_end(&b);
  char *key = bpi_store_level_key(NULL, 0, BP_STORE_PAGE);
  bp_code rc = put_page(st, key, &b, gen, err);
  free(key);
  bpi_buf_cleanup(&b);
  return rc;
}

static bp_code project_page(struct bp_store *st, const char *project,
                            const cJSON *branches, struct bp_err *err)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  long gen = generation_of(branches);
  bpi_site_html_begin(&b, project, NULL, 0, 1, &store_links, gen);
  bpi_site_html_branches(&b, list_of(branches, LIST_BRANCHES), &store_links);
  bpi_site_html_end(&b);
  char *key = bpi_store_level_key(&project, 1, BP_STORE_PAGE);
  bp_code rc = put_page(st, key, &b, gen, err);
  free(key);
  bpi_buf_cleanup(&b);
  return rc;
}

static bp_code branch_page(struct bp_store *st, const char *project,
                           const char *branch, const cJSON *runs,
                           struct bp_err *err)
{
  const char *names[] = {project, branch};
  struct bp_buf b;
  bpi_buf_init(&b);
  long gen = generation_of(runs);
  bpi_site_html_begin(&b, branch, names, 1, 2, &store_links, gen);
  bpi_site_html_runs(&b, list_of(runs, LIST_RUNS), &store_links);
  bpi_site_html_end(&b);
  char *key = bpi_store_level_key(names, 2, BP_STORE_PAGE);
  bp_code rc = put_page(st, key, &b, gen, err);
  free(key);
  bpi_buf_cleanup(&b);
  return rc;
}

static struct bp_store_run run_of(const cJSON *entry)
{
  return (struct bp_store_run){str(entry, "project"), str(entry, "branch"),
                               str(entry, "commit"), str(entry, "testbed"),
                               str(entry, "suite")};
}

/* The comment stored with a compared run, NULL when there is none. */
static char *stored_comment(struct bp_store *st, const cJSON *entry)
{
  const struct bp_store_run run = run_of(entry);
  char *key = bpi_store_run_artifact_key(&run, BP_FILE_COMMENT);
  char *md = NULL;
  size_t len = 0;
  struct bp_err ignored = {0};
  if(key && bpi_store_get(st, key, &md, &len, &ignored))
    md = NULL;
  free(key);
  return md;
}

static bp_code run_page(struct bp_store *st, const struct bp_manifest *m,
                        const cJSON *entry, const char *comment, long gen,
                        struct bp_err *err)
{
  const struct bp_store_run run = run_of(entry);
  const char *names[] = {run.project, run.branch};
  char *own = NULL;
  struct bp_buf b, title;
  bpi_buf_init(&b);
  bpi_buf_init(&title);
  if(!comment && cJSON_GetObjectItemCaseSensitive(entry, "verdict"))
    comment = own = stored_comment(st, entry);
  bpi_buf_printf(&title, "%.12s on %s", run.commit, run.testbed);
  if(run.suite && *run.suite)
    bpi_buf_printf(&title, " (%s)", run.suite);
  bpi_buf_addc(&title, '\0');
  bpi_site_html_begin(&b, bpi_buf_failed(&title) ? run.testbed : title.data,
                      names, 2, 4, &store_links, gen);
  bpi_site_html_run(&b, m, entry, comment, &store_links);
  bpi_site_html_end(&b);
  /* the run's key: its testbed part holds the suite's (storekey.h) */
  char *rkey = bpi_store_run_key(&run);
  char *key = rkey ? bpi_text_path_join(rkey, BP_STORE_PAGE) : NULL;
  bp_code rc = key ? put_page(st, key, &b, gen, err)
                   : bpi_err_set(err, BPE_NOMEM, 0, "site");
  free(key);
  free(rkey);
  free(own);
  bpi_buf_cleanup(&title);
  bpi_buf_cleanup(&b);
  return rc;
}

/* The entry of the run with key in a runs document, else NULL. */
static const cJSON *find_run(const cJSON *runs, const char *key)
{
  const cJSON *e;
  cJSON_ArrayForEach(e, list_of(runs, LIST_RUNS)) {
    const char *k = str(e, "key");
    if(k && key && !strcmp(k, key))
      return e;
  }
  return NULL;
}

/* The branch's and the project's entries for the lists above a run. */
static cJSON *level_item(const char *name, const cJSON *entry,
                         const cJSON *runs)
{
  cJSON *item = cJSON_CreateObject();
  char *part = bpi_store_key_part(name);
  if(!item || !part) {
    cJSON_Delete(item);
    free(part);
    return NULL;
  }
  cJSON_AddStringToObject(item, "name", name);
  cJSON_AddStringToObject(item, "part", part);
  if(str(entry, "end_time"))
    cJSON_AddStringToObject(item, "end_time", str(entry, "end_time"));
  if(runs) {
    cJSON_AddStringToObject(item, "commit", str(entry, "commit"));
    cJSON_AddNumberToObject(item, "runs", cJSON_GetArraySize(
                              list_of(runs, LIST_RUNS)));
  }
  free(part);
  return item;
}

/* Merge entry into its branch's runs, the branch into its project's,
 * the project into the store's, and write each level's page. */
static bp_code site_update(struct bp_store *st, const struct bp_manifest *m,
                           const cJSON *entry, const char *comment,
                           struct bp_err *err)
{
  const struct bp_store_run run = run_of(entry);
  const char *names[] = {run.project, run.branch};
  struct merge runs = {LIST_RUNS, entry, NULL, 0};
  struct merge branches = {LIST_BRANCHES, NULL, NULL, 0};
  struct merge projects = {LIST_PROJECTS, NULL, NULL, 0};
  char *key = bpi_store_level_key(names, 2, BP_STORE_RUNS);
  bp_code rc = key ? update_list(st, key, &runs, err)
                   : bpi_err_set(err, BPE_NOMEM, 0, "site");
  free(key);
  if(!rc) {
    const cJSON *merged = find_run(runs.merged, str(entry, "key"));
    rc = run_page(st, m, merged ? merged : entry, comment,
                  runs.generation, err);
  }
  if(!rc)
    rc = branch_page(st, run.project, run.branch, runs.merged, err);
  cJSON *bitem = rc ? NULL : level_item(run.branch, entry, runs.merged);
  if(!rc && !bitem)
    rc = bpi_err_set(err, BPE_NOMEM, 0, "site");
  branches.item = bitem;
  key = rc ? NULL : bpi_store_level_key(names, 1, BP_STORE_BRANCHES);
  if(!rc)
    rc = key ? update_list(st, key, &branches, err)
             : bpi_err_set(err, BPE_NOMEM, 0, "site");
  free(key);
  if(!rc)
    rc = project_page(st, run.project, branches.merged, err);
  cJSON *pitem = rc ? NULL : level_item(run.project, entry, NULL);
  if(!rc && !pitem)
    rc = bpi_err_set(err, BPE_NOMEM, 0, "site");
  projects.item = pitem;
  if(!rc)
    rc = update_list(st, BP_STORE_PROJECTS, &projects, err);
  if(!rc)
    rc = root_page(st, projects.merged, err);
  cJSON_Delete(bitem);
  cJSON_Delete(pitem);
  cJSON_Delete(runs.merged);
  cJSON_Delete(branches.merged);
  cJSON_Delete(projects.merged);
  return rc;
}

bp_code bpi_site_publish(struct bp_store *st, const struct bp_manifest *man,
                         struct bp_err *err)
{
  cJSON *entry = bpi_site_run_entry(man);
  bp_code rc = entry ? site_update(st, man, entry, NULL, err)
                     : bpi_err_set(err, BPE_FORMAT, 0, "the stored manifest "
                                   "has no identity: no page for it");
  cJSON_Delete(entry);
  return rc;
}

/* ------------------------------------------------------------ compare */

/* The verdict as the run's entry keeps it. */
static cJSON *verdict_of(const struct bp_cmp *c, const struct bp_store_run *run)
{
  cJSON *v = cJSON_CreateObject();
  char *run_key = bpi_store_run_key(run);
  if(!v || !run_key) {
    cJSON_Delete(v);
    free(run_key);
    return NULL;
  }
  cJSON_AddStringToObject(v, "summary", c->nregressions ? "regression" :
                          c->nimprovements ? "improvement" : "unchanged");
  if(c->base.branch)
    cJSON_AddStringToObject(v, "base_branch", c->base.branch);
  if(c->base.hash)
    cJSON_AddStringToObject(v, "base_hash", c->base.hash);
  cJSON_AddNumberToObject(v, "regressions", (double)c->nregressions);
  cJSON_AddNumberToObject(v, "improvements", (double)c->nimprovements);
  /* counted as the comment's title counts them: an unconfirmed change,
   * either way, is not "unchanged" */
  size_t unconf_impr, unchanged;
  bpi_compare_counts(c, &unconf_impr, &unchanged);
  cJSON_AddNumberToObject(v, "unchanged", (double)unchanged);
  cJSON_AddNumberToObject(v, "unconfirmed",
                          (double)(c->nunconfirmed + unconf_impr));
  cJSON_AddNumberToObject(v, "new", (double)c->nnew);
  cJSON_AddNumberToObject(v, "removed", (double)c->nremoved);
  /* neither counted nor unchanged (the comment's title lists them) */
  cJSON_AddNumberToObject(v, "slower_wall_time_only",
                          (double)c->nwall_slower);
  cJSON_AddNumberToObject(v, "faster_wall_time_only",
                          (double)c->nwall_faster);
  cJSON *list = cJSON_AddArrayToObject(v, "benchmarks");
  size_t prefix = strlen(run_key) + 1;
  for(size_t i = 0; i < c->nbenches; i++) {
    const struct bp_cmp_bench *b = &c->benches[i];
    cJSON *one = cJSON_CreateObject();
    cJSON_AddStringToObject(one, "name", b->name);
    cJSON_AddStringToObject(one, "verdict", bpi_compare_verdict(b));
    if(b->max_slug) {
      cJSON_AddStringToObject(one, "measure", b->max_slug);
      cJSON_AddNumberToObject(one, "change_pct", b->max_pct);
    }
    if(b->diff_url && b->head.dir) {
      /* where compare_pr.c stored it (storekey.h) */
      const char *sub = strcmp(b->head.dir, ".") ? b->head.dir : b->name;
      char *key = bpi_store_artifact_key(run, sub, BP_FILE_DIFF_SVG);
      if(key && strlen(key) > prefix)
        cJSON_AddStringToObject(one, "diff", key + prefix);
      free(key);
    }
    /* the off-CPU one by the key it was stored under, when it was */
    if(b->off_diff_key && !strncmp(b->off_diff_key, run_key, prefix - 1) &&
       b->off_diff_key[prefix - 1] == '/' && b->off_diff_key[prefix])
      cJSON_AddStringToObject(one, "diff_offcpu", b->off_diff_key + prefix);
    cJSON_AddItemToArray(list, one);
  }
  free(run_key);
  return v;
}

bp_code bpi_site_compare(struct bp_store *st, const struct bp_store_run *run,
                         const struct bp_cmp *c, const char *comment,
                         struct bp_err *err)
{
  char *ckey = bpi_store_run_artifact_key(run, BP_FILE_COMMENT);
  char *mkey = bpi_store_manifest_key(run);
  char *text = NULL;
  size_t len = 0;
  struct bp_manifest man = {0};
  cJSON *entry = NULL, *verdict = NULL;
  bp_code rc = !ckey || !mkey ? bpi_err_set(err, BPE_NOMEM, 0, "site")
    : bpi_store_put(st, ckey, comment, strlen(comment),
                    "text/markdown; charset=utf-8", NULL, err);
  if(!rc)
    rc = bpi_store_get(st, mkey, &text, &len, err);
  if(!rc)
    rc = bpi_manifest_parse(&man, text, len, mkey, err);
  if(!rc && !(entry = bpi_site_run_entry(&man)))
    rc = bpi_err_set(err, BPE_FORMAT, 0, "%s: no identity", mkey);
  if(!rc && !(verdict = verdict_of(c, run)))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "site");
  if(!rc) {
    cJSON_AddItemToObject(entry, "verdict", verdict);
    rc = site_update(st, &man, entry, comment, err);
  }
  cJSON_Delete(entry);
  bpi_manifest_cleanup(&man);
  free(text);
  free(mkey);
  free(ckey);
  return rc;
}

/* ------------------------------------------------------------ rebuild */

/* The list document at key; NULL when there is none (not an error). */
static bp_code get_list(struct bp_store *st, const char *key, cJSON **doc,
                        struct bp_err *err)
{
  char *text = NULL;
  size_t len = 0;
  struct bp_err e = {0};
  bp_code rc = bpi_store_get(st, key, &text, &len, &e);
  *doc = NULL;
  if(rc == BPE_NOT_FOUND)
    return BP_OK;
  if(rc)
    return bpi_err_set(err, rc, e.sys_errno, "%s", e.msg);
  *doc = cJSON_ParseWithLength(text, len);
  free(text);
  if(!cJSON_IsObject(*doc)) {
    cJSON_Delete(*doc);
    *doc = NULL;
    return bpi_err_set(err, BPE_FORMAT, 0, "%s: not a list of the viewer's",
                       key);
  }
  return BP_OK;
}

static bp_code rebuild_runs(struct bp_store *st, const cJSON *runs,
                            struct bp_site_stats *s, struct bp_err *err)
{
  const cJSON *e;
  bp_code rc = BP_OK;
  cJSON_ArrayForEach(e, list_of(runs, LIST_RUNS)) {
    const struct bp_store_run run = run_of(e);
    if(!run.project || !run.branch || !run.commit || !run.testbed)
      continue;
    char *mkey = bpi_store_manifest_key(&run), *text = NULL;
    size_t len = 0;
    struct bp_manifest man = {0};
    rc = mkey ? bpi_store_get(st, mkey, &text, &len, err)
              : bpi_err_set(err, BPE_NOMEM, 0, "site");
    if(!rc)
      rc = bpi_manifest_parse(&man, text, len, mkey, err);
    if(!rc)
      rc = run_page(st, &man, e, NULL, generation_of(runs), err);
    s->runs += !rc;
    s->pages += !rc;
    bpi_manifest_cleanup(&man);
    free(text);
    free(mkey);
    if(rc)
      break;
  }
  return rc;
}

static bp_code rebuild_project(struct bp_store *st, const char *project,
                               struct bp_site_stats *s, struct bp_err *err)
{
  cJSON *branches = NULL;
  char *key = bpi_store_level_key(&project, 1, BP_STORE_BRANCHES);
  bp_code rc = key ? get_list(st, key, &branches, err)
                   : bpi_err_set(err, BPE_NOMEM, 0, "site");
  free(key);
  const cJSON *b;
  cJSON_ArrayForEach(b, list_of(branches, LIST_BRANCHES)) {
    const char *names[] = {project, str(b, "name")};
    cJSON *runs = NULL;
    if(rc || !names[1])
      continue;
    key = bpi_store_level_key(names, 2, BP_STORE_RUNS);
    rc = key ? get_list(st, key, &runs, err)
             : bpi_err_set(err, BPE_NOMEM, 0, "site");
    free(key);
    if(!rc && runs)
      rc = rebuild_runs(st, runs, s, err);
    if(!rc && runs)
      rc = branch_page(st, project, names[1], runs, err);
    s->branches += !rc && runs;
    s->pages += !rc && runs;
    cJSON_Delete(runs);
  }
  if(!rc && branches)
    rc = project_page(st, project, branches, err);
  s->pages += !rc && branches;
  cJSON_Delete(branches);
  return rc;
}

bp_code bpi_site_rebuild(struct bp_store *st, struct bp_site_stats *s,
                         struct bp_err *err)
{
  cJSON *projects = NULL;
  memset(s, 0, sizeof(*s));
  bp_code rc = get_list(st, BP_STORE_PROJECTS, &projects, err);
  const char *url = bpi_store_url(st);
  struct stat sb;
  /* a mistyped file store is not a store without pages */
  if(!rc && !projects && bpi_store_url_is_local(url) &&
     stat(url + strlen("file://"), &sb))
    return bpi_err_set(err, BPE_NOT_FOUND, errno, "%s: the store's "
                       "directory cannot be read", url);
  if(!rc && !projects)
    return bpi_err_set(err, BPE_NOT_FOUND, 0, "%s: no list of projects "
                       "(" BP_STORE_PROJECTS "): nothing published here "
                       "since the store's pages were added",
                       bpi_store_url(st));
  const cJSON *p;
  cJSON_ArrayForEach(p, list_of(projects, LIST_PROJECTS)) {
    if(!rc && str(p, "name")) {
      rc = rebuild_project(st, str(p, "name"), s, err);
      s->projects += !rc;
    }
  }
  if(!rc)
    rc = root_page(st, projects, err);
  s->pages += !rc;
  cJSON_Delete(projects);
  return rc;
}
