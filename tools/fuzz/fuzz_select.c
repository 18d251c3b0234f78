/*
 * fuzz_select.c: libFuzzer target for select.c: bk_select_features()
 * (BAHSIC and FOHSIC: the exact scorer of scorer_pairs.c run by the
 * schedule of schedule.c) on tiny inputs (m = 0..12 samples, d = 0..6 features),
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
  double *swork = NULL;
  bk_series se = {0, NULL};
  bk_select_opts os = *o;
  if (o->series) {
    /* the series screen with its own workspace (the glue's R_alloc) */
    swork = FZ_NEW(double, bk_series_work_doubles(m, d, o->nthreads));
    se.terms = o->series->terms;
    se.work = swork;
    os.series = &se;
  }
  o = &os;
  double *work = FZ_NEW(double, bk_select_work_doubles(m, d));
  int *iwork = FZ_NEW(int, bk_select_work_ints(d));
  r.rank = FZ_NEW(int, d);
  r.iter = FZ_NEW(int, d);
  r.score = FZ_NEW(double, d);
  r.path = FZ_NEW(double, 4 * (d + 1));
  tick_state ts = {0, 0};
  const bk_select_out out = {r.rank, r.iter, r.score, r.path};
  r.np = bk_select_features(x, m, d, W, o, &out, work, iwork, tick, &ts);
  r.ticks = ts.calls;
  free(swork);
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
  fz_check_selection(r->rank, r->iter, r->score, r->path, r->np, r->ticks, d,
                     o->direction == BK_BACKWARD, o->n_target, tame_scores);
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
  o.series = NULL;
  o.base = NULL;
  o.pace = NULL;
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
  /* the series screen (Gaussian kernel): the ranking, iterations and path
   * of the exact loop, the scores to 1e-10 */
  if (o.kern.type == BK_GAUSSIAN) {
    bk_series se = {fz_int(&f, 0, BK_SERIES_MAX_TERMS), NULL};
    o.series = &se;
    result r3 = run(x, m, d, W, &o);
    if (finite) {
      FZ_CHECK(r1.np == r3.np);
      for (ptrdiff_t j = 0; j < d; j++) {
        FZ_CHECK(r1.rank[j] == r3.rank[j] && r1.iter[j] == r3.iter[j]);
        FZ_CHECK(fz_same(r1.score[j], r3.score[j]) ||
                 fabs(r1.score[j] - r3.score[j]) <= 1e-10 * fabs(r1.score[j]));
      }
      for (ptrdiff_t i = 0; i < 4 * r1.np; i++)
        FZ_CHECK(fz_same(r1.path[i], r3.path[i]));
    }
    release(&r3);
  }
  release(&r1);
  release(&r2);
  free(grid);
  free(x);
  free(W);
  return 0;
}
