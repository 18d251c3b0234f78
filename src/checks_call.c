/* checks_call.c: SEXP glue for checks.c. */
#include "glue.h"
#include "checks.h"

/* c(1-based position of the first NA, NaN or Inf in x or 0 if there is
 * none, max |x| when there is none) */
SEXP C_first_nonfinite(SEXP x)
{
  if (!Rf_isReal(x)) Rf_error("'x' must be a double vector");
  double mx = NA_REAL;
  ptrdiff_t i = bk_first_nonfinite(REAL(x), XLENGTH(x), &mx);
  SEXP out = PROTECT(Rf_allocVector(REALSXP, 2));
  REAL(out)[0] = (double) (i + 1);
  REAL(out)[1] = mx;
  UNPROTECT(1);
  return out;
}

SEXP C_constant_columns(SEXP x)
{
  bk_need_double_matrix(x, "x");
  ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x);
  SEXP out = PROTECT(Rf_allocVector(LGLSXP, d));
  bk_constant_columns(REAL(x), m, d, LOGICAL(out));
  UNPROTECT(1);
  return out;
}

/* list(standardised x, logical constant flags): bk_standardize_columns() */
SEXP C_standardize_columns(SEXP x, SEXP threads)
{
  bk_need_double_matrix(x, "x");
  const int nt = bk_threads_arg(threads, "threads");
  ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x);
  if (m < 2) Rf_error("'x' needs at least 2 rows to be standardised");
  SEXP xs = PROTECT(Rf_allocMatrix(REALSXP, (int) m, (int) d));
  SEXP constant = PROTECT(Rf_allocVector(LGLSXP, d));
  bk_standardize_columns(REAL(x), m, d, REAL(xs), LOGICAL(constant), nt);
  Rf_setAttrib(xs, R_DimNamesSymbol, Rf_getAttrib(x, R_DimNamesSymbol));
  SEXP out = PROTECT(Rf_allocVector(VECSXP, 2));
  SET_VECTOR_ELT(out, 0, xs);
  SET_VECTOR_ELT(out, 1, constant);
  UNPROTECT(3);
  return out;
}

/* x with each column rescaled by a power of two: bk_scale_columns() */
SEXP C_scale_columns(SEXP x, SEXP threads)
{
  bk_need_double_matrix(x, "x");
  const int nt = bk_threads_arg(threads, "threads");
  ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x);
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int) m, (int) d));
  bk_scale_columns(REAL(x), m, d, REAL(out), nt);
  UNPROTECT(1);
  return out;
}

/* The 1-based position of the first NA or empty string of the character
 * vector s, 0 for none: nzchar() and is.na() of R in one pass without their
 * result vectors (a feature without a name could not be reported). */
SEXP C_first_unnamed(SEXP s)
{
  if (TYPEOF(s) != STRSXP) Rf_error("'s' must be a character vector");
  R_xlen_t n = XLENGTH(s);
  for (R_xlen_t i = 0; i < n; i++) {
    SEXP c = STRING_ELT(s, i);
    if (c == NA_STRING || CHAR(c)[0] == '\0') return Rf_ScalarReal((double) (i + 1));
  }
  return Rf_ScalarReal(0.0);
}
