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
 * Speed: a column is copied once, class by class, and each class's values
 * are sorted apart as plain doubles by an inlined introsort (no callback
 * comparator, no indirection); one merge of the sorted classes then finds
 * the groups of ties and adds their mid-rank to each class (a two-class
 * merge of its own for the common case). With many classes (more than
 * RK_MERGE_MAX) the merge would cost m per class: the column is sorted
 * once as (value, class) pairs instead and walked. The order of equal
 * values does not matter, so the sorts need no stability, and the sums are
 * exact (mid-ranks are half-integers, their sums exact below 2^52). On the
 * ALL data (128 x 12,625, two classes) the pass takes about 46-52 ms of
 * processor time, the pair sort about 64 ms (inst/bench/bench-scores.R
 * times the whole call).
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

typedef struct {
  const double *nk; /* the size of each class */
} bk_rank_aux;

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

/* ---- the sorts: introsort ----------------------------------------------------
 * Quicksort with the median of three and a Hoare partition, insertion sort
 * below RK_SMALL elements, heapsort past a depth of 2 log2(n) (so O(n log n)
 * on any input); written once for plain values (the sort of each class's
 * values) and for (value, class) pairs (many classes), KEY the value. */
#define RK_SMALL 48

static int rk_depth(ptrdiff_t n)
{
  int d = 0;
  while (n > 1) {
    n >>= 1;
    d += 2;
  }
  return d;
}

#define RK_SORTS(NAME, T, KEY)                                               \
  static inline void NAME##_swap(T *a, T *b)                                 \
  {                                                                          \
    T t = *a;                                                                \
    *a = *b;                                                                 \
    *b = t;                                                                  \
  }                                                                          \
  static void NAME##_insertion(T *a, ptrdiff_t n)                            \
  {                                                                          \
    for (ptrdiff_t i = 1; i < n; i++) {                                      \
      T t = a[i];                                                            \
      ptrdiff_t j = i;                                                       \
      while (j > 0 && KEY(a[j - 1]) > KEY(t)) {                              \
        a[j] = a[j - 1];                                                     \
        j--;                                                                 \
      }                                                                      \
      a[j] = t;                                                              \
    }                                                                        \
  }                                                                          \
  static void NAME##_heapsort(T *a, ptrdiff_t n)                             \
  {                                                                          \
    for (ptrdiff_t i = n / 2 - 1; i >= 0; i--)                               \
      NAME##_sift(a, i, n);                                                  \
    for (ptrdiff_t i = n - 1; i > 0; i--) {                                  \
      NAME##_swap(a, a + i);                                                 \
      NAME##_sift(a, 0, i);                                                  \
    }                                                                        \
  }                                                                          \
  static void NAME##_sort(T *a, ptrdiff_t n, int depth)                      \
  {                                                                          \
    while (n > RK_SMALL) {                                                   \
      if (depth-- == 0) {                                                    \
        NAME##_heapsort(a, n);                                               \
        return;                                                              \
      }                                                                      \
      /* median of three to a[0], a[1] <= a[0] <= a[n - 1] as sentinels */   \
      NAME##_swap(a + 1, a + n / 2);                                         \
      if (KEY(a[1]) > KEY(a[n - 1])) NAME##_swap(a + 1, a + n - 1);          \
      if (KEY(a[0]) > KEY(a[n - 1])) NAME##_swap(a, a + n - 1);              \
      if (KEY(a[1]) > KEY(a[0])) NAME##_swap(a, a + 1);                      \
      const double p = KEY(a[0]);                                            \
      ptrdiff_t i = 1, j = n - 1;                                            \
      for (;;) {                                                             \
        do i++; while (KEY(a[i]) < p);                                       \
        do j--; while (KEY(a[j]) > p);                                       \
        if (i >= j) break;                                                   \
        NAME##_swap(a + i, a + j);                                           \
      }                                                                      \
      NAME##_swap(a, a + j);                                                 \
      /* a[0..j-1] <= a[j] <= a[j+1..]: recurse on the smaller side */       \
      if (j < n - 1 - j) {                                                   \
        NAME##_sort(a, j, depth);                                            \
        a += j + 1;                                                          \
        n -= j + 1;                                                          \
      } else {                                                               \
        NAME##_sort(a + j + 1, n - j - 1, depth);                            \
        n = j;                                                               \
      }                                                                      \
    }                                                                        \
    NAME##_insertion(a, n);                                                  \
  }

#define RK_SIFT(NAME, T, KEY)                                                \
  static inline void NAME##_swap(T *a, T *b);                                \
  static void NAME##_sift(T *a, ptrdiff_t root, ptrdiff_t n)                 \
  {                                                                          \
    for (;;) {                                                               \
      ptrdiff_t c = 2 * root + 1;                                            \
      if (c >= n) return;                                                    \
      if (c + 1 < n && KEY(a[c + 1]) > KEY(a[c])) c++;                       \
      if (!(KEY(a[c]) > KEY(a[root]))) return;                               \
      NAME##_swap(a + c, a + root);                                          \
      root = c;                                                              \
    }                                                                        \
  }

#define RK_VALUE(e) (e)
#define RK_PAIR_VALUE(e) ((e).v)
RK_SIFT(rkv, double, RK_VALUE)
RK_SORTS(rkv, double, RK_VALUE)
RK_SIFT(rkp, rk_pair, RK_PAIR_VALUE)
RK_SORTS(rkp, rk_pair, RK_PAIR_VALUE)

/* ---- one column ---------------------------------------------------------------
 * Few classes (at most RK_MERGE_MAX): the values of each class are sorted
 * apart, as plain doubles, and the sorted classes merged; the merge finds
 * the groups of ties across the classes and adds their mid-rank to each
 * class (O(m classes), less than a sort for a few classes). Many classes:
 * one sort of (value, class) pairs and a walk over them. */
#define RK_MERGE_MAX 8

/* The group of ties of a sorted column: t values, cnt[k] of class k; adds
 * the mid-rank to the rank sums; pos the values ranked before it. */
static void rk_group(double t, const double *cnt, int ncls, double *pos, double *rsum,
                     double *ties, double *big)
{
  const double mid = *pos + (t + 1.0) / 2.0;
  for (int k = 0; k < ncls; k++) rsum[k] += cnt[k] * mid;
  *ties += t * t * t - t;
  if (t > *big) *big = t;
  *pos += t;
}

/* The merge of the sorted classes v[lo[k]..hi[k]), with zeros[k] (NULL:
 * none) zeros of class k not among them: one tie group with any stored
 * zeros, ranked after the negative values. Returns the largest group. */
static double rk_merge(const double *v, const ptrdiff_t *lo, const ptrdiff_t *hi,
                       const double *zeros, int ncls, double *rsum, double *ties)
{
  ptrdiff_t at[RK_MERGE_MAX];
  double cnt[RK_MERGE_MAX], pos = 0.0, big = 0.0;
  int zero_done = zeros == NULL;
  *ties = 0.0;
  for (int k = 0; k < ncls; k++) {
    at[k] = lo[k];
    rsum[k] = 0.0;
  }
  for (;;) {
    double x = INFINITY;
    int any = 0;
    for (int k = 0; k < ncls; k++)
      if (at[k] < hi[k]) {
        any = 1;
        if (v[at[k]] < x) x = v[at[k]];
      }
    if (!any && zero_done) break;
    const int with_zeros = !zero_done && (!any || x >= 0.0);
    if (with_zeros) x = 0.0;
    double t = 0.0;
    for (int k = 0; k < ncls; k++) {
      ptrdiff_t a = at[k];
      while (a < hi[k] && v[a] == x) a++;
      cnt[k] = (double) (a - at[k]) + (with_zeros ? zeros[k] : 0.0);
      at[k] = a;
      t += cnt[k];
    }
    zero_done |= with_zeros;
    rk_group(t, cnt, ncls, &pos, rsum, ties, &big);
  }
  return big;
}

/* rk_merge() of two classes without zeros, the common case (a two-class
 * test on dense data), without the loops over classes. */
static double rk_merge2(const double *a, ptrdiff_t na, const double *b, ptrdiff_t nb,
                        double *rsum, double *ties)
{
  ptrdiff_t i = 0, j = 0;
  double pos = 0.0, r0 = 0.0, r1 = 0.0, tsum = 0.0, big = 0.0;
  while (i < na || j < nb) {
    const double x = j == nb || (i < na && a[i] <= b[j]) ? a[i] : b[j];
    const ptrdiff_t i0 = i, j0 = j;
    while (i < na && a[i] == x) i++;
    while (j < nb && b[j] == x) j++;
    const double c0 = (double) (i - i0), c1 = (double) (j - j0), t = c0 + c1,
                 mid = pos + (t + 1.0) / 2.0;
    r0 += c0 * mid;
    r1 += c1 * mid;
    tsum += t * t * t - t;
    if (t > big) big = t;
    pos += t;
  }
  rsum[0] = r0;
  rsum[1] = r1;
  *ties = tsum;
  return big;
}

/* The same for one sorted column of (value, class) pairs. */
static double rk_walk(const rk_pair *a, ptrdiff_t n, const double *zeros, int ncls,
                      double *rsum, double *ties, double *cnt)
{
  double pos = 0.0, big = 0.0;
  int zero_done = zeros == NULL;
  ptrdiff_t i = 0;
  *ties = 0.0;
  for (int k = 0; k < ncls; k++) rsum[k] = 0.0;
  while (i < n || !zero_done) {
    const int with_zeros = !zero_done && (i == n || a[i].v >= 0.0);
    const double x = with_zeros ? 0.0 : a[i].v;
    for (int k = 0; k < ncls; k++) cnt[k] = with_zeros ? zeros[k] : 0.0;
    double t = 0.0;
    for (int k = 0; k < ncls && with_zeros; k++) t += zeros[k];
    for (; i < n && a[i].v == x; i++) {
      cnt[a[i].k] += 1.0;
      t += 1.0;
    }
    zero_done |= with_zeros;
    rk_group(t, cnt, ncls, &pos, rsum, ties, &big);
  }
  return big;
}

/* A column's values: dense column j, or the nonzeros of sparse column j
 * (then zeros[k] = the zeros of class k); by class into v[lo[k]..hi[k])
 * (few classes) or as pairs (many); sums and positives per class. Returns
 * the row of its first non-finite value or -1, and the number of values
 * gathered in *n. */
typedef struct {
  double *v;       /* m values (few classes), or */
  rk_pair *pair;   /* m pairs (many) */
  double *zeros;   /* K */
  double *cnt;     /* K */
  ptrdiff_t lo[RK_MERGE_MAX], hi[RK_MERGE_MAX];
} rk_buf;

static inline void rk_put(rk_buf *b, int few, ptrdiff_t at, double v, int k)
{
  if (few) {
    b->v[b->hi[k]++] = v;
  } else {
    b->pair[at].v = v;
    b->pair[at].k = k;
  }
}

static ptrdiff_t rk_gather(const bk_rank_input *in, const bk_rank_aux *aux, ptrdiff_t j,
                           rk_buf *b, double *sum, double *pos, ptrdiff_t *n)
{
  const int K = in->ncls, few = K <= RK_MERGE_MAX;
  ptrdiff_t bad = -1, p0 = 0, p1 = in->m;
  const int *row = NULL;
  const double *x = in->x + in->m * j;
  if (in->colptr) {
    p0 = in->colptr[j];
    p1 = in->colptr[j + 1];
    row = in->rowidx + p0;
    x = in->x + p0;
  }
  for (int k = 0; k < K; k++) {
    sum[k] = pos[k] = 0.0;
    b->zeros[k] = aux->nk[k];
  }
  if (few) {
    /* each class's slots: from the class sizes (dense), or counted */
    if (row) {
      for (int k = 0; k < K; k++) b->cnt[k] = 0.0;
      for (ptrdiff_t p = 0; p < p1 - p0; p++) b->cnt[in->cls[row[p]]] += 1.0;
    }
    ptrdiff_t at = 0;
    for (int k = 0; k < K; k++) {
      b->lo[k] = b->hi[k] = at;
      at += row ? (ptrdiff_t) b->cnt[k] : (ptrdiff_t) aux->nk[k];
    }
  }
  for (ptrdiff_t p = 0; p < p1 - p0; p++) {
    const double v = x[p];
    const ptrdiff_t r = row ? row[p] : p;
    const int k = in->cls[r];
    if (!isfinite(v) && (bad < 0 || r < bad)) bad = r;
    rk_put(b, few, p, v, k);
    b->zeros[k] -= 1.0;
    sum[k] += v;
    pos[k] += v > 0.0;
  }
  *n = p1 - p0;
  return bad;
}

static void rk_column(const bk_rank_input *in, const bk_rank_aux *aux,
                      const bk_rank_output *out, ptrdiff_t j, rk_buf *b)
{
  const int K = in->ncls, few = K <= RK_MERGE_MAX;
  double *rsum = out->rsum + (ptrdiff_t) K * j, *sum = out->sum + (ptrdiff_t) K * j,
         *pos = out->pos + (ptrdiff_t) K * j;
  ptrdiff_t n;
  const ptrdiff_t bad = rk_gather(in, aux, j, b, sum, pos, &n);
  out->bad[j] = bad < 0 ? -1 : (int) bad;
  if (bad >= 0) {
    for (int k = 0; k < K; k++) rsum[k] = NAN;
    out->ties[j] = NAN;
    out->constant[j] = 0;
    return;
  }
  const double *zeros = n < in->m ? b->zeros : NULL;
  double big;
  if (few) {
    for (int k = 0; k < K; k++)
      rkv_sort(b->v + b->lo[k], b->hi[k] - b->lo[k], rk_depth(b->hi[k] - b->lo[k]));
    big = K == 2 && !zeros ? rk_merge2(b->v + b->lo[0], b->hi[0] - b->lo[0], b->v + b->lo[1],
                                       b->hi[1] - b->lo[1], rsum, out->ties + j)
                           : rk_merge(b->v, b->lo, b->hi, zeros, K, rsum, out->ties + j);
  } else {
    rkp_sort(b->pair, n, rk_depth(n));
    big = rk_walk(b->pair, n, zeros, K, rsum, out->ties + j, b->cnt);
  }
  out->constant[j] = big == (double) in->m;
}

ptrdiff_t bk_rank_sums(const bk_rank_input *in, const bk_rank_output *out,
                       double *work, int nthreads, bk_pacer *pace)
{
  const ptrdiff_t m = in->m, d = in->d, K = in->ncls,
                  nt = nthreads > 1 ? nthreads : 1;
  /* the class sizes, then per thread m pairs and K zeros and counts */
  bk_rank_aux aux = {work};
  double *bufs = work + K;
  const ptrdiff_t per_thread = BK_RANK_THREAD_WORK(m, K);
  for (ptrdiff_t k = 0; k < K; k++) work[k] = 0.0;
  for (ptrdiff_t i = 0; i < m; i++) work[in->cls[i]] += 1.0;

  /* columns in chunks of about BK_CHECK_OPS operations, at least one per
   * thread: a column's sort and merge counted as 16 m (log2 m + 4), which
   * makes a chunk some 10-20 ms (35-50 ns per value measured, m = 128 to
   * 2000). R raises a time limit only at checks that come often enough:
   * at one check per 130 ms it raised none in 0.65 s. */
  const double ops = 16.0 * (double) m * (rk_depth(m) / 2 + 4) + 1.0;
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
      rk_buf b = {base, (rk_pair *) base, base + 2 * m, base + 2 * m + K, {0}, {0}};
      rk_column(in, &aux, out, j, &b);
    }
    bk_pace(pace, (ptrdiff_t) ((double) (j1 - j0) * ops));
  }
  for (ptrdiff_t j = 0; j < d; j++)
    if (out->bad[j] >= 0) return m * j + out->bad[j];
  return -1;
}
