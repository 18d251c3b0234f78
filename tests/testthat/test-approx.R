# The approximations of issue 7: the low-rank C core (src/lowrank.c) against
# plain-R oracles, and hsic(approx = ...) against the exact estimates.

ichol_c <- function(x, kernel, p1, p2 = 0, tol = 0, max_rank = nrow(x)) {
  code <- c(linear = 0L, polynomial = 1L, gaussian = 2L, laplace = 3L,
            inverse_distance = 4L)[[kernel]]
  .Call(bahsic:::C_ichol, x, code, p1, p2, tol, as.integer(max_rank))
}

oracle_laplace <- function(x, sigma) exp(-sigma * as.matrix(stats::dist(x)))

test_that("bk_ichol with tol = 0 and full rank reproduces the Gram matrix", {
  set.seed(3)
  x <- matrix(rnorm(25 * 3), 25, 3)
  cases <- list(
    list("gaussian", 0.7, 0, oracle_gauss(x, 0.7)),
    list("laplace", 0.5, 0, oracle_laplace(x, 0.5)),
    list("polynomial", 2, 1, (tcrossprod(x) + 1)^2),
    list("inverse_distance", 0.5, 0, 1 / (as.matrix(stats::dist(x)) + 0.5))
  )
  for (cs in test_cases(cases)) {
    f <- ichol_c(x, cs[[1]], cs[[2]], cs[[3]])
    expect_equal(tcrossprod(f$G), cs[[4]], tolerance = 1e-8, ignore_attr = TRUE,
                 label = cs[[1]])
    expect_false(anyDuplicated(f$pivots) > 0)
    expect_true(all(f$pivots %in% seq_len(nrow(x))))
    # the first pivot is the largest diagonal (lowest index among ties)
    expect_identical(f$pivots[1], unname(which.max(diag(cs[[4]]))))
  }
})

test_that("bk_ichol honours the residual bound and max_rank", {
  set.seed(4)
  x <- matrix(rnorm(60 * 2), 60, 2)
  K <- oracle_gauss(x, 0.3)
  for (tol in c(1e-2, 1e-4, 1e-7)) {
    f <- ichol_c(x, "gaussian", 0.3, tol = tol)
    res <- diag(K) - rowSums(f$G^2)
    expect_lte(max(res), tol * max(diag(K)) + 1e-12)
    expect_equal(f$residual, max(res[-f$pivots]), tolerance = 1e-8)
    expect_lt(ncol(f$G), nrow(x))
    # in pivot order G is lower triangular: row p_j is zero after column j
    Gp <- f$G[f$pivots, , drop = FALSE]
    expect_true(all(Gp[upper.tri(Gp)] == 0))
    expect_true(all(diag(Gp) > 0))
  }
  f <- ichol_c(x, "gaussian", 0.3, tol = 0, max_rank = 5)
  expect_identical(ncol(f$G), 5L)
  # the linear kernel has rank d
  f <- ichol_c(x, "linear", 0, tol = 1e-10)
  expect_lte(ncol(f$G), ncol(x))
  expect_equal(tcrossprod(f$G), tcrossprod(x), tolerance = 1e-10)
  # identical samples: rank 1
  f <- ichol_c(matrix(1, 10, 2), "gaussian", 1, tol = 0)
  expect_identical(ncol(f$G), 1L)
})

test_that("bk_lowrank_hsic equals the exact code on G G' and F F'", {
  set.seed(5)
  m <- 30
  for (rs in test_cases(list(c(4, 3), c(3, 7), c(1, 1), c(10, 2)))) {
    G <- matrix(rnorm(m * rs[1]), m)
    F <- matrix(rnorm(m * rs[2]), m) + 0.5
    lr <- .Call(bahsic:::C_lowrank_hsic, G, F)
    ex <- .Call(bahsic:::C_hsic_stats, tcrossprod(G), tcrossprod(F), NULL)
    expect_equal(lr, ex, tolerance = 1e-10)
    # and the plain-R oracles of the estimators
    expect_equal(lr[1], oracle_hsic0(tcrossprod(G), tcrossprod(F)), tolerance = 1e-10)
    expect_equal(lr[2], oracle_hsic1(tcrossprod(G), tcrossprod(F)), tolerance = 1e-10)
  }
})

test_that("bk_rff is sqrt(2 / D) cos(x W' + b) and its features approximate the kernel", {
  set.seed(6)
  x <- matrix(rnorm(20 * 3), 20, 3)
  W <- matrix(rnorm(7 * 3), 7, 3)
  b <- runif(7, 0, 2 * pi)
  Z <- .Call(bahsic:::C_rff, x, W, b)
  expect_equal(Z, sqrt(2 / 7) * cos(x %*% t(W) + rep(b, each = 20)), tolerance = 1e-13)
})
