# ---- kernel dependence given a study design ------------------------------------------
# Under a design (R/design.R) the label side is residualised: the label kernel
# matrix L becomes W = P L P, with P = I - Q Q' the projection off the span of
# the intercept, the covariates and the block indicators (P contains the
# centring H, because the intercept is in Q), and a low-rank label factor F
# (L ~ F F') becomes P F. The data kernel K is unchanged: P is idempotent, so
# tr(K P L P) = tr(PKP PLP), the HSIC of the residualised kernels; with the
# linear kernels on x and y it is the squared partial covariance (x'Py)^2.
# Permuting the labels within the strata commutes with P (the strata's
# indicators are in the span of Q), so the null distribution of tr(K W) under
# those permutations is that of tr(PKP pi W pi'); with a continuous covariate
# the same form is the permutation of residuals (Freedman and Lane 1983):
# the residuals P y permuted and residualised again give P pi W pi' P.

# P W P for a symmetric m x m W (W itself without a design). A weight matrix
# of the selectors (weight_matrix(lab, m, "biased") = HLH / (m - 1)^2) goes in
# as it is: P H = P, so the result is P L P / (m - 1)^2.
design_weights <- function(design, W) {
  if (is.null(design)) return(W)
  PW <- design_residuals(design, W)
  PWP <- t(design_residuals(design, t(PW)))
  (PWP + t(PWP)) / 2
}

# P F for a label factor F (m x s, L ~ F F'): the factor of P L P.
design_factor <- function(design, F) {
  if (is.null(design)) return(F)
  design_residuals(design, as.matrix(F))
}
