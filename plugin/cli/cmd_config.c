/* benchprof config: check or show the configuration a run would use (the
 * file that --config, $BENCHPROF_CONFIG or /etc/benchprof/config.json
 * names, with the BENCHPROF_* overrides applied). */
#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"

#include "buf.h"
#include "config.h"
#include "counters.h"
#include "events.h"
#include "fileio.h"
#include "http.h"
#include "store.h"
#ifndef BP_LIB_CONFIG_H
/* -I. found a build directory's config.h from before the configure header
 * was renamed bp_autoconf.h */
#error "stale config.h in the build directory: delete it and rerun configure"
#endif

#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static void usage(FILE *out)
{
  fprintf(out,
    "usage: benchprof config check [--config FILE]\n"
    "       benchprof config show [--config FILE]\n"
    "       benchprof config keys\n"
    "\n"
    "check  read the configuration strictly and say which file it is; exit 0\n"
    "       when valid, 2 with the file, JSON path and problem when not (the\n"
    "       events, the store settings as run opens them, the CA file, and\n"
    "       whether this user can write or make the output directory: run\n"
    "       it as the runner's user); a spool directory it cannot write or\n"
    "       make is a warning (runs still profile and publish, unspooled)\n"
    "show   print the effective configuration as JSON (file, then the\n"
    "       BENCHPROF_* environment overrides); tokens are <redacted>\n"
    "keys   list every key the file may hold, as JSON paths\n"
    "\n"
    "  -c, --config FILE  the file (default: $BENCHPROF_CONFIG, else\n"
    "                     " BP_CONFIG_DEFAULT_PATH ")\n"
    "  -h, --help         this help\n"
    "\n"
    "The keys and variables are described in config/README.md and\n"
    "'man benchprof'.\n");
}

static const char *source_name(enum bp_config_source s)
{
  switch(s) {
  case BP_CONFIG_FLAG:
    return "--config";
  case BP_CONFIG_ENV:
    return "$BENCHPROF_CONFIG";
  case BP_CONFIG_DEFAULT:
    return "the default path";
  default:
    return "none";
  }
}

/* Where a key's value came from, for a message: its variable when set,
 * else the file's JSON path. */
static void key_origin(char *out, size_t len, const struct bp_config *c,
                       const char *var, const char *path)
{
  const char *v = bpi_env_get(environ, var);
  if(v && *v)
    snprintf(out, len, "%s", var);
  else
    snprintf(out, len, "%s: %s", c->file ? c->file : "the defaults", path);
}

/* The event and counter names a run would open: an unknown one is an
 * invalid configuration here, not a surprise at the first run. */
static bool events_known(const struct bp_config *c)
{
  struct bp_err err = {0};
  char where[512];
  struct bp_event ev;
  bp_code rc = c->record.event ?
    bpi_event_parse(c->record.event, false, &ev, &err) : BP_OK;
  if(c->record.event && !rc)
    bpi_event_cleanup(&ev);
  if(rc) {
    key_origin(where, sizeof(where), c, "BENCHPROF_EVENT", "$.record.event");
    bp_msg_error("%s: %s", where, err.msg[0] ? err.msg : bp_strerror(rc));
    return false;
  }
  rc = c->record.counters ? bpi_counters_check(c->record.counters, &err)
                          : BP_OK;
  if(rc) {
    key_origin(where, sizeof(where), c, "BENCHPROF_COUNTERS",
               "$.record.counters");
    bp_msg_error("%s: %s", where, err.msg[0] ? err.msg : bp_strerror(rc));
    return false;
  }
  return true;
}

/* Where the store setting that msg (bpi_store_open's error) is about
 * came from: the S3 endpoint or the public URL when it names them, else
 * the store URL; its variable when set, else the file's key. */
static void store_origin(char *out, size_t len, const struct bp_config *c,
                         const char *msg)
{
  if(!strncmp(msg, "S3 endpoint", 11))
    key_origin(out, len, c, "BENCHPROF_S3_ENDPOINT", "$.store.s3.endpoint");
  else if(!strncmp(msg, "public URL", 10))
    key_origin(out, len, c, "BENCHPROF_PUBLIC_URL", "$.store.public_url");
  else
    key_origin(out, len, c, "BENCHPROF_STORE", "$.store.url");
}

/* A store whose objects need credentials to read (S3, an http store
 * with a token) and no public URL: nothing fails, but a browser cannot
 * open its URLs, so the pull request comments link no profile and no
 * flame graph.  A warning that names the key to set. */
static void warn_no_public_url(const struct bp_config *c,
                               const struct bp_store *st)
{
  char where[512];
  key_origin(where, sizeof(where), c, "BENCHPROF_STORE", "$.store.url");
  bp_msg_warn("%s: %s needs credentials to read and no public URL is set: "
              "pull request comments will not link its profiles and flame "
              "graphs (they name the keys instead); set store.public_url "
              "(BENCHPROF_PUBLIC_URL) to a URL browsers can read them from",
              where, bpi_store_url(st));
}

/* The store settings as run opens them (bpi_store_open, which makes no
 * request): a URL run would refuse (a query, a bad bucket, an endpoint
 * with a path) is an invalid configuration here too. */
static bool store_usable(const struct bp_config *c)
{
  if(!c->store.url)
    return true;
  struct bp_store_opts so = {0};
  struct bp_store *st = NULL;
  struct bp_err err = {0};
  char where[512];
  bpi_config_store_opts(c, environ, &so);
  /* run's default variable when the file names none (publish_run.c):
   * the token decides whether readers need credentials */
  if(!so.bearer && !c->store.token_env) {
    const char *tok = getenv("BENCHPROF_STORE_TOKEN");
    so.bearer = tok && *tok ? tok : NULL;
  }
  bp_code rc = bpi_store_open(&st, &so, &err);
  if(!rc && bpi_store_needs_credentials(st))
    warn_no_public_url(c, st);
  bpi_store_close(st);
  if(rc) {
    store_origin(where, sizeof(where), c, err.msg);
    bp_msg_error("%s: %s", where, err.msg[0] ? err.msg : bp_strerror(rc));
  }
  return !rc;
}

/* network.ca_file: a bundle that cannot be read fails every publication
 * ("error setting certificate file"); said here instead. */
static bool ca_file_readable(const struct bp_config *c)
{
  char where[512];
  struct bp_err err = {0};
  if(!c->network.ca_file)
    return true;
  key_origin(where, sizeof(where), c, "BENCHPROF_CA_FILE",
             "$.network.ca_file");
  if(!bpi_http_ca_file_check(c->network.ca_file, where, &err))
    return true;
  bp_msg_error("%s", err.msg);
  return false;
}

/* The user this check runs as, for the message and its fix. */
static void user_name(char *out, size_t len)
{
  struct passwd *pw = getpwuid(getuid());
  if(pw && pw->pw_name)
    snprintf(out, len, "%s", pw->pw_name);
  else
    snprintf(out, len, "%lu", (unsigned long)getuid());
}

/* output and spool: a directory this user cannot write or make means
 * every job runs unprofiled (output: an error, the configuration is not
 * usable) or failed publications are lost instead of spooled (spool: a
 * warning only, as a run still profiles and publishes; benchprof-wrap
 * takes an invalid configuration to mean "run unprofiled", which would
 * lose the profiles too).  Checked with stat/access only, as the runner's
 * user must run this check.  A relative name is the job's working
 * directory's business, not checked here. */
static bool dir_usable(const struct bp_config *c, const char *dir,
                       const char *var, const char *path, const char *what,
                       bool required)
{
  char where[512], user[64];
  struct bp_err err = {0};
  if(!dir || dir[0] != '/' || !bpi_file_dir_usable(dir, &err))
    return true;
  key_origin(where, sizeof(where), c, var, path);
  user_name(user, sizeof(user));
  (required ? bp_msg_error : bp_msg_warn)(
    "%s: %s (user %s): %s; make it as root with 'install -d -o %s %s' (or "
    "name another directory)", where, err.msg, user, what, user, dir);
  return !required;
}

static bool dirs_usable(const struct bp_config *c)
{
  bool out = dir_usable(c, c->output, "BENCHPROF_OUTPUT", "$.output",
                        "every job would run unprofiled", true);
  dir_usable(c, c->spool, "BENCHPROF_SPOOL", "$.spool",
             "publications that fail would not be spooled", false);
  return out;
}

/* Load as a run would; false (after saying why) when invalid. */
static bool load(struct bp_config *c, const char *flag, bool check)
{
  struct bp_err err = {0};
  bp_code rc = bpi_config_load(c, flag, environ, &err);
  if(c->warning[0])
    bp_msg_warn("%s", c->warning);
  if(rc) {
    bp_msg_err(&err, rc);
    /* what run would do with it (benchprof-wrap --enabled reads this) */
    if(c->strict)
      bp_msg_error("the configuration is not usable and strict mode is on");
    return false;
  }
  if(check && (!events_known(c) || !store_usable(c) ||
               !ca_file_readable(c)))
    return false;
  if(check && !dirs_usable(c)) {
    /* run would fail its setup (output) in strict mode: benchprof-wrap
     * --enabled reads this line to fail the job instead of running it
     * unprofiled */
    if(c->strict)
      bp_msg_error("the configuration is not usable and strict mode is on");
    return false;
  }
  if(!c->file) {
    enum bp_config_source src;
    const char *path = bpi_config_path(flag, environ, &src);
    if(check)
      printf("no config file: %s does not exist; the defaults apply\n",
             path);
    else
      bp_msg_note("no config file (%s does not exist): the defaults apply",
                  path);
  }
  else if(check)
    printf("%s: valid (from %s)\n", c->file, source_name(c->source));
  else
    bp_msg_note("config file %s (from %s)", c->file, source_name(c->source));
  return true;
}

int cmd_config(int argc, char **argv)
{
  static const struct option longopts[] = {
    {"config", required_argument, NULL, 'c'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
  };
  const char *flag = NULL;
  const char *verb = argc > 1 && argv[1][0] != '-' ? argv[1] : NULL;
  int opt;
  /* the action first, its options after: config check --config F */
  if(verb) {
    argc--;
    argv++;
  }
  optind = 1;
  while((opt = getopt_long(argc, argv, "c:h", longopts, NULL)) != -1) {
    switch(opt) {
    case 'c':
      flag = optarg;
      break;
    case 'h':
      usage(stdout);
      return BP_EXIT_OK;
    default:
      return bp_cli_bad_option("config", argv, "c:h", longopts);
    }
  }
  if(!verb && optind < argc)
    verb = argv[optind++];   /* config --config F check */
  if(!verb) {
    bp_msg_error("config: which action? (check, show or keys)");
    return bp_cli_usage_hint("config");
  }
  if(optind != argc) {
    bp_msg_error("config %s: unexpected argument '%s'", verb, argv[optind]);
    return BP_EXIT_USAGE;
  }

  if(!strcmp(verb, "keys")) {
    const char *k;
    for(unsigned i = 0; (k = bpi_config_key(i)) != NULL; i++)
      printf("%s\n", k);
    return BP_EXIT_OK;
  }
  if(strcmp(verb, "check") && strcmp(verb, "show")) {
    bp_msg_error("config: unknown action '%s' (check, show or keys)", verb);
    return BP_EXIT_USAGE;
  }
  struct bp_config c;
  int status = BP_EXIT_OK;
  if(!load(&c, flag, verb[0] == 'c'))
    status = BP_EXIT_USAGE;
  else if(verb[0] == 's') {
    struct bp_buf b;
    bpi_buf_init(&b);
    if(bpi_config_show(&c, &b)) {
      bp_msg_error("out of memory");
      status = BP_EXIT_ERROR;
    }
    else
      fwrite(b.data, 1, b.len, stdout);
    bpi_buf_cleanup(&b);
  }
  bpi_config_cleanup(&c);
  return status;
}
