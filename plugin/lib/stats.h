/* stats: the few statistics a comparison's verdicts rest on, on small
 * samples of positive numbers (one value per repetition of a benchmark)
 * and on sample counts.
 *
 * - Repetitions on both sides: the Mann-Whitney U test (two-sided; exact
 *   null distribution up to BP_STATS_EXACT_MAX values a side, the normal
 *   approximation with a tie correction beyond) and the distribution-free
 *   confidence interval of the ratio head/base that goes with it (Moses'
 *   interval: order statistics of the pairwise ratios, cut where the U
 *   test's critical value says).
 * - Sample counts: a Poisson interval of the difference of two scaled
 *   counts (normal approximation of each count's Poisson variance).
 * No allocation beyond what each call frees; no state.  Needs libm. */
#ifndef BP_LIB_STATS_H
#define BP_LIB_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BP_STATS_EXACT_MAX 50   /* values a side for the exact U test */
#define BP_STATS_CONFIDENCE 0.99
#define BP_STATS_Z 2.5758       /* two-sided 99% of the normal */
#define BP_STATS_FAMILY_CONFIDENCE 0.99  /* for all of a family of tests
                                            together (Bonferroni) */

/* The z of a two-sided normal test at significance alpha (0 < alpha < 1):
 * the z with P(|Z| > z) = alpha. */
double bpi_stats_z_two_sided(double alpha);
/* The z each of ntests tests must reach for the family to hold
 * BP_STATS_FAMILY_CONFIDENCE together: Bonferroni's alpha / ntests (every
 * function of a profile is tested at once; with 50 functions, z = 3.72). */
double bpi_stats_z_family(size_t ntests);

/* The median of v[0..n) (n > 0); v is sorted in place. */
double bpi_stats_median(double *v, size_t n);

/* The two-sided p-value of the Mann-Whitney U test of a against b; 1 when
 * either is empty.  NAN only when out of memory. */
double bpi_stats_mann_whitney(const double *a, size_t na, const double *b,
                              size_t nb);

/* The confidence interval (at confidence, e.g. 0.99) of the ratio b/a
 * (a location-shift model on the log scale): every value must be > 0.
 * *lo and *hi are order statistics of the na * nb ratios b[j] / a[i];
 * *est their median (the Hodges-Lehmann estimate).  false when the
 * samples are too small for that confidence (no critical value: the
 * interval would be unbounded), a value is not positive, or out of
 * memory. */
bool bpi_stats_ratio_interval(const double *a, size_t na, const double *b,
                              size_t nb, double confidence, double *lo,
                              double *hi, double *est);

/* Two counts of Poisson events, each scaled to a unit (ca * wa and
 * cb * wb): the difference cb*wb - ca*wa and its half-width at z standard
 * deviations, z * sqrt(cb*wb^2 + ca*wa^2). */
double bpi_stats_poisson_halfwidth(uint64_t ca, double wa, uint64_t cb,
                                   double wb, double z);

#endif
