/*
 * randsel.h: randSel (randsel.c).
 */
#ifndef BAHSIC_RANDSEL_H
#define BAHSIC_RANDSEL_H

#include "hsic.h"

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

#endif
