/* hsic_call.c: SEXP glue for hsic.c. The label side is a named list with
 * one element, L (the full Gram matrix) or Y (a factor with L = Y Y'), read
 * by bk_opt_label(). */
#include "glue.h"
#include "hsic.h"

static ptrdiff_t check_K(SEXP K)
{
  if (!Rf_isReal(K) || !Rf_isMatrix(K) || Rf_nrows(K) != Rf_ncols(K))
    Rf_error("'K' must be a square double matrix");
  return Rf_nrows(K);
}

/* the label of an entry point: list(L = ) or list(Y = ) */
static bk_label read_label(SEXP label, ptrdiff_t m, const char *entry)
{
  bk_opts op;
  bk_opts_open(&op, label, entry);
  bk_label lab = bk_opt_label(&op, m);
  bk_opts_done(&op);
  return lab;
}

/* A statistic of K and the label with nout values, by core (bk_hsic_stats,
 * bk_hsic_gamma), which takes (a + 2 c) m doubles of work (c: the columns
 * of a factor label, 0 for a full L). */
typedef void (*hsic_fn)(const double *K, ptrdiff_t m, bk_label lab,
                        double *out, double *work, bk_pacer *pace);
static SEXP hsic_statistic(SEXP K, SEXP label, const char *entry, hsic_fn core,
                           R_xlen_t nout, ptrdiff_t a)
{
  ptrdiff_t m = check_K(K);
  bk_label lab = read_label(label, m, entry);
  double *work = (double *) R_alloc((size_t) (a * m + 2 * m * lab.c),
                                    sizeof(double));
  SEXP out = PROTECT(Rf_allocVector(REALSXP, nout));
  bk_pacer pace = {bk_check_limits, 0};
  core(REAL(K), m, lab, REAL(out), work, &pace);
  UNPROTECT(1);
  return out;
}

/* c(HSIC0, HSIC1, the variance of HSIC1, its standard error): bk_hsic_stats() */
SEXP C_hsic_stats(SEXP K, SEXP label)
{
  return hsic_statistic(K, label, "C_hsic_stats", bk_hsic_stats, 4, 8);
}

SEXP C_hsic_perm(SEXP K, SEXP label, SEXP perms)
{
  ptrdiff_t m = check_K(K);
  bk_label lab = read_label(label, m, "C_hsic_perm");
  if (!Rf_isInteger(perms) || !Rf_isMatrix(perms) || Rf_nrows(perms) != m)
    Rf_error("'perms' must be an integer matrix with %td rows", m);
  ptrdiff_t B = Rf_ncols(perms);
  const int *P = INTEGER(perms);
  double *kd = (double *) R_alloc((size_t) m, sizeof(double));
  double *k1 = (double *) R_alloc((size_t) m, sizeof(double));
  double *work = (double *) R_alloc((size_t) (3 * m + 2 * m * lab.c),
                                    sizeof(double));
  int *perm = (int *) R_alloc((size_t) m, sizeof(int));
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, 2, (int) B));
  /* one pacer for all permutations: with small m it checks every so many of
   * them, with large m within each */
  bk_pacer pace = {bk_check_limits, 0};
  bk_kside(REAL(K), m, kd, k1, &pace);
  for (ptrdiff_t r = 0; r < B; r++) {
    for (ptrdiff_t a = 0; a < m; a++) {
      int p = P[a + m * r];
      if (p < 1 || p > m) Rf_error("'perms' has an index out of range");
      perm[a] = p - 1;
    }
    bk_hsic_pair(REAL(K), m, kd, k1, lab, perm, REAL(out) + 2 * r, work, &pace);
  }
  UNPROTECT(1);
  return out;
}

/* the gamma approximation's moments (bk_hsic_gamma()) */
SEXP C_hsic_gamma(SEXP K, SEXP label)
{
  return hsic_statistic(K, label, "C_hsic_gamma", bk_hsic_gamma, 5, 4);
}
