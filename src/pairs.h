/*
 * pairs.h: the vectorised Gaussian pass over packed pairs of samples
 * (pairs.c).
 */
#ifndef BAHSIC_PAIRS_H
#define BAHSIC_PAIRS_H

#include "common.h"

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
/* sum_{a<b} w_ab k_ab over the packed pairs of stored kernel values k:
 * the pass's sum when k holds the pass's exponentials (the same columns and
 * order, the same SIMD choice by simd). */
typedef double (*bk_packed_dot_fn)(const double *k, const double *w,
                                   ptrdiff_t m);
bk_packed_dot_fn bk_pick_packed_dot(int simd);
/* 1 when the CPU runs the AVX2 + FMA copies of the loops (pairs.c) */
int bk_cpu_has_avx2_fma(void);

/* ACC += sum over the pairs a < c < m of TERM(a, c), column by column: each
 * column's sum from 0 in the order of a, the column sums added to ACC in
 * the order of c -- the bits of a plain double loop -- but four columns at a
 * time, so that their four chains of additions (each waiting for the last)
 * overlap. TERM(a, c) is an expression of two ptrdiff_t's; in the packed
 * order pair (a, c) is at c (c - 1) / 2 + a. */
#define BK_PAIR_SUM_COLUMNS(m, TERM, ACC)                                     \
  do {                                                                       \
    ptrdiff_t c_ = 1;                                                        \
    for (; c_ + 4 <= (m); c_ += 4) {                                         \
      double s0_ = 0.0, s1_ = 0.0, s2_ = 0.0, s3_ = 0.0;                     \
      for (ptrdiff_t a_ = 0; a_ < c_; a_++) {                                \
        s0_ += TERM(a_, c_);                                                 \
        s1_ += TERM(a_, c_ + 1);                                             \
        s2_ += TERM(a_, c_ + 2);                                             \
        s3_ += TERM(a_, c_ + 3);                                             \
      }                                                                      \
      s1_ += TERM(c_, c_ + 1);                                               \
      s2_ += TERM(c_, c_ + 2);                                               \
      s2_ += TERM(c_ + 1, c_ + 2);                                           \
      s3_ += TERM(c_, c_ + 3);                                               \
      s3_ += TERM(c_ + 1, c_ + 3);                                           \
      s3_ += TERM(c_ + 2, c_ + 3);                                           \
      ACC += s0_;                                                            \
      ACC += s1_;                                                            \
      ACC += s2_;                                                            \
      ACC += s3_;                                                            \
    }                                                                        \
    for (; c_ < (m); c_++) {                                                 \
      double s_ = 0.0;                                                       \
      for (ptrdiff_t a_ = 0; a_ < c_; a_++) s_ += TERM(a_, c_);              \
      ACC += s_;                                                             \
    }                                                                        \
  } while (0)

/* The strictly upper triangle of the m x m matrix A in that packed order. */
void bk_pack_upper(const double *A, ptrdiff_t m, double *out);

#endif
