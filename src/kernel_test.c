/*
 * kernel_test.c: per-feature tests of independence by HSIC for
 * feature_scores() -- feature j alone against the outcome, with the kernel
 * of the scores on the feature and the method's label kernel.
 *
 * Two null distributions:
 *  - a gamma distribution (as Gretton et al. 2008, section 3) for the
 *    biased statistic tr(K H L H) = m^2 HSIC_b, here with the exact mean
 *    and variance of its permutation distribution (bk_gamma_moments());
 *  - permutations of the samples, given by the caller (drawn once in R from
 *    the user's RNG), for the statistic sum_ab K_ab Wt_ab.
 * The label side (H L H and its traces) is made once by the caller. Every
 * matrix here is symmetric, so per feature the kernel is evaluated once,
 * over the pairs a < b only, into a packed triangle of the thread (as the
 * score pass of pairs.c reads its weights); the loops over that triangle
 * are compiled for AVX2 + FMA as well and picked at run time. Two sweeps
 * per feature: the kernel values with their row sums, then the centred
 * values with the sums the moments need (the Gaussian kernel in one fused
 * loop, as the score pass of pairs.c). Given the score's weights W, the
 * feature's score sum_ab K_ab W_ab, bk_feature_dot()'s number, comes from
 * the same kernel (feature_scores() then makes each feature's kernel once).
 * Numeric core: no R API.
 */
#include <float.h>
#include <math.h>
#include <string.h>
#include "hsic.h"
#include "pairs.h"

#ifdef _OPENMP
#define KT_SIMD_SUM_MAX(s, top) BK_PRAGMA(omp simd reduction(+ : s) reduction(max : top))
#else
#define KT_SIMD_SUM_MAX(s, top)
#endif

/* a kernel matrix whose largest |value| lies outside [2^-128, 2^128] is
 * brought to one near 1 by a power of two (exact) before its squares are
 * summed; the shape of the gamma distribution, the statistic in units of its
 * scale and the permutation counts do not depend on that power */
#define BK_TEST_RANGE 128

/* the Gaussian columns of FILL_BODY: exp, both row sums and the largest
 * value in one loop */
#define GAUSS_FILL(EXPF)                                                      \
  for (ptrdiff_t b = 1; b < m; b++) {                                        \
    const double xb = xj[b];                                                 \
    double s = 0.0;                                                          \
    KT_SIMD_SUM_MAX(s, top)                                                  \
    for (ptrdiff_t a = 0; a < b; a++) {                                      \
      const double u = xj[a] - xb, k = EXPF(ns * (u * u));                   \
      col[a] = k;                                                            \
      s += k;                                                                \
      r[a] += k;                                                             \
      top = k > top ? k : top;                                               \
    }                                                                        \
    r[b] += s;                                                               \
    col += b;                                                                \
  }

/* The kernel of one feature over the pairs a < b, packed column after
 * column (pair (a, b) at b (b - 1) / 2 + a, bk_pack_upper()), into Kp, and
 * r[a] = sum_{b != a} K_ab, the row sums without the diagonal. Each column
 * of the other kernels is made as squared distances (or products), mapped
 * by the table's per-kernel loop (BK_KERNEL_MAP, vectorised), then summed
 * both ways while it is in L1. Returns the largest |K_ab|. */
#define FILL_BODY                                                             \
  const int dist = bk_kernel_uses_distance(kern.type);                       \
  double top = 0.0, *col = Kp;                                               \
  for (ptrdiff_t a = 0; a < m; a++) r[a] = 0.0;                              \
  if (kern.type == BK_GAUSSIAN && m > 1) {                                   \
    /* the Gaussian in one loop, without the clamp when every argument is   \
     * >= -708, as bk_feature_dot() decides it: the same values */          \
    double lo = xj[0], hi = xj[0];                                           \
    for (ptrdiff_t a = 1; a < m; a++) {                                      \
      lo = xj[a] < lo ? xj[a] : lo;                                          \
      hi = xj[a] > hi ? xj[a] : hi;                                          \
    }                                                                        \
    const double ns = -kern.p1;                                              \
    if (kern.p1 * (hi - lo) * (hi - lo) <= 708.0) {                          \
      GAUSS_FILL(bk_exp_core)                                                \
    } else {                                                                 \
      GAUSS_FILL(bk_exp)                                                     \
    }                                                                        \
    return top;                                                              \
  }                                                                          \
  for (ptrdiff_t b = 1; b < m; b++) {                                        \
    const double xb = xj[b];                                                 \
    if (dist) {                                                              \
      BK_SIMD                                                                \
      for (ptrdiff_t a = 0; a < b; a++) {                                    \
        double t = xj[a] - xb;                                               \
        col[a] = t * t;                                                      \
      }                                                                      \
    } else {                                                                 \
      BK_SIMD                                                                \
      for (ptrdiff_t a = 0; a < b; a++) col[a] = xj[a] * xb;                 \
    }                                                                        \
    BK_KERNEL_MAP(kern.type, kern.p1, kern.p2, col, b);                      \
    double s = 0.0;                                                          \
    KT_SIMD_SUM_MAX(s, top)                                                  \
    for (ptrdiff_t a = 0; a < b; a++) {                                      \
      const double k = col[a], f = fabs(k);                                  \
      s += k;                                                                \
      r[a] += k;                                                             \
      top = f > top ? f : top;                                               \
    }                                                                        \
    r[b] += s;                                                               \
    col += b;                                                                \
  }                                                                          \
  return top;

/* With rk the row means of the kernel (its diagonal less c, gamma_one())
 * and sk its mean, the centred matrix has Kc_ab = (K_ab - rk_a) +
 * (sk - rk_b) off the diagonal. Over the pairs a < b:
 * out[0] = sum Kc_ab Lc_ab and out[1] = sum Kc_ab^2 (Lp: Lc packed). */
#define CENTRE_BODY                                                           \
  const double *col = Kp, *lp = Lp;                                          \
  double stat = 0.0, sq = 0.0;                                               \
  for (ptrdiff_t b = 1; b < m; b++) {                                        \
    const double cb = sk - rk[b];                                            \
    double s = 0.0, t = 0.0;                                                 \
    BK_SIMD_SUM2(s, t)                                                       \
    for (ptrdiff_t a = 0; a < b; a++) {                                      \
      const double kc = col[a] - rk[a] + cb;                                 \
      s += kc * lp[a];                                                       \
      t += kc * kc;                                                          \
    }                                                                        \
    stat += s;                                                               \
    sq += t;                                                                 \
    col += b;                                                                \
    lp += b;                                                                 \
  }                                                                          \
  out[0] = stat;                                                             \
  out[1] = sq;

#define FILL_ARGS                                                             \
  const double *xj, ptrdiff_t m, bk_kernel kern, double *Kp, double *r
#define CENTRE_ARGS                                                           \
  const double *Kp, const double *Lp, const double *rk, double sk,           \
      ptrdiff_t m, double *out

typedef double (*fill_fn)(FILL_ARGS);
typedef void (*centre_fn)(CENTRE_ARGS);
static double fill(FILL_ARGS) { FILL_BODY }
static void centre(CENTRE_ARGS) { CENTRE_BODY }

/* R's flags target the baseline x86-64 (SSE2): the same loops for AVX2 +
 * FMA, as pairs.c does for the score pass (the same arithmetic up to the
 * rounding of the fused operations and of the wider reductions) */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KT_X86_DISPATCH 1
__attribute__((target("avx2,fma"))) static double fill_avx2(FILL_ARGS)
{
  FILL_BODY
}
__attribute__((target("avx2,fma"))) static void centre_avx2(CENTRE_ARGS)
{
  CENTRE_BODY
}
#endif

static int use_avx2(int simd)
{
  return simd && bk_cpu_has_avx2_fma();
}

/* The exact mean and variance of T = tr(Kc Lc) over the m! permutations of
 * the samples (Kazi-Aoual et al. 1995, as written for the RV coefficient by
 * Josse, Pages and Husson 2008, section 2.2), from the traces of the two
 * centred matrices A = Kc and B = Lc:
 *   E T = tr(A) tr(B) / (m - 1),
 *   var T = 2 u_A u_B / ((m + 1)(m - 1)^2 (m - 2))
 *         + w_A w_B / ((m + 1) m (m - 1)(m - 2)(m - 3)),
 *   u_A = (m - 1) tr(A^2) - tr(A)^2,
 *   w_A = m (m + 1) sum_i A_ii^2 - (m - 1)(tr(A)^2 + 2 tr(A^2)).
 * The gamma with that mean and variance: *shape and *z, the statistic over
 * the gamma's scale; NaN when m < 4 or a moment is not positive (a constant
 * kernel). They calibrate much better than the asymptotic moments of
 * Gretton et al. 2008 (eq. 9-10; hsic_test(method = "gamma")) at small m:
 * see inst/bench/bench-kernel-test.R. stat = tr(A0 B), ta = tr(A0),
 * ta2 = tr(A0^2), sa = sum_i A0_ii^2 for A0 = A - c H (gamma_one()). */
void bk_perm_moments(double ta, double ta2, double sa, double c, ptrdiff_t m,
                     const bk_test_label *lab, double *mean, double *var)
{
  const double md = (double) m;
  double ua = (md - 1.0) * ta2 - ta * ta;
  double wa = md * (md + 1.0) * sa - (md - 1.0) * (ta * ta + 2.0 * ta2);
  *mean = ta * lab->tb / (md - 1.0) + c * lab->tb;
  *var = 2.0 * ua * lab->ub / ((md + 1.0) * (md - 1.0) * (md - 1.0) * (md - 2.0)) +
         wa * lab->wb / ((md + 1.0) * md * (md - 1.0) * (md - 2.0) * (md - 3.0));
}

void bk_gamma_moments(double stat, double ta, double ta2, double sa, double c,
                      ptrdiff_t m, const bk_test_label *lab, double *shape,
                      double *z)
{
  if (m < 4) {
    *shape = *z = NAN;
    return;
  }
  double mean, var;
  bk_perm_moments(ta, ta2, sa, c, m, lab, &mean, &var);
  stat += c * lab->tb;
  if (mean > 0.0 && var > 0.0) {
    *shape = mean * mean / var;
    *z = stat * mean / var;
  } else {
    *shape = *z = NAN;
  }
}

/* The per-thread buffers of one feature: the packed kernel Kp (P), its
 * diagonal kd, the row sums r, the row means rk and a column of x (m each) */
typedef struct {
  double *Kp, *kd, *r, *rk, *col;
} feature_buf;

/* The weights of the score, sum_ab K_ab W_ab, when the caller asks for it
 * with the test: W packed (Wp) and its diagonal (Wd), and the sum over the
 * stored Gaussian pairs (bk_pick_packed_dot()) */
typedef struct {
  const double *Wp, *Wd;
  bk_packed_dot_fn dot;
} score_side;

/* The kernel of feature xj (packed, with its diagonal and row sums) in buf,
 * rescaled by a power of two when its values are extreme. Returns the
 * largest |K_ab| over the pairs a < b (after the rescaling). With sc, also
 * *score = sum_ab K_ab W_ab, bk_feature_dot()'s number to the last bit: its
 * kernel values (a feature of an extreme scale rescaled the same way), its
 * order of summation (the Gaussian pairs as the pass of pairs.c sums them,
 * from the stored values, which are the pass's exponentials; the other
 * kernels' pairs by its own loop), taken before the test's rescaling. */
static double feature_kernel(const double *xj, ptrdiff_t m, bk_kernel kern,
                             fill_fn fill_k, const feature_buf *buf,
                             const score_side *sc, double *score)
{
  const int dist = bk_kernel_uses_distance(kern.type);
  /* a feature of an extreme scale is rescaled as in bk_feature_dot()
   * (hsic.c): the same kernel, up to a constant factor for the
   * inverse-distance kernel, which changes no test */
  int e = dist ? bk_pow2_shift(bk_max_abs(xj, m), BK_DATA_RANGE) : 0;
  if (e != 0) {
    bk_copy_pow2(xj, m, e, buf->col);
    xj = buf->col;
    kern = bk_scaled_kernel(kern, e);
  }
  const double offtop = fill_k(xj, m, kern, buf->Kp, buf->r);
  double top = offtop;
  for (ptrdiff_t a = 0; a < m; a++) {
    const double k = bk_kernel_value(kern, dist ? 0.0 : xj[a] * xj[a]);
    const double f = fabs(k);
    buf->kd[a] = k;
    top = f > top ? f : top;
  }
  if (sc) {
    const double off = kern.type == BK_GAUSSIAN ? sc->dot(buf->Kp, sc->Wp, m)
                                                : bk_kernel_dot_pairs(xj, m, kern, sc->Wp);
    double diag = 0.0;
    for (ptrdiff_t a = 0; a < m; a++) diag += buf->kd[a] * sc->Wd[a];
    /* W is symmetric: the pairs a < b count twice; the inverse-distance
     * kernel of the rescaled feature is 2^-e times the feature's */
    *score = (diag + 2.0 * off) *
             (e != 0 && bk_kernel_has(kern.type, BK_KPROP_LENGTH) ? ldexp(1.0, e) : 1.0);
  }
  const int ek = bk_pow2_shift(top, BK_TEST_RANGE);
  if (ek != 0) {
    /* rare: the row sums again from the scaled values (those of the
     * unscaled ones may have overflowed) */
    const ptrdiff_t P = m * (m - 1) / 2;
    bk_copy_pow2(buf->Kp, P, ek, buf->Kp);
    bk_copy_pow2(buf->kd, m, ek, buf->kd);
    for (ptrdiff_t a = 0; a < m; a++) buf->r[a] = 0.0;
    const double *colp = buf->Kp;
    for (ptrdiff_t b = 1; b < m; b++) {
      for (ptrdiff_t a = 0; a < b; a++) {
        buf->r[a] += colp[a];
        buf->r[b] += colp[a];
      }
      colp += b;
    }
  }
  return ldexp(offtop, ek);
}

/* The gamma approximation of one feature, its kernel in buf: the traces of
 * Kc from the row sums and one sweep of the centred pairs. Ld: diag(Lc),
 * Lp: Lc packed. */
static void gamma_one(const feature_buf *buf, ptrdiff_t m, double offtop,
                      const double *Lp, const double *Ld,
                      const bk_test_label *lab, centre_fn centre_k,
                      double *shape, double *z)
{
  const double md = (double) m;
  /* A constant diagonal c (every distance kernel: k(0)) above every pair
   * (offtop) is taken out, K = K0 + c I with diag(K0) = 0, and put back
   * exactly: H K H = H K0 H + c H, so tr(A B) and E T gain c tr(B) and
   * var T does not change (the terms in c cancel in u_A and w_A). Summed
   * with the pairs, a diagonal much larger than they are (the
   * inverse-distance kernel, 1 / eps) would leave the centred pairs to the
   * rounding of the row means. A kernel with a pair as large as c (ties in
   * a Gaussian; a constant feature, whose centred kernel is then exactly 0)
   * keeps its diagonal. */
  double c = m > 0 && buf->kd[0] > offtop ? buf->kd[0] : 0.0;
  for (ptrdiff_t a = 1; a < m; a++)
    if (buf->kd[a] != c) c = 0.0;
  double tot = 0.0;
  for (ptrdiff_t a = 0; a < m; a++) {
    const double s = buf->r[a] + (buf->kd[a] - c);
    buf->rk[a] = s / md;
    tot += s;
  }
  const double sk = m > 0 ? tot / (md * md) : 0.0;
  double off[2];
  centre_k(buf->Kp, Lp, buf->rk, sk, m, off);
  /* the diagonal, Kc_aa = (K_aa - rk_a) + (sk - rk_a) */
  double ta = 0.0, sa = 0.0, sd = 0.0;
  for (ptrdiff_t a = 0; a < m; a++) {
    const double kc = (buf->kd[a] - c) - buf->rk[a] + (sk - buf->rk[a]);
    ta += kc;
    sa += kc * kc;
    sd += kc * Ld[a];
  }
  /* the pairs a < b count twice: the matrices are symmetric */
  bk_gamma_moments(sd + 2.0 * off[0], ta, sa + 2.0 * off[1], sa, c, m, lab, shape,
                   z);
}

/* #{r : sum_ab K_ab Wt_{p_r(a) p_r(b)} >= obs - tol} over the B permutations
 * (0-based, m x B), obs the unpermuted sum and tol = sqrt(eps) ||K||_F
 * ||Wt||_F (nw): a statistic equal to the observed one up to rounding is a
 * tie and counts (perm_p_value() in R/hsic.R has the same rule). K and Wt
 * are symmetric: the diagonal plus twice the pairs a < b (Wp: Wt packed,
 * Wd: its diagonal). */
static double perm_count(const feature_buf *buf, ptrdiff_t m, const double *Wt,
                         const double *Wp, const double *Wd, double nw,
                         const int *perms, ptrdiff_t B)
{
  const double *Kp = buf->Kp, *kd = buf->kd;
  const ptrdiff_t P = m * (m - 1) / 2;
  double obs = 0.0, nk = 0.0, od = 0.0, nd = 0.0;
  for (ptrdiff_t i = 0; i < P; i++) {
    obs += Kp[i] * Wp[i];
    nk += Kp[i] * Kp[i];
  }
  for (ptrdiff_t a = 0; a < m; a++) {
    od += kd[a] * Wd[a];
    nd += kd[a] * kd[a];
  }
  obs = od + 2.0 * obs;
  nk = nd + 2.0 * nk;
  const double lim = obs - sqrt(DBL_EPSILON) * sqrt(nk) * nw;
  double count = 0.0;
  for (ptrdiff_t r = 0; r < B; r++) {
    const int *p = perms + m * r;
    double T = 0.0, Td = 0.0;
    /* four columns at a time, each summed in order (the bits of one at a
     * time) */
#define PERM_TERM(a, c) (Kp[(c) * ((c) - 1) / 2 + (a)] * Wt[m * (ptrdiff_t) p[c] + p[a]])
    BK_PAIR_SUM_COLUMNS(m, PERM_TERM, T);
#undef PERM_TERM
    for (ptrdiff_t a = 0; a < m; a++) Td += kd[a] * Wd[p[a]];
    if (Td + 2.0 * T >= lim) count += 1.0;
  }
  return count;
}

/* The symmetric m x m matrix A as its pairs a < b, packed, then its
 * diagonal, at *next (P + m doubles), which moves past them */
static const double *pack_sym(const double *A, ptrdiff_t m, double **next)
{
  double *out = *next;
  const ptrdiff_t P = m * (m - 1) / 2;
  bk_pack_upper(A, m, out);
  for (ptrdiff_t a = 0; a < m; a++) out[P + a] = A[a + m * a];
  *next = out + P + m;
  return out;
}

/* the features of bk_feature_hsic_test(), one at a time */
typedef struct {
  const double *x, *par, *Lp, *Ld, *Wp, *Wd;
  ptrdiff_t m, P;
  bk_kernel kern;
  const bk_test_label *lab;
  double nw, *bufs, *shape, *z, *count, *score;
  score_side sc;
  fill_fn fill_k;
  centre_fn centre_k;
} test_ctx;

static void feature_test_one(void *ctx, ptrdiff_t j)
{
  const test_ctx *c = ctx;
  const ptrdiff_t m = c->m, P = c->P;
  double *base = c->bufs + (P + 4 * m) * bk_thread_id();
  const feature_buf buf = {base, base + P, base + P + m, base + P + 2 * m,
                           base + P + 3 * m};
  bk_kernel kj = c->kern;
  if (c->par) kj.p1 = c->par[j];
  const double offtop = feature_kernel(c->x + m * j, m, kj, c->fill_k, &buf,
                                      c->score ? &c->sc : NULL,
                                      c->score ? c->score + j : NULL);
  gamma_one(&buf, m, offtop, c->Lp, c->Ld, c->lab, c->centre_k, c->shape + j,
            c->z + j);
  if (c->lab->B > 0)
    c->count[j] = perm_count(&buf, m, c->lab->Wt, c->Wp, c->Wd, c->nw,
                             c->lab->perms, c->lab->B);
}

void bk_feature_hsic_test(const double *x, ptrdiff_t m, ptrdiff_t d,
                          bk_kernel kern, const double *par,
                          const bk_test_label *lab, double *shape, double *z,
                          double *count, double *score, double *work, int simd,
                          int nthreads, bk_pacer *pace)
{
  const ptrdiff_t P = m * (m - 1) / 2;
  /* the label side packed once (each matrix its pairs, then its diagonal):
   * Lc; for permutations Wt; for the score W, unless it is Wt */
  double *next = work;
  test_ctx c = {.x = x, .par = par, .m = m, .P = P, .kern = kern, .lab = lab,
                .nw = 0.0, .shape = shape, .z = z, .count = count,
                .score = lab->W ? score : NULL, .fill_k = fill,
                .centre_k = centre};
  c.Lp = pack_sym(lab->Lc, m, &next);
  c.Ld = c.Lp + P;
  if (lab->B > 0) {
    for (ptrdiff_t i = 0; i < m * m; i++) c.nw += lab->Wt[i] * lab->Wt[i];
    c.nw = sqrt(c.nw);
    c.Wp = pack_sym(lab->Wt, m, &next);
    c.Wd = c.Wp + P;
  }
  if (c.score) {
    c.sc.Wp = lab->B > 0 && lab->W == lab->Wt ? c.Wp : pack_sym(lab->W, m, &next);
    c.sc.Wd = c.sc.Wp + P;
    c.sc.dot = bk_pick_packed_dot(simd);
  }
  c.bufs = next;
  const int avx2 = use_avx2(simd);
#ifdef KT_X86_DISPATCH
  if (avx2) {
    c.fill_k = fill_avx2;
    c.centre_k = centre_avx2;
  }
#else
  (void) avx2;
#endif
  /* each feature's numbers are its own, so the groups and threads change
   * nothing */
  const bk_paced_loop loop = {.item = feature_test_one, .ctx = &c,
                              .ops = (double) ((P + m) * (3 + lab->B + (c.score != NULL)) + 1),
                              .par_min = BK_PAR_MIN_PAIRS};
  bk_paced_for(&loop, d, nthreads, pace);
}
