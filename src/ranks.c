/*
 * ranks.c: numeric core of the rank scores of feature_scores() -- the
 * Wilcoxon rank-sum (Mann-Whitney) and Kruskal-Wallis statistics and the
 * one-versus-rest marker table (R/scores-rank.R).
 *
 * Per feature: the mid-ranks of its values (ties get the mean of the ranks
 * they span, as rank() does), their sum per class, the tie correction
 * sum(t^3 - t) over the groups of t equal values (Hollander and Wolfe 1999,
 * sections 4.1 and 6.1), and per class the sum of the values and the count
 * of values > 0 (the log fold change and detection rates of the marker
 * table). Everything else is O(classes) per feature and lives in R.
 *
 * Speed: each column is copied once into (value, class) pairs, which an
 * inlined introsort on the values orders (no callback comparator, no
 * indirection: qsort() of the plain values costs more than this whole
 * pass); one walk over the sorted pairs then finds the groups of ties and
 * adds their mid-rank to their class. The order of equal values does not
 * matter, so the sort needs no stability and the sums are exact (mid-ranks
 * are half-integers, their sums exact below 2^52).
 *
 * Sparse columns (the nonzero values of a compressed-column matrix): only
 * the nonzeros are sorted; the zeros of each class are one tie block,
 * inserted between the negative and the nonnegative values (with the
 * stored zeros, if any). A column is never made dense.
 *
 * Plain C: no R API, no allocation (work arrays handed in); OpenMP over the
 * columns, in chunks with the pacer between them on the main thread. Each
 * column's numbers are its own: threads and chunks change nothing.
 */
#include <math.h>
#include "bahsic.h"

#ifdef _OPENMP
#include <omp.h>
static int thread_id(void) { return omp_get_thread_num(); }
#else
static int thread_id(void) { return 0; }
#endif

typedef struct {
  double v;
  int k;
} rk_pair;

/* ---- the sort: introsort on the values of pairs ----------------------------
 * Quicksort with the median of three and a Hoare partition, insertion sort
 * below RK_SMALL pairs, heapsort past a depth of 2 log2(n) (so O(n log n)
 * on any input). */
#define RK_SMALL 20

static inline void rk_swap(rk_pair *a, rk_pair *b)
{
  rk_pair t = *a;
  *a = *b;
  *b = t;
}

static void rk_insertion(rk_pair *a, ptrdiff_t n)
{
  for (ptrdiff_t i = 1; i < n; i++) {
    rk_pair t = a[i];
    ptrdiff_t j = i;
    while (j > 0 && a[j - 1].v > t.v) {
      a[j] = a[j - 1];
      j--;
    }
    a[j] = t;
  }
}

static void rk_sift(rk_pair *a, ptrdiff_t root, ptrdiff_t n)
{
  for (;;) {
    ptrdiff_t c = 2 * root + 1;
    if (c >= n) return;
    if (c + 1 < n && a[c + 1].v > a[c].v) c++;
    if (!(a[c].v > a[root].v)) return;
    rk_swap(a + c, a + root);
    root = c;
  }
}

static void rk_heapsort(rk_pair *a, ptrdiff_t n)
{
  for (ptrdiff_t i = n / 2 - 1; i >= 0; i--) rk_sift(a, i, n);
  for (ptrdiff_t i = n - 1; i > 0; i--) {
    rk_swap(a, a + i);
    rk_sift(a, 0, i);
  }
}

static void rk_sort(rk_pair *a, ptrdiff_t n, int depth)
{
  while (n > RK_SMALL) {
    if (depth-- == 0) {
      rk_heapsort(a, n);
      return;
    }
    /* median of three to a[0], with a[1] <= a[0] <= a[n - 1] as sentinels */
    ptrdiff_t mid = n / 2;
    rk_swap(a + 1, a + mid);
    if (a[1].v > a[n - 1].v) rk_swap(a + 1, a + n - 1);
    if (a[0].v > a[n - 1].v) rk_swap(a, a + n - 1);
    if (a[1].v > a[0].v) rk_swap(a, a + 1);
    const double p = a[0].v;
    ptrdiff_t i = 1, j = n - 1;
    for (;;) {
      do i++; while (a[i].v < p);
      do j--; while (a[j].v > p);
      if (i >= j) break;
      rk_swap(a + i, a + j);
    }
    rk_swap(a, a + j);
    /* a[0..j-1] <= p = a[j] <= a[j+1..n-1]: recurse on the smaller side */
    if (j < n - 1 - j) {
      rk_sort(a, j, depth);
      a += j + 1;
      n -= j + 1;
    } else {
      rk_sort(a + j + 1, n - j - 1, depth);
      n = j;
    }
  }
  rk_insertion(a, n);
}

static int rk_depth(ptrdiff_t n)
{
  int d = 0;
  while (n > 1) {
    n >>= 1;
    d += 2;
  }
  return d;
}

/* ---- one column ------------------------------------------------------------- */

/* The rank sums of a sorted column of n pairs into rsum (ncls), the tie term
 * into *ties; zeros[k] (NULL for none) zeros of class k not among the
 * pairs, ranked as one block with any stored zeros. Returns the size of the
 * largest tie group. */
static ptrdiff_t rk_walk(const rk_pair *a, ptrdiff_t n, const double *zeros,
                         double nzero, int ncls, double *rsum, double *ties)
{
  double pos = 0.0, tsum = 0.0, big = 0.0;
  int zero_done = !(nzero > 0.0);
  ptrdiff_t i = 0;
  for (int k = 0; k < ncls; k++) rsum[k] = 0.0;
  while (i < n || !zero_done) {
    /* the next group: pairs a[i..g-1] of one value, plus the zeros when the
     * group is the value 0 or the zeros come before it */
    int with_zeros = !zero_done && (i == n || a[i].v >= 0.0);
    ptrdiff_t g = i;
    if (!with_zeros || (i < n && a[i].v == 0.0)) {
      const double v = a[i].v;
      g = i + 1;
      while (g < n && a[g].v == v) g++;
    }
    double t = (double) (g - i) + (with_zeros ? nzero : 0.0);
    double mid = pos + (t + 1.0) / 2.0;
    for (ptrdiff_t h = i; h < g; h++) rsum[a[h].k] += mid;
    if (with_zeros) {
      for (int k = 0; k < ncls; k++) rsum[k] += zeros[k] * mid;
      zero_done = 1;
    }
    tsum += t * t * t - t;
    if (t > big) big = t;
    pos += t;
    i = g;
  }
  *ties = tsum;
  return (ptrdiff_t) big;
}

/* Column j of a dense matrix: pairs, sums, positives; the row of its first
 * non-finite value or -1. */
static ptrdiff_t rk_gather_dense(const bk_rank_input *in, ptrdiff_t j, rk_pair *a,
                                 double *sum, double *pos)
{
  const double *xj = in->x + in->m * j;
  ptrdiff_t bad = -1;
  for (int k = 0; k < in->ncls; k++) sum[k] = pos[k] = 0.0;
  for (ptrdiff_t i = 0; i < in->m; i++) {
    const double v = xj[i];
    const int k = in->cls[i];
    if (!isfinite(v) && bad < 0) bad = i;
    a[i].v = v;
    a[i].k = k;
    sum[k] += v;
    pos[k] += v > 0.0;
  }
  return bad;
}

/* Column j of a sparse matrix: its nonzeros as pairs (*n of them), the
 * zeros of each class (zeros, counted from the class sizes nk), sums and
 * positives; the row of its first non-finite value or -1. */
static ptrdiff_t rk_gather_sparse(const bk_rank_input *in, ptrdiff_t j, rk_pair *a,
                                  ptrdiff_t *n, const double *nk, double *zeros,
                                  double *sum, double *pos)
{
  const ptrdiff_t p0 = in->colptr[j], p1 = in->colptr[j + 1];
  ptrdiff_t bad = -1;
  for (int k = 0; k < in->ncls; k++) {
    sum[k] = pos[k] = 0.0;
    zeros[k] = nk[k];
  }
  for (ptrdiff_t p = p0; p < p1; p++) {
    const double v = in->x[p];
    const int r = in->rowidx[p], k = in->cls[r];
    if (!isfinite(v) && (bad < 0 || r < bad)) bad = r;
    a[p - p0].v = v;
    a[p - p0].k = k;
    zeros[k] -= 1.0;
    sum[k] += v;
    pos[k] += v > 0.0;
  }
  *n = p1 - p0;
  return bad;
}

static void rk_column(const bk_rank_input *in, const bk_rank_output *out,
                      ptrdiff_t j, rk_pair *a, double *zeros, const double *nk)
{
  const int K = in->ncls;
  double *rsum = out->rsum + (ptrdiff_t) K * j, *sum = out->sum + (ptrdiff_t) K * j,
         *pos = out->pos + (ptrdiff_t) K * j;
  ptrdiff_t n = in->m, bad;
  double nzero = 0.0;
  if (in->colptr) {
    bad = rk_gather_sparse(in, j, a, &n, nk, zeros, sum, pos);
    nzero = (double) (in->m - n);
  } else {
    bad = rk_gather_dense(in, j, a, sum, pos);
  }
  out->bad[j] = bad < 0 ? -1 : (int) bad;
  if (bad >= 0) {
    for (int k = 0; k < K; k++) rsum[k] = NAN;
    out->ties[j] = NAN;
    out->constant[j] = 0;
    return;
  }
  rk_sort(a, n, rk_depth(n));
  ptrdiff_t big = rk_walk(a, n, nzero > 0.0 ? zeros : NULL, nzero, K, rsum,
                          out->ties + j);
  out->constant[j] = big == in->m;
}

ptrdiff_t bk_rank_sums(const bk_rank_input *in, const bk_rank_output *out,
                       double *work, int nthreads, bk_pacer *pace)
{
  const ptrdiff_t m = in->m, d = in->d, K = in->ncls,
                  nt = nthreads > 1 ? nthreads : 1;
  /* the class sizes, then per thread m pairs and K zero counts */
  double *nk = work, *bufs = work + K;
  const ptrdiff_t per_thread = BK_RANK_THREAD_WORK(m, K);
  for (ptrdiff_t k = 0; k < K; k++) nk[k] = 0.0;
  for (ptrdiff_t i = 0; i < m; i++) nk[in->cls[i]] += 1.0;

  /* columns in chunks of about BK_CHECK_OPS operations, at least one per
   * thread; m log2 m per column (the sort) */
  const double ops = (double) m * (rk_depth(m) / 2 + 4) + 1.0;
  const ptrdiff_t chunk = bk_pace_group(pace, ops, d, nt);
  for (ptrdiff_t j0 = 0; j0 < d; j0 += chunk) {
    const ptrdiff_t j1 = d - j0 < chunk ? d : j0 + chunk;
    const int threaded = nthreads > 1 && (double) (j1 - j0) * ops >= BK_PAR_MIN_PAIRS;
    (void) threaded;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 16) num_threads(nthreads) if (threaded)
#endif
    for (ptrdiff_t j = j0; j < j1; j++) {
      double *base = bufs + per_thread * thread_id();
      rk_column(in, out, j, (rk_pair *) base, base + 2 * m, nk);
    }
    bk_pace(pace, (ptrdiff_t) ((double) (j1 - j0) * ops));
  }
  for (ptrdiff_t j = 0; j < d; j++)
    if (out->bad[j] >= 0) return m * j + out->bad[j];
  return -1;
}
