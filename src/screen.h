/*
 * screen.h: the column passes of bahsic()'s screen (screen.c): the genes
 * centred, bounded and scaled for the pair step, and the product genes of
 * candidate pairs (R/select-screen.R), in one pass each, without the m x d
 * temporaries of the R idioms (sweep(), tanh(1.5 * x), x^4, x[, i] * x[, j])
 * and in their very operations, so bit for bit what they give.
 */
#ifndef BAHSIC_SCREEN_H
#define BAHSIC_SCREEN_H

#include "common.h"

/* out (m x d) = x with each column less its mean, the mean as colMeans()
 * takes it (long double sum over m), the difference as sweep() takes it. */
void bk_centre_columns(const double *x, ptrdiff_t m, ptrdiff_t d, double *out);

/* out[i] = tanh(1.5 * x[i]), i < n: R's tanh(1.5 * x). */
void bk_bounded_values(const double *x, ptrdiff_t n, double *out);

/* out (m x d) = each column of x divided by q_j^(1/2) with q_j =
 * (sum_a x_aj^4)^(1/2) (1 for q_j = 0): R's
 * x / rep(sqrt(ifelse(q > 0, q, 1)), each = m), q = sqrt(colSums(x^4)):
 * the powers by pow() as R's `^` takes them, the sum in long double as
 * colSums() takes it. */
void bk_pair_scale_columns(const double *x, ptrdiff_t m, ptrdiff_t d,
                           double *out);

/* out (m x n): column k the product of columns i[k] and j[k] of x (m rows,
 * 0-based indices): R's x[, i + 1] * x[, j + 1]. */
void bk_column_products(const double *x, ptrdiff_t m, const int *i,
                        const int *j, ptrdiff_t n, double *out);

#endif
