/* compare: two run directories -> struct bp_cmp.  Each side is read from
 * its manifest.json (benchmarks, their profile directories and artifacts,
 * the optional "publication"), report.json (BMF measures) and, per
 * benchmark, profile.folded (stacks) and summary.json (threads).  Shares
 * are normalized to each side's total samples, so runs of different
 * lengths compare. */
#include "bp_setup.h"
#include "bencher.h"
#include "compare.h"
#include "err.h"
#include "fileio.h"
#include "hash.h"
#include "report.h"
#include "rundir.h"
#include "stats.h"
#include "text.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

static double absd(double x)
{
  return x < 0 ? -x : x;
}

static char *dup_or_null(const char *s)
{
  return s ? strdup(s) : NULL;
}

/* --------------------------------------------------------------- a side */

struct side {
  const char *dir;
  const char *url_prefix;  /* --base-url / --head-url, or NULL */
  struct bp_manifest manifest;
  struct bp_report report;
};

static bp_code read_json(const char *dir, const char *file, cJSON **out,
                         struct bp_err *err)
{
  struct bp_buf path;
  char *text = NULL;
  size_t len = 0;
  bp_code rc;
  bpi_buf_init(&path);
  bpi_buf_printf(&path, "%s/%s", dir, file);
  if(bpi_buf_failed(&path))
    return bpi_err_set(err, BPE_NOMEM, 0, "compare: %s", file);
  rc = bpi_file_read(path.data, &text, &len, err);
  if(rc)
    goto out;
  *out = cJSON_ParseWithLength(text, len);
  if(!*out) {
    const char *at = cJSON_GetErrorPtr();
    rc = bpi_err_set(err, BPE_FORMAT, 0, "%s: not valid JSON (at byte %zu)",
                     path.data, at && at >= text && at <= text + len ?
                     (size_t)(at - text) : (size_t)0);
  }
out:
  free(text);
  bpi_buf_cleanup(&path);
  return rc;
}

/* The public URL of a run's artifact file (relative to the run): the one
 * the store recorded for it, else url_prefix/file, else NULL.  A stored
 * manifest (publish.c) gives each artifact its "url":
 *   {"benchmarks": [{"artifacts": [{"file": F, "url": U}, ...]}, ...]} */
static char *artifact_url(const struct side *s, const char *file)
{
  for(size_t i = 0; i < s->manifest.nbenches; i++) {
    const struct bp_manifest_bench *b = &s->manifest.benches[i];
    for(size_t k = 0; k < b->narts; k++) {
      const char *f = b->arts[k].file, *url = b->arts[k].url;
      if(f && url && !strcmp(f, file))
        return strdup(url);
    }
  }
  if(!s->url_prefix || !*s->url_prefix)
    return NULL;
  struct bp_buf b2;
  bpi_buf_init(&b2);
  size_t n = strlen(s->url_prefix);
  bpi_buf_adds(&b2, s->url_prefix);
  if(s->url_prefix[n - 1] != '/')
    bpi_buf_addc(&b2, '/');
  /* each segment percent-encoded, the slashes kept */
  bpi_text_pct_encode(&b2, !strncmp(file, "./", 2) ? file + 2 : file, "/");
  if(bpi_buf_failed(&b2)) {
    bpi_buf_cleanup(&b2);
    return NULL;
  }
  return b2.data;
}

/* Bencher's console for an API host: the cloud's API is api.bencher.dev,
 * its console bencher.dev; any other host is taken as a self-hosted
 * server, whose console is on the API's host as given (its default
 * setup serves both), unless the publication recorded the console
 * (bencher.console_url), which is given here instead and kept as it is. */
static char *bencher_console(const char *host)
{
  if(!host)
    return NULL;
  if(!strncmp(host, "https://api.bencher.dev", 23) &&
     (!host[23] || host[23] == '/'))
    return strdup("https://bencher.dev");
  size_t n = strlen(host);
  while(n && host[n - 1] == '/')
    n--;
  return strndup(host, n);
}

bool bpi_compare_time_ms(const char *iso, int64_t *ms)
{
  return bpi_text_iso8601_ms(iso, ms);
}

/* publication.bencher's plot ids: {"project": SLUG, "branch_uuid": U,
 * "head_uuid": U, "testbed_uuid": U, "end_time": T}, the end falling back
 * to the publication's own. */
static void side_bencher(struct bp_cmp_side *out, const cJSON *pub)
{
  const cJSON *bencher = cJSON_GetObjectItemCaseSensitive(pub, "bencher");
  const char *uuids[] = {"branch_uuid", "head_uuid", "testbed_uuid"};
  char **into[] = {&out->bencher_branch, &out->bencher_head,
                   &out->bencher_testbed};
  const char *project = bpi_json_str(bencher, "project");
  if(project && *project)
    out->bencher_project = strdup(project);
  for(size_t i = 0; i < BP_ARRAY_LEN(uuids); i++) {
    const char *u = bpi_json_str(bencher, uuids[i]);
    if(bpi_bencher_is_uuid(u))
      *into[i] = strdup(u);
  }
  const char *end = bpi_json_str(bencher, "end_time");
  int64_t ms;
  if(bpi_compare_time_ms(end ? end : bpi_json_str(pub, "end_time"), &ms))
    out->bencher_end_ms = ms;
}

/* Who a side is, from its manifest's "publication": a stored manifest
 * (publish.c) has {"identity": {project, branch, hash, commit, testbed},
 * "bencher": {host, report_uuid}}, and compare's fetch adds
 * "manifest_url"; a run directory's has {state, report_uuid,
 * manifest_url} and no identity. */
static bp_code side_identity(struct bp_cmp_side *out, const struct side *s)
{
  const cJSON *pub = s->manifest.publication;
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(pub, "identity");
  const cJSON *bencher = cJSON_GetObjectItemCaseSensitive(pub, "bencher");
  const char *hash = bpi_json_str(id, "hash");
  const char *uuid = bpi_json_str(pub, "report_uuid");
  out->dir = strdup(s->dir);
  out->project = dup_or_null(bpi_json_str(id, "project"));
  out->branch = dup_or_null(bpi_json_str(id, "branch"));
  out->hash = dup_or_null(hash ? hash : bpi_json_str(id, "commit"));
  out->testbed = dup_or_null(bpi_json_str(id, "testbed"));
  out->report_uuid = dup_or_null(uuid ? uuid : bpi_json_str(bencher,
                                                        "report_uuid"));
  /* a console the operator named (bencher.console_url), else the host's */
  const char *console = bpi_json_str(bencher, "console");
  out->bencher_url = bencher_console(console ? console
                                             : bpi_json_str(bencher, "host"));
  out->manifest_url = dup_or_null(bpi_json_str(pub, "manifest_url"));
  side_bencher(out, pub);
  return out->dir ? BP_OK : BPE_NOMEM;
}

static bp_code side_open(struct side *s, struct bp_err *err)
{
  bp_code rc = bpi_manifest_read(&s->manifest, s->dir, err);
  if(rc)
    return rc;
  const char *report = s->manifest.report;
  if(!report)
    return bpi_err_set(err, BPE_FORMAT, 0, "%s/" BP_RUNDIR_MANIFEST ": no "
                       "\"report\" (was the run's harness output invalid?)",
                       s->dir);
  /* a run directory may come from an untrusted job: its manifest names
   * files inside it, nothing else */
  if(!bpi_rundir_safe_path(report))
    return bpi_err_set(err, BPE_FORMAT, 0, "%s/" BP_RUNDIR_MANIFEST ": "
                       "\"report\" leaves the run directory", s->dir);
  struct bp_buf path;
  char *text = NULL;
  size_t len = 0;
  bpi_buf_init(&path);
  bpi_buf_printf(&path, "%s/%s", s->dir, report);
  if(bpi_buf_failed(&path))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "compare: report path");
  if(!rc)
    rc = bpi_file_read(path.data, &text, &len, err);
  if(!rc)
    rc = bpi_report_parse_bmf(&s->report, text, len, path.data, err);
  free(text);
  bpi_buf_cleanup(&path);
  return rc;
}

static void side_cleanup(struct side *s)
{
  bpi_manifest_cleanup(&s->manifest);
  bpi_report_cleanup(&s->report);
}

/* The manifest's entry for benchmark name, or NULL. */
static const struct bp_manifest_bench *manifest_bench(const struct side *s,
                                                      const char *name)
{
  return bpi_manifest_bench(&s->manifest, name);
}

/* The file of the given kind among a manifest benchmark's artifacts. */
static const char *bench_artifact(const struct bp_manifest_bench *mb,
                                  const char *kind)
{
  const struct bp_manifest_artifact *a =
    mb ? bpi_manifest_artifact(mb->arts, mb->narts, kind) : NULL;
  return a ? a->file : NULL;
}

static double json_num_or(const cJSON *obj, const char *key, double dflt)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble
                                                       : dflt;
}

/* From summary.json: the index of the thread with most samples (the
 * Gecko profile's threads come in the same order), the sampled event and
 * the events one sample stands for: "sampled_total" / "samples", else
 * the fixed period, else (a clock sampled at a frequency) 1e9 / Hz. */
static void profile_facts(struct bp_cmp_profile *p, const char *dir,
                          const char *summary)
{
  cJSON *j = NULL;
  struct bp_err ignored = {0};
  uint32_t i = 0;
  double most = -1;
  p->thread = 0;
  if(!summary || read_json(dir, summary, &j, &ignored))
    return;
  const cJSON *t;
  cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(j, "threads")) {
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(t, "samples");
    if(cJSON_IsNumber(n) && n->valuedouble > most) {
      most = n->valuedouble;
      p->thread = i;
    }
    i++;
  }
  const cJSON *ev = cJSON_GetObjectItemCaseSensitive(j, "event");
  const char *used = bpi_json_str(ev, "used");
  p->event = used ? strdup(used) : NULL;
  p->time_event = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ev,
                                                                "time_based"));
  double samples = json_num_or(j, "samples", 0);
  double total = json_num_or(ev, "sampled_total", 0);
  double period = json_num_or(ev, "period", 0);
  double hz = json_num_or(ev, "frequency_hz", 0);
  if(total > 0 && samples > 0)
    p->per_sample = total / samples;
  else if(period > 0)
    p->per_sample = period;
  else if(p->time_event && hz > 0)
    p->per_sample = 1e9 / hz;
  cJSON_Delete(j);
}

/* The runs one benchmark's profile covers: its marked runs, else the
 * run's repetitions (benchprof run --repeat), else 1. */
static double profile_runs(const struct side *s,
                           const struct bp_manifest_bench *mb)
{
  double runs = mb && mb->facts == BP_FACTS_MARKED ? (double)mb->runs : 0;
  if(runs < 1)
    runs = (double)s->manifest.repeat;
  return runs < 1 ? 1 : runs;
}

/* ---------------------------------------------------------- folded stacks */

/* Stacks of both sides, interned by text. */
struct stacks {
  struct bp_strtab text;
  uint64_t *count[2];      /* [side][stack id] */
  size_t cap;
  uint64_t total[2];
};

static bp_code stacks_add(struct stacks *st, int side, const char *stack,
                          uint64_t n)
{
  uint32_t id = bpi_strtab_intern(&st->text, stack);
  if(id == BP_NONE)
    return BPE_NOMEM;
  if(id >= st->cap) {
    size_t cap = st->cap ? st->cap * 2 : 64;
    for(int i = 0; i < 2; i++) {
      uint64_t *c = realloc(st->count[i], cap * sizeof(*c));
      if(!c)
        return BPE_NOMEM;
      memset(c + st->cap, 0, (cap - st->cap) * sizeof(*c));
      st->count[i] = c;
    }
    st->cap = cap;
  }
  st->count[side][id] += n;
  st->total[side] += n;
  return BP_OK;
}

/* Parse "stack count" lines; the count follows the last space. */
static bp_code read_folded(struct stacks *st, int side, const char *path,
                           struct bp_err *err)
{
  char *text = NULL;
  size_t len = 0, lineno = 0;
  bp_code rc = bpi_file_read(path, &text, &len, err);
  for(char *line = text; !rc && line && *line;) {
    char *nl = strchr(line, '\n');
    if(nl)
      *nl = '\0';
    lineno++;
    if(*line) {
      char *sp = strrchr(line, ' '), *end = NULL;
      unsigned long long n = 0;
      if(sp) {
        errno = 0;
        n = strtoull(sp + 1, &end, 10);
      }
      if(!sp || sp == line || end == sp + 1 || *end || errno ||
         sp[1] == '-')
        rc = bpi_err_set(err, BPE_FORMAT, 0, "%s:%zu: expected 'stack "
                         "count'", path, lineno);
      else {
        *sp = '\0';
        rc = stacks_add(st, side, line, n);
        if(rc)
          rc = bpi_err_set(err, rc, 0, "%s: stacks", path);
      }
    }
    line = nl ? nl + 1 : NULL;
  }
  free(text);
  return rc;
}

static int by_stack(const void *a, const void *b)
{
  const struct bp_diff_line *x = a, *y = b;
  return strcmp(x->stack, y->stack);
}

static bp_code diff_lines(struct bp_cmp_bench *b, const struct stacks *st)
{
  size_t n = st->text.count;
  b->lines = calloc(n ? n : 1, sizeof(*b->lines));
  if(!b->lines)
    return BPE_NOMEM;
  for(size_t i = 0; i < n; i++) {
    b->lines[i].stack = strdup(bpi_strtab_get(&st->text, (uint32_t)i));
    if(!b->lines[i].stack)
      return BPE_NOMEM;
    b->lines[i].base = st->count[0][i];
    b->lines[i].head = st->count[1][i];
    b->nlines++;
  }
  qsort(b->lines, b->nlines, sizeof(*b->lines), by_stack);
  return BP_OK;
}

/* -------------------------------------------------------------- functions */

struct funcs {
  struct bp_strtab names;
  uint64_t *self[2], *total[2];
  uint64_t *seen;          /* the stack that last counted it, + 1 */
  size_t cap;
};

static uint32_t func_id(struct funcs *f, const char *name)
{
  uint32_t id = bpi_strtab_intern(&f->names, name);
  if(id == BP_NONE || id < f->cap)
    return id;
  size_t cap = f->cap ? f->cap * 2 : 64;
  uint64_t **arrays[] = {&f->self[0], &f->self[1], &f->total[0],
                         &f->total[1], &f->seen};
  for(size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) {
    uint64_t *a = realloc(*arrays[i], cap * sizeof(*a));
    if(!a)
      return BP_NONE;
    memset(a + f->cap, 0, (cap - f->cap) * sizeof(*a));
    *arrays[i] = a;
  }
  f->cap = cap;
  return id;
}

/* Count one stack's samples: self for the leaf, total once per distinct
 * function on it (recursion counts once).  The first frame is the
 * process, not a function. */
static bp_code count_stack(struct funcs *f, struct bp_buf *scratch,
                           const char *stack, uint64_t stack_no,
                           const uint64_t n[2])
{
  const char *frame = strchr(stack, ';');
  uint32_t id = BP_NONE;
  while(frame) {
    frame++;
    const char *end = strchr(frame, ';');
    size_t len = end ? (size_t)(end - frame) : strlen(frame);
    bpi_buf_reset(scratch);
    bpi_buf_add(scratch, frame, len);
    bpi_buf_addc(scratch, '\0');
    if(bpi_buf_failed(scratch))
      return BPE_NOMEM;
    id = func_id(f, scratch->data);
    if(id == BP_NONE)
      return BPE_NOMEM;
    if(f->seen[id] != stack_no + 1) {
      f->seen[id] = stack_no + 1;
      f->total[0][id] += n[0];
      f->total[1][id] += n[1];
    }
    frame = end;
  }
  if(id != BP_NONE) {
    f->self[0][id] += n[0];
    f->self[1][id] += n[1];
  }
  return BP_OK;
}

static double share(uint64_t n, uint64_t total)
{
  return total ? 100.0 * (double)n / (double)total : 0;
}

static double func_score(const struct bp_cmp_func *f, bool cost)
{
  double s = absd(cost ? f->d_self_cost : f->d_self);
  double t = absd(cost ? f->d_total_cost : f->d_total);
  return s > t ? s : t;
}

/* Most changed first (absolute costs when known, else shares); ties: the
 * larger self change (the leaf, not its callers), then by name. */
static int by_change_how(const struct bp_cmp_func *x,
                         const struct bp_cmp_func *y, bool cost)
{
  double sx = func_score(x, cost), sy = func_score(y, cost);
  if(sx != sy)
    return sx > sy ? -1 : 1;
  double dx = absd(cost ? x->d_self_cost : x->d_self);
  double dy = absd(cost ? y->d_self_cost : y->d_self);
  if(dx != dy)
    return dx > dy ? -1 : 1;
  return strcmp(x->name, y->name);
}

static int by_change(const void *a, const void *b)
{
  return by_change_how(a, b, false);
}

/* Absolute costs: every caller's total holds its callees' change, so the
 * self change ranks first (where the time went), then the total's. */
static int by_cost_change(const void *a, const void *b)
{
  const struct bp_cmp_func *x = a, *y = b;
  double sx = absd(x->d_self_cost), sy = absd(y->d_self_cost);
  if(sx != sy)
    return sx > sy ? -1 : 1;
  return by_change_how(x, y, true);
}

/* Each function's cost per run on both sides and its change, with a
 * Poisson interval of the change from the sample counts. */
static void func_costs(struct bp_cmp_func *f, double wb, double wh)
{
  f->base_self_cost = (double)f->base_self * wb;
  f->head_self_cost = (double)f->head_self * wh;
  f->base_total_cost = (double)f->base_total * wb;
  f->head_total_cost = (double)f->head_total * wh;
  f->d_self_cost = f->head_self_cost - f->base_self_cost;
  f->d_total_cost = f->head_total_cost - f->base_total_cost;
  f->self_half = bpi_stats_poisson_halfwidth(f->base_self, wb, f->head_self,
                                             wh, BP_STATS_Z_MANY);
  f->total_half = bpi_stats_poisson_halfwidth(f->base_total, wb,
                                              f->head_total, wh,
                                              BP_STATS_Z_MANY);
  f->self_significant = absd(f->d_self_cost) > f->self_half;
  f->total_significant = absd(f->d_total_cost) > f->total_half;
}

static bp_code bench_funcs(struct bp_cmp_bench *b, const struct stacks *st)
{
  struct funcs f = {.cap = 0};
  struct bp_buf scratch;
  bp_code rc = BP_OK;
  bpi_strtab_init(&f.names);
  bpi_buf_init(&scratch);
  for(size_t i = 0; !rc && i < b->nlines; i++) {
    uint64_t n[2] = {b->lines[i].base, b->lines[i].head};
    rc = count_stack(&f, &scratch, b->lines[i].stack, i, n);
  }
  size_t count = f.names.count;
  if(!rc)
    b->funcs = calloc(count ? count : 1, sizeof(*b->funcs));
  if(!rc && !b->funcs)
    rc = BPE_NOMEM;
  for(size_t i = 0; !rc && i < count; i++) {
    struct bp_cmp_func *fn = &b->funcs[i];
    fn->name = strdup(bpi_strtab_get(&f.names, (uint32_t)i));
    if(!fn->name) {
      rc = BPE_NOMEM;
      break;
    }
    b->nfuncs++;
    fn->base_self = f.self[0][i];
    fn->head_self = f.self[1][i];
    fn->base_total = f.total[0][i];
    fn->head_total = f.total[1][i];
    fn->d_self = share(fn->head_self, st->total[1]) -
                 share(fn->base_self, st->total[0]);
    fn->d_total = share(fn->head_total, st->total[1]) -
                  share(fn->base_total, st->total[0]);
  }
  b->has_cost = b->base.per_sample > 0 && b->head.per_sample > 0;
  if(b->has_cost) {
    /* one unit on both sides: a clock's ns, else the event's count */
    b->unit = b->head.time_event ? "ns" : "events";
    for(size_t i = 0; i < b->nfuncs; i++)
      func_costs(&b->funcs[i], b->base.per_sample / b->base.runs,
                 b->head.per_sample / b->head.runs);
  }
  if(!rc)
    qsort(b->funcs, b->nfuncs, sizeof(*b->funcs),
          b->has_cost ? by_cost_change : by_change);
  for(int i = 0; i < 2; i++) {
    free(f.self[i]);
    free(f.total[i]);
  }
  free(f.seen);
  bpi_buf_cleanup(&scratch);
  bpi_strtab_cleanup(&f.names);
  return rc;
}

/* By absolute cost: the largest significant self change that way, else
 * the largest significant total change. */
static const struct bp_cmp_func *top_by_cost(const struct bp_cmp_bench *b,
                                             bool grew)
{
  const struct bp_cmp_func *self = NULL, *total = NULL;
  double sign = grew ? 1 : -1;
  for(size_t i = 0; i < b->nfuncs; i++) {
    const struct bp_cmp_func *f = &b->funcs[i];
    if(f->self_significant && sign * f->d_self_cost > 0 &&
       (!self || sign * f->d_self_cost > sign * self->d_self_cost))
      self = f;
    if(f->total_significant && sign * f->d_total_cost > 0 &&
       (!total || sign * f->d_total_cost > sign * total->d_total_cost))
      total = f;
  }
  return self ? self : total;
}

const struct bp_cmp_func *bpi_compare_top_func(const struct bp_cmp_bench *b,
                                               bool grew)
{
  const struct bp_cmp_func *best = NULL;
  double sign = grew ? 1 : -1;
  if(b->has_cost)
    return top_by_cost(b, grew);
  for(size_t i = 0; i < b->nfuncs; i++) {
    const struct bp_cmp_func *f = &b->funcs[i];
    double s = sign * f->d_self, t = sign * f->d_total;
    if(s < 0 || t < 0 || (s == 0 && t == 0))
      continue;
    if(!best || s > sign * best->d_self ||
       (s == sign * best->d_self && t > sign * best->d_total))
      best = f;
  }
  return best;
}

/* --------------------------------------------------------------- measures */

const char *bpi_compare_verdict(const struct bp_cmp_bench *b)
{
  if(b->flag)
    return b->flag == BP_CMP_REGRESSION ? "regression" : "improvement";
  if(b->unconfirmed)
    return b->unconfirmed == BP_CMP_REGRESSION ? "unconfirmed regression" :
           "unconfirmed improvement";
  return "unchanged";
}

bool bpi_compare_worse(const struct bp_cmp_bench *b)
{
  return b->flag ? b->flag == BP_CMP_REGRESSION
                 : b->unconfirmed == BP_CMP_REGRESSION;
}

static bool has_reps(const struct bp_cmp_values *v)
{
  return v->reps && v->nreps >= 2;
}

/* Repetitions on both sides: Mann-Whitney's p and the 99% interval of the
 * ratio head/base; distinguishable when the interval leaves out 1. */
static bool judge_repeats(struct bp_cmp_measure *m)
{
  double lo, hi, est;
  m->basis = BP_CMP_REPEATS;
  m->p_value = bpi_stats_mann_whitney(m->vbase.reps, m->vbase.nreps,
                                      m->vhead.reps, m->vhead.nreps);
  if(!bpi_stats_ratio_interval(m->vbase.reps, m->vbase.nreps, m->vhead.reps,
                               m->vhead.nreps, BP_STATS_CONFIDENCE, &lo, &hi,
                               &est))
    return false;
  m->has_interval = true;
  m->pct_lo = 100 * (lo - 1);
  m->pct_hi = 100 * (hi - 1);
  return (lo > 1 && m->delta > 0) || (hi < 1 && m->delta < 0);
}

/* Bounds on both sides: distinguishable when the intervals do not
 * overlap; the change's interval runs between their far ends. */
static bool judge_bounds(struct bp_cmp_measure *m)
{
  const struct bp_cmp_values *b = &m->vbase, *h = &m->vhead;
  m->basis = BP_CMP_BOUNDS;
  if(m->base != 0) {
    m->has_interval = true;
    m->pct_lo = 100 * (h->lower - b->upper) / absd(m->base);
    m->pct_hi = 100 * (h->upper - b->lower) / absd(m->base);
  }
  return (h->lower > b->upper && m->delta > 0) ||
         (h->upper < b->lower && m->delta < 0);
}

void bpi_compare_measure(struct bp_cmp_measure *m, double threshold_pct)
{
  bool bencher = m->basis == BP_CMP_BENCHER && m->alert_url;
  enum bp_cmp_flag alert = m->flag;
  m->higher_is_better = !strcmp(m->slug, "throughput");
  m->flag = m->change = BP_CMP_UNCHANGED;
  m->delta = m->pct = 0;
  m->has_interval = m->unconfirmed = false;
  m->pct_lo = m->pct_hi = 0;
  m->p_value = NAN;
  if(!bencher)
    m->basis = BP_CMP_SINGLE;
  if(!m->in_base || !m->in_head)
    return;
  m->delta = m->head - m->base;
  if(m->base != 0)
    m->pct = 100.0 * m->delta / absd(m->base);
  else
    m->pct = NAN;
  /* from 0 to anything is beyond every threshold */
  bool beyond = isnan(m->pct) ? m->delta != 0 : absd(m->pct) > threshold_pct;
  bool worse = m->higher_is_better ? m->delta < 0 : m->delta > 0;
  if(beyond)
    m->change = worse ? BP_CMP_REGRESSION : BP_CMP_IMPROVEMENT;
  if(bencher) {
    /* Bencher's statistical threshold judged it: its alert is the
     * verdict, whatever our fixed threshold says */
    m->flag = alert;
    if(alert)
      m->change = alert;
    return;
  }
  bool distinct = false;
  if(has_reps(&m->vbase) && has_reps(&m->vhead))
    distinct = judge_repeats(m);
  else if(m->vbase.has_bounds && m->vhead.has_bounds)
    distinct = judge_bounds(m);
  if(distinct)
    m->flag = m->change;
  /* nothing to test it with: a single run a side, or too few
   * repetitions for an interval at this confidence */
  m->unconfirmed = m->change && !m->flag &&
                   (m->basis == BP_CMP_SINGLE ||
                    (m->basis == BP_CMP_REPEATS && !m->has_interval));
}

static const struct bp_measure *find_measure(const struct bp_bench *b,
                                             const char *slug)
{
  for(size_t i = 0; b && i < b->nmeasures; i++)
    if(!strcmp(b->measures[i].slug, slug))
      return &b->measures[i];
  return NULL;
}

/* The repetitions' values of one measure, from a manifest benchmark's
 * "repetitions": {SLUG: [v, ...]} (benchprof run --repeat); NULL when
 * none or not all numbers. */
static const cJSON *measure_reps(const cJSON *reps, const char *slug)
{
  const cJSON *list = cJSON_GetObjectItemCaseSensitive(reps, slug), *v;
  if(!cJSON_IsArray(list) || cJSON_GetArraySize(list) < 2)
    return NULL;
  cJSON_ArrayForEach(v, list)
    if(!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
      return NULL;
  return list;
}

/* One side's bounds and repetitions of a measure. */
static bp_code side_values(struct bp_cmp_values *v, const struct bp_measure *m,
                           const cJSON *reps, const char *slug)
{
  if(!m)
    return BP_OK;
  v->has_bounds = m->has_lower && m->has_upper;
  v->lower = m->has_lower ? m->lower : m->value;
  v->upper = m->has_upper ? m->upper : m->value;
  const cJSON *list = measure_reps(reps, slug), *x;
  if(!list)
    return BP_OK;
  v->reps = malloc((size_t)cJSON_GetArraySize(list) * sizeof(*v->reps));
  if(!v->reps)
    return BPE_NOMEM;
  cJSON_ArrayForEach(x, list)
    v->reps[v->nreps++] = x->valuedouble;
  return BP_OK;
}

static bp_code add_measure(struct bp_cmp_bench *cb, const char *slug,
                           const struct bp_bench *base,
                           const struct bp_bench *head,
                           const cJSON *const reps[2], double threshold)
{
  for(size_t i = 0; i < cb->nmeasures; i++)
    if(!strcmp(cb->measures[i].slug, slug))
      return BP_OK;
  struct bp_cmp_measure *m = &cb->measures[cb->nmeasures];
  const struct bp_measure *mb = find_measure(base, slug);
  const struct bp_measure *mh = find_measure(head, slug);
  *m = (struct bp_cmp_measure){.slug = strdup(slug), .in_base = !!mb,
                               .in_head = !!mh};
  if(!m->slug)
    return BPE_NOMEM;
  cb->nmeasures++;
  m->base = mb ? mb->value : 0;
  m->head = mh ? mh->value : 0;
  if(side_values(&m->vbase, mb, reps[0], slug) ||
     side_values(&m->vhead, mh, reps[1], slug))
    return BPE_NOMEM;
  bpi_compare_measure(m, threshold);
  return BP_OK;
}

/* Whether m is a better pick than best for the benchmark's headline:
 * larger |pct|, a change from 0 largest of all. */
static bool larger_change(const struct bp_cmp_measure *m,
                          const struct bp_cmp_measure *best)
{
  if(!best)
    return true;
  if(isnan(best->pct))
    return false;
  return isnan(m->pct) || absd(m->pct) > absd(best->pct);
}

/* The measure that gives the benchmark's verdict, its polarity the
 * verdict's own: the largest regression, else the largest improvement,
 * else the largest unconfirmed change of the worst kind. */
static void pick_max(struct bp_cmp_bench *cb)
{
  const struct bp_cmp_measure *best = NULL;
  cb->flag = cb->unconfirmed = BP_CMP_UNCHANGED;
  for(size_t i = 0; i < cb->nmeasures; i++) {
    const struct bp_cmp_measure *m = &cb->measures[i];
    if(m->flag == BP_CMP_REGRESSION)
      cb->flag = BP_CMP_REGRESSION;
    else if(m->flag == BP_CMP_IMPROVEMENT && cb->flag != BP_CMP_REGRESSION)
      cb->flag = BP_CMP_IMPROVEMENT;
    if(BP_CMP_UNCONFIRMED(m) && cb->unconfirmed != BP_CMP_REGRESSION)
      cb->unconfirmed = m->change;
  }
  if(cb->flag)
    cb->unconfirmed = BP_CMP_UNCHANGED;
  for(size_t i = 0; i < cb->nmeasures; i++) {
    const struct bp_cmp_measure *m = &cb->measures[i];
    bool fits = cb->flag ? m->flag == cb->flag :
                cb->unconfirmed && BP_CMP_UNCONFIRMED(m) &&
                m->change == cb->unconfirmed;
    if(fits && larger_change(m, best))
      best = m;
  }
  cb->max = best;
  cb->max_slug = best ? best->slug : NULL;
  cb->max_pct = best ? best->pct : 0;
}

/* Measures in base's order, then those only head has. */
static bp_code bench_measures(struct bp_cmp_bench *cb,
                              const struct bp_bench *base,
                              const struct bp_bench *head,
                              const cJSON *const reps[2], double threshold)
{
  size_t n = (base ? base->nmeasures : 0) + (head ? head->nmeasures : 0);
  bp_code rc = BP_OK;
  cb->measures = calloc(n ? n : 1, sizeof(*cb->measures));
  if(!cb->measures)
    return BPE_NOMEM;
  for(size_t i = 0; !rc && base && i < base->nmeasures; i++)
    rc = add_measure(cb, base->measures[i].slug, base, head, reps,
                     threshold);
  for(size_t i = 0; !rc && head && i < head->nmeasures; i++)
    rc = add_measure(cb, head->measures[i].slug, base, head, reps,
                     threshold);
  if(!rc)
    pick_max(cb);
  return rc;
}

/* ------------------------------------------------------------- off-CPU */

/* The off-CPU folded stacks (microseconds) of one side's benchmark into
 * st; false when it has none (recorded without --off-cpu). */
static bool read_off_cpu(struct stacks *st, int which, const struct side *s,
                         const char *name, bp_code *rc, struct bp_err *err)
{
  const char *f = bench_artifact(manifest_bench(s, name),
                                 BP_KIND_OFFCPU_FOLDED);
  if(!f)
    return false;
  if(!bpi_rundir_safe_path(f)) {
    *rc = bpi_err_set(err, BPE_FORMAT, 0, "%s/" BP_RUNDIR_MANIFEST ": an "
                      "artifact of benchmark '%s' leaves the run directory",
                      s->dir, name);
    return false;
  }
  struct bp_buf path;
  bpi_buf_init(&path);
  bpi_buf_printf(&path, "%s/%s", s->dir, f);
  *rc = bpi_buf_failed(&path) ? bpi_err_set(err, BPE_NOMEM, 0, "compare")
                              : read_folded(st, which, path.data, err);
  bpi_buf_cleanup(&path);
  return !*rc;
}

/* A waiting stack without its kernel frames (marked "_[k]" in the
 * off-CPU folded stacks: the way into the scheduler, the same for every
 * wait), so what is shown ends where the benchmark called in. */
static char *user_part(const char *stack)
{
  char *s = strdup(stack);
  if(!s)
    return NULL;
  char *k = strstr(s, "_[k]");
  if(k) {
    while(k > s && *k != ';')
      k--;
    *k = '\0';
  }
  return s;
}

/* A side's blocked off-CPU ns (summary.json's off_cpu.blocked_ms): the
 * benchmark's own waits; preempted time follows the machine's load.
 * Negative when unknown. */
static double blocked_ns(const struct side *s, const char *name)
{
  const char *f = bench_artifact(manifest_bench(s, name), BP_KIND_SUMMARY);
  cJSON *j = NULL;
  double ns = -1;
  if(f && bpi_rundir_safe_path(f) && !read_json(s->dir, f, &j, NULL)) {
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(j, "off_cpu");
    ns = json_num_or(o, "blocked_ms", -1e-6) * 1e6;
  }
  cJSON_Delete(j);
  return ns;
}

/* Off-CPU time as one more measure, "off-cpu" (the ns a run spent
 * blocked, lower is better: the same verdict rules as every measure),
 * and the waiting stack whose time per run changed most.  Only when both
 * sides have it. */
static bp_code bench_off_cpu(struct bp_cmp_bench *cb, const struct side *base,
                             const struct side *head, double threshold,
                             struct bp_err *err)
{
  struct stacks st = {.cap = 0};
  bp_code rc = BP_OK;
  bpi_strtab_init(&st.text);
  if(read_off_cpu(&st, 0, base, cb->name, &rc, err) &&
     read_off_cpu(&st, 1, head, cb->name, &rc, err)) {
    double rb = 1e3 / cb->base.runs, rh = 1e3 / cb->head.runs;  /* us->ns */
    double bb = blocked_ns(base, cb->name), hb = blocked_ns(head, cb->name);
    struct bp_cmp_measure *m = realloc(cb->measures, (cb->nmeasures + 1) *
                                       sizeof(*m));
    if(!m)
      rc = bpi_err_set(err, BPE_NOMEM, 0, "compare: off-CPU");
    else {
      cb->measures = m;
      m = &cb->measures[cb->nmeasures];
      *m = (struct bp_cmp_measure){.slug = strdup("off-cpu"),
                                   .in_base = bb >= 0, .in_head = hb >= 0,
                                   .base = bb / cb->base.runs,
                                   .head = hb / cb->head.runs};
      if(!m->slug)
        rc = bpi_err_set(err, BPE_NOMEM, 0, "compare: off-CPU");
      else {
        cb->nmeasures++;
        bpi_compare_measure(m, threshold);
        pick_max(cb);
      }
    }
    double best = 0;
    for(size_t i = 1; !rc && i < st.text.count; i++) {
      double b = (double)st.count[0][i] * rb, h = (double)st.count[1][i] * rh;
      const char *text = bpi_strtab_get(&st.text, (uint32_t)i);
      size_t len = strlen(text), mark = strlen(BP_FOLDED_PREEMPTED);
      if(len >= mark && !strcmp(text + len - mark, BP_FOLDED_PREEMPTED))
        continue;  /* runnable, not waiting: the machine's load */
      if(absd(h - b) <= best)
        continue;
      best = absd(h - b);
      free(cb->off_stack);
      cb->off_stack = user_part(bpi_strtab_get(&st.text, (uint32_t)i));
      cb->off_base_ns = b;
      cb->off_head_ns = h;
      if(!cb->off_stack)
        rc = bpi_err_set(err, BPE_NOMEM, 0, "compare: off-CPU");
    }
  }
  bpi_strtab_cleanup(&st.text);
  free(st.count[0]);
  free(st.count[1]);
  return rc;
}

/* ------------------------------------------------------------- benchmarks */

static bp_code bench_profile(struct bp_cmp_profile *p, const struct side *s,
                             const char *name, struct stacks *st, int which,
                             struct bp_err *err)
{
  const struct bp_manifest_bench *mb = manifest_bench(s, name);
  const char *dir = mb ? mb->profile : NULL;
  const char *folded = bench_artifact(mb, BP_KIND_FOLDED);
  const char *gecko = bench_artifact(mb, BP_KIND_GECKO);
  const char *svg = bench_artifact(mb, BP_KIND_SVG);
  const char *summary = bench_artifact(mb, BP_KIND_SUMMARY);
  if(!mb || !folded)
    return bpi_err_set(err, BPE_FORMAT, 0, "%s/" BP_RUNDIR_MANIFEST ": "
                       "benchmark '%s' has no folded stacks", s->dir, name);
  if(!bpi_rundir_safe_path(folded) ||
     (gecko && !bpi_rundir_safe_path(gecko)) ||
     (svg && !bpi_rundir_safe_path(svg)) ||
     (summary && !bpi_rundir_safe_path(summary)))
    return bpi_err_set(err, BPE_FORMAT, 0, "%s/" BP_RUNDIR_MANIFEST ": an "
                       "artifact of benchmark '%s' leaves the run directory",
                       s->dir,
                       name);
  p->dir = strdup(dir ? dir : ".");
  if(!p->dir)
    return bpi_err_set(err, BPE_NOMEM, 0, "compare: %s", name);
  if(gecko) {
    p->gecko_file = strdup(gecko);
    p->gecko_url = artifact_url(s, gecko);
    if(!p->gecko_file)
      return bpi_err_set(err, BPE_NOMEM, 0, "compare: %s", name);
  }
  if(svg)
    p->svg_url = artifact_url(s, svg);
  profile_facts(p, s->dir, summary);
  p->runs = profile_runs(s, mb);
  struct bp_buf path;
  bpi_buf_init(&path);
  bpi_buf_printf(&path, "%s/%s", s->dir, folded);
  uint64_t before = st->total[which];
  bp_code rc = bpi_buf_failed(&path) ?
    bpi_err_set(err, BPE_NOMEM, 0, "compare: %s", name) :
    read_folded(st, which, path.data, err);
  p->samples = st->total[which] - before;
  bpi_buf_cleanup(&path);
  return rc;
}

/* Bencher's console page of an alert: CONSOLE/perf/PROJECT/alerts/U. */
static char *alert_url(const struct bp_cmp_side *h, const char *uuid)
{
  struct bp_buf b;
  const char *project = h->bencher_project ? h->bencher_project : h->project;
  if(!project)
    return NULL;
  bpi_buf_init(&b);
  bpi_buf_adds(&b, h->bencher_url ? h->bencher_url : "https://bencher.dev");
  bpi_buf_adds(&b, "/perf/");
  bpi_text_pct_encode(&b, project, "/");
  bpi_buf_adds(&b, "/alerts/");
  bpi_buf_adds(&b, uuid);   /* a uuid: nothing to encode */
  if(bpi_buf_failed(&b)) {
    bpi_buf_cleanup(&b);
    return NULL;
  }
  return b.data;
}

/* Bencher's alert on m ({"uuid": U, "limit": "lower"|"upper"}): the
 * verdict is Bencher's.  Above the upper boundary is worse for a measure
 * where lower is better, below the lower one for the others. */
static bp_code bencher_alert(struct bp_cmp_measure *m, const cJSON *alert,
                             const struct bp_cmp_side *h, double threshold)
{
  const char *u = bpi_json_str(alert, "uuid"), *limit = bpi_json_str(alert, "limit");
  if(!bpi_bencher_is_uuid(u) || !limit ||
     (strcmp(limit, "upper") && strcmp(limit, "lower")))
    return BP_OK;
  if(!(m->alert_url = alert_url(h, u)))
    return BP_OK;
  bool upper = !strcmp(limit, "upper");
  bool higher_better = !strcmp(m->slug, "throughput");
  m->basis = BP_CMP_BENCHER;
  m->flag = upper != higher_better ? BP_CMP_REGRESSION : BP_CMP_IMPROVEMENT;
  bpi_compare_measure(m, threshold);
  return BP_OK;
}

/* head's Bencher benchmark and measure uuids, from its manifest entry's
 * "bencher": {"benchmark_uuid": U, "measures": {SLUG: U}, "alerts":
 * {SLUG: {"uuid": U, "limit": L}}} (publish.c); an alert makes the
 * measure's verdict Bencher's. */
static bp_code bench_bencher(struct bp_cmp *c, struct bp_cmp_bench *cb,
                             const struct side *head)
{
  const struct bp_manifest_bench *mb = manifest_bench(head, cb->name);
  const cJSON *ids = mb ? mb->bencher : NULL;
  const cJSON *ms = cJSON_GetObjectItemCaseSensitive(ids, "measures");
  const cJSON *alerts = cJSON_GetObjectItemCaseSensitive(ids, "alerts");
  const char *u = bpi_json_str(ids, "benchmark_uuid");
  if(bpi_bencher_is_uuid(u) && !(cb->bencher_uuid = strdup(u)))
    return BPE_NOMEM;
  for(size_t i = 0; i < cb->nmeasures; i++) {
    struct bp_cmp_measure *m = &cb->measures[i];
    u = bpi_json_str(ms, m->slug);
    if(bpi_bencher_is_uuid(u) && !(m->bencher_uuid = strdup(u)))
      return BPE_NOMEM;
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(alerts, m->slug);
    if(a && m->in_base && m->in_head)
      bencher_alert(m, a, &c->head, c->threshold_pct);
  }
  pick_max(cb);
  return BP_OK;
}

static bp_code compare_bench(struct bp_cmp *c, struct bp_cmp_bench *cb,
                             const char *name, const struct side *base,
                             const struct side *head, struct bp_err *err)
{
  struct stacks st = {.cap = 0};
  bp_code rc = BP_OK;
  const struct bp_bench *bb = NULL, *hb = NULL;
  for(size_t i = 0; i < base->report.nbenches; i++)
    if(!strcmp(base->report.benches[i].name, name))
      bb = &base->report.benches[i];
  for(size_t i = 0; i < head->report.nbenches; i++)
    if(!strcmp(head->report.benches[i].name, name))
      hb = &head->report.benches[i];
  cb->name = strdup(name);
  if(!cb->name)
    return bpi_err_set(err, BPE_NOMEM, 0, "compare: %s", name);
  cb->presence = !bb ? BP_CMP_NEW : !hb ? BP_CMP_REMOVED : BP_CMP_BOTH;
  bpi_strtab_init(&st.text);
  if(bb && manifest_bench(base, name))
    rc = bench_profile(&cb->base, base, name, &st, 0, err);
  if(!rc && hb && manifest_bench(head, name))
    rc = bench_profile(&cb->head, head, name, &st, 1, err);
  if(!rc) {
    const char *dir = cb->head.dir ? cb->head.dir : cb->base.dir;
    cb->dir = strdup(bpi_rundir_safe_path(dir) ? dir : ".");
    if(!cb->dir)
      rc = BPE_NOMEM;
  }
  if(!rc && cb->presence == BP_CMP_BOTH) {
    const struct bp_manifest_bench *mbs[2] = {manifest_bench(base, name),
                                              manifest_bench(head, name)};
    const cJSON *reps[2] = {mbs[0] ? mbs[0]->repetitions : NULL,
                            mbs[1] ? mbs[1]->repetitions : NULL};
    rc = bench_measures(cb, bb, hb, reps, c->threshold_pct);
    if(!rc)
      rc = bench_bencher(c, cb, head);
    if(!rc)
      rc = diff_lines(cb, &st);
    if(!rc)
      rc = bench_funcs(cb, &st);
    if(!rc)
      rc = bench_off_cpu(cb, base, head, c->threshold_pct, err);
  }
  if(rc)
    rc = bpi_err_set(err, rc, 0, "compare: benchmark '%s'", name);
  bpi_strtab_cleanup(&st.text);
  free(st.count[0]);
  free(st.count[1]);
  return rc;
}

static int bench_rank(const struct bp_cmp_bench *b)
{
  if(b->presence != BP_CMP_BOTH)
    return b->presence == BP_CMP_NEW ? 5 : 6;
  if(b->flag)
    return b->flag == BP_CMP_REGRESSION ? 0 : 1;
  if(b->unconfirmed)
    return b->unconfirmed == BP_CMP_REGRESSION ? 2 : 3;
  return 4;
}

/* Confirmed regressions, confirmed improvements, unconfirmed regressions,
 * unconfirmed improvements (each largest change first), unchanged, new,
 * removed; then by name, so equal inputs give equal output. */
static int by_importance(const void *a, const void *b)
{
  const struct bp_cmp_bench *x = a, *y = b;
  int rx = bench_rank(x), ry = bench_rank(y);
  if(rx != ry)
    return rx < ry ? -1 : 1;
  if(rx < 4) {
    double px = isnan(x->max_pct) ? 1e300 : absd(x->max_pct);
    double py = isnan(y->max_pct) ? 1e300 : absd(y->max_pct);
    if(px != py)
      return px > py ? -1 : 1;
  }
  return strcmp(x->name, y->name);
}

static bp_code compare_sides(struct bp_cmp *c, const struct side *base,
                             const struct side *head, struct bp_err *err)
{
  size_t n = base->report.nbenches + head->report.nbenches;
  bp_code rc = BP_OK;
  c->benches = calloc(n ? n : 1, sizeof(*c->benches));
  if(!c->benches)
    return bpi_err_set(err, BPE_NOMEM, 0, "compare");
  for(size_t i = 0; !rc && i < head->report.nbenches; i++)
    rc = compare_bench(c, &c->benches[c->nbenches++],
                       head->report.benches[i].name, base, head, err);
  for(size_t i = 0; !rc && i < base->report.nbenches; i++) {
    const char *name = base->report.benches[i].name;
    bool seen = false;
    for(size_t j = 0; j < head->report.nbenches && !seen; j++)
      seen = !strcmp(head->report.benches[j].name, name);
    if(!seen)
      rc = compare_bench(c, &c->benches[c->nbenches++], name, base, head,
                         err);
  }
  if(rc)
    return rc;
  qsort(c->benches, c->nbenches, sizeof(*c->benches), by_importance);
  for(size_t i = 0; i < c->nbenches; i++) {
    const struct bp_cmp_bench *b = &c->benches[i];
    if(b->presence == BP_CMP_NEW)
      c->nnew++;
    else if(b->presence == BP_CMP_REMOVED)
      c->nremoved++;
    else if(b->flag == BP_CMP_REGRESSION)
      c->nregressions++;
    else if(b->flag == BP_CMP_IMPROVEMENT)
      c->nimprovements++;
    else {
      c->nunchanged++;
      c->nunconfirmed += b->unconfirmed == BP_CMP_REGRESSION;
    }
  }
  return BP_OK;
}

bp_code bpi_compare_dirs(const char *base_dir, const char *head_dir,
                         const struct bp_cmp_opts *o, struct bp_cmp **out,
                         struct bp_err *err)
{
  struct side base = {.dir = base_dir, .url_prefix = o->base_url};
  struct side head = {.dir = head_dir, .url_prefix = o->head_url};
  struct bp_cmp *c = calloc(1, sizeof(*c));
  bp_code rc = BP_OK;
  *out = NULL;
  bpi_report_init(&base.report);
  bpi_report_init(&head.report);
  if(!c) {
    rc = bpi_err_set(err, BPE_NOMEM, 0, "compare");
    goto out;
  }
  c->threshold_pct = o->threshold_pct > 0 ? o->threshold_pct :
                     BP_CMP_THRESHOLD_DEFAULT;
  rc = side_open(&base, err);
  if(!rc)
    rc = side_open(&head, err);
  if(!rc && (side_identity(&c->base, &base) ||
             side_identity(&c->head, &head)))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "compare");
  if(!rc)
    rc = compare_sides(c, &base, &head, err);
out:
  side_cleanup(&base);
  side_cleanup(&head);
  if(rc)
    bpi_compare_free(c);
  else
    *out = c;
  return rc;
}

static void profile_cleanup(struct bp_cmp_profile *p)
{
  free(p->event);
  free(p->dir);
  free(p->gecko_file);
  free(p->gecko_url);
  free(p->svg_url);
}

static void side_free(struct bp_cmp_side *s)
{
  free(s->dir);
  free(s->project);
  free(s->branch);
  free(s->hash);
  free(s->testbed);
  free(s->report_uuid);
  free(s->bencher_url);
  free(s->manifest_url);
  free(s->bencher_project);
  free(s->bencher_branch);
  free(s->bencher_head);
  free(s->bencher_testbed);
}

void bpi_compare_free(struct bp_cmp *c)
{
  if(!c)
    return;
  for(size_t i = 0; i < c->nbenches; i++) {
    struct bp_cmp_bench *b = &c->benches[i];
    free(b->name);
    free(b->dir);
    for(size_t j = 0; j < b->nmeasures; j++) {
      free(b->measures[j].slug);
      free(b->measures[j].bencher_uuid);
      free(b->measures[j].alert_url);
      free(b->measures[j].vbase.reps);
      free(b->measures[j].vhead.reps);
    }
    free(b->measures);
    for(size_t j = 0; j < b->nfuncs; j++)
      free(b->funcs[j].name);
    free(b->funcs);
    for(size_t j = 0; j < b->nlines; j++)
      free(b->lines[j].stack);
    free(b->lines);
    profile_cleanup(&b->base);
    profile_cleanup(&b->head);
    free(b->diff_url);
    free(b->bencher_uuid);
    free(b->off_stack);
  }
  free(c->benches);
  side_free(&c->base);
  side_free(&c->head);
  free(c);
}

/* ----------------------------------------------------------------- output */

static const char *flag_name(enum bp_cmp_flag f)
{
  return f == BP_CMP_REGRESSION ? "regression" :
         f == BP_CMP_IMPROVEMENT ? "improvement" : "unchanged";
}

static const char *presence_name(enum bp_cmp_presence p)
{
  return p == BP_CMP_NEW ? "new" : p == BP_CMP_REMOVED ? "removed" : "both";
}

static void json_str_or_null(struct bp_buf *b, const char *s)
{
  if(s)
    bpi_buf_json_str(b, s);
  else
    bpi_buf_adds(b, "null");
}

static void json_num(struct bp_buf *b, double v)
{
  if(isnan(v) || v > 1e308 || v < -1e308)
    bpi_buf_adds(b, "null");
  else
    bpi_buf_printf(b, "%.17g", v);
}

static void json_side(struct bp_buf *b, const char *key,
                      const struct bp_cmp_side *s)
{
  bpi_buf_printf(b, "  \"%s\": {\"dir\": ", key);
  json_str_or_null(b, s->dir);
  const char *keys[] = {"project", "branch", "hash", "testbed",
                        "report_uuid", "manifest_url"};
  const char *vals[] = {s->project, s->branch, s->hash, s->testbed,
                        s->report_uuid, s->manifest_url};
  for(size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
    bpi_buf_printf(b, ", \"%s\": ", keys[i]);
    json_str_or_null(b, vals[i]);
  }
  bpi_buf_adds(b, "},\n");
}

static void json_profile(struct bp_buf *b, const char *key,
                         const struct bp_cmp_profile *p)
{
  bpi_buf_printf(b, ", \"%s\": {\"dir\": ", key);
  json_str_or_null(b, p->dir);
  bpi_buf_adds(b, ", \"gecko\": ");
  json_str_or_null(b, p->gecko_file);
  bpi_buf_adds(b, ", \"gecko_url\": ");
  json_str_or_null(b, p->gecko_url);
  bpi_buf_printf(b, ", \"thread\": %" PRIu32 ", \"samples\": %" PRIu64
                 ", \"runs\": ", p->thread, p->samples);
  json_num(b, p->runs);
  bpi_buf_adds(b, ", \"per_sample\": ");
  json_num(b, p->per_sample);
  bpi_buf_adds(b, "}");
}

static const char *basis_name(enum bp_cmp_basis x)
{
  return x == BP_CMP_BOUNDS ? "bounds" : x == BP_CMP_REPEATS ?
         "mann-whitney" : x == BP_CMP_BENCHER ? "bencher-alert" : "single";
}

/* , "KEY": {"lower": n, "upper": n, "repetitions": [...]} or null */
static void json_values(struct bp_buf *b, const char *key, bool present,
                        const struct bp_cmp_values *v)
{
  bpi_buf_printf(b, ", \"%s\": ", key);
  if(!present || (!v->has_bounds && !v->nreps)) {
    bpi_buf_adds(b, "null");
    return;
  }
  bpi_buf_adds(b, "{\"lower\": ");
  if(v->has_bounds) json_num(b, v->lower); else bpi_buf_adds(b, "null");
  bpi_buf_adds(b, ", \"upper\": ");
  if(v->has_bounds) json_num(b, v->upper); else bpi_buf_adds(b, "null");
  bpi_buf_adds(b, ", \"repetitions\": [");
  for(size_t i = 0; i < v->nreps; i++) {
    bpi_buf_adds(b, i ? ", " : "");
    json_num(b, v->reps[i]);
  }
  bpi_buf_adds(b, "]}");
}

static void json_bench(struct bp_buf *b, const struct bp_cmp_bench *cb)
{
  bpi_buf_adds(b, "    {\"name\": ");
  bpi_buf_json_str(b, cb->name);
  bpi_buf_adds(b, ", \"dir\": ");
  bpi_buf_json_str(b, cb->dir);
  bpi_buf_printf(b, ", \"presence\": \"%s\", \"flag\": \"%s\", "
                 "\"unconfirmed\": \"%s\", \"key_measure\": ",
                 presence_name(cb->presence), flag_name(cb->flag),
                 flag_name(cb->unconfirmed));
  json_str_or_null(b, cb->max_slug);
  bpi_buf_adds(b, ", \"off_cpu_stack\": ");
  json_str_or_null(b, cb->off_stack);
  bpi_buf_adds(b, ", \"off_cpu_stack_ns\": ");
  if(cb->off_stack) {
    bpi_buf_adds(b, "{\"base\": ");
    json_num(b, cb->off_base_ns);
    bpi_buf_adds(b, ", \"head\": ");
    json_num(b, cb->off_head_ns);
    bpi_buf_adds(b, "}");
  }
  else
    bpi_buf_adds(b, "null");
  json_profile(b, "base", &cb->base);
  json_profile(b, "head", &cb->head);
  /* function costs: per run, in the sampled event's unit */
  bpi_buf_adds(b, ", \"cost_unit\": ");
  json_str_or_null(b, cb->has_cost ? cb->unit : NULL);
  bpi_buf_adds(b, ", \"cost_per\": ");
  json_str_or_null(b, cb->has_cost ? "run" : NULL);
  bpi_buf_adds(b, ", \"event\": ");
  json_str_or_null(b, cb->head.event ? cb->head.event : cb->base.event);
  bpi_buf_adds(b, ",\n     \"measures\": [");
  for(size_t i = 0; i < cb->nmeasures; i++) {
    const struct bp_cmp_measure *m = &cb->measures[i];
    bpi_buf_adds(b, i ? ",\n       {\"slug\": " : "\n       {\"slug\": ");
    bpi_buf_json_str(b, m->slug);
    bpi_buf_adds(b, ", \"base\": ");
    if(m->in_base) json_num(b, m->base); else bpi_buf_adds(b, "null");
    bpi_buf_adds(b, ", \"head\": ");
    if(m->in_head) json_num(b, m->head); else bpi_buf_adds(b, "null");
    bpi_buf_adds(b, ", \"delta\": ");
    json_num(b, m->delta);
    bpi_buf_adds(b, ", \"pct\": ");
    json_num(b, m->pct);
    bpi_buf_printf(b, ", \"higher_is_better\": %s, \"flag\": \"%s\", "
                   "\"change\": \"%s\", \"confirmed\": %s, \"basis\": \"%s\"",
                   m->higher_is_better ? "true" : "false",
                   flag_name(m->flag), flag_name(m->change),
                   m->flag != BP_CMP_UNCHANGED ? "true" : "false",
                   basis_name(m->basis));
    bpi_buf_printf(b, ", \"unconfirmed\": %s",
                   m->unconfirmed ? "true" : "false");
    json_values(b, "base_values", m->in_base, &m->vbase);
    json_values(b, "head_values", m->in_head, &m->vhead);
    bpi_buf_adds(b, ", \"interval_pct\": ");
    if(m->has_interval) {
      bpi_buf_adds(b, "[");
      json_num(b, m->pct_lo);
      bpi_buf_adds(b, ", ");
      json_num(b, m->pct_hi);
      bpi_buf_adds(b, "]");
    }
    else
      bpi_buf_adds(b, "null");
    bpi_buf_adds(b, ", \"p_value\": ");
    json_num(b, m->p_value);
    bpi_buf_adds(b, ", \"alert_url\": ");
    json_str_or_null(b, m->alert_url);
    bpi_buf_adds(b, "}");
  }
  bpi_buf_adds(b, "],\n     \"functions\": [");
  for(size_t i = 0; i < cb->nfuncs; i++) {
    const struct bp_cmp_func *f = &cb->funcs[i];
    bpi_buf_adds(b, i ? ",\n       {\"name\": " : "\n       {\"name\": ");
    bpi_buf_json_str(b, f->name);
    bpi_buf_printf(b, ", \"base_self\": %" PRIu64 ", \"base_total\": %"
                   PRIu64 ", \"head_self\": %" PRIu64 ", \"head_total\": %"
                   PRIu64 ", \"d_self_pp\": ", f->base_self, f->base_total,
                   f->head_self, f->head_total);
    json_num(b, f->d_self);
    bpi_buf_adds(b, ", \"d_total_pp\": ");
    json_num(b, f->d_total);
    bpi_buf_printf(b, ", \"new\": %s, \"vanished\": %s",
                   f->base_total ? "false" : "true",
                   f->head_total ? "false" : "true");
    if(cb->has_cost) {
      const char *keys[] = {"base_self_cost", "head_self_cost",
                            "base_total_cost", "head_total_cost",
                            "d_self_cost", "d_self_half", "d_total_cost",
                            "d_total_half"};
      double vals[] = {f->base_self_cost, f->head_self_cost,
                       f->base_total_cost, f->head_total_cost,
                       f->d_self_cost, f->self_half, f->d_total_cost,
                       f->total_half};
      for(size_t k = 0; k < BP_ARRAY_LEN(keys); k++) {
        bpi_buf_printf(b, ", \"%s\": ", keys[k]);
        json_num(b, vals[k]);
      }
      bpi_buf_printf(b, ", \"self_significant\": %s, "
                     "\"total_significant\": %s",
                     f->self_significant ? "true" : "false",
                     f->total_significant ? "true" : "false");
    }
    bpi_buf_addc(b, '}');
  }
  bpi_buf_adds(b, "]}");
}

void bpi_compare_json(const struct bp_cmp *c, struct bp_buf *b)
{
  bpi_buf_adds(b, "{\n");
  json_side(b, "base", &c->base);
  json_side(b, "head", &c->head);
  bpi_buf_adds(b, "  \"threshold_pct\": ");
  json_num(b, c->threshold_pct);
  bpi_buf_printf(b, ",\n  \"confidence\": %g", BP_STATS_CONFIDENCE);
  bpi_buf_printf(b, ",\n  \"regressions\": %zu, \"improvements\": %zu, "
                 "\"unchanged\": %zu, \"new\": %zu, \"removed\": %zu,\n"
                 "  \"unconfirmed_regressions\": %zu,\n"
                 "  \"benchmarks\": [\n", c->nregressions, c->nimprovements,
                 c->nunchanged, c->nnew, c->nremoved, c->nunconfirmed);
  for(size_t i = 0; i < c->nbenches; i++) {
    json_bench(b, &c->benches[i]);
    bpi_buf_adds(b, i + 1 < c->nbenches ? ",\n" : "\n");
  }
  bpi_buf_adds(b, "  ]\n}\n");
}

void bpi_compare_diff_folded(const struct bp_cmp_bench *b,
                             struct bp_buf *out)
{
  for(size_t i = 0; i < b->nlines; i++)
    bpi_buf_printf(out, "%s %" PRIu64 " %" PRIu64 "\n", b->lines[i].stack,
                   b->lines[i].base, b->lines[i].head);
}

static bp_code write_buf(const char *dir, const char *sub, const char *file,
                         struct bp_buf *data, struct bp_err *err)
{
  struct bp_buf path;
  bp_code rc;
  bpi_buf_init(&path);
  if(strcmp(sub, "."))
    bpi_buf_printf(&path, "%s/%s", dir, sub);
  else
    bpi_buf_adds(&path, dir);
  if(bpi_buf_failed(&path) || bpi_buf_failed(data)) {
    rc = bpi_err_set(err, BPE_NOMEM, 0, "compare: %s", file);
    goto out;
  }
  rc = bpi_file_mkdirs(path.data, err);
  if(rc)
    goto out;
  bpi_buf_printf(&path, "/%s", file);
  rc = bpi_buf_failed(&path) ?
    bpi_err_set(err, BPE_NOMEM, 0, "compare: %s", file) :
    bpi_file_write(path.data, data->data ? data->data : "", data->len,
                   false, err);
out:
  bpi_buf_cleanup(&path);
  return rc;
}

static bp_code write_bench(const struct bp_cmp_bench *b, const char *out_dir,
                           struct bp_err *err)
{
  struct bp_buf data, title;
  bp_code rc;
  struct bp_diffsvg_cost cost = {
    .per_sample = {b->base.per_sample / b->base.runs,
                   b->head.per_sample / b->head.runs},
    .event = b->head.event, .unit = b->unit};
  bpi_buf_init(&data);
  bpi_buf_init(&title);
  bpi_compare_diff_folded(b, &data);
  rc = write_buf(out_dir, b->dir, "diff.folded", &data, err);
  for(int negated = 0; !rc && negated < 2; negated++) {
    bpi_buf_reset(&data);
    bpi_buf_reset(&title);
    bpi_buf_printf(&title, "%s: %s", negated ? "Base" : "Head", b->name);
    rc = bpi_buf_failed(&title) ?
      bpi_err_set(err, BPE_NOMEM, 0, "compare: title") :
      bpi_diffsvg_write_cost(b->lines, b->nlines, negated, title.data,
                             b->has_cost ? &cost : NULL, &data, err);
    if(!rc)
      rc = write_buf(out_dir, b->dir, negated ? "diff-negated.svg" :
                     "diff.svg", &data, err);
  }
  bpi_buf_cleanup(&title);
  bpi_buf_cleanup(&data);
  return rc;
}

bp_code bpi_compare_write(const struct bp_cmp *c, const char *out_dir,
                          struct bp_err *err)
{
  struct bp_buf json;
  bp_code rc = bpi_file_mkdirs(out_dir, err);
  for(size_t i = 0; !rc && i < c->nbenches; i++)
    /* both sides profiled; a benchmark the harness reported without a
     * profile of its own has nothing to diff */
    if(c->benches[i].presence == BP_CMP_BOTH && c->benches[i].base.dir &&
       c->benches[i].head.dir)
      rc = write_bench(&c->benches[i], out_dir, err);
  if(rc)
    return rc;
  bpi_buf_init(&json);
  bpi_compare_json(c, &json);
  rc = write_buf(out_dir, ".", "compare.json", &json, err);
  bpi_buf_cleanup(&json);
  return rc;
}
