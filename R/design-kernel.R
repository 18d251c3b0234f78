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

#' @section Covariates and blocks:
#' With `covariates` or `block` (see [design]) `hsic()` and `hsic_test()`
#' measure the dependence of `x` and `y` given the design. With \eqn{Q} an
#' orthonormal basis of the intercept, the covariates' model matrix and the
#' block indicators, and \eqn{P = I - QQ^\top}: the features are residualised,
#' \eqn{Px} (a numeric outcome too, \eqn{Py}), the data kernel \eqn{K} is
#' computed on them, and the label kernel matrix becomes \eqn{W = PLP}; the
#' estimate is \eqn{\mathrm{tr}(KPLP) / \nu^2}, \eqn{\nu = m - \mathrm{rank}(Q)}
#' (HSIC0 when the design is the intercept alone). With linear kernels it is
#' the squared partial covariance of `x` and `y` given the covariates, and on
#' features standardised after the projection its ranking of features is that
#' of the partial correlation. Only the biased estimator has this form
#' (`estimator = "unbiased"` is an error with a design); `approx = "ichol"`
#' and `"rff"` project the label factor (\eqn{PF}); `"block"` is refused
#' (random blocks of samples cut across the strata). The adjustment removes
#' what is linear in the covariates' columns: for a curved dependence on a
#' continuous covariate put its curve in the formula (`~ poly(age, 2)`,
#' `~ splines::ns(age, 3)`).
#'
#' P-values (`hsic_test()`): permutations of the labels within the strata
#' (the levels of the discrete covariates crossed with the blocks), exact for
#' discrete covariates and blocks, since such permutations commute with
#' \eqn{P}; with a continuous covariate, permutations of the outcome's
#' residuals (Freedman and Lane 1983), which is the same operation on
#' \eqn{W}. The gamma test matches the mean and variance of that permutation
#' distribution: exactly (Kazi-Aoual et al. 1995) for the permutation of
#' residuals and for a full-rank label kernel, from the pair \eqn{PKP, PLP};
#' for classes (or a linear label kernel) within pairs (every stratum two
#' samples, as `block` makes them), exactly: a permutation within the pairs
#' swaps each pair or not, which changes the sign of its two label rows, so
#' the statistic is a quadratic form in independent signs; within other
#' strata, from 200 permutations within them, drawn from R's generator (use
#' [set.seed()]). The moments of all permutations are far from those within
#' small strata such as pairs. For pairs the gamma is near the limit of its
#' fit (D = 0.048 to 0.061 over three sets of 2,000 null genes, 50 pairs,
#' with 200 or 1,000 draws; 0.054 to 0.075 with the exact moments, whose
#' P(p < 0.05) was 0.047 to 0.055: the misfit is in the statistic's lower
#' tail, p-values above 0.7 are too small); the permutation test is exact
#' there.
#'
#' **Why this adjustment.** Three were measured
#' (`inst/bench/bench-design-kernel.R full`; m = 100, Gaussian kernels with
#' the median width): (a) the label side projected with the data kernel on
#' the raw features, (a+) the same with the features residualised first (the
#' choice), (b) HSIC summed within the levels of a discrete covariate, and
#' (c) residuals in the kernel space by kernel ridge regression on a kernel
#' of the covariates, the idea of the kernel conditional independence test of
#' Zhang, Peters, Janzing and Schoelkopf (2011). Calibration on 2,000 null
#' genes (Kolmogorov-Smirnov distance D from the uniform, and P(p < 0.05)):
#' with x and two classes both depending on 4 batches, (a+) D = 0.033 and
#' 0.045 (200 permutations within the batches: 0.026, 0.044; unadjusted 0.57,
#' 0.59); paired samples with a patient effect, `block = patient`, 0.058 and
#' 0.047 (permutations within the pairs 0.019, 0.049); x and y both linear in
#' a continuous z, adjusted for `~ z`, 0.034 and 0.054 (unadjusted 0.86,
#' 0.90); both depending on \eqn{z^2}, adjusting for `~ z` failed (0.998) and
#' for `~ z + I(z^2)` passed (0.035, 0.053). (b) with z cut at its quintiles
#' failed (D = 0.055 and 0.78, P = 0.077 and 0.78), and (c), with gamma
#' moments in place of its own null and ridge 1e-3, failed for z (D = 0.11,
#' P = 0.11 and 0.10). Power at p < 0.05 over 200 data sets with the classes
#' confounded with the batches: on a U-shaped gene within the batches (a+)
#' 0.985, (b) 0.94, (a) and (c) 0.49, unadjusted 0.62; on an XOR pair within
#' the batches (a+) 0.99, (b) 0.82, (a) and (c) 0.34, unadjusted 0.12. On the
#' raw features the batch shifts dominate the kernel and its median width,
#' which costs (a) and (c) their power; (b) is confined to discrete
#' covariates.
#' @references Freedman, D. and Lane, D. (1983). A nonstochastic
#'   interpretation of reported significance levels. Journal of Business and
#'   Economic Statistics 1, 292-298.
#'
#'   Zhang, K., Peters, J., Janzing, D. and Schoelkopf, B. (2011).
#'   Kernel-based conditional independence test and application in causal
#'   discovery. UAI 27, 804-813.
#' @name hsic
NULL

#' @section Kernel methods with covariates:
#' `"hsic"`, `"kta"` and `"mmd"` take `covariates` and `block` (see
#' [design]): each feature is residualised on the design (\eqn{Px}, \eqn{P = I
#' - QQ^\top}, \eqn{Q} an orthonormal basis of the intercept, covariates and
#' block indicators), a numeric outcome too, and the label kernel matrix
#' \eqn{L} becomes \eqn{PLP}: the score is \eqn{\mathrm{tr}(K_j PLP)}
#' (divided by \eqn{\nu^2}, \eqn{\nu = m - \mathrm{rank}(Q)}, for `"hsic"`,
#' which takes only the biased estimator with a design). For two classes
#' `"mmd"` is then the discrepancy between the classes within the batches.
#' The gamma p-values match the mean and variance of the permutations of
#' the design (see "Covariates and blocks" in [hsic()]: for classes within
#' pairs exactly, within other strata from 200 permutations within them,
#' drawn from R's generator; otherwise exactly, from the residualised pair
#' \eqn{PK_jP, PLP}). They cost more than without a design (2,000 genes,
#' m = 128, one thread, a shared machine: 0.68 s in 64 pairs and 3.2 s with
#' a four-level batch, against 0.13 s); with `n_perm` the labels are
#' permuted within the strata (exact for discrete covariates and blocks); a
#' continuous covariate with `n_perm` is an error (the permutation of
#' residuals would need each feature's residualised kernel for every
#' permutation: use the gamma p-values, or [hsic_test()] for a set of
#' features). Measured on 2,000 null genes confounded with 4 batches, with
#' patients of paired samples or with a continuous covariate, the adjusted
#' p-values were uniform (D at most 0.058, P(p < 0.05) between 0.044 and
#' 0.054) and the unadjusted ones were not; see
#' "Covariates and blocks" in [hsic()] for the figures and why this
#' adjustment (against stratified HSIC and the kernel-space residuals of
#' Zhang et al. 2011).
#' @name feature_scores
NULL

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

# The estimator of hsic() under a design: the biased one, tr(K P L P) / df^2
# (without a design, `estimator` as given). The unbiased HSIC1 has no
# residualised form: with a design it is refused by name when asked for.
hsic_design_estimator <- function(design, estimator, given) {
  if (is.null(design) || !given) {
    return(if (is.null(design)) arg_match(estimator, c("unbiased", "biased")) else "biased")
  }
  if (arg_match(estimator, c("biased", "unbiased")) == "unbiased") {
    design_refuse("estimator = \"unbiased\"", paste0(
      "the unbiased HSIC1 (Song et al. 2012, eq. 5) has no form on residualised kernels. ",
      "Use estimator = \"biased\" (the default with a design), tr(K P L P) / df^2."))
  }
  "biased"
}

# The residualised label of a problem: list(W = P L P) for a full label Gram
# matrix, or list(Y = P F) for a low-rank one (L = F F'), as label_arg() reads
# it; `stat` = tr(K P L P) for the data kernel K.
design_label <- function(design, lab) {
  if (is.null(lab$Y)) return(list(L = design_weights(design, lab$L)))
  list(Y = design_factor(design, lab$Y))
}
design_trace <- function(K, dl) {
  if (is.null(dl$Y)) sum(K * dl$L) else sum((K %*% dl$Y) * dl$Y)
}

# hsic() on the exact path under a design (see the top of this file).
hsic_design_result <- function(prep, approx, call) {
  design <- prep$design
  stat <- design_trace(prep$K, design_label(design, prep$label))
  hsic0 <- stat / design$df^2
  structure(list(estimate = hsic0, estimator = "biased", se = NA_real_, hsic0 = hsic0,
                 hsic1 = NA_real_, m = prep$m, kernel = attr(prep$K, "kernel"),
                 kernel_y = prep$label$kernel, call = call, approx = approx,
                 design = design),
            class = "bahsic_hsic")
}

# The exact mean and variance of T = tr(A pi B pi') over all permutations pi
# of the samples, A and B doubly centred (Kazi-Aoual et al. 1995; Josse, Pages
# and Husson 2008, section 2.2), as bk_perm_moments() (src/kernel_test.c).
perm_moments <- function(A, B) {
  tr <- function(S) c(t = sum(diag(S)), t2 = sum(S * S), s = sum(diag(S)^2))
  trace_moments(tr(A), tr(B), nrow(A))
}

# The same from the traces of each side: t = tr(S), t2 = tr(S^2), s = sum(diag(S)^2).
trace_moments <- function(ta, tb, m) {
  side <- function(S) {
    c(t = S[["t"]], u = (m - 1) * S[["t2"]] - S[["t"]]^2,
      w = m * (m + 1) * S[["s"]] - (m - 1) * (S[["t"]]^2 + 2 * S[["t2"]]))
  }
  a <- side(ta)
  b <- side(tb)
  c(mean = a[["t"]] * b[["t"]] / (m - 1),
    var = 2 * a[["u"]] * b[["u"]] / ((m + 1) * (m - 1)^2 * (m - 2)) +
      a[["w"]] * b[["w"]] / ((m + 1) * m * (m - 1) * (m - 2) * (m - 3)))
}

# The gamma p-value of T = tr(K P L P) under a design: the gamma with the
# mean and variance of T over the design's permutations: for a low-rank label
# within strata those of design_mc_draws permutations within them
# (design_mc_factor()), otherwise the exact moments of the residualised pair
# PKP, PLP over all permutations (perm_moments()), which with a continuous
# covariate and no block are those of the permutation of residuals (Freedman
# and Lane 1983). Measured: inst/bench/bench-design-kernel.R.
# list(stat, shape, scale, p).
design_gamma <- function(K, lab, design) {
  dl <- design_label(design, lab)
  Kr <- design_weights(design, K)
  B <- if (is.null(dl$Y)) dl$L else tcrossprod(dl$Y)
  stat <- sum(Kr * B)
  plan <- design_mc_factor(design, dl$Y)
  mo <- if (is.null(plan)) perm_moments(Kr, B) else plan_moments(K, plan)
  if (!is.finite(mo[["var"]]) || mo[["var"]] <= 0 || mo[["mean"]] <= 0) {
    return(list(stat = stat, shape = NA_real_, scale = NA_real_, p = NA_real_))
  }
  shape <- mo[["mean"]]^2 / mo[["var"]]
  scale <- mo[["var"]] / mo[["mean"]]
  list(stat = stat, shape = shape, scale = scale,
       p = stats::pgamma(stat, shape = shape, scale = scale, lower.tail = FALSE))
}

# Within strata the moments of the free permutations do not match those of
# the restricted ones when the strata are small (measured on pairs: D = 0.24,
# P(p < 0.05) = 0.20), so for a low-rank label (classes, a linear label
# kernel: B = F F', F = P Y) the mean and variance are those of
# design_mc_draws permutations within the strata, drawn from R's generator:
# T_pi = tr(F_pi' K F_pi) (F_pi = F[pi, ] stays in the range of P, so K needs
# no projection), m^2 * design_mc_draws * ncol(F) operations per feature.
# NULL (the free moments) for a full-rank label or the permutation of
# residuals.
# Pairs (every stratum two samples, whose rows of F cancel, as the projection
# off the blocks leaves them) have exact moments instead: a permutation
# within the strata keeps or swaps each pair, which changes the sign of the
# pair's rows of F, so T = s' C s with s uniform on {-1, 1}^n (n pairs) and
# C_ij = (F_ai . F_aj)(K_ai,aj - K_ai,bj - K_bi,aj + K_bi,bj) for pairs
# (a_i, b_i): E T = tr(C), Var T = 2 sum_{i != j} C_ij^2, in O(m^2) per
# feature and without random numbers.
# The plan of the moments: list(pairs = list(a, b, Fa)), list(G, k) for the
# draws, or NULL (the free moments).
design_mc_draws <- 200L
design_mc_factor <- function(design, F) {
  if (is.null(F) || design$permutation != "strata" || ncol(F) > 10L) return(NULL)
  pairs <- design_pairs(design, F)
  if (!is.null(pairs)) return(list(pairs = pairs))
  perms <- design_perms(design, design_mc_draws)
  list(G = do.call(cbind, lapply(seq_len(design_mc_draws),
                                 function(i) F[perms[, i], , drop = FALSE])),
       k = ncol(F))
}
design_pairs <- function(design, F) {
  st <- design$strata
  if (is.null(st) || any(tabulate(st, nlevels(st)) != 2L)) return(NULL)
  ab <- matrix(unlist(split(seq_len(nrow(F)), st), use.names = FALSE), 2L)
  a <- ab[1L, ]
  b <- ab[2L, ]
  if (max(abs(F[a, , drop = FALSE] + F[b, , drop = FALSE])) > 1e-8 * max(abs(F), 1e-300)) {
    return(NULL)
  }
  list(a = a, b = b, Fa = F[a, , drop = FALSE])
}
plan_moments <- function(K, plan) {
  if (!is.null(plan$pairs)) {
    pr <- plan$pairs
    C <- tcrossprod(pr$Fa) *
      (K[pr$a, pr$a] - K[pr$a, pr$b] - K[pr$b, pr$a] + K[pr$b, pr$b])
    return(c(mean = sum(diag(C)), var = 2 * (sum(C^2) - sum(diag(C)^2))))
  }
  v <- colSums(plan$G * (K %*% plan$G))
  if (plan$k > 1L) v <- colSums(matrix(v, plan$k))
  c(mean = mean(v), var = stats::var(v))
}

# The permutations of a test under a design: n_perm draws of design_shuffle()
# (within the strata; of all samples with a continuous covariate, whose
# residuals they permute), an m x n_perm integer matrix.
design_perms <- function(design, n_perm) {
  matrix(vapply(seq_len(n_perm), function(i) design_shuffle(design), integer(design$m)),
         nrow = design$m)
}

# How the permutations of a test under a design are drawn, in words.
design_perm_words <- function(design) {
  within <- if (is.null(design$strata)) "" else
    sprintf(" within %d strata", nlevels(design$strata))
  if (design$permutation == "residuals") {
    paste0("of the label's residuals", within, ", Freedman and Lane 1983")
  } else {
    paste0("of the labels", within)
  }
}

# ---- the kernel methods of feature_scores() under a design ----------------------

# The block scorer of hsic, kta and mmd under a design: the score sum K_j o W
# with W = P L P (/ df^2 for hsic's biased weights), and its test: the gamma
# with the permutation moments of the residualised pair P K_j P, W
# (design_feature_gamma()), or with n_perm the permutations within the strata
# (tr(K pi W pi') = tr(P K P pi W pi') there: P commutes with them). W_full:
# the weights or label Gram matrix the method scores against without a design.
design_block_scorer <- function(W_full, lab, spec, kernel, median_width, threads, n_perm,
                                design) {
  L <- if (is.null(lab$Y)) lab$L else tcrossprod(lab$Y)
  B <- design_weights(design, L)
  W <- if (spec$weights == "W") B / design$df^2 else B
  test <- list(Lc = B, design = design, kernel = kernel, threads = threads)
  if (!is.null(lab$Y) && is.null(n_perm)) {
    test$plan <- design_mc_factor(design, design_factor(design, lab$Y))
  }
  if (!is.null(n_perm)) {
    n_perm <- check_whole(n_perm, "n_perm", 1L)
    if (design$permutation == "residuals") {
      design_refuse("n_perm with a continuous covariate", paste0(
        "permuting residuals needs each feature's residualised kernel for every ",
        "permutation (m^2 operations per feature and permutation). Use the default gamma ",
        "p-values (the permutation moments of the residualised kernels), or ",
        "hsic_test(covariates = , method = \"permutation\") for one set of features."))
    }
    check_perm_size(n_perm, design$m, copies = 2)
    test$Wt <- W
    test$perms <- design_perms(design, n_perm) - 1L
    # the C test reads the label side's traces (unused by the permutation counts)
    test <- c(test, test_label_side(B, design$m)[c("tb", "ub", "wb")])
  }
  score <- feature_dot_scorer(W, kernel$name, kernel_code(kernel), kernel_param(kernel),
                              median_width, threads, option_simd(), test,
                              isTRUE(kernel$normal_scores))
  # each block's features residualised first (design_features()), then by
  # their normal scores where the kernel asks (default_data_kernel())
  function(b) {
    if (.Call(C_first_nonfinite, b)[1L] > 0) return(score(b))
    score(design_features(design, b))
  }
}

# The gamma p-values of a block of features under a design: per feature, its
# kernel K_j (the width the score used), T = tr(P K_j P B) = tr(K_j B) and the
# gamma with the exact mean and variance of tr(P K_j P pi B pi') over all
# permutations (perm_moments()); B = P L P. The traces of P K_j P come from
# K_j Q (m x r) without forming P K_j P (design_kernel_traces()).
design_feature_gamma <- function(b, opts, test) {
  kernel <- test$kernel
  B <- test$Lc
  Q <- test$design$Q
  m <- nrow(b)
  bt <- c(t = sum(diag(B)), t2 = sum(B * B), s = sum(diag(B)^2))
  vapply(seq_len(ncol(b)), function(j) {
    if (length(opts$p1) > 1L || kernel_has(kernel, "width")) {
      kernel$params$sigma <- opts$p1[min(j, length(opts$p1))]
    }
    K <- gram(kernel, b[, j, drop = FALSE], test$threads)
    mo <- if (is.null(test$plan)) {
      trace_moments(design_kernel_traces(K, Q), bt, m)
    } else {
      plan_moments(K, test$plan)
    }
    if (!is.finite(mo[["var"]]) || mo[["var"]] <= 0 || mo[["mean"]] <= 0) return(NA_real_)
    stats::pgamma(sum(K * B), shape = mo[["mean"]]^2 / mo[["var"]],
                  scale = mo[["var"]] / mo[["mean"]], lower.tail = FALSE)
  }, NA_real_)
}

# tr(A), tr(A^2) and sum(diag(A)^2) of A = P K P, P = I - Q Q', from K Q.
design_kernel_traces <- function(K, Q) {
  KQ <- K %*% Q
  QKQ <- crossprod(Q, KQ)
  d <- diag(K) - 2 * rowSums(KQ * Q) + rowSums((Q %*% QKQ) * Q)
  c(t = sum(d), t2 = sum(K * K) - 2 * sum(KQ * KQ) + sum(QKQ * QKQ), s = sum(d^2))
}

# The outcome as the label kernel sees it under a design: a numeric outcome
# (vector or matrix) residualised, P y, so that a non-linear label kernel
# sees no trace of the covariates (P L(y) P keeps what is non-linear in
# them); classes as they are (their label kernels are linear in the class
# indicators, so P L P is already the kernel of the residualised indicators).
# A censored outcome is not residualised: its label (R/survival-kernel.R) is
# made within the design's strata (a block, discrete covariates), which the
# outcome carries to label_gram(), and then projected off the design.
design_outcome <- function(design, y) {
  if (!is.null(design) && is_surv(y)) {
    attr(y, "bahsic_strata") <- design$strata
    return(y)
  }
  if (is.null(design) || is.null(y) || is.factor(y) || !is.numeric(y)) return(y)
  design_residuals(design, y)
}

# The features as the data kernel sees them under a design: each residualised
# on the design, P x (before any standardisation, so that "standardize" is
# the residual standardisation). Measured (inst/bench/bench-design-kernel.R):
# with the kernel on the raw features, a batch shift dominates the distances
# between samples of different batches and the median width, and the power
# on non-linear effects within the batches fell below the unadjusted test's.
# Under the null the kernel of P x is a function of x and the design, so the
# permutations within strata stay exact; with the linear kernel tr(PKP W) is
# unchanged. A feature that the design explains (a residual below 1e-10 of
# its centred norm, rounding) is set to 0: constant.
design_features <- function(design, x, kernel = NULL) {
  if (is.null(design)) return(x)
  if (!is.null(kernel) && kernel$name %in% c("clinical", "precomputed")) {
    design_refuse(sprintf("kernel_%s()", kernel$name), paste0(
      "its values cannot be residualised on the covariates (the features must be numeric ",
      "columns). Use a kernel on numeric features, such as kernel_gaussian()."))
  }
  if (!is.matrix(x)) x <- as.matrix(x)
  r <- design_residuals(design, x)
  size <- sqrt(colSums(sweep(x, 2L, colMeans(x))^2))
  tiny <- sqrt(colSums(r^2)) <= 1e-10 * size
  if (any(tiny)) r[, tiny] <- 0
  r
}
