/*
 * checks.h: the data checks and the column rescaling (checks.c).
 */
#ifndef BAHSIC_CHECKS_H
#define BAHSIC_CHECKS_H

#include "common.h"

/* ---- data checks (checks.c) ------------------------------------------------ */

/* Index of the first non-finite value of x[0..n-1], or -1 and then
 * *maxabs = max |x|. */
ptrdiff_t bk_first_nonfinite(const double *x, ptrdiff_t n, double *maxabs);

/* out[j] = 1 if column j of x (m x d) has a single value, else 0. */
void bk_constant_columns(const double *x, ptrdiff_t m, ptrdiff_t d, int *out);

/* One read of the m values of a column: returns the index of the first
 * non-finite one or -1; *same = 1 when all equal the first; *expo the
 * bk_pow2_exponent() of max |x| (BK_NO_EXPONENT if non-finite). */
ptrdiff_t bk_scan_column(const double *xj, ptrdiff_t m, int *same, int *expo);

/* out (m x d) = each column of x times 2^-e, e the bk_pow2_exponent() of
 * its max |x|: exact, and invariant to any rescaling of the column by a power
 * of two. x finite. Both passes take their columns on nthreads threads (the
 * same numbers on any number). */
void bk_scale_columns(const double *x, ptrdiff_t m, ptrdiff_t d, double *out,
                      int nthreads);

/* v (k x d) times 2^(power * shift[j]) column by column, exactly (ldexp);
 * columns with shift BK_NO_EXPONENT are left alone. */
void bk_scale_pow2(double *v, ptrdiff_t k, ptrdiff_t d, const int *shift,
                   int power);

/* out (m x d) = the columns of x centred and divided by their standard
 * deviation (divisor m - 1), in the very operations of R's colMeans(),
 * sweep() and colSums() (so bit for bit what they give) on the column
 * rescaled by a power of two (which keeps its squares in range at any scale
 * and does not change the quotient); constant[j] = 1 and column j of out
 * zero where column j of x (centred) has a single value or a zero standard
 * deviation. m >= 2, x finite. */
void bk_standardize_columns(const double *x, ptrdiff_t m, ptrdiff_t d,
                            double *out, int *constant, int nthreads);

#endif
