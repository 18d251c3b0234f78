/*
 * maxt_call.c: SEXP glue for maxt.c. Cheap type, length and range checks
 * only; the checks a user can act on (class sizes, n_perm) are in
 * R/permutation.R, which draws the permutations.
 */
#include <string.h>
#include "glue.h"
#include "inference.h"

/* the statistic of maxt.c for R's name of it */
static int perm_stat(SEXP s)
{
  static const char *names[] = {"t", "t_pooled", "lin", "snr", "pc", "moments"};
  static const int codes[] = {BK_PERM_WELCH, BK_PERM_POOLED, BK_PERM_LIN,
                              BK_PERM_SNR, BK_PERM_PC, BK_PERM_MOMENTS};
  if (Rf_isString(s) && XLENGTH(s) == 1 && STRING_ELT(s, 0) != NA_STRING)
    for (size_t k = 0; k < sizeof codes / sizeof codes[0]; k++)
      if (strcmp(CHAR(STRING_ELT(s, 0)), names[k]) == 0) return codes[k];
  Rf_error("C_perm_stats: option 'method' must be one of \"t\", \"t_pooled\", "
           "\"lin\", \"snr\", \"pc\", \"moments\"");
  return 0; /* not reached */
}

/* The statistics of every row of xt (features x samples) under the
 * labellings in the columns of perm (an m x B integer matrix of 1-based
 * sample numbers): a p x B matrix, or for method "moments" list(diff, s2).
 * opts:
 *   method    "t", "t_pooled", "lin", "snr", "pc" or "moments"
 *   cls       the classes 0/1 of the samples (not for "pc")
 *   y         the centred, unit-norm outcome (for "pc" only)
 *   threads   the number of threads */
SEXP C_perm_stats(SEXP xt, SEXP perm, SEXP opts)
{
  /* between batches, on the main thread */
  bk_check_limits();
  bk_need_double_matrix(xt, "xt");
  const R_xlen_t p = Rf_nrows(xt), m = Rf_ncols(xt);
  if (!Rf_isInteger(perm) || !Rf_isMatrix(perm) || Rf_nrows(perm) != m)
    Rf_error("'perm' must be an integer matrix with one row per column of 'xt'");
  const R_xlen_t B = Rf_ncols(perm);
  bk_opts op;
  bk_opts_open(&op, opts, "C_perm_stats");
  const int stat = perm_stat(bk_opt(&op, "method"));
  const int *cls = NULL;
  const double *y = NULL;
  if (stat == BK_PERM_PC) {
    y = bk_opt_real_vector(&op, "y", m, NULL);
  } else {
    cls = bk_opt_int_vector(&op, "cls", m, NULL);
    R_xlen_t n2 = 0;
    for (R_xlen_t i = 0; i < m; i++) {
      if (cls[i] != 0 && cls[i] != 1)
        Rf_error("C_perm_stats: option 'cls' must hold classes 0 and 1");
      n2 += cls[i];
    }
    if (n2 < 1 || m - n2 < 1 || (stat != BK_PERM_LIN && m < 3))
      Rf_error("C_perm_stats: too few samples in a class");
  }
  const int nthreads = bk_opt_threads(&op);
  bk_opts_done(&op);

  /* 0-based, checked: the core indexes with them */
  const int *p1 = INTEGER(perm);
  int *p0 = (int *) R_alloc(m * B > 0 ? (size_t) (m * B) : 1, sizeof(int));
  /* each column a permutation: the class sizes are those of cls */
  int *seen = (int *) R_alloc(m > 0 ? (size_t) m : 1, sizeof(int));
  for (R_xlen_t b = 0; b < B; b++) {
    for (R_xlen_t i = 0; i < m; i++) seen[i] = 0;
    for (R_xlen_t i = 0; i < m; i++) {
      const int v = p1[i + m * b];
      if (v == NA_INTEGER || v < 1 || v > m || seen[v - 1])
        Rf_error("'perm' must hold a permutation of 1..%d in every column", (int) m);
      seen[v - 1] = 1;
      p0[i + m * b] = v - 1;
    }
  }
  if (p > INT_MAX || B > INT_MAX) Rf_error("'xt' or 'perm' is too large");
  double *work = (double *) R_alloc((size_t) (2 * p) * ((size_t) nthreads + 1) + 1,
                                    sizeof(double));
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int) p, (int) B));
  if (stat == BK_PERM_MOMENTS) {
    SEXP s2 = PROTECT(Rf_allocMatrix(REALSXP, (int) p, (int) B));
    bk_perm_stats(stat, REAL(xt), p, m, cls, y, p0, B, REAL(out), REAL(s2),
                  work, nthreads);
    const char *names[] = {"diff", "s2", ""};
    SEXP res = bk_named_list(names, (SEXP[]){out, s2});
    UNPROTECT(2);
    return res;
  }
  bk_perm_stats(stat, REAL(xt), p, m, cls, y, p0, B, REAL(out), NULL, work,
                nthreads);
  UNPROTECT(1);
  return out;
}

/* The step-down maxT counts of the columns of stat (p x B): list(raw = p
 * counts, adj = one count per entry of order). opts:
 *   order     the features by decreasing observed |statistic| (1-based;
 *             those with an observed statistic only)
 *   thr       one threshold per feature: the observed |statistic| less a
 *             rounding allowance
 *   threads   the number of threads */
SEXP C_maxt_count(SEXP stat, SEXP opts)
{
  bk_check_limits();
  bk_need_double_matrix(stat, "stat");
  const R_xlen_t p = Rf_nrows(stat), B = Rf_ncols(stat);
  bk_opts op;
  bk_opts_open(&op, opts, "C_maxt_count");
  R_xlen_t q;
  const int *o1 = bk_opt_int_vector(&op, "order", -1, &q);
  const double *thr = bk_opt_real_vector(&op, "thr", p, NULL);
  const int nthreads = bk_opt_threads(&op);
  bk_opts_done(&op);
  if (q > p) Rf_error("C_maxt_count: option 'order' is longer than the rows of 'stat'");
  int *o0 = (int *) R_alloc(q > 0 ? (size_t) q : 1, sizeof(int));
  for (R_xlen_t k = 0; k < q; k++) {
    if (o1[k] == NA_INTEGER || o1[k] < 1 || o1[k] > p)
      Rf_error("C_maxt_count: option 'order' must hold row numbers of 'stat'");
    o0[k] = o1[k] - 1;
  }
  if (p > INT_MAX) Rf_error("'stat' is too large");
  int *work = (int *) R_alloc((size_t) (p + q) * (size_t) nthreads + 1, sizeof(int));
  SEXP raw = PROTECT(Rf_allocVector(INTSXP, p));
  SEXP adj = PROTECT(Rf_allocVector(INTSXP, q));
  bk_maxt_count(REAL(stat), p, B, o0, q, thr, INTEGER(raw), INTEGER(adj),
                work, nthreads);
  const char *names[] = {"raw", "adj", ""};
  SEXP res = bk_named_list(names, (SEXP[]){raw, adj});
  UNPROTECT(2);
  return res;
}
