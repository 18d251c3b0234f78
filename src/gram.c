/*
 * gram.c: Gram matrices of the data kernels and the median heuristic.
 * Numeric core: no R API.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bahsic.h"

int bk_kernel_uses_distance(int type)
{
  return type == BK_GAUSSIAN || type == BK_LAPLACE || type == BK_INVDIST;
}

double bk_kernel_value(bk_kernel kern, double v)
{
  switch (kern.type) {
  case BK_LINEAR:
    return v;
  case BK_POLYNOMIAL:
    return pow(v + kern.p2, kern.p1);
  case BK_GAUSSIAN:
    return bk_exp(-kern.p1 * v);
  case BK_LAPLACE:
    return bk_exp(-kern.p1 * sqrt(v));
  case BK_INVDIST:
    return 1.0 / (sqrt(v) + kern.p1);
  default:
    return NAN;
  }
}

/* Columns of K are filled in blocks small enough to stay in cache while every
 * feature column of x streams past once per block: x is read m / B times
 * instead of m times, which matters for gene matrices (d >> m). The
 * differences are formed directly, not as |x|^2 + |x'|^2 - 2 <x, x'>, so the
 * squared distances are exact to rounding and never negative. */
void bk_cross(const double *x, ptrdiff_t m, ptrdiff_t d, int dist, double *K,
              int nthreads)
{
  ptrdiff_t bs = 16384 / (m > 0 ? m : 1);
  if (bs < 1) bs = 1;
  ptrdiff_t nblocks = (m + bs - 1) / bs;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads) if (nthreads > 1)
#endif
  for (ptrdiff_t blk = 0; blk < nblocks; blk++) {
    ptrdiff_t b0 = blk * bs, b1 = b0 + bs < m ? b0 + bs : m;
    for (ptrdiff_t b = b0; b < b1; b++)
      memset(K + m * b, 0, (size_t) (b + 1) * sizeof(double));
    /* four features per sweep over a column block: a quarter of the loads
     * and stores of K, which is what bounds this loop */
    ptrdiff_t j = 0;
    for (; j + 4 <= d; j += 4) {
      const double *x0 = x + m * j, *x1 = x0 + m, *x2 = x1 + m, *x3 = x2 + m;
      for (ptrdiff_t b = b0; b < b1; b++) {
        double *col = K + m * b;
        const double c0 = x0[b], c1 = x1[b], c2 = x2[b], c3 = x3[b];
        /* omp simd: at R's -O2 gcc vectorises only loops whose trip count
         * is a multiple of the vector width */
        if (dist) {
          BK_SIMD
          for (ptrdiff_t a = 0; a <= b; a++) {
            double t0 = x0[a] - c0, t1 = x1[a] - c1, t2 = x2[a] - c2,
                   t3 = x3[a] - c3;
            col[a] += (t0 * t0 + t1 * t1) + (t2 * t2 + t3 * t3);
          }
        } else {
          BK_SIMD
          for (ptrdiff_t a = 0; a <= b; a++)
            col[a] += (x0[a] * c0 + x1[a] * c1) + (x2[a] * c2 + x3[a] * c3);
        }
      }
    }
    for (; j < d; j++) {
      const double *xj = x + m * j;
      for (ptrdiff_t b = b0; b < b1; b++) {
        double *col = K + m * b;
        const double xb = xj[b];
        if (dist) {
          BK_SIMD
          for (ptrdiff_t a = 0; a <= b; a++) {
            double t = xj[a] - xb;
            col[a] += t * t;
          }
        } else {
          BK_SIMD
          for (ptrdiff_t a = 0; a <= b; a++) col[a] += xj[a] * xb;
        }
      }
    }
  }
  (void) nthreads;
}

void bk_gram(const double *x, ptrdiff_t m, ptrdiff_t d, bk_kernel *kern_in,
             double *K, double *work, int nthreads)
{
  bk_cross(x, m, d, bk_kernel_uses_distance(kern_in->type), K, nthreads);
  /* the median heuristic from the distances just computed, not a second pass
   * over the data; see kernels.R for the fallbacks when it is 0 */
  if (work && (kern_in->type == BK_GAUSSIAN || kern_in->type == BK_LAPLACE)) {
    double med = bk_median_triangle(K, m, 0, kern_in->type == BK_GAUSSIAN, work);
    kern_in->p1 = med > 0 ? 1.0 / med : NAN;
    if (!(med > 0)) return;
  }
  bk_kernel kern = *kern_in;
  if (kern.type != BK_LINEAR) {
    const double s = kern.p1;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 16) num_threads(nthreads) if (nthreads > 1)
#endif
    for (ptrdiff_t b = 0; b < m; b++) {
      double *col = K + m * b;
      /* the exponential kernels get loops the compiler can vectorise */
      if (kern.type == BK_GAUSSIAN) {
        BK_SIMD
        for (ptrdiff_t a = 0; a <= b; a++) col[a] = bk_exp(-s * col[a]);
      } else if (kern.type == BK_LAPLACE) {
        /* sqrt sets errno, which keeps its loop scalar: keep it apart */
        for (ptrdiff_t a = 0; a <= b; a++) col[a] = sqrt(col[a]);
        BK_SIMD
        for (ptrdiff_t a = 0; a <= b; a++) col[a] = bk_exp(-s * col[a]);
      } else {
        for (ptrdiff_t a = 0; a <= b; a++) col[a] = bk_kernel_value(kern, col[a]);
      }
    }
  }
  /* mirror the upper triangle in tiles, so that both sides stay in cache */
  const ptrdiff_t T = 64;
  for (ptrdiff_t b0 = 0; b0 < m; b0 += T)
    for (ptrdiff_t a0 = b0; a0 < m; a0 += T) {
      ptrdiff_t b1 = b0 + T < m ? b0 + T : m, a1 = a0 + T < m ? a0 + T : m;
      for (ptrdiff_t b = b0; b < b1; b++)
        for (ptrdiff_t a = a0 > b + 1 ? a0 : b + 1; a < a1; a++)
          K[a + m * b] = K[b + m * a];
    }
}

static void swap(double *v, ptrdiff_t i, ptrdiff_t j)
{
  double t = v[i];
  v[i] = v[j];
  v[j] = t;
}

/* Quickselect with a median-of-three pivot (Hoare partition, which copes
 * with many ties, as in integer-valued data). */
double bk_select(double *v, ptrdiff_t n, ptrdiff_t k)
{
  ptrdiff_t lo = 0, hi = n - 1;
  while (hi > lo) {
    ptrdiff_t mid = lo + (hi - lo) / 2;
    if (v[mid] < v[lo]) swap(v, mid, lo);
    if (v[hi] < v[lo]) swap(v, hi, lo);
    if (v[hi] < v[mid]) swap(v, hi, mid);
    double pivot = v[mid];
    ptrdiff_t i = lo, j = hi;
    while (i <= j) {
      while (v[i] < pivot) i++;
      while (v[j] > pivot) j--;
      if (i <= j) {
        swap(v, i, j);
        i++;
        j--;
      }
    }
    if (k <= j)
      hi = j;
    else if (k >= i)
      lo = i;
    else
      return v[k];
  }
  return v[k];
}

/* The strictly upper triangle of an m x m matrix, column b holding its b
 * values a < b at K + m b (packed = 0), or the same triangle packed column
 * after column, column b at P + b (b - 1) / 2 (packed = 1). */
static const double *upper_col(const double *base, ptrdiff_t m, int packed,
                               ptrdiff_t b)
{
  return packed ? base + b * (b - 1) / 2 : base + m * b;
}

/* k-th smallest (0-based) of the values >= 0 of the strictly upper triangle,
 * by a radix step on the top 16 bits of the doubles (for non-negative
 * doubles the bit patterns order as the values) and a quickselect among the
 * few values that share the bucket of the k-th: two streaming passes over
 * the triangle instead of a quickselect over all pairs.
 * hist: 65536 counters; work: room for m (m - 1) / 2 doubles at worst. */
static double select_upper(const double *base, ptrdiff_t m, int packed,
                           ptrdiff_t k, ptrdiff_t *hist, double *work)
{
  union {
    double d;
    unsigned long long u;
  } v;
  memset(hist, 0, 65536 * sizeof(ptrdiff_t));
  for (ptrdiff_t b = 1; b < m; b++) {
    const double *col = upper_col(base, m, packed, b);
    for (ptrdiff_t a = 0; a < b; a++) {
      v.d = col[a];
      hist[v.u >> 48]++;
    }
  }
  ptrdiff_t before = 0;
  unsigned long long bucket = 0;
  for (; bucket < 65536; bucket++) {
    if (before + hist[bucket] > k) break;
    before += hist[bucket];
  }
  ptrdiff_t p = 0;
  for (ptrdiff_t b = 1; b < m; b++) {
    const double *col = upper_col(base, m, packed, b);
    for (ptrdiff_t a = 0; a < b; a++) {
      v.d = col[a];
      if ((v.u >> 48) == bucket) work[p++] = v.d;
    }
  }
  return bk_select(work, p, k - before);
}

/* The median over pairs a < b of the squared distances in the upper
 * triangle, as R's median() of dist(x)^2 (or of dist(x) when squared = 0)
 * would give: the mean of the two middle values when their count is even.
 * work: BK_MEDIAN_WORK(m) doubles. */
double bk_median_triangle(const double *base, ptrdiff_t m, int packed,
                          int squared, double *work)
{
  ptrdiff_t n = m * (m - 1) / 2;
  if (n < 1) return NAN;
  ptrdiff_t *hist = (ptrdiff_t *) (work + n);
  ptrdiff_t k = (n - 1) / 2, zeros = 0, nz = n;
  double lo = select_upper(base, m, packed, k, hist, work), hi = lo;
  if (n % 2 == 0) hi = select_upper(base, m, packed, k + 1, hist, work);
  if (lo + hi == 0.0) {
    /* more than half the pairs coincide (tied or discrete data): the median
     * over the pairs that differ, as the zeros sort first; 0 if none do */
    for (ptrdiff_t b = 1; b < m; b++) {
      const double *col = upper_col(base, m, packed, b);
      for (ptrdiff_t a = 0; a < b; a++) zeros += col[a] == 0.0;
    }
    nz = n - zeros;
    if (nz == 0) return 0.0;
    k = zeros + (nz - 1) / 2;
    lo = hi = select_upper(base, m, packed, k, hist, work);
    if (nz % 2 == 0) hi = select_upper(base, m, packed, k + 1, hist, work);
  }
  if (!squared) {
    lo = sqrt(lo);
    hi = sqrt(hi);
  }
  return 0.5 * (lo + hi);
}

static int cmp_double(const void *a, const void *b)
{
  double u = *(const double *) a, v = *(const double *) b;
  return (u > v) - (u < v);
}

/* number of pairs i < j of the sorted s[0..m-1] with s[j] - s[i] <= v */
static ptrdiff_t count_gaps(const double *s, ptrdiff_t m, double v)
{
  ptrdiff_t count = 0, i = 0;
  for (ptrdiff_t j = 1; j < m; j++) {
    while (s[j] - s[i] > v) i++;
    count += j - i;
  }
  return count;
}

/* k-th smallest (0-based) of the m (m - 1) / 2 gaps |x_a - x_b| of one
 * feature, from its sorted values s: a bisection over the bit patterns of
 * the non-negative doubles (which order as the values) for the smallest v
 * with at least k + 1 gaps <= v, each step counting in O(m) by two
 * pointers. At most 64 steps, so O(m log m) per feature instead of a
 * selection over all m^2 / 2 pairs. The value found is a gap itself, computed
 * as s[j] - s[i], which is exactly |x_a - x_b|. */
static double kth_gap(const double *s, ptrdiff_t m, ptrdiff_t k)
{
  double top = s[m - 1] - s[0];
  unsigned long long lo = 0, hi;
  memcpy(&hi, &top, sizeof hi);
  while (lo < hi) {
    unsigned long long mid = lo + (hi - lo) / 2;
    double v;
    memcpy(&v, &mid, sizeof v);
    if (count_gaps(s, m, v) >= k + 1)
      hi = mid;
    else
      lo = mid + 1;
  }
  double out;
  memcpy(&out, &lo, sizeof out);
  return out;
}

/* the smallest gap of the sorted s above v (+Inf if none), in O(m) */
static double next_gap(const double *s, ptrdiff_t m, double v)
{
  double best = INFINITY;
  ptrdiff_t i = 0;
  for (ptrdiff_t j = 1; j < m; j++) {
    /* i advances to the first index whose gap to j is <= v */
    while (s[j] - s[i] > v) i++;
    if (i > 0 && s[j] - s[i - 1] < best) best = s[j] - s[i - 1];
  }
  return best;
}

double bk_median_pairwise(const double *x, ptrdiff_t m, ptrdiff_t d,
                          int squared, double *work, double *cross)
{
  ptrdiff_t n = m * (m - 1) / 2;
  if (n < 1) return NAN;
  /* no features: every distance is 0 (what bk_median_triangle() says of
   * bk_cross()), and x has no column for the one-feature path to read */
  if (d < 1) return 0.0;
  if (d > 1) {
    bk_cross(x, m, d, 1, cross, 1);
    return bk_median_triangle(cross, m, 0, squared, work);
  }
  /* one feature: sort it and select among the gaps, no m x m work */
  memcpy(work, x, (size_t) m * sizeof(double));
  qsort(work, (size_t) m, sizeof(double), cmp_double);
  ptrdiff_t k = (n - 1) / 2;
  double lo = kth_gap(work, m, k), hi = lo;
  if (n % 2 == 0 && count_gaps(work, m, lo) < k + 2) hi = next_gap(work, m, lo);
  if (lo + hi == 0.0) {
    /* the median over the pairs that differ, as in bk_median_triangle() */
    ptrdiff_t zeros = count_gaps(work, m, 0.0), nz = n - zeros;
    if (nz == 0) return 0.0;
    k = zeros + (nz - 1) / 2;
    lo = hi = kth_gap(work, m, k);
    if (nz % 2 == 0 && count_gaps(work, m, lo) < k + 2) hi = next_gap(work, m, lo);
  }
  if (squared) {
    lo *= lo;
    hi *= hi;
  }
  return 0.5 * (lo + hi);
}
