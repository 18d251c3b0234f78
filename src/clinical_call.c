/* clinical_call.c: SEXP glue for clinical.c (the clinical kernel). */
#include "glue.h"

/* Pair-feature terms between two interrupt checks: about 0.05 s on one
 * core, so that Ctrl-C or a time limit stops a long kernel promptly. */
static const double work_per_check = 5e7;

static const int *need_flags(SEXP cat, ptrdiff_t p)
{
  if (!Rf_isInteger(cat) || XLENGTH(cat) != p)
    Rf_error("'cat' must be an integer vector with one flag per column");
  return INTEGER(cat);
}

/* za, zb: encoded double matrices with the same columns (zb = NULL: the Gram
 * matrix of za); weight: NULL for the average, else one weight per column. */
SEXP C_clinical(SEXP za, SEXP zb, SEXP cat, SEXP weight, SEXP threads)
{
  bk_need_double_matrix(za, "za");
  const int gram = Rf_isNull(zb);
  if (!gram) bk_need_double_matrix(zb, "zb");
  ptrdiff_t ma = Rf_nrows(za), p = Rf_ncols(za);
  ptrdiff_t mb = gram ? ma : Rf_nrows(zb);
  if (!gram && Rf_ncols(zb) != p)
    Rf_error("'za' and 'zb' must have the same columns");
  const int *c = need_flags(cat, p);
  if (!Rf_isNull(weight) && (!Rf_isReal(weight) || XLENGTH(weight) != p))
    Rf_error("'weight' must be NULL or a double vector with one weight per column");
  SEXP K = PROTECT(Rf_allocMatrix(REALSXP, (int) ma, (int) mb));
  const double *a = REAL(za), *b = gram ? a : REAL(zb);
  const double *w = Rf_isNull(weight) ? NULL : REAL(weight);
  const int nthreads = Rf_asInteger(threads);
  /* in blocks of columns of about work_per_check pair-feature terms each (a
   * triangle for the Gram matrix), with an interrupt check between blocks:
   * rfe() computes thousands of these kernels, on many features */
  for (ptrdiff_t j0 = 0; j0 < mb;) {
    ptrdiff_t j1 = j0;
    double work = 0.0;
    while (j1 < mb && work < work_per_check) {
      work += (double) (gram ? j1 + 1 : ma) * (double) p;
      j1++;
    }
    bk_clinical_cols(a, ma, b, mb, p, c, w, gram, j0, j1, REAL(K), nthreads);
    j0 = j1;
    if (j0 < mb) R_CheckUserInterrupt();
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
  const int nthreads = Rf_asInteger(threads);
  /* in blocks of features, an interrupt check between blocks; each feature's
   * sum is the same whatever the blocks */
  const double per_feature = 0.5 * (double) m * (double) m + 1.0;
  ptrdiff_t nb = (ptrdiff_t) (work_per_check / per_feature);
  if (nb < 1) nb = 1;
  for (ptrdiff_t f0 = 0; f0 < p; f0 += nb) {
    const ptrdiff_t n = p - f0 < nb ? p - f0 : nb;
    bk_clinical_dot(REAL(z) + m * f0, m, n, c + f0, REAL(W), REAL(out) + f0, nthreads);
    if (f0 + n < p) R_CheckUserInterrupt();
  }
  UNPROTECT(1);
  return out;
}
