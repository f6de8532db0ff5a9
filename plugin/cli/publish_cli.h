/* publish_cli: what `benchprof run` and `benchprof flush` share to
 * publish (publish_run.c), internal to the command: the publication's
 * options resolved into targets and credentials from the environment. */
#ifndef BP_CLI_PUBLISH_CLI_H
#define BP_CLI_PUBLISH_CLI_H

#include <stdbool.h>

#include "ci.h"
#include "cli.h"
#include "publish.h"

struct bp_cli_pub_setup {
  struct bp_publish_opts o;
  struct bp_ident id;
  char *store, *spool;
  char *repository;  /* o.repository's (bpi_ident_repository) */
  char *ci_job;      /* o.ci_job's (bpi_ci_job_id) */
  /* a publishing setup without a spool directory (none given, none
   * derivable): why, said once by `run` before it delivers directly */
  struct bp_err no_spool;
};

/* Targets and credentials; identity only when ident is set.  false:
 * said why. */
bool bp_cli_pub_prepare(const struct bp_cli_publish *p,
                        struct bp_cli_pub_setup *s, bool ident);
void bp_cli_pub_prepare_cleanup(struct bp_cli_pub_setup *s);
/* What flush prints for a delivered publication, "ID: delivered (N
 * parts), manifest URL, Bencher report UUID, Firefox Profiler URL"
 * (what is known), appended to b, NUL-terminated. */
struct bp_buf;
void bp_cli_delivered_line(const struct bp_publish_result *r,
                           struct bp_buf *b);
/* A publication a server refused with 401 or 403: which variable (or
 * configuration key) the store's or Bencher's credential came from, or
 * that none was sent; never its value.  Whether it said anything. */
bool bp_cli_token_hint(const struct bp_publish_result *r,
                       const struct bp_publish_opts *o,
                       const struct bp_cli_publish *p);
/* SIGTERM, SIGINT and SIGHUP abandon the request in flight from now on
 * (for the rest of the process); what is not delivered stays spooled. */
void bp_cli_pub_catch_signals(void);
/* Say so when a signal interrupted publishing. */
void bp_cli_pub_say_interrupted(void);

#endif
