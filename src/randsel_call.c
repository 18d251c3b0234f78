/* randsel_call.c: SEXP glue for randsel.c. The seeds of the bootstraps
 * come from R's RNG, on the main thread, before any thread starts. */
#include <R_ext/Random.h>
#include <limits.h>
#include <string.h>
#include "glue.h"

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

/* One iteration of randSel. x: m x d double matrix (samples x features);
 * cols: the 0-based columns in play, the n_fixed fixed features first, then
 * the n free ones; L: m x m label kernel or NULL; Y: m x c factor or NULL;
 * kernel: c(type, p1, p2); control: c(n_boot, s, threads, simd).
 * Per bootstrap: s samples of m, then h + 1 free features of n,
 * h = floor(n / 2) (bk_randsel_draw). Returns list(contribution (n),
 * a_half (n_boot), a_plus (n_boot)). */
SEXP C_randsel_iter(SEXP x, SEXP cols, SEXP n_fixed, SEXP L, SEXP Y,
                    SEXP kernel, SEXP control)
{
  bk_need_double_matrix(x, "x");
  if (!Rf_isReal(kernel) || XLENGTH(kernel) != 3)
    Rf_error("'kernel' must be c(type, p1, p2)");
  if (!Rf_isReal(control) || XLENGTH(control) != 4)
    Rf_error("'control' must be a double vector of length 4");
  if (!Rf_isInteger(cols)) Rf_error("'cols' must be an integer vector");
  const ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x), p = XLENGTH(cols);
  if (m > INT_MAX || p > INT_MAX) Rf_error("too many samples or features");
  const int *cl = INTEGER(cols);
  for (ptrdiff_t j = 0; j < p; j++)
    if (cl[j] < 0 || cl[j] >= d) Rf_error("'cols' must be in 0..%td", d - 1);
  const ptrdiff_t nf = whole_arg(n_fixed, "n_fixed", 0, (double) p);
  const ptrdiff_t n = p - nf;
  bk_label lab = bk_make_label(L, Y, m);
  const double *ctl = REAL(control);
  const double nb_d = ctl[0], s_d = ctl[1];
  if (!(nb_d >= 1 && nb_d <= 1e9)) Rf_error("'n_boot' must be in 1..1e9");
  if (!(s_d >= 2 && s_d <= (double) m)) Rf_error("the subsample size must be in 2..%td", m);
  if (n < 1) Rf_error("no free feature");
  const ptrdiff_t nb = (ptrdiff_t) nb_d;
  bk_randsel_opts o;
  o.kern.type = (int) REAL(kernel)[0];
  o.kern.p1 = REAL(kernel)[1];
  o.kern.p2 = REAL(kernel)[2];
  o.s = (ptrdiff_t) s_d;
  o.h = n / 2;
  o.nthreads = ctl[2] >= 1 ? (int) ctl[2] : 1;
  o.simd = (int) ctl[3];
  if (o.kern.type < BK_LINEAR || o.kern.type > BK_INVDIST)
    Rf_error("unsupported kernel code %d", o.kern.type);
  const ptrdiff_t h = o.h, s = o.s;

  /* the columns in play, in blocks of 64 (bk_randsel_block_columns) */
  double *xb = (double *) R_alloc((size_t) bk_randsel_blocked_doubles(m, p),
                                  sizeof(double));
  bk_randsel_block_columns(REAL(x), m, cl, p, xb);
  uint64_t *seeds = (uint64_t *) R_alloc((size_t) nb, sizeof(uint64_t));
  draw_seeds(nb, seeds);
  const ptrdiff_t chunk = nb < RS_CHUNK ? nb : RS_CHUNK;
  int *samp = (int *) R_alloc((size_t) (s * chunk), sizeof(int));
  int *feat = (int *) R_alloc((size_t) ((h + 1) * chunk), sizeof(int));
  double *work = (double *) R_alloc(
      (size_t) (o.nthreads * bk_randsel_work_doubles(s, p)), sizeof(double));
  int *iwork = (int *) R_alloc(
      (size_t) (o.nthreads * bk_randsel_work_ints(s, m, p)), sizeof(int));
  double *sum_plus = (double *) R_alloc((size_t) n, sizeof(double));
  double *sum_half = (double *) R_alloc((size_t) n, sizeof(double));
  int *n_plus = (int *) R_alloc((size_t) n, sizeof(int));
  int *n_half = (int *) R_alloc((size_t) n, sizeof(int));
  memset(sum_plus, 0, (size_t) n * sizeof(double));
  memset(sum_half, 0, (size_t) n * sizeof(double));
  memset(n_plus, 0, (size_t) n * sizeof(int));
  memset(n_half, 0, (size_t) n * sizeof(int));
  double total_half = 0.0;

  SEXP contrib = PROTECT(Rf_allocVector(REALSXP, n));
  SEXP a_half = PROTECT(Rf_allocVector(REALSXP, nb));
  SEXP a_plus = PROTECT(Rf_allocVector(REALSXP, nb));
  for (ptrdiff_t b0 = 0; b0 < nb; b0 += chunk) {
    const ptrdiff_t k = nb - b0 < chunk ? nb - b0 : chunk;
    bk_randsel_align(xb, m, nf, n, lab, &o, k, seeds + b0, samp,
                     feat, REAL(a_half) + b0, REAL(a_plus) + b0, work, iwork);
    bk_randsel_accumulate(h, k, feat, REAL(a_half) + b0, REAL(a_plus) + b0,
                          sum_plus, n_plus, sum_half, n_half, &total_half);
    R_CheckUserInterrupt();
  }
  bk_randsel_contrib(n, nb, sum_plus, n_plus, sum_half, n_half, total_half,
                     REAL(contrib));

  const char *names[] = {"contribution", "a_half", "a_plus", ""};
  SEXP out = bk_named_list(names, (SEXP[]){contrib, a_half, a_plus});
  UNPROTECT(3);
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
