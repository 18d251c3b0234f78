/*
 * randsel.c: the hot loop of randSel (Algorithm 1 of
 * 001_7b6bb2d08f0858c5.txt): the centred kernel-target alignment of many
 * random (sample subset, feature half) pairs, and the per-feature
 * contributions of Definition 3.2. Numeric core: no R API. The random draws
 * are made by the caller, on the main thread, from R's RNG; here every
 * bootstrap writes only its own slots, so the result does not depend on the
 * number of threads.
 */
#include <math.h>
#include <string.h>
#include "bahsic.h"

#ifdef _OPENMP
#include <omp.h>
static int thread_id(void) { return omp_get_thread_num(); }
#else
static int thread_id(void) { return 0; }
#endif

ptrdiff_t bk_randsel_work_doubles(ptrdiff_t s)
{
  return 4 * s * s + 6 * s;
}

/* G (s x s, upper triangle a <= b, column-major) += sum_{t<4} z_t z_t',
 * four features per sweep so that every load and store of G carries four
 * fused multiply-adds: this is the loop all the time goes into. */
#define RANK4_BODY                                                            \
  for (ptrdiff_t b = 0; b < s; b++) {                                        \
    const double w0 = z0[b], w1 = z1[b], w2 = z2[b], w3 = z3[b];             \
    double *g = G + s * b;                                                   \
    BK_SIMD                                                                  \
    for (ptrdiff_t a = 0; a <= b; a++)                                       \
      g[a] += (z0[a] * w0 + z1[a] * w1) + (z2[a] * w2 + z3[a] * w3);         \
  }

#define RANK4_ARGS                                                            \
  double *G, const double *z0, const double *z1, const double *z2,           \
      const double *z3, ptrdiff_t s

typedef void (*rank4_fn)(RANK4_ARGS);
static void rank4(RANK4_ARGS) { RANK4_BODY }
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RS_X86_DISPATCH 1
/* R's flags target baseline x86-64; four-wide FMA doubles the loop's speed
 * on CPUs that have it (the same dispatch as pairs.c) */
__attribute__((target("avx2,fma"))) static void rank4_avx2(RANK4_ARGS)
{
  RANK4_BODY
}
#endif

static rank4_fn pick_rank4(int simd)
{
#ifdef RS_X86_DISPATCH
  __builtin_cpu_init();
  if (simd && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return rank4_avx2;
#endif
  (void) simd;
  return rank4;
}

/* Gather the subsample's values of column c of x into z. */
static void gather(const double *x, ptrdiff_t m, ptrdiff_t c, const int *samp,
                   ptrdiff_t s, double *z)
{
  const double *xc = x + m * c;
  for (ptrdiff_t a = 0; a < s; a++) z[a] = xc[samp[a]];
}

/* G += the inner products over the columns cols[0..n-1] of x, subsample
 * samp; z: 4 s doubles. */
static void add_columns(const double *x, ptrdiff_t m, const int *cols,
                        ptrdiff_t n, ptrdiff_t offset, const int *samp,
                        ptrdiff_t s, double *G, double *z, rank4_fn r4)
{
  double *z0 = z, *z1 = z + s, *z2 = z + 2 * s, *z3 = z + 3 * s;
  ptrdiff_t t = 0;
  for (; t + 4 <= n; t += 4) {
    gather(x, m, offset + (cols ? cols[t] : t), samp, s, z0);
    gather(x, m, offset + (cols ? cols[t + 1] : t + 1), samp, s, z1);
    gather(x, m, offset + (cols ? cols[t + 2] : t + 2), samp, s, z2);
    gather(x, m, offset + (cols ? cols[t + 3] : t + 3), samp, s, z3);
    r4(G, z0, z1, z2, z3, s);
  }
  if (t < n) {
    /* the last 1-3 columns, padded with zeros */
    memset(z, 0, (size_t) (4 * s) * sizeof(double));
    for (ptrdiff_t u = 0; t + u < n; u++)
      gather(x, m, offset + (cols ? cols[t + u] : t + u), samp, s, z + u * s);
    r4(G, z0, z1, z2, z3, s);
  }
}

/* Centred alignment (section 2 of 001_7b6bb2d08f0858c5.txt)
 *   A(K, L) = <HKH, HLH>_F / (||HKH||_F ||HLH||_F),
 * with Lc = HLH given and lnorm = ||Lc||_F. Since Lc is centred,
 * <HKH, Lc> = <K, Lc>; ||HKH||^2 from the row means r and grand mean t,
 * (HKH)_ab = K_ab - r_a - r_b + t: O(s^2), no s^3 products. K is full
 * (both triangles). A norm of 0 (constant kernel, or a subsample of one
 * class) carries no information: the alignment is then 0. r: s doubles. */
static double centred_alignment(const double *K, const double *Lc,
                                double lnorm, ptrdiff_t s, double *r)
{
  double t = 0.0;
  for (ptrdiff_t a = 0; a < s; a++) r[a] = 0.0;
  for (ptrdiff_t b = 0; b < s; b++) {
    const double *k = K + s * b;
    double cs = 0.0;
    for (ptrdiff_t a = 0; a < s; a++) cs += k[a];
    r[b] = cs / (double) s; /* K symmetric: column means = row means */
    t += cs;
  }
  t /= (double) s * (double) s;
  double num = 0.0, k2 = 0.0;
  for (ptrdiff_t b = 0; b < s; b++) {
    const double *k = K + s * b, *l = Lc + s * b;
    const double cb = t - r[b];
    for (ptrdiff_t a = 0; a < s; a++) {
      double c = k[a] - r[a] + cb;
      num += k[a] * l[a];
      k2 += c * c;
    }
  }
  if (!(k2 > 0.0) || !(lnorm > 0.0)) return 0.0;
  return num / (sqrt(k2) * lnorm);
}

/* The full kernel matrix K of the subsample from the upper triangle of its
 * inner products G: squared distances G_aa + G_bb - 2 G_ab for the distance
 * kernels (clamped at 0 against rounding). */
static void kernel_from_gram(const double *G, ptrdiff_t s, bk_kernel kern,
                             double *K)
{
  const int dist = bk_kernel_uses_distance(kern.type);
  for (ptrdiff_t b = 0; b < s; b++) {
    for (ptrdiff_t a = 0; a <= b; a++) {
      double v = G[a + s * b];
      if (dist) {
        v = G[a + s * a] + G[b + s * b] - 2.0 * v;
        v = v > 0.0 ? v : 0.0;
        if (a == b) v = 0.0;
      }
      double k = bk_kernel_value(kern, v);
      K[a + s * b] = k;
      K[b + s * a] = k;
    }
  }
}

/* Lc = H L_sub H for the subsample, from the label kernel (full L or factor
 * Y); returns ||Lc||_F. r: s doubles. */
static double centred_label(bk_label lab, ptrdiff_t m, const int *samp,
                            ptrdiff_t s, double *Lc, double *r)
{
  for (ptrdiff_t b = 0; b < s; b++) {
    for (ptrdiff_t a = 0; a <= b; a++) {
      double v = 0.0;
      if (lab.Y) {
        for (ptrdiff_t k = 0; k < lab.c; k++)
          v += lab.Y[samp[a] + m * k] * lab.Y[samp[b] + m * k];
      } else {
        v = lab.L[samp[a] + m * (ptrdiff_t) samp[b]];
      }
      Lc[a + s * b] = v;
      Lc[b + s * a] = v;
    }
  }
  double t = 0.0;
  for (ptrdiff_t b = 0; b < s; b++) {
    double cs = 0.0;
    for (ptrdiff_t a = 0; a < s; a++) cs += Lc[a + s * b];
    r[b] = cs / (double) s;
    t += cs;
  }
  t /= (double) s * (double) s;
  double n2 = 0.0;
  for (ptrdiff_t b = 0; b < s; b++)
    for (ptrdiff_t a = 0; a < s; a++) {
      double c = Lc[a + s * b] - r[a] - r[b] + t;
      Lc[a + s * b] = c;
      n2 += c * c;
    }
  return sqrt(n2);
}

void bk_randsel_align(const double *x, ptrdiff_t m, ptrdiff_t n_fixed,
                      bk_label lab, const bk_randsel_opts *o, ptrdiff_t nb,
                      const int *samp, const int *feat, double *a_half,
                      double *a_plus, double *work)
{
  const ptrdiff_t s = o->s, h = o->h, per = bk_randsel_work_doubles(s);
  const rank4_fn r4 = pick_rank4(o->simd);
  const int nthreads = o->nthreads;
  /* threads only when a bootstrap is worth a start-up (about 50k FMAs each
   * for a few of them) */
  const int par = nthreads > 1 && nb > 1 &&
                  (double) s * (double) s * (double) (h + n_fixed) *
                          (double) nb >= 2e5;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads) if (par)
#endif
  for (ptrdiff_t b = 0; b < nb; b++) {
    double *w = work + per * (ptrdiff_t) (par ? thread_id() : 0);
    double *G = w, *K = w + s * s, *Lc = w + 2 * s * s, *Gp = w + 3 * s * s,
           *r = w + 4 * s * s, *z = r + 2 * s;
    const int *sb = samp + s * b, *fb = feat + (h + 1) * b;
    memset(G, 0, (size_t) (s * s) * sizeof(double));
    /* fixed features (the first n_fixed columns) are in every set */
    add_columns(x, m, NULL, n_fixed, 0, sb, s, G, z, r4);
    /* the random half fb[0..h-1] (Definition 3.2: floor(n / 2) features) */
    add_columns(x, m, fb, h, n_fixed, sb, s, G, z, r4);
    double lnorm = centred_label(lab, m, sb, s, Lc, r);
    kernel_from_gram(G, s, o->kern, K);
    a_half[b] = centred_alignment(K, Lc, lnorm, s, r);
    /* the half plus one: the same half and fb[h], a uniform (h + 1)-set,
     * matched to the half as Definition 3.2's remark describes */
    memcpy(Gp, G, (size_t) (s * s) * sizeof(double));
    add_columns(x, m, fb + h, 1, n_fixed, sb, s, Gp, z, r4);
    kernel_from_gram(Gp, s, o->kern, K);
    a_plus[b] = centred_alignment(K, Lc, lnorm, s, r);
  }
}

void bk_randsel_accumulate(ptrdiff_t h, ptrdiff_t nb, const int *feat,
                           const double *a_half, const double *a_plus,
                           double *sum_plus, int *n_plus, double *sum_half,
                           int *n_half, double *total_half)
{
  for (ptrdiff_t b = 0; b < nb; b++) {
    const int *fb = feat + (h + 1) * b;
    for (ptrdiff_t t = 0; t <= h; t++) {
      sum_plus[fb[t]] += a_plus[b];
      n_plus[fb[t]]++;
    }
    for (ptrdiff_t t = 0; t < h; t++) {
      sum_half[fb[t]] += a_half[b];
      n_half[fb[t]]++;
    }
    *total_half += a_half[b];
  }
}

void bk_randsel_contrib(ptrdiff_t n, ptrdiff_t nb_total, const double *sum_plus,
                        const int *n_plus, const double *sum_half,
                        const int *n_half, double total_half, double *out)
{
  for (ptrdiff_t j = 0; j < n; j++) {
    /* Definition 3.2 / Algorithm 1: mean alignment of the (h + 1)-sets
     * with j minus mean alignment of the h-sets without j; NaN when
     * either has no draw */
    ptrdiff_t n_out = nb_total - n_half[j];
    if (n_plus[j] == 0 || n_out == 0) {
      out[j] = NAN;
    } else {
      out[j] = sum_plus[j] / (double) n_plus[j] -
               (total_half - sum_half[j]) / (double) n_out;
    }
  }
}
