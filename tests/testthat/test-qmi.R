# Quadratic mutual information (section 6.7): qmi() against the plug-in L2
# distance integrated numerically, and against m^-2 tr(kappa H nu H).

# Parzen windows of the samples s (bandwidth h) on the grid g: length(g) x m
parzen_windows <- function(g, s, h) outer(g, s, function(a, b) stats::dnorm(a - b, sd = h))

# A grid wide enough that the windows vanish at its ends; the trapezoid rule
# on such a grid is accurate far beyond the tolerance used here.
parzen_grid <- function(s, h, n = 401L) seq(min(s) - 7 * h, max(s) + 7 * h, length.out = n)

test_that("qmi() is the L2 distance of the Parzen estimates: numeric y (2-d integral)", {
  set.seed(11)
  m <- 15
  x <- rnorm(m)
  y <- sin(2 * x) + rnorm(m, sd = 0.3)
  hx <- 0.4
  hy <- 0.3
  gx <- parzen_grid(x, hx)
  gy <- parzen_grid(y, hy)
  kx <- parzen_windows(gx, x, hx)
  ky <- parzen_windows(gy, y, hy)
  # p(x, y) - p(x) p(y) on the grid, then the integral of its square
  diff_density <- kx %*% t(ky) / m - outer(rowMeans(kx), rowMeans(ky))
  integral <- sum(diff_density^2) * (gx[2] - gx[1]) * (gy[2] - gy[1])
  q <- qmi(x, y, bandwidth_x = hx, bandwidth_y = hy)
  expect_s3_class(q, "bahsic_qmi")
  expect_equal(q$estimate, integral, tolerance = 1e-6)
  expect_equal(c(q$bandwidth_x, q$bandwidth_y, q$d_x, q$d_y, q$m), c(hx, hy, 1, 1, m))
})

test_that("qmi() with classes sums the 1-d integrals over the classes", {
  set.seed(12)
  m <- 20
  y <- factor(rep(c("a", "b", "c"), length.out = m))
  x <- rnorm(m, mean = as.integer(y))
  h <- 0.5
  gx <- parzen_grid(x, h)
  kx <- parzen_windows(gx, x, h)
  px <- rowMeans(kx)
  integral <- sum(vapply(levels(y), function(l) {
    sum((kx %*% (y == l) / m - px * mean(y == l))^2)
  }, numeric(1))) * (gx[2] - gx[1])
  q <- qmi(x, y, bandwidth_x = h)
  expect_equal(q$estimate, integral, tolerance = 1e-6)
  expect_true(is.na(q$bandwidth_y) && is.na(q$d_y))
  # two classes, given as character: the same delta window
  y2 <- ifelse(x > 2, "hi", "lo")
  integral2 <- sum(vapply(unique(y2), function(l) {
    sum((kx %*% (y2 == l) / m - px * mean(y2 == l))^2)
  }, numeric(1))) * (gx[2] - gx[1])
  expect_equal(qmi(x, y2, bandwidth_x = h)$estimate, integral2, tolerance = 1e-6)
})

test_that("qmi() is m^-2 tr(kappa H nu H) and hsic() with the Parzen pair", {
  set.seed(13)
  m <- 12
  x <- matrix(rnorm(m * 2), m, 2, dimnames = list(NULL, c("a", "b")))
  y <- x[, 1] * x[, 2] + rnorm(m, sd = 0.1)
  hx <- 0.7
  hy <- 0.4
  # kappa_ij = N(x_i - x_j; 0, 2 h^2 I), a product over the 2 dimensions
  kappa <- outer(seq_len(m), seq_len(m), Vectorize(function(i, j) {
    prod(stats::dnorm(x[i, ] - x[j, ], sd = sqrt(2) * hx))
  }))
  nu <- outer(y, y, function(a, b) stats::dnorm(a - b, sd = sqrt(2) * hy))
  H <- diag(m) - 1 / m
  oracle <- sum(diag(kappa %*% H %*% nu %*% H)) / m^2
  q <- qmi(x, y, hx, hy)
  expect_equal(q$estimate, oracle, tolerance = 1e-10)
  expect_equal(q$d_x, 2L)
  h <- hsic(x, y, kernel = kernel_parzen(hx), kernel_y = label_kernel_parzen(hy),
            estimator = "biased")
  expect_equal(h$estimate, q$hsic0, tolerance = 1e-12)
  expect_equal(h$estimate * (m - 1)^2 / m^2 / (4 * pi * hx^2) / sqrt(4 * pi * hy^2),
               q$estimate, tolerance = 1e-12)
  # invariant to the order of the samples
  o <- sample(m)
  expect_equal(qmi(x[o, ], y[o], hx, hy)$estimate, q$estimate, tolerance = 1e-12)
})

test_that("a NULL bandwidth is the median rule, the same in qmi() and hsic()", {
  set.seed(14)
  m <- 11
  x <- rnorm(m)
  y <- x + rnorm(m)
  q <- qmi(x, y)
  expect_equal(q$bandwidth_x, sqrt(stats::median(stats::dist(x)^2)) / 2)
  expect_equal(q$bandwidth_y, sqrt(stats::median(stats::dist(y)^2)) / 2)
  expect_equal(qmi(x, y, q$bandwidth_x, q$bandwidth_y)$estimate, q$estimate, tolerance = 1e-12)
  h <- hsic(x, y, kernel = kernel_parzen(), kernel_y = label_kernel_parzen(),
            estimator = "biased")$estimate
  expect_equal(h, q$hsic0, tolerance = 1e-12)
  expect_gte(q$estimate, 0)
  expect_output(print(q), "Quadratic mutual information")
  expect_output(print(qmi(x, factor(x > 0))), "classes")
})

test_that("the indicator map is the delta kernel, the Parzen label kernel of classes", {
  y <- factor(c("a", "b", "a", "c", "c", "c"))
  L <- label_kernel_matrix(label_kernel_multiclass("indicator"), y)
  expect_equal(unname(L), 1 * outer(y, y, "=="))
  set.seed(15)
  x <- matrix(rnorm(18), 6, 3, dimnames = list(NULL, paste0("g", 1:3)))
  expect_equal(hsic(x, y, kernel_y = label_kernel_parzen(), estimator = "biased")$estimate,
               hsic(x, y, kernel_y = label_kernel_multiclass("indicator"),
                    estimator = "biased")$estimate)
  # for a numeric outcome it is the Gaussian window on y
  yn <- c(0.1, 0.5, 0.2, 1.4, 1.1, 0.9)
  Ln <- label_kernel_matrix(label_kernel_parzen(0.5), yn)
  expect_equal(unname(Ln), exp(-outer(yn, yn, "-")^2 / (4 * 0.5^2)))
})

test_that("bahsic() and fohsic() keep a Parzen window's bandwidth fixed", {
  set.seed(16)
  m <- 30
  x <- matrix(rnorm(m * 6), m, 6, dimnames = list(NULL, paste0("g", 1:6)))
  y <- factor(ifelse(x[, 1] + x[, 2]^2 > 1, "up", "down"))
  h <- 0.9
  ref <- bahsic(x, y, kernel = kernel_gaussian(sigma = 1 / (4 * h^2)),
                sigma = "fixed")
  fit <- bahsic(x, y, kernel = kernel_parzen(h))
  expect_identical(fit$features, ref$features)
  expect_equal(fit$path$sigma, rep(1 / (4 * h^2), nrow(fit$path)))
  expect_identical(fit$settings$sigma, "fixed")
  # a policy that would change the bandwidth is an error, not silently ignored
  for (policy in c("dimension", "optimize")) {
    expect_error(bahsic(x, y, kernel = kernel_parzen(h), sigma = policy),
                 "would change the bandwidth of a Parzen window")
  }
  ref_f <- fohsic(x, y, n_features = 3, kernel = kernel_gaussian(sigma = 1 / (4 * h^2)),
                  sigma = "fixed")
  fit_f <- fohsic(x, y, n_features = 3, kernel = kernel_parzen(h))
  expect_identical(fit_f$features, ref_f$features)
  # a NULL bandwidth: the median rule on all features, then kept
  fit0 <- bahsic(x, y, kernel = kernel_parzen(), kernel_y = label_kernel_parzen())
  expect_length(unique(fit0$path$sigma), 1L)
})

test_that("bad bandwidths are errors that name the argument", {
  for (bad in list(0, -1, NA_real_, Inf, "1", c(1, 2))) {
    expect_error(kernel_parzen(bad), "'bandwidth' must be a single positive")
    expect_error(label_kernel_parzen(bad), "'bandwidth' must be a single positive")
    expect_error(qmi(1:5, 1:5, bandwidth_x = bad), "'bandwidth_x' must be a single positive")
    expect_error(qmi(1:5, 1:5, bandwidth_y = bad), "'bandwidth_y' must be a single positive")
  }
  expect_error(qmi(1, 2), "at least 2|samples")
  expect_error(qmi(1:5, 1:4), "'y'|length|samples")
})
