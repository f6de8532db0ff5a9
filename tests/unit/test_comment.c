/* comment: hostile names escaped, long names shortened, the 65,536 cut
 * with its note (details, then function rows, then the summary table's
 * rows of the least changed first; suites of 150 to 2000 unconfirmed
 * changes), every row's key measure and verdict, the title's counts and
 * the notes on unconfirmed changes, the viewer links (the
 * Bencher plot: its URL escaped, its measure chosen, left out when an id
 * is missing), and the forge requests (list pages, find our marker, PATCH/PUT or POST) driven
 * through a fake transport that checks every request; the compared line
 * (which comparison a comment shows) written, read back, and obeyed: a
 * comment about a newer comparison is never replaced by an older one. */
#include "bp_setup.h"
#include "comment.h"
#include "compare_int.h"   /* bpi_cmp_pick_max: verdicts as compared */
#include "err.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *md_of(const char *name, size_t max)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_comment_md_text(&b, name, max);
  bpi_buf_addc(&b, '\0');
  return b.data;
}

static bool alnum(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || (unsigned char)c >= 0x80;
}

/* Apart from backslash escapes, numeric character references and an
 * underscore inside a word (never emphasis in GFM), no character of s
 * may have a meaning in Markdown or HTML. */
static bool inert(const char *s)
{
  const char *start = s;
  for(; *s; s++) {
    if(s[0] == '\\' && s[1] && strchr("<>|`*_[]\\#$!~&{}", s[1])) {
      s++;
      continue;
    }
    if(s[0] == '&' && s[1] == '#') {
      size_t n = strspn(s + 2, "0123456789");
      if(!n || s[2 + n] != ';')
        return false;
      s += 2 + n;
      continue;
    }
    if(*s == '_' && s > start && alnum(s[-1]) && alnum(s[1]))
      continue;
    /* an '@' that cannot start a mention: a letter or digit before it,
     * or none after it */
    if(*s == '@' && ((s > start && alnum(s[-1])) || !alnum(s[1])))
      continue;
    if(strchr("<>|`*_[]\n\r\\@#$!~&", *s))
      return false;
  }
  return true;
}

/* Whether what occurs in s other than right after a backslash (an
 * escaped character is literal text in Markdown). */
static bool unescaped(const char *s, const char *what)
{
  for(const char *p = strstr(s, what); p; p = strstr(p + 1, what))
    if(p == s || p[-1] != '\\')
      return true;
  return false;
}

static bool starts(const char *s, const char *prefix)
{
  return s && !strncmp(s, prefix, strlen(prefix));
}

static void test_escape(void)
{
  const char *hostile[] = {
    "<script>alert(1)</script>", "a|b|c", "``code``", "*bold* _it_",
    "[x](javascript:alert(1))", "line\nbreak\r\n| fake | row |",
    "@everyone #1 $x$ ~~s~~ \\", "<img src=x onerror=alert(1)>",
    "\x01\x7f bad \xff bytes",
  };
  for(size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
    char *s = md_of(hostile[i], 200);
    CHECK(s && inert(s));
    if(s && !inert(s))
      fprintf(stderr, "not inert: %s\n", s);
    free(s);
  }
  char *s = md_of("<script>", 80);
  CHECK_EQ_STR(s, "\\<script\\>");
  free(s);
  s = md_of("[x](javascript:y)", 80);
  CHECK_EQ_STR(s, "\\[x\\](javascript:y)");
  free(s);
  s = md_of("a|b", 80);
  CHECK_EQ_STR(s, "a\\|b");
  free(s);
  s = md_of("café ok", 80);   /* UTF-8 passes */
  CHECK_EQ_STR(s, "café ok");
  free(s);

  /* long C++ names: template arguments collapse first */
  s = md_of("std::map<std::basic_string<char>, std::vector<int> >::find"
            "(std::basic_string<char> const&)", 60);
  CHECK(s && strstr(s, "std::map\\<…\\>::find(std::basic_string"
                    "\\<…\\> const\\&)") != NULL);
  free(s);
  /* then the end is kept */
  char longname[400];
  memset(longname, 'x', sizeof(longname));
  memcpy(longname + 380, "::the_method", 13);
  s = md_of(longname, 40);
  CHECK(s && !strncmp(s, "…", 3));
  CHECK(s && strstr(s, "::the_method") != NULL);
  free(s);
  /* a cut that falls inside a word or a "::" starts at the next part:
   * not "…:State::StateIterator" (of "benchmark::State") nor
   * "…nchmark::State" */
  const char *gb = "benchmark::State::StateIterator::operator!=(benchmark::"
                   "State::StateIterator const&) const";
  for(size_t max = 57; max <= 80; max++) {
    s = md_of(gb, max);
    const char *rest = s ? s + strlen("…") : NULL;
    CHECK(s && !strncmp(s, "…", strlen("…")));
    CHECK(rest && (rest[0] != ':' || rest[1] == ':'));
    CHECK(rest && (!strncmp(rest, "::", 2) || !strncmp(rest, "State", 5) ||
                   !strncmp(rest, "StateIterator", 13) ||
                   !strncmp(rest, "operator", 8)));
    free(s);
  }
  /* an underscore at a word's edge could emphasize: escaped there only */
  s = md_of("_start __x a_b_", 80);
  CHECK_EQ_STR(s, "\\_start \\_\\_x a_b\\_");
  free(s);
  /* '@' as it is where it cannot mention anyone; a reference where it
   * could (GitHub links a mention whatever escapes it) */
  s = md_of("BM_Sort@1k user@host a @ b", 80);
  CHECK_EQ_STR(s, "BM_Sort@1k user@host a @ b");
  free(s);
  s = md_of("@team x @1 (@y)", 80);
  CHECK_EQ_STR(s, "&#64;team x &#64;1 (&#64;y)");
  free(s);
}

static void test_links(void)
{
  struct bp_buf a, b, c;
  bpi_buf_init(&a);
  bpi_buf_init(&b);
  bpi_buf_init(&c);
  bpi_comment_profiler_view(&a, "https://s.example/x y/p.json.gz?sig=1&z", 2,
                            "base: a");
  bpi_buf_addc(&a, '\0');
  CHECK_EQ_STR(a.data, "https://profiler.firefox.com/from-url/https%3A%2F%2F"
               "s.example%2Fx%20y%2Fp.json.gz%3Fsig%3D1%26z/calltree/"
               "?thread=2&profileName=base%3A%20a");
  bpi_comment_profiler_view(&b, "http://127.0.0.1:1/h.json.gz", 0, NULL);
  bpi_buf_addc(&b, '\0');
  bpi_comment_profiler_compare(&c, a.data, b.data);
  bpi_buf_addc(&c, '\0');
  CHECK(!strncmp(c.data, "https://profiler.firefox.com/compare/calltree/"
                 "?profiles[]=https%3A%2F%2Fprofiler.firefox.com%2Ffrom-url"
                 "%2Fhttps%253A%252F%252Fs.example", 120));
  CHECK(strstr(c.data, "&profiles[]=https%3A%2F%2Fprofiler") != NULL);
  bpi_buf_cleanup(&a);
  bpi_buf_cleanup(&b);
  bpi_buf_cleanup(&c);

  struct bp_buf m;
  bpi_buf_init(&m);
  bpi_comment_marker(&m, "proj --> <b>", NULL, NULL);
  bpi_buf_addc(&m, '\0');
  CHECK_EQ_STR(m.data, "<!-- benchprof:comment proj_--___b_/local -->");
  char *found = bpi_comment_find_marker("text\n<!-- benchprof:comment p/t "
                                        "-->\nmore");
  CHECK_EQ_STR(found, "<!-- benchprof:comment p/t -->");
  free(found);
  CHECK(bpi_comment_find_marker("no marker") == NULL);
  /* a suite: a marker of its own, which no other marker is a part of;
   * its name read back, and the status context it makes */
  bpi_buf_reset(&m);
  bpi_comment_marker(&m, "p", "t", "bench a-->");
  bpi_buf_addc(&m, '\0');
  CHECK_EQ_STR(m.data, "<!-- benchprof:comment p/t suite=bench_a--_ -->");
  CHECK(strstr(m.data, "<!-- benchprof:comment p/t -->") == NULL);
  found = bpi_comment_find_marker(m.data);
  CHECK_EQ_STR(found, m.data);
  char *suite = bpi_comment_marker_suite(found);
  CHECK_EQ_STR(suite, "bench_a--_");
  free(suite);
  free(found);
  bool nomem = true;
  char *ctx = bpi_comment_status_context(m.data, &nomem);
  CHECK_EQ_STR(ctx, "benchprof/bench_a--_");
  CHECK(!nomem);
  free(ctx);
  CHECK(bpi_comment_status_context("<!-- benchprof:comment p/t -->\nx",
                                   &nomem) == NULL && !nomem);
  CHECK(bpi_comment_marker_suite("<!-- benchprof:comment p/t -->") == NULL);
  bpi_buf_reset(&m);
  bpi_comment_marker(&m, "p", "t", "");   /* "": none, the marker of old */
  bpi_buf_addc(&m, '\0');
  CHECK_EQ_STR(m.data, "<!-- benchprof:comment p/t -->");
  bpi_buf_cleanup(&m);
}

/* ------------------------------------------------------------ the cut */

static struct bp_cmp_measure *measures(double base, double head)
{
  struct bp_cmp_measure *m = calloc(1, sizeof(*m));
  m->slug = strdup("latency");
  m->in_base = m->in_head = true;
  m->base = base;
  m->head = head;
  /* repeatable runs: +-1% bounds, so a change beyond 4% is confirmed
   * (its interval, between the bounds' far ends, then clears 2%) */
  m->vbase = (struct bp_cmp_values){.has_bounds = true, .lower = base * 0.99,
                                    .upper = base * 1.01};
  m->vhead = (struct bp_cmp_values){.has_bounds = true, .lower = head * 0.99,
                                    .upper = head * 1.01};
  bpi_compare_measure(m, 2);
  return m;
}

/* n benchmarks; the first `changed` regress, by less and less, the
 * rest are unchanged; each has nfuncs changed functions. */
static struct bp_cmp *synthetic(size_t n, size_t changed, size_t nfuncs,
                                const char *name_prefix)
{
  struct bp_cmp *c = calloc(1, sizeof(*c));
  c->threshold_pct = 2;
  c->benches = calloc(n, sizeof(*c->benches));
  c->nbenches = n;
  for(size_t i = 0; i < n; i++) {
    struct bp_cmp_bench *b = &c->benches[i];
    char name[256];
    snprintf(name, sizeof(name), "%s%zu", name_prefix, i);
    b->name = strdup(name);
    b->dir = strdup(name);
    b->measures = measures(100, i < changed ? 105 + 100.0 / (double)(i + 1) :
                           100);
    b->nmeasures = 1;
    b->flag = b->measures->flag;
    if(b->flag) {
      b->max = b->measures;
      b->max_slug = b->measures->slug;
      b->max_pct = b->measures->pct;
      c->nregressions++;
    }
    else
      c->nunchanged++;
    b->funcs = calloc(nfuncs ? nfuncs : 1, sizeof(*b->funcs));
    b->nfuncs = nfuncs;
    for(size_t j = 0; j < nfuncs; j++) {
      snprintf(name, sizeof(name), "function_%zu_with_a_longish_name", j);
      b->funcs[j].name = strdup(name);
      b->funcs[j].base_self = b->funcs[j].base_total = 10;
      b->funcs[j].head_self = b->funcs[j].head_total = 20;
      b->funcs[j].d_self = b->funcs[j].d_total = 10.0 - (double)j;
    }
    b->base.samples = b->head.samples = 100;
    /* profiled on both sides (presence BP_CMP_BOTH): it has diffs */
    b->base.dir = strdup(b->name);
    b->head.dir = strdup(b->name);
  }
  return c;
}

static size_t count(const char *s, const char *what)
{
  size_t n = 0;
  for(const char *p = strstr(s, what); p; p = strstr(p + 1, what))
    n++;
  return n;
}

/* A store that needs credentials to read, with no public URL: one note
 * for the whole comment says why nothing is linked, and no benchmark
 * repeats it; a store without web URLs that is not such a store says
 * "No viewer links" once for the comment too, after the benchmarks, and
 * the benchmarks' details end without it. */
static void test_private_store_said_once(void)
{
  struct bp_comment_opts o = {.project = "p", .testbed = "t"};
  struct bp_err err = {0};
  struct bp_buf b;
  bpi_buf_init(&b);
  struct bp_cmp *c = synthetic(3, 1, 2, "bench");

  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK_EQ_INT(count(b.data, "_No viewer links"), 1);
  /* after every benchmark: the comment's last line here */
  const char *note = "\n_No viewer links: the profiles have no web (http or "
                     "https) URL; publish them to a store with a public URL "
                     "(store.public_url, --public-url) or give compare "
                     "--base-url and --head-url._\n";
  CHECK(b.len > strlen(note) &&
        !strcmp(b.data + b.len - 1 - strlen(note), note));
  CHECK(!strstr(b.data, "_\n\n</details>"));
  CHECK(!strstr(b.data, "needs credentials"));

  o.private_store = "s3://bkt/runs";
  bpi_buf_reset(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(!strstr(b.data, "_No viewer links"));
  CHECK_EQ_INT(count(b.data, "needs credentials to read"), 1);
  CHECK(strstr(b.data, "store (`s3://bkt/runs`)"));
  bpi_compare_free(c);
  bpi_buf_cleanup(&b);
}

static void test_cut(void)
{
  struct bp_comment_opts o = {.project = "p", .testbed = "t"};
  struct bp_err err = {0};
  struct bp_buf b;
  bpi_buf_init(&b);

  /* small: everything, no note */
  struct bp_cmp *c = synthetic(3, 1, 2, "bench");
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(!strncmp(b.data, "<!-- benchprof:comment p/t -->\n", 31));
  CHECK(strstr(b.data, "\n### benchprof: 🔴 1 regression confirmed, 0 "
               "unconfirmed; 0 improvements confirmed, 0 unconfirmed; 2 "
               "unchanged\n"));
  CHECK(strstr(b.data, "\n**1 regression confirmed, 0 unconfirmed**, worst: "
               "**bench0** latency +105.00% (+101.95% to +108.05%) "
               "(regression)\n"));
  CHECK(strstr(b.data, "Comparing `head` (commit unknown) with `base`"));
  CHECK(strstr(b.data, "| latency | 100 ns | 205 ns | +105 ns (+105.00%, "
               "+101.95% to +108.05%) 🔴 regression |"));
  CHECK_EQ_INT(count(b.data, "#### "), 3);
  /* the summary table first, every benchmark a row with its key measure
   * and change, unchanged too; details collapsed, the unchanged ones in
   * one block */
  CHECK(strstr(b.data, "| Benchmark | Measure | Change | Verdict |\n"
               "|:--|:--|--:|:--|\n| bench0 | latency | +105.00% (+101.95% "
               "to +108.05%) | 🔴 regression |\n| bench1 | latency | +0.00% "
               "(-2.00% to +2.00%) | unchanged |\n"));
  CHECK(strstr(b.data, "| Benchmark |") < strstr(b.data, "#### "));
  CHECK_EQ_INT(count(b.data, "<details><summary>measures, functions and "
                     "links</summary>"), 3);
  CHECK(strstr(b.data, "<details><summary>2 benchmarks without a confirmed "
               "change</summary>\n\n#### bench1: unchanged"));
  CHECK_EQ_INT(count(b.data, "<details>"), count(b.data, "</details>"));
  CHECK(!strstr(b.data, "Left out"));
  CHECK(strstr(b.data, "\n🔴 Grew most: **function_0_with_a_"
               "longish_name** (self +10.00, total +10.00 points)\n"));
  CHECK(strstr(b.data, "_No viewer links"));
  bpi_compare_free(c);

  /* 2000 changed + 2000 unchanged benchmarks with 10 functions each:
   * the unchanged benchmarks' details and rows, then every changed one's
   * details, then the rows of the least changed; the largest changes
   * stay */
  c = synthetic(4000, 2000, 10, "benchmark/with/a/path/");
  bpi_buf_reset(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  CHECK(b.len <= BP_COMMENT_MAX_CHARS);
  CHECK(b.len > BP_COMMENT_MAX_CHARS - 200);   /* it is filled */
  bpi_buf_addc(&b, '\0');
  CHECK_EQ_INT(count(b.data, "#### "), 0);
  size_t shown = count(b.data, "\n| benchmark/with/a/path/");
  CHECK(shown > 10 && shown < 2000);
  char note[500];
  snprintf(note, sizeof(note), "_Left out to stay under 65536 characters: "
           "the details of all %zu benchmarks in the table (%zu of them "
           "beyond the threshold, %zu of those confirmed); the table rows "
           "of the %zu least changed benchmarks (%zu of them beyond the "
           "threshold, %zu of those confirmed)._ `compare.json` (beside "
           "this comment in the comparison's output) has them all", shown,
           shown, shown, 4000 - shown, 2000 - shown, 2000 - shown);
  CHECK(strstr(b.data, note) != NULL);
  if(!strstr(b.data, note))
    fprintf(stderr, "note missing: %s\n", strstr(b.data, "_Left out") ?
            strstr(b.data, "_Left out") : "(none)");
  /* a run's comparison, posted: compare.json is in the run's compare/
   * folder on the runner, nothing is beside a posted comment */
  struct bp_comment_opts run_o = o;
  run_o.run_output = true;
  bpi_buf_reset(&b);
  CHECK(bpi_comment_markdown(c, &run_o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "._ `compare/compare.json` (in the run's output "
               "directory, on the runner that ran the job) has them all"));
  CHECK(!strstr(b.data, "beside this comment in the comparison's output"));
  bpi_buf_reset(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  /* the kept ones are the largest changes */
  char last[64];
  snprintf(last, sizeof(last), "\n| benchmark/with/a/path/%zu |", shown - 1);
  CHECK(strstr(b.data, last) != NULL);
  snprintf(last, sizeof(last), "\n| benchmark/with/a/path/%zu |", shown);
  CHECK(!strstr(b.data, last));
  bpi_compare_free(c);

  /* only the unchanged benchmarks' details need to go: every row stays,
   * the changed keep their details and function rows */
  c = synthetic(600, 5, 3, "b");
  bpi_buf_reset(&b);
  o.max_chars = 41000;
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  CHECK(b.len <= 41000);
  bpi_buf_addc(&b, '\0');
  CHECK_EQ_INT(count(b.data, "\n| b"), 600);
  CHECK_EQ_INT(count(b.data, "#### "), 5);
  CHECK_EQ_INT(count(b.data, "Functions whose share"), 5);
  CHECK(strstr(b.data, "the details of the 595 least changed benchmarks in "
               "the table (none beyond the threshold)._") != NULL);
  CHECK(!strstr(b.data, "function row"));
  bpi_compare_free(c);

  /* too small for every row: the unchanged benchmarks' rows go before
   * the changed ones' details, which say why they changed */
  c = synthetic(600, 5, 3, "b");
  bpi_buf_reset(&b);
  o.max_chars = 20000;
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  CHECK(b.len <= 20000);
  bpi_buf_addc(&b, '\0');
  size_t rows = count(b.data, "\n| b");
  CHECK(rows > 5 && rows < 600);
  CHECK_EQ_INT(count(b.data, "#### "), 5);
  CHECK_EQ_INT(count(b.data, "Functions whose share"), 5);
  bpi_compare_free(c);

  /* function rows go first, the least changed benchmarks' first */
  c = synthetic(20, 20, 10, "bench");
  o.max_chars = 0;
  bpi_buf_reset(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  size_t full = b.len;
  o.max_chars = full - 3000;
  bpi_buf_reset(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  CHECK(b.len <= full - 3000);
  bpi_buf_addc(&b, '\0');
  CHECK_EQ_INT(count(b.data, "\n| bench"), 20);
  CHECK_EQ_INT(count(b.data, "#### "), 20);
  size_t tables = count(b.data, "Functions whose share");
  CHECK(tables > 0 && tables < 20);
  /* bench0..: each function table lies before the next benchmark's heading */
  char heading[64];
  snprintf(heading, sizeof(heading), "#### 🔴 bench%zu: ", tables);
  const char *first_cut = strstr(b.data, heading);
  CHECK(first_cut && !strstr(first_cut, "Functions whose share"));
  snprintf(note, sizeof(note), "_Left out to stay under %zu characters: %zu "
           "function rows of %zu benchmarks._", full - 3000,
           (20 - tables) * 10, 20 - tables);
  CHECK(strstr(b.data, note) != NULL);
  CHECK(strstr(first_cut ? first_cut : "", "Grew most: **function_0_"));
  bpi_compare_free(c);
  bpi_buf_cleanup(&b);
}

/* n benchmarks with one value a side, each slower on the head (by less
 * and less: compare's order), unconfirmed regressions all, 10 functions
 * each: what a suite of single runs of a 2x slower head gives. */
static struct bp_cmp *unconfirmed_suite(size_t n)
{
  struct bp_cmp *c = synthetic(n, 0, 10, "unconf");
  for(size_t i = 0; i < n; i++) {
    struct bp_cmp_bench *b = &c->benches[i];
    struct bp_cmp_measure *m = b->measures;
    m->head = 200 + (double)(n - i);
    m->vbase.has_bounds = m->vhead.has_bounds = false;
    bpi_compare_measure(m, 2);
    b->unconfirmed = BP_CMP_REGRESSION;
    b->max = m;
    b->max_slug = m->slug;
    b->max_pct = m->pct;
  }
  c->nunconfirmed = n;
  return c;
}

/* A large suite of unconfirmed changes degrades row by row: the table
 * keeps as many rows as fit, the largest changes, and the note says what
 * went. */
/* comment.max_functions / compare -n: N rows, 10 by default, none for
 * no_functions (the "Grew most" line stays). */
static void test_function_rows(void)
{
  struct bp_err err = {0};
  struct bp_buf b;
  bpi_buf_init(&b);
  struct bp_cmp *c = synthetic(1, 1, 12, "bench");
  struct {
    struct bp_comment_opts o;
    size_t rows;
  } cases[] = {
    {{.project = "p", .testbed = "t"}, BP_CMP_FUNCTIONS_DEFAULT},
    {{.project = "p", .testbed = "t", .max_functions = 3}, 3},
    {{.project = "p", .testbed = "t", .max_functions = 3,
      .no_functions = true}, 0},
  };
  for(size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    bpi_buf_reset(&b);
    CHECK(bpi_comment_markdown(c, &cases[i].o, &b, &err) == BP_OK);
    bpi_buf_addc(&b, '\0');
    CHECK_EQ_INT(count(b.data, "\n| function_"), cases[i].rows);
    CHECK_EQ_INT(count(b.data, "changed most:"), cases[i].rows ? 1 : 0);
    CHECK(strstr(b.data, "Grew most: **function_0_with_a_longish_name**"));
    /* a table cut says how much of it is shown, and where the rest is
     * (10 changed: function_10's change is 0, the end of the table) */
    char note[64];
    snprintf(note, sizeof(note), "_%zu of 10 shown (all in `compare.json`)"
             "._", cases[i].rows);
    CHECK_EQ_INT(count(b.data, note), cases[i].rows == 3 ? 1 : 0);
    CHECK_EQ_INT(count(b.data, " shown (all in"), cases[i].rows == 3 ? 1 : 0);
  }
  bpi_compare_free(c);
  bpi_buf_cleanup(&b);
}

/* With costs: twelve functions grew, the largest first, and one shrank
 * less than any of them: a table of 10 rows still shows the one named
 * "shrank most" (in place of the 10th that grew), and says 10 of 13. */
static void test_function_rows_name_tops(void)
{
  struct bp_err err = {0};
  struct bp_buf b;
  bpi_buf_init(&b);
  struct bp_cmp *c = synthetic(1, 1, 13, "bench");
  struct bp_cmp_bench *cb = &c->benches[0];
  cb->has_cost = true;
  cb->unit = "ns";
  for(size_t j = 0; j < 13; j++) {
    struct bp_cmp_func *f = &cb->funcs[j];
    double d = j < 12 ? 1e6 * (double)(20 - j) : -1e6;
    f->base_self_cost = f->base_total_cost = 1e7;
    f->head_self_cost = f->head_total_cost = 1e7 + d;
    f->d_self_cost = f->d_total_cost = d;
    f->self_half = f->total_half = 1e5;
    f->self_significant = f->total_significant = true;
  }
  struct bp_comment_opts o = {.project = "p", .testbed = "t"};
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "shrank most: **function_12_with_a_longish_name**"));
  CHECK_EQ_INT(count(b.data, "\n| function_"), 10);
  CHECK(strstr(b.data, "\n| function_12_with_a_longish_name |"));
  CHECK(strstr(b.data, "\n| function_8_with_a_longish_name |"));
  CHECK(!strstr(b.data, "\n| function_9_with_a_longish_name |"));
  CHECK(strstr(b.data, "_10 of 13 shown (all in `compare.json`)._"));
  bpi_compare_free(c);
  bpi_buf_cleanup(&b);
}

static void test_cut_unconfirmed(void)
{
  static const size_t sizes[] = {150, 500, 2000};
  struct bp_comment_opts o = {.project = "p", .testbed = "t"};
  struct bp_err err = {0};
  struct bp_buf b;
  bpi_buf_init(&b);
  for(size_t k = 0; k < sizeof(sizes) / sizeof(*sizes); k++) {
    size_t n = sizes[k];
    struct bp_cmp *c = unconfirmed_suite(n);
    char want[300];
    bpi_buf_reset(&b);
    CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
    CHECK(b.len <= BP_COMMENT_MAX_CHARS);
    CHECK(b.len > BP_COMMENT_MAX_CHARS - 1000);
    bpi_buf_addc(&b, '\0');
    snprintf(want, sizeof(want), "### benchprof: 0 regressions confirmed, "
             "%zu unconfirmed; 0 improvements confirmed, 0 unconfirmed; 0 "
             "unchanged\n", n);
    CHECK(strstr(b.data, want) != NULL);
    CHECK(strstr(b.data, "| Benchmark | Measure | Change | Verdict |\n"));
    size_t rows = count(b.data, "\n| unconf");
    /* 500 rows fit (with no details), 2000 do not */
    CHECK(n < 2000 ? rows == n : rows > 500 && rows < n);
    snprintf(want, sizeof(want), "\n| unconf0 | latency | +%zu.00%% | "
             "_unconfirmed regression (single run)_ |\n", 100 + n);
    CHECK(strstr(b.data, want) != NULL);
    snprintf(want, sizeof(want), "\n| unconf%zu |", rows - 1);
    CHECK(strstr(b.data, want) != NULL);
    snprintf(want, sizeof(want), "\n| unconf%zu |", rows);
    CHECK(!strstr(b.data, want));
    if(rows < n)
      snprintf(want, sizeof(want), "the details of all %zu benchmarks in "
               "the table (%zu of them beyond the threshold, 0 of those "
               "confirmed); the table rows of the %zu least changed "
               "benchmarks (%zu of them beyond the threshold, 0 of those "
               "confirmed)._", rows, rows, n - rows, n - rows);
    else {
      size_t details = count(b.data, "#### ");
      snprintf(want, sizeof(want), "<details><summary>%zu of the %zu "
               "benchmarks without a confirmed change</summary>", details, n);
      CHECK(details > 0 && strstr(b.data, want) != NULL);
      snprintf(want, sizeof(want), "the details of the %zu least changed "
               "benchmarks in the table (%zu of them beyond the threshold, 0 "
               "of those confirmed)._", n - details, n - details);
    }
    CHECK(strstr(b.data, want) != NULL);
    if(!strstr(b.data, want))
      fprintf(stderr, "%zu: note: %s\n", n, strstr(b.data, "_Left out") ?
              strstr(b.data, "_Left out") : "(none)");
    bpi_compare_free(c);
  }
  bpi_buf_cleanup(&b);
}

/* The verdict line and the rows: a confirmed regression heads it with
 * its own polarity although a larger improvement is there; a change
 * with one value a side is unconfirmed, softer, and not counted. */
static void test_verdict(void)
{
  struct bp_comment_opts o = {.project = "p", .testbed = "t"};
  struct bp_err err = {0};
  struct bp_buf b;
  bpi_buf_init(&b);
  struct bp_cmp *c = synthetic(2, 0, 0, "b");
  /* b0: latency -80% and task-clock +43%, both confirmed */
  struct bp_cmp_bench *b0 = &c->benches[0];
  free(b0->measures->slug);
  free(b0->measures);
  b0->measures = calloc(2, sizeof(*b0->measures));
  b0->nmeasures = 2;
  const char *slugs[2] = {"latency", "task-clock"};
  double vals[2][2] = {{1000, 200}, {100, 143}};
  for(int i = 0; i < 2; i++) {
    struct bp_cmp_measure *m = &b0->measures[i];
    m->slug = strdup(slugs[i]);
    m->in_base = m->in_head = true;
    m->base = vals[i][0];
    m->head = vals[i][1];
    m->vbase = (struct bp_cmp_values){true, m->base * 0.99, m->base * 1.01,
                                      NULL, 0};
    m->vhead = (struct bp_cmp_values){true, m->head * 0.99, m->head * 1.01,
                                      NULL, 0};
    bpi_compare_measure(m, 2);
  }
  b0->flag = BP_CMP_REGRESSION;          /* as compare.c decides it */
  b0->max = &b0->measures[1];
  b0->max_slug = b0->max->slug;
  b0->max_pct = b0->max->pct;
  /* b1: +10% latency, one value a side */
  struct bp_cmp_bench *b1 = &c->benches[1];
  b1->measures->head = 110;
  b1->measures->vbase.has_bounds = b1->measures->vhead.has_bounds = false;
  bpi_compare_measure(b1->measures, 2);
  b1->unconfirmed = BP_CMP_REGRESSION;
  b1->max = b1->measures;
  b1->max_slug = b1->max->slug;
  b1->max_pct = b1->max->pct;
  c->nregressions = 1;
  c->nunchanged = 1;
  c->nunconfirmed = 1;
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "### benchprof: 🔴 1 regression confirmed, 1 "
               "unconfirmed; 0 improvements confirmed, 0 unconfirmed; 0 "
               "unchanged\n"));
  CHECK(strstr(b.data, "**1 regression confirmed, 1 unconfirmed**, worst: "
               "**b0** task-clock +43.00% ("));
  CHECK(strstr(b.data, "#### 🔴 b0: task-clock +43.00%\n"));
  CHECK(strstr(b.data, "| latency | 1 µs | 200 ns | -800 ns (-80.00%, ") &&
        strstr(b.data, "🟢 improvement |"));
  CHECK(strstr(b.data, "#### b1: latency +10.00% (unconfirmed)\n"));
  CHECK(strstr(b.data, "+10 ns (+10.00%) _unconfirmed regression (single "
               "run)_ |"));
  CHECK(strstr(b.data, "run with `--repeat 5`"));
  bpi_compare_free(c);
  bpi_buf_cleanup(&b);
}

/* m judged again with the given repetitions on each side (owned by m). */
static void with_reps(struct bp_cmp_measure *m, const double *base,
                      const double *head, size_t n)
{
  m->vbase.reps = malloc(n * sizeof(double));
  m->vhead.reps = malloc(n * sizeof(double));
  memcpy(m->vbase.reps, base, n * sizeof(double));
  memcpy(m->vhead.reps, head, n * sizeof(double));
  m->vbase.nreps = m->vhead.nreps = n;
  bpi_compare_measure(m, 2);
}

/* bench's key measure and verdict as compare.c picks them. */
static void unconfirmed_key(struct bp_cmp_bench *b)
{
  b->unconfirmed = b->measures->change;
  b->max = b->measures;
  b->max_slug = b->max->slug;
  b->max_pct = b->max->pct;
}

/* md has what, else it is printed to show why not. */
static bool has(const char *md, const char *what)
{
  if(strstr(md, what))
    return true;
  fprintf(stderr, "missing \"%s\" in:\n%s\n", what, md);
  return false;
}

static char *render_md(const struct bp_cmp *c)
{
  struct bp_comment_opts o = {.project = "p", .testbed = "t"};
  struct bp_err err = {0};
  struct bp_buf b;
  bpi_buf_init(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  return b.data;
}

/* A change beyond the threshold that is not confirmed is "within noise"
 * only when its interval holds 0; one that leaves 0 out (the sides
 * differ) but reaches inside the threshold is "not confirmed beyond 2%",
 * in the summary row, the heading and the measure's row alike, and
 * still counts as unchanged. */
static void test_not_confirmed_words(void)
{
  struct bp_cmp *c = synthetic(2, 0, 0, "n");
  /* n0: +40%, interval +1% to +61% (bounds): 0 left out, 2% not cleared */
  struct bp_cmp_measure *m = c->benches[0].measures;
  m->head = 140;
  m->vbase = (struct bp_cmp_values){true, 99, 101, NULL, 0};
  m->vhead = (struct bp_cmp_values){true, 102, 160, NULL, 0};
  bpi_compare_measure(m, 2);
  CHECK(m->change == BP_CMP_REGRESSION && !m->flag && !m->unconfirmed);
  /* n1: -12.58%, interval -18.94% to -1.5%: an improvement, likewise */
  m = c->benches[1].measures;
  m->head = 87.42;
  m->vbase = (struct bp_cmp_values){true, 98, 101.5, NULL, 0};
  m->vhead = (struct bp_cmp_values){true, 82.56, 96.5, NULL, 0};
  bpi_compare_measure(m, 2);
  CHECK(m->change == BP_CMP_IMPROVEMENT && !m->flag && !m->unconfirmed);
  char *md = render_md(c);
  CHECK(has(md, "| n0 | latency | +40.00% (+1.00% to +61.00%) | not "
            "confirmed beyond 2% |\n"));
  CHECK(has(md, "| n1 | latency | -12.58% (-18.94% to -1.50%) | not "
            "confirmed beyond 2% |\n"));
  CHECK(has(md, "#### n0: latency +40.00% (not confirmed beyond 2%)\n"));
  CHECK(has(md, "(+40.00%, +1.00% to +61.00%) not confirmed beyond 2% |"));
  CHECK(!strstr(md, "within noise"));
  CHECK(has(md, "; 2 unchanged\n"));
  free(md);
  bpi_compare_free(c);
}

/* Costs for b's two functions: the first +41.7 ms ± half a run from a
 * base of 20 ms, the second -1 ms ± 2 ms; neither named (the band
 * covers them), the band task-clock's interval, +0% to +69%. */
static void unnamed_funcs(struct bp_cmp_bench *b, double half)
{
  b->has_cost = true;
  b->unit = "ns";
  b->band = (struct bp_cmp_band){0, 0.69, BP_CMP_BAND_INTERVAL,
                                 "task-clock"};
  b->funcs[0].base_self_cost = 20e6;
  b->funcs[0].d_self_cost = 41.7e6;
  b->funcs[0].self_half = half;
  b->funcs[1].base_self_cost = 10e6;
  b->funcs[1].d_self_cost = -1e6;
  b->funcs[1].self_half = 2e6;
  for(size_t i = 0; i < 2; i++) {
    b->funcs[i].base_total_cost = b->funcs[i].base_self_cost;
    b->funcs[i].d_total_cost = b->funcs[i].d_self_cost;
    b->funcs[i].total_half = b->funcs[i].self_half;
  }
}

/* A benchmark beyond the threshold that names no function says why in
 * one line: the noise band, the sampling's noise, or no samples; so does
 * a change beyond the threshold within the noise (r5: +13.67%, -7% to
 * +30%); one that names a function, or is within the threshold, has no
 * such line. */
static void test_no_function_reason(void)
{
  struct bp_cmp *c = synthetic(7, 4, 2, "r");
  struct bp_cmp_measure *m = c->benches[5].measures;
  m->head = 113.67;
  m->vbase = (struct bp_cmp_values){true, 95, 105, NULL, 0};
  m->vhead = (struct bp_cmp_values){true, 98, 125, NULL, 0};
  bpi_compare_measure(m, 2);
  CHECK(m->change == BP_CMP_REGRESSION && !m->flag && !m->unconfirmed);
  unnamed_funcs(&c->benches[5], 30.8e6);
  unnamed_funcs(&c->benches[6], 30.8e6);   /* within the threshold */
  unnamed_funcs(&c->benches[0], 30.8e6);   /* beyond 0, within the band */
  unnamed_funcs(&c->benches[1], 50e6);     /* its interval holds 0 */
  c->benches[1].base.samples = 40;
  c->benches[1].head.samples = 90;
  unnamed_funcs(&c->benches[2], 30.8e6);
  c->benches[2].base.samples = 0;          /* nothing sampled */
  /* r3 names its function by share; r4 is unchanged */
  char *md = render_md(c);
  CHECK(has(md, "\nNo function is named: no function's change is beyond "
            "this benchmark's noise band (task-clock's interval, +0.0% to "
            "+69.0%): the largest, `function_0_with_a_longish_name`, self "
            "+41.7 ms \xc2\xb1 30.8 ms per run.\n"));
  CHECK(has(md, "\nNo function is named: no function's change is beyond "
            "the sampling's own noise (40 samples in the base's profile, 90 "
            "in the head's): the largest, "
            "`function_0_with_a_longish_name`, self +41.7 ms \xc2\xb1 50 ms "
            "per run.\n"));
  CHECK(has(md, "\nNo function is named: too few samples to compare "
            "functions (0 in the base's profile, 100 in the head's).\n"));
  CHECK(has(md, "#### r5: latency +13.67% (within noise)\n"));
  const char *r5 = strstr(md, "#### r5:");
  CHECK(r5 && has(r5, "\nNo function is named: no function's change is "
                  "beyond this benchmark's noise band (task-clock's "
                  "interval, +0.0% to +69.0%): the largest, "
                  "`function_0_with_a_longish_name`, self +41.7 ms \xc2\xb1 "
                  "30.8 ms per run.\n"));
  CHECK_EQ_INT(count(md, "No function is named"), 4);
  CHECK(has(md, "Grew most: **function_0_with_a_longish_name** (self "
            "+10.00"));
  free(md);
  bpi_compare_free(c);
}

/* The machine's interrupt handling ([interrupts], kernel) is never what
 * grew most, by cost or by share, nor the largest change a "No function
 * is named" line gives: the largest other function is, with "(kernel)"
 * after a kernel function's name; the interrupts' change is its own
 * line. */
static void test_interrupts_not_named(void)
{
  struct bp_cmp *c = synthetic(2, 2, 3, "k");
  for(size_t i = 0; i < 2; i++) {
    struct bp_cmp_func *f = c->benches[i].funcs;
    free(f[0].name);
    f[0].name = strdup("[interrupts]");
    f[0].kernel = f[0].interrupts = true;
    free(f[1].name);
    f[1].name = strdup("ksys_write");
    f[1].kernel = true;
  }
  /* k0 by cost: [interrupts] +300 ms, beyond its noise; ksys_write +41.7
   * ms, within the band */
  struct bp_cmp_bench *b = &c->benches[0];
  unnamed_funcs(b, 30.8e6);
  struct bp_cmp_func *irq = &b->funcs[0], *w = &b->funcs[1];
  *w = (struct bp_cmp_func){.name = w->name, .kernel = true,
                            .base_self = 10, .head_self = 20,
                            .base_total = 10, .head_total = 20};
  w->base_self_cost = w->base_total_cost = 20e6;
  w->d_self_cost = w->d_total_cost = 41.7e6;
  w->self_half = w->total_half = 30.8e6;
  irq->base_self_cost = irq->base_total_cost = 100e6;
  irq->head_self_cost = irq->head_total_cost = 400e6;
  irq->d_self_cost = irq->d_total_cost = 300e6;
  irq->self_half = irq->total_half = 20e6;
  irq->self_significant = irq->total_significant = true;
  /* the third function keeps no cost: unchanged by cost */
  /* k1 by share: [interrupts] moved most (+10 points), ksys_write +9 */
  CHECK(bpi_compare_top_func(b, true) == NULL &&
        bpi_compare_interrupts(b) == irq);
  CHECK(bpi_compare_top_func(&c->benches[1], true) ==
        &c->benches[1].funcs[1]);
  char *md = render_md(c);
  const char *k0 = strstr(md, " k0: latency +"),
             *k1 = strstr(md, " k1: latency +");
  CHECK(k0 && k1 && has(k0, "\nNo function is named: no function's change "
                        "is beyond this benchmark's noise band "
                        "(task-clock's interval, +0.0% to +69.0%): the "
                        "largest, `ksys_write` (kernel), self +41.7 ms "
                        "\xc2\xb1 30.8 ms per run.\n\nThe machine's "
                        "interrupt handling (`[interrupts]`, kernel) grew: "
                        "+300 ms \xc2\xb1 20 ms per run. Interrupts take "
                        "the CPU from whatever runs, so the benchmark does "
                        "not control this time: it is not named as a "
                        "cause.\n"));
  CHECK(k1 && has(k1, "Grew most: **ksys_write** (kernel) (self +9.00, "
                  "total +9.00 points)\n\nThe machine's interrupt handling "
                  "(`[interrupts]`, kernel) grew: +10.00 points of the "
                  "samples."));
  CHECK(k1 && has(k1, "\n| ksys_write (kernel) | ") &&
        has(k1, "\n| \\[interrupts\\] (kernel) | "));
  CHECK(!strstr(md, "**[interrupts]**"));
  free(md);
  bpi_compare_free(c);
}

/* cb's measures: latency from 100 to wall, task-clock from 100 to cpu,
 * each with +-1% bounds (cpu_bounds false: one value a side), and with
 * off > 0 off-cpu from 100 to off (+-1% bounds), judged at 2%, and its
 * verdict as compare.c gives it (bpi_cmp_pick_max, cb->wall_time_counted
 * as set). */
static void wall_cpu_off(struct bp_cmp_bench *cb, double wall, double cpu,
                         bool cpu_bounds, double off)
{
  for(size_t i = 0; i < cb->nmeasures; i++)
    free(cb->measures[i].slug);
  free(cb->measures);
  cb->measures = calloc(3, sizeof(*cb->measures));
  cb->nmeasures = off > 0 ? 3 : 2;
  const char *slugs[] = {"latency", "task-clock", "off-cpu"};
  double heads[] = {wall, cpu, off};
  for(size_t i = 0; i < cb->nmeasures; i++) {
    struct bp_cmp_measure *m = &cb->measures[i];
    m->slug = strdup(slugs[i]);
    m->in_base = m->in_head = true;
    m->base = 100;
    m->head = heads[i];
    bool bounds = i != 1 || cpu_bounds;
    m->vbase = (struct bp_cmp_values){bounds, 99, 101, NULL, 0};
    m->vhead = (struct bp_cmp_values){bounds, heads[i] * 0.99,
                                      heads[i] * 1.01, NULL, 0};
    bpi_compare_measure(m, 2);
  }
  bpi_cmp_pick_max(cb);
}

static void wall_and_cpu(struct bp_cmp_bench *cb, double wall, double cpu,
                         bool cpu_bounds)
{
  wall_cpu_off(cb, wall, cpu, cpu_bounds, 0);
}

/* c's counts as compare.c makes them, after their verdicts changed. */
static void recount(struct bp_cmp *c)
{
  bpi_compare_count(c);
}

/* A confirmed wall-time regression (latency) that CPU time (task-clock)
 * does not explain gets a note in sight under its heading: the time went
 * waiting, and an off-CPU profile shows where.  It is not counted as a
 * confirmed regression but is "slower in wall time only" (orange): a
 * busier runner in one job looks the same.  When task-clock is a
 * confirmed regression too, if at most a small part of latency's rise,
 * the benchmark is a regression by task-clock, and the note says
 * latency's part is not.  No note when task-clock's interval reaches
 * half as far as latency's change, confirmed or not, or when it has one
 * value a side (no interval: nothing bounds it): those stay regressions
 * by latency. */
static void test_wall_time_note(void)
{
  struct bp_cmp *c = synthetic(6, 6, 0, "w");
  wall_and_cpu(&c->benches[4], 240, 101, false);   /* CPU single run */
  wall_and_cpu(&c->benches[5], 240, 110, true);    /* CPU +10%, confirmed */
  wall_and_cpu(&c->benches[0], 240, 101, true);    /* CPU unchanged */
  wall_and_cpu(&c->benches[1], 240, 200, true);    /* CPU +100%, confirmed */
  wall_and_cpu(&c->benches[2], 240, 200, false);   /* ... unconfirmed */
  wall_and_cpu(&c->benches[3], 140, 130, true);    /* CPU could explain */
  c->benches[3].measures[1].vhead.lower = 95;
  c->benches[3].measures[1].vhead.upper = 190;
  bpi_compare_measure(&c->benches[3].measures[1], 2);
  bpi_cmp_pick_max(&c->benches[3]);
  recount(c);
  CHECK(c->benches[0].flag == BP_CMP_UNCHANGED);
  CHECK(c->benches[0].wall_only == BP_CMP_REGRESSION);
  for(size_t i = 1; i < 6; i++)
    CHECK(c->benches[i].flag == BP_CMP_REGRESSION);
  CHECK_EQ_INT(c->nregressions, 5);
  CHECK_EQ_INT(c->nwall_slower, 1);
  char *md = render_md(c);
  CHECK(has(md, "### benchprof: \xf0\x9f\x94\xb4 5 regressions confirmed, 0 "
            "unconfirmed; 0 improvements confirmed, 0 unconfirmed; 1 slower "
            "in wall time only (CPU time unchanged: waiting, or a busier "
            "runner); 0 unchanged\n"));
  CHECK(has(md, "#### \xf0\x9f\x9f\xa0 w0: latency +140.00% (wall time only)"
            "\n\n_latency is "
            "wall-clock time, and task-clock (CPU time) is not a confirmed "
            "regression (+1.00%, -1.01% to +3.01%): latency rose by at "
            "least 136.6 ns, CPU time by at most 3.01 ns, so most of the "
            "extra time was not spent on the CPU but waiting (a loaded "
            "runner, locks, I/O, "
            "sleeping), which the CPU profile does not see. It is not "
            "counted as a confirmed regression: a busier runner in one job "
            "than in the other looks the same (`comment.wall_time_only: "
            "\"regression\"` counts it, for a dedicated, quiet runner); an "
            "off-CPU profile (`benchprof run --off-cpu` on both sides) shows "
            "where._\n\n<details>"));
  /* task-clock confirmed too, but at most 12.1 ns of the 136.6 ns: the
   * benchmark's regression is task-clock's, latency's part is not */
  CHECK(c->benches[5].measures[1].flag == BP_CMP_REGRESSION);
  CHECK(c->benches[5].measures[0].wall_only == BP_CMP_REGRESSION);
  CHECK(has(md, "#### \xf0\x9f\x94\xb4 w5: task-clock +10.00%\n\n_latency is "
            "wall-clock time, and task-clock (CPU time) is a confirmed "
            "regression too (+10.00%, +7.90% to +12.10%), but CPU time "
            "rose by at most 12.1 ns while latency rose "
            "by at least 136.6 ns, so most of the extra time was not spent "
            "on the CPU but waiting"));
  CHECK_EQ_INT(count(md, "_latency is wall-clock time"), 2);
  CHECK(has(md, "| w0 | latency | +140.00% (+136.60% to +143.40%) | "
            "\xf0\x9f\x9f\xa0 slower in wall time only |\n"));
  CHECK(has(md, "| w1 | latency | +140.00% (+136.60% to +143.40%) | "
            "\xf0\x9f\x94\xb4 regression |\n"));
  /* the verdict line keeps it apart from the confirmed ones */
  CHECK(has(md, "; \xf0\x9f\x9f\xa0 1 slower in wall time only, not counted "
            "(CPU time did not follow), largest: **w0** latency +140.00% "
            "(+136.60% to +143.40%)\n"));
  free(md);
  bpi_compare_free(c);
}

/* Only wall-time-only changes: the title is orange, not red, counts no
 * regression, and the improvement's mirror is "faster in wall time
 * only".  comment.wall_time_only "regression" (wall_time_counted) counts
 * them as before; and so does a confirmed rise of off-cpu, the blocked
 * time, which shows the waiting is the code's: the note says so. */
static void test_wall_time_only_counting(void)
{
  struct bp_cmp *c = synthetic(2, 2, 0, "v");
  wall_and_cpu(&c->benches[0], 240, 101, true);
  wall_and_cpu(&c->benches[1], 40, 100, true);
  recount(c);
  CHECK(c->benches[1].wall_only == BP_CMP_IMPROVEMENT);
  CHECK_EQ_INT(c->nregressions + c->nimprovements, 0);
  char *md = render_md(c);
  CHECK(has(md, "### benchprof: \xf0\x9f\x9f\xa0 0 regressions confirmed, 0 "
            "unconfirmed; 0 improvements confirmed, 0 unconfirmed; 1 slower, "
            "1 faster in wall time only (CPU time unchanged: waiting, or a "
            "busier runner); 0 unchanged\n"));
  CHECK(has(md, "| v1 | latency | -60.00% (-61.40% to -58.60%) | "
            "\xf0\x9f\x9f\xa0 faster in wall time only |\n"));
  CHECK(has(md, "_latency is wall-clock time, and task-clock (CPU time) is "
            "not a confirmed improvement (+0.00%, -2.00% to +2.00%): latency "
            "fell by at least 58.6 ns, CPU time by at most 2 ns, so most "
            "of the time saved was not CPU time but waiting (a less loaded "
            "runner, locks, I/O, sleeping), which the CPU profile does not "
            "see. It is not counted as a confirmed improvement"));
  free(md);

  /* the owner counts wall time */
  for(size_t i = 0; i < 2; i++) {
    c->benches[i].wall_time_counted = true;
    bpi_cmp_pick_max(&c->benches[i]);
  }
  recount(c);
  CHECK_EQ_INT(c->nregressions, 1);
  CHECK_EQ_INT(c->nimprovements, 1);
  CHECK_EQ_INT(c->nwall_slower + c->nwall_faster, 0);
  md = render_md(c);
  CHECK(has(md, "### benchprof: \xf0\x9f\x94\xb4 1 regression confirmed, 0 "
            "unconfirmed; 1 improvement confirmed, 0 unconfirmed; 0 "
            "unchanged\n"));
  CHECK(!strstr(md, "wall time only"));
  CHECK(has(md, "which the CPU profile does not see. The verdict stands "
            "(`comment.wall_time_only` is \"regression\"); an off-CPU"));
  free(md);
  bpi_compare_free(c);

  /* off-cpu +100% confirmed: the waiting is the code's, counted */
  c = synthetic(1, 1, 0, "o");
  wall_cpu_off(&c->benches[0], 240, 101, true, 200);
  recount(c);
  CHECK(c->benches[0].flag == BP_CMP_REGRESSION);
  CHECK(!c->benches[0].measures[0].wall_only);
  CHECK_EQ_INT(c->nregressions, 1);
  CHECK_EQ_INT(c->nwall_slower, 0);
  md = render_md(c);
  CHECK(has(md, "### benchprof: \xf0\x9f\x94\xb4 1 regression confirmed"));
  CHECK(has(md, "which the CPU profile does not see. The off-cpu measure "
            "(blocked time, preemption left out) is a confirmed regression "
            "too, so the waiting is the code's and the verdict stands; the "
            "off-CPU time below shows where._\n\n"));
  free(md);
  /* off-cpu unchanged: wall time only again */
  wall_cpu_off(&c->benches[0], 240, 101, true, 100);
  recount(c);
  CHECK(c->benches[0].wall_only == BP_CMP_REGRESSION);
  CHECK_EQ_INT(c->nregressions, 0);
  bpi_compare_free(c);
}

/* A note on unconfirmed changes names the measures it is about: under a
 * title that counts latency's change confirmed (from its bounds), the
 * note on task-clock's single run says it is task-clock's, so the two
 * never read as a contradiction.  Each measure is named once; past five,
 * the others are counted. */
static void test_notes_name_measures(void)
{
  struct bp_cmp *c = synthetic(1, 1, 0, "n");
  wall_and_cpu(&c->benches[0], 240, 200, false);
  CHECK(c->benches[0].flag == BP_CMP_REGRESSION);
  CHECK(c->benches[0].measures[1].unconfirmed);
  char *md = render_md(c);
  CHECK(has(md, "### benchprof: \xf0\x9f\x94\xb4 1 regression confirmed"));
  CHECK(has(md, "\n_task-clock has one value on a side: its change is "
            "unconfirmed (single run), beyond the threshold but with no "
            "spread to test it against; run with `--repeat 5` (or report "
            "bounds) to confirm or dismiss it._\n\n"));
  CHECK(!strstr(md, "_latency has"));
  free(md);
  bpi_compare_free(c);

  /* three benchmarks, two measures single-run: each named once */
  const char *slugs[] = {"cycles", "instructions", "cycles", "s3", "s4",
                         "s5", "s6", "s7"};
  c = synthetic(3, 0, 0, "m");
  for(size_t i = 0; i < 3; i++) {
    struct bp_cmp_measure *m = c->benches[i].measures;
    free(m->slug);
    m->slug = strdup(slugs[i]);
    m->head = 150;
    m->vbase.has_bounds = m->vhead.has_bounds = false;
    bpi_compare_measure(m, 2);
    unconfirmed_key(&c->benches[i]);
  }
  md = render_md(c);
  CHECK(has(md, "\n_cycles and instructions have one value on a side: "
            "their changes are unconfirmed (single run), beyond the "
            "threshold but with no spread to test them against; run with "
            "`--repeat 5` (or report bounds) to confirm or dismiss "
            "them._\n\n"));
  free(md);
  bpi_compare_free(c);

  /* seven measures: five named, the others counted */
  c = synthetic(8, 0, 0, "k");
  for(size_t i = 0; i < 8; i++) {
    struct bp_cmp_measure *m = c->benches[i].measures;
    free(m->slug);
    m->slug = strdup(slugs[i]);
    m->head = 150;
    with_reps(m, (double[]){99, 100, 101}, (double[]){149, 150, 151}, 3);
    unconfirmed_key(&c->benches[i]);
  }
  md = render_md(c);
  CHECK(has(md, "\n_cycles, instructions, s3, s4, s5 and 2 other measures "
            "have fewer than 5 repetitions on a side: their changes are "
            "unconfirmed (too few repetitions)"));
  CHECK(!strstr(md, "one value"));
  free(md);
  bpi_compare_free(c);
}

/* A single run's change in a benchmark another measure of which was
 * tested against spread is not counted (compare's verdict is the tested
 * measure's): with no confirmed change, the title counts the benchmark
 * unchanged, and the note says plainly that the change was not counted
 * instead of calling it unconfirmed.  Where the single run is the only
 * evidence, the usual note stays. */
static void test_notes_uncounted(void)
{
  struct bp_cmp *c = synthetic(2, 0, 0, "u");
  /* u0: latency within its bounds, task-clock +50% from one value a side */
  struct bp_cmp_bench *cb = &c->benches[0];
  wall_and_cpu(cb, 100, 150, false);
  cb->flag = cb->unconfirmed = BP_CMP_UNCHANGED;
  cb->max = NULL;
  cb->max_slug = NULL;
  cb->max_pct = 0;
  CHECK(cb->measures[1].unconfirmed &&
        bpi_compare_outweighed(cb, &cb->measures[1]));
  char *md = render_md(c);
  CHECK(has(md, "### benchprof: 0 regressions confirmed, 0 unconfirmed; 0 "
            "improvements confirmed, 0 unconfirmed; 2 unchanged\n"));
  CHECK(has(md, "\n_task-clock has one value on a side: its change is not "
            "counted in the verdict (single run), since another measure of the "
            "same benchmark was tested against spread and gives the verdict "
            "instead._\n\n"));
  CHECK(!strstr(md, "its change is unconfirmed"));
  CHECK(!strstr(md, "--repeat"));
  free(md);

  /* u1: latency +50% from one value a side, the only evidence: the usual
   * note, beside the one on u0's task-clock */
  struct bp_cmp_measure *m = c->benches[1].measures;
  m->head = 150;
  m->vbase.has_bounds = m->vhead.has_bounds = false;
  bpi_compare_measure(m, 2);
  unconfirmed_key(&c->benches[1]);
  c->nunconfirmed = 1;
  md = render_md(c);
  CHECK(has(md, "\n_latency has one value on a side: its change is "
            "unconfirmed (single run), beyond the threshold but with no "
            "spread to test it against; run with `--repeat 5` (or report "
            "bounds) to confirm or dismiss it._\n\n_task-clock has one "
            "value on a side: its change is not counted in the verdict "
            "(single run), since another measure"));
  CHECK_EQ_INT(count(md, "task-clock has"), 1);
  free(md);

  /* a confirmed regression beside it: the usual note (the title never
   * reads as contradicted), not the uncounted one */
  wall_and_cpu(cb, 240, 150, false);
  CHECK(cb->flag == BP_CMP_REGRESSION);
  md = render_md(c);
  CHECK(has(md, "_task-clock and latency have one value on a side: their "
            "changes are unconfirmed (single run)"));
  CHECK(!strstr(md, "not counted"));
  free(md);
  bpi_compare_free(c);
}

/* Every row shows its key measure and change, confirmed or not; the title
 * counts unconfirmed changes as such, not as unchanged; the note says why
 * each kind is unconfirmed. */
static void test_rows_and_notes(void)
{
  struct bp_comment_opts o = {.project = "p", .testbed = "t"};
  struct bp_err err = {0};
  struct bp_buf b;
  bpi_buf_init(&b);
  struct bp_cmp *c = synthetic(4, 0, 0, "b");
  /* b0: +50%, one value a side */
  struct bp_cmp_measure *m = c->benches[0].measures;
  m->head = 150;
  m->vbase.has_bounds = m->vhead.has_bounds = false;
  bpi_compare_measure(m, 2);
  unconfirmed_key(&c->benches[0]);
  /* b1: -50%, 3 repetitions a side: too few to confirm anything */
  m = c->benches[1].measures;
  m->head = 50;
  with_reps(m, (double[]){99, 100, 101}, (double[]){49, 50, 51}, 3);
  unconfirmed_key(&c->benches[1]);
  /* then, in compare's order (by name): one unchanged, one +20% within
   * the noise (bounds far apart) */
  free(c->benches[2].name);
  c->benches[2].name = strdup("a_same");
  free(c->benches[3].name);
  c->benches[3].name = strdup("z_noise");
  m = c->benches[3].measures;
  m->head = 120;
  m->vbase = (struct bp_cmp_values){true, 90, 130, NULL, 0};
  m->vhead = (struct bp_cmp_values){true, 105, 140, NULL, 0};
  bpi_compare_measure(m, 2);
  c->nunchanged = 4;
  c->nunconfirmed = 1;
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "\n### benchprof: 0 regressions confirmed, 1 "
               "unconfirmed; 0 improvements confirmed, 1 unconfirmed; 2 "
               "unchanged\n\n**0 regressions confirmed, 1 unconfirmed**"));
  /* the larger change within the threshold first */
  CHECK(strstr(b.data, "|:--|:--|--:|:--|\n"
               "| b0 | latency | +50.00% | _unconfirmed regression (single "
               "run)_ |\n"
               "| b1 | latency | -50.00% | _unconfirmed improvement (too few "
               "repetitions)_ |\n"
               "| z_noise | latency | +20.00% (-25.00% to +50.00%) | "
               "within noise |\n"
               "| a_same | latency | +0.00% (-2.00% to +2.00%) | "
               "unchanged |\n"));
  CHECK(strstr(b.data, "#### z_noise: latency +20.00% (within noise)\n"));
  CHECK(strstr(b.data, "#### a_same: unchanged\n"));
  /* each note names its measure */
  CHECK(strstr(b.data, "\n_latency has one value on a side: its change is "
               "unconfirmed (single run), beyond the threshold but with no "
               "spread to test it against; run with `--repeat 5` (or report "
               "bounds) to confirm or dismiss it._\n\n"));
  CHECK(strstr(b.data, "\n_latency has fewer than 5 repetitions on a side: "
               "its change is unconfirmed (too few repetitions), beyond the "
               "threshold but with so few no change can be confirmed at 99% "
               "confidence, however large; run with `--repeat 5` or more on "
               "both sides to confirm or dismiss it._\n\n"));
  bpi_compare_free(c);

  /* repetitions alone: no word of a single value */
  c = synthetic(1, 0, 0, "r");
  m = c->benches[0].measures;
  m->head = 200;
  with_reps(m, (double[]){99, 100, 101}, (double[]){199, 200, 201}, 3);
  unconfirmed_key(&c->benches[0]);
  c->nunconfirmed = c->nunchanged = 1;
  bpi_buf_reset(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "_unconfirmed regression (too few repetitions)_"));
  CHECK(strstr(b.data, "fewer than 5 repetitions on a side"));
  CHECK(!strstr(b.data, "one value"));
  bpi_compare_free(c);
  bpi_buf_cleanup(&b);
}

/* New benchmarks: a line each with the head's values, kept longer than
 * the unchanged benchmarks' details and rows; when they must go too,
 * their names stay and the note says so. */
static void test_cut_one_sided(void)
{
  struct bp_comment_opts o = {.project = "p", .testbed = "t"};
  struct bp_err err = {0};
  struct bp_buf b;
  struct bp_cmp *c = synthetic(30, 2, 3, "b");
  for(size_t i = 20; i < 30; i++) {
    c->benches[i].presence = BP_CMP_NEW;
    c->benches[i].measures->in_base = false;
    bpi_compare_measure(c->benches[i].measures, 2);
    c->nunchanged--;
    c->nnew++;
  }
  bpi_buf_init(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  size_t full = b.len;
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "\nNew benchmarks (not in base), as the head "
               "measured them:\n\n- **b20**: latency 100 ns\n- **b21**: "
               "latency 100 ns\n") != NULL);
  CHECK(!strstr(b.data, "Left out"));
  /* a little less room: the unchanged benchmarks' details go first */
  o.max_chars = full - 100;
  bpi_buf_reset(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "- **b29**: latency 100 ns\n") != NULL);
  CHECK(strstr(b.data, "_Left out") && !strstr(b.data, "the values of"));
  /* less and less: the values go once every unchanged row has gone,
   * before anything of the changed benchmarks */
  bool dropped = false;
  for(size_t max = full; max > 1000 && !dropped; max -= 50) {
    o.max_chars = max;
    bpi_buf_reset(&b);
    CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
    bpi_buf_addc(&b, '\0');
    dropped = !strstr(b.data, "as the head measured them");
  }
  CHECK(dropped);
  CHECK(strstr(b.data, "\nNew benchmarks (not in base): b20, b21, b22, b23, "
               "b24, b25, b26, b27, b28, b29\n") != NULL);
  CHECK(strstr(b.data, "the values of the new and removed benchmarks; the "
               "table rows of the 18 least changed benchmarks") != NULL);
  CHECK_EQ_INT(count(b.data, "\n| b"), 2);
  CHECK_EQ_INT(count(b.data, "#### "), 2);
  CHECK_EQ_INT(count(b.data, "Functions whose share"), 2);
  bpi_compare_free(c);
  bpi_buf_cleanup(&b);
}

/* Measures per iteration say so once: in the measures table's header
 * (a task-clock of 9.4 µs is one iteration's, not the run's CPU time),
 * and before a new benchmark's values; per run, nothing is added. */
static void test_per_iteration_words(void)
{
  struct bp_cmp *c = synthetic(3, 1, 0, "p");
  c->benches[0].measures->per_iteration = true;
  c->benches[2].presence = BP_CMP_NEW;
  c->benches[2].measures->in_base = false;
  c->benches[2].measures->per_iteration = true;
  bpi_compare_measure(c->benches[2].measures, 2);
  c->nunchanged--;
  c->nnew++;
  char *md = render_md(c);
  CHECK(has(md, "\n| Measure, per iteration | Base | Head | Change |\n"
            "|:--|--:|--:|--:|\n| latency | 100 ns | 205 ns |"));
  CHECK(has(md, "\n| Measure | Base | Head | Change |\n"
            "|:--|--:|--:|--:|\n| latency | 100 ns | 100 ns |"));
  CHECK(has(md, "\n- **p2**: per iteration: latency 100 ns\n"));
  CHECK_EQ_INT(count(md, "per iteration"), 2);
  free(md);
  bpi_compare_free(c);
}

/* A side without its profile: the benchmark's measures, the reason, no
 * function rows and no diff. */
static void test_profile_missing(void)
{
  struct bp_comment_opts o = {.compare_url = "https://c.example/cmp"};
  struct bp_err err = {0};
  struct bp_buf b;
  struct bp_cmp *c = synthetic(2, 2, 1, "bench");
  c->benches[1].base.state = BP_CMP_PROFILE_MISSING;
  c->benches[1].base.missing_file = strdup("bench1/profile.folded");
  for(size_t j = 0; j < c->benches[1].nfuncs; j++)
    free(c->benches[1].funcs[j].name);
  free(c->benches[1].funcs);
  c->benches[1].funcs = NULL;
  c->benches[1].nfuncs = 0;
  CHECK(bpi_compare_profile_missing(&c->benches[1]));
  CHECK(!bpi_compare_has_diff(&c->benches[1]));
  CHECK_EQ_INT(bpi_compare_ndiffs(c), 1);
  bpi_buf_init(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "\n_Compared by their measures only, without a "
               "function comparison or differential flame graph: bench1 "
               "(the base's profile is missing)._\n") != NULL);
  CHECK(strstr(b.data, "the base's profile is missing (its run names "
               "`bench1/profile.folded`, which is not there") != NULL);
  CHECK(strstr(b.data, "bench1/diff.svg") == NULL);
  CHECK(strstr(b.data, "(https://c.example/cmp/bench0/diff.svg)") != NULL);
  bpi_compare_free(c);
  bpi_buf_cleanup(&b);
}

/* A benchmark sampled on neither side has no diff: no link to one. */
static void test_no_samples_no_diff(void)
{
  struct bp_comment_opts o = {.compare_url = "https://c.example/cmp"};
  struct bp_err err = {0};
  struct bp_buf b;
  struct bp_cmp *c = synthetic(2, 2, 1, "bench");
  c->benches[1].base.samples = c->benches[1].head.samples = 0;
  bpi_buf_init(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "(https://c.example/cmp/bench0/diff.svg)") != NULL);
  CHECK(strstr(b.data, "#### 🔴 bench1") != NULL);
  CHECK(strstr(b.data, "bench1/diff.svg") == NULL);
  CHECK(!bpi_compare_has_diff(&c->benches[1]));
  c->benches[1].head.samples = 1;   /* sampled on one side: a diff */
  CHECK(bpi_compare_has_diff(&c->benches[1]));
  bpi_compare_free(c);
  bpi_buf_cleanup(&b);
}

static void test_hostile_comment(void)
{
  struct bp_comment_opts o = {.compare_url = "https://c.example/cmp"};
  struct bp_err err = {0};
  struct bp_buf b;
  struct bp_cmp *c = synthetic(1, 1, 1, "<script>|`x`](javascript:1)\n");
  free(c->benches[0].funcs[0].name);
  c->benches[0].funcs[0].name = strdup("evil<img>|*_");
  c->head.branch = strdup("feat`ure|x");
  c->base.branch = strdup("main");
  c->base.hash = strdup("0123456789abcdef");
  free(c->benches[0].dir);
  c->benches[0].dir = strdup("a b(c)");
  c->benches[0].base.gecko_url = strdup("https://s.example/b.json.gz");
  c->benches[0].head.gecko_url = strdup("javascript:alert(1)");
  bpi_buf_init(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(!unescaped(b.data, "<script") && !unescaped(b.data, "<img"));
  CHECK(!strstr(b.data, "javascript:alert"));
  CHECK(!unescaped(b.data, "](javascript"));
  CHECK(strstr(b.data, "\\<script\\>\\|\\`x\\`\\]"
               "(javascript:1) 0") != NULL);
  CHECK(strstr(b.data, "evil\\<img\\>\\|\\*\\_") != NULL);
  CHECK(strstr(b.data, "Comparing feat\\`ure\\|x (commit unknown) "
               "with `main` (`0123456`)") != NULL);
  /* one profile has no usable URL: no profiler links, the graph's is
   * encoded */
  CHECK(!strstr(b.data, "profiler.firefox.com"));
  CHECK(strstr(b.data, "(https://c.example/cmp/a%20b%28c%29/diff.svg)"));
  /* every line of a table is one row */
  for(const char *p = b.data; (p = strstr(p, "\n|")); p++) {
    const char *e = strchr(p + 1, '\n');
    CHECK(e && e[-1] == '|');
  }
  bpi_compare_free(c);
  bpi_buf_cleanup(&b);
}


/* Under --repeat the viewer links open one repetition a side (the median
 * by samples): the comment says which, beside the links, while the
 * tables cover all repetitions.  Not for one run a side, nor without
 * profiler links to say it of. */
static void test_link_repetition(void)
{
  struct bp_cmp *c = synthetic(3, 3, 0, "r");
  for(size_t i = 0; i < 3; i++) {
    struct bp_cmp_bench *cb = &c->benches[i];
    if(i < 2) {
      cb->base.gecko_url = strdup("https://s.example/b.json.gz");
      cb->head.gecko_url = strdup("https://s.example/h.json.gz");
    }
    cb->base.repeat = cb->head.repeat = i == 1 ? 1 : 5;
    cb->base.link_rep = i == 1 ? 0 : 2;
    cb->head.link_rep = i == 1 ? 0 : 5;
  }
  char *md = render_md(c);
  CHECK(has(md, "profiler.firefox.com"));
  CHECK(has(md, "\n_The Firefox Profiler links open one repetition a side, "
            "the median by samples (the base's 2 of 5, the head's 5 of 5); "
            "the tables cover all repetitions._\n"));
  CHECK_EQ_INT(count(md, "links open one repetition"), 1);
  free(md);
  bpi_compare_free(c);
}

/* ------------------------------------------------------ Bencher plots */

#define U_REPORT "0b6a3c2e-1f00-4a8e-9c1d-000000000001"
#define U_BRANCH "0b6a3c2e-1f00-4a8e-9c1d-000000000003"
#define U_HEAD "0b6a3c2e-1f00-4a8e-9c1d-000000000004"
#define U_TB "0b6a3c2e-1f00-4a8e-9c1d-000000000005"
#define U_BENCH "0b6a3c2e-1f00-4a8e-9c1d-00000000000a"
#define U_LAT "0b6a3c2e-1f00-4a8e-9c1d-0000000000c1"
#define U_CYC "0b6a3c2e-1f00-4a8e-9c1d-0000000000c2"
#define END_MS 1764446401250   /* 2025-11-29T20:00:01.250Z */
#define START_MS "1761854401250"   /* 30 days before */

static void test_plot_url(void)
{
  struct bp_comment_plot p = {
    .console = "https://bencher.dev/", .project = "my-proj",
    .branch = U_BRANCH, .head = U_HEAD, .testbed = U_TB,
    .benchmark = U_BENCH, .measure = U_LAT, .report = U_REPORT,
    .end_ms = END_MS,
  };
  struct bp_buf b;
  bpi_buf_init(&b);
  CHECK(bpi_comment_bencher_plot(&b, &p));
  bpi_buf_addc(&b, '\0');
  CHECK_EQ_STR(b.data, "https://bencher.dev/perf/my-proj?branches=" U_BRANCH
               "&heads=" U_HEAD "&testbeds=" U_TB "&benchmarks=" U_BENCH
               "&measures=" U_LAT "&start_time=" START_MS
               "&end_time=1764446401250&report=" U_REPORT);
  /* a self-hosted console; every value is escaped, whatever it holds */
  bpi_buf_reset(&b);
  p.console = "http://127.0.0.1:6610";
  p.project = "my proj/&x=y#z";
  p.branch = "a&b=c";
  p.report = "r?s t";
  CHECK(bpi_comment_bencher_plot(&b, &p));
  bpi_buf_addc(&b, '\0');
  CHECK_EQ_STR(b.data, "http://127.0.0.1:6610/perf/my%20proj%2F%26x%3Dy%23z"
               "?branches=a%26b%3Dc&heads=" U_HEAD "&testbeds=" U_TB
               "&benchmarks=" U_BENCH "&measures=" U_LAT "&start_time="
               START_MS "&end_time=1764446401250&report=r%3Fs%20t");
  /* no console: Bencher Cloud's */
  bpi_buf_reset(&b);
  p.console = NULL;
  CHECK(bpi_comment_bencher_plot(&b, &p));
  bpi_buf_addc(&b, '\0');
  CHECK(starts(b.data, "https://bencher.dev/perf/my%20proj"));
  /* any piece missing: nothing */
  for(size_t i = 0; i < 7; i++) {
    struct bp_comment_plot q = p;
    const char **pieces[] = {&q.project, &q.branch, &q.head, &q.testbed,
                             &q.benchmark, &q.measure, &q.report};
    bpi_buf_reset(&b);
    *pieces[i] = NULL;
    CHECK(!bpi_comment_bencher_plot(&b, &q) && b.len == 0);
    *pieces[i] = "";
    CHECK(!bpi_comment_bencher_plot(&b, &q) && b.len == 0);
  }
  struct bp_comment_plot q = p;
  q.end_ms = 0;
  bpi_buf_reset(&b);
  CHECK(!bpi_comment_bencher_plot(&b, &q) && b.len == 0);
  bpi_buf_cleanup(&b);
}

/* bench0 regresses in latency (and, more, in a second measure slug2),
 * bench1 is unchanged; the head's report has every id */
static struct bp_cmp *with_ids(const char *slug2, const char *uuid2)
{
  struct bp_cmp *c = synthetic(2, 1, 0, "bench");
  c->head.project = strdup("proj");
  c->head.report_uuid = strdup(U_REPORT);
  c->head.bencher_project = strdup("proj-slug");
  c->head.bencher_branch = strdup(U_BRANCH);
  c->head.bencher_head = strdup(U_HEAD);
  c->head.bencher_testbed = strdup(U_TB);
  c->head.bencher_end_ms = END_MS;
  for(size_t i = 0; i < c->nbenches; i++) {
    struct bp_cmp_bench *b = &c->benches[i];
    b->bencher_uuid = strdup(U_BENCH);
    b->measures[0].bencher_uuid = strdup(U_LAT);
  }
  struct bp_cmp_bench *b = &c->benches[0];
  struct bp_cmp_measure *m = realloc(b->measures, 2 * sizeof(*m));
  b->measures = m;
  memset(&m[1], 0, sizeof(m[1]));
  m[1].slug = strdup(slug2);
  m[1].bencher_uuid = uuid2 ? strdup(uuid2) : NULL;
  m[1].in_base = m[1].in_head = true;
  m[1].base = 100;
  m[1].head = 500;
  bpi_compare_measure(&m[1], 2);
  b->nmeasures = 2;
  b->max = &m[1];
  b->max_slug = m[1].slug;
  b->max_pct = m[1].pct;
  return c;
}

static void test_plot_comment(void)
{
  struct bp_comment_opts o = {.project = "p", .testbed = "t"};
  struct bp_err err = {0};
  struct bp_buf b;
  const char *slug = NULL;
  bpi_buf_init(&b);
  struct bp_cmp *c = with_ids("cycles", U_CYC);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  /* the most changed measure's plot, and latency's for the unchanged */
  CHECK(strstr(b.data, "[Bencher plot: cycles](https://bencher.dev/perf/"
               "proj-slug?branches=" U_BRANCH "&heads=" U_HEAD "&testbeds="
               U_TB "&benchmarks=" U_BENCH "&measures=" U_CYC
               "&start_time=" START_MS "&end_time=1764446401250&report="
               U_REPORT ")") != NULL);
  CHECK_EQ_INT(count(b.data, "[Bencher plot: latency](https://bencher.dev"
                     "/perf/proj-slug?branches="), 1);
  CHECK(!strstr(b.data, "_No viewer links"));
  CHECK(strstr(b.data, "[Bencher report and plots](https://bencher.dev/perf/"
               "proj-slug/reports/" U_REPORT ")") != NULL);
  bpi_buf_reset(&b);
  CHECK(bpi_comment_bench_plot(&b, c, &c->benches[1], &slug));
  CHECK_EQ_STR(slug, "latency");
  bpi_compare_free(c);

  /* the most changed measure has no uuid: latency's plot instead */
  c = with_ids("cycles", NULL);
  bpi_buf_reset(&b);
  CHECK(bpi_comment_bench_plot(&b, c, &c->benches[0], &slug));
  CHECK_EQ_STR(slug, "latency");
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "&measures=" U_LAT "&") != NULL);
  bpi_compare_free(c);

  /* a hostile measure slug is escaped in the label */
  c = with_ids("x](javascript:1)<b>", U_CYC);
  bpi_buf_reset(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "[Bencher plot: x\\](javascript:1)\\<b\\>]("
               "https://bencher.dev/perf/") != NULL);
  CHECK(!unescaped(b.data, "<b>") && !unescaped(b.data, "](javascript"));
  bpi_compare_free(c);

  /* an id missing (an answer without heads): no plot, the report's page */
  c = with_ids("cycles", U_CYC);
  free(c->head.bencher_head);
  c->head.bencher_head = NULL;
  bpi_buf_reset(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(!strstr(b.data, "Bencher plot"));
  CHECK(strstr(b.data, "[Bencher report and plots](https://bencher.dev/perf/"
               "proj-slug/reports/" U_REPORT ")") != NULL);
  bpi_buf_reset(&b);
  CHECK(!bpi_comment_bench_plot(&b, c, &c->benches[0], &slug) && !b.len);
  bpi_compare_free(c);

  /* a benchmark Bencher did not answer for: no plot for it alone */
  c = with_ids("cycles", U_CYC);
  free(c->benches[1].bencher_uuid);
  c->benches[1].bencher_uuid = NULL;
  bpi_buf_reset(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK_EQ_INT(count(b.data, "[Bencher plot: "), 1);
  CHECK(strstr(b.data, "[Bencher plot: cycles]") != NULL);
  bpi_compare_free(c);
  bpi_buf_cleanup(&b);
}

/* ------------------------------------------------------ compared line */

#define SHA_OLD "1111111111111111111111111111111111111111"
#define SHA_NEW "2222222222222222222222222222222222222222"
#define DAY1 "2024-01-01T08:00:00Z"
#define DAY2 "2024-01-02T08:00:00Z"
#define END1 "2024-01-02T09:00:00.000Z"
#define END2 "2024-01-02T10:00:00.000Z"

static void test_compared_line(void)
{
  struct bp_buf b;
  struct bp_comment_compared c;
  bpi_buf_init(&b);
  const struct bp_run_when w = {SHA_NEW, DAY2, END1};
  bpi_comment_compared_line(&b, &w);
  bpi_buf_addc(&b, '\0');
  CHECK(b.data && !strcmp(b.data, "<!-- benchprof:compared head=" SHA_NEW
                          " commit_time=" DAY2 " end_time=" END1 " -->\n"));
  CHECK(bpi_comment_find_compared(b.data, &c));
  CHECK(!strcmp(c.head, SHA_NEW) && !strcmp(c.commit_time, DAY2) &&
        !strcmp(c.end_time, END1));
  struct bp_run_when back = bpi_comment_compared_when(&c);
  CHECK(!strcmp(back.commit, SHA_NEW) && !strcmp(back.end_time, END1));

  /* unknown (or unsafe) values are left out; nothing known: no line */
  bpi_buf_reset(&b);
  const struct bp_run_when hostile = {"abc --> <b>", "yesterday",
                                      "2024-01-02T09:00:00Z -->x"};
  bpi_comment_compared_line(&b, &hostile);
  CHECK_EQ_INT(b.len, 0);
  const struct bp_run_when part = {"local-20240101T000000Z-0a1b2c3d", NULL,
                                   "2024-01-02T09:00:00+02:00"};
  bpi_comment_compared_line(&b, &part);
  bpi_buf_addc(&b, '\0');
  CHECK(b.data && !strcmp(b.data, "<!-- benchprof:compared "
                          "head=local-20240101T000000Z-0a1b2c3d "
                          "end_time=2024-01-02T09:00:00+02:00 -->\n"));
  CHECK(bpi_comment_find_compared(b.data, &c));
  back = bpi_comment_compared_when(&c);
  CHECK(back.commit && !back.commit_time && back.end_time);

  /* read: unknown fields passed over, bad values dropped, an unclosed
   * line or none at all is no line */
  CHECK(bpi_comment_find_compared("x\n<!-- benchprof:compared future=1 "
                                  "head=" SHA_OLD " commit_time=no  "
                                  "end_time=" END2 " -->\n", &c));
  CHECK(!strcmp(c.head, SHA_OLD) && !c.commit_time[0] &&
        !strcmp(c.end_time, END2));
  CHECK(!bpi_comment_find_compared("<!-- benchprof:compared head=" SHA_OLD
                                   "\n -->", &c));
  CHECK(!c.head[0]);
  CHECK(!bpi_comment_find_compared("<!-- benchprof:comment p/t -->\nhi",
                                   &c));
  bpi_buf_cleanup(&b);
}

/* The comment says which comparison it shows, second after the marker:
 * the comparison's, and the no-base comment's. */
static void test_compared_in_comment(void)
{
  struct bp_cmp *c = synthetic(2, 1, 1, "b");
  struct bp_comment_opts o = {.project = "p", .testbed = "t"};
  struct bp_buf b;
  struct bp_err err = {0};
  bpi_buf_init(&b);
  c->head.hash = strdup(SHA_NEW);
  c->head.commit_time = strdup(DAY2);
  c->head.end_time = strdup(END1);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(starts(b.data, "<!-- benchprof:comment p/t -->\n<!-- benchprof:"
               "compared head=" SHA_NEW " commit_time=" DAY2 " end_time="
               END1 " -->\n###"));
  bpi_buf_reset(&b);
  CHECK(bpi_comment_no_base(&o, &c->head, "main", "none", &b, &err) ==
        BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(starts(b.data, "<!-- benchprof:comment p/t -->\n<!-- benchprof:"
               "compared head=" SHA_NEW " commit_time=" DAY2));
  /* nothing known of the head: the marker and the title, as before */
  free(c->head.hash);
  free(c->head.commit_time);
  free(c->head.end_time);
  c->head.hash = c->head.commit_time = c->head.end_time = NULL;
  bpi_buf_reset(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(starts(b.data, "<!-- benchprof:comment p/t -->\n###"));
  bpi_compare_free(c);
  bpi_buf_cleanup(&b);
}

/* ------------------------------------------------------------ posting */

struct fake {
  const char *answers[12];  /* bodies, one per request */
  long status[12];
  char *seen[12];           /* "METHOD URL|bearer|headers|body" */
  size_t n;
};

static struct fake *the_fake;

static bp_code fake_send(const struct bp_http_opts *o,
                         const struct bp_http_req *req,
                         struct bp_http_resp *resp, struct bp_err *err)
{
  struct fake *f = the_fake;
  struct bp_buf s;
  (void)o;
  if(f->n >= 12)
    return bpi_err_set(err, BPE_NET, 0, "too many requests");
  bpi_buf_init(&s);
  bpi_buf_printf(&s, "%s %s|%s|", req->method, req->url,
                 req->bearer ? req->bearer : "");
  for(const char *const *h = req->headers; h && *h; h++)
    bpi_buf_printf(&s, "%s;", *h);
  bpi_buf_addc(&s, '|');
  if(req->body)
    bpi_buf_add(&s, req->body, req->body_len);
  bpi_buf_addc(&s, '\0');
  f->seen[f->n] = s.data;
  if(f->status[f->n] < 0) {   /* the request went out, its answer lost */
    f->n++;
    resp->status = 0;
    return bpi_err_set(err, BPE_NET, 0, "%s %s: empty reply from server",
                       req->method, req->url);
  }
  resp->status = f->status[f->n] ? f->status[f->n] : 200;
  bpi_buf_adds(&resp->body, f->answers[f->n] ? f->answers[f->n] : "[]");
  f->n++;
  if(resp->status >= 400)
    return bpi_err_set(err, BPE_HTTP, 0, "%s %s: HTTP %ld", req->method,
                       req->url, resp->status);
  return BP_OK;
}

static void fake_cleanup(struct fake *f)
{
  for(size_t i = 0; i < f->n; i++)
    free(f->seen[i]);
}

static char *page_of(size_t n, size_t ours_at, long first_id)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_buf_addc(&b, '[');
  for(size_t i = 0; i < n; i++)
    bpi_buf_printf(&b, "%s{\"id\": %ld, \"body\": \"%s\", "
                   "\"user\": {\"login\": \"%s\", \"type\": \"User\"}, "
                   "\"author\": {\"id\": %d}}", i ? "," : "",
                   first_id + (long)i, i == ours_at ?
                   "old\\n<!-- benchprof:comment p/t -->" : "hello",
                   i == ours_at ? "Me" : "someone", i == ours_at ? 5 : 6);
  bpi_buf_addc(&b, ']');
  bpi_buf_addc(&b, '\0');
  return b.data;
}

static void test_post(void)
{
  const char *md = "<!-- benchprof:comment p/t -->\nhi \"there\"\n";
  struct bp_forge_target t = {.forge = BP_FORGE_GITHUB,
                              .api_url = "http://127.0.0.1:9/api/",
                              .repo = "own/repo", .number = "42",
                              .token = "ghs_secret"};
  struct bp_comment_transport tr = {.send = fake_send};
  struct bp_comment_posted res = {.id = NULL};
  struct bp_err err = {0};

  /* ours is on page 2: GET, GET, who we are (GET /user: a login, in
   * other letters than the comment's), PATCH */
  char *p1 = page_of(100, 1000, 1), *p2 = page_of(3, 1, 5000);
  struct fake f = {.answers = {p1, p2, "{\"login\": \"me\", \"id\": 1}",
                               "{\"id\": 5001}"}};
  the_fake = &f;
  CHECK(bpi_comment_post(&t, md, &tr, &res, &err) == BP_OK);
  CHECK_EQ_INT(f.n, 4);
  CHECK(starts(f.seen[0], "GET http://127.0.0.1:9/api/repos/"
        "own/repo/issues/42/comments?per_page=100&page=1|ghs_secret|"));
  CHECK(f.seen[1] && strstr(f.seen[1], "&page=2|"));
  CHECK(starts(f.seen[2], "GET http://127.0.0.1:9/api/user|ghs_secret|"));
  CHECK(starts(f.seen[3], "PATCH http://127.0.0.1:9/api/"
        "repos/own/repo/issues/comments/5001|ghs_secret|"));
  CHECK(f.seen[3] && strstr(f.seen[3], "|{\"body\":\"\\u003c!-- benchprof:comment "
        "p/t -->\\nhi \\\"there\\\"\\n\"}"));
  CHECK(f.seen[3] && strstr(f.seen[3], "Accept: application/vnd.github+json"));
  CHECK_EQ_INT(res.foreign, 0);
  CHECK(res.updated && res.id && !strcmp(res.id, "5001"));
  for(size_t i = 0; i < f.n; i++)
    CHECK(!strstr(strchr(f.seen[i], ' '), "secret|") ||
          strstr(f.seen[i], "|ghs_secret|"));   /* never in the URL */
  fake_cleanup(&f);
  bpi_comment_posted_cleanup(&res);
  free(p1);
  free(p2);

  /* none of ours: GET, POST, then GET again (another job's comment
   * made at the same moment would show there; none does) */
  res = (struct bp_comment_posted){.id = NULL};
  p1 = page_of(2, 1000, 1);
  struct fake g = {.answers = {p1, "{\"id\": 77, \"body\": \"x\", "
                               "\"user\": {\"login\": \"me\"}}"},
                   .status = {200, 201}};
  the_fake = &g;
  CHECK(bpi_comment_post(&t, md, &tr, &res, &err) == BP_OK);
  CHECK_EQ_INT(g.n, 3);
  CHECK(starts(g.seen[1], "POST http://127.0.0.1:9/api/repos/"
        "own/repo/issues/42/comments|"));
  CHECK(starts(g.seen[2], "GET http://127.0.0.1:9/api/repos/"
        "own/repo/issues/42/comments?per_page=100&page=1|"));
  CHECK(!res.updated && res.id && !strcmp(res.id, "77"));
  CHECK(!res.duplicate && !res.warning.code);
  fake_cleanup(&g);
  bpi_comment_posted_cleanup(&res);
  free(p1);

  /* GitLab: notes, PRIVATE-TOKEN header, PUT; project path encoded */
  t = (struct bp_forge_target){.forge = BP_FORGE_GITLAB, .repo = "grp/proj",
                               .number = "7", .token = "glpat-x"};
  res = (struct bp_comment_posted){.id = NULL};
  p1 = page_of(1, 0, 9);
  struct fake h = {.answers = {p1, "{\"id\": 5, \"username\": \"me\"}",
                               "{\"id\": 9}"}};
  the_fake = &h;
  CHECK(bpi_comment_post(&t, md, &tr, &res, &err) == BP_OK);
  CHECK(starts(h.seen[0], "GET https://gitlab.com/api/v4/"
        "projects/grp%2Fproj/merge_requests/7/notes?per_page=100&page=1"));
  CHECK(h.seen[0] && strstr(h.seen[0], "||PRIVATE-TOKEN: glpat-x;|"));
  CHECK(starts(h.seen[1], "GET https://gitlab.com/api/v4/user|"));
  CHECK(starts(h.seen[2], "PUT https://gitlab.com/api/v4/"
        "projects/grp%2Fproj/merge_requests/7/notes/9|"));
  CHECK(res.updated);
  fake_cleanup(&h);
  bpi_comment_posted_cleanup(&res);
  free(p1);

  /* errors: a refused request, a bad list, bad targets, no marker */
  t = (struct bp_forge_target){.forge = BP_FORGE_GITHUB, .repo = "o/r",
                               .number = "1", .token = "x"};
  struct fake e = {.status = {403}, .answers = {"{\"message\": \"no\"}"}};
  the_fake = &e;
  bpi_err_clear(&err);
  res = (struct bp_comment_posted){.id = NULL};
  CHECK(bpi_comment_post(&t, md, &tr, &res, &err) == BPE_HTTP);
  CHECK_EQ_INT(e.n, 1);
  /* the refusal's status, for the command's advice (a 403: the token) */
  CHECK_EQ_INT(res.http_status, 403);
  fake_cleanup(&e);
  struct fake e2 = {.answers = {"{\"not\": \"a list\"}"}};
  the_fake = &e2;
  bpi_err_clear(&err);
  CHECK(bpi_comment_post(&t, md, &tr, &res, &err) == BPE_FORMAT);
  fake_cleanup(&e2);
  struct fake e3 = {.n = 0};
  the_fake = &e3;
  bpi_err_clear(&err);
  CHECK(bpi_comment_post(&t, "no marker here", &tr, &res, &err) ==
        BPE_INVAL);
  CHECK_EQ_INT(e3.n, 0);
  t.repo = "no-slash";
  bpi_err_clear(&err);
  CHECK(bpi_comment_post(&t, md, &tr, &res, &err) == BPE_INVAL);
  t.repo = "o/r";
  t.number = "1/../../x";
  bpi_err_clear(&err);
  CHECK(bpi_comment_post(&t, md, &tr, &res, &err) == BPE_INVAL);
  CHECK_EQ_INT(e3.n, 0);
  bpi_comment_posted_cleanup(&res);
}

/* The marker is plain text: a comment by another account that carries it
 * is never edited.  A user token: GET /user's login; an installation
 * token (GET /user refused with 403): bot accounts only. */
static void test_post_foreign(void)
{
  const char *md = "<!-- benchprof:comment p/t -->\nhi\n";
  struct bp_forge_target t = {.forge = BP_FORGE_GITHUB,
                              .api_url = "http://127.0.0.1:9",
                              .repo = "own/repo", .number = "42",
                              .token = "ghs_secret"};
  struct bp_comment_transport tr = {.send = fake_send};
  struct bp_comment_posted res = {.id = NULL};
  struct bp_err err = {0};
  /* ours_at 0 is by "Me"; we are "ci": a forged one, left alone */
  char *p = page_of(2, 0, 10);
  struct fake f = {.answers = {p, "{\"login\": \"ci\"}",
                               "{\"id\": 99, \"body\": \"x\"}"},
                   .status = {200, 200, 201}};
  the_fake = &f;
  CHECK(bpi_comment_post(&t, md, &tr, &res, &err) == BP_OK);
  CHECK_EQ_INT(f.n, 4);   /* the last: the list again, after the POST */
  CHECK(f.seen[2] && starts(f.seen[2], "POST http://127.0.0.1:9/repos/"
        "own/repo/issues/42/comments|"));
  CHECK(f.seen[3] && starts(f.seen[3], "GET http://127.0.0.1:9/repos/"
        "own/repo/issues/42/comments?"));
  CHECK(!res.updated && res.id && !strcmp(res.id, "99"));
  CHECK_EQ_INT(res.foreign, 1);
  fake_cleanup(&f);
  bpi_comment_posted_cleanup(&res);

  /* an installation token: "Me" is a user, not a bot: left alone; a
   * "github-actions[bot]" Bot's is ours, a user named like one is not */
  const char *bots = "[{\"id\": 1, \"body\": \"<!-- benchprof:comment p/t -->"
    "\", \"user\": {\"login\": \"Me\", \"type\": \"User\"}},"
    "{\"id\": 2, \"body\": \"<!-- benchprof:comment p/t -->\", \"user\": "
    "{\"login\": \"evil[bot]\", \"type\": \"User\"}},"
    "{\"id\": 3, \"body\": \"<!-- benchprof:comment p/t -->\", \"user\": "
    "{\"login\": \"github-actions[bot]\", \"type\": \"Bot\"}}]";
  res = (struct bp_comment_posted){.id = NULL};
  struct fake g = {.answers = {bots, "{\"message\": \"Resource not "
                               "accessible by integration\"}", "{\"id\": 3}"},
                   .status = {200, 403, 200}};
  the_fake = &g;
  bpi_err_clear(&err);
  CHECK(bpi_comment_post(&t, md, &tr, &res, &err) == BP_OK);
  CHECK_EQ_INT(g.n, 3);
  CHECK(g.seen[2] && starts(g.seen[2], "PATCH http://127.0.0.1:9/repos/"
        "own/repo/issues/comments/3|"));
  CHECK(res.updated);
  CHECK_EQ_INT(res.foreign, 2);
  fake_cleanup(&g);
  bpi_comment_posted_cleanup(&res);

  /* an installation token and another App's bot quoting our marker
   * first: its edit is refused (403), so it is passed over and ours (3)
   * edited; with no other candidate, a comment of our own is made */
  const char *apps = "[{\"id\": 2, \"body\": \"<!-- benchprof:comment "
    "p/t -->\", \"user\": {\"login\": \"other-app[bot]\", \"type\": "
    "\"Bot\"}},{\"id\": 3, \"body\": \"<!-- benchprof:comment p/t -->\", "
    "\"user\": {\"login\": \"github-actions[bot]\", \"type\": \"Bot\"}}]";
  const char *no_access = "{\"message\": \"Resource not accessible by "
                          "integration\"}";
  res = (struct bp_comment_posted){.id = NULL};
  struct fake a = {.answers = {apps, no_access, no_access, apps,
                               "{\"id\": 3}"},
                   .status = {200, 403, 403, 200, 200}};
  the_fake = &a;
  bpi_err_clear(&err);
  CHECK(bpi_comment_post(&t, md, &tr, &res, &err) == BP_OK);
  CHECK_EQ_INT(a.n, 5);
  CHECK(a.seen[2] && starts(a.seen[2], "PATCH http://127.0.0.1:9/repos/"
        "own/repo/issues/comments/2|"));
  CHECK(a.seen[4] && starts(a.seen[4], "PATCH http://127.0.0.1:9/repos/"
        "own/repo/issues/comments/3|"));
  CHECK(res.updated && res.id && !strcmp(res.id, "3"));
  CHECK_EQ_INT(res.foreign, 1);
  fake_cleanup(&a);
  bpi_comment_posted_cleanup(&res);
  const char *one_app = "[{\"id\": 2, \"body\": \"<!-- benchprof:comment "
    "p/t -->\", \"user\": {\"login\": \"other-app[bot]\", \"type\": "
    "\"Bot\"}}]";
  res = (struct bp_comment_posted){.id = NULL};
  struct fake o1 = {.answers = {one_app, no_access, no_access, one_app,
                                "{\"id\": 12, \"body\": \"x\"}"},
                    .status = {200, 403, 403, 200, 201}};
  the_fake = &o1;
  bpi_err_clear(&err);
  CHECK(bpi_comment_post(&t, md, &tr, &res, &err) == BP_OK);
  CHECK_EQ_INT(o1.n, 6);   /* and the list again after the POST */
  CHECK(o1.seen[4] && starts(o1.seen[4], "POST http://127.0.0.1:9/repos/"
        "own/repo/issues/42/comments|"));
  CHECK(!res.updated && res.id && !strcmp(res.id, "12"));
  CHECK_EQ_INT(res.foreign, 1);
  fake_cleanup(&o1);
  bpi_comment_posted_cleanup(&res);

  /* four other Apps quote the marker: each refused edit is passed over,
   * then a comment of our own is made (no fifth PATCH) */
  const char *four = "["
    "{\"id\": 21, \"body\": \"<!-- benchprof:comment p/t -->\", \"user\": "
    "{\"login\": \"a[bot]\", \"type\": \"Bot\"}},"
    "{\"id\": 22, \"body\": \"<!-- benchprof:comment p/t -->\", \"user\": "
    "{\"login\": \"b[bot]\", \"type\": \"Bot\"}},"
    "{\"id\": 23, \"body\": \"<!-- benchprof:comment p/t -->\", \"user\": "
    "{\"login\": \"c[bot]\", \"type\": \"Bot\"}},"
    "{\"id\": 24, \"body\": \"<!-- benchprof:comment p/t -->\", \"user\": "
    "{\"login\": \"d[bot]\", \"type\": \"Bot\"}}]";
  res = (struct bp_comment_posted){.id = NULL};
  struct fake f4 = {.answers = {four, no_access, no_access, four, no_access,
                                four, no_access, four, no_access,
                                "{\"id\": 30, \"body\": \"x\"}"},
                    .status = {200, 403, 403, 200, 403, 200, 403, 200, 403,
                               201}};
  the_fake = &f4;
  bpi_err_clear(&err);
  CHECK(bpi_comment_post(&t, md, &tr, &res, &err) == BP_OK);
  CHECK_EQ_INT(f4.n, 11);   /* and the list again after the POST */
  CHECK(f4.seen[8] && starts(f4.seen[8], "PATCH http://127.0.0.1:9/repos/"
        "own/repo/issues/comments/24|"));
  CHECK(f4.seen[9] && starts(f4.seen[9], "POST http://127.0.0.1:9/repos/"
        "own/repo/issues/42/comments|"));
  CHECK(!res.updated && res.id && !strcmp(res.id, "30"));
  fake_cleanup(&f4);
  bpi_comment_posted_cleanup(&res);

  /* a PATCH refused for a rate limit (403 in other words) is an error:
   * never taken for another App's comment (that would leave ours stale
   * and post a second one) */
  res = (struct bp_comment_posted){.id = NULL};
  struct fake rl = {.answers = {apps, no_access, "{\"message\": \"You have "
                                "exceeded a secondary rate limit\"}"},
                    .status = {200, 403, 403}};
  the_fake = &rl;
  bpi_err_clear(&err);
  CHECK(bpi_comment_post(&t, md, &tr, &res, &err) == BPE_HTTP);
  CHECK_EQ_INT(rl.n, 3);
  CHECK_EQ_INT(res.http_status, 403);
  fake_cleanup(&rl);
  bpi_comment_posted_cleanup(&res);

  /* the status is the returned failure's (the PATCH's 422), not GET
   * /user's 403 that was taken as "any bot": the command's advice on
   * tokens must not follow a refusal already settled */
  res = (struct bp_comment_posted){.id = NULL};
  struct fake un = {.answers = {apps, no_access, "{\"message\": \"bad\"}"},
                    .status = {200, 403, 422}};
  the_fake = &un;
  bpi_err_clear(&err);
  CHECK(bpi_comment_post(&t, md, &tr, &res, &err) == BPE_HTTP);
  CHECK_EQ_INT(un.n, 3);
  CHECK_EQ_INT(res.http_status, 422);
  fake_cleanup(&un);
  bpi_comment_posted_cleanup(&res);

  /* a 403 in other words (a rate limit) says nothing of the token: an
   * error, never "any bot" (that would post a second comment) */
  res = (struct bp_comment_posted){.id = NULL};
  struct fake r = {.answers = {bots, "{\"message\": \"API rate limit "
                               "exceeded\"}"}, .status = {200, 403}};
  the_fake = &r;
  bpi_err_clear(&err);
  CHECK(bpi_comment_post(&t, md, &tr, &res, &err) == BPE_HTTP);
  CHECK_EQ_INT(r.n, 2);
  fake_cleanup(&r);
  bpi_comment_posted_cleanup(&res);

  /* GitLab: author.id against GET /user's id; the note with the marker
   * is by user 5, we are 6: a new note */
  t = (struct bp_forge_target){.forge = BP_FORGE_GITLAB, .repo = "9",
                               .number = "7", .token = "glpat-x"};
  res = (struct bp_comment_posted){.id = NULL};
  struct fake h = {.answers = {p, "{\"id\": 6}",
                               "{\"id\": 11, \"body\": \"x\"}"},
                   .status = {200, 200, 201}};
  the_fake = &h;
  CHECK(bpi_comment_post(&t, md, &tr, &res, &err) == BP_OK);
  CHECK(h.seen[1] && starts(h.seen[1], "GET https://gitlab.com/api/v4/user|"));
  CHECK(h.seen[2] && starts(h.seen[2], "POST https://gitlab.com/api/v4/"
        "projects/9/merge_requests/7/notes|"));
  CHECK(!res.updated && res.id && !strcmp(res.id, "11"));
  CHECK_EQ_INT(res.foreign, 1);
  fake_cleanup(&h);
  bpi_comment_posted_cleanup(&res);
  free(p);
}

/* The request's head now: GitHub's pulls API (head.sha), GitLab's merge
 * requests API (sha); an answer without a commit hash is an error. */
static void test_pr_head(void)
{
  struct bp_forge_target gh = {.forge = BP_FORGE_GITHUB,
                               .api_url = "http://127.0.0.1:9/api/",
                               .repo = "own/repo", .number = "42",
                               .token = "ghs_secret"};
  struct bp_forge_target gl = {.forge = BP_FORGE_GITLAB, .repo = "grp/proj",
                               .number = "7", .token = "glpat-x"};
  struct bp_comment_transport tr = {.send = fake_send};
  struct bp_err err = {0};
  char *sha = NULL;
  char *merge = NULL;
  struct fake f = {.answers = {
    "{\"head\": {\"sha\": \"0123456789abcdef0123456789abcdef01234567\"}, "
    "\"merge_commit_sha\": \"fedcba9876543210fedcba9876543210fedcba98\"}",
    "{\"iid\": 7, \"sha\": \"89abcdef0123456789abcdef0123456789abcdef\", "
    "\"merge_commit_sha\": null}",
    "{\"head\": {\"sha\": \"nothex\"}}"}};
  the_fake = &f;
  CHECK(bpi_comment_pr_head(&gh, &tr, &sha, &merge, &err) == BP_OK);
  CHECK(sha && !strcmp(sha, "0123456789abcdef0123456789abcdef01234567"));
  CHECK(merge && !strcmp(merge, "fedcba9876543210fedcba9876543210fedcba98"));
  CHECK(starts(f.seen[0], "GET http://127.0.0.1:9/api/repos/own/repo/"
               "pulls/42|ghs_secret|"));
  free(sha);
  free(merge);
  CHECK(bpi_comment_pr_head(&gl, &tr, &sha, &merge, &err) == BP_OK);
  CHECK(sha && !strcmp(sha, "89abcdef0123456789abcdef0123456789abcdef"));
  CHECK(merge == NULL);
  CHECK(starts(f.seen[1], "GET https://gitlab.com/api/v4/projects/"
               "grp%2Fproj/merge_requests/7|"));
  free(sha);
  CHECK(bpi_comment_pr_head(&gh, &tr, &sha, NULL, &err) == BPE_FORMAT);
  CHECK(sha == NULL);
  fake_cleanup(&f);
}

/* A POST whose answer is lost: the comments are listed again before any
 * other POST; the one it made is found by the marker, never posted twice.
 * When it was not made, it is posted again. */
static void test_post_lost_answer(void)
{
  const char *md = "<!-- benchprof:comment p/t -->\nhi\n";
  struct bp_forge_target t = {.forge = BP_FORGE_GITHUB,
                              .api_url = "http://127.0.0.1:9",
                              .repo = "own/repo", .number = "42",
                              .token = "ghs_secret"};
  struct bp_http_opts o = {.retries = 3, .backoff_ms = 1};
  struct bp_comment_transport tr = {.send = fake_send, .http = &o};
  struct bp_comment_posted res = {.id = NULL};
  struct bp_err err = {0};

  /* GET (none), POST (answer lost), GET (ours is there), who we are,
   * then all of ours listed once more (it may be another job's, made at
   * the same moment): the lowest, the only one, survives; its text is
   * not this markdown (another job's), so it is edited; nothing deleted */
  char *none = page_of(2, 1000, 1), *ours = page_of(3, 2, 1);
  struct fake f = {.answers = {none, NULL, ours, "{\"login\": \"Me\"}",
                               ours, NULL},
                   .status = {200, -1, 200, 200, 200, 200}};
  the_fake = &f;
  CHECK(bpi_comment_post(&t, md, &tr, &res, &err) == BP_OK);
  CHECK_EQ_INT(f.n, 6);
  CHECK(f.seen[1] && starts(f.seen[1], "POST "));
  CHECK(f.seen[2] && starts(f.seen[2], "GET "));
  CHECK(f.seen[4] && starts(f.seen[4], "GET "));
  CHECK(f.seen[5] && starts(f.seen[5], "PATCH http://127.0.0.1:9/repos/"
                            "own/repo/issues/comments/3|"));
  CHECK(res.id && !strcmp(res.id, "3") && res.updated && res.answer_lost);
  CHECK(!res.duplicate && !res.warning.code);
  CHECK_EQ_INT(err.code, BP_OK);
  fake_cleanup(&f);
  bpi_comment_posted_cleanup(&res);

  /* the lost POST made nothing: listed again, posted again, once */
  struct fake g = {.answers = {none, NULL, none,
                               "{\"id\": 88, \"body\": \"x\"}"},
                   .status = {200, -1, 200, 201}};
  the_fake = &g;
  CHECK(bpi_comment_post(&t, md, &tr, &res, &err) == BP_OK);
  CHECK_EQ_INT(g.n, 5);   /* and the list again after the POST */
  CHECK(g.seen[3] && starts(g.seen[3], "POST "));
  CHECK(res.id && !strcmp(res.id, "88"));
  fake_cleanup(&g);
  bpi_comment_posted_cleanup(&res);

  /* every answer lost: 1 + retries POSTs, a listing before each retry */
  struct fake h = {.answers = {none, NULL, none, NULL, none, NULL, none,
                               NULL},
                   .status = {200, -1, 200, -1, 200, -1, 200, -1}};
  the_fake = &h;
  CHECK(bpi_comment_post(&t, md, &tr, &res, &err) == BPE_NET);
  CHECK_EQ_INT(h.n, 8);
  fake_cleanup(&h);
  bpi_comment_posted_cleanup(&res);
  free(none);
  free(ours);
}

/* No base: the marker (so a later comment with a base edits it), what was
 * looked for and why, hostile names escaped. */
/* The commit status: GitHub's statuses API and GitLab's commit status
 * API, each as documented (URL, state words, context or name, a
 * description of at most 140 characters). */
static void test_status(void)
{
  const char *sha = "0123456789abcdef0123456789abcdef01234567";
  struct bp_forge_target gh = {.forge = BP_FORGE_GITHUB,
                               .api_url = "http://127.0.0.1:9/api",
                               .repo = "own/repo", .number = "42",
                               .token = "ghs_secret"};
  struct bp_forge_target gl = {.forge = BP_FORGE_GITLAB, .repo = "grp/proj",
                               .number = "7", .token = "glpat-x"};
  struct bp_comment_transport tr = {.send = fake_send};
  struct bp_err err = {0};
  struct fake f = {.answers = {"{}", "{}"}, .status = {201, 201}};
  char longdesc[400];
  memset(longdesc, 'x', sizeof(longdesc) - 1);
  longdesc[sizeof(longdesc) - 1] = '\0';
  the_fake = &f;
  CHECK(bpi_comment_post_status(&gh, sha, true, "1 regression confirmed, "
                                "0 unconfirmed", "https://gh.example/c#1",
                                &tr, &err) == BP_OK);
  CHECK(starts(f.seen[0], "POST http://127.0.0.1:9/api/repos/own/repo/"
               "statuses/0123456789abcdef0123456789abcdef01234567|"
               "ghs_secret|"));
  CHECK(f.seen[0] && strstr(f.seen[0], "|{\"state\":\"failure\",\"context\":"
        "\"benchprof\",\"description\":\"1 regression confirmed, 0 "
        "unconfirmed\",\"target_url\":\"https://gh.example/c#1\"}"));
  CHECK(bpi_comment_post_status(&gl, sha, false, longdesc, NULL, &tr, &err)
        == BP_OK);
  CHECK(starts(f.seen[1], "POST https://gitlab.com/api/v4/projects/"
               "grp%2Fproj/statuses/0123456789abcdef0123456789abcdef01234567"
               "||PRIVATE-TOKEN: glpat-x;|{\"state\":\"success\",\"name\":"
               "\"benchprof\",\"description\":\""));
  /* cut to 140 characters, no target_url without one */
  CHECK(f.seen[1] && strstr(f.seen[1], "\"description\":\"") &&
        strlen(strstr(f.seen[1], "\"description\":\"")) ==
        strlen("\"description\":\"") + 140 + 2);
  fake_cleanup(&f);
  /* not a full hash: refused before any request */
  struct fake g = {.n = 0};
  the_fake = &g;
  CHECK(bpi_comment_post_status(&gh, "abc123", true, "x", NULL, &tr, &err)
        == BPE_INVAL);
  CHECK_EQ_INT(g.n, 0);
  /* a suite's status: its own context */
  struct fake h = {.answers = {"{}"}, .status = {201}};
  the_fake = &h;
  gh.status_context = "benchprof/fast";
  CHECK(bpi_comment_post_status(&gh, sha, false, "ok", NULL, &tr, &err)
        == BP_OK);
  CHECK(h.seen[0] && strstr(h.seen[0], "|{\"state\":\"success\",\"context\":"
        "\"benchprof/fast\","));
  fake_cleanup(&h);
}

/* The verdict line a posted comment carries, and the status that follows
 * what the comment shows after it is set: another job's verdict of the
 * same head is set in turn, one of another head (or a comment gone) is
 * not, and a comment that keeps changing stops after
 * BP_COMMENT_STATUS_ROUNDS statuses. */
#define FOLLOW_SHA "0123456789abcdef0123456789abcdef01234567"
#define FOLLOW_BODY(head, r) "{\"id\":5,\"body\":\"<!-- benchprof:comment " \
  "p/t -->\\nx\\n<!-- benchprof:verdict head=" head " regressions=" r \
  " unconfirmed=0 -->\\n\"}"
static void test_status_follow(void)
{
  struct bp_comment_verdict v = {.head = FOLLOW_SHA, .regressions = 2,
                                 .unconfirmed = 3}, got;
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_buf_adds(&b, "text\n" BP_COMMENT_VERDICT_PREFIX "head=" FOLLOW_SHA
               " regressions=9 unconfirmed=9 -->\n");
  CHECK(bpi_comment_verdict_line(&b, &v));
  bpi_buf_addc(&b, '\0');
  CHECK(bpi_comment_find_verdict(b.data, &got));   /* the last one */
  CHECK(!strcmp(got.head, FOLLOW_SHA) && got.regressions == 2 &&
        got.unconfirmed == 3);
  bpi_buf_cleanup(&b);
  CHECK(!bpi_comment_find_verdict("<!-- benchprof:verdict head=" FOLLOW_SHA
                                  " regressions=x unconfirmed=0 -->", &got));
  CHECK(!bpi_comment_find_verdict("<!-- benchprof:verdict head=abc "
                                  "regressions=1 unconfirmed=0 -->", &got));
  CHECK(!bpi_comment_find_verdict("<!-- benchprof:verdict head=" FOLLOW_SHA
                                  " regressions=1 unconfirmed=0", &got));
  CHECK(!bpi_comment_find_verdict(NULL, &got));
  struct bp_comment_verdict bad = {.head = "abc"};
  bpi_buf_init(&b);
  CHECK(!bpi_comment_verdict_line(&b, &bad) && b.len == 0);
  bpi_buf_cleanup(&b);

  struct bp_forge_target gh = {.forge = BP_FORGE_GITHUB,
                               .api_url = "http://127.0.0.1:9",
                               .repo = "own/repo", .number = "42",
                               .token = "t"};
  struct bp_comment_transport tr = {.send = fake_send};
  struct bp_comment_settled done;
  struct bp_err err = {0};
  struct bp_comment_verdict mine = {.head = FOLLOW_SHA, .regressions = 1};
  /* another job's verdict (0 regressions) in the comment: set, then the
   * comment read again shows it still */
  struct fake f = {.answers = {"{}", FOLLOW_BODY(FOLLOW_SHA, "0"), "{}",
                               FOLLOW_BODY(FOLLOW_SHA, "0")},
                   .status = {201, 200, 201, 200}};
  the_fake = &f;
  CHECK(bpi_comment_settle(&gh, "5", NULL, &mine, NULL, &tr, &done, &err)
        == BP_OK);
  CHECK_EQ_INT(f.n, 4);
  CHECK_EQ_INT(done.posts, 2);
  CHECK(done.followed && !done.unsettled && done.set.regressions == 0);
  CHECK(f.seen[0] && strstr(f.seen[0], "\"state\":\"failure\""));
  CHECK(starts(f.seen[1], "GET http://127.0.0.1:9/repos/own/repo/issues/"
               "comments/5|"));
  CHECK(f.seen[2] && strstr(f.seen[2], "\"state\":\"success\","
        "\"context\":\"benchprof\",\"description\":\"0 regressions "
        "confirmed, 0 unconfirmed\""));
  fake_cleanup(&f);
  /* the comment shows another head's comparison, or is gone: one status */
  struct fake g = {.answers = {"{}", FOLLOW_BODY("2222222222222222222222"
                                                 "222222222222222222", "0")},
                   .status = {201, 200}};
  the_fake = &g;
  CHECK(bpi_comment_settle(&gh, "5", NULL, &mine, NULL, &tr, &done, &err)
        == BP_OK);
  CHECK(g.n == 2 && done.posts == 1 && !done.followed);
  fake_cleanup(&g);
  struct fake h = {.answers = {"{}", "{\"message\":\"Not Found\"}"},
                   .status = {201, 404}};
  the_fake = &h;
  CHECK(bpi_comment_settle(&gh, "5", NULL, &mine, NULL, &tr, &done, &err)
        == BP_OK);
  CHECK(h.n == 2 && done.posts == 1 && !done.followed);
  fake_cleanup(&h);
  /* a comment that keeps changing: BP_COMMENT_STATUS_ROUNDS statuses */
  struct fake k = {.answers = {"{}", FOLLOW_BODY(FOLLOW_SHA, "0"), "{}",
                               FOLLOW_BODY(FOLLOW_SHA, "1"), "{}",
                               FOLLOW_BODY(FOLLOW_SHA, "0"), "{}",
                               FOLLOW_BODY(FOLLOW_SHA, "1")},
                   .status = {201, 200, 201, 200, 201, 200, 201, 200}};
  the_fake = &k;
  CHECK(bpi_comment_settle(&gh, "5", NULL, &mine, NULL, &tr, &done, &err)
        == BP_OK);
  CHECK_EQ_INT(k.n, 2 * BP_COMMENT_STATUS_ROUNDS);
  CHECK(done.posts == BP_COMMENT_STATUS_ROUNDS && done.unsettled);
  fake_cleanup(&k);
  /* a refused status: nothing set, nothing read */
  struct fake m = {.answers = {"{\"message\":\"no\"}"}, .status = {403}};
  the_fake = &m;
  CHECK(bpi_comment_settle(&gh, "5", NULL, &mine, NULL, &tr, &done, &err)
        == BPE_HTTP);
  CHECK(m.n == 1 && done.posts == 0);
  fake_cleanup(&m);
}

/* Reading the comment back after writing it (bpi_comment_settle): an
 * older comparison written over ours (another job's edit that landed
 * after ours) is replaced by ours again; a newer one of our head is left
 * and its verdict followed; another head's is older only while the
 * request's head is still ours (asked again), else left, and its status
 * never set. */
#define SETTLE_OTHER "2222222222222222222222222222222222222222"
#define SETTLE_TEXT(head, end, r) "<!-- benchprof:comment p/t -->\n" \
  "<!-- benchprof:compared head=" head " commit_time=2026-01-01T00:00:00Z" \
  " end_time=" end " -->\nx\n<!-- benchprof:verdict head=" head \
  " regressions=" r " unconfirmed=0 -->\n"
#define SETTLE_BODY(head, end, r) "{\"id\":5,\"body\":\"<!-- benchprof:" \
  "comment p/t -->\\n<!-- benchprof:compared head=" head " commit_time=" \
  "2026-01-01T00:00:00Z end_time=" end " -->\\nx\\n<!-- benchprof:" \
  "verdict head=" head " regressions=" r " unconfirmed=0 -->\\n\"}"
#define SETTLE_PULL(head) "{\"head\":{\"sha\":\"" head "\"}}"
static void test_settle_guard(void)
{
  struct bp_forge_target gh = {.forge = BP_FORGE_GITHUB,
                               .api_url = "http://127.0.0.1:9",
                               .repo = "own/repo", .number = "42",
                               .token = "t"};
  struct bp_comment_transport tr = {.send = fake_send};
  struct bp_comment_settled done;
  struct bp_err err = {0};
  struct bp_comment_verdict mine = {.head = FOLLOW_SHA, .regressions = 1};
  const char *posted = SETTLE_TEXT(FOLLOW_SHA, "2026-01-02T00:00:02Z", "1");
  /* an older run of our head written over ours: ours again, its status
   * again, then read back as ours */
  struct fake f = {.answers = {"{}", SETTLE_BODY(FOLLOW_SHA,
                                                 "2026-01-02T00:00:01Z",
                                                 "0"),
                               "{}", "{}", SETTLE_BODY(FOLLOW_SHA,
                                                 "2026-01-02T00:00:02Z",
                                                 "1")},
                   .status = {201, 200, 200, 201, 200}};
  the_fake = &f;
  CHECK(bpi_comment_settle(&gh, "5", posted, &mine, NULL, &tr, &done, &err)
        == BP_OK);
  CHECK_EQ_INT(f.n, 5);
  CHECK(done.reposts == 1 && done.posts == 2 && !done.followed &&
        !done.overtaken && !done.unsettled && done.set.regressions == 1);
  CHECK(starts(f.seen[2], "PATCH http://127.0.0.1:9/repos/own/repo/issues/"
               "comments/5|"));
  CHECK(f.seen[2] && strstr(f.seen[2], "end_time=2026-01-02T00:00:02Z"));
  fake_cleanup(&f);
  /* a later run of our head: left, and the status follows its verdict */
  struct fake g = {.answers = {"{}", SETTLE_BODY(FOLLOW_SHA,
                                                 "2026-01-02T00:00:03Z",
                                                 "0"),
                               "{}", SETTLE_BODY(FOLLOW_SHA,
                                                 "2026-01-02T00:00:03Z",
                                                 "0")},
                   .status = {201, 200, 201, 200}};
  the_fake = &g;
  CHECK(bpi_comment_settle(&gh, "5", posted, &mine, NULL, &tr, &done, &err)
        == BP_OK);
  CHECK_EQ_INT(g.n, 4);
  CHECK(!done.reposts && done.overtaken && done.followed &&
        done.posts == 2 && done.set.regressions == 0);
  CHECK(!strcmp(done.shown.end_time, "2026-01-02T00:00:03Z"));
  fake_cleanup(&g);
  /* another head's, and the request is at that head now: left, no status
   * of that head */
  struct fake h = {.answers = {"{}", SETTLE_BODY(SETTLE_OTHER,
                                                 "2026-01-02T00:00:00Z",
                                                 "0"),
                               SETTLE_PULL(SETTLE_OTHER)},
                   .status = {201, 200, 200}};
  the_fake = &h;
  CHECK(bpi_comment_settle(&gh, "5", posted, &mine, NULL, &tr, &done, &err)
        == BP_OK);
  CHECK_EQ_INT(h.n, 3);
  CHECK(starts(h.seen[2], "GET http://127.0.0.1:9/repos/own/repo/pulls/42|"));
  CHECK(!done.reposts && done.overtaken && !done.followed &&
        done.posts == 1 && !strcmp(done.set.head, FOLLOW_SHA));
  fake_cleanup(&h);
  /* another head's while the request's head is still ours (its job
   * checked the head before the push that made ours): ours again */
  struct fake k = {.answers = {"{}", SETTLE_BODY(SETTLE_OTHER,
                                                 "2026-01-03T00:00:00Z",
                                                 "0"),
                               SETTLE_PULL(FOLLOW_SHA), "{}", "{}",
                               SETTLE_BODY(FOLLOW_SHA,
                                           "2026-01-02T00:00:02Z", "1")},
                   .status = {201, 200, 200, 200, 201, 200}};
  the_fake = &k;
  CHECK(bpi_comment_settle(&gh, "5", posted, &mine, NULL, &tr, &done, &err)
        == BP_OK);
  CHECK_EQ_INT(k.n, 6);
  CHECK(starts(k.seen[3], "PATCH "));
  CHECK(done.reposts == 1 && !done.overtaken && done.posts == 2);
  fake_cleanup(&k);
  /* no verdict: no status, the comment still guarded; a comment written
   * over again and again stops after BP_COMMENT_STATUS_ROUNDS reads */
  struct fake m = {.answers = {SETTLE_BODY(FOLLOW_SHA,
                                           "2026-01-02T00:00:01Z", "0"),
                               "{}", SETTLE_BODY(FOLLOW_SHA,
                                           "2026-01-02T00:00:01Z", "0"),
                               "{}", SETTLE_BODY(FOLLOW_SHA,
                                           "2026-01-02T00:00:01Z", "0"),
                               "{}", SETTLE_BODY(FOLLOW_SHA,
                                           "2026-01-02T00:00:01Z", "0")}};
  the_fake = &m;
  CHECK(bpi_comment_settle(&gh, "5", posted, NULL, NULL, &tr, &done, &err)
        == BP_OK);
  CHECK_EQ_INT(m.n, 2 * BP_COMMENT_STATUS_ROUNDS - 1);
  CHECK(done.reposts == BP_COMMENT_STATUS_ROUNDS - 1 && done.unsettled &&
        done.posts == 0);
  fake_cleanup(&m);
  /* ours read back: nothing more; a comment gone: nothing more */
  struct fake q = {.answers = {SETTLE_BODY(FOLLOW_SHA,
                                           "2026-01-02T00:00:02Z", "1")}};
  the_fake = &q;
  CHECK(bpi_comment_settle(&gh, "5", posted, NULL, NULL, &tr, &done, &err)
        == BP_OK);
  CHECK(q.n == 1 && !done.reposts && !done.overtaken);
  fake_cleanup(&q);
  struct fake r = {.answers = {"{\"message\":\"Not Found\"}"},
                   .status = {404}};
  the_fake = &r;
  CHECK(bpi_comment_settle(&gh, "5", posted, NULL, NULL, &tr, &done, &err)
        == BP_OK);
  CHECK(r.n == 1 && !done.reposts && !done.overtaken);
  fake_cleanup(&r);
}

/* The note on a comment that shows an older head's comparison as if
 * current: the first line a reader sees, after the hidden lines, which
 * stay first and as they were. */
static void test_mark_outdated(void)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_comment_outdated_note(&b, BP_FORGE_GITLAB, FOLLOW_SHA, SETTLE_OTHER);
  bpi_buf_addc(&b, '\0');
  CHECK_EQ_STR(b.data, "_This comparison is of `0123456`; the merge "
               "request's head is now `2222222`, whose comparison has not "
               "landed yet._");
  bpi_buf_reset(&b);
  bpi_comment_mark_outdated(&b, SETTLE_TEXT(FOLLOW_SHA,
                                            "2026-01-02T00:00:02Z", "1"),
                            BP_FORGE_GITHUB, FOLLOW_SHA, SETTLE_OTHER);
  bpi_buf_addc(&b, '\0');
  CHECK_EQ_STR(b.data, "<!-- benchprof:comment p/t -->\n"
               "<!-- benchprof:compared head=" FOLLOW_SHA
               " commit_time=2026-01-01T00:00:00Z "
               "end_time=2026-01-02T00:00:02Z -->\n"
               "_This comparison is of `0123456`; the pull request's head "
               "is now `2222222`, whose comparison has not landed yet._\n"
               "\nx\n<!-- benchprof:verdict head=" FOLLOW_SHA
               " regressions=1 unconfirmed=0 -->\n");
  /* hidden lines only, the last without its newline */
  bpi_buf_reset(&b);
  bpi_comment_mark_outdated(&b, "<!-- benchprof:comment p/t -->",
                            BP_FORGE_GITHUB, "abc", SETTLE_OTHER);
  bpi_buf_addc(&b, '\0');
  CHECK(starts(b.data, "<!-- benchprof:comment p/t -->\n_This comparison "
               "is of `abc`;"));
  bpi_buf_cleanup(&b);
}

/* The comment read back with our comparison in it: a job that knew its
 * head current asks the forge again; a push since (the request's head
 * another commit) gets the comment marked, read back again, and no
 * status set after; the head still ours, or the forge unable to say:
 * nothing more.  A comment marked already is not written again; one
 * the note would make too long, or no round left for it: said
 * (unmarked), not written. */
static void test_settle_outdated(void)
{
  struct bp_forge_target gh = {.forge = BP_FORGE_GITHUB,
                               .api_url = "http://127.0.0.1:9",
                               .repo = "own/repo", .number = "42",
                               .token = "t", .head_is_current = true};
  struct bp_comment_transport tr = {.send = fake_send};
  struct bp_comment_settled done;
  struct bp_err err = {0};
  struct bp_comment_verdict mine = {.head = FOLLOW_SHA, .regressions = 1};
  const char *posted = SETTLE_TEXT(FOLLOW_SHA, "2026-01-02T00:00:02Z", "1");
  const char *ours = SETTLE_BODY(FOLLOW_SHA, "2026-01-02T00:00:02Z", "1");
  struct bp_buf marked, answer;
  bpi_buf_init(&marked);
  bpi_buf_init(&answer);
  bpi_comment_mark_outdated(&marked, posted, BP_FORGE_GITHUB, FOLLOW_SHA,
                            SETTLE_OTHER);
  bpi_buf_addc(&marked, '\0');
  bpi_comment_body_json(&answer, marked.data);
  bpi_buf_addc(&answer, '\0');
  CHECK(!bpi_buf_failed(&marked) && !bpi_buf_failed(&answer));
  struct fake f = {.answers = {"{}", ours, SETTLE_PULL(SETTLE_OTHER), "{}",
                               answer.data, SETTLE_PULL(SETTLE_OTHER)},
                   .status = {201, 200, 200, 200, 200, 200}};
  the_fake = &f;
  CHECK(bpi_comment_settle(&gh, "5", posted, &mine, NULL, &tr, &done, &err)
        == BP_OK);
  CHECK_EQ_INT(f.n, 6);
  CHECK(starts(f.seen[2], "GET http://127.0.0.1:9/repos/own/repo/pulls/42|"));
  CHECK(starts(f.seen[3], "PATCH http://127.0.0.1:9/repos/own/repo/issues/"
               "comments/5|"));
  CHECK(f.seen[3] && strstr(f.seen[3], "_This comparison is of `0123456`; "
                            "the pull request's head is now `2222222`"));
  CHECK(starts(f.seen[4], "GET http://127.0.0.1:9/repos/own/repo/issues/"
               "comments/5|"));
  /* one status, our head's, set before the mark and never after */
  CHECK(done.outdated && !done.unmarked && done.posts == 1 &&
        !done.reposts && !done.overtaken && !done.unsettled &&
        !strcmp(done.set.head, FOLLOW_SHA) &&
        !strcmp(done.now_head, SETTLE_OTHER));
  fake_cleanup(&f);
  /* the head is still ours: done after asking */
  struct fake g = {.answers = {"{}", ours, SETTLE_PULL(FOLLOW_SHA)},
                   .status = {201, 200, 200}};
  the_fake = &g;
  CHECK(bpi_comment_settle(&gh, "5", posted, &mine, NULL, &tr, &done, &err)
        == BP_OK);
  CHECK(g.n == 3 && !done.outdated && done.posts == 1);
  fake_cleanup(&g);
  /* a comparison of the merge commit, which the forge made again (the
   * base branch moved) while the head stayed where this job found it:
   * not a push, nothing more */
  struct bp_forge_target merged = gh;
  merged.request_head = "3333333333333333333333333333333333333333";
  struct fake mc = {.answers = {"{}", ours, "{\"head\":{\"sha\":\"3333333"
                                "333333333333333333333333333333333\"},"
                                "\"merge_commit_sha\":\"444444444444444444"
                                "4444444444444444444444\"}"},
                    .status = {201, 200, 200}};
  the_fake = &mc;
  CHECK(bpi_comment_settle(&merged, "5", posted, &mine, NULL, &tr, &done,
                           &err) == BP_OK);
  CHECK(mc.n == 3 && !done.outdated && done.posts == 1);
  fake_cleanup(&mc);
  /* ...and a push to that head since: marked */
  struct fake mp = {.answers = {"{}", ours, SETTLE_PULL(SETTLE_OTHER), "{}",
                                answer.data, SETTLE_PULL(SETTLE_OTHER)},
                    .status = {201, 200, 200, 200, 200, 200}};
  the_fake = &mp;
  CHECK(bpi_comment_settle(&merged, "5", posted, &mine, NULL, &tr, &done,
                           &err) == BP_OK);
  CHECK(mp.n == 6 && done.outdated && !done.unmarked && done.posts == 1 &&
        starts(mp.seen[3], "PATCH "));
  fake_cleanup(&mp);
  /* the forge cannot say: left as it is */
  struct fake h = {.answers = {"{}", ours, "{\"message\":\"Not Found\"}"},
                   .status = {201, 200, 404}};
  the_fake = &h;
  CHECK(bpi_comment_settle(&gh, "5", posted, &mine, NULL, &tr, &done, &err)
        == BP_OK);
  CHECK(h.n == 3 && !done.outdated && done.posts == 1);
  fake_cleanup(&h);
  /* marked already (by this job's earlier round, or a twin of it): said,
   * not written again */
  struct fake k = {.answers = {answer.data, SETTLE_PULL(SETTLE_OTHER)}};
  the_fake = &k;
  CHECK(bpi_comment_settle(&gh, "5", posted, NULL, NULL, &tr, &done, &err)
        == BP_OK);
  CHECK(k.n == 2 && done.outdated && !done.posts);
  fake_cleanup(&k);
  /* no room for the note: said (unmarked), not written */
  struct bp_buf big, big_answer;
  bpi_buf_init(&big);
  bpi_buf_init(&big_answer);
  bpi_buf_adds(&big, posted);
  while(big.len < BP_COMMENT_MAX_CHARS - 20)
    bpi_buf_addc(&big, 'x');
  bpi_buf_addc(&big, '\0');
  bpi_comment_body_json(&big_answer, big.data);
  bpi_buf_addc(&big_answer, '\0');
  CHECK(!bpi_buf_failed(&big) && !bpi_buf_failed(&big_answer));
  struct fake u = {.answers = {big_answer.data, SETTLE_PULL(SETTLE_OTHER)}};
  the_fake = &u;
  CHECK(bpi_comment_settle(&gh, "5", big.data, NULL, NULL, &tr, &done, &err)
        == BP_OK);
  CHECK(u.n == 2 && done.outdated && done.unmarked);
  fake_cleanup(&u);
  bpi_buf_cleanup(&big_answer);
  bpi_buf_cleanup(&big);
  /* the head moved on when no round is left for the mark: unmarked */
  const char *older = SETTLE_BODY(FOLLOW_SHA, "2026-01-02T00:00:01Z", "0");
  struct fake w = {.answers = {older, "{}", older, "{}", older, "{}", ours,
                               SETTLE_PULL(SETTLE_OTHER)}};
  the_fake = &w;
  CHECK(bpi_comment_settle(&gh, "5", posted, NULL, NULL, &tr, &done, &err)
        == BP_OK);
  CHECK_EQ_INT(w.n, 8);
  CHECK(done.reposts == BP_COMMENT_STATUS_ROUNDS - 1 && done.unsettled &&
        done.outdated && done.unmarked);
  fake_cleanup(&w);
  /* a job that did not know its head current when it began: not asked */
  gh.head_is_current = false;
  struct fake m = {.answers = {ours}};
  the_fake = &m;
  CHECK(bpi_comment_settle(&gh, "5", posted, NULL, NULL, &tr, &done, &err)
        == BP_OK);
  CHECK(m.n == 1 && !done.outdated);
  fake_cleanup(&m);
  bpi_buf_cleanup(&answer);
  bpi_buf_cleanup(&marked);
}

static void test_no_base(void)
{
  struct bp_comment_opts o = {.project = NULL};
  struct bp_cmp_side head = {.project = (char *)"proj",
                             .branch = (char *)"feat<b>x",
                             .hash = (char *)"0123456789abcdef0123456789"
                                             "abcdef01234567",
                             .testbed = (char *)"tb"};
  struct bp_buf b;
  struct bp_err err = {0};
  bpi_buf_init(&b);
  CHECK(bpi_comment_no_base(&o, &head, "ma`in", "branch 'ma`in' has no run "
                            "<script>x</script> [link](http://e.x)", &b,
                            &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  const char *md = b.data ? b.data : "";
  char *marker = bpi_comment_find_marker(md);
  CHECK(marker && strstr(marker, "proj/tb"));
  free(marker);
  CHECK(strstr(md, "no base to compare with") != NULL);
  CHECK(strstr(md, "`0123456`") != NULL);
  CHECK(!unescaped(md, "<script>"));
  /* inside a code span markup is inert */
  CHECK(strstr(md, "`feat<b>x`") != NULL);
  CHECK(!unescaped(md, "](http"));
  CHECK(strstr(md, "ma`in") == NULL);
  CHECK(strstr(md, "has no run") != NULL);
  /* a suite's: its marker and its name in the title */
  bpi_buf_reset(&b);
  o.suite = "bench<a";
  CHECK(bpi_comment_no_base(&o, &head, "main", "none", &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  md = b.data ? b.data : "";
  CHECK(strncmp(md, "<!-- benchprof:comment proj/tb suite=bench_a -->\n",
                strlen("<!-- benchprof:comment proj/tb suite=bench_a -->\n"))
        == 0);
  CHECK(strstr(md, "\n### benchprof (suite `bench<a`): no base to compare "
               "with\n") != NULL);
  CHECK(strstr(md, "Run benchprof on the base branch") != NULL);
  /* what the base branch has instead: the advice, escaped */
  bpi_buf_reset(&b);
  o.base_hint = "branch 'main' has a run <i>without</i> a suite";
  CHECK(bpi_comment_no_base(&o, &head, "main", "none", &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  md = b.data ? b.data : "";
  CHECK(strstr(md, "\n\nThe base branch's other runs: branch 'main' has "
               "a run ") != NULL);
  CHECK(!unescaped(md, "<i>"));
  CHECK(strstr(md, "Run benchprof on the base branch") == NULL);
  bpi_buf_cleanup(&b);
}

/* The compared line names the suite; a base run of another command
 * with one-sided benchmarks says why (never the commands). */
static void test_suite_and_command(void)
{
  struct bp_comment_opts o = {.project = "p", .testbed = "t",
                              .suite = "s1"};
  struct bp_err err = {0};
  struct bp_buf b;
  struct bp_cmp *c = synthetic(3, 1, 1, "b");
  c->head.testbed = strdup("box");
  c->base.command = strdup("./bench_a --secret=x");
  c->head.command = strdup("./bench_a --secret=x");
  c->benches[2].presence = BP_CMP_NEW;
  c->benches[2].measures->in_base = false;
  bpi_compare_measure(c->benches[2].measures, 2);
  c->nunchanged--;
  c->nnew++;
  bpi_buf_init(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, " on testbed `box`, suite `s1`; changes confirmed "
               "beyond 2% are flagged.") != NULL);
  CHECK(strstr(b.data, "another command") == NULL);
  free(c->head.command);
  c->head.command = strdup("./bench_b");
  bpi_buf_reset(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  /* both runs have the suite: its command changed, no --suite advice */
  CHECK(strstr(b.data, "\n_The base run is of another command than this "
               "run's, so benchmarks may show as new or removed: the "
               "suite's command changed._\n") != NULL);
  CHECK(strstr(b.data, "--suite") == NULL);
  CHECK(strstr(b.data, "secret") == NULL && strstr(b.data, "bench_b") ==
        NULL);
  /* without a suite: give each step its own */
  o.suite = NULL;
  bpi_buf_reset(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "\n_The base run is of another command than this "
               "run's, so benchmarks may show as new or removed: a job with "
               "several benchmark steps gives each its own `--suite NAME`._"
               "\n") != NULL);
  /* the same program and arguments in two runners' work directories, or
   * two cargo builds of it: not another command */
  const char *same[][2] = {
    {"/home/runner/_work/a/a/bench_a --secret=x", "/builds/x/bench_a "
     "--secret=x"},
    {"'/home/my runner/bench_a' --secret=x", "/builds/x/bench_a --secret=x"},
    {"/t/deps/bench_a-0123456789abcdef --secret=x",
     "/u/deps/bench_a-fedcba9876543210 --secret=x"},
    /* any build hash, as benchmarks pair: not only cargo's 16 digits */
    {"/t/emit-3f2a9c1d", "/u/emit-77ab0e12"},
    {"/t/bench_a-0123456789abcdef", "/t/bench_a-0123456789abcde"},
    {"/t/deps/mybench-0123456789abcdef 1", "/t/mybench 1"},
  };
  for(size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
    free(c->base.command);
    free(c->head.command);
    c->base.command = strdup(same[i][0]);
    c->head.command = strdup(same[i][1]);
    CHECK(!bpi_compare_other_command(c));
    bpi_buf_reset(&b);
    CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
    bpi_buf_addc(&b, '\0');
    CHECK(strstr(b.data, "another command") == NULL);
  }
  /* other arguments, another program, or one quoted apart: another */
  const char *other[][2] = {
    {"/a/bench_a --secret=x", "/b/bench_a --secret=y"},
    {"/a/bench_a --secret=x", "/a/bench_b --secret=x"},
    {"/a/emit.3f2a9c1d", "/a/emit_77ab0e12"},
    {"/a/sort-1000000", "/a/sort-2000000"},
    {"/a/emit-3f2a9c1d", "/a/emit-77ab0e12 1"},
    {"'/a/x y/bench a' 1", "/a/bench 1"},
  };
  for(size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
    free(c->base.command);
    free(c->head.command);
    c->base.command = strdup(other[i][0]);
    c->head.command = strdup(other[i][1]);
    CHECK(bpi_compare_other_command(c));
  }
  /* the same benchmarks on both sides: nothing to explain */
  c->benches[2].presence = BP_CMP_BOTH;
  c->nnew--;
  bpi_buf_reset(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "another command") == NULL);
  bpi_compare_free(c);
  bpi_buf_cleanup(&b);
}

/* A benchmark compared under the base's other name (a build hash): one
 * line, its names as code; several left apart: the advice to name it. */
static void test_hash_names(void)
{
  struct bp_comment_opts o = {.project = "p", .testbed = "t"};
  struct bp_err err = {0};
  struct bp_buf b;
  struct bp_cmp *c = synthetic(2, 1, 1, "b");
  free(c->benches[0].name);
  c->benches[0].name = strdup("mybench-77ab0e12");
  c->benches[0].base_name = strdup("mybench-3f2a9c1d");
  bpi_buf_init(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "\n_Compared `mybench-77ab0e12` with the base's "
               "`mybench-3f2a9c1d`: their names differ only by a build "
               "hash._\n") != NULL);
  CHECK(strstr(b.data, "--name") == NULL);
  free(c->benches[0].base_name);
  c->benches[0].base_name = NULL;
  c->hash_names_unpaired = true;
  bpi_buf_reset(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "_Compared") == NULL);
  CHECK(strstr(b.data, "differ only by a build hash in their names, so "
               "they are not compared: keep each benchmark's name from "
               "one build to the next (for names the harness reports, have "
               "it name its benchmarks without the build hash; for a run "
               "without harness output, `benchprof run --name NAME`)._")
        != NULL);
  bpi_compare_free(c);
  bpi_buf_cleanup(&b);
}

/* A list page with our comment (by "Me", author id 5), its body given. */
static char *page_with(const char *body)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_buf_adds(&b, "[{\"id\": 31, \"body\": ");
  bpi_buf_json_str(&b, body);
  bpi_buf_adds(&b, ", \"user\": {\"login\": \"Me\", \"type\": \"User\"}, "
               "\"author\": {\"id\": 5}}]");
  bpi_buf_addc(&b, '\0');
  return b.data;
}

/* One comment's compared line as benchprof writes it, after the marker. */
static char *comment_of(const char *head, const char *time, const char *end,
                        const char *text)
{
  struct bp_buf b;
  const struct bp_run_when w = {head, time, end};
  bpi_buf_init(&b);
  bpi_buf_adds(&b, "<!-- benchprof:comment p/t -->\n");
  bpi_comment_compared_line(&b, &w);
  bpi_buf_adds(&b, text);
  bpi_buf_addc(&b, '\0');
  return b.data;
}

/* Post mine where existing is our comment, on forge; whether it was
 * written (PATCH/PUT) or left. */
static bool posted_over(enum bp_forge forge, const char *existing,
                        const char *mine, struct bp_comment_posted *res)
{
  struct bp_forge_target t = {.forge = forge, .api_url = "http://127.0.0.1:9",
                              .repo = forge == BP_FORGE_GITLAB ? "42" :
                                      "own/repo",
                              .number = "7", .token = "tok"};
  struct bp_comment_transport tr = {.send = fake_send};
  struct bp_err err = {0};
  char *page = page_with(existing);
  struct fake f = {.answers = {page, forge == BP_FORGE_GITLAB ?
                               "{\"id\": 5}" : "{\"login\": \"me\"}",
                               "{\"id\": 31}"}};
  the_fake = &f;
  *res = (struct bp_comment_posted){.id = NULL};
  CHECK(bpi_comment_post(&t, mine, &tr, res, &err) == BP_OK);
  bool wrote = f.n == 3 && f.seen[2] &&
               (starts(f.seen[2], "PATCH ") || starts(f.seen[2], "PUT "));
  CHECK(wrote ? !res->left && res->updated : f.n == 2 && res->left);
  CHECK(res->id && !strcmp(res->id, "31"));
  fake_cleanup(&f);
  free(page);
  return wrote;
}

/* Jobs finishing out of order: our comment about a newer comparison is
 * left alone (nothing written), an older one replaced; the same commit
 * by its run's end; a comment without the compared line (an older
 * benchprof's) replaced.  GitHub and GitLab alike. */
static void test_post_order(void)
{
  char *newer = comment_of(SHA_NEW, DAY2, END1, "newer");
  char *older_later = comment_of(SHA_OLD, DAY1, END2, "older, ended later");
  char *rerun = comment_of(SHA_NEW, DAY2, END2, "newer, run again");
  char *no_time = comment_of(SHA_OLD, NULL, END2, "git knew no time");
  const char *plain = "<!-- benchprof:comment p/t -->\nold benchprof";
  const char *mine_plain = "<!-- benchprof:comment p/t -->\nno line";
  struct bp_comment_posted res;
  for(int k = 0; k < 2; k++) {
    enum bp_forge forge = k ? BP_FORGE_GITLAB : BP_FORGE_GITHUB;
    /* a newer head commit shown: an older one's comparison leaves it,
     * even though its run ended later */
    CHECK(!posted_over(forge, newer, older_later, &res));
    CHECK(!strcmp(res.shown.head, SHA_NEW) &&
          !strcmp(res.shown.commit_time, DAY2) &&
          !strcmp(res.shown.end_time, END1));
    bpi_comment_posted_cleanup(&res);
    /* an older comparison shown: replaced */
    CHECK(posted_over(forge, older_later, newer, &res));
    bpi_comment_posted_cleanup(&res);
    /* the same commit: the run that ended later wins */
    CHECK(posted_over(forge, newer, rerun, &res));
    bpi_comment_posted_cleanup(&res);
    CHECK(!posted_over(forge, rerun, newer, &res));
    bpi_comment_posted_cleanup(&res);
    /* the same comparison again: written (nothing newer is lost) */
    CHECK(posted_over(forge, newer, newer, &res));
    bpi_comment_posted_cleanup(&res);
    /* a side without a commit time: the end time decides */
    CHECK(!posted_over(forge, no_time, newer, &res));
    bpi_comment_posted_cleanup(&res);
    /* no compared line on the pull request, or in mine: replaced */
    CHECK(posted_over(forge, plain, older_later, &res));
    bpi_comment_posted_cleanup(&res);
    CHECK(posted_over(forge, newer, mine_plain, &res));
    bpi_comment_posted_cleanup(&res);
  }
  free(newer);
  free(older_later);
  free(rerun);
  free(no_time);
}

/* Two jobs that listed before either made a comment both POST one: after
 * the POST the comments are listed again, and of ours (the POST answer's
 * author) with the marker the lowest id survives.  The other job's
 * comparison goes into it when newer (as the edit decides), its own
 * comment is deleted; a failed DELETE is a warning.  Another account's
 * comment with the marker, though lower, is never chosen. */
static void twin_case(enum bp_forge forge, bool head_current,
                      const char *survivor, const char *mine,
                      const char *relist_extra, long delete_status,
                      struct fake *f, struct bp_comment_posted *res,
                      char **owned)   /* the list answered: the caller's */
{
  bool gl = forge == BP_FORGE_GITLAB;
  struct bp_forge_target t = {.forge = forge, .api_url = "http://127.0.0.1:9",
                              .repo = gl ? "42" : "own/repo", .number = "7",
                              .token = "tok", .head_is_current = head_current};
  struct bp_comment_transport tr = {.send = fake_send};
  struct bp_err err = {0};
  struct bp_buf list;
  const char *me = "\"user\": {\"login\": \"Me\", \"type\": \"User\"}, "
                   "\"author\": {\"id\": 5}";
  bpi_buf_init(&list);
  /* 49: another account's, with the marker; 50: the other job's; 51: ours */
  bpi_buf_adds(&list, "[{\"id\": 49, \"body\": \"<!-- benchprof:comment p/t "
               "-->\", \"user\": {\"login\": \"x\"}, \"author\": {\"id\": 6}}");
  if(survivor) {
    bpi_buf_adds(&list, ", {\"id\": 50, \"body\": ");
    bpi_buf_json_str(&list, survivor);
    bpi_buf_printf(&list, ", %s}", me);
  }
  bpi_buf_printf(&list, ", {\"id\": 51, \"body\": \"<!-- benchprof:comment "
                 "p/t -->\", %s}%s]", me, relist_extra ? relist_extra : "");
  bpi_buf_addc(&list, '\0');
  *owned = list.data;
  *f = (struct fake){.answers = {"[]", gl ? "{\"id\": 51, \"body\": \"x\", "
                                 "\"author\": {\"id\": 5}}" :
                                 "{\"id\": 51, \"body\": \"x\", \"user\": "
                                 "{\"login\": \"me\"}, \"html_url\": "
                                 "\"https://gh.example/p#issuecomment-51\"}",
                                 *owned},
                     .status = {200, 201, 200}};
  /* then the edit of 50 (when not left) and the DELETE of 51 */
  bool left = survivor && strstr(mine, "older");
  size_t n = 3;
  if(survivor && !left)
    f->answers[n++] = gl ? "{\"id\": 50, \"body\": \"x\"}" :
                      "{\"id\": 50, \"html_url\": "
                      "\"https://gh.example/p#issuecomment-50\"}";
  if(survivor) {
    f->answers[n] = delete_status == 204 ? "" : "{\"message\": \"no\"}";
    f->status[n] = delete_status;
  }
  the_fake = f;
  *res = (struct bp_comment_posted){.id = NULL};
  CHECK(bpi_comment_post(&t, mine, &tr, res, &err) == BP_OK);
}

static void twin_done(struct fake *f, struct bp_comment_posted *res,
                      char **list)
{
  fake_cleanup(f);
  bpi_comment_posted_cleanup(res);
  free(*list);
  *list = NULL;
}

static void test_post_twins(void)
{
  char *older = comment_of(SHA_NEW, DAY2, END1, "older run");
  char *newer = comment_of(SHA_NEW, DAY2, END2, "newer run");
  char *other_later = comment_of(SHA_OLD, "2030-01-01T00:00:00Z", END2,
                                 "another commit, committed later");
  struct bp_comment_posted res;
  struct fake f;
  char *list;
  for(int k = 0; k < 2; k++) {
    enum bp_forge forge = k ? BP_FORGE_GITLAB : BP_FORGE_GITHUB;
    const char *edit = k ? "PUT http://127.0.0.1:9/projects/42/"
                           "merge_requests/7/notes/50|" :
                           "PATCH http://127.0.0.1:9/repos/own/repo/"
                           "issues/comments/50|";
    const char *del = k ? "DELETE http://127.0.0.1:9/projects/42/"
                          "merge_requests/7/notes/51|" :
                          "DELETE http://127.0.0.1:9/repos/own/repo/"
                          "issues/comments/51|";
    /* ours is newer: 50 edited with it, 51 deleted; the list asked
     * again after the POST, who we are taken from the POST's answer */
    twin_case(forge, false, older, newer, NULL, 204, &f, &res, &list);
    CHECK_EQ_INT(f.n, 5);
    CHECK(f.seen[2] && starts(f.seen[2], "GET "));
    CHECK(f.seen[3] && starts(f.seen[3], edit) &&
          strstr(f.seen[3], "newer run"));
    CHECK(f.seen[4] && starts(f.seen[4], del));
    CHECK(res.id && !strcmp(res.id, "50") && res.updated && !res.left);
    CHECK(res.duplicate && !strcmp(res.duplicate, "51") &&
          !res.duplicate_kept && !res.warning.code);
    /* the commit status links the survivor (GitHub's page) */
    CHECK(k ? !res.url : res.url && !strcmp(res.url, "https://gh.example/"
                                            "p#issuecomment-50"));
    twin_done(&f, &res, &list);
    /* ours is older: 50 left as it is (and no status: res.left), 51
     * deleted */
    twin_case(forge, false, newer, older, NULL, 204, &f, &res, &list);
    CHECK_EQ_INT(f.n, 4);
    CHECK(f.seen[3] && starts(f.seen[3], del));
    CHECK(res.left && !res.updated && res.id && !strcmp(res.id, "50"));
    CHECK(!strcmp(res.shown.end_time, END2) && !res.url);
    CHECK(res.duplicate && !res.duplicate_kept);
    twin_done(&f, &res, &list);
    /* ours is the lowest (the other job's, 52, came after): nothing more;
     * another account's 49 counts for nothing */
    twin_case(forge, false, NULL, newer, ", {\"id\": 52, \"body\": \"<!-- "
              "benchprof:comment p/t -->\", \"user\": {\"login\": \"me\"}, "
              "\"author\": {\"id\": 5}}", 204, &f, &res, &list);
    CHECK_EQ_INT(f.n, 3);
    CHECK(res.id && !strcmp(res.id, "51") && !res.updated && !res.left &&
          !res.duplicate);
    twin_done(&f, &res, &list);
    /* the DELETE refused: a warning, the survivor edited all the same */
    twin_case(forge, false, older, newer, NULL, 403, &f, &res, &list);
    CHECK_EQ_INT(f.n, 5);
    CHECK(res.id && !strcmp(res.id, "50") && res.updated);
    CHECK(res.duplicate && res.duplicate_kept && res.warning.code &&
          strstr(res.warning.msg, "comment 51, a duplicate, not deleted"));
    twin_done(&f, &res, &list);
    /* a DELETE that finds it gone (404: a retry) is done */
    twin_case(forge, false, older, newer, NULL, 404, &f, &res, &list);
    CHECK(res.duplicate && !res.duplicate_kept && !res.warning.code);
    twin_done(&f, &res, &list);
    /* the request's head is ours (head_is_current): a survivor about
     * another commit is out of date, whatever its times */
    twin_case(forge, true, other_later, newer, NULL, 204, &f, &res, &list);
    CHECK_EQ_INT(f.n, 5);
    CHECK(f.seen[3] && starts(f.seen[3], edit));
    CHECK(res.updated && !res.left);
    twin_done(&f, &res, &list);
    twin_case(forge, false, other_later, newer, NULL, 204, &f, &res, &list);
    CHECK_EQ_INT(f.n, 4);
    CHECK(res.left);
    twin_done(&f, &res, &list);
  }
  free(older);
  free(newer);
  free(other_later);
}

/* The base branch's latest run standing in for the base commit's: the
 * title calls the verdict provisional, a note below "Comparing" names
 * the commit looked for and the latest run's; a diff with no link to
 * reach it is named by its path in the compare folder. */
static void test_base_latest_and_diff_path(void)
{
  struct bp_err err = {0};
  struct bp_buf b;
  bpi_buf_init(&b);
  struct bp_cmp *c = synthetic(2, 1, 3, "bench");
  c->base.branch = strdup("main");
  c->base.hash = strdup("1111111111111111");
  struct bp_comment_opts o = {.project = "p", .testbed = "t",
                              .base_latest = true,
                              .base_wanted = "3333333333333333"};
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "; 1 unchanged (provisional: base commit not "
               "profiled)\n\n**1 regression confirmed"));
  CHECK(strstr(b.data, " are flagged.\n\n_The base commit `3333333` has no "
               "run in the store: compared with the latest run of `main` "
               "(`1111111`) instead._\n\n| Benchmark |"));
  /* a plain compare: beside it, and no run folder to name (there is
   * none: the path was "compare/bench0/diff.svg in a run's folder") */
  CHECK(strstr(b.data, "\nThe differential flame graph is "
               "`bench0/diff.svg` beside this comment.\n"));
  CHECK(!strstr(b.data, "compare/bench0") && !strstr(b.data, "run's folder"));
  /* a run's comparison, posted on a pull request: nothing is beside it,
   * the path is the run's on the runner; published to a store with no
   * web URL: its key there */
  o.run_output = true;
  bpi_buf_reset(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "\nThe differential flame graph is "
               "`compare/bench0/diff.svg` in the run's output directory, on "
               "the runner that ran the job.\n"));
  CHECK(!strstr(b.data, "beside this comment (`compare/"));
  c->benches[0].diff_url = strdup("file:///s/p/main/h/t/bench0/diff.svg");
  c->benches[0].diff_key = strdup("p/main/h/t/bench0/diff.svg");
  bpi_buf_reset(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "\nThe differential flame graph is in the store, at "
               "`p/main/h/t/bench0/diff.svg`.\n"));
  CHECK(!strstr(b.data, "`compare/bench0/diff.svg` in the run's"));
  CHECK(!strstr(b.data, "file:///s"));
  o.run_output = false;
  free(c->benches[0].diff_url);
  free(c->benches[0].diff_key);
  c->benches[0].diff_url = c->benches[0].diff_key = NULL;
  /* not a hash: as given, in a code span */
  o.base_wanted = "v1.2";
  bpi_buf_reset(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "\n_The base commit `v1.2` has no run in the store: "
               "compared with the latest run of `main` (`1111111`) "
               "instead._\n"));
  /* the base commit unknown */
  o.base_wanted = NULL;
  bpi_buf_reset(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "\n_The base commit is unknown: compared with the "
               "latest run of `main` (`1111111`) instead._\n"));
  /* the base commit's own run: nothing provisional; a served compare
   * folder links the diff instead of naming its path */
  o.base_latest = false;
  o.compare_url = "https://ci.example/compare/";
  bpi_buf_reset(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(!strstr(b.data, "provisional") && !strstr(b.data, "base commit"));
  CHECK(strstr(b.data, "[diff](https://ci.example/compare/bench0/diff.svg)"));
  CHECK(!strstr(b.data, "The differential flame graph is"));
  bpi_compare_free(c);
  bpi_buf_cleanup(&b);
}

/* A regression in waiting: bench0 waits 40 ms longer per run in stack. */
static struct bp_cmp *waiting(const char *stack, bool off_lines)
{
  struct bp_cmp *c = synthetic(1, 1, 0, "bench");
  struct bp_cmp_bench *cb = &c->benches[0];
  cb->off_stack = strdup(stack);
  cb->off_base_ns = 10e6;
  cb->off_head_ns = 50e6;
  if(off_lines) {
    cb->off_lines = calloc(1, sizeof(*cb->off_lines));
    cb->off_lines[0] = (struct bp_diff_line){.stack = strdup(stack),
                                             .base = 10000, .head = 50000};
    cb->off_nlines = 1;
  }
  return c;
}

static void test_off_cpu_stack_cut(void)
{
  struct bp_comment_opts o = {.project = "p", .testbed = "t"};
  struct bp_err err = {0};
  struct bp_buf b;
  bpi_buf_init(&b);
  /* 10 frames of 20 chars then the leaf: 232 chars, cut to the frames
   * nearest the leaf that fit, whole */
  const char *stack = "offcpu;__libc_start_call_main;__libc_start_main_impl;"
                      "_start_the_program_x;main_of_the_program;"
                      "run_the_benchmark_now;sleep_in_nap_outer_loop;"
                      "sleep_in_nap_inner_loop;clock_nanosleep_wrapper;"
                      "__clock_nanosleep";
  struct bp_cmp *c = waiting(stack, false);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  const char *line = strstr(b.data, "Waits longer in `");
  CHECK(line != NULL);
  if(line) {
    const char *code = line + strlen("Waits longer in `");
    const char *end = strchr(code, '`');
    CHECK(end && !strncmp(code, "\xe2\x80\xa6;", 4));
    /* what is kept is a whole-frame tail of the stack, the leaf last */
    size_t kept = end ? (size_t)(end - code) - 4 : 0;
    const char *tail = stack + strlen(stack) - kept;
    CHECK(end && kept > 0 && tail[-1] == ';' &&
          !strncmp(code + 4, tail, kept));
    CHECK(end && (size_t)(end - code) - 2 <= BP_COMMENT_NAME_CHARS);
    /* 65 chars kept: the next frame to the left (24) would not fit */
    CHECK(!strncmp(tail, "sleep_in_nap_inner_loop;", 24));
    CHECK(end && !memmem(code, (size_t)(end - code), "outer", 5));
  }
  CHECK(!strstr(b.data, "c_start_main;"));
  bpi_compare_free(c);
  /* a leaf longer than the line on its own: the cut still marked, the
   * line no longer than a name's */
  char longleaf[200];
  snprintf(longleaf, sizeof(longleaf), "offcpu;main;%0120d", 7);
  c = waiting(longleaf, false);
  bpi_buf_reset(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  line = strstr(b.data, "Waits longer in ");
  CHECK(line && strstr(line, " (") &&
        (size_t)(strstr(line, " (") - line) - 16 <=
        BP_COMMENT_NAME_CHARS + 2);   /* "…" is 3 bytes */
  CHECK(!strstr(b.data, "main;0000"));
  bpi_compare_free(c);
  /* a short stack: whole, no mark */
  c = waiting("offcpu;main;sleep_in_nap;__clock_nanosleep", false);
  bpi_buf_reset(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "Waits longer in "
               "`offcpu;main;sleep_in_nap;__clock_nanosleep` ("));
  /* without an off-CPU diff the on-CPU one is the plain "diff" */
  CHECK(!strstr(b.data, "off-CPU diff") && !strstr(b.data, "on-CPU diff"));
  CHECK(!strstr(b.data, "on-CPU differential"));
  bpi_compare_free(c);
  bpi_buf_cleanup(&b);
}

static void test_off_cpu_diff(void)
{
  struct bp_comment_opts o = {.project = "p", .testbed = "t",
                              .compare_url = "https://ci.example/cmp/"};
  struct bp_err err = {0};
  struct bp_buf b;
  bpi_buf_init(&b);
  struct bp_cmp *c = waiting("offcpu;main;sleep_in_nap", true);
  /* a served compare folder: both linked, each saying which time */
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, " off CPU per run) · [off-CPU diff]"
               "(https://ci.example/cmp/bench0/diff.offcpu.svg)\n"));
  CHECK(strstr(b.data, "[on-CPU diff](https://ci.example/cmp/bench0/"
               "diff.svg)"));
  CHECK(!strstr(b.data, "[diff]("));
  /* published: the store's URLs */
  c->benches[0].diff_url = strdup("https://s.example/p/bench0/diff.svg");
  c->benches[0].off_diff_url =
    strdup("https://s.example/p/bench0/diff.offcpu.svg");
  bpi_buf_reset(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "[off-CPU diff](https://s.example/p/bench0/"
               "diff.offcpu.svg)\n"));
  CHECK(strstr(b.data, "[on-CPU diff](https://s.example/p/bench0/"
               "diff.svg)"));
  free(c->benches[0].diff_url);
  free(c->benches[0].off_diff_url);
  c->benches[0].diff_url = c->benches[0].off_diff_url = NULL;
  /* local files: the paths beside the comment, each named */
  o.compare_url = NULL;
  bpi_buf_reset(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "\nThe off-CPU differential flame graph is "
               "`bench0/diff.offcpu.svg` beside this comment.\n"));
  CHECK(strstr(b.data, "\nThe on-CPU differential flame graph is "
               "`bench0/diff.svg` beside this comment.\n"));
  /* a run's comparison; a store without web URLs: its key */
  o.run_output = true;
  c->benches[0].off_diff_url = strdup("file:///s/p/bench0/diff.offcpu.svg");
  c->benches[0].off_diff_key = strdup("p/bench0/diff.offcpu.svg");
  bpi_buf_reset(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "\nThe off-CPU differential flame graph is in the "
               "store, at `p/bench0/diff.offcpu.svg`.\n"));
  CHECK(strstr(b.data, "\nThe on-CPU differential flame graph is "
               "`compare/bench0/diff.svg` in the run's output directory"));
  CHECK(!strstr(b.data, "file:///s"));
  /* no waiting stack changed: the off-CPU diff is still linked */
  free(c->benches[0].off_stack);
  free(c->benches[0].off_diff_url);
  free(c->benches[0].off_diff_key);
  c->benches[0].off_stack = NULL;
  c->benches[0].off_diff_url = c->benches[0].off_diff_key = NULL;
  o.compare_url = "https://ci.example/cmp";
  bpi_buf_reset(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "\nNo waiting stack's off-CPU time changed · "
               "[off-CPU diff](https://ci.example/cmp/bench0/"
               "diff.offcpu.svg)\n"));
  bpi_compare_free(c);
  bpi_buf_cleanup(&b);
}

/* A wait within the off-CPU noise band is not named: the line says no
 * waiting stack changed beyond it, the band, and the largest change;
 * the off-CPU diff still linked.  A change beyond it is named. */
static void test_off_cpu_within_noise(void)
{
  struct bp_comment_opts o = {.project = "p", .testbed = "t",
                              .compare_url = "https://ci.example/cmp/"};
  struct bp_err err = {0};
  struct bp_buf b;
  bpi_buf_init(&b);
  struct bp_cmp *c = waiting("offcpu;main;sleep_in_nap", true);
  struct bp_cmp_bench *cb = &c->benches[0];
  cb->off_head_ns = 10.3e6;   /* +3%, within off-cpu's -3% to +4% */
  cb->has_off_band = true;
  cb->off_band = (struct bp_cmp_band){.lo = -0.03, .hi = 0.04,
                                      .basis = BP_CMP_BAND_INTERVAL,
                                      .measure = "off-cpu"};
  cb->off_within_noise = true;
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "\nNo waiting stack's off-CPU time changed beyond "
               "the off-CPU noise (a change the benchmark's own noise could "
               "make of a stack's base time: off-cpu's interval, -3.0% to "
               "+4.0%); the largest, `offcpu;main;sleep_in_nap`, +300 µs "
               "off CPU per run · [off-CPU diff](https://ci.example/cmp/"
               "bench0/diff.offcpu.svg)\n"));
  CHECK(!strstr(b.data, "Waits longer") && !strstr(b.data, "Waits less"));
  /* one value a side: the band is off-cpu's own change */
  cb->off_band = (struct bp_cmp_band){.hi = 3, .basis = BP_CMP_BAND_TOTAL,
                                      .measure = "off-cpu"};
  bpi_buf_reset(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "base time: off-cpu's own change, with no interval, "
               "+0.0% to +300.0%); the largest, "));
  /* beyond the band: named */
  cb->off_within_noise = false;
  bpi_buf_reset(&b);
  CHECK(bpi_comment_markdown(c, &o, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "Waits longer in `offcpu;main;sleep_in_nap` (+300 µs "
               "off CPU per run) · [off-CPU diff]"));
  CHECK(!strstr(b.data, "beyond the off-CPU noise"));
  bpi_compare_free(c);
  bpi_buf_cleanup(&b);
}

int main(void)
{
  test_status();
  test_status_follow();
  test_settle_guard();
  test_mark_outdated();
  test_settle_outdated();
  test_no_base();
  test_suite_and_command();
  test_hash_names();
  test_escape();
  test_links();
  test_cut();
  test_private_store_said_once();
  test_function_rows();
  test_function_rows_name_tops();
  test_cut_unconfirmed();
  test_cut_one_sided();
  test_per_iteration_words();
  test_profile_missing();
  test_verdict();
  test_rows_and_notes();
  test_not_confirmed_words();
  test_no_function_reason();
  test_interrupts_not_named();
  test_wall_time_note();
  test_wall_time_only_counting();
  test_notes_name_measures();
  test_notes_uncounted();
  test_hostile_comment();
  test_link_repetition();
  test_no_samples_no_diff();
  test_plot_url();
  test_plot_comment();
  test_post();
  test_post_lost_answer();
  test_post_foreign();
  test_pr_head();
  test_compared_line();
  test_compared_in_comment();
  test_post_order();
  test_post_twins();
  test_base_latest_and_diff_path();
  test_off_cpu_stack_cut();
  test_off_cpu_diff();
  test_off_cpu_within_noise();
  return check_exit();
}
