/*
 * kernel_test.c: per-feature tests of independence by HSIC for
 * feature_scores() -- feature j alone against the outcome, with the kernel
 * of the scores on the feature and the method's label kernel.
 *
 * Two null distributions:
 *  - a gamma distribution (as Gretton et al. 2008, section 3) for the
 *    biased statistic tr(K H L H) = m^2 HSIC_b, here with the exact mean
 *    and variance of its permutation distribution (gamma_one());
 *  - permutations of the samples, given by the caller (drawn once in R from
 *    the user's RNG), for the statistic sum_ab K_ab Wt_ab.
 * The label side (H L H and its traces)
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
 * statistic T = tr(HKH L~) (L~ = H L H) divided by the gamma's scale; NaN
 * when m < 4 or a moment is not positive (a constant kernel). The gamma has
 * the exact mean and variance of T over the m! permutations of the samples
 * (Kazi-Aoual et al. 1995, as written for the RV coefficient by Josse,
 * Pages and Husson 2008, section 2.2), from the traces of the two centred
 * matrices:
 *   E T = tr(A) tr(B) / (m - 1),
 *   var T = 2 u_A u_B / ((m + 1)(m - 1)^2 (m - 2))
 *         + w_A w_B / ((m + 1) m (m - 1)(m - 2)(m - 3)),
 *   u_A = (m - 1) tr(A^2) - tr(A)^2,
 *   w_A = m (m + 1) sum_i A_ii^2 - (m - 1)(tr(A)^2 + 2 tr(A^2)).
 * They calibrate much better than the asymptotic moments of Gretton et al.
 * 2008 (eq. 9-10; hsic_test(method = "gamma")) at small m: see
 * inst/bench/bench-kernel-test.R. rk: m doubles of work. */
static void gamma_one(const double *K, ptrdiff_t m, const bk_test_label *lab,
                      double *rk, double *shape, double *z)
{
  double md = (double) m, tot = 0.0;
  for (ptrdiff_t b = 0; b < m; b++) {
    const double *Kb = K + m * b;
    double s = 0.0;
    for (ptrdiff_t a = 0; a < m; a++) s += Kb[a];
    rk[b] = s / md;
    tot += s;
  }
  double sk = tot / (md * md), stat = 0.0, ta2 = 0.0, ta = 0.0, sa = 0.0;
  for (ptrdiff_t b = 0; b < m; b++) {
    const double *Kb = K + m * b, *Lb = lab->Lc + m * b;
    const double cb = sk - rk[b];
    double s = 0.0, t = 0.0;
    for (ptrdiff_t a = 0; a < m; a++) {
      double kc = Kb[a] - rk[a] + cb;
      s += kc * Lb[a];
      t += kc * kc;
    }
    stat += s;
    ta2 += t;
    double kbb = Kb[b] - rk[b] + cb;
    ta += kbb;
    sa += kbb * kbb;
  }
  if (m < 4) {
    *shape = *z = NAN;
    return;
  }
  double ua = (md - 1.0) * ta2 - ta * ta;
  double wa = md * (md + 1.0) * sa - (md - 1.0) * (ta * ta + 2.0 * ta2);
  double mean = ta * lab->tb / (md - 1.0);
  double var = 2.0 * ua * lab->ub / ((md + 1.0) * (md - 1.0) * (md - 1.0) * (md - 2.0)) +
               wa * lab->wb / ((md + 1.0) * md * (md - 1.0) * (md - 2.0) * (md - 3.0));
  if (mean > 0.0 && var > 0.0) {
    *shape = mean * mean / var;
    *z = stat * mean / var;
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
      gamma_one(K, m, lab, rk, shape + j, z + j);
      if (lab->B > 0) count[j] = perm_count(K, m, lab->Wt, nw, lab->perms, lab->B);
    }
    bk_pace(pace, (j1 - j0) * ops);
  }
}
