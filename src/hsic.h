/*
 * hsic.h: the HSIC estimators and per-feature sums (hsic.c) and the
 * per-feature tests of independence (kernel_test.c).
 */
#ifndef BAHSIC_HSIC_H
#define BAHSIC_HSIC_H

#include "kernels.h"

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

/* The data a Gram matrix is made of, as bk_gram_ck() takes them: xs (m x d)
 * = 2^e times the data, the kernel with its width given (p1 finite, in the
 * data's units). */
typedef struct {
  const double *xs;
  ptrdiff_t m, d;
  int e;
  bk_kernel kern;
} bk_gram_src;

/* The room for the columns of K that bk_hsic_stats_x() holds at a time:
 * some 16 MiB of them (at least 16, at most m); a panel takes some 1 MiB
 * of it a thread (panel_cols(), hsic.c). */
static inline ptrdiff_t bk_hsic_panel(ptrdiff_t m)
{
  ptrdiff_t b = ((ptrdiff_t) 1 << 21) / (m > 1 ? m : 1);
  b = b < 16 ? 16 : b;
  return b < m ? b : (m > 1 ? m : 1);
}

/* bk_hsic_stats() of the Gram matrix K of src, to the last bit, without
 * holding K: its columns are made a panel at a time, each above its last
 * column only (bk_gram_panel_rows()), and every sum bk_hsic_stats() takes
 * over K's columns (and rows, K~ Y for a factor label) is taken in the
 * same order, the rest of a column's sums from the later panels' rows
 * (symmetric panels, hsic.c): half of K's values.
 * The label: lab, or, with ysrc != NULL (lab then {NULL, NULL, 0}), the
 * Gram matrix L of ysrc, also made a panel at a time (three passes over
 * it). nthreads: for the panels' columns and rows
 * and the last O(m^2) step, which change no bit; simd as for bk_gram_ck().
 * work: BK_HSIC_X_WORK(m, c) doubles (c: the columns of a factor label, 0
 * for a full L). */
#define BK_HSIC_X_WORK(m, c) ((15 + (c)) * (m) + 2 * (m) * bk_hsic_panel(m))
void bk_hsic_stats_x(const bk_gram_src *src, const bk_gram_src *ysrc,
                     bk_label lab, double *out, double *work, int nthreads,
                     int simd, bk_pacer *pace);

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

/* bk_hsic_gamma() of the Gram matrix K of src, to the last bit, without
 * holding K: two passes of panels (bk_gram_panel()), the first for K's row
 * means, the second for the sums, each column in the order bk_hsic_gamma()
 * takes them (one running sum: the sums are serial, the panels' columns
 * are made on nthreads). The label as in bk_hsic_stats_x() (L of ysrc: two
 * passes over it). work: BK_HSIC_X_WORK(m, c) doubles. */
void bk_hsic_gamma_x(const bk_gram_src *src, const bk_gram_src *ysrc,
                     bk_label lab, double *out, double *work, int nthreads,
                     int simd, bk_pacer *pace);

/* For every feature j of x (m x d): sum_{a,b} k(x_aj, x_bj) W_ab, with the
 * kernel's parameter p1 taken from par[j] when par != NULL. Because both HSIC
 * estimators, MMD and the alignment are linear in K, a weight matrix W made
 * once from the labels scores every feature in one pass over its pairs. A
 * feature of an extreme scale is rescaled by a power of two for the distance
 * kernels, as in bk_gram_ck(). work: BK_FEATURE_DOT_WORK(m, nthreads)
 * doubles; simd as for bk_pick_gauss_pass(); pace between chunks of
 * features (NULL: no checks). */
/* sum_{a<b} k(x_a, x_b) w_ab for one feature x (m values) over the packed
 * pairs w, each column b summed in the order of a and the columns in order
 * (the bits of a pair at a time; four columns at once,
 * BK_PAIR_SUM_COLUMNS): bk_feature_dot()'s sum for every kernel but the
 * Gaussian (whose sum is the pass of pairs.c), and the per-feature tests'
 * score (kernel_test.c). */
double bk_kernel_dot_pairs(const double *xj, ptrdiff_t m, bk_kernel kern,
                           const double *w);
#define BK_FEATURE_DOT_WORK(m, nthreads) ((m) * ((m) - 1) + (nthreads) * (m))
void bk_feature_dot(const double *x, ptrdiff_t m, ptrdiff_t d, bk_kernel kern,
                    const double *par, const double *W, double *out,
                    double *work, int simd, int nthreads, bk_pacer *pace);

/* Per-feature tests of independence by HSIC (kernel_test.c). The label
 * side, made once by the caller: Lc = H L H (m x m), its traces tb =
 * tr(Lc), ub = (m - 1) tr(Lc^2) - tb^2 and wb = m (m + 1) sum_i Lc_ii^2 -
 * (m - 1)(tb^2 + 2 tr(Lc^2)) (the permutation moments, gamma_one()), and
 * for B > 0 permutations the weights Wt of the permuted statistic
 * sum_ab K_ab Wt_{p(a) p(b)} and the permutations (0-based, m x B); W, when
 * not NULL, the weights of the score sum_ab K_ab W_ab made with the test
 * (bk_feature_dot()'s, from the same kernel values). */
typedef struct {
  const double *Lc, *Wt;
  double tb, ub, wb;
  const int *perms;
  ptrdiff_t B;
  const double *W;
} bk_test_label;

/* The gamma approximation of a statistic stat = tr(A0 Lc) from the traces of
 * A0 = A - c H, A = H K H the centred kernel: ta = tr(A0), ta2 = tr(A0^2),
 * sa = sum_i A0_ii^2 (c: a constant diagonal taken out, 0 for none), with
 * the exact permutation mean and variance (kernel_test.c): *shape and *z,
 * the statistic over the gamma's scale (NaN for m < 4 or a moment that is
 * not positive). Also the pairs' tests (pairscore.c). */
void bk_gamma_moments(double stat, double ta, double ta2, double sa, double c,
                      ptrdiff_t m, const bk_test_label *lab, double *shape,
                      double *z);
/* The exact permutation mean and variance of that statistic alone (the
 * moments bk_gamma_moments() fits; m >= 4). */
void bk_perm_moments(double ta, double ta2, double sa, double c, ptrdiff_t m,
                     const bk_test_label *lab, double *mean, double *var);

/* For every feature j of x (m x d), its kernel (p1 from par[j] when par !=
 * NULL): the gamma approximation's shape[j] and z[j] (the statistic
 * tr(K H L H) over the gamma's scale; NaN for m < 4 or a constant kernel),
 * for B > 0, count[j], the permuted statistics >= the observed one (up to
 * rounding), and with lab->W, score[j] = sum_ab K_ab W_ab, equal to
 * bk_feature_dot()'s to the last bit (one kernel per feature for both).
 * Lc, Wt and W must be symmetric (only the pairs a < b and the diagonal are
 * read for the sums). simd as for bk_pick_gauss_pass(). work:
 * BK_FEATURE_TEST_WORK(m, nthreads, nw) doubles, nw the number of weight
 * matrices other than Lc: (B > 0) + (W != NULL && W != Wt). */
#define BK_FEATURE_TEST_WORK(m, nthreads, nw)                                \
  ((1 + (nw)) * ((m) * ((m) - 1) / 2 + (m)) +                                \
   (nthreads) * ((m) * ((m) - 1) / 2 + 4 * (m)))
void bk_feature_hsic_test(const double *x, ptrdiff_t m, ptrdiff_t d,
                          bk_kernel kern, const double *par,
                          const bk_test_label *lab, double *shape, double *z,
                          double *count, double *score, double *work, int simd,
                          int nthreads, bk_pacer *pace);

#endif
