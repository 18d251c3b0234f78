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

/* The strictly upper triangle of the m x m matrix A in that packed order. */
void bk_pack_upper(const double *A, ptrdiff_t m, double *out);

#endif
