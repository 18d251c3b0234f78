/* randsel_call.c: SEXP glue for randsel.c. The seeds of the bootstraps
 * come from R's RNG, on the main thread, before any thread starts. */
#include <R_ext/Random.h>
#include <limits.h>
#include <string.h>
#include "glue.h"
#include "randsel.h"

#define RS_CHUNK 256

/* nb seeds of 64 bits, two draws of R's RNG each (unif_rand() has 32 bits
 * of resolution for the default Mersenne-Twister). */
static void draw_seeds(ptrdiff_t nb, uint64_t *seeds)
{
  GetRNGstate();
  for (ptrdiff_t b = 0; b < nb; b++) {
    const uint64_t hi = (uint64_t) (unif_rand() * 4294967296.0);
    const uint64_t lo = (uint64_t) (unif_rand() * 4294967296.0);
    seeds[b] = (hi << 32) ^ lo;
  }
  PutRNGstate();
}

static ptrdiff_t whole_arg(SEXP v, const char *what, double lo, double hi)
{
  if (XLENGTH(v) != 1) Rf_error("'%s' must be a single number", what);
  const double d = Rf_asReal(v);
  if (!(d >= lo && d <= hi) || d != floor(d))
    Rf_error("'%s' must be a whole number in %.0f..%.0f", what, lo, hi);
  return (ptrdiff_t) d;
}

/* The arguments of one iteration, checked and unpacked. x: m x d double
 * matrix (samples x features); cols: the 0-based columns in play, the n_fixed
 * fixed features first, then the n free ones. opts: a named list read by
 * name (glue.h; the caller ends with bk_opts_done, after reading its own
 * options):
 *   L or Y     the label kernel: m x m, or an m x c factor (bk_opt_label)
 *   kernel, p1, p2   the kernel's code (BK_KSET_RANDSEL) and parameters
 *   n_fixed    how many of cols are fixed features
 *   subsample  s, the samples of each bootstrap
 *   threads, simd    as bk_randsel_opts (randsel.h)
 * The number of bootstraps, it.nb, is the caller's to set. Per bootstrap: s
 * samples of m, then h + 1 free features of n, h = floor(n / 2)
 * (bk_randsel_draw). The columns in play are copied into xb, in blocks of 64
 * (bk_randsel_block_columns). */
typedef struct {
  ptrdiff_t m, nf, n, nb;
  bk_label lab;
  bk_randsel_opts o;
  double *xb;
} rs_iter;

static rs_iter rs_setup(SEXP x, SEXP cols, bk_opts *op)
{
  rs_iter it;
  bk_need_double_matrix(x, "x");
  if (!Rf_isInteger(cols)) Rf_error("'cols' must be an integer vector");
  const ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x), p = XLENGTH(cols);
  if (m > INT_MAX || p > INT_MAX) Rf_error("too many samples or features");
  const int *cl = INTEGER(cols);
  for (ptrdiff_t j = 0; j < p; j++)
    if (cl[j] < 0 || cl[j] >= d) Rf_error("'cols' must be in 0..%td", d - 1);
  it.m = m;
  it.o.kern.type = bk_opt_int(op, "kernel", -INT_MAX, INT_MAX);
  if (!bk_kernel_in(it.o.kern.type, BK_KSET_RANDSEL))
    Rf_error("unsupported kernel code %d", it.o.kern.type);
  it.o.kern.p1 = bk_opt_real(op, "p1");
  it.o.kern.p2 = bk_opt_real(op, "p2");
  it.nf = bk_opt_int(op, "n_fixed", 0, (int) p);
  it.n = p - it.nf;
  if (it.n < 1) Rf_error("no free feature");
  it.o.s = bk_opt_int(op, "subsample", 2, INT_MAX);
  if (it.o.s > m)
    Rf_error("%s: option 'subsample' must be at most nrow(x), %td", op->entry, m);
  it.o.h = it.n / 2;
  it.o.nthreads = bk_opt_threads(op);
  it.o.simd = bk_opt_flag(op, "simd");
  it.lab = bk_opt_label(op, m);
  it.nb = 0;
  it.xb = (double *) R_alloc((size_t) bk_randsel_blocked_doubles(m, p),
                             sizeof(double));
  bk_randsel_block_columns(REAL(x), m, cl, p, it.xb);
  return it;
}

/* The per-feature sums of the contributions (bk_randsel_accumulate). */
typedef struct {
  double *sum_plus, *sum_half, total_half;
  int *n_plus, *n_half;
} rs_sums;

static rs_sums rs_sums_new(ptrdiff_t n)
{
  rs_sums z;
  z.sum_plus = (double *) R_alloc((size_t) n, sizeof(double));
  z.sum_half = (double *) R_alloc((size_t) n, sizeof(double));
  z.n_plus = (int *) R_alloc((size_t) n, sizeof(int));
  z.n_half = (int *) R_alloc((size_t) n, sizeof(int));
  memset(z.sum_plus, 0, (size_t) n * sizeof(double));
  memset(z.sum_half, 0, (size_t) n * sizeof(double));
  memset(z.n_plus, 0, (size_t) n * sizeof(int));
  memset(z.n_half, 0, (size_t) n * sizeof(int));
  z.total_half = 0.0;
  return z;
}

/* The alignments of the it.nb bootstraps of seeds into a_half, a_plus, in
 * chunks of RS_CHUNK; with sums, their contributions are added too, in
 * bootstrap order. */
static void rs_align(const rs_iter *it, const uint64_t *seeds, double *a_half,
                     double *a_plus, rs_sums *sums)
{
  const ptrdiff_t nb = it->nb, s = it->o.s, h = it->o.h,
                  p = it->nf + it->n;
  const ptrdiff_t chunk = nb < RS_CHUNK ? nb : RS_CHUNK;
  int *samp = (int *) R_alloc((size_t) (s * chunk), sizeof(int));
  int *feat = (int *) R_alloc((size_t) ((h + 1) * chunk), sizeof(int));
  double *work = (double *) R_alloc(
      (size_t) (it->o.nthreads * bk_randsel_work_doubles(s, p)),
      sizeof(double));
  int *iwork = (int *) R_alloc(
      (size_t) (it->o.nthreads * bk_randsel_work_ints(s, it->m, p)),
      sizeof(int));
  for (ptrdiff_t b0 = 0; b0 < nb; b0 += chunk) {
    const ptrdiff_t k = nb - b0 < chunk ? nb - b0 : chunk;
    bk_randsel_align(it->xb, it->m, it->nf, it->n, it->lab, &it->o, k,
                     seeds + b0, samp, feat, a_half + b0, a_plus + b0, work,
                     iwork);
    if (sums)
      bk_randsel_accumulate(h, k, feat, a_half + b0, a_plus + b0,
                            sums->sum_plus, sums->n_plus, sums->sum_half,
                            sums->n_half, &sums->total_half);
    bk_check_limits();
  }
}

/* One iteration of randSel (arguments: rs_setup; opts has n_boot, the
 * number of bootstraps, too). Returns list(contribution (n), a_half
 * (n_boot), a_plus (n_boot)). */
SEXP C_randsel_iter(SEXP x, SEXP cols, SEXP opts)
{
  bk_opts op;
  bk_opts_open(&op, opts, "C_randsel_iter");
  rs_iter it = rs_setup(x, cols, &op);
  it.nb = bk_opt_int(&op, "n_boot", 1, 1000000000);
  bk_opts_done(&op);
  uint64_t *seeds = (uint64_t *) R_alloc((size_t) it.nb, sizeof(uint64_t));
  draw_seeds(it.nb, seeds);
  rs_sums sums = rs_sums_new(it.n);
  SEXP contrib = PROTECT(Rf_allocVector(REALSXP, it.n));
  SEXP a_half = PROTECT(Rf_allocVector(REALSXP, it.nb));
  SEXP a_plus = PROTECT(Rf_allocVector(REALSXP, it.nb));
  rs_align(&it, seeds, REAL(a_half), REAL(a_plus), &sums);
  bk_randsel_contrib(it.n, it.nb, sums.sum_plus, sums.n_plus, sums.sum_half,
                     sums.n_half, sums.total_half, REAL(contrib));
  const char *names[] = {"contribution", "a_half", "a_plus", ""};
  SEXP out = bk_named_list(names, (SEXP[]){contrib, a_half, a_plus});
  UNPROTECT(3);
  return out;
}

/* C_randsel_iter in three steps, for the parallel back ends: the seeds on
 * the main process (C_randsel_seeds), the alignments of chunks of them
 * anywhere (C_randsel_align), their contributions on the main process
 * again (C_randsel_contrib), which re-draws each bootstrap's features from
 * its seed and adds in bootstrap order: the same numbers as C_randsel_iter
 * to the last bit, however the bootstraps were split. Seeds travel as a
 * 2 x n_boot double matrix of their high and low 32 bits (exact in a
 * double). */
SEXP C_randsel_seeds(SEXP n_boot)
{
  const ptrdiff_t nb = whole_arg(n_boot, "n_boot", 1, 1e9);
  uint64_t *seeds = (uint64_t *) R_alloc((size_t) nb, sizeof(uint64_t));
  draw_seeds(nb, seeds);
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, 2, (int) nb));
  double *o = REAL(out);
  for (ptrdiff_t b = 0; b < nb; b++) {
    o[2 * b] = (double) (seeds[b] >> 32);
    o[2 * b + 1] = (double) (seeds[b] & 0xffffffffULL);
  }
  UNPROTECT(1);
  return out;
}

static uint64_t *unpack_seeds(SEXP seeds, ptrdiff_t nb)
{
  if (!Rf_isReal(seeds) || !Rf_isMatrix(seeds) || Rf_nrows(seeds) != 2 ||
      Rf_ncols(seeds) != nb)
    Rf_error("'seeds' must be a 2 x %td double matrix", nb);
  const double *v = REAL(seeds);
  uint64_t *out = (uint64_t *) R_alloc((size_t) nb, sizeof(uint64_t));
  for (ptrdiff_t b = 0; b < nb; b++) {
    const double hi = v[2 * b], lo = v[2 * b + 1];
    if (!(hi >= 0 && hi < 4294967296.0 && lo >= 0 && lo < 4294967296.0) ||
        hi != floor(hi) || lo != floor(lo))
      Rf_error("'seeds' must hold whole numbers in 0..2^32 - 1");
    out[b] = ((uint64_t) hi << 32) ^ (uint64_t) lo;
  }
  return out;
}

/* The alignments of the bootstraps of seeds, a chunk of the n_boot of an
 * iteration: opts is C_randsel_iter's, the same list (rs_setup), and
 * 1 <= ncol(seeds) <= n_boot. Returns list(a_half, a_plus). */
SEXP C_randsel_align(SEXP x, SEXP cols, SEXP seeds, SEXP opts)
{
  bk_opts op;
  bk_opts_open(&op, opts, "C_randsel_align");
  rs_iter it = rs_setup(x, cols, &op);
  const int nb_all = bk_opt_int(&op, "n_boot", 1, 1000000000);
  bk_opts_done(&op);
  if (!Rf_isReal(seeds) || !Rf_isMatrix(seeds) || Rf_ncols(seeds) < 1 ||
      Rf_ncols(seeds) > nb_all)
    Rf_error("'seeds' must be a 2-row double matrix of 1..n_boot (%d) columns",
             nb_all);
  it.nb = Rf_ncols(seeds);
  const uint64_t *sd = unpack_seeds(seeds, it.nb);
  SEXP a_half = PROTECT(Rf_allocVector(REALSXP, it.nb));
  SEXP a_plus = PROTECT(Rf_allocVector(REALSXP, it.nb));
  rs_align(&it, sd, REAL(a_half), REAL(a_plus), NULL);
  const char *names[] = {"a_half", "a_plus", ""};
  SEXP out = bk_named_list(names, (SEXP[]){a_half, a_plus});
  UNPROTECT(2);
  return out;
}

/* The contributions (n) of the free features from the seeds of an
 * iteration and the alignments of its bootstraps. opts: a named list read
 * by name (glue.h) of the sizes the draws were made with:
 *   n_samples  m, the samples of x
 *   subsample  s, 2 <= s <= m
 *   n_free     n >= 1, the free features (h = floor(n / 2)) */
SEXP C_randsel_contrib(SEXP seeds, SEXP a_half, SEXP a_plus, SEXP opts)
{
  bk_opts op;
  bk_opts_open(&op, opts, "C_randsel_contrib");
  const ptrdiff_t m = bk_opt_int(&op, "n_samples", 2, INT_MAX);
  const ptrdiff_t s = bk_opt_int(&op, "subsample", 2, INT_MAX);
  if (s > m)
    Rf_error("C_randsel_contrib: option 'subsample' must be at most "
             "'n_samples', %td", m);
  const ptrdiff_t n = bk_opt_int(&op, "n_free", 1, INT_MAX), h = n / 2;
  bk_opts_done(&op);
  if (!Rf_isReal(a_half) || !Rf_isReal(a_plus) ||
      XLENGTH(a_half) != XLENGTH(a_plus) || XLENGTH(a_half) < 1)
    Rf_error("'a_half' and 'a_plus' must be double vectors of one length");
  const ptrdiff_t nb = XLENGTH(a_half);
  const uint64_t *sd = unpack_seeds(seeds, nb);
  const ptrdiff_t chunk = nb < RS_CHUNK ? nb : RS_CHUNK;
  int *samp = (int *) R_alloc((size_t) s, sizeof(int));
  int *feat = (int *) R_alloc((size_t) ((h + 1) * chunk), sizeof(int));
  int *pool = (int *) R_alloc((size_t) (m > n ? m : n), sizeof(int));
  rs_sums sums = rs_sums_new(n);
  for (ptrdiff_t b0 = 0; b0 < nb; b0 += chunk) {
    const ptrdiff_t k = nb - b0 < chunk ? nb - b0 : chunk;
    for (ptrdiff_t q = 0; q < k; q++)
      bk_randsel_draw(sd[b0 + q], m, s, n, h, samp, feat + (h + 1) * q, pool);
    bk_randsel_accumulate(h, k, feat, REAL(a_half) + b0, REAL(a_plus) + b0,
                          sums.sum_plus, sums.n_plus, sums.sum_half,
                          sums.n_half, &sums.total_half);
    bk_check_limits();
  }
  SEXP out = PROTECT(Rf_allocVector(REALSXP, n));
  bk_randsel_contrib(n, nb, sums.sum_plus, sums.n_plus, sums.sum_half,
                     sums.n_half, sums.total_half, REAL(out));
  UNPROTECT(1);
  return out;
}

/* The draws C_randsel_iter makes, for tests: after the same set.seed(),
 * n_boot bootstraps of s samples of m and h + 1 features of n, as
 * list(samp = s x n_boot, feat = (h + 1) x n_boot), 1-based. */
SEXP C_randsel_draws(SEXP n_boot, SEXP m_, SEXP s_, SEXP n_, SEXP h_)
{
  const ptrdiff_t nb = whole_arg(n_boot, "n_boot", 1, 1e6);
  const ptrdiff_t m = whole_arg(m_, "m", 2, 1e7), n = whole_arg(n_, "n", 1, 1e7);
  const ptrdiff_t s = whole_arg(s_, "s", 2, (double) m);
  const ptrdiff_t h = whole_arg(h_, "h", 0, (double) (n - 1));
  uint64_t *seeds = (uint64_t *) R_alloc((size_t) nb, sizeof(uint64_t));
  draw_seeds(nb, seeds);
  int *pool = (int *) R_alloc((size_t) (m > n ? m : n), sizeof(int));
  SEXP samp = PROTECT(Rf_allocMatrix(INTSXP, (int) s, (int) nb));
  SEXP feat = PROTECT(Rf_allocMatrix(INTSXP, (int) (h + 1), (int) nb));
  for (ptrdiff_t b = 0; b < nb; b++) {
    int *sb = INTEGER(samp) + s * b, *fb = INTEGER(feat) + (h + 1) * b;
    bk_randsel_draw(seeds[b], m, s, n, h, sb, fb, pool);
    for (ptrdiff_t i = 0; i < s; i++) sb[i]++;
    for (ptrdiff_t i = 0; i <= h; i++) fb[i]++;
  }
  const char *names[] = {"samp", "feat", ""};
  SEXP out = bk_named_list(names, (SEXP[]){samp, feat});
  UNPROTECT(2);
  return out;
}

/* The bytes one randSel iteration allocates at its peak for m samples, p
 * features in play, subsamples of s and `threads` threads: the blocked copy of
 * the columns and each thread's workspace (R/select-randsel.R checks them
 * against the memory budget before the first iteration). */
SEXP C_randsel_workspace(SEXP m, SEXP p, SEXP s, SEXP threads)
{
  const ptrdiff_t mm = whole_arg(m, "m", 1, (double) INT_MAX),
                  pp = whole_arg(p, "p", 1, (double) INT_MAX),
                  ss = whole_arg(s, "s", 1, (double) mm);
  /* the threads C_randsel_iter will run (bk_threads) */
  const ptrdiff_t nt = bk_threads_arg(threads, "threads");
  /* Above 1e8 samples per subsample the sizes below would overflow
   * ptrdiff_t; the leading term of the per-thread workspace (4.5 s^2
   * doubles, one bootstrap per batch) is already beyond any memory. */
  if (ss > 100000000)
    return Rf_ScalarReal(8.0 * 4.5 * (double) nt * (double) ss * (double) ss);
  const double bytes =
      8.0 * (double) bk_randsel_blocked_doubles(mm, pp) +
      (double) nt * (8.0 * (double) bk_randsel_work_doubles(ss, pp) +
                     4.0 * (double) bk_randsel_work_ints(ss, mm, pp)) +
      4.0 * (double) RS_CHUNK * (double) (ss + pp);
  return Rf_ScalarReal(bytes);
}
