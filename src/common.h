/*
 * common.h: what every file of the numeric core shares: the standard
 * headers and the codes (codes.h), a vectorisable exp, the SIMD pragmas,
 * the pacer of interrupt checks, the tick of the selection loops, the
 * threshold for threads, the CPU check of the AVX2 copies and the exact
 * power-of-two rescaling (scale.c).
 *
 * The numeric core is plain C on double * and ptrdiff_t sizes: no SEXP, no
 * R API (lsmi.c and ridge.c call the BLAS and LAPACK R links, through R's
 * headers), no allocation. Callers hand it every work array. The glue
 * (*_call.c, glue.h) unpacks SEXPs, allocates with R_alloc and calls the
 * core; init.c registers the glue. Each core file includes the headers of
 * the areas it uses (kernels.h, hsic.h, select.h, ...), each of which
 * includes this one. Matrices are column-major, as R stores them.
 */
#ifndef BAHSIC_COMMON_H
#define BAHSIC_COMMON_H

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "codes.h"

/* ---- a vectorisable exp ---------------------------------------------------
 * exp(x) for the kernel arguments x <= 0, branch-free so that the compiler
 * can vectorise the loops that call it at -O2 (glibc's exp is a scalar call
 * and a ?: is control flow to the vectoriser). x = k ln 2 + r with
 * |r| <= ln 2 / 2, exp(r) by its Taylor series to degree 13 (truncation
 * below 1e-17 relative, evaluated by Estrin's scheme), 2^k put straight into
 * the exponent bits. Within 2 ulp of exp() on [-708, 0] (tested against R's
 * exp() in tests/testthat/test-kernels.R).
 *
 * bk_exp_core() needs x in [-708, 0] (for loops that check their range
 * once); bk_exp() clamps, returns 0 below -708 (where exp() is below 1e-307)
 * and NaN for NaN. Arguments must be finite (R checks the data's range). */
static inline double bk_exp_core(double xc)
{
  const double magic = 6755399441055744.0; /* 2^52 + 2^51: rounds to integer */
  const double log2e = 1.4426950408889634074;
  const double ln2_hi = 6.93147180369123816490e-01;
  const double ln2_lo = 1.90821492927058770002e-10;
  double t = xc * log2e + magic;
  double k = t - magic;
  double r = xc - k * ln2_hi - k * ln2_lo;
  /* Estrin's scheme: the terms pair up independently, so the dependency
   * chain is four products deep instead of Horner's thirteen; the loops
   * that call this are throughput-bound, not latency-bound. */
  double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
  double p01 = 1.0 + r, p23 = 0.5 + r * (1.0 / 6.0),
         p45 = 1.0 / 24.0 + r * (1.0 / 120.0),
         p67 = 1.0 / 720.0 + r * (1.0 / 5040.0),
         p89 = 1.0 / 40320.0 + r * (1.0 / 362880.0),
         pab = 1.0 / 3628800.0 + r * (1.0 / 39916800.0),
         pcd = 1.0 / 479001600.0 + r * (1.0 / 6227020800.0);
  double p = (p01 + r2 * p23) + r4 * (p45 + r2 * p67) +
             r8 * ((p89 + r2 * pab) + r4 * pcd);
  /* unsigned, so that a NaN or out-of-range x wraps (giving NaN or a
   * meaningless but defined value) instead of overflowing a signed shift or
   * subtraction, which is undefined; the same bits for x in [-708, 0] */
  unsigned long long ti, si;
  double sc;
  memcpy(&ti, &t, sizeof ti);
  si = (ti - 0x4338000000000000ULL + 1023ULL) << 52; /* bits(t) - bits(magic) = k */
  memcpy(&sc, &si, sizeof sc);
  return p * sc;
}


static inline double bk_exp(double x)
{
  double under = (double) (x < -708.0);
  double xc = x + (-708.0 - x) * under; /* max(x, -708) without a branch */
  return bk_exp_core(xc) * (1.0 - under);
}

#ifdef _OPENMP
#define BK_PRAGMA(x) _Pragma(#x)
#define BK_SIMD _Pragma("omp simd")
#define BK_SIMD_SUM(v) BK_PRAGMA(omp simd reduction(+ : v))
#define BK_SIMD_SUM2(u, v) BK_PRAGMA(omp simd reduction(+ : u, v))
#define BK_SIMD_SUM4(a, b, c, d) BK_PRAGMA(omp simd reduction(+ : a, b, c, d))
/* gram.c's counting pass: three counts, a largest and a smallest value */
#define BK_SIMD_TRI_SCAN(lt, le, gt, mx, ab)                                  \
  BK_PRAGMA(omp simd reduction(+ : lt, le, gt) reduction(max : mx) reduction(min : ab))
#else
#define BK_SIMD
#define BK_SIMD_SUM(v)
#define BK_SIMD_SUM2(u, v)
#define BK_SIMD_SUM4(a, b, c, d)
#define BK_SIMD_TRI_SCAN(lt, le, gt, mx, ab)
#endif

/* ---- interrupts ------------------------------------------------------------
 * The long loops over pairs of samples run in blocks of about BK_CHECK_OPS
 * element operations (some 10-50 ms) and hand control back between blocks:
 * the glue passes a pacer whose check is bk_check_limits() (glue.h: R's
 * interrupt check, made to test setTimeLimit()'s limits at every call; it may
 * not return: R unwinds to the top level; scratch memory is R_alloc'ed, so
 * nothing leaks). The check runs on the calling (main) thread between
 * OpenMP regions, never inside one; the blocks change only when work is
 * done, not what is computed, so results do not depend on them. A NULL
 * pacer checks nothing (fuzzers, small matrices inside loops that check
 * themselves). */
#define BK_CHECK_OPS ((ptrdiff_t) 1 << 26)

typedef struct {
  void (*check)(void); /* called on the main thread; may not return */
  ptrdiff_t ops;       /* operations since the last check */
} bk_pacer;

/* count ops operations done; check when a block's worth has accumulated */
static inline void bk_pace(bk_pacer *p, ptrdiff_t ops)
{
  if (p && (p->ops += ops) >= BK_CHECK_OPS) {
    p->ops = 0;
    p->check();
  }
}

/* How many of n equal items of cost operations each to do between two
 * checks: about BK_CHECK_OPS operations' worth, at least min (the work a
 * parallel region needs to keep its threads busy) and at least 1; all n
 * without a pacer or a cost. */
static inline ptrdiff_t bk_pace_group(const bk_pacer *p, double cost,
                                      ptrdiff_t n, ptrdiff_t min)
{
  if (!p || !(cost > 0.0)) return n > 0 ? n : 1;
  double g = (double) BK_CHECK_OPS / cost;
  ptrdiff_t k = g < (double) n ? (ptrdiff_t) g : n;
  if (k < min) k = min;
  return k > 0 ? k : 1;
}

/* ---- paced loops ------------------------------------------------------------
 * n independent items (features, columns or cache blocks of a Gram matrix),
 * each writing only its own numbers, in groups of about BK_CHECK_OPS
 * operations (at least one item per thread) with the pacer between groups on
 * the calling thread; each group one OpenMP loop, threaded only where it has
 * par_min operations or more (a parallel region costs, see
 * BK_PAR_MIN_PAIRS). Without a pacer all n are one group. Neither the groups
 * nor the threads change a bit of the results. */
struct bk_par_watch;
typedef struct {
  void (*item)(void *ctx, ptrdiff_t i); /* item i, on any thread: no R API */
  void *ctx;
  double (*cost)(const void *ctx, ptrdiff_t i); /* its operations; NULL: ops */
  double ops;     /* the operations of every item where cost is NULL */
  double par_min; /* the operations a group needs for threads */
  int dynamic;    /* 0: a static schedule; else dynamic, chunks of this many */
  /* NULL, or a watch (schedule.h) that times every threaded group, sets it
   * against its threads' busy time and, once groups lose (on a busy
   * machine), runs the rest on one thread */
  struct bk_par_watch *watch;
} bk_paced_loop;

void bk_paced_for(const bk_paced_loop *loop, ptrdiff_t n, int nthreads,
                  bk_pacer *pace);

/* A pass over n columns of a matrix (standardising, rescaling, the
 * screen's passes), each column `ops` operations done by item(ctx, j) and
 * its numbers its own: one paced loop without a pacer, on nthreads threads
 * where the pass has BK_PAR_MIN_PAIRS operations (chunks of 32 columns
 * handed out as threads finish theirs); the same numbers on any number of
 * threads. */
void bk_columns_for(void (*item)(void *ctx, ptrdiff_t j), void *ctx, ptrdiff_t n,
                    double ops, int nthreads);

/* The number of the calling thread in an OpenMP region (0 outside one and
 * without OpenMP): which thread's scratch an item uses. */
#ifdef _OPENMP
#include <omp.h>
static inline int bk_thread_id(void) { return omp_get_thread_num(); }
#else
static inline int bk_thread_id(void) { return 0; }
#endif

/* called on the main thread after every iteration of a selection loop
 * (interrupts, progress; the glue's bk_select_tick()) */
typedef void (*bk_tick_fn)(void *ctx, ptrdiff_t iter, ptrdiff_t size,
                           double hsic, double sigma);

/* Threads pay off only for enough work: a parallel region costs a few
 * microseconds, and much more on a busy machine, where idle threads spin.
 * The loops of the core go parallel when their operations reach this (the
 * selection schedule: candidates times the scorer's cost). */
#define BK_PAR_MIN_PAIRS 1000000.0

/* 1 when the CPU runs the AVX2 + FMA copies of the loops (pairs.c) */
int bk_cpu_has_avx2_fma(void);

/* ---- scales (scale.c) --------------------------------------------------------
 * Floating-point products and sums scale exactly by powers of two (barring
 * over- and underflow), so a computation on data multiplied by 2^e gives the
 * very numbers of the computation on the data, times the matching power of
 * two. Data (or kernels) of an extreme scale are brought to one this way
 * before their squares could over- or underflow; data of an ordinary scale
 * are not touched, so their results are the same bits as ever. */

/* The exponent of a column without a power of two: all its values are 0
 * (or it has a non-finite one). INT_MIN, which is also R's NA_integer_. */
#define BK_NO_EXPONENT INT_MIN

/* e with maxabs in [2^(e-1), 2^e), at least -1021 (so that 2^-e is a
 * double); BK_NO_EXPONENT for 0 or a non-finite maxabs. */
int bk_pow2_exponent(double maxabs);

/* 2^-e, exactly; 1 for BK_NO_EXPONENT. */
double bk_pow2_scale(int e);

/* ldexp(v, e), v 2^e rounded once, by one product with the exact power of
 * two where 2^e is a normal double (|e| up to 1022): an IEEE product is the
 * exact one rounded once, as ldexp's result is, so the same bits (NaN
 * payloads, signed zeros, subnormal results and overflow included), without
 * the library call; ldexp() itself beyond. */
static inline double bk_ldexp(double v, int e)
{
  if (e < -1022 || e > 1023) return ldexp(v, e);
  const uint64_t bits = (uint64_t) (e + 1023) << 52;
  double f;
  memcpy(&f, &bits, sizeof f);
  return v * f;
}

/* e with 2^e v in [0.5, 1) (that is, -bk_pow2_exponent(v)) when v > 0 lies
 * outside [2^-range, 2^range]; 0 inside it, and for v = 0, Inf or NaN.
 * |e| <= 1000, so that 2^e and 2^-e are normal doubles. */
int bk_pow2_shift(double v, int range);

/* The range of the data's largest absolute value within which the squared
 * distances and inner products of the kernels neither over- nor underflow:
 * outside [2^-256, 2^256], the distance kernels work on rescaled data. */
#define BK_DATA_RANGE 256

/* max |x[i]| over i < n (0 for n = 0) */
double bk_max_abs(const double *x, ptrdiff_t n);

/* out[i] = 2^e x[i], exactly (out may be x) */
void bk_copy_pow2(const double *x, ptrdiff_t n, int e, double *out);

#endif
