/*
 * bahsic.h: prototypes of the numeric core and the SEXP glue.
 *
 * The numeric core (checks.c, clinical.c, gram.c, hsic.c, lowrank.c,
 * lsmi.c, maxt.c, pairs.c, randsel.c, ridge.c, schedule.c, scorer_clinical.c,
 * scorer_ichol.c, scorer_pairs.c, scorer_rff.c, scores.c, select.c, width.c)
 * is plain C on double * and ptrdiff_t sizes: no SEXP, no R API (lsmi.c and ridge.c call
 * the BLAS and LAPACK R links, through R's headers), no allocation. Callers
 * hand it every work array. The glue (*_call.c, glue.h) unpacks SEXPs,
 * allocates with R_alloc and calls the core; init.c registers the glue.
 * The codes that cross .Call are in codes.h. Matrices are column-major, as
 * R stores them.
 */
#ifndef BAHSIC_H
#define BAHSIC_H

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "codes.h"

/* ---- a vectorisable exp ---------------------------------------------------
 * exp(x) for the kernel arguments x <= 0, branch-free so that the compiler
 * can vectorise the loops that call it at -O2 (glibc's exp is a scalar call
 * and a ?: is control flow to the vectoriser). x = k ln 2 + r with
 * |r| <= ln 2 / 2, exp(r) by its Taylor series to degree 13 (truncation
 * below 1e-17 relative, evaluated by Estrin's scheme), 2^k put straight into
 * the exponent bits. Within 2 ulp of exp() on [-708, 0] (tested against R's
 * exp() in tests/testthat/test-kernels.R).
 *
 * bk_exp_core() needs x in [-708, 0] (for loops that check their range
 * once); bk_exp() clamps, returns 0 below -708 (where exp() is below 1e-307)
 * and NaN for NaN. Arguments must be finite (R checks the data's range). */
static inline double bk_exp_core(double xc)
{
  const double magic = 6755399441055744.0; /* 2^52 + 2^51: rounds to integer */
  const double log2e = 1.4426950408889634074;
  const double ln2_hi = 6.93147180369123816490e-01;
  const double ln2_lo = 1.90821492927058770002e-10;
  double t = xc * log2e + magic;
  double k = t - magic;
  double r = xc - k * ln2_hi - k * ln2_lo;
  /* Estrin's scheme: the terms pair up independently, so the dependency
   * chain is four products deep instead of Horner's thirteen; the loops
   * that call this are throughput-bound, not latency-bound. */
  double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
  double p01 = 1.0 + r, p23 = 0.5 + r * (1.0 / 6.0),
         p45 = 1.0 / 24.0 + r * (1.0 / 120.0),
         p67 = 1.0 / 720.0 + r * (1.0 / 5040.0),
         p89 = 1.0 / 40320.0 + r * (1.0 / 362880.0),
         pab = 1.0 / 3628800.0 + r * (1.0 / 39916800.0),
         pcd = 1.0 / 479001600.0 + r * (1.0 / 6227020800.0);
  double p = (p01 + r2 * p23) + r4 * (p45 + r2 * p67) +
             r8 * ((p89 + r2 * pab) + r4 * pcd);
  /* unsigned, so that a NaN or out-of-range x wraps (giving NaN or a
   * meaningless but defined value) instead of overflowing a signed shift or
   * subtraction, which is undefined; the same bits for x in [-708, 0] */
  unsigned long long ti, si;
  double sc;
  memcpy(&ti, &t, sizeof ti);
  si = (ti - 0x4338000000000000ULL + 1023ULL) << 52; /* bits(t) - bits(magic) = k */
  memcpy(&sc, &si, sizeof sc);
  return p * sc;
}


static inline double bk_exp(double x)
{
  double under = (double) (x < -708.0);
  double xc = x + (-708.0 - x) * under; /* max(x, -708) without a branch */
  return bk_exp_core(xc) * (1.0 - under);
}

#ifdef _OPENMP
#define BK_PRAGMA(x) _Pragma(#x)
#define BK_SIMD _Pragma("omp simd")
#define BK_SIMD_SUM(v) BK_PRAGMA(omp simd reduction(+ : v))
#define BK_SIMD_SUM2(u, v) BK_PRAGMA(omp simd reduction(+ : u, v))
#define BK_SIMD_MIN_COUNT(lo, n) BK_PRAGMA(omp simd reduction(min : lo) reduction(+ : n))
#else
#define BK_SIMD
#define BK_SIMD_SUM(v)
#define BK_SIMD_SUM2(u, v)
#define BK_SIMD_MIN_COUNT(lo, n)
#endif

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
#define BK_X_EVAL(id, code, name, sets, props, value) \
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
#define BK_X_MAP(id, code, name, sets, props, value)                         \
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

/* ---- interrupts ------------------------------------------------------------
 * The long loops over pairs of samples run in blocks of about BK_CHECK_OPS
 * element operations (some 10-50 ms) and hand control back between blocks:
 * the glue passes a pacer whose check is R_CheckUserInterrupt() (which may
 * not return: R unwinds to the top level; scratch memory is R_alloc'ed, so
 * nothing leaks). The check runs on the calling (main) thread between
 * OpenMP regions, never inside one; the blocks change only when work is
 * done, not what is computed, so results do not depend on them. A NULL
 * pacer checks nothing (fuzzers, small matrices inside loops that check
 * themselves). */
#define BK_CHECK_OPS ((ptrdiff_t) 1 << 26)

typedef struct {
  void (*check)(void); /* called on the main thread; may not return */
  ptrdiff_t ops;       /* operations since the last check */
} bk_pacer;

/* count ops operations done; check when a block's worth has accumulated */
static inline void bk_pace(bk_pacer *p, ptrdiff_t ops)
{
  if (p && (p->ops += ops) >= BK_CHECK_OPS) {
    p->ops = 0;
    p->check();
  }
}

/* How many of n equal items of cost operations each to do between two
 * checks: about BK_CHECK_OPS operations' worth, at least min (the work a
 * parallel region needs to keep its threads busy) and at least 1; all n
 * without a pacer or a cost. */
static inline ptrdiff_t bk_pace_group(const bk_pacer *p, double cost,
                                      ptrdiff_t n, ptrdiff_t min)
{
  if (!p || !(cost > 0.0)) return n > 0 ? n : 1;
  double g = (double) BK_CHECK_OPS / cost;
  ptrdiff_t k = g < (double) n ? (ptrdiff_t) g : n;
  if (k < min) k = min;
  return k > 0 ? k : 1;
}

/* ---- scales -----------------------------------------------------------------
 * Floating-point products and sums scale exactly by powers of two (barring
 * over- and underflow), so a computation on data multiplied by 2^e gives the
 * very numbers of the computation on the data, times the matching power of
 * two. Data (or kernels) of an extreme scale are brought to one this way
 * before their squares could over- or underflow; data of an ordinary scale
 * are not touched, so their results are the same bits as ever. */

/* The exponent of a column without a power of two: all its values are 0
 * (or it has a non-finite one). INT_MIN, which is also R's NA_integer_. */
#define BK_NO_EXPONENT INT_MIN

/* e with maxabs in [2^(e-1), 2^e), at least -1021 (so that 2^-e is a
 * double); BK_NO_EXPONENT for 0 or a non-finite maxabs. */
int bk_pow2_exponent(double maxabs);

/* 2^-e, exactly; 1 for BK_NO_EXPONENT. */
double bk_pow2_scale(int e);

/* e with 2^e v in [0.5, 1) (that is, -bk_pow2_exponent(v)) when v > 0 lies
 * outside [2^-range, 2^range]; 0 inside it, and for v = 0, Inf or NaN.
 * |e| <= 1000, so that 2^e and 2^-e are normal doubles. */
int bk_pow2_shift(double v, int range);

/* The range of the data's largest absolute value within which the squared
 * distances and inner products of the kernels neither over- nor underflow:
 * outside [2^-256, 2^256], the distance kernels work on rescaled data. */
#define BK_DATA_RANGE 256

/* max |x[i]| over i < n (0 for n = 0) */
double bk_max_abs(const double *x, ptrdiff_t n);

/* out[i] = 2^e x[i], exactly (out may be x) */
void bk_copy_pow2(const double *x, ptrdiff_t n, int e, double *out);

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
 * (and cross: m * m doubles when d > 1). */
double bk_median_pairwise_ck(const double *x, ptrdiff_t m, ptrdiff_t d,
                             int squared, double *work, double *cross,
                             bk_pacer *pace);
double bk_median_pairwise(const double *x, ptrdiff_t m, ptrdiff_t d,
                          int squared, double *work, double *cross);

/* k-th smallest (0-based) of v[0..n-1], n >= 1, 0 <= k < n; reorders v. */
double bk_select(double *v, ptrdiff_t n, ptrdiff_t k);

/* ---- the clinical kernel (clinical.c) --------------------------------------
 * Eq. (3)-(4) of Paul and Dupont (ESANN 2014) on encoded data: column f of z is
 * categorical (cat[f] = 1, level codes, k_f = 1[a == b]) or continuous
 * (cat[f] = 0, shifted and divided by its range, k_f = 1 - |a - b|). */

/* Columns j0 <= j < j1 of K (ma x mb) = sum_f weight[f] k_f(za_i, zb_j),
 * or the average over the p features when weight is NULL (za: ma x p, zb:
 * mb x p): with sym (za == zb), only rows i <= j,
 * to be mirrored by bk_clinical_mirror() once all columns are done. The
 * glue computes K in blocks of columns, checking for an interrupt between
 * blocks; each column is the same whatever the blocks and the threads. */
void bk_clinical_cols(const double *za, ptrdiff_t ma, const double *zb,
                      ptrdiff_t mb, ptrdiff_t p, const int *cat,
                      const double *weight, int sym, ptrdiff_t j0, ptrdiff_t j1,
                      double *K, int nthreads);

/* K (m x m): the lower triangle from the upper one. */
void bk_clinical_mirror(double *K, ptrdiff_t m);

/* out[f] = sum_{a,b} W_ab k_f(z_af, z_bf) for every feature f of z (m x p),
 * W symmetric m x m (only its upper triangle is read). HSIC is linear in
 * the kernel and the clinical kernel is an average, so these p numbers give
 * HSIC of every feature subset; with W = v v' they are the quadratic forms
 * v' K_f v of J_SVM (eq. 5-7) and of the MKL gradient (eq. 8). */
void bk_clinical_dot(const double *z, ptrdiff_t m, ptrdiff_t p, const int *cat,
                     const double *W, double *out, int nthreads);

/* ---- HSIC estimators (hsic.c) ---------------------------------------------
 * The label side is either a full m x m Gram matrix L (Y == NULL) or a
 * low-rank factor Y (m x c) with L = Y Y' (L == NULL). */

typedef struct {
  const double *L; /* m x m, or NULL */
  const double *Y; /* m x c, or NULL */
  ptrdiff_t c;
} bk_label;

/* out[0] = HSIC0 (eq. 4), out[1] = HSIC1 (eq. 5), out[2] = variance of HSIC1
 * (eq. 15 with the vector h of section 2.5), out[3] = its standard error
 * sqrt(max(variance, 0)), computed so that it is representable whenever the
 * estimates are (the variance may overflow where they do not). Kernels of
 * an extreme scale are rescaled exactly by a power of two for the sums.
 * work: 8 m + 2 m c doubles. */
void bk_hsic_stats(const double *K, ptrdiff_t m, bk_label lab, double *out,
                   double *work, bk_pacer *pace);

/* The data-side quantities every estimator needs, computed once per K:
 * kd = diag(K) and k1 = K~ 1 (row sums without the diagonal). */
void bk_kside(const double *K, ptrdiff_t m, double *kd, double *k1,
              bk_pacer *pace);

/* HSIC0 and HSIC1 of K against the label kernel with its samples reordered by
 * perm (0-based, length m; NULL for the identity), given kd and k1 from
 * bk_kside(). out[0] = HSIC0, out[1] = HSIC1, the very numbers of
 * bk_hsic_stats() for perm = NULL. work: 3 m + 2 m c doubles. */
void bk_hsic_pair(const double *K, ptrdiff_t m, const double *kd,
                  const double *k1, bk_label lab, const int *perm, double *out,
                  double *work, bk_pacer *pace);

/* Moments of the biased statistic under independence for the gamma
 * approximation (Gretton et al. 2008): out[0] = m * HSIC_b with
 * HSIC_b = tr(KHLH) / m^2, out[1] = its null mean, out[2] = its null
 * variance, and the gamma distribution with that mean and variance:
 * out[3] = shape, out[4] = scale (NaN both when the mean or the variance is
 * not positive, i.e. a kernel is constant). The shape and scale are
 * computed from moments rescaled by a power of two, so they are finite
 * whenever the statistic is, even where the variance overflows.
 * work: 4 m + 2 m c doubles. */
void bk_hsic_gamma(const double *K, ptrdiff_t m, bk_label lab, double *out,
                   double *work, bk_pacer *pace);

/* For every feature j of x (m x d): sum_{a,b} k(x_aj, x_bj) W_ab, with the
 * kernel's parameter p1 taken from par[j] when par != NULL. Because both HSIC
 * estimators, MMD and the alignment are linear in K, a weight matrix W made
 * once from the labels scores every feature in one pass over its pairs. A
 * feature of an extreme scale is rescaled by a power of two for the distance
 * kernels, as in bk_gram_ck(). work: BK_FEATURE_DOT_WORK(m, nthreads)
 * doubles; simd as for bk_pick_gauss_pass(); pace between chunks of
 * features (NULL: no checks). */
#define BK_FEATURE_DOT_WORK(m, nthreads) ((m) * ((m) - 1) + (nthreads) * (m))
void bk_feature_dot(const double *x, ptrdiff_t m, ptrdiff_t d, bk_kernel kern,
                    const double *par, const double *W, double *out,
                    double *work, int simd, int nthreads, bk_pacer *pace);

/* Per-feature tests of independence by HSIC (kernel_test.c). The label
 * side, made once by the caller: Lc = H L H (m x m), its traces tb =
 * tr(Lc), ub = (m - 1) tr(Lc^2) - tb^2 and wb = m (m + 1) sum_i Lc_ii^2 -
 * (m - 1)(tb^2 + 2 tr(Lc^2)) (the permutation moments, gamma_one()), and
 * for B > 0 permutations the weights Wt of the permuted statistic
 * sum_ab K_ab Wt_{p(a) p(b)} and the permutations (0-based, m x B). */
typedef struct {
  const double *Lc, *Wt;
  double tb, ub, wb;
  const int *perms;
  ptrdiff_t B;
} bk_test_label;

/* For every feature j of x (m x d), its kernel (p1 from par[j] when par !=
 * NULL): the gamma approximation's shape[j] and z[j] (the statistic
 * tr(K H L H) over the gamma's scale; NaN for m < 4 or a constant kernel) and,
 * for B > 0, count[j], the permuted statistics >= the observed one (up to
 * rounding). Lc and Wt must be symmetric (only the pairs a < b and the
 * diagonal are read for the sums). simd as for bk_pick_gauss_pass().
 * work: BK_FEATURE_TEST_WORK(m, nthreads) doubles. */
#define BK_FEATURE_TEST_WORK(m, nthreads)                                    \
  ((m) * ((m) - 1) + 2 * (m) + (nthreads) * ((m) * ((m) - 1) / 2 + 4 * (m)))
void bk_feature_hsic_test(const double *x, ptrdiff_t m, ptrdiff_t d,
                          bk_kernel kern, const double *par,
                          const bk_test_label *lab, double *shape, double *z,
                          double *count, double *work, int simd, int nthreads,
                          bk_pacer *pace);

/* ---- the Gaussian pair loop (pairs.c) ---------------------------------------
 * sum_{a<b} w_ab exp(ns (q_ab + sgn (x_a - x_b)^2)) over the pairs packed
 * column after column (pair (a, b) at b (b - 1) / 2 + a), for one feature
 * column x against a set whose squared distances are q. */
typedef double (*bk_gauss_pass_fn)(const double *q, const double *w,
                                   const double *xj, ptrdiff_t m, double ns,
                                   double sgn);

/* The loop to use: in_range = 1 when every argument is known to be >= -708
 * (no clamp needed); simd = 1 allows the AVX2 + FMA version on CPUs that
 * have it. */
bk_gauss_pass_fn bk_pick_gauss_pass(int in_range, int simd);
/* 1 when the CPU runs the AVX2 + FMA copies of the loops (pairs.c) */
int bk_cpu_has_avx2_fma(void);

/* The strictly upper triangle of the m x m matrix A in that packed order. */
void bk_pack_upper(const double *A, ptrdiff_t m, double *out);

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
 * of x (m x d) */
void bk_series_features(const double *x, ptrdiff_t m, ptrdiff_t d,
                        double *fstats);
/* one iteration's M = W o exp(-sigma Q) and its sums */
typedef struct {
  const double *M, *r, *rbar;
  ptrdiff_t m;
  double S0, A, diag, t, argmax;
  int simd;     /* the AVX2 + FMA loops (allowed, and the CPU has them) */
} bk_series_round;
/* Q, Wp: packed pairs of the set's squared distances and of W; Wd: W's
 * diagonal; sgn -1 (removal) or +1 (addition); work: the first
 * m (m - 1) / 2 + 2 m doubles of bk_series::work. */
void bk_series_prepare(bk_series_round *sr, const double *Q, const double *Wp,
                       const double *Wd, ptrdiff_t m, double sigma, double sgn,
                       double *work, int simd, int nthreads);
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
typedef void (*bk_tick_fn)(void *ctx, ptrdiff_t iter, ptrdiff_t size,
                           double hsic, double sigma);

/* ---- The width policy (width.c) ---------------------------------------
 * Song et al. (2012), section 4.1, step 3: the width of a Gaussian or
 * Laplace kernel (bk_kernel_has_width()) for the sets of one iteration,
 * shared by bk_select_features(), bk_select_blocks() and bk_ridge_select(). */
typedef struct {
  int type;             /* the kernel code */
  int policy;           /* enum bk_policy */
  double fixed;         /* BK_SIGMA_FIXED: the kernel's own width (its p1) */
  const double *grid;   /* BK_SIGMA_OPTIMIZE: ngrid >= 1 widths, ascending */
  ptrdiff_t ngrid;
  int grid_relative;    /* grid as multiples of 1 / the median heuristic */
} bk_width_policy;

/* The width for sets of s features: NaN for a kernel without a width;
 * "dimension": 1 / (2 s) (Gaussian), 1 / sqrt(2 s) (Laplace), for
 * standardised features; "fixed": p->fixed; "optimize": the width base *
 * grid[g] with the largest HSIC of the caller's reference set, ties (within
 * BK_TIE_TOL) to the smaller width, where base = 1 / median(ctx, squared)
 * when grid_relative and that median is > 0, else 1 (squared: 1 for the
 * median of the squared distances, the Gaussian kernel; 0 for the
 * distances). hsic_at(ctx, sigma, &fail) is HSIC of the reference set at
 * sigma; when it sets fail, the result is NaN. *h_ref (h_ref may be NULL):
 * HSIC of the reference set at the width chosen by "optimize", else NaN. */
double bk_choose_width(const bk_width_policy *p, ptrdiff_t s,
                       double (*median)(void *ctx, int squared),
                       double (*hsic_at)(void *ctx, double sigma, int *fail),
                       void *ctx, double *h_ref);

/* The schedule's (schedule.c) order of candidates: (rounded
 * score, index, score) triples ordered by score, ties by the lower
 * (bk_cmp_desc_low, bk_cmp_asc_low) or higher (bk_cmp_desc_high) index;
 * bk_sort_candidates() rounds the scores to BK_TIE_TOL of the largest
 * and sorts; the batch of an iteration removes or adds floor(step n) >= 1
 * features; bk_add_path() appends a row (iteration, size, HSIC, width) of
 * the path (4 x iterations). */
/* HSIC values that agree to this relative precision are ties (candidates,
 * and the widths of the "optimize" policy) */
#define BK_TIE_TOL 1e-10
int bk_cmp_desc_low(const void *p, const void *q);
int bk_cmp_desc_high(const void *p, const void *q);
int bk_cmp_asc_low(const void *p, const void *q);
void bk_sort_candidates(double *sortbuf, ptrdiff_t n,
                        int (*cmp)(const void *, const void *));
ptrdiff_t bk_batch_size(double step, ptrdiff_t n);
void bk_add_path(double *path, ptrdiff_t *np, ptrdiff_t iter, ptrdiff_t size,
                 double h, double sigma);
/* The first k candidates of the sorted sortbuf leave (or join) the set at
 * iteration it: their score and iteration recorded, their indices appended
 * to order at *n (which grows by k), and with rank not NULL their rank the
 * position in order (FOHSIC). active (na features) then keeps, in index
 * order, the features without an iteration; returns their number. */
ptrdiff_t bk_take_batch(const double *sortbuf, ptrdiff_t k, ptrdiff_t it,
                        double *score, int *iter, int *rank, int *order,
                        ptrdiff_t *n, int *active, ptrdiff_t na);
/* BAHSIC's ranks: the ns survivors of a stopped run (sortbuf sorted by
 * ascending score, at iteration it) 1..ns, then the nelim eliminated
 * features of order (first out first) from the last out to the first. */
void bk_rank_backward(const double *sortbuf, ptrdiff_t ns, ptrdiff_t it,
                      double *score, int *iter, int *rank, const int *order,
                      ptrdiff_t nelim);

/* ---- the selection schedule (schedule.c) ------------------------------------
 * Algorithms 1 (BAHSIC, backward) and 2 (FOHSIC, forward) of Song et al.
 * (2012), section 4, written once: the batches (bk_batch_size()), n_target,
 * the tie order (bk_sort_candidates()), the path rows, the tick after every
 * iteration (progress, interrupts) and the refresh of a downdated set. The
 * estimator of HSIC is a scorer: the exact and block estimators on pairs of
 * samples (scorer_pairs.c), random Fourier features (scorer_rff.c), the
 * incomplete Cholesky factor (scorer_ichol.c), the clinical kernel
 * (scorer_clinical.c) and the ridge-regression kernel (ridge.c). */

/* Threads pay off only for enough work: a parallel region costs a few
 * microseconds, and much more on a busy machine, where idle threads spin.
 * The schedule scores candidates in parallel when their number times the
 * scorer's cost reaches this; the scorers use it for their updates. */
#define BK_PAR_MIN_PAIRS 1000000.0

/* A scorer: ctx and the hooks the schedule calls, on the main thread except
 * score_one. "The set" is the scorer's current feature set: all d features
 * at the start of BAHSIC (the schedule calls update(all, +1) first), none
 * at the start of FOHSIC. Hooks returning int return nonzero on failure
 * (the schedule stops; the scorer knows why). Optional hooks may be NULL. */
typedef struct {
  void *ctx;
  /* the width for the sets of an iteration with s features (bk_choose_width;
   * NaN without a width): "optimize" on the reference set ref (nref
   * features; is_set: it is the set itself), whose HSIC at the width goes
   * to *h (NaN when the policy did not compute it) */
  int (*width)(void *ctx, ptrdiff_t s, const int *ref, ptrdiff_t nref,
               int is_set, double *sigma, double *h);
  /* before the candidates of an iteration at sigma are scored with sign sgn
   * (-1 removal, +1 addition) against the set (set, ns); h not NULL: the
   * set's HSIC into *h unless width() gave it */
  int (*begin)(void *ctx, double sigma, const int *set, ptrdiff_t ns,
               double sgn, double *h);
  /* HSIC of the set with feature j removed (sgn = -1) or added (+1), on
   * thread tid (any thread: no R API, no writes but to tid's scratch) */
  double (*score_one)(void *ctx, double sigma, ptrdiff_t j, double sgn,
                      int tid);
  /* the operations of one score_one (0: never in parallel) and the chunk of
   * candidates a thread takes at a time */
  double (*cost)(void *ctx, int *chunk);
  /* optional, instead of score_one: every candidate of cand (n) at once,
   * the score of cand[i] into sortbuf[3 i + 2] (the schedule sorts) */
  int (*score_all)(void *ctx, double sigma, const int *set, ptrdiff_t ns,
                   const int *cand, ptrdiff_t n, double sgn, double *sortbuf);
  /* optional: the set changed by sgn times the features cols (n) */
  void (*update)(void *ctx, const int *cols, ptrdiff_t n, double sgn);
  /* optional: after since removals by update() since the last refresh, with
   * ns features left, rebuild the set by refresh() instead of downdating */
  int (*stale)(void *ctx, ptrdiff_t since, ptrdiff_t ns);
  void (*refresh)(void *ctx, const int *set, ptrdiff_t ns);
  /* HSIC of the set (set, ns) at sigma (FOHSIC's path) */
  int (*hsic)(void *ctx, double sigma, const int *set, ptrdiff_t ns,
              double *h);
  /* optional: instead of scoring every candidate, for the entries
   * (., feature, .) of sortbuf at c = pick[i] (pick NULL: c = i), i < n, an
   * interval lo < hi holding the score score_one would give into
   * sortbuf[3 c] and sortbuf[3 c + 2]; fine = 0 the cheap intervals of all
   * candidates, 1 narrow ones for the few the cheap ones left in doubt.
   * Returns 0 to decline (the candidates are then scored), 1 when done. */
  int (*screen)(void *ctx, double sigma, const int *pick, ptrdiff_t n,
                double sgn, double *sortbuf, int fine);
} bk_scorer;

typedef struct {
  int direction;      /* BK_BACKWARD or BK_FORWARD */
  double step;        /* as bk_select_opts */
  ptrdiff_t n_target; /* as bk_select_opts */
  int nthreads;
  double *base;       /* as bk_select_opts */
  bk_pacer *pace;     /* as bk_select_opts */
} bk_schedule_opts;

/* Run the selection of d features with the scorer sc. rank, score, iter,
 * path: the outputs of bk_select_features(). sortbuf: 3 d doubles (the
 * scorer may use more beyond them, see score_all); iwork: 3 d ints. Returns
 * the number of path rows; *fail is 1 when a hook failed (the outputs are
 * then those of the iterations done). */
ptrdiff_t bk_schedule(const bk_scorer *sc, ptrdiff_t d,
                      const bk_schedule_opts *o, int *rank, double *score,
                      int *iter, double *path, double *sortbuf, int *iwork,
                      int *fail, bk_tick_fn tick, void *tctx);

/* The width hook of a scorer without a reference set ("dimension",
 * "fixed", or no width; "optimize" gives NaN): ctx points to a struct
 * whose first member is its bk_width_policy. */
int bk_width_policy_only(void *ctx, ptrdiff_t s, const int *ref,
                         ptrdiff_t nref, int is_set, double *sigma, double *h);

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

/* ---- randSel (randsel.c) ---------------------------------------------------
 * Algorithm 1 of Athanasakis et al.: centred kernel-target alignment
 * of random subsamples on random halves of the features. */

typedef struct {
  bk_kernel kern;   /* any kernel; the width already resolved */
  ptrdiff_t s;      /* samples per bootstrap, 2 <= s <= m */
  ptrdiff_t h;      /* size of the random half of the free features, >= 0 */
  int nthreads;
  int simd;         /* allow the AVX2 + FMA loop where the CPU has it */
} bk_randsel_opts;

/* Workspace per thread: doubles, and ints (m samples, p features); and the
 * size of the blocked data (bk_randsel_block_columns). */
ptrdiff_t bk_randsel_work_doubles(ptrdiff_t s, ptrdiff_t p);
ptrdiff_t bk_randsel_work_ints(ptrdiff_t s, ptrdiff_t m, ptrdiff_t p);
ptrdiff_t bk_randsel_blocked_doubles(ptrdiff_t m, ptrdiff_t p);

/* The draws of one bootstrap from its seed: samp[0..s-1] distinct samples
 * of 0..m-1, feat[0..h] distinct free features of 0..n-1 (the first h the
 * half, all h + 1 the half plus one), each subset equally likely.
 * pool: max(m, n) ints. */
void bk_randsel_draw(uint64_t seed, ptrdiff_t m, ptrdiff_t s, ptrdiff_t n,
                     ptrdiff_t h, int *samp, int *feat, int *pool);

/* xb (bk_randsel_blocked_doubles(m, p)) = x[, cols] for x m x d and
 * cols[0..p-1] in 0..d-1, in blocks of 64 columns: block k is a 64-column
 * row-major m x 64 array at xb + 64 m k, the last one padded with zeros. */
void bk_randsel_block_columns(const double *x, ptrdiff_t m, const int *cols,
                              ptrdiff_t p, double *xb);

/* xb: the m x (n_fixed + n) data blocked by bk_randsel_block_columns(), the
 * fixed features first (in every set) and then the n free ones. Bootstrap
 * b draws from seeds[b] (bk_randsel_draw) into samp[s b ..] and
 * feat[(h + 1) b ..], and a_half[b], a_plus[b] are the centred alignments of
 * its two sets with the label kernel lab (m samples). Each bootstrap's
 * result depends on its seed alone, not on nthreads.
 * work: nthreads * bk_randsel_work_doubles(s, n_fixed + n), iwork:
 * nthreads * bk_randsel_work_ints(s, m, n_fixed + n); neither needs
 * initialising. */
void bk_randsel_align(const double *xb, ptrdiff_t m, ptrdiff_t n_fixed,
                      ptrdiff_t n,
                      bk_label lab, const bk_randsel_opts *o, ptrdiff_t nb,
                      const uint64_t *seeds, int *samp, int *feat,
                      double *a_half, double *a_plus, double *work, int *iwork);

/* Running sums over bootstraps, in bootstrap order: per free feature the
 * sum and count of a_plus over the sets containing it, and of a_half over
 * the halves containing it; *total_half the sum of all a_half. */
void bk_randsel_accumulate(ptrdiff_t h, ptrdiff_t nb, const int *feat,
                           const double *a_half, const double *a_plus,
                           double *sum_plus, int *n_plus, double *sum_half,
                           int *n_half, double *total_half);

/* Contributions of Definition 3.2 from those sums (NaN without draws). */
void bk_randsel_contrib(ptrdiff_t n, ptrdiff_t nb_total, const double *sum_plus,
                        const int *n_plus, const double *sum_half,
                        const int *n_half, double total_half, double *out);

/* ---- low-rank HSIC (lowrank.c) ---------------------------------------------
 * Song et al. 2012, section 2.6: HSIC from factors K ~ G G' and L ~ F F'
 * without any m x m matrix. */

/* Pivoted incomplete Cholesky of the kernel kern (any type but BK_CLINICAL,
 * width resolved) on x (m x d, column-major): K ~ G G', G m x max_rank
 * (the caller's buffer; columns r.. are left untouched), piv[0..r-1] the
 * pivots (0-based, distinct). Stops when the largest residual diagonal is
 * <= tol * max diag(K) (or is 0), or at min(max_rank, m) columns. Returns
 * the rank r. work: m doubles; on return the residual diagonal (-1 on the
 * pivoted rows). O(m r (d + r)). */
ptrdiff_t bk_ichol(const double *x, ptrdiff_t m, ptrdiff_t d,
                   const bk_kernel *kern, double tol, ptrdiff_t max_rank,
                   double *G, int *piv, double *work);

/* bk_ichol() in two steps, so that the caller can grow G between them:
 * bk_ichol_diag() puts diag(K) into res (m doubles) and returns its largest
 * value (*trace: its sum); bk_ichol_extend() continues a factorisation of r
 * columns up to rmax (G has room for rmax), stopping before a pivot whose
 * residual diagonal is <= stop, and returns the new rank. bk_ichol() is
 * bk_ichol_extend(stop = tol * max diag, r = 0, rmax = max_rank). */
double bk_ichol_diag(const double *x, ptrdiff_t m, ptrdiff_t d,
                     const bk_kernel *kern, double *res, double *trace);
ptrdiff_t bk_ichol_extend(const double *x, ptrdiff_t m, ptrdiff_t d,
                          const bk_kernel *kern, double stop, ptrdiff_t r,
                          ptrdiff_t rmax, double *G, int *piv, double *res);

/* out[0] = HSIC0 = tr(K H L H) / (m - 1)^2, out[1] = HSIC1 (eq. 5, needs
 * m >= 4), out[2] = the variance of HSIC1 (eq. 15 through h of section 2.5,
 * section 2.6.3) for K = G G' (G m x r) and L = F F' (F m x s); the same
 * numbers as bk_hsic_stats() on the dense matrices. O(m r s) time.
 * work: BK_LOWRANK_HSIC_WORK(m, r, s) doubles. */
void bk_lowrank_hsic(const double *G, ptrdiff_t m, ptrdiff_t r,
                     const double *F, ptrdiff_t s, double *out, double *work);
/* the same, with interrupt checks between columns (pace: on the calling
 * thread; NULL checks nothing, as bk_lowrank_hsic()) */
void bk_lowrank_hsic_ck(const double *G, ptrdiff_t m, ptrdiff_t r,
                        const double *F, ptrdiff_t s, double *out, double *work,
                        bk_pacer *pace);
#define BK_LOWRANK_HSIC_WORK(m, r, s)                                          \
  ((8 + ((r) < (s) ? (r) : (s))) * (m) + 2 * (r) * (s) + 2 * ((r) + (s)))

/* Random Fourier features (Rahimi and Recht 2007): Z (m x D) =
 * sqrt(2 / D) cos(x W' + 1 b'), W (D x d) and b (D) drawn by the caller
 * (from R's RNG). O(m D d). */
void bk_rff(const double *x, ptrdiff_t m, ptrdiff_t d, const double *W,
            const double *b, ptrdiff_t D, double *Z);

/* bk_lowrank_hsic(Z, F, out) for Z = bk_rff(x, W, b) without the m x D Z:
 * the features made chunk columns at a time; O(m (chunk + s)) memory besides
 * x and F, O(m D (d + s)) time; the same results for any nthreads, chunk
 * and simd (the projections' AVX2 copy, where the CPU has it).
 * work: BK_RFF_HSIC_WORK(m, D, s, chunk) doubles (chunk at most D). */
void bk_rff_hsic(const double *x, ptrdiff_t m, ptrdiff_t d, const double *W,
                 const double *b, ptrdiff_t D, const double *F, ptrdiff_t s,
                 ptrdiff_t chunk, int nthreads, int simd, double *out,
                 double *work, bk_pacer *pace);
#define BK_RFF_HSIC_WORK(m, D, s, chunk)                                       \
  ((7 + (s) + (chunk)) * (m) + 2 * (D) * (s) + 2 * (D) + 2 * (s))

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

/* ---- data checks (checks.c) ------------------------------------------------ */

/* Index of the first non-finite value of x[0..n-1], or -1 and then
 * *maxabs = max |x|. */
ptrdiff_t bk_first_nonfinite(const double *x, ptrdiff_t n, double *maxabs);

/* out[j] = 1 if column j of x (m x d) has a single value, else 0. */
void bk_constant_columns(const double *x, ptrdiff_t m, ptrdiff_t d, int *out);

/* One read of the m values of a column: returns the index of the first
 * non-finite one or -1; *same = 1 when all equal the first; *expo the
 * bk_pow2_exponent() of max |x| (BK_NO_EXPONENT if non-finite). */
ptrdiff_t bk_scan_column(const double *xj, ptrdiff_t m, int *same, int *expo);

/* out (m x d) = each column of x times 2^-e, e the bk_pow2_exponent() of
 * its max |x|: exact, and invariant to any rescaling of the column by a power
 * of two. x finite. */
void bk_scale_columns(const double *x, ptrdiff_t m, ptrdiff_t d, double *out);

/* v (k x d) times 2^(power * shift[j]) column by column, exactly (ldexp);
 * columns with shift BK_NO_EXPONENT are left alone. */
void bk_scale_pow2(double *v, ptrdiff_t k, ptrdiff_t d, const int *shift,
                   int power);

/* out (m x d) = the columns of x centred and divided by their standard
 * deviation (divisor m - 1), in the very operations of R's colMeans(),
 * sweep() and colSums() (so bit for bit what they give) on the column
 * rescaled by a power of two (which keeps its squares in range at any scale
 * and does not change the quotient); constant[j] = 1 and column j of out
 * zero where column j of x (centred) has a single value or a zero standard
 * deviation. m >= 2, x finite. */
void bk_standardize_columns(const double *x, ptrdiff_t m, ptrdiff_t d,
                            double *out, int *constant);

/* ---- univariate statistics (scores.c) ------------------------------------ */

/* Per-class counts n (ncls), means and within-class sums of squared
 * deviations (ncls x d, column-major) of the columns of x (m x d), in units
 * of 2^expo[j] (mean) and 4^expo[j] (ss) per column; constant[j] = 1 for a
 * column of a single value; cls[i] in 0..ncls-1. One read of each column.
 * Returns the index of the first non-finite value of x, or -1.
 * work: m + ncls + 1 ints. */
ptrdiff_t bk_class_moments(const double *x, ptrdiff_t m, ptrdiff_t d,
                           const int *cls, int ncls, int *n, double *mean,
                           double *ss, int *expo, int *constant, int *work);

/* Pearson correlation of every column of x (m x d) with y; NaN for a
 * constant column; constant[] and the result as bk_class_moments(); mean
 * (NULL: not wanted) the mean of every column. work: m doubles. */
ptrdiff_t bk_col_cor(const double *x, ptrdiff_t m, ptrdiff_t d,
                     const double *y, double *out, double *mean, int *constant,
                     double *work);

/* ---- LSMI, l1-LSMI and l1-HSIC (lsmi.c) -----------------------------------
 * The slides of Jitkrittum (2012). n samples, d features, b basis centres;
 * cen is the b x d matrix of centres; w the d feature weights (NULL: 1). */

/* out (n x b) = sum_j w_j^2 (x_ij - c_lj)^2. */
void bk_wsqdist(const double *x, ptrdiff_t n, ptrdiff_t d, const double *c,
                ptrdiff_t b, const double *w, double *out);
/* phi = exp(-sq / (2 sigma^2)), in place allowed. */
void bk_lsmi_gauss(const double *sq, ptrdiff_t len, double sigma, double *phi);
/* phi[i, l] = (cls[i] == cls[cen[l]]), cen 0-based. */
void bk_lsmi_delta(const int *cls, ptrdiff_t n, const int *cen, ptrdiff_t b,
                   double *phi);
/* alpha = ((Gx o Gy) / nn + lambda I)^{-1} h; A: b^2 work. LAPACK info. */
int bk_lsmi_solve(const double *Gx, const double *Gy, ptrdiff_t b, double nn,
                  const double *h, double lambda, double *A, double *alpha);
/* out[0] = LSMI; alpha, h (b each) filled. work: 3 b^2. LAPACK info. */
int bk_lsmi_fit(const double *phix, const double *phiy, ptrdiff_t n,
                ptrdiff_t b, double lambda, double *alpha, double *h,
                double *out, double *work, bk_pacer *pace);
/* K-fold CV score (ns x nl) of (sigma, lambda). work: bk_lsmi_cv_work()
 * doubles, iwork: n + K + 1 ints. LAPACK info. pace (here and in
 * bk_lsmi_fit()): interrupt checks between pieces of the products and
 * solves, on the calling thread, or NULL. */
ptrdiff_t bk_lsmi_cv_work(ptrdiff_t n, ptrdiff_t b, ptrdiff_t K);
int bk_lsmi_cv(const double *sqx, const double *phiy, ptrdiff_t n, ptrdiff_t b,
               const int *fold, int K, const double *sigmas, ptrdiff_t ns,
               const double *lambdas, ptrdiff_t nl, double *score, double *work,
               int *iwork, bk_pacer *pace);
/* LSMI of diag(w) x (out[0]) and its gradient in w (d). work:
 * bk_lsmi_grad_work() doubles. LAPACK info. */
ptrdiff_t bk_lsmi_grad_work(ptrdiff_t n, ptrdiff_t d, ptrdiff_t b);
int bk_lsmi_grad(const double *x, ptrdiff_t n, ptrdiff_t d, const double *cen,
                 ptrdiff_t b, const double *w, double sigma, double lambda,
                 const double *phiy, const double *Gy, double *grad, double *out,
                 double *work);
/* Biased HSIC of diag(w) x with a Gaussian kernel exp(-gamma ||.||^2) and
 * W = HLH/(m-1)^2 (out[0]), and its gradient in w (d). work:
 * bk_l1hsic_grad_work() doubles. */
ptrdiff_t bk_l1hsic_grad_work(ptrdiff_t m, ptrdiff_t d);
void bk_l1hsic_grad(const double *x, ptrdiff_t m, ptrdiff_t d, const double *w,
                    double gamma, const double *W, double *grad, double *out,
                    double *work);
/* Projection of v onto {w >= 0, 1'w <= z}. work: d doubles. */
void bk_l1ball_project(const double *v, ptrdiff_t d, double z, double *w,
                       double *work);
/* sum(W' o K(w)) (out[0]) with W' = W, max(W, 0) or min(W, 0) for part =
 * 0, 1, -1, and its gradient in v = w o w (d); the Gaussian kernel of
 * bk_l1hsic_grad(). work: bk_l1hsic_grad_work() doubles. */
void bk_hsic_vgrad(const double *x, ptrdiff_t m, ptrdiff_t d, const double *w,
                   double gamma, const double *W, int part, int nthreads, double *grad,
                   double *out, double *work);

/* ---- permutation maxT (maxt.c) ----------------------------------------------
 * The statistics of bk_perm_stats(); the glue maps R's method names to them
 * (they do not cross .Call as numbers). */
enum {
  BK_PERM_WELCH = 1, /* Welch's t */
  BK_PERM_POOLED,    /* pooled-variance t */
  BK_PERM_LIN,       /* mean difference */
  BK_PERM_SNR,       /* signal to noise */
  BK_PERM_PC,        /* Pearson correlation */
  BK_PERM_MOMENTS    /* mean difference and pooled variance (moderated t in R) */
};
/* Statistics of the p features (rows of xt, p x m) for B labellings: under
 * labelling b sample i has the label of sample perm[i + m b] (0-based):
 * class cls[] (0/1) or value y[] (BK_PERM_PC; xt's rows and y centred with
 * unit norm). out (p x B) gets level 2 minus level 1 (or r), NaN for a zero
 * spread; out2 (p x B, BK_PERM_MOMENTS only, else NULL) the pooled variance.
 * work: 2 p (nthreads + 1) doubles. */
void bk_perm_stats(int stat, const double *xt, ptrdiff_t p, ptrdiff_t m,
                   const int *cls, const double *y, const int *perm,
                   ptrdiff_t B, double *out, double *out2, double *work,
                   int nthreads);
/* Counts of the step-down maxT over B columns of stat (p x B): raw[j] the
 * columns with |stat[j]| >= thr[j], adj[k] those whose largest |stat| over
 * the features order[k..q-1] is >= thr[order[k]] (order: the q features by
 * decreasing observed |statistic|, 0-based). work: (p + q) nthreads ints. */
void bk_maxt_count(const double *stat, ptrdiff_t p, ptrdiff_t B,
                   const int *order, ptrdiff_t q, const double *thr,
                   int *raw, int *adj, int *work, int nthreads);

/* ---- rank scores (ranks.c) ---------------------------------------------------
 * The Wilcoxon, Kruskal-Wallis and one-versus-rest scores of
 * feature_scores() (R/scores-rank.R). A column of a dense m x d matrix, or
 * of a compressed-column sparse one (colptr and rowidx given, x its nonzero
 * values: the zeros are one tie block, never stored). */
typedef struct {
  const double *x;     /* m x d column-major, or the nonzero values */
  const int *colptr;   /* NULL (dense), or d + 1 offsets into x and rowidx */
  const int *rowidx;   /* the 0-based row of each value (sparse) */
  ptrdiff_t m, d;
  const int *cls;      /* the 0-based class of each of the m samples */
  int ncls;
} bk_rank_input;
typedef struct {
  double *rsum;  /* ncls x d: the sum of the mid-ranks of each class */
  double *ties;  /* d: sum(t^3 - t) over the groups of t equal values */
  double *sum;   /* ncls x d: the sum of the values of each class */
  double *pos;   /* ncls x d: the number of values > 0 of each class */
  int *constant; /* d: 1 when every value is equal */
  int *bad;      /* d: the row of the first non-finite value, or -1 */
} bk_rank_output;
/* work of one thread: m (value, class) pairs and two counts per class */
#define BK_RANK_THREAD_WORK(m, K) (2 * (ptrdiff_t) (m) + 2 * (ptrdiff_t) (K))
/* work of bk_rank_sums(), in doubles */
#define BK_RANK_WORK(m, K, nt) ((ptrdiff_t) (K) + (ptrdiff_t) (nt) * BK_RANK_THREAD_WORK(m, K))
/* Fills out for every column; returns the column-major index of the first
 * non-finite value (that column's outputs are NaN), or -1. */
ptrdiff_t bk_rank_sums(const bk_rank_input *in, const bk_rank_output *out,
                       double *work, int nthreads, bk_pacer *pace);

#endif
