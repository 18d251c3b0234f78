/* screen_call.c: SEXP glue for screen.c, the column passes of bahsic()'s
 * screen (R/select-screen.R). Each returns a fresh matrix with x's
 * dimnames, as the R expression it replaces does. */
#include "glue.h"
#include "screen.h"

static SEXP like(SEXP x, ptrdiff_t m, ptrdiff_t d)
{
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int) m, (int) d));
  Rf_setAttrib(out, R_DimNamesSymbol, Rf_getAttrib(x, R_DimNamesSymbol));
  UNPROTECT(1);
  return out;
}

/* sweep(x, 2, colMeans(x)): bk_centre_columns() */
SEXP C_centre_columns(SEXP x)
{
  bk_need_double_matrix(x, "x");
  ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x);
  if (m < 1) Rf_error("'x' needs at least 1 row to be centred");
  SEXP out = PROTECT(like(x, m, d));
  bk_centre_columns(REAL(x), m, d, REAL(out));
  UNPROTECT(1);
  return out;
}

/* v - Q %*% crossprod(Q, v) for a double matrix v (m x d) and Q (m x r),
 * v's columns first taken as transform says (0 as they are, 1 centred,
 * 2 tanh(1.5 v) centred): bk_project_out(). The result has v's attributes,
 * as the expression's; NULL where R's products might take their own loops
 * (the caller evaluates the expression). */
SEXP C_project_out(SEXP v, SEXP Q, SEXP transform, SEXP threads)
{
  bk_need_double_matrix(v, "v");
  bk_need_double_matrix(Q, "Q");
  ptrdiff_t m = Rf_nrows(v), d = Rf_ncols(v), r = Rf_ncols(Q);
  if (Rf_nrows(Q) != m) Rf_error("'Q' has %d rows for the %td rows of 'v'", Rf_nrows(Q), m);
  if (m < 1) Rf_error("'v' needs at least 1 row");
  int tr = Rf_asInteger(transform);
  if (tr != BK_PROJECT_NONE && tr != BK_PROJECT_CENTRE && tr != BK_PROJECT_BOUNDED)
    Rf_error("'transform' must be 0, 1 or 2");
  int nt = bk_threads_arg(threads, "threads");
  SEXP out = PROTECT(Rf_allocVector(REALSXP, m * d));
  DUPLICATE_ATTRIB(out, v);
  double *c = (double *) R_alloc((size_t) (r * d > 0 ? r * d : 1), sizeof(double));
  unsigned char *wide = (unsigned char *) R_alloc((size_t) (d > 0 ? d : 1), 1);
  int fallback = bk_project_out(REAL(v), m, d, REAL(Q), r, tr, c, wide, REAL(out), nt);
  UNPROTECT(1);
  return fallback ? R_NilValue : out;
}

/* tanh(1.5 * x): bk_bounded_columns() */
SEXP C_bounded_columns(SEXP x, SEXP threads)
{
  bk_need_double_matrix(x, "x");
  ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x);
  int nt = bk_threads_arg(threads, "threads");
  SEXP out = PROTECT(like(x, m, d));
  bk_bounded_columns(REAL(x), m, d, REAL(out), nt);
  UNPROTECT(1);
  return out;
}

/* x[, i] * x[, j] for 1-based column indices i and j of equal length:
 * bk_column_products(); the columns named as x[, i]'s */
SEXP C_column_products(SEXP x, SEXP i, SEXP j, SEXP threads)
{
  bk_need_double_matrix(x, "x");
  if (!Rf_isInteger(i) || !Rf_isInteger(j) || XLENGTH(i) != XLENGTH(j))
    Rf_error("'i' and 'j' must be integer vectors of the same length");
  int nt = bk_threads_arg(threads, "threads");
  ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x), n = XLENGTH(i);
  if (n > INT_MAX) Rf_error("too many column pairs (%td)", n);
  int *i0 = (int *) R_alloc((size_t) (n > 0 ? n : 1), sizeof(int));
  int *j0 = (int *) R_alloc((size_t) (n > 0 ? n : 1), sizeof(int));
  for (ptrdiff_t k = 0; k < n; k++) {
    int a = INTEGER(i)[k], b = INTEGER(j)[k];
    if (a == NA_INTEGER || b == NA_INTEGER || a < 1 || b < 1 || a > d || b > d)
      Rf_error("column pair %td (%d, %d) is outside the %td columns of 'x'", k + 1,
               a, b, d);
    i0[k] = a - 1;
    j0[k] = b - 1;
  }
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int) m, (int) n));
  bk_column_products(REAL(x), m, i0, j0, n, REAL(out), nt);
  SEXP dn = Rf_getAttrib(x, R_DimNamesSymbol);
  if (!Rf_isNull(dn)) {
    SEXP cn = VECTOR_ELT(dn, 1), ocn = R_NilValue;
    if (!Rf_isNull(cn)) {
      ocn = PROTECT(Rf_allocVector(STRSXP, n));
      for (ptrdiff_t k = 0; k < n; k++) SET_STRING_ELT(ocn, k, STRING_ELT(cn, i0[k]));
    } else {
      PROTECT(ocn);
    }
    SEXP odn = PROTECT(Rf_allocVector(VECSXP, 2));
    SET_VECTOR_ELT(odn, 0, VECTOR_ELT(dn, 0));
    SET_VECTOR_ELT(odn, 1, ocn);
    Rf_setAttrib(odn, R_NamesSymbol, Rf_getAttrib(dn, R_NamesSymbol));
    Rf_setAttrib(out, R_DimNamesSymbol, odn);
    UNPROTECT(2);
  }
  UNPROTECT(1);
  return out;
}
