# Per-feature tests of independence of feature_scores()' kernel methods
# (kernel_block_scorer(), R/scores-kernel.R; src/kernel_test.c): the gamma
# approximation with the exact permutation moments of tr(K H L H)
# (Kazi-Aoual et al. 1995) and permutation p-values, against plain-R oracles.

ns <- asNamespace("bahsic")

centre <- function(A) {
  r <- rowMeans(A)
  A - outer(r, r, "+") + mean(r)
}

# per-feature median-heuristic Gaussian kernel, as feature_scores() makes it
gauss_k <- function(v) {
  D <- outer(v, v, "-")^2
  exp(-D / stats::median(D[upper.tri(D)]))
}

label_L <- function(y) {
  Y <- vapply(levels(y), function(l) as.double(y == l), double(length(y)))
  tcrossprod(Y)
}

# the m! permutations of 1..m, one a row
all_perms <- function(m) {
  if (m == 1L) return(matrix(1L))
  p <- all_perms(m - 1L)
  do.call(rbind, lapply(seq_len(m), function(i) cbind(i, p + (p >= i))))
}

# the oracle: every permutation of m = 6 samples, the statistic's exact mean
# and variance, the gamma with those moments
exhaustive_gamma_p <- function(K, L) {
  A <- centre(K)
  B <- centre(L)
  m <- nrow(K)
  perms <- all_perms(m)
  stats <- apply(perms, 1L, function(p) sum(A * B[p, p]))
  mu <- mean(stats)
  v <- mean((stats - mu)^2)
  stats::pgamma(sum(A * B), shape = mu^2 / v, scale = v / mu, lower.tail = FALSE)
}

test_that("gamma p-values use the exact permutation mean and variance (all 720 permutations)", {
  set.seed(11)
  m <- 6L
  x <- matrix(rnorm(m * 4), m)
  x[, 2] <- exp(x[, 2])
  y <- factor(c("a", "b", "a", "b", "b", "a"))
  part <- ns$kernel_block_scorer(y, m, "hsic", kernel_gaussian(), NULL, "biased", 1L)(x)
  want <- apply(x, 2L, function(v) exhaustive_gamma_p(gauss_k(v), label_L(y)))
  expect_equal(part$p_value, want, tolerance = 1e-10)
  # a numeric outcome, its Gaussian label kernel on the standardised outcome
  yn <- c(0.3, -1.2, 2.1, 0.7, -0.4, 1.5)
  part <- ns$kernel_block_scorer(yn, m, "hsic", kernel_gaussian(), NULL, "biased", 1L)(x)
  ys <- (yn - mean(yn)) / stats::sd(yn)
  want <- apply(x, 2L, function(v) exhaustive_gamma_p(gauss_k(v), gauss_k(ys)))
  expect_equal(part$p_value, want, tolerance = 1e-10)
})

test_that("gamma p-values equal a plain-R oracle of the trace formulas; scores unchanged", {
  set.seed(12)
  m <- 30L
  x <- matrix(rnorm(m * 7), m)
  y <- factor(rep(c("n", "t"), c(12, 18)))
  x[, 3] <- x[, 3] + 2 * (y == "t")
  B <- centre(label_L(y))
  oracle <- function(v) {
    A <- centre(gauss_k(v))
    ta <- sum(diag(A)); ta2 <- sum(A * A); tb <- sum(diag(B)); tb2 <- sum(B * B)
    ua <- (m - 1) * ta2 - ta^2; ub <- (m - 1) * tb2 - tb^2
    wa <- m * (m + 1) * sum(diag(A)^2) - (m - 1) * (ta^2 + 2 * ta2)
    wb <- m * (m + 1) * sum(diag(B)^2) - (m - 1) * (tb^2 + 2 * tb2)
    mu <- ta * tb / (m - 1)
    v <- 2 * ua * ub / ((m + 1) * (m - 1)^2 * (m - 2)) +
      wa * wb / ((m + 1) * m * (m - 1) * (m - 2) * (m - 3))
    stats::pgamma(sum(A * B), shape = mu^2 / v, scale = v / mu, lower.tail = FALSE)
  }
  for (method in c("hsic", "kta")) {
    part <- ns$kernel_block_scorer(y, m, method, kernel_gaussian(), NULL, "biased", 1L)(x)
    expect_equal(part$p_value, apply(x, 2L, oracle), tolerance = 1e-10)
  }
  expect_lt(part$p_value[3], 1e-3)
  # the score column is the one feature_scores() gave before the tests existed
  s <- feature_scores(x, y, method = "hsic")
  part <- ns$kernel_block_scorer(y, m, "hsic", kernel_gaussian(), NULL, "biased", 1L)(x)
  expect_identical(s$score, part$score)
  # mmd: the balanced binary label kernel
  Lb <- tcrossprod(ifelse(y == "n", 1 / 12, -1 / 18))
  B <- centre(Lb)
  part <- ns$kernel_block_scorer(y, m, "mmd", kernel_gaussian(), NULL, "biased", 1L)(x)
  expect_equal(part$p_value, apply(x, 2L, oracle), tolerance = 1e-10)
})

test_that("permutation p-values equal a plain-R loop over the same permutations", {
  set.seed(13)
  m <- 20L
  x <- matrix(rnorm(m * 5), m)
  x[, 5] <- x[, 5]^2
  yn <- x[, 5] + rnorm(m, sd = 0.5)
  x[, 4] <- 1 # constant: no dependence, p = 1
  y <- factor(rep(c("a", "b"), c(8, 12)))
  n_perm <- 199L
  for (case in list(list("hsic", yn), list("mmd", y), list("kta", y))) {
    method <- case[[1]]
    out <- case[[2]]
    set.seed(5)
    part <- suppressWarnings(ns$kernel_block_scorer(out, m, method, kernel_gaussian(), NULL,
                                                    "biased", 1L, n_perm = n_perm)(x))
    set.seed(5)
    perms <- vapply(seq_len(n_perm), function(i) sample.int(m), integer(m))
    lab <- ns$label_gram(if (method == "mmd") label_kernel_binary(balanced = TRUE) else
      if (method == "kta") label_kernel_binary(balanced = FALSE) else
        default_label_kernel(out), out, 1L)
    L <- if (is.null(lab$Y)) lab$L else tcrossprod(lab$Y)
    Wt <- if (method == "hsic") ns$weight_matrix(lab, m, "biased") else if (method == "mmd") L else
      centre(L)
    want <- apply(x, 2L, function(v) {
      K <- if (stats::var(v) == 0) matrix(1, m, m) else gauss_k(v)
      obs <- sum(K * Wt)
      tol <- sqrt(.Machine$double.eps) * norm(K, "F") * norm(Wt, "F")
      null <- apply(perms, 2L, function(p) sum(K * Wt[p, p]))
      (1 + sum(null >= obs - tol)) / (1 + n_perm)
    })
    expect_equal(part$p_value, want, label = method)
    expect_identical(part$p_value[4], 1)
  }
  # hsic_test() draws its permutations the same way: the same p-value
  set.seed(9)
  part <- ns$kernel_block_scorer(yn, m, "hsic", kernel_gaussian(), NULL, "biased", 1L,
                                 n_perm = n_perm)(x[, 5, drop = FALSE])
  set.seed(9)
  ht <- hsic_test(x[, 5], yn, method = "permutation", n_perm = n_perm)
  expect_equal(part$p_value, ht$p.value)
})

test_that("p-values do not depend on threads or on how the features are split", {
  set.seed(14)
  m <- 25L
  x <- matrix(rnorm(m * 40), m)
  y <- factor(rep(1:3, length.out = m))
  for (n_perm in list(NULL, 50L)) {
    set.seed(3)
    one <- ns$kernel_block_scorer(y, m, "hsic", kernel_laplace(), NULL, "biased", 1L,
                                  n_perm = n_perm)
    set.seed(3)
    two <- ns$kernel_block_scorer(y, m, "hsic", kernel_laplace(), NULL, "biased", 2L,
                                  n_perm = n_perm)
    p1 <- one(x)$p_value
    expect_identical(two(x)$p_value, p1)
    expect_identical(c(one(x[, 1:13])$p_value, one(x[, 14:40])$p_value), p1)
  }
})

test_that("constant features get p = 1, too few samples NA", {
  x <- cbind(c(1, 2, 3, 4, 5, 6, 7, 9), 2)
  y <- factor(rep(c("a", "b"), 4))
  part <- ns$kernel_block_scorer(y, 8L, "hsic", kernel_gaussian(), NULL, "biased", 1L)(x)
  expect_true(part$constant[2])
  expect_identical(part$p_value[2], 1)
  expect_true(part$p_value[1] > 0 && part$p_value[1] <= 1)
  part <- ns$kernel_block_scorer(factor(c("a", "b", "a")), 3L, "hsic", kernel_gaussian(), NULL,
                                 "biased", 1L)(x[1:3, 1, drop = FALSE])
  expect_identical(part$p_value, NA_real_)
})

test_that("gamma p-values of 2,000 null genes at m = 60 are uniform", {
  ks_d <- function(p) unname(suppressWarnings(stats::ks.test(p, "punif")$statistic))
  set.seed(2012)
  m <- 60L
  y2 <- factor(rep(c("a", "b"), c(25, 35)))
  yn <- rnorm(m)
  # N(0, 1) genes against two classes, exp(N(0, 1)) genes against a number
  cases <- list(list(rnorm, y2), list(function(n) exp(rnorm(n)), yn))
  for (case in cases) {
    x <- matrix(case[[1]](m * 2000), m)
    p <- ns$kernel_block_scorer(case[[2]], m, "hsic", kernel_gaussian(), NULL, "biased",
                                2L)(x)$p_value
    expect_lt(ks_d(p), 0.06)
    expect_lt(abs(mean(p < 0.05) - 0.05), 0.025)
  }
})

# The C code sums over the packed pairs a < b and takes the row sums of K in
# the kernel's sweep; the oracle is the dense m x m computation, H K H and its
# traces (the formulas of Kazi-Aoual et al. 1995 as in Josse, Pages and
# Husson 2008, section 2.2), for each kernel of the table that applies to one
# feature, with the portable and the SIMD loops and 1 or 2 threads.
test_that("C_feature_hsic_test equals the dense trace formulas for every kernel", {
  set.seed(15)
  m <- 23L
  x <- matrix(rnorm(m * 9), m)
  x[, 2] <- exp(x[, 2])
  x[, 3] <- round(x[, 3]) # ties
  x[, 4] <- x[, 4] + 100 # far from 0: the products of the linear kernels
  x[, 5] <- x[, 5] * 40 # Gaussian arguments below -708: the clamped exp
  yn <- rnorm(m)
  L <- gauss_k(yn)
  test <- ns$test_label_side(L, m)
  B <- test$Lc
  tb <- sum(diag(B)); tb2 <- sum(B * B)
  dense <- function(K) {
    A <- centre(K)
    ta <- sum(diag(A)); ta2 <- sum(A * A)
    ua <- (m - 1) * ta2 - ta^2; ub <- (m - 1) * tb2 - tb^2
    wa <- m * (m + 1) * sum(diag(A)^2) - (m - 1) * (ta^2 + 2 * ta2)
    wb <- m * (m + 1) * sum(diag(B)^2) - (m - 1) * (tb^2 + 2 * tb2)
    mu <- ta * tb / (m - 1)
    v <- 2 * ua * ub / ((m + 1) * (m - 1)^2 * (m - 2)) +
      wa * wb / ((m + 1) * m * (m - 1) * (m - 2) * (m - 3))
    c(shape = mu^2 / v, z = sum(A * B) * mu / v)
  }
  kernels <- list(
    gaussian = list(p1 = 0.7, p2 = 0, k = function(v) exp(-0.7 * outer(v, v, "-")^2)),
    laplace = list(p1 = 1.3, p2 = 0, k = function(v) exp(-1.3 * abs(outer(v, v, "-")))),
    inverse_distance = list(p1 = 0.5, p2 = 0,
                            k = function(v) 1 / (abs(outer(v, v, "-")) + 0.5)),
    linear = list(p1 = 0, p2 = 0, k = function(v) outer(v, v)),
    polynomial = list(p1 = 2, p2 = 1, k = function(v) (outer(v, v) + 1)^2)
  )
  for (name in names(kernels)) {
    kern <- kernels[[name]]
    kern$code <- ns$bk_codes$kernel[[name]]
    want <- vapply(seq_len(ncol(x)), function(j) dense(kern$k(x[, j])), double(2))
    for (simd in c(FALSE, TRUE)) {
      for (threads in 1:2) {
        opts <- list(kernel = kern$code, p1 = kern$p1, p2 = kern$p2, threads = threads,
                     simd = simd, Lc = test$Lc, tb = test$tb, ub = test$ub, wb = test$wb)
        got <- .Call(ns$C_feature_hsic_test, x, opts)
        expect_equal(got$shape, want["shape", ], tolerance = 1e-12,
                     label = paste(name, simd, threads, "shape"))
        expect_equal(got$z, want["z", ], tolerance = 1e-12,
                     label = paste(name, simd, threads, "z"))
      }
    }
  }
})

test_that("kernels of an extreme scale are rescaled exactly: the same gamma p-values", {
  set.seed(16)
  m <- 17L
  x <- matrix(rnorm(m * 5), m)
  y <- factor(rep(c("a", "b"), c(8, 9)))
  # linear kernel values near 2^+-160, outside the range kept as it is
  p <- ns$kernel_block_scorer(y, m, "hsic", kernel_linear(), NULL, "biased", 1L)(x)$p_value
  for (s in c(2^80, 2^-80)) {
    ps <- ns$kernel_block_scorer(y, m, "hsic", kernel_linear(), NULL, "biased", 1L)(x * s)$p_value
    expect_equal(ps, p, tolerance = 1e-12)
  }
})

test_that("a diagonal far above the pairs (inverse distance, eps = 1e-6) keeps its accuracy", {
  # K = K0 + c I: H K H = H K0 H + c H, so the statistic and its mean gain
  # c tr(B) and the variance is that of K0; the oracle sums the pairs apart
  # from the diagonal, which the plain centring of K would drown in c = 1e6
  set.seed(17)
  m <- 30L
  x <- matrix(rnorm(m * 6), m)
  x[, 2] <- exp(x[, 2])
  test <- ns$test_label_side(gauss_k(rnorm(m)), m)
  B <- test$Lc
  tb <- sum(diag(B)); tb2 <- sum(B * B)
  H <- diag(m) - 1 / m
  want <- apply(x, 2L, function(v) {
    K0 <- 1 / (abs(outer(v, v, "-")) + 1e-6)
    diag(K0) <- 0
    A0 <- H %*% K0 %*% H
    ta <- sum(diag(A0)); ta2 <- sum(A0 * A0)
    ua <- (m - 1) * ta2 - ta^2; ub <- (m - 1) * tb2 - tb^2
    wa <- m * (m + 1) * sum(diag(A0)^2) - (m - 1) * (ta^2 + 2 * ta2)
    wb <- m * (m + 1) * sum(diag(B)^2) - (m - 1) * (tb^2 + 2 * tb2)
    mu <- ta * tb / (m - 1) + 1e6 * tb
    v <- 2 * ua * ub / ((m + 1) * (m - 1)^2 * (m - 2)) +
      wa * wb / ((m + 1) * m * (m - 1) * (m - 2) * (m - 3))
    c(shape = mu^2 / v, z = (sum(A0 * B) + 1e6 * tb) * mu / v)
  })
  opts <- list(kernel = ns$bk_codes$kernel[["inverse_distance"]], p1 = 1e-6, p2 = 0,
               threads = 1L, simd = TRUE, Lc = test$Lc, tb = test$tb, ub = test$ub,
               wb = test$wb)
  got <- .Call(ns$C_feature_hsic_test, x, opts)
  expect_equal(got$shape, want["shape", ], tolerance = 1e-10)
  expect_equal(got$z, want["z", ], tolerance = 1e-10)
})

# The score comes with the test (one kernel per feature): C_feature_hsic_test
# with W gives C_feature_dot's sum_ab K_j(a, b) W_ab to the last bit -- the
# Gaussian pairs summed from the stored kernel values in the pass's order
# (its per-column SIMD sums, pairs.c), the other kernels' by the same loop --
# for every remainder of m modulo the vector widths, the portable and the
# SIMD loops, 1 and 2 threads, one width or a width per feature, features of
# extreme scales (rescaled by a power of two on both sides) and with or
# without the permutations' weights beside it.
test_that("the score made with the test is C_feature_dot's, bit for bit", {
  set.seed(18)
  kernels <- list(gaussian = c(0.7, 0), laplace = c(1.3, 0), inverse_distance = c(0.5, 0),
                  linear = c(0, 0), polynomial = c(2, 1))
  for (m in test_cases(c(2L, 3L, 5L, 8L, 13L, 16L, 17L, 31L, 33L, 64L, 70L))) {
    x <- matrix(rnorm(m * 6), m)
    x[, 2] <- exp(2 * x[, 2])
    x[, 3] <- x[, 3] * 2^400 # rescaled for the distance kernels
    x[, 4] <- round(x[, 4])
    x[, 5] <- x[, 5] * 40 # Gaussian arguments below -708: the clamped exp
    W <- crossprod(matrix(rnorm(m * m), m)) / m
    test <- ns$test_label_side(gauss_k(rnorm(m)), m)
    perms <- matrix(replicate(3, sample.int(m)) - 1L, nrow = m)
    for (name in names(kernels)) {
      xk <- if (name %in% c("linear", "polynomial")) x[, -3] else x
      widths <- list(kernels[[name]][1L], kernels[[name]][1L] * 2^-(seq_len(ncol(xk)) %% 3))
      for (simd in c(FALSE, TRUE)) for (threads in 1:2) for (p1 in widths) {
        opts <- list(kernel = ns$bk_codes$kernel[[name]], p1 = p1, p2 = kernels[[name]][2L],
                     threads = threads, simd = simd)
        want <- .Call(ns$C_feature_dot, xk, W, opts)
        topt <- c(opts, test[c("Lc", "tb", "ub", "wb")], list(W = W))
        label <- paste(name, m, simd, threads, length(p1))
        expect_identical(.Call(ns$C_feature_hsic_test, xk, topt)$score, want, label = label)
        # beside the permutations' weights: Wt = W (one packed copy) or not
        for (Wt in list(W, test$Lc)) {
          got <- .Call(ns$C_feature_hsic_test, xk, c(topt, list(Wt = Wt, perms = perms)))
          expect_identical(got$score, want, label = paste(label, "perms"))
        }
      }
    }
  }
  # without W no score
  expect_null(.Call(ns$C_feature_hsic_test, x, c(list(kernel = 2L, p1 = 1, p2 = 0,
                                                      threads = 1L, simd = TRUE),
                                                 test[c("Lc", "tb", "ub", "wb")]))$score)
})

# C_feature_dot's pairs for the kernels other than the Gaussian are summed a
# column at a time, each column from 0 in the order of the rows, the
# columns' sums in order (four columns at once in C, whose chains of
# additions overlap): a plain R loop in that order gives the same bits, for
# every remainder of m modulo four. (Kernels whose values R computes with
# the same operations: linear, polynomial of degree 2, inverse distance.)
test_that("C_feature_dot sums the pairs of the other kernels in order, to the last bit", {
  set.seed(19)
  kernels <- list(linear = list(p = c(0, 0), k = function(u, v) u * v),
                  polynomial = list(p = c(2, 1), k = function(u, v) (u * v + 1) * (u * v + 1)),
                  inverse_distance = list(p = c(0.5, 0),
                                          k = function(u, v) 1 / (sqrt((u - v) * (u - v)) + 0.5)))
  for (m in test_cases(c(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 12L, 30L, 41L))) {
    x <- matrix(rnorm(m * 3), m)
    W <- crossprod(matrix(rnorm(m * m), m)) / m
    for (name in names(kernels)) {
      kern <- kernels[[name]]
      want <- apply(x, 2L, function(v) {
        off <- 0
        for (c in seq_len(m)[-1L]) {
          s <- 0
          for (a in seq_len(c - 1L)) s <- s + kern$k(v[a], v[c]) * W[a, c]
          off <- off + s
        }
        diag <- 0
        for (a in seq_len(m)) diag <- diag + kern$k(v[a], v[a]) * W[a, a]
        diag + 2 * off
      })
      for (threads in 1:2) {
        opts <- list(kernel = ns$bk_codes$kernel[[name]], p1 = kern$p[1L], p2 = kern$p[2L],
                     threads = threads, simd = TRUE)
        expect_identical(.Call(ns$C_feature_dot, x, W, opts), want,
                         label = paste(name, m, threads))
      }
    }
  }
})
