# A change of units (x * 1000, x / 1000) must not change which features any
# default selects: the selectors standardise the features (or, with the
# clinical kernel, divide by their range) and the kernel widths scale with the
# data. One test per kernel and one per selector, with the defaults.

scale_data <- function(seed = 1, m = 40, d = 8) {
  set.seed(seed)
  x <- matrix(rnorm(m * d), m, d, dimnames = list(NULL, paste0("g", seq_len(d))))
  # two features that matter jointly (XOR) and one on its own, at scales of
  # their own, so that no two scores tie
  y <- factor(ifelse(xor(x[, 1] > 0, x[, 2] > 0), "p", "q"))
  x[, 3] <- x[, 3] + 1.2 * (y == "p")
  x <- sweep(x, 2L, 2^seq(-3, 4, length.out = d), "*")
  list(x = x, y = y, num = x[, 3] + x[, 1]^2 + rnorm(m, sd = 0.3))
}

same_selection <- function(fit_at, what) {
  base <- fit_at(1)
  # (under valgrind x * 1000 only: the same C paths)
  for (s in test_cases(c(1000, 1 / 1000), 1L)) {
    got <- fit_at(s)
    expect_identical(got, base, info = sprintf("%s at x * %g", what, s))
  }
}

test_that("every kernel selects the same features in any units (bahsic, fohsic)", {
  d <- scale_data()
  kernels <- list(gaussian = kernel_gaussian(), laplace = kernel_laplace(),
                  linear = kernel_linear(), polynomial = kernel_polynomial(),
                  inverse_distance = kernel_inverse_distance(),
                  ridge = kernel_ridge(1), ridge_gaussian = kernel_ridge(1, kernel_gaussian()),
                  parzen = kernel_parzen(0.8))
  for (nm in names(kernels)) {
    k <- kernels[[nm]]
    same_selection(function(s) bahsic(d$x * s, d$y, kernel = k, threads = 1)$ranking,
                   paste("bahsic", nm))
    same_selection(function(s) fohsic(d$x * s, d$y, kernel = k, n_features = 4,
                                      threads = 1)$ranking, paste("fohsic", nm))
  }
  # the clinical kernel divides the continuous features by their range
  df <- data.frame(d$x, grp = factor(rep(c("u", "v", "w", "u"), 10)))
  same_selection(function(s) {
    df[1:8] <- df[1:8] * s
    bahsic(df, d$y, kernel = kernel_clinical(), threads = 1)$ranking
  }, "bahsic clinical")
  # a numeric outcome in any units too (the label kernel's width scales)
  same_selection(function(s) bahsic(d$x * s, d$num * s, threads = 1)$ranking,
                 "bahsic numeric outcome")
})

test_that("every selector selects the same features in any units", {
  d <- scale_data(2)
  same_selection(function(s) {
    set.seed(3)
    randsel(d$x * s, d$y, n_boot = 50, threads = 1)$ranking
  }, "randsel")
  same_selection(function(s) {
    set.seed(3)
    selected(l1_lsmi(d$x * s, d$y, n_features = 3, restarts = 1, n_basis = 20, folds = 3), 3)
  }, "l1_lsmi")
  same_selection(function(s) {
    set.seed(3)
    selected(l1_hsic(d$x * s, d$y, n_features = 3, restarts = 1), 3)
  }, "l1_hsic")
  same_selection(function(s) {
    fit <- hsic_weights(d$x * s, d$y, lambda = 1e-4, max_iter = 5, threads = 1)
    selected(fit, 3)
  }, "hsic_weights")
  same_selection(function(s) bahsic(d$x * s, unsupervised = TRUE, threads = 1)$ranking,
                 "unsupervised bahsic")
  skip_peer("kernlab")
  same_selection(function(s) clinical_rfe(as.data.frame(d$x * s), d$y, threads = 1)$ranking, "clinical_rfe")
  same_selection(function(s) {
    clinical_rfe(as.data.frame(d$x * s), d$y, importance = "mkl", threads = 1)$ranking
  }, "clinical_rfe mkl")
})

test_that("every per-feature score ranks the same in any units", {
  d <- scale_data(4)
  y3 <- factor(rep(c("a", "b", "c", "c"), 10))
  for (method in c("pc", "lin", "t", "snr", "mt", "lods", "pam", "mmd", "kta", "hsic")) {
    y <- if (method == "pc") d$num else if (method == "pam") y3 else d$y
    same_selection(function(s) {
      feature_scores(d$x * s, y, method = method, threads = 1)$rank
    }, paste("feature_scores", method))
  }
  # the default method of each kind of outcome
  for (y in list(d$y, y3, d$num)) {
    same_selection(function(s) suppressMessages(feature_scores(d$x * s, y, threads = 1))$rank,
                   "feature_scores default")
  }
})
