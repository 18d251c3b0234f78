/*
 * fuzz_maxt.c: libFuzzer target for maxt.c (bk_perm_stats, bk_maxt_count,
 * bk_maxt_fused), the ranks and the Benjamini-Hochberg adjustment of
 * scores.c (bk_rank_desc, bk_p_adjust_bh) and the screen's column passes
 * (screen.c: bk_centre_columns, bk_bounded_columns, bk_pair_scale_divisors,
 * bk_column_products, bk_project_out).
 *
 * The buffers are exactly as large as inference.h and maxt_call.c make them
 * (work 2 p (nthreads + 1) doubles for bk_perm_stats(),
 * BK_MAXT_FUSED_WORK(p, nthreads) doubles and (p + q) nthreads ints for
 * bk_maxt_fused(); 2 n keys, 2 n ints and BK_RADIX_COUNT counters for the
 * radix sort), so ASan catches any access beyond them. One input in
 * sixteen takes 456..520 samples and up to 100 features (two tiles of
 * features in bk_perm_stats(); the data from a generator seeded by the
 * input); B spans up to three chunks (BK_MAXT_CHUNK) of labellings.
 *
 * Preconditions respected here (those of maxt_call.c and scores_call.c):
 * cls holds 0 and 1, both classes non-empty, m >= 3 but for the mean
 * difference; every labelling a permutation of 0..m-1; order's entries in
 * 0..p-1 (duplicates allowed, as the glue allows them); no NaN p-value for
 * bk_p_adjust_bh(), n >= 2; the column indices of bk_column_products() in
 * 0..d-1.
 *
 * Invariants checked (abort()):
 *   - always: bk_maxt_fused() gives the counts of bk_maxt_count() on the
 *     statistics of bk_perm_stats(), and raw those of a naive count; the
 *     counts are in 0..B and adj[k] >= raw[order[k]];
 *   - tame data (sums exact in any order): the mean difference (and the
 *     moments' first part) is s2 / n2 - s1 / n1 bit for bit, the
 *     correlation the exact sum; the t statistics and the SNR have the sign
 *     of the mean difference (0 or NaN where it is 0); the moments' pooled
 *     variance >= 0;
 *   - always: bk_rank_desc()'s ranks are a permutation of 1..n in the order
 *     of decreasing key, then decreasing tie, then index, NaN last;
 *   - p-values in [0, 1]: bk_p_adjust_bh() equals the naive
 *     min(1, min over p_j >= p_i of n p_j / #{p_l <= p_j}) bit for bit;
 *     any p-values: no NaN out, and p_i < p_j gives out_i <= out_j;
 *   - always: bk_bounded_columns() is tanh(1.5 x) and bk_column_products()
 *     the products, bit for bit; tame data: a centred column sums to 0 up to
 *     rounding (a constant one is 0), a scaled one has sum x^4 = 1 up to
 *     rounding (an all-zero one stays 0); the passes on 1 or 2 threads;
 *   - always: bk_project_out() with each transform is the plain loop of
 *     v - Q (Q' v) on the transformed v (sums from +0 in order) bit for bit
 *     where it returns 0, and it returns 1 only where a transformed value,
 *     Q or Q' v holds a value that is not finite or of 2^1023 or more.
 */
#include "fuzz_input.h"
#include "inference.h"
#include "screen.h"

/* a generator for the large inputs (their bytes run out long before) */
static uint64_t lcg(uint64_t *s)
{
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return *s >> 33;
}

static int count_tame(const double *v, ptrdiff_t n)
{
  for (ptrdiff_t i = 0; i < n; i++)
    if (!(fabs(v[i]) <= 32.0 && v[i] * 4.0 == nearbyint(v[i] * 4.0))) return 0;
  return 1;
}

/* the tame-data checks of one statistic against the exact class sums */
static void check_stat(int stat, const double *xt, ptrdiff_t p, ptrdiff_t m,
                       const int *cls, const double *y, const int *pb, ptrdiff_t j,
                       double o, double o2)
{
  double s[2] = {0.0, 0.0}, n[2] = {0.0, 0.0}, r = 0.0;
  for (ptrdiff_t i = 0; i < m; i++) {
    const double v = xt[j + p * i];
    if (stat == BK_PERM_PC) {
      r += v * y[pb[i]];
      continue;
    }
    s[cls[pb[i]]] += v;
    n[cls[pb[i]]] += 1.0;
  }
  if (stat == BK_PERM_PC) {
    FZ_CHECK(fz_same(o, r));
    return;
  }
  const double diff = s[1] / n[1] - s[0] / n[0];
  if (stat == BK_PERM_LIN || stat == BK_PERM_MOMENTS) {
    FZ_CHECK(fz_same(o, diff));
    if (stat == BK_PERM_MOMENTS) FZ_CHECK(o2 >= 0.0);
    return;
  }
  if (diff > 0.0) FZ_CHECK(o > 0.0);
  else if (diff < 0.0) FZ_CHECK(o < 0.0);
  else FZ_CHECK(o == 0.0 || isnan(o));
}

static void fuzz_perm(fz_in *f)
{
  const int big = fz_int(f, 0, 15) == 0;
  /* big: tiles of 64 features (m >= 456), up to two of them */
  const ptrdiff_t m = big ? fz_int(f, 456, 520) : fz_int(f, 0, 40),
                  p = big ? fz_int(f, 0, 100) : fz_int(f, 0, 24),
                  B = big ? fz_int(f, 0, 2) : fz_int(f, 0, 40);
  const int stat = fz_int(f, BK_PERM_WELCH, BK_PERM_MOMENTS),
            nthreads = fz_int(f, 1, 3);
  if (m < (stat == BK_PERM_LIN ? 2 : 3)) return;
  int *cls = FZ_NEW(int, m), *perm = FZ_NEW(int, m * B);
  double *xt = FZ_NEW(double, p * m), *y = FZ_NEW(double, m);
  ptrdiff_t n2 = 0;
  for (ptrdiff_t i = 0; i < m; i++) n2 += cls[i] = fz_u8(f) & 1;
  if (n2 == 0) cls[m - 1] = 1;
  if (n2 == m) cls[0] = 0;
  int tame;
  if (big) {
    uint64_t seed = fz_u64(f);
    for (ptrdiff_t i = 0; i < p * m; i++) xt[i] = (double) ((int) (lcg(&seed) % 256) - 128) / 4.0;
    for (ptrdiff_t i = 0; i < m; i++) y[i] = (double) ((int) (lcg(&seed) % 256) - 128) / 4.0;
    for (ptrdiff_t b = 0; b < B; b++) {
      int *pb = perm + m * b;
      for (ptrdiff_t i = 0; i < m; i++) pb[i] = (int) i;
      for (ptrdiff_t i = m - 1; i > 0; i--) {
        ptrdiff_t k = (ptrdiff_t) (lcg(&seed) % (uint64_t) (i + 1));
        int t = pb[i];
        pb[i] = pb[k];
        pb[k] = t;
      }
    }
    tame = 1;
  } else {
    fz_doubles(f, xt, p * m);
    fz_doubles(f, y, m);
    for (ptrdiff_t b = 0; b < B; b++) fz_permutation(f, perm + m * b, m);
    tame = count_tame(xt, p * m) && count_tame(y, m);
  }

  double *out = FZ_NEW(double, p * B),
         *out2 = stat == BK_PERM_MOMENTS ? FZ_NEW(double, p * B) : NULL,
         *work = FZ_NEW(double, 2 * p * (nthreads + 1));
  bk_perm_stats(stat, xt, p, m, stat == BK_PERM_PC ? NULL : cls,
                stat == BK_PERM_PC ? y : NULL, perm, B, out, out2,
                work, nthreads);
  free(work);
  if (tame)
    for (ptrdiff_t b = 0; b < B; b++)
      for (ptrdiff_t j = 0; j < p; j++)
        check_stat(stat, xt, p, m, cls, y, perm + m * b, j, out[j + p * b],
                   out2 ? out2[j + p * b] : 0.0);

  if (stat != BK_PERM_MOMENTS) {
    const ptrdiff_t q = p > 0 ? fz_int(f, 0, (int) p) : 0;
    int *order = FZ_NEW(int, q);
    for (ptrdiff_t k = 0; k < q; k++) order[k] = fz_int(f, 0, (int) p - 1);
    double *thr = FZ_NEW(double, p);
    fz_doubles(f, thr, p);
    int *raw = FZ_NEW(int, p), *adj = FZ_NEW(int, q), *raw2 = FZ_NEW(int, p),
        *adj2 = FZ_NEW(int, q), *iwork = FZ_NEW(int, (p + q) * nthreads);
    bk_maxt_count(out, p, B, order, q, thr, raw, adj, iwork, nthreads);
    double *fwork = FZ_NEW(double, BK_MAXT_FUSED_WORK(p, nthreads));
    const bk_maxt_spec sp = {.stat = stat, .xt = xt, .y = stat == BK_PERM_PC ? y : NULL,
                             .thr = thr, .cls = stat == BK_PERM_PC ? NULL : cls, .perm = perm, .order = order,
                             .p = p, .m = m, .B = B, .q = q};
    bk_maxt_fused(&sp, raw2, adj2, fwork, iwork, nthreads);
    for (ptrdiff_t j = 0; j < p; j++) {
      int c = 0;
      for (ptrdiff_t b = 0; b < B; b++) c += fabs(out[j + p * b]) >= thr[j];
      FZ_CHECK(raw[j] == c && raw2[j] == c);
    }
    for (ptrdiff_t k = 0; k < q; k++) {
      FZ_CHECK(adj2[k] == adj[k]);
      FZ_CHECK(adj[k] >= raw[order[k]] && adj[k] <= B);
    }
    free(order);
    free(thr);
    free(raw);
    free(adj);
    free(raw2);
    free(adj2);
    free(iwork);
    free(fwork);
  }
  free(cls);
  free(perm);
  free(xt);
  free(y);
  free(out);
  free(out2);
}

/* -1, 0, 1: v before, tied with, after w in decreasing order, NaN last */
static int cmp_desc(double v, double w)
{
  if (isnan(v) || isnan(w)) return isnan(v) - isnan(w);
  return v > w ? -1 : v < w ? 1 : 0;
}

static void fuzz_ranks(fz_in *f)
{
  const ptrdiff_t n = fz_int(f, 0, 300);
  const int has_tie = fz_int(f, 0, 1);
  double *key = FZ_NEW(double, n), *tie = FZ_NEW(double, n);
  fz_doubles(f, key, n);
  fz_doubles(f, tie, n);
  uint64_t *kwork = FZ_NEW(uint64_t, 2 * n);
  int *iwork = FZ_NEW(int, 2 * n), *rank = FZ_NEW(int, n), *at = FZ_NEW(int, n);
  ptrdiff_t *count = FZ_NEW(ptrdiff_t, BK_RADIX_COUNT);
  bk_rank_desc(key, has_tie ? tie : NULL, n, rank, kwork, iwork, count);
  for (ptrdiff_t i = 0; i < n; i++) at[i] = -1;
  for (ptrdiff_t i = 0; i < n; i++) {
    FZ_CHECK(rank[i] >= 1 && rank[i] <= n && at[rank[i] - 1] < 0);
    at[rank[i] - 1] = (int) i;
  }
  for (ptrdiff_t r = 1; r < n; r++) {
    const int a = at[r - 1], b = at[r];
    int c = cmp_desc(key[a], key[b]);
    if (c == 0 && has_tie) c = cmp_desc(tie[a], tie[b]);
    FZ_CHECK(c < 0 || (c == 0 && a < b));
  }
  free(key);
  free(tie);
  free(rank);
  free(at);

  /* the BH adjustment */
  const ptrdiff_t np = fz_int(f, 2, 300);
  const int pmode = fz_int(f, 0, 2);
  double *p = FZ_NEW(double, np), *out = FZ_NEW(double, np);
  uint64_t *kw = FZ_NEW(uint64_t, 2 * np);
  int *iw = FZ_NEW(int, 2 * np);
  if (pmode == 2) {
    fz_doubles(f, p, np);
    for (ptrdiff_t i = 0; i < np; i++)
      if (isnan(p[i])) p[i] = 0.5; /* no NaN: the glue leaves them out */
  } else {
    const int sh = fz_int(f, 0, 1074);
    for (ptrdiff_t i = 0; i < np; i++) {
      const uint8_t u = fz_u8(f);
      p[i] = pmode == 0 ? (double) u / 255.0 : ldexp((double) u, -sh);
      if (p[i] > 1.0) p[i] = 1.0;
    }
  }
  bk_p_adjust_bh(p, np, out, kw, iw, count);
  for (ptrdiff_t i = 0; i < np; i++) {
    FZ_CHECK(!isnan(out[i]));
    for (ptrdiff_t j = 0; j < np; j++)
      if (p[i] < p[j]) FZ_CHECK(out[i] <= out[j]);
  }
  if (pmode != 2) {
    /* v[j] = n p_j / #{p_l <= p_j} */
    double *v = FZ_NEW(double, np);
    for (ptrdiff_t j = 0; j < np; j++) {
      ptrdiff_t k = 0;
      for (ptrdiff_t l = 0; l < np; l++) k += p[l] <= p[j];
      v[j] = (double) np / (double) k * p[j];
    }
    for (ptrdiff_t i = 0; i < np; i++) {
      double mn = INFINITY;
      for (ptrdiff_t j = 0; j < np; j++)
        if (p[j] >= p[i] && v[j] < mn) mn = v[j];
      FZ_CHECK(fz_same(out[i], mn < 1.0 ? mn : 1.0));
      FZ_CHECK(out[i] >= p[i] && out[i] <= 1.0);
    }
    free(v);
  }
  free(p);
  free(out);
  free(kw);
  free(iw);
  free(kwork);
  free(iwork);
  free(count);
}

/* bk_project_out() against the plain loop on the transformed columns */
static int big_or_nan(const double *v, ptrdiff_t n)
{
  for (ptrdiff_t i = 0; i < n; i++)
    if (!(fabs(v[i]) < 0x1p1023)) return 1;
  return 0;
}

static void check_project_out(fz_in *f, const double *x, ptrdiff_t m, ptrdiff_t d,
                              double *out, int nt)
{
  const ptrdiff_t r = fz_int(f, 0, 3);
  const int transform = fz_int(f, 0, 2);
  double *Q = FZ_NEW(double, m * r), *c = FZ_NEW(double, r * d),
         *t = FZ_NEW(double, m * d), *c2 = FZ_NEW(double, r * d);
  unsigned char *wide = FZ_NEW(unsigned char, d);
  fz_doubles(f, Q, m * r);
  const int fell = bk_project_out(x, m, d, Q, r, transform, c, wide, out, nt);
  /* the transformed columns and the plain loop */
  for (ptrdiff_t i = 0; i < m * d; i++)
    t[i] = transform == BK_PROJECT_BOUNDED ? tanh(1.5 * x[i]) : x[i];
  if (transform != BK_PROJECT_NONE) bk_centre_columns(t, m, d, t);
  for (ptrdiff_t j = 0; j < d; j++)
    for (ptrdiff_t k = 0; k < r; k++) {
      double s = 0.0;
      for (ptrdiff_t i = 0; i < m; i++) s += Q[i + m * k] * t[i + m * j];
      c2[k + r * j] = s;
    }
  const int unsure = big_or_nan(Q, m * r) || big_or_nan(t, m * d) || big_or_nan(c2, r * d);
  if (!unsure) FZ_CHECK(!fell);
  if (!fell) {
    for (ptrdiff_t j = 0; j < d; j++)
      for (ptrdiff_t i = 0; i < m; i++) {
        double s = 0.0;
        for (ptrdiff_t k = 0; k < r; k++) s += c2[k + r * j] * Q[i + m * k];
        FZ_CHECK(fz_same(out[i + m * j], t[i + m * j] - s));
      }
  }
  free(Q);
  free(c);
  free(t);
  free(c2);
  free(wide);
}

static void fuzz_screen(fz_in *f)
{
  const ptrdiff_t m = fz_int(f, 0, 12), d = fz_int(f, 0, 6),
                  n = d > 0 ? fz_int(f, 0, 8) : 0;
  double *x = FZ_NEW(double, m * d), *out = FZ_NEW(double, m * d),
         *prod = FZ_NEW(double, m * n);
  int *ci = FZ_NEW(int, n), *cj = FZ_NEW(int, n);
  fz_doubles(f, x, m * d);
  const int tame = count_tame(x, m * d);
  for (ptrdiff_t k = 0; k < n; k++) {
    ci[k] = fz_int(f, 0, (int) d - 1);
    cj[k] = fz_int(f, 0, (int) d - 1);
  }

  bk_centre_columns(x, m, d, out);
  if (tame)
    for (ptrdiff_t j = 0; j < d; j++) {
      const double *xj = x + m * j, *oj = out + m * j;
      long double s = 0.0L;
      int constant = 1;
      for (ptrdiff_t i = 0; i < m; i++) {
        s += oj[i];
        constant &= xj[i] == xj[0];
      }
      FZ_CHECK(fabsl(s) <= (long double) m * 64.0L * DBL_EPSILON);
      if (constant)
        for (ptrdiff_t i = 0; i < m; i++) FZ_CHECK(oj[i] == 0.0);
    }

  const int nt = fz_int(f, 1, 2);
  bk_bounded_columns(x, m, d, out, nt);
  for (ptrdiff_t i = 0; i < m * d; i++) FZ_CHECK(fz_same(out[i], tanh(1.5 * x[i])));

  /* the divisors: 1 for a zero column, else the columns divided by them
   * have sum x^4 = 1 */
  double *dv = FZ_NEW(double, d);
  bk_pair_scale_divisors(x, m, d, dv, nt);
  if (tame)
    for (ptrdiff_t j = 0; j < d; j++) {
      const double *xj = x + m * j;
      double s = 0.0;
      int zero = 1;
      for (ptrdiff_t i = 0; i < m; i++) {
        const double o = xj[i] / dv[j];
        s += o * o * o * o;
        zero &= xj[i] == 0.0;
      }
      if (zero)
        FZ_CHECK(dv[j] == 1.0);
      else
        FZ_CHECK(fabs(s - 1.0) <= 1e-12);
    }
  free(dv);

  bk_column_products(x, m, ci, cj, n, prod, nt);
  for (ptrdiff_t k = 0; k < n; k++)
    for (ptrdiff_t a = 0; a < m; a++)
      FZ_CHECK(fz_same(prod[a + m * k], x[a + m * ci[k]] * x[a + m * cj[k]]));

  if (m > 0) check_project_out(f, x, m, d, out, nt);

  free(x);
  free(out);
  free(prod);
  free(ci);
  free(cj);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fz_in f = fz_open(data, size);
  fuzz_perm(&f);
  fuzz_ranks(&f);
  fuzz_screen(&f);
  return 0;
}
