st_data <- function(m = 40, p = 20, seed = 1) {
  set.seed(seed)
  x <- matrix(rnorm(m * p), m, p, dimnames = list(NULL, paste0("g", seq_len(p))))
  y <- factor(rep(c("a", "b"), length.out = m))
  list(x = x, y = y)
}

# standardised columns, as the selectors standardise them
st_std <- function(x) {
  x <- sweep(x, 2L, colMeans(x))
  sweep(x, 2L, sqrt(colSums(x^2) / (nrow(x) - 1)), "/")
}

# the procedure in plain R: permutations, then seeds, then one selection per
# permutation from its seed and HSIC of its top n set
st_oracle <- function(select, stat, y, n, n_perm, seed) {
  set.seed(seed)
  m <- length(y)
  perms <- vapply(seq_len(n_perm), function(i) sample.int(m), integer(m))
  seeds <- sample.int(.Machine$integer.max, n_perm)
  vapply(seq_len(n_perm), function(b) {
    yb <- y[perms[, b]]
    set.seed(seeds[b])
    stat(select(yb), yb)
  }, numeric(1))
}

test_that("the statistic is HSIC of the top n set with the selector's kernel and width", {
  d <- st_data()
  d$x[, 3] <- d$x[, 3] + 2 * (d$y == "b")
  fit <- bahsic(d$x, d$y)
  set.seed(1)
  res <- selection_test(fit, n = 4, n_perm = 3)
  top <- selected(fit, 4)
  xs <- st_std(d$x)
  want <- hsic(xs[, top], d$y, kernel = kernel_gaussian(1 / 8), estimator = "biased")$estimate
  expect_equal(unname(res$statistic), want)
  expect_named(res$statistic, "HSIC0")
  expect_identical(res$features, top)
  expect_s3_class(res, "htest")
  expect_equal(res$parameter, c(n = 4, n_perm = 3))
  expect_length(res$null, 3L)

  # unbiased estimator, fixed width, no standardisation
  fit_u <- bahsic(d$x, d$y, estimator = "unbiased", sigma = "fixed",
                  kernel = kernel_gaussian(0.05), standardize = FALSE)
  res_u <- selection_test(fit_u, n = 3, n_perm = 2)
  want_u <- hsic(d$x[, selected(fit_u, 3)], d$y, kernel = kernel_gaussian(0.05),
                 estimator = "unbiased")$estimate
  expect_equal(unname(res_u$statistic), want_u)
  expect_named(res_u$statistic, "HSIC1")

  # Laplace, "dimension": 1 / sqrt(2 n)
  fit_l <- fohsic(d$x, d$y, kernel = kernel_laplace(), n_features = 5)
  res_l <- selection_test(fit_l, n = 2, n_perm = 2)
  want_l <- hsic(xs[, selected(fit_l, 2)], d$y, kernel = kernel_laplace(1 / sqrt(4)),
                 estimator = "biased")$estimate
  expect_equal(unname(res_l$statistic), want_l)
})

test_that("BAHSIC and FOHSIC stopped at n keep the top n set of the full ranking", {
  skip_if(under_valgrind(), "R code only; the selection loops have their own tests")
  d <- st_data(m = 30, p = 25, seed = 2)
  d$x[, 1] <- d$x[, 1] + (d$y == "b")
  for (drop in c(0.1, 0.3)) {
    full_b <- bahsic(d$x, d$y, drop = drop)
    full_f <- fohsic(d$x, d$y, add = drop)
    for (n in c(1, 4, 7, 12)) {
      expect_setequal(selected(full_b, n),
                      selected(bahsic(d$x, d$y, drop = drop, n_features = n), n))
      expect_setequal(selected(full_f, n),
                      selected(fohsic(d$x, d$y, add = drop, n_features = n), n))
    }
  }
})

test_that("the null statistics are those of a plain-R re-selection loop", {
  d <- st_data(m = 30, p = 12, seed = 3)
  fit <- bahsic(d$x, d$y, drop = 0.2)
  n <- 3
  xs <- st_std(d$x)
  stat <- function(top, yb) {
    hsic(xs[, top], yb, kernel = kernel_gaussian(1 / (2 * n)), estimator = "biased")$estimate
  }
  set.seed(11)
  res <- selection_test(fit, n = n, n_perm = 6)
  want <- st_oracle(function(yb) selected(bahsic(d$x, yb, drop = 0.2), n), stat, d$y, n, 6, 11)
  expect_equal(res$null, want)
  p <- (1 + sum(want >= unname(res$statistic) - 1e-8 * unname(res$statistic))) / 7
  expect_equal(res$p.value, p)
})

test_that("randsel re-runs from a seed per permutation and set.seed reproduces", {
  d <- st_data(m = 24, p = 8, seed = 4)
  set.seed(5)
  fit <- randsel(d$x, d$y, n_boot = 20, cull = 0.5)
  set.seed(6)
  res <- selection_test(fit, n = 2, n_perm = 4)
  set.seed(6)
  again <- selection_test(fit, n = 2, n_perm = 4)
  expect_identical(res, again)
  # randsel's width: the "dimension" rule for n features
  xs <- st_std(d$x)
  stat <- function(top, yb) {
    hsic(xs[, top], yb, kernel = kernel_gaussian(1 / 4), estimator = "biased")$estimate
  }
  want <- st_oracle(function(yb) selected(randsel(d$x, yb, n_boot = 20, cull = 0.5), 2),
                    stat, d$y, 2, 4, 6)
  expect_equal(res$null, want)
  expect_equal(unname(res$statistic), stat(selected(fit, 2), d$y))
})

test_that("strongly dependent features give the smallest p-value, 1 / (1 + B)", {
  d <- st_data(m = 40, p = 15, seed = 7)
  d$x[, 2] <- 3 * (d$y == "b") + 0.1 * d$x[, 2]
  d$x[, 9] <- -3 * (d$y == "b") + 0.1 * d$x[, 9]
  fit <- bahsic(d$x, d$y, drop = 0.2)
  set.seed(8)
  res <- selection_test(fit, n = 2, n_perm = 9)
  expect_equal(res$p.value, 0.1)
  expect_true(all(res$null < res$statistic))
  expect_setequal(res$features, c("g2", "g9"))
})

test_that("every kind of selector and the formula interface", {
  skip_if(under_valgrind(), "R code only; the selectors have their own tests")
  d <- st_data(m = 30, p = 8, seed = 9)
  d$x[, 1] <- d$x[, 1] + 2 * (d$y == "b")
  set.seed(1)
  fit_h <- l1_hsic(d$x, d$y, n_features = 2, restarts = 1)
  res_h <- selection_test(fit_h, n = 2, n_perm = 3)
  # l1_hsic: a Gaussian kernel with the median heuristic
  want <- hsic(st_std(d$x)[, selected(fit_h, 2)], d$y, estimator = "biased")$estimate
  expect_equal(unname(res_h$statistic), want)
  expect_match(res_h$method, "l1-HSIC")
  expect_true(res_h$p.value > 0 && res_h$p.value <= 1)

  set.seed(1)
  fit_s <- l1_lsmi(d$x, d$y, n_features = 1, restarts = 1, n_basis = 20, folds = 2)
  res_s <- selection_test(fit_s, n = 1, n_perm = 2)
  expect_length(res_s$null, 2L)

  df <- data.frame(d$x, cls = d$y)
  fit_f <- bahsic(cls ~ ., data = df, drop = 0.3)
  set.seed(2)
  res_f <- selection_test(fit_f, n = 2, n_perm = 4)
  fit_m <- bahsic(d$x, d$y, drop = 0.3)
  set.seed(2)
  res_m <- selection_test(fit_m, n = 2, n_perm = 4)
  expect_equal(res_f$null, res_m$null)
  expect_equal(res_f$p.value, res_m$p.value)
  expect_match(res_f$data.name, "cls ~ .", fixed = TRUE)
})

test_that("clinical_rfe is re-run through its call", {
  skip_peer("kernlab")
  set.seed(10)
  df <- data.frame(a = rnorm(24), b = factor(sample(c("u", "v"), 24, TRUE)), c = rnorm(24))
  cls <- factor(rep(c("n", "y"), 12))
  df$a <- df$a + 2 * (cls == "y")
  fit <- clinical_rfe(df, cls)
  res <- selection_test(fit, n = 1, n_perm = 3)
  expect_length(res$null, 3L)
  expect_match(res$method, "RFE-SVM")
})

test_that("a precomputed label kernel is permuted with the outcome", {
  d <- st_data(m = 30, p = 10, seed = 12)
  d$x[, 4] <- d$x[, 4] + (d$y == "b")
  v <- ifelse(d$y == "b", 1, -1) / 15
  pre <- label_kernel_regression(kernel_precomputed(tcrossprod(v)))
  fit_b <- bahsic(d$x, d$y, kernel_y = label_kernel_binary(), drop = 0.3)
  fit_p <- bahsic(d$x, d$y, kernel_y = pre, drop = 0.3)
  set.seed(13)
  res_b <- selection_test(fit_b, n = 2, n_perm = 5)
  set.seed(13)
  res_p <- selection_test(fit_p, n = 2, n_perm = 5)
  expect_equal(res_p$statistic, res_b$statistic)
  expect_equal(res_p$null, res_b$null)
})

test_that("x and y can be given, and parallel back ends give the serial result", {
  d <- st_data(m = 24, p = 10, seed = 14)
  make <- function() {
    xx <- d$x
    yy <- d$y
    bahsic(xx, yy, drop = 0.3)
  }
  fit <- make()
  expect_error(selection_test(fit, 2, 3), "give x and y")
  set.seed(15)
  res <- selection_test(fit, 2, 6, x = d$x, y = d$y)
  expect_length(res$null, 6L)
  skip_peer("BiocParallel")
  set.seed(15)
  par <- selection_test(fit, 2, 6, x = d$x, y = d$y, parallel = BiocParallel::SerialParam())
  expect_identical(par$null, res$null)
  expect_identical(par$p.value, res$p.value)
})

test_that("bad input gives errors that say what to do", {
  d <- st_data(m = 20, p = 6, seed = 16)
  fit <- bahsic(d$x, d$y)
  expect_error(selection_test(list(), 2), "bahsic_selection")
  xu <- matrix(rnorm(60), 15, 4)
  expect_error(selection_test(bahsic(xu, unsupervised = TRUE), 2, n_perm = 3), "unsupervised")
  expect_error(selection_test(fit, 0), "'n' must be a whole number from 1 to 6")
  expect_error(selection_test(fit, 7), "'n' must be a whole number from 1 to 6")
  expect_error(selection_test(fit, 1.5), "'n'")
  expect_error(selection_test(fit), "'n'")
  expect_error(selection_test(fit, 2, n_perm = 0), "'n_perm'")
  expect_error(selection_test(fit, 2, parallel = "threads"), "'parallel'")
  expect_error(selection_test(fit, 2, x = d$x), "both 'x' and 'y'")
  no_call <- fit
  no_call$call <- NULL
  expect_error(selection_test(no_call, 2), "no call")
  expect_error(selection_test(fit, 2, x = d$x[1:10, ], y = d$y[1:10]), "10 samples.*20")
  x2 <- d$x
  colnames(x2) <- paste0("h", 1:6)
  expect_error(selection_test(fit, 2, x = x2, y = d$y), "features are not those")
})

test_that("on pure noise the naive test is anti-conservative and selection_test is not", {
  skip_on_cran()
  skip_if(under_valgrind(), "slow under valgrind")
  naive <- adjusted <- numeric(0)
  for (r in 1:12) {
    d <- st_data(m = 30, p = 40, seed = 100 + r)
    fit <- bahsic(d$x, d$y, drop = 0.3)
    top <- selected(fit, 3)
    set.seed(r)
    naive[r] <- hsic_test(d$x[, top], d$y, method = "permutation", n_perm = 19)$p.value
    adjusted[r] <- selection_test(fit, n = 3, n_perm = 19)$p.value
  }
  # independent data: the naive p-values pile up near 1 / 20, the adjusted
  # ones spread over (0, 1]
  expect_lt(mean(naive), 0.2)
  expect_gt(mean(adjusted), 0.3)
  expect_lt(mean(adjusted), 0.75)
  expect_lt(mean(adjusted <= 0.1), 0.4)
})

# ---- a censored survival outcome ---------------------------------------------------

test_that("a Surv outcome is permuted by whole (time, event) pairs", {
  skip_if_not_installed("survival")
  set.seed(21)
  s <- simulate_survival(40, p = 12, censoring = 0.3)
  perm <- sample.int(40)
  # the label of the permuted outcome is the permuted label (top_stat() permutes it)
  yp <- s$y[perm, , drop = FALSE]
  expect_s3_class(yp, "Surv")
  expect_identical(unclass(yp)[, 2L], unclass(s$y)[perm, 2L])
  expect_equal(surv_scores(yp), surv_scores(s$y)[perm])
  fit <- fohsic(s$x, s$y, n_features = 3)
  set.seed(22)
  t1 <- selection_test(fit, 2, n_perm = 9)
  expect_length(t1$null, 9L)
  expect_true(t1$p.value > 0 && t1$p.value <= 1)
  blk <- factor(rep(seq_len(20), each = 2))
  set.seed(22)
  t2 <- selection_test(fit, 2, n_perm = 9, block = blk)
  expect_match(t2$method, "within strata")
})
