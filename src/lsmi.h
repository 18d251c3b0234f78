/*
 * lsmi.h: LSMI, l1-LSMI and l1-HSIC (lsmi.c).
 */
#ifndef BAHSIC_LSMI_H
#define BAHSIC_LSMI_H

#include "common.h"

/* ---- LSMI, l1-LSMI and l1-HSIC (lsmi.c) -----------------------------------
 * The slides of Jitkrittum (2012). n samples, d features, b basis centres;
 * cen is the b x d matrix of centres; w the d feature weights (NULL: 1). */

/* out (n x b) = sum_j w_j^2 (x_ij - c_lj)^2. */
void bk_wsqdist(const double *x, ptrdiff_t n, ptrdiff_t d, const double *c,
                ptrdiff_t b, const double *w, double *out);
/* phi = exp(-sq / (2 sigma^2)), in place allowed. */
void bk_lsmi_gauss(const double *sq, ptrdiff_t len, double sigma, double *phi);
/* phi[i, l] = (cls[i] == cls[cen[l]]), cen 0-based. */
void bk_lsmi_delta(const int *cls, ptrdiff_t n, const int *cen, ptrdiff_t b,
                   double *phi);
/* alpha = ((Gx o Gy) / nn + lambda I)^{-1} h; A: b^2 work. LAPACK info. */
int bk_lsmi_solve(const double *Gx, const double *Gy, ptrdiff_t b, double nn,
                  const double *h, double lambda, double *A, double *alpha);
/* out[0] = LSMI; alpha, h (b each) filled. work: 3 b^2. LAPACK info. */
int bk_lsmi_fit(const double *phix, const double *phiy, ptrdiff_t n,
                ptrdiff_t b, double lambda, double *alpha, double *h,
                double *out, double *work, bk_pacer *pace);
/* K-fold CV score (ns x nl) of (sigma, lambda). work: bk_lsmi_cv_work()
 * doubles, iwork: n + K + 1 ints. LAPACK info. pace (here and in
 * bk_lsmi_fit()): interrupt checks between pieces of the products and
 * solves, on the calling thread, or NULL. */
ptrdiff_t bk_lsmi_cv_work(ptrdiff_t n, ptrdiff_t b, ptrdiff_t K);
int bk_lsmi_cv(const double *sqx, const double *phiy, ptrdiff_t n, ptrdiff_t b,
               const int *fold, int K, const double *sigmas, ptrdiff_t ns,
               const double *lambdas, ptrdiff_t nl, double *score, double *work,
               int *iwork, bk_pacer *pace);
/* LSMI of diag(w) x (out[0]) and its gradient in w (d). work:
 * bk_lsmi_grad_work() doubles. LAPACK info. */
ptrdiff_t bk_lsmi_grad_work(ptrdiff_t n, ptrdiff_t d, ptrdiff_t b);
int bk_lsmi_grad(const double *x, ptrdiff_t n, ptrdiff_t d, const double *cen,
                 ptrdiff_t b, const double *w, double sigma, double lambda,
                 const double *phiy, const double *Gy, double *grad, double *out,
                 double *work);
/* Biased HSIC of diag(w) x with a Gaussian kernel exp(-gamma ||.||^2) and
 * W = HLH/(m-1)^2 (out[0]), and its gradient in w (d). work:
 * bk_l1hsic_grad_work() doubles. */
ptrdiff_t bk_l1hsic_grad_work(ptrdiff_t m, ptrdiff_t d);
void bk_l1hsic_grad(const double *x, ptrdiff_t m, ptrdiff_t d, const double *w,
                    double gamma, const double *W, double *grad, double *out,
                    double *work);
/* Projection of v onto {w >= 0, 1'w <= z}. work: d doubles. */
void bk_l1ball_project(const double *v, ptrdiff_t d, double z, double *w,
                       double *work);
/* sum(W' o K(w)) (out[0]) with W' = W, max(W, 0) or min(W, 0) for part =
 * 0, 1, -1, and its gradient in v = w o w (d); the Gaussian kernel of
 * bk_l1hsic_grad(). work: bk_l1hsic_grad_work() doubles. */
void bk_hsic_vgrad(const double *x, ptrdiff_t m, ptrdiff_t d, const double *w,
                   double gamma, const double *W, int part, int nthreads, double *grad,
                   double *out, double *work);

#endif
