/*
 * fuzz_lowrank.c: libFuzzer target for lowrank.c (bk_ichol,
 * bk_lowrank_hsic, bk_rff, bk_rff_hsic, bk_rff_hsic2), the low-rank
 * approximations of hsic() and the selectors (approx = "ichol" / "rff").
 *
 * The buffers are exactly as large as bahsic.h documents (G m x max_rank,
 * piv max_rank, work m; BK_LOWRANK_HSIC_WORK; Z m x D; BK_RFF_HSIC_WORK
 * and BK_RFF_HSIC2_WORK with chunk and rows clamped as lowrank_call.c
 * clamps them), so ASan catches any access beyond them. max_rank may
 * exceed m, tol may be 0, negative, NaN or infinite; D and S may be 0.
 *
 * Invariants checked (abort()):
 *   - always: 0 <= rank <= min(max_rank, m);
 *   - for finite data and parameters: the pivots are distinct and in 0..m-1;
 *   - for factors whose values are at most 1e30: HSIC0 >= 0 (it is a sum of
 *     squares of the centred cross-products) for m >= 2;
 *   - for finite x, W and b: |Z| <= sqrt(2 / D) (up to rounding);
 *   - for finite data and draws: bk_rff_hsic() gives the same three numbers,
 *     bit for bit, for any chunk, nthreads and simd, and bk_rff_hsic2() for
 *     any rows, nthreads and simd (also where an argument |x w_k + b_k| is
 *     beyond BK_COS_MAX, 1e5, whose cosine is glibc's: the seed
 *     regress-rff2-rows-huge-args once gave other bits for other rows);
 *   - for data and draws within [-64, 64], D, S >= 1 and m >= 2: HSIC0 of
 *     bk_rff_hsic() and of bk_rff_hsic2() is that of bk_lowrank_hsic() on
 *     the feature matrices of bk_rff() up to rounding (1e-9 relative, the
 *     sums run in other orders).
 */
#include "fuzz_input.h"

/* within 1e-9 of each other, relative to the larger magnitude (and 1) */
static int near(double a, double b)
{
  return fabs(a - b) <= 1e-9 * (1.0 + fmax(fabs(a), fabs(b)));
}

/* bk_rff_hsic() and bk_rff_hsic2() for x (m x d) and Z = bk_rff(x, W, b)
 * (m x D), against each other (chunk, rows, nthreads, simd) and against
 * bk_lowrank_hsic(Z, F = bk_rff(y, Wy, by)) */
static void fuzz_rff_hsic(fz_in *f, const double *x, ptrdiff_t m, ptrdiff_t d,
                          const double *W, const double *b, ptrdiff_t D,
                          const double *Z)
{
  const ptrdiff_t dy = fz_int(f, 0, 4), S = fz_int(f, 0, 8);
  ptrdiff_t chunk[3] = {fz_int(f, 1, 9), fz_int(f, 1, 9), 0},
            rows[3] = {fz_int(f, 1, 44), 0, fz_int(f, 1, 44)};
  rows[1] = rows[0]; /* nthreads and simd alone */
  const int simd = fz_int(f, 0, 1);
  double *y = FZ_NEW(double, m * dy), *Wy = FZ_NEW(double, S * dy),
         *by = FZ_NEW(double, S), *F = FZ_NEW(double, m * S);
  fz_doubles(f, y, m * dy);
  fz_doubles(f, Wy, S * dy);
  fz_doubles(f, by, S);
  bk_rff(y, m, dy, Wy, by, S, F);
  const int finite = fz_all_finite(x, m * d) && fz_all_finite(W, D * d) &&
                     fz_all_finite(b, D) && fz_all_finite(y, m * dy) &&
                     fz_all_finite(Wy, S * dy) && fz_all_finite(by, S);
  const int tame = finite && fz_all_within(x, m * d, 64) && fz_all_within(W, D * d, 64) &&
                   fz_all_within(b, D, 64) && fz_all_within(y, m * dy, 64) &&
                   fz_all_within(Wy, S * dy, 64) && fz_all_within(by, S, 64) &&
                   D >= 1 && S >= 1 && m >= 2;
  double ref[3], o1[3][3], o2[3][3];
  double *w = FZ_NEW(double, BK_LOWRANK_HSIC_WORK(m, D, S));
  bk_lowrank_hsic(Z, m, D, F, S, ref, w);
  free(w);
  /* call k: nthreads 1, 2, 1 and simd, !simd, simd */
  for (int k = 0; k < 3; k++) {
    const int nt = k == 1 ? 2 : 1, sm = k == 1 ? !simd : simd;
    /* the clamps of lowrank_call.c */
    if (chunk[k] > D) chunk[k] = D;
    if (rows[k] > m) rows[k] = m;
    if (rows[k] < 1) rows[k] = 1;
    if (k < 2) {
      w = FZ_NEW(double, BK_RFF_HSIC_WORK(m, D, S, chunk[k]));
      bk_rff_hsic(x, m, d, W, b, D, F, S, chunk[k], nt, sm, o1[k], w, NULL);
      free(w);
    }
    w = FZ_NEW(double, BK_RFF_HSIC2_WORK(m, d, dy, D, S, rows[k]));
    bk_rff_hsic2(x, m, d, W, b, D, y, dy, Wy, by, S, rows[k], nt, sm, o2[k], w, NULL);
    free(w);
  }
  if (finite)
    for (int i = 0; i < 3; i++) {
      FZ_CHECK(fz_same(o1[0][i], o1[1][i]));
      FZ_CHECK(fz_same(o2[0][i], o2[1][i]));
      FZ_CHECK(fz_same(o2[0][i], o2[2][i]));
    }
  if (tame) {
    FZ_CHECK(near(o1[0][0], ref[0]));
    FZ_CHECK(near(o2[0][0], ref[0]));
  }
  free(y);
  free(Wy);
  free(by);
  free(F);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fz_in f = fz_open(data, size);
  const ptrdiff_t m = fz_int(&f, 0, 40), d = fz_int(&f, 0, 6),
                  max_rank = fz_int(&f, 0, 44), s = fz_int(&f, 0, 3),
                  D = fz_int(&f, 0, 8);
  bk_kernel kern = fz_kernel(&f, BK_LINEAR, BK_INVDIST);
  const double tol = fz_param(&f);

  double *x = FZ_NEW(double, m * d), *G = FZ_NEW(double, m * max_rank),
         *work = FZ_NEW(double, m);
  int *piv = FZ_NEW(int, max_rank);
  fz_doubles(&f, x, m * d);
  const int finite = fz_all_finite(x, m * d) && isfinite(kern.p1) &&
                     isfinite(kern.p2) && isfinite(tol);

  const ptrdiff_t r = bk_ichol(x, m, d, &kern, tol, max_rank, G, piv, work);
  FZ_CHECK(r >= 0 && r <= max_rank && r <= m);
  if (finite) {
    for (ptrdiff_t i = 0; i < r; i++) {
      FZ_CHECK(piv[i] >= 0 && piv[i] < m);
      for (ptrdiff_t j = 0; j < i; j++) FZ_CHECK(piv[i] != piv[j]);
    }
  }

  /* HSIC from the factor and a label factor F (m x s) from the input */
  {
    double *F = FZ_NEW(double, m * s), out[3];
    fz_doubles(&f, F, m * s);
    double *w = FZ_NEW(double, BK_LOWRANK_HSIC_WORK(m, r, s));
    bk_lowrank_hsic(G, m, r, F, s, out, w);
    if (m >= 2 && fz_all_within(G, m * r, 1e30) && fz_all_within(F, m * s, 1e30))
      FZ_CHECK(out[0] >= 0.0);
    free(F);
    free(w);
  }

  /* random Fourier features */
  {
    double *W = FZ_NEW(double, D * d), *b = FZ_NEW(double, D),
           *Z = FZ_NEW(double, m * D);
    fz_doubles(&f, W, D * d);
    fz_doubles(&f, b, D);
    bk_rff(x, m, d, W, b, D, Z);
    if (D > 0 && fz_all_finite(x, m * d) && fz_all_finite(W, D * d) &&
        fz_all_finite(b, D)) {
      const double lim = sqrt(2.0 / (double) D) * (1.0 + 1e-12);
      for (ptrdiff_t i = 0; i < m * D; i++)
        FZ_CHECK(!(fabs(Z[i]) > lim)); /* NaN allowed: x W' may overflow to Inf */
    }
    fuzz_rff_hsic(&f, x, m, d, W, b, D, Z);
    free(W);
    free(b);
    free(Z);
  }

  free(x);
  free(G);
  free(work);
  free(piv);
  return 0;
}
