/*
 * maxt.c: per-feature two-sample statistics (and Pearson correlations)
 * under permutations of the labels, and the counts of the Westfall-Young
 * step-down maxT (Westfall and Young 1993; Ge, Dudoit and Speed 2003,
 * algorithm 4). Numeric core: no R API, no
 * allocation (the glue hands in every work array).
 *
 * The data come feature-major, xt = t(x) (p x m): sample i is the
 * contiguous column xt[, i], so that the class sums of every feature for one
 * labelling are sums of whole columns over the samples of the smaller class
 * (n_small * p additions and as many products for the squares), a loop the
 * compiler vectorises. The obvious alternative, X' Z with the BLAS for an
 * m x B 0/1 matrix Z, spends 2 m p B flops where this spends about
 * 2 min(n_1, n_2) p B, and with R's reference BLAS it is slower still.
 * Permutations run in parallel, each on one thread from start to end in a
 * fixed order, and the counts are integers, so the results do not depend on
 * the number of threads.
 */
#include <float.h>
#include <math.h>
#include <string.h>
#include "inference.h"

/* the statistics of one feature from the class sums (s) and sums of squares
 * (q) of class 1 and class 2. Where the spread is 0: +-Inf when the class
 * means differ (perfect separation: the largest statistic there is), NaN
 * when they are equal too (a constant feature: no statistic) */
/* features per block of the class sums: 2 x 8 kB of accumulators */
#define BK_MAXT_BLOCK 1024

static double two_sample(int stat, double s1, double q1, double n1, double s2,
                         double q2, double n2, ptrdiff_t m, double *aux)
{
  const double mean1 = s1 / n1, mean2 = s2 / n2, diff = mean2 - mean1;
  /* within-class sums of squares; >= 0 in exact arithmetic */
  double ss1 = q1 - s1 * mean1, ss2 = q2 - s2 * mean2;
  /* q - s * mean cancels: a sum of squares within the rounding of q is none,
   * so that a labelling and its class swap (whose class sums are the total
   * minus the other's) agree that a feature separates the classes */
  const double tol = 8.0 * DBL_EPSILON * (double) m;
  ss1 = ss1 > tol * q1 ? ss1 : 0.0;
  ss2 = ss2 > tol * q2 ? ss2 : 0.0;
  double den;
  switch (stat) {
  case BK_PERM_WELCH: /* Song et al. 2012, eq. 24 */
    den = sqrt(ss2 / ((n2 - 1.0) * n2) + ss1 / ((n1 - 1.0) * n1));
    break;
  case BK_PERM_POOLED:
    den = sqrt((ss1 + ss2) / (double) (m - 2) * (1.0 / n1 + 1.0 / n2));
    break;
  case BK_PERM_SNR: /* s-bar = s_+ + s_-, section 6.2 */
    den = sqrt(ss2 / (n2 - 1.0)) + sqrt(ss1 / (n1 - 1.0));
    break;
  case BK_PERM_MOMENTS: /* the moderated t needs the prior of all features */
    *aux = (ss1 + ss2) / (double) (m - 2);
    return diff;
  default: /* BK_PERM_LIN */
    return diff;
  }
  if (den > 0.0) return diff / den;
  return diff != 0.0 ? copysign(INFINITY, diff) : NAN;
}

/* the totals over all samples of every feature and of its squares, for
 * the class not summed */
static void feature_totals(const double *xt, ptrdiff_t p, ptrdiff_t m,
                           double *tot, double *totq)
{
  for (ptrdiff_t j = 0; j < p; j++) tot[j] = totq[j] = 0.0;
  for (ptrdiff_t i = 0; i < m; i++) {
    const double *xi = xt + p * i;
    BK_SIMD
    for (ptrdiff_t j = 0; j < p; j++) {
      tot[j] += xi[j];
      totq[j] += xi[j] * xi[j];
    }
  }
}

/* xt's rows and y are centred with unit norm: r = sum x_i y_pi(i), into acc
 * (zeroed), in blocks of features */
static void perm_correlations(const double *xt, ptrdiff_t p, ptrdiff_t m,
                              const double *y, const int *pb, double *acc)
{
  for (ptrdiff_t j0 = 0; j0 < p; j0 += BK_MAXT_BLOCK) {
    const ptrdiff_t j1 = j0 + BK_MAXT_BLOCK < p ? j0 + BK_MAXT_BLOCK : p;
    for (ptrdiff_t i = 0; i < m; i++) {
      const double *xi = xt + p * i, yi = y[pb[i]];
      BK_SIMD
      for (ptrdiff_t j = j0; j < j1; j++) acc[j] += xi[j] * yi;
    }
  }
}

/* the sums (acc) and sums of squares (accq), both zeroed, of every feature
 * over the samples of class `small` under the labelling pb: in blocks of
 * features whose two accumulators stay in the L1 cache while the samples
 * stream past, four samples per pass (a quarter of the loads and stores of
 * the accumulators); the order of the sums depends on the labelling only */
static void class_sums(const double *xt, ptrdiff_t p, ptrdiff_t m,
                       const int *cls, const int *pb, int small, double *acc,
                       double *accq)
{
  for (ptrdiff_t j0 = 0; j0 < p; j0 += BK_MAXT_BLOCK) {
    const ptrdiff_t j1 = j0 + BK_MAXT_BLOCK < p ? j0 + BK_MAXT_BLOCK : p;
    const double *q[4];
    int nq = 0;
    for (ptrdiff_t i = 0; i < m; i++) {
      if (cls[pb[i]] != small) continue;
      q[nq++] = xt + p * i;
      if (nq < 4) continue;
      nq = 0;
      const double *q0 = q[0], *q1 = q[1], *q2 = q[2], *q3 = q[3];
      BK_SIMD
      for (ptrdiff_t j = j0; j < j1; j++) {
        const double a = q0[j], b = q1[j], c = q2[j], d = q3[j];
        acc[j] += (a + b) + (c + d);
        accq[j] += (a * a + b * b) + (c * c + d * d);
      }
    }
    for (int k = 0; k < nq; k++) {
      const double *xi = q[k];
      BK_SIMD
      for (ptrdiff_t j = j0; j < j1; j++) {
        acc[j] += xi[j];
        accq[j] += xi[j] * xi[j];
      }
    }
  }
}

void bk_perm_stats(int stat, const double *xt, ptrdiff_t p, ptrdiff_t m,
                   const int *cls, const double *y, const int *perm,
                   ptrdiff_t B, double *out, double *out2, double *work,
                   int nthreads)
{
  (void) nthreads; /* used by the pragma only: unused without OpenMP */
  double *tot = work, *totq = work + p;
  if (stat != BK_PERM_PC) feature_totals(xt, p, m, tot, totq);
  ptrdiff_t n2 = 0;
  if (stat != BK_PERM_PC)
    for (ptrdiff_t i = 0; i < m; i++) n2 += cls[i];
  const ptrdiff_t n1 = m - n2;
  /* sum the smaller class; the other is the total minus it */
  const int small = n2 <= n1 ? 1 : 0;

#pragma omp parallel for schedule(static) num_threads(nthreads) if (nthreads > 1 && B > 1)
  for (ptrdiff_t b = 0; b < B; b++) {
    double *acc = work + 2 * p + 2 * p * bk_thread_id(), *accq = acc + p;
    const int *pb = perm + m * b;
    double *ob = out + p * b;
    for (ptrdiff_t j = 0; j < p; j++) acc[j] = accq[j] = 0.0;
    if (stat == BK_PERM_PC) {
      perm_correlations(xt, p, m, y, pb, acc);
      for (ptrdiff_t j = 0; j < p; j++) ob[j] = acc[j];
      continue;
    }
    class_sums(xt, p, m, cls, pb, small, acc, accq);
    const double dn1 = (double) n1, dn2 = (double) n2;
    double *ob2 = out2 ? out2 + p * b : NULL;
    for (ptrdiff_t j = 0; j < p; j++) {
      double s2, q2, s1, q1, aux = 0.0;
      if (small == 1) {
        s2 = acc[j];
        q2 = accq[j];
        s1 = tot[j] - s2;
        q1 = totq[j] - q2;
      } else {
        s1 = acc[j];
        q1 = accq[j];
        s2 = tot[j] - s1;
        q2 = totq[j] - q1;
      }
      ob[j] = two_sample(stat, s1, q1, dn1, s2, q2, dn2, m, &aux);
      if (ob2) ob2[j] = aux;
    }
  }
}

void bk_maxt_count(const double *stat, ptrdiff_t p, ptrdiff_t B,
                   const int *order, ptrdiff_t q, const double *thr,
                   int *raw, int *adj, int *work, int nthreads)
{
  const ptrdiff_t per = p + q;
  for (ptrdiff_t j = 0; j < per * nthreads; j++) work[j] = 0;

#pragma omp parallel for schedule(static) num_threads(nthreads) if (nthreads > 1 && B > 1)
  for (ptrdiff_t b = 0; b < B; b++) {
    int *r = work + per * bk_thread_id(), *a = r + p;
    const double *sb = stat + p * b;
    /* raw: |T_b,j| >= |T_j| (thr holds |T_j| less a rounding allowance);
     * a NaN statistic counts for nothing */
    for (ptrdiff_t j = 0; j < p; j++) r[j] += fabs(sb[j]) >= thr[j];
    /* step-down: successive maxima from the least significant feature up
     * (Ge, Dudoit and Speed 2003, algorithm 4) */
    double u = -INFINITY;
    for (ptrdiff_t k = q - 1; k >= 0; k--) {
      const double v = fabs(sb[order[k]]);
      if (v > u) u = v;
      a[k] += u >= thr[order[k]];
    }
  }
  /* integer sums: the same in any order */
  for (ptrdiff_t j = 0; j < p; j++) raw[j] = 0;
  for (ptrdiff_t k = 0; k < q; k++) adj[k] = 0;
  for (int t = 0; t < nthreads; t++) {
    const int *r = work + per * t, *a = r + p;
    for (ptrdiff_t j = 0; j < p; j++) raw[j] += r[j];
    for (ptrdiff_t k = 0; k < q; k++) adj[k] += a[k];
  }
}
