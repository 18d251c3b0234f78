# The one normaliser behind every entry point (R/inputs.R): what reaches the C
# code is a finite double matrix, samples x features, and a checked outcome.

test_that("matrix, data.frame, logical and integer inputs normalise alike", {
  set.seed(1)
  x <- matrix(rnorm(20), 10, 2)
  d1 <- bahsic:::normalise_inputs(x, factor(rep(1:2, 5)))
  expect_identical(dim(d1$x), c(10L, 2L))
  expect_equal(d1$features, c("V1", "V2"))
  expect_true(is.double(d1$x))
  df <- data.frame(a = x[, 1], flag = rep(c(TRUE, FALSE), 5))
  d2 <- bahsic:::normalise_inputs(df, rep(c("u", "v"), 5))
  expect_equal(d2$x[, "flag"], rep(c(1, 0), 5))
  expect_s3_class(d2$y, "factor")
  expect_null(d2$samples)
  d3 <- bahsic:::normalise_inputs(matrix(1:20, 10), rep(c(TRUE, FALSE), 5))
  expect_true(is.double(d3$x))
  expect_equal(levels(d3$y), c("FALSE", "TRUE"))
  d4 <- bahsic:::normalise_inputs(x, data.frame(out = 1:10))
  expect_equal(d4$y, as.double(1:10))
  d5 <- bahsic:::normalise_inputs(x[, 1], 1:10)
  expect_equal(ncol(d5$x), 1L)
})

test_that("duplicated feature names are made unique with a warning", {
  x <- matrix(rnorm(12), 4, 3, dimnames = list(NULL, c("g", "g", "h")))
  expect_warning(d <- bahsic:::normalise_inputs(x, 1:4), "duplicated feature names \\(g\\)")
  expect_equal(d$features, c("g", "g.1", "h"))
})

test_that("a numeric matrix outcome is multi-output regression", {
  set.seed(2)
  x <- matrix(rnorm(60), 20, 3)
  y <- cbind(x[, 1], x[, 2]^2)
  h <- hsic(x, y, kernel_y = label_kernel_regression(kernel_linear()))
  L <- tcrossprod(y)
  expect_equal(h$estimate, oracle_hsic1(kernel_matrix(kernel_gaussian(), x), L),
               tolerance = 1e-12)
  expect_gt(hsic(x, y)$estimate, hsic(x, matrix(rnorm(40), 20))$estimate)
})

test_that("bad inputs give errors that say what to do", {
  d <- toy_binary(m = 10, d = 3)
  x <- d$x
  expect_error(hsic(t(x), d$y), "t\\(x\\)")
  expect_error(hsic(x, d$y[1:5]), "5 values but 'x' has 10 samples")
  x_na <- x
  x_na[3, 2] <- NA
  expect_error(hsic(x_na, d$y), "missing values.*feature 'g2', sample '3'")
  expect_warning(r <- hsic(x_na, d$y, na_action = "omit"), "dropped 1 of 10")
  expect_equal(r$m, 9L)
  y_na <- d$y
  y_na[4] <- NA
  expect_error(hsic(x, y_na), "'y' has missing values")
  expect_warning(r <- hsic(x, y_na, na_action = "omit"), "dropped 1 of 10")
  x_inf <- x
  x_inf[2, 1] <- Inf
  expect_error(hsic(x_inf, d$y), "infinite values")
  expect_error(hsic(x, c(1:9, Inf)), "'y' has infinite values")
  expect_error(hsic(x, factor(rep("a", 10))), "single class")
  expect_error(hsic(x[1:3, ], d$y[1:3]), "at least 4 samples")
  expect_silent(hsic(x[1:3, ], c(1, 2, 3), estimator = "biased"))
  expect_error(hsic(data.frame(a = letters[1:10], b = 1:10), d$y), "non-numeric columns \\(a\\)")
  expect_warning(hsic(x, factor(d$y, levels = c("a", "b", "z"))), "unused factor levels \\(z\\)")
  expect_error(hsic(x, d$y, kernel = "gaussian"), "must be a kernel")
  expect_error(hsic(x, d$y, kernel_y = kernel_linear()), "label kernel")
  expect_error(hsic(x, as.numeric(d$y), kernel_y = label_kernel_binary()), "needs class labels")
  expect_error(hsic(x, d$y, threads = 0), "threads")
  expect_error(hsic(x, list(1)), "'y'")
  expect_error(hsic(x[, 0], d$y), "no features")
  expect_error(hsic(x[0, ], d$y[0]), "no samples")
  expect_error(hsic(letters, d$y), "numeric matrix")
  expect_error(hsic(x), "'y' is missing: give the outcome.*unsupervised = TRUE")
  expect_error(hsic(y ~ 1, data = data.frame(z = 1:3)), "object 'y' not found")
  expect_error(hsic_test(x, d$y, n_perm = 0, method = "permutation"), "n_perm")
})

test_that("constant data give zero dependence, and the gamma test says it is undefined", {
  x <- matrix(2, 12, 2)
  y <- factor(rep(1:2, 6))
  expect_equal(hsic(x, y, estimator = "biased")$estimate, 0, tolerance = 1e-15)
  expect_warning(tst <- hsic_test(x, y), "constant")
  expect_true(is.na(tst$p.value))
})

test_that("C_first_unnamed finds the first NA or empty name, as is.na() and == \"\" do", {
  oracle <- function(s) match(TRUE, is.na(s) | s == "", nomatch = 0L)
  cases <- list(character(0), "a", "", NA_character_, c("a", "b", ""), c("a", NA, ""),
                c(enc2utf8("caf\u00e9"), "", "b"), c(" ", "x"), as.character(1:1000))
  for (s in cases) expect_identical(.Call(C_first_unnamed, s), as.double(oracle(s)))
})
