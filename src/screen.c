/*
 * screen.c: the column passes of bahsic()'s screen (see screen.h). Each is
 * the R expression it replaces, operation for operation, so that the screen
 * finds what it found with the R idioms, bit for bit. Numeric core: no R
 * API, no allocation.
 */
#include "screen.h"

void bk_centre_columns(const double *x, ptrdiff_t m, ptrdiff_t d, double *out)
{
  for (ptrdiff_t j = 0; j < d; j++) {
    const double *xj = x + m * j;
    double *oj = out + m * j;
    /* the mean as colMeans() takes it */
    long double sum = 0.0L;
    for (ptrdiff_t i = 0; i < m; i++) sum += xj[i];
    const double centre = (double) (sum / (long double) m);
    for (ptrdiff_t i = 0; i < m; i++) oj[i] = xj[i] - centre;
  }
}

void bk_bounded_values(const double *x, ptrdiff_t n, double *out)
{
  for (ptrdiff_t i = 0; i < n; i++) out[i] = tanh(1.5 * x[i]);
}

/* x^4 as R's `^` takes it (R_pow(): 1 at x = 1, 0 at x = 0, pow() else) */
static inline double pow4(double x)
{
  if (x == 1.0) return 1.0;
  if (x == 0.0) return 0.0;
  return pow(x, 4.0);
}

void bk_pair_scale_columns(const double *x, ptrdiff_t m, ptrdiff_t d,
                           double *out)
{
  for (ptrdiff_t j = 0; j < d; j++) {
    const double *xj = x + m * j;
    double *oj = out + m * j;
    long double sum = 0.0L;
    for (ptrdiff_t i = 0; i < m; i++) sum += pow4(xj[i]);
    const double q = sqrt((double) sum);
    const double s = sqrt(q > 0.0 ? q : 1.0);
    for (ptrdiff_t i = 0; i < m; i++) oj[i] = xj[i] / s;
  }
}

void bk_column_products(const double *x, ptrdiff_t m, const int *i,
                        const int *j, ptrdiff_t n, double *out)
{
  for (ptrdiff_t k = 0; k < n; k++) {
    const double *xi = x + m * (ptrdiff_t) i[k];
    const double *xj = x + m * (ptrdiff_t) j[k];
    double *ok = out + m * k;
    for (ptrdiff_t a = 0; a < m; a++) ok[a] = xi[a] * xj[a];
  }
}
