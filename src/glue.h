/*
 * glue.h: what the SEXP glue (*_call.c) shares. The numeric core never
 * includes it (bahsic.h has no R API).
 */
#ifndef BAHSIC_GLUE_H
#define BAHSIC_GLUE_H

#include <R.h>
#include <Rinternals.h>
#include "bahsic.h"

/* The R wrappers hand the C code validated double matrices; this catches a
 * wrapper that does not. */
static inline void bk_need_double_matrix(SEXP x, const char *what)
{
  if (!Rf_isReal(x) || !Rf_isMatrix(x))
    Rf_error("'%s' must be a double matrix", what);
}

/* The progress of the selection loops: a message per iteration when
 * verbose (through message(), so that suppressMessages() sees it), and
 * Ctrl-C. A bk_tick_fn of bahsic.h; ctx is a bk_tick_ctx. */
typedef struct {
  int verbose;
  const char *name;
} bk_tick_ctx;
void bk_select_tick(void *ctx, ptrdiff_t iter, ptrdiff_t size, double hsic,
                    double sigma);

/* A data kernel of the C core from R's code and parameters (kernel_code(),
 * kernel_param()): a kernel of BK_KSET_DATA (codes.h). */
static inline bk_kernel bk_make_kernel(int type, double p1, double p2)
{
  bk_kernel k;
  k.type = type;
  k.p1 = p1;
  k.p2 = p2;
  if (!bk_kernel_in(k.type, BK_KSET_DATA))
    Rf_error("unknown kernel code %d", k.type);
  return k;
}

/* The label kernel of the C core from R: a full m x m matrix L, or the
 * factor Y (m x c) of a low-rank one when Y is not NULL. */
static inline bk_label bk_make_label(SEXP L, SEXP Y, ptrdiff_t m)
{
  bk_label lab = {NULL, NULL, 0};
  if (!Rf_isNull(Y)) {
    if (!Rf_isReal(Y) || !Rf_isMatrix(Y) || Rf_nrows(Y) != m)
      Rf_error("'Y' must be a double matrix with %td rows", m);
    lab.Y = REAL(Y);
    lab.c = Rf_ncols(Y);
  } else {
    if (!Rf_isReal(L) || !Rf_isMatrix(L) || Rf_nrows(L) != m ||
        Rf_ncols(L) != m)
      Rf_error("'L' must be a %td x %td double matrix", m, m);
    lab.L = REAL(L);
  }
  return lab;
}

/* list(names[0] = values[0], ...) for the names up to the terminating "";
 * the values must be protected by the caller, the list is not. */
static inline SEXP bk_named_list(const char **names, const SEXP *values)
{
  SEXP out = Rf_mkNamed(VECSXP, names);
  for (R_xlen_t i = 0; i < XLENGTH(out); i++) SET_VECTOR_ELT(out, i, values[i]);
  return out;
}

#endif
