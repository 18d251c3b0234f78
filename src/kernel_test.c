/*
 * kernel_test.c: per-feature tests of independence by HSIC for
 * feature_scores() -- feature j alone against the outcome, with the kernel
 * of the scores on the feature and the method's label kernel.
 *
 * Two null distributions:
 *  - the gamma approximation of Gretton et al. 2008 (section 3, eq. 9-10):
 *    the biased statistic m HSIC_b = tr(K H L H) / m compared with a gamma
 *    distribution whose mean and variance are the statistic's under H0,
 *    computed from the centred kernel matrices exactly as bk_hsic_gamma()
 *    (hsic.c) computes them for one kernel matrix;
 *  - permutations of the samples, given by the caller (drawn once in R from
 *    the user's RNG), for the statistic sum_ab K_ab Wt_ab.
 * The label side (H L H, its squares, the label's factor of the null mean)
 * is made once by the caller; per feature the kernel is evaluated once into
 * an m x m buffer of the thread, and every sum reads that buffer.
 * Numeric core: no R API.
 */
#include <float.h>
#include <math.h>
#include <string.h>
#include "bahsic.h"

#ifdef _OPENMP
#include <omp.h>
static int thread_id(void) { return omp_get_thread_num(); }
#else
static int thread_id(void) { return 0; }
#endif

/* a kernel matrix whose largest |value| lies outside [2^-128, 2^128] is
 * brought to one near 1 by a power of two (exact) before its squares are
 * summed; the shape of the gamma distribution, the statistic in units of its
 * scale and the permutation counts do not depend on that power */
#define BK_TEST_RANGE 128

/* K (m x m, full) of feature xj with kernel kern; col: m doubles of work */
static void feature_kernel(const double *xj, ptrdiff_t m, bk_kernel kern,
                           double *K, double *col)
{
  int dist = bk_kernel_uses_distance(kern.type);
  /* a feature of an extreme scale is rescaled as in bk_feature_dot()
   * (hsic.c): the same kernel, up to a constant factor for the
   * inverse-distance kernel, which changes no test */
  int e = dist ? bk_pow2_shift(bk_max_abs(xj, m), BK_DATA_RANGE) : 0;
  if (e != 0) {
    bk_copy_pow2(xj, m, e, col);
    xj = col;
    kern = bk_scaled_kernel(kern, e);
  }
  for (ptrdiff_t b = 0; b < m; b++) {
    const double xb = xj[b];
    double *Kb = K + m * b;
    for (ptrdiff_t a = 0; a <= b; a++) {
      double t = xj[a] - xb;
      Kb[a] = bk_kernel_value(kern, dist ? t * t : xj[a] * xb);
    }
  }
  for (ptrdiff_t b = 0; b < m; b++)
    for (ptrdiff_t a = b + 1; a < m; a++) K[a + m * b] = K[b + m * a];
  double top = bk_max_abs(K, m * m);
  int ek = bk_pow2_shift(top, BK_TEST_RANGE);
  if (ek != 0) bk_copy_pow2(K, m * m, ek, K);
}

/* The gamma approximation for one kernel matrix K: *shape and *z, the
 * statistic divided by the gamma's scale (NaN when m < 6 or the moments are
 * not positive: a constant kernel). rk: m doubles of work. */
static void gamma_one(const double *K, ptrdiff_t m, const double *Lc,
                      const double *Q, double lfac, double *rk, double *shape,
                      double *z)
{
  double md = (double) m, tot = 0.0, trK = 0.0;
  for (ptrdiff_t b = 0; b < m; b++) {
    const double *Kb = K + m * b;
    double s = 0.0;
    for (ptrdiff_t a = 0; a < m; a++) s += Kb[a];
    rk[b] = s / md;
    tot += s;
    trK += Kb[b];
  }
  double sk = tot / (md * md), stat = 0.0, v = 0.0;
  for (ptrdiff_t b = 0; b < m; b++) {
    const double *Kb = K + m * b, *Lb = Lc + m * b, *Qb = Q + m * b;
    const double cb = sk - rk[b];
    double s = 0.0, t = 0.0;
    for (ptrdiff_t a = 0; a < m; a++) {
      double kc = Kb[a] - rk[a] + cb;
      s += kc * Lb[a];
      /* Q = (H L H)^2 off the diagonal, 0 on it */
      t += kc * kc * Qb[a];
    }
    stat += s;
    v += t;
  }
  stat /= md;
  if (m < 6) {
    *shape = *z = NAN;
    return;
  }
  /* Gretton et al. 2008, eq. 9-10 (their reference code hsicTestGamma): the
   * null variance of HSIC_b = tr(KHLH) / m^2 and its null mean
   * (1/m)(E k(x,x) - E k(x,x'))(E l(y,y) - E l(y,y')); the statistic is
   * m HSIC_b, with mean m * mean and variance m^2 var */
  double var = v / 36.0 / (md * (md - 1.0));
  var *= 72.0 * (md - 4.0) * (md - 5.0) /
         (md * (md - 1.0) * (md - 2.0) * (md - 3.0));
  double muK = (sk * md * md - trK) / (md * (md - 1.0));
  double mean = (trK / md - muK) * lfac / md;
  double g1 = md * mean, g2 = md * md * var;
  if (g1 > 0.0 && g2 > 0.0) {
    *shape = g1 * g1 / g2;
    *z = stat * g1 / g2;
  } else {
    *shape = *z = NAN;
  }
}

/* #{r : sum_ab K_ab Wt_{p_r(a) p_r(b)} >= obs - tol} over the B permutations
 * (0-based, m x B), obs the unpermuted sum and tol = sqrt(eps) ||K||_F
 * ||Wt||_F (nw): a statistic equal to the observed one up to rounding is a
 * tie and counts (perm_p_value() in R/hsic.R has the same rule). */
static double perm_count(const double *K, ptrdiff_t m, const double *Wt,
                         double nw, const int *perms, ptrdiff_t B)
{
  double obs = 0.0, nk = 0.0;
  for (ptrdiff_t i = 0; i < m * m; i++) {
    obs += K[i] * Wt[i];
    nk += K[i] * K[i];
  }
  const double lim = obs - sqrt(DBL_EPSILON) * sqrt(nk) * nw;
  double count = 0.0;
  for (ptrdiff_t r = 0; r < B; r++) {
    const int *p = perms + m * r;
    double T = 0.0;
    for (ptrdiff_t b = 0; b < m; b++) {
      const double *Kb = K + m * b, *Wb = Wt + m * (ptrdiff_t) p[b];
      double s = 0.0;
      for (ptrdiff_t a = 0; a < m; a++) s += Kb[a] * Wb[p[a]];
      T += s;
    }
    if (T >= lim) count += 1.0;
  }
  return count;
}

void bk_feature_hsic_test(const double *x, ptrdiff_t m, ptrdiff_t d,
                          bk_kernel kern, const double *par,
                          const bk_test_label *lab, double *shape, double *z,
                          double *count, double *work, int nthreads,
                          bk_pacer *pace)
{
  const ptrdiff_t nt = nthreads > 1 ? nthreads : 1, per_thread = m * m + 2 * m;
  double nw = 0.0;
  if (lab->B > 0) {
    for (ptrdiff_t i = 0; i < m * m; i++) nw += lab->Wt[i] * lab->Wt[i];
    nw = sqrt(nw);
  }
  /* the features in chunks of about BK_CHECK_OPS operations (at least one
   * per thread), the pacer between them on the main thread; each feature's
   * numbers are its own, so the chunks and threads change nothing */
  const ptrdiff_t ops = m * m * (3 + lab->B) + 1,
                  per = BK_CHECK_OPS / ops, chunk = per > nt ? per : nt;
  for (ptrdiff_t j0 = 0; j0 < d; j0 += chunk) {
    const ptrdiff_t j1 = d - j0 < chunk ? d : j0 + chunk;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(nthreads) if (nthreads > 1)
#endif
    for (ptrdiff_t j = j0; j < j1; j++) {
      double *K = work + per_thread * thread_id(), *rk = K + m * m,
             *col = rk + m;
      bk_kernel kj = kern;
      if (par) kj.p1 = par[j];
      feature_kernel(x + m * j, m, kj, K, col);
      gamma_one(K, m, lab->Lc, lab->Q, lab->lfac, rk, shape + j, z + j);
      if (lab->B > 0) count[j] = perm_count(K, m, lab->Wt, nw, lab->perms, lab->B);
    }
    bk_pace(pace, (j1 - j0) * ops);
  }
}
