/*
 * pairscore.c: the exact scores and tests of given pairs of features
 * (pair_scores(), after the single-precision screen of all pairs in
 * pairtop.c). For a pair (i, j) with the kernels K^i, K^j of the features
 * alone and their doubly centred Kc = H K H:
 *  - the interaction tr(M Lc), M = Kc^i o Kc^j, the second-order part of
 *    the ANOVA decomposition of the product kernel (K^i o K^j = (Kc^i +
 *    main effects) o (Kc^j + ...)): what the pair shows beyond its two
 *    features alone; M is positive semi-definite (Schur product theorem);
 *  - the pair's HSIC, tr(K Lc), K = K^i o K^j (for the Gaussian kernel,
 *    the Gaussian kernel on the two features);
 * each with a shifted gamma approximation of its null distribution: the
 * exact permutation mean and variance of the per-feature tests
 * (bk_perm_moments(), kernel_test.c) and a skewness (pair_fit()).
 * Symmetric matrices are kept packed with their diagonal: (a, b), a <= b,
 * at b (b + 1) / 2 + a. Each pair is computed on one thread from start to
 * end, so the results do not depend on the number of threads. Numeric
 * core: no R API, no allocation.
 */
#include <math.h>
#include "pairscore.h"

#define PK(a, b) ((b) * ((b) + 1) / 2 + (a))

/* The row means of the symmetric packed A (diagonal included) into r;
 * returns the grand mean. */
static double row_means(const double *A, ptrdiff_t m, double *r)
{
  for (ptrdiff_t a = 0; a < m; a++) r[a] = 0.0;
  const double *col = A;
  for (ptrdiff_t b = 0; b < m; b++) {
    for (ptrdiff_t a = 0; a < b; a++) {
      r[a] += col[a];
      r[b] += col[a];
    }
    r[b] += col[b];
    col += b + 1;
  }
  double tot = 0.0;
  for (ptrdiff_t a = 0; a < m; a++) {
    tot += r[a];
    r[a] /= (double) m;
  }
  return tot / ((double) m * (double) m);
}

/* The kernel of feature xg (packed, diagonal included) into K and its row
 * means into r; returns the grand mean. */
static double gene_kernel(const double *xg, ptrdiff_t m, bk_kernel kern,
                          double *K, double *r)
{
  const int dist = bk_kernel_uses_distance(kern.type);
  double *col = K;
  for (ptrdiff_t b = 0; b < m; b++) {
    const double xb = xg[b];
    for (ptrdiff_t a = 0; a <= b; a++) {
      const double t = dist ? (xg[a] - xb) * (xg[a] - xb) : xg[a] * xb;
      col[a] = bk_kernel_value(kern, t);
    }
    col += b + 1;
  }
  return row_means(K, m, r);
}

/* A (packed) centred in place, A <- H A H, with the sums of the gamma
 * approximation: s[0] = tr(A Lc), s[1] = tr(A), s[2] = tr(A^2),
 * s[3] = sum_a A_aa^2 (Lp: Lc packed). r: m doubles of work. */
static void centre_stats(double *A, ptrdiff_t m, const double *Lp, double *r,
                         double *s)
{
  const double g = row_means(A, m, r);
  double stat = 0.0, sq = 0.0, tr = 0.0, sd = 0.0, dstat = 0.0, dsq = 0.0;
  double *c = A;
  const double *lp = Lp;
  for (ptrdiff_t b = 0; b < m; b++) {
    const double cb = g - r[b];
    for (ptrdiff_t a = 0; a < b; a++) {
      const double v = c[a] - r[a] + cb;
      c[a] = v;
      stat += v * lp[a];
      sq += v * v;
    }
    const double v = c[b] - r[b] + cb;
    c[b] = v;
    dstat += v * lp[b];
    dsq += v * v;
    tr += v;
    sd += v * v;
    c += b + 1;
    lp += b + 1;
  }
  /* the pairs a < b count twice: the matrices are symmetric */
  s[0] = dstat + 2.0 * stat;
  s[1] = tr;
  s[2] = dsq + 2.0 * sq;
  s[3] = sd;
}

/* tr(A^3) of the symmetric A (packed), unpacked into F (m x m): the sum
 * over a <= b of A_ab (A^2)_ab, (A^2)_ab the product of columns a and b */
static double trace_cube(const double *A, ptrdiff_t m, double *F)
{
  for (ptrdiff_t b = 0; b < m; b++)
    for (ptrdiff_t a = 0; a <= b; a++) F[a + m * b] = F[b + m * a] = A[PK(a, b)];
  double diag = 0.0, off = 0.0;
  for (ptrdiff_t b = 0; b < m; b++) {
    const double *Fb = F + m * b;
    for (ptrdiff_t a = 0; a <= b; a++) {
      const double *Fa = F + m * a;
      double d = 0.0;
      BK_SIMD_SUM(d)
      for (ptrdiff_t c = 0; c < m; c++) d += Fa[c] * Fb[c];
      if (a == b) diag += Fb[a] * d;
      else off += Fb[a] * d;
    }
  }
  return diag + 2.0 * off;
}

/* The null distribution of T = tr(A Lc) as loc + scale Gamma(shape): the
 * exact permutation mean and variance (bk_perm_moments()) and, for the
 * shape, the smaller of the two-moment gamma's, mean^2 / var, and 4 /
 * skew^2, the skewness skew = 8 tr(A^3) tr(B^3) / (2 tr(A^2) tr(B^2))^1.5 of
 * the weighted sum of chi-squares that T tends to (its cumulants are
 * 2^(r-1) (r-1)! tr(A^r) tr(B^r), up to one scale): the gamma's tail alone
 * is too light far out, where the largest eigenvalues dominate (measured:
 * 3.3e-6 where 200,000 permutations gave 7e-5; see ?pair_scores). s: the
 * sums of centre_stats(), t3 = tr(A^3); NaN for m < 4 or a constant
 * kernel. */
static void pair_fit(const double *s, double t3, const bk_pair_job *job,
                     double *shape, double *loc, double *scale)
{
  double mean, var;
  if (job->m < 4) {
    *shape = *loc = *scale = NAN;
    return;
  }
  bk_perm_moments(s[1], s[2], s[3], 0.0, job->m, job->lab, &mean, &var);
  if (!(mean > 0.0 && var > 0.0)) {
    *shape = *loc = *scale = NAN;
    return;
  }
  const double k2 = mean * mean / var;
  const double skew = 8.0 * t3 * job->tb3 / pow(2.0 * s[2] * job->tb2, 1.5);
  if (skew > 0.0 && 4.0 / (skew * skew) < k2) {
    *shape = 4.0 / (skew * skew);
    *scale = sqrt(var / *shape);
    *loc = mean - *shape * *scale;
  } else {
    *shape = k2;
    *scale = var / mean;
    *loc = 0.0;
  }
}

typedef struct {
  const bk_pair_job *job;
  const double *Lp;
  double *bufs, *out;
} pair_ctx;

/* one statistic of pair k: its fit (pair_fit()) into out (columns c0, c0 +
 * 1, c0 + 2: the statistic, the shape, (T - loc) / scale). F: m x m of
 * work. */
static void pair_test(const pair_ctx *c, ptrdiff_t k, double *A, double *r,
                      double *F, int c0)
{
  const bk_pair_job *job = c->job;
  const ptrdiff_t n = job->n, m = job->m;
  double s[4], shape, loc, scale;
  centre_stats(A, m, c->Lp, r, s);
  pair_fit(s, trace_cube(A, m, F), job, &shape, &loc, &scale);
  c->out[k + n * c0] = s[0];
  c->out[k + n * (c0 + 1)] = shape;
  c->out[k + n * (c0 + 2)] = (s[0] - loc) / scale;
}

static void pair_one(void *ctx, ptrdiff_t k)
{
  const pair_ctx *c = ctx;
  const bk_pair_job *job = c->job;
  const ptrdiff_t m = job->m, P = m * (m + 1) / 2;
  double *Ki = c->bufs + (4 * P + 4 * m + m * m) * bk_thread_id();
  double *Kj = Ki + P, *M = Kj + P, *Kp = M + P, *ri = Kp + P, *rj = ri + m,
         *r = rj + m, *F = r + m;
  const double gi = gene_kernel(job->x + m * (ptrdiff_t) job->pi[k], m,
                                job->kern, Ki, ri);
  const double gj = gene_kernel(job->x + m * (ptrdiff_t) job->pj[k], m,
                                job->kern, Kj, rj);
  for (ptrdiff_t b = 0; b < m; b++) {
    const double ci = gi - ri[b], cj = gj - rj[b];
    for (ptrdiff_t a = 0; a <= b; a++) {
      const ptrdiff_t q = PK(a, b);
      M[q] = (Ki[q] - ri[a] + ci) * (Kj[q] - rj[a] + cj);
      Kp[q] = Ki[q] * Kj[q];
    }
  }
  pair_test(c, k, M, r, F, 0);
  pair_test(c, k, Kp, r, F, 3);
}

void bk_pair_scores(const bk_pair_job *job, double *out, double *work,
                    int nthreads, bk_pacer *pace)
{
  const ptrdiff_t m = job->m, P = m * (m + 1) / 2;
  double *Lp = work;
  for (ptrdiff_t b = 0; b < m; b++)
    for (ptrdiff_t a = 0; a <= b; a++) Lp[PK(a, b)] = job->lab->Lc[a + m * b];
  pair_ctx c = {.job = job, .Lp = Lp, .bufs = work + P + m, .out = out};
  const bk_paced_loop loop = {.item = pair_one, .ctx = &c,
                              .ops = (double) P * (12.0 + (double) m),
                              .par_min = BK_PAR_MIN_PAIRS};
  bk_paced_for(&loop, job->n, nthreads, pace);
}
