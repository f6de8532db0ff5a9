/* test_site: the static pages (site.h) in a file store: the lists merged
 * (newest first, a verdict kept when a later publication has none), a
 * page never replaced by one of an older generation; the rendering:
 * hostile names escaped, the comment's Markdown (its own tags kept, any
 * other markup shown as text, no javascript: link), the generation read
 * back; measures in the comment's units, a PR run's row leading with
 * its worst change. */
#include "bp_setup.h"
#include "site.h"
#include "buf.h"
#include "check.h"
#include "fileio.h"
#include "rundir.h"
#include "store.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct bp_site_links links = {"index.html", NULL};

static char *render_md(const char *md)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_site_html_markdown(&b, md);
  bpi_buf_addc(&b, '\0');
  return b.data;
}

static void test_markdown(void)
{
  char *h = render_md(
    "<!-- benchprof:comment demo/box -->\n"
    "### benchprof: 1 regression\n"
    "| Benchmark | Change |\n|:--|--:|\n| `a<b` | **+12%** |\n"
    "\n<details><summary>2 benchmarks without a change</summary>\n\n"
    "- [flame](https://example.com/x.svg) and [bad](javascript:alert(1))\n"
    "- a \\*star\\* and \\<b\\> and <script>alert(1)</script>\n"
    "</details>\n");
  CHECK(h && !strstr(h, "benchprof:comment"));
  CHECK(h && strstr(h, "<h4>benchprof: 1 regression</h4>"));
  CHECK(h && strstr(h, "<tr><th>Benchmark</th><th>Change</th></tr>"));
  CHECK(h && strstr(h, "<td><code>a&lt;b</code></td>"
                       "<td><strong>+12%</strong></td>"));
  CHECK(h && strstr(h, "<details><summary>2 benchmarks without a change"
                       "</summary>"));
  CHECK(h && strstr(h, "</details>"));
  CHECK(h && strstr(h, "<a href=\"https://example.com/x.svg\">flame</a>"));
  CHECK(h && strstr(h, " and bad</li>"));  /* its text only */
  CHECK(h && !strstr(h, "javascript"));
  CHECK(h && strstr(h, "a *star* and &lt;b&gt; and &lt;script&gt;"));
  CHECK(h && !strstr(h, "<script"));
  free(h);
  /* intraword underscores are a name's; a UTF-8 character stays whole */
  h = render_md("round_of_work _note_ \xf0\x9f\x94\xb4 red\n");
  CHECK(h && strstr(h, "<p>round_of_work <em>note</em> \xf0\x9f\x94\xb4 "
                       "red</p>"));
  free(h);
}

static void test_generation(void)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_site_html_begin(&b, "t", NULL, 0, 0, &links, 42);
  bpi_site_html_end(&b);
  CHECK_EQ_INT(bpi_site_page_generation(b.data, b.len), 42);
  bpi_buf_reset(&b);
  bpi_site_html_begin(&b, "t", NULL, 0, 0, &links, -1);
  CHECK_EQ_INT(bpi_site_page_generation(b.data, b.len), -1);
  const char *odd = "<meta name=\"benchprof-generation\" content=\"x\">";
  CHECK_EQ_INT(bpi_site_page_generation(odd, strlen(odd)), -1);
  bpi_buf_cleanup(&b);
}

/* One measure of a run's entry, as bpi_site_run_entry keeps it. */
static void add_measure(cJSON *list, const char *bench, const char *slug,
                        double v)
{
  cJSON *one = cJSON_CreateObject();
  cJSON_AddStringToObject(one, "benchmark", bench);
  cJSON_AddStringToObject(one, "measure", slug);
  cJSON_AddNumberToObject(one, "value", v);
  cJSON_AddItemToArray(list, one);
}

static void add_verdict_bench(cJSON *list, const char *name,
                              const char *verdict, const char *slug,
                              double pct)
{
  cJSON *one = cJSON_CreateObject();
  cJSON_AddStringToObject(one, "name", name);
  cJSON_AddStringToObject(one, "verdict", verdict);
  if(slug) {
    cJSON_AddStringToObject(one, "measure", slug);
    cJSON_AddNumberToObject(one, "change_pct", pct);
  }
  cJSON_AddItemToArray(list, one);
}

static char *render_runs(const cJSON *runs)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_site_html_runs(&b, runs, &links);
  bpi_buf_addc(&b, '\0');
  return b.data;
}

/* The runs table: values in the comment's units (not "138429.5078"),
 * and a PR run's row led by its worst change, not its first benchmark. */
static void test_runs_cell(void)
{
  cJSON *runs = cJSON_CreateArray();
  cJSON *r = cJSON_CreateObject();
  cJSON_AddItemToArray(runs, r);
  cJSON_AddStringToObject(r, "commit", "c1");
  cJSON_AddStringToObject(r, "key", "demo/main/c1/box");
  cJSON *ms = cJSON_AddArrayToObject(r, "measures");
  add_measure(ms, "BM_Hot", "latency", 138429.507763562);
  add_measure(ms, "BM_Hot", "page-faults", 0.013471646998387314);
  add_measure(ms, "BM_Hot", "throughput", 2500000);
  char *h = render_runs(runs);
  CHECK(h && strstr(h, "BM_Hot <span class=\"muted\">latency</span> "
                       "138.4 \xc2\xb5s"));
  CHECK(h && strstr(h, "page-faults</span> 0.01347"));
  CHECK(h && strstr(h, "throughput</span> 2.5M ops/s"));
  CHECK(h && !strstr(h, "138429"));
  CHECK(h && !strstr(h, "<strong>"));     /* no verdict: no lead change */
  free(h);

  cJSON *v = cJSON_AddObjectToObject(r, "verdict");
  cJSON_AddStringToObject(v, "summary", "regression");
  cJSON *bl = cJSON_AddArrayToObject(v, "benchmarks");
  add_verdict_bench(bl, "BM_Odd", "unconfirmed regression", "latency", 400);
  add_verdict_bench(bl, "<i>BM_Wait</i>", "regression", "latency",
                    969.69997973383477);
  add_verdict_bench(bl, "BM_Hot", "regression", "latency", 90.25);
  add_verdict_bench(bl, "BM_Steady", "unchanged", NULL, 0);
  h = render_runs(runs);
  /* the worst confirmed change, first in the cell, its name escaped */
  const char *lead = "<td><strong>&lt;i&gt;BM_Wait&lt;/i&gt;</strong> "
                     "<span class=\"muted\">latency</span> +969.70% "
                     "<span class=\"verdict regression\">regression</span>"
                     "<br>BM_Hot";
  CHECK(h && strstr(h, lead));
  free(h);

  /* with no confirmed change, the largest unconfirmed one leads */
  cJSON_DeleteItemFromArray(bl, 1);
  cJSON_DeleteItemFromArray(bl, 1);
  h = render_runs(runs);
  CHECK(h && strstr(h, "<td><strong>BM_Odd</strong> <span class=\"muted\">"
                       "latency</span> +400.00% <span class=\"verdict "
                       "unconfirmed regression\">"));
  free(h);
  cJSON_Delete(runs);
}

/* A stored manifest as publish.c writes it, for one run. */
static char *manifest(const char *branch, const char *commit,
                      const char *end, const char *testbed)
{
  cJSON *m = cJSON_CreateObject();
  cJSON *p = cJSON_AddObjectToObject(m, "publication");
  cJSON *id = cJSON_AddObjectToObject(p, "identity");
  cJSON_AddStringToObject(id, "project", "demo");
  cJSON_AddStringToObject(id, "branch", branch);
  cJSON_AddStringToObject(id, "commit", commit);
  cJSON_AddStringToObject(id, "testbed", testbed);
  cJSON_AddStringToObject(p, "end_time", end);
  cJSON_AddStringToObject(m, "outcome", "passed");
  cJSON_AddNumberToObject(m, "exit_status", 0);
  cJSON *r = cJSON_AddObjectToObject(m, "results");
  cJSON *bench = cJSON_AddObjectToObject(r, "<b>bench</b>");
  cJSON_AddNumberToObject(cJSON_AddObjectToObject(bench, "latency"),
                          "value", 12.5);
  cJSON_AddArrayToObject(m, "benchmarks");
  char *text = cJSON_Print(m);
  cJSON_Delete(m);
  return text;
}

static cJSON *read_json(const char *dir, const char *rel)
{
  char path[4096], *text = NULL;
  size_t len = 0;
  struct bp_err err = {0};
  snprintf(path, sizeof(path), "%s/%s", dir, rel);
  if(bpi_file_read(path, &text, &len, &err))
    return NULL;
  cJSON *j = cJSON_ParseWithLength(text, len);
  free(text);
  return j;
}

static char *read_text(const char *dir, const char *rel)
{
  char path[4096], *text = NULL;
  size_t len = 0;
  struct bp_err err = {0};
  snprintf(path, sizeof(path), "%s/%s", dir, rel);
  return bpi_file_read(path, &text, &len, &err) ? NULL : text;
}

static void publish(struct bp_store *st, const char *branch,
                    const char *commit, const char *end, const char *tb)
{
  struct bp_err err = {0};
  char *m = manifest(branch, commit, end, tb);
  const struct bp_store_run run = {"demo", branch, commit, tb, NULL};
  char *key = bpi_store_manifest_key(&run);
  CHECK_EQ_INT(bpi_store_put(st, key, m, strlen(m), "application/json",
                             NULL, &err), BP_OK);
  /* the pages come from the stored manifest as the store's readers
   * parse it */
  struct bp_manifest man;
  CHECK_EQ_INT(bpi_manifest_parse(&man, m, strlen(m), "manifest", &err),
               BP_OK);
  CHECK_EQ_INT(bpi_site_publish(st, &man, &err), BP_OK);
  bpi_manifest_cleanup(&man);
  free(key);
  free(m);
}

static void test_store(void)
{
  char dir[] = "/tmp/bp-test-site.XXXXXX", url[64];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(url, sizeof(url), "file://%s", dir);
  struct bp_store_opts o = {.url = url};
  struct bp_store *st = NULL;
  struct bp_err err = {0};
  CHECK_EQ_INT(bpi_store_open(&st, &o, &err), BP_OK);
  if(!st)
    return;
  publish(st, "main", "c1", "2026-01-01T00:00:01Z", "box");
  publish(st, "main", "c3", "2026-01-01T00:00:03Z", "box");
  publish(st, "main", "c2", "2026-01-01T00:00:02Z", "<i>tb</i>");
  cJSON *runs = read_json(dir, "demo/main/~runs.json");
  cJSON *list = cJSON_GetObjectItemCaseSensitive(runs, "runs");
  CHECK_EQ_INT(cJSON_GetArraySize(list), 3);
  const char *order[] = {"c3", "c2", "c1"};
  for(int i = 0; i < 3; i++) {
    cJSON *c = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetArrayItem(list, i), "commit");
    CHECK(cJSON_IsString(c) && !strcmp(c->valuestring, order[i]));
  }
  CHECK_EQ_INT((int)cJSON_GetObjectItemCaseSensitive(runs, "generation")
               ->valuedouble, 3);
  cJSON_Delete(runs);
  /* the branch page: every run linked, names escaped */
  char *page = read_text(dir, "demo/main/index.html");
  CHECK(page && strstr(page, "href=\"c1/box/index.html\""));
  CHECK(page && strstr(page, "href=\"c2/%253Ci%253Etb%253C%252Fi%253E/"
                             "index.html\""));
  CHECK(page && strstr(page, "&lt;i&gt;tb&lt;/i&gt;") && !strstr(page,
                                                                  "<i>"));
  CHECK(page && strstr(page, "&lt;b&gt;bench&lt;/b&gt;"));
  free(page);
  /* the run page's measures in the comment's units */
  page = read_text(dir, "demo/main/c1/box/index.html");
  CHECK(page && strstr(page, "<td class=\"num\">12.5 ns</td>"));
  free(page);
  page = read_text(dir, "index.html");
  CHECK(page && strstr(page, "href=\"demo/index.html\""));
  free(page);
  page = read_text(dir, "demo/index.html");
  CHECK(page && strstr(page, "href=\"main/index.html\""));
  free(page);

  /* a verdict added to c1's entry stays when c1 is published again */
  char *runs_text = read_text(dir, "demo/main/~runs.json");
  cJSON *doc = runs_text ? cJSON_Parse(runs_text) : NULL;
  cJSON *c1 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc,
                                                                  "runs"), 2);
  cJSON *v = cJSON_AddObjectToObject(c1, "verdict");
  cJSON_AddStringToObject(v, "summary", "regression");
  char *with = cJSON_Print(doc);
  CHECK_EQ_INT(bpi_store_put(st, "demo/main/~runs.json", with, strlen(with),
                             "application/json", NULL, &err), BP_OK);
  free(with);
  cJSON_Delete(doc);
  free(runs_text);
  publish(st, "main", "c1", "2026-01-01T00:00:01Z", "box");
  runs = read_json(dir, "demo/main/~runs.json");
  list = cJSON_GetObjectItemCaseSensitive(runs, "runs");
  CHECK_EQ_INT(cJSON_GetArraySize(list), 3);
  CHECK(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(list, 2),
                                         "verdict") != NULL);
  cJSON_Delete(runs);
  page = read_text(dir, "demo/main/index.html");
  CHECK(page && strstr(page, "class=\"verdict regression\""));
  free(page);

  /* a page of a newer generation is never replaced by an older one */
  const char *newer = "<html><head><meta name=\"benchprof-generation\" "
                      "content=\"999\"></head>kept</html>";
  CHECK_EQ_INT(bpi_store_put(st, "demo/main/index.html", newer,
                             strlen(newer), "text/html", NULL, &err), BP_OK);
  publish(st, "main", "c4", "2026-01-01T00:00:04Z", "box");
  page = read_text(dir, "demo/main/index.html");
  CHECK(page && strstr(page, "kept"));
  free(page);

  /* rebuild: every page again from the lists */
  struct bp_site_stats s;
  CHECK_EQ_INT(bpi_site_rebuild(st, &s, &err), BP_OK);
  CHECK_EQ_INT((int)s.projects, 1);
  CHECK_EQ_INT((int)s.branches, 1);
  CHECK_EQ_INT((int)s.runs, 4);
  CHECK_EQ_INT((int)s.pages, 4 + 1 + 1 + 1);
  bpi_store_close(st);
  char cmd[128];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
  CHECK_EQ_INT(system(cmd), 0);
}

static void test_entry(void)
{
  char *m = manifest("feature/x", "abc", "2026-01-01T00:00:01Z", "box");
  struct bp_manifest doc;
  struct bp_err err = {0};
  CHECK_EQ_INT(bpi_manifest_parse(&doc, m, strlen(m), "entry", &err), BP_OK);
  cJSON *e = bpi_site_run_entry(&doc);
  cJSON *key = cJSON_GetObjectItemCaseSensitive(e, "key");
  CHECK(cJSON_IsString(key) &&
        !strcmp(key->valuestring, "demo/feature%2Fx/abc/box"));
  cJSON_Delete(e);
  cJSON_Delete(doc.publication);
  doc.publication = NULL;
  CHECK(bpi_site_run_entry(&doc) == NULL);
  bpi_manifest_cleanup(&doc);
  free(m);
}

/* A PR run's page: each benchmark's diff.svg inline, and a link to its
 * diff.offcpu.svg when one was stored (both sides --off-cpu), relative
 * to the run's directory, its key parts encoded. */
static void test_run_offcpu(void)
{
  char *m = manifest("feature/x", "abc", "2026-01-01T00:00:01Z", "box");
  struct bp_manifest doc;
  struct bp_err err = {0};
  CHECK_EQ_INT(bpi_manifest_parse(&doc, m, strlen(m), "run", &err), BP_OK);
  cJSON *e = bpi_site_run_entry(&doc);
  cJSON *v = cJSON_AddObjectToObject(e, "verdict");
  cJSON_AddStringToObject(v, "summary", "regression");
  cJSON *list = cJSON_AddArrayToObject(v, "benchmarks");
  cJSON *wait = cJSON_CreateObject(), *hot = cJSON_CreateObject();
  cJSON_AddStringToObject(wait, "name", "BM_Wait");
  cJSON_AddStringToObject(wait, "verdict", "regression");
  cJSON_AddStringToObject(wait, "diff", "BM Wait/diff.svg");
  cJSON_AddStringToObject(wait, "diff_offcpu", "BM Wait/diff.offcpu.svg");
  cJSON_AddItemToArray(list, wait);
  cJSON_AddStringToObject(hot, "name", "BM_Hot");
  cJSON_AddStringToObject(hot, "verdict", "unchanged");
  cJSON_AddStringToObject(hot, "diff", "BM_Hot/diff.svg");
  cJSON_AddItemToArray(list, hot);
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_site_html_run(&b, &doc, e, NULL, &links);
  bpi_buf_addc(&b, '\0');
  const char *h = b.data;
  CHECK(h && strstr(h, "data=\"BM%20Wait/diff.svg\""));
  CHECK(h && strstr(h, "<p class=\"offcpu\"><a href=\"BM%20Wait/"
                    "diff.offcpu.svg\">Off-CPU differential flame graph "
                    "(diff.offcpu.svg)</a></p>\n"));
  /* one link: BM_Hot has none */
  const char *first = h ? strstr(h, "diff.offcpu.svg\"") : NULL;
  CHECK(first && !strstr(first + 1, "diff.offcpu.svg\""));
  CHECK(h && strstr(h, "data=\"BM_Hot/diff.svg\""));
  /* no wall-time-only count in the verdict (stored before there was
   * one): none said */
  CHECK(h && !strstr(h, "in wall time only"));
  bpi_buf_cleanup(&b);
  cJSON_Delete(e);
  bpi_manifest_cleanup(&doc);
  free(m);
}

/* A benchmark slower in wall time only (latency up, CPU time not) is
 * neither counted nor unchanged: the run's page says how many, and the
 * runs list leads with it when nothing was confirmed. */
static void test_wall_time_only(void)
{
  char *m = manifest("feature/x", "abc", "2026-01-01T00:00:01Z", "box");
  struct bp_manifest doc;
  struct bp_err err = {0};
  CHECK_EQ_INT(bpi_manifest_parse(&doc, m, strlen(m), "run", &err), BP_OK);
  cJSON *e = bpi_site_run_entry(&doc);
  cJSON *v = cJSON_AddObjectToObject(e, "verdict");
  cJSON_AddStringToObject(v, "summary", "unchanged");
  cJSON_AddNumberToObject(v, "regressions", 0);
  cJSON_AddNumberToObject(v, "unchanged", 1);
  cJSON_AddNumberToObject(v, "slower_wall_time_only", 2);
  cJSON_AddNumberToObject(v, "faster_wall_time_only", 0);
  cJSON *list = cJSON_AddArrayToObject(v, "benchmarks");
  add_verdict_bench(list, "BM_Steady", "unchanged", NULL, 0);
  add_verdict_bench(list, "BM_Sort", "slower in wall time only", "latency",
                    45.86);
  add_verdict_bench(list, "BM_Odd", "unconfirmed regression", "latency", 60);
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_site_html_run(&b, &doc, e, NULL, &links);
  bpi_buf_addc(&b, '\0');
  CHECK(b.data && strstr(b.data, ", 2 slower in wall time only)</p>"));
  CHECK(b.data && !strstr(b.data, "faster in wall time only"));
  bpi_buf_cleanup(&b);
  cJSON *runs = cJSON_CreateArray();
  cJSON_AddItemToArray(runs, e);
  char *h = render_runs(runs);
  CHECK(h && strstr(h, "<td><strong>BM_Sort</strong> <span class=\"muted\">"
                       "latency</span> +45.86% <span class=\"verdict "
                       "slower in wall time only\">"));
  free(h);
  cJSON_Delete(runs);
  bpi_manifest_cleanup(&doc);
  free(m);
}

int main(void)
{
  test_markdown();
  test_generation();
  test_runs_cell();
  test_entry();
  test_run_offcpu();
  test_wall_time_only();
  test_store();
  return check_exit();
}
