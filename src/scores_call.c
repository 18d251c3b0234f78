/*
 * scores_call.c: SEXP glue for scores.c. Cheap type and length checks only;
 * the checks a user can act on (factor levels, class sizes) are in
 * R/scores-linear.R.
 */
#include "glue.h"
#include "inference.h"
#include "checks.h"

/* 1-based position of a 0-based index or -1, 0 for none, as a double (a
 * block may hold more than INT_MAX values) */
static SEXP position(ptrdiff_t i)
{
  return Rf_ScalarReal((double) (i + 1));
}

/* cls (1-based, checked) as the core's 0-based classes */
static int *classes0(SEXP x, SEXP cls, SEXP ncls, int *K)
{
  R_xlen_t m = Rf_nrows(x);
  if (!Rf_isInteger(cls) || XLENGTH(cls) != m)
    Rf_error("'cls' must be an integer vector with one class per row of 'x'");
  if (!Rf_isInteger(ncls) || XLENGTH(ncls) != 1 ||
      INTEGER(ncls)[0] == NA_INTEGER || INTEGER(ncls)[0] < 1)
    Rf_error("'ncls' must be a positive integer");
  *K = INTEGER(ncls)[0];
  const int *c1 = INTEGER(cls);
  int *c0 = (int *) R_alloc(m > 0 ? (size_t) m : 1, sizeof(int));
  for (R_xlen_t i = 0; i < m; i++) {
    if (c1[i] == NA_INTEGER || c1[i] < 1 || c1[i] > *K)
      Rf_error("'cls' must hold class numbers in 1..%d without NA", *K);
    c0[i] = c1[i] - 1;
  }
  return c0;
}

/* list(n, mean, ss, expo, constant, bad): bk_class_moments(), the moments of
 * column j in units of 2^expo[j] (NA: a column of zeros or with a non-finite
 * value), bad the position of the first non-finite value of x (0: none) */
SEXP C_feature_moments(SEXP x, SEXP cls, SEXP ncls)
{
  bk_need_double_matrix(x, "x");
  R_xlen_t m = Rf_nrows(x), d = Rf_ncols(x);
  int K;
  int *c0 = classes0(x, cls, ncls, &K);

  SEXP n = PROTECT(Rf_allocVector(INTSXP, K));
  SEXP mean = PROTECT(Rf_allocMatrix(REALSXP, K, (int) d));
  SEXP ss = PROTECT(Rf_allocMatrix(REALSXP, K, (int) d));
  SEXP expo = PROTECT(Rf_allocVector(INTSXP, d));
  SEXP constant = PROTECT(Rf_allocVector(LGLSXP, d));
  int *work = (int *) R_alloc((size_t) (m + K + 1), sizeof(int));
  ptrdiff_t bad = bk_class_moments(REAL(x), m, d, c0, K, INTEGER(n), REAL(mean),
                                   REAL(ss), INTEGER(expo), LOGICAL(constant),
                                   work);
  SEXP where = PROTECT(position(bad));

  const char *names[] = {"n", "mean", "ss", "expo", "constant", "bad", ""};
  SEXP out = bk_named_list(names, (SEXP[]){n, mean, ss, expo, constant, where});
  UNPROTECT(6);
  return out;
}

/* v times 2^(power * shift[j]) for column j (v a k x d matrix, or a vector
 * of d), exactly; NA shifts leave the column alone */
SEXP C_scale_pow2(SEXP v, SEXP shift, SEXP power)
{
  if (!Rf_isReal(v)) Rf_error("'v' must be a double vector or matrix");
  R_xlen_t d = Rf_isMatrix(v) ? Rf_ncols(v) : XLENGTH(v);
  R_xlen_t k = d > 0 ? XLENGTH(v) / d : 0;
  if (!Rf_isInteger(shift) || XLENGTH(shift) != d)
    Rf_error("'shift' must be an integer vector with one value per column of 'v'");
  int p = Rf_asInteger(power);
  if (p != 1 && p != 2) Rf_error("'power' must be 1 or 2");
  SEXP out = PROTECT(Rf_duplicate(v));
  bk_scale_pow2(REAL(out), k, d, INTEGER(shift), p);
  UNPROTECT(1);
  return out;
}

/* list(score, constant, bad, average): the Pearson correlation of every
 * column of x with y, the constant columns, the first non-finite value of x
 * (0: none) and the mean of every column */
SEXP C_feature_cor(SEXP x, SEXP y)
{
  bk_need_double_matrix(x, "x");
  R_xlen_t m = Rf_nrows(x), d = Rf_ncols(x);
  if (!Rf_isReal(y) || XLENGTH(y) != m)
    Rf_error("'y' must be a double vector with one value per row of 'x'");

  SEXP score = PROTECT(Rf_allocVector(REALSXP, d));
  SEXP mean = PROTECT(Rf_allocVector(REALSXP, d));
  SEXP constant = PROTECT(Rf_allocVector(LGLSXP, d));
  double *work = (double *) R_alloc(m > 0 ? (size_t) m : 1, sizeof(double));
  ptrdiff_t bad = bk_col_cor(REAL(x), m, d, REAL(y), REAL(score), REAL(mean),
                             LOGICAL(constant), work);
  SEXP where = PROTECT(position(bad));
  const char *names[] = {"score", "constant", "bad", "average", ""};
  SEXP out = bk_named_list(names, (SEXP[]){score, constant, where, mean});
  UNPROTECT(4);
  return out;
}


/* limma's prior on every permutation of maxT (bk_eb_log_moments(), then
 * bk_eb_moderate() with the priors R fits from the moments): r (p x B), the
 * squared residual norms a2, keep (logical) and df; `prior` NULL gives the
 * moments (5 x B), otherwise list(scale, df2) gives the moderated r. */
SEXP C_eb_permuted(SEXP r, SEXP a2, SEXP keep, SEXP df, SEXP prior)
{
  bk_need_double_matrix(r, "r");
  R_xlen_t p = Rf_nrows(r), B = Rf_ncols(r);
  if (TYPEOF(a2) != REALSXP || XLENGTH(a2) != p) Rf_error("'a2' must be a double of length p");
  if (TYPEOF(keep) != LGLSXP || XLENGTH(keep) != p) Rf_error("'keep' must be a logical of length p");
  if (TYPEOF(df) != REALSXP || XLENGTH(df) != 1 || !(REAL(df)[0] > 0)) Rf_error("'df' must be positive");
  if (Rf_isNull(prior)) {
    if (B > INT_MAX / 5) Rf_error("too many permutations");
    SEXP out = PROTECT(Rf_allocMatrix(REALSXP, 5, (int) B));
    bk_eb_log_moments(REAL(r), p, B, REAL(a2), LOGICAL(keep), REAL(df)[0], REAL(out));
    UNPROTECT(1);
    return out;
  }
  SEXP scale = VECTOR_ELT(prior, 0), df2 = VECTOR_ELT(prior, 1);
  if (TYPEOF(scale) != REALSXP || TYPEOF(df2) != REALSXP || XLENGTH(scale) != B ||
      XLENGTH(df2) != B) Rf_error("'prior' must be list(scale, df2), one value per column");
  SEXP out = PROTECT(Rf_duplicate(r));
  bk_eb_moderate(REAL(out), p, B, REAL(a2), LOGICAL(keep), REAL(df)[0], REAL(scale), REAL(df2));
  UNPROTECT(1);
  return out;
}

/* F' x (r x d) for the basis F (m x r) and the columns of x (m x d) */
SEXP C_feature_project(SEXP x, SEXP basis)
{
  bk_need_double_matrix(x, "x");
  bk_need_double_matrix(basis, "basis");
  R_xlen_t m = Rf_nrows(x), d = Rf_ncols(x), r = Rf_ncols(basis);
  if (Rf_nrows(basis) != m) Rf_error("'basis' must have one row per row of 'x'");
  if (r > INT_MAX || d > INT_MAX) Rf_error("'x' or 'basis' is too large");
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int) r, (int) d));
  bk_col_project(REAL(x), m, d, REAL(basis), r, REAL(out));
  UNPROTECT(1);
  return out;
}
