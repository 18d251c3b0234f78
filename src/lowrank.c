/*
 * lowrank.c: HSIC from low-rank factors of the kernel matrices (Song et al.
 * 2012, section 2.6): the pivoted incomplete Cholesky factor K ~ G G'
 * computed one kernel column at a time (never the m x m K), random Fourier
 * features K ~ Z Z', and HSIC0, HSIC1 and the variance of HSIC1 from two
 * factors in O(m r s + m (r + s)) time and O(m (r + s)) memory.
 * Numeric core: no R API, single-threaded (no reductions whose order could
 * depend on the thread count).
 */
#include <math.h>
#include <string.h>
#include "bahsic.h"

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

/* The same sums as the exact code (hsic.c), each written through the
 * factors: with kd = diag K, k1 = K~ 1, T = sum_{a != b} K_ab L_ab,
 *   sum_ab K_ab L_ab = ||G'F||_F^2 (Lemma 6), T = that - kd'ld,
 *   row sums of K o L: (K o L) 1 = rowSums(G o (F M')), M = G'F (Lemma 7),
 *   K~ l1 = G (G' l1) - kd o l1, and likewise for L~ k1.
 * HSIC0 = ||(HG)'(HF)||_F^2 / (m - 1)^2 from the centred cross-product,
 * which avoids the cancellation of sum K o L - 2/m (K1)'(L1) + ... .
 * work: BK_LOWRANK_HSIC_WORK(m, r, s) doubles. */
void bk_lowrank_hsic(const double *G, ptrdiff_t m, ptrdiff_t r,
                     const double *F, ptrdiff_t s, double *out, double *work)
{
  double *kd = work, *ld = kd + m, *k1 = ld + m, *l1 = k1 + m,
         *klrow = l1 + m, *Kl = klrow + m, *Lk = Kl + m, *P = Lk + m;
  /* P (m x min(r, s)): F M' when r <= s, else G M */
  ptrdiff_t q = r <= s ? r : s;
  double *M = P + (ptrdiff_t) m * q, *Mc = M + r * s, *g1 = Mc + r * s,
         *f1 = g1 + r, *tr = f1 + s, *ts = tr + r;
  const double md = (double) m;

  factor_sums(G, m, r, g1, kd);
  factor_sums(F, m, s, f1, ld);

  /* M = G'F and the centred (HG)'(HF) = G'F - (G'1)(F'1)' / m, the latter
   * summed from the centred columns themselves */
  double sumKL = 0.0, cKL = 0.0;
  for (ptrdiff_t l = 0; l < s; l++) {
    const double *Fl = F + (ptrdiff_t) m * l;
    const double fb = f1[l] / md;
    for (ptrdiff_t k = 0; k < r; k++) {
      const double *Gk = G + (ptrdiff_t) m * k;
      const double gb = g1[k] / md;
      double u = 0.0, c = 0.0;
      BK_SIMD_SUM2(u, c)
      for (ptrdiff_t i = 0; i < m; i++) {
        u += Gk[i] * Fl[i];
        c += (Gk[i] - gb) * (Fl[i] - fb);
      }
      M[k + r * l] = u;
      Mc[k + r * l] = c;
      sumKL += u * u;
      cKL += c * c;
    }
  }

  /* k1 = K~ 1 = G (G'1) - kd, l1 likewise */
  for (ptrdiff_t i = 0; i < m; i++) k1[i] = -kd[i];
  add_cols(G, m, r, g1, 1, k1);
  for (ptrdiff_t i = 0; i < m; i++) l1[i] = -ld[i];
  add_cols(F, m, s, f1, 1, l1);

  /* klrow_a = sum_{b != a} K_ab L_ab = g_a' M f_a - kd_a ld_a */
  memset(P, 0, (size_t) (m * q) * sizeof(double));
  if (r <= s) {
    /* P = F M' (m x r), klrow_a = sum_k G_ak P_ak */
    for (ptrdiff_t k = 0; k < r; k++) add_cols(F, m, s, M + k, r, P + (ptrdiff_t) m * k);
  } else {
    /* P = G M (m x s), klrow_a = sum_l F_al P_al */
    for (ptrdiff_t l = 0; l < s; l++)
      add_cols(G, m, r, M + r * l, 1, P + (ptrdiff_t) m * l);
  }
  const double *A = r <= s ? G : F;
  for (ptrdiff_t i = 0; i < m; i++) klrow[i] = -kd[i] * ld[i];
  for (ptrdiff_t k = 0; k < q; k++) {
    const double *Ak = A + (ptrdiff_t) m * k, *Pk = P + (ptrdiff_t) m * k;
    BK_SIMD
    for (ptrdiff_t i = 0; i < m; i++) klrow[i] += Ak[i] * Pk[i];
  }

  double SK = 0.0, SL = 0.0, kl = 0.0, dd = 0.0;
  for (ptrdiff_t i = 0; i < m; i++) {
    SK += k1[i];
    SL += l1[i];
    kl += k1[i] * l1[i];
    dd += kd[i] * ld[i];
  }
  const double T = sumKL - dd;
  /* eq. (4) and eq. (5), the latter as in hsic.c's estimators() */
  out[0] = cKL / ((md - 1.0) * (md - 1.0));
  out[1] = (T + SK * SL / ((md - 1.0) * (md - 2.0)) - 2.0 * kl / (md - 2.0)) /
           (md * (md - 3.0));

  /* the variance of HSIC1: h of section 2.5 (with the (m - 2) factor of
   * the K~L~1 terms, see bk_hsic_stats()) and eq. (15) */
  offdiag_times(G, m, r, kd, l1, tr, Kl);
  offdiag_times(F, m, s, ld, k1, ts, Lk);
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
