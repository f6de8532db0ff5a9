/* compare_names: benchmarks whose names differ only by a build hash (a
 * binary named mybench-3f2a9c1d on the base, mybench-77ab0e12 on the
 * head) compared as one, and whether the two runs are of one command
 * (see compare_int.h, benchname.h). */
#include "bp_setup.h"
#include "benchname.h"
#include "compare_int.h"

#include <stdlib.h>
#include <string.h>

/* A removed name by its stem (bpi_benchname_hash_stem; all of a name
 * without a build hash, which a new name with one may pair with). */
struct stem {
  const char *name;
  size_t len;
};

static int by_stem(const void *a, const void *b)
{
  const struct stem *x = a, *y = b;
  size_t n = x->len < y->len ? x->len : y->len;
  int d = memcmp(x->name, y->name, n);
  if(d || x->len != y->len)
    return d ? d : x->len < y->len ? -1 : 1;
  return 0;
}

/* Whether new name head pairs (bpi_benchname_hash_renamed) with one of
 * the n removed names st (sorted) whose stem is head's first len
 * characters: those are next to each other. */
static bool pairs_in(const char *head, size_t len, const struct stem *st,
                     size_t n)
{
  struct stem key = {head, len};
  const struct stem *hit = bsearch(&key, st, n, sizeof(*st), by_stem);
  if(!hit)
    return false;
  while(hit > st && !by_stem(hit - 1, &key))
    hit--;
  for(; hit < st + n && !by_stem(hit, &key); hit++)
    if(bpi_benchname_hash_renamed(hit->name, head))
      return true;
  return false;
}

/* Whether new name head pairs with any removed one: of its stem (a
 * base's "x-3f2a9c1d" or plain "x" for the head's "x-77ab0e12"), or of
 * all of it (a base's "x-0123456789abcdef" for the head's "x"). */
static bool pairs_any(const char *head, const struct stem *st, size_t n)
{
  size_t len = strlen(head), stem = bpi_benchname_hash_stem(head, NULL);
  return (stem < len && pairs_in(head, stem, st, n)) ||
         pairs_in(head, len, st, n);
}

/* Whether any of the new names (head's only) differs only by a build hash
 * from any of the removed ones: each removed stem sorted once, each new
 * one looked up (a large suite renamed has thousands of each). */
static bool any_hash_pair(const char *const *news, size_t nnew,
                          const char *const *removed, size_t nremoved,
                          bool *nomem)
{
  struct stem *st = malloc((nremoved ? nremoved : 1) * sizeof(*st));
  size_t n = 0;
  bool found = false;
  *nomem = !st;
  for(size_t i = 0; st && i < nremoved; i++)
    st[n++] = (struct stem){removed[i],
                            bpi_benchname_hash_stem(removed[i], NULL)};
  if(n)
    qsort(st, n, sizeof(*st), by_stem);
  for(size_t i = 0; n && !found && i < nnew; i++)
    found = pairs_any(news[i], st, n);
  free(st);
  return found;
}

bool bpi_cmp_pair_hashed(struct bp_cmp *c, const struct side *base,
                         const struct side *head, const char **names,
                         size_t *n, const char **base_names)
{
  /* names: head's (those not in base are new), then base's only */
  size_t nhead = head->report.nbenches, nremoved = *n - nhead, nnew = 0;
  const char **news = malloc((nhead ? nhead : 1) * sizeof(*news));
  if(!news)
    return false;
  size_t new_at = 0;
  for(size_t i = 0; i < nhead; i++)
    if(!bpi_cmp_report_bench(base, names[i])) {
      new_at = i;
      news[nnew++] = names[i];
    }
  bool nomem = false;
  if(nnew == 1 && nremoved == 1 &&
     bpi_benchname_hash_renamed(names[nhead], names[new_at])) {
    base_names[new_at] = names[nhead];
    (*n)--;
  }
  else if(nnew && nremoved)
    c->hash_names_unpaired = any_hash_pair(news, nnew, names + nhead,
                                           nremoved, &nomem);
  free(news);
  return !nomem;
}

bool bpi_compare_other_command(const struct bp_cmp *c)
{
  return c->base.command && c->head.command &&
         !bpi_benchname_same_command(c->base.command, c->head.command);
}
