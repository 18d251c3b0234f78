/* gamma_call.c: the upper tail of the gamma distribution (scale 1) for the
 * gamma approximations of the per-feature kernel tests (feature_p_values(),
 * R/scores-kernel.R), in the glue so that a screen of thousands of genes
 * and pairs takes its p-values in C: Rmath's pgamma(), the routine
 * stats::pgamma() calls, with its handling of NA and NaN, so the very
 * numbers it gives. */
#include <Rmath.h>
#include "glue.h"

/* pgamma(z, shape, lower.tail = FALSE) where shape is not NaN, NA where it
 * is (the test is undefined there: fewer than 4 samples, or a constant
 * kernel); "NaNs produced" as stats::pgamma() warns it. */
SEXP C_gamma_upper_tail(SEXP z, SEXP shape)
{
  if (!Rf_isReal(z) || !Rf_isReal(shape) || XLENGTH(z) != XLENGTH(shape))
    Rf_error("'z' and 'shape' must be double vectors of the same length");
  const R_xlen_t n = XLENGTH(z);
  const double *zz = REAL(z), *sh = REAL(shape);
  SEXP out = PROTECT(Rf_allocVector(REALSXP, n));
  double *p = REAL(out);
  int nan = 0;
  for (R_xlen_t i = 0; i < n; i++) {
    if (ISNAN(sh[i])) {
      p[i] = NA_REAL;
    } else if (ISNA(zz[i])) {
      p[i] = NA_REAL;
    } else if (ISNAN(zz[i])) {
      p[i] = R_NaN;
    } else {
      p[i] = pgamma(zz[i], sh[i], 1.0, 0, 0);
      nan |= ISNAN(p[i]);
    }
  }
  if (nan) Rf_warning("NaNs produced");
  UNPROTECT(1);
  return out;
}
