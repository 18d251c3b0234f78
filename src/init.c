/* init.c: routine registration, and the kept buffer's release at unload. */
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Rdynload.h>
#include <R_ext/Visibility.h>

void bk_scratch_free(void); /* scratch_call.c */
SEXP C_scratch_info(void);
SEXP C_gram(SEXP x, SEXP opts);
SEXP C_median_pairwise(SEXP x, SEXP squared, SEXP threads);
SEXP C_median_columns(SEXP x, SEXP squared, SEXP threads);
SEXP C_hsic_stats(SEXP K, SEXP label);
SEXP C_hsic_stats_x(SEXP x, SEXP opts, SEXP label, SEXP y, SEXP yopts);
SEXP C_hsic_gamma_x(SEXP x, SEXP opts, SEXP label, SEXP y, SEXP yopts);
SEXP C_hsic_perm(SEXP K, SEXP label, SEXP perms);
SEXP C_hsic_gamma(SEXP K, SEXP label);
SEXP C_feature_dot(SEXP x, SEXP W, SEXP opts);
SEXP C_feature_hsic_test(SEXP x, SEXP opts);
SEXP C_pair_scores(SEXP x, SEXP opts);
SEXP C_feature_moments(SEXP x, SEXP cls, SEXP ncls);
SEXP C_feature_project(SEXP x, SEXP basis);
SEXP C_eb_permuted(SEXP r, SEXP a2, SEXP keep, SEXP df, SEXP prior);
SEXP C_feature_cor(SEXP x, SEXP y);
SEXP C_rank_desc(SEXP key, SEXP tie);
SEXP C_p_adjust_bh(SEXP p, SEXP rank);
SEXP C_f_dist_sums(SEXP s2, SEXP fallback, SEXP dg, SEXP lg);
SEXP C_mt_common(SEXP mean, SEXP ss, SEXP expo, SEXP E, SEXP df);
SEXP C_mt_posterior(SEXP s2, SEXP diff, SEXP su, SEXP df, SEXP d0, SEXP s20);
SEXP C_two_sided_t(SEXP t, SEXP df);
SEXP C_cor_test(SEXP r, SEXP df);
SEXP C_mean_diff(SEXP mean, SEXP expo);
SEXP C_t_from_moments(SEXP mean, SEXP ss, SEXP n, SEXP m, SEXP pooled);
SEXP C_cox_scores(SEXP x, SEXP setup);
SEXP C_scale_pow2(SEXP v, SEXP shift, SEXP power);
SEXP C_scale_columns(SEXP x, SEXP threads);
SEXP C_first_nonfinite(SEXP x);
SEXP C_first_unnamed(SEXP s);
SEXP C_constant_columns(SEXP x);
SEXP C_standardize_columns(SEXP x, SEXP threads);
SEXP C_select(SEXP x, SEXP opts);
SEXP C_mrmr(SEXP x, SEXP opts);
SEXP C_clinical(SEXP za, SEXP cat, SEXP opts);
SEXP C_clinical_dot(SEXP z, SEXP cat, SEXP W, SEXP threads);
SEXP C_randsel_iter(SEXP x, SEXP cols, SEXP opts);
SEXP C_randsel_draws(SEXP n_boot, SEXP m, SEXP s, SEXP n, SEXP h);
SEXP C_randsel_seeds(SEXP n_boot);
SEXP C_randsel_align(SEXP x, SEXP cols, SEXP seeds, SEXP opts);
SEXP C_randsel_contrib(SEXP seeds, SEXP a_half, SEXP a_plus, SEXP opts);
SEXP C_randsel_workspace(SEXP m, SEXP p, SEXP s, SEXP threads);
SEXP C_lsmi_sqdist(SEXP x, SEXP cen, SEXP w);
SEXP C_lsmi_gauss(SEXP sq, SEXP sigma);
SEXP C_lsmi_delta(SEXP cls, SEXP cen);
SEXP C_lsmi_fit(SEXP phix, SEXP phiy, SEXP lambda);
SEXP C_lsmi_cv(SEXP sqx, SEXP phiy, SEXP fold, SEXP sigmas, SEXP lambdas);
SEXP C_lsmi_grad(SEXP x, SEXP cen, SEXP w, SEXP sigma, SEXP lambda, SEXP phiy,
                 SEXP Gy);
SEXP C_l1hsic_grad(SEXP x, SEXP w, SEXP gamma, SEXP W);
SEXP C_l1_project(SEXP v, SEXP z);
SEXP C_hsic_vgrad(SEXP x, SEXP w, SEXP gamma, SEXP W, SEXP part, SEXP threads);
SEXP C_ichol(SEXP x, SEXP opts);
SEXP C_lowrank_hsic(SEXP G, SEXP F);
SEXP C_rff(SEXP x, SEXP W, SEXP b);
SEXP C_rff_hsic(SEXP x, SEXP F, SEXP opts);
SEXP C_rff_hsic2(SEXP x, SEXP y, SEXP opts);
SEXP C_ridge_select(SEXP x, SEXP W, SEXP opts);
SEXP C_perm_stats(SEXP xt, SEXP perm, SEXP opts);
SEXP C_maxt_count(SEXP stat, SEXP opts);
SEXP C_maxt_fused(SEXP xt, SEXP perm, SEXP opts);
SEXP C_codes(void);
SEXP C_rank_sums(SEXP x, SEXP opts);
SEXP C_pair_top(SEXP x, SEXP W, SEXP opts);
SEXP C_pair_top_lowrank(SEXP x, SEXP U, SEXP opts);
SEXP C_pair_top_bytes(SEXP opts);
SEXP C_centre_columns(SEXP x);
SEXP C_project_out(SEXP v, SEXP Q, SEXP transform, SEXP threads);
SEXP C_bounded_columns(SEXP x, SEXP threads);
SEXP C_column_products(SEXP x, SEXP i, SEXP j, SEXP threads);
SEXP C_gamma_upper_tail(SEXP z, SEXP shape);

static const R_CallMethodDef call_methods[] = {
  {"C_gram", (DL_FUNC) &C_gram, 2},
  {"C_median_pairwise", (DL_FUNC) &C_median_pairwise, 3},
  {"C_median_columns", (DL_FUNC) &C_median_columns, 3},
  {"C_hsic_stats", (DL_FUNC) &C_hsic_stats, 2},
  {"C_hsic_stats_x", (DL_FUNC) &C_hsic_stats_x, 5},
  {"C_hsic_gamma_x", (DL_FUNC) &C_hsic_gamma_x, 5},
  {"C_hsic_perm", (DL_FUNC) &C_hsic_perm, 3},
  {"C_hsic_gamma", (DL_FUNC) &C_hsic_gamma, 2},
  {"C_feature_dot", (DL_FUNC) &C_feature_dot, 3},
  {"C_feature_hsic_test", (DL_FUNC) &C_feature_hsic_test, 2},
  {"C_pair_scores", (DL_FUNC) &C_pair_scores, 2},
  {"C_feature_moments", (DL_FUNC) &C_feature_moments, 3},
  {"C_feature_project", (DL_FUNC) &C_feature_project, 2},
  {"C_eb_permuted", (DL_FUNC) &C_eb_permuted, 5},
  {"C_feature_cor", (DL_FUNC) &C_feature_cor, 2},
  {"C_rank_desc", (DL_FUNC) &C_rank_desc, 2},
  {"C_p_adjust_bh", (DL_FUNC) &C_p_adjust_bh, 2},
  {"C_f_dist_sums", (DL_FUNC) &C_f_dist_sums, 4},
  {"C_mt_common", (DL_FUNC) &C_mt_common, 5},
  {"C_mt_posterior", (DL_FUNC) &C_mt_posterior, 6},
  {"C_two_sided_t", (DL_FUNC) &C_two_sided_t, 2},
  {"C_cor_test", (DL_FUNC) &C_cor_test, 2},
  {"C_mean_diff", (DL_FUNC) &C_mean_diff, 2},
  {"C_t_from_moments", (DL_FUNC) &C_t_from_moments, 5},
  {"C_cox_scores", (DL_FUNC) &C_cox_scores, 2},
  {"C_scale_pow2", (DL_FUNC) &C_scale_pow2, 3},
  {"C_scale_columns", (DL_FUNC) &C_scale_columns, 2},
  {"C_first_nonfinite", (DL_FUNC) &C_first_nonfinite, 1},
  {"C_first_unnamed", (DL_FUNC) &C_first_unnamed, 1},
  {"C_constant_columns", (DL_FUNC) &C_constant_columns, 1},
  {"C_standardize_columns", (DL_FUNC) &C_standardize_columns, 2},
  {"C_select", (DL_FUNC) &C_select, 2},
  {"C_mrmr", (DL_FUNC) &C_mrmr, 2},
  {"C_clinical", (DL_FUNC) &C_clinical, 3},
  {"C_clinical_dot", (DL_FUNC) &C_clinical_dot, 4},
  {"C_randsel_iter", (DL_FUNC) &C_randsel_iter, 3},
  {"C_randsel_draws", (DL_FUNC) &C_randsel_draws, 5},
  {"C_randsel_seeds", (DL_FUNC) &C_randsel_seeds, 1},
  {"C_randsel_align", (DL_FUNC) &C_randsel_align, 4},
  {"C_randsel_contrib", (DL_FUNC) &C_randsel_contrib, 4},
  {"C_randsel_workspace", (DL_FUNC) &C_randsel_workspace, 4},
  {"C_lsmi_sqdist", (DL_FUNC) &C_lsmi_sqdist, 3},
  {"C_lsmi_gauss", (DL_FUNC) &C_lsmi_gauss, 2},
  {"C_lsmi_delta", (DL_FUNC) &C_lsmi_delta, 2},
  {"C_lsmi_fit", (DL_FUNC) &C_lsmi_fit, 3},
  {"C_lsmi_cv", (DL_FUNC) &C_lsmi_cv, 5},
  {"C_lsmi_grad", (DL_FUNC) &C_lsmi_grad, 7},
  {"C_l1hsic_grad", (DL_FUNC) &C_l1hsic_grad, 4},
  {"C_l1_project", (DL_FUNC) &C_l1_project, 2},
  {"C_hsic_vgrad", (DL_FUNC) &C_hsic_vgrad, 6},
  {"C_ichol", (DL_FUNC) &C_ichol, 2},
  {"C_lowrank_hsic", (DL_FUNC) &C_lowrank_hsic, 2},
  {"C_rff", (DL_FUNC) &C_rff, 3},
  {"C_rff_hsic", (DL_FUNC) &C_rff_hsic, 3},
  {"C_rff_hsic2", (DL_FUNC) &C_rff_hsic2, 3},
  {"C_ridge_select", (DL_FUNC) &C_ridge_select, 3},
  {"C_perm_stats", (DL_FUNC) &C_perm_stats, 3},
  {"C_maxt_count", (DL_FUNC) &C_maxt_count, 2},
  {"C_maxt_fused", (DL_FUNC) &C_maxt_fused, 3},
  {"C_codes", (DL_FUNC) &C_codes, 0},
  {"C_rank_sums", (DL_FUNC) &C_rank_sums, 2},
  {"C_pair_top", (DL_FUNC) &C_pair_top, 3},
  {"C_pair_top_lowrank", (DL_FUNC) &C_pair_top_lowrank, 3},
  {"C_pair_top_bytes", (DL_FUNC) &C_pair_top_bytes, 1},
  {"C_centre_columns", (DL_FUNC) &C_centre_columns, 1},
  {"C_project_out", (DL_FUNC) &C_project_out, 4},
  {"C_bounded_columns", (DL_FUNC) &C_bounded_columns, 2},
  {"C_column_products", (DL_FUNC) &C_column_products, 4},
  {"C_gamma_upper_tail", (DL_FUNC) &C_gamma_upper_tail, 2},
  {"C_scratch_info", (DL_FUNC) &C_scratch_info, 0},
  {NULL, NULL, 0}
};

void attribute_visible R_init_bahsic(DllInfo *dll)
{
  R_registerRoutines(dll, NULL, call_methods, NULL, NULL);
  R_useDynamicSymbols(dll, FALSE);
  R_forceSymbols(dll, TRUE);
}

void attribute_visible R_unload_bahsic(DllInfo *dll)
{
  (void) dll;
  bk_scratch_free();
}
