/*
 * ridge.h: BAHSIC and FOHSIC with the ridge-regression kernel (ridge.c).
 */
#ifndef BAHSIC_RIDGE_H
#define BAHSIC_RIDGE_H

#include "kernels.h"

/* ---- ridge-regression kernel (ridge.c) ---------------------------------------
 * BAHSIC (backward = 1) and FOHSIC (0) with the ridge kernel Kbar_S = K_S
 * (K_S + lambda I)^-1 of a base kernel K (section 6.6 of
 * Song et al. (2012)): for the linear base, Kbar_S = V_S (V_S'V_S +
 * lambda I)^-1 V_S' and candidates by rank-one updates of (V_S V_S' + lambda
 * I)^-1, O(m^2) each; for any other base one inverse per candidate, O(m^2 s
 * + m^3). Widths of a Gaussian or Laplace base by the policy, grid and
 * grid_relative of bk_select_opts. */
typedef struct {
  bk_kernel base;       /* any kernel but BK_CLINICAL */
  double lambda;        /* > 0 */
  int backward;
  int policy;           /* enum bk_policy */
  const double *grid;   /* widths for BK_SIGMA_OPTIMIZE, ascending */
  ptrdiff_t ngrid;
  int grid_relative;    /* grid as multiples of the median heuristic */
  double step;          /* as bk_select_opts */
  ptrdiff_t n_target;
} bk_ridge_opts;

/* x: m x d (standardised by the caller), W: m x m symmetric (HSIC(K) =
 * sum(K o W)); rank, score, iter, path as bk_select_features(). work:
 * bk_ridge_work_doubles(m, d), iwork: bk_ridge_work_ints(d); m, d <= INT_MAX
 * (BLAS). *info: 0, or LAPACK's info when a Cholesky of K + lambda I failed
 * (then the outputs are incomplete). Returns the number of path rows. */
ptrdiff_t bk_ridge_work_doubles(ptrdiff_t m, ptrdiff_t d);
ptrdiff_t bk_ridge_work_ints(ptrdiff_t d);
ptrdiff_t bk_ridge_select(const double *x, ptrdiff_t m, ptrdiff_t d,
                          const double *W, const bk_ridge_opts *o, int *rank,
                          double *score, int *iter, double *path,
                          double *work, int *iwork, int *info,
                          bk_tick_fn tick, void *ctx);

#endif
