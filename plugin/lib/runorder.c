/* runorder: the order of two runs (see runorder.h). */
#include "bp_setup.h"
#include "runorder.h"
#include "text.h"

#include <stdint.h>
#include <string.h>

bool bpi_run_newer(const struct bp_run_when *a, const struct bp_run_when *b)
{
  int64_t a_ms, b_ms;
  bool same_commit = a->commit && b->commit && !strcmp(a->commit, b->commit);
  if(!same_commit && bpi_text_iso8601_ms(a->commit_time, &a_ms) &&
     bpi_text_iso8601_ms(b->commit_time, &b_ms) && a_ms != b_ms)
    return a_ms > b_ms;
  return a->end_time && b->end_time && strcmp(a->end_time, b->end_time) > 0;
}
