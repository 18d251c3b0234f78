# Kernel dependence given covariates and blocks (R/design-kernel.R): hsic(),
# hsic_test() and the kernel methods of feature_scores() with a design.

# P = I - Q Q' on span{1, Z} (plain R)
proj_of <- function(Z) {
  Q <- qr.Q(qr(cbind(1, Z)))
  diag(nrow(Q)) - tcrossprod(Q)
}
gauss_gram <- function(v, sigma) exp(-sigma * as.matrix(dist(v))^2)

test_that("with linear kernels hsic() is the squared partial covariance", {
  set.seed(1)
  m <- 40
  batch <- factor(rep(1:4, each = 10))
  z <- rnorm(m)
  x <- rnorm(m) + as.integer(batch) + z
  y <- rnorm(m) + as.integer(batch) - z
  P <- proj_of(model.matrix(~ batch + z)[, -1])
  h <- hsic(x, y, kernel = kernel_linear(), kernel_y = label_kernel_regression(kernel_linear()),
            covariates = data.frame(batch = batch, z = z))
  df <- m - 5
  expect_equal(h$estimate, sum((P %*% x) * (P %*% y))^2 / df^2)
  # the partial covariance of lm()'s residuals
  rx <- residuals(lm(x ~ batch + z))
  ry <- residuals(lm(y ~ batch + z))
  expect_equal(sqrt(h$estimate), abs(sum(rx * ry)) / df)
  expect_identical(h$estimator, "biased")
  expect_true(is.na(h$hsic1))
  expect_output(print(h), "design: ~ batch \\+ z")
})

test_that("linear per-gene HSIC on residual-standardised genes ranks as the partial correlation", {
  set.seed(2)
  m <- 30
  batch <- factor(rep(1:3, each = 10))
  x <- matrix(rnorm(m * 40), m) + as.integer(batch)
  y <- rnorm(m) + x[, 1] + x[, 2] / 2 + as.integer(batch)
  P <- proj_of(model.matrix(~ batch)[, -1])
  xs <- scale(P %*% x)
  colnames(xs) <- paste0("g", 1:40)
  s <- feature_scores(xs, y, method = "hsic", kernel = kernel_linear(),
                      kernel_y = label_kernel_regression(kernel_linear()), covariates = batch)
  pcor <- apply(x, 2L, function(g) cor(P %*% g, P %*% y))
  expect_identical(s$rank, rank(-abs(pcor), ties.method = "first"))
  pc <- tryCatch(feature_scores(xs, y, method = "pc", covariates = batch),
                 error = function(e) NULL)
  if (!is.null(pc)) expect_identical(s$rank, pc$rank)
})

test_that("hsic(covariates = ) is tr(K P L P) / df^2 on the residualised features and outcome", {
  set.seed(3)
  m <- 36
  ann <- data.frame(batch = rep(c("a", "b", "c"), each = 12), age = rnorm(m))
  x <- matrix(rnorm(m * 2), m) + (ann$batch == "b")
  y <- rnorm(m) + ann$age
  P <- proj_of(model.matrix(~ batch + age, ann)[, -1])
  K <- gauss_gram(P %*% x, 0.3)
  L <- gauss_gram(P %*% y, 0.5)
  oracle <- sum(K * (P %*% L %*% P)) / (m - 4)^2
  h <- hsic(x, y, kernel = kernel_gaussian(sigma = 0.3),
            kernel_y = label_kernel_regression(kernel_gaussian(sigma = 0.5)),
            covariates = ~ batch + age, data = ann)
  expect_equal(h$estimate, oracle)
  # the formula interface reads the covariates from its data; they are not features
  d <- data.frame(x1 = x[, 1], x2 = x[, 2], y = y, ann)
  hf <- hsic(y ~ ., data = d, kernel = kernel_gaussian(sigma = 0.3),
             kernel_y = label_kernel_regression(kernel_gaussian(sigma = 0.5)),
             covariates = ~ batch + age)
  expect_equal(hf$estimate, oracle)
  # classes: the label factor projected; ichol agrees with the exact value
  cls <- factor(ifelse(y > 0, "u", "d"))
  he <- hsic(x, cls, covariates = ~ batch + age, data = ann)
  hi <- hsic(x, cls, covariates = ~ batch + age, data = ann, approx = "ichol")
  expect_equal(hi$estimate, he$estimate, tolerance = 1e-3)
})

test_that("the gamma test under a design has the permutation moments of the residualised pair", {
  set.seed(4)
  m <- 30
  batch <- factor(rep(1:3, each = 10))
  x <- matrix(rnorm(m * 2), m) + as.integer(batch)
  y <- rnorm(m) + as.integer(batch)
  t <- hsic_test(x, y, kernel = kernel_gaussian(sigma = 0.4),
                 kernel_y = label_kernel_regression(kernel_gaussian(sigma = 0.6)),
                 covariates = batch)
  P <- proj_of(model.matrix(~ batch)[, -1])
  Kr <- P %*% gauss_gram(P %*% x, 0.4) %*% P
  W <- P %*% gauss_gram(P %*% y, 0.6) %*% P
  # the exact moments of tr(Kr pi W pi') over all permutations, by brute force
  # on a few thousand of them
  stat <- sum(Kr * W)
  null <- replicate(3000, {
    p <- sample.int(m)
    sum(Kr * W[p, p])
  })
  mo <- bahsic:::perm_moments(Kr, W)
  expect_equal(mo[["mean"]], mean(null), tolerance = 0.03)
  expect_equal(mo[["var"]], var(null), tolerance = 0.1)
  expect_equal(unname(t$p.value), pgamma(stat, shape = mo[["mean"]]^2 / mo[["var"]],
                                         scale = mo[["var"]] / mo[["mean"]],
                                         lower.tail = FALSE))
  expect_match(t$method, "given ~ covariate")
})

test_that("permutations under a design stay within the strata, or permute residuals", {
  set.seed(5)
  m <- 24
  batch <- factor(rep(c("a", "b", "c"), 8))
  d <- bahsic:::resolve_design(bahsic:::design_spec(batch), m)
  perms <- bahsic:::design_perms(d, 50L)
  expect_true(all(apply(perms, 2L, function(p) all(batch[p] == batch))))
  x <- matrix(rnorm(m * 2), m)
  y <- factor(rep(c("n", "t"), each = 12))
  set.seed(6)
  t1 <- hsic_test(x, y, covariates = batch, method = "permutation", n_perm = 99)
  expect_match(t1$method, "within 3 strata")
  z <- rnorm(m)
  t2 <- hsic_test(x, y, covariates = z, method = "permutation", n_perm = 99)
  expect_match(t2$method, "Freedman and Lane")
  expect_true(t2$p.value > 0 && t2$p.value <= 1)
  # the scores' permutations within the batches
  s <- feature_scores(x, y, method = "hsic", covariates = batch, n_perm = 99)
  expect_true(all(s$p_value >= 0.01 & s$p_value <= 1))
})

test_that("adjusted p-values are calibrated on confounded null genes; unadjusted are not", {
  set.seed(7)
  m <- 48
  n <- 300
  batch <- factor(rep(1:4, each = 12))
  x <- matrix(rnorm(4 * n, sd = 1.5), 4)[as.integer(batch), ] + matrix(rnorm(m * n), m)
  y <- factor(rbinom(m, 1, c(0.2, 0.4, 0.6, 0.8)[batch]), labels = c("a", "b"))
  adj <- feature_scores(x, y, method = "hsic", covariates = batch, adjust = "none")$p_value
  raw <- feature_scores(x, y, method = "hsic", adjust = "none")$p_value
  d_adj <- unname(suppressWarnings(ks.test(adj, "punif"))$statistic)
  expect_lt(d_adj, 0.12)
  expect_true(abs(mean(adj < 0.05) - 0.05) < 0.04)
  expect_gt(mean(raw < 0.05), 0.2)
})

test_that("kta and mmd take a design: tr(K P L P) with the features residualised", {
  set.seed(8)
  m <- 32
  batch <- factor(rep(1:2, each = 16))
  y <- factor(rep(c("n", "t", "n", "t"), c(10, 6, 6, 10)))
  x <- matrix(rnorm(m * 5), m) + as.integer(batch)
  P <- proj_of(model.matrix(~ batch)[, -1])
  yy <- ifelse(y == "t", 1, -1)
  s <- feature_scores(x, y, method = "kta", kernel = kernel_gaussian(sigma = 0.5),
                      covariates = batch)
  L <- tcrossprod(yy)
  oracle <- apply(P %*% x, 2L, function(g) sum(gauss_gram(g, 0.5) * (P %*% L %*% P)))
  expect_equal(s$score, unname(oracle))
  mm <- feature_scores(x, y, method = "mmd", kernel = kernel_gaussian(sigma = 0.5),
                       covariates = batch)
  expect_identical(rank(-mm$score), rank(-feature_scores(
    x, y, method = "hsic", kernel = kernel_gaussian(sigma = 0.5),
    kernel_y = label_kernel_binary(balanced = TRUE), covariates = batch)$score))
  expect_true(all(mm$p_value > 0 & mm$p_value <= 1))
})

test_that("what a design cannot do is refused by name", {
  set.seed(9)
  m <- 24
  batch <- factor(rep(1:3, each = 8))
  x <- matrix(rnorm(m * 3), m)
  y <- rnorm(m)
  expect_error(hsic(x, y, covariates = batch, estimator = "unbiased"),
               "estimator = \"unbiased\" cannot adjust")
  expect_error(hsic(x, y, covariates = batch, approx = "block"),
               "approx = \"block\"\\) cannot adjust")
  expect_error(hsic_test(x, y, covariates = batch, method = "permutation",
                         estimator = "unbiased"), "cannot adjust")
  expect_error(feature_scores(x, y, method = "hsic", covariates = batch, estimator = "unbiased"),
               "cannot adjust")
  expect_error(feature_scores(x, y, method = "hsic", covariates = rnorm(m), n_perm = 10),
               "n_perm with a continuous covariate cannot adjust")
  expect_error(hsic(x, y, kernel = kernel_precomputed(tcrossprod(x)), covariates = batch),
               "cannot adjust")
  expect_error(hsic(x, y, covariates = batch[-1]), "'covariates' has 23 rows")
})

test_that("paired samples: a within-patient effect is found with block, not without", {
  set.seed(1)
  np <- 20
  patient <- factor(rep(seq_len(np), each = 2))
  y <- factor(rep(c("n", "t"), np))
  x <- matrix(rnorm(np, sd = 3)[patient] + rnorm(2 * np * 30), 2 * np)
  x[, 1] <- x[, 1] + (y == "t") * 1.2
  s <- feature_scores(x, y, method = "hsic", block = patient)
  s0 <- feature_scores(x, y, method = "hsic")
  expect_identical(s$rank[1], 1L)
  expect_lt(s$p_value[1], 0.01)
  expect_gt(s0$p_value[1], 0.1)
  # classes within pairs: the gamma's moments from permutations within the pairs
  t <- hsic_test(x[, 1], y, block = patient)
  expect_lt(t$p.value, 0.01)
  expect_equal(t$p.value, s$p_value[1], tolerance = 0.5)
})

test_that("hsic(), the gamma and the permutation test report the same estimate", {
  set.seed(10)
  m <- 30
  batch <- factor(rep(1:3, each = 10))
  x <- rnorm(m) + as.integer(batch)
  y <- factor(rep(c("n", "t"), 15))
  h <- hsic(x, y, covariates = batch)
  g <- hsic_test(x, y, covariates = batch)
  p <- hsic_test(x, y, covariates = batch, method = "permutation", n_perm = 19)
  expect_equal(unname(g$estimate), h$estimate)
  expect_equal(unname(p$statistic), h$estimate)
})

test_that("within pairs the gamma moments are exact: every swap of the pairs enumerated", {
  set.seed(17)
  n <- 6L
  pair <- factor(rep(seq_len(n), 2L))
  y <- factor(rep(c("a", "b"), each = n))
  x <- rnorm(2L * n) + rnorm(n)[pair]
  d <- resolve_design(design_spec(block = pair), 2L * n)
  lab <- label_gram(resolve_label_kernel(NULL, y), y, 1L)
  F <- design_factor(d, lab$Y)
  plan <- design_mc_factor(d, F)
  expect_false(is.null(plan$pairs))
  K <- exp(-outer(x, x, "-")^2 / 2)
  # all 2^n permutations within the pairs
  swaps <- as.matrix(expand.grid(rep(list(0:1), n)))
  stats <- apply(swaps, 1L, function(s) {
    idx <- seq_len(2L * n)
    for (i in which(s == 1)) idx[pair == i] <- rev(idx[pair == i])
    Fp <- F[idx, , drop = FALSE]
    sum(diag(crossprod(Fp, K %*% Fp)))
  })
  mo <- plan_moments(K, plan)
  expect_equal(unname(mo[["mean"]]), mean(stats), tolerance = 1e-12)
  expect_equal(unname(mo[["var"]]), mean((stats - mean(stats))^2), tolerance = 1e-10)
  # a covariate that varies within the pairs leaves strata of one sample: the draws
  cov <- factor(c(rep(c("u", "v"), n / 2L), rep(c("v", "u"), n / 2L)))
  d2 <- resolve_design(design_spec(covariates = cov, block = pair), 2L * n)
  expect_null(design_mc_factor(d2, design_factor(d2, lab$Y))$pairs)
})
