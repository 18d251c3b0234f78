/*
 * ridge.c: BAHSIC and FOHSIC with the ridge-regression kernel K (K + lambda
 * I)^-1 of a base kernel K (section 6.6 of Song et al. (2012), eq. 29
 * and after). Numeric core: no R API besides R's BLAS and LAPACK.
 *
 * For the linear base and a set S with data V_S (m x s) the kernel is
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
 * Any other base (polynomial, Gaussian, Laplace, inverse distance) has no
 * such update: every candidate set gets its Gram matrix (bk_gram()) and its
 * own Cholesky, O(m^2 s + m^3), at the iteration's width (the policies of
 * width.c).
 *
 * This is a scorer of the one selection schedule (schedule.c): the same
 * batches, ties (bk_sort_candidates(): the score rounded to 1e-10 of the
 * largest, then the lower column index ranks better), path rows and scores
 * (HSIC of the set after the move) as the other estimators. It keeps no
 * state between iterations but the set's inverse: no updates, no refresh.
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
#include "ridge.h"
#include "schedule.h"

/* Copy the columns cols (n) of x into X (m x n). */
static void gather(const double *x, ptrdiff_t m, const int *cols, ptrdiff_t n,
                   double *X)
{
  for (ptrdiff_t i = 0; i < n; i++)
    memcpy(X + m * i, x + m * (ptrdiff_t) cols[i], (size_t) m * sizeof(double));
}

/* A = (K + lambda I)^-1 for the kernel K of the rows of X (m x n, n may be
 * 0: K = 0), full and exactly symmetric; returns sum(A o W) in *aw, 0 on
 * success, else LAPACK's info. The linear base by dsyrk, any other by
 * bk_gram() at the width sigma. */
static int ridge_inverse(const double *X, ptrdiff_t m, ptrdiff_t n,
                         const bk_kernel *base, double sigma, double lambda,
                         const double *W, double *A, double *aw)
{
  int im = (int) m, in = (int) n, info = 0;
  double one = 1.0, zero = 0.0;
  *aw = 0.0;
  /* no samples: nothing to invert (LAPACK refuses a leading dimension 0) */
  if (m == 0) return 0;
  if (n == 0) {
    memset(A, 0, (size_t) (m * m) * sizeof(double));
  } else if (base->type == BK_LINEAR) {
    F77_CALL(dsyrk)("U", "N", &im, &in, &one, X, &im, &zero, A, &im
                    FCONE FCONE);
  } else {
    bk_kernel k = *base;
    if (!isnan(sigma)) k.p1 = sigma;
    bk_gram(X, m, n, &k, A, NULL, 1);
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

/* The loop's state: the data, the base kernel, the weights. */
typedef struct {
  const double *x, *W;
  ptrdiff_t m, d;
  bk_kernel base;
  double lambda, trW;
  double *A, *X, *U, *V; /* m x m, and m x d each */
  int info;
  const bk_ridge_opts *o;
  double *mwork;         /* BK_MEDIAN_WORK(m) doubles */
  double aw;             /* sum(A o W) of the set's inverse in A */
} ridge_state;

/* The linear base: score the candidates whose columns are st->X (m x n,
 * indices cand) against the set with inverse st->A (aw = sum(A o W)) by
 * Sherman-Morrison: sgn = -1 removal, +1 addition. st->U, st->V: m x n
 * scratch. sortbuf gets (., index, score) triples. */
static void score_linear(const ridge_state *st, ptrdiff_t n, const int *cand,
                         double aw, double sgn, double *sortbuf)
{
  const double *X = st->X, *A = st->A, *W = st->W;
  const double trW = st->trW, lambda = st->lambda;
  double *U = st->U, *V = st->V;
  const ptrdiff_t m = st->m;
  int im = (int) m, in = (int) n;
  double one = 1.0, zero = 0.0;
  if (m == 0) {
    for (ptrdiff_t i = 0; i < n; i++) {
      sortbuf[3 * i + 2] = trW - lambda * aw;
      sortbuf[3 * i + 1] = (double) cand[i];
    }
    return;
  }
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
}

/* HSIC of the set cols (n) at the width sigma; NaN with st->info set when
 * K + lambda I is not positive definite. Leaves the set's inverse in A and
 * its columns in X. */
static double set_hsic(ridge_state *st, const int *cols, ptrdiff_t n,
                       double sigma, double *aw)
{
  gather(st->x, st->m, cols, n, st->X);
  int info = ridge_inverse(st->X, st->m, n, &st->base, sigma, st->lambda,
                           st->W, st->A, aw);
  if (info != 0) {
    st->info = info;
    return NAN;
  }
  return st->trW - st->lambda * *aw;
}

/* Score every candidate of cand (n) against the set (its columns set, ns):
 * sgn = -1 removes the candidate (cand = set), +1 adds it. The linear base
 * by rank-one updates from the set's inverse (set_hsic() just computed, in
 * A); any other base by the inverse of every candidate set, O(m^2 s + m^3)
 * each (U holds the candidate set's columns, V its inverse). Nonzero when a
 * Cholesky failed (st->info). */
static int score_candidates(ridge_state *st, const int *set, ptrdiff_t ns,
                            const int *cand, ptrdiff_t n, double sgn,
                            double sigma, double aw, double *sortbuf)
{
  const ptrdiff_t m = st->m;
  if (st->base.type == BK_LINEAR) {
    gather(st->x, m, cand, n, st->X);
    score_linear(st, n, cand, aw, sgn, sortbuf);
  } else {
    int *cols = (int *) (sortbuf + 3 * n); /* room for ns + 1 ints */
    for (ptrdiff_t i = 0; i < n; i++) {
      ptrdiff_t nc = 0;
      for (ptrdiff_t k = 0; k < ns; k++)
        if (set[k] != cand[i] || sgn > 0) cols[nc++] = set[k];
      if (sgn > 0) cols[nc++] = cand[i];
      double h = 0.0, awj = 0.0;
      if (nc > 0) {
        gather(st->x, m, cols, nc, st->U);
        int info = ridge_inverse(st->U, m, nc, &st->base, sigma, st->lambda,
                                 st->W, st->V, &awj);
        if (info != 0) {
          st->info = info;
          return 1;
        }
        h = st->trW - st->lambda * awj;
      }
      sortbuf[3 * i + 2] = h;
      sortbuf[3 * i + 1] = (double) cand[i];
    }
  }
  return 0;
}

/* The reference set ref (nref columns) of the "optimize" policy for
 * bk_choose_width(). */
typedef struct {
  ridge_state *st;
  const int *ref;
  ptrdiff_t nref;
  double *work;
} ridge_width_ctx;

static double ridge_ref_median(void *ctx, int squared)
{
  const ridge_width_ctx *c = ctx;
  ridge_state *st = c->st;
  gather(st->x, st->m, c->ref, c->nref, st->X);
  return bk_median_pairwise(st->X, st->m, c->nref, squared, c->work, st->A);
}

static double ridge_ref_hsic(void *ctx, double sigma, int *fail)
{
  const ridge_width_ctx *c = ctx;
  double aw;
  double h = set_hsic(c->st, c->ref, c->nref, sigma, &aw);
  *fail = c->st->info != 0;
  return h;
}

/* Section 4.1, step 3 (bk_choose_width()) for a base with a width: the
 * width of an iteration whose sets have s features, "optimize" on the
 * reference set ref (nref). NaN without a width or when a Cholesky failed
 * (st->info). work: BK_MEDIAN_WORK(m) doubles. */
static double choose_sigma(ridge_state *st, const bk_ridge_opts *o,
                           ptrdiff_t s, const int *ref, ptrdiff_t nref,
                           double *work)
{
  const bk_width_policy p = {o->base.type, o->policy, o->base.p1,
                             o->grid,      o->ngrid,  o->grid_relative};
  ridge_width_ctx c = {st, ref, nref, work};
  return bk_choose_width(&p, s, ridge_ref_median, ridge_ref_hsic, &c, NULL);
}

/* ---- the hooks (bk_scorer) ---- */

static int ridge_width(void *ctx, ptrdiff_t s, const int *ref, ptrdiff_t nref,
                       int is_set, double *sigma, double *h)
{
  ridge_state *st = ctx;
  (void) is_set;
  *sigma = choose_sigma(st, st->o, s, ref, nref, st->mwork);
  *h = NAN; /* the set's inverse is needed anyway: begin() */
  return st->info != 0;
}

/* the set's inverse (for the linear base's updates; A = I / lambda for the
 * empty set) and its HSIC */
static int ridge_begin(void *ctx, double sigma, const int *set, ptrdiff_t ns,
                       double sgn, double *h)
{
  ridge_state *st = ctx;
  (void) sgn;
  double hs = set_hsic(st, set, ns, sigma, &st->aw);
  if (h) *h = hs;
  return st->info != 0;
}

static int ridge_score_all(void *ctx, double sigma, const int *set,
                           ptrdiff_t ns, const int *cand, ptrdiff_t n,
                           double sgn, double *sortbuf)
{
  ridge_state *st = ctx;
  return score_candidates(st, set, ns, cand, n, sgn, sigma, st->aw, sortbuf);
}

/* the new set's HSIC afresh for the path */
static int ridge_hsic(void *ctx, double sigma, const int *set, ptrdiff_t ns,
                      double *h)
{
  ridge_state *st = ctx;
  *h = set_hsic(st, set, ns, sigma, &st->aw);
  return st->info != 0;
}

ptrdiff_t bk_ridge_work_doubles(ptrdiff_t m, ptrdiff_t d)
{
  /* A, X, U, V; sortbuf (3 d) and the candidate set's columns; the median */
  return m * m + 3 * m * (d + 1) + m * m + 4 * d + 16 + BK_MEDIAN_WORK(m);
}

ptrdiff_t bk_ridge_work_ints(ptrdiff_t d)
{
  return 3 * d + 8;
}

ptrdiff_t bk_ridge_select(const double *x, ptrdiff_t m, ptrdiff_t d,
                          const double *W, const bk_ridge_opts *o, int *rank,
                          double *score, int *iter, double *path,
                          double *work, int *iwork, int *info,
                          bk_tick_fn tick, void *ctx)
{
  /* V holds a candidate set's m x m inverse on the non-linear path and
   * A V_S (m x d) on the linear one */
  ridge_state st = {x, W, m, d, o->base, o->lambda, 0.0, work,
                    work + m * m, NULL, NULL, 0, o, NULL, 0.0};
  st.U = st.X + m * (d + 1);
  st.V = st.U + m * (d + 1);
  double *sortbuf = st.V + (m > d + 1 ? m : d + 1) * m;
  st.mwork = sortbuf + 4 * d + 16;
  *info = 0;
  for (ptrdiff_t a = 0; a < m; a++) st.trW += W[a + m * a];
  const bk_scorer sc = {&st, ridge_width, ridge_begin, NULL,
                        NULL, ridge_score_all, NULL, NULL,
                        NULL, ridge_hsic, NULL};
  const bk_schedule_opts so = {o->backward ? BK_BACKWARD : BK_FORWARD, o->step,
                               o->n_target, 1, NULL, NULL};
  int fail;
  ptrdiff_t np = bk_schedule(&sc, d, &so, rank, score, iter, path, sortbuf,
                             iwork, &fail, tick, ctx);
  if (fail) *info = st.info;
  return np;
}
