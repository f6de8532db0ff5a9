/* compare, output: struct bp_cmp -> compare.json and, per benchmark,
 * diff.folded, diff.svg and diff-negated.svg in a compare directory. */
#include "bp_setup.h"
#include "compare_int.h"
#include "err.h"
#include "fileio.h"
#include "stats.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
