/* compare, output: struct bp_cmp -> compare.json (a cJSON tree) and, per
 * benchmark, diff.folded, diff.svg and diff-negated.svg (and
 * diff.offcpu.svg with off-CPU stacks on both sides) in a compare
 * directory. */
#include "bp_setup.h"
#include "compare_int.h"
#include "err.h"
#include "fileio.h"
#include "parallel.h"
#include "stats.h"

#include "text.h"

#include <inttypes.h>
#include <stdio.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

static const char *flag_name(enum bp_cmp_flag f)
{
  return f == BP_CMP_REGRESSION ? "regression" :
         f == BP_CMP_IMPROVEMENT ? "improvement" : "unchanged";
}

static const char *presence_name(enum bp_cmp_presence p)
{
  return p == BP_CMP_NEW ? "new" : p == BP_CMP_REMOVED ? "removed" : "both";
}

/* A string, or null when s is NULL. */
static void add_str(cJSON *o, const char *key, const char *s)
{
  cJSON_AddItemToObject(o, key, s ? cJSON_CreateString(s)
                                  : cJSON_CreateNull());
}

/* A number; null when it is not finite (JSON has no NaN). */
static cJSON *num(double v)
{
  return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

static void add_num(cJSON *o, const char *key, double v)
{
  cJSON_AddItemToObject(o, key, num(v));
}

static void json_side(cJSON *root, const char *key,
                      const struct bp_cmp_side *s)
{
  cJSON *o = cJSON_AddObjectToObject(root, key);
  const char *keys[] = {"dir", "project", "branch", "hash", "testbed",
                        "report_uuid", "manifest_url", "outcome"};
  const char *vals[] = {s->dir, s->project, s->branch, s->hash, s->testbed,
                        s->report_uuid, s->manifest_url, s->outcome};
  for(size_t i = 0; o && i < BP_ARRAY_LEN(keys); i++)
    add_str(o, keys[i], vals[i]);
}

/* Whether the side has the benchmark's profile: "profiled", "none" (its
 * run names no profile of it) or "missing" (named, but not there); null
 * on the side without the benchmark. */
static const char *state_name(const struct bp_cmp_profile *p, bool has)
{
  if(!has)
    return NULL;
  return p->state == BP_CMP_PROFILE_NONE ? "none" :
         p->state == BP_CMP_PROFILE_MISSING ? "missing" : "profiled";
}

static void json_profile(cJSON *bench, const char *key,
                         const struct bp_cmp_profile *p, bool has)
{
  cJSON *o = cJSON_AddObjectToObject(bench, key);
  if(!o)
    return;
  add_str(o, "profile", state_name(p, has));
  add_str(o, "missing_file", p->missing_file);
  add_str(o, "dir", p->dir);
  add_str(o, "gecko", p->gecko_file);
  add_str(o, "gecko_url", p->gecko_url);
  cJSON_AddNumberToObject(o, "thread", p->thread);
  cJSON_AddNumberToObject(o, "samples", (double)p->samples);
  add_num(o, "runs", p->runs);
  /* null when unknown: costs are then per run */
  add_num(o, "iterations", p->iterations > 0 ? p->iterations : NAN);
  /* the harness's own count (Google Benchmark's), null when unknown */
  add_num(o, "harness_iterations", p->harness_iterations > 0 ?
          p->harness_iterations : NAN);
  add_num(o, "per_sample", p->per_sample);
}

static const char *basis_name(enum bp_cmp_basis x)
{
  return x == BP_CMP_BOUNDS ? "bounds" : x == BP_CMP_REPEATS ?
         "mann-whitney" : x == BP_CMP_BENCHER ? "bencher-alert" : "single";
}

/* "KEY": {"lower": n, "upper": n, "repetitions": [...]} or null */
static void json_values(cJSON *o, const char *key, bool present,
                        const struct bp_cmp_values *v)
{
  if(!present || (!v->has_bounds && !v->nreps)) {
    cJSON_AddNullToObject(o, key);
    return;
  }
  cJSON *x = cJSON_AddObjectToObject(o, key);
  if(!x)
    return;
  add_num(x, "lower", v->has_bounds ? v->lower : NAN);
  add_num(x, "upper", v->has_bounds ? v->upper : NAN);
  cJSON *reps = cJSON_AddArrayToObject(x, "repetitions");
  for(size_t i = 0; reps && i < v->nreps; i++)
    cJSON_AddItemToArray(reps, num(v->reps[i]));
}

static cJSON *json_measure(const struct bp_cmp_measure *m)
{
  cJSON *o = cJSON_CreateObject();
  if(!o)
    return NULL;
  add_str(o, "slug", m->slug);
  add_num(o, "base", m->in_base ? m->base : NAN);
  add_num(o, "head", m->in_head ? m->head : NAN);
  /* no change without both sides (a new or removed benchmark's) */
  bool both = m->in_base && m->in_head;
  add_num(o, "delta", both ? m->delta : NAN);
  add_num(o, "pct", both ? m->pct : NAN);
  cJSON_AddBoolToObject(o, "higher_is_better", m->higher_is_better);
  add_str(o, "flag", flag_name(m->flag));
  add_str(o, "change", flag_name(m->change));
  cJSON_AddBoolToObject(o, "confirmed", m->flag != BP_CMP_UNCHANGED);
  /* confirmed, but wall time only: not counted in the verdict */
  cJSON_AddBoolToObject(o, "wall_time_only", m->wall_only != BP_CMP_UNCHANGED);
  add_str(o, "basis", basis_name(m->basis));
  cJSON_AddBoolToObject(o, "unconfirmed", m->unconfirmed);
  json_values(o, "base_values", m->in_base, &m->vbase);
  json_values(o, "head_values", m->in_head, &m->vhead);
  if(m->has_interval) {
    cJSON *iv = cJSON_AddArrayToObject(o, "interval_pct");
    cJSON_AddItemToArray(iv, num(m->pct_lo));
    cJSON_AddItemToArray(iv, num(m->pct_hi));
  }
  else
    cJSON_AddNullToObject(o, "interval_pct");
  add_num(o, "p_value", m->p_value);
  add_str(o, "alert_url", m->alert_url);
  cJSON_AddBoolToObject(o, "per_iteration", m->per_iteration);
  /* page faults per iteration that the iteration counts moved: shown,
   * not counted toward the verdict */
  cJSON_AddBoolToObject(o, "follows_iterations", m->follows_iterations);
  return o;
}

/* A function: samples, the change of its shares, and with costs its
 * absolute costs on both sides (per iteration or per run, the
 * benchmark's cost_per), their changes and the changes' intervals
 * (half-widths: the change +- half). */
static cJSON *json_func(const struct bp_cmp_bench *cb,
                        const struct bp_cmp_func *f)
{
  cJSON *o = cJSON_CreateObject();
  if(!o)
    return NULL;
  add_str(o, "name", f->name);
  cJSON_AddNumberToObject(o, "base_self", (double)f->base_self);
  cJSON_AddNumberToObject(o, "base_total", (double)f->base_total);
  cJSON_AddNumberToObject(o, "head_self", (double)f->head_self);
  cJSON_AddNumberToObject(o, "head_total", (double)f->head_total);
  add_num(o, "d_self_pp", f->d_self);
  add_num(o, "d_total_pp", f->d_total);
  cJSON_AddBoolToObject(o, "new", !f->base_total);
  cJSON_AddBoolToObject(o, "vanished", !f->head_total);
  /* name is the function's without the folded stacks' "_[k]" */
  cJSON_AddBoolToObject(o, "kernel", f->kernel);
  /* the machine's interrupt handling: never grew or shrank most */
  cJSON_AddBoolToObject(o, "interrupts", f->interrupts);
  if(!cb->has_cost)
    return o;
  const char *keys[] = {"base_self_cost", "head_self_cost",
                        "base_total_cost", "head_total_cost",
                        "d_self_cost", "d_self_half", "d_total_cost",
                        "d_total_half"};
  double vals[] = {f->base_self_cost, f->head_self_cost,
                   f->base_total_cost, f->head_total_cost,
                   f->d_self_cost, f->self_half, f->d_total_cost,
                   f->total_half};
  for(size_t k = 0; k < BP_ARRAY_LEN(keys); k++)
    add_num(o, keys[k], vals[k]);
  cJSON_AddBoolToObject(o, "self_significant", f->self_significant);
  cJSON_AddBoolToObject(o, "total_significant", f->total_significant);
  /* a caller whose change is its listed callees': no row of its own */
  cJSON_AddBoolToObject(o, "echo", f->echo);
  return o;
}

static const char *band_basis_name(enum bp_cmp_band_basis x)
{
  return x == BP_CMP_BAND_INTERVAL ? "interval" :
         x == BP_CMP_BAND_TOTAL ? "total-cost" : "confirmed";
}

/* A noise band as PREFIX_pct ([lo, hi], percent), PREFIX_measure (the
 * measure it is from) and PREFIX_basis; all null when band is NULL. */
static void json_band_as(cJSON *o, const char *prefix,
                         const struct bp_cmp_band *band)
{
  char key[64];
  snprintf(key, sizeof(key), "%s_pct", prefix);
  cJSON *pct = band ? cJSON_AddArrayToObject(o, key)
                    : cJSON_AddNullToObject(o, key);
  if(band && pct) {
    cJSON_AddItemToArray(pct, num(100 * band->lo));
    cJSON_AddItemToArray(pct, num(100 * band->hi));
  }
  snprintf(key, sizeof(key), "%s_measure", prefix);
  add_str(o, key, band ? band->measure : NULL);
  snprintf(key, sizeof(key), "%s_basis", prefix);
  add_str(o, key, band ? band_basis_name(band->basis) : NULL);
}

/* The change the benchmark's own noise allows every function (null
 * without costs): "functions_noise_band_pct": [lo, hi], from
 * "functions_noise_band_measure" (null: the profile's total cost), as
 * "functions_noise_band_basis" says; and the off-CPU one each waiting
 * stack is judged against, "off_cpu_noise_band_*" (from "off-cpu";
 * null without off-CPU stacks on both sides). */
static void json_band(cJSON *o, const struct bp_cmp_bench *cb)
{
  json_band_as(o, "functions_noise_band", cb->has_cost ? &cb->band : NULL);
  json_band_as(o, "off_cpu_noise_band",
               cb->has_off_band ? &cb->off_band : NULL);
}

/* "diff_offcpu": the off-CPU differential flame graph's path in the
 * compare directory, and once a run's comparison stored it its store key
 * and URL ("diff_offcpu_key", "diff_offcpu_url"); all null without one.
 * False when out of memory: a benchmark short of its path is not
 * written (tree_complete). */
static bool json_off_diff(cJSON *o, const struct bp_cmp_bench *cb)
{
  char *path = NULL;
  if(bpi_compare_has_off_diff(cb)) {
    path = strcmp(cb->dir, ".") ?
      bpi_text_path_join(cb->dir, BP_FILE_DIFF_OFFCPU_SVG) :
      strdup(BP_FILE_DIFF_OFFCPU_SVG);
    if(!path)
      return false;
  }
  add_str(o, "diff_offcpu", path);
  add_str(o, "diff_offcpu_key", cb->off_diff_key);
  add_str(o, "diff_offcpu_url", cb->off_diff_url);
  free(path);
  return true;
}

static cJSON *json_bench(const struct bp_cmp_bench *cb)
{
  cJSON *o = cJSON_CreateObject();
  if(!o)
    return NULL;
  add_str(o, "name", cb->name);
  /* the base's name of it when the two differ by a build hash */
  add_str(o, "base_name", cb->base_name);
  add_str(o, "dir", cb->dir);
  add_str(o, "presence", presence_name(cb->presence));
  /* its profile is the whole run's, named by other benchmarks too */
  cJSON_AddBoolToObject(o, "shared_profile", cb->shared_profile);
  add_str(o, "flag", flag_name(cb->flag));
  /* the verdict the comment and the summaries give it, in words */
  add_str(o, "verdict", bpi_compare_verdict(cb));
  add_str(o, "wall_time_only", flag_name(cb->wall_only));
  add_str(o, "unconfirmed", flag_name(cb->unconfirmed));
  /* the comment's row: also when nothing is confirmed or unconfirmed */
  const struct bp_cmp_measure *key = bpi_compare_key_measure(cb);
  add_str(o, "key_measure", key ? key->slug : NULL);
  /* the base's stacks read under the head's process name (renamed) */
  add_str(o, "renamed_base_process", cb->renamed_base_process);
  add_str(o, "renamed_head_process", cb->renamed_head_process);
  /* the waiting stack whose blocked time changed most beyond the
   * off-CPU noise band, else most of all (--off-cpu) */
  add_str(o, "off_cpu_stack", cb->off_stack);
  /* true: no stack changed beyond the off-CPU noise band, and that is
   * the largest change within it (the comment names none) */
  if(cb->off_stack)
    cJSON_AddBoolToObject(o, "off_cpu_stack_within_noise",
                          cb->off_within_noise);
  else
    cJSON_AddNullToObject(o, "off_cpu_stack_within_noise");
  if(cb->off_stack) {
    cJSON *ns = cJSON_AddObjectToObject(o, "off_cpu_stack_ns");
    if(ns) {
      add_num(ns, "base", cb->off_base_ns);
      add_num(ns, "head", cb->off_head_ns);
    }
  }
  else
    cJSON_AddNullToObject(o, "off_cpu_stack_ns");
  if(!json_off_diff(o, cb)) {
    cJSON_Delete(o);
    return NULL;
  }
  json_profile(o, "base", &cb->base, cb->presence != BP_CMP_NEW);
  json_profile(o, "head", &cb->head, cb->presence != BP_CMP_REMOVED);
  /* function costs: in the sampled event's unit, per iteration or run */
  add_str(o, "cost_unit", cb->has_cost ? cb->unit : NULL);
  add_str(o, "cost_per", cb->has_cost ? bpi_compare_cost_per(cb) : NULL);
  add_str(o, "event", cb->head.event ? cb->head.event : cb->base.event);
  /* the functions' intervals: 99% for all of them together */
  if(cb->has_cost)
    add_num(o, "functions_z", cb->func_z);
  else
    cJSON_AddNullToObject(o, "functions_z");
  json_band(o, cb);
  cJSON *ms = cJSON_AddArrayToObject(o, "measures");
  for(size_t i = 0; ms && i < cb->nmeasures; i++)
    cJSON_AddItemToArray(ms, json_measure(&cb->measures[i]));
  cJSON *fs = cJSON_AddArrayToObject(o, "functions");
  for(size_t i = 0; fs && i < cb->nfuncs; i++)
    cJSON_AddItemToArray(fs, json_func(cb, &cb->funcs[i]));
  return o;
}

static cJSON *json_tree(const struct bp_cmp *c)
{
  cJSON *root = cJSON_CreateObject();
  if(!root)
    return NULL;
  json_side(root, "base", &c->base);
  json_side(root, "head", &c->head);
  add_str(root, "suite", c->suite);
  add_num(root, "threshold_pct", c->threshold_pct);
  add_num(root, "confidence", BP_STATS_CONFIDENCE);
  /* every benchmark counted once, as the summaries and the comment's
   * title count them (bpi_compare_counts): an unconfirmed change is
   * neither a verdict nor "unchanged" */
  size_t unconf_impr, unchanged;
  bpi_compare_counts(c, &unconf_impr, &unchanged);
  cJSON_AddNumberToObject(root, "regressions", (double)c->nregressions);
  cJSON_AddNumberToObject(root, "improvements", (double)c->nimprovements);
  cJSON_AddNumberToObject(root, "unchanged", (double)unchanged);
  cJSON_AddNumberToObject(root, "new", (double)c->nnew);
  cJSON_AddNumberToObject(root, "removed", (double)c->nremoved);
  cJSON_AddNumberToObject(root, "unconfirmed_regressions",
                          (double)c->nunconfirmed);
  cJSON_AddNumberToObject(root, "unconfirmed_improvements",
                          (double)unconf_impr);
  /* confirmed changes of wall time the CPU time did not follow, counted
   * apart (in none of the above) unless the owner counts them */
  cJSON_AddNumberToObject(root, "slower_wall_time_only",
                          (double)c->nwall_slower);
  cJSON_AddNumberToObject(root, "faster_wall_time_only",
                          (double)c->nwall_faster);
  add_str(root, "wall_time_only", c->wall_time_counted ? "regression"
                                                       : "separate");
  /* new and removed benchmarks left apart that differ by a build hash */
  cJSON_AddBoolToObject(root, "build_hash_names_unpaired",
                        c->hash_names_unpaired);
  cJSON *bs = cJSON_AddArrayToObject(root, "benchmarks");
  for(size_t i = 0; bs && i < c->nbenches; i++)
    cJSON_AddItemToArray(bs, json_bench(&c->benches[i]));
  return root;
}

/* cJSON_AddItemToArray(NULL item) and the Add helpers fail quietly on a
 * failed allocation: a tree short of an item is not written. */
static bool tree_complete(const cJSON *j, size_t expect_benches)
{
  const cJSON *bs = cJSON_GetObjectItemCaseSensitive(j, "benchmarks");
  return bs && (size_t)cJSON_GetArraySize(bs) == expect_benches;
}

/* cJSON's compact text laid out for people: a space after ',' and ':',
 * and each object in an array (a benchmark, a measure, a function) on a
 * line of its own, indented by its depth; strings copied as they are
 * (cJSON escapes every control character in them). */
static void lay_out(const char *json, struct bp_buf *b)
{
  size_t depth = 0;
  bool in_str = false, escaped = false, space = false;
  char prev = 0;
  for(const char *p = json; *p; p++) {
    char c = *p;
    if(in_str) {
      bpi_buf_addc(b, c);
      if(escaped)
        escaped = false;
      else if(c == '\\')
        escaped = true;
      else if(c == '"')
        in_str = false;
      continue;
    }
    if(c == '{' && (prev == '[' || prev == ',')) {
      bpi_buf_addc(b, '\n');
      for(size_t i = 0; i < depth; i++)
        bpi_buf_adds(b, "  ");
    }
    else if(space)
      bpi_buf_addc(b, ' ');
    space = c == ',' || c == ':';
    depth += c == '{' || c == '[';
    depth -= depth && (c == '}' || c == ']');
    in_str = c == '"';
    bpi_buf_addc(b, c);
    prev = c;
  }
  bpi_buf_addc(b, '\n');
}

void bpi_compare_json(const struct bp_cmp *c, struct bp_buf *b)
{
  cJSON *root = json_tree(c);
  char *text = root && tree_complete(root, c->nbenches) ?
               cJSON_PrintUnformatted(root) : NULL;
  if(text)
    lay_out(text, b);
  else
    b->failed = true;   /* as an append that could not allocate */
  cJSON_free(text);
  cJSON_Delete(root);
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
  bp_code rc;
  char *folder = strcmp(sub, ".") ? bpi_text_path_join(dir, sub)
                                  : strdup(dir);
  char *path = folder ? bpi_text_path_join(folder, file) : NULL;
  if(!path || bpi_buf_failed(data)) {
    rc = bpi_err_set(err, BPE_NOMEM, 0, "compare: %s", file);
    goto out;
  }
  rc = bpi_file_mkdirs(folder, err);
  if(!rc)
    rc = bpi_file_write(path, data->data ? data->data : "", data->len,
                        false, err);
out:
  free(path);
  free(folder);
  return rc;
}

/* The off-CPU differential flame graph: by waiting time per run, white
 * within the off-CPU noise band (the times are measured: it is their
 * only noise), as the comment names a waiting stack; preempted time is
 * width only. */
static bp_code write_off_diff(const struct bp_cmp_bench *b,
                              const char *out_dir, struct bp_buf *data,
                              struct bp_buf *title, struct bp_err *err)
{
  struct bp_diffsvg_cost cost = {
    .per_sample = {b->off_ns_per_us[0], b->off_ns_per_us[1]},
    .band = &b->off_band, .unit = "ns", .per = "run", .off_cpu = true};
  bpi_buf_reset(data);
  bpi_buf_reset(title);
  bpi_buf_printf(title, "Head: %s (off-CPU, microseconds)", b->name);
  bp_code rc = bpi_buf_failed(title) ?
    bpi_err_set(err, BPE_NOMEM, 0, "compare: title") :
    bpi_diffsvg_write_cost(b->off_lines, b->off_nlines, false, title->data,
                           b->has_off_band ? &cost : NULL, data, err);
  return rc ? rc : write_buf(out_dir, b->dir, BP_FILE_DIFF_OFFCPU_SVG, data,
                             err);
}

static bp_code write_bench(const struct bp_cmp_bench *b, const char *out_dir,
                           struct bp_err *err)
{
  struct bp_buf data, title;
  bp_code rc;
  struct bp_diffsvg_cost cost = {
    .per_sample = {bpi_compare_sample_cost(b, 0),
                   bpi_compare_sample_cost(b, 1)},
    .z = b->func_z, .band = &b->band, .event = b->head.event,
    .unit = b->unit, .per = bpi_compare_cost_per(b)};
  bpi_buf_init(&data);
  bpi_buf_init(&title);
  bpi_compare_diff_folded(b, &data);
  rc = write_buf(out_dir, b->dir, BP_FILE_DIFF_FOLDED, &data, err);
  for(int negated = 0; !rc && negated < 2; negated++) {
    bpi_buf_reset(&data);
    bpi_buf_reset(&title);
    bpi_buf_printf(&title, "%s: %s", negated ? "Base" : "Head", b->name);
    rc = bpi_buf_failed(&title) ?
      bpi_err_set(err, BPE_NOMEM, 0, "compare: title") :
      bpi_diffsvg_write_cost(b->lines, b->nlines, negated, title.data,
                             b->has_cost ? &cost : NULL, &data, err);
    if(!rc)
      rc = write_buf(out_dir, b->dir, negated ? BP_FILE_DIFF_NEG_SVG :
                     BP_FILE_DIFF_SVG, &data, err);
  }
  if(!rc && bpi_compare_has_off_diff(b))
    rc = write_off_diff(b, out_dir, &data, &title, err);
  bpi_buf_cleanup(&title);
  bpi_buf_cleanup(&data);
  return rc;
}

/* The benchmarks' diffs written on the pool's workers.  Benchmarks that
 * share a folder (a run's benchmarks without profiles of their own share
 * its ".") write the same files: the first of them writes them all, in
 * order, so the last one's are left there, as the loop in order leaves
 * them (and a failure among them counts as the first one's). */
struct diff_writes {
  const struct bp_cmp *c;
  const char *out_dir;
  size_t *next;  /* the next benchmark in the same folder, or SIZE_MAX */
  bool *first;   /* the first of its folder: its item writes them all */
};

/* Chain the benchmarks with diffs by folder, in order. */
static bp_code chain_folders(struct diff_writes *w)
{
  size_t n = w->c->nbenches;
  struct bp_strtab dirs;
  size_t *last = malloc((n ? n : 1) * sizeof(*last));  /* folder -> tail */
  w->next = malloc((n ? n : 1) * sizeof(*w->next));
  w->first = calloc(n ? n : 1, sizeof(*w->first));
  bp_code rc = last && w->next && w->first ? BP_OK : BPE_NOMEM;
  bpi_strtab_init(&dirs);
  for(size_t i = 0; !rc && i < n; i++) {
    w->next[i] = SIZE_MAX;
    if(!bpi_compare_has_diff(&w->c->benches[i]))
      continue;
    size_t known = dirs.count;
    uint32_t id = bpi_strtab_intern(&dirs, w->c->benches[i].dir);
    if(id == BP_NONE) {
      rc = BPE_NOMEM;
      continue;
    }
    if(id == known)
      w->first[i] = true;
    else
      w->next[last[id]] = i;
    last[id] = i;
  }
  bpi_strtab_cleanup(&dirs);
  free(last);
  return rc;
}

static bp_code write_folder(void *ctx, size_t i, struct bp_err *err)
{
  const struct diff_writes *w = ctx;
  bp_code rc = BP_OK;
  if(!w->first[i])
    return BP_OK;
  for(size_t j = i; !rc && j != SIZE_MAX; j = w->next[j])
    rc = write_bench(&w->c->benches[j], w->out_dir, err);
  return rc;
}

static bp_code write_diffs(const struct bp_cmp *c, const char *out_dir,
                           struct bp_err *err)
{
  struct diff_writes w = {.c = c, .out_dir = out_dir};
  bp_code rc = chain_folders(&w);
  if(rc)
    rc = bpi_err_set(err, rc, 0, "compare: diffs");
  else
    rc = bpi_parallel_for(c->nbenches, bpi_parallel_workers(
                            c->nbenches, BP_PARALLEL_MIN_ITEMS),
                          write_folder, &w, err);
  free(w.next);
  free(w.first);
  return rc;
}

bp_code bpi_compare_write_diffs(const struct bp_cmp *c, const char *out_dir,
                                struct bp_err *err)
{
  bp_code rc = bpi_file_mkdirs(out_dir, err);
  return rc ? rc : write_diffs(c, out_dir, err);
}

bp_code bpi_compare_write_json(const struct bp_cmp *c, const char *out_dir,
                               struct bp_err *err)
{
  struct bp_buf json;
  bpi_buf_init(&json);
  bpi_compare_json(c, &json);
  bp_code rc = write_buf(out_dir, ".", BP_FILE_COMPARE_JSON, &json, err);
  bpi_buf_cleanup(&json);
  return rc;
}

bp_code bpi_compare_write(const struct bp_cmp *c, const char *out_dir,
                          struct bp_err *err)
{
  bp_code rc = bpi_compare_write_diffs(c, out_dir, err);
  return rc ? rc : bpi_compare_write_json(c, out_dir, err);
}
