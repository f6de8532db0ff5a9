/* compare_offcpu: the off-CPU part of a comparison (both sides recorded
 * with --off-cpu).  A measure "off-cpu", the ns a run spent blocked (from
 * summary.json: preempted time follows the machine's load, not the
 * benchmark), judged by the same rules as every measure, and the waiting
 * stack whose blocked time per run changed most (profile.offcpu.folded,
 * its kernel frames left out: the way into the scheduler is the same for
 * every wait), so a benchmark slower because it waits longer names what
 * it waits in. */
#include "bp_setup.h"
#include "compare_int.h"
#include "err.h"
#include "export.h"

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
 * st; false when it has none (recorded without --off-cpu) or on error. */
static bool read_off_cpu(struct stacks *st, int which, const struct side *s,
                         const char *name, bp_code *rc, struct bp_err *err)
{
  const char *f = artifact(s, name, BP_KIND_OFFCPU_FOLDED);
  if(!f)
    return false;
  struct bp_buf path;
  bpi_buf_init(&path);
  bpi_buf_printf(&path, "%s/%s", s->dir, f);
  *rc = bpi_buf_failed(&path) ? bpi_err_set(err, BPE_NOMEM, 0, "compare")
                              : bpi_cmp_read_folded(st, which, path.data, err);
  bpi_buf_cleanup(&path);
  return !*rc;
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

/* The blocked stack whose ns per run changed most. */
static bp_code top_wait(struct bp_cmp_bench *cb, const struct stacks *st,
                        double rb, double rh)
{
  double best = 0;
  for(size_t i = 1; i < st->text.count; i++) {
    const char *text = bpi_strtab_get(&st->text, (uint32_t)i);
    double b = (double)st->count[0][i] * rb, h = (double)st->count[1][i] * rh;
    if(preempted_line(text) || absd(h - b) <= best)
      continue;  /* runnable, not waiting: the machine's load */
    best = absd(h - b);
    free(cb->off_stack);
    cb->off_stack = user_part(text);
    cb->off_base_ns = b;
    cb->off_head_ns = h;
    if(!cb->off_stack)
      return BPE_NOMEM;
  }
  return BP_OK;
}

/* The measure "off-cpu", appended to cb's measures and judged. */
static bp_code add_measure(struct bp_cmp_bench *cb, const struct side *base,
                           const struct side *head, double threshold)
{
  double bb = bpi_cmp_off_cpu_blocked_ns(base->dir,
                                         artifact(base, cb->name,
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
  *m = (struct bp_cmp_measure){.slug = strdup("off-cpu"),
                               .in_base = bb >= 0, .in_head = hb >= 0,
                               .base = bb / cb->base.runs,
                               .head = hb / cb->head.runs};
  if(!m->slug)
    return BPE_NOMEM;
  cb->nmeasures++;
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
  if(read_off_cpu(&st, 0, base, cb->name, &rc, err) &&
     read_off_cpu(&st, 1, head, cb->name, &rc, err)) {
    rc = add_measure(cb, base, head, threshold);
    if(!rc)  /* folded microseconds -> ns per run */
      rc = top_wait(cb, &st, 1e3 / cb->base.runs, 1e3 / cb->head.runs);
    if(rc)
      rc = bpi_err_set(err, rc, 0, "compare: off-CPU time");
  }
  bpi_strtab_cleanup(&st.text);
  free(st.count[0]);
  free(st.count[1]);
  return rc;
}
