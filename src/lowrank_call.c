/* lowrank_call.c: SEXP glue for lowrank.c. */
#include <limits.h>
#include "glue.h"
#include "lowrank.h"

/* list(G = m x r factor, pivots = 1-based integer r, residual = the largest
 * residual diagonal left, trace = trace(K), residual_trace = trace(K - G G'),
 * the sum of the residual diagonal) for a kernel with its width resolved.
 * x: m x d double matrix, or for BK_PRECOMPUTED the m x m kernel matrix;
 * opts: a named list (read by name, glue.h):
 *   kernel, p1, p2   the kernel's code (BK_KSET_DATA or BK_PRECOMPUTED) and
 *              its parameters, finite (read, unused, for BK_PRECOMPUTED)
 *   tol        stop when the largest residual diagonal is <= tol times the
 *              largest diagonal of K (>= 0)
 *   max_rank   the rank cap (>= 1; above m, m)
 *
 * G grows with the rank (64 columns, then doubling up to max_rank), so a
 * factorisation that stops early by 'tol' holds about m x 2r doubles, not
 * m x max_rank. At most 2 m max_rank doubles are live at once (a buffer and
 * its successor while the columns are copied, or the last buffer and the
 * m x r result; a full buffer is the result itself), the bound the R side
 * checks against the memory budget. */
SEXP C_ichol(SEXP x, SEXP opts)
{
  bk_need_double_matrix(x, "x");
  ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x);
  bk_opts op;
  bk_opts_open(&op, opts, "C_ichol");
  const int type = bk_opt_int(&op, "kernel", -INT_MAX, INT_MAX);
  const double p1 = bk_opt_real(&op, "p1"), p2 = bk_opt_real(&op, "p2");
  const double t = bk_opt_real(&op, "tol");
  if (!(t >= 0.0)) Rf_error("C_ichol: option 'tol' must be >= 0");
  ptrdiff_t mr = bk_opt_int(&op, "max_rank", 1, INT_MAX);
  bk_opts_done(&op);
  bk_kernel k = {BK_PRECOMPUTED, 0.0, 0.0};
  if (type == BK_PRECOMPUTED) {
    if (d != m) Rf_error("a precomputed kernel must be a square matrix");
  } else {
    k = bk_make_kernel(type, p1, p2);
  }
  if (mr > m) mr = m;
  int *piv = (int *) R_alloc((size_t) (mr > 0 ? mr : 1), sizeof(int));
  double *res = (double *) R_alloc((size_t) (m > 0 ? m : 1), sizeof(double));
  double trace;
  const double dmax = bk_ichol_diag(REAL(x), m, d, &k, res, &trace);
  ptrdiff_t cap = mr < 64 ? mr : 64, r = 0;
  bk_pacer pace = {bk_check_limits, 0};
  PROTECT_INDEX ipx;
  SEXP Gbuf = Rf_allocVector(REALSXP, m * cap > 0 ? m * cap : 1);
  PROTECT_WITH_INDEX(Gbuf, &ipx);
  for (;;) {
    /* the columns up to cap in steps of about BK_CHECK_OPS operations (a
     * column costs m (d + r)), an interrupt check between steps: the
     * factorisation goes on where it stopped, the same columns as in one
     * call */
    const double cost = (double) m * (double) (d + r + 8);
    const ptrdiff_t step = bk_pace_group(&pace, cost, cap - r, 1);
    const ptrdiff_t want = r + step;
    r = bk_ichol_extend(REAL(x), m, d, &k, t * dmax, r, want, REAL(Gbuf), piv,
                        res);
    if (r < want) break;
    bk_check_limits();
    if (r < cap) continue;
    if (cap == mr) break;
    /* full: the next buffer, the columns so far copied into it */
    ptrdiff_t next = 2 * cap < mr ? 2 * cap : mr;
    SEXP grown = PROTECT(Rf_allocVector(REALSXP, m * next));
    memcpy(REAL(grown), REAL(Gbuf), (size_t) (m * r) * sizeof(double));
    REPROTECT(Gbuf = grown, ipx);
    UNPROTECT(1); /* grown, now held by ipx */
    cap = next;
  }
  double resid = 0.0, rtrace = 0.0;
  for (ptrdiff_t i = 0; i < m; i++)
    if (res[i] >= 0.0) { /* pivoted rows carry -1 */
      if (res[i] > resid) resid = res[i];
      rtrace += res[i];
    }
  SEXP Gout;
  if (r == cap && r > 0) {
    Gout = Gbuf; /* full: the result itself */
    SEXP dim = PROTECT(Rf_allocVector(INTSXP, 2));
    INTEGER(dim)[0] = (int) m;
    INTEGER(dim)[1] = (int) r;
    Rf_setAttrib(Gout, R_DimSymbol, dim);
    UNPROTECT(1);
    PROTECT(Gout);
  } else {
    Gout = PROTECT(Rf_allocMatrix(REALSXP, (int) m, (int) r));
    if (r > 0) memcpy(REAL(Gout), REAL(Gbuf), (size_t) (m * r) * sizeof(double));
  }
  SEXP pout = PROTECT(Rf_allocVector(INTSXP, r));
  for (ptrdiff_t j = 0; j < r; j++) INTEGER(pout)[j] = piv[j] + 1;
  SEXP rout = PROTECT(Rf_ScalarReal(resid));
  SEXP tout = PROTECT(Rf_ScalarReal(trace));
  SEXP rtout = PROTECT(Rf_ScalarReal(rtrace));
  const char *names[] = {"G", "pivots", "residual", "trace", "residual_trace", ""};
  SEXP vals[] = {Gout, pout, rout, tout, rtout};
  SEXP out = bk_named_list(names, vals);
  UNPROTECT(6);
  return out;
}

SEXP C_lowrank_hsic(SEXP G, SEXP F)
{
  bk_need_double_matrix(G, "G");
  bk_need_double_matrix(F, "F");
  ptrdiff_t m = Rf_nrows(G), r = Rf_ncols(G), s = Rf_ncols(F);
  if (Rf_nrows(F) != m) Rf_error("'F' must have %td rows, as 'G'", m);
  double *work = (double *) R_alloc((size_t) BK_LOWRANK_HSIC_WORK(m, r, s) + 1,
                                    sizeof(double));
  SEXP out = PROTECT(Rf_allocVector(REALSXP, 3));
  bk_pacer pace = {bk_check_limits, 0};
  bk_lowrank_hsic_ck(REAL(G), m, r, REAL(F), s, REAL(out), work, &pace);
  UNPROTECT(1);
  return out;
}

SEXP C_rff(SEXP x, SEXP W, SEXP b)
{
  bk_need_double_matrix(x, "x");
  bk_need_double_matrix(W, "W");
  ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x), D = Rf_nrows(W);
  if (Rf_ncols(W) != d) Rf_error("'W' must have %td columns, as 'x'", d);
  if (!Rf_isReal(b) || XLENGTH(b) != D)
    Rf_error("'b' must be a double vector of length %td", D);
  SEXP Z = PROTECT(Rf_allocMatrix(REALSXP, (int) m, (int) D));
  bk_rff(REAL(x), m, d, REAL(W), REAL(b), D, REAL(Z));
  UNPROTECT(1);
  return Z;
}

/* c(HSIC0, HSIC1, variance of HSIC1) of bk_lowrank_hsic() for the random
 * features of x (m x d double matrix) and the label factor F (m x s),
 * without the m x D feature matrix (bk_rff_hsic()). opts: a named list
 * (read by name, glue.h):
 *   W, b       the frequencies (D x d) and the phases (D), as C_rff's
 *   chunk      the features made at a time (>= 1; above D, D)
 *   threads    the number of threads (the result does not depend on it)
 *   simd       TRUE: the AVX2 copy of the projections where the CPU has it
 *              (the same bits) */
SEXP C_rff_hsic(SEXP x, SEXP F, SEXP opts)
{
  bk_need_double_matrix(x, "x");
  bk_need_double_matrix(F, "F");
  ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x), s = Rf_ncols(F);
  if (Rf_nrows(F) != m) Rf_error("'F' must have %td rows, as 'x'", m);
  bk_opts op;
  bk_opts_open(&op, opts, "C_rff_hsic");
  ptrdiff_t D = -1, dw = d;
  const double *W = bk_opt_matrix(&op, "W", &D, &dw);
  const double *b = bk_opt_real_vector(&op, "b", D, NULL);
  ptrdiff_t chunk = bk_opt_int(&op, "chunk", 1, INT_MAX);
  const int nthreads = bk_opt_threads(&op);
  const int simd = bk_opt_flag(&op, "simd");
  bk_opts_done(&op);
  if (chunk > D) chunk = D;
  double *work = (double *) R_alloc((size_t) BK_RFF_HSIC_WORK(m, D, s, chunk) + 1,
                                    sizeof(double));
  SEXP out = PROTECT(Rf_allocVector(REALSXP, 3));
  bk_pacer pace = {bk_check_limits, 0};
  bk_rff_hsic(REAL(x), m, d, W, b, D, REAL(F), s, chunk, nthreads, simd, REAL(out),
              work, &pace);
  UNPROTECT(1);
  return out;
}

/* c(HSIC0, HSIC1, variance of HSIC1) of bk_lowrank_hsic() for the random
 * features of x (m x d) and of y (m x dy, double matrices), without either
 * m x D feature matrix (bk_rff_hsic2()). opts: a named list (read by name,
 * glue.h):
 *   W, b       the data side's frequencies (D x d) and phases (D)
 *   Wy, by     the label side's (S x dy, S)
 *   rows       the samples taken at a time (>= 1; above m, m)
 *   threads    the number of threads (the result does not depend on it)
 *   simd       TRUE: the AVX2 copy of the projections where the CPU has it
 *              (the same bits) */
SEXP C_rff_hsic2(SEXP x, SEXP y, SEXP opts)
{
  bk_need_double_matrix(x, "x");
  bk_need_double_matrix(y, "y");
  ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x), dy = Rf_ncols(y);
  if (Rf_nrows(y) != m) Rf_error("'y' must have %td rows, as 'x'", m);
  bk_opts op;
  bk_opts_open(&op, opts, "C_rff_hsic2");
  ptrdiff_t D = -1, S = -1, dw = d, dwy = dy;
  const double *W = bk_opt_matrix(&op, "W", &D, &dw);
  const double *b = bk_opt_real_vector(&op, "b", D, NULL);
  const double *Wy = bk_opt_matrix(&op, "Wy", &S, &dwy);
  const double *by = bk_opt_real_vector(&op, "by", S, NULL);
  ptrdiff_t rows = bk_opt_int(&op, "rows", 1, INT_MAX);
  const int nthreads = bk_opt_threads(&op);
  const int simd = bk_opt_flag(&op, "simd");
  bk_opts_done(&op);
  if (rows > m) rows = m;
  if (rows < 1) rows = 1;
  double *work = (double *) R_alloc(
      (size_t) BK_RFF_HSIC2_WORK(m, d, dy, D, S, rows) + 1, sizeof(double));
  SEXP out = PROTECT(Rf_allocVector(REALSXP, 3));
  bk_pacer pace = {bk_check_limits, 0};
  bk_rff_hsic2(REAL(x), m, d, W, b, D, REAL(y), dy, Wy, by, S, rows, nthreads, simd,
               REAL(out), work, &pace);
  UNPROTECT(1);
  return out;
}
