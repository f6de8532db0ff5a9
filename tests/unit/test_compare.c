/* compare: two run directories written here by hand -> measure deltas
 * with their flags and directions, function shares normalized to each
 * side's samples, new/vanished functions, new/removed benchmarks, the
 * differential folded lines and flame graphs, compare.json, and bad
 * input named with its file; store references parsed, and runs stored
 * as publish.c stores them found and fetched; the head's Bencher ids
 * (for the plot link) read from either manifest, and ISO 8601 times. */
#include "bp_setup.h"
#include "benchname.h"
#include "comment.h"
#include "compare.h"
#include "err.h"
#include "fileio.h"
#include "stats.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char root[64];

static void put(const char *dir, const char *file, const char *text)
{
  char path[512];
  struct bp_err err = {0};
  snprintf(path, sizeof(path), "%s/%s", dir, file);
  char *slash = strrchr(path, '/');
  *slash = '\0';
  CHECK(bpi_file_mkdirs(path, &err) == BP_OK);
  *slash = '/';
  CHECK(bpi_file_write(path, text, strlen(text), false, &err) == BP_OK);
}

/* A run with benchmarks "a" (in a/) and one more (only_base or
 * only_head); folded is a's stacks.  publication: "" or a stored
 * manifest's (publish.c) "publication" member; its Gecko profile's URL,
 * when published, is in its artifact (gecko_url: "" or a member). */
static void make_run_url(const char *dir, const char *other,
                         const char *report, const char *folded,
                         const char *publication, const char *gecko_url)
{
  char man[4096];
  snprintf(man, sizeof(man),
    "{\"report\": \"report.json\", %s \"benchmarks\": ["
    "{\"name\": \"a\", \"profile\": \"a\", \"artifacts\": ["
    "{\"file\": \"a/profile.json.gz\", %s\"kind\": \"firefox-profiler\"},"
    "{\"file\": \"a/profile.folded\", \"kind\": \"folded-stacks\"},"
    "{\"file\": \"a/summary.json\", \"kind\": \"summary\"}]},"
    "{\"name\": \"%s\", \"profile\": \"%s\", \"artifacts\": ["
    "{\"file\": \"%s/profile.folded\", \"kind\": \"folded-stacks\"}]}]}",
    publication, gecko_url, other, other, other);
  put(dir, "manifest.json", man);
  put(dir, "report.json", report);
  put(dir, "a/profile.folded", folded);
  put(dir, "a/summary.json", "{\"threads\": [{\"samples\": 3}, "
      "{\"samples\": 90}, {\"samples\": 7}]}");
  char path[256];
  snprintf(path, sizeof(path), "%s/profile.folded", other);
  put(dir, path, "p;main 5\n");
}

static void make_run(const char *dir, const char *other, const char *report,
                     const char *folded, const char *publication)
{
  make_run_url(dir, other, report, folded, publication, "");
}

static const struct bp_cmp_bench *bench(const struct bp_cmp *c,
                                        const char *name)
{
  for(size_t i = 0; i < c->nbenches; i++)
    if(!strcmp(c->benches[i].name, name))
      return &c->benches[i];
  return NULL;
}

static const struct bp_cmp_measure *measure(const struct bp_cmp_bench *b,
                                            const char *slug)
{
  for(size_t i = 0; b && i < b->nmeasures; i++)
    if(!strcmp(b->measures[i].slug, slug))
      return &b->measures[i];
  return NULL;
}

static const struct bp_cmp_func *func(const struct bp_cmp_bench *b,
                                      const char *name)
{
  for(size_t i = 0; b && i < b->nfuncs; i++)
    if(!strcmp(b->funcs[i].name, name))
      return &b->funcs[i];
  return NULL;
}

static size_t count_of(const char *s, const char *what)
{
  size_t n = 0;
  for(const char *p = strstr(s, what); p; p = strstr(p + 1, what))
    n++;
  return n;
}

static bool near(double a, double b)
{
  return a - b < 1e-9 && b - a < 1e-9;
}

static void test_measure_flags(void)
{
  struct bp_cmp_measure m = {.slug = "latency", .in_base = true,
                             .in_head = true, .base = 100, .head = 102};
  bpi_compare_measure(&m, 2);
  CHECK_EQ_INT(m.change, BP_CMP_UNCHANGED);   /* exactly 2%: not beyond */
  m.head = 102.5;
  bpi_compare_measure(&m, 2);
  CHECK_EQ_INT(m.change, BP_CMP_REGRESSION);  /* slower */
  CHECK(near(m.pct, 2.5) && near(m.delta, 2.5));
  /* one value a side: no spread to confirm it with */
  CHECK_EQ_INT(m.flag, BP_CMP_UNCHANGED);
  CHECK_EQ_INT(m.basis, BP_CMP_SINGLE);
  CHECK(BP_CMP_UNCONFIRMED(&m));
  m.head = 97;
  bpi_compare_measure(&m, 2);
  CHECK_EQ_INT(m.change, BP_CMP_IMPROVEMENT);
  bpi_compare_measure(&m, 5);
  CHECK_EQ_INT(m.change, BP_CMP_UNCHANGED);   /* threshold 5% */

  /* throughput: higher is better, so the same numbers flip */
  m.slug = "throughput";
  m.head = 110;
  bpi_compare_measure(&m, 2);
  CHECK(m.higher_is_better);
  CHECK_EQ_INT(m.change, BP_CMP_IMPROVEMENT);
  m.head = 90;
  bpi_compare_measure(&m, 2);
  CHECK_EQ_INT(m.change, BP_CMP_REGRESSION);

  /* counters: more is worse */
  m.slug = "instructions";
  m.head = 120;
  bpi_compare_measure(&m, 2);
  CHECK(!m.higher_is_better);
  CHECK_EQ_INT(m.change, BP_CMP_REGRESSION);

  /* from 0: no percentage, but a change */
  m.base = 0;
  m.head = 3;
  bpi_compare_measure(&m, 2);
  CHECK(isnan(m.pct));
  CHECK_EQ_INT(m.change, BP_CMP_REGRESSION);
  m.head = 0;
  bpi_compare_measure(&m, 2);
  CHECK_EQ_INT(m.change, BP_CMP_UNCHANGED);

  /* one side only: never flagged */
  m.base = 1;
  m.head = 100;
  m.in_base = false;
  bpi_compare_measure(&m, 2);
  CHECK_EQ_INT(m.change, BP_CMP_UNCHANGED);
  CHECK_EQ_INT(m.flag, BP_CMP_UNCHANGED);
}

/* Bounds: a change is confirmed only when the intervals do not overlap. */
static void test_measure_bounds(void)
{
  struct bp_cmp_measure m = {.slug = "latency", .in_base = true,
                             .in_head = true, .base = 100, .head = 110};
  m.vbase = (struct bp_cmp_values){.has_bounds = true, .lower = 90,
                                   .upper = 108};
  m.vhead = (struct bp_cmp_values){.has_bounds = true, .lower = 104,
                                   .upper = 125};
  bpi_compare_measure(&m, 2);
  CHECK_EQ_INT(m.basis, BP_CMP_BOUNDS);
  CHECK_EQ_INT(m.change, BP_CMP_REGRESSION);
  CHECK_EQ_INT(m.flag, BP_CMP_UNCHANGED);     /* 104 < 108: overlap */
  CHECK(m.has_interval && near(m.pct_lo, -4) && near(m.pct_hi, 35));
  m.vhead.lower = 108.5;
  bpi_compare_measure(&m, 2);
  CHECK_EQ_INT(m.flag, BP_CMP_UNCHANGED);     /* apart, but by 0.5% only */
  CHECK(near(m.pct_lo, 0.5));
  m.vhead.lower = 111;
  bpi_compare_measure(&m, 2);
  CHECK_EQ_INT(m.flag, BP_CMP_REGRESSION);    /* apart by 3% > 2% */
  bpi_compare_measure(&m, 20);
  CHECK_EQ_INT(m.flag, BP_CMP_UNCHANGED);     /* apart, within 20% */
  /* an improvement: the whole interval below -2% */
  m.head = 90;
  m.vhead = (struct bp_cmp_values){.has_bounds = true, .lower = 80,
                                   .upper = 87};
  bpi_compare_measure(&m, 2);
  CHECK_EQ_INT(m.flag, BP_CMP_IMPROVEMENT);   /* 87 - 90 = -3% */
  m.vhead.upper = 89.5;
  bpi_compare_measure(&m, 2);
  CHECK_EQ_INT(m.flag, BP_CMP_UNCHANGED);     /* -0.5%: within 2% */
  CHECK(!BP_CMP_UNCONFIRMED(&m));
  /* from a base of 0 there is no percentage: bounds apart confirm */
  m.base = 0;
  m.head = 5;
  m.vbase = (struct bp_cmp_values){.has_bounds = true, .lower = 0,
                                   .upper = 0};
  m.vhead = (struct bp_cmp_values){.has_bounds = true, .lower = 4,
                                   .upper = 6};
  bpi_compare_measure(&m, 2);
  CHECK_EQ_INT(m.flag, BP_CMP_REGRESSION);
  m.vhead.lower = 0;
  bpi_compare_measure(&m, 2);
  CHECK_EQ_INT(m.flag, BP_CMP_UNCHANGED);
  m.base = 100;
  m.head = 110;
  m.vbase = (struct bp_cmp_values){.has_bounds = true, .lower = 90,
                                   .upper = 108};
  /* bounds on one side only are no spread of the other */
  m.vbase.has_bounds = false;
  bpi_compare_measure(&m, 2);
  CHECK_EQ_INT(m.basis, BP_CMP_SINGLE);
  CHECK_EQ_INT(m.flag, BP_CMP_UNCHANGED);
}

/* Repetitions: Mann-Whitney U at 99% and the interval of the ratio. */
static void test_measure_repeats(void)
{
  double base[5] = {100, 103, 98, 101, 99}, head[5] = {106, 108, 107, 110,
                                                       106};
  struct bp_cmp_measure m = {.slug = "latency", .in_base = true,
                             .in_head = true, .base = 100, .head = 107};
  m.vbase = (struct bp_cmp_values){.reps = base, .nreps = 5};
  m.vhead = (struct bp_cmp_values){.reps = head, .nreps = 5};
  bpi_compare_measure(&m, 2);
  CHECK_EQ_INT(m.basis, BP_CMP_REPEATS);
  CHECK_EQ_INT(m.flag, BP_CMP_REGRESSION);    /* every ratio above 1.02 */
  CHECK(near(m.p_value, 2.0 / 252));          /* exact: 2 / C(10, 5) */
  /* the interval runs from the least to the largest ratio (k = 0) */
  CHECK(m.has_interval && near(m.pct_lo, 100 * (106.0 / 103 - 1)) &&
        near(m.pct_hi, 100 * (110.0 / 98 - 1)));
  /* separated (p = 2/252), but the least ratio 104/103 is within 2%: the
   * sides differ, the change is not shown to exceed the threshold */
  head[0] = 104;
  head[4] = 105;
  bpi_compare_measure(&m, 2);
  CHECK_EQ_INT(m.change, BP_CMP_REGRESSION);
  CHECK(near(m.p_value, 2.0 / 252));
  CHECK_EQ_INT(m.flag, BP_CMP_UNCHANGED);
  CHECK(!BP_CMP_UNCONFIRMED(&m));
  /* the same below: an improvement needs its whole interval under -2% */
  double low[5] = {90, 92, 91, 93, 90};
  m.head = 91;
  m.vhead.reps = low;
  bpi_compare_measure(&m, 2);
  CHECK_EQ_INT(m.flag, BP_CMP_IMPROVEMENT);   /* 93 / 98 = -5.1% */
  low[3] = 99.5;
  bpi_compare_measure(&m, 2);
  CHECK_EQ_INT(m.flag, BP_CMP_UNCHANGED);     /* one among the base's */
  m.head = 107;
  m.vhead.reps = head;
  head[0] = 106;
  head[4] = 106;
  /* one head value among the base's: not separable at 99% with 5 + 5 */
  head[0] = 99.5;
  bpi_compare_measure(&m, 2);
  CHECK_EQ_INT(m.change, BP_CMP_REGRESSION);
  CHECK_EQ_INT(m.flag, BP_CMP_UNCHANGED);
  CHECK(!BP_CMP_UNCONFIRMED(&m));  /* tested: within the noise */
  CHECK(m.p_value > 0.01 && m.pct_lo < 0);
  /* four a side can never reach 99%: no interval, not confirmed */
  head[0] = 104;
  m.vbase.nreps = m.vhead.nreps = 4;
  bpi_compare_measure(&m, 2);
  CHECK(!m.has_interval && m.flag == BP_CMP_UNCHANGED);
  CHECK(near(m.p_value, 2.0 / 70));
  CHECK(BP_CMP_UNCONFIRMED(&m));   /* too few to tell */
}

/* Mann-Whitney against known values; the normal approximation beyond the
 * exact range agrees with the exact test near its edge. */
static void test_stats(void)
{
  double a[3] = {1, 2, 3}, b[3] = {4, 5, 6}, c[3] = {1, 2, 3};
  CHECK(near(bpi_stats_mann_whitney(a, 3, b, 3), 0.1));   /* 2 / 20 */
  CHECK(near(bpi_stats_mann_whitney(a, 3, c, 3), 1));
  double x[60], y[60], v[5] = {5, 1, 4, 2, 3};
  for(int i = 0; i < 60; i++) {
    x[i] = i;
    y[i] = i + 30;
  }
  double p_exact = bpi_stats_mann_whitney(x, 50, y, 50);
  double p_norm = bpi_stats_mann_whitney(x, 60, y, 60);
  CHECK(p_exact < 1e-6 && p_norm < 1e-6);
  CHECK(near(bpi_stats_median(v, 5), 3));
  CHECK(near(bpi_stats_median(v, 4), 2.5));
  double lo, hi, est;
  CHECK(!bpi_stats_ratio_interval(a, 3, b, 3, 0.99, &lo, &hi, &est));
  CHECK(bpi_stats_ratio_interval(x + 1, 50, y, 50, 0.99, &lo, &hi, &est));
  CHECK(lo > 1 && hi > lo && est >= lo && est <= hi);
  /* 100 vs 200 samples of 1 ms each: +100 ms, 99% half-width ~44.6 */
  CHECK(bpi_stats_poisson_halfwidth(100, 1, 200, 1, BP_STATS_Z) > 44 &&
        bpi_stats_poisson_halfwidth(100, 1, 200, 1, BP_STATS_Z) < 45);
  /* the normal's two-sided quantiles, and Bonferroni's over a family */
  CHECK(fabs(bpi_stats_z_two_sided(0.01) - 2.5758293) < 1e-6);
  CHECK(fabs(bpi_stats_z_two_sided(0.001) - 3.2905267) < 1e-6);
  CHECK(fabs(bpi_stats_z_family(1) - 2.5758293) < 1e-6);
  CHECK(fabs(bpi_stats_z_family(0) - 2.5758293) < 1e-6);
  CHECK(fabs(bpi_stats_z_family(50) - 3.7190165) < 1e-6);
  CHECK(fabs(bpi_stats_z_family(1000) - 4.4171734) < 1e-6);
}

static void test_dirs(void)
{
  char base[128], head[128], out[128];
  snprintf(base, sizeof(base), "%s/base", root);
  snprintf(head, sizeof(head), "%s/head", root);
  snprintf(out, sizeof(out), "%s/out", root);
  /* base: 100 samples, work 50% self; head: 400 samples, work 75% */
  make_run(base, "only_base",
           "{\"a\": {\"latency\": {\"value\": 1000, \"lower_value\": 990, "
           "\"upper_value\": 1010}, \"throughput\": "
           "{\"value\": 50, \"lower_value\": 49, \"upper_value\": 51}, "
           "\"task-clock\": {\"value\": 10}},"
           " \"only_base\": {\"latency\": {\"value\": 1}}}",
           "p;main;work 50\np;main;rest 40\np;main;gone 10\n", "");
  make_run_url(head, "only_head",
           "{\"a\": {\"latency\": {\"value\": 1500, \"lower_value\": 1400, "
           "\"upper_value\": 1600}, \"throughput\": "
           "{\"value\": 40, \"lower_value\": 39, \"upper_value\": 42}, "
           "\"task-clock\": {\"value\": 10.1}},"
           " \"only_head\": {\"latency\": {\"value\": 1}}}",
           "p;main;work 300\np;main;rest 80\np;main;fresh;work 20\n",
           "\"publication\": {\"identity\": {\"project\": \"proj\", "
           "\"branch\": \"feature\", \"hash\": "
           "\"0123456789abcdef0123456789abcdef01234567\", \"commit\": "
           "\"0123456789abcdef0123456789abcdef01234567\", \"testbed\": "
           "\"tb\"}, \"store\": \"file:///s\", \"bencher\": {\"host\": "
           "\"https://api.bencher.dev\", \"report_uuid\": \"u-1\"}, "
           "\"manifest_url\": \"https://store.example/h/manifest.json\"},",
           "\"key\": \"proj/feature/0123/tb/a/profile.json.gz\", \"url\": "
           "\"https://store.example/h/a/profile.json.gz\", ");
  struct bp_cmp_opts o = {.base_url = "https://b.example/run/"};
  struct bp_cmp *c = NULL;
  struct bp_err err = {0};
  CHECK(bpi_compare_dirs(base, head, &o, &c, &err) == BP_OK);
  if(!c) {
    fprintf(stderr, "compare: %s\n", err.msg);
    return;
  }
  CHECK(near(c->threshold_pct, BP_CMP_THRESHOLD_DEFAULT));
  CHECK_EQ_INT(c->nregressions, 1);
  CHECK_EQ_INT(c->nnew, 1);
  CHECK_EQ_INT(c->nremoved, 1);
  CHECK_EQ_STR(c->head.branch, "feature");
  CHECK_EQ_STR(c->head.project, "proj");
  CHECK_EQ_STR(c->head.testbed, "tb");
  CHECK_EQ_STR(c->head.report_uuid, "u-1");
  CHECK_EQ_STR(c->head.bencher_url, "https://bencher.dev");
  CHECK_EQ_STR(c->head.manifest_url, "https://store.example/h/manifest.json");
  CHECK(c->base.branch == NULL);
  /* order: changed first, then new, then removed */
  CHECK_EQ_INT(c->nbenches, 3);
  CHECK_EQ_STR(c->benches[0].name, "a");
  CHECK_EQ_INT(c->benches[1].presence, BP_CMP_NEW);
  CHECK_EQ_STR(c->benches[1].name, "only_head");
  CHECK_EQ_INT(c->benches[2].presence, BP_CMP_REMOVED);

  const struct bp_cmp_bench *a = bench(c, "a");
  CHECK(a && a->flag == BP_CMP_REGRESSION);
  CHECK(a && near(a->max_pct, 50) && !strcmp(a->max_slug, "latency"));
  const struct bp_cmp_measure *m = measure(a, "latency");
  CHECK(m && m->flag == BP_CMP_REGRESSION && near(m->delta, 500));
  m = measure(a, "throughput");
  CHECK(m && m->flag == BP_CMP_REGRESSION && near(m->pct, -20));
  m = measure(a, "task-clock");
  CHECK(m && m->flag == BP_CMP_UNCHANGED);   /* +1% */

  /* shares of each side's own total */
  CHECK(a && a->base.samples == 100 && a->head.samples == 400);
  const struct bp_cmp_func *f = func(a, "work");
  CHECK(f && f->base_self == 50 && f->head_self == 320);
  CHECK(f && near(f->d_self, 80.0 - 50.0));
  CHECK(a && a->nfuncs && !strcmp(a->funcs[0].name, "work"));
  f = bpi_compare_top_func(a, true);
  CHECK(f && !strcmp(f->name, "work"));
  f = bpi_compare_top_func(a, false);
  CHECK(f && !strcmp(f->name, "rest"));   /* -20 self beats gone's -10 */
  f = func(a, "gone");
  CHECK(f && f->head_total == 0 && near(f->d_total, -10));
  f = func(a, "fresh");
  CHECK(f && f->base_total == 0 && f->head_self == 0 && f->head_total == 20);
  f = func(a, "main");
  CHECK(f && near(f->d_total, 0) && f->base_self == 0);
  CHECK(func(a, "p") == NULL);   /* the process is not a function */

  /* links: the publication's URL, else the prefix; busiest thread */
  CHECK(a && a->head.gecko_url &&
        !strcmp(a->head.gecko_url, "https://store.example/h/a/profile.json.gz"));
  CHECK(a && a->base.gecko_url &&
        !strcmp(a->base.gecko_url, "https://b.example/run/a/profile.json.gz"));
  CHECK(a && a->base.thread == 1 && a->head.thread == 1);

  /* differential folded: every stack of either side, both counts */
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_compare_diff_folded(a, &b);
  bpi_buf_addc(&b, '\0');
  CHECK_EQ_STR(b.data, "p;main;fresh;work 0 20\np;main;gone 10 0\n"
               "p;main;rest 40 80\np;main;work 50 300\n");

  /* the flame graphs: well-formed enough, colors by share change */
  bpi_buf_reset(&b);
  CHECK(bpi_diffsvg_write(a->lines, a->nlines, false, "a <&>", &b, &err)
        == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "<svg ") && strstr(b.data, "</svg>"));
  CHECK(strstr(b.data, "a &lt;&amp;&gt;") != NULL);
  CHECK(strstr(b.data, "<title>work (base 50 samples, 50.00%; head 300 "
               "samples, 75.00%; change +25.00 points)</title>") != NULL);
  /* the largest change is the reddest; gone is absent (no head samples) */
  CHECK(strstr(b.data, "rgb(255,55,55)") != NULL);
  CHECK(strstr(b.data, "<title>gone") == NULL);
  bpi_buf_reset(&b);
  CHECK(bpi_diffsvg_write(a->lines, a->nlines, true, "a", &b, &err)
        == BP_OK);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "<title>gone (base 10 samples") != NULL);
  CHECK(strstr(b.data, "rgb(") && strstr(b.data, ",255)"));  /* blue */

  /* the directory */
  CHECK(bpi_compare_write(c, out, &err) == BP_OK);
  char *text = NULL;
  size_t len = 0;
  char path[256];
  snprintf(path, sizeof(path), "%s/a/diff.folded", out);
  CHECK(bpi_file_read(path, &text, &len, &err) == BP_OK);
  free(text);
  snprintf(path, sizeof(path), "%s/compare.json", out);
  CHECK(bpi_file_read(path, &text, &len, &err) == BP_OK);
  CHECK(text && strstr(text, "\"regressions\": 1") &&
        strstr(text, "\"presence\": \"removed\""));
  /* no off-CPU stacks: no off-CPU diff named */
  CHECK(text && strstr(text, "\"diff_offcpu\": null, "
                       "\"diff_offcpu_key\": null, "
                       "\"diff_offcpu_url\": null") &&
        !strstr(text, "offcpu.svg"));
  CHECK(text && strstr(text, "\"off_cpu_stack_within_noise\": null") &&
        strstr(text, "\"off_cpu_noise_band_pct\": null, "
               "\"off_cpu_noise_band_measure\": null, "
               "\"off_cpu_noise_band_basis\": null"));
  free(text);
  snprintf(path, sizeof(path), "%s/only_head/diff.svg", out);
  CHECK(access(path, F_OK) != 0);   /* one side only: nothing to diff */
  bpi_buf_cleanup(&b);
  bpi_compare_free(c);
}

/* Latency down 80% and task-clock up 43%, both confirmed: the benchmark
 * is a regression, and its key measure is task-clock, not latency. */
static void test_headline(void)
{
  char base[128], head[128];
  snprintf(base, sizeof(base), "%s/hl-base", root);
  snprintf(head, sizeof(head), "%s/hl-head", root);
  make_run(base, "b",
           "{\"a\": {\"latency\": {\"value\": 1000, \"lower_value\": 990, "
           "\"upper_value\": 1010}, \"task-clock\": {\"value\": 100, "
           "\"lower_value\": 99, \"upper_value\": 101}},"
           " \"b\": {\"latency\": {\"value\": 100, \"lower_value\": 99, "
           "\"upper_value\": 101}}}", "p;main;work 10\n", "");
  make_run(head, "b",
           "{\"a\": {\"latency\": {\"value\": 200, \"lower_value\": 190, "
           "\"upper_value\": 210}, \"task-clock\": {\"value\": 143, "
           "\"lower_value\": 140, \"upper_value\": 146}},"
           " \"b\": {\"latency\": {\"value\": 50, \"lower_value\": 49, "
           "\"upper_value\": 51}}}", "p;main;work 10\n", "");
  struct bp_cmp_opts o = {.threshold_pct = 0};
  struct bp_cmp *c = NULL;
  struct bp_err err = {0};
  CHECK(bpi_compare_dirs(base, head, &o, &c, &err) == BP_OK);
  if(!c)
    return;
  CHECK_EQ_INT(c->nregressions, 1);
  CHECK_EQ_INT(c->nimprovements, 1);
  /* the regression first, although b's improvement is no smaller */
  CHECK_EQ_STR(c->benches[0].name, "a");
  CHECK_EQ_INT(c->benches[0].flag, BP_CMP_REGRESSION);
  CHECK(c->benches[0].max_slug &&
        !strcmp(c->benches[0].max_slug, "task-clock"));
  CHECK(near(c->benches[0].max_pct, 43));
  CHECK_EQ_STR(c->benches[1].name, "b");
  CHECK(c->benches[1].max_slug &&
        !strcmp(c->benches[1].max_slug, "latency"));
  bpi_compare_free(c);
}

/* A benchmark twice as slow per iteration runs half the iterations, and
 * its page faults per iteration (mostly the process's start) double:
 * task-clock +49% and page-faults +134%, both confirmed, latency within
 * its noise.  task-clock heads it, not the larger page-faults; a
 * benchmark whose only confirmed change is its page faults is headed by
 * them. */
static void test_headline_faults_last(void)
{
  char base[128], head[128];
  snprintf(base, sizeof(base), "%s/pf-base", root);
  snprintf(head, sizeof(head), "%s/pf-head", root);
  make_run(base, "s",
           "{\"s\": {\"latency\": {\"value\": 100, \"lower_value\": 60, "
           "\"upper_value\": 140}, \"task-clock\": {\"value\": 100, "
           "\"lower_value\": 99, \"upper_value\": 101}, \"page-faults\": "
           "{\"value\": 100, \"lower_value\": 99, \"upper_value\": 101}},"
           " \"f\": {\"task-clock\": {\"value\": 100, \"lower_value\": 99, "
           "\"upper_value\": 101}, \"page-faults\": {\"value\": 100, "
           "\"lower_value\": 99, \"upper_value\": 101}}}",
           "p;main;work 10\n", "");
  make_run(head, "s",
           "{\"s\": {\"latency\": {\"value\": 120, \"lower_value\": 80, "
           "\"upper_value\": 160}, \"task-clock\": {\"value\": 149, "
           "\"lower_value\": 148, \"upper_value\": 150}, \"page-faults\": "
           "{\"value\": 234, \"lower_value\": 233, \"upper_value\": 235}},"
           " \"f\": {\"task-clock\": {\"value\": 100, \"lower_value\": 99, "
           "\"upper_value\": 101}, \"page-faults\": {\"value\": 200, "
           "\"lower_value\": 199, \"upper_value\": 201}}}",
           "p;main;work 10\n", "");
  struct bp_cmp_opts o = {.threshold_pct = 5};
  struct bp_cmp *c = NULL;
  struct bp_err err = {0};
  CHECK(bpi_compare_dirs(base, head, &o, &c, &err) == BP_OK);
  if(!c)
    return;
  CHECK_EQ_INT(c->nregressions, 2);
  for(size_t i = 0; i < c->nbenches; i++) {
    const struct bp_cmp_bench *cb = &c->benches[i];
    CHECK_EQ_INT(cb->flag, BP_CMP_REGRESSION);
    const char *want = !strcmp(cb->name, "s") ? "task-clock" : "page-faults";
    CHECK(cb->max_slug && !strcmp(cb->max_slug, want));
  }
  bpi_compare_free(c);
}

/* A value as the comment writes it, in slug's unit. */
static char *value_text(const char *slug, double v, bool sign)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_compare_add_value(&b, slug, v, sign);
  bpi_buf_addc(&b, '\0');
  return b.data;
}

/* Four significant digits in the measure's unit, never e-notation: a
 * page-fault count per iteration and its change read as plain numbers
 * (a review found "-7.839e-05" in a comment), as does a time beyond the
 * last unit. */
static void test_value_format(void)
{
  const struct {
    const char *slug;
    double v;
    bool sign;
    const char *want;
  } cases[] = {
    {"page-faults", 0.005396, false, "0.005396"},
    {"page-faults", -7.839e-05, true, "-0.00007839"},
    {"page-faults", 7.8e-05, true, "+0.000078"},
    {"page-faults", 0.0001, false, "0.0001"},
    {"page-faults", 3e-20, false, "0"},
    {"page-faults", 0, true, "+0"},
    {"instructions", 1234567, false, "1.235M"},
    {"task-clock", 9432, false, "9.432 \xc2\xb5s"},
    {"latency", 12345e9, false, "12345 s"},
    {"latency", 9999.6e9, true, "+10000 s"},   /* not "1e+04" */
    {"throughput", 350, false, "350 ops/s"},
  };
  for(size_t i = 0; i < BP_ARRAY_LEN(cases); i++) {
    char *got = value_text(cases[i].slug, cases[i].v, cases[i].sign);
    CHECK_EQ_STR(got, cases[i].want);
    free(got);
  }
}

/* A Google Benchmark run without profiles: benchmarks f (the head ran a
 * quarter of the base's iterations), s (the same iterations), m (the
 * head ran four times as many) and n (no CPU time per iteration: its
 * counters per run), each with latency, task-clock and page-faults as
 * run_outputs.c writes them; the head's page faults per iteration are
 * +68% everywhere, confirmed by their bounds.  With --repeat the
 * manifest sums the repetitions' iterations. */
static void make_iter_run(const char *dir, bool head, unsigned repeat)
{
  const char *names[] = {"f", "s", "m", "n"};
  const double iterations[2][4] = {{1136, 1000, 1000, 1000},
                                   {285, 1000, 4000, 1000}};
  char man[2048], rep[4096];
  size_t mlen = 0, rlen = 0;
  mlen += (size_t)snprintf(man + mlen, sizeof(man) - mlen,
                           "{\"report\": \"report.json\", \"repeat\": %u, "
                           "\"benchmarks\": [", repeat);
  rlen += (size_t)snprintf(rep + rlen, sizeof(rep) - rlen, "{");
  for(size_t i = 0; i < 4; i++) {
    double pf = head ? 0.005646 : 0.003361;
    mlen += (size_t)snprintf(man + mlen, sizeof(man) - mlen,
                             "%s{\"name\": \"%s\", \"iterations\": %g%s}",
                             i ? ", " : "", names[i],
                             repeat * iterations[head][i],
                             i < 3 ? ", \"iteration_cpu_ns\": 9432" : "");
    rlen += (size_t)snprintf(rep + rlen, sizeof(rep) - rlen,
      "%s\"%s\": {\"latency\": {\"value\": 9500, \"lower_value\": 9450, "
      "\"upper_value\": 9550}, \"task-clock\": {\"value\": 9432, "
      "\"lower_value\": 9400, \"upper_value\": 9460}, \"page-faults\": "
      "{\"value\": %g, \"lower_value\": %g, \"upper_value\": %g}}",
      i ? ", " : "", names[i], pf, pf * 0.99, pf * 1.01);
  }
  snprintf(man + mlen, sizeof(man) - mlen, "]}");
  snprintf(rep + rlen, sizeof(rep) - rlen, "}");
  put(dir, "manifest.json", man);
  put(dir, "report.json", rep);
}

/* Page faults per iteration are mostly the process's start divided
 * among the iterations: where the head ran fewer, their rise is the
 * iteration count's and is not counted (shown with both counts); with
 * the same count, or where more iterations would have lowered them,
 * the rise is the process's own and is a regression; the counts are a
 * run's, whatever the repetitions of each side (base_repeat).  The
 * measures say they are per iteration, once, and a small count reads
 * without e-notation; compare.json keeps the full values. */
static void test_faults_follow_iterations(unsigned base_repeat)
{
  char base[128], head[128], out[160], path[256];
  snprintf(base, sizeof(base), "%s/it-base-%u", root, base_repeat);
  snprintf(head, sizeof(head), "%s/it-head-%u", root, base_repeat);
  snprintf(out, sizeof(out), "%s/it-out-%u", root, base_repeat);
  make_iter_run(base, false, base_repeat);
  make_iter_run(head, true, 1);
  struct bp_cmp_opts o = {.threshold_pct = 5};
  struct bp_cmp *c = NULL;
  struct bp_err err = {0};
  CHECK(bpi_compare_dirs(base, head, &o, &c, &err) == BP_OK);
  if(!c)
    return;
  const struct bp_cmp_bench *f = bench(c, "f"), *sm = bench(c, "s"),
                            *m = bench(c, "m"), *n = bench(c, "n");
  const struct bp_cmp_measure *fpf = measure(f, "page-faults");
  CHECK(fpf && fpf->follows_iterations && fpf->per_iteration &&
        !fpf->flag && !fpf->change && !fpf->unconfirmed);
  CHECK(f && !f->flag && !f->unconfirmed && !f->max_slug);
  /* its row shows latency or task-clock, not the iteration count's rise */
  const struct bp_cmp_measure *key = f ? bpi_compare_key_measure(f) : NULL;
  CHECK(key && strcmp(key->slug, "page-faults"));
  CHECK(measure(f, "latency") && measure(f, "latency")->per_iteration);
  CHECK(measure(f, "task-clock") && measure(f, "task-clock")->per_iteration);
  for(size_t i = 0; i < 2; i++) {
    const struct bp_cmp_bench *cb = i ? m : sm;
    const struct bp_cmp_measure *pf = measure(cb, "page-faults");
    CHECK(pf && !pf->follows_iterations && pf->per_iteration);
    CHECK(cb && cb->flag == BP_CMP_REGRESSION && cb->max_slug &&
          !strcmp(cb->max_slug, "page-faults"));
  }
  /* no CPU time per iteration: its counters are per run */
  CHECK(measure(n, "page-faults") &&
        !measure(n, "page-faults")->per_iteration &&
        !measure(n, "latency")->per_iteration);
  CHECK_EQ_INT(c->nregressions, 3);

  struct bp_comment_opts co = {.project = "p", .testbed = "t"};
  struct bp_buf b;
  bpi_buf_init(&b);
  CHECK(bpi_comment_markdown(c, &co, &b, &err) == BP_OK);
  bpi_buf_addc(&b, '\0');
  const char *md = b.data ? b.data : "";
  CHECK(strstr(md, "| page-faults | 0.003361 | 0.005646 | +0.002285 "
               "(+67.99%, +65.31% to +70.67%) follows the iteration count "
               "(base 1136, head 285 iterations): not counted |"));
  CHECK(strstr(md, "| Measure, per iteration | Base | Head | Change |"));
  CHECK_EQ_INT(count_of(md, "| Measure, per iteration |"), 3);
  CHECK_EQ_INT(count_of(md, "| Measure | Base | Head | Change |"), 1);
  CHECK_EQ_INT(count_of(md, "per iteration"), 3);
  CHECK(!strstr(md, "e-0") && !strstr(md, "e+0"));
  if(!strstr(md, "not counted |"))
    fprintf(stderr, "%s\n", md);
  bpi_buf_cleanup(&b);

  CHECK(bpi_compare_write(c, out, &err) == BP_OK);
  snprintf(path, sizeof(path), "%s/compare.json", out);
  char *text = NULL;
  size_t len = 0;
  CHECK(bpi_file_read(path, &text, &len, &err) == BP_OK);
  CHECK(text && strstr(text, "\"slug\": \"page-faults\", \"base\": 0.003361, "
                       "\"head\": 0.005646"));
  CHECK(text && strstr(text, "\"follows_iterations\": true"));
  CHECK(text && strstr(text, "\"harness_iterations\": 285"));
  CHECK(text && strstr(text, "\"harness_iterations\": 1136"));
  free(text);
  bpi_compare_free(c);
}

/* A base run that failed (published with --allow-failure) and a head
 * interrupted after its harness wrote its results: the comment says
 * both, under the "Comparing" line, and compare.json keeps each side's
 * outcome; a passed run is not mentioned. */
static void test_failed_sides(void)
{
  char base[128], head[128], ok[128];
  const char *report = "{\"a\": {\"latency\": {\"value\": 100}}}";
  snprintf(base, sizeof(base), "%s/fail-base", root);
  snprintf(head, sizeof(head), "%s/fail-head", root);
  snprintf(ok, sizeof(ok), "%s/fail-ok", root);
  make_run(base, "b", report, "p;main;work 10\n",
           "\"outcome\": \"failed\", \"exit_status\": 1,");
  make_run(head, "b", report, "p;main;work 10\n",
           "\"outcome\": \"interrupted\", \"exit_status\": 143, "
           "\"signal\": \"SIGTERM\",");
  make_run(ok, "b", report, "p;main;work 10\n", "\"outcome\": \"passed\", "
           "\"exit_status\": 0,");
  struct bp_cmp_opts o = {.threshold_pct = 5};
  struct bp_comment_opts co = {.project = "p", .testbed = "t"};
  struct bp_err err = {0};
  struct bp_buf md, js;
  bpi_buf_init(&md);
  bpi_buf_init(&js);
  struct bp_cmp *c = NULL;
  CHECK(bpi_compare_dirs(base, head, &o, &c, &err) == BP_OK);
  CHECK(c && bpi_comment_markdown(c, &co, &md, &err) == BP_OK);
  if(c)
    bpi_compare_json(c, &js);
  bpi_buf_addc(&md, '\0');
  bpi_buf_addc(&js, '\0');
  CHECK(md.data && strstr(md.data, "\n_The base's run failed (exit status "
                          "1): its results may be partial or wrong, so a "
                          "change below may be that failure's rather than "
                          "this PR's._\n"));
  CHECK(md.data && strstr(md.data, "\n_This PR's run was interrupted by "
                          "SIGTERM (exit status 143): its results may be "
                          "partial or wrong, so a change below may be that "
                          "interruption's rather than the code's._\n"));
  CHECK(js.data && strstr(js.data, "\"outcome\": \"failed\"") &&
        strstr(js.data, "\"outcome\": \"interrupted\""));
  bpi_compare_free(c);
  c = NULL;
  bpi_buf_reset(&md);
  CHECK(bpi_compare_dirs(ok, ok, &o, &c, &err) == BP_OK);
  CHECK(c && bpi_comment_markdown(c, &co, &md, &err) == BP_OK);
  bpi_buf_addc(&md, '\0');
  CHECK(md.data && !strstr(md.data, "run failed") &&
        !strstr(md.data, "interrupted"));
  bpi_compare_free(c);
  bpi_buf_cleanup(&md);
  bpi_buf_cleanup(&js);
}

/* Of equal changes, latency heads, page faults last: both from 0 (no
 * percentage), both confirmed by bounds apart.  One value a side
 * (task-clock +100%) beside a latency tested within its bounds' noise:
 * shown unconfirmed, but the benchmark is unchanged and it heads
 * nothing. */
static void test_headline_ties(void)
{
  char base[128], head[128];
  snprintf(base, sizeof(base), "%s/tie-base", root);
  snprintf(head, sizeof(head), "%s/tie-head", root);
  make_run(base, "t",
           "{\"t\": {\"page-faults\": {\"value\": 0, \"lower_value\": 0, "
           "\"upper_value\": 0}, \"latency\": {\"value\": 0, "
           "\"lower_value\": 0, \"upper_value\": 0}},"
           " \"u\": {\"latency\": {\"value\": 100, \"lower_value\": 90, "
           "\"upper_value\": 130}, \"task-clock\": {\"value\": 100}}}",
           "p;main;work 10\n", "");
  make_run(head, "t",
           "{\"t\": {\"page-faults\": {\"value\": 5, \"lower_value\": 5, "
           "\"upper_value\": 5}, \"latency\": {\"value\": 7, "
           "\"lower_value\": 7, \"upper_value\": 7}},"
           " \"u\": {\"latency\": {\"value\": 110, \"lower_value\": 95, "
           "\"upper_value\": 135}, \"task-clock\": {\"value\": 200}}}",
           "p;main;work 10\n", "");
  struct bp_cmp_opts o = {.threshold_pct = 5};
  struct bp_cmp *c = NULL;
  struct bp_err err = {0};
  CHECK(bpi_compare_dirs(base, head, &o, &c, &err) == BP_OK);
  if(!c)
    return;
  CHECK_EQ_INT(c->nregressions, 1);
  CHECK_EQ_INT(c->nunconfirmed, 0);
  CHECK_EQ_STR(c->benches[0].name, "t");
  CHECK(c->benches[0].max_slug &&
        !strcmp(c->benches[0].max_slug, "latency"));
  const struct bp_cmp_bench *u = &c->benches[1];
  CHECK_EQ_STR(u->name, "u");
  CHECK_EQ_INT(u->flag, BP_CMP_UNCHANGED);
  CHECK_EQ_INT(u->unconfirmed, BP_CMP_UNCHANGED);
  CHECK(u->max_slug == NULL);
  CHECK(u->nmeasures == 2 && u->measures[1].unconfirmed &&
        bpi_compare_outweighed(u, &u->measures[1]));
  CHECK(!bpi_compare_outweighed(u, &u->measures[0]));
  bpi_compare_free(c);
}

/* benchprof run --repeat: each side's repetitions in its manifest
 * ("repetitions": {SLUG: [...]}); an unchanged benchmark whose values
 * interleave is not a regression whatever its medians say. */
static void test_repetitions_in_manifest(void)
{
  const char *reps[2] = {
    "[1000, 1100, 950, 1200, 1050]", "[1080, 990, 1150, 1230, 1010]"};
  const char *values[2] = {"1050", "1080"};
  char dirs[2][128];
  for(int side = 0; side < 2; side++) {
    char man[1024], rep[256];
    snprintf(dirs[side], sizeof(dirs[side]), "%s/rep-%d", root, side);
    snprintf(man, sizeof(man),
             "{\"report\": \"report.json\", \"benchmarks\": [{\"name\": "
             "\"a\", \"profile\": \".\", \"repetitions\": {\"latency\": %s},"
             " \"artifacts\": [{\"file\": \"profile.folded\", \"kind\": "
             "\"folded-stacks\"}]}]}", reps[side]);
    snprintf(rep, sizeof(rep), "{\"a\": {\"latency\": {\"value\": %s, "
             "\"lower_value\": 950, \"upper_value\": 1230}}}", values[side]);
    put(dirs[side], "manifest.json", man);
    put(dirs[side], "report.json", rep);
    put(dirs[side], "profile.folded", "p;main;work 10\n");
  }
  /* +2.9%: beyond a 2% threshold, so only the test keeps it unchanged */
  struct bp_cmp_opts o = {.threshold_pct = 2};
  struct bp_cmp *c = NULL;
  struct bp_err err = {0};
  CHECK(bpi_compare_dirs(dirs[0], dirs[1], &o, &c, &err) == BP_OK);
  if(!c)
    return;
  const struct bp_cmp_measure *m = measure(bench(c, "a"), "latency");
  CHECK(m && m->basis == BP_CMP_REPEATS && m->vhead.nreps == 5);
  CHECK(m && m->change == BP_CMP_REGRESSION && m->flag == BP_CMP_UNCHANGED);
  CHECK_EQ_INT(c->nregressions, 0);
  CHECK_EQ_INT(c->nunconfirmed, 0);   /* tested: within the noise */
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_compare_json(c, &b);
  bpi_buf_addc(&b, '\0');
  CHECK(strstr(b.data, "\"basis\": \"mann-whitney\"") &&
        strstr(b.data, "\"repetitions\": [1080, 990, 1150, 1230, 1010]") &&
        strstr(b.data, "\"regressions\": 0"));
  /* the comment's row names latency (within noise): so does key_measure */
  CHECK(strstr(b.data, "\"key_measure\": \"latency\"") != NULL);
  bpi_buf_cleanup(&b);
  bpi_compare_free(c);
}

/* Under --repeat each repetition's process is its own thread: the links
 * open the median repetition's, not the busiest (the slowest run); a
 * helper process and a worker thread are not repetitions. */
static void test_link_thread(void)
{
  static const char *const summaries[2] = {
    /* samples 481 490 467 424 448 of bench's main thread, a busier
     * worker thread (not a main thread) and a helper process */
    "{\"threads\": ["
    "{\"pid\": 10, \"tid\": 10, \"name\": \"bench\", \"process\": \"bench\","
    " \"samples\": 481},"
    "{\"pid\": 20, \"tid\": 20, \"name\": \"bench\", \"process\": \"bench\","
    " \"samples\": 490},"
    "{\"pid\": 20, \"tid\": 21, \"name\": \"bench\", \"process\": \"bench\","
    " \"samples\": 5},"
    "{\"pid\": 30, \"tid\": 30, \"name\": \"bench\", \"process\": \"bench\","
    " \"samples\": 467},"
    "{\"pid\": 35, \"tid\": 35, \"name\": \"sh\", \"process\": \"sh\","
    " \"samples\": 2},"
    "{\"pid\": 40, \"tid\": 40, \"name\": \"bench\", \"process\": \"bench\","
    " \"samples\": 424},"
    "{\"pid\": 50, \"tid\": 50, \"name\": \"bench\", \"process\": \"bench\","
    " \"samples\": 448}]}",
    /* a single run: the busiest */
    "{\"threads\": [{\"pid\": 1, \"tid\": 1, \"name\": \"bench\", "
    "\"process\": \"bench\", \"samples\": 3}, {\"pid\": 1, \"tid\": 2, "
    "\"name\": \"bench\", \"process\": \"bench\", \"samples\": 90}]}"};
  static const unsigned repeat[2] = {5, 1};
  char dirs[2][128];
  for(int side = 0; side < 2; side++) {
    char man[512];
    snprintf(dirs[side], sizeof(dirs[side]), "%s/link-%d", root, side);
    snprintf(man, sizeof(man),
             "{\"report\": \"report.json\", \"repeat\": %u, "
             "\"benchmarks\": [{\"name\": \"a\", \"profile\": \".\", "
             "\"artifacts\": [{\"file\": \"profile.folded\", \"kind\": "
             "\"folded-stacks\"}, {\"file\": \"summary.json\", \"kind\": "
             "\"summary\"}]}]}", repeat[side]);
    put(dirs[side], "manifest.json", man);
    put(dirs[side], "report.json", "{\"a\": {\"latency\": {\"value\": 1}}}");
    put(dirs[side], "profile.folded", "bench;main;work 10\n");
    put(dirs[side], "summary.json", summaries[side]);
  }
  struct bp_cmp_opts o = {.threshold_pct = 5};
  struct bp_cmp *c = NULL;
  struct bp_err err = {0};
  CHECK(bpi_compare_dirs(dirs[0], dirs[1], &o, &c, &err) == BP_OK);
  if(!c)
    return;
  const struct bp_cmp_bench *a = bench(c, "a");
  /* 424 448 [467] 481 490: the median repetition is thread 3 */
  CHECK(a && a->base.thread == 3);
  CHECK(a && a->head.thread == 1);
  /* ... the third repetition of five, which the comment says */
  CHECK(a && a->base.link_rep == 3 && a->base.repeat == 5);
  CHECK(a && a->head.link_rep == 0);
  bpi_compare_free(c);
}

/* bench_v1 rebuilt as bench_v2 (a cargo bench binary's name-<hash>):
 * the differential lines match its stacks under the head's name, and
 * say so; a process both sides have (sh) is left alone.  Nothing is
 * guessed with two names of its own on one side, nor for a minor
 * process (gzip against zstd beside the same bench); a name in brackets
 * (the unsampled time's line) is no program. */
static void test_renamed_program(void)
{
  static const struct {
    const char *folded[2];
    const char *want;     /* diff.folded */
    const char *renamed;  /* the base's name matched, or NULL */
  } cases[] = {
    {{"bench_v1;main;work 10\nbench_v1;main;rest 10\nsh;main 2\n",
      "bench_v2;main;work 30\nbench_v2;main;rest 10\nsh;main 2\n"},
     "bench_v2;main;rest 10 10\nbench_v2;main;work 10 30\nsh;main 2 2\n",
     "bench_v1"},
    {{"bench_v1;main;work 10\nother;main 5\n", "bench_v2;main;work 30\n"},
     "bench_v1;main;work 10 0\nbench_v2;main;work 0 30\nother;main 5 0\n",
     NULL},
    {{"bench_v1;main;work 10\n[not sampled: kernel time] 3\n",
      "bench_v2;main;work 30\n"},
     "[not sampled: kernel time] 3 0\nbench_v2;main;work 10 30\n",
     "bench_v1"},
    {{"bench;main;work 10\ngzip;main 2\n", "bench;main;work 30\nzstd;main 2\n"},
     "bench;main;work 10 30\ngzip;main 2 0\nzstd;main 0 2\n", NULL},
  };
  for(size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
    char dirs[2][128];
    for(int side = 0; side < 2; side++) {
      snprintf(dirs[side], sizeof(dirs[side]), "%s/ren-%zu-%d", root, k,
               side);
      put(dirs[side], "manifest.json",
          "{\"report\": \"report.json\", \"benchmarks\": [{\"name\": "
          "\"a\", \"profile\": \".\", \"artifacts\": [{\"file\": "
          "\"profile.folded\", \"kind\": \"folded-stacks\"}]}]}");
      put(dirs[side], "report.json", side ?
          "{\"a\": {\"latency\": {\"value\": 2}}}" :
          "{\"a\": {\"latency\": {\"value\": 1}}}");
      put(dirs[side], "profile.folded", cases[k].folded[side]);
    }
    struct bp_cmp_opts o = {.threshold_pct = 0};
    struct bp_cmp *c = NULL;
    struct bp_err err = {0};
    CHECK(bpi_compare_dirs(dirs[0], dirs[1], &o, &c, &err) == BP_OK);
    const struct bp_cmp_bench *a = c ? bench(c, "a") : NULL;
    CHECK(a != NULL);
    if(!a) {
      bpi_compare_free(c);
      continue;
    }
    struct bp_buf b;
    bpi_buf_init(&b);
    bpi_compare_diff_folded(a, &b);
    bpi_buf_addc(&b, '\0');
    CHECK_EQ_STR(b.data, cases[k].want);
    if(cases[k].renamed)
      CHECK_EQ_STR(a->renamed_base_process, cases[k].renamed);
    else
      CHECK(a->renamed_base_process == NULL &&
            a->renamed_head_process == NULL);
    /* the functions leave the process out: the same either way */
    const struct bp_cmp_func *f = func(a, "work");
    CHECK(f && f->base_self == 10 && f->head_self == 30);
    bpi_buf_reset(&b);
    bpi_compare_json(c, &b);
    bpi_buf_addc(&b, '\0');
    CHECK(strstr(b.data, cases[k].renamed ?
                 "\"renamed_base_process\": \"bench_v1\"" :
                 "\"renamed_base_process\": null") != NULL);
    /* the comment names both where the benchmark's details are */
    struct bp_comment_opts co = {.project = "p", .testbed = "t"};
    bpi_buf_reset(&b);
    CHECK(bpi_comment_markdown(c, &co, &b, &err) == BP_OK);
    bpi_buf_addc(&b, '\0');
    bool said = strstr(b.data, "The base's program `bench_v1` is compared "
                       "with the head's `bench_v2`: each side's only "
                       "program the other has not, with most of its "
                       "samples.") != NULL;
    CHECK(said == (cases[k].renamed != NULL));
    bpi_buf_cleanup(&b);
    bpi_compare_free(c);
  }
}

/* Off-CPU runs: benchmark name with its folded stacks, its off-CPU
 * folded stacks (microseconds, of all repetitions) and a summary with
 * blocked_ms (of all repetitions); with repeat > 1 (run --repeat) the
 * off-cpu measure's values of each (off_reps, a JSON array of ns). */
static void make_off_repeated(const char *dir, const char *name,
                              const char *offcpu, const char *blocked_ms,
                              int repeat, const char *off_reps)
{
  char text[1024], reps[256] = "";
  if(off_reps)
    snprintf(reps, sizeof(reps), "\"repetitions\": {\"off-cpu\": %s}, ",
             off_reps);
  snprintf(text, sizeof(text),
      "{\"report\": \"report.json\", \"repeat\": %d, \"benchmarks\": ["
      "{\"name\": \"%s\", \"profile\": \"a\", %s\"artifacts\": ["
      "{\"file\": \"a/profile.folded\", \"kind\": \"folded-stacks\"},"
      "{\"file\": \"a/profile.offcpu.folded\", "
      "\"kind\": \"offcpu-folded-stacks\"},"
      "{\"file\": \"a/summary.json\", \"kind\": \"summary\"}]}]}",
      repeat > 1 ? repeat : 1, name, reps);
  put(dir, "manifest.json", text);
  snprintf(text, sizeof(text), "{\"%s\": {\"latency\": {\"value\": 10}}}",
           name);
  put(dir, "report.json", text);
  put(dir, "a/profile.folded", "p;main;work 10\n");
  put(dir, "a/profile.offcpu.folded", offcpu);
  char summary[128];
  snprintf(summary, sizeof(summary),
           "{\"threads\": [{\"samples\": 10}], \"off_cpu\": "
           "{\"blocked_ms\": %s}}", blocked_ms);
  put(dir, "a/summary.json", summary);
}

static void make_off_named(const char *dir, const char *name,
                           const char *offcpu, const char *blocked_ms)
{
  make_off_repeated(dir, name, offcpu, blocked_ms, 1, NULL);
}

/* Off-CPU runs of benchmark "a" (make_off_named). */
static void make_off_run(const char *dir, const char *offcpu,
                         const char *blocked_ms)
{
  make_off_named(dir, "a", offcpu, blocked_ms);
}

static const struct bp_cmp_bench *compare_off(const char *name,
                                              const char *const offcpu[2],
                                              struct bp_cmp **c)
{
  char dirs[2][128];
  const char *blocked[2] = {"10", "40"};
  for(int side = 0; side < 2; side++) {
    snprintf(dirs[side], sizeof(dirs[side]), "%s/%s-%d", root, name, side);
    make_off_run(dirs[side], offcpu[side], blocked[side]);
  }
  struct bp_cmp_opts o = {.threshold_pct = 5};
  struct bp_err err = {0};
  *c = NULL;
  CHECK(bpi_compare_dirs(dirs[0], dirs[1], &o, c, &err) == BP_OK);
  return *c ? bench(*c, "a") : NULL;
}

/* The waiting stack that changed most: the base's first line counts (the
 * string table has no reserved id 0), and one user stack waiting through
 * two kernel paths is ranked by its sum, as it is reported. */
static void test_off_cpu_top_wait(void)
{
  struct bp_cmp *c;
  /* the first line of the base's file is the one that changed */
  const char *first[2] = {
    "p;main;read_all;sys_read_[k];schedule_[k] 1000\n"
    "p;main;idle 500\n",
    "p;main;idle 500\n"
    "p;main;read_all;sys_read_[k];schedule_[k] 9000\n"};
  const struct bp_cmp_bench *b = compare_off("off-first", first, &c);
  CHECK(b && b->off_stack && !strcmp(b->off_stack, "p;main;read_all"));
  CHECK(b && near(b->off_base_ns, 1000e3) && near(b->off_head_ns, 9000e3));
  bpi_compare_free(c);
  /* p;main;wait grows by 3000 us over two kernel paths (2000 + 1000);
   * p;main;sleep by 2500 us over one: the sum ranks first */
  const char *split[2] = {
    "p;main;wait;futex_[k];schedule_[k] 100\n"
    "p;main;wait;poll_[k];schedule_[k] 100\n"
    "p;main;sleep;nanosleep_[k];schedule_[k] 100\n"
    "p;main;idle 100000\n"
    "p;main;work;[preempted] 100\n",
    "p;main;wait;futex_[k];schedule_[k] 2100\n"
    "p;main;wait;poll_[k];schedule_[k] 1100\n"
    "p;main;sleep;nanosleep_[k];schedule_[k] 2600\n"
    "p;main;idle 100000\n"
    "p;main;work;[preempted] 90000\n"};
  b = compare_off("off-split", split, &c);
  CHECK(b && b->off_stack && !strcmp(b->off_stack, "p;main;wait"));
  CHECK(b && near(b->off_base_ns, 200e3) && near(b->off_head_ns, 3200e3));
  bpi_compare_free(c);
}

/* Compare two off-CPU runs of 5 repetitions of "a" in dirs under name:
 * offcpu[side] their stacks, blocked[side] their summaries' blocked_ms,
 * reps[side] the off-cpu measure's values (ns per run). */
static const struct bp_cmp_bench *compare_off_reps(
  const char *name, const char *const offcpu[2], const char *const blocked[2],
  const char *const reps[2], struct bp_cmp **c)
{
  char dirs[2][128];
  for(int side = 0; side < 2; side++) {
    snprintf(dirs[side], sizeof(dirs[side]), "%s/%s-%d", root, name, side);
    make_off_repeated(dirs[side], "a", offcpu[side], blocked[side], 5,
                      reps[side]);
  }
  struct bp_cmp_opts o = {.threshold_pct = 5};
  struct bp_err err = {0};
  *c = NULL;
  CHECK(bpi_compare_dirs(dirs[0], dirs[1], &o, c, &err) == BP_OK);
  return *c ? bench(*c, "a") : NULL;
}

/* The off-CPU noise band, from the off-cpu measure as the functions' is
 * from task-clock: 5 repetitions a side of the same blocked time (about
 * 100 ms a run), off-cpu's interval wide around 0.  p;main;wait, most of
 * it, 3% longer (+3 ms a run): within what that noise makes of its base
 * time, not named; p;main;poll, 0.2 -> 10.2 ms a run, beyond it and
 * beyond what it makes of all the blocked time: named.  0.2 -> 1.2 ms (6x,
 * +1 ms) is beyond its own base's band but not the whole's (a stack that
 * comes and goes between runs, as a program's start waiting on the page
 * cache does, moves by that much): not named.  Without poll's change no stack is named and
 * wait is the largest change, within the noise.  A stack that grew 4x
 * while the head's preempted time grew 100x: the preempted time is no
 * wait. */
static void test_off_cpu_noise_band(void)
{
  struct bp_cmp *c;
  const char *blocked[2] = {"505", "515"};
  const char *reps[2] = {"[100e6, 102e6, 99e6, 101e6, 103e6]",
                         "[101e6, 100e6, 104e6, 99e6, 102e6]"};
  const char *poll[2] = {
    "p;main;wait;futex_[k];schedule_[k] 500000\n"
    "p;main;poll;poll_[k];schedule_[k] 1000\n"
    "p;main;work;[preempted] 1000\n",
    "p;main;wait;futex_[k];schedule_[k] 515000\n"
    "p;main;poll;poll_[k];schedule_[k] 51000\n"
    "p;main;work;[preempted] 100000\n"};
  const struct bp_cmp_bench *b = compare_off_reps("off-band", poll, blocked,
                                                  reps, &c);
  const struct bp_cmp_measure *off = b ? measure(b, "off-cpu") : NULL;
  CHECK(off && off->has_interval && !off->flag && off->pct_lo < 0 &&
        off->pct_hi > 3);
  CHECK(b && b->has_off_band && b->off_band.basis == BP_CMP_BAND_INTERVAL &&
        b->off_band.measure && !strcmp(b->off_band.measure, "off-cpu"));
  CHECK(b && off && near(b->off_band.lo, off->pct_lo / 100) &&
        near(b->off_band.hi, off->pct_hi / 100));
  CHECK(b && b->off_stack && !strcmp(b->off_stack, "p;main;poll") &&
        !b->off_within_noise);
  CHECK(b && near(b->off_base_ns, 200e3) && near(b->off_head_ns, 10200e3));
  /* compare.json: the band beside the functions' */
  struct bp_buf j;
  bpi_buf_init(&j);
  if(c)
    bpi_compare_json(c, &j);
  bpi_buf_addc(&j, '\0');
  CHECK(!bpi_buf_failed(&j) &&
        strstr(j.data, "\"off_cpu_stack_within_noise\": false") &&
        strstr(j.data, "\"off_cpu_noise_band_measure\": \"off-cpu\", "
               "\"off_cpu_noise_band_basis\": \"interval\"") &&
        strstr(j.data, "\"off_cpu_noise_band_pct\": [-"));
  /* diff.offcpu.svg by waiting time: poll red, wait white (within the
   * band), the preempted time's 100x white: no wait; the band in the
   * legend */
  struct bp_err err = {0};
  struct bp_diffsvg_cost cost = {
    .per_sample = {b ? b->off_ns_per_us[0] : 0, b ? b->off_ns_per_us[1] : 0},
    .band = b ? &b->off_band : NULL, .unit = "ns", .off_cpu = true};
  bpi_buf_reset(&j);
  CHECK(b && near(b->off_ns_per_us[0], 200) &&
        bpi_diffsvg_write_cost(b->off_lines, b->off_nlines, false, "a",
                               &cost, &j, &err) == BP_OK);
  bpi_buf_addc(&j, '\0');
  const char *t = strstr(j.data, "<title>poll ");
  const char *fill = t ? strstr(t, "fill=") : NULL;
  CHECK(t && strstr(t, "(base 1000 \xc2\xb5s, ") &&
        strstr(t, "; waiting per run: base 200 \xc2\xb5s, head 10.2 ms, "
               "change +10 ms)") && fill &&
        !strncmp(fill, "fill=\"rgb(255,", 14) &&
        strncmp(fill, "fill=\"rgb(255,255,", 18));
  t = strstr(j.data, "<title>wait ");
  fill = t ? strstr(t, "fill=") : NULL;
  CHECK(t && strstr(t, "change +3 ms, within noise)") && fill &&
        !strncmp(fill, "fill=\"rgb(250,250,250)\"", 23));
  t = strstr(j.data, "<title>[preempted] ");
  fill = t ? strstr(t, "fill=") : NULL;
  CHECK(t && fill && !strncmp(fill, "fill=\"rgb(250,250,250)\"", 23));
  CHECK(strstr(j.data, "white: within the off-CPU noise, a change the "
               "benchmark's own noise could make of a frame's base time "
               "(off-cpu's interval, -"));
  CHECK(!strstr(j.data, "\xc2\xb1") && !strstr(j.data, "Poisson"));
  bpi_buf_cleanup(&j);
  bpi_compare_free(c);

  /* poll 6x (+1 ms a run): beyond its own base's band, within what the
   * band makes of all the blocked time (about 4 ms): not named, white;
   * wait, the largest change, within */
  const char *small[2] = {poll[0],
    "p;main;wait;futex_[k];schedule_[k] 515000\n"
    "p;main;poll;poll_[k];schedule_[k] 6000\n"
    "p;main;work;[preempted] 100000\n"};
  b = compare_off_reps("off-small", small, blocked, reps, &c);
  CHECK(b && b->off_stack && !strcmp(b->off_stack, "p;main;wait") &&
        b->off_within_noise);
  cost.per_sample[0] = b ? b->off_ns_per_us[0] : 0;
  cost.per_sample[1] = b ? b->off_ns_per_us[1] : 0;
  cost.band = b ? &b->off_band : NULL;
  bpi_buf_init(&j);
  CHECK(b && bpi_diffsvg_write_cost(b->off_lines, b->off_nlines, false, "a",
                                    &cost, &j, &err) == BP_OK);
  bpi_buf_addc(&j, '\0');
  t = strstr(j.data, "<title>poll ");
  fill = t ? strstr(t, "fill=") : NULL;
  CHECK(t && strstr(t, "within noise)") && fill &&
        !strncmp(fill, "fill=\"rgb(250,250,250)\"", 23));
  bpi_buf_cleanup(&j);
  bpi_compare_free(c);

  /* poll unchanged: no stack beyond the band; wait the largest, within */
  const char *steady[2] = {poll[0],
    "p;main;wait;futex_[k];schedule_[k] 515000\n"
    "p;main;poll;poll_[k];schedule_[k] 1000\n"
    "p;main;work;[preempted] 100000\n"};
  b = compare_off_reps("off-steady", steady, blocked, reps, &c);
  CHECK(b && b->off_stack && !strcmp(b->off_stack, "p;main;wait") &&
        b->off_within_noise && near(b->off_head_ns - b->off_base_ns, 3e6));
  bpi_compare_free(c);

  /* off-cpu confirmed (twice the blocked time): no band, every change
   * is the benchmark's, the largest named */
  const char *twice[2] = {"[100e6, 102e6, 99e6, 101e6, 103e6]",
                          "[201e6, 200e6, 204e6, 199e6, 202e6]"};
  const char *twice_blocked[2] = {"505", "1006"};
  b = compare_off_reps("off-twice", steady, twice_blocked, twice, &c);
  off = b ? measure(b, "off-cpu") : NULL;
  CHECK(off && off->flag == BP_CMP_REGRESSION);
  CHECK(b && b->off_band.basis == BP_CMP_BAND_CONFIRMED &&
        !bpi_compare_band_wide(&b->off_band));
  CHECK(b && b->off_stack && !strcmp(b->off_stack, "p;main;wait") &&
        !b->off_within_noise);
  bpi_compare_free(c);
}

/* One run a side: no interval, so the band is the change of the whole
 * blocked time (what off-cpu measures; of the stacks, 1.1 -> 4.9 ms:
 * +345.5%), the most a drift of all of it can have made of a stack, as
 * the functions' band is the profile's total change.  A stack 4x longer
 * is not named; one 9x longer is.  A stack that is all the blocked time
 * (4x, as the whole) is at the band's edge: within it, not named. */
static void test_off_cpu_single_run_band(void)
{
  struct bp_cmp *c;
  const char *off[2] = {"p;main;wait;futex_[k] 1000\n"
                        "p;main;read;read_[k] 100\n",
                        "p;main;wait;futex_[k] 4000\n"
                        "p;main;read;read_[k] 900\n"};
  const struct bp_cmp_bench *b = compare_off("off-single", off, &c);
  CHECK(b && b->off_band.basis == BP_CMP_BAND_TOTAL &&
        b->off_band.measure && !strcmp(b->off_band.measure, "off-cpu") &&
        near(b->off_band.lo, 0) && near(b->off_band.hi, 4900.0 / 1100 - 1));
  CHECK(b && b->off_stack && !strcmp(b->off_stack, "p;main;read") &&
        !b->off_within_noise);
  struct bp_buf t;
  bpi_buf_init(&t);
  if(b)
    bpi_compare_band_text(&b->off_band, &t);
  bpi_buf_addc(&t, '\0');
  CHECK(!bpi_buf_failed(&t) && !strcmp(t.data, "off-cpu's own change, with "
                                       "no interval, +0.0% to +345.5%"));
  bpi_buf_cleanup(&t);
  bpi_compare_free(c);
  /* only the 4x: within the band, shown as the largest change */
  const char *four[2] = {"p;main;wait;futex_[k] 1000\n",
                         "p;main;wait;futex_[k] 4000\n"};
  b = compare_off("off-four", four, &c);
  CHECK(b && b->off_stack && !strcmp(b->off_stack, "p;main;wait") &&
        b->off_within_noise);
  bpi_compare_free(c);
  /* the same, the harness's latency a confirmed regression from its
   * bounds (10 -> 20 ms, +80% to +120%): the blocked time's growth is
   * the benchmark's, not a drift, so no band and the wait is named */
  char dirs[2][128];
  for(int side = 0; side < 2; side++) {
    snprintf(dirs[side], sizeof(dirs[side]), "%s/off-latency-%d", root,
             side);
    make_off_named(dirs[side], "a", four[side], side ? "40" : "10");
    put(dirs[side], "report.json", side ?
        "{\"a\": {\"latency\": {\"value\": 20, \"lower_value\": 19, "
        "\"upper_value\": 21}}}" :
        "{\"a\": {\"latency\": {\"value\": 10, \"lower_value\": 9, "
        "\"upper_value\": 11}}}");
  }
  struct bp_cmp_opts o = {.threshold_pct = 5};
  struct bp_err err = {0};
  c = NULL;
  CHECK(bpi_compare_dirs(dirs[0], dirs[1], &o, &c, &err) == BP_OK);
  b = c ? bench(c, "a") : NULL;
  CHECK(b && b->flag == BP_CMP_REGRESSION &&
        b->off_band.basis == BP_CMP_BAND_CONFIRMED && b->off_band.measure &&
        !strcmp(b->off_band.measure, "latency"));
  CHECK(b && b->off_stack && !strcmp(b->off_stack, "p;main;wait") &&
        !b->off_within_noise);
  bpi_compare_free(c);
}

/* compare.json names a benchmark's off-CPU diff: its path in the compare
 * directory, and the store key and URL a run's comparison stored it at
 * (compare_pr.c sets them before writing compare.json). */
static void test_off_cpu_json(void)
{
  struct bp_cmp *c;
  const char *off[2] = {"p;main;wait;futex_[k] 1000\n",
                        "p;main;wait;futex_[k] 9000\n"};
  const struct bp_cmp_bench *b = compare_off("off-json", off, &c);
  CHECK(b && bpi_compare_has_off_diff(b));
  struct bp_buf j;
  bpi_buf_init(&j);
  if(c)
    bpi_compare_json(c, &j);
  bpi_buf_addc(&j, '\0');
  CHECK(!bpi_buf_failed(&j) &&
        strstr(j.data, "\"diff_offcpu\": \"a/diff.offcpu.svg\", "
               "\"diff_offcpu_key\": null, \"diff_offcpu_url\": null"));
  if(c) {
    c->benches[0].off_diff_key = strdup("p/main/h/tb/a/diff.offcpu.svg");
    c->benches[0].off_diff_url =
      strdup("https://s.example/p/main/h/tb/a/diff.offcpu.svg");
  }
  bpi_buf_reset(&j);
  if(c)
    bpi_compare_json(c, &j);
  bpi_buf_addc(&j, '\0');
  CHECK(!bpi_buf_failed(&j) &&
        strstr(j.data, "\"diff_offcpu\": \"a/diff.offcpu.svg\", "
               "\"diff_offcpu_key\": \"p/main/h/tb/a/diff.offcpu.svg\", "
               "\"diff_offcpu_url\": \"https://s.example/p/main/h/tb/a/"
               "diff.offcpu.svg\""));
  /* written where it says */
  char out[256], path[300];
  struct bp_err err = {0};
  snprintf(out, sizeof(out), "%s/off-json-out", root);
  CHECK(c && bpi_compare_write(c, out, &err) == BP_OK);
  snprintf(path, sizeof(path), "%s/a/diff.offcpu.svg", out);
  CHECK(access(path, F_OK) == 0);
  bpi_buf_cleanup(&j);
  bpi_compare_free(c);
}

/* A run of benchmark "a" with 5 repetitions: latency and task-clock
 * (ns) the values base + step * i (i = 0..4) each, and with off_base
 * (> 0) off-CPU stacks and the off-cpu measure the same way. */
struct wall_side {
  double latency, cpu, off;    /* the first repetition's */
};

static void reps_text(char *out, size_t n, double first)
{
  snprintf(out, n, "[%g, %g, %g, %g, %g]", first, first + 1, first + 2,
           first + 3, first + 4);
}

static void make_wall_run(const char *dir, const struct wall_side *s)
{
  char lat[128], cpu[128], off[128], text[2048], offart[160] = "";
  char offrep[160] = "";
  reps_text(lat, sizeof(lat), s->latency);
  reps_text(cpu, sizeof(cpu), s->cpu);
  reps_text(off, sizeof(off), s->off);
  if(s->off > 0) {
    snprintf(offart, sizeof(offart), "{\"file\": \"a/profile.offcpu.folded\", "
             "\"kind\": \"offcpu-folded-stacks\"},");
    snprintf(offrep, sizeof(offrep), ", \"off-cpu\": %s", off);
  }
  snprintf(text, sizeof(text),
      "{\"report\": \"report.json\", \"repeat\": 5, \"benchmarks\": ["
      "{\"name\": \"a\", \"profile\": \"a\", \"repetitions\": "
      "{\"latency\": %s, \"task-clock\": %s%s}, \"artifacts\": ["
      "{\"file\": \"a/profile.folded\", \"kind\": \"folded-stacks\"}, %s"
      "{\"file\": \"a/summary.json\", \"kind\": \"summary\"}]}]}",
      lat, cpu, offrep, offart);
  put(dir, "manifest.json", text);
  snprintf(text, sizeof(text), "{\"a\": {\"latency\": {\"value\": %g, "
           "\"lower_value\": %g, \"upper_value\": %g}, \"task-clock\": "
           "{\"value\": %g, \"lower_value\": %g, \"upper_value\": %g}}}",
           s->latency + 2, s->latency, s->latency + 4, s->cpu + 2, s->cpu,
           s->cpu + 4);
  put(dir, "report.json", text);
  put(dir, "a/profile.folded", "p;main;work 10\n");
  if(s->off > 0) {
    snprintf(text, sizeof(text), "p;main;nap;nanosleep_[k] %.0f\n",
             5 * (s->off + 2) / 1000);
    put(dir, "a/profile.offcpu.folded", text);
  }
  snprintf(text, sizeof(text), "{\"threads\": [{\"samples\": 10}], "
           "\"off_cpu\": {\"blocked_ms\": %g}}", 5 * (s->off + 2) / 1e6);
  put(dir, "a/summary.json", text);
}

/* Compare base and head (make_wall_run) in dirs under name. */
static struct bp_cmp *compare_wall(const char *name,
                                   const struct wall_side *base,
                                   const struct wall_side *head,
                                   bool wall_time_counted)
{
  char dirs[2][128];
  for(int side = 0; side < 2; side++) {
    snprintf(dirs[side], sizeof(dirs[side]), "%s/%s-%d", root, name, side);
    make_wall_run(dirs[side], side ? head : base);
  }
  struct bp_cmp_opts o = {.threshold_pct = 5,
                          .wall_time_counted = wall_time_counted};
  struct bp_err err = {0};
  struct bp_cmp *c = NULL;
  CHECK(bpi_compare_dirs(dirs[0], dirs[1], &o, &c, &err) == BP_OK);
  return c;
}

/* compare.json of c has every one of the strings in want (NULL ends). */
static void check_json_has(const struct bp_cmp *c, const char *const *want)
{
  struct bp_buf j;
  bpi_buf_init(&j);
  bpi_compare_json(c, &j);
  bpi_buf_addc(&j, '\0');
  CHECK(!bpi_buf_failed(&j));
  for(size_t i = 0; want[i] && !bpi_buf_failed(&j); i++)
    if(!strstr(j.data, want[i])) {
      fprintf(stderr, "compare.json lacks %s\n", want[i]);
      CHECK(false);
    }
  bpi_buf_cleanup(&j);
}

/* Latency 100 -> 150 ns (+48%, 5 repetitions a side: confirmed beyond
 * 5%) while task-clock stays 50 ns: the same code on a busier runner
 * looks exactly like this.  Not a confirmed regression but "slower in
 * wall time only": not counted (nregressions 0, so neither the gate nor
 * the commit status fails), its own count, its own verdict.  The
 * latency's own test still says confirmed. */
static void test_wall_time_only(void)
{
  const struct wall_side base = {100, 50, 0}, head = {150, 50, 0};
  struct bp_cmp *c = compare_wall("wall-only", &base, &head, false);
  const struct bp_cmp_bench *b = c ? bench(c, "a") : NULL;
  const struct bp_cmp_measure *lat = measure(b, "latency");
  CHECK(b && lat);
  if(!b || !lat) {
    bpi_compare_free(c);
    return;
  }
  CHECK_EQ_INT(lat->flag, BP_CMP_REGRESSION);
  CHECK_EQ_INT(lat->wall_only, BP_CMP_REGRESSION);
  CHECK_EQ_INT(b->flag, BP_CMP_UNCHANGED);
  CHECK_EQ_INT(b->wall_only, BP_CMP_REGRESSION);
  CHECK_EQ_INT(b->unconfirmed, BP_CMP_UNCHANGED);
  CHECK_EQ_STR(bpi_compare_verdict(b), "slower in wall time only");
  CHECK(bpi_compare_worse(b));
  CHECK(b->max_slug && !strcmp(b->max_slug, "latency"));
  CHECK_EQ_INT(c->nregressions, 0);
  CHECK_EQ_INT(c->nwall_slower, 1);
  CHECK_EQ_INT(c->nunchanged, 0);
  struct bp_buf t;
  bpi_buf_init(&t);
  bpi_compare_counts_text(c, &t);
  bpi_buf_addc(&t, '\0');
  CHECK_EQ_STR(t.data, "0 regressions confirmed, 0 unconfirmed; 0 "
               "improvements confirmed, 0 unconfirmed; 1 slower in wall "
               "time only (CPU time unchanged: waiting, or a busier "
               "runner); 0 unchanged");
  bpi_buf_cleanup(&t);
  check_json_has(c, (const char *const[]){
    "\"regressions\": 0,", "\"slower_wall_time_only\": 1,",
    "\"faster_wall_time_only\": 0,", "\"wall_time_only\": \"separate\"",
    "\"verdict\": \"slower in wall time only\", \"wall_time_only\": "
    "\"regression\"", "\"confirmed\": true, \"wall_time_only\": true", NULL});
  bpi_compare_free(c);

  /* the owner of a dedicated runner counts it, as before */
  c = compare_wall("wall-counted", &base, &head, true);
  b = c ? bench(c, "a") : NULL;
  CHECK(b && b->flag == BP_CMP_REGRESSION && !b->wall_only);
  CHECK(b && !measure(b, "latency")->wall_only);
  CHECK(c && c->nregressions == 1 && c->nwall_slower == 0);
  if(c)
    check_json_has(c, (const char *const[]){
      "\"regressions\": 1,", "\"slower_wall_time_only\": 0,",
      "\"wall_time_only\": \"regression\"", "\"verdict\": \"regression\"",
      NULL});
  bpi_compare_free(c);

  /* the CPU time followed (task-clock +48% too): a regression */
  const struct wall_side cpu_head = {150, 75, 0};
  c = compare_wall("wall-cpu", &base, &cpu_head, false);
  b = c ? bench(c, "a") : NULL;
  CHECK(b && b->flag == BP_CMP_REGRESSION && !b->wall_only);
  CHECK(c && c->nregressions == 1 && c->nwall_slower == 0);
  bpi_compare_free(c);
}

/* The mirror: latency 150 -> 100 ns with task-clock unchanged is "faster
 * in wall time only", not a confirmed improvement. */
static void test_wall_time_only_faster(void)
{
  const struct wall_side base = {150, 50, 0}, head = {100, 50, 0};
  struct bp_cmp *c = compare_wall("wall-faster", &base, &head, false);
  const struct bp_cmp_bench *b = c ? bench(c, "a") : NULL;
  CHECK(b && b->flag == BP_CMP_UNCHANGED);
  CHECK(b && b->wall_only == BP_CMP_IMPROVEMENT);
  CHECK(b && measure(b, "latency")->flag == BP_CMP_IMPROVEMENT);
  CHECK(b && !strcmp(bpi_compare_verdict(b), "faster in wall time only"));
  CHECK(b && !bpi_compare_worse(b));
  CHECK(c && c->nimprovements == 0 && c->nwall_faster == 1 &&
        c->nwall_slower == 0);
  if(c)
    check_json_has(c, (const char *const[]){
      "\"improvements\": 0,", "\"faster_wall_time_only\": 1,",
      "\"verdict\": \"faster in wall time only\"", NULL});
  bpi_compare_free(c);

  c = compare_wall("wall-faster-counted", &base, &head, true);
  CHECK(c && c->nimprovements == 1 && c->nwall_faster == 0);
  bpi_compare_free(c);
}

/* Both sides recorded with --off-cpu: blocked time 1 ms -> 2 ms a run,
 * a confirmed regression of off-cpu, shows the waiting is the code's:
 * latency's regression is counted.  Blocked time unchanged leaves it
 * wall time only; blocked time that fell does not confirm a rise. */
static void test_wall_time_off_cpu_confirmed(void)
{
  const struct wall_side base = {100, 50, 1e6}, head = {150, 50, 2e6};
  struct bp_cmp *c = compare_wall("wall-off", &base, &head, false);
  const struct bp_cmp_bench *b = c ? bench(c, "a") : NULL;
  CHECK(b && measure(b, "off-cpu") &&
        measure(b, "off-cpu")->flag == BP_CMP_REGRESSION);
  CHECK(b && b->flag == BP_CMP_REGRESSION && !b->wall_only);
  CHECK(b && !measure(b, "latency")->wall_only);
  CHECK(c && c->nregressions == 1 && c->nwall_slower == 0);
  bpi_compare_free(c);

  const struct wall_side same = {150, 50, 1e6};
  c = compare_wall("wall-off-same", &base, &same, false);
  b = c ? bench(c, "a") : NULL;
  CHECK(b && measure(b, "off-cpu") && !measure(b, "off-cpu")->flag);
  CHECK(b && b->flag == BP_CMP_UNCHANGED &&
        b->wall_only == BP_CMP_REGRESSION);
  CHECK(c && c->nregressions == 0 && c->nwall_slower == 1);
  bpi_compare_free(c);

  /* blocked time halved (its own confirmed improvement, which the
   * benchmark's verdict is): latency's rise stays wall time only */
  const struct wall_side less = {150, 50, 0.5e6};
  c = compare_wall("wall-off-less", &base, &less, false);
  b = c ? bench(c, "a") : NULL;
  CHECK(b && measure(b, "latency")->wall_only == BP_CMP_REGRESSION);
  CHECK(b && b->flag == BP_CMP_IMPROVEMENT);
  CHECK(c && c->nregressions == 0);
  bpi_compare_free(c);
}

/* One function doing all the work, twice as much in head: 460 -> 931
 * samples of a 1 kHz clock.  Its share stays 100%, yet its absolute cost
 * per run doubles, significantly; a function whose samples barely moved
 * is not named.  Per run: the base covers 2 repetitions (--repeat 2). */
/* Frames that name only an address no file holds, the same code at
 * other addresses on each side (ASLR; the base's labelled by an older
 * benchprof, "0x... (in [unknown])", "0x... (in perf-PID.map)"; the
 * head's as profiles label them now), are one function on both sides:
 * no function new or vanished, none named by an address.  A file's
 * unnamed address (the same in every run) keeps its own. */
static void test_unnamed_frames(void)
{
  const char *folded[2] = {
    "p;main;0x7f40bbcf2ad7 (in [unknown]);k 5\n"
    "p;main;0x7f40bbcf2ad7 (in [unknown]);0x7f40bbd00010 (in [unknown]) 2\n"
    "p;main;0x7f40bbcf3040 (in perf-4591.map) 300\n"
    "p;main;0x1a2b (in libfoo.so) 9\n"
    "p;main;0xzz (in [unknown]) 1\n",
    "p;main;[unknown];k 6\n"
    "p;main;0x7f51aacf2ad7 (in [unknown]) 1\n"
    "p;main;[anon] 290\n"
    "p;main;0x7f51aacf3040 (in perf-4790.map) 20\n"
    "p;main;0x1a2b (in libfoo.so) 8\n"
    "p;main;0xzz (in [unknown]) 1\n"};
  char dirs[2][128];
  for(int side = 0; side < 2; side++) {
    snprintf(dirs[side], sizeof(dirs[side]), "%s/unnamed-%d", root, side);
    put(dirs[side], "manifest.json",
        "{\"report\": \"report.json\", \"benchmarks\": [{\"name\": "
        "\"w\", \"profile\": \".\", \"artifacts\": ["
        "{\"file\": \"profile.folded\", \"kind\": \"folded-stacks\"}]}]}");
    put(dirs[side], "report.json", "{\"w\": {\"latency\": {\"value\": 1}}}");
    put(dirs[side], "profile.folded", folded[side]);
  }
  struct bp_cmp_opts o = {.threshold_pct = 0};
  struct bp_cmp *c = NULL;
  struct bp_err err = {0};
  CHECK(bpi_compare_dirs(dirs[0], dirs[1], &o, &c, &err) == BP_OK);
  if(!c)
    return;
  const struct bp_cmp_bench *b = bench(c, "w");
  CHECK(b != NULL);
  if(!b) {
    bpi_compare_free(c);
    return;
  }
  const struct bp_cmp_func *f = func(b, "[unknown]");
  CHECK(f && f->base_self == 2 && f->head_self == 1 &&
        f->base_total == 7 && f->head_total == 7);
  f = func(b, "[anon]");
  CHECK(f && f->base_self == 300 && f->head_self == 310);
  f = func(b, "0x1a2b (in libfoo.so)");
  CHECK(f && f->base_self == 9 && f->head_self == 8);
  /* not an address: left as it is */
  f = func(b, "0xzz (in [unknown])");
  CHECK(f && f->base_self == 1 && f->head_self == 1);
  for(size_t i = 0; i < b->nfuncs; i++) {
    const char *n = b->funcs[i].name;
    CHECK(b->funcs[i].base_total && b->funcs[i].head_total);
    CHECK(!strstr(n, "perf-") && (strncmp(n, "0x7f", 4) != 0));
  }
  /* the diff flame graph's lines: one [unknown] frame under main, and
   * the one below it */
  size_t unknown_lines = 0;
  for(size_t i = 0; i < b->nlines; i++) {
    CHECK(!strstr(b->lines[i].stack, "0x7f"));
    unknown_lines += strstr(b->lines[i].stack, "[unknown]") &&
                     !strstr(b->lines[i].stack, "0xzz");
  }
  CHECK_EQ_INT(unknown_lines, 3);
  bpi_compare_free(c);
}

/* One function holds nearly all the samples, latency one value a side
 * +86% (unconfirmed): where the function's cost did not change beyond
 * the sampling's own noise (950 -> 955 samples), the change is not
 * "spread over" it (nothing on the CPU changed); where it doubled, it
 * is. */
static void dominant_case(const char *name, int head_samples,
                          enum bp_cmp_no_func want, const char *line)
{
  char dirs[2][128];
  for(int side = 0; side < 2; side++) {
    char folded[128], summary[256];
    int n = side ? head_samples : 950;
    snprintf(dirs[side], sizeof(dirs[side]), "%s/%s-%d", root, name, side);
    snprintf(folded, sizeof(folded), "p;main;spin %d\np;main;tiny 20\n", n);
    snprintf(summary, sizeof(summary),
             "{\"samples\": %d, \"event\": {\"used\": \"cpu-clock\", "
             "\"time_based\": true, \"frequency_hz\": 1000, \"period\": "
             "null}, \"threads\": []}", n + 20);
    put(dirs[side], "manifest.json",
        "{\"report\": \"report.json\", \"benchmarks\": [{\"name\": "
        "\"d\", \"profile\": \".\", \"artifacts\": ["
        "{\"file\": \"profile.folded\", \"kind\": \"folded-stacks\"},"
        "{\"file\": \"summary.json\", \"kind\": \"summary\"}]}]}");
    put(dirs[side], "report.json", side ?
        "{\"d\": {\"latency\": {\"value\": 186}}}" :
        "{\"d\": {\"latency\": {\"value\": 100}}}");
    put(dirs[side], "profile.folded", folded);
    put(dirs[side], "summary.json", summary);
  }
  struct bp_cmp_opts o = {.threshold_pct = 5};
  struct bp_comment_opts co = {.project = "p", .testbed = "t"};
  struct bp_cmp *c = NULL;
  struct bp_err err = {0};
  struct bp_buf md;
  bpi_buf_init(&md);
  CHECK(bpi_compare_dirs(dirs[0], dirs[1], &o, &c, &err) == BP_OK);
  const struct bp_cmp_bench *b = c ? bench(c, "d") : NULL;
  const struct bp_cmp_func *f = NULL;
  CHECK(b && b->has_cost && bpi_compare_dominant_func(b) == func(b, "spin"));
  CHECK(b && !bpi_compare_top_func(b, true));
  CHECK(b && bpi_compare_no_func_why(b, true, &f) == want &&
        f == func(b, "spin"));
  CHECK(c && bpi_comment_markdown(c, &co, &md, &err) == BP_OK);
  bpi_buf_addc(&md, '\0');
  CHECK(md.data && strstr(md.data, line));
  CHECK(md.data && (want == BP_CMP_NO_FUNC_DOMINANT) ==
        (strstr(md.data, "spread over") != NULL));
  bpi_buf_cleanup(&md);
  bpi_compare_free(c);
}

static void test_dominant_unchanged(void)
{
  dominant_case("dom-same", 955, BP_CMP_NO_FUNC_SAMPLING,
                "\nNo function is named: no function's change is beyond "
                "the sampling's own noise (970 samples in the base's "
                "profile, 975 in the head's): the largest, `spin`, self ");
  dominant_case("dom-twice", 1900, BP_CMP_NO_FUNC_DOMINANT,
                "\nThe change is spread over `spin`, which holds 98% of the "
                "samples in the base's profile and 99% in the head's: self ");
}

static void test_function_costs(void)
{
  const char *folded[2] = {"p;main;checksum_block 460\np;main;tiny 100\n",
                           "p;main;checksum_block 931\np;main;tiny 52\n"};
  const char *repeat[2] = {"2", "1"};
  char dirs[2][128];
  for(int side = 0; side < 2; side++) {
    char man[1024], summary[512];
    snprintf(dirs[side], sizeof(dirs[side]), "%s/cost-%d", root, side);
    snprintf(man, sizeof(man),
             "{\"report\": \"report.json\", \"repeat\": %s, "
             "\"benchmarks\": [{\"name\": "
             "\"sum\", \"profile\": \".\", \"artifacts\": ["
             "{\"file\": \"profile.folded\", \"kind\": \"folded-stacks\"},"
             "{\"file\": \"summary.json\", \"kind\": \"summary\"}]}]}",
             repeat[side]);
    /* base: the exact total of periods; head: only its frequency */
    snprintf(summary, sizeof(summary),
             "{\"samples\": %d, \"event\": {\"used\": \"task-clock\", "
             "\"time_based\": true, \"frequency_hz\": 1000, \"period\": "
             "null%s}, \"threads\": []}", side ? 983 : 560,
             side ? "" : ", \"sampled_total\": 560000000");
    put(dirs[side], "manifest.json", man);
    put(dirs[side], "report.json", "{\"sum\": {\"latency\": {\"value\": 1}}}");
    put(dirs[side], "profile.folded", folded[side]);
    put(dirs[side], "summary.json", summary);
  }
  struct bp_cmp_opts o = {.threshold_pct = 0};
  struct bp_cmp *c = NULL;
  struct bp_err err = {0};
  CHECK(bpi_compare_dirs(dirs[0], dirs[1], &o, &c, &err) == BP_OK);
  if(!c)
    return;
  const struct bp_cmp_bench *b = bench(c, "sum");
  CHECK(b && b->has_cost && !strcmp(b->unit, "ns"));
  CHECK(b && near(b->base.per_sample, 1e6) && near(b->head.per_sample, 1e6));
  CHECK(b && near(b->base.runs, 2) && near(b->head.runs, 1));
  const struct bp_cmp_func *f = func(b, "checksum_block");
  /* base: 460 samples over 2 runs = 230 ms a run; head: 931 ms a run */
  CHECK(f && near(f->base_self_cost, 230e6) && near(f->head_self_cost, 931e6));
  CHECK(f && near(f->d_self_cost, 701e6) && f->self_significant);
  CHECK(f && f->self_half > 0 && f->self_half < 200e6);
  CHECK(b && bpi_compare_top_func(b, true) == f);
  CHECK(b && b->funcs[0].name && !strcmp(b->funcs[0].name, "checksum_block"));
  /* tiny: 50 -> 52 ms a run, well within the noise of its counts; the
   * intervals are Bonferroni's for the functions seen (99% together) */
  f = func(b, "tiny");
  CHECK(f && !f->self_significant);
  CHECK(b && near(b->func_z, bpi_stats_z_family(b->nfuncs)) &&
        b->func_z > BP_STATS_Z);
  CHECK(b && bpi_compare_top_func(b, false) == NULL);
  struct bp_buf j;
  bpi_buf_init(&j);
  bpi_compare_json(c, &j);
  bpi_buf_addc(&j, '\0');
  CHECK(strstr(j.data, "\"cost_unit\": \"ns\", \"cost_per\": \"run\", "
               "\"event\": \"task-clock\"") != NULL);
  CHECK(strstr(j.data, "\"d_self_cost\": 701000000") != NULL);
  /* the flame graph by absolute change: checksum_block deep red (only
   * its callers, holding tiny's +2 ms, changed more), tiny white (within
   * noise), the event named */
  bpi_buf_reset(&j);
  struct bp_diffsvg_cost cost = {.per_sample = {1e6 / 2, 1e6},
                                 .z = b ? b->func_z : 3,
                                 .event = "task-clock", .unit = "ns"};
  CHECK(b && bpi_diffsvg_write_cost(b->lines, b->nlines, false, "sum",
                                    &cost, &j, &err) == BP_OK);
  bpi_buf_addc(&j, '\0');
  CHECK(strstr(j.data, "Differential flame graph: sum (task-clock)"));
  CHECK(strstr(j.data, "red: more task-clock per run, blue: less; white: "
               "within the noise"));
  const char *cb = strstr(j.data, "<title>checksum_block ");
  const char *tiny = strstr(j.data, "<title>tiny ");
  const char *fill = cb ? strstr(cb, "fill=") : NULL;
  /* costs scaled as the comment scales them, never 7.01e+08 ns */
  CHECK(cb && strstr(cb, "; per run: base 230 ms, head 931 ms, change "
                     "+701 ms \xc2\xb1 ") && fill &&
        !strncmp(fill, "fill=\"rgb(255,56,56)\"", 21));   /* near the reddest */
  fill = tiny ? strstr(tiny, "fill=") : NULL;
  CHECK(tiny && strstr(tiny, "; per run: base 50 ms, head 52 ms, change "
                       "+2 ms \xc2\xb1 ") && strstr(tiny, " ms, within noise)") &&
        fill && !strncmp(fill, "fill=\"rgb(250,250,250)\"", 23));
  CHECK(!strstr(j.data, "e+0"));
  /* per iteration when the comparison's costs are (Google Benchmark's
   * iterations), and an event's counts scaled with k, M, G */
  bpi_buf_reset(&j);
  cost.per = "iteration";
  cost.unit = "events";
  cost.event = "instructions";
  cost.per_sample[0] = 1e6;
  cost.per_sample[1] = 2e6;
  CHECK(b && bpi_diffsvg_write_cost(b->lines, b->nlines, false, "sum",
                                    &cost, &j, &err) == BP_OK);
  bpi_buf_addc(&j, '\0');
  CHECK(strstr(j.data, "red: more instructions per iteration, blue: less"));
  cb = strstr(j.data, "<title>checksum_block ");
  CHECK(cb && strstr(cb, "; per iteration: base 460M, head 1.862G, change "
                     "+1.402G \xc2\xb1 "));
  CHECK(!strstr(j.data, "per run") && !strstr(j.data, "e+0"));
  bpi_buf_cleanup(&j);
  bpi_compare_free(c);
}

/* A run of benchmark "b" sampled with task-clock at 1 kHz (a sample is
 * 1 ms of CPU), its folded stacks given; task-clock's repetitions (a JSON
 * list; NULL: one value, tc) and the manifest's extra members (repeat,
 * the runs a harness marked) given. */
static void make_clock_run(const char *dir, const char *folded,
                           const char *reps, double tc, const char *top,
                           const char *bench_extra)
{
  char man[1024], rep[256], summary[256];
  char repetitions[256] = "";
  if(reps)
    snprintf(repetitions, sizeof(repetitions),
             "\"repetitions\": {\"task-clock\": %s}, ", reps);
  snprintf(man, sizeof(man),
           "{\"report\": \"report.json\", %s \"benchmarks\": [{\"name\": "
           "\"b\", \"profile\": \".\", %s%s\"artifacts\": ["
           "{\"file\": \"profile.folded\", \"kind\": \"folded-stacks\"},"
           "{\"file\": \"summary.json\", \"kind\": \"summary\"}]}]}",
           top, repetitions, bench_extra);
  snprintf(rep, sizeof(rep), "{\"b\": {\"task-clock\": {\"value\": %g}}}",
           tc);
  snprintf(summary, sizeof(summary),
           "{\"event\": {\"used\": \"task-clock\", \"time_based\": true, "
           "\"frequency_hz\": 1000, \"period\": null}, \"threads\": []}");
  put(dir, "manifest.json", man);
  put(dir, "report.json", rep);
  put(dir, "profile.folded", folded);
  put(dir, "summary.json", summary);
}

struct clock_side {
  const char *folded, *reps;
  double tc;
  const char *top, *bench_extra;
};

static struct bp_cmp *compare_clock(const char *name,
                                    const struct clock_side sides[2])
{
  char dirs[2][128];
  for(int side = 0; side < 2; side++) {
    snprintf(dirs[side], sizeof(dirs[side]), "%s/%s-%d", root, name, side);
    make_clock_run(dirs[side], sides[side].folded, sides[side].reps,
                  sides[side].tc, sides[side].top ? sides[side].top : "",
                  sides[side].bench_extra ? sides[side].bench_extra : "");
  }
  struct bp_cmp_opts o = {.threshold_pct = 5};
  struct bp_cmp *c = NULL;
  struct bp_err err = {0};
  CHECK(bpi_compare_dirs(dirs[0], dirs[1], &o, &c, &err) == BP_OK);
  return c;
}

static bool significant(const struct bp_cmp_bench *b, const char *name)
{
  const struct bp_cmp_func *f = func(b, name);
  return f && (f->self_significant || f->total_significant);
}

/* The functions' noise band: a job's drift scales every function, and
 * with enough samples each one's Poisson interval leaves out 0; only
 * task-clock (its repetitions and threshold) can tell a drift from a
 * uniform real change, so a function is named only beyond what its
 * change allows. */
static void test_function_band(void)
{
  /* every function 5% more, task-clock within noise: its interval is
   * -1.0% (103/104) to +7.0% (107/100), below the 5% threshold */
  const char *base_reps = "[100, 101, 102, 103, 104]";
  const char *head_reps = "[103, 104, 105, 106, 107]";
  struct clock_side drift[2] = {
    {"p;main;hot 10000\np;main;cold 5000\n", base_reps, 102, NULL, NULL},
    {"p;main;hot 10500\np;main;cold 5250\n", head_reps, 105, NULL, NULL}};
  struct bp_cmp *c = compare_clock("band-drift", drift);
  const struct bp_cmp_bench *b = c ? bench(c, "b") : NULL;
  const struct bp_cmp_measure *m = measure(b, "task-clock");
  CHECK(m && m->has_interval && !m->flag);
  CHECK(b && b->band.basis == BP_CMP_BAND_INTERVAL && b->band.measure &&
        !strcmp(b->band.measure, "task-clock"));
  CHECK(b && near(b->band.lo, 103.0 / 104 - 1) &&
        near(b->band.hi, 107.0 / 100 - 1));
  /* hot: +500 ms, its Poisson half-width about 420 ms: 0 is left out,
   * yet 7% of its 10 s is 700 ms */
  const struct bp_cmp_func *hot = func(b, "hot");
  CHECK(hot && hot->d_self_cost > hot->self_half);
  CHECK(b && !significant(b, "hot") && !significant(b, "cold") &&
        !significant(b, "main"));
  CHECK(b && !bpi_compare_top_func(b, true) && !bpi_compare_top_func(b, false));
  struct bp_buf j;
  bpi_buf_init(&j);
  if(c)
    bpi_compare_json(c, &j);
  bpi_buf_addc(&j, '\0');
  CHECK(strstr(j.data, "\"functions_noise_band_pct\": [-0.9615") &&
        strstr(j.data, "\"functions_noise_band_measure\": \"task-clock\", "
               "\"functions_noise_band_basis\": \"interval\""));
  /* the flame graph colours what the table names: hot is white */
  bpi_buf_reset(&j);
  struct bp_err err = {0};
  struct bp_diffsvg_cost cost = {.per_sample = {1e6, 1e6},
                                 .z = b ? b->func_z : 3,
                                 .band = b ? &b->band : NULL,
                                 .event = "task-clock", .unit = "ns"};
  CHECK(b && bpi_diffsvg_write_cost(b->lines, b->nlines, false, "b", &cost,
                                    &j, &err) == BP_OK);
  bpi_buf_addc(&j, '\0');
  const char *t = strstr(j.data, "<title>hot ");
  const char *fill = t ? strstr(t, "fill=") : NULL;
  CHECK(fill && !strncmp(fill, "fill=\"rgb(250,250,250)\"", 23));
  CHECK(strstr(j.data, "white too: a change the benchmark's own noise could "
               "make of a frame's base cost (task-clock's interval, -1.0% to "
               "+7.0%)"));
  bpi_compare_free(c);

  /* the same task-clock, one function 50% slower: named, the others not */
  struct clock_side one[2] = {
    {"p;main;hot 10000\np;main;slow 2000\n", base_reps, 102, NULL, NULL},
    {"p;main;hot 10000\np;main;slow 3000\n", head_reps, 105, NULL, NULL}};
  c = compare_clock("band-one", one);
  b = c ? bench(c, "b") : NULL;
  CHECK(b && significant(b, "slow") && !significant(b, "hot"));
  CHECK(b && bpi_compare_top_func(b, true) == func(b, "slow"));
  struct bp_comment_opts co = {.project = "p", .testbed = "t"};
  bpi_buf_reset(&j);
  CHECK(c && bpi_comment_markdown(c, &co, &j, &err) == BP_OK);
  bpi_buf_addc(&j, '\0');
  CHECK(strstr(j.data, "99% for all of the benchmark's functions together; "
               "a change the benchmark's own noise could make of a "
               "function's base cost (task-clock's interval, -1.0% to "
               "+7.0%) is not named):"));
  CHECK(strstr(j.data, "Grew most: **slow**"));
  bpi_compare_free(c);

  /* twice the work everywhere, confirmed by task-clock: the band is {0}
   * and every function is named */
  struct clock_side twice[2] = {
    {"p;main;hot 1000\np;main;cold 500\n", base_reps, 102, NULL, NULL},
    {"p;main;hot 2000\np;main;cold 1000\n", "[200, 202, 204, 206, 208]",
     204, NULL, NULL}};
  c = compare_clock("band-twice", twice);
  b = c ? bench(c, "b") : NULL;
  m = measure(b, "task-clock");
  CHECK(m && m->flag == BP_CMP_REGRESSION);
  CHECK(b && b->band.basis == BP_CMP_BAND_CONFIRMED && b->band.lo == 0 &&
        b->band.hi == 0 && !bpi_compare_band_wide(&b->band));
  CHECK(b && significant(b, "hot") && significant(b, "cold") &&
        significant(b, "main"));
  bpi_compare_free(c);

  /* one run a side, no interval: the change of the profile's total cost
   * (+16%) bounds the band; a drift of every function is not named */
  struct clock_side single[2] = {
    {"p;main;hot 10000\np;main;cold 5000\n", NULL, 100, NULL, NULL},
    {"p;main;hot 11600\np;main;cold 5800\n", NULL, 116, NULL, NULL}};
  c = compare_clock("band-single", single);
  b = c ? bench(c, "b") : NULL;
  CHECK(b && b->band.basis == BP_CMP_BAND_TOTAL && !b->band.measure &&
        near(b->band.lo, 0) && near(b->band.hi, 0.16));
  CHECK(b && !significant(b, "hot") && !significant(b, "cold"));
  bpi_compare_free(c);

  /* one run a side, one function faster and one slower, the total the
   * same: the band is {0}, both are named */
  struct clock_side swap[2] = {
    {"p;main;up 5000\np;main;down 5000\n", NULL, 100, NULL, NULL},
    {"p;main;up 6500\np;main;down 3500\n", NULL, 100, NULL, NULL}};
  c = compare_clock("band-swap", swap);
  b = c ? bench(c, "b") : NULL;
  CHECK(b && b->band.basis == BP_CMP_BAND_TOTAL &&
        !bpi_compare_band_wide(&b->band));
  CHECK(b && significant(b, "up") && significant(b, "down") &&
        !significant(b, "main"));
  CHECK(b && bpi_compare_top_func(b, true) == func(b, "up") &&
        bpi_compare_top_func(b, false) == func(b, "down"));
  bpi_buf_cleanup(&j);
  bpi_compare_free(c);
}

/* Kernel frames, marked "_[k]" in profile.folded: a kernel function is
 * named with its mark off and kernel set; the samples an interrupt took
 * (asm_sysvec_*, here also inside a system call) are one function,
 * [interrupts], which is never "grew most" though it grew most: a loaded
 * VM's timer interrupts are the machine's.  A system call's time
 * (ksys_write) and a page fault's (pvm_irq_enable under exc_page_fault)
 * stay the benchmark's, named as any function. */
#define IRQ_USER "p;main;spin;asm_sysvec_apic_timer_interrupt_[k];" \
  "sysvec_apic_timer_interrupt_[k];__raw_callee_save_pvm_irq_enable_[k];" \
  "pvm_irq_enable_[k] "
#define IRQ_SYSCALL "p;main;write;entry_SYSCALL_64_after_hwframe_[k];" \
  "do_syscall_64_[k];asm_sysvec_apic_timer_interrupt_[k];pvm_irq_enable_[k] "
#define WRITE "p;main;write;entry_SYSCALL_64_after_hwframe_[k];" \
  "do_syscall_64_[k];ksys_write_[k] "
#define FAULT "p;main;touch;asm_exc_page_fault_[k];exc_page_fault_[k];" \
  "pvm_irq_enable_[k] 50\n"
static void test_kernel_functions(void)
{
  struct clock_side sides[2] = {
    {"p;main;spin 10000\n" IRQ_USER "90\n" IRQ_SYSCALL "10\n" WRITE "500\n"
     FAULT, NULL, 106, NULL, NULL},
    {"p;main;spin 11000\n" IRQ_USER "1200\n" IRQ_SYSCALL "100\n" WRITE
     "1000\n" FAULT, NULL, 133, NULL, NULL}};
  struct bp_cmp *c = compare_clock("kernel", sides);
  const struct bp_cmp_bench *b = c ? bench(c, "b") : NULL;
  const struct bp_cmp_func *irq = func(b, "[interrupts]");
  const struct bp_cmp_func *w = func(b, "ksys_write");
  const struct bp_cmp_func *pf = func(b, "pvm_irq_enable");
  CHECK(irq && irq->kernel && irq->interrupts && irq->base_self == 100 &&
        irq->head_self == 1300 && irq->self_significant);
  CHECK(w && w->kernel && !w->interrupts && w->self_significant);
  /* pvm_irq_enable is left only where a page fault ran it */
  CHECK(pf && pf->kernel && !pf->interrupts && pf->base_self == 50 &&
        pf->head_self == 50);
  CHECK(!func(b, "sysvec_apic_timer_interrupt") &&
        !func(b, "pvm_irq_enable_[k]"));
  CHECK(func(b, "spin") && !func(b, "spin")->kernel &&
        !significant(b, "spin"));
  CHECK(b && bpi_compare_top_func(b, true) == w &&
        bpi_compare_interrupts(b) == irq);
  /* the interrupt inside write() is the interrupts', not do_syscall_64's
   * own, yet part of its total */
  const struct bp_cmp_func *sc = func(b, "do_syscall_64");
  CHECK(sc && sc->kernel && sc->base_self == 0 && sc->base_total == 510);
  struct bp_buf j;
  struct bp_err err = {0};
  bpi_buf_init(&j);
  if(c)
    bpi_compare_json(c, &j);
  bpi_buf_addc(&j, '\0');
  const char *jw = strstr(j.data, "\"name\": \"ksys_write\"");
  CHECK(jw && strstr(jw, "\"kernel\": true, \"interrupts\": false"));
  const char *ji = strstr(j.data, "\"name\": \"[interrupts]\"");
  CHECK(ji && strstr(ji, "\"kernel\": true, \"interrupts\": true"));
  const char *js = strstr(j.data, "\"name\": \"spin\"");
  CHECK(js && strstr(js, "\"kernel\": false, \"interrupts\": false"));
  struct bp_comment_opts co = {.project = "p", .testbed = "t"};
  bpi_buf_reset(&j);
  CHECK(c && bpi_comment_markdown(c, &co, &j, &err) == BP_OK);
  bpi_buf_addc(&j, '\0');
  CHECK(strstr(j.data, "Grew most: **ksys_write** (kernel) (self +500"));
  CHECK(strstr(j.data, "\nThe machine's interrupt handling (`[interrupts]`, "
               "kernel) grew: +1.2 s ± ") &&
        strstr(j.data, " per run. Interrupts take the CPU from whatever "
               "runs, so the benchmark does not control this time: it is "
               "not named as a cause.\n"));
  CHECK(strstr(j.data, "interrupts\\] (kernel) | ") ||
        strstr(j.data, "interrupts] (kernel) | "));
  bpi_compare_free(c);

  /* a base recorded before kernel frames were marked: its frames from
   * the kernel's entry up are taken as kernel frames, so its functions
   * match the head's */
  struct clock_side old[2] = {
    {"p;main;spin 10000\np;main;spin;asm_sysvec_apic_timer_interrupt;"
     "sysvec_apic_timer_interrupt;__raw_callee_save_pvm_irq_enable;"
     "pvm_irq_enable 90\np;main;write;entry_SYSCALL_64_after_hwframe;"
     "do_syscall_64;ksys_write 500\n", NULL, 106, NULL, NULL},
    {"p;main;spin 10000\n" IRQ_USER "90\n" WRITE "500\n", NULL, 106, NULL,
     NULL}};
  c = compare_clock("kernel-old", old);
  b = c ? bench(c, "b") : NULL;
  w = func(b, "ksys_write");
  irq = func(b, "[interrupts]");
  CHECK(w && w->kernel && w->base_self == 500 && w->head_self == 500);
  CHECK(irq && irq->base_self == 90 && irq->head_self == 90);
  CHECK(b && b->nfuncs == 7);   /* main spin write, 3 kernel, [interrupts] */
  for(size_t i = 0; b && i < b->nfuncs; i++)
    CHECK(b->funcs[i].kernel == (strcmp(b->funcs[i].name, "main") &&
                                 strcmp(b->funcs[i].name, "spin") &&
                                 strcmp(b->funcs[i].name, "write")));
  CHECK(b && b->nlines == 3);   /* the diff's stacks match too */
  bpi_buf_cleanup(&j);
  bpi_compare_free(c);
}

/* A harness that marks the same work as 4 calls in the base and 2 in the
 * head (task-clock +0.16%): costs are per repetition, as its measures
 * are, not per time it was marked, so nothing doubled. */
/* Callers whose change only repeats a listed callee's are echoes: no
 * row, never "grew most" by their total.  loop and main only hold
 * work's +2 s; spread holds big's +2 s and ten small children's +40 ms
 * each, none significant alone but +400 ms together beyond the noise:
 * spread is no echo, and main, above both, is. */
static void test_function_echoes(void)
{
  char base[1024] = "p;main;loop;work 2000\np;main;setup 1000\n"
                    "p;main;spread;big 2000\n";
  char head[1024] = "p;main;loop;work 4000\np;main;setup 1000\n"
                    "p;main;spread;big 4000\n";
  for(int i = 0; i < 10; i++) {
    size_t nb = strlen(base), nh = strlen(head);
    snprintf(base + nb, sizeof(base) - nb, "p;main;spread;small%d 100\n", i);
    snprintf(head + nh, sizeof(head) - nh, "p;main;spread;small%d 140\n", i);
  }
  struct clock_side sides[2] = {
    {base, "[100, 101, 102, 103, 104]", 102, NULL, NULL},
    {head, "[150, 151, 152, 153, 154]", 152, NULL, NULL}};
  struct bp_cmp *c = compare_clock("echoes", sides);
  const struct bp_cmp_bench *b = c ? bench(c, "b") : NULL;
  CHECK(b && b->band.basis == BP_CMP_BAND_CONFIRMED);
  const struct bp_cmp_func *work = func(b, "work"), *loop = func(b, "loop");
  const struct bp_cmp_func *mainf = func(b, "main"), *spr = func(b, "spread");
  CHECK(work && work->self_significant && !work->echo);
  CHECK(loop && loop->total_significant && loop->echo);
  CHECK(mainf && mainf->total_significant && mainf->echo);
  CHECK(spr && spr->total_significant && !spr->echo);
  CHECK(func(b, "small0") && !significant(b, "small0"));
  CHECK(b && !func(b, "big")->echo && !func(b, "setup")->echo);
  struct bp_buf j;
  struct bp_err err = {0};
  bpi_buf_init(&j);
  if(c)
    bpi_compare_json(c, &j);
  bpi_buf_addc(&j, '\0');
  CHECK(strstr(j.data, "\"name\": \"loop\"") &&
        strstr(strstr(j.data, "\"name\": \"loop\""), "\"echo\": true"));
  struct bp_comment_opts co = {.project = "p", .testbed = "t"};
  bpi_buf_reset(&j);
  CHECK(c && bpi_comment_markdown(c, &co, &j, &err) == BP_OK);
  bpi_buf_addc(&j, '\0');
  CHECK(strstr(j.data, "\n| work |") && strstr(j.data, "\n| big |") &&
        strstr(j.data, "\n| spread |"));
  CHECK(!strstr(j.data, "\n| loop |") && !strstr(j.data, "\n| main |"));
  CHECK(strstr(j.data, "_2 callers whose change only repeats a listed "
               "callee's are left out._"));
  bpi_buf_cleanup(&j);
  bpi_compare_free(c);
}

/* A run whose benchmarks one and two (and gone, in the base only) share
 * the whole run's profile, as a harness that ran them in one process
 * unmarked leaves them. */
static void make_shared_run(const char *dir, bool base)
{
  char man[2048];
  static const char arts[] =
    "\"profile\": \".\", \"artifacts\": ["
    "{\"file\": \"profile.folded\", \"kind\": \"folded-stacks\"},"
    "{\"file\": \"summary.json\", \"kind\": \"summary\"}]";
  snprintf(man, sizeof(man),
           "{\"report\": \"report.json\", \"benchmarks\": ["
           "{\"name\": \"one\", %s}, {\"name\": \"two\", %s}%s%s%s]}",
           arts, arts, base ? ", {\"name\": \"gone\", " : "",
           base ? arts : "", base ? "}" : "");
  put(dir, "manifest.json", man);
  put(dir, "report.json", base ?
      "{\"one\": {\"latency\": {\"value\": 100, \"lower_value\": 99, "
      "\"upper_value\": 101}}, \"two\": {\"latency\": {\"value\": 50}}, "
      "\"gone\": {\"latency\": {\"value\": 70}}}" :
      "{\"one\": {\"latency\": {\"value\": 200, \"lower_value\": 199, "
      "\"upper_value\": 201}}, \"two\": {\"latency\": {\"value\": 50}}}");
  put(dir, "profile.folded", base ?
      "p;main;one;hot 1000\np;main;two;steady 1000\np;main;gone 1000\n" :
      "p;main;one;hot 1500\np;main;two;steady 1000\n");
  put(dir, "summary.json",
      "{\"event\": {\"used\": \"task-clock\", \"time_based\": true, "
      "\"frequency_hz\": 1000, \"period\": null}, \"threads\": []}");
}

/* Several benchmarks on one profile: each is marked shared, its noise
 * band is the profile's total change whatever its verdict, the comment
 * compares the functions once (no benchmark credited with gone's
 * vanished code) and the diffs are one folder's. */
static void test_shared_profile(void)
{
  char dirs[2][128];
  for(int side = 0; side < 2; side++) {
    snprintf(dirs[side], sizeof(dirs[side]), "%s/shared-%d", root, side);
    make_shared_run(dirs[side], !side);
  }
  struct bp_cmp_opts o = {.threshold_pct = 5};
  struct bp_cmp *c = NULL;
  struct bp_err err = {0};
  CHECK(bpi_compare_dirs(dirs[0], dirs[1], &o, &c, &err) == BP_OK);
  if(!c)
    return;
  const struct bp_cmp_bench *one = bench(c, "one"), *two = bench(c, "two");
  const struct bp_cmp_bench *gone = bench(c, "gone");
  CHECK(one && one->shared_profile && one->flag == BP_CMP_REGRESSION);
  CHECK(two && two->shared_profile && gone && gone->shared_profile);
  CHECK(one && two && bpi_compare_same_profile(one, two));
  /* one's confirmed regression does not make the run's change real */
  CHECK(one && one->band.basis == BP_CMP_BAND_TOTAL && !one->per_iteration);
  CHECK(bpi_compare_ndiffs(c) == 2 && bpi_compare_ndiff_folders(c) == 1);
  struct bp_buf j;
  bpi_buf_init(&j);
  bpi_compare_json(c, &j);
  bpi_buf_addc(&j, '\0');
  CHECK(strstr(j.data, "\"presence\": \"both\", \"shared_profile\": true"));
  struct bp_comment_opts co = {.project = "p", .testbed = "t"};
  bpi_buf_reset(&j);
  CHECK(bpi_comment_markdown(c, &co, &j, &err) == BP_OK);
  bpi_buf_addc(&j, '\0');
  const char *sec = strstr(j.data, "#### Functions of the whole run");
  CHECK(sec && !strstr(sec + 1, "#### Functions of the whole run"));
  CHECK(sec && strstr(sec, "functions of one, two (and, in the base only, "
                      "gone)</summary>"));
  /* per run, a benchmark's slower function makes its other functions
   * shrink: said, so that what shrank is not read as faster code */
  CHECK(sec && strstr(sec, "to its time: a function whose work per "
                      "iteration doubled grows by less than that per run, "
                      "and the other functions of its benchmark, run fewer "
                      "times, shrink (what shrinks most here may be no "
                      "faster)."));
  /* the function table and what shrank most: once, in that section */
  const char *shrank = strstr(j.data, "hrank most: **gone**");
  CHECK(shrank && sec && shrank > sec && count_of(j.data, "hrank most") == 1);
  CHECK(count_of(j.data, "rew most: **hot**") == 1);
  CHECK(count_of(j.data, "| Function |") == 1);
  CHECK(count_of(j.data, "_Functions: none of its own.") == 2);
  CHECK(count_of(j.data, "The differential flame graph is `diff.svg`") == 1);
  bpi_buf_cleanup(&j);
  bpi_compare_free(c);
}

static void test_marked_runs(void)
{
  struct clock_side sides[2] = {
    {"p;main;work 3000\n", NULL, 3000, "\"repeat\": 3,",
     "\"runs\": 12, \"samples\": 3000, "},
    {"p;main;work 3005\n", NULL, 3005, "\"repeat\": 3,",
     "\"runs\": 6, \"samples\": 3005, "}};
  struct bp_cmp *c = compare_clock("marked", sides);
  const struct bp_cmp_bench *b = c ? bench(c, "b") : NULL;
  CHECK(b && near(b->base.runs, 3) && near(b->head.runs, 3));
  const struct bp_cmp_func *f = func(b, "work");
  /* 3000 samples of 1 ms over 3 repetitions: 1 s a repetition */
  CHECK(f && near(f->base_self_cost, 1e9) &&
        near(f->head_self_cost, 3005e6 / 3));
  CHECK(f && !f->self_significant && !f->total_significant);
  CHECK(b && !bpi_compare_top_func(b, true));
  bpi_compare_free(c);
}

static void test_bad_input(void)
{
  char dir[128], other[128];
  struct bp_cmp *c = NULL;
  struct bp_err err = {0};
  struct bp_cmp_opts o = {.threshold_pct = 0};
  snprintf(dir, sizeof(dir), "%s/bad", root);
  snprintf(other, sizeof(other), "%s/head", root);
  make_run(dir, "x", "{\"a\": {\"latency\": {\"value\": 1}}, "
           "\"x\": {\"latency\": {\"value\": 1}}}", "p;main 1\nbroken\n", "");
  CHECK(bpi_compare_dirs(dir, other, &o, &c, &err) == BPE_FORMAT);
  CHECK(c == NULL);
  CHECK(strstr(err.msg, "a/profile.folded:2") != NULL);

  bpi_err_clear(&err);
  put(dir, "manifest.json", "{\"report\": ");
  CHECK(bpi_compare_dirs(dir, other, &o, &c, &err) == BPE_FORMAT);
  CHECK(strstr(err.msg, "manifest.json") != NULL);

  bpi_err_clear(&err);
  snprintf(dir, sizeof(dir), "%s/missing", root);
  CHECK(bpi_compare_dirs(dir, other, &o, &c, &err) != BP_OK);
  CHECK(strstr(err.msg, "missing") != NULL);

  /* a hostile profile directory never leads outside the output */
  snprintf(dir, sizeof(dir), "%s/evil", root);
  make_run(dir, "x", "{\"a\": {\"latency\": {\"value\": 1}}, "
           "\"x\": {\"latency\": {\"value\": 1}}}", "p;main 1\n", "");
  put(dir, "manifest.json", "{\"report\": \"report.json\", \"benchmarks\": ["
      "{\"name\": \"a\", \"profile\": \"../../escape\", \"artifacts\": ["
      "{\"file\": \"a/profile.folded\", \"kind\": \"folded-stacks\"},"
      "{\"file\": \"we ird#/p.json.gz\", \"kind\": \"firefox-profiler\"}"
      "]}]}");
  bpi_err_clear(&err);
  o.base_url = "https://x.example/r";
  CHECK(bpi_compare_dirs(dir, dir, &o, &c, &err) == BP_OK);
  CHECK(c && bench(c, "a") && !strcmp(bench(c, "a")->dir, "."));
  /* the file's path is percent-encoded under the prefix */
  CHECK(c && bench(c, "a") && bench(c, "a")->base.gecko_url &&
        !strcmp(bench(c, "a")->base.gecko_url,
                "https://x.example/r/we%20ird%23/p.json.gz"));
  CHECK(c && bench(c, "a") && !bench(c, "a")->head.gecko_url);
  bpi_compare_free(c);
  c = NULL;

  /* files the manifest names are read only inside the run directory (it
   * may come from an untrusted job) */
  put(dir, "manifest.json", "{\"report\": \"../../../../etc/hostname\"}");
  bpi_err_clear(&err);
  CHECK(bpi_compare_dirs(dir, dir, &o, &c, &err) == BPE_FORMAT);
  CHECK(strstr(err.msg, "leaves the run directory") != NULL);
  put(dir, "manifest.json", "{\"report\": \"report.json\", \"benchmarks\": ["
      "{\"name\": \"a\", \"artifacts\": [{\"file\": \"/etc/hostname\", "
      "\"kind\": \"folded-stacks\"}]}]}");
  bpi_err_clear(&err);
  CHECK(bpi_compare_dirs(dir, dir, &o, &c, &err) == BPE_FORMAT);
  CHECK(strstr(err.msg, "leaves the run directory") != NULL);
}

/* BRANCH@COMMIT: split at the last '@', BRANCH percent-decoded. */
static void test_refs(void)
{
  static const char hash[] = "0123456789abcdef0123456789abcdef01234567";
  struct bp_cmp_ref r;
  struct bp_err err = {0};
  char text[128];
  CHECK(bpi_compare_parse_ref("main@latest", &r, &err) == BP_OK);
  CHECK_EQ_STR(r.branch, "main");
  CHECK(r.commit == NULL);
  bpi_compare_ref_cleanup(&r);
  snprintf(text, sizeof(text), "feature%%2Fx@%s", hash);
  CHECK(bpi_compare_parse_ref(text, &r, &err) == BP_OK);
  CHECK_EQ_STR(r.branch, "feature/x");
  CHECK_EQ_STR(r.commit, hash);
  bpi_compare_ref_cleanup(&r);
  snprintf(text, sizeof(text), "feature/x@%s", hash);
  CHECK(bpi_compare_parse_ref(text, &r, &err) == BP_OK);
  CHECK_EQ_STR(r.branch, "feature/x");
  bpi_compare_ref_cleanup(&r);
  CHECK(bpi_compare_parse_ref("rel%40v1@latest", &r, &err) == BP_OK);
  CHECK_EQ_STR(r.branch, "rel@v1");
  bpi_compare_ref_cleanup(&r);
  CHECK(bpi_compare_parse_ref("a@b@latest", &r, &err) == BP_OK);
  CHECK_EQ_STR(r.branch, "a@b");
  bpi_compare_ref_cleanup(&r);
  const char *bad[] = {"main", "@latest", "main@", "main@abc1234",
                       "main@0123456789ABCDEF0123456789ABCDEF01234567",
                       "main@Latest"};
  for(size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    err = (struct bp_err){0};
    CHECK(bpi_compare_parse_ref(bad[i], &r, &err) == BPE_INVAL);
    CHECK(strstr(err.msg, bad[i]) != NULL);
    CHECK(r.branch == NULL && r.commit == NULL);
  }
}

static void store_put(struct bp_store *st, const char *key, const char *text)
{
  struct bp_err err = {0};
  CHECK(bpi_store_put(st, key, text, strlen(text), "application/json",
                      NULL, &err) == BP_OK);
}

/* Another repository with the same name published to the store's
 * project: its latest pointer and its stored manifest name it, and a
 * side asked for by this repository is none; pointers and manifests that
 * name no repository (written before) are taken, as are this one's. */
static void test_store_foreign(struct bp_store *st, const char *mkey)
{
  static const char mine[] = "gitlab:gl.example/13";
  char dir[128];
  struct bp_err err = {0};
  char *key = NULL;
  /* the pointer of test_store_sides names no repository */
  CHECK(bpi_compare_locate(st, "p", "feature/x", NULL, "tb", NULL, mine, &key,
                           &err) == BP_OK);
  CHECK_EQ_STR(key, mkey);
  free(key);
  key = NULL;
  snprintf(dir, sizeof(dir), "%s/mine-old", root);
  CHECK(bpi_compare_fetch(st, mkey, mine, dir, &err) == BP_OK);
  store_put(st, "p/main/latest/tb.json", "{\"manifest\": \"p/main/"
            "0123456789abcdef0123456789abcdef01234567/tb/manifest.json\", "
            "\"repository\": \"gitlab:gl.example/12\"}");
  CHECK(bpi_compare_locate(st, "p", "main", NULL, "tb", NULL, mine, &key,
                           &err) ==
        BPE_CONFIG);
  CHECK(key == NULL);
  CHECK(strstr(err.msg, "the store's main of project 'p' belongs to another "
               "repository named alike") != NULL);
  CHECK(strstr(err.msg, "gl.example") == NULL);   /* not named */
  CHECK(strstr(err.msg, "BENCHER_PROJECT") != NULL);
  /* its own, or not asked: the key */
  CHECK(bpi_compare_locate(st, "p", "main", NULL, "tb", NULL,
                           "gitlab:gl.example/12", &key, &err) == BP_OK);
  free(key);
  key = NULL;
  CHECK(bpi_compare_locate(st, "p", "main", NULL, "tb", NULL, NULL, &key,
                           &err) == BP_OK);
  free(key);
  /* a stored manifest of the other repository: nothing fetched */
  const char *fkey = "p/main/0123456789abcdef0123456789abcdef01234567/tb/"
                     "manifest.json";
  store_put(st, fkey,
    "{\"report\": \"report.json\", \"benchmarks\": [],"
    "\"publication\": {\"identity\": {\"project\": \"p\", \"branch\": "
    "\"main\", \"testbed\": \"tb\", \"repository\": "
    "\"gitlab:gl.example/12\"}},"
    "\"results\": {}}");
  snprintf(dir, sizeof(dir), "%s/foreign", root);
  err = (struct bp_err){0};
  CHECK(bpi_compare_fetch(st, fkey, mine, dir, &err) == BPE_CONFIG);
  CHECK(strstr(err.msg, "the store's main of project 'p' belongs to another "
               "repository named alike") != NULL);
  CHECK(strstr(err.msg, "gl.example") == NULL);   /* not named */
  CHECK(access(dir, F_OK) != 0);
  CHECK(bpi_compare_fetch(st, fkey, "gitlab:gl.example/12", dir, &err) ==
        BP_OK);
}

/* A run as publish.c stores it: found by commit and by the latest
 * pointer, fetched into a directory compare reads, its URLs kept. */
static void test_store_sides(void)
{
  static const char hash[] = "0123456789abcdef0123456789abcdef01234567";
  char url[128], dir[128];
  struct bp_store *st = NULL;
  struct bp_err err = {0};
  snprintf(url, sizeof(url), "file://%s/store", root);
  struct bp_store_opts so = {.url = url,
                             .public_url = "https://pub.example/s"};
  CHECK(bpi_store_open(&st, &so, &err) == BP_OK);
  if(!st)
    return;
  const char *mkey = "p/feature%2Fx/0123456789abcdef0123456789abcdef01234567"
                     "/tb/manifest.json";
  store_put(st, mkey,
    "{\"report\": \"report.json\", \"benchmarks\": [{\"name\": \"a\", "
    "\"profile\": \"a\", \"artifacts\": ["
    "{\"file\": \"a/profile.folded\", \"kind\": \"folded-stacks\", "
    "\"key\": \"p/x/a/profile.folded\", \"url\": \"https://pub.example/f\"},"
    "{\"file\": \"a/summary.json\", \"kind\": \"summary\", "
    "\"key\": \"p/x/a/summary.json\"},"
    "{\"file\": \"a/profile.json.gz\", \"kind\": \"firefox-profiler\", "
    "\"key\": \"p/x/a/profile.json.gz\", \"url\": \"https://pub.example/g\"}]}],"
    "\"publication\": {\"identity\": {\"project\": \"p\", \"branch\": "
    "\"feature/x\", \"hash\": \"0123456789abcdef0123456789abcdef01234567\", "
    "\"testbed\": \"tb\"}, \"bencher\": null},"
    "\"results\": {\"a\": {\"latency\": {\"value\": 10}}}}");
  store_put(st, "p/x/a/profile.folded", "p;main;work 7\n");
  store_put(st, "p/x/a/summary.json", "{\"threads\": [{\"samples\": 1}, "
            "{\"samples\": 6}]}");
  store_put(st, "p/feature%2Fx/latest/tb.json", "{\"manifest\": \"p/feature%2Fx"
            "/0123456789abcdef0123456789abcdef01234567/tb/manifest.json\"}");
  char *key = NULL;
  CHECK(bpi_compare_locate(st, "p", "feature/x", hash, "tb", NULL, NULL, &key,
                           &err) == BP_OK);
  CHECK_EQ_STR(key, mkey);
  free(key);
  key = NULL;
  CHECK(bpi_compare_locate(st, "p", "feature/x", NULL, "tb", NULL, NULL, &key,
                           &err) == BP_OK);
  CHECK_EQ_STR(key, mkey);
  free(key);
  key = NULL;
  /* not there: says what was looked for */
  err = (struct bp_err){0};
  CHECK(bpi_compare_locate(st, "p", "main", hash, "tb", NULL, NULL, &key,
                           &err) ==
        BPE_NOT_FOUND);
  CHECK(key == NULL && strstr(err.msg, "'main'") && strstr(err.msg, "tb"));
  err = (struct bp_err){0};
  CHECK(bpi_compare_locate(st, "p", "main", NULL, "tb", NULL, NULL, &key,
                           &err) ==
        BPE_NOT_FOUND);
  CHECK(strstr(err.msg, "main/latest/tb.json") != NULL);

  snprintf(dir, sizeof(dir), "%s/fetched", root);
  CHECK(bpi_compare_fetch(st, mkey, NULL, dir, &err) == BP_OK);
  struct bp_cmp *c = NULL;
  struct bp_cmp_opts o = {.threshold_pct = 0};
  CHECK(bpi_compare_dirs(dir, dir, &o, &c, &err) == BP_OK);
  if(c) {
    CHECK_EQ_STR(c->head.branch, "feature/x");
    CHECK_EQ_STR(c->head.hash, hash);
    CHECK(c->head.manifest_url && strstr(c->head.manifest_url,
                                         "https://pub.example/s/p/") ==
          c->head.manifest_url);
    CHECK(c->nbenches == 1 && c->benches[0].head.samples == 7);
    CHECK(c->nbenches == 1 && c->benches[0].head.thread == 1);
    CHECK(c->nbenches == 1 && c->benches[0].head.gecko_url &&
          !strcmp(c->benches[0].head.gecko_url, "https://pub.example/g"));
  }
  bpi_compare_free(c);

  /* a stored manifest naming a file outside the directory is refused */
  store_put(st, "p/evil/manifest.json",
    "{\"benchmarks\": [{\"name\": \"a\", \"profile\": \"a\", "
    "\"artifacts\": [{\"file\": \"../../escape\", \"kind\": "
    "\"folded-stacks\", \"key\": \"p/x/a/profile.folded\"}]}],"
    "\"publication\": {}, \"results\": {}}");
  snprintf(dir, sizeof(dir), "%s/evil/side", root);
  err = (struct bp_err){0};
  CHECK(bpi_compare_fetch(st, "p/evil/manifest.json", NULL, dir, &err) ==
        BPE_FORMAT);
  CHECK(strstr(err.msg, "safe file name") != NULL);
  snprintf(dir, sizeof(dir), "%s/escape", root);
  CHECK(access(dir, F_OK) != 0);
  /* not a stored manifest */
  store_put(st, "p/plain.json", "{\"benchmarks\": []}");
  CHECK(bpi_compare_fetch(st, "p/plain.json", NULL, dir, &err) == BPE_FORMAT);
  test_store_foreign(st, mkey);
  bpi_store_close(st);
}


static void test_time_ms(void)
{
  int64_t ms = -1;
  CHECK(bpi_compare_time_ms("1970-01-01T00:00:00Z", &ms) && ms == 0);
  CHECK(bpi_compare_time_ms("2026-11-29T20:00:01Z", &ms));
  CHECK_EQ_INT(ms, INT64_C(1795982401000));
  CHECK(bpi_compare_time_ms("2026-11-29T20:00:01.25Z", &ms));
  CHECK_EQ_INT(ms, INT64_C(1795982401250));
  CHECK(bpi_compare_time_ms("2026-11-29t20:00:01.123456789z", &ms));
  CHECK_EQ_INT(ms, INT64_C(1795982401123));
  /* offsets: the same instant */
  CHECK(bpi_compare_time_ms("2026-11-29T21:30:01+01:30", &ms));
  CHECK_EQ_INT(ms, INT64_C(1795982401000));
  CHECK(bpi_compare_time_ms("2026-11-29T15:00:01-05:00", &ms));
  CHECK_EQ_INT(ms, INT64_C(1795982401000));
  /* a leap day, and a date before 1970 */
  CHECK(bpi_compare_time_ms("2024-02-29T00:00:00Z", &ms));
  CHECK_EQ_INT(ms, INT64_C(1709164800000));
  CHECK(bpi_compare_time_ms("1969-12-31T23:59:59Z", &ms) && ms == -1000);
  const char *bad[] = {NULL, "", "2026-11-29", "2026-11-29T20:00:01",
                       "2026-11-29 20:00:01Z", "2026-13-29T20:00:01Z",
                       "2026-11-29T24:00:01Z", "2026-11-29T20:00:01.Z",
                       "2026-11-29T20:00:01Zjunk", "2026-11-29T20:00:01+0100",
                       "26-11-29T20:00:01Z", "2026-11-29T20:0a:01Z"};
  for(size_t i = 0; i < BP_ARRAY_LEN(bad); i++) {
    ms = 42;
    CHECK(!bpi_compare_time_ms(bad[i], &ms) && ms == 42);
  }
}

#define U_REPORT "0b6a3c2e-1f00-4a8e-9c1d-000000000001"
#define U_BRANCH "0b6a3c2e-1f00-4a8e-9c1d-000000000003"
#define U_HEAD "0b6a3c2e-1f00-4a8e-9c1d-000000000004"
#define U_TB "0b6a3c2e-1f00-4a8e-9c1d-000000000005"
#define U_BENCH "0b6a3c2e-1f00-4a8e-9c1d-00000000000a"
#define U_LAT "0b6a3c2e-1f00-4a8e-9c1d-0000000000c1"

/* A run with one benchmark "a" whose manifest has publication and a's
 * "bencher" entry as given (publish.c's shapes). */
static void make_bencher_run(const char *dir, const char *publication,
                             const char *a_bencher)
{
  char man[2048];
  snprintf(man, sizeof(man),
    "{\"report\": \"report.json\", \"publication\": %s, \"benchmarks\": ["
    "{\"name\": \"a\", \"profile\": \"a\", %s \"artifacts\": ["
    "{\"file\": \"a/profile.folded\", \"kind\": \"folded-stacks\"}]}]}",
    publication, a_bencher);
  put(dir, "manifest.json", man);
  put(dir, "report.json", "{\"a\": {\"latency\": {\"value\": 10}, "
      "\"cycles\": {\"value\": 7}}}");
  put(dir, "a/profile.folded", "p;main 5\n");
}

static void test_bencher_ids(void)
{
  char base[128], head[128];
  struct bp_cmp_opts o = {.threshold_pct = 0};
  struct bp_cmp *c = NULL;
  struct bp_err err = {0};
  snprintf(base, sizeof(base), "%s/bencher-base", root);
  snprintf(head, sizeof(head), "%s/bencher-head", root);
  make_bencher_run(base, "{}", "");
  /* a stored manifest's publication: the answer's end_time wins */
  make_bencher_run(head,
    "{\"end_time\": \"2026-11-29T20:00:00Z\", \"bencher\": {"
    "\"host\": \"http://127.0.0.1:6610/\", \"report_uuid\": \"" U_REPORT
    "\", \"project\": \"proj-slug\", \"branch_uuid\": \"" U_BRANCH "\", "
    "\"head_uuid\": \"" U_HEAD "\", \"testbed_uuid\": \"" U_TB "\", "
    "\"end_time\": \"2026-11-29T20:00:01.250Z\"}}",
    "\"bencher\": {\"benchmark_uuid\": \"" U_BENCH "\", \"measures\": {"
    "\"latency\": \"" U_LAT "\", \"cycles\": \"bad\"}},");
  CHECK(bpi_compare_dirs(base, head, &o, &c, &err) == BP_OK);
  if(c) {
    CHECK_EQ_STR(c->head.report_uuid, U_REPORT);
    CHECK_EQ_STR(c->head.bencher_url, "http://127.0.0.1:6610");
    CHECK_EQ_STR(c->head.bencher_project, "proj-slug");
    CHECK_EQ_STR(c->head.bencher_branch, U_BRANCH);
    CHECK_EQ_STR(c->head.bencher_head, U_HEAD);
    CHECK_EQ_STR(c->head.bencher_testbed, U_TB);
    CHECK_EQ_INT(c->head.bencher_end_ms, INT64_C(1795982401250));
    CHECK(c->base.bencher_project == NULL && c->base.bencher_end_ms == 0);
    const struct bp_cmp_bench *a = bench(c, "a");
    CHECK(a && a->bencher_uuid && !strcmp(a->bencher_uuid, U_BENCH));
    CHECK_EQ_STR(measure(a, "latency")->bencher_uuid, U_LAT);
    CHECK(measure(a, "cycles") && !measure(a, "cycles")->bencher_uuid);
  }
  bpi_compare_free(c);
  c = NULL;
  /* Bencher's alert on latency (above its upper boundary): the verdict
   * and its link are Bencher's, though our one value a side could not
   * confirm anything; a malformed alert changes nothing */
  make_bencher_run(head,
    "{\"bencher\": {\"host\": \"http://127.0.0.1:6610/\", \"report_uuid\": \""
    U_REPORT "\", \"project\": \"proj-slug\"}}",
    "\"bencher\": {\"benchmark_uuid\": \"" U_BENCH "\", \"measures\": {"
    "\"latency\": \"" U_LAT "\"}, \"alerts\": {\"latency\": {\"uuid\": \""
    U_REPORT "\", \"limit\": \"upper\"}, \"cycles\": {\"uuid\": \"x\", "
    "\"limit\": \"upper\"}}},");
  CHECK(bpi_compare_dirs(base, head, &o, &c, &err) == BP_OK);
  if(c) {
    const struct bp_cmp_bench *a = bench(c, "a");
    const struct bp_cmp_measure *m = measure(a, "latency");
    CHECK(m && m->basis == BP_CMP_BENCHER && m->flag == BP_CMP_REGRESSION);
    CHECK(m && m->alert_url && !strcmp(m->alert_url, "http://127.0.0.1:6610"
          "/perf/proj-slug/alerts/" U_REPORT));
    m = measure(a, "cycles");
    CHECK(m && m->basis == BP_CMP_SINGLE && m->flag == BP_CMP_UNCHANGED);
    CHECK_EQ_INT(c->nregressions, 1);
    CHECK(a && a->max_slug && !strcmp(a->max_slug, "latency"));
  }
  bpi_compare_free(c);
  c = NULL;
  /* a run directory's: the report uuid beside "bencher"; the end falls
   * back to the publication's; malformed uuids are dropped */
  make_bencher_run(head,
    "{\"state\": \"delivered\", \"report_uuid\": \"" U_REPORT "\", "
    "\"end_time\": \"2026-11-29T20:00:01Z\", \"bencher\": {\"host\": "
    "\"https://api.bencher.dev\", \"report_uuid\": \"" U_REPORT "\", "
    "\"project\": \"proj-slug\", \"branch_uuid\": \"main\", \"head_uuid\": "
    "null, \"testbed_uuid\": \"" U_TB "\", \"end_time\": null}}",
    "\"bencher\": {\"benchmark_uuid\": 7, \"measures\": []},");
  CHECK(bpi_compare_dirs(base, head, &o, &c, &err) == BP_OK);
  if(c) {
    CHECK_EQ_STR(c->head.bencher_url, "https://bencher.dev");
    CHECK(!c->head.bencher_branch && !c->head.bencher_head);
    CHECK_EQ_STR(c->head.bencher_testbed, U_TB);
    CHECK_EQ_INT(c->head.bencher_end_ms, INT64_C(1795982401000));
    const struct bp_cmp_bench *a = bench(c, "a");
    CHECK(a && !a->bencher_uuid && !measure(a, "latency")->bencher_uuid);
  }
  bpi_compare_free(c);
}

/* What of a name is a build's hash (benchname.h). */
static void test_build_hash_names(void)
{
  CHECK_EQ_INT(bpi_benchname_cargo_stem("mybench-0123456789abcdef"), 7);
  CHECK_EQ_INT(bpi_benchname_cargo_stem("my-bench-0123456789abcdef"), 8);
  CHECK_EQ_INT(bpi_benchname_cargo_stem("-0123456789abcdef"), 17);
  CHECK_EQ_INT(bpi_benchname_cargo_stem("b-0123456789ABCDEF"), 18);
  CHECK_EQ_INT(bpi_benchname_cargo_stem("b-0123456789abcde"), 17);
  CHECK_EQ_INT(bpi_benchname_cargo_stem("b_0123456789abcdef"), 18);
  CHECK_EQ_INT(bpi_benchname_cargo_stem("b-0123456789abcdef0"), 19);
  bool digits;
  CHECK_EQ_INT(bpi_benchname_hash_stem("mybench-3f2a9c1d", &digits), 7);
  CHECK(!digits);
  CHECK_EQ_INT(bpi_benchname_hash_stem("sort_1000000", &digits), 4);
  CHECK(digits);
  CHECK_EQ_INT(bpi_benchname_hash_stem("x.ABCDEF1", NULL), 1);
  CHECK_EQ_INT(bpi_benchname_hash_stem("x-abcdef", NULL), 8);  /* 6 */
  CHECK_EQ_INT(bpi_benchname_hash_stem("-3f2a9c1d", NULL), 9);
  CHECK_EQ_INT(bpi_benchname_hash_stem("x3f2a9c1d", NULL), 9);
  CHECK(bpi_benchname_same_but_hash("mybench-3f2a9c1d", "mybench-77ab0e12"));
  CHECK(bpi_benchname_same_but_hash("mybench-3f2a9c1d", "mybench-1234567"));
  /* the separator is the name's: another one, another benchmark */
  CHECK(!bpi_benchname_same_but_hash("mybench-3f2a9c1d", "mybench_1234567"));
  CHECK(!bpi_benchname_same_but_hash("a.deadbeef", "a_deadbeef"));
  CHECK(!bpi_benchname_same_but_hash("sort-1000000", "sort-2000000"));
  CHECK(!bpi_benchname_same_but_hash("mybench-3f2a9c1d", "mybench"));
  CHECK(!bpi_benchname_same_but_hash("abench-3f2a9c1d", "bbench-3f2a9c1d"));
  /* across the default name's change: a base's hash, the head's none */
  CHECK(bpi_benchname_hash_renamed("mybench-0123456789abcdef", "mybench"));
  CHECK(bpi_benchname_hash_renamed("mybench-3f2a9c1d", "mybench-77ab0e12"));
  /* and the other way: a base named plain, the head with a build hash */
  CHECK(bpi_benchname_hash_renamed("mybench", "mybench-0123456789abcdef"));
  CHECK(bpi_benchname_hash_renamed("mybench", "mybench-3f2a9c1d"));
  CHECK(!bpi_benchname_hash_renamed("sort-1000000", "sort"));
  CHECK(!bpi_benchname_hash_renamed("sort", "sort-1000000"));
  CHECK(!bpi_benchname_hash_renamed("mybenc", "mybench-3f2a9c1d"));
  CHECK(!bpi_benchname_hash_renamed("mybench", "mybench-3f2a9c"));
  CHECK(!bpi_benchname_hash_renamed("mybench-3f2a9c1d", "mybenc"));
  CHECK(!bpi_benchname_hash_renamed("a.deadbeef", "a_deadbeef"));
  /* process names (the kernel's 15 characters): a hash cut short */
  CHECK(bpi_benchname_same_process("mybench-0123456", "mybench-fedcba9"));
  CHECK(bpi_benchname_same_process("mybench-3f2a9c1", "mybench-77ab0e1"));
  CHECK(bpi_benchname_same_process("longbenchnam-01", "longbenchnam-fe"));
  CHECK(bpi_benchname_same_process("mybench", "mybench-0123456"));
  CHECK(bpi_benchname_same_process("mybench-0123456", "mybench"));
  CHECK(bpi_benchname_same_process("mybench", "mybench-3f2a9c1"));
  CHECK(!bpi_benchname_same_process("mybench", "mybench"));
  CHECK(!bpi_benchname_same_process("mybench", "mybench-01234"));
  CHECK(!bpi_benchname_same_process("mybench", "mybench-0123x56"));
  CHECK(!bpi_benchname_same_process("bench_v1", "bench_v2"));
  CHECK(!bpi_benchname_same_process("longbenchnam-01", "longbenchnam_fe"));
  CHECK(!bpi_benchname_same_process("longbenchnam-01", "longbenchnam-02"));
  CHECK(!bpi_benchname_same_process("longbenchname-1", "longbenchnamx-f"));
  CHECK(!bpi_benchname_same_process("longbenchnam-0", "longbenchnam-f"));
}

/* Commands compared with a value the published line hides (record.c's
 * join_command): a base recorded before secrets were hidden has it in the
 * clear, and is the same command. */
static void test_redacted_command(void)
{
  CHECK(bpi_benchname_same_command("/a/bench --token=abc --n 3",
                                   "/b/bench '--token=***' --n 3"));
  CHECK(bpi_benchname_same_command("/b/bench '--token=***' --n 3",
                                   "/a/bench --token=abc --n 3"));
  CHECK(bpi_benchname_same_command("bench --token abc -v",
                                   "bench --token '***' -v"));
  CHECK(bpi_benchname_same_command("bench --token '***'",
                                   "bench --token 'a b'"));
  CHECK(bpi_benchname_same_command("bench '--password=a b' x",
                                   "bench '--password=***' x"));
  CHECK(bpi_benchname_same_command("bench API_KEY=k1",
                                   "bench 'API_KEY=***'"));
  CHECK(bpi_benchname_same_command("bench '--token=***'",
                                   "bench '--token=***'"));
  /* a secret hidden inside an argument: each *** is a run of characters
   * of the other side's, the rest of the argument the same */
  CHECK(bpi_benchname_same_command("bench '--url=https://***@host/x'",
                                   "bench '--url=https://***@host/x'"));
  CHECK(bpi_benchname_same_command("bench --url=https://u:p@w@host/x",
                                   "bench '--url=https://***@host/x'"));
  CHECK(bpi_benchname_same_command("bench '--url=https://***@host/x'",
                                   "bench --url=https://u:p@host/x"));
  CHECK(bpi_benchname_same_command(
    "bench '--header=Authorization: Bearer ***' -n 2",
    "bench '--header=Authorization: Bearer abc.def' -n 2"));
  CHECK(bpi_benchname_same_command(
    "bench '--header=Authorization: Bearer ***'",
    "bench '--header=Authorization: Bearer ***'"));
  CHECK(bpi_benchname_same_command("bench 'https://***@h/***' x",
                                   "bench https://a@h/b x"));
  CHECK(bpi_benchname_same_command("bench '--password=***'",
                                   "bench --password=p***q"));
  /* an empty secret is published as *** too */
  CHECK(bpi_benchname_same_command("bench '--token=***'", "bench --token="));
  CHECK(!bpi_benchname_same_command("bench 'https://***@host/x'",
                                    "bench 'https://***@other/x'"));
  CHECK(!bpi_benchname_same_command("bench 'https://***@host/x'",
                                    "bench https://u@other/x"));
  CHECK(!bpi_benchname_same_command("bench 'https://***@host/x'",
                                    "bench https://host/x"));
  CHECK(!bpi_benchname_same_command("bench 'https://***@host/x'",
                                    "bench 'https://***@host/x/y'"));
  CHECK(!bpi_benchname_same_command(
    "bench '--header=Authorization: Bearer ***'",
    "bench '--header=Authorization: Basic ***'"));
  CHECK(!bpi_benchname_same_command(
    "bench '--header=Authorization: Bearer ***'",
    "bench '--header=X-Other: Bearer abc'"));
  /* a -u user:password's password, a header's, a URL's user
   * information, in a word of its own or in a shell command */
  CHECK(bpi_benchname_same_command("curl -u user:pw x",
                                   "curl -u 'user:***' x"));
  CHECK(bpi_benchname_same_command("curl '-uuser:***' '--user=bob:***'",
                                   "curl -uuser:pw --user=bob:p2"));
  CHECK(bpi_benchname_same_command("sh -c 'curl -u user:*** x'",
                                   "sh -c 'curl -u user:pw x'"));
  CHECK(bpi_benchname_same_command("sh -c 'curl -u u:*** https://***@h/'",
                                   "sh -c 'curl -u u:a https://b:c@h/'"));
  CHECK(bpi_benchname_same_command("curl -H 'Authorization: Bearer ***'",
                                   "curl -H 'Authorization: Bearer t'"));
  CHECK(!bpi_benchname_same_command("curl -u user:pw x",
                                    "curl -u 'other:***' x"));
  CHECK(!bpi_benchname_same_command("sh -c 'curl -u user:pw x'",
                                    "sh -c 'curl -u user:*** y'"));
  CHECK(!bpi_benchname_same_command("sh -c 'curl -u user:*** x'",
                                    "sh -c 'wget -u user:pw x'"));
  /* the same place and form only: another option, another value next
   * to the hidden one, or a word more is another command */
  CHECK(!bpi_benchname_same_command("bench --secret=abc",
                                    "bench '--token=***'"));
  CHECK(!bpi_benchname_same_command("bench --token=abc",
                                    "bench --token '***'"));
  CHECK(!bpi_benchname_same_command("bench --token=abc --n 3",
                                    "bench '--token=***' --n 4"));
  CHECK(!bpi_benchname_same_command("bench --token abc",
                                    "bench --token '***' x"));
  CHECK(!bpi_benchname_same_command("bench --token abc x",
                                    "bench --token '***'"));
  CHECK(!bpi_benchname_same_command("bench --n=3", "bench --n=4"));
  /* quoting is read, not compared: one argument either way */
  CHECK(bpi_benchname_same_command("bench 'a'b", "bench ab"));
  CHECK(!bpi_benchname_same_command("bench 'a b'", "bench a b"));
}

/* The only new and the only removed benchmark, named alike but for a
 * build hash, are compared as one: the head's name, the base's values. */
static void test_hash_pairing(void)
{
  char base[256], head[256];
  struct bp_cmp_opts o = {0};
  struct bp_err err = {0};
  struct bp_cmp *c = NULL;
  snprintf(base, sizeof(base), "%s/hash-base", root);
  snprintf(head, sizeof(head), "%s/hash-head", root);
  make_run(base, "mybench-3f2a9c1d", "{\"a\": {\"latency\": {\"value\": "
           "100}}, \"mybench-3f2a9c1d\": {\"latency\": {\"value\": 10, "
           "\"lower_value\": 9, \"upper_value\": 11}}}",
           "p;main;work 5\n", "");
  make_run(head, "mybench-77ab0e12", "{\"a\": {\"latency\": {\"value\": "
           "100}}, \"mybench-77ab0e12\": {\"latency\": {\"value\": 20, "
           "\"lower_value\": 19, \"upper_value\": 21}}}",
           "p;main;work 5\n", "");
  CHECK(bpi_compare_dirs(base, head, &o, &c, &err) == BP_OK);
  if(c) {
    const struct bp_cmp_bench *m = bench(c, "mybench-77ab0e12");
    CHECK(c->nbenches == 2 && c->nnew == 0 && c->nremoved == 0);
    CHECK(m && m->presence == BP_CMP_BOTH && m->flag == BP_CMP_REGRESSION);
    CHECK(m && m->base_name && !strcmp(m->base_name, "mybench-3f2a9c1d"));
    CHECK(m && near(measure(m, "latency")->base, 10) &&
          m->base.state == BP_CMP_PROFILED && m->base.samples == 5);
    CHECK(bench(c, "a") && !bench(c, "a")->base_name);
    CHECK(!c->hash_names_unpaired);
    struct bp_buf j;
    bpi_buf_init(&j);
    bpi_compare_json(c, &j);
    bpi_buf_addc(&j, '\0');
    CHECK(j.data && strstr(j.data, "\"base_name\": \"mybench-3f2a9c1d\""));
    bpi_buf_cleanup(&j);
  }
  bpi_compare_free(c);
  /* the other way: a base named plain (--name), the head's binary with its
   * build's hash (which the default name keeps) */
  snprintf(base, sizeof(base), "%s/hash-plain-base", root);
  snprintf(head, sizeof(head), "%s/hash-plain-head", root);
  make_run(base, "mybench", "{\"a\": {\"latency\": {\"value\": 100}}, "
           "\"mybench\": {\"latency\": {\"value\": 10, "
           "\"lower_value\": 9, \"upper_value\": 11}}}",
           "p;main;work 5\n", "");
  make_run(head, "mybench-3f2a9c1d", "{\"a\": {\"latency\": {\"value\": "
           "100}}, \"mybench-3f2a9c1d\": {\"latency\": {\"value\": 20, "
           "\"lower_value\": 19, \"upper_value\": 21}}}",
           "p;main;work 5\n", "");
  c = NULL;
  CHECK(bpi_compare_dirs(base, head, &o, &c, &err) == BP_OK);
  if(c) {
    const struct bp_cmp_bench *m = bench(c, "mybench-3f2a9c1d");
    CHECK(c->nbenches == 2 && c->nnew == 0 && c->nremoved == 0);
    CHECK(m && m->presence == BP_CMP_BOTH && m->flag == BP_CMP_REGRESSION);
    CHECK(m && m->base_name && !strcmp(m->base_name, "mybench"));
    CHECK(m && near(measure(m, "latency")->base, 10) &&
          m->base.state == BP_CMP_PROFILED && m->base.samples == 5);
    CHECK(!c->hash_names_unpaired);
  }
  bpi_compare_free(c);
  /* a plain removed name and a hashed new one among others: unpaired,
   * as the other way */
  snprintf(base, sizeof(base), "%s/hash-plain2-base", root);
  snprintf(head, sizeof(head), "%s/hash-plain2-head", root);
  make_run(base, "mybench", "{\"a\": {\"latency\": {\"value\": 100}}, "
           "\"mybench\": {\"latency\": {\"value\": 10}}, "
           "\"old\": {\"latency\": {\"value\": 10}}}",
           "p;main;work 5\n", "");
  make_run(head, "mybench-3f2a9c1d", "{\"a\": {\"latency\": {\"value\": "
           "100}}, \"mybench-3f2a9c1d\": {\"latency\": {\"value\": 20}}, "
           "\"new\": {\"latency\": {\"value\": 10}}}",
           "p;main;work 5\n", "");
  c = NULL;
  CHECK(bpi_compare_dirs(base, head, &o, &c, &err) == BP_OK);
  CHECK(c && c->nnew == 2 && c->nremoved == 2 && c->hash_names_unpaired);
  CHECK(c && bench(c, "mybench-3f2a9c1d") &&
        !bench(c, "mybench-3f2a9c1d")->base_name);
  bpi_compare_free(c);
  /* a plain removed name and a size, not a hash: neither paired nor told */
  snprintf(base, sizeof(base), "%s/hash-size-base", root);
  snprintf(head, sizeof(head), "%s/hash-size-head", root);
  make_run(base, "sort", "{\"a\": {\"latency\": {\"value\": 100}}, "
           "\"sort\": {\"latency\": {\"value\": 10}}}",
           "p;main;work 5\n", "");
  make_run(head, "sort-1000000", "{\"a\": {\"latency\": {\"value\": "
           "100}}, \"sort-1000000\": {\"latency\": {\"value\": 20}}}",
           "p;main;work 5\n", "");
  c = NULL;
  CHECK(bpi_compare_dirs(base, head, &o, &c, &err) == BP_OK);
  CHECK(c && c->nnew == 1 && c->nremoved == 1 && !c->hash_names_unpaired);
  bpi_compare_free(c);
  /* the base's off-CPU time read under its own name */
  snprintf(base, sizeof(base), "%s/hash-off-base", root);
  snprintf(head, sizeof(head), "%s/hash-off-head", root);
  make_off_named(base, "mybench-3f2a9c1d", "p;main;wait;futex_[k] 1000\n",
                 "10");
  make_off_named(head, "mybench-77ab0e12", "p;main;wait;futex_[k] 9000\n",
                 "40");
  c = NULL;
  CHECK(bpi_compare_dirs(base, head, &o, &c, &err) == BP_OK);
  const struct bp_cmp_bench *m = c ? bench(c, "mybench-77ab0e12") : NULL;
  const struct bp_cmp_measure *off = m ? measure(m, "off-cpu") : NULL;
  CHECK(m && m->presence == BP_CMP_BOTH && off && off->in_base &&
        near(off->base, 10e6) && near(off->head, 40e6));
  CHECK(m && m->off_stack && !strcmp(m->off_stack, "p;main;wait") &&
        near(m->off_base_ns, 1000e3));
  bpi_compare_free(c);
}

int main(void)
{
  snprintf(root, sizeof(root), "%s", "/tmp/bp-test-compare.XXXXXX");
  const char *tmpdir = getenv("TMPDIR");
  if(tmpdir && *tmpdir && strlen(tmpdir) < 40)
    snprintf(root, sizeof(root), "%s/bp-test-compare.XXXXXX", tmpdir);
  if(!mkdtemp(root)) {
    perror("mkdtemp");
    return 1;
  }
  test_measure_flags();
  test_measure_bounds();
  test_measure_repeats();
  test_stats();
  test_dirs();
  test_headline();
  test_headline_ties();
  test_headline_faults_last();
  test_faults_follow_iterations(1);
  test_faults_follow_iterations(4);
  test_value_format();
  test_failed_sides();
  test_dominant_unchanged();
  test_repetitions_in_manifest();
  test_link_thread();
  test_renamed_program();
  test_function_costs();
  test_unnamed_frames();
  test_function_band();
  test_marked_runs();
  test_function_echoes();
  test_kernel_functions();
  test_shared_profile();
  test_off_cpu_top_wait();
  test_off_cpu_json();
  test_off_cpu_noise_band();
  test_off_cpu_single_run_band();
  test_wall_time_only();
  test_wall_time_only_faster();
  test_wall_time_off_cpu_confirmed();
  test_bad_input();
  test_refs();
  test_store_sides();
  test_time_ms();
  test_bencher_ids();
  test_build_hash_names();
  test_hash_pairing();
  test_redacted_command();
  char cmd[128];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
  if(system(cmd) != 0)
    fprintf(stderr, "could not remove %s\n", root);
  return check_exit();
}
