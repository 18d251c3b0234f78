/*
 * scorer_pairs.c: the exact and block estimators of HSIC as a scorer of the
 * selection schedule (schedule.c). Numeric core: no R API.
 *
 * Both estimators are linear in the data kernel, HSIC(K) = sum(K o W) with W
 * made once from the labels (weight_matrix() in R), so a candidate set costs
 * one pass over the m (m - 1) / 2 pairs. The kernels depend on the features
 * through a sum over them: squared distances for the distance kernels,
 * inner products for the others (the kernel table, codes.h). The sum Q over
 * the current set is kept (packed upper triangle) and updated as features
 * leave (BAHSIC) or join (FOHSIC); a candidate j is then scored from
 * Q -/+ q_j(a, b) in the same pass that evaluates the kernel, so no Gram
 * matrix is ever rebuilt. The Gaussian kernel takes the vectorised pass of
 * pairs.c, every other kernel bk_kernel_eval().
 *
 * approx = "block" (Zaremba et al. 2013) is the same pass over a list of
 * sample blocks: Q and W hold the pairs within each block only, so a
 * candidate costs O(m B); the exact estimator is the one block of all m
 * samples.
 */
#include <math.h>
#include <string.h>
#include "select.h"
#include "pairs.h"
#include "series.h"

#define PAIRS(m) ((m) * ((m) - 1) / 2)

#define ADD4_ARGS                                                             \
  double *q, const double *x0, const double *x1, const double *x2,           \
      const double *x3, ptrdiff_t b, double sgn
typedef void (*add4_fn)(ADD4_ARGS);

typedef struct {
  const double *x;
  ptrdiff_t m;       /* rows of x (all blocks) */
  ptrdiff_t d;       /* columns of x */
  /* the blocks of samples: block k is rows row0[k] .. row0[k + 1] - 1 of x,
   * its pairs at pair0[k] .. pair0[k + 1] - 1 of Q and Wp (the exact
   * estimator: one block of all m samples) */
  ptrdiff_t nblk;
  const ptrdiff_t *row0, *pair0;
  int dist;          /* Q holds squared distances (1) or inner products (0) */
  bk_kernel kern;
  bk_width_policy wp;
  double *Q, *Qd;    /* packed pairs a < b; diagonal (inner products only) */
  double *Qfull;     /* FOHSIC "optimize": Q of all features (reference) */
  double *mwork;     /* the median's workspace ("optimize") */
  const double *Wp, *Wd; /* packed off-diagonal and diagonal of W */
  bk_gauss_pass_fn pass; /* the Gaussian candidate loop for this iteration */
  double maxrange2;  /* the largest squared range of a feature */
  int simd, nthreads;
  const bk_series *series; /* the series screen, or NULL */
  add4_fn add4;      /* update_Q's loop over four columns */
  bk_series_round sr; /* the screen's iteration (M formed by its first call) */
  bk_pacer *pace;    /* checks between groups of update_Q()'s columns */
  bk_par_watch par;  /* the gate of its parallel regions */
} pairs_state;
BK_SCORER_FITS(pairs_state);

/* kernel of a value of Q at the iteration's width */
static inline double kvalue(const bk_kernel *k, double sigma, double q)
{
  return bk_kernel_eval(k->type, bk_kernel_has_width(k->type) ? sigma : k->p1,
                        k->p2, q);
}

/* HSIC of the set whose Q is st->Q changed by sgn times feature column xj
 * (xj = NULL: the set itself):
 *   sum_a W_aa k_aa + 2 sum_{a<b} W_ab k(Q_ab + sgn q_j(a, b)). */
static double set_hsic(const pairs_state *st, double sigma, const double *xj,
                       double sgn)
{
  const ptrdiff_t m = st->m;
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

/* The block of row r: the k with row0[k] <= r < row0[k + 1]. */
static ptrdiff_t block_of(const pairs_state *st, ptrdiff_t r)
{
  ptrdiff_t lo = 0, hi = st->nblk - 1;
  while (lo < hi) {
    ptrdiff_t mid = lo + (hi - lo + 1) / 2;
    if (st->row0[mid] <= r) lo = mid; else hi = mid - 1;
  }
  return lo;
}

/* q[a] += sgn (x_a - x_b)^2 for a < b and the four columns x0..x3, in
 * that order (the very sums of one column at a time) */
#define ADD4_BODY                                                             \
  const double b0 = x0[b], b1 = x1[b], b2 = x2[b], b3 = x3[b];               \
  BK_SIMD                                                                    \
  for (ptrdiff_t a = 0; a < b; a++) {                                        \
    const double u0 = x0[a] - b0, u1 = x1[a] - b1, u2 = x2[a] - b2,          \
                 u3 = x3[a] - b3;                                            \
    double v = q[a];                                                         \
    v += sgn * (u0 * u0);                                                    \
    v += sgn * (u1 * u1);                                                    \
    v += sgn * (u2 * u2);                                                    \
    v += sgn * (u3 * u3);                                                    \
    q[a] = v;                                                                \
  }
static void add4(ADD4_ARGS) { ADD4_BODY }
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* AVX2 without FMA: no product is fused, so the sums are bit for bit those
 * of the baseline loop, four wide */
__attribute__((target("avx2"))) static void add4_avx2(ADD4_ARGS) { ADD4_BODY }
#endif
static add4_fn pick_add4(int simd)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (simd && bk_cpu_has_avx2_fma()) return add4_avx2;
#endif
  (void) simd;
  return add4;
}

#define UPDATE_ROWS 16

/* update_cols() on the rows rlo .. rhi - 1 */
static void update_rows(const pairs_state *st, double *Q, const int *cols,
                        ptrdiff_t ncols, double sgn, int clamp, ptrdiff_t rlo,
                        ptrdiff_t rhi)
{
  const ptrdiff_t m = st->m;
  const double *x = st->x;
  const int dist = st->dist;
  ptrdiff_t c = 0;
  if (dist) {
    /* four columns per pass over q: the same sums in the same order as
     * one column at a time, with a quarter of the loads and stores of q */
    for (; c + 4 <= ncols; c += 4) {
      for (ptrdiff_t r = rlo; r < rhi; r++) {
        const ptrdiff_t k = block_of(st, r), r0 = st->row0[k], b = r - r0;
        if (b == 0) continue;
        st->add4(Q + st->pair0[k] + PAIRS(b), x + m * cols[c] + r0,
                 x + m * cols[c + 1] + r0, x + m * cols[c + 2] + r0,
                 x + m * cols[c + 3] + r0, b, sgn);
      }
    }
  }
  for (ptrdiff_t r = rlo; r < rhi; r++) {
    const ptrdiff_t k = block_of(st, r), r0 = st->row0[k], b = r - r0;
    if (b == 0) continue;
    double *q = Q + st->pair0[k] + PAIRS(b);
    for (ptrdiff_t cc = c; cc < ncols; cc++) {
      const double *xj = x + m * cols[cc] + r0;
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
    if (clamp && dist && sgn < 0)
      for (ptrdiff_t a = 0; a < b; a++) q[a] = q[a] > 0.0 ? q[a] : 0.0;
  }
}

/* Q += sgn * sum over the columns cols of q_j: the update when features
 * leave (sgn = -1) or join (sgn = +1) the set. The columns of the packed
 * triangles (one per row of x, within its block) are independent, so they
 * are shared between threads, whatever the number of blocks. */
static void update_cols(pairs_state *st, double *Q, const int *cols,
                        ptrdiff_t ncols, double sgn, int clamp)
{
  const ptrdiff_t m = st->m;
  const int nthreads = st->nthreads;
  /* an update's pair operation costs about a third of a scored pair's */
  const double ops = (double) ncols * (double) st->pair0[st->nblk];
  const int par = bk_par_go(&st->par, nthreads, ops, 2.0);
  /* rows in chunks of UPDATE_ROWS: a chunk's pairs stay in cache while
   * every column passes over them (the column-by-column sums of each pair
   * are in the same order for any chunking); in parallel, at least four
   * chunks per thread, the last rows (the most pairs) first, so that the
   * threads finish together */
  ptrdiff_t rows = UPDATE_ROWS;
  if (par && rows * 4 * nthreads > m) {
    rows = m / (4 * (ptrdiff_t) nthreads);
    if (rows < 1) rows = 1;
  }
  const ptrdiff_t nchunk = (m + rows - 1) / rows;
  const double t0 = par ? bk_par_now() : 0.0;
  double busy = 0.0;
#ifdef _OPENMP
#pragma omp parallel num_threads(nthreads) if (par) reduction(+ : busy)
#endif
  {
    const double s0 = par ? bk_par_now() : 0.0;
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1) nowait
#endif
    for (ptrdiff_t i = 0; i < nchunk; i++) {
      const ptrdiff_t rlo = (nchunk - 1 - i) * rows;
      update_rows(st, Q, cols, ncols, sgn, clamp, rlo,
                  rlo + rows < m ? rlo + rows : m);
    }
    if (par) busy += bk_par_now() - s0;
  }
  if (par) bk_par_watched(&st->par, ops, 2.0, bk_par_now() - t0, busy);
  if (!st->dist) {
    for (ptrdiff_t c = 0; c < ncols; c++) {
      const double *xj = st->x + m * cols[c];
      for (ptrdiff_t a = 0; a < m; a++) st->Qd[a] += sgn * xj[a] * xj[a];
    }
  }
}

/* update_cols() in groups of columns of about BK_CHECK_OPS pair updates,
 * an interrupt check between groups (on the main thread, between parallel
 * regions). The groups are multiples of four columns, as update_cols()'s
 * passes, so every pair's sum runs over the columns in the same order, and
 * the clamp comes after the last group: the same bits as one call. */
static void update_Q(pairs_state *st, double *Q, const int *cols,
                     ptrdiff_t ncols, double sgn)
{
  const ptrdiff_t P = st->pair0[st->nblk];
  ptrdiff_t group = bk_pace_group(st->pace, (double) P, ncols, 4);
  group = (group + 3) / 4 * 4;
  for (ptrdiff_t c0 = 0; c0 < ncols || c0 == 0; c0 += group) {
    const ptrdiff_t n = ncols - c0 < group ? ncols - c0 : group;
    update_cols(st, Q, cols + c0, n, sgn, c0 + n >= ncols);
    bk_pace(st->pace, n * P);
  }
}

/* The median of the n within-block squared distances q (their square roots
 * when squared = 0), with the conventions of bk_median_triangle(): the mean
 * of the two middle values, and over the values that do not tie when those
 * do (bk_median_tie_floor(), the rule for ties). work: n doubles. */
static double pairs_median(const double *q, ptrdiff_t n, int squared,
                           double *work)
{
  if (n < 1) return NAN;
  memcpy(work, q, (size_t) n * sizeof(double));
  ptrdiff_t k = (n - 1) / 2, ties = 0, nz = n;
  double lo = bk_select(work, n, k), hi = lo;
  if (n % 2 == 0) hi = bk_select(work, n, k + 1);
  double top = 0.0;
  for (ptrdiff_t i = 0; i < n; i++) top = q[i] > top ? q[i] : top;
  const double tie = bk_median_tie_floor(hi, top);
  if (tie >= 0.0) {
    for (ptrdiff_t i = 0; i < n; i++) ties += q[i] <= tie;
    nz = n - ties;
    if (nz == 0) return 0.0;
    k = ties + (nz - 1) / 2;
    lo = hi = bk_select(work, n, k);
    if (nz % 2 == 0) hi = bk_select(work, n, k + 1);
  }
  if (!squared) {
    lo = sqrt(lo);
    hi = sqrt(hi);
  }
  return 0.5 * (lo + hi);
}

/* bk_choose_width()'s callbacks: st->Q is the reference set's Q while it
 * runs */
static double ref_median(void *ctx, int squared)
{
  const pairs_state *st = ctx;
  return st->nblk == 1
             ? bk_median_triangle(st->Q, st->m, 1, squared, st->mwork)
             : pairs_median(st->Q, st->pair0[st->nblk], squared, st->mwork);
}

static double ref_hsic(void *ctx, double sigma, int *fail)
{
  (void) fail; /* set_hsic() cannot fail */
  return set_hsic(ctx, sigma, NULL, 0.0);
}

static double max_of(const double *v, ptrdiff_t n)
{
  double mx = 0.0;
  for (ptrdiff_t i = 0; i < n; i++) mx = v[i] > mx ? v[i] : mx;
  return mx;
}

/* ---- the hooks (bk_scorer) ---- */

/* the reference set is the current set (Q) or, in FOHSIC's first
 * iteration, all features (Qfull) */
static int pairs_width(void *ctx, ptrdiff_t s, const int *ref, ptrdiff_t nref,
                       int is_set, double *sigma, double *h)
{
  pairs_state *st = ctx;
  (void) ref;
  (void) nref;
  double *saveQ = st->Q;
  if (!is_set) st->Q = st->Qfull;
  *sigma = bk_choose_width(&st->wp, s, ref_median, ref_hsic, st, h);
  st->Q = saveQ;
  return 0;
}

static int pairs_begin(void *ctx, double sigma, const int *set, ptrdiff_t ns,
                       double sgn, double *h)
{
  pairs_state *st = ctx;
  (void) set;
  (void) ns;
  if (h && isnan(*h)) *h = set_hsic(st, sigma, NULL, 0.0);
  /* a removal's squared distances are <= Q, an addition's <= Q + its
   * range^2: the exp needs no clamp when sigma times that is <= 708 */
  const double top = max_of(st->Q, st->pair0[st->nblk]) +
                     (sgn > 0 ? st->maxrange2 : 0.0);
  st->pass = bk_pick_gauss_pass(sigma * top <= 708.0, st->simd);
  return 0;
}

static double pairs_score(void *ctx, double sigma, ptrdiff_t j, double sgn,
                          int tid)
{
  const pairs_state *st = ctx;
  (void) tid;
  return set_hsic(st, sigma, st->x + st->m * j, sgn);
}

static double pairs_cost(void *ctx, int *chunk)
{
  const pairs_state *st = ctx;
  const ptrdiff_t P = st->pair0[st->nblk];
  /* chunks of about 2^16 pairs keep the scheduling cost small */
  *chunk = (int) (1 + 65536 / (P > 0 ? P : 1));
  return (double) P;
}

static void pairs_update(void *ctx, const int *cols, ptrdiff_t n, double sgn)
{
  pairs_state *st = ctx;
  update_Q(st, st->Q, cols, n, sgn);
}

/* Recompute Q from the survivors (the cost of one candidate pass without
 * the kernel) after many downdates, so rounding cannot pile up; and always
 * for the kernels of sqrt(Q) (a distance kernel whose width does not
 * multiply the squared distance): two samples that agree on every
 * surviving feature must get a distance of exactly 0, which a downdate
 * leaves as a rounding residue that sqrt() blows up. */
static int pairs_stale(void *ctx, ptrdiff_t since, ptrdiff_t ns)
{
  const pairs_state *st = ctx;
  return since > ns || (st->dist && !bk_kernel_has(st->kern.type,
                                                    BK_KPROP_SQUARED));
}

static void pairs_refresh(void *ctx, const int *set, ptrdiff_t ns)
{
  pairs_state *st = ctx;
  memset(st->Q, 0, (size_t) st->pair0[st->nblk] * sizeof(double));
  memset(st->Qd, 0, (size_t) st->m * sizeof(double));
  update_Q(st, st->Q, set, ns, 1.0);
}

static int pairs_hsic(void *ctx, double sigma, const int *set, ptrdiff_t ns,
                      double *h)
{
  (void) set;
  (void) ns;
  *h = set_hsic(ctx, sigma, NULL, 0.0);
  return 0;
}

/* The number of series terms of an iteration whose kernel factors
 * exp(t delta) have |t| delta <= y for every candidate: for the cheap
 * intervals of all candidates (fine = 0; 0 terms: score them all) and the
 * narrow ones of the few left in doubt (fine = 1). */
/* The thresholds were chosen by measurement: a build with
 * -DBK_SERIES_TRACE prints, per iteration, the candidates given each number
 * of terms, those left in doubt and those scored exactly, and reads the
 * thresholds from the environment (BK_COARSE1, BK_COARSE2, BK_COARSE3,
 * BK_FINE3). Weighting the counts by the measured cost per candidate-pair
 * (one term, four candidates at once: 0.075 ns; two: 0.33; three: 0.55;
 * the exact pass: 1.44) on ALL, the cost was flat (0.19-0.21 s) for the
 * one-term limit between 0.02 and 0.1 and the others up to 0.2 / 0.5, and
 * two terms for the narrow intervals accepted almost none at y = 0.005
 * (their bound is too loose), so they take three. */
#ifdef BK_SERIES_TRACE
#include <stdio.h>
#include <stdlib.h>
static double env_or(const char *name, double v)
{
  const char *s = getenv(name);
  return s ? atof(s) : v;
}
#else
#define env_or(name, v) (v)
#endif
static int series_terms(const bk_series *se, double y, int fine)
{
  if (se->terms > 0) return fine ? BK_SERIES_MAX_TERMS : se->terms;
  if (fine) return y <= env_or("BK_FINE3", 0.5) ? 3 : 0;
  if (y <= env_or("BK_COARSE1", 0.1)) return 1;
  if (y <= env_or("BK_COARSE2", 0.2)) return 2;
  if (y <= env_or("BK_COARSE3", 0.5)) return 3;
  return 0;
}

/* The interval of the candidate at sortbuf entry e with n terms (0: none,
 * [-Inf, Inf], so that it is scored) */
static void screen_one(const pairs_state *st, const bk_series_round *sr,
                       int n, const double *fstats, double *pw, double *e)
{
  const ptrdiff_t j = (ptrdiff_t) e[1];
  if (n > 0)
    bk_series_interval(sr, n, st->x + st->m * j, fstats + 2 * j, pw, e, e + 2);
  if (n < 1 || !isfinite(e[0]) || !isfinite(e[2])) {
    e[0] = -INFINITY;
    e[2] = INFINITY;
  }
}

/* The candidates (sortbuf positions c = pick[i], pick NULL: c = i, i < n)
 * by their number of terms from their own squared range, into byterms: the
 * single-term ones first (c), the others from the end (c + terms / 8);
 * returns the number of single-term ones */
static ptrdiff_t sort_by_terms(const pairs_state *st, double sigma,
                               const int *pick, ptrdiff_t n,
                               const double *sortbuf, int fine,
                               double *byterms)
{
  const bk_series *se = st->series;
  const ptrdiff_t m = st->m, P = m * (m - 1) / 2;
  const double *fstats = se->work + P + 2 * m;
  ptrdiff_t n1 = 0, nrest = 0;
  for (ptrdiff_t i = 0; i < n; i++) {
    const ptrdiff_t c = pick ? pick[i] : i, j = (ptrdiff_t) sortbuf[3 * c + 1];
    const int t = series_terms(se, sigma * fstats[2 * j + 1], fine);
    if (t == 1)
      byterms[n1++] = (double) c;
    else
      byterms[n - 1 - nrest++] = (double) c + (double) t / 8.0;
  }
#ifdef BK_SERIES_TRACE
  {
    ptrdiff_t cnt[4] = {0, n1, 0, 0};
    for (ptrdiff_t i = n - nrest; i < n; i++)
      cnt[(int) nearbyint((byterms[i] - floor(byterms[i])) * 8.0)]++;
    fprintf(stderr, "T fine %d m %td t0 %td t1 %td t2 %td t3 %td\n", fine, m,
            cnt[0], cnt[1], cnt[2], cnt[3]);
  }
#endif
  return n1;
}

/* whether any of the n entries of byterms has terms (a fractional part) */
static int any_terms(const double *byterms, ptrdiff_t n)
{
  ptrdiff_t some = 0;
  for (ptrdiff_t i = 0; i < n && !some; i++)
    some = byterms[i] - floor(byterms[i]) > 0.0;
  return some != 0;
}

/* The single-term intervals of the four candidates at sortbuf positions
 * byterms[0..3], at once; one not finite becomes [-Inf, Inf] */
static void screen_four(const pairs_state *st, const bk_series_round *sr,
                        const double *byterms, const double *fstats,
                        double *pw, double *sortbuf)
{
  const double *xs[4], *fs[4];
  double *lo[4], *hi[4];
  for (ptrdiff_t c = 0; c < 4; c++) {
    double *e = sortbuf + 3 * (ptrdiff_t) byterms[c];
    const ptrdiff_t j = (ptrdiff_t) e[1];
    xs[c] = st->x + st->m * j;
    fs[c] = fstats + 2 * j;
    lo[c] = e;
    hi[c] = e + 2;
  }
  bk_series_interval4(sr, xs, fs, pw, lo, hi);
  for (ptrdiff_t c = 0; c < 4; c++) {
    if (!isfinite(*lo[c]) || !isfinite(*hi[c])) {
      *lo[c] = -INFINITY;
      *hi[c] = INFINITY;
    }
  }
}

/* The screen's M and its sums for the iteration (bk_series_prepare()), by
 * threads of its own from some 10^5 pairs (not in the screen's region,
 * whose barriers would have threads wait for each other on a busy
 * machine); scratch: the threads' scratch */
static void prepare_round(pairs_state *st, double sigma, double sgn,
                          double *scratch)
{
  const ptrdiff_t m = st->m;
  const int nthreads = st->nthreads,
            par = nthreads > 1 && bk_par_free(&st->par) &&
                  (double) PAIRS(m) >= BK_PAR_MIN_PAIRS / 8.0;
  (void) par; /* used by the pragma only: unused without OpenMP */
  st->sr.simd = st->simd && bk_cpu_has_avx2_fma();
#ifdef _OPENMP
#pragma omp parallel num_threads(nthreads) if (par)
#endif
  bk_series_prepare(&st->sr, st->Q, st->Wp, st->Wd, m, sigma, sgn,
                    st->series->work, scratch, BK_SERIES_STRIDE(m));
}

static int pairs_screen(void *ctx, double sigma, const int *pick, ptrdiff_t n,
                        double sgn, double *sortbuf, int fine,
                        const bk_screen_then *then)
{
  pairs_state *st = ctx;
  const bk_series *se = st->series;
  /* (fewer than two samples: no pairs, and no thread scratch to prepare) */
  if (!se || st->kern.type != BK_GAUSSIAN || st->nblk != 1 || !(sigma >= 0.0) ||
      st->m < 2)
    return 0;
  const ptrdiff_t m = st->m, P = m * (m - 1) / 2;
  const double *fstats = se->work + P + 2 * m;
  /* the candidates by their number of terms: the single-term ones first,
   * in groups of four */
  double *byterms = se->work + P + 2 * m + 2 * st->d;
  const ptrdiff_t n1 = sort_by_terms(st, sigma, pick, n, sortbuf, fine, byterms);
  /* decline when no candidate can be screened */
  if (n1 == 0 && !fine && !any_terms(byterms, n)) return 0;
  const bk_series_round *sr = &st->sr;
  double *scratch = byterms + st->d;
  const int nthreads = st->nthreads;
  /* a candidate-pair of the screen costs a fraction of a scored one's (a
   * quarter; half where then scores some of them) */
  const double scale = then ? 2.0 : 4.0;
  const int par = bk_par_go(&st->par, nthreads, (double) n * (double) P, scale);
  const ptrdiff_t ng = n1 / 4, nunits = ng + (n - 4 * ng);
  /* a few units still reach every thread (one at a time where then may
   * score some exactly) */
  const int chunk = nunits >= 8 * (ptrdiff_t) nthreads && !then ? 4 : 1;
  /* the units in groups of about BK_CHECK_OPS operations (a unit: up to
   * four candidates of a few passes over the pairs), an interrupt check
   * between groups; each unit writes its own candidates' intervals */
  const ptrdiff_t group = bk_pace_group(st->pace, 4.0 * (double) P, nunits,
                                        4 * (ptrdiff_t) nthreads);
  /* M and its sums are the same for both calls of an iteration */
  if (!fine) prepare_round(st, sigma, sgn, scratch);
  for (ptrdiff_t u0 = 0; u0 < nunits; u0 += group) {
    const ptrdiff_t u1 = u0 + group < nunits ? u0 + group : nunits;
    const double t0 = par ? bk_par_now() : 0.0;
    double busy = 0.0;
#ifdef _OPENMP
#pragma omp parallel num_threads(nthreads) if (par) reduction(+ : busy)
#endif
    {
      const double s0 = par ? bk_par_now() : 0.0;
#ifdef _OPENMP
#pragma omp for schedule(dynamic, chunk) nowait
#endif
      for (ptrdiff_t u = u0; u < u1; u++) {
        double *pw = scratch + BK_SERIES_STRIDE(m) * bk_thread_id();
        if (u < ng) {
          screen_four(st, sr, byterms + 4 * u, fstats, pw, sortbuf);
          for (ptrdiff_t c = 0; then && c < 4; c++)
            then->fn(then->ctx, sortbuf + 3 * (ptrdiff_t) byterms[4 * u + c],
                     bk_thread_id());
        } else {
          const ptrdiff_t at = 4 * ng + (u - ng);
          const double v = byterms[at], c = floor(v);
          screen_one(st, sr, at < n1 ? 1 : (int) nearbyint((v - c) * 8.0),
                     fstats, pw, sortbuf + 3 * (ptrdiff_t) c);
          if (then) then->fn(then->ctx, sortbuf + 3 * (ptrdiff_t) c, bk_thread_id());
        }
      }
      if (par) busy += bk_par_now() - s0;
    }
    if (par)
      bk_par_watched(&st->par, (double) n * (double) P, scale,
                     bk_par_now() - t0, busy);
    bk_pace(st->pace, 4 * P * (u1 - u0));
  }
  (void) par;
  (void) chunk;
  return 1;
}

ptrdiff_t bk_pairs_median_work(ptrdiff_t m, ptrdiff_t npairs, ptrdiff_t nblk)
{
  if (npairs == 0) return 0;
  return nblk == 1 ? BK_MEDIAN_WORK(m) : npairs + 1;
}

ptrdiff_t bk_pairs_work_doubles(ptrdiff_t m, const bk_blocks *blk)
{
  const ptrdiff_t P = blk->pair0[blk->nblk];
  return 2 * P + bk_pairs_median_work(m, P, blk->nblk) + m;
}

/* the largest squared range of a column of x (m x d), the columns shared
 * between nthreads threads (the largest is the same in any order) */
static double max_range2(const double *x, ptrdiff_t m, ptrdiff_t d,
                         int nthreads)
{
  double top = 0.0;
  /* m = 0: no pairs, and no xj[0] to start the range from */
  if (m < 1) return top;
  (void) nthreads; /* used by the pragma only: unused without OpenMP */
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(nthreads) \
    if (nthreads > 1) reduction(max : top)
#endif
  for (ptrdiff_t j = 0; j < d; j++) {
    const double *xj = x + m * j;
    double lo = xj[0], hi = xj[0];
    for (ptrdiff_t a = 1; a < m; a++) {
      lo = xj[a] < lo ? xj[a] : lo;
      hi = xj[a] > hi ? xj[a] : hi;
    }
    double r2 = (hi - lo) * (hi - lo);
    top = r2 > top ? r2 : top;
  }
  return top;
}

bk_scorer bk_pairs_scorer(const double *x, ptrdiff_t m, ptrdiff_t d,
                          const bk_pairs_select *ps, const bk_select_opts *o,
                          int *iwork, bk_scorer_mem *mem)
{
  const bk_blocks *blk = &ps->blk;
  const ptrdiff_t P = blk->pair0[blk->nblk];
  double *Q = ps->work, *Qfull = Q + P, *mwork = Qfull + P,
         *Qd = mwork + bk_pairs_median_work(m, P, blk->nblk);
  pairs_state *st = (pairs_state *) mem;
  *st = (pairs_state){
      .x = x, .m = m, .d = d, .nblk = blk->nblk, .row0 = blk->row0,
      .pair0 = blk->pair0, .dist = bk_kernel_uses_distance(o->kern.type),
      .kern = o->kern, .wp = bk_select_width_policy(o), .Q = Q, .Qd = Qd,
      .Qfull = Qfull, .mwork = mwork, .Wp = ps->Wp, .Wd = ps->Wd,
      .pass = bk_pick_gauss_pass(0, o->simd),
      .simd = o->simd, .nthreads = o->nthreads, .series = o->series,
      .add4 = pick_add4(o->simd), .pace = o->pace};
  bk_par_watch_init(&st->par, o->nthreads);
  /* the columns' ranges (and the screen's means), one pass over x: on
   * threads from BK_PAR_MIN_PAIRS values, as the rest of the core (the
   * columns' own numbers: the same for any number of threads) */
  const int cnt =
      o->nthreads > 1 && (double) m * (double) d >= BK_PAR_MIN_PAIRS ? o->nthreads : 1;
  st->maxrange2 = max_range2(x, m, d, cnt);
  memset(Q, 0, (size_t) P * sizeof(double));
  memset(Qd, 0, (size_t) m * sizeof(double));
  if (o->series)
    bk_series_features(x, m, d, o->series->work + P + 2 * m, cnt);
  if (o->direction == BK_FORWARD && o->policy == BK_SIGMA_OPTIMIZE &&
      bk_kernel_has_width(o->kern.type)) {
    /* the reference set of the first iteration is the full set */
    memset(Qfull, 0, (size_t) P * sizeof(double));
    for (ptrdiff_t j = 0; j < d; j++) iwork[j] = (int) j;
    /* (a width kernel is a distance kernel: Qd is not touched) */
    update_Q(st, Qfull, iwork, d, 1.0);
  }
  return (bk_scorer){.ctx = st, .width = pairs_width, .begin = pairs_begin,
                     .score_one = pairs_score, .cost = pairs_cost,
                     .update = pairs_update, .stale = pairs_stale,
                     .refresh = pairs_refresh, .hsic = pairs_hsic,
                     .screen = pairs_screen};
}
