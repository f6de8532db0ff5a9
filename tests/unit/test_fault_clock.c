/* Time that does not run forwards.  benchprof measures every duration
 * with CLOCK_MONOTONIC (the kernel stamps records with it too:
 * use_clockid), so a wall-clock jump cannot reach a profile; the wall
 * clock is read once, for the start date.  What can still arrive out of
 * order is records: the sampler delivers rings merged by time but a ring
 * read late may hand over a record older than some already delivered,
 * and a record may predate the command's start.  Here the converter gets
 * such a stream; the profile must count every sample once, give each
 * thread the span of its samples, slice by time (not by arrival), and
 * the Gecko export must list each thread's samples in time order. */
#include "bp_setup.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "converter.h"
#include "export.h"
#include "profile.h"
#include "symbols.h"

#define PID 999999999u  /* no such process: nothing read from /proc */
#define START_NS 1000000000ull

static const struct bp_rec_layout layout = {
  .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN,
  .sample_id_all = true,
};

/* A user-space sample of tid at time t (no callchain: ip only). */
static void sample(struct bp_converter *c, uint32_t tid, uint64_t t)
{
  uint64_t rec[6];
  struct perf_event_header h = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
                                sizeof(rec)};
  memcpy(&rec[0], &h, sizeof(h));
  rec[1] = 0x400000 + tid;                  /* ip */
  rec[2] = (uint64_t)tid << 32 | PID;       /* pid, tid */
  rec[3] = t;                               /* time */
  rec[4] = 1000;                            /* period */
  rec[5] = 0;                               /* callchain: nr */
  CHECK(bpi_converter_record(c, rec, sizeof(rec)) == BP_OK);
}

/* Every thread's sample times in the Gecko JSON are non-decreasing and
 * within [registerTime, unregisterTime]; returns the samples seen. */
static int gecko_in_order(const struct bp_buf *b)
{
  cJSON *doc = cJSON_ParseWithLength(b->data, b->len);
  int n = 0;
  CHECK(doc != NULL);
  cJSON *threads = cJSON_GetObjectItem(doc, "threads");
  cJSON *th;
  cJSON_ArrayForEach(th, threads) {
    cJSON *data = cJSON_GetObjectItem(cJSON_GetObjectItem(th, "samples"),
                                      "data");
    double reg = cJSON_GetNumberValue(cJSON_GetObjectItem(th,
                                                          "registerTime"));
    cJSON *unreg = cJSON_GetObjectItem(th, "unregisterTime");
    double prev = -1e300;
    cJSON *row;
    cJSON_ArrayForEach(row, data) {
      double t = cJSON_GetNumberValue(cJSON_GetArrayItem(row, 1));
      CHECK(t >= prev);
      CHECK(t >= reg);
      if(cJSON_IsNumber(unreg))
        CHECK(t <= unreg->valuedouble);
      prev = t;
      n++;
    }
  }
  cJSON_Delete(doc);
  return n;
}

int main(void)
{
  struct bp_profile *p = NULL, *slice = NULL;
  struct bp_symbols *sym = NULL;
  struct bp_converter *c = NULL;
  struct bp_symbols_opts so = {.jit_map_dir = "/nonexistent",
                               .kallsyms = "/nonexistent", .demangle = true};
  struct bp_err err = {0};
  CHECK(bpi_profile_new(&p) == BP_OK);
  CHECK(bpi_symbols_new(&sym, &so) == BP_OK);
  CHECK(bpi_converter_new(&c, p, sym, &layout, BP_CALL_GRAPH_FP) == BP_OK);
  if(!p || !sym || !c)
    return 1;
  p->meta.start_ns = START_NS;

  /* tid 1: 500, 300 (late ring), 400, 200; tid 2: 600, then one stamped
   * before the command started (a record older than the start) */
  sample(c, 1, START_NS + 500);
  sample(c, 1, START_NS + 300);
  sample(c, 2, START_NS + 600);
  sample(c, 1, START_NS + 400);
  sample(c, 1, START_NS + 200);
  sample(c, 2, START_NS - 50);
  CHECK(bpi_converter_finish(c, &err) == BP_OK);
  CHECK_EQ_INT(p->meta.samples, 6);
  CHECK_EQ_INT(bpi_converter_bad_records(c), 0);

  /* each thread spans its earliest to its latest sample */
  uint32_t t1 = bpi_profile_thread(p, PID, 1), t2 = bpi_profile_thread(p, PID,
                                                                      2);
  CHECK_EQ_INT(p->threads[t1].start_ns, START_NS + 200);
  CHECK_EQ_INT(p->threads[t1].end_ns, START_NS + 500);
  CHECK_EQ_INT(p->threads[t1].samples, 4);
  CHECK_EQ_INT(p->threads[t2].start_ns, START_NS - 50);
  CHECK_EQ_INT(p->threads[t2].end_ns, START_NS + 600);

  /* a slice takes samples by their time, whatever order they came in */
  CHECK(bpi_profile_slice(p, START_NS + 250, START_NS + 450, &slice) ==
        BP_OK);
  if(slice) {
    CHECK_EQ_INT(slice->meta.samples, 2);  /* 300 and 400 */
    CHECK_EQ_INT(slice->threads[t1].start_ns, START_NS + 300);
    CHECK_EQ_INT(slice->threads[t1].end_ns, START_NS + 400);
    CHECK_EQ_INT(slice->threads[t2].samples, 0);
  }

  /* Gecko: per thread in time order, inside the thread's lifetime (the
   * sample older than the start is at a negative time, still ordered) */
  struct bp_buf b;
  bpi_buf_init(&b);
  CHECK(bpi_export_gecko.write(p, &b, &err) == BP_OK);
  CHECK_EQ_INT(gecko_in_order(&b), 6);
  bpi_buf_reset(&b);

  /* the other exporters take it too (each that has an artifact for this
   * profile writes one: the off-CPU ones have none without off-CPU time) */
  for(size_t i = 0; bpi_exporters[i]; i++) {
    const struct bp_exporter *x = bpi_exporters[i];
    bpi_buf_reset(&b);
    CHECK(x->write(p, &b, &err) == BP_OK);
    if(!x->wanted || x->wanted(p))
      CHECK(b.len > 0);
  }
  bpi_buf_cleanup(&b);
  bpi_profile_free(slice);
  bpi_converter_free(c);
  bpi_symbols_free(sym);
  bpi_profile_free(p);
  return check_exit();
}
