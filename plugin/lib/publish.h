/* publish: a finished run's report and artifacts out to the results API
 * (bencher.c) and the artifact store (store.c), through the durable spool
 * (spool.c) so that a network failure loses nothing.
 *
 * A publication is the run directory of `benchprof run` (manifest.json,
 * report.json, the artifacts) plus its identity.  bpi_publish_run first
 * copies it into the spool (fsync, rename), then delivers its parts in
 * this order, each at most once (the spool records every part that
 * succeeded):
 *   0. the stored manifest at .../{commit}/{testbed}/manifest.json is
 *      read (one GET, a 404 when there is none; a file read for a file://
 *      store): when it is a newer run's of the same commit and testbed
 *      (a later end time: a re-run published while this one waited in
 *      the spool), parts 1, 4, 5 and 6 are not sent but marked
 *      "superseded:{its end time}" and res->superseded says so; the
 *      Bencher report and the Firefox upload go as ever
 *   1. each artifact -> {project}/{branch}/{commit}/{testbed}/{bench}/{file}
 *   2. opt-in: the Firefox profile to the Firefox Profiler's public store
 *   3. the Bencher report (idempotency key kept in the spool)
 *   4. the stored manifest (the run's manifest with identity, artifact
 *      URLs, report uuid) -> .../{commit}/{testbed}/manifest.json, a
 *      conditional write (bpi_store_update) that leaves a newer run's
 *      manifest there (then 5 and 6 are superseded too)
 *   5. the branch's latest pointer -> {project}/{branch}/latest/{testbed}.json
 *      (unless it names a newer commit: bpi_run_newer, runorder.h; or
 *      another repository: bpi_pub_latest_foreign, said in the result's
 *      warning)
 *   6. the store's static pages (site.h): the run in its branch's list,
 *      the run's, branch's, project's and store's index.html
 * Two publications of one commit and testbed delivered at the same time
 * can still interleave their artifacts (the check in 0 and the puts are
 * not one step): the manifest is the newer run's either way, but some of
 * the artifacts under its keys may be the older run's bytes (the
 * manifest's sha256 tells them apart) until the newer one is published
 * again.
 * A publication leaves the spool only when every part is delivered;
 * bpi_publish_flush retries what is left.  One whose every target is on
 * this machine (a file:// store, no Bencher, no Firefox upload) is
 * delivered straight from the run directory instead, and spooled only
 * when that fails.  The run directory's
 * manifest.json gets a "publication" object (state, spool id, report uuid,
 * URLs).  Credentials come from the options, never from the spool. */
#ifndef BP_LIB_PUBLISH_H
#define BP_LIB_PUBLISH_H

#include <stdbool.h>
#include <stddef.h>

#include "benchprof/benchprof.h"
#include "bencher.h"
#include "ci.h"
#include "firefox.h"
#include "store.h"


struct bp_publish_opts {
  /* identity; project, branch and testbed required, hash may be NULL */
  const char *project, *branch, *hash, *testbed;
  /* one of several benchmark steps of a CI job that publish the same
   * commit and testbed: its own manifest, artifacts and latest pointer
   * (storekey.h), PR comment and commit status; NULL or "": none (the
   * keys of old).  Recorded in the identity (publication.json, the stored
   * manifest) only when set.  bpi_suite_valid's. */
  const char *suite;
  /* the CI job publishing (bpi_ci_job_id), NULL outside CI: recorded
   * (publication.json's and the stored manifest's publication "ci_job");
   * a run that replaces the stored manifest of another step of the same
   * job (another command or other benchmarks, same commit, testbed and
   * suite) says so in the result's warning, and to give each step its
   * own suite: the replace itself stays */
  const char *ci_job;
  const char *base_branch;   /* pull request: the base, else NULL */
  const char *base_hash;
  /* the repository the run belongs to (bpi_ident_repository:
   * "github:id:ID", "github:owner/name", "gitlab:HOST/ID"), NULL unknown
   * (git, local runs): recorded in the publication, its stored manifest and the
   * latest pointer, and a pointer that names another repository is never
   * moved (two repositories with one name share {project}) */
  const char *repository;
  /* the commit's committer time (ISO 8601, bpi_ci_commit_time), NULL
   * unknown: it orders the branch's runs for its latest pointer */
  const char *commit_time;
  const char *spool_dir;     /* flush: required; bpi_publish_run: NULL
                                delivers once, directly (as when the
                                spool cannot hold it), nothing spooled */
  struct bp_store_opts store;     /* store.url NULL: no store */
  struct bp_bencher_opts bencher; /* bencher.token NULL: no Bencher report */
  bool bencher_measures_only; /* with a token: create the counters'
                                 measures (their units) but post no report:
                                 a Bencher runner posts the job's report */
  const char *bencher_console; /* recorded for the comment's links; NULL:
                                  derived from the host by its reader */
  bool firefox_upload;       /* opt-in: public upload of the Gecko profile */
  const char *firefox_api;   /* NULL: https://api.profiler.firefox.com */
  struct bp_http_opts http;  /* used by the store and Bencher */
};

/* Which target a delivery's failure came from. */
enum bp_publish_target {
  BP_PUBLISH_AT_NONE = 0,   /* none, or before any was reached */
  BP_PUBLISH_AT_STORE,
  BP_PUBLISH_AT_FIREFOX,
  BP_PUBLISH_AT_BENCHER
};

/* What happened to one publication. */
struct bp_publish_result {
  char *id;            /* its spool id ("local-..." when delivered
                          straight from a local run directory) */
  bool delivered;      /* every part delivered (and it left the spool) */
  size_t parts, parts_done;
  unsigned long connections; /* network connections this delivery opened */
  char *report_uuid;   /* Bencher's report, or NULL */
  char *manifest_url;  /* the stored manifest's public URL, or NULL
                          (superseded: not this run's) */
  char *firefox_url;   /* https://profiler.firefox.com/public/T/, or NULL */
  bool firefox_lost;   /* an upload's answer was lost: it may be public
                          without its link, and is not uploaded again */
  bool busy;           /* another benchprof process is delivering it */
  bool rejected;       /* the server refused it for good (400, 409, 413,
                          422): kept in the spool, marked, never sent
                          again; failure says why */
  bool rejected_before;/* ... already when this delivery began */
  char *superseded;    /* its store objects were left alone, why ("the
                          store has a newer run of commit C on testbed T
                          (ended E)"), or NULL */
  bool direct;         /* the spool could not hold it (spool_failure says
                          why): delivered once from the run directory,
                          nothing kept to retry when that failed */
  struct bp_err spool_failure;
  struct bp_err failure; /* why it is still spooled (code BP_OK when not) */
  /* for the command's advice: which target answered failure, and its
   * HTTP status (0: none, or no answer) */
  enum bp_publish_target failed_at;
  long http_status;
  /* as publication.json recorded them when it was spooled, and as the
   * delivery used them (NULL: none, or not read): the store's URL, the
   * Bencher host, and when it was spooled (ISO 8601, UTC) */
  char *store_url;
  char *bencher_host;
  char *created;
  char *warning;       /* what was delivered but not as asked, for the
                          command to say (no failure): the latest pointer
                          left to another repository; NULL when nothing */
};

void bpi_publish_result_cleanup(struct bp_publish_result *r);

/* Spool run_dir's publication, then try to deliver it.  Returns an error
 * only when it could not even be spooled; a delivery failure is in
 * res->failure with res->delivered false.  Times are ISO 8601. */
bp_code bpi_publish_run(const struct bp_publish_opts *o, const char *run_dir,
                        const char *start_time, const char *end_time,
                        struct bp_publish_result *res, struct bp_err *err);

/* Which of the spool's publications flush and list take; a NULL scope,
 * or a NULL field, takes any.  A runner's spool is shared by every
 * project it serves: a CI job's flush takes its own project's only, so
 * that another project's publications are neither sent with this job's
 * credentials nor named in its log.  A publication is in scope when
 * its publication.json identity has this project (and this branch, when
 * set), and, when both the scope and the identity name a repository,
 * this repository: two repositories named alike share the project name
 * (ci.h, bpi_ident_repository); when either names none, the project
 * alone decides.  Read without taking its lock: the file never changes
 * once the publication is in place.  One that leaves the spool meanwhile
 * (delivered by another process) is passed over, uncounted; one whose
 * identity cannot be read is out of scope. */
struct bp_publish_scope {
  const char *project;
  const char *branch;
  const char *repository;  /* the job's (bpi_ci_job_repository) */
};

/* Deliver every publication of scope in o->spool_dir, oldest first;
 * each(ctx, r) is told of each one.  The others are not opened, locked
 * or named: only counted into *out_of_scope (may be NULL).  Targets
 * (store URL, Bencher host, project ...) are those recorded when it was
 * spooled; credentials are o's. */
bp_code bpi_publish_flush(const struct bp_publish_opts *o,
                          const struct bp_publish_scope *scope,
                          void (*each)(void *ctx,
                                       const struct bp_publish_result *r),
                          void *ctx, size_t *out_of_scope,
                          struct bp_err *err);

/* A publication waiting in the spool, as flush --list shows it.  The
 * strings are valid during the callback only; NULL when unknown. */
struct bp_publish_entry {
  const char *id;
  const char *state;   /* "waiting", "rejected" or "busy" (locked) */
  const char *reason;  /* rejected: the server's refusal; waiting: when
                          and why its latest try failed (NULL: none
                          recorded) */
  const char *created, *project, *branch, *commit, *testbed;
  const char *suite;   /* NULL: none */
};

/* Each publication of scope in spool, oldest first; the others counted
 * into *out_of_scope (may be NULL), as bpi_publish_flush does.  A busy
 * one's identity is read without its lock too. */
bp_code bpi_publish_list(const char *spool,
                         const struct bp_publish_scope *scope,
                         void (*each)(void *ctx,
                                      const struct bp_publish_entry *e),
                         void *ctx, size_t *out_of_scope,
                         struct bp_err *err);

/* Remove publication id from spool, delivered or not (*rejected: whether
 * it was marked rejected).  BPE_NOT_FOUND when there is none, BPE_IO when
 * another process is delivering it. */
bp_code bpi_publish_drop(const char *spool, const char *id, bool *rejected,
                         struct bp_err *err);

/* The defaults that depend on the environment (envp, never getenv):
 * *store_url file://$XDG_DATA_HOME/benchprof/store (else
 * $HOME/.local/share/...), *spool_dir $BENCHPROF_SPOOL, else
 * $XDG_STATE_HOME/benchprof/spool (else $HOME/.local/state/...).  Each
 * malloc'd; BPE_CONFIG when neither variable is set. */
bp_code bpi_publish_default_store(char *const *envp, char **store_url,
                                  struct bp_err *err);
bp_code bpi_publish_default_spool(char *const *envp, char **spool_dir,
                                  struct bp_err *err);

/* Fill what detection left empty: project from dir's base name (dir
 * NULL: the current directory; made a
 * slug: lowercase, [a-z0-9-]), testbed the host name; the hashes in
 * lowercase.  The branch is never guessed: it stays NULL when unknown. */
bp_code bpi_publish_ident_defaults(struct bp_ident *id, const char *dir,
                                   struct bp_err *err);

/* Whether a run with identity id may be published: BPE_CONFIG, saying
 * what to set, when its branch is unknown (a detached HEAD, no CI
 * variable: publishing it as some base branch would overwrite that
 * branch's runs and latest pointer) or is its own base branch (the
 * start point: the Bencher report would reset that branch's history). */
bp_code bpi_publish_ident_check(const struct bp_ident *id,
                                struct bp_err *err);

#endif
