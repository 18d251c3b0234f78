/*
 * scores.c: numeric core of the univariate special cases of HSIC
 * (section 6 of 004_cafd97bfb60132b1.txt).
 *
 * Every statistic of sections 6.1, 6.2 and 6.5 (Pearson correlation,
 * centroid, t, signal to noise, moderated t, B, shrunken centroid) is a
 * function of the per-class counts, means and within-class sums of squares of
 * a feature, or of its correlation with the label. These two routines do the
 * O(m d) work; the O(d) formulas live in R/scores-linear.R.
 *
 * Plain C: no R API, no allocation. x is m x d, column-major.
 */
#include <math.h>
#include "bahsic.h"

/*
 * Class counts, means and within-class sums of squared deviations.
 *
 * Pass 1 sums x - s_k, where the shift s_k is the first value of class k in
 * the column; pass 2 sums the squared deviations about the mean. The shift
 * keeps the sums small (the shifted-data algorithm) and, more to the point,
 * makes a class whose values are all equal come out with its mean exactly
 * equal to that value and ss exactly 0, so that the R side can recognise a
 * zero within-class variance without a tolerance (e.g. for the NA score of
 * a constant feature). The shift s_k lives in ss[, j] during pass 1, and n is
 * recounted in every block, so no scratch memory is needed. An empty class
 * gets n = 0, mean NaN and ss 0.
 *
 * Columns go in blocks of BK_MOM_BLOCK: the sums are scattered by class, and
 * when neighbouring samples share a class each add waits for the previous
 * one through memory; with several columns in flight those chains overlap
 * (4x faster for the two classes of the ALL data, which come sorted).
 * Every column still sums in sample order, so the result does not depend on
 * the blocking.
 */
#define BK_MOM_BLOCK 8

static inline void class_moments_block(const double *x, ptrdiff_t m,
                                       const int *cls, int ncls, int *n,
                                       double *mean, double *ss, int nb)
{
  for (int k = 0; k < ncls; k++)
    n[k] = 0;
  for (ptrdiff_t c = 0; c < (ptrdiff_t) ncls * nb; c++) {
    mean[c] = 0.0;
    ss[c] = 0.0;
  }
  /* pass 1: shifted sums */
  for (ptrdiff_t i = 0; i < m; i++) {
    int k = cls[i];
    if (n[k] == 0)
      for (int b = 0; b < nb; b++)
        ss[k + (ptrdiff_t) ncls * b] = x[i + (ptrdiff_t) m * b];
    n[k]++;
    for (int b = 0; b < nb; b++) {
      ptrdiff_t kb = k + (ptrdiff_t) ncls * b;
      mean[kb] += x[i + (ptrdiff_t) m * b] - ss[kb];
    }
  }
  for (int b = 0; b < nb; b++)
    for (int k = 0; k < ncls; k++) {
      ptrdiff_t kb = k + (ptrdiff_t) ncls * b;
      mean[kb] = n[k] > 0 ? ss[kb] + mean[kb] / n[k] : NAN;
      ss[kb] = 0.0;
    }
  /* pass 2: squared deviations about the class mean */
  for (ptrdiff_t i = 0; i < m; i++) {
    int k = cls[i];
    for (int b = 0; b < nb; b++) {
      ptrdiff_t kb = k + (ptrdiff_t) ncls * b;
      double dev = x[i + (ptrdiff_t) m * b] - mean[kb];
      ss[kb] += dev * dev;
    }
  }
}

void bk_class_moments(const double *x, ptrdiff_t m, ptrdiff_t d, const int *cls,
                      int ncls, int *n, double *mean, double *ss)
{
  ptrdiff_t j = 0;

  if (d == 0) {
    for (int k = 0; k < ncls; k++)
      n[k] = 0;
    for (ptrdiff_t i = 0; i < m; i++)
      n[cls[i]]++;
    return;
  }
  for (; j + BK_MOM_BLOCK <= d; j += BK_MOM_BLOCK)
    class_moments_block(x + (ptrdiff_t) m * j, m, cls, ncls, n,
                        mean + (ptrdiff_t) ncls * j, ss + (ptrdiff_t) ncls * j,
                        BK_MOM_BLOCK);
  for (; j < d; j++)
    class_moments_block(x + (ptrdiff_t) m * j, m, cls, ncls, n,
                        mean + (ptrdiff_t) ncls * j, ss + (ptrdiff_t) ncls * j,
                        1);
}

/*
 * Pearson correlation of every column of x with y: the terms of HSIC1 with
 * linear kernels on standardised data (eq. (23) of 004_cafd97bfb60132b1.txt).
 *
 * Two passes per column, with the same shift by the first value as above so
 * that a constant column has a sum of squares of exactly 0 and gets NaN
 * rather than a meaningless ratio of rounding errors. Clamped to [-1, 1] as
 * stats::cor() does.
 */
void bk_col_cor(const double *x, ptrdiff_t m, ptrdiff_t d, const double *y,
                double *out)
{
  double ybar = 0.0, syy = 0.0;

  if (m > 0) {
    double y0 = y[0];
    for (ptrdiff_t i = 0; i < m; i++)
      ybar += y[i] - y0;
    ybar = y0 + ybar / (double) m;
    for (ptrdiff_t i = 0; i < m; i++) {
      double dy = y[i] - ybar;
      syy += dy * dy;
    }
  }

  for (ptrdiff_t j = 0; j < d; j++) {
    const double *xj = x + (ptrdiff_t) m * j;
    double xbar = 0.0, sxx = 0.0, sxy = 0.0, r;

    if (m == 0 || !(syy > 0.0)) {
      out[j] = NAN;
      continue;
    }
    double x0 = xj[0];
    for (ptrdiff_t i = 0; i < m; i++)
      xbar += xj[i] - x0;
    xbar = x0 + xbar / (double) m;
    for (ptrdiff_t i = 0; i < m; i++) {
      double dx = xj[i] - xbar;
      sxx += dx * dx;
      sxy += dx * (y[i] - ybar);
    }
    if (!(sxx > 0.0)) {
      out[j] = NAN;
      continue;
    }
    /* product of square roots: sxx * syy could underflow or overflow */
    r = sxy / (sqrt(sxx) * sqrt(syy));
    out[j] = r > 1.0 ? 1.0 : (r < -1.0 ? -1.0 : r);
  }
}
