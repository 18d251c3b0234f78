/*
 * mrmr.h: minimum-redundancy maximum-relevance selection with HSIC
 * (scorer_mrmr.c), a forward scorer of the selection schedule
 * (schedule.h).
 */
#ifndef BAHSIC_MRMR_H
#define BAHSIC_MRMR_H

#include "kernels.h"
#include "schedule.h"

/* ---- mRMR with HSIC (scorer_mrmr.c) ------------------------------------------
 * Minimum-redundancy maximum-relevance selection (Peng, Long and Ding 2005,
 * the MID criterion) as a forward scorer of the schedule: a candidate j
 * scores HSIC(x_j, y) - mean over the selected s of HSIC(x_j, x_s), on the
 * kernels of single features. */
typedef struct {
  bk_kernel kern;     /* the feature kernel (any of BK_KSET_DATA); p1 the
                         "fixed" width */
  int policy;         /* the width of one feature: "dimension" or "fixed" */
  int unbiased;       /* HSIC1 for the redundancies (W: the labels' weights
                         of the same estimator) */
  double ynorm;       /* > 0: every HSIC normalised, HSIC(a, b) /
                         sqrt(HSIC(a, a) HSIC(b, b)), ynorm = sqrt(HSIC(y, y));
                         0: HSIC as it is */
  double step;        /* fraction of the candidates added per iteration */
  ptrdiff_t n_target; /* stop at this many (0: rank all) */
  int nthreads;
  int simd;           /* as bk_select_opts */
  bk_pacer *pace;
} bk_mrmr_opts;

/* The outputs, d each (path: 4 (d + 1)) as bk_select_features(), the
 * relevances HSIC(x_j, y) and, with ynorm > 0, self[j] = HSIC(x_j, x_j)
 * (both left as they are unless the first iteration ran). */
typedef struct {
  int *rank, *iter;
  double *score, *path, *relevance, *self;
} bk_mrmr_out;

ptrdiff_t bk_mrmr_work_doubles(ptrdiff_t m, ptrdiff_t d, int nthreads);
ptrdiff_t bk_mrmr_work_ints(ptrdiff_t d);
/* x: m x d (standardised by the caller), m >= 2 (4 for HSIC1); W: m x m
 * with HSIC(K, L) = sum(K o W); work, iwork: bk_mrmr_work_doubles(),
 * bk_mrmr_work_ints(); returns the number of path rows, whose HSIC column
 * is the set's mean relevance minus its mean redundancy over pairs. */
ptrdiff_t bk_select_mrmr(const double *x, ptrdiff_t m, ptrdiff_t d,
                         const double *W, const bk_mrmr_opts *o,
                         const bk_mrmr_out *out, double *work, int *iwork,
                         bk_tick_fn tick, void *tctx);

#endif
