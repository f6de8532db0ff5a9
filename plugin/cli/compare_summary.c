/* The summary of a comparison on stderr, shared by `benchprof compare` and
 * `benchprof run` on a pull request: per changed benchmark (confirmed or
 * not) the change its verdict rests on and the function that explains
 * it; and the gate (--fail-on-regression).  Names are the
 * benchmark's own: control characters are cleaned before they reach a
 * terminal or a CI log (where a line may be read as a command). */
#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"

#include "buf.h"
#include "compare.h"
#include "compare_pr.h"
#include "config.h"
#include "profile.h"
#include "rundir.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

/* A regression is explained by what grew, an improvement by what shrank
 * (confirmed or not). */
static const char *top_verb(const struct bp_cmp_bench *b)
{
  return bpi_compare_worse(b) ? "grew" : "shrank";
}

static const char *flag_name(const struct bp_cmp_bench *b)
{
  return bpi_compare_verdict(b);
}

int bp_cli_gate(bool fail_on_regression, const struct bp_cmp *c, int status)
{
  if(!fail_on_regression || !c || !c->nregressions || status)
    return status;
  bp_msg_error("%zu confirmed regression%s (--fail-on-regression): exit "
               "status %d", c->nregressions, c->nregressions == 1 ? "" : "s",
               BP_EXIT_REGRESSION);
  return BP_EXIT_REGRESSION;
}

/* A suite of thousands of benchmarks would print a line for each in a
 * CI log; the first ones (compare's order: the ones that decide first)
 * are printed, and compare.json has them all. */
#define SUMMARY_LINES 20

/* Which side lacks its profile, in words. */
static const char *missing_side(const struct bp_cmp_bench *b)
{
  bool base = b->base.state != BP_CMP_PROFILED;
  bool head = b->head.state != BP_CMP_PROFILED;
  return base && head ? "both sides" : base ? "the base" : "the head";
}

/* The benchmarks compared by their measures only: a side had no profile
 * of them (the comment says which, and why). */
static void say_missing(const struct bp_cmp *c)
{
  struct bp_buf name;
  size_t shown = 0, more = 0;
  bpi_buf_init(&name);
  for(size_t i = 0; i < c->nbenches; i++) {
    const struct bp_cmp_bench *b = &c->benches[i];
    if(!bpi_compare_profile_missing(b))
      continue;
    if(shown == SUMMARY_LINES) {
      more++;
      continue;
    }
    shown++;
    bpi_buf_reset(&name);
    bpi_profile_clean_name(&name, b->name, '\0');
    if(bpi_buf_failed(&name))
      break;
    bp_msg_warn("%s: no profile on %s: its measures are compared, its "
                "functions are not", name.data, missing_side(b));
  }
  if(more)
    bp_msg_warn("... and %zu more benchmark%s without a profile on a side",
                more, more == 1 ? "" : "s");
  bpi_buf_cleanup(&name);
}

/* A function's name for a terminal, " (kernel)" after a kernel
 * function's (the comment's mark). */
static void add_func_name(struct bp_buf *fn, const struct bp_cmp_func *f)
{
  bpi_profile_clean_name(fn, f->name, '\0');
  if(f->kernel)
    bpi_buf_adds(fn, " (kernel)");
}

/* "; the machine's interrupt handling grew by ...": said where it
 * changed, as it is never the function named (docs/verdicts.md). */
static void say_interrupts(struct bp_buf *fn, const struct bp_cmp_bench *b)
{
  const struct bp_cmp_func *f = bpi_compare_interrupts(b);
  if(!f)
    return;
  if(b->has_cost) {
    bpi_buf_printf(fn, "; the machine's interrupt handling (kernel) %s by ",
                   f->d_self_cost > 0 ? "grew" : "shrank");
    bpi_compare_add_cost(fn, b->unit, f->d_self_cost, true);
    bpi_buf_adds(fn, " ± ");
    bpi_compare_add_cost(fn, b->unit, f->self_half, false);
    bpi_buf_printf(fn, " per %s", bpi_compare_cost_per(b));
  }
  else
    bpi_buf_printf(fn, "; the machine's interrupt handling (kernel) moved "
                   "by %+.2f points of the samples", f->d_self);
  bpi_buf_adds(fn, ", which the benchmark does not control");
}

/* "none named" and, shortly, why: what the comment's line on it says
 * (docs/verdicts.md, "Functions"), so that a missing name is not read as
 * "no function changed". */
static void say_none_named(struct bp_buf *fn, const struct bp_cmp_bench *b)
{
  const struct bp_cmp_func *f;
  enum bp_cmp_no_func why = bpi_compare_no_func_why(b, bpi_compare_worse(b),
                                                    &f);
  bpi_buf_adds(fn, "none named (");
  switch(why) {
  case BP_CMP_NO_FUNC_DOMINANT:
    bpi_buf_adds(fn, "the change is spread over ");
    add_func_name(fn, f);
    bpi_buf_adds(fn, ", which holds most of the samples");
    break;
  case BP_CMP_NO_FUNC_SAMPLES:
    bpi_buf_printf(fn, "too few samples: %" PRIu64 " in the base's "
                   "profile, %" PRIu64 " in the head's", b->base.samples,
                   b->head.samples);
    break;
  case BP_CMP_NO_FUNC_SHARES:
    bpi_buf_adds(fn, "no function's share of the samples changed");
    break;
  case BP_CMP_NO_FUNC_UNCHANGED:
    bpi_buf_adds(fn, "no function's cost changed");
    break;
  case BP_CMP_NO_FUNC_SAMPLING:
    bpi_buf_printf(fn, "no change beyond the sampling's own noise: %"
                   PRIu64 " samples in the base's profile, %" PRIu64
                   " in the head's", b->base.samples, b->head.samples);
    break;
  case BP_CMP_NO_FUNC_BAND:
    bpi_buf_adds(fn, "no change beyond this benchmark's noise band: ");
    bpi_compare_band_text(&b->band, fn);
    break;
  }
  bpi_buf_addc(fn, ')');
}

void bp_cli_compare_benches(const struct bp_cmp *c)
{
  struct bp_buf name, fn, slug;
  size_t shown = 0, more = 0;
  bpi_buf_init(&name);
  bpi_buf_init(&fn);
  bpi_buf_init(&slug);
  for(size_t i = 0; i < c->nbenches; i++) {
    const struct bp_cmp_bench *b = &c->benches[i];
    if(b->presence != BP_CMP_BOTH || !b->max_slug)
      continue;
    if(shown == SUMMARY_LINES) {
      more++;
      continue;
    }
    shown++;
    const struct bp_cmp_func *top = bpi_compare_top_func(b,
      bpi_compare_worse(b));
    bool missing = bpi_compare_profile_missing(b);
    bpi_buf_reset(&name);
    bpi_buf_reset(&fn);
    bpi_buf_reset(&slug);
    bpi_profile_clean_name(&name, b->name, '\0');
    bpi_profile_clean_name(&slug, b->max_slug ? b->max_slug : "-", '\0');
    if(missing)
      bpi_buf_printf(&fn, "no function comparison (no profile on %s)",
                     missing_side(b));
    else if(b->shared_profile)   /* the whole run's: no one benchmark's */
      bpi_buf_adds(&fn, "no functions of its own (its profile is the whole "
                   "run's, shared with other benchmarks)");
    else {
      bpi_buf_printf(&fn, "function that %s most: ", top_verb(b));
      if(top)
        add_func_name(&fn, top);
      else
        say_none_named(&fn, b);
      say_interrupts(&fn, b);
    }
    if(bpi_buf_failed(&name) || bpi_buf_failed(&fn) || bpi_buf_failed(&slug))
      break;
    if(isnan(b->max_pct))
      bp_msg_note("  %s: %s from 0 (%s); %s", name.data, slug.data,
                  flag_name(b), fn.data);
    else
      bp_msg_note("  %s: %s %+.2f%% (%s); %s", name.data, slug.data,
                  b->max_pct, flag_name(b), fn.data);
  }
  say_missing(c);
  if(more)
    bp_msg_note("  ... and %zu more changed benchmark%s (" BP_FILE_COMPARE_JSON
                " lists every one)", more, more == 1 ? "" : "s");
  bpi_buf_cleanup(&name);
  bpi_buf_cleanup(&fn);
  bpi_buf_cleanup(&slug);
}

/* The store refused the credentials: which ones to check. */
static void say_refused(const struct bp_store *st,
                        const struct bp_config *cfg, int token_set)
{
  if(!strncmp(bpi_store_url(st), "s3://", 5)) {
    bp_msg_note("compare: check the store's AWS credentials "
                "($AWS_ACCESS_KEY_ID, $AWS_SECRET_ACCESS_KEY, "
                "$AWS_SESSION_TOKEN) and that they may read and list the "
                "bucket (without s3:ListBucket, S3 answers 403, not 404, "
                "for an object that is not there)");
    return;
  }
  const char *var = cfg && cfg->store.token_env ? cfg->store.token_env
                                                : "BENCHPROF_STORE_TOKEN";
  if(token_set == 0)
    bp_msg_note("compare: no token was sent: $%s is not set%s", var,
                cfg && cfg->store.token_env ? " (store.token_env)" :
                " (or store.token_env names another variable)");
  else
    bp_msg_note("compare: check the store's token in $%s%s: the store "
                "refused it", var, cfg && cfg->store.token_env ?
                " (store.token_env)" : "");
}

void bp_cli_say_base_unread(const struct bp_pr_result *r,
                            const struct bp_store *st,
                            const struct bp_config *cfg, int token_set,
                            bool as_error, const char *out)
{
  struct bp_buf where;
  bpi_buf_init(&where);
  if(st)
    bpi_store_where(st, &where);
  bpi_buf_addc(&where, '\0');
  const char *host = bpi_buf_failed(&where) ? "?" : where.data;
  /* compare fails on it (an error), run goes on (a warning) unless
   * strict */
  void (*say)(const char *, ...) = as_error ? bp_msg_error : bp_msg_warn;
  if(r->base_refused)
    say("compare: the base could not be read: the store at %s refused the "
        "credentials (HTTP %ld; a configuration error, not a missing "
        "base): %s", host, r->base_status, r->base_unread);
  else
    say("compare: the base could not be read from the store at %s (%s; "
        "it may well be there): %s", host,
        r->base_status >= 400 && r->base_status <= 499
          ? "the store answered with an error"
          : r->base_error == BPE_IO && !r->base_status ? "a file error"
          : "the store is unreachable", r->base_unread);
  if(r->base_refused && st)
    say_refused(st, cfg, token_set);
  bp_msg_note("compare: so no pull request comment is written or updated "
              "this time (%s/" BP_FILE_NO_COMMENT " says why; the one "
              "posted before stays): re-run the job, or 'benchprof "
              "compare' with the same store, once %s", out,
              r->base_refused ? "the store's credentials are fixed"
                              : "the store answers");
  bpi_buf_cleanup(&where);
}
