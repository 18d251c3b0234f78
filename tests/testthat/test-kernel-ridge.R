# kernel_ridge(): section 6.6 of Song et al. (2012). Oracles in plain R:
# the ridge hat matrix by solve(), HSIC as sum(Kbar o W), and recursive
# feature elimination / forward selection with ridge regression.

ridge_data <- function(m = 30, d = 8, seed = 1) {
  set.seed(seed)
  x <- matrix(rnorm(m * d), m, d)
  x <- scale(x, center = TRUE, scale = FALSE)
  attributes(x) <- list(dim = c(m, d))
  y <- drop(x[, 1:3] %*% c(2, -1, 0.5)) + rnorm(m)
  list(x = x, y = y - mean(y))
}

# K (K + lambda I)^-1 of a plain Gram matrix
oracle_ridge <- function(K, lambda) K %*% solve(K + lambda * diag(nrow(K)))

gauss_gram <- function(x, sigma) unname(exp(-sigma * as.matrix(dist(x))^2))

# biased HSIC weights of the linear label kernel: H y y' H / (m - 1)^2
biased_W <- function(y) {
  m <- length(y)
  H <- diag(m) - 1 / m
  H %*% tcrossprod(y) %*% H / (m - 1)^2
}

# HSIC of the ridge kernel on the columns S (0 for the empty set)
oracle_set_hsic <- function(x, S, W, lambda, base = function(v) tcrossprod(v)) {
  if (length(S) == 0L) return(0)
  sum(oracle_ridge(base(x[, S, drop = FALSE]), lambda) * W)
}

# ridge objective at its optimum: J* = min_w ||y - V w||^2 + lambda ||w||^2
ridge_J <- function(V, y, lambda) {
  if (ncol(V) == 0L) return(sum(y^2))
  w <- solve(crossprod(V) + lambda * diag(ncol(V)), crossprod(V, y))
  sum((y - V %*% w)^2) + lambda * sum(w^2)
}

# the selection schedule of bahsic()/fohsic() on set scores f(S)
oracle_select <- function(method, d, f, step) {
  rank <- integer(d)
  score <- rep(NA_real_, d)
  path <- numeric(0)
  bs <- function(n) max(1L, floor(step * n))
  if (method == "bahsic") {
    S <- seq_len(d)
    elim <- integer(0)
    while (length(S) > 0L) {
      path <- c(path, f(S))
      h <- vapply(S, function(j) f(setdiff(S, j)), 0)
      o <- order(-h, -S)
      out <- o[seq_len(bs(length(S)))]
      score[S[out]] <- h[out]
      elim <- c(elim, S[out])
      S <- S[-out]
    }
    rank[elim] <- rev(seq_along(elim))
  } else {
    S <- integer(0)
    R <- seq_len(d)
    while (length(R) > 0L) {
      h <- vapply(R, function(j) f(c(S, j)), 0)
      o <- order(-h, R)
      new <- o[seq_len(bs(length(R)))]
      score[R[new]] <- h[new]
      rank[R[new]] <- length(S) + seq_along(new)
      S <- c(S, R[new])
      R <- R[-new]
      path <- c(path, f(S))
    }
  }
  list(rank = rank, score = score, path = path)
}

lin_y <- label_kernel_regression(kernel_linear())

test_that("the Gram matrix is K (K + lambda I)^-1, exactly symmetric", {
  dat <- ridge_data(20, 5)
  x <- dat$x
  K <- kernel_matrix(kernel_ridge(0.7), x)
  expect_equal(unclass(unname(K))[, ], oracle_ridge(tcrossprod(x), 0.7), tolerance = 1e-10)
  # eq. 29: V (V'V + lambda I)^-1 V'
  expect_equal(unclass(unname(K))[, ],
               x %*% solve(crossprod(x) + 0.7 * diag(5)) %*% t(x), tolerance = 1e-10)
  expect_identical(K[, ], t(K[, ]))
  Kg <- kernel_matrix(kernel_ridge(0.5, kernel_gaussian(sigma = 0.1)), x)
  expect_equal(unclass(unname(Kg))[, ], oracle_ridge(gauss_gram(x, 0.1), 0.5), tolerance = 1e-10)
  expect_identical(Kg[, ], t(Kg[, ]))
  # the median heuristic of the base is resolved and reported
  Km <- kernel_matrix(kernel_ridge(1, kernel_gaussian()), x)
  expect_true(is.numeric(attr(Km, "kernel")$params$base$params$sigma))
})

test_that("hsic() and hsic_test() with kernel_ridge() equal those with the precomputed matrix", {
  dat <- ridge_data(25, 4, seed = 2)
  k <- kernel_ridge(2)
  K <- unclass(unname(kernel_matrix(k, dat$x)))[, ]
  for (est in c("biased", "unbiased")) {
    a <- hsic(dat$x, dat$y, kernel = k, kernel_y = lin_y, estimator = est)
    b <- hsic(dat$x, dat$y, kernel = kernel_precomputed(K), kernel_y = lin_y, estimator = est)
    expect_equal(a$estimate, b$estimate, tolerance = 1e-12)
  }
  t1 <- hsic_test(dat$x, dat$y, kernel = k, kernel_y = lin_y)
  t2 <- hsic_test(dat$x, dat$y, kernel = kernel_precomputed(K), kernel_y = lin_y)
  expect_equal(t1$p.value, t2$p.value, tolerance = 1e-10)
})

test_that("BAHSIC with kernel_ridge() is recursive feature elimination with ridge regression", {
  dat <- ridge_data(30, 8)
  x <- dat$x
  y <- dat$y
  lambda <- 1.5
  m <- nrow(x)
  fit <- bahsic(x, y, kernel = kernel_ridge(lambda), kernel_y = lin_y, estimator = "biased",
                drop = 0, standardize = FALSE)
  # direct RFE-ridge: remove the feature whose removal increases J* least
  S <- seq_len(ncol(x))
  elim <- integer(0)
  Jrem <- numeric(0)
  while (length(S) > 0L) {
    J <- vapply(S, function(j) ridge_J(x[, setdiff(S, j), drop = FALSE], y, lambda), 0)
    i <- which.min(J)
    elim <- c(elim, S[i])
    Jrem <- c(Jrem, J[i])
    S <- S[-i]
  }
  expect_identical(fit$features$rank[elim], rev(seq_along(elim)))
  # score = HSIC of the set after the removal = (y'y - J*) / (m - 1)^2
  expect_equal(fit$features$score[elim], (sum(y^2) - Jrem) / (m - 1)^2, tolerance = 1e-9)
  expect_equal(fit$path$hsic[1], (sum(y^2) - ridge_J(x, y, lambda)) / (m - 1)^2,
               tolerance = 1e-9)
})

test_that("FOHSIC with kernel_ridge() is forward selection with ridge regression", {
  dat <- ridge_data(30, 8, seed = 3)
  x <- dat$x
  y <- dat$y
  lambda <- 0.8
  m <- nrow(x)
  fit <- fohsic(x, y, kernel = kernel_ridge(lambda), kernel_y = lin_y, estimator = "biased",
                add = 0, standardize = FALSE)
  S <- integer(0)
  R <- seq_len(ncol(x))
  Jadd <- numeric(0)
  while (length(R) > 0L) {
    J <- vapply(R, function(j) ridge_J(x[, c(S, j), drop = FALSE], y, lambda), 0)
    i <- which.min(J)
    S <- c(S, R[i])
    Jadd <- c(Jadd, J[i])
    R <- R[-i]
  }
  expect_identical(fit$features$rank[S], seq_along(S))
  expect_equal(fit$features$score[S], (sum(y^2) - Jadd) / (m - 1)^2, tolerance = 1e-9)
  expect_equal(fit$path$hsic, (sum(y^2) - Jadd) / (m - 1)^2, tolerance = 1e-9)
})

test_that("ridge selection matches the R oracle with drop = 0.1 (linear and Gaussian bases)", {
  dat <- ridge_data(40, 12, seed = 4)
  x <- dat$x
  W <- biased_W(dat$y)
  cases <- list(
    list(kernel = kernel_ridge(1), base = function(v) tcrossprod(v), lambda = 1),
    list(kernel = kernel_ridge(0.5, kernel_gaussian(sigma = 0.05)),
         base = function(v) gauss_gram(v, 0.05), lambda = 0.5))
  for (cs in test_cases(cases)) {
    f <- function(S) oracle_set_hsic(x, S, W, cs$lambda, cs$base)
    for (method in c("bahsic", "fohsic")) {
      fit <- if (method == "bahsic") {
        bahsic(x, dat$y, kernel = cs$kernel, kernel_y = lin_y, drop = 0.1, sigma = "fixed",
               standardize = FALSE)
      } else {
        fohsic(x, dat$y, kernel = cs$kernel, kernel_y = lin_y, add = 0.1, sigma = "fixed",
               standardize = FALSE)
      }
      or <- oracle_select(method, ncol(x), f, 0.1)
      expect_identical(fit$features$rank, or$rank)
      expect_equal(fit$features$score, or$score, tolerance = 1e-8)
      expect_equal(fit$path$hsic, or$path, tolerance = 1e-8)
      expect_s3_class(fit, "bahsic_selection")
    }
  }
})

test_that("ridge BAHSIC with the unbiased estimator and n_features agrees with hsic()", {
  dat <- ridge_data(30, 6, seed = 5)
  k <- kernel_ridge(1)
  fit <- bahsic(dat$x, dat$y, kernel = k, kernel_y = lin_y, estimator = "unbiased",
                drop = 0, n_features = 2, standardize = FALSE)
  top <- which(fit$features$rank %in% 1:2)
  expect_length(top, 2L)
  h <- hsic(dat$x[, top], dat$y, kernel = k, kernel_y = lin_y, estimator = "unbiased")
  expect_equal(utils::tail(fit$path$hsic, 1), h$estimate, tolerance = 1e-9)
  # the same for 1 and 2 threads
  fit2 <- bahsic(dat$x, dat$y, kernel = k, kernel_y = lin_y, estimator = "unbiased",
                 drop = 0, n_features = 2, standardize = FALSE, threads = 2)
  expect_identical(fit$features, fit2$features)
})

test_that("the width policy of a Gaussian base follows the selectors ('dimension')", {
  dat <- ridge_data(20, 5, seed = 6)
  x <- scale(dat$x)
  attributes(x) <- list(dim = dim(dat$x))
  W <- biased_W(dat$y)
  fit <- bahsic(x, dat$y, kernel = kernel_ridge(1, kernel_gaussian()), kernel_y = lin_y,
                drop = 0, standardize = FALSE)
  expect_equal(fit$path$sigma, 1 / (2 * (5:1)))
  f <- function(S) oracle_set_hsic(x, S, W, 1, function(v) gauss_gram(v, 1 / (2 * 5)))
  expect_equal(fit$path$hsic[1], f(1:5), tolerance = 1e-10)
})

test_that("kernel_ridge() rejects bad input and unsupported uses with clear errors", {
  expect_error(kernel_ridge(), "'lambda'")
  expect_error(kernel_ridge(0), "'lambda' must be a single positive finite number")
  expect_error(kernel_ridge(-1), "'lambda'")
  expect_error(kernel_ridge(Inf), "'lambda'")
  expect_error(kernel_ridge(NA_real_), "'lambda'")
  expect_error(kernel_ridge(c(1, 2)), "'lambda'")
  expect_error(kernel_ridge(1, base = "linear"), "'base' must be a kernel")
  expect_error(kernel_ridge(1, base = kernel_precomputed(diag(3))), "precomputed")
  expect_error(kernel_ridge(1, base = kernel_clinical()), "clinical")
  expect_error(kernel_ridge(1, base = kernel_ridge(1)), "ridge")
  dat <- ridge_data(20, 4, seed = 7)
  k <- kernel_ridge(1)
  expect_error(hsic(dat$x, dat$y, kernel = k, approx = "ichol"), "approx")
  expect_error(hsic(dat$x, dat$y, kernel = k, approx = approx_block(size = 10)), "approx")
  expect_error(bahsic(dat$x, dat$y, kernel = k, approx = approx_block(size = 10)),
               "approx = \"exact\"")
  expect_error(fohsic(dat$x, dat$y, kernel = k, approx = "rff"), "approx = \"exact\"")
  expect_error(randsel(dat$x, dat$y, kernel = k, n_boot = 5), "randsel\\(\\)")
  expect_error(clinical_rfe(dat$x, factor(rep(1:2, 10)), kernel = k), "rfe\\(\\)")
  expect_error(feature_scores(dat$x, dat$y, method = "hsic", kernel = k),
               "feature_scores\\(\\)")
  expect_error(label_kernel_regression(k), "label kernel")
})

test_that("the C loop agrees with the plain-R loop on every base, width policy and schedule", {
  dat <- ridge_data(25, 7, seed = 8)
  x <- scale(dat$x)
  attributes(x) <- list(dim = dim(dat$x))
  W <- biased_W(dat$y)
  bases <- list(list(kernel_linear(), "fixed"), list(kernel_gaussian(sigma = 0.1), "fixed"),
                list(kernel_gaussian(), "dimension"), list(kernel_gaussian(), "optimize"),
                list(kernel_laplace(), "dimension"), list(kernel_polynomial(2, 1), "fixed"))
  cases <- list(list("bahsic", 0, 0), list("bahsic", 0.3, 3), list("bahsic", 0.5, 7),
                list("fohsic", 0.2, 0), list("fohsic", 0, 4))
  for (b in test_cases(bases, 3L)) {
    for (cs in test_cases(cases, 3L)) {
      k <- kernel_ridge(0.3, b[[1]])
      n_features <- if (cs[[3]] == 0) NULL else cs[[3]]
      c_res <- bahsic:::ridge_select(cs[[1]], x, W, k, b[[2]], NULL, cs[[2]], n_features, FALSE)
      r_res <- oracle_ridge_select(cs[[1]], x, W, 0.3, b[[1]], b[[2]], NULL, cs[[2]], cs[[3]],
                                   FALSE)
      expect_identical(c_res$rank, r_res$rank)
      expect_identical(c_res$iteration, r_res$iteration)
      expect_equal(c_res$score, r_res$score, tolerance = 1e-9)
      c_path <- c_res$path
      c_path[is.nan(c_path)] <- NA
      expect_equal(c_path, r_res$path, tolerance = 1e-9)
    }
  }
  # one feature, and the smallest sample
  one <- bahsic(x[, 1, drop = FALSE], dat$y, kernel = kernel_ridge(1), kernel_y = lin_y,
                standardize = FALSE)
  expect_identical(one$features$rank, 1L)
  expect_identical(one$features$score, 0)
  small <- fohsic(x[1:3, 1:2], dat$y[1:3], kernel = kernel_ridge(1), kernel_y = lin_y)
  expect_setequal(small$features$rank, 1:2)
})
