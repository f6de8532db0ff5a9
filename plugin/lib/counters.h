/* counters: totals of a list of events over a whole command: every thread
 * and child, counting from exec, read once after it exited.
 *
 * Input: a comma-separated list of libpfm4 event names and the pid of the
 * command, which must not have exec'd yet.  Events are opened as groups
 * (PERF_FORMAT_GROUP | ID | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING,
 * inherit, enable_on_exec on each leader); when one group cannot hold more
 * events a new group starts.  Output: struct bp_counter per event, with
 * multiplexed values scaled and the scaling reported, and an event the
 * kernel cannot count marked unavailable with the reason, never as 0.
 * A precise modifier (:pp) is lowered until the PMU takes it: skid does
 * not change a count.
 * Owns the event fds.  Not thread-safe. */
#ifndef BP_LIB_COUNTERS_H
#define BP_LIB_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "benchprof/benchprof.h"

#define BP_COUNTERS_DEFAULT                                             \
  "instructions,cycles,branches,branch-misses,cache-references,"        \
  "cache-misses,task-clock,page-faults"

struct bp_counter {
  char *name;          /* as requested, e.g. "branch-misses" */
  char *slug;          /* BMF measure slug: lowercase, [a-z0-9-] */
  const char *unit;    /* a literal: "instructions", "cycles", "ns", ... */
  bool available;      /* false: see reason; value means nothing */
  char reason[160];    /* why it is unavailable */
  uint64_t raw;        /* the count as read */
  double value;        /* raw scaled by enabled / running; ns for clocks */
  double running;      /* time_running / time_enabled, 1.0 unmultiplexed */
};

struct bp_counters;

/* Parse and open; BPE_EVENT_UNKNOWN / BPE_INVAL for a bad list (err names
 * the event).  An event this machine cannot count is not an error: it is
 * reported unavailable.  With kernel false, or when perf_event_paranoid
 * refuses kernel counting, user space only; events that only count in the
 * kernel (context-switches, cpu-migrations) are then unavailable. */
bp_code bpi_counters_open(struct bp_counters **out, const char *list,
                          pid_t pid, bool kernel, struct bp_err *err);
void bpi_counters_free(struct bp_counters *c);
/* Only parse list, as bpi_counters_open would (nothing is opened): for
 * `benchprof config check`, which must refuse what a run would. */
bp_code bpi_counters_check(const char *list, struct bp_err *err);
/* The BMF measure slug of a counter or event name (malloc'd, NULL when
 * out of memory): "perf::branch-misses:u" -> "branch-misses-u",
 * lowercase [a-z0-9-]. */
char *bpi_counter_slug(const char *name);

/* Read the totals (after the command was reaped). */
bp_code bpi_counters_read(struct bp_counters *c, struct bp_err *err);

/* A reading of every counter while the command runs (inherited counters
 * sum live children too), for deltas over part of the run. */
struct bp_counter_snap {
  uint64_t raw, enabled, running;
  bool ok;                     /* read, and available */
};
/* Fill snap[i] for each counter of the list (bpi_counters_list order);
 * changes nothing in cs. */
bp_code bpi_counters_snapshot(const struct bp_counters *cs,
                              struct bp_counter_snap *snap,
                              struct bp_err *err);
/* out[i] (n entries, names and slugs copied: free with
 * bpi_counters_copy_free) is the counter between two snapshots, scaled by
 * its own enabled/running ratio over that span; unavailable with a reason
 * when it was not counted in it. */
bp_code bpi_counters_delta(const struct bp_counters *cs,
                           const struct bp_counter_snap *a,
                           const struct bp_counter_snap *b,
                           struct bp_counter **out, size_t *n);
void bpi_counters_copy_free(struct bp_counter *c, size_t n);
/* Add the n counters of add into sum (same counters, same order): the
 * total of a benchmark run several times.  Unavailable in either stays
 * unavailable, with the reason; running keeps the lowest ratio. */
void bpi_counters_add(struct bp_counter *sum, const struct bp_counter *add,
                      size_t n);

/* The counters, in the order of the list. */
const struct bp_counter *bpi_counters_list(const struct bp_counters *c,
                                           size_t *n);

/* The counter called name (or with that slug), NULL when not in the list
 * or unavailable. */
const struct bp_counter *bpi_counters_find(const struct bp_counters *c,
                                           const char *name);

/* Multiplexing: a count taken during running of enabled nanoseconds,
 * extrapolated to the whole time; *ratio is running / enabled.  false when
 * the event never ran (its count means nothing). */
bool bpi_counters_scale(uint64_t raw, uint64_t enabled, uint64_t running,
                        double *value, double *ratio);

/* Append the counters as a JSON array: name, slug, unit, available, and
 * value, raw and running, or the reason (streamed, for the summary
 * exporter). */
struct bp_buf;
void bpi_counters_json(struct bp_buf *b, const struct bp_counter *c,
                       size_t n);
/* The same array as a cJSON tree, for small documents (the manifest,
 * `stat --json`); NULL when out of memory. */
struct cJSON;
struct cJSON *bpi_counters_tree(const struct bp_counter *c, size_t n);

#endif
