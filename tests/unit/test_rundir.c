/* test_rundir: manifest.json's parser and writer (rundir.h).  A manifest
 * with every field (the invocation's facts and artifacts, a benchmark
 * with its own invocation, a marked one, the publication, Bencher ids,
 * a stored report) survives parse -> print -> parse -> print unchanged
 * and typed as written; an absent exit status stays absent; artifacts
 * are measured (size, SHA-256) from the exporter table's files; bad JSON
 * is named with its label; paths a manifest names stay inside the run
 * directory. */
#include "bp_setup.h"
#include "rundir.h"
#include "err.h"
#include "fileio.h"
#include "check.h"
#include "text.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char manifest[] =
  "{\"benchprof_version\": \"1.2.3\", \"command\": \"./bench\","
  " \"exit_status\": 3, \"report\": \"report.json\","
  " \"event\": {\"requested\": \"cycles\", \"used\": \"cpu-clock\","
  "   \"fallback\": true, \"fallback_reason\": \"no PMU\"},"
  " \"samples\": 12345678901, \"lost\": 7,"
  " \"counters\": [{\"name\": \"cycles\", \"value\": 1.5}],"
  " \"artifacts\": [{\"file\": \"profile.folded\", \"kind\": "
  "   \"folded-stacks\", \"bytes\": 42, \"sha256\": \"ab\"}],"
  " \"benchmarks\": ["
  "  {\"name\": \"own\", \"profile\": \"own\", \"exit_status\": 0,"
  "   \"samples\": 10, \"lost\": 1, \"counters\": [],"
  "   \"artifacts\": [{\"file\": \"own/summary.json\", \"kind\": "
  "     \"summary\", \"bytes\": 5, \"sha256\": \"cd\", \"key\": \"k/s\","
  "     \"url\": null, \"firefox_url\": \"https://ff/x/\"}],"
  "   \"bencher\": {\"benchmark_uuid\": \"u\"}},"
  "  {\"name\": \"marked \\u00e9\", \"profile\": \"marked\", \"runs\": 4,"
  "   \"samples\": 3, \"lost_in_run\": 7, \"counters\": [],"
  "   \"artifacts\": []},"
  "  {\"name\": \"plain\", \"profile\": \".\", \"artifacts\": []}"
  " ],"
  " \"publication\": {\"state\": \"delivered\", \"spool_id\": \"s1\","
  "   \"identity\": {\"project\": \"demo\", \"branch\": 7}},"
  " \"results\": {\"own\": {\"latency\": {\"value\": 1}}}}";

static void test_round_trip(void)
{
  struct bp_manifest m, again;
  struct bp_err err = {0};
  struct bp_buf one, two;
  bpi_buf_init(&one);
  bpi_buf_init(&two);
  CHECK(bpi_manifest_parse(&m, manifest, strlen(manifest), "t", &err) ==
        BP_OK);
  CHECK_EQ_STR(m.version, "1.2.3");
  CHECK_EQ_STR(m.command, "./bench");
  CHECK(m.has_exit_status);
  CHECK_EQ_INT(m.exit_status, 3);
  CHECK_EQ_STR(m.report, BP_RUNDIR_REPORT);
  CHECK_EQ_STR(m.event_requested, "cycles");
  CHECK_EQ_STR(m.event_used, "cpu-clock");
  CHECK_EQ_STR(m.fallback_reason, "no PMU");
  CHECK(m.has_facts);
  CHECK(m.samples == 12345678901ULL);
  CHECK_EQ_INT(m.lost, 7);
  CHECK_EQ_INT(m.narts, 1);
  CHECK_EQ_INT(m.arts[0].bytes, 42);
  CHECK_EQ_INT(m.nbenches, 3);
  CHECK_EQ_INT(m.benches[0].facts, BP_FACTS_OWN);
  CHECK_EQ_INT(m.benches[0].lost, 1);
  CHECK_EQ_STR(m.benches[0].arts[0].key, "k/s");
  CHECK(m.benches[0].arts[0].url == NULL);
  CHECK_EQ_STR(m.benches[0].arts[0].firefox_url, "https://ff/x/");
  CHECK_EQ_INT(m.benches[1].facts, BP_FACTS_MARKED);
  CHECK_EQ_INT(m.benches[1].runs, 4);
  CHECK_EQ_INT(m.benches[1].lost, 7);
  CHECK_EQ_STR(m.benches[1].name, "marked \xc3\xa9");
  CHECK_EQ_INT(m.benches[2].facts, BP_FACTS_NONE);
  CHECK(bpi_manifest_delivered(&m));
  CHECK_EQ_STR(bpi_manifest_pub_str(&m, "spool_id"), "s1");
  CHECK_EQ_STR(bpi_manifest_ident_str(&m, "project"), "demo");
  CHECK(bpi_manifest_ident_str(&m, "branch") == NULL);  /* not a string */
  CHECK(bpi_manifest_ident_str(&m, "commit") == NULL);
  CHECK(bpi_manifest_bench(&m, "plain") == &m.benches[2]);
  CHECK(bpi_manifest_bench(&m, "none") == NULL);
  const struct bp_manifest_bench *own = bpi_manifest_bench(&m, "own");
  CHECK(own && bpi_manifest_artifact(own->arts, own->narts,
                                     BP_KIND_SUMMARY) == &own->arts[0]);
  CHECK(own && !bpi_manifest_artifact(own->arts, own->narts,
                                      BP_KIND_GECKO));

  CHECK(bpi_manifest_print(&m, &one, &err) == BP_OK);
  CHECK(bpi_manifest_parse(&again, one.data, one.len, "one", &err) ==
        BP_OK);
  CHECK(bpi_manifest_print(&again, &two, &err) == BP_OK);
  CHECK_EQ_STR(one.data, two.data);
  /* what the struct does not type came through as it was */
  CHECK(strstr(one.data, "\"benchmark_uuid\":\t\"u\"") != NULL);
  CHECK(strstr(one.data, "\"latency\"") != NULL);
  CHECK(strstr(one.data, "\"fallback\":\ttrue") != NULL);
  bpi_manifest_cleanup(&again);
  /* a manifest much longer than the size printing guesses (a command of
   * 300 KB): printed again into a larger buffer, after what out held */
  free(m.command);
  m.command = malloc(300001);
  if(m.command) {
    memset(m.command, 'c', 300000);
    m.command[300000] = '\0';
  }
  bpi_buf_reset(&two);
  bpi_buf_adds(&two, "x");
  CHECK(bpi_manifest_print(&m, &two, &err) == BP_OK);
  CHECK(two.len > 300000 && two.data[0] == 'x' &&
        two.data[two.len - 1] == '\n' && strlen(two.data) == two.len);
  CHECK(bpi_manifest_parse(&again, two.data + 1, two.len - 1, "long",
                           &err) == BP_OK);
  CHECK(again.command && strlen(again.command) == 300000);
  bpi_manifest_cleanup(&again);
  bpi_manifest_cleanup(&m);
  bpi_buf_cleanup(&one);
  bpi_buf_cleanup(&two);
}

static void test_bad(void)
{
  struct bp_manifest m;
  struct bp_err err = {0};
  CHECK(bpi_manifest_parse(&m, "{\"a\": ", 6, "x/manifest.json", &err) ==
        BPE_FORMAT);
  CHECK(strstr(err.msg, "x/manifest.json: not valid JSON") != NULL);
  /* wrong types are left empty for the readers to name */
  err = (struct bp_err){0};
  const char *odd = "{\"report\": 5, \"benchmarks\": [{\"name\": 1}, 2]}";
  CHECK(bpi_manifest_parse(&m, odd, strlen(odd), "odd", &err) == BP_OK);
  CHECK(m.report == NULL);
  CHECK_EQ_INT(m.nbenches, 2);
  CHECK(m.benches[0].name == NULL && m.benches[1].profile == NULL);
  CHECK(!m.has_exit_status);
  CHECK(bpi_manifest_ident_str(&m, "project") == NULL);
  bpi_manifest_cleanup(&m);
}

/* An absent exit status stays absent: read -> print -> read keeps it
 * told apart from 0; one of the wrong type is absent too. */
static void test_no_exit_status(void)
{
  static const char *const texts[] = {
    "{\"command\": \"x\", \"benchmarks\": []}",
    "{\"command\": \"x\", \"exit_status\": \"0\"}",
  };
  for(size_t i = 0; i < BP_ARRAY_LEN(texts); i++) {
    struct bp_manifest m, again;
    struct bp_err err = {0};
    struct bp_buf out;
    bpi_buf_init(&out);
    CHECK(bpi_manifest_parse(&m, texts[i], strlen(texts[i]), "t", &err) ==
          BP_OK);
    CHECK(!m.has_exit_status);
    CHECK(bpi_manifest_print(&m, &out, &err) == BP_OK);
    CHECK(out.data && !strstr(out.data, "exit_status"));
    CHECK(bpi_manifest_parse(&again, out.data, out.len, "out", &err) ==
          BP_OK);
    CHECK(!again.has_exit_status);
    /* and one that is there, 0, is kept */
    again.has_exit_status = true;
    bpi_buf_reset(&out);
    CHECK(bpi_manifest_print(&again, &out, &err) == BP_OK);
    CHECK(out.data && strstr(out.data, "\"exit_status\":\t0") != NULL);
    bpi_manifest_cleanup(&again);
    bpi_manifest_cleanup(&m);
    bpi_buf_cleanup(&out);
  }
}

/* The artifacts of a directory, measured; written and read back. */
static void test_dir(void)
{
  char dir[] = "/tmp/test_rundir.XXXXXX";
  struct bp_err err = {0};
  CHECK(mkdtemp(dir) != NULL);
  char sub[128];
  snprintf(sub, sizeof(sub), "%s/b", dir);
  CHECK(bpi_file_mkdirs(sub, &err) == BP_OK);
  for(size_t i = 0; bpi_exporters[i]; i++) {
    char *path = bpi_text_path_join(sub, bpi_exporters[i]->file);
    CHECK(bpi_file_write(path, "abc", 3, false, &err) == BP_OK);
    free(path);
  }
  struct bp_manifest m = {.exit_status = 0};
  struct bp_manifest_bench *b = bpi_manifest_add_bench(&m, "bench", "b");
  CHECK(b != NULL);
  if(!b)
    return;
  CHECK(bpi_manifest_artifacts(dir, "b", &b->arts, &b->narts, &err) ==
        BP_OK);
  CHECK(b->narts >= 5);
  const struct bp_manifest_artifact *f =
    bpi_manifest_artifact(b->arts, b->narts, BP_KIND_FOLDED);
  CHECK(f != NULL);
  CHECK_EQ_STR(f ? f->file : NULL, "b/" BP_FILE_FOLDED);
  CHECK_EQ_INT(f ? f->bytes : 0, 3);
  CHECK_EQ_STR(f ? f->sha256 : NULL, "ba7816bf8f01cfea414140de5dae2223"
                                     "b00361a396177a9cb410ff61f20015ad");
  CHECK(bpi_manifest_write(&m, dir, &err) == BP_OK);
  struct bp_manifest back;
  CHECK(bpi_manifest_read(&back, dir, &err) == BP_OK);
  CHECK_EQ_INT(back.nbenches, 1);
  CHECK_EQ_INT(back.benches[0].narts, b->narts);
  CHECK(!back.has_facts && back.publication == NULL);
  bpi_manifest_cleanup(&back);
  /* a missing artifact is an error that names it */
  err = (struct bp_err){0};
  struct bp_manifest_artifact *arts = NULL;
  size_t n = 0;
  CHECK(bpi_manifest_artifacts(dir, "missing", &arts, &n, &err) == BPE_IO);
  CHECK(strstr(err.msg, "missing/") != NULL);
  struct bp_manifest holder = {.arts = arts, .narts = n};
  bpi_manifest_cleanup(&holder);
  bpi_manifest_cleanup(&m);
  char cmd[256];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
}

/* The directories noted in .benchmark-dirs (no manifest names them)
 * are cleared: benchprof's files go, then the directory, unless a file
 * benchprof did not write keeps it; a noted name that would leave the
 * run directory does not stop the clearing; the note goes too. */
static void test_noted_dirs(void)
{
  char dir[] = "/tmp/test_rundir.XXXXXX";
  struct bp_err err = {0};
  CHECK(mkdtemp(dir) != NULL);
  const char *names[] = {"a", "b", "../up"};
  CHECK(bpi_rundir_note_bench_dirs(dir, names, 2, &err) == BP_OK);
  CHECK(bpi_rundir_note_bench_dirs(dir, names + 2, 1, &err) == BP_OK);
  char path[256];
  for(size_t i = 0; i < 2; i++) {
    snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
    CHECK(bpi_file_mkdirs(path, &err) == BP_OK);
    snprintf(path, sizeof(path), "%s/%s/" BP_FILE_FOLDED, dir, names[i]);
    CHECK(bpi_file_write(path, "x", 1, false, &err) == BP_OK);
  }
  snprintf(path, sizeof(path), "%s/b/mine.txt", dir);
  CHECK(bpi_file_write(path, "x", 1, false, &err) == BP_OK);
  char *text = NULL;
  size_t len = 0;
  snprintf(path, sizeof(path), "%s/" BP_RUNDIR_BENCH_DIRS, dir);
  CHECK(bpi_file_read(path, &text, &len, &err) == BP_OK);
  CHECK_EQ_STR(text, "a\nb\n../up\n");
  free(text);
  CHECK(bpi_rundir_clear(dir, &err) == BP_OK);
  snprintf(path, sizeof(path), "%s/a", dir);
  CHECK(access(path, F_OK) != 0);
  snprintf(path, sizeof(path), "%s/b/" BP_FILE_FOLDED, dir);
  CHECK(access(path, F_OK) != 0);
  snprintf(path, sizeof(path), "%s/b/mine.txt", dir);
  CHECK(access(path, F_OK) == 0);
  snprintf(path, sizeof(path), "%s/" BP_RUNDIR_BENCH_DIRS, dir);
  CHECK(access(path, F_OK) != 0);
  char cmd[256];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
}

/* write "x" to dir/rel, its directory made first */
static void put(const char *dir, const char *rel)
{
  struct bp_err err = {0};
  char path[512];
  snprintf(path, sizeof(path), "%s/%s", dir, rel);
  char *slash = strrchr(path, '/');
  *slash = '\0';
  CHECK(bpi_file_mkdirs(path, &err) == BP_OK);
  *slash = '/';
  CHECK(bpi_file_write(path, "x", 1, false, &err) == BP_OK);
}

static bool there(const char *dir, const char *rel)
{
  char path[512];
  snprintf(path, sizeof(path), "%s/%s", dir, rel);
  return access(path, F_OK) == 0;
}

/* --each's benchmark directories note the benchmarks their harness
 * marked in them: those go with them (a user's file in one keeps it and
 * its benchmark's directory, nothing else); "." noted, or artifacts a
 * manifest lists at the top, clear the run directory's own artifacts,
 * not a user's file there nor an artifact named outside it; temporary
 * files of benchprof's writes go, in the run directory and in each
 * directory cleared. */
static void test_nested_dirs(void)
{
  char dir[] = "/tmp/test_rundir_nested.XXXXXX";
  struct bp_err err = {0};
  CHECK(mkdtemp(dir) != NULL);
  const char *top[] = {"BM_a", "BM_b", "."};
  const char *marks[] = {"m1", "m2"};
  char sub[128];
  CHECK(bpi_rundir_note_bench_dirs(dir, top, 3, &err) == BP_OK);
  for(size_t i = 0; i < 2; i++) {
    snprintf(sub, sizeof(sub), "%s/%s", dir, top[i]);
    CHECK(bpi_file_mkdirs(sub, &err) == BP_OK);
    CHECK(bpi_rundir_note_bench_dirs(sub, marks, 2, &err) == BP_OK);
    for(size_t k = 0; k < 2; k++) {
      snprintf(sub, sizeof(sub), "%s/%s/" BP_FILE_FOLDED, top[i], marks[k]);
      put(dir, sub);
    }
    snprintf(sub, sizeof(sub), "%s/" BP_FILE_SVG, top[i]);
    put(dir, sub);
  }
  put(dir, "BM_a/m2/mine.txt");
  /* what writes that a SIGKILL stopped left */
  put(dir, "BM_b/" BP_FILE_PPROF ".tmpAb3dE9");
  put(dir, "BM_a/m1/" BP_FILE_SUMMARY ".tmp4242-0");
  put(dir, BP_RUNDIR_MANIFEST ".tmpXy12Zw");
  put(dir, BP_FILE_SUMMARY ".tmp-mine.txt");
  put(dir, BP_FILE_FOLDED);
  put(dir, BP_FILE_OFFCPU_FOLDED);
  put(dir, "mine.txt");
  CHECK(bpi_rundir_clear(dir, &err) == BP_OK);
  CHECK(!there(dir, "BM_b"));
  CHECK(!there(dir, "BM_a/m1"));
  CHECK(!there(dir, "BM_a/" BP_FILE_SVG));
  CHECK(!there(dir, "BM_a/" BP_RUNDIR_BENCH_DIRS));
  CHECK(!there(dir, "BM_a/m2/" BP_FILE_FOLDED));
  CHECK(there(dir, "BM_a/m2/mine.txt"));
  CHECK(!there(dir, BP_FILE_FOLDED));
  CHECK(!there(dir, BP_FILE_OFFCPU_FOLDED));
  CHECK(!there(dir, BP_RUNDIR_BENCH_DIRS));
  CHECK(there(dir, "mine.txt"));
  CHECK(!there(dir, BP_RUNDIR_MANIFEST ".tmpXy12Zw"));
  CHECK(there(dir, BP_FILE_SUMMARY ".tmp-mine.txt"));

  /* a manifest that lists artifacts at the top of its run directory (a
   * run of an older benchprof noted no "."): benchprof's artifacts there
   * go, not a file of another name it lists, nor one outside */
  char run[128];
  snprintf(run, sizeof(run), "%s/run", dir);
  put(run, BP_FILE_PPROF);
  put(run, BP_FILE_SVG);
  put(run, "mine.txt");
  put(dir, BP_FILE_PPROF);
  struct bp_manifest_artifact arts[] = {
    {.file = (char *)BP_FILE_PPROF, .kind = (char *)BP_KIND_PPROF,
     .bytes = 1},
    {.file = (char *)"../" BP_FILE_PPROF, .kind = (char *)BP_KIND_PPROF,
     .bytes = 1},
    {.file = (char *)"mine.txt", .kind = (char *)BP_KIND_SUMMARY,
     .bytes = 1},
  };
  struct bp_manifest m = {.arts = arts, .narts = 3};
  CHECK(bpi_manifest_write(&m, run, &err) == BP_OK);
  CHECK(bpi_rundir_clear(run, &err) == BP_OK);
  CHECK(!there(run, BP_FILE_PPROF));
  CHECK(!there(run, BP_FILE_SVG));
  CHECK(!there(run, BP_RUNDIR_MANIFEST));
  CHECK(there(run, "mine.txt"));   /* only benchprof's names go */
  CHECK(there(dir, BP_FILE_PPROF));
  CHECK(there(dir, "mine.txt"));
  char cmd[256];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
}

static void test_safe_path(void)
{
  CHECK(bpi_rundir_safe_path("."));
  CHECK(bpi_rundir_safe_path("a/b.json"));
  CHECK(!bpi_rundir_safe_path(NULL));
  CHECK(!bpi_rundir_safe_path(""));
  CHECK(!bpi_rundir_safe_path("/etc/passwd"));
  CHECK(!bpi_rundir_safe_path("../x"));
  CHECK(!bpi_rundir_safe_path("a/../x"));
  CHECK(!bpi_rundir_safe_path("a//x"));
  CHECK(!bpi_rundir_safe_path("a/./x"));
  CHECK(!bpi_rundir_safe_path("a/"));
}

/* entries added one by one, and parsed ones, are found by name (the
 * first of a name), across the array's moves */
static void test_bench_lookup(void)
{
  struct bp_manifest m = {.exit_status = 0};
  for(int i = 0; i < 300; i++) {
    char name[16];
    snprintf(name, sizeof(name), "x%d", i);
    CHECK(bpi_manifest_add_bench(&m, name, name) != NULL);
  }
  CHECK(bpi_manifest_bench(&m, "x0") == &m.benches[0]);
  CHECK(bpi_manifest_bench(&m, "x299") == &m.benches[299]);
  CHECK(bpi_manifest_bench(&m, "x300") == NULL);
  bpi_manifest_cleanup(&m);
  const char *twice = "{\"benchmarks\": [{\"name\": \"a\", \"profile\": \"p1\"},"
                      " {\"name\": \"a\", \"profile\": \"p2\"}]}";
  struct bp_err err = {0};
  CHECK(bpi_manifest_parse(&m, twice, strlen(twice), "t", &err) == BP_OK);
  const struct bp_manifest_bench *a = bpi_manifest_bench(&m, "a");
  CHECK_EQ_STR(a ? a->profile : NULL, "p1");
  bpi_manifest_cleanup(&m);
}

/* dir's manifest.json holds exactly what bpi_manifest_print prints of m */
static bool file_is_print_of(const char *dir, const struct bp_manifest *m)
{
  struct bp_err err = {0};
  struct bp_buf want;
  char *path = bpi_text_path_join(dir, BP_RUNDIR_MANIFEST), *text = NULL;
  size_t len = 0;
  bpi_buf_init(&want);
  bool same = path && bpi_file_read(path, &text, &len, &err) == BP_OK &&
              bpi_manifest_print(m, &want, &err) == BP_OK &&
              want.len == len && !memcmp(want.data, text, len);
  bpi_buf_cleanup(&want);
  free(text);
  free(path);
  return same;
}

/* The publication written into a manifest on its own gives the bytes the
 * whole manifest printed with it gives: added last, added before the
 * stored report (results), replaced in either place; a benchmark named
 * like the member and strings with newlines and tabs do not confuse it;
 * a file not laid out as benchprof writes it is refused, left as it is. */
static void test_write_publication(void)
{
  char dir[] = "/tmp/test_rundir_pub.XXXXXX";
  struct bp_err err = {0};
  struct bp_manifest m;
  CHECK(mkdtemp(dir) != NULL);
  CHECK(bpi_manifest_parse(&m, manifest, strlen(manifest), "t", &err) ==
        BP_OK);
  CHECK(bpi_manifest_add_bench(&m, "publication", "p") != NULL);
  CHECK(bpi_manifest_add_bench(&m, "x\n\t\"publication\":\ty", "q") != NULL);
  cJSON *results = m.results, *stored_pub = m.publication;
  cJSON *pubs[2] = {
    cJSON_Parse("{\"state\": \"delivered\", \"nested\": {\"a\": {\"b\": "
                "[1, 2, {}]}}, \"empty\": {}, \"list\": [], \"text\": "
                "\"line\\nnext\\t\\\"q\\\"\", \"n\": null}"),
    cJSON_Parse("{\"state\": \"spooled\", \"error\": \"x\"}")};
  CHECK(pubs[0] && pubs[1]);
  for(int with_results = 0; with_results < 2; with_results++) {
    m.results = with_results ? results : NULL;
    m.publication = NULL;
    CHECK(bpi_manifest_write(&m, dir, &err) == BP_OK);
    for(int k = 0; k < 2; k++) {   /* added, then replaced */
      CHECK(bpi_manifest_write_publication(dir, pubs[k], &err) == BP_OK);
      m.publication = pubs[k];
      CHECK(file_is_print_of(dir, &m));
    }
  }
  /* compact JSON is not benchprof's layout: refused, untouched */
  char *path = bpi_text_path_join(dir, BP_RUNDIR_MANIFEST), *text = NULL;
  const char compact[] = "{\"publication\": {}, \"a\": 1}\n";
  CHECK(bpi_file_write(path, compact, strlen(compact), false, &err) == BP_OK);
  err = (struct bp_err){0};
  CHECK(bpi_manifest_write_publication(dir, pubs[1], &err) == BPE_FORMAT);
  CHECK(strstr(err.msg, "manifest.json") != NULL);
  size_t len = 0;
  CHECK(bpi_file_read(path, &text, &len, &err) == BP_OK);
  CHECK(text && len == strlen(compact) && !memcmp(text, compact, len));
  free(text);
  free(path);
  m.publication = stored_pub;
  m.results = results;
  cJSON_Delete(pubs[0]);
  cJSON_Delete(pubs[1]);
  bpi_manifest_cleanup(&m);
  char cmd[256];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
}

int main(void)
{
  test_round_trip();
  test_write_publication();
  test_bad();
  test_no_exit_status();
  test_dir();
  test_noted_dirs();
  test_nested_dirs();
  test_safe_path();
  test_bench_lookup();
  CHECK_EQ_STR(bpi_rundir_kind("gecko"), BP_KIND_GECKO);
  CHECK_EQ_STR(bpi_rundir_kind("other"), "other");
  return check_exit();
}
