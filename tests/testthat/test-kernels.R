test_that("every data kernel's Gram matrix equals its definition", {
  set.seed(1)
  x <- matrix(rnorm(7 * 3), 7, 3)
  D2 <- as.matrix(dist(x))^2
  G <- tcrossprod(x)
  expect_equal(unclass(kernel_matrix(kernel_linear(), x))[, ], G, tolerance = 1e-14,
               ignore_attr = TRUE)
  expect_equal(kernel_matrix(kernel_polynomial(3, 0.5), x), (G + 0.5)^3, tolerance = 1e-13,
               ignore_attr = TRUE)
  expect_equal(kernel_matrix(kernel_gaussian(0.7), x), exp(-0.7 * D2), tolerance = 1e-14,
               ignore_attr = TRUE)
  expect_equal(kernel_matrix(kernel_laplace(0.7), x), exp(-0.7 * sqrt(D2)), tolerance = 1e-14,
               ignore_attr = TRUE)
  expect_equal(kernel_matrix(kernel_inverse_distance(0.01), x), 1 / (sqrt(D2) + 0.01),
               tolerance = 1e-13, ignore_attr = TRUE)
  K <- tcrossprod(x) + diag(7)
  expect_equal(kernel_matrix(kernel_precomputed(K), x), K, ignore_attr = TRUE)
})

test_that("the median heuristic matches R's median over distinct pairs", {
  set.seed(2)
  for (m in c(2, 3, 8, 9)) {
    x <- matrix(rnorm(m * 2), m, 2)
    g <- attr(kernel_matrix(kernel_gaussian(), x), "kernel")
    l <- attr(kernel_matrix(kernel_laplace(), x), "kernel")
    expect_equal(g$params$sigma, 1 / median(dist(x)^2))
    expect_equal(l$params$sigma, 1 / median(dist(x)))
  }
  # ties: integer data where most pairs coincide fall back to distinct pairs
  x <- matrix(c(rep(0, 9), 1), ncol = 1)
  g <- attr(kernel_matrix(kernel_gaussian(), x), "kernel")
  expect_equal(g$params$sigma, 1)
  # identical samples: a constant kernel, finite
  expect_true(all(kernel_matrix(kernel_gaussian(), matrix(3, 5, 2)) == 1))
})

test_that("quickselect returns order statistics on tied and sorted data", {
  set.seed(3)
  for (v in list(rnorm(101), rep(1, 20), 1:50, 50:1, sample(rep(1:3, 30)))) {
    x <- matrix(as.double(v), ncol = 1)
    expect_equal(.Call(bahsic:::C_median_pairwise, x, TRUE), median(dist(x)^2))
  }
  x <- matrix(rnorm(30), 10, 3)
  expect_equal(.Call(bahsic:::C_median_columns, x, FALSE),
               apply(x, 2, function(col) median(dist(col))))
})

test_that("Gram matrices are symmetric and the same for 1 and 2 threads", {
  set.seed(4)
  x <- matrix(rnorm(300 * 5), 300, 5)
  for (k in list(kernel_linear(), kernel_gaussian(0.1), kernel_inverse_distance())) {
    K1 <- kernel_matrix(k, x, threads = 1)
    K2 <- kernel_matrix(k, x, threads = 2)
    expect_identical(K1, K2)
    expect_true(isSymmetric(unclass(K1)[, ]))
  }
})

test_that("kernel constructors validate their parameters", {
  expect_error(kernel_gaussian(-1), "positive")
  expect_error(kernel_gaussian(c(1, 2)), "single positive")
  expect_error(kernel_laplace(Inf), "finite")
  expect_error(kernel_polynomial(degree = 1.5), "whole number")
  expect_error(kernel_polynomial(offset = -1), ">= 0")
  expect_error(kernel_inverse_distance(0), "positive")
  expect_error(kernel_precomputed(matrix(1:6, 2)), "square")
  expect_error(kernel_precomputed(matrix(c(1, 2, 3, 4), 2)), "symmetric")
  expect_error(kernel_precomputed(matrix(NA_real_, 2, 2)), "missing")
  expect_error(kernel_matrix(kernel_precomputed(diag(3)), matrix(0, 4, 1)), "3 x 3")
  expect_error(kernel_matrix("linear", diag(2)), "must be a kernel")
  expect_output(print(kernel_gaussian()), "median heuristic")
  expect_output(print(kernel_polynomial(3)), "\\^3")
  expect_s3_class(kernel_laplace(2), "bahsic_kernel")
})

test_that("the vectorised exp is within a few ulp of exp() over the kernel range", {
  v <- c(0, 10^seq(-12, log10(707.9), length.out = 3000), seq(700, 800, by = 0.37))
  x <- matrix(c(0, sqrt(v)), ncol = 1)
  K <- kernel_matrix(kernel_gaussian(1), x)
  t2 <- (x[-1, 1] - 0)^2
  got <- K[1, -1]
  want <- exp(-t2)
  ok <- t2 <= 708
  expect_lt(max(abs(got[ok] - want[ok]) / want[ok]), 4 * .Machine$double.eps)
  expect_true(all(got[!ok] == 0))
  expect_true(all(abs(got[!ok] - want[!ok]) < 1e-300))
  L <- kernel_matrix(kernel_laplace(1), x)
  expect_lt(max(abs(L[1, -1][ok] - exp(-sqrt(t2[ok]))) / exp(-sqrt(t2[ok]))),
            4 * .Machine$double.eps)
})

test_that("data checks find the first bad value and reject overflowing magnitudes", {
  x <- matrix(1:6 + 0.5, 3, 2, dimnames = list(c("s1", "s2", "s3"), c("a", "b")))
  expect_equal(.Call(bahsic:::C_first_nonfinite, x), c(0, 6.5))
  x[2, 2] <- NaN
  expect_equal(.Call(bahsic:::C_first_nonfinite, x)[1], 5)
  expect_error(kernel_matrix(kernel_linear(), x), "feature 'b', sample 's2'")
  expect_error(kernel_matrix(kernel_linear(), matrix(c(1, 2e150), 2)), "beyond 1e150")
  y <- cbind(a = c(1, 1, 1), b = c(1, 2, 1), c = c(2, 2, 2))
  expect_equal(.Call(bahsic:::C_constant_columns, y), c(TRUE, FALSE, TRUE))
  expect_equal(.Call(bahsic:::C_constant_columns, y[1, , drop = FALSE]), c(TRUE, TRUE, TRUE))
})

test_that("C_scale_columns divides each column by the power of two of its largest |value|", {
  x <- cbind(c(3, -5, 1), c(0.25, 0.5, -0.125), 0, c(1e-310, 4e-320, 0), c(-1e300, 2, 7))
  # the oracle: 2^e with max |x_j| in [2^(e-1), 2^e), at most 2^-1021 (so 1 / 2^e is a double)
  unit <- apply(x, 2, function(v) {
    mx <- max(abs(v))
    if (mx == 0) 1 else 2^max(-1021, floor(log2(mx)) + 1)
  })
  got <- .Call(bahsic:::C_scale_columns, x)
  expect_identical(got[, -4], sweep(x, 2, unit, "/")[, -4])
  expect_identical(got[, 4], x[, 4] * 2^1000 * 2^21)
  mx <- apply(abs(got), 2, max)
  expect_true(all(mx < 1))
  expect_true(all(mx[c(1, 2, 5)] >= 0.5))
  # the same for any rescaling of a column by a power of two
  expect_identical(.Call(bahsic:::C_scale_columns, x[, 1:2] * 2^-700), got[, 1:2])
})

test_that("the per-feature median of the gaps is exact on tied and rounded data", {
  set.seed(7)
  for (i in 1:100) {
    m <- sample(2:15, 1)
    v <- matrix(round(rnorm(m), 1), ncol = 1)
    expect_identical(.Call(bahsic:::C_median_columns, v, TRUE), median(dist(v)^2))
    expect_identical(.Call(bahsic:::C_median_columns, v, FALSE), median(dist(v)))
  }
})

test_that("kernel_matrix() takes every input class of the one data path", {
  set.seed(3)
  x <- matrix(rnorm(40), 10, 4, dimnames = list(paste0("s", 1:10), paste0("g", 1:4)))
  K <- kernel_matrix(kernel_gaussian(), x, threads = 1)
  skip_if_not_installed("Matrix")
  expect_identical(kernel_matrix(kernel_gaussian(), Matrix::Matrix(x, sparse = TRUE), threads = 1), K)
  expect_identical(kernel_matrix(kernel_gaussian(), as.data.frame(x), threads = 1), K)
  x[2, 3] <- NA
  expect_error(kernel_matrix(kernel_gaussian(), x), "missing values \\(NA/NaN\\), first at feature 'g3'")
})
