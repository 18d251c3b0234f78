/*
 * fuzz_pairtop.c: libFuzzer target for pairtop.c (bk_pair_vectors,
 * bk_pair_pack, bk_pair_weights, bk_pair_top, bk_pair_top_lowrank), the
 * float32 screen of all pairs of features under pair_scores(), and the
 * divisors of bahsic()'s screen (screen.c: bk_pair_scale_divisors).
 *
 * The buffers are exactly as large as pairtop.h documents (V and X
 * ld x bk_pair_cols(p) floats, w ld, U ld x r, the work areas of
 * bk_pair_vectors_work() and bk_pair_top_work(), the result k), so ASan
 * catches any access beyond them. p spans up to three tiles, k may exceed
 * the number of pairs or be 0, gamma may be 0, negative or not finite, and
 * the data NaN, infinite or huge.
 *
 * Invariants checked (abort()):
 *   - always: X is the floats of x (odd k: of x divided by its columns'
 *     divisors), the padding 0;
 *   - always: min(k, p (p - 1) / 2) pairs (none for p < 2), 0 <= i < j < p,
 *     no pair twice, scores descending with ties in the order of (i, j);
 *   - for tame data and 0 < gamma <= 32: each score is the double sum of
 *     its float terms to float precision, and no pair left out scores
 *     higher than the last one returned (by more than that precision).
 */
#include "fuzz_input.h"

/* the checks shared by both screens; S(i, j) the double score, A(i, j) the
 * sum of its terms' magnitudes (NULL: no precision checks) */
typedef double (*score_fn)(const void *ctx, ptrdiff_t i, ptrdiff_t j, double *abs);

static void check_list(const int *I, const int *J, const float *s, ptrdiff_t n,
                       ptrdiff_t p, ptrdiff_t k, score_fn score, const void *ctx)
{
  const ptrdiff_t all = p < 2 ? 0 : p * (p - 1) / 2;
  FZ_CHECK(n == (k < all ? k : all));
  unsigned char *seen = FZ_NEW(unsigned char, p * p);
  if (p > 0) memset(seen, 0, (size_t) (p * p));
  for (ptrdiff_t q = 0; q < n; q++) {
    FZ_CHECK(I[q] >= 0 && I[q] < J[q] && J[q] < p);
    FZ_CHECK(!seen[I[q] + p * J[q]]);
    seen[I[q] + p * J[q]] = 1;
    if (q > 0) {
      FZ_CHECK(!(s[q] > s[q - 1]) && !isnan(s[q]));
      if (s[q] == s[q - 1])
        FZ_CHECK(I[q - 1] < I[q] || (I[q - 1] == I[q] && J[q - 1] < J[q]));
    }
  }
  if (score && n > 0) {
    double a, tol_last;
    const double last = score(ctx, I[n - 1], J[n - 1], &a);
    tol_last = 1e-5 * a + 1e-30;
    for (ptrdiff_t q = 0; q < n; q++) {
      const double v = score(ctx, I[q], J[q], &a);
      FZ_CHECK(fabs((double) s[q] - v) <= 1e-5 * a + 1e-30);
    }
    for (ptrdiff_t j = 1; j < p; j++)
      for (ptrdiff_t i = 0; i < j; i++)
        if (!seen[i + p * j]) {
          const double v = score(ctx, i, j, &a);
          FZ_CHECK(v <= last + tol_last + 1e-5 * a);
        }
  }
  free(seen);
}

typedef struct {
  const float *V, *w, *U, *c;
  ptrdiff_t ld, r;
} oracle;

static double gauss_score(const void *ctx, ptrdiff_t i, ptrdiff_t j, double *abs)
{
  const oracle *o = ctx;
  double s = 0.0, a = 0.0;
  for (ptrdiff_t r = 0; r < o->ld; r++) {
    const double t = (double) o->w[r] * o->V[bk_pair_at(o->ld, r, i)] *
                     o->V[bk_pair_at(o->ld, r, j)];
    s += t;
    a += fabs(t);
  }
  *abs = a;
  return s;
}

static double linear_score(const void *ctx, ptrdiff_t i, ptrdiff_t j, double *abs)
{
  const oracle *o = ctx;
  double s = 0.0, a = 0.0;
  for (ptrdiff_t t = 0; t < o->r; t++) {
    double g = 0.0, ga = 0.0;
    for (ptrdiff_t r = 0; r < o->ld; r++) {
      const double v = (double) o->U[r + o->ld * t] * o->V[bk_pair_at(o->ld, r, i)] *
                       o->V[bk_pair_at(o->ld, r, j)];
      g += v;
      ga += fabs(v);
    }
    s += (double) o->c[t] * g * g;
    a += fabs((double) o->c[t]) * ga * ga;
  }
  *abs = a;
  return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fz_in f = fz_open(data, size);
  const ptrdiff_t m = fz_int(&f, 1, 12), p = fz_int(&f, 0, 200),
                  k = fz_int(&f, 0, 300), r = fz_int(&f, 1, 3);
  const int nt = fz_int(&f, 1, 3), simd = fz_int(&f, 0, 1);
  const double gamma = fz_param(&f);
  const ptrdiff_t ld = bk_pair_ld(m * (m + 1) / 2), cols = bk_pair_cols(p);

  double *x = FZ_NEW(double, m * p), *W = FZ_NEW(double, m * m);
  const int xmode = fz_doubles(&f, x, m * p), wmode = fz_symmetric(&f, W, m);
  const int tame = xmode == FZ_TAME && wmode == FZ_TAME;
  int *I = FZ_NEW(int, k), *J = FZ_NEW(int, k);
  float *s = FZ_NEW(float, k);
  bk_pair_list out = {k, I, J, s};

  /* the Gaussian screen */
  {
    float *V = FZ_NEW(float, ld * cols), *w = FZ_NEW(float, ld);
    double *vw = FZ_NEW(double, bk_pair_vectors_work(m, nt));
    void *work = fz_alloc((ptrdiff_t) bk_pair_top_work(ld, 0, k, nt), 1);
    bk_pair_vectors(x, m, p, gamma, V, ld, vw, nt, NULL);
    bk_pair_weights(W, m, 1.0 / 64.0, w, ld);
    bk_pair_exec ex = {nt, simd, work, NULL};
    const ptrdiff_t n = bk_pair_top(V, ld, p, w, &out, &ex);
    const oracle o = {V, w, NULL, NULL, ld, 0};
    check_list(I, J, s, n, p, k,
               tame && gamma > 0.0 && gamma <= 32.0 ? gauss_score : NULL, &o);
    free(V);
    free(w);
    free(vw);
    free(work);
  }

  /* the linear screen: U from the input, c its first r values */
  {
    const ptrdiff_t ldx = bk_pair_ld(m);
    float *X = FZ_NEW(float, ldx * cols), *U = FZ_NEW(float, ldx * r),
          *c = FZ_NEW(float, r);
    double *Ud = FZ_NEW(double, m * r + r);
    const int umode = fz_doubles(&f, Ud, m * r + r);
    void *work = fz_alloc((ptrdiff_t) bk_pair_top_work(ldx, r, k, nt), 1);
    /* packed as they are, or (odd k) each column divided by its divisor
     * (bk_pair_scale_divisors()): every value the float of that quotient,
     * the padding 0 */
    double *div = k % 2 ? FZ_NEW(double, p + 1) : NULL;
    if (div) bk_pair_scale_divisors(x, m, p, div, nt);
    bk_pair_pack(x, m, p, div, X, ldx, nt);
    for (ptrdiff_t j = 0; j < cols; j++)
      for (ptrdiff_t a = 0; a < ldx; a++) {
        const float want = j >= p || a >= m ? 0.0f
                           : div            ? (float) (x[a + m * j] / div[j])
                                            : (float) x[a + m * j];
        const float got = X[bk_pair_at(ldx, a, j)];
        FZ_CHECK(memcmp(&got, &want, sizeof got) == 0 || (got != got && want != want));
      }
    free(div);
    for (ptrdiff_t t = 0; t < r; t++) {
      for (ptrdiff_t a = 0; a < ldx; a++)
        U[a + ldx * t] = a < m ? (float) (Ud[a + m * t] / 32.0) : 0.0f;
      c[t] = (float) (Ud[m * r + t] / 32.0);
    }
    bk_pair_exec ex = {nt, simd, work, NULL};
    const ptrdiff_t n = bk_pair_top_lowrank(X, ldx, p, U, r, c, &out, &ex);
    const oracle o = {X, NULL, U, c, ldx, r};
    check_list(I, J, s, n, p, k, tame && umode == FZ_TAME ? linear_score : NULL, &o);
    free(X);
    free(U);
    free(c);
    free(Ud);
    free(work);
  }

  free(x);
  free(W);
  free(I);
  free(J);
  free(s);
  return 0;
}
