/* codes_call.c: the tables of codes.h for R, where R/codes.R mirrors them
 * (tests/testthat/test-codes.R checks that the two agree). */
#include "glue.h"

/* c(name = code, ...) of n entries; unprotected */
static SEXP named_codes(const char *const *names, const int *codes, R_xlen_t n)
{
  SEXP v = PROTECT(Rf_allocVector(INTSXP, n));
  SEXP nm = PROTECT(Rf_allocVector(STRSXP, n));
  for (R_xlen_t i = 0; i < n; i++) {
    INTEGER(v)[i] = codes[i];
    SET_STRING_ELT(nm, i, Rf_mkChar(names[i]));
  }
  Rf_setAttrib(v, R_NamesSymbol, nm);
  UNPROTECT(2);
  return v;
}

#define BK_X_NAME6(id, code, name, sets, props, value) name,
#define BK_X_CODE6(id, code, name, sets, props, value) code,
#define BK_X_PROPS6(id, code, name, sets, props, value) (int) (props),
#define BK_X_SETS6(id, code, name, sets, props, value) (int) (sets),
#define BK_X_NAME3(id, code, name) name,
#define BK_X_CODE3(id, code, name) code,
#define BK_NAMED_CODES(TABLE, NAME, CODE)                                   \
  named_codes((const char *const[]){TABLE(NAME)}, (const int[]){TABLE(CODE)}, \
              (R_xlen_t) (sizeof((const int[]){TABLE(CODE)}) / sizeof(int)))

/* list(kernel = c(linear = 0L, ...), policy = c(fixed = 0L, ...),
 * direction = c(backward = 0L, forward = 1L), mode = c(exact = 0L, ...),
 * kprop = c(distance = 1L, ...), kernel_props = c(linear = 0L, ...): each
 * kernel's properties as a sum of kprop bits, kset = c(data = 1L, ...),
 * kernel_sets = c(linear = 5L, ...): the entry points that take each
 * kernel as a sum of kset bits), in the tables' order */
SEXP C_codes(void)
{
  SEXP kernel = PROTECT(BK_NAMED_CODES(BK_KERNEL_TABLE, BK_X_NAME6, BK_X_CODE6));
  SEXP policy = PROTECT(BK_NAMED_CODES(BK_POLICY_TABLE, BK_X_NAME3, BK_X_CODE3));
  SEXP direction =
      PROTECT(BK_NAMED_CODES(BK_DIRECTION_TABLE, BK_X_NAME3, BK_X_CODE3));
  SEXP mode = PROTECT(BK_NAMED_CODES(BK_MODE_TABLE, BK_X_NAME3, BK_X_CODE3));
  SEXP kprop = PROTECT(BK_NAMED_CODES(BK_KPROP_TABLE, BK_X_NAME3, BK_X_CODE3));
  SEXP kernel_props =
      PROTECT(BK_NAMED_CODES(BK_KERNEL_TABLE, BK_X_NAME6, BK_X_PROPS6));
  SEXP kset = PROTECT(BK_NAMED_CODES(BK_KSET_TABLE, BK_X_NAME3, BK_X_CODE3));
  SEXP kernel_sets =
      PROTECT(BK_NAMED_CODES(BK_KERNEL_TABLE, BK_X_NAME6, BK_X_SETS6));
  const char *names[] = {"kernel",       "policy", "direction",   "mode", "kprop",
                         "kernel_props", "kset",   "kernel_sets", ""};
  SEXP out = bk_named_list(names, (SEXP[]){kernel, policy, direction, mode, kprop,
                                           kernel_props, kset, kernel_sets});
  UNPROTECT(8);
  return out;
}
