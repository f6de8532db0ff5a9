/* report_bmf: the BMF reader: {"<benchmark>": {"<measure>": {"value": n,
 * "lower_value": n?, "upper_value": n?}}} -> struct bp_report, strict
 * (unknown keys, duplicates, bounds out of order and numbers that are not
 * finite are errors with their JSON path). */
#include "bp_setup.h"
#include "report.h"
#include "report_int.h"
#include "err.h"

#include <math.h>   /* isfinite: a macro, no libm */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ duplicates */

struct key {
  const char *s;
  size_t i;
};

static int key_cmp(const void *a, const void *b)
{
  const struct key *x = a, *y = b;
  int c = strcmp(x->s, y->s);
  if(c)
    return c;
  return x->i < y->i ? -1 : x->i > y->i;
}

/* The first name in keys (by i) equal to an earlier one, NULL when all
 * differ.  Sorts keys. */
static const char *first_repeat(struct key *keys, size_t n)
{
  const char *found = NULL;
  size_t found_i = SIZE_MAX;
  qsort(keys, n, sizeof(*keys), key_cmp);
  for(size_t k = 1; k < n; k++) {
    if(!strcmp(keys[k].s, keys[k - 1].s) && keys[k].i < found_i) {
      found = keys[k].s;
      found_i = keys[k].i;
    }
  }
  return found;
}

/* ------------------------------------------------------------------ BMF */

static void bmf_path(struct text *t, const char *bench, const char *measure,
                     const char *key)
{
  t->len = 0;
  t->s[0] = '\0';
  const char *parts[3] = {bench, measure, key};
  for(int i = 0; i < 3 && parts[i]; i++) {
    bpi_report_text_add(t, "[", 1);
    bpi_report_show_quoted(t, parts[i]);
    bpi_report_text_add(t, "]", 1);
  }
}

static const char *const measure_keys[] = {
  "value", "lower_value", "upper_value"
};

/* One measure of b: {"value": n, "lower_value": n?, "upper_value": n?};
 * bname is b's name as the document spells it, for messages. */
static bp_code bmf_measure(struct parse *ps, struct bp_bench *b,
                           const char *bname, const cJSON *m)
{
  const cJSON *field[3] = {NULL, NULL, NULL};
  double v[3] = {0, 0, 0};
  struct text path, name = {.len = 0};
  const cJSON *k;
  bmf_path(&path, bname, m->string, NULL);
  if(!cJSON_IsObject(m))
    return bpi_report_fail_path(ps, &path,
                                "expected an object with \"value\", got %s",
                                bpi_report_type_name(m));
  cJSON_ArrayForEach(k, m) {
    size_t i = 0;
    while(i < 3 && strcmp(k->string, measure_keys[i]))
      i++;
    if(i == 3 || field[i])
      bpi_report_show_quoted(&name, k->string);
    if(i == 3)
      return bpi_report_fail_path(ps, &path,
                                  "unknown key %s (a measure has value, "
                                  "lower_value and upper_value)", name.s);
    if(field[i])
      return bpi_report_fail_path(ps, &path, "duplicate key %s", name.s);
    field[i] = k;
  }
  if(!field[0])
    return bpi_report_fail_path(ps, &path, "missing \"value\"");
  for(int i = 0; i < 3; i++) {
    if(!field[i])
      continue;
    bmf_path(&path, bname, m->string, measure_keys[i]);
    if(!cJSON_IsNumber(field[i]))
      return bpi_report_fail_path(ps, &path, "expected a number, got %s",
                                  bpi_report_type_name(field[i]));
    v[i] = field[i]->valuedouble;
    if(!isfinite(v[i]))
      return bpi_report_fail_path(ps, &path,
                                  "number out of range (not finite)");
  }
  bmf_path(&path, bname, m->string, NULL);
  char a[40], c[40];
  bpi_report_fmt_num(c, sizeof(c), v[0]);
  if(field[1] && v[1] > v[0]) {
    bpi_report_fmt_num(a, sizeof(a), v[1]);
    return bpi_report_fail_path(ps, &path,
                                "lower_value %s is greater than value %s",
                                a, c);
  }
  if(field[2] && v[0] > v[2]) {
    bpi_report_fmt_num(a, sizeof(a), v[2]);
    return bpi_report_fail_path(ps, &path,
                                "value %s is greater than upper_value %s",
                                c, a);
  }
  char *slug = bpi_report_name_dup(m->string);
  struct bp_measure *pm = slug ? bpi_report_push_measure(b, slug, v[0]) : NULL;
  if(!pm) {
    free(slug);
    return bpi_err_set(ps->err, BPE_NOMEM, 0, "reading %s", ps->origin);
  }
  pm->has_lower = field[1] != NULL;
  pm->lower = v[1];
  pm->has_upper = field[2] != NULL;
  pm->upper = v[2];
  return BP_OK;
}

/* The first measure slug of b that repeats an earlier one (after invalid
 * bytes became U+FFFD), as a message piece. */
static bp_code bmf_dup_measures(struct parse *ps, const struct bp_bench *b)
{
  if(b->nmeasures < 2)
    return BP_OK;
  struct key *keys = malloc(b->nmeasures * sizeof(*keys));
  if(!keys)
    return bpi_err_set(ps->err, BPE_NOMEM, 0, "reading %s", ps->origin);
  for(size_t i = 0; i < b->nmeasures; i++)
    keys[i] = (struct key){b->measures[i].slug, i};
  const char *dup = first_repeat(keys, b->nmeasures);
  bp_code rc = BP_OK;
  if(dup) {
    struct text path, name = {.len = 0};
    bmf_path(&path, b->name, NULL, NULL);
    bpi_report_show_quoted(&name, dup);
    rc = bpi_report_fail_path(ps, &path, "duplicate measure %s", name.s);
  }
  free(keys);
  return rc;
}

static bp_code bmf_bench(struct parse *ps, const cJSON *j)
{
  struct text path;
  const cJSON *m;
  bmf_path(&path, j->string, NULL, NULL);
  if(!j->string[0])
    return bpi_report_fail_path(ps, &path, "empty benchmark name");
  if(!cJSON_IsObject(j))
    return bpi_report_fail_path(ps, &path,
                                "expected an object of measures, got %s",
                                bpi_report_type_name(j));
  char *name = bpi_report_name_dup(j->string);
  struct bp_bench *b = name ? bpi_report_push_bench(&ps->out, name) : NULL;
  if(!b) {
    free(name);
    return bpi_err_set(ps->err, BPE_NOMEM, 0, "reading %s", ps->origin);
  }
  cJSON_ArrayForEach(m, j) {
    if(!m->string[0]) {
      bmf_path(&path, j->string, "", NULL);
      return bpi_report_fail_path(ps, &path, "empty measure name");
    }
    bp_code rc = bmf_measure(ps, b, j->string, m);
    if(rc)
      return rc;
  }
  return bmf_dup_measures(ps, b);
}

static bp_code bmf_dup_benches(struct parse *ps)
{
  const struct bp_report *r = &ps->out;
  if(r->nbenches < 2)
    return BP_OK;
  struct key *keys = malloc(r->nbenches * sizeof(*keys));
  if(!keys)
    return bpi_err_set(ps->err, BPE_NOMEM, 0, "reading %s", ps->origin);
  for(size_t i = 0; i < r->nbenches; i++)
    keys[i] = (struct key){r->benches[i].name, i};
  const char *dup = first_repeat(keys, r->nbenches);
  bp_code rc = BP_OK;
  if(dup) {
    struct text path = {.len = 0}, name = {.len = 0};
    bpi_report_show_quoted(&name, dup);
    rc = bpi_report_fail_path(ps, &path, "duplicate benchmark %s", name.s);
  }
  free(keys);
  return rc;
}

static bp_code bmf_build(struct parse *ps, const cJSON *root)
{
  struct text top = {.len = 0};
  const cJSON *j;
  if(!cJSON_IsObject(root))
    return bpi_report_fail_path(ps, &top,
                                "expected an object of benchmarks, got %s",
                                bpi_report_type_name(root));
  cJSON_ArrayForEach(j, root) {
    bp_code rc = bmf_bench(ps, j);
    if(rc)
      return rc;
  }
  return bmf_dup_benches(ps);
}

bp_code bpi_report_parse_bmf(struct bp_report *r, const char *json,
                             size_t len, const char *origin,
                             struct bp_err *err)
{
  struct parse ps = {.origin = origin ? origin : "input", .err = err};
  cJSON *root = NULL;
  if(!r || (!json && len))
    return bpi_err_set(err, BPE_INVAL, 0, "no report or no input");
  bpi_report_init(&ps.out);
  bp_code rc = bpi_report_parse_json(&ps, json ? json : "", len, false, &root);
  if(!rc)
    rc = bmf_build(&ps, root);
  if(!rc)
    rc = bpi_report_commit(r, &ps.out);
  if(rc == BPE_NOMEM)
    bpi_err_set(err, rc, 0, "reading %s", ps.origin);
  bpi_report_cleanup(&ps.out);
  cJSON_Delete(root);
  return rc;
}
