/* bencher: the results API (Bencher 0.6.12, bencher.dev).  Builds the
 * JSON bodies and reads the answers; http.c carries them.
 *   POST {host}/v0/run                    a report (JsonNewRun), with an
 *                                         idempotency key so a retry of a
 *                                         report the server already took
 *                                         returns that report: exactly once
 *   POST {host}/v0/projects/{p}/measures  a counter's measure with its
 *                                         units (409: it exists)
 * Owns: nothing beyond the strings it returns. */
#ifndef BP_LIB_BENCHER_H
#define BP_LIB_BENCHER_H

#include <stddef.h>

#include "benchprof/benchprof.h"
#include "buf.h"
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

/* Post the report; *uuid (malloc'd) is the answer's report uuid. */
bp_code bpi_bencher_post(const struct bp_bencher_opts *o,
                         const struct bp_bencher_report *r, char **uuid,
                         struct bp_err *err);

/* Create the measures that the BMF's measure slugs name and Bencher does
 * not know (every project has latency and throughput), with units
 * (instructions, cycles, misses, nanoseconds ...); 409 is success. */
bp_code bpi_bencher_ensure_measures(const struct bp_bencher_opts *o,
                                    const char *project, const char *bmf,
                                    struct bp_err *err);

/* A random (version 4) UUID into out[37]. */
bp_code bpi_uuid4(char out[37], struct bp_err *err);

#endif
