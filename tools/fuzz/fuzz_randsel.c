/*
 * fuzz_randsel.c: libFuzzer target for randsel.c: bk_randsel_draw(),
 * bk_randsel_block_columns(), bk_randsel_align(), bk_randsel_accumulate() and bk_randsel_contrib() on
 * tiny inputs (m = 2..12 samples, 0..3 fixed and 1..9 free features,
 * subsamples of 2..m, 1..6 bootstraps), every kernel code, a label kernel
 * given as a full matrix L or as a factor Y, nthreads 1 and 2, simd 0 and 1.
 * Every buffer has exactly the documented size, so that ASan sees any
 * overflow.
 *
 * Invariants checked (abort()), the first two for any input:
 *   - the draws of each bootstrap are distinct and in range (s of 0..m-1,
 *     h + 1 of 0..n-1), and the same seed gives the same draws;
 *   - the counts of bk_randsel_accumulate() add up to n_boot (h + 1) and
 *     n_boot h;
 *   - with finite inputs: nthreads 1 and 2 give the same alignments bit for
 *     bit;
 *   - with tame data, a Gaussian or Laplace kernel of width in [0, 1e6] and
 *     a tame label kernel: every alignment is finite and in [-1, 1] (a
 *     cosine), up to rounding.
 *
 * Preconditions of bk_randsel_align() respected here (checked by
 * C_randsel_iter()): 2 <= s <= m, n >= 1, h = floor(n / 2).
 */
#include "fuzz_input.h"

typedef struct {
  double *a_half, *a_plus;
  int *samp, *feat;
} result;

static result run(const double *xb, ptrdiff_t m, ptrdiff_t nf, ptrdiff_t n,
                  bk_label lab, const bk_randsel_opts *o, ptrdiff_t nb,
                  const uint64_t *seeds)
{
  const ptrdiff_t s = o->s, h = o->h;
  result r;
  r.a_half = FZ_NEW(double, nb);
  r.a_plus = FZ_NEW(double, nb);
  r.samp = FZ_NEW(int, s * nb);
  r.feat = FZ_NEW(int, (h + 1) * nb);
  double *work = FZ_NEW(double, o->nthreads * bk_randsel_work_doubles(s, nf + n));
  int *iwork = FZ_NEW(int, o->nthreads * bk_randsel_work_ints(s, m, nf + n));
  bk_randsel_align(xb, m, nf, n, lab, o, nb, seeds, r.samp, r.feat, r.a_half,
                   r.a_plus, work, iwork);
  free(work);
  free(iwork);
  return r;
}

static void release(result *r)
{
  free(r->a_half);
  free(r->a_plus);
  free(r->samp);
  free(r->feat);
}

static void check_draws(const int *v, ptrdiff_t k, ptrdiff_t range)
{
  for (ptrdiff_t i = 0; i < k; i++) {
    FZ_CHECK(v[i] >= 0 && v[i] < range);
    for (ptrdiff_t j = 0; j < i; j++) FZ_CHECK(v[i] != v[j]);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fz_in f = fz_open(data, size);
  const ptrdiff_t m = fz_int(&f, 2, 12), nf = fz_int(&f, 0, 3),
                  n = fz_int(&f, 1, 9), nb = fz_int(&f, 1, 6);
  const ptrdiff_t p = nf + n;
  bk_randsel_opts o;
  o.kern = fz_kernel(&f, BK_LINEAR, BK_INVDIST);
  o.s = fz_int(&f, 2, (int) m);
  o.h = n / 2;
  o.nthreads = fz_int(&f, 1, 2);
  o.simd = fz_int(&f, 0, 1);
  const int use_y = fz_int(&f, 0, 1);
  const ptrdiff_t c = fz_int(&f, 1, 3);
  uint64_t *seeds = FZ_NEW(uint64_t, nb);
  for (ptrdiff_t b = 0; b < nb; b++) seeds[b] = fz_u64(&f);

  /* the data as before the blocked layout, features x samples (so the
   * corpus keeps its meaning), turned into the samples x features x that
   * C_randsel_iter() blocks, the columns in play in reverse order */
  double *xfs = FZ_NEW(double, p * m);
  const int xmode = fz_doubles(&f, xfs, p * m);
  double *x = FZ_NEW(double, m * p);
  int *cols = FZ_NEW(int, p);
  for (ptrdiff_t j = 0; j < p; j++) {
    cols[j] = (int) (p - 1 - j);
    for (ptrdiff_t a = 0; a < m; a++) x[a + m * (p - 1 - j)] = xfs[j + p * a];
  }
  double *xt = FZ_NEW(double, bk_randsel_blocked_doubles(m, p));
  bk_randsel_block_columns(x, m, cols, p, xt);
  for (ptrdiff_t j = 0; j < p; j++)
    for (ptrdiff_t a = 0; a < m; a++)
      FZ_CHECK(fz_same(xt[64 * m * (j / 64) + 64 * a + j % 64], xfs[j + p * a]));
  for (ptrdiff_t j = p; j < bk_randsel_blocked_doubles(m, p) / m; j++)
    for (ptrdiff_t a = 0; a < m; a++)
      FZ_CHECK(xt[64 * m * (j / 64) + 64 * a + j % 64] == 0.0); /* padding */
  double *L = NULL, *Y = NULL;
  int lmode;
  bk_label lab = {NULL, NULL, 0};
  if (use_y) {
    Y = FZ_NEW(double, m * c);
    lmode = fz_doubles(&f, Y, m * c);
    lab.Y = Y;
    lab.c = c;
  } else {
    L = FZ_NEW(double, m * m);
    lmode = fz_symmetric(&f, L, m);
    lab.L = L;
  }
  const int finite = fz_all_finite(xfs, p * m) &&
                     (use_y ? fz_all_finite(Y, m * c) : fz_all_finite(L, m * m)) &&
                     isfinite(o.kern.p1) && isfinite(o.kern.p2);
  const int tame = finite && xmode == FZ_TAME && lmode == FZ_TAME &&
                   (o.kern.type == BK_GAUSSIAN || o.kern.type == BK_LAPLACE) &&
                   o.kern.p1 >= 0.0 && o.kern.p1 <= 1e6;

  result r1 = run(xt, m, nf, n, lab, &o, nb, seeds);
  for (ptrdiff_t b = 0; b < nb; b++) {
    check_draws(r1.samp + o.s * b, o.s, m);
    check_draws(r1.feat + (o.h + 1) * b, o.h + 1, n);
    /* the same seed, the same draws */
    int *samp = FZ_NEW(int, o.s), *feat = FZ_NEW(int, o.h + 1),
        *pool = FZ_NEW(int, m > n ? m : n);
    bk_randsel_draw(seeds[b], m, o.s, n, o.h, samp, feat, pool);
    FZ_CHECK(memcmp(samp, r1.samp + o.s * b, (size_t) o.s * sizeof(int)) == 0);
    FZ_CHECK(memcmp(feat, r1.feat + (o.h + 1) * b,
                    (size_t) (o.h + 1) * sizeof(int)) == 0);
    free(samp);
    free(feat);
    free(pool);
    if (tame) {
      FZ_CHECK(isfinite(r1.a_half[b]) && fabs(r1.a_half[b]) <= 1.0 + 1e-9);
      FZ_CHECK(isfinite(r1.a_plus[b]) && fabs(r1.a_plus[b]) <= 1.0 + 1e-9);
    }
  }

  /* the sums and counts of Definition 3.2 */
  double *sum_plus = FZ_NEW(double, n), *sum_half = FZ_NEW(double, n),
         *contrib = FZ_NEW(double, n);
  int *n_plus = FZ_NEW(int, n), *n_half = FZ_NEW(int, n);
  memset(sum_plus, 0, (size_t) n * sizeof(double));
  memset(sum_half, 0, (size_t) n * sizeof(double));
  memset(n_plus, 0, (size_t) n * sizeof(int));
  memset(n_half, 0, (size_t) n * sizeof(int));
  double total_half = 0.0;
  bk_randsel_accumulate(o.h, nb, r1.feat, r1.a_half, r1.a_plus, sum_plus,
                        n_plus, sum_half, n_half, &total_half);
  bk_randsel_contrib(n, nb, sum_plus, n_plus, sum_half, n_half, total_half,
                     contrib);
  ptrdiff_t tp = 0, th = 0;
  for (ptrdiff_t j = 0; j < n; j++) {
    tp += n_plus[j];
    th += n_half[j];
  }
  FZ_CHECK(tp == nb * (o.h + 1) && th == nb * o.h);

  /* the other thread count: without OpenMP nothing may change */
  o.nthreads = 3 - o.nthreads;
  result r2 = run(xt, m, nf, n, lab, &o, nb, seeds);
  if (finite) {
    for (ptrdiff_t b = 0; b < nb; b++)
      FZ_CHECK(fz_same(r1.a_half[b], r2.a_half[b]) &&
               fz_same(r1.a_plus[b], r2.a_plus[b]));
  }
  release(&r1);
  release(&r2);
  free(sum_plus);
  free(sum_half);
  free(contrib);
  free(n_plus);
  free(n_half);
  free(seeds);
  free(xt);
  free(xfs);
  free(x);
  free(cols);
  free(L);
  free(Y);
  return 0;
}
