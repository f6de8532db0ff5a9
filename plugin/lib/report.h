/* report: the benchmark report in Bencher Metric Format (BMF).
 *
 * Input: what a benchmark harness wrote (BMF JSON, or Google Benchmark's
 * --benchmark_format=json output) and counter totals.  Output: one BMF
 * document: {"<benchmark>": {"<measure slug>": {"value": n,
 * "lower_value": n?, "upper_value": n?}}}.  Parsing is strict: a document
 * that is not what it claims to be is BPE_FORMAT with a message that says
 * where it broke (line:column for bad JSON, the JSON path for a wrong type
 * or value).  The harness's measures are kept as they are; counters only
 * add measures.  Benchmark names are any non-empty string; they are stored
 * as valid UTF-8 (a byte outside a valid sequence becomes U+FFFD) and
 * escaped when written, and messages show them escaped and shortened.
 * Owns its strings.  Not thread-safe. */
#ifndef BP_LIB_REPORT_H
#define BP_LIB_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "benchprof/benchprof.h"
#include "buf.h"
#include "counters.h"

struct bp_measure {
  char *slug;
  double value;
  bool has_lower, has_upper;
  double lower, upper;
};

struct bp_bench {
  char *name;
  struct bp_measure *measures;
  size_t nmeasures;
  double iterations;   /* the iterations the harness measured (Google
                          Benchmark's "iterations", summed over its
                          repetitions); 0: unknown */
  double iteration_cpu_ns; /* CPU time of one of them (Google Benchmark's
                              "cpu_time", ns); 0: unknown */
};

struct bp_report {
  struct bp_bench *benches;  /* in the order first seen */
  size_t nbenches;
};

void bpi_report_init(struct bp_report *r);
void bpi_report_cleanup(struct bp_report *r);

/* origin names the input in messages ("bench.json", "stdout").  The
 * document's benchmarks are added to r; a measure r already has for the
 * same benchmark takes the document's value (the harness's measures win).
 * On failure (BPE_FORMAT, BPE_NOMEM, BPE_INVAL) r keeps exactly what it
 * had: nothing of a document is added unless all of it is valid.  Invalid
 * JSON is "origin:LINE:COL: invalid JSON"; the rest is "origin: at PATH:
 * what", PATH like ["sort"]["latency"]["value"] or benchmarks[3].real_time.
 * A \u0000 escape in a string is rejected (C strings end there). */
bp_code bpi_report_parse_bmf(struct bp_report *r, const char *json,
                             size_t len, const char *origin,
                             struct bp_err *err);
/* Google Benchmark JSON: each benchmark's real_time (converted from its
 * time_unit) becomes "latency" in nanoseconds.  With repetitions the
 * iterations' mean is the value and their min and max the bounds;
 * each row's "iterations" are summed into the benchmark's iterations,
 * and its "cpu_time" makes the CPU time of one iteration;
 * aggregate rows (mean, median, stddev) are not benchmarks, except that a
 * benchmark with no iteration rows (--benchmark_report_aggregates_only)
 * takes its "mean" row as the value, without bounds.  A benchmark with an
 * error_occurred row is left out, and so are skipped rows; when every
 * benchmark failed it is BPE_FORMAT naming the first.  NaN and Infinity,
 * which Google Benchmark writes for non-finite counters, are read as
 * numbers that are not finite: fine in fields not read, an error in
 * real_time.  Same failure rules as bpi_report_parse_bmf. */
bp_code bpi_report_parse_gbench(struct bp_report *r, const char *json,
                                size_t len, const char *origin,
                                struct bp_err *err);

/* Hand the report t (parsed, or combined over repetitions) to r: t's
 * benchmarks are added, a measure of a benchmark r already has takes t's
 * value and bounds.  All of it or, out of memory, nothing (BPE_NOMEM); t
 * is left empty either way. */
bp_code bpi_report_commit(struct bp_report *r, struct bp_report *t);

/* The benchmark called name, added empty when missing; NULL on ENOMEM or
 * for an empty name.  Valid until the next benchmark is added. */
struct bp_bench *bpi_report_bench(struct bp_report *r, const char *name);

/* What n calls of bpi_report_bench(r, names[i]) do, at[i] the position
 * of names[i]'s benchmark in r->benches, with the lookups through one
 * name index (a suite's 10,000 benchmarks were each looked up through
 * all the others).  BPE_INVAL for an empty name, BPE_NOMEM; the names
 * before the failing one are then added. */
bp_code bpi_report_bench_all(struct bp_report *r, const char *const *names,
                             size_t n, size_t *at);

/* Set a measure unless the benchmark already has one with that slug (the
 * harness's own measures win).  Returns BP_OK either way; BPE_INVAL for an
 * empty slug or a value that is not finite, BPE_NOMEM. */
bp_code bpi_report_add_measure(struct bp_bench *b, const char *slug,
                               double value);

/* Add every available counter (with a finite value) as a measure of b,
 * slug and value as they are; measures b already has are kept. */
bp_code bpi_report_add_counters(struct bp_bench *b,
                                const struct bp_counter *c, size_t n);

/* Append the report as BMF JSON: pretty, benchmarks and measures in the
 * order they were added, numbers that read back exactly, names escaped
 * (bpi_buf_json_str).  Failures are out's (bpi_buf_failed). */
void bpi_report_write_bmf(const struct bp_report *r, struct bp_buf *out);

#endif
