/* lsmi_call.c: SEXP glue for lsmi.c (LSMI, l1-LSMI, l1-HSIC). The R
 * wrappers (R/lsmi.R, R/select-l1.R) validate the arguments; these checks
 * only catch a wrapper that does not. */
#include <limits.h>
#include "glue.h"
#include "lsmi.h"

static void need_real(SEXP v, R_xlen_t len, const char *what)
{
  if (!Rf_isReal(v) || (len >= 0 && XLENGTH(v) != len))
    Rf_error("'%s' must be a double vector of length %td", what, (ptrdiff_t) len);
}

static void need_int_size(ptrdiff_t n)
{
  if (n > INT_MAX) Rf_error("too many rows or columns for BLAS (more than INT_MAX)");
}

static void lapack_fail(int info)
{
  if (info != 0)
    Rf_error("the LSMI linear system could not be solved (LAPACK dposv info %d): "
             "use a larger 'lambda'", info);
}

/* Weighted squared distances of the rows of x (n x d) to the rows of cen
 * (b x d): sum_j w_j^2 (x_ij - c_lj)^2, n x b. */
SEXP C_lsmi_sqdist(SEXP x, SEXP cen, SEXP w)
{
  bk_need_double_matrix(x, "x");
  bk_need_double_matrix(cen, "cen");
  const ptrdiff_t n = Rf_nrows(x), d = Rf_ncols(x), b = Rf_nrows(cen);
  if (Rf_ncols(cen) != d) Rf_error("'cen' must have %td columns", d);
  need_real(w, d, "w");
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int) n, (int) b));
  bk_wsqdist(REAL(x), n, d, REAL(cen), b, REAL(w), REAL(out));
  UNPROTECT(1);
  return out;
}

/* exp(-sq / (2 sigma^2)): the Gaussian design matrix (slide "LSMI"). */
SEXP C_lsmi_gauss(SEXP sq, SEXP sigma)
{
  bk_need_double_matrix(sq, "sq");
  need_real(sigma, 1, "sigma");
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, Rf_nrows(sq), Rf_ncols(sq)));
  bk_lsmi_gauss(REAL(sq), XLENGTH(sq), REAL(sigma)[0], REAL(out));
  UNPROTECT(1);
  return out;
}

/* Delta design matrix on classes cls (integer codes) at the centres cen
 * (1-based sample indices). */
SEXP C_lsmi_delta(SEXP cls, SEXP cen)
{
  if (!Rf_isInteger(cls) || !Rf_isInteger(cen)) Rf_error("'cls' and 'cen' must be integer");
  const ptrdiff_t n = XLENGTH(cls), b = XLENGTH(cen);
  need_int_size(n);
  int *c0 = (int *) R_alloc((size_t) b, sizeof(int));
  for (ptrdiff_t l = 0; l < b; l++) {
    int v = INTEGER(cen)[l];
    if (v < 1 || v > n) Rf_error("'cen' must hold sample indices in 1..%td", n);
    c0[l] = v - 1;
  }
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int) n, (int) b));
  bk_lsmi_delta(INTEGER(cls), n, c0, b, REAL(out));
  UNPROTECT(1);
  return out;
}

/* LSMI from the two design matrices: list(estimate, alpha, h). */
SEXP C_lsmi_fit(SEXP phix, SEXP phiy, SEXP lambda)
{
  bk_need_double_matrix(phix, "phix");
  bk_need_double_matrix(phiy, "phiy");
  need_real(lambda, 1, "lambda");
  const ptrdiff_t n = Rf_nrows(phix), b = Rf_ncols(phix);
  if (Rf_nrows(phiy) != n || Rf_ncols(phiy) != b) Rf_error("'phiy' must be %td x %td", n, b);
  need_int_size(n);
  need_int_size(b);
  double *work = (double *) R_alloc((size_t) (3 * b * b), sizeof(double));
  SEXP est = PROTECT(Rf_allocVector(REALSXP, 1));
  SEXP alpha = PROTECT(Rf_allocVector(REALSXP, b));
  SEXP h = PROTECT(Rf_allocVector(REALSXP, b));
  bk_pacer pace = {bk_check_limits, 0};
  lapack_fail(bk_lsmi_fit(REAL(phix), REAL(phiy), n, b, REAL(lambda)[0], REAL(alpha),
                          REAL(h), REAL(est), work, &pace));
  const char *names[] = {"estimate", "alpha", "h", ""};
  SEXP out = bk_named_list(names, (SEXP[]){est, alpha, h});
  UNPROTECT(3);
  return out;
}

/* K-fold CV score matrix (length(sigmas) x length(lambdas)); fold: integer
 * 1..K per sample (slide "Model Selection by Cross Validation"). */
SEXP C_lsmi_cv(SEXP sqx, SEXP phiy, SEXP fold, SEXP sigmas, SEXP lambdas)
{
  bk_need_double_matrix(sqx, "sqx");
  bk_need_double_matrix(phiy, "phiy");
  const ptrdiff_t n = Rf_nrows(sqx), b = Rf_ncols(sqx);
  if (Rf_nrows(phiy) != n || Rf_ncols(phiy) != b) Rf_error("'phiy' must be %td x %td", n, b);
  if (!Rf_isInteger(fold) || XLENGTH(fold) != n) Rf_error("'fold' must be %td integers", n);
  need_real(sigmas, -1, "sigmas");
  need_real(lambdas, -1, "lambdas");
  need_int_size(n);
  need_int_size(b);
  int K = 0;
  for (ptrdiff_t i = 0; i < n; i++) {
    int f = INTEGER(fold)[i];
    if (f < 1 || f > n) Rf_error("'fold' must hold fold numbers in 1..%td", n);
    if (f > K) K = f;
  }
  int *f0 = (int *) R_alloc((size_t) n, sizeof(int));
  int *size = (int *) R_alloc((size_t) K, sizeof(int));
  memset(size, 0, (size_t) K * sizeof(int));
  for (ptrdiff_t i = 0; i < n; i++) {
    f0[i] = INTEGER(fold)[i] - 1;
    size[f0[i]]++;
  }
  for (int k = 0; k < K; k++)
    if (size[k] == 0 || size[k] == n)
      Rf_error("every fold must hold at least one and fewer than all samples");
  const ptrdiff_t ns = XLENGTH(sigmas), nl = XLENGTH(lambdas);
  double *work = (double *) R_alloc((size_t) bk_lsmi_cv_work(n, b, K), sizeof(double));
  int *iwork = (int *) R_alloc((size_t) (n + K + 1), sizeof(int));
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int) ns, (int) nl));
  bk_pacer pace = {bk_check_limits, 0};
  lapack_fail(bk_lsmi_cv(REAL(sqx), REAL(phiy), n, b, f0, K, REAL(sigmas), ns,
                         REAL(lambdas), nl, REAL(out), work, iwork, &pace));
  UNPROTECT(1);
  return out;
}

/* LSMI of diag(w) x and its gradient: list(value, gradient), for the
 * Gaussian width sigma and the ridge lambda; Gy = crossprod(phiy). */
SEXP C_lsmi_grad(SEXP x, SEXP cen, SEXP w, SEXP sigma, SEXP lambda, SEXP phiy,
                 SEXP Gy)
{
  bk_need_double_matrix(x, "x");
  bk_need_double_matrix(cen, "cen");
  bk_need_double_matrix(phiy, "phiy");
  bk_need_double_matrix(Gy, "Gy");
  const ptrdiff_t n = Rf_nrows(x), d = Rf_ncols(x), b = Rf_nrows(cen);
  if (Rf_ncols(cen) != d) Rf_error("'cen' must have %td columns", d);
  if (Rf_nrows(phiy) != n || Rf_ncols(phiy) != b) Rf_error("'phiy' must be %td x %td", n, b);
  if (Rf_nrows(Gy) != b || Rf_ncols(Gy) != b) Rf_error("'Gy' must be %td x %td", b, b);
  need_real(w, d, "w");
  need_real(sigma, 1, "sigma");
  need_real(lambda, 1, "lambda");
  need_int_size(n);
  need_int_size(d);
  double *work = (double *) R_alloc((size_t) bk_lsmi_grad_work(n, d, b), sizeof(double));
  SEXP val = PROTECT(Rf_allocVector(REALSXP, 1));
  SEXP grad = PROTECT(Rf_allocVector(REALSXP, d));
  lapack_fail(bk_lsmi_grad(REAL(x), n, d, REAL(cen), b, REAL(w), REAL(sigma)[0],
                           REAL(lambda)[0], REAL(phiy), REAL(Gy), REAL(grad), REAL(val),
                           work));
  const char *names[] = {"value", "gradient", ""};
  SEXP out = bk_named_list(names, (SEXP[]){val, grad});
  UNPROTECT(2);
  return out;
}

/* Biased HSIC of diag(w) x and its gradient: list(value, gradient). W: the
 * m x m weight matrix of weight_matrix(). */
SEXP C_l1hsic_grad(SEXP x, SEXP w, SEXP gamma, SEXP W)
{
  bk_need_double_matrix(x, "x");
  bk_need_double_matrix(W, "W");
  const ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x);
  if (Rf_nrows(W) != m || Rf_ncols(W) != m) Rf_error("'W' must be %td x %td", m, m);
  need_real(w, d, "w");
  need_real(gamma, 1, "gamma");
  need_int_size(m);
  need_int_size(d);
  double *work = (double *) R_alloc((size_t) bk_l1hsic_grad_work(m, d), sizeof(double));
  SEXP val = PROTECT(Rf_allocVector(REALSXP, 1));
  SEXP grad = PROTECT(Rf_allocVector(REALSXP, d));
  bk_l1hsic_grad(REAL(x), m, d, REAL(w), REAL(gamma)[0], REAL(W), REAL(grad), REAL(val),
                 work);
  const char *names[] = {"value", "gradient", ""};
  SEXP out = bk_named_list(names, (SEXP[]){val, grad});
  UNPROTECT(2);
  return out;
}

/* Projection of v onto the positive l1 ball of radius z. */
SEXP C_l1_project(SEXP v, SEXP z)
{
  need_real(v, -1, "v");
  need_real(z, 1, "z");
  if (!(R_FINITE(REAL(z)[0]) && REAL(z)[0] > 0.0))
    Rf_error("'z' must be a positive finite radius");
  const ptrdiff_t d = XLENGTH(v);
  double *work = (double *) R_alloc((size_t) (d > 0 ? d : 1), sizeof(double));
  SEXP out = PROTECT(Rf_allocVector(REALSXP, d));
  bk_l1ball_project(REAL(v), d, REAL(z)[0], REAL(out), work);
  UNPROTECT(1);
  return out;
}
