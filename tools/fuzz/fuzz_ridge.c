/*
 * fuzz_ridge.c: libFuzzer target for ridge.c: bk_ridge_select() (BAHSIC and
 * FOHSIC with the ridge kernel K (K + lambda I)^-1) on tiny inputs (m =
 * 0..12 samples, d = 0..6 features), both directions, every base kernel
 * (linear: rank-one updates; polynomial, Gaussian, Laplace, inverse
 * distance: one inverse per candidate), every width policy, steps of 0 and
 * fractions, n_target 0..d; W symmetric from the input. The buffers have
 * exactly the documented sizes (bk_ridge_work_doubles(),
 * bk_ridge_work_ints(), a path of 4 (d + 1) doubles), so that ASan sees any
 * overflow -- the candidate sets' columns live in the tail of sortbuf.
 *
 * Invariants (abort()), when x, W, lambda, the kernel parameters and the
 * grid are finite and every Cholesky succeeded (info = 0): those of
 * fz_check_selection() (fuzz_input.h), with finite scores and widths for a
 * Gaussian or Laplace base on tame data. A failed Cholesky must report
 * LAPACK's info > 0 and stop cleanly.
 *
 * Preconditions kept (C_ridge_select() and the R side check them): lambda
 * > 0 and finite, step in [0, 1), 0 <= n_target <= d, at least one width in
 * the grid for "optimize".
 */
#include "fuzz_input.h"

typedef struct {
  ptrdiff_t calls;
} tick_state;

static void tick(void *ctx, ptrdiff_t iter, ptrdiff_t size, double hsic,
                 double sigma)
{
  ((tick_state *) ctx)->calls++;
  (void) iter;
  (void) size;
  (void) hsic;
  (void) sigma;
}

static int cmp_d(const void *a, const void *b)
{
  double u = *(const double *) a, v = *(const double *) b;
  return (u > v) - (u < v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fz_in f = fz_open(data, size);
  const ptrdiff_t m = fz_int(&f, 0, 12), d = fz_int(&f, 0, 6);
  bk_ridge_opts o;
  o.backward = fz_int(&f, 0, 1);
  o.base = fz_kernel(&f, BK_LINEAR, BK_INVDIST);
  o.policy = fz_int(&f, BK_SIGMA_FIXED, BK_SIGMA_OPTIMIZE);
  o.grid_relative = fz_int(&f, 0, 1);
  o.step = fz_step(&f);
  if (!(o.step >= 0.0 && o.step < 1.0)) o.step = 0.5;
  o.n_target = fz_int(&f, 0, 255) % (d + 1);
  double lambda = fz_param(&f);
  o.lambda = isfinite(lambda) && lambda > 0.0 ? lambda : 1.0;
  const ptrdiff_t ngrid = fz_int(&f, 1, 4);
  double *grid = FZ_NEW(double, ngrid);
  for (ptrdiff_t g = 0; g < ngrid; g++) grid[g] = fz_param(&f);
  qsort(grid, (size_t) ngrid, sizeof(double), cmp_d); /* "ascending" */
  o.grid = grid;
  o.ngrid = ngrid;

  double *x = FZ_NEW(double, m * d), *W = FZ_NEW(double, m * m);
  const int xmode = fz_doubles(&f, x, m * d);
  const int wmode = fz_symmetric(&f, W, m);
  const int finite = fz_all_finite(x, m * d) && fz_all_finite(W, m * m) &&
                     isfinite(o.base.p1) && isfinite(o.base.p2) &&
                     fz_all_finite(grid, ngrid);
  int tame_scores = 0;
  if (finite && xmode == FZ_TAME && wmode == FZ_TAME &&
      (o.base.type == BK_GAUSSIAN || o.base.type == BK_LAPLACE)) {
    if (o.policy == BK_SIGMA_FIXED)
      tame_scores = o.base.p1 >= 0.0 && o.base.p1 <= 1e6;
    else if (o.policy == BK_SIGMA_OPTIMIZE)
      tame_scores = grid[0] >= 0.0 && grid[ngrid - 1] <= 1e6;
    else
      tame_scores = 1;
  }

  double *work = FZ_NEW(double, bk_ridge_work_doubles(m, d));
  int *iwork = FZ_NEW(int, bk_ridge_work_ints(d));
  int *rank = FZ_NEW(int, d), *iter = FZ_NEW(int, d);
  double *score = FZ_NEW(double, d), *path = FZ_NEW(double, 4 * (d + 1));
  tick_state ts = {0};
  int info = -1;
  const ptrdiff_t np = bk_ridge_select(x, m, d, W, &o, rank, score, iter,
                                       path, work, iwork, &info, tick, &ts);
  FZ_CHECK(info >= 0);
  FZ_CHECK(np >= 0 && np <= d + 1);
  /* m = 0: LAPACK is never reached with an empty matrix in a useful way,
   * and every kernel is empty; only memory safety is asked */
  if (finite && info == 0 && m > 0)
    fz_check_selection(rank, iter, score, path, np, ts.calls, d, o.backward,
                       o.n_target, tame_scores);

  free(work);
  free(iwork);
  free(rank);
  free(iter);
  free(score);
  free(path);
  free(grid);
  free(x);
  free(W);
  return 0;
}
