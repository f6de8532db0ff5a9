/* benchprof flush: deliver the publications waiting in the spool.  Also
 * the publishing options benchprof run shares with it: parsing, help,
 * the environment's credentials, and what is said about a publication.
 * The work itself is publish.c's. */
#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"

#include "buf.h"
#include "ci.h"
#include "config.h"
#include "err.h"
#include "http.h"
#include "publish.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define TOKEN_ENV "BENCHER_API_TOKEN"

void bp_cli_publish_defaults(struct bp_cli_publish *p)
{
  memset(p, 0, sizeof(*p));
  p->enabled = true;
  p->retries = -1;
}

enum bp_cli_config bp_cli_config_load(struct bp_config *c, const char *flag,
                                      bool strict, const char *fallback)
{
  struct bp_err err = {0};
  bp_code rc = bpi_config_load(c, flag, environ, &err);
  if(c->warning[0])
    bp_msg_warn("%s", c->warning);
  if(!rc)
    return BP_CLI_CONFIG_OK;
  if(strict || c->strict) {
    bp_msg_err(&err, rc);
    bp_msg_error("the configuration is not usable and strict mode is on");
    return BP_CLI_CONFIG_FAIL;
  }
  bp_msg_warn("ignoring the configuration: %s; %s", err.msg[0] ? err.msg :
              bp_strerror(rc), fallback);
  return BP_CLI_CONFIG_INVALID;
}

void bp_cli_publish_config(struct bp_cli_publish *p, const struct bp_config *c)
{
  p->config = c;
  p->project = c->bencher.project;
  p->testbed = c->bencher.testbed;
  p->store = c->store.url;
  p->public_url = c->store.public_url;
  p->s3_endpoint = c->store.s3.endpoint;
  p->s3_region = c->store.s3.region;
  p->s3_path_style = c->store.s3.path_style;
  p->spool = c->spool;
  p->firefox_upload = c->firefox_upload;
  p->ca_file = c->network.ca_file;
  p->token_env = c->bencher.token_env;
  p->strict = c->strict;
}

static bool parse_seconds(const char *s, long *ms)
{
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if(errno || end == s || *end || !(v > 0) || v > 86400)
    return false;
  *ms = (long)(v * 1000 + 0.5);
  if(*ms < 1)
    *ms = 1;
  return true;
}

int bp_cli_publish_option(int opt, const char *arg, struct bp_cli_publish *p)
{
  char *end;
  switch(opt) {
  case 'v': p->verbose = true; break;
  case BP_CLI_PUB_NO_PUBLISH: p->enabled = false; break;
  case BP_CLI_PUB_PROJECT: p->project = arg; break;
  case BP_CLI_PUB_BRANCH: p->branch = arg; break;
  case BP_CLI_PUB_HASH: p->hash = arg; break;
  case BP_CLI_PUB_TESTBED: p->testbed = arg; break;
  case BP_CLI_PUB_BASE_BRANCH: p->base_branch = arg; break;
  case BP_CLI_PUB_BASE_HASH: p->base_hash = arg; break;
  case BP_CLI_PUB_STORE: p->store = arg; break;
  case BP_CLI_PUB_PUBLIC_URL: p->public_url = arg; break;
  case BP_CLI_PUB_S3_ENDPOINT: p->s3_endpoint = arg; break;
  case BP_CLI_PUB_S3_REGION: p->s3_region = arg; break;
  case BP_CLI_PUB_S3_PATH_STYLE: p->s3_path_style = true; break;
  case BP_CLI_PUB_SPOOL: p->spool = arg; break;
  case BP_CLI_PUB_FIREFOX_UPLOAD: p->firefox_upload = true; break;
  case BP_CLI_PUB_FIREFOX_API: p->firefox_api = arg; break;
  case BP_CLI_PUB_CA_FILE: p->ca_file = arg; break;
  case BP_CLI_PUB_STRICT: p->strict = true; break;
  case BP_CLI_PUB_TOKEN_ENV: p->token_env = arg; break;
  case BP_CLI_PUB_TIMEOUT:
    if(!parse_seconds(arg, &p->timeout_ms)) {
      bp_msg_error("--timeout: '%s' is not a number of seconds", arg);
      return BP_EXIT_USAGE;
    }
    break;
  case BP_CLI_PUB_RETRY_DELAY:
    if(!parse_seconds(arg, &p->retry_delay_ms)) {
      bp_msg_error("--retry-delay: '%s' is not a number of seconds", arg);
      return BP_EXIT_USAGE;
    }
    break;
  case BP_CLI_PUB_MAX_RETRY_AFTER:
    if(!parse_seconds(arg, &p->max_retry_after_ms)) {
      bp_msg_error("--max-retry-after: '%s' is not a number of seconds",
                   arg);
      return BP_EXIT_USAGE;
    }
    break;
  case BP_CLI_PUB_DEADLINE:
    if(!parse_seconds(arg, &p->deadline_ms)) {
      bp_msg_error("--deadline: '%s' is not a number of seconds", arg);
      return BP_EXIT_USAGE;
    }
    break;
  case BP_CLI_PUB_RETRIES:
    errno = 0;
    p->retries = strtol(arg, &end, 10);
    if(errno || end == arg || *end || p->retries < 0 || p->retries > 100) {
      bp_msg_error("--retries: '%s' is not a count from 0 to 100", arg);
      return BP_EXIT_USAGE;
    }
    break;
  default:
    return BP_EXIT_USAGE;
  }
  return 0;
}

void bp_cli_publish_usage(FILE *out, bool run)
{
  if(run)
    fprintf(out,
      "\npublishing (after the report; see benchprof(1)):\n"
      "      --no-publish       write the report and artifacts only\n"
      "      --project P        the run's identity: Bencher project and the\n"
      "      --branch B         store's keys (default: from git in the\n"
      "      --hash H           current directory; project: the top-level\n"
      "      --testbed T        directory's name; branch: main; testbed:\n"
      "                         the host name)\n"
      "      --base-branch B    a pull request's base branch, and its commit\n"
      "      --base-hash H      (Bencher's start point)\n"
      "      --store URL        file:///dir, s3://bucket/prefix or\n"
      "                         http(s)://host/prefix (default: file:// of\n"
      "                         $XDG_DATA_HOME/benchprof/store)\n"
      "      --public-url URL   where readers load the store's objects\n"
      "      --s3-endpoint URL  S3-compatible endpoint (default: AWS)\n"
      "      --s3-region R      (default: us-east-1)\n"
      "      --s3-path-style    endpoint/bucket/key addressing\n"
      "      --firefox-upload   also upload the Firefox profile to the\n"
      "                         Firefox Profiler's public store (off: it\n"
      "                         reveals symbol and path names)\n"
      "      --firefox-api URL  that store (https://api.profiler.firefox.com)\n");
  fprintf(out,
    "      --spool DIR        the durable outbox (default: $BENCHPROF_SPOOL,\n"
    "                         else $XDG_STATE_HOME/benchprof/spool)\n"
    "      --ca-file F        extra CA certificates (PEM)\n"
    "      --timeout S        per-request time limit in seconds\n"
    "      --retries N        retries after a failed request (default 4)\n"
    "      --retry-delay S    the first retry's delay in seconds, doubled\n"
    "                         for each further one (default 1)\n"
    "      --max-retry-after S  the longest wait a server's Retry-After\n"
    "                         gets (longer ones are cut to it; default 120)\n"
    "      --deadline S       the time all of the %s requests may take;\n"
    "                         what is not sent by then stays spooled\n"
    "      --token-env NAME   read the Bencher API token from $NAME\n"
    "                         (default: $" TOKEN_ENV ")\n"
    "      --strict           a publication failure makes the exit status\n"
    "                         non-zero%s\n"
    "  -v, --verbose          one line per HTTP request (secrets redacted)\n",
    run ? "publication's" : "flush's",
    run ? " (otherwise it is always CMD's)" : "");
}

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

static void catch_publish_signals(void)
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

static void say_interrupted(void)
{
  if(publish_signal)
    bp_msg_warn("publishing interrupted by %s", strsignal(publish_signal));
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
struct pub_setup {
  struct bp_publish_opts o;
  struct bp_ident id;
  char *store, *spool;
};

static void setup_cleanup(struct pub_setup *s)
{
  bpi_ident_cleanup(&s->id);
  free(s->store);
  free(s->spool);
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
  if(bpi_ci_detect(id, environ, ".", err) ||
     bpi_publish_ident_defaults(id, NULL, err))
    return false;
  bpi_ident_cleanup(&ident_memo.id);
  ident_memo.opts = NULL;
  if(!bpi_ident_copy(&ident_memo.id, id))
    ident_memo.opts = p;  /* without memory it is detected again */
  return true;
}

/* Targets and credentials; identity only when ident is set. */
static bool setup(const struct bp_cli_publish *p, struct pub_setup *s,
                  bool ident)
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
  o->http.ca_file = p->ca_file;
  catch_publish_signals();
  o->http.cancel = &publish_signal;
  if(p->verbose)
    o->http.debug = http_debug;
  if(p->spool)
    o->spool_dir = p->spool;
  else if(bpi_publish_default_spool(environ, &s->spool, &err))
    goto fail;
  else
    o->spool_dir = s->spool;
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
  if(p->no_bencher)
    o->bencher.token = NULL;
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
  o->base_branch = s->id.base_branch;
  o->base_hash = s->id.base_hash;
  return true;
fail:
  bp_msg_err(&err, err.code);
  return false;
}

bool bp_cli_publish_store(const struct bp_cli_publish *p,
                          struct bp_ident *id, struct bp_store **st)
{
  struct pub_setup s;
  struct bp_err err = {0};
  bool ok = setup(p, &s, true);
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
  setup_cleanup(&s);
  return ok;
}

/* A Firefox upload whose answer never came: said, never repeated. */
static void firefox_lost(const struct bp_publish_result *r)
{
  if(r->firefox_lost)
    bp_msg_warn("the Firefox Profiler upload got no answer: the profile may "
                "be public without its link; it is not uploaded again (a "
                "second public copy)");
}

static void say_delivered(const struct bp_publish_result *r)
{
  if(r->manifest_url)
    bp_msg_note("published: manifest %s", r->manifest_url);
  if(r->report_uuid)
    bp_msg_note("published: Bencher report %s", r->report_uuid);
  if(r->firefox_url)
    bp_msg_note("published: Firefox Profiler %s", r->firefox_url);
  firefox_lost(r);
}

bool bp_cli_publish_run(const struct bp_cli_publish *p, const char *dir,
                        const char *start_time, const char *end_time)
{
  struct pub_setup s;
  struct bp_publish_result r = {0};
  struct bp_err err = {0};
  if(!setup(p, &s, true)) {
    setup_cleanup(&s);
    bp_msg_warn("nothing was published");
    return false;
  }
  if(p->no_bencher)
    bp_msg_note("no Bencher report (--no-bencher)");
  else if(!s.o.bencher.token)
    bp_msg_note("no Bencher report: $%s is not set",
                p->token_env ? p->token_env : TOKEN_ENV);
  bp_code rc = bpi_publish_run(&s.o, dir, start_time, end_time, &r, &err);
  bool ok = !rc && r.delivered;
  say_interrupted();
  if(!rc && r.direct)
    bp_msg_warn("the spool cannot hold the publication (%s): %s",
                r.spool_failure.msg, r.delivered ? "delivered directly" :
                "sent directly, once; what failed is not kept for flush");
  if(rc) {
    bp_msg_err(&err, rc);
    bp_msg_warn("nothing was published");
  }
  else if(r.delivered)
    say_delivered(&r);
  else if(r.rejected) {
    bp_msg_warn("publication %s rejected: %s", r.id, r.failure.msg);
    bp_msg_note("it is kept in %s and never sent again; 'benchprof flush "
                "--list' shows it, 'benchprof flush --drop %s' removes it",
                s.o.spool_dir, r.id);
  }
  else if(r.direct)
    bp_msg_warn("not published: %s", r.failure.msg[0] ? r.failure.msg :
                bp_strerror(r.failure.code));
  else {
    bp_msg_warn("publication spooled as %s in %s: %s", r.id, s.o.spool_dir,
                r.failure.msg[0] ? r.failure.msg
                                 : bp_strerror(r.failure.code));
    bp_msg_note("'benchprof flush%s%s' sends it later",
                p->spool ? " --spool " : "", p->spool ? p->spool : "");
  }
  bpi_publish_result_cleanup(&r);
  setup_cleanup(&s);
  return ok;
}

/* ------------------------------------------------------------- flush */

struct flush_tally {
  size_t total, delivered, busy, rejected_before;
};

static void flushed(void *ctx, const struct bp_publish_result *r)
{
  struct flush_tally *t = ctx;
  t->total++;
  if(r->delivered) {
    t->delivered++;
    printf("%s: delivered (%zu parts)", r->id, r->parts);
    if(r->manifest_url)
      printf(", manifest %s", r->manifest_url);
    if(r->report_uuid)
      printf(", Bencher report %s", r->report_uuid);
    if(r->firefox_url)
      printf(", Firefox Profiler %s", r->firefox_url);
    printf("\n");
    firefox_lost(r);
  }
  else if(r->busy) {
    t->busy++;
    printf("%s: skipped, another benchprof is delivering it\n", r->id);
  }
  else if(r->rejected_before)
    t->rejected_before++;  /* said once, when it was rejected */
  else if(r->rejected)
    printf("%s: rejected, never sent again (--drop %s removes it): %s\n",
           r->id, r->id, r->failure.msg);
  else
    printf("%s: still spooled (%zu of %zu parts delivered): %s\n", r->id,
           r->parts_done, r->parts,
           r->failure.msg[0] ? r->failure.msg : bp_strerror(r->failure.code));
  fflush(stdout);
}

static void flush_usage(FILE *out)
{
  fprintf(out,
    "usage: benchprof flush [options]\n"
    "\n"
    "Deliver every publication waiting in the spool (those benchprof run\n"
    "could not send), oldest first, each part at most once, to the targets\n"
    "recorded with it; credentials come from the environment as for run.\n"
    "Prints a line per publication.  Exits 0 when everything was delivered,\n"
    "1 otherwise.  A publication the server refused for good (HTTP 400,\n"
    "409, 413, 422) is marked rejected: reported once, then kept (not sent,\n"
    "not failing flush) until --drop removes it.\n\n");
  bp_cli_publish_usage(out, false);
  fprintf(out,
    "      --config FILE      the configuration: spool, network, tokens\n"
    "                         (default: $BENCHPROF_CONFIG, else\n"
    "                         " BP_CONFIG_DEFAULT_PATH ")\n"
    "      --list             list the waiting publications (id, state,\n"
    "                         identity) and send nothing\n"
    "      --drop ID          remove publication ID from the spool unsent;\n"
    "                         'rejected' removes every rejected one\n"
    "  -h, --help             this help\n");
}

static const struct option flush_longopts[] = {
  {"spool", required_argument, NULL, BP_CLI_PUB_SPOOL},
  {"ca-file", required_argument, NULL, BP_CLI_PUB_CA_FILE},
  {"timeout", required_argument, NULL, BP_CLI_PUB_TIMEOUT},
  {"retries", required_argument, NULL, BP_CLI_PUB_RETRIES},
  {"retry-delay", required_argument, NULL, BP_CLI_PUB_RETRY_DELAY},
  {"max-retry-after", required_argument, NULL, BP_CLI_PUB_MAX_RETRY_AFTER},
  {"deadline", required_argument, NULL, BP_CLI_PUB_DEADLINE},
  {"token-env", required_argument, NULL, BP_CLI_PUB_TOKEN_ENV},
  {"strict", no_argument, NULL, BP_CLI_PUB_STRICT},
  {"verbose", no_argument, NULL, 'v'},
  {"help", no_argument, NULL, 'h'},
  {"config", required_argument, NULL, BP_CLI_PUB_LAST},
  {"list", no_argument, NULL, BP_CLI_PUB_LAST + 1},
  {"drop", required_argument, NULL, BP_CLI_PUB_LAST + 2},
  {NULL, 0, NULL, 0},
};

static void list_entry(void *ctx, const struct bp_publish_entry *e)
{
  size_t *n = ctx;
  (*n)++;
  printf("%s\t%s\t%s\t%s/%s@%s on %s", e->id, e->state,
         e->created ? e->created : "-", e->project ? e->project : "-",
         e->branch ? e->branch : "-", e->commit ? e->commit : "-",
         e->testbed ? e->testbed : "-");
  if(e->reason)
    printf("\t%s", e->reason);
  printf("\n");
}

static int list_spool(const char *spool)
{
  struct bp_err err = {0};
  size_t n = 0;
  if(bpi_publish_list(spool, list_entry, &n, &err)) {
    bp_msg_err(&err, err.code);
    return BP_EXIT_ERROR;
  }
  if(!n)
    bp_msg_note("nothing waits in %s", spool);
  return BP_EXIT_OK;
}

static void drop_rejected(void *ctx, const struct bp_publish_entry *e)
{
  struct bp_buf *ids = ctx;
  if(!strcmp(e->state, "rejected")) {
    bpi_buf_adds(ids, e->id);
    bpi_buf_addc(ids, '\0');
  }
}

static int drop_one(const char *spool, const char *id)
{
  struct bp_err err = {0};
  bool rejected = false;
  if(bpi_publish_drop(spool, id, &rejected, &err)) {
    bp_msg_err(&err, err.code);
    return BP_EXIT_ERROR;
  }
  printf("%s: dropped%s\n", id, rejected ? " (it was rejected)" : "");
  return BP_EXIT_OK;
}

/* --drop ID, or --drop rejected: every publication marked rejected. */
static int drop(const char *spool, const char *what)
{
  if(strcmp(what, "rejected"))
    return drop_one(spool, what);
  struct bp_buf ids;
  struct bp_err err = {0};
  int status = BP_EXIT_OK;
  bpi_buf_init(&ids);
  if(bpi_publish_list(spool, drop_rejected, &ids, &err)) {
    bp_msg_err(&err, err.code);
    status = BP_EXIT_ERROR;
  }
  for(size_t i = 0; !status && !bpi_buf_failed(&ids) && i < ids.len;
      i += strlen(ids.data + i) + 1)
    status = drop_one(spool, ids.data + i);
  if(bpi_buf_failed(&ids))
    status = BP_EXIT_ERROR;
  bpi_buf_cleanup(&ids);
  return status;
}

static int flush_with(struct bp_cli_publish *pp, int argc, char **argv)
{
  struct bp_cli_publish p = *pp;
  bool list = false;
  const char *drop_id = NULL;
  int opt;
  optind = 1;
  while((opt = getopt_long(argc, argv, "vh", flush_longopts, NULL)) != -1) {
    if(opt == BP_CLI_PUB_LAST)
      continue;
    if(opt == BP_CLI_PUB_LAST + 1) {
      list = true;
      continue;
    }
    if(opt == BP_CLI_PUB_LAST + 2) {
      drop_id = optarg;
      continue;
    }
    if(opt == 'h') {
      flush_usage(stdout);
      return BP_EXIT_OK;
    }
    if(opt == '?' || bp_cli_publish_option(opt, optarg, &p)) {
      if(opt == '?')
        flush_usage(stderr);
      return BP_EXIT_USAGE;
    }
  }
  if(optind < argc) {
    bp_msg_error("flush takes no arguments ('%s')", argv[optind]);
    return BP_EXIT_USAGE;
  }
  struct pub_setup s;
  struct flush_tally t = {0};
  struct bp_err err = {0};
  if(!setup(&p, &s, false)) {
    setup_cleanup(&s);
    return BP_EXIT_ERROR;
  }
  if(list || drop_id) {
    int status = list ? list_spool(s.o.spool_dir) : BP_EXIT_OK;
    if(!status && drop_id)
      status = drop(s.o.spool_dir, drop_id);
    setup_cleanup(&s);
    return status;
  }
  bp_code rc = bpi_publish_flush(&s.o, flushed, &t, &err);
  say_interrupted();
  if(rc)
    bp_msg_err(&err, rc);
  else if(t.total == t.rejected_before)
    bp_msg_note("nothing to send in %s%s", s.o.spool_dir,
                t.total ? " (only rejected publications: --list)" : "");
  setup_cleanup(&s);
  /* a publication another flush is sending is not ours to fail on,
   * unless --strict asks that everything be delivered now */
  size_t missing = t.total - t.delivered - t.rejected_before -
    (p.strict ? 0 : t.busy);
  return rc || missing ? BP_EXIT_ERROR : BP_EXIT_OK;
}

int cmd_flush(int argc, char **argv)
{
  struct bp_cli_publish p;
  struct bp_config cfg;
  const char *config = NULL;
  bool strict = false;
  int opt;
  /* the configuration first: the flags then win over it */
  optind = 1;
  opterr = 0;
  while((opt = getopt_long(argc, argv, "vh", flush_longopts, NULL)) != -1) {
    if(opt == BP_CLI_PUB_LAST)
      config = optarg;
    strict |= opt == BP_CLI_PUB_STRICT;
  }
  opterr = 1;
  bp_cli_publish_defaults(&p);
  enum bp_cli_config cs = bp_cli_config_load(&cfg, config, strict,
                                             "flushing with the defaults");
  if(cs == BP_CLI_CONFIG_FAIL) {
    bpi_config_cleanup(&cfg);
    return BP_EXIT_USAGE;
  }
  bp_cli_publish_config(&p, &cfg);
  int status = flush_with(&p, argc, argv);
  bpi_config_cleanup(&cfg);
  return status;
}
