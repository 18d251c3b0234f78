# The series screen of the exact Gaussian selectors (src/series.c; option
# bahsic.series): the ranking, the iterations and the path must be those of
# scoring every candidate exactly (the reference loop, bahsic.series =
# FALSE), the scores equal to 1e-10 relative, for any thread count.

with_series <- function(value, expr) {
  old <- options(bahsic.series = value)
  on.exit(options(old))
  expr
}

# the selection with and without the screen, compared
expect_series_matches <- function(fit_call) {
  ref <- with_series(FALSE, eval.parent(fit_call))
  ser <- with_series(TRUE, eval.parent(fit_call))
  expect_identical(ser$features$rank, ref$features$rank)
  expect_identical(ser$features$iteration, ref$features$iteration)
  expect_identical(ser$path, ref$path)
  expect_equal(ser$features$score, ref$features$score, tolerance = 1e-10)
  expect_equal(ser$features$contribution, ref$features$contribution, tolerance = 1e-8)
  invisible(list(ref = ref, ser = ser))
}

series_data <- function(m = 40, d = 300, seed = 1) {
  set.seed(seed)
  x <- matrix(rnorm(m * d), m, d)
  y <- factor(rep(c("a", "b"), length.out = m))
  x[y == "b", 1:10] <- x[y == "b", 1:10] + 1
  list(x = x, y = y)
}

test_that("BAHSIC with the screen ranks as the exact loop", {
  d <- series_data()
  expect_series_matches(quote(bahsic(d$x, d$y, threads = 1L)))
  expect_series_matches(quote(bahsic(d$x, d$y, drop = 0.02, threads = 1L)))
  expect_series_matches(quote(bahsic(d$x, d$y, drop = 0.3, n_features = 15, threads = 1L)))
  expect_series_matches(quote(bahsic(d$x, d$y, estimator = "unbiased", threads = 1L)))
  expect_series_matches(quote(bahsic(d$x, d$y, kernel = kernel_gaussian(0.01), sigma = "fixed",
                                     threads = 1L)))
  expect_series_matches(quote(bahsic(golub$x[, 1:800], golub$y, threads = 1L)))
})

test_that("the screen keeps the exact loop's ties and order on tied data", {
  set.seed(2)
  m <- 30
  y <- factor(rep(c("a", "b"), each = m / 2))
  # whole numbers (many equal distances) and duplicated columns (equal scores)
  x <- matrix(sample(0:3, m * 120, replace = TRUE), m, 120)
  x[, 61:120] <- x[, 1:60]
  x[y == "b", 1:5] <- x[y == "b", 1:5] + 2L
  fits <- expect_series_matches(quote(bahsic(x, y, threads = 1L)))
  # a column and its copy scored in the same iteration tie (the data have
  # the ties the screen must order as the exact loop does)
  f <- fits$ser$features
  same <- f$iteration[1:60] == f$iteration[61:120]
  expect_true(any(same))
  expect_equal(f$score[61:120][same], f$score[1:60][same], tolerance = 1e-10)
})

test_that("FOHSIC, regression and several classes with the screen", {
  d <- series_data(m = 36, d = 250, seed = 3)
  expect_series_matches(quote(fohsic(d$x, d$y, threads = 1L)))
  expect_series_matches(quote(fohsic(d$x, d$y, add = 0.2, n_features = 30, threads = 1L)))
  yr <- d$x[, 1] - d$x[, 2]^2 + rnorm(36, sd = 0.3)
  expect_series_matches(quote(bahsic(d$x, yr, threads = 1L)))
  y3 <- factor(rep(c("a", "b", "c"), length.out = 36))
  expect_series_matches(quote(bahsic(d$x, y3, threads = 1L)))
})

test_that("the screen gives the same result for any number of threads and either loop", {
  d <- series_data(m = 60, d = 400, seed = 4)
  one <- with_series(TRUE, bahsic(d$x, d$y, threads = 1L))
  two <- with_series(TRUE, bahsic(d$x, d$y, threads = 2L))
  expect_identical(two$features, one$features)
  expect_identical(two$path, one$path)
  old <- options(bahsic.simd = FALSE)
  on.exit(options(old))
  plain <- with_series(TRUE, bahsic(d$x, d$y, threads = 1L))
  expect_identical(plain$features$rank, one$features$rank)
})

test_that("a wrong bahsic.series option is an error that says what to give", {
  d <- series_data(m = 20, d = 20)
  expect_error(with_series("yes", bahsic(d$x, d$y, threads = 1L)), "bahsic.series")
  expect_error(with_series(7, bahsic(d$x, d$y, threads = 1L)), "1, 2 or 3")
  # a fixed number of terms (for benchmarks) ranks the same
  ref <- with_series(FALSE, bahsic(d$x, d$y, threads = 1L))
  for (k in 1:3) {
    fit <- with_series(k, bahsic(d$x, d$y, threads = 1L))
    expect_identical(fit$features$rank, ref$features$rank)
  }
})
