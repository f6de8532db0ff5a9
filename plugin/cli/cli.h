/* The benchprof command: one cmd_<name>() per subcommand, listed in main.c.
 * Exit statuses shared by all subcommands: */
#ifndef BP_CLI_CLI_H
#define BP_CLI_CLI_H

#define BP_EXIT_OK 0
#define BP_EXIT_ERROR 1       /* benchprof itself failed */
#define BP_EXIT_USAGE 2       /* bad command line, unknown event */
#define BP_EXIT_REGRESSION 3  /* --fail-on-regression: one was confirmed */
#define BP_EXIT_NOT_FOUND 127 /* the command could not be started */

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

#include "benchprof/benchprof.h"

#include "config.h"   /* enum bp_url_kind */
#include "record.h"
#include "slice.h"    /* struct bp_marked, struct bp_export_record */

int cmd_record(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_events(int argc, char **argv);
int cmd_flush(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_comment(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_index(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_ci(int argc, char **argv);

/* msgs.c: a command line a subcommand cannot take.  The error, then one
 * line saying where the help is (never the help itself: in a CI log it
 * would push the error out of sight).  Both return BP_EXIT_USAGE. */
struct option;
/* After getopt_long returned '?' (opterr is 0: main turns getopt's own
 * messages off): what was wrong with the option, as "CMD: ...". */
int bp_cli_bad_option(const char *cmd, char *const *argv,
                      const char *shortopts, const struct option *longopts);
/* "see 'benchprof CMD --help'", after an error already said. */
int bp_cli_usage_hint(const char *cmd);

/* cmd_record.c and record_opts.c: what record and run share. */
enum bp_adapter {
  BP_ADAPTER_NONE = 0,
  BP_ADAPTER_JSON,    /* BMF on the command's stdout */
  BP_ADAPTER_GBENCH,  /* Google Benchmark JSON on the command's stdout */
};

/* publish_opts.c: the publishing options benchprof run and flush share
 * (identity, targets, reliability); credentials come from the
 * environment only. */
struct bp_cli_publish {
  bool enabled;              /* run: false with --no-publish */
  bool strict;               /* a publication failure fails the command */
  bool for_run;              /* run's: a failure to publish or compare
                                keeps the command's exit status unless
                                strict (bp_cli_pub_failure_kept) */
  bool verbose;              /* -v: a line per HTTP request */
  bool firefox_upload;
  bool s3_path_style;
  const char *project, *branch, *hash, *testbed;
  const char *suite;         /* --suite, bencher.suite; NULL: none */
  const char *base_branch, *base_hash;
  const char *store, *public_url, *s3_endpoint, *s3_region;
  const char *spool, *ca_file, *token_env, *firefox_api;
  long timeout_ms;           /* 0: the default */
  long retries;              /* -1: the default */
  long retry_delay_ms;       /* first backoff; 0: the default */
  long max_retry_after_ms;   /* longest Retry-After obeyed; 0: the default */
  long deadline_ms;          /* all of the command's requests; 0: none */
  bool no_bencher;           /* --no-bencher: the job reports itself */
  bool fail_on_regression;   /* run: exit BP_EXIT_REGRESSION when the
                                comparison confirms a regression */
  const struct bp_config *config; /* network, credentials; may be NULL */
};

/* The long options of struct bp_cli_publish, for a getopt_long table;
 * their values are BP_CLI_PUB_* (above any short option). */
enum {
  BP_CLI_PUB_FIRST = 0x100,
  BP_CLI_PUB_NO_PUBLISH = BP_CLI_PUB_FIRST, BP_CLI_PUB_PROJECT,
  BP_CLI_PUB_BRANCH, BP_CLI_PUB_HASH, BP_CLI_PUB_TESTBED,
  BP_CLI_PUB_BASE_BRANCH, BP_CLI_PUB_BASE_HASH, BP_CLI_PUB_STORE,
  BP_CLI_PUB_PUBLIC_URL, BP_CLI_PUB_S3_ENDPOINT, BP_CLI_PUB_S3_REGION,
  BP_CLI_PUB_S3_PATH_STYLE, BP_CLI_PUB_SPOOL, BP_CLI_PUB_FIREFOX_UPLOAD,
  BP_CLI_PUB_FIREFOX_API, BP_CLI_PUB_CA_FILE, BP_CLI_PUB_TIMEOUT,
  BP_CLI_PUB_RETRIES, BP_CLI_PUB_STRICT, BP_CLI_PUB_TOKEN_ENV,
  BP_CLI_PUB_RETRY_DELAY, BP_CLI_PUB_MAX_RETRY_AFTER, BP_CLI_PUB_DEADLINE,
  BP_CLI_PUB_SUITE,
  BP_CLI_PUB_LAST
};
#define BP_CLI_PUBLISH_LONGOPTS                                            \
  {"no-publish", no_argument, NULL, BP_CLI_PUB_NO_PUBLISH},                \
  {"project", required_argument, NULL, BP_CLI_PUB_PROJECT},                \
  {"branch", required_argument, NULL, BP_CLI_PUB_BRANCH},                  \
  {"hash", required_argument, NULL, BP_CLI_PUB_HASH},                      \
  {"testbed", required_argument, NULL, BP_CLI_PUB_TESTBED},                \
  {"suite", required_argument, NULL, BP_CLI_PUB_SUITE},                    \
  {"base-branch", required_argument, NULL, BP_CLI_PUB_BASE_BRANCH},        \
  {"base-hash", required_argument, NULL, BP_CLI_PUB_BASE_HASH},            \
  {"store", required_argument, NULL, BP_CLI_PUB_STORE},                    \
  {"public-url", required_argument, NULL, BP_CLI_PUB_PUBLIC_URL},          \
  {"s3-endpoint", required_argument, NULL, BP_CLI_PUB_S3_ENDPOINT},        \
  {"s3-region", required_argument, NULL, BP_CLI_PUB_S3_REGION},            \
  {"s3-path-style", no_argument, NULL, BP_CLI_PUB_S3_PATH_STYLE},          \
  {"spool", required_argument, NULL, BP_CLI_PUB_SPOOL},                    \
  {"firefox-upload", no_argument, NULL, BP_CLI_PUB_FIREFOX_UPLOAD},        \
  {"firefox-api", required_argument, NULL, BP_CLI_PUB_FIREFOX_API},        \
  {"ca-file", required_argument, NULL, BP_CLI_PUB_CA_FILE},                \
  {"timeout", required_argument, NULL, BP_CLI_PUB_TIMEOUT},                \
  {"retries", required_argument, NULL, BP_CLI_PUB_RETRIES},                \
  {"retry-delay", required_argument, NULL, BP_CLI_PUB_RETRY_DELAY},        \
  {"max-retry-after", required_argument, NULL, BP_CLI_PUB_MAX_RETRY_AFTER}, \
  {"deadline", required_argument, NULL, BP_CLI_PUB_DEADLINE},              \
  {"strict", no_argument, NULL, BP_CLI_PUB_STRICT},                        \
  {"token-env", required_argument, NULL, BP_CLI_PUB_TOKEN_ENV},            \
  {"verbose", no_argument, NULL, 'v'}

void bp_cli_publish_defaults(struct bp_cli_publish *p);
/* The value arg of a URL option --name (a store's or an http(s) one, as
 * the configuration checks them): 0 when usable, else said why and
 * BP_EXIT_USAGE. */
int bp_cli_url_option(const char *name, const char *arg,
                      enum bp_url_kind kind);
/* The value arg of --suite (run's, compare's): 0 when a suite's name,
 * else said why and BP_EXIT_USAGE.  An empty one is refused too (an
 * unset variable in a job's script): none is --suite left out. */
int bp_cli_suite_option(const char *arg);
/* The value arg of --token-env (run's, flush's, comment's): 0 when a
 * variable's name in the conventional form (bpi_config_env_name), else
 * said why, never showing arg (it may be the token itself), and
 * BP_EXIT_USAGE.  example: the variable it usually names. */
int bp_cli_token_env_option(const char *arg, const char *example);
/* The value arg of a commit hash option --name (--hash, --base-hash of
 * run and ci): 0 when a full commit hash (bpi_ci_is_hash) or empty (not
 * given), else said why (the option, the value, what it takes) and
 * BP_EXIT_USAGE. */
int bp_cli_hash_option(const char *name, const char *arg);
/* Take option opt (a BP_CLI_PUB_* or 'v'): 0 when taken, the exit status
 * on a bad value. */
int bp_cli_publish_option(int opt, const char *arg, struct bp_cli_publish *p);
/* The options' help text. */
void bp_cli_publish_usage(FILE *out, bool run);
/* publish_run.c: publish the run directory dir (report and manifest
 * written) and say what happened. */
enum bp_cli_published {
  BP_CLI_PUBLISH_DELIVERED,
  BP_CLI_PUBLISH_FAILED,   /* not delivered (spooled, refused, or the
                              identity incomplete) */
  BP_CLI_PUBLISH_NOTHING,  /* could not start: its setup or targets
                              (said, with "nothing was published") */
};
enum bp_cli_published bp_cli_publish_run(const struct bp_cli_publish *p,
                                         const char *dir,
                                         const char *start_time,
                                         const char *end_time);
/* Whether a failure to publish or to compare leaves the exit status to
 * the command: run's, not strict.  Such a failure is then said as a
 * warning, else as an error: a message's severity follows the job's
 * outcome, so that a green job's log has no error in it
 * (docs/reliability.md, "Errors and warnings"). */
bool bp_cli_pub_failure_kept(const struct bp_cli_publish *p);
/* One such failure, a warning or an error by that rule. */
void bp_cli_pub_say_failure(const struct bp_cli_publish *p,
                            const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));
/* err (else code's text) as such a failure. */
struct bp_err;
void bp_cli_pub_say_failure_err(const struct bp_cli_publish *p,
                                const struct bp_err *err, bp_code code);
/* Before run's command starts (and for --check-options): the identity
 * resolved as bp_cli_publish_run will (and kept for it, so git is not
 * asked again after the benchmark).  0 to go on, also when detection
 * failed otherwise (the publication says it after the run, as before);
 * BP_EXIT_USAGE when a CI variable is not what it names (GITHUB_SHA
 * "abc"), said with the variable's name. */
/* as_warning: the command runs anyway (--keep-status, not strict), so
 * the variable's message is a warning, not an error. */
int bp_cli_publish_ident_early(const struct bp_cli_publish *p,
                               bool as_warning);
/* A Firefox upload whose answer never came: said (never repeated). */
struct bp_publish_result;
void bp_cli_firefox_lost(const struct bp_publish_result *r);
/* Say r's warning (the latest pointer left to another repository), once:
 * the part that made it is done and never tried again. */
void bp_cli_pub_say_warning(const struct bp_publish_result *r);
/* ISO 8601 UTC time of now, milliseconds. */
void bp_cli_iso_now(char out[32]);
/* The identity and the opened store a publication of p goes to, resolved
 * as bp_cli_publish_run does (flags, CI, defaults); false (said why) when
 * they cannot be.  *id: clean up with bpi_ident_cleanup; *st: close. */
struct bp_ident;
struct bp_store;
bool bp_cli_publish_store(const struct bp_cli_publish *p,
                          struct bp_ident *id, struct bp_store **st);

/* run_opts.c: run's own options (beyond record's and the publishing
 * ones), for a getopt_long table; their values are BP_CLI_RUN_* (after
 * the publishing ones). */
enum {
  BP_CLI_RUN_FIRST = BP_CLI_PUB_LAST,
  BP_CLI_RUN_BMF = BP_CLI_RUN_FIRST, BP_CLI_RUN_ADAPTER, BP_CLI_RUN_NAME,
  BP_CLI_RUN_EACH, BP_CLI_RUN_REPEAT, BP_CLI_RUN_NO_BENCHER,
  BP_CLI_RUN_FAIL_ON_REGRESSION, BP_CLI_RUN_ALLOW_FAILURE,
  BP_CLI_RUN_KEEP_STATUS, BP_CLI_RUN_CHECK_OPTIONS, BP_CLI_RUN_FLUSH,
  BP_CLI_RUN_DIE_WITH_PARENT, BP_CLI_RUN_LAST
};
#define BP_CLI_RUN_LONGOPTS                                                \
  {"bmf", required_argument, NULL, BP_CLI_RUN_BMF},                        \
  {"adapter", required_argument, NULL, BP_CLI_RUN_ADAPTER},                \
  {"name", required_argument, NULL, BP_CLI_RUN_NAME},                      \
  {"each", required_argument, NULL, BP_CLI_RUN_EACH},                      \
  {"repeat", required_argument, NULL, BP_CLI_RUN_REPEAT},                  \
  {"no-bencher", no_argument, NULL, BP_CLI_RUN_NO_BENCHER},                \
  {"fail-on-regression", no_argument, NULL,                               \
   BP_CLI_RUN_FAIL_ON_REGRESSION},                                         \
  {"allow-failure", no_argument, NULL, BP_CLI_RUN_ALLOW_FAILURE},          \
  {"keep-status", no_argument, NULL, BP_CLI_RUN_KEEP_STATUS},             \
  {"check-options", no_argument, NULL, BP_CLI_RUN_CHECK_OPTIONS},        \
  {"flush", no_argument, NULL, BP_CLI_RUN_FLUSH},                          \
  {"die-with-parent", required_argument, NULL, BP_CLI_RUN_DIE_WITH_PARENT}

/* run's own help (its options before record's). */
void bp_cli_run_usage(FILE *out);

/* run_compare.c: on a pull request, compare the published run in dir
 * (ended at end_time, ISO 8601, as published) with its base (found in
 * the store) into dir/compare; returns status, changed only by --strict
 * when the comparison failed (*failed: it did, a base the store could
 * not give included; said) and by --fail-on-regression. */
int bp_cli_run_compare(const struct bp_cli_publish *p, const char *dir,
                       const char *end_time, int status, bool *failed);

/* comment_file.c: comment.file, a copy of out/comment.md (removed when
 * the comparison wrote none); a failure is a warning. */
void bp_cli_comment_file(const struct bp_config *cfg, const char *out);
/* comment.file removed, before a run's command starts: a run that then
 * writes no comment (it failed, was interrupted or was not compared)
 * leaves no earlier run's copy there; a failure is a warning. */
void bp_cli_comment_file_clear(const struct bp_config *cfg);

/* compare_summary.c: a comparison's changed benchmarks, one line each
 * (names cleaned), for compare and run. */
struct bp_cmp;
/* The gate: status, or BP_EXIT_REGRESSION (said why) when
 * fail_on_regression and c confirms a regression and status is 0. */
int bp_cli_gate(bool fail_on_regression, const struct bp_cmp *c, int status);
void bp_cli_compare_benches(const struct bp_cmp *c);

/* The base of a pull request's comparison could not be read (r's
 * base_unread, compare_pr.h): what, from which store (scheme and host),
 * the credentials' variable when the store refused them (cfg's
 * store.token_env, else BENCHPROF_STORE_TOKEN; token_set: whether one
 * was sent; -1: unknown; as_error: the command fails on it, else it is
 * a warning), that the comment is not written this time and how
 * to get it; out: the compare directory.  Never a token. */
struct bp_pr_result;
struct bp_store;
void bp_cli_say_base_unread(const struct bp_pr_result *r,
                            const struct bp_store *st,
                            const struct bp_config *cfg, int token_set,
                            bool as_error, const char *out);

/* The configuration (config.h) as every command loads it: --config FILE,
 * else $BENCHPROF_CONFIG, else the default path, BENCHPROF_* over it; a
 * warning printed.  OK: valid or no file; INVALID: said so, c holds the
 * defaults and the environment; FAIL: invalid and strict, said why. */
struct bp_config;
enum bp_cli_config { BP_CLI_CONFIG_OK, BP_CLI_CONFIG_INVALID,
                     BP_CLI_CONFIG_FAIL };
enum bp_cli_config bp_cli_config_load(struct bp_config *c, const char *flag,
                                      bool strict, const char *fallback);
/* c's publishing settings as p's defaults (flags parsed after win). */
void bp_cli_publish_config(struct bp_cli_publish *p,
                           const struct bp_config *c);

struct bp_record_args {
  struct bp_record_opts rec;
  const char *output;      /* artifact directory */
  bool output_given;       /* -o: output is exactly it, suite or not */
  char *suite_output;      /* run: a suite's output/suite=NAME (owned) */
  bool quiet;
  bool run;                /* benchprof run: the fields below are allowed */
  const char *bmf_file;    /* --bmf */
  enum bp_adapter adapter; /* --adapter */
  const char *name;        /* --name */
  enum bp_adapter each;    /* --each: one invocation per benchmark */
  /* --each's invocation of one benchmark (run_each.c): what its harness
   * marks gets a profile in the benchmark's folder but is no benchmark of
   * the report, with --repeat as without (the invocation's counters are
   * the benchmark's) */
  bool each_invocation;
  unsigned repeat;         /* --repeat: invocations (1 when unset) */
  struct bp_cli_publish pub; /* publishing after the run */
  bool allow_failure;      /* --allow-failure: publish a failed run too */
  bool keep_status;        /* --keep-status: our failures only warn */
  bool check_options;      /* --check-options: parse, run nothing */
  bool flush_after;        /* --flush: try the spool once after the run */
  pid_t die_with_parent;   /* --die-with-parent PID; 0: not given */
  const char *config_file; /* --config FILE; NULL: not given */
  /* out: the benchmarks the harness marked, one per distinct name, in
   * the order they first began (bpi_slice_export) */
  struct bp_marked *marked;
  size_t nmarked;
  /* out: what the export of the profile's own artifacts into output
   * recorded (their sizes and SHA-256, for the manifest) */
  struct bp_export_record written;
  /* out: the recording or its artifacts failed (marked may be NULL) */
  bool failed;
  /* out: benchprof's own setup (the output directory, the control FIFO,
   * the events) failed before a command was started (bp_cli_setup_failed) */
  bool setup_failed;
  /* out: a command was started under the recorder (the benchmark ran) */
  bool started;
  /* a copy of $DEBUGINFOD_URLS when rec.debuginfod is it (owned: the
   * lookups set and restore the variable) */
  char *debuginfod_env;
  /* benchprof record: the process exits with the command's status once
   * the artifacts are written (cmd_record.c, end_process()) */
  bool exit_when_written;
};

/* record_opts.c: the options */
void bp_cli_record_defaults(struct bp_record_args *a, bool run);
/* Parse the options; -1 to go on, else the exit status to return. */
int bp_cli_record_args(int argc, char **argv, struct bp_record_args *a);
/* Before the options are applied: --config FILE and --strict. */
void bp_cli_record_prescan(int argc, char **argv, const char **config,
                           bool *strict);
/* record and run: the configuration, then the options (flags win); -1 to
 * go on, else the exit status; *cs: how the file went. */
int bp_cli_record_setup(int argc, char **argv, struct bp_record_args *a,
                        struct bp_config *cfg, const char *fallback,
                        enum bp_cli_config *cs);
/* c's settings as a's defaults (record options, output, publishing). */
void bp_cli_record_config(struct bp_record_args *a,
                          const struct bp_config *c);
/* Record the command and write the artifacts.  Returns the exit status;
 * *prof is the profile (the caller frees it), NULL when there is none. */
int bp_cli_record(struct bp_record_args *a, struct bp_profile **prof);

/* run_opts.c: take run's own option opt (a BP_CLI_RUN_*): 0 when taken,
 * the exit status on a bad value or when a is record's (said why). */
int bp_cli_run_option(int opt, const char *arg, struct bp_record_args *a);
/* After parsing: options that exclude each other; 0 or the exit status
 * (said why). */
int bp_cli_run_options_check(const struct bp_record_args *a);

/* benchprof's own setup failed before the command started (err, rc):
 * said as a warning when the command will then run unprofiled
 * (bp_cli_setup_survivable), else as an error; sets a->setup_failed. */
void bp_cli_setup_failed(struct bp_record_args *a, const struct bp_err *err,
                         bp_code rc);
/* Whether a failure of benchprof's own setup lets the command run
 * unprofiled: benchprof run --keep-status, not strict. */
bool bp_cli_setup_survivable(const struct bp_record_args *a);

/* Free what bp_cli_record left in a (marked). */
void bp_cli_record_cleanup(struct bp_record_args *a);
/* What the options own, once the command is done (not per repetition). */
void bp_cli_record_args_free(struct bp_record_args *a);

/* child.c: forward SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2
 * to pid from now on (a Ctrl-C typed at the terminal already reaches it). */
void bp_cli_forward_signals(pid_t pid);
/* Block the forwarded signals (the mask before into *saved) before the
 * command is forked, and put back *saved once bp_cli_forward_signals has
 * its pid: a signal in between reaches the command.  The command is
 * given *saved as its own mask (bp_sampler_opts.sigmask). */
void bp_cli_hold_signals(sigset_t *saved);
void bp_cli_release_signals(const sigset_t *saved);
/* Stop forwarding (the command was reaped); the default actions return. */
void bp_cli_stop_forwarding(void);
/* The signal (SIGINT, SIGTERM, SIGHUP or SIGQUIT) that interrupted a
 * command benchprof ran, or 0. */
int bp_cli_interrupted(void);
/* benchprof run: SIGINT, SIGTERM, SIGHUP and SIGQUIT caught from now on
 * until bp_cli_unguard_interrupts, also while no command runs (between
 * repetitions or benchmarks, while the artifacts are written): each is
 * recorded (bp_cli_interrupted) and passed on to the command when one
 * runs, so that a cancelled job's TERM at any moment ends the run as an
 * interrupted one instead of killing benchprof half way.  One ignored
 * when benchprof started stays ignored. */
void bp_cli_guard_interrupts(void);
void bp_cli_unguard_interrupts(void);
/* In a forked child before exec: the guarded signals' default actions,
 * which exec would give them, so that one that comes first acts on the
 * child as on the command. */
void bp_cli_default_signals(void);
/* Block the interrupting signals (block true; the mask before into
 * *saved), or put back *saved: what is decided in between (a manifest's
 * outcome, publishing's own handlers) is not split by a signal. */
void bp_cli_block_interrupts(bool block, sigset_t *saved);
/* Whether the interrupting signal came while a command ran (and was
 * passed on to it), not between commands nor after the command exited
 * (before benchprof reaped it). */
bool bp_cli_interrupted_in_command(void);
/* benchprof run's exit status: status, or 128+N when a signal N
 * interrupted the run while no command ran (so none could say how it
 * ended) and status is 0, as for a command killed by it. */
int bp_cli_interrupted_status(int status);
/* --die-with-parent: when parent (the process that started benchprof)
 * dies, even by SIGKILL, the kernel sends benchprof SIGTERM, which it
 * passes on to the command as any TERM.  Returns -1 to go on, else the
 * exit status, said why: parent is not benchprof's parent (any more). */
int bp_cli_die_with_parent(pid_t parent);
/* Print why cmd could not be started; the exit status a shell would give
 * (127 not found, 126 not executable). */
int bp_cli_exec_failure(const struct bp_err *err, const char *cmd);

/* Run argv (stdin and stderr ours), its stdout into out; its status as a
 * shell reports it, or -1 when it could not be run at all. */
struct bp_buf;
int bp_cli_capture(char *const *argv, struct bp_buf *out);

/* cmd_stat.c: the counters as a perf-stat style table on stderr. */
struct bp_counter;
void bp_cli_print_counters(const struct bp_counter *c, size_t n,
                           const char *command, double secs);

#endif
