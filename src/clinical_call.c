/* clinical_call.c: SEXP glue for clinical.c (the clinical kernel). */
#include "glue.h"

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
  bk_clinical_cross(REAL(za), ma, gram ? REAL(za) : REAL(zb), mb, p, c,
                    Rf_isNull(weight) ? NULL : REAL(weight), REAL(K),
                    Rf_asInteger(threads));
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
  bk_clinical_dot(REAL(z), m, p, c, REAL(W), REAL(out), Rf_asInteger(threads));
  UNPROTECT(1);
  return out;
}
