/* pairscore_call.c: SEXP glue for pairscore.c, the exact scores and tests
 * of pairs of features of pair_scores(). */
#include <limits.h>
#include "glue.h"
#include "pairscore.h"

/* the pairs' columns i, j (1-based in R, checked and made 0-based) */
static int *pair_columns(const int *v, const char *name, R_xlen_t n,
                         ptrdiff_t d)
{
  int *out = (int *) R_alloc((size_t) (n > 0 ? n : 1), sizeof(int));
  for (R_xlen_t k = 0; k < n; k++) {
    if (v[k] == NA_INTEGER || v[k] < 1 || v[k] > d)
      Rf_error("C_pair_scores: option '%s' must hold column numbers of x", name);
    out[k] = v[k] - 1;
  }
  return out;
}

/* x: m x d double matrix; opts: a named list (read by name, glue.h):
 *   i, j             integer vectors of equal length n: the pairs (1-based)
 *   kernel, p1, p2   the kernel's code (BK_KSET_DATA) and parameters
 *   Lc, tb, ub, wb   H L H (m x m, symmetric) and its traces (bk_test_label)
 *   tb2, tb3         tr(Lc^2) and tr(Lc^3), for the skewness of the fit
 *   threads          the number of threads
 *   perms            optional: an m x B integer matrix of 0-based
 *                    permutations of the samples
 * Returns list(out, zint, zpair): out, n x 6 (bk_pair_scores(), pairscore.h),
 * and the permuted statistics over each pair's gamma scale, n x B (NULL
 * without permutations). */
SEXP C_pair_scores(SEXP x, SEXP opts)
{
  bk_need_double_matrix(x, "x");
  ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x);
  bk_opts op;
  bk_opts_open(&op, opts, "C_pair_scores");
  R_xlen_t n;
  const int *vi = bk_opt_int_vector(&op, "i", -1, &n);
  const int *vj = bk_opt_int_vector(&op, "j", n, NULL);
  bk_pair_job job = {.x = REAL(x), .m = m, .n = n};
  job.pi = pair_columns(vi, "i", n, d);
  job.pj = pair_columns(vj, "j", n, d);
  const int type = bk_opt_int(&op, "kernel", -INT_MAX, INT_MAX);
  const double p1 = bk_opt_real(&op, "p1");
  job.kern = bk_make_kernel(type, p1, bk_opt_real(&op, "p2"));
  bk_test_label lab = {NULL, NULL, 0.0, 0.0, 0.0, NULL, 0};
  ptrdiff_t r = m, c = m;
  lab.Lc = bk_opt_matrix(&op, "Lc", &r, &c);
  lab.tb = bk_opt_real(&op, "tb");
  lab.ub = bk_opt_real(&op, "ub");
  lab.wb = bk_opt_real(&op, "wb");
  job.tb2 = bk_opt_real(&op, "tb2");
  job.tb3 = bk_opt_real(&op, "tb3");
  job.lab = &lab;
  const int nthreads = bk_opt_threads(&op);
  if (bk_opt_given(&op, "perms")) {
    SEXP P = bk_opt(&op, "perms");
    if (!Rf_isInteger(P) || !Rf_isMatrix(P) || Rf_nrows(P) != m)
      Rf_error("C_pair_scores: option 'perms' must be an integer matrix with "
               "%td rows", m);
    job.B = Rf_ncols(P);
    job.perms = INTEGER(P);
    for (R_xlen_t q = 0; q < XLENGTH(P); q++)
      if (job.perms[q] < 0 || job.perms[q] >= m)
        Rf_error("C_pair_scores: option 'perms' has an index outside 0..%td",
                 m - 1);
  }
  bk_opts_done(&op);
  const ptrdiff_t nt = nthreads > 1 ? nthreads : 1;
  double *work = (double *) R_alloc((size_t) BK_PAIR_SCORE_WORK(m, nt),
                                    sizeof(double));
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int) n, 6));
  SEXP zint = PROTECT(job.B > 0 ? Rf_allocMatrix(REALSXP, (int) n, (int) job.B)
                                : R_NilValue);
  SEXP zpair = PROTECT(job.B > 0 ? Rf_allocMatrix(REALSXP, (int) n, (int) job.B)
                                 : R_NilValue);
  bk_pacer pace = {bk_check_limits, 0};
  bk_pair_scores(&job, REAL(out), job.B > 0 ? REAL(zint) : NULL,
                 job.B > 0 ? REAL(zpair) : NULL, work, nthreads, &pace);
  const char *names[] = {"out", "zint", "zpair", ""};
  SEXP values[] = {out, zint, zpair};
  SEXP res = bk_named_list(names, values);
  UNPROTECT(3);
  return res;
}
