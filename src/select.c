/*
 * select.c: BAHSIC (Algorithm 1) and FOHSIC (Algorithm 2) of
 * Song et al. (2012), section 4. Numeric core: no R API.
 *
 * Both estimators are linear in the data kernel, HSIC(K) = sum(K o W) with W
 * made once from the labels (weight_matrix() in R), so a candidate set costs
 * one pass over the m (m - 1) / 2 pairs. The kernels depend on the features
 * through a sum over them: squared distances for the Gaussian, Laplace and
 * inverse-distance kernels, inner products for the polynomial kernel. The
 * sum Q over the current set is kept (packed upper triangle) and updated as
 * features leave (BAHSIC) or join (FOHSIC); a candidate j is then scored
 * from Q -/+ q_j(a, b) in the same pass that evaluates the kernel, so no Gram
 * matrix is ever rebuilt.
 *
 * The clinical kernel (BK_CLINICAL, eq. 3-4 of Paul and Dupont (2014)) is
 * the average of per-feature kernels K_f, so HSIC(S) = sum_{f in S} t_f / |S|
 * with t_f = sum(K_f o W): the t_f are computed once (bk_clinical_dot(), one
 * pass over the pairs per feature) and a candidate is then scored exactly in
 * O(1), (T - t_j) / (s - 1) on removal and (T + t_j) / (s + 1) on addition,
 * T the sum over the current set of size s. The loops below are the same.
 *
 * approx = "block" (Zaremba et al. 2013) is the same loop over a list of
 * sample blocks: Q and W hold the pairs within each block only, so a
 * candidate costs O(m B); the exact estimator is the one block of all m
 * samples.
 *
 * approx = "rff" (Rahimi and Recht 2007) keeps instead the projections
 * P = X_S Omega_S' (m x D) of the current set on D standard frequencies,
 * updated as features leave or join (O(m D) per feature); a candidate is
 * P -/+ x_j omega_j', scaled by the iteration's width, mapped to the random
 * features Z = sqrt(2 / D) cos(. + b) and scored against the label factor F
 * by bk_lowrank_hsic() (lowrank.c), O(m D s).
 *
 * approx = "ichol" (BAHSIC) runs bk_ichol() on the surviving set at the
 * start of each iteration (section 2.6: pivoted incomplete Cholesky, which
 * with r pivots is the Nystrom approximation on them) and keeps the sums Q
 * between every sample and the r pivots (m x r); a candidate updates them
 * (O(m r)), evaluates its kernel columns at the pivots and factors them by
 * the Cholesky steps in the same pivot order (O(m r^2)), and is scored by
 * bk_lowrank_hsic().
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bahsic.h"

#ifdef _OPENMP
#include <omp.h>
static int thread_id(void) { return omp_get_thread_num(); }
#else
static int thread_id(void) { return 0; }
#endif

#define PAIRS(m) ((m) * ((m) - 1) / 2)

/* Threads pay off only for enough work: a parallel region costs a few
 * microseconds, and much more on a busy machine, where idle threads spin. */
#define BK_PAR_MIN_PAIRS 1000000.0

typedef struct {
  const double *x;
  ptrdiff_t m, d;    /* m: rows of x (all blocks) */
  /* the blocks of samples: block k is rows row0[k] .. row0[k + 1] - 1 of x,
   * its pairs at pair0[k] .. pair0[k + 1] - 1 of Q and Wp (the exact
   * estimator: one block of all m samples) */
  ptrdiff_t nblk;
  const ptrdiff_t *row0, *pair0;
  int dist;          /* Q holds squared distances (1) or inner products (0) */
  bk_kernel kern;
  double *Q, *Qd;    /* packed pairs a < b; diagonal (inner products only) */
  const double *Wp, *Wd; /* packed off-diagonal and diagonal of W */
  bk_gauss_pass_fn pass; /* the Gaussian candidate loop for this iteration */
  /* BK_CLINICAL: per-feature t_f, their sum T over the current set, its size */
  const double *t;
  double T;
  ptrdiff_t s;
  /* approx = "rff": the projections P (m x D) of the current set instead of
   * Q (NULL on the pairs paths) */
  const bk_rff_select *rff;
  /* approx = "ichol" (BAHSIC): the pivots of the current set, NULL else */
  const bk_ichol_select *ic;
} sel_state;

/* kernel of a value of Q: the table's (bk_kernel_eval(), which clamps
 * the distance kernels' Q at 0: downdates can leave -1e-16) */
static inline double kvalue(const bk_kernel *k, double sigma, double q)
{
  return bk_kernel_eval(k->type, bk_kernel_has_width(k->type) ? sigma : k->p1,
                        k->p2, q);
}

/* approx = "rff": HSIC of the set whose projections are st->rff->P changed
 * by sgn x_j omega_j' (j < 0: the set itself). buf: bk_rff_select_work()
 * doubles of this thread. The frequencies scale with the width: N(0, 2 sigma)
 * for the Gaussian kernel exp(-sigma ||.||^2), sigma times a Cauchy draw for
 * the Laplace kernel exp(-sigma ||.||). */
static double rff_hsic(const sel_state *st, double sigma, ptrdiff_t j,
                       double sgn, double *buf)
{
  const bk_rff_select *r = st->rff;
  const ptrdiff_t m = st->m, D = r->D;
  const double c = bk_kernel_has(st->kern.type, BK_KPROP_SQUARED)
                       ? sqrt(2.0 * sigma)
                       : sigma,
               norm = sqrt(2.0 / (double) D);
  const double *xj = j >= 0 ? st->x + m * j : NULL;
  double *Z = buf, out[3];
  for (ptrdiff_t k = 0; k < D; k++) {
    const double *Pk = r->P + m * k;
    double *Zk = Z + m * k;
    const double w = xj ? sgn * r->omega[k + D * j] : 0.0, b = r->phase[k];
    if (xj) {
      for (ptrdiff_t a = 0; a < m; a++) Zk[a] = norm * cos(c * (Pk[a] + w * xj[a]) + b);
    } else {
      for (ptrdiff_t a = 0; a < m; a++) Zk[a] = norm * cos(c * Pk[a] + b);
    }
  }
  bk_lowrank_hsic(Z, m, D, r->F, r->s, out, Z + m * D);
  return out[r->unbiased ? 1 : 0];
}

/* q_j(a, p) of feature column xj: squared difference or product */
static inline double qpair(int dist, double u, double v)
{
  return dist ? (u - v) * (u - v) : u * v;
}

/* approx = "ichol", at the start of a BAHSIC round over the ns features of
 * active at the width sigma: the pivots of bk_ichol() on the set, its
 * factor G0 (for the set's own HSIC) and the sums Qmp (m x r) of q_j
 * between every sample and every pivot over the set. */
static void ichol_prepare(const sel_state *st, double sigma, const int *active,
                          ptrdiff_t ns, int nthreads)
{
  const bk_ichol_select *c = st->ic;
  const ptrdiff_t m = st->m;
  bk_kernel k = st->kern;
  if (bk_kernel_has_width(k.type)) k.p1 = sigma;
  for (ptrdiff_t i = 0; i < ns; i++)
    memcpy(c->xbuf + m * i, st->x + m * active[i], (size_t) m * sizeof(double));
  *c->r = bk_ichol(c->xbuf, m, ns, &k, c->tol, c->max_rank, c->G0, c->piv,
                   c->res);
  const ptrdiff_t r = *c->r;
  const int dist = st->dist;
  const int par = nthreads > 1 && (double) m * (double) r * (double) ns >=
                                      BK_PAR_MIN_PAIRS;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(nthreads) if (par)
#endif
  for (ptrdiff_t l = 0; l < r; l++) {
    double *Ql = c->Qmp + m * l;
    const ptrdiff_t p = c->piv[l];
    memset(Ql, 0, (size_t) m * sizeof(double));
    for (ptrdiff_t i = 0; i < ns; i++) {
      const double *xj = c->xbuf + m * i, xp = xj[p];
      for (ptrdiff_t a = 0; a < m; a++) Ql[a] += qpair(dist, xj[a], xp);
    }
  }
  (void) par;
}

/* approx = "ichol": HSIC of the current set with feature j removed (j < 0:
 * the set itself, from G0). The kernel columns at the pivots, then the
 * Cholesky steps of bk_ichol() in its pivot order (a pivot whose residual
 * is <= tol times the largest pivot diagonal is left out), then
 * bk_lowrank_hsic(). buf: bk_ichol_select_work() doubles of this thread. */
static double ichol_hsic(const sel_state *st, double sigma, ptrdiff_t j,
                         double sgn, double *buf)
{
  const bk_ichol_select *c = st->ic;
  const ptrdiff_t m = st->m, r = *c->r;
  double out[3];
  if (j < 0) {
    bk_lowrank_hsic(c->G0, m, r, c->F, c->s, out, buf);
    return out[c->unbiased ? 1 : 0];
  }
  const double *xj = st->x + m * j;
  double *K = buf, *G = K + m * r, *work = G + m * r;
  double dmax = 0.0;
  for (ptrdiff_t l = 0; l < r; l++) {
    const ptrdiff_t p = c->piv[l];
    const double *Ql = c->Qmp + m * l;
    double *Kl = K + m * l;
    const double xp = xj[p];
    for (ptrdiff_t a = 0; a < m; a++)
      Kl[a] = kvalue(&st->kern, sigma, Ql[a] + sgn * qpair(st->dist, xj[a], xp));
    dmax = Kl[p] > dmax ? Kl[p] : dmax;
  }
  const double stop = c->tol * dmax;
  ptrdiff_t q = 0; /* columns kept */
  for (ptrdiff_t l = 0; l < r; l++) {
    const ptrdiff_t p = c->piv[l];
    double *col = G + m * q;
    memcpy(col, K + m * l, (size_t) m * sizeof(double));
    for (ptrdiff_t t = 0; t < q; t++) {
      const double *Gt = G + m * t;
      const double g = Gt[p];
      BK_SIMD
      for (ptrdiff_t a = 0; a < m; a++) col[a] -= Gt[a] * g;
    }
    const double res = col[p];
    if (!(res > stop) || !(res > 0.0)) continue;
    const double diag = sqrt(res), inv = 1.0 / diag;
    BK_SIMD
    for (ptrdiff_t a = 0; a < m; a++) col[a] *= inv;
    /* the rows of the earlier pivots are 0 in exact arithmetic */
    for (ptrdiff_t t = 0; t < l; t++) col[c->piv[t]] = 0.0;
    col[p] = diag;
    q++;
  }
  bk_lowrank_hsic(G, m, q, c->F, c->s, out, work);
  return out[c->unbiased ? 1 : 0];
}

/* HSIC of the set whose Q is st->Q changed by sgn times feature column xj
 * (xj = NULL: the set itself):
 *   sum_a W_aa k_aa + 2 sum_{a<b} W_ab k(Q_ab + sgn q_j(a, b)). */
static double set_hsic(const sel_state *st, double sigma, const double *xj,
                       double sgn)
{
  const ptrdiff_t m = st->m;
  if (st->kern.type == BK_CLINICAL) /* the set itself; candidates: below */
    return st->s > 0 ? st->T / (double) st->s : 0.0;
  if (st->rff) /* the set itself, on the main thread */
    return rff_hsic(st, sigma, -1, 0.0, st->rff->zwork);
  if (st->ic) return ichol_hsic(st, sigma, -1, 0.0, st->ic->zwork);
  double off = 0.0, diag = 0.0;

  /* the block estimator is linear in the kernel too: the sum over the
   * blocks of sum(K_b o W_b), W_b already divided by the number of blocks */
  for (ptrdiff_t k = 0; k < st->nblk; k++) {
    const ptrdiff_t mb = st->row0[k + 1] - st->row0[k];
    const double *q = st->Q + st->pair0[k], *w = st->Wp + st->pair0[k];
    const double *xk = xj ? xj + st->row0[k] : NULL;
    double ob = 0.0;
    if (st->kern.type == BK_GAUSSIAN && xk) {
      ob = st->pass(q, w, xk, mb, -sigma, sgn);
    } else if (st->kern.type == BK_GAUSSIAN) {
      const double ns = -sigma;
      for (ptrdiff_t b = 1; b < mb; b++) {
        double t = 0.0;
        BK_SIMD_SUM(t)
        for (ptrdiff_t a = 0; a < b; a++) t += w[a] * bk_exp(ns * q[a]);
        ob += t;
        q += b;
        w += b;
      }
    } else {
      for (ptrdiff_t b = 1; b < mb; b++) {
        const double xb = xk ? xk[b] : 0.0;
        double t = 0.0;
        for (ptrdiff_t a = 0; a < b; a++) {
          double v = q[a];
          if (xk)
            v += sgn * (st->dist ? (xk[a] - xb) * (xk[a] - xb) : xk[a] * xb);
          t += w[a] * kvalue(&st->kern, sigma, v);
        }
        ob += t;
        q += b;
        w += b;
      }
    }
    off += ob;
  }
  if (st->dist) {
    /* k(x, x) is the same for every sample: k(0) tr W */
    double k0 = kvalue(&st->kern, sigma, 0.0), tr = 0.0;
    for (ptrdiff_t a = 0; a < m; a++) tr += st->Wd[a];
    diag = k0 * tr;
  } else {
    for (ptrdiff_t a = 0; a < m; a++) {
      double v = st->Qd[a];
      if (xj) v += sgn * xj[a] * xj[a];
      diag += st->Wd[a] * kvalue(&st->kern, sigma, v);
    }
  }
  return diag + 2.0 * off;
}

/* HSIC of the current set with feature j removed (sgn = -1) or added */
static double candidate_hsic(const sel_state *st, double sigma, ptrdiff_t j,
                             double sgn)
{
  if (st->rff)
    return rff_hsic(st, sigma, j, sgn,
                    st->rff->zwork + (ptrdiff_t) thread_id() * st->rff->stride);
  if (st->ic)
    return ichol_hsic(st, sigma, j, sgn,
                      st->ic->zwork + (ptrdiff_t) thread_id() * st->ic->stride);
  if (st->kern.type == BK_CLINICAL) {
    const double s = (double) st->s + sgn;
    return s > 0.0 ? (st->T + sgn * st->t[j]) / s : 0.0;
  }
  return set_hsic(st, sigma, st->x + st->m * j, sgn);
}

/* The block of row r: the k with row0[k] <= r < row0[k + 1]. */
static ptrdiff_t block_of(const sel_state *st, ptrdiff_t r)
{
  ptrdiff_t lo = 0, hi = st->nblk - 1;
  while (lo < hi) {
    ptrdiff_t mid = lo + (hi - lo + 1) / 2;
    if (st->row0[mid] <= r) lo = mid; else hi = mid - 1;
  }
  return lo;
}

/* Q += sgn * sum over the columns cols of q_j: the update when features
 * leave (sgn = -1) or join (sgn = +1) the set. The columns of the packed
 * triangles (one per row of x, within its block) are independent, so they
 * are shared between threads, whatever the number of blocks. */
static void update_Q(sel_state *st, const int *cols, ptrdiff_t ncols,
                     double sgn, int nthreads)
{
  const ptrdiff_t m = st->m;
  double *Q = st->Q;
  const double *x = st->x;
  const int dist = st->dist;
  if (st->kern.type == BK_CLINICAL) {
    for (ptrdiff_t c = 0; c < ncols; c++) st->T += sgn * st->t[cols[c]];
    st->s += sgn > 0 ? ncols : -ncols;
    return;
  }
  if (st->ic) return; /* Qmp is recomputed at every round's pivots */
  if (st->rff) {
    /* P += sgn x_j omega_j', a column of P per thread */
    const bk_rff_select *r = st->rff;
    const ptrdiff_t D = r->D;
    const int rpar = nthreads > 1 && (double) ncols * (double) m * (double) D >=
                                         BK_PAR_MIN_PAIRS;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(nthreads) if (rpar)
#endif
    for (ptrdiff_t k = 0; k < D; k++) {
      double *Pk = r->P + m * k;
      for (ptrdiff_t c = 0; c < ncols; c++) {
        const double w = sgn * r->omega[k + D * cols[c]];
        const double *xj = x + m * cols[c];
        BK_SIMD
        for (ptrdiff_t a = 0; a < m; a++) Pk[a] += w * xj[a];
      }
    }
    (void) rpar;
    return;
  }
  const int par = nthreads > 1 && (double) ncols * (double) st->pair0[st->nblk] >=
                                      BK_PAR_MIN_PAIRS;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 16) num_threads(nthreads) if (par)
#endif
  for (ptrdiff_t r = 0; r < m; r++) {
    const ptrdiff_t k = block_of(st, r), r0 = st->row0[k], b = r - r0;
    if (b == 0) continue;
    double *q = Q + st->pair0[k] + PAIRS(b);
    for (ptrdiff_t c = 0; c < ncols; c++) {
      const double *xj = x + m * cols[c] + r0;
      const double xb = xj[b];
      if (dist) {
        BK_SIMD
        for (ptrdiff_t a = 0; a < b; a++) {
          double u = xj[a] - xb;
          q[a] += sgn * (u * u);
        }
      } else {
        BK_SIMD
        for (ptrdiff_t a = 0; a < b; a++) q[a] += sgn * (xj[a] * xb);
      }
    }
    if (dist && sgn < 0)
      for (ptrdiff_t a = 0; a < b; a++) q[a] = q[a] > 0.0 ? q[a] : 0.0;
  }
  if (!dist) {
    for (ptrdiff_t c = 0; c < ncols; c++) {
      const double *xj = x + m * cols[c];
      for (ptrdiff_t a = 0; a < m; a++) st->Qd[a] += sgn * xj[a] * xj[a];
    }
  }
  (void) par;
}

/* The median of the n within-block squared distances q (their square roots
 * when squared = 0), with the conventions of bk_median_triangle(): the mean
 * of the two middle values, and over the nonzero values when more than half
 * are 0. work: n doubles. */
static double pairs_median(const double *q, ptrdiff_t n, int squared,
                           double *work)
{
  if (n < 1) return NAN;
  memcpy(work, q, (size_t) n * sizeof(double));
  ptrdiff_t k = (n - 1) / 2, zeros = 0, nz = n;
  double lo = bk_select(work, n, k), hi = lo;
  if (n % 2 == 0) hi = bk_select(work, n, k + 1);
  if (lo + hi == 0.0) {
    for (ptrdiff_t i = 0; i < n; i++) zeros += q[i] == 0.0;
    nz = n - zeros;
    if (nz == 0) return 0.0;
    k = zeros + (nz - 1) / 2;
    lo = hi = bk_select(work, n, k);
    if (nz % 2 == 0) hi = bk_select(work, n, k + 1);
  }
  if (!squared) {
    lo = sqrt(lo);
    hi = sqrt(hi);
  }
  return 0.5 * (lo + hi);
}

/* The reference set of the "optimize" policy for bk_choose_width(): st->Q
 * is the reference set's Q while it runs. */
typedef struct {
  sel_state *st;
  double *mwork;
} sel_width_ctx;

static double sel_ref_median(void *ctx, int squared)
{
  const sel_width_ctx *c = ctx;
  const sel_state *st = c->st;
  return st->nblk == 1
             ? bk_median_triangle(st->Q, st->m, 1, squared, c->mwork)
             : pairs_median(st->Q, st->pair0[st->nblk], squared, c->mwork);
}

static double sel_ref_hsic(void *ctx, double sigma, int *fail)
{
  (void) fail; /* set_hsic() cannot fail */
  return set_hsic(((const sel_width_ctx *) ctx)->st, sigma, NULL, 0.0);
}

/* Section 4.1, step 3: the width for the sets of this iteration
 * (bk_choose_width()). s: the size the "dimension" policy uses; ref: the
 * reference set's Q for "optimize" (its HSIC is returned in *h_ref). */
static double choose_sigma(const bk_select_opts *o, sel_state *st,
                           const double *ref, ptrdiff_t s, double *mwork,
                           double *h_ref)
{
  const bk_width_policy p = {o->kern.type, o->policy,     o->kern.p1,
                             o->grid,      o->ngrid,      o->grid_relative};
  sel_width_ctx c = {st, mwork};
  double *saveQ = st->Q;
  st->Q = (double *) ref;
  double sigma = bk_choose_width(&p, s, sel_ref_median, sel_ref_hsic, &c, h_ref);
  st->Q = saveQ;
  return sigma;
}

/* Candidates are ordered by their score rounded to BK_TIE_TOL times the
 * largest score of the iteration, then by index: two feature sets whose HSIC
 * is the same in exact arithmetic (tied or discrete data) can differ in the
 * last bits depending on the order of the sums, and must still tie. Entries
 * are (rounded score, index, score) triples of doubles. */

int bk_cmp_desc_low(const void *p, const void *q)
{
  const double *u = p, *v = q;
  if (u[0] != v[0]) return u[0] > v[0] ? -1 : 1;
  return u[1] < v[1] ? -1 : (u[1] > v[1]);
}

int bk_cmp_desc_high(const void *p, const void *q)
{
  const double *u = p, *v = q;
  if (u[0] != v[0]) return u[0] > v[0] ? -1 : 1;
  return u[1] > v[1] ? -1 : (u[1] < v[1]);
}

int bk_cmp_asc_low(const void *p, const void *q)
{
  const double *u = p, *v = q;
  if (u[0] != v[0]) return u[0] < v[0] ? -1 : 1;
  return u[1] < v[1] ? -1 : (u[1] > v[1]);
}

/* Round the scores of the n (., index, score) triples of sortbuf to
 * BK_TIE_TOL times the largest one into their first entries, then sort the
 * triples by cmp. Shared with the ridge loop (ridge.c). */
void bk_sort_candidates(double *sortbuf, ptrdiff_t n,
                        int (*cmp)(const void *, const void *))
{
  double scale = 0.0;
  for (ptrdiff_t i = 0; i < n; i++)
    scale = fmax(scale, fabs(sortbuf[3 * i + 2]));
  double q = scale > 0.0 ? BK_TIE_TOL * scale : 1.0;
  for (ptrdiff_t i = 0; i < n; i++)
    sortbuf[3 * i] = nearbyint(sortbuf[3 * i + 2] / q);
  qsort(sortbuf, (size_t) n, 3 * sizeof(double), cmp);
}

/* Score every feature of cand (ncand) against the current set into
 * sortbuf as (score, index) pairs, then sort them. */
static void score_candidates(const sel_state *st, double sigma,
                             const int *cand, ptrdiff_t ncand, double sgn,
                             double *sortbuf,
                             int (*cmp)(const void *, const void *),
                             int nthreads)
{
  /* chunks of about 2^16 pairs keep the scheduling cost small */
  const ptrdiff_t P = st->pair0[st->nblk];
  const int chunk =
      st->rff || st->ic ? 1 : (int) (1 + 65536 / (P > 0 ? P : 1));
  /* a clinical candidate is O(1): no threads */
  const double cost = st->rff  ? (double) st->m * (double) st->rff->D
                     : st->ic ? (double) st->m * (double) *st->ic->r *
                                    (double) *st->ic->r
                              : (double) P;
  const int par = nthreads > 1 && st->kern.type != BK_CLINICAL &&
                  (double) ncand * cost >= BK_PAR_MIN_PAIRS;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, chunk) num_threads(nthreads) if (par)
#endif
  for (ptrdiff_t i = 0; i < ncand; i++) {
    sortbuf[3 * i + 2] = candidate_hsic(st, sigma, cand[i], sgn);
    sortbuf[3 * i + 1] = (double) cand[i];
  }
  bk_sort_candidates(sortbuf, ncand, cmp);
  (void) par;
  (void) chunk;
}

ptrdiff_t bk_select_work_doubles(ptrdiff_t m, ptrdiff_t d)
{
  return 3 * PAIRS(m) + BK_MEDIAN_WORK(m) + 4 * m + 4 * d + 8;
}

/* the median's workspace ("optimize"): none without pairs (approx = "rff") */
static ptrdiff_t median_work(ptrdiff_t m, ptrdiff_t npairs, ptrdiff_t nblk)
{
  if (npairs == 0) return 0;
  return nblk == 1 ? BK_MEDIAN_WORK(m) : npairs + 1;
}

ptrdiff_t bk_select_blocks_work_doubles(ptrdiff_t m, ptrdiff_t npairs,
                                        ptrdiff_t nblk, ptrdiff_t d)
{
  return 2 * npairs + median_work(m, npairs, nblk) + m + 4 * d + 8;
}

ptrdiff_t bk_rff_select_work(ptrdiff_t m, ptrdiff_t D, ptrdiff_t s)
{
  return m * D + BK_LOWRANK_HSIC_WORK(m, D, s);
}

ptrdiff_t bk_ichol_select_work(ptrdiff_t m, ptrdiff_t r, ptrdiff_t s)
{
  return 2 * m * r + BK_LOWRANK_HSIC_WORK(m, r, s);
}

static double max_of(const double *v, ptrdiff_t n)
{
  double mx = 0.0;
  for (ptrdiff_t i = 0; i < n; i++) mx = v[i] > mx ? v[i] : mx;
  return mx;
}

ptrdiff_t bk_select_work_ints(ptrdiff_t d)
{
  return 3 * d + 8;
}

ptrdiff_t bk_batch_size(double step, ptrdiff_t n)
{
  ptrdiff_t k = (ptrdiff_t) floor(step * (double) n);
  return k < 1 ? 1 : k;
}

void bk_add_path(double *path, ptrdiff_t *np, ptrdiff_t iter, ptrdiff_t size,
                 double h, double sigma)
{
  double *row = path + 4 * (*np)++;
  row[0] = (double) iter;
  row[1] = (double) size;
  row[2] = h;
  row[3] = sigma;
}

ptrdiff_t bk_take_batch(const double *sortbuf, ptrdiff_t k, ptrdiff_t it,
                        double *score, int *iter, int *rank, int *order,
                        ptrdiff_t *n, int *active, ptrdiff_t na)
{
  for (ptrdiff_t i = 0; i < k; i++) {
    int j = (int) sortbuf[3 * i + 1];
    score[j] = sortbuf[3 * i + 2];
    iter[j] = (int) it;
    order[*n] = j;
    if (rank) rank[j] = (int) (*n + 1);
    (*n)++;
  }
  /* the rest, still in index order */
  ptrdiff_t w = 0;
  for (ptrdiff_t i = 0; i < na; i++)
    if (iter[active[i]] == 0) active[w++] = active[i];
  return w;
}

void bk_rank_backward(const double *sortbuf, ptrdiff_t ns, ptrdiff_t it,
                      double *score, int *iter, int *rank, const int *order,
                      ptrdiff_t nelim)
{
  for (ptrdiff_t i = 0; i < ns; i++) {
    int j = (int) sortbuf[3 * i + 1];
    score[j] = sortbuf[3 * i + 2];
    iter[j] = (int) it;
    rank[j] = (int) (i + 1);
  }
  /* eliminated last = most relevant */
  for (ptrdiff_t i = 0; i < nelim; i++)
    rank[order[i]] = (int) (ns + nelim - i);
}

/* One BAHSIC round over the surviving set S (ns features): its width, its
 * HSIC on the path, and every candidate HSIC(S \ {j}) sorted by cmp. */
static void backward_round(const bk_select_opts *o, sel_state *st,
                           const int *active, ptrdiff_t ns, double *mwork,
                           double *sortbuf,
                           int (*cmp)(const void *, const void *),
                           ptrdiff_t it, double *path, ptrdiff_t *np,
                           double *sigma_out, double *h_out)
{
  double h, sigma = choose_sigma(o, st, st->Q, ns, mwork, &h);
  if (st->ic) ichol_prepare(st, sigma, active, ns, o->nthreads);
  if (isnan(h)) h = set_hsic(st, sigma, NULL, 0.0);
  bk_add_path(path, np, it, ns, h, sigma);
  /* candidates' squared distances are <= Q: the exp needs no clamp when
   * sigma max(Q) <= 708 */
  st->pass = bk_pick_gauss_pass(sigma * max_of(st->Q, st->pair0[st->nblk]) <= 708.0,
                             o->simd);
  score_candidates(st, sigma, active, ns, -1.0, sortbuf, cmp, o->nthreads);
  *sigma_out = sigma;
  *h_out = h;
}

ptrdiff_t bk_select_features(const double *x, ptrdiff_t m, ptrdiff_t d,
                             const double *W, const bk_select_opts *o,
                             int *rank, double *score, int *iter,
                             double *path, double *work, int *iwork,
                             bk_tick_fn tick, void *ctx)
{
  /* the exact estimator: one block of all m samples */
  const ptrdiff_t row0[2] = {0, m}, pair0[2] = {0, PAIRS(m)};
  const bk_blocks blk = {1, row0, pair0};
  double *Wp = work, *Wd = Wp + PAIRS(m);
  bk_pack_upper(W, m, Wp);
  for (ptrdiff_t a = 0; a < m; a++) Wd[a] = W[a + m * a];
  return bk_select_blocks(x, m, d, &blk, Wp, Wd, W, NULL, NULL, o, rank,
                          score, iter, path, Wd + m, iwork, tick, ctx);
}

ptrdiff_t bk_select_blocks(const double *x, ptrdiff_t m, ptrdiff_t d,
                           const bk_blocks *blk, const double *Wp,
                           const double *Wd, const double *W,
                           const bk_rff_select *rff,
                           const bk_ichol_select *ic, const bk_select_opts *o,
                           int *rank, double *score, int *iter, double *path,
                           double *work, int *iwork, bk_tick_fn tick,
                           void *ctx)
{
  const ptrdiff_t P = blk->pair0[blk->nblk];
  double *Q = work, *Qfull = Q + P, *mwork = Qfull + P,
         *Qd = mwork + median_work(m, P, blk->nblk),
         *sortbuf = Qd + m, *tf = sortbuf + 3 * d;
  int *active = iwork, *order = iwork + d;
  sel_state st = {x, m, d, blk->nblk, blk->row0, blk->pair0,
                  bk_kernel_uses_distance(o->kern.type), o->kern,
                  Q, Qd, Wp, Wd, bk_pick_gauss_pass(0, o->simd), tf, 0.0, 0,
                  rff, ic};
  ptrdiff_t np = 0, it = 0;

  for (ptrdiff_t j = 0; j < d; j++) {
    rank[j] = 0;
    score[j] = NAN;
    iter[j] = 0;
    active[j] = (int) j;
  }
  memset(Q, 0, (size_t) P * sizeof(double));
  memset(Qd, 0, (size_t) m * sizeof(double));
  if (rff) memset(rff->P, 0, (size_t) (m * rff->D) * sizeof(double));
  if (o->kern.type == BK_CLINICAL)
    bk_clinical_dot(x, m, d, o->cat, W, tf, o->nthreads);

  if (o->direction == BK_BACKWARD) {
    ptrdiff_t ns = d, nelim = 0, since_refresh = 0;
    update_Q(&st, active, ns, 1.0, o->nthreads);
    while (ns > o->n_target) {
      double h, sigma;
      /* eliminate the largest HSIC(S \ {j}); ties: the higher index */
      backward_round(o, &st, active, ns, mwork, sortbuf, bk_cmp_desc_high, ++it,
                     path, &np, &sigma, &h);
      /* the last feature leaves the empty set, whose kernel is constant and
       * whose HSIC is 0 exactly (the sum above is 0 only up to rounding) */
      if (ns == 1) sortbuf[2] = 0.0;
      ptrdiff_t k = bk_batch_size(o->step, ns);
      if (o->n_target > 0 && k > ns - o->n_target) k = ns - o->n_target;
      ns = bk_take_batch(sortbuf, k, it, score, iter, NULL, order, &nelim,
                         active, ns);
      const int *batch = order + nelim - k;
      since_refresh += k;
      /* Recompute Q from the survivors (the cost of one candidate pass
       * without the kernel) after many downdates, so rounding cannot pile
       * up; and always for the kernels of sqrt(Q): two samples that agree on
       * every surviving feature must get a distance of exactly 0, which a
       * downdate leaves as a rounding residue that sqrt() blows up. */
      if (since_refresh > ns ||
          (!rff && !ic &&
           bk_kernel_uses_distance(o->kern.type) &&
           !bk_kernel_has(o->kern.type, BK_KPROP_SQUARED))) {
        memset(Q, 0, (size_t) P * sizeof(double));
        memset(Qd, 0, (size_t) m * sizeof(double));
        if (rff) memset(rff->P, 0, (size_t) (m * rff->D) * sizeof(double));
        st.T = 0.0;
        st.s = 0;
        update_Q(&st, active, ns, 1.0, o->nthreads);
        since_refresh = 0;
      } else {
        update_Q(&st, batch, k, -1.0, o->nthreads);
      }
      if (tick) tick(ctx, it, ns + k, h, sigma);
    }
    if (ns > 0) {
      /* stopped at n_target: rank the survivors by one more pass, the one
       * whose removal costs most first */
      double h, sigma;
      backward_round(o, &st, active, ns, mwork, sortbuf, bk_cmp_asc_low, ++it,
                     path, &np, &sigma, &h);
      if (tick) tick(ctx, it, ns, h, sigma);
    }
    bk_rank_backward(sortbuf, ns, it, score, iter, rank, order, nelim);
    return np;
  }

  /* FOHSIC: the selected set S+ starts empty (Q = 0) and grows */
  ptrdiff_t nsel = 0, nrem = d, target = o->n_target > 0 ? o->n_target : d;
  double maxrange2 = 0.0;
  /* m = 0: no pairs, and no xj[0] to start the range from */
  for (ptrdiff_t j = 0; j < d && m > 0; j++) {
    const double *xj = x + m * j;
    double lo = xj[0], hi = xj[0];
    for (ptrdiff_t a = 1; a < m; a++) {
      lo = xj[a] < lo ? xj[a] : lo;
      hi = xj[a] > hi ? xj[a] : hi;
    }
    double r2 = (hi - lo) * (hi - lo);
    maxrange2 = r2 > maxrange2 ? r2 : maxrange2;
  }
  if (o->policy == BK_SIGMA_OPTIMIZE && bk_kernel_has_width(o->kern.type)) {
    /* the reference set of the first iteration is the full set */
    memcpy(Qfull, Q, (size_t) P * sizeof(double));
    st.Q = Qfull;
    update_Q(&st, active, d, 1.0, o->nthreads);
    st.Q = Q;
  }
  while (nsel < target) {
    double h0, sigma = choose_sigma(o, &st, nsel > 0 ? Q : Qfull, nsel + 1,
                                    mwork, &h0);
    it++;
    /* a candidate's squared distances are <= Q + its range^2 */
    st.pass = bk_pick_gauss_pass(sigma * (max_of(Q, P) + maxrange2) <= 708.0,
                              o->simd);
    /* add the largest HSIC(S+ U {j}); ties: the lower index */
    score_candidates(&st, sigma, active, nrem, 1.0, sortbuf, bk_cmp_desc_low,
                     o->nthreads);
    ptrdiff_t k = bk_batch_size(o->step, nrem);
    if (k > target - nsel) k = target - nsel;
    nrem = bk_take_batch(sortbuf, k, it, score, iter, rank, order, &nsel,
                         active, nrem);
    update_Q(&st, order + nsel - k, k, 1.0, o->nthreads);
    double h = set_hsic(&st, sigma, NULL, 0.0);
    bk_add_path(path, &np, it, nsel, h, sigma);
    if (tick) tick(ctx, it, nsel, h, sigma);
  }
  return np;
}
