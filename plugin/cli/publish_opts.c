/* The publishing options `benchprof run` and `benchprof flush` share:
 * their defaults from the configuration, parsing and help.  Also how
 * every command loads the configuration (bp_cli_config_load). */
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
#include "storekey.h"
#include "text.h"

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
  p->suite = c->bencher.suite;
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
  p->fail_on_regression = c->comment.fail_on_regression;
}

static bool parse_seconds(const char *s, long *ms)
{
  double v;
  if(!bpi_text_number(s, BP_TEXT_ABOVE_ZERO, 86400, &v))
    return false;
  *ms = (long)(v * 1000 + 0.5);
  if(*ms < 1)
    *ms = 1;
  return true;
}

static bool identity_option(int opt)
{
  return opt == BP_CLI_PUB_PROJECT || opt == BP_CLI_PUB_BRANCH ||
         opt == BP_CLI_PUB_HASH || opt == BP_CLI_PUB_TESTBED ||
         opt == BP_CLI_PUB_BASE_BRANCH || opt == BP_CLI_PUB_BASE_HASH;
}

/* The long name of publishing option opt, for messages. */
static const char *option_name(int opt)
{
  static const struct option opts[] = {BP_CLI_PUBLISH_LONGOPTS};
  for(size_t i = 0; i < BP_ARRAY_LEN(opts); i++)
    if(opts[i].val == opt)
      return opts[i].name;
  return "?";
}

int bp_cli_url_option(const char *name, const char *arg,
                      enum bp_url_kind kind)
{
  switch(bpi_config_url_check(arg, kind)) {
  case BP_URL_OK:
    return 0;
  case BP_URL_CREDENTIALS:  /* never echoed */
    bp_msg_error("--%s: expected %s without credentials (user:password@ "
                 "goes into manifests and the spool; use the token "
                 "variables), got a URL with credentials", name,
                 bpi_config_url_expected(kind));
    return BP_EXIT_USAGE;
  default:
    bp_msg_error("--%s '%.200s': expected %s", name, arg ? arg : "",
                 bpi_config_url_expected(kind));
    return BP_EXIT_USAGE;
  }
}

/* A store's URL, a public URL or an S3 endpoint with a query, a fragment
 * or blanks: the store refuses it when it opens (store.c), so run would
 * publish nothing after the benchmark ran; said now instead (shown
 * without its query: it may hold a token). */
static int plain_url_option(const char *name, const char *arg)
{
  char shown[BP_HTTP_URL_SHOWN];
  /* a directory's (file://) or prefix's (s3://) name may have blanks */
  bool http = !strncmp(arg, "http://", 7) || !strncmp(arg, "https://", 8);
  if(!strpbrk(arg, http ? "?# \t\r\n" : "?#"))
    return 0;
  bpi_http_url_shown(shown, arg);
  bp_msg_error("--%s '%s': no query%s allowed (the store refuses it and "
               "nothing would be published; give a token through the token "
               "variables)", name, shown,
               http ? ", fragment or blanks" : " or fragment");
  return BP_EXIT_USAGE;
}

/* The kind of URL publishing option opt takes; false when it takes none. */
static bool url_option(int opt, enum bp_url_kind *kind)
{
  *kind = opt == BP_CLI_PUB_STORE ? BP_URL_STORE : BP_URL_HTTP;
  return opt == BP_CLI_PUB_STORE || opt == BP_CLI_PUB_PUBLIC_URL ||
         opt == BP_CLI_PUB_S3_ENDPOINT || opt == BP_CLI_PUB_FIREFOX_API;
}

int bp_cli_suite_option(const char *arg)
{
  const char *why;
  if(bpi_suite_valid(arg, &why))
    return 0;
  bp_msg_error("--suite '%.80s': the suite's name %s (1 to %d ASCII "
               "letters, digits, '.', '_' or '-')%s", arg, why, BP_SUITE_MAX,
               *arg ? "" : "; leave --suite out for none");
  return BP_EXIT_USAGE;
}

int bp_cli_token_env_option(const char *arg, const char *example)
{
  if(bpi_config_env_name(arg))
    return 0;
  /* "--token ghp_..." (getopt takes --token for --token-env) would
   * otherwise print the token in "$ghp_... is not set" after the run */
  bool credential = bpi_config_credential_like(arg);
  bp_msg_error("--token-env takes the name of an environment variable "
               "holding the token (like %s), not the token itself; the "
               "value given is not shown%s%s", example,
               credential ? "; " : "",
               credential ? BP_CONFIG_CREDENTIAL_RULE : "");
  return BP_EXIT_USAGE;
}

/* How many leading characters of s are hex digits, and whether that is
 * all of it. */
static bool all_hex(const char *s, size_t *n)
{
  for(*n = 0; s[*n]; ++*n)
    if(!strchr("0123456789abcdefABCDEF", s[*n]))
      return false;
  return true;
}

int bp_cli_hash_option(const char *name, const char *arg)
{
  char shown[84];
  size_t n, i = 0;
  if(!arg || !*arg || bpi_ci_is_hash(arg))
    return 0;   /* empty: not given, as the other identity flags */
  /* a value from a job's script may hold anything: printable only */
  for(; arg[i] && i + 1 < sizeof(shown); i++)
    shown[i] = arg[i] > 0x20 && arg[i] < 0x7f ? arg[i] : '?';
  shown[i] = '\0';
  bool hex = all_hex(arg, &n);
  /* the store and Bencher key a run by its full hash; git could expand
   * an abbreviation only where the commit is, and a shallow CI checkout
   * usually lacks the base: a guess here would find no run */
  bp_msg_error("--%s '%s%s': expected a full commit hash, 40 hex digits "
               "(64 in a SHA-256 repository), as 'git rev-parse REV' "
               "prints it; %s", name, shown, arg[i] ? "..." : "",
               !hex ? "a branch, tag or other name is not one"
               : n < 40 ? "an abbreviated hash cannot name a run in the "
                          "store"
                        : "this one has another number of digits");
  return BP_EXIT_USAGE;
}

int bp_cli_publish_option(int opt, const char *arg, struct bp_cli_publish *p)
{
  enum bp_url_kind kind;
  uint64_t n;
  if(arg && !*arg && opt != BP_CLI_PUB_SUITE) {
    /* an identity's part left empty is not given: workflows pass
     * --branch "$GITHUB_HEAD_REF", empty on a push, and CI detection
     * then says the branch */
    if(identity_option(opt))
      return 0;
    /* an empty path or URL is a slip (an unset variable in a job's
     * script), never a choice: "--spool ''" read the current directory */
    bp_msg_error("--%s: empty", option_name(opt));
    return BP_EXIT_USAGE;
  }
  /* a URL that can never work is the command line's mistake, said now
   * (and by run --check-options), not after the benchmark ran */
  if(url_option(opt, &kind) && bp_cli_url_option(option_name(opt), arg, kind))
    return BP_EXIT_USAGE;
  if((opt == BP_CLI_PUB_STORE || opt == BP_CLI_PUB_PUBLIC_URL ||
      opt == BP_CLI_PUB_S3_ENDPOINT) && plain_url_option(option_name(opt), arg))
    return BP_EXIT_USAGE;
  switch(opt) {
  case 'v': p->verbose = true; break;
  case BP_CLI_PUB_NO_PUBLISH: p->enabled = false; break;
  case BP_CLI_PUB_PROJECT: p->project = arg; break;
  case BP_CLI_PUB_BRANCH: p->branch = arg; break;
  case BP_CLI_PUB_HASH:
  case BP_CLI_PUB_BASE_HASH:
    /* said now (and by run --check-options), not after the benchmark */
    if(bp_cli_hash_option(option_name(opt), arg))
      return BP_EXIT_USAGE;
    *(opt == BP_CLI_PUB_HASH ? &p->hash : &p->base_hash) = arg;
    break;
  case BP_CLI_PUB_TESTBED: p->testbed = arg; break;
  case BP_CLI_PUB_SUITE:
    if(bp_cli_suite_option(arg))
      return BP_EXIT_USAGE;
    p->suite = arg;
    break;
  case BP_CLI_PUB_BASE_BRANCH: p->base_branch = arg; break;
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
  case BP_CLI_PUB_TOKEN_ENV:
    if(bp_cli_token_env_option(arg, "BENCHER_API_TOKEN"))
      return BP_EXIT_USAGE;
    p->token_env = arg;
    break;
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
    /* the same bound as the configuration's network.retries */
    if(!bpi_text_u64(arg, 0, 20, &n)) {
      bp_msg_error("--retries: '%s' is not a count from 0 to 20", arg);
      return BP_EXIT_USAGE;
    }
    p->retries = (long)n;
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
      "      --branch B         store's keys (default: from CI or git in the\n"
      "      --hash H           current directory; project: the top-level\n"
      "      --testbed T        directory's name; testbed: the host name;\n"
      "                         no branch is guessed: without one nothing\n"
      "                         is published; empty: not given; H: a\n"
      "                         full commit hash, 40 hex digits, 64 in a\n"
      "                         SHA-256 repository: anything else, an\n"
      "                         abbreviation too, exits 2, CMD not run)\n"
      "      --suite NAME       one of the job's benchmark steps: its own\n"
      "                         store keys and latest pointer per testbed,\n"
      "                         PR comparison, comment and commit status\n"
      "                         (\"benchprof/NAME\"), output subdirectory\n"
      "                         suite=NAME (unless -o); give each step that\n"
      "                         publishes the same commit and testbed one\n"
      "                         (default: bencher.suite, $BENCHPROF_SUITE;\n"
      "                         none; an empty $BENCHPROF_SUITE is none,\n"
      "                         an empty --suite an error)\n"
      "      --base-branch B    a pull request's base branch, and its commit\n"
      "      --base-hash H      (Bencher's start point; H as --hash); a\n"
      "                         base commit without a run in the store is\n"
      "                         no error: the branch's latest is compared,\n"
      "                         or the comment says there is no base\n"
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
    "      --retries N        retries after a failed request, 0 to 20 (default 4)\n"
    "      --retry-delay S    the first retry's delay in seconds, doubled\n"
    "                         for each further one (default 1)\n"
    "      --max-retry-after S  the longest wait a server's Retry-After\n"
    "                         gets (longer ones are cut to it; default 120)\n"
    "      --deadline S       the time all of the %s requests may take;\n"
    "                         what is not sent by then stays spooled\n"
    "      --token-env NAME   read the Bencher API token from $NAME (a\n"
    "                         name: A-Z, 0-9, _; never the token itself)\n"
    "                         (default: $" TOKEN_ENV ")\n"
    "      --strict           a publication failure makes the exit status\n"
    "                         non-zero%s\n"
    "  -v, --verbose          one line per HTTP request (secrets redacted)\n",
    run ? "publication's" : "flush's",
    run ? ", as does a failed comparison, each said\n"
          "                         as an error (otherwise a warning, and the\n"
          "                         exit status is always CMD's)" : "");
}
