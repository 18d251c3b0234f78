# The contribution column of every selector's result, against plain-R oracles
# (biased HSIC0 = tr(K H L H) / (m - 1)^2, Song et al. 2012, eq. 4), and the
# join of feature_scores() to the selection table.

contrib_data <- function(m = 30L, d = 8L, seed = 11L) {
  set.seed(seed)
  x <- matrix(rnorm(m * d), m, d, dimnames = list(NULL, paste0("g", seq_len(d))))
  y <- factor(rep(c("a", "b"), length.out = m))
  x[, 2] <- x[, 2] + 1.5 * (y == "b")
  x[, 5] <- x[, 5] - 1.0 * (y == "b")
  v <- ifelse(y == "b", 1, -1)
  list(x = x, y = y, L = tcrossprod(v))
}

# Gaussian exp(-sigma ||a - b||^2) (or linear) on the standardised columns
# `set`, HSIC0 against L; 0 for the empty set (constant kernel).
hsic0_oracle <- function(xs, L, set, sigma, linear = FALSE) {
  m <- nrow(xs)
  if (length(set) == 0L) return(0)
  z <- xs[, set, drop = FALSE]
  K <- if (linear) tcrossprod(z) else exp(-sigma * as.matrix(stats::dist(z))^2)
  H <- diag(m) - 1 / m
  sum(diag(K %*% H %*% L %*% H)) / (m - 1)^2
}

bahsic_oracle <- function(fit, xs, L, linear = FALSE) {
  f <- fit$features
  vapply(seq_len(nrow(f)), function(j) {
    t <- f$iteration[j]
    if (is.na(t)) return(NA_real_)
    surv <- which(!is.na(f$iteration) & f$iteration >= t)
    sigma <- fit$path$sigma[fit$path$iteration == t]
    h <- hsic0_oracle(xs, L, surv, sigma, linear)
    (h - hsic0_oracle(xs, L, setdiff(surv, j), sigma, linear)) / h
  }, numeric(1))
}

fohsic_oracle <- function(fit, xs, L) {
  f <- fit$features
  vapply(seq_len(nrow(f)), function(j) {
    t <- f$iteration[j]
    if (is.na(t)) return(NA_real_)
    before <- which(!is.na(f$iteration) & f$iteration < t)
    sigma <- fit$path$sigma[fit$path$iteration == t]
    with_j <- hsic0_oracle(xs, L, c(before, j), sigma)
    (with_j - hsic0_oracle(xs, L, before, sigma)) / with_j
  }, numeric(1))
}

test_that("BAHSIC's contribution is the share of HSIC lost on elimination", {
  d <- contrib_data()
  xs <- scale(d$x)
  ky <- label_kernel_precomputed(d$L)
  # BAHSIC itself, without the screen (test-select-screen.R)
  fit <- bahsic(d$x, d$y, kernel_y = ky, drop = 0.2, threads = 1L, screen = "none")
  expect_equal(fit$features$contribution, bahsic_oracle(fit, xs, d$L), tolerance = 1e-8)
  # the last feature leaves a set of one: all of its HSIC
  expect_identical(fit$features$contribution[fit$features$rank == 1L], 1)
  # stopped at n_features: the survivors against their own set
  part <- bahsic(d$x, d$y, kernel_y = ky, n_features = 3L, threads = 1L, screen = "none")
  expect_equal(part$features$contribution, bahsic_oracle(part, xs, d$L), tolerance = 1e-8)
  # the fixed width and the linear kernel (one pass, linear_select())
  fixed <- bahsic(d$x, d$y, kernel = kernel_gaussian(0.05), kernel_y = ky, sigma = "fixed",
                  threads = 1L, screen = "none")
  expect_equal(fixed$features$contribution, bahsic_oracle(fixed, xs, d$L), tolerance = 1e-8)
  lin <- bahsic(d$x, d$y, kernel = kernel_linear(), kernel_y = ky, threads = 1L)
  expect_equal(lin$features$contribution, bahsic_oracle(lin, xs, d$L, linear = TRUE),
               tolerance = 1e-8)
})

test_that("FOHSIC's contribution is the share of HSIC gained on addition", {
  d <- contrib_data()
  xs <- scale(d$x)
  ky <- label_kernel_precomputed(d$L)
  # "dimension": the width changes every iteration, so HSIC(S+) is recomputed
  fit <- fohsic(d$x, d$y, kernel_y = ky, add = 0, threads = 1L)
  expect_gt(length(unique(fit$path$sigma)), 1L)
  expect_equal(fit$features$contribution, fohsic_oracle(fit, xs, d$L), tolerance = 1e-8)
  expect_identical(fit$features$contribution[fit$features$iteration == 1L], 1)
  # a fixed width: the previous path row
  fixed <- fohsic(d$x, d$y, kernel = kernel_gaussian(0.05), kernel_y = ky, sigma = "fixed",
                  add = 0.2, n_features = 5L, threads = 1L)
  expect_equal(fixed$features$contribution, fohsic_oracle(fixed, xs, d$L), tolerance = 1e-8)
  expect_true(all(is.na(fixed$features$contribution[is.na(fixed$features$rank)])))
})

test_that("FOHSIC's contribution on the block path uses the block estimate", {
  d <- contrib_data(m = 40L)
  xs <- scale(d$x)
  set.seed(2)
  fit <- fohsic(d$x, d$y, kernel_y = label_kernel_precomputed(d$L), add = 0.3,
                approx = approx_block(size = 20), threads = 1L)
  blocks <- fit$settings$blocks
  block_hsic <- function(set, sigma) {
    mean(vapply(blocks, function(i) {
      hsic0_oracle(xs[i, , drop = FALSE], d$L[i, i], set, sigma)
    }, numeric(1)))
  }
  f <- fit$features
  want <- vapply(seq_len(nrow(f)), function(j) {
    t <- f$iteration[j]
    before <- which(f$iteration < t)
    sigma <- fit$path$sigma[fit$path$iteration == t]
    with_j <- block_hsic(c(before, j), sigma)
    (with_j - block_hsic(before, sigma)) / with_j
  }, numeric(1))
  expect_equal(f$contribution, want, tolerance = 1e-8)
})

test_that("randsel, the weights and RFE normalise their own criteria", {
  set.seed(1)
  sim <- simulate_xor(60)
  set.seed(4)
  r <- randsel(sim$x[, 1:8], sim$y, n_boot = 50, threads = 1L)
  h <- r$path$hsic[match(r$features$iteration, r$path$iteration)]
  expect_equal(r$features$contribution, r$features$score / h)

  w <- hsic_weights(sim$x[, 1:6], sim$y, lambda = 1e-5, threads = 1L)
  expect_true(all(w$weights >= 0))
  expect_gt(sum(w$weights), 0)
  expect_equal(w$features$contribution, unname(w$weights / sum(w$weights)))
  expect_equal(sum(w$features$contribution), 1)

  set.seed(5)
  l1 <- l1_hsic(sim$x[, 1:6], sim$y, n_features = 2, restarts = 1L)
  expect_equal(l1$features$contribution, unname(l1$weights / sum(l1$weights)))
  expect_equal(sum(l1$features$contribution[l1$features$rank <= 2L]), 1)

  skip_if_not_installed("kernlab")
  skip_if_not_installed("MASS")
  bw <- MASS::birthwt
  bx <- data.frame(age = bw$age, lwt = bw$lwt, race = factor(bw$race), smoke = factor(bw$smoke))
  for (importance in c("svm", "mkl")) {
    fit <- clinical_rfe(bx, factor(bw$low), importance = importance, threads = 1L)
    total <- colSums(fit$importance, na.rm = TRUE)[fit$features$iteration]
    expect_equal(fit$features$contribution, unname(fit$features$score / total))
    expect_equal(fit$features$contribution[fit$features$rank == 1L], 1)
  }
})

test_that("new_selection() fills, checks and places the contribution and annotation", {
  f <- data.frame(feature = c("a", "b", "c"), rank = c(2L, 1L, NA), score = c(0.1, 0.2, NA),
                  iteration = c(1L, 2L, NA), stringsAsFactors = FALSE)
  path <- data.frame(iteration = 1:2, n_features = 2:1, hsic = c(0.3, 0.2), sigma = NA)
  s <- new_selection("bahsic", f, path)
  expect_identical(s$features$contribution, rep(NA_real_, 3))
  expect_null(s$annotation)
  f$contribution <- c(0.5, 1, 7)
  s <- new_selection("bahsic", f, path)
  # not ranked: NA whatever was given
  expect_identical(s$features$contribution, c(0.5, 1, NA))
  expect_named(s$features, c("feature", "rank", "score", "iteration", "contribution"))
  bad <- f
  bad$contribution <- c("x", "y", "z")
  expect_error(new_selection("bahsic", bad, path), "'features\\$contribution' must be numeric")
  ann <- data.frame(symbol = c("A", "B", "C"), rank = 3:1)
  s <- new_selection("bahsic", f, path, annotation = ann)
  expect_named(s$features, c("feature", "symbol", "annotation_rank", "rank", "score",
                             "iteration", "contribution"))
  expect_identical(s$annotation, c("symbol", "annotation_rank"))
  expect_identical(s$features$rank, c(2L, 1L, NA))
  expect_error(new_selection("bahsic", f, path, annotation = ann[1:2, ]),
               "'annotation' must be a data frame with one row per feature \\(3\\)")
})

test_that("print, summary and as.data.frame show the contribution", {
  d <- contrib_data()
  fit <- bahsic(d$x, d$y, threads = 1L)
  expect_output(print(fit), "contribution")
  expect_output(print(summary(fit)), "contribution")
  df <- as.data.frame(fit)
  expect_named(df, c("feature", "rank", "score", "iteration", "contribution"))
  expect_identical(df$contribution, fit$features$contribution[match(df$feature,
                                                                    fit$features$feature)])
})

test_that("as.data.frame(scores =) joins feature_scores() by feature", {
  d <- contrib_data()
  fit <- fohsic(d$x, d$y, n_features = 4L, threads = 1L)
  df <- as.data.frame(fit, scores = "t", data = d$x, y = d$y)
  s <- feature_scores(d$x, d$y, method = "t")
  extra <- setdiff(names(s), "feature")
  expect_identical(names(df), c(names(as.data.frame(fit)), paste0("t_", extra)))
  idx <- match(df$feature, s$feature)
  for (col in extra) expect_identical(df[[paste0("t_", col)]], s[[col]][idx])
  # the rows stay in the selection's order
  expect_identical(df[names(as.data.frame(fit))], as.data.frame(fit))
  # further arguments reach feature_scores()
  df2 <- as.data.frame(fit, scores = "t", data = d$x, y = d$y, var_equal = TRUE)
  pooled <- feature_scores(d$x, d$y, method = "t", var_equal = TRUE)
  expect_identical(df2$t_score, pooled$score[match(df2$feature, pooled$feature)])
  expect_error(as.data.frame(fit, scores = "t"), "'data' is missing")
  expect_error(as.data.frame(fit, scores = "t", data = d$x[, 1:3], y = d$y),
               "'data' is not the data of the selection")
  expect_error(as.data.frame(fit, data = d$x), "'data' and 'y' are used with 'scores' only")
  expect_error(as.data.frame(fit, bogus = 1), "bogus")
})

test_that("as.data.frame(scores =) joins limma's moderated t", {
  skip_peer("limma")
  d <- contrib_data()
  fit <- bahsic(d$x, d$y, threads = 1L)
  df <- as.data.frame(fit, scores = "mt", data = d$x, y = d$y)
  s <- feature_scores(d$x, d$y, method = "mt")
  expect_identical(df$mt_score, s$score[match(df$feature, s$feature)])
})

test_that("as.data.frame(scores =) names a misspelt argument of feature_scores()", {
  d <- contrib_data()
  fit <- fohsic(d$x, d$y, n_features = 2L, threads = 1L)
  expect_error(as.data.frame(fit, scores = "t", data = d$x, y = d$y, threds = 1L),
               "has no argument 'threds'. Did you mean 'threads'?", fixed = TRUE)
})
