/*
 * fuzz_select.c: libFuzzer target for select.c: bk_select_features()
 * (BAHSIC and FOHSIC) on tiny inputs (m = 0..12 samples, d = 0..6 features),
 * both directions, every width policy, every kernel it accepts (polynomial,
 * Gaussian, Laplace, inverse distance), steps of 0 and fractions, n_target
 * 0..d, nthreads 1 and 2, simd 0 and 1; W symmetric from the input. Every
 * buffer has exactly the documented size (bk_select_work_doubles(),
 * bk_select_work_ints(), a path of 4 (d + 1) doubles), so that ASan sees any
 * overflow.
 *
 * Invariants checked (abort()) only when x, W, the kernel parameters and the
 * grid are all finite (for NaN/Inf the contract is only: no memory error, no
 * undefined behaviour, no hang, no crash):
 *   - the ranks of the ranked features are a permutation of 1..k, with k = d
 *     for BAHSIC and k = n_target (or d when 0) for FOHSIC;
 *   - a feature with rank 0 has iter 0 and score NaN; a ranked one has
 *     1 <= iter <= number of path rows;
 *   - BAHSIC: a feature eliminated earlier ranks lower (larger rank);
 *     FOHSIC: a feature added earlier ranks higher;
 *   - the path's iterations are 1, 2, ...; its sizes decrease (BAHSIC) or
 *     increase (FOHSIC); the tick callback ran once per path row;
 *   - nthreads 1 and 2 give the same result bit for bit (without OpenMP);
 *   - for the Gaussian and Laplace kernels with tame data and a width in
 *     [0, 1e6], every score and path HSIC is finite.
 *
 * Preconditions of bk_select_features() respected here (checked by the R
 * side and C_select(), not stated in bahsic.h):
 *   - 0 <= n_target <= d (n_target < 0 makes BAHSIC run a round on the
 *     empty set and FOHSIC's n_target > d rounds past the last feature:
 *     both read candidates that do not exist);
 *   - step in [0, 1] (finite: the batch size is (ptrdiff_t) floor(step n),
 *     an undefined conversion for NaN or Inf, and larger than the candidate
 *     set for step > 1); a negative step acts as 0 and is fuzzed;
 *   - kern.type is not BK_LINEAR (done in one pass in R).
 */
#include "fuzz_input.h"

typedef struct {
  ptrdiff_t calls, last;
} tick_state;

/* what C_select()'s tick does, without R: nothing but count */
static void tick(void *ctx, ptrdiff_t iter, ptrdiff_t size, double hsic,
                 double sigma)
{
  tick_state *t = (tick_state *) ctx;
  t->calls++;
  t->last = iter;
  (void) size;
  (void) hsic;
  (void) sigma;
}

static int cmp_d(const void *a, const void *b)
{
  double u = *(const double *) a, v = *(const double *) b;
  return (u > v) - (u < v);
}

typedef struct {
  int *rank, *iter;
  double *score, *path;
  ptrdiff_t np, ticks;
} result;

static result run(const double *x, ptrdiff_t m, ptrdiff_t d, const double *W,
                  const bk_select_opts *o)
{
  result r;
  double *work = FZ_NEW(double, bk_select_work_doubles(m, d));
  int *iwork = FZ_NEW(int, bk_select_work_ints(d));
  r.rank = FZ_NEW(int, d);
  r.iter = FZ_NEW(int, d);
  r.score = FZ_NEW(double, d);
  r.path = FZ_NEW(double, 4 * (d + 1));
  tick_state ts = {0, 0};
  r.np = bk_select_features(x, m, d, W, o, r.rank, r.score, r.iter, r.path,
                            work, iwork, tick, &ts);
  r.ticks = ts.calls;
  free(work);
  free(iwork);
  return r;
}

static void release(result *r)
{
  free(r->rank);
  free(r->iter);
  free(r->score);
  free(r->path);
}

static void check_invariants(const result *r, ptrdiff_t d,
                             const bk_select_opts *o, int tame_scores)
{
  const int back = o->direction == BK_BACKWARD;
  const ptrdiff_t nranked =
      back ? d : (o->n_target > 0 ? o->n_target : d);
  FZ_CHECK(r->np >= 0 && r->np <= d + 1);
  FZ_CHECK(r->ticks == r->np);
  int *seen = FZ_NEW(int, d + 1);
  memset(seen, 0, (size_t) (d + 1) * sizeof(int));
  ptrdiff_t k = 0;
  for (ptrdiff_t j = 0; j < d; j++) {
    if (r->rank[j] == 0) {
      FZ_CHECK(r->iter[j] == 0 && isnan(r->score[j]));
      continue;
    }
    FZ_CHECK(r->rank[j] >= 1 && r->rank[j] <= d);
    FZ_CHECK(!seen[r->rank[j]]);
    seen[r->rank[j]] = 1;
    FZ_CHECK(r->iter[j] >= 1 && r->iter[j] <= r->np);
    if (tame_scores) FZ_CHECK(isfinite(r->score[j]));
    k++;
  }
  FZ_CHECK(k == nranked);
  for (ptrdiff_t i = 1; i <= k; i++) FZ_CHECK(seen[i]);
  free(seen);
  for (ptrdiff_t a = 0; a < d; a++)
    for (ptrdiff_t b = 0; b < d; b++)
      if (r->rank[a] > 0 && r->rank[b] > 0 && r->iter[a] < r->iter[b])
        FZ_CHECK(back ? r->rank[a] > r->rank[b] : r->rank[a] < r->rank[b]);
  for (ptrdiff_t i = 0; i < r->np; i++) {
    const double *row = r->path + 4 * i;
    FZ_CHECK(row[0] == (double) (i + 1));
    FZ_CHECK(row[1] >= 0 && row[1] <= (double) d);
    if (i > 0) FZ_CHECK(back ? row[1] < row[-3] : row[1] > row[-3]);
    if (tame_scores) FZ_CHECK(isfinite(row[2]) && isfinite(row[3]));
  }
}

static double fz_step(fz_in *f)
{
  static const double steps[] = {0.0, 0.0, 0.1, 0.25, 0.5, 0.75, 0.999999,
                                 1.0, 1e-300, -0.5, 4.9406564584124654e-324};
  uint8_t b = fz_u8(f);
  if (b < 128) return steps[b % (sizeof steps / sizeof steps[0])];
  return (double) (b - 128) / 128.0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fz_in f = fz_open(data, size);
  const ptrdiff_t m = fz_int(&f, 0, 12), d = fz_int(&f, 0, 6);
  bk_select_opts o;
  o.direction = fz_int(&f, 0, 1) ? BK_FORWARD : BK_BACKWARD;
  o.kern = fz_kernel(&f, BK_POLYNOMIAL, BK_INVDIST);
  o.policy = fz_int(&f, BK_SIGMA_FIXED, BK_SIGMA_OPTIMIZE);
  o.grid_relative = fz_int(&f, 0, 1);
  o.step = fz_step(&f);
  o.n_target = fz_int(&f, 0, 255) % (d + 1);
  o.nthreads = fz_int(&f, 1, 2);
  o.simd = fz_int(&f, 0, 1);
  o.cat = NULL; /* BK_CLINICAL is not fuzzed here */
  const ptrdiff_t ngrid = fz_int(&f, 0, 4);
  double *grid = FZ_NEW(double, ngrid);
  for (ptrdiff_t g = 0; g < ngrid; g++) grid[g] = fz_param(&f);
  qsort(grid, (size_t) ngrid, sizeof(double), cmp_d); /* "ascending" */
  o.grid = grid;
  o.ngrid = ngrid;

  double *x = FZ_NEW(double, m * d), *W = FZ_NEW(double, m * m);
  const int xmode = fz_doubles(&f, x, m * d);
  const int wmode = fz_symmetric(&f, W, m);

  const int finite = fz_all_finite(x, m * d) && fz_all_finite(W, m * m) &&
                     isfinite(o.kern.p1) && isfinite(o.kern.p2) &&
                     fz_all_finite(grid, ngrid);
  int tame_scores = 0;
  if (finite && xmode == FZ_TAME && wmode == FZ_TAME &&
      (o.kern.type == BK_GAUSSIAN || o.kern.type == BK_LAPLACE)) {
    if (o.policy == BK_SIGMA_FIXED)
      tame_scores = o.kern.p1 >= 0.0 && o.kern.p1 <= 1e6;
    else if (o.policy == BK_SIGMA_OPTIMIZE)
      tame_scores = ngrid >= 1 && grid[0] >= 0.0 && grid[ngrid - 1] <= 1e6;
    else
      tame_scores = 1;
  }

  result r1 = run(x, m, d, W, &o);
  if (finite) check_invariants(&r1, d, &o, tame_scores);
  /* the other thread count: without OpenMP nothing may change */
  o.nthreads = 3 - o.nthreads;
  result r2 = run(x, m, d, W, &o);
  if (finite) {
    FZ_CHECK(r1.np == r2.np);
    for (ptrdiff_t j = 0; j < d; j++)
      FZ_CHECK(r1.rank[j] == r2.rank[j] && r1.iter[j] == r2.iter[j] &&
               fz_same(r1.score[j], r2.score[j]));
    for (ptrdiff_t i = 0; i < 4 * r1.np; i++)
      FZ_CHECK(fz_same(r1.path[i], r2.path[i]));
  }
  release(&r1);
  release(&r2);
  free(grid);
  free(x);
  free(W);
  return 0;
}
