/* Exporters: write every artifact of the synthetic profile and read them
 * back: folded lines exactly, summary and Gecko JSON through cJSON, pprof
 * through a small protobuf reader, the flame graph's tooltips.  Then the
 * same for an empty profile and for one with odd samples (no stack, no
 * symbols, no names, a hardware event). */
#include "bp_setup.h"
#include "export.h"
#include "fileio.h"
#include "synthetic_profile.h"
#include "check.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const files[] = {
  "profile.json.gz", "profile.pb.gz", "profile.folded", "flamegraph.svg",
  "summary.json",
};
/* ... and with off-CPU time */
static const char *const off_files[] = {
  "profile.offcpu.folded", "flamegraph.offcpu.svg",
};

/* path = dir/name; false when it does not fit */
static bool join(char path[PATH_MAX], const char *dir, const char *name)
{
  return (size_t)snprintf(path, PATH_MAX, "%s/%s", dir, name) < PATH_MAX;
}

/* The file's contents (gunzipped), or NULL. */
static char *slurp(const char *dir, const char *name, size_t *len)
{
  char path[PATH_MAX];
  char *data = NULL;
  struct bp_err err = {.code = BP_OK};
  size_t n = 0;
  if(!join(path, dir, name) || bpi_file_read(path, &data, &n, &err))
    return NULL;
  if(len)
    *len = n;
  return data;
}

static bool starts_with_gzip_magic(const char *dir, const char *name)
{
  char path[PATH_MAX];
  unsigned char magic[2] = {0, 0};
  FILE *f = join(path, dir, name) ? fopen(path, "rb") : NULL;
  if(!f)
    return false;
  size_t n = fread(magic, 1, 2, f);
  fclose(f);
  return n == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

static cJSON *slurp_json(const char *dir, const char *name)
{
  char *text = slurp(dir, name, NULL);
  cJSON *json = text ? cJSON_Parse(text) : NULL;
  free(text);
  return json;
}

/* ---------------------------------------------------------------- folded */

/* The kernel frame marked "_[k]", as flamegraph.pl marks them (compare
 * tells kernel functions and interrupts by it). */
static void check_folded(const char *dir)
{
  char *text = slurp(dir, "profile.folded", NULL);
  CHECK_EQ_STR(text,
    "bench;main;" SYNTH_WORK_FOLDED ";cold_path 100\n"
    "bench;main;" SYNTH_WORK_FOLDED ";hot_loop 350\n"
    "bench;start_thread;0x2a40 (in libc.so.6);cold_path 50\n"
    "bench;start_thread;0x2a40 (in libc.so.6);hot_loop 100\n"
    "hel:per;main;entry_SYSCALL_64_[k];cold_path 50\n"
    "hel:per;main;entry_SYSCALL_64_[k];hot_loop 150\n");
  free(text);
}

/* ---------------------------------------------------------------- summary */

static double num(const cJSON *obj, const char *key)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static const char *text_of(const cJSON *obj, const char *key)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void check_keys(const cJSON *obj, const char *const *keys, int n)
{
  CHECK_EQ_INT(cJSON_GetArraySize(obj), n);
  for(int i = 0; i < n; i++)
    CHECK(cJSON_GetObjectItemCaseSensitive(obj, keys[i]) != NULL);
}

static void check_summary_top(const cJSON *top)
{
  CHECK(cJSON_GetArraySize(top) >= 2 && cJSON_GetArraySize(top) <= 20);
  const cJSON *hot = cJSON_GetArrayItem(top, 0);
  const cJSON *cold = cJSON_GetArrayItem(top, 1);
  static const char *const keys[] = {"name", "lib", "file", "self", "total",
                                     "self_pct", "total_pct"};
  check_keys(hot, keys, 7);
  CHECK_EQ_STR(text_of(hot, "name"), SYNTH_HOT);
  CHECK_EQ_STR(text_of(hot, "lib"), "bench");
  CHECK_EQ_STR(text_of(hot, "file"), "src/hot.c");
  CHECK_EQ_INT(num(hot, "self"), SYNTH_HOT_SAMPLES);
  CHECK(num(hot, "self_pct") == 75.0 && num(hot, "total_pct") == 75.0);
  CHECK_EQ_STR(text_of(cold, "name"), SYNTH_COLD);
  CHECK(num(cold, "self_pct") == 25.0);
  const cJSON *main_fn = cJSON_GetArrayItem(top, 2);
  CHECK_EQ_STR(text_of(main_fn, "name"), "main");
  CHECK(num(main_fn, "self") == 0 && num(main_fn, "total_pct") == 81.25);
}

static void check_summary(const char *dir)
{
  static const char *const keys[] = {
    "benchprof_version", "command", "host", "event", "call_graph", "samples",
    "lost", "lost_events", "throttled", "corrupt_records", "ring_bytes",
    "start_time_ms", "duration_ms",
    "exit_status", "unresolved_frames", "symbolize_ms", "symbol_tables",
    "kernel_sampled", "kernel_unsampled_reason", "task_clock_ms",
    "sampled_ms", "unsampled_pct", "call_graph_fallback", "stack_bytes", "unwind_samples", "dwarf_samples",
    "unwind_truncated", "unwind_failed", "spilled_bytes",
    "spill_trimmed_bytes", "stack_tops_learned", "unwind_ms", "processes",
    "threads", "top_functions", "off_cpu", "counters"};
  static const char *const event_keys[] = {
    "requested", "used", "fallback", "fallback_reason", "frequency_hz",
    "period", "sampled_total", "time_based", "precise"};
  cJSON *s = slurp_json(dir, "summary.json");
  CHECK(s != NULL);
  if(!s)
    return;
  check_keys(s, keys, (int)BP_ARRAY_LEN(keys));
  /* nothing said about kernel time; no task-clock: no share */
  CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "kernel_sampled")));
  CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(s, "unsampled_pct")));
  CHECK_EQ_STR(text_of(s, "benchprof_version"), BENCHPROF_VERSION);
  CHECK_EQ_STR(text_of(s, "command"), "./bench --size 10 'a b'");
  const cJSON *ev = cJSON_GetObjectItemCaseSensitive(s, "event");
  check_keys(ev, event_keys, (int)BP_ARRAY_LEN(event_keys));
  CHECK_EQ_STR(text_of(ev, "requested"), "cycles");
  CHECK_EQ_STR(text_of(ev, "used"), "cpu-clock");
  CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ev, "fallback")));
  CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ev, "time_based")));
  CHECK(num(ev, "frequency_hz") == 1000);
  CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(ev, "period")));
  CHECK(num(ev, "sampled_total") > 0);   /* the sum of the periods */
  /* no precise modifier asked for: null, not a zero precision */
  CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(ev, "precise")));
  CHECK_EQ_INT(num(s, "samples"), SYNTH_SAMPLES);
  CHECK_EQ_INT(num(s, "lost"), 3);
  CHECK_EQ_INT(num(s, "lost_events"), 1);
  CHECK_EQ_INT(num(s, "throttled"), 2);
  CHECK(num(s, "start_time_ms") == 1700000000000.5);
  CHECK(num(s, "duration_ms") == 401.0);
  CHECK(num(s, "symbolize_ms") == 12.5);
  cJSON *tables = cJSON_GetObjectItemCaseSensitive(s, "symbol_tables");
  CHECK(cJSON_IsObject(tables));
  if(tables) {
    CHECK_EQ_INT(num(tables, "read"), 4);
    CHECK_EQ_INT(num(tables, "reused"), 2);
  }
  CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(s,
                                                      "call_graph_fallback")));
  CHECK_EQ_INT(num(s, "stack_bytes"), 8192);
  CHECK_EQ_INT(num(s, "unwind_samples"), 7);
  CHECK_EQ_INT(num(s, "dwarf_samples"), 6);
  CHECK_EQ_INT(num(s, "unwind_truncated"), 1);
  CHECK_EQ_INT(num(s, "unwind_failed"), 0);
  CHECK_EQ_INT(num(s, "spilled_bytes"), 1048576);
  CHECK_EQ_INT(num(s, "ring_bytes"), 33554432);
  CHECK_EQ_INT(num(s, "spill_trimmed_bytes"), 4096);
  CHECK_EQ_INT(num(s, "stack_tops_learned"), 3);
  CHECK(num(s, "unwind_ms") == 2.5);
  CHECK_EQ_INT(num(s, "processes"), 2);
  /* recorded without --off-cpu: null, never missing */
  CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(s, "off_cpu")));
  const cJSON *threads = cJSON_GetObjectItemCaseSensitive(s, "threads");
  CHECK_EQ_INT(cJSON_GetArraySize(threads), 3);
  const cJSON *worker = cJSON_GetArrayItem(threads, 1);
  CHECK_EQ_STR(text_of(worker, "name"), SYNTH_WORKER);
  CHECK_EQ_STR(text_of(worker, "process"), "bench");
  CHECK_EQ_INT(num(worker, "tid"), 1001);
  CHECK_EQ_INT(num(worker, "samples"), 200);
  check_summary_top(cJSON_GetObjectItemCaseSensitive(s, "top_functions"));
  /* counters: values for the counted, the reason for the others */
  const cJSON *counters = cJSON_GetObjectItemCaseSensitive(s, "counters");
  CHECK_EQ_INT(cJSON_GetArraySize(counters), 2);
  const cJSON *clock = cJSON_GetArrayItem(counters, 0);
  const cJSON *cycles = cJSON_GetArrayItem(counters, 1);
  CHECK_EQ_STR(text_of(clock, "slug"), "task-clock");
  CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(clock, "available")));
  CHECK(num(clock, "value") == 400000000.0);
  CHECK(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(cycles,
                                                       "available")));
  CHECK_EQ_STR(text_of(cycles, "reason"), "no hardware PMU (ENOENT)");
  CHECK(cJSON_GetObjectItemCaseSensitive(cycles, "value") == NULL);
  cJSON_Delete(s);
}

/* ---------------------------------------------------------------- gecko */

static const cJSON *item(const cJSON *obj, const char *key)
{
  return cJSON_GetObjectItemCaseSensitive(obj, key);
}

static int column(const cJSON *table, const char *name)
{
  return (int)num(item(table, "schema"), name);
}

/* Checks one thread's tables; counts samples per leaf location. */
static void check_gecko_thread(const cJSON *th, int *hot, int *cold)
{
  const cJSON *strings = item(th, "stringTable");
  const cJSON *frames = item(item(th, "frameTable"), "data");
  const cJSON *stacks = item(item(th, "stackTable"), "data");
  const cJSON *samples = item(th, "samples");
  int nstr = cJSON_GetArraySize(strings);
  int nframes = cJSON_GetArraySize(frames);
  int nstacks = cJSON_GetArraySize(stacks);
  int loc = column(item(th, "frameTable"), "location");
  int cat = column(item(th, "frameTable"), "category");
  for(int i = 0; i < nstacks; i++) {
    const cJSON *row = cJSON_GetArrayItem(stacks, i);
    const cJSON *prefix = cJSON_GetArrayItem(row, 0);
    CHECK(cJSON_IsNull(prefix) || prefix->valueint < i);
    CHECK(cJSON_GetArrayItem(row, 1)->valueint < nframes);
  }
  for(int i = 0; i < nframes; i++) {
    const cJSON *row = cJSON_GetArrayItem(frames, i);
    int s = cJSON_GetArrayItem(row, loc)->valueint;
    CHECK(s >= 0 && s < nstr);
    const char *where = cJSON_GetArrayItem(strings, s)->valuestring;
    CHECK(strstr(where, " (in ") && !strchr(where, '\n'));
    CHECK_EQ_INT(cJSON_GetArrayItem(row, cat)->valueint,
                 strstr(where, "kallsyms") ? 2 : 1);
  }
  double last = -1;
  int t_col = column(samples, "time"), s_col = column(samples, "stack");
  int cpu_col = column(samples, "threadCPUDelta");
  const cJSON *row;
  cJSON_ArrayForEach(row, item(samples, "data")) {
    double t = cJSON_GetArrayItem(row, t_col)->valuedouble;
    int stack = cJSON_GetArrayItem(row, s_col)->valueint;
    CHECK(t >= last);
    last = t;
    CHECK(stack >= 0 && stack < nstacks);
    CHECK(cJSON_GetArrayItem(row, cpu_col)->valuedouble == 1000.0);
    int frame = cJSON_GetArrayItem(cJSON_GetArrayItem(stacks, stack), 1)
                  ->valueint;
    int s = cJSON_GetArrayItem(cJSON_GetArrayItem(frames, frame), loc)
              ->valueint;
    const char *leaf = cJSON_GetArrayItem(strings, s)->valuestring;
    *hot += !strcmp(leaf, "hot_loop (in bench)");
    *cold += !strcmp(leaf, "cold_path (in bench)");
  }
}

static bool has_string(const cJSON *strings, const char *s)
{
  const cJSON *v;
  cJSON_ArrayForEach(v, strings)
    if(cJSON_IsString(v) && !strcmp(v->valuestring, s))
      return true;
  return false;
}

static void check_gecko(const char *dir)
{
  cJSON *g = slurp_json(dir, "profile.json.gz");
  CHECK(g != NULL);
  if(!g)
    return;
  const cJSON *meta = item(g, "meta");
  CHECK_EQ_INT(num(meta, "version"), 24);
  CHECK(num(meta, "interval") == 1.0);
  CHECK(num(meta, "startTime") == 1700000000000.5);
  CHECK(cJSON_IsTrue(item(meta, "presymbolicated")));
  CHECK_EQ_STR(text_of(item(meta, "sampleUnits"), "threadCPUDelta"),
               "\xc2\xb5s");
  CHECK_EQ_STR(text_of(cJSON_GetArrayItem(item(meta, "categories"), 0),
                       "color"), "grey");
  CHECK(cJSON_IsArray(item(meta, "markerSchema")));
  CHECK_EQ_STR(text_of(item(meta, "benchprof"), "event"), "cpu-clock");
  CHECK(cJSON_IsArray(item(g, "libs")) && cJSON_IsArray(item(g, "processes")));
  CHECK(cJSON_IsArray(item(g, "pausedRanges")));
  const cJSON *threads = item(g, "threads");
  CHECK_EQ_INT(cJSON_GetArraySize(threads), 3);
  int hot = 0, cold = 0;
  const cJSON *th;
  cJSON_ArrayForEach(th, threads) {
    int h = 0, c = 0;
    check_gecko_thread(th, &h, &c);
    CHECK_EQ_INT(h * 25, c * 75);  /* every thread splits 75/25 */
    hot += h;
    cold += c;
  }
  CHECK_EQ_INT(hot, SYNTH_HOT_SAMPLES);
  CHECK_EQ_INT(cold, SYNTH_COLD_SAMPLES);
  const cJSON *t0 = cJSON_GetArrayItem(threads, 0);
  const cJSON *t1 = cJSON_GetArrayItem(threads, 1);
  CHECK_EQ_STR(text_of(t1, "name"), SYNTH_WORKER);
  CHECK_EQ_STR(text_of(t1, "processName"), "bench");
  CHECK_EQ_INT(num(t1, "pid"), 1000);
  CHECK_EQ_INT(num(t1, "tid"), 1001);
  CHECK(num(t1, "registerTime") == 0.3);
  CHECK_EQ_INT(cJSON_GetArraySize(item(item(t0, "markers"), "data")), 1);
  CHECK_EQ_INT(cJSON_GetArraySize(item(item(t1, "markers"), "data")), 0);
  CHECK(has_string(item(t0, "stringTable"), SYNTH_WORK_CLEAN " (in bench)"));
  CHECK(has_string(item(t1, "stringTable"), "0x2a40 (in libc.so.6)"));
  CHECK(has_string(item(cJSON_GetArrayItem(threads, 2), "stringTable"),
                   "entry_SYSCALL_64 (in [kernel.kallsyms])"));
  cJSON_Delete(g);
}

/* ---------------------------------------------------------------- pprof */

#define PB_MAX 64

struct pb {
  const unsigned char *p, *end;
  bool bad;
};

struct pprof {
  char *strings[PB_MAX];
  int nstrings, ntypes, nmappings;
  uint64_t func_name[PB_MAX];      /* by function id */
  uint64_t loc_func[PB_MAX];       /* by location id */
  uint64_t leaf[PB_MAX], value[PB_MAX][3], labels[PB_MAX];
  int nvalues[PB_MAX];
  int nsamples;
  bool bad_ids;
};

static uint64_t pb_varint(struct pb *r)
{
  uint64_t v = 0;
  for(int shift = 0; shift < 64; shift += 7) {
    if(r->p >= r->end)
      break;
    unsigned char c = *r->p++;
    v |= (uint64_t)(c & 0x7f) << shift;
    if(!(c & 0x80))
      return v;
  }
  r->bad = true;
  return 0;
}

/* Next field: its number, and either a varint value or a sub-reader. */
static bool pb_next(struct pb *r, uint32_t *field, uint64_t *v,
                    struct pb *sub)
{
  *v = 0;
  if(r->bad || r->p >= r->end)
    return false;
  uint64_t k = pb_varint(r);
  *field = (uint32_t)(k >> 3);
  if((k & 7) == 0) {
    *v = pb_varint(r);
    return !r->bad;
  }
  uint64_t len = pb_varint(r);
  if((k & 7) != 2 || len > (uint64_t)(r->end - r->p)) {
    r->bad = true;
    return false;
  }
  *sub = (struct pb){r->p, r->p + len, false};
  r->p += len;
  return true;
}

static void pb_sample(struct pprof *pp, struct pb *r)
{
  uint32_t f;
  uint64_t v;
  struct pb sub;
  int i = pp->nsamples++;
  int nvalues = 0;
  while(pb_next(r, &f, &v, &sub)) {
    if(f == 1)
      pp->leaf[i] = pb_varint(&sub);   /* packed, leaf first */
    if(f == 2)
      while(sub.p < sub.end && nvalues < 3)
        pp->value[i][nvalues++] = pb_varint(&sub);
    pp->nvalues[i] = nvalues;
    if(f == 3)
      pp->labels[i]++;
  }
}

static void pb_id_pair(struct pb *r, uint32_t key_field, uint32_t val_field,
                       uint64_t *table, bool *bad_ids)
{
  uint32_t f;
  uint64_t v, id = 0, val = 0;
  struct pb sub;
  while(pb_next(r, &f, &v, &sub)) {
    if(f == key_field)
      id = v;
    if(f == val_field)
      val = v;
    if(f == 4 && val_field == 1) {  /* Location.line: its function_id */
      struct pb line = sub;
      uint32_t lf;
      uint64_t lv;
      struct pb lsub;
      while(pb_next(&line, &lf, &lv, &lsub))
        if(lf == 1)
          val = lv;
    }
  }
  if(!id || id >= PB_MAX)
    *bad_ids = true;
  else
    table[id] = val;
}

static void pb_profile(struct pprof *pp, const char *data, size_t len)
{
  struct pb r = {(const unsigned char *)data,
                 (const unsigned char *)data + len, false};
  uint32_t f;
  uint64_t v;
  struct pb sub;
  while(pb_next(&r, &f, &v, &sub)) {
    if(f == 1)
      pp->ntypes++;
    else if(f == 2 && pp->nsamples < PB_MAX)
      pb_sample(pp, &sub);
    else if(f == 3)
      pp->nmappings++;
    else if(f == 4)
      pb_id_pair(&sub, 1, 1, pp->loc_func, &pp->bad_ids);
    else if(f == 5)
      pb_id_pair(&sub, 1, 2, pp->func_name, &pp->bad_ids);
    else if(f == 6 && pp->nstrings < PB_MAX)
      pp->strings[pp->nstrings++] = strndup((const char *)sub.p,
                                            (size_t)(sub.end - sub.p));
  }
  CHECK(!r.bad);
}

static const char *leaf_name(const struct pprof *pp, int sample)
{
  uint64_t loc = pp->leaf[sample];
  uint64_t fn = loc < PB_MAX ? pp->loc_func[loc] : 0;
  uint64_t name = fn < PB_MAX ? pp->func_name[fn] : 0;
  return name < (uint64_t)pp->nstrings ? pp->strings[name] : "";
}

static void check_pprof(const char *dir)
{
  size_t len = 0;
  char *data = slurp(dir, "profile.pb.gz", &len);
  struct pprof pp;
  memset(&pp, 0, sizeof(pp));
  CHECK(data != NULL);
  if(!data)
    return;
  pb_profile(&pp, data, len);
  CHECK(pp.nstrings > 0 && pp.strings[0] && !pp.strings[0][0]);
  CHECK(!pp.bad_ids);
  CHECK_EQ_INT(pp.ntypes, 2);
  CHECK_EQ_INT(pp.nmappings, 3);
  uint64_t hot = 0, cold = 0, all = 0, cpu = 0;
  for(int i = 0; i < pp.nsamples; i++) {
    const char *leaf = leaf_name(&pp, i);
    hot += strcmp(leaf, SYNTH_HOT) ? 0 : pp.value[i][0];
    cold += strcmp(leaf, SYNTH_COLD) ? 0 : pp.value[i][0];
    all += pp.value[i][0];
    cpu += pp.value[i][1];
    CHECK_EQ_INT(pp.labels[i], 3);  /* pid, tid, thread */
    CHECK_EQ_INT(pp.nvalues[i], 2);  /* no off_cpu type without it */
  }
  CHECK_EQ_INT(hot, SYNTH_HOT_SAMPLES);
  CHECK_EQ_INT(cold, SYNTH_COLD_SAMPLES);
  CHECK_EQ_INT(all, SYNTH_SAMPLES);
  CHECK_EQ_INT(cpu, (uint64_t)SYNTH_SAMPLES * SYNTH_PERIOD_NS);
  bool unresolved = false;
  for(int i = 0; i < pp.nstrings; i++)
    unresolved = unresolved || !strcmp(pp.strings[i], "0x2a40 (in libc.so.6)");
  CHECK(unresolved);
  for(int i = 0; i < pp.nstrings; i++)
    free(pp.strings[i]);
  free(data);
}

/* ---------------------------------------------------------------- svg */

/* Sum of the samples in tooltips "name (N samples, ...)". */
static long svg_samples(const char *svg, const char *name)
{
  char pat[128];
  long sum = 0;
  int n = snprintf(pat, sizeof(pat), "<title>%s (", name);
  for(const char *s = strstr(svg, pat); s; s = strstr(s + 1, pat))
    sum += strtol(s + n, NULL, 10);
  return sum;
}

static void check_svg(const char *dir)
{
  char *svg = slurp(dir, "flamegraph.svg", NULL);
  CHECK(svg != NULL);
  if(!svg)
    return;
  CHECK(!strncmp(svg, "<?xml", 5) && strstr(svg, "</svg>\n"));
  CHECK(strstr(svg, "<title>all (800 samples, 100.00%)</title>"));
  /* the event sampled and the fallback, as every artifact says them */
  CHECK(strstr(svg, "<text id=\"event\" x=\"600\" y=\"42\" "
                    "text-anchor=\"middle\">Event: cpu-clock (software "
                    "clock fallback instead of cycles: no hardware PMU "
                    "(virtual machine))</text>"));
  CHECK_EQ_INT(svg_samples(svg, SYNTH_HOT), SYNTH_HOT_SAMPLES);
  CHECK_EQ_INT(svg_samples(svg, SYNTH_COLD), SYNTH_COLD_SAMPLES);
  CHECK(strstr(svg, "<title>hel;per (200 samples, 25.00%)</title>"));
  /* the hostile name is escaped, never markup */
  CHECK(strstr(svg, "&lt;script&gt;alert(1)"));
  CHECK(!strstr(svg, "<script>alert"));
  CHECK(!strstr(svg, "\xff"));
  free(svg);
}

/* ---------------------------------------------------------------- more */

static void check_deterministic(const char *dir, const char *dir2)
{
  for(size_t i = 0; i < BP_ARRAY_LEN(files); i++) {
    size_t a_len = 0, b_len = 0;
    char *a = slurp(dir, files[i], &a_len);
    char *b = slurp(dir2, files[i], &b_len);
    CHECK(a && b && a_len == b_len && !memcmp(a, b, a_len));
    free(a);
    free(b);
  }
  CHECK(starts_with_gzip_magic(dir, "profile.json.gz"));
  CHECK(starts_with_gzip_magic(dir, "profile.pb.gz"));
  CHECK(!starts_with_gzip_magic(dir, "profile.folded"));
}

/* Samples without a stack, frames never symbolized, a thread without
 * names, and a hardware event sampled by period. */
static struct bp_profile *odd_profile(void)
{
  struct bp_profile *p = NULL;
  if(bpi_profile_new(&p))
    return NULL;
  p->meta.period = 100000;
  p->meta.start_ns = 1000;
  p->meta.end_ns = 5000;
  uint32_t lib = bpi_profile_lib(p, "/opt/x/libodd.so", NULL);
  uint32_t fr = bpi_profile_frame(p, lib, 0xbeef, BP_FRAME_USER);
  uint32_t st = bpi_profile_stack(p, BP_NONE, fr);
  uint32_t th = bpi_profile_thread(p, 7, 7);
  bool ok = !bpi_profile_meta_set(&p->meta.requested_event, "cpu/cycles/u") &&
            !bpi_profile_meta_set(&p->meta.event, "cycles") &&
            !bpi_profile_add_sample(p, th, BP_NONE, 3000, 100000) &&
            !bpi_profile_add_sample(p, th, st, 2000, 100000);
  if(!ok) {
    bpi_profile_free(p);
    return NULL;
  }
  return p;
}

static void check_odd(const char *dir)
{
  struct bp_err err = {.code = BP_OK};
  struct bp_profile *p = odd_profile();
  CHECK(p != NULL);
  if(!p)
    return;
  CHECK_EQ_INT(bpi_export_all(p, dir, NULL, &err), BP_OK);
  char *folded = slurp(dir, "profile.folded", NULL);
  CHECK_EQ_STR(folded, "[pid 7] 1\n[pid 7];0xbeef (in libodd.so) 1\n");
  free(folded);
  cJSON *g = slurp_json(dir, "profile.json.gz");
  const cJSON *th = cJSON_GetArrayItem(item(g, "threads"), 0);
  const cJSON *data = item(item(th, "samples"), "data");
  CHECK(item(item(g, "meta"), "sampleUnits") == NULL);
  CHECK(item(item(item(th, "samples"), "schema"), "threadCPUDelta") == NULL);
  CHECK_EQ_INT(cJSON_GetArraySize(data), 2);
  /* sorted by time: the stack sample (2 us) before the stackless one */
  CHECK(cJSON_IsNumber(cJSON_GetArrayItem(cJSON_GetArrayItem(data, 0), 0)));
  CHECK(cJSON_IsNull(cJSON_GetArrayItem(cJSON_GetArrayItem(data, 1), 0)));
  CHECK(has_string(item(th, "stringTable"), "0xbeef (in libodd.so)"));
  CHECK_EQ_STR(text_of(th, "name"), "[tid 7]");
  CHECK_EQ_STR(text_of(th, "processName"), "[pid 7]");
  cJSON_Delete(g);
  size_t len = 0;
  char *pb = slurp(dir, "profile.pb.gz", &len);
  struct pprof pp;
  memset(&pp, 0, sizeof(pp));
  if(pb)
    pb_profile(&pp, pb, len);
  CHECK_EQ_INT(pp.ntypes, 2);
  CHECK_EQ_INT(pp.nsamples, 2);
  bool cycles = false, cpu = false;
  for(int i = 0; i < pp.nstrings; i++) {
    cycles = cycles || !strcmp(pp.strings[i], "cycles");
    cpu = cpu || !strcmp(pp.strings[i], "cpu");
    free(pp.strings[i]);
  }
  CHECK(cycles && !cpu);
  free(pb);
  cJSON *s = slurp_json(dir, "summary.json");
  CHECK(cJSON_IsNull(item(item(s, "event"), "frequency_hz")));
  CHECK_EQ_INT(num(item(s, "event"), "period"), 100000);
  CHECK(cJSON_IsFalse(item(item(s, "event"), "fallback")));
  cJSON_Delete(s);
  /* the flame graph names the event, and no fallback */
  char *svg = slurp(dir, "flamegraph.svg", NULL);
  CHECK(svg && strstr(svg, "<text id=\"event\" x=\"600\" y=\"42\" "
                           "text-anchor=\"middle\">Event: cycles</text>"));
  CHECK(svg && !strstr(svg, "fallback"));
  free(svg);
  bpi_profile_free(p);
}

/* Kernel time not sampled, a clock sampled: 4 samples of 1 ms for 10 ms
 * of task-clock.  The folded stacks end with the 6 ms in no sample as 6
 * samples of their own line; without the task-clock (a benchmark's
 * slice) or with kernel time sampled there is no such line. */
static void check_unsampled(const char *dir)
{
  struct bp_err err = {.code = BP_OK};
  struct bp_profile *p = NULL;
  CHECK_EQ_INT(bpi_profile_new(&p), BP_OK);
  if(!p)
    return;
  p->meta.time_event = true;
  p->meta.start_ns = 1000;
  p->meta.end_ns = 20000000;
  p->meta.task_clock_ns = 10e6;
  p->meta.kernel_unsampled = true;
  uint32_t lib = bpi_profile_lib(p, "/opt/x/libu.so", NULL);
  uint32_t st = bpi_profile_stack(p, BP_NONE,
                                  bpi_profile_frame(p, lib, 0x10,
                                                    BP_FRAME_USER));
  uint32_t th = bpi_profile_thread(p, 7, 7);
  for(int i = 0; i < 4; i++)
    CHECK_EQ_INT(bpi_profile_add_sample(p, th, st, 2000 + (uint64_t)i,
                                        1000000), BP_OK);
  CHECK_EQ_INT(bpi_export_all(p, dir, NULL, &err), BP_OK);
  char *folded = slurp(dir, "profile.folded", NULL);
  CHECK_EQ_STR(folded, "[pid 7];0x10 (in libu.so) 4\n"
                       BP_FOLDED_UNSAMPLED " 6\n");
  free(folded);
  const struct { double task_clock_ns; bool unsampled; } none[] = {
    {0, true},        /* a slice: the share is not known */
    {10e6, false},    /* kernel time sampled */
  };
  for(size_t i = 0; i < BP_ARRAY_LEN(none); i++) {
    p->meta.task_clock_ns = none[i].task_clock_ns;
    p->meta.kernel_unsampled = none[i].unsampled;
    CHECK_EQ_INT(bpi_export_all(p, dir, NULL, &err), BP_OK);
    folded = slurp(dir, "profile.folded", NULL);
    CHECK_EQ_STR(folded, "[pid 7];0x10 (in libu.so) 4\n");
    free(folded);
  }
  bpi_profile_free(p);
}

/* More samples than the Gecko exporter holds at once (it reads the
 * timeline in chunks of whole threads) and artifacts larger than the
 * 64 KiB pieces they are streamed in: thread 0 alone fills a chunk,
 * threads 1 and 2 share the next; each thread's samples arrive slightly
 * out of time order, as rings deliver them. */
#define LONG_T0 50000
#define LONG_T1 30000
#define LONG_T2 100

static struct bp_profile *long_profile(void)
{
  struct bp_profile *p = NULL;
  if(bpi_profile_new(&p))
    return NULL;
  p->meta.period = 1000;
  p->meta.time_event = true;
  p->meta.start_ns = 1000000;
  uint32_t lib = bpi_profile_lib(p, "/opt/x/liblong.so", NULL);
  uint32_t th[3] = {bpi_profile_thread(p, 9, 9), bpi_profile_thread(p, 9, 10),
                    bpi_profile_thread(p, 9, 11)};
  uint32_t stacks[16];
  for(uint32_t i = 0; i < 16; i++)
    stacks[i] = bpi_profile_stack(p, BP_NONE,
                                  bpi_profile_frame(p, lib, 0x1000 + i * 16,
                                                    BP_FRAME_USER));
  const uint32_t want[3] = {LONG_T0, LONG_T1, LONG_T2};
  uint32_t done[3] = {0, 0, 0};
  uint64_t t = 2000000;
  bool ok = true;
  for(uint32_t i = 0; ok && done[0] + done[1] + done[2] < LONG_T0 + LONG_T1 +
                            LONG_T2; i++) {
    uint32_t k = i % 3;
    if(done[k] == want[k])
      continue;
    /* every eighth sample of a thread comes 3 us early */
    uint64_t when = t + (uint64_t)k * 100 - (done[k] % 8 == 7 ? 3000 : 0);
    ok = !bpi_profile_add_sample(p, th[k], stacks[(done[k] * 7) % 16], when,
                                 1000);
    done[k]++;
    t += 1000;
  }
  p->meta.end_ns = t;
  if(!ok) {
    bpi_profile_free(p);
    return NULL;
  }
  return p;
}

static void check_long(const char *dir)
{
  struct bp_err err = {.code = BP_OK};
  struct bp_profile *p = long_profile();
  CHECK(p != NULL);
  if(!p)
    return;
  CHECK_EQ_INT(bpi_export_all(p, dir, NULL, &err), BP_OK);
  cJSON *g = slurp_json(dir, "profile.json.gz");
  CHECK(g != NULL);
  const int want[3] = {LONG_T0, LONG_T1, LONG_T2};
  for(int k = 0; g && k < 3; k++) {
    const cJSON *th = cJSON_GetArrayItem(item(g, "threads"), k);
    const cJSON *samples = item(th, "samples");
    int t_col = column(samples, "time");
    double last = -1;
    int n = 0;
    const cJSON *row;
    cJSON_ArrayForEach(row, item(samples, "data")) {
      double when = cJSON_GetArrayItem(row, t_col)->valuedouble;
      CHECK(when >= last);
      last = when;
      n++;
    }
    CHECK_EQ_INT(n, want[k]);
    CHECK_EQ_INT(num(th, "tid"), 9 + k);
  }
  cJSON_Delete(g);
  cJSON *s = slurp_json(dir, "summary.json");
  CHECK_EQ_INT(num(s, "samples"), LONG_T0 + LONG_T1 + LONG_T2);
  cJSON_Delete(s);
  bpi_profile_free(p);
}

/* --off-cpu: three waits of the main thread on its first stack (1.5 ms
 * and 0.5 ms blocked, 1 ms preempted) in every artifact; without it
 * (the other directories) no off-CPU file. */
static void check_offcpu(const char *dir, const char *plain_dir)
{
  struct bp_err err = {.code = BP_OK};
  struct bp_profile *p = NULL;
  char path[PATH_MAX];
  CHECK(join(path, plain_dir, "profile.offcpu.folded") &&
        access(path, F_OK) != 0);
  CHECK_EQ_INT(synth_profile_new(&p), BP_OK);
  if(!p)
    return;
  uint32_t th = p->counts[0].thread, st = p->counts[0].stack;
  uint64_t t = SYNTH_START_NS + 1000000;
  p->meta.off_cpu = true;
  CHECK_EQ_INT(bpi_profile_add_off(p, th, st, t, 1500000, false), BP_OK);
  CHECK_EQ_INT(bpi_profile_add_off(p, th, st, t + 2000000, 500000, false),
               BP_OK);
  CHECK_EQ_INT(bpi_profile_add_off(p, th, st, t + 4000000, 1000000, true),
               BP_OK);
  CHECK_EQ_INT(bpi_export_all(p, dir, NULL, &err), BP_OK);
  /* folded: the blocked 2000 us on the stack, the preempted 1000 us under
   * [preempted]; the stack's text is profile.folded's for that stack */
  char *folded = slurp(dir, "profile.offcpu.folded", NULL);
  char *plain = slurp(dir, "profile.folded", NULL);
  CHECK(folded && plain);
  if(folded && plain) {
    char *nl = strchr(folded, '\n');
    CHECK(nl != NULL);
    if(nl) {
      *nl = '\0';
      char *sp = strrchr(folded, ' ');
      CHECK(sp && !strcmp(sp, " 2000"));
      if(sp) {
        *sp = '\0';
        char want[4096];
        snprintf(want, sizeof(want), "%s;[preempted] 1000\n", folded);
        CHECK_EQ_STR(nl + 1, want);
        /* the same stack (no kernel frame in it) as an on-CPU line */
        snprintf(want, sizeof(want), "%s ", folded);
        CHECK(strstr(plain, want) != NULL);
      }
    }
  }
  free(folded);
  free(plain);
  cJSON *s = slurp_json(dir, "summary.json");
  const cJSON *o = s ? item(s, "off_cpu") : NULL;
  CHECK(o && num(o, "ms") == 3.0 && num(o, "blocked_ms") == 2.0 &&
        num(o, "preempted_ms") == 1.0);
  const cJSON *top = o ? cJSON_GetArrayItem(item(o, "top_stacks"), 0) : NULL;
  CHECK(top && num(top, "waits") == 3 && num(top, "ms") == 3.0 &&
        num(top, "pct") == 100.0);
  const cJSON *t0 = s ? cJSON_GetArrayItem(item(s, "threads"), (int)th) : NULL;
  CHECK(t0 && num(t0, "off_cpu_ms") == 3.0 && num(t0, "on_cpu_ms") > 0);
  cJSON_Delete(s);
  /* Gecko: three rows of 1 ms with no CPU on that thread's track */
  cJSON *g = slurp_json(dir, "profile.json.gz");
  const cJSON *gt = g ? cJSON_GetArrayItem(item(g, "threads"), (int)th) : NULL;
  int idle = 0, rows = 0;
  if(gt) {
    const cJSON *samples = item(gt, "samples"), *row;
    int cpu_col = column(samples, "threadCPUDelta");
    double last = -1;
    cJSON_ArrayForEach(row, item(samples, "data")) {
      double tm = cJSON_GetArrayItem(row, column(samples, "time"))->valuedouble;
      CHECK(tm >= last);  /* the waits merged into the samples' order */
      last = tm;
      rows++;
      idle += cJSON_GetArrayItem(row, cpu_col)->valuedouble == 0;
    }
  }
  CHECK_EQ_INT(idle, 3);
  CHECK_EQ_INT(rows, (int)p->threads[th].samples + 3);
  cJSON_Delete(g);
  /* pprof: the third sample type, the waits as samples of their own
   * (no samples, no CPU), labelled with their kind */
  size_t len = 0;
  char *pb = slurp(dir, "profile.pb.gz", &len);
  static struct pprof pp;
  memset(&pp, 0, sizeof(pp));
  CHECK(pb != NULL);
  if(pb) {
    pb_profile(&pp, pb, len);
    CHECK_EQ_INT(pp.ntypes, 3);
    uint64_t off = 0, samples = 0, labelled = 0;
    for(int i = 0; i < pp.nsamples; i++) {
      CHECK_EQ_INT(pp.nvalues[i], 3);
      off += pp.value[i][2];
      if(pp.value[i][2]) {
        samples += pp.value[i][0] + pp.value[i][1];
        labelled += pp.labels[i] == 4;  /* pid, tid, thread, switch */
      }
    }
    CHECK_EQ_INT(off, 3000000);
    CHECK_EQ_INT(samples, 0);
    CHECK_EQ_INT(labelled, 2);  /* blocked, preempted */
    bool typed = false;
    for(int i = 0; i < pp.nstrings; i++) {
      typed = typed || !strcmp(pp.strings[i], "off_cpu");
      free(pp.strings[i]);
    }
    CHECK(typed);
  }
  free(pb);
  CHECK(join(path, dir, "flamegraph.offcpu.svg") && access(path, F_OK) == 0);
  bpi_profile_free(p);
}

/* The stack of thread t's synthetic samples whose leaf is func. */
static uint32_t stack_with_leaf(const struct bp_profile *p, uint32_t t,
                                const char *func)
{
  for(uint32_t i = 0; i < p->ncounts; i++) {
    uint32_t st = p->counts[i].stack;
    if(p->counts[i].thread == t &&
       !strcmp(bpi_profile_frame_name(p, p->stacks[st].frame), func))
      return st;
  }
  return BP_NONE;
}

/* Gecko rows with no CPU (the waits) on thread t, by leaf location. */
static void gecko_idle_rows(const cJSON *g, int t, int *hot, int *cold)
{
  const cJSON *th = cJSON_GetArrayItem(item(g, "threads"), t);
  const cJSON *strings = item(th, "stringTable");
  const cJSON *frames = item(item(th, "frameTable"), "data");
  const cJSON *stacks = item(item(th, "stackTable"), "data");
  const cJSON *samples = item(th, "samples"), *row;
  int loc = column(item(th, "frameTable"), "location");
  int s_col = column(samples, "stack");
  int cpu_col = column(samples, "threadCPUDelta");
  *hot = *cold = 0;
  cJSON_ArrayForEach(row, item(samples, "data")) {
    if(cJSON_GetArrayItem(row, cpu_col)->valuedouble != 0)
      continue;
    int stack = cJSON_GetArrayItem(row, s_col)->valueint;
    int frame = cJSON_GetArrayItem(cJSON_GetArrayItem(stacks, stack), 1)
                  ->valueint;
    int s = cJSON_GetArrayItem(cJSON_GetArrayItem(frames, frame), loc)
              ->valueint;
    const char *leaf = cJSON_GetArrayItem(strings, s)->valuestring;
    *hot += !strcmp(leaf, SYNTH_HOT " (in bench)");
    *cold += !strcmp(leaf, SYNTH_COLD " (in bench)");
  }
}

/* profile.offcpu.folded's microseconds of the stack of the thread
 * named root whose leaf is leaf. */
static long folded_off_us(const char *folded, const char *root,
                          const char *leaf)
{
  long us = 0;
  size_t rlen = strlen(root), llen = strlen(leaf);
  for(const char *line = folded; line && *line;) {
    const char *nl = strchr(line, '\n');
    const char *sp = nl ? nl : line + strlen(line);
    while(sp > line && *sp != ' ')
      sp--;
    if(!strncmp(line, root, rlen) && line[rlen] == ';' &&
       (size_t)(sp - line) > llen && !strncmp(sp - llen, leaf, llen) &&
       sp[-(long)llen - 1] == ';')
      us += strtol(sp + 1, NULL, 10);
    line = nl ? nl + 1 : NULL;
  }
  return us;
}

/* --off-cpu, waits shorter than an interval (1 ms) on different stacks:
 * each stack's rows come from its own time, never from another stack's
 * leftover.  Thread 0 waits 0.7 ms in hot_loop, then 0.4 ms in cold_path:
 * 1.1 ms, one row, hot_loop's.  Thread 2 waits ten times 0.4 ms in
 * hot_loop, each followed by 0.6 ms in cold_path: 4 and 6 ms, 4 and 6
 * rows (carried per thread, every row would be cold_path's).  The rows agree with the other exporters' times per stack (to
 * within an interval) and per thread (to within half of one). */
static void check_offcpu_stacks(const char *dir)
{
  struct bp_err err = {.code = BP_OK};
  struct bp_profile *p = NULL;
  CHECK_EQ_INT(synth_profile_new(&p), BP_OK);
  if(!p)
    return;
  uint64_t t = SYNTH_START_NS + 1000000, us = 1000;
  uint32_t t0 = 0, t2 = 2;
  uint32_t hot0 = stack_with_leaf(p, t0, SYNTH_HOT);
  uint32_t cold0 = stack_with_leaf(p, t0, SYNTH_COLD);
  uint32_t hot2 = stack_with_leaf(p, t2, SYNTH_HOT);
  uint32_t cold2 = stack_with_leaf(p, t2, SYNTH_COLD);
  CHECK(hot0 != BP_NONE && cold0 != BP_NONE && hot0 != cold0);
  CHECK(hot2 != BP_NONE && cold2 != BP_NONE && hot2 != cold2);
  p->meta.off_cpu = true;
  CHECK_EQ_INT(bpi_profile_add_off(p, t0, hot0, t, 700 * us, false), BP_OK);
  CHECK_EQ_INT(bpi_profile_add_off(p, t0, cold0, t + 2000 * us, 400 * us,
                                   false), BP_OK);
  for(uint64_t i = 0; i < 10; i++) {
    uint64_t at = t + i * 2000 * us;
    CHECK_EQ_INT(bpi_profile_add_off(p, t2, hot2, at, 400 * us, false),
                 BP_OK);
    CHECK_EQ_INT(bpi_profile_add_off(p, t2, cold2, at + 500 * us, 600 * us,
                                     false), BP_OK);
  }
  CHECK_EQ_INT(bpi_export_all(p, dir, NULL, &err), BP_OK);
  cJSON *g = slurp_json(dir, "profile.json.gz");
  CHECK(g != NULL);
  int hot[3] = {0, 0, 0}, cold[3] = {0, 0, 0};
  if(g) {
    gecko_idle_rows(g, (int)t0, &hot[0], &cold[0]);
    gecko_idle_rows(g, (int)t2, &hot[2], &cold[2]);
  }
  cJSON_Delete(g);
  CHECK_EQ_INT(hot[0], 1);   /* the 0.7 ms, not the 0.4 after it */
  CHECK_EQ_INT(cold[0], 0);
  CHECK_EQ_INT(hot[2], 4);
  CHECK_EQ_INT(cold[2], 6);
  /* the same stacks' times in the folded file (us) and the summary (ms) */
  char *folded = slurp(dir, "profile.offcpu.folded", NULL);
  CHECK(folded != NULL);
  if(folded) {
    static const struct { const char *root; int th; } roots[2] = {
      {"bench", 0}, {"hel:per", 2}};
    for(int r = 0; r < 2; r++) {
      long h = folded_off_us(folded, roots[r].root, SYNTH_HOT);
      long c = folded_off_us(folded, roots[r].root, SYNTH_COLD);
      CHECK(h > 0 && c > 0);
      CHECK(labs(hot[roots[r].th] * 1000L - h) < 1000);
      CHECK(labs(cold[roots[r].th] * 1000L - c) < 1000);
      CHECK(labs((hot[roots[r].th] + cold[roots[r].th]) * 1000L - h - c)
            <= 500);
    }
  }
  free(folded);
  cJSON *s = slurp_json(dir, "summary.json");
  const cJSON *threads = s ? item(s, "threads") : NULL;
  double ms0 = num(cJSON_GetArrayItem(threads, (int)t0), "off_cpu_ms");
  double ms2 = num(cJSON_GetArrayItem(threads, (int)t2), "off_cpu_ms");
  CHECK(ms0 > 1.099 && ms0 < 1.101 && ms2 > 9.999 && ms2 < 10.001);
  /* each thread's rows hold its off-CPU time to within half a row */
  double rows0 = hot[0] + cold[0], rows2 = hot[2] + cold[2];
  CHECK(rows0 - ms0 <= 0.5 && ms0 - rows0 <= 0.5);
  CHECK(rows2 - ms2 <= 0.5 && ms2 - rows2 <= 0.5);
  cJSON_Delete(s);
  bpi_profile_free(p);
}

/* --off-cpu: one wait, two stacks of the model.  A loop unrolled calls
 * one function from two places, so two stacks have the same frame names
 * (the leaf's frames differ in address only): the folded file and flame
 * graph make one line of them, and summary.json's top_stacks one entry,
 * ranked by their sum.  Thread 0 waits 3 ms in each twin of its hot_loop
 * stack and 5 ms in cold_path: hot_loop's 6 ms come first, once. */
static void check_offcpu_same_names(const char *dir)
{
  struct bp_err err = {.code = BP_OK};
  struct bp_profile *p = NULL;
  CHECK_EQ_INT(synth_profile_new(&p), BP_OK);
  if(!p)
    return;
  uint64_t t = SYNTH_START_NS + 1000000, ms = 1000000;
  uint32_t hot = stack_with_leaf(p, 0, SYNTH_HOT);
  uint32_t cold = stack_with_leaf(p, 0, SYNTH_COLD);
  CHECK(hot != BP_NONE && cold != BP_NONE);
  if(hot == BP_NONE || cold == BP_NONE) {
    bpi_profile_free(p);
    return;
  }
  const struct bp_frame *leaf = &p->frames[p->stacks[hot].frame];
  uint32_t func = leaf->func, line = leaf->line + 1;
  uint32_t f2 = bpi_profile_frame(p, leaf->lib, leaf->addr + 0x40,
                                  (enum bp_frame_kind)leaf->kind);
  CHECK(f2 != BP_NONE && f2 != p->stacks[hot].frame);
  if(f2 == BP_NONE) {
    bpi_profile_free(p);
    return;
  }
  p->frames[f2].func = func;
  p->frames[f2].line = line;
  uint32_t twin = bpi_profile_stack(p, p->stacks[hot].parent, f2);
  CHECK(twin != BP_NONE && twin != hot);
  p->meta.off_cpu = true;
  CHECK_EQ_INT(bpi_profile_add_off(p, 0, hot, t, 3 * ms, false), BP_OK);
  CHECK_EQ_INT(bpi_profile_add_off(p, 0, cold, t + 4 * ms, 5 * ms, false),
               BP_OK);
  CHECK_EQ_INT(bpi_profile_add_off(p, 0, twin, t + 10 * ms, 3 * ms, false),
               BP_OK);
  CHECK_EQ_INT(bpi_export_all(p, dir, NULL, &err), BP_OK);
  char *folded = slurp(dir, "profile.offcpu.folded", NULL);
  CHECK(folded != NULL);
  if(folded)
    CHECK_EQ_INT(folded_off_us(folded, "bench", SYNTH_HOT), 6000);
  free(folded);
  cJSON *s = slurp_json(dir, "summary.json");
  const cJSON *top = s ? item(item(s, "off_cpu"), "top_stacks") : NULL;
  CHECK_EQ_INT(cJSON_GetArraySize(top), 2);
  const cJSON *first = cJSON_GetArrayItem(top, 0);
  const cJSON *second = cJSON_GetArrayItem(top, 1);
  CHECK(first && num(first, "ms") == 6.0 && num(first, "waits") == 2);
  CHECK(first && !strcmp(item(first, "waiting_in")->valuestring, SYNTH_HOT));
  CHECK(second && num(second, "ms") == 5.0 && num(second, "waits") == 1);
  cJSON_Delete(s);
  bpi_profile_free(p);
}

static void check_empty(const char *dir)
{
  struct bp_err err = {.code = BP_OK};
  struct bp_profile *p = NULL;
  CHECK_EQ_INT(bpi_profile_new(&p), BP_OK);
  if(!p)
    return;
  CHECK_EQ_INT(bpi_export_all(p, dir, NULL, &err), BP_OK);
  cJSON *g = slurp_json(dir, "profile.json.gz");
  CHECK(g && cJSON_GetArraySize(item(g, "threads")) == 0);
  cJSON_Delete(g);
  cJSON *s = slurp_json(dir, "summary.json");
  CHECK(s && cJSON_GetArraySize(item(s, "top_functions")) == 0);
  cJSON_Delete(s);
  char *folded = slurp(dir, "profile.folded", NULL);
  CHECK_EQ_STR(folded, "");
  free(folded);
  bpi_profile_free(p);
}

/* A benchmark's slice keeps of each wait only the part inside its time
 * ranges: a wait begun before a range, or running past its end, counts
 * for its overlap, never its whole length. */
static void check_offcpu_slice(void)
{
  struct bp_profile *p = NULL, *s = NULL;
  CHECK_EQ_INT(synth_profile_new(&p), BP_OK);
  if(!p)
    return;
  uint32_t th = p->counts[0].thread, st = p->counts[0].stack;
  uint64_t t = SYNTH_START_NS, ms = 1000000;
  p->meta.off_cpu = true;
  /* ranges [t+10, t+20) and [t+30, t+40) ms */
  const struct bp_range r[2] = {{t + 10 * ms, t + 20 * ms},
                                {t + 30 * ms, t + 40 * ms}};
  /* from before the first range: 4 ms of its 10 inside */
  CHECK_EQ_INT(bpi_profile_add_off(p, th, st, t + 6 * ms, 8 * ms, false),
               BP_OK);
  /* begun in the first, ends after it: 2 ms of 5 (preempted) */
  CHECK_EQ_INT(bpi_profile_add_off(p, th, st, t + 18 * ms, 5 * ms, true),
               BP_OK);
  /* across the gap into the second: 5 + 1 ms of 16 */
  CHECK_EQ_INT(bpi_profile_add_off(p, th, st, t + 15 * ms, 16 * ms, false),
               BP_OK);
  /* wholly outside: nothing */
  CHECK_EQ_INT(bpi_profile_add_off(p, th, st, t + 45 * ms, 3 * ms, false),
               BP_OK);
  CHECK(bpi_profile_off_blocked_in(p, r, 2) == 10 * ms);
  CHECK_EQ_INT(bpi_profile_slice_ranges(p, r, 2, &s), BP_OK);
  if(s) {
    uint64_t pre, all = bpi_profile_off_ns(s, &pre);
    CHECK(all == 12 * ms);
    CHECK(pre == 2 * ms);
    bpi_profile_free(s);
  }
  bpi_profile_free(p);
}

static void remove_dir(const char *dir)
{
  char path[PATH_MAX];
  for(size_t i = 0; i < BP_ARRAY_LEN(files); i++)
    if(join(path, dir, files[i]))
      unlink(path);
  for(size_t i = 0; i < BP_ARRAY_LEN(off_files); i++)
    if(join(path, dir, off_files[i]))
      unlink(path);
  rmdir(dir);
}

int main(void)
{
  const char *tmp = getenv("TMPDIR");
  char base[PATH_MAX - 16];  /* room for the subdirectory names */
  char dir[PATH_MAX], dir2[PATH_MAX], odd[PATH_MAX], empty[PATH_MAX];
  char longer[PATH_MAX], unsampled[PATH_MAX];
  struct bp_err err = {.code = BP_OK};
  struct bp_profile *p = NULL;
  snprintf(base, sizeof(base), "%s/bp-test-export.XXXXXX",
           tmp && *tmp ? tmp : "/tmp");
  if(!mkdtemp(base)) {
    perror("mkdtemp");
    return 1;
  }
  snprintf(dir, sizeof(dir), "%s/a", base);
  snprintf(dir2, sizeof(dir2), "%s/b", base);
  snprintf(odd, sizeof(odd), "%s/odd", base);
  snprintf(empty, sizeof(empty), "%s/empty", base);
  snprintf(longer, sizeof(longer), "%s/long", base);
  snprintf(unsampled, sizeof(unsampled), "%s/unsampled", base);

  CHECK_EQ_INT(synth_profile_new(&p), BP_OK);
  if(p) {
    CHECK_EQ_INT(bpi_export_all(p, dir, NULL, &err), BP_OK);
    CHECK_EQ_INT(bpi_export_all(p, dir2, NULL, &err), BP_OK);
    check_folded(dir);
    check_summary(dir);
    check_gecko(dir);
    check_pprof(dir);
    check_svg(dir);
    check_deterministic(dir, dir2);
    bpi_profile_free(p);
  }
  char offdir[PATH_MAX];
  snprintf(offdir, sizeof(offdir), "%s/off", base);
  check_offcpu(offdir, dir);
  check_offcpu_slice();
  char stacksdir[PATH_MAX];
  snprintf(stacksdir, sizeof(stacksdir), "%s/offstacks", base);
  check_offcpu_stacks(stacksdir);
  char samedir[PATH_MAX];
  snprintf(samedir, sizeof(samedir), "%s/offsame", base);
  check_offcpu_same_names(samedir);
  check_odd(odd);
  check_empty(empty);
  check_long(longer);
  check_unsampled(unsampled);

  remove_dir(dir);
  remove_dir(dir2);
  remove_dir(odd);
  remove_dir(empty);
  remove_dir(longer);
  remove_dir(offdir);
  remove_dir(stacksdir);
  remove_dir(samedir);
  remove_dir(unsampled);
  rmdir(base);
  return check_exit();
}
