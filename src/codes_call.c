/* codes_call.c: the tables of codes.h for R, which reads them at load into
 * bk_codes (R/codes.R), and the kernels of a property named from the table
 * for the glue's messages. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
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

#define BK_X_NAME7(id, code, name, sets, props, spectrum, value) name,
#define BK_X_CODE7(id, code, name, sets, props, spectrum, value) code,
#define BK_X_PROPS7(id, code, name, sets, props, spectrum, value) (int) (props),
#define BK_X_SETS7(id, code, name, sets, props, spectrum, value) (int) (sets),
#define BK_X_SPECTRUM7(id, code, name, sets, props, spectrum, value) \
  (int) (spectrum),
#define BK_X_NAME4(id, code, name, scale) name,
#define BK_X_CODE4(id, code, name, scale) code,
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
 * kernel as a sum of kset bits, spectrum = c(none = 0L, ...),
 * kernel_spectra = c(linear = 0L, ...): each kernel's spectral measure), in
 * the tables' order; R's bk_codes (R/codes.R) is this, read at load */
SEXP C_codes(void)
{
  SEXP v[10];
  int n = 0;
  v[n++] = PROTECT(BK_NAMED_CODES(BK_KERNEL_TABLE, BK_X_NAME7, BK_X_CODE7));
  v[n++] = PROTECT(BK_NAMED_CODES(BK_POLICY_TABLE, BK_X_NAME3, BK_X_CODE3));
  v[n++] = PROTECT(BK_NAMED_CODES(BK_DIRECTION_TABLE, BK_X_NAME3, BK_X_CODE3));
  v[n++] = PROTECT(BK_NAMED_CODES(BK_MODE_TABLE, BK_X_NAME3, BK_X_CODE3));
  v[n++] = PROTECT(BK_NAMED_CODES(BK_KPROP_TABLE, BK_X_NAME3, BK_X_CODE3));
  v[n++] = PROTECT(BK_NAMED_CODES(BK_KERNEL_TABLE, BK_X_NAME7, BK_X_PROPS7));
  v[n++] = PROTECT(BK_NAMED_CODES(BK_KSET_TABLE, BK_X_NAME3, BK_X_CODE3));
  v[n++] = PROTECT(BK_NAMED_CODES(BK_KERNEL_TABLE, BK_X_NAME7, BK_X_SETS7));
  v[n++] = PROTECT(BK_NAMED_CODES(BK_SPECTRUM_TABLE, BK_X_NAME4, BK_X_CODE4));
  v[n++] =
      PROTECT(BK_NAMED_CODES(BK_KERNEL_TABLE, BK_X_NAME7, BK_X_SPECTRUM7));
  const char *names[] = {"kernel", "policy", "direction", "mode", "kprop",
                         "kernel_props", "kset", "kernel_sets", "spectrum",
                         "kernel_spectra", ""};
  SEXP out = bk_named_list(names, v);
  UNPROTECT(n);
  return out;
}

/* The phrase "a Gaussian or Laplace kernel" of the kernels with the property
 * prop (one BK_KPROP_*) in the kernel table, written to buf (size bytes,
 * truncated if need be) for the glue's messages; R's kernels_phrase()
 * (R/codes.R) writes the same. */
const char *bk_kernels_with(unsigned int prop, char *buf, size_t size)
{
  static const char *const names[] = {BK_KERNEL_TABLE(BK_X_NAME7)};
  static const int codes[] = {BK_KERNEL_TABLE(BK_X_CODE7)};
  const int n = (int) (sizeof(codes) / sizeof(codes[0]));
  int with[sizeof(codes) / sizeof(codes[0])], k = 0;
  size_t used = 0;
  for (int i = 0; i < n; i++)
    if (bk_kernel_has(codes[i], prop)) with[k++] = i;
  buf[0] = '\0';
  for (int i = 0; i < k && used + 1 < size; i++) {
    const char *name = names[with[i]];
    const char *sep = i == 0 ? (strchr("aeiou", name[0]) ? "an " : "a ")
                      : i == k - 1 ? " or " : ", ";
    int w = snprintf(buf + used, size - used, "%s%c%s", sep,
                     toupper((unsigned char) name[0]), name + 1);
    used += w > 0 ? (size_t) w : 0u;
    if (used >= size) used = size - 1;
  }
  for (size_t i = 0; i < used; i++)
    if (buf[i] == '_') buf[i] = '-';
  if (used + 1 < size) snprintf(buf + used, size - used, " kernel");
  return buf;
}
