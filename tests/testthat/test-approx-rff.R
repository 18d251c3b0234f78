# hsic(approx = "rff") without the m x D feature matrix (src/lowrank.c,
# bk_rff_hsic()): the features made a chunk of columns at a time must give
# the statistics of the whole matrix Z = sqrt(2 / D) cos(x W' + b) (Rahimi
# and Recht 2007; Song et al. 2012, section 2.6), for any chunk and threads.

# Z built in plain R from the draws: b_k + x W_k' summed one feature at a
# time, in C's order, so that arguments of 1e7 agree to the last bit too
rff_oracle_z <- function(x, W, b) {
  z <- matrix(rep(b, each = nrow(x)), nrow(x))
  for (f in seq_len(ncol(x))) z <- z + outer(x[, f], W[, f])
  sqrt(2 / nrow(W)) * cos(z)
}

rff_c <- function(x, F, W, b, chunk, threads = 1L, simd = TRUE) {
  .Call(bahsic:::C_rff_hsic, x, F, list(W = W, b = b, chunk = as.integer(chunk),
                                        threads = as.integer(threads), simd = simd))
}

test_that("the chunked statistics equal those of the whole feature matrix", {
  set.seed(31)
  # m = 300: more than one block of 256 rows, not a multiple of it
  m <- 300
  x <- matrix(rnorm(m * 3), m, 3)
  W <- matrix(rnorm(7 * 3, sd = 0.8), 7, 3)
  b <- runif(7, 0, 2 * pi)
  F <- cbind(x[, 1] > 0, x[, 1] <= 0) + 0
  Z <- rff_oracle_z(x, W, b)
  K <- tcrossprod(Z)
  L <- tcrossprod(F)
  whole <- .Call(bahsic:::C_lowrank_hsic, Z, F)
  dense <- .Call(bahsic:::C_hsic_stats, K, list(L = L))[1:3]
  # chunks of 1, 3 (7 is not a multiple), 7 and more than D columns
  st <- lapply(c(1L, 3L, 7L, 50L), function(ch) rff_c(x, F, W, b, ch))
  for (s in st) expect_identical(s, st[[1]])
  expect_equal(st[[1]], whole, tolerance = 1e-12)
  expect_equal(st[[1]], dense, tolerance = 1e-12)
  expect_equal(st[[1]][1], oracle_hsic0(K, L), tolerance = 1e-12)
  expect_equal(st[[1]][2], oracle_hsic1(K, L), tolerance = 1e-12)
  # more label columns than features (s > D), and one of each
  F5 <- matrix(rnorm(m * 9), m, 9)
  expect_equal(rff_c(x, F5, W, b, 3L), .Call(bahsic:::C_hsic_stats, K,
                                            list(L = tcrossprod(F5)))[1:3],
               tolerance = 1e-12)
  x1 <- x[, 1, drop = FALSE]
  Z1 <- rff_oracle_z(x1, W[1, , drop = FALSE][, 1, drop = FALSE], b[1])
  expect_equal(rff_c(x1, F[, 1, drop = FALSE], W[1, 1, drop = FALSE], b[1], 2L),
               .Call(bahsic:::C_lowrank_hsic, Z1, F[, 1, drop = FALSE]), tolerance = 1e-12)
})

test_that("the chunked statistics do not depend on the number of threads", {
  set.seed(32)
  m <- 1100
  x <- matrix(rnorm(m * 4), m, 4)
  W <- matrix(rnorm(40 * 4, sd = 0.5), 40, 4)
  b <- runif(40, 0, 2 * pi)
  F <- matrix(rnorm(m * 3), m, 3)
  for (ch in c(3L, 32L)) {
    expect_identical(rff_c(x, F, W, b, ch, threads = 2L), rff_c(x, F, W, b, ch, threads = 1L))
  }
})

test_that("hsic(approx = 'rff') uses the caller's draws: W, (Laplace: |u|), b", {
  set.seed(33)
  m <- 120
  d <- 3
  D <- 25L
  x <- matrix(rnorm(m * d), m, d)
  y <- factor(ifelse(x[, 1]^2 + rnorm(m, sd = 0.5) > 1, "hi", "lo"))
  for (name in c("gaussian", "laplace")) {
    kern <- if (name == "gaussian") kernel_gaussian(0.4) else kernel_laplace(0.6)
    set.seed(5)
    ap <- hsic(x, y, kernel = kern, approx = approx_rff(D))
    # the draws in the documented order (?approximations), written out
    set.seed(5)
    W <- matrix(rnorm(D * d), D, d)
    W <- if (name == "gaussian") sqrt(2 * 0.4) * W else 0.6 * W / abs(rnorm(D))
    b <- runif(D, 0, 2 * pi)
    # the exact estimator on the kernel the features stand for
    ex <- hsic(x, y, kernel = kernel_precomputed(tcrossprod(rff_oracle_z(x, W, b))))
    expect_equal(ap$hsic0, ex$hsic0, tolerance = 1e-12, label = name)
    expect_equal(ap$hsic1, ex$hsic1, tolerance = 1e-12, label = name)
    expect_equal(ap$se, ex$se, tolerance = 1e-12, label = name)
    expect_identical(ap$rank[["x"]], D)
  }
})

test_that("hsic(approx = 'rff') gives the same result for 1 and 2 threads", {
  set.seed(34)
  x <- matrix(rnorm(700 * 5), 700, 5)
  y <- x[, 2]^2 + rnorm(700)
  set.seed(1)
  a <- hsic(x, y, approx = approx_rff(60), threads = 1)
  set.seed(1)
  b <- hsic(x, y, approx = approx_rff(60), threads = 2)
  expect_identical(a[c("hsic0", "hsic1", "se")], b[c("hsic0", "hsic1", "se")])
})

test_that("the AVX2 projections give the bits of the portable ones", {
  set.seed(35)
  m <- 530
  x <- matrix(rnorm(m * 6), m, 6)
  # 10 features: two 4 x 8 tiles and two left over; 530 rows: a partial tile
  W <- matrix(rnorm(10 * 6, sd = 0.7), 10, 6)
  b <- runif(10, 0, 2 * pi)
  F <- matrix(rnorm(m * 2), m, 2)
  dr <- list(W = W, b = b)
  a <- approx_rff(10)
  on <- bahsic:::rff_hsic(x, F, dr, a, chunk = 6L, simd = TRUE)
  expect_identical(on, bahsic:::rff_hsic(x, F, dr, a, chunk = 6L, simd = FALSE))
  expect_equal(on, .Call(bahsic:::C_lowrank_hsic, rff_oracle_z(x, W, b), F), tolerance = 1e-12)
})

test_that("the vectorised cos() holds at large arguments and falls back beyond 1e5", {
  set.seed(36)
  m <- 400
  x <- matrix(rnorm(m * 2), m, 2)
  F <- matrix(rnorm(m * 2), m, 2)
  b <- runif(9, 0, 2 * pi)
  # arguments of a few units, up to about 1e4 (every quadrant, many
  # periods), and up to about 1e7 (glibc's cos() for those blocks)
  for (sd in c(1, 3000, 3e6)) {
    W <- matrix(rnorm(9 * 2, sd = sd), 9, 2)
    Z <- rff_oracle_z(x, W, b)
    for (simd in c(TRUE, FALSE)) {
      expect_equal(rff_c(x, F, W, b, 4L, simd = simd), .Call(bahsic:::C_lowrank_hsic, Z, F),
                   tolerance = 1e-12, label = paste("sd", sd, "simd", simd))
    }
  }
})

# Both sides random features (a numeric outcome with a Gaussian or Laplace
# label kernel, bk_rff_hsic2()): the samples taken a block of rows at a
# time, neither feature matrix held.
rff2_c <- function(x, y, dr, dry, rows, threads = 1L, simd = TRUE) {
  .Call(bahsic:::C_rff_hsic2, x, y, list(W = dr$W, b = dr$b, Wy = dry$W, by = dry$b,
                                         rows = as.integer(rows),
                                         threads = as.integer(threads), simd = simd))
}

test_that("random features on both sides give the statistics of the whole matrices", {
  set.seed(37)
  m <- 300
  x <- matrix(rnorm(m * 3), m, 3)
  y <- cbind(sin(x[, 1]) + rnorm(m, sd = 0.3), rnorm(m))
  dr <- list(W = matrix(rnorm(7 * 3, sd = 0.8), 7, 3), b = runif(7, 0, 2 * pi))
  dry <- list(W = matrix(rnorm(5 * 2, sd = 0.6), 5, 2), b = runif(5, 0, 2 * pi))
  Z <- rff_oracle_z(x, dr$W, dr$b)
  F <- rff_oracle_z(y, dry$W, dry$b)
  K <- tcrossprod(Z)
  L <- tcrossprod(F)
  # blocks of 1, 7 and 64 rows (300 is no multiple), one block, and above m
  st <- lapply(c(1L, 7L, 64L, 300L, 1000L), function(r) rff2_c(x, y, dr, dry, r))
  for (s in st) expect_identical(s, st[[1]])
  expect_identical(rff2_c(x, y, dr, dry, 7L, simd = FALSE), st[[1]])
  expect_equal(st[[1]], .Call(bahsic:::C_lowrank_hsic, Z, F), tolerance = 1e-12)
  expect_equal(st[[1]], .Call(bahsic:::C_hsic_stats, K, list(L = L))[1:3], tolerance = 1e-12)
  expect_equal(st[[1]][1], oracle_hsic0(K, L), tolerance = 1e-12)
  expect_equal(st[[1]][2], oracle_hsic1(K, L), tolerance = 1e-12)
})

test_that("random features on both sides do not depend on the blocks where an argument is huge", {
  # arguments beyond 1e5 take glibc's cos(), the others the package's: each
  # value on its own, whichever rows share its block
  set.seed(1)
  m <- 30
  x <- matrix(rnorm(m * 2), m, 2)
  y <- matrix(rnorm(m), m, 1)
  y[c(5, 17, 26)] <- c(3e5, 1e6, -2e5)
  dr <- list(W = matrix(rnorm(10), 5, 2), b = runif(5, 0, 2 * pi))
  dry <- list(W = matrix(rnorm(5), 5, 1), b = runif(5, 0, 2 * pi))
  one <- rff2_c(x, y, dr, dry, m)
  for (r in c(1L, 4L, 7L, 16L)) expect_identical(rff2_c(x, y, dr, dry, r), one, label = r)
  expect_identical(rff2_c(x, y, dr, dry, 7L, simd = FALSE), one)
  expect_equal(one, .Call(bahsic:::C_lowrank_hsic, rff_oracle_z(x, dr$W, dr$b),
                          rff_oracle_z(y, dry$W, dry$b)), tolerance = 1e-9)
})

test_that("random features on both sides do not depend on the number of threads", {
  set.seed(38)
  # 256 rows x 70 x 70 features: above the threshold of the parallel regions
  m <- 700
  x <- matrix(rnorm(m * 4), m, 4)
  y <- matrix(x[, 1]^2 + rnorm(m), m, 1)
  dr <- list(W = matrix(rnorm(70 * 4, sd = 0.5), 70, 4), b = runif(70, 0, 2 * pi))
  dry <- list(W = matrix(rnorm(70, sd = 0.7), 70, 1), b = runif(70, 0, 2 * pi))
  one <- rff2_c(x, y, dr, dry, 256L, threads = 1L)
  expect_identical(rff2_c(x, y, dr, dry, 256L, threads = 2L), one)
  expect_identical(rff2_c(x, y, dr, dry, 100L, threads = 2L), one)
})

test_that("hsic(approx = 'rff') with a numeric outcome uses both sides' draws in order", {
  set.seed(39)
  m <- 150
  d <- 2
  D <- 20L
  x <- matrix(rnorm(m * d), m, d)
  y <- x[, 1]^2 + rnorm(m, sd = 0.5)
  for (name in c("gaussian", "laplace")) {
    ky <- if (name == "gaussian") kernel_gaussian(0.3) else kernel_laplace(0.5)
    set.seed(6)
    ap <- hsic(x, y, kernel = kernel_gaussian(0.4), kernel_y = label_kernel_regression(ky),
               approx = approx_rff(D))
    # the data side's draws, then the label side's (?approximations)
    set.seed(6)
    W <- sqrt(2 * 0.4) * matrix(rnorm(D * d), D, d)
    b <- runif(D, 0, 2 * pi)
    Wy <- matrix(rnorm(D), D, 1)
    Wy <- if (name == "gaussian") sqrt(2 * 0.3) * Wy else 0.5 * Wy / abs(rnorm(D))
    by <- runif(D, 0, 2 * pi)
    K <- tcrossprod(rff_oracle_z(x, W, b))
    L <- tcrossprod(rff_oracle_z(matrix(y), Wy, by))
    ex <- hsic(x, y, kernel = kernel_precomputed(K), kernel_y = label_kernel_precomputed(L))
    expect_equal(ap$hsic0, ex$hsic0, tolerance = 1e-12, label = name)
    expect_equal(ap$hsic1, ex$hsic1, tolerance = 1e-12, label = name)
    expect_equal(ap$se, ex$se, tolerance = 1e-12, label = name)
    expect_identical(ap$rank, c(x = D, y = D))
  }
})

test_that("random features on both sides are refused above the memory budget", {
  set.seed(40)
  m <- 400
  x <- matrix(rnorm(m * 2), m, 2)
  y <- x[, 1] + rnorm(m)
  # 7 doubles per sample, the 2 D S cross-products and the blocks of rows:
  # about 0.3 MB for D = S = 30 here, never the m x D matrices
  old <- options(bahsic.max_memory = 200000)
  on.exit(options(old))
  ky <- label_kernel_regression(kernel_gaussian(0.5))
  fit <- function() hsic(x, y, kernel = kernel_gaussian(0.5), kernel_y = ky, approx = approx_rff(30))
  expect_error(fit(), "approx = \"rff\" needs .*bahsic.max_memory")
  options(bahsic.max_memory = 400000)
  expect_silent(fit())
})
