/*
 * fuzz_hsic.c: libFuzzer target for hsic.c (bk_hsic_stats, bk_kside,
 * bk_hsic_pair, bk_hsic_gamma, bk_feature_dot, and the panel paths
 * bk_hsic_stats_x, bk_hsic_gamma_x), gram.c (bk_gram_panel), pairs.c
 * (bk_pick_gauss_pass, bk_pack_upper), scores.c (bk_class_moments,
 * bk_col_cor) and checks.c (bk_first_nonfinite, bk_constant_columns).
 *
 * The label side is given both ways the core accepts: a full m x m L and a
 * low-rank factor Y (m x c, c = 0..4). K is symmetric, as the core assumes
 * (raw from the input, or a Gram matrix of x by bk_gram()).
 *
 * Invariants checked (abort()) only for finite inputs:
 *   - bk_hsic_pair() with perm = NULL gives the same HSIC0 and HSIC1 as
 *     bk_hsic_stats(), bit for bit, and with the identity permutation the
 *     same up to rounding (a permuted column is summed a term at a time,
 *     the unpermuted one in the two lanes of sum_off(); the permutation
 *     test's p-value counts ties within a tolerance);
 *   - bk_pack_upper() packs column after column;
 *   - the score bk_feature_hsic_test() (kernel_test.c) makes with its test
 *     is bk_feature_dot()'s, bit for bit, for finite data, weights and
 *     kernel parameters (one width or a width per feature);
 *   - bk_col_cor() is in [-1, 1] or NaN;
 *   - bk_class_moments(): counts add up to m, an empty class has mean NaN
 *     and ss 0, and ss >= 0;
 *   - bk_first_nonfinite() and bk_constant_columns() agree with a naive scan
 *     (checked for every input);
 *   - the panel paths, for finite data (x, and y or the label): every column
 *     of bk_gram_panel() is bk_gram_ck()'s, and bk_hsic_stats_x() and
 *     bk_hsic_gamma_x() give the numbers of bk_hsic_stats() and
 *     bk_hsic_gamma() on the whole K, bit for bit, for a label L, a factor Y
 *     and the Gram matrix of y (ysrc); m up to 80, so that one thread takes
 *     K in four panels (m >= 64) and two threads in one. The data are
 *     rescaled by 2^e for the distance kernels, as gram_call.c does; the
 *     width is finite (the glue's contract).
 *
 * Preconditions of the core respected here (not all stated in bahsic.h):
 *   - perm of bk_hsic_pair() is a permutation of 0..m-1;
 *   - bk_pick_gauss_pass(1, .) (no clamp) is only for arguments known to be
 *     in [-708, 0] (a little above 0 is harmless); the harness checks that
 *     before using it;
 *   - bk_class_moments(): cls[i] in 0..ncls-1, ncls >= 1.
 */
#include "fuzz_input.h"

/* the largest |v[i]|, i < n */
static double max_abs(const double *v, ptrdiff_t n)
{
  double mx = 0.0;
  for (ptrdiff_t i = 0; i < n; i++) mx = fmax(mx, fabs(v[i]));
  return mx;
}

/* a and b equal up to the rounding of sums of m^2 terms of at most nk nl
 * (the largest entries of K and of the label's L), over (m - 1)^2: the
 * scale of the permutation test's ties */
static int near_terms(double a, double b, double nk, double nl, ptrdiff_t m)
{
  const double md = m > 1 ? (double) (m - 1) : 1.0;
  const double scale = (double) m * (double) m * nk * nl / (md * md);
  return fz_same(a, b) || fabs(a - b) <= 1e-12 * scale;
}

/* the range of the arguments of exp() of the Gaussian pair loop */
static void exp_arg_range(const double *q, const double *xj, ptrdiff_t m,
                          double ns, double sgn, double *lo, double *hi)
{
  *lo = INFINITY;
  *hi = -INFINITY;
  for (ptrdiff_t b = 1, p = 0; b < m; b++)
    for (ptrdiff_t a = 0; a < b; a++, p++) {
      double u = xj[a] - xj[b], arg = ns * (q[p] + sgn * u * u);
      if (!(arg >= *lo)) *lo = arg;
      if (!(arg <= *hi)) *hi = arg;
    }
}

/* The data of a Gram matrix as gram_call.c's read_src() makes them: x
 * itself, or for a distance kernel of data of an extreme scale a copy
 * times 2^e (*xs_own, to free; NULL when x is used). */
static bk_gram_src panel_src(const double *x, ptrdiff_t m, ptrdiff_t d,
                             bk_kernel kern, double **xs_own)
{
  bk_gram_src src = {.xs = x, .m = m, .d = d, .e = 0, .kern = kern};
  *xs_own = NULL;
  if (bk_kernel_uses_distance(kern.type)) {
    src.e = bk_pow2_shift(bk_max_abs(x, m * d), BK_DATA_RANGE);
    if (src.e != 0) {
      *xs_own = FZ_NEW(double, m * d);
      bk_copy_pow2(x, m * d, src.e, *xs_own);
      src.xs = *xs_own;
    }
  }
  return src;
}

/* a kernel with its width given (p1 and p2 finite: the glue's contract) */
static bk_kernel panel_kernel(fz_in *f)
{
  bk_kernel k = fz_kernel(f, BK_LINEAR, BK_INVDIST);
  if (!isfinite(k.p1)) k.p1 = 1.0;
  if (!isfinite(k.p2)) k.p2 = 0.0;
  return k;
}

/* bk_hsic_stats_x(), bk_hsic_gamma_x() and bk_gram_panel() against the
 * whole K (and L) of bk_gram_ck() */
static void fuzz_panels(fz_in *f)
{
  const ptrdiff_t m = fz_int(f, 0, 80), d = fz_int(f, 0, 4),
                  dy = fz_int(f, 0, 3), c = fz_int(f, 0, 3);
  const int nthreads = fz_int(f, 1, 2), simd = fz_int(f, 0, 1),
            lmode = fz_int(f, 0, 2); /* 0: L, 1: Y, 2: the Gram matrix of y */
  const bk_kernel kx = panel_kernel(f), ky = panel_kernel(f);
  const ptrdiff_t cl = lmode == 1 ? c : 0;
  double *x = FZ_NEW(double, m * d), *y = FZ_NEW(double, m * dy),
         *L = FZ_NEW(double, m * m), *Y = FZ_NEW(double, m * cl),
         *K = FZ_NEW(double, m * m);
  fz_doubles(f, x, m * d);
  int finite = fz_all_finite(x, m * d);
  if (lmode == 0) {
    fz_symmetric(f, L, m);
    finite &= fz_all_finite(L, m * m);
  } else if (lmode == 1) {
    fz_doubles(f, Y, m * cl);
    finite &= fz_all_finite(Y, m * cl);
  } else {
    fz_doubles(f, y, m * dy);
    finite &= fz_all_finite(y, m * dy);
  }
  double *xs_own, *ys_own = NULL;
  const bk_gram_src src = panel_src(x, m, d, kx, &xs_own);
  bk_gram_src ysrc = {0};
  bk_kernel kk = kx;
  bk_gram_ck(src.xs, m, d, src.e, &kk, K, NULL, nthreads, simd, NULL);
  if (lmode == 2) {
    ysrc = panel_src(y, m, dy, ky, &ys_own);
    bk_kernel kl = ky;
    bk_gram_ck(ysrc.xs, m, dy, ysrc.e, &kl, L, NULL, nthreads, simd, NULL);
  }

  /* a panel of columns b0..b1-1 */
  {
    const ptrdiff_t b0 = fz_int(f, 0, (int) m), b1 = fz_int(f, (int) b0, (int) m);
    double *P = FZ_NEW(double, m * (b1 - b0));
    bk_gram_panel(src.xs, m, d, src.e, kx, b0, b1, P, simd);
    if (finite)
      for (ptrdiff_t b = b0; b < b1; b++)
        for (ptrdiff_t a = 0; a < m; a++)
          FZ_CHECK(fz_same(P[a + m * (b - b0)], K[a + m * b]));
    free(P);
  }

  /* the label as the glue hands it: {L}, {Y} or ysrc with {NULL, NULL, 0} */
  const bk_label whole = {lmode == 1 ? NULL : L, lmode == 1 ? Y : NULL, cl},
                 lab = lmode == 2 ? (bk_label){NULL, NULL, 0} : whole;
  const bk_gram_src *ys = lmode == 2 ? &ysrc : NULL;
  double st[4], stx[4], g[5], gx[5];
  double *w8 = FZ_NEW(double, 8 * m + 2 * m * cl), *w4 = FZ_NEW(double, 4 * m + 2 * m * cl),
         *wx = FZ_NEW(double, BK_HSIC_X_WORK(m, lab.c));
  bk_hsic_stats(K, m, whole, st, w8, NULL);
  bk_hsic_stats_x(&src, ys, lab, stx, wx, nthreads, simd, NULL);
  bk_hsic_gamma(K, m, whole, g, w4, NULL);
  bk_hsic_gamma_x(&src, ys, lab, gx, wx, nthreads, simd, NULL);
  if (finite) {
    for (int i = 0; i < 4; i++) FZ_CHECK(fz_same(st[i], stx[i]));
    for (int i = 0; i < 5; i++) FZ_CHECK(fz_same(g[i], gx[i]));
  }
  free(w8);
  free(w4);
  free(wx);
  free(x);
  free(y);
  free(L);
  free(Y);
  free(K);
  free(xs_own);
  free(ys_own);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fz_in f = fz_open(data, size);
  const ptrdiff_t m = fz_int(&f, 0, 40), d = fz_int(&f, 0, 8),
                  c = fz_int(&f, 0, 4);
  const int nthreads = fz_int(&f, 1, 2), simd = fz_int(&f, 0, 1);
  const int kmode = fz_int(&f, 0, 1);
  bk_kernel kern = fz_kernel(&f, BK_LINEAR, BK_INVDIST);
  const ptrdiff_t P = m * (m - 1) / 2;

  double *x = FZ_NEW(double, m * d), *K = FZ_NEW(double, m * m),
         *L = FZ_NEW(double, m * m), *Y = FZ_NEW(double, m * c);
  fz_doubles(&f, x, m * d);
  if (kmode == 0) {
    fz_symmetric(&f, K, m);
  } else {
    bk_kernel kg = kern;
    bk_gram(x, m, d, &kg, K, NULL, nthreads);
  }
  fz_symmetric(&f, L, m);
  fz_doubles(&f, Y, m * c);
  int *perm = FZ_NEW(int, m);
  fz_permutation(&f, perm, m);
  const int finite = fz_all_finite(K, m * m) && fz_all_finite(L, m * m) &&
                     fz_all_finite(Y, m * c) && fz_all_finite(x, m * d);

  bk_label labL = {L, NULL, 0}, labY = {NULL, Y, c};
  const bk_label labs[2] = {labL, labY};
  double *kd = FZ_NEW(double, m), *k1 = FZ_NEW(double, m);
  bk_kside(K, m, kd, k1, NULL);
  int *ident = FZ_NEW(int, m);
  for (ptrdiff_t a = 0; a < m; a++) ident[a] = (int) a;

  for (int l = 0; l < 2; l++) {
    bk_label lab = labs[l];
    double stats[4], pair[2], pid[2], pp[2], gam[5];
    double *w8 = FZ_NEW(double, 8 * m + 2 * m * lab.c);
    bk_hsic_stats(K, m, lab, stats, w8, NULL);
    free(w8);
    double *w3 = FZ_NEW(double, 3 * m + 2 * m * lab.c);
    bk_hsic_pair(K, m, kd, k1, lab, NULL, pair, w3, NULL);
    bk_hsic_pair(K, m, kd, k1, lab, ident, pid, w3, NULL);
    bk_hsic_pair(K, m, kd, k1, lab, perm, pp, w3, NULL);
    free(w3);
    double *w4 = FZ_NEW(double, 4 * m + 2 * m * lab.c);
    bk_hsic_gamma(K, m, lab, gam, w4, NULL);
    free(w4);
    if (finite) {
      FZ_CHECK(fz_same(stats[0], pair[0]) && fz_same(stats[1], pair[1]));
      const double nk = max_abs(K, m * m),
                   nl = lab.Y ? (double) lab.c * max_abs(Y, m * c) * max_abs(Y, m * c)
                              : max_abs(L, m * m);
      FZ_CHECK(near_terms(pid[0], pair[0], nk, nl, m) &&
               near_terms(pid[1], pair[1], nk, nl, m));
    }
  }

  /* bk_feature_dot with one width and with a width per feature, and the
   * score bk_feature_hsic_test() makes with its test: the same bits */
  {
    const ptrdiff_t nt = nthreads > 1 ? nthreads : 1;
    double *W = FZ_NEW(double, m * m), *out = FZ_NEW(double, d),
           *par = FZ_NEW(double, d), *work = FZ_NEW(double, BK_FEATURE_DOT_WORK(m, nt)),
           *sc = FZ_NEW(double, d), *shape = FZ_NEW(double, d), *z = FZ_NEW(double, d),
           *twork = FZ_NEW(double, BK_FEATURE_TEST_WORK(m, nt, 1));
    fz_symmetric(&f, W, m);
    for (ptrdiff_t j = 0; j < d; j++) par[j] = fz_param(&f);
    /* the test's label side: L (symmetric) for Lc, traces as given */
    const bk_test_label tl = {.Lc = L, .Wt = NULL, .tb = 1.0, .ub = 1.0, .wb = 1.0,
                              .perms = NULL, .B = 0, .W = W};
    const int tested = isfinite(kern.p1) && isfinite(kern.p2) &&
                       bk_kernel_in(kern.type, BK_KSET_DATA) &&
                       fz_all_finite(x, m * d) && fz_all_finite(W, m * m) &&
                       fz_all_finite(L, m * m);
    for (int w = 0; w < 2; w++) {
      const double *pw = w ? par : NULL;
      int widths = 1;
      for (ptrdiff_t j = 0; w && j < d; j++) widths &= isfinite(par[j]) != 0;
      bk_feature_dot(x, m, d, kern, pw, W, out, work, simd, nthreads, NULL);
      if (tested && widths) {
        bk_feature_hsic_test(x, m, d, kern, pw, &tl, shape, z, NULL, sc, twork, simd,
                             nthreads, NULL);
        for (ptrdiff_t j = 0; j < d; j++) FZ_CHECK(fz_same(sc[j], out[j]));
      }
    }
    free(W);
    free(out);
    free(par);
    free(work);
    free(sc);
    free(shape);
    free(z);
    free(twork);
  }

  /* the Gaussian pair loop on its own, every variant */
  {
    double *A = FZ_NEW(double, m * m), *q = FZ_NEW(double, P),
           *w = FZ_NEW(double, P), *xj = FZ_NEW(double, m);
    fz_symmetric(&f, A, m);
    bk_pack_upper(A, m, q);
    for (ptrdiff_t b = 1, p = 0; b < m; b++)
      for (ptrdiff_t a = 0; a < b; a++, p++) FZ_CHECK(fz_same(q[p], A[a + m * b]));
    fz_doubles(&f, w, P);
    fz_doubles(&f, xj, m);
    double ns = -fabs(fz_param(&f)), sgn = fz_int(&f, 0, 1) ? 1.0 : -1.0, lo, hi;
    if (fz_int(&f, 0, 3) == 0) ns = -ns; /* out of contract: positive args */
    exp_arg_range(q, xj, m, ns, sgn, &lo, &hi);
    for (int s = 0; s <= 1; s++) {
      (void) bk_pick_gauss_pass(0, s)(q, w, xj, m, ns, sgn);
      if (lo >= -708.0 && hi <= 708.0)
        (void) bk_pick_gauss_pass(1, s)(q, w, xj, m, ns, sgn);
    }
    free(A);
    free(q);
    free(w);
    free(xj);
  }

  /* scores.c */
  {
    const int ncls = fz_int(&f, 1, 5);
    int *cls = FZ_NEW(int, m), *n = FZ_NEW(int, ncls),
        *work = FZ_NEW(int, m + ncls + 1);
    double *mean = FZ_NEW(double, ncls * d), *ss = FZ_NEW(double, ncls * d),
           *y = FZ_NEW(double, m), *cor = FZ_NEW(double, d);
    fz_classes(&f, cls, m, ncls);
    int *expo = FZ_NEW(int, d), *constant = FZ_NEW(int, d);
    double *cwork = FZ_NEW(double, m);
    ptrdiff_t bad = bk_class_moments(x, m, d, cls, ncls, n, mean, ss, expo, constant, work);
    int xfin = fz_all_finite(x, m * d);
    FZ_CHECK((bad < 0) == (xfin != 0));
    if (xfin) {
      ptrdiff_t tot = 0;
      for (int k = 0; k < ncls; k++) {
        tot += n[k];
        for (ptrdiff_t j = 0; j < d; j++) {
          double mu = mean[k + ncls * j], s2 = ss[k + ncls * j];
          if (n[k] == 0) FZ_CHECK(isnan(mu) && s2 == 0.0);
          else FZ_CHECK(!(s2 < 0.0));
        }
      }
      FZ_CHECK(tot == m);
    }
    fz_doubles(&f, y, m);
    bk_col_cor(x, m, d, y, cor, mean, constant, cwork);
    if (xfin && fz_all_finite(y, m))
      for (ptrdiff_t j = 0; j < d; j++)
        FZ_CHECK(isnan(cor[j]) || (cor[j] >= -1.0 && cor[j] <= 1.0));
    free(cls);
    free(n);
    free(work);
    free(mean);
    free(ss);
    free(y);
    free(cor);
    free(expo);
    free(constant);
    free(cwork);
  }

  /* checks.c, against naive scans */
  {
    double mx = -1.0;
    ptrdiff_t i = bk_first_nonfinite(x, m * d, &mx), first = -1;
    double ref = 0.0;
    for (ptrdiff_t t = 0; t < m * d; t++) {
      if (!isfinite(x[t])) {
        first = t;
        break;
      }
      ref = fmax(ref, fabs(x[t]));
    }
    FZ_CHECK(i == first);
    if (i < 0) FZ_CHECK(mx == ref);
    int *cc = FZ_NEW(int, d);
    bk_constant_columns(x, m, d, cc);
    for (ptrdiff_t j = 0; j < d; j++) {
      int same = 1;
      for (ptrdiff_t a = 1; a < m; a++) same &= x[a + m * j] == x[m * j];
      FZ_CHECK(cc[j] == same);
    }
    free(cc);
  }

  free(x);
  free(K);
  free(L);
  free(Y);
  free(perm);
  free(kd);
  free(k1);
  free(ident);
  fuzz_panels(&f);
  return 0;
}
