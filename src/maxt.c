/*
 * maxt.c: per-feature two-sample statistics (and Pearson correlations)
 * under permutations of the labels, and the counts of the Westfall-Young
 * step-down maxT (Westfall and Young 1993; Ge, Dudoit and Speed 2003,
 * algorithm 4). Numeric core: no R API, no
 * allocation (the glue hands in every work array).
 *
 * The data come feature-major, xt = t(x) (p x m): sample i is the
 * contiguous column xt[, i], so that the class sums of every feature for one
 * labelling are sums of whole columns over the samples of the smaller class
 * (n_small * p additions and as many products for the squares), a loop the
 * compiler vectorises. The obvious alternative, X' Z with the BLAS for an
 * m x B 0/1 matrix Z, spends 2 m p B flops where this spends about
 * 2 min(n_1, n_2) p B, and with R's reference BLAS it is slower still.
 * Permutations run in parallel, each on one thread from start to end in a
 * fixed order, and the counts are integers, so the results do not depend on
 * the number of threads.
 */
#include <float.h>
#include <math.h>
#include <string.h>
#include "inference.h"

/* the statistics of one feature from the class sums (s) and sums of squares
 * (q) of class 1 and class 2. Where the spread is 0: +-Inf when the class
 * means differ (perfect separation: the largest statistic there is), NaN
 * when they are equal too (a constant feature: no statistic) */
/* features per block of the class sums: 2 x 8 kB of accumulators */
#define BK_MAXT_BLOCK 1024

static double two_sample(int stat, double s1, double q1, double n1, double s2,
                         double q2, double n2, ptrdiff_t m, double *aux)
{
  const double mean1 = s1 / n1, mean2 = s2 / n2, diff = mean2 - mean1;
  /* within-class sums of squares; >= 0 in exact arithmetic */
  double ss1 = q1 - s1 * mean1, ss2 = q2 - s2 * mean2;
  /* q - s * mean cancels: a sum of squares within the rounding of q is none,
   * so that a labelling and its class swap (whose class sums are the total
   * minus the other's) agree that a feature separates the classes */
  const double tol = 8.0 * DBL_EPSILON * (double) m;
  ss1 = ss1 > tol * q1 ? ss1 : 0.0;
  ss2 = ss2 > tol * q2 ? ss2 : 0.0;
  double den;
  switch (stat) {
  case BK_PERM_WELCH: /* Song et al. 2012, eq. 24 */
    den = sqrt(ss2 / ((n2 - 1.0) * n2) + ss1 / ((n1 - 1.0) * n1));
    break;
  case BK_PERM_POOLED:
    den = sqrt((ss1 + ss2) / (double) (m - 2) * (1.0 / n1 + 1.0 / n2));
    break;
  case BK_PERM_SNR: /* s-bar = s_+ + s_-, section 6.2 */
    den = sqrt(ss2 / (n2 - 1.0)) + sqrt(ss1 / (n1 - 1.0));
    break;
  case BK_PERM_MOMENTS: /* the moderated t needs the prior of all features */
    *aux = (ss1 + ss2) / (double) (m - 2);
    return diff;
  default: /* BK_PERM_LIN */
    return diff;
  }
  if (den > 0.0) return diff / den;
  return diff != 0.0 ? copysign(INFINITY, diff) : NAN;
}

/* the totals over all samples of the features f0 .. f1 - 1 and of their
 * squares, for the class not summed */
static void feature_totals(const double *xt, ptrdiff_t p, ptrdiff_t m,
                           ptrdiff_t f0, ptrdiff_t f1, double *tot,
                           double *totq)
{
  for (ptrdiff_t j = f0; j < f1; j++) tot[j] = totq[j] = 0.0;
  for (ptrdiff_t i = 0; i < m; i++) {
    const double *xi = xt + p * i;
    BK_SIMD
    for (ptrdiff_t j = f0; j < f1; j++) {
      tot[j] += xi[j];
      totq[j] += xi[j] * xi[j];
    }
  }
}

/* xt's rows and y are centred with unit norm: r = sum x_i y_pi(i) of the
 * features f0 .. f1 - 1, into acc (zeroed), in blocks of features */
static void perm_correlations(const double *xt, ptrdiff_t p, ptrdiff_t m,
                              const double *y, const int *pb, ptrdiff_t f0,
                              ptrdiff_t f1, double *acc)
{
  for (ptrdiff_t j0 = f0; j0 < f1; j0 += BK_MAXT_BLOCK) {
    const ptrdiff_t j1 = j0 + BK_MAXT_BLOCK < f1 ? j0 + BK_MAXT_BLOCK : f1;
    for (ptrdiff_t i = 0; i < m; i++) {
      const double *xi = xt + p * i, yi = y[pb[i]];
      BK_SIMD
      for (ptrdiff_t j = j0; j < j1; j++) acc[j] += xi[j] * yi;
    }
  }
}

/* the sums (acc) and sums of squares (accq), both zeroed, of the features
 * f0 .. f1 - 1 over the samples of class `small` under the labelling pb: in
 * blocks of features whose two accumulators stay in the L1 cache while the
 * samples stream past, four samples per pass (a quarter of the loads and
 * stores of the accumulators); the order of the sums depends on the
 * labelling only */
static void class_sums(const double *xt, ptrdiff_t p, ptrdiff_t m,
                       const int *cls, const int *pb, int small, ptrdiff_t f0,
                       ptrdiff_t f1, double *acc, double *accq)
{
  for (ptrdiff_t j0 = f0; j0 < f1; j0 += BK_MAXT_BLOCK) {
    const ptrdiff_t j1 = j0 + BK_MAXT_BLOCK < f1 ? j0 + BK_MAXT_BLOCK : f1;
    const double *q[4];
    int nq = 0;
    for (ptrdiff_t i = 0; i < m; i++) {
      if (cls[pb[i]] != small) continue;
      q[nq++] = xt + p * i;
      if (nq < 4) continue;
      nq = 0;
      const double *q0 = q[0], *q1 = q[1], *q2 = q[2], *q3 = q[3];
      BK_SIMD
      for (ptrdiff_t j = j0; j < j1; j++) {
        const double a = q0[j], b = q1[j], c = q2[j], d = q3[j];
        acc[j] += (a + b) + (c + d);
        accq[j] += (a * a + b * b) + (c * c + d * d);
      }
    }
    for (int k = 0; k < nq; k++) {
      const double *xi = q[k];
      BK_SIMD
      for (ptrdiff_t j = j0; j < j1; j++) {
        acc[j] += xi[j];
        accq[j] += xi[j] * xi[j];
      }
    }
  }
}

/* The features per tile of bk_perm_stats(): the tile's columns of every
 * sample (m x tile doubles, some 256 kB) stay in a core's L2 cache while the
 * labellings of its thread pass over them; a multiple of 8 */
static ptrdiff_t perm_tile(ptrdiff_t m)
{
  ptrdiff_t t = ((ptrdiff_t) 1 << 15) / (m > 0 ? m : 1);
  t = t / 8 * 8;
  return t < 64 ? 64 : t > BK_MAXT_BLOCK ? BK_MAXT_BLOCK : t;
}

/* What every labelling of bk_perm_stats() shares */
typedef struct {
  int stat, small;
  const double *xt, *y, *tot, *totq;
  ptrdiff_t p, m, n1, n2;
  const int *cls, *perm;
} perm_job;

/* the job of the statistic stat (bk_perm_stats()); tot and totq: p doubles
 * each for the totals, filled in the parallel region (perm_totals()) */
static perm_job perm_setup(int stat, const double *xt, ptrdiff_t p, ptrdiff_t m,
                           const int *cls, const double *y, const int *perm, double *tot,
                           double *totq)
{
  ptrdiff_t n2 = 0;
  if (stat != BK_PERM_PC)
    for (ptrdiff_t i = 0; i < m; i++) n2 += cls[i];
  const ptrdiff_t n1 = m - n2;
  /* sum the smaller class; the other is the total minus it */
  return (perm_job){.stat = stat, .small = n2 <= n1 ? 1 : 0, .xt = xt, .y = y,
                    .tot = tot, .totq = totq, .p = p, .m = m, .n1 = n1, .n2 = n2,
                    .cls = cls, .perm = perm};
}

/* inside a parallel region: the totals, tile by tile (each feature's sum
 * over the samples in their order), with the region's implicit barrier */
static void perm_totals(const perm_job *jb, ptrdiff_t tile, double *tot, double *totq)
{
  if (jb->stat == BK_PERM_PC) return;
  const ptrdiff_t p = jb->p;
#pragma omp for schedule(static)
  for (ptrdiff_t f0 = 0; f0 < p; f0 += tile)
    feature_totals(jb->xt, p, jb->m, f0, f0 + tile < p ? f0 + tile : p, tot, totq);
}

/* the statistics of the features f0 .. f1 - 1 under labelling b into ob
 * (and the pooled variances into ob2, BK_PERM_MOMENTS only; else NULL), the
 * labelling's p statistics; acc and accq: p doubles each, the thread's */
static void perm_tile_stats(const perm_job *jb, ptrdiff_t b, double *ob, double *ob2,
                            ptrdiff_t f0, ptrdiff_t f1, double *acc, double *accq)
{
  const ptrdiff_t p = jb->p, m = jb->m;
  const int *pb = jb->perm + m * b;
  for (ptrdiff_t j = f0; j < f1; j++) acc[j] = accq[j] = 0.0;
  if (jb->stat == BK_PERM_PC) {
    perm_correlations(jb->xt, p, m, jb->y, pb, f0, f1, acc);
    for (ptrdiff_t j = f0; j < f1; j++) ob[j] = acc[j];
    return;
  }
  class_sums(jb->xt, p, m, jb->cls, pb, jb->small, f0, f1, acc, accq);
  const double dn1 = (double) jb->n1, dn2 = (double) jb->n2;
  for (ptrdiff_t j = f0; j < f1; j++) {
    double s2, q2, s1, q1, aux = 0.0;
    if (jb->small == 1) {
      s2 = acc[j];
      q2 = accq[j];
      s1 = jb->tot[j] - s2;
      q1 = jb->totq[j] - q2;
    } else {
      s1 = acc[j];
      q1 = accq[j];
      s2 = jb->tot[j] - s1;
      q2 = jb->totq[j] - q1;
    }
    ob[j] = two_sample(jb->stat, s1, q1, dn1, s2, q2, dn2, m, &aux);
    if (ob2) ob2[j] = aux;
  }
}

void bk_perm_stats(int stat, const double *xt, ptrdiff_t p, ptrdiff_t m,
                   const int *cls, const double *y, const int *perm,
                   ptrdiff_t B, double *out, double *out2, double *work,
                   int nthreads)
{
  (void) nthreads; /* used by the pragma only: unused without OpenMP */
  double *tot = work, *totq = work + p;
  const perm_job jb = perm_setup(stat, xt, p, m, cls, y, perm, tot, totq);
  const ptrdiff_t tile = perm_tile(m);

  /* each thread its own run of labellings (as a static schedule), tile by
   * tile of features: every labelling of the run passes over a tile while
   * it is in the cache, so the threads read the data from their caches, not
   * from memory. Each statistic is summed over the samples as one
   * labelling at a time would: the tiles change no bit. */
#pragma omp parallel num_threads(nthreads) if (nthreads > 1 && B > 1)
  {
#ifdef _OPENMP
    const ptrdiff_t tid = omp_get_thread_num(), nt = omp_get_num_threads();
#else
    const ptrdiff_t tid = 0, nt = 1;
#endif
    perm_totals(&jb, tile, tot, totq);
    const ptrdiff_t b0 = B * tid / nt, b1 = B * (tid + 1) / nt;
    double *acc = work + 2 * p + 2 * p * tid, *accq = acc + p;
    for (ptrdiff_t f0 = 0; f0 < p; f0 += tile) {
      const ptrdiff_t f1 = f0 + tile < p ? f0 + tile : p;
      for (ptrdiff_t b = b0; b < b1; b++)
        perm_tile_stats(&jb, b, out + p * b, out2 ? out2 + p * b : NULL, f0, f1, acc,
                        accq);
    }
  }
}

/* the counts of one labelling's statistics sb (p) into r (p) and a (q) */
static void count_labelling(const double *sb, ptrdiff_t p, const int *order, ptrdiff_t q,
                            const double *thr, int *r, int *a)
{
  /* raw: |T_b,j| >= |T_j| (thr holds |T_j| less a rounding allowance); a
   * NaN statistic counts for nothing */
  for (ptrdiff_t j = 0; j < p; j++) r[j] += fabs(sb[j]) >= thr[j];
  /* step-down: successive maxima from the least significant feature up
   * (Ge, Dudoit and Speed 2003, algorithm 4) */
  double u = -INFINITY;
  for (ptrdiff_t k = q - 1; k >= 0; k--) {
    const double v = fabs(sb[order[k]]);
    if (v > u) u = v;
    a[k] += u >= thr[order[k]];
  }
}

/* inside a parallel region, after its threads' counts (per ints each, one
 * row per thread of work): their sums feature by feature (integer sums: the
 * same in any order) into raw (p) and adj */
static void sum_counts(const int *work, ptrdiff_t p, ptrdiff_t per, ptrdiff_t nt, int *raw,
                       int *adj)
{
#pragma omp barrier
#pragma omp for schedule(static)
  for (ptrdiff_t j = 0; j < per; j++) {
    int c = 0;
    for (ptrdiff_t t = 0; t < nt; t++) c += work[per * t + j];
    if (j < p) raw[j] = c; else adj[j - p] = c;
  }
}

void bk_maxt_count(const double *stat, ptrdiff_t p, ptrdiff_t B,
                   const int *order, ptrdiff_t q, const double *thr,
                   int *raw, int *adj, int *work, int nthreads)
{
  (void) nthreads; /* used by the pragma only: unused without OpenMP */
  const ptrdiff_t per = p + q;
  /* one region: each thread zeroes its counts, counts its labellings, and
   * after the barrier the counts are summed */
#pragma omp parallel num_threads(nthreads) if (nthreads > 1 && B > 1)
  {
#ifdef _OPENMP
    const ptrdiff_t tid = omp_get_thread_num(), nt = omp_get_num_threads();
#else
    const ptrdiff_t tid = 0, nt = 1;
#endif
    int *r = work + per * tid, *a = r + p;
    for (ptrdiff_t j = 0; j < per; j++) r[j] = 0;
    for (ptrdiff_t b = B * tid / nt; b < B * (tid + 1) / nt; b++)
      count_labelling(stat + p * b, p, order, q, thr, r, a);
    sum_counts(work, p, per, nt, raw, adj);
  }
}

void bk_maxt_fused(const bk_maxt_spec *s, int *raw, int *adj, double *work, int *iwork,
                   int nthreads)
{
  const ptrdiff_t p = s->p, B = s->B, q = s->q, per = p + q;
  double *tot = work, *totq = work + p;
  const perm_job jb = perm_setup(s->stat, s->xt, p, s->m, s->cls, s->y, s->perm, tot, totq);
  const ptrdiff_t tile = perm_tile(s->m);
  const int nw = nthreads > 1 ? nthreads : 1;
  /* the labellings in groups of g, at least four groups per thread: a
   * thread takes the next group when it is done with its last, so that a
   * thread whose core another process holds takes fewer (a busy machine,
   * a late vCPU), and the threads finish together */
  ptrdiff_t g = B / (4 * (ptrdiff_t) nw);
  g = g < 1 ? 1 : g > BK_MAXT_CHUNK ? BK_MAXT_CHUNK : g;
  const ptrdiff_t ngroups = (B + g - 1) / g;
  /* as bk_perm_stats(), but each thread keeps the statistics of at most
   * BK_MAXT_CHUNK labellings (its own buffer, in the cache) and counts them
   * at once: the p x B statistics are never written to memory. A
   * labelling's statistics and counts are the same whichever thread makes
   * them (integer counts, summed in any order) */
#pragma omp parallel num_threads(nthreads) if (nthreads > 1 && B > 1)
  {
#ifdef _OPENMP
    const ptrdiff_t tid = omp_get_thread_num(), nt = omp_get_num_threads();
#else
    const ptrdiff_t tid = 0, nt = 1;
#endif
    perm_totals(&jb, tile, tot, totq);
    double *acc = work + 2 * p + 2 * p * tid, *accq = acc + p;
    double *sb = work + 2 * p * (nw + 1) + p * BK_MAXT_CHUNK * tid;
    int *r = iwork + per * tid, *a = r + p;
    for (ptrdiff_t j = 0; j < per; j++) r[j] = 0;
#pragma omp for schedule(dynamic, 1) nowait
    for (ptrdiff_t gi = 0; gi < ngroups; gi++) {
      const ptrdiff_t c0 = g * gi, c1 = c0 + g < B ? c0 + g : B;
      for (ptrdiff_t f0 = 0; f0 < p; f0 += tile) {
        const ptrdiff_t f1 = f0 + tile < p ? f0 + tile : p;
        for (ptrdiff_t b = c0; b < c1; b++)
          perm_tile_stats(&jb, b, sb + p * (b - c0), NULL, f0, f1, acc, accq);
      }
      for (ptrdiff_t b = c0; b < c1; b++)
        count_labelling(sb + p * (b - c0), p, s->order, q, s->thr, r, a);
    }
    sum_counts(iwork, p, per, nt, raw, adj);
  }
}
