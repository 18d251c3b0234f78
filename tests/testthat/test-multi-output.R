# Multi-output outcomes (a numeric matrix y) and precomputed label kernels
# (label_kernel_precomputed()): against plain-R oracles, and a precomputed
# L = Y Y' against y = Y with the linear label kernel.

multi_data <- function(seed, m = 40L) {
  set.seed(seed)
  x <- matrix(rnorm(m * 6L), m, 6L, dimnames = list(NULL, paste0("x", 1:6)))
  Y <- cbind(x[, 1] + rnorm(m, sd = 0.3), x[, 2]^2 + rnorm(m, sd = 0.3))
  list(x = x, Y = Y)
}
lin_y <- function() label_kernel_regression(kernel_linear())
gauss_gram <- function(x, sigma) exp(-sigma * as.matrix(stats::dist(x))^2)

test_that("hsic() with a matrix y equals the oracle (exact, block, ichol)", {
  d <- multi_data(1)
  L <- tcrossprod(d$Y)
  h1 <- hsic(d$x, d$Y, kernel_y = lin_y())
  K <- gauss_gram(d$x, h1$kernel$params$sigma)
  expect_equal(h1$hsic1, oracle_hsic1(K, L))
  expect_equal(h1$hsic0, oracle_hsic0(K, L))
  # the Gaussian label kernel on the response vectors
  h2 <- hsic(d$x, d$Y, estimator = "biased")
  Lg <- gauss_gram(d$Y, h2$kernel_y$params$kernel$params$sigma)
  expect_equal(h2$estimate, oracle_hsic0(K, Lg))
  # block: the mean of the oracle within the blocks of sample.int()
  set.seed(3)
  hb <- hsic(d$x, d$Y, kernel_y = lin_y(), approx = approx_block(size = 10), estimator = "biased")
  set.seed(3)
  rows <- sample.int(40L)
  Kb <- gauss_gram(d$x, hb$kernel$params$sigma)
  est <- vapply(split(rows, rep(1:4, each = 10)),
                function(i) oracle_hsic0(Kb[i, i], L[i, i]), 0)
  expect_equal(hb$estimate, mean(est))
  # ichol at a tiny tolerance is the exact value
  hi <- hsic(d$x, d$Y, kernel_y = lin_y(), approx = approx_ichol(tol = 1e-12, max_rank = 40))
  expect_equal(hi$hsic1, h1$hsic1, tolerance = 1e-6)
})

test_that("feature_scores(method = \"hsic\") with a matrix y is hsic() of each feature", {
  d <- multi_data(5)
  for (ky in list(NULL, lin_y())) {
    s <- feature_scores(d$x, d$Y, method = "hsic", kernel_y = ky)
    one <- vapply(seq_len(ncol(d$x)), function(j) {
      hsic(d$x[, j, drop = FALSE], d$Y, kernel_y = ky, estimator = "biased")$estimate
    }, numeric(1))
    expect_equal(s$score, one, tolerance = 1e-10)
  }
})

test_that("a matrix y: NA rows with na_action = 'omit', wrong rows, a constant column", {
  d <- multi_data(2)
  Yn <- d$Y
  Yn[c(3, 7), 2] <- NA
  expect_error(hsic(d$x, Yn), "na_action")
  expect_warning(h <- hsic(d$x, Yn, na_action = "omit"), "dropped 2 of 40")
  expect_equal(h$estimate, hsic(d$x[-c(3, 7), ], d$Y[-c(3, 7), ])$estimate)
  expect_error(bahsic(d$x, d$Y[1:30, ]), "'y' has 30 values but 'x' has 40 samples")
  # a constant column adds nothing to either kernel: accepted, the same HSIC
  expect_equal(hsic(d$x, cbind(d$Y, 5))$estimate, hsic(d$x, d$Y)$estimate)
  expect_equal(hsic(d$x, cbind(d$Y, 5), kernel_y = lin_y())$estimate,
               hsic(d$x, d$Y, kernel_y = lin_y())$estimate)
  # ... but an all-constant y is an error
  expect_error(hsic(d$x, matrix(1, 40, 2)), "constant")
})

test_that("label_kernel_precomputed(Y Y') equals y = Y with the linear label kernel", {
  d <- multi_data(3)
  pre <- label_kernel_precomputed(tcrossprod(d$Y))
  for (est in c("unbiased", "biased")) {
    a <- hsic(d$x, NULL, kernel_y = pre, estimator = est)
    b <- hsic(d$x, d$Y, kernel_y = lin_y(), estimator = est)
    expect_equal(a$estimate, b$estimate)
    expect_equal(a$se, b$se)
  }
  # y may be given too; only its length counts
  expect_equal(hsic(d$x, d$Y[, 1], kernel_y = pre)$estimate, hsic(d$x, NULL, kernel_y = pre)$estimate)
  expect_equal(hsic_test(d$x, NULL, kernel_y = pre)$p.value,
               hsic_test(d$x, d$Y, kernel_y = lin_y())$p.value)
  set.seed(1)
  p1 <- hsic_test(d$x, NULL, kernel_y = pre, method = "permutation", n_perm = 50)
  set.seed(1)
  p2 <- hsic_test(d$x, d$Y, kernel_y = lin_y(), method = "permutation", n_perm = 50)
  expect_equal(p1$p.value, p2$p.value)
  set.seed(2)
  a <- hsic(d$x, NULL, kernel_y = pre, approx = approx_block(size = 10))
  set.seed(2)
  b <- hsic(d$x, d$Y, kernel_y = lin_y(), approx = approx_block(size = 10))
  expect_equal(a$estimate, b$estimate)
  # ichol / rff factor L by pivoted Cholesky: the same up to rounding
  for (ap in list(approx_ichol(), approx_rff(50))) {
    set.seed(4)
    a <- hsic(d$x, NULL, kernel_y = pre, approx = ap)
    set.seed(4)
    b <- hsic(d$x, d$Y, kernel_y = lin_y(), approx = ap)
    expect_equal(a$estimate, b$estimate, tolerance = 1e-8)
  }
})

test_that("the selectors with a precomputed Y Y' equal y = Y with the linear label kernel", {
  d <- multi_data(4, m = 30L)
  pre <- label_kernel_precomputed(tcrossprod(d$Y))
  same <- function(a, b, tol = 1.5e-8) {
    expect_identical(a$ranking, b$ranking)
    expect_equal(a$features$score, b$features$score, tolerance = tol)
  }
  same(bahsic(d$x, NULL, kernel_y = pre), bahsic(d$x, d$Y, kernel_y = lin_y()))
  same(fohsic(d$x, NULL, kernel_y = pre), fohsic(d$x, d$Y, kernel_y = lin_y()))
  same(bahsic(d$x, NULL, kernel_y = pre, kernel = kernel_linear()),
       bahsic(d$x, d$Y, kernel_y = lin_y(), kernel = kernel_linear()))
  runs <- list(block = approx_block(size = 10), rff = approx_rff(40), ichol = approx_ichol())
  for (nm in names(runs)) {
    for (method in c("bahsic", "fohsic")) {
      if (method == "fohsic" && nm == "ichol") next
      f <- get(method)
      set.seed(5)
      a <- f(d$x, NULL, kernel_y = pre, approx = runs[[nm]], n_features = 3)
      set.seed(5)
      b <- f(d$x, d$Y, kernel_y = lin_y(), approx = runs[[nm]], n_features = 3)
      same(a, b, if (nm == "block") 1.5e-8 else 1e-7)
    }
  }
  set.seed(6)
  a <- randsel(d$x, NULL, kernel_y = pre, n_boot = 20)
  set.seed(6)
  b <- randsel(d$x, d$Y, kernel_y = lin_y(), n_boot = 20)
  same(a, b)
  set.seed(7)
  a <- l1_hsic(d$x, NULL, kernel_y = pre, n_features = 2, restarts = 1)
  set.seed(7)
  b <- l1_hsic(d$x, d$Y, kernel_y = lin_y(), n_features = 2, restarts = 1)
  expect_equal(a$weights, b$weights)
})

test_that("the selectors take a matrix y and find the features behind it", {
  d <- multi_data(5, m = 60L)
  expect_setequal(selected(bahsic(d$x, d$Y), 2), c("x1", "x2"))
  expect_setequal(selected(fohsic(d$x, d$Y), 2), c("x1", "x2"))
  set.seed(1)
  expect_setequal(selected(bahsic(d$x, d$Y, approx = approx_block(size = 30)), 2), c("x1", "x2"))
  set.seed(1)
  expect_setequal(selected(l1_hsic(d$x, d$Y, n_features = 2, restarts = 1), 2), c("x1", "x2"))
})

test_that("l1_lsmi(): a matrix y is a Gaussian on the standardised responses; L's columns", {
  d <- multi_data(6, m = 30L)
  ys <- scale(d$Y)
  med <- stats::median(as.vector(stats::dist(ys))^2)
  # the label basis functions of a matrix y, as a precomputed L
  L <- exp(-as.matrix(stats::dist(ys))^2 / (2 * med))
  set.seed(8)
  a <- l1_lsmi(d$x, d$Y, n_features = 2, restarts = 1, n_basis = 20, folds = 3)
  set.seed(8)
  b <- l1_lsmi(d$x, NULL, kernel_y = label_kernel_precomputed(L), n_features = 2,
               restarts = 1, n_basis = 20, folds = 3)
  expect_equal(a$weights, b$weights, tolerance = 1e-6)
  expect_error(l1_lsmi(d$x, d$Y, n_features = 2, kernel_y = lin_y()), "l1_hsic")
})

test_that("a precomputed label kernel is checked and follows na_action = 'omit'", {
  d <- multi_data(7, m = 20L)
  L <- tcrossprod(d$Y)
  expect_error(label_kernel_precomputed(L[, 1:5]), "square")
  expect_error(label_kernel_precomputed({L2 <- L; L2[1, 2] <- NA; L2}), "missing or infinite")
  expect_error(label_kernel_precomputed({L2 <- L; L2[1, 2] <- L2[1, 2] + 1; L2}), "symmetric")
  expect_error(label_kernel_precomputed("a"), "numeric matrix")
  expect_output(print(label_kernel_precomputed(L)), "precomputed label kernel \\(20 x 20\\)")
  pre <- label_kernel_precomputed(L)
  expect_error(hsic(d$x[1:15, ], NULL, kernel_y = pre), "20 x 20 label kernel but 'x' has 15")
  expect_error(bahsic(d$x[1:15, ], NULL, kernel_y = pre), "20 x 20 label kernel but 'x' has 15")
  xn <- d$x
  xn[c(4, 11), 2] <- NA
  expect_warning(a <- hsic(xn, NULL, kernel_y = pre, na_action = "omit"), "dropped 2")
  keep <- -c(4, 11)
  b <- hsic(d$x[keep, ], NULL, kernel_y = label_kernel_precomputed(L[keep, keep]))
  expect_equal(a$estimate, b$estimate)
  expect_warning(a <- bahsic(xn, NULL, kernel_y = pre, na_action = "omit"), "dropped 2")
  expect_identical(a$ranking, bahsic(d$x[keep, ], NULL, kernel_y = label_kernel_precomputed(L[keep, keep]))$ranking)
})

test_that("clinical_rfe() stays a classifier: kernel_y and a numeric matrix y are errors", {
  skip_if_not_installed("kernlab")
  d <- multi_data(8, m = 20L)
  cls <- factor(d$x[, 1] > 0)
  expect_error(clinical_rfe(d$x, cls, kernel_y = lin_y()), "takes no 'kernel_y'")
  expect_error(clinical_rfe(d$x, d$Y), "classifies")
})
