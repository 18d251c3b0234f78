# The approximations (Song et al. 2012, section 2.6; ?approximations): the low-rank C core (src/lowrank.c) against
# plain-R oracles, and hsic(approx = ...) against the exact estimates.

ichol_c <- function(x, kernel, p1, p2 = 0, tol = 0, max_rank = nrow(x)) {
  code <- bahsic:::bk_codes$kernel[[kernel]]
  .Call(bahsic:::C_ichol, x, list(kernel = code, p1 = p1, p2 = p2, tol = tol,
                                  max_rank = as.integer(max_rank)))
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
    # the exact code's first three: HSIC0, HSIC1 and the variance (its
    # fourth is the standard error)
    ex <- .Call(bahsic:::C_hsic_stats, tcrossprod(G), list(L = tcrossprod(F)))[1:3]
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

test_that("rff frequencies give E[Z Z'] = K for the Gaussian and Laplace kernels", {
  set.seed(7)
  x <- matrix(rnorm(15 * 2), 15, 2)
  for (name in c("gaussian", "laplace")) {
    kern <- if (name == "gaussian") kernel_gaussian(0.4) else kernel_laplace(0.6)
    K <- if (name == "gaussian") oracle_gauss(x, 0.4) else oracle_laplace(x, 0.6)
    err <- vapply(c(50L, 5000L), function(D) {
      set.seed(1)
      Z <- bahsic:::rff_features(kern, x, D)
      max(abs(tcrossprod(Z) - K))
    }, 0)
    expect_lt(err[2], err[1])
    expect_lt(err[2], 0.1)
  }
})

toy_dependent <- function(m, seed = 1, d = 4) {
  set.seed(seed)
  x <- matrix(rnorm(m * d), m, d)
  list(x = x, y = x[, 1]^2 + 0.5 * x[, 2] + rnorm(m, sd = 0.5))
}

test_that("hsic(approx = 'ichol') with a tiny tolerance equals exact hsic()", {
  dat <- toy_dependent(200)
  cls <- factor(ifelse(dat$y > 1, "hi", "lo"))
  multi <- cut(dat$y, c(-Inf, 0, 1, 2, Inf))
  full <- approx_ichol(tol = 1e-12, max_rank = 200)
  cases <- list(list(cls, NULL), list(multi, NULL),
                list(dat$y, label_kernel_regression(kernel_gaussian())),
                list(dat$y, label_kernel_regression(kernel_linear())))
  for (cs in test_cases(cases)) {
    ex <- hsic(dat$x, cs[[1]], kernel_y = cs[[2]])
    ap <- hsic(dat$x, cs[[1]], kernel_y = cs[[2]], approx = full)
    expect_equal(ap$hsic0, ex$hsic0, tolerance = 1e-6)
    expect_equal(ap$hsic1, ex$hsic1, tolerance = 1e-6)
    expect_equal(ap$se, ex$se, tolerance = 1e-6)
    expect_equal(ap$kernel$params$sigma, ex$kernel$params$sigma)
    expect_s3_class(ap$approx, "bahsic_approx")
  }
  # biased, and the Laplace kernel
  ex <- hsic(dat$x, cls, kernel = kernel_laplace(0.3), estimator = "biased")
  ap <- hsic(dat$x, cls, kernel = kernel_laplace(0.3), estimator = "biased", approx = full)
  expect_equal(ap$estimate, ex$estimate, tolerance = 1e-6)
  expect_output(print(ap), "approximation: incomplete Cholesky")
})

test_that("hsic(approx = 'rff') is reproducible and improves with more features", {
  dat <- toy_dependent(150, seed = 2, d = 3)
  ex <- hsic(dat$x, dat$y, kernel_y = label_kernel_regression(kernel_linear()))
  set.seed(3)
  a <- hsic(dat$x, dat$y, kernel_y = label_kernel_regression(kernel_linear()), approx = "rff")
  set.seed(3)
  b <- hsic(dat$x, dat$y, kernel_y = label_kernel_regression(kernel_linear()), approx = "rff")
  expect_identical(a$estimate, b$estimate)
  expect_identical(a$rank[["x"]], 500L)
  err <- vapply(c(20L, 2000L), function(D) {
    mean(vapply(test_cases(1:4), function(s) {
      set.seed(s)
      ap <- hsic(dat$x, dat$y, kernel_y = label_kernel_regression(kernel_linear()),
                 approx = approx_rff(D))
      abs(ap$hsic1 - ex$hsic1) / ex$hsic1
    }, 0))
  }, 0)
  expect_lt(err[2], err[1])
  expect_lt(err[2], 0.1)
  # a Gaussian regression label kernel is also factored by random features
  set.seed(4)
  g <- hsic(dat$x, dat$y, approx = approx_rff(50))
  expect_identical(unname(g$rank), c(50L, 50L))
})

test_that("ichol and block approach the exact estimate as the rank or the blocks grow", {
  dat <- toy_dependent(300, seed = 5, d = 6)
  ex <- hsic(dat$x, dat$y)
  # ichol is deterministic: the error at rank 4, 16, 64 and at the default
  # tolerance (full accuracy on 300 samples)
  # (these ranks leave a residual trace above 1%: each call warns)
  rel <- vapply(c(4L, 16L, 64L), function(r) {
    fit <- suppressWarnings(hsic(dat$x, dat$y, approx = approx_ichol(max_rank = r)))
    abs(fit$hsic1 - ex$hsic1) / ex$hsic1
  }, 0)
  expect_true(all(diff(rel) < 0))
  full <- hsic(dat$x, dat$y, approx = approx_ichol(tol = 1e-12, max_rank = 300))
  expect_equal(full$hsic1, ex$hsic1, tolerance = 1e-6)
  # block: the mean error over partitions shrinks as the blocks grow
  err <- vapply(c(20L, 75L, 150L), function(b) {
    mean(vapply(test_cases(1:5, 2L), function(s) {
      set.seed(s)
      abs(hsic(dat$x, dat$y, approx = approx_block(size = b))$hsic1 - ex$hsic1) / ex$hsic1
    }, 0))
  }, 0)
  expect_true(all(diff(err) < 0))
})

test_that("hsic(approx = 'block') with one block equals exact, and averages partitions", {
  dat <- toy_dependent(60, seed = 5)
  cls <- factor(ifelse(dat$y > 1, "hi", "lo"))
  for (yy in list(cls, dat$y)) {
    ex <- hsic(dat$x, yy)
    ap <- hsic(dat$x, yy, approx = approx_block(size = 100))
    expect_equal(ap$hsic0, ex$hsic0, tolerance = 1e-12)
    expect_equal(ap$hsic1, ex$hsic1, tolerance = 1e-12)
    expect_equal(ap$se, ex$se, tolerance = 1e-10)
    expect_identical(ap$n_blocks, 1L)
  }
  set.seed(8)
  a <- hsic(dat$x, cls, approx = approx_block(size = 20, n_partitions = 3))
  set.seed(8)
  b <- hsic(dat$x, cls, approx = approx_block(size = 20, n_partitions = 3))
  expect_identical(a, b)
  expect_identical(a$n_blocks, 3L)
  # the mean of the block estimates, blocks drawn by sample.int()
  set.seed(8)
  K <- gram(kernel_gaussian(a$kernel$params$sigma), dat$x)
  Y <- label_gram(label_kernel_binary(), cls)$Y
  est <- unlist(lapply(1:3, function(p) {
    idx <- split(sample.int(60), rep(1:3, each = 20))
    vapply(idx, function(i) oracle_hsic1(K[i, i], tcrossprod(Y[i, , drop = FALSE])), 0)
  }))
  expect_equal(a$estimate, mean(est), tolerance = 1e-10)
  expect_equal(a$se, sd(est) / sqrt(3), tolerance = 1e-10)
  # the last block takes the remainder: 65 samples in blocks of 20 -> 3 blocks
  d2 <- toy_dependent(65, seed = 6)
  expect_identical(hsic(d2$x, d2$y, approx = approx_block(size = 20))$n_blocks, 3L)
})

test_that("block works with precomputed and clinical kernels, small blocks and threads", {
  dat <- toy_dependent(40, seed = 12)
  K <- oracle_gauss(dat$x, 0.3)
  ex <- hsic(dat$x, dat$y, kernel = kernel_precomputed(K))
  expect_equal(hsic(dat$x, dat$y, kernel = kernel_precomputed(K),
                    approx = approx_block(size = 40))$hsic1, ex$hsic1, tolerance = 1e-12)
  df <- data.frame(a = dat$x[, 1], b = factor(dat$x[, 2] > 0))
  ex <- hsic(df, dat$y, kernel = kernel_clinical())
  expect_equal(hsic(df, dat$y, kernel = kernel_clinical(), approx = approx_block(size = 50))$hsic1,
               ex$hsic1, tolerance = 1e-12)
  # a class absent from a block is no problem: the label factor is that of all samples
  multi <- factor(c(rep("rare", 2), rep(c("a", "b"), 19)))
  set.seed(13)
  bl <- hsic(dat$x, multi, approx = approx_block(size = 8))
  expect_true(is.finite(bl$estimate) && is.finite(bl$se))
  set.seed(14)
  one <- hsic(dat$x, dat$y, approx = approx_block(size = 10), threads = 1)
  set.seed(14)
  two <- hsic(dat$x, dat$y, approx = approx_block(size = 10), threads = 2)
  expect_identical(one$estimate, two$estimate)
})

test_that("the approximate median heuristic uses at most 1000 samples", {
  dat <- toy_dependent(30, seed = 9)
  ex <- hsic(dat$x, dat$y)
  ap <- hsic(dat$x, dat$y, approx = approx_ichol(1e-12, 30))
  expect_equal(ap$kernel$params$sigma, ex$kernel$params$sigma)
  expect_equal(ap$kernel_y$params$kernel$params$sigma, ex$kernel_y$params$kernel$params$sigma)
  # above 1000 samples: the 1000 evenly spaced ones (R's dist() on them is
  # slow under valgrind, and the C median is reached by the case above)
  skip_if(under_valgrind(), "under valgrind: 1000-sample median in R")
  set.seed(11)
  x <- matrix(rnorm(1500 * 2), 1500, 2)
  sub <- unique(round(seq(1, 1500, length.out = 1000)))
  expect_warning(ap <- hsic(x, x[, 1] > 0, approx = approx_ichol(max_rank = 3)),
                 "residual trace")
  expect_equal(ap$kernel$params$sigma, 1 / median(stats::dist(x[sub, ])^2))
  expect_match(ap$kernel$label, "on 1000 samples")
})

test_that("approx has clear errors for bad input", {
  dat <- toy_dependent(30, seed = 10)
  expect_error(hsic(dat$x, dat$y, approx = "foo"), "'approx' must be one of")
  expect_error(hsic(dat$x, dat$y, kernel = kernel_polynomial(), approx = "rff"),
               "Gaussian or Laplace.*approx = \"ichol\"")
  K <- oracle_gauss(dat$x, 0.5)
  expect_error(hsic(dat$x, dat$y, kernel = kernel_precomputed(K), approx = "ichol"),
               "needs a kernel computed from the data")
  # a precomputed label kernel is factored as it is (pivoted Cholesky): the
  # exact value at a tiny tolerance
  expect_equal(hsic(dat$x, dat$y, approx = approx_ichol(tol = 1e-12, max_rank = 30),
                    kernel_y = label_kernel_regression(kernel_precomputed(K)))$estimate,
               hsic(dat$x, dat$y, kernel_y = label_kernel_regression(kernel_precomputed(K)))$estimate,
               tolerance = 1e-6)
  old <- options(bahsic.max_memory = 1000)
  on.exit(options(old))
  # hsic() makes K a panel at a time; a two-column outcome's label kernel
  # is made whole, and over the budget the error names the approximations
  expect_error(hsic(dat$x, cbind(dat$y, dat$y^2)), "approx = \"ichol\"")
  options(bahsic.max_memory = 8 * 30 * 10)
  expect_error(hsic(dat$x, dat$y, approx = approx_ichol(max_rank = 20)),
               "smaller 'max_rank'")
  expect_error(hsic(dat$x, dat$y, approx = approx_rff(20)), "smaller 'n_features'")
  expect_s3_class(suppressWarnings(hsic(dat$x, dat$y, approx = approx_ichol(max_rank = 5))),
                  "bahsic_hsic")
})

test_that("at m = 2000 the approximations are within their stated tolerances", {
  skip_on_cran()
  skip_if(under_valgrind(), "m = 2000 is slow under valgrind")
  set.seed(21)
  m <- 2000
  x <- matrix(rnorm(m * 5), m, 5)
  y <- factor(ifelse(sin(2 * x[, 1]) + x[, 2]^2 - 1 + rnorm(m, sd = 0.5) > 0, "up", "down"))
  ex <- hsic(x, y)
  rel <- function(a, b) abs(a - b) / abs(b)
  # measured: 0.019 (rank 200, the default)
  ic <- hsic(x, y, approx = "ichol")
  expect_lt(rel(ic$hsic0, ex$hsic0), 0.05)
  expect_lt(rel(ic$hsic1, ex$hsic1), 0.05)
  # measured: 0.008 to 0.066 over seeds 1 to 4
  set.seed(1)
  rf <- hsic(x, y, approx = approx_rff(2000))
  expect_lt(rel(rf$hsic1, ex$hsic1), 0.15)
  # HSIC1 is unbiased within each block (measured 0.01 to 0.06 over seeds 1 to 4);
  # HSIC0 is not (a bias of order 1 / size: 0.27 to 0.37 here)
  set.seed(1)
  bl <- hsic(x, y, approx = approx_block(size = 200))
  expect_lt(rel(bl$hsic1, ex$hsic1), 0.2)
  expect_identical(bl$n_blocks, 10L)
  yr <- x[, 1]^2 + rnorm(m)
  expect_lt(rel(hsic(x, yr, approx = "ichol")$hsic1, hsic(x, yr)$hsic1), 0.05)
})

test_that("a precomputed label kernel is factored by bk_ichol() as the plain-R pivoted Cholesky", {
  # the steps of bk_ichol() on a given matrix: the largest residual diagonal
  # (lowest index among ties) pivots; stop at max_rank or when it is at most
  # tol times the largest diagonal, or not positive
  oracle_ichol <- function(L, tol, max_rank) {
    m <- nrow(L)
    G <- matrix(0, m, 0)
    res <- diag(L)
    stop_at <- tol * max(res, 0)
    done <- logical(m)
    while (ncol(G) < min(max_rank, m)) {
      cand <- ifelse(done, -Inf, res)
      p <- which.max(cand)
      if (!(cand[p] > stop_at) || !(cand[p] > 0)) break
      col <- L[, p] - G %*% G[p, ]
      col <- col / sqrt(cand[p])
      col[done] <- 0
      col[p] <- sqrt(cand[p])
      G <- cbind(G, col)
      res <- res - col^2
      done[p] <- TRUE
    }
    unname(G)
  }
  set.seed(31)
  Y <- matrix(rnorm(30 * 3), 30, 3)
  A <- matrix(rnorm(30 * 30), 30, 30)
  cases <- list(list(tcrossprod(Y), 1e-6, 200L),          # rank 3
                list(exp(-as.matrix(dist(Y))^2), 1e-3, 200L),
                list(exp(-as.matrix(dist(Y))^2), 1e-12, 7L),
                list((A + t(A)) / 2, 1e-6, 200L))          # not PSD
  for (cs in cases) {
    G <- bahsic:::pivoted_cholesky(cs[[1]], cs[[2]], cs[[3]])
    expect_equal(G, oracle_ichol(cs[[1]], cs[[2]], cs[[3]]), tolerance = 1e-10)
  }
  expect_equal(ncol(bahsic:::pivoted_cholesky(tcrossprod(Y), 1e-6, 200L)), 3L)
  # a zero kernel: one zero column
  expect_equal(bahsic:::pivoted_cholesky(matrix(0, 5, 5), 1e-6, 10L), matrix(0, 5, 1))
})

# ---- the rank of approx_ichol() and its residual warning ---------------------

test_that("C_ichol grows its factor as the plain factorisation and reports the residual trace", {
  set.seed(41)
  x <- matrix(rnorm(150 * 3), 150, 3)
  K <- oracle_gauss(x, 0.4)
  # past the first buffers (64, 128 columns): full rank reproduces K
  full <- ichol_c(x, "gaussian", 0.4)
  expect_identical(ncol(full$G), 150L)
  expect_equal(tcrossprod(full$G), K, tolerance = 1e-8, ignore_attr = TRUE)
  # a cap stops at a prefix of the same factorisation: the pivots do not
  # depend on max_rank, whether the cap falls on a buffer's end or not
  for (r in c(64L, 100L, 128L)) {
    f <- ichol_c(x, "gaussian", 0.4, max_rank = r)
    expect_identical(f$pivots, full$pivots[seq_len(r)])
    expect_equal(f$G, full$G[, seq_len(r)], tolerance = 1e-12)
    # trace(K) and trace(K - G G') from the plain-R sums
    expect_equal(f$trace, sum(diag(K)), tolerance = 1e-12)
    expect_equal(f$residual_trace, sum(diag(K) - rowSums(f$G^2)), tolerance = 1e-8)
  }
  # stopped by tol inside a grown buffer
  f <- ichol_c(x, "gaussian", 0.4, tol = 1e-3)
  expect_gt(ncol(f$G), 64L)
  expect_lt(ncol(f$G), 150L)
  expect_equal(f$G, full$G[, seq_len(ncol(f$G))], tolerance = 1e-12)
  expect_lte(f$residual, 1e-3 * max(diag(K)))
})

test_that("approx_ichol() defaults: tol 1e-3, a rank cap of 500 lowered by the memory budget", {
  a <- approx_ichol()
  expect_identical(a$params$tol, 1e-3)
  expect_null(a$params$max_rank)
  expect_output(print(a), "max_rank = 500 or what the memory budget allows")
  expect_identical(bahsic:::ichol_cap(2000, a)$cap, 500L)
  expect_identical(bahsic:::ichol_cap(300, a)$cap, 300L)
  old <- options(bahsic.max_memory = 16 * 2000 * 40)
  on.exit(options(old))
  cap <- bahsic:::ichol_cap(2000, a)
  expect_identical(cap$cap, 40L)
  expect_true(cap$budget)
  # an explicit max_rank above the budget is refused, as before
  expect_error(bahsic:::ichol_cap(2000, approx_ichol(max_rank = 100)), "smaller 'max_rank'")
  options(bahsic.max_memory = 100)
  expect_error(bahsic:::ichol_cap(2000, a), "option bahsic.max_memory")
  expect_error(approx_ichol(max_rank = 0), "'max_rank' must be a whole number")
})

test_that("the default is within a few percent of exact HSIC, without a warning", {
  # 5 features at m = 400: the default stops by tol (residual trace below
  # 1e-3), HSIC0 and HSIC1 within 0.5% of exact (same widths below 1000 samples)
  set.seed(42)
  x <- matrix(rnorm(400 * 5), 400, 5)
  y <- sin(2 * x[, 1]) + x[, 2]^2 + rnorm(400, sd = 0.5)
  cls <- factor(y > median(y))
  for (yy in list(y, cls)) {
    ex <- hsic(x, yy)
    ap <- expect_no_warning(hsic(x, yy, approx = "ichol"))
    expect_lt(ap$rank[["x"]], 400L)
    expect_lt(ap$residual[["x"]], 1e-3)
    expect_lt(abs(ap$hsic0 / ex$hsic0 - 1), 0.005)
    expect_lt(abs(ap$hsic1 / ex$hsic1 - 1), 0.005)
  }
})

test_that("a large residual trace warns once, with the residual and what to do", {
  set.seed(43)
  x <- matrix(rnorm(300 * 20), 300, 20)
  y <- x[, 1] + rnorm(300)
  a <- approx_ichol(max_rank = 30)
  expect_warning(fit <- hsic(x, y, approx = a),
                 "residual trace.*of [0-9.]+% at rank 30 in the data kernel")
  # the residual it reports is that of the factor (plain-R sums)
  k <- fit$kernel
  G <- bahsic:::kernel_factor(k, x, a, "kernel", warn = FALSE)$Z
  expect_equal(fit$residual[["x"]], 1 - sum(G^2) / 300, tolerance = 1e-8)
  expect_gt(fit$residual[["x"]], 0.01)
  # and it is as far below exact HSIC as the measured relation says (at most
  # about twice the residual)
  ex <- hsic(x, y, kernel = k, kernel_y = fit$kernel_y)
  expect_lt(ex$hsic0 - fit$hsic0, 2 * fit$residual[["x"]] * ex$hsic0)
  expect_warning(hsic(x, y, approx = a), "Raise 'max_rank' in approx_ichol\\(\\)")
  expect_warning(hsic(x, y, approx = a), "approx = \"block\" or \"rff\"")
  # one warning per call, even with both factors short (a 2-column outcome)
  y2 <- cbind(y, x[, 2] + rnorm(300))
  n <- 0L
  withCallingHandlers(hsic(x, y2, approx = approx_ichol(max_rank = 2)), warning = function(w) {
    n <<- n + 1L
    expect_match(conditionMessage(w), "data kernel and .* label kernel")
    invokeRestart("muffleWarning")
  })
  expect_identical(n, 1L)
  # a factor stopped by a coarse tol says to lower tol
  expect_warning(hsic(x, y, approx = approx_ichol(tol = 0.5)), "Lower 'tol'")
  # the cap set by the memory budget says so
  old <- options(bahsic.max_memory = 16 * 300 * 30)
  on.exit(options(old))
  expect_warning(hsic(x, y, approx = "ichol"),
                 "Rank 30 is what the memory budget \\(option bahsic.max_memory\\) allows")
  # a small residual does not warn: rank 300 is exact
  options(old)
  expect_no_warning(hsic(x, y, approx = approx_ichol(max_rank = 300)))
})

test_that("a cap that leaves more than 10% says that the rank helps slowly and names block", {
  set.seed(43)
  x <- matrix(rnorm(300 * 20), 300, 20)
  y <- x[, 1] + rnorm(300)
  # rank 30 leaves about 39%, rank 200 about 4% (both above the 1% warning)
  msg <- function(r) {
    tryCatch(hsic(x, y, approx = approx_ichol(max_rank = r)), warning = conditionMessage)
  }
  w <- msg(30)
  expect_match(w, "Raise 'max_rank' in approx_ichol\\(\\)")
  expect_match(w, "Above 10% left at the cap the rank needed grows fast")
  expect_match(w, "approx = \"block\" is the cheaper estimate")
  w <- msg(200)
  expect_match(w, "Raise 'max_rank' in approx_ichol\\(\\)")
  expect_no_match(w, "Above 10%")
  # nor when tol stopped the factor
  expect_no_match(tryCatch(hsic(x, y, approx = approx_ichol(tol = 0.5)), warning = conditionMessage),
                  "Above 10%")
})

test_that("a precomputed label kernel's factor reports its residual too", {
  set.seed(44)
  x <- matrix(rnorm(200 * 2), 200, 2)
  yv <- matrix(rnorm(200 * 20), 200, 20)
  L <- oracle_gauss(yv, 0.05)
  expect_warning(hsic(x, x[, 1], kernel_y = label_kernel_regression(kernel_precomputed(L)),
                      approx = approx_ichol(max_rank = 10)),
                 "in the label kernel")
  fit <- expect_no_warning(hsic(x, x[, 1], approx = approx_ichol(max_rank = 200),
                                kernel_y = label_kernel_regression(kernel_precomputed(L))))
  expect_lt(fit$residual[["y"]], 0.01)
})
