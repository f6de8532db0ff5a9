/* config: the configuration's keys and struct bp_config: the one table
 * of keys (bpi_config_keys[]: type, range, field, overriding variable),
 * the struct's life (defaults, copy, cleanup), loading a file and then the
 * environment (bpi_config_load), the tokens, and the options of the other
 * modules taken from it.
 *
 * Parsing (config_parse.c), the overrides (config_env.c), `config show`
 * (config_show.c) and the unknown-key suggestions all walk the table, so
 * they cannot disagree.  A parse works on a copy and hands it over only
 * when the whole document is valid. */
#include "bp_setup.h"
#include "config.h"
#include "config_int.h"
#include "bencher.h"
#include "compare.h"   /* BP_CMP_THRESHOLD_DEFAULT, BP_CMP_FUNCTIONS_DEFAULT */
#include "counters.h"  /* BP_COUNTERS_DEFAULT */
#include "err.h"
#include "http.h"
#include "record.h"    /* bp_record_opts */
#include "store.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OBJ(p) {p, K_OBJ, 0, 0, 0, NULL}

/* Objects come before their keys, so the order is the file's layout. */
const struct key bpi_config_keys[] = {
  {"enabled", K_BOOL, F(enabled), 0, 0, "BENCHPROF_ENABLED"},
  {"strict", K_BOOL, F(strict), 0, 0, "BENCHPROF_STRICT"},
  {"output", K_STR, F(output), 0, 0, "BENCHPROF_OUTPUT"},
  {"spool", K_STR, F(spool), 0, 0, "BENCHPROF_SPOOL"},
  {"firefox_upload", K_BOOL, F(firefox_upload), 0, 0,
   "BENCHPROF_FIREFOX_UPLOAD"},
  {"base_branches", K_STR, F(base_branches), 0, 0, "BENCHPROF_BASE_BRANCHES"},
  OBJ("record"),
  {"record.event", K_STR, F(record.event), 0, 0, "BENCHPROF_EVENT"},
  {"record.frequency", K_U64, F(record.frequency), 1, 1000000,
   "BENCHPROF_FREQUENCY"},
  {"record.period", K_U64, F(record.period), 1, 4611686018427387904.0,
   "BENCHPROF_PERIOD"},
  {"record.call_graph", K_CALL_GRAPH, F(record.call_graph), 0, 0,
   "BENCHPROF_CALL_GRAPH"},
  {"record.counters", K_COUNTERS, F(record.counters), 0, 0,
   "BENCHPROF_COUNTERS"},
  {"record.kernel", K_BOOL, F(record.kernel), 0, 0, "BENCHPROF_KERNEL"},
  {"record.off_cpu", K_BOOL, F(record.off_cpu), 0, 0, "BENCHPROF_OFF_CPU"},
  {"record.ring_mib", K_U64, F(record.ring_mib), 1, 1024,
   "BENCHPROF_RING_MIB"},
  {"record.spill_memory", K_BOOL, F(record.spill_memory), 0, 0,
   "BENCHPROF_SPILL_MEMORY"},
  {"record.stack_tops", K_BOOL, F(record.stack_tops), 0, 0,
   "BENCHPROF_STACK_TOPS"},
  {"record.repeat", K_U64, F(record.repeat), 1, 1000, "BENCHPROF_REPEAT"},
  OBJ("symbols"),
  {"symbols.debuginfod", K_STR, F(symbols.debuginfod), 0, 0,
   "BENCHPROF_DEBUGINFOD"},
  {"symbols.debuginfod_timeout", K_MS, F(symbols.debuginfod_timeout_ms),
   0.001, 3600, NULL},
  {"symbols.debuginfod_cache", K_STR, F(symbols.debuginfod_cache), 0, 0,
   NULL},
  OBJ("store"),
  {"store.url", K_STORE_URL, F(store.url), 0, 0, "BENCHPROF_STORE"},
  {"store.public_url", K_HTTP_URL, F(store.public_url), 0, 0,
   "BENCHPROF_PUBLIC_URL"},
  {"store.token_env", K_ENVNAME, F(store.token_env), 0, 0, NULL},
  OBJ("store.s3"),
  {"store.s3.endpoint", K_HTTP_URL, F(store.s3.endpoint), 0, 0,
   "BENCHPROF_S3_ENDPOINT"},
  {"store.s3.region", K_STR, F(store.s3.region), 0, 0,
   "BENCHPROF_S3_REGION"},
  {"store.s3.path_style", K_BOOL, F(store.s3.path_style), 0, 0,
   "BENCHPROF_S3_PATH_STYLE"},
  OBJ("bencher"),
  /* BENCHER_HOST: the name issue 5 and the bencher CLI use */
  {"bencher.host", K_HTTP_URL, F(bencher.host), 0, 0, "BENCHER_HOST"},
  {"bencher.console_url", K_HTTP_URL, F(bencher.console), 0, 0,
   "BENCHPROF_BENCHER_CONSOLE"},
  {"bencher.project", K_STR, F(bencher.project), 0, 0, "BENCHPROF_PROJECT"},
  {"bencher.testbed", K_STR, F(bencher.testbed), 0, 0, "BENCHPROF_TESTBED"},
  {"bencher.suite", K_SUITE, F(bencher.suite), 0, 0, "BENCHPROF_SUITE"},
  {"bencher.token_env", K_ENVNAME, F(bencher.token_env), 0, 0, NULL},
  {"bencher.token", K_SECRET, F(bencher.token), 0, 0, NULL},
  OBJ("network"),
  {"network.connect_timeout", K_MS, F(network.connect_timeout_ms), 0.001,
   600, NULL},
  {"network.timeout", K_MS, F(network.timeout_ms), 0.001, 3600, NULL},
  {"network.retries", K_UINT, F(network.retries), 0, 20, NULL},
  {"network.max_retry_after", K_MS, F(network.max_retry_after_ms), 0.001,
   3600, NULL},
  {"network.deadline", K_MS, F(network.deadline_ms), 0.001, 86400, NULL},
  {"network.ca_file", K_STR, F(network.ca_file), 0, 0, "BENCHPROF_CA_FILE"},
  OBJ("comment"),
  {"comment.enabled", K_BOOL, F(comment.enabled), 0, 0, "BENCHPROF_COMMENT"},
  {"comment.threshold", K_NUMBER, F(comment.threshold), 0, 1000, NULL},
  {"comment.max_functions", K_UINT, F(comment.max_functions), 0, 100, NULL},
  {"comment.fail_on_regression", K_BOOL, F(comment.fail_on_regression), 0, 0,
   "BENCHPROF_FAIL_ON_REGRESSION"},
  {"comment.wall_time_only", K_WALL_TIME, F(comment.wall_time_only), 0, 0,
   "BENCHPROF_WALL_TIME_ONLY"},
  {"comment.token_env", K_ENVNAME, F(comment.token_env), 0, 0, NULL},
  {"comment.file", K_STR, F(comment.file), 0, 0, NULL},
  {"comment.settle", K_MS, F(comment.settle_ms), 0.001, 600,
   "BENCHPROF_COMMENT_SETTLE"},
};

#define NKEYS BP_ARRAY_LEN(bpi_config_keys)
_Static_assert(BP_ARRAY_LEN(bpi_config_keys) <= 64,
               "struct bp_config.given has 64 bits");
const unsigned bpi_config_nkeys = (unsigned)NKEYS;


static bool is_string_kind(enum kind k)
{
  return k == K_STR || k == K_STORE_URL || k == K_HTTP_URL ||
         k == K_ENVNAME || k == K_SECRET || k == K_CALL_GRAPH ||
         k == K_COUNTERS || k == K_SUITE || k == K_WALL_TIME;
}

unsigned bpi_config_key_index(const char *path)
{
  for(unsigned i = 0; i < NKEYS; i++)
    if(!strcmp(bpi_config_keys[i].path, path))
      return i;
  return (unsigned)NKEYS;
}

unsigned bpi_config_key_of(size_t off, enum kind kind)
{
  for(unsigned i = 0; i < NKEYS; i++)
    if(bpi_config_keys[i].off == off && bpi_config_keys[i].kind == kind)
      return i;
  return (unsigned)NKEYS;
}

const char *bpi_config_key(unsigned i)
{
  return i < NKEYS ? bpi_config_keys[i].path : NULL;
}

/* ---------------------------------------------------------- lifecycle */

bp_code bpi_config_set_str(char **dst, const char *s)
{
  char *copy = NULL;
  if(s) {
    copy = strdup(s);
    if(!copy)
      return BPE_NOMEM;
  }
  free(*dst);
  *dst = copy;
  return BP_OK;
}

bp_code bpi_config_init(struct bp_config *c)
{
  memset(c, 0, sizeof(*c));
  c->enabled = true;
  c->record.frequency = BP_CONFIG_DEFAULT_FREQUENCY;
  c->record.call_graph_mode = BP_CALL_GRAPH_AUTO;
  c->record.kernel = true;  /* where permitted (record.c) */
  c->record.spill_memory = true;
  c->record.stack_tops = true;
  c->symbols.debuginfod_timeout_ms = BP_DEBUGINFOD_TIMEOUT_MS;
  c->network.connect_timeout_ms = BP_CONFIG_DEFAULT_CONNECT_TIMEOUT_MS;
  c->network.timeout_ms = BP_CONFIG_DEFAULT_TIMEOUT_MS;
  c->network.retries = BP_CONFIG_DEFAULT_RETRIES;
  c->network.max_retry_after_ms = BP_CONFIG_DEFAULT_MAX_RETRY_AFTER_MS;
  c->comment.enabled = true;
  c->comment.threshold = BP_CMP_THRESHOLD_DEFAULT;
  c->comment.max_functions = BP_CMP_FUNCTIONS_DEFAULT;
  c->comment.settle_ms = BP_CONFIG_DEFAULT_COMMENT_SETTLE_MS;
  if(bpi_config_set_str(&c->output, BP_CONFIG_DEFAULT_OUTPUT) ||
     bpi_config_set_str(&c->record.event, BP_CONFIG_DEFAULT_EVENT) ||
     bpi_config_set_str(&c->record.call_graph, "auto") ||
     bpi_config_set_str(&c->record.counters, BP_COUNTERS_DEFAULT) ||
     bpi_config_set_str(&c->comment.wall_time_only, "separate") ||
     bpi_config_set_str(&c->bencher.token_env,
                        BP_CONFIG_DEFAULT_BENCHER_TOKEN_ENV))
    return BPE_NOMEM;
  return BP_OK;
}

void bpi_config_cleanup(struct bp_config *c)
{
  for(unsigned i = 0; i < NKEYS; i++)
    if(is_string_kind(bpi_config_keys[i].kind))
      free(*str_field(c, &bpi_config_keys[i]));
  free(c->file);
  memset(c, 0, sizeof(*c));
}

/* dst = a deep copy of src. */
bp_code bpi_config_copy(struct bp_config *dst, const struct bp_config *src)
{
  *dst = *src;
  for(unsigned i = 0; i < NKEYS; i++)
    if(is_string_kind(bpi_config_keys[i].kind))
      *str_field(dst, &bpi_config_keys[i]) = NULL;
  dst->file = NULL;
  bp_code rc = bpi_config_set_str(&dst->file, src->file);
  for(unsigned i = 0; !rc && i < NKEYS; i++)
    if(is_string_kind(bpi_config_keys[i].kind))
      rc = bpi_config_set_str(str_field(dst, &bpi_config_keys[i]),
                              *(char *const *)cfield(src,
                                                     &bpi_config_keys[i]));
  return rc;
}

/* ---------------------------------------------------------- the whole */

const char *bpi_config_path(const char *flag, char *const *envp,
                            enum bp_config_source *source)
{
  const char *env = bpi_env_get(envp, "BENCHPROF_CONFIG");
  if(flag) {
    *source = BP_CONFIG_FLAG;
    return flag;
  }
  if(env && *env) {
    *source = BP_CONFIG_ENV;
    return env;
  }
  *source = BP_CONFIG_DEFAULT;
  return BP_CONFIG_DEFAULT_PATH;
}

bp_code bpi_config_load(struct bp_config *c, const char *flag,
                        char *const *envp, struct bp_err *err)
{
  enum bp_config_source source;
  struct bp_err scratch = {0};
  const char *path = bpi_config_path(flag, envp, &source);
  bp_code rc = bpi_config_init(c);
  if(rc)
    return bpi_err_set(err, rc, 0, "config");
  rc = bpi_config_load_file(c, path, &scratch);
  if(rc == BPE_NOT_FOUND && source == BP_CONFIG_DEFAULT)
    rc = BP_OK;   /* no file where none was asked for: no configuration */
  else if(rc)
    *err = scratch;
  else
    c->source = source;
  /* the overrides apply even after a bad file, so that BENCHPROF_STRICT
   * and BENCHPROF_ENABLED still decide what the caller does about it */
  bp_code env_rc = bpi_config_apply_env(c, envp, rc ? &scratch : err);
  return rc ? rc : env_rc;
}

/* -------------------------------------------------------------- tokens */

static const char *env_token(char *const *envp, const char *name)
{
  const char *v = name ? bpi_env_get(envp, name) : NULL;
  return v && *v ? v : NULL;
}

const char *bpi_config_bencher_token(const struct bp_config *c,
                                     char *const *envp)
{
  if(c->bencher.token)
    return c->bencher.token;
  return env_token(envp, c->bencher.token_env);
}

const char *bpi_config_store_token(const struct bp_config *c,
                                   char *const *envp)
{
  return env_token(envp, c->store.token_env);
}

const char *bpi_config_comment_token(const struct bp_config *c,
                                     const char *provider,
                                     char *const *envp)
{
  if(c->comment.token_env)
    return env_token(envp, c->comment.token_env);
  if(provider && !strcmp(provider, "github"))
    return env_token(envp, "GITHUB_TOKEN");
  /* an access token: GitLab's notes API refuses the job's CI_JOB_TOKEN */
  if(provider && !strcmp(provider, "gitlab"))
    return env_token(envp, "GITLAB_TOKEN");
  return NULL;
}

/* ------------------------------------------------------------ mapping */

void bpi_config_record_opts(const struct bp_config *c,
                            struct bp_record_opts *o)
{
  o->event = c->record.event;
  o->freq = c->record.frequency;
  o->period = c->record.period;
  o->call_graph = c->record.call_graph_mode;
  o->stack_bytes = c->record.stack_bytes;
  o->counters = c->record.counters;
  o->kernel = c->record.kernel;
  o->off_cpu = c->record.off_cpu;
  o->spill_disk_only = !c->record.spill_memory;
  o->whole_stacks = !c->record.stack_tops;
  o->debuginfod = c->symbols.debuginfod;
  o->debuginfod_cache = c->symbols.debuginfod_cache;
  o->debuginfod_timeout_ms = c->symbols.debuginfod_timeout_ms;
  if(c->record.ring_mib) {
    uint64_t pages = (c->record.ring_mib << 20) /
                     (uint64_t)sysconf(_SC_PAGESIZE);
    o->ring_pages = pages ? (uint32_t)pages : 1;
  }
}

void bpi_config_http_opts(const struct bp_config *c, struct bp_http_opts *o)
{
  o->connect_timeout_ms = c->network.connect_timeout_ms;
  o->total_timeout_ms = c->network.timeout_ms;
  o->retries = c->network.retries;
  o->max_retry_after_ms = c->network.max_retry_after_ms;
  o->deadline_ms = c->network.deadline_ms ?
    bpi_http_now_ms() + c->network.deadline_ms : 0;
  o->ca_file = c->network.ca_file;
}

void bpi_config_store_opts(const struct bp_config *c, char *const *envp,
                           struct bp_store_opts *o)
{
  o->url = c->store.url;
  o->public_url = c->store.public_url;
  o->s3_endpoint = c->store.s3.endpoint;
  o->s3_region = c->store.s3.region;
  o->s3_path_style = c->store.s3.path_style;
  o->aws_key = env_token(envp, "AWS_ACCESS_KEY_ID");
  o->aws_secret = env_token(envp, "AWS_SECRET_ACCESS_KEY");
  o->aws_session_token = env_token(envp, "AWS_SESSION_TOKEN");
  o->bearer = bpi_config_store_token(c, envp);
}

void bpi_config_bencher_opts(const struct bp_config *c, char *const *envp,
                             struct bp_bencher_opts *o)
{
  o->host = c->bencher.host;
  o->token = bpi_config_bencher_token(c, envp);
}
