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

/* What the statistics of the labellings are computed from: the data (xt,
 * p x m), the labellings (0-based, checked) and the labels. */
typedef struct {
  R_xlen_t p, m, B;
  int stat, nthreads;
  const int *cls, *perm;
  const double *y;
} perm_in;

/* xt and perm (an m x B integer matrix of 1-based sample numbers, each
 * column a permutation), and the options method, cls or y, read from op
 * (threads is read by the caller, after any option of its own) */
static perm_in read_perm(SEXP xt, SEXP perm, bk_opts *op)
{
  bk_need_double_matrix(xt, "xt");
  perm_in in = {.p = Rf_nrows(xt), .m = Rf_ncols(xt)};
  const R_xlen_t m = in.m;
  if (!Rf_isInteger(perm) || !Rf_isMatrix(perm) || Rf_nrows(perm) != m)
    Rf_error("'perm' must be an integer matrix with one row per column of 'xt'");
  in.B = Rf_ncols(perm);
  in.stat = perm_stat(bk_opt(op, "method"));
  if (in.stat == BK_PERM_PC) {
    in.y = bk_opt_real_vector(op, "y", m, NULL);
  } else {
    in.cls = bk_opt_int_vector(op, "cls", m, NULL);
    R_xlen_t n2 = 0;
    for (R_xlen_t i = 0; i < m; i++) {
      if (in.cls[i] != 0 && in.cls[i] != 1)
        Rf_error("%s: option 'cls' must hold classes 0 and 1", op->entry);
      n2 += in.cls[i];
    }
    if (n2 < 1 || m - n2 < 1 || (in.stat != BK_PERM_LIN && m < 3))
      Rf_error("%s: too few samples in a class", op->entry);
  }
  /* 0-based, checked: the core indexes with them */
  const int *p1 = INTEGER(perm);
  int *p0 = (int *) R_alloc(m * in.B > 0 ? (size_t) (m * in.B) : 1, sizeof(int));
  /* each column a permutation: the class sizes are those of cls */
  int *seen = (int *) R_alloc(m > 0 ? (size_t) m : 1, sizeof(int));
  for (R_xlen_t b = 0; b < in.B; b++) {
    for (R_xlen_t i = 0; i < m; i++) seen[i] = 0;
    for (R_xlen_t i = 0; i < m; i++) {
      const int v = p1[i + m * b];
      if (v == NA_INTEGER || v < 1 || v > m || seen[v - 1])
        Rf_error("'perm' must hold a permutation of 1..%d in every column", (int) m);
      seen[v - 1] = 1;
      p0[i + m * b] = v - 1;
    }
  }
  in.perm = p0;
  if (in.p > INT_MAX || in.B > INT_MAX) Rf_error("'xt' or 'perm' is too large");
  return in;
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
  bk_opts op;
  bk_opts_open(&op, opts, "C_perm_stats");
  const perm_in in = read_perm(xt, perm, &op);
  const int nthreads = bk_opt_threads(&op);
  bk_opts_done(&op);
  const R_xlen_t p = in.p, B = in.B;
  double *work = (double *) R_alloc((size_t) (2 * p) * ((size_t) nthreads + 1) + 1,
                                    sizeof(double));
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int) p, (int) B));
  if (in.stat == BK_PERM_MOMENTS) {
    SEXP s2 = PROTECT(Rf_allocMatrix(REALSXP, (int) p, (int) B));
    bk_perm_stats(in.stat, REAL(xt), p, in.m, in.cls, in.y, in.perm, B, REAL(out),
                  REAL(s2), work, nthreads);
    const char *names[] = {"diff", "s2", ""};
    SEXP res = bk_named_list(names, (SEXP[]){out, s2});
    UNPROTECT(2);
    return res;
  }
  bk_perm_stats(in.stat, REAL(xt), p, in.m, in.cls, in.y, in.perm, B, REAL(out), NULL,
                work, nthreads);
  UNPROTECT(1);
  return out;
}

/* options order and thr of the counts of p features (C_maxt_count(),
 * C_maxt_fused()): order 0-based (*q of them), checked */
static const int *read_order(bk_opts *op, R_xlen_t p, R_xlen_t *q, const double **thr)
{
  const int *o1 = bk_opt_int_vector(op, "order", -1, q);
  *thr = bk_opt_real_vector(op, "thr", p, NULL);
  if (*q > p) Rf_error("%s: option 'order' is longer than the features", op->entry);
  int *o0 = (int *) R_alloc(*q > 0 ? (size_t) *q : 1, sizeof(int));
  for (R_xlen_t k = 0; k < *q; k++) {
    if (o1[k] == NA_INTEGER || o1[k] < 1 || o1[k] > p)
      Rf_error("%s: option 'order' must hold row numbers of 'stat'", op->entry);
    o0[k] = o1[k] - 1;
  }
  return o0;
}

/* list(raw, adj) of the counts (integer vectors of p and q) */
static SEXP counts_list(R_xlen_t p, R_xlen_t q, SEXP *raw, SEXP *adj)
{
  *raw = PROTECT(Rf_allocVector(INTSXP, p));
  *adj = PROTECT(Rf_allocVector(INTSXP, q));
  const char *names[] = {"raw", "adj", ""};
  SEXP res = bk_named_list(names, (SEXP[]){*raw, *adj});
  UNPROTECT(2);
  return res;
}

/* The counts of C_maxt_count() of the statistics C_perm_stats() would
 * give for xt and perm, without them: bk_maxt_fused(). opts: those of
 * C_perm_stats() but "moments", and order and thr of C_maxt_count(). */
SEXP C_maxt_fused(SEXP xt, SEXP perm, SEXP opts)
{
  bk_check_limits();
  bk_opts op;
  bk_opts_open(&op, opts, "C_maxt_fused");
  const perm_in in = read_perm(xt, perm, &op);
  if (in.stat == BK_PERM_MOMENTS)
    Rf_error("C_maxt_fused: method \"moments\" is finished in R: use C_perm_stats");
  R_xlen_t q;
  const double *thr;
  const int *order = read_order(&op, in.p, &q, &thr);
  const int nthreads = bk_opt_threads(&op);
  bk_opts_done(&op);
  double *work = (double *) R_alloc((size_t) BK_MAXT_FUSED_WORK(in.p, nthreads) + 1,
                                    sizeof(double));
  int *iwork = (int *) R_alloc((size_t) (in.p + q) * (size_t) nthreads + 1, sizeof(int));
  SEXP raw, adj, res = PROTECT(counts_list(in.p, q, &raw, &adj));
  const bk_maxt_spec sp = {.stat = in.stat, .xt = REAL(xt), .y = in.y, .thr = thr,
                           .cls = in.cls, .perm = in.perm, .order = order, .p = in.p,
                           .m = in.m, .B = in.B, .q = q};
  bk_maxt_fused(&sp, INTEGER(raw), INTEGER(adj), work, iwork, nthreads);
  UNPROTECT(1);
  return res;
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
  const double *thr;
  const int *o0 = read_order(&op, p, &q, &thr);
  const int nthreads = bk_opt_threads(&op);
  bk_opts_done(&op);
  if (p > INT_MAX) Rf_error("'stat' is too large");
  int *work = (int *) R_alloc((size_t) (p + q) * (size_t) nthreads + 1, sizeof(int));
  SEXP raw, adj, res = PROTECT(counts_list(p, q, &raw, &adj));
  bk_maxt_count(REAL(stat), p, B, o0, q, thr, INTEGER(raw), INTEGER(adj), work, nthreads);
  UNPROTECT(1);
  return res;
}
