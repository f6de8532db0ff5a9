/* publish_store: the parts of a publication that go to the artifact
 * store: each artifact, then the stored manifest (the run's manifest
 * annotated with keys, public URLs and Bencher's ids), then the branch's
 * latest pointer (a conditional update that never moves back to an older
 * commit).  None of them is sent over a newer run of the same commit and
 * testbed: the stored manifest is read before the artifacts and written
 * with a conditional update.  Nor does it take a pointer another repository
 * named alike holds. */
#include "bp_setup.h"
#include "publish_int.h"
#include "buf.h"
#include "err.h"
#include "fileio.h"
#include "runorder.h"
#include "site.h"
#include "storekey.h"
#include "text.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ artifacts */

/* The artifacts are independent of each other: they go PUT_PARALLEL at a
 * time, over the publication's shared connections (struct job's http).
 * Each keeps its own retries (http.h); its part is marked as soon as it
 * is stored, so a kill or a failure leaves exactly the others to send. */
#define PUT_PARALLEL 8
/* One artifact refused is that artifact's trouble and the others still
 * go; a second one failing means the store is likely down: no further
 * artifact starts, the rest wait for the next flush. */
#define STOP_AFTER_FAILURES 2

struct puts {
  struct job *j;
  size_t *todo;          /* indexes into j->arts not delivered yet */
  size_t ntodo;
  pthread_mutex_t lock;  /* guards what follows, and the spool */
  size_t next;           /* the next of todo to take */
  size_t failures;       /* artifacts that failed */
  struct bp_err first;   /* the first failure */
};

/* Store artifact i from the spool's copy. */
static bp_code put_one(struct job *j, size_t i, struct bp_err *err)
{
  const struct art *a = &j->arts.a[i];
  char *rel = bpi_text_path_join(BP_SPOOL_FILES, a->file);
  char *path = rel ? bpi_spool_path(j->sp, rel) : NULL;
  const char *type, *enc;
  bpi_store_content_type(a->file, &type, &enc);
  bp_code rc = path ? bpi_store_put_file(j->store, a->key, path, type, enc,
                                         err)
                    : bpi_err_set(err, BPE_NOMEM, 0, "spool path");
  free(path);
  free(rel);
  return rc;
}

static void artifact_part(char *part, size_t size, size_t i)
{
  snprintf(part, size, "artifact-%zu", i);
}

/* One worker: takes artifacts until none is left or too many failed. */
static void *put_worker(void *arg)
{
  struct puts *p = arg;
  struct job *j = p->j;
  for(;;) {
    pthread_mutex_lock(&p->lock);
    bool stop = p->failures >= STOP_AFTER_FAILURES || p->next == p->ntodo;
    size_t i = stop ? 0 : p->todo[p->next++];
    pthread_mutex_unlock(&p->lock);
    if(stop)
      return NULL;
    struct bp_err err = {0};
    char part[32];
    artifact_part(part, sizeof(part), i);
    bp_code rc = put_one(j, i, &err);
    /* a mark in the spool is a line of its done.log, a direct
     * publication's one in a table: both written outside this lock (the
     * spool serialises its own bookkeeping) */
    if(!rc)
      rc = bpi_spool_mark_unsynced(j->sp, part, NULL, &err);
    pthread_mutex_lock(&p->lock);
    if(!rc)
      j->done++;
    else if(!p->failures++)
      p->first = err;
    pthread_mutex_unlock(&p->lock);
  }
}

/* Run n workers over p (fewer when threads cannot be made; the calling
 * thread is always one).  The workers block signals: the process's
 * handlers run in the calling thread as before, and http.c sees their
 * cancellation flag. */
static void run_workers(struct puts *p, size_t n)
{
  pthread_t tids[PUT_PARALLEL];
  size_t started = 0;
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  for(size_t k = 1; k < n && k < PUT_PARALLEL; k++)
    if(!pthread_create(&tids[started], NULL, put_worker, p))
      started++;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  put_worker(p);
  for(size_t k = 0; k < started; k++)
    pthread_join(tids[k], NULL);
}

/* ------------------------------------------------ a newer run stored */

/* The store parts' mark when a newer run of the same commit and testbed
 * is stored: "superseded:{its end time}" (artifacts: a done.log line, as
 * one delivered, so that a suite's thousands cost no file each). */
#define SUPERSEDED "superseded:"

enum bp_stored_order bpi_pub_stored_order(const char *text, size_t len,
                                          const char *end_time,
                                          char **stored_end)
{
  *stored_end = NULL;
  if(!text)
    return BP_STORED_REPLACE;
  cJSON *m = cJSON_ParseWithLength(text, len);
  if(!m)
    return BP_STORED_INVALID;
  const char *end = bpi_json_str(cJSON_GetObjectItemCaseSensitive(
                                   m, "publication"), "end_time");
  int64_t stored_ms, run_ms;
  /* a stored time that is not one (a hostile or broken store) never
   * keeps a run out */
  bool newer = bpi_text_iso8601_ms(end, &stored_ms) &&
               bpi_text_iso8601_ms(end_time, &run_ms) && stored_ms > run_ms;
  if(newer && !(*stored_end = strdup(end)))
    newer = false;
  cJSON_Delete(m);
  return newer ? BP_STORED_NEWER : BP_STORED_REPLACE;
}

/* j->res->superseded: why its store objects were left alone. */
static void note_superseded(struct job *j, const char *end)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  /* a hash as git shortens it; a local-... name whole */
  bpi_buf_printf(&b, "the store has a newer run of commit %.*s on testbed "
                 "%s (ended %.40s)", j->id.hash ? 7 : 64, j->id.commit,
                 j->id.testbed, end);
  free(j->res->superseded);
  j->res->superseded = bpi_buf_failed(&b) ? NULL : b.data;
  if(!j->res->superseded)
    bpi_buf_cleanup(&b);
  /* the manifest there is not this run's */
  free(j->res->manifest_url);
  j->res->manifest_url = NULL;
}

/* The store parts from part on that are not done yet marked superseded
 * by the run that ended at end (its manifest is stored); noted in res. */
static bp_code supersede_from(struct job *j, const char *part,
                              const char *end)
{
  static const char *const parts[] = {"manifest", "latest", "site"};
  char value[80];
  snprintf(value, sizeof(value), SUPERSEDED "%.40s", end);
  bp_code rc = BP_OK;
  bool from = false;
  for(size_t i = 0; !rc && i < BP_ARRAY_LEN(parts); i++) {
    from |= !strcmp(parts[i], part);
    if(from && !bpi_spool_done(j->sp, parts[i], NULL))
      rc = bpi_spool_mark(j->sp, parts[i], value, &j->res->failure);
  }
  if(!rc)
    note_superseded(j, end);
  return rc;
}

/* Add text to the result's warning (after one already there). */
static void add_warning(struct job *j, const char *text)
{
  struct bp_buf w;
  bpi_buf_init(&w);
  if(j->res->warning)
    bpi_buf_printf(&w, "%s; ", j->res->warning);
  bpi_buf_adds(&w, text);
  bpi_buf_addc(&w, '\0');
  if(bpi_buf_failed(&w)) {
    bpi_buf_cleanup(&w);
    return;   /* a warning lost to memory: the delivery goes on */
  }
  free(j->res->warning);
  j->res->warning = w.data;
}

/* Whether the stored manifest m's benchmarks are another set than the
 * run's. */
static bool other_benches(const struct job *j, const cJSON *m)
{
  const cJSON *benches = cJSON_GetObjectItemCaseSensitive(m, "benchmarks");
  const cJSON *b;
  size_t n = 0;
  cJSON_ArrayForEach(b, benches) {
    const char *name = bpi_json_str(b, "name");
    if(!name || !bpi_manifest_bench(&j->man, name))
      return true;
    n++;
  }
  return n != j->man.nbenches;
}

/* The stored manifest (text) is another step's of this CI job (its
 * publication's ci_job is this one's, its command or benchmarks are not
 * this run's): both publish to the same keys, and this run replaces
 * that one, so say so (once: the check is made before the artifacts,
 * which are sent once).  A re-delivery of this run (the same command
 * and benchmarks) says nothing. */
static void note_same_job(struct job *j, const char *text, size_t len)
{
  const char *mine = bpi_json_str(j->meta, "ci_job");
  if(!mine)
    return;
  cJSON *m = cJSON_ParseWithLength(text, len);
  const char *theirs = bpi_json_str(cJSON_GetObjectItemCaseSensitive(
                                      m, "publication"), "ci_job");
  const char *cmd = bpi_json_str(m, "command");
  bool other = theirs && !strcmp(theirs, mine) &&
               ((!cmd != !j->man.command) ||
                (cmd && strcmp(cmd, j->man.command)) || other_benches(j, m));
  cJSON_Delete(m);
  if(!other)
    return;
  struct bp_buf w;
  bpi_buf_init(&w);
  bpi_buf_printf(&w, "another step of this CI job published a run of "
                 "commit %.*s on testbed '%s'%s%s%s with another command "
                 "or other benchmarks to the same store keys: this run "
                 "replaces it (its manifest and the latest pointer); give "
                 "each step its own --suite NAME", j->id.hash ? 7 : 64,
                 j->id.commit, j->id.testbed,
                 j->id.suite ? " (suite '" : "",
                 j->id.suite ? j->id.suite : "", j->id.suite ? "')" : "");
  bpi_buf_addc(&w, '\0');
  if(!bpi_buf_failed(&w))
    add_warning(j, w.data);
  bpi_buf_cleanup(&w);
}

/* Whether the store holds a newer run at mkey (*newer: its end time,
 * malloc'd), read once before the artifacts.  Nothing is read when every
 * store part after the artifacts is done; a publication a newer run
 * superseded at an earlier try says so again. */
static bp_code stored_newer(struct job *j, const char *mkey, char **newer)
{
  char *mark = NULL, *text = NULL;
  size_t len = 0;
  *newer = NULL;
  if(bpi_spool_done(j->sp, "manifest", &mark) && mark &&
     !strncmp(mark, SUPERSEDED, strlen(SUPERSEDED)))
    note_superseded(j, mark + strlen(SUPERSEDED));
  bool left = !mark || !bpi_spool_done(j->sp, "latest", NULL) ||
              !bpi_spool_done(j->sp, "site", NULL);
  free(mark);
  if(!left)
    return BP_OK;
  struct bp_err got = {0};
  bp_code rc = bpi_store_get(j->store, mkey, &text, &len, &got);
  if(rc == BPE_NOT_FOUND) {
    j->man_absent = true;
    return BP_OK;
  }
  if(rc) {
    j->res->failure = got;
    return rc;
  }
  /* not JSON: the manifest's conditional write looks again */
  if(bpi_pub_stored_order(text, len, bpi_json_str(j->meta, "end_time"),
                          newer) == BP_STORED_REPLACE)
    note_same_job(j, text, len);
  free(text);
  return BP_OK;
}

/* A newer run is stored: the artifacts not sent yet (todo) are marked
 * done without being sent, the later store parts superseded. */
static bp_code supersede_artifacts(struct job *j, const size_t *todo,
                                   size_t ntodo, const char *end)
{
  struct bp_err *err = &j->res->failure;
  bp_code rc = BP_OK;
  for(size_t k = 0; !rc && k < ntodo; k++) {
    char part[32];
    artifact_part(part, sizeof(part), todo[k]);
    rc = bpi_spool_mark_unsynced(j->sp, part, NULL, err);
    j->done += rc == BP_OK;
  }
  if(!rc && ntodo)
    rc = bpi_spool_sync(j->sp, err);
  return rc ? rc : supersede_from(j, "manifest", end);
}

bp_code bpi_pub_put_artifacts(struct job *j, const char *mkey)
{
  struct puts p = {.j = j};
  char *newer = NULL;
  if(j->arts.n && !(p.todo = malloc(j->arts.n * sizeof(*p.todo))))
    return bpi_err_set(&j->res->failure, BPE_NOMEM, 0, "artifacts");
  for(size_t i = 0; i < j->arts.n; i++) {
    char part[32];
    artifact_part(part, sizeof(part), i);
    if(!bpi_pub_part_done(j, part, NULL))
      p.todo[p.ntodo++] = i;
  }
  bp_code rc = stored_newer(j, mkey, &newer);
  if(rc || newer) {
    if(newer)
      rc = supersede_artifacts(j, p.todo, p.ntodo, newer);
    free(newer);
    free(p.todo);
    return rc;
  }
  pthread_mutex_init(&p.lock, NULL);
  run_workers(&p, p.ntodo);
  pthread_mutex_destroy(&p.lock);
  /* the markers on disk at once, before anything that names the
   * artifacts (the stored manifest) is sent */
  if(p.ntodo && !p.failures && bpi_spool_sync(j->sp, &p.first))
    p.failures++;
  free(p.todo);
  if(!p.failures)
    return BP_OK;
  if(!j->res->failure.code)
    j->res->failure = p.first;
  return p.first.code ? p.first.code : BPE_IO;
}

/* a, stored under key (taken), gets that key, its public URL and its
 * Firefox Profiler link. */
static void annotate_art(struct job *j, struct bp_manifest_artifact *a,
                         char *key)
{
  uint32_t i = key ? bpi_strtab_find(&j->arts.keys, key) : BP_NONE;
  free(key);
  if(i == BP_NONE)
    return;
  const struct art *t = &j->arts.a[i];
  char part[32];
  free(a->key);
  free(a->url);
  free(a->firefox_url);
  a->key = strdup(t->key);
  a->url = bpi_store_public_url(j->store, t->key);
  a->firefox_url = NULL;
  snprintf(part, sizeof(part), "firefox-%u", (unsigned)i);
  if(!bpi_spool_done(j->sp, part, &a->firefox_url))
    a->firefox_url = NULL;
}

/* The report (BMF) the publication carries, parsed; NULL without one. */
static cJSON *spooled_report(struct job *j)
{
  struct bp_err ignored = {0};
  char *bmf = NULL, *path = bpi_spool_path(j->sp, BP_SPOOL_FILES "/"
                                                  BP_RUNDIR_REPORT);
  cJSON *rep = NULL;
  if(path && !bpi_file_read(path, &bmf, NULL, &ignored))
    rep = cJSON_Parse(bmf);
  free(bmf);
  free(path);
  return rep;
}

/* Every artifact of m without the keys, URLs and links annotate_art gave
 * it: the run's own manifest has none. */
static void strip_annotations(struct bp_manifest *m)
{
  for(size_t bi = 0; bi <= m->nbenches; bi++) {
    struct bp_manifest_artifact *arts = bi < m->nbenches ?
                                        m->benches[bi].arts : m->arts;
    size_t n = bi < m->nbenches ? m->benches[bi].narts : m->narts;
    for(size_t ai = 0; ai < n; ai++) {
      free(arts[ai].key);
      free(arts[ai].url);
      free(arts[ai].firefox_url);
      arts[ai].key = arts[ai].url = arts[ai].firefox_url = NULL;
    }
  }
}

/* j->man as stored: the run's, each benchmark's artifacts with their keys
 * and public URLs (and its Bencher benchmark and measure uuids), the
 * identity, the report (BMF) itself, the Bencher report's ids and the
 * Firefox Profiler links; j->stored its text.  Made from the job's parsed
 * manifest, in place (a large suite's manifest is tens of MB: parsing it
 * again cost more than printing it), until bpi_pub_unstore_manifest. */
static void store_manifest(struct job *j)
{
  struct bp_manifest *m = &j->man;
  struct bp_err ignored = {0};
  struct bp_buf text;
  bpi_buf_init(&text);
  for(size_t bi = 0; bi < m->nbenches; bi++) {
    struct bp_manifest_bench *b = &m->benches[bi];
    for(size_t ai = 0; ai < b->narts; ai++) {
      struct bp_manifest_artifact *a = &b->arts[ai];
      annotate_art(j, a, a->file && b->profile ?
                         bpi_pub_art_key(&j->id, b->profile, a->file) : NULL);
    }
  }
  const struct bp_store_run run = {j->id.project, j->id.branch, j->id.commit,
                                   j->id.testbed, j->id.suite};
  for(size_t ai = 0; ai < m->narts; ai++)
    annotate_art(j, &m->arts[ai], m->arts[ai].file ?
                 bpi_store_run_artifact_key(&run, m->arts[ai].file) : NULL);
  cJSON *p = cJSON_CreateObject();
  cJSON *id = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(j->meta,
                                                               "identity"),
                              true);
  if(id)
    cJSON_AddItemToObject(p, "identity", id);
  cJSON_AddStringToObject(p, "start_time", bpi_json_str(j->meta, "start_time"));
  cJSON_AddStringToObject(p, "end_time", bpi_json_str(j->meta, "end_time"));
  cJSON_AddStringToObject(p, "store", bpi_store_url(j->store));
  if(bpi_json_str(j->meta, "ci_job"))
    cJSON_AddStringToObject(p, "ci_job", bpi_json_str(j->meta, "ci_job"));
  bpi_pub_add_bencher_pub(p, j);
  bpi_pub_add_bencher_benches(m, j);
  bpi_pub_add_nullable(p, "firefox_url", j->res->firefox_url);
  j->run_publication = m->publication;
  j->run_results = m->results;
  j->man_stored = true;
  m->publication = p;
  m->results = spooled_report(j);
  j->stored = bpi_manifest_print(m, &text, &ignored) ? NULL : text.data;
  if(!j->stored)
    bpi_buf_cleanup(&text);
}

void bpi_pub_unstore_manifest(struct job *j)
{
  if(!j->man_stored)
    return;
  struct bp_manifest *m = &j->man;
  cJSON_Delete(m->publication);
  cJSON_Delete(m->results);
  m->publication = j->run_publication;
  m->results = j->run_results;
  j->run_publication = j->run_results = NULL;
  j->man_stored = false;
  strip_annotations(m);
}

/* the stored manifest's text, made at the first call (j owns it) */
static const char *stored_text(struct job *j)
{
  if(!j->man_stored)
    store_manifest(j);
  return j->stored;
}

/* The stored manifest as this publication would write it, given the one
 * stored now (cur, NULL when none): never over a newer run's. */
struct manifest_ctx {
  struct job *j;
  const char *text;
  char *newer;   /* the stored one is newer: its end time, left alone */
  bool local;    /* a file:// store: its objects are never caught
                    mid-write, so one that is not JSON is damaged */
  unsigned invalid;  /* the reads that were not JSON */
};

/* An object store may serve a manifest another writer is still writing:
 * read it this many times; one still not JSON then is damaged.  It holds
 * only this commit's and testbed's run, so it is replaced, as a plain
 * write did, rather than blocking the publication for good. */
#define MANIFEST_READS 3

static int decide_manifest(void *ctx, const char *cur, size_t len,
                           char **out)
{
  struct manifest_ctx *c = ctx;
  free(c->newer);
  switch(bpi_pub_stored_order(cur, len, bpi_json_str(c->j->meta, "end_time"),
                              &c->newer)) {
  case BP_STORED_NEWER:
    return 0;
  case BP_STORED_INVALID:
    if(!c->local && ++c->invalid < MANIFEST_READS)
      return BP_STORE_REREAD;
    break;
  case BP_STORED_REPLACE:
    break;
  }
  *out = strdup(c->text);
  return *out ? 1 : -1;
}

/* A conditional write (bpi_store_update, as the latest pointer's): a
 * newer run's manifest published since the artifacts' check (a race of
 * two publications of the commit) stays, and this publication's latest
 * and site parts are superseded with it. */
bp_code bpi_pub_put_manifest(struct job *j, const char *key)
{
  if(bpi_pub_part_done(j, "manifest", NULL))
    return BP_OK;
  const cJSON *store = cJSON_GetObjectItemCaseSensitive(j->meta, "store");
  struct manifest_ctx c = {.j = j, .text = stored_text(j),
                           .local = bpi_store_url_is_local(
                             bpi_json_str(store, "url"))};
  bp_code (*update)(struct bp_store *, const char *, const char *,
                    int (*)(void *, const char *, size_t, char **), void *,
                    struct bp_err *) = j->man_absent ? bpi_store_update_absent
                                                     : bpi_store_update;
  bp_code rc = c.text ? update(j->store, key, "application/json",
                               decide_manifest, &c, &j->res->failure)
                      : bpi_err_set(&j->res->failure, BPE_NOMEM, 0,
                                    "stored manifest");
  if(!rc && c.newer) {
    rc = supersede_from(j, "manifest", c.newer);
    j->done += rc == BP_OK;
  }
  else if(!rc)
    rc = bpi_pub_mark(j, "manifest", key);
  free(c.newer);
  return rc;
}

/* Two repositories whose names are alike share {project} (the store's
 * keys are names, kept as they are so that no store's runs move): the
 * pointer is its repository's alone, or a pull request of one would be
 * compared with the other's code.  Pointers and runs that do not say
 * (written before, local runs) are not told apart. */
bool bpi_pub_latest_foreign(const char *stored, const char *run)
{
  return bpi_repository_other(stored, run);
}

/* The latest pointer as this publication would write it, given the one
 * stored now (cur, NULL when none): never moves back to an older run,
 * nor takes another repository's.
 * The branch's latest pointer names its newest commit that has a run, in
 * the order of runorder.h: by the commits' committer times, so that
 * re-running an old commit (a week-old workflow run again, a spool
 * flushed late) does not move it back; the run's end time decides where
 * those say nothing. */
struct latest_ctx {
  struct job *j;
  const char *mkey;
  bool newer;    /* the stored one is newer: left alone */
  char *foreign; /* the stored one's other repository: left alone */
};

static int decide_latest(void *ctx, const char *cur, size_t len, char **out)
{
  struct latest_ctx *c = ctx;
  struct job *j = c->j;
  const char *end = bpi_json_str(j->meta, "end_time");
  cJSON *prev = cur ? cJSON_ParseWithLength(cur, len) : NULL;
  const struct bp_run_when stored = {bpi_json_str(prev, "commit"),
                                     bpi_json_str(prev, "commit_time"),
                                     bpi_json_str(prev, "end_time")};
  const struct bp_run_when run = {j->id.commit, j->id.commit_time, end};
  const char *owner = bpi_json_str(prev, "repository");
  free(c->foreign);  /* decided again: another writer came first */
  c->foreign = NULL;
  if(bpi_pub_latest_foreign(owner, j->id.repository)) {
    c->foreign = strdup(owner);
    cJSON_Delete(prev);
    return c->foreign ? 0 : -1;
  }
  c->newer = bpi_run_newer(&stored, &run);
  cJSON_Delete(prev);
  if(c->newer)
    return 0;
  char *url = bpi_store_public_url(j->store, c->mkey);
  cJSON *l = cJSON_CreateObject();
  cJSON_AddStringToObject(l, "project", j->id.project);
  cJSON_AddStringToObject(l, "branch", j->id.branch);
  cJSON_AddStringToObject(l, "commit", j->id.commit);
  bpi_pub_add_nullable(l, "hash", j->id.hash);
  bpi_pub_add_nullable(l, "commit_time", j->id.commit_time);
  cJSON_AddStringToObject(l, "testbed", j->id.testbed);
  cJSON_AddStringToObject(l, "end_time", end ? end : "");
  cJSON_AddStringToObject(l, "manifest", c->mkey);
  bpi_pub_add_nullable(l, "manifest_url", url);
  bpi_pub_add_nullable(l, "report_uuid", j->res->report_uuid);
  bpi_pub_add_nullable(l, "repository", j->id.repository);
  *out = cJSON_Print(l);
  cJSON_Delete(l);
  free(url);
  return *out ? 1 : -1;
}

/* The pointer another repository holds: the part is done (its artifacts
 * and manifest are stored under the shared keys; neither the pointer
 * nor the branch's pages name them), and the command says what to
 * change.  The other repository is not named: this job's log may be
 * public, that repository private. */
static bp_code latest_foreign(struct job *j)
{
  struct bp_buf w;
  bpi_buf_init(&w);
  bpi_buf_printf(&w, "the store's project '%s' belongs to another "
                 "repository named alike; this run's artifacts are stored "
                 "but 'latest' and the store's pages are left: set "
                 "BENCHER_PROJECT (or bencher.project) to a name of this "
                 "repository's own", j->id.project);
  bpi_buf_addc(&w, '\0');
  if(!bpi_buf_failed(&w))
    add_warning(j, w.data);
  bpi_buf_cleanup(&w);
  return bpi_pub_mark(j, "latest", "foreign");
}

/* latest/{testbed}.json names this run's manifest unless a newer run's
 * is there (bpi_run_newer): a conditional write
 * (bpi_store_update), so an older publication flushed late can never move
 * it back, even when it races the newer one.  Nor when it is another
 * repository's (bpi_pub_latest_foreign). */
bp_code bpi_pub_put_latest(struct job *j, const char *mkey)
{
  if(bpi_pub_part_done(j, "latest", NULL))
    return BP_OK;
  struct bp_err *err = &j->res->failure;
  char *key = bpi_store_latest_key(j->id.project, j->id.branch,
                                   j->id.testbed, j->id.suite);
  struct latest_ctx c = {.j = j, .mkey = mkey};
  bp_code rc = key ? bpi_store_update(j->store, key, "application/json",
                                      decide_latest, &c, err)
                   : bpi_err_set(err, BPE_NOMEM, 0, "latest key");
  if(!rc && c.foreign)
    rc = latest_foreign(j);
  else if(!rc)
    rc = bpi_pub_mark(j, "latest", c.newer ? "newer" : key);
  free(c.foreign);
  free(key);
  return rc;
}

/* The store's static pages (site.h), made after the latest pointer from
 * the stored manifest. */
bp_code bpi_pub_put_site(struct job *j)
{
  if(bpi_pub_part_done(j, "site", NULL))
    return BP_OK;
  /* the branch's pages are the pointer's repository's: a run of another
   * repository named alike (latest_foreign) is not listed among them */
  char *latest = NULL;
  bool foreign = bpi_spool_done(j->sp, "latest", &latest) && latest &&
                 !strcmp(latest, "foreign");
  free(latest);
  if(foreign)
    return bpi_pub_mark(j, "site", "foreign");
  /* the pages from the stored manifest as parsed, not its text again */
  bp_code rc = stored_text(j) ? bpi_site_publish(j->store, &j->man,
                                                 &j->res->failure)
                              : bpi_err_set(&j->res->failure, BPE_NOMEM, 0,
                                            "stored manifest");
  if(!rc)
    rc = bpi_pub_mark(j, "site", "written");
  return rc;
}

bp_code bpi_pub_open_store(struct job *j)
{
  const cJSON *s = cJSON_GetObjectItemCaseSensitive(j->meta, "store");
  if(!cJSON_IsObject(s))
    return BP_OK;
  struct bp_store_opts so = j->o->store;  /* credentials */
  so.url = bpi_json_str(s, "url");
  so.public_url = bpi_json_str(s, "public_url");
  so.s3_endpoint = bpi_json_str(s, "s3_endpoint");
  so.s3_region = bpi_json_str(s, "s3_region");
  so.s3_path_style = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
                                    s, "s3_path_style"));
  so.http = &j->http;
  if(!so.url)
    return bpi_err_set(&j->res->failure, BPE_FORMAT, 0, "publication %s: "
                       "store without url", j->sp->id);
  return bpi_store_open(&j->store, &so, &j->res->failure);
}
