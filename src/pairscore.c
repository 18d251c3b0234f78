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
 * each with the gamma approximation of the per-feature tests, the exact
 * permutation moments (bk_gamma_moments(), kernel_test.c), and optionally
 * its statistics under given permutations of the samples (for maxT).
 * Symmetric matrices are kept packed with their diagonal: (a, b), a <= b,
 * at b (b + 1) / 2 + a. Each pair is computed on one thread from start to
 * end, so the results do not depend on the number of threads. Numeric
 * core: no R API, no allocation.
 */
#include <math.h>
#include "pairscore.h"

#define PK(a, b) ((b) * ((b) + 1) / 2 + (a))

/* The kernel of feature xg (packed, diagonal included) into K and its row
 * means into r; returns the grand mean. */
static double gene_kernel(const double *xg, ptrdiff_t m, bk_kernel kern,
                          double *K, double *r)
{
  const int dist = bk_kernel_uses_distance(kern.type);
  for (ptrdiff_t a = 0; a < m; a++) r[a] = 0.0;
  double *col = K;
  for (ptrdiff_t b = 0; b < m; b++) {
    const double xb = xg[b];
    for (ptrdiff_t a = 0; a <= b; a++) {
      const double t = dist ? (xg[a] - xb) * (xg[a] - xb) : xg[a] * xb;
      col[a] = bk_kernel_value(kern, t);
    }
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

/* A (packed) centred in place, A <- H A H, with the sums of the gamma
 * approximation: s[0] = tr(A Lc), s[1] = tr(A), s[2] = tr(A^2),
 * s[3] = sum_a A_aa^2 (Lp: Lc packed). r: m doubles of work. */
static void centre_stats(double *A, ptrdiff_t m, const double *Lp, double *r,
                         double *s)
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
  const double g = tot / ((double) m * (double) m);
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

/* tr(Ac P Lc P') for the centred packed Ac and the permutation p (0-based):
 * sum_ab Ac_ab Lc_{p(a) p(b)}, the permuted statistic */
static double permuted_stat(const double *Ac, ptrdiff_t m, const double *Lc,
                            const int *p)
{
  double off = 0.0, diag = 0.0;
  const double *col = Ac;
  for (ptrdiff_t b = 0; b < m; b++) {
    const double *Lb = Lc + m * (ptrdiff_t) p[b];
    double s = 0.0;
    for (ptrdiff_t a = 0; a < b; a++) s += col[a] * Lb[p[a]];
    off += s;
    diag += col[b] * Lb[p[b]];
    col += b + 1;
  }
  return diag + 2.0 * off;
}

typedef struct {
  const bk_pair_job *job;
  const double *Lp;
  double *bufs, *out, *zint, *zpair;
} pair_ctx;

/* one statistic of pair k: its gamma approximation into out (columns c0,
 * c0 + 1, c0 + 2) and its permuted statistics over the gamma's scale */
static void pair_test(const pair_ctx *c, ptrdiff_t k, double *A, double *r,
                      int c0, double *zperm)
{
  const bk_pair_job *job = c->job;
  const ptrdiff_t n = job->n, m = job->m;
  double s[4], shape, z;
  centre_stats(A, m, c->Lp, r, s);
  bk_gamma_moments(s[0], s[1], s[2], s[3], 0.0, m, job->lab, &shape, &z);
  c->out[k + n * c0] = s[0];
  c->out[k + n * (c0 + 1)] = shape;
  c->out[k + n * (c0 + 2)] = z;
  for (ptrdiff_t b = 0; b < job->B; b++) {
    const double t = permuted_stat(A, m, job->lab->Lc, job->perms + m * b);
    double zb;
    /* the moments are those of every permutation: only the statistic moves */
    bk_gamma_moments(t, s[1], s[2], s[3], 0.0, m, job->lab, &shape, &zb);
    zperm[k + n * b] = zb;
  }
}

static void pair_one(void *ctx, ptrdiff_t k)
{
  const pair_ctx *c = ctx;
  const bk_pair_job *job = c->job;
  const ptrdiff_t m = job->m, P = m * (m + 1) / 2;
  double *Ki = c->bufs + (4 * P + 4 * m) * bk_thread_id();
  double *Kj = Ki + P, *M = Kj + P, *Kp = M + P, *ri = Kp + P, *rj = ri + m,
         *r = rj + m;
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
  pair_test(c, k, M, r, 0, c->zint);
  pair_test(c, k, Kp, r, 3, c->zpair);
}

void bk_pair_scores(const bk_pair_job *job, double *out, double *zint,
                    double *zpair, double *work, int nthreads, bk_pacer *pace)
{
  const ptrdiff_t m = job->m, P = m * (m + 1) / 2;
  double *Lp = work;
  for (ptrdiff_t b = 0; b < m; b++)
    for (ptrdiff_t a = 0; a <= b; a++) Lp[PK(a, b)] = job->lab->Lc[a + m * b];
  pair_ctx c = {.job = job, .Lp = Lp, .bufs = work + P + m, .out = out,
                .zint = zint, .zpair = zpair};
  const bk_paced_loop loop = {.item = pair_one, .ctx = &c,
                              .ops = (double) P * (12.0 + 2.0 * (double) job->B),
                              .par_min = BK_PAR_MIN_PAIRS};
  bk_paced_for(&loop, job->n, nthreads, pace);
}
