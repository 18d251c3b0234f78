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
 * The samples are first listed class by class (a counting sort of cls into
 * work), so that each class of each column is summed from its own list with
 * four independent accumulators: no scatter by class, no add waiting for the
 * previous one.
 *
 * Pass 1 sums x - s, where the shift s is the first value of the class in
 * the column; pass 2 sums the squared deviations about the mean. The shift
 * keeps the sums small (the shifted-data algorithm) and, more to the point,
 * makes a class whose values are all equal come out with its mean exactly
 * equal to that value and ss exactly 0, so that the R side can recognise a
 * zero within-class variance without a tolerance (e.g. for the NA score of a
 * constant feature). An empty class gets n = 0, mean NaN and ss 0.
 *
 * work: m + ncls + 1 ints.
 */
void bk_class_moments(const double *x, ptrdiff_t m, ptrdiff_t d, const int *cls,
                      int ncls, int *n, double *mean, double *ss, int *work)
{
  int *ord = work, *start = work + m;

  for (int k = 0; k < ncls; k++)
    n[k] = 0;
  for (ptrdiff_t i = 0; i < m; i++)
    n[cls[i]]++;
  start[0] = 0;
  for (int k = 0; k < ncls; k++)
    start[k + 1] = start[k] + n[k];
  /* stable counting sort; start[] is shifted back afterwards */
  for (ptrdiff_t i = 0; i < m; i++)
    ord[start[cls[i]]++] = (int) i;
  for (int k = ncls; k > 0; k--)
    start[k] = start[k - 1];
  start[0] = 0;

  for (ptrdiff_t j = 0; j < d; j++) {
    const double *xj = x + (ptrdiff_t) m * j;
    for (int k = 0; k < ncls; k++) {
      ptrdiff_t kj = k + (ptrdiff_t) ncls * j;
      const int *r = ord + start[k];
      ptrdiff_t nk = n[k], i = 0;
      if (nk == 0) {
        mean[kj] = NAN;
        ss[kj] = 0.0;
        continue;
      }
      double shift = xj[r[0]], s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
      for (; i + 4 <= nk; i += 4) {
        s0 += xj[r[i]] - shift;
        s1 += xj[r[i + 1]] - shift;
        s2 += xj[r[i + 2]] - shift;
        s3 += xj[r[i + 3]] - shift;
      }
      for (; i < nk; i++)
        s0 += xj[r[i]] - shift;
      double mu = shift + ((s0 + s1) + (s2 + s3)) / (double) nk;
      s0 = s1 = s2 = s3 = 0.0;
      for (i = 0; i + 4 <= nk; i += 4) {
        double e0 = xj[r[i]] - mu, e1 = xj[r[i + 1]] - mu,
               e2 = xj[r[i + 2]] - mu, e3 = xj[r[i + 3]] - mu;
        s0 += e0 * e0;
        s1 += e1 * e1;
        s2 += e2 * e2;
        s3 += e3 * e3;
      }
      for (; i < nk; i++) {
        double e = xj[r[i]] - mu;
        s0 += e * e;
      }
      mean[kj] = mu;
      ss[kj] = (s0 + s1) + (s2 + s3);
    }
  }
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
/* mean of v[0..m-1] summed as v - v[0]: exact for a constant vector */
static double shifted_mean(const double *v, ptrdiff_t m)
{
  double s = 0.0;
  for (ptrdiff_t i = 0; i < m; i++)
    s += v[i] - v[0];
  return v[0] + s / (double) m;
}

void bk_col_cor(const double *x, ptrdiff_t m, ptrdiff_t d, const double *y,
                double *out)
{
  double ybar = 0.0, syy = 0.0;

  if (m > 0) {
    ybar = shifted_mean(y, m);
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
    xbar = shifted_mean(xj, m);
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
