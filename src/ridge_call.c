/* ridge_call.c: SEXP glue for ridge.c (BAHSIC and FOHSIC with the ridge
 * kernel). */
#include <limits.h>
#include "glue.h"
#include "ridge.h"

/* x: m x d double matrix; W: m x m weights; opts: a named list (read by
 * name, glue.h; an option not read is an error): lambda; kernel, p1, p2,
 * the base kernel's code and parameters (p1 may be NA when the width policy
 * sets it); direction and policy, codes of codes.h; step, n_target,
 * verbose; grid, grid_relative, the widths of "optimize". Returns
 * list(rank, score, iteration, path). */
SEXP C_ridge_select(SEXP x, SEXP W, SEXP opts)
{
  bk_need_double_matrix(x, "x");
  bk_need_double_matrix(W, "W");
  const ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x);
  if (Rf_nrows(W) != m || Rf_ncols(W) != m)
    Rf_error("'W' must be a %td x %td matrix", m, m);
  if (m > INT_MAX || d > INT_MAX)
    Rf_error("too many rows or columns for BLAS (more than INT_MAX)");
  bk_opts op;
  bk_opts_open(&op, opts, "C_ridge_select");
  bk_ridge_opts o;
  o.lambda = bk_opt_real(&op, "lambda");
  const int type = bk_opt_int(&op, "kernel", -INT_MAX, INT_MAX);
  const double p1 = bk_opt_real_na(&op, "p1"), p2 = bk_opt_real(&op, "p2");
  o.base = bk_make_kernel(type, p1, p2);
  const int direction = bk_opt_int(&op, "direction", -INT_MAX, INT_MAX);
  o.backward = direction == BK_BACKWARD;
  o.step = bk_opt_real(&op, "step");
  o.n_target = bk_opt_int(&op, "n_target", 0, (int) d);
  const int verbose = bk_opt_flag(&op, "verbose");
  const SEXP progress = bk_opt_progress(&op);
  o.policy = bk_opt_int(&op, "policy", -INT_MAX, INT_MAX);
  R_xlen_t ngrid;
  o.grid = bk_opt_real_vector(&op, "grid", -1, &ngrid);
  o.ngrid = ngrid;
  o.grid_relative = bk_opt_flag(&op, "grid_relative");
  bk_opts_done(&op);
  if (!(o.lambda > 0.0)) Rf_error("'lambda' must be positive and finite");
  if (!(o.step >= 0.0 && o.step < 1.0)) Rf_error("'step' must be in [0, 1)");
  if (!bk_direction_valid(direction))
    Rf_error("unknown direction code %d", direction);
  if (!bk_policy_valid(o.policy))
    Rf_error("unknown width policy %d", o.policy);
  if (o.policy == BK_SIGMA_OPTIMIZE && o.ngrid < 1)
    Rf_error("'grid' must have at least one width");

  SEXP rank = PROTECT(Rf_allocVector(INTSXP, d));
  SEXP score = PROTECT(Rf_allocVector(REALSXP, d));
  SEXP iter = PROTECT(Rf_allocVector(INTSXP, d));
  double *path = (double *) R_alloc((size_t) (4 * (d + 1)), sizeof(double));
  double *work =
      (double *) R_alloc((size_t) bk_ridge_work_doubles(m, d), sizeof(double));
  int *iwork = (int *) R_alloc((size_t) bk_ridge_work_ints(d), sizeof(int));
  bk_tick_ctx ctx = {verbose, o.backward ? "BAHSIC" : "FOHSIC", progress};
  int info = 0;
  ptrdiff_t np = bk_ridge_select(REAL(x), m, d, REAL(W), &o, INTEGER(rank),
                                 REAL(score), INTEGER(iter), path, work, iwork,
                                 &info, bk_select_tick, &ctx);
  if (info != 0)
    Rf_error("the Cholesky factorisation of K + lambda I failed (LAPACK info "
             "%d): increase 'lambda'", info);
  SEXP P = PROTECT(Rf_allocMatrix(REALSXP, (int) np, 4));
  for (ptrdiff_t r = 0; r < np; r++)
    for (int c = 0; c < 4; c++) REAL(P)[r + np * c] = path[4 * r + c];
  SEXP res = PROTECT(Rf_allocVector(VECSXP, 4));
  SEXP nms = PROTECT(Rf_allocVector(STRSXP, 4));
  SET_VECTOR_ELT(res, 0, rank);
  SET_VECTOR_ELT(res, 1, score);
  SET_VECTOR_ELT(res, 2, iter);
  SET_VECTOR_ELT(res, 3, P);
  SET_STRING_ELT(nms, 0, Rf_mkChar("rank"));
  SET_STRING_ELT(nms, 1, Rf_mkChar("score"));
  SET_STRING_ELT(nms, 2, Rf_mkChar("iteration"));
  SET_STRING_ELT(nms, 3, Rf_mkChar("path"));
  Rf_setAttrib(res, R_NamesSymbol, nms);
  UNPROTECT(6);
  return res;
}
