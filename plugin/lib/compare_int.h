/* compare_int: what the parts of compare share: compare.c (benchmarks
 * of both sides, their order, the counts), compare_side.c (a run
 * directory read), compare_funcs.c (folded stacks and functions),
 * compare_measures.c (measures and their verdicts), compare_offcpu.c
 * (off-CPU time) and compare_json.c (the compare directory written).
 * Internal to them. */
#ifndef BP_LIB_COMPARE_INT_H
#define BP_LIB_COMPARE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "compare.h"
#include "hash.h"
#include "report.h"
#include "rundir.h"

static inline double absd(double x)
{
  return x < 0 ? -x : x;
}

/* ------------------------------------------------ compare_side.c */

/* One side as read: its directory, manifest.json and report.json. */
struct side {
  const char *dir;
  const char *role;        /* "base" or "head", for messages */
  const char *url_prefix;  /* --base-url / --head-url, or NULL */
  struct bp_manifest manifest;
  struct bp_report report;
  /* built once when opened: a comparison looks up every benchmark */
  struct bp_name_index report_index;  /* name -> report.benches[i] */
  struct bp_name_index url_index;     /* artifact file -> the manifest
                                         benchmark whose entry has its URL */
};
/* The report's entry of benchmark name, or NULL. */
const struct bp_bench *bpi_cmp_report_bench(const struct side *s,
                                            const char *name);

/* Read s->dir's manifest and the report it names. */
bp_code bpi_cmp_side_open(struct side *s, struct bp_err *err);
void bpi_cmp_side_cleanup(struct side *s);
/* Who a side is, from its manifest's "publication". */
bp_code bpi_cmp_side_identity(struct bp_cmp_side *out, const struct side *s);
/* The public URL of a run's artifact file, or NULL (malloc'd). */
char *bpi_cmp_artifact_url(const struct side *s, const char *file);
/* From summary.json (relative to dir): thread, event, per_sample;
 * repeat is the run's repetitions (each its own processes). */
void bpi_cmp_profile_facts(struct bp_cmp_profile *p, const char *dir,
                           const char *summary, unsigned repeat);
/* summary.json's off_cpu.blocked_ms in ns (relative to dir); negative
 * when it has none. */
double bpi_cmp_off_cpu_blocked_ns(const char *dir, const char *summary);
/* The runs (repetitions) one benchmark's profile covers, at least 1:
 * what its measures and function costs are per. */
double bpi_cmp_profile_runs(const struct side *s);
/* The times a harness marked the benchmark, else bpi_cmp_profile_runs:
 * what its off-CPU time is per (its repetitions' values are too). */
double bpi_cmp_marked_runs(const struct side *s,
                           const struct bp_manifest_bench *mb);
/* The benchmark iterations its profile p covers, 0 when unknown. */
double bpi_cmp_profile_iterations(const struct side *s,
                                  const struct bp_manifest_bench *mb,
                                  const struct bp_cmp_profile *p);

/* ----------------------------------------------- compare_names.c */

/* After matching by name, names[0..*n) (head's benchmarks, then those
 * only base has): when exactly one of head's is not base's and exactly
 * one of base's is not head's, and their names differ only by a build
 * hash (bpi_benchname_hash_renamed: both hashed, or either one plain),
 * they are one benchmark: the base's name goes to base_names[] at the
 * head's index and leaves names (*n one less).  Several new and removed, a pair of which differs so,
 * are left unpaired (which goes with which is a guess):
 * c->hash_names_unpaired.  false: no memory. */
bool bpi_cmp_pair_hashed(struct bp_cmp *c, const struct side *base,
                         const struct side *head, const char **names,
                         size_t *n, const char **base_names);

/* ----------------------------------------------- compare_funcs.c */

/* Stacks of both sides, interned by text. */
struct stacks {
  struct bp_strtab text;
  uint64_t *count[2];      /* [side][stack id] */
  size_t cap;
  uint64_t total[2];
};

/* Free st's stacks and counts. */
void bpi_cmp_stacks_cleanup(struct stacks *st);
/* Add the "stack count" lines of the folded file at path to side. */
bp_code bpi_cmp_read_folded(struct stacks *st, int side, const char *path,
                            struct bp_err *err);
/* A program whose file name changed between the sides (bench_v1 and
 * bench_v2, a cargo bench binary's name-<hash> after a new toolchain):
 * its stacks' first frame, the process name, differs, and the
 * differential flame graph would show all of it removed and all of it
 * added.  When each side has exactly one process name the other has not
 * (names in brackets aside), and it holds most of that side's samples,
 * the base's stacks are read under the head's name; *base_name and
 * *head_name are then the two (malloc'd), else NULL.  The functions,
 * which leave the process out, are the same either way.  BPE_NOMEM
 * leaves st as it was. */
bp_code bpi_cmp_match_roots(struct stacks *st, char **base_name,
                            char **head_name);
/* st's stacks of process old read under new_root (the off-CPU stacks, as
 * bpi_cmp_match_roots decided for the on-CPU ones). */
bp_code bpi_cmp_rename_root(struct stacks *st, const char *old,
                            const char *new_root);
/* st's stacks as differential lines into *lines (*nlines of them, counted
 * as they are made, so that a failure leaves them to be freed), sorted by
 * stack. */
bp_code bpi_cmp_stack_lines(struct bp_diff_line **lines, size_t *nlines,
                            const struct stacks *st);
/* b's differential lines, sorted by stack. */
bp_code bpi_cmp_diff_lines(struct bp_cmp_bench *b, const struct stacks *st);
/* The noise band of b's stacks (struct bp_cmp_band) into band: {0} when
 * measure m's change is confirmed; m's interval, 0 included, when it has
 * one; else total, the relative change of what the stacks add up to (0
 * included), named total_measure in the band (NULL: the profile's total
 * cost), unless b's verdict confirms a change that way (not for a
 * shared profile).  m NULL: no measure counts the stacks. */
void bpi_cmp_noise_band(const struct bp_cmp_bench *b,
                        const struct bp_cmp_measure *m, double total,
                        const char *total_measure, struct bp_cmp_band *band);
/* b's functions from its lines, most changed first. */
bp_code bpi_cmp_bench_funcs(struct bp_cmp_bench *b, const struct stacks *st);

/* ---------------------------------------------- compare_kernel.c */

/* Whether the frame of len bytes is a kernel frame (marked
 * BP_CMP_KERNEL_MARK). */
bool bpi_cmp_kernel_frame(const char *frame, size_t len);
/* Whether it is a kernel frame where an interrupt entered the kernel
 * (or its bookkeeping): the sample is the machine's interrupt handling
 * from there on. */
bool bpi_cmp_interrupt_frame(const char *frame, size_t len);
/* A stack from a profile that did not mark its kernel frames (an older
 * benchprof's) with every frame from the first known kernel entry (a
 * system call's, an exception's, an interrupt's) marked, into out
 * (NUL-terminated); false, out untouched, when stack has a marked frame
 * already or no known entry.  So that a base recorded before kernel
 * frames were marked matches the head's kernel functions by name. */
bool bpi_cmp_mark_kernel(const char *stack, struct bp_buf *out);

/* -------------------------------------------- compare_measures.c */

/* cb's measures (base's order, then head's own), judged, and its verdict. */
bp_code bpi_cmp_bench_measures(struct bp_cmp_bench *cb,
                               const struct bp_bench *base,
                               const struct bp_bench *head,
                               const cJSON *const reps[2], double threshold);
/* head's Bencher uuids and alerts for cb; an alert gives the verdict. */
bp_code bpi_cmp_bench_bencher(const struct bp_cmp *c, struct bp_cmp_bench *cb,
                              const struct side *head);
/* cb's verdict and key measure again, after a measure was added. */
void bpi_cmp_pick_max(struct bp_cmp_bench *cb);
/* Which of cb's measures are per iteration (the sides' harness facts in
 * cb->base and cb->head), and which of those the iteration counts move
 * (follows_iterations: not counted); then cb's verdict again.  After
 * Bencher's alerts, which would judge them otherwise. */
void bpi_cmp_measures_per_iteration(struct bp_cmp_bench *cb,
                                    double threshold);

/* --------------------------------------------- compare_offcpu.c */

/* With off-CPU time on both sides: the measure "off-cpu" and the waiting
 * stack that changed most (cb->off_stack). */
bp_code bpi_cmp_bench_off_cpu(struct bp_cmp_bench *cb, const struct side *base,
                              const struct side *head, double threshold,
                              struct bp_err *err);

#endif
