/*
 * checks.c: the data checks every entry point runs, in one pass each and
 * without the m x d temporaries the R idioms (is.finite(x), x != x[1, ])
 * would allocate, and the power-of-two rescaling of a column that keeps sums
 * of squares within the doubles. Numeric core: no R API.
 */
#include <float.h>
#include <math.h>
#include "checks.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Blocks of values without an early exit or a branch but the loop's (four
 * independent maxima, a finite flag), a block with a non-finite value
 * scanned again for the first; the largest |value| does not depend on the
 * order of the comparisons, so it is the plain loop's. */
#define BK_SCAN_BLOCK 512
ptrdiff_t bk_first_nonfinite(const double *x, ptrdiff_t n, double *maxabs)
{
  double m0 = 0.0, m1 = 0.0, m2 = 0.0, m3 = 0.0;
  for (ptrdiff_t b = 0; b < n; b += BK_SCAN_BLOCK) {
    const ptrdiff_t e = n - b < BK_SCAN_BLOCK ? n : b + BK_SCAN_BLOCK;
    int fin = 1;
    ptrdiff_t i = b;
    for (; i + 4 <= e; i += 4) {
      const double a0 = fabs(x[i]), a1 = fabs(x[i + 1]), a2 = fabs(x[i + 2]),
                   a3 = fabs(x[i + 3]);
      fin &= (a0 <= DBL_MAX) & (a1 <= DBL_MAX) & (a2 <= DBL_MAX) & (a3 <= DBL_MAX);
      m0 = a0 > m0 ? a0 : m0;
      m1 = a1 > m1 ? a1 : m1;
      m2 = a2 > m2 ? a2 : m2;
      m3 = a3 > m3 ? a3 : m3;
    }
    for (; i < e; i++) {
      const double a = fabs(x[i]);
      fin &= a <= DBL_MAX;
      m0 = a > m0 ? a : m0;
    }
    if (!fin)
      for (i = b; i < e; i++)
        if (!(fabs(x[i]) <= DBL_MAX)) return i; /* NA, NaN or Inf */
  }
  m0 = m1 > m0 ? m1 : m0;
  m2 = m3 > m2 ? m3 : m2;
  *maxabs = m2 > m0 ? m2 : m0;
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
  /* No early exit: independent chains and no branch but the loop's. The
   * largest |value| and the two tests do not depend on the order in which
   * the values are visited (a maximum of finite doubles and logical ands
   * are exact), so the SSE2 loop, four values a step, gives the very
   * results of the scalar loop below (which finishes the column, or does
   * all of it without SSE2); a non-finite column's maximum is unused. */
#ifdef __SSE2__
  const __m128d sign = _mm_set1_pd(-0.0), first = _mm_set1_pd(x0);
  __m128d ma = _mm_setzero_pd(), mb = ma, nan = ma, eqv = _mm_cmpeq_pd(ma, ma);
  for (; i + 4 <= m; i += 4) {
    __m128d v0 = _mm_loadu_pd(xj + i), v1 = _mm_loadu_pd(xj + i + 2);
    nan = _mm_or_pd(nan, _mm_cmpunord_pd(v0, v1));
    eqv = _mm_and_pd(eqv, _mm_and_pd(_mm_cmpeq_pd(v0, first), _mm_cmpeq_pd(v1, first)));
    ma = _mm_max_pd(_mm_andnot_pd(sign, v0), ma);
    mb = _mm_max_pd(_mm_andnot_pd(sign, v1), mb);
  }
  /* maxpd returns its second operand where one is NaN: ma and mb skip
   * NaN, so an infinite value shows in their maximum, a NaN in `nan` */
  ma = _mm_max_pd(ma, mb);
  mx0 = _mm_cvtsd_f64(ma);
  mx1 = _mm_cvtsd_f64(_mm_unpackhi_pd(ma, ma));
  fin = _mm_movemask_pd(nan) == 0 && mx0 <= DBL_MAX && mx1 <= DBL_MAX;
  eq = _mm_movemask_pd(eqv) == 3;
#endif
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

/* bk_scale_columns() and bk_standardize_columns(): one column each */
typedef struct {
  const double *x;
  ptrdiff_t m;
  double *out;
  int *constant;
} columns_ctx;

static void scale_column(void *ctx, ptrdiff_t j)
{
  const columns_ctx *p = ctx;
  const ptrdiff_t m = p->m;
  const double *xj = p->x + m * j;
  double *oj = p->out + m * j;
  const double sc = bk_pow2_scale(bk_pow2_exponent(bk_max_abs(xj, m)));
  for (ptrdiff_t i = 0; i < m; i++) oj[i] = xj[i] * sc;
}

void bk_scale_columns(const double *x, ptrdiff_t m, ptrdiff_t d, double *out,
                      int nthreads)
{
  columns_ctx p = {.x = x, .m = m, .out = out};
  bk_columns_for(scale_column, &p, d, 2.0 * (double) m, nthreads);
}

void bk_scale_pow2(double *v, ptrdiff_t k, ptrdiff_t d, const int *shift,
                   int power)
{
  for (ptrdiff_t j = 0; j < d; j++) {
    if (shift[j] == BK_NO_EXPONENT) continue;
    for (ptrdiff_t a = 0; a < k; a++) {
      double *vaj = v + a + k * j;
      *vaj = bk_ldexp(*vaj, power * shift[j]);
    }
  }
}

static void standardize_column(void *ctx, ptrdiff_t j)
{
  const columns_ctx *p = ctx;
  const ptrdiff_t m = p->m;
  const double *xj = p->x + m * j;
  double *oj = p->out + m * j;
  int *constant = p->constant;
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

void bk_standardize_columns(const double *x, ptrdiff_t m, ptrdiff_t d,
                            double *out, int *constant, int nthreads)
{
  columns_ctx p = {.x = x, .m = m, .out = out, .constant = constant};
  bk_columns_for(standardize_column, &p, d, 8.0 * (double) m, nthreads);
}
