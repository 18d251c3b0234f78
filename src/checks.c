/*
 * checks.c: the data checks every entry point runs, in one pass each and
 * without the m x d temporaries the R idioms (is.finite(x), x != x[1, ])
 * would allocate, and the power-of-two rescaling of a column that keeps sums
 * of squares within the doubles. Numeric core: no R API.
 */
#include <float.h>
#include <math.h>
#include "checks.h"

ptrdiff_t bk_first_nonfinite(const double *x, ptrdiff_t n, double *maxabs)
{
  double mx = 0.0;
  for (ptrdiff_t i = 0; i < n; i++) {
    double a = fabs(x[i]);
    if (!(a <= DBL_MAX)) return i; /* NA, NaN or Inf */
    mx = a > mx ? a : mx;
  }
  *maxabs = mx;
  return -1;
}

void bk_constant_columns(const double *x, ptrdiff_t m, ptrdiff_t d, int *out)
{
  for (ptrdiff_t j = 0; j < d; j++) {
    const double *xj = x + m * j;
    int same = 1;
    /* a varying column usually differs at its second value: stop there */
    for (ptrdiff_t i = 1; i < m && same; i++) same = xj[i] == xj[0];
    out[j] = same;
  }
}

ptrdiff_t bk_scan_column(const double *xj, ptrdiff_t m, int *same, int *expo)
{
  const double x0 = m > 0 ? xj[0] : 0.0;
  double mx0 = 0.0, mx1 = 0.0;
  int eq = 1, fin = 1;
  ptrdiff_t i = 0;
  /* no early exit: two independent chains and no branch but the loop's */
  for (; i + 2 <= m; i += 2) {
    double a0 = fabs(xj[i]), a1 = fabs(xj[i + 1]);
    fin &= (a0 <= DBL_MAX) & (a1 <= DBL_MAX);
    eq &= (xj[i] == x0) & (xj[i + 1] == x0);
    mx0 = a0 > mx0 ? a0 : mx0;
    mx1 = a1 > mx1 ? a1 : mx1;
  }
  for (; i < m; i++) {
    double a = fabs(xj[i]);
    fin &= a <= DBL_MAX;
    eq &= xj[i] == x0;
    mx0 = a > mx0 ? a : mx0;
  }
  *same = eq;
  if (!fin) {
    *expo = BK_NO_EXPONENT;
    for (i = 0; i < m; i++)
      if (!(fabs(xj[i]) <= DBL_MAX)) return i;
  }
  *expo = bk_pow2_exponent(mx0 > mx1 ? mx0 : mx1);
  return -1;
}

void bk_scale_columns(const double *x, ptrdiff_t m, ptrdiff_t d, double *out)
{
  for (ptrdiff_t j = 0; j < d; j++) {
    const double *xj = x + m * j;
    double *oj = out + m * j;
    const double sc = bk_pow2_scale(bk_pow2_exponent(bk_max_abs(xj, m)));
    for (ptrdiff_t i = 0; i < m; i++) oj[i] = xj[i] * sc;
  }
}

void bk_scale_pow2(double *v, ptrdiff_t k, ptrdiff_t d, const int *shift,
                   int power)
{
  for (ptrdiff_t j = 0; j < d; j++) {
    if (shift[j] == BK_NO_EXPONENT) continue;
    for (ptrdiff_t a = 0; a < k; a++) {
      double *vaj = v + a + k * j;
      *vaj = ldexp(*vaj, power * shift[j]);
    }
  }
}

void bk_standardize_columns(const double *x, ptrdiff_t m, ptrdiff_t d,
                            double *out, int *constant)
{
  for (ptrdiff_t j = 0; j < d; j++) {
    const double *xj = x + m * j;
    double *oj = out + m * j;
    /* rescaled (see bk_pow2_exponent()): the quotient is the same */
    const double sc = bk_pow2_scale(bk_pow2_exponent(bk_max_abs(xj, m)));
    /* the mean as colMeans() takes it (long double sum) */
    long double sum = 0.0L;
    for (ptrdiff_t i = 0; i < m; i++) sum += xj[i] * sc;
    const double centre = (double) (sum / (long double) m);
    long double ss = 0.0L;
    int same = 1;
    for (ptrdiff_t i = 0; i < m; i++) {
      oj[i] = xj[i] * sc - centre;
      ss += oj[i] * oj[i];
      same = same && oj[i] == oj[0];
    }
    const double sd = sqrt((double) ss / (double) (m - 1));
    constant[j] = same || sd == 0.0;
    if (constant[j]) {
      for (ptrdiff_t i = 0; i < m; i++) oj[i] = 0.0;
    } else {
      for (ptrdiff_t i = 0; i < m; i++) oj[i] /= sd;
    }
  }
}
