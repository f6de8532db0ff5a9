/* publish_int: what the parts of publishing share (internal to
 * publish.c, publish_plan.c, publish_store.c and publish_api.c): the
 * publication's plan (its artifacts and their keys, its identity) and
 * the delivery in progress (struct job, the spool's part markers). */
#ifndef BP_LIB_PUBLISH_INT_H
#define BP_LIB_PUBLISH_INT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "hash.h"
#include "publish.h"
#include "rundir.h"
#include "spool.h"

/* One artifact of the publication: where it is in the spool and where it
 * goes in the store. */
struct art {
  char *key;
  const char *file;  /* relative to the run directory */
  const char *kind;
  const char *bench; /* the benchmark's name; NULL: the whole run's */
};

struct arts {
  struct art *a;
  size_t n, cap;
  struct bp_strtab keys;  /* a[i].key has id i */
};

/* The identity parts in key order, from publication.json. */
struct ident {
  const char *project, *branch, *hash, *commit, *testbed;
  const char *base_branch, *base_hash;
  const char *commit_time;  /* the commit's committer time, NULL unknown */
  const char *repository;   /* bpi_ident_repository's, NULL unknown (and
                               in publications spooled before it was) */
  const char *suite;        /* NULL: none (publish.h) */
};

/* What one delivery works with. */
struct job {
  const struct bp_publish_opts *o;
  struct bp_spool_pub *sp;
  cJSON *meta;
  struct bp_manifest man;
  bool man_from_run;  /* man is the run directory's, parsed by the run */
  struct ident id;
  struct arts arts;
  struct bp_store *store;      /* NULL without a store */
  struct bp_publish_result *res;
  size_t parts, done;
  struct bp_bencher_ids bencher;  /* Bencher's answer, when known */
  /* o->http with the publication's shared connections: every request of
   * the delivery goes through it */
  struct bp_http_opts http;
  /* the stored manifest's text, made once (publish_store.c): the
   * manifest part and the static pages both use it.  While man_stored,
   * man is that manifest (annotated in place) and the run's own
   * publication and report are kept aside. */
  char *stored;
  bool man_stored;
  /* the artifacts' check found no stored manifest: its conditional
   * write need not read it again (bpi_store_update_absent) */
  bool man_absent;
  struct cJSON *run_publication, *run_results;
};

static inline void bpi_pub_add_nullable(cJSON *obj, const char *name,
                                        const char *value)
{
  if(value)
    cJSON_AddStringToObject(obj, name, value);
  else
    cJSON_AddNullToObject(obj, name);
}

/* publish_plan.c: what a publication sends, where */
void bpi_pub_ident_of(const cJSON *meta, struct ident *id);
/* every artifact of man once, benchmarks' first, keyed for id */
bp_code bpi_pub_list_arts(const struct ident *id,
                          const struct bp_manifest *man, struct arts *as,
                          struct bp_err *err);
void bpi_pub_arts_cleanup(struct arts *as);
char *bpi_pub_art_key(const struct ident *id, const char *dir,
                      const char *file);
char *bpi_pub_manifest_key(const struct ident *id);
/* the run's files a publication needs (*files: strings of man) */
bp_code bpi_pub_spool_files(const struct bp_manifest *man,
                            const char ***files, size_t *n,
                            struct bp_err *err);

/* publish.c: the spool's part markers, counted */
bool bpi_pub_part_done(struct job *j, const char *part, char **value);
bp_code bpi_pub_mark(struct job *j, const char *part, const char *value);

/* publish_store.c: the parts in the artifact store */
bp_code bpi_pub_open_store(struct job *j);
/* the artifacts, unless the store holds a newer run of the same commit
 * and testbed at mkey (read first: one GET, a 404 when there is none):
 * then they, the manifest, latest and site parts are marked superseded
 * instead and j->res->superseded says why */
bp_code bpi_pub_put_artifacts(struct job *j, const char *mkey);
/* a conditional write that never replaces a newer run's manifest */
bp_code bpi_pub_put_manifest(struct job *j, const char *key);
bp_code bpi_pub_put_latest(struct job *j, const char *mkey);
/* How a stored manifest (text, len bytes; NULL: none) orders against a
 * publication of the same commit and testbed that ended at end_time:
 * NEWER when its "publication" says it ended later (both ISO 8601 times,
 * compared as times: the latest pointer's order for one commit), with
 * *stored_end (malloc'd) its end time; INVALID when it is not JSON (an
 * object store may serve one being written: read it again); else
 * REPLACE (none, older, the same run, or no end time to compare). */
enum bp_stored_order {
  BP_STORED_REPLACE, BP_STORED_NEWER, BP_STORED_INVALID
};
enum bp_stored_order bpi_pub_stored_order(const char *text, size_t len,
                                          const char *end_time,
                                          char **stored_end);
/* Whether the pointer stored (its "repository", NULL when it has none:
 * written before pointers had it) belongs to another repository than the
 * run's (NULL: unknown, a local run), so that run leaves it alone. */
bool bpi_pub_latest_foreign(const char *stored, const char *run);
/* the store's static pages (site.h), after the latest pointer */
bp_code bpi_pub_put_site(struct job *j);
/* j->man back as the run's (after the store's parts; idempotent) */
void bpi_pub_unstore_manifest(struct job *j);

/* publish_api.c: the parts sent to services (Firefox Profiler, Bencher) */
bp_code bpi_pub_put_firefox(struct job *j);
bp_code bpi_pub_put_bencher(struct job *j);
void bpi_pub_add_bencher_pub(cJSON *p, const struct job *j);
void bpi_pub_add_bencher_benches(struct bp_manifest *man,
                                 const struct job *j);

#endif
