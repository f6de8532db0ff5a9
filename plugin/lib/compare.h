/* compare: two runs of `benchprof run` (their directories) -> what
 * changed.  Input: each side's manifest.json, report.json and, per
 * benchmark, its folded stacks and summary.json.  Output: struct bp_cmp,
 * per benchmark present on both sides: every BMF measure's delta (flagged
 * as a regression or improvement beyond a threshold, in the measure's own
 * direction), the functions whose share of the samples changed most, and
 * the differential folded stacks (only when both sides have its profile:
 * a side without one is said, bp_cmp_profile_state, and the measures are
 * compared all the same); benchmarks on one side only are listed as new
 * or removed, with that side's measures.  bpi_compare_write puts it in a compare directory
 * (compare.json, and per benchmark diff.folded, diff.svg,
 * diff-negated.svg, and diff.offcpu.svg with off-CPU stacks on both
 * sides).  Owns every string and array of struct bp_cmp.  Not
 * thread-safe. */
#ifndef BP_LIB_COMPARE_H
#define BP_LIB_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "benchprof/benchprof.h"
#include "buf.h"
#include "store.h"

/* percent.  Two jobs of one commit on a shared runner drift apart by
 * more than 2%: two `--repeat 5` runs of the same binary under load were
 * 6.7% apart in task-clock, every repetition of one above every one of
 * the other (docs/verdicts.md).  A default below that drift reports
 * noise as regressions; a quiet, dedicated runner can ask for less
 * (comment.threshold, --threshold). */
#define BP_CMP_THRESHOLD_DEFAULT 5.0
#define BP_CMP_FUNCTIONS_DEFAULT 10

struct bp_cmp_opts {
  double threshold_pct;    /* flag changes beyond this; <= 0: the default */
  const char *base_url;    /* where base's run directory is served, used */
  const char *head_url;    /* when its manifest has no publication; NULL */
  /* comment.wall_time_only "regression": a confirmed latency change the
   * CPU time did not follow counts as a confirmed regression or
   * improvement (a dedicated, quiet runner); false ("separate", the
   * default): it is a verdict of its own, not counted (wall_only) */
  bool wall_time_counted;
};

enum bp_cmp_flag {
  BP_CMP_UNCHANGED = 0,
  BP_CMP_REGRESSION,
  BP_CMP_IMPROVEMENT
};

enum bp_cmp_presence {
  BP_CMP_BOTH = 0,
  BP_CMP_NEW,       /* head only */
  BP_CMP_REMOVED    /* base only */
};

/* What a measure's verdict rests on (see docs: how verdicts are decided). */
enum bp_cmp_basis {
  BP_CMP_SINGLE = 0,   /* one value a side, no spread: never confirmed */
  BP_CMP_BOUNDS,       /* lower/upper bounds: intervals that do not overlap */
  BP_CMP_REPEATS,      /* values of repetitions: the Mann-Whitney U test */
  BP_CMP_BENCHER       /* Bencher's alert for the measure */
};

/* One side's values of a measure: its value and, when known, its bounds
 * and every repetition's value. */
struct bp_cmp_values {
  bool has_bounds;
  double lower, upper;
  double *reps;            /* NULL when none (owned) */
  size_t nreps;
};

struct bp_cmp_measure {
  char *slug;
  bool in_base, in_head;
  double base, head;
  double delta;            /* head - base */
  double pct;              /* 100 * delta / |base|; NAN when base is 0 */
  bool higher_is_better;   /* throughput; latency and counters: lower */
  enum bp_cmp_flag change; /* beyond the threshold, confirmed or not */
  enum bp_cmp_flag flag;   /* the verdict: change when it is confirmed */
  enum bp_cmp_basis basis;
  bool unconfirmed;        /* change, but no spread (or too little) to
                              test it: never counted */
  struct bp_cmp_values vbase, vhead;
  bool has_interval;       /* pct_lo..pct_hi: the change's interval, */
  double pct_lo, pct_hi;   /* percent (99% for repetitions, the bounds'
                              extremes for bounds) */
  double p_value;          /* Mann-Whitney's, NAN when not tested */
  char *alert_url;         /* Bencher's alert, NULL when none (owned) */
  char *bencher_uuid;      /* head's Bencher measure uuid, or NULL */
  bool per_iteration;      /* its values are per benchmark iteration on
                              the side(s) that have it (Google Benchmark's
                              latency; counters divided by the iterations
                              they cover); else per run, or a rate */
  bool follows_iterations; /* a counter the process counts mostly once
                              (page faults), per iteration, whose change
                              goes the way the sides' different iteration
                              counts push it: not counted, whatever its
                              size (bpi_cmp_measures_per_iteration) */
  /* latency's confirmed change (flag) when the CPU time demonstrably did
   * not follow (bpi_compare_waited) and nothing shows the waiting is the
   * code's (off-cpu confirmed the same way): "slower (faster) in wall
   * time only", not counted as a regression (improvement); UNCHANGED
   * otherwise, and always with bp_cmp_bench.wall_time_counted */
  enum bp_cmp_flag wall_only;
};

/* A change beyond the threshold without the spread to confirm it with
 * ("unconfirmed (single run)"; or too few repetitions for the test); with
 * spread, an unconfirmed change is within the noise, and unchanged. */
#define BP_CMP_UNCONFIRMED(m) ((m)->unconfirmed)

/* Where a benchmark's noise band for its functions comes from. */
enum bp_cmp_band_basis {
  BP_CMP_BAND_CONFIRMED = 0, /* the measure's change is confirmed: {0} */
  BP_CMP_BAND_INTERVAL,      /* the measure's interval, 0 included */
  BP_CMP_BAND_TOTAL          /* no interval to go by: the change of the
                                profile's total cost, 0 included */
};

/* How far the benchmark's own noise may scale every function at once,
 * as relative changes lo <= 0 <= hi.  A drift between two jobs (CPU
 * frequency, load) scales every function alike, and with enough samples
 * the Poisson interval of each tells that from 0; only the benchmark's
 * measure, with its repetitions and threshold, can tell a drift from a
 * uniform real change.  So a function is named only when its change
 * lies beyond what that noise would make of its base cost. */
struct bp_cmp_band {
  double lo, hi;
  enum bp_cmp_band_basis basis;
  const char *measure;     /* the measure it comes from (its slug, in the
                              benchmark's measures); for TOTAL, NULL (the
                              profile's total cost) or the measure that is
                              the total ("off-cpu", the off-CPU band) */
};

/* Whether a cost's change d +- half (its Poisson interval) lies wholly
 * outside base * [band->lo, band->hi]; band NULL: outside {0}. */
bool bpi_compare_beyond_band(const struct bp_cmp_band *band, double base,
                             double d, double half);

/* Whether the band lets a change through unnamed (it is wider than {0}). */
bool bpi_compare_band_wide(const struct bp_cmp_band *band);
/* The most the band makes of a whole of `total` (its wider side, as a
 * size): the off-CPU stacks' floor.  Their times are measured, so they
 * have no Poisson interval of their own, but a stack of a few hundred
 * microseconds (a program's start waiting on the page cache) that comes
 * and goes between runs moves by -100%: a change smaller than the noise
 * of all the blocked time cannot be told from it.  Only for a band that
 * is an interval (a measured spread of the whole, from repetitions); 0
 * for any other, or NULL. */
double bpi_compare_band_floor(const struct bp_cmp_band *band, double total);
/* The band in words for a sentence: "task-clock's interval, -11.7% to
 * +38.8%" or "the total cost's change, +0.0% to +16.5%" (no markup). */
void bpi_compare_band_text(const struct bp_cmp_band *band,
                           struct bp_buf *out);

/* A function's samples on each side; shares are of that side's total.
 * Costs are in the sampled event's unit (bench->unit) per benchmark
 * iteration when both sides know their iterations (bench->per_iteration),
 * else per run (a repetition of --repeat): samples x the event count a
 * sample stands for / the iterations (or runs) the profile covers; the
 * change carries a Poisson interval (99% for all of the benchmark's
 * functions together: Bonferroni, bench->func_z) and is significant when
 * the interval lies wholly outside the base cost x bench->band. */
struct bp_cmp_func {
  char *name;
  uint64_t base_self, base_total, head_self, head_total;
  double d_self, d_total;  /* change of the share, percentage points */
  double base_self_cost, head_self_cost, base_total_cost, head_total_cost;
  double d_self_cost, d_total_cost;        /* head - base */
  double self_half, total_half;            /* the intervals' half-widths */
  bool self_significant, total_significant;
  /* a caller (main, a harness's loop) whose self change is within the
   * noise and whose total change is its listed callees': the lines
   * through it that pass through no function with a row change no more
   * than the noise band allows.  It gets no row (it would repeat a
   * callee's) and is never "grew most" by its total. */
  bool echo;
  /* a kernel function: profile.folded marked its frames
   * BP_CMP_KERNEL_MARK (name is without the mark).  A user function of
   * the same name is another function. */
  bool kernel;
  /* BP_CMP_INTERRUPTS: the kernel part of every sample an interrupt
   * entered (compare_kernel.c), the machine's interrupt handling, which
   * the benchmark does not control.  It has its row, but is never named
   * as grew or shrank most (bpi_compare_top_func), nor as the largest
   * change or the one that holds the samples. */
  bool interrupts;
};

/* The mark of a kernel frame in folded stacks (flamegraph.pl's). */
#define BP_CMP_KERNEL_MARK "_[k]"
/* The one function that holds the samples of interrupts (kernel). */
#define BP_CMP_INTERRUPTS "[interrupts]"

/* One line of the differential folded stacks. */
struct bp_diff_line {
  char *stack;             /* "proc;main;work" */
  uint64_t base, head;
};

/* Whether a side that has a benchmark has its profile to compare.
 * Without one on a side, the benchmark's measures are compared all the
 * same; its functions, off-CPU stacks and differential flame graphs are
 * not, and the comment says why. */
enum bp_cmp_profile_state {
  BP_CMP_PROFILED = 0,
  BP_CMP_PROFILE_NONE,     /* the manifest names no folded stacks of it
                              (a run without profiling) */
  BP_CMP_PROFILE_MISSING   /* it names them, but the file is not there:
                              an artifact that was not stored or copied,
                              an object the store lost */
};

/* What a side knows about one benchmark's profile. */
struct bp_cmp_profile {
  enum bp_cmp_profile_state state;
  char *missing_file;      /* with BP_CMP_PROFILE_MISSING: the folded
                              stacks' file, relative to the run */
  char *dir;               /* the benchmark's directory in the run, "." */
  char *gecko_file;        /* relative to the run, NULL when none */
  char *gecko_url;         /* public URL of it, NULL when unknown */
  char *svg_url;           /* public URL of its flame graph, or NULL */
  uint32_t thread;         /* the Gecko thread the viewer links open:
                              the one with most samples; under --repeat
                              the median repetition's of its kind */
  unsigned link_rep;       /* ... that repetition's number, 1-based; 0
                              when the links open no one repetition */
  unsigned repeat;         /* the run's repetitions (--repeat) */
  uint64_t samples;        /* in its folded stacks */
  char *event;             /* the sampled event, NULL when unknown */
  bool time_event;         /* its unit is ns (a clock) */
  double per_sample;       /* events one sample stands for; 0: unknown */
  double runs;             /* runs the profile covers: the repetitions
                              (run --repeat), at least 1; the runs its
                              measures are per */
  double iterations;       /* benchmark iterations the profile covers
                              (its CPU time over the harness's CPU time
                              of one iteration); 0: unknown */
  double harness_iterations; /* the iterations the harness measured in
                                one run (Google Benchmark's: the
                                manifest's "iterations" over the
                                repetitions, runs); 0: unknown */
  double iteration_cpu_ns; /* the harness's CPU time of one; 0: unknown
                              (its counters are then per run) */
};

struct bp_cmp_bench {
  char *name;
  char *base_name;         /* the base's name of it when that differs by a
                              build hash (bpi_benchname_hash_renamed:
                              the only new and the only removed benchmark
                              of a binary named with its build's hash),
                              NULL when the names are the same */
  char *dir;               /* its directory in the compare output, "." */
  enum bp_cmp_presence presence;
  enum bp_cmp_flag flag;   /* worst confirmed verdict of its measures
                              (a wall-time-only change not counted) */
  enum bp_cmp_flag wall_only; /* with no counted verdict: a measure's
                                 wall-time-only change (bp_cmp_measure) */
  enum bp_cmp_flag unconfirmed; /* worst unconfirmed change, when no
                                   verdict is confirmed nor wall-only */
  bool wall_time_counted;  /* bp_cmp_opts.wall_time_counted */
  double max_pct;          /* the change of the measure that gives the
                              verdict: the largest regression, else the
                              largest improvement, else the largest
                              unconfirmed change; 0 when none */
  const char *max_slug;    /* that measure, NULL when none */
  const struct bp_cmp_measure *max; /* ... and the measure itself */
  struct bp_cmp_measure *measures;  /* a new or removed benchmark's: its
                                       one side's values, unjudged */
  size_t nmeasures;
  bool has_cost;           /* both sides' per_sample known: funcs have
                              absolute costs */
  const char *unit;        /* "ns" or "events" when has_cost */
  bool per_iteration;      /* costs per benchmark iteration (both sides
                              know their iterations), else per run */
  /* its profile is the whole run's, which other benchmarks' manifest
   * entries name too (a harness that ran them in one process without
   * marking them): its functions are no one benchmark's, its noise band
   * is the profile's total change alone (no benchmark's verdict
   * confirms it) and its costs are per run */
  bool shared_profile;
  struct bp_cmp_func *funcs;   /* most changed first (absolute when
                                  has_cost, else by share) */
  size_t nfuncs;
  double func_z;           /* the z of the functions' Poisson intervals
                              (bpi_stats_z_family(nfuncs)), with costs */
  struct bp_cmp_band band; /* the change its own noise allows every
                              function, with costs */
  struct bp_diff_line *lines;  /* sorted by stack */
  size_t nlines;
  /* the base's process name and the head's when they differed (a binary
   * renamed between them) and the base's stacks were matched under the
   * head's name (bpi_cmp_match_roots in compare_int.h); NULL when not,
   * or when they differ only by a build hash (bpi_benchname_same_process:
   * matched all the same, not told) */
  char *renamed_base_process, *renamed_head_process;
  struct bp_cmp_profile base, head;
  char *diff_url;          /* public URL of its diff.svg once published
                              (set by the caller), or NULL */
  char *diff_key;          /* its store key once published (storekey.h),
                              or NULL: where the comment says it is when
                              diff_url is no web URL (a file:// store) */
  char *bencher_uuid;      /* head's Bencher benchmark uuid, or NULL */
  /* Off-CPU (both sides recorded with --off-cpu): the measure "off-cpu"
   * (ns off CPU per run, judged like the others) is among measures, and
   * the waiting stack whose time per run changed most, with its ns per
   * run on each side (NULL when none) */
  char *off_stack;
  double off_base_ns, off_head_ns;
  /* the off-CPU noise band (struct bp_cmp_band), from the measure
   * "off-cpu" as the functions' band is from task-clock: a waiting
   * stack's change within what it makes of the stack's base time is not
   * named.  off_stack is then the largest change beyond the band, else
   * (off_within_noise) the largest change of all, shown as within it;
   * off_ns_per_us[side] is the ns per run one folded microsecond of the
   * side is (1000 / its runs).  Set when both sides have off-CPU stacks
   * (has_off_band) */
  bool has_off_band;
  struct bp_cmp_band off_band;
  bool off_within_noise;
  double off_ns_per_us[2];
  /* both sides' off-CPU stacks (microseconds blocked or preempted, as in
   * profile.offcpu.folded) as differential lines, sorted by stack: the
   * off-CPU differential flame graph (BP_FILE_DIFF_OFFCPU_SVG), which
   * shows what the on-CPU one cannot, time spent waiting; none (0) when
   * a side has no off-CPU profile */
  struct bp_diff_line *off_lines;
  size_t off_nlines;
  char *off_diff_url, *off_diff_key;   /* as diff_url and diff_key */
};

/* One side's identity, from its manifest's publication when present. */
struct bp_cmp_side {
  char *dir;
  char *project, *branch, *hash, *testbed;
  /* the commit's committer time and when the run ended (ISO 8601), from
   * a stored manifest's publication; NULL unknown.  They order the
   * comparisons the pull request's comment shows (runorder.h). */
  char *commit_time, *end_time;
  char *report_uuid;       /* Bencher report, NULL when none */
  char *bencher_url;       /* Bencher console, NULL: https://bencher.dev */
  char *manifest_url;
  /* the run's command (its manifest's), NULL unknown: a base of another
   * command is another step's, its benchmarks other ones */
  char *command;
  /* what Bencher's console plots by, from the report's answer (publish.c
   * keeps them in the manifest's publication.bencher); NULL or 0 when
   * unknown */
  char *bencher_project;   /* the project's slug */
  char *bencher_branch, *bencher_head, *bencher_testbed;   /* uuids */
  int64_t bencher_end_ms;  /* the report's end, ms since 1970 */
  /* a run directory whose publication is still in the spool with a
   * Bencher report that was not taken yet (no report uuid): the comment
   * says so, as it has no Bencher link to give */
  bool bencher_pending;
  /* how its run ended (its manifest's "outcome": "passed", "failed",
   * "interrupted"; NULL from an older manifest), with the command's exit
   * status (has_exit_status) and the signal that interrupted it (NULL
   * none): a run published anyway (--allow-failure) may have partial or
   * wrong results, which the comment says */
  char *outcome, *signal;
  bool has_exit_status;
  int exit_status;
};

struct bp_buf;

struct bp_cmp {
  struct bp_cmp_side base, head;
  char *suite;             /* both sides' suite (storekey.h), NULL none
                              or unknown (two run directories) */
  double threshold_pct;
  struct bp_cmp_bench *benches;  /* changed (largest first), unchanged,
                                    new, removed */
  size_t nbenches;
  size_t nregressions, nimprovements, nunchanged, nnew, nremoved;
  size_t nunconfirmed;     /* benchmarks among nunchanged with a change
                              beyond the threshold that is not confirmed */
  size_t nwall_slower, nwall_faster; /* benchmarks whose verdict is
                                        wall time only (bp_cmp_bench
                                        .wall_only), in none of the above */
  bool wall_time_counted;  /* bp_cmp_opts.wall_time_counted */
  bool hash_names_unpaired; /* a new and a removed benchmark differ only
                               by a build hash, but others are new or
                               removed too, so none was paired */
};

/* Whether the base run is of another command than the head's (their
 * manifests' command lines, bpi_benchname_same_command: the program's
 * file name and its arguments, not where it was built); false when
 * either is unknown. */
bool bpi_compare_other_command(const struct bp_cmp *c);

/* Every benchmark counted once, as the comment's title, the commands'
 * summaries and the commit status say it: an unconfirmed change is
 * neither a regression nor unchanged, and neither is a wall-time-only
 * one.  Appends "N regression(s) confirmed, N unconfirmed; N
 * improvement(s) confirmed, N unconfirmed; N unchanged" (with wall-time-
 * only verdicts "; N slower in wall time only, N faster in wall time
 * only (CPU time unchanged: waiting, or a busier runner)" before
 * "unchanged") and ", N new", ", N removed" when there are any. */
void bpi_compare_counts_text(const struct bp_cmp *c, struct bp_buf *b);
/* Only the wall-time-only part of that: "; N slower, N faster in wall
 * time only (CPU time unchanged: waiting, or a busier runner)", or
 * nothing when there is none. */
void bpi_compare_wall_only_text(const struct bp_cmp *c, struct bp_buf *b);
/* The same counts as numbers: unconfirmed improvements, and the
 * benchmarks unchanged (nunchanged less every unconfirmed change). */
void bpi_compare_counts(const struct bp_cmp *c, size_t *unconfirmed_improvements,
                        size_t *unchanged);

/* Compare the run directories base_dir and head_dir.  On success *out is
 * the result (free with bpi_compare_free); on failure NULL and err says
 * which file and where. */
bp_code bpi_compare_dirs(const char *base_dir, const char *head_dir,
                         const struct bp_cmp_opts *o, struct bp_cmp **out,
                         struct bp_err *err);
void bpi_compare_free(struct bp_cmp *c);

/* Write compare.json and per benchmark diff.folded, diff.svg and
 * diff-negated.svg (and diff.offcpu.svg) under out_dir (created). */
bp_code bpi_compare_write(const struct bp_cmp *c, const char *out_dir,
                          struct bp_err *err);
/* Its two halves: the diffs (out_dir created), then compare.json, which
 * a run's comparison writes after storing the diffs, so that it names
 * their store keys. */
bp_code bpi_compare_write_diffs(const struct bp_cmp *c, const char *out_dir,
                                struct bp_err *err);
bp_code bpi_compare_write_json(const struct bp_cmp *c, const char *out_dir,
                               struct bp_err *err);

/* Pieces, for tests and the comment. */
void bpi_compare_json(const struct bp_cmp *c, struct bp_buf *out);
void bpi_compare_diff_folded(const struct bp_cmp_bench *b,
                             struct bp_buf *out);
/* The function that grew most (grew true) or shrank most: with absolute
 * costs, the largest significant self change, then total; else by the
 * self share's change, then the total's; never BP_CMP_INTERRUPTS (the
 * machine's, not the benchmark's); NULL when none moved that way. */
const struct bp_cmp_func *bpi_compare_top_func(const struct bp_cmp_bench *b,
                                               bool grew);
/* b's BP_CMP_INTERRUPTS function when its self change is named (with
 * costs: significant; by share: changed), else NULL: the line that says
 * the machine's interrupt handling changed and is not the benchmark's. */
const struct bp_cmp_func *bpi_compare_interrupts(const struct bp_cmp_bench *b);
/* The function whose self samples are most (90% or more) of each side's,
 * or NULL: a change of the whole benchmark is spread over it. */
const struct bp_cmp_func *bpi_compare_dominant_func(
  const struct bp_cmp_bench *b);
/* Why no function is named for a change (bpi_compare_top_func NULL):
 * the comment's line on it and the summary on stderr say the same. */
enum bp_cmp_no_func {
  BP_CMP_NO_FUNC_DOMINANT,  /* one function holds most of the samples
                               (bpi_compare_dominant_func) and its change
                               is beyond the sampling's own noise: the
                               change is spread over it (*f) */
  BP_CMP_NO_FUNC_SAMPLES,   /* a side sampled nothing */
  BP_CMP_NO_FUNC_SHARES,    /* no costs to compare, and no share moved */
  BP_CMP_NO_FUNC_UNCHANGED, /* no function's cost changed */
  BP_CMP_NO_FUNC_SAMPLING,  /* the largest change (*f) is within the
                               sampling's own noise (its Poisson interval
                               holds 0) */
  BP_CMP_NO_FUNC_BAND       /* ... within the benchmark's noise band */
};
/* Why b names no function that grew (grew true) or shrank; *f the
 * function the reason is about (the dominant one, or the largest change
 * that way, else the largest), NULL when none. */
enum bp_cmp_no_func bpi_compare_no_func_why(const struct bp_cmp_bench *b,
                                            bool grew,
                                            const struct bp_cmp_func **f);
/* The cost one sample of side (0 base, 1 head) stands for, per
 * iteration or per run (b->per_iteration). */
double bpi_compare_sample_cost(const struct bp_cmp_bench *b, int side);
/* Whether b has differential flame graphs: both sides have it and its
 * profile (BP_CMP_PROFILED), and at least one of them sampled (a benchmark shorter than the sampling
 * period has nothing to draw: a large suite of them wrote tens of
 * thousands of empty diffs). */
bool bpi_compare_has_diff(const struct bp_cmp_bench *b);
/* Whether b has an off-CPU differential flame graph too (both sides
 * recorded with --off-cpu): BP_FILE_DIFF_OFFCPU_SVG beside diff.svg. */
bool bpi_compare_has_off_diff(const struct bp_cmp_bench *b);
/* Whether both sides' samples count in one unit: both a clock (ns), or
 * the same event.  Costs are compared only then; else by share. */
bool bpi_compare_same_unit(const struct bp_cmp_bench *b);
/* "iteration" or "run": what function costs are per. */
const char *bpi_compare_cost_per(const struct bp_cmp_bench *b);
/* Whether b is on both sides and one of them has no profile of it
 * (bp_cmp_profile_state): compared by its measures only. */
bool bpi_compare_profile_missing(const struct bp_cmp_bench *b);
/* The number of benchmarks with differential flame graphs
 * (bpi_compare_has_diff): those bpi_compare_write wrote diffs of. */
size_t bpi_compare_ndiffs(const struct bp_cmp *c);
/* The folders those diffs are in: fewer than bpi_compare_ndiffs when
 * benchmarks share one profile (one set of diffs for all of them). */
size_t bpi_compare_ndiff_folders(const struct bp_cmp *c);
/* Whether a and b (both with shared_profile) have the same profile on
 * each side: one function comparison for both. */
bool bpi_compare_same_profile(const struct bp_cmp_bench *a,
                              const struct bp_cmp_bench *b);
/* A benchmark's verdict in words: "regression", "improvement",
 * "slower in wall time only", "faster in wall time only", "unconfirmed
 * regression", "unconfirmed improvement" or "unchanged". */
const char *bpi_compare_verdict(const struct bp_cmp_bench *b);
/* Whether its verdict (confirmed or not) is a regression. */
bool bpi_compare_worse(const struct bp_cmp_bench *b);
/* Whether m's change, from one value a side, counts for nothing in cb's
 * verdict: another of cb's measures was tested against spread
 * (repetitions, bounds), and one value cannot show a change is real
 * where that test found none.  Its row still shows it. */
bool bpi_compare_outweighed(const struct bp_cmp_bench *cb,
                            const struct bp_cmp_measure *m);
/* The size of m's change, for ordering: |pct|; from 0 to anything the
 * largest of all, from 0 to 0 none. */
double bpi_compare_change_size(const struct bp_cmp_measure *m);
/* The measure a benchmark's row in the comment shows (its key measure,
 * compare.json's key_measure): the one that gives its verdict (max),
 * else its largest change beyond the threshold (within the noise or not
 * confirmed beyond it), else its largest change, a change the iteration
 * counts made (follows_iterations) only when no other is on both sides;
 * NULL when no measure is on both sides. */
const struct bp_cmp_measure *bpi_compare_key_measure(
  const struct bp_cmp_bench *cb);
/* Count c's benchmarks by presence and verdict (nnew, nremoved,
 * nregressions, nimprovements, nwall_slower, nwall_faster, nunchanged,
 * nunconfirmed), from zero: a benchmark's verdict decides its count. */
void bpi_compare_count(struct bp_cmp *c);
/* cb's measure of slug on both sides, or NULL. */
const struct bp_cmp_measure *bpi_compare_on_both(
  const struct bp_cmp_bench *cb, const char *slug);
/* Whether cb's wall time (latency) moved by more than its CPU time
 * (task-clock) can account for: latency a confirmed regression (or
 * improvement), both with intervals (repetitions or bounds), and the
 * most task-clock's change can be that way in ns under half the least
 * latency's can be, whether or not task-clock is confirmed that way too;
 * *wall_ns and *cpu_ns are those two, as sizes (a rise for a regression,
 * a fall for an improvement; *cpu_ns <= 0: CPU time not at all).
 * Absolute deltas: task-clock covers the whole process (or, per
 * iteration, the same iteration latency times), so its change bounds
 * what the CPU adds to any part of it. */
bool bpi_compare_waited(const struct bp_cmp_bench *cb, double *wall_ns,
                        double *cpu_ns);

/* Judge a measure: its direction from the slug; change: delta beyond
 * threshold_pct; flag: change when the change's whole interval lies
 * beyond threshold_pct on its side (repetitions: the 99% interval of the
 * ratio that goes with Mann-Whitney U; bounds: between the bounds' far
 * ends, or bounds apart from a base of 0; neither: never, the change
 * stays unconfirmed).  A measure with alert_url set keeps the flag its caller
 * (Bencher's alert) gave it. */
void bpi_compare_measure(struct bp_cmp_measure *m, double threshold_pct);
/* v as people read it, in the unit of the measure slug, four significant
 * digits ("89.94 ms", "+1.2M", "350 ops/s"): the time measures (latency,
 * task-clock, cpu-clock, off-cpu: ns) scaled to ns, µs, ms or s, other
 * counts with k, M, G, T, throughput followed by ops/s; sign: "+" before
 * a positive value; never e-notation (a small count per iteration is
 * "0.00007839").  The one format of the comment and the differential
 * flame graphs. */
void bpi_compare_add_value(struct bp_buf *b, const char *slug, double v,
                           bool sign);
/* A function's cost in a cost unit (bp_cmp_bench.unit): "ns" scaled as
 * a time, "events" as a count. */
void bpi_compare_add_cost(struct bp_buf *b, const char *unit, double v,
                          bool sign);
/* An ISO 8601 time (YYYY-MM-DDTHH:MM:SS, optional fraction, Z or
 * +hh:mm/-hh:mm) as ms since 1970; false when it is not one. */
bool bpi_compare_time_ms(const char *iso, int64_t *ms);

/* ------------------------------------------------ sides from a store
 * A side can be a run published to a store (publish.c):
 * BRANCH@COMMIT or BRANCH@latest.  The reference splits at its last '@';
 * BRANCH is percent-decoded, so "feature/x@..." and "feature%2Fx@..."
 * name the same branch, and a branch with '@' in it is written with %40.
 * COMMIT is a full hash (40 or 64 lowercase hex digits) or "latest". */
struct bp_cmp_ref {
  char *branch;
  char *commit;            /* NULL: the branch's latest */
};

bp_code bpi_compare_parse_ref(const char *text, struct bp_cmp_ref *ref,
                              struct bp_err *err);
void bpi_compare_ref_cleanup(struct bp_cmp_ref *ref);

/* The key of the stored manifest of project/branch/commit/testbed (and
 * suite, storekey.h; NULL or "": none), or with commit NULL the one the
 * branch's latest pointer for testbed (and suite) names
 * (*key malloc'd).  BPE_NOT_FOUND, err saying what was looked for, when
 * there is none.  repository (publish.h's, "gitlab:HOST/ID"; NULL: not
 * asked): a latest pointer that names another repository is none of
 * this one's (two repositories with one name share {project}):
 * BPE_CONFIG (returned for nothing else), err saying so and to set
 * BENCHER_PROJECT; one that names none (written before pointers did) is
 * taken. */
bp_code bpi_compare_locate(struct bp_store *st, const char *project,
                           const char *branch, const char *commit,
                           const char *testbed, const char *suite,
                           const char *repository, char **key,
                           struct bp_err *err);

/* When branch has no run on testbed of suite (NULL or "": none): what it
 * has there instead, and what to do, as a sentence (malloc'd), or NULL
 * when there is nothing to say (or no memory).  Runs of other suites are
 * found only where the store can list (bpi_store_list: a file store); a
 * suite's missing run also asks for the run without a suite (one GET of
 * its latest pointer).  pr: the advice for a pull request's run (run the
 * base branch with the suite), else for `benchprof compare`'s. */
char *bpi_compare_suite_hint(struct bp_store *st, const char *project,
                             const char *branch, const char *testbed,
                             const char *suite, bool pr);

/* Make dir (created) a side bpi_compare_dirs reads, from the stored
 * manifest at key: manifest.json (its "publication" gains the manifest's
 * public "manifest_url"; each artifact keeps its public "url"),
 * report.json (the manifest's "results"), and each benchmark's folded
 * stacks (on and off CPU) and summary at the file names the manifest
 * gives (names that would leave dir are refused).  An artifact that was
 * not stored (no key) or that the store no longer has is left out (a
 * file of that name in dir removed): the comparison then says that
 * side's profile is missing, as for a run directory without it.
 * repository as bpi_compare_locate's: a stored manifest whose identity
 * names another is BPE_CONFIG, nothing of it fetched. */
bp_code bpi_compare_fetch(struct bp_store *st, const char *key,
                          const char *repository, const char *dir,
                          struct bp_err *err);

/* export_diffsvg.c: a differential flame graph of lines, sized by head
 * (by base when negated), red = share grew, blue = shrank, intensity by
 * the change, with before/after/delta tooltips, zoom and search. */
bp_code bpi_diffsvg_write(const struct bp_diff_line *lines, size_t n,
                          bool negated, const char *title,
                          struct bp_buf *out, struct bp_err *err);
/* The same by absolute change per run (or iteration, per): per_sample
 * [side] is the event count a sample stands for divided by the side's
 * runs (or iterations); a frame is coloured as the function table names a
 * change: when the Poisson interval of its counts (z wide) lies beyond
 * its base cost x band, else white; the legend names event and what red
 * and blue mean; the tooltips give the costs as the comment does
 * (bpi_compare_add_cost: "89.94 ms"). */
struct bp_diffsvg_cost {
  double per_sample[2];    /* base, head */
  double z;                /* the Poisson interval's width, in standard
                              errors */
  const struct bp_cmp_band *band;   /* the benchmark's; NULL: {0} */
  const char *event;       /* the sampled event, for the legend */
  const char *unit;        /* "ns" or "events" */
  const char *per;         /* "run" or "iteration" (bpi_compare_cost_per);
                              NULL: "run" */
  /* off-CPU time (diff.offcpu.svg): the counts are microseconds,
   * measured rather than sampled, so no Poisson interval (z unused) and
   * the band (the off-CPU one) is the only noise; lines ending in
   * BP_FOLDED_PREEMPTED (runnable: the machine's load, not a wait) give
   * width but no colour, so a frame is coloured by its waiting time */
  bool off_cpu;
};
bp_code bpi_diffsvg_write_cost(const struct bp_diff_line *lines, size_t n,
                               bool negated, const char *title,
                               const struct bp_diffsvg_cost *cost,
                               struct bp_buf *out, struct bp_err *err);

#endif
