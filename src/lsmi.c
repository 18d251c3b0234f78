/*
 * lsmi.c: least-squares mutual information (LSMI) and the gradients of
 * l1-LSMI and l1-HSIC with respect to the feature weights w. Plain C on
 * double * and ptrdiff_t sizes; R's BLAS and LAPACK for the products and
 * the b x b solves. Slide and equation references are to Jitkrittum
 * (2012), "Feature Selection via l1-penalized Squared-loss Mutual
 * Information" (slides).
 *
 * Notation (slide "LSMI"): n samples, d features, b Gaussian centres
 * c_l = x_{c(l)}; Phi_x[i, l] = exp(-||diag(w)(x_i - c_l)||^2 / (2 sigma^2)),
 * Phi_y[i, l] = delta(y_i, y_{c(l)}) (classes) or a Gaussian in y;
 * G_x = Phi_x' Phi_x, G_y = Phi_y' Phi_y, so that
 *   H = (1/n^2) sum_i sum_i' phi(x_i, y_i') phi(x_i, y_i')' = (G_x o G_y) / n^2
 *   h = (1/n) sum_i phi(x_i, y_i) = colSums(Phi_x o Phi_y) / n
 *   alpha = (H + lambda I)^{-1} h,  LSMI = h' alpha / 2 - 1/2.
 * All matrices are column-major.
 */
#define USE_FC_LEN_T
#include <R_ext/BLAS.h>
#include <R_ext/Lapack.h>
#ifndef FCONE
#define FCONE
#endif
#include <stdlib.h>
#include "lsmi.h"

/* out (n x b) = sum_j w_j^2 (x_ij - c_lj)^2; w = NULL for all ones. The
 * direct sum (not |x|^2 + |c|^2 - 2 x'c), so no cancellation: a sample that
 * is a centre gets exactly 0. */
void bk_wsqdist(const double *x, ptrdiff_t n, ptrdiff_t d, const double *c,
                ptrdiff_t b, const double *w, double *out)
{
  memset(out, 0, (size_t) (n * b) * sizeof(double));
  for (ptrdiff_t l = 0; l < b; l++) {
    double *o = out + n * l;
    for (ptrdiff_t j = 0; j < d; j++) {
      const double wj = w ? w[j] : 1.0, w2 = wj * wj;
      if (w2 == 0.0) continue;
      const double cj = c[l + b * j];
      const double *xj = x + n * j;
      BK_SIMD
      for (ptrdiff_t i = 0; i < n; i++) {
        const double t = xj[i] - cj;
        o[i] += w2 * t * t;
      }
    }
  }
}

/* phi = exp(-sq / (2 sigma^2)) elementwise, in place allowed. */
void bk_lsmi_gauss(const double *sq, ptrdiff_t len, double sigma, double *phi)
{
  const double s = -0.5 / (sigma * sigma);
  BK_SIMD
  for (ptrdiff_t i = 0; i < len; i++) phi[i] = bk_exp(s * sq[i]);
}

/* The delta kernel on classes (slide "Delta Kernel for Classification
 * Task"): phi[i, l] = 1 if cls[i] == cls[cen[l]]; cen 0-based. */
void bk_lsmi_delta(const int *cls, ptrdiff_t n, const int *cen, ptrdiff_t b,
                   double *phi)
{
  for (ptrdiff_t l = 0; l < b; l++) {
    const int cl = cls[cen[l]];
    for (ptrdiff_t i = 0; i < n; i++) phi[i + n * l] = (double) (cls[i] == cl);
  }
}

/* Interrupt checks inside the b x b products and solves, which take
 * seconds each for b in the thousands. The BLAS and LAPACK calls are split
 * into pieces of about BK_CHECK_OPS multiply-adds with a check between
 * them (pace NULL: one call, no check). The pieces are the calls the
 * reference BLAS and LAPACK make themselves, so every element is computed
 * by the same operations in the same order: the upper triangle of A'A by
 * column blocks (dsyrk on the diagonal block, dgemm above it: the same dot
 * products over the rows), and the Cholesky factor by the blocked loop of
 * the reference dpotrf (block size 64, the reference ilaenv's). An
 * optimised BLAS or LAPACK may round the pieces differently from its one
 * call, in the last bits. */
#define LSMI_POTRF_NB 64

/* the upper triangle of G (b x b) = A'A, A k x b with leading dimension lda */
static void syrk_upper(const double *A, int k, int b, int lda, double *G,
                       bk_pacer *pace)
{
  double one = 1.0, zero = 0.0;
  if (!pace) {
    F77_CALL(dsyrk)("U", "T", &b, &k, &one, A, &lda, &zero, G, &b FCONE FCONE);
    return;
  }
  /* columns j0..j0 + jb - 1 cost about (j0 + jb) jb k */
  for (int j0 = 0; j0 < b;) {
    int jb = 1;
    while (j0 + jb < b && (double) (j0 + jb) * jb * k < (double) BK_CHECK_OPS)
      jb++;
    const double *Aj = A + (ptrdiff_t) lda * j0;
    double *Gj = G + (ptrdiff_t) b * j0;
    F77_CALL(dsyrk)("U", "T", &jb, &k, &one, Aj, &lda, &zero, Gj + j0, &b
                    FCONE FCONE);
    if (j0 > 0)
      F77_CALL(dgemm)("T", "N", &j0, &jb, &k, &one, A, &lda, Aj, &lda, &zero,
                      Gj, &b FCONE FCONE);
    bk_pace(pace, (ptrdiff_t) (j0 + jb) * jb * k);
    j0 += jb;
  }
}

/* dpotrf("U") of A (b x b), checks between its blocks; LAPACK's info */
static int potrf_upper(double *A, int b, bk_pacer *pace)
{
  int info = 0;
  if (!pace || b <= LSMI_POTRF_NB) {
    F77_CALL(dpotrf)("U", &b, A, &b, &info FCONE);
    return info;
  }
  double one = 1.0, mone = -1.0;
  for (int j = 0; j < b; j += LSMI_POTRF_NB) {
    int jb = b - j < LSMI_POTRF_NB ? b - j : LSMI_POTRF_NB, rest = b - j - jb;
    double *Aj = A + (ptrdiff_t) b * j, *Ajj = Aj + j;
    F77_CALL(dsyrk)("U", "T", &jb, &j, &mone, Aj, &b, &one, Ajj, &b
                    FCONE FCONE);
    /* a block of at most the block size: dpotrf's unblocked code */
    F77_CALL(dpotrf)("U", &jb, Ajj, &b, &info FCONE);
    if (info != 0) return info + j;
    if (rest > 0) {
      double *Ar = A + (ptrdiff_t) b * (j + jb);
      F77_CALL(dgemm)("T", "N", &jb, &rest, &j, &mone, Aj, &b, Ar, &b, &one,
                      Ar + j, &b FCONE FCONE);
      F77_CALL(dtrsm)("L", "U", "T", "N", &jb, &rest, &one, Ajj, &b, Ar + j, &b
                      FCONE FCONE FCONE FCONE);
    }
    bk_pace(pace, (ptrdiff_t) jb * (b - j) * (j + jb));
  }
  return 0;
}

/* G (b x b, full) = Phi[rows, ]' Phi[rows, ] and hsum (b) = colSums of
 * (Phi_x o Phi_y)[rows, ] if phiy != NULL; rows NULL for all n rows.
 * work: n * b doubles (the gathered rows). */
static void gram_rows(const double *phi, ptrdiff_t n, ptrdiff_t b,
                      const int *rows, ptrdiff_t nr, double *G, double *work,
                      bk_pacer *pace)
{
  const double *src = phi;
  ptrdiff_t ld = n;
  if (rows) {
    for (ptrdiff_t l = 0; l < b; l++)
      for (ptrdiff_t r = 0; r < nr; r++) work[r + nr * l] = phi[rows[r] + n * l];
    src = work;
    ld = nr;
  }
  syrk_upper(src, (int) nr, (int) b, (int) ld, G, pace);
  for (ptrdiff_t j = 0; j < b; j++)
    for (ptrdiff_t i = j + 1; i < b; i++) G[i + b * j] = G[j + b * i];
}

static void hsum_rows(const double *phix, const double *phiy, ptrdiff_t n,
                      ptrdiff_t b, const int *rows, ptrdiff_t nr, double *h)
{
  for (ptrdiff_t l = 0; l < b; l++) {
    const double *px = phix + n * l, *py = phiy + n * l;
    double s = 0.0;
    if (rows) {
      for (ptrdiff_t r = 0; r < nr; r++) s += px[rows[r]] * py[rows[r]];
    } else {
      for (ptrdiff_t i = 0; i < n; i++) s += px[i] * py[i];
    }
    h[l] = s;
  }
}

/* alpha = ((Gx o Gy) / nn + lambda I)^{-1} h (slide "LSMI": the analytic
 * minimiser of 1/2 a'Ha - h'a + lambda a'a as the slide writes it,
 * alpha = (H + lambda I)^{-1} h). A: b * b doubles of work. Returns LAPACK's
 * info (0 on success). */
static int solve_ck(const double *Gx, const double *Gy, ptrdiff_t b,
                    double nn, const double *h, double lambda, double *A,
                    double *alpha, bk_pacer *pace)
{
  const ptrdiff_t bb = b * b;
  for (ptrdiff_t k = 0; k < bb; k++) A[k] = Gx[k] * Gy[k] / nn;
  for (ptrdiff_t l = 0; l < b; l++) A[l + b * l] += lambda;
  memcpy(alpha, h, (size_t) b * sizeof(double));
  int ib = (int) b, one = 1, info = 0;
  if (!pace) {
    F77_CALL(dposv)("U", &ib, &one, A, &ib, alpha, &ib, &info FCONE);
    return info;
  }
  /* dposv is dpotrf, then dpotrs when the factor exists */
  info = potrf_upper(A, ib, pace);
  if (info == 0)
    F77_CALL(dpotrs)("U", &ib, &one, A, &ib, alpha, &ib, &info FCONE);
  return info;
}

int bk_lsmi_solve(const double *Gx, const double *Gy, ptrdiff_t b, double nn,
                  const double *h, double lambda, double *A, double *alpha)
{
  return solve_ck(Gx, Gy, b, nn, h, lambda, A, alpha, NULL);
}

/* LSMI from the design matrices (slide "LSMI"): out[0] = the estimate,
 * alpha (b) and h (b) filled. work: 3 b^2 doubles. */
int bk_lsmi_fit(const double *phix, const double *phiy, ptrdiff_t n,
                ptrdiff_t b, double lambda, double *alpha, double *h,
                double *out, double *work, bk_pacer *pace)
{
  double *Gx = work, *Gy = work + b * b, *A = work + 2 * b * b;
  gram_rows(phix, n, b, NULL, n, Gx, NULL, pace);
  gram_rows(phiy, n, b, NULL, n, Gy, NULL, pace);
  hsum_rows(phix, phiy, n, b, NULL, n, h);
  for (ptrdiff_t l = 0; l < b; l++) h[l] /= (double) n;
  int info = solve_ck(Gx, Gy, b, (double) n * (double) n, h, lambda, A, alpha,
                      pace);
  double v = 0.0;
  for (ptrdiff_t l = 0; l < b; l++) v += h[l] * alpha[l];
  out[0] = 0.5 * v - 0.5;
  return info;
}

ptrdiff_t bk_lsmi_cv_work(ptrdiff_t n, ptrdiff_t b, ptrdiff_t K)
{
  return 2 * n * b + (2 * K + 6) * b * b + (K + 3) * b;
}

/* K-fold cross-validation of (sigma, lambda) (slide "Model Selection by
 * Cross Validation"): for each fold k, H and h from S_k, alpha from the
 * other folds, J_k = alpha' H_k alpha / 2 - h_k' alpha; score[s + ns * l]
 * is the mean of J_k over the folds for sigmas[s], lambdas[l] (smaller is
 * better). The Gram matrices over the training folds are the totals minus
 * the test fold's, since G = Phi'Phi is a sum over samples.
 * sqx: n x b weighted squared distances to the centres; phiy: n x b fixed
 * outcome basis; fold: 0..K-1, every fold non-empty with fewer than n
 * samples, n <= INT_MAX. work: bk_lsmi_cv_work(n, b, K) doubles, iwork:
 * n + K + 1 ints.
 * Returns the first non-zero LAPACK info, or 0. */
int bk_lsmi_cv(const double *sqx, const double *phiy, ptrdiff_t n, ptrdiff_t b,
               const int *fold, int K, const double *sigmas, ptrdiff_t ns,
               const double *lambdas, ptrdiff_t nl, double *score, double *work,
               int *iwork, bk_pacer *pace)
{
  const ptrdiff_t bb = b * b;
  double *phix = work, *gather = phix + n * b;
  double *GxK = gather + n * b, *GyK = GxK + K * bb;
  double *Gxa = GyK + K * bb, *Gya = Gxa + bb, *Gxt = Gya + bb, *Gyt = Gxt + bb;
  double *A = Gyt + bb, *Hk = A + bb;
  double *hK = Hk + bb, *ha = hK + K * b, *ht = ha + b, *alpha = ht + b;
  int *rows = iwork, *start = iwork + n;
  /* rows grouped by fold */
  int pos = 0;
  for (int k = 0; k < K; k++) {
    start[k] = pos;
    for (ptrdiff_t i = 0; i < n; i++)
      if (fold[i] == k) rows[pos++] = (int) i;
  }
  start[K] = pos;
  int info = 0;
  memset(score, 0, (size_t) (ns * nl) * sizeof(double));
  memset(Gya, 0, (size_t) bb * sizeof(double));
  for (int k = 0; k < K; k++) {
    gram_rows(phiy, n, b, rows + start[k], start[k + 1] - start[k], GyK + k * bb,
              gather, pace);
    for (ptrdiff_t q = 0; q < bb; q++) Gya[q] += GyK[k * bb + q];
  }
  for (ptrdiff_t s = 0; s < ns; s++) {
    bk_lsmi_gauss(sqx, n * b, sigmas[s], phix);
    memset(Gxa, 0, (size_t) bb * sizeof(double));
    memset(ha, 0, (size_t) b * sizeof(double));
    for (int k = 0; k < K; k++) {
      const ptrdiff_t nk = start[k + 1] - start[k];
      gram_rows(phix, n, b, rows + start[k], nk, GxK + k * bb, gather, pace);
      hsum_rows(phix, phiy, n, b, rows + start[k], nk, hK + k * b);
      for (ptrdiff_t q = 0; q < bb; q++) Gxa[q] += GxK[k * bb + q];
      for (ptrdiff_t l = 0; l < b; l++) ha[l] += hK[k * b + l];
    }
    for (int k = 0; k < K; k++) {
      const double nk = (double) (start[k + 1] - start[k]), nt = (double) n - nk;
      const double *Gxk = GxK + k * bb, *Gyk = GyK + k * bb, *hk = hK + k * b;
      for (ptrdiff_t q = 0; q < bb; q++) {
        Gxt[q] = Gxa[q] - Gxk[q];
        Gyt[q] = Gya[q] - Gyk[q];
        Hk[q] = Gxk[q] * Gyk[q] / (nk * nk);
      }
      for (ptrdiff_t l = 0; l < b; l++) ht[l] = (ha[l] - hk[l]) / nt;
      for (ptrdiff_t li = 0; li < nl; li++) {
        int inf = solve_ck(Gxt, Gyt, b, nt * nt, ht, lambdas[li], A, alpha,
                           pace);
        if (inf != 0 && info == 0) info = inf;
        /* J_k = alpha' H_k alpha / 2 - h_k' alpha */
        double quad = 0.0, lin = 0.0;
        for (ptrdiff_t j = 0; j < b; j++) {
          double t = 0.0;
          for (ptrdiff_t i = 0; i < b; i++) t += Hk[i + b * j] * alpha[i];
          quad += t * alpha[j];
          lin += hk[j] / nk * alpha[j];
        }
        score[s + ns * li] += (0.5 * quad - lin) / (double) K;
        bk_pace(pace, 2 * bb);
      }
    }
  }
  return info;
}

ptrdiff_t bk_lsmi_grad_work(ptrdiff_t n, ptrdiff_t d, ptrdiff_t b)
{
  return 2 * n * b + n * d + 3 * b * b + 2 * b + n;
}

/* LSMI of diag(w) x and its gradient in w at fixed (sigma, lambda) (the
 * gradient step of the slide "Gradient Projection Algorithm to Solve
 * l1-LSMI"). With A = H + lambda I and A alpha = h,
 *   dLSMI/dw_j = dh' alpha - alpha' dH alpha / 2,
 *   dPhi_x[i, l]/dw_j = -Phi_x[i, l] w_j D_j[i, l] / sigma^2,
 *   D_j[i, l] = (x_ij - c_lj)^2,
 * so dLSMI/dw_j = -(w_j / sigma^2) sum_il M[i, l] D_j[i, l] with
 *   M = (alpha' o Phi_x o Phi_y) / n - Phi_x o (Phi_x B) / n^2,
 *   B = diag(alpha) G_y diag(alpha),
 * and sum_il M D_j = sum_i x_ij^2 r_i - 2 sum_i x_ij (M C)_ij
 *   + sum_l c_lj^2 s_l (r, s the row and column sums of M): two products,
 * O(n b (b + d)) for all d coordinates. phiy, Gy = Phi_y'Phi_y: fixed (they
 * do not depend on w). cen: b x d centre matrix. out[0] = LSMI.
 * work: bk_lsmi_grad_work(n, d, b) doubles. Returns LAPACK's info. */
int bk_lsmi_grad(const double *x, ptrdiff_t n, ptrdiff_t d, const double *cen,
                 ptrdiff_t b, const double *w, double sigma, double lambda,
                 const double *phiy, const double *Gy, double *grad, double *out,
                 double *work)
{
  double *phix = work, *M = phix + n * b, *MC = M + n * b, *Gx = MC + n * d;
  double *A = Gx + b * b, *B = A + b * b, *h = B + b * b, *alpha = h + b;
  double *r = alpha + b;
  const double nd = (double) n, s2 = sigma * sigma;
  bk_wsqdist(x, n, d, cen, b, w, phix);
  bk_lsmi_gauss(phix, n * b, sigma, phix);
  gram_rows(phix, n, b, NULL, n, Gx, NULL, NULL);
  hsum_rows(phix, phiy, n, b, NULL, n, h);
  for (ptrdiff_t l = 0; l < b; l++) h[l] /= nd;
  int info = bk_lsmi_solve(Gx, Gy, b, nd * nd, h, lambda, A, alpha);
  double v = 0.0;
  for (ptrdiff_t l = 0; l < b; l++) v += h[l] * alpha[l];
  out[0] = 0.5 * v - 0.5;
  if (info != 0) return info;
  for (ptrdiff_t j = 0; j < b; j++)
    for (ptrdiff_t i = 0; i < b; i++) B[i + b * j] = alpha[i] * Gy[i + b * j] * alpha[j];
  /* M <- Phi_x B, then M <- Phi_x o (alpha' o Phi_y / n - M / n^2) */
  int in = (int) n, ib = (int) b, id = (int) d;
  double one = 1.0, zero = 0.0;
  F77_CALL(dgemm)("N", "N", &in, &ib, &ib, &one, phix, &in, B, &ib, &zero, M, &in
                  FCONE FCONE);
  for (ptrdiff_t l = 0; l < b; l++) {
    const double al = alpha[l] / nd, inv = 1.0 / (nd * nd);
    double *Ml = M + n * l;
    const double *px = phix + n * l, *py = phiy + n * l;
    for (ptrdiff_t i = 0; i < n; i++) Ml[i] = px[i] * (al * py[i] - inv * Ml[i]);
  }
  F77_CALL(dgemm)("N", "N", &in, &id, &ib, &one, M, &in, cen, &ib, &zero, MC, &in
                  FCONE FCONE);
  /* r: row sums of M; h (no longer needed) becomes its column sums */
  memset(r, 0, (size_t) n * sizeof(double));
  for (ptrdiff_t l = 0; l < b; l++) {
    const double *Ml = M + n * l;
    double cs = 0.0;
    for (ptrdiff_t i = 0; i < n; i++) {
      r[i] += Ml[i];
      cs += Ml[i];
    }
    h[l] = cs;
  }
  for (ptrdiff_t j = 0; j < d; j++) {
    const double *xj = x + n * j, *mcj = MC + n * j;
    double sx = 0.0, sc = 0.0;
    for (ptrdiff_t i = 0; i < n; i++) sx += xj[i] * (xj[i] * r[i] - 2.0 * mcj[i]);
    for (ptrdiff_t l = 0; l < b; l++) {
      const double c = cen[l + b * j];
      sc += c * c * h[l];
    }
    grad[j] = -(w[j] / s2) * (sx + sc);
  }
  return 0;
}

ptrdiff_t bk_l1hsic_grad_work(ptrdiff_t m, ptrdiff_t d)
{
  return m * m + m * d + m;
}

/* The one loop of bk_l1hsic_grad() and bk_hsic_vgrad(). part: 0 uses W,
 * 1 its positive part max(W, 0), -1 its negative part min(W, 0) (the convex
 * and concave halves of appendix A of Song et al. (2012)). wrt_v: 0
 * for the gradient in w, 1 for the gradient in v = w o w,
 *   dHSIC/dv_j = -gamma sum_ab Q_ab (x_aj - x_bj)^2,
 * which stays finite and informative at w_j = 0. The exponentials may be
 * computed by nthreads threads (elementwise, so the numbers do not depend
 * on it); every sum runs in one fixed order. */
static void hsic_wgrad(const double *x, ptrdiff_t m, ptrdiff_t d, const double *w,
                       double gamma, const double *W, int part, int wrt_v, int nthreads,
                       double *grad, double *out, double *work)
{
  double *Q = work, *QX = Q + m * m, *r = QX + m * d;
  bk_wsqdist(x, m, d, x, m, w, Q);
  const ptrdiff_t mm = m * m;
  double v = 0.0;
  /* elementwise (the same numbers for any nthreads), then summed in one
   * fixed order */
  (void) nthreads; /* without OpenMP */
  /* threads for enough work only (an exponential per pair) */
  const int par = nthreads > 1 && (double) mm >= BK_PAR_MIN_PAIRS / 8.0;
  (void) par;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(nthreads) if (par)
#endif
  for (ptrdiff_t bcol = 0; bcol < m; bcol++) {
    double *Qb = Q + m * bcol;
    const double *Wb = W + m * bcol;
    for (ptrdiff_t a = 0; a < m; a++) {
      double wab = Wb[a];
      if (part > 0 && wab < 0.0) wab = 0.0;
      if (part < 0 && wab > 0.0) wab = 0.0;
      Qb[a] = wab == 0.0 ? 0.0 : wab * bk_exp(-gamma * Qb[a]);
    }
  }
  for (ptrdiff_t k = 0; k < mm; k++) v += Q[k];
  out[0] = v;
  for (ptrdiff_t a = 0; a < m; a++) r[a] = 0.0;
  for (ptrdiff_t bcol = 0; bcol < m; bcol++) {
    const double *Qb = Q + m * bcol;
    for (ptrdiff_t a = 0; a < m; a++) r[a] += Qb[a];
  }
  int im = (int) m, id = (int) d;
  double one = 1.0, zero = 0.0;
  F77_CALL(dgemm)("N", "N", &im, &id, &im, &one, Q, &im, x, &im, &zero, QX, &im
                  FCONE FCONE);
  for (ptrdiff_t j = 0; j < d; j++) {
    const double *xj = x + m * j, *qj = QX + m * j;
    double s = 0.0;
    for (ptrdiff_t a = 0; a < m; a++) s += xj[a] * (xj[a] * r[a] - qj[a]);
    grad[j] = wrt_v ? -2.0 * gamma * s : -4.0 * gamma * w[j] * s;
  }
}

/* Biased HSIC of diag(w) x, HSIC0 = sum_ab W_ab K_ab with W = HLH/(m-1)^2
 * (slide "HSIC"; weight_matrix() in R), K_ab = exp(-gamma sum_j w_j^2
 * (x_aj - x_bj)^2), and its gradient
 *   dHSIC/dw_j = -2 gamma w_j sum_ab Q_ab (x_aj - x_bj)^2,  Q = W o K,
 *              = -4 gamma w_j (sum_a x_aj^2 r_a - sum_a x_aj (Q x)_aj),
 * r the row sums of Q (W symmetric). out[0] = HSIC0.
 * work: bk_l1hsic_grad_work(m, d) doubles. */
void bk_l1hsic_grad(const double *x, ptrdiff_t m, ptrdiff_t d, const double *w,
                    double gamma, const double *W, double *grad, double *out,
                    double *work)
{
  hsic_wgrad(x, m, d, w, gamma, W, 0, 0, 1, grad, out, work);
}

/* sum_ab W'_ab K_ab(w) as bk_l1hsic_grad(), W' = W, max(W, 0) or min(W, 0)
 * for part = 0, 1, -1, and its gradient in v = w o w (hsic_wgrad()), for
 * the feature weighting of appendix A (hsic_weights() in R). W symmetric.
 * work: bk_l1hsic_grad_work(m, d) doubles. */
void bk_hsic_vgrad(const double *x, ptrdiff_t m, ptrdiff_t d, const double *w,
                   double gamma, const double *W, int part, int nthreads, double *grad,
                   double *out, double *work)
{
  hsic_wgrad(x, m, d, w, gamma, W, part, 1, nthreads, grad, out, work);
}

static int cmp_desc(const void *a, const void *b)
{
  const double x = *(const double *) a, y = *(const double *) b;
  return (x < y) - (x > y);
}

/* Euclidean projection of v onto the positive l1 ball {w >= 0, 1'w <= z}
 * (pi_z of the slide "Gradient Projection Algorithm"): the positive part of
 * v if its sum is at most z, else max(v - theta, 0) with theta such that
 * the sum is z (Duchi, Shalev-Shwartz, Singer and Chandra 2008, Figure 1).
 * work: d doubles. */
void bk_l1ball_project(const double *v, ptrdiff_t d, double z, double *w,
                       double *work)
{
  double sum = 0.0;
  ptrdiff_t np = 0;
  for (ptrdiff_t j = 0; j < d; j++) {
    if (v[j] > 0.0) {
      sum += v[j];
      work[np++] = v[j];
    }
  }
  double theta = 0.0;
  if (sum > z) {
    qsort(work, (size_t) np, sizeof(double), cmp_desc);
    double cum = 0.0;
    for (ptrdiff_t k = 0; k < np; k++) {
      cum += work[k];
      const double t = (cum - z) / (double) (k + 1);
      if (work[k] - t > 0.0) theta = t;
    }
  }
  for (ptrdiff_t j = 0; j < d; j++) {
    const double t = v[j] - theta;
    w[j] = t > 0.0 ? t : 0.0;
  }
}
