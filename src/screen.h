/*
 * screen.h: the column passes of bahsic()'s screen (screen.c): the genes
 * centred, bounded and scaled for the pair step, and the product genes of
 * candidate pairs (R/select-screen.R), and the columns less their part
 * along a basis (the screen's label vectors, a study design's residuals,
 * R/design.R), in one pass each, without the m x d temporaries of the R
 * idioms (sweep(), tanh(1.5 * x), x^4, x[, i] * x[, j], v - Q %*% crossprod(Q, v))
 * and in their very operations, so bit for bit what they give.
 */
#ifndef BAHSIC_SCREEN_H
#define BAHSIC_SCREEN_H

#include "common.h"

/* out (m x d) = x with each column less its mean, the mean as colMeans()
 * takes it (long double sum over m), the difference as sweep() takes it. */
void bk_centre_columns(const double *x, ptrdiff_t m, ptrdiff_t d, double *out);

/* Whether R's matrix products, under the default options(matprod), would
 * leave the BLAS for their own loops on x (n values): some pair of
 * neighbouring values (the first alone when n is odd) has a non-finite sum. */
int bk_pairs_nonfinite(const double *x, ptrdiff_t n);

/* What bk_project_out() does to v's columns before their part along Q goes */
#define BK_PROJECT_NONE 0
#define BK_PROJECT_CENTRE 1  /* sweep(v, 2, colMeans(v)) */
#define BK_PROJECT_BOUNDED 2 /* the same on tanh(1.5 * v) */

/* out (m x d) = v - Q (Q' v), Q (m x r), as R computes
 * v - Q %*% crossprod(Q, v) with the reference BLAS: each entry of Q' v a
 * sum from +0 over the rows in order, each entry of Q (Q' v) a sum from +0
 * over Q's columns in order, then the difference; v taken as the transform
 * says (the centring as bk_centre_columns(), tanh(1.5 v) as
 * bk_bounded_columns()). c: work of r x d; wide: of d; out not v; the
 * columns on nthreads threads (the same numbers on any number). Returns 1,
 * with out unfinished, where R's products might take their own loops
 * instead of the BLAS (bk_pairs_nonfinite() of Q, of the transformed v or
 * of Q' v; a value of 2^1023 or more in size counts as one that might):
 * the caller then evaluates the R expression; 0 otherwise. */
int bk_project_out(const double *v, ptrdiff_t m, ptrdiff_t d, const double *Q,
                   ptrdiff_t r, int transform, double *c, unsigned char *wide,
                   double *out, int nthreads);

/* out (m x d) = tanh(1.5 * x): R's tanh(1.5 * x); the columns on nthreads
 * threads. */
void bk_bounded_columns(const double *x, ptrdiff_t m, ptrdiff_t d, double *out,
                        int nthreads);

/* s (d) = the divisor of each column of x in the screen of pairs,
 * q_j^(1/2) with q_j = (sum_a x_aj^4)^(1/2) (1 for q_j = 0): R's
 * sqrt(ifelse(q > 0, q, 1)), q = sqrt(colSums(x^4)): the powers by pow() as
 * R's `^` takes them, the sum in long double as colSums() takes it; the
 * columns on nthreads threads. bk_pair_pack() divides by them. */
void bk_pair_scale_divisors(const double *x, ptrdiff_t m, ptrdiff_t d, double *s,
                            int nthreads);

/* out (m x n): column k the product of columns i[k] and j[k] of x (m rows,
 * 0-based indices): R's x[, i + 1] * x[, j + 1]. */
void bk_column_products(const double *x, ptrdiff_t m, const int *i,
                        const int *j, ptrdiff_t n, double *out, int nthreads);

#endif
