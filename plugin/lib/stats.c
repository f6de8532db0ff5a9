/* stats: Mann-Whitney U, its interval of the ratio, Poisson intervals.
 * See stats.h. */
#include "bp_setup.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PAIRS 4000000   /* ratios held for an interval */

static int by_value(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double bpi_stats_median(double *v, size_t n)
{
  qsort(v, n, sizeof(*v), by_value);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* U of b against a: pairs (a_i, b_j) with b_j > a_i, ties half. */
static double u_statistic(const double *a, size_t na, const double *b,
                          size_t nb)
{
  double u = 0;
  for(size_t i = 0; i < na; i++)
    for(size_t j = 0; j < nb; j++)
      u += b[j] > a[i] ? 1 : b[j] == a[i] ? 0.5 : 0;
  return u;
}

/* The exact null distribution of U for na and nb values without ties, as
 * probabilities of U = 0 .. na * nb (malloc'd; NULL when out of memory).
 * Counts of arrangements: f(n, m, u) = f(n - 1, m, u - m) + f(n, m - 1, u),
 * one row of m at a time. */
static double *u_distribution(size_t na, size_t nb)
{
  size_t span = na * nb + 1;
  double *prev = calloc((nb + 1) * span, sizeof(double));
  double *cur = calloc((nb + 1) * span, sizeof(double));
  double *out = malloc(span * sizeof(double));
  if(!prev || !cur || !out) {
    free(prev);
    free(cur);
    free(out);
    return NULL;
  }
  for(size_t m = 0; m <= nb; m++)
    prev[m * span] = 1;                    /* n = 0: only U = 0 */
  for(size_t n = 1; n <= na; n++) {
    memset(cur, 0, (nb + 1) * span * sizeof(double));
    cur[0] = 1;                            /* m = 0: only U = 0 */
    for(size_t m = 1; m <= nb; m++)
      for(size_t u = 0; u < span; u++)
        cur[m * span + u] = (u >= m ? prev[m * span + u - m] : 0) +
                            cur[(m - 1) * span + u];
    double *t = prev;
    prev = cur;
    cur = t;
  }
  double total = 0;
  for(size_t u = 0; u < span; u++)
    total += prev[nb * span + u];
  for(size_t u = 0; u < span; u++)
    out[u] = prev[nb * span + u] / total;
  free(prev);
  free(cur);
  return out;
}

static bool exact(size_t na, size_t nb)
{
  return na <= BP_STATS_EXACT_MAX && nb <= BP_STATS_EXACT_MAX;
}

/* The number of tied groups' t^3 - t over both samples (tie correction). */
static double tie_term(const double *a, size_t na, const double *b,
                       size_t nb)
{
  size_t n = na + nb;
  double *all = malloc(n * sizeof(*all)), sum = 0;
  if(!all)
    return 0;
  memcpy(all, a, na * sizeof(*a));
  memcpy(all + na, b, nb * sizeof(*b));
  qsort(all, n, sizeof(*all), by_value);
  for(size_t i = 0; i < n;) {
    size_t j = i;
    while(j < n && all[j] == all[i])
      j++;
    double t = (double)(j - i);
    sum += t * t * t - t;
    i = j;
  }
  free(all);
  return sum;
}

double bpi_stats_mann_whitney(const double *a, size_t na, const double *b,
                              size_t nb)
{
  if(!na || !nb)
    return 1;
  double u = u_statistic(a, na, b, nb), mean = (double)(na * nb) / 2;
  if(exact(na, nb)) {
    double *p = u_distribution(na, nb), lower = 0, upper = 0;
    if(!p)
      return NAN;
    /* P(U <= u) and P(U >= u); half-integer U (ties) rounds outwards */
    for(size_t k = 0; k <= na * nb; k++) {
      if((double)k <= u)
        lower += p[k];
      if((double)k >= u)
        upper += p[k];
    }
    free(p);
    double two = 2 * (lower < upper ? lower : upper);
    return two > 1 ? 1 : two;
  }
  double n = (double)(na + nb);
  double var = (double)(na * nb) / 12 *
               (n + 1 - tie_term(a, na, b, nb) / (n * (n - 1)));
  if(var <= 0)
    return 1;
  double z = (fabs(u - mean) - 0.5) / sqrt(var);  /* continuity */
  return z <= 0 ? 1 : erfc(z / sqrt(2));
}

/* The largest k with P(U <= k) <= alpha / 2; false when there is none. */
static bool critical_u(size_t na, size_t nb, double alpha, size_t *k)
{
  if(exact(na, nb)) {
    double *p = u_distribution(na, nb), cdf = 0;
    bool found = false;
    if(!p)
      return false;
    for(size_t u = 0; u <= na * nb; u++) {
      cdf += p[u];
      if(cdf > alpha / 2 + 1e-12)
        break;
      *k = u;
      found = true;
    }
    free(p);
    return found;
  }
  double mean = (double)(na * nb) / 2;
  double sd = sqrt((double)(na * nb) * (double)(na + nb + 1) / 12);
  double z = alpha <= 0.01 + 1e-9 ? BP_STATS_Z : 1.96;
  double c = floor(mean - z * sd - 0.5);
  if(c < 0)
    return false;
  *k = (size_t)c;
  return true;
}

bool bpi_stats_ratio_interval(const double *a, size_t na, const double *b,
                              size_t nb, double confidence, double *lo,
                              double *hi, double *est)
{
  size_t k = 0, n = na * nb;
  if(!na || !nb || n > MAX_PAIRS ||
     !critical_u(na, nb, 1 - confidence, &k))
    return false;
  double *r = malloc(n * sizeof(*r));
  if(!r)
    return false;
  for(size_t i = 0; i < na; i++)
    for(size_t j = 0; j < nb; j++) {
      if(!(a[i] > 0) || !(b[j] > 0)) {
        free(r);
        return false;
      }
      r[i * nb + j] = b[j] / a[i];
    }
  *est = bpi_stats_median(r, n);   /* sorts r */
  *lo = r[k];
  *hi = r[n - 1 - k];
  free(r);
  return true;
}

double bpi_stats_z_two_sided(double alpha)
{
  /* erfc(z / sqrt 2) falls from 1 at z = 0: bisect; 80 halvings of
   * [0, 40] leave far less than a double's precision */
  double lo = 0, hi = 40;
  for(int i = 0; i < 80; i++) {
    double mid = (lo + hi) / 2;
    if(erfc(mid / sqrt(2)) > alpha)
      lo = mid;
    else
      hi = mid;
  }
  return (lo + hi) / 2;
}

double bpi_stats_z_family(size_t ntests)
{
  return bpi_stats_z_two_sided((1 - BP_STATS_FAMILY_CONFIDENCE) /
                               (double)(ntests ? ntests : 1));
}

double bpi_stats_poisson_halfwidth(uint64_t ca, double wa, uint64_t cb,
                                   double wb, double z)
{
  return z * sqrt((double)cb * wb * wb + (double)ca * wa * wa);
}
