# l1_lsmi() and l1_hsic(): gradient projection onto the positive l1 ball
# with a search over its radius (slides "l1-LSMI (proposed method)" and
# "Gradient Projection Algorithm to Solve l1-LSMI" of
# Jitkrittum (2012)). Oracles in helper-lsmi.R.

test_that("the projection onto the positive l1 ball equals the oracle", {
  set.seed(1)
  for (i in test_cases(1:20, 3L)) {
    d <- sample(1:12, 1)
    v <- rnorm(d, sd = 2)
    z <- runif(1, 0.1, 3)
    got <- .Call(bahsic:::C_l1_project, v, z)
    expect_equal(got, oracle_project(v, z), tolerance = 1e-12)
  }
  expect_identical(.Call(bahsic:::C_l1_project, c(-1, 0.2, 0.3), 1), c(0, 0.2, 0.3))
  expect_identical(.Call(bahsic:::C_l1_project, c(-1, -2), 1), c(0, 0))
  expect_identical(.Call(bahsic:::C_l1_project, numeric(0), 1), numeric(0))
})

test_that("the projection is feasible, idempotent and nearest", {
  set.seed(2)
  for (i in test_cases(1:10, 2L)) {
    v <- rnorm(8, sd = 3)
    z <- 1.5
    w <- .Call(bahsic:::C_l1_project, v, z)
    expect_true(all(w >= 0))
    expect_lte(sum(w), z + 1e-12)
    expect_equal(.Call(bahsic:::C_l1_project, w, z), w, tolerance = 1e-14)
    # no feasible point is closer to v
    for (j in 1:20) {
      u <- runif(8)
      u <- u / sum(u) * runif(1, 0, z)
      expect_gte(sum((u - v)^2), sum((w - v)^2) - 1e-12)
    }
  }
})

test_that("the LSMI gradient in the weights equals the oracle's derivative", {
  for (case in test_cases(list(list(m = 10, d = 3, b = 4, cls = TRUE, seed = 1),
                               list(m = 9, d = 4, b = 9, cls = FALSE, seed = 2)))) {
    set.seed(case$seed)
    x <- matrix(rnorm(case$m * case$d), case$m, case$d)
    y <- if (case$cls) factor(x[, 1] > 0) else x[, 2]^2 + rnorm(case$m, sd = 0.1)
    cen <- sort(sample.int(case$m, case$b))
    if (case$cls) {
      phiy <- .Call(bahsic:::C_lsmi_delta, as.integer(y), cen)
      ykern <- delta
    } else {
      phiy <- exp(-outer(y, y[cen], "-")^2 / 2)
      ykern <- function(a, b) exp(-(a - b)^2 / 2)
    }
    w <- runif(case$d, 0.2, 1.5)
    par <- c(0.9, 0.05)
    got <- .Call(bahsic:::C_lsmi_grad, x, x[cen, , drop = FALSE], w, par[1], par[2], phiy,
                 crossprod(phiy))
    f <- function(w) oracle_lsmi_w(x, y, cen, w, par[1], par[2], ykern)
    expect_equal(got$value, f(w), tolerance = 1e-10)
    expect_equal(got$gradient, oracle_gradient(f, w), tolerance = 1e-6)
  }
})

test_that("the HSIC gradient in the weights equals the oracle's derivative", {
  for (case in test_cases(list(list(m = 10, d = 3, seed = 1, multi = FALSE),
                               list(m = 12, d = 5, seed = 2, multi = TRUE)))) {
    set.seed(case$seed)
    x <- matrix(rnorm(case$m * case$d), case$m, case$d)
    y <- if (case$multi) factor(rep_len(1:3, case$m)) else factor(x[, 1] > 0)
    lab <- bahsic:::label_gram(default_label_kernel(y), y)
    W <- bahsic:::weight_matrix(lab, case$m, "biased")
    w <- runif(case$d, 0.2, 1.5)
    got <- .Call(bahsic:::C_l1hsic_grad, x, w, 0.3, W)
    f <- function(w) oracle_hsic_w(x, lab$Y, w, 0.3)
    expect_equal(got$value, f(w), tolerance = 1e-10)
    expect_equal(got$gradient, oracle_gradient(f, w), tolerance = 1e-6)
  }
})

toy_l1 <- function(m = 40, d = 6, seed = 1) {
  set.seed(seed)
  x <- matrix(rnorm(m * d), m, d, dimnames = list(NULL, paste0("g", seq_len(d))))
  y <- factor(ifelse(x[, 2] + x[, 4] > 0, "b", "a"))
  list(x = x, y = y)
}

test_that("exactly n_features weights are non-zero, in the common result class", {
  t <- toy_l1()
  for (k in test_cases(c(1L, 2L, 3L), 1L)) {
    set.seed(1)
    fit <- l1_lsmi(t$x, t$y, n_features = k, restarts = 1, n_basis = 15, folds = 3)
    expect_s3_class(fit, "bahsic_selection")
    expect_identical(fit$method, "l1_lsmi")
    expect_identical(sum(fit$weights > 0), k)
    expect_identical(names(fit$weights), colnames(t$x))
    expect_identical(sort(fit$features$rank), seq_len(6L))
    expect_identical(fit$features$score, unname(fit$weights))
    expect_setequal(selected(fit, k), names(fit$weights)[fit$weights > 0])
    expect_lte(sum(fit$weights), fit$settings$z + 1e-12)
    expect_true(all(c("z", "restarts", "exact") %in% names(fit$settings)))
    expect_true(all(c("restart", "z", "lambda", "steps") %in% names(fit$path)))
    set.seed(1)
    fit_h <- l1_hsic(t$x, t$y, n_features = k, restarts = 1)
    expect_identical(fit_h$method, "l1_hsic")
    expect_identical(sum(fit_h$weights > 0), k)
  }
  expect_output(print(fit), "l1-LSMI feature selection")
})

test_that("the relevant pair is found on a small easy problem", {
  t <- toy_l1(60, 6, 3)
  set.seed(2)
  fit <- l1_lsmi(t$x, t$y, n_features = 2, restarts = 2, n_basis = 20, folds = 3)
  expect_setequal(selected(fit, 2), c("g2", "g4"))
  set.seed(2)
  fit_h <- l1_hsic(t$x, t$y, n_features = 2, restarts = 2)
  expect_setequal(selected(fit_h, 2), c("g2", "g4"))
})

test_that("results are reproducible under set.seed and the same for every interface", {
  t <- toy_l1(30, 5, 4)
  df <- data.frame(t$x, y = t$y)
  run <- function(f, ...) {
    set.seed(7)
    f(...)
  }
  a <- run(l1_lsmi, t$x, t$y, n_features = 2, restarts = 2, n_basis = 10, folds = 3)
  b <- run(l1_lsmi, t$x, t$y, n_features = 2, restarts = 2, n_basis = 10, folds = 3)
  expect_identical(b$weights, a$weights)
  f <- run(l1_lsmi, y ~ ., data = df, n_features = 2, restarts = 2, n_basis = 10, folds = 3)
  expect_identical(f$weights, a$weights)
  expect_identical(deparse(f$call[[1]]), "l1_lsmi")
  g <- run(l1_lsmi, df[1:5], df$y, n_features = 2, restarts = 2, n_basis = 10, folds = 3)
  expect_identical(g$weights, a$weights)
  h1 <- run(l1_hsic, t$x, t$y, n_features = 2, restarts = 2)
  h2 <- run(l1_hsic, y ~ ., data = df, n_features = 2, restarts = 2)
  expect_identical(h2$weights, h1$weights)
  expect_identical(deparse(h2$call[[1]]), "l1_hsic")
})

test_that("a numeric outcome works for both", {
  set.seed(3)
  m <- 40
  x <- matrix(rnorm(m * 4), m, 4)
  y <- x[, 3]^2 + rnorm(m, sd = 0.1)
  fit <- l1_lsmi(x, y, n_features = 1, restarts = 1, n_basis = 15, folds = 3)
  expect_identical(selected(fit, 1), "V3")
  fit_h <- l1_hsic(x, y, n_features = 1, restarts = 1)
  expect_identical(sum(fit_h$weights > 0), 1L)
})

test_that("a SummarizedExperiment gives the same selection as its matrix", {
  skip_peer("SummarizedExperiment")
  t <- toy_l1(30, 4, 5)
  se <- SummarizedExperiment::SummarizedExperiment(
    assays = list(expr = t(t$x)), colData = data.frame(cls = t$y))
  set.seed(1)
  a <- l1_hsic(se, "cls", n_features = 2, restarts = 1)
  set.seed(1)
  b <- l1_hsic(t$x, t$y, n_features = 2, restarts = 1)
  expect_identical(a$weights, b$weights)
})

test_that("bad input gives errors that say what to do", {
  t <- toy_l1(20, 4)
  x <- t$x
  x[2, 3] <- NA
  expect_error(l1_lsmi(x, t$y, n_features = 2), "missing values")
  expect_error(l1_hsic(x, t$y, n_features = 2), "missing values")
  expect_error(l1_lsmi(t$x, factor(rep("a", 20)), n_features = 2), "single class")
  expect_error(l1_hsic(t$x, factor(rep("a", 20)), n_features = 2), "single class")
  expect_error(l1_lsmi(t$x, t$y, n_features = 5), "from 1 to 4")
  expect_error(l1_hsic(t$x, t$y, n_features = 0), "from 1 to 4")
  expect_error(l1_lsmi(t$x, t$y), "'n_features' is missing")
  expect_error(l1_lsmi(t$x, t$y, n_features = 2, restarts = 0), "'restarts'")
  expect_error(l1_lsmi(t$x, t$y, n_features = 2, lambda = -1), "'lambda'")
  expect_error(l1_hsic(t$x, t$y, n_features = 2, kernel_y = "binary"), "label kernel")
  # constant features: a warning, weight 0, and an error if too few vary
  xc <- cbind(t$x, const1 = 1, const2 = 2)
  set.seed(1)
  expect_warning(fit <- l1_hsic(xc, t$y, n_features = 2, restarts = 1), "constant feature")
  expect_identical(unname(fit$weights[c("const1", "const2")]), c(0, 0))
  expect_error(suppressWarnings(l1_lsmi(xc, t$y, n_features = 5)), "only 4 features vary")
})

test_that("l1-LSMI recovers the relevant features of the slides' toy data", {
  skip_on_cran()
  skip_statistical_under_checkers("slow: 60 selections on n = 400")
  # The slides (F-measure on the toy data, n = 400, 50 trials) report
  # l1-LSMI as good as or better than l1-HSIC and B-HSIC on and-or, quad and
  # xor. Here: 10 draws each (seeds 101-110), F of the n_features selected
  # features against $relevant, averaged. When this test was written the
  # means were (l1-LSMI / l1-HSIC / bahsic top k): and-or 0.80 / 0.30 /
  # 0.25, quad 1.00 / 0.95 / 0.95, xor 1.00 / 1.00 / 1.00, so the claim
  # reproduces; and-or is the hard case (the noisy copies X8-X10 of y are
  # individually the strongest features).
  sets <- c("andor", "quad", "xor10")
  f <- array(NA_real_, c(10, 3, 3), list(NULL, sets, c("l1_lsmi", "l1_hsic", "bahsic")))
  for (r in 1:10) {
    for (s in sets) {
      set.seed(100 + r)
      sim <- get(paste0("simulate_", s))(400)
      k <- length(sim$relevant)
      rel <- colnames(sim$x)[sim$relevant]
      f[r, s, "l1_lsmi"] <- f_measure(selected(l1_lsmi(sim$x, sim$y, k), k), rel)
      f[r, s, "l1_hsic"] <- f_measure(selected(l1_hsic(sim$x, sim$y, k), k), rel)
      f[r, s, "bahsic"] <- f_measure(selected(bahsic(sim$x, sim$y), k), rel)
    }
  }
  mean_f <- apply(f, c(2, 3), mean)
  for (s in sets) {
    expect_gte(mean_f[s, "l1_lsmi"], mean_f[s, "l1_hsic"])
    expect_gte(mean_f[s, "l1_lsmi"], mean_f[s, "bahsic"])
  }
  # and it actually recovers them, not only less badly than the others
  expect_gte(min(mean_f[, "l1_lsmi"]), 0.7)
  expect_gte(mean(mean_f[c("quad", "xor10"), "l1_lsmi"]), 0.95)
})
