/*
 * clinical.h: the clinical kernel (clinical.c).
 */
#ifndef BAHSIC_CLINICAL_H
#define BAHSIC_CLINICAL_H

#include "common.h"

/* ---- the clinical kernel (clinical.c) --------------------------------------
 * Eq. (3)-(4) of Paul and Dupont (ESANN 2014) on encoded data: column f of z is
 * categorical (cat[f] = 1, level codes, k_f = 1[a == b]) or continuous
 * (cat[f] = 0, shifted and divided by its range, k_f = 1 - |a - b|). */

/* Columns j0 <= j < j1 of K (ma x mb) = sum_f weight[f] k_f(za_i, zb_j),
 * or the average over the p features when weight is NULL (za: ma x p, zb:
 * mb x p): with sym (za == zb), only rows i <= j,
 * to be mirrored by bk_clinical_mirror() once all columns are done. The
 * glue computes K in blocks of columns, checking for an interrupt between
 * blocks; each column is the same whatever the blocks and the threads. */
void bk_clinical_cols(const double *za, ptrdiff_t ma, const double *zb,
                      ptrdiff_t mb, ptrdiff_t p, const int *cat,
                      const double *weight, int sym, ptrdiff_t j0, ptrdiff_t j1,
                      double *K, int nthreads);

/* K (m x m): the lower triangle from the upper one. */
void bk_clinical_mirror(double *K, ptrdiff_t m);

/* out[f] = sum_{a,b} W_ab k_f(z_af, z_bf) for every feature f of z (m x p),
 * W symmetric m x m (only its upper triangle is read). HSIC is linear in
 * the kernel and the clinical kernel is an average, so these p numbers give
 * HSIC of every feature subset; with W = v v' they are the quadratic forms
 * v' K_f v of J_SVM (eq. 5-7) and of the MKL gradient (eq. 8). */
void bk_clinical_dot(const double *z, ptrdiff_t m, ptrdiff_t p, const int *cat,
                     const double *W, double *out, int nthreads);

#endif
