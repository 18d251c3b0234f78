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

/* The width policy of the selection's kernel (bk_choose_width()), the
 * first member of every scorer's context that takes bk_width_policy_only() */
static inline bk_width_policy bk_select_width_policy(const bk_select_opts *o)
{
  return (bk_width_policy){.type = o->kern.type, .policy = o->policy,
                           .fixed = o->kern.p1, .grid = o->grid,
                           .ngrid = o->ngrid,
                           .grid_relative = o->grid_relative};
}

/* The outputs of a selection of d features, per input feature j: rank[j]
 * (1 = most relevant, 0 = not ranked), score[j] (HSIC of S \ {j} when
 * eliminated, or of S+ U {j} when added; NaN if not ranked), iter[j]
 * (1-based iteration, 0 if not ranked); path: 4 doubles per iteration
 * (iteration, size, HSIC, sigma), capacity d + 1 rows. */
typedef struct {
  int *rank, *iter;
  double *score, *path;
} bk_select_out;

/* Run the scorer sc (built by one of the builders below) on d features:
 * bk_schedule() with the schedule options of o (a scorer of the selectors
 * cannot fail). sortbuf: 3 d doubles; iwork: bk_select_work_ints(d) ints.
 * Returns the number of path rows. */
ptrdiff_t bk_schedule_select(const bk_scorer *sc, ptrdiff_t d,
                             const bk_select_opts *o, const bk_select_out *out,
                             double *sortbuf, int *iwork, bk_tick_fn tick,
                             void *tctx);

/* Workspace of bk_select_features(), in doubles and ints. */
ptrdiff_t bk_select_work_doubles(ptrdiff_t m, ptrdiff_t d);
ptrdiff_t bk_select_work_ints(ptrdiff_t d);

/* The exact estimator from the full weights, for the fuzzers
 * (tools/fuzz/fuzz_select.c): builds the exact scorer (or the clinical one)
 * and runs it. Preconditions (the R glue guarantees them; the fuzzer keeps
 * to them): m >= 2 (m = 0, 1 are safe but meaningless), 0 <= n_target <= d,
 * step finite in [0, 1), kern.type 1..5, widths >= 0 and finite data;
 * BK_CLINICAL needs x encoded as for bk_clinical_cols() and o->cat. A
 * negative n_target or one above d overflows path.
 * x: m x d (standardised by the caller); W: m x m symmetric with
 * HSIC(K) = sum(K o W). work: bk_select_work_doubles(m, d), iwork:
 * bk_select_work_ints(d). Returns the number of path rows. */
ptrdiff_t bk_select_features(const double *x, ptrdiff_t m, ptrdiff_t d,
                             const double *W, const bk_select_opts *o,
                             const bk_select_out *out, double *work,
                             int *iwork, bk_tick_fn tick, void *ctx);

/* ---- the scorers of the selection modes ------------------------------------
 * One builder per estimator: it takes the data, the common options and its
 * own, puts its context into *mem (storage of the caller that outlives the
 * run; each scorer file checks that its context fits) and returns the
 * scorer, which bk_schedule_select() runs. The glue's table of modes
 * (select_call.c) reads each mode's options and calls its builder. */

/* The exact and block estimators (scorer_pairs.c; Zaremba et al. 2013 for
 * the blocks): the rows of x split into nblk blocks, block k rows row0[k]
 * .. row0[k + 1] - 1, whose packed pairs a < b (within the block) sit at
 * pair0[k] .. pair0[k + 1] - 1 of the packed weights; row0[0] = pair0[0] =
 * 0. HSIC of a set is sum over the blocks of sum(K_b o W_b): W_b divided by
 * the number of blocks gives their average. The exact estimator is the one
 * block {0, m}, {0, m (m - 1) / 2}. */
typedef struct {
  ptrdiff_t nblk;
  const ptrdiff_t *row0, *pair0; /* nblk + 1 each */
} bk_blocks;

/* Wp: the packed within-block weights (pair0[nblk] doubles), Wd their
 * diagonal (m); work: bk_pairs_work_doubles() doubles (the set's packed
 * pairs, FOHSIC's reference set, the median's workspace). */
typedef struct {
  bk_blocks blk;
  const double *Wp, *Wd;
  double *work;
} bk_pairs_select;
ptrdiff_t bk_pairs_work_doubles(ptrdiff_t m, const bk_blocks *blk);
/* iwork: d ints of scratch, free again when it returns */
bk_scorer bk_pairs_scorer(const double *x, ptrdiff_t m, ptrdiff_t d,
                          const bk_pairs_select *ps, const bk_select_opts *o,
                          int *iwork, bk_scorer_mem *mem);

/* approx = "rff" (scorer_rff.c): D standard frequencies omega (D x d,
 * column-major; the Gaussian's N(0, 1), the Laplace's Cauchy z / |u|),
 * scaled by the iteration's width, phases b (D), the label factor F (m x s,
 * L ~ F F'), the estimator (HSIC1 if unbiased, else HSIC0); P: m x D
 * doubles for the projections of the current set; zwork: nthreads * stride
 * doubles, stride >= bk_rff_select_work(m, D, s). Kernels with
 * BK_KPROP_RFF, the "dimension" or "fixed" width. */
typedef struct {
  ptrdiff_t D, s, stride;
  const double *omega, *phase, *F;
  int unbiased;
  double *P, *zwork;
} bk_rff_select;
ptrdiff_t bk_rff_select_work(ptrdiff_t m, ptrdiff_t D, ptrdiff_t s);
bk_scorer bk_rff_scorer(const double *x, ptrdiff_t m,
                        const bk_rff_select *rff, const bk_select_opts *o,
                        bk_scorer_mem *mem);

/* approx = "ichol" in BAHSIC (scorer_ichol.c): bk_ichol() (tol, max_rank
 * <= m) on the surviving set at every round, the label factor F (m x s),
 * the estimator; buffers xbuf (m x d), G0 and Qmp (m x max_rank each), res
 * (m), piv (max_rank), *r the current rank; zwork: nthreads * stride
 * doubles, stride >= bk_ichol_select_work(m, max_rank, s). Kernels with a
 * width take the "dimension" or "fixed" width. */
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
bk_scorer bk_ichol_scorer(const double *x, ptrdiff_t m,
                          const bk_ichol_select *ic, const bk_select_opts *o,
                          bk_scorer_mem *mem);

/* The clinical kernel with the exact estimator (scorer_clinical.c): W the
 * full m x m weights, o->cat the flags of the categorical columns; tf: d
 * doubles for the per-feature sums. */
bk_scorer bk_clinical_scorer(const double *x, ptrdiff_t m, ptrdiff_t d,
                             const double *W, const bk_select_opts *o,
                             double *tf, bk_scorer_mem *mem);

#endif
