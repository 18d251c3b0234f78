/*
 * scorer_mrmr.c: minimum-redundancy maximum-relevance selection (Peng, Long
 * and Ding 2005, section 2.3: the MID criterion, relevance minus mean
 * redundancy) with HSIC as the measure of dependence, as a forward scorer
 * of the one schedule (schedule.c). A candidate j scores
 *   HSIC(x_j, y) - 1/|S| sum_{s in S} HSIC(x_j, x_s),
 * S the features selected so far, every HSIC on the kernels of single
 * features (the labels' weights W for the relevance, HSIC(K_j, L) =
 * sum(K_j o W)). The relevances are computed once, in the first round; when
 * a feature s joins, the weights W_s of its own kernel (HSIC(K_j, K_s) =
 * sum(K_j o W_s)) are formed once and one pass of bk_feature_dot() adds
 * HSIC(x_j, x_s) to every feature's redundancy: O(d m^2) per selected
 * feature, one m x m matrix of memory. A score is then O(1), so the
 * schedule's candidate loop is cheap and the threads work in
 * bk_feature_dot(), each feature's sum on one thread (the same numbers for
 * any number of threads). Numeric core: no R API.
 */
#include <math.h>
#include <string.h>
#include "hsic.h"
#include "mrmr.h"
#include "pairs.h"
#include "select.h"

typedef struct {
  const double *x, *W;
  ptrdiff_t m, d;
  bk_kernel kern;     /* the width of one feature in p1 */
  double sigma;       /* the same, NaN for a kernel without a width */
  int unbiased, simd, nthreads, have_rel, normalize;
  double ynorm;       /* normalize: sqrt(HSIC(y, y)) */
  double *rel, *red, *inc, *Ws, *rmean, *dot, *self;
  int *in_set;
  ptrdiff_t nsel;     /* the features whose redundancies red holds */
  double rel_sum, pair_sum; /* over S: relevances; HSIC of pairs i < j */
  bk_pacer *pace;
  double (*self_sums)(bk_kernel, const double *, ptrdiff_t, int, double *,
                      double *); /* the loops of the normalising pass */
} mrmr_ctx;

static int mrmr_width(void *ctx, ptrdiff_t s, const int *ref, ptrdiff_t nref,
                      int is_set, double *sigma, double *h)
{
  (void) s;
  (void) ref;
  (void) nref;
  (void) is_set;
  *sigma = ((const mrmr_ctx *) ctx)->sigma;
  *h = NAN;
  return 0;
}

/* The sums of the kernel of one feature x over its pairs a < b: R[a] =
 * sum_{b != a} K_ab (the row sums without the diagonal) and the return
 * value sum_{a<b} K_ab^2. The Gaussian in one loop, without the clamp where
 * every argument is >= -708 (in_range, as bk_feature_dot() decides it);
 * the other kernels column by column: squared distances (or products)
 * mapped by the kernel table's per-kernel loop (BK_KERNEL_MAP), then summed
 * while in L1. col: m doubles of scratch. */
#define SELF_SUMS_ARGS                                                        \
  bk_kernel k, const double *x, ptrdiff_t m, int in_range, double *R,        \
      double *col
#define SELF_SUMS_GAUSS(EXPF)                                                 \
  for (ptrdiff_t b = 1; b < m; b++) {                                        \
    const double xb = x[b];                                                  \
    double t = 0.0, q = 0.0;                                                 \
    BK_SIMD_SUM2(t, q)                                                       \
    for (ptrdiff_t a = 0; a < b; a++) {                                      \
      const double u = x[a] - xb, v = EXPF(ns * (u * u));                    \
      t += v;                                                                \
      R[a] += v;                                                             \
      q += v * v;                                                            \
    }                                                                        \
    R[b] += t;                                                               \
    s2 += q;                                                                 \
  }
#define SELF_SUMS_BODY                                                        \
  const int dist = bk_kernel_uses_distance(k.type);                          \
  const double ns = -k.p1;                                                   \
  double s2 = 0.0;                                                           \
  for (ptrdiff_t a = 0; a < m; a++) R[a] = 0.0;                              \
  if (k.type == BK_GAUSSIAN) {                                               \
    if (in_range) {                                                          \
      SELF_SUMS_GAUSS(bk_exp_core)                                           \
    } else {                                                                 \
      SELF_SUMS_GAUSS(bk_exp)                                                \
    }                                                                        \
    return s2;                                                               \
  }                                                                          \
  for (ptrdiff_t b = 1; b < m; b++) {                                        \
    const double xb = x[b];                                                  \
    BK_SIMD                                                                  \
    for (ptrdiff_t a = 0; a < b; a++) {                                      \
      const double u = x[a] - xb;                                            \
      col[a] = dist ? u * u : x[a] * xb;                                     \
    }                                                                        \
    BK_KERNEL_MAP(k.type, k.p1, k.p2, col, b);                               \
    double t = 0.0, q = 0.0;                                                 \
    BK_SIMD_SUM2(t, q)                                                       \
    for (ptrdiff_t a = 0; a < b; a++) {                                      \
      t += col[a];                                                           \
      R[a] += col[a];                                                        \
      q += col[a] * col[a];                                                  \
    }                                                                        \
    R[b] += t;                                                               \
    s2 += q;                                                                 \
  }                                                                          \
  return s2;

static double self_sums(SELF_SUMS_ARGS) { SELF_SUMS_BODY }

/* R's flags target the baseline x86-64 (SSE2): the same loops for AVX2 +
 * FMA, as pairs.c does for the relevance pass (the same arithmetic up to the
 * rounding of the fused operations and of the wider reductions) */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MRMR_X86_DISPATCH 1
__attribute__((target("avx2,fma"))) static double self_sums_avx2(SELF_SUMS_ARGS)
{
  SELF_SUMS_BODY
}
#endif

/* HSIC(x, x) of one feature x from the sums of its kernel, each pair a < b
 * once: with R the row sums, HSIC0 = (sum K^2 - 2/m sum R^2 + (sum R)^2 /
 * m^2) / (m - 1)^2; HSIC1 (eq. 5 of Song et al. 2012 with K = L, the
 * diagonal zeroed) = (sum K^2 + (sum R)^2 / ((m - 1)(m - 2)) - 2/(m - 2)
 * sum R^2) / (m (m - 3)). R, col: m doubles of scratch each. */
static double self_one(const mrmr_ctx *c, const double *x, double *R, double *col)
{
  const ptrdiff_t m = c->m;
  const int dist = bk_kernel_uses_distance(c->kern.type);
  double lo = m > 0 ? x[0] : 0.0, hi = lo, sr = 0.0, sr2 = 0.0;
  for (ptrdiff_t a = 1; a < m; a++) {
    lo = x[a] < lo ? x[a] : lo;
    hi = x[a] > hi ? x[a] : hi;
  }
  const int in_range = c->kern.p1 * (hi - lo) * (hi - lo) <= 708.0;
  double s2 = 2.0 * c->self_sums(c->kern, x, m, in_range, R, col);
  for (ptrdiff_t a = 0; a < m; a++) {
    if (!c->unbiased) {
      const double k = bk_kernel_value(c->kern, dist ? 0.0 : x[a] * x[a]);
      R[a] += k;
      s2 += k * k;
    }
    sr += R[a];
    sr2 += R[a] * R[a];
  }
  const double mm = (double) m;
  if (c->unbiased)
    return (s2 + sr * sr / ((mm - 1.0) * (mm - 2.0)) - 2.0 * sr2 / (mm - 2.0)) /
           (mm * (mm - 3.0));
  return (s2 - 2.0 * sr2 / mm + sr * sr / (mm * mm)) / ((mm - 1.0) * (mm - 1.0));
}

/* self[j] of feature j, on any thread: its scratch the thread's rows of
 * rmean and of dot (free once the relevances are done) */
static void self_item(void *ctx, ptrdiff_t j)
{
  mrmr_ctx *c = (mrmr_ctx *) ctx;
  const ptrdiff_t off = c->m * bk_thread_id();
  c->self[j] = self_one(c, c->x + c->m * j, c->rmean + off, c->dot + off);
}

/* self[j] = HSIC(x_j, x_j) of every feature, each on one thread, paced as
 * the relevance pass (bk_feature_dot()) is: a pass over the pairs per
 * feature */
static void mrmr_self(mrmr_ctx *c)
{
  const double m = (double) c->m;
  c->self_sums = self_sums;
#ifdef MRMR_X86_DISPATCH
  if (c->simd && bk_cpu_has_avx2_fma()) c->self_sums = self_sums_avx2;
#endif
  const bk_paced_loop loop = {.item = self_item, .ctx = c,
                              .ops = m * (m - 1.0) / 2.0 + m,
                              .par_min = BK_PAR_MIN_PAIRS / 8.0};
  bk_paced_for(&loop, c->d, c->nthreads, c->pace);
}

/* the relevances, once, before the first round */
static int mrmr_begin(void *ctx, double sigma, const int *set, ptrdiff_t ns,
                      double sgn, double *h)
{
  mrmr_ctx *c = (mrmr_ctx *) ctx;
  (void) sigma;
  (void) set;
  (void) ns;
  (void) sgn;
  if (!c->have_rel) {
    bk_feature_dot(c->x, c->m, c->d, c->kern, NULL, c->W, c->rel, c->dot,
                   c->simd, c->nthreads, c->pace);
    if (c->normalize) mrmr_self(c);
    c->have_rel = 1;
  }
  if (h) *h = NAN;
  return 0;
}

static double mrmr_score_one(void *ctx, double sigma, ptrdiff_t j, double sgn,
                             int tid)
{
  const mrmr_ctx *c = (const mrmr_ctx *) ctx;
  (void) sigma;
  (void) sgn;
  (void) tid;
  if (!c->normalize) {
    if (c->nsel == 0) return c->rel[j];
    return c->rel[j] - c->red[j] / (double) c->nsel;
  }
  /* a constant feature: no relevance, and as redundant as can be */
  if (!(c->self[j] > 0.0)) return c->nsel == 0 ? 0.0 : -1.0;
  double r = c->rel[j] / c->ynorm;
  if (c->nsel > 0) r -= c->red[j] / (double) c->nsel;
  return r / sqrt(c->self[j]);
}

static double mrmr_cost(void *ctx, int *chunk)
{
  (void) ctx;
  *chunk = 1;
  return 0.0; /* O(1): never worth a parallel region */
}

/* Ws = the weights of the kernel of feature s, as weight_matrix() (R/hsic.R)
 * makes them from a label kernel: H K H / (m - 1)^2 (HSIC0, Gretton et al.
 * 2005), or those of HSIC1 (Song et al. 2012, eq. 5) */
static void mrmr_weights(mrmr_ctx *c, ptrdiff_t s)
{
  const ptrdiff_t m = c->m;
  double *K = c->Ws, *r = c->rmean;
  bk_kernel k = c->kern;
  bk_gram(c->x + m * s, m, 1, &k, K, NULL, 1);
  if (c->unbiased)
    for (ptrdiff_t a = 0; a < m; a++) K[a + m * a] = 0.0;
  double g = 0.0;
  for (ptrdiff_t b = 0; b < m; b++) {
    double t = 0.0;
    for (ptrdiff_t a = 0; a < m; a++) t += K[a + m * b];
    r[b] = c->unbiased ? t : t / (double) m;
    g += r[b];
  }
  const double mm = (double) m;
  if (!c->unbiased) {
    g /= mm;
    const double f = 1.0 / ((mm - 1.0) * (mm - 1.0));
    for (ptrdiff_t b = 0; b < m; b++)
      for (ptrdiff_t a = 0; a < m; a++)
        K[a + m * b] = (K[a + m * b] - r[a] - r[b] + g) * f;
    return;
  }
  const double add = g / ((mm - 1.0) * (mm - 2.0)), f = 1.0 / (mm * (mm - 3.0));
  for (ptrdiff_t b = 0; b < m; b++)
    for (ptrdiff_t a = 0; a < m; a++)
      K[a + m * b] = a == b ? 0.0
                            : (K[a + m * b] + add - (r[a] + r[b]) / (mm - 2.0)) * f;
}

/* features join: each one's redundancy with every feature, in the order of
 * cols (a fixed order of sums) */
static void mrmr_update(void *ctx, const int *cols, ptrdiff_t n, double sgn)
{
  mrmr_ctx *c = (mrmr_ctx *) ctx;
  (void) sgn;
  for (ptrdiff_t i = 0; i < n; i++) {
    const ptrdiff_t s = cols[i];
    mrmr_weights(c, s);
    bk_feature_dot(c->x, c->m, c->d, c->kern, NULL, c->Ws, c->inc, c->dot,
                   c->simd, c->nthreads, c->pace);
    /* normalize: each HSIC(x_j, x_s) over sqrt(HSIC(x_s, x_s)) here, over
     * sqrt(HSIC(x_j, x_j)) in the score */
    const double ns = c->normalize ? (c->self[s] > 0.0 ? sqrt(c->self[s]) : 0.0)
                                   : 1.0;
    for (ptrdiff_t j = 0; j < c->d; j++) {
      const double v = ns > 0.0 ? c->inc[j] / ns : 0.0;
      if (c->in_set[j])
        c->pair_sum += c->normalize ? (c->self[j] > 0.0 ? v / sqrt(c->self[j]) : 0.0)
                                    : v;
      c->red[j] += v;
    }
    c->in_set[s] = 1;
    c->rel_sum += c->normalize ? (ns > 0.0 ? c->rel[s] / c->ynorm / ns : 0.0)
                               : c->rel[s];
    c->nsel++;
  }
}

/* The path's value of the set (Peng et al. 2005, eq. 7 with its terms as
 * means): its mean relevance minus its mean redundancy over the pairs of
 * distinct features */
static int mrmr_hsic(void *ctx, double sigma, const int *set, ptrdiff_t ns,
                     double *h)
{
  const mrmr_ctx *c = (const mrmr_ctx *) ctx;
  (void) sigma;
  (void) set;
  const double n = (double) ns;
  *h = c->rel_sum / n - (ns > 1 ? c->pair_sum / (n * (n - 1.0) / 2.0) : 0.0);
  return 0;
}

ptrdiff_t bk_mrmr_work_doubles(ptrdiff_t m, ptrdiff_t d, int nthreads)
{
  const ptrdiff_t nt = nthreads > 1 ? nthreads : 1;
  return 6 * d + m * m + m * nt + BK_FEATURE_DOT_WORK(m, nt) + 8;
}

ptrdiff_t bk_mrmr_work_ints(ptrdiff_t d)
{
  return bk_select_work_ints(d) + d;
}

ptrdiff_t bk_select_mrmr(const double *x, ptrdiff_t m, ptrdiff_t d,
                         const double *W, const bk_mrmr_opts *o,
                         const bk_mrmr_out *out, double *work, int *iwork,
                         bk_tick_fn tick, void *tctx)
{
  const bk_width_policy wp = {.type = o->kern.type, .policy = o->policy,
                              .fixed = o->kern.p1};
  mrmr_ctx c = {.x = x, .W = W, .m = m, .d = d, .kern = o->kern,
                .unbiased = o->unbiased, .simd = o->simd,
                .nthreads = o->nthreads, .pace = o->pace,
                .normalize = o->ynorm > 0.0, .ynorm = o->ynorm};
  c.sigma = bk_choose_width(&wp, 1, NULL, NULL, NULL, NULL);
  if (!isnan(c.sigma)) c.kern.p1 = c.sigma;
  double *sortbuf = work;
  c.rel = out->relevance;
  c.self = out->self;
  c.red = sortbuf + 3 * d;
  c.inc = c.red + d;
  c.Ws = c.inc + d;
  c.rmean = c.Ws + m * m;
  c.dot = c.rmean + m * (o->nthreads > 1 ? o->nthreads : 1);
  c.in_set = iwork + bk_select_work_ints(d);
  for (ptrdiff_t j = 0; j < d; j++) {
    c.red[j] = 0.0;
    c.in_set[j] = 0;
  }
  const bk_scorer sc = {.ctx = &c, .width = mrmr_width, .begin = mrmr_begin,
                        .score_one = mrmr_score_one, .cost = mrmr_cost,
                        .update = mrmr_update, .hsic = mrmr_hsic};
  const bk_schedule_opts so = {.direction = BK_FORWARD, .step = o->step,
                               .n_target = o->n_target,
                               .nthreads = o->nthreads, .pace = o->pace};
  int fail;
  return bk_schedule(&sc, d, &so, out->rank, out->score, out->iter, out->path,
                     sortbuf, iwork, &fail, tick, tctx);
}
