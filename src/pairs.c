/*
 * pairs.c: the one loop that costs: a weighted sum of Gaussian kernel values
 * over the pairs a < b of samples, for one feature against a set. Used by the
 * selectors (scorer_pairs.c) and the per-feature scores (hsic.c). Numeric core: no
 * R API.
 */
#include <math.h>
#include <string.h>
#include "pairs.h"

/* The hot loop of the selectors and of the per-feature kernel scores,
 * Gaussian kernel: one exp per pair,
 *   sum_{a<b} w_ab exp(ns (q_ab + sgn (x_aj - x_bj)^2)),
 * over the packed pairs. EXPF is bk_exp_core when the caller has checked
 * that every argument is >= -708, bk_exp otherwise. */
#define GAUSS_PASS_BODY(EXPF)                                                 \
  double off = 0.0;                                                          \
  for (ptrdiff_t b = 1; b < m; b++) {                                        \
    const double xb = xj[b];                                                 \
    double t = 0.0;                                                          \
    BK_SIMD_SUM(t)                                                           \
    for (ptrdiff_t a = 0; a < b; a++) {                                      \
      double u = xj[a] - xb;                                                 \
      t += w[a] * EXPF(ns * (q[a] + sgn * u * u));                           \
    }                                                                        \
    off += t;                                                                \
    q += b;                                                                  \
    w += b;                                                                  \
  }                                                                          \
  return off;

#define GAUSS_PASS_ARGS                                                       \
  const double *q, const double *w, const double *xj, ptrdiff_t m,           \
      double ns, double sgn

static double gauss_pass(GAUSS_PASS_ARGS) { GAUSS_PASS_BODY(bk_exp) }
static double gauss_pass_inrange(GAUSS_PASS_ARGS)
{
  GAUSS_PASS_BODY(bk_exp_core)
}

/* The same loops compiled for AVX2 + FMA as well, picked at run time on
 * CPUs that have them: R's flags target the baseline x86-64 (SSE2), and
 * the four-wide vectors with fused multiply-adds run this loop 2.5 times
 * faster. The arithmetic is the same up to the rounding of the fused
 * operations and of the wider reduction. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define BK_X86_DISPATCH 1
__attribute__((target("avx2,fma"))) static double
gauss_pass_avx2(GAUSS_PASS_ARGS) { GAUSS_PASS_BODY(bk_exp) }
__attribute__((target("avx2,fma"))) static double
gauss_pass_inrange_avx2(GAUSS_PASS_ARGS) { GAUSS_PASS_BODY(bk_exp_core) }
#endif

/* sum_{a<b} w_ab k_ab over packed pairs whose kernel values k are stored
 * (the per-feature tests' kernel, kernel_test.c): the same columns, the same
 * per-column SIMD sums and the same order of the column sums as the Gaussian
 * pass above, so that on stored values equal to the pass's exponentials it
 * gives the pass's sum to the last bit (checked in test-kernel-test.R). */
#define PACKED_DOT_BODY                                                       \
  double off = 0.0;                                                          \
  for (ptrdiff_t b = 1; b < m; b++) {                                        \
    double t = 0.0;                                                          \
    BK_SIMD_SUM(t)                                                           \
    for (ptrdiff_t a = 0; a < b; a++) t += w[a] * k[a];                      \
    off += t;                                                                \
    k += b;                                                                  \
    w += b;                                                                  \
  }                                                                          \
  return off;

#define PACKED_DOT_ARGS const double *k, const double *w, ptrdiff_t m

static double packed_dot(PACKED_DOT_ARGS) { PACKED_DOT_BODY }
#ifdef BK_X86_DISPATCH
__attribute__((target("avx2,fma"))) static double
packed_dot_avx2(PACKED_DOT_ARGS) { PACKED_DOT_BODY }
#endif

/* Whether this CPU runs the AVX2 + FMA copies of the loops (pairs.c,
 * randsel.c, kernel_test.c): 0 where they are not compiled. */
int bk_cpu_has_avx2_fma(void)
{
#ifdef BK_X86_DISPATCH
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return 0;
#endif
}

bk_gauss_pass_fn bk_pick_gauss_pass(int in_range, int simd)
{
#ifdef BK_X86_DISPATCH
  if (simd && bk_cpu_has_avx2_fma())
    return in_range ? gauss_pass_inrange_avx2 : gauss_pass_avx2;
#endif
  (void) simd;
  return in_range ? gauss_pass_inrange : gauss_pass;
}

bk_packed_dot_fn bk_pick_packed_dot(int simd)
{
#ifdef BK_X86_DISPATCH
  if (simd && bk_cpu_has_avx2_fma()) return packed_dot_avx2;
#endif
  (void) simd;
  return packed_dot;
}

void bk_pack_upper(const double *A, ptrdiff_t m, double *out)
{
  for (ptrdiff_t b = 1, p = 0; b < m; b++)
    for (ptrdiff_t a = 0; a < b; a++) out[p++] = A[a + m * b];
}
