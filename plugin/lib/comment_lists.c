/* comment, the parts about benchmarks that are not compared whole: those
 * on one side only (new, removed), listed with that side's key measures
 * and a link to its profile, so that a new benchmark's cost is seen; and
 * those a side has no profile of, compared by their measures only, with
 * the reason.  comment.c places them and decides, within the size
 * limit, whether the one-sided lists keep their values. */
#include "bp_setup.h"
#include "comment_int.h"
#include "text.h"

#include <stdlib.h>
#include <string.h>

#define MAX_LISTED 50          /* benchmarks listed by name */
#define MAX_KEY_MEASURES 3     /* measures on a one-sided benchmark's line */

/* The measures verdicts usually rest on: a one-sided benchmark's line
 * shows these first. */
static const char *const preferred[] = {"latency", "throughput",
                                        "task-clock"};

static bool is_preferred(const char *slug)
{
  for(size_t i = 0; i < BP_ARRAY_LEN(preferred); i++)
    if(!strcmp(slug, preferred[i]))
      return true;
  return false;
}

/* m's value on the side the benchmark is on, and whether it has one. */
static bool side_value(const struct bp_cmp_measure *m, bool head, double *v)
{
  *v = head ? m->head : m->base;
  return head ? m->in_head : m->in_base;
}

/* Up to MAX_KEY_MEASURES of cb's measures the side has, into shown: the
 * preferred ones, then the others in the report's order; how many. */
static size_t key_measures(const struct bp_cmp_bench *cb, bool head,
                           const struct bp_cmp_measure **shown)
{
  size_t n = 0;
  double v;
  for(size_t pass = 0; pass < 2; pass++)
    for(size_t i = 0; i < cb->nmeasures && n < MAX_KEY_MEASURES; i++) {
      const struct bp_cmp_measure *m = &cb->measures[i];
      if(is_preferred(m->slug) == !pass && side_value(m, head, &v))
        shown[n++] = m;
    }
  return n;
}

/* "per iteration: latency 30.08 µs, task-clock 11.81 µs, page-faults
 * 0.0179": the key measures' values, said once to be per iteration (a
 * task-clock is one iteration's, not the run's CPU time); a count per
 * run among them says so after its value, a rate (ops/s) by its unit. */
static void add_key_values(struct bp_buf *b, const struct bp_cmp_bench *cb,
                           bool head)
{
  const struct bp_cmp_measure *shown[MAX_KEY_MEASURES];
  size_t n = key_measures(cb, head, shown);
  bool per_iteration = false;
  double v;
  for(size_t i = 0; i < n; i++)
    per_iteration = per_iteration || shown[i]->per_iteration;
  if(!n)
    bpi_buf_adds(b, "no measures");
  else if(per_iteration)
    bpi_buf_adds(b, "per iteration: ");
  for(size_t i = 0; i < n; i++) {
    const struct bp_cmp_measure *m = shown[i];
    side_value(m, head, &v);
    bpi_buf_adds(b, i ? ", " : "");
    bpi_comment_md_text(b, m->slug, BP_COMMENT_NAME_CHARS);
    bpi_buf_addc(b, ' ');
    bpi_compare_add_value(b, m->slug, v, false);
    if(per_iteration && !m->per_iteration && strcmp(m->slug, "throughput"))
      bpi_buf_adds(b, " per run");
  }
}

bool bpi_comment_side_view(struct bp_buf *view, const struct bp_cmp_bench *cb,
                           bool head)
{
  const struct bp_cmp_profile *p = head ? &cb->head : &cb->base;
  struct bp_buf name;
  if(!bpi_text_web_url(p->gecko_url))
    return false;
  bpi_buf_init(&name);
  bpi_buf_adds(&name, head ? "head: " : "base: ");
  bpi_buf_adds(&name, cb->name);
  bpi_buf_addc(&name, '\0');
  if(!bpi_buf_failed(&name)) {
    bpi_comment_profiler_view(view, p->gecko_url, p->thread, name.data);
    bpi_buf_addc(view, '\0');
  }
  bool ok = !bpi_buf_failed(&name) && !bpi_buf_failed(view);
  bpi_buf_cleanup(&name);
  return ok;
}

/* " · [profile](view)": the Firefox Profiler view of the side's profile,
 * when it has a web URL. */
static void add_profile_link(struct bp_buf *b, const struct bp_cmp_bench *cb,
                             bool head)
{
  struct bp_buf view;
  bpi_buf_init(&view);
  if(bpi_comment_side_view(&view, cb, head)) {
    size_t mark = b->len;
    bpi_buf_adds(b, " · [profile](");
    if(bpi_comment_md_url(b, view.data))
      bpi_buf_addc(b, ')');
    else
      b->len = mark;
  }
  bpi_buf_cleanup(&view);
}

void bpi_comment_one_sided(struct bp_buf *b, const struct bp_cmp *c,
                           enum bp_cmp_presence which, bool values)
{
  bool head = which == BP_CMP_NEW;
  size_t listed = 0, total = 0;
  for(size_t i = 0; i < c->nbenches; i++) {
    const struct bp_cmp_bench *cb = &c->benches[i];
    if(cb->presence != which)
      continue;
    if(!total++)
      bpi_buf_printf(b, "%s benchmarks (not in %s)%s", head ? "New" :
                     "Removed", head ? "base" : "head", !values ? ": " :
                     head ? ", as the head measured them:\n\n" :
                     ", as the base measured them:\n\n");
    if(listed >= MAX_LISTED)
      continue;
    if(values) {
      bpi_buf_adds(b, "- **");
      bpi_comment_md_text(b, cb->name, BP_COMMENT_NAME_CHARS);
      bpi_buf_adds(b, "**: ");
      add_key_values(b, cb, head);
      add_profile_link(b, cb, head);
      if((head ? &cb->head : &cb->base)->state == BP_CMP_PROFILE_MISSING)
        bpi_buf_adds(b, " · _profile missing_");
      bpi_buf_addc(b, '\n');
    }
    else {
      bpi_buf_adds(b, listed ? ", " : "");
      bpi_comment_md_text(b, cb->name, BP_COMMENT_NAME_CHARS);
    }
    listed++;
  }
  if(total > listed)
    bpi_buf_printf(b, values ? "- and %zu more\n" : " and %zu more",
                   total - listed);
  if(total)
    bpi_buf_adds(b, values ? "\n" : "\n\n");
}

/* "the base's profile is missing" or "the base has no profile of it",
 * for the side(s) without one. */
static void add_side_why(struct bp_buf *b, const struct bp_cmp_profile *p,
                         const char *side, bool detail)
{
  if(p->state == BP_CMP_PROFILE_NONE) {
    bpi_buf_printf(b, "the %s's run has no profile of it", side);
    if(detail)
      bpi_buf_adds(b, " (a run without profiling)");
    return;
  }
  bpi_buf_printf(b, "the %s's profile is missing", side);
  if(detail && p->missing_file) {
    bpi_buf_adds(b, " (its run names ");
    bpi_comment_md_code(b, p->missing_file);
    bpi_buf_adds(b, ", which is not there: an artifact that was not "
                 "stored or copied, or that the store lost)");
  }
}

static void add_why(struct bp_buf *b, const struct bp_cmp_bench *cb,
                    bool detail)
{
  bool base = cb->base.state != BP_CMP_PROFILED;
  if(base)
    add_side_why(b, &cb->base, "base", detail);
  if(base && cb->head.state != BP_CMP_PROFILED)
    bpi_buf_adds(b, " and ");
  if(cb->head.state != BP_CMP_PROFILED)
    add_side_why(b, &cb->head, "head", detail);
}

void bpi_comment_missing_profiles(struct bp_buf *b, const struct bp_cmp *c)
{
  size_t listed = 0, total = 0;
  for(size_t i = 0; i < c->nbenches; i++) {
    const struct bp_cmp_bench *cb = &c->benches[i];
    if(!bpi_compare_profile_missing(cb))
      continue;
    if(!total++)
      bpi_buf_adds(b, "_Compared by their measures only, without a "
                   "function comparison or differential flame graph: ");
    if(listed >= MAX_LISTED)
      continue;
    bpi_buf_adds(b, listed++ ? "; " : "");
    bpi_comment_md_text(b, cb->name, BP_COMMENT_NAME_CHARS);
    bpi_buf_adds(b, " (");
    add_why(b, cb, false);
    bpi_buf_addc(b, ')');
  }
  if(total > listed)
    bpi_buf_printf(b, "; and %zu more", total - listed);
  if(total)
    bpi_buf_adds(b, "._\n\n");
}

void bpi_comment_missing_why(struct bp_buf *b, const struct bp_cmp_bench *cb)
{
  if(!bpi_compare_profile_missing(cb))
    return;
  bpi_buf_adds(b, "\n_No function comparison or differential flame graph: ");
  add_why(b, cb, true);
  bpi_buf_adds(b, "._\n");
}
