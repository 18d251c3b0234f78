/*
 * pairscore.h: the exact (double precision) scores and tests of pairs of
 * features for pair_scores() (pairscore.c): the interaction of a pair and
 * the pair's own test of independence, each with the gamma approximation of
 * the per-feature tests (kernel_test.c).
 */
#ifndef BAHSIC_PAIRSCORE_H
#define BAHSIC_PAIRSCORE_H

#include "hsic.h"

/* The pairs (pi[k], pj[k]), k < n (0-based columns of x, m x d), with the
 * kernel kern on each feature alone (K^i, and its doubly centred Kc^i =
 * H K^i H) and the label side lab (Lc = H L H with its traces; Wt and perms
 * are not read: the permutations are perms below). */
typedef struct {
  const double *x;
  ptrdiff_t m;
  const int *pi, *pj;
  ptrdiff_t n;
  bk_kernel kern;
  const bk_test_label *lab;
  double tb2, tb3;  /* tr(Lc^2), tr(Lc^3) */
  const int *perms; /* m x B, 0-based, or NULL */
  ptrdiff_t B;
} bk_pair_job;

/* For each pair k, out[k + n * c] for the columns c:
 *   0 tr(M Lc) with M = Kc^i o Kc^j (the interaction), 1 the shape of its
 *   null distribution loc + scale Gamma(shape), 2 (statistic - loc) / scale;
 *   3 tr(K Lc) with K = K^i o K^j (the product kernel: the pair's HSIC),
 *   4 its shape, 5 its statistic in the same units
 * (the fit of pairscore.c's pair_fit(); NaN for m < 4 or a constant kernel).
 * With permutations, zint[k + n * r] and zpair[k + n * r] are the permuted
 * statistics of permutation r in the same units (the fit does not depend
 * on the order of the samples).
 * work: BK_PAIR_SCORE_WORK(m, nthreads) doubles. */
#define BK_PAIR_SCORE_WORK(m, nthreads)                                      \
  ((m) * ((m) + 1) / 2 + (m) +                                               \
   (nthreads) * (4 * ((m) * ((m) + 1) / 2) + 4 * (m) + (m) * (m)))
void bk_pair_scores(const bk_pair_job *job, double *out, double *zint,
                    double *zpair, double *work, int nthreads, bk_pacer *pace);

#endif
