/*
 * glue.h: what the SEXP glue (*_call.c) shares. The numeric core never
 * includes it (its headers have no R API).
 */
#ifndef BAHSIC_GLUE_H
#define BAHSIC_GLUE_H

#include <R.h>
#include <Rinternals.h>
#include "common.h"
#include "kernels.h"
#include "hsic.h"

/* The R wrappers hand the C code validated double matrices; this catches a
 * wrapper that does not. */
static inline void bk_need_double_matrix(SEXP x, const char *what)
{
  if (!Rf_isReal(x) || !Rf_isMatrix(x))
    Rf_error("'%s' must be a double matrix", what);
}

/* fn(data, work) with work of n doubles: a buffer kept between calls
 * (scratch_call.c), or R_alloc's where it is larger than the buffer may be
 * or in use. An error or interrupt in fn gives the buffer back. */
void bk_with_scratch(size_t n, void (*fn)(void *data, double *work), void *data);
void bk_scratch_free(void);

/* The progress of the selection loops: a message per iteration when
 * verbose (through message(), so that suppressMessages() sees it), a call
 * of the R function `progress` with the size of the set unless it is
 * R_NilValue (progressr's bar, R/progress.R), and Ctrl-C. A bk_tick_fn of
 * common.h; ctx is a bk_tick_ctx. */
typedef struct {
  int verbose;
  const char *name;
  SEXP progress;
} bk_tick_ctx;
void bk_select_tick(void *ctx, ptrdiff_t iter, ptrdiff_t size, double hsic,
                    double sigma);

/* A pacer's check (common.h) that tests R's time limits at every call:
 * R_CheckUserInterrupt() handles Ctrl-C at once, but R (4.x,
 * R_CheckTimeLimits()) tests the limits of setTimeLimit() only at every
 * sixth check, and at most every 0.05 s; a loop that checks every 0.2 s
 * would then run on for up to a second past its limit. Six checks in a row
 * make R test the limits once (each check costs far less than a block). */
static inline void bk_check_limits(void)
{
  for (int i = 0; i < 6; i++) R_CheckUserInterrupt();
}

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

/* Options that cross .Call as a named list (opts.c), read by name:
 *
 *   bk_opts op;
 *   bk_opts_open(&op, opts, "C_select");
 *   int k = bk_opt_int(&op, "kernel", -INT_MAX, INT_MAX);
 *   ...
 *   bk_opts_done(&op);   // an option not read is an error
 *
 * Every reader marks the option read, checks its type and length (and, for
 * bk_opt_int(), that it is a whole number in [lo, hi], given as an integer
 * or a double) and raises an R error naming the entry point and the option.
 * The values checked here are types and shapes; what they mean is checked
 * in R, where the message can name the user's argument. */
typedef struct {
  SEXP list;         /* the .Call argument (protected by the caller) */
  SEXP names;
  R_xlen_t n;
  int *read;         /* 1 for an option read (R_alloc) */
  const char *entry; /* the entry point, for messages */
} bk_opts;
void bk_opts_open(bk_opts *o, SEXP opts, const char *entry);
/* the option's value; an error if it is missing */
SEXP bk_opt(bk_opts *o, const char *name);
/* 1 if the list has the option (an optional one), 0 if not; reads nothing */
int bk_opt_given(const bk_opts *o, const char *name);
int bk_opt_int(bk_opts *o, const char *name, int lo, int hi);
/* one finite double */
double bk_opt_real(bk_opts *o, const char *name);
/* one finite double or NA (e.g. a width the policy sets) */
double bk_opt_real_na(bk_opts *o, const char *name);
/* TRUE or FALSE, not NA */
int bk_opt_flag(bk_opts *o, const char *name);
/* a double (integer) vector of length len, any length if len < 0; *n (if
 * not NULL) gets its length */
const double *bk_opt_real_vector(bk_opts *o, const char *name, R_xlen_t len,
                                 R_xlen_t *n);
const int *bk_opt_int_vector(bk_opts *o, const char *name, R_xlen_t len,
                             R_xlen_t *n);
/* a double matrix *nrow x *ncol; a dimension < 0 asks for any >= 1 and is
 * set to the matrix's */
const double *bk_opt_matrix(bk_opts *o, const char *name, ptrdiff_t *nrow,
                            ptrdiff_t *ncol);
/* The thread count: option "threads", a whole number >= 1 (an error
 * otherwise), reduced to bk_thread_cap() (bk_threads()). */
int bk_opt_threads(bk_opts *o);
/* The thread count of an entry point that takes it as an argument: one
 * whole number >= 1 (`what` names it in the error), reduced to
 * bk_thread_cap(). */
int bk_threads_arg(SEXP threads, const char *what);
/* The most threads a parallel region may have: the processors this process
 * may run on (omp_get_num_procs(), which honours its CPU affinity) and
 * OMP_THREAD_LIMIT; 1 without OpenMP. R caps the user's `threads` with a
 * warning (R/threads.R); this catches a caller that does not: libgomp
 * aborts R when it cannot create the threads asked for, and per-thread
 * workspaces (some on the stack) grow with the count. */
int bk_thread_cap(void);
/* n reduced to [1, bk_thread_cap()] */
int bk_threads(int n);
/* an error for an option in the list that no reader asked for (a misspelt
 * name, or one the mode does not take), or one given twice */
void bk_opts_done(const bk_opts *o);
/* The optional R function `progress` of the selection loops' options
 * (select_call.c), R_NilValue when not given or NULL. */
SEXP bk_opt_progress(bk_opts *op);
/* The label kernel of the C core, from one of two options: L, the full m x m
 * matrix, or Y (m x c), the factor of a low-rank one (L = Y Y'). */
bk_label bk_opt_label(bk_opts *o, ptrdiff_t m);

/* "a Gaussian or Laplace kernel": the kernels with the property prop (one
 * BK_KPROP_*) named from the kernel table (codes.h), in buf of size bytes;
 * returns buf (codes_call.c). */
const char *bk_kernels_with(unsigned int prop, char *buf, size_t size);

/* list(names[0] = values[0], ...) for the names up to the terminating "";
 * the values must be protected by the caller, the list is not. */
static inline SEXP bk_named_list(const char **names, const SEXP *values)
{
  SEXP out = Rf_mkNamed(VECSXP, names);
  for (R_xlen_t i = 0; i < XLENGTH(out); i++) SET_VECTOR_ELT(out, i, values[i]);
  return out;
}

#endif
