/* gram_call.c: SEXP glue for gram.c and the per-feature kernel sums. */
#include "glue.h"

/* p1 = NA asks for the median heuristic; the width used is returned as the
 * attribute "p1" (NaN when the median is 0). */
SEXP C_gram(SEXP x, SEXP type, SEXP p1, SEXP p2, SEXP threads)
{
  bk_need_double_matrix(x, "x");
  bk_kernel k = bk_make_kernel(Rf_asInteger(type), Rf_asReal(p1), Rf_asReal(p2));
  ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x);
  double *work = NULL;
  if (ISNAN(k.p1) && (k.type == BK_GAUSSIAN || k.type == BK_LAPLACE) && m > 1)
    work = (double *) R_alloc((size_t) BK_MEDIAN_WORK(m), sizeof(double));
  SEXP K = PROTECT(Rf_allocMatrix(REALSXP, (int) m, (int) m));
  bk_gram(REAL(x), m, d, &k, REAL(K), work, Rf_asInteger(threads));
  SEXP width = PROTECT(Rf_ScalarReal(k.p1));
  Rf_setAttrib(K, Rf_install("p1"), width);
  UNPROTECT(2);
  return K;
}

SEXP C_median_pairwise(SEXP x, SEXP squared)
{
  bk_need_double_matrix(x, "x");
  ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x);
  if (m < 2) return Rf_ScalarReal(NA_REAL);
  double *work = (double *) R_alloc((size_t) BK_MEDIAN_WORK(m), sizeof(double));
  double *cross = d > 1 ? (double *) R_alloc((size_t) (m * m), sizeof(double))
                        : NULL;
  return Rf_ScalarReal(
      bk_median_pairwise(REAL(x), m, d, Rf_asLogical(squared), work, cross));
}

SEXP C_feature_dot(SEXP x, SEXP type, SEXP par, SEXP p2, SEXP W, SEXP threads,
                   SEXP simd)
{
  bk_need_double_matrix(x, "x");
  bk_need_double_matrix(W, "W");
  ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x);
  if (Rf_nrows(W) != m || Rf_ncols(W) != m)
    Rf_error("'W' must be %td x %td", m, m);
  if (!Rf_isReal(par) || (XLENGTH(par) != 1 && XLENGTH(par) != d))
    Rf_error("'par' must be a double vector of length 1 or ncol(x)");
  bk_kernel k = bk_make_kernel(Rf_asInteger(type), REAL(par)[0], Rf_asReal(p2));
  double *work = (double *) R_alloc((size_t) (m * (m - 1) + 1), sizeof(double));
  SEXP out = PROTECT(Rf_allocVector(REALSXP, d));
  bk_feature_dot(REAL(x), m, d, k, XLENGTH(par) == d ? REAL(par) : NULL,
                 REAL(W), REAL(out), work, Rf_asLogical(simd),
                 Rf_asInteger(threads));
  UNPROTECT(1);
  return out;
}

/* The median heuristic for every column of x on its own (per-feature
 * kernels of feature_scores()). */
SEXP C_median_columns(SEXP x, SEXP squared)
{
  bk_need_double_matrix(x, "x");
  ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x);
  int sq = Rf_asLogical(squared);
  SEXP out = PROTECT(Rf_allocVector(REALSXP, d));
  if (m < 2) {
    for (ptrdiff_t j = 0; j < d; j++) REAL(out)[j] = NA_REAL;
  } else {
    double *work = (double *) R_alloc((size_t) BK_MEDIAN_WORK(m), sizeof(double));
    for (ptrdiff_t j = 0; j < d; j++)
      REAL(out)[j] = bk_median_pairwise(REAL(x) + m * j, m, 1, sq, work, NULL);
  }
  UNPROTECT(1);
  return out;
}
