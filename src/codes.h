/*
 * codes.h: the integer codes that cross .Call -- kernels, width policies,
 * selection directions, spectral measures -- defined once, as X-macro
 * tables. The enums, the range checks of the glue and C_codes() (which R
 * reads into bk_codes at load, R/codes.R) are all generated from these rows.
 * Plain C, no R API: the numeric core includes it through common.h, the
 * fuzzers through bahsic.h.
 *
 * The numbers are part of the interface (the fuzzers' seed corpora): keep
 * them when rows are added. A kernel row carries all the C
 * core knows of the kernel -- the entry points, the properties (distance,
 * width, squared width, random features), the spectral measure its random
 * features draw from and the value -- so a new row needs nothing else in C.
 */
#ifndef BAHSIC_CODES_H
#define BAHSIC_CODES_H

#include <math.h>

/* The entry points a kernel code is accepted by (a kernel row's sets
 * column is the union of these, checked by bk_kernel_in()). X(enumerator,
 * bit, R name). */
#define BK_KSET_TABLE(X)                                                     \
  /* the generic data-kernel core: bk_gram(), bk_feature_dot(), bk_ichol(),  \
   * the ridge base */                                                       \
  X(BK_KSET_DATA, 1, "data")                                                 \
  /* bk_select_features() and the approximate paths; the linear kernel is    \
   * done in one pass in R (section 4 of Song et al. 2012) */                \
  X(BK_KSET_SELECT, 2, "select")                                             \
  /* bk_randsel_*() */                                                       \
  X(BK_KSET_RANDSEL, 4, "randsel")

#define BK_X_KSET_DEFINE(id, bit, name) id = bit,
enum bk_kset { BK_KSET_TABLE(BK_X_KSET_DEFINE) };
#undef BK_X_KSET_DEFINE

/* What the core needs to know of a kernel besides its values (a kernel
 * row's props column, read by bk_kernel_has()). X(enumerator, bit, R name). */
#define BK_KPROP_TABLE(X)                                                    \
  /* a function of ||x - x'||, not of <x, x'> */                             \
  X(BK_KPROP_DISTANCE, 1, "distance")                                        \
  /* p1 is a width, set by the width policy of the selectors (Song et al.    \
   * 2012, section 4.1, step 3) and by the median heuristic */              \
  X(BK_KPROP_WIDTH, 2, "width")                                              \
  /* the width multiplies the squared distance: the median heuristic takes   \
   * the squared distances and the "dimension" rule is 1 / (2 s); else the   \
   * distances and 1 / sqrt(2 s) */                                          \
  X(BK_KPROP_SQUARED, 4, "squared")                                          \
  /* shift-invariant with a known spectral measure (the row's spectrum):    \
   * random Fourier features (Rahimi and Recht 2007) approximate it */       \
  X(BK_KPROP_RFF, 8, "rff")                                                  \
  /* p1 is a length (an offset to the distance) and the value the inverse    \
   * of a length: data scaled by 2^e scale p1 by 2^e and the value by 2^-e   \
   * (bk_scaled_kernel()); a width scales with the data's inverse */         \
  X(BK_KPROP_LENGTH, 16, "length")

#define BK_X_PROP_DEFINE(id, bit, name) id = bit,
enum bk_kprop { BK_KPROP_TABLE(BK_X_PROP_DEFINE) };
#undef BK_X_PROP_DEFINE

/* The spectral measures of the shift-invariant kernels: by Bochner's theorem
 * k(x - x') = E cos(omega'(x - x')) for frequencies omega drawn from the
 * kernel's spectral measure, which random Fourier features sample (Rahimi
 * and Recht 2007). Each is drawn as scale(sigma) z / u: z ~ N(0, I) per
 * frequency, u a mixing draw per frequency (1 for the normal) and
 * scale(sigma) how the kernel's width sigma scales the standard draws.
 * R draws them (R's generator; rff_spectra in R/approx.R mirrors the draw
 * and the scale, test-codes.R checks the names); the selectors scale the
 * standard ones by the iteration's width (bk_spectral_scale(), scorer_rff.c).
 * X(enumerator, code, R name, scale as an expression of the width s). */
#define BK_SPECTRUM_TABLE(X)                                                 \
  /* no spectral measure: no random features */                              \
  X(BK_SPECTRUM_NONE, 0, "none", NAN)                                        \
  /* N(0, 2 sigma I), of exp(-sigma ||x - x'||^2): z scaled by            \
   * sqrt(2 sigma) */                                                        \
  X(BK_SPECTRUM_NORMAL, 1, "normal", sqrt(2.0 * (s)))                        \
  /* the multivariate Cauchy of scale sigma, of exp(-sigma ||x - x'||):      \
   * sigma z / |u|, u ~ N(0, 1) */                                           \
  X(BK_SPECTRUM_CAUCHY, 2, "cauchy", (s))

#define BK_X_SPECTRUM_DEFINE(id, code, name, scale) id = code,
enum bk_spectrum { BK_SPECTRUM_TABLE(BK_X_SPECTRUM_DEFINE) };
#undef BK_X_SPECTRUM_DEFINE

/* X(enumerator, code, R name, sets, props, spectrum, value). The R name is
 * the kernel object's $name, except "precomputed", which no data kernel has:
 * C_ichol() takes it for a precomputed label kernel (the approximate paths).
 * spectrum is the kernel's spectral measure (BK_SPECTRUM_*): a kernel with
 * BK_KPROP_RFF has one, any other BK_SPECTRUM_NONE (checked below, when
 * this header compiles). value is the kernel as an expression of v -- the squared distance
 * ||x - x'||^2 for a BK_KPROP_DISTANCE kernel, else the inner product
 * <x, x'> -- and of its parameters p1, p2; it is expanded into
 * bk_kernel_eval() and the per-kernel loops (BK_KERNEL_MAP) in kernels.h,
 * which supplies bk_exp(), bk_powi() and bk_sqrt0() (sqrt of v clamped at 0:
 * a downdated sum of squares can be -1e-16). NAN for the kernels that are
 * not a function of one such number. */
#define BK_KERNEL_TABLE(X)                                                   \
  /* <x, x'> */                                                              \
  X(BK_LINEAR, 0, "linear", BK_KSET_DATA | BK_KSET_RANDSEL, 0u,              \
    BK_SPECTRUM_NONE, (v))                                                   \
  /* (<x, x'> + offset)^degree; p1 = degree, p2 = offset */                  \
  X(BK_POLYNOMIAL, 1, "polynomial",                                          \
    BK_KSET_DATA | BK_KSET_SELECT | BK_KSET_RANDSEL, 0u, BK_SPECTRUM_NONE,   \
    bk_powi((v) + (p2), (p1)))                                               \
  /* exp(-sigma ||x - x'||^2); p1 = sigma */                                 \
  X(BK_GAUSSIAN, 2, "gaussian",                                              \
    BK_KSET_DATA | BK_KSET_SELECT | BK_KSET_RANDSEL,                         \
    BK_KPROP_DISTANCE | BK_KPROP_WIDTH | BK_KPROP_SQUARED | BK_KPROP_RFF,    \
    BK_SPECTRUM_NORMAL, bk_exp(-(p1) * (v)))                                 \
  /* exp(-sigma ||x - x'||); p1 = sigma */                                   \
  X(BK_LAPLACE, 3, "laplace", BK_KSET_DATA | BK_KSET_SELECT | BK_KSET_RANDSEL, \
    BK_KPROP_DISTANCE | BK_KPROP_WIDTH | BK_KPROP_RFF, BK_SPECTRUM_CAUCHY,   \
    bk_exp(-(p1) * bk_sqrt0(v)))                                             \
  /* 1 / (||x - x'|| + eps); p1 = eps */                                     \
  X(BK_INVDIST, 4, "inverse_distance",                                       \
    BK_KSET_DATA | BK_KSET_SELECT | BK_KSET_RANDSEL,                         \
    BK_KPROP_DISTANCE | BK_KPROP_LENGTH, BK_SPECTRUM_NONE,                   \
    1.0 / (bk_sqrt0(v) + (p1)))                                              \
  /* mean of per-feature kernels (clinical.c) on data encoded by R; the      \
   * clinical glue and the exact selector only */                            \
  X(BK_CLINICAL, 5, "clinical", BK_KSET_SELECT, 0u, BK_SPECTRUM_NONE, NAN)   \
  /* x is the m x m kernel matrix itself: C_ichol() takes it by its code,   \
   * no other entry point */                                                 \
  X(BK_PRECOMPUTED, 6, "precomputed", 0u, 0u, BK_SPECTRUM_NONE, NAN)

/* A kernel with random features (BK_KPROP_RFF) has a spectral measure to
 * draw them from, and a kernel without has none: a row that breaks this
 * stops the compilation here (an array of negative size) rather than
 * drawing another kernel's frequencies. */
#define BK_X_CHECK_SPECTRUM(id, code, name, sets, props, spectrum, value)     \
  typedef char bk_check_spectrum_##id                                        \
      [((((unsigned int) (props)) & BK_KPROP_RFF) != 0u) ==                  \
               ((spectrum) != BK_SPECTRUM_NONE)                              \
           ? 1                                                               \
           : -1];
BK_KERNEL_TABLE(BK_X_CHECK_SPECTRUM)
#undef BK_X_CHECK_SPECTRUM

/* X(enumerator, code, R name): the width policies of the Gaussian and
 * Laplace kernels in the selectors (Song et al. 2012, section 4.1, step 3). */
#define BK_POLICY_TABLE(X)                                                   \
  /* the kernel's width as given */                                        \
  X(BK_SIGMA_FIXED, 0, "fixed")                                              \
  /* from the number s of features left: 1 / (2 s) (Gaussian), 1 /          \
   * sqrt(2 s) (Laplace), for standardised features */                      \
  X(BK_SIGMA_DIMENSION, 1, "dimension")                                      \
  /* the width of a grid with the largest HSIC, each iteration */           \
  X(BK_SIGMA_OPTIMIZE, 2, "optimize")

/* X(enumerator, code, R name): Algorithm 1 (BAHSIC) or 2 (FOHSIC) of Song
 * et al. (2012), section 4. */
#define BK_DIRECTION_TABLE(X)                                                \
  X(BK_BACKWARD, 0, "backward")                                              \
  X(BK_FORWARD, 1, "forward")

/* X(enumerator, code, R name): the estimator a selection runs on (the R
 * argument approx): the exact one (Song et al. 2012, eq. 4 or 5), the block
 * estimator (Zaremba, Gretton and Blaschko 2013), random Fourier features
 * (Rahimi and Recht 2007) or an incomplete Cholesky factor of the data
 * kernel (Fine and Scheinberg 2001; Song et al. 2012, section 2.6). */
#define BK_MODE_TABLE(X)                                                     \
  X(BK_MODE_EXACT, 0, "exact")                                               \
  X(BK_MODE_BLOCK, 1, "block")                                               \
  X(BK_MODE_RFF, 2, "rff")                                                   \
  X(BK_MODE_ICHOL, 3, "ichol")

#define BK_X_ENUM7(id, code, name, sets, props, spectrum, value) id = code,
#define BK_X_ENUM3(id, code, name) id = code,
enum bk_kernel_type { BK_KERNEL_TABLE(BK_X_ENUM7) };
enum bk_policy { BK_POLICY_TABLE(BK_X_ENUM3) };
enum bk_direction { BK_DIRECTION_TABLE(BK_X_ENUM3) };
enum bk_mode { BK_MODE_TABLE(BK_X_ENUM3) };

/* 1 if type is a kernel code accepted by one of the entry points in sets
 * (BK_KSET_*), 0 otherwise (also for a code of no kernel). */
static inline int bk_kernel_in(int type, unsigned int sets)
{
  switch (type) {
#define BK_X_CASE7(id, code, name, s, props, spectrum, value) \
  case id:                                                    \
    return ((unsigned int) (s) & sets) != 0u;
    BK_KERNEL_TABLE(BK_X_CASE7)
#undef BK_X_CASE7
  default:
    return 0;
  }
}

/* 1 if type is a kernel code with the property prop (one BK_KPROP_*), 0
 * otherwise (also for a code of no kernel). */
static inline int bk_kernel_has(int type, unsigned int prop)
{
  switch (type) {
#define BK_X_CASE7(id, code, name, sets, p, spectrum, value) \
  case id:                                                   \
    return ((unsigned int) (p) & prop) != 0u;
    BK_KERNEL_TABLE(BK_X_CASE7)
#undef BK_X_CASE7
  default:
    return 0;
  }
}

/* The spectral measure (BK_SPECTRUM_*) of kernel type: BK_SPECTRUM_NONE
 * for a kernel without random features (or a code of no kernel). */
static inline int bk_kernel_spectrum(int type)
{
  switch (type) {
#define BK_X_CASE7(id, code, name, sets, props, spectrum, value) \
  case id:                                                       \
    return (spectrum);
    BK_KERNEL_TABLE(BK_X_CASE7)
#undef BK_X_CASE7
  default:
    return BK_SPECTRUM_NONE;
  }
}

/* The factor by which the width s of kernel type scales the standard draws
 * of its spectral measure (BK_SPECTRUM_TABLE); NaN for a kernel without. */
static inline double bk_spectral_scale(int type, double s)
{
  (void) s;
  switch (bk_kernel_spectrum(type)) {
#define BK_X_CASE4(id, code, name, scale) \
  case id:                                \
    return (scale);
    BK_SPECTRUM_TABLE(BK_X_CASE4)
#undef BK_X_CASE4
  default:
    return NAN;
  }
}

/* 1 if the kernel is a function of the distance, 0 if of the inner product
 * (or not a kernel code) */
static inline int bk_kernel_uses_distance(int type)
{
  return bk_kernel_has(type, BK_KPROP_DISTANCE);
}

/* 1 if the kernel's p1 is a width (Gaussian, Laplace): the one the width
 * policies of Song et al. (2012), section 4.1, step 3, choose */
static inline int bk_kernel_has_width(int type)
{
  return bk_kernel_has(type, BK_KPROP_WIDTH);
}

/* The "dimension" width policy for s standardised features (E ||x - x'||^2
 * = 2 s; Song et al. 2012, section 4.1, step 3): 1 / (2 s) for a width on
 * the squared distance, 1 / sqrt(2 s) on the distance */
static inline double bk_dimension_width(int type, double s)
{
  return bk_kernel_has(type, BK_KPROP_SQUARED) ? 1.0 / (2.0 * s)
                                               : 1.0 / sqrt(2.0 * s);
}

/* 1 if policy is a width-policy code */
static inline int bk_policy_valid(int policy)
{
  switch (policy) {
#define BK_X_CASE3(id, code, name) case id:
    BK_POLICY_TABLE(BK_X_CASE3)
    return 1;
  default:
    return 0;
  }
}

/* 1 if direction is a direction code */
static inline int bk_direction_valid(int direction)
{
  switch (direction) {
    BK_DIRECTION_TABLE(BK_X_CASE3)
    return 1;
  default:
    return 0;
  }
}

/* 1 if mode is a selection-mode code */
static inline int bk_mode_valid(int mode)
{
  switch (mode) {
    BK_MODE_TABLE(BK_X_CASE3)
    return 1;
  default:
    return 0;
  }
}
#undef BK_X_CASE3

#endif
