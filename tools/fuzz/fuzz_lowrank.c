/*
 * fuzz_lowrank.c: libFuzzer target for lowrank.c (bk_ichol,
 * bk_lowrank_hsic, bk_rff), the low-rank approximations of hsic() and the
 * selectors (approx = "ichol" / "rff").
 *
 * The buffers are exactly as large as bahsic.h documents (G m x max_rank,
 * piv max_rank, work m; BK_LOWRANK_HSIC_WORK; Z m x D), so ASan catches any
 * access beyond them. max_rank may exceed m, tol may be 0, negative, NaN or
 * infinite.
 *
 * Invariants checked (abort()):
 *   - always: 0 <= rank <= min(max_rank, m);
 *   - for finite data and parameters: the pivots are distinct and in 0..m-1;
 *   - for factors whose values are at most 1e30: HSIC0 >= 0 (it is a sum of
 *     squares of the centred cross-products) for m >= 2;
 *   - for finite x, W and b: |Z| <= sqrt(2 / D) (up to rounding).
 */
#include "fuzz_input.h"

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
