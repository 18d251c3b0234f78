# Unsupervised selection (section 10 of Song et al. (2012)): unsupervised = TRUE
# makes the standardised data the labels.

# x = F A + noise: three latent factors, each behind its own group of 6
# features, and 6 pure-noise features.
latent_data <- function(seed, m = 60L) {
  set.seed(seed)
  f <- matrix(rnorm(m * 3L), m, 3L)
  x <- cbind(f[, 1L] + matrix(rnorm(m * 6L, sd = 0.5), m, 6L),
             f[, 2L] + matrix(rnorm(m * 6L, sd = 0.5), m, 6L),
             f[, 3L] + matrix(rnorm(m * 6L, sd = 0.5), m, 6L),
             matrix(rnorm(m * 6L), m, 6L))
  colnames(x) <- c(paste0("a", 1:6), paste0("b", 1:6), paste0("c", 1:6), paste0("n", 1:6))
  x
}

# plain R: the labels of unsupervised selection
std_oracle <- function(x) unname(scale(x))

test_that("bahsic(x, unsupervised = TRUE) top 6 cover the three latent factors and rank the noise last", {
  for (seed in test_cases(1:4)) {
    x <- latent_data(seed)
    fit <- bahsic(x, unsupervised = TRUE)
    expect_setequal(substr(fit$ranking[1:6], 1, 1), c("a", "b", "c"))
    expect_setequal(utils::tail(fit$ranking, 6), paste0("n", 1:6))
    expect_true(fit$settings$unsupervised)
  }
})

test_that("fohsic(x, unsupervised = TRUE) ranks the noise last (its top 3 need not cover the factors)", {
  for (seed in test_cases(1:4)) {
    fit <- fohsic(latent_data(seed), unsupervised = TRUE)
    expect_setequal(utils::tail(fit$ranking, 6), paste0("n", 1:6))
    expect_true(fit$settings$unsupervised)
  }
})

test_that("y = NULL is y = the standardised data with a Gaussian label kernel", {
  x <- latent_data(1, m = 40L)[, c(1:3, 7:9, 19:21)]
  fit <- bahsic(x, unsupervised = TRUE)
  ref <- bahsic(x, std_oracle(x))
  expect_identical(fit$ranking, ref$ranking)
  expect_equal(fit$features$score, ref$features$score)
  # kernel_y overrides the Gaussian
  lin <- label_kernel_regression(kernel_linear())
  expect_identical(bahsic(x, unsupervised = TRUE, kernel_y = lin)$ranking,
                   bahsic(x, std_oracle(x), kernel_y = lin)$ranking)
  f1 <- fohsic(x, unsupervised = TRUE, sigma = "optimize")
  f2 <- fohsic(x, std_oracle(x), sigma = "optimize")
  expect_identical(f1$ranking, f2$ranking)
  expect_equal(f1$path, f2$path)
  expect_identical(bahsic(x, unsupervised = TRUE, sigma = "fixed")$ranking,
                   bahsic(x, std_oracle(x), sigma = "fixed")$ranking)
})

test_that("the first HSIC of the path is that of the data with themselves (oracle)", {
  x <- latent_data(2, m = 30L)[, c(1:2, 7:8, 19:20)]
  fit <- bahsic(x, unsupervised = TRUE, n_features = 5)
  xs <- std_oracle(x)
  sq <- as.matrix(stats::dist(xs))^2
  K <- exp(-fit$path$sigma[1L] * sq)
  L <- exp(-fit$settings$kernel_y$params$kernel$params$sigma * sq)
  expect_equal(fit$path$hsic[1L], oracle_hsic0(K, L))
})

test_that("unsupervised selection works by formula, on blocks and with NA rows", {
  x <- latent_data(3, m = 40L)[, c(1:3, 7:9, 19:21)]
  df <- as.data.frame(x)
  expect_identical(bahsic(~ ., data = df)$ranking, bahsic(x, unsupervised = TRUE)$ranking)
  expect_true(bahsic(~ ., data = df)$settings$unsupervised)
  # the block estimator with a matrix outcome: the same blocks under one seed
  set.seed(5)
  b1 <- bahsic(x, unsupervised = TRUE, approx = approx_block(size = 20))
  set.seed(5)
  b2 <- bahsic(x, std_oracle(x), approx = approx_block(size = 20))
  expect_identical(b1$ranking, b2$ranking)
  expect_equal(b1$features$score, b2$features$score)
  expect_identical(b1$settings$blocks, b2$settings$blocks)
  # na_action = "omit" drops the samples first, then standardises
  xn <- x
  xn[c(2, 9), 4] <- NA
  expect_warning(fit <- bahsic(xn, unsupervised = TRUE, na_action = "omit"), "dropped 2 of 40")
  expect_identical(fit$ranking, bahsic(x[-c(2, 9), ], unsupervised = TRUE)$ranking)
})

test_that("print says unsupervised; randsel() and l1_hsic() take y = NULL too", {
  x <- latent_data(4, m = 40L)[, c(1:2, 7:8, 13:14, 19:20)]
  expect_output(print(bahsic(x, unsupervised = TRUE)), "unsupervised")
  set.seed(1)
  r1 <- randsel(x, unsupervised = TRUE, n_boot = 20)
  set.seed(1)
  r2 <- randsel(x, std_oracle(x), n_boot = 20)
  expect_true(r1$settings$unsupervised)
  expect_identical(r1$ranking, r2$ranking)
  set.seed(2)
  l1 <- l1_hsic(x, unsupervised = TRUE, n_features = 3, restarts = 1)
  set.seed(2)
  l2 <- l1_hsic(x, std_oracle(x), n_features = 3, restarts = 1)
  expect_true(l1$settings$unsupervised)
  expect_equal(l1$weights, l2$weights)
})

test_that("unsupervised selection must be asked for: a NULL or missing y is an error", {
  x <- latent_data(1, m = 20L)
  for (f in list(bahsic, fohsic, randsel)) {
    expect_error(f(x), "'y' is missing: give the outcome.*unsupervised = TRUE")
    # a column that is not there is NULL: not a request for unsupervised selection
    pheno <- data.frame(Class = factor(rep(c("a", "b"), 10)))
    expect_error(f(x, pheno$class), "'y' is NULL: give the outcome.*unsupervised = TRUE")
    expect_error(f(x, pheno$Class, unsupervised = TRUE), "unsupervised = TRUE but 'y' is given")
  }
  expect_error(l1_hsic(x, NULL, n_features = 2), "unsupervised = TRUE")
  expect_error(hsic_weights(x, NULL, lambda = 0), "unsupervised = TRUE")
  expect_error(bahsic(x, kernel_y = label_kernel_precomputed(diag(20)), unsupervised = TRUE),
               "unsupervised = TRUE and a precomputed label kernel")
  # hsic() has no unsupervised use: y = NULL needs a precomputed label kernel
  expect_error(hsic(x), "'y' is missing")
  expect_error(hsic(x, NULL), "label_kernel_precomputed")
  expect_error(feature_scores(x, NULL), "'y' is NULL: give the outcome")
  expect_error(bahsic(matrix(1, 10, 3), unsupervised = TRUE), "every feature of 'x' is constant")
})
