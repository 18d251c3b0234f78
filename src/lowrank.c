/*
 * lowrank.c: HSIC from low-rank factors of the kernel matrices (Song et al.
 * 2012, section 2.6): the pivoted incomplete Cholesky factor K ~ G G'
 * computed one kernel column at a time (never the m x m K), random Fourier
 * features K ~ Z Z', and HSIC0, HSIC1 and the variance of HSIC1 from two
 * factors in O(m r s + m (r + s)) time and O(m (r + s)) memory.
 * Numeric core: no R API; single-threaded but for bk_rff_hsic(), whose
 * threads share rows or whole columns, so that no sum's order depends on the
 * thread count.
 */
#include <math.h>
#include <string.h>
#include "lowrank.h"
#include "hsic.h"

/* k(x_i, x_p) for every row i of x (m x d) into col (m): the inner products
 * or squared distances first, a feature at a time (contiguous, vectorisable),
 * then the kernel function, as bk_gram() does. */
static void kernel_column(const double *x, ptrdiff_t m, ptrdiff_t d,
                          const bk_kernel *kern, ptrdiff_t p, double *col)
{
  if (kern->type == BK_PRECOMPUTED) {
    memcpy(col, x + m * p, (size_t) m * sizeof(double));
    return;
  }
  int dist = bk_kernel_uses_distance(kern->type);
  memset(col, 0, (size_t) m * sizeof(double));
  for (ptrdiff_t f = 0; f < d; f++) {
    const double *xf = x + (ptrdiff_t) m * f;
    const double xp = xf[p];
    if (dist) {
      BK_SIMD
      for (ptrdiff_t i = 0; i < m; i++) {
        double t = xf[i] - xp;
        col[i] += t * t;
      }
    } else {
      BK_SIMD
      for (ptrdiff_t i = 0; i < m; i++) col[i] += xf[i] * xp;
    }
  }
  const double s = kern->p1;
  if (kern->type == BK_GAUSSIAN) {
    BK_SIMD
    for (ptrdiff_t i = 0; i < m; i++) col[i] = bk_exp(-s * col[i]);
  } else if (kern->type == BK_LAPLACE) {
    for (ptrdiff_t i = 0; i < m; i++) col[i] = sqrt(col[i]);
    BK_SIMD
    for (ptrdiff_t i = 0; i < m; i++) col[i] = bk_exp(-s * col[i]);
  } else if (kern->type != BK_LINEAR) {
    for (ptrdiff_t i = 0; i < m; i++) col[i] = bk_kernel_value(*kern, col[i]);
  }
}

/* The diagonal of K into res (m doubles); returns its largest value and, in
 * *trace, its sum. */
double bk_ichol_diag(const double *x, ptrdiff_t m, ptrdiff_t d,
                     const bk_kernel *kern, double *res, double *trace)
{
  int dist = bk_kernel_uses_distance(kern->type);
  double dmax = 0.0, tr = 0.0;
  for (ptrdiff_t i = 0; i < m; i++) {
    if (kern->type == BK_PRECOMPUTED) {
      res[i] = x[i + m * i];
    } else {
      double v = 0.0;
      if (!dist)
        for (ptrdiff_t f = 0; f < d; f++) {
          double t = x[i + (ptrdiff_t) m * f];
          v += t * t;
        }
      res[i] = bk_kernel_value(*kern, v);
    }
    if (res[i] > dmax) dmax = res[i];
    tr += res[i];
  }
  *trace = tr;
  return dmax;
}

/* Pivoted incomplete Cholesky (Fine and Scheinberg 2001), continued from
 * column r to at most rmax columns: at step j the pivot p is the sample with
 * the largest residual diagonal res_i = K_ii - sum_{l<j} G_il^2 (the lowest
 * index among ties), and G[, j] = (K[, p] - G[, 0:j-1] G[p, 0:j-1]') /
 * sqrt(res_p), zero on the rows already pivoted; it stops before a pivot
 * whose residual is <= stop or not positive. G: room for rmax columns of m
 * (columns 0..r-1 and piv[0..r-1] from the earlier steps); res: the residual
 * diagonal (-1 on the pivoted rows), from bk_ichol_diag() at r = 0. Returns
 * the new rank. Time O(m (r' - r) (d + r')) for the new rank r'. */
ptrdiff_t bk_ichol_extend(const double *x, ptrdiff_t m, ptrdiff_t d,
                          const bk_kernel *kern, double stop, ptrdiff_t r,
                          ptrdiff_t rmax, double *G, int *piv, double *res)
{
  if (rmax > m) rmax = m;
  for (; r < rmax; r++) {
    /* pivoted rows carry res = -1, below any residual */
    ptrdiff_t p = -1;
    double best = -0.5;
    for (ptrdiff_t i = 0; i < m; i++)
      if (res[i] > best) {
        best = res[i];
        p = i;
      }
    if (p < 0 || !(best > stop) || !(best > 0.0)) break;
    double *col = G + (ptrdiff_t) m * r;
    kernel_column(x, m, d, kern, p, col);
    for (ptrdiff_t l = 0; l < r; l++) {
      const double *Gl = G + (ptrdiff_t) m * l;
      const double g = Gl[p];
      BK_SIMD
      for (ptrdiff_t i = 0; i < m; i++) col[i] -= Gl[i] * g;
    }
    const double diag = sqrt(best), inv = 1.0 / diag;
    BK_SIMD
    for (ptrdiff_t i = 0; i < m; i++) col[i] *= inv;
    for (ptrdiff_t l = 0; l < r; l++) col[piv[l]] = 0.0;
    col[p] = diag;
    for (ptrdiff_t i = 0; i < m; i++)
      if (res[i] >= 0.0) res[i] -= col[i] * col[i];
    res[p] = -1.0;
    piv[r] = (int) p;
  }
  return r;
}

/* The whole factorisation: stop at a residual diagonal <= tol * max diag(K)
 * or at min(max_rank, m) columns. work: m doubles (the residual diagonal). */
ptrdiff_t bk_ichol(const double *x, ptrdiff_t m, ptrdiff_t d,
                   const bk_kernel *kern, double tol, ptrdiff_t max_rank,
                   double *G, int *piv, double *work)
{
  double trace;
  const double dmax = bk_ichol_diag(x, m, d, kern, work, &trace);
  return bk_ichol_extend(x, m, d, kern, tol * dmax, 0, max_rank, G, piv, work);
}

void bk_rff(const double *x, ptrdiff_t m, ptrdiff_t d, const double *W,
            const double *b, ptrdiff_t D, double *Z)
{
  const double scale = sqrt(2.0 / (double) D);
  for (ptrdiff_t k = 0; k < D; k++) {
    double *z = Z + (ptrdiff_t) m * k;
    const double bk = b[k];
    for (ptrdiff_t i = 0; i < m; i++) z[i] = bk;
    for (ptrdiff_t f = 0; f < d; f++) {
      const double w = W[k + D * f];
      const double *xf = x + (ptrdiff_t) m * f;
      BK_SIMD
      for (ptrdiff_t i = 0; i < m; i++) z[i] += w * xf[i];
    }
    for (ptrdiff_t i = 0; i < m; i++) z[i] = scale * cos(z[i]);
  }
}

/* Rows per block of bk_rff_hsic()'s elementwise passes: a block of x
 * (BK_RFF_ROWS x d) and of the chunk's features stays in cache while every
 * feature of the chunk is computed from it. */
#define BK_RFF_ROWS 256

/* The projections b_k + sum_f W_kf x_if of the features k0..k1-1 and the
 * rows b0..b1-1 into Zc (m x (k1 - k0)), each one as bk_rff() adds it up:
 * b_k first, then the products one feature at a time, each rounded (no fused
 * multiply-add), so that every path gives the very bits of bk_rff(). A tile
 * of four features by four (AVX2: eight) rows stays in registers while x is
 * read once per feature f. */
/* the data x (m x d) and the frequencies W (D x d) and phases b (D) of
 * random features */
typedef struct {
  const double *x, *W, *b;
  ptrdiff_t m, d, D;
} rff_map;
#define RFF_PROJ_ARGS                                                          \
  const rff_map *mp, ptrdiff_t k0, ptrdiff_t k1, ptrdiff_t b0, ptrdiff_t b1,   \
      double *Zc
#define RFF_MAP_LOCALS                                                         \
  const double *x = mp->x, *W = mp->W, *b = mp->b;                             \
  const ptrdiff_t m = mp->m, d = mp->d, D = mp->D;

/* the features and rows the tiles leave over, one at a time */
static void rff_proj_rest(RFF_PROJ_ARGS, ptrdiff_t kt, ptrdiff_t it)
{
  RFF_MAP_LOCALS
  for (ptrdiff_t k = k0; k < k1; k++) {
    double *z = Zc + (ptrdiff_t) m * (k - k0);
    const ptrdiff_t i0 = k < kt ? it : b0;
    const double bk = b[k];
    for (ptrdiff_t i = i0; i < b1; i++) z[i] = bk;
    for (ptrdiff_t f = 0; f < d; f++) {
      const double w = W[k + D * f];
      const double *xf = x + (ptrdiff_t) m * f;
      for (ptrdiff_t i = i0; i < b1; i++) z[i] += w * xf[i];
    }
  }
}

/* The portable tile is four features by four rows in named variables: GCC
 * keeps them in registers (and pairs them into SSE2 vectors), where an array
 * tile stayed in memory and ran 2.5 times slower. */
static void rff_proj(RFF_PROJ_ARGS)
{
  RFF_MAP_LOCALS
  const ptrdiff_t kt = k0 + (k1 - k0) / 4 * 4, it = b0 + (b1 - b0) / 4 * 4;
  for (ptrdiff_t k = k0; k < kt; k += 4)
    for (ptrdiff_t i = b0; i < it; i += 4) {
      double a00 = b[k], a01 = a00, a02 = a00, a03 = a00;
      double a10 = b[k + 1], a11 = a10, a12 = a10, a13 = a10;
      double a20 = b[k + 2], a21 = a20, a22 = a20, a23 = a20;
      double a30 = b[k + 3], a31 = a30, a32 = a30, a33 = a30;
      for (ptrdiff_t f = 0; f < d; f++) {
        const double *xf = x + (ptrdiff_t) m * f + i;
        const double *wf = W + k + D * f;
        const double x0 = xf[0], x1 = xf[1], x2 = xf[2], x3 = xf[3];
        double w = wf[0];
        a00 += w * x0; a01 += w * x1; a02 += w * x2; a03 += w * x3;
        w = wf[1];
        a10 += w * x0; a11 += w * x1; a12 += w * x2; a13 += w * x3;
        w = wf[2];
        a20 += w * x0; a21 += w * x1; a22 += w * x2; a23 += w * x3;
        w = wf[3];
        a30 += w * x0; a31 += w * x1; a32 += w * x2; a33 += w * x3;
      }
      double *z = Zc + (ptrdiff_t) m * (k - k0) + i;
      z[0] = a00; z[1] = a01; z[2] = a02; z[3] = a03;
      z += m;
      z[0] = a10; z[1] = a11; z[2] = a12; z[3] = a13;
      z += m;
      z[0] = a20; z[1] = a21; z[2] = a22; z[3] = a23;
      z += m;
      z[0] = a30; z[1] = a31; z[2] = a32; z[3] = a33;
    }
  rff_proj_rest(mp, k0, k1, b0, b1, Zc, kt, it);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RFF_X86_DISPATCH 1
#include <immintrin.h>
/* The same tile in AVX2 registers (the dispatch of pairs.c); a product and
 * a sum, not _mm256_fmadd_pd, so the bits stay those of bk_rff(). */
__attribute__((target("avx2"))) static void rff_proj_avx2(RFF_PROJ_ARGS)
{
  RFF_MAP_LOCALS
  const ptrdiff_t kt = k0 + (k1 - k0) / 4 * 4, it = b0 + (b1 - b0) / 8 * 8;
  for (ptrdiff_t k = k0; k < kt; k += 4)
    for (ptrdiff_t i = b0; i < it; i += 8) {
      __m256d c00 = _mm256_set1_pd(b[k]), c01 = c00,
              c10 = _mm256_set1_pd(b[k + 1]), c11 = c10,
              c20 = _mm256_set1_pd(b[k + 2]), c21 = c20,
              c30 = _mm256_set1_pd(b[k + 3]), c31 = c30;
      for (ptrdiff_t f = 0; f < d; f++) {
        const double *xf = x + (ptrdiff_t) m * f + i;
        const double *wf = W + k + D * f;
        const __m256d a0 = _mm256_loadu_pd(xf), a1 = _mm256_loadu_pd(xf + 4);
        __m256d w = _mm256_broadcast_sd(wf);
        c00 = _mm256_add_pd(c00, _mm256_mul_pd(w, a0));
        c01 = _mm256_add_pd(c01, _mm256_mul_pd(w, a1));
        w = _mm256_broadcast_sd(wf + 1);
        c10 = _mm256_add_pd(c10, _mm256_mul_pd(w, a0));
        c11 = _mm256_add_pd(c11, _mm256_mul_pd(w, a1));
        w = _mm256_broadcast_sd(wf + 2);
        c20 = _mm256_add_pd(c20, _mm256_mul_pd(w, a0));
        c21 = _mm256_add_pd(c21, _mm256_mul_pd(w, a1));
        w = _mm256_broadcast_sd(wf + 3);
        c30 = _mm256_add_pd(c30, _mm256_mul_pd(w, a0));
        c31 = _mm256_add_pd(c31, _mm256_mul_pd(w, a1));
      }
      double *z = Zc + (ptrdiff_t) m * (k - k0) + i;
      _mm256_storeu_pd(z, c00);
      _mm256_storeu_pd(z + 4, c01);
      z += m;
      _mm256_storeu_pd(z, c10);
      _mm256_storeu_pd(z + 4, c11);
      z += m;
      _mm256_storeu_pd(z, c20);
      _mm256_storeu_pd(z + 4, c21);
      z += m;
      _mm256_storeu_pd(z, c30);
      _mm256_storeu_pd(z + 4, c31);
    }
  /* clean upper halves before the SSE code (here GCC emits no vzeroupper of
   * its own, and glibc's cos() ran 4 times slower after this function) */
  _mm256_zeroupper();
  rff_proj_rest(mp, k0, k1, b0, b1, Zc, kt, it);
}
#endif

/* cos(x) for |x| <= BK_COS_MAX, branch-free so that the loops that call it
 * vectorise (glibc's cos() is a scalar call, half the time of the features): x = n pi/2 + r, |r| <= pi/4 (Cody and Waite's reduction with
 * pi/2 in three parts, exact for |n| < 2^20), cos or sin of r by the
 * polynomials of fdlibm's __kernel_cos / __kernel_sin, picked and signed by
 * n mod 4 on the bits. Within 2 ulp of glibc's cos() (1.1e-16 absolute)
 * over 2e7 arguments up to 1e5 and near multiples of pi/2; the statistics
 * of features with arguments up to 1e4, and beyond BK_COS_MAX, are tested
 * against features made with R's cos() in tests/testthat/test-approx-rff.R. */
#define BK_COS_MAX 1.0e5
static inline double bk_cos_core(double x)
{
  const double magic = 6755399441055744.0; /* 2^52 + 2^51 */
  const double invpio2 = 6.36619772367581382433e-01;
  const double pio2_1 = 1.57079632673412561417e+00;  /* first 33 bits */
  const double pio2_2 = 6.07710050630396597660e-11;  /* next 33 bits */
  const double pio2_3 = 2.02226624871116645580e-21;  /* next 33 bits */
  const double pio2_3t = 8.47842766036889956997e-32; /* the rest */
  double t = x * invpio2 + magic;
  double n = t - magic;
  double r = ((x - n * pio2_1) - n * pio2_2) - n * pio2_3;
  r -= n * pio2_3t;
  double z = r * r;
  /* fdlibm __kernel_sin, __kernel_cos (tail terms of the reduction dropped) */
  double s = r + r * z *
                     (-1.66666666666666324348e-01 +
                      z * (8.33333333332248946124e-03 +
                           z * (-1.98412698298579493134e-04 +
                                z * (2.75573137070700676789e-06 +
                                     z * (-2.50507602534068634195e-08 +
                                          z * 1.58969099521155010221e-10)))));
  double hz = 0.5 * z, w = 1.0 - hz;
  double c = w + (((1.0 - w) - hz) +
                  z * z *
                      (4.16666666666666019037e-02 +
                       z * (-1.38888888888741095749e-03 +
                            z * (2.48015872894767294178e-05 +
                                 z * (-2.75573143513906633035e-07 +
                                      z * (2.08757232129817482790e-09 +
                                           z * -1.13596475577881948265e-11))))));
  unsigned long long tb, sb, cb, out;
  memcpy(&tb, &t, sizeof tb);
  memcpy(&sb, &s, sizeof sb);
  memcpy(&cb, &c, sizeof cb);
  /* n mod 4 = 0: cos r, 1: -sin r, 2: -cos r, 3: sin r */
  unsigned long long odd = 0ULL - (tb & 1ULL);
  out = (sb & odd) | (cb & ~odd);
  out ^= ((tb + 1ULL) & 2ULL) << 62;
  double v;
  memcpy(&v, &out, sizeof v);
  return v;
}

/* z = scale cos(z) for n values: bk_cos_core() where |z| <= BK_COS_MAX
 * (random features' arguments are a few units), glibc's cos() beyond, each
 * value on its own (so a value does not depend on the others of its block:
 * the results do not depend on how the rows are blocked); the vectorised
 * loop when no value is beyond. */
#define RFF_COS_BODY                                                           \
  double over = 0.0;                                                           \
  BK_SIMD_SUM(over)                                                            \
  for (ptrdiff_t i = 0; i < n; i++) over += (double) !(fabs(z[i]) <= BK_COS_MAX); \
  if (over > 0.0) {                                                            \
    for (ptrdiff_t i = 0; i < n; i++)                                          \
      z[i] = scale * (fabs(z[i]) <= BK_COS_MAX ? bk_cos_core(z[i]) : cos(z[i])); \
  } else {                                                                     \
    BK_SIMD                                                                    \
    for (ptrdiff_t i = 0; i < n; i++) z[i] = scale * bk_cos_core(z[i]);       \
  }
static void rff_cos(double *z, ptrdiff_t n, double scale) { RFF_COS_BODY }
#ifdef RFF_X86_DISPATCH
/* four-wide, without FMA: the bits of rff_cos() */
__attribute__((target("avx2"))) static void rff_cos_avx2(double *z, ptrdiff_t n,
                                                          double scale)
{
  RFF_COS_BODY
}
#endif

/* Random features k0..k1-1 of the rows b0..b1-1 into Zc: the projections,
 * then sqrt(2 / D) cos(.), cos() as bk_cos_core() (bk_rff()'s within 2 ulp). */
static void rff_block(const rff_map *mp, ptrdiff_t k0, ptrdiff_t k1,
                      ptrdiff_t b0, ptrdiff_t b1, double scale, int avx2,
                      double *Zc)
{
#ifdef RFF_X86_DISPATCH
  if (avx2)
    rff_proj_avx2(mp, k0, k1, b0, b1, Zc);
  else
#endif
    rff_proj(mp, k0, k1, b0, b1, Zc);
  (void) avx2;
  for (ptrdiff_t k = k0; k < k1; k++) {
    double *z = Zc + (ptrdiff_t) mp->m * (k - k0) + b0;
#ifdef RFF_X86_DISPATCH
    if (avx2) {
      rff_cos_avx2(z, b1 - b0, scale);
      continue;
    }
#endif
    rff_cos(z, b1 - b0, scale);
  }
}

/* Column sums, and the sums of squares of every row (the diagonal of the
 * kernel G G'), of the m x r factor G: O(m r). */
static void factor_sums(const double *G, ptrdiff_t m, ptrdiff_t r,
                        double *colsum, double *diag)
{
  memset(diag, 0, (size_t) m * sizeof(double));
  for (ptrdiff_t k = 0; k < r; k++) {
    const double *Gk = G + (ptrdiff_t) m * k;
    double s = 0.0;
    BK_SIMD_SUM(s)
    for (ptrdiff_t i = 0; i < m; i++) {
      s += Gk[i];
      diag[i] += Gk[i] * Gk[i];
    }
    colsum[k] = s;
  }
}

/* out += A c: out (m) plus the n columns of A (m x n) weighted by
 * c[0], c[stride], ..., column after column (the order the sums take). */
static void add_cols(const double *A, ptrdiff_t m, ptrdiff_t n, const double *c,
                     ptrdiff_t stride, double *out)
{
  for (ptrdiff_t j = 0; j < n; j++) {
    const double *Aj = A + (ptrdiff_t) m * j;
    const double t = c[stride * j];
    BK_SIMD
    for (ptrdiff_t i = 0; i < m; i++) out[i] += Aj[i] * t;
  }
}

/* out (m) = G (G' v) - diag o v: K~ v for K = G G' without its diagonal.
 * tmp: r doubles. */
static void offdiag_times(const double *G, ptrdiff_t m, ptrdiff_t r,
                          const double *diag, const double *v, double *tmp,
                          double *out)
{
  for (ptrdiff_t k = 0; k < r; k++) {
    const double *Gk = G + (ptrdiff_t) m * k;
    double s = 0.0;
    BK_SIMD_SUM(s)
    for (ptrdiff_t i = 0; i < m; i++) s += Gk[i] * v[i];
    tmp[k] = s;
  }
  for (ptrdiff_t i = 0; i < m; i++) out[i] = -diag[i] * v[i];
  add_cols(G, m, r, tmp, 1, out);
}

/* Row k of M = G'F and of the centred Mc = (HG)'(HF) = G'F - (G'1)(F'1)' / m
 * (Song et al. 2012, Lemma 6), the latter summed from the centred columns
 * themselves: g the column k of G (m), gsum its sum, F (m x s) with column
 * sums f1; the row's entries go to M[ld * l] and Mc[ld * l]. Each entry is
 * its own sum over the samples, in their order. */
static void cross_row(const double *g, double gsum, const double *F,
                      const double *f1, ptrdiff_t m, ptrdiff_t s, ptrdiff_t ld,
                      double *M, double *Mc)
{
  const double md = (double) m, gb = gsum / md;
  for (ptrdiff_t l = 0; l < s; l++) {
    const double *Fl = F + (ptrdiff_t) m * l;
    const double fb = f1[l] / md;
    double u = 0.0, c = 0.0;
    BK_SIMD_SUM2(u, c)
    for (ptrdiff_t i = 0; i < m; i++) {
      u += g[i] * Fl[i];
      c += (g[i] - gb) * (Fl[i] - fb);
    }
    M[ld * l] = u;
    Mc[ld * l] = c;
  }
}

/* sum K o L = ||M||_F^2 and the centred sum ||Mc||_F^2 over the n entries of
 * M and Mc, in their order */
static void sums_of_squares(const double *M, const double *Mc, ptrdiff_t n,
                            double *sumKL, double *cKL)
{
  double u = 0.0, c = 0.0;
  for (ptrdiff_t i = 0; i < n; i++) {
    u += M[i] * M[i];
    c += Mc[i] * Mc[i];
  }
  *sumKL = u;
  *cKL = c;
}

/* klrow_a = sum_{b != a} K_ab L_ab = sum_k A_ak P_ak - kd_a ld_a for A and
 * P of q columns (G and F M', or F and G M: Lemma 7), the columns in their
 * order */
static void klrow_sums(const double *A, const double *P, ptrdiff_t m,
                       ptrdiff_t q, const double *kd, const double *ld,
                       double *klrow)
{
  for (ptrdiff_t i = 0; i < m; i++) klrow[i] = -kd[i] * ld[i];
  for (ptrdiff_t k = 0; k < q; k++) {
    const double *Ak = A + (ptrdiff_t) m * k, *Pk = P + (ptrdiff_t) m * k;
    BK_SIMD
    for (ptrdiff_t i = 0; i < m; i++) klrow[i] += Ak[i] * Pk[i];
  }
}

/* The same sums as the exact code (hsic.c), each written through the
 * factors: with kd = diag K, k1 = K~ 1, T = sum_{a != b} K_ab L_ab,
 *   sum_ab K_ab L_ab = ||G'F||_F^2 (Lemma 6), T = that - kd'ld,
 *   row sums of K o L: (K o L) 1 = rowSums(G o (F M')), M = G'F (Lemma 7),
 *   K~ l1 = G (G' l1) - kd o l1, and likewise for L~ k1.
 * HSIC0 = ||(HG)'(HF)||_F^2 / (m - 1)^2 from the centred cross-product,
 * which avoids the cancellation of sum K o L - 2/m (K1)'(L1) + ... .
 * work: BK_LOWRANK_HSIC_WORK(m, r, s) doubles. */
/* HSIC0 (eq. 4), HSIC1 (eq. 5, as in hsic.c's estimators()) and the
 * variance of HSIC1 (h of section 2.5, with the (m - 2) factor of the K~L~1
 * terms, see bk_hsic_stats(), and eq. 15) into out[0..2], from the sums the
 * low-rank paths make: kd, ld the diagonals, k1, l1 the off-diagonal row
 * sums, klrow_a = sum_{b != a} K_ab L_ab, Kl = K~ l1, Lk = L~ k1, sumKL =
 * sum K o L, cKL = the centred sum. */
static void lowrank_estimates(ptrdiff_t m, const double *kd, const double *ld,
                              const double *k1, const double *l1,
                              const double *klrow, const double *Kl,
                              const double *Lk, double sumKL, double cKL,
                              double *out)
{
  const double md = (double) m;
  double SK = 0.0, SL = 0.0, kl = 0.0, dd = 0.0;
  for (ptrdiff_t i = 0; i < m; i++) {
    SK += k1[i];
    SL += l1[i];
    kl += k1[i] * l1[i];
    dd += kd[i] * ld[i];
  }
  const double T = sumKL - dd;
  out[0] = cKL / ((md - 1.0) * (md - 1.0));
  out[1] = (T + SK * SL / ((md - 1.0) * (md - 2.0)) - 2.0 * kl / (md - 2.0)) /
           (md * (md - 3.0));
  double hh = 0.0;
  for (ptrdiff_t i = 0; i < m; i++) {
    double h = (md - 2.0) * (md - 2.0) * klrow[i] + (md - 2.0) * T -
               (md - 2.0) * (Kl[i] + Lk[i]) - md * k1[i] * l1[i] +
               SL * k1[i] + SK * l1[i] - kl;
    hh += h * h;
  }
  double p3 = (md - 1.0) * (md - 2.0) * (md - 3.0);
  double R = hh / (4.0 * md * p3 * p3);
  out[2] = 16.0 / md * (R - out[1] * out[1]);
}

void bk_lowrank_hsic(const double *G, ptrdiff_t m, ptrdiff_t r,
                     const double *F, ptrdiff_t s, double *out, double *work)
{
  bk_lowrank_hsic_ck(G, m, r, F, s, out, work, NULL);
}

void bk_lowrank_hsic_ck(const double *G, ptrdiff_t m, ptrdiff_t r,
                        const double *F, ptrdiff_t s, double *out, double *work,
                        bk_pacer *pace)
{
  double *kd = work, *ld = kd + m, *k1 = ld + m, *l1 = k1 + m,
         *klrow = l1 + m, *Kl = klrow + m, *Lk = Kl + m, *P = Lk + m;
  /* P (m x min(r, s)): F M' when r <= s, else G M */
  ptrdiff_t q = r <= s ? r : s;
  double *M = P + (ptrdiff_t) m * q, *Mc = M + r * s, *g1 = Mc + r * s,
         *f1 = g1 + r, *tr = f1 + s, *ts = tr + r;

  factor_sums(G, m, r, g1, kd);
  factor_sums(F, m, s, f1, ld);

  /* M = G'F and the centred (HG)'(HF) */
  for (ptrdiff_t k = 0; k < r; k++) {
    cross_row(G + (ptrdiff_t) m * k, g1[k], F, f1, m, s, r, M + k, Mc + k);
    bk_pace(pace, 3 * m * s);
  }
  double sumKL, cKL;
  sums_of_squares(M, Mc, r * s, &sumKL, &cKL);

  /* k1 = K~ 1 = G (G'1) - kd, l1 likewise */
  for (ptrdiff_t i = 0; i < m; i++) k1[i] = -kd[i];
  add_cols(G, m, r, g1, 1, k1);
  for (ptrdiff_t i = 0; i < m; i++) l1[i] = -ld[i];
  add_cols(F, m, s, f1, 1, l1);

  /* klrow_a = sum_{b != a} K_ab L_ab = g_a' M f_a - kd_a ld_a */
  memset(P, 0, (size_t) (m * q) * sizeof(double));
  if (r <= s) {
    /* P = F M' (m x r), klrow_a = sum_k G_ak P_ak */
    for (ptrdiff_t k = 0; k < r; k++) {
      add_cols(F, m, s, M + k, r, P + (ptrdiff_t) m * k);
      bk_pace(pace, m * s);
    }
  } else {
    /* P = G M (m x s), klrow_a = sum_l F_al P_al */
    for (ptrdiff_t l = 0; l < s; l++) {
      add_cols(G, m, r, M + r * l, 1, P + (ptrdiff_t) m * l);
      bk_pace(pace, m * r);
    }
  }
  klrow_sums(r <= s ? G : F, P, m, q, kd, ld, klrow);

  /* the variance of HSIC1: h of section 2.5 (with the (m - 2) factor of
   * the K~L~1 terms, see bk_hsic_stats()) and eq. (15) */
  offdiag_times(G, m, r, kd, l1, tr, Kl);
  offdiag_times(F, m, s, ld, k1, ts, Lk);
  lowrank_estimates(m, kd, ld, k1, l1, klrow, Kl, Lk, sumKL, cKL, out);
}

/* What a chunk of random features (bk_rff_hsic()) leaves: the label side
 * F, its column sums f1 and off-diagonal row sums l1, and the chunk Zc of
 * features c0.. (m rows each), into the sums of every feature (g1 = Z'1,
 * tr = Z'l1, the rows of M = Z'F and Mc = (HZ)'(HF)) and of every sample
 * (kd = diag(ZZ'), k1 = Z (Z'1), Kl = Z (Z'l1), P = Z M). */
typedef struct {
  const double *F, *f1, *l1, *Zc;
  ptrdiff_t m, s, D, c0;
  double *g1, *tr, *M, *Mc, *kd, *k1, *Kl, *P;
} rff_sums;

/* feature k's sums over the samples, whole on one thread */
static void rff_feature_sums(const rff_sums *st, ptrdiff_t k)
{
  const ptrdiff_t m = st->m;
  const double *z = st->Zc + m * (k - st->c0);
  double g = 0.0;
  BK_SIMD_SUM(g)
  for (ptrdiff_t i = 0; i < m; i++) g += z[i];
  st->g1[k] = g;
  cross_row(z, g, st->F, st->f1, m, st->s, st->D, st->M + k, st->Mc + k);
  double t = 0.0;
  BK_SIMD_SUM(t)
  for (ptrdiff_t i = 0; i < m; i++) t += z[i] * st->l1[i];
  st->tr[k] = t;
}

/* the sums of the samples b0..b1-1 over the chunk's features c0..c1-1, the
 * features in their order */
static void rff_sample_sums(const rff_sums *st, ptrdiff_t c1, ptrdiff_t b0,
                            ptrdiff_t b1)
{
  const ptrdiff_t m = st->m, D = st->D;
  double *kd = st->kd, *k1 = st->k1, *Kl = st->Kl;
  for (ptrdiff_t k = st->c0; k < c1; k++) {
    const double *z = st->Zc + m * (k - st->c0);
    const double gk = st->g1[k], tk = st->tr[k];
    BK_SIMD
    for (ptrdiff_t i = b0; i < b1; i++) {
      kd[i] += z[i] * z[i];
      k1[i] += z[i] * gk;
      Kl[i] += z[i] * tk;
    }
    for (ptrdiff_t l = 0; l < st->s; l++) {
      double *Pl = st->P + m * l;
      const double mkl = st->M[k + D * l];
      BK_SIMD
      for (ptrdiff_t i = b0; i < b1; i++) Pl[i] += z[i] * mkl;
    }
  }
}

/* bk_lowrank_hsic(Z, F) for the random features Z = sqrt(2 / D) cos(x W' +
 * 1 b') of bk_rff(), without Z: the features are made `chunk` columns at a
 * time and each chunk leaves only what the statistics need of it (Song et
 * al. 2012, section 2.6.3, Lemmas 6-7): the column sums Z'1, the products
 * Z'F and (HZ)'(HF), Z'l1 for l1 = L~ 1, and the per-sample sums diag(ZZ'),
 * Z (Z'1), Z (Z'l1) and Z M (M = Z'F). Memory O(m (chunk + s)) besides x
 * and F, instead of the m x D matrix; time O(m D (d + s)), as before.
 * Every sum runs over the features in their order and over the samples as
 * bk_lowrank_hsic() does; the per-sample sums of Z (Z'1) and Z (Z'l1) start
 * from 0 instead of -diag(ZZ'), so they can differ in the last bits.
 * Threads share the rows (the elementwise passes) or the features of a chunk
 * (each column's sums whole on one thread): the results do not depend on
 * nthreads. simd: the projections in AVX2 registers where the CPU has them
 * (the same bits). pace: checked on the calling thread between the chunks.
 * work: BK_RFF_HSIC_WORK(m, D, s, chunk) doubles. */
void bk_rff_hsic(const double *x, ptrdiff_t m, ptrdiff_t d, const double *W,
                 const double *b, ptrdiff_t D, const double *F, ptrdiff_t s,
                 ptrdiff_t chunk, int nthreads, int simd, double *out,
                 double *work, bk_pacer *pace)
{
  const int avx2 = simd && bk_cpu_has_avx2_fma();
  if (chunk < 1) chunk = 1;
  if (chunk > D) chunk = D;
  double *kd = work, *ld = kd + m, *k1 = ld + m, *l1 = k1 + m,
         *klrow = l1 + m, *Kl = klrow + m, *Lk = Kl + m, *P = Lk + m,
         *Zc = P + (ptrdiff_t) m * s;
  double *M = Zc + (ptrdiff_t) m * chunk, *Mc = M + D * s, *g1 = Mc + D * s,
         *f1 = g1 + D, *tr = f1 + s, *ts = tr + D;
  const double scale = sqrt(2.0 / (double) D);
  const ptrdiff_t nblk = (m + BK_RFF_ROWS - 1) / BK_RFF_ROWS;

  /* the label side, as bk_lowrank_hsic() */
  factor_sums(F, m, s, f1, ld);
  for (ptrdiff_t i = 0; i < m; i++) l1[i] = -ld[i];
  add_cols(F, m, s, f1, 1, l1);
  memset(kd, 0, (size_t) m * sizeof(double));
  memset(k1, 0, (size_t) m * sizeof(double));
  memset(Kl, 0, (size_t) m * sizeof(double));
  memset(P, 0, (size_t) (m * s) * sizeof(double));

  const rff_map mp = {.x = x, .W = W, .b = b, .m = m, .d = d, .D = D};
  rff_sums st = {.F = F, .f1 = f1, .l1 = l1, .Zc = Zc, .m = m, .s = s, .D = D,
                 .g1 = g1, .tr = tr, .M = M, .Mc = Mc, .kd = kd, .k1 = k1,
                 .Kl = Kl, .P = P};
  for (ptrdiff_t c0 = 0; c0 < D; c0 += chunk) {
    const ptrdiff_t c1 = c0 + chunk < D ? c0 + chunk : D;
    st.c0 = c0;
    /* threads for enough work only (a projection on d and sums with s
     * columns per sample and feature) */
    const int par = nthreads > 1 && (double) m * (double) (c1 - c0) *
                                            (double) (d + s + 2) >= BK_PAR_MIN_PAIRS;
    (void) par;
    /* the chunk's features, a block of rows at a time */
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(nthreads) if (par)
#endif
    for (ptrdiff_t blk = 0; blk < nblk; blk++) {
      ptrdiff_t b0 = blk * BK_RFF_ROWS,
                b1 = b0 + BK_RFF_ROWS < m ? b0 + BK_RFF_ROWS : m;
      rff_block(&mp, c0, c1, b0, b1, scale, avx2, Zc);
    }
    /* each feature's sums over the samples, whole on one thread */
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads) if (par)
#endif
    for (ptrdiff_t k = c0; k < c1; k++) rff_feature_sums(&st, k);
    /* the per-sample sums, the features in their order */
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(nthreads) if (par)
#endif
    for (ptrdiff_t blk = 0; blk < nblk; blk++) {
      ptrdiff_t b0 = blk * BK_RFF_ROWS,
                b1 = b0 + BK_RFF_ROWS < m ? b0 + BK_RFF_ROWS : m;
      rff_sample_sums(&st, c1, b0, b1);
    }
    bk_pace(pace, m * (c1 - c0) * (d + 4 * s + 8));
  }
  (void) nthreads;

  double sumKL, cKL;
  sums_of_squares(M, Mc, D * s, &sumKL, &cKL);
  for (ptrdiff_t i = 0; i < m; i++) {
    k1[i] -= kd[i];
    Kl[i] -= kd[i] * l1[i];
  }
  /* klrow_a = sum_{b != a} K_ab L_ab = f_a' (Z M)_a - kd_a ld_a */
  klrow_sums(F, P, m, s, kd, ld, klrow);
  offdiag_times(F, m, s, ld, k1, ts, Lk);
  lowrank_estimates(m, kd, ld, k1, l1, klrow, Kl, Lk, sumKL, cKL, out);
}

/* ---- random features on both sides (bk_rff_hsic2) ------------------------ */

#ifdef _OPENMP
#define RFF2_OMP(x) BK_PRAGMA(omp x)
#else
#define RFF2_OMP(x)
#endif
/* rows per task of the per-sample sums, features per task of the rest */
#define RFF2_SUB 64
#define RFF2_FEAT 16

/* The state of bk_rff_hsic2(): the data and draws of both sides (x: m x d,
 * W D x d, b; y: m x dy, Wy S x dy, by), and a block of nb rows: their x and
 * y (xt, yt), their features column-major (Zc nb x D, Fc nb x S, as
 * rff_block() makes them) and row-major (Zr, Fr), the products P = Fc M'
 * (nb x D); the per-sample sums (m each) and the per-feature ones. */
typedef struct {
  rff_map x, y;
  ptrdiff_t m, D, S, nb;
  double sx, sy;
  int avx2;
  double *xt, *yt, *Zc, *Fc, *Zr, *Fr, *P;
  double *kd, *ld, *k1, *l1, *klrow, *Kl, *Lk;
  double *g1, *f1, *tr, *ts, *M, *Mc;
} rff2_ctx;

/* out[i] += sum_k A[i + nb k] v[k] (v NULL: A[i + nb k]^2) for the rows
 * a..b-1 of the nb x n column-major A, the columns in their order */
static void rows_times(const double *A, ptrdiff_t nb, ptrdiff_t n,
                       const double *v, ptrdiff_t a, ptrdiff_t b, double *out)
{
  for (ptrdiff_t k = 0; k < n; k++) {
    const double *Ak = A + nb * k;
    if (!v) {
      BK_SIMD
      for (ptrdiff_t i = a; i < b; i++) out[i] += Ak[i] * Ak[i];
      continue;
    }
    const double t = v[k];
    BK_SIMD
    for (ptrdiff_t i = a; i < b; i++) out[i] += Ak[i] * t;
  }
}

/* acc[k] += sum_i Ar[n i + k] w[i] (w NULL: the plain sums) for the columns
 * k0..k1-1 of the nb x n row-major Ar, the rows in their order */
static void cols_times(const double *Ar, ptrdiff_t nb, ptrdiff_t n,
                       const double *w, ptrdiff_t k0, ptrdiff_t k1, double *acc)
{
  for (ptrdiff_t i = 0; i < nb; i++) {
    const double *a = Ar + n * i;
    const double t = w ? w[i] : 1.0;
    BK_SIMD
    for (ptrdiff_t k = k0; k < k1; k++) acc[k] += a[k] * t;
  }
}

/* Mc[k + D l] += sum_i Zr[D i + k] Fc[i + nb l] for the columns l0..l1-1 of
 * Mc, every entry over the rows in their order: tiles of four features by
 * four columns in named variables (registers, paired into vectors), the
 * entries left over one at a time with the same operations */
#define CROSS_BLOCK_ARGS                                                       \
  const double *Zr, const double *Fc, ptrdiff_t nb, ptrdiff_t D, ptrdiff_t l0, \
      ptrdiff_t l1, double *Mc
#define CROSS_BLOCK_BODY \
  const ptrdiff_t lt = l0 + (l1 - l0) / 4 * 4, kt = D / 4 * 4;                 \
  for (ptrdiff_t l = l0; l < lt; l += 4)                                       \
    for (ptrdiff_t k = 0; k < kt; k += 4) {                                    \
      double *c0 = Mc + k + D * l, *c1 = c0 + D, *c2 = c1 + D, *c3 = c2 + D;   \
      double a00 = c0[0], a10 = c0[1], a20 = c0[2], a30 = c0[3];               \
      double a01 = c1[0], a11 = c1[1], a21 = c1[2], a31 = c1[3];               \
      double a02 = c2[0], a12 = c2[1], a22 = c2[2], a32 = c2[3];               \
      double a03 = c3[0], a13 = c3[1], a23 = c3[2], a33 = c3[3];               \
      const double *F0 = Fc + nb * l, *F1 = F0 + nb, *F2 = F1 + nb, *F3 = F2 + nb; \
      for (ptrdiff_t i = 0; i < nb; i++) {                                     \
        const double *z = Zr + D * i + k;                                      \
        const double z0 = z[0], z1 = z[1], z2 = z[2], z3 = z[3];               \
        double f = F0[i];                                                      \
        a00 += z0 * f; a10 += z1 * f; a20 += z2 * f; a30 += z3 * f;            \
        f = F1[i];                                                             \
        a01 += z0 * f; a11 += z1 * f; a21 += z2 * f; a31 += z3 * f;            \
        f = F2[i];                                                             \
        a02 += z0 * f; a12 += z1 * f; a22 += z2 * f; a32 += z3 * f;            \
        f = F3[i];                                                             \
        a03 += z0 * f; a13 += z1 * f; a23 += z2 * f; a33 += z3 * f;            \
      }                                                                        \
      c0[0] = a00; c0[1] = a10; c0[2] = a20; c0[3] = a30;                      \
      c1[0] = a01; c1[1] = a11; c1[2] = a21; c1[3] = a31;                      \
      c2[0] = a02; c2[1] = a12; c2[2] = a22; c2[3] = a32;                      \
      c3[0] = a03; c3[1] = a13; c3[2] = a23; c3[3] = a33;                      \
    }                                                                          \
  for (ptrdiff_t l = l0; l < l1; l++) {                                        \
    const ptrdiff_t k0 = l < lt ? kt : 0;                                      \
    double *c = Mc + D * l;                                                    \
    for (ptrdiff_t i = 0; i < nb; i++) {                                       \
      const double *z = Zr + D * i;                                            \
      const double f = Fc[i + nb * l];                                         \
      for (ptrdiff_t k = k0; k < D; k++) c[k] += z[k] * f;                     \
    }                                                                          \
  }

static void cross_block(CROSS_BLOCK_ARGS) { CROSS_BLOCK_BODY }
#ifdef RFF_X86_DISPATCH
/* the same, compiled for AVX2 (no FMA: the same bits) */
__attribute__((target("avx2"))) static void
cross_block_avx2(CROSS_BLOCK_ARGS)
{
  CROSS_BLOCK_BODY
}
#endif

/* P[i + nb k] = sum_l Fc[i + nb l] M[k + D l] for the columns k0..k1-1 of
 * P, over l in its order: tiles of four rows by four features in named
 * variables, the rest one at a time with the same operations */
#define LABEL_TIMES_ARGS                                                       \
  const double *Fc, const double *M, ptrdiff_t nb, ptrdiff_t D, ptrdiff_t S,   \
      ptrdiff_t k0, ptrdiff_t k1, double *P
#define LABEL_TIMES_BODY \
  const ptrdiff_t kt = k0 + (k1 - k0) / 4 * 4, it = nb / 4 * 4;                \
  for (ptrdiff_t k = k0; k < kt; k += 4)                                       \
    for (ptrdiff_t i = 0; i < it; i += 4) {                                    \
      double a00 = 0.0, a10 = 0.0, a20 = 0.0, a30 = 0.0;                       \
      double a01 = 0.0, a11 = 0.0, a21 = 0.0, a31 = 0.0;                       \
      double a02 = 0.0, a12 = 0.0, a22 = 0.0, a32 = 0.0;                       \
      double a03 = 0.0, a13 = 0.0, a23 = 0.0, a33 = 0.0;                       \
      for (ptrdiff_t l = 0; l < S; l++) {                                      \
        const double *f = Fc + nb * l + i, *w = M + k + D * l;                 \
        const double f0 = f[0], f1 = f[1], f2 = f[2], f3 = f[3];               \
        double t = w[0];                                                       \
        a00 += f0 * t; a10 += f1 * t; a20 += f2 * t; a30 += f3 * t;            \
        t = w[1];                                                              \
        a01 += f0 * t; a11 += f1 * t; a21 += f2 * t; a31 += f3 * t;            \
        t = w[2];                                                              \
        a02 += f0 * t; a12 += f1 * t; a22 += f2 * t; a32 += f3 * t;            \
        t = w[3];                                                              \
        a03 += f0 * t; a13 += f1 * t; a23 += f2 * t; a33 += f3 * t;            \
      }                                                                        \
      double *p = P + i + nb * k;                                              \
      p[0] = a00; p[1] = a10; p[2] = a20; p[3] = a30;                          \
      p += nb;                                                                 \
      p[0] = a01; p[1] = a11; p[2] = a21; p[3] = a31;                          \
      p += nb;                                                                 \
      p[0] = a02; p[1] = a12; p[2] = a22; p[3] = a32;                          \
      p += nb;                                                                 \
      p[0] = a03; p[1] = a13; p[2] = a23; p[3] = a33;                          \
    }                                                                          \
  for (ptrdiff_t k = k0; k < k1; k++) {                                        \
    const ptrdiff_t i0 = k < kt ? it : 0;                                      \
    double *p = P + nb * k;                                                    \
    for (ptrdiff_t i = i0; i < nb; i++) p[i] = 0.0;                            \
    for (ptrdiff_t l = 0; l < S; l++) {                                        \
      const double *f = Fc + nb * l;                                           \
      const double t = M[k + D * l];                                           \
      for (ptrdiff_t i = i0; i < nb; i++) p[i] += f[i] * t;                    \
    }                                                                          \
  }

static void label_times_cross(LABEL_TIMES_ARGS) { LABEL_TIMES_BODY }
#ifdef RFF_X86_DISPATCH
/* the same, compiled for AVX2 (no FMA: the same bits) */
__attribute__((target("avx2"))) static void
label_times_cross_avx2(LABEL_TIMES_ARGS)
{
  LABEL_TIMES_BODY
}
#endif

/* The block of rows i0..i0+nb-1: its x and y, both sides' features (tasks
 * of RFF2_FEAT features) and their row-major copies. Called by every thread
 * of a region (or by one, outside any). */
static void rff2_make(const rff2_ctx *c, ptrdiff_t i0)
{
  const ptrdiff_t nb = c->nb, m = c->m, D = c->D, S = c->S;
  RFF2_OMP(single)
  {
    for (ptrdiff_t f = 0; f < c->x.d; f++)
      memcpy(c->xt + nb * f, c->x.x + m * f + i0, (size_t) nb * sizeof(double));
    for (ptrdiff_t f = 0; f < c->y.d; f++)
      memcpy(c->yt + nb * f, c->y.x + m * f + i0, (size_t) nb * sizeof(double));
  }
  const rff_map bx = {.x = c->xt, .W = c->x.W, .b = c->x.b, .m = nb, .d = c->x.d, .D = D};
  const rff_map by = {.x = c->yt, .W = c->y.W, .b = c->y.b, .m = nb, .d = c->y.d, .D = S};
  const ptrdiff_t tx = (D + RFF2_FEAT - 1) / RFF2_FEAT,
                  ty = (S + RFF2_FEAT - 1) / RFF2_FEAT;
  RFF2_OMP(for schedule(dynamic, 1))
  for (ptrdiff_t t = 0; t < tx + ty; t++) {
    const int onx = t < tx;
    const ptrdiff_t n = onx ? D : S, k0 = (onx ? t : t - tx) * RFF2_FEAT,
                    k1 = k0 + RFF2_FEAT < n ? k0 + RFF2_FEAT : n;
    double *Z = onx ? c->Zc : c->Fc, *Zr = onx ? c->Zr : c->Fr;
    rff_block(onx ? &bx : &by, k0, k1, 0, nb, onx ? c->sx : c->sy, c->avx2, Z + nb * k0);
    for (ptrdiff_t i = 0; i < nb; i++)
      for (ptrdiff_t k = k0; k < k1; k++) Zr[n * i + k] = Z[i + nb * k];
  }
}

/* Pass 1 over a block: diag(ZZ') and diag(FF') of its samples, and the
 * column sums Z'1 and F'1 so far. */
static void rff2_pass1(const rff2_ctx *c, ptrdiff_t i0)
{
  const ptrdiff_t nb = c->nb, D = c->D, S = c->S;
  const ptrdiff_t nr = (nb + RFF2_SUB - 1) / RFF2_SUB,
                  tx = (D + RFF2_FEAT - 1) / RFF2_FEAT,
                  ty = (S + RFF2_FEAT - 1) / RFF2_FEAT;
  RFF2_OMP(for schedule(static) nowait)
  for (ptrdiff_t t = 0; t < nr; t++) {
    const ptrdiff_t a = t * RFF2_SUB, b = a + RFF2_SUB < nb ? a + RFF2_SUB : nb;
    rows_times(c->Zc, nb, D, NULL, a, b, c->kd + i0);
    rows_times(c->Fc, nb, S, NULL, a, b, c->ld + i0);
  }
  RFF2_OMP(for schedule(static))
  for (ptrdiff_t t = 0; t < tx + ty; t++) {
    const int onx = t < tx;
    const ptrdiff_t n = onx ? D : S, k0 = (onx ? t : t - tx) * RFF2_FEAT,
                    k1 = k0 + RFF2_FEAT < n ? k0 + RFF2_FEAT : n;
    cols_times(onx ? c->Zr : c->Fr, nb, n, NULL, k0, k1, onx ? c->g1 : c->f1);
  }
}

/* Pass 2 over a block (Z'1 and F'1 complete): k1 = Z (Z'1) - kd and l1 of
 * its samples, the sums Z'l1 and F'k1 so far, then the block centred by the
 * column means and its share of the centred cross-product Mc. */
static void rff2_pass2(const rff2_ctx *c, ptrdiff_t i0)
{
  const ptrdiff_t nb = c->nb, D = c->D, S = c->S;
  const double md = (double) c->m;
  const ptrdiff_t nr = (nb + RFF2_SUB - 1) / RFF2_SUB,
                  tx = (D + RFF2_FEAT - 1) / RFF2_FEAT,
                  ty = (S + RFF2_FEAT - 1) / RFF2_FEAT;
  RFF2_OMP(for schedule(static))
  for (ptrdiff_t t = 0; t < nr; t++) {
    const ptrdiff_t a = i0 + t * RFF2_SUB,
                    b = t * RFF2_SUB + RFF2_SUB < nb ? a + RFF2_SUB : i0 + nb;
    rows_times(c->Zc, nb, D, c->g1, a - i0, b - i0, c->k1 + i0);
    rows_times(c->Fc, nb, S, c->f1, a - i0, b - i0, c->l1 + i0);
    for (ptrdiff_t i = a; i < b; i++) {
      c->k1[i] -= c->kd[i];
      c->l1[i] -= c->ld[i];
    }
  }
  RFF2_OMP(for schedule(static))
  for (ptrdiff_t t = 0; t < tx + ty; t++) {
    const int onx = t < tx;
    const ptrdiff_t n = onx ? D : S, k0 = (onx ? t : t - tx) * RFF2_FEAT,
                    k1 = k0 + RFF2_FEAT < n ? k0 + RFF2_FEAT : n;
    const double *sum = onx ? c->g1 : c->f1;
    cols_times(onx ? c->Zr : c->Fr, nb, n, onx ? c->l1 + i0 : c->k1 + i0, k0, k1,
               onx ? c->tr : c->ts);
    if (onx) {
      for (ptrdiff_t i = 0; i < nb; i++)
        for (ptrdiff_t k = k0; k < k1; k++) c->Zr[D * i + k] -= sum[k] / md;
    } else {
      for (ptrdiff_t k = k0; k < k1; k++) {
        const double mean = sum[k] / md;
        for (ptrdiff_t i = 0; i < nb; i++) c->Fc[i + nb * k] -= mean;
      }
    }
  }
  RFF2_OMP(for schedule(dynamic, 1))
  for (ptrdiff_t t = 0; t < ty; t++) {
    const ptrdiff_t l0 = t * RFF2_FEAT, l1 = l0 + RFF2_FEAT < S ? l0 + RFF2_FEAT : S;
#ifdef RFF_X86_DISPATCH
    if (c->avx2) {
      cross_block_avx2(c->Zr, c->Fc, nb, D, l0, l1, c->Mc);
      continue;
    }
#endif
    cross_block(c->Zr, c->Fc, nb, D, l0, l1, c->Mc);
  }
}

/* Pass 3 over a block (Z'l1, F'k1 and M complete): Kl = Z (Z'l1) - kd o l1,
 * Lk likewise and klrow = rowSums(Z o (F M')) - kd o ld of its samples. */
static void rff2_pass3(const rff2_ctx *c, ptrdiff_t i0)
{
  const ptrdiff_t nb = c->nb, D = c->D, S = c->S;
  const ptrdiff_t nr = (nb + RFF2_SUB - 1) / RFF2_SUB,
                  tx = (D + RFF2_FEAT - 1) / RFF2_FEAT;
  RFF2_OMP(for schedule(static) nowait)
  for (ptrdiff_t t = 0; t < nr; t++) {
    const ptrdiff_t a = t * RFF2_SUB, b = a + RFF2_SUB < nb ? a + RFF2_SUB : nb;
    rows_times(c->Zc, nb, D, c->tr, a, b, c->Kl + i0);
    rows_times(c->Fc, nb, S, c->ts, a, b, c->Lk + i0);
    for (ptrdiff_t i = i0 + a; i < i0 + b; i++) {
      c->Kl[i] -= c->kd[i] * c->l1[i];
      c->Lk[i] -= c->ld[i] * c->k1[i];
    }
  }
  RFF2_OMP(for schedule(dynamic, 1))
  for (ptrdiff_t t = 0; t < tx; t++) {
    const ptrdiff_t k0 = t * RFF2_FEAT, k1 = k0 + RFF2_FEAT < D ? k0 + RFF2_FEAT : D;
#ifdef RFF_X86_DISPATCH
    if (c->avx2) {
      label_times_cross_avx2(c->Fc, c->M, nb, D, S, k0, k1, c->P);
      continue;
    }
#endif
    label_times_cross(c->Fc, c->M, nb, D, S, k0, k1, c->P);
  }
  RFF2_OMP(for schedule(static))
  for (ptrdiff_t t = 0; t < nr; t++) {
    const ptrdiff_t a = t * RFF2_SUB, b = a + RFF2_SUB < nb ? a + RFF2_SUB : nb;
    double *kr = c->klrow + i0;
    for (ptrdiff_t i = a; i < b; i++) kr[i] = -c->kd[i0 + i] * c->ld[i0 + i];
    for (ptrdiff_t k = 0; k < D; k++) {
      const double *z = c->Zc + nb * k, *p = c->P + nb * k;
      BK_SIMD
      for (ptrdiff_t i = a; i < b; i++) kr[i] += z[i] * p[i];
    }
  }
}

/* One pass over the blocks of `rows` samples: each block made and passed
 * to pass 1, 2 or 3, in one parallel region (par) or on this thread. */
static void rff2_sweep(rff2_ctx c, int pass, ptrdiff_t rows, int nthreads,
                       int par, bk_pacer *pace)
{
  (void) nthreads;
  (void) par;
  for (ptrdiff_t i0 = 0; i0 < c.m; i0 += rows) {
    c.nb = i0 + rows < c.m ? rows : c.m - i0;
    const rff2_ctx *cp = &c;
    RFF2_OMP(parallel num_threads(nthreads) if (par))
    {
      rff2_make(cp, i0);
      if (pass == 1)
        rff2_pass1(cp, i0);
      else if (pass == 2)
        rff2_pass2(cp, i0);
      else
        rff2_pass3(cp, i0);
    }
    bk_pace(pace, c.nb * (c.D * (c.x.d + 4) + c.S * (c.y.d + 4)) +
                      (pass == 1 ? 0 : 2 * c.nb * c.D * c.S));
  }
}

void bk_rff_hsic2(const double *x, ptrdiff_t m, ptrdiff_t d, const double *W,
                  const double *b, ptrdiff_t D, const double *y, ptrdiff_t dy,
                  const double *Wy, const double *by, ptrdiff_t S,
                  ptrdiff_t rows, int nthreads, int simd, double *out,
                  double *work, bk_pacer *pace)
{
  if (rows < 1) rows = 1;
  if (rows > m) rows = m;
  rff2_ctx c = {.x = {.x = x, .W = W, .b = b, .m = m, .d = d, .D = D},
                .y = {.x = y, .W = Wy, .b = by, .m = m, .d = dy, .D = S},
                .m = m, .D = D, .S = S, .sx = sqrt(2.0 / (double) D),
                .sy = sqrt(2.0 / (double) S), .avx2 = simd && bk_cpu_has_avx2_fma()};
  c.kd = work;
  c.ld = c.kd + m;
  c.k1 = c.ld + m;
  c.l1 = c.k1 + m;
  c.klrow = c.l1 + m;
  c.Kl = c.klrow + m;
  c.Lk = c.Kl + m;
  c.M = c.Lk + m;
  c.Mc = c.M + D * S;
  c.g1 = c.Mc + D * S;
  c.f1 = c.g1 + D;
  c.tr = c.f1 + S;
  c.ts = c.tr + D;
  c.xt = c.ts + S;
  c.yt = c.xt + rows * d;
  c.Zc = c.yt + rows * dy;
  c.Zr = c.Zc + rows * D;
  c.P = c.Zr + rows * D;
  c.Fc = c.P + rows * D;
  c.Fr = c.Fc + rows * S;
  memset(work, 0, (size_t) (7 * m + 2 * D * S + 2 * (D + S)) * sizeof(double));
  /* threads for enough work only: a block's cross-product */
  const int par = nthreads > 1 && (double) rows * (double) D * (double) S >= BK_PAR_MIN_PAIRS;
  rff2_sweep(c, 1, rows, nthreads, par, pace);
  rff2_sweep(c, 2, rows, nthreads, par, pace);
  /* M = Z'F = Mc + (Z'1)(F'1)' / m */
  const double md = (double) m;
  for (ptrdiff_t l = 0; l < S; l++)
    for (ptrdiff_t k = 0; k < D; k++)
      c.M[k + D * l] = c.Mc[k + D * l] + c.g1[k] * c.f1[l] / md;
  rff2_sweep(c, 3, rows, nthreads, par, pace);
  double sumKL, cKL;
  sums_of_squares(c.M, c.Mc, D * S, &sumKL, &cKL);
  lowrank_estimates(m, c.kd, c.ld, c.k1, c.l1, c.klrow, c.Kl, c.Lk, sumKL, cKL, out);
}
