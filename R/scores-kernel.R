# DOC: (for ?feature_scores, "P-values" of the kernel methods)
# Each feature is also tested for independence of the outcome by HSIC with
# the method's kernels: for "mmd" the balanced binary label kernel, for
# "kta" the test of independence by HSIC with the same K and L (the
# alignment tr(K L) itself changes with the centring; tr(K H L H) is the
# statistic), for "hsic" its own kernels. By default the biased statistic
# tr(K H L H) is compared with a gamma distribution that has its exact mean
# and variance over the permutations of the samples (Kazi-Aoual et al. 1995;
# Josse, Pages and Husson 2008, section 2.2), in the spirit of Gretton et
# al. 2008, section 3, whose asymptotic moments (hsic_test(method =
# "gamma")) are too liberal at small m (KS distance 0.10-0.26 on null genes
# at m = 10-20). Measured on 2,000 null genes (N(0, 1) or exp(N(0, 1))) per
# cell, m = 10 to 200, two balanced or unbalanced classes or a numeric
# outcome (inst/bench/bench-kernel-test.R): the fraction of p < 0.05 was
# within 0.013 of 0.05 in every cell; the Kolmogorov-Smirnov distance from
# the uniform was at most 0.055 with the Gaussian kernel and 0.068 with the
# Laplace kernel (0.030 is the 5% point for exactly uniform p-values), so
# the approximation is good at the usual 0.05 level and in the bulk, but
# not exact in the far tail, and the Laplace kernel's null is fitted less
# well than the Gaussian's. With n_perm, the p-values are permutation
# p-values (1 + #{T_b >= T}) / (1 + n_perm), valid at any m, the
# permutations drawn once from R's random number generator (set.seed()
# fixes them; block_size, threads and the back end do not change them);
# the permuted statistic is the score itself for "hsic" and "mmd". A
# constant feature has p = 1 (no dependence); with fewer than 4 samples
# the gamma p-value is NA, with a warning (inference_p_values(), R/scores.R)
# that suggests n_perm.

# The kernel scores of feature_scores() (mmd, kta, hsic), a block of features
# at a time.

# mmd, kta, hsic: each is sum_ab K_j(a, b) W_ab for a weight matrix W made
# once from the labels (see weight_matrix()); a block needs only W.
#
# Every part also has `p_value`, a test of independence of each feature and
# the outcome (see the DOC block above): the gamma approximation by default,
# or, with n_perm permutations, (1 + #{T_perm >= T}) / (1 + n_perm), the
# permutations drawn here, once, from the caller's RNG (so the p-values do
# not depend on block_size, threads or the back end).
kernel_block_scorer <- function(y, m, method, kernel, kernel_y, estimator, threads,
                                n_perm = NULL, design = NULL) {
  check_kernel(kernel, "kernel", where = "in feature_scores()")
  if (kernel$name == "precomputed") {
    stop("A precomputed kernel cannot be applied to single features; give a kernel function.",
         call. = FALSE)
  }
  # the method's label kernel, weights and permuted statistic (score_table)
  spec <- score_row(method)$kernel
  y <- design_outcome(design, y)
  if (spec$label == "balanced") {
    kernel_y <- label_kernel_binary(balanced = TRUE)
  } else if (is.null(kernel_y)) {
    kernel_y <- if (spec$label == "two classes" && is.factor(y) && nlevels(y) == 2L) {
      label_kernel_binary(balanced = FALSE)
    } else {
      default_label_kernel(y)
    }
  }
  # the labels as the selectors make them (problem_labels(), R/problem.R):
  # W for HSIC; for MMD and KTA the label Gram matrix itself (eq. 26: the
  # balanced binary L is centred, so tr(KHLH) = tr(KL))
  full_label <- kernel_y$type == "regression" && kernel_y$params$kernel$name != "linear"
  pr <- problem_labels(
    list(m = m, y = y, kernel_y = kernel_y, threads = threads, estimator = estimator),
    list(labels = spec$weights,
         # what a block's call holds: W and H L H (the scorer's), the
         # workspace of C_feature_hsic_test (the label side and W packed, a
         # half matrix more for the permutations' weights, and a packed
         # kernel per thread); and a full label kernel
         memory = function(pr) {
           check_memory(m, 3 + (!is.null(n_perm) + threads) / 2 + full_label)
         }))
  lab <- pr$label
  W <- if (spec$weights == "W") pr$W else if (is.null(lab$Y)) lab$L else tcrossprod(lab$Y)
  median_width <- kernel_has(kernel, "width") && is.null(kernel$params$sigma)
  if (!is.null(design)) {
    if (spec$weights == "W" && estimator == "unbiased") {
      design_refuse(sprintf("method = \"%s\" with estimator = \"unbiased\"", method), paste0(
        "the unbiased HSIC1 has no form on residualised kernels. Use estimator = \"biased\"."))
    }
    # the label side residualised (R/design-kernel.R): the score tr(K P L P)
    # (/ df^2 for hsic), its test on the residualised pair
    return(design_block_scorer(W, lab, spec, kernel, median_width, threads, n_perm, design))
  }
  test <- test_label_side(if (is.null(lab$Y)) lab$L else tcrossprod(lab$Y), m)
  if (!is.null(n_perm)) {
    n_perm <- check_whole(n_perm, "n_perm", 1L)
    # the draws and the 0-based copy C_feature_hsic_test reads
    check_perm_size(n_perm, m, copies = 2)
    # the statistic permuted: the score itself for hsic and mmd (sum K_j o W),
    # HSIC with the same K and L for kta (tr(K L) is not invariant to
    # centring, tr(K HLH) is)
    test$Wt <- if (spec$permuted == "centred") test$Lc else W
    test$perms <- matrix(vapply(seq_len(n_perm), function(i) sample.int(m), integer(m)) - 1L,
                         nrow = m)
  }
  feature_dot_scorer(W, kernel$name, kernel_code(kernel), kernel_param(kernel), median_width,
                     threads, option_simd(), test, isTRUE(kernel$normal_scores))
}

# The data kernel of the kernel methods when `kernel` is not given: the
# Gaussian with the median heuristic's width per feature; for a censored
# survival outcome the polynomial kernel (x x' + 2)^2 on each feature's
# normal scores, standardised (feature_dot_scorer()), whose features are in
# effect (2 x, x^2): the linear part is the Cox score at beta = 0 (of the
# normal scores), the quadratic one sees U-shaped hazards; the offset 2
# weighs the linear part twice as much as offset 1 does. The normal scores
# give every feature the same null distribution, so that the ranking by
# score is the ranking by p-value (with the standardised values a
# heavy-tailed gene's square inflated its score), and no outlier dominates.
# Chosen by measurement (inst/bench/bench-survival-kernel.R, section 6;
# ?label_kernel_survival).
default_data_kernel <- function(y) {
  if (is.null(y) || !is_surv(y)) return(kernel_gaussian())
  kernel <- kernel_polynomial(2, 2)
  kernel$normal_scores <- TRUE
  kernel$label <- "polynomial kernel (<x, x'> + 2)^2 on each feature's normal scores"
  kernel
}

# Each column replaced by its normal scores, qnorm((rank - 1/2) / m), ties
# given their mean rank (a constant column is 0).
normal_scores <- function(b) {
  m <- nrow(b)
  out <- stats::qnorm((apply(b, 2L, rank) - 0.5) / m)
  dim(out) <- dim(b)
  out
}

# The label side of the per-feature tests, made once (C_feature_hsic_test,
# src/kernel_test.c): Lc = H L H and its traces tb, ub, wb of the exact
# permutation mean and variance of tr(K H L H) (Kazi-Aoual et al. 1995, as
# in Josse, Pages and Husson 2008, section 2.2). L is first divided by a
# power of two (exact) near its largest |value|, which changes no p-value
# and keeps the squares finite at any scale.
test_label_side <- function(L, m) {
  top <- max(abs(L))
  if (is.finite(top) && top > 0) L <- L * 2^-ceiling(log2(top))
  r <- rowMeans(L)
  Lc <- L - outer(r, r, "+") + mean(r)
  tb <- sum(diag(Lc))
  tb2 <- sum(Lc * Lc)
  list(Lc = Lc, tb = tb, ub = (m - 1) * tb2 - tb^2,
       wb = m * (m + 1) * sum(diag(Lc)^2) - (m - 1) * (tb^2 + 2 * tb2))
}

# Made apart so that the closure a worker receives holds W and the kernel's
# parameters, not the label kernel of the caller.
feature_dot_scorer <- function(W, name, code, par, median_width, threads, simd, test,
                               by_normal_scores = FALSE) {
  function(b) {
    scan <- .Call(C_first_nonfinite, b)
    if (scan[1L] > 0) return(list(bad = scan[1L]))
    constant <- constant_features(b)
    if (by_normal_scores) {
      # the default kernel for a survival outcome (default_data_kernel()):
      # each column by its normal scores, then centred and scaled to unit
      # variance (sd with m - 1, as scale()); a constant one is 0 (its
      # kernel constant as before)
      b <- .Call(C_standardize_columns, normal_scores(b), threads)[[1L]]
      scan[2L] <- max(abs(b))
    }
    if (median_width) {
      # The median heuristic is per feature: a block's widths are its own.
      # sigma = 1 / median distance (squared for the Gaussian) makes the
      # kernel of a feature that of the feature divided by any constant, so
      # each is first divided by a power of two that brings its largest
      # |value| into [0.5, 1) -- exact, and the same numbers for data of
      # ordinary size -- where its squared distances neither underflow (to a
      # median of 0) nor overflow at any scale of the data. Residue near 0
      # (values of 1e-134 beside values near 1) ties with 0 by the rule for
      # ties (?kernels), so that every feature that is not constant has a
      # width.
      b <- .Call(C_scale_columns, b, threads)
      p1 <- feature_sigmas(name, b, threads)
    } else {
      # a kernel with fixed parameters sees the data's own scale, where
      # squared distances and products must not overflow
      if (scan[2L] > 1e150) too_large_error()
      # a linear or polynomial kernel on one feature: its largest value is
      # that of the block's largest |value|
      if (name %in% c("linear", "polynomial")) {
        check_kernel_range(list(name = name, params = list(degree = par[1L], offset = par[2L])),
                           matrix(scan[2L], nrow(b), 1L))
      }
      p1 <- par[1L]
    }
    # the options of C_feature_dot and C_feature_hsic_test, read by name in C
    # (src/gram_call.c, src/kernel_test_call.c); p1 one parameter, or a
    # width per feature
    opts <- list(kernel = code, p1 = as.double(p1), p2 = as.double(par[2L]), threads = threads,
                 simd = simd)
    out <- feature_dot_tested(b, W, opts, test, constant)
    list(score = out$score, constant = constant, bad = 0, p_value = out$p_value)
  }
}

# The scores of a block and their p-values (see the DOC block): gamma, or
# permutations when test$perms is given. The score, sum_ab K_j(a, b) W_ab,
# comes with the test from the kernel the test makes (C_feature_hsic_test
# gives C_feature_dot's number to the last bit), so that each feature's
# kernel is made once; under a design without permutations the gamma test
# is on the residualised pair (design_feature_gamma()) and the score is
# C_feature_dot's. A constant feature has a constant kernel: no dependence
# on the outcome, p = 1 (its permuted statistics all tie with the observed
# one, and the gamma test, undefined there, is given the same).
feature_dot_tested <- function(b, W, opts, test, constant) {
  if (!is.null(test$design) && is.null(test$perms)) {
    p <- design_feature_gamma(b, opts, test)
    p[constant] <- 1
    return(list(score = .Call(C_feature_dot, b, W, opts), p_value = p))
  }
  opts <- c(opts, test[c("Lc", "tb", "ub", "wb")], list(W = W))
  if (!is.null(test$perms)) opts <- c(opts, test[c("Wt", "perms")])
  out <- .Call(C_feature_hsic_test, b, opts)
  p <- if (is.null(test$perms)) {
    # NaN shape: fewer than 4 samples, or a constant kernel (NA); the upper
    # tails in C (src/gamma_call.c), as stats::pgamma(lower.tail = FALSE)
    .Call(C_gamma_upper_tail, out$z, out$shape)
  } else {
    (1 + out$count) / (1 + ncol(test$perms))
  }
  p[constant] <- 1
  list(score = out$score, p_value = p)
}
