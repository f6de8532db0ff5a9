/* The leaf modules and the model: interning maps, the buffer's escaping,
 * profile tables and timeline, and the address spaces in procs. */
#include "bp_setup.h"
#include "buf.h"
#include "check.h"
#include "counters.h"
#include "err.h"
#include "hash.h"
#include "parallel.h"
#include "procs.h"
#include "profile.h"
#include "text.h"

#include <cjson/cJSON.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_map(void)
{
  struct bp_map m;
  bpi_map_init(&m);
  CHECK_EQ_INT(bpi_map_get(&m, 1, 2), BP_NONE);
  for(uint32_t i = 0; i < 10000; i++)
    CHECK_EQ_INT(bpi_map_put(&m, i, (uint64_t)i * 7, i), BP_OK);
  uint32_t wrong = 0;
  for(uint32_t i = 0; i < 10000; i++)
    wrong += bpi_map_get(&m, i, (uint64_t)i * 7) != i;
  CHECK_EQ_INT(wrong, 0);
  /* keys differing only in the second half are distinct */
  CHECK_EQ_INT(bpi_map_get(&m, 5, 36), BP_NONE);
  CHECK_EQ_INT(m.count, 10000);
  bpi_map_put(&m, 5, 35, 99);
  CHECK_EQ_INT(bpi_map_get(&m, 5, 35), 99);
  CHECK_EQ_INT(m.count, 10000);
  bpi_map_cleanup(&m);
}

static void test_strtab(void)
{
  struct bp_strtab t;
  bpi_strtab_init(&t);
  uint32_t a = bpi_strtab_intern(&t, "alpha");
  uint32_t b = bpi_strtab_intern(&t, "beta");
  CHECK(a != b);
  CHECK_EQ_INT(bpi_strtab_intern(&t, "alpha"), a);
  CHECK_EQ_INT(bpi_strtab_find(&t, "beta"), b);
  CHECK_EQ_INT(bpi_strtab_find(&t, "gamma"), BP_NONE);
  char name[32];
  for(int i = 0; i < 5000; i++) {
    snprintf(name, sizeof(name), "sym%d", i);
    bpi_strtab_intern(&t, name);
  }
  CHECK_EQ_INT(t.count, 5002);
  CHECK_EQ_STR(bpi_strtab_get(&t, bpi_strtab_find(&t, "sym4321")),
               "sym4321");
  bpi_strtab_cleanup(&t);
}

/* name -> position, the first position given for a name; many names
 * (a suite's benchmarks) stay findable as the table grows */
static void test_name_index(void)
{
  struct bp_name_index ix;
  bpi_name_index_init(&ix);
  CHECK_EQ_INT(bpi_name_index_find(&ix, "absent"), BP_NONE);
  CHECK_EQ_INT(bpi_name_index_add(&ix, "sort", 3), BP_OK);
  CHECK_EQ_INT(bpi_name_index_add(&ix, "sort", 9), BP_OK);
  CHECK_EQ_INT(bpi_name_index_find(&ix, "sort"), 3);
  CHECK_EQ_INT(bpi_name_index_find(&ix, NULL), BP_NONE);
  char name[32];
  for(uint32_t i = 0; i < 10000; i++) {
    snprintf(name, sizeof(name), "b%u", i);
    CHECK_EQ_INT(bpi_name_index_add(&ix, name, i + 10), BP_OK);
  }
  for(uint32_t i = 0; i < 10000; i += 997) {
    snprintf(name, sizeof(name), "b%u", i);
    CHECK_EQ_INT(bpi_name_index_find(&ix, name), i + 10);
  }
  CHECK_EQ_INT(bpi_name_index_find(&ix, "b10000"), BP_NONE);
  CHECK_EQ_INT(bpi_name_index_find(&ix, "sort"), 3);
  bpi_name_index_cleanup(&ix);
  CHECK_EQ_INT(bpi_name_index_find(&ix, "sort"), BP_NONE);
}

static void test_buf_escaping(void)
{
  struct bp_buf b;
  bpi_buf_init(&b);
  bpi_buf_json_str(&b, "a\"b\\c\nd\x01<e\xff");
  CHECK_EQ_STR(b.data, "\"a\\\"b\\\\c\\nd\\u0001\\u003ce\\ufffd\"");
  bpi_buf_reset(&b);
  bpi_buf_json_str(&b, "caf\xc3\xa9 \xe2\x82\xac");  /* valid UTF-8 stays */
  CHECK_EQ_STR(b.data, "\"caf\xc3\xa9 \xe2\x82\xac\"");
  bpi_buf_reset(&b);
  bpi_buf_xml_text(&b, "<a href='x'>&\"</a>\x02");
  CHECK_EQ_STR(b.data,
               "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;\xef\xbf\xbd");
  bpi_buf_reset(&b);
  bpi_buf_varint(&b, 300);
  CHECK_EQ_INT(b.len, 2);
  CHECK_EQ_INT((unsigned char)b.data[0], 0xac);
  CHECK_EQ_INT((unsigned char)b.data[1], 0x02);
  bpi_buf_reset(&b);
  bpi_buf_printf(&b, "%d-%s", 42, "x");
  CHECK_EQ_STR(b.data, "42-x");
  CHECK(!bpi_buf_failed(&b));
  bpi_buf_cleanup(&b);
}

static void test_profile(void)
{
  struct bp_profile *p;
  CHECK_EQ_INT(bpi_profile_new(&p), BP_OK);
  uint32_t lib = bpi_profile_lib(p, "/usr/bin/bench", "abcd");
  CHECK_EQ_INT(bpi_profile_lib(p, "/usr/bin/bench", "abcd"), lib);
  CHECK(bpi_profile_lib(p, "/usr/bin/bench", "ef01") != lib);
  CHECK_EQ_STR(bpi_profile_str(p, p->libs[lib].name), "bench");
  uint32_t f_main = bpi_profile_frame(p, lib, 0x1000, BP_FRAME_USER);
  uint32_t f_a = bpi_profile_frame(p, lib, 0x2000, BP_FRAME_USER);
  uint32_t f_b = bpi_profile_frame(p, lib, 0x3000, BP_FRAME_USER);
  CHECK_EQ_INT(bpi_profile_frame(p, lib, 0x2000, BP_FRAME_USER), f_a);
  CHECK(bpi_profile_frame(p, lib, 0x2000, BP_FRAME_KERNEL) != f_a);
  CHECK_EQ_INT(p->libs[lib].lo, 0x1000);
  CHECK_EQ_INT(p->libs[lib].hi, 0x3000);
  uint32_t s_main = bpi_profile_stack(p, BP_NONE, f_main);
  uint32_t s_a = bpi_profile_stack(p, s_main, f_a);
  uint32_t s_b = bpi_profile_stack(p, s_main, f_b);
  CHECK_EQ_INT(bpi_profile_stack(p, s_main, f_a), s_a);
  CHECK_EQ_INT(bpi_profile_stack_depth(p, s_a), 2);
  uint32_t th = bpi_profile_thread(p, 10, 11);
  CHECK_EQ_INT(bpi_profile_thread(p, 10, 11), th);
  for(int i = 0; i < 300; i++)
    bpi_profile_add_sample(p, th, i % 4 ? s_a : s_b, 1000 + (uint64_t)i, 7);
  CHECK_EQ_INT(p->ncounts, 2);
  CHECK_EQ_INT(p->meta.samples, 300);
  CHECK_EQ_INT(p->threads[th].samples, 300);

  /* symbolize by hand: main, a, b */
  p->frames[f_main].func = bpi_profile_func(p, "main", "b.c", lib, 1);
  p->frames[f_a].func = bpi_profile_func(p, "a", "b.c", lib, 5);
  uint32_t unres = bpi_profile_func(p, "0x3000", "", lib, 0);
  p->funcs[unres].unresolved = true;
  p->frames[f_b].func = unres;
  char buf[64];
  CHECK_EQ_STR(bpi_profile_frame_label(p, f_a, buf, sizeof(buf)), "a");
  CHECK_EQ_STR(bpi_profile_frame_label(p, f_b, buf, sizeof(buf)),
               "0x3000 (in bench)");

  struct bp_func_share top[4];
  uint64_t total;
  size_t n = bpi_profile_top_funcs(p, top, 4, &total);
  CHECK_EQ_INT(total, 300);
  CHECK_EQ_INT(n, 3);
  CHECK_EQ_STR(bpi_profile_str(p, p->funcs[top[0].func].name), "a");
  CHECK_EQ_INT(top[0].self, 225);
  CHECK_EQ_INT(top[1].self, 75);
  CHECK_EQ_STR(bpi_profile_str(p, p->funcs[top[2].func].name), "main");
  CHECK_EQ_INT(top[2].self, 0);
  CHECK_EQ_INT(top[2].total, 300);

  /* the timeline comes back in order, every sample */
  CHECK_EQ_INT(bpi_profile_timeline_rewind(p), BP_OK);
  struct bp_sample s;
  uint64_t count = 0, last = 0;
  bool ordered = true;
  while(bpi_profile_timeline_next(p, &s)) {
    ordered = ordered && s.time_ns >= last;
    last = s.time_ns;
    count++;
  }
  CHECK(ordered);
  CHECK_EQ_INT(count, 300);
  bpi_profile_free(p);
}

/* Inlined calls as frames, unresolved frames counted as the stacks with
 * samples hold them, the share of task-clock no sample stands for. */
static void test_profile_fidelity(void)
{
  struct bp_profile *p;
  CHECK_EQ_INT(bpi_profile_new(&p), BP_OK);
  uint32_t lib = bpi_profile_lib(p, "/usr/bin/bench", "");
  uint32_t f_main = bpi_profile_frame(p, lib, 0x1000, BP_FRAME_USER);
  uint32_t f_hot = bpi_profile_frame(p, lib, 0x2000, BP_FRAME_USER);
  uint32_t f_gone = bpi_profile_frame(p, lib, 0x4000, BP_FRAME_USER);
  uint32_t fn_inl = bpi_profile_func(p, "mix", "m.h", lib, 3);
  uint32_t f_inl = bpi_profile_inline_frame(p, f_hot, 1, fn_inl, 7);
  /* the same (machine frame, depth) is the same frame; another depth not */
  CHECK_EQ_INT(bpi_profile_inline_frame(p, f_hot, 1, fn_inl, 7), f_inl);
  CHECK(bpi_profile_inline_frame(p, f_hot, 2, fn_inl, 7) != f_inl);
  CHECK(f_inl != f_hot && p->frames[f_inl].outer == f_hot);
  CHECK_EQ_INT(p->frames[f_inl].inline_depth, 1);
  CHECK_EQ_INT(p->frames[f_inl].addr, 0x2000);
  CHECK_EQ_INT(bpi_profile_frame(p, lib, 0x2000, BP_FRAME_USER), f_hot);
  uint32_t s_main = bpi_profile_stack(p, BP_NONE, f_main);
  uint32_t s_hot = bpi_profile_stack(p, s_main, f_hot);
  uint32_t s_inl = bpi_profile_stack(p, s_hot, f_inl);
  (void)bpi_profile_stack(p, s_main, f_gone);  /* a stack with no sample */
  uint32_t th = bpi_profile_thread(p, 1, 1);
  for(int i = 0; i < 100; i++)
    bpi_profile_add_sample(p, th, s_inl, (uint64_t)i, 1000000);
  p->frames[f_main].func = bpi_profile_func(p, "main", "", lib, 0);
  uint32_t unres = bpi_profile_func(p, "fn_2000", "", lib, 0);
  p->funcs[unres].unresolved = true;
  p->frames[f_hot].func = unres;
  uint32_t gone = bpi_profile_func(p, "0x4000", "", lib, 0);
  p->funcs[gone].unresolved = true;
  p->frames[f_gone].func = gone;
  /* the inlined call is the leaf; the range-named frame is labelled by
   * its function; the frame of no sampled stack is not counted */
  struct bp_func_share top[4];
  uint64_t total;
  CHECK(bpi_profile_top_funcs(p, top, 4, &total) >= 1);
  CHECK_EQ_STR(bpi_profile_str(p, p->funcs[top[0].func].name), "mix");
  char buf[64];
  CHECK_EQ_STR(bpi_profile_frame_label(p, f_hot, buf, sizeof(buf)),
               "fn_2000 (in bench)");
  CHECK_EQ_INT(bpi_profile_unresolved_frames(p), 1);

  /* 100 samples of 1 ms against 400 ms of task-clock: 75% unsampled */
  char note[200];
  p->meta.time_event = true;
  CHECK_EQ_INT(bpi_profile_sampled_ns(p), 100000000);
  CHECK(bpi_profile_unsampled_pct(p) < 0);  /* no task-clock: unknown */
  p->meta.task_clock_ns = 400e6;
  CHECK(bpi_profile_unsampled_pct(p) > 74.99 &&
        bpi_profile_unsampled_pct(p) < 75.01);
  bpi_profile_unsampled_note(p, note, sizeof(note));
  CHECK_EQ_STR(note, "");  /* kernel time sampled: nothing to say */
  p->meta.kernel_unsampled = true;
  CHECK_EQ_INT(bpi_profile_meta_set(&p->meta.kernel_reason, "not permitted"),
               BP_OK);
  bpi_profile_unsampled_note(p, note, sizeof(note));
  CHECK_EQ_STR(note, "kernel time not sampled (not permitted): 75.0% of "
               "task-clock is in no sample");
  bpi_profile_free(p);
}

static void test_procs(void)
{
  struct bp_procs ps;
  bpi_procs_init(&ps);
  CHECK_EQ_INT(bpi_procs_add_mapping(&ps, 1, 0x1000, 0x3000, 0, "/bin/a",
                                     ""), BP_OK);
  CHECK_EQ_INT(bpi_procs_add_mapping(&ps, 1, 0x10000, 0x1000, 0x2000,
                                     "/lib/b.so", "ff"), BP_OK);
  struct bp_mapping *m = bpi_procs_find(&ps, 1, 0x2500, false);
  CHECK(m && m->start == 0x1000);
  CHECK(bpi_procs_find(&ps, 1, 0x5000, false) == NULL);
  m = bpi_procs_find(&ps, 1, 0x10010, false);
  CHECK(m && !strcmp(m->build_id, "ff") && m->kind == BP_MAP_FILE);

  /* a new mapping in the middle splits the old one */
  bpi_procs_add_mapping(&ps, 1, 0x2000, 0x1000, 0, "//anon", NULL);
  m = bpi_procs_find(&ps, 1, 0x2100, false);
  CHECK(m && m->kind == BP_MAP_ANON);
  m = bpi_procs_find(&ps, 1, 0x3100, false);
  CHECK(m && m->start == 0x3000 && m->pgoff == 0x2000 &&
        !strcmp(bpi_procs_path(&ps, m), "/bin/a"));
  m = bpi_procs_find(&ps, 1, 0x1100, false);
  CHECK(m && m->end == 0x2000);

  /* fork copies, exec starts an empty image for the exec'ing process
   * only; until the exec returns, an address the new image does not map
   * is the old image's (the execve call), one it maps is its own */
  CHECK_EQ_INT(bpi_procs_fork(&ps, 1, 2), BP_OK);
  CHECK(bpi_procs_find(&ps, 2, 0x10010, false) != NULL);
  CHECK(!bpi_procs_execing(&ps, 2));
  bpi_procs_exec(&ps, 2);
  CHECK(bpi_procs_execing(&ps, 2) && !bpi_procs_execing(&ps, 1));
  CHECK(bpi_procs_find_current(&ps, 2, 0x10010) == NULL);
  m = bpi_procs_find(&ps, 2, 0x10010, false);
  CHECK(m && !strcmp(bpi_procs_path(&ps, m), "/lib/b.so"));
  CHECK_EQ_INT(bpi_procs_add_mapping(&ps, 2, 0x10000, 0x1000, 0,
                                     "/bin/new", ""), BP_OK);
  m = bpi_procs_find(&ps, 2, 0x10010, false);
  CHECK(m && !strcmp(bpi_procs_path(&ps, m), "/bin/new"));
  m = bpi_procs_find(&ps, 2, 0x1100, false);
  CHECK(m && !strcmp(bpi_procs_path(&ps, m), "/bin/a"));
  uint32_t gen = bpi_procs_get(&ps, 2)->gen;
  bpi_procs_exec_returned(&ps, 2);
  CHECK(!bpi_procs_execing(&ps, 2) && bpi_procs_get(&ps, 2)->gen != gen);
  CHECK(bpi_procs_find(&ps, 2, 0x1100, false) == NULL);
  CHECK(bpi_procs_find(&ps, 2, 0x10010, false) != NULL);
  CHECK(bpi_procs_find(&ps, 1, 0x10010, false) != NULL);
  /* a second exec replaces the image the first one made */
  bpi_procs_exec(&ps, 2);
  m = bpi_procs_find(&ps, 2, 0x10010, false);
  CHECK(m && !strcmp(bpi_procs_path(&ps, m), "/bin/new"));
  bpi_procs_exec(&ps, 2);
  CHECK(bpi_procs_find(&ps, 2, 0x10010, false) == NULL);

  bpi_procs_set_comm(&ps, 7, "worker");
  bpi_procs_set_comm(&ps, 7, "renamed");
  CHECK_EQ_STR(bpi_procs_comm(&ps, 7), "renamed");
  CHECK(bpi_procs_comm(&ps, 8) == NULL);

  /* a miss reads /proc/PID/maps: our own text segment is found */
  uint32_t self = (uint32_t)getpid();
  m = bpi_procs_find(&ps, self, (uint64_t)(uintptr_t)&test_procs, true);
  CHECK(m && m->kind == BP_MAP_FILE);
  bpi_procs_cleanup(&ps);
}

static void test_counter_scaling(void)
{
  double v, r;
  /* never scheduled: no value at all */
  CHECK(!bpi_counters_scale(123, 1000, 0, &v, &r));
  /* always counted: the raw count */
  CHECK(bpi_counters_scale(500, 1000, 1000, &v, &r));
  CHECK(v == 500.0 && r == 1.0);
  /* counted a quarter of the time: four times the count, ratio 0.25 */
  CHECK(bpi_counters_scale(500, 4000, 1000, &v, &r));
  CHECK(v == 2000.0 && r == 0.25);
  /* huge counts do not overflow */
  CHECK(bpi_counters_scale(UINT64_MAX / 2, UINT64_MAX, UINT64_MAX / 4, &v,
                           &r));
  CHECK(v > 3.6e19 && v < 3.8e19);
}

/* The counters' tree (manifest.json): an event name that is no UTF-8
 * (a harness may send any bytes) gives valid JSON, its bad byte U+FFFD,
 * as the text form has it; "running" to 6 decimals as there. */
static void test_counters_tree(void)
{
  struct bp_counter c[2] = {
    {.name = "bad\xff-event", .slug = "bad-event", .unit = "events",
     .available = true, .raw = 7, .value = 7.5, .running = 0.1234567891},
    {.name = "gone", .slug = "gone", .unit = "events"}};
  snprintf(c[1].reason, sizeof(c[1].reason), "no such \xc3 PMU");
  cJSON *t = bpi_counters_tree(c, 2);
  CHECK(t != NULL);
  char *text = t ? cJSON_PrintUnformatted(t) : NULL;
  CHECK(text && bpi_text_utf8_valid(text));
  CHECK(text && strstr(text, "\"name\":\"bad\xef\xbf\xbd-event\""));
  CHECK(text && strstr(text, "\"reason\":\"no such \xef\xbf\xbd PMU\""));
  CHECK(text && strstr(text, "\"running\":0.123457"));
  CHECK(text && !strstr(text, "0.1234567"));
  free(text);
  cJSON_Delete(t);
}

/* The worker pool: every item done once, into its own slot; of several
 * failures the lowest item's error is returned (what the loop in order
 * returns); in order, nothing after the first failure runs. */
struct pool_items {
  unsigned *done;       /* times each item ran */
  size_t fail_a, fail_b;
};

static bp_code pool_item(void *ctx, size_t i, struct bp_err *err)
{
  struct pool_items *t = ctx;
  t->done[i]++;
  if(i == t->fail_a || i == t->fail_b)
    return bpi_err_set(err, BPE_IO, 0, "item %zu", i);
  return BP_OK;
}

static void test_parallel(void)
{
  enum { N = 20000 };
  struct pool_items t = {.done = calloc(N, sizeof(unsigned)),
                         .fail_a = N, .fail_b = N};
  struct bp_err err = {0};
  CHECK(t.done != NULL);
  if(!t.done)
    return;
  CHECK_EQ_INT(bpi_parallel_for(N, 4, pool_item, &t, &err), BP_OK);
  size_t wrong = 0;
  for(size_t i = 0; i < N; i++)
    wrong += t.done[i] != 1;
  CHECK_EQ_INT(wrong, 0);
  /* two failures: the lower one's error, whichever came first */
  for(unsigned workers = 1; workers <= 4; workers += 3) {
    memset(t.done, 0, N * sizeof(unsigned));
    memset(&err, 0, sizeof(err));
    t.fail_a = 500;
    t.fail_b = 9000;
    CHECK_EQ_INT(bpi_parallel_for(N, workers, pool_item, &t, &err), BPE_IO);
    CHECK_EQ_STR(err.msg, "item 500");
    CHECK_EQ_INT(t.done[500], 1);
    if(workers == 1)
      CHECK_EQ_INT(t.done[501], 0);
  }
  free(t.done);
  CHECK_EQ_INT(bpi_parallel_workers(10, 64), 1);
  bpi_parallel_set_workers(3);
  CHECK_EQ_INT(bpi_parallel_workers(10, 64), 3);
  bpi_parallel_set_workers(0);
  CHECK_EQ_INT(bpi_parallel_workers(1, 64), 1);
}

int main(void)
{
  test_parallel();
  test_counter_scaling();
  test_counters_tree();
  test_map();
  test_strtab();
  test_name_index();
  test_buf_escaping();
  test_profile();
  test_profile_fidelity();
  test_procs();
  return check_exit();
}
