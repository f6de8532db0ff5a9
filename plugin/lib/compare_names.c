/* compare_names: benchmarks whose names differ only by a build hash (a
 * binary named mybench-3f2a9c1d on the base, mybench-77ab0e12 on the
 * head) compared as one, and whether the two runs are of one command
 * (see compare_int.h, benchname.h). */
#include "bp_setup.h"
#include "benchname.h"
#include "compare_int.h"

#include <stdlib.h>
#include <string.h>

/* A name on one side only, by its stem (bpi_benchname_hash_stem). */
struct stem {
  const char *name;
  size_t len;
  bool digits_only;
};

static int by_stem(const void *a, const void *b)
{
  const struct stem *x = a, *y = b;
  size_t n = x->len < y->len ? x->len : y->len;
  int d = memcmp(x->name, y->name, n);
  if(d || x->len != y->len)
    return d ? d : x->len < y->len ? -1 : 1;
  return (int)x->digits_only - (int)y->digits_only;
}

/* Whether any of the new names (head's only) differs only by a build hash
 * from any of the removed ones: each removed stem sorted once, each new
 * one looked up (a large suite renamed has thousands of each). */
static bool any_hash_pair(const char *const *news, size_t nnew,
                          const char *const *removed, size_t nremoved,
                          bool *nomem)
{
  struct stem *st = malloc(nremoved * sizeof(*st));
  size_t n = 0;
  bool found = false;
  *nomem = !st;
  for(size_t i = 0; st && i < nremoved; i++) {
    struct stem s = {removed[i], 0, false};
    s.len = bpi_benchname_hash_stem(s.name, &s.digits_only);
    if(s.len < strlen(s.name))
      st[n++] = s;
  }
  if(n)
    qsort(st, n, sizeof(*st), by_stem);
  for(size_t i = 0; n && !found && i < nnew; i++) {
    struct stem key = {news[i], 0, false};
    key.len = bpi_benchname_hash_stem(key.name, &key.digits_only);
    if(key.len == strlen(key.name))
      continue;
    /* a suffix of digits only pairs with a hash that is not */
    bool want_digits = key.digits_only;
    key.digits_only = false;
    found = bsearch(&key, st, n, sizeof(*st), by_stem) != NULL;
    key.digits_only = true;
    found = found ||
            (!want_digits && bsearch(&key, st, n, sizeof(*st), by_stem));
  }
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
     bpi_benchname_same_but_hash(names[new_at], names[nhead])) {
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
