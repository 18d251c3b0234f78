/*
 * scores_call.c: SEXP glue for scores.c. Cheap type and length checks only;
 * the checks a user can act on (factor levels, class sizes) are in
 * R/scores-linear.R.
 */
#include <stdlib.h>
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

/* mean[2, j] - mean[1, j] times 2^expo[j] for the class means of
 * bk_class_moments() (2 x d, column j in units of 2^expo[j]): the
 * difference of the class means in the data's units, as
 * C_scale_pow2(mean[2, ] - mean[1, ], expo, 1) gives it */
SEXP C_mean_diff(SEXP mean, SEXP expo)
{
  bk_need_double_matrix(mean, "mean");
  R_xlen_t d = Rf_ncols(mean);
  if (Rf_nrows(mean) != 2) Rf_error("'mean' must be a 2 x d matrix");
  if (!Rf_isInteger(expo) || XLENGTH(expo) != d)
    Rf_error("'expo' must be an integer vector with one value per column of 'mean'");
  const double *mu = REAL(mean);
  SEXP out = PROTECT(Rf_allocVector(REALSXP, d));
  double *o = REAL(out);
  for (R_xlen_t j = 0; j < d; j++) o[j] = mu[2 * j + 1] - mu[2 * j];
  bk_scale_pow2(o, 1, d, INTEGER(expo), 1);
  UNPROTECT(1);
  return out;
}

/* The mean of each column over all samples in the data's units, from its
 * class means (K x d, column j in units of 2^expo[j]) and the class sizes:
 * the numbers of colSums(mean * n) / sum(n) put back by
 * C_scale_pow2(, expo, 1), colSums()'s sum in long double as R takes it. */
static void pooled_means(const double *mean, const int *n, int K, R_xlen_t d,
                         const int *expo, double *out)
{
  double total = 0.0;
  for (int k = 0; k < K; k++) total += n[k];
  for (R_xlen_t j = 0; j < d; j++) {
    long double sum = 0.0L;
    for (int k = 0; k < K; k++) sum += mean[k + K * j] * (double) n[k];
    const double v = (double) sum / total;
    out[j] = expo[j] == BK_NO_EXPONENT ? v : bk_ldexp(v, expo[j]);
  }
}

/* list(n, mean, ss, expo, constant, bad, average): bk_class_moments(), the
 * moments of column j in units of 2^expo[j] (NA: a column of zeros or with a
 * non-finite value), bad the position of the first non-finite value of x (0:
 * none), average each column's mean in the data's units (pooled_means()) */
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
  SEXP average = PROTECT(Rf_allocVector(REALSXP, d));
  pooled_means(REAL(mean), INTEGER(n), K, d, INTEGER(expo), REAL(average));

  const char *names[] = {"n", "mean", "ss", "expo", "constant", "bad", "average", ""};
  SEXP out = bk_named_list(names, (SEXP[]){n, mean, ss, expo, constant, where, average});
  UNPROTECT(7);
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

/* Work memory of a routine that calls nothing of R's between taking it and
 * giving it back (its result allocated before): outside R's heap, where a
 * routine called for every feature_scores() would bring R's garbage
 * collection forward by its size (R_alloc() memory counts towards it). */
static void *work_take(size_t bytes)
{
  void *p = malloc(bytes > 0 ? bytes : 1);
  if (!p) Rf_error("cannot allocate %.0f bytes of work memory", (double) bytes);
  return p;
}

/* the radix sort's work for n values, in one block (work_take(); free(w.k)) */
typedef struct {
  uint64_t *k;
  int *i;
  ptrdiff_t *count;
} sort_work;

static sort_work sort_take(R_xlen_t n)
{
  sort_work w;
  size_t n2 = 2 * (size_t) (n > 0 ? n : 1);
  char *b = (char *) work_take(n2 * sizeof(uint64_t) + BK_RADIX_COUNT * sizeof(ptrdiff_t) +
                               n2 * sizeof(int));
  w.k = (uint64_t *) b;
  w.count = (ptrdiff_t *) (b + n2 * sizeof(uint64_t));
  w.i = (int *) (b + n2 * sizeof(uint64_t) + BK_RADIX_COUNT * sizeof(ptrdiff_t));
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
  SEXP rank = PROTECT(Rf_allocVector(INTSXP, n));
  int *r = INTEGER(rank);
  const double *k = REAL(key);
  sort_work w = sort_take(n);
  bk_rank_desc(k, t, n, r, w.k, w.i, w.count);
  free(w.k);
  UNPROTECT(1);
  return rank;
}

/* The order of the q p-values ok[] from the largest down, read off the
 * features' ranks (rank 1 the largest statistic), where the p-values do not
 * decrease with the rank, as those of a statistic whose p-value falls as it
 * grows (one df: mt, pc, the pooled t); pos[i] is p[i]'s place in ok[] (-1:
 * NaN, not counted); at: n ints of work. 0 where rank is no permutation of
 * 1..n or the p-values are not in its order: the caller sorts them. */
static int order_from_rank(const double *p, const int *rank, R_xlen_t n, const int *pos,
                           R_xlen_t q, int *ord, int *at)
{
  for (R_xlen_t r = 0; r < n; r++) at[r] = -1;
  for (R_xlen_t i = 0; i < n; i++) {
    const int r = rank[i];
    if (r == NA_INTEGER || r < 1 || r > n || at[r - 1] >= 0) return 0;
    at[r - 1] = (int) i;
  }
  double last = INFINITY;
  R_xlen_t a = 0;
  for (R_xlen_t r = n - 1; r >= 0; r--) {
    const int i = at[r];
    if (pos[i] < 0) continue;
    /* (a -0 among zeros: the order decides the zeros' signs; sort) */
    if (p[i] > last || (p[i] == 0.0 && signbit(p[i]))) return 0;
    last = p[i];
    ord[a++] = pos[i];
  }
  return a == q;
}

/* stats::p.adjust(p, "BH"): NA (and NaN) stay and do not count. With the
 * features' ranks (rank NULL: none) the p-values need no sort where they
 * are in the ranks' order (order_from_rank()); the same numbers. */
SEXP C_p_adjust_bh(SEXP p, SEXP rank)
{
  if (!Rf_isReal(p)) Rf_error("'p' must be a double vector");
  R_xlen_t n = XLENGTH(p), q = 0;
  if (!Rf_isNull(rank) && (!Rf_isInteger(rank) || XLENGTH(rank) != n))
    Rf_error("'rank' must be NULL or an integer vector as long as 'p'");
  if (n > INT_MAX) Rf_error("too many p-values");
  const double *pv = REAL(p);
  const int *rk = Rf_isNull(rank) ? NULL : INTEGER(rank);
  SEXP out = PROTECT(Rf_allocVector(REALSXP, n));
  double *o = REAL(out);
  memcpy(o, pv, (size_t) n * sizeof(double));
  /* ok, adj: n doubles; pos, ord, at: n ints */
  size_t n1 = n > 0 ? (size_t) n : 1;
  char *b = (char *) work_take(n1 * (2 * sizeof(double) + 3 * sizeof(int)));
  double *ok = (double *) b, *adj = ok + n1;
  int *pos = (int *) (adj + n1), *ord = pos + n1, *at = ord + n1;
  for (R_xlen_t i = 0; i < n; i++) {
    pos[i] = ISNAN(pv[i]) ? -1 : (int) q;
    if (pos[i] >= 0) ok[q++] = pv[i];
  }
  /* p.adjust() returns one p-value, or none, as it is */
  if (q > 1) {
    if (rk && order_from_rank(pv, rk, n, pos, q, ord, at)) {
      bk_p_adjust_bh_along(ok, ord, q, adj);
    } else {
      sort_work w = sort_take(q);
      bk_p_adjust_bh(ok, q, adj, w.k, w.i, w.count);
      free(w.k);
    }
    for (R_xlen_t i = 0; i < n; i++)
      if (pos[i] >= 0) o[i] = adj[pos[i]];
  }
  free(b);
  UNPROTECT(1);
  return out;
}

/* 2 * pt(-|t|, df) as R computes it: NA for an NA or NaN t, 0 for an
 * infinite one (whatever the df), R's arithmetic on an NA or NaN df */
static double two_sided_p(double t, double df)
{
  if (ISNAN(t)) return NA_REAL;
  if (!R_FINITE(t)) return 0.0;
  return R_IsNA(df) ? NA_REAL : (ISNAN(df) ? R_NaN : 2 * pt(-fabs(t), df, 1, 0));
}

SEXP C_two_sided_t(SEXP t, SEXP df)
{
  if (!Rf_isReal(t) || !Rf_isReal(df)) Rf_error("'t' and 'df' must be double vectors");
  R_xlen_t n = XLENGTH(t), nd = XLENGTH(df);
  if (nd != 1 && nd != n) Rf_error("'df' must be one value or one per value of 't'");
  const double *tv = REAL(t), *dv = REAL(df);
  SEXP out = PROTECT(Rf_allocVector(REALSXP, n));
  double *o = REAL(out);
  for (R_xlen_t i = 0; i < n; i++)
    o[i] = two_sided_p(tv[i], dv[nd == 1 ? 0 : i]);
  UNPROTECT(1);
  return out;
}

/* list(statistic, p_value): stats::cor.test()'s t = sqrt(df) r / sqrt(1 -
 * r^2) of correlations r on df = m - 2 > 0 degrees of freedom and its
 * two-sided p-value, in one pass: the operations of correlation_test_r()
 * (R/scores.R) in the same order. r^2 is rounded on its own (stored through
 * a volatile), as R rounds it, before 1 - r^2: a compiler allowed to fuse
 * a multiply and a subtract would otherwise change the last bits. */
SEXP C_cor_test(SEXP r, SEXP df)
{
  if (!Rf_isReal(r)) Rf_error("'r' must be a double vector");
  if (!Rf_isReal(df) || XLENGTH(df) != 1 || !(REAL(df)[0] > 0))
    Rf_error("'df' must be one positive number");
  R_xlen_t n = XLENGTH(r);
  const double nu = REAL(df)[0], root = sqrt(nu), *rv = REAL(r);
  SEXP t = PROTECT(Rf_allocVector(REALSXP, n));
  SEXP p = PROTECT(Rf_allocVector(REALSXP, n));
  double *tv = REAL(t), *pv = REAL(p);
  for (R_xlen_t i = 0; i < n; i++) {
    volatile double r2 = rv[i] * rv[i];
    tv[i] = root * rv[i] / sqrt(1 - r2);
    pv[i] = two_sided_p(tv[i], nu);
  }
  const char *names[] = {"statistic", "p_value", ""};
  SEXP out = bk_named_list(names, (SEXP[]){t, p});
  UNPROTECT(2);
  return out;
}

/* the number of features d of two classes' moments, mean and ss (2 x d) */
static R_xlen_t two_class_moments(SEXP mean, SEXP ss)
{
  bk_need_double_matrix(mean, "mean");
  bk_need_double_matrix(ss, "ss");
  R_xlen_t d = Rf_ncols(mean);
  if (Rf_nrows(mean) != 2 || Rf_nrows(ss) != 2 || Rf_ncols(ss) != d)
    Rf_error("'mean' and 'ss' must be 2 x d matrices");
  return d;
}

/* list(t, p_value): the t statistic of class 2 against class 1 of every
 * feature from its class moments (mean and ss, 2 x d, each column in its
 * own units: t does not see them) and its two-sided p-value, in one pass.
 * Welch's t (Song et al. 2012, eq. 24) with the Welch-Satterthwaite df, or
 * with `pooled` the pooled-variance t on m - 2 df: the operations of
 * score_t_r() (R/scores-linear.R) in the same order, so the same numbers
 * (no product is added to anything: no contraction into a fused
 * multiply-add can change them). t is NA where the difference and its
 * standard error are both 0, +-Inf where only the error is. */
SEXP C_t_from_moments(SEXP mean, SEXP ss, SEXP n, SEXP m, SEXP pooled)
{
  R_xlen_t d = two_class_moments(mean, ss);
  if (!Rf_isInteger(n) || XLENGTH(n) != 2) Rf_error("'n' must be two class sizes");
  if (!Rf_isReal(m) || XLENGTH(m) != 1) Rf_error("'m' must be one number");
  const int eq = Rf_asLogical(pooled);
  if (eq == NA_LOGICAL) Rf_error("'pooled' must be TRUE or FALSE");
  const double n1 = INTEGER(n)[0], n2 = INTEGER(n)[1], mm = REAL(m)[0];
  const double *mu = REAL(mean), *s = REAL(ss);
  SEXP t = PROTECT(Rf_allocVector(REALSXP, d));
  SEXP p = PROTECT(Rf_allocVector(REALSXP, d));
  double *tv = REAL(t), *pv = REAL(p);
  const double df_pooled = mm - 2;
  for (R_xlen_t j = 0; j < d; j++) {
    const double ss1 = s[2 * j], ss2 = s[2 * j + 1], num = mu[2 * j + 1] - mu[2 * j];
    double se, df;
    if (eq) {
      const double s2 = (ss1 + ss2) / df_pooled;
      se = sqrt(s2 * (1 / n1 + 1 / n2));
      df = df_pooled;
    } else {
      const double v1 = ss1 / (n1 - 1) / n1, v2 = ss2 / (n2 - 1) / n2;
      se = sqrt(v2 + v1);
      /* the shares of v1 + v2, so that no square underflows */
      const double w1 = v1 / (v1 + v2), w2 = 1 - w1;
      df = 1 / (w1 * w1 / (n1 - 1) + w2 * w2 / (n2 - 1));
    }
    tv[j] = se == 0 && num == 0 ? NA_REAL : num / se;
    pv[j] = two_sided_p(tv[j], df);
  }
  const char *names[] = {"t", "p_value", ""};
  SEXP out = bk_named_list(names, (SEXP[]){t, p});
  UNPROTECT(2);
  return out;
}

/* ---- limma's prior as R computes it (bk_f_dist_sums() and friends) ------- */

/* one double (any value: a prior's df may be Inf) */
static double need_number(SEXP v, const char *what)
{
  if (!Rf_isReal(v) || XLENGTH(v) != 1) Rf_error("'%s' must be one double", what);
  return REAL(v)[0];
}

/* fit_f_dist()'s sums of the variances s2 (a double vector): c(q, median,
 * mean of e, its sum of squared deviations, mean of the floored s2) */
SEXP C_f_dist_sums(SEXP s2, SEXP fallback, SEXP dg, SEXP lg)
{
  if (!Rf_isReal(s2)) Rf_error("'s2' must be a double vector");
  R_xlen_t n = XLENGTH(s2);
  const double fb = need_number(fallback, "fallback"), dgv = need_number(dg, "dg"),
               lgv = need_number(lg, "lg");
  const double *v = REAL(s2);
  SEXP out = PROTECT(Rf_allocVector(REALSXP, 5));
  double *o = REAL(out);
  double *work = (double *) work_take(2 * (size_t) (n > 0 ? n : 1) * sizeof(double));
  bk_f_dist_sums(v, n, fb, dgv, lgv, work, o);
  free(work);
  UNPROTECT(1);
  return out;
}

/* list(s2, diff): moderated_t()'s variances and differences of the class
 * means in the common unit 2^E, from bk_class_moments()'s 2 x d moments */
SEXP C_mt_common(SEXP mean, SEXP ss, SEXP expo, SEXP E, SEXP df)
{
  R_xlen_t d = two_class_moments(mean, ss);
  if (!Rf_isInteger(expo) || XLENGTH(expo) != d)
    Rf_error("'expo' must be an integer vector with one value per column of 'mean'");
  int e = Rf_asInteger(E);
  if (e == NA_INTEGER || e < -2000 || e > 2000) Rf_error("'E' must be an exponent");
  SEXP s2 = PROTECT(Rf_allocVector(REALSXP, d));
  SEXP diff = PROTECT(Rf_allocVector(REALSXP, d));
  bk_mt_common(REAL(mean), REAL(ss), INTEGER(expo), e, d, need_number(df, "df"), REAL(s2),
               REAL(diff));
  const char *names[] = {"s2", "diff", ""};
  SEXP out = bk_named_list(names, (SEXP[]){s2, diff});
  UNPROTECT(2);
  return out;
}

/* the moderated t of the variances s2 and differences diff (C_mt_common())
 * from the prior (d0, s20); NA where it is NaN (0 / 0) */
SEXP C_mt_posterior(SEXP s2, SEXP diff, SEXP su, SEXP df, SEXP d0, SEXP s20)
{
  if (!Rf_isReal(s2) || !Rf_isReal(diff) || XLENGTH(s2) != XLENGTH(diff))
    Rf_error("'s2' and 'diff' must be double vectors of one length");
  R_xlen_t d = XLENGTH(s2);
  SEXP t = PROTECT(Rf_allocVector(REALSXP, d));
  double *tv = REAL(t);
  bk_mt_posterior(REAL(s2), REAL(diff), d, need_number(su, "su"), need_number(df, "df"),
                  need_number(d0, "d0"), need_number(s20, "s20"), tv);
  for (R_xlen_t j = 0; j < d; j++)
    if (ISNAN(tv[j])) tv[j] = NA_REAL;
  UNPROTECT(1);
  return t;
}
