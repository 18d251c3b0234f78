/* opts.c: options that cross .Call as a named list, read by name (glue.h).
 * Each reader checks the type and length of one option and raises an R
 * error that names it; bk_opts_done() refuses an option the entry point did
 * not read, so that a name misspelt on the R side is an error, not a
 * silently ignored setting. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "glue.h"
#ifdef _OPENMP
#include <omp.h>
#endif

void bk_opts_open(bk_opts *o, SEXP opts, const char *entry)
{
  o->entry = entry;
  if (!Rf_isNewList(opts)) Rf_error("%s: 'opts' must be a named list", entry);
  o->list = opts;
  o->n = XLENGTH(opts);
  o->names = Rf_getAttrib(opts, R_NamesSymbol);
  if (o->n > 0 && (!Rf_isString(o->names) || XLENGTH(o->names) != o->n))
    Rf_error("%s: 'opts' must be a named list", entry);
  for (R_xlen_t i = 0; i < o->n; i++) {
    SEXP nm = STRING_ELT(o->names, i);
    if (nm == NA_STRING || CHAR(nm)[0] == '\0')
      Rf_error("%s: every option must have a name", entry);
  }
  o->read = (int *) R_alloc((size_t) (o->n > 0 ? o->n : 1), sizeof(int));
  for (R_xlen_t i = 0; i < o->n; i++) o->read[i] = 0;
}

SEXP bk_opt(bk_opts *o, const char *name)
{
  for (R_xlen_t i = 0; i < o->n; i++) {
    if (strcmp(CHAR(STRING_ELT(o->names, i)), name) == 0) {
      o->read[i] = 1;
      return VECTOR_ELT(o->list, i);
    }
  }
  Rf_error("%s: option '%s' missing", o->entry, name);
  return R_NilValue; /* not reached */
}

int bk_opt_given(const bk_opts *o, const char *name)
{
  for (R_xlen_t i = 0; i < o->n; i++)
    if (strcmp(CHAR(STRING_ELT(o->names, i)), name) == 0) return 1;
  return 0;
}

int bk_opt_int(bk_opts *o, const char *name, int lo, int hi)
{
  SEXP s = bk_opt(o, name);
  if (XLENGTH(s) == 1 && TYPEOF(s) == INTSXP) {
    const int v = INTEGER(s)[0];
    if (v != NA_INTEGER && v >= lo && v <= hi) return v;
  } else if (XLENGTH(s) == 1 && TYPEOF(s) == REALSXP) {
    /* range first: casting a NaN or a value beyond int is undefined */
    const double v = REAL(s)[0];
    if (R_FINITE(v) && v == floor(v) && v >= (double) lo && v <= (double) hi)
      return (int) v;
  }
  Rf_error("%s: option '%s' must be one whole number from %d to %d",
           o->entry, name, lo, hi);
  return 0; /* not reached */
}

int bk_thread_cap(void)
{
#ifdef _OPENMP
  int n = omp_get_num_procs();
  const int limit = omp_get_thread_limit();
  if (limit > 0 && limit < n) n = limit;
  return n > 1 ? n : 1;
#else
  return 1;
#endif
}

int bk_threads(int n)
{
  const int cap = bk_thread_cap();
  return n < 1 ? 1 : (n > cap ? cap : n);
}

int bk_opt_threads(bk_opts *o)
{
  return bk_threads(bk_opt_int(o, "threads", 1, INT_MAX));
}

int bk_threads_arg(SEXP threads, const char *what)
{
  if (XLENGTH(threads) == 1 && TYPEOF(threads) == INTSXP) {
    const int v = INTEGER(threads)[0];
    if (v != NA_INTEGER && v >= 1) return bk_threads(v);
  } else if (XLENGTH(threads) == 1 && TYPEOF(threads) == REALSXP) {
    const double v = REAL(threads)[0];
    if (R_FINITE(v) && v == floor(v) && v >= 1)
      return bk_threads(v > (double) INT_MAX ? INT_MAX : (int) v);
  }
  Rf_error("'%s' must be one whole number >= 1", what);
  return 1; /* not reached */
}

double bk_opt_real(bk_opts *o, const char *name)
{
  SEXP s = bk_opt(o, name);
  if (!Rf_isReal(s) || XLENGTH(s) != 1 || !R_FINITE(REAL(s)[0]))
    Rf_error("%s: option '%s' must be one finite double", o->entry, name);
  return REAL(s)[0];
}

double bk_opt_real_na(bk_opts *o, const char *name)
{
  SEXP s = bk_opt(o, name);
  if (!Rf_isReal(s) || XLENGTH(s) != 1 ||
      (!R_FINITE(REAL(s)[0]) && !ISNA(REAL(s)[0])))
    Rf_error("%s: option '%s' must be one finite double or NA", o->entry, name);
  return REAL(s)[0];
}

int bk_opt_flag(bk_opts *o, const char *name)
{
  SEXP s = bk_opt(o, name);
  if (!Rf_isLogical(s) || XLENGTH(s) != 1 || LOGICAL(s)[0] == NA_LOGICAL)
    Rf_error("%s: option '%s' must be TRUE or FALSE", o->entry, name);
  return LOGICAL(s)[0] != 0;
}

const double *bk_opt_real_vector(bk_opts *o, const char *name, R_xlen_t len,
                                 R_xlen_t *n)
{
  SEXP s = bk_opt(o, name);
  if (!Rf_isReal(s) || (len >= 0 && XLENGTH(s) != len)) {
    if (len >= 0)
      Rf_error("%s: option '%s' must be a double vector of length %td",
               o->entry, name, (ptrdiff_t) len);
    Rf_error("%s: option '%s' must be a double vector", o->entry, name);
  }
  if (n) *n = XLENGTH(s);
  return REAL(s);
}

const int *bk_opt_int_vector(bk_opts *o, const char *name, R_xlen_t len,
                             R_xlen_t *n)
{
  SEXP s = bk_opt(o, name);
  if (!Rf_isInteger(s) || (len >= 0 && XLENGTH(s) != len)) {
    if (len >= 0)
      Rf_error("%s: option '%s' must be an integer vector of length %td",
               o->entry, name, (ptrdiff_t) len);
    Rf_error("%s: option '%s' must be an integer vector", o->entry, name);
  }
  if (n) *n = XLENGTH(s);
  return INTEGER(s);
}

/* a dimension as asked: "6", or "at least one" */
static void dim_text(char *buf, size_t size, ptrdiff_t want)
{
  if (want >= 0)
    snprintf(buf, size, "%td", want);
  else
    snprintf(buf, size, "at least one");
}

const double *bk_opt_matrix(bk_opts *o, const char *name, ptrdiff_t *nrow,
                            ptrdiff_t *ncol)
{
  SEXP s = bk_opt(o, name);
  int ok = Rf_isReal(s) && Rf_isMatrix(s);
  if (ok) {
    const ptrdiff_t r = Rf_nrows(s), c = Rf_ncols(s);
    ok = (*nrow >= 0 ? r == *nrow : r >= 1) && (*ncol >= 0 ? c == *ncol : c >= 1);
    if (ok) {
      *nrow = r;
      *ncol = c;
      return REAL(s);
    }
  }
  char rb[32], cb[32];
  dim_text(rb, sizeof rb, *nrow);
  dim_text(cb, sizeof cb, *ncol);
  Rf_error("%s: option '%s' must be a double matrix with %s row(s) and %s "
           "column(s)", o->entry, name, rb, cb);
  return NULL; /* not reached */
}

bk_label bk_opt_label(bk_opts *o, ptrdiff_t m)
{
  bk_label lab = {NULL, NULL, 0};
  const int has_L = bk_opt_given(o, "L"), has_Y = bk_opt_given(o, "Y");
  if (has_L && has_Y)
    Rf_error("%s: give one of the options 'L' and 'Y', not both", o->entry);
  if (has_L) {
    ptrdiff_t r = m, c = m;
    lab.L = bk_opt_matrix(o, "L", &r, &c);
  } else {
    if (!has_Y) Rf_error("%s: option 'Y' missing (or 'L')", o->entry);
    ptrdiff_t r = m, c = -1;
    lab.Y = bk_opt_matrix(o, "Y", &r, &c);
    lab.c = c;
  }
  return lab;
}

void bk_opts_done(const bk_opts *o)
{
  for (R_xlen_t i = 0; i < o->n; i++) {
    if (o->read[i]) continue;
    const char *nm = CHAR(STRING_ELT(o->names, i));
    for (R_xlen_t j = 0; j < i; j++)
      if (strcmp(CHAR(STRING_ELT(o->names, j)), nm) == 0)
        Rf_error("%s: option '%s' given twice", o->entry, nm);
    Rf_error("%s: unknown option '%s' (not one %s reads in this mode)",
             o->entry, nm, o->entry);
  }
}
