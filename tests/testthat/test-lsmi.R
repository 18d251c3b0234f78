# lsmi(): the LSMI estimator and its cross-validation (slides "LSMI",
# "Delta Kernel for Classification Task", "Model Selection by Cross
# Validation" of Jitkrittum (2012)), checked against plain-R oracles
# that write the slide's sums out literally.

# The oracles (oracle_lsmi(), oracle_cv(), ...) are in helper-lsmi.R.

test_that("the design matrices equal their definitions", {
  t <- toy_lsmi(9, 3)
  cen <- c(2L, 5L, 9L)
  w <- c(0.5, 0, 2)
  sq <- .Call(bahsic:::C_lsmi_sqdist, t$x, t$x[cen, ], w)
  want <- outer(seq_len(9), seq_along(cen), Vectorize(function(i, l) {
    sum(w^2 * (t$x[i, ] - t$x[cen[l], ])^2)
  }))
  expect_equal(sq, want, tolerance = 1e-13)
  expect_identical(sq[cbind(cen, 1:3)], c(0, 0, 0))
  expect_equal(.Call(bahsic:::C_lsmi_gauss, sq, 0.7), exp(-want / (2 * 0.7^2)),
               tolerance = 1e-14)
  expect_identical(.Call(bahsic:::C_lsmi_delta, as.integer(t$y), cen),
                   outer(as.integer(t$y), as.integer(t$y)[cen], "==") + 0)
})

test_that("the LSMI estimate equals the slide's formula", {
  for (case in test_cases(list(list(m = 10, b = 4, sigma = 1, lambda = 0.1, seed = 1, cls = TRUE),
                               list(m = 12, b = 12, sigma = 2, lambda = 0.01, seed = 2, cls = TRUE),
                               list(m = 9, b = 5, sigma = 0.8, lambda = 1, seed = 3, cls = FALSE)))) {
    t <- toy_lsmi(case$m, 3, case$seed, case$cls)
    cen <- sort(sample.int(case$m, case$b))
    sq <- .Call(bahsic:::C_lsmi_sqdist, t$x, t$x[cen, , drop = FALSE], rep(1, 3))
    phix <- .Call(bahsic:::C_lsmi_gauss, sq, case$sigma)
    if (case$cls) {
      phiy <- .Call(bahsic:::C_lsmi_delta, as.integer(t$y), cen)
      ykern <- delta
    } else {
      phiy <- exp(-outer(t$y, t$y[cen], "-")^2 / (2 * 0.9^2))
      ykern <- function(a, b) exp(-(a - b)^2 / (2 * 0.9^2))
    }
    got <- .Call(bahsic:::C_lsmi_fit, phix, phiy, case$lambda)
    want <- oracle_lsmi(t$x, t$y, cen, case$sigma, case$lambda, ykern)
    expect_equal(got$estimate, want, tolerance = 1e-10)
  }
})

test_that("the CV score equals the slide's K-fold criterion", {
  for (case in test_cases(list(list(m = 12, b = 5, K = 3, seed = 1),
                               list(m = 10, b = 10, K = 5, seed = 2)))) {
    t <- toy_lsmi(case$m, 2, case$seed)
    cen <- sort(sample.int(case$m, case$b))
    fold <- sample(rep_len(seq_len(case$K), case$m))
    sq <- .Call(bahsic:::C_lsmi_sqdist, t$x, t$x[cen, , drop = FALSE], c(1, 1))
    phiy <- .Call(bahsic:::C_lsmi_delta, as.integer(t$y), cen)
    sigmas <- c(0.5, 1.5)
    lambdas <- c(0.01, 0.3, 2)
    got <- .Call(bahsic:::C_lsmi_cv, sq, phiy, as.integer(fold), sigmas, lambdas)
    want <- outer(seq_along(sigmas), seq_along(lambdas), Vectorize(function(s, l) {
      oracle_cv(t$x, t$y, cen, sigmas[s], lambdas[l], delta, fold)
    }))
    expect_equal(got, want, tolerance = 1e-10)
  }
})

test_that("lsmi() picks the CV minimum and reports it, reproducibly", {
  t <- toy_lsmi(14, 2, 4)
  set.seed(3)
  fit <- lsmi(t$x, t$y, sigma = c(0.5, 1, 2), lambda = c(0.01, 0.1), n_basis = 6, folds = 3)
  expect_s3_class(fit, "bahsic_lsmi")
  best <- fit$cv[which.min(fit$cv$score), ]
  expect_identical(c(fit$sigma, fit$lambda), c(best$sigma, best$lambda))
  # the same draws in R: centres, then folds
  set.seed(3)
  cen <- sort(sample.int(14, 6))
  fold <- sample(rep_len(1:3, 14))
  xs <- bahsic:::standardize_columns(t$x, colnames(t$x))
  want_cv <- oracle_cv(xs, t$y, cen, fit$sigma, fit$lambda, delta, fold)
  expect_equal(best$score, want_cv, tolerance = 1e-10)
  expect_equal(fit$estimate, oracle_lsmi(xs, t$y, cen, fit$sigma, fit$lambda, delta),
               tolerance = 1e-10)
  set.seed(3)
  again <- lsmi(t$x, t$y, sigma = c(0.5, 1, 2), lambda = c(0.01, 0.1), n_basis = 6, folds = 3)
  expect_identical(again$estimate, fit$estimate)
  expect_output(print(fit), "LSMI .* = .*sigma = .*lambda = ")
  expect_identical(nrow(fit$cv), 6L)
})

test_that("LSMI is larger for a dependent than for an independent feature", {
  n <- if (under_valgrind()) 60 else 150
  set.seed(5)
  x <- matrix(rnorm(2 * n), n, 2)
  y <- x[, 1]^2 + rnorm(n, sd = 0.2)
  dep <- lsmi(x[, 1], y, n_basis = 40)$estimate
  ind <- lsmi(x[, 2], y, n_basis = 40)$estimate
  expect_gt(dep, ind + 0.1)
  expect_lt(abs(ind), 0.1)
  cls <- factor(x[, 1] > 0)
  expect_gt(lsmi(x[, 1], cls, n_basis = 40)$estimate, lsmi(x[, 2], cls, n_basis = 40)$estimate)
})

test_that("the formula and data.frame interfaces give the same estimate", {
  t <- toy_lsmi(20, 3, 6)
  df <- data.frame(t$x, y = t$y)
  set.seed(1)
  a <- lsmi(t$x, t$y, n_basis = 10, folds = 4)
  set.seed(1)
  b <- lsmi(y ~ ., data = df, n_basis = 10, folds = 4)
  set.seed(1)
  c <- lsmi(df[1:3], df$y, n_basis = 10, folds = 4)
  expect_identical(b$estimate, a$estimate)
  expect_identical(c$estimate, a$estimate)
  expect_identical(deparse(b$call[[1]]), "lsmi")
})

test_that("bad input gives errors that say what to do", {
  t <- toy_lsmi(12, 2)
  x <- t$x
  x[3, 1] <- NA
  expect_error(lsmi(x, t$y), "missing values")
  expect_error(lsmi(t$x, factor(rep("a", 12))), "single class")
  expect_error(lsmi(t$x, rep(1, 12)), "constant")
  expect_error(lsmi(t$x, t$y, sigma = -1), "'sigma' must be positive")
  expect_error(lsmi(t$x, t$y, lambda = 0), "'lambda' must be positive")
  expect_error(lsmi(t$x, t$y, folds = 13), "'folds' must be a whole number from 2 to 12")
  expect_error(lsmi(t$x, t$y, n_basis = 0), "'n_basis'")
  expect_error(lsmi(t$x[1:3, ], t$y[1:3]), "at least 4 samples")
})
