/*
 * select.c: BAHSIC (Algorithm 1) and FOHSIC (Algorithm 2) of Song et al.
 * (2012), section 4, on the exact estimator from the full weights, for the
 * fuzzers (tools/fuzz/fuzz_select.c): it builds the scorer and runs the one
 * schedule (schedule.c), as the selectors' glue (select_call.c) does for
 * every mode. Numeric core: no R API.
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

ptrdiff_t bk_select_work_ints(ptrdiff_t d)
{
  return 3 * d + 8;
}

ptrdiff_t bk_select_features(const double *x, ptrdiff_t m, ptrdiff_t d,
                             const double *W, const bk_select_opts *o,
                             const bk_select_out *out, double *work,
                             int *iwork, bk_tick_fn tick, void *ctx)
{
  /* work: the packed weights Wp and their diagonal Wd, the pairs' work,
   * then sortbuf (3 d) and the clinical sums (d) */
  const ptrdiff_t row0[2] = {0, m}, pair0[2] = {0, PAIRS(m)};
  const bk_pairs_select ps = {.blk = {1, row0, pair0},
                              .Wp = work,
                              .Wd = work + PAIRS(m),
                              .work = work + PAIRS(m) + m};
  double *sortbuf = ps.work + bk_pairs_work_doubles(m, &ps.blk);
  bk_scorer_mem mem;
  bk_scorer sc;
  if (o->kern.type == BK_CLINICAL) {
    sc = bk_clinical_scorer(x, m, d, W, o, sortbuf + 3 * d, &mem);
  } else {
    bk_pack_upper(W, m, work);
    for (ptrdiff_t a = 0; a < m; a++) work[PAIRS(m) + a] = W[a + m * a];
    sc = bk_pairs_scorer(x, m, d, &ps, o, iwork, &mem);
  }
  return bk_schedule_select(&sc, d, o, out, sortbuf, iwork, tick, ctx);
}
