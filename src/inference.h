/*
 * inference.h: the univariate statistics of the per-feature scores
 * (scores.c) and the permutation maxT (maxt.c).
 */
#ifndef BAHSIC_INFERENCE_H
#define BAHSIC_INFERENCE_H

#include "common.h"

/* ---- univariate statistics (scores.c) ------------------------------------ */

/* Per-class counts n (ncls), means and within-class sums of squared
 * deviations (ncls x d, column-major) of the columns of x (m x d), in units
 * of 2^expo[j] (mean) and 4^expo[j] (ss) per column; constant[j] = 1 for a
 * column of a single value; cls[i] in 0..ncls-1. One read of each column.
 * Returns the index of the first non-finite value of x, or -1.
 * work: m + ncls + 1 ints. */
ptrdiff_t bk_class_moments(const double *x, ptrdiff_t m, ptrdiff_t d,
                           const int *cls, int ncls, int *n, double *mean,
                           double *ss, int *expo, int *constant, int *work);

/* Pearson correlation of every column of x (m x d) with y; NaN for a
 * constant column; constant[] and the result as bk_class_moments(); mean
 * (NULL: not wanted) the mean of every column. work: m doubles. */
ptrdiff_t bk_col_cor(const double *x, ptrdiff_t m, ptrdiff_t d,
                     const double *y, double *out, double *mean, int *constant,
                     double *work);

/* out (r x d) = F' x for an m x r basis F and the columns of x (m x d): the
 * projections of the linear fits on a study design (R/scores-design.R). */
void bk_eb_log_moments(const double *r, ptrdiff_t p, ptrdiff_t B, const double *a2,
                       const int *keep, double df, double *out);
void bk_eb_moderate(double *r, ptrdiff_t p, ptrdiff_t B, const double *a2, const int *keep,
                    double df, const double *scale, const double *df2);
void bk_col_project(const double *x, ptrdiff_t m, ptrdiff_t d, const double *F,
                    ptrdiff_t r, double *out);

/* The ranks of order(-key, -tie, na.last = TRUE, method = "radix"): rank[j]
 * (1-based) of key[j] by decreasing key, NaN last; equal keys by decreasing
 * tie (NULL: none; NaN last), then in index order. kwork: 2 n, iwork: 2 n,
 * count: BK_RADIX_COUNT. */
#define BK_RADIX_COUNT (6 * 2048)
void bk_rank_desc(const double *key, const double *tie, ptrdiff_t n, int *rank,
                  uint64_t *kwork, int *iwork, ptrdiff_t *count);
/* stats::p.adjust(p, "BH") of n >= 2 p-values without NaN, into out; work
 * as bk_rank_desc(). */
void bk_p_adjust_bh(const double *p, ptrdiff_t n, double *out, uint64_t *kwork,
                    int *iwork, ptrdiff_t *count);
/* The same along ord, the order of the p-values from the largest down (ties
 * in any order). */
void bk_p_adjust_bh_along(const double *p, const int *ord, ptrdiff_t n, double *out);

/* ---- limma's prior as R computes it (scores.c) -------------------------------
 * R's mean() of x[0..n-1]. */
double bk_r_mean(const double *x, ptrdiff_t n);
/* fit_f_dist()'s vector work on s2[0..n-1]: out = {the finite values' count
 * q, the median of their pmax(, 0) (before the fallback for 0), the mean and
 * the sum of squared deviations of e = log(pmax(v, 1e-5 med)) - dg + lg,
 * the mean of pmax(v, 1e-5 med)}; NaN but q for q < 2. work: 2 n. */
void bk_f_dist_sums(const double *s2, ptrdiff_t n, double fallback, double dg, double lg,
                    double *work, double *out);
/* moderated_t()'s variances s2 = (ss1 + ss2) / df and differences of the
 * class means (2 x d, feature j in units of 2^expo[j]) in the common unit 2^E. */
void bk_mt_common(const double *mean, const double *ss, const int *expo, int E, ptrdiff_t d,
                  double df, double *s2, double *diff);
/* the moderated t: diff / su / sqrt(s2_post), s2_post = (df s2 + d0 s20) /
 * (df + d0), or s20 for an infinite d0. */
void bk_mt_posterior(const double *s2, const double *diff, ptrdiff_t d, double su, double df,
                     double d0, double s20, double *t);

/* ---- permutation maxT (maxt.c) ----------------------------------------------
 * The statistics of bk_perm_stats(); the glue maps R's method names to them
 * (they do not cross .Call as numbers). */
enum {
  BK_PERM_WELCH = 1, /* Welch's t */
  BK_PERM_POOLED,    /* pooled-variance t */
  BK_PERM_LIN,       /* mean difference */
  BK_PERM_SNR,       /* signal to noise */
  BK_PERM_PC,        /* Pearson correlation */
  BK_PERM_MOMENTS    /* mean difference and pooled variance (moderated t in R) */
};
/* Statistics of the p features (rows of xt, p x m) for B labellings: under
 * labelling b sample i has the label of sample perm[i + m b] (0-based):
 * class cls[] (0/1) or value y[] (BK_PERM_PC; xt's rows and y centred with
 * unit norm). out (p x B) gets level 2 minus level 1 (or r), NaN for a zero
 * spread; out2 (p x B, BK_PERM_MOMENTS only, else NULL) the pooled variance.
 * work: 2 p (nthreads + 1) doubles. */
void bk_perm_stats(int stat, const double *xt, ptrdiff_t p, ptrdiff_t m,
                   const int *cls, const double *y, const int *perm,
                   ptrdiff_t B, double *out, double *out2, double *work,
                   int nthreads);
/* Counts of the step-down maxT over B columns of stat (p x B): raw[j] the
 * columns with |stat[j]| >= thr[j], adj[k] those whose largest |stat| over
 * the features order[k..q-1] is >= thr[order[k]] (order: the q features by
 * decreasing observed |statistic|, 0-based). work: (p + q) nthreads ints. */
void bk_maxt_count(const double *stat, ptrdiff_t p, ptrdiff_t B,
                   const int *order, ptrdiff_t q, const double *thr,
                   int *raw, int *adj, int *work, int nthreads);
/* The counts of bk_maxt_count() straight from the statistics of
 * bk_perm_stats(), without the p x B matrix: each thread counts its
 * labellings BK_MAXT_CHUNK at a time from its own buffer. The same counts.
 * Not for BK_PERM_MOMENTS (R finishes that statistic). work: 2 p (nthreads
 * + 1) + p BK_MAXT_CHUNK nthreads doubles; iwork: (p + q) nthreads ints. */
#define BK_MAXT_CHUNK 16
#define BK_MAXT_FUSED_WORK(p, nthreads) \
  (2 * (p) * ((nthreads) + 1) + (p) * BK_MAXT_CHUNK * (nthreads))
typedef struct {
  int stat;                  /* not BK_PERM_MOMENTS */
  const double *xt, *y, *thr; /* as bk_perm_stats(), bk_maxt_count() */
  const int *cls, *perm, *order;
  ptrdiff_t p, m, B, q;
} bk_maxt_spec;
void bk_maxt_fused(const bk_maxt_spec *s, int *raw, int *adj, double *work, int *iwork,
                   int nthreads);

#endif
