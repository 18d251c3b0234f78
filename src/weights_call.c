/* weights_call.c: SEXP glue for the feature weighting of appendix A of
 * Song et al. (2012) (hsic_weights(), R/select-weights.R). The
 * numeric core is bk_hsic_vgrad() in lsmi.c, which shares its loop with the
 * l1-HSIC gradient. The R wrapper validates the arguments; these checks only
 * catch a wrapper that does not. */
#include <limits.h>
#include "glue.h"
#include "lsmi.h"

/* sum(W' o K(w)) and its gradient in v = w o w: list(value, gradient).
 * part: 0 for W, 1 for max(W, 0), -1 for min(W, 0). */
SEXP C_hsic_vgrad(SEXP x, SEXP w, SEXP gamma, SEXP W, SEXP part, SEXP threads)
{
  bk_need_double_matrix(x, "x");
  bk_need_double_matrix(W, "W");
  const ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x);
  if (Rf_nrows(W) != m || Rf_ncols(W) != m) Rf_error("'W' must be %td x %td", m, m);
  if (!Rf_isReal(w) || XLENGTH(w) != d) Rf_error("'w' must be a double vector of length %td", d);
  if (!Rf_isReal(gamma) || XLENGTH(gamma) != 1) Rf_error("'gamma' must be one double");
  if (!Rf_isInteger(part) || XLENGTH(part) != 1 || INTEGER(part)[0] < -1 ||
      INTEGER(part)[0] > 1)
    Rf_error("'part' must be -1L, 0L or 1L");
  const int nthreads = bk_threads_arg(threads, "threads");
  if (m > INT_MAX || d > INT_MAX) Rf_error("too many rows or columns for BLAS (more than INT_MAX)");
  double *work = (double *) R_alloc((size_t) bk_l1hsic_grad_work(m, d), sizeof(double));
  SEXP val = PROTECT(Rf_allocVector(REALSXP, 1));
  SEXP grad = PROTECT(Rf_allocVector(REALSXP, d));
  bk_hsic_vgrad(REAL(x), m, d, REAL(w), REAL(gamma)[0], REAL(W), INTEGER(part)[0],
                nthreads, REAL(grad), REAL(val), work);
  const char *names[] = {"value", "gradient", ""};
  SEXP out = bk_named_list(names, (SEXP[]){val, grad});
  UNPROTECT(2);
  return out;
}
