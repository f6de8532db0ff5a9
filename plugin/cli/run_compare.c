/* benchprof run, on a pull request: after publishing, deliver the base
 * branch's publications still in the spool, then compare the run
 * with its base through bpi_compare_pr (compare_pr.h): the base commit's
 * run in the store, else the base branch's latest for the same testbed;
 * the head fetched from the store when its publication was delivered
 * (for the comment's links), else the run directory itself; the
 * differential flame graphs stored next to the head's artifacts.  Writes
 * OUTPUT/compare/.  No base (also when the base's run in the store is
 * another repository's, one named alike): comment.md says so, and why.
 * A base the store could not give (unreachable, an error, refused
 * credentials) is not "no base": no comment.md, and stderr and
 * no-comment.txt say why (a good comment posted before stays).
 * Nothing here changes the exit status, except a failure under --strict
 * (an unread base is one) and, with --fail-on-regression
 * (comment.fail_on_regression), a confirmed regression (exit 3).  A
 * failure is a warning unless strict, an error then
 * (bp_cli_pub_failure_kept). */
#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"
#include "publish_cli.h"

#include "buf.h"
#include "ci.h"
#include "compare_pr.h"
#include "config.h"
#include "err.h"
#include "fileio.h"
#include "rundir.h"
#include "store.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

/* Whether the run directory's publication was delivered (publish.c notes
 * its state in the run's manifest). */
static bool delivered(const char *dir)
{
  struct bp_manifest m;
  struct bp_err ignored = {0};
  if(bpi_manifest_read(&m, dir, &ignored))
    return false;
  bool yes = bpi_manifest_delivered(&m);
  bpi_manifest_cleanup(&m);
  return yes;
}

/* " 'BRANCH@COMMIT'", the commit "latest" when unknown; compare
 * percent-decodes BRANCH and splits at the last '@', so those two are
 * written %25 and %40 */
static void add_side(struct bp_buf *b, const char *branch, const char *commit)
{
  struct bp_buf side;
  bpi_buf_init(&side);
  for(const char *c = branch ? branch : "?"; *c; c++)
    if(*c == '%' || *c == '@')
      bpi_buf_printf(&side, "%%%02X", (unsigned char)*c);
    else
      bpi_buf_addc(&side, *c);
  bpi_buf_printf(&side, "@%s", commit ? commit : "latest");
  bpi_buf_addc(&side, '\0');
  bpi_buf_addc(b, ' ');
  bpi_buf_shell_word(b, bpi_buf_failed(&side) ? "?" : side.data, false);
  bpi_buf_cleanup(&side);
}

/* Inside Bencher's bare-metal runner (its entrypoint sets
 * BENCHPROF_HOOKS=bencher) the job's comment.md is in a VM that has no
 * forge token and is gone when the job ends: naming that file as the
 * thing to post would send the user to a path that no longer exists.
 * The comparison is in the store, so the CI step after `bencher run`
 * makes it again there: say the exact command. */
static void say_bencher_posts(const struct bp_pr_opts *o)
{
  struct bp_buf cmd;
  bpi_buf_init(&cmd);
  bpi_buf_adds(&cmd, "benchprof compare --project ");
  bpi_buf_shell_word(&cmd, o->project ? o->project : "?", false);
  bpi_buf_adds(&cmd, " --testbed ");
  bpi_buf_shell_word(&cmd, o->testbed ? o->testbed : "?", false);
  if(o->suite) {
    bpi_buf_adds(&cmd, " --suite ");
    bpi_buf_shell_word(&cmd, o->suite, false);
  }
  add_side(&cmd, o->base.branch, o->base.commit);
  add_side(&cmd, o->head_branch, o->head_hash);
  bpi_buf_addc(&cmd, '\0');
  bp_msg_note("compare: %s/" BP_FILE_COMMENT " stays in this runner, which "
              "cannot post it; post it from the CI step after 'bencher "
              "run', which reads the same store: %s, then 'benchprof "
              "comment --markdown benchprof-compare/" BP_FILE_COMMENT "' "
              "(runner-hooks/bencher/README.md)", o->out,
              bpi_buf_failed(&cmd) ? "benchprof compare" : cmd.data);
  bpi_buf_cleanup(&cmd);
}

/* Who posts dir's comment: the job's end hook when benchprof's runner
 * hooks set up the job, dir is their output directory (or a suite's in
 * it) and comments are on (the hook posts nothing otherwise); the CI
 * after the job inside Bencher's runner; else the operator, told how. */
static void say_who_posts(const struct bp_pr_opts *o, const char *dir,
                          const struct bp_config *cfg)
{
  const char *hooks = getenv("BENCHPROF_HOOKS");
  if((!cfg || cfg->comment.enabled) &&
     bpi_ci_hooks_post_comment(environ, dir))
    bp_msg_note("compare: %s/" BP_FILE_COMMENT " (the job's end hook "
                "posts it)", o->out);
  else if(hooks && !strcmp(hooks, "bencher"))
    say_bencher_posts(o);
  else
    bp_msg_note("compare: %s/" BP_FILE_COMMENT " (post it with 'benchprof "
                "comment --markdown %s/" BP_FILE_COMMENT "')", o->out,
                o->out);
}

/* dir: the run's output directory. */
static void say(const struct bp_cli_publish *p, const struct bp_pr_opts *o,
                const struct bp_pr_result *r, bool token_set,
                const char *dir)
{
  const struct bp_cmp *c = r->cmp;
  const struct bp_config *cfg = p->config;
  if(r->base_unread) {
    bp_cli_say_base_unread(r, o->st, cfg, token_set,
                           !bp_cli_pub_failure_kept(p), o->out);
    return;
  }
  if(r->no_base) {
    bp_msg_warn("compare: no base to compare with: %s", r->no_base);
    if(r->suite_hint)
      bp_msg_note("compare: %s", r->suite_hint);
    bp_msg_note("compare: the comment (saying so) is %s/" BP_FILE_COMMENT,
                o->out);
    return;
  }
  struct bp_buf counts;
  bpi_buf_init(&counts);
  bpi_compare_counts_text(c, &counts);
  bpi_buf_addc(&counts, '\0');
  bp_msg_note("compare with %s (%.12s): %s", o->base.branch,
              c->base.hash ? c->base.hash : "?",
              bpi_buf_failed(&counts) ? "?" : counts.data);
  bpi_buf_cleanup(&counts);
  bp_cli_compare_benches(c);
  say_who_posts(o, dir, cfg);
}

/* out/identity.json: the run's identity as `benchprof ci --json` prints
 * it, written before the comment, so that a runner's completed hook
 * posts comment.md only on the pull request and commit it was written
 * for (an output directory kept between jobs still holds the last
 * job's; benchprof-wrap --job-comment compares the two). */
static bp_code write_identity(const struct bp_ident *id, const char *suite,
                              const char *out, struct bp_err *err)
{
  struct bp_buf text;
  bpi_buf_init(&text);
  bpi_ident_json(id, suite, &text);
  char *path = bpi_text_path_join(out, BP_FILE_COMMENT_IDENTITY);
  bp_code rc = bpi_file_mkdirs(out, err);
  if(!rc)
    rc = !path || bpi_buf_failed(&text)
      ? bpi_err_set(err, BPE_NOMEM, 0, BP_FILE_COMMENT_IDENTITY)
      : bpi_file_write(path, text.data, text.len, false, err);
  free(path);
  bpi_buf_cleanup(&text);
  return rc;
}

/* repository: the run's (bpi_ident_repository), NULL unknown: a base
 * another repository published under the same project name is none.
 * suite: the run's (publish.h), NULL none: the base is that suite's.
 * *unread: the store could not give the base (said). */
static bp_code compare(const struct bp_cli_publish *p,
                       const struct bp_ident *id, const char *suite,
                       const char *repository, struct bp_store *st,
                       bool token_set, const char *dir,
                       const char *end_time, const char *out,
                       size_t *regressions, bool *unread,
                       struct bp_err *err)
{
  const struct bp_config *cfg = p->config;
  bool pub = id->hash && delivered(dir);
  /* the head's commit time and end, for the comment's compared line
   * when the head is the run directory (a stored head has its own) */
  char commit_time[BP_COMMIT_TIME_MAX];
  bool timed = id->hash && bpi_ci_commit_time(".", environ, id->hash,
                                              commit_time);
  const struct bp_store_run run = {id->project, id->branch, id->hash,
                                   id->testbed, suite};
  struct bp_pr_opts o = {
    .st = st, .project = id->project, .testbed = id->testbed,
    .suite = suite, .out = out,
    .base = {.branch = id->base_branch, .commit = id->base_hash,
             .latest_fallback = true},
    .head = pub ? (struct bp_pr_side){.branch = id->branch,
                                      .commit = id->hash}
                : (struct bp_pr_side){.dir = dir},
    .head_fallback_dir = dir, .comment_no_base = true,
    .head_branch = id->branch, .head_hash = id->hash, .fill_identity = true,
    .head_commit_time = timed ? commit_time : NULL,
    .head_end_time = end_time,
    .repository = repository,
    .diff_run = pub ? &run : NULL,
    .cmp = {.threshold_pct = cfg ? cfg->comment.threshold : 0,
            .wall_time_counted = cfg && cfg->comment.wall_time_counted},
    /* room for the note that the base is the branch's latest */
    .comment = {.project = id->project, .testbed = id->testbed,
                .suite = suite, .max_chars = BP_COMMENT_MAX_CHARS - 512,
                .max_functions = cfg ? cfg->comment.max_functions : 0,
                .no_functions = cfg && !cfg->comment.max_functions,
                .run_output = true},
  };
  struct bp_pr_result r = {0};
  bp_code rc = write_identity(id, suite, out, err);
  if(rc)
    return rc;
  rc = bpi_compare_pr(&o, &r, err);
  if(!rc && r.base_is_latest && id->base_hash && !r.no_base)
    bp_msg_note("compare: the base commit %.12s has no run; comparing "
                "with %s's latest instead", id->base_hash, id->base_branch);
  if(!rc && r.head_fallback)
    bp_msg_warn("compare: %s (comparing the run directory instead, "
                "without links)", r.head_fallback);
  if(r.diff_failures)
    bp_msg_warn("compare: %s", r.diff_error.msg);
  if(!rc)
    say(p, &o, &r, token_set, dir);
  *unread = !rc && r.base_unread;
  if(!rc && r.cmp)
    *regressions = r.cmp->nregressions;
  bpi_pr_result_cleanup(&r);
  return rc;
}

/* What became of one of the base branch's spooled publications; ctx is
 * the base branch. */
static void base_flushed(void *ctx, const struct bp_publish_result *r)
{
  const char *base = ctx;
  if(r->delivered) {
    struct bp_buf line;
    bpi_buf_init(&line);
    bp_cli_delivered_line(r, &line);
    bp_msg_note("compare: %s's spooled run first: %s", base,
                bpi_buf_failed(&line) ? r->id : line.data);
    bpi_buf_cleanup(&line);
    bp_cli_firefox_lost(r);
  }
  else if(!r->busy && !r->rejected_before)
    /* said: the comparison may then not find that base */
    bp_msg_warn("compare: %s's spooled run %s %s: %s", base, r->id,
                r->rejected ? "rejected (never sent again)" : "still spooled",
                r->failure.msg[0] ? r->failure.msg
                                  : bp_strerror(r->failure.code));
}

/* The base branch's own publications still in the spool (a network
 * outage kept them there; the completed hook would send them seconds
 * after this comparison): delivered first, oldest first, with run's
 * network options and deadline, so that the base the comparison looks
 * for is in the store.  The same project's only, and of the same
 * repository when both name one (the spool is the runner's, and
 * repositories named alike share a project name); one another benchprof
 * is delivering is left to it.  Quiet when there is none: one listing of
 * the spool and its publications' publication.json. */
static void flush_base(const struct bp_cli_pub_setup *s)
{
  struct bp_publish_scope scope = {s->id.project, s->id.base_branch,
                                   s->repository};
  struct bp_err err = {0};
  if(!s->o.spool_dir)   /* none: nothing can be waiting there */
    return;
  if(bpi_publish_flush(&s->o, &scope, base_flushed, s->id.base_branch,
                       NULL, &err))
    bp_msg_warn_err(&err, err.code);
  bp_cli_pub_say_interrupted();
}

/* The comparison of a pull request's run in dir with its base (s: the
 * run's setup); false when it failed or the store could not give the
 * base (said). */
static bool compare_with_base(const struct bp_cli_publish *p,
                              const struct bp_cli_pub_setup *s,
                              const char *dir, const char *end_time,
                              size_t *regressions)
{
  struct bp_store *st = NULL;
  struct bp_err err = {0};
  bool unread = false;
  flush_base(s);
  bp_code rc = bpi_store_open(&st, &s->o.store, &err);
  if(!rc) {
    char *out = bpi_text_path_join(dir, BP_RUNDIR_COMPARE);
    rc = out ? compare(p, &s->id, s->o.suite, s->o.repository, st,
                       s->o.store.bearer != NULL, dir, end_time, out,
                       regressions, &unread, &err)
             : bpi_err_set(&err, BPE_NOMEM, 0, "compare");
    if(out)
      bp_cli_comment_file(p->config, out);
    free(out);
  }
  if(rc) {
    bp_cli_pub_say_failure_err(p, &err, rc);
    bp_msg_warn("compare: no comparison with the base");
  }
  bpi_store_close(st);
  return !rc && !unread;
}

int bp_cli_run_compare(const struct bp_cli_publish *p, const char *dir,
                       const char *end_time, int status, bool *failed_out)
{
  struct bp_cli_pub_setup s;
  bool failed = false;
  size_t regressions = 0;
  *failed_out = false;
  if(!p->enabled)
    return status;
  if(!bp_cli_pub_prepare(p, &s, true)) {
    failed = true;
    bp_msg_warn("compare: no comparison with the base");
  }
  else if(!s.id.base_branch) {
    /* not a pull request: there is no base, and nothing to say */
    bp_cli_pub_prepare_cleanup(&s);
    return status;
  }
  else
    failed = !compare_with_base(p, &s, dir, end_time, &regressions);
  bp_cli_pub_prepare_cleanup(&s);
  *failed_out = failed;
  if(!failed && p->fail_on_regression && regressions && status == 0) {
    /* the gate: opt-in, on confirmed regressions only */
    bp_msg_error("%zu confirmed regression%s (--fail-on-regression): exit "
                 "status %d", regressions, regressions == 1 ? "" : "s",
                 BP_EXIT_REGRESSION);
    return BP_EXIT_REGRESSION;
  }
  return failed && p->strict && status == 0 ? BP_EXIT_ERROR : status;
}
