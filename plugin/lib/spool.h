/* spool: a durable outbox of publications on the runner's disk.
 *
 * A publication is a directory SPOOL/<id>/ holding copies of a run's files
 * (under files/, flat: "b1%2Fprofile.folded" for b1/profile.folded, no
 * directory per benchmark; bpi_spool_path names them), its
 * publication.json (identity, times, targets; never a
 * credential) and the marks of the parts that reached their target:
 * done/<part>, a file holding the value recorded with it, or, for a part
 * with no value, a "part" line in done.log.  It appears whole or not at all: it is built in SPOOL/.tmp-*,
 * every file and directory fsync'd, then renamed into place.  A marker is
 * written the same way, so after a crash a part is either done (with the
 * value it recorded) or not.  Ids sort by creation time, so listing them
 * in order gives the oldest first.  Delivery takes a lock (flock on
 * SPOOL/<id>/lock) so that two benchprof processes never send the same
 * part; a finished publication is renamed away, then removed.
 * Owns: struct bp_spool_pub (its lock fd and paths).  Not thread-safe per
 * publication; processes exclude each other by the lock. */
#ifndef BP_LIB_SPOOL_H
#define BP_LIB_SPOOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "benchprof/benchprof.h"
#include "hash.h"

#define BP_SPOOL_META "publication.json"
#define BP_SPOOL_FILES "files"

/* Create a publication in spool (created when missing): the files of
 * src_dir named in files (relative paths, may have directories; hard
 * linked when the file system allows, else copied) and meta as
 * publication.json.  *id (malloc'd) names it.  Nothing is left behind on
 * failure. */
bp_code bpi_spool_add(const char *spool, const char *src_dir,
                      const char *const *files, size_t nfiles,
                      const char *meta, size_t meta_len, char **id,
                      struct bp_err *err);

/* The ids of the publications waiting in spool, oldest first (*ids
 * malloc'd, free with bpi_spool_list_free).  A missing spool is empty.
 * Leftovers of an interrupted add (older than an hour) or removal are
 * cleaned up on the way. */
bp_code bpi_spool_list(const char *spool, char ***ids, size_t *n,
                       struct bp_err *err);
void bpi_spool_list_free(char **ids, size_t n);

/* One publication, locked for delivery. */
struct bp_spool_pub {
  char *id;
  char *dir;     /* SPOOL/<id>; NULL for a direct one */
  int lock_fd;
  bool flat;     /* files/ holds each file under one name (spool.c) */
  /* direct (bpi_spool_direct): nothing on disk, files read in place */
  char *src_dir;
  char *meta;    /* publication.json's text */
  struct bp_strtab direct_parts;  /* the parts marked, by id */
  char **direct_values;           /* direct_parts' id -> its value */
  size_t direct_values_cap;
  /* the parts done.log names; marks without a value go there */
  struct bp_strtab logged;
  int log_fd;    /* done.log, opened at the first such mark */
  bool log_torn; /* done.log ends in a line a kill cut short, */
  size_t log_whole;  /* after its whole lines' log_whole bytes */
  /* the marks with a value (a file each in done/), listed once: asking
   * the file system for each of a suite's tens of thousands of parts
   * that have none was a syscall each */
  struct bp_strtab marked;
  bool marked_listed;
  pthread_mutex_t log_lock;  /* guards logged, log_fd, marked and the
                                direct marks */
};

/* A publication that lives in memory only, for when the spool cannot
 * hold it (a full or read-only file system) or is not needed first (a
 * publication to a local store, publish.c): its files/<rel> are
 * src_dir/<rel>, its publication.json is meta, its marks are kept in
 * memory and lost with it.  It is delivered once, directly; nothing is
 * left to retry.  id is its name in messages. */
bp_code bpi_spool_direct(const char *src_dir, const char *meta,
                         const char *id, struct bp_spool_pub **pub,
                         struct bp_err *err);

/* publication.json's text (malloc'd, NUL-terminated). */
bp_code bpi_spool_meta(const struct bp_spool_pub *pub, char **text,
                       size_t *len, struct bp_err *err);

/* Lock publication id of spool.  *pub is NULL (and BP_OK returned) when
 * another process holds it or it is gone (delivered meanwhile). */
bp_code bpi_spool_open(const char *spool, const char *id,
                       struct bp_spool_pub **pub, struct bp_err *err);
/* Unlock and free (the publication stays in the spool). */
void bpi_spool_close(struct bp_spool_pub *pub);

/* SPOOL/<id>/<rel>, malloc'd; NULL when out of memory. */
char *bpi_spool_path(const struct bp_spool_pub *pub, const char *rel);

/* Whether part (a file name: [A-Za-z0-9._-]) is done; *value (malloc'd,
 * may be "") is what was recorded with it, when value is not NULL.  Not
 * const: it takes pub's lock (other threads mark parts meanwhile). */
bool bpi_spool_done(struct bp_spool_pub *pub, const char *part,
                    char **value);
/* Record part as done, durably, with value (may be NULL). */
bp_code bpi_spool_mark(struct bp_spool_pub *pub, const char *part,
                       const char *value, struct bp_err *err);
/* Record part as done, on disk only after the next bpi_spool_sync (or
 * any sync of its file system): for parts whose marker lost in a power
 * cut only means sending them again (an artifact: the same bytes under
 * the same key).  Thousands of them cost one sync instead of two fsyncs
 * each.  Without a value (NULL or "") the mark is a line appended to
 * done.log: no file per part to create and to remove; such marks (and
 * bpi_spool_done) may be called from several threads at once. */
bp_code bpi_spool_mark_unsynced(struct bp_spool_pub *pub, const char *part,
                                const char *value, struct bp_err *err);
bp_code bpi_spool_sync(struct bp_spool_pub *pub, struct bp_err *err);

/* Record why the latest delivery of pub failed (one line: text's first,
 * after the time, UTC), replacing the one before, for `flush --list`;
 * text is a message benchprof prints, which never holds a credential.
 * Nothing for a direct publication (nothing is left to retry). */
bp_code bpi_spool_note_failure(struct bp_spool_pub *pub, const char *text,
                               struct bp_err *err);
/* That record ("2026-01-02T03:04:05Z: HTTP 401: ..."), malloc'd; NULL when
 * there is none (never tried again since spooled, or a direct one). */
char *bpi_spool_last_failure(const struct bp_spool_pub *pub);

/* Every part is delivered: remove the publication and free pub. */
bp_code bpi_spool_remove(struct bp_spool_pub *pub, struct bp_err *err);

#endif
