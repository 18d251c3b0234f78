/* harness.c: the standalone timing harness of bahsic's C core. Built from
 * src/ without R (tools/harness.sh, a static binary, so that it runs on a
 * machine without R), it reads the inputs that tools/harness/export.R
 * captured from R's own calls, runs each workload at every thread count
 * asked, asserts that every ranking and statistic is bit for bit R's, and
 * prints the median wall time of each and the speed-up over one thread.
 *
 *   harness DIR [threads list, e.g. 1,2,4,8,16] [reps] [workloads]
 *
 * The workloads (all by default; a comma-separated subset as the 4th
 * argument):
 *   default_all   bahsic() on ALL (128 x 12,625, B vs T cells) with its
 *                 defaults: every C routine of the call (the nonlinear
 *                 screen's per-gene tests, screen of all pairs and pair
 *                 tests, then BAHSIC on the seeds and on the other genes)
 *                 in R's order, replayed from a tape of R's .Call()s (the
 *                 target's row; R's own part between them not included)
 *   default_golub the same on golub (38 x 3,051)
 *                 (HARNESS_ROUTINES=1: then each routine's seconds)
 *   bahsic_all    BAHSIC's elimination loop alone on all of ALL's genes
 *                 (screen = "none"), the series screen
 *   bahsic_exact  the same without the series screen (the exact loop)
 *   bahsic_golub  the elimination loop alone on golub, the series screen
 *   hsic          hsic(): m = 5,000, d = 50, a numeric outcome (the median
 *                 on 1,000 rows, K, the label's Gram matrix with its median
 *                 over all pairs, the statistics), fresh m x m buffers per
 *                 call as in R
 *   maxt          Welch's t and the step-down maxT counts on ALL BCR/ABL vs
 *                 NEG (79 x 12,625), 1,000 labellings in R's batches
 *                 (HARNESS_MAXT_SPLIT=1: the statistics whole, then counted,
 *                 where the core also counts them as it computes them)
 *   stab_inside   stability selection's 100 BAHSIC fits (halves of 39),
 *                 one after another, the threads inside each fit
 *   stab_across   the same fits, one per thread (each on one thread)
 *                 (HARNESS_FITS=n: the first n fits only)
 * Exit status 1 if any result differs from R's. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif
#include "bahsic.h"
#include "kernels.h"
#include "hsic.h"
#include "checks.h"
#include "inference.h"
#include "pairtop.h"
#include "screen.h"
#define MATHLIB_STANDALONE
#include <Rmath.h>

static const char *dir;
static int failures = 0;

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

static void die(const char *what, const char *more)
{
  fprintf(stderr, "harness: %s%s\n", what, more ? more : "");
  exit(2);
}

static void *xmalloc(size_t n)
{
  void *p = malloc(n ? n : 1);
  if (!p) die("out of memory", NULL);
  return p;
}

/* ---- the exported arrays and options --------------------------------------- */
typedef struct {
  int type; /* 1 int, 2 double */
  ptrdiff_t nr, nc;
  void *v;
} arr;

static arr load(const char *sub, const char *name)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/%s/%s.bin", dir, sub, name);
  FILE *f = fopen(path, "rb");
  if (!f) die("cannot open ", path);
  int32_t h[3];
  if (fread(h, 4, 3, f) != 3) die("short header in ", path);
  arr a = {h[0], h[1], h[2], NULL};
  size_t n = (size_t) a.nr * (size_t) a.nc, w = a.type == 1 ? 4 : 8;
  a.v = xmalloc(n * w);
  if (fread(a.v, w, n, f) != n) die("short data in ", path);
  fclose(f);
  return a;
}

/* option `name` of sub/opts.txt: up to max values into out; returns the count */
static int opt(const char *sub, const char *name, double *out, int max)
{
  char path[4096], line[4096];
  snprintf(path, sizeof path, "%s/%s/opts.txt", dir, sub);
  FILE *f = fopen(path, "r");
  if (!f) die("cannot open ", path);
  int n = -1;
  while (fgets(line, sizeof line, f)) {
    char *sp = strchr(line, ' ');
    if (!sp) continue;
    *sp = 0;
    if (strcmp(line, name) != 0) continue;
    n = 0;
    char *s = sp + 1, *e;
    while (n < max) {
      while (*s == ' ') s++;
      if (!*s || *s == '\n') break;
      if (strncmp(s, "NA", 2) == 0) {
        out[n++] = NAN;
        s += 2;
        continue;
      }
      errno = 0;
      out[n++] = strtod(s, &e);
      if (e == s) break;
      s = e;
    }
    break;
  }
  fclose(f);
  if (n < 0) die("option missing: ", name);
  return n;
}
static double opt1(const char *sub, const char *name)
{
  double v;
  opt(sub, name, &v, 1);
  return v;
}

static int same_doubles(const double *a, const double *b, ptrdiff_t n)
{
  for (ptrdiff_t i = 0; i < n; i++) {
    if (isnan(a[i]) && isnan(b[i])) continue;
    if (memcmp(a + i, b + i, sizeof(double)) != 0) return 0;
  }
  return 1;
}

static void check(int ok, const char *what, int nt)
{
  if (!ok) {
    failures++;
    fprintf(stderr, "MISMATCH: %s at %d threads differs from R's\n", what, nt);
  }
}

/* fresh memory as R's allocMatrix() gives it, with the glue's huge-page hint */
static double *fresh(size_t n)
{
  double *p = xmalloc(n * sizeof(double));
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const uintptr_t huge = (uintptr_t) 1 << 21;
  uintptr_t lo = ((uintptr_t) p + huge - 1) & ~(huge - 1),
            hi = ((uintptr_t) (p + n)) & ~(huge - 1);
  if (hi > lo) (void) madvise((void *) lo, (size_t) (hi - lo), MADV_HUGEPAGE);
#endif
  return p;
}

/* ---- BAHSIC: the exact mode of C_select (select_call.c build_exact) ------- */
typedef struct {
  bk_select_opts o;
  double grid[64];
  int series;
} sel_setup;

static sel_setup read_select(const char *sub)
{
  sel_setup s;
  memset(&s, 0, sizeof s);
  s.o.kern.type = (int) opt1(sub, "kernel");
  s.o.kern.p1 = opt1(sub, "p1");
  s.o.kern.p2 = opt1(sub, "p2");
  s.o.direction = (int) opt1(sub, "direction");
  s.o.policy = (int) opt1(sub, "policy");
  s.o.ngrid = opt(sub, "grid", s.grid, 64);
  s.o.grid = s.grid;
  s.o.grid_relative = (int) opt1(sub, "grid_relative");
  s.o.step = opt1(sub, "step");
  s.o.n_target = (ptrdiff_t) opt1(sub, "n_target");
  s.o.simd = (int) opt1(sub, "simd");
  s.series = (int) opt1(sub, "series");
  return s;
}

/* one BAHSIC run into out (rank, iteration, score: d each; path: 4 (d + 1));
 * returns the path rows */
static ptrdiff_t run_select(const double *x, ptrdiff_t m, ptrdiff_t d, const double *W,
                            const sel_setup *s, int series, int nt, const bk_select_out *out)
{
  bk_select_opts o = s->o;
  o.nthreads = nt;
  bk_series se = {0};
  double *swork = NULL;
  if (series != 0 && o.kern.type == BK_GAUSSIAN) {
    se.terms = series > 0 ? series : 0;
    swork = xmalloc(sizeof(double) * (size_t) bk_series_work_doubles(m, d, nt));
    se.work = swork;
    o.series = &se;
  }
  double *work = xmalloc(sizeof(double) * (size_t) bk_select_work_doubles(m, d));
  int *iwork = xmalloc(sizeof(int) * (size_t) bk_select_work_ints(d));
  ptrdiff_t np = bk_select_features(x, m, d, W, &o, out, work, iwork, NULL, NULL);
  free(swork);
  free(work);
  free(iwork);
  return np;
}

/* run_select() with the ranking and path kept (rank: d, path: 4 (d + 1)) */
static ptrdiff_t run_select_rank(const double *x, ptrdiff_t m, ptrdiff_t d, const double *W,
                                 const sel_setup *s, int series, int nt, int *rank,
                                 double *path)
{
  int *iter = xmalloc(sizeof(int) * (size_t) d);
  double *score = xmalloc(sizeof(double) * (size_t) d);
  const bk_select_out out = {rank, iter, score, path};
  ptrdiff_t np = run_select(x, m, d, W, s, series, nt, &out);
  free(iter);
  free(score);
  return np;
}

typedef struct {
  const char *sub;
  arr x, W, rank, path;
  sel_setup s;
  int series;
} bahsic_job;

/* the data of sub/xraw.bin standardised as R's prepare_problem() does
 * (export.R asserts that C_select is handed these) */
static arr load_standardized(const char *sub)
{
  arr raw = load(sub, "xraw");
  arr x = {2, raw.nr, raw.nc, xmalloc(sizeof(double) * (size_t) (raw.nr * raw.nc))};
  int *constant = xmalloc(sizeof(int) * (size_t) (raw.nc + 1));
  bk_standardize_columns(raw.v, raw.nr, raw.nc, x.v, constant, 1);
  free(constant);
  free(raw.v);
  return x;
}

static double job_bahsic(void *ctx, int nt)
{
  bahsic_job *j = ctx;
  const ptrdiff_t m = j->x.nr, d = j->x.nc;
  int *rank = xmalloc(sizeof(int) * (size_t) d);
  double *path = xmalloc(sizeof(double) * (size_t) (4 * (d + 1)));
  double t0 = now();
  ptrdiff_t np = run_select_rank(j->x.v, m, d, j->W.v, &j->s, j->series, nt, rank, path);
  double t = now() - t0;
  check(memcmp(rank, j->rank.v, sizeof(int) * (size_t) d) == 0, "BAHSIC ranking", nt);
  check(np == j->path.nc && same_doubles(path, j->path.v, 4 * np), "BAHSIC path", nt);
  free(rank);
  free(path);
  return t;
}

/* ---- hsic(): the median on the sample rows, K, L with its median, stats ----- */
typedef struct {
  arr z1, z2, rows;
  int kernel;
  double sigma1, sigma2, estimate;
} hsic_job;

static const double *rescale(const double *x, ptrdiff_t n, int *e, double **own)
{
  *e = bk_pow2_shift(bk_max_abs(x, n), BK_DATA_RANGE);
  *own = NULL;
  if (*e == 0) return x;
  *own = xmalloc(sizeof(double) * (size_t) n);
  bk_copy_pow2(x, n, *e, *own);
  return *own;
}

#ifdef BK_HSIC_X_WORK
/* R's path since the statistics are taken from the data: the median on the
 * sample rows (C_median_pairwise: the distances on threads unless a watch
 * finds the machine busy), the outcome's width over all pairs, then
 * bk_hsic_stats_x(), a panel of K's and L's columns at a time */
static double job_hsic(void *ctx, int nt)
{
  hsic_job *j = ctx;
  const ptrdiff_t m = j->z1.nr, d = j->z1.nc, n = j->rows.nr;
  const int *rows = j->rows.v;
  const double *x = j->z1.v;
  double t0 = now();
  double *xr = xmalloc(sizeof(double) * (size_t) (n * d));
  for (ptrdiff_t c = 0; c < d; c++)
    for (ptrdiff_t a = 0; a < n; a++) xr[a + n * c] = x[rows[a] + m * c];
  int e;
  double *own;
  const double *xs = rescale(xr, n * d, &e, &own);
  double *mwork = xmalloc(sizeof(double) * (size_t) BK_MEDIAN_WORK(n));
  double *cross = xmalloc(sizeof(double) * (size_t) (n * n));
#ifdef BK_MEDIAN_THREADS
  double med = bk_median_pairwise_ck(xs, n, d, 1, mwork, cross, nt, NULL);
#else
  bk_cross(xs, n, d, 1, cross, nt, NULL);
  double med = bk_median_triangle_ck(cross, n, 0, 1, mwork, NULL);
#endif
  if (e != 0) med = ldexp(med, -2 * e);
  free(own);
  free(xr);
  free(mwork);
  free(cross);
  /* the outcome's width: the median over all pairs */
  double *own2;
  int e2;
  const double *ys = rescale(j->z2.v, m * j->z2.nc, &e2, &own2);
  double *lwork = xmalloc(sizeof(double) * (size_t) BK_MEDIAN_WORK(m));
#ifdef BK_MEDIAN_THREADS
  double med2 = bk_median_pairwise_ck(ys, m, j->z2.nc, 1, lwork, NULL, 1, NULL);
#else
  double med2 = bk_median_pairwise_ck(ys, m, j->z2.nc, 1, lwork, NULL, NULL);
#endif
  if (e2 != 0) med2 = ldexp(med2, -2 * e2);
  free(lwork);
  const bk_gram_src src = {.xs = rescale(x, m * d, &e, &own), .m = m, .d = d, .e = e,
                           .kern = {j->kernel, 1.0 / med, 0.0}};
  const bk_gram_src ysrc = {.xs = ys, .m = m, .d = j->z2.nc, .e = e2,
                            .kern = {j->kernel, 1.0 / med2, 0.0}};
  double st[4], *work = xmalloc(sizeof(double) * (size_t) BK_HSIC_X_WORK(m, 0));
  bk_hsic_stats_x(&src, &ysrc, (bk_label){NULL, NULL, 0}, st, work, nt, 1, NULL);
  double t = now() - t0;
  check(1.0 / med == j->sigma1, "hsic() width of K", nt);
  check(1.0 / med2 == j->sigma2, "hsic() width of L", nt);
  check(st[1] == j->estimate, "hsic() estimate", nt);
  free(own);
  free(own2);
  free(work);
  return t;
}
#else
static double job_hsic(void *ctx, int nt)
{
  hsic_job *j = ctx;
  const ptrdiff_t m = j->z1.nr, d = j->z1.nc, n = j->rows.nr;
  const int *rows = j->rows.v;
  const double *x = j->z1.v;
  double t0 = now();
  /* the median heuristic on the sample rows (R: pairwise_median()) */
  double *xr = xmalloc(sizeof(double) * (size_t) (n * d));
  for (ptrdiff_t c = 0; c < d; c++)
    for (ptrdiff_t a = 0; a < n; a++) xr[a + n * c] = x[rows[a] + m * c];
  int e;
  double *own;
  const double *xs = rescale(xr, n * d, &e, &own);
  double *mwork = xmalloc(sizeof(double) * (size_t) BK_MEDIAN_WORK(n));
  double *cross = xmalloc(sizeof(double) * (size_t) (n * n));
  double med = bk_median_pairwise_ck(xs, n, d, 1, mwork, cross, NULL);
  if (e != 0) med = ldexp(med, -2 * e);
  free(own);
  free(xr);
  free(mwork);
  free(cross);
  /* K at that width */
  bk_kernel k1 = {j->kernel, 1.0 / med, 0.0};
  const double *x1 = rescale(x, m * d, &e, &own);
  double *K = fresh((size_t) (m * m));
  bk_gram_ck(x1, m, d, e, &k1, K, NULL, nt, 1, NULL);
  free(own);
  /* the label's Gram matrix, its width by the median over all pairs */
  bk_kernel k2 = {j->kernel, NAN, 0.0};
  const double *x2 = rescale(j->z2.v, m * j->z2.nc, &e, &own);
  double *L = fresh((size_t) (m * m));
  double *lwork = xmalloc(sizeof(double) * (size_t) BK_MEDIAN_WORK(m));
  bk_gram_ck(x2, m, j->z2.nc, e, &k2, L, lwork, nt, 1, NULL);
  free(own);
  free(lwork);
  double st[4], *work = xmalloc(sizeof(double) * (size_t) (8 * m));
  bk_label lab = {L, NULL, 0};
  bk_hsic_stats(K, m, lab, st, work, NULL);
  double t = now() - t0;
  check(1.0 / med == j->sigma1, "hsic() width of K", nt);
  check(k2.p1 == j->sigma2, "hsic() width of L", nt);
  check(st[1] == j->estimate, "hsic() estimate", nt);
  free(K);
  free(L);
  free(work);
  return t;
}
#endif

/* ---- maxT: bk_perm_stats() and bk_maxt_count() ------------------------------ */
typedef struct {
  arr xt, cls, perm, order, thr, raw, adj;
} maxt_job;

/* one batch of nb labellings (perm: m x nb), counted into raw and adj: the
 * statistics whole, then their counts (the baseline's path; HARNESS_WARM=1:
 * one buffer for every batch and run, no fresh pages), or, where the core
 * has it and HARNESS_MAXT_SPLIT is not 1, counted as they are computed */
static void maxt_batch(const maxt_job *j, const int *perm, ptrdiff_t nb, const int *o0,
                       int nt, int *raw, int *adj)
{
  const ptrdiff_t p = j->xt.nr, m = j->xt.nc, q = j->order.nr;
  int *r = xmalloc(sizeof(int) * (size_t) p), *a = xmalloc(sizeof(int) * (size_t) q);
  int *iwork = xmalloc(sizeof(int) * (size_t) ((p + q) * nt + 1));
  const char *split = getenv("HARNESS_MAXT_SPLIT");
#ifdef BK_MAXT_CHUNK
  if (!split || atoi(split) != 1) {
    double *work = xmalloc(sizeof(double) * (size_t) (BK_MAXT_FUSED_WORK(p, nt) + 1));
    const bk_maxt_spec sp = {.stat = BK_PERM_WELCH, .xt = j->xt.v, .thr = j->thr.v,
                             .cls = j->cls.v, .perm = perm, .order = o0, .p = p, .m = m,
                             .B = nb, .q = q};
    bk_maxt_fused(&sp, r, a, work, iwork, nt);
    free(work);
    split = NULL;
  } else
#endif
  {
    (void) split;
    static double *warm = NULL;
    const int reuse = getenv("HARNESS_WARM") && atoi(getenv("HARNESS_WARM")) == 1;
    double *stat = reuse && warm ? warm : fresh((size_t) (p * nb));
    double *work = xmalloc(sizeof(double) * (size_t) (2 * p * (nt + 1) + 1));
    bk_perm_stats(BK_PERM_WELCH, j->xt.v, p, m, j->cls.v, NULL, perm, nb, stat, NULL, work,
                  nt);
    bk_maxt_count(stat, p, nb, o0, q, j->thr.v, r, a, iwork, nt);
    free(work);
    if (reuse)
      warm = stat;
    else
      free(stat);
  }
  for (ptrdiff_t k = 0; k < p; k++) raw[k] += r[k];
  for (ptrdiff_t k = 0; k < q; k++) adj[k] += a[k];
  free(r);
  free(a);
  free(iwork);
}

/* in batches of R's size (maxt_batch(): 2^21 / p labellings, 16 MB of
 * statistics, or where they are counted as computed 2^23 / max(p, m) and
 * at most 2^30 / (p m), less the rest of its division by the threads) */
static double job_maxt(void *ctx, int nt)
{
  maxt_job *j = ctx;
  const ptrdiff_t p = j->xt.nr, m = j->xt.nc, B = j->perm.nc, q = j->order.nr;
  const char *split = getenv("HARNESS_MAXT_SPLIT");
  int fused = !split || atoi(split) != 1;
#ifndef BK_MAXT_CHUNK
  fused = 0;
#endif
  ptrdiff_t batch = fused ? ((ptrdiff_t) 1 << 23) / (p > m ? p : m) : ((ptrdiff_t) 1 << 21) / p;
  if (fused && batch > ((ptrdiff_t) 1 << 30) / (p * m)) batch = ((ptrdiff_t) 1 << 30) / (p * m);
  batch = batch < 1 ? 1 : batch > B ? B : batch;
  if (batch > nt) batch -= batch % nt;
  int *o0 = xmalloc(sizeof(int) * (size_t) q);
  for (ptrdiff_t k = 0; k < q; k++) o0[k] = ((int *) j->order.v)[k] - 1;
  int *raw = calloc((size_t) p, sizeof(int)), *adj = calloc((size_t) q + 1, sizeof(int));
  double t0 = now();
  for (ptrdiff_t b0 = 0; b0 < B; b0 += batch)
    maxt_batch(j, (const int *) j->perm.v + m * b0, b0 + batch < B ? batch : B - b0, o0, nt,
               raw, adj);
  double t = now() - t0;
  check(memcmp(raw, j->raw.v, sizeof(int) * (size_t) p) == 0, "maxT raw counts", nt);
  check(memcmp(adj, j->adj.v, sizeof(int) * (size_t) q) == 0, "maxT adjusted counts", nt);
  free(raw);
  free(adj);
  free(o0);
  return t;
}

/* ---- stability selection's fits ---------------------------------------------- */
typedef struct {
  arr xraw, rows, W, rank, ncols;
  sel_setup s;
  int across;
} stab_job;

/* fit k: the half's rows, standardised as R's prepare_problem() does, then
 * BAHSIC on nt threads; 1 if its ranking is R's */
static int stab_fit(stab_job *j, ptrdiff_t k, int nt)
{
  const ptrdiff_t M = j->xraw.nr, d = j->xraw.nc, m = j->rows.nr;
  const int *rows = (const int *) j->rows.v + m * k;
  if (((int *) j->ncols.v)[k] != d) die("stability: a fit on a subset of the genes", NULL);
  double *xh = xmalloc(sizeof(double) * (size_t) (m * d));
  double *xs = xmalloc(sizeof(double) * (size_t) (m * d));
  int *constant = xmalloc(sizeof(int) * (size_t) d);
  const double *X = j->xraw.v;
  for (ptrdiff_t c = 0; c < d; c++)
    for (ptrdiff_t a = 0; a < m; a++) xh[a + m * c] = X[rows[a] + M * c];
  bk_standardize_columns(xh, m, d, xs, constant, nt);
  int *rank = xmalloc(sizeof(int) * (size_t) d);
  double *path = xmalloc(sizeof(double) * (size_t) (4 * (d + 1)));
  run_select_rank(xs, m, d, (const double *) j->W.v + m * m * k, &j->s, j->s.series, nt, rank,
                  path);
  int ok = memcmp(rank, (const int *) j->rank.v + d * k, sizeof(int) * (size_t) d) == 0;
  free(xh);
  free(xs);
  free(constant);
  free(rank);
  free(path);
  return ok;
}

static double job_stab(void *ctx, int nt)
{
  stab_job *j = ctx;
  /* HARNESS_FITS: the first so many fits only (a shorter run) */
  const char *lim = getenv("HARNESS_FITS");
  ptrdiff_t nfit = j->rows.nc;
  if (lim && atol(lim) > 0 && atol(lim) < nfit) nfit = atol(lim);
  int bad = 0;
  double t0 = now();
  if (j->across) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) reduction(+ : bad)
    for (ptrdiff_t k = 0; k < nfit; k++) bad += !stab_fit(j, k, 1);
  } else {
    for (ptrdiff_t k = 0; k < nfit; k++) bad += !stab_fit(j, k, nt);
  }
  double t = now() - t0;
  check(bad == 0, j->across ? "stability fits (across)" : "stability fits (inside)", nt);
  return t;
}

/* ---- the default bahsic(): R's .Call()s replayed from a tape ----------------
 * tools/harness/export.R records every .Call() of bahsic(x, y, threads = 1)
 * with its defaults (the nonlinear screen, then BAHSIC on the seeds and on
 * the others) as a tape: per call the routine, its arguments as value ids
 * (a file, an earlier value, or some of an earlier value's columns) and a
 * checksum of each result. The replay runs each routine's core as its glue
 * does, on nt threads where the glue takes R's thread count, and checks each
 * result's size and checksum against R's. Timed: the routines alone (what
 * R does between them -- the adjustments, which genes pass, x[, idx] -- is
 * R's part, not the C core's). */
#define TAPE_ARGS 24
#define TAPE_OUTS 6
#define TAPE_VALUES 512
typedef struct {
  int pos, id;
  char name[32];
  int sub_of;  /* > 0: the columns idx of value sub_of */
  arr idx;
} tape_arg;
typedef struct {
  char name[32];
  int id, type; /* id 0: NULL */
  ptrdiff_t nr, nc;
  double a, b;
} tape_out;
typedef struct {
  char routine[48];
  int nargs, nouts;
  tape_arg args[TAPE_ARGS];
  tape_out outs[TAPE_OUTS];
} tape_call;
typedef struct {
  const char *sub;
  int ncalls;
  tape_call *calls;
  arr lit[TAPE_VALUES]; /* the files' values, by id */
  arr val[TAPE_VALUES]; /* this run's values, by id (lit or made) */
  int owned[TAPE_VALUES];
} tape;

/* R's NA_real_ (a NaN with low word 1954) */
static double na_real(void)
{
  const uint64_t bits = 0x7FF00000000007A2ULL;
  double v;
  memcpy(&v, &bits, sizeof v);
  return v;
}
static int is_na_real(double v)
{
  uint64_t bits;
  memcpy(&bits, &v, sizeof v);
  return isnan(v) && (uint32_t) bits == 1954;
}

/* the checksum of export.R (checksum()): the sum of the 16-bit words and
 * their sum weighted by position modulo 4096 */
static void tape_checksum(const arr *a, double *s1, double *s2)
{
  const size_t n = (size_t) (a->nr * a->nc) * (a->type == 1 ? 4 : 8) / 2;
  const unsigned char *b = a->v;
  uint64_t x = 0, y = 0;
  for (size_t k = 0; k < n; k++) {
    const uint64_t u = (uint64_t) b[2 * k] | (uint64_t) b[2 * k + 1] << 8;
    x += u;
    y += u * (k % 4096);
  }
  *s1 = (double) x;
  *s2 = (double) y;
}

static tape load_tape(const char *sub)
{
  tape t;
  memset(&t, 0, sizeof t);
  t.sub = sub;
  char path[4096], w[64], kind[16];
  snprintf(path, sizeof path, "%s/%s/tape.txt", dir, sub);
  FILE *f = fopen(path, "r");
  if (!f) die("cannot open ", path);
  if (fscanf(f, "tape %d", &t.ncalls) != 1 || t.ncalls < 1) die("bad tape ", path);
  t.calls = calloc((size_t) t.ncalls, sizeof(tape_call));
  int c = -1;
  while (fscanf(f, "%63s", w) == 1) {
    if (strcmp(w, "call") == 0) {
      if (++c >= t.ncalls) die("too many calls in ", path);
      if (fscanf(f, "%47s %*d", t.calls[c].routine) != 1) die("bad call in ", path);
    } else if (strcmp(w, "arg") == 0 && c >= 0) {
      tape_call *tc = &t.calls[c];
      if (tc->nargs == TAPE_ARGS) die("too many arguments in ", path);
      tape_arg *a = &tc->args[tc->nargs++];
      if (fscanf(f, "%d %31s %d %15s", &a->pos, a->name, &a->id, kind) != 4 ||
          a->id < 0 || a->id >= TAPE_VALUES)
        die("bad argument in ", path);
      if (strcmp(kind, "lit") == 0 || strcmp(kind, "sub") == 0) {
        char file[1024];
        if (kind[0] == 's' && fscanf(f, "%d", &a->sub_of) != 1) die("bad sub in ", path);
        if (fscanf(f, "%1023s", file) != 1) die("bad file in ", path);
        arr v = load(sub, file);
        if (kind[0] == 's')
          a->idx = v;
        else
          t.lit[a->id] = v;
      } else if (strcmp(kind, "null") != 0 && strcmp(kind, "ref") != 0) {
        die("unknown argument kind in ", path);
      }
    } else if (strcmp(w, "out") == 0 && c >= 0) {
      tape_call *tc = &t.calls[c];
      if (tc->nouts == TAPE_OUTS) die("too many results in ", path);
      tape_out *o = &tc->outs[tc->nouts++];
      if (fscanf(f, "%31s %d", o->name, &o->id) != 2 || o->id < 0 || o->id >= TAPE_VALUES)
        die("bad result in ", path);
      if (o->id == 0) {
        if (fscanf(f, " null") != 0) die("bad null in ", path);
      } else if (fscanf(f, "%d %td %td %lf %lf", &o->type, &o->nr, &o->nc, &o->a, &o->b) != 5) {
        die("bad result in ", path);
      }
    } else {
      die("bad tape line in ", path);
    }
  }
  fclose(f);
  if (c != t.ncalls - 1) die("short tape ", path);
  return t;
}

/* argument (pos, name) of a call: its value (NULL if absent or NULL) */
static const arr *targ(tape *t, const tape_call *c, int pos, const char *name)
{
  for (int k = 0; k < c->nargs; k++) {
    const tape_arg *a = &c->args[k];
    if (a->pos == pos && strcmp(a->name, name) == 0)
      return a->id > 0 && t->val[a->id].v ? &t->val[a->id] : NULL;
  }
  return NULL;
}
static const arr *targ_need(tape *t, const tape_call *c, int pos, const char *name)
{
  const arr *a = targ(t, c, pos, name);
  if (!a) die("a tape argument is missing: ", name);
  return a;
}
static double targ_real(tape *t, const tape_call *c, int pos, const char *name)
{
  const arr *a = targ_need(t, c, pos, name);
  return a->type == 1 ? (double) ((int *) a->v)[0] : ((double *) a->v)[0];
}
static const double *targ_doubles(tape *t, const tape_call *c, int pos, const char *name)
{
  const arr *a = targ_need(t, c, pos, name);
  if (a->type != 2) die("a tape argument is not double: ", name);
  return a->v;
}

/* a result's memory as R's allocVector() takes it for the glue: malloc() */
static arr new_arr(int type, ptrdiff_t nr, ptrdiff_t nc)
{
  arr a = {type, nr, nc, NULL};
  a.v = xmalloc((size_t) (nr * nc) * (type == 2 ? sizeof(double) : sizeof(int)));
  return a;
}

/* 64-byte aligned floats (as the glue's alloc_floats()) */
static float *floats64(size_t n)
{
  void *p = NULL;
  if (posix_memalign(&p, 64, (n ? n : 1) * sizeof(float)) != 0) die("out of memory", NULL);
  return p;
}

/* Each routine's core as its glue (src/*_call.c) runs it; out[k] as the
 * glue's k-th result (type 0: NULL). */
static void ex_first_nonfinite(tape *t, const tape_call *c, int nt, arr *out)
{
  (void) nt;
  const arr *x = targ_need(t, c, 1, "-");
  double mx = na_real();
  ptrdiff_t i = bk_first_nonfinite(x->v, x->nr * x->nc, &mx);
  out[0] = new_arr(2, 2, 1);
  ((double *) out[0].v)[0] = (double) (i + 1);
  ((double *) out[0].v)[1] = mx;
}
static void ex_constant_columns(tape *t, const tape_call *c, int nt, arr *out)
{
  (void) nt;
  const arr *x = targ_need(t, c, 1, "-");
  out[0] = new_arr(1, x->nc, 1);
  bk_constant_columns(x->v, x->nr, x->nc, out[0].v);
}
static void ex_standardize_columns(tape *t, const tape_call *c, int nt, arr *out)
{
  const arr *x = targ_need(t, c, 1, "-");
  out[0] = new_arr(2, x->nr, x->nc);
  out[1] = new_arr(1, x->nc, 1);
  bk_standardize_columns(x->v, x->nr, x->nc, out[0].v, out[1].v, nt);
}
static void ex_scale_columns(tape *t, const tape_call *c, int nt, arr *out)
{
  const arr *x = targ_need(t, c, 1, "-");
  out[0] = new_arr(2, x->nr, x->nc);
  bk_scale_columns(x->v, x->nr, x->nc, out[0].v, nt);
}
static void ex_median_columns(tape *t, const tape_call *c, int nt, arr *out)
{
  const arr *x = targ_need(t, c, 1, "-");
  const ptrdiff_t m = x->nr, d = x->nc;
  out[0] = new_arr(2, d, 1);
  if (m < 2) {
    for (ptrdiff_t j = 0; j < d; j++) ((double *) out[0].v)[j] = na_real();
    return;
  }
  double *work = xmalloc(sizeof(double) * (size_t) (BK_MEDIAN_COLUMNS_WORK(m) * nt));
  bk_median_columns(x->v, m, d, (int) targ_real(t, c, 2, "-"), out[0].v, work, nt, NULL);
  free(work);
}
static void ex_feature_hsic_test(tape *t, const tape_call *c, int nt, arr *out)
{
  const arr *x = targ_need(t, c, 1, "-"), *p1 = targ_need(t, c, 2, "p1");
  const ptrdiff_t m = x->nr, d = x->nc;
  if (targ(t, c, 2, "perms")) die("the harness replays the tests without permutations", NULL);
  bk_kernel k = {(int) targ_real(t, c, 2, "kernel"), ((double *) p1->v)[0],
                 targ_real(t, c, 2, "p2")};
  const arr *W = targ(t, c, 2, "W");
  bk_test_label lab = {.Lc = targ_doubles(t, c, 2, "Lc"), .tb = targ_real(t, c, 2, "tb"),
                       .ub = targ_real(t, c, 2, "ub"), .wb = targ_real(t, c, 2, "wb"),
                       .W = W ? W->v : NULL};
  const ptrdiff_t nw = lab.W != NULL;
  double *work = xmalloc(sizeof(double) * (size_t) (BK_FEATURE_TEST_WORK(m, nt, nw) + 1));
  out[0] = new_arr(2, d, 1);
  out[1] = new_arr(2, d, 1);
  if (lab.W) out[3] = new_arr(2, d, 1);
  bk_feature_hsic_test(x->v, m, d, k, p1->nr * p1->nc == d ? p1->v : NULL, &lab, out[0].v,
                       out[1].v, NULL, lab.W ? out[3].v : NULL, work,
                       (int) targ_real(t, c, 2, "simd"), nt, NULL);
  free(work);
}
/* pgamma(z, shape, lower.tail = FALSE): Rmath's, as stats::pgamma() and
 * C_gamma_upper_tail (serial) */
static void ex_gamma_upper_tail(tape *t, const tape_call *c, int nt, arr *out)
{
  (void) nt;
  const arr *z = targ_need(t, c, 1, "-"), *sh = targ_need(t, c, 2, "-");
  const ptrdiff_t n = z->nr * z->nc;
  const double *zz = z->v, *s = sh->v;
  out[0] = new_arr(2, n, 1);
  double *p = out[0].v;
  for (ptrdiff_t i = 0; i < n; i++)
    p[i] = isnan(s[i]) || is_na_real(zz[i]) ? na_real()
           : isnan(zz[i])                   ? NAN
                                            : pgamma(zz[i], s[i], 1.0, 0, 0);
}
static void ex_project_out(tape *t, const tape_call *c, int nt, arr *out)
{
  const arr *v = targ_need(t, c, 1, "-"), *Q = targ_need(t, c, 2, "-");
  const ptrdiff_t m = v->nr, d = v->nc, r = Q->nc;
  double *cw = xmalloc(sizeof(double) * (size_t) (r * d > 0 ? r * d : 1));
  unsigned char *wide = xmalloc((size_t) (d > 0 ? d : 1));
  out[0] = new_arr(2, m, d);
  if (bk_project_out(v->v, m, d, Q->v, r, (int) targ_real(t, c, 3, "-"), cw, wide, out[0].v,
                     nt)) {
    free(out[0].v);
    out[0] = (arr){0, 0, 0, NULL};
  }
  free(cw);
  free(wide);
}
static void ex_column_products(tape *t, const tape_call *c, int nt, arr *out)
{
  const arr *x = targ_need(t, c, 1, "-"), *i = targ_need(t, c, 2, "-"),
            *j = targ_need(t, c, 3, "-");
  const ptrdiff_t n = i->nr * i->nc;
  int *i0 = xmalloc(sizeof(int) * (size_t) (n + 1)), *j0 = xmalloc(sizeof(int) * (size_t) (n + 1));
  for (ptrdiff_t k = 0; k < n; k++) {
    i0[k] = ((int *) i->v)[k] - 1;
    j0[k] = ((int *) j->v)[k] - 1;
  }
  out[0] = new_arr(2, x->nr, n);
  bk_column_products(x->v, x->nr, i0, j0, n, out[0].v, nt);
  free(i0);
  free(j0);
}
static void ex_pair_top_lowrank(tape *t, const tape_call *c, int nt, arr *out)
{
  const arr *x = targ_need(t, c, 1, "-"), *U = targ_need(t, c, 2, "-");
  const ptrdiff_t m = x->nr, p = x->nc, r = U->nc;
  const ptrdiff_t k = bk_pairs_wanted(p, (ptrdiff_t) targ_real(t, c, 3, "k"));
  const ptrdiff_t ld = bk_pair_ld(m);
  float *X = floats64((size_t) (ld * bk_pair_cols(p))), *Uf = floats64((size_t) (ld * r));
  double *cd = xmalloc(sizeof(double) * (size_t) (r + 1));
  float *cf = xmalloc(sizeof(float) * (size_t) (r + 1));
  double *div = NULL;
  if (targ_real(t, c, 3, "scale") != 0) {
    div = xmalloc(sizeof(double) * (size_t) (p + 1));
    bk_pair_scale_divisors(x->v, m, p, div, nt);
  }
  bk_pair_pack(x->v, m, p, div, X, ld, nt);
  free(div);
  const int e = bk_pair_lowrank_weights(U->v, m, r, targ_doubles(t, c, 3, "c"), ld, Uf, cd, cf);
  const size_t n1 = (size_t) (k > 0 ? k : 1);
  bk_pair_list pl = {k, xmalloc(n1 * sizeof(int)), xmalloc(n1 * sizeof(int)),
                     xmalloc(n1 * sizeof(float))};
  void *work = xmalloc(bk_pair_top_work(ld, r, k, nt));
  bk_pair_exec ex = {nt, (int) targ_real(t, c, 3, "simd"), work, NULL};
  const ptrdiff_t n = k > 0 ? bk_pair_top_lowrank(X, ld, p, Uf, r, cf, &pl, &ex) : 0;
  out[0] = new_arr(1, n, 1);
  out[1] = new_arr(1, n, 1);
  out[2] = new_arr(2, n, 1);
  const double sc = e == BK_NO_EXPONENT ? 1.0 : ldexp(1.0, e);
  for (ptrdiff_t q = 0; q < n; q++) {
    ((int *) out[0].v)[q] = pl.i[q] + 1;
    ((int *) out[1].v)[q] = pl.j[q] + 1;
    ((double *) out[2].v)[q] = sc * (double) pl.s[q];
  }
  free(X);
  free(Uf);
  free(cd);
  free(cf);
  free(pl.i);
  free(pl.j);
  free(pl.s);
  free(work);
}
/* C_select in the exact mode (BAHSIC or FOHSIC, the series screen as R asks) */
static void ex_select(tape *t, const tape_call *c, int nt, arr *out)
{
  const arr *x = targ_need(t, c, 1, "-"), *grid = targ_need(t, c, 2, "grid");
  const ptrdiff_t m = x->nr, d = x->nc;
  if ((int) targ_real(t, c, 2, "mode") != BK_MODE_EXACT)
    die("the harness replays C_select in the exact mode only", NULL);
  sel_setup s;
  memset(&s, 0, sizeof s);
  s.o.kern = (bk_kernel){(int) targ_real(t, c, 2, "kernel"), targ_real(t, c, 2, "p1"),
                         targ_real(t, c, 2, "p2")};
  s.o.direction = (int) targ_real(t, c, 2, "direction");
  s.o.policy = (int) targ_real(t, c, 2, "policy");
  s.o.ngrid = grid->nr * grid->nc;
  if (s.o.ngrid > 64) die("a grid of more than 64 widths", NULL);
  memcpy(s.grid, grid->v, sizeof(double) * (size_t) s.o.ngrid);
  s.o.grid = s.grid;
  s.o.grid_relative = (int) targ_real(t, c, 2, "grid_relative");
  s.o.step = targ_real(t, c, 2, "step");
  s.o.n_target = (ptrdiff_t) targ_real(t, c, 2, "n_target");
  s.o.simd = (int) targ_real(t, c, 2, "simd");
  s.series = (int) targ_real(t, c, 2, "series");
  double *base = xmalloc(sizeof(double) * (size_t) (d + 1));
  for (ptrdiff_t i = 0; i <= d; i++) base[i] = na_real();
  if (s.o.direction == BK_FORWARD) s.o.base = base;
  double *path = xmalloc(sizeof(double) * (size_t) (4 * (d + 1)));
  out[0] = new_arr(1, d, 1);
  out[1] = new_arr(2, d, 1);
  out[2] = new_arr(1, d, 1);
  const bk_select_out so = {out[0].v, out[2].v, out[1].v, path};
  const ptrdiff_t np = run_select(x->v, m, d, targ_doubles(t, c, 2, "W"), &s, s.series, nt,
                                  &so);
  out[3] = new_arr(2, np, 4);
  for (ptrdiff_t r = 0; r < np; r++)
    for (int q = 0; q < 4; q++) ((double *) out[3].v)[r + np * q] = path[4 * r + q];
  out[4] = new_arr(2, np, 1);
  memcpy(out[4].v, base, sizeof(double) * (size_t) np);
  free(base);
  free(path);
}

static const struct {
  const char *routine;
  void (*run)(tape *, const tape_call *, int, arr *);
} tape_routines[] = {
    {"C_first_nonfinite", ex_first_nonfinite},
    {"C_constant_columns", ex_constant_columns},
    {"C_standardize_columns", ex_standardize_columns},
    {"C_scale_columns", ex_scale_columns},
    {"C_median_columns", ex_median_columns},
    {"C_feature_hsic_test", ex_feature_hsic_test},
    {"C_gamma_upper_tail", ex_gamma_upper_tail},
    {"C_project_out", ex_project_out},
    {"C_column_products", ex_column_products},
    {"C_pair_top_lowrank", ex_pair_top_lowrank},
    {"C_select", ex_select},
};
#define TAPE_NROUTINES (sizeof tape_routines / sizeof tape_routines[0])
/* the seconds of each routine in the last replay, and in the last replay
 * at each thread count of the row (HARNESS_ROUTINES=1 prints them) */
static double tape_seconds[TAPE_NROUTINES];
static double tape_by[64][TAPE_NROUTINES];
static int tape_threads[64], tape_nby = 0;

static int tape_routine(const char *name)
{
  for (size_t r = 0; r < TAPE_NROUTINES; r++)
    if (strcmp(tape_routines[r].routine, name) == 0) return (int) r;
  die("the harness cannot replay ", name);
  return -1;
}

/* the value of a `sub` argument: columns idx (1-based) of value sub_of */
static arr tape_columns(const arr *src, const arr *idx)
{
  const ptrdiff_t n = idx->nr * idx->nc, m = src->nr;
  const size_t w = src->type == 1 ? sizeof(int) : sizeof(double);
  arr a = {src->type, m, n, xmalloc(w * (size_t) (m * n + 1))};
  for (ptrdiff_t k = 0; k < n; k++)
    memcpy((char *) a.v + w * (size_t) (m * k),
           (const char *) src->v + w * (size_t) (m * (((int *) idx->v)[k] - 1)), w * (size_t) m);
  return a;
}

static double job_tape(void *ctx, int nt)
{
  tape *t = ctx;
  for (int i = 0; i < TAPE_VALUES; i++) {
    t->val[i] = t->lit[i];
    t->owned[i] = 0;
  }
  memset(tape_seconds, 0, sizeof tape_seconds);
  double total = 0;
  for (int k = 0; k < t->ncalls; k++) {
    const tape_call *c = &t->calls[k];
    for (int a = 0; a < c->nargs; a++) {
      const tape_arg *g = &c->args[a];
      if (g->sub_of <= 0) continue;
      if (!t->val[g->sub_of].v) die("a column subset of a value not made", NULL);
      t->val[g->id] = tape_columns(&t->val[g->sub_of], &g->idx);
      t->owned[g->id] = 1;
    }
    const int r = tape_routine(c->routine);
    arr out[TAPE_OUTS];
    memset(out, 0, sizeof out);
    double t0 = now();
    tape_routines[r].run(t, c, nt, out);
    double dt = now() - t0;
    total += dt;
    tape_seconds[r] += dt;
    for (int q = 0; q < c->nouts; q++) {
      const tape_out *o = &c->outs[q];
      char what[128];
      snprintf(what, sizeof what, "%s (call %d) result %s", c->routine, k + 1, o->name);
      if (o->id == 0) {
        check(out[q].v == NULL, what, nt);
        continue;
      }
      double s1 = -1, s2 = -1;
      if (out[q].v && out[q].type == o->type && out[q].nr * out[q].nc == o->nr * o->nc)
        tape_checksum(&out[q], &s1, &s2);
      check(s1 == o->a && s2 == o->b, what, nt);
      if (out[q].v) {
        out[q].nr = o->nr;
        out[q].nc = o->nc;
      }
      t->val[o->id] = out[q];
      t->owned[o->id] = 1;
      out[q].v = NULL;
    }
    for (int q = 0; q < TAPE_OUTS; q++) free(out[q].v);
  }
  for (int i = 0; i < TAPE_VALUES; i++)
    if (t->owned[i]) free(t->val[i].v);
  int slot = 0;
  while (slot < tape_nby && tape_threads[slot] != nt) slot++;
  if (slot < 64) {
    tape_threads[slot] = nt;
    memcpy(tape_by[slot], tape_seconds, sizeof tape_seconds);
    if (slot == tape_nby) tape_nby++;
  }
  return total;
}

/* after a replay's row (HARNESS_ROUTINES=1): each routine's seconds in the
 * last replay at each thread count */
static void print_tape_routines(void)
{
  if (!getenv("HARNESS_ROUTINES") || atoi(getenv("HARNESS_ROUTINES")) != 1) return;
  for (size_t r = 0; r < TAPE_NROUTINES; r++) {
    int any = 0;
    for (int k = 0; k < tape_nby; k++) any |= tape_by[k][r] > 0;
    if (!any) continue;
    printf("  %-22s", tape_routines[r].routine);
    for (int k = 0; k < tape_nby; k++) printf("  %2d: %8.4f s", tape_threads[k], tape_by[k][r]);
    printf("\n");
  }
  tape_nby = 0;
}

/* ---- the table --------------------------------------------------------------- */
static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* the speed-ups at the largest thread count, and the smallest over the
 * counts, per workload (for the targets) */
typedef struct {
  const char *name;
  double top, worst;
} speedup;
static speedup speedups[16];
static int nspeedups = 0;

static void run_job(const char *name, double (*f)(void *, int), void *ctx, const int *threads,
                    int nthr, int reps)
{
  double base = NAN, worst = INFINITY, top = NAN;
  printf("%-14s", name);
  fflush(stdout);
  for (int i = 0; i < nthr; i++) {
    double t[64];
    for (int r = 0; r < reps; r++) t[r] = f(ctx, threads[i]);
    qsort(t, (size_t) reps, sizeof(double), cmp_double);
    double med = t[reps / 2];
    if (i == 0) base = med;
    printf("  %2d: %8.4f s %5.2fx", threads[i], med, base / med);
    fflush(stdout);
    if (i > 0 && base / med < worst) worst = base / med;
    top = base / med;
  }
  printf("\n");
  if (nspeedups < 16) speedups[nspeedups++] = (speedup){name, top, worst};
}

static const speedup *find_speedup(const char *name)
{
  for (int i = 0; i < nspeedups; i++)
    if (strcmp(speedups[i].name, name) == 0) return &speedups[i];
  return NULL;
}

/* The targets at 16 threads or more: each workload's speed-up over one
 * thread, and none slower than one thread at any count. */
static void print_targets(int maxthreads)
{
  if (maxthreads < 16) {
    printf("targets: need a run with 16 threads on a 16-core machine (largest here %d)\n",
           maxthreads);
    return;
  }
  static const struct {
    const char *name, *alt;
    double goal;
  } goals[] = {{"default_all", NULL, 8},
               {"default_golub", NULL, 3},
               {"hsic", NULL, 8},
               {"maxt", NULL, 12},
               {"stab_across", "stab_inside", 10}};
  for (size_t g = 0; g < sizeof goals / sizeof goals[0]; g++) {
    const speedup *a = find_speedup(goals[g].name),
                  *b = goals[g].alt ? find_speedup(goals[g].alt) : NULL;
    if (!a && !b) continue;
    const speedup *best = !a ? b : (!b || a->top >= b->top ? a : b);
    printf("target %-12s >= %4.1fx at %d threads: %5.2fx (%s) %s\n", goals[g].name,
           goals[g].goal, maxthreads, best->top, best->name,
           best->top >= goals[g].goal ? "met" : "NOT MET");
  }
  for (int i = 0; i < nspeedups; i++)
    printf("target %-12s no thread count slower than 1: smallest %5.2fx %s\n",
           speedups[i].name, speedups[i].worst, speedups[i].worst >= 1 ? "met" : "NOT MET");
}

static int wanted(const char *list, const char *name)
{
  if (!list) return 1;
  size_t n = strlen(name);
  for (const char *s = list; (s = strstr(s, name)); s += n)
    if ((s == list || s[-1] == ',') && (s[n] == ',' || s[n] == 0)) return 1;
  return 0;
}

int main(int argc, char **argv)
{
  if (argc < 2) die("usage: harness DIR [threads 1,2,4] [reps] [workloads]", NULL);
  dir = argv[1];
  int threads[64], nthr = 0;
  const char *tl = argc > 2 ? argv[2] : "1,2";
  for (const char *s = tl; *s && nthr < 64;) {
    threads[nthr++] = atoi(s);
    s = strchr(s, ',');
    if (!s) break;
    s++;
  }
  int reps = argc > 3 ? atoi(argv[3]) : 3;
  if (reps < 1 || reps > 64) die("reps must be 1..64", NULL);
  const char *only = argc > 4 ? argv[4] : NULL;
  printf("median of %d runs; wall seconds and speed-up over %d thread(s)\n", reps,
         threads[0]);

  if (wanted(only, "bahsic_all") || wanted(only, "bahsic_exact")) {
    bahsic_job j = {.sub = "bahsic_all"};
    j.x = load_standardized("bahsic_all");
    j.W = load("bahsic_all", "W");
    j.s = read_select("bahsic_all");
    if (wanted(only, "bahsic_all")) {
      j.rank = load("bahsic_all", "rank");
      j.path = load("bahsic_all", "path");
      j.series = j.s.series;
      run_job("bahsic_all", job_bahsic, &j, threads, nthr, reps);
    }
    if (wanted(only, "bahsic_exact")) {
      j.rank = load("bahsic_all", "rank_exact");
      j.path = load("bahsic_all", "path_exact");
      j.series = 0;
      run_job("bahsic_exact", job_bahsic, &j, threads, nthr, reps);
    }
  }
  if (wanted(only, "bahsic_golub")) {
    bahsic_job j = {.sub = "bahsic_golub"};
    j.x = load_standardized("bahsic_golub");
    j.W = load("bahsic_golub", "W");
    j.s = read_select("bahsic_golub");
    j.rank = load("bahsic_golub", "rank");
    j.path = load("bahsic_golub", "path");
    j.series = j.s.series;
    run_job("bahsic_golub", job_bahsic, &j, threads, nthr, reps);
  }
  if (wanted(only, "default_all")) {
    tape t = load_tape("default_all");
    run_job("default_all", job_tape, &t, threads, nthr, reps);
    print_tape_routines();
  }
  if (wanted(only, "default_golub")) {
    tape t = load_tape("default_golub");
    run_job("default_golub", job_tape, &t, threads, nthr, reps);
    print_tape_routines();
  }
  if (wanted(only, "hsic")) {
    hsic_job j = {.z1 = load("hsic", "z1"), .z2 = load("hsic", "z2"),
                  .rows = load("hsic", "median_rows")};
    j.kernel = (int) opt1("hsic", "kernel");
    j.sigma1 = opt1("hsic", "sigma1");
    j.sigma2 = opt1("hsic", "sigma2");
    j.estimate = opt1("hsic", "estimate");
    run_job("hsic", job_hsic, &j, threads, nthr, reps);
  }
  if (wanted(only, "maxt")) {
    maxt_job j = {load("maxt", "xt"), load("maxt", "cls"), load("maxt", "perm"),
                  load("maxt", "order"), load("maxt", "thr"), load("maxt", "raw"),
                  load("maxt", "adj")};
    run_job("maxt", job_maxt, &j, threads, nthr, reps);
  }
  if (wanted(only, "stab_inside") || wanted(only, "stab_across")) {
    stab_job j = {.xraw = load("stability", "xraw"), .rows = load("stability", "rows"),
                  .W = load("stability", "W"), .rank = load("stability", "rank"),
                  .ncols = load("stability", "ncols")};
    j.s = read_select("stability");
    if (wanted(only, "stab_inside")) {
      j.across = 0;
      run_job("stab_inside", job_stab, &j, threads, nthr, reps);
    }
    if (wanted(only, "stab_across")) {
      j.across = 1;
      run_job("stab_across", job_stab, &j, threads, nthr, reps);
    }
  }
  int maxthreads = 0;
  for (int i = 0; i < nthr; i++)
    if (threads[i] > maxthreads) maxthreads = threads[i];
  print_targets(maxthreads);
  if (failures) {
    printf("FAILED: %d results differ from R's\n", failures);
    return 1;
  }
  printf("every ranking and statistic identical to R's at every thread count\n");
  return 0;
}
