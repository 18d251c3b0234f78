/*
 * ranks_call.c: SEXP glue for ranks.c. Cheap type and length checks only;
 * the checks a user can act on (classes, outcome) are in R/scores-rank.R.
 */
#include "glue.h"
#include "ranks.h"

/* The sparse layout of options i, p, nrow (a dgCMatrix's slots, x its
 * values): checked so that the core reads nothing out of bounds. */
static void sparse_layout(bk_opts *op, SEXP x, bk_rank_input *in, R_xlen_t *d)
{
  R_xlen_t np, ni;
  in->m = bk_opt_int(op, "nrow", 1, INT_MAX);
  const int *p = bk_opt_int_vector(op, "p", -1, &np);
  const int *i = bk_opt_int_vector(op, "i", XLENGTH(x), &ni);
  if (np < 1 || p[0] != 0 || p[np - 1] != XLENGTH(x))
    Rf_error("C_rank_sums: option 'p' must run from 0 to the number of values");
  for (R_xlen_t j = 1; j < np; j++)
    if (p[j] < p[j - 1])
      Rf_error("C_rank_sums: option 'p' must not decrease");
  for (R_xlen_t k = 0; k < ni; k++)
    if (i[k] < 0 || i[k] >= in->m)
      Rf_error("C_rank_sums: option 'i' has a row outside 0..%td", in->m - 1);
  in->colptr = p;
  in->rowidx = i;
  *d = np - 1;
}

/* list(rsum, ties, sum, pos, constant, bad): bk_rank_sums() of the columns
 * of x, a double matrix, or of a sparse matrix whose nonzero values are x
 * (options nrow, p, i); cls the 1-based class of each row, ncls classes;
 * bad the 1-based column-major position of the first non-finite value (0:
 * none) */
SEXP C_rank_sums(SEXP x, SEXP opts)
{
  if (!Rf_isReal(x)) Rf_error("C_rank_sums: 'x' must be a double matrix or vector");
  bk_opts op;
  bk_opts_open(&op, opts, "C_rank_sums");
  bk_rank_input in = {REAL(x), NULL, NULL, 0, 0, NULL, 0};
  R_xlen_t d;
  if (bk_opt_given(&op, "p")) {
    sparse_layout(&op, x, &in, &d);
  } else {
    if (!Rf_isMatrix(x)) Rf_error("C_rank_sums: 'x' must be a double matrix");
    in.m = Rf_nrows(x);
    d = Rf_ncols(x);
  }
  in.d = d;
  in.ncls = bk_opt_int(&op, "ncls", 1, INT_MAX);
  R_xlen_t nc;
  const int *c1 = bk_opt_int_vector(&op, "cls", in.m, &nc);
  const int nthreads = bk_opt_threads(&op);
  bk_opts_done(&op);
  int *c0 = (int *) R_alloc((size_t) in.m + 1, sizeof(int));
  for (R_xlen_t i = 0; i < in.m; i++) {
    if (c1[i] == NA_INTEGER || c1[i] < 1 || c1[i] > in.ncls)
      Rf_error("C_rank_sums: option 'cls' must hold classes 1..%d", in.ncls);
    c0[i] = c1[i] - 1;
  }
  in.cls = c0;

  const int K = in.ncls;
  SEXP rsum = PROTECT(Rf_allocMatrix(REALSXP, K, (int) d));
  SEXP ties = PROTECT(Rf_allocVector(REALSXP, d));
  SEXP sum = PROTECT(Rf_allocMatrix(REALSXP, K, (int) d));
  SEXP pos = PROTECT(Rf_allocMatrix(REALSXP, K, (int) d));
  SEXP constant = PROTECT(Rf_allocVector(LGLSXP, d));
  int *bad = (int *) R_alloc((size_t) d + 1, sizeof(int));
  double *work = (double *) R_alloc((size_t) BK_RANK_WORK(in.m, K, nthreads) + 1,
                                    sizeof(double));
  bk_rank_output out = {REAL(rsum), REAL(ties), REAL(sum), REAL(pos),
                        LOGICAL(constant), bad};
  bk_pacer pace = {bk_check_limits, 0};
  ptrdiff_t first = bk_rank_sums(&in, &out, work, nthreads, &pace);
  SEXP where = PROTECT(Rf_ScalarReal((double) (first + 1)));
  const char *names[] = {"rsum", "ties", "sum", "pos", "constant", "bad", ""};
  SEXP res = bk_named_list(names, (SEXP[]){rsum, ties, sum, pos, constant, where});
  UNPROTECT(6);
  return res;
}
