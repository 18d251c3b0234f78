/* randsel_call.c: SEXP glue for randsel.c, and the random draws of randSel
 * (R's RNG, on the main thread, before any thread starts). */
#include <R_ext/Random.h>
#include <limits.h>
#include <string.h>
#include "glue.h"

/* k distinct values of 0..n-1 into out, exactly as R's sample.int(n, k)
 * (without replacement, n <= 1e7) draws them: a partial Fisher-Yates
 * shuffle with R_unif_index. So set.seed() reproduces the draws and a test
 * can repeat them in R. pool: n ints. */
static void draw_subset(int n, int k, int *out, int *pool)
{
  for (int i = 0; i < n; i++) pool[i] = i;
  for (int i = 0; i < k; i++) {
    int j = (int) R_unif_index((double) n);
    out[i] = pool[j];
    pool[j] = pool[--n];
  }
}

#define RS_CHUNK 256

/* One iteration of randSel. x: m x (n_fixed + n) double matrix, fixed
 * columns first; L: m x m label kernel or NULL; Y: m x c factor or NULL;
 * kernel: c(type, p1, p2); control: c(n_boot, s, threads, simd).
 * Per bootstrap: s samples = sample.int(m, s), then h + 1 free features =
 * sample.int(n, h + 1), h = floor(n / 2). Returns list(contribution (n),
 * a_half (n_boot), a_plus (n_boot)). */
SEXP C_randsel_iter(SEXP x, SEXP n_fixed, SEXP L, SEXP Y, SEXP kernel,
                    SEXP control)
{
  bk_need_double_matrix(x, "x");
  if (!Rf_isReal(kernel) || XLENGTH(kernel) != 3)
    Rf_error("'kernel' must be c(type, p1, p2)");
  if (!Rf_isReal(control) || XLENGTH(control) != 4)
    Rf_error("'control' must be a double vector of length 4");
  const ptrdiff_t m = Rf_nrows(x), ncol = Rf_ncols(x);
  const ptrdiff_t nf = (ptrdiff_t) Rf_asInteger(n_fixed);
  if (nf < 0 || nf > ncol) Rf_error("'n_fixed' must be in 0..ncol(x)");
  const ptrdiff_t n = ncol - nf;
  bk_label lab = {NULL, NULL, 0};
  if (!Rf_isNull(Y)) {
    if (!Rf_isReal(Y) || !Rf_isMatrix(Y) || Rf_nrows(Y) != m)
      Rf_error("'Y' must be a double matrix with %td rows", m);
    lab.Y = REAL(Y);
    lab.c = Rf_ncols(Y);
  } else {
    if (!Rf_isReal(L) || !Rf_isMatrix(L) || Rf_nrows(L) != m || Rf_ncols(L) != m)
      Rf_error("'L' must be a %td x %td double matrix", m, m);
    lab.L = REAL(L);
  }
  const double *ctl = REAL(control);
  const double nb_d = ctl[0], s_d = ctl[1];
  if (!(nb_d >= 1 && nb_d <= 1e9)) Rf_error("'n_boot' must be in 1..1e9");
  if (!(s_d >= 2 && s_d <= (double) m)) Rf_error("the subsample size must be in 2..%td", m);
  if (n < 1 || m > INT_MAX || ncol > INT_MAX) Rf_error("no free feature, or too many");
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

  const ptrdiff_t chunk = nb < RS_CHUNK ? nb : RS_CHUNK;
  int *samp = (int *) R_alloc((size_t) (s * chunk), sizeof(int));
  int *feat = (int *) R_alloc((size_t) ((h + 1) * chunk), sizeof(int));
  int *pool = (int *) R_alloc((size_t) (m > n ? m : n), sizeof(int));
  double *work = (double *) R_alloc(
      (size_t) (o.nthreads * bk_randsel_work_doubles(s)), sizeof(double));
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
    /* the draws of this chunk, in bootstrap order, on the main thread */
    GetRNGstate();
    for (ptrdiff_t b = 0; b < k; b++) {
      draw_subset((int) m, (int) s, samp + s * b, pool);
      draw_subset((int) n, (int) (h + 1), feat + (h + 1) * b, pool);
    }
    PutRNGstate();
    bk_randsel_align(REAL(x), m, nf, lab, &o, k, samp, feat, REAL(a_half) + b0,
                     REAL(a_plus) + b0, work);
    bk_randsel_accumulate(h, k, feat, REAL(a_half) + b0, REAL(a_plus) + b0,
                          sum_plus, n_plus, sum_half, n_half, &total_half);
    R_CheckUserInterrupt();
  }
  bk_randsel_contrib(n, nb, sum_plus, n_plus, sum_half, n_half, total_half,
                     REAL(contrib));

  const char *names[] = {"contribution", "a_half", "a_plus", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  SET_VECTOR_ELT(out, 0, contrib);
  SET_VECTOR_ELT(out, 1, a_half);
  SET_VECTOR_ELT(out, 2, a_plus);
  UNPROTECT(4);
  return out;
}
