/* ridge_call.c: SEXP glue for ridge.c (BAHSIC and FOHSIC with the ridge
 * kernel on the linear base). */
#include <limits.h>
#include <stdio.h>
#include "glue.h"

typedef struct {
  int verbose;
  const char *name;
} ridge_tick_ctx;

/* between iterations, on the main thread: Ctrl-C and progress */
static void ridge_tick(void *ctx, ptrdiff_t iter, ptrdiff_t size, double hsic,
                       double sigma)
{
  ridge_tick_ctx *t = (ridge_tick_ctx *) ctx;
  (void) sigma;
  if (t->verbose) {
    char buf[160];
    snprintf(buf, sizeof buf, "%s iteration %td: %td features, HSIC %.6g",
             t->name, iter, size, hsic);
    SEXP msg = PROTECT(Rf_mkString(buf));
    SEXP call = PROTECT(Rf_lang2(Rf_install("message"), msg));
    Rf_eval(call, R_BaseEnv);
    UNPROTECT(2);
  }
  R_CheckUserInterrupt();
}

/* x: m x d double matrix; W: m x m weights; control: c(lambda, backward,
 * step, n_target, verbose). Returns list(rank, score, iteration, path). */
SEXP C_ridge_select(SEXP x, SEXP W, SEXP control)
{
  bk_need_double_matrix(x, "x");
  bk_need_double_matrix(W, "W");
  const ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x);
  if (Rf_nrows(W) != m || Rf_ncols(W) != m)
    Rf_error("'W' must be a %td x %td matrix", m, m);
  if (!Rf_isReal(control) || XLENGTH(control) != 5)
    Rf_error("'control' must be a double vector of length 5");
  if (m > INT_MAX || d > INT_MAX)
    Rf_error("too many rows or columns for BLAS (more than INT_MAX)");
  const double *ctl = REAL(control);
  const double lambda = ctl[0], step = ctl[2];
  const int backward = ctl[1] != 0.0;
  const ptrdiff_t n_target = (ptrdiff_t) ctl[3];
  if (!(lambda > 0.0) || !R_FINITE(lambda))
    Rf_error("'lambda' must be positive and finite");
  if (!(step >= 0.0 && step < 1.0)) Rf_error("'step' must be in [0, 1)");
  if (n_target < 0 || n_target > d) Rf_error("'n_target' must be in 0..d");

  SEXP rank = PROTECT(Rf_allocVector(INTSXP, d));
  SEXP score = PROTECT(Rf_allocVector(REALSXP, d));
  SEXP iter = PROTECT(Rf_allocVector(INTSXP, d));
  double *path = (double *) R_alloc((size_t) (4 * (d + 1)), sizeof(double));
  double *work =
      (double *) R_alloc((size_t) bk_ridge_work_doubles(m, d), sizeof(double));
  int *iwork = (int *) R_alloc((size_t) bk_ridge_work_ints(d), sizeof(int));
  ridge_tick_ctx ctx = {ctl[4] != 0.0, backward ? "BAHSIC" : "FOHSIC"};
  int info = 0;
  ptrdiff_t np = bk_ridge_select(REAL(x), m, d, REAL(W), lambda, backward,
                                 step, n_target, INTEGER(rank), REAL(score),
                                 INTEGER(iter), path, work, iwork, &info,
                                 ridge_tick, &ctx);
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
