/* select_call.c: SEXP glue for select.c (BAHSIC and FOHSIC). */
#include <stdio.h>
#include "glue.h"

/* between iterations, on the main thread: Ctrl-C and progress (also the
 * ridge loop's, ridge_call.c) */
void bk_select_tick(void *ctx, ptrdiff_t iter, ptrdiff_t size, double hsic,
                    double sigma)
{
  bk_tick_ctx *t = (bk_tick_ctx *) ctx;
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

/* The label factor F (m x s) and the estimator flag of the low-rank paths
 * (approx = "rff" and "ichol"). */
static const double *label_factor(SEXP F, SEXP ub, ptrdiff_t m, ptrdiff_t *s,
                                  int *unbiased)
{
  bk_need_double_matrix(F, "F");
  *s = Rf_ncols(F);
  if (Rf_nrows(F) != m || *s < 1)
    Rf_error("'F' must have nrow(x) rows and at least one column");
  if (!Rf_isLogical(ub) || XLENGTH(ub) != 1)
    Rf_error("'unbiased' must be TRUE or FALSE");
  *unbiased = LOGICAL(ub)[0] == 1;
  return REAL(F);
}

/* The low-rank paths keep no pairs of samples: one block of all m rows with
 * none. Returns the number of blocks, 1. */
static ptrdiff_t no_pairs(ptrdiff_t m, ptrdiff_t **row0, ptrdiff_t **pair0)
{
  *row0 = (ptrdiff_t *) R_alloc(2, sizeof(ptrdiff_t));
  *pair0 = (ptrdiff_t *) R_alloc(2, sizeof(ptrdiff_t));
  (*row0)[0] = (*pair0)[0] = (*pair0)[1] = 0;
  (*row0)[1] = m;
  return 1;
}

/* x: standardised m x d double matrix; W: m x m weights; kernel: c(type,
 * p1, p2); control: c(direction, policy, grid_relative, step, n_target,
 * threads, verbose, simd); categorical: for the clinical kernel (code 5,
 * x encoded by clinical_encode()) an integer flag per column, else NULL;
 * blocks: NULL for the exact estimator, or the block estimator's row
 * offsets c(0, ..., m) (integer, nblk + 1, increasing by at least 2), and
 * then W is the double vector c(packed within-block weights, diagonal);
 * rff: NULL, or for approx = "rff" list(omega (D x d), phase (D), F (m x s),
 * unbiased (logical)), and then W and blocks are ignored; ichol: NULL, or
 * for approx = "ichol" (BAHSIC) list(tol, max_rank, F (m x s), unbiased).
 * Returns list(rank, score, iteration, path). */
SEXP C_select(SEXP x, SEXP W, SEXP kernel, SEXP grid, SEXP control,
              SEXP categorical, SEXP blocks, SEXP rff, SEXP ichol)
{
  bk_need_double_matrix(x, "x");
  ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x);
  ptrdiff_t nblk = 0, *row0 = NULL, *pair0 = NULL, ic_rank = 0;
  bk_rff_select rs;
  bk_ichol_select is;
  if (!Rf_isNull(ichol)) {
    if (!Rf_isNewList(ichol) || XLENGTH(ichol) != 4)
      Rf_error("'ichol' must be list(tol, max_rank, F, unbiased)");
    is.tol = Rf_asReal(VECTOR_ELT(ichol, 0));
    is.max_rank = (ptrdiff_t) Rf_asInteger(VECTOR_ELT(ichol, 1));
    if (!(is.tol >= 0.0) || is.max_rank < 1)
      Rf_error("'tol' must be >= 0 and 'max_rank' >= 1");
    if (is.max_rank > m) is.max_rank = m;
    is.F = label_factor(VECTOR_ELT(ichol, 2), VECTOR_ELT(ichol, 3), m, &is.s,
                        &is.unbiased);
    is.r = &ic_rank;
    nblk = no_pairs(m, &row0, &pair0);
  } else if (!Rf_isNull(rff)) {
    if (!Rf_isNewList(rff) || XLENGTH(rff) != 4)
      Rf_error("'rff' must be list(omega, phase, F, unbiased)");
    SEXP om = VECTOR_ELT(rff, 0), ph = VECTOR_ELT(rff, 1);
    bk_need_double_matrix(om, "omega");
    rs.D = Rf_nrows(om);
    if (Rf_ncols(om) != d || rs.D < 1)
      Rf_error("'omega' must have ncol(x) columns and at least one row");
    if (!Rf_isReal(ph) || XLENGTH(ph) != rs.D)
      Rf_error("'phase' must be a double vector of length nrow(omega)");
    rs.omega = REAL(om);
    rs.phase = REAL(ph);
    rs.F = label_factor(VECTOR_ELT(rff, 2), VECTOR_ELT(rff, 3), m, &rs.s, &rs.unbiased);
    nblk = no_pairs(m, &row0, &pair0);
  } else if (!Rf_isNull(blocks)) {
    if (!Rf_isInteger(blocks) || XLENGTH(blocks) < 2)
      Rf_error("'blocks' must be an integer vector of row offsets");
    nblk = XLENGTH(blocks) - 1;
    row0 = (ptrdiff_t *) R_alloc((size_t) (nblk + 1), sizeof(ptrdiff_t));
    pair0 = (ptrdiff_t *) R_alloc((size_t) (nblk + 1), sizeof(ptrdiff_t));
    const int *bl = INTEGER(blocks);
    row0[0] = pair0[0] = 0;
    if (bl[0] != 0 || bl[nblk] != m)
      Rf_error("'blocks' must run from 0 to nrow(x)");
    for (ptrdiff_t k = 0; k < nblk; k++) {
      ptrdiff_t mb = (ptrdiff_t) bl[k + 1] - bl[k];
      if (mb < 2) Rf_error("every block needs at least 2 samples");
      row0[k + 1] = bl[k + 1];
      pair0[k + 1] = pair0[k] + mb * (mb - 1) / 2;
    }
    if (!Rf_isReal(W) || XLENGTH(W) != pair0[nblk] + m)
      Rf_error("'W' must be a double vector of length %td",
               (ptrdiff_t) (pair0[nblk] + m));
  } else if (!Rf_isReal(W) || !Rf_isMatrix(W) || Rf_nrows(W) != m ||
             Rf_ncols(W) != m) {
    Rf_error("'W' must be a %td x %td double matrix", m, m);
  }
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
  if (!bk_kernel_in(o.kern.type, BK_KSET_SELECT))
    Rf_error("unsupported kernel code %d", o.kern.type);
  if (!bk_direction_valid(o.direction))
    Rf_error("unknown direction code %d", o.direction);
  if (!bk_policy_valid(o.policy)) Rf_error("unknown width policy %d", o.policy);
  o.cat = NULL;
  if (o.kern.type == BK_CLINICAL) {
    if (nblk > 0) Rf_error("the clinical kernel needs the exact estimator");
    if (!Rf_isInteger(categorical) || XLENGTH(categorical) != d)
      Rf_error("'categorical' must be an integer vector of length ncol(x)");
    o.cat = INTEGER(categorical);
  }
  if (o.policy == BK_SIGMA_OPTIMIZE && o.ngrid < 1)
    Rf_error("the 'optimize' policy needs a grid of widths");
  if (Rf_isNull(ichol) && !Rf_isNull(rff)) {
    if (o.kern.type != BK_GAUSSIAN && o.kern.type != BK_LAPLACE)
      Rf_error("random Fourier features need a Gaussian or Laplace kernel");
    if (o.policy == BK_SIGMA_OPTIMIZE)
      Rf_error("random Fourier features take the 'dimension' or 'fixed' width");
    int nth = o.nthreads > 1 ? o.nthreads : 1;
    rs.stride = bk_rff_select_work(m, rs.D, rs.s);
    rs.P = (double *) R_alloc((size_t) (m * rs.D), sizeof(double));
    rs.zwork = (double *) R_alloc((size_t) (nth * rs.stride), sizeof(double));
  }
  if (!Rf_isNull(ichol)) {
    if (o.kern.type == BK_CLINICAL)
      Rf_error("the clinical kernel needs the exact estimator");
    if (o.direction != BK_BACKWARD)
      Rf_error("the incomplete Cholesky path is for BAHSIC only");
    if (o.policy == BK_SIGMA_OPTIMIZE)
      Rf_error("the incomplete Cholesky path takes the 'dimension' or 'fixed' width");
    int nth = o.nthreads > 1 ? o.nthreads : 1;
    ptrdiff_t r = is.max_rank;
    is.stride = bk_ichol_select_work(m, r, is.s);
    is.xbuf = (double *) R_alloc((size_t) (m * d > 0 ? m * d : 1), sizeof(double));
    is.G0 = (double *) R_alloc((size_t) (m * r), sizeof(double));
    is.Qmp = (double *) R_alloc((size_t) (m * r), sizeof(double));
    is.res = (double *) R_alloc((size_t) m, sizeof(double));
    is.piv = (int *) R_alloc((size_t) r, sizeof(int));
    is.zwork = (double *) R_alloc((size_t) (nth * is.stride), sizeof(double));
  }
  bk_tick_ctx tc = {(int) ctl[6], o.direction == BK_BACKWARD ? "BAHSIC" : "FOHSIC"};

  ptrdiff_t nwork = nblk > 0 ? bk_select_blocks_work_doubles(m, pair0[nblk],
                                                             nblk, d)
                             : bk_select_work_doubles(m, d);
  double *work = (double *) R_alloc((size_t) nwork, sizeof(double));
  int *iwork = (int *) R_alloc((size_t) bk_select_work_ints(d), sizeof(int));
  double *path = (double *) R_alloc((size_t) (4 * (d + 1)), sizeof(double));

  SEXP rank = PROTECT(Rf_allocVector(INTSXP, d));
  SEXP score = PROTECT(Rf_allocVector(REALSXP, d));
  SEXP iter = PROTECT(Rf_allocVector(INTSXP, d));
  ptrdiff_t np;
  if (!Rf_isNull(ichol) || !Rf_isNull(rff)) {
    const bk_blocks blk = {nblk, row0, pair0};
    np = bk_select_blocks(REAL(x), m, d, &blk, NULL, NULL, NULL,
                          Rf_isNull(ichol) ? &rs : NULL,
                          Rf_isNull(ichol) ? NULL : &is, &o, INTEGER(rank),
                          REAL(score), INTEGER(iter), path, work, iwork, bk_select_tick,
                          &tc);
  } else if (nblk > 0) {
    const bk_blocks blk = {nblk, row0, pair0};
    np = bk_select_blocks(REAL(x), m, d, &blk, REAL(W), REAL(W) + pair0[nblk],
                          NULL, NULL, NULL, &o, INTEGER(rank), REAL(score),
                          INTEGER(iter), path, work, iwork, bk_select_tick, &tc);
  } else {
    np = bk_select_features(REAL(x), m, d, REAL(W), &o, INTEGER(rank),
                            REAL(score), INTEGER(iter), path, work, iwork,
                            bk_select_tick, &tc);
  }
  SEXP pm = PROTECT(Rf_allocMatrix(REALSXP, (int) np, 4));
  for (ptrdiff_t r = 0; r < np; r++)
    for (int c = 0; c < 4; c++) REAL(pm)[r + np * c] = path[4 * r + c];

  const char *names[] = {"rank", "score", "iteration", "path", ""};
  SEXP out = bk_named_list(names, (SEXP[]){rank, score, iter, pm});
  UNPROTECT(4);
  return out;
}
