/* rundir: manifest.json's one parser and one writer, and the artifacts'
 * sizes and hashes (see rundir.h).  cJSON both ways: the manifest is a
 * small document. */
#include "bp_setup.h"
#include "rundir.h"
#include "err.h"
#include "export.h"
#include "fileio.h"
#include "sha256.h"
#include "text.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const bpi_rundir_reserved_names[] = {
  BP_FILE_GECKO, BP_FILE_PPROF, BP_FILE_FOLDED, BP_FILE_SVG,
  BP_FILE_SUMMARY, BP_FILE_OFFCPU_FOLDED, BP_FILE_OFFCPU_SVG,
  BP_RUNDIR_REPORT, BP_RUNDIR_MANIFEST, BP_RUNDIR_RAW,
  BP_RUNDIR_COMPARE,  /* a benchmark named "compare" goes to compare-2 */
  BP_RUNDIR_BENCH_DIRS,
  NULL,
};

const char *bpi_rundir_kind(const char *exporter_name)
{
  static const char *const kinds[][2] = {
    {"gecko", BP_KIND_GECKO}, {"pprof", BP_KIND_PPROF},
    {"folded", BP_KIND_FOLDED}, {"svg", BP_KIND_SVG},
    {"summary", BP_KIND_SUMMARY},
    {"offcpu-folded", BP_KIND_OFFCPU_FOLDED}, {"offcpu-svg", BP_KIND_OFFCPU_SVG},
  };
  for(size_t i = 0; i < BP_ARRAY_LEN(kinds); i++)
    if(!strcmp(exporter_name, kinds[i][0]))
      return kinds[i][1];
  return exporter_name;
}

const char *bpi_rundir_signal_name(int sig)
{
  /* the signals benchprof passes on and counts as an interruption
   * (child.c); their names are fixed, unlike strsignal's text */
  static const struct { int sig; const char *name; } names[] = {
    {SIGINT, "SIGINT"}, {SIGTERM, "SIGTERM"}, {SIGHUP, "SIGHUP"},
    {SIGQUIT, "SIGQUIT"},
  };
  for(size_t i = 0; i < BP_ARRAY_LEN(names); i++)
    if(names[i].sig == sig)
      return names[i].name;
  return NULL;
}

bool bpi_rundir_safe_path(const char *d)
{
  if(!d || !*d || *d == '/')
    return false;
  if(!strcmp(d, "."))
    return true;
  for(const char *p = d; *p;) {
    size_t n = strcspn(p, "/");
    if(!n || (n == 1 && p[0] == '.') || (n == 2 && !strncmp(p, "..", 2)))
      return false;
    p += n;
    if(*p)
      p++;
  }
  return d[strlen(d) - 1] != '/';
}

/* ------------------------------------------------------------ cleanup */

static void arts_free(struct bp_manifest_artifact *a, size_t n)
{
  for(size_t i = 0; i < n; i++) {
    free(a[i].file);
    free(a[i].kind);
    free(a[i].sha256);
    free(a[i].key);
    free(a[i].url);
    free(a[i].firefox_url);
  }
  free(a);
}

void bpi_manifest_cleanup(struct bp_manifest *m)
{
  for(size_t i = 0; i < m->nbenches; i++) {
    struct bp_manifest_bench *b = &m->benches[i];
    free(b->name);
    free(b->profile);
    cJSON_Delete(b->counters);
    cJSON_Delete(b->bencher);
    cJSON_Delete(b->repetitions);
    arts_free(b->arts, b->narts);
  }
  free(m->benches);
  bpi_name_index_cleanup(&m->bench_index);
  arts_free(m->arts, m->narts);
  free(m->version);
  free(m->command);
  free(m->outcome);
  free(m->signal);
  free(m->report);
  free(m->event_requested);
  free(m->event_used);
  free(m->fallback_reason);
  cJSON_Delete(m->counters);
  cJSON_Delete(m->publication);
  cJSON_Delete(m->results);
  memset(m, 0, sizeof(*m));
}

/* ------------------------------------------------------------ parsing */

/* A copy of obj's string name; *ok false when out of memory. */
static char *str_of(const cJSON *obj, const char *name, bool *ok)
{
  const char *v = bpi_json_str(obj, name);
  if(!v)
    return NULL;
  char *s = strdup(v);
  if(!s)
    *ok = false;
  return s;
}

static bool has(const cJSON *obj, const char *name)
{
  return cJSON_GetObjectItemCaseSensitive(obj, name) != NULL;
}

static double num_of(const cJSON *obj, const char *name)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
  return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : 0;
}

static uint64_t count_of(const cJSON *obj, const char *name)
{
  double d = num_of(obj, name);
  return d <= 0 ? 0 : d >= 18446744073709551615.0 ? UINT64_MAX
                                                    : (uint64_t)d;
}

static int int_of(const cJSON *obj, const char *name)
{
  double d = num_of(obj, name);
  return d <= INT_MIN ? INT_MIN : d >= INT_MAX ? INT_MAX : (int)d;
}

/* The subtree under name (any type), taken out of obj, or NULL (the
 * parsed document is freed after parsing: taking it costs nothing, where
 * a copy cost time and memory for a suite of thousands of benchmarks). */
static cJSON *tree_of(cJSON *obj, const char *name)
{
  return cJSON_IsObject(obj) ? cJSON_DetachItemFromObjectCaseSensitive(obj,
                                                                       name)
                             : NULL;
}

static size_t count_items(const cJSON *arr)
{
  size_t n = 0;
  const cJSON *x;
  cJSON_ArrayForEach(x, arr)
    n++;
  return n;
}

static bool parse_arts(const cJSON *arr, struct bp_manifest_artifact **out,
                       size_t *n)
{
  bool ok = true;
  size_t cap = count_items(arr);
  *n = 0;
  *out = cap ? calloc(cap, sizeof(**out)) : NULL;
  if(cap && !*out)
    return false;
  const cJSON *a;
  cJSON_ArrayForEach(a, arr) {
    struct bp_manifest_artifact *t = &(*out)[(*n)++];
    t->file = str_of(a, "file", &ok);
    t->kind = str_of(a, "kind", &ok);
    t->bytes = has(a, "bytes") ? (int64_t)num_of(a, "bytes") : -1;
    t->sha256 = str_of(a, "sha256", &ok);
    t->key = str_of(a, "key", &ok);
    t->url = str_of(a, "url", &ok);
    t->firefox_url = str_of(a, "firefox_url", &ok);
  }
  return ok;
}

static bool parse_bench(cJSON *b, struct bp_manifest_bench *t)
{
  bool ok = true;
  t->name = str_of(b, "name", &ok);
  t->profile = str_of(b, "profile", &ok);
  if(has(b, "runs")) {
    t->facts = BP_FACTS_MARKED;
    t->runs = count_of(b, "runs");
    t->lost = count_of(b, "lost_in_run");
  }
  else if(has(b, "exit_status")) {
    t->facts = BP_FACTS_OWN;
    t->exit_status = int_of(b, "exit_status");
    t->lost = count_of(b, "lost");
  }
  t->samples = count_of(b, "samples");
  t->counters = tree_of(b, "counters");
  t->bencher = tree_of(b, "bencher");
  t->repetitions = tree_of(b, "repetitions");
  double it = has(b, "iterations") ? num_of(b, "iterations") : 0;
  t->iterations = isfinite(it) && it > 0 ? it : 0;
  double ns = has(b, "iteration_cpu_ns") ? num_of(b, "iteration_cpu_ns") : 0;
  t->iteration_cpu_ns = isfinite(ns) && ns > 0 ? ns : 0;
  return parse_arts(cJSON_GetObjectItemCaseSensitive(b, "artifacts"),
                    &t->arts, &t->narts) && ok;
}

static bool parse_tree(struct bp_manifest *m, cJSON *j)
{
  bool ok = true;
  const cJSON *ev = cJSON_GetObjectItemCaseSensitive(j, "event");
  m->version = str_of(j, "benchprof_version", &ok);
  m->command = str_of(j, "command", &ok);
  m->has_exit_status = cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(
                                        j, "exit_status"));
  m->exit_status = int_of(j, "exit_status");
  m->outcome = str_of(j, "outcome", &ok);
  m->signal = str_of(j, "signal", &ok);
  m->report = str_of(j, "report", &ok);
  m->event_requested = str_of(ev, "requested", &ok);
  m->event_used = str_of(ev, "used", &ok);
  m->fallback_reason = str_of(ev, "fallback_reason", &ok);
  m->repeat = count_of(j, "repeat");
  m->has_facts = has(j, "samples");
  m->samples = count_of(j, "samples");
  m->lost = count_of(j, "lost");
  m->counters = tree_of(j, "counters");
  m->publication = tree_of(j, "publication");
  m->results = tree_of(j, "results");
  if(!parse_arts(cJSON_GetObjectItemCaseSensitive(j, "artifacts"), &m->arts,
                 &m->narts))
    return false;
  const cJSON *benches = cJSON_GetObjectItemCaseSensitive(j, "benchmarks");
  size_t cap = count_items(benches);
  m->benches = cap ? calloc(cap, sizeof(*m->benches)) : NULL;
  if(cap && !m->benches)
    return false;
  m->benches_cap = cap;
  cJSON *b;
  cJSON_ArrayForEach(b, benches)
    ok = parse_bench(b, &m->benches[m->nbenches++]) && ok;
  for(size_t i = 0; ok && i < m->nbenches; i++)
    ok = !m->benches[i].name ||
         !bpi_name_index_add(&m->bench_index, m->benches[i].name,
                             (uint32_t)i);
  return ok;
}

bp_code bpi_manifest_parse(struct bp_manifest *m, const char *text,
                           size_t len, const char *label,
                           struct bp_err *err)
{
  memset(m, 0, sizeof(*m));
  cJSON *j = cJSON_ParseWithLength(text, len);
  if(!j) {
    const char *at = cJSON_GetErrorPtr();
    return bpi_err_set(err, BPE_FORMAT, 0, "%s: not valid JSON (at byte "
                       "%zu)", label, at && at >= text && at <= text + len
                                          ? (size_t)(at - text) : (size_t)0);
  }
  bool ok = parse_tree(m, j);
  cJSON_Delete(j);
  if(!ok) {
    bpi_manifest_cleanup(m);
    return bpi_err_set(err, BPE_NOMEM, 0, "%s", label);
  }
  return BP_OK;
}

bp_code bpi_manifest_read(struct bp_manifest *m, const char *dir,
                          struct bp_err *err)
{
  char *path = bpi_text_path_join(dir, BP_RUNDIR_MANIFEST), *text = NULL;
  size_t len = 0;
  memset(m, 0, sizeof(*m));
  bp_code rc = path ? bpi_file_read(path, &text, &len, err)
                    : bpi_err_set(err, BPE_NOMEM, 0, "manifest path");
  if(!rc)
    rc = bpi_manifest_parse(m, text, len, path, err);
  free(text);
  free(path);
  return rc;
}

/* ------------------------------------------------------------ writing */

static void add_str(cJSON *o, const char *name, const char *value)
{
  if(value)
    cJSON_AddStringToObject(o, name, value);
  else
    cJSON_AddNullToObject(o, name);
}

/* t by reference: the tree printed is freed right after, and t stays
 * the manifest's (cJSON_Delete leaves a reference's children alone) */
static void add_tree(cJSON *o, const char *name, const cJSON *t)
{
  if(t)
    cJSON_AddItemReferenceToObject(o, name, (cJSON *)t);
}

static void add_arts(cJSON *o, const struct bp_manifest_artifact *a,
                     size_t n)
{
  cJSON *arr = cJSON_AddArrayToObject(o, "artifacts");
  for(size_t i = 0; arr && i < n; i++) {
    cJSON *x = cJSON_CreateObject();
    add_str(x, "file", a[i].file);
    add_str(x, "kind", a[i].kind);
    if(a[i].bytes >= 0)
      cJSON_AddNumberToObject(x, "bytes", (double)a[i].bytes);
    if(a[i].sha256)
      cJSON_AddStringToObject(x, "sha256", a[i].sha256);
    if(a[i].key)
      cJSON_AddStringToObject(x, "key", a[i].key);
    if(a[i].key || a[i].url)
      add_str(x, "url", a[i].url);
    if(a[i].firefox_url)
      cJSON_AddStringToObject(x, "firefox_url", a[i].firefox_url);
    cJSON_AddItemToArray(arr, x);
  }
}

static void add_bench(cJSON *arr, const struct bp_manifest_bench *b)
{
  cJSON *x = cJSON_CreateObject();
  add_str(x, "name", b->name);
  add_str(x, "profile", b->profile);
  if(b->facts == BP_FACTS_OWN) {
    cJSON_AddNumberToObject(x, "exit_status", b->exit_status);
    cJSON_AddNumberToObject(x, "samples", (double)b->samples);
    cJSON_AddNumberToObject(x, "lost", (double)b->lost);
  }
  else if(b->facts == BP_FACTS_MARKED) {
    cJSON_AddNumberToObject(x, "runs", (double)b->runs);
    cJSON_AddNumberToObject(x, "samples", (double)b->samples);
    cJSON_AddNumberToObject(x, "lost_in_run", (double)b->lost);
  }
  add_tree(x, "counters", b->counters);
  add_tree(x, "repetitions", b->repetitions);
  if(b->iterations > 0)
    cJSON_AddNumberToObject(x, "iterations", b->iterations);
  if(b->iteration_cpu_ns > 0)
    cJSON_AddNumberToObject(x, "iteration_cpu_ns", b->iteration_cpu_ns);
  add_arts(x, b->arts, b->narts);
  add_tree(x, "bencher", b->bencher);
  cJSON_AddItemToArray(arr, x);
}

/* about what one benchmark takes in manifest.json (its counters and
 * five artifacts, indented; a stored one's keys and URLs make it about
 * 3.5 KB), with room to spare: the text is printed straight into the
 * output buffer, and a guess too small costs a second print */
#define PRINT_BYTES_PER_BENCH 4096

static cJSON *to_tree(const struct bp_manifest *m)
{
  cJSON *j = cJSON_CreateObject();
  add_str(j, "benchprof_version", m->version);
  add_str(j, "command", m->command);
  if(m->has_exit_status)
    cJSON_AddNumberToObject(j, "exit_status", m->exit_status);
  add_str(j, "outcome", m->outcome);
  add_str(j, "signal", m->signal);
  add_str(j, "report", m->report);
  if(m->repeat)
    cJSON_AddNumberToObject(j, "repeat", (double)m->repeat);
  cJSON *ev = cJSON_AddObjectToObject(j, "event");
  add_str(ev, "requested", m->event_requested);
  add_str(ev, "used", m->event_used);
  cJSON_AddBoolToObject(ev, "fallback", m->fallback_reason != NULL);
  add_str(ev, "fallback_reason", m->fallback_reason);
  if(m->has_facts) {
    cJSON_AddNumberToObject(j, "samples", (double)m->samples);
    cJSON_AddNumberToObject(j, "lost", (double)m->lost);
  }
  add_tree(j, "counters", m->counters);
  add_arts(j, m->arts, m->narts);
  cJSON *arr = cJSON_AddArrayToObject(j, "benchmarks");
  for(size_t i = 0; arr && i < m->nbenches; i++)
    add_bench(arr, &m->benches[i]);
  add_tree(j, "publication", m->publication);
  add_tree(j, "results", m->results);
  return j;
}

/* The tree's text at the end of out, printed in place (cJSON's own
 * buffer, grown by doubling and then copied, moved a suite's tens of
 * megabytes several times, into fresh pages each time). */
static bool print_into(const cJSON *j, size_t guess, struct bp_buf *out)
{
  /* cJSON takes an int length, and asks for 5 bytes more than the text */
  const size_t most = (size_t)INT_MAX - 5;
  for(size_t room = guess < most ? guess : most;; room *= 2) {
    if(room > most)
      room = most;
    if(!bpi_buf_reserve(out, room + 5))
      return false;
    char *at = out->data + out->len;
    if(cJSON_PrintPreallocated((cJSON *)j, at, (int)(room + 5), 1)) {
      out->len += strlen(at);
      return true;
    }
    if(room == most)
      return false;
  }
}

bp_code bpi_manifest_print(const struct bp_manifest *m, struct bp_buf *out,
                           struct bp_err *err)
{
  cJSON *j = to_tree(m);
  size_t guess = 65536 + m->nbenches * PRINT_BYTES_PER_BENCH;
  bool ok = j && print_into(j, guess, out);
  cJSON_Delete(j);
  if(ok) {
    bpi_buf_addc(out, '\n');
    bpi_buf_addc(out, '\0');
    out->len--;
  }
  if(!ok || bpi_buf_failed(out))
    return bpi_err_set(err, BPE_NOMEM, 0, "manifest");
  return BP_OK;
}

bp_code bpi_manifest_write(const struct bp_manifest *m, const char *dir,
                           struct bp_err *err)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  char *path = bpi_text_path_join(dir, BP_RUNDIR_MANIFEST);
  bp_code rc = path ? bpi_manifest_print(m, &b, err)
                    : bpi_err_set(err, BPE_NOMEM, 0, "manifest path");
  if(!rc)
    rc = bpi_file_write(path, b.data, b.len, false, err);
  free(path);
  bpi_buf_cleanup(&b);
  return rc;
}

/* cJSON's formatted text puts each member of the top-level object on a
 * line of its own after one tab; anything nested is indented further,
 * and a string never holds a raw newline: "\n\t\"name\":\t" can only
 * start a top-level member. */
#define TOP_MEMBER(name) "\n\t\"" name "\":\t"

/* Where the one top-level member key starts in text (its "\n"), NULL
 * when there is none; *twice when there are more. */
static const char *top_member(const char *text, size_t len,
                              const char *key, size_t key_len, bool *twice)
{
  const char *at = NULL;
  for(const char *p = text; (p = memmem(p, len - (size_t)(p - text), key,
                                        key_len)); p++) {
    *twice = at != NULL;
    if(*twice)
      return NULL;
    at = p;
  }
  return at;
}

/* Where the top-level publication's text goes in text: [*from, *to) is
 * replaced by it; *member: a new member is inserted there (with a comma
 * after it when *comma_after) rather than a value replaced; false when
 * text is not laid out as to_tree and cJSON lay it out.  to_tree puts
 * publication after the benchmarks and before results. */
static bool publication_span(const char *text, size_t len, size_t *from,
                             size_t *to, bool *member, bool *comma_after)
{
  const char key[] = TOP_MEMBER("publication"), res[] = TOP_MEMBER("results");
  bool twice = false;
  if(len < 4 || text[0] != '{' || memcmp(text + len - 3, "\n}\n", 3))
    return false;
  const char *at = top_member(text, len, key, sizeof(key) - 1, &twice);
  const char *results = twice ? NULL : top_member(text, len, res,
                                                 sizeof(res) - 1, &twice);
  if(twice || (at && results && results < at))
    return false;
  *member = !at;
  *comma_after = false;
  if(!at) {  /* a new member: before results, else last */
    *comma_after = results != NULL;
    *from = *to = results ? (size_t)(results - text) : len - 3;
    return !results || results[-1] == ',';
  }
  *from = (size_t)(at - text) + sizeof(key) - 1;
  /* the value ends at the next top-level member's comma, else before the
   * object's end */
  const char next[] = "\n\t\"";
  const char *end = memmem(text + *from, len - *from, next, sizeof(next) - 1);
  if(end && end[-1] != ',')
    return false;
  *to = end ? (size_t)(end - text) - 1 : len - 3;
  return *to > *from;
}

/* v printed as a top-level member's value: one tab deeper than alone */
static bool print_member_value(const cJSON *v, struct bp_buf *out)
{
  char *text = cJSON_Print(v);
  if(!text)
    return false;
  for(const char *p = text; *p; p++) {
    bpi_buf_addc(out, *p);
    if(*p == '\n')
      bpi_buf_addc(out, '\t');
  }
  free(text);
  return !bpi_buf_failed(out);
}

bp_code bpi_manifest_write_publication(const char *dir,
                                       const cJSON *publication,
                                       struct bp_err *err)
{
  char *path = bpi_text_path_join(dir, BP_RUNDIR_MANIFEST), *text = NULL;
  size_t len = 0, from = 0, to = 0;
  bool member = false, comma_after = false;
  struct bp_buf out;
  bpi_buf_init(&out);
  bp_code rc = path ? bpi_file_read(path, &text, &len, err)
                    : bpi_err_set(err, BPE_NOMEM, 0, "manifest path");
  if(!rc && !publication_span(text, len, &from, &to, &member, &comma_after))
    rc = bpi_err_set(err, BPE_FORMAT, 0, "%s: not laid out as benchprof "
                     "writes it", path);
  if(!rc) {
    bpi_buf_add(&out, text, from);
    /* a new member after the one before it (whose comma is there when
     * results follows, else added) */
    if(member && !comma_after)
      bpi_buf_addc(&out, ',');
    if(member)
      bpi_buf_adds(&out, TOP_MEMBER("publication"));
    if(!print_member_value(publication, &out))
      rc = bpi_err_set(err, BPE_NOMEM, 0, "manifest");
    if(member && comma_after)
      bpi_buf_addc(&out, ',');
    bpi_buf_add(&out, text + to, len - to);
    if(!rc && bpi_buf_failed(&out))
      rc = bpi_err_set(err, BPE_NOMEM, 0, "manifest");
  }
  if(!rc)
    rc = bpi_file_write(path, out.data, out.len, false, err);
  bpi_buf_cleanup(&out);
  free(text);
  free(path);
  return rc;
}

/* ------------------------------------------------------------ helpers */

struct bp_manifest_bench *bpi_manifest_add_bench(struct bp_manifest *m,
                                                 const char *name,
                                                 const char *profile)
{
  if(m->nbenches == m->benches_cap) {
    /* doubling: a run adds its benchmarks one by one, 10,000 of them in
     * a large suite */
    size_t cap = m->benches_cap ? m->benches_cap * 2 : 16;
    struct bp_manifest_bench *grown = realloc(m->benches,
                                              cap * sizeof(*grown));
    if(!grown)
      return NULL;
    m->benches = grown;
    m->benches_cap = cap;
  }
  struct bp_manifest_bench *b = &m->benches[m->nbenches];
  memset(b, 0, sizeof(*b));
  b->name = strdup(name);
  b->profile = strdup(profile);
  if(!b->name || !b->profile ||
     bpi_name_index_add(&m->bench_index, name, (uint32_t)m->nbenches)) {
    free(b->name);
    free(b->profile);
    return NULL;
  }
  m->nbenches++;
  return b;
}

const struct bp_manifest_bench *
bpi_manifest_bench(const struct bp_manifest *m, const char *name)
{
  uint32_t i = bpi_name_index_find(&m->bench_index, name);
  return i == BP_NONE ? NULL : &m->benches[i];
}

const struct bp_manifest_artifact *
bpi_manifest_artifact(const struct bp_manifest_artifact *arts, size_t n,
                      const char *kind)
{
  for(size_t i = 0; i < n; i++)
    if(arts[i].kind && !strcmp(arts[i].kind, kind))
      return &arts[i];
  return NULL;
}

/* An artifact's file name relative to the run directory: sub's. */
static char *artifact_file(const char *sub, const char *file)
{
  return strcmp(sub, ".") ? bpi_text_path_join(sub, file) : strdup(file);
}

/* Whether file (relative to dir) is there. */
static bool exists(const char *dir, const char *file)
{
  struct stat st;
  char *path = bpi_text_path_join(dir, file);
  bool there = path && !lstat(path, &st);
  free(path);
  return there;
}

/* One artifact: its size and hash; file relative to dir. */
static bp_code measure(const char *dir, char *file, const char *kind,
                       struct bp_manifest_artifact *a, struct bp_err *err)
{
  char hex[2 * BP_SHA256_LEN + 1];
  struct stat st;
  char *path = bpi_text_path_join(dir, file);
  bp_code rc = path ? BP_OK : bpi_err_set(err, BPE_NOMEM, 0, "path");
  if(!rc && stat(path, &st))
    rc = bpi_err_set(err, BPE_IO, errno, "cannot stat '%s'", path);
  if(!rc)
    rc = bpi_sha256_file(path, hex, err);
  free(path);
  a->file = file;
  a->bytes = rc ? -1 : (int64_t)st.st_size;
  a->kind = strdup(kind);
  a->sha256 = rc ? NULL : strdup(hex);
  if(!rc && (!a->kind || !a->sha256))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "manifest");
  return rc;
}

bp_code bpi_manifest_artifacts(const char *dir, const char *sub,
                               struct bp_manifest_artifact **arts,
                               size_t *n, struct bp_err *err)
{
  size_t count = 0;
  while(bpi_exporters[count])
    count++;
  *n = 0;
  *arts = calloc(count, sizeof(**arts));
  if(!*arts)
    return bpi_err_set(err, BPE_NOMEM, 0, "manifest");
  bp_code rc = BP_OK;
  for(size_t i = 0; !rc && i < count; i++) {
    const struct bp_exporter *e = bpi_exporters[i];
    char *file = artifact_file(sub, e->file);
    if(!file)
      return bpi_err_set(err, BPE_NOMEM, 0, "manifest");
    if(e->wanted && !exists(dir, file)) {
      free(file);  /* an artifact of some profiles only (--off-cpu) */
      continue;
    }
    rc = measure(dir, file, bpi_rundir_kind(e->name), &(*arts)[(*n)++],
                 err);
  }
  return rc;
}

bp_code bpi_manifest_artifacts_written(const char *sub,
                                       const struct bp_export_record *w,
                                       struct bp_manifest_artifact **arts,
                                       size_t *n, struct bp_err *err)
{
  *n = 0;
  *arts = calloc(w->n ? w->n : 1, sizeof(**arts));
  if(!*arts)
    return bpi_err_set(err, BPE_NOMEM, 0, "manifest");
  for(size_t i = 0; i < w->n; i++) {
    const struct bp_export_written *x = &w->files[i];
    struct bp_manifest_artifact *a = &(*arts)[(*n)++];
    a->file = artifact_file(sub, x->exporter->file);
    a->kind = strdup(bpi_rundir_kind(x->exporter->name));
    a->bytes = (int64_t)x->digest.bytes;
    a->sha256 = malloc(2 * BP_SHA256_LEN + 1);
    if(!a->file || !a->kind || !a->sha256)
      return bpi_err_set(err, BPE_NOMEM, 0, "manifest");
    bpi_hex_encode(x->digest.sha256, BP_SHA256_LEN, a->sha256);
  }
  return BP_OK;
}

/* ------------------------------------------------------------ publication */

const char *bpi_manifest_pub_str(const struct bp_manifest *m,
                                 const char *name)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(m->publication, name);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

const char *bpi_manifest_ident_str(const struct bp_manifest *m,
                                   const char *name)
{
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(m->publication,
                                                     "identity");
  return bpi_json_str(id, name);
}

bool bpi_manifest_delivered(const struct bp_manifest *m)
{
  const char *state = bpi_manifest_pub_str(m, "state");
  return state && !strcmp(state, "delivered");
}

char *bpi_rundir_suite_dir(const char *output, const char *suite)
{
  struct bp_buf name;
  bpi_buf_init(&name);
  bpi_buf_adds(&name, BP_RUNDIR_SUITE_PREFIX);
  bpi_buf_adds(&name, suite);
  bpi_buf_addc(&name, '\0');
  char *dir = bpi_buf_failed(&name) ? NULL
                                    : bpi_text_path_join(output, name.data);
  bpi_buf_cleanup(&name);
  return dir;
}

/* ------------------------------------------------------------ clearing */

/* nftw's callback: the first path that could not be removed, and why. */
static char clear_failed[PATH_MAX];
static int clear_errno;

static int remove_one(const char *path, const struct stat *st, int type,
                      struct FTW *ftw)
{
  (void)st;
  (void)ftw;
  int rc = type == FTW_DP ? rmdir(path) : unlink(path);
  if(rc && errno != ENOENT && !clear_errno) {
    clear_errno = errno;
    snprintf(clear_failed, sizeof(clear_failed), "%s", path);
  }
  return 0;  /* go on: remove as much as possible */
}

/* unlink dir/name; a file that is not there, or a directory, is left */
static void unlink_in(const char *dir, const char *name)
{
  char *path = bpi_text_path_join(dir, name);
  if(path)
    unlink(path);
  free(path);
}

/* The temporary files of benchprof's writes in sub (bpi_file_is_temp_of
 * one of its file names) that a killed run left: a file being written,
 * or the new one about to replace an older. */
static void unlink_temps(const char *sub)
{
  int fd = open(sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  DIR *d = fd < 0 ? NULL : fdopendir(fd);
  if(!d) {
    if(fd >= 0)
      close(fd);
    return;
  }
  for(struct dirent *e; (e = readdir(d));)
    for(const char *const *n = bpi_rundir_reserved_names; *n; n++)
      if(bpi_file_is_temp_of(e->d_name, *n)) {
        unlinkat(fd, e->d_name, 0);
        break;
      }
  closedir(d);
}

/* The artifacts of arts that lie directly in sub, the directory prof of
 * the run directory, unlinked: a listed name that would lead elsewhere
 * is left. */
static void unlink_listed(const char *sub, const char *prof,
                          const struct bp_manifest_artifact *arts, size_t n)
{
  size_t plen = strlen(prof);
  for(size_t i = 0; i < n; i++) {
    const char *f = arts[i].file;
    if(f && !strncmp(f, prof, plen) && f[plen] == '/' &&
       bpi_rundir_safe_path(f + plen + 1) && !strchr(f + plen + 1, '/'))
      unlink_in(sub, f + plen + 1);
  }
}

/* How deep benchmark directories nest below a run directory: those of
 * the run (marked by the harness, or one of --each), and those the
 * harness marked inside one of --each's (DIR/BM_a/<mark>/, noted in
 * DIR/BM_a/BP_RUNDIR_BENCH_DIRS).  A note deeper down is none of
 * benchprof's, and is not followed. */
#define BENCH_DIR_DEPTH 2

static void clear_noted_benches(const char *dir, int depth);

/* A benchmark's directory a previous run's manifest lists (b->profile,
 * one segment below dir, a real directory, not a link), at depth (1:
 * directly in the run directory): first the benchmark directories
 * noted inside it (--each's benchmark whose harness marked benchmarks),
 * then the artifacts listed in it and benchprof's own file names in it
 * (its note among them), then the directory if it is empty.  Best
 * effort: what stays is a user's. */
static void clear_bench_dir(const char *dir,
                            const struct bp_manifest_bench *b, int depth)
{
  const char *prof = b->profile;
  if(!prof || !strcmp(prof, ".") || !bpi_rundir_safe_path(prof) ||
     strchr(prof, '/'))
    return;
  char *sub = bpi_text_path_join(dir, prof);
  struct stat st;
  if(!sub || lstat(sub, &st) || !S_ISDIR(st.st_mode)) {
    free(sub);
    return;
  }
  if(depth < BENCH_DIR_DEPTH)
    clear_noted_benches(sub, depth + 1);
  unlink_listed(sub, prof, b->arts, b->narts);
  for(const char *const *n = bpi_rundir_reserved_names; *n; n++)
    unlink_in(sub, *n);
  unlink_temps(sub);
  rmdir(sub);
  free(sub);
}

/* The artifacts a run wrote at the top of dir: every exporter's file
 * name there (a run that writes them notes "." first, and its manifest
 * lists them), never another file a manifest might name there. */
static void clear_own_artifacts(const char *dir)
{
  for(size_t i = 0; bpi_exporters[i]; i++)
    unlink_in(dir, bpi_exporters[i]->file);
}

/* The benchmarks' directories dir/name (a manifest) lists, and the
 * artifacts at the top of dir when it lists some, cleared; an unreadable
 * manifest lists none (what it named then stays). */
static void clear_benches(const char *dir, const char *name)
{
  char *path = bpi_text_path_join(dir, name), *text = NULL;
  size_t len = 0;
  struct bp_err err = {0};
  struct bp_manifest m;
  /* a failed parse has cleaned up after itself */
  if(path && !bpi_file_read(path, &text, &len, &err) &&
     !bpi_manifest_parse(&m, text, len, path, &err)) {
    for(size_t i = 0; i < m.nbenches; i++)
      clear_bench_dir(dir, &m.benches[i], 1);
    if(m.narts)
      clear_own_artifacts(dir);
    bpi_manifest_cleanup(&m);
  }
  free(text);
  free(path);
}

/* What dir/BP_RUNDIR_BENCH_DIRS names, cleared: each benchmark
 * directory as a manifest's are (no artifact list: benchprof's own file
 * names go), at depth; "." for the artifacts written at the top of dir. */
static void clear_noted_benches(const char *dir, int depth)
{
  char *path = bpi_text_path_join(dir, BP_RUNDIR_BENCH_DIRS), *text = NULL;
  size_t len = 0;
  struct bp_err err = {0};
  if(path && !bpi_file_read(path, &text, &len, &err)) {
    bool own = false;
    for(char *line = text, *next; line && *line; line = next) {
      next = strchr(line, '\n');
      if(next)
        *next++ = '\0';
      struct bp_manifest_bench b = {.profile = line};
      if(!strcmp(line, "."))
        own = true;
      else
        clear_bench_dir(dir, &b, depth);
    }
    if(own)
      clear_own_artifacts(dir);
  }
  free(text);
  free(path);
}

bp_code bpi_rundir_note_bench_dirs(const char *dir, const char *const *names,
                                   size_t n, struct bp_err *err)
{
  struct bp_buf lines;
  bpi_buf_init(&lines);
  for(size_t i = 0; i < n; i++) {
    bpi_buf_adds(&lines, names[i]);
    bpi_buf_addc(&lines, '\n');
  }
  char *path = bpi_text_path_join(dir, BP_RUNDIR_BENCH_DIRS);
  bp_code rc = BP_OK;
  if(!path || bpi_buf_failed(&lines))
    rc = bpi_err_set(err, BPE_NOMEM, 0, "%s", dir);
  int fd = rc || !n ? -1 : open(path, O_WRONLY | O_CREAT | O_APPEND |
                                          O_CLOEXEC | O_NOFOLLOW, 0644);
  if(!rc && n && (fd < 0 || write(fd, lines.data, lines.len) !=
                                (ssize_t)lines.len))
    rc = bpi_err_set(err, BPE_IO, errno, "writing %s", path);
  if(fd >= 0)
    close(fd);
  free(path);
  bpi_buf_cleanup(&lines);
  return rc;
}

bp_code bpi_rundir_clear(const char *dir, struct bp_err *err)
{
  static const char *const files[] = {BP_RUNDIR_MANIFEST, BP_RUNDIR_PREVIOUS,
                                      BP_RUNDIR_REPORT, BP_RUNDIR_RAW,
                                      BP_RUNDIR_BENCH_DIRS};
  bp_code rc = BP_OK;
  /* a new run shows only its own benchmarks: the previous run's
   * directories go before the manifests that name them */
  clear_benches(dir, BP_RUNDIR_MANIFEST);
  clear_benches(dir, BP_RUNDIR_PREVIOUS);
  clear_noted_benches(dir, 1);
  unlink_temps(dir);
  /* the manifest first: whatever stays behind, nothing points at it */
  for(size_t i = 0; !rc && i < BP_ARRAY_LEN(files); i++) {
    char *path = bpi_text_path_join(dir, files[i]);
    if(!path)
      return bpi_err_set(err, BPE_NOMEM, 0, "%s", dir);
    if(unlink(path) && errno != ENOENT)
      rc = bpi_err_set(err, BPE_IO, errno, "removing %s", path);
    free(path);
  }
  char *cmp = rc ? NULL : bpi_text_path_join(dir, BP_RUNDIR_COMPARE);
  if(!rc && !cmp)
    return bpi_err_set(err, BPE_NOMEM, 0, "%s", dir);
  struct stat st;
  if(cmp && !lstat(cmp, &st)) {
    clear_errno = 0;
    if(nftw(cmp, remove_one, 16, FTW_DEPTH | FTW_PHYS) || clear_errno) {
      int e = clear_errno ? clear_errno : errno;
      rc = bpi_err_set(err, BPE_IO, e, "removing %s",
                       clear_errno ? clear_failed : cmp);
    }
  }
  free(cmp);
  return rc;
}
