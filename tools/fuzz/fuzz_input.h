/*
 * fuzz_input.h: decodes a libFuzzer input into the arguments of the numeric
 * core (src/bahsic.h). Shared by the fuzz targets of tools/fuzz/; see
 * tools/fuzz.sh for how they are built and run.
 *
 * The input is read front to back as a stream; once it is exhausted every
 * read returns 0, so that any prefix of an input is itself a valid input and
 * libFuzzer's mutations stay meaningful. Sizes and options come first, then
 * the arrays.
 *
 * Arrays of doubles start with a mode byte, so that whole arrays are often
 * finite and "tame" (the only inputs for which the targets check the
 * documented output invariants; the contract for NaN, Inf and huge values is
 * only: no memory error, no undefined behaviour, no hang, no crash):
 *   FZ_TAME   small multiples of 1/4 in [-32, 32): many ties, as in
 *             integer-valued or discrete data
 *   FZ_FINITE tame values mixed with raw 8-byte doubles, non-finite ones
 *             replaced by tame values
 *   FZ_WILD   a byte per element picks a special value often (NaN, +-Inf,
 *             +-0, +-1e308, +-1e150, DBL_MAX, denormals, ...), a tame value
 *             or a raw 8-byte double (any bit pattern, NaN payloads too)
 */
#ifndef BAHSIC_FUZZ_INPUT_H
#define BAHSIC_FUZZ_INPUT_H

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bahsic.h"

typedef struct {
  const uint8_t *p;
  size_t n, pos;
} fz_in;

static inline fz_in fz_open(const uint8_t *data, size_t size)
{
  fz_in f = {data, size, 0};
  return f;
}

static inline uint8_t fz_u8(fz_in *f)
{
  return f->pos < f->n ? f->p[f->pos++] : 0;
}

static inline uint64_t fz_u64(fz_in *f)
{
  uint64_t u = 0;
  for (int i = 0; i < 8; i++) u |= (uint64_t) fz_u8(f) << (8 * i);
  return u;
}

/* an integer in lo..hi (hi - lo < 65536) */
static inline int fz_int(fz_in *f, int lo, int hi)
{
  unsigned span = (unsigned) (hi - lo) + 1u;
  unsigned v = fz_u8(f);
  if (span > 256u) v |= (unsigned) fz_u8(f) << 8;
  return lo + (int) (v % span);
}

static inline double fz_raw_double(fz_in *f)
{
  uint64_t u = fz_u64(f);
  double v;
  memcpy(&v, &u, sizeof v);
  return v;
}

/* values that break naive numeric code */
static const double fz_specials[] = {
    NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, 1e308, -1e308, 1e150, -1e150,
    DBL_MAX, -DBL_MAX, DBL_MIN, -DBL_MIN, 4.9406564584124654e-324 /* min denormal */,
    -4.9406564584124654e-324, 2.2250738585072009e-308 /* max denormal */,
    1e-300, -1e-300, 1e-160, 1.0, -1.0, 0.5, 2.0, 3.0, 708.0, -708.0, 709.8,
    -745.2, 1e-10, 1e10, DBL_EPSILON, 1.0 + DBL_EPSILON, 1e154, 1.3407807929942596e154 /* sqrt(DBL_MAX) */,
    9007199254740993.0, 2147483648.0, -2147483649.0, 1e19};
#define FZ_NSPECIAL ((int) (sizeof fz_specials / sizeof fz_specials[0]))

static inline double fz_tame(fz_in *f)
{
  return (double) (int8_t) fz_u8(f) / 4.0;
}

enum { FZ_TAME = 0, FZ_FINITE = 1, FZ_WILD = 2 };

static inline double fz_value(fz_in *f, int mode)
{
  if (mode == FZ_TAME) return fz_tame(f);
  uint8_t b = fz_u8(f);
  if (mode == FZ_FINITE) {
    if (b < 192) return (double) ((int) b - 96) / 4.0;
    double v = fz_raw_double(f);
    return isfinite(v) ? v : (double) (b & 15);
  }
  if (b < 96) return fz_specials[b % FZ_NSPECIAL];
  if (b < 192) return (double) ((int) b - 144) / 4.0;
  return fz_raw_double(f);
}

/* a mode byte, then n values; returns the mode */
static inline int fz_doubles(fz_in *f, double *out, ptrdiff_t n)
{
  int mode = fz_u8(f) % 4;
  if (mode == 3) mode = FZ_TAME; /* tame half the time */
  for (ptrdiff_t i = 0; i < n; i++) out[i] = fz_value(f, mode);
  return mode;
}

/* A symmetric m x m matrix from its upper triangle (diagonal included). */
static inline int fz_symmetric(fz_in *f, double *A, ptrdiff_t m)
{
  int mode = fz_u8(f) % 4;
  if (mode == 3) mode = FZ_TAME;
  for (ptrdiff_t b = 0; b < m; b++)
    for (ptrdiff_t a = 0; a <= b; a++)
      A[a + m * b] = A[b + m * a] = fz_value(f, mode);
  return mode;
}

/* A kernel parameter: degenerate values often (0, negative, NaN, +-Inf,
 * huge, tiny, whole numbers beyond int), otherwise a small positive one. */
static inline double fz_param(fz_in *f)
{
  uint8_t b = fz_u8(f);
  if (b < 64) return fz_specials[b % FZ_NSPECIAL];
  if (b < 80) return -(double) (b - 63) / 8.0;
  if (b < 96) return fz_raw_double(f);
  if (b < 128) return (double) (b - 95); /* whole: polynomial degrees */
  return (double) (b - 127) / 32.0;
}

/* Any kernel code, and one past the last (bk_kernel_value() returns NaN). */
static inline bk_kernel fz_kernel(fz_in *f, int lo, int hi)
{
  bk_kernel k;
  k.type = fz_int(f, lo, hi);
  k.p1 = fz_param(f);
  k.p2 = fz_param(f);
  return k;
}

/* 1 if every value of v[0..n-1] is finite */
static inline int fz_all_finite(const double *v, ptrdiff_t n)
{
  for (ptrdiff_t i = 0; i < n; i++)
    if (!isfinite(v[i])) return 0;
  return 1;
}

/* 1 if every value is finite and |v| <= lim */
static inline int fz_all_within(const double *v, ptrdiff_t n, double lim)
{
  for (ptrdiff_t i = 0; i < n; i++)
    if (!(fabs(v[i]) <= lim)) return 0;
  return 1;
}

/* A permutation of 0..m-1 (Fisher-Yates driven by the input). */
static inline void fz_permutation(fz_in *f, int *perm, ptrdiff_t m)
{
  for (ptrdiff_t i = 0; i < m; i++) perm[i] = (int) i;
  for (ptrdiff_t i = m - 1; i > 0; i--) {
    ptrdiff_t j = fz_int(f, 0, 255) % (i + 1);
    int t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
}

/* Class labels in 0..ncls-1, the contract of bk_class_moments(). */
static inline void fz_classes(fz_in *f, int *cls, ptrdiff_t m, int ncls)
{
  for (ptrdiff_t i = 0; i < m; i++) cls[i] = fz_u8(f) % ncls;
}

/* malloc of exactly n elements (n = 0 gives a zero-size block, which ASan
 * reports on any access); aborts on failure so that a harness bug cannot
 * pass for a core bug */
static inline void *fz_alloc(ptrdiff_t n, size_t size)
{
  void *p = malloc((size_t) (n > 0 ? n : 0) * size);
  if (!p && n > 0) abort();
  return p;
}

#define FZ_NEW(type, n) ((type *) fz_alloc((n), sizeof(type)))

/* Equal as bit patterns, or both NaN. */
static inline int fz_same(double a, double b)
{
  return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

/* A failed invariant: say which, then abort() so libFuzzer saves the input. */
#include <stdio.h>
#define FZ_CHECK(cond)                                                        \
  do {                                                                       \
    if (!(cond)) {                                                           \
      fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__,   \
              #cond);                                                        \
      abort();                                                               \
    }                                                                        \
  } while (0)

/* A selection step: 0 and common fractions often, then any fraction of
 * 1/128, with 1, a negative one and subnormals (steps >= 1 are outside the
 * selectors' contract: fuzz_select keeps them, fuzz_ridge maps them below 1). */
static inline double fz_step(fz_in *f)
{
  static const double steps[] = {0.0, 0.0, 0.1, 0.25, 0.5, 0.75, 0.999999,
                                 1.0, 1e-300, -0.5, 4.9406564584124654e-324};
  uint8_t b = fz_u8(f);
  if (b < 128) return steps[b % (sizeof steps / sizeof steps[0])];
  return (double) (b - 128) / 128.0;
}

/* The invariants of a selection loop's result (bk_select_features(),
 * bk_ridge_select()) on finite input: the ranked features' ranks are a
 * permutation of 1..k (k = d for BAHSIC, n_target or d for FOHSIC); an
 * unranked one has iter 0 and score NaN, a ranked one 1 <= iter <= np;
 * BAHSIC: eliminated earlier ranks lower, FOHSIC: added earlier ranks
 * higher; the path's iterations are 1, 2, ... and its sizes fall (BAHSIC) or
 * grow (FOHSIC); the tick ran once per path row; with tame_scores every
 * score and path HSIC and width is finite. */
static inline void fz_check_selection(const int *rank, const int *iter,
                                      const double *score, const double *path,
                                      ptrdiff_t np, ptrdiff_t ticks,
                                      ptrdiff_t d, int back,
                                      ptrdiff_t n_target, int tame_scores)
{
  const ptrdiff_t nranked = back ? d : (n_target > 0 ? n_target : d);
  FZ_CHECK(np >= 0 && np <= d + 1);
  FZ_CHECK(ticks == np);
  int *seen = FZ_NEW(int, d + 1);
  memset(seen, 0, (size_t) (d + 1) * sizeof(int));
  ptrdiff_t k = 0;
  for (ptrdiff_t j = 0; j < d; j++) {
    if (rank[j] == 0) {
      FZ_CHECK(iter[j] == 0 && isnan(score[j]));
      continue;
    }
    FZ_CHECK(rank[j] >= 1 && rank[j] <= d);
    FZ_CHECK(!seen[rank[j]]);
    seen[rank[j]] = 1;
    FZ_CHECK(iter[j] >= 1 && iter[j] <= np);
    if (tame_scores) FZ_CHECK(isfinite(score[j]));
    k++;
  }
  FZ_CHECK(k == nranked);
  for (ptrdiff_t i = 1; i <= k; i++) FZ_CHECK(seen[i]);
  free(seen);
  for (ptrdiff_t a = 0; a < d; a++)
    for (ptrdiff_t b = 0; b < d; b++)
      if (rank[a] > 0 && rank[b] > 0 && iter[a] < iter[b])
        FZ_CHECK(back ? rank[a] > rank[b] : rank[a] < rank[b]);
  for (ptrdiff_t i = 0; i < np; i++) {
    const double *row = path + 4 * i;
    FZ_CHECK(row[0] == (double) (i + 1));
    FZ_CHECK(row[1] >= 0 && row[1] <= (double) d);
    if (i > 0) FZ_CHECK(back ? row[1] < row[-3] : row[1] > row[-3]);
    if (tame_scores) FZ_CHECK(isfinite(row[2]) && isfinite(row[3]));
  }
}

#endif
