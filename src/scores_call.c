/*
 * scores_call.c: SEXP glue for scores.c. Cheap type and length checks only;
 * the checks a user can act on (factor levels, class sizes) are in
 * R/scores-linear.R.
 */
#include "glue.h"

/* list(n, mean, ss) of the classes 1..ncls of the rows of x */
SEXP C_class_moments(SEXP x, SEXP cls, SEXP ncls)
{
  bk_need_double_matrix(x, "x");
  R_xlen_t m = Rf_nrows(x), d = Rf_ncols(x);
  if (!Rf_isInteger(cls) || XLENGTH(cls) != m)
    Rf_error("'cls' must be an integer vector with one class per row of 'x'");
  if (!Rf_isInteger(ncls) || XLENGTH(ncls) != 1 ||
      INTEGER(ncls)[0] == NA_INTEGER || INTEGER(ncls)[0] < 1)
    Rf_error("'ncls' must be a positive integer");
  int K = INTEGER(ncls)[0];

  /* R's classes are 1-based; the core's are 0-based */
  const int *c1 = INTEGER(cls);
  int *c0 = (int *) R_alloc(m > 0 ? m : 1, sizeof(int));
  for (R_xlen_t i = 0; i < m; i++) {
    if (c1[i] == NA_INTEGER || c1[i] < 1 || c1[i] > K)
      Rf_error("'cls' must hold class numbers in 1..%d without NA", K);
    c0[i] = c1[i] - 1;
  }

  SEXP n = PROTECT(Rf_allocVector(INTSXP, K));
  SEXP mean = PROTECT(Rf_allocMatrix(REALSXP, K, (int) d));
  SEXP ss = PROTECT(Rf_allocMatrix(REALSXP, K, (int) d));
  int *work = (int *) R_alloc((size_t) (m + K + 1), sizeof(int));
  bk_class_moments(REAL(x), m, d, c0, K, INTEGER(n), REAL(mean), REAL(ss), work);

  const char *names[] = {"n", "mean", "ss", ""};
  SEXP out = bk_named_list(names, (SEXP[]){n, mean, ss});
  UNPROTECT(3);
  return out;
}

/* Pearson correlation of every column of x with y */
SEXP C_col_cor(SEXP x, SEXP y)
{
  bk_need_double_matrix(x, "x");
  R_xlen_t m = Rf_nrows(x), d = Rf_ncols(x);
  if (!Rf_isReal(y) || XLENGTH(y) != m)
    Rf_error("'y' must be a double vector with one value per row of 'x'");

  SEXP out = PROTECT(Rf_allocVector(REALSXP, d));
  bk_col_cor(REAL(x), m, d, REAL(y), REAL(out));
  UNPROTECT(1);
  return out;
}
