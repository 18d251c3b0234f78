/*
 * kernels.h: the kernel values (from the kernel table of codes.h), the
 * Gram matrices and the median heuristic (gram.c).
 */
#ifndef BAHSIC_KERNELS_H
#define BAHSIC_KERNELS_H

#include "common.h"

/* ---- the kernel values ------------------------------------------------------
 * Written once, in the value column of BK_KERNEL_TABLE (codes.h), as an
 * expression of v (squared distance or inner product) and p1, p2; expanded
 * here into the one scalar evaluator and the one set of per-kernel loops
 * that gram.c, hsic.c, lowrank.c, the selectors' scorers and randsel.c use.
 * The vectorised Gaussian pass over pairs (pairs.c) is the fast path of the
 * Gaussian row. */

/* sqrt(v) of v clamped at 0: downdated sums of squares can be -1e-16 */
static inline double bk_sqrt0(double v) { return sqrt(v > 0.0 ? v : 0.0); }

/* x^p: by p - 1 products for the whole degrees 0..64 (the usual ones, and
 * what the selectors have always used), pow() otherwise -- (int) of a NaN
 * or of a degree beyond INT_MAX is undefined, and a degree near INT_MAX
 * would loop for ever */
static inline double bk_powi(double x, double p)
{
  if (p >= 0.0 && p <= 64.0 && p == (double) (int) p) {
    double r = 1.0;
    for (int i = 0, n = (int) p; i < n; i++) r *= x;
    return r;
  }
  return pow(x, p);
}

/* the kernel type with parameters p1, p2 at v; NaN for a code of no kernel
 * (or of one that is not a function of v: clinical, precomputed) */
static inline double bk_kernel_eval(int type, double p1, double p2, double v)
{
  (void) p2;
  switch (type) {
#define BK_X_EVAL(id, code, name, sets, props, spectrum, value) \
  case id:                                            \
    return (value);
    BK_KERNEL_TABLE(BK_X_EVAL)
#undef BK_X_EVAL
  default:
    return NAN;
  }
}

/* The body of a loop v[i] = k(v[i]) for i < n: one loop per kernel with the
 * switch outside, so that each loop vectorises (BK_SIMD) in whatever
 * function expands it (randsel.c expands it in an AVX2 + FMA clone too).
 * type, p1, p2, v, n: names of the enclosing function's kernel code,
 * parameters, array and length. */
#define BK_X_MAP(id, code, name, sets, props, spectrum, value)               \
  case id:                                                                   \
    BK_SIMD                                                                  \
    for (ptrdiff_t bk_i_ = 0; bk_i_ < bk_n_; bk_i_++) {                      \
      const double v = bk_v_[bk_i_];                                         \
      (void) v; /* the rows without a value (NAN) */                         \
      bk_v_[bk_i_] = (value);                                                \
    }                                                                        \
    break;
#define BK_KERNEL_MAP(type, p1_, p2_, v_, n_)                                \
  do {                                                                       \
    const double p1 = (p1_), p2 = (p2_);                                     \
    double *const bk_v_ = (v_);                                              \
    const ptrdiff_t bk_n_ = (n_);                                            \
    (void) p1;                                                               \
    (void) p2;                                                               \
    switch (type) {                                                          \
      BK_KERNEL_TABLE(BK_X_MAP)                                              \
    default:                                                                 \
      break;                                                                 \
    }                                                                        \
  } while (0)

/* ---- kernels (gram.c) ---------------------------------------------------- */

/* The kernel codes, enum bk_kernel_type, are in codes.h, with the entry
 * points that accept each. */

typedef struct {
  int type;
  double p1, p2;
} bk_kernel;

/* bk_kernel_uses_distance() and bk_kernel_has_width(): codes.h, from the
 * kernel table */

/* The kernel in the units of xs = 2^e x from its parameters in x's units
 * (the distance kernels; others are returned as they are): the squared
 * distances of xs are 2^(2e) times those of x, the distances 2^e times. A
 * parameter beyond the largest double is the largest double (the same
 * kernel: exp(-w v) is 0 for every v > 0 either way). The inverse-distance
 * kernel of xs is then 2^-e times that of x. */
bk_kernel bk_scaled_kernel(bk_kernel kern, int e);

/* Upper triangle (a <= b) of the inner products (dist = 0) or squared
 * distances (dist = 1) of the rows of the m x d matrix x, into K (m x m). */
void bk_cross(const double *x, ptrdiff_t m, ptrdiff_t d, int dist, double *K,
              int nthreads, bk_pacer *pace);

/* Full symmetric Gram matrix K (m x m) of the rows of xs = 2^e x, where x
 * are the data the kernel is meant for (e = 0: xs is x; see bk_pow2_shift;
 * only the distance kernels may be given e != 0), kern's parameters in x's
 * units. When work is not NULL (BK_MEDIAN_WORK(m) doubles) and the kernel is
 * Gaussian or Laplace, its width kern->p1 is first set, in x's units, by the
 * median heuristic from the pairwise distances of xs (K is computed with it
 * in xs's units, so also when the width in x's units is beyond the range of
 * doubles, Inf or subnormal: the caller decides whether to report it); if
 * that median is 0, p1 is set to NaN and K holds the squared distances (the
 * caller decides on a fallback and calls again). simd: the AVX2 copies of
 * the loops where the CPU has them (the same values; gram.c). */
void bk_gram_ck(const double *xs, ptrdiff_t m, ptrdiff_t d, int e,
                bk_kernel *kern, double *K, double *work, int nthreads,
                int simd, bk_pacer *pace);
/* Columns b0..b1-1 of that Gram matrix, all m rows, into P (m x (b1 - b0),
 * column b at P + m (b - b0)), for a kernel whose width is given (kern.p1
 * finite, in x's units): every value is bit for bit the one bk_gram_ck()
 * puts at K[a, b], whichever the columns. One thread; simd as above. What
 * bk_hsic_stats_x() holds of K instead of K. */
void bk_gram_panel(const double *xs, ptrdiff_t m, ptrdiff_t d, int e,
                   bk_kernel kern, ptrdiff_t b0, ptrdiff_t b1, double *P,
                   int simd);
/* The same for the first n rows only (n <= m; column b still at
 * P + m (b - b0)): the part of the columns above row n. */
void bk_gram_panel_rows(const double *xs, ptrdiff_t m, ptrdiff_t d, int e,
                        bk_kernel kern, ptrdiff_t b0, ptrdiff_t b1,
                        ptrdiff_t n, double *P, int simd);
/* bk_gram_ck() of unscaled data without interrupt checks (small matrices
 * inside loops that check themselves) */
void bk_gram(const double *x, ptrdiff_t m, ptrdiff_t d, bk_kernel *kern,
             double *K, double *work, int nthreads);

/* Median of the strictly upper triangle of squared distances, stored in an
 * m x m matrix (packed = 0) or packed column after column, column b at
 * b (b - 1) / 2 (packed = 1): of the squared distances (squared = 1) or of
 * their square roots (squared = 0), by the rule for ties below
 * (bk_median_tie_floor()). work: BK_MEDIAN_WORK(m) doubles. */
double bk_median_triangle_ck(const double *base, ptrdiff_t m, int packed,
                             int squared, double *work, bk_pacer *pace);
double bk_median_triangle(const double *base, ptrdiff_t m, int packed,
                          int squared, double *work);
#define BK_MEDIAN_WORK(m) ((m) * ((m) - 1) / 2 + 65536)
/* One feature (d = 1) needs less of it: its m sorted values and the gaps
 * that the selection gathers at the end (at most BK_MEDIAN_GAP_CAP(m));
 * BK_MEDIAN_WORK(m) >= BK_MEDIAN_1D_WORK(m) for every m >= 2 */
#define BK_MEDIAN_GAP_CAP(m) ((ptrdiff_t) (m))
#define BK_MEDIAN_1D_WORK(m) ((m) + BK_MEDIAN_GAP_CAP(m))
/* bk_median_pairwise()'s work for d features */
#define BK_MEDIAN_PAIRWISE_WORK(m, d) ((d) == 1 ? BK_MEDIAN_1D_WORK(m) : BK_MEDIAN_WORK(m))

/* The median heuristic's one rule for ties, followed by every median of
 * distances in the package (bk_median_triangle_ck(), bk_median_pairwise_ck()
 * and the scorers' within-block medians): a squared distance of at most
 * BK_MEDIAN_TIE times the largest squared distance between the samples (a
 * distance of at most sqrt(DBL_EPSILON) = 1.5e-8 times the largest) counts
 * as a tie, as an exact 0 does. When the two middle values of all pairs are
 * such ties, the median is taken over the pairs that are not (0 when none
 * is, that is, when all samples coincide). Relative to the largest
 * distance, so that the rule is invariant to shifting and scaling the data,
 * as the median-heuristic kernel is. sqrt(DBL_EPSILON): the tolerance under
 * which R's all.equal() calls two numbers equal, far below the resolution
 * of any measurement, so that it leaves every ordinary feature's median as
 * it was, and above the residue that quantification leaves in single-cell
 * data (values from 1e-134 up to 1e-8 beside values near 3.5, so that it
 * ties with 0 instead of setting the width). */
#define BK_MEDIAN_TIE DBL_EPSILON

/* The rule on the middle value hi (the larger of the two for an even count)
 * of the squared distances whose largest is top: the floor at or below
 * which the squared distances are ties when hi is one of them, else -1 (the
 * median of all pairs stands). */
static inline double bk_median_tie_floor(double hi, double top)
{
  const double tie = BK_MEDIAN_TIE * top;
  return hi <= tie ? tie : -1.0;
}

/* Apply the kernel function to one value of bk_cross (inner product or
 * squared distance): bk_kernel_eval(), the table's value. */
static inline double bk_kernel_value(bk_kernel kern, double v)
{
  return bk_kernel_eval(kern.type, kern.p1, kern.p2, v);
}

/* Median of the m(m-1)/2 pairwise squared distances (squared = 1) or
 * distances (squared = 0) of the rows of x, by the rule for ties
 * (bk_median_tie_floor()). work: BK_MEDIAN_WORK(m) doubles
 * (and cross: m * m doubles when d > 1, made on up to nthreads threads). */
double bk_median_pairwise_ck(const double *x, ptrdiff_t m, ptrdiff_t d,
                             int squared, double *work, double *cross,
                             int nthreads, bk_pacer *pace);
/* (the signature with nthreads: tools/harness builds older cores too) */
#define BK_MEDIAN_THREADS 1
double bk_median_pairwise(const double *x, ptrdiff_t m, ptrdiff_t d,
                          int squared, double *work, double *cross);

/* A median of (squared) distances of data rescaled by 2^e, in the data's
 * units: NaN when it is positive but it or its inverse (the width of the
 * median heuristic) is not a normal double there, so that no width in the
 * data's units can express it. */
double bk_median_in_units(double med, int e, int squared);

/* The median heuristic of every column of x (m x d, m >= 2) on its own,
 * each brought to a scale of 1 by a power of two first (exact) and its
 * median given in its units (bk_median_in_units()), into out: features on
 * up to nthreads threads, each its own numbers. work: nthreads *
 * BK_MEDIAN_COLUMNS_WORK(m) doubles. */
void bk_median_columns(const double *x, ptrdiff_t m, ptrdiff_t d, int squared,
                       double *out, double *work, int nthreads, bk_pacer *pace);
#define BK_MEDIAN_COLUMNS_WORK(m) (BK_MEDIAN_1D_WORK(m) + (m))

/* k-th smallest (0-based) of v[0..n-1], n >= 1, 0 <= k < n; reorders v. */
double bk_select(double *v, ptrdiff_t n, ptrdiff_t k);

#endif
