/*
 * fuzz_gram.c: libFuzzer target for gram.c: bk_cross, bk_gram (with and
 * without the median-heuristic work), bk_median_triangle (packed and not,
 * squared and not), bk_median_pairwise, bk_select, bk_kernel_value and the
 * inline bk_exp of common.h.
 *
 * Invariants checked (abort()) only for finite inputs, and the exact
 * reference comparisons only for "tame" data (quarters in [-32, 32), see
 * fuzz_input.h), where no square underflows or overflows:
 *   - squared distances of bk_cross are >= 0; bk_gram's K is symmetric;
 *   - the packed and unpacked bk_median_triangle agree, and both equal the
 *     median of a full sort with the documented zero fallback;
 *   - bk_median_pairwise equals that reference for one feature and several;
 *   - bk_gram's median width is 1 / bk_median_pairwise();
 *   - bk_select returns the k-th smallest and only reorders v;
 *   - bk_exp is within 2 ulp of exp() on [-708, 0] (common.h).
 *
 * Preconditions of the core respected here (not all stated in bahsic.h):
 *   - bk_select(v, n, k) needs n >= 1 and 0 <= k < n;
 *   - bk_median_triangle() reads only the strictly upper triangle, whose
 *     values are squared distances (>= 0; NaN is tolerated);
 *   - bk_median_pairwise() needs cross (m x m) whenever d > 1.
 */
#include "fuzz_input.h"
#include <float.h>
#include <sanitizer/asan_interface.h>

/* bk_median_pairwise() for one feature uses only work[0 ..
 * BK_MEDIAN_1D_WORK(m) - 1] (a sorted copy of x and the gaps its selection
 * gathers): the rest of its BK_MEDIAN_WORK(m) doubles is poisoned for ASan
 * during the call, so that reading past them is reported rather than
 * reading stale, in-bounds work unnoticed. (With NaN data the copy is not
 * sorted and the result is meaningless, but the counts' pointers never
 * pass j, so the reads stay within the copy.) */
static double median_one_feature(const double *x, ptrdiff_t m, int squared,
                                 double *work)
{
  size_t rest = (size_t) (BK_MEDIAN_WORK(m) - BK_MEDIAN_1D_WORK(m)) * sizeof(double);
  ASAN_POISON_MEMORY_REGION(work + BK_MEDIAN_1D_WORK(m), rest);
  double med = bk_median_pairwise(x, m, 1, squared, work, NULL);
  ASAN_UNPOISON_MEMORY_REGION(work + BK_MEDIAN_1D_WORK(m), rest);
  return med;
}

/* The median of bk_median_triangle() by a full sort of the n values of v. */
static int cmp_d(const void *a, const void *b)
{
  double u = *(const double *) a, v = *(const double *) b;
  return (u > v) - (u < v);
}

static double ref_median(double *v, ptrdiff_t n, int squared)
{
  if (n < 1) return NAN;
  qsort(v, (size_t) n, sizeof(double), cmp_d);
  ptrdiff_t k = (n - 1) / 2;
  double lo = v[k], hi = n % 2 == 0 ? v[k + 1] : lo;
  /* the rule for ties (kernels.h, BK_MEDIAN_TIE): values at most DBL_EPSILON
   * times the largest tie with 0; when the upper middle value is one, the
   * median of the others (0 when all tie) */
  const double tie = DBL_EPSILON * v[n - 1];
  if (hi <= tie) {
    ptrdiff_t ties = 0;
    for (ptrdiff_t i = 0; i < n; i++) ties += v[i] <= tie;
    ptrdiff_t nz = n - ties;
    if (nz == 0) return 0.0;
    k = ties + (nz - 1) / 2;
    lo = hi = v[k];
    if (nz % 2 == 0) hi = v[k + 1];
  }
  if (!squared) {
    lo = sqrt(lo);
    hi = sqrt(hi);
  }
  return 0.5 * (lo + hi);
}

/* work: BK_MEDIAN_WORK(m) doubles */
static void check_median_triangle(const double *K, ptrdiff_t m, int squared,
                                  int check, int exact, double *work)
{
  const ptrdiff_t P = m * (m - 1) / 2;
  double *packed = FZ_NEW(double, P), *ref = FZ_NEW(double, P);
  bk_pack_upper(K, m, packed);
  double a = bk_median_triangle(K, m, 0, squared, work);
  double b = bk_median_triangle(packed, m, 1, squared, work);
  if (check) FZ_CHECK(fz_same(a, b));
  if (exact) {
    memcpy(ref, packed, (size_t) P * sizeof(double));
    FZ_CHECK(fz_same(a, ref_median(ref, P, squared)));
  }
  free(packed);
  free(ref);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fz_in f = fz_open(data, size);
  const ptrdiff_t m = fz_int(&f, 0, 40), d = fz_int(&f, 0, 8);
  const int nthreads = fz_int(&f, 1, 2);
  /* one of squared = 0 / 1 per input: the median work (a 65536-bucket
   * histogram per selection) is what bounds the speed of this target */
  const int squared = fz_int(&f, 0, 1);
  bk_kernel kern = fz_kernel(&f, BK_LINEAR, BK_INVDIST + 1);
  double *x = FZ_NEW(double, m * d);
  const int xmode = fz_doubles(&f, x, m * d);
  const int finite = fz_all_finite(x, m * d);
  /* the R side rejects |x| > 1e150, so squared distances stay finite */
  const int ranged = fz_all_within(x, m * d, 1e150);
  const int tame = xmode == FZ_TAME;
  const ptrdiff_t P = m * (m - 1) / 2;

  /* bk_cross: inner products and squared distances (upper triangle) */
  double *K = FZ_NEW(double, m * m);
  for (int dist = 0; dist <= 1; dist++) {
    bk_cross(x, m, d, dist, K, nthreads, NULL);
    if (dist && finite)
      for (ptrdiff_t b = 0; b < m; b++)
        for (ptrdiff_t a = 0; a <= b; a++) FZ_CHECK(!(K[a + m * b] < 0.0));
  }
  /* the median of the squared distances just computed, both layouts */
  double *work = FZ_NEW(double, BK_MEDIAN_WORK(m));
  check_median_triangle(K, m, squared, finite, ranged, work);

  /* bk_gram with the kernel's own width */
  bk_kernel k1 = kern;
  bk_gram(x, m, d, &k1, K, NULL, nthreads);
  FZ_CHECK(fz_same(k1.p1, kern.p1));
  if (finite)
    for (ptrdiff_t b = 0; b < m; b++)
      for (ptrdiff_t a = 0; a < m; a++)
        FZ_CHECK(fz_same(K[a + m * b], K[b + m * a]));

  /* bk_gram with the median heuristic (any kernel: only Gaussian and
   * Laplace use the work) */
  double *cross = d > 1 ? FZ_NEW(double, m * m) : NULL;
  bk_kernel k2 = kern;
  bk_gram(x, m, d, &k2, K, work, nthreads);
  if (kern.type == BK_GAUSSIAN || kern.type == BK_LAPLACE) {
    FZ_CHECK(isnan(k2.p1) || k2.p1 > 0.0 || !ranged);
    if (!isnan(k2.p1) && finite)
      for (ptrdiff_t b = 0; b < m; b++)
        for (ptrdiff_t a = 0; a < m; a++)
          FZ_CHECK(fz_same(K[a + m * b], K[b + m * a]));
  }

  /* bk_median_pairwise, which R calls with m >= 2; one feature takes the
   * sort-and-bisect path, several the cross matrix */
  {
    double med = d == 1 && m >= 2 ? median_one_feature(x, m, squared, work)
                                  : bk_median_pairwise(x, m, d, squared, work, cross);
    if (m < 2) FZ_CHECK(isnan(med));
    if ((kern.type == BK_GAUSSIAN || kern.type == BK_LAPLACE) &&
        squared == (kern.type == BK_GAUSSIAN) && ranged && m >= 2 && d >= 1) {
      /* what bk_gram() set its width from */
      double expect = med > 0 ? 1.0 / med : NAN;
      if (d > 1 || tame) FZ_CHECK(fz_same(k2.p1, expect));
    }
    if (tame && m >= 2 && d >= 1) {
      /* against the full sort of the squared distances */
      double *ref = FZ_NEW(double, P), *Kc = FZ_NEW(double, m * m);
      bk_cross(x, m, d, 1, Kc, 1, NULL);
      bk_pack_upper(Kc, m, ref);
      FZ_CHECK(fz_same(med, ref_median(ref, P, squared)));
      free(ref);
      free(Kc);
    }
    /* every column on its own, as C_median_columns() does, on nthreads
     * threads: a column that needs no rescaling has its one-feature median */
    if (m >= 2 && d >= 1) {
      double *cw = FZ_NEW(double, BK_MEDIAN_COLUMNS_WORK(m) * nthreads),
             *mc = FZ_NEW(double, d);
      bk_median_columns(x, m, d, squared, mc, cw, nthreads, NULL);
      for (ptrdiff_t j = 0; j < d; j++) {
        const double mj = median_one_feature(x + m * j, m, squared, work);
        if (tame && bk_pow2_shift(bk_max_abs(x + m * j, m), BK_DATA_RANGE) == 0)
          FZ_CHECK(fz_same(mc[j], bk_median_in_units(mj, 0, squared)));
      }
      free(cw);
      free(mc);
    }
  }

  /* bk_select on the first values of an array of its own */
  {
    ptrdiff_t n = fz_int(&f, 1, 64), k = fz_int(&f, 0, 255) % n;
    double *v = FZ_NEW(double, n), *s = FZ_NEW(double, n);
    fz_doubles(&f, v, n);
    memcpy(s, v, (size_t) n * sizeof(double));
    double r = bk_select(v, n, k);
    int nan = 0;
    for (ptrdiff_t i = 0; i < n; i++) nan |= isnan(s[i]);
    if (!nan) {
      qsort(s, (size_t) n, sizeof(double), cmp_d);
      FZ_CHECK(r == s[k]);
      qsort(v, (size_t) n, sizeof(double), cmp_d);
      for (ptrdiff_t i = 0; i < n; i++) FZ_CHECK(v[i] == s[i]);
    }
    free(v);
    free(s);
  }

  /* bk_kernel_value and bk_exp on single values */
  for (int i = 0; i < 4; i++) {
    double v = fz_value(&f, FZ_WILD);
    (void) bk_kernel_value(kern, v);
    (void) bk_kernel_value(kern, fabs(v));
    double e = bk_exp(v);
    if (v >= -708.0 && v <= 0.0) {
      double ref = exp(v), ulp = nextafter(ref, INFINITY) - ref;
      FZ_CHECK(fabs(e - ref) <= 2.0 * ulp);
    }
  }

  free(x);
  free(K);
  free(work);
  free(cross);
  return 0;
}
