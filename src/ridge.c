/*
 * ridge.c: BAHSIC and FOHSIC with the ridge-regression kernel on the linear
 * base (section 6.6 of 004_cafd97bfb60132b1.txt, eq. 29 and after). Numeric
 * core: no R API besides R's BLAS and LAPACK.
 *
 * For a set S with data V_S (m x s) the kernel is
 *   Kbar_S = V_S (V_S' V_S + lambda I)^-1 V_S' = I - lambda A_S,
 *   A_S = (V_S V_S' + lambda I)^-1,
 * so with the weights W of the estimator (HSIC(K) = sum(K o W))
 *   HSIC(S) = tr(W) - lambda sum(A_S o W).
 * A feature j leaves or joins by a rank-one change of V_S V_S' + lambda I;
 * with u = A_S x_j (Sherman-Morrison)
 *   A_{S - j} = A_S + u u' / (1 - x_j'u),   A_{S + j} = A_S - u u' / (1 + x_j'u),
 *   sum(A_{S -/+ j} o W) = sum(A_S o W) +/- u'Wu / (1 -/+ x_j'u),
 * so a candidate costs O(m^2): the products U = A_S X and W U for all
 * candidates at once (dsymm), then two dot products per candidate. A_S is
 * made afresh by Cholesky at every iteration (no rank-one drift). The
 * division 1 - x_j'u = 1 / (1 + x_j' A_{S-j} x_j) >= 1 / (1 + ||x_j||^2 /
 * lambda) loses relative precision of about ||x_j||^2 / lambda ulps.
 *
 * The schedule is that of bk_select_blocks() (select.c): the same batches,
 * ties (bk_sort_candidates(): the score rounded to 1e-10 of the largest, then
 * the lower column index ranks better), path rows and scores (HSIC of the
 * set after the move).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#define USE_FC_LEN_T
#include <R_ext/BLAS.h>
#include <R_ext/Lapack.h>
#ifndef FCONE
#define FCONE
#endif
#include "bahsic.h"

/* Copy the columns cols (n) of x into X (m x n). */
static void gather(const double *x, ptrdiff_t m, const int *cols, ptrdiff_t n,
                   double *X)
{
  for (ptrdiff_t i = 0; i < n; i++)
    memcpy(X + m * i, x + m * (ptrdiff_t) cols[i], (size_t) m * sizeof(double));
}

/* A = (X X' + lambda I)^-1 for X (m x n, n may be 0), full and exactly
 * symmetric; returns sum(A o W) in *aw, 0 on success, else LAPACK's info. */
static int ridge_inverse(const double *X, ptrdiff_t m, ptrdiff_t n,
                         double lambda, const double *W, double *A,
                         double *aw)
{
  int im = (int) m, in = (int) n, info = 0;
  double one = 1.0, zero = 0.0;
  if (n > 0) {
    F77_CALL(dsyrk)("U", "N", &im, &in, &one, X, &im, &zero, A, &im
                    FCONE FCONE);
  } else {
    memset(A, 0, (size_t) (m * m) * sizeof(double));
  }
  for (ptrdiff_t a = 0; a < m; a++) A[a + m * a] += lambda;
  F77_CALL(dpotrf)("U", &im, A, &im, &info FCONE);
  if (info != 0) return info;
  F77_CALL(dpotri)("U", &im, A, &im, &info FCONE);
  if (info != 0) return info;
  /* mirror the upper triangle: exactly symmetric; sum in a fixed order */
  double s = 0.0;
  for (ptrdiff_t b = 0; b < m; b++) {
    for (ptrdiff_t a = 0; a < b; a++) {
      A[b + m * a] = A[a + m * b];
      s += A[a + m * b] * (W[a + m * b] + W[b + m * a]);
    }
    s += A[b + m * b] * W[b + m * b];
  }
  *aw = s;
  return 0;
}

/* Score the candidates whose columns are X (m x n, indices cand) against the
 * set with inverse A: sgn = -1 removal, +1 addition. U, V: m x n scratch.
 * sortbuf gets (rounded score, index, score) triples, sorted by cmp. */
static void score_candidates(const double *X, ptrdiff_t m, ptrdiff_t n,
                             const int *cand, const double *A, const double *W,
                             double trW, double aw, double lambda, double sgn,
                             double *U, double *V, double *sortbuf,
                             int (*cmp)(const void *, const void *))
{
  int im = (int) m, in = (int) n;
  double one = 1.0, zero = 0.0;
  /* U = A X, V = W U */
  F77_CALL(dsymm)("L", "U", &im, &in, &one, A, &im, X, &im, &zero, U, &im
                  FCONE FCONE);
  F77_CALL(dsymm)("L", "U", &im, &in, &one, W, &im, U, &im, &zero, V, &im
                  FCONE FCONE);
  for (ptrdiff_t i = 0; i < n; i++) {
    const double *xi = X + m * i, *ui = U + m * i, *vi = V + m * i;
    double t = 0.0, q = 0.0;
    for (ptrdiff_t a = 0; a < m; a++) {
      t += xi[a] * ui[a];
      q += ui[a] * vi[a];
    }
    /* removal: + u'Wu / (1 - x'u); addition: - u'Wu / (1 + x'u) */
    double awj = aw - sgn * q / (1.0 + sgn * t);
    sortbuf[3 * i + 2] = trW - lambda * awj;
    sortbuf[3 * i + 1] = (double) cand[i];
  }
  bk_sort_candidates(sortbuf, n, cmp);
}

ptrdiff_t bk_ridge_work_doubles(ptrdiff_t m, ptrdiff_t d)
{
  return m * m + 3 * m * d + 3 * d + 8;
}

ptrdiff_t bk_ridge_work_ints(ptrdiff_t d)
{
  return 3 * d + 8;
}

ptrdiff_t bk_ridge_select(const double *x, ptrdiff_t m, ptrdiff_t d,
                          const double *W, double lambda, int backward,
                          double step, ptrdiff_t n_target, int *rank,
                          double *score, int *iter, double *path,
                          double *work, int *iwork, int *info,
                          bk_tick_fn tick, void *ctx)
{
  double *A = work, *X = A + m * m, *U = X + m * d, *V = U + m * d,
         *sortbuf = V + m * d;
  int *active = iwork, *order = iwork + d;
  ptrdiff_t np = 0, it = 0;
  double trW = 0.0, aw = 0.0;
  *info = 0;
  for (ptrdiff_t a = 0; a < m; a++) trW += W[a + m * a];
  for (ptrdiff_t j = 0; j < d; j++) {
    rank[j] = 0;
    score[j] = NAN;
    iter[j] = 0;
    active[j] = (int) j;
  }

  if (backward) {
    ptrdiff_t ns = d, nelim = 0;
    while (ns > n_target) {
      it++;
      gather(x, m, active, ns, X);
      if ((*info = ridge_inverse(X, m, ns, lambda, W, A, &aw)) != 0) return np;
      double h = trW - lambda * aw;
      bk_add_path(path, &np, it, ns, h, NAN);
      /* eliminate the largest HSIC(S \ {j}); ties: the higher index */
      score_candidates(X, m, ns, active, A, W, trW, aw, lambda, -1.0, U, V,
                       sortbuf, bk_cmp_desc_high);
      /* the empty set's kernel is 0: HSIC 0 exactly */
      if (ns == 1) sortbuf[2] = 0.0;
      ptrdiff_t k = bk_batch_size(step, ns);
      if (n_target > 0 && k > ns - n_target) k = ns - n_target;
      for (ptrdiff_t i = 0; i < k; i++) {
        int j = (int) sortbuf[3 * i + 1];
        score[j] = sortbuf[3 * i + 2];
        iter[j] = (int) it;
        order[nelim++] = j;
      }
      ptrdiff_t w = 0;
      for (ptrdiff_t i = 0; i < ns; i++)
        if (iter[active[i]] == 0) active[w++] = active[i];
      ns = w;
      if (tick) tick(ctx, it, ns + k, h, NAN);
    }
    ptrdiff_t top = 0;
    if (ns > 0) {
      /* stopped at n_target: rank the survivors by one more pass, the one
       * whose removal costs most first */
      it++;
      gather(x, m, active, ns, X);
      if ((*info = ridge_inverse(X, m, ns, lambda, W, A, &aw)) != 0) return np;
      double h = trW - lambda * aw;
      bk_add_path(path, &np, it, ns, h, NAN);
      score_candidates(X, m, ns, active, A, W, trW, aw, lambda, -1.0, U, V,
                       sortbuf, bk_cmp_asc_low);
      for (ptrdiff_t i = 0; i < ns; i++) {
        int j = (int) sortbuf[3 * i + 1];
        score[j] = sortbuf[3 * i + 2];
        iter[j] = (int) it;
        rank[j] = (int) (i + 1);
      }
      top = ns;
      if (tick) tick(ctx, it, ns, h, NAN);
    }
    for (ptrdiff_t i = 0; i < nelim; i++)
      rank[order[i]] = (int) (top + nelim - i);
    return np;
  }

  /* FOHSIC: the selected set (order[0 .. nsel - 1]) starts empty, A = I /
   * lambda */
  ptrdiff_t nsel = 0, nrem = d, target = n_target > 0 ? n_target : d;
  gather(x, m, order, 0, X);
  if ((*info = ridge_inverse(X, m, 0, lambda, W, A, &aw)) != 0) return np;
  while (nsel < target) {
    it++;
    gather(x, m, active, nrem, X);
    /* add the largest HSIC(S+ U {j}); ties: the lower index */
    score_candidates(X, m, nrem, active, A, W, trW, aw, lambda, 1.0, U, V,
                     sortbuf, bk_cmp_desc_low);
    ptrdiff_t k = bk_batch_size(step, nrem);
    if (k > target - nsel) k = target - nsel;
    for (ptrdiff_t i = 0; i < k; i++) {
      int j = (int) sortbuf[3 * i + 1];
      score[j] = sortbuf[3 * i + 2];
      iter[j] = (int) it;
      order[nsel] = j;
      rank[j] = (int) (++nsel);
    }
    ptrdiff_t w = 0;
    for (ptrdiff_t i = 0; i < nrem; i++)
      if (iter[active[i]] == 0) active[w++] = active[i];
    nrem = w;
    /* the new set's inverse afresh: its HSIC for the path, and the next
     * iteration's A */
    gather(x, m, order, nsel, X);
    if ((*info = ridge_inverse(X, m, nsel, lambda, W, A, &aw)) != 0) return np;
    double h = trW - lambda * aw;
    bk_add_path(path, &np, it, nsel, h, NAN);
    if (tick) tick(ctx, it, nsel, h, NAN);
  }
  return np;
}
