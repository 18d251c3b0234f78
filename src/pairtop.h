/*
 * pairtop.h: the screen of all pairs of features (pairtop.c): the k pairs
 * (i, j), i < j, with the largest score
 *
 *   s_ij = sum_r w_r V_ri V_rj                                    (Gaussian)
 *   s_ij = sum_t c_t (sum_a U_at X_ai X_aj)^2                      (linear)
 *
 * among all p (p - 1) / 2, in float32, for a caller that re-scores the top
 * candidates exactly in double. With V's column j the doubly centred 1-D
 * Gaussian kernel matrix Kc^j = H K^j H of feature j packed (the entries
 * a <= b) and w the centred label matrix W packed the same way (W_aa on the
 * diagonal, 2 W_ab off it), s_ij = sum_ab W_ab Kc^i_ab Kc^j_ab: the biased
 * HSIC of the kernel Kc^i o Kc^j, the pair's interaction (Gretton et al.
 * 2005, the biased estimator). With the linear kernel Kc^j = x_j x_j' and
 * W = sum_t c_t u_t u_t', the same score is the low-rank form, p^2 m r
 * multiply-adds instead of p^2 m^2 / 2.
 *
 * Numeric core: no R API, no allocation: the caller hands every array and a
 * work area of the size the *_work() functions give. Results are identical
 * for every thread count: the tiles of pairs and the summation order of each
 * score are fixed, the per-thread top lists are merged by one total order
 * (score descending, then i, then j ascending). The AVX2 + FMA copy (simd = 1
 * on a CPU that has it, as pairs.c) may differ from the portable one in the
 * float rounding; each is deterministic.
 *
 * Layout: the packed row of (a, b), a <= b, is b (b + 1) / 2 + a (column
 * after column of the upper triangle, diagonal included): n = m (m + 1) / 2
 * rows, padded with zeros to ld = bk_pair_ld(n) rows (a multiple of
 * BK_PAIR_ALIGN) so that the loops run whole vectors; the linear screen's X
 * has ld = bk_pair_ld(m) rows. V and X hold bk_pair_cols(p) features (p
 * rounded up to a whole tile, the padding 0) in panels of BK_PAIR_PANEL
 * features, each panel row after row (its 16 features' values of one row
 * side by side): the micro-kernel reads a panel's rows as vectors without
 * copying. bk_pair_at() gives the element (r, g). (The interface first
 * sketched V column-major; the panels save the copy of every tile.)
 */
#ifndef BAHSIC_PAIRTOP_H
#define BAHSIC_PAIRTOP_H

#include "common.h"

#define BK_PAIR_ALIGN 16
#define BK_PAIR_PANEL 16
#define BK_PAIR_TILE 96

/* n rounded up to a multiple of BK_PAIR_ALIGN */
static inline ptrdiff_t bk_pair_ld(ptrdiff_t n)
{
  return (n + BK_PAIR_ALIGN - 1) / BK_PAIR_ALIGN * BK_PAIR_ALIGN;
}

/* p rounded up to a multiple of BK_PAIR_TILE: the features V and X hold
 * (ld * bk_pair_cols(p) floats) */
static inline ptrdiff_t bk_pair_cols(ptrdiff_t p)
{
  return (p + BK_PAIR_TILE - 1) / BK_PAIR_TILE * BK_PAIR_TILE;
}

/* the pairs a screen of p features can return: min(k, p (p - 1) / 2) */
static inline ptrdiff_t bk_pairs_wanted(ptrdiff_t p, ptrdiff_t k)
{
  const double all = 0.5 * (double) p * (double) (p - 1);
  return (double) k < all ? k : (ptrdiff_t) all;
}

/* the index of row r of feature g in V or X */
static inline ptrdiff_t bk_pair_at(ptrdiff_t ld, ptrdiff_t r, ptrdiff_t g)
{
  return (g / BK_PAIR_PANEL) * BK_PAIR_PANEL * ld + BK_PAIR_PANEL * r +
         g % BK_PAIR_PANEL;
}

/* ---- the Gaussian vectors ---------------------------------------------------
 * Feature j of V (ld = bk_pair_ld(m (m + 1) / 2) rows) gets the packed
 * Kc^j = H K^j H, K^j_ab = exp(-gamma (x_aj - x_bj)^2), from column j of the
 * m x p matrix x (computed in double, stored in float; the padding 0).
 * Threads over panels. work: bk_pair_vectors_work(m, nthreads) doubles. */
ptrdiff_t bk_pair_vectors_work(ptrdiff_t m, int nthreads);
void bk_pair_vectors(const double *x, ptrdiff_t m, ptrdiff_t p, double gamma,
                     float *V, ptrdiff_t ld, double *work, int nthreads,
                     bk_pacer *pace);

/* X (ld = bk_pair_ld(m) rows) of the linear screen from the m x p x, each
 * value x_aj / div[j] (R's x / rep(div, each = m), then rounded to float),
 * or x_aj where div is NULL; the panels on nthreads threads */
void bk_pair_pack(const double *x, ptrdiff_t m, ptrdiff_t p, const double *div,
                  float *X, ptrdiff_t ld, int nthreads);

/* The weights w (ld rows, the padding 0) of the m x m symmetric W times
 * scale: W_aa scale on the diagonal rows, 2 W_ab scale off it. */
void bk_pair_weights(const double *W, ptrdiff_t m, double scale, float *w,
                     ptrdiff_t ld);

/* The linear screen's U (ld x r floats, the padding rows 0) and c (r
 * floats) from the m x r double U and r weights c: each column of U scaled
 * by a power of two into float's range (its square folded into its weight,
 * cd, r doubles of work), then the weights by one power of two. Returns
 * that power's exponent e: a score times 2^e is the score of U and c.
 * Exact but for the floats' rounding. */
int bk_pair_lowrank_weights(const double *U, ptrdiff_t m, ptrdiff_t r, const double *c,
                            ptrdiff_t ld, float *Uf, double *cd, float *cf);

/* ---- the screens ------------------------------------------------------------ */

/* The result: the best k pairs, 0-based i < j, scores descending (ties by
 * i, then j). */
typedef struct {
  ptrdiff_t k; /* pairs wanted (the screens write min(k, p (p - 1) / 2)) */
  int *i, *j;  /* k each */
  float *s;    /* k scores */
} bk_pair_list;

/* How to run: threads (a group of tiles runs on threads only where it has
 * BK_PAR_MIN_PAIRS operations), the AVX2 copy, the work area (bytes from
 * bk_pair_top_work(); any alignment) and the pacer of interrupt checks
 * (NULL: none). */
typedef struct {
  int nthreads, simd;
  void *work;
  bk_pacer *pace;
} bk_pair_exec;

/* bytes of work of the Gaussian screen (r = 0) or the linear one (r
 * terms) for ld rows, k pairs and nthreads threads */
size_t bk_pair_top_work(ptrdiff_t ld, ptrdiff_t r, ptrdiff_t k, int nthreads);

/* The Gaussian screen over the p features of V (ld rows, weights w of ld
 * rows). Returns the number of pairs written. */
ptrdiff_t bk_pair_top(const float *V, ptrdiff_t ld, ptrdiff_t p,
                      const float *w, bk_pair_list *out,
                      const bk_pair_exec *ex);

/* The linear screen: X (ld rows, p standardised features, bk_pair_pack()),
 * U (ld x r, column-major, the padding rows 0), c (r weights). Returns the
 * number of pairs written. */
ptrdiff_t bk_pair_top_lowrank(const float *X, ptrdiff_t ld, ptrdiff_t p,
                              const float *U, ptrdiff_t r, const float *c,
                              bk_pair_list *out, const bk_pair_exec *ex);

#endif
