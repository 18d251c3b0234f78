/*
 * select.h: BAHSIC and FOHSIC on the data kernels (select.c) and the
 * scorers of their estimators (scorer_*.c), run by the schedule
 * (schedule.h).
 */
#ifndef BAHSIC_SELECT_H
#define BAHSIC_SELECT_H

#include "kernels.h"
#include "schedule.h"

/* ---- BAHSIC and FOHSIC (select.c, schedule.c, scorer_*.c) ------------------
 * Algorithms 1 and 2 of Song et al. (2012), section 4. */

/* enum bk_direction and enum bk_policy are in codes.h */

typedef struct {
  int direction;        /* BK_BACKWARD (BAHSIC) or BK_FORWARD (FOHSIC) */
  bk_kernel kern;       /* any kernel but BK_LINEAR (done in one pass in R) */
  int policy;           /* width policy for Gaussian and Laplace kernels */
  const double *grid;   /* widths for BK_SIGMA_OPTIMIZE, ascending */
  ptrdiff_t ngrid;
  int grid_relative;    /* grid multiplies the median-heuristic width */
  double step;          /* fraction dropped / added per iteration; 0: one */
  ptrdiff_t n_target;   /* stop at this many (0: rank all) */
  int nthreads;
  int simd;             /* allow the AVX2 + FMA loops where the CPU has them */
  const int *cat;       /* BK_CLINICAL only: 1 for a categorical column */
  const struct bk_series *series; /* the series screen (series.c) of the
                         Gaussian exact estimator; NULL: every candidate by
                         the exact pass */
  double *base;         /* FOHSIC, or NULL: per path row, HSIC of the set
                         selected before the iteration at its width (0 for
                         the empty set) */
  bk_pacer *pace;       /* interrupt checks within an iteration (between
                         groups of candidates and of a set's columns), or
                         NULL: only the tick after each iteration */
} bk_select_opts;


/* Workspace of bk_select_features(), in doubles and ints. */
ptrdiff_t bk_select_work_doubles(ptrdiff_t m, ptrdiff_t d);
ptrdiff_t bk_select_work_ints(ptrdiff_t d);

/* Preconditions (the R glue guarantees them; tools/fuzz/fuzz_select.c keeps
 * to them): m >= 2 (m = 0, 1 are safe but meaningless), 0 <= n_target <= d,
 * step finite in [0, 1), kern.type 1..5, widths >= 0 and finite data;
 * BK_CLINICAL needs x encoded as for bk_clinical_cols() and o->cat. A
 * negative n_target or one above d overflows path.
 * x: m x d (standardised by the caller); W: m x m symmetric with
 * HSIC(K) = sum(K o W). Outputs, per input feature j: rank[j] (1 = most
 * relevant, 0 = not ranked), score[j] (HSIC of S \ {j} when eliminated, or
 * of S+ U {j} when added; NaN if not ranked), iter[j] (1-based iteration,
 * 0 if not ranked); path: 4 doubles per iteration (iteration, size, HSIC,
 * sigma), capacity d + 1 rows; returns the number of path rows. */
ptrdiff_t bk_select_features(const double *x, ptrdiff_t m, ptrdiff_t d,
                             const double *W, const bk_select_opts *o,
                             int *rank, double *score, int *iter,
                             double *path, double *work, int *iwork,
                             bk_tick_fn tick, void *ctx);

/* The block estimator (Zaremba et al. 2013) in the same loop: the rows of x
 * split into nblk blocks, block k rows row0[k] .. row0[k + 1] - 1, whose
 * packed pairs a < b (within the block) sit at pair0[k] .. pair0[k + 1] - 1
 * of the packed weights; row0[0] = pair0[0] = 0. HSIC of a set is
 * sum over the blocks of sum(K_b o W_b): W_b divided by the number of
 * blocks gives their average. The exact estimator is the one block
 * {0, m}, {0, m (m - 1) / 2}. */
typedef struct {
  ptrdiff_t nblk;
  const ptrdiff_t *row0, *pair0; /* nblk + 1 each */
} bk_blocks;

/* Workspace of bk_select_blocks(): m rows, npairs = pair0[nblk]. Ints:
 * bk_select_work_ints(d). */
ptrdiff_t bk_select_blocks_work_doubles(ptrdiff_t m, ptrdiff_t npairs,
                                        ptrdiff_t nblk, ptrdiff_t d);

/* approx = "rff" in the selectors: D standard frequencies omega (D x d,
 * column-major; the Gaussian's N(0, 1), the Laplace's Cauchy z / |u|),
 * scaled by the iteration's width, phases b (D), the label factor F (m x s,
 * L ~ F F'), the estimator (HSIC1 if unbiased, else HSIC0); P: m x D
 * doubles for the projections of the current set; zwork: nthreads * stride
 * doubles, stride >= bk_rff_select_work(m, D, s). */
typedef struct {
  ptrdiff_t D, s, stride;
  const double *omega, *phase, *F;
  int unbiased;
  double *P, *zwork;
} bk_rff_select;
ptrdiff_t bk_rff_select_work(ptrdiff_t m, ptrdiff_t D, ptrdiff_t s);

/* approx = "ichol" in BAHSIC: bk_ichol() (tol, max_rank) on the surviving
 * set at every round, the label factor F (m x s), the estimator; buffers
 * xbuf (m x d), G0 and Qmp (m x max_rank each), res (m), piv (max_rank),
 * *r the current rank; zwork: nthreads * stride doubles, stride >=
 * bk_ichol_select_work(m, max_rank, s). */
typedef struct {
  double tol;
  ptrdiff_t max_rank, s, stride;
  const double *F;
  int unbiased;
  double *xbuf, *G0, *Qmp, *res, *zwork;
  int *piv;
  ptrdiff_t *r;
} bk_ichol_select;
ptrdiff_t bk_ichol_select_work(ptrdiff_t m, ptrdiff_t r, ptrdiff_t s);

/* bk_select_features() over blocks: Wp the packed within-block weights
 * (pair0[nblk] doubles), Wd their diagonal (m); W the full m x m weights,
 * needed only by BK_CLINICAL (one block), else may be NULL. rff: NULL, or
 * approx = "rff" (Gaussian or Laplace kernel, "dimension" or "fixed" width):
 * then the blocks are {0, m}, {0, 0} (no pairs) and Wp, Wd, W unused; ic
 * likewise for approx = "ichol" (BAHSIC only; kernels with a width take the
 * "dimension" or "fixed" policy). Other
 * arguments and outputs as bk_select_features(), which is this with one
 * block. */
ptrdiff_t bk_select_blocks(const double *x, ptrdiff_t m, ptrdiff_t d,
                           const bk_blocks *blk, const double *Wp,
                           const double *Wd, const double *W,
                           const bk_rff_select *rff,
                           const bk_ichol_select *ic, const bk_select_opts *o,
                           int *rank, double *score, int *iter, double *path,
                           double *work, int *iwork, bk_tick_fn tick,
                           void *ctx);

/* The scorers of bk_select_blocks(), each run by the schedule with the
 * arguments of bk_select_blocks(): the exact and block estimators
 * (scorer_pairs.c; work as bk_select_blocks()), random Fourier features
 * (scorer_rff.c), the incomplete Cholesky factor (scorer_ichol.c) and the
 * clinical kernel (scorer_clinical.c; tf: d doubles for the per-feature
 * sums); sortbuf: 3 d doubles. */
ptrdiff_t bk_pairs_median_work(ptrdiff_t m, ptrdiff_t npairs, ptrdiff_t nblk);
/* bk_schedule() with the schedule options of o (a scorer cannot fail) */
ptrdiff_t bk_schedule_select(const bk_scorer *sc, ptrdiff_t d,
                             const bk_select_opts *o, int *rank, double *score,
                             int *iter, double *path, double *sortbuf,
                             int *iwork, bk_tick_fn tick, void *tctx);
ptrdiff_t bk_select_pairs(const double *x, ptrdiff_t m, ptrdiff_t d,
                          const bk_blocks *blk, const double *Wp,
                          const double *Wd, const bk_select_opts *o,
                          int *rank, double *score, int *iter, double *path,
                          double *work, int *iwork, bk_tick_fn tick, void *ctx);
ptrdiff_t bk_select_rff(const double *x, ptrdiff_t m, ptrdiff_t d,
                        const bk_rff_select *rff, const bk_select_opts *o,
                        int *rank, double *score, int *iter, double *path,
                        double *sortbuf, int *iwork, bk_tick_fn tick,
                        void *ctx);
ptrdiff_t bk_select_ichol(const double *x, ptrdiff_t m, ptrdiff_t d,
                          const bk_ichol_select *ic, const bk_select_opts *o,
                          int *rank, double *score, int *iter, double *path,
                          double *sortbuf, int *iwork, bk_tick_fn tick,
                          void *ctx);
ptrdiff_t bk_select_clinical(const double *x, ptrdiff_t m, ptrdiff_t d,
                             const double *W, const bk_select_opts *o,
                             int *rank, double *score, int *iter,
                             double *path, double *tf, double *sortbuf,
                             int *iwork, bk_tick_fn tick, void *ctx);

#endif
