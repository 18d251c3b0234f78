# HSIC with a censored survival outcome (the log-rank label kernel,
# label_kernel_survival(); R/survival.R) through hsic(), hsic_test() and
# feature_scores(method = "hsic"), with and without a design.

# The Breslow score of x at beta = 0 squared, U^2 = (score test) / (its
# variance), from survival::coxph() (formula may hold strata(b)).
coxph_score_sq <- function(formula, data) {
  strata <- survival::strata
  environment(formula) <- environment()
  fit <- survival::coxph(formula, data = data, ties = "breslow", init = 0, iter.max = 0)
  fit$score / fit$var[1L]
}

test_that("with a linear data kernel HSIC is the square of the Cox score at 0 (Breslow)", {
  skip_if_not_installed("survival")
  set.seed(3)
  s <- simulate_survival(40, p = 3, n_linear = 1, n_u = 0, censoring = 0.4)
  # tied times: risk sets shared
  y <- survival::Surv(round(s$y[, 1L], 1), s$y[, 2L])
  d <- data.frame(y = y, x1 = s$x[, 1L], x2 = s$x[, 2L])
  u2 <- c(coxph_score_sq(y ~ x1, d), coxph_score_sq(y ~ x2, d))
  h <- hsic(s$x[, 1L, drop = FALSE], y, kernel = kernel_linear(), estimator = "biased")
  expect_equal(h$hsic0 * 39^2, u2[1L], tolerance = 1e-10)
  fs <- feature_scores(s$x, y, method = "hsic", kernel = kernel_linear())
  expect_equal(fs$score[1:2] * 39^2, u2, tolerance = 1e-10)
  expect_equal(h$kernel_y$label, "survival label kernel (log-rank scores)")
})

test_that("the label matrix is a a' of the martingale residuals", {
  skip_if_not_installed("survival")
  y <- survival::Surv(c(5, 8, 2, 9, 4, 4, 7), c(1, 0, 1, 1, 0, 1, 1))
  a <- unname(stats::residuals(survival::coxph(y ~ 1, ties = "breslow"), type = "martingale"))
  L <- label_kernel_matrix(label_kernel_survival(), y)
  expect_equal(unname(L), tcrossprod(a), tolerance = 1e-12)
  expect_identical(default_label_kernel(y), label_kernel_survival())
})

test_that("hsic_test() takes a Surv outcome: gamma and permutations", {
  skip_if_not_installed("survival")
  set.seed(4)
  s <- simulate_survival(80, p = 2, n_linear = 0, n_u = 1, effect = 2, censoring = 0.3)
  g <- hsic_test(s$x[, s$truth$u], s$y)
  expect_true(g$p.value < 0.01)
  set.seed(1)
  p <- hsic_test(s$x[, s$truth$u], s$y, method = "permutation", n_perm = 99)
  expect_true(p$p.value <= 0.03)
  expect_equal(p$p.value * 100, round(p$p.value * 100))
  fs <- feature_scores(s$x, s$y, method = "hsic", n_perm = 49)
  expect_true(all(fs$p_value >= 1 / 50))
  # the label factor is exact (rank 1): the incomplete Cholesky of K alone
  expect_equal(hsic(s$x, s$y, approx = "ichol")$estimate, hsic(s$x, s$y)$estimate,
               tolerance = 1e-3)
})

test_that("a block or discrete covariates: log-rank scores within strata, the stratified Cox score", {
  skip_if_not_installed("survival")
  set.seed(5)
  s <- simulate_survival(40, p = 2, n_linear = 1, n_u = 0, censoring = 0.3)
  b <- factor(rep(1:4, 10))
  d <- data.frame(y = s$y, x1 = s$x[, 1L], x2 = s$x[, 2L], b = b)
  u2 <- c(coxph_score_sq(y ~ x1 + strata(b), d), coxph_score_sq(y ~ x2 + strata(b), d))
  for (fs in list(feature_scores(s$x, s$y, method = "hsic", kernel = kernel_linear(), block = b),
                  feature_scores(s$x, s$y, method = "hsic", kernel = kernel_linear(),
                                 covariates = b))) {
    # tr(K P L P) / df^2, df = 40 - 4
    expect_equal(fs$score * 36^2, u2, tolerance = 1e-10)
  }
  h <- hsic(s$x, s$y, block = b)
  expect_equal(h$estimator, "biased")
  expect_true(is.finite(hsic_test(s$x[, 1L], s$y, covariates = b)$p.value))
})

test_that("the gamma p-values of null genes are calibrated under censoring", {
  skip_if_not_installed("survival")
  skip_statistical_under_checkers("calibration of the survival kernel test")
  set.seed(6)
  p <- unlist(lapply(c(0.3, 0.6, 0.3), function(cens) {
    s <- simulate_survival(100, p = 100, n_linear = 0, n_u = 0, censoring = cens)
    feature_scores(s$x, s$y, method = "hsic")$p_value
  }))
  expect_true(abs(mean(p < 0.05) - 0.05) < 0.035)
  expect_true(stats::ks.test(p, "punif")$statistic < 0.1)
  # a batch shifting the genes and the hazard: calibrated given the batch
  set.seed(7)
  s <- simulate_survival(100, p = 100, n_linear = 0, n_u = 0, censoring = 0.3)
  batch <- factor(rep(c("a", "b"), 50))
  x <- s$x + (batch == "b")
  y <- survival::Surv(s$y[, 1L] * ifelse(batch == "b", 0.4, 1), s$y[, 2L])
  p0 <- feature_scores(x, y, method = "hsic")$p_value
  p1 <- feature_scores(x, y, method = "hsic", covariates = batch)$p_value
  expect_true(mean(p0 < 0.05) > 0.1)
  expect_true(abs(mean(p1 < 0.05) - 0.05) < 0.05)
})

test_that("a U-shaped gene that the Cox score test misses is found", {
  skip_if_not_installed("survival")
  skip_statistical_under_checkers("power of the survival kernel test")
  set.seed(8)
  s <- simulate_survival(120, p = 200, n_linear = 0, n_u = 1, effect = 1, censoring = 0.3)
  fs <- feature_scores(s$x, s$y, method = "hsic")
  u <- s$truth$u
  expect_true(fs$p_value[fs$feature == u] < 0.01)
  expect_true(fs$rank[fs$feature == u] <= 3)
  d <- data.frame(y = s$y, xu = s$x[, u])
  fit <- survival::coxph(y ~ xu, data = d, ties = "breslow", init = 0, iter.max = 0)
  expect_true(stats::pchisq(fit$score, 1, lower.tail = FALSE) > 0.05)
})

test_that("label_kernel_survival() errors name what is wrong", {
  skip_if_not_installed("survival")
  expect_error(label_kernel_survival(type = "ipcw"), "type")
  expect_error(label_kernel_survival(map = "logrank"), "map")
  expect_error(hsic(matrix(rnorm(10)), rnorm(10), kernel_y = label_kernel_survival()),
               "needs a censored survival outcome")
  y <- survival::Surv(c(5, 8, 2, 9, 4, 6), c(1, 0, 1, 1, 0, 1))
  x <- matrix(rnorm(12), 6)
  expect_error(feature_scores(x, y, method = "kta"), "censored survival outcome")
  expect_error(hsic(x, y, block = factor(rep(1:2, 3)), estimator = "unbiased"), "unbiased")
  expect_error(hsic(x, y, kernel_y = label_kernel_regression()), "label_kernel_survival")
})

test_that("the default data kernel for a Surv outcome: (x x' + 2)^2 on each gene's normal scores", {
  skip_if_not_installed("survival")
  set.seed(9)
  s <- simulate_survival(50, p = 4, n_linear = 1, n_u = 1, censoring = 0.4)
  poly <- kernel_polynomial(2, 2)
  fs <- feature_scores(s$x, s$y, method = "hsic")
  scores <- scale(apply(s$x, 2L, function(v) stats::qnorm((rank(v) - 0.5) / length(v))))
  ref <- feature_scores(scores, s$y, method = "hsic", kernel = poly)
  expect_equal(fs$score, ref$score, tolerance = 1e-10)
  expect_equal(fs$p_value, ref$p_value, tolerance = 1e-10)
  # scale-invariant: a gene's scale and shift change nothing
  x2 <- s$x
  x2[, 1L] <- 1e6 * x2[, 1L] - 40
  x2[, 2L] <- 1e-7 * (x2[, 2L] + 3)
  fs2 <- feature_scores(x2, s$y, method = "hsic")
  expect_equal(fs2$score, fs$score, tolerance = 1e-10)
  # and any increasing transformation: the normal scores are those of the ranks
  x2e <- x2
  x2e[, 3L] <- exp(x2e[, 3L])
  fs2 <- feature_scores(x2e, s$y, method = "hsic")
  expect_equal(fs2$score, fs$score, tolerance = 1e-10)
  expect_equal(fs2$p_value, fs$p_value, tolerance = 1e-10)
  # a kernel given is used as given: the raw genes, and the Gaussian
  raw <- feature_scores(x2, s$y, method = "hsic", kernel = poly)
  expect_false(isTRUE(all.equal(raw$score, fs$score)))
  expect_equal(feature_scores(s$x, s$y, method = "hsic", kernel = kernel_gaussian())$score,
               feature_scores(s$x, s$y, method = "hsic", kernel = kernel_gaussian(sigma = NULL))$score)
  expect_false(isTRUE(all.equal(
    feature_scores(s$x, s$y, method = "hsic", kernel = kernel_gaussian())$score, fs$score)))
  # with a design: residualised, then normal scores (a shift and scale change nothing)
  z <- stats::rnorm(50)
  d1 <- feature_scores(s$x, s$y, method = "hsic", covariates = z)
  d2 <- feature_scores(x2, s$y, method = "hsic", covariates = z)
  expect_equal(d2$p_value, d1$p_value, tolerance = 1e-10)
  # a constant gene: its p-value 1, with the usual warning
  x3 <- s$x
  x3[, 3L] <- 2
  expect_warning(f3 <- feature_scores(x3, s$y, method = "hsic"), "constant")
  expect_equal(f3$p_value[3L], 1)
  expect_equal(f3$p_value[-3L], fs$p_value[-3L], tolerance = 1e-10)
  # other outcomes keep the Gaussian default
  yn <- stats::rnorm(50)
  expect_identical(feature_scores(s$x, yn, method = "hsic"),
                   feature_scores(s$x, yn, method = "hsic", kernel = kernel_gaussian()))
})

test_that("the default kernel finds a log-linear gene as the Cox score test does", {
  # (the U-shaped gene: "a U-shaped gene that the Cox score test misses is found")
  skip_if_not_installed("survival")
  skip_statistical_under_checkers("power of the default survival data kernel")
  set.seed(10)
  s <- simulate_survival(120, p = 100, n_linear = 1, n_u = 0, effect = 0.7, censoring = 0.3)
  g <- s$truth$linear
  fs <- feature_scores(s$x, s$y, method = "hsic")
  cox <- feature_scores(s$x, s$y, method = "cox")
  expect_true(fs$p_value[fs$feature == g] < 1e-3)
  expect_true(fs$rank[fs$feature == g] <= 3)
  expect_true(cox$p_value[cox$feature == g] < 1e-3)
})
