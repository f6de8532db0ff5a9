/* report_gbench: the Google Benchmark JSON reader
 * (--benchmark_format=json) -> struct bp_report: each benchmark's
 * real_time in nanoseconds as "latency", repetitions as the mean with
 * min and max bounds, aggregate, skipped and failed rows as report.h says. */
#include "bp_setup.h"
#include "report.h"
#include "report_int.h"
#include "err.h"

#include <math.h>   /* isfinite: a macro, no libm */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------ Google Benchmark */

/* One benchmark of the document: its iteration rows, or its mean. */
struct run {
  char *name;        /* valid UTF-8, owned */
  size_t n;          /* iteration rows */
  double sum, min, max;
  double iterations; /* the iteration rows' "iterations", summed */
  double cpu_ns;     /* their CPU time, ns (cpu_time x iterations) */
  bool has_mean;     /* a "mean" aggregate row (aggregates-only output) */
  double mean;
  bool failed;       /* a row has error_occurred */
};

struct gbench {
  struct parse *ps;
  struct run *runs;
  size_t nruns;
  size_t nfailed;
  struct text first_error;  /* shown: ["name"]: message */
};

static void gb_path(struct text *t, long row, const char *field)
{
  t->len = 0;
  t->s[0] = '\0';
  if(row < 0) {
    bpi_report_text_add(t, field, strlen(field));
    return;
  }
  char tmp[48];
  int n = snprintf(tmp, sizeof(tmp), "benchmarks[%ld]", row);
  bpi_report_text_add(t, tmp, (size_t)n);
  if(field) {
    bpi_report_text_add(t, ".", 1);
    bpi_report_text_add(t, field, strlen(field));
  }
}

/* The member key of obj, NULL when it has none; an error when it has it
 * twice (cJSON would keep both and read the first). */
static bp_code gb_get(struct gbench *g, const cJSON *obj, long row,
                      const char *key, const cJSON **out)
{
  const cJSON *k;
  *out = NULL;
  cJSON_ArrayForEach(k, obj) {
    if(strcmp(k->string, key))
      continue;
    if(*out) {
      struct text path;
      gb_path(&path, row, key);
      return bpi_report_fail_path(g->ps, &path, "duplicate key \"%s\"", key);
    }
    *out = k;
  }
  return BP_OK;
}

/* A string member: required or not, never empty. */
static bp_code gb_string(struct gbench *g, const cJSON *obj, long row,
                         const char *key, bool required, const char **out)
{
  const cJSON *j;
  struct text path;
  bp_code rc = gb_get(g, obj, row, key, &j);
  *out = NULL;
  if(rc)
    return rc;
  gb_path(&path, row, key);
  if(!j && required) {
    gb_path(&path, row, NULL);
    return bpi_report_fail_path(g->ps, &path, "missing \"%s\"", key);
  }
  if(!j)
    return BP_OK;
  if(!cJSON_IsString(j))
    return bpi_report_fail_path(g->ps, &path,
                                "expected a string, got %s",
                                bpi_report_type_name(j));
  if(!j->valuestring[0])
    return bpi_report_fail_path(g->ps, &path, "empty string");
  *out = j->valuestring;
  return BP_OK;
}

/* A boolean member, false when absent. */
static bp_code gb_bool(struct gbench *g, const cJSON *obj, long row,
                       const char *key, bool *out)
{
  const cJSON *j;
  bp_code rc = gb_get(g, obj, row, key, &j);
  *out = false;
  if(rc || !j)
    return rc;
  if(!cJSON_IsBool(j)) {
    struct text path;
    gb_path(&path, row, key);
    return bpi_report_fail_path(g->ps, &path, "expected a boolean, got %s",
                                bpi_report_type_name(j));
  }
  *out = cJSON_IsTrue(j);
  return BP_OK;
}

/* The row's real_time in nanoseconds. */
static bp_code gb_time_ns(struct gbench *g, const cJSON *row, long i,
                          double *ns)
{
  static const struct {
    const char *name;
    double ns;
  } units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  const cJSON *t;
  const char *unit;
  struct text path;
  bp_code rc = gb_get(g, row, i, "real_time", &t);
  if(!rc)
    rc = gb_string(g, row, i, "time_unit", true, &unit);
  if(rc)
    return rc;
  gb_path(&path, i, t ? "real_time" : NULL);
  if(!t)
    return bpi_report_fail_path(g->ps, &path, "missing \"real_time\"");
  if(!cJSON_IsNumber(t))
    return bpi_report_fail_path(g->ps, &path, "expected a number, got %s",
                                bpi_report_type_name(t));
  if(!isfinite(t->valuedouble) || t->valuedouble < 0)
    return bpi_report_fail_path(g->ps, &path, "expected a finite number >= 0");
  for(size_t u = 0; u < BP_ARRAY_LEN(units); u++) {
    if(strcmp(unit, units[u].name))
      continue;
    *ns = t->valuedouble * units[u].ns;
    if(!isfinite(*ns))
      return bpi_report_fail_path(g->ps, &path, "number out of range");
    return BP_OK;
  }
  struct text shown = {.len = 0};
  bpi_report_show_quoted(&shown, unit);
  gb_path(&path, i, "time_unit");
  return bpi_report_fail_path(g->ps, &path,
                              "expected \"ns\", \"us\", \"ms\" or \"s\", "
                              "got %s", shown.s);
}

/* The run called name, added when missing; NULL when out of memory. */
static struct run *gb_run(struct gbench *g, const char *name)
{
  char *copy = bpi_report_name_dup(name);
  if(!copy)
    return NULL;
  for(size_t i = g->nruns; i-- > 0;) {
    if(!strcmp(g->runs[i].name, copy)) {
      free(copy);
      return &g->runs[i];
    }
  }
  struct run *arr = bpi_report_grow(g->runs, g->nruns, 1, sizeof(*arr));
  if(!arr) {
    free(copy);
    return NULL;
  }
  g->runs = arr;
  struct run *r = &g->runs[g->nruns++];
  memset(r, 0, sizeof(*r));
  r->name = copy;
  return r;
}

static bp_code gb_nomem(struct gbench *g)
{
  return bpi_err_set(g->ps->err, BPE_NOMEM, 0, "reading %s", g->ps->origin);
}

/* Remember the first failed benchmark for the message when all failed. */
static void gb_note_error(struct gbench *g, const char *name,
                          const char *msg)
{
  if(g->nfailed++)
    return;
  struct text *t = &g->first_error;
  bpi_report_text_add(t, "[", 1);
  bpi_report_show_quoted(t, name);
  bpi_report_text_add(t, "]: ", 3);
  bpi_report_show(t, msg ? msg : "(no message)", 2 * SHOW_NAME);
}

static bool positive(const cJSON *j)
{
  return cJSON_IsNumber(j) && isfinite(j->valuedouble) && j->valuedouble > 0;
}

/* The work an iteration row measured, for function costs per iteration
 * (compare): its "iterations" and their CPU time ("cpu_time", in the
 * row's unit, which real_time_ns converts).  Rows without them add
 * nothing. */
static void gb_work(struct run *r, const cJSON *row, double real_time_ns)
{
  const cJSON *it = cJSON_GetObjectItemCaseSensitive(row, "iterations");
  const cJSON *cpu = cJSON_GetObjectItemCaseSensitive(row, "cpu_time");
  const cJSON *real = cJSON_GetObjectItemCaseSensitive(row, "real_time");
  if(!positive(it))
    return;
  r->iterations += it->valuedouble;
  if(positive(cpu) && positive(real))
    r->cpu_ns += real_time_ns * cpu->valuedouble / real->valuedouble *
                 it->valuedouble;
}

static bp_code gb_row(struct gbench *g, const cJSON *row, long i)
{
  const char *name, *run_name, *type, *agg = NULL, *agg_unit = NULL;
  const char *msg = NULL;
  const cJSON *reps = NULL;
  bool error = false, skipped = false;
  struct text path;
  gb_path(&path, i, NULL);
  if(!cJSON_IsObject(row))
    return bpi_report_fail_path(g->ps, &path, "expected an object, got %s",
                                bpi_report_type_name(row));
  bp_code rc = gb_string(g, row, i, "name", true, &name);
  if(!rc)
    rc = gb_string(g, row, i, "run_name", false, &run_name);
  if(!rc)
    rc = gb_string(g, row, i, "run_type", true, &type);
  if(!rc)
    rc = gb_get(g, row, i, "repetitions", &reps);
  if(!rc && reps && !cJSON_IsNumber(reps)) {
    gb_path(&path, i, "repetitions");
    return bpi_report_fail_path(g->ps, &path, "expected a number, got %s",
                                bpi_report_type_name(reps));
  }
  if(!rc)
    rc = gb_bool(g, row, i, "error_occurred", &error);
  if(!rc)
    rc = gb_bool(g, row, i, "skipped", &skipped);
  if(rc)
    return rc;
  bool aggregate = !strcmp(type, "aggregate");
  if(!aggregate && strcmp(type, "iteration")) {
    struct text shown = {.len = 0};
    bpi_report_show_quoted(&shown, type);
    gb_path(&path, i, "run_type");
    return bpi_report_fail_path(g->ps, &path, "expected \"iteration\" or "
                                "\"aggregate\", got %s", shown.s);
  }
  if(aggregate) {
    rc = gb_string(g, row, i, "aggregate_name", true, &agg);
    if(!rc)
      rc = gb_string(g, row, i, "aggregate_unit", false, &agg_unit);
    if(rc)
      return rc;
  }
  if(error) {
    rc = gb_string(g, row, i, "error_message", false, &msg);
    if(rc)
      return rc;
  }
  if(!run_name)
    run_name = name;

  /* rows that say nothing about the benchmark's time */
  if(skipped && !error)
    return BP_OK;
  if(aggregate && (strcmp(agg, "mean") ||
                   (agg_unit && strcmp(agg_unit, "time"))))
    return BP_OK;

  struct run *r = gb_run(g, run_name);
  if(!r)
    return gb_nomem(g);
  if(error) {
    if(!r->failed)
      gb_note_error(g, run_name, msg);
    r->failed = true;
    return BP_OK;
  }
  double ns = 0;
  rc = gb_time_ns(g, row, i, &ns);
  if(rc)
    return rc;
  if(aggregate) {
    r->has_mean = true;
    r->mean = ns;
  }
  else {
    if(!r->n || ns < r->min)
      r->min = ns;
    if(!r->n || ns > r->max)
      r->max = ns;
    r->sum += ns;
    r->n++;
    gb_work(r, row, ns);
  }
  return BP_OK;
}

/* The runs as benchmarks with a "latency" measure. */
static bp_code gb_finish(struct gbench *g)
{
  struct parse *ps = g->ps;
  for(size_t i = 0; i < g->nruns; i++) {
    struct run *r = &g->runs[i];
    double value;
    if(r->failed || (!r->n && !r->has_mean))
      continue;
    if(r->n) {
      value = r->sum / (double)r->n;
      if(!isfinite(value)) {
        struct text path = {.len = 0};
        bpi_report_text_add(&path, "[", 1);
        bpi_report_show_quoted(&path, r->name);
        bpi_report_text_add(&path, "]", 1);
        return bpi_report_fail_path(ps, &path,
                                    "the mean time is out of range");
      }
      /* the sum may round: keep the mean within its bounds */
      if(value < r->min)
        value = r->min;
      if(value > r->max)
        value = r->max;
    }
    else
      value = r->mean;
    struct bp_bench *b = bpi_report_push_bench(&ps->out, r->name);
    if(!b)
      return gb_nomem(g);
    r->name = NULL;
    b->iterations = r->iterations;
    if(r->iterations > 0 && r->cpu_ns > 0 && isfinite(r->cpu_ns))
      b->iteration_cpu_ns = r->cpu_ns / r->iterations;
    char *slug = strdup("latency");
    struct bp_measure *m =
      slug ? bpi_report_push_measure(b, slug, value) : NULL;
    if(!m) {
      free(slug);
      return gb_nomem(g);
    }
    if(r->n > 1) {
      m->has_lower = m->has_upper = true;
      m->lower = r->min;
      m->upper = r->max;
    }
  }
  if(!ps->out.nbenches && g->nfailed) {
    struct text o = {.len = 0};
    bpi_report_show_origin(&o, ps);
    return bpi_err_set(ps->err, BPE_FORMAT, 0, "%s: every benchmark "
                       "failed (%zu); the first: %s", o.s, g->nfailed,
                       g->first_error.s);
  }
  return BP_OK;
}

static bp_code gb_build(struct gbench *g, const cJSON *root)
{
  struct text path = {.len = 0};
  const cJSON *rows, *row;
  long i = 0;
  if(!cJSON_IsObject(root))
    return bpi_report_fail_path(g->ps, &path,
                                "expected a Google Benchmark object, "
                                "got %s", bpi_report_type_name(root));
  bp_code rc = gb_get(g, root, -1, "benchmarks", &rows);
  if(rc)
    return rc;
  if(!rows)
    return bpi_report_fail_path(g->ps, &path, "missing \"benchmarks\"");
  gb_path(&path, -1, "benchmarks");
  if(!cJSON_IsArray(rows))
    return bpi_report_fail_path(g->ps, &path, "expected an array, got %s",
                                bpi_report_type_name(rows));
  cJSON_ArrayForEach(row, rows) {
    rc = gb_row(g, row, i++);
    if(rc)
      return rc;
  }
  return gb_finish(g);
}

bp_code bpi_report_parse_gbench(struct bp_report *r, const char *json,
                                size_t len, const char *origin,
                                struct bp_err *err)
{
  struct parse ps = {.origin = origin ? origin : "input", .err = err};
  struct gbench g = {.ps = &ps};
  cJSON *root = NULL;
  if(!r || (!json && len))
    return bpi_err_set(err, BPE_INVAL, 0, "no report or no input");
  bpi_report_init(&ps.out);
  bp_code rc = bpi_report_parse_json(&ps, json ? json : "", len, true, &root);
  if(!rc)
    rc = gb_build(&g, root);
  if(!rc)
    rc = bpi_report_commit(r, &ps.out);
  if(rc == BPE_NOMEM)
    bpi_err_set(err, rc, 0, "reading %s", ps.origin);
  for(size_t i = 0; i < g.nruns; i++)
    free(g.runs[i].name);
  free(g.runs);
  bpi_report_cleanup(&ps.out);
  cJSON_Delete(root);
  return rc;
}
