/* clinical_call.c: SEXP glue for clinical.c (the clinical kernel). */
#include <limits.h>
#include "glue.h"
#include "clinical.h"

/* Pair-feature terms between two interrupt checks: about 0.05 s on one
 * core, so that Ctrl-C or a time limit stops a long kernel promptly. */
static const double work_per_check = 5e7;

static const int *need_flags(SEXP cat, ptrdiff_t p)
{
  if (!Rf_isInteger(cat) || XLENGTH(cat) != p)
    Rf_error("'cat' must be an integer vector with one flag per column");
  return INTEGER(cat);
}

/* The clinical kernel of the encoded double matrix za (m x p) with cat its
 * p flags. opts (named, opts.c): threads; optionally train, a matrix with the
 * same columns (the kernel between za's rows and train's, else the Gram
 * matrix of za), and weight, one weight per column (else the average). */
SEXP C_clinical(SEXP za, SEXP cat, SEXP opts)
{
  bk_need_double_matrix(za, "za");
  ptrdiff_t ma = Rf_nrows(za), p = Rf_ncols(za);
  const int *c = need_flags(cat, p);
  bk_opts op;
  bk_opts_open(&op, opts, "C_clinical");
  const int nthreads = bk_opt_threads(&op);
  const int gram = !bk_opt_given(&op, "train");
  ptrdiff_t mb = ma;
  const double *a = REAL(za), *b = a;
  if (!gram) {
    ptrdiff_t ncol = p;
    mb = -1;
    b = bk_opt_matrix(&op, "train", &mb, &ncol);
  }
  const double *w = bk_opt_given(&op, "weight")
                        ? bk_opt_real_vector(&op, "weight", (R_xlen_t) p, NULL)
                        : NULL;
  bk_opts_done(&op);
  SEXP K = PROTECT(Rf_allocMatrix(REALSXP, (int) ma, (int) mb));
  /* in blocks of columns of about work_per_check pair-feature terms each (a
   * triangle for the Gram matrix), with an interrupt check between blocks:
   * clinical_rfe() computes thousands of these kernels, on many features */
  for (ptrdiff_t j0 = 0; j0 < mb;) {
    ptrdiff_t j1 = j0;
    double work = 0.0;
    while (j1 < mb && work < work_per_check) {
      work += (double) (gram ? j1 + 1 : ma) * (double) p;
      j1++;
    }
    bk_clinical_cols(a, ma, b, mb, p, c, w, gram, j0, j1, REAL(K), nthreads);
    j0 = j1;
    if (j0 < mb) bk_check_limits();
  }
  if (gram) bk_clinical_mirror(REAL(K), ma);
  UNPROTECT(1);
  return K;
}

/* One number per column: sum(W o K_f), W symmetric (m x m). */
SEXP C_clinical_dot(SEXP z, SEXP cat, SEXP W, SEXP threads)
{
  bk_need_double_matrix(z, "z");
  bk_need_double_matrix(W, "W");
  ptrdiff_t m = Rf_nrows(z), p = Rf_ncols(z);
  if (Rf_nrows(W) != m || Rf_ncols(W) != m)
    Rf_error("'W' must be %td x %td", m, m);
  const int *c = need_flags(cat, p);
  SEXP out = PROTECT(Rf_allocVector(REALSXP, p));
  const int nthreads = bk_threads_arg(threads, "threads");
  /* in blocks of features, an interrupt check between blocks; each feature's
   * sum is the same whatever the blocks */
  const double per_feature = 0.5 * (double) m * (double) m + 1.0;
  ptrdiff_t nb = (ptrdiff_t) (work_per_check / per_feature);
  if (nb < 1) nb = 1;
  for (ptrdiff_t f0 = 0; f0 < p; f0 += nb) {
    const ptrdiff_t n = p - f0 < nb ? p - f0 : nb;
    bk_clinical_dot(REAL(z) + m * f0, m, n, c + f0, REAL(W), REAL(out) + f0, nthreads);
    if (f0 + n < p) bk_check_limits();
  }
  UNPROTECT(1);
  return out;
}
