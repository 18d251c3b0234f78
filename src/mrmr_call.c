/* mrmr_call.c: SEXP glue for mRMR with HSIC (scorer_mrmr.c, run by the
 * schedule of schedule.c). */
#include <limits.h>
#include "glue.h"
#include "mrmr.h"

/* x: standardised m x d double matrix; opts: a named list (read by name,
 * glue.h; an option not read is an error):
 *   kernel, p1, p2   the feature kernel's code (BK_KSET_DATA: a kernel on
 *              numeric data) and parameters; p1 may be NA when the width
 *              policy sets it
 *   policy     "dimension" or "fixed" (codes.h), the width of one feature
 *   unbiased   the estimator of the redundancies (that of W)
 *   ynorm      > 0: sqrt(HSIC(y, y)), every HSIC normalised (bahsic.h); 0:
 *              HSIC as it is
 *   W          the labels' weights (m x m)
 *   step, n_target, threads, verbose, simd   as for C_select
 *   progress   optional: an R function called with the set's size
 * Returns list(rank, score, iteration, path, relevance, self). */
SEXP C_mrmr(SEXP x, SEXP opts)
{
  bk_need_double_matrix(x, "x");
  const ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x);
  bk_opts op;
  bk_opts_open(&op, opts, "C_mrmr");
  bk_mrmr_opts o;
  o.kern.type = bk_opt_int(&op, "kernel", -INT_MAX, INT_MAX);
  if (!bk_kernel_in(o.kern.type, BK_KSET_DATA))
    Rf_error("unsupported kernel code %d", o.kern.type);
  o.kern.p1 = bk_opt_real_na(&op, "p1");
  o.kern.p2 = bk_opt_real(&op, "p2");
  o.policy = bk_opt_int(&op, "policy", -INT_MAX, INT_MAX);
  if (o.policy != BK_SIGMA_DIMENSION && o.policy != BK_SIGMA_FIXED)
    Rf_error("C_mrmr: the width policy must be \"dimension\" or \"fixed\"");
  o.unbiased = bk_opt_flag(&op, "unbiased");
  o.ynorm = bk_opt_real(&op, "ynorm");
  ptrdiff_t nr = m, nc = m;
  const double *W = bk_opt_matrix(&op, "W", &nr, &nc);
  o.step = bk_opt_real(&op, "step");
  o.n_target = bk_opt_int(&op, "n_target", 0, (int) d);
  o.nthreads = bk_opt_threads(&op);
  o.simd = bk_opt_flag(&op, "simd");
  bk_tick_ctx tc = {bk_opt_flag(&op, "verbose"), "mRMR", bk_opt_progress(&op)};
  bk_opts_done(&op);
  if (m < (o.unbiased ? 4 : 2)) Rf_error("C_mrmr: too few samples");
  if (!(o.step >= 0.0 && o.step < 1.0)) Rf_error("C_mrmr: 'step' must be in [0, 1)");
  bk_pacer pace = {bk_check_limits, 0};
  o.pace = &pace;

  double *work = (double *) R_alloc((size_t) bk_mrmr_work_doubles(m, d, o.nthreads),
                                    sizeof(double));
  int *iwork = (int *) R_alloc((size_t) bk_mrmr_work_ints(d), sizeof(int));
  double *path = (double *) R_alloc((size_t) (4 * (d + 1)), sizeof(double));
  SEXP rank = PROTECT(Rf_allocVector(INTSXP, d));
  SEXP score = PROTECT(Rf_allocVector(REALSXP, d));
  SEXP iter = PROTECT(Rf_allocVector(INTSXP, d));
  SEXP rel = PROTECT(Rf_allocVector(REALSXP, d));
  SEXP self = PROTECT(Rf_allocVector(REALSXP, d));
  for (ptrdiff_t j = 0; j < d; j++) REAL(rel)[j] = REAL(self)[j] = NA_REAL;
  const bk_mrmr_out out = {.rank = INTEGER(rank), .iter = INTEGER(iter),
                           .score = REAL(score), .path = path, .relevance = REAL(rel),
                           .self = REAL(self)};
  const ptrdiff_t np = bk_select_mrmr(REAL(x), m, d, W, &o, &out, work, iwork,
                                      bk_select_tick, &tc);
  SEXP pm = PROTECT(Rf_allocMatrix(REALSXP, (int) np, 4));
  for (ptrdiff_t r = 0; r < np; r++)
    for (int c = 0; c < 4; c++) REAL(pm)[r + np * c] = path[4 * r + c];
  const char *names[] = {"rank", "score", "iteration", "path", "relevance", "self", ""};
  SEXP res = bk_named_list(names, (SEXP[]){rank, score, iter, pm, rel, self});
  UNPROTECT(6);
  return res;
}
