# hsic_weights(): feature weighting by HSIC with a relaxed l0 penalty,
# solved by the convex-concave procedure in v = w^2 (appendix A of
# Song et al. (2012)). The C routine C_hsic_vgrad (bk_hsic_vgrad() in
# lsmi.c) is checked against a plain-R oracle.

# sum(W' o K(w)) and its gradient in v = w^2, written out: K_ab = exp(-gamma
# sum_j w_j^2 (x_aj - x_bj)^2), dK_ab/dv_j = -gamma (x_aj - x_bj)^2 K_ab
oracle_vgrad <- function(x, w, gamma, W, part) {
  Wp <- switch(as.character(part), "0" = W, "1" = pmax(W, 0), "-1" = pmin(W, 0))
  m <- nrow(x)
  A <- lapply(seq_len(ncol(x)), function(j) outer(x[, j], x[, j], "-")^2)
  D <- Reduce(`+`, Map(function(a, wj) wj^2 * a, A, w))
  Q <- Wp * exp(-gamma * D)
  list(value = sum(Q), gradient = vapply(A, function(a) -gamma * sum(Q * a), 0))
}

weights_data <- function(m, d, seed) {
  set.seed(seed)
  x <- matrix(rnorm(m * d), m, d)
  y <- factor(ifelse(x[, 1] * x[, min(2L, d)] + rnorm(m, sd = 0.3) > 0, "a", "b"))
  lab <- bahsic:::label_gram(bahsic:::resolve_label_kernel(NULL, y), y)
  list(x = x, y = y, W0 = bahsic:::weight_matrix(lab, m, "biased"),
       W1 = bahsic:::weight_matrix(lab, m, "unbiased"))
}

test_that("the HSIC value and gradient in v equal the oracle, for W and its two parts", {
  for (case in test_cases(list(list(m = 12, d = 3, seed = 1), list(m = 9, d = 5, seed = 2),
                               list(m = 20, d = 1, seed = 3)), 1L)) {
    dat <- weights_data(case$m, case$d, case$seed)
    w <- runif(case$d, 0.2, 1.5)
    if (case$d > 2) w[2] <- 0
    for (W in list(dat$W0, dat$W1)) {
      for (part in c(0L, 1L, -1L)) {
        got <- .Call(bahsic:::C_hsic_vgrad, dat$x, w, 0.3, W, part, 1L)
        want <- oracle_vgrad(dat$x, w, 0.3, W, part)
        expect_equal(got$value, want$value, tolerance = 1e-12)
        expect_equal(got$gradient, want$gradient, tolerance = 1e-10)
        # the same numbers with 2 threads
        expect_identical(.Call(bahsic:::C_hsic_vgrad, dat$x, w, 0.3, W, part, 2L), got)
      }
      # W = max(W, 0) + min(W, 0)
      parts <- lapply(c(1L, -1L), function(k) .Call(bahsic:::C_hsic_vgrad, dat$x, w, 0.3, W, k, 1L))
      all0 <- .Call(bahsic:::C_hsic_vgrad, dat$x, w, 0.3, W, 0L, 1L)
      expect_equal(parts[[1]]$value + parts[[2]]$value, all0$value, tolerance = 1e-12)
      expect_equal(parts[[1]]$gradient + parts[[2]]$gradient, all0$gradient, tolerance = 1e-12)
    }
  }
})

test_that("the gradient in v matches a numerical derivative and the l1-HSIC gradient in w", {
  dat <- weights_data(15, 4, 4)
  w <- c(0.7, 1.2, 0.4, 0.9)
  f <- function(v) .Call(bahsic:::C_hsic_vgrad, dat$x, sqrt(v), 0.2, dat$W0, 0L, 1L)$value
  g <- .Call(bahsic:::C_hsic_vgrad, dat$x, w, 0.2, dat$W0, 0L, 1L)$gradient
  h <- 1e-6
  num <- vapply(seq_along(w), function(j) {
    e <- replace(numeric(4), j, h)
    (f(w^2 + e) - f(w^2 - e)) / (2 * h)
  }, 0)
  expect_equal(g, num, tolerance = 1e-6)
  # dHSIC/dw = 2 w dHSIC/dv: the l1-HSIC routine shares the loop
  l1 <- .Call(bahsic:::C_l1hsic_grad, dat$x, w, 0.2, dat$W0)
  expect_equal(l1$gradient, 2 * w * g, tolerance = 1e-12)
  expect_identical(l1$value, .Call(bahsic:::C_hsic_vgrad, dat$x, w, 0.2, dat$W0, 0L, 1L)$value)
})

test_that("each CCCP step does not decrease the objective, which the path reports", {
  set.seed(5)
  sim <- simulate_xor(60)
  x <- sim$x[, 1:6]
  h1 <- hsic_weights(x, sim$y, lambda = 0, max_iter = 1L)$settings$hsic_start
  for (lambda in c(0, 3 * h1, 30 * h1)) {
    fit <- hsic_weights(x, sim$y, lambda = lambda, max_iter = 30L)
    obj <- fit$path$objective
    expect_true(all(diff(obj) >= -1e-12 * max(abs(obj))))
    expect_identical(fit$path$iteration, seq(0L, length.out = nrow(fit$path)))
    expect_identical(fit$path$n_features[1L], 6L)
    # the last row is the returned weights: HSIC and objective recomputed in R
    w <- fit$weights
    xs <- scale(x)
    lab <- bahsic:::label_gram(bahsic:::resolve_label_kernel(NULL, sim$y), sim$y)
    W <- bahsic:::weight_matrix(lab, 60, "biased")
    K <- exp(-fit$settings$sigma * as.matrix(dist(sweep(xs, 2, w, "*")))^2)
    last <- fit$path[nrow(fit$path), ]
    expect_equal(last$hsic, sum(K * W), tolerance = 1e-8)
    expect_equal(last$objective, sum(K * W) - lambda * sum(1 - exp(-5 * w)), tolerance = 1e-8)
    expect_identical(last$n_features, sum(w > 0))
  }
  # regression outcome, unbiased estimator
  set.seed(6)
  sim <- simulate_regression(50)
  fit <- hsic_weights(sim$x[, 1:5], sim$y, lambda = 1e-4, estimator = "unbiased",
                      max_iter = 20L)
  obj <- fit$path$objective
  expect_true(all(diff(obj) >= -1e-12 * max(abs(obj))))
})

test_that("a large lambda gives sparse weights, lambda = 0 optimises HSIC alone", {
  set.seed(7)
  sim <- simulate_xor(60)
  x <- sim$x[, 1:8]
  fit0 <- hsic_weights(x, sim$y, lambda = 0)
  expect_equal(fit0$path$objective, fit0$path$hsic)
  expect_gt(max(fit0$path$hsic), fit0$settings$hsic_start)
  big <- hsic_weights(x, sim$y, lambda = 1000 * fit0$settings$hsic_start)
  expect_gte(sum(big$weights == 0), 7L)
  # zero weights once 0 stay 0: n_features never increases
  expect_true(all(diff(big$path$n_features) <= 0L))
  # the zeros are ordered by the step at which they reached 0 (later first)
  f <- big$features[order(big$features$rank), ]
  z <- f[f$score == 0, ]
  expect_true(all(diff(z$iteration) <= 0L))
})

test_that("on XOR the two relevant features carry the weight", {
  set.seed(8)
  sim <- simulate_xor(100)
  x <- sim$x[, 1:10]
  h1 <- hsic_weights(x, sim$y, lambda = 0, max_iter = 1L)$settings$hsic_start
  fit <- hsic_weights(x, sim$y, lambda = 3 * h1)
  expect_setequal(fit$ranking[1:2], c("X1", "X2"))
  expect_gt(sum(fit$weights[c("X1", "X2")]) / sum(fit$weights), 0.9)
  expect_setequal(selected(fit, 2), c("X1", "X2"))
  expect_true(fit$settings$converged)
})

test_that("the result is the common selection class", {
  set.seed(9)
  sim <- simulate_xor(40)
  x <- sim$x[, 1:5]
  fit <- hsic_weights(x, sim$y, lambda = 1e-6, max_iter = 10L)
  expect_s3_class(fit, "bahsic_selection")
  expect_identical(fit$method, "hsic_weights")
  expect_named(fit$weights, colnames(x))
  expect_identical(fit$features$score, unname(fit$weights))
  nz <- fit$weights[fit$weights > 0]
  expect_identical(fit$ranking[seq_along(nz)], names(nz)[order(-nz)])
  expect_true(all(c("lambda", "alpha", "sigma", "estimator", "converged", "hsic_start") %in%
                    names(fit$settings)))
  expect_identical(fit$call[[1L]], as.name("hsic_weights"))
  expect_output(print(fit), "10|features")
  expect_output(print(summary(fit)))
  expect_length(selected(fit, 3), 3L)
  df <- as.data.frame(fit)
  expect_identical(nrow(df), 5L)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_silent(plot(fit))
  # the formula method gives the same weights
  dat <- data.frame(y = sim$y, x)
  ff <- hsic_weights(y ~ ., data = dat, lambda = 1e-6, max_iter = 10L)
  expect_equal(ff$weights, fit$weights)
  expect_identical(ff$call[[1L]], as.name("hsic_weights"))
  # a constant feature gets weight 0 and ranks last
  xc <- cbind(x, C = 1)
  expect_warning(hsic_weights(xc, sim$y, lambda = 1e-6, max_iter = 1L), "constant")
  fc <- suppressWarnings(hsic_weights(xc, sim$y, lambda = 1e-6, max_iter = 10L))
  expect_identical(unname(fc$weights["C"]), 0)
  expect_identical(fc$ranking[6], "C")
  # the width of the kernel is used when given
  fs <- hsic_weights(x, sim$y, lambda = 0, kernel = kernel_gaussian(0.1), max_iter = 2L)
  expect_identical(fs$settings$sigma, 0.1)
})

test_that("bad input gives a clear error", {
  set.seed(10)
  sim <- simulate_xor(20)
  x <- sim$x[, 1:3]
  y <- sim$y
  expect_error(hsic_weights(x, y), "'lambda' is missing")
  expect_error(hsic_weights(x, y, lambda = -1), "'lambda' must be")
  expect_error(hsic_weights(x, y, lambda = Inf), "'lambda' must be")
  expect_error(hsic_weights(x, y, lambda = NA_real_), "'lambda' must be")
  expect_error(hsic_weights(x, y, lambda = c(1, 2)), "'lambda' must be")
  expect_error(hsic_weights(x, y, lambda = 1, alpha = 0), "'alpha' must be")
  expect_error(hsic_weights(x, y, lambda = 1, alpha = -2), "'alpha' must be")
  expect_error(hsic_weights(x, y, lambda = 1, kernel = kernel_laplace()), "Gaussian")
  expect_error(hsic_weights(x, y, lambda = 1, kernel = kernel_linear()), "Gaussian")
  expect_error(hsic_weights(x, y, lambda = 1, kernel = "gaussian"), "'kernel' must be")
  expect_error(hsic_weights(x, y, lambda = 1, approx = "block"), "takes no 'approx'")
  expect_error(hsic_weights(x, y, lambda = 1, max_iter = 0), "'max_iter'")
  expect_error(hsic_weights(x, y, lambda = 1, tol = -1), "'tol'")
  expect_error(hsic_weights(x, y, lambda = 1, threads = 0), "'threads'")
  expect_error(hsic_weights(x, y, lambda = 1, estimator = "other"), "'estimator' = \"other\" is not one of")
  expect_error(suppressWarnings(hsic_weights(matrix(1, 20, 2), y, lambda = 1)), "constant")
})

test_that("hsic_weights() takes y = NULL (unsupervised) and a precomputed label kernel", {
  set.seed(21)
  m <- 40
  f <- rnorm(m)
  x <- cbind(a1 = f + rnorm(m, sd = 0.3), a2 = f + rnorm(m, sd = 0.3),
             n1 = rnorm(m), n2 = rnorm(m))
  fu <- hsic_weights(x, NULL, lambda = 0, max_iter = 3, unsupervised = TRUE)
  expect_true(isTRUE(fu$settings$unsupervised))
  # the same as the standardised data as a matrix outcome
  fy <- hsic_weights(x, scale(x), lambda = 0, max_iter = 3)
  expect_equal(fu$weights, fy$weights, tolerance = 1e-10)
  # L = Y Y' given as a kernel equals y = Y with the linear label kernel
  Y <- cbind(f, f^2)
  lin <- label_kernel_regression(kernel_linear())
  a <- hsic_weights(x, Y, lambda = 0, max_iter = 3, kernel_y = lin)
  b <- hsic_weights(x, NULL, lambda = 0, max_iter = 3,
                    kernel_y = label_kernel_precomputed(tcrossprod(Y)))
  expect_equal(a$weights, b$weights, tolerance = 1e-8)
  # the width is reported; the kernel stays as given
  expect_null(a$settings$kernel$params$sigma)
  expect_true(is.numeric(a$settings$sigma) && a$settings$sigma > 0)
})
