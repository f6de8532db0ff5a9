/* slice.c: one profile per marked benchmark: markers grouped by name in
 * the order they first began, samples of all of a benchmark's ranges,
 * counters summed over them, a directory each that never takes a run
 * directory file's name, the artifacts written there, a symbolic link in
 * the way refused, a profile without markers left alone, and a merged
 * profile (run --repeat) sliced by its benchmarks' markers of every
 * repetition, never by the repetitions' own, each repetition's markers
 * on its own process's main thread; the artifacts' sizes and
 * SHA-256 as their export recorded them make the manifest that reading
 * them back makes. */
#include "bp_setup.h"
#include "check.h"

#include "export.h"
#include "fileio.h"
#include "parallel.h"
#include "profile.h"
#include "profile_merge.h"
#include "rundir.h"
#include "slice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Samples at first, first + 10, ..., first + 90 on one thread (pid and
 * tid first), one stack. */
static struct bp_profile *ten_samples_from(uint64_t first)
{
  struct bp_profile *p = NULL;
  CHECK_EQ_INT(bpi_profile_new(&p), BP_OK);
  if(!p)
    return NULL;
  uint32_t lib = bpi_profile_lib(p, "/bin/x", "");
  uint32_t fr = bpi_profile_frame(p, lib, 0x10, BP_FRAME_USER);
  uint32_t st = bpi_profile_stack(p, BP_NONE, fr);
  uint32_t th = bpi_profile_thread(p, (uint32_t)first, (uint32_t)first);
  for(uint64_t t = first; t < first + 100; t += 10)
    CHECK_EQ_INT(bpi_profile_add_sample(p, th, st, t, 1), BP_OK);
  return p;
}

/* Samples at 10, 20, ..., 100. */
static struct bp_profile *ten_samples(void)
{
  return ten_samples_from(10);
}

/* A marker with one counter, task-clock = value. */
static void mark(struct bp_profile *p, const char *name, uint64_t t0,
                 uint64_t t1, double value)
{
  struct bp_counter c = {.name = "task-clock", .slug = "task-clock",
                         .unit = "ns", .available = true,
                         .raw = (uint64_t)value, .value = value,
                         .running = 1.0};
  CHECK_EQ_INT(bpi_profile_add_marker(p, name, t0, t1, &c, 1), BP_OK);
}

static bool is_file(const char *dir, const char *sub, const char *file)
{
  char path[512];
  struct stat st;
  snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, file);
  return lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

static void remove_tree(const char *dir)
{
  char cmd[600];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
  CHECK_EQ_INT(system(cmd), 0);
}

static void test_grouped(void)
{
  char dir[] = "/tmp/test_slice.XXXXXX";
  struct bp_err err = {0};
  struct bp_marked *m = NULL;
  size_t n = 99;
  CHECK(mkdtemp(dir) != NULL);
  struct bp_profile *p = ten_samples();
  if(!p)
    return;
  mark(p, "sort", 10, 30, 5);              /* 10, 20 */
  mark(p, BP_FILE_SUMMARY, 30, 50, 7);     /* 30, 40: a run file's name */
  mark(p, "sort", 60, 80, 11);             /* 60, 70 */
  mark(p, "sort", 100, 101, 13);           /* 100 */
  CHECK_EQ_INT(bpi_slice_export(p, dir, &m, &n, &err), BP_OK);
  CHECK_EQ_INT(n, 2);
  if(n == 2 && m) {
    CHECK_EQ_STR(m[0].name, "sort");
    CHECK_EQ_STR(m[0].dir, "sort");
    CHECK_EQ_INT(m[0].nsegs, 3);
    CHECK_EQ_INT(m[0].samples, 5);
    CHECK_EQ_INT(m[0].ncounters, 1);
    CHECK(m[0].counters && m[0].counters[0].value == 29);
    CHECK_EQ_STR(m[1].name, BP_FILE_SUMMARY);
    CHECK(strcmp(m[1].dir, BP_FILE_SUMMARY) != 0);
    for(size_t i = 0; bpi_rundir_reserved_names[i]; i++)
      CHECK(strcmp(m[1].dir, bpi_rundir_reserved_names[i]) != 0);
    CHECK_EQ_INT(m[1].nsegs, 1);
    CHECK_EQ_INT(m[1].samples, 2);
    CHECK(m[1].counters && m[1].counters[0].value == 7);
    /* the artifacts this profile has (the off-CPU ones only with
     * --off-cpu), and no others */
    for(size_t i = 0; bpi_exporters[i]; i++) {
      const struct bp_exporter *e = bpi_exporters[i];
      bool wanted = !e->wanted || e->wanted(p);
      CHECK(is_file(dir, m[0].dir, e->file) == wanted);
      CHECK(is_file(dir, m[1].dir, e->file) == wanted);
    }
  }
  bpi_slice_free(m, n);
  bpi_profile_free(p);
  remove_tree(dir);
}

/* A benchmark named "compare" does not take the run's compare directory
 * (a pull request's comparison is written there after the run). */
static void test_compare_name(void)
{
  char dir[] = "/tmp/test_slice.XXXXXX";
  struct bp_err err = {0};
  struct bp_marked *m = NULL;
  size_t n = 0;
  CHECK(mkdtemp(dir) != NULL);
  struct bp_profile *p = ten_samples();
  if(!p)
    return;
  mark(p, BP_RUNDIR_COMPARE, 10, 50, 1);
  CHECK_EQ_INT(bpi_slice_export(p, dir, &m, &n, &err), BP_OK);
  CHECK_EQ_INT(n, 1);
  if(n == 1 && m) {
    CHECK_EQ_STR(m[0].name, BP_RUNDIR_COMPARE);
    CHECK_EQ_STR(m[0].dir, BP_RUNDIR_COMPARE "-2");
  }
  bpi_slice_free(m, n);
  bpi_profile_free(p);
  remove_tree(dir);
}

/* A benchmark directory that is a symbolic link is refused, and nothing
 * is written where it points. */
static void test_link_refused(void)
{
  char dir[] = "/tmp/test_slice.XXXXXX";
  char away[] = "/tmp/test_slice_away.XXXXXX";
  char link[600];
  struct bp_err err = {0};
  struct bp_marked *m = NULL;
  size_t n = 0;
  CHECK(mkdtemp(dir) != NULL);
  CHECK(mkdtemp(away) != NULL);
  snprintf(link, sizeof(link), "%s/bench", dir);
  CHECK_EQ_INT(symlink(away, link), 0);
  struct bp_profile *p = ten_samples();
  if(!p)
    return;
  mark(p, "bench", 10, 50, 1);
  CHECK(bpi_slice_export(p, dir, &m, &n, &err) != BP_OK);
  CHECK(err.msg[0] != '\0');
  for(size_t i = 0; bpi_exporters[i]; i++)
    CHECK(!is_file(away, ".", bpi_exporters[i]->file));
  bpi_slice_free(m, n);
  bpi_profile_free(p);
  remove_tree(dir);
  remove_tree(away);
}

static void test_no_markers(void)
{
  struct bp_err err = {0};
  struct bp_marked *m = (struct bp_marked *)&err;  /* overwritten */
  size_t n = 99;
  struct bp_profile *p = ten_samples();
  if(!p)
    return;
  CHECK_EQ_INT(bpi_slice_export(p, "/nonexistent", &m, &n, &err), BP_OK);
  CHECK(m == NULL);
  CHECK_EQ_INT(n, 0);
  bpi_slice_free(NULL, 0);
  bpi_profile_free(p);
}

/* Two recordings merged (run --repeat): each one's benchmark markers
 * kept, a repetition marker each, which slicing passes over; a benchmark
 * marked in both has the samples and counters of both. */
static void test_merged_repetitions(void)
{
  char dir[] = "/tmp/test_slice.XXXXXX";
  struct bp_err err = {0};
  struct bp_marked *m = NULL;
  size_t n = 99;
  CHECK(mkdtemp(dir) != NULL);
  struct bp_profile *p = ten_samples_from(10);     /* 10 .. 100 */
  struct bp_profile *q = ten_samples_from(1000);   /* 1000 .. 1090 */
  if(!p || !q)
    return;
  mark(p, "sort", 10, 30, 5);              /* 10, 20 */
  mark(p, "other", 30, 50, 7);             /* 30, 40 */
  mark(q, "sort", 1000, 1030, 11);         /* 1000, 1010, 1020 */
  CHECK_EQ_INT(bpi_profile_add_marker_kind(p, BP_MARKER_REPETITION,
                                           "repetition 1", 10, 101, NULL,
                                           0), BP_OK);
  CHECK_EQ_INT(bpi_profile_merge(p, q, "repetition 2"), BP_OK);
  CHECK_EQ_INT(p->nmarkers, 5);
  CHECK_EQ_INT(bpi_profile_benchmark_markers(p), 3);
  if(p->nmarkers == 5) {
    CHECK_EQ_STR(p->markers[3].name, "sort");
    CHECK(p->markers[3].kind == BP_MARKER_BENCHMARK);
    CHECK(p->markers[3].start_ns == 1000 && p->markers[3].end_ns == 1030);
    CHECK_EQ_STR(p->markers[4].name, "repetition 2");
    CHECK(p->markers[4].kind == BP_MARKER_REPETITION);
    /* the first recording's markers on the run's main thread (its own),
     * the second's on the second process's: its track, not the first's */
    uint32_t second = bpi_profile_thread(p, 1000, 1000);
    CHECK_EQ_INT(bpi_profile_main_thread(p), 0);
    for(size_t i = 0; i < 3; i++)
      CHECK_EQ_INT(bpi_profile_marker_thread(p, &p->markers[i]), 0);
    CHECK_EQ_INT(second, 1);
    CHECK_EQ_INT(bpi_profile_marker_thread(p, &p->markers[3]), second);
    CHECK_EQ_INT(bpi_profile_marker_thread(p, &p->markers[4]), second);
  }
  CHECK_EQ_INT(bpi_slice_export(p, dir, &m, &n, &err), BP_OK);
  CHECK_EQ_INT(n, 2);
  if(n == 2 && m) {
    CHECK_EQ_STR(m[0].name, "sort");
    CHECK_EQ_INT(m[0].nsegs, 2);
    CHECK_EQ_INT(m[0].samples, 5);
    CHECK(m[0].counters && m[0].counters[0].value == 16);
    CHECK_EQ_STR(m[1].name, "other");
    CHECK_EQ_INT(m[1].samples, 2);
    CHECK(is_file(dir, "sort", BP_FILE_SUMMARY));
    CHECK(!is_file(dir, "repetition 1", BP_FILE_SUMMARY));
  }
  bpi_slice_free(m, n);
  /* repetition markers alone: no benchmark */
  struct bp_profile *r = ten_samples();
  if(r) {
    CHECK_EQ_INT(bpi_profile_add_marker_kind(r, BP_MARKER_REPETITION,
                                             "repetition 1", 10, 101, NULL,
                                             0), BP_OK);
    m = NULL;
    n = 99;
    CHECK_EQ_INT(bpi_slice_export(r, "/nonexistent", &m, &n, &err), BP_OK);
    CHECK(m == NULL);
    CHECK_EQ_INT(n, 0);
    bpi_profile_free(r);
  }
  bpi_profile_free(q);
  bpi_profile_free(p);
  remove_tree(dir);
}

/* A suite's slices written on a pool of workers (parallel.h) are
 * the files written in order, byte for byte, across several batches;
 * of two benchmarks of a batch that cannot be written, the first is the
 * error, and no later batch is written. */
static void export_suite(const char *dir, unsigned threads,
                         const char *refused, struct bp_err *err,
                         bp_code want)
{
  struct bp_profile *p = NULL;
  CHECK_EQ_INT(bpi_profile_new(&p), BP_OK);
  if(!p)
    return;
  uint32_t lib = bpi_profile_lib(p, "/bin/x", "");
  uint32_t th[3];
  for(uint32_t t = 0; t < 3; t++)
    th[t] = bpi_profile_thread(p, 7, 7 + t);
  for(uint64_t i = 0; i < 3000; i++) {
    uint32_t fr = bpi_profile_frame(p, lib, 0x10 + i % 37, BP_FRAME_USER);
    uint32_t st = bpi_profile_stack(p, BP_NONE, fr);
    CHECK_EQ_INT(bpi_profile_add_sample(p, th[i % 3], st, 10 * i, 1 + i % 5),
                 BP_OK);
  }
  char name[32];
  for(unsigned b = 0; b < 150; b++) {
    snprintf(name, sizeof(name), "b%u", b);
    mark(p, name, 200 * b, 200 * b + 10 * (1 + b % 19), b);
  }
  for(const char *r = refused; r && *r; r += strlen(r) + 1) {
    char link[600];
    snprintf(link, sizeof(link), "%s/%s", dir, r);
    CHECK_EQ_INT(symlink("/nonexistent", link), 0);
  }
  struct bp_marked *m = NULL;
  size_t n = 0;
  bpi_parallel_set_workers(threads);
  CHECK_EQ_INT(bpi_slice_export(p, dir, &m, &n, err), want);
  bpi_parallel_set_workers(0);
  if(!want)
    CHECK_EQ_INT(n, 150);
  bpi_slice_free(m, n);
  bpi_profile_free(p);
}

static void test_workers(void)
{
  char one[] = "/tmp/test_slice.XXXXXX", four[] = "/tmp/test_slice.XXXXXX";
  char cmd[200];
  struct bp_err err = {0};
  CHECK(mkdtemp(one) != NULL);
  CHECK(mkdtemp(four) != NULL);
  export_suite(one, 1, NULL, &err, BP_OK);
  export_suite(four, 4, NULL, &err, BP_OK);
  CHECK(is_file(four, "b149", "summary.json"));
  snprintf(cmd, sizeof(cmd), "diff -r %s %s >/dev/null", one, four);
  CHECK_EQ_INT(system(cmd), 0);
  remove_tree(one);
  remove_tree(four);
  for(int threads = 1; threads <= 4; threads += 3) {
    CHECK(mkdtemp(strcpy(one, "/tmp/test_slice.XXXXXX")) != NULL);
    memset(&err, 0, sizeof(err));
    export_suite(one, (unsigned)threads, "b50\0b40\0", &err, BPE_IO);
    CHECK(strstr(err.msg, "/b40'") != NULL);
    /* nothing after the failing batch; in order, nothing after b40 */
    CHECK(!is_file(one, "b100", "summary.json"));
    if(threads == 1)
      CHECK(!is_file(one, "b41", "summary.json"));
    remove_tree(one);
  }
}

/* What the exports recorded of the artifacts they wrote (sizes and
 * SHA-256 of the bytes on disk, gzip ones too) makes the manifest that
 * reading the files back makes, byte for byte: the invocation's and
 * each benchmark's. */
static void manifest_both_ways(const char *dir,
                               const struct bp_export_record *top,
                               const struct bp_marked *m, size_t n,
                               bool recorded, struct bp_buf *out)
{
  struct bp_manifest man = {.exit_status = 0};
  struct bp_err err = {0};
  CHECK_EQ_INT(recorded ? bpi_manifest_artifacts_written(".", top, &man.arts,
                                                         &man.narts, &err)
                        : bpi_manifest_artifacts(dir, ".", &man.arts,
                                                 &man.narts, &err), BP_OK);
  for(size_t i = 0; i < n; i++) {
    struct bp_manifest_bench *b = bpi_manifest_add_bench(&man, m[i].name,
                                                         m[i].dir);
    CHECK(b != NULL);
    if(!b)
      break;
    CHECK(!recorded || m[i].written.complete);
    CHECK_EQ_INT(recorded ? bpi_manifest_artifacts_written(
                              m[i].dir, &m[i].written, &b->arts, &b->narts,
                              &err)
                          : bpi_manifest_artifacts(dir, m[i].dir, &b->arts,
                                                   &b->narts, &err), BP_OK);
    CHECK_EQ_INT(b->narts, 5);
  }
  CHECK_EQ_INT(bpi_manifest_print(&man, out, &err), BP_OK);
  bpi_manifest_cleanup(&man);
}

static void test_recorded_digests(void)
{
  const char *tmp = getenv("TMPDIR");
  char dir[512];
  snprintf(dir, sizeof(dir), "%s/test_slice.XXXXXX",
           tmp && *tmp ? tmp : P_tmpdir);
  struct bp_err err = {0};
  struct bp_marked *m = NULL;
  size_t n = 0;
  CHECK(mkdtemp(dir) != NULL);
  struct bp_profile *p = ten_samples();
  if(!p)
    return;
  mark(p, "sort", 10, 30, 5);
  mark(p, "hash", 30, 60, 7);
  mark(p, "sort", 60, 80, 11);
  struct bp_export_record top;
  CHECK_EQ_INT(bpi_export_all(p, dir, &top, &err), BP_OK);
  CHECK(top.complete);
  CHECK_EQ_INT(top.n, 5);
  CHECK_EQ_INT(bpi_slice_export(p, dir, &m, &n, &err), BP_OK);
  CHECK_EQ_INT(n, 2);
  struct bp_buf recorded, read_back;
  bpi_buf_init(&recorded);
  bpi_buf_init(&read_back);
  manifest_both_ways(dir, &top, m, n, true, &recorded);
  manifest_both_ways(dir, &top, m, n, false, &read_back);
  CHECK(recorded.len > 0 && recorded.len == read_back.len);
  CHECK(recorded.data && read_back.data &&
        !strcmp(recorded.data, read_back.data));
  CHECK(recorded.data && strstr(recorded.data, "\"sort/" BP_FILE_GECKO
                                               "\"") != NULL);
  bpi_buf_cleanup(&recorded);
  bpi_buf_cleanup(&read_back);
  /* an export that failed is not complete: the manifest reads back */
  char file[600];
  snprintf(file, sizeof(file), "%s/not-a-dir", dir);
  CHECK_EQ_INT(bpi_file_write(file, "x", 1, false, &err), BP_OK);
  CHECK(bpi_export_all(p, file, &top, &err) != BP_OK);
  CHECK(!top.complete);
  bpi_slice_free(m, n);
  bpi_profile_free(p);
  remove_tree(dir);
}

int main(void)
{
  test_recorded_digests();
  test_workers();
  test_grouped();
  test_compare_name();
  test_link_refused();
  test_no_markers();
  test_merged_repetitions();
  return check_exit();
}
