/* publish: the latest pointer's owner (bpi_pub_latest_foreign: a
 * pointer another repository named alike wrote is left alone) and its
 * order (bpi_run_newer, runorder.h).  The
 * stored pointer wins over a publication by its commit's committer time
 * when both know theirs; the end time decides for the same commit, for
 * equal commit times (a rebase or an amend in the same second) and when
 * either side has none (git did not know the hash, a pointer written
 * before pointers had it, a time that is not one).  And the stored
 * manifest's order against a publication of the same commit and testbed
 * (bpi_pub_stored_order): a run that ended later is left alone.  And a
 * run directory whose manifest names no report (a run interrupted before
 * its harness wrote its results) is refused before anything is
 * delivered (bpi_publish_run). */
#include "bp_setup.h"
#include "publish_int.h"
#include "runorder.h"
#include "check.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define DAY1 "2024-01-01T08:00:00Z"
#define DAY2 "2024-01-02T08:00:00Z"
#define EARLY "2024-03-01T10:00:00.000Z"
#define LATE "2024-03-01T11:00:00.000Z"

static bool newer(const char *stored_commit, const char *stored_time,
                  const char *stored_end, const char *commit,
                  const char *time, const char *end)
{
  const struct bp_run_when s = {stored_commit, stored_time, stored_end};
  const struct bp_run_when r = {commit, time, end};
  return bpi_run_newer(&s, &r);
}

/* the order of a stored manifest whose publication ended at stored_end
 * (NULL: no end_time) against a publication that ended at end; *got its
 * end time when newer */
static enum bp_stored_order stored(const char *stored_end, const char *end,
                                   char **got)
{
  char text[512];
  if(stored_end)
    snprintf(text, sizeof(text), "{\"benchmarks\": [], \"publication\": "
             "{\"identity\": {\"commit\": \"" A "\"}, \"end_time\": "
             "\"%s\"}}", stored_end);
  else
    snprintf(text, sizeof(text), "{\"benchmarks\": [], \"publication\": "
             "{}}");
  return bpi_pub_stored_order(text, strlen(text), end, got);
}

static void check_stored_order(void)
{
  char *got = NULL;
  /* nothing stored: written */
  CHECK(bpi_pub_stored_order(NULL, 0, LATE, &got) == BP_STORED_REPLACE);
  CHECK(!got);
  /* a newer run of the commit stays, and says when it ended */
  CHECK(stored(LATE, EARLY, &got) == BP_STORED_NEWER);
  CHECK(got && !strcmp(got, LATE));
  free(got);
  /* an older run, or this same run (a retry), is replaced */
  CHECK(stored(EARLY, LATE, &got) == BP_STORED_REPLACE);
  CHECK(!got);
  CHECK(stored(LATE, LATE, &got) == BP_STORED_REPLACE);
  /* times compared as times, whatever their zones */
  CHECK(stored("2024-03-01T11:30:00.000+02:00", EARLY, &got) ==
        BP_STORED_REPLACE);
  CHECK(stored("2024-03-01T09:30:00.000-02:00", EARLY, &got) ==
        BP_STORED_NEWER);
  free(got);
  /* no end time, or one that is not a time (a broken or hostile store),
   * never keeps a run out */
  CHECK(stored(NULL, EARLY, &got) == BP_STORED_REPLACE);
  CHECK(stored("zzzz", EARLY, &got) == BP_STORED_REPLACE);
  CHECK(stored(LATE, NULL, &got) == BP_STORED_REPLACE);
  CHECK(bpi_pub_stored_order("[1, 2]", 6, EARLY, &got) == BP_STORED_REPLACE);
  /* not JSON: possibly an object read while it is written: again */
  CHECK(bpi_pub_stored_order("{\"publication\": {\"end", 21, EARLY, &got)
        == BP_STORED_INVALID);
  CHECK(!got);
}

/* Whether dir has no entry but . and .. */
static bool dir_empty(const char *dir)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  bool empty = d != NULL;
  while(d && (e = readdir(d)))
    if(strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
      empty = false;
  if(d)
    closedir(d);
  return empty;
}

/* An interrupted run's directory (manifest.json, no report) is not
 * published, and says why; nothing reaches the store. */
static void check_unreported_refused(void)
{
  char top[64], run[80], store[80], url[96], path[96];
  const char *tmpdir = getenv("TMPDIR");
  snprintf(top, sizeof(top), "%s/bp-test-publish.XXXXXX",
           tmpdir && *tmpdir && strlen(tmpdir) < 40 ? tmpdir : "/tmp");
  if(!mkdtemp(top)) {
    CHECK(!"mkdtemp");
    return;
  }
  snprintf(run, sizeof(run), "%s/run", top);
  snprintf(store, sizeof(store), "%s/store", top);
  snprintf(url, sizeof(url), "file://%s", store);
  snprintf(path, sizeof(path), "%s/manifest.json", run);
  CHECK(mkdir(run, 0700) == 0 && mkdir(store, 0700) == 0);
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if(f) {
    fputs("{\"benchprof_version\": \"0\", \"command\": \"bench\", "
          "\"exit_status\": 143, \"outcome\": \"interrupted\", "
          "\"signal\": \"SIGTERM\", \"benchmarks\": [], "
          "\"artifacts\": []}\n", f);
    fclose(f);
  }
  struct bp_publish_opts o = {
    .project = "demo", .branch = "main", .hash = A, .testbed = "box",
    .store = {.url = url},
  };
  struct bp_publish_result res;
  struct bp_err err = {0};
  CHECK_EQ_INT(bpi_publish_run(&o, run, EARLY, LATE, &res, &err),
               BPE_FORMAT);
  CHECK(strstr(err.msg, "manifest.json: no \"report\"") != NULL);
  CHECK(strstr(err.msg, "nothing to publish") != NULL);
  CHECK(dir_empty(store));
  bpi_publish_result_cleanup(&res);
  remove(path);
  rmdir(run);
  rmdir(store);
  rmdir(top);
}

int main(void)
{
  check_stored_order();
  check_unreported_refused();
  /* nothing stored, or a pointer without either time: written */
  CHECK(!newer(NULL, NULL, NULL, A, DAY1, EARLY));
  CHECK(!newer(B, NULL, NULL, A, DAY1, EARLY));
  /* commit times first: an old commit's run ending later stays out ... */
  CHECK(newer(B, DAY2, EARLY, A, DAY1, LATE));
  /* ... and a newer commit's run replaces it even when it ended first */
  CHECK(!newer(A, DAY1, LATE, B, DAY2, EARLY));
  /* times compared as times, whatever their zones */
  CHECK(newer(B, "2024-01-01T09:00:00-02:00", EARLY, A, DAY1, LATE));
  CHECK(!newer(B, "2024-01-01T09:00:00+02:00", EARLY, A, DAY1, LATE));
  /* the same commit run again: the end time */
  CHECK(!newer(A, DAY1, EARLY, A, DAY1, LATE));
  CHECK(newer(A, DAY1, LATE, A, DAY1, EARLY));
  /* two commits with the same time: the end time */
  CHECK(!newer(B, DAY1, EARLY, A, DAY1, LATE));
  CHECK(newer(B, DAY1, LATE, A, DAY1, EARLY));
  /* one side without a commit time (or one that is not a time): the end
   * time, as before commit times were recorded */
  CHECK(!newer(B, NULL, EARLY, A, DAY1, LATE));
  CHECK(!newer(B, DAY2, EARLY, A, NULL, LATE));
  CHECK(newer(A, DAY1, LATE, B, NULL, EARLY));
  CHECK(!newer(B, "yesterday", EARLY, A, DAY1, LATE));

  /* another repository's pointer is left; the same repository's, one
   * written before pointers named theirs, or a run that does not know
   * its repository (git, local): decided as above */
  CHECK(bpi_pub_latest_foreign("gitlab:gl.example/12", "gitlab:gl.example/13"));
  CHECK(bpi_pub_latest_foreign("github:a/bench", "github:b/bench"));
  CHECK(!bpi_pub_latest_foreign("github:a/bench", "github:a/bench"));
  CHECK(!bpi_pub_latest_foreign(NULL, "github:a/bench"));
  CHECK(!bpi_pub_latest_foreign("github:a/bench", NULL));
  CHECK(!bpi_pub_latest_foreign(NULL, NULL));
  return check_exit();
}
