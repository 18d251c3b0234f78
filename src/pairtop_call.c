/* pairtop_call.c: SEXP glue for pairtop.c, the screen of all pairs of
 * features. */
#include <limits.h>
#include "glue.h"
#include "pairtop.h"
#include "screen.h"

/* list(i, j, score): 1-based i < j, the float scores times 2^e as doubles */
static SEXP pair_result(const bk_pair_list *pl, ptrdiff_t n, int e)
{
  SEXP i = PROTECT(Rf_allocVector(INTSXP, n));
  SEXP j = PROTECT(Rf_allocVector(INTSXP, n));
  SEXP s = PROTECT(Rf_allocVector(REALSXP, n));
  const double sc = e == BK_NO_EXPONENT ? 1.0 : ldexp(1.0, e);
  for (ptrdiff_t q = 0; q < n; q++) {
    INTEGER(i)[q] = pl->i[q] + 1;
    INTEGER(j)[q] = pl->j[q] + 1;
    REAL(s)[q] = sc * (double) pl->s[q];
  }
  const char *names[] = {"i", "j", "score", ""};
  SEXP values[] = {i, j, s};
  SEXP out = bk_named_list(names, values);
  UNPROTECT(3);
  return out;
}

static bk_pair_list pair_list(ptrdiff_t k)
{
  const size_t n = (size_t) (k > 0 ? k : 1);
  bk_pair_list pl = {k, (int *) R_alloc(n, sizeof(int)),
                     (int *) R_alloc(n, sizeof(int)),
                     (float *) R_alloc(n, sizeof(float))};
  return pl;
}

/* n floats aligned to 64 bytes (R_alloc'ed: freed at the end of the call) */
static float *alloc_floats(double n)
{
  if (!(n <= (double) (PTRDIFF_MAX / 4 - 64)))
    Rf_error("the screen of pairs needs more memory than this system can address");
  unsigned char *b = (unsigned char *) R_alloc((size_t) n * sizeof(float) + 64, 1);
  return (float *) (b + (64 - (uintptr_t) b % 64) % 64);
}

/* The Gaussian screen. x: m x p double matrix (standardised features), W:
 * m x m symmetric double matrix (the centred label kernel matrix, scaled as
 * the caller wants the scores); opts: a named list (read by name, glue.h):
 *   gamma    the kernel's exp(-gamma d^2) parameter, > 0
 *   k        the pairs wanted, >= 1
 *   threads, simd   the number of threads; the AVX2 copy or the plain one
 * Returns list(i, j, score) of the best min(k, p (p - 1) / 2) pairs by
 * s_ij = sum_ab W_ab Kc^i_ab Kc^j_ab in float32 (pairtop.h). W is scaled by
 * a power of two into float's range and the scores back, exactly. */
SEXP C_pair_top(SEXP x, SEXP W, SEXP opts)
{
  bk_need_double_matrix(x, "x");
  bk_need_double_matrix(W, "W");
  const ptrdiff_t m = Rf_nrows(x), p = Rf_ncols(x);
  if (Rf_nrows(W) != m || Rf_ncols(W) != m)
    Rf_error("C_pair_top: 'W' must be %td x %td", m, m);
  bk_opts op;
  bk_opts_open(&op, opts, "C_pair_top");
  const double gamma = bk_opt_real(&op, "gamma");
  if (!(gamma > 0.0)) Rf_error("C_pair_top: option 'gamma' must be > 0");
  const ptrdiff_t k = bk_pairs_wanted(p, bk_opt_int(&op, "k", 1, INT_MAX));
  const int nthreads = bk_opt_threads(&op), simd = bk_opt_flag(&op, "simd");
  bk_opts_done(&op);
  const ptrdiff_t ld = bk_pair_ld(m * (m + 1) / 2);
  float *V = alloc_floats((double) ld * (double) bk_pair_cols(p));
  float *w = alloc_floats((double) ld);
  double *vw = (double *) R_alloc((size_t) bk_pair_vectors_work(m, nthreads) + 1,
                                  sizeof(double));
  bk_pacer pace = {bk_check_limits, 0};
  bk_pair_vectors(REAL(x), m, p, gamma, V, ld, vw, nthreads, &pace);
  const int e = bk_pow2_exponent(bk_max_abs(REAL(W), XLENGTH(W)));
  bk_pair_weights(REAL(W), m, bk_pow2_scale(e), w, ld);
  bk_pair_list pl = pair_list(k);
  bk_pair_exec ex = {nthreads, simd,
                     R_alloc(bk_pair_top_work(ld, 0, k, nthreads), 1), &pace};
  const ptrdiff_t n = k > 0 ? bk_pair_top(V, ld, p, w, &pl, &ex) : 0;
  return pair_result(&pl, n, e);
}

/* The linear screen. x: m x p double matrix (standardised features), U:
 * m x r double matrix; opts: a named list (read by name, glue.h):
 *   c        r finite weights
 *   k, threads, simd   as C_pair_top
 *   scale    TRUE: each column of x divided by bk_pair_scale_divisors()'
 *            divisor first (R's x / rep(sqrt(ifelse(q > 0, q, 1)), each =
 *            nrow(x)), q = sqrt(colSums(x^4)), the same numbers) as it is
 *            packed, without the scaled copy
 * Returns list(i, j, score) of the best pairs by
 * s_ij = sum_t c_t (sum_a U_at x_ai x_aj)^2 in float32. Each column of U is
 * scaled by a power of two into float's range (its square folded into c),
 * c likewise and the scores back, exactly. */
SEXP C_pair_top_lowrank(SEXP x, SEXP U, SEXP opts)
{
  bk_need_double_matrix(x, "x");
  bk_need_double_matrix(U, "U");
  const ptrdiff_t m = Rf_nrows(x), p = Rf_ncols(x), r = Rf_ncols(U);
  if (Rf_nrows(U) != m) Rf_error("C_pair_top_lowrank: 'U' must have %td rows", m);
  bk_opts op;
  bk_opts_open(&op, opts, "C_pair_top_lowrank");
  const double *c = bk_opt_real_vector(&op, "c", r, NULL);
  const ptrdiff_t k = bk_pairs_wanted(p, bk_opt_int(&op, "k", 1, INT_MAX));
  const int nthreads = bk_opt_threads(&op), simd = bk_opt_flag(&op, "simd");
  const int scale = bk_opt_flag(&op, "scale");
  bk_opts_done(&op);
  const ptrdiff_t ld = bk_pair_ld(m);
  float *X = alloc_floats((double) ld * (double) bk_pair_cols(p));
  float *Uf = alloc_floats((double) ld * (double) r);
  double *cd = (double *) R_alloc((size_t) r + 1, sizeof(double));
  float *cf = (float *) R_alloc((size_t) r + 1, sizeof(float));
  double *div = NULL;
  if (scale) {
    div = (double *) R_alloc((size_t) p + 1, sizeof(double));
    bk_pair_scale_divisors(REAL(x), m, p, div, nthreads);
  }
  bk_pair_pack(REAL(x), m, p, div, X, ld, nthreads);
  const int e = bk_pair_lowrank_weights(REAL(U), m, r, c, ld, Uf, cd, cf);
  bk_pair_list pl = pair_list(k);
  bk_pacer pace = {bk_check_limits, 0};
  bk_pair_exec ex = {nthreads, simd,
                     R_alloc(bk_pair_top_work(ld, r, k, nthreads), 1), &pace};
  const ptrdiff_t n =
      k > 0 ? bk_pair_top_lowrank(X, ld, p, Uf, r, cf, &pl, &ex) : 0;
  return pair_result(&pl, n, e);
}

/* The bytes C_pair_top (rank = 0) or C_pair_top_lowrank (rank r >= 1)
 * allocates at its peak, for the memory budget of the R side; opts: m, p,
 * k, threads, rank (whole numbers, given as doubles or integers). */
SEXP C_pair_top_bytes(SEXP opts)
{
  bk_opts op;
  bk_opts_open(&op, opts, "C_pair_top_bytes");
  const double m = bk_opt_real(&op, "m"), p = bk_opt_real(&op, "p");
  const double r = bk_opt_real(&op, "rank");
  const double kd = bk_opt_real(&op, "k");
  const int nthreads = bk_opt_threads(&op);
  bk_opts_done(&op);
  if (!(m >= 1 && p >= 0 && r >= 0 && kd >= 0))
    Rf_error("C_pair_top_bytes: m >= 1, p, k, rank >= 0 expected");
  const double all = 0.5 * p * (p - 1), k = kd < all ? kd : all;
  const double rows = r > 0 ? m : 0.5 * m * (m + 1);
  const double ld = ceil(rows / BK_PAIR_ALIGN) * BK_PAIR_ALIGN;
  const double cols = ceil(p / BK_PAIR_TILE) * BK_PAIR_TILE;
  const double nt = nthreads, nr = r > 0 ? r : 1;
  /* the data (V or X), w or U, the result, the work of the screen (its
   * lists and per thread A packed, C and S) and of the vectors; the linear
   * screen's weights and, where it scales the features, their divisors */
  double bytes = 4.0 * ld * (cols + nr) + 12.0 * k + 16.0 * k * nt +
                 4.0 * nt * (BK_PAIR_TILE * ld * nr + 2.0 * BK_PAIR_TILE * BK_PAIR_TILE) +
                 1024.0 * (nt + 1);
  if (r > 0)
    bytes += 12.0 * r + 8.0 * p;
  else
    bytes += 8.0 * nt * (0.5 * m * (m + 1) + m);
  return Rf_ScalarReal(bytes);
}
