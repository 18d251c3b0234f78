/*
 * scores.c: numeric core of the univariate special cases of HSIC
 * (Song et al. 2012, section 6).
 *
 * Every statistic of sections 6.1, 6.2 and 6.5 (Pearson correlation,
 * centroid, t, signal to noise, moderated t, B, shrunken centroid) is a
 * function of the per-class counts, means and within-class sums of squares of
 * a feature, or of its correlation with the label. These two routines do the
 * O(m d) work; the O(d) formulas live in R/scores-linear.R.
 *
 * Each reads a column of x once from memory: one scan finds its first
 * non-finite value, whether it is constant and the power of two that brings
 * its largest |value| into [0.5, 1) (bk_scan_column(), checks.c); the sums
 * then run on the column, now in cache, multiplied by that power of two, so
 * that no square underflows or overflows whatever the scale of the data
 * (see bk_pow2_exponent()). The finiteness check of the data and the
 * constant-feature test of feature_scores() are these scans: no other pass.
 *
 * Plain C: no R API, no allocation. x is m x d, column-major.
 */
#include <math.h>
#include "inference.h"
#include "checks.h"

/* The moments' SSE2 loops (bk_class_moments()) give the numbers of their
 * scalar loops wherever the compiler treats the two alike. gcc does: its
 * SSE2 intrinsics are plain vector arithmetic, which it contracts into
 * fused multiply-adds (a build with -march and FMA) exactly where it
 * contracts the scalar expressions. clang, by default, contracts only
 * within one expression, which an intrinsic call ends: with FMA it would
 * fuse the scalar loop's products and not the vector loop's, so such a
 * build keeps the scalar loop. */
#if defined(__SSE2__) && !(defined(__clang__) && defined(__FMA__))
#define BK_MOMENTS_SSE2 1
#include <emmintrin.h>
#endif

/* The same for the correlation's loops (cor_four()), but not with FMA: gcc
 * vectorises the scalar loops at -O3 and contracts them differently from
 * -O2, so with FMA the scalar loop's numbers depend on the optimisation
 * level, and only the scalar loop itself reproduces them. */
#if defined(BK_MOMENTS_SSE2) && !defined(__FMA__)
#define BK_COR_SSE2 1
#endif

/*
 * Class counts, means and within-class sums of squared deviations, in the
 * units 2^expo[j] of each column: the class mean of column j is
 * mean[, j] * 2^expo[j] and its sum of squares ss[, j] * 4^expo[j]
 * (bk_scale_pow2() converts). expo[j] is BK_NO_EXPONENT for a column of
 * zeros (means and sums of squares 0 in any unit) or one with a non-finite
 * value (not rescaled).
 *
 * The samples are first listed class by class (a counting sort of cls into
 * work), so that each class of each column is summed from its own list with
 * four independent accumulators: no scatter by class, no add waiting for the
 * previous one. The value at position i of a class's list goes to
 * accumulator i mod 4, except the last n mod 4 values, which go to
 * accumulator 0 in order; the four are combined as (s0 + s1) + (s2 + s3).
 *
 * Pass 1 sums x - s, where the shift s is the first value of the class in
 * the column; pass 2 sums the squared deviations about the mean. The shift
 * keeps the sums small (the shifted-data algorithm) and, more to the point,
 * makes a class whose values are all equal come out with its mean exactly
 * equal to that value and ss exactly 0, so that the R side can recognise a
 * zero within-class variance without a tolerance (e.g. for the NA score of a
 * constant feature). An empty class gets n = 0, mean NaN and ss 0.
 *
 * constant[j] = 1 when every value of column j equals its first. Returns the
 * index (column-major) of the first non-finite value of x, or -1.
 *
 * work: m + ncls + 1 ints.
 */

/* the samples of class k at ord[start[k] .. start[k] + n[k] - 1], in
 * increasing order (a stable counting sort) */
static void class_lists(const int *cls, ptrdiff_t m, int ncls, int *n, int *ord,
                        int *start)
{
  for (int k = 0; k < ncls; k++)
    n[k] = 0;
  for (ptrdiff_t i = 0; i < m; i++)
    n[cls[i]]++;
  start[0] = 0;
  for (int k = 0; k < ncls; k++)
    start[k + 1] = start[k] + n[k];
  /* start[] is shifted back afterwards */
  for (ptrdiff_t i = 0; i < m; i++)
    ord[start[cls[i]]++] = (int) i;
  for (int k = ncls; k > 0; k--)
    start[k] = start[k - 1];
  start[0] = 0;
}

/* the scan of column j (bk_scan_column()): its power of two 2^-expo[j] */
static double scan_moments_column(const double *x, ptrdiff_t m, ptrdiff_t j, int *expo,
                                  int *constant, ptrdiff_t *first_bad)
{
  ptrdiff_t bad = bk_scan_column(x + m * j, m, constant + j, expo + j);
  if (bad >= 0 && *first_bad < 0) *first_bad = m * j + bad;
  return bk_pow2_scale(expo[j]);
}

#ifdef BK_MOMENTS_SSE2
/* The values xa[r[i]], xa[r[i + 1]] as one vector; with `run` the list
 * is r[i] = r[0] + i, a run of consecutive samples, read as such. */
static inline __m128d pair_at(const double *xa, const int *r, ptrdiff_t i, int run)
{
  return run ? _mm_loadu_pd(xa + r[0] + i) : _mm_loadh_pd(_mm_load_sd(xa + r[i]), xa + r[i + 1]);
}

/* (s0 + lane 1 of a) + (lane 0 of b + lane 1 of b), as the scalar loop
 * combines its four sums. _mm_add_sd() also fixes which operand comes
 * first, which decides only which of two NaN propagates (in a class that
 * holds NA and another non-finite value): the scalar loop leaves that to
 * the compiler, and gcc -O2 puts either first on different paths, so there
 * the result may be NaN where the scalar loop gives NA, or the reverse.
 * Such data stop feature_scores() before the moments are used. */
static inline double four_lanes(double s0, __m128d a, __m128d b)
{
  __m128d s01 = _mm_add_sd(_mm_set_sd(s0), _mm_unpackhi_pd(a, a)),
          s23 = _mm_add_sd(b, _mm_unpackhi_pd(b, b));
  return _mm_cvtsd_f64(_mm_add_sd(s01, s23));
}

/* The mean and ss of one class (list r, nk > 0) in two columns xa and xb
 * (scales sa, sb) side by side: each column's sums are chains of dependent
 * additions, so the two columns' chains run in parallel. Accumulators 0
 * and 1 of a column are the two lanes of one vector, 2 and 3 those of
 * another, and every lane gets the operations of the scalar loop of
 * moments_scalar() (the build without SSE2), on the same values in the
 * same order: x * sc, minus the shift or the mean, (squared,) added to the
 * lane, each rounded as there; so the same numbers, bit for bit (fused
 * multiply-adds: see BK_MOMENTS_SSE2). With `run` (the class's samples
 * are consecutive, as when the data are sorted by class) the values are
 * read two at a time rather than gathered one by one: the same values. */
static inline void moments_two(const double *xa, const double *xb, const int *r, ptrdiff_t nk,
                               int run, double sa, double sb, double *mean, double *ss,
                               ptrdiff_t stride)
{
  const double ha = xa[r[0]] * sa, hb = xb[r[0]] * sb;
  const __m128d SA = _mm_set1_pd(sa), SB = _mm_set1_pd(sb), HA = _mm_set1_pd(ha),
                HB = _mm_set1_pd(hb);
  __m128d a0 = _mm_setzero_pd(), a1 = a0, b0 = a0, b1 = a0;
  ptrdiff_t i = 0;
  for (; i + 4 <= nk; i += 4) {
    a0 = _mm_add_pd(a0, _mm_sub_pd(_mm_mul_pd(pair_at(xa, r, i, run), SA), HA));
    a1 = _mm_add_pd(a1, _mm_sub_pd(_mm_mul_pd(pair_at(xa, r, i + 2, run), SA), HA));
    b0 = _mm_add_pd(b0, _mm_sub_pd(_mm_mul_pd(pair_at(xb, r, i, run), SB), HB));
    b1 = _mm_add_pd(b1, _mm_sub_pd(_mm_mul_pd(pair_at(xb, r, i + 2, run), SB), HB));
  }
  double ta = _mm_cvtsd_f64(a0), tb = _mm_cvtsd_f64(b0);
  for (ptrdiff_t t = i; t < nk; t++) {
    ta += xa[r[t]] * sa - ha;
    tb += xb[r[t]] * sb - hb;
  }
  const double mua = ha + four_lanes(ta, a0, a1) / (double) nk,
               mub = hb + four_lanes(tb, b0, b1) / (double) nk;
  const __m128d MA = _mm_set1_pd(mua), MB = _mm_set1_pd(mub);
  a0 = a1 = b0 = b1 = _mm_setzero_pd();
  for (i = 0; i + 4 <= nk; i += 4) {
    __m128d e0 = _mm_sub_pd(_mm_mul_pd(pair_at(xa, r, i, run), SA), MA);
    __m128d e1 = _mm_sub_pd(_mm_mul_pd(pair_at(xa, r, i + 2, run), SA), MA);
    __m128d f0 = _mm_sub_pd(_mm_mul_pd(pair_at(xb, r, i, run), SB), MB);
    __m128d f1 = _mm_sub_pd(_mm_mul_pd(pair_at(xb, r, i + 2, run), SB), MB);
    a0 = _mm_add_pd(a0, _mm_mul_pd(e0, e0));
    a1 = _mm_add_pd(a1, _mm_mul_pd(e1, e1));
    b0 = _mm_add_pd(b0, _mm_mul_pd(f0, f0));
    b1 = _mm_add_pd(b1, _mm_mul_pd(f1, f1));
  }
  ta = _mm_cvtsd_f64(a0);
  tb = _mm_cvtsd_f64(b0);
  for (; i < nk; i++) {
    double e = xa[r[i]] * sa - mua, f = xb[r[i]] * sb - mub;
    ta += e * e;
    tb += f * f;
  }
  mean[0] = mua;
  ss[0] = four_lanes(ta, a0, a1);
  mean[stride] = mub;
  ss[stride] = four_lanes(tb, b0, b1);
}
#else
/* The mean and ss of one class (list r, nk > 0) of column xj (scale sc). */
static void moments_scalar(const double *xj, const int *r, ptrdiff_t nk, double sc,
                           double *mean, double *ss)
{
  double shift = xj[r[0]] * sc, s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  ptrdiff_t i = 0;
  for (; i + 4 <= nk; i += 4) {
    s0 += xj[r[i]] * sc - shift;
    s1 += xj[r[i + 1]] * sc - shift;
    s2 += xj[r[i + 2]] * sc - shift;
    s3 += xj[r[i + 3]] * sc - shift;
  }
  for (; i < nk; i++)
    s0 += xj[r[i]] * sc - shift;
  double mu = shift + ((s0 + s1) + (s2 + s3)) / (double) nk;
  s0 = s1 = s2 = s3 = 0.0;
  for (i = 0; i + 4 <= nk; i += 4) {
    double e0 = xj[r[i]] * sc - mu, e1 = xj[r[i + 1]] * sc - mu,
           e2 = xj[r[i + 2]] * sc - mu, e3 = xj[r[i + 3]] * sc - mu;
    s0 += e0 * e0;
    s1 += e1 * e1;
    s2 += e2 * e2;
    s3 += e3 * e3;
  }
  for (; i < nk; i++) {
    double e = xj[r[i]] * sc - mu;
    s0 += e * e;
  }
  *mean = mu;
  *ss = (s0 + s1) + (s2 + s3);
}
#endif

ptrdiff_t bk_class_moments(const double *x, ptrdiff_t m, ptrdiff_t d,
                           const int *cls, int ncls, int *n, double *mean,
                           double *ss, int *expo, int *constant, int *work)
{
  int *ord = work, *start = work + m;
  ptrdiff_t first_bad = -1;
  class_lists(cls, m, ncls, n, ord, start);

  /* two columns a step with SSE2 (the last of an odd d paired with
   * itself, its results written twice), one without */
#ifdef BK_MOMENTS_SSE2
  const ptrdiff_t step = 2;
#else
  const ptrdiff_t step = 1;
#endif
  for (ptrdiff_t j = 0; j < d; j += step) {
    ptrdiff_t j2 = j + step - 1 < d ? j + step - 1 : j;
    const double sa = scan_moments_column(x, m, j, expo, constant, &first_bad);
    const double sb = j2 > j ? scan_moments_column(x, m, j2, expo, constant, &first_bad) : sa;
    for (int k = 0; k < ncls; k++) {
      ptrdiff_t kj = k + (ptrdiff_t) ncls * j, kj2 = k + (ptrdiff_t) ncls * j2;
      if (n[k] == 0) {
        mean[kj] = mean[kj2] = NAN;
        ss[kj] = ss[kj2] = 0.0;
        continue;
      }
#ifdef BK_MOMENTS_SSE2
      const int *r = ord + start[k];
      if (r[n[k] - 1] - r[0] == n[k] - 1)
        moments_two(x + m * j, x + m * j2, r, n[k], 1, sa, sb, mean + kj, ss + kj, kj2 - kj);
      else
        moments_two(x + m * j, x + m * j2, r, n[k], 0, sa, sb, mean + kj, ss + kj, kj2 - kj);
#else
      (void) sb;
      moments_scalar(x + m * j, ord + start[k], n[k], sa, mean + kj, ss + kj);
#endif
    }
  }
  return first_bad;
}

/*
 * Pearson correlation of every column of x with y: the terms of HSIC1 with
 * linear kernels on standardised data (Song et al. 2012, eq. 23).
 *
 * Column and y each rescaled by their own power of two (the correlation does
 * not see it), then two passes, with the same shift by the first value as
 * above so that a constant column has a sum of squares of exactly 0 and gets
 * NaN rather than a meaningless ratio of rounding errors. Clamped to [-1, 1]
 * as stats::cor() does. constant[] and the result as bk_class_moments().
 *
 * work: m doubles (y centred).
 */
/* mean of v[0..m-1] * sc summed as v * sc - v[0] * sc: exact for a constant
 * vector */
static double shifted_mean(const double *v, ptrdiff_t m, double sc)
{
  double s = 0.0, v0 = v[0] * sc;
  for (ptrdiff_t i = 0; i < m; i++)
    s += v[i] * sc - v0;
  return v0 + s / (double) m;
}

/* r from the sums of bk_col_cor(): NaN for a constant column */
static double cor_of(double sxx, double sxy, double syy)
{
  if (!(sxx > 0.0)) return NAN;
  /* product of square roots: sxx * syy could underflow or overflow */
  double r = sxy / (sqrt(sxx) * sqrt(syy));
  return r > 1.0 ? 1.0 : (r < -1.0 ? -1.0 : r);
}

#ifdef BK_COR_SSE2
/* The two loops of cor_four() with SSE2: columns c and c + 1 of the four
 * (c0, c0 + m, ...) are the two lanes of a vector, row after row, so each
 * column's sum gets its terms in the order of the scalar loop, each formed
 * by the same operations.
 * With yc NULL: out[c] = sum of c_c[i] * sc[c] - sub[c]; otherwise
 * xx[c] = sum of d * d and out[c] = sum of d * yc[i], d = c_c[i] * sc[c] -
 * sub[c]. The sums start from 0. */
static void cor_four_sums(const double *c0, ptrdiff_t m, const double *sc, const double *sub,
                          const double *yc, double *xx, double *out)
{
  const double *c1 = c0 + m, *c2 = c1 + m, *c3 = c2 + m;
  const __m128d P = _mm_set_pd(sc[1], sc[0]), Q = _mm_set_pd(sc[3], sc[2]),
                SP = _mm_set_pd(sub[1], sub[0]), SQ = _mm_set_pd(sub[3], sub[2]);
  __m128d ap = _mm_setzero_pd(), aq = ap, xp = ap, xq = ap;
  ptrdiff_t i = 0;
  if (!yc) {
    for (; i + 2 <= m; i += 2) {
      __m128d u0 = _mm_loadu_pd(c0 + i), u1 = _mm_loadu_pd(c1 + i),
              u2 = _mm_loadu_pd(c2 + i), u3 = _mm_loadu_pd(c3 + i);
      ap = _mm_add_pd(ap, _mm_sub_pd(_mm_mul_pd(_mm_unpacklo_pd(u0, u1), P), SP));
      aq = _mm_add_pd(aq, _mm_sub_pd(_mm_mul_pd(_mm_unpacklo_pd(u2, u3), Q), SQ));
      ap = _mm_add_pd(ap, _mm_sub_pd(_mm_mul_pd(_mm_unpackhi_pd(u0, u1), P), SP));
      aq = _mm_add_pd(aq, _mm_sub_pd(_mm_mul_pd(_mm_unpackhi_pd(u2, u3), Q), SQ));
    }
    if (i < m) {
      ap = _mm_add_pd(ap, _mm_sub_pd(_mm_mul_pd(_mm_loadh_pd(_mm_load_sd(c0 + i), c1 + i), P), SP));
      aq = _mm_add_pd(aq, _mm_sub_pd(_mm_mul_pd(_mm_loadh_pd(_mm_load_sd(c2 + i), c3 + i), Q), SQ));
    }
  } else {
    for (; i + 2 <= m; i += 2) {
      __m128d u0 = _mm_loadu_pd(c0 + i), u1 = _mm_loadu_pd(c1 + i),
              u2 = _mm_loadu_pd(c2 + i), u3 = _mm_loadu_pd(c3 + i), y = _mm_loadu_pd(yc + i);
      __m128d y0 = _mm_unpacklo_pd(y, y), y1 = _mm_unpackhi_pd(y, y);
      __m128d dp = _mm_sub_pd(_mm_mul_pd(_mm_unpacklo_pd(u0, u1), P), SP),
              dq = _mm_sub_pd(_mm_mul_pd(_mm_unpacklo_pd(u2, u3), Q), SQ);
      xp = _mm_add_pd(xp, _mm_mul_pd(dp, dp));
      ap = _mm_add_pd(ap, _mm_mul_pd(dp, y0));
      xq = _mm_add_pd(xq, _mm_mul_pd(dq, dq));
      aq = _mm_add_pd(aq, _mm_mul_pd(dq, y0));
      dp = _mm_sub_pd(_mm_mul_pd(_mm_unpackhi_pd(u0, u1), P), SP);
      dq = _mm_sub_pd(_mm_mul_pd(_mm_unpackhi_pd(u2, u3), Q), SQ);
      xp = _mm_add_pd(xp, _mm_mul_pd(dp, dp));
      ap = _mm_add_pd(ap, _mm_mul_pd(dp, y1));
      xq = _mm_add_pd(xq, _mm_mul_pd(dq, dq));
      aq = _mm_add_pd(aq, _mm_mul_pd(dq, y1));
    }
    if (i < m) {
      __m128d y0 = _mm_set1_pd(yc[i]);
      __m128d dp = _mm_sub_pd(_mm_mul_pd(_mm_loadh_pd(_mm_load_sd(c0 + i), c1 + i), P), SP),
              dq = _mm_sub_pd(_mm_mul_pd(_mm_loadh_pd(_mm_load_sd(c2 + i), c3 + i), Q), SQ);
      xp = _mm_add_pd(xp, _mm_mul_pd(dp, dp));
      ap = _mm_add_pd(ap, _mm_mul_pd(dp, y0));
      xq = _mm_add_pd(xq, _mm_mul_pd(dq, dq));
      aq = _mm_add_pd(aq, _mm_mul_pd(dq, y0));
    }
    _mm_storeu_pd(xx, xp);
    _mm_storeu_pd(xx + 2, xq);
  }
  _mm_storeu_pd(out, ap);
  _mm_storeu_pd(out + 2, aq);
}
#endif

/* bk_col_cor() of the four columns j..j + 3 (m > 0, syy > 0) in lockstep:
 * each sum is a chain of dependent additions that leaves the processor
 * idle, so the columns' chains run side by side; each column's operations
 * are those of the loop below, in the same order (the same numbers). */
static void cor_four(const double *x, ptrdiff_t m, ptrdiff_t j, const double *yc, double syy,
                     double *out, double *mean, int *constant, ptrdiff_t *first_bad)
{
  const double *c0 = x + m * j, *c1 = c0 + m, *c2 = c1 + m, *c3 = c2 + m;
  double sc[4], bar[4];
  for (int c = 0; c < 4; c++) {
    int e;
    ptrdiff_t bad = bk_scan_column(c0 + m * c, m, constant + j + c, &e);
    if (bad >= 0 && *first_bad < 0) *first_bad = m * (j + c) + bad;
    sc[c] = bk_pow2_scale(e);
  }
  const double p0 = sc[0], p1 = sc[1], p2 = sc[2], p3 = sc[3];
  /* shifted_mean() of each */
  double f0 = c0[0] * p0, f1 = c1[0] * p1, f2 = c2[0] * p2, f3 = c3[0] * p3;
  double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
#ifdef BK_COR_SSE2
  double s[4], t[4];
  cor_four_sums(c0, m, sc, (const double[]){f0, f1, f2, f3}, NULL, NULL, s);
  a0 = s[0], a1 = s[1], a2 = s[2], a3 = s[3];
#else
  for (ptrdiff_t i = 0; i < m; i++) {
    a0 += c0[i] * p0 - f0;
    a1 += c1[i] * p1 - f1;
    a2 += c2[i] * p2 - f2;
    a3 += c3[i] * p3 - f3;
  }
#endif
  const double b0 = f0 + a0 / (double) m, b1 = f1 + a1 / (double) m,
               b2 = f2 + a2 / (double) m, b3 = f3 + a3 / (double) m;
  bar[0] = b0;
  bar[1] = b1;
  bar[2] = b2;
  bar[3] = b3;
  double xx0 = 0.0, xx1 = 0.0, xx2 = 0.0, xx3 = 0.0, xy0 = 0.0, xy1 = 0.0, xy2 = 0.0,
         xy3 = 0.0;
#ifdef BK_COR_SSE2
  cor_four_sums(c0, m, sc, bar, yc, s, t);
  xx0 = s[0], xx1 = s[1], xx2 = s[2], xx3 = s[3];
  xy0 = t[0], xy1 = t[1], xy2 = t[2], xy3 = t[3];
#else
  for (ptrdiff_t i = 0; i < m; i++) {
    double d0 = c0[i] * p0 - b0, d1 = c1[i] * p1 - b1, d2 = c2[i] * p2 - b2,
           d3 = c3[i] * p3 - b3;
    xx0 += d0 * d0;
    xy0 += d0 * yc[i];
    xx1 += d1 * d1;
    xy1 += d1 * yc[i];
    xx2 += d2 * d2;
    xy2 += d2 * yc[i];
    xx3 += d3 * d3;
    xy3 += d3 * yc[i];
  }
#endif
  /* the mean in the data's units: sc is a power of two */
  if (mean)
    for (int c = 0; c < 4; c++) mean[j + c] = bar[c] / sc[c];
  out[j] = cor_of(xx0, xy0, syy);
  out[j + 1] = cor_of(xx1, xy1, syy);
  out[j + 2] = cor_of(xx2, xy2, syy);
  out[j + 3] = cor_of(xx3, xy3, syy);
}

ptrdiff_t bk_col_cor(const double *x, ptrdiff_t m, ptrdiff_t d,
                     const double *y, double *out, double *mean, int *constant,
                     double *work)
{
  double syy = 0.0, *yc = work;
  ptrdiff_t first_bad = -1;

  if (m > 0) {
    int ysame, ye;
    (void) bk_scan_column(y, m, &ysame, &ye);
    const double ysc = bk_pow2_scale(ye), ybar = shifted_mean(y, m, ysc);
    for (ptrdiff_t i = 0; i < m; i++) {
      yc[i] = y[i] * ysc - ybar;
      syy += yc[i] * yc[i];
    }
  }

  for (ptrdiff_t j = 0; j < d; j++) {
    if (m > 0 && syy > 0.0 && j + 3 < d) {
      cor_four(x, m, j, yc, syy, out, mean, constant, &first_bad);
      j += 3;
      continue;
    }
    const double *xj = x + (ptrdiff_t) m * j;
    double xbar = 0.0, sxx = 0.0, sxy = 0.0, r;
    int e;
    ptrdiff_t bad = bk_scan_column(xj, m, constant + j, &e);
    if (bad >= 0 && first_bad < 0) first_bad = m * j + bad;

    const double sc = bk_pow2_scale(e);
    if (m > 0) xbar = shifted_mean(xj, m, sc);
    /* the mean in the data's units: sc is a power of two */
    if (mean) mean[j] = m > 0 ? xbar / sc : NAN;
    if (m == 0 || !(syy > 0.0)) {
      out[j] = NAN;
      continue;
    }
    for (ptrdiff_t i = 0; i < m; i++) {
      double dx = xj[i] * sc - xbar;
      sxx += dx * dx;
      sxy += dx * yc[i];
    }
    if (!(sxx > 0.0)) {
      out[j] = NAN;
      continue;
    }
    /* product of square roots: sxx * syy could underflow or overflow */
    r = sxy / (sqrt(sxx) * sqrt(syy));
    out[j] = r > 1.0 ? 1.0 : (r < -1.0 ? -1.0 : r);
  }
  return first_bad;
}

/* F' x, four columns of F per read of a column of x: independent sums that
 * the compiler vectorises (R's reference BLAS computes each as one chain of
 * dependent additions, four times slower at the r <= 8 of a design). The
 * order of the sums is fixed: the same result for any number of threads. */
void bk_col_project(const double *x, ptrdiff_t m, ptrdiff_t d, const double *F,
                    ptrdiff_t r, double *out)
{
  for (ptrdiff_t j = 0; j < d; j++) {
    const double *xj = x + m * j;
    double *oj = out + r * j;
    ptrdiff_t k = 0;
    for (; k + 4 <= r; k += 4) {
      const double *f0 = F + m * k, *f1 = f0 + m, *f2 = f1 + m, *f3 = f2 + m;
      double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
      BK_SIMD_SUM4(a0, a1, a2, a3)
      for (ptrdiff_t i = 0; i < m; i++) {
        a0 += f0[i] * xj[i];
        a1 += f1[i] * xj[i];
        a2 += f2[i] * xj[i];
        a3 += f3[i] * xj[i];
      }
      oj[k] = a0;
      oj[k + 1] = a1;
      oj[k + 2] = a2;
      oj[k + 3] = a3;
    }
    for (; k < r; k++) {
      const double *fk = F + m * k;
      double a = 0.0;
      BK_SIMD_SUM(a)
      for (ptrdiff_t i = 0; i < m; i++) a += fk[i] * xj[i];
      oj[k] = a;
    }
  }
}

/* limma's empirical Bayes on every permutation of maxT with a design (Smyth
 * 2004, section 6.2): column b of r (p x B) holds the partial correlations of
 * the p features under permutation b, a2[j] the squared residual norm of
 * feature j, so its residual variance is s2 = a2 (1 - min(r^2, 1)) / df.
 * Per column, over the features with keep[j]: the smallest and largest s2,
 * the mean of log s2, the sum of squares of log s2 about it and the mean of
 * s2 (out, 5 x B): what the prior's fit (fitFDist) needs when no variance is
 * floored. Two passes, so the variance does not lose digits. */
void bk_eb_log_moments(const double *r, ptrdiff_t p, ptrdiff_t B, const double *a2,
                       const int *keep, double df, double *out)
{
  for (ptrdiff_t b = 0; b < B; b++) {
    const double *rb = r + p * b;
    double lo = INFINITY, hi = 0.0, sl = 0.0, ss = 0.0;
    ptrdiff_t n = 0;
    for (ptrdiff_t j = 0; j < p; j++) {
      if (!keep[j]) continue;
      double q = rb[j] * rb[j];
      double s2 = a2[j] * (1.0 - (q < 1.0 ? q : 1.0)) / df;
      if (s2 < lo) lo = s2;
      if (s2 > hi) hi = s2;
      sl += log(s2);
      ss += s2;
      n++;
    }
    double mean = n > 0 ? sl / (double) n : NAN, dev = 0.0;
    for (ptrdiff_t j = 0; j < p; j++) {
      if (!keep[j]) continue;
      double q = rb[j] * rb[j];
      double e = log(a2[j] * (1.0 - (q < 1.0 ? q : 1.0)) / df) - mean;
      dev += e * e;
    }
    double *o = out + 5 * b;
    o[0] = lo;
    o[1] = hi;
    o[2] = mean;
    o[3] = dev;
    o[4] = n > 0 ? ss / (double) n : NAN;
  }
}

/* The moderated t of every permutation from its prior (scale[b], df2[b];
 * df2 infinite: the prior variance alone), in place: r = a r / sqrt(s2_post)
 * with s2_post = (df s2 + df2 scale) / (df + df2), for the features with
 * keep[j] (Smyth 2004, eq. 13). */
void bk_eb_moderate(double *r, ptrdiff_t p, ptrdiff_t B, const double *a2, const int *keep,
                    double df, const double *scale, const double *df2)
{
  for (ptrdiff_t b = 0; b < B; b++) {
    double *rb = r + p * b;
    int inf = !isfinite(df2[b]);
    double w = inf ? 0.0 : df2[b] * scale[b], den = inf ? 1.0 : df + df2[b];
    for (ptrdiff_t j = 0; j < p; j++) {
      if (!keep[j]) continue;
      double q = rb[j] * rb[j];
      double s2 = a2[j] * (1.0 - (q < 1.0 ? q : 1.0)) / df;
      double post = inf ? scale[b] : (df * s2 + w) / den;
      rb[j] = sqrt(a2[j]) * rb[j] / sqrt(post);
    }
  }
}

/* ---- ranks and the Benjamini-Hochberg adjustment -------------------------
 * The order of order(-key, -tie, na.last = TRUE, method = "radix") and the
 * adjustment of p.adjust(p, "BH"), without R: a stable least-significant-
 * digit radix sort on the bits of the doubles, 11 bits a pass, with every
 * digit's counts from one read of the keys. Equal keys keep the feature
 * order, as R's radix sort does; -0 is 0; NaN (R's NA) goes last. */

#define BK_RADIX_BITS 11
#define BK_RADIX_SIZE (1 << BK_RADIX_BITS)
#define BK_RADIX_PASSES 6 /* 6 x 11 >= 64 bits */
#if BK_RADIX_COUNT != BK_RADIX_PASSES * BK_RADIX_SIZE
#error "BK_RADIX_COUNT (inference.h) must be BK_RADIX_PASSES * BK_RADIX_SIZE"
#endif

/* bits of v as an unsigned integer whose descending order is v's (flip the
 * sign bit of a positive double, every bit of a negative one; the
 * complement turns ascending into descending); NaN the largest: last */
static uint64_t desc_bits(double v)
{
  if (isnan(v)) return UINT64_MAX;
  if (v == 0.0) v = 0.0;
  uint64_t u;
  memcpy(&u, &v, sizeof u);
  u = (u >> 63) ? ~u : (u | 0x8000000000000000ULL);
  return ~u;
}

/* Stable sort of the pairs (key[i], idx[i]), i < n, by key (ascending),
 * through key2/idx2; the result ends in key/idx.
 * count: BK_RADIX_COUNT counters. */
static void radix_sort(uint64_t *key, int *idx, uint64_t *key2, int *idx2,
                       ptrdiff_t n, ptrdiff_t *count)
{
  uint64_t *k = key, *k2 = key2;
  int *x = idx, *x2 = idx2;
  memset(count, 0, sizeof(ptrdiff_t) * BK_RADIX_COUNT);
  for (ptrdiff_t i = 0; i < n; i++)
    for (int p = 0; p < BK_RADIX_PASSES; p++)
      count[p * BK_RADIX_SIZE + ((k[i] >> (p * BK_RADIX_BITS)) & (BK_RADIX_SIZE - 1))]++;
  for (int p = 0; p < BK_RADIX_PASSES && n > 0; p++) {
    ptrdiff_t *c = count + p * BK_RADIX_SIZE, sum = 0;
    int shift = p * BK_RADIX_BITS;
    /* a digit all keys share moves nothing */
    if (c[(k[0] >> shift) & (BK_RADIX_SIZE - 1)] == n) continue;
    for (int b = 0; b < BK_RADIX_SIZE; b++) {
      ptrdiff_t t = c[b];
      c[b] = sum;
      sum += t;
    }
    for (ptrdiff_t i = 0; i < n; i++) {
      ptrdiff_t at = c[(k[i] >> shift) & (BK_RADIX_SIZE - 1)]++;
      k2[at] = k[i];
      x2[at] = x[i];
    }
    uint64_t *tk = k;
    k = k2;
    k2 = tk;
    int *tx = x;
    x = x2;
    x2 = tx;
  }
  if (x != idx) {
    memcpy(key, k, (size_t) n * sizeof *key);
    memcpy(idx, x, (size_t) n * sizeof *idx);
  }
}

void bk_rank_desc(const double *key, const double *tie, ptrdiff_t n, int *rank,
                  uint64_t *kwork, int *iwork, ptrdiff_t *count)
{
  uint64_t *k = kwork, *k2 = kwork + n;
  int *ord = iwork, *o2 = iwork + n;
  for (ptrdiff_t i = 0; i < n; i++) ord[i] = (int) i;
  if (tie) {
    /* least significant key first: the sorts are stable */
    for (ptrdiff_t i = 0; i < n; i++) k[i] = desc_bits(tie[i]);
    radix_sort(k, ord, k2, o2, n, count);
  }
  for (ptrdiff_t i = 0; i < n; i++) k[i] = desc_bits(key[ord[i]]);
  radix_sort(k, ord, k2, o2, n, count);
  for (ptrdiff_t i = 0; i < n; i++) rank[ord[i]] = (int) i + 1;
}

void bk_p_adjust_bh(const double *p, ptrdiff_t n, double *out, uint64_t *kwork,
                    int *iwork, ptrdiff_t *count)
{
  uint64_t *k = kwork;
  int *ord = iwork;
  for (ptrdiff_t i = 0; i < n; i++) {
    k[i] = desc_bits(p[i]);
    ord[i] = (int) i;
  }
  radix_sort(k, ord, kwork + n, iwork + n, n, count);
  bk_p_adjust_bh_along(p, ord, n, out);
}

void bk_p_adjust_bh_along(const double *p, const int *ord, ptrdiff_t n, double *out)
{
  /* the order of equal p-values does not matter: the running minimum gives
   * them the same value */
  double run = INFINITY;
  for (ptrdiff_t a = 0; a < n; a++) {
    /* p.adjust's n / i * p[o], i = n, n - 1, ..., 1, then cummin and pmin(1, .) */
    double v = (double) n / (double) (n - a) * p[ord[a]];
    /* cummin()'s comparison: of equal values (0 and -0) the later */
    run = run < v ? run : v;
    out[ord[a]] = run < 1.0 ? run : 1.0;
  }
}

/* ---- limma's prior as R computes it ---------------------------------------
 * The vector work of fit_f_dist() and moderated_t() (R/scores-linear.R, their
 * oracles fit_f_dist_r() and moderated_t_r()), with R's arithmetic in R's
 * order: mean() as R's summary.c takes it (a long double sum divided by n,
 * then a long double sum of the deviations from it as a correction), sum()
 * a long double sum, the median the mean() of the two middle order
 * statistics (exact values, whatever finds them), pmax() and log()
 * elementwise. A product that R rounds before an addition goes through a
 * volatile, so that no compiler fuses the two (a build with FMA). */

double bk_r_mean(const double *x, ptrdiff_t n)
{
  long double s = 0.0L;
  for (ptrdiff_t i = 0; i < n; i++) s += x[i];
  const int finite_s = isfinite((double) s);
  if (finite_s) {
    s /= n;
  } else {
    /* an infinite sum, maybe an overflow: smaller terms */
    s = 0.0L;
    for (ptrdiff_t i = 0; i < n; i++) s += x[i] / (double) n;
  }
  if (finite_s && isfinite((double) s)) {
    long double t = 0.0L;
    for (ptrdiff_t i = 0; i < n; i++) t += (x[i] - s);
    s += t / n;
  } else if (isfinite((double) s)) {
    long double t = 0.0L;
    for (ptrdiff_t i = 0; i < n; i++) t += (x[i] - s) / n;
    s += t;
  }
  return (double) s;
}

/* the k-th smallest (0-based) of x[0..n-1], reordering x (Hoare's select) */
static double select_kth(double *x, ptrdiff_t n, ptrdiff_t k)
{
  ptrdiff_t lo = 0, hi = n - 1;
  while (lo < hi) {
    const double v = x[k];
    ptrdiff_t i = lo, j = hi;
    do {
      while (x[i] < v) i++;
      while (v < x[j]) j--;
      if (i <= j) {
        double w = x[i];
        x[i] = x[j];
        x[j] = w;
        i++;
        j--;
      }
    } while (i <= j);
    if (j < k) lo = i;
    if (k < i) hi = j;
  }
  return x[k];
}

void bk_f_dist_sums(const double *s2, ptrdiff_t n, double fallback, double dg, double lg,
                    double *work, double *out)
{
  double *v = work, *e = work + n;
  ptrdiff_t q = 0;
  /* pmax(s2[is.finite(s2)], 0) */
  for (ptrdiff_t i = 0; i < n; i++)
    if (isfinite(s2[i])) v[q++] = 0.0 > s2[i] ? 0.0 : s2[i];
  out[0] = (double) q;
  if (q < 2) {
    out[1] = out[2] = out[3] = out[4] = NAN;
    return;
  }
  /* median(): the middle value, or the mean() of the two middle ones */
  memcpy(e, v, (size_t) q * sizeof *e);
  const ptrdiff_t half = (q + 1) / 2;
  double med = select_kth(e, q, half - 1);
  if (q % 2 == 0) {
    /* the smallest value above the half-th: select_kth() left them above it */
    double next = e[half];
    for (ptrdiff_t i = half + 1; i < q; i++) next = e[i] < next ? e[i] : next;
    const double two[2] = {med, next};
    med = bk_r_mean(two, 2);
  }
  out[1] = med;
  if (med == 0.0) med = fallback;
  const double lo = 1e-5 * med;
  for (ptrdiff_t i = 0; i < q; i++) {
    v[i] = lo > v[i] ? lo : v[i];
    e[i] = log(v[i]) - dg + lg;
  }
  const double e_mean = bk_r_mean(e, q);
  long double ss = 0.0L;
  for (ptrdiff_t i = 0; i < q; i++) {
    const double dev = e[i] - e_mean;
    ss += dev * dev;
  }
  out[2] = e_mean;
  out[3] = ss > DBL_MAX ? INFINITY : (double) ss;
  out[4] = bk_r_mean(v, q);
}

void bk_mt_common(const double *mean, const double *ss, const int *expo, int E, ptrdiff_t d,
                  double df, double *s2, double *diff)
{
  for (ptrdiff_t j = 0; j < d; j++) {
    /* common_units(): each feature from its unit 2^expo[j] into 2^E */
    const int sh = expo[j] == BK_NO_EXPONENT ? 0 : expo[j] - E;
    const int keep = expo[j] == BK_NO_EXPONENT;
    volatile double m1 = keep ? mean[2 * j] : bk_ldexp(mean[2 * j], sh),
                    m2 = keep ? mean[2 * j + 1] : bk_ldexp(mean[2 * j + 1], sh),
                    q1 = keep ? ss[2 * j] : bk_ldexp(ss[2 * j], 2 * sh),
                    q2 = keep ? ss[2 * j + 1] : bk_ldexp(ss[2 * j + 1], 2 * sh);
    s2[j] = (q1 + q2) / df;
    diff[j] = m2 - m1;
  }
}

void bk_mt_posterior(const double *s2, const double *diff, ptrdiff_t d, double su, double df,
                     double d0, double s20, double *t)
{
  const double prior = d0 * s20, total = df + d0;
  const int finite = isfinite(d0);
  for (ptrdiff_t j = 0; j < d; j++) {
    double post = s20;
    if (finite) {
      volatile double own = df * s2[j];
      post = (own + prior) / total;
    }
    t[j] = diff[j] / su / sqrt(post);
  }
}
