/*
 * cox_call.c: SEXP glue for cox.c. Cheap type and length checks only; the
 * outcome and the setup are checked and built in R/scores-cox.R.
 */
#include "glue.h"
#include "cox.h"

static const double *real_of(SEXP v, R_xlen_t len, const char *what)
{
  if (TYPEOF(v) != REALSXP || XLENGTH(v) != len)
    Rf_error("'%s' must be a double vector of length %lld", what, (long long) len);
  return REAL(v);
}

static const int *index_of(SEXP v, R_xlen_t len, R_xlen_t hi, const char *what)
{
  if (TYPEOF(v) != INTSXP || XLENGTH(v) != len)
    Rf_error("'%s' must be an integer vector of length %lld", what, (long long) len);
  const int *p = INTEGER(v);
  for (R_xlen_t i = 0; i < len; i++)
    if (p[i] == NA_INTEGER || p[i] < 0 || p[i] > hi) Rf_error("'%s' is out of range", what);
  return p;
}

/* list(score, statistic, effect, average, constant, bad): bk_cox_scores()
 * of the columns of x with the setup (a list: ord, w, a, b, C, Izz_inv,
 * sstart, rend, dstart, tg, tc, tf, in that order); bad the 1-based position
 * of the first non-finite value of x (0: none) */
SEXP C_cox_scores(SEXP x, SEXP setup)
{
  bk_need_double_matrix(x, "x");
  if (TYPEOF(setup) != VECSXP || XLENGTH(setup) != 12) Rf_error("'setup' must be a list of 12");
  R_xlen_t m = Rf_nrows(x), d = Rf_ncols(x);
  SEXP C = VECTOR_ELT(setup, 4), Izz = VECTOR_ELT(setup, 5);
  bk_need_double_matrix(C, "C");
  bk_need_double_matrix(Izz, "Izz_inv");
  bk_cox_setup s;
  s.m = m;
  s.q = Rf_ncols(C);
  if (Rf_nrows(C) != m || Rf_nrows(Izz) != s.q || Rf_ncols(Izz) != s.q)
    Rf_error("'C' must be m x q and 'Izz_inv' q x q");
  s.G = XLENGTH(VECTOR_ELT(setup, 6));
  s.K = XLENGTH(VECTOR_ELT(setup, 9));
  s.ord = index_of(VECTOR_ELT(setup, 0), m, m - 1, "ord");
  s.w = real_of(VECTOR_ELT(setup, 1), m, "w");
  s.a = real_of(VECTOR_ELT(setup, 2), m, "a");
  s.b = real_of(VECTOR_ELT(setup, 3), m, "b");
  s.C = REAL(C);
  s.Izz_inv = REAL(Izz);
  s.sstart = index_of(VECTOR_ELT(setup, 6), s.G, m, "sstart");
  s.rend = index_of(VECTOR_ELT(setup, 7), s.G, m, "rend");
  s.dstart = index_of(VECTOR_ELT(setup, 8), s.G, m, "dstart");
  s.tg = index_of(VECTOR_ELT(setup, 9), s.K, s.G - 1, "tg");
  s.tc = real_of(VECTOR_ELT(setup, 10), s.K, "tc");
  s.tf = real_of(VECTOR_ELT(setup, 11), s.K, "tf");

  SEXP z = PROTECT(Rf_allocVector(REALSXP, d));
  SEXP stat = PROTECT(Rf_allocVector(REALSXP, d));
  SEXP effect = PROTECT(Rf_allocVector(REALSXP, d));
  SEXP mean = PROTECT(Rf_allocVector(REALSXP, d));
  SEXP constant = PROTECT(Rf_allocVector(LGLSXP, d));
  double *work = (double *) R_alloc((size_t) (2 * m + 1 + s.q), sizeof(double));
  ptrdiff_t bad = bk_cox_scores(REAL(x), d, &s, REAL(z), REAL(stat), REAL(effect),
                                REAL(mean), LOGICAL(constant), work);
  SEXP where = PROTECT(Rf_ScalarReal((double) (bad + 1)));
  const char *names[] = {"score", "statistic", "effect", "average", "constant", "bad", ""};
  SEXP out = bk_named_list(names, (SEXP[]){z, stat, effect, mean, constant, where});
  UNPROTECT(6);
  return out;
}
