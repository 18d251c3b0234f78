/*
 * scorer_rff.c: approx = "rff" (Rahimi and Recht 2007) as a scorer of the
 * selection schedule (schedule.c). Numeric core: no R API.
 *
 * The scorer keeps the projections P = X_S Omega_S' (m x D) of the current
 * set on D standard frequencies, updated as features leave or join (O(m D)
 * per feature); a candidate is P -/+ x_j omega_j', scaled by the
 * iteration's width, mapped to the random features Z = sqrt(2 / D)
 * cos(. + b) and scored against the label factor F by bk_lowrank_hsic()
 * (lowrank.c), O(m D s). The kernels with random features are those with
 * BK_KPROP_RFF in the kernel table (codes.h).
 */
#include <math.h>
#include <string.h>
#include "select.h"
#include "lowrank.h"

typedef struct {
  bk_width_policy wp; /* first: bk_width_policy_only() */
  const double *x;
  ptrdiff_t m;
  bk_kernel kern;
  const bk_rff_select *rff;
  int nthreads;
} rff_state;
BK_SCORER_FITS(rff_state);

/* HSIC of the set whose projections are st->rff->P changed by sgn x_j
 * omega_j' (j < 0: the set itself). buf: bk_rff_select_work() doubles of
 * this thread. The standard frequencies scale with the width as the
 * kernel's spectral measure says (bk_spectral_scale(), codes.h): sqrt(2
 * sigma) for the Gaussian's normal, sigma for the Laplace's Cauchy. */
static double rff_hsic(const rff_state *st, double sigma, ptrdiff_t j,
                       double sgn, double *buf)
{
  const bk_rff_select *r = st->rff;
  const ptrdiff_t m = st->m, D = r->D;
  const double c = bk_spectral_scale(st->kern.type, sigma),
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

static int rff_begin(void *ctx, double sigma, const int *set, ptrdiff_t ns,
                     double sgn, double *h)
{
  const rff_state *st = ctx;
  (void) set;
  (void) ns;
  (void) sgn;
  /* the set itself, on the main thread */
  if (h && isnan(*h)) *h = rff_hsic(st, sigma, -1, 0.0, st->rff->zwork);
  return 0;
}

static double rff_score(void *ctx, double sigma, ptrdiff_t j, double sgn,
                        int tid)
{
  const rff_state *st = ctx;
  return rff_hsic(st, sigma, j, sgn,
                  st->rff->zwork + (ptrdiff_t) tid * st->rff->stride);
}

static double rff_cost(void *ctx, int *chunk)
{
  const rff_state *st = ctx;
  *chunk = 1;
  return (double) st->m * (double) st->rff->D;
}

/* P += sgn x_j omega_j' over the columns cols, a column of P per thread */
static void rff_update(void *ctx, const int *cols, ptrdiff_t ncols, double sgn)
{
  const rff_state *st = ctx;
  const bk_rff_select *r = st->rff;
  const ptrdiff_t m = st->m, D = r->D;
  const int nthreads = st->nthreads;
  const int rpar = nthreads > 1 && (double) ncols * (double) m * (double) D >=
                                       BK_PAR_MIN_PAIRS;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(nthreads) if (rpar)
#endif
  for (ptrdiff_t k = 0; k < D; k++) {
    double *Pk = r->P + m * k;
    for (ptrdiff_t c = 0; c < ncols; c++) {
      const double w = sgn * r->omega[k + D * cols[c]];
      const double *xj = st->x + m * cols[c];
      BK_SIMD
      for (ptrdiff_t a = 0; a < m; a++) Pk[a] += w * xj[a];
    }
  }
  (void) rpar;
}

/* P afresh from the survivors after as many downdates as survivors */
static int rff_stale(void *ctx, ptrdiff_t since, ptrdiff_t ns)
{
  (void) ctx;
  return since > ns;
}

static void rff_refresh(void *ctx, const int *set, ptrdiff_t ns)
{
  const rff_state *st = ctx;
  memset(st->rff->P, 0, (size_t) (st->m * st->rff->D) * sizeof(double));
  rff_update(ctx, set, ns, 1.0);
}

static int rff_set_hsic(void *ctx, double sigma, const int *set, ptrdiff_t ns,
                        double *h)
{
  const rff_state *st = ctx;
  (void) set;
  (void) ns;
  *h = rff_hsic(st, sigma, -1, 0.0, st->rff->zwork);
  return 0;
}

ptrdiff_t bk_rff_select_work(ptrdiff_t m, ptrdiff_t D, ptrdiff_t s)
{
  return m * D + BK_LOWRANK_HSIC_WORK(m, D, s);
}

bk_scorer bk_rff_scorer(const double *x, ptrdiff_t m,
                        const bk_rff_select *rff, const bk_select_opts *o,
                        bk_scorer_mem *mem)
{
  rff_state *st = (rff_state *) mem;
  *st = (rff_state){.wp = bk_select_width_policy(o), .x = x, .m = m,
                    .kern = o->kern, .rff = rff, .nthreads = o->nthreads};
  memset(rff->P, 0, (size_t) (m * rff->D) * sizeof(double));
  return (bk_scorer){.ctx = st, .width = bk_width_policy_only,
                     .begin = rff_begin, .score_one = rff_score,
                     .cost = rff_cost, .update = rff_update,
                     .stale = rff_stale, .refresh = rff_refresh,
                     .hsic = rff_set_hsic};
}
