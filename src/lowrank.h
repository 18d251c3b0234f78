/*
 * lowrank.h: low-rank HSIC, the incomplete Cholesky factor and random
 * Fourier features (lowrank.c).
 */
#ifndef BAHSIC_LOWRANK_H
#define BAHSIC_LOWRANK_H

#include "kernels.h"

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

/* bk_rff_hsic(x, F = bk_rff(y, Wy, by)) without either feature matrix: both
 * kernels random features (y: m x dy, Wy S x dy, by S), the samples taken
 * `rows` at a time in three passes (the column sums; the centred
 * cross-product (HZ)'(HF) and Z'l1, F'k1; then the per-sample sums of
 * Lemma 7 through Z'F), each block's features made afresh in each pass.
 * Memory O(m + D S + rows (D + S)) besides x and y; time O(m (D + S) d +
 * m D S). Every sum runs over the samples, or over the features, in their
 * order, so the results do not depend on nthreads, rows or simd; they
 * differ from bk_rff_hsic()'s on the whole F in the last bits (its sums
 * over the samples are vector reductions, Z'F is taken here as (HZ)'(HF)
 * plus the means' product, and the features are made as rff_block() makes
 * them). work: BK_RFF_HSIC2_WORK(m, d, dy, D, S, rows) doubles (rows at
 * most m). */
void bk_rff_hsic2(const double *x, ptrdiff_t m, ptrdiff_t d, const double *W,
                  const double *b, ptrdiff_t D, const double *y, ptrdiff_t dy,
                  const double *Wy, const double *by, ptrdiff_t S,
                  ptrdiff_t rows, int nthreads, int simd, double *out,
                  double *work, bk_pacer *pace);
#define BK_RFF_HSIC2_WORK(m, d, dy, D, S, rows)                                \
  (7 * (m) + 2 * (D) * (S) + 2 * ((D) + (S)) +                                 \
   (rows) * ((d) + (dy) + 3 * (D) + 2 * (S)))

#endif
