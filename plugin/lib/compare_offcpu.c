/* compare_offcpu: the off-CPU part of a comparison (both sides recorded
 * with --off-cpu).  A measure "off-cpu", the ns a run spent blocked (from
 * summary.json: preempted time follows the machine's load, not the
 * benchmark), judged by the same rules as every measure, and the waiting
 * stack whose blocked time per run changed most (profile.offcpu.folded,
 * its kernel frames left out: the way into the scheduler is the same for
 * every wait), so a benchmark slower because it waits longer names what
 * it waits in: named only beyond the off-CPU noise band, what the
 * measure's own noise could make of the stack's base time (as functions
 * are, docs/verdicts.md), so a wait moved by the scheduler is not. */
#include "bp_setup.h"
#include "compare_int.h"
#include "err.h"
#include "export.h"
#include "rundir.h"
#include "text.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The file of the given kind among benchmark name's artifacts on side s
 * (checked to stay in the run directory), or NULL. */
static const char *artifact(const struct side *s, const char *name,
                            const char *kind)
{
  const struct bp_manifest_bench *mb = bpi_manifest_bench(&s->manifest,
                                                          name);
  const struct bp_manifest_artifact *a =
    mb ? bpi_manifest_artifact(mb->arts, mb->narts, kind) : NULL;
  return a && bpi_rundir_safe_path(a->file) ? a->file : NULL;
}

/* The off-CPU folded stacks (microseconds) of one side's benchmark into
 * st; false when it has none (recorded without --off-cpu, or the file is
 * missing, as compare.c takes a missing profile) or on error. */
static bool read_off_cpu(struct stacks *st, int which, const struct side *s,
                         const char *name, bp_code *rc, struct bp_err *err)
{
  const char *f = artifact(s, name, BP_KIND_OFFCPU_FOLDED);
  struct bp_err e = {0};
  if(!f)
    return false;
  char *path = bpi_text_path_join(s->dir, f);
  *rc = !path ? bpi_err_set(&e, BPE_NOMEM, 0, "compare")
              : bpi_cmp_read_folded(st, which, path, &e);
  free(path);
  if(*rc == BPE_IO && e.sys_errno == ENOENT)
    *rc = BP_OK;
  else if(*rc)
    bpi_err_copy(err, *rc, &e);
  return !*rc && !e.code;
}

/* A waiting stack without its kernel frames (marked "_[k]"). */
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

static bool preempted_line(const char *text)
{
  size_t len = strlen(text), mark = strlen(BP_FOLDED_PREEMPTED);
  return len >= mark && !strcmp(text + len - mark, BP_FOLDED_PREEMPTED);
}

/* The blocked counts of st summed per user part (kernel frames left
 * out), preempted lines skipped: into users' strings and sums[side]. */
static bp_code sum_user_parts(const struct stacks *st, struct bp_strtab *users,
                              uint64_t *sums[2])
{
  /* every stack id of st, index 0 included: the table reserves none */
  for(size_t i = 0; i < st->text.count; i++) {
    const char *text = bpi_strtab_get(&st->text, (uint32_t)i);
    if(preempted_line(text))
      continue;  /* runnable, not waiting: the machine's load */
    char *user = user_part(text);
    uint32_t id = user ? bpi_strtab_intern(users, user) : BP_NONE;
    free(user);
    if(id == BP_NONE)
      return BPE_NOMEM;
    sums[0][id] += st->count[0][i];
    sums[1][id] += st->count[1][i];
  }
  return BP_OK;
}

/* Note stack (a user part) as cb's waiting stack with b and h ns per
 * run, and whether its change is within the off-CPU noise. */
static bp_code set_wait(struct bp_cmp_bench *cb, const char *stack, double b,
                        double h, bool within_noise)
{
  free(cb->off_stack);
  cb->off_stack = strdup(stack);
  cb->off_base_ns = b;
  cb->off_head_ns = h;
  cb->off_within_noise = within_noise;
  return cb->off_stack ? BP_OK : BPE_NOMEM;
}

/* cb's measure "off-cpu" (added by add_measure). */
static const struct bp_cmp_measure *off_measure(const struct bp_cmp_bench *cb)
{
  for(size_t i = 0; i < cb->nmeasures; i++)
    if(!strcmp(cb->measures[i].slug, BP_OFF_CPU_SLUG))
      return &cb->measures[i];
  return NULL;
}

/* The off-CPU noise band, from the measure "off-cpu" as the functions'
 * is from task-clock: {0} when its change is confirmed, its interval
 * when it has one, else (one value a side, too few repetitions) the
 * change of the whole blocked time per run, the stacks' sums[side][0..n)
 * (what off-cpu measures), the most a drift of all of it can have made
 * of each stack, unless the benchmark's verdict confirms that change. */
static void off_noise_band(struct bp_cmp_bench *cb, uint64_t *const sums[2],
                           size_t n)
{
  double total[2] = {0, 0};
  for(size_t i = 0; i < n; i++)
    for(int side = 0; side < 2; side++)
      total[side] += (double)sums[side][i] * cb->off_ns_per_us[side];
  double change = total[0] > 0 ? total[1] / total[0] - 1 : 0;
  bpi_cmp_noise_band(cb, off_measure(cb), change, BP_OFF_CPU_SLUG,
                     &cb->off_band);
  cb->has_off_band = true;
}

/* The blocked stack (its user part, whatever kernel path it waited in)
 * whose ns per run changed most beyond the off-CPU noise band; without
 * one, the one that changed most, marked within the noise.  The times
 * are measured, not sampled: the band is their only noise, but for the
 * folded file's microseconds (half a microsecond each side, rounded), so
 * that a stack holding all the blocked time, whose change is the band's
 * edge, is within it whatever the rounding. */
static bp_code top_wait(struct bp_cmp_bench *cb, const struct stacks *st)
{
  struct bp_strtab users;
  size_t n = st->text.count ? st->text.count : 1;
  uint64_t *sums[2] = {calloc(n, sizeof(uint64_t)),
                       calloc(n, sizeof(uint64_t))};
  bpi_strtab_init(&users);
  bp_code rc = sums[0] && sums[1] ? sum_user_parts(st, &users, sums)
                                  : BPE_NOMEM;
  if(!rc)
    off_noise_band(cb, sums, users.count);
  double best = 0, best_beyond = 0, total = 0;
  for(size_t i = 0; !rc && i < users.count; i++)
    total += (double)sums[0][i] * cb->off_ns_per_us[0];
  /* the microseconds' rounding, and what the band makes of all the
   * blocked time (bpi_compare_band_floor) */
  double resolution = (cb->off_ns_per_us[0] + cb->off_ns_per_us[1]) / 2 +
                      bpi_compare_band_floor(&cb->off_band, total);
  for(size_t i = 0; !rc && i < users.count; i++) {
    double b = (double)sums[0][i] * cb->off_ns_per_us[0];
    double h = (double)sums[1][i] * cb->off_ns_per_us[1];
    double d = absd(h - b);
    const char *user = bpi_strtab_get(&users, (uint32_t)i);
    if(bpi_compare_beyond_band(&cb->off_band, b, h - b, resolution)) {
      if(d > best_beyond) {
        best_beyond = d;
        rc = set_wait(cb, user, b, h, false);
      }
    }
    else if(!best_beyond && d > best) {
      best = d;
      rc = set_wait(cb, user, b, h, true);
    }
  }
  bpi_strtab_cleanup(&users);
  free(sums[0]);
  free(sums[1]);
  return rc;
}

/* Side s's blocked ns per run of each repetition (run --off-cpu
 * --repeat) into v, so that the measure is tested like the others; none
 * when fewer than two or not all numbers. */
static bp_code blocked_reps(struct bp_cmp_values *v, const struct side *s,
                            const char *name)
{
  const struct bp_manifest_bench *mb = bpi_manifest_bench(&s->manifest,
                                                          name);
  const cJSON *list = mb ? cJSON_GetObjectItemCaseSensitive(
                             mb->repetitions, BP_OFF_CPU_SLUG) : NULL, *x;
  int n = cJSON_GetArraySize(list);
  if(!cJSON_IsArray(list) || n < 2)
    return BP_OK;
  cJSON_ArrayForEach(x, list)
    if(!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || x->valuedouble < 0)
      return BP_OK;
  if(!(v->reps = malloc((size_t)n * sizeof(*v->reps))))
    return BPE_NOMEM;
  cJSON_ArrayForEach(x, list)
    v->reps[v->nreps++] = x->valuedouble;
  return BP_OK;
}

/* The base's name of cb: another when the two differ by a build hash. */
static const char *base_name_of(const struct bp_cmp_bench *cb)
{
  return cb->base_name ? cb->base_name : cb->name;
}

/* What side s's off-CPU time of benchmark name is per: the times a
 * harness marked it, as its repetitions' values (run_repeat.c). */
static double off_runs(const struct side *s, const char *name)
{
  return bpi_cmp_marked_runs(s, bpi_manifest_bench(&s->manifest, name));
}

/* The measure "off-cpu", appended to cb's measures and judged. */
static bp_code add_measure(struct bp_cmp_bench *cb, const struct side *base,
                           const struct side *head, double threshold)
{
  const char *bname = base_name_of(cb);
  double bb = bpi_cmp_off_cpu_blocked_ns(base->dir,
                                         artifact(base, bname,
                                                  BP_KIND_SUMMARY));
  double hb = bpi_cmp_off_cpu_blocked_ns(head->dir,
                                         artifact(head, cb->name,
                                                  BP_KIND_SUMMARY));
  struct bp_cmp_measure *m = realloc(cb->measures, (cb->nmeasures + 1) *
                                     sizeof(*m));
  if(!m)
    return BPE_NOMEM;
  cb->measures = m;
  m = &cb->measures[cb->nmeasures];
  *m = (struct bp_cmp_measure){.slug = strdup(BP_OFF_CPU_SLUG),
                               .in_base = bb >= 0, .in_head = hb >= 0,
                               .base = bb / off_runs(base, bname),
                               .head = hb / off_runs(head, cb->name)};
  if(!m->slug)
    return BPE_NOMEM;
  cb->nmeasures++;
  if(blocked_reps(&m->vbase, base, bname) ||
     blocked_reps(&m->vhead, head, cb->name))
    return BPE_NOMEM;
  bpi_compare_measure(m, threshold);
  bpi_cmp_pick_max(cb);
  return BP_OK;
}

bp_code bpi_cmp_bench_off_cpu(struct bp_cmp_bench *cb, const struct side *base,
                              const struct side *head, double threshold,
                              struct bp_err *err)
{
  struct stacks st = {.cap = 0};
  bp_code rc = BP_OK;
  bpi_strtab_init(&st.text);
  if(read_off_cpu(&st, 0, base, base_name_of(cb), &rc, err) &&
     read_off_cpu(&st, 1, head, cb->name, &rc, err)) {
    rc = add_measure(cb, base, head, threshold);
    if(!rc && cb->renamed_base_process)  /* as the on-CPU stacks were */
      rc = bpi_cmp_rename_root(&st, cb->renamed_base_process,
                               cb->renamed_head_process);
    /* folded microseconds -> ns per run */
    cb->off_ns_per_us[0] = 1e3 / off_runs(base, base_name_of(cb));
    cb->off_ns_per_us[1] = 1e3 / off_runs(head, cb->name);
    if(!rc)
      rc = top_wait(cb, &st);
    if(!rc && st.text.count)
      rc = bpi_cmp_stack_lines(&cb->off_lines, &cb->off_nlines, &st);
    if(rc)
      rc = bpi_err_set(err, rc, 0, "compare: off-CPU time");
  }
  bpi_cmp_stacks_cleanup(&st);
  return rc;
}
