/*
 * gram.c: Gram matrices of the data kernels and the median heuristic.
 * Numeric core: no R API.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "kernels.h"
#include "schedule.h"

/* Columns b0..b1-1 of the upper triangle of K (see bk_cross()): column b
 * at COL(b), its first N(b) values (TRI_*); or of the whole of K, its
 * first n rows, column b at K + m (b - b0) (FULL_*, bk_gram_panel_rows()).
 * An element is the same sum of the same terms either way, and
 * (x_a - x_b)^2 = (x_b - x_a)^2 and x_a x_b = x_b x_a exactly: a panel's
 * lower part is bit for bit the mirrored upper triangle. */
#define TRI_COL(b) (K + m * (b))
#define TRI_N(b) ((b) + 1)
#define FULL_COL(b) (K + m * ((b) - b0))
#define FULL_N(b) (n)
#define CROSS_ARGS                                                            \
  const double *x, ptrdiff_t m, ptrdiff_t d, int dist, double *K,            \
      ptrdiff_t b0, ptrdiff_t b1, ptrdiff_t n
/* One sweep of four features (x0 .. x3) or of one (xj) over the columns
 * b0 .. b1 - 1: UPDATE is `col[a] +=` for every sweep but the first, which
 * writes `col[a] = 0.0 +`: the value a zeroed column would get (0 + s, the
 * sign of a zero included), without a pass that zeroes the columns first */
#define CROSS_SWEEP4(COL, N, UPDATE)                                          \
  for (ptrdiff_t b = b0; b < b1; b++) {                                      \
    double *col = COL(b);                                                    \
    const double c0 = x0[b], c1 = x1[b], c2 = x2[b], c3 = x3[b];             \
    /* omp simd: at R's -O2 gcc vectorises only loops whose trip count      \
     * is a multiple of the vector width */                                 \
    if (dist) {                                                              \
      BK_SIMD                                                                \
      for (ptrdiff_t a = 0; a < N(b); a++) {                                 \
        double t0 = x0[a] - c0, t1 = x1[a] - c1, t2 = x2[a] - c2,            \
               t3 = x3[a] - c3;                                              \
        UPDATE((t0 * t0 + t1 * t1) + (t2 * t2 + t3 * t3));                   \
      }                                                                      \
    } else {                                                                 \
      BK_SIMD                                                                \
      for (ptrdiff_t a = 0; a < N(b); a++)                                   \
        UPDATE((x0[a] * c0 + x1[a] * c1) + (x2[a] * c2 + x3[a] * c3));       \
    }                                                                        \
  }
#define CROSS_SWEEP1(COL, N, UPDATE)                                          \
  for (ptrdiff_t b = b0; b < b1; b++) {                                      \
    double *col = COL(b);                                                    \
    const double xb = xj[b];                                                 \
    if (dist) {                                                              \
      BK_SIMD                                                                \
      for (ptrdiff_t a = 0; a < N(b); a++) {                                 \
        double t = xj[a] - xb;                                               \
        UPDATE(t * t);                                                       \
      }                                                                      \
    } else {                                                                 \
      BK_SIMD                                                                \
      for (ptrdiff_t a = 0; a < N(b); a++) UPDATE(xj[a] * xb);               \
    }                                                                        \
  }
#define CROSS_SET(v) col[a] = 0.0 + (v)
#define CROSS_ADD(v) col[a] += (v)
#define CROSS_BODY(COL, N)                                                    \
  if (d <= 0)                                                                \
    for (ptrdiff_t b = b0; b < b1; b++)                                      \
      memset(COL(b), 0, (size_t) N(b) * sizeof(double));                     \
  /* four features per sweep over a column block: a quarter of the loads    \
   * and stores of K, which is what bounds this loop */                     \
  ptrdiff_t j = 0;                                                           \
  for (; j + 4 <= d; j += 4) {                                               \
    const double *x0 = x + m * j, *x1 = x0 + m, *x2 = x1 + m, *x3 = x2 + m;  \
    if (j == 0) {                                                            \
      CROSS_SWEEP4(COL, N, CROSS_SET)                                        \
    } else {                                                                 \
      CROSS_SWEEP4(COL, N, CROSS_ADD)                                        \
    }                                                                        \
  }                                                                          \
  for (; j < d; j++) {                                                       \
    const double *xj = x + m * j;                                            \
    if (j == 0) {                                                            \
      CROSS_SWEEP1(COL, N, CROSS_SET)                                        \
    } else {                                                                 \
      CROSS_SWEEP1(COL, N, CROSS_ADD)                                        \
    }                                                                        \
  }

typedef void (*cross_fn)(CROSS_ARGS);
static void cross_columns(CROSS_ARGS) { (void) n; CROSS_BODY(TRI_COL, TRI_N) }
static void cross_full(CROSS_ARGS) { CROSS_BODY(FULL_COL, FULL_N) }

/* The Gram matrix's per-column kernel map: column b's b + 1 distances or
 * products in col become kernel values (post: the factor of a kernel with a
 * length, bk_gram_ck()). The exponential kernels get loops the compiler
 * can vectorise; sqrt() sets errno, which keeps a loop scalar, so the
 * Laplace kernel's square roots are a loop of their own. */
#define MAP_ARGS double *col, ptrdiff_t n, bk_kernel kern, double post
#define MAP_BODY(SQRT_LOOP)                                                   \
  const double s = kern.p1;                                                  \
  if (kern.type == BK_GAUSSIAN) {                                            \
    BK_SIMD                                                                  \
    for (ptrdiff_t a = 0; a < n; a++) col[a] = bk_exp(-s * col[a]);          \
  } else if (kern.type == BK_LAPLACE) {                                      \
    SQRT_LOOP                                                                \
    BK_SIMD                                                                  \
    for (ptrdiff_t a = 0; a < n; a++) col[a] = bk_exp(-s * col[a]);          \
  } else {                                                                   \
    for (ptrdiff_t a = 0; a < n; a++)                                        \
      col[a] = bk_kernel_value(kern, col[a]) * post;                         \
  }
#define SQRT_SCALAR for (ptrdiff_t a = 0; a < n; a++) col[a] = sqrt(col[a]);

typedef void (*map_fn)(MAP_ARGS);
static void map_column(MAP_ARGS) { MAP_BODY(SQRT_SCALAR) }

/* The same loops compiled for AVX2 as well and picked at run time, as
 * pairs.c does: R's flags target the baseline x86-64 (SSE2), and four-wide
 * vectors run the exponential about twice as fast and the cross products
 * some 1.5 times (inst/bench/bench-hsic.R). Without FMA on purpose: a
 * fused multiply-add would round the sums of squares and the exponential's
 * polynomial differently; without it every element is computed by the same
 * operations in the same order as in the baseline loops, so the Gram
 * matrix, its median width and every statistic of it are the same to the
 * last bit with and without the AVX2 copies. The square roots of the
 * Laplace kernel use the vector instruction (correctly rounded, as sqrt()
 * is; the distances are never negative, so sqrt() would set no errno). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GRAM_X86_DISPATCH 1
#include <immintrin.h>
#define SQRT_AVX                                                              \
  {                                                                          \
    ptrdiff_t a = 0;                                                         \
    for (; a + 4 <= n; a += 4)                                               \
      _mm256_storeu_pd(col + a, _mm256_sqrt_pd(_mm256_loadu_pd(col + a)));   \
    for (; a < n; a++) col[a] = sqrt(col[a]);                                \
  }
__attribute__((target("avx2"))) static void cross_columns_avx2(CROSS_ARGS)
{
  (void) n;
  CROSS_BODY(TRI_COL, TRI_N)
}
__attribute__((target("avx2"))) static void cross_full_avx2(CROSS_ARGS)
{
  CROSS_BODY(FULL_COL, FULL_N)
}
__attribute__((target("avx2"))) static void map_column_avx2(MAP_ARGS)
{
  MAP_BODY(SQRT_AVX)
}
#endif

static int gram_avx2(int simd)
{
  return simd && bk_cpu_has_avx2_fma();
}

/* Columns of K are filled in blocks small enough to stay in cache while every
 * feature column of x streams past once per block: x is read m / B times
 * instead of m times, which matters for gene matrices (d >> m). The
 * differences are formed directly, not as |x|^2 + |x'|^2 - 2 <x, x'>, so the
 * squared distances are exact to rounding and never negative. Each column is
 * computed on its own, so neither the threads nor the groups of blocks
 * between interrupt checks change a bit of it. simd: the AVX2 copy of the
 * loop where the CPU has it (the same values). */
/* the cross loop's items: cache blocks of bs columns */
typedef struct {
  const double *x;
  ptrdiff_t m, d, bs, cost;
  int dist;
  double *K;
  cross_fn cross;
} cross_ctx;

static void cross_block(void *ctx, ptrdiff_t blk)
{
  const cross_ctx *c = ctx;
  ptrdiff_t b0 = blk * c->bs, b1 = b0 + c->bs < c->m ? b0 + c->bs : c->m;
  c->cross(c->x, c->m, c->d, c->dist, c->K, b0, b1, c->m);
}

static double cross_cost(const void *ctx, ptrdiff_t blk)
{
  const cross_ctx *c = ctx;
  ptrdiff_t b0 = blk * c->bs, b1 = b0 + c->bs < c->m ? b0 + c->bs : c->m;
  return (double) ((b1 - b0) * b1 * c->cost);
}

/* an element of a column of bk_cross() costs about d / 4 sweeps of four
 * features, and the first touch of a fresh page (by the first sweep) some
 * four more */
#define CROSS_COST(d) ((d) / 4 + 4)

static void cross_simd(const double *x, ptrdiff_t m, ptrdiff_t d, int dist,
                       double *K, int nthreads, bk_pacer *pace, int simd)
{
  cross_ctx c = {.x = x, .m = m, .d = d, .dist = dist, .K = K,
                 .cross = cross_columns};
#ifdef GRAM_X86_DISPATCH
  if (gram_avx2(simd)) c.cross = cross_columns_avx2;
#endif
  (void) simd;
  c.bs = 16384 / (m > 0 ? m : 1);
  if (c.bs < 1) c.bs = 1;
  /* threads for enough work only (BK_PAR_MIN_PAIRS): the small Gram
   * matrices of the block estimator open a region each */
  c.cost = CROSS_COST(d);
  const bk_paced_loop loop = {.item = cross_block, .ctx = &c,
                              .cost = cross_cost,
                              .par_min = BK_PAR_MIN_PAIRS, .dynamic = 1};
  bk_paced_for(&loop, (m + c.bs - 1) / c.bs, nthreads, pace);
}

/* The baseline loop: what the selectors' medians (bk_median_pairwise())
 * and the fuzzers call. */
void bk_cross(const double *x, ptrdiff_t m, ptrdiff_t d, int dist, double *K,
              int nthreads, bk_pacer *pace)
{
  cross_simd(x, m, d, dist, K, nthreads, pace, 0);
}

bk_kernel bk_scaled_kernel(bk_kernel kern, int e)
{
  if (e == 0) return kern;
  /* a width multiplies the (squared) distance, a length is added to it */
  int shift = bk_kernel_has_width(kern.type)
                  ? (bk_kernel_has(kern.type, BK_KPROP_SQUARED) ? -2 * e : -e)
              : bk_kernel_has(kern.type, BK_KPROP_LENGTH) ? e
                                                          : 0;
  double p = ldexp(kern.p1, shift);
  kern.p1 = p > DBL_MAX ? DBL_MAX : p;
  return kern;
}

void bk_gram(const double *x, ptrdiff_t m, ptrdiff_t d, bk_kernel *kern_in,
             double *K, double *work, int nthreads)
{
  bk_gram_ck(x, m, d, 0, kern_in, K, work, nthreads, 0, NULL);
}

/* the kernel map's items: the columns of K's upper triangle */
typedef struct {
  double *K;
  ptrdiff_t m, cost;
  bk_kernel kern;
  double post;
  map_fn map;
} map_ctx;

static void map_col(void *ctx, ptrdiff_t b)
{
  const map_ctx *c = ctx;
  c->map(c->K + c->m * b, b + 1, c->kern, c->post);
}

static double map_cost(const void *ctx, ptrdiff_t b)
{
  return (double) (((const map_ctx *) ctx)->cost * (b + 1));
}

static double median_triangle(const double *base, ptrdiff_t m, int packed,
                              int squared, double *work, int nthreads,
                              bk_pacer *pace);

void bk_gram_ck(const double *xs, ptrdiff_t m, ptrdiff_t d, int e,
                bk_kernel *kern_in, double *K, double *work, int nthreads,
                int simd, bk_pacer *pace)
{
  cross_simd(xs, m, d, bk_kernel_uses_distance(kern_in->type), K, nthreads,
             pace, simd);
  bk_kernel kern = bk_scaled_kernel(*kern_in, e);
  /* the median heuristic from the distances just computed, not a second pass
   * over the data; see kernels.R for the fallbacks when it is 0 */
  if (work && bk_kernel_has_width(kern_in->type)) {
    int squared = bk_kernel_has(kern_in->type, BK_KPROP_SQUARED);
    double med = median_triangle(K, m, 0, squared, work, nthreads, pace);
    if (!(med > 0)) {
      kern_in->p1 = NAN;
      return;
    }
    kern.p1 = 1.0 / med;
    /* the width in x's units, which the caller reports (and reuses): it
     * may be out of the range of doubles where the one of xs is not */
    kern_in->p1 = ldexp(kern.p1, squared ? 2 * e : e);
  }
  /* a kernel with a length is not scale-free: the inverse distance
   * 1 / (|x - x'| + eps) is 2^e / (|xs - xs'| + 2^e eps) */
  const double post = bk_kernel_has(kern.type, BK_KPROP_LENGTH) ? ldexp(1.0, e) : 1.0;
  if (kern.type != BK_LINEAR) {
    map_fn map = map_column;
#ifdef GRAM_X86_DISPATCH
    if (gram_avx2(simd)) map = map_column_avx2;
#endif
    /* operations per value: a vectorised exponential some ten, with a
     * square root twenty, pow() or a division some fifty */
    map_ctx c = {.K = K, .m = m, .kern = kern, .post = post, .map = map,
                 .cost = kern.type == BK_GAUSSIAN  ? 10
                         : kern.type == BK_LAPLACE ? 20
                                                   : 50};
    const bk_paced_loop loop = {.item = map_col, .ctx = &c, .cost = map_cost,
                                .par_min = BK_PAR_MIN_PAIRS, .dynamic = 16};
    bk_paced_for(&loop, m, nthreads, pace);
  }
  /* mirror the upper triangle in tiles, so that both sides stay in cache */
  const ptrdiff_t T = 64;
  for (ptrdiff_t b0 = 0; b0 < m; b0 += T) {
    for (ptrdiff_t a0 = b0; a0 < m; a0 += T) {
      ptrdiff_t b1 = b0 + T < m ? b0 + T : m, a1 = a0 + T < m ? a0 + T : m;
      for (ptrdiff_t b = b0; b < b1; b++)
        for (ptrdiff_t a = a0 > b + 1 ? a0 : b + 1; a < a1; a++)
          K[a + m * b] = K[b + m * a];
    }
    /* a strided copy into pages touched for the first time (K's lower
     * triangle): some thirty operations per element */
    bk_pace(pace, 32 * T * (m - b0));
  }
}

void bk_gram_panel(const double *xs, ptrdiff_t m, ptrdiff_t d, int e,
                   bk_kernel kern_in, ptrdiff_t b0, ptrdiff_t b1, double *P,
                   int simd)
{
  bk_gram_panel_rows(xs, m, d, e, kern_in, b0, b1, m, P, simd);
}

void bk_gram_panel_rows(const double *xs, ptrdiff_t m, ptrdiff_t d, int e,
                        bk_kernel kern_in, ptrdiff_t b0, ptrdiff_t b1,
                        ptrdiff_t n, double *P, int simd)
{
  cross_fn cross = cross_full;
  map_fn map = map_column;
#ifdef GRAM_X86_DISPATCH
  if (gram_avx2(simd)) {
    cross = cross_full_avx2;
    map = map_column_avx2;
  }
#endif
  (void) simd;
  cross(xs, m, d, bk_kernel_uses_distance(kern_in.type), P, b0, b1, n);
  /* the kernel and factor of bk_gram_ck() for a width given */
  bk_kernel kern = bk_scaled_kernel(kern_in, e);
  const double post = bk_kernel_has(kern.type, BK_KPROP_LENGTH) ? ldexp(1.0, e) : 1.0;
  if (kern.type != BK_LINEAR)
    for (ptrdiff_t b = b0; b < b1; b++) map(P + m * (b - b0), n, kern, post);
}

static void swap(double *v, ptrdiff_t i, ptrdiff_t j)
{
  double t = v[i];
  v[i] = v[j];
  v[j] = t;
}

/* A Hoare partition of v[lo..hi] (hi > lo) around the median of its first,
 * middle and last values (which copes with many ties, as in integer-valued
 * data): then v[lo..*j] <= pivot <= v[*i..hi], *j < *i, and the values
 * between are the pivot. */
static void partition3(double *v, ptrdiff_t lo, ptrdiff_t hi, ptrdiff_t *ip,
                       ptrdiff_t *jp)
{
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
  *ip = i;
  *jp = j;
}

/* Quickselect (partition3()). */
double bk_select(double *v, ptrdiff_t n, ptrdiff_t k)
{
  ptrdiff_t lo = 0, hi = n - 1;
  while (hi > lo) {
    ptrdiff_t i, j;
    partition3(v, lo, hi, &i, &j);
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

/* Values that share a bucket beyond this many are split by the next 16 bits
 * before the quickselect; fewer take it directly. */
#define BK_SELECT_DIRECT ((ptrdiff_t) 1 << 20)

static inline unsigned long long double_bits(double d)
{
  unsigned long long u;
  memcpy(&u, &d, sizeof u);
  return u;
}

/* The bucket (of 65536) holding the k-th smallest (0-based) of the counts in
 * hist; *before: how many values lie in the buckets below it. */
static unsigned long long find_bucket(const ptrdiff_t *hist, ptrdiff_t k,
                                      ptrdiff_t *before)
{
  ptrdiff_t below = 0;
  unsigned long long bucket = 0;
  for (; bucket < 65535; bucket++) {
    if (below + hist[bucket] > k) break;
    below += hist[bucket];
  }
  *before = below;
  return bucket;
}

/* k-th smallest (0-based) of the values >= 0 of the strictly upper triangle,
 * by a radix step on the top 16 bits of the doubles (for non-negative
 * doubles the bit patterns order as the values) and a quickselect among the
 * few values that share the bucket of the k-th: two streaming passes over
 * the triangle instead of a quickselect over all pairs. When many values
 * share that bucket (the squared distances of high-dimensional data
 * concentrate in a narrow range), they are split again by the next 16 bits,
 * and so on: after the last 16 bits the values left are all equal.
 * hist: 65536 counters; work: room for m (m - 1) / 2 doubles at worst; *top
 * (unless NULL): the largest value. */
static double select_upper(const double *base, ptrdiff_t m, int packed,
                           ptrdiff_t k, ptrdiff_t *hist, double *work,
                           bk_pacer *pace, double *top)
{
  /* counting into the histogram costs some four operations per value, as
   * the gathers do */
  memset(hist, 0, 65536 * sizeof(ptrdiff_t));
  double mx = 0.0;
  for (ptrdiff_t b = 1; b < m; b++) {
    const double *col = upper_col(base, m, packed, b);
    /* the largest value too (for the rule for ties), in the same pass */
    for (ptrdiff_t a = 0; a < b; a++) {
      hist[double_bits(col[a]) >> 48]++;
      mx = col[a] > mx ? col[a] : mx;
    }
    bk_pace(pace, 4 * b);
  }
  if (top) *top = mx;
  ptrdiff_t before;
  unsigned long long bucket = find_bucket(hist, k, &before);
  ptrdiff_t p = 0;
  for (ptrdiff_t b = 1; b < m; b++) {
    const double *col = upper_col(base, m, packed, b);
    for (ptrdiff_t a = 0; a < b; a++)
      if ((double_bits(col[a]) >> 48) == bucket) work[p++] = col[a];
    bk_pace(pace, 4 * b);
  }
  k -= before;
  for (int shift = 32; shift >= 0 && p > BK_SELECT_DIRECT; shift -= 16) {
    memset(hist, 0, 65536 * sizeof(ptrdiff_t));
    for (ptrdiff_t i0 = 0; i0 < p; i0 += BK_SELECT_DIRECT) {
      ptrdiff_t i1 = i0 + BK_SELECT_DIRECT < p ? i0 + BK_SELECT_DIRECT : p;
      for (ptrdiff_t i = i0; i < i1; i++)
        hist[(double_bits(work[i]) >> shift) & 0xffff]++;
      bk_pace(pace, 4 * (i1 - i0));
    }
    bucket = find_bucket(hist, k, &before);
    ptrdiff_t q = 0;
    for (ptrdiff_t i0 = 0; i0 < p; i0 += BK_SELECT_DIRECT) {
      ptrdiff_t i1 = i0 + BK_SELECT_DIRECT < p ? i0 + BK_SELECT_DIRECT : p;
      for (ptrdiff_t i = i0; i < i1; i++)
        if (((double_bits(work[i]) >> shift) & 0xffff) == bucket) work[q++] = work[i];
      bk_pace(pace, 4 * (i1 - i0));
    }
    p = q;
    k -= before;
    /* every bit compared: the values left are one value */
    if (shift == 0) return work[0];
  }
  return bk_select(work, p, k);
}

/* ---- the triangle's selections on threads ------------------------------
 * The k-th smallest value of the triangle is one number, however it is
 * found: for many values a sample of them brackets it, one pass counts
 * the values below, in and above the bracket (each thread its own columns,
 * exact integer counts), and a second gathers those in it, among which the
 * k-th is selected. The counts and the gathered values are the same for any
 * number of threads, and the value selected is the serial selection's. */

/* at most this many threads share a pass; from this many values (some
 * 0.3 ms of one core's work) the bracketing passes replace select_upper()'s
 * histogram, on one thread too: 1.75 ms against 2.2 ms on one thread for
 * the 499,500 distances of 1,000 samples, 1.07 ms on two */
#define TRI_PARTS 64
#ifndef BK_TRI_PAR_MIN /* (the fuzzers take them from 16 values) */
#define BK_TRI_PAR_MIN ((ptrdiff_t) 1 << 18)
#endif
/* the sample that brackets the k-th value, and the bracket's half-width in
 * sample ranks: 4 standard deviations of the sample's rank of the k-th
 * value (at most 32 for 4,096 values), so that it is missed about once in
 * 15,000 selections (the serial selection then runs) */
#define TRI_SAMPLE 4096

/* the column b >= 1 holding packed index p: b (b - 1) / 2 <= p < b (b + 1) / 2 */
static ptrdiff_t col_of(ptrdiff_t p)
{
  ptrdiff_t b = (ptrdiff_t) ((1.0 + sqrt(1.0 + 8.0 * (double) p)) / 2.0);
  if (b < 1) b = 1;
  while (b > 1 && b * (b - 1) / 2 > p) b--;
  while ((b + 1) * b / 2 <= p) b++;
  return b;
}

/* the columns [*b0, *b1) of part i of np: about n / np values each */
static void tri_part(ptrdiff_t m, int i, int np, ptrdiff_t *b0, ptrdiff_t *b1)
{
  const ptrdiff_t n = m * (m - 1) / 2;
  *b0 = i == 0 ? 1 : col_of((ptrdiff_t) ((double) n * i / np));
  *b1 = i == np - 1 ? m : col_of((ptrdiff_t) ((double) n * (i + 1) / np));
}

/* a pass's numbers at the thresholds A <= B: the values < A (lt), <= B
 * (le) and > B (gt; NaN is none of these), the largest value (from 0, as
 * select_upper()) and the smallest above B (+Inf if none) */
typedef struct {
  ptrdiff_t lt, le, gt;
  double max, above;
} tri_counts;

static tri_counts tri_scan_cols(const double *base, ptrdiff_t m, int packed,
                                double A, double B, ptrdiff_t b0, ptrdiff_t b1)
{
  ptrdiff_t lt = 0, le = 0, gt = 0;
  double mx = 0.0, above = INFINITY;
  for (ptrdiff_t b = b0; b < b1; b++) {
    const double *col = upper_col(base, m, packed, b);
    /* branch-free, so that the loop vectorises (counts, the largest and
     * the smallest are exact in any order) */
    BK_SIMD_TRI_SCAN(lt, le, gt, mx, above)
    for (ptrdiff_t a = 0; a < b; a++) {
      const double t = col[a], u = t > B ? t : INFINITY;
      lt += t < A;
      le += t <= B;
      gt += t > B;
      mx = t > mx ? t : mx;
      above = u < above ? u : above;
    }
  }
  return (tri_counts){lt, le, gt, mx, above};
}

static tri_counts tri_scan(const double *base, ptrdiff_t m, int packed,
                           double A, double B, int np, tri_counts *part,
                           bk_pacer *pace)
{
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(np) if (np > 1)
#endif
  for (int i = 0; i < np; i++) {
    ptrdiff_t b0, b1;
    tri_part(m, i, np, &b0, &b1);
    part[i] = tri_scan_cols(base, m, packed, A, B, b0, b1);
  }
  tri_counts c = part[0];
  for (int i = 1; i < np; i++) {
    c.lt += part[i].lt;
    c.le += part[i].le;
    c.gt += part[i].gt;
    c.max = part[i].max > c.max ? part[i].max : c.max;
    c.above = part[i].above < c.above ? part[i].above : c.above;
  }
  bk_pace(pace, 4 * (m * (m - 1) / 2));
  return c;
}

/* select_upper() on np threads; 0 when the bracket misses the k-th value
 * or holds more than a quarter of the values (the caller selects serially
 * then), else 1 with the value in *out and the largest value in *top.
 * work: m (m - 1) / 2 doubles. */
static int select_upper_par(const double *base, ptrdiff_t m, int packed,
                            ptrdiff_t k, double *work, int np, bk_pacer *pace,
                            double *out, double *top)
{
  const ptrdiff_t n = m * (m - 1) / 2, S = TRI_SAMPLE;
  /* the sample: positions from a fixed generator, the same every call */
  unsigned long long st = 0x9E3779B97F4A7C15ULL;
  for (ptrdiff_t s = 0; s < S; s++) {
    st = st * 6364136223846793005ULL + 1442695040888963407ULL;
    const ptrdiff_t p = (ptrdiff_t) ((st >> 11) % (unsigned long long) n),
                    b = col_of(p);
    work[s] = upper_col(base, m, packed, b)[p - b * (b - 1) / 2];
  }
  const ptrdiff_t ks = (ptrdiff_t) ((double) k / (double) n * (double) S),
                  ia = ks - 4 * 32 - 2, ib = ks + 4 * 32 + 2;
  const double A = ia < 0 ? -INFINITY : bk_select(work, S, ia),
               B = ib >= S ? INFINITY : bk_select(work, S, ib);
  tri_counts part[TRI_PARTS];
  const tri_counts c = tri_scan(base, m, packed, A, B, np, part, pace);
  /* NaN values, or the k-th outside [A, B] */
  if (c.le + c.gt != n || !(c.lt <= k && k < c.le)) return 0;
  *top = c.max;
  if (A == B) {
    *out = A;
    return 1;
  }
  if (c.le - c.lt > n / 4) return 0; /* (and the slots fit in work) */
  /* each part's values in [A, B] at its offset, one slot apart: every
   * value is stored and the next slot taken only when it is in [A, B]
   * (without a branch, which the values' random order would mispredict),
   * so a part writes one slot past its values */
  ptrdiff_t off[TRI_PARTS + 1];
  off[0] = 0;
  for (int i = 0; i < np; i++) off[i + 1] = off[i] + (part[i].le - part[i].lt) + 1;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(np)
#endif
  for (int i = 0; i < np; i++) {
    ptrdiff_t b0, b1, q = off[i];
    tri_part(m, i, np, &b0, &b1);
    for (ptrdiff_t b = b0; b < b1; b++) {
      const double *col = upper_col(base, m, packed, b);
      for (ptrdiff_t a = 0; a < b; a++) {
        const double t = col[a];
        work[q] = t;
        q += (t >= A) & (t <= B);
      }
    }
  }
  bk_pace(pace, 2 * n);
  /* the parts' values together */
  ptrdiff_t p = off[1] - 1;
  for (int i = 1; i < np; i++) {
    const ptrdiff_t len = off[i + 1] - 1 - off[i];
    memmove(work + p, work + off[i], (size_t) len * sizeof(double));
    p += len;
  }
  *out = bk_select(work, p, k - c.lt);
  return 1;
}

/* the k-th smallest (0-based) of the triangle, and (top not NULL) its
 * largest value: on np threads where it can, else select_upper() */
static double select_k(const double *base, ptrdiff_t m, int packed, ptrdiff_t k,
                       double *work, int np, bk_pacer *pace, double *top)
{
  double v, mx;
  if (np > 0 && select_upper_par(base, m, packed, k, work, np, pace, &v, &mx)) {
    if (top) *top = mx;
    return v;
  }
  ptrdiff_t *hist = (ptrdiff_t *) (work + m * (m - 1) / 2);
  return select_upper(base, m, packed, k, hist, work, pace, top);
}

/* The (k+1)-th smallest (0-based) of the triangle's values given its k-th,
 * v: v itself when at least k + 2 values are <= v, else the smallest value
 * above v. One pass (on np threads) instead of another selection. */
static double next_k(const double *base, ptrdiff_t m, int packed, ptrdiff_t k,
                     double v, int np, bk_pacer *pace)
{
  tri_counts part[TRI_PARTS];
  const tri_counts c = tri_scan(base, m, packed, v, v, np, part, pace);
  return c.le >= k + 2 ? v : c.above;
}

/* The median over pairs a < b of the squared distances in the upper
 * triangle, as R's median() of dist(x)^2 (or of dist(x) when squared = 0)
 * would give: the mean of the two middle values when their count is even;
 * when those are ties (bk_median_tie_floor(), the rule for ties), the
 * median over the pairs that are not; its passes on up to nthreads threads
 * from BK_TRI_PAR_MIN values (the same value for any number). work:
 * BK_MEDIAN_WORK(m) doubles. */
static double median_triangle(const double *base, ptrdiff_t m, int packed,
                              int squared, double *work, int nthreads,
                              bk_pacer *pace)
{
  ptrdiff_t n = m * (m - 1) / 2;
  if (n < 1) return NAN;
  /* the counting passes on np threads from BK_TRI_PAR_MIN values; the
   * selection there by bracketing, below by the serial passes of
   * select_upper() (a histogram of the values' top bits: select = 0) */
  const int np = n < BK_TRI_PAR_MIN || nthreads < 2
                     ? 1
                     : (nthreads < TRI_PARTS ? nthreads : TRI_PARTS),
            select = n < BK_TRI_PAR_MIN ? 0 : np;
  ptrdiff_t k = (n - 1) / 2, nz = n;
  double top, lo = select_k(base, m, packed, k, work, select, pace, &top), hi = lo;
  if (n % 2 == 0) hi = next_k(base, m, packed, k, lo, np, pace);
  const double tie = bk_median_tie_floor(hi, top);
  if (tie >= 0.0) {
    /* more than half the pairs tie (discrete data, or residue beside 0):
     * the median over the pairs that do not, as the ties sort first; 0 if
     * all tie */
    tri_counts part[TRI_PARTS];
    const ptrdiff_t ties = tri_scan(base, m, packed, tie, tie, np, part, pace).le;
    nz = n - ties;
    if (nz == 0) return 0.0;
    k = ties + (nz - 1) / 2;
    lo = hi = select_k(base, m, packed, k, work, select, pace, NULL);
    if (nz % 2 == 0) hi = next_k(base, m, packed, k, lo, np, pace);
  }
  if (!squared) {
    lo = sqrt(lo);
    hi = sqrt(hi);
  }
  return 0.5 * (lo + hi);
}

double bk_median_triangle_ck(const double *base, ptrdiff_t m, int packed,
                             int squared, double *work, bk_pacer *pace)
{
  return median_triangle(base, m, packed, squared, work, 1, pace);
}

double bk_median_triangle(const double *base, ptrdiff_t m, int packed,
                          int squared, double *work)
{
  return median_triangle(base, m, packed, squared, work, 1, NULL);
}

/* ---- one feature: the gaps of its sorted values ----------------------- */

/* v[0..n-1] in ascending order, in place: a quicksort (partition3(), as
 * bk_select()) with insertion sort for short runs, and a
 * heapsort where the partitions stay lopsided, so O(n log n) at worst.
 * Equal values are one value, so any order among them is the same sorted
 * values (-0 and +0 aside, which make the same gaps' counts). */
static void insertion_sort(double *v, ptrdiff_t n)
{
  for (ptrdiff_t i = 1; i < n; i++) {
    const double t = v[i];
    ptrdiff_t j = i;
    for (; j > 0 && v[j - 1] > t; j--) v[j] = v[j - 1];
    v[j] = t;
  }
}

static void sift_down(double *v, ptrdiff_t i, ptrdiff_t n)
{
  for (;;) {
    ptrdiff_t c = 2 * i + 1;
    if (c >= n) return;
    if (c + 1 < n && v[c + 1] > v[c]) c++;
    if (!(v[c] > v[i])) return;
    swap(v, i, c);
    i = c;
  }
}

static void heap_sort(double *v, ptrdiff_t n)
{
  for (ptrdiff_t i = n / 2 - 1; i >= 0; i--) sift_down(v, i, n);
  for (ptrdiff_t e = n - 1; e > 0; e--) {
    swap(v, 0, e);
    sift_down(v, 0, e);
  }
}

static void sort_run(double *v, ptrdiff_t n, int depth)
{
  while (n > 16) {
    if (depth-- == 0) {
      heap_sort(v, n);
      return;
    }
    ptrdiff_t i, j;
    partition3(v, 0, n - 1, &i, &j);
    /* v[0..j] <= pivot <= v[i..n-1]: the shorter side by recursion */
    if (j + 1 < n - i) {
      sort_run(v, j + 1, depth);
      v += i;
      n -= i;
    } else {
      sort_run(v + i, n - i, depth);
      n = j + 1;
    }
  }
  insertion_sort(v, n);
}

static void sort_doubles(double *v, ptrdiff_t n)
{
  int depth = 2;
  for (ptrdiff_t k = n; k > 1; k /= 2) depth += 2;
  sort_run(v, n, depth);
}

/* The gaps s[j] - s[i], i < j, of the sorted s[0..m-1] at v >= 0: how many
 * are <= v (n), the largest of those (below; -Inf if none) and the smallest
 * above v (above; +Inf if none). Two pointers: for each j, i is the first
 * index whose gap to j is <= v (the gaps fall as i grows), so j - i gaps
 * are <= v, s[j] - s[i] is the largest of them and s[j] - s[i - 1] the
 * smallest above v. */
typedef struct {
  ptrdiff_t n;
  double below, above;
} gap_count;

static gap_count count_gaps_at(const double *s, ptrdiff_t m, double v)
{
  gap_count c = {0, -INFINITY, INFINITY};
  ptrdiff_t i = 0;
  for (ptrdiff_t j = 1; j < m; j++) {
    /* (i < j: NaN data, whose copy is not sorted, cannot take i past j) */
    while (i < j && s[j] - s[i] > v) i++;
    c.n += j - i;
    if (i < j && s[j] - s[i] > c.below) c.below = s[j] - s[i];
    if (i > 0 && s[j] - s[i - 1] < c.above) c.above = s[j] - s[i - 1];
  }
  return c;
}

/* number of pairs i < j of the sorted s[0..m-1] with s[j] - s[i] <= v */
static ptrdiff_t count_gaps(const double *s, ptrdiff_t m, double v)
{
  return count_gaps_at(s, m, v).n;
}

/* The gaps of the sorted s in (lo, hi], hi >= 0, into out (in no order);
 * returns their number: count_gaps(hi) - count_gaps(lo), by the same
 * comparisons (none for lo < 0, where every gap is above lo). */
static ptrdiff_t gaps_between(const double *s, ptrdiff_t m, double lo,
                              double hi, double *out)
{
  ptrdiff_t p = 0, ia = 0, ib = 0;
  for (ptrdiff_t j = 1; j < m; j++) {
    /* [ia, ib): the i < j with lo < s[j] - s[i] <= hi */
    while (ia < j && s[j] - s[ia] > hi) ia++;
    if (ib < ia) ib = ia;
    while (ib < j && s[j] - s[ib] > lo) ib++;
    for (ptrdiff_t i = ia; i < ib; i++) out[p++] = s[j] - s[i];
  }
  return p;
}

/* k-th smallest (0-based) of the gaps of the sorted s with bit patterns in
 * [lo, hi], which holds it: a bisection over the bit patterns of the
 * non-negative doubles (which order as the values) for the smallest v with
 * at least k + 1 gaps <= v, each step counting in O(m). */
static double kth_gap_bits(const double *s, ptrdiff_t m, ptrdiff_t k,
                           unsigned long long lo, unsigned long long hi)
{
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

/* Counts kth_gap() spends narrowing before it bisects over bit patterns */
#define KTH_GAP_STEPS 48

/* k-th smallest (0-based) of the m (m - 1) / 2 gaps |x_a - x_b| of one
 * feature, from its sorted values s, in O(m log m) rather than a selection
 * over all m^2 / 2 pairs. The k-th gap lies in (lo, hi], lo and hi gaps
 * themselves (lo < 0 at first), with nlo and nhi the gaps <= them; regula
 * falsi on the count (the Illinois rule: an end kept twice counts half)
 * picks the next v and one O(m) count moves an end to the gap at or below
 * v. Once at most cap gaps lie in (lo, hi] they are gathered into buf (cap
 * doubles) and the k-th is selected among them; when the smallest gap
 * above lo is hi, every gap there is hi. A count of extreme data whose
 * narrowing stalls bisects over the bit patterns of (lo, hi] instead. The
 * value is the gap itself, s[j] - s[i], which is exactly |x_a - x_b|: the
 * same number by any of these ways (an exact 0 as +0). */
static double kth_gap(const double *s, ptrdiff_t m, ptrdiff_t k, double *buf,
                      ptrdiff_t cap)
{
  const double top = s[m - 1] - s[0];
  if (!(top > 0.0)) return 0.0;
  double lo = -1.0, hi = top, wlo = 1.0, whi = 1.0, above = -1.0;
  ptrdiff_t nlo = 0, nhi = m * (m - 1) / 2;
  int kept = 0, steps = 0;
  if (isfinite(top)) {
    while (nhi - nlo > cap && above != hi && steps++ < KTH_GAP_STEPS) {
      const double a = lo > 0.0 ? lo : 0.0,
                   glo = wlo * ((double) (k - nlo) + 0.5),
                   ghi = whi * ((double) (nhi - k) - 0.5);
      double v = a + (hi - a) * (glo / (glo + ghi));
      if (!(v > lo && v < hi)) v = a + 0.5 * (hi - a);
      if (!(v > lo && v < hi)) break;
      const gap_count c = count_gaps_at(s, m, v);
      if (c.n >= k + 1) {
        /* the k-th is at most the largest gap <= v (none: NaN data) */
        if (!(c.below >= 0.0)) return NAN;
        hi = c.below + 0.0;
        nhi = c.n;
        whi = 1.0;
        wlo = kept > 0 ? 0.5 * wlo : 1.0;
        kept = 1;
      } else {
        lo = c.below >= 0.0 ? c.below + 0.0 : v;
        nlo = c.n;
        above = c.above;
        wlo = 1.0;
        whi = kept < 0 ? 0.5 * whi : 1.0;
        kept = -1;
      }
    }
  }
  if (above == hi) return hi;
  if (nhi - nlo <= cap) {
    const ptrdiff_t p = gaps_between(s, m, lo, hi, buf);
    const double g = bk_select(buf, p, k - nlo);
    return g == 0.0 ? 0.0 : g;
  }
  unsigned long long ulo = 0, uhi;
  memcpy(&uhi, &hi, sizeof uhi);
  if (lo >= 0.0) {
    memcpy(&ulo, &lo, sizeof ulo);
    ulo++;
  }
  return kth_gap_bits(s, m, k, ulo, uhi);
}

/* The (k+1)-th smallest gap given the k-th, g: g itself when at least k + 2
 * gaps are <= g, else the smallest gap above g. One count. */
static double next_kth_gap(const double *s, ptrdiff_t m, ptrdiff_t k, double g)
{
  const gap_count c = count_gaps_at(s, m, g);
  return c.n >= k + 2 ? g : c.above;
}

/* the largest double g >= 0 with g * g <= tie (tie >= 0, finite): the gaps
 * whose squares tie are those at most it, as squaring is monotone. A
 * bisection over the bit patterns, as in kth_gap(): squares that underflow
 * to 0 tie as they do in the triangle of bk_median_triangle(). */
static double tie_gap(double tie)
{
  double top = sqrt(DBL_MAX);
  unsigned long long lo = 0, hi;
  memcpy(&hi, &top, sizeof hi);
  while (lo < hi) {
    unsigned long long mid = hi - (hi - lo) / 2;
    double v;
    memcpy(&v, &mid, sizeof v);
    if (v * v <= tie)
      lo = mid;
    else
      hi = mid - 1;
  }
  double out;
  memcpy(&out, &lo, sizeof out);
  return out;
}

double bk_median_in_units(double med, int e, int squared)
{
  if (!(med > 0.0)) return med;
  double out = ldexp(med, squared ? -2 * e : -e);
  return out >= DBL_MIN && 1.0 / out >= DBL_MIN ? out : NAN;
}

/* bk_median_columns(): feature j's median on the calling thread's share of
 * the work */
typedef struct {
  const double *x;
  ptrdiff_t m;
  int squared;
  double *work, *out;
} median_cols_ctx;

static void median_column(void *ctx, ptrdiff_t j)
{
  const median_cols_ctx *c = ctx;
  const ptrdiff_t m = c->m;
  double *work = c->work + BK_MEDIAN_COLUMNS_WORK(m) * bk_thread_id(),
         *col = work + BK_MEDIAN_1D_WORK(m);
  const double *xj = c->x + m * j;
  /* each feature on its own scale, as each has its own width */
  const int e = bk_pow2_shift(bk_max_abs(xj, m), BK_DATA_RANGE);
  if (e != 0) {
    bk_copy_pow2(xj, m, e, col);
    xj = col;
  }
  c->out[j] = bk_median_in_units(bk_median_pairwise(xj, m, 1, c->squared, work, NULL),
                                 e, c->squared);
}

void bk_median_columns(const double *x, ptrdiff_t m, ptrdiff_t d, int squared,
                       double *out, double *work, int nthreads, bk_pacer *pace)
{
  median_cols_ctx c = {.x = x, .m = m, .squared = squared, .work = work,
                       .out = out};
  /* a feature's sort and some ten counts of its m values (the ties' rule
   * may take as many again) */
  double lg = 1.0;
  for (ptrdiff_t k = m; k > 1; k /= 2) lg += 1.0;
  const bk_paced_loop loop = {.item = median_column, .ctx = &c,
                              .ops = 4.0 * (double) m * (lg + 10.0),
                              .par_min = BK_PAR_MIN_PAIRS, .dynamic = 8};
  bk_paced_for(&loop, d, nthreads, pace);
}

double bk_median_pairwise(const double *x, ptrdiff_t m, ptrdiff_t d,
                          int squared, double *work, double *cross)
{
  return bk_median_pairwise_ck(x, m, d, squared, work, cross, 1, NULL);
}

double bk_median_pairwise_ck(const double *x, ptrdiff_t m, ptrdiff_t d,
                             int squared, double *work, double *cross,
                             int nthreads, bk_pacer *pace)
{
  ptrdiff_t n = m * (m - 1) / 2;
  if (n < 1) return NAN;
  /* no features: every distance is 0 (what bk_median_triangle() says of
   * bk_cross()), and x has no column for the one-feature path to read */
  if (d < 1) return 0.0;
  if (d > 1) {
    /* the distances on threads (each column its own: the same values on
     * any number) where they are enough work for them, unless a watch
     * finds the machine busy: its probe, or the verdict of the last second,
     * which the call's next watch (hsic()'s panels) then takes up without
     * a probe of its own. Below the gate no probe: on a busy machine one
     * costs milliseconds */
    if (0.5 * (double) m * (double) m * (double) CROSS_COST(d) < BK_PAR_MIN_PAIRS)
      nthreads = 1;
    if (nthreads > 1) {
      bk_par_watch watch;
      bk_par_watch_init(&watch, nthreads);
      if (!bk_par_free(&watch)) nthreads = 1;
    }
    bk_cross(x, m, d, 1, cross, nthreads > 1 ? nthreads : 1, pace);
    return median_triangle(cross, m, 0, squared, work, nthreads, pace);
  }
  /* one feature: sort it and select among the gaps, no m x m work */
  memcpy(work, x, (size_t) m * sizeof(double));
  sort_doubles(work, m);
  double *buf = work + m;
  const ptrdiff_t cap = BK_MEDIAN_GAP_CAP(m);
  ptrdiff_t k = (n - 1) / 2;
  double lo = kth_gap(work, m, k, buf, cap), hi = lo;
  if (n % 2 == 0) hi = next_kth_gap(work, m, k, lo);
  /* the rule for ties on the squared gaps, as bk_median_triangle() applies
   * it to the squared distances (the largest is the range's square) */
  const double range = work[m - 1] - work[0];
  const double tie = bk_median_tie_floor(hi * hi, range * range);
  if (tie >= 0.0) {
    /* the median over the pairs that do not tie, as in bk_median_triangle() */
    ptrdiff_t ties = count_gaps(work, m, tie_gap(tie)), nz = n - ties;
    if (nz == 0) return 0.0;
    k = ties + (nz - 1) / 2;
    lo = hi = kth_gap(work, m, k, buf, cap);
    if (nz % 2 == 0) hi = next_kth_gap(work, m, k, lo);
  }
  if (squared) {
    lo *= lo;
    hi *= hi;
  }
  return 0.5 * (lo + hi);
}
