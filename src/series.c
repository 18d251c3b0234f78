/*
 * series.c: the series screen of BAHSIC and FOHSIC with the Gaussian kernel
 * (the exact estimator). Numeric core: no R API.
 *
 * With Q the squared distances of the current set S and the width sigma of
 * the iteration, removing feature j (BAHSIC) multiplies the kernel value of
 * the pair (a, b) by exp(sigma delta_ab), adding it (FOHSIC) by
 * exp(-sigma delta_ab), where delta_ab = (x_aj - x_bj)^2 (Song et al. 2012,
 * section 4: the candidate sets of one iteration differ from S by one
 * feature). With t = sigma (removal) or -sigma (addition) and
 * M = W o exp(-sigma Q) formed once per iteration, a candidate's HSIC is
 *
 *   tr(W) + 2 sum_{a<b} M_ab exp(t delta_ab)
 *     = tr(W) + 2 (S0 + sum_{k=1}^n t^k / k! D_k) + remainder,
 *   S0 = sum_{a<b} M_ab,  D_k = sum_{a<b} M_ab delta_ab^k,
 *
 * and the remainder of the exponential series is at most
 * |t|^(n+1) / (n+1)! exp(max(t delta_max, 0)) times sum |M_ab| delta_ab^(n+1)
 * per pair. D_k expands, by the binomial theorem in x_a and x_b (centred
 * at the feature's mean: delta does not change), into the quadratic forms
 * (x^p)' M x^q with p + q = 2k, so a candidate costs 2n - 1 multiply-adds
 * per pair instead of one exponential per pair.
 *
 * The screen does not decide anything itself: it gives every candidate an
 * interval [lo, hi] that holds the value the exact pass (pairs.c) computes
 * for it -- the truncation bound plus a bound on the rounding of both
 * computations -- and the schedule (schedule.c) scores exactly every
 * candidate whose interval reaches the iteration's batch, so the ranking,
 * the scores and the path are those of the exact loop.
 */
#include <math.h>
#include <string.h>
#include "series.h"

#define PAIRS(m) ((m) * ((m) - 1) / 2)
#define NPOW (2 * BK_SERIES_MAX_TERMS + 2)

ptrdiff_t bk_series_work_doubles(ptrdiff_t m, ptrdiff_t d, int nthreads)
{
  const ptrdiff_t nth = nthreads > 1 ? nthreads : 1;
  return PAIRS(m) + 2 * m + 3 * d + nth * BK_SERIES_STRIDE(m);
}

/* The quadratic forms of one candidate: G[p][q] = sum_b x_b^q T_p(b) with
 * T_p(b) = sum_{a<b} M_ab x_a^p, for p, q >= 1, p + q even and <= 2n; pw:
 * the powers x^1 .. x^(2n - 1), m each. One multiply-add per pair and
 * power: the loop over a vectorises. */
#define SERIES_FORMS_BODY                                                     \
  const double *p1 = pw, *p2 = pw + m, *p3 = pw + 2 * m, *p4 = pw + 3 * m,   \
               *p5 = pw + 4 * m;                                             \
  if (n == 1) {                                                              \
    double g11 = 0.0;                                                        \
    for (ptrdiff_t b = 1; b < m; b++) {                                      \
      const double *mb = M + PAIRS(b);                                       \
      double t1 = 0.0;                                                       \
      BK_SIMD_SUM(t1)                                                        \
      for (ptrdiff_t a = 0; a < b; a++) t1 += mb[a] * p1[a];                 \
      g11 += p1[b] * t1;                                                     \
    }                                                                        \
    G[1][1] = g11;                                                           \
  } else if (n == 2) {                                                       \
    double g11 = 0.0, g13 = 0.0, g31 = 0.0, g22 = 0.0;                       \
    for (ptrdiff_t b = 1; b < m; b++) {                                      \
      const double *mb = M + PAIRS(b);                                       \
      double t1 = 0.0, t2 = 0.0, t3 = 0.0;                                   \
      BK_PRAGMA(omp simd reduction(+ : t1, t2, t3))                          \
      for (ptrdiff_t a = 0; a < b; a++) {                                    \
        const double v = mb[a];                                              \
        t1 += v * p1[a];                                                     \
        t2 += v * p2[a];                                                     \
        t3 += v * p3[a];                                                     \
      }                                                                      \
      g11 += p1[b] * t1;                                                     \
      g13 += p3[b] * t1;                                                     \
      g31 += p1[b] * t3;                                                     \
      g22 += p2[b] * t2;                                                     \
    }                                                                        \
    G[1][1] = g11;                                                           \
    G[1][3] = g13;                                                           \
    G[3][1] = g31;                                                           \
    G[2][2] = g22;                                                           \
  } else {                                                                   \
    double g11 = 0.0, g13 = 0.0, g31 = 0.0, g22 = 0.0, g15 = 0.0, g51 = 0.0, \
           g24 = 0.0, g42 = 0.0, g33 = 0.0;                                  \
    for (ptrdiff_t b = 1; b < m; b++) {                                      \
      const double *mb = M + PAIRS(b);                                       \
      double t1 = 0.0, t2 = 0.0, t3 = 0.0, t4 = 0.0, t5 = 0.0;               \
      BK_PRAGMA(omp simd reduction(+ : t1, t2, t3, t4, t5))                  \
      for (ptrdiff_t a = 0; a < b; a++) {                                    \
        const double v = mb[a];                                              \
        t1 += v * p1[a];                                                     \
        t2 += v * p2[a];                                                     \
        t3 += v * p3[a];                                                     \
        t4 += v * p4[a];                                                     \
        t5 += v * p5[a];                                                     \
      }                                                                      \
      const double x1 = p1[b], x2 = p2[b], x3 = p3[b], x4 = p4[b],           \
                   x5 = p5[b];                                               \
      g11 += x1 * t1;                                                        \
      g13 += x3 * t1;                                                        \
      g31 += x1 * t3;                                                        \
      g22 += x2 * t2;                                                        \
      g15 += x5 * t1;                                                        \
      g51 += x1 * t5;                                                        \
      g24 += x4 * t2;                                                        \
      g42 += x2 * t4;                                                        \
      g33 += x3 * t3;                                                        \
    }                                                                        \
    G[1][1] = g11;                                                           \
    G[1][3] = g13;                                                           \
    G[3][1] = g31;                                                           \
    G[2][2] = g22;                                                           \
    G[1][5] = g15;                                                           \
    G[5][1] = g51;                                                           \
    G[2][4] = g24;                                                           \
    G[4][2] = g42;                                                           \
    G[3][3] = g33;                                                           \
  }

#define SERIES_FORMS_ARGS                                                     \
  const double *M, ptrdiff_t m, const double *pw, int n,                     \
      double G[NPOW][NPOW]

#ifndef BK_PRAGMA
#define BK_PRAGMA(x)
#endif

static void series_forms(SERIES_FORMS_ARGS) { SERIES_FORMS_BODY }

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define BK_SERIES_DISPATCH 1
__attribute__((target("avx2,fma"))) static void
series_forms_avx2(SERIES_FORMS_ARGS) { SERIES_FORMS_BODY }
#endif

/* The one form of a single term, x' M x / 2 = G[1][1], for four candidates
 * at once: each M_ab loaded once for the four (p: their centred columns). */
#define SERIES_FORMS4_BODY                                                    \
  const double *p0 = p[0], *p1 = p[1], *p2 = p[2], *p3 = p[3];               \
  double g0 = 0.0, g1 = 0.0, g2 = 0.0, g3 = 0.0;                             \
  for (ptrdiff_t b = 1; b < m; b++) {                                        \
    const double *mb = M + PAIRS(b);                                         \
    double t0 = 0.0, t1 = 0.0, t2 = 0.0, t3 = 0.0;                           \
    BK_PRAGMA(omp simd reduction(+ : t0, t1, t2, t3))                        \
    for (ptrdiff_t a = 0; a < b; a++) {                                      \
      const double v = mb[a];                                                \
      t0 += v * p0[a];                                                       \
      t1 += v * p1[a];                                                       \
      t2 += v * p2[a];                                                       \
      t3 += v * p3[a];                                                       \
    }                                                                        \
    g0 += p0[b] * t0;                                                        \
    g1 += p1[b] * t1;                                                        \
    g2 += p2[b] * t2;                                                        \
    g3 += p3[b] * t3;                                                        \
  }                                                                          \
  g[0] = g0;                                                                 \
  g[1] = g1;                                                                 \
  g[2] = g2;                                                                 \
  g[3] = g3;

#define SERIES_FORMS4_ARGS                                                    \
  const double *M, ptrdiff_t m, const double *const *p, double *g

static void series_forms4(SERIES_FORMS4_ARGS) { SERIES_FORMS4_BODY }
#ifdef BK_SERIES_DISPATCH
__attribute__((target("avx2,fma"))) static void
series_forms4_avx2(SERIES_FORMS4_ARGS) { SERIES_FORMS4_BODY }
#endif

typedef void (*series_forms_fn)(SERIES_FORMS_ARGS);
typedef void (*series_forms4_fn)(SERIES_FORMS4_ARGS);

/* avx2: sr->simd, which bk_series_prepare() sets only where the CPU has
 * AVX2 and FMA */
static series_forms4_fn pick_forms4(int avx2)
{
#ifdef BK_SERIES_DISPATCH
  if (avx2) return series_forms4_avx2;
#endif
  (void) avx2;
  return series_forms4;
}

static series_forms_fn pick_forms(int avx2)
{
#ifdef BK_SERIES_DISPATCH
  if (avx2) return series_forms_avx2;
#endif
  (void) avx2;
  return series_forms;
}

/* M = W o exp(-sigma Q) over the packed pairs, its row sums r and those of
 * |M| (rbar), S0 = sum M and A = sum |M| over the pairs a < b, by every
 * thread of the calling parallel region (or by the one thread outside
 * one): the rows of M shared between the threads, then each sum in the
 * order of one thread -- row b's sums over a < b, r_a = (row a's sum) +
 * M_a,a+1 + M_a,a+2 + ..., S0 and A over the rows in order -- so the same
 * bits for any number of threads. parts: the first double of each thread's
 * scratch (thread t's at parts + stride t), its largest Q for now. The
 * caller sets sr->simd. */
void bk_series_prepare(bk_series_round *sr, const double *Q, const double *Wp,
                       const double *Wd, ptrdiff_t m, double sigma, double sgn,
                       double *work, double *parts, ptrdiff_t stride)
{
  const ptrdiff_t P = PAIRS(m);
  double *M = work, *r = M + P, *rbar = r + m;
  const double ns = -sigma;
  double qmax = 0.0;
  /* each row: M, and its sums (into r[b] and rbar[b] for now) */
#ifdef _OPENMP
#pragma omp for schedule(static, 4) nowait
#endif
  for (ptrdiff_t b = 0; b < m; b++) {
    const double *q = Q + PAIRS(b), *w = Wp + PAIRS(b);
    double *mb = M + PAIRS(b);
    BK_SIMD
    for (ptrdiff_t a = 0; a < b; a++) mb[a] = w[a] * bk_exp(ns * q[a]);
    double cb = 0.0, ab = 0.0;
    for (ptrdiff_t a = 0; a < b; a++) {
      const double v = mb[a];
      cb += v;
      ab += fabs(v);
      qmax = q[a] > qmax ? q[a] : qmax;
    }
    r[b] = cb;
    rbar[b] = ab;
  }
  parts[stride * bk_thread_id()] = qmax;
#ifdef _OPENMP
#pragma omp barrier
#pragma omp single
#endif
  {
    double S0 = 0.0, A = 0.0, tr = 0.0, top = 0.0;
    for (ptrdiff_t b = 1; b < m; b++) {
      S0 += r[b];
      A += rbar[b];
    }
#ifdef _OPENMP
    const int nt = omp_get_num_threads();
#else
    const int nt = 1;
#endif
    for (int t = 0; t < nt; t++) top = parts[stride * t] > top ? parts[stride * t] : top;
    for (ptrdiff_t a = 0; a < m; a++) tr += Wd[a];
    sr->M = M;
    sr->r = r;
    sr->rbar = rbar;
    sr->m = m;
    sr->S0 = S0;
    sr->A = A;
    sr->diag = tr; /* k(x, x) = 1: the exact pass's k(0) tr(W) */
    sr->t = -sgn * sigma;
    sr->argmax = sigma * top;
  }
  /* the row sums of the symmetric M: row a's own, then down column a */
#ifdef _OPENMP
#pragma omp for schedule(static, 4)
#endif
  for (ptrdiff_t a = 0; a < m; a++) {
    double ca = r[a], cabs = rbar[a];
    for (ptrdiff_t b = a + 1; b < m; b++) {
      const double v = M[PAIRS(b) + a];
      ca += v;
      cabs += fabs(v);
    }
    r[a] = ca;
    rbar[a] = cabs;
  }
}

/* binomial coefficients C(2k, i) for 2k <= NPOW */
static double binom(int n, int k)
{
  double c = 1.0;
  for (int i = 1; i <= k; i++) c = c * (double) (n - k + i) / (double) i;
  return c;
}

void bk_series_features(const double *x, ptrdiff_t m, ptrdiff_t d,
                        double *fstats, int nthreads)
{
  if (m < 1) return;
  (void) nthreads; /* used by the pragma only: unused without OpenMP */
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(nthreads) if (nthreads > 1)
#endif
  for (ptrdiff_t j = 0; j < d; j++) {
    const double *xj = x + m * j;
    double mean = 0.0, xmin = xj[0], xmax = xj[0];
    for (ptrdiff_t a = 0; a < m; a++) {
      mean += xj[a];
      xmin = xj[a] < xmin ? xj[a] : xmin;
      xmax = xj[a] > xmax ? xj[a] : xmax;
    }
    fstats[2 * j] = mean / (double) m;
    fstats[2 * j + 1] = (xmax - xmin) * (xmax - xmin);
  }
}

/* The centred feature's powers 1 .. 2n + 2 into pw (m each), and the sums
 * H_k = sum_a rbar_a x_a^(2k), k = 1 .. n + 1 (they bound
 * sum_{a<b} |M_ab| (x_a^2k + x_b^2k)), and F0_k = sum_a r_a x_a^(2k),
 * k = 1 .. n. */
static void series_powers(const bk_series_round *sr, int n, const double *xj,
                          double mean, double *pw, double *H, double *F0)
{
  const ptrdiff_t m = sr->m;
  for (ptrdiff_t a = 0; a < m; a++) pw[a] = xj[a] - mean;
  for (int p = 2; p <= 2 * n + 2; p++) {
    const double *prev = pw + (p - 2) * m;
    double *cur = pw + (p - 1) * m;
    for (ptrdiff_t a = 0; a < m; a++) cur[a] = prev[a] * pw[a];
  }
  for (int k = 1; k <= n + 1; k++) {
    const double *p2k = pw + (2 * k - 1) * m;
    double h = 0.0, f = 0.0;
    for (ptrdiff_t a = 0; a < m; a++) {
      h += sr->rbar[a] * p2k[a];
      f += sr->r[a] * p2k[a];
    }
    H[k] = h;
    if (k <= n) F0[k] = f;
  }
}

/* The same for a single term in one pass, only x^1 kept */
static void series_powers1(const bk_series_round *sr, const double *xj,
                           double mean, double *p1, double *H, double *F0)
{
  const double *r = sr->r, *rbar = sr->rbar;
  double h1 = 0.0, h2 = 0.0, f1 = 0.0;
  for (ptrdiff_t a = 0; a < sr->m; a++) {
    const double c = xj[a] - mean, c2 = c * c;
    p1[a] = c;
    f1 += r[a] * c2;
    h1 += rbar[a] * c2;
    h2 += rbar[a] * (c2 * c2);
  }
  H[1] = h1;
  H[2] = h2;
  F0[1] = f1;
}

/* The interval of one candidate from its squared range, forms G and sums
 * H, F0 (series_powers()). */
static void series_finish(const bk_series_round *sr, int n, double range2,
                          double G[NPOW][NPOW], const double *H,
                          const double *F0, double *lo, double *hi)
{
  const ptrdiff_t m = sr->m;
  const double t = sr->t, at = fabs(t);
  double sum = 0.0, mag = 0.0, tk = 1.0, fact = 1.0;
  for (int k = 1; k <= n; k++) {
    tk *= t;
    fact *= (double) k;
    /* D_k = F(2k, 0) + 1/2 sum_{i=1}^{2k-1} C(2k, i) (-1)^i F(2k - i, i),
     * F(p, q) = G[p][q] + G[q][p] */
    double dk = F0[k];
    for (int i = 1; i < 2 * k; i++) {
      const double f = G[2 * k - i][i] + G[i][2 * k - i];
      dk += 0.5 * binom(2 * k, i) * (i % 2 ? -f : f);
    }
    sum += tk / fact * dk;
    /* the terms summed for D_k are at most sum |M| (|x_a| + |x_b|)^2k */
    mag += fabs(tk) / fact * ldexp(H[k], 2 * k - 1);
  }
  const double approx = sr->diag + 2.0 * (sr->S0 + sum);
  const double growth = t > 0.0 ? exp(t * range2) : 1.0;
  /* the remainder: sum_{a<b} |M_ab| delta^(n+1) is at most both
   * 2^(2n+1) H_(n+1) (convexity: (u - v)^2k <= 2^(2k-1) (u^2k + v^2k)) and
   * delta_max^(n+1) A */
  double atn = 1.0, fn = 1.0;
  for (int k = 1; k <= n + 1; k++) {
    atn *= at;
    fn *= (double) k;
  }
  double r2n = range2;
  for (int k = 1; k <= n; k++) r2n *= range2;
  const double pairsum = fmin(ldexp(H[n + 1], 2 * n + 1), r2n * sr->A);
  const double trunc = 2.0 * atn / fn * growth * pairsum;
  /* rounding: the exact pass sums its terms (at most A growth in all) in
   * vector lanes of at most m / 4 + m sequential additions, each term within
   * a few ulp plus the relative error of its argument (sigma Q); the series
   * sums S0 and the forms over as many terms. A generous multiple: */
  const double kappa = 4.0 * (double) m + 64.0 + 8.0 * sr->argmax;
  /* plus the underflow of every term of both sums (absolute, not relative,
   * for results near the subnormal range) */
  const double eps = kappa * 0x1p-52 *
                         (2.0 * sr->A * growth + fabs(sr->diag) + 2.0 * mag) +
                     (8.0 * (double) PAIRS(m) + 64.0) * growth * 0x1p-1074;
  const double half = trunc + eps;
  *lo = approx - half;
  *hi = approx + half;
  if (!(*hi > *lo)) *hi = nextafter(*lo, INFINITY);
}

void bk_series_interval(const bk_series_round *sr, int n, const double *xj,
                        const double *fstat, double *pw, double *lo,
                        double *hi)
{
  /* the forms write every entry of G that series_finish() reads */
  double G[NPOW][NPOW], H[BK_SERIES_MAX_TERMS + 2], F0[BK_SERIES_MAX_TERMS + 1];
  series_powers(sr, n, xj, fstat[0], pw, H, F0);
  pick_forms(sr->simd)(sr->M, sr->m, pw, n, G);
  series_finish(sr, n, fstat[1], G, H, F0, lo, hi);
}

void bk_series_interval4(const bk_series_round *sr, const double *const *xs,
                         const double *const *fstat, double *pw,
                         double *const *lo, double *const *hi)
{
  const ptrdiff_t m = sr->m;
  double g[4], H[4][3], F0[4][2];
  const double *p[4];
  for (int c = 0; c < 4; c++) {
    p[c] = pw + m * c;
    series_powers1(sr, xs[c], fstat[c][0], pw + m * c, H[c], F0[c]);
  }
  pick_forms4(sr->simd)(sr->M, m, p, g);
  for (int c = 0; c < 4; c++) {
    double G[NPOW][NPOW]; /* one term: only G[1][1] is read */
    G[1][1] = g[c];
    series_finish(sr, 1, fstat[c][1], G, H[c], F0[c], lo[c], hi[c]);
  }
}
