/* spool: a publication appears whole with copies of the named files and
 * its publication.json, ids list oldest first, one lock holder at a time,
 * part markers survive closing, removal empties the spool, paths that
 * leave the run directory are refused and leave nothing behind. */
#include "bp_setup.h"
#include "spool.h"
#include "fileio.h"
#include "parallel.h"
#include "check.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <libgen.h>
#include <unistd.h>

static char root[256];

static void path(char *out, size_t len, const char *rel)
{
  snprintf(out, len, "%s/%s", root, rel);
}

static void put(const char *rel, const char *text)
{
  char p[512];
  struct bp_err err = {0};
  path(p, sizeof(p), rel);
  CHECK_EQ_INT(bpi_file_write(p, text, strlen(text), false, &err), BP_OK);
}

static size_t entries(const char *dir)
{
  char cmd[600];
  snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", dir);
  FILE *f = popen(cmd, "r");
  unsigned n = 0;
  if(f && fscanf(f, "%u", &n) != 1)
    n = 9999;
  if(f)
    pclose(f);
  return n;
}

#define MARK_THREADS 4
#define MARKS_EACH 50

struct marker {
  struct bp_spool_pub *pub;
  int first;
  int failed;
};

static void *mark_some(void *arg)
{
  struct marker *m = arg;
  for(int i = 0; i < MARKS_EACH; i++) {
    char part[32];
    struct bp_err err = {0};
    snprintf(part, sizeof(part), "artifact-%d", m->first + i);
    if(bpi_spool_mark_unsynced(m->pub, part, NULL, &err) ||
       !bpi_spool_done(m->pub, part, NULL))
      m->failed++;
  }
  return NULL;
}

/* Marks without a value from several threads at once (the artifact
 * workers): every one is done, in this process and after a reopen, and
 * the mark after a torn line (artifact-2) is a line of its own. */
static void marks_from_threads(struct bp_spool_pub *a)
{
  struct bp_err err = {0};
  CHECK_EQ_INT(bpi_spool_mark_unsynced(a, "artifact-2", NULL, &err), BP_OK);
  pthread_t t[MARK_THREADS];
  struct marker m[MARK_THREADS];
  for(int k = 0; k < MARK_THREADS; k++) {
    m[k] = (struct marker){a, 100 + k * MARKS_EACH, 0};
    CHECK(pthread_create(&t[k], NULL, mark_some, &m[k]) == 0);
  }
  for(int k = 0; k < MARK_THREADS; k++) {
    pthread_join(t[k], NULL);
    CHECK_EQ_INT(m[k].failed, 0);
  }
  char *dir = strdup(a->dir), *id = strdup(a->id);
  char *spool = dir ? dirname(dir) : NULL;
  bpi_spool_close(a);
  struct bp_spool_pub *b = NULL;
  CHECK(spool && id && bpi_spool_open(spool, id, &b, &err) == BP_OK && b);
  if(b) {
    int done = 0;
    for(int i = 100; i < 100 + MARK_THREADS * MARKS_EACH; i++) {
      char part[32];
      snprintf(part, sizeof(part), "artifact-%d", i);
      done += bpi_spool_done(b, part, NULL);
    }
    CHECK_EQ_INT(done, MARK_THREADS * MARKS_EACH);
    CHECK(bpi_spool_done(b, "artifact-2", NULL));
    CHECK(!bpi_spool_done(b, "artifact-1", NULL));
    CHECK(!bpi_spool_done(b, "artifact-1artifact-2", NULL));
    bpi_spool_close(b);
  }
  free(dir);
  free(id);
}

/* A suite's many files are linked on several workers (parallel.h)
 * and all reach the spool; a bad path among them is refused and leaves
 * nothing; removal empties the spool. */
static void test_many_files(const char *run)
{
  enum { MANY = 600 };
  char spool[512], rel[64], *names[MANY + 1];
  const char *files[MANY + 1];
  struct bp_err err = {0};
  path(spool, sizeof(spool), "spool-many");
  for(int i = 0; i < MANY; i++) {
    snprintf(rel, sizeof(rel), "run/b%d/summary.json", i);
    char dir[512];
    path(dir, sizeof(dir), rel);
    *strrchr(dir, '/') = '\0';
    CHECK_EQ_INT(bpi_file_mkdirs(dir, &err), BP_OK);
    put(rel, "{}");
    names[i] = strdup(rel + 4);
    files[i] = names[i];
  }
  bpi_parallel_set_workers(4);
  char *id = NULL;
  files[MANY] = "../escape";
  CHECK_EQ_INT(bpi_spool_add(spool, run, files, MANY + 1, "{}", 2, &id,
                             &err), BPE_INVAL);
  CHECK(strstr(err.msg, "../escape") != NULL);
  CHECK_EQ_INT(entries(spool), 0);
  err = (struct bp_err){0};
  CHECK_EQ_INT(bpi_spool_add(spool, run, files, MANY, "{}", 2, &id, &err),
               BP_OK);
  char pub[700], cmd[800];
  snprintf(pub, sizeof(pub), "%s/%s", spool, id ? id : "?");
  snprintf(cmd, sizeof(cmd), "find '%s/files' -type f | wc -l", pub);
  FILE *f = popen(cmd, "r");
  int found = -1;
  if(f) {
    CHECK(fscanf(f, "%d", &found) == 1);
    pclose(f);
  }
  CHECK_EQ_INT(found, MANY);
  struct bp_spool_pub *a = NULL;
  CHECK_EQ_INT(bpi_spool_open(spool, id ? id : "?", &a, &err), BP_OK);
  /* done/ is listed at the first question; a mark made after it counts,
   * and one made through another handle before it too */
  char *v = NULL;
  CHECK(a && !bpi_spool_done(a, "store-manifest", NULL));
  CHECK(a && bpi_spool_mark(a, "store-manifest", "url-1", &err) == BP_OK);
  CHECK(a && bpi_spool_done(a, "store-manifest", &v));
  CHECK(v && !strcmp(v, "url-1"));
  free(v);
  v = NULL;
  CHECK(a && !bpi_spool_done(a, "store-latest", NULL));
  bpi_spool_close(a);
  a = NULL;
  CHECK_EQ_INT(bpi_spool_open(spool, id ? id : "?", &a, &err), BP_OK);
  CHECK(a && bpi_spool_done(a, "store-manifest", NULL));
  CHECK(a && !bpi_spool_done(a, "store-latest", NULL));
  if(a)
    CHECK_EQ_INT(bpi_spool_remove(a, &err), BP_OK);
  CHECK_EQ_INT(entries(spool), 0);
  bpi_parallel_set_workers(0);
  for(int i = 0; i < MANY; i++)
    free(names[i]);
  free(id);
}

/* A direct publication's marks, made from several threads at once as
 * the artifact workers make them: every one is found, a later mark
 * replaces a value, a part never marked is not done, nothing on disk. */
struct marking {
  struct bp_spool_pub *pub;
  int first, count;
};

static void *mark_range(void *arg)
{
  const struct marking *m = arg;
  struct bp_err err = {0};
  char part[32];
  for(int i = m->first; i < m->first + m->count; i++) {
    snprintf(part, sizeof(part), "artifact-%d", i);
    if(bpi_spool_mark_unsynced(m->pub, part, NULL, &err))
      return (void *)1;
  }
  return NULL;
}

static void test_direct_marks(const char *run)
{
  enum { THREADS = 4, EACH = 5000 };
  struct bp_spool_pub *d = NULL;
  struct bp_err err = {0};
  CHECK_EQ_INT(bpi_spool_direct(run, "{}", "local-1", &d, &err), BP_OK);
  if(!d)
    return;
  pthread_t t[THREADS];
  struct marking m[THREADS];
  for(int k = 0; k < THREADS; k++) {
    m[k] = (struct marking){d, k * EACH, EACH};
    CHECK_EQ_INT(pthread_create(&t[k], NULL, mark_range, &m[k]), 0);
  }
  for(int k = 0; k < THREADS; k++) {
    void *r = (void *)1;
    pthread_join(t[k], &r);
    CHECK(r == NULL);
  }
  int found = 0;
  char part[32];
  for(int i = 0; i < THREADS * EACH; i++) {
    snprintf(part, sizeof(part), "artifact-%d", i);
    found += bpi_spool_done(d, part, NULL);
  }
  CHECK_EQ_INT(found, THREADS * EACH);
  snprintf(part, sizeof(part), "artifact-%d", THREADS * EACH);
  CHECK(!bpi_spool_done(d, part, NULL));
  char *v = NULL;
  CHECK_EQ_INT(bpi_spool_mark(d, "latest", "key-1", &err), BP_OK);
  CHECK_EQ_INT(bpi_spool_mark(d, "latest", "newer", &err), BP_OK);
  CHECK(bpi_spool_done(d, "latest", &v));
  CHECK(v && !strcmp(v, "newer"));
  free(v);
  v = NULL;
  CHECK(bpi_spool_done(d, "artifact-7", &v));
  CHECK(v && !strcmp(v, ""));
  free(v);
  CHECK(!bpi_spool_done(d, "manifest", NULL));
  /* removing a direct one touches nothing: the run directory stays */
  CHECK_EQ_INT(bpi_spool_remove(d, &err), BP_OK);
  CHECK(access(run, F_OK) == 0);
}

int main(void)
{
  char run[512], spool[512], p[600];
  struct bp_err err = {0};
  snprintf(root, sizeof(root), "%s/bp-spool.XXXXXX",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if(!mkdtemp(root))
    return 1;
  path(run, sizeof(run), "run");
  path(spool, sizeof(spool), "spool");
  CHECK_EQ_INT(bpi_file_mkdirs(run, &err), BP_OK);
  path(p, sizeof(p), "run/sub");
  CHECK_EQ_INT(bpi_file_mkdirs(p, &err), BP_OK);
  put("run/manifest.json", "{}");
  put("run/sub/profile.folded", "a;b 1\n");

  const char *files[] = {"manifest.json", "sub/profile.folded"};
  char *id1 = NULL, *id2 = NULL;
  CHECK_EQ_INT(bpi_spool_add(spool, run, files, 2, "{\"n\":1}", 7, &id1,
                             &err), BP_OK);
  CHECK_EQ_INT(bpi_spool_add(spool, run, files, 1, "{\"n\":2}", 7, &id2,
                             &err), BP_OK);
  char **ids;
  size_t n;
  CHECK_EQ_INT(bpi_spool_list(spool, &ids, &n, &err), BP_OK);
  CHECK_EQ_INT(n, 2);
  if(n == 2) {
    CHECK_EQ_STR(ids[0], id1);  /* oldest first */
    CHECK_EQ_STR(ids[1], id2);
  }
  bpi_spool_list_free(ids, n);

  struct bp_spool_pub *a = NULL, *b = NULL;
  CHECK_EQ_INT(bpi_spool_open(spool, id1, &a, &err), BP_OK);
  CHECK(a != NULL);
  CHECK_EQ_INT(bpi_spool_open(spool, id1, &b, &err), BP_OK);
  CHECK(b == NULL);  /* locked by a */
  if(a) {
    char *f = bpi_spool_path(a, BP_SPOOL_FILES "/sub/profile.folded");
    char *text = NULL;
    CHECK_EQ_INT(bpi_file_read(f, &text, NULL, &err), BP_OK);
    CHECK_EQ_STR(text, "a;b 1\n");
    free(text);
    free(f);
    /* files/ is flat: no directory per benchmark to remove */
    snprintf(p, sizeof(p), "%s/%s/" BP_SPOOL_FILES "/sub", spool, id1);
    CHECK(access(p, F_OK) != 0);
    snprintf(p, sizeof(p), "%s/%s/" BP_SPOOL_FILES "/sub%%2Fprofile.folded",
             spool, id1);
    CHECK(access(p, F_OK) == 0);
    char *v = NULL;
    CHECK(!bpi_spool_done(a, "report", &v));
    CHECK_EQ_INT(bpi_spool_mark(a, "report", "uuid-1", &err), BP_OK);
    CHECK_EQ_INT(bpi_spool_mark(a, "../x", "", &err), BPE_INVAL);
    /* a mark without a value, unsynced: an empty file made in place,
     * marked again without an error (a resend after a lost marker) */
    CHECK(!bpi_spool_done(a, "artifact-0", NULL));
    CHECK_EQ_INT(bpi_spool_mark_unsynced(a, "artifact-0", NULL, &err), BP_OK);
    CHECK_EQ_INT(bpi_spool_mark_unsynced(a, "artifact-0", "", &err), BP_OK);
    CHECK(bpi_spool_done(a, "artifact-0", &v));
    CHECK_EQ_STR(v, "");
    free(v);
    v = NULL;
    /* no file per part: one line in done.log, however often marked */
    char *m = a ? bpi_spool_path(a, "done/artifact-0") : NULL;
    CHECK(m && access(m, F_OK) != 0);
    free(m);
    m = a ? bpi_spool_path(a, "done.log") : NULL;
    char *log = NULL;
    CHECK(m && bpi_file_read(m, &log, NULL, &err) == BP_OK);
    CHECK_EQ_STR(log, "artifact-0\n");
    free(log);
    bpi_spool_close(a);
    /* a line a kill cut short is not a mark; a bad name is not one */
    if(m) {
      FILE *fa = fopen(m, "a");
      CHECK(fa != NULL);
      if(fa) {
        fputs("../x\nartifact-1", fa);
        fclose(fa);
      }
    }
    CHECK_EQ_INT(bpi_spool_open(spool, id1, &a, &err), BP_OK);
    CHECK(a && bpi_spool_done(a, "report", &v));
    CHECK_EQ_STR(v, "uuid-1");
    free(v);
    v = NULL;
    CHECK(a && bpi_spool_done(a, "artifact-0", NULL));
    CHECK(a && !bpi_spool_done(a, "artifact-1", NULL));
    CHECK(a && !bpi_spool_done(a, "../x", NULL));
    if(a)
      marks_from_threads(a);  /* closes a */
    a = NULL;
    free(m);
    CHECK_EQ_INT(bpi_spool_open(spool, id1, &a, &err), BP_OK);
    if(a)
      CHECK_EQ_INT(bpi_spool_remove(a, &err), BP_OK);
  }
  CHECK_EQ_INT(bpi_spool_open(spool, id1, &a, &err), BP_OK);
  CHECK(a == NULL);  /* gone */
  CHECK_EQ_INT(bpi_spool_list(spool, &ids, &n, &err), BP_OK);
  CHECK_EQ_INT(n, 1);
  bpi_spool_list_free(ids, n);

  /* a publication an older version spooled (files/ mirrors the run
   * directory, no flat mark) is read where it is */
  snprintf(p, sizeof(p), "%s/%s", spool, id2);
  char sub[700], from[800], to[800];
  snprintf(sub, sizeof(sub), "%s/" BP_SPOOL_FILES "/sub", p);
  CHECK(mkdir(sub, 0755) == 0);
  snprintf(to, sizeof(to), "%s/profile.folded", sub);
  snprintf(from, sizeof(from), "%s/flat", p);
  CHECK(unlink(from) == 0);
  put("run/sub/old.folded", "c 2\n");
  path(from, sizeof(from), "run/sub/old.folded");
  CHECK(rename(from, to) == 0);
  CHECK_EQ_INT(bpi_spool_open(spool, id2, &a, &err), BP_OK);
  if(a) {
    char *f = bpi_spool_path(a, BP_SPOOL_FILES "/sub/profile.folded");
    char *text = NULL;
    CHECK_EQ_INT(bpi_file_read(f, &text, NULL, &err), BP_OK);
    CHECK_EQ_STR(text, "c 2\n");
    free(text);
    free(f);
    bpi_spool_close(a);
  }

  /* a path out of the run directory: refused, nothing left behind */
  const char *bad[] = {"manifest.json", "../escape"};
  char *id3 = NULL;
  err = (struct bp_err){0};
  CHECK_EQ_INT(bpi_spool_add(spool, run, bad, 2, "{}", 2, &id3, &err),
               BPE_INVAL);
  CHECK(id3 == NULL);
  CHECK(strstr(err.msg, "../escape") != NULL);
  CHECK_EQ_INT(entries(spool), 1);
  CHECK_EQ_INT(bpi_spool_open(spool, "../x", &a, &err), BPE_INVAL);

  /* leftovers: an interrupted removal goes at once, an interrupted add
   * only when it is old (another process may be adding right now) */
  char trash[600], old_tmp[600], new_tmp[600];
  snprintf(trash, sizeof(trash), "%s/.trash-x", spool);
  snprintf(old_tmp, sizeof(old_tmp), "%s/.tmp-old", spool);
  snprintf(new_tmp, sizeof(new_tmp), "%s/.tmp-new", spool);
  CHECK_EQ_INT(bpi_file_mkdirs(trash, &err), BP_OK);
  CHECK_EQ_INT(bpi_file_mkdirs(old_tmp, &err), BP_OK);
  CHECK_EQ_INT(bpi_file_mkdirs(new_tmp, &err), BP_OK);
  put("spool/.trash-x/f", "x");
  struct timeval old[2] = {{1000000000, 0}, {1000000000, 0}};
  CHECK(utimes(old_tmp, old) == 0);
  CHECK_EQ_INT(bpi_spool_list(spool, &ids, &n, &err), BP_OK);
  CHECK_EQ_INT(n, 1);
  bpi_spool_list_free(ids, n);
  CHECK(access(trash, F_OK) != 0);
  CHECK(access(old_tmp, F_OK) != 0);
  CHECK(access(new_tmp, F_OK) == 0);

  test_many_files(run);
  test_direct_marks(run);
  free(id1);
  free(id2);
  char cmd[600];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
  if(system(cmd))
    return 1;
  return check_exit();
}
