/* select_call.c: SEXP glue for select.c (BAHSIC and FOHSIC). */
#include <stdio.h>
#include "glue.h"

typedef struct {
  int verbose;
  const char *name;
} tick_ctx;

/* between iterations, on the main thread: Ctrl-C and progress */
static void tick(void *ctx, ptrdiff_t iter, ptrdiff_t size, double hsic,
                 double sigma)
{
  tick_ctx *t = (tick_ctx *) ctx;
  if (t->verbose) {
    /* through message(), so that suppressMessages() and handlers see it */
    char buf[160];
    if (ISNAN(sigma))
      snprintf(buf, sizeof buf, "%s iteration %td: %td features, HSIC %.6g",
               t->name, iter, size, hsic);
    else
      snprintf(buf, sizeof buf,
               "%s iteration %td: %td features, HSIC %.6g, sigma %.4g",
               t->name, iter, size, hsic, sigma);
    /* the string protected before Rf_lang2() allocates (what rchk asks) */
    SEXP msg = PROTECT(Rf_mkString(buf));
    SEXP call = PROTECT(Rf_lang2(Rf_install("message"), msg));
    Rf_eval(call, R_BaseEnv);
    UNPROTECT(2);
  }
  R_CheckUserInterrupt();
}

/* x: standardised m x d double matrix; W: m x m weights; kernel: c(type,
 * p1, p2); control: c(direction, policy, grid_relative, step, n_target,
 * threads, verbose, simd); categorical: for the clinical kernel (code 5,
 * x encoded by clinical_encode()) an integer flag per column, else NULL.
 * Returns list(rank, score, iteration, path). */
SEXP C_select(SEXP x, SEXP W, SEXP kernel, SEXP grid, SEXP control,
              SEXP categorical)
{
  bk_need_double_matrix(x, "x");
  ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x);
  if (!Rf_isReal(W) || !Rf_isMatrix(W) || Rf_nrows(W) != m || Rf_ncols(W) != m)
    Rf_error("'W' must be a %td x %td double matrix", m, m);
  if (!Rf_isReal(kernel) || XLENGTH(kernel) != 3)
    Rf_error("'kernel' must be c(type, p1, p2)");
  if (!Rf_isReal(grid)) Rf_error("'grid' must be a double vector");
  if (!Rf_isReal(control) || XLENGTH(control) != 8)
    Rf_error("'control' must be a double vector of length 8");
  if (m < 2) Rf_error("at least 2 samples are needed");

  const double *ctl = REAL(control);
  bk_select_opts o;
  o.direction = (int) ctl[0];
  o.kern.type = (int) REAL(kernel)[0];
  o.kern.p1 = REAL(kernel)[1];
  o.kern.p2 = REAL(kernel)[2];
  o.policy = (int) ctl[1];
  o.grid = REAL(grid);
  o.ngrid = XLENGTH(grid);
  o.grid_relative = (int) ctl[2];
  o.step = ctl[3];
  o.n_target = (ptrdiff_t) ctl[4];
  o.nthreads = (int) ctl[5];
  o.simd = (int) ctl[7];
  if (o.kern.type < BK_POLYNOMIAL || o.kern.type > BK_CLINICAL)
    Rf_error("unsupported kernel code %d", o.kern.type);
  o.cat = NULL;
  if (o.kern.type == BK_CLINICAL) {
    if (!Rf_isInteger(categorical) || XLENGTH(categorical) != d)
      Rf_error("'categorical' must be an integer vector of length ncol(x)");
    o.cat = INTEGER(categorical);
  }
  if (o.policy == BK_SIGMA_OPTIMIZE && o.ngrid < 1)
    Rf_error("the 'optimize' policy needs a grid of widths");
  tick_ctx tc = {(int) ctl[6], o.direction == BK_BACKWARD ? "BAHSIC" : "FOHSIC"};

  double *work = (double *) R_alloc((size_t) bk_select_work_doubles(m, d),
                                    sizeof(double));
  int *iwork = (int *) R_alloc((size_t) bk_select_work_ints(d), sizeof(int));
  double *path = (double *) R_alloc((size_t) (4 * (d + 1)), sizeof(double));

  SEXP rank = PROTECT(Rf_allocVector(INTSXP, d));
  SEXP score = PROTECT(Rf_allocVector(REALSXP, d));
  SEXP iter = PROTECT(Rf_allocVector(INTSXP, d));
  ptrdiff_t np = bk_select_features(REAL(x), m, d, REAL(W), &o, INTEGER(rank),
                                    REAL(score), INTEGER(iter), path, work,
                                    iwork, tick, &tc);
  SEXP pm = PROTECT(Rf_allocMatrix(REALSXP, (int) np, 4));
  for (ptrdiff_t r = 0; r < np; r++)
    for (int c = 0; c < 4; c++) REAL(pm)[r + np * c] = path[4 * r + c];

  const char *names[] = {"rank", "score", "iteration", "path", ""};
  SEXP out = bk_named_list(names, (SEXP[]){rank, score, iter, pm});
  UNPROTECT(4);
  return out;
}
