/* benchprof comment --markdown FILE: put the comment `benchprof compare`
 * wrote on the pull request (GitHub) or merge request (GitLab), editing
 * our earlier one (found by its marker, and written by the token's own
 * account: anyone can copy the marker) instead of adding another, unless
 * that one shows a newer comparison (its compared line: a job of an
 * earlier push, or an earlier run of the same commit, finished last).
 * Two jobs that both posted one at the same moment leave one (forge.h).
 * Without a token the comment goes to the summary file (the job summary,
 * $GITHUB_STEP_SUMMARY) or stays where it is, and benchprof says which.
 * The token is read from the environment and never printed.  When
 * compare.json lies beside the comment, its verdict also becomes a commit
 * status on the head commit (GitHub's statuses API, GitLab's commit
 * status API), failure on a confirmed regression, linking the comment;
 * the posted comment carries that verdict (forge.h's verdict line), and
 * the status follows the one the comment shows after it is set
 * (bpi_comment_settle): jobs of one head whose statuses land out
 * of order still leave the status saying what the comment does.  When
 * the comment read back shows this job's comparison but the request's
 * head has moved on (an edit of this job slower than the new head's
 * whole job), its first line says so, and the new head's status is left
 * to its own job. */
#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"

#include "ci.h"
#include "comment.h"
#include "compare_pr.h"
#include "config.h"
#include "err.h"
#include "fileio.h"
#include "http.h"
#include "rundir.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct comment_args {
  const char *markdown;
  struct bp_forge_target target;
  bool have_target;
  const char *token_env;
  const char *summary_file;
  bool verbose;
  bool ci;                  /* --ci: the target from CI detection */
  bool warn_on_failure;     /* --warn-on-failure: the caller goes on */
  const char *config;       /* --config */
  struct bp_ident id;       /* what --ci found (owns the strings) */
  const struct bp_config *cfg;  /* its network settings (timeouts,
                                   retries, CA file) for the forge's API */
  char *request_head;       /* target.request_head's string (owned) */
};

extern char **environ;

static void usage(FILE *out)
{
  fprintf(out,
    "usage: benchprof comment --markdown FILE [options]\n"
    "\n"
    "Post FILE (" BP_FILE_COMMENT " from 'benchprof compare') on a pull "
    "request, or\n"
    "update the one posted before: it is found by the hidden benchprof\n"
    "marker in FILE.  One that shows a newer comparison (a later head\n"
    "commit, or a later run of the same one) is left as it is.  When two\n"
    "jobs both post one at the same moment, the one posted first stays,\n"
    "showing the newer comparison, and the other is deleted.  The\n"
    "comment is read back comment.settle seconds after it is written:\n"
    "another job's older comparison written over it meanwhile is\n"
    "replaced by this one again, a newer one is left; this one there\n"
    "while the request's head is now another commit gets a first line\n"
    "saying so.  With compare.json beside FILE the verdict is also the\n"
    "head commit's status, set again from the comment when another job's\n"
    "comparison of the same commit replaced this one meanwhile.  Without\n"
    "a token (or without a target) the comment is appended to the\n"
    "summary file instead.\n"
    "\n"
    "  -m, --markdown FILE     the comment\n"
    "      --github OWNER/REPO and --pr N: a GitHub pull request\n"
    "      --gitlab PROJECT_ID and --mr IID: a GitLab merge request\n"
    "      --api-url URL       the API (default https://api.github.com,\n"
    "                          https://gitlab.com/api/v4)\n"
    "      --token-env NAME    the variable holding the token (default\n"
    "                          GITHUB_TOKEN; GitLab: GITLAB_TOKEN, an access\n"
    "                          token with the api scope: GitLab refuses the\n"
    "                          job's CI_JOB_TOKEN for notes)\n"
    "      --summary-file F    where the comment goes without a token\n"
    "                          (default: $GITHUB_STEP_SUMMARY)\n"
    "      --ci                the pull or merge request this CI job is for\n"
    "                          (as 'benchprof ci' detects it); nothing to do\n"
    "                          outside one\n"
    "      --config FILE       the configuration: comment.enabled false posts\n"
    "                          nothing, comment.token_env names the token\n"
    "      --warn-on-failure   a comment that could not be posted is said as\n"
    "                          a warning, not an error (still exit 1): for a\n"
    "                          caller that goes on without it, as the runner\n"
    "                          hooks do outside strict mode\n"
    "  -v, --verbose           one line per request (no secrets)\n"
    "  -h, --help              this help\n");
}

static int parse_args(int argc, char **argv, struct comment_args *a)
{
  enum { OPT_GITHUB = 256, OPT_PR, OPT_GITLAB, OPT_MR, OPT_API,
         OPT_TOKEN_ENV, OPT_SUMMARY, OPT_CI, OPT_CONFIG,
         OPT_WARN_ON_FAILURE };
  static const struct option longopts[] = {
    {"markdown", required_argument, NULL, 'm'},
    {"github", required_argument, NULL, OPT_GITHUB},
    {"pr", required_argument, NULL, OPT_PR},
    {"gitlab", required_argument, NULL, OPT_GITLAB},
    {"mr", required_argument, NULL, OPT_MR},
    {"api-url", required_argument, NULL, OPT_API},
    {"token-env", required_argument, NULL, OPT_TOKEN_ENV},
    {"summary-file", required_argument, NULL, OPT_SUMMARY},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {"ci", no_argument, NULL, OPT_CI},
    {"config", required_argument, NULL, OPT_CONFIG},
    {"warn-on-failure", no_argument, NULL, OPT_WARN_ON_FAILURE},
    {NULL, 0, NULL, 0},
  };
  const char *github = NULL, *gitlab = NULL, *pr = NULL, *mr = NULL;
  int opt;
  optind = 1;
  while((opt = getopt_long(argc, argv, "m:vh", longopts, NULL)) != -1) {
    switch(opt) {
    case 'm': a->markdown = optarg; break;
    case OPT_GITHUB: github = optarg; break;
    case OPT_PR: pr = optarg; break;
    case OPT_GITLAB: gitlab = optarg; break;
    case OPT_MR: mr = optarg; break;
    case OPT_API:
      if(bp_cli_url_option("api-url", optarg, BP_URL_HTTP))
        return BP_EXIT_USAGE;
      a->target.api_url = optarg;
      break;
    case OPT_TOKEN_ENV:
      if(bp_cli_token_env_option(optarg, "GITHUB_TOKEN or GITLAB_TOKEN"))
        return BP_EXIT_USAGE;
      a->token_env = optarg;
      break;
    case OPT_SUMMARY: a->summary_file = optarg; break;
    case 'v': a->verbose = true; break;
    case OPT_CI: a->ci = true; break;
    case OPT_CONFIG: a->config = optarg; break;
    case OPT_WARN_ON_FAILURE: a->warn_on_failure = true; break;
    case 'h':
      usage(stdout);
      return BP_EXIT_OK;
    default:
      return bp_cli_bad_option("comment", argv, "m:vh", longopts);
    }
  }
  if(optind != argc || !a->markdown) {
    bp_msg_error("comment wants --markdown FILE and no other arguments");
    return BP_EXIT_USAGE;
  }
  if(a->ci && (github || gitlab || pr || mr)) {
    bp_msg_error("--ci finds the pull request itself: drop --github, "
                 "--gitlab, --pr and --mr");
    return BP_EXIT_USAGE;
  }
  if((github && gitlab) || (github && !pr) || (gitlab && !mr) ||
     (pr && !github) || (mr && !gitlab)) {
    bp_msg_error("give either --github OWNER/REPO --pr N or --gitlab "
                 "PROJECT_ID --mr IID");
    return BP_EXIT_USAGE;
  }
  if(github || gitlab) {
    a->have_target = true;
    a->target.forge = gitlab ? BP_FORGE_GITLAB : BP_FORGE_GITHUB;
    a->target.repo = gitlab ? gitlab : github;
    a->target.number = gitlab ? mr : pr;
  }
  return -1;
}

static void debug_line(void *ctx, const char *line)
{
  (void)ctx;
  bp_msg_note("%s", line);
}

/* The variable the token is read from. */
static const char *token_name(const struct comment_args *a)
{
  if(a->token_env)
    return a->token_env;
  return a->target.forge == BP_FORGE_GITLAB ? "GITLAB_TOKEN" :
         "GITHUB_TOKEN";
}

/* What a GitLab operator must set: GitLab's notes API takes access
 * tokens only, never the job's CI_JOB_TOKEN. */
static void gitlab_token_hint(const char *name)
{
  bp_msg_note("GitLab accepts no CI job token (CI_JOB_TOKEN) for merge "
              "request notes: put a project or personal access token with "
              "the api scope in $%s, or name its variable in "
              "comment.token_env (--token-env)",
              strcmp(name, "CI_JOB_TOKEN") ? name : "GITLAB_TOKEN");
}

/* The token from the environment; NULL when none.  A job token named on
 * purpose is sent as one (GitLab refuses it for notes: said when it
 * does). */
static const char *find_token(struct comment_args *a)
{
  const char *name = token_name(a);
  const char *tok = getenv(name);
  if(a->target.forge == BP_FORGE_GITLAB && !strcmp(name, "CI_JOB_TOKEN"))
    a->target.job_token = true;
  return tok && *tok ? tok : NULL;
}

/* A refusal of an access token (never its value): which variable it came
 * from, and what makes a forge refuse one. */
static void refused_token_hint(const struct comment_args *a, long status,
                               const struct bp_err *err)
{
  const char *name = token_name(a);
  if(a->target.forge == BP_FORGE_GITLAB && a->target.job_token)
    gitlab_token_hint(name);
  else if(a->target.forge == BP_FORGE_GITLAB)
    bp_msg_note("GitLab refused the access token from $%s (HTTP %ld): it "
                "is expired or revoked, lacks the api scope, or its role "
                "may not write notes in project %s", name, status,
                a->target.repo);
  else if(status == 403 && strstr(err->msg, "rate limit"))
    ;  /* GitHub's rate limit: the token is fine */
  else
    bp_msg_note("GitHub refused the token from $%s (HTTP %ld): it is "
                "expired or revoked, or may not write to %s (a "
                "fine-grained token wants \"Pull requests: write\", a "
                "workflow's GITHUB_TOKEN \"pull-requests: write\" in its "
                "permissions)", name, status, a->target.repo);
}

/* What the forge's error status says beyond its own words: a 401 or 403
 * is about the token sent; a 404 names a project, repository or request
 * the forge does not have (or will not show this token).  Any other
 * status says nothing of either: no hint. */
static void failure_hint(const struct comment_args *a, long status,
                         const struct bp_err *err)
{
  bool gitlab = a->target.forge == BP_FORGE_GITLAB;
  if(status == 401 || status == 403)
    refused_token_hint(a, status, err);
  else if(status == 404)
    bp_msg_note("%s answered 404: check the %s (%s %s) and the %s (%s %s) "
                "at %s; it answers 404 too when the token from $%s may not "
                "see %s", gitlab ? "GitLab" : "GitHub",
                gitlab ? "project id" : "repository",
                gitlab ? "--gitlab" : "--github", a->target.repo,
                gitlab ? "merge request iid" : "pull request number",
                gitlab ? "--mr" : "--pr", a->target.number,
                a->target.api_url ? a->target.api_url : gitlab ?
                "https://gitlab.com/api/v4" : "https://api.github.com",
                token_name(a), gitlab ? "the project" : "the repository");
}

/* The verdict of the comparison beside the comment (compare.json), as the
 * verdict line carries it; false when there is none. */
static bool own_verdict(const struct comment_args *a,
                        struct bp_comment_verdict *out)
{
  struct bp_pr_verdict v;
  if(!bpi_compare_pr_verdict(a->markdown, &v))
    return false;
  memset(out, 0, sizeof(*out));
  snprintf(out->head, sizeof(out->head), "%s", v.head_hash);
  bool whole = strlen(v.head_hash) < sizeof(out->head);
  out->regressions = v.regressions;
  out->unconfirmed = v.unconfirmed;
  free(v.head_hash);
  if(!whole)   /* not a commit hash: the status POST says so */
    snprintf(out->head, sizeof(out->head), "%s", "?");
  return true;
}

/* "head abc1234, committed T, its run ended E" of a compared line. */
static void describe_compared(char *out, size_t n,
                              const struct bp_comment_compared *c)
{
  size_t len;
  snprintf(out, n, "head %.7s", c->head[0] ? c->head : "unknown");
  len = strlen(out);
  if(c->commit_time[0] && len < n)
    snprintf(out + len, n - len, ", committed %s", c->commit_time);
  len = strlen(out);
  if(c->end_time[0] && len < n)
    snprintf(out + len, n - len, ", its run ended %s", c->end_time);
}

/* Our comparison is in the comment, but the request's head moved on
 * (a push since this job checked it): the comment says so, and the new
 * head's status is left to its own job. */
static void say_outdated(const struct comment_args *a,
                         const struct bp_comment_settled *done,
                         const char *comment_id)
{
  const char *what = a->target.forge == BP_FORGE_GITLAB ? "merge request"
                                                        : "pull request";
  if(done->unmarked)
    bp_msg_warn("the %s's head is now %.12s, and comment %s shows this "
                "older comparison as if current: not marked so (%s); the "
                "next run of %.12s replaces it", what, done->now_head,
                comment_id, done->unsettled ? "the comment kept changing" :
                "no room for the note in a comment's 65536 characters",
                done->now_head);
  else
    bp_msg_note("the %s's head is now %.12s (a push after this job "
                "checked it), and comment %s shows this older comparison: "
                "marked it as not of the head until %.12s's lands; no "
                "status set for %.12s", what, done->now_head, comment_id,
                done->now_head, done->now_head);
}

/* What reading the comment back after writing it did (another job's
 * older comparison written over ours: ours again; a newer one: left;
 * ours while the request's head moved on: marked). */
static void say_settled(const struct comment_args *a,
                        const struct bp_comment_settled *done,
                        const char *comment_id)
{
  char shown[2 * BP_COMMENT_FIELD_MAX + 96];
  if(done->reposts)
    bp_msg_note("another job wrote an older comparison over this one in "
                "comment %s: wrote this one again (%u time%s)", comment_id,
                done->reposts, done->reposts == 1 ? "" : "s");
  if(done->overtaken) {
    describe_compared(shown, sizeof(shown), &done->shown);
    bp_msg_note("another job's newer comparison (%s) is in comment %s now: "
                "left it", shown, comment_id);
  }
  if(done->outdated)
    say_outdated(a, done, comment_id);
}

/* Make the comment end with the newest comparison, and the verdict of
 * the comparison beside it (compare.json) the commit status of its head
 * commit, linking the comment, following what the comment finally shows
 * (another job of the same head may have edited it meanwhile); a token
 * that may not set statuses is a warning, not a failure. */
static void settle(struct comment_args *a,
                   const struct bp_comment_transport *tr, const char *posted,
                   const struct bp_comment_posted *res)
{
  struct bp_comment_verdict mine;
  struct bp_comment_settled done;
  struct bp_err err = {0};
  char desc[160];
  bool verdict = own_verdict(a, &mine);
  bp_code rc = bpi_comment_settle(&a->target, res->id, posted,
                                  verdict ? &mine : NULL, res->url, tr,
                                  &done, &err);
  const char *context = a->target.status_context ? a->target.status_context
                                                 : BP_COMMENT_STATUS_CONTEXT;
  say_settled(a, &done, res->id ? res->id : "?");
  if(verdict && !done.posts) {
    bp_msg_warn("commit status not set (%s)", err.msg);
    return;
  }
  if(verdict) {
    bpi_comment_verdict_description(desc, sizeof(desc), &done.set);
    if(done.followed)
      bp_msg_note("another job's comparison of %.12s is in the comment "
                  "now: the commit status follows it", done.set.head);
    bp_msg_note("commit status %s of %.12s: %s (%s)", context,
                done.set.head, done.set.regressions ? "failure" : "success",
                desc);
  }
  if(rc)
    bp_msg_warn("the comment could not be checked again after it was "
                "written (%s): another job's comparison may show there%s",
                err.msg, verdict ? ", and the commit status differ from it"
                                 : "");
  else if(done.unsettled && verdict)
    bp_msg_warn("the comment kept changing after it was written: it may "
                "not show the newest comparison, nor status %s what it "
                "shows", context);
  else if(done.unsettled)
    bp_msg_warn("the comment kept changing after it was written: it may "
                "not show the newest comparison");
}

/* md with its verdict line (forge.h) after it, malloc'd, so that another
 * job can set the status the comment calls for; md itself (copied) when
 * there is no verdict or no room for the line; NULL: out of memory. */
static char *with_verdict(const struct comment_args *a, const char *md)
{
  struct bp_comment_verdict v;
  struct bp_buf b, line;
  size_t len = strlen(md);
  bpi_buf_init(&b);
  bpi_buf_init(&line);
  bpi_buf_add(&b, md, len);
  if(len && md[len - 1] != '\n')
    bpi_buf_addc(&line, '\n');
  /* too long with it: posted as it is, its status not followed */
  if(own_verdict(a, &v) && bpi_comment_verdict_line(&line, &v) &&
     len + line.len <= BP_COMMENT_MAX_CHARS)
    bpi_buf_add(&b, line.data, line.len);
  bpi_buf_addc(&b, '\0');
  bool failed = bpi_buf_failed(&b) || bpi_buf_failed(&line);
  bpi_buf_cleanup(&line);
  if(failed)
    bpi_buf_cleanup(&b);
  return failed ? NULL : b.data;
}

/* The commit the comparison is of: compare.json's head, else what --ci
 * detected; NULL when unknown (then nothing is checked).  Malloc'd. */
static char *run_head(const struct comment_args *a)
{
  struct bp_pr_verdict v;
  if(bpi_compare_pr_verdict(a->markdown, &v) && v.head_hash)
    return v.head_hash;
  return a->id.hash ? strdup(a->id.hash) : NULL;
}

/* Whether the request has moved on past the compared commit (a re-run
 * of an older job): its comment, about the newer head, is kept.  The
 * compared commit may be the head or the merge commit the forge made of
 * it (a job that passes --hash "$GITHUB_SHA").  When the forge cannot
 * say, the comment is posted as before, with a warning; when it says
 * the compared commit is the head, a->target.head_is_current. */
static bool stale(struct comment_args *a,
                  const struct bp_comment_transport *tr)
{
  char *head = run_head(a), *now = NULL, *merge = NULL;
  struct bp_err err = {0};
  bool old = false;
  if(!head)
    return false;
  if(bpi_comment_pr_head(&a->target, tr, &now, &merge, &err))
    bp_msg_warn("cannot read the request's head commit (%s): posting "
                "without checking that %.12s is still its head", err.msg,
                head);
  else if(strcmp(now, head) && !(merge && !strcmp(merge, head))) {
    old = true;
    bp_msg_note("%s %s#%s is now at %.12s, and this comparison is of "
                "%.12s: its comment is left as it is",
                a->target.forge == BP_FORGE_GITLAB ? "merge request" :
                "pull request", a->target.repo, a->target.number, now, head);
  }
  else {
    a->target.head_is_current = true;
    a->request_head = now;   /* a push after this is told by it */
    a->target.request_head = now;
    now = NULL;
  }
  free(now);
  free(merge);
  free(head);
  return old;
}

/* Our comment shows a newer comparison than this one (a job of an
 * earlier push, or an earlier run of the same commit, that finished
 * last): it is kept, and so is the commit status it set; not a
 * failure. */
static void say_left(const struct comment_args *a,
                     const struct bp_comment_posted *res)
{
  const struct bp_comment_compared *c = &res->shown;
  char when[2 * BP_COMMENT_FIELD_MAX + 32] = "";
  if(c->commit_time[0])
    snprintf(when, sizeof(when), ", committed %s", c->commit_time);
  if(c->end_time[0])
    snprintf(when + strlen(when), sizeof(when) - strlen(when),
             ", its run ended %s", c->end_time);
  bp_msg_note("the %s's comment already shows a newer comparison (head "
              "%.7s%s); left it (comment %s)",
              a->target.forge == BP_FORGE_GITLAB ? "merge request" :
              "pull request", c->head[0] ? c->head : "unknown", when,
              res->id ? res->id : "?");
}

/* Another job made a comment at the same moment as this one: the one
 * with the lower id survives and ours went (or could not: a warning);
 * what went wrong settling the two is a warning too, not a failure. */
static void say_twin(const struct bp_comment_posted *res)
{
  if(res->answer_lost && res->duplicate && !res->duplicate_kept)
    bp_msg_note("the answer to this job's comment was lost, and another "
                "job posted one at the same moment: kept the first (%s) "
                "and deleted the other (%s)", res->id ? res->id : "?",
                res->duplicate);
  else if(res->duplicate && !res->duplicate_kept)
    bp_msg_note("another job posted its comment (%s) at the same moment: "
                "kept that one and deleted this job's (%s)",
                res->id ? res->id : "?", res->duplicate);
  if(res->warning.code)
    bp_msg_warn("%s", res->warning.msg);
}

/* The comment could not be posted (exit 1): an error, or a warning with
 * --warn-on-failure, whose caller goes on without it (a runner hook
 * outside strict mode: the job does not fail, so its log shows no
 * error). */
static void say_failure(const struct comment_args *a, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));
static void say_failure(const struct comment_args *a, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  bp_msg_vsay(a->warn_on_failure, fmt, ap);
  va_end(ap);
}

static void say_failure_err(const struct comment_args *a,
                            const struct bp_err *err, bp_code code)
{
  say_failure(a, "%s", err->msg[0] ? err->msg : bp_strerror(code));
}

static int post(struct comment_args *a, const char *file_md)
{
  struct bp_err err = {0};
  struct bp_http_opts http;
  struct bp_comment_posted res = {.id = NULL};
  bpi_http_opts_default(&http);
  if(a->cfg)
    bpi_config_http_opts(a->cfg, &http);
  if(a->verbose) {
    http.debug = debug_line;
    http.debug_ctx = NULL;
  }
  struct bp_comment_transport tr = {.send = bpi_http_send, .http = &http};
  if(stale(a, &tr))
    return BP_EXIT_OK;
  char *md = with_verdict(a, file_md);
  if(!md) {
    say_failure(a, "out of memory");
    return BP_EXIT_ERROR;
  }
  bp_code rc = bpi_comment_post(&a->target, md, &tr, &res, &err);
  if(rc) {
    say_failure_err(a, &err, rc);
    if(rc == BPE_HTTP)
      failure_hint(a, res.http_status, &err);
    bp_msg_note("the comment stays in %s", a->markdown);
    bpi_comment_posted_cleanup(&res);
    free(md);
    return BP_EXIT_ERROR;
  }
  say_twin(&res);
  if(res.left) {
    say_left(a, &res);
    bpi_comment_posted_cleanup(&res);
    free(md);
    return BP_EXIT_OK;
  }
  if(res.foreign)
    bp_msg_warn("%zu comment%s by another account carr%s benchprof's "
                "marker: left alone (only the token's own comment is "
                "edited)", res.foreign, res.foreign == 1 ? "" : "s",
                res.foreign == 1 ? "ies" : "y");
  bp_msg_note("%s comment %s on %s %s#%s (%u request%s)",
              res.updated ? "updated" : "posted", res.id ? res.id : "",
              a->target.forge == BP_FORGE_GITLAB ? "GitLab merge request" :
              "pull request", a->target.repo, a->target.number,
              res.requests, res.requests == 1 ? "" : "s");
  settle(a, &tr, md, &res);
  bpi_comment_posted_cleanup(&res);
  free(md);
  return BP_EXIT_OK;
}

/* --ci: the request this job is for.  -1 to go on, else the exit status
 * (0 outside a request: nothing to do). */
static int detect_target(struct comment_args *a)
{
  struct bp_err err = {0};
  bp_code rc = bpi_ci_detect(&a->id, environ, ".", &err);
  if(rc) {
    say_failure_err(a, &err, rc);
    return BP_EXIT_ERROR;
  }
  const char *prov = a->id.provider ? a->id.provider : "";
  bool gitlab = !strcmp(prov, "gitlab");
  if(!a->id.pr || !a->id.repo || (!gitlab && strcmp(prov, "github"))) {
    bp_msg_note("not a pull or merge request (benchprof ci): no comment");
    return BP_EXIT_OK;
  }
  a->have_target = true;
  a->target.forge = gitlab ? BP_FORGE_GITLAB : BP_FORGE_GITHUB;
  a->target.repo = a->id.repo;
  a->target.number = a->id.pr;
  if(!a->target.api_url)
    a->target.api_url = a->id.api_url;
  return -1;
}

static int comment_with(struct comment_args *a);

int cmd_comment(int argc, char **argv)
{
  struct comment_args a = {.markdown = NULL};
  struct bp_config cfg;
  int status = parse_args(argc, argv, &a);
  if(status >= 0)
    return status;
  if(bp_cli_config_load(&cfg, a.config, false, "commenting without it") ==
     BP_CLI_CONFIG_FAIL) {
    bpi_config_cleanup(&cfg);
    return BP_EXIT_USAGE;
  }
  if(!cfg.comment.enabled) {
    bp_msg_note("comments are off (comment.enabled): not posting %s",
                a.markdown);
    status = BP_EXIT_OK;
  }
  else if(a.ci && (status = detect_target(&a)) >= 0)
    ;  /* not a request, or detection failed: said so */
  else {
    if(!a.token_env)
      a.token_env = cfg.comment.token_env;
    a.cfg = &cfg;
    status = comment_with(&a);
  }
  bpi_ident_cleanup(&a.id);
  bpi_config_cleanup(&cfg);
  return status;
}

static int comment_with(struct comment_args *a0)
{
  struct comment_args a = *a0;
  struct bp_err err = {0};
  char *md = NULL;
  size_t len = 0;
  int status;
  bp_code rc = bpi_file_read(a.markdown, &md, &len, &err);
  if(rc) {
    say_failure_err(&a, &err, rc);
    return BP_EXIT_ERROR;
  }
  char *marker = bpi_comment_find_marker(md);
  if(!marker || len > BP_COMMENT_MAX_CHARS || strlen(md) != len) {
    say_failure(&a, "%s: %s", a.markdown, !marker ?
                "no benchprof marker (write it with 'benchprof compare')" :
                len > BP_COMMENT_MAX_CHARS ?
                "longer than a comment may be (65536 characters)" :
                "contains a NUL byte");
    free(marker);
    free(md);
    return BP_EXIT_ERROR;
  }
  free(marker);
  a.target.token = a.have_target ? find_token(&a) : NULL;
  if(a.target.token) {
    /* a suite's comment (its marker names one) sets a status of its own,
     * "benchprof/SUITE": a job's steps never replace each other's */
    bool nomem;
    char *context = bpi_comment_status_context(md, &nomem);
    if(nomem) {
      say_failure(&a, "out of memory");
      free(md);
      return BP_EXIT_ERROR;
    }
    a.target.status_context = context;
    a.target.settle_ms = a.cfg ? a.cfg->comment.settle_ms
                               : BP_CONFIG_DEFAULT_COMMENT_SETTLE_MS;
    status = post(&a, md);
    free(a.request_head);
    free(context);
    free(md);
    return status;
  }
  const char *summary = a.summary_file;
  if(!summary) {
    summary = getenv("GITHUB_STEP_SUMMARY");
    if(summary && !*summary)
      summary = NULL;
  }
  if(a.have_target) {
    bp_msg_note("no token in $%s: not posting", token_name(&a));
    if(a.target.forge == BP_FORGE_GITLAB && strcmp(token_name(&a),
                                                   "CI_JOB_TOKEN"))
      gitlab_token_hint(token_name(&a));
  }
  if(summary) {
    rc = bpi_file_append(summary, md, len, &err);
    if(rc) {
      say_failure_err(&a, &err, rc);
      free(md);
      return BP_EXIT_ERROR;
    }
    bp_msg_note("the comment was appended to %s", summary);
  }
  else
    bp_msg_note("the comment stays in %s (no summary file)", a.markdown);
  free(md);
  return BP_EXIT_OK;
}
