/*
 * scorer_ichol.c: approx = "ichol" (BAHSIC only) as a scorer of the
 * selection schedule (schedule.c). Numeric core: no R API.
 *
 * At the start of each iteration the scorer runs bk_ichol() on the
 * surviving set (Song et al. 2012, section 2.6: pivoted incomplete
 * Cholesky, which with r pivots is the Nystrom approximation on them) and
 * keeps the sums Q between every sample and the r pivots (m x r); a
 * candidate updates them (O(m r)), evaluates its kernel columns at the
 * pivots and factors them by the Cholesky steps in the same pivot order
 * (O(m r^2)), and is scored by bk_lowrank_hsic().
 */
#include <math.h>
#include <string.h>
#include "select.h"
#include "lowrank.h"

typedef struct {
  bk_width_policy wp; /* first: bk_width_policy_only() */
  const double *x;
  ptrdiff_t m;
  int dist;          /* Q holds squared distances (1) or inner products (0) */
  bk_kernel kern;
  const bk_ichol_select *ic;
  int nthreads;
} ichol_state;
BK_SCORER_FITS(ichol_state);

/* q_j(a, p) of feature column xj: squared difference or product */
static inline double qpair(int dist, double u, double v)
{
  return dist ? (u - v) * (u - v) : u * v;
}

/* At the start of a BAHSIC round over the ns features of active at the
 * width sigma: the pivots of bk_ichol() on the set, its factor G0 (for the
 * set's own HSIC) and the sums Qmp (m x r) of q_j between every sample and
 * every pivot over the set. */
static void ichol_prepare(const ichol_state *st, double sigma,
                          const int *active, ptrdiff_t ns)
{
  const bk_ichol_select *c = st->ic;
  const ptrdiff_t m = st->m;
  const int nthreads = st->nthreads;
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

/* HSIC of the current set with feature j removed (j < 0: the set itself,
 * from G0). The kernel columns at the pivots, then the Cholesky steps of
 * bk_ichol() in its pivot order (a pivot whose residual is <= tol times the
 * largest pivot diagonal is left out), then bk_lowrank_hsic(). buf:
 * bk_ichol_select_work() doubles of this thread. */
static double ichol_hsic(const ichol_state *st, double sigma, ptrdiff_t j,
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
  const double p1 = bk_kernel_has_width(st->kern.type) ? sigma : st->kern.p1;
  for (ptrdiff_t l = 0; l < r; l++) {
    const ptrdiff_t p = c->piv[l];
    const double *Ql = c->Qmp + m * l;
    double *Kl = K + m * l;
    const double xp = xj[p];
    for (ptrdiff_t a = 0; a < m; a++)
      Kl[a] = bk_kernel_eval(st->kern.type, p1, st->kern.p2,
                             Ql[a] + sgn * qpair(st->dist, xj[a], xp));
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

/* the pivots of this round's set, then its HSIC from its own factor */
static int ichol_begin(void *ctx, double sigma, const int *set, ptrdiff_t ns,
                       double sgn, double *h)
{
  const ichol_state *st = ctx;
  (void) sgn;
  ichol_prepare(st, sigma, set, ns);
  if (h && isnan(*h)) *h = ichol_hsic(st, sigma, -1, 0.0, st->ic->zwork);
  return 0;
}

static double ichol_score(void *ctx, double sigma, ptrdiff_t j, double sgn,
                          int tid)
{
  const ichol_state *st = ctx;
  return ichol_hsic(st, sigma, j, sgn,
                    st->ic->zwork + (ptrdiff_t) tid * st->ic->stride);
}

static double ichol_cost(void *ctx, int *chunk)
{
  const ichol_state *st = ctx;
  const double r = (double) *st->ic->r;
  *chunk = 1;
  return (double) st->m * r * r;
}

static int ichol_set_hsic(void *ctx, double sigma, const int *set,
                          ptrdiff_t ns, double *h)
{
  const ichol_state *st = ctx;
  (void) set;
  (void) ns;
  *h = ichol_hsic(st, sigma, -1, 0.0, st->ic->zwork);
  return 0;
}

ptrdiff_t bk_ichol_select_work(ptrdiff_t m, ptrdiff_t r, ptrdiff_t s)
{
  return 2 * m * r + BK_LOWRANK_HSIC_WORK(m, r, s);
}

/* The sums Qmp are made afresh at every round's pivots: no update, no
 * refresh. */
bk_scorer bk_ichol_scorer(const double *x, ptrdiff_t m,
                          const bk_ichol_select *ic, const bk_select_opts *o,
                          bk_scorer_mem *mem)
{
  ichol_state *st = (ichol_state *) mem;
  *st = (ichol_state){.wp = bk_select_width_policy(o), .x = x, .m = m,
                      .dist = bk_kernel_uses_distance(o->kern.type),
                      .kern = o->kern, .ic = ic, .nthreads = o->nthreads};
  return (bk_scorer){.ctx = st, .width = bk_width_policy_only,
                     .begin = ichol_begin, .score_one = ichol_score,
                     .cost = ichol_cost, .hsic = ichol_set_hsic};
}
