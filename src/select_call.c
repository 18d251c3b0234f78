/* select_call.c: SEXP glue for select.c (BAHSIC and FOHSIC: the scorers of
 * scorer_*.c run by the schedule of schedule.c). */
#include <limits.h>
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
  if (t->progress != R_NilValue) {
    /* R rate-limits the updates (progress_tick()); an error or an
     * interrupt raised there unwinds as R_CheckUserInterrupt() would: the
     * scratch memory is R_alloc'ed */
    SEXP size_r = PROTECT(Rf_ScalarReal((double) size));
    SEXP call = PROTECT(Rf_lang2(t->progress, size_r));
    Rf_eval(call, R_GlobalEnv);
    UNPROTECT(2);
  }
  R_CheckUserInterrupt();
}

/* The optional R function `progress` of the options (R_NilValue when not
 * given or NULL). */
SEXP bk_opt_progress(bk_opts *op)
{
  if (!bk_opt_given(op, "progress")) return R_NilValue;
  SEXP f = bk_opt(op, "progress");
  if (f != R_NilValue && !Rf_isFunction(f))
    Rf_error("%s: option 'progress' must be a function or NULL", op->entry);
  return f;
}

/* The label factor F (m x s) and the estimator flag of the low-rank modes
 * (approx = "rff" and "ichol"). */
static const double *label_factor(bk_opts *op, ptrdiff_t m, ptrdiff_t *s,
                                  int *unbiased)
{
  ptrdiff_t nr = m;
  *s = -1;
  const double *F = bk_opt_matrix(op, "F", &nr, s);
  *unbiased = bk_opt_flag(op, "unbiased");
  return F;
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

/* x: standardised m x d double matrix; opts: a named list (read by name,
 * glue.h; an option not read is an error):
 *   mode       the estimator, a code of BK_MODE_TABLE (codes.h)
 *   kernel, p1, p2   the kernel's code (BK_KSET_SELECT) and parameters; p1
 *              may be NA when the width policy sets it
 *   direction, policy   codes of codes.h
 *   grid, grid_relative   the widths of "optimize", relative to the median
 *              heuristic if grid_relative
 *   step, n_target, threads, verbose, simd   as bk_select_opts (bahsic.h)
 *   series     the series screen of the exact Gaussian path (series.c): 0
 *              off, -1 terms chosen per iteration, 1 .. BK_SERIES_MAX_TERMS
 * and the mode's own:
 *   exact      W (m x m weights); for the clinical kernel (x encoded by
 *              clinical_encode()) also categorical, an integer flag per
 *              column
 *   block      blocks, the row offsets c(0, ..., m) (integer, nblk + 1,
 *              increasing by at least 2), and W, a list of the nblk
 *              within-block weight matrices (packed here, as the exact
 *              path's W is by bk_select_features())
 *   rff        omega (D x d), phase (D), F (m x s), unbiased
 *   ichol      tol, max_rank, F (m x s), unbiased (BAHSIC only)
 * Returns list(rank, score, iteration, path, base): base, per path row,
 * FOHSIC's HSIC of the set selected before the iteration at its width
 * (exact and block estimators; NA otherwise). */
/* The block path's option W, a list of the nblk within-block weight
 * matrices (block k: row0[k + 1] - row0[k] square), packed as the core takes
 * them: every block's upper triangle (pairs a < b, column by column), then
 * every block's diagonal. */
static const double *pack_blocks(bk_opts *op, ptrdiff_t nblk,
                                 const ptrdiff_t *row0, const ptrdiff_t *pair0)
{
  SEXP Wb = bk_opt(op, "W");
  if (!Rf_isNewList(Wb) || XLENGTH(Wb) != nblk)
    Rf_error("%s: option 'W' must be a list of %td block matrices", op->entry, nblk);
  const ptrdiff_t m = row0[nblk];
  double *W = (double *) R_alloc((size_t) (pair0[nblk] + m), sizeof(double));
  for (ptrdiff_t k = 0; k < nblk; k++) {
    SEXP w = VECTOR_ELT(Wb, k);
    const ptrdiff_t mb = row0[k + 1] - row0[k];
    if (!Rf_isReal(w) || !Rf_isMatrix(w) || Rf_nrows(w) != mb || Rf_ncols(w) != mb)
      Rf_error("%s: option 'W': block %td must be a %td x %td double matrix", op->entry,
               k + 1, mb, mb);
    bk_pack_upper(REAL(w), mb, W + pair0[k]);
    for (ptrdiff_t a = 0; a < mb; a++) W[pair0[nblk] + row0[k] + a] = REAL(w)[a + mb * a];
  }
  return W;
}

SEXP C_select(SEXP x, SEXP opts)
{
  bk_need_double_matrix(x, "x");
  ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x);
  ptrdiff_t nblk = 0, *row0 = NULL, *pair0 = NULL, ic_rank = 0;
  const double *W = NULL;
  bk_rff_select rs;
  bk_ichol_select is;
  bk_opts op;
  bk_opts_open(&op, opts, "C_select");

  const int mode = bk_opt_int(&op, "mode", -INT_MAX, INT_MAX);
  if (!bk_mode_valid(mode)) Rf_error("unknown mode code %d", mode);
  bk_select_opts o;
  o.kern.type = bk_opt_int(&op, "kernel", -INT_MAX, INT_MAX);
  if (!bk_kernel_in(o.kern.type, BK_KSET_SELECT))
    Rf_error("unsupported kernel code %d", o.kern.type);
  o.kern.p1 = bk_opt_real_na(&op, "p1");
  o.kern.p2 = bk_opt_real(&op, "p2");
  o.direction = bk_opt_int(&op, "direction", -INT_MAX, INT_MAX);
  if (!bk_direction_valid(o.direction))
    Rf_error("unknown direction code %d", o.direction);
  o.policy = bk_opt_int(&op, "policy", -INT_MAX, INT_MAX);
  if (!bk_policy_valid(o.policy)) Rf_error("unknown width policy %d", o.policy);
  R_xlen_t ngrid;
  o.grid = bk_opt_real_vector(&op, "grid", -1, &ngrid);
  o.ngrid = ngrid;
  o.grid_relative = bk_opt_flag(&op, "grid_relative");
  o.step = bk_opt_real(&op, "step");
  o.n_target = bk_opt_int(&op, "n_target", 0, (int) d);
  o.nthreads = bk_opt_threads(&op);
  const int verbose = bk_opt_flag(&op, "verbose");
  const SEXP progress = bk_opt_progress(&op);
  o.simd = bk_opt_flag(&op, "simd");
  /* the series screen: 0 off, -1 terms chosen per iteration, 1.. fixed */
  const int series = bk_opt_int(&op, "series", -1, BK_SERIES_MAX_TERMS);
  o.cat = NULL;
  o.series = NULL;
  o.base = NULL;
  /* interrupt checks within an iteration, between parallel regions */
  bk_pacer pace = {R_CheckUserInterrupt, 0};
  o.pace = &pace;
  if (o.kern.type == BK_CLINICAL && mode != BK_MODE_EXACT)
    Rf_error("the clinical kernel needs the exact estimator");

  switch (mode) {
  case BK_MODE_ICHOL:
    is.tol = bk_opt_real(&op, "tol");
    is.max_rank = bk_opt_int(&op, "max_rank", 1, INT_MAX);
    if (!(is.tol >= 0.0)) Rf_error("'tol' must be >= 0");
    if (is.max_rank > m) is.max_rank = m;
    is.F = label_factor(&op, m, &is.s, &is.unbiased);
    is.r = &ic_rank;
    nblk = no_pairs(m, &row0, &pair0);
    break;
  case BK_MODE_RFF: {
    ptrdiff_t ncol = d;
    rs.D = -1;
    rs.omega = bk_opt_matrix(&op, "omega", &rs.D, &ncol);
    rs.phase = bk_opt_real_vector(&op, "phase", rs.D, NULL);
    rs.F = label_factor(&op, m, &rs.s, &rs.unbiased);
    nblk = no_pairs(m, &row0, &pair0);
    break;
  }
  case BK_MODE_BLOCK: {
    R_xlen_t nb;
    const int *bl = bk_opt_int_vector(&op, "blocks", -1, &nb);
    if (nb < 2) Rf_error("'blocks' must be an integer vector of row offsets");
    nblk = nb - 1;
    row0 = (ptrdiff_t *) R_alloc((size_t) (nblk + 1), sizeof(ptrdiff_t));
    pair0 = (ptrdiff_t *) R_alloc((size_t) (nblk + 1), sizeof(ptrdiff_t));
    row0[0] = pair0[0] = 0;
    if (bl[0] != 0 || bl[nblk] != m)
      Rf_error("'blocks' must run from 0 to nrow(x)");
    for (ptrdiff_t k = 0; k < nblk; k++) {
      ptrdiff_t mb = (ptrdiff_t) bl[k + 1] - bl[k];
      if (mb < 2) Rf_error("every block needs at least 2 samples");
      row0[k + 1] = bl[k + 1];
      pair0[k + 1] = pair0[k] + mb * (mb - 1) / 2;
    }
    W = pack_blocks(&op, nblk, row0, pair0);
    break;
  }
  default: { /* BK_MODE_EXACT */
    ptrdiff_t nr = m, nc = m;
    W = bk_opt_matrix(&op, "W", &nr, &nc);
    if (o.kern.type == BK_CLINICAL)
      o.cat = bk_opt_int_vector(&op, "categorical", d, NULL);
    break;
  }
  }
  bk_opts_done(&op);
  if (m < 2) Rf_error("at least 2 samples are needed");
  if (o.policy == BK_SIGMA_OPTIMIZE && o.ngrid < 1)
    Rf_error("the 'optimize' policy needs a grid of widths");
  if (mode == BK_MODE_RFF) {
    if (!bk_kernel_has(o.kern.type, BK_KPROP_RFF)) {
      char with[128];
      Rf_error("random Fourier features need %s",
               bk_kernels_with(BK_KPROP_RFF, with, sizeof with));
    }
    if (o.policy == BK_SIGMA_OPTIMIZE)
      Rf_error("random Fourier features take the 'dimension' or 'fixed' width");
    int nth = o.nthreads > 1 ? o.nthreads : 1;
    rs.stride = bk_rff_select_work(m, rs.D, rs.s);
    rs.P = (double *) R_alloc((size_t) (m * rs.D), sizeof(double));
    rs.zwork = (double *) R_alloc((size_t) (nth * rs.stride), sizeof(double));
  }
  if (mode == BK_MODE_ICHOL) {
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
  bk_series se;
  if (series != 0 && mode == BK_MODE_EXACT && o.kern.type == BK_GAUSSIAN) {
    se.terms = series > 0 ? series : 0;
    se.work = (double *) R_alloc(
        (size_t) bk_series_work_doubles(m, d, o.nthreads), sizeof(double));
    o.series = &se;
  }
  bk_tick_ctx tc = {verbose, o.direction == BK_BACKWARD ? "BAHSIC" : "FOHSIC",
                    progress};

  ptrdiff_t nwork = nblk > 0 ? bk_select_blocks_work_doubles(m, pair0[nblk],
                                                             nblk, d)
                             : bk_select_work_doubles(m, d);
  double *work = (double *) R_alloc((size_t) nwork, sizeof(double));
  int *iwork = (int *) R_alloc((size_t) bk_select_work_ints(d), sizeof(int));
  double *path = (double *) R_alloc((size_t) (4 * (d + 1)), sizeof(double));
  /* FOHSIC on pairs of samples: the previous set's HSIC at each width */
  SEXP base = PROTECT(Rf_allocVector(REALSXP, d + 1));
  for (ptrdiff_t i = 0; i <= d; i++) REAL(base)[i] = NA_REAL;
  if (o.direction == BK_FORWARD &&
      (mode == BK_MODE_EXACT || mode == BK_MODE_BLOCK))
    o.base = REAL(base);

  SEXP rank = PROTECT(Rf_allocVector(INTSXP, d));
  SEXP score = PROTECT(Rf_allocVector(REALSXP, d));
  SEXP iter = PROTECT(Rf_allocVector(INTSXP, d));
  ptrdiff_t np;
  if (mode == BK_MODE_RFF || mode == BK_MODE_ICHOL) {
    const bk_blocks blk = {nblk, row0, pair0};
    np = bk_select_blocks(REAL(x), m, d, &blk, NULL, NULL, NULL,
                          mode == BK_MODE_RFF ? &rs : NULL,
                          mode == BK_MODE_ICHOL ? &is : NULL, &o, INTEGER(rank),
                          REAL(score), INTEGER(iter), path, work, iwork, bk_select_tick,
                          &tc);
  } else if (mode == BK_MODE_BLOCK) {
    const bk_blocks blk = {nblk, row0, pair0};
    np = bk_select_blocks(REAL(x), m, d, &blk, W, W + pair0[nblk],
                          NULL, NULL, NULL, &o, INTEGER(rank), REAL(score),
                          INTEGER(iter), path, work, iwork, bk_select_tick, &tc);
  } else {
    np = bk_select_features(REAL(x), m, d, W, &o, INTEGER(rank),
                            REAL(score), INTEGER(iter), path, work, iwork,
                            bk_select_tick, &tc);
  }
  SEXP pm = PROTECT(Rf_allocMatrix(REALSXP, (int) np, 4));
  for (ptrdiff_t r = 0; r < np; r++)
    for (int c = 0; c < 4; c++) REAL(pm)[r + np * c] = path[4 * r + c];

  SEXP basen = PROTECT(Rf_xlengthgets(base, np));
  const char *names[] = {"rank", "score", "iteration", "path", "base", ""};
  SEXP out = bk_named_list(names, (SEXP[]){rank, score, iter, pm, basen});
  UNPROTECT(6);
  return out;
}
