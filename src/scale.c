/*
 * scale.c: the exact power-of-two rescaling that keeps squares and sums
 * within the doubles (common.h, "scales"), used by the data checks
 * (checks.c), the Gram matrices (gram.c), the HSIC sums and the scores.
 * Numeric core: no R API.
 */
#include <float.h>
#include <math.h>
#include "common.h"

/*
 * Why a column is rescaled: a sum of squares of values near 1e-170 is
 * below the smallest double (it underflows to 0, and a varying feature looks
 * constant) and one of values near 1e170 above the largest (Inf). Multiplying
 * the column by 2^-e, with e the binary exponent of its largest |value|,
 * brings that value into [0.5, 1): every square and sum is then in range.
 * A power of two changes only the exponent of a double, so the products are
 * exact (short of values 2^1022 times smaller than the largest, which become
 * subnormal and count for nothing next to it) and a floating-point sum,
 * difference, product, quotient or square root of rescaled values is the
 * rescaled result bit for bit: for data of ordinary size the statistics are
 * the same numbers as without the rescaling.
 */
int bk_pow2_exponent(double maxabs)
{
  int e = 0;
  if (!(maxabs > 0.0) || !(maxabs <= DBL_MAX)) return BK_NO_EXPONENT;
  if (maxabs >= DBL_MIN) {
    /* a normal double 1.f 2^(E - 1023) = 0.1f 2^(E - 1022): frexp()'s
     * exponent, read from the bits */
    uint64_t bits;
    memcpy(&bits, &maxabs, sizeof bits);
    e = (int) ((bits >> 52) & 0x7ff) - 1022;
  } else {
    (void) frexp(maxabs, &e);
  }
  /* 2^-e must be a double: 2^1021 is the largest factor needed (the
   * smallest subnormal times 2^1021 is 2^-53), 2^-1024 the smallest */
  return e < -1021 ? -1021 : e;
}

double bk_pow2_scale(int e)
{
  return e == BK_NO_EXPONENT ? 1.0 : bk_ldexp(1.0, -e);
}

int bk_pow2_shift(double v, int range)
{
  const int k = bk_pow2_exponent(v); /* v = f 2^k, f in [0.5, 1) */
  if (k == BK_NO_EXPONENT || (k - 1 >= -range && k <= range)) return 0;
  const int e = -k;
  return e > 1000 ? 1000 : e < -1000 ? -1000 : e;
}

double bk_max_abs(const double *x, ptrdiff_t n)
{
  double top = 0.0;
  for (ptrdiff_t i = 0; i < n; i++) {
    double a = fabs(x[i]);
    top = a > top ? a : top;
  }
  return top;
}

void bk_copy_pow2(const double *x, ptrdiff_t n, int e, double *out)
{
  const double f = ldexp(1.0, e); /* a normal double: |e| <= 1000 */
  for (ptrdiff_t i = 0; i < n; i++) out[i] = x[i] * f;
}
