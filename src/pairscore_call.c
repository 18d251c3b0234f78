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
 * Returns the n x 6 matrix of bk_pair_scores() (pairscore.h). */
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
  bk_test_label lab = {.Lc = NULL, .Wt = NULL, .perms = NULL, .B = 0, .W = NULL};
  ptrdiff_t r = m, c = m;
  lab.Lc = bk_opt_matrix(&op, "Lc", &r, &c);
  lab.tb = bk_opt_real(&op, "tb");
  lab.ub = bk_opt_real(&op, "ub");
  lab.wb = bk_opt_real(&op, "wb");
  job.tb2 = bk_opt_real(&op, "tb2");
  job.tb3 = bk_opt_real(&op, "tb3");
  job.lab = &lab;
  const int nthreads = bk_opt_threads(&op);
  bk_opts_done(&op);
  const ptrdiff_t nt = nthreads > 1 ? nthreads : 1;
  double *work = (double *) R_alloc((size_t) BK_PAIR_SCORE_WORK(m, nt),
                                    sizeof(double));
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int) n, 6));
  bk_pacer pace = {bk_check_limits, 0};
  bk_pair_scores(&job, REAL(out), work, nthreads, &pace);
  UNPROTECT(1);
  return out;
}
