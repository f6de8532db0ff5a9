/* benchprof flush: deliver, list or drop the publications waiting in
 * the spool; in a CI job only the job's project's (flush_scope).  The
 * options are publish_opts.c's, the publishing publish_run.c's and
 * publish.c's. */
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

struct flush_tally {
  size_t total, delivered, busy, rejected_before;
  struct bp_buf busy_ids;   /* the busy ones' ids, each NUL-terminated */
  const struct bp_cli_publish *p;
  const struct bp_publish_opts *o;
  const char *store_url;    /* the configuration's store, NULL: none named */
  bool token_hinted;        /* a refused credential was explained */
  /* the ones still spooled whose recorded target the configuration no
   * longer names, and those waiting since before STALE_S: counted, the
   * first named, said once after all (stale_line) */
  size_t moved, old;
  char *moved_id, *moved_what, *old_id, *old_created;
};

/* How long a publication may keep failing before flush says it may be
 * one to drop: a day of jobs that each tried it. */
#define STALE_S 86400

/* Whether two URLs name the same place, a trailing '/' aside. */
static bool same_url(const char *a, const char *b)
{
  size_t la = strlen(a), lb = strlen(b);
  while(la && a[la - 1] == '/')
    la--;
  while(lb && b[lb - 1] == '/')
    lb--;
  return la == lb && !strncmp(a, b, la);
}

/* What of r's recorded targets the configuration now names otherwise
 * ("store URL X, the configuration's is Y"), malloc'd; NULL when none
 * (or the configuration names none: a run's --store is nothing to
 * compare with). */
static char *moved_target(const struct flush_tally *t,
                          const struct bp_publish_result *r)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  if(t->store_url && r->store_url && !same_url(t->store_url, r->store_url))
    bpi_buf_printf(&b, "store URL %s, and the configuration's store.url "
                   "is now %s", r->store_url, t->store_url);
  else if(t->o->bencher.host && r->bencher_host &&
          !same_url(t->o->bencher.host, r->bencher_host))
    bpi_buf_printf(&b, "Bencher host %s, and the configuration now names "
                   "%s (bencher.host, BENCHER_HOST)", r->bencher_host,
                   t->o->bencher.host);
  if(!b.len)
    return NULL;
  bpi_buf_addc(&b, '\0');
  return bpi_buf_failed(&b) ? NULL : b.data;
}

/* Whether r was spooled STALE_S or more ago. */
static bool waited_long(const struct bp_publish_result *r)
{
  int64_t ms;
  return r->created && bpi_text_iso8601_ms(r->created, &ms) &&
         (int64_t)time(NULL) - ms / 1000 >= STALE_S;
}

/* Note a publication still spooled for stale_line. */
static void note_stale(struct flush_tally *t,
                       const struct bp_publish_result *r)
{
  char *what = moved_target(t, r);
  if(what) {
    if(!t->moved++) {
      t->moved_id = strdup(r->id);
      t->moved_what = what;
    }
    else
      free(what);
  }
  else if(waited_long(r) && !t->old++) {
    t->old_id = strdup(r->id);
    t->old_created = strdup(r->created);
  }
}

/* One line for what keeps failing and may be for dropping, not one per
 * publication or attempt: each completed hook flushes. */
static void stale_line(const struct flush_tally *t)
{
  if(t->moved && t->moved_id && t->moved_what)
    bp_msg_warn("%zu publication%s still in the spool %s recorded when "
                "spooled (%s: %s): flush sends %s only there, and a "
                "configuration fixed since does not change that; "
                "'benchprof flush --drop %s' removes %s unsent (--list "
                "shows the ids)", t->moved, t->moved == 1 ? "" : "s",
                t->moved == 1 ? "goes to the target" :
                "go to the targets", t->moved_id, t->moved_what,
                t->moved == 1 ? "it" : "them", t->moved_id,
                t->moved == 1 ? "it" : "one");
  if(t->old && t->old_id && t->old_created)
    bp_msg_warn("%zu publication%s ha%s waited in the spool for over a "
                "day and still fail%s (the oldest: %s, spooled %s): if its "
                "target is gone for good, 'benchprof flush --drop %s' "
                "removes it unsent (--list shows the ids)", t->old,
                t->old == 1 ? "" : "s", t->old == 1 ? "s" : "ve",
                t->old == 1 ? "s" : "", t->old_id, t->old_created,
                t->old_id);
}

static void tally_cleanup(struct flush_tally *t)
{
  bpi_buf_cleanup(&t->busy_ids);
  free(t->moved_id);
  free(t->moved_what);
  free(t->old_id);
  free(t->old_created);
}

static void flushed(void *ctx, const struct bp_publish_result *r)
{
  struct flush_tally *t = ctx;
  t->total++;
  if(r->delivered) {
    struct bp_buf line;
    bpi_buf_init(&line);
    t->delivered++;
    bp_cli_delivered_line(r, &line);
    printf("%s\n", bpi_buf_failed(&line) ? r->id : line.data);
    bpi_buf_cleanup(&line);
    bp_cli_firefox_lost(r);
  }
  else if(r->busy) {
    t->busy++;
    bpi_buf_add(&t->busy_ids, r->id, strlen(r->id) + 1);
    printf("%s: skipped, another benchprof is delivering it\n", r->id);
  }
  else if(r->rejected_before)
    t->rejected_before++;  /* said once, when it was rejected */
  else if(r->rejected)
    printf("%s: rejected, never sent again (--drop %s removes it): %s\n",
           r->id, r->id, r->failure.msg);
  else {
    printf("%s: still spooled (%zu of %zu parts delivered): %s\n", r->id,
           r->parts_done, r->parts,
           r->failure.msg[0] ? r->failure.msg : bp_strerror(r->failure.code));
    fflush(stdout);
    /* the same refused credential fails them all: said once */
    if(!t->token_hinted)
      t->token_hinted = bp_cli_token_hint(r, t->o, t->p);
    note_stale(t, r);
  }
  fflush(stdout);
  bp_cli_pub_say_warning(r);
}

/* How long --strict waits for the publications another benchprof is
 * delivering (two completed hooks flushing one spool at once), at most:
 * less when network.deadline (--deadline) ends sooner, or a signal
 * stops the flush. */
#define STRICT_WAIT_MS 60000
#define STRICT_POLL_MS 250
#define STRICT_LOCK_POLL_MS 2000   /* how often their locks are looked at */

struct still_there {
  const struct bp_buf *ids;
  size_t present, busy;
};

static void count_still_there(void *ctx, const struct bp_publish_entry *e)
{
  struct still_there *s = ctx;
  for(size_t at = 0; at < s->ids->len; at += strlen(s->ids->data + at) + 1)
    if(!strcmp(s->ids->data + at, e->id)) {
      s->present++;
      s->busy += !strcmp(e->state, "busy");
    }
}

/* How many of ids are still in spool: their directories, looked at
 * without taking their locks (another process delivering one would
 * skip it while we held its lock). */
static size_t still_present(const char *spool, const struct bp_buf *ids)
{
  size_t n = 0;
  for(size_t at = 0; at < ids->len; at += strlen(ids->data + at) + 1) {
    char *dir = bpi_text_path_join(spool, ids->data + at);
    struct stat st;
    n += !dir || !stat(dir, &st);
    free(dir);
  }
  return n;
}

static bool stop_waiting(const struct bp_http_opts *http, long waited)
{
  return waited >= STRICT_WAIT_MS || (http->cancel && *http->cancel) ||
         (http->deadline_ms > 0 && bpi_http_now_ms() >= http->deadline_ms);
}

/* --strict: the busy publications are not failures while the other
 * benchprof may still deliver them: wait until each has left the spool
 * (delivered) or none is locked any more (the other one gave up), within
 * stop_waiting.  *left: how many are still there. */
static void wait_for_others(const struct bp_publish_opts *o,
                            const struct bp_publish_scope *scope,
                            const struct bp_buf *ids, size_t *left)
{
  struct still_there s = {ids, 0, 0};
  struct bp_err err = {0};
  for(long waited = 0; ; waited += STRICT_POLL_MS) {
    *left = still_present(o->spool_dir, ids);
    if(!*left || stop_waiting(&o->http, waited))
      return;
    if(waited && waited % STRICT_LOCK_POLL_MS == 0) {
      s.present = s.busy = 0;
      if(bpi_publish_list(o->spool_dir, scope, count_still_there, &s, NULL,
                          &err) ||
         !s.busy) {
        *left = s.present;
        return;
      }
    }
    struct timespec ts = {0, STRICT_POLL_MS * 1000000L};
    nanosleep(&ts, NULL);
  }
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
    "not failing flush) until --drop removes it.  A publication keeps the\n"
    "store URL and Bencher host it was spooled for: one line says when the\n"
    "configuration now names others, or when some have waited over a day.\n"
    "\n"
    "Inside a CI job (GitHub Actions, GitLab CI, a Bencher runner job) only\n"
    "the job's project's publications are sent (bencher.project, else the\n"
    "CI's project variable): the spool is the runner's, shared by every\n"
    "project it serves; the others stay, unnamed, for their own jobs.\n"
    "Outside CI every publication is sent.\n\n");
  bp_cli_publish_usage(out, false);
  fprintf(out,
    "      --config FILE      the configuration: spool, network, tokens\n"
    "                         (default: $BENCHPROF_CONFIG, else\n"
    "                         " BP_CONFIG_DEFAULT_PATH ")\n"
    "      --project P        only project P's publications (also outside\n"
    "                         CI)\n"
    "      --all-projects     every project's publications (also in CI)\n"
    "      --list             list the waiting publications (id, state,\n"
    "                         identity, why the last try failed or the\n"
    "                         refusal of a rejected one) and send\n"
    "                         nothing\n"
    "      --drop ID          remove publication ID from the spool unsent;\n"
    "                         'rejected' removes every rejected one (of\n"
    "                         the projects flush would send)\n"
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
  {"project", required_argument, NULL, BP_CLI_PUB_PROJECT},
  {"all-projects", no_argument, NULL, BP_CLI_PUB_LAST + 3},
  {NULL, 0, NULL, 0},
};

/* Whose publications this flush takes (flush_scope). */
struct flush_scope {
  struct bp_publish_scope pub;  /* project NULL: every project's */
  bool job;                     /* the CI job's project (not --project) */
  char *repository;             /* pub.repository's: the job's, or NULL */
};

/* Whose publications flush, --list and --drop rejected take: --project
 * P's; --all-projects', or outside CI (an operator, a timer), every
 * project's; in a CI job the job's project's, as run names it without
 * flags (bencher.project or BENCHPROF_PROJECT, else the CI's variables),
 * and of the job's repository when the job and the publication name one
 * (two repositories named alike share a project name): the spool is the
 * runner's, shared by every project it serves, and another project's
 * publications are neither sent with this job's credentials nor named in
 * its log, which may be public.  Found without git: the completed hook's
 * working directory need not be a checkout.  A job whose project cannot
 * be told takes every project's, as flush always did (what its own run
 * spooled must still go), and says so.  False: out of memory (said). */
static bool flush_scope(const struct bp_cli_publish *p, const char *only,
                        bool all, struct flush_scope *sc)
{
  const char *project = NULL;
  memset(sc, 0, sizeof(*sc));
  if(only) {
    sc->pub.project = only;
    return true;
  }
  const char *provider = all ? NULL : bpi_ci_job(environ, &project);
  if(!provider)
    return true;
  if(p->project)
    project = p->project;
  if(!project) {
    bp_msg_note("this %s job's project is unknown (no bencher.project, "
                "BENCHPROF_PROJECT or %s): every project's publications "
                "are taken; --project P takes only P's", provider,
                !strcmp(provider, "github") ? "GITHUB_REPOSITORY" :
                !strcmp(provider, "gitlab") ? "CI_PROJECT_NAME" :
                "BENCHER_PROJECT");
    return true;
  }
  bool nomem;
  sc->pub.repository = sc->repository =
    bpi_ci_job_repository(environ, &nomem);
  if(nomem) {
    bp_msg_error("out of memory");
    return false;
  }
  sc->pub.project = project;
  sc->job = true;
  return true;
}

/* The one line about the publications out of scope: counted, never
 * named.  what: "left in the spool"; verb: what --all-projects does. */
static void say_others(const struct flush_scope *sc, size_t n,
                       const char *what, const char *verb)
{
  if(!n)
    return;
  bool one = n == 1;
  printf("%zu publication%s of %s %s%s (--all-projects %s %s)\n", n,
         one ? "" : "s", one ? "another project" : "other projects", what,
         !sc->job ? "" : one ? " for its own job" : " for their own jobs",
         verb, one ? "it" : "them");
  fflush(stdout);
}

static void list_entry(void *ctx, const struct bp_publish_entry *e)
{
  size_t *n = ctx;
  (*n)++;
  printf("%s\t%s\t%s\t%s/%s@%s on %s", e->id, e->state,
         e->created ? e->created : "-", e->project ? e->project : "-",
         e->branch ? e->branch : "-", e->commit ? e->commit : "-",
         e->testbed ? e->testbed : "-");
  if(e->suite)   /* one of a job's steps (run --suite) */
    printf(" (%s)", e->suite);
  if(e->reason)   /* a refusal, or when and why the last try failed */
    printf("\t%s%s", strcmp(e->state, "rejected") ? "last try " : "",
           e->reason);
  printf("\n");
}

static int list_spool(const char *spool, const struct flush_scope *sc)
{
  struct bp_err err = {0};
  size_t n = 0, others = 0;
  if(bpi_publish_list(spool, &sc->pub, list_entry, &n, &others, &err)) {
    bp_msg_err(&err, err.code);
    return BP_EXIT_ERROR;
  }
  if(!n && sc->pub.project)
    bp_msg_note("nothing of project %s waits in %s", sc->pub.project, spool);
  else if(!n)
    bp_msg_note("nothing waits in %s", spool);
  say_others(sc, others, "not listed", "lists");
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

/* --drop ID (any publication: its id is explicit), or --drop rejected:
 * every publication of the scope marked rejected. */
static int drop(const char *spool, const char *what,
                const struct flush_scope *sc)
{
  if(strcmp(what, "rejected"))
    return drop_one(spool, what);
  struct bp_buf ids;
  struct bp_err err = {0};
  size_t others = 0;
  int status = BP_EXIT_OK;
  bpi_buf_init(&ids);
  if(bpi_publish_list(spool, &sc->pub, drop_rejected, &ids, &others,
                      &err)) {
    bp_msg_err(&err, err.code);
    status = BP_EXIT_ERROR;
  }
  for(size_t i = 0; !status && !bpi_buf_failed(&ids) && i < ids.len;
      i += strlen(ids.data + i) + 1)
    status = drop_one(spool, ids.data + i);
  if(bpi_buf_failed(&ids))
    status = BP_EXIT_ERROR;
  bpi_buf_cleanup(&ids);
  say_others(sc, others, "not looked at", "looks at");
  return status;
}

/* Deliver the scope's publications; the exit status. */
static int flush_spool(const struct bp_cli_publish *p,
                       const struct bp_publish_opts *o,
                       const struct flush_scope *sc)
{
  struct flush_tally t = {.p = p, .o = o, .store_url = p->store};
  struct bp_err err = {0};
  size_t out = 0;
  bp_code rc = bpi_publish_flush(o, &sc->pub, flushed, &t, &out, &err);
  bp_cli_pub_say_interrupted();
  stale_line(&t);
  if(rc)
    bp_msg_err(&err, rc);
  else if(t.total == t.rejected_before)
    bp_msg_note("nothing to send in %s%s%s%s", o->spool_dir,
                sc->pub.project ? " of project " : "",
                sc->pub.project ? sc->pub.project : "",
                t.total ? " (only rejected publications: --list)" : "");
  if(!rc)
    say_others(sc, out, "left in the spool", "sends");
  /* a publication another flush is sending is not ours to fail on;
   * --strict asks that everything be delivered now, so it waits for the
   * other benchprof and counts what that one could not deliver (of this
   * scope: the others are not this flush's to wait for) */
  size_t others = 0;
  if(!rc && p->strict && t.busy) {
    size_t left = t.busy;
    wait_for_others(o, &sc->pub, &t.busy_ids, &left);
    others = t.busy - left;
    if(others)
      printf("%zu publication%s delivered by another benchprof\n", others,
             others == 1 ? "" : "s");
    if(left)
      printf("%zu publication%s the other benchprof was delivering still "
             "in the spool: the next flush sends %s\n", left,
             left == 1 ? "" : "s", left == 1 ? "it" : "them");
    bp_cli_pub_say_interrupted();
  }
  tally_cleanup(&t);
  size_t missing = t.total - t.delivered - t.rejected_before -
    (p->strict ? others : t.busy);
  return rc || missing ? BP_EXIT_ERROR : BP_EXIT_OK;
}

/* Whether the spool can be read: a directory --spool named that does
 * not exist is a mistake (a typo, another machine's path), said as such
 * rather than "nothing to send"; the default one (or the configuration's,
 * $BENCHPROF_SPOOL's) is made by the first publication spooled, so
 * before that there is nothing in it, and the job-end hooks' flush must
 * not fail for that. */
static bool spool_readable(const char *spool, bool named, bool *missing)
{
  struct stat st;
  *missing = false;
  if(!stat(spool, &st) && S_ISDIR(st.st_mode))
    return true;
  if(!stat(spool, &st)) {
    bp_msg_error("flush: the spool %s is not a directory", spool);
    return false;
  }
  if(errno != ENOENT || named) {
    bp_msg_error("flush: the spool directory %s %s", spool, errno == ENOENT
                 ? "does not exist (--spool names it)" : strerror(errno));
    return false;
  }
  *missing = true;
  bp_msg_note("nothing to send: the spool directory %s does not exist "
              "(no publication was spooled there yet)", spool);
  return true;
}

static int flush_with(struct bp_cli_publish *pp, int argc, char **argv)
{
  bool spool_named = false, missing = false;
  struct bp_cli_publish p = *pp;
  bool list = false, all = false;
  const char *drop_id = NULL, *only = NULL;
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
    if(opt == BP_CLI_PUB_LAST + 3) {
      all = true;
      continue;
    }
    if(opt == BP_CLI_PUB_PROJECT) {
      if(!*optarg) {
        bp_msg_error("--project: empty");
        return BP_EXIT_USAGE;
      }
      only = optarg;
      continue;
    }
    if(opt == 'h') {
      flush_usage(stdout);
      return BP_EXIT_OK;
    }
    if(opt == '?')
      return bp_cli_bad_option("flush", argv, "vh", flush_longopts);
    spool_named |= opt == BP_CLI_PUB_SPOOL;
    if(bp_cli_publish_option(opt, optarg, &p))
      return BP_EXIT_USAGE;
  }
  if(optind < argc) {
    bp_msg_error("flush takes no arguments ('%s')", argv[optind]);
    return BP_EXIT_USAGE;
  }
  if(only && all) {
    bp_msg_error("--project and --all-projects: one or the other");
    return BP_EXIT_USAGE;
  }
  struct bp_cli_pub_setup s;
  struct flush_scope sc;
  int status = BP_EXIT_OK;
  if(!bp_cli_pub_prepare(&p, &s, false)) {
    bp_cli_pub_prepare_cleanup(&s);
    return BP_EXIT_ERROR;
  }
  /* --drop ID alone takes the id it is given, whoever's it is */
  memset(&sc, 0, sizeof(sc));
  if((list || !drop_id || !strcmp(drop_id, "rejected")) &&
     !flush_scope(&p, only, all, &sc))
    status = BP_EXIT_ERROR;
  if(!status && !spool_readable(s.o.spool_dir, spool_named, &missing))
    status = BP_EXIT_ERROR;
  if(missing && !drop_id) {   /* nothing to list or send, said so */
    free(sc.repository);
    bp_cli_pub_prepare_cleanup(&s);
    return BP_EXIT_OK;
  }
  if(!status && list)
    status = list_spool(s.o.spool_dir, &sc);
  if(!status && drop_id)
    status = drop(s.o.spool_dir, drop_id, &sc);
  if(!status && !list && !drop_id)
    status = flush_spool(&p, &s.o, &sc);
  free(sc.repository);
  bp_cli_pub_prepare_cleanup(&s);
  return status;
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
  while((opt = getopt_long(argc, argv, "vh", flush_longopts, NULL)) != -1) {
    if(opt == BP_CLI_PUB_LAST)
      config = optarg;
    strict |= opt == BP_CLI_PUB_STRICT;
  }
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
