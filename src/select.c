/*
 * select.c: the entry points of BAHSIC (Algorithm 1) and FOHSIC (Algorithm
 * 2) of Song et al. (2012), section 4, for the selectors' glue
 * (select_call.c) and the fuzzers: each builds the scorer of its estimator
 * and runs the one schedule (schedule.c). Numeric core: no R API.
 *
 * The scorers: the exact and block estimators on pairs of samples
 * (scorer_pairs.c), random Fourier features (scorer_rff.c), the incomplete
 * Cholesky factor (scorer_ichol.c) and the clinical kernel
 * (scorer_clinical.c); the ridge-regression kernel is ridge.c.
 */
#include <string.h>
#include "select.h"
#include "pairs.h"

#define PAIRS(m) ((m) * ((m) - 1) / 2)

ptrdiff_t bk_select_work_doubles(ptrdiff_t m, ptrdiff_t d)
{
  return 3 * PAIRS(m) + BK_MEDIAN_WORK(m) + 4 * m + 4 * d + 8;
}

ptrdiff_t bk_select_blocks_work_doubles(ptrdiff_t m, ptrdiff_t npairs,
                                        ptrdiff_t nblk, ptrdiff_t d)
{
  return 2 * npairs + bk_pairs_median_work(m, npairs, nblk) + m + 4 * d + 8;
}

ptrdiff_t bk_select_work_ints(ptrdiff_t d)
{
  return 3 * d + 8;
}

ptrdiff_t bk_select_features(const double *x, ptrdiff_t m, ptrdiff_t d,
                             const double *W, const bk_select_opts *o,
                             int *rank, double *score, int *iter,
                             double *path, double *work, int *iwork,
                             bk_tick_fn tick, void *ctx)
{
  /* the exact estimator: one block of all m samples */
  const ptrdiff_t row0[2] = {0, m}, pair0[2] = {0, PAIRS(m)};
  const bk_blocks blk = {1, row0, pair0};
  double *Wp = work, *Wd = Wp + PAIRS(m);
  bk_pack_upper(W, m, Wp);
  for (ptrdiff_t a = 0; a < m; a++) Wd[a] = W[a + m * a];
  return bk_select_blocks(x, m, d, &blk, Wp, Wd, W, NULL, NULL, o, rank,
                          score, iter, path, Wd + m, iwork, tick, ctx);
}

ptrdiff_t bk_select_blocks(const double *x, ptrdiff_t m, ptrdiff_t d,
                           const bk_blocks *blk, const double *Wp,
                           const double *Wd, const double *W,
                           const bk_rff_select *rff,
                           const bk_ichol_select *ic, const bk_select_opts *o,
                           int *rank, double *score, int *iter, double *path,
                           double *work, int *iwork, bk_tick_fn tick,
                           void *ctx)
{
  /* the work of the pairs: Q and Qfull (P each), the median's, Qd (m);
   * then sortbuf (3 d) and the clinical t_f (d) */
  const ptrdiff_t P = blk->pair0[blk->nblk];
  double *sortbuf = work + 2 * P + bk_pairs_median_work(m, P, blk->nblk) + m;
  if (rff)
    return bk_select_rff(x, m, d, rff, o, rank, score, iter, path, sortbuf,
                         iwork, tick, ctx);
  if (ic)
    return bk_select_ichol(x, m, d, ic, o, rank, score, iter, path, sortbuf,
                           iwork, tick, ctx);
  if (o->kern.type == BK_CLINICAL)
    return bk_select_clinical(x, m, d, W, o, rank, score, iter, path,
                              sortbuf + 3 * d, sortbuf, iwork, tick, ctx);
  return bk_select_pairs(x, m, d, blk, Wp, Wd, o, rank, score, iter, path,
                         work, iwork, tick, ctx);
}
