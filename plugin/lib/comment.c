/* comment: struct bp_cmp -> the pull request comment in Markdown: the
 * verdict line, the summary table, each benchmark's measures, functions
 * and links, and the cut that keeps it under the size limit.  See
 * comment.h for what the comment holds and how it is cut; the escaping
 * and URLs are comment_md.c's; forge.c posts it. */
#include "bp_setup.h"
#include "comment_int.h"
#include "err.h"
#include "rundir.h"
#include "text.h"

#include <inttypes.h>
#include <math.h>   /* isnan: a macro, no libm */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#define FLAG_RED "\xf0\x9f\x94\xb4"    /* U+1F534 red circle */
#define FLAG_GREEN "\xf0\x9f\x9f\xa2"  /* U+1F7E2 green circle */
/* a confirmed change of wall time only (bp_cmp_measure.wall_only): not
 * the red or green of a counted verdict */
#define FLAG_ORANGE "\xf0\x9f\x9f\xa0" /* U+1F7E0 orange circle */
/* Short link labels (a URL is never the text): the Firefox Profiler's
 * compare view, each side's profile, the differential flame graph. */
#define LABEL_COMPARE "Firefox Profiler"
#define LABEL_BASE "base"
#define LABEL_HEAD "head"
#define LABEL_DIFF "diff"
#define LABEL_ON_DIFF "on-CPU diff"
#define LABEL_OFF_DIFF "off-CPU diff"


/* -------------------------------------------------------------- numbers */

static void add_pct(struct bp_buf *b, double pct)
{
  if(isnan(pct))
    bpi_buf_adds(b, "from 0");
  else
    bpi_buf_printf(b, "%+.2f%%", pct);
}

static const char *flag_mark(enum bp_cmp_flag f)
{
  return f == BP_CMP_REGRESSION ? FLAG_RED " regression" :
         f == BP_CMP_IMPROVEMENT ? FLAG_GREEN " improvement" : "";
}

/* The change's interval, when it has one: ", +9.10% to +15.20%". */
static void add_interval(struct bp_buf *b, const struct bp_cmp_measure *m)
{
  if(m->has_interval)
    bpi_buf_printf(b, ", %+.2f%% to %+.2f%%", m->pct_lo, m->pct_hi);
}

/* A change beyond the threshold that the data did not confirm, in what
 * is true of it: "within noise" only when the sides cannot be told apart
 * (its interval holds 0, or it has none: bounds from a base of 0 that
 * overlap); an interval that leaves 0 out shows a change, just not one
 * that is surely beyond the threshold (docs/verdicts.md).  Either way it
 * counts as unchanged. */
static void add_not_confirmed(struct bp_buf *b, const struct bp_cmp_measure *m,
                              double threshold)
{
  if(m->has_interval && (m->pct_lo > 0 || m->pct_hi < 0))
    bpi_buf_printf(b, "not confirmed beyond %.4g%%", threshold);
  else
    bpi_buf_adds(b, "within noise");
}

/* What the verdict of m is, after its change: the flag when confirmed,
 * "unconfirmed (single run)" in italics when there was nothing to test
 * it with, "within noise" or "not confirmed beyond T%" when the test
 * could not confirm it (add_not_confirmed); Bencher's alert linked when
 * it judged. */
static void add_verdict(struct bp_buf *b, const struct bp_cmp_measure *m,
                        double threshold)
{
  if(m->wall_only)
    bpi_buf_printf(b, " " FLAG_ORANGE " %s in wall time only",
                   m->wall_only == BP_CMP_REGRESSION ? "slower" : "faster");
  else if(m->flag) {
    bpi_buf_printf(b, " %s", flag_mark(m->flag));
    if(m->alert_url) {
      size_t mark = b->len;
      bpi_buf_adds(b, " ([Bencher alert](");
      if(bpi_comment_md_url(b, m->alert_url))
        bpi_buf_adds(b, "))");
      else
        b->len = mark;
    }
  }
  else if(m->unconfirmed)
    bpi_buf_printf(b, " _unconfirmed %s (%s)_", m->change ==
                   BP_CMP_REGRESSION ? "regression" : "improvement",
                   m->basis == BP_CMP_SINGLE ? "single run" :
                   "too few repetitions");
  else if(m->change) {
    bpi_buf_addc(b, ' ');
    add_not_confirmed(b, m, threshold);
  }
}

static void add_short_hash(struct bp_buf *b, const char *hash)
{
  size_t n = hash ? strspn(hash, "0123456789abcdefABCDEF") : 0;
  if(!n || hash[n]) {
    bpi_buf_adds(b, "commit unknown");
    return;
  }
  bpi_buf_addc(b, '`');
  bpi_buf_add(b, hash, n < 7 ? n : 7);
  bpi_buf_addc(b, '`');
}

/* The size of m's change, for ordering (bpi_compare_change_size). */
static double change_size(const struct bp_cmp_measure *m)
{
  return bpi_compare_change_size(m);
}

/* The measure a benchmark's row shows; compare.json's key_measure is the
 * same one (bpi_compare_key_measure). */
static const struct bp_cmp_measure *key_measure(const struct bp_cmp_bench *cb)
{
  return bpi_compare_key_measure(cb);
}

/* Whether the benchmark's key change is beyond the threshold and judged
 * as such (confirmed, or unconfirmed for want of spread): what the cut
 * keeps longest. */
static bool beyond(const struct bp_cmp_bench *cb)
{
  return cb->flag || cb->wall_only || cb->unconfirmed;
}

/* Whether the benchmark's key change is beyond the threshold at all:
 * judged as such (beyond), or within the noise, or not confirmed beyond
 * it.  Such a change gets a line on why no function is named. */
static bool changed_beyond(const struct bp_cmp_bench *cb)
{
  const struct bp_cmp_measure *key = key_measure(cb);
  return beyond(cb) || (key && key->change);
}

/* Whether the functions that explain the benchmark's change grew: for a
 * regression, confirmed or not; without a verdict (a change within the
 * noise), when its key measure's change is a regression's. */
static bool grew_way(const struct bp_cmp_bench *cb)
{
  const struct bp_cmp_measure *key = key_measure(cb);
  if(beyond(cb) || !key)
    return bpi_compare_worse(cb);
  return key->change == BP_CMP_REGRESSION;
}

/* ------------------------------------------------------------ rendering */

/* How much of one benchmark a rendering shows; the cut lowers it. */
enum depth {
  DEPTH_NONE,        /* not even its row in the summary table */
  DEPTH_ROW,         /* its row only */
  DEPTH_DETAILS,     /* its row and details, but no function rows */
  DEPTH_ALL
};

struct render {
  const struct bp_cmp *c;
  const struct bp_comment_opts *o;
  size_t max_functions;
  struct bp_buf *b;
  /* the benchmarks on both sides, most important first: those beyond the
   * threshold (nbeyond, in the comparison's order), then the others by
   * the size of their change */
  const struct bp_cmp_bench **order;
  size_t n, nbeyond;
  bool one_sided;          /* new or removed benchmarks: one step of the
                              cut drops their values */
  size_t dropped;          /* steps of the cut taken (see depth_at) */
  bool unlinked;           /* a benchmark shown had no viewer link for
                              want of a web URL (add_no_links_note) */
};

/* The step of the cut that drops the values of the new and removed
 * benchmarks (their names stay): after the rows of the benchmarks within
 * the threshold, before anything of those beyond it; what a new
 * benchmark costs is news, an unchanged one's row is not. */
static size_t values_step(const struct render *r)
{
  return 2 * (r->n - r->nbeyond);
}

/* Whether the new and removed benchmarks keep their values. */
static bool with_values(const struct render *r)
{
  return r->dropped <= values_step(r);
}

/* How much of order[pos] is shown after r->dropped steps of the cut.
 * The steps, one benchmark each, least changed first: the details, then
 * the table rows, of the benchmarks within the threshold; the values of
 * the new and removed benchmarks (one step, values_step); then the
 * function rows, the details and last the table rows of those beyond
 * it.  A maintainer keeps why a benchmark got slower (its functions)
 * longer than the rows that say others did not change. */
static enum depth depth_at(const struct render *r, size_t pos)
{
  size_t n = r->n, k = r->nbeyond, within = n - k;
  size_t first = 2 * within + r->one_sided;  /* the first beyond's step */
  size_t row, details, funcs;
  if(pos >= k) {
    details = funcs = n - 1 - pos;
    row = within + (n - 1 - pos);
  }
  else {
    funcs = first + (k - 1 - pos);
    details = first + k + (k - 1 - pos);
    row = first + 2 * k + (k - 1 - pos);
  }
  if(r->dropped > row)
    return DEPTH_NONE;
  if(r->dropped > details)
    return DEPTH_ROW;
  return r->dropped > funcs ? DEPTH_DETAILS : DEPTH_ALL;
}

static size_t cut_steps(const struct render *r)
{
  return 2 * r->n + r->nbeyond + r->one_sided;
}

/* One benchmark's key change: **name** slug +x% (interval). */
static void add_key_change(struct bp_buf *b, const struct bp_cmp_bench *cb)
{
  bpi_buf_adds(b, "**");
  bpi_comment_md_text(b, cb->name, BP_COMMENT_NAME_CHARS);
  bpi_buf_adds(b, "** ");
  bpi_comment_md_text(b, cb->max_slug, BP_COMMENT_NAME_CHARS);
  bpi_buf_addc(b, ' ');
  add_pct(b, cb->max_pct);
  if(cb->max && cb->max->has_interval)
    bpi_buf_printf(b, " (%+.2f%% to %+.2f%%)", cb->max->pct_lo,
                   cb->max->pct_hi);
}

/* The first benchmark (they come worst first) whose key change is of
 * kind flag, confirmed or not. */
static const struct bp_cmp_bench *first_with(const struct bp_cmp *c,
                                             enum bp_cmp_flag flag,
                                             bool confirmed)
{
  for(size_t i = 0; i < c->nbenches; i++) {
    const struct bp_cmp_bench *cb = &c->benches[i];
    if(cb->presence == BP_CMP_BOTH && cb->max_slug &&
       (confirmed ? cb->flag == flag : !cb->flag && cb->unconfirmed == flag))
      return cb;
  }
  return NULL;
}

/* The notes on changes beyond the threshold that no spread tested: one
 * value on a side, too few repetitions, and a single run's change that
 * another measure's test outweighs (not counted). */
enum note { NOTE_FEW_REPS, NOTE_SINGLE, NOTE_UNCOUNTED };

/* Whether m, a single run's change in cb, is not counted: a measure of
 * cb tested against spread gives the verdict (compare_measures.c), and
 * no change was confirmed, so the title counts cb unchanged and a note
 * that calls m's change unconfirmed would read as a change the title
 * forgot.  Under a confirmed verdict the usual note stays. */
static bool uncounted(const struct bp_cmp_bench *cb,
                      const struct bp_cmp_measure *m)
{
  return bpi_compare_outweighed(cb, m) && !cb->flag;
}

/* Whether m of cb goes in note k: unconfirmed for want of spread, with
 * one value on a side (counted or not), or with repetitions too few for
 * the test. */
static bool in_note(const struct bp_cmp_bench *cb,
                    const struct bp_cmp_measure *m, enum note k)
{
  if(!m->unconfirmed || (m->basis == BP_CMP_SINGLE) == (k == NOTE_FEW_REPS))
    return false;
  return k == NOTE_FEW_REPS || uncounted(cb, m) == (k == NOTE_UNCOUNTED);
}

/* Whether m is unconfirmed for want of spread and counted: with one value
 * on a side (single), or with repetitions too few for the test
 * (!single). */
static bool short_of_spread(const struct bp_cmp_bench *cb,
                            const struct bp_cmp_measure *m, bool single)
{
  return in_note(cb, m, single ? NOTE_SINGLE : NOTE_FEW_REPS);
}

/* Whether measures[j] of benches[i] is the first measure of the note (of
 * a benchmark on both sides) with its name: each is named once. */
static bool first_named(const struct bp_cmp *c, size_t i, size_t j,
                        enum note note)
{
  const char *slug = c->benches[i].measures[j].slug;
  for(size_t k = 0; k <= i; k++) {
    const struct bp_cmp_bench *cb = &c->benches[k];
    for(size_t l = 0; cb->presence == BP_CMP_BOTH && l < cb->nmeasures &&
        (k < i || l < j); l++)
      if(in_note(cb, &cb->measures[l], note) &&
         !strcmp(cb->measures[l].slug, slug))
        return false;
  }
  return true;
}

#define NOTE_MEASURES 5   /* named in a note, the others counted */

/* The names of the measures of the note, each once, in the comparison's
 * order: "a", "a and b", "a, b and c", past NOTE_MEASURES "a, b, c, d, e
 * and 2 other measures"; how many there are. */
static size_t add_measure_names(struct bp_buf *b, const struct bp_cmp *c,
                                enum note note)
{
  const char *names[NOTE_MEASURES];
  size_t n = 0;
  for(size_t i = 0; i < c->nbenches; i++) {
    const struct bp_cmp_bench *cb = &c->benches[i];
    for(size_t j = 0; cb->presence == BP_CMP_BOTH && j < cb->nmeasures; j++)
      if(in_note(cb, &cb->measures[j], note) &&
         first_named(c, i, j, note)) {
        if(n < NOTE_MEASURES)
          names[n] = cb->measures[j].slug;
        n++;
      }
  }
  size_t shown = n < NOTE_MEASURES ? n : NOTE_MEASURES;
  for(size_t k = 0; k < shown; k++) {
    if(k)
      bpi_buf_adds(b, k + 1 < shown || n > shown ? ", " : " and ");
    bpi_comment_md_text(b, names[k], BP_COMMENT_NAME_CHARS);
  }
  if(n > shown)
    bpi_buf_printf(b, " and %zu other measure%s", n - shown,
                   n - shown == 1 ? "" : "s");
  return n;
}

#define NOTE_REPEAT 5   /* the repetitions a side the notes ask for */

/* Whether side v of a measure unconfirmed for want of spread is short
 * of it: one value (no repetitions, no bounds) when single, else fewer
 * repetitions than the notes ask for. */
static bool side_short(const struct bp_cmp_values *v, bool single)
{
  return single ? v->nreps < 2 && !v->has_bounds : v->nreps < NOTE_REPEAT;
}

/* Which side the changes unconfirmed for want of spread (single or not)
 * are short of it on: when only the base (or only the head) is, the
 * advice names that side, the other having repeated already.  few: the
 * other side of a single run repeated, but fewer times than the notes
 * ask for, so that repeating only the short side would leave a note
 * about too few repetitions; both sides are then told. */
enum short_side { SHORT_EITHER, SHORT_BASE, SHORT_HEAD };

struct short_of {
  enum short_side side;
  bool few;
};

/* Whether v repeated, but fewer times than the notes ask for. */
static bool side_few(const struct bp_cmp_values *v)
{
  return v->nreps >= 2 && v->nreps < NOTE_REPEAT;
}

static struct short_of short_side(const struct bp_cmp *c, bool single)
{
  bool base = false, head = false, base_few = false, head_few = false;
  for(size_t i = 0; i < c->nbenches; i++) {
    const struct bp_cmp_bench *cb = &c->benches[i];
    for(size_t j = 0; cb->presence == BP_CMP_BOTH && j < cb->nmeasures; j++)
      if(short_of_spread(cb, &cb->measures[j], single)) {
        const struct bp_cmp_measure *m = &cb->measures[j];
        base = base || side_short(&m->vbase, single);
        head = head || side_short(&m->vhead, single);
        base_few = base_few || side_few(&m->vbase);
        head_few = head_few || side_few(&m->vhead);
      }
  }
  struct short_of s = {base == head ? SHORT_EITHER :
                       base ? SHORT_BASE : SHORT_HEAD, false};
  s.few = single && (s.side == SHORT_BASE ? head_few :
                     s.side == SHORT_HEAD && base_few);
  return s;
}

/* Where the values are short, by the side short: " on a side" when both
 * (or neither) are, else that side's words, which say when the other
 * side's spread is from too few repetitions (s.few). */
static void add_short_where(struct bp_buf *b, struct short_of s,
                            bool single)
{
  if(s.side == SHORT_EITHER)
    bpi_buf_adds(b, " on a side");
  else {
    bpi_buf_adds(b, s.side == SHORT_BASE ? " on the base (this PR's run has "
                 : " in this PR (the base's run has ");
    if(single && s.few)
      bpi_buf_printf(b, "spread, from fewer than %d repetitions)",
                     NOTE_REPEAT);
    else if(single)
      bpi_buf_adds(b, "spread)");
    else
      bpi_buf_printf(b, "%d or more)", NOTE_REPEAT);
  }
}

static void add_short_advice(struct bp_buf *b, struct short_of s,
                             bool single)
{
  if(s.few) {
    bpi_buf_printf(b, "run the base branch and this PR with `--repeat %d` "
                   "or more", NOTE_REPEAT);
    return;
  }
  const char *who = s.side == SHORT_BASE ? "the base branch " :
                    s.side == SHORT_HEAD ? "this PR " : "";
  bpi_buf_printf(b, "run %swith `--repeat %d`", who, NOTE_REPEAT);
  if(single)
    bpi_buf_adds(b, s.side == SHORT_BASE ? " too (or report bounds there)" :
                 s.side == SHORT_HEAD ? " too (or report bounds here)" :
                 " (or report bounds)");
  else
    bpi_buf_adds(b, s.side == SHORT_EITHER ? " or more on both sides" :
                 " or more");
}

/* Why changes are unconfirmed, one note per reason present (the two need
 * different remedies to be told apart from noise; docs/verdicts.md).
 * Each names its measures: a title that counts a change confirmed (one
 * measure's, from its bounds) never reads as contradicted by a note
 * about another measure's single run.  A side that has the spread is
 * never told to repeat. */
static void add_unconfirmed_notes(struct render *r)
{
  for(int single = 1; single >= 0; single--) {
    size_t mark = r->b->len;
    bpi_buf_addc(r->b, '_');
    size_t n = add_measure_names(r->b, r->c,
                                 single ? NOTE_SINGLE : NOTE_FEW_REPS);
    if(!n) {
      r->b->len = mark;
      continue;
    }
    bool one = n == 1;
    struct short_of side = short_side(r->c, single);
    bpi_buf_printf(r->b, " ha%s ", one ? "s" : "ve");
    if(single)
      bpi_buf_adds(r->b, "one value");
    else
      bpi_buf_printf(r->b, "fewer than %d repetitions", NOTE_REPEAT);
    add_short_where(r->b, side, single);
    bpi_buf_printf(r->b, ": %s unconfirmed (%s), beyond the threshold but ",
                   one ? "its change is" : "their changes are", single ?
                   "single run" : "too few repetitions");
    if(single)
      bpi_buf_printf(r->b, "with no spread to test %s against; ",
                     one ? "it" : "them");
    else
      bpi_buf_adds(r->b, "with so few no change can be confirmed at 99% "
                   "confidence, however large; ");
    add_short_advice(r->b, side, single);
    bpi_buf_printf(r->b, " to confirm or dismiss %s._\n\n",
                   one ? "it" : "them");
  }
}

/* The single runs' changes not counted (uncounted): their rows say
 * "unconfirmed (single run)" under a title that counts their benchmark
 * unchanged, so the note says plainly why, and asks for nothing (the
 * verdict stands on the tested measure). */
static void add_uncounted_note(struct render *r)
{
  size_t mark = r->b->len;
  bpi_buf_addc(r->b, '_');
  size_t n = add_measure_names(r->b, r->c, NOTE_UNCOUNTED);
  if(!n) {
    r->b->len = mark;
    return;
  }
  bpi_buf_printf(r->b, " ha%s one value on a side: %s not counted in the "
                 "verdict (single run), since another measure of the same "
                 "benchmark was tested against spread and gives the "
                 "verdict instead._\n\n", n == 1 ? "s" : "ve",
                 n == 1 ? "its change is" : "their changes are");
}

/* The first benchmark whose verdict is wall time only, of kind flag. */
static const struct bp_cmp_bench *first_wall_only(const struct bp_cmp *c,
                                                  enum bp_cmp_flag flag)
{
  for(size_t i = 0; i < c->nbenches; i++)
    if(c->benches[i].presence == BP_CMP_BOTH && c->benches[i].max_slug &&
       !c->benches[i].flag && c->benches[i].wall_only == flag)
      return &c->benches[i];
  return NULL;
}

/* On the verdict line, apart from the counted verdicts: the benchmarks
 * slower (faster) in wall time only, with the largest of each. */
static void add_wall_only_verdict(struct render *r)
{
  static const enum bp_cmp_flag kinds[] = {BP_CMP_REGRESSION,
                                           BP_CMP_IMPROVEMENT};
  for(size_t k = 0; k < 2; k++) {
    const struct bp_cmp_bench *cb = first_wall_only(r->c, kinds[k]);
    size_t n = k ? r->c->nwall_faster : r->c->nwall_slower;
    if(!cb)
      continue;
    bpi_buf_printf(r->b, "; " FLAG_ORANGE " %zu %s in wall time only, not "
                   "counted (CPU time did not follow), largest: ", n,
                   k ? "faster" : "slower");
    add_key_change(r->b, cb);
  }
}

/* The line a maintainer acts on: confirmed regressions, unconfirmed ones,
 * and the worst (the largest improvement when nothing regressed); with
 * no confirmed regression, the largest unconfirmed change of each kind. */
static void add_verdict_line(struct render *r)
{
  const struct bp_cmp *c = r->c;
  struct bp_buf *b = r->b;
  const struct bp_cmp_bench *worst = first_with(c, BP_CMP_REGRESSION, true);
  const struct bp_cmp_bench *unconf = first_with(c, BP_CMP_REGRESSION,
                                                 false);
  const struct bp_cmp_bench *best = first_with(c, BP_CMP_IMPROVEMENT, true);
  const struct bp_cmp_bench *unconf_impr = first_with(c, BP_CMP_IMPROVEMENT,
                                                      false);
  bpi_buf_printf(b, "**%zu regression%s confirmed, %zu unconfirmed**",
                 c->nregressions, c->nregressions == 1 ? "" : "s",
                 c->nunconfirmed);
  if(worst) {
    bpi_buf_adds(b, ", worst: ");
    add_key_change(b, worst);
    bpi_buf_adds(b, " (regression)");
  }
  else if(best) {
    bpi_buf_adds(b, "; largest improvement: ");
    add_key_change(b, best);
    bpi_buf_adds(b, " (improvement)");
  }
  if(!worst && unconf) {
    bpi_buf_adds(b, "; largest unconfirmed regression: ");
    add_key_change(b, unconf);
  }
  if(!worst && unconf_impr) {
    bpi_buf_adds(b, "; largest unconfirmed improvement: ");
    add_key_change(b, unconf_impr);
  }
  add_wall_only_verdict(r);
  bpi_buf_adds(b, "\n\n");
  add_unconfirmed_notes(r);
  add_uncounted_note(r);
}

/* " (suite `NAME`)" after the title's "benchprof": one comment of a
 * job's several steps (publish.h) tells which it is. */
static void add_suite(struct bp_buf *b, const char *suite)
{
  if(!suite || !*suite)
    return;
  bpi_buf_adds(b, " (suite ");
  bpi_comment_md_code(b, suite);
  bpi_buf_addc(b, ')');
}

/* The title counts every benchmark once, in the words of the verdict
 * line, the commands' summaries and the commit status. */
static void add_title(struct render *r)
{
  bpi_buf_adds(r->b, "### benchprof");
  add_suite(r->b, r->o->suite);
  bpi_buf_printf(r->b, ": %s", r->c->nregressions ? FLAG_RED " " :
                 r->c->nwall_slower ? FLAG_ORANGE " " : "");
  bpi_compare_counts_text(r->c, r->b);
  if(r->o->base_latest)
    bpi_buf_adds(r->b, " (provisional: base commit not profiled)");
  bpi_buf_adds(r->b, "\n\n");
}

/* Beside "Comparing": the base is the base branch's latest run, not the
 * base commit's (it has none), so every change may be another commit's
 * doing; the title says the verdict is provisional. */
static void add_latest_note(struct render *r)
{
  const struct bp_cmp *c = r->c;
  if(!r->o->base_latest)
    return;
  bpi_buf_adds(r->b, "_The base commit ");
  const char *w = r->o->base_wanted;
  if(w && *w) {
    if(w[strspn(w, "0123456789abcdefABCDEF")])
      bpi_comment_md_code(r->b, w);   /* not a hash: as given, escaped */
    else
      add_short_hash(r->b, w);
    bpi_buf_adds(r->b, " has no run in the store");
  }
  else
    bpi_buf_adds(r->b, "is unknown");
  bpi_buf_adds(r->b, ": compared with the latest run of ");
  bpi_comment_md_code(r->b, c->base.branch ? c->base.branch : "base");
  bpi_buf_adds(r->b, " (");
  add_short_hash(r->b, c->base.hash);
  bpi_buf_adds(r->b, ") instead._\n\n");
}

/* The base run is of another command than the head's (their manifests
 * say) and benchmarks are on one side only: most likely another
 * benchmark step of the job published the base at the same keys.  The
 * commands are not shown (as publish's same-job warning: a command line
 * may hold what the job keeps to itself). */
static void add_other_command(struct render *r)
{
  const struct bp_cmp *c = r->c;
  if(!bpi_compare_other_command(c) || !(c->nnew || c->nremoved))
    return;
  bpi_buf_adds(r->b, "_The base run is of another command than this "
               "run's, so benchmarks may show as new or removed: ");
  /* a suite's base is the same suite's: its step changed its command */
  if(r->o->suite && *r->o->suite)
    bpi_buf_adds(r->b, "the suite's command changed._\n\n");
  else
    bpi_buf_adds(r->b, "a job with several benchmark steps gives each its "
                 "own `--suite NAME`._\n\n");
}

/* A benchmark compared under two names (compare_names.c): the binary
 * carries its build's hash.  Several such names left apart: the way to
 * keep one name. */
static void add_hash_names(struct render *r)
{
  const struct bp_cmp *c = r->c;
  for(size_t i = 0; i < c->nbenches; i++) {
    const struct bp_cmp_bench *cb = &c->benches[i];
    if(!cb->base_name)
      continue;
    bpi_buf_adds(r->b, "_Compared ");
    bpi_comment_md_code(r->b, cb->name);
    bpi_buf_adds(r->b, " with the base's ");
    bpi_comment_md_code(r->b, cb->base_name);
    bpi_buf_adds(r->b, ": their names differ only by a build hash._\n\n");
  }
  if(c->hash_names_unpaired)
    bpi_buf_adds(r->b, "_New and removed benchmarks here differ only by a "
                 "build hash in their names, so they are not compared: "
                 "keep each benchmark's name from one build to the next "
                 "(for names the harness reports, have it name its "
                 "benchmarks without the build hash; for a run without "
                 "harness output, `benchprof run --name NAME`)._\n\n");
}

/* A side whose run did not pass (published with --allow-failure, or two
 * run directories compared): its results may be partial (a benchmark
 * that crashed half-way) or wrong, so each verdict may be the failure's
 * and not the code's.  Nothing else in the comment would say so. */
static void add_failed_side(struct render *r, const struct bp_cmp_side *s,
                            bool base)
{
  if(!s->outcome || !strcmp(s->outcome, BP_OUTCOME_PASSED))
    return;
  bool interrupted = !strcmp(s->outcome, BP_OUTCOME_INTERRUPTED);
  bpi_buf_adds(r->b, base ? "_The base's run " : "_This PR's run ");
  bpi_buf_adds(r->b, interrupted ? "was interrupted" : "failed");
  if(interrupted && s->signal) {
    bpi_buf_adds(r->b, " by ");
    bpi_comment_md_text(r->b, s->signal, BP_COMMENT_NAME_CHARS);
  }
  if(s->has_exit_status)
    bpi_buf_printf(r->b, " (exit status %d)", s->exit_status);
  bpi_buf_printf(r->b, ": its results may be partial or wrong, so a change "
                 "below may be that %s's rather than %s._\n\n",
                 interrupted ? "interruption" : "failure",
                 base ? "this PR's" : "the code's");
}

static void add_summary(struct render *r)
{
  const struct bp_cmp *c = r->c;
  struct bp_buf *b = r->b;
  add_title(r);
  add_verdict_line(r);
  bpi_buf_adds(b, "Comparing ");
  bpi_comment_md_code(b, c->head.branch ? c->head.branch : "head");
  bpi_buf_adds(b, " (");
  add_short_hash(b, c->head.hash);
  bpi_buf_adds(b, ") with ");
  bpi_comment_md_code(b, c->base.branch ? c->base.branch : "base");
  bpi_buf_adds(b, " (");
  add_short_hash(b, c->base.hash);
  bpi_buf_addc(b, ')');
  if(c->head.testbed) {
    bpi_buf_adds(b, " on testbed ");
    bpi_comment_md_code(b, c->head.testbed);
  }
  if(r->o->suite && *r->o->suite) {
    bpi_buf_adds(b, c->head.testbed ? ", suite " : " of suite ");
    bpi_comment_md_code(b, r->o->suite);
  }
  bpi_buf_printf(b, "; changes confirmed beyond %.4g%% are flagged.\n\n",
                 c->threshold_pct);
  add_latest_note(r);
  add_failed_side(r, &c->base, true);
  add_failed_side(r, &c->head, false);
  add_other_command(r);
  add_hash_names(r);
}

/* Whether any of cb's measures is per iteration. */
static bool any_per_iteration(const struct bp_cmp_bench *cb)
{
  for(size_t i = 0; i < cb->nmeasures; i++)
    if(cb->measures[i].per_iteration)
      return true;
  return false;
}

/* After the change of a page-fault count per iteration that the two
 * iteration counts moved (follows_iterations): why it does not count,
 * with the counts that moved it. */
static void add_follows_iterations(struct bp_buf *b,
                                   const struct bp_cmp_bench *cb)
{
  bpi_buf_printf(b, " follows the iteration count (base %.0f, head %.0f "
                 "iterations): not counted", cb->base.harness_iterations,
                 cb->head.harness_iterations);
}

/* The measures table.  Per iteration, the header says so once (a
 * task-clock of 9.4 µs is one iteration's, not the run's CPU time), and
 * a row per run among them says so after its name; a rate (throughput,
 * ops/s) says what it is per itself. */
static void add_measures(struct render *r, const struct bp_cmp_bench *cb)
{
  struct bp_buf *b = r->b;
  bool per_iteration = any_per_iteration(cb);
  bpi_buf_printf(b, "| Measure%s | Base | Head | Change |\n"
                 "|:--|--:|--:|--:|\n", per_iteration ? ", per iteration" :
                 "");
  for(size_t i = 0; i < cb->nmeasures; i++) {
    const struct bp_cmp_measure *m = &cb->measures[i];
    bpi_buf_adds(b, "| ");
    bpi_comment_md_text(b, m->slug, BP_COMMENT_NAME_CHARS);
    if(per_iteration && !m->per_iteration && strcmp(m->slug, "throughput"))
      bpi_buf_adds(b, " (per run)");
    bpi_buf_adds(b, " | ");
    if(m->in_base)
      bpi_compare_add_value(b, m->slug, m->base, false);
    else
      bpi_buf_adds(b, "-");
    bpi_buf_adds(b, " | ");
    if(m->in_head)
      bpi_compare_add_value(b, m->slug, m->head, false);
    else
      bpi_buf_adds(b, "-");
    bpi_buf_adds(b, " | ");
    if(m->in_base && m->in_head) {
      bpi_compare_add_value(b, m->slug, m->delta, true);
      bpi_buf_adds(b, " (");
      add_pct(b, m->pct);
      add_interval(b, m);
      bpi_buf_addc(b, ')');
      if(m->follows_iterations)
        add_follows_iterations(b, cb);
      else
        add_verdict(b, m, r->c->threshold_pct);
    }
    else
      /* a counter one side could not read, or a measure one harness
       * did not report: nothing to compare, and nothing "gone" */
      bpi_buf_adds(b, m->in_head ? "not measured on base" :
                   "not measured on head");
    bpi_buf_adds(b, " |\n");
  }
}

static double func_share(uint64_t n, uint64_t all)
{
  return all ? 100.0 * (double)n / (double)all : 0;
}

/* A cost in the benchmark's unit: ns scaled like a time, events like a
 * count. */
static void add_cost(struct bp_buf *b, const struct bp_cmp_bench *cb,
                     double v, bool sign)
{
  bpi_compare_add_cost(b, cb->unit, v, sign);
}

/* "+471 ms ± 94 ms" */
static void add_cost_change(struct bp_buf *b, const struct bp_cmp_bench *cb,
                            double d, double half)
{
  add_cost(b, cb, d, true);
  bpi_buf_adds(b, " ± ");
  add_cost(b, cb, half, false);
}

/* perf report's [k]: a kernel function says so after its name, which
 * is the symbol's own (a user function of that name is another). */
static void add_kernel_mark(struct bp_buf *b, const struct bp_cmp_func *f)
{
  if(f->kernel)
    bpi_buf_adds(b, " (kernel)");
}

static void add_top_func(struct bp_buf *b, const char *what,
                         const struct bp_cmp_bench *cb,
                         const struct bp_cmp_func *f)
{
  bpi_buf_printf(b, "%s: **", what);
  bpi_comment_md_text(b, f->name, BP_COMMENT_NAME_CHARS);
  bpi_buf_adds(b, "**");
  add_kernel_mark(b, f);
  if(cb->has_cost) {
    bool self = f->self_significant &&
                (f->d_self_cost > 0) == (f->d_total_cost > 0);
    bpi_buf_printf(b, " (%s ", self ? "self" : "total");
    add_cost_change(b, cb, self ? f->d_self_cost : f->d_total_cost,
                    self ? f->self_half : f->total_half);
    bpi_buf_printf(b, " per %s)", bpi_compare_cost_per(cb));
  }
  else
    bpi_buf_printf(b, " (self %+.2f, total %+.2f points)", f->d_self,
                   f->d_total);
}


/* A row of the absolute table: costs per iteration or run, changes with their
 * intervals (marked only when significant), share points second. */
static void add_cost_row(struct bp_buf *b, const struct bp_cmp_bench *cb,
                         const struct bp_cmp_func *f)
{
  bpi_buf_adds(b, " | ");
  add_cost(b, cb, f->base_self_cost, false);
  bpi_buf_adds(b, " | ");
  add_cost(b, cb, f->head_self_cost, false);
  bpi_buf_adds(b, " | ");
  add_cost_change(b, cb, f->d_self_cost, f->self_half);
  if(f->self_significant)
    bpi_buf_adds(b, f->d_self_cost > 0 ? " " FLAG_RED : " " FLAG_GREEN);
  bpi_buf_adds(b, " | ");
  add_cost_change(b, cb, f->d_total_cost, f->total_half);
  if(f->total_significant)
    bpi_buf_adds(b, f->d_total_cost > 0 ? " " FLAG_RED : " " FLAG_GREEN);
  bpi_buf_printf(b, " | %+.2f / %+.2f |\n", f->d_self, f->d_total);
}

static void add_share_row(struct bp_buf *b, const struct bp_cmp_bench *cb,
                          const struct bp_cmp_func *f)
{
  bpi_buf_printf(b, " | %.2f%% | %.2f%% | %.2f%% | %.2f%% | %+.2f / "
                 "%+.2f points %s |\n",
                 func_share(f->base_self, cb->base.samples),
                 func_share(f->head_self, cb->head.samples),
                 func_share(f->base_total, cb->base.samples),
                 func_share(f->head_total, cb->head.samples),
                 f->d_self, f->d_total,
                 f->d_self > 0 || (f->d_self == 0 && f->d_total > 0) ?
                 FLAG_RED : FLAG_GREEN);
}

static void add_funcs_header(struct bp_buf *b, const struct bp_cmp_bench *cb)
{
  if(!cb->has_cost) {
    if(cb->base.event && cb->head.event && !bpi_compare_same_unit(cb)) {
      bpi_buf_adds(b, "\n_The sides sampled different events (base ");
      bpi_comment_md_code(b, cb->base.event);
      bpi_buf_adds(b, ", head ");
      bpi_comment_md_code(b, cb->head.event);
      bpi_buf_adds(b, "): their functions are compared by share only._\n");
    }
    bpi_buf_adds(b, "\nFunctions whose share of the samples changed most:"
                 "\n\n| Function | Self base | Self head | Total base | "
                 "Total head | Change (self / total) |\n"
                 "|:--|--:|--:|--:|--:|--:|\n");
    return;
  }
  bpi_buf_adds(b, "\nFunctions whose cost changed significantly (");
  bpi_buf_adds(b, !strcmp(cb->unit, "ns") ? "CPU time" : "events");
  bpi_buf_printf(b, " per %s from the samples of ",
                 cb->per_iteration ? "benchmark iteration" : "run");
  bpi_comment_md_code(b, cb->head.event ? cb->head.event : "the event");
  const char *whose = cb->shared_profile ? "run" : "benchmark";
  bpi_buf_printf(b, "; ± is the Poisson interval of the sample counts, 99%% "
                 "for all of the %s's functions together", whose);
  if(bpi_compare_band_wide(&cb->band)) {
    /* what keeps a job's drift off the functions: say it, so that an
     * unnamed function is not taken for an unchanged one */
    bpi_buf_printf(b, "; a change the %s's own noise could make of a "
                   "function's base cost (", whose);
    bpi_compare_band_text(&cb->band, b);
    bpi_buf_adds(b, ") is not named");
  }
  bpi_buf_adds(b, "):\n\n| Function | Self base | Self head | Self change | "
               "Total change | Share change (self / total points) |\n"
               "|:--|--:|--:|--:|--:|--:|\n");
}

/* Whether f gets a row in the function table: it changed and, with
 * costs, the samples tell the change from noise (only that is named);
 * *end once no later function changed either (most changed first). */
static bool func_row(const struct bp_cmp_bench *cb,
                     const struct bp_cmp_func *f, bool *end)
{
  *end = f->d_self == 0 && f->d_total == 0 &&
         (!cb->has_cost || (f->d_self_cost == 0 && f->d_total_cost == 0));
  return !*end && !f->echo && (!cb->has_cost || f->self_significant ||
                                f->total_significant);
}

/* The rows of cb's function table, when it is shown. */
static size_t func_rows(const struct render *r, const struct bp_cmp_bench *cb)
{
  size_t rows = 0;
  bool end = false;
  for(size_t i = 0; i < cb->nfuncs && rows < r->max_functions && !end; i++)
    rows += func_row(cb, &cb->funcs[i], &end);
  return rows;
}

static void add_func_row(struct bp_buf *b, const struct bp_cmp_bench *cb,
                         const struct bp_cmp_func *f)
{
  bpi_buf_adds(b, "| ");
  bpi_comment_md_text(b, f->name, BP_COMMENT_NAME_CHARS);
  add_kernel_mark(b, f);
  if(!f->base_total)
    bpi_buf_adds(b, " (new)");
  else if(!f->head_total)
    bpi_buf_adds(b, " (vanished)");
  if(cb->has_cost)
    add_cost_row(b, cb, f);
  else
    add_share_row(b, cb, f);
}

/* ": the largest, `f`, self +41.7 ms ± 30.8 ms per run." */
static void add_largest(struct bp_buf *b, const struct bp_cmp_bench *cb,
                        const struct bp_cmp_func *f)
{
  bpi_buf_adds(b, ": the largest, ");
  bpi_comment_md_code(b, f->name);
  add_kernel_mark(b, f);
  bpi_buf_adds(b, ", self ");
  add_cost_change(b, cb, f->d_self_cost, f->self_half);
  bpi_buf_printf(b, " per %s.", bpi_compare_cost_per(cb));
}

/* One function holds most of the samples on both sides: a change of the
 * whole benchmark is that function's, even where the benchmark's noise
 * band keeps it from being told from a drift. */
static void add_dominant(struct bp_buf *b, const struct bp_cmp_bench *cb,
                         const struct bp_cmp_func *f)
{
  bpi_buf_adds(b, "\nThe change is spread over ");
  bpi_comment_md_code(b, f->name);
  add_kernel_mark(b, f);
  bpi_buf_printf(b, ", which holds %.0f%% of the samples in the base's "
                 "profile and %.0f%% in the head's: self ",
                 func_share(f->base_self, cb->base.samples),
                 func_share(f->head_self, cb->head.samples));
  add_cost_change(b, cb, f->d_self_cost, f->self_half);
  bpi_buf_printf(b, " per %s", bpi_compare_cost_per(cb));
  /* its change is beyond the sampling's own noise (else it is no
   * dominant change: bpi_compare_no_func_why), maybe not the band's */
  if(!bpi_compare_beyond_band(&cb->band, f->base_self_cost, f->d_self_cost,
                              f->self_half)) {
    bpi_buf_adds(b, ", within ");
    if(cb->band.basis == BP_CMP_BAND_TOTAL)
      /* the whole profile's change, not a measured noise: what is
       * unknown is whether the runner drifted by as much */
      bpi_buf_printf(b, "the whole profile's change (%+.1f%%), which "
                     "nothing here tells from a drift between the two "
                     "jobs", 100 * (cb->band.hi > 0 ? cb->band.hi :
                                    cb->band.lo));
    else {
      bpi_buf_adds(b, "this benchmark's noise band (");
      bpi_compare_band_text(&cb->band, b);
      bpi_buf_addc(b, ')');
    }
  }
  bpi_buf_adds(b, ".\n");
}

/* A benchmark whose measure changed beyond the threshold while no
 * function is named: one line says why, so that a missing "grew most"
 * is not read as "no function changed": one function holds most of the
 * samples (add_dominant); a side sampled nothing; the
 * sampling's own noise (the largest change's Poisson interval holds 0:
 * too few samples, or nothing changed on the CPU); or the benchmark's
 * noise band, which its measure's interval or the total cost's change
 * sets, covers every function's change (docs/verdicts.md, "Functions"). */
static void add_no_func_reason(struct bp_buf *b, const struct bp_cmp_bench *cb)
{
  const struct bp_cmp_func *f;
  enum bp_cmp_no_func why = bpi_compare_no_func_why(cb, grew_way(cb), &f);
  if(why == BP_CMP_NO_FUNC_DOMINANT) {
    add_dominant(b, cb, f);
    return;
  }
  bpi_buf_adds(b, "\nNo function is named");
  if(why == BP_CMP_NO_FUNC_SAMPLES)
    bpi_buf_printf(b, ": too few samples to compare functions (%" PRIu64
                   " in the base's profile, %" PRIu64 " in the head's).",
                   cb->base.samples, cb->head.samples);
  else if(why == BP_CMP_NO_FUNC_SHARES)
    bpi_buf_adds(b, ": no function's share of the samples changed.");
  else if(why == BP_CMP_NO_FUNC_UNCHANGED)
    bpi_buf_adds(b, ": no function's cost changed.");
  else if(why == BP_CMP_NO_FUNC_SAMPLING) {
    bpi_buf_printf(b, ": no function's change is beyond the sampling's "
                   "own noise (%" PRIu64 " samples in the base's profile, %"
                   PRIu64 " in the head's)", cb->base.samples,
                   cb->head.samples);
    add_largest(b, cb, f);
  }
  else {
    bpi_buf_adds(b, ": no function's change is beyond this benchmark's "
                 "noise band (");
    bpi_compare_band_text(&cb->band, b);
    bpi_buf_addc(b, ')');
    add_largest(b, cb, f);
  }
  bpi_buf_addc(b, '\n');
}

/* The echoes among the functions that changed (func_row aside). */
static size_t count_echoes(const struct bp_cmp_bench *cb)
{
  size_t n = 0;
  for(size_t i = 0; i < cb->nfuncs; i++)
    n += cb->funcs[i].echo;
  return n;
}

/* "_10 of 24 shown ..._": a table cut at max rows says so, and where the
 * rest is; and that callers repeating a listed callee's change were left
 * out (bp_cmp_func.echo). */
static void add_rows_note(struct bp_buf *b, size_t shown, size_t rows,
                          size_t echoes)
{
  if(shown < rows)
    bpi_buf_printf(b, "\n_%zu of %zu shown (all in `compare.json`)", shown,
                   rows);
  if(echoes)
    bpi_buf_printf(b, "%s%zu caller%s whose change only repeats a "
                   "listed callee's %s left out", shown < rows ? "; " :
                   "\n_", echoes, echoes == 1 ? "" : "s",
                   echoes == 1 ? "is" : "are");
  if(shown < rows || echoes)
    bpi_buf_adds(b, "._\n");
}

/* The function table: the functions that changed, at most
 * r->max_functions rows, most changed first; those named as grew and
 * shrank most always among them (the rows before them make way). */
static void add_func_table(struct render *r, const struct bp_cmp_bench *cb,
                           const struct bp_cmp_func *grew,
                           const struct bp_cmp_func *shrank)
{
  struct bp_buf *b = r->b;
  size_t shown = 0, rows = 0, tops = 0, tops_shown = 0;
  bool end = false;
  if(!r->max_functions)
    return;   /* no table asked for (comment.no_functions) */
  for(size_t i = 0; i < cb->nfuncs && !end; i++) {
    const struct bp_cmp_func *f = &cb->funcs[i];
    if(func_row(cb, f, &end) && (f == grew || f == shrank))
      tops++;
  }
  end = false;
  for(size_t i = 0; i < cb->nfuncs && !end; i++) {
    const struct bp_cmp_func *f = &cb->funcs[i];
    if(!func_row(cb, f, &end))
      continue;
    rows++;
    bool top = f == grew || f == shrank;
    tops_shown += top;
    if(shown >= r->max_functions ||
       (!top && shown + (tops - tops_shown) >= r->max_functions))
      continue;
    if(!shown++)
      add_funcs_header(b, cb);
    add_func_row(b, cb, f);
  }
  if(shown)
    add_rows_note(b, shown, rows, count_echoes(cb));
}

/* The kernel's time in interrupts changed beyond the noise: the
 * machine's (timers, other CPUs, devices, a VM's host), never named as
 * what grew or shrank most, but said, so that its row is not read as the
 * benchmark's cause either (docs/verdicts.md, "Functions"). */
static void add_interrupts(struct bp_buf *b, const struct bp_cmp_bench *cb)
{
  const struct bp_cmp_func *f = bpi_compare_interrupts(cb);
  if(!f)
    return;
  bool grew = cb->has_cost ? f->d_self_cost > 0 : f->d_self > 0;
  bpi_buf_printf(b, "\nThe machine's interrupt handling (`" BP_CMP_INTERRUPTS
                 "`, kernel) %s: ", grew ? "grew" : "shrank");
  if(cb->has_cost) {
    add_cost_change(b, cb, f->d_self_cost, f->self_half);
    bpi_buf_printf(b, " per %s", bpi_compare_cost_per(cb));
  }
  else
    bpi_buf_printf(b, "%+.2f points of the samples", f->d_self);
  bpi_buf_adds(b, ". Interrupts take the CPU from whatever runs, so the "
               "benchmark does not control this time: it is not named as "
               "a cause.\n");
}

/* What grew and shrank most (or why no function is named), the
 * machine's interrupt handling when it changed, then (with_rows) the
 * function table. */
static void add_funcs(struct render *r, const struct bp_cmp_bench *cb,
                      bool with_rows)
{
  struct bp_buf *b = r->b;
  const struct bp_cmp_func *grew = bpi_compare_top_func(cb, true);
  const struct bp_cmp_func *shrank = bpi_compare_top_func(cb, false);
  if(grew || shrank) {
    bpi_buf_adds(b, "\n");
    if(grew)
      add_top_func(b, FLAG_RED " Grew most", cb, grew);
    if(grew && shrank)
      bpi_buf_adds(b, "; ");
    if(shrank)   /* a capital where it starts the line */
      add_top_func(b, grew ? FLAG_GREEN " shrank most" :
                   FLAG_GREEN " Shrank most", cb, shrank);
    bpi_buf_adds(b, "\n");
  }
  else if(changed_beyond(cb) && !cb->shared_profile &&
          !bpi_compare_profile_missing(cb))
    /* a side without a profile has its own line (comment_lists.c):
     * "too few samples (0 in the base's profile)" would contradict it */
    add_no_func_reason(b, cb);
  add_interrupts(b, cb);
  if(with_rows)
    add_func_table(r, cb, grew, shrank);
}

/* Whether s can be a code span as it is: printable ASCII without the
 * characters that would end it (a table's '|' too). */
static bool plain_code(const char *s)
{
  for(const unsigned char *p = (const unsigned char *)s; *p; p++)
    if(*p < 0x20 || *p >= 0x7f || *p == '`' || *p == '|')
      return false;
  return true;
}

/* A waiting stack, root first: when too long, cut at a frame boundary
 * (';') keeping the frames nearest the leaf, the function that waits,
 * and "…;" where the cut is; a cut inside a symbol would name none. */
static void add_wait_stack(struct bp_buf *b, const char *stack)
{
  static const char cut[] = "\xe2\x80\xa6;";   /* "…;": 2 chars */
  size_t len = strlen(stack), max = BP_COMMENT_NAME_CHARS - 2;
  const char *keep = strrchr(stack, ';');
  if(len <= BP_COMMENT_NAME_CHARS || !keep) {
    bpi_comment_md_code(b, stack);   /* one frame: md_text shortens it */
    return;
  }
  keep++;   /* the leaf, whatever its size; then whole frames that fit */
  while(keep - 1 > stack) {
    const char *q = keep - 1;   /* the ';' before keep */
    while(q > stack && q[-1] != ';')
      q--;
    if((size_t)(stack + len - q) > max)
      break;
    keep = q;
  }
  if(plain_code(keep) && strlen(keep) <= max) {   /* else md_text shortens */
    bpi_buf_printf(b, "`%s%s`", cut, keep);
    return;
  }
  struct bp_buf t;
  bpi_buf_init(&t);
  bpi_buf_adds(&t, cut);
  bpi_buf_adds(&t, keep);
  bpi_buf_addc(&t, '\0');
  if(bpi_buf_failed(&t))
    b->failed = true;
  else
    bpi_comment_md_text(b, t.data, BP_COMMENT_NAME_CHARS);
  bpi_buf_cleanup(&t);
}

/* Append " · [text](url)" when url is a usable link. */
static bool add_link(struct bp_buf *b, bool first, const char *text,
                     const char *url)
{
  size_t mark = b->len;
  bpi_buf_adds(b, first ? "" : " · ");
  bpi_buf_printf(b, "[%s](", text);
  if(!bpi_comment_md_url(b, url)) {
    b->len = mark;
    return false;
  }
  bpi_buf_addc(b, ')');
  return true;
}

/* " · [Bencher plot: measure](url)" when the head's report has the ids */
static bool add_plot(struct render *r, const struct bp_cmp_bench *cb,
                     bool first)
{
  struct bp_buf url, label;
  const char *slug = NULL;
  bool added = false;
  bpi_buf_init(&url);
  bpi_buf_init(&label);
  if(bpi_comment_bench_plot(&url, r->c, cb, &slug)) {
    bpi_buf_addc(&url, '\0');
    bpi_buf_adds(&label, "Bencher plot: ");
    bpi_comment_md_text(&label, slug, BP_COMMENT_NAME_CHARS);
    bpi_buf_addc(&label, '\0');
    if(!bpi_buf_failed(&url) && !bpi_buf_failed(&label))
      added = add_link(r->b, first, label.data, url.data);
  }
  bpi_buf_cleanup(&label);
  bpi_buf_cleanup(&url);
  return added;
}

/* " · [base](view)" or " · [head](view)": the one profile of a
 * benchmark whose other side has none, when it has a web URL. */
static bool add_lone_view(struct bp_buf *b, const struct bp_cmp_bench *cb,
                          bool first)
{
  bool head = cb->base.state != BP_CMP_PROFILED;
  struct bp_buf view;
  bool added = false;
  bpi_buf_init(&view);
  if((head ? &cb->head : &cb->base)->state == BP_CMP_PROFILED &&
     bpi_comment_side_view(&view, cb, head))
    added = add_link(b, first, head ? LABEL_HEAD : LABEL_BASE, view.data);
  bpi_buf_cleanup(&view);
  return added;
}

/* What cb's differential flame graph of file is called in the comment:
 * the on-CPU one said so when an off-CPU one is beside it. */
static const char *diff_what(const struct bp_cmp_bench *cb, const char *file)
{
  if(!strcmp(file, BP_FILE_DIFF_OFFCPU_SVG))
    return "off-CPU differential flame graph";
  return bpi_compare_has_off_diff(cb) ? "on-CPU differential flame graph"
                                      : "differential flame graph";
}

/* Where cb's differential flame graph file is when no link can reach it
 * (a store with no web URL, or local files): its key in the store when it
 * was published there; else its path in the compare/ folder of a run's
 * output directory on the runner when a run compared (a posted comment
 * has nothing beside it); else beside this comment (a plain compare,
 * which has no run folder). */
static void add_file_path(struct render *r, const struct bp_cmp_bench *cb,
                          const char *file, const char *key)
{
  struct bp_buf *b = r->b;
  if(key) {
    bpi_buf_printf(b, "\nThe %s is in the store, at ", diff_what(cb, file));
    bpi_comment_md_code(b, key);
    bpi_buf_adds(b, ".\n");
    return;
  }
  static const char run_dir[] = "compare/";
  struct bp_buf path;
  bpi_buf_init(&path);
  bpi_buf_adds(&path, run_dir);
  if(strcmp(cb->dir, ".")) {
    bpi_buf_adds(&path, cb->dir);
    bpi_buf_addc(&path, '/');
  }
  bpi_buf_adds(&path, file);
  bpi_buf_addc(&path, '\0');
  if(!bpi_buf_failed(&path) && r->o->run_output) {
    bpi_buf_printf(b, "\nThe %s is ", diff_what(cb, file));
    bpi_comment_md_code(b, path.data);
    bpi_buf_adds(b, " in the run's output directory, on the runner that "
                 "ran the job.\n");
  } else if(!bpi_buf_failed(&path)) {
    bpi_buf_printf(b, "\nThe %s is ", diff_what(cb, file));
    bpi_comment_md_code(b, path.data + sizeof(run_dir) - 1);
    bpi_buf_adds(b, " beside this comment.\n");
  }
  bpi_buf_cleanup(&path);
}

static void add_diff_path(struct render *r, const struct bp_cmp_bench *cb)
{
  add_file_path(r, cb, BP_FILE_DIFF_SVG, cb->diff_key);
}

/* The link to cb's differential flame graph file into url ('\0'-ended;
 * empty when none): published, its URL in the store; else the file in
 * the comparison's folder at compare_url. */
static void diff_link(const struct render *r, const struct bp_cmp_bench *cb,
                      const char *published, const char *file,
                      struct bp_buf *url)
{
  if(published)
    bpi_buf_adds(url, published);
  else if(r->o->compare_url && *r->o->compare_url) {
    bpi_buf_adds(url, r->o->compare_url);
    if(url->len && url->data[url->len - 1] != '/')
      bpi_buf_addc(url, '/');
    if(strcmp(cb->dir, ".")) {
      bpi_text_pct_encode(url, cb->dir, "/");   /* each segment */
      bpi_buf_addc(url, '/');
    }
    bpi_buf_adds(url, file);
  }
  if(url->len)
    bpi_buf_addc(url, '\0');
}

/* "+40 ms off CPU per run": the change of cb's waiting stack. */
static void add_wait_change(struct bp_buf *b, const struct bp_cmp_bench *cb)
{
  bpi_compare_add_value(b, "off-cpu", cb->off_head_ns - cb->off_base_ns,
                        true);
  bpi_buf_adds(b, " off CPU per run");
}

/* No waiting stack changed beyond the off-CPU noise band: say the band,
 * so that an unnamed wait is not taken for an unchanged one, and the
 * largest change within it. */
static void add_wait_within_noise(struct bp_buf *b,
                                  const struct bp_cmp_bench *cb)
{
  bpi_buf_adds(b, "\nNo waiting stack's off-CPU time changed beyond the "
               "off-CPU noise (a change the benchmark's own noise could "
               "make of a stack's base time: ");
  bpi_compare_band_text(&cb->off_band, b);
  bpi_buf_addc(b, ')');
  if(cb->off_stack) {
    bpi_buf_adds(b, "; the largest, ");
    add_wait_stack(b, cb->off_stack);
    bpi_buf_adds(b, ", ");
    add_wait_change(b, cb);
  }
}

/* With off-CPU time on both sides: the stack whose waiting changed most,
 * so a benchmark slower because it waits longer names what it waits in,
 * and the off-CPU differential flame graph, which shows where (diff.svg
 * is on-CPU time: a longer wait is no change there). */
static void add_off_cpu(struct render *r, const struct bp_cmp_bench *cb)
{
  struct bp_buf *b = r->b, url;
  bool off_diff = bpi_compare_has_off_diff(cb), linked = false;
  if(!cb->off_stack && !off_diff)
    return;
  if(cb->off_stack && !cb->off_within_noise) {
    bool longer = cb->off_head_ns > cb->off_base_ns;
    bpi_buf_printf(b, "\n%s ", longer ? FLAG_RED " Waits longer in"
                                      : FLAG_GREEN " Waits less in");
    add_wait_stack(b, cb->off_stack);
    bpi_buf_adds(b, " (");
    add_wait_change(b, cb);
    bpi_buf_addc(b, ')');
  }
  else if(cb->has_off_band && bpi_compare_band_wide(&cb->off_band))
    add_wait_within_noise(b, cb);
  else
    bpi_buf_adds(b, "\nNo waiting stack's off-CPU time changed");
  bpi_buf_init(&url);
  if(off_diff)
    diff_link(r, cb, cb->off_diff_url, BP_FILE_DIFF_OFFCPU_SVG, &url);
  if(url.len && !bpi_buf_failed(&url))
    linked = add_link(b, false, LABEL_OFF_DIFF, url.data);
  bpi_buf_cleanup(&url);
  bpi_buf_adds(b, "\n");
  if(off_diff && !linked)
    add_file_path(r, cb, BP_FILE_DIFF_OFFCPU_SVG, cb->off_diff_key);
}

/* "the base's 3 of 5" */
static void add_link_rep(struct bp_buf *b, const char *side,
                         const struct bp_cmp_profile *p)
{
  if(p->link_rep)
    bpi_buf_printf(b, "the %s's %u of %u", side, p->link_rep, p->repeat);
  else if(p->repeat > 1)   /* not one thread of its kind a repetition */
    bpi_buf_printf(b, "one of the %s's %u", side, p->repeat);
  else
    bpi_buf_printf(b, "the %s's one run", side);
}

/* Under --repeat a profile holds every repetition, and the viewer links
 * open one (the median by samples, not the slowest): said, so that a
 * function's time there is not read against the tables, which cover all
 * repetitions. */
static void add_link_reps(struct bp_buf *b, const struct bp_cmp_bench *cb)
{
  if(!cb->base.link_rep && !cb->head.link_rep)
    return;
  bpi_buf_adds(b, "\n_The Firefox Profiler links open one repetition a "
               "side, the median by samples (");
  add_link_rep(b, "base", &cb->base);
  bpi_buf_adds(b, ", ");
  add_link_rep(b, "head", &cb->head);
  bpi_buf_adds(b, "); the tables cover all repetitions._\n");
}

static void add_links(struct render *r, const struct bp_cmp_bench *cb)
{
  struct bp_buf *b = r->b, view_a, view_b, cmp, diff;
  bool first = true, diff_linked = false, profiler = false;
  size_t mark = b->len;
  bpi_buf_init(&view_a);
  bpi_buf_init(&view_b);
  bpi_buf_init(&cmp);
  bpi_buf_init(&diff);
  bpi_buf_adds(b, "\n");
  if(bpi_text_web_url(cb->base.gecko_url) && bpi_text_web_url(cb->head.gecko_url)) {
    bpi_buf_adds(&view_a, "base: ");
    bpi_buf_adds(&view_a, cb->name);
    bpi_buf_adds(&view_b, "head: ");
    bpi_buf_adds(&view_b, cb->name);
    if(!bpi_buf_failed(&view_a) && !bpi_buf_failed(&view_b)) {
      char *na = strdup(view_a.data), *nb = strdup(view_b.data);
      bpi_buf_reset(&view_a);
      bpi_buf_reset(&view_b);
      if(na && nb) {
        bpi_comment_profiler_view(&view_a, cb->base.gecko_url,
                                  cb->base.thread, na);
        bpi_comment_profiler_view(&view_b, cb->head.gecko_url,
                                  cb->head.thread, nb);
        bpi_buf_addc(&view_a, '\0');
        bpi_buf_addc(&view_b, '\0');
      }
      free(na);
      free(nb);
    }
    if(!bpi_buf_failed(&view_a) && !bpi_buf_failed(&view_b) && view_a.len) {
      bpi_comment_profiler_compare(&cmp, view_a.data, view_b.data);
      bpi_buf_addc(&cmp, '\0');
      if(!bpi_buf_failed(&cmp))
        first = !add_link(b, first, LABEL_COMPARE, cmp.data) && first;
      first = !add_link(b, first, LABEL_BASE, view_a.data) && first;
      first = !add_link(b, first, LABEL_HEAD, view_b.data) && first;
      profiler = !first;
    }
  }
  if(cb->diff_url || bpi_compare_has_diff(cb))
    diff_link(r, cb, cb->diff_url, BP_FILE_DIFF_SVG, &diff);
  if(diff.len) {
    if(!bpi_buf_failed(&diff))   /* on-CPU time: off-CPU has its own */
      diff_linked = add_link(b, first, bpi_compare_has_off_diff(cb) ?
                             LABEL_ON_DIFF : LABEL_DIFF, diff.data);
    first = !diff_linked && first;
  }
  first = !add_plot(r, cb, first) && first;
  if(bpi_compare_profile_missing(cb))
    first = !add_lone_view(b, cb, first) && first;
  if(first && bpi_compare_profile_missing(cb))
    b->len = mark;   /* nothing to link, and the note above says why */
  else if(first && r->o->private_store)
    b->len = mark;   /* said once for the whole comment, with what to set
                      * (add_private_store_note) */
  else if(first) {
    b->len = mark;   /* said once for the whole comment, not once a
                      * benchmark (add_no_links_note) */
    r->unlinked = true;
  }
  else
    bpi_buf_adds(b, "\n");
  if(profiler)
    add_link_reps(b, cb);
  if(!diff_linked && bpi_compare_has_diff(cb) && !cb->shared_profile)
    add_diff_path(r, cb);   /* a shared one's: once, with its functions */
  bpi_buf_cleanup(&diff);
  bpi_buf_cleanup(&cmp);
  bpi_buf_cleanup(&view_b);
  bpi_buf_cleanup(&view_a);
}

/* What the note under the heading says of the verdict: not counted (a
 * busier runner in one job looks the same as waiting the change added),
 * counted because the blocked time confirms the waiting is the code's,
 * or counted because the owner asked for it (a dedicated runner). */
static void add_wall_counting(struct bp_buf *b, const struct bp_cmp_bench *cb,
                              const struct bp_cmp_measure *wall)
{
  const struct bp_cmp_measure *off = bpi_compare_on_both(cb, BP_OFF_CPU_SLUG);
  const char *kind = wall->flag == BP_CMP_REGRESSION ? "regression"
                                                     : "improvement";
  if(wall->wall_only)
    bpi_buf_printf(b, " It is not counted as a confirmed %s: a busier "
                   "runner in one job than in the other looks the same "
                   "(`comment.wall_time_only: \"regression\"` counts it, "
                   "for a dedicated, quiet runner); ", kind);
  else if(off && off->flag == wall->flag)
    bpi_buf_printf(b, " The off-cpu measure (blocked time, preemption left "
                   "out) is a confirmed %s too, so the waiting is the "
                   "code's and the verdict stands; ", kind);
  else
    bpi_buf_adds(b, " The verdict stands (`comment.wall_time_only` is "
                 "\"regression\"); ");
}

/* Under the heading of a wall-time change the CPU time does not explain
 * (bpi_compare_waited): the time went to waiting (or to waiting less),
 * which the CPU profile cannot see, and an off-CPU profile can.  A
 * task-clock that is confirmed the same way too is said to be, with how
 * little of the change it can be; then whether the change is counted
 * (add_wall_counting). */
static void add_wall_note(struct bp_buf *b, const struct bp_cmp_bench *cb)
{
  const struct bp_cmp_measure *wall = bpi_compare_on_both(cb, "latency");
  const struct bp_cmp_measure *cpu = bpi_compare_on_both(cb, "task-clock");
  double wall_ns, cpu_ns;
  if(!bpi_compare_waited(cb, &wall_ns, &cpu_ns))
    return;
  bool slower = wall->flag == BP_CMP_REGRESSION;
  const char *kind = slower ? "regression" : "improvement";
  const char *moved = slower ? "rose" : "fell";
  bool confirmed = cpu->flag == wall->flag;
  bpi_buf_printf(b, "_latency is wall-clock time, and task-clock (CPU time) "
                 "is %s confirmed %s%s (", confirmed ? "a" : "not a", kind,
                 confirmed ? " too" : "");
  add_pct(b, cpu->pct);
  add_interval(b, cpu);
  if(confirmed) {
    bpi_buf_printf(b, "), but CPU time %s by at most ", moved);
    bpi_compare_add_value(b, "task-clock", cpu_ns, false);
    bpi_buf_printf(b, " while latency %s by at least ", moved);
    bpi_compare_add_value(b, "latency", wall_ns, false);
  }
  else {
    bpi_buf_printf(b, "): latency %s by at least ", moved);
    bpi_compare_add_value(b, "latency", wall_ns, false);
    if(cpu_ns > 0) {
      bpi_buf_adds(b, ", CPU time by at most ");
      bpi_compare_add_value(b, "task-clock", cpu_ns, false);
    }
    else
      bpi_buf_adds(b, ", CPU time not at all");
  }
  bpi_buf_adds(b, slower ? ", so most of the extra time was not spent on "
               "the CPU but waiting (a loaded runner, locks, I/O, "
               "sleeping), which the CPU profile does not see." :
               ", so most of the time saved was not CPU time but waiting "
               "(a less loaded runner, locks, I/O, sleeping), which the "
               "CPU profile does not see.");
  add_wall_counting(b, cb, wall);
  if(bpi_compare_on_both(cb, BP_OFF_CPU_SLUG))
    bpi_buf_adds(b, "the off-CPU time below shows where._\n\n");
  else
    bpi_buf_adds(b, "an off-CPU profile (`benchprof run --off-cpu` on both "
                 "sides) shows where._\n\n");
}

static void add_bench(struct render *r, const struct bp_cmp_bench *cb,
                      bool with_funcs)
{
  struct bp_buf *b = r->b;
  const struct bp_cmp_measure *key = key_measure(cb);
  bpi_buf_adds(b, "#### ");
  if(cb->flag == BP_CMP_REGRESSION)
    bpi_buf_adds(b, FLAG_RED " ");
  else if(cb->flag == BP_CMP_IMPROVEMENT)
    bpi_buf_adds(b, FLAG_GREEN " ");
  else if(cb->wall_only)
    bpi_buf_adds(b, FLAG_ORANGE " ");
  bpi_comment_md_text(b, cb->name, BP_COMMENT_NAME_CHARS);
  if(cb->max_slug) {
    bpi_buf_adds(b, ": ");
    bpi_comment_md_text(b, cb->max_slug, BP_COMMENT_NAME_CHARS);
    bpi_buf_addc(b, ' ');
    add_pct(b, cb->max_pct);
    if(!cb->flag)
      bpi_buf_adds(b, cb->wall_only ? " (wall time only)" : " (unconfirmed)");
  }
  else if(key && key->change) {
    bpi_buf_adds(b, ": ");
    bpi_comment_md_text(b, key->slug, BP_COMMENT_NAME_CHARS);
    bpi_buf_addc(b, ' ');
    add_pct(b, key->pct);
    bpi_buf_adds(b, " (");
    add_not_confirmed(b, key, r->c->threshold_pct);
    bpi_buf_addc(b, ')');
  }
  else
    bpi_buf_adds(b, ": unchanged");
  /* the heading (and why a wall-time regression is not in the CPU
   * profile) stays in sight, the rest is collapsed */
  bpi_buf_adds(b, "\n\n");
  add_wall_note(b, cb);
  bpi_buf_adds(b, "<details><summary>measures, functions and links"
               "</summary>\n\n");
  add_measures(r, cb);
  bpi_comment_missing_why(b, cb);
  if(cb->shared_profile && bpi_compare_has_diff(cb))
    bpi_buf_adds(b, "\n_Functions: none of its own. Its profile is the "
                 "whole run's, which it shares with the other benchmarks "
                 "the harness ran in the same process; their functions are "
                 "compared once, under \"Functions of the whole run\" "
                 "below._\n");
  else
    add_funcs(r, cb, with_funcs);
  add_off_cpu(r, cb);
  add_links(r, cb);
  if(cb->renamed_base_process) {
    /* the differential flame graph matched the two under one name */
    bpi_buf_adds(b, "\nThe base's program ");
    bpi_comment_md_code(b, cb->renamed_base_process);
    bpi_buf_adds(b, " is compared with the head's ");
    bpi_comment_md_code(b, cb->renamed_head_process);
    bpi_buf_adds(b, ": each side's only program the other has not, with "
                 "most of its samples.\n");
  }
  bpi_buf_adds(b, "\n</details>\n\n");
}

/* Its verdict in the summary table: the key measure's, else
 * "unchanged". */
static void add_row_verdict(struct bp_buf *b, const struct bp_cmp_measure *m,
                            double threshold)
{
  size_t mark = b->len;
  add_verdict(b, m, threshold);
  if(b->len == mark)
    bpi_buf_adds(b, " unchanged");
}

/* The summary table: a row for every benchmark the cut left, its key
 * measure, the change with its interval and the verdict, whether or not
 * the change was confirmed. */
static void add_table(struct render *r)
{
  struct bp_buf *b = r->b;
  size_t rows = 0;
  for(size_t pos = 0; pos < r->n && depth_at(r, pos) != DEPTH_NONE; pos++) {
    const struct bp_cmp_bench *cb = r->order[pos];
    const struct bp_cmp_measure *key = key_measure(cb);
    if(!rows++)
      bpi_buf_adds(b, "| Benchmark | Measure | Change | Verdict |\n"
                   "|:--|:--|--:|:--|\n");
    bpi_buf_adds(b, "| ");
    bpi_comment_md_text(b, cb->name, BP_COMMENT_NAME_CHARS);
    bpi_buf_adds(b, " | ");
    if(!key) {
      bpi_buf_adds(b, "- | - | unchanged |\n");
      continue;
    }
    bpi_comment_md_text(b, key->slug, BP_COMMENT_NAME_CHARS);
    bpi_buf_adds(b, " | ");
    add_pct(b, key->pct);
    if(key->has_interval)
      bpi_buf_printf(b, " (%+.2f%% to %+.2f%%)", key->pct_lo, key->pct_hi);
    bpi_buf_adds(b, " |");
    add_row_verdict(b, key, r->c->threshold_pct);
    bpi_buf_adds(b, " |\n");
  }
  if(rows)
    bpi_buf_adds(b, "\n");
}

/* Whether order[pos] shares its profile with order[i]. */
static bool same_group(const struct render *r, size_t pos, size_t i)
{
  return bpi_compare_same_profile(r->order[pos], r->order[i]);
}

/* Whether order[pos] is the first, in the order, of the benchmarks that
 * share one whole-run profile: its function comparison is theirs. */
static bool group_first(const struct render *r, size_t pos)
{
  const struct bp_cmp_bench *cb = r->order[pos];
  if(!cb->shared_profile || !bpi_compare_has_diff(cb))
    return false;
  for(size_t i = 0; i < pos; i++)
    if(same_group(r, pos, i))
      return false;
  return true;
}

/* Whether one-sided x's profile is rep's profile on that side. */
static bool one_sided_in(const struct bp_cmp_bench *rep,
                         const struct bp_cmp_bench *x)
{
  const struct bp_cmp_profile *p = x->presence == BP_CMP_NEW ? &x->head :
                                   &x->base;
  const struct bp_cmp_profile *q = x->presence == BP_CMP_NEW ? &rep->head :
                                   &rep->base;
  return x->shared_profile && x->presence != BP_CMP_BOTH &&
         p->state == BP_CMP_PROFILED && p->dir && q->dir &&
         !strcmp(p->dir, q->dir) && p->samples == q->samples;
}

/* "A, B" for each benchmark of order[pos]'s group, then those on
 * one side only whose profile it is too. */
static void add_group_names(struct render *r, size_t pos)
{
  const struct bp_cmp *c = r->c;
  const struct bp_cmp_bench *rep = r->order[pos];
  size_t named = 0;
  for(size_t i = 0; i < r->n; i++)
    if(i == pos || same_group(r, pos, i)) {
      bpi_buf_adds(r->b, named++ ? ", " : "");
      bpi_comment_md_text(r->b, r->order[i]->name, BP_COMMENT_NAME_CHARS);
    }
  for(int side = 0; side < 2; side++) {
    size_t one = 0;
    for(size_t i = 0; i < c->nbenches; i++) {
      const struct bp_cmp_bench *x = &c->benches[i];
      if(x->presence != (side ? BP_CMP_NEW : BP_CMP_REMOVED) ||
         !one_sided_in(rep, x))
        continue;
      bpi_buf_adds(r->b, one++ ? ", " : side ? " (and, in the head only, " :
                   " (and, in the base only, ");
      bpi_comment_md_text(r->b, x->name, BP_COMMENT_NAME_CHARS);
    }
    if(one)
      bpi_buf_addc(r->b, ')');
  }
}

/* The function comparison of each profile several benchmarks share,
 * once: whose it is, what grew and shrank most, the table and the
 * differential flame graph.  No benchmark is credited with a function:
 * a benchmark removed or added changes the whole run's functions too. */
static void add_shared(struct render *r)
{
  for(size_t pos = 0; pos < r->n; pos++) {
    enum depth d = depth_at(r, pos);
    if(d < DEPTH_DETAILS || !group_first(r, pos))
      continue;
    bpi_buf_adds(r->b, "#### Functions of the whole run\n\n"
                 "<details><summary>functions of ");
    add_group_names(r, pos);
    bpi_buf_adds(r->b, "</summary>\n\nOne profile holds the samples of "
                 "these benchmarks: the harness ran them in one process "
                 "without marking them, so the functions below are the "
                 "whole run's, no one benchmark's (a benchmark added or "
                 "removed changes them too), and their costs are per run "
                 "of the harness, which sizes each benchmark's iterations "
                 "to its time: a function whose work per iteration doubled "
                 "grows by less than that per run, and the other functions "
                 "of its benchmark, run fewer times, shrink (what shrinks "
                 "most here may be no faster). Mark each benchmark with "
                 "the hooks "
                 "(`benchprof/hooks.h`) or run each on its own "
                 "(`benchprof run --each google-benchmark`) for its own "
                 "functions.\n");
    add_funcs(r, r->order[pos], d == DEPTH_ALL);
    if(!r->order[pos]->diff_url)
      add_diff_path(r, r->order[pos]);
    bpi_buf_adds(r->b, "\n</details>\n\n");
  }
}

/* Each benchmark's heading and details, as deep as the cut leaves them;
 * those without a confirmed change (they come last) in one block. */
static void add_benches(struct render *r)
{
  size_t without = 0, shown = 0;
  for(size_t pos = 0; pos < r->n; pos++)
    without += !r->order[pos]->flag;
  for(size_t pos = 0; pos < r->n; pos++) {
    const struct bp_cmp_bench *cb = r->order[pos];
    enum depth d = depth_at(r, pos);
    if(d < DEPTH_DETAILS)
      break;   /* the cut goes from the end of the order */
    if(!cb->flag && !shown++) {
      bpi_buf_adds(r->b, "<details><summary>");
      size_t kept = 0;
      while(pos + kept < r->n && depth_at(r, pos + kept) >= DEPTH_DETAILS)
        kept++;
      if(kept < without)
        bpi_buf_printf(r->b, "%zu of the ", kept);
      bpi_buf_printf(r->b, "%zu benchmark%s without a confirmed change"
                     "</summary>\n\n", without, without == 1 ? "" : "s");
    }
    add_bench(r, cb, d == DEPTH_ALL);
  }
  if(shown)
    bpi_buf_adds(r->b, "</details>\n\n");
}

/* What the cut left out, counted. */
struct left {
  size_t func_rows, func_benches;   /* function rows, of benchmarks */
  size_t details, details_beyond;   /* details of benchmarks in the table;
                                       of them beyond the threshold */
  size_t details_confirmed;         /* ... and of those, confirmed */
  size_t rows, rows_beyond;         /* table rows (details too); of them
                                       changes beyond the threshold,
                                       confirmed or not */
  size_t rows_confirmed;            /* ... and of those, confirmed */
  bool values;                      /* the new and removed benchmarks'
                                       values */
};

static struct left left_out(const struct render *r)
{
  struct left l = {0};
  for(size_t pos = 0; pos < r->n; pos++) {
    const struct bp_cmp_bench *cb = r->order[pos];
    enum depth d = depth_at(r, pos);
    /* a shared profile's rows are its group's first benchmark's */
    bool rows_its = !cb->shared_profile || group_first(r, pos);
    size_t rows = d == DEPTH_DETAILS && rows_its ? func_rows(r, cb) : 0;
    l.func_rows += rows;
    l.func_benches += rows > 0;
    l.details += d == DEPTH_ROW;
    l.rows += d == DEPTH_NONE;
    /* a change within the noise is beyond the threshold too (its
     * key measure's change), only not confirmed */
    bool far = changed_beyond(cb);
    l.details_beyond += d == DEPTH_ROW && far;
    l.details_confirmed += d == DEPTH_ROW && cb->flag;
    l.rows_beyond += d == DEPTH_NONE && far;
    l.rows_confirmed += d == DEPTH_NONE && cb->flag;
  }
  l.values = r->one_sided && !with_values(r);
  return l;
}

static const char *plural(size_t n)
{
  return n == 1 ? "" : "s";
}

/* Where everything is: compare.json, linked when the compare directory
 * is served; else, for a run's comparison (posted: nothing is beside
 * it), in the compare/ folder of the run's output directory; else beside
 * this comment. */
static void add_where_all_is(struct render *r)
{
  struct bp_buf url;
  bool linked = false;
  bpi_buf_init(&url);
  if(r->o->compare_url && *r->o->compare_url) {
    bpi_buf_adds(&url, r->o->compare_url);
    if(url.len && url.data[url.len - 1] != '/')
      bpi_buf_addc(&url, '/');
    bpi_buf_adds(&url, BP_FILE_COMPARE_JSON);
    bpi_buf_addc(&url, '\0');
    linked = !bpi_buf_failed(&url) &&
             add_link(r->b, true, BP_FILE_COMPARE_JSON, url.data);
  }
  if(!linked && r->o->run_output)
    bpi_buf_adds(r->b, "`" BP_RUNDIR_COMPARE "/" BP_FILE_COMPARE_JSON "` "
                 "(in the run's output directory, on the runner that ran "
                 "the job)");
  else if(!linked)
    bpi_buf_adds(r->b, "`" BP_FILE_COMPARE_JSON "` (beside this comment "
                 "in the comparison's output)");
  bpi_buf_adds(r->b, " has them all: every benchmark's measures and "
               "functions.");
  bpi_buf_cleanup(&url);
}

/* " (N of them beyond the threshold, M of those confirmed)" after what
 * was left out, or " (none beyond the threshold)" (docs/verdicts.md). */
static void add_beyond_count(struct bp_buf *b, size_t beyond,
                             size_t confirmed)
{
  if(beyond)
    bpi_buf_printf(b, " (%zu of them beyond the threshold, %zu of those "
                   "confirmed)", beyond, confirmed);
  else
    bpi_buf_adds(b, " (none beyond the threshold)");
}

/* The note that says exactly what the size limit left out. */
static void add_left_note(struct render *r)
{
  struct left l = left_out(r);
  struct bp_buf *b = r->b;
  const char *sep = "";
  if(!l.func_rows && !l.details && !l.rows && !l.values)
    return;
  bpi_buf_printf(b, "_Left out to stay under %zu characters: ",
                 r->o->max_chars ? r->o->max_chars :
                 (size_t)BP_COMMENT_MAX_CHARS);
  if(l.func_rows) {
    bpi_buf_printf(b, "%zu function row%s of %zu benchmark%s", l.func_rows,
                   plural(l.func_rows), l.func_benches,
                   plural(l.func_benches));
    sep = "; ";
  }
  if(l.details) {
    bpi_buf_printf(b, l.details == r->n - l.rows ?
                   "%sthe details of all %zu benchmark%s in the table" :
                   "%sthe details of the %zu least changed benchmark%s in "
                   "the table", sep, l.details, plural(l.details));
    add_beyond_count(b, l.details_beyond, l.details_confirmed);
    sep = "; ";
  }
  if(l.values) {
    bpi_buf_printf(b, "%sthe values of the new and removed benchmarks",
                   sep);
    sep = "; ";
  }
  if(l.rows) {
    bpi_buf_printf(b, "%sthe table rows of the %zu least changed "
                   "benchmark%s", sep, l.rows, plural(l.rows));
    add_beyond_count(b, l.rows_beyond, l.rows_confirmed);
  }
  bpi_buf_adds(b, "._ ");
  add_where_all_is(r);
  bpi_buf_adds(b, "\n");
}

/* The hidden line that says which comparison this is: its head's
 * commit, commit time and run's end, so that a comparison finishing
 * late never replaces one of a newer head (comment.h). */
static void add_compared(struct bp_buf *b, const struct bp_cmp_side *head)
{
  const struct bp_run_when w = {head->hash, head->commit_time,
                                head->end_time};
  bpi_comment_compared_line(b, &w);
}

/* A store a browser cannot read without credentials: its profiles and
 * flame graphs are not linked (compare_pr.c left their URLs out), and
 * the reader is told why and what the operator can set. */
static void add_private_store_note(struct render *r)
{
  if(!r->o->private_store)
    return;
  bpi_buf_adds(r->b, "\n_Profiles and flame graphs are not linked: the "
               "store (");
  bpi_comment_md_code(r->b, r->o->private_store);
  bpi_buf_adds(r->b, ") needs credentials to read, and no public URL is "
               "set. Fetch the keys named here with the store's "
               "credentials, or set `store.public_url` (`--public-url`) "
               "to a URL browsers can read them from._\n");
}

/* Benchmarks whose profiles have no web URL (add_links): why, and what
 * gives them links, once for the comment rather than once a benchmark. */
static void add_no_links_note(struct render *r)
{
  if(!r->unlinked)
    return;
  bpi_buf_adds(r->b, "\n_No viewer links: the profiles have no web (http "
               "or https) URL; publish them to a store with a public URL "
               "(store.public_url, --public-url) or give compare "
               "--base-url and --head-url._\n");
}

static void render(struct render *r)
{
  const struct bp_cmp *c = r->c;
  r->unlinked = false;
  bpi_comment_marker(r->b, r->o->project ? r->o->project : c->head.project,
                     r->o->testbed ? r->o->testbed : c->head.testbed,
                     r->o->suite);
  bpi_buf_adds(r->b, "\n");
  add_compared(r->b, &c->head);
  add_summary(r);
  add_table(r);
  bpi_comment_missing_profiles(r->b, c);
  add_benches(r);
  add_shared(r);
  bpi_comment_one_sided(r->b, c, BP_CMP_NEW, with_values(r));
  bpi_comment_one_sided(r->b, c, BP_CMP_REMOVED, with_values(r));
  add_left_note(r);
  add_no_links_note(r);
  add_private_store_note(r);
  if(c->head.report_uuid && c->head.project) {
    bpi_buf_adds(r->b, "\n");
    struct bp_buf url;
    bpi_buf_init(&url);
    bpi_buf_adds(&url, c->head.bencher_url ? c->head.bencher_url :
                 "https://bencher.dev");
    bpi_buf_adds(&url, "/perf/");
    bpi_comment_url_encode(&url, c->head.bencher_project ?
                                 c->head.bencher_project : c->head.project);
    bpi_buf_adds(&url, "/reports/");
    bpi_comment_url_encode(&url, c->head.report_uuid);
    bpi_buf_addc(&url, '\0');
    if(!bpi_buf_failed(&url) &&
       add_link(r->b, true, "Bencher report and plots", url.data))
      bpi_buf_adds(r->b, "\n");
    bpi_buf_cleanup(&url);
  }
  else if(c->head.bencher_pending)
    /* no link yet, and no silence either: a reader would think the run
     * never reached Bencher, or look there for it in vain */
    bpi_buf_adds(r->b, "\n_The Bencher report is not published yet: it "
                 "is kept in the runner's spool, and the next job (or "
                 "`benchprof flush`) sends it._\n");
}

/* Render into b after `dropped` steps of the cut; true when it fits in
 * max bytes. */
static bool fits(struct render *r, size_t dropped, size_t max)
{
  bpi_buf_reset(r->b);
  r->dropped = dropped;
  render(r);
  return !bpi_buf_failed(r->b) && r->b->len <= max;
}

/* Within the threshold, the larger change first; then by name, as
 * compare orders them. */
static int by_change(const void *a, const void *b)
{
  const struct bp_cmp_bench *x = *(const struct bp_cmp_bench *const *)a;
  const struct bp_cmp_bench *y = *(const struct bp_cmp_bench *const *)b;
  const struct bp_cmp_measure *kx = key_measure(x), *ky = key_measure(y);
  int cx = kx && kx->change, cy = ky && ky->change;
  double sx = kx ? change_size(kx) : 0, sy = ky ? change_size(ky) : 0;
  if(cx != cy)
    return cx ? -1 : 1;
  if(sx != sy)
    return sx > sy ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* r->order: the benchmarks on both sides, most important first. */
static bool order_benches(struct render *r)
{
  const struct bp_cmp *c = r->c;
  r->order = malloc((c->nbenches ? c->nbenches : 1) * sizeof(*r->order));
  if(!r->order)
    return false;
  for(size_t i = 0; i < c->nbenches; i++)
    if(c->benches[i].presence == BP_CMP_BOTH && beyond(&c->benches[i]))
      r->order[r->n++] = &c->benches[i];
  r->nbeyond = r->n;
  for(size_t i = 0; i < c->nbenches; i++)
    if(c->benches[i].presence == BP_CMP_BOTH && !beyond(&c->benches[i]))
      r->order[r->n++] = &c->benches[i];
  r->one_sided = c->nnew || c->nremoved;
  qsort(r->order + r->nbeyond, r->n - r->nbeyond, sizeof(*r->order),
        by_change);
  return true;
}

/* The fewest steps of the cut that fit: a step never lengthens the
 * comment but for the digits of the note's counts, so the search may
 * land a step short; the steps after it are tried in turn. */
static void cut(struct render *r, size_t max)
{
  size_t lo = 0, hi = cut_steps(r);
  if(fits(r, 0, max))
    return;
  while(lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if(fits(r, mid, max))
      hi = mid;
    else
      lo = mid + 1;
  }
  while(!fits(r, lo, max) && lo < cut_steps(r))
    lo++;
}

bp_code bpi_comment_markdown(const struct bp_cmp *c,
                             const struct bp_comment_opts *o,
                             struct bp_buf *out, struct bp_err *err)
{
  struct bp_buf tmp;
  size_t max = o->max_chars ? o->max_chars : BP_COMMENT_MAX_CHARS;
  struct render r = {.c = c, .o = o, .b = &tmp,
                     .max_functions = o->no_functions ? 0 :
                                      o->max_functions ? o->max_functions :
                                      BP_CMP_FUNCTIONS_DEFAULT};
  bp_code rc = BP_OK;
  bpi_buf_init(&tmp);
  if(!order_benches(&r))
    return bpi_err_set(err, BPE_NOMEM, 0, "comment: rendering");
  /* bytes, not characters: a byte count within the limit always is */
  cut(&r, max);
  if(bpi_buf_failed(&tmp))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "comment: rendering");
  else if(tmp.len > max)
    rc = bpi_err_set(err, BPE_INVAL, 0, "comment: even its summary exceeds "
                     "%zu characters", max);
  else
    bpi_buf_add(out, tmp.data, tmp.len);
  bpi_buf_cleanup(&tmp);
  free(r.order);
  return rc;
}

bp_code bpi_comment_no_base(const struct bp_comment_opts *o,
                            const struct bp_cmp_side *head,
                            const char *base_branch, const char *why,
                            struct bp_buf *out, struct bp_err *err)
{
  bpi_comment_marker(out, o->project ? o->project : head->project,
                     o->testbed ? o->testbed : head->testbed, o->suite);
  bpi_buf_adds(out, "\n");
  add_compared(out, head);
  bpi_buf_adds(out, "### benchprof");
  add_suite(out, o->suite);
  bpi_buf_adds(out, ": no base to compare with\n\n"
               "Profiled ");
  bpi_comment_md_code(out, head->branch ? head->branch : "head");
  bpi_buf_adds(out, " (");
  add_short_hash(out, head->hash);
  bpi_buf_adds(out, "), but no run of its base ");
  bpi_comment_md_code(out, base_branch && *base_branch ? base_branch : "(unknown)");
  bpi_buf_adds(out, " was found");
  if(head->testbed) {
    bpi_buf_adds(out, " for testbed ");
    bpi_comment_md_code(out, head->testbed);
  }
  bpi_buf_adds(out, ": ");
  bpi_comment_md_text(out, why && *why ? why : "no reason given", 2000);
  if(o->base_foreign)
    bpi_buf_adds(out, "\n\nPublish this repository's runs under a project "
                 "name of its own (`BENCHER_PROJECT` or `bencher.project`), "
                 "its base branch's too, so that later pull requests have a "
                 "base.\n");
  else if(o->base_hint) {
    bpi_buf_adds(out, "\n\nThe base branch's other runs: ");
    bpi_comment_md_text(out, o->base_hint, 2000);
    bpi_buf_adds(out, ".\n");
  }
  else
    bpi_buf_adds(out, "\n\nRun benchprof on the base branch (publishing to "
                 "the same store) so that later pull requests have a "
                 "base.\n");
  return bpi_buf_failed(out) ? bpi_err_set(err, BPE_NOMEM, 0, "comment")
                             : BP_OK;
}

