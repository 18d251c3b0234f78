/*
 * pace.c: the paced loop (bahsic.h): independent items in groups between
 * interrupt checks, each group one OpenMP loop. Numeric core: no R API.
 */
#include "common.h"
#include "schedule.h"

/* items i0..i1-1, on nthreads threads where nthreads > 1; with timed, the
 * sum of the threads' busy times (seconds), else 0 */
static double run_group(const bk_paced_loop *loop, ptrdiff_t i0, ptrdiff_t i1,
                        int nthreads, int timed)
{
  const int par = nthreads > 1, chunk = loop->dynamic;
  double busy = 0.0;
  (void) par;
#ifdef _OPENMP
#pragma omp parallel num_threads(nthreads) if (par) reduction(+ : busy)
#endif
  {
    const double s0 = timed ? bk_par_now() : 0.0;
    if (chunk > 0) {
#ifdef _OPENMP
#pragma omp for schedule(dynamic, chunk) nowait
#endif
      for (ptrdiff_t i = i0; i < i1; i++) loop->item(loop->ctx, i);
    } else {
#ifdef _OPENMP
#pragma omp for schedule(static) nowait
#endif
      for (ptrdiff_t i = i0; i < i1; i++) loop->item(loop->ctx, i);
    }
    if (timed) busy += bk_par_now() - s0;
  }
  return busy;
}

void bk_paced_for(const bk_paced_loop *loop, ptrdiff_t n, int nthreads,
                  bk_pacer *pace)
{
  const ptrdiff_t nt = nthreads > 1 ? nthreads : 1;
  for (ptrdiff_t i0 = 0; i0 < n;) {
    /* the items i0..i1-1 between two checks: about BK_CHECK_OPS operations
     * and at least one per thread; all of them without a pacer */
    ptrdiff_t i1 = i0;
    double ops = 0.0;
    while (i1 < n && (!pace || i1 - i0 < nt || ops < (double) BK_CHECK_OPS)) {
      ops += loop->cost ? loop->cost(loop->ctx, i1) : loop->ops;
      i1++;
    }
    int par = nthreads > 1 && ops >= loop->par_min;
    if (par && loop->watch && !bk_par_free(loop->watch)) par = 0;
    if (par && loop->watch) {
      const double t0 = bk_par_now();
      const double busy = run_group(loop, i0, i1, nthreads, 1);
      bk_par_watched(loop->watch, ops, 1.0, bk_par_now() - t0, busy);
    } else {
      run_group(loop, i0, i1, par ? nthreads : 1, 0);
    }
    if (pace) bk_pace(pace, ops < 0x1p62 ? (ptrdiff_t) ops : BK_CHECK_OPS);
    i0 = i1;
  }
}

void bk_columns_for(void (*item)(void *ctx, ptrdiff_t j), void *ctx, ptrdiff_t n,
                    double ops, int nthreads)
{
  /* (columns handed out in chunks as threads finish theirs: a thread whose
   * core another process holds takes fewer) */
  const bk_paced_loop loop = {.item = item, .ctx = ctx, .ops = ops,
                              .par_min = BK_PAR_MIN_PAIRS, .dynamic = 32};
  bk_paced_for(&loop, n, nthreads, NULL);
}
