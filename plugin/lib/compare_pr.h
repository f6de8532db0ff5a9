/* compare_pr: the pull request comparison as one use case, for both
 * `benchprof compare` and `benchprof run` on a pull request:
 *   locate each side (a run directory, or a run in the store: a commit's,
 *   else the branch's latest) -> fetch it (OUT/.sides/) -> compare ->
 *   write OUT (compare.json, the differential flame graphs) -> store the
 *   diff.svg files next to the head's artifacts (optional) -> write the
 *   comment (OUT/comment.md; with no base, one that says why; a base
 *   another repository published under the same project is none; a base
 *   the store could not give, none: see base_unread).
 * The caller prints; the result says what happened.  Owns nothing of the
 * options; the result's strings and comparison are its own. */
#ifndef BP_LIB_COMPARE_PR_H
#define BP_LIB_COMPARE_PR_H

#include <stdbool.h>
#include <stddef.h>

#include "benchprof/benchprof.h"
#include "comment.h"
#include "compare.h"
#include "store.h"

/* One side: a run directory, or a run in the store. */
struct bp_pr_side {
  const char *dir;        /* a run directory; NULL: from the store */
  const char *branch;     /* the store's: the branch */
  const char *commit;     /* its commit; NULL: the branch's latest */
  bool latest_fallback;   /* the commit has no run: take the latest */
};

struct bp_pr_opts {
  struct bp_store *st;        /* for sides in the store and the diffs */
  const char *project, *testbed;  /* of sides in the store */
  const char *suite;          /* ... and their suite (storekey.h); NULL:
                                 none */
  const char *out;            /* the compare directory (created) */
  struct bp_pr_side base, head;
  /* the head (in the store) cannot be found or fetched: compare this run
   * directory instead (without links; result's head_fallback says why);
   * NULL: that is an error */
  const char *head_fallback_dir;
  /* no base: write a comment that says why (result's no_base) instead of
   * failing; a base that could not be read (result's base_unread) is not
   * failing either, and writes no comment */
  bool comment_no_base;
  /* the head's identity, for the no-base comment and (fill_identity)
   * for what a run directory's manifest does not say: project, testbed,
   * head_branch, head_hash, head_commit_time (the commit's committer
   * time), head_end_time (when the run ended), base.branch; NULL fields:
   * unknown.  The head's commit and times go into the comment, which
   * never replaces one about a newer comparison (runorder.h). */
  const char *head_branch, *head_hash;
  const char *head_commit_time, *head_end_time;
  bool fill_identity;
  /* the head's repository (publish.h's, "gitlab:HOST/ID"): a base in the
   * store whose latest pointer or manifest names another repository is
   * no base (a project name two repositories share); NULL: not asked */
  const char *repository;
  /* store each diff.svg under this run's keys (storekey.h), its URL in
   * the comment; NULL: do not */
  const struct bp_store_run *diff_run;
  struct bp_cmp_opts cmp;
  struct bp_comment_opts comment;
};

struct bp_pr_result {
  struct bp_cmp *cmp;         /* NULL when there was no base */
  char *base_key, *head_key;  /* the stored manifests compared, or NULL */
  bool base_is_latest;        /* the base commit had no run: latest used */
  char *no_base;              /* why there was no base, or NULL */
  /* the base could not be read: the store did not answer (a network
   * error, a 5xx after the retries), answered another error, or refused
   * the credentials.  That is not "no base": no comment is written (an
   * earlier OUT/comment.md is removed, OUT/no-comment.txt says why, for
   * the runner hooks), so that a good comment on the pull request is not
   * replaced by a false one.  The store's error (its URL has no
   * credentials), or NULL. */
  char *base_unread;
  bp_code base_error;         /* ... BPE_NET, BPE_HTTP, or BPE_IO (a
                                 file store, or the fetched copy) */
  long base_status;           /* ... the HTTP status, 0 when none came */
  bool base_refused;          /* ... a 401 or 403: the credentials */
  /* a side was not found in the store, but its branch has runs on the
   * testbed of other suites or without one: what and what to do
   * (bpi_compare_suite_hint), or NULL.  With no base it is the no-base
   * comment's advice. */
  char *suite_hint;
  char *head_fallback;        /* why the head is the run directory, or NULL */
  size_t diff_failures;       /* diff.svg files that could not be stored,
                                 or the store's pages (site.h) that could
                                 not take the verdict */
  struct bp_err diff_error;   /* the first of them */
};

void bpi_pr_result_cleanup(struct bp_pr_result *r);

/* The verdict a written comment is about, from the compare.json beside it
 * (what a commit status says). */
struct bp_pr_verdict {
  char *head_hash;          /* the head commit (owned) */
  size_t regressions;       /* confirmed */
  size_t unconfirmed;       /* regressions not confirmed */
};
/* False when there is none: no compare.json beside comment_path (a
 * comment without a comparison, a file moved alone), or one without a
 * head commit or a count of regressions.  Free v->head_hash. */
bool bpi_compare_pr_verdict(const char *comment_path,
                            struct bp_pr_verdict *v);

bp_code bpi_compare_pr(const struct bp_pr_opts *o, struct bp_pr_result *r,
                       struct bp_err *err);

#endif
