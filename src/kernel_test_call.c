/* kernel_test_call.c: SEXP glue for kernel_test.c, the per-feature tests of
 * independence of feature_scores(). */
#include <limits.h>
#include "glue.h"
#include "hsic.h"

/* x: m x d double matrix; opts: a named list (read by name, glue.h):
 *   kernel, p1, p2   the kernel's code (BK_KSET_DATA) and parameters; p1 one
 *              finite double or d of them (a width per feature)
 *   Lc         m x m: H L H (symmetric)
 *   tb, ub, wb its traces for the permutation moments (bk_test_label, hsic.h)
 *   threads, simd    the number of threads; the SIMD loops or the plain ones
 *   Wt, perms  optional, together: the weights of the permuted statistic
 *              (m x m, symmetric) and the permutations, an m x B integer matrix of
 *              0-based sample indices
 *   W          optional: the weights of the score (m x m, symmetric), as
 *              C_feature_dot() takes them
 * Returns list(shape, z, count, score): the gamma approximation per feature
 * (the statistic over the gamma's scale), the permuted statistics at least
 * as large as the observed one (NULL without permutations) and
 * sum_ab K_ab W_ab, C_feature_dot()'s score to the last bit, from the same
 * kernel values as the test (NULL without W). */
SEXP C_feature_hsic_test(SEXP x, SEXP opts)
{
  bk_need_double_matrix(x, "x");
  ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x);
  bk_opts op;
  bk_opts_open(&op, opts, "C_feature_hsic_test");
  R_xlen_t np1;
  const double *p1 = bk_opt_real_vector(&op, "p1", -1, &np1);
  if (np1 != 1 && np1 != d)
    Rf_error("C_feature_hsic_test: option 'p1' must be a double vector of "
             "length 1 or %td (ncol(x))", d);
  for (R_xlen_t j = 0; j < np1; j++)
    if (!R_FINITE(p1[j]))
      Rf_error("C_feature_hsic_test: option 'p1' must be finite (element %td "
               "is not)", (ptrdiff_t) j + 1);
  const int type = bk_opt_int(&op, "kernel", -INT_MAX, INT_MAX);
  bk_kernel k = bk_make_kernel(type, p1[0], bk_opt_real(&op, "p2"));
  bk_test_label lab = {.Lc = NULL, .Wt = NULL, .perms = NULL, .B = 0, .W = NULL};
  ptrdiff_t r = m, c = m;
  lab.Lc = bk_opt_matrix(&op, "Lc", &r, &c);
  lab.tb = bk_opt_real(&op, "tb");
  lab.ub = bk_opt_real(&op, "ub");
  lab.wb = bk_opt_real(&op, "wb");
  const int nthreads = bk_opt_threads(&op);
  const int simd = bk_opt_flag(&op, "simd");
  const int has_perm = bk_opt_given(&op, "perms");
  if (has_perm) {
    lab.Wt = bk_opt_matrix(&op, "Wt", &r, &c);
    SEXP P = bk_opt(&op, "perms");
    if (!Rf_isInteger(P) || !Rf_isMatrix(P) || Rf_nrows(P) != m)
      Rf_error("C_feature_hsic_test: option 'perms' must be an integer matrix "
               "with %td rows", m);
    lab.B = Rf_ncols(P);
    lab.perms = INTEGER(P);
    for (R_xlen_t i = 0; i < XLENGTH(P); i++)
      if (lab.perms[i] < 0 || lab.perms[i] >= m)
        Rf_error("C_feature_hsic_test: option 'perms' has an index outside "
                 "0..%td", m - 1);
  }
  if (bk_opt_given(&op, "W")) lab.W = bk_opt_matrix(&op, "W", &r, &c);
  bk_opts_done(&op);
  const ptrdiff_t nt = nthreads > 1 ? nthreads : 1;
  const ptrdiff_t nw = (lab.B > 0) + (lab.W != NULL && lab.W != lab.Wt);
  double *work = (double *) R_alloc((size_t) (BK_FEATURE_TEST_WORK(m, nt, nw) + 1),
                                    sizeof(double));
  SEXP shape = PROTECT(Rf_allocVector(REALSXP, d));
  SEXP z = PROTECT(Rf_allocVector(REALSXP, d));
  SEXP count = PROTECT(has_perm ? Rf_allocVector(REALSXP, d) : R_NilValue);
  SEXP score = PROTECT(lab.W ? Rf_allocVector(REALSXP, d) : R_NilValue);
  bk_pacer pace = {bk_check_limits, 0};
  bk_feature_hsic_test(REAL(x), m, d, k, np1 == d ? p1 : NULL, &lab,
                       REAL(shape), REAL(z), has_perm ? REAL(count) : NULL,
                       lab.W ? REAL(score) : NULL, work, simd, nthreads, &pace);
  const char *names[] = {"shape", "z", "count", "score", ""};
  SEXP values[] = {shape, z, count, score};
  SEXP out = bk_named_list(names, values);
  UNPROTECT(4);
  return out;
}
