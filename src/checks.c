/*
 * checks.c: the data checks every entry point runs, in one pass each and
 * without the m x d temporaries the R idioms (is.finite(x), x != x[1, ])
 * would allocate. Numeric core: no R API.
 */
#include <float.h>
#include <math.h>
#include "bahsic.h"

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

void bk_standardize_columns(const double *x, ptrdiff_t m, ptrdiff_t d,
                            double *out, int *constant)
{
  for (ptrdiff_t j = 0; j < d; j++) {
    const double *xj = x + m * j;
    double *oj = out + m * j;
    /* the mean as colMeans() takes it (long double sum) */
    long double sum = 0.0L;
    for (ptrdiff_t i = 0; i < m; i++) sum += xj[i];
    const double centre = (double) (sum / (long double) m);
    long double ss = 0.0L;
    int same = 1;
    for (ptrdiff_t i = 0; i < m; i++) {
      oj[i] = xj[i] - centre;
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
