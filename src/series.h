/*
 * series.h: the series screen of the exact Gaussian selection (series.c).
 */
#ifndef BAHSIC_SERIES_H
#define BAHSIC_SERIES_H

#include "common.h"

/* ---- the series screen (series.c) ------------------------------------------
 * Every candidate of a BAHSIC or FOHSIC iteration with the Gaussian kernel
 * and the exact estimator gets an interval holding the value the exact pass
 * would give it, from n <= BK_SERIES_MAX_TERMS terms of the exponential
 * series of its kernel factor; the schedule scores exactly only the
 * candidates whose interval reaches the batch. */
#define BK_SERIES_MAX_TERMS 3
/* per-thread scratch of bk_series_interval() and bk_series_interval4():
 * the powers of one feature (2 BK_SERIES_MAX_TERMS + 2 columns) or of
 * four (4 columns each) */
#define BK_SERIES_STRIDE(m) (16 * (m))
typedef struct bk_series {
  int terms;     /* 1 .. BK_SERIES_MAX_TERMS; 0: chosen per iteration */
  double *work;  /* bk_series_work_doubles(m, d, nthreads): M and its row
                    sums (m (m - 1) / 2 + 2 m), the features' means and
                    squared ranges (2 d, bk_series_features()), an
                    iteration's candidates by terms (d), then the threads'
                    scratch */
} bk_series;
ptrdiff_t bk_series_work_doubles(ptrdiff_t m, ptrdiff_t d, int nthreads);
/* fstats[2 j], fstats[2 j + 1]: the mean and the squared range of column j
 * of x (m x d), the columns shared between nthreads threads (each column's
 * numbers its own: the same for any number) */
void bk_series_features(const double *x, ptrdiff_t m, ptrdiff_t d,
                        double *fstats, int nthreads);
/* one iteration's M = W o exp(-sigma Q) and its sums */
typedef struct {
  const double *M, *r, *rbar;
  ptrdiff_t m;
  double S0, A, diag, t, argmax;
  int simd;     /* the AVX2 + FMA loops (allowed, and the CPU has them) */
} bk_series_round;
/* Q, Wp: packed pairs of the set's squared distances and of W; Wd: W's
 * diagonal; sgn -1 (removal) or +1 (addition); work: the first
 * m (m - 1) / 2 + 2 m doubles of bk_series::work. Called by every thread
 * of a parallel region (or outside one), with barriers: the same bits for
 * any number of threads. parts + stride t: a double of thread t's own
 * (the start of its scratch), free until the call returns. Every field of
 * sr but simd, which the caller sets. */
void bk_series_prepare(bk_series_round *sr, const double *Q, const double *Wp,
                       const double *Wd, ptrdiff_t m, double sigma, double sgn,
                       double *work, double *parts, ptrdiff_t stride);
/* [lo, hi] holding the exact pass's HSIC of the set changed by feature xj
 * (m; fstat: its mean and squared range), from n terms; pw:
 * BK_SERIES_STRIDE(m) doubles */
void bk_series_interval(const bk_series_round *sr, int n, const double *xj,
                        const double *fstat, double *pw, double *lo,
                        double *hi);
/* the same with one term for the four features xs[c] into *lo[c], *hi[c]
 * (one pass over the pairs for the four) */
void bk_series_interval4(const bk_series_round *sr, const double *const *xs,
                         const double *const *fstat, double *pw,
                         double *const *lo, double *const *hi);

/* called on the main thread after every iteration (interrupts, progress) */

#endif
