/*
 * scorer_clinical.c: the clinical kernel (BK_CLINICAL; eq. 3-4 of Paul and
 * Dupont 2014) as a scorer of the selection schedule (schedule.c), exact
 * estimator only. Numeric core: no R API.
 *
 * The kernel is the average of per-feature kernels K_f, so HSIC(S) =
 * sum_{f in S} t_f / |S| with t_f = sum(K_f o W): the t_f are computed once
 * (bk_clinical_dot(), one pass over the pairs per feature) and a candidate
 * is then scored exactly in O(1), (T - t_j) / (s - 1) on removal and
 * (T + t_j) / (s + 1) on addition, T the sum over the current set of size s.
 */
#include <math.h>
#include "select.h"
#include "clinical.h"

typedef struct {
  bk_width_policy wp; /* first: bk_width_policy_only() (no width: NaN) */
  const double *t; /* per-feature t_f */
  double T;        /* their sum over the current set */
  ptrdiff_t s;     /* its size */
} clinical_state;
BK_SCORER_FITS(clinical_state);

static double set_hsic(const clinical_state *st)
{
  return st->s > 0 ? st->T / (double) st->s : 0.0;
}

static int clinical_begin(void *ctx, double sigma, const int *set,
                          ptrdiff_t ns, double sgn, double *h)
{
  (void) sigma;
  (void) set;
  (void) ns;
  (void) sgn;
  if (h && isnan(*h)) *h = set_hsic(ctx);
  return 0;
}

static double clinical_score(void *ctx, double sigma, ptrdiff_t j, double sgn,
                             int tid)
{
  const clinical_state *st = ctx;
  (void) sigma;
  (void) tid;
  const double s = (double) st->s + sgn;
  return s > 0.0 ? (st->T + sgn * st->t[j]) / s : 0.0;
}

/* a candidate is O(1): no threads */
static double clinical_cost(void *ctx, int *chunk)
{
  (void) ctx;
  *chunk = 1;
  return 0.0;
}

static void clinical_update(void *ctx, const int *cols, ptrdiff_t n,
                            double sgn)
{
  clinical_state *st = ctx;
  for (ptrdiff_t c = 0; c < n; c++) st->T += sgn * st->t[cols[c]];
  st->s += sgn > 0 ? n : -n;
}

/* T afresh from the survivors after as many removals as survivors */
static int clinical_stale(void *ctx, ptrdiff_t since, ptrdiff_t ns)
{
  (void) ctx;
  return since > ns;
}

static void clinical_refresh(void *ctx, const int *set, ptrdiff_t ns)
{
  clinical_state *st = ctx;
  st->T = 0.0;
  st->s = 0;
  clinical_update(ctx, set, ns, 1.0);
}

static int clinical_hsic(void *ctx, double sigma, const int *set,
                         ptrdiff_t ns, double *h)
{
  (void) sigma;
  (void) set;
  (void) ns;
  *h = set_hsic(ctx);
  return 0;
}

bk_scorer bk_clinical_scorer(const double *x, ptrdiff_t m, ptrdiff_t d,
                             const double *W, const bk_select_opts *o,
                             double *tf, bk_scorer_mem *mem)
{
  clinical_state *st = (clinical_state *) mem;
  *st = (clinical_state){.wp = bk_select_width_policy(o), .t = tf};
  bk_clinical_dot(x, m, d, o->cat, W, tf, o->nthreads);
  return (bk_scorer){.ctx = st, .width = bk_width_policy_only,
                     .begin = clinical_begin, .score_one = clinical_score,
                     .cost = clinical_cost, .update = clinical_update,
                     .stale = clinical_stale, .refresh = clinical_refresh,
                     .hsic = clinical_hsic};
}
