/*
 * cox.c: the Cox partial-likelihood score test of every feature alone at
 * beta = 0 (Breslow, Efron or exact ties; within strata; with covariates at
 * their fitted coefficients), all features of a block in one pass each.
 *
 * At a death time with risk set R and tied deaths D (d of them), the score
 * and information of x are sums over R and D of w x and w x^2 (Therneau and
 * Grambsch 2000, sections 3.2-3.3). Everything linear in x (the score, the
 * w x^2 part of the information, its cross terms with the covariates) is a
 * fixed vector of coefficients that R computes once; only the squares of
 * the risk sets' sums of w x depend on the feature non-linearly. Those sums
 * are differences of one prefix sum over the time-sorted samples, so a
 * feature costs O(m (3 + q) + K) operations: no loop over risk sets per
 * sample.
 *
 * Plain C: no R API, no allocation. x is m x d, column-major.
 */
#include "cox.h"
#include "checks.h"

ptrdiff_t bk_cox_scores(const double *x, ptrdiff_t d, const bk_cox_setup *s,
                        double *z, double *stat, double *effect, double *mean,
                        int *constant, double *work)
{
  const ptrdiff_t m = s->m, q = s->q;
  double *xs = work, *P = work + m, *xc = work + 2 * m + 1;
  ptrdiff_t first_bad = -1;

  for (ptrdiff_t j = 0; j < d; j++) {
    const double *xj = x + m * j;
    int e;
    ptrdiff_t bad = bk_scan_column(xj, m, constant + j, &e);
    z[j] = stat[j] = effect[j] = mean[j] = NAN;
    if (bad >= 0) {
      if (first_bad < 0) first_bad = m * j + bad;
      continue;
    }
    if (m == 0) continue;
    /* in units of 2^e, centred: the test does not change (the scores sum
     * to 0 within each stratum), the sums of squares do not cancel */
    const double sc = bk_pow2_scale(e), x0 = xj[0] * sc;
    double sum = 0.0;
    for (ptrdiff_t i = 0; i < m; i++) sum += xj[i] * sc - x0;
    const double xbar = x0 + sum / (double) m;
    mean[j] = xbar / sc;
    if (constant[j]) continue;
    double U = 0.0, I1 = 0.0;
    for (ptrdiff_t i = 0; i < m; i++) {
      double v = xj[i] * sc - xbar;
      xs[i] = v;
      U += s->a[i] * v;
      I1 += s->b[i] * v * v;
    }
    for (ptrdiff_t k = 0; k < q; k++) {
      const double *ck = s->C + m * k;
      double acc = 0.0;
      for (ptrdiff_t i = 0; i < m; i++) acc += ck[i] * xs[i];
      xc[k] = acc;
    }
    P[0] = 0.0;
    for (ptrdiff_t i = 0; i < m; i++) P[i + 1] = P[i] + s->w[i] * xs[s->ord[i]];
    double I2 = 0.0;
    for (ptrdiff_t t = 0; t < s->K; t++) {
      int g = s->tg[t];
      double S1 = P[s->rend[g]] - P[s->sstart[g]];
      double S1D = P[s->rend[g]] - P[s->dstart[g]];
      double v = S1 - s->tf[t] * S1D;
      I2 += s->tc[t] * v * v;
    }
    double I = I1 - I2;
    for (ptrdiff_t k = 0; k < q; k++)
      for (ptrdiff_t l = 0; l < q; l++) I -= xc[k] * s->Izz_inv[k + q * l] * xc[l];
    /* no information left (the rounding of the sums): a feature the risk
     * sets, or the covariates, determine */
    if (!(I > 64.0 * DBL_EPSILON * I1)) continue;
    z[j] = U / sqrt(I);
    stat[j] = U / I * U;
    effect[j] = U / I * sc;
  }
  return first_bad;
}
