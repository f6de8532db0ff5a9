/* The summary of a comparison on stderr, shared by `benchprof compare` and
 * `benchprof run` on a pull request: per changed benchmark its largest
 * flagged change and the function that explains it.  Names are the
 * benchmark's own: control characters are cleaned before they reach a
 * terminal or a CI log (where a line may be read as a command). */
#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"

#include "buf.h"
#include "compare.h"
#include "profile.h"

#include <math.h>

/* A regression is explained by what grew, an improvement by what shrank. */
static const char *top_verb(const struct bp_cmp_bench *b)
{
  return b->flag == BP_CMP_REGRESSION ? "grew" : "shrank";
}

static const char *flag_name(const struct bp_cmp_bench *b)
{
  return b->flag == BP_CMP_REGRESSION ? "regression" : "improvement";
}

void bp_cli_compare_benches(const struct bp_cmp *c)
{
  struct bp_buf name, fn, slug;
  bpi_buf_init(&name);
  bpi_buf_init(&fn);
  bpi_buf_init(&slug);
  for(size_t i = 0; i < c->nbenches; i++) {
    const struct bp_cmp_bench *b = &c->benches[i];
    if(b->presence != BP_CMP_BOTH || !b->flag)
      continue;
    const struct bp_cmp_func *top = bpi_compare_top_func(b,
      b->flag == BP_CMP_REGRESSION);
    bpi_buf_reset(&name);
    bpi_buf_reset(&fn);
    bpi_buf_reset(&slug);
    bpi_profile_clean_name(&name, b->name, '\0');
    bpi_profile_clean_name(&slug, b->max_slug ? b->max_slug : "-", '\0');
    bpi_profile_clean_name(&fn, top ? top->name : "-", '\0');
    if(bpi_buf_failed(&name) || bpi_buf_failed(&fn) || bpi_buf_failed(&slug))
      break;
    if(isnan(b->max_pct))
      bp_msg_note("  %s: %s from 0 (%s); function that %s most: %s",
                  name.data, slug.data, flag_name(b), top_verb(b), fn.data);
    else
      bp_msg_note("  %s: %s %+.2f%% (%s); function that %s most: %s",
                  name.data, slug.data, b->max_pct, flag_name(b),
                  top_verb(b), fn.data);
  }
  bpi_buf_cleanup(&name);
  bpi_buf_cleanup(&fn);
  bpi_buf_cleanup(&slug);
}
