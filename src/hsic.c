/*
 * hsic.c: the HSIC estimators of Song et al. 2012, section 2, their
 * variance, the null moments for the gamma test, and per-feature kernel sums.
 * Everything is O(m^2) from the Gram matrices (O(m^2 c) with a rank-c label
 * factor): no m x m x m products and no explicit centring matrix H.
 * Numeric core: no R API.
 */
#include <math.h>
#include <string.h>
#include "hsic.h"
#include "pairs.h"
#include "schedule.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Both estimators are bilinear in K and L, their variance quadratic: a
 * kernel of an extreme scale (a linear kernel on data near 1e150, a
 * polynomial one, a linear kernel on data near 1e-155) is brought to one near
 * 1 by a power of two 2^e (exact) before the sums whose products would over-
 * or underflow (m^4 K L, h^2), and the results are scaled back. A kernel
 * whose largest value lies within [2^-BK_KERNEL_RANGE, 2^BK_KERNEL_RANGE]
 * is used as it is, which leaves room for m^6 (K L)^2 up to m = 2^20. */
#define BK_KERNEL_RANGE 128

/* The exponent e (K times 2^e is of an ordinary scale; 0 for K of an
 * ordinary scale) for a kernel with diagonal kd and off-diagonal row sums k1
 * (|K_ab| <= max(K_aa, K_bb) for a positive semi-definite K; the row sums
 * cover one that is not). */
static int kernel_exponent(const double *kd, const double *k1, ptrdiff_t m)
{
  double top = 0.0, md = m > 1 ? (double) (m - 1) : 1.0;
  for (ptrdiff_t a = 0; a < m; a++) {
    double v = fabs(kd[a]), w = fabs(k1[a]) / md;
    v = v > w ? v : w;
    top = v > top ? v : top;
  }
  return bk_pow2_shift(top, BK_KERNEL_RANGE);
}

/* s plus the sum of v[lo..hi-1] (times u[lo..hi-1] in run_dot()) in two
 * lanes, the terms at even offsets from lo and those at odd ones, each in
 * order, then s + lane 0 + lane 1: the order in which gcc at -O2 sums an
 * "omp simd" reduction of doubles on x86-64 (two to a vector), written out,
 * so that a sum can also be formed a term at a time, across columns, in
 * the same order (the symmetric panels below), whatever the compiler. The
 * two lanes are one SSE2 vector where there is one (the code of the
 * vectorised loop); the same sums without. */
static inline double run_sum(double s, const double *v, ptrdiff_t lo,
                             ptrdiff_t hi)
{
  double l0 = 0.0, l1 = 0.0;
  ptrdiff_t a = lo;
#ifdef __SSE2__
  __m128d acc = _mm_setzero_pd();
  for (; a + 1 < hi; a += 2) acc = _mm_add_pd(acc, _mm_loadu_pd(v + a));
  l0 = _mm_cvtsd_f64(acc);
  l1 = _mm_cvtsd_f64(_mm_unpackhi_pd(acc, acc));
#else
  for (; a + 1 < hi; a += 2) {
    l0 += v[a];
    l1 += v[a + 1];
  }
#endif
  if (a < hi) l0 += v[a];
  return (s + l0) + l1;
}

static inline double run_dot(double s, const double *u, const double *v,
                             ptrdiff_t lo, ptrdiff_t hi)
{
  double l0 = 0.0, l1 = 0.0;
  ptrdiff_t a = lo;
#ifdef __SSE2__
  __m128d acc = _mm_setzero_pd();
  for (; a + 1 < hi; a += 2)
    acc = _mm_add_pd(acc, _mm_mul_pd(_mm_loadu_pd(u + a), _mm_loadu_pd(v + a)));
  l0 = _mm_cvtsd_f64(acc);
  l1 = _mm_cvtsd_f64(_mm_unpackhi_pd(acc, acc));
#else
  for (; a + 1 < hi; a += 2) {
    l0 += u[a] * v[a];
    l1 += u[a + 1] * v[a + 1];
  }
#endif
  if (a < hi) l0 += u[a] * v[a];
  return (s + l0) + l1;
}

/* Sums over the off-diagonal entries a != b of a column, in two runs. The
 * unbiased estimator ignores the diagonals of K and L, so it must not get
 * them by subtraction either: a kernel with a large diagonal (inverse
 * distance, 1/eps) would cancel most of the digits of the off-diagonal
 * sums. */
static inline double sum_off(const double *v, ptrdiff_t m, ptrdiff_t b)
{
  return run_sum(run_sum(0.0, v, 0, b), v, b + 1, m);
}

static inline double dot_off(const double *u, const double *v, ptrdiff_t m,
                             ptrdiff_t b)
{
  return run_dot(run_dot(0.0, u, v, 0, b), u, v, b + 1, m);
}

/* out[a] += u[a] * v[a] * scale for a != b */
static inline void axpy_off(const double *u, const double *v, double scale,
                            ptrdiff_t m, ptrdiff_t b, double *out)
{
  BK_SIMD
  for (ptrdiff_t a = 0; a < b; a++) out[a] += u[a] * v[a] * scale;
  BK_SIMD
  for (ptrdiff_t a = b + 1; a < m; a++) out[a] += u[a] * v[a] * scale;
}

void bk_kside(const double *K, ptrdiff_t m, double *kd, double *k1,
              bk_pacer *pace)
{
  /* K is symmetric: the column sum is the row sum */
  for (ptrdiff_t b = 0; b < m; b++) {
    const double *col = K + m * b;
    kd[b] = col[b];
    k1[b] = sum_off(col, m, b);
    bk_pace(pace, m);
  }
}

/* Label-side vectors for the (optionally permuted) label kernel Lp with
 * Lp[a, b] = L[perm[a], perm[b]]:
 *   ld = diag(Lp), l1 = Lp~ 1, and for the factor form also Yp (m x c, the
 *   permuted rows of Y) and KY = K~ Yp.
 * Returns tr(K~ Lp~) = sum_{a != b} K_ab Lp_ab, and fills klrow with the row
 * sums of K~ o Lp~ when klrow != NULL. */
static double label_side(const double *K, ptrdiff_t m, bk_label lab,
                         const int *perm, double *ld, double *l1,
                         double *klrow, double *Yp, double *KY, bk_pacer *pace)
{
  double T = 0.0;
  if (lab.Y == NULL) {
    const double *L = lab.L;
    for (ptrdiff_t a = 0; a < m; a++) {
      ptrdiff_t pa = perm ? perm[a] : a;
      ld[a] = L[pa + m * pa];
      l1[a] = 0.0;
      if (klrow) klrow[a] = 0.0;
    }
    for (ptrdiff_t b = 0; b < m; b++) {
      ptrdiff_t pb = perm ? perm[b] : b;
      const double *Lcol = L + m * pb, *Kcol = K + m * b;
      double s = 0.0, t = 0.0;
      if (perm) {
        for (ptrdiff_t a = 0; a < m; a++) {
          if (a == b) continue;
          double l = Lcol[perm[a]];
          s += l;
          t += Kcol[a] * l;
          if (klrow) klrow[a] += Kcol[a] * l;
        }
      } else {
        s = sum_off(Lcol, m, b);
        t = dot_off(Kcol, Lcol, m, b);
        if (klrow) axpy_off(Kcol, Lcol, 1.0, m, b, klrow);
      }
      l1[b] = s;
      T += t;
      /* a permuted column is read at random: some four times the cost */
      bk_pace(pace, perm ? 4 * m : m);
    }
    return T;
  }

  /* L = Y Y' of rank c: K Y costs O(m^2 c) and the rest O(m c). */
  ptrdiff_t c = lab.c;
  for (ptrdiff_t k = 0; k < c; k++) {
    const double *Yk = lab.Y + m * k;
    double *Ypk = Yp + m * k;
    for (ptrdiff_t a = 0; a < m; a++) Ypk[a] = Yk[perm ? perm[a] : a];
  }
  /* KY = K~ Yp, without the diagonal of K (see sum_off()) */
  memset(KY, 0, (size_t) (m * c) * sizeof(double));
  for (ptrdiff_t b = 0; b < m; b++) {
    const double *Kcol = K + m * b;
    for (ptrdiff_t k = 0; k < c; k++) {
      double yb = Yp[b + m * k];
      double *KYk = KY + m * k;
      BK_SIMD
      for (ptrdiff_t a = 0; a < b; a++) KYk[a] += Kcol[a] * yb;
      BK_SIMD
      for (ptrdiff_t a = b + 1; a < m; a++) KYk[a] += Kcol[a] * yb;
    }
    bk_pace(pace, m * c);
  }
  for (ptrdiff_t a = 0; a < m; a++) {
    ld[a] = 0.0;
    l1[a] = 0.0;
    if (klrow) klrow[a] = 0.0;
  }
  for (ptrdiff_t k = 0; k < c; k++) {
    const double *Yk = Yp + m * k, *KYk = KY + m * k;
    double ysum = 0.0;
    for (ptrdiff_t a = 0; a < m; a++) ysum += Yk[a];
    for (ptrdiff_t a = 0; a < m; a++) {
      ld[a] += Yk[a] * Yk[a];
      l1[a] += Yk[a] * ysum;
      double kl = Yk[a] * KYk[a];
      T += kl;
      if (klrow) klrow[a] += kl;
    }
  }
  for (ptrdiff_t a = 0; a < m; a++) l1[a] -= ld[a];
  return T;
}

/* HSIC0 (eq. 4) and HSIC1 (eq. 5) from the sums they are made of.
 * tr(KHLH) = sum K o L - (2/m) (K1)'(L1) + (1'K1)(1'L1)/m^2.
 * The K-side vectors are taken times fk = 2^ek, the L-side ones times
 * fl = 2^el (both 1 for kernels of an ordinary scale: then these are the
 * very operations of the unscaled formulas); out[0..1] are in those units,
 * 2^(ek + el) times the estimates. */
static void estimators(ptrdiff_t m, const double *kd, const double *k1,
                       const double *ld, const double *l1, double T, int ek,
                       int el, double *out)
{
  const double fk = ldexp(1.0, ek), fl = ldexp(1.0, el);
  double SK = 0.0, SL = 0.0, kl = 0.0, dd = 0.0, KL1 = 0.0, trK = 0.0,
         trL = 0.0;
  for (ptrdiff_t a = 0; a < m; a++) {
    double k1a = k1[a] * fk, kda = kd[a] * fk, l1a = l1[a] * fl,
           lda = ld[a] * fl;
    SK += k1a;
    SL += l1a;
    kl += k1a * l1a;
    dd += kda * lda;
    KL1 += (k1a + kda) * (l1a + lda);
    trK += kda;
    trL += lda;
  }
  T = T * fk * fl;
  double md = (double) m;
  double sumKL = T + dd, oneK1 = SK + trK, oneL1 = SL + trL;
  double trKHLH = sumKL - 2.0 * KL1 / md + oneK1 * oneL1 / (md * md);
  out[0] = trKHLH / ((md - 1.0) * (md - 1.0));
  out[1] = (T + SK * SL / ((md - 1.0) * (md - 2.0)) - 2.0 * kl / (md - 2.0)) /
           (md * (md - 3.0));
}

void bk_hsic_pair(const double *K, ptrdiff_t m, const double *kd,
                  const double *k1, bk_label lab, const int *perm, double *out,
                  double *work, bk_pacer *pace)
{
  double *ld = work, *l1 = work + m, *Yp = work + 2 * m,
         *KY = Yp + m * lab.c;
  double T = label_side(K, m, lab, perm, ld, l1, NULL, Yp, KY, pace);
  /* the label's diagonal and row sums are those of L permuted: the same
   * scale as the unpermuted statistic's */
  int ek = kernel_exponent(kd, k1, m), el = kernel_exponent(ld, l1, m);
  estimators(m, kd, k1, ld, l1, T, ek, el, out);
  out[0] = ldexp(out[0], -(ek + el));
  out[1] = ldexp(out[1], -(ek + el));
}

/* What bk_hsic_stats() sums up from K and the label (work of 8 m doubles
 * and its sum T = tr(K~ L~)), and the threads of its last O(m^2) step. */
typedef struct {
  const double *kd, *k1, *ld, *l1, *klrow, *Kl;
  double *Lk, *h, T;
  bk_label lab;
  ptrdiff_t m;
  int nthreads, lk_done; /* lk_done: Lk is given (a label as data) */
} stat_sums;

/* Lk[b] = (L~ k1)_b for a full label L: one item of a paced loop */
static void label_k1_one(void *ctx, ptrdiff_t b)
{
  stat_sums *s = ctx;
  s->Lk[b] = dot_off(s->lab.L + s->m * b, s->k1, s->m, b);
}

/* HSIC0, HSIC1 and the variance of HSIC1 from those sums (out as in
 * bk_hsic_stats()) */
static void stats_tail(stat_sums *sums, double *out, bk_pacer *pace)
{
  const ptrdiff_t m = sums->m;
  const bk_label lab = sums->lab;
  const double *kd = sums->kd, *k1 = sums->k1, *ld = sums->ld, *l1 = sums->l1,
               *klrow = sums->klrow, *Kl = sums->Kl;
  double *Lk = sums->Lk, *h = sums->h, T = sums->T;
  int ek = kernel_exponent(kd, k1, m), el = kernel_exponent(ld, l1, m);
  estimators(m, kd, k1, ld, l1, T, ek, el, out);

  /* L~ K~ 1 for the vector h of section 2.5 (K~ L~ 1 is Kl) */
  if (sums->lk_done) {
    /* given */
  } else if (lab.Y == NULL) {
    /* each b its own sum: threads change nothing */
    const bk_paced_loop loop = {.item = label_k1_one, .ctx = sums,
                                .ops = (double) m, .par_min = BK_PAR_MIN_PAIRS};
    bk_paced_for(&loop, m, sums->nthreads, pace);
  } else {
    for (ptrdiff_t a = 0; a < m; a++) Lk[a] = -ld[a] * k1[a];
    for (ptrdiff_t k = 0; k < lab.c; k++) {
      const double *Yk = lab.Y + m * k;
      double s = 0.0;
      for (ptrdiff_t a = 0; a < m; a++) s += Yk[a] * k1[a];
      for (ptrdiff_t a = 0; a < m; a++) Lk[a] += Yk[a] * s;
    }
  }

  /* from here on in the units of estimators(): K-side values times fk,
   * L-side ones times fl, products of both times fkl */
  const double fk = ldexp(1.0, ek), fl = ldexp(1.0, el),
               fkl = ldexp(1.0, ek + el);
  double SK = 0.0, SL = 0.0, kl = 0.0;
  for (ptrdiff_t a = 0; a < m; a++) {
    SK += k1[a] * fk;
    SL += l1[a] * fl;
    kl += k1[a] * fk * (l1[a] * fl);
  }
  double md = (double) m, Ts = T * fk * fl;
  /* h of section 2.5, with h_i = 2 sum h(i, j, q, r) over the ordered
   * triples (j, q, r) without i. The printed formula has -K~L~1 - L~K~1;
   * summing the U-statistic kernel (eq. 11) term by term gives
   * -(m - 2)(K~L~1 + L~K~1), which is what the explicit U-statistic in
   * tests/testthat/test-hsic.R confirms. */
  double hh = 0.0;
  for (ptrdiff_t a = 0; a < m; a++) {
    double k1a = k1[a] * fk, l1a = l1[a] * fl;
    h[a] = (md - 2.0) * (md - 2.0) * (klrow[a] * fkl) + (md - 2.0) * Ts -
           (md - 2.0) * (Kl[a] * fkl + Lk[a] * fkl) - md * k1a * l1a + SL * k1a +
           SK * l1a - kl;
    hh += h[a] * h[a];
  }
  double p3 = (md - 1.0) * (md - 2.0) * (md - 3.0);
  /* eq. (15): R = (4 m)^-1 (m - 1)_3^-2 h'h, var = 16 / m (R - HSIC1^2) */
  double R = hh / (4.0 * md * p3 * p3);
  double var = 16.0 / md * (R - out[1] * out[1]);
  out[0] = ldexp(out[0], -(ek + el));
  out[1] = ldexp(out[1], -(ek + el));
  out[2] = ldexp(var, -2 * (ek + el));
  /* the standard error in the scaled units first: it is representable
   * where the variance, its square, may not be */
  out[3] = ldexp(sqrt(var > 0.0 ? var : 0.0), -(ek + el));
}

void bk_hsic_stats(const double *K, ptrdiff_t m, bk_label lab, double *out,
                   double *work, bk_pacer *pace)
{
  double *kd = work, *k1 = work + m, *ld = work + 2 * m, *l1 = work + 3 * m,
         *klrow = work + 4 * m, *Kl = work + 5 * m, *Lk = work + 6 * m,
         *h = work + 7 * m, *Yp = work + 8 * m, *KY = Yp + m * lab.c;
  bk_kside(K, m, kd, k1, pace);
  double T = label_side(K, m, lab, NULL, ld, l1, klrow, Yp, KY, pace);
  /* K~ L~ 1 for the vector h of section 2.5 */
  for (ptrdiff_t b = 0; b < m; b++) {
    Kl[b] = dot_off(K + m * b, l1, m, b);
    bk_pace(pace, m);
  }
  stat_sums sums = {.kd = kd, .k1 = k1, .ld = ld, .l1 = l1, .klrow = klrow,
                    .Kl = Kl, .Lk = Lk, .h = h, .T = T, .lab = lab, .m = m,
                    .nthreads = 1};
  stats_tail(&sums, out, pace);
}

/* A column sum of sym_pass(): F[b] its first run (a < b), then its sum;
 * A + m p the lanes of the second runs (a > b) with the terms a of parity
 * p: column b's lane 0 at A + m ((b + 1) % 2), lane 1 at A + m (b % 2). */
typedef struct {
  double *F, *A;
} sym_sum;

/* bk_hsic_stats_x(): a panel of K's columns b0..b1-1, whole (P, m x (b1 -
 * b0), column b at P + m (b - b0)), with those of L beside it (PL) where
 * the label comes as data (ysrc), and what is summed from them */
typedef struct {
  const bk_gram_src *src, *ysrc;
  int simd;
  ptrdiff_t b0, b1;
  double *P, *PL;
  bk_label lab;
  double *kd, *k1, *Kl, *t, *klrow, *KY;
  void (*item)(void *, ptrdiff_t); /* a column's own sums (panel_make()) */
  /* the symmetric panels (sym_pass()): sym = 1 makes rows 0..b1-1 only;
   * the sums over a != b of a column's values (s1), times w[a] (sv), times
   * the label's (st, with the row sums klrow); with a factor label (lab.Y)
   * also K~ Y (KY) */
  int sym;
  const double *w;
  sym_sum s1, sv, st;
  bk_par_watch *watch; /* the threads' watch of the call (bk_paced_loop) */
} panel_ctx;

/* the panel's columns two at a time (x streams past once per two), its rows
 * in runs of 128: at m = 5000 on 16 threads (a panel of 419 columns,
 * panel_cols()) some 210 and 40 items; neither changes a bit */
#define PANEL_COLS 2
#define PANEL_ROWS 128

static void panel_gram(void *ctx, ptrdiff_t i)
{
  const panel_ctx *c = ctx;
  const bk_gram_src *g = c->src, *y = c->ysrc;
  ptrdiff_t b0 = c->b0 + i * PANEL_COLS,
            b1 = b0 + PANEL_COLS < c->b1 ? b0 + PANEL_COLS : c->b1,
            n = c->sym ? c->b1 : g->m;
  bk_gram_panel_rows(g->xs, g->m, g->d, g->e, g->kern, b0, b1, n,
                     c->P + g->m * (b0 - c->b0), c->simd);
  if (y)
    bk_gram_panel_rows(y->xs, y->m, y->d, y->e, y->kern, b0, b1, n,
                       c->PL + y->m * (b0 - c->b0), c->simd);
}

/* column b of the label: of L, or of the panel PL */
static inline const double *label_col(const panel_ctx *c, ptrdiff_t b)
{
  const ptrdiff_t m = c->src->m;
  return c->PL ? c->PL + m * (b - c->b0) : c->lab.L + m * b;
}

/* The columns of a panel: some 1 MiB of them per thread (at least 8, at
 * most bk_hsic_panel()'s 16 MiB), so that a thread's share of the panel is
 * still in its core's cache (1 MiB or more of L2) when the rows' pass reads
 * it back. On a 2-core machine (1 MiB of L2 a core), m = 5,000, d = 50:
 * one thread 0.19 s with 1 MiB panels against 0.22-0.25 s with 4 MiB, two
 * threads 0.14 s with 2 MiB against 0.20-0.21 s with 16 MiB. On a busy
 * machine, where the many regions of small panels would each wait for a
 * thread whose core another process holds, the call's watch (panel_ctx)
 * finds the threads losing and runs the rest on one, and the passes that
 * start after its verdict (its probe's, or the last second's) make one
 * thread's panels. On a 16-core machine with a busy process per core,
 * hsic() at 16 threads took 0.42-0.51 s against one thread's 0.38-0.41 s
 * while one thread made 16 MiB panels (their rows' pass 0.05-0.06 s
 * against 0.035 s), and 0.34-0.38 s with one thread's panels and the
 * median heuristic's distances watched too (bk_median_pairwise_ck()). */
static ptrdiff_t panel_cols(ptrdiff_t m, int nthreads, const bk_par_watch *watch)
{
  const ptrdiff_t B = bk_hsic_panel(m);
  const ptrdiff_t nt = nthreads > 1 && bk_par_free(watch) ? nthreads : 1;
  ptrdiff_t b = ((ptrdiff_t) 1 << 17) * nt / (m > 1 ? m : 1);
  b = b < 8 ? 8 : b;
  return b < B ? b : B;
}

/* a group of a panel's columns made, then each one's own sums (c->item),
 * while they are in cache */
static void panel_group(void *ctx, ptrdiff_t i)
{
  const panel_ctx *c = ctx;
  panel_gram(ctx, i);
  if (c->item) {
    ptrdiff_t j0 = i * PANEL_COLS,
              j1 = j0 + PANEL_COLS < c->b1 - c->b0 ? j0 + PANEL_COLS : c->b1 - c->b0;
    for (ptrdiff_t j = j0; j < j1; j++) c->item(ctx, j);
  }
}

/* a panel's Gram columns (and L's, with ysrc), and with item (NULL: none)
 * each column's own sums: one parallel region (a region's start and end
 * cost most on a busy machine, where a thread may wait for its core);
 * returns the operations */
static double panel_make(panel_ctx *c, void (*item)(void *, ptrdiff_t),
                         int nthreads)
{
  const ptrdiff_t nb = c->b1 - c->b0, n = c->sym ? c->b1 : c->src->m;
  double cost = (double) n * (double) (c->src->d / 4 + 17);
  if (c->ysrc) cost += (double) n * (double) (c->ysrc->d / 4 + 14);
  c->item = item;
  const bk_paced_loop gram = {.item = panel_group, .ctx = c,
                              .ops = PANEL_COLS * cost,
                              .par_min = BK_PAR_MIN_PAIRS, .dynamic = 1,
                              .watch = c->watch};
  bk_paced_for(&gram, (nb + PANEL_COLS - 1) / PANEL_COLS, nthreads, NULL);
  return (double) nb * cost;
}

/* the label's diagonal ld and off-diagonal row sums l1, as label_side()
 * forms them (perm = NULL), of a label given whole (L or Y) */
static void label_sums(const bk_label lab, ptrdiff_t m, double *ld, double *l1)
{
  if (lab.Y == NULL) {
    for (ptrdiff_t a = 0; a < m; a++) ld[a] = lab.L[a + m * a];
    for (ptrdiff_t b = 0; b < m; b++) l1[b] = sum_off(lab.L + m * b, m, b);
    return;
  }
  for (ptrdiff_t a = 0; a < m; a++) ld[a] = l1[a] = 0.0;
  for (ptrdiff_t k = 0; k < lab.c; k++) {
    const double *Yk = lab.Y + m * k;
    double ysum = 0.0;
    for (ptrdiff_t a = 0; a < m; a++) ysum += Yk[a];
    for (ptrdiff_t a = 0; a < m; a++) {
      ld[a] += Yk[a] * Yk[a];
      l1[a] += Yk[a] * ysum;
    }
  }
  for (ptrdiff_t a = 0; a < m; a++) l1[a] -= ld[a];
}

/* ---- Symmetric panels ------------------------------------------------
 * K and L are symmetric, and a column's values below its diagonal are the
 * later columns' above it: the panel of columns c0..c1-1 is made above row
 * c1 only (bk_gram_panel_rows()), half of the kernel values. A column b's
 * sum over a != b (sum_off(), dot_off()) is two runs: the first (a < b)
 * lies in b's own panel; the terms of the second (a > b) are the later
 * columns' values in row b, each added to its lane (run_sum()) as its
 * panel comes, so in the order of a. A row's sum in the order of b (the
 * row sums of K~ o L~, label_side(); with a factor label the rows of K~ Y)
 * takes its terms b < a from column a above the diagonal, in order, then
 * those of the later columns. The same
 * operations in the same order as on the whole columns; threads change no
 * bit (columns, then rows, each a parallel loop of independent items). */

/* sym_col() with a factor label Y (m x nc): the first runs of s1 and sv
 * (in run_sum()'s and run_dot()'s two lanes) and row b of K~ Y over a < b,
 * one running sum per class in the order of a, as label_side() adds it;
 * in one loop with the first class, the others two at a time (the running
 * sums' latency, not the loads, is what they cost) */
static void sym_col_factor(const panel_ctx *c, const double *col, ptrdiff_t b)
{
  const ptrdiff_t m = c->src->m, nc = c->lab.c;
  const double *Y = c->lab.Y, *w = c->w, *y0 = Y;
  double k0 = 0.0, k1 = 0.0, v0 = 0.0, v1 = 0.0, r0 = 0.0;
  ptrdiff_t a = 0;
  if (nc < 1) {
    /* no classes (Y has no column to read) */
    c->s1.F[b] = run_sum(0.0, col, 0, b);
    c->sv.F[b] = run_dot(0.0, col, w, 0, b);
    return;
  }
  for (; a + 1 < b; a += 2) {
    k0 += col[a];
    k1 += col[a + 1];
    v0 += col[a] * w[a];
    v1 += col[a + 1] * w[a + 1];
    r0 += col[a] * y0[a];
    r0 += col[a + 1] * y0[a + 1];
  }
  if (a < b) {
    k0 += col[a];
    v0 += col[a] * w[a];
    r0 += col[a] * y0[a];
  }
  c->s1.F[b] = (0.0 + k0) + k1;
  c->sv.F[b] = (0.0 + v0) + v1;
  c->KY[b] = r0;
  ptrdiff_t k = 1;
  for (; k + 1 < nc; k += 2) {
    const double *u0 = Y + m * k, *u1 = u0 + m;
    double q0 = 0.0, q1 = 0.0;
    for (a = 0; a < b; a++) {
      q0 += col[a] * u0[a];
      q1 += col[a] * u1[a];
    }
    c->KY[b + m * k] = q0;
    c->KY[b + m * (k + 1)] = q1;
  }
  if (k < nc) {
    const double *u0 = Y + m * k;
    double q0 = 0.0;
    for (a = 0; a < b; a++) q0 += col[a] * u0[a];
    c->KY[b + m * k] = q0;
  }
}

/* column b's diagonal value (kd) and the first runs of its sums; with st
 * (then s1 and sv too) its row sum of K~ o L~ over a < b (klrow); with a
 * factor label (then s1 and sv) sym_col_factor() */
static void sym_col(void *ctx, ptrdiff_t i)
{
  const panel_ctx *c = ctx;
  const ptrdiff_t m = c->src->m, b = c->b0 + i;
  const double *col = c->P + m * i;
  c->kd[b] = col[b];
  if (c->lab.Y) {
    sym_col_factor(c, col, b);
    return;
  }
  if (!c->st.F) {
    if (c->s1.F) c->s1.F[b] = run_sum(0.0, col, 0, b);
    if (c->sv.F) c->sv.F[b] = run_dot(0.0, col, c->w, 0, b);
    return;
  }
  /* run_sum(0.0, col, 0, b), run_dot(0.0, col, w, 0, b) and
   * run_dot(0.0, col, Lc, 0, b) in one loop, and the products in order */
  const double *Lc = label_col(c, b), *w = c->w;
  double k0 = 0.0, k1 = 0.0, v0 = 0.0, v1 = 0.0, t0 = 0.0, t1 = 0.0, r = 0.0;
  ptrdiff_t a = 0;
  for (; a + 1 < b; a += 2) {
    double p = col[a] * Lc[a], q = col[a + 1] * Lc[a + 1];
    k0 += col[a];
    k1 += col[a + 1];
    v0 += col[a] * w[a];
    v1 += col[a + 1] * w[a + 1];
    t0 += p;
    t1 += q;
    r += p;
    r += q;
  }
  if (a < b) {
    double p = col[a] * Lc[a];
    k0 += col[a];
    v0 += col[a] * w[a];
    t0 += p;
    r += p;
  }
  c->s1.F[b] = (0.0 + k0) + k1;
  c->sv.F[b] = (0.0 + v0) + v1;
  c->st.F[b] = (0.0 + t0) + t1;
  c->klrow[b] = r;
}

/* rows a0..a1-1 (above row b1): the values of the panel's columns b > a,
 * in the order of b, into row a's lanes of the second runs and its row
 * sum of K~ o L~ (with a factor label: its rows of K~ Y) */
static void sym_rows(void *ctx, ptrdiff_t i)
{
  const panel_ctx *c = ctx;
  const ptrdiff_t m = c->src->m, a0 = i * PANEL_ROWS,
                  a1 = a0 + PANEL_ROWS < c->b1 ? a0 + PANEL_ROWS : c->b1;
  for (ptrdiff_t b = c->b0 > a0 + 1 ? c->b0 : a0 + 1; b < c->b1; b++) {
    const double *col = c->P + m * (b - c->b0);
    const ptrdiff_t hi = b < a1 ? b : a1, p = m * (b % 2);
    if (c->lab.Y) {
      /* with s1 and sv, as panel-wide loops over the rows */
      const double w = c->w[b];
      double *A1 = c->s1.A + p, *Av = c->sv.A + p;
      BK_SIMD
      for (ptrdiff_t a = a0; a < hi; a++) {
        A1[a] += col[a];
        Av[a] += col[a] * w;
      }
      for (ptrdiff_t k = 0; k < c->lab.c; k++) {
        const double yb = c->lab.Y[b + m * k];
        double *KYk = c->KY + m * k;
        BK_SIMD
        for (ptrdiff_t a = a0; a < hi; a++) KYk[a] += col[a] * yb;
      }
      continue;
    }
    if (c->st.A) {
      /* with s1 and sv (the statistics' pass), in one loop */
      const double *Lc = label_col(c, b), w = c->w[b];
      double *A1 = c->s1.A + p, *Av = c->sv.A + p, *At = c->st.A + p,
             *kl = c->klrow;
      BK_SIMD
      for (ptrdiff_t a = a0; a < hi; a++) {
        double q = col[a] * Lc[a];
        A1[a] += col[a];
        Av[a] += col[a] * w;
        At[a] += q;
        kl[a] += q;
      }
      continue;
    }
    if (c->s1.A) {
      double *A = c->s1.A + p;
      BK_SIMD
      for (ptrdiff_t a = a0; a < hi; a++) A[a] += col[a];
    }
    if (c->sv.A) {
      const double w = c->w[b];
      double *A = c->sv.A + p;
      BK_SIMD
      for (ptrdiff_t a = a0; a < hi; a++) A[a] += col[a] * w;
    }
  }
}

/* a sum's second runs added to its first: F[b] = (F[b] + lane 0) + lane 1 */
static void sym_finish(sym_sum s, ptrdiff_t m)
{
  if (!s.F) return;
  for (ptrdiff_t b = 0; b < m; b++)
    s.F[b] = (s.F[b] + s.A[m * ((b + 1) % 2) + b]) + s.A[m * (b % 2) + b];
}

/* every panel of c's matrix (c->src; with c->ysrc, L's beside it) in turn,
 * for the sums c->s1, c->sv, c->st (F NULL: none; their lanes zeroed here;
 * st with the other two), or with a factor label c->lab.Y, c->s1, c->sv and
 * K~ Y (c->KY) */
static void sym_pass(panel_ctx *c, int nthreads, bk_pacer *pace)
{
  const ptrdiff_t m = c->src->m, B = panel_cols(m, nthreads, c->watch);
  const sym_sum *sums[3] = {&c->s1, &c->sv, &c->st};
  c->sym = 1;
  for (int k = 0; k < 3; k++)
    if (sums[k]->F) memset(sums[k]->A, 0, (size_t) (2 * m) * sizeof(double));
  for (c->b0 = 0; c->b0 < m; c->b0 += B) {
    c->b1 = c->b0 + B < m ? c->b0 + B : m;
    const double per_row =
        (double) (c->b1 - c->b0) * (3.0 + (c->lab.Y ? (double) c->lab.c : 0.0));
    const bk_paced_loop rows = {.item = sym_rows, .ctx = c,
                                .ops = PANEL_ROWS * per_row,
                                .par_min = BK_PAR_MIN_PAIRS, .watch = c->watch};
    double ops = panel_make(c, sym_col, nthreads) + (double) c->b1 * per_row;
    bk_paced_for(&rows, (c->b1 + PANEL_ROWS - 1) / PANEL_ROWS, nthreads, NULL);
    bk_pace(pace, ops < 0x1p62 ? (ptrdiff_t) ops : BK_CHECK_OPS);
  }
  for (int k = 0; k < 3; k++) sym_finish(*sums[k], m);
}

/* bk_hsic_stats_x()'s sums for a label of full columns: ld, l1 (of L made
 * from ysrc: one pass), then kd, k1, K~ L~ 1 (Kl), the row sums of
 * K~ o L~ (klrow) and tr(K~ L~) (returned; t: m doubles) in one pass, then
 * L~ K~ 1 (Lk, of L made from ysrc: one pass). A: 6 m doubles. */
static double sym_stats(panel_ctx *c, double *ld, double *l1, double *Lk,
                        double *t, double *A, int nthreads, bk_pacer *pace)
{
  const ptrdiff_t m = c->src->m;
  panel_ctx lc = {.src = c->ysrc, .simd = c->simd, .P = c->PL, .kd = ld,
                  .s1 = {l1, A}, .watch = c->watch};
  if (c->ysrc)
    sym_pass(&lc, nthreads, pace);
  else
    label_sums(c->lab, m, ld, l1);
  c->w = l1;
  c->s1 = (sym_sum){c->k1, A};
  c->sv = (sym_sum){c->Kl, A + 2 * m};
  c->st = (sym_sum){t, A + 4 * m};
  sym_pass(c, nthreads, pace);
  /* tr(K~ L~) in the order of b, as label_side() sums it */
  double T = 0.0;
  for (ptrdiff_t b = 0; b < m; b++) T += t[b];
  if (c->ysrc) {
    /* L~ K~ 1 (stats_tail() reads L otherwise) */
    lc.s1 = (sym_sum){NULL, NULL};
    lc.sv = (sym_sum){Lk, A};
    lc.w = c->k1;
    sym_pass(&lc, nthreads, pace);
  }
  return T;
}

void bk_hsic_stats_x(const bk_gram_src *src, const bk_gram_src *ysrc,
                     bk_label lab, double *out, double *work, int nthreads,
                     int simd, bk_pacer *pace)
{
  /* Bw: the room for a panel's columns */
  const ptrdiff_t m = src->m, Bw = bk_hsic_panel(m);
  double *kd = work, *k1 = work + m, *ld = work + 2 * m, *l1 = work + 3 * m,
         *klrow = work + 4 * m, *Kl = work + 5 * m, *Lk = work + 6 * m,
         *h = work + 7 * m, *KY = work + 8 * m, *t = KY + m * lab.c,
         *A = t + m, *P = A + 6 * m;
  bk_par_watch watch;
  bk_par_watch_init(&watch, nthreads);
  panel_ctx c = {.src = src, .ysrc = ysrc, .simd = simd, .P = P,
                 .PL = ysrc ? P + m * Bw : NULL, .lab = lab, .kd = kd,
                 .k1 = k1, .Kl = Kl, .t = t, .klrow = klrow, .KY = KY,
                 .watch = &watch};
  double T = 0.0;
  if (lab.Y == NULL) {
    T = sym_stats(&c, ld, l1, Lk, t, A, nthreads, pace);
  } else {
    /* a factor label: kd, k1, K~ L~ 1 (Kl) and K~ Y (KY) in one pass of
     * symmetric panels */
    label_sums(lab, m, ld, l1);
    c.w = l1;
    c.s1 = (sym_sum){k1, A};
    c.sv = (sym_sum){Kl, A + 2 * m};
    sym_pass(&c, nthreads, pace);
    memset(klrow, 0, (size_t) m * sizeof(double));
    /* T and the row sums of K~ o L~ from K~ Y, as label_side() */
    for (ptrdiff_t k = 0; k < lab.c; k++) {
      const double *Yk = lab.Y + m * k, *KYk = KY + m * k;
      for (ptrdiff_t a = 0; a < m; a++) {
        double kl = Yk[a] * KYk[a];
        T += kl;
        klrow[a] += kl;
      }
    }
  }
  stat_sums sums = {.kd = kd, .k1 = k1, .ld = ld, .l1 = l1, .klrow = klrow,
                    .Kl = Kl, .Lk = Lk, .h = h, .T = T, .lab = lab, .m = m,
                    .nthreads = nthreads, .lk_done = ysrc != NULL};
  stats_tail(&sums, out, pace);
}

/* the sum of a column, diagonal included (centring_terms()) */
static inline double col_sum(const double *col, ptrdiff_t m)
{
  double s = 0.0;
  BK_SIMD_SUM(s)
  for (ptrdiff_t a = 0; a < m; a++) s += col[a];
  return s;
}

/* Row means r, grand mean 1'A1 / m^2 and trace of a symmetric m x m A: what
 * H A H is made of, (HAH)_ab = A_ab - r_a - r_b + mean. */
static void centring_terms(const double *A, ptrdiff_t m, double *r,
                           double *mean, double *trace, bk_pacer *pace)
{
  double md = (double) m, tot = 0.0, tr = 0.0;
  for (ptrdiff_t b = 0; b < m; b++) {
    const double *col = A + m * b;
    double s = col_sum(col, m);
    r[b] = s / md;
    tot += s;
    tr += col[b];
    bk_pace(pace, m);
  }
  *mean = tot / (md * md);
  *trace = tr;
}

/* The exponent e for a kernel A (m x m) from its diagonal and row means r,
 * as kernel_exponent(); A = NULL: the diagonal follows r, at r + m */
static int centred_exponent(const double *A, ptrdiff_t m, const double *r)
{
  double top = 0.0;
  for (ptrdiff_t a = 0; a < m; a++) {
    double v = fabs(A ? A[a + m * a] : r[m + a]), w = fabs(r[a]);
    v = v > w ? v : w;
    top = v > top ? v : top;
  }
  return bk_pow2_shift(top, BK_KERNEL_RANGE);
}

/* A kernel A (m x m) times 2^e (1 at an ordinary scale), as in
 * estimators(): its row means r, mean *s and trace *tr, scaled; returns e */
static int scaled_centring(const double *A, ptrdiff_t m, double *r, double *s,
                           double *tr, bk_pacer *pace)
{
  centring_terms(A, m, r, s, tr, pace);
  int e = centred_exponent(A, m, r);
  const double f = ldexp(1.0, e);
  for (ptrdiff_t a = 0; a < m; a++) r[a] *= f;
  *s *= f;
  *tr *= f;
  return e;
}

/* The label side given as a factor Y (m x c, L = YY'): diag(L) = the rows'
 * squared norms; Y is scaled by 2^(e / 2), e even, which is returned. Writes
 * H Y scaled, row-major (a row contiguous), to Yc: the centred factor gives
 * H L H = (HY)(HY)' exactly; and 1'L1 / m^2 = sum_k mean(Y_k)^2 to *s, the
 * trace to *tr, both scaled. */
static int scaled_factor(const double *Y, ptrdiff_t m, ptrdiff_t c, double *Yc,
                         double *s, double *tr)
{
  double md = (double) m, top = 0.0, sl = 0.0, trL = 0.0;
  for (ptrdiff_t a = 0; a < m; a++) {
    double r2 = 0.0;
    for (ptrdiff_t k = 0; k < c; k++) r2 += Y[a + m * k] * Y[a + m * k];
    top = r2 > top ? r2 : top;
  }
  int e = bk_pow2_shift(top, BK_KERNEL_RANGE) / 2 * 2;
  const double gl = ldexp(1.0, e / 2);
  for (ptrdiff_t k = 0; k < c; k++) {
    const double *Yk = Y + m * k;
    double mean = 0.0;
    for (ptrdiff_t a = 0; a < m; a++) mean += Yk[a];
    mean /= md;
    for (ptrdiff_t a = 0; a < m; a++) {
      Yc[a * c + k] = (Yk[a] - mean) * gl;
      trL += Yk[a] * gl * (Yk[a] * gl);
    }
    sl += mean * gl * (mean * gl);
  }
  *s = sl;
  *tr = trL;
  return e;
}

/* The gamma test's sums over the centred kernels, column by column (in the
 * units of scaled_centring(): K times fk, L times fl) */
typedef struct {
  const double *rk, *rl, *Yc;
  double fk, fl, sk, sl, trK, trL, stat, v;
  int ek, el;
  bk_label lab;
  ptrdiff_t m;
} gamma_sums;

/* the label side of bk_hsic_gamma(): rl, sl and trL (or Yc for a factor),
 * scaled; work for them: m + m c doubles at rl */
static void gamma_label(gamma_sums *g, double *rl, bk_pacer *pace)
{
  const ptrdiff_t m = g->m;
  g->rl = rl;
  g->Yc = rl + m;
  if (g->lab.Y == NULL) {
    g->el = scaled_centring(g->lab.L, m, rl, &g->sl, &g->trL, pace);
  } else {
    g->el = scaled_factor(g->lab.Y, m, g->lab.c, rl + m, &g->sl, &g->trL);
  }
  g->fl = ldexp(1.0, g->el);
}

/* column b of K (Kcol; of L, Lcol, for a full label) into the statistic
 * and the sum of squares, element after element (one running sum over the
 * whole matrix) */
static void gamma_col(gamma_sums *g, const double *Kcol, const double *Lcol,
                     ptrdiff_t b)
{
  const ptrdiff_t m = g->m, c = g->lab.c;
  const double *rk = g->rk, *rl = g->rl, *Yc = g->Yc, fk = g->fk, fl = g->fl,
               sk = g->sk, sl = g->sl;
  double stat = g->stat, v = g->v;
  for (ptrdiff_t a = 0; a < m; a++) {
    double kc = Kcol[a] * fk - rk[a] - rk[b] + sk, lc;
    if (g->lab.Y == NULL) {
      lc = Lcol[a] * fl - rl[a] - rl[b] + sl;
    } else {
      lc = 0.0;
      for (ptrdiff_t k = 0; k < c; k++) lc += Yc[a * c + k] * Yc[b * c + k];
    }
    double p = kc * lc;
    stat += p;
    if (a != b) v += p * p;
  }
  g->stat = stat;
  g->v = v;
}

/* the moments and the gamma distribution from the sums (out as in
 * bk_hsic_gamma()) */
static void gamma_finish(const gamma_sums *g, double *out)
{
  const double md = (double) g->m, sk = g->sk, sl = g->sl, trK = g->trK,
               trL = g->trL, v = g->v;
  double stat = g->stat;
  const int ek = g->ek, el = g->el;
  stat /= md;
  /* Gretton et al. (2008): the null variance of HSIC_b = tr(KHLH) / m^2 */
  double var = v / 36.0 / (md * (md - 1.0));
  var *= 72.0 * (md - 4.0) * (md - 5.0) / (md * (md - 1.0) * (md - 2.0) *
                                           (md - 3.0));
  /* the null mean (1/m)(E k(x,x) - E k(x,x'))(E l(y,y) - E l(y,y')) */
  double muK = (sk * md * md - trK) / (md * (md - 1.0));
  double muL = (sl * md * md - trL) / (md * (md - 1.0));
  double mean = (trK / md - muK) * (trL / md - muL) / md;
  double g1 = md * mean, g2 = md * md * var;
  int e = -(ek + el);
  out[0] = ldexp(stat, e);
  out[1] = ldexp(g1, e);
  out[2] = ldexp(g2, 2 * e);
  /* the gamma distribution with that mean and variance, from the scaled
   * moments (its shape is scale-free; its scale, like the statistic, is
   * representable where the variance may not be); NaN when a kernel is
   * constant, where it is undefined */
  if (g1 > 0.0 && g2 > 0.0) {
    out[3] = g1 * g1 / g2;
    out[4] = ldexp(g2 / g1, e);
  } else {
    out[3] = out[4] = NAN;
  }
}

void bk_hsic_gamma(const double *K, ptrdiff_t m, bk_label lab, double *out,
                   double *work, bk_pacer *pace)
{
  gamma_sums g = {.rk = work, .lab = lab, .m = m};
  /* each kernel times 2^e, the moments scaled back at the end */
  g.ek = scaled_centring(K, m, work, &g.sk, &g.trK, pace);
  g.fk = ldexp(1.0, g.ek);
  gamma_label(&g, work + m, pace);
  for (ptrdiff_t b = 0; b < m; b++) {
    gamma_col(&g, K + m * b, lab.Y == NULL ? lab.L + m * b : NULL, b);
    bk_pace(pace, m * (lab.c + 2));
  }
  gamma_finish(&g, out);
}

/* k(x_a, x_c) w_ac, the pair's kernel value as bk_kernel_value() gives it
 * (type a constant where it is inlined: one loop per kernel) */
static inline double kernel_pair_term(const double *xj, int type, double p1, double p2,
                                      const double *w, ptrdiff_t a, ptrdiff_t c)
{
  const double t = xj[a] - xj[c];
  return bk_kernel_eval(type, p1, p2, bk_kernel_uses_distance(type) ? t * t : xj[a] * xj[c]) *
         w[c * (c - 1) / 2 + a];
}

double bk_kernel_dot_pairs(const double *xj, ptrdiff_t m, bk_kernel kern,
                           const double *w)
{
  double off = 0.0;
#define KDOT_TERM(a, c) kernel_pair_term(xj, type_, kern.p1, kern.p2, w, a, c)
#define KDOT_CASE(id, code, name, sets, props, spectrum, value) \
  case id: {                                                    \
    const int type_ = id;                                       \
    BK_PAIR_SUM_COLUMNS(m, KDOT_TERM, off);                     \
    break;                                                      \
  }
  switch (kern.type) {
    BK_KERNEL_TABLE(KDOT_CASE)
  default:
    off = NAN;
  }
#undef KDOT_CASE
#undef KDOT_TERM
  return off;
}

/* the features of bk_feature_dot(), one at a time */
typedef struct {
  const double *x, *par, *W, *Wp, *zero;
  ptrdiff_t m;
  bk_kernel kern;
  double *cols, *out;
  bk_gauss_pass_fn pass_clamped, pass_in_range;
} dot_ctx;

static void feature_dot_one(void *ctx, ptrdiff_t j)
{
  const dot_ctx *c = ctx;
  const ptrdiff_t m = c->m;
  const double *xj = c->x + m * j;
  bk_kernel kj = c->kern;
  if (c->par) kj.p1 = c->par[j];
  int dist = bk_kernel_uses_distance(kj.type);
  /* a feature of an extreme scale (its squares would over- or underflow)
   * is brought to a scale of 1 by a power of two, with its kernel's
   * parameter: the same kernel values, exactly (bk_scaled_kernel()) */
  double post = 1.0;
  int e = dist ? bk_pow2_shift(bk_max_abs(xj, m), BK_DATA_RANGE) : 0;
  if (e != 0) {
    double *col = c->cols + m * bk_thread_id();
    bk_copy_pow2(xj, m, e, col);
    xj = col;
    kj = bk_scaled_kernel(kj, e);
    if (bk_kernel_has(kj.type, BK_KPROP_LENGTH)) post = ldexp(1.0, e);
  }
  double diag = 0.0, off = 0.0;
  /* m = 0: no pairs, and no xj[0] for the range (the other branch sums
   * nothing) */
  if (kj.type == BK_GAUSSIAN && m > 0) {
    double lo = xj[0], hi = xj[0];
    for (ptrdiff_t a = 1; a < m; a++) {
      lo = xj[a] < lo ? xj[a] : lo;
      hi = xj[a] > hi ? xj[a] : hi;
    }
    /* every argument is >= -sigma range^2: no clamp when that is >= -708 */
    bk_gauss_pass_fn pass =
        kj.p1 * (hi - lo) * (hi - lo) <= 708.0 ? c->pass_in_range : c->pass_clamped;
    off = pass(c->zero, c->Wp, xj, m, -kj.p1, 1.0);
  } else {
    off = bk_kernel_dot_pairs(xj, m, kj, c->Wp);
  }
  for (ptrdiff_t a = 0; a < m; a++)
    diag += bk_kernel_value(kj, dist ? 0.0 : xj[a] * xj[a]) * c->W[a + m * a];
  /* W is symmetric: the pairs a < b count twice */
  c->out[j] = (diag + 2.0 * off) * post;
}

void bk_feature_dot(const double *x, ptrdiff_t m, ptrdiff_t d, bk_kernel kern,
                    const double *par, const double *W, double *out,
                    double *work, int simd, int nthreads, bk_pacer *pace)
{
  /* W's upper triangle packed once, and zero distances to add the feature
   * to: the Gaussian case is then the selectors' pair loop (pairs.c) */
  const ptrdiff_t P = m * (m - 1) / 2;
  dot_ctx c = {.x = x, .par = par, .W = W, .Wp = work, .zero = work + P,
               .m = m, .kern = kern, .cols = work + 2 * P, .out = out,
               .pass_clamped = bk_pick_gauss_pass(0, simd),
               .pass_in_range = bk_pick_gauss_pass(1, simd)};
  bk_pack_upper(W, m, work);
  memset(work + P, 0, (size_t) P * sizeof(double));
  /* each feature's sum is its own, so the groups and threads change
   * nothing; threads for enough work only (an exponential per pair and
   * feature) */
  const bk_paced_loop loop = {.item = feature_dot_one, .ctx = &c,
                              .ops = (double) (P + m),
                              .par_min = BK_PAR_MIN_PAIRS / 8.0};
  bk_paced_for(&loop, d, nthreads, pace);
}

/* pass 1 of bk_hsic_gamma_x(): column b's sum (into t) and diagonal value */
static void panel_colsum(void *ctx, ptrdiff_t i)
{
  const panel_ctx *c = ctx;
  const ptrdiff_t m = c->src->m, b = c->b0 + i;
  const double *col = c->P + m * i;
  c->t[i] = col_sum(col, m);
  c->kd[b] = col[b];
}

/* A pass over the panels of c's matrix A (c->src) for what
 * scaled_centring() gives: A's row means r (with its diagonal after them, at
 * r + m), mean *s and trace *tr, scaled by 2^e; returns e. t: a panel's
 * column sums. */
static int panel_centring(panel_ctx *c, double *r, double *t, double *s,
                          double *tr, int nthreads, bk_pacer *pace)
{
  const ptrdiff_t m = c->src->m, B = panel_cols(m, nthreads, c->watch);
  const double md = (double) m;
  double tot = 0.0, trace = 0.0;
  c->kd = r + m;
  c->t = t;
  for (c->b0 = 0; c->b0 < m; c->b0 += B) {
    c->b1 = c->b0 + B < m ? c->b0 + B : m;
    double ops = panel_make(c, panel_colsum, nthreads);
    /* as centring_terms(), in the order of b */
    for (ptrdiff_t b = c->b0; b < c->b1; b++) {
      r[b] = t[b - c->b0] / md;
      tot += t[b - c->b0];
      trace += c->kd[b];
    }
    bk_pace(pace, ops < 0x1p62 ? (ptrdiff_t) ops : BK_CHECK_OPS);
  }
  *s = tot / (md * md);
  *tr = trace;
  int e = centred_exponent(NULL, m, r);
  const double f = ldexp(1.0, e);
  for (ptrdiff_t a = 0; a < m; a++) r[a] *= f;
  *s *= f;
  *tr *= f;
  return e;
}

void bk_hsic_gamma_x(const bk_gram_src *src, const bk_gram_src *ysrc,
                     bk_label lab, double *out, double *work, int nthreads,
                     int simd, bk_pacer *pace)
{
  const ptrdiff_t m = src->m, Bw = bk_hsic_panel(m);
  /* rk and K's diagonal after it (centred_exponent()), the label's rl and
   * Yc (or L's diagonal), the panel's column sums t and the panels (room
   * for Bw columns each) */
  double *rk = work, *rl = work + 2 * m, *t = work + 4 * m + m * lab.c,
         *P = t + Bw, *PL = P + m * Bw;
  gamma_sums g = {.rk = rk, .lab = lab, .m = m};
  bk_par_watch watch;
  bk_par_watch_init(&watch, nthreads);
  panel_ctx c = {.src = src, .simd = simd, .P = P, .lab = lab, .watch = &watch};
  /* pass 1: K's row means, sum and trace, as scaled_centring() */
  g.ek = panel_centring(&c, rk, t, &g.sk, &g.trK, nthreads, pace);
  g.fk = ldexp(1.0, g.ek);
  if (ysrc) {
    /* L's, a panel at a time */
    panel_ctx lc = {.src = ysrc, .simd = simd, .P = PL, .watch = &watch};
    g.rl = rl;
    g.el = panel_centring(&lc, rl, t, &g.sl, &g.trL, nthreads, pace);
    g.fl = ldexp(1.0, g.el);
    c.ysrc = ysrc;
    c.PL = PL;
  } else {
    gamma_label(&g, rl, pace);
  }
  /* pass 2: the same columns again, summed in the order of bk_hsic_gamma() */
  const ptrdiff_t B = panel_cols(m, nthreads, &watch);
  for (c.b0 = 0; c.b0 < m; c.b0 += B) {
    c.b1 = c.b0 + B < m ? c.b0 + B : m;
    double ops = panel_make(&c, NULL, nthreads);
    for (ptrdiff_t b = c.b0; b < c.b1; b++)
      gamma_col(&g, P + m * (b - c.b0), lab.Y == NULL ? label_col(&c, b) : NULL, b);
    ops += (double) (c.b1 - c.b0) * (double) m * (double) (lab.c + 2);
    bk_pace(pace, ops < 0x1p62 ? (ptrdiff_t) ops : BK_CHECK_OPS);
  }
  gamma_finish(&g, out);
}
