/*
 * cox.h: the Cox partial-likelihood score test of each feature alone at
 * beta = 0 (cox.c), vectorised over features; R/scores-cox.R sets it up.
 */
#ifndef BAHSIC_COX_H
#define BAHSIC_COX_H

#include "common.h"

/* What R computes once from the outcome (and the covariates' null fit):
 * the samples sorted by stratum, then time (latest first), then event
 * (censored first), so that the risk set of a death time is a run
 * [sstart[g], rend[g]) of the sorted order and its tied deaths the end of it,
 * [dstart[g], rend[g]); w the risk weights exp(z'beta) in that order. In the
 * samples' own order: a (the score: U = a'x), b (the linear part of the
 * information: sum_i b_i x_i^2) and C (m x q: the information of x with
 * each covariate, I_xZ = C'x). K terms of the quadratic part of the
 * information, term k: tc[k] * (S1 - tf[k] * S1D)^2 with S1 and S1D the sums
 * of w x over the risk set and the tied deaths of group tg[k]. Izz_inv
 * (q x q): the inverse information of the covariates. All indices 0-based. */
typedef struct {
  ptrdiff_t m, q, G, K;
  const int *ord, *sstart, *rend, *dstart, *tg;
  const double *w, *a, *b, *C, *Izz_inv, *tc, *tf;
} bk_cox_setup;

/* For each column j of x (m x d): z[j] = U / sqrt(I), stat[j] = U^2 / I
 * (I the information, less its part explained by the covariates), effect[j]
 * = U / I (the one-step log hazard ratio, per unit of x), mean[j]; NaN
 * where I is 0 (a constant feature, or one the covariates determine);
 * constant[j] = 1 for a column of a single value. Each column is rescaled
 * by a power of two and centred first (bk_scan_column()). Returns the index
 * of the first non-finite value of x, or -1. work: 2 m + 1 + q doubles. */
ptrdiff_t bk_cox_scores(const double *x, ptrdiff_t d, const bk_cox_setup *s,
                        double *z, double *stat, double *effect, double *mean,
                        int *constant, double *work);

#endif
