/* Publishing a run directory from the command (run and flush): the
 * options resolved (identity from the flags, CI and defaults; targets;
 * credentials from the environment only), signals caught so that an
 * interrupted publication stays spooled, and what is said about it.  The
 * work itself is publish.c's. */
#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"
#include "publish_cli.h"


#include "buf.h"
#include "ci.h"
#include "config.h"
#include "err.h"
#include "http.h"
#include "publish.h"
#include "text.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define TOKEN_ENV "BENCHER_API_TOKEN"

void bp_cli_iso_now(char out[32])
{
  struct timespec ts;
  struct tm tm;
  clock_gettime(CLOCK_REALTIME, &ts);
  gmtime_r(&ts.tv_sec, &tm);
  size_t n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(out + n, 32 - n, ".%03dZ", (int)(ts.tv_nsec / 1000000) % 1000);
}

/* A SIGTERM, SIGINT or SIGHUP while publishing: the request in flight is
 * abandoned (http.c watches this), what is not delivered stays spooled,
 * and benchprof goes on to exit with the benchmark's status rather than
 * die from the signal with 143.  The handlers stay for the rest of the
 * process, so later requests (the comparison, the comment) stop too. */
static volatile sig_atomic_t publish_signal;

static void on_publish_signal(int sig)
{
  publish_signal = sig;
}

void bp_cli_pub_catch_signals(void)
{
  static bool caught;
  if(caught)
    return;
  caught = true;
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_publish_signal;  /* no SA_RESTART: waits end */
  sigemptyset(&sa.sa_mask);
  int sigs[] = {SIGTERM, SIGINT, SIGHUP};
  for(size_t i = 0; i < BP_ARRAY_LEN(sigs); i++)
    sigaction(sigs[i], &sa, NULL);
}

void bp_cli_pub_say_interrupted(void)
{
  static bool said;   /* once, however many steps a signal stopped */
  if(publish_signal && !said) {
    said = true;
    bp_msg_warn("publishing interrupted by %s", strsignal(publish_signal));
  }
}

bool bp_cli_pub_failure_kept(const struct bp_cli_publish *p)
{
  return p->for_run && !p->strict;
}

void bp_cli_pub_say_failure(const struct bp_cli_publish *p,
                            const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  bp_msg_vsay(bp_cli_pub_failure_kept(p), fmt, ap);
  va_end(ap);
}

void bp_cli_pub_say_failure_err(const struct bp_cli_publish *p,
                                const struct bp_err *err, bp_code code)
{
  bp_cli_pub_say_failure(p, "%s", err && err->msg[0] ? err->msg
                                                     : bp_strerror(code));
}

static void http_debug(void *ctx, const char *line)
{
  (void)ctx;
  bp_msg_note("http: %s", line);
}

static const char *env(const char *name)
{
  const char *v = getenv(name);
  return v && *v ? v : NULL;
}

/* What the publish options point at; owns the strings it makes. */

void bp_cli_pub_prepare_cleanup(struct bp_cli_pub_setup *s)
{
  bpi_ident_cleanup(&s->id);
  free(s->store);
  free(s->spool);
  free(s->repository);
  free(s->ci_job);
}

/* The identity resolved for one set of options, kept for the process:
 * `run` publishes and then compares, and each asks for it; detecting it
 * again would start git again, after the benchmark, inside run's wall
 * time.  Nothing it depends on (flags, environment, the checkout) changes
 * while benchprof runs. */
static struct {
  const struct bp_cli_publish *opts;
  struct bp_ident id;
} ident_memo;

/* id (empty): the flags first; then the CI's variables and git; then the
 * defaults.  False with err set. */
static bool resolve_ident(const struct bp_cli_publish *p, struct bp_ident *id,
                          struct bp_err *err)
{
  if(ident_memo.opts == p) {
    if(!bpi_ident_copy(id, &ident_memo.id))
      return true;
    bpi_err_set(err, BPE_NOMEM, 0, "ci");
    return false;
  }
  const char *flags[] = {p->project, p->branch, p->hash, p->testbed,
                         p->base_branch, p->base_hash};
  char **fields[] = {&id->project, &id->branch, &id->hash,
                     &id->testbed, &id->base_branch, &id->base_hash};
  for(size_t i = 0; i < BP_ARRAY_LEN(fields); i++)
    if(flags[i] && !(*fields[i] = strdup(flags[i]))) {
      bpi_err_set(err, BPE_NOMEM, 0, "ci");
      return false;
    }
  if(bpi_ci_detect_bases(id, environ, ".", p->config ?
                          p->config->base_branches :
                          bpi_env_get(environ, "BENCHPROF_BASE_BRANCHES"),
                          err) ||
     bpi_publish_ident_defaults(id, NULL, err))
    return false;
  if(id->warning)
    bp_msg_warn("%s", id->warning);
  bpi_ident_cleanup(&ident_memo.id);
  ident_memo.opts = NULL;
  if(!bpi_ident_copy(&ident_memo.id, id))
    ident_memo.opts = p;  /* without memory it is detected again */
  return true;
}

int bp_cli_publish_ident_early(const struct bp_cli_publish *p,
                               bool as_warning)
{
  struct bp_ident id = {0};
  struct bp_err err = {0};
  bool ok = resolve_ident(p, &id, &err);
  bpi_ident_cleanup(&id);
  /* a payload that cannot be read (BPE_FORMAT) stays the publication's
   * failure, said after the run as before: only a variable that is not
   * what it names stops the run */
  if(ok || err.code != BPE_CONFIG)
    return 0;
  if(as_warning)
    bp_msg_warn_err(&err, err.code);
  else
    bp_msg_err(&err, err.code);
  return BP_EXIT_USAGE;
}

/* Targets and credentials; identity only when ident is set. */
bool bp_cli_pub_prepare(const struct bp_cli_publish *p,
                        struct bp_cli_pub_setup *s, bool ident)
{
  struct bp_err err = {0};
  struct bp_publish_opts *o = &s->o;
  memset(s, 0, sizeof(*s));
  bpi_http_opts_default(&o->http);
  if(p->config)
    bpi_config_http_opts(p->config, &o->http);
  if(p->timeout_ms) {
    o->http.total_timeout_ms = p->timeout_ms;
    o->http.connect_timeout_ms = p->timeout_ms < 10000 ? p->timeout_ms
                                                       : 10000;
  }
  if(p->retries >= 0)
    o->http.retries = (unsigned)p->retries;
  if(p->retry_delay_ms)
    o->http.backoff_ms = p->retry_delay_ms;
  if(p->max_retry_after_ms)
    o->http.max_retry_after_ms = p->max_retry_after_ms;
  if(p->deadline_ms)
    o->http.deadline_ms = bpi_http_now_ms() + p->deadline_ms;
  /* network.deadline bounds all of a command's requests: run's
   * publishing and its comparison after it share the first setup's */
  static long command_deadline;
  if(o->http.deadline_ms && !command_deadline)
    command_deadline = o->http.deadline_ms;
  if(o->http.deadline_ms)
    o->http.deadline_ms = command_deadline;
  o->http.ca_file = p->ca_file;
  /* every store this setup opens (publishing, a comparison's sides, the
   * diffs) goes by these settings, and stops on SIGINT/SIGTERM */
  o->store.http = &o->http;
  bp_cli_pub_catch_signals();
  o->http.cancel = &publish_signal;
  if(p->verbose)
    o->http.debug = http_debug;
  if(p->spool)
    o->spool_dir = p->spool;
  else if(!bpi_publish_default_spool(environ, &s->spool, &s->no_spool))
    o->spool_dir = s->spool;
  else if(!ident) {   /* flush: nothing to do without one */
    err = s->no_spool;
    goto fail;
  }
  o->bencher.token = env(p->token_env ? p->token_env : TOKEN_ENV);
  o->bencher.host = env("BENCHER_HOST");
  o->store.aws_key = env("AWS_ACCESS_KEY_ID");
  o->store.aws_secret = env("AWS_SECRET_ACCESS_KEY");
  o->store.aws_session_token = env("AWS_SESSION_TOKEN");
  o->store.bearer = env("BENCHPROF_STORE_TOKEN");
  if(p->config) {
    /* the file's host (BENCHER_HOST already applied over it), the token
     * written in the file when its variable is unset, and the store's
     * token variable */
    if(p->config->bencher.host)
      o->bencher.host = p->config->bencher.host;
    o->bencher_console = p->config->bencher.console;
    if(!o->bencher.token)
      o->bencher.token = p->config->bencher.token;
    if(p->config->store.token_env)
      o->store.bearer = bpi_config_store_token(p->config, environ);
  }
  /* --no-bencher: a Bencher runner posts the job's report; with a token
   * the counters' measures are still created first, with their units
   * (Bencher would make them unitless on the runner's report) */
  if(p->no_bencher)
    o->bencher_measures_only = true;
  if(!ident)
    return true;
  if(p->store)
    o->store.url = p->store;
  else if(bpi_publish_default_store(environ, &s->store, &err))
    goto fail;
  else
    o->store.url = s->store;
  o->store.public_url = p->public_url;
  o->store.s3_endpoint = p->s3_endpoint;
  o->store.s3_region = p->s3_region;
  o->store.s3_path_style = p->s3_path_style;
  o->firefox_upload = p->firefox_upload;
  o->firefox_api = p->firefox_api;
  if(!resolve_ident(p, &s->id, &err))
    goto fail;
  o->project = s->id.project;
  o->branch = s->id.branch;
  o->hash = s->id.hash;
  o->testbed = s->id.testbed;
  o->suite = p->suite;
  o->base_branch = s->id.base_branch;
  o->base_hash = s->id.base_hash;
  bool nomem;
  o->repository = s->repository = bpi_ident_repository(&s->id, &nomem);
  if(nomem) {
    bpi_err_set(&err, BPE_NOMEM, 0, "repository");
    goto fail;
  }
  o->ci_job = s->ci_job = bpi_ci_job_id(environ, &nomem);
  if(nomem) {
    bpi_err_set(&err, BPE_NOMEM, 0, "ci job");
    goto fail;
  }
  return true;
fail:
  /* flush, compare and index fail on it; run unless strict goes on */
  bp_cli_pub_say_failure_err(p, &err, err.code);
  return false;
}

bool bp_cli_publish_store(const struct bp_cli_publish *p,
                          struct bp_ident *id, struct bp_store **st)
{
  struct bp_cli_pub_setup s;
  struct bp_err err = {0};
  bool ok = bp_cli_pub_prepare(p, &s, true);
  *st = NULL;
  memset(id, 0, sizeof(*id));
  if(ok && bpi_store_open(st, &s.o.store, &err)) {
    bp_msg_err(&err, err.code);
    ok = false;
  }
  if(ok) {
    *id = s.id;  /* moved */
    memset(&s.id, 0, sizeof(s.id));
  }
  bp_cli_pub_prepare_cleanup(&s);
  return ok;
}

void bp_cli_firefox_lost(const struct bp_publish_result *r)
{
  if(r->firefox_lost)
    bp_msg_warn("the Firefox Profiler upload got no answer: the profile may "
                "be public without its link; it is not uploaded again (a "
                "second public copy)");
}

/* Bencher's 401 or 403 quotes only the server: say which variable the
 * token came from (never the token). */
static bool bencher_token_hint(const struct bp_publish_result *r,
                               const struct bp_publish_opts *o,
                               const struct bp_cli_publish *p)
{
  const char *var = p->token_env ? p->token_env : TOKEN_ENV;
  if(!o->bencher.token)
    return false;
  if(env(var))
    bp_msg_note("Bencher refused the API token from $%s (--token-env, "
                "bencher.token_env; HTTP %ld): check that it is a token of "
                "this project", var, r->http_status);
  else
    bp_msg_note("Bencher refused the API token in the configuration's "
                "bencher.token ($%s is not set; HTTP %ld): check that it "
                "is a token of this project", var, r->http_status);
  return true;
}

/* An S3 store's 401 or 403: which variables the credentials came from. */
static void s3_token_hint(const struct bp_publish_result *r,
                          const struct bp_publish_opts *o, const char *url)
{
  if(o->store.aws_key && o->store.aws_secret)
    bp_msg_note("the store %s refused the credentials from "
                "$AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY%s (HTTP "
                "%ld): check that they are current and may write there",
                url, o->store.aws_session_token ? " (and $AWS_SESSION_TOKEN)"
                                                : "", r->http_status);
  else
    bp_msg_note("the store %s wants credentials (HTTP %ld) and none were "
                "sent: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY are "
                "not both set", url, r->http_status);
}

/* A store's 401 or 403 quotes only the server ("missing or wrong bearer
 * token"): say which variable the bearer token came from (store.token_env,
 * else BENCHPROF_STORE_TOKEN), or that none was sent; never the token. */
static bool store_token_hint(const struct bp_publish_result *r,
                             const struct bp_publish_opts *o,
                             const struct bp_config *cfg)
{
  const char *url = r->store_url ? r->store_url : o->store.url;
  if(!url)
    return false;
  if(!strncmp(url, "s3://", 5)) {
    s3_token_hint(r, o, url);
    return true;
  }
  bool named = cfg && cfg->store.token_env;
  const char *var = named ? cfg->store.token_env : "BENCHPROF_STORE_TOKEN";
  if(o->store.bearer)
    bp_msg_note("the store %s refused the bearer token from $%s (%s; HTTP "
                "%ld): check that it is the token this store expects", url,
                var, named ? "store.token_env" : "the default variable; "
                "store.token_env names another", r->http_status);
  else
    bp_msg_note("the store %s wants a bearer token (HTTP %ld) and none was "
                "sent: $%s is not set (%s)", url, r->http_status, var,
                named ? "store.token_env" : "the default variable; "
                "store.token_env names another");
  return true;
}

bool bp_cli_token_hint(const struct bp_publish_result *r,
                       const struct bp_publish_opts *o,
                       const struct bp_cli_publish *p)
{
  if(r->http_status != 401 && r->http_status != 403)
    return false;
  if(r->failed_at == BP_PUBLISH_AT_BENCHER)
    return bencher_token_hint(r, o, p);
  if(r->failed_at == BP_PUBLISH_AT_STORE)
    return store_token_hint(r, o, p->config);
  return false;
}

/* " OPTION PATH" with path made absolute (it exists: the run read or
 * wrote it), so that the command works from a timer or another
 * directory; as given when it cannot be resolved. */
static void add_path_option(struct bp_buf *b, const char *option,
                            const char *path)
{
  char *abs = realpath(path, NULL);
  bpi_buf_adds(b, option);
  bpi_buf_shell_word(b, abs ? abs : path, true);
  free(abs);
}

/* The command that sends a spooled publication later: the spool it is in
 * and the configuration this run read when it was not the default one
 * (--config, $BENCHPROF_CONFIG): flush reading another would take other
 * credentials (a 401) or another spool.  Printed without quotes around
 * it: only its paths are quoted, once, as a shell reads them. */
static void say_flush_later(const struct bp_cli_publish *p)
{
  const struct bp_config *c = p->config;
  struct bp_buf cmd;
  bpi_buf_init(&cmd);
  bpi_buf_adds(&cmd, "benchprof flush");
  if(c && c->file && (c->source == BP_CONFIG_FLAG ||
                      c->source == BP_CONFIG_ENV))
    add_path_option(&cmd, " --config ", c->file);
  if(p->spool)
    add_path_option(&cmd, " --spool ", p->spool);
  bpi_buf_addc(&cmd, '\0');
  bp_msg_note("send it later with: %s", bpi_buf_failed(&cmd)
              ? "benchprof flush" : cmd.data);
  bpi_buf_cleanup(&cmd);
}

/* An http(s) store that wants a token answers 401 with the server's
 * words only: say which variable would have held one. */
static void note_store_token(const struct bp_publish_opts *o,
                             const struct bp_config *cfg)
{
  if(!o->store.url || !bpi_text_web_url(o->store.url) || o->store.bearer)
    return;
  const char *var = cfg && cfg->store.token_env ? cfg->store.token_env
                                                : "BENCHPROF_STORE_TOKEN";
  bp_msg_note("the http(s) store gets no bearer token: $%s is not set%s",
              var, cfg && cfg->store.token_env ? "" :
              " (store.token_env names another variable)");
}

void bp_cli_delivered_line(const struct bp_publish_result *r,
                           struct bp_buf *b)
{
  bpi_buf_printf(b, "%s: delivered (%zu parts)", r->id, r->parts);
  if(r->manifest_url)
    bpi_buf_printf(b, ", manifest %s", r->manifest_url);
  if(r->report_uuid)
    bpi_buf_printf(b, ", Bencher report %s", r->report_uuid);
  if(r->firefox_url)
    bpi_buf_printf(b, ", Firefox Profiler %s", r->firefox_url);
  if(r->superseded)
    bpi_buf_printf(b, "; its store objects were left alone: %s",
                   r->superseded);
  bpi_buf_addc(b, '\0');
}

void bp_cli_pub_say_warning(const struct bp_publish_result *r)
{
  if(r->warning)
    bp_msg_warn("%s", r->warning);
}

static void say_delivered(const struct bp_publish_result *r)
{
  if(r->superseded)
    bp_msg_note("delivered; its store objects were left alone: %s",
                r->superseded);
  if(r->manifest_url)
    bp_msg_note("published: manifest %s", r->manifest_url);
  if(r->report_uuid)
    bp_msg_note("published: Bencher report %s", r->report_uuid);
  if(r->firefox_url)
    bp_msg_note("published: Firefox Profiler %s", r->firefox_url);
  bp_cli_firefox_lost(r);
}

enum bp_cli_published bp_cli_publish_run(const struct bp_cli_publish *p,
                                         const char *dir,
                                         const char *start_time,
                                         const char *end_time)
{
  struct bp_cli_pub_setup s;
  struct bp_publish_result r = {0};
  struct bp_err err = {0};
  if(!bp_cli_pub_prepare(p, &s, true)) {
    bp_cli_pub_prepare_cleanup(&s);
    bp_msg_warn("nothing was published");
    return BP_CLI_PUBLISH_NOTHING;
  }
  if(bpi_publish_ident_check(&s.id, &err)) {
    bp_cli_pub_say_failure_err(p, &err, err.code);
    bp_cli_pub_prepare_cleanup(&s);
    return BP_CLI_PUBLISH_FAILED;
  }
  /* the commit's time orders the branch's runs for its latest pointer;
   * asked only when publishing (one git process), unknown when git does
   * not have the commit */
  char commit_time[BP_COMMIT_TIME_MAX];
  if(s.o.hash && bpi_ci_commit_time(".", environ, s.o.hash, commit_time))
    s.o.commit_time = commit_time;
  if(p->no_bencher)
    bp_msg_note("no Bencher report (--no-bencher)%s",
                s.o.bencher.token ? "; the counters' measures are created "
                "in Bencher with their units" : "");
  else if(!s.o.bencher.token)
    bp_msg_note("no Bencher report: $%s is not set",
                p->token_env ? p->token_env : TOKEN_ENV);
  note_store_token(&s.o, p->config);
  if(!s.o.spool_dir)
    bp_msg_warn("%s: the publication is delivered directly, once; what "
                "fails cannot be spooled for 'benchprof flush'",
                s.no_spool.msg);
  bp_code rc = bpi_publish_run(&s.o, dir, start_time, end_time, &r, &err);
  enum bp_cli_published done = rc ? BP_CLI_PUBLISH_NOTHING :
    r.delivered ? BP_CLI_PUBLISH_DELIVERED : BP_CLI_PUBLISH_FAILED;
  bp_cli_pub_say_interrupted();
  if(!rc && r.direct)
    bp_msg_warn("the spool cannot hold the publication (%s): %s",
                r.spool_failure.msg, r.delivered ? "delivered directly" :
                "sent directly, once; what failed is not kept for flush");
  if(!rc)
    bp_cli_pub_say_warning(&r);
  if(rc) {
    bp_cli_pub_say_failure_err(p, &err, rc);
    bp_msg_warn("nothing was published");
  }
  else if(r.delivered)
    say_delivered(&r);
  else if(r.rejected && !r.direct) {
    bp_cli_pub_say_failure(p, "publication %s rejected: %s", r.id,
                           r.failure.msg);
    bp_msg_note("it is kept in %s and never sent again; 'benchprof flush "
                "--list' shows it, 'benchprof flush --drop %s' removes it",
                s.o.spool_dir, r.id);
  }
  else if(r.direct)
    bp_cli_pub_say_failure(p, "not published: %s", r.failure.msg[0]
                           ? r.failure.msg : bp_strerror(r.failure.code));
  else {
    bp_cli_pub_say_failure(p, "publication spooled as %s in %s: %s", r.id,
                           s.o.spool_dir, r.failure.msg[0] ? r.failure.msg
                           : bp_strerror(r.failure.code));
    bp_cli_token_hint(&r, &s.o, p);
    say_flush_later(p);
  }
  bpi_publish_result_cleanup(&r);
  bp_cli_pub_prepare_cleanup(&s);
  return done;
}
