/* compare, measures: one benchmark's BMF measures on both sides -> each
 * measure's change and verdict (repetitions: Mann-Whitney U and the
 * interval of the ratio; bounds: intervals that do not overlap; Bencher's
 * alerts), and the measure that gives the benchmark its verdict. */
#include "bp_setup.h"
#include "compare_int.h"
#include "bencher.h"
#include "stats.h"
#include "text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

const char *bpi_compare_verdict(const struct bp_cmp_bench *b)
{
  if(b->flag)
    return b->flag == BP_CMP_REGRESSION ? "regression" : "improvement";
  if(b->wall_only)
    return b->wall_only == BP_CMP_REGRESSION ? "slower in wall time only" :
           "faster in wall time only";
  if(b->unconfirmed)
    return b->unconfirmed == BP_CMP_REGRESSION ? "unconfirmed regression" :
           "unconfirmed improvement";
  return "unchanged";
}

bool bpi_compare_worse(const struct bp_cmp_bench *b)
{
  if(b->flag)
    return b->flag == BP_CMP_REGRESSION;
  if(b->wall_only)
    return b->wall_only == BP_CMP_REGRESSION;
  return b->unconfirmed == BP_CMP_REGRESSION;
}

static bool has_reps(const struct bp_cmp_values *v)
{
  return v->reps && v->nreps >= 2;
}

/* Whether the change's whole interval lies beyond the threshold, on the
 * side of the change. Separating the two sides is not enough: repetitions
 * of one job share that job's machine state (load, frequency, caches), so
 * two runs of the same code often separate by a percent or two. What is
 * confirmed is that the change itself exceeds the threshold. */
static bool interval_beyond(const struct bp_cmp_measure *m, double threshold)
{
  return m->has_interval && ((m->delta > 0 && m->pct_lo > threshold) ||
                             (m->delta < 0 && m->pct_hi < -threshold));
}

/* Repetitions on both sides: Mann-Whitney's p and the 99% interval of the
 * ratio head/base. */
static bool judge_repeats(struct bp_cmp_measure *m, double threshold)
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
  return interval_beyond(m, threshold);
}

/* Bounds on both sides: the change's interval runs between their far
 * ends; from a base of 0 (no percentage) the bounds must not overlap. */
static bool judge_bounds(struct bp_cmp_measure *m, double threshold)
{
  const struct bp_cmp_values *b = &m->vbase, *h = &m->vhead;
  m->basis = BP_CMP_BOUNDS;
  if(m->base == 0)
    return (h->lower > b->upper && m->delta > 0) ||
           (h->upper < b->lower && m->delta < 0);
  m->has_interval = true;
  m->pct_lo = 100 * (h->lower - b->upper) / absd(m->base);
  m->pct_hi = 100 * (h->upper - b->lower) / absd(m->base);
  return interval_beyond(m, threshold);
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
  bool confirmed = false;
  if(has_reps(&m->vbase) && has_reps(&m->vhead))
    confirmed = judge_repeats(m, threshold_pct);
  else if(m->vbase.has_bounds && m->vhead.has_bounds)
    confirmed = judge_bounds(m, threshold_pct);
  if(confirmed)
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

/* Whether m was tested against spread: repetitions with an interval,
 * bounds on both sides, or Bencher's alert. */
static bool tested(const struct bp_cmp_measure *m)
{
  return m->in_base && m->in_head &&
         (m->has_interval || m->basis == BP_CMP_BOUNDS ||
          m->basis == BP_CMP_BENCHER);
}

bool bpi_compare_outweighed(const struct bp_cmp_bench *cb,
                            const struct bp_cmp_measure *m)
{
  if(!m->unconfirmed || m->basis != BP_CMP_SINGLE)
    return false;
  for(size_t i = 0; i < cb->nmeasures; i++)
    if(tested(&cb->measures[i]))
      return true;
  return false;
}

/* A measure's rank among equal changes for the headline, lower first:
 * the harness's own time or rate is what its user reads, a counter of
 * the profiled process next, page faults and off-CPU time (the
 * process's start, the machine's load) last. */
static int headline_rank(const char *slug)
{
  if(!strcmp(slug, "latency") || !strcmp(slug, "throughput"))
    return 0;
  if(strstr(slug, "faults") || !strcmp(slug, BP_OFF_CPU_SLUG))
    return 2;
  return 1;
}

/* Whether m is a better pick than best for the benchmark's headline:
 * larger |pct|, a change from 0 largest of all; of equal ones, the
 * better ranked (headline_rank).  Page faults and off-CPU time head only
 * where no time or CPU counter of the verdict's kind does, whatever
 * their size: per iteration, page faults are mostly the process's start
 * divided among the iterations, so a benchmark slow enough for half the
 * iterations shows them +100% (a 2x slowdown headed "page-faults
 * +134%" sends its reader after memory, not the code that slowed). */
static bool larger_change(const struct bp_cmp_measure *m,
                          const struct bp_cmp_measure *best)
{
  if(!best)
    return true;
  bool m_last = headline_rank(m->slug) == 2;
  if(m_last != (headline_rank(best->slug) == 2))
    return !m_last;
  bool tie = isnan(best->pct) ? isnan(m->pct) :
             !isnan(m->pct) && absd(m->pct) == absd(best->pct);
  if(tie)
    return headline_rank(m->slug) < headline_rank(best->slug);
  if(isnan(best->pct))
    return false;
  return isnan(m->pct) || absd(m->pct) > absd(best->pct);
}

const struct bp_cmp_measure *bpi_compare_on_both(
  const struct bp_cmp_bench *cb, const char *slug)
{
  for(size_t i = 0; i < cb->nmeasures; i++)
    if(cb->measures[i].in_base && cb->measures[i].in_head &&
       !strcmp(cb->measures[i].slug, slug))
      return &cb->measures[i];
  return NULL;
}

/* The same, to mark it: cb's measures are its own to change. */
static struct bp_cmp_measure *on_both(struct bp_cmp_bench *cb,
                                      const char *slug)
{
  return (struct bp_cmp_measure *)bpi_compare_on_both(cb, slug);
}

/* Mark latency's confirmed change as wall time only (bp_cmp_measure
 * .wall_only) when the CPU time did not follow it: the machine's load
 * differs between the base's job and the head's, and repetitions within
 * one side cannot see that drift, so on a shared runner an unchanged
 * benchmark's latency is confirmed 20-50% slower while task-clock moves
 * 1%.  Unless the waiting is shown to be the code's: off-cpu (blocked
 * time, preemption left out) confirmed the same way.  Not at all when
 * the owner counts wall time (comment.wall_time_only "regression"). */
static void mark_wall_only(struct bp_cmp_bench *cb)
{
  for(size_t i = 0; i < cb->nmeasures; i++)
    cb->measures[i].wall_only = BP_CMP_UNCHANGED;
  struct bp_cmp_measure *wall = on_both(cb, "latency");
  const struct bp_cmp_measure *off = on_both(cb, BP_OFF_CPU_SLUG);
  double wall_ns, cpu_ns;
  if(cb->wall_time_counted || !wall ||
     !bpi_compare_waited(cb, &wall_ns, &cpu_ns))
    return;
  if(off && off->flag == wall->flag)
    return;   /* the code's own waiting: the verdict stands */
  wall->wall_only = wall->flag;
}

/* Whether m's confirmed change counts in the benchmark's verdict. */
static bool counted(const struct bp_cmp_measure *m)
{
  return m->flag && !m->wall_only;
}

/* The measure that gives the benchmark's verdict, its polarity the
 * verdict's own: the largest regression, else the largest improvement,
 * else the largest wall-time-only change (slower first), else the
 * largest unconfirmed change of the worst kind (one value a side counts
 * for nothing where another measure was tested). */
void bpi_cmp_pick_max(struct bp_cmp_bench *cb)
{
  const struct bp_cmp_measure *best = NULL;
  mark_wall_only(cb);
  cb->flag = cb->wall_only = cb->unconfirmed = BP_CMP_UNCHANGED;
  for(size_t i = 0; i < cb->nmeasures; i++) {
    const struct bp_cmp_measure *m = &cb->measures[i];
    if(counted(m) && m->flag == BP_CMP_REGRESSION)
      cb->flag = BP_CMP_REGRESSION;
    else if(counted(m) && cb->flag != BP_CMP_REGRESSION)
      cb->flag = BP_CMP_IMPROVEMENT;
    if(m->wall_only && cb->wall_only != BP_CMP_REGRESSION)
      cb->wall_only = m->wall_only;
    if(BP_CMP_UNCONFIRMED(m) && !bpi_compare_outweighed(cb, m) &&
       cb->unconfirmed != BP_CMP_REGRESSION)
      cb->unconfirmed = m->change;
  }
  if(cb->flag)
    cb->wall_only = BP_CMP_UNCHANGED;
  if(cb->flag || cb->wall_only)
    cb->unconfirmed = BP_CMP_UNCHANGED;
  for(size_t i = 0; i < cb->nmeasures; i++) {
    const struct bp_cmp_measure *m = &cb->measures[i];
    bool fits = cb->flag ? counted(m) && m->flag == cb->flag :
                cb->wall_only ? m->wall_only == cb->wall_only :
                cb->unconfirmed && BP_CMP_UNCONFIRMED(m) &&
                !bpi_compare_outweighed(cb, m) &&
                m->change == cb->unconfirmed;
    if(fits && larger_change(m, best))
      best = m;
  }
  cb->max = best;
  cb->max_slug = best ? best->slug : NULL;
  cb->max_pct = best ? best->pct : 0;
}

double bpi_compare_change_size(const struct bp_cmp_measure *m)
{
  if(isnan(m->pct))
    return m->delta != 0 ? INFINITY : 0;
  return absd(m->pct);
}

/* The key measure among cb's measures on both sides whose
 * follows_iterations is follows. */
static const struct bp_cmp_measure *key_among(const struct bp_cmp_bench *cb,
                                              bool follows)
{
  const struct bp_cmp_measure *best = NULL;
  for(size_t i = 0; i < cb->nmeasures; i++) {
    const struct bp_cmp_measure *m = &cb->measures[i];
    if(!m->in_base || !m->in_head || bpi_compare_outweighed(cb, m) ||
       m->follows_iterations != follows)
      continue;
    if(!best || (m->change && !best->change) ||
       (!m->change == !best->change &&
        bpi_compare_change_size(m) > bpi_compare_change_size(best)))
      best = m;
  }
  return best;
}

const struct bp_cmp_measure *bpi_compare_key_measure(
  const struct bp_cmp_bench *cb)
{
  if(cb->max)
    return cb->max;
  /* a change the iteration counts made is shown only when nothing else
   * is: it says nothing of the code */
  const struct bp_cmp_measure *best = key_among(cb, false);
  return best ? best : key_among(cb, true);
}

/* Latency and task-clock both ns: per run, or both per iteration where
 * the counters are (run_outputs.c); one value a side has no interval,
 * so a single run's task-clock bounds nothing.  Percentages would not
 * do: task-clock's base covers the whole process, latency's often only
 * the harness's timed loop.  A task-clock that is a confirmed regression
 * too does not rule the waiting out: +38 us of CPU beside +453 us of
 * latency leaves most of the rise off the CPU. */
bool bpi_compare_waited(const struct bp_cmp_bench *cb, double *wall_ns,
                        double *cpu_ns)
{
  const struct bp_cmp_measure *wall = bpi_compare_on_both(cb, "latency");
  const struct bp_cmp_measure *cpu = bpi_compare_on_both(cb, "task-clock");
  if(!wall || !cpu || !wall->flag || !wall->has_interval ||
     !cpu->has_interval)
    return false;
  if(wall->flag == BP_CMP_REGRESSION) {
    *wall_ns = wall->pct_lo / 100 * absd(wall->base);
    *cpu_ns = cpu->pct_hi / 100 * absd(cpu->base);
  }
  else {   /* the mirror: the least latency fell, the most CPU time did */
    *wall_ns = -wall->pct_hi / 100 * absd(wall->base);
    *cpu_ns = -cpu->pct_lo / 100 * absd(cpu->base);
  }
  /* most of latency's least change is beyond what the CPU can have made */
  return *wall_ns > 0 && *cpu_ns < *wall_ns / 2;
}

/* Whether the measure slug of a side is per benchmark iteration: Google
 * Benchmark's latency (the real time of one iteration) and, where the
 * side counted its task-clock, the counters, divided by the iterations
 * that task-clock covers (run_outputs.c).  Throughput is a rate, and
 * off-CPU time is per run. */
static bool side_per_iteration(const struct bp_cmp_profile *p, bool has,
                               bool has_task_clock, const char *slug)
{
  if(!has || !(p->iteration_cpu_ns > 0) || !strcmp(slug, "throughput") ||
     !strcmp(slug, BP_OFF_CPU_SLUG))
    return false;
  return !strcmp(slug, "latency") || has_task_clock;
}

/* Counters a process counts mostly once, at its start (the dynamic
 * loader's and the harness's page faults): per iteration they are that
 * start divided among the iterations. */
static bool counted_once(const char *slug)
{
  return strstr(slug, "faults") != NULL;
}

/* Whether m, such a counter per iteration on both sides, changed the way
 * the two iteration counts push it: fewer iterations on the head share
 * the start among fewer (more per iteration), more among more.  The
 * counts must differ beyond the threshold, as a change must; one that
 * goes against them is the process's own and is judged. */
static bool follows_iterations(const struct bp_cmp_bench *cb,
                               const struct bp_cmp_measure *m,
                               double threshold)
{
  double bi = cb->base.harness_iterations, hi = cb->head.harness_iterations;
  if(!m->per_iteration || !counted_once(m->slug) || !m->in_base ||
     !m->in_head || !(bi > 0) || !(hi > 0))
    return false;
  if(absd(100 * (hi - bi) / bi) <= threshold)
    return false;
  return hi < bi ? m->delta > 0 : m->delta < 0;
}

void bpi_cmp_measures_per_iteration(struct bp_cmp_bench *cb,
                                    double threshold)
{
  const struct bp_cmp_measure *tc = NULL;
  for(size_t i = 0; i < cb->nmeasures; i++)
    if(!strcmp(cb->measures[i].slug, "task-clock"))
      tc = &cb->measures[i];
  for(size_t i = 0; i < cb->nmeasures; i++) {
    struct bp_cmp_measure *m = &cb->measures[i];
    bool b = side_per_iteration(&cb->base, m->in_base, tc && tc->in_base,
                                m->slug);
    bool h = side_per_iteration(&cb->head, m->in_head, tc && tc->in_head,
                                m->slug);
    /* both sides alike, or the one side that has it */
    m->per_iteration = (b || !m->in_base) && (h || !m->in_head) &&
                       (m->in_base || m->in_head);
    m->follows_iterations = follows_iterations(cb, m, threshold);
    if(m->follows_iterations) {
      m->flag = m->change = BP_CMP_UNCHANGED;
      m->unconfirmed = false;
    }
  }
  bpi_cmp_pick_max(cb);
}

/* Measures in base's order, then those only head has. */
bp_code bpi_cmp_bench_measures(struct bp_cmp_bench *cb,
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
    bpi_cmp_pick_max(cb);
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
bp_code bpi_cmp_bench_bencher(const struct bp_cmp *c, struct bp_cmp_bench *cb,
                             const struct side *head)
{
  const struct bp_manifest_bench *mb = bpi_manifest_bench(&head->manifest,
                                                        cb->name);
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
  bpi_cmp_pick_max(cb);
  return BP_OK;
}

/* Measures in nanoseconds (Bencher's latency, the task-clock counter). */
static bool is_time(const char *slug)
{
  return !strcmp(slug, "latency") || !strcmp(slug, "task-clock") ||
         !strcmp(slug, "cpu-clock") || !strcmp(slug, "off-cpu");
}

/* x with four significant digits, never in e-notation, which reads as
 * code in a comment: a page-fault count per iteration is "0.00007839",
 * not "7.839e-05"; past the last unit, "12345 s". */
static void add_plain_number(struct bp_buf *b, double x, bool sign)
{
  char text[330];   /* %.0f of the largest double: 309 digits */
  double a = absd(x);
  if(a == 0 || !isfinite(a) || (a >= 1e-4 && a < 9999.5)) {
    bpi_buf_printf(b, sign ? "%+.4g" : "%.4g", x);
    return;
  }
  int decimals = a >= 1 ? 0 : 3 - (int)floor(log10(a));
  if(decimals > 15)
    decimals = 15;   /* beyond any count's precision: it reads as 0 */
  snprintf(text, sizeof(text), sign ? "%+.*f" : "%.*f", decimals, x);
  size_t n = strlen(text);
  while(decimals && n && text[n - 1] == '0')
    n--;   /* as %g: no trailing zeros */
  if(n && text[n - 1] == '.')
    n--;
  bpi_buf_printf(b, "%.*s", (int)n, text);
}

void bpi_compare_add_value(struct bp_buf *b, const char *slug, double v,
                           bool sign)
{
  static const char *const time_units[] = {"ns", "\xc2\xb5s", "ms", "s"};
  static const char *const si[] = {"", "k", "M", "G", "T"};
  bool time = is_time(slug);
  const char *const *units = time ? time_units : si;
  size_t nunits = time ? 4 : 5, u = 0;
  double a = absd(v);
  while(u + 1 < nunits && a >= 1000) {
    a /= 1000;
    u++;
  }
  add_plain_number(b, v < 0 ? -a : a, sign);
  if(time)
    bpi_buf_printf(b, " %s", units[u]);
  else
    bpi_buf_adds(b, units[u]);
  if(!strcmp(slug, "throughput"))
    bpi_buf_adds(b, " ops/s");
}

void bpi_compare_add_cost(struct bp_buf *b, const char *unit, double v,
                          bool sign)
{
  bpi_compare_add_value(b, unit && !strcmp(unit, "ns") ? "latency"
                                                       : "events", v, sign);
}
