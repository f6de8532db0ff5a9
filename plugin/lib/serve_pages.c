/* serve_pages: the viewer's HTML pages (see serve.h): a store
 * directory's listing per level (projects, branches with their latest
 * pointers, commits newest first, testbeds, benchmarks), a benchmark's
 * page (its flame graph, summary, counters, Firefox Profiler and compare
 * links).  Built per request from the file system; HTML-escaped. */
#include "bp_setup.h"
#include "serve_int.h"

#include "buf.h"
#include "err.h"
#include "fileio.h"
#include "site.h"
#include "text.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static int entry_newest_first(const void *a, const void *b)
{
  const struct entry *x = a, *y = b;
  if(x->mtime != y->mtime)
    return x->mtime < y->mtime ? 1 : -1;
  return strcmp(x->name, y->name);
}

static const char *const level_children[] = {
  "Projects", "Branches", "Commits", "Testbeds", "Benchmarks", "Artifacts"
};

static void html_text(struct bp_buf *b, const char *s)
{
  bpi_buf_xml_text(b, s);
}

/* A decoded key part, escaped for HTML. */
static void html_name(struct bp_buf *b, const char *part)
{
  char *name = bpi_serve_display_name(part);
  if(name)
    html_text(b, name);
  else
    b->failed = true;
  free(name);
}

static void html_begin(struct bp_buf *b, char *const *parts, size_t n)
{
  bpi_buf_adds(b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
               "<title>");
  if(n)
    html_name(b, parts[n - 1]);
  else
    bpi_buf_adds(b, "benchprof store");
  bpi_buf_adds(b, " - benchprof</title>\n<style>\n"
               "body{font-family:sans-serif;margin:1.5em;color:#222}\n"
               "nav{margin-bottom:1em;color:#555}\n"
               "li{margin:.2em 0}\n"
               "table{border-collapse:collapse}\n"
               "td,th{border:1px solid #ccc;padding:.2em .6em;"
               "text-align:left}\n"
               ".flame{width:100%;border:1px solid #ccc}\n"
               ".muted{color:#777}\n"
               "</style></head>\n<body>\n<nav><a href=\"/\">store</a>");
  /* breadcrumbs: each ancestor by its display name */
  for(size_t i = 0; i < n; i++) {
    bpi_buf_adds(b, " / <a href=\"");
    bpi_serve_add_path(b, parts, i + 1, true);
    bpi_buf_adds(b, "\">");
    html_name(b, parts[i]);
    bpi_buf_adds(b, "</a>");
  }
  bpi_buf_adds(b, "</nav>\n<h1>");
  if(n)
    html_name(b, parts[n - 1]);
  else
    bpi_buf_adds(b, "benchprof store");
  bpi_buf_adds(b, "</h1>\n");
}

static void html_end(struct bp_buf *b)
{
  bpi_buf_adds(b, "</body></html>\n");
}

static void html_time(struct bp_buf *b, time_t t)
{
  struct tm tm;
  char when[32];
  if(gmtime_r(&t, &tm) &&
     strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm))
    bpi_buf_adds(b, when);
}

/* <li><a href="NAME/">display name</a> ...</li> for each entry. */
static void html_entries(struct bp_buf *b, const struct listing *l,
                         bool dirs, bool show_time)
{
  size_t shown = 0;
  for(size_t i = 0; i < l->n; i++) {
    const struct entry *e = &l->e[i];
    if(e->dir != dirs || e->hidden)
      continue;
    /* the static pages and their lists (site.h): shown as pages */
    if(!dirs && (e->name[0] == '~' || !strcmp(e->name, BP_STORE_PAGE)))
      continue;
    if(!shown++)
      bpi_buf_adds(b, "<ul>\n");
    bpi_buf_adds(b, "<li><a href=\"");
    bpi_text_pct_encode(b, e->name, NULL);
    bpi_buf_adds(b, dirs ? "/\">" : "\">");
    if(dirs)
      html_name(b, e->name);
    else
      html_text(b, e->name);
    bpi_buf_adds(b, "</a>");
    if(show_time) {
      bpi_buf_adds(b, " <span class=\"muted\">");
      html_time(b, e->mtime);
      bpi_buf_adds(b, "</span>");
    }
    else if(!dirs)
      bpi_buf_printf(b, " <span class=\"muted\">%lld bytes</span>",
                     e->size);
    bpi_buf_adds(b, "</li>\n");
  }
  if(shown)
    bpi_buf_adds(b, "</ul>\n");
  else if(dirs)
    bpi_buf_adds(b, "<p class=\"muted\">none yet</p>\n");
}

/* What links in pages start with: the public URL, else the bound one
 * (never the request's Host, which any page can make a browser send). */
static void add_origin(struct bp_buf *b, const struct bp_serve *sv)
{
  bpi_buf_add(b, sv->base, strlen(sv->base) - 1);  /* without the '/' */
}

/* A cell with an object's member: its string or number, else empty. */
static void html_cell(struct bp_buf *b, const cJSON *o, const char *key)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  char *num = cJSON_IsNumber(v) ? cJSON_PrintUnformatted(v) : NULL;
  bpi_buf_adds(b, "<td>");
  if(cJSON_IsString(v))
    html_text(b, v->valuestring);
  else if(num)
    html_text(b, num);
  bpi_buf_adds(b, "</td>");
  free(num);
}

#define TOP_SHOWN 15

static void html_top_functions(struct bp_buf *b, const cJSON *top)
{
  int i = 0;
  const cJSON *f;
  if(!cJSON_IsArray(top) || !cJSON_GetArraySize(top))
    return;
  bpi_buf_adds(b, "<h2>Top functions</h2>\n<table>\n<tr><th>function</th>"
               "<th>library</th><th>self %</th><th>total %</th></tr>\n");
  cJSON_ArrayForEach(f, top) {
    if(i++ == TOP_SHOWN)
      break;
    bpi_buf_adds(b, "<tr>");
    html_cell(b, f, "name");
    html_cell(b, f, "lib");
    html_cell(b, f, "self_pct");
    html_cell(b, f, "total_pct");
    bpi_buf_adds(b, "</tr>\n");
  }
  bpi_buf_adds(b, "</table>\n");
}

/* The counters that were counted (the others say why not in the
 * summary itself). */
static void html_counters(struct bp_buf *b, const cJSON *counters)
{
  const cJSON *c;
  bool shown = false;
  cJSON_ArrayForEach(c, counters) {
    if(!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "available")))
      continue;
    if(!shown)
      bpi_buf_adds(b, "<h2>Counters</h2>\n<table>\n<tr><th>counter</th>"
                   "<th>value</th><th>unit</th></tr>\n");
    shown = true;
    bpi_buf_adds(b, "<tr>");
    html_cell(b, c, "name");
    html_cell(b, c, "value");
    html_cell(b, c, "unit");
    bpi_buf_adds(b, "</tr>\n");
  }
  if(shown)
    bpi_buf_adds(b, "</table>\n");
}

/* A marked benchmark's summary (a slice of the run's profile) repeats
 * these figures of the whole run: its own page leaves them out. */
static bool whole_run_figure(const char *key)
{
  static const char *const keys[] = {
    "lost", "lost_events", "throttled", "corrupt_records", "ring_bytes",
    "symbolize_ms", "symbol_tables", "stack_bytes", "unwind_samples", "dwarf_samples",
    "unwind_truncated", "unwind_failed", "spilled_bytes",
    "spill_trimmed_bytes", "stack_tops_learned", "unwind_ms", "task_clock_ms", "unsampled_pct",
    "exit_status", "kernel_sampled", "kernel_unsampled_reason",
  };
  for(size_t i = 0; i < BP_ARRAY_LEN(keys); i++)
    if(!strcmp(key, keys[i]))
      return true;
  return false;
}

/* The summary: its top functions and counters, then its top-level
 * scalars and one level of objects (event.used, ...) in a table; for a
 * slice (a benchmark the harness marked) without the whole run's
 * figures. */
static void html_summary(struct bp_buf *b, const char *path, bool slice)
{
  char *text = NULL;
  size_t len = 0;
  struct bp_err err = {0};
  cJSON *root;
  if(bpi_file_read(path, &text, &len, &err))
    return;
  root = cJSON_ParseWithLength(text, len);
  free(text);
  if(!cJSON_IsObject(root)) {
    cJSON_Delete(root);
    return;
  }
  html_top_functions(b, cJSON_GetObjectItemCaseSensitive(root,
                                                         "top_functions"));
  html_counters(b, cJSON_GetObjectItemCaseSensitive(root, "counters"));
  bpi_buf_adds(b, "<h2>Summary</h2>\n");
  if(slice)
    bpi_buf_adds(b, "<p class=\"muted\" id=\"slice\">This benchmark's own "
                 "figures; the whole run's (unwinding, lost records, "
                 "spills, exit status) are on <a href=\"../\">the run's "
                 "page</a>.</p>\n");
  bpi_buf_adds(b, "<table>\n");
  for(cJSON *item = root->child; item; item = item->next) {
    if(slice && item->string && whole_run_figure(item->string))
      continue;
    cJSON *one[2] = { item, NULL };
    cJSON *list = cJSON_IsObject(item) ? item->child : one[0];
    bool nested = cJSON_IsObject(item);
    for(cJSON *v = list; v; v = nested ? v->next : one[1]) {
      char *value = NULL;
      if(cJSON_IsString(v))
        value = strdup(v->valuestring);
      else if(cJSON_IsNumber(v) || cJSON_IsBool(v) || cJSON_IsNull(v))
        value = cJSON_PrintUnformatted(v);
      if(!value)
        continue;
      bpi_buf_adds(b, "<tr><th>");
      html_text(b, item->string ? item->string : "");
      if(nested) {
        bpi_buf_addc(b, '.');
        html_text(b, v->string ? v->string : "");
      }
      bpi_buf_adds(b, "</th><td>");
      html_text(b, value);
      bpi_buf_adds(b, "</td></tr>\n");
      free(value);
    }
  }
  bpi_buf_adds(b, "</table>\n");
  cJSON_Delete(root);
}

/* The height the flame graph asks for (its <svg height="N">), so the
 * page shows all of it; 600 when it does not say. */
static long svg_height(const char *path)
{
  char head[4096];
  long h = 600;
  FILE *f = fopen(path, "re");
  if(!f)
    return h;
  size_t len = fread(head, 1, sizeof(head) - 1, f);
  fclose(f);
  head[len] = '\0';
  const char *svg = strstr(head, "<svg");
  const char *attr = svg ? strstr(svg, " height=\"") : NULL;
  if(attr) {
    char *end;
    long v = strtol(attr + 9, &end, 10);
    if(end != attr + 9 && v > 0 && v < 100000)
      h = v;
  }
  return h;
}

/* The testbed directory a latest pointer names, as key parts relative
 * to the root: its "manifest" key's directory, else project/branch/
 * the commit's key part/testbed.  NULL when it names nothing usable. */
char *bpi_serve_pointer_dir(const cJSON *ptr, const char *project,
                         const char *branch, const char *testbed)
{
  const cJSON *mf = cJSON_GetObjectItemCaseSensitive(ptr, "manifest");
  const cJSON *commit = cJSON_GetObjectItemCaseSensitive(ptr, "commit");
  if(cJSON_IsString(mf) && strrchr(mf->valuestring, '/')) {
    const char *s = mf->valuestring;
    return strndup(s, (size_t)(strrchr(s, '/') - s));
  }
  if(cJSON_IsString(commit))
    return bpi_store_pointer_run_key(project, branch, commit->valuestring,
                                     testbed);
  return NULL;
}

/* A view of a profile for the compare page: one thread selected, as
 * the profiler's compare view requires. */
static void add_compare_view(struct bp_buf *b, const char *file_url)
{
  struct bp_buf v;
  bpi_buf_init(&v);
  bpi_buf_adds(&v, PROFILER_FROM_URL);
  bpi_text_pct_encode(&v, file_url, NULL);
  bpi_buf_adds(&v, "/calltree/?thread=0");
  bpi_buf_addc(&v, '\0');
  if(bpi_buf_failed(&v))
    b->failed = true;
  else
    bpi_text_pct_encode(b, v.data, NULL);
  bpi_buf_cleanup(&v);
}

/* Read a latest pointer ({project}/{branch}/latest/{testbed}.json, all
 * key parts) and give the testbed directory it names as a key; NULL when
 * there is none.  *commit: the commit's name (malloc'd). */
static char *read_pointer(const struct bp_serve *sv, const char *project,
                          const char *branch, const char *testbed,
                          char **commit)
{
  struct bp_err err = {0};
  char *pdir = bpi_text_path_join(sv->root, project);
  char *bdir = pdir ? bpi_text_path_join(pdir, branch) : NULL;
  char *ldir = bdir ? bpi_text_path_join(bdir, LATEST_DIR) : NULL;
  char *name = NULL, *file = NULL, *text = NULL, *key = NULL;
  size_t len = 0;
  cJSON *ptr = NULL, *c;
  *commit = NULL;
  name = ldir ? bpi_serve_concat(testbed, ".json") : NULL;
  file = name ? bpi_text_path_join(ldir, name) : NULL;
  if(file && !bpi_file_read(file, &text, &len, &err))
    ptr = cJSON_ParseWithLength(text, len);
  c = cJSON_GetObjectItemCaseSensitive(ptr, "commit");
  if(cJSON_IsString(c))
    key = bpi_serve_pointer_dir(ptr, project, branch, testbed);
  if(key && !(*commit = strdup(c->valuestring))) {
    free(key);
    key = NULL;
  }
  cJSON_Delete(ptr);
  free(text);
  free(file);
  free(name);
  free(ldir);
  free(bdir);
  free(pdir);
  return key;
}

/* Links that compare this benchmark's profile (the head) with the same
 * benchmark and testbed at the latest commit of each other branch (the
 * base) in the Firefox Profiler. */
static void html_compare(const struct bp_serve *sv, struct bp_buf *b,
                         const struct target *t, const char *origin,
                         const char *head_url)
{
  struct listing branches;
  struct bp_err err = {0};
  char *pdir = bpi_text_path_join(sv->root, t->parts[PART_PROJECT]);
  bool shown = false;
  if(!pdir || bpi_serve_list_dir(sv, pdir, &branches, &err)) {
    free(pdir);
    return;
  }
  for(size_t i = 0; i < branches.n; i++) {
    const char *branch = branches.e[i].name;
    char *commit = NULL, *key;
    struct bp_buf path;
    struct target other;
    struct stat st;
    char *real = NULL;
    int status;
    if(!branches.e[i].dir || !strcmp(branch, t->parts[PART_BRANCH]))
      continue;
    key = read_pointer(sv, t->parts[PART_PROJECT], branch,
                       t->parts[PART_TESTBED], &commit);
    if(!key)
      continue;
    bpi_buf_init(&path);
    bpi_serve_add_key_href(&path, key);
    bpi_text_pct_encode(&path, t->parts[PART_BENCHMARK], NULL);
    bpi_buf_adds(&path, "/" PROFILE_FILE);
    bpi_buf_addc(&path, '\0');
    memset(&other, 0, sizeof(other));
    status = bpi_buf_failed(&path) ? BP_HTTP_INTERNAL_ERROR
                                   : bpi_serve_parse_target(sv, path.data,
                                                            &other);
    if(!status && other.n == LEVEL_BENCHMARK + 1 &&
       bpi_serve_inside_root(sv, other.path, &st, &real, &status) &&
       S_ISREG(st.st_mode)) {
      if(!shown)
        bpi_buf_adds(b, "<h2>Compare</h2>\n<ul>\n");
      shown = true;
      bpi_buf_adds(b, "<li><a class=\"compare\" href=\"https://profiler."
                   "firefox.com/compare/calltree/?profiles[]=");
      struct bp_buf base;
      bpi_buf_init(&base);
      bpi_buf_adds(&base, origin);
      bpi_buf_adds(&base, path.data);
      bpi_buf_addc(&base, '\0');
      if(bpi_buf_failed(&base))
        b->failed = true;
      else
        add_compare_view(b, base.data);
      bpi_buf_cleanup(&base);
      bpi_buf_adds(b, "&amp;profiles[]=");
      add_compare_view(b, head_url);
      bpi_buf_adds(b, "\">with branch ");
      html_name(b, branch);
      bpi_buf_adds(b, " at ");
      html_text(b, commit);
      bpi_buf_adds(b, " (its latest) in the Firefox Profiler</a></li>\n");
    }
    bpi_serve_target_cleanup(&other);
    free(real);
    bpi_buf_cleanup(&path);
    free(key);
    free(commit);
  }
  if(shown)
    bpi_buf_adds(b, "</ul>\n");
  bpi_serve_listing_cleanup(&branches);
  free(pdir);
}

/* Whether the benchmark at t was marked by the harness (its profile a
 * slice of the run's): the run's manifest says so (BP_FACTS_MARKED). */
static bool is_slice(const char *dir, const struct target *t)
{
  if(t->n != LEVEL_BENCHMARK)
    return false;
  char *run = bpi_text_path_join(dir, "..");
  struct bp_manifest m = {0};
  struct bp_err err = {0};
  bool slice = false;
  if(run && !bpi_manifest_read(&m, run, &err))
    for(size_t i = 0; i < m.nbenches; i++) {
      const struct bp_manifest_bench *mb = &m.benches[i];
      char *part = mb->profile ? bpi_store_key_part(mb->profile) : NULL;
      if(part && !strcmp(part, t->parts[PART_BENCHMARK]))
        slice = mb->facts == BP_FACTS_MARKED;
      free(part);
    }
  bpi_manifest_cleanup(&m);
  free(run);
  return slice;
}

static void page_benchmark(const struct bp_serve *sv, struct bp_buf *b,
                           const struct target *t, const char *dir,
                           const struct listing *l)
{
  bool has_svg = false, has_profile = false;
  for(size_t i = 0; i < l->n; i++) {
    has_svg |= !l->e[i].dir && !strcmp(l->e[i].name, SVG_FILE);
    has_profile |= !l->e[i].dir && !strcmp(l->e[i].name, PROFILE_FILE);
  }
  if(t->n == LEVEL_BENCHMARK) {
    static const char *const what[] = {"project", "branch", "commit",
                                       "testbed"};
    bpi_buf_adds(b, "<p>");
    for(size_t i = 0; i < BP_ARRAY_LEN(what); i++) {
      bpi_buf_printf(b, "%s%s <b>", i ? ", " : "", what[i]);
      html_name(b, t->parts[i]);
      bpi_buf_adds(b, "</b>");
    }
    bpi_buf_adds(b, "</p>\n");
  }
  if(has_profile) {
    struct bp_buf origin, url;
    char *link = NULL;
    bpi_buf_init(&origin);
    bpi_buf_init(&url);
    add_origin(&origin, sv);
    bpi_buf_addc(&origin, '\0');
    if(!bpi_buf_failed(&origin)) {
      bpi_buf_adds(&url, origin.data);
      bpi_serve_add_path(&url, (char *const *)t->parts, t->n, true);
      bpi_buf_adds(&url, PROFILE_FILE);
      bpi_buf_addc(&url, '\0');
    }
    if(!bpi_buf_failed(&origin) && !bpi_buf_failed(&url))
      link = bpi_serve_profiler_url(url.data);
    if(link) {
      bpi_buf_adds(b, "<p><a id=\"profiler\" href=\"");
      html_text(b, link);
      bpi_buf_adds(b, "\">Open the profile in the Firefox Profiler</a></p>\n");
      if(t->n == LEVEL_BENCHMARK)
        html_compare(sv, b, t, origin.data, url.data);
    }
    else
      b->failed = true;
    free(link);
    bpi_buf_cleanup(&url);
    bpi_buf_cleanup(&origin);
  }
  if(has_svg) {
    char *svg = bpi_text_path_join(dir, SVG_FILE);
    /* <object>, not <img>: the flame graph's own script (search, zoom,
     * tooltips) runs only in a document of its own */
    bpi_buf_printf(b, "<h2>Flame graph</h2>\n<object class=\"flame\" "
                   "type=\"image/svg+xml\" data=\"" BP_FILE_SVG "\" "
                   "style=\"height:%ldpx\">" BP_FILE_SVG "</object>\n",
                   svg ? svg_height(svg) : 600L);
    free(svg);
  }
  for(size_t i = 0; i < l->n; i++) {
    if(!l->e[i].dir && !strcmp(l->e[i].name, SUMMARY_FILE)) {
      char *sum = bpi_text_path_join(dir, SUMMARY_FILE);
      if(sum)
        html_summary(b, sum, is_slice(dir, t));
      free(sum);
    }
  }
  bpi_buf_adds(b, "<h2>Artifacts</h2>\n");
  html_entries(b, l, false, false);
}

/* The branch's latest pointers (latest/{testbed}.json -> commit). */
static void html_latest(const struct bp_serve *sv, struct bp_buf *b,
                        char *const *parts, const char *branch_dir)
{
  struct listing l;
  struct bp_err err = {0};
  char *dir = bpi_text_path_join(branch_dir, LATEST_DIR);
  bool shown = false;
  if(!dir || bpi_serve_list_dir(sv, dir, &l, &err)) {
    free(dir);
    return;
  }
  for(size_t i = 0; i < l.n; i++) {
    size_t nl = strlen(l.e[i].name);
    char *file = NULL, *text = NULL, *testbed = NULL, *key = NULL;
    size_t len = 0;
    cJSON *ptr = NULL, *commit;
    if(l.e[i].dir || nl <= 5 || strcmp(l.e[i].name + nl - 5, ".json"))
      continue;
    file = bpi_text_path_join(dir, l.e[i].name);
    testbed = strndup(l.e[i].name, nl - 5);
    if(file && testbed && !bpi_file_read(file, &text, &len, &err))
      ptr = cJSON_ParseWithLength(text, len);
    commit = cJSON_GetObjectItemCaseSensitive(ptr, "commit");
    if(ptr && cJSON_IsString(commit))
      key = bpi_serve_pointer_dir(ptr, parts[PART_PROJECT], parts[PART_BRANCH],
                        testbed);
    if(key) {
      if(!shown) {
        bpi_buf_adds(b, "<h2>Latest</h2>\n<ul>\n");
        shown = true;
      }
      bpi_buf_adds(b, "<li>");
      html_name(b, testbed);
      bpi_buf_adds(b, ": <a href=\"");
      bpi_serve_add_key_href(b, key);
      bpi_buf_adds(b, "\">");
      html_text(b, commit->valuestring);
      bpi_buf_adds(b, "</a></li>\n");
    }
    free(key);
    cJSON_Delete(ptr);
    free(text);
    free(testbed);
    free(file);
  }
  if(shown)
    bpi_buf_adds(b, "</ul>\n");
  bpi_serve_listing_cleanup(&l);
  free(dir);
}

/* A JSON file of the store, parsed; NULL when absent or not JSON. */
static cJSON *read_json(const char *dir, const char *name)
{
  char *path = bpi_text_path_join(dir, name), *text = NULL;
  size_t len = 0;
  struct bp_err err = {0};
  cJSON *j = NULL;
  if(path && !bpi_file_read(path, &text, &len, &err))
    j = cJSON_ParseWithLength(text, len);
  free(text);
  free(path);
  return j;
}

static const struct bp_site_links serve_links = {"", NULL};

/* The run's entry (site.h) from the manifest in dir; NULL when it has
 * none or no identity (not a stored run). */
static cJSON *run_entry(const char *dir, struct bp_manifest *m)
{
  struct bp_err err = {0};
  if(bpi_manifest_read(m, dir, &err))
    return NULL;
  return bpi_site_run_entry(m);
}

static int run_newest_first(const void *a, const void *b)
{
  const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
  const cJSON *tx = cJSON_GetObjectItemCaseSensitive(x, "end_time");
  const cJSON *ty = cJSON_GetObjectItemCaseSensitive(y, "end_time");
  return strcmp(cJSON_IsString(ty) ? ty->valuestring : "",
                cJSON_IsString(tx) ? tx->valuestring : "");
}

#define RUNS_LISTED 1000

/* The branch's runs as the store's pages list them (site.h: its
 * ~runs.json), else made from its runs' manifests, newest first. */
static cJSON *branch_runs(const struct bp_serve *sv, const char *dir,
                          const struct listing *commits)
{
  cJSON *doc = read_json(dir, BP_STORE_RUNS);
  cJSON *runs = cJSON_DetachItemFromObjectCaseSensitive(doc, "runs");
  cJSON_Delete(doc);
  if(cJSON_IsArray(runs))
    return runs;
  cJSON_Delete(runs);
  size_t n = 0, cap = 0;
  cJSON **v = NULL;
  for(size_t i = 0; i < commits->n && n < RUNS_LISTED; i++) {
    struct listing tbs;
    struct bp_err err = {0};
    char *cd = commits->e[i].dir ? bpi_text_path_join(dir, commits->e[i].name)
                                 : NULL;
    if(!cd || commits->e[i].hidden || bpi_serve_list_dir(sv, cd, &tbs, &err)) {
      free(cd);
      continue;
    }
    for(size_t k = 0; k < tbs.n && n < RUNS_LISTED; k++) {
      char *td = tbs.e[k].dir ? bpi_text_path_join(cd, tbs.e[k].name) : NULL;
      struct bp_manifest m = {0};
      cJSON *e = td ? run_entry(td, &m) : NULL;
      if(e && n == cap) {
        size_t ncap = cap ? 2 * cap : 16;
        cJSON **nv = realloc(v, ncap * sizeof(*nv));
        if(nv) {
          v = nv;
          cap = ncap;
        }
      }
      if(e && n < cap)
        v[n++] = e;
      else
        cJSON_Delete(e);
      bpi_manifest_cleanup(&m);
      free(td);
    }
    bpi_serve_listing_cleanup(&tbs);
    free(cd);
  }
  if(n)
    qsort(v, n, sizeof(*v), run_newest_first);
  runs = cJSON_CreateArray();
  for(size_t i = 0; i < n; i++)
    cJSON_AddItemToArray(runs, v[i]);
  free(v);
  return runs;
}

/* A run's sections (site.h) on its testbed's page: from its stored
 * manifest, with the verdict its branch's list keeps and the comment
 * stored with it. */
static void html_run(const struct bp_serve *sv, struct bp_buf *b,
                     const char *dir)
{
  struct bp_manifest m = {0};
  cJSON *e = run_entry(dir, &m);
  if(!e) {
    bpi_manifest_cleanup(&m);
    return;
  }
  char *branch_dir = bpi_text_path_join(dir, "../..");
  cJSON *runs = branch_dir ? read_json(branch_dir, BP_STORE_RUNS) : NULL;
  const cJSON *r, *key = cJSON_GetObjectItemCaseSensitive(e, "key");
  cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(runs, "runs")) {
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(r, "key");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "verdict");
    if(cJSON_IsString(k) && cJSON_IsString(key) && cJSON_IsObject(v) &&
       !strcmp(k->valuestring, key->valuestring))
      cJSON_AddItemToObject(e, "verdict", cJSON_Duplicate(v, true));
  }
  char *comment = NULL;
  size_t len = 0;
  struct bp_err err = {0};
  char *cpath = bpi_text_path_join(dir, BP_STORE_RUN_PART "/"
                                   BP_FILE_COMMENT);
  if(!cpath || bpi_file_read(cpath, &comment, &len, &err))
    comment = NULL;
  const struct bp_site_links links = {"", sv->base};
  bpi_site_html_run(b, &m, e, comment, &links);
  free(cpath);
  free(comment);
  cJSON_Delete(runs);
  free(branch_dir);
  cJSON_Delete(e);
  bpi_manifest_cleanup(&m);
}

/* The index page of a directory of the store. */
bp_code bpi_serve_page_dir(const struct bp_serve *sv, struct bp_buf *b,
                           const struct target *t, const char *dir,
                           struct bp_err *err)
{
  struct listing l;
  bp_code rc = bpi_serve_list_dir(sv, dir, &l, err);
  bool latest = t->n == LEVEL_BRANCH + 1 &&
    !strcmp(t->parts[PART_COMMIT], LATEST_DIR);
  if(rc)
    return rc;
  html_begin(b, t->parts, t->n);
  if(t->n == LEVEL_BRANCH) {
    /* commits newest first; latest/ has its own section */
    for(size_t i = 0; i < l.n; i++) {
      char *cd = l.e[i].dir ? bpi_text_path_join(dir, l.e[i].name) : NULL;
      if(cd)
        l.e[i].mtime = bpi_serve_commit_time(sv, cd, l.e[i].mtime);
      if(l.e[i].dir && !strcmp(l.e[i].name, LATEST_DIR))
        l.e[i].hidden = true;
      free(cd);
    }
    html_latest(sv, b, t->parts, dir);
    cJSON *runs = branch_runs(sv, dir, &l);
    if(cJSON_GetArraySize(runs))
      bpi_site_html_runs(b, runs, &serve_links);
    cJSON_Delete(runs);
    qsort(l.e, l.n, sizeof(*l.e), entry_newest_first);
    bpi_buf_adds(b, "<h2>Commits</h2>\n");
    html_entries(b, &l, true, true);
  }
  else if(t->n == LEVEL_BENCHMARK)
    page_benchmark(sv, b, t, dir, &l);
  else {
    if(t->n == LEVEL_TESTBED)
      html_run(sv, b, dir);
    size_t dirs = 0;
    for(size_t i = 0; i < l.n; i++)
      dirs += l.e[i].dir;
    if(!latest && (t->n < LEVEL_BENCHMARK || dirs)) {
      bpi_buf_printf(b, "<h2>%s</h2>\n",
                     level_children[t->n < LEVEL_BENCHMARK ? t->n
                                                           : LEVEL_BENCHMARK]);
      html_entries(b, &l, true, false);
    }
    if(l.n > dirs) {
      bpi_buf_adds(b, "<h2>Files</h2>\n");
      html_entries(b, &l, false, false);
    }
  }
  html_end(b);
  bpi_serve_listing_cleanup(&l);
  return BP_OK;
}

