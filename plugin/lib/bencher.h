/* bencher: the results API (Bencher 0.6.12, bencher.dev).  Builds the
 * JSON bodies and reads the answers; http.c carries them.
 *   POST {host}/v0/run                    a report (JsonNewRun), with an
 *                                         idempotency key so a retry of a
 *                                         report the server already took
 *                                         returns that report: exactly once
 *   POST {host}/v0/projects/{p}/measures  a counter's measure with its
 *                                         units (409: it exists)
 * The answer to a report (JsonReport) holds the uuids Bencher's console
 * plots by (branch, head, testbed, each benchmark and measure): they are
 * kept as struct bp_bencher_ids, and as compact JSON in the spool.
 * Owns: nothing beyond the strings and structs it returns. */
#ifndef BP_LIB_BENCHER_H
#define BP_LIB_BENCHER_H

#include <stdbool.h>
#include <stddef.h>

#include "benchprof/benchprof.h"
#include "buf.h"
#include "hash.h"
#include "http.h"

#define BP_BENCHER_HOST "https://api.bencher.dev"

struct bp_bencher_opts {
  const char *host;    /* NULL: BP_BENCHER_HOST */
  const char *token;   /* sent as Authorization: Bearer; never printed */
  const struct bp_http_opts *http;
};

/* One report. */
struct bp_bencher_report {
  const char *project, *branch, *hash, *testbed; /* hash may be NULL */
  const char *start_branch;  /* pull request: its base branch, or NULL */
  const char *start_hash;    /* and the base commit, or NULL */
  const char *start_time;    /* ISO 8601, e.g. 2026-11-29T20:00:00Z */
  const char *end_time;
  const char *bmf;           /* the BMF document (report.json's text) */
  const char *idempotency_key; /* a UUID, kept with the publication */
};

/* The JsonNewRun body (settings.adapter "json", results = [bmf]). */
bp_code bpi_bencher_body(const struct bp_bencher_report *r,
                         struct bp_buf *out);

/* What Bencher's console needs to plot a report's results, from the
 * JsonReport answer.  Only the report's uuid is sure to be there: every
 * other piece may be NULL (a server that leaves it out, a malformed
 * part), and then a plot cannot be linked, only the report's page.
 * Every uuid kept has the 8-4-4-4-12 hex form. */
struct bp_bencher_measure_id {
  char *slug, *uuid;
  /* Bencher's active alert on this measure in this report, or NULL: its
   * uuid and the boundary crossed ("lower" or "upper") */
  char *alert, *alert_limit;
};
struct bp_bencher_bench_id {
  char *name;              /* as in the BMF */
  char *uuid;              /* NULL when the answer has none */
  struct bp_bencher_measure_id *measures;   /* by slug, each once */
  size_t nmeasures;
};
struct bp_bencher_ids {
  char *report;            /* the report's uuid; never NULL once parsed */
  char *project;           /* the project's slug */
  char *branch, *head, *testbed;           /* uuids */
  char *end_time;          /* the report's end, ISO 8601, as answered */
  struct bp_bencher_bench_id *benches;     /* by name, each once */
  size_t nbenches;
  struct bp_name_index bench_index;        /* name -> benches[i] */
};

/* Read a JsonReport answer into ids (cleaned up first).  BPE_FORMAT when
 * it is not JSON or has no report uuid; any other piece missing or
 * malformed is left NULL (results merged over iterations: the first uuid
 * of a benchmark name or measure slug wins). */
bp_code bpi_bencher_parse_report(const char *json, size_t len,
                                 struct bp_bencher_ids *ids,
                                 struct bp_err *err);
void bpi_bencher_ids_cleanup(struct bp_bencher_ids *ids);

/* The ids as compact JSON, and back (how the spool keeps them):
 *   {"report_uuid": U, "project": SLUG, "branch_uuid": U, "head_uuid": U,
 *    "testbed_uuid": U, "end_time": T,
 *    "benchmarks": {NAME: {"benchmark_uuid": U, "measures": {SLUG: U},
 *                          "alerts": {SLUG: {"uuid": U, "limit": L}}}}}
 * NULL pieces are left out.  bpi_bencher_ids_read has the same tolerance
 * as bpi_bencher_parse_report. */
bp_code bpi_bencher_ids_json(const struct bp_bencher_ids *ids,
                             struct bp_buf *out);
bp_code bpi_bencher_ids_read(const char *json, size_t len,
                             struct bp_bencher_ids *ids, struct bp_err *err);
/* The entry of benchmark name, or NULL; the uuid of its measure slug, or
 * NULL. */
const struct bp_bencher_bench_id *
bpi_bencher_ids_bench(const struct bp_bencher_ids *ids, const char *name);
const char *bpi_bencher_bench_measure(const struct bp_bencher_bench_id *b,
                                      const char *slug);
/* 36 characters, 8-4-4-4-12 hex digits. */
bool bpi_bencher_is_uuid(const char *s);

/* Post the report; *uuid (malloc'd) is the answer's report uuid. */
bp_code bpi_bencher_post(const struct bp_bencher_opts *o,
                         const struct bp_bencher_report *r, char **uuid,
                         struct bp_err *err);
/* The same, keeping every id of the answer (ids cleaned up first). */
bp_code bpi_bencher_post_ids(const struct bp_bencher_opts *o,
                             const struct bp_bencher_report *r,
                             struct bp_bencher_ids *ids, struct bp_err *err);

/* Create the measures that the BMF's measure slugs name and Bencher does
 * not know (every project has latency and throughput), with units
 * (instructions, cycles, misses, nanoseconds ...); 409 is success. */
bp_code bpi_bencher_ensure_measures(const struct bp_bencher_opts *o,
                                    const char *project, const char *bmf,
                                    struct bp_err *err);

/* A random (version 4) UUID into out[37]. */
bp_code bpi_uuid4(char out[37], struct bp_err *err);

#endif
