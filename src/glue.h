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

#endif
