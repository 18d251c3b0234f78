/*
 * width.c: the width policy of the selectors, Song et al. (2012), section
 * 4.1, step 3, for a kernel with a width (bk_kernel_has_width()). Written
 * once for the scorers of the HSIC selectors (scorer_pairs.c; the others
 * have no reference set) and the ridge-regression kernel (ridge.c); each
 * supplies the median heuristic and HSIC of its reference set through
 * callbacks. The kernel's properties (codes.h) give the
 * "dimension" rule and the median's scale. Numeric core: no R API.
 */
#include <math.h>
#include "schedule.h"
#include "kernels.h"

double bk_choose_width(const bk_width_policy *p, ptrdiff_t s,
                       double (*median)(void *ctx, int squared),
                       double (*hsic_at)(void *ctx, double sigma, int *fail),
                       void *ctx, double *h_ref)
{
  if (h_ref) *h_ref = NAN;
  if (!bk_kernel_has_width(p->type)) return NAN;
  if (p->policy == BK_SIGMA_DIMENSION) {
    return bk_dimension_width(p->type, (double) s);
  }
  if (p->policy == BK_SIGMA_FIXED) return p->fixed;
  /* "optimize", for the scorers with a reference set (NULL callbacks: none) */
  if (!hsic_at || (p->grid_relative && !median)) return NAN;
  double base = 1.0;
  if (p->grid_relative) {
    /* the median heuristic: of the squared distances for a width on the
     * squared distance (Gaussian, exp(-sigma ||.||^2)), of the distances
     * else (Laplace); the callbacks follow the rule for ties
     * (bk_median_tie_floor()), so that it is 0 only when all samples of the
     * reference set coincide */
    double med = median(ctx, bk_kernel_has(p->type, BK_KPROP_SQUARED));
    base = med > 0.0 ? 1.0 / med : 1.0;
  }
  double best = NAN, best_h = -INFINITY;
  for (ptrdiff_t g = 0; g < p->ngrid; g++) {
    int fail = 0;
    double sg = base * p->grid[g], h = hsic_at(ctx, sg, &fail);
    if (fail) return NAN;
    /* larger beyond rounding: ties keep the smaller width */
    if (g == 0 || h - best_h > BK_TIE_TOL * fmax(fabs(h), fabs(best_h))) {
      best_h = h;
      best = sg;
    }
  }
  if (h_ref) *h_ref = best_h;
  return best;
}
