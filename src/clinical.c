/*
 * clinical.c: the clinical kernel of Paul and Dupont (ESANN 2014), eq. (3)-(4),
 * and the per-feature sums that make it cheap to select with. Numeric core:
 * no R API.
 *
 * The data arrive encoded once by R (clinical_encode() in
 * R/kernel-clinical.R): a continuous (or ordinal) column shifted and divided
 * by its range in the training data, so that its kernel is 1 - |a - b|; a
 * categorical column as level codes, whose kernel is 1[a == b]. The kernel
 * is the average (or, for MKL, a weighted sum) of these per-feature kernels,
 * so everything here is a loop over features of a loop over pairs.
 */
#include <math.h>
#include "clinical.h"

void bk_clinical_cols(const double *za, ptrdiff_t ma, const double *zb,
                      ptrdiff_t mb, ptrdiff_t p, const int *cat,
                      const double *weight, int sym, ptrdiff_t j0, ptrdiff_t j1,
                      double *K, int nthreads)
{
  const double scale = p > 0 ? 1.0 / (double) p : 0.0;
  /* threads for enough work only: rfe() computes thousands of small kernels */
  const int par = nthreads > 1 &&
                  (double) (j1 - j0) * (double) ma * (double) p >= BK_PAR_MIN_PAIRS;
  (void) par;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 8) num_threads(nthreads) if (par)
#endif
  for (ptrdiff_t j = j0; j < j1; j++) {
    double *col = K + ma * j;
    /* the Gram matrix of one set: the upper triangle, mirrored later */
    const ptrdiff_t n = sym ? j + 1 : ma;
    for (ptrdiff_t i = 0; i < n; i++) col[i] = 0.0;
    /* eq. (4), k_f = 1 - d_f on the encoded values: 1[a == b] for a
     * categorical feature, 1 - |a - b| for a range-scaled continuous one.
     * Features in a fixed order: the same sums for any number of threads */
    for (ptrdiff_t f = 0; f < p; f++) {
      const double *af = za + ma * f, bj = zb[j + mb * f];
      const double w = weight ? weight[f] : 1.0;
      if (cat[f]) {
        BK_SIMD
        for (ptrdiff_t i = 0; i < n; i++) col[i] += w * (double) (af[i] == bj);
      } else {
        BK_SIMD
        for (ptrdiff_t i = 0; i < n; i++) col[i] += w * (1.0 - fabs(af[i] - bj));
      }
    }
    /* eq. (3): the plain average; a weighted sum (eq. 8) is left as it is */
    if (!weight)
      for (ptrdiff_t i = 0; i < n; i++) col[i] *= scale;
  }
  (void) nthreads;
}

void bk_clinical_mirror(double *K, ptrdiff_t m)
{
  for (ptrdiff_t j = 0; j < m; j++)
    for (ptrdiff_t i = j + 1; i < m; i++) K[i + m * j] = K[j + m * i];
}

void bk_clinical_dot(const double *z, ptrdiff_t m, ptrdiff_t p, const int *cat,
                     const double *W, double *out, int nthreads)
{
  /* k_f(a, a) = 1 for every feature: the diagonal contributes tr W */
  double tr = 0.0;
  for (ptrdiff_t a = 0; a < m; a++) tr += W[a + m * a];
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads) if (nthreads > 1 && (double) p * (double) m * (double) m > 1e6)
#endif
  for (ptrdiff_t f = 0; f < p; f++) {
    const double *zf = z + m * f;
    const int c = cat[f];
    double off = 0.0;
    for (ptrdiff_t b = 1; b < m; b++) {
      const double *wb = W + m * b, zb = zf[b];
      double t = 0.0;
      if (c) {
        BK_SIMD_SUM(t)
        for (ptrdiff_t a = 0; a < b; a++) t += wb[a] * (double) (zf[a] == zb);
      } else {
        BK_SIMD_SUM(t)
        for (ptrdiff_t a = 0; a < b; a++) t += wb[a] * (1.0 - fabs(zf[a] - zb));
      }
      off += t;
    }
    out[f] = tr + 2.0 * off;
  }
  (void) nthreads;
}
