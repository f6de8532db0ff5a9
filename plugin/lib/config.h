/* config: the runner operator's settings.  A JSON file (schema:
 * config/benchprof.schema.json, every key explained in config/README.md)
 * is read strictly: an unknown key, a wrong type or an out-of-range value
 * is an error that names the file, the JSON path and, for a misspelt key,
 * the key that was meant.  Environment variables (BENCHPROF_*) override the
 * file; the command's flags override both (the caller applies them last).
 *
 * Input: a file name or JSON text, and the environment as an envp array
 * (the library never calls getenv).  Output: struct bp_config, every field
 * holding its effective value (defaults filled in).  Owns: the strings of
 * struct bp_config (free with bpi_config_cleanup).  Not thread-safe per
 * struct bp_config. */
#ifndef BP_LIB_CONFIG_H
#define BP_LIB_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "benchprof/benchprof.h"
#include "buf.h"
#include "unwind.h"  /* enum bp_call_graph */

struct bp_record_opts;
struct bp_http_opts;
struct bp_store_opts;
struct bp_bencher_opts;

/* Where the file is looked for when neither --config nor
 * $BENCHPROF_CONFIG names one; its absence means "no configuration". */
#define BP_CONFIG_DEFAULT_PATH "/etc/benchprof/config.json"

/* Defaults, the same as benchprof record's. */
#define BP_CONFIG_DEFAULT_EVENT "cycles"
#define BP_CONFIG_DEFAULT_FREQUENCY 997
#define BP_CONFIG_DEFAULT_OUTPUT "benchprof-out"
#define BP_CONFIG_DEFAULT_BENCHER_TOKEN_ENV "BENCHER_API_TOKEN"
#define BP_CONFIG_DEFAULT_CONNECT_TIMEOUT_MS 10000
#define BP_CONFIG_DEFAULT_TIMEOUT_MS 120000
#define BP_CONFIG_DEFAULT_RETRIES 4
#define BP_CONFIG_DEFAULT_MAX_RETRY_AFTER_MS 120000
/* comment.settle: read the comment back this long after writing it */
#define BP_CONFIG_DEFAULT_COMMENT_SETTLE_MS 2000

/* Where the effective configuration came from. */
enum bp_config_source {
  BP_CONFIG_NONE = 0,   /* no file: defaults (and the environment) */
  BP_CONFIG_FLAG,       /* --config FILE */
  BP_CONFIG_ENV,        /* $BENCHPROF_CONFIG */
  BP_CONFIG_DEFAULT,    /* BP_CONFIG_DEFAULT_PATH */
};

/* Every key of the file.  A string field is NULL when the key is unset
 * and has no default. */
struct bp_config {
  /* false: `benchprof run -- CMD` runs CMD untouched (no perf events,
   * no files).  Default true: a file with no "enabled" key is in use. */
  bool enabled;
  bool strict;            /* config and publication errors fail the job */
  char *output;           /* artifact directory; default "benchprof-out" */
  char *spool;            /* spool directory; NULL: publishing's default */
  bool firefox_upload;    /* opt-in public Firefox Profiler upload */
  char *base_branches;    /* fnmatch patterns (commas or spaces) of the
                             long-lived branches a pull request's head is
                             never published as; NULL: none listed */

  struct {
    char *event;              /* libpfm4 event; default "cycles" */
    uint64_t frequency;       /* Hz; 0 when period is set */
    uint64_t period;          /* events per sample; 0: use frequency */
    char *call_graph;         /* as written: "fp", "dwarf[,N]", "auto" */
    enum bp_call_graph call_graph_mode;  /* parsed; default auto */
    uint32_t stack_bytes;     /* dwarf,N: N; 0: the default (8192) */
    char *counters;           /* comma list; NULL: count nothing (false);
                                 default BP_COUNTERS_DEFAULT */
    bool kernel;              /* kernel frames too */
    bool off_cpu;             /* off-CPU time too (--off-cpu) */
    uint64_t ring_mib;        /* MiB per CPU ring, a power of two; 0: the
                                 default (record.h) */
    bool spill_memory;        /* rings spilled to memory first (spill.h);
                                 default true */
    bool stack_tops;          /* spilled stack copies cut to what their
                                 thread's unwinding reads (stacktops.h);
                                 default true */
    uint64_t repeat;          /* run: invocations a run makes; 0: 1 */
  } record;

  struct {
    char *debuginfod;         /* servers asked for missing debug files
                                 (space-separated URLs); NULL: none */
    long debuginfod_timeout_ms; /* all lookups of a profile together;
                                   file: "debuginfod_timeout" seconds */
    char *debuginfod_cache;   /* NULL: libdebuginfod's default */
  } symbols;

  struct {
    char *url;                /* file:///dir, s3://bucket/prefix, http(s)://
                                 NULL: no store */
    char *public_url;         /* base URL readers load the same keys from */
    char *token_env;          /* http(s) store: variable holding the
                                 bearer token; NULL: none */
    struct {
      char *endpoint;         /* NULL: https://s3.{region}.amazonaws.com */
      char *region;           /* NULL: "us-east-1" */
      bool path_style;
    } s3;
  } store;

  struct {
    char *host;               /* NULL: https://api.bencher.dev */
    char *console;            /* the console links point at; NULL: the
                                 cloud's for its API, else the host */
    char *project;            /* slug; NULL: from CI or git (ci.h) */
    char *testbed;            /* NULL: from CI, else the host name */
    char *suite;              /* one of a job's benchmark steps, published
                                 apart (publish.h); NULL: none */
    char *token_env;          /* default "BENCHER_API_TOKEN" */
    char *token;              /* allowed, discouraged; never shown */
  } bencher;

  struct {
    long connect_timeout_ms;  /* file: "connect_timeout" in seconds */
    long timeout_ms;          /* per attempt; file: "timeout" seconds */
    unsigned retries;         /* further attempts after the first */
    long max_retry_after_ms;  /* longest Retry-After obeyed; file: seconds */
    long deadline_ms;         /* all requests of one command; 0: none */
    char *ca_file;            /* extra CA bundle (PEM); NULL: system's */
  } network;

  struct {
    bool enabled;             /* default true (needs a PR and a token) */
    double threshold;         /* percent a change must exceed; default 2 */
    unsigned max_functions;   /* functions listed per benchmark; 10 */
    bool fail_on_regression;  /* run/compare exit 3 on a confirmed
                                 regression; default false */
    char *wall_time_only;     /* as written: "separate" (default) or
                                 "regression" */
    bool wall_time_counted;   /* parsed: "regression", a confirmed
                                 latency change the CPU time did not
                                 follow counts (bp_cmp_opts) */
    char *token_env;          /* NULL: GITHUB_TOKEN on GitHub,
                                 GITLAB_TOKEN on GitLab (its notes API
                                 refuses CI_JOB_TOKEN) */
    char *file;               /* also write the comment's markdown here */
    long settle_ms;           /* the comment is read back this long after
                                 it was written, to find another job's
                                 older comparison written over it (forge.h,
                                 bpi_comment_settle); file: "settle"
                                 seconds, default 2 */
  } comment;

  /* where it came from */
  enum bp_config_source source;
  char *file;                 /* the file read, NULL when none */
  /* a problem that is not an error (a token in a file others can read);
   * empty when none.  The caller prints it. */
  char warning[320];
  /* private: which keys were given (bit per key of the table) */
  uint64_t given;
};

/* Defaults, no file.  BPE_NOMEM (c then safe to clean up). */
bp_code bpi_config_init(struct bp_config *c);
void bpi_config_cleanup(struct bp_config *c);

/* The file to read: flag when given, else $BENCHPROF_CONFIG, else
 * BP_CONFIG_DEFAULT_PATH; *source says which.  Never NULL; points into
 * flag, envp or a literal. */
const char *bpi_config_path(const char *flag, char *const *envp,
                            enum bp_config_source *source);

/* Parse JSON text over c's current values; origin names it in messages
 * ("config.json").  BPE_CONFIG with the origin, the JSON path and what is
 * wrong (line:column for a syntax error); c is then unchanged, except
 * that an object with "strict": true at its top turns c->strict on (an
 * invalid file that asks for strict mode gets it). */
bp_code bpi_config_parse(struct bp_config *c, const char *json, size_t len,
                         const char *origin, struct bp_err *err);

/* Read and parse path.  BPE_NOT_FOUND when it does not exist (c
 * unchanged), BPE_IO when it cannot be read, BPE_CONFIG when invalid.
 * Sets c->file and, when the file holds a token and others may read it,
 * c->warning. */
bp_code bpi_config_load_file(struct bp_config *c, const char *path,
                             struct bp_err *err);

/* Apply the BENCHPROF_* overrides in envp (see config/README.md).
 * BPE_CONFIG naming the variable for a bad value. */
bp_code bpi_config_apply_env(struct bp_config *c, char *const *envp,
                             struct bp_err *err);

/* What a command calls: init c, then read the file bpi_config_path
 * chooses, then apply the environment.  A missing default file is no
 * error (c->source BP_CONFIG_NONE).  A missing named file is BPE_NOT_FOUND,
 * an invalid one BPE_CONFIG; either way c then holds the defaults plus
 * the environment's overrides (so c->strict and c->enabled still follow
 * BENCHPROF_STRICT / BENCHPROF_ENABLED), and err the first problem.  An
 * invalid file that is a JSON object with "strict": true at its top
 * leaves c->strict on (BENCHPROF_STRICT=0 still turns it off). */
bp_code bpi_config_load(struct bp_config *c, const char *flag,
                        char *const *envp, struct bp_err *err);

/* The URLs settings and options take: a store's (store.url, --store:
 * file:///dir, s3://bucket/prefix, http(s)://host/prefix) or a web
 * service's (http:// or https://: the public URL, the S3 endpoint, the
 * Bencher host).  One check for the file, the variables and the flags. */
enum bp_url_kind { BP_URL_STORE, BP_URL_HTTP };
enum bp_url_check {
  BP_URL_OK,
  BP_URL_WRONG,        /* NULL, or not a URL of that kind */
  BP_URL_CREDENTIALS,  /* user:password@: it would go into manifests and
                          the spool (never echo it) */
};
enum bp_url_check bpi_config_url_check(const char *s, enum bp_url_kind kind);
/* What a URL of kind must be, for messages: "an http:// or https:// URL". */
const char *bpi_config_url_expected(enum bp_url_kind kind);

/* The effective configuration as JSON (every key, in the file's layout);
 * a token that is set is "<redacted>". */
bp_code bpi_config_show(const struct bp_config *c, struct bp_buf *out);

/* Whether s names a token's variable in the conventional form: 1 or
 * more uppercase ASCII letters, digits and '_', not starting with a
 * digit, and not credential-like (bpi_config_credential_like).
 * Anything else is refused where a token's variable is named (the
 * *.token_env keys, --token-env), without being shown: an operator who
 * put the token itself there would see it in the error, and every
 * "$NAME is not set" after it. */
bool bpi_config_env_name(const char *s);
/* Whether s has the form of a credential rather than of a name: only
 * uppercase letters and digits (no '_'), and either an AWS access key ID
 * (AKIA, ASIA, ... and 16 more, 20 characters) or
 * BP_CONFIG_KEY_LOOKALIKE_LEN or more characters mixing letters and
 * digits (a random key in uppercase hex or base32).  Such a token passes the naming rule and
 * would be printed as "$AKIA... is not set"; a real name of that shape
 * takes a '_' (MY_TOKEN_2024). */
#define BP_CONFIG_KEY_LOOKALIKE_LEN 16
bool bpi_config_credential_like(const char *s);
/* Why bpi_config_env_name refused a credential-like value, said after
 * "the value is not shown" (it never is). */
#define BP_CONFIG_CREDENTIAL_RULE                                         \
  "it has the form of a credential (an AWS access key ID, or 16 or more " \
  "uppercase letters and digits mixed, without a '_'), which a "         \
  "variable's name here may not have"

/* Tokens, resolved from the config's variable names in envp; NULL when
 * none.  Never print them. */
const char *bpi_config_bencher_token(const struct bp_config *c,
                                     char *const *envp);
const char *bpi_config_store_token(const struct bp_config *c,
                                   char *const *envp);
/* provider "github" or "gitlab" (ci.h); comment.token_env wins. */
const char *bpi_config_comment_token(const struct bp_config *c,
                                     const char *provider,
                                     char *const *envp);

/* The settings as the stages' options, for `run` and `flush`: apply these
 * after the defaults and before the flags, so that flags win.  Strings
 * are borrowed from c (and envp): c must outlive o.  Each sets only the
 * fields the config has: record: event, freq, period, call_graph,
 * stack_bytes, counters, kernel; http: the timeouts, retries, ca_file;
 * store: url, public_url, s3_*, the AWS_* credentials and the bearer
 * token from envp; bencher: host and token. */
void bpi_config_record_opts(const struct bp_config *c,
                            struct bp_record_opts *o);
void bpi_config_http_opts(const struct bp_config *c, struct bp_http_opts *o);
void bpi_config_store_opts(const struct bp_config *c, char *const *envp,
                           struct bp_store_opts *o);
void bpi_config_bencher_opts(const struct bp_config *c, char *const *envp,
                             struct bp_bencher_opts *o);

/* The value of name in envp, NULL when unset.  An empty value is
 * returned as "". */
const char *bpi_env_get(char *const *envp, const char *name);

/* The keys of the file as JSON paths ("record.frequency"), in order,
 * NULL-terminated; objects included ("record").  For `config keys` and
 * the schema test. */
const char *bpi_config_key(unsigned i);

#endif
