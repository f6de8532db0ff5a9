/* site_pages: the viewer's pages as HTML (see site.h): the page frame,
 * the lists of projects, branches and runs, one run's sections, and the
 * comment's Markdown.  Shared by the static pages in the store (site.c)
 * and `benchprof serve` (serve_pages.c).  Every name and value is
 * HTML-escaped; every link is relative to the page, or an http(s) URL. */
#include "bp_setup.h"
#include "site.h"

#include "buf.h"
#include "compare.h"
#include "rundir.h"
#include "storekey.h"
#include "text.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROFILER_FROM_URL "https://profiler.firefox.com/from-url/"
#define MEASURES_KEPT 6      /* per run entry */
#define MEASURES_SHOWN 3     /* per row of the runs table */
#define FLAMES_INLINE 20     /* flame graphs inline on a run page */
#define DIFFS_INLINE 10      /* differential flame graphs inline */
#define REPORT_ROWS 2000     /* measures listed on a run page */

/* short for text.h's getter, used on every line of the lists */
static const char *str(const cJSON *o, const char *name)
{
  return bpi_json_str(o, name);
}

static void text(struct bp_buf *b, const char *s)
{
  bpi_buf_xml_text(b, s ? s : "");
}

/* A key part in an href: percent-encoded, so a '%' in it stays one. */
static void href_part(struct bp_buf *b, const char *part)
{
  bpi_text_pct_encode(b, part, NULL);
}

/* A store key ("a/b/c") in an href, each part encoded, '/' kept. */
static void href_key(struct bp_buf *b, const char *key)
{
  bpi_text_pct_encode(b, key, "/");
}

/* A name's display form when it is a key part ("feature%2Fx"). */
static void part_name(struct bp_buf *b, const char *part)
{
  char *name = bpi_store_key_decode(part);
  text(b, name ? name : part);
  free(name);
}

static void number_of(struct bp_buf *b, double d)
{
  char num[64];
  if(d == (double)(long long)d && d < 1e15 && d > -1e15)
    snprintf(num, sizeof(num), "%lld", (long long)d);
  else
    snprintf(num, sizeof(num), "%.10g", d);
  bpi_buf_adds(b, num);
}

static void number(struct bp_buf *b, const cJSON *v)
{
  if(cJSON_IsNumber(v))
    number_of(b, v->valuedouble);
}

/* A measure's value as the PR comment gives it ("138.4 µs",
 * "0.01347", "350 ops/s"): the comparison's one format, so that a page
 * and the comment it shows agree. */
static void measure_value(struct bp_buf *b, const char *slug, const cJSON *v)
{
  if(cJSON_IsNumber(v))
    bpi_compare_add_value(b, slug ? slug : "", v->valuedouble, false);
}

/* ------------------------------------------------------------ frame */

void bpi_site_html_begin(struct bp_buf *b, const char *title,
                         const char *const *names, size_t n, size_t depth,
                         const struct bp_site_links *l, long generation)
{
  bpi_buf_adds(b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n");
  /* names come from whoever ran the benchmark: even escaped, a page may
   * load nothing but the store's own files (and run no script) */
  bpi_buf_adds(b, "<meta http-equiv=\"Content-Security-Policy\" content=\""
               "default-src 'none'; style-src 'unsafe-inline'; "
               "img-src 'self'; object-src 'self'; frame-src 'self'; "
               "base-uri 'none'; form-action 'none'\">\n");
  if(generation >= 0)
    bpi_buf_printf(b, "<meta name=\"benchprof-generation\" content=\"%ld\">"
                   "\n", generation);
  bpi_buf_adds(b, "<title>");
  text(b, title);
  bpi_buf_adds(b, " - benchprof</title>\n<style>\n"
               "body{font-family:sans-serif;margin:1.5em;color:#222}\n"
               "nav{margin-bottom:1em;color:#555}\n"
               "li{margin:.2em 0}\n"
               "table{border-collapse:collapse;margin:.5em 0}\n"
               "td,th{border:1px solid #ccc;padding:.2em .6em;"
               "text-align:left}\n"
               ".num{text-align:right}\n"
               ".flame{width:100%;height:480px;border:1px solid #ccc}\n"
               ".muted{color:#777}\n"
               ".regression{color:#b00020;font-weight:bold}\n"
               ".improvement{color:#1b7f2a;font-weight:bold}\n"
               ".comment{border-left:4px solid #ccc;padding-left:1em}\n"
               "</style></head>\n<body>\n<nav>");
  /* breadcrumbs: the store's page, then each level above this one */
  for(size_t i = 0; i <= n && i < depth; i++) {
    if(i)
      bpi_buf_adds(b, " / ");
    bpi_buf_adds(b, "<a href=\"");
    for(size_t up = i; up < depth; up++)
      bpi_buf_adds(b, "../");
    bpi_buf_adds(b, l->page);
    bpi_buf_adds(b, "\">");
    if(i)
      text(b, names[i - 1]);
    else
      bpi_buf_adds(b, "store");
    bpi_buf_adds(b, "</a>");
  }
  bpi_buf_adds(b, "</nav>\n<h1>");
  text(b, title);
  bpi_buf_adds(b, "</h1>\n");
}

void bpi_site_html_end(struct bp_buf *b)
{
  bpi_buf_adds(b, "</body></html>\n");
}

long bpi_site_page_generation(const char *html, size_t len)
{
  static const char tag[] = "<meta name=\"benchprof-generation\" content=\"";
  const char *end = html + len;
  for(const char *p = html; p && p + sizeof(tag) < end;
      p = memchr(p + 1, '<', (size_t)(end - p - 1))) {
    if(!memcmp(p, tag, sizeof(tag) - 1)) {
      char *stop;
      long g = strtol(p + sizeof(tag) - 1, &stop, 10);
      return stop != p + sizeof(tag) - 1 && *stop == '"' ? g : -1;
    }
    if(!memcmp(p, "</head>", 7 < end - p ? 7 : (size_t)(end - p)))
      break;
  }
  return -1;
}

/* ------------------------------------------------------------ lists */

static void link_dir(struct bp_buf *b, const char *part,
                     const struct bp_site_links *l)
{
  bpi_buf_adds(b, "<a href=\"");
  href_part(b, part);
  bpi_buf_addc(b, '/');
  bpi_buf_adds(b, l->page);
  bpi_buf_adds(b, "\">");
  part_name(b, part);
  bpi_buf_adds(b, "</a>");
}

void bpi_site_html_projects(struct bp_buf *b, const cJSON *list,
                            const struct bp_site_links *l)
{
  const cJSON *p;
  size_t shown = 0;
  bpi_buf_adds(b, "<h2>Projects</h2>\n<ul class=\"projects\">\n");
  cJSON_ArrayForEach(p, list) {
    const char *part = str(p, "part");
    if(!part)
      continue;
    bpi_buf_adds(b, "<li>");
    link_dir(b, part, l);
    if(str(p, "end_time")) {
      bpi_buf_adds(b, " <span class=\"muted\">last run ");
      text(b, str(p, "end_time"));
      bpi_buf_adds(b, "</span>");
    }
    bpi_buf_adds(b, "</li>\n");
    shown++;
  }
  bpi_buf_adds(b, "</ul>\n");
  if(!shown)
    bpi_buf_adds(b, "<p class=\"muted\">none yet</p>\n");
}

void bpi_site_html_branches(struct bp_buf *b, const cJSON *list,
                            const struct bp_site_links *l)
{
  const cJSON *br;
  size_t shown = 0;
  bpi_buf_adds(b, "<h2>Branches</h2>\n<table class=\"branches\">\n"
               "<tr><th>branch</th><th>last run</th><th>commit</th>"
               "<th>runs</th></tr>\n");
  cJSON_ArrayForEach(br, list) {
    const char *part = str(br, "part");
    if(!part)
      continue;
    bpi_buf_adds(b, "<tr><td>");
    link_dir(b, part, l);
    bpi_buf_adds(b, "</td><td>");
    text(b, str(br, "end_time"));
    bpi_buf_adds(b, "</td><td>");
    text(b, str(br, "commit"));
    bpi_buf_adds(b, "</td><td class=\"num\">");
    number(b, cJSON_GetObjectItemCaseSensitive(br, "runs"));
    bpi_buf_adds(b, "</td></tr>\n");
    shown++;
  }
  bpi_buf_adds(b, "</table>\n");
  if(!shown)
    bpi_buf_adds(b, "<p class=\"muted\">none yet</p>\n");
}

/* The run's directory relative to its branch's: "{commit}/{testbed}/",
 * from its key "{project}/{branch}/{commit}/{testbed}". */
static void run_href(struct bp_buf *b, const cJSON *run)
{
  const char *key = str(run, "key");
  const char *s = key;
  for(int slashes = 0; s && *s && slashes < 2; s++)
    slashes += *s == '/';
  if(!s)
    return;
  href_key(b, s);
  bpi_buf_addc(b, '/');
}

/* "regression", "improvement" or "unchanged" in its colour. */
static void verdict_word(struct bp_buf *b, const cJSON *verdict)
{
  const char *v = str(verdict, "summary");
  if(!v)
    return;
  bpi_buf_adds(b, "<span class=\"verdict ");
  text(b, v);
  bpi_buf_adds(b, "\">");
  text(b, v);
  bpi_buf_adds(b, "</span>");
}

static void outcome_cell(struct bp_buf *b, const cJSON *run)
{
  const cJSON *st = cJSON_GetObjectItemCaseSensitive(run, "exit_status");
  const char *outcome = str(run, "outcome");
  bpi_buf_adds(b, "<td>");
  if(outcome) {
    text(b, outcome);
    bpi_buf_addc(b, ' ');
  }
  if(cJSON_IsNumber(st)) {
    bpi_buf_adds(b, "(exit ");
    number(b, st);
    bpi_buf_addc(b, ')');
  }
  bpi_buf_adds(b, "</td>");
}

/* The change a PR run's row leads with, as the comment's headline picks
 * it: the first confirmed regression (the verdict lists its benchmarks
 * worst first), else the first confirmed improvement, else the first
 * unconfirmed change of either kind; NULL when there is none. */
static const cJSON *lead_change(const cJSON *verdict)
{
  static const char *const kinds[] = {"regression", "improvement",
                                      "slower in wall time only",
                                      "faster in wall time only",
                                      "unconfirmed regression",
                                      "unconfirmed improvement"};
  const cJSON *list = cJSON_GetObjectItemCaseSensitive(verdict,
                                                       "benchmarks");
  const cJSON *one;
  for(size_t k = 0; k < BP_ARRAY_LEN(kinds); k++)
    cJSON_ArrayForEach(one, list) {
      const char *v = str(one, "verdict");
      if(v && !strcmp(v, kinds[k]) && str(one, "name") &&
         str(one, "measure") &&
         cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(one, "change_pct")))
        return one;
    }
  return NULL;
}

/* "<b>BM_Wait</b> latency +969.70% regression": the lead change. */
static void lead_change_line(struct bp_buf *b, const cJSON *one)
{
  const char *v = str(one, "verdict");
  bpi_buf_adds(b, "<strong>");
  text(b, str(one, "name"));
  bpi_buf_adds(b, "</strong> <span class=\"muted\">");
  text(b, str(one, "measure"));
  bpi_buf_printf(b, "</span> %+.2f%% <span class=\"verdict ",
                 cJSON_GetObjectItemCaseSensitive(one, "change_pct")
                 ->valuedouble);
  text(b, v);
  bpi_buf_adds(b, "\">");
  text(b, v);
  bpi_buf_adds(b, "</span>");
}

/* A run's key measures: a PR run's worst change first, then the first
 * measures of its report, in their units. */
static void measures_cell(struct bp_buf *b, const cJSON *run)
{
  const cJSON *m;
  const cJSON *lead = lead_change(cJSON_GetObjectItemCaseSensitive(run,
                                                                   "verdict"));
  int i = 0;
  bpi_buf_adds(b, "<td>");
  if(lead)
    lead_change_line(b, lead);
  cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(run, "measures")) {
    if(i++ == MEASURES_SHOWN) {
      bpi_buf_adds(b, "&#8230;");
      break;
    }
    if(i > 1 || lead)
      bpi_buf_adds(b, "<br>");
    text(b, str(m, "benchmark"));
    bpi_buf_adds(b, " <span class=\"muted\">");
    text(b, str(m, "measure"));
    bpi_buf_adds(b, "</span> ");
    measure_value(b, str(m, "measure"),
                  cJSON_GetObjectItemCaseSensitive(m, "value"));
  }
  bpi_buf_adds(b, "</td>");
}

void bpi_site_html_runs(struct bp_buf *b, const cJSON *runs,
                        const struct bp_site_links *l)
{
  const cJSON *r;
  size_t shown = 0;
  bpi_buf_adds(b, "<h2>Runs</h2>\n<table class=\"runs\">\n<tr><th>commit"
               "</th><th>time</th><th>testbed</th><th>exit status</th>"
               "<th>measures</th><th>pull request</th></tr>\n");
  cJSON_ArrayForEach(r, runs) {
    const char *commit = str(r, "commit");
    if(!commit || !str(r, "key"))
      continue;
    bpi_buf_adds(b, "<tr><td><a class=\"run\" href=\"");
    run_href(b, r);
    bpi_buf_adds(b, l->page);
    bpi_buf_adds(b, "\">");
    /* a hash is long: its first 12 digits name it well enough */
    char shortc[13];
    snprintf(shortc, sizeof(shortc), "%s", commit);
    text(b, str(r, "hash") ? shortc : commit);
    bpi_buf_adds(b, "</a></td><td>");
    text(b, str(r, "end_time"));
    bpi_buf_adds(b, "</td><td>");
    text(b, str(r, "testbed"));
    if(str(r, "suite") && *str(r, "suite")) {   /* one of a job's steps: "testbed (suite)" */
      bpi_buf_adds(b, " (");
      text(b, str(r, "suite"));
      bpi_buf_addc(b, ')');
    }
    bpi_buf_adds(b, "</td>");
    outcome_cell(b, r);
    measures_cell(b, r);
    bpi_buf_adds(b, "<td>");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "verdict");
    if(str(r, "base_branch")) {
      bpi_buf_adds(b, "against ");
      text(b, str(r, "base_branch"));
      if(cJSON_IsObject(v))
        bpi_buf_adds(b, ": ");
    }
    verdict_word(b, v);
    bpi_buf_adds(b, "</td></tr>\n");
    shown++;
  }
  bpi_buf_adds(b, "</table>\n");
  if(!shown)
    bpi_buf_adds(b, "<p class=\"muted\">none yet</p>\n");
}

/* ------------------------------------------------------------ entry */

/* The first MEASURES_KEPT measures of the report (BMF: {benchmark:
 * {measure: {value, ...}}}), in its order. */
static void add_measures(cJSON *entry, const cJSON *results)
{
  cJSON *list = cJSON_AddArrayToObject(entry, "measures");
  const cJSON *bench, *m;
  int n = 0;
  cJSON_ArrayForEach(bench, results) {
    cJSON_ArrayForEach(m, bench) {
      const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, "value");
      if(!cJSON_IsNumber(v) || !bench->string || !m->string)
        continue;
      if(n++ == MEASURES_KEPT)
        return;
      cJSON *one = cJSON_CreateObject();
      cJSON_AddStringToObject(one, "benchmark", bench->string);
      cJSON_AddStringToObject(one, "measure", m->string);
      cJSON_AddNumberToObject(one, "value", v->valuedouble);
      cJSON_AddItemToArray(list, one);
    }
  }
}

static void copy_str(cJSON *to, const char *name, const char *value)
{
  if(value)
    cJSON_AddStringToObject(to, name, value);
}

cJSON *bpi_site_run_entry(const struct bp_manifest *m)
{
  struct bp_store_run run = {bpi_manifest_ident_str(m, "project"),
                             bpi_manifest_ident_str(m, "branch"),
                             bpi_manifest_ident_str(m, "commit"),
                             bpi_manifest_ident_str(m, "testbed"),
                             bpi_manifest_ident_str(m, "suite")};
  if(!run.project || !run.branch || !run.commit || !run.testbed)
    return NULL;
  char *key = bpi_store_run_key(&run);
  cJSON *e = key ? cJSON_CreateObject() : NULL;
  if(!e) {
    free(key);
    return NULL;
  }
  copy_str(e, "project", run.project);
  copy_str(e, "branch", run.branch);
  copy_str(e, "commit", run.commit);
  copy_str(e, "hash", bpi_manifest_ident_str(m, "hash"));
  copy_str(e, "testbed", run.testbed);
  copy_str(e, "suite", run.suite);
  cJSON_AddStringToObject(e, "key", key);
  copy_str(e, "start_time", bpi_manifest_pub_str(m, "start_time"));
  copy_str(e, "end_time", bpi_manifest_pub_str(m, "end_time"));
  copy_str(e, "base_branch", bpi_manifest_ident_str(m, "base_branch"));
  copy_str(e, "base_hash", bpi_manifest_ident_str(m, "base_hash"));
  copy_str(e, "outcome", m->outcome);
  if(m->has_exit_status)
    cJSON_AddNumberToObject(e, "exit_status", m->exit_status);
  cJSON_AddNumberToObject(e, "benchmarks", (double)m->nbenches);
  add_measures(e, m->results);
  free(key);
  return e;
}

/* ------------------------------------------------------------ a run */

/* The part of an artifact's key under the run's directory, for a link
 * relative to the run's page; NULL when it is elsewhere. */
static const char *under_run(const char *key, const char *run_key)
{
  size_t n = run_key ? strlen(run_key) : 0;
  if(!key || !n || strncmp(key, run_key, n) || key[n] != '/')
    return NULL;
  return key + n + 1;
}

static void facts(struct bp_buf *b, const cJSON *e)
{
  static const char *const what[][2] = {
    {"project", "project"}, {"branch", "branch"}, {"commit", "commit"},
    {"testbed", "testbed"}, {"suite", "suite"}, {"start_time", "started"},
    {"end_time", "ended"}, {"base_branch", "pull request against"},
  };
  bpi_buf_adds(b, "<table class=\"facts\">\n");
  for(size_t i = 0; i < BP_ARRAY_LEN(what); i++) {
    const char *v = str(e, what[i][0]);
    if(!v)
      continue;
    bpi_buf_adds(b, "<tr><th>");
    bpi_buf_adds(b, what[i][1]);
    bpi_buf_adds(b, "</th><td>");
    text(b, v);
    bpi_buf_adds(b, "</td></tr>\n");
  }
  bpi_buf_adds(b, "<tr><th>exit status</th>");
  outcome_cell(b, e);
  bpi_buf_adds(b, "</tr>\n</table>\n");
}

/* Every measure of the stored report. */
static void report_table(struct bp_buf *b, const cJSON *results)
{
  static const char *const cols[] = {"value", "lower_value", "upper_value"};
  const cJSON *bench, *m;
  size_t rows = 0;
  cJSON_ArrayForEach(bench, results) {
    cJSON_ArrayForEach(m, bench) {
      if(!cJSON_IsObject(m) || !bench->string || !m->string)
        continue;
      if(!rows)
        bpi_buf_adds(b, "<h2>Measures</h2>\n<table class=\"measures\">\n"
                     "<tr><th>benchmark</th><th>measure</th><th>value</th>"
                     "<th>lower</th><th>upper</th></tr>\n");
      if(rows++ == REPORT_ROWS) {
        bpi_buf_adds(b, "<tr><td colspan=\"5\">&#8230;</td></tr>\n");
        goto done;
      }
      bpi_buf_adds(b, "<tr><td>");
      text(b, bench->string);
      bpi_buf_adds(b, "</td><td>");
      text(b, m->string);
      bpi_buf_adds(b, "</td>");
      for(size_t i = 0; i < BP_ARRAY_LEN(cols); i++) {
        bpi_buf_adds(b, "<td class=\"num\">");
        measure_value(b, m->string,
                      cJSON_GetObjectItemCaseSensitive(m, cols[i]));
        bpi_buf_adds(b, "</td>");
      }
      bpi_buf_adds(b, "</tr>\n");
    }
  }
done:
  if(rows)
    bpi_buf_adds(b, "</table>\n");
}

/* A link to a benchmark's off-CPU differential flame graph (both sides
 * recorded with --off-cpu), under its on-CPU one: what that one cannot
 * show, time spent waiting. */
static void off_diff_link(struct bp_buf *b, const char *key)
{
  if(!key)
    return;
  bpi_buf_adds(b, "<p class=\"offcpu\"><a href=\"");
  href_key(b, key);
  bpi_buf_adds(b, "\">Off-CPU differential flame graph ("
               BP_FILE_DIFF_OFFCPU_SVG ")</a></p>\n");
}

/* ", 2 slower in wall time only": the benchmarks whose latency changed
 * while their CPU time did not, neither counted nor unchanged; said only
 * when there are some (a comparison stored before had no such count). */
static void wall_time_only_counts(struct bp_buf *b, const cJSON *v)
{
  static const char *const keys[] = {"slower_wall_time_only",
                                     "faster_wall_time_only"};
  for(size_t i = 0; i < BP_ARRAY_LEN(keys); i++) {
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(v, keys[i]);
    if(!cJSON_IsNumber(n) || !(n->valuedouble > 0))
      continue;
    bpi_buf_adds(b, ", ");
    number(b, n);
    bpi_buf_printf(b, " %s in wall time only", i ? "faster" : "slower");
  }
}

static void comparison(struct bp_buf *b, const cJSON *v, const char *comment)
{
  static const char *const counts[] = {"regressions", "improvements",
                                       "unchanged", "unconfirmed", "new",
                                       "removed"};
  /* each count's word for one: "1 regression" */
  static const char *const one[] = {"regression", "improvement",
                                    "unchanged", "unconfirmed", "new",
                                    "removed"};
  const cJSON *bench;
  size_t diffs = 0;
  bpi_buf_adds(b, "<h2>Comparison with ");
  text(b, str(v, "base_branch"));
  if(str(v, "base_hash")) {
    char shortc[13];
    snprintf(shortc, sizeof(shortc), "%s", str(v, "base_hash"));
    bpi_buf_adds(b, " at ");
    text(b, shortc);
  }
  bpi_buf_adds(b, "</h2>\n<p id=\"verdict\">Verdict: ");
  verdict_word(b, v);
  for(size_t i = 0; i < BP_ARRAY_LEN(counts); i++) {
    bpi_buf_adds(b, i ? ", " : " (");
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(v, counts[i]);
    number(b, n);
    bpi_buf_printf(b, " %s", cJSON_IsNumber(n) && n->valuedouble == 1 ?
                   one[i] : counts[i]);
  }
  wall_time_only_counts(b, v);
  bpi_buf_adds(b, ")</p>\n");
  cJSON_ArrayForEach(bench, cJSON_GetObjectItemCaseSensitive(v, "benchmarks")) {
    const char *diff = str(bench, "diff");
    if(!diff || diffs++ == DIFFS_INLINE)
      continue;
    bpi_buf_adds(b, "<h3>");
    text(b, str(bench, "name"));
    bpi_buf_adds(b, ": ");
    text(b, str(bench, "verdict"));
    bpi_buf_adds(b, "</h3>\n<object class=\"flame diff\" type=\"image/svg+xml"
                 "\" data=\"");
    href_key(b, diff);
    bpi_buf_adds(b, "\">" BP_FILE_DIFF_SVG "</object>\n");
    off_diff_link(b, str(bench, "diff_offcpu"));
  }
  if(comment) {
    bpi_buf_adds(b, "<h3>The pull request's comment</h3>\n"
                 "<div class=\"comment\">\n");
    bpi_site_html_markdown(b, comment);
    bpi_buf_adds(b, "</div>\n");
  }
}

static void profiler_link(struct bp_buf *b,
                          const struct bp_manifest_artifact *gecko,
                          const struct bp_site_links *l)
{
  const char *uploaded = gecko->firefox_url;
  struct bp_buf url;
  bpi_buf_init(&url);
  if(l->url_base && gecko->key) {
    bpi_buf_adds(&url, l->url_base);
    href_key(&url, gecko->key);
  }
  else if(gecko->url && !strncmp(gecko->url, "http", 4))
    bpi_buf_adds(&url, gecko->url);
  bpi_buf_addc(&url, '\0');
  if(!bpi_buf_failed(&url) && url.data[0]) {
    bpi_buf_adds(b, " <a class=\"profiler\" href=\"");
    struct bp_buf link;
    bpi_buf_init(&link);
    bpi_buf_adds(&link, PROFILER_FROM_URL);
    bpi_text_pct_encode(&link, url.data, NULL);
    bpi_buf_addc(&link, '/');
    bpi_buf_addc(&link, '\0');
    text(b, bpi_buf_failed(&link) ? "" : link.data);
    bpi_buf_cleanup(&link);
    bpi_buf_adds(b, "\">Open in the Firefox Profiler</a>");
  }
  if(uploaded && !strncmp(uploaded, "https://", 8)) {
    bpi_buf_adds(b, " <a class=\"profiler-public\" href=\"");
    text(b, uploaded);
    bpi_buf_adds(b, "\">(uploaded)</a>");
  }
  bpi_buf_cleanup(&url);
}

static void benchmarks(struct bp_buf *b, const struct bp_manifest *m,
                       const char *run_key, const struct bp_site_links *l)
{
  for(size_t n = 0; n < m->nbenches; n++) {
    const struct bp_manifest_bench *bench = &m->benches[n];
    const struct bp_manifest_artifact *gecko =
      bpi_manifest_artifact(bench->arts, bench->narts, BP_KIND_GECKO);
    const struct bp_manifest_artifact *flame =
      bpi_manifest_artifact(bench->arts, bench->narts, BP_KIND_SVG);
    const char *svg = under_run(flame ? flame->key : NULL, run_key);
    if(!n)
      bpi_buf_adds(b, "<h2>Benchmarks</h2>\n");
    bpi_buf_adds(b, "<h3 class=\"benchmark\">");
    text(b, bench->name);
    bpi_buf_adds(b, "</h3>\n<p>");
    /* benchprof writes a benchmark's samples with its facts */
    if(bench->facts != BP_FACTS_NONE) {
      number_of(b, (double)bench->samples);
      bpi_buf_adds(b, " samples.");
    }
    if(gecko)
      profiler_link(b, gecko, l);
    if(svg) {
      bpi_buf_adds(b, " <a href=\"");
      href_key(b, svg);
      bpi_buf_adds(b, "\">flame graph</a>");
    }
    bpi_buf_adds(b, "</p>\n");
    /* <object>, not <img>: the flame graph's own script (search, zoom)
     * runs only in a document of its own */
    if(svg && n < FLAMES_INLINE) {
      bpi_buf_adds(b, "<object class=\"flame\" type=\"image/svg+xml\" "
                   "data=\"");
      href_key(b, svg);
      bpi_buf_adds(b, "\">flame graph</object>\n");
    }
  }
}

void bpi_site_html_run(struct bp_buf *b, const struct bp_manifest *m,
                       const cJSON *entry, const char *comment,
                       const struct bp_site_links *l)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(entry, "verdict");
  facts(b, entry);
  if(cJSON_IsObject(v))
    comparison(b, v, comment);
  report_table(b, m->results);
  benchmarks(b, m, str(entry, "key"), l);
}

/* ------------------------------------------------------------ Markdown */

/* Whether s (len n) starts with the literal lit. */
static bool starts(const char *s, size_t n, const char *lit)
{
  size_t k = strlen(lit);
  return n >= k && !memcmp(s, lit, k);
}

/* A link's target is kept only when it cannot run anything: http(s), or
 * relative without a scheme. */
static bool safe_url(const char *u, size_t n)
{
  if(starts(u, n, "https://") || starts(u, n, "http://"))
    return true;
  size_t colon = 0;
  while(colon < n && u[colon] != ':' && u[colon] != '/')
    colon++;
  return colon == n || u[colon] == '/';
}

static void md_inline(struct bp_buf *b, const char *s, size_t n);

/* [text](url) or ![alt](url) at s; the bytes used, 0 when it is not. */
static size_t md_link(struct bp_buf *b, const char *s, size_t n)
{
  bool image = s[0] == '!';
  size_t i = image ? 2 : 1, depth = 1;
  if(image && (n < 2 || s[1] != '['))
    return 0;
  size_t text_start = i;
  for(; i < n && depth; i++) {
    if(s[i] == '\\' && i + 1 < n)
      i++;
    else if(s[i] == '[')
      depth++;
    else if(s[i] == ']')
      depth--;
  }
  if(depth || i >= n || s[i] != '(')
    return 0;
  size_t text_end = i - 1, url_start = i + 1;
  size_t url_end = url_start, parens = 0;
  /* parentheses inside the URL are balanced, as CommonMark reads them */
  while(url_end < n && s[url_end] != ' ' &&
        (s[url_end] != ')' || parens)) {
    parens += s[url_end] == '(';
    parens -= s[url_end] == ')' && parens;
    url_end++;
  }
  if(url_end >= n || s[url_end] != ')')
    return 0;
  char *url = strndup(s + url_start, url_end - url_start);
  if(!url) {
    b->failed = true;
    return url_end + 1;
  }
  bool ok = safe_url(url, strlen(url));
  if(image && ok) {
    bpi_buf_adds(b, "<img src=\"");
    text(b, url);
    bpi_buf_adds(b, "\" alt=\"");
    char *alt = strndup(s + text_start, text_end - text_start);
    text(b, alt);
    free(alt);
    bpi_buf_adds(b, "\">");
  }
  else {
    if(ok) {
      bpi_buf_adds(b, "<a href=\"");
      text(b, url);
      bpi_buf_adds(b, "\">");
    }
    md_inline(b, s + text_start, text_end - text_start);
    if(ok)
      bpi_buf_adds(b, "</a>");
  }
  free(url);
  return url_end + 1;
}

static bool word_char(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
    (c >= '0' && c <= '9') || (unsigned char)c >= 0x80;
}

/* Whether the '_' at s[i] opens or closes emphasis: not inside a word
 * (round_of_work stays a name, as in CommonMark). */
static bool underscore_em(const char *s, size_t n, size_t i, bool open)
{
  bool before = i > 0 && word_char(s[i - 1]);
  bool after = i + 1 < n && word_char(s[i + 1]);
  return open ? !after : !before && i + 1 < n && s[i + 1] != ' ';
}

/* One line's (or cell's) inline Markdown. */
static void md_inline(struct bp_buf *b, const char *s, size_t n)
{
  bool strong = false, em = false;
  for(size_t i = 0; i < n; i++) {
    char c = s[i];
    size_t used;
    if(c == '\\' && i + 1 < n && strchr("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
                                        s[i + 1])) {
      char one[2] = {s[++i], '\0'};
      text(b, one);
    }
    else if(c == '`') {
      const char *end = memchr(s + i + 1, '`', n - i - 1);
      if(!end) {
        text(b, "`");
        continue;
      }
      char *code = strndup(s + i + 1, (size_t)(end - s - i - 1));
      bpi_buf_adds(b, "<code>");
      text(b, code);
      bpi_buf_adds(b, "</code>");
      free(code);
      i = (size_t)(end - s);
    }
    else if(c == '*' && i + 1 < n && s[i + 1] == '*') {
      bpi_buf_adds(b, strong ? "</strong>" : "<strong>");
      strong = !strong;
      i++;
    }
    else if(c == '*' || (c == '_' && underscore_em(s, n, i, em))) {
      bpi_buf_adds(b, em ? "</em>" : "<em>");
      em = !em;
    }
    else if((c == '[' || c == '!') && (used = md_link(b, s + i, n - i)))
      i += used - 1;
    else if(!strncmp(s + i, "<br>", n - i < 4 ? n - i : 4) && n - i >= 4) {
      bpi_buf_adds(b, "<br>");
      i += 3;
    }
    else {
      /* a run of plain bytes at once: a UTF-8 character stays whole */
      size_t end = i + 1;
      while(end < n && !strchr("\\`*_[!<", s[end]))
        end++;
      char *plain = strndup(s + i, end - i);
      if(plain)
        text(b, plain);
      else
        b->failed = true;
      free(plain);
      i = end - 1;
    }
  }
  if(em)
    bpi_buf_adds(b, "</em>");
  if(strong)
    bpi_buf_adds(b, "</strong>");
}

/* A table row's cells: split at '|' not escaped, outer pipes dropped. */
static void md_row(struct bp_buf *b, const char *s, size_t n, bool head)
{
  size_t i = 0;
  while(i < n && s[i] == ' ')
    i++;
  if(i < n && s[i] == '|')
    i++;
  while(n > i && (s[n - 1] == ' ' || s[n - 1] == '\r'))
    n--;
  if(n > i && s[n - 1] == '|' && !(n >= 2 && s[n - 2] == '\\'))
    n--;
  bpi_buf_adds(b, "<tr>");
  while(i <= n) {
    size_t j = i;
    while(j < n && !(s[j] == '|' && (j == 0 || s[j - 1] != '\\')))
      j++;
    bpi_buf_adds(b, head ? "<th>" : "<td>");
    size_t a = i, z = j;
    while(a < z && s[a] == ' ')
      a++;
    while(z > a && s[z - 1] == ' ')
      z--;
    md_inline(b, s + a, z - a);
    bpi_buf_adds(b, head ? "</th>" : "</td>");
    if(j >= n)
      break;
    i = j + 1;
  }
  bpi_buf_adds(b, "</tr>\n");
}

static bool md_separator(const char *s, size_t n)
{
  bool dash = false;
  for(size_t i = 0; i < n; i++) {
    if(s[i] == '-')
      dash = true;
    else if(!strchr("|: \r", s[i]))
      return false;
  }
  return dash;
}

enum md_block { MD_NONE, MD_PARA, MD_LIST, MD_TABLE };

static void md_close(struct bp_buf *b, enum md_block *open)
{
  static const char *const end[] = {"", "</p>\n", "</ul>\n", "</table>\n"};
  bpi_buf_adds(b, end[*open]);
  *open = MD_NONE;
}

/* benchprof's own HTML in a comment: <details>, <summary>...</summary>,
 * </details>, each at a line's start; the bytes used, 0 when none. */
static size_t md_html(struct bp_buf *b, const char *s, size_t n)
{
  if(starts(s, n, "<details>")) {
    bpi_buf_adds(b, "<details>");
    return 9;
  }
  if(starts(s, n, "</details>")) {
    bpi_buf_adds(b, "</details>\n");
    return 10;
  }
  if(starts(s, n, "<summary>")) {
    const char *end = NULL;
    for(size_t i = 9; i + 10 <= n && !end; i++)
      if(!memcmp(s + i, "</summary>", 10))
        end = s + i;
    if(!end)
      return 0;
    bpi_buf_adds(b, "<summary>");
    md_inline(b, s + 9, (size_t)(end - s - 9));
    bpi_buf_adds(b, "</summary>\n");
    return (size_t)(end - s) + 10;
  }
  return 0;
}

void bpi_site_html_markdown(struct bp_buf *b, const char *md)
{
  enum md_block open = MD_NONE;
  bool in_comment = false;
  size_t table_rows = 0;
  for(const char *s = md; *s;) {
    size_t n = strcspn(s, "\n");
    const char *next = s + n + (s[n] == '\n');
    while(n && s[n - 1] == '\r')
      n--;
    if(in_comment || starts(s, n, "<!--")) {
      /* an HTML comment (the comment's marker): never shown */
      const char *end = NULL;
      for(size_t i = 0; i + 3 <= n && !end; i++)
        if(!memcmp(s + i, "-->", 3))
          end = s + i;
      in_comment = !end;
      s = next;
      continue;
    }
    size_t used;
    while(n && (used = md_html(b, s, n))) {
      md_close(b, &open);
      s += used;
      n -= used;
    }
    size_t lead = 0;
    while(lead < n && s[lead] == ' ')
      lead++;
    const char *l = s + lead;
    size_t ln = n - lead;
    size_t hashes = 0;
    while(hashes < ln && hashes < 7 && l[hashes] == '#')
      hashes++;
    if(!ln) {
      md_close(b, &open);
    }
    else if(hashes && hashes <= 6 && hashes < ln && l[hashes] == ' ') {
      md_close(b, &open);
      bpi_buf_printf(b, "<h%zu>", hashes + 1 > 6 ? 6 : hashes + 1);
      md_inline(b, l + hashes + 1, ln - hashes - 1);
      bpi_buf_printf(b, "</h%zu>\n", hashes + 1 > 6 ? 6 : hashes + 1);
    }
    else if(l[0] == '|') {
      if(open != MD_TABLE) {
        md_close(b, &open);
        bpi_buf_adds(b, "<table>\n");
        open = MD_TABLE;
        table_rows = 0;
      }
      if(!md_separator(l, ln)) {
        const char *after = next;
        size_t an = strcspn(after, "\n");
        /* the first row is the head when a separator follows it */
        md_row(b, l, ln, !table_rows && md_separator(after, an) && an);
        table_rows++;
      }
    }
    else if((l[0] == '-' || l[0] == '*') && ln > 1 && l[1] == ' ') {
      if(open != MD_LIST) {
        md_close(b, &open);
        bpi_buf_adds(b, "<ul>\n");
        open = MD_LIST;
      }
      bpi_buf_adds(b, "<li>");
      md_inline(b, l + 2, ln - 2);
      bpi_buf_adds(b, "</li>\n");
    }
    else {
      if(open != MD_PARA) {
        md_close(b, &open);
        bpi_buf_adds(b, "<p>");
        open = MD_PARA;
      }
      else
        bpi_buf_addc(b, '\n');
      md_inline(b, l[0] == '>' ? l + 1 : l, l[0] == '>' ? ln - 1 : ln);
    }
    s = next;
  }
  md_close(b, &open);
}
