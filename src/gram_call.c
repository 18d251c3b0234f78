/* gram_call.c: SEXP glue for gram.c and the per-feature kernel sums. */
#include <float.h>
#include <limits.h>
#include "glue.h"
#include "hsic.h"
#if defined(__linux__)
#include <stdint.h>
#include <sys/mman.h>
#endif

/* A Gram matrix of m = 16,000 is 2 GB of fresh pages. With the transparent
 * huge-page hint (MADV_HUGEPAGE) each 2 MiB page was zeroed at its first
 * touch and, memory being fragmented, compacted for first: the kernel's
 * clear_page and compaction took most of the time of hsic() at that size.
 * Without the hint, 4 KiB pages are faulted in as the Gram loop reaches
 * them; MADV_NOHUGEPAGE says so also where huge pages are on for every
 * mapping ("always"), so that no fill of K stalls on compaction
 * (inst/bench/bench-hsic.R measures the system time of kernel_matrix()).
 * A hint only: on other systems nothing changes, and never a value. */
static void advise_no_huge(double *p, size_t n)
{
#if defined(__linux__) && defined(MADV_NOHUGEPAGE)
  const uintptr_t page = (uintptr_t) 1 << 12;
  uintptr_t lo = ((uintptr_t) p + page - 1) & ~(page - 1),
            hi = ((uintptr_t) (p + n)) & ~(page - 1);
  if (hi > lo) (void) madvise((void *) lo, (size_t) (hi - lo), MADV_NOHUGEPAGE);
#else
  (void) p;
  (void) n;
#endif
}

/* The data the distance kernels are computed on: x itself, or, when x's scale
 * is extreme, a copy multiplied by 2^e (*e; see bk_pow2_shift()), so that
 * the squared distances neither over- nor underflow. The kernels and medians
 * of the copy are those of x, exactly, in other units. */
static const double *rescaled(const double *x, ptrdiff_t n, int *e)
{
  *e = bk_pow2_shift(bk_max_abs(x, n), BK_DATA_RANGE);
  if (*e == 0) return x;
  double *xs = (double *) R_alloc((size_t) n, sizeof(double));
  bk_copy_pow2(x, n, *e, xs);
  return xs;
}

/* The kernel of C_gram() and C_feature_dot(): options kernel (a code of
 * BK_KSET_DATA, codes.h) and p2 (finite); p1 is read by the caller, as the
 * two differ in what it may be. */
static bk_kernel data_kernel(bk_opts *op, double p1)
{
  const int type = bk_opt_int(op, "kernel", -INT_MAX, INT_MAX);
  const double p2 = bk_opt_real(op, "p2");
  return bk_make_kernel(type, p1, p2);
}

/* x: m x d double matrix; opts: a named list (read by name, glue.h):
 *   kernel, p1, p2   the kernel's code (BK_KSET_DATA) and parameters; p1 = NA
 *              asks for the median heuristic (a kernel with a width only)
 *   threads, simd    the number of threads; the AVX2 loops (where the CPU
 *              has them) or the baseline ones, the same values
 * The width used is returned as the attribute "p1": NaN when the median is 0
 * (all samples coincide), and outside the normal doubles when the data's
 * scale leaves no representable width (the R side then stops). */
SEXP C_gram(SEXP x, SEXP opts)
{
  bk_need_double_matrix(x, "x");
  bk_opts op;
  bk_opts_open(&op, opts, "C_gram");
  const double p1 = bk_opt_real_na(&op, "p1");
  bk_kernel k = data_kernel(&op, p1);
  if (ISNAN(p1) && !bk_kernel_has_width(k.type))
    Rf_error("C_gram: option 'p1' must be finite for kernel code %d (NA, the "
             "median heuristic, is for a kernel with a width)", k.type);
  const int nthreads = bk_opt_threads(&op);
  const int simd = bk_opt_flag(&op, "simd");
  bk_opts_done(&op);
  ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x);
  int e = 0;
  const double *xs = bk_kernel_uses_distance(k.type) ? rescaled(REAL(x), m * d, &e)
                                                     : REAL(x);
  double *work = NULL;
  if (ISNAN(k.p1) && bk_kernel_has_width(k.type) && m > 1)
    work = (double *) R_alloc((size_t) BK_MEDIAN_WORK(m), sizeof(double));
  SEXP K = PROTECT(Rf_allocMatrix(REALSXP, (int) m, (int) m));
  advise_no_huge(REAL(K), (size_t) (m * m));
  bk_pacer pace = {bk_check_limits, 0};
  bk_gram_ck(xs, m, d, e, &k, REAL(K), work, nthreads, simd, &pace);
  SEXP width = PROTECT(Rf_ScalarReal(k.p1));
  Rf_setAttrib(K, Rf_install("p1"), width);
  UNPROTECT(2);
  return K;
}

/* The data of a Gram matrix (bk_gram_src) from x and opts as C_gram()'s,
 * with a width given (p1 finite); *nthreads and *simd from opts too. */
static bk_gram_src read_src(SEXP x, SEXP opts, const char *entry,
                            int *nthreads, int *simd)
{
  bk_need_double_matrix(x, "x");
  bk_opts op;
  bk_opts_open(&op, opts, entry);
  const double p1 = bk_opt_real(&op, "p1");
  bk_gram_src src = {.m = Rf_nrows(x), .d = Rf_ncols(x),
                     .kern = data_kernel(&op, p1)};
  *nthreads = bk_opt_threads(&op);
  *simd = bk_opt_flag(&op, "simd");
  bk_opts_done(&op);
  src.xs = bk_kernel_uses_distance(src.kern.type)
               ? rescaled(REAL(x), src.m * src.d, &src.e)
               : REAL(x);
  return src;
}

/* A statistic of x's Gram matrix and the label from x itself (core:
 * bk_hsic_stats_x(), bk_hsic_gamma_x(); nout values); opts as C_gram()'s,
 * with a width given. The label is list(L = ) or list(Y = ), as
 * C_hsic_stats()'s, or, with label = NULL, the Gram matrix of y (m rows) by
 * yopts (the same form as opts). Holds a panel of K's columns (and L's), not
 * K: no m x m buffer to fault in and zero. */
typedef void (*hsic_x_fn)(const bk_gram_src *src, const bk_gram_src *ysrc,
                          bk_label lab, double *out, double *work,
                          int nthreads, int simd, bk_pacer *pace);
/* the core's call, on the work bk_with_scratch() gives */
typedef struct {
  hsic_x_fn core;
  const bk_gram_src *src, *ysrc;
  bk_label lab;
  double *out;
  int nthreads, simd;
} hsic_x_run;

static void hsic_x_work(void *data, double *work)
{
  hsic_x_run *r = data;
  bk_pacer pace = {bk_check_limits, 0};
  r->core(r->src, r->ysrc, r->lab, r->out, work, r->nthreads, r->simd, &pace);
}

static SEXP hsic_x(SEXP x, SEXP opts, SEXP label, SEXP y, SEXP yopts,
                   const char *entry, hsic_x_fn core, R_xlen_t nout)
{
  int nthreads, simd, ythreads, ysimd;
  bk_gram_src src = read_src(x, opts, entry, &nthreads, &simd), ysrc = {0};
  bk_label lab = {NULL, NULL, 0};
  if (Rf_isNull(label)) {
    ysrc = read_src(y, yopts, entry, &ythreads, &ysimd);
    if (ysrc.m != src.m) Rf_error("'y' must have %td rows", src.m);
  } else {
    bk_opts op;
    bk_opts_open(&op, label, entry);
    lab = bk_opt_label(&op, src.m);
    bk_opts_done(&op);
  }
  SEXP out = PROTECT(Rf_allocVector(REALSXP, nout));
  hsic_x_run r = {core, &src, Rf_isNull(label) ? &ysrc : NULL, lab, REAL(out),
                  nthreads, simd};
  bk_with_scratch((size_t) BK_HSIC_X_WORK(src.m, lab.c), hsic_x_work, &r);
  UNPROTECT(1);
  return out;
}

/* C_hsic_stats()'s four numbers, to the last bit, from x */
SEXP C_hsic_stats_x(SEXP x, SEXP opts, SEXP label, SEXP y, SEXP yopts)
{
  return hsic_x(x, opts, label, y, yopts, "C_hsic_stats_x", bk_hsic_stats_x, 4);
}

/* C_hsic_gamma()'s five numbers, to the last bit, from x */
SEXP C_hsic_gamma_x(SEXP x, SEXP opts, SEXP label, SEXP y, SEXP yopts)
{
  return hsic_x(x, opts, label, y, yopts, "C_hsic_gamma_x", bk_hsic_gamma_x, 5);
}

/* C_median_pairwise()'s median, on the work bk_with_scratch() gives */
typedef struct {
  const double *xs;
  ptrdiff_t m, d;
  int squared, nthreads;
  double med;
} median_run;

static void median_work(void *data, double *work)
{
  median_run *r = data;
  bk_pacer pace = {bk_check_limits, 0};
  r->med = bk_median_pairwise_ck(r->xs, r->m, r->d, r->squared, work,
                                 r->d > 1 ? work + BK_MEDIAN_WORK(r->m) : NULL,
                                 r->nthreads, &pace);
}

/* The median of the pairwise squared distances (squared = TRUE) or
 * distances of the rows of x (threads: a whole number >= 1): NA for fewer than 2 rows, 0 when all rows
 * coincide, NaN when it is positive but not representable with its inverse
 * (bk_median_in_units()). */
SEXP C_median_pairwise(SEXP x, SEXP squared, SEXP threads)
{
  bk_need_double_matrix(x, "x");
  ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x);
  if (m < 2) return Rf_ScalarReal(NA_REAL);
  int e;
  median_run r = {.xs = rescaled(REAL(x), m * d, &e), .m = m, .d = d,
                  .squared = Rf_asLogical(squared),
                  .nthreads = Rf_asInteger(threads)};
  /* the packed distances, then (d > 1) the cross products' m x m; one
   * feature: its sorted values and a few of its gaps */
  bk_with_scratch((size_t) (BK_MEDIAN_PAIRWISE_WORK(m, d) + (d > 1 ? m * m : 0)),
                  median_work, &r);
  return Rf_ScalarReal(bk_median_in_units(r.med, e, r.squared));
}

/* s_j = sum_ik W_ik k(x_ij, x_kj), the kernel on feature j alone, for every
 * column j of x (m x d); W: m x m double matrix; opts: a named list (read by
 * name, glue.h):
 *   kernel, p1, p2   the kernel's code (BK_KSET_DATA) and parameters; p1 is
 *              one finite double, or d of them: a width per feature (the
 *              per-feature median heuristic of feature_scores())
 *   threads, simd    the number of threads; the SIMD loop or the plain one */
SEXP C_feature_dot(SEXP x, SEXP W, SEXP opts)
{
  bk_need_double_matrix(x, "x");
  bk_need_double_matrix(W, "W");
  ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x);
  if (Rf_nrows(W) != m || Rf_ncols(W) != m)
    Rf_error("'W' must be %td x %td", m, m);
  bk_opts op;
  bk_opts_open(&op, opts, "C_feature_dot");
  R_xlen_t np1;
  const double *p1 = bk_opt_real_vector(&op, "p1", -1, &np1);
  if (np1 != 1 && np1 != d)
    Rf_error("C_feature_dot: option 'p1' must be a double vector of length 1 "
             "or %td (ncol(x))", d);
  for (R_xlen_t j = 0; j < np1; j++)
    if (!R_FINITE(p1[j]))
      Rf_error("C_feature_dot: option 'p1' must be finite (element %td is not)",
               (ptrdiff_t) j + 1);
  bk_kernel k = data_kernel(&op, p1[0]);
  const int nthreads = bk_opt_threads(&op);
  const int simd = bk_opt_flag(&op, "simd");
  bk_opts_done(&op);
  double *work = (double *) R_alloc(
      (size_t) (BK_FEATURE_DOT_WORK(m, nthreads > 1 ? nthreads : 1) + 1), sizeof(double));
  SEXP out = PROTECT(Rf_allocVector(REALSXP, d));
  bk_pacer pace = {bk_check_limits, 0};
  bk_feature_dot(REAL(x), m, d, k, np1 == d ? p1 : NULL, REAL(W), REAL(out),
                 work, simd, nthreads, &pace);
  UNPROTECT(1);
  return out;
}

/* The median heuristic for every column of x on its own (per-feature
 * kernels of feature_scores()), each as C_median_pairwise() gives it
 * (bk_median_columns()), on up to `threads` threads. */
SEXP C_median_columns(SEXP x, SEXP squared, SEXP threads)
{
  bk_need_double_matrix(x, "x");
  ptrdiff_t m = Rf_nrows(x), d = Rf_ncols(x);
  const int sq = Rf_asLogical(squared), nthreads = Rf_asInteger(threads);
  if (nthreads < 1) Rf_error("'threads' must be a whole number >= 1");
  SEXP out = PROTECT(Rf_allocVector(REALSXP, d));
  if (m < 2) {
    for (ptrdiff_t j = 0; j < d; j++) REAL(out)[j] = NA_REAL;
  } else {
    double *work = (double *) R_alloc(
        (size_t) (BK_MEDIAN_COLUMNS_WORK(m) * nthreads), sizeof(double));
    bk_pacer pace = {bk_check_limits, 0};
    bk_median_columns(REAL(x), m, d, sq, REAL(out), work, nthreads, &pace);
  }
  UNPROTECT(1);
  return out;
}
