/*
 * scores_call.c: SEXP glue for scores.c. Cheap type and length checks only;
 * the checks a user can act on (factor levels, class sizes) are in
 * R/scores-linear.R.
 */
#include <Rmath.h>
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

/* ---- ranks, p-values and the BH adjustment of the per-feature scores ----- */

/* the radix sort's work for n values */
typedef struct {
  uint64_t *k;
  int *i;
  ptrdiff_t *count;
} sort_work;

static sort_work sort_alloc(R_xlen_t n)
{
  sort_work w;
  size_t n2 = 2 * (size_t) (n > 0 ? n : 1);
  w.k = (uint64_t *) R_alloc(n2, sizeof(uint64_t));
  w.i = (int *) R_alloc(n2, sizeof(int));
  w.count = (ptrdiff_t *) R_alloc(BK_RADIX_COUNT, sizeof(ptrdiff_t));
  return w;
}

/* a NaN that is not R's NA: R's radix sort puts it after the NAs, which the
 * core does not tell apart */
static int has_plain_nan(const double *v, R_xlen_t n)
{
  for (R_xlen_t i = 0; i < n; i++)
    if (ISNAN(v[i]) && !R_IsNA(v[i])) return 1;
  return 0;
}

/* The ranks of order(-key, -tie, na.last = TRUE, method = "radix") (tie
 * NULL: order(-key, ...)), or NULL where a key is NaN but not NA (the caller
 * then asks R) */
SEXP C_rank_desc(SEXP key, SEXP tie)
{
  if (!Rf_isReal(key)) Rf_error("'key' must be a double vector");
  R_xlen_t n = XLENGTH(key);
  if (n > INT_MAX) Rf_error("too many features to rank");
  if (!Rf_isNull(tie) && (!Rf_isReal(tie) || XLENGTH(tie) != n))
    Rf_error("'tie' must be NULL or a double vector as long as 'key'");
  const double *t = Rf_isNull(tie) ? NULL : REAL(tie);
  if (has_plain_nan(REAL(key), n) || (t && has_plain_nan(t, n))) return R_NilValue;
  sort_work w = sort_alloc(n);
  SEXP rank = PROTECT(Rf_allocVector(INTSXP, n));
  bk_rank_desc(REAL(key), t, n, INTEGER(rank), w.k, w.i, w.count);
  UNPROTECT(1);
  return rank;
}

/* stats::p.adjust(p, "BH"): NA (and NaN) stay and do not count */
SEXP C_p_adjust_bh(SEXP p)
{
  if (!Rf_isReal(p)) Rf_error("'p' must be a double vector");
  R_xlen_t n = XLENGTH(p), q = 0;
  const double *pv = REAL(p);
  SEXP out = PROTECT(Rf_allocVector(REALSXP, n));
  double *o = REAL(out);
  memcpy(o, pv, (size_t) n * sizeof(double));
  double *ok = (double *) R_alloc(n > 0 ? (size_t) n : 1, sizeof(double));
  for (R_xlen_t i = 0; i < n; i++)
    if (!ISNAN(pv[i])) ok[q++] = pv[i];
  /* p.adjust() returns one p-value, or none, as it is */
  if (q > 1) {
    sort_work w = sort_alloc(q);
    double *adj = (double *) R_alloc((size_t) q, sizeof(double));
    bk_p_adjust_bh(ok, q, adj, w.k, w.i, w.count);
    for (R_xlen_t i = 0, a = 0; i < n; i++)
      if (!ISNAN(pv[i])) o[i] = adj[a++];
  }
  UNPROTECT(1);
  return out;
}

/* 2 * pt(-|t|, df) as R computes it (Rmath's pt), 0 where t is infinite and
 * NA where it is NA or NaN; df one value or one per t */
SEXP C_two_sided_t(SEXP t, SEXP df)
{
  if (!Rf_isReal(t) || !Rf_isReal(df)) Rf_error("'t' and 'df' must be double vectors");
  R_xlen_t n = XLENGTH(t), nd = XLENGTH(df);
  if (nd != 1 && nd != n) Rf_error("'df' must be one value or one per value of 't'");
  const double *tv = REAL(t), *dv = REAL(df);
  SEXP out = PROTECT(Rf_allocVector(REALSXP, n));
  double *o = REAL(out);
  for (R_xlen_t i = 0; i < n; i++) {
    double ti = tv[i];
    if (ISNAN(ti)) o[i] = NA_REAL;
    else if (!R_FINITE(ti)) o[i] = 0.0;
    else {
      double di = dv[nd == 1 ? 0 : i];
      /* R's arithmetic on an NA or NaN df */
      o[i] = R_IsNA(di) ? NA_REAL : (ISNAN(di) ? R_NaN : 2 * pt(-fabs(ti), di, 1, 0));
    }
  }
  UNPROTECT(1);
  return out;
}
