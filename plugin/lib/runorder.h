/* runorder: which of two runs is the newer, the one rule that both the
 * store's latest pointer (publish_store.c: a branch's newest run) and
 * the pull request comment (forge.c: the comparison it shows, whose head
 * is a run) go by, so that neither ever moves back to an older run when
 * jobs finish out of order (a re-run of an old commit, a spool flushed
 * late, the pipeline of an earlier push that ends after the next one's).
 *
 * Commits are ordered by their committer times, so a newer commit's run
 * wins even when it ended first.  The run's end time decides only where
 * commit times say nothing: the same commit run again (the later run
 * wins), two commits with the same time (rebased or amended in one
 * second: either could be the branch's), or a side without one (a hash
 * git did not know, a record written before benchprof kept the time, a
 * time that is not one).  Without end times either, neither is newer. */
#ifndef BP_LIB_RUNORDER_H
#define BP_LIB_RUNORDER_H

#include <stdbool.h>

/* One run as the order sees it; NULL: unknown.  Borrowed strings. */
struct bp_run_when {
  const char *commit;       /* its commit (full hash, or the run's name
                               for it when there is none) */
  const char *commit_time;  /* the commit's committer time, ISO 8601 */
  const char *end_time;     /* when the run ended, ISO 8601 in UTC as
                               benchprof writes it (compared as text) */
};

/* Whether run a is newer than run b (b then leaves what a wrote alone).
 * Never true both ways; false for equal runs. */
bool bpi_run_newer(const struct bp_run_when *a, const struct bp_run_when *b);

#endif
