/*
 * ranks.h: per-feature rank sums for the Wilcoxon, Kruskal-Wallis and
 * one-versus-rest scores (ranks.c).
 */
#ifndef BAHSIC_RANKS_H
#define BAHSIC_RANKS_H

#include "common.h"

/* ---- rank scores (ranks.c) ---------------------------------------------------
 * The Wilcoxon, Kruskal-Wallis and one-versus-rest scores of
 * feature_scores() (R/scores-rank.R). A column of a dense m x d matrix, or
 * of a compressed-column sparse one (colptr and rowidx given, x its nonzero
 * values: the zeros are one tie block, never stored). */
typedef struct {
  const double *x;     /* m x d column-major, or the nonzero values */
  const int *colptr;   /* NULL (dense), or d + 1 offsets into x and rowidx */
  const int *rowidx;   /* the 0-based row of each value (sparse) */
  ptrdiff_t m, d;
  const int *cls;      /* the 0-based class of each of the m samples */
  int ncls;
} bk_rank_input;
typedef struct {
  double *rsum;  /* ncls x d: the sum of the mid-ranks of each class */
  double *ties;  /* d: sum(t^3 - t) over the groups of t equal values */
  double *sum;   /* ncls x d: the sum of the values of each class */
  double *pos;   /* ncls x d: the number of values > 0 of each class */
  int *constant; /* d: 1 when every value is equal */
  int *bad;      /* d: the row of the first non-finite value, or -1 */
} bk_rank_output;
/* work of one thread: m (value, class) pairs and two counts per class */
#define BK_RANK_THREAD_WORK(m, K) (2 * (ptrdiff_t) (m) + 2 * (ptrdiff_t) (K))
/* work of bk_rank_sums(), in doubles */
#define BK_RANK_WORK(m, K, nt) ((ptrdiff_t) (K) + (ptrdiff_t) (nt) * BK_RANK_THREAD_WORK(m, K))
/* Fills out for every column; returns the column-major index of the first
 * non-finite value (that column's outputs are NaN), or -1. */
ptrdiff_t bk_rank_sums(const bk_rank_input *in, const bk_rank_output *out,
                       double *work, int nthreads, bk_pacer *pace);

#endif
