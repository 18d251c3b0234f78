/*
 * gram.c: Gram matrices of the data kernels and the median heuristic.
 * Numeric core: no R API.
 */
#include <math.h>
#include <string.h>
#include "bahsic.h"

int bk_kernel_uses_distance(int type)
{
  return type == BK_GAUSSIAN || type == BK_LAPLACE || type == BK_INVDIST;
}

double bk_kernel_value(bk_kernel kern, double v)
{
  switch (kern.type) {
  case BK_LINEAR:
    return v;
  case BK_POLYNOMIAL:
    return pow(v + kern.p2, kern.p1);
  case BK_GAUSSIAN:
    return exp(-kern.p1 * v);
  case BK_LAPLACE:
    return exp(-kern.p1 * sqrt(v));
  case BK_INVDIST:
    return 1.0 / (sqrt(v) + kern.p1);
  default:
    return NAN;
  }
}

/* Columns of K are filled in blocks small enough to stay in cache while every
 * feature column of x streams past once per block: x is read m / B times
 * instead of m times, which matters for gene matrices (d >> m). The
 * differences are formed directly, not as |x|^2 + |x'|^2 - 2 <x, x'>, so the
 * squared distances are exact to rounding and never negative. */
void bk_cross(const double *x, ptrdiff_t m, ptrdiff_t d, int dist, double *K,
              int nthreads)
{
  ptrdiff_t bs = 16384 / (m > 0 ? m : 1);
  if (bs < 1) bs = 1;
  ptrdiff_t nblocks = (m + bs - 1) / bs;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads) if (nthreads > 1)
#endif
  for (ptrdiff_t blk = 0; blk < nblocks; blk++) {
    ptrdiff_t b0 = blk * bs, b1 = b0 + bs < m ? b0 + bs : m;
    for (ptrdiff_t b = b0; b < b1; b++)
      memset(K + m * b, 0, (size_t) (b + 1) * sizeof(double));
    for (ptrdiff_t j = 0; j < d; j++) {
      const double *xj = x + m * j;
      for (ptrdiff_t b = b0; b < b1; b++) {
        double *col = K + m * b;
        const double xb = xj[b];
        if (dist) {
          for (ptrdiff_t a = 0; a <= b; a++) {
            double t = xj[a] - xb;
            col[a] += t * t;
          }
        } else {
          for (ptrdiff_t a = 0; a <= b; a++) col[a] += xj[a] * xb;
        }
      }
    }
  }
  (void) nthreads;
}

void bk_gram(const double *x, ptrdiff_t m, ptrdiff_t d, bk_kernel kern,
             double *K, int nthreads)
{
  bk_cross(x, m, d, bk_kernel_uses_distance(kern.type), K, nthreads);
  if (kern.type != BK_LINEAR) {
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 16) num_threads(nthreads) if (nthreads > 1)
#endif
    for (ptrdiff_t b = 0; b < m; b++) {
      double *col = K + m * b;
      for (ptrdiff_t a = 0; a <= b; a++) col[a] = bk_kernel_value(kern, col[a]);
    }
  }
  for (ptrdiff_t b = 0; b < m; b++)
    for (ptrdiff_t a = b + 1; a < m; a++) K[a + m * b] = K[b + m * a];
}

static void swap(double *v, ptrdiff_t i, ptrdiff_t j)
{
  double t = v[i];
  v[i] = v[j];
  v[j] = t;
}

/* Quickselect with a median-of-three pivot (Hoare partition, which copes
 * with many ties, as in integer-valued data). */
double bk_select(double *v, ptrdiff_t n, ptrdiff_t k)
{
  ptrdiff_t lo = 0, hi = n - 1;
  while (hi > lo) {
    ptrdiff_t mid = lo + (hi - lo) / 2;
    if (v[mid] < v[lo]) swap(v, mid, lo);
    if (v[hi] < v[lo]) swap(v, hi, lo);
    if (v[hi] < v[mid]) swap(v, hi, mid);
    double pivot = v[mid];
    ptrdiff_t i = lo, j = hi;
    while (i <= j) {
      while (v[i] < pivot) i++;
      while (v[j] > pivot) j--;
      if (i <= j) {
        swap(v, i, j);
        i++;
        j--;
      }
    }
    if (k <= j)
      hi = j;
    else if (k >= i)
      lo = i;
    else
      return v[k];
  }
  return v[k];
}

/* The median over pairs i < j, as R's median() of dist(x) (or its square)
 * would give: the mean of the two middle values when their count is even. */
double bk_median_pairwise(const double *x, ptrdiff_t m, ptrdiff_t d,
                          int squared, double *work, double *cross)
{
  ptrdiff_t n = m * (m - 1) / 2, p = 0;
  if (n < 1) return NAN;
  if (d == 1) {
    for (ptrdiff_t b = 1; b < m; b++)
      for (ptrdiff_t a = 0; a < b; a++) {
        double t = x[a] - x[b];
        work[p++] = t * t;
      }
  } else {
    bk_cross(x, m, d, 1, cross, 1);
    for (ptrdiff_t b = 1; b < m; b++)
      for (ptrdiff_t a = 0; a < b; a++) work[p++] = cross[a + m * b];
  }
  ptrdiff_t k = (n - 1) / 2;
  double lo = bk_select(work, n, k), hi = lo;
  if (n % 2 == 0) {
    /* after selection every value above index k is >= lo: take their min */
    hi = work[k + 1];
    for (ptrdiff_t i = k + 2; i < n; i++)
      if (work[i] < hi) hi = work[i];
  }
  if (!squared) {
    lo = sqrt(lo);
    hi = sqrt(hi);
  }
  return 0.5 * (lo + hi);
}
