# The screen of all pairs of features (src/pairtop.c, R/pairtop.R) against
# plain-R oracles: the packed doubly centred Gaussian kernels from outer(),
# all scores from crossprod(), the linear screen from its formula.

# the rows a <= b of the m x m matrix A, column after column
pack_upper_diag <- function(A) A[upper.tri(A, diag = TRUE)]

# V (one column per feature) and w of the Gaussian screen
pair_oracle_vw <- function(x, W, gamma = 0.25) {
  m <- nrow(x)
  H <- diag(m) - 1 / m
  V <- apply(x, 2, function(v) pack_upper_diag(H %*% exp(-gamma * outer(v, v, "-")^2) %*% H))
  Wp <- 2 * W
  diag(Wp) <- diag(W)
  list(V = matrix(V, ncol = ncol(x)), w = pack_upper_diag(Wp))
}

pair_oracle_scores <- function(x, W, gamma = 0.25) {
  vw <- pair_oracle_vw(x, W, gamma)
  # with the sums of the terms' magnitudes, the scale of float's rounding
  structure(crossprod(vw$V * vw$w, vw$V), abs = crossprod(abs(vw$V * vw$w), abs(vw$V)))
}

pair_oracle_lowrank <- function(x, U, c) {
  S <- A <- 0
  for (t in seq_along(c)) {
    S <- S + c[t] * crossprod(x, U[, t] * x)^2
    A <- A + abs(c[t]) * crossprod(abs(x), abs(U[, t] * x))^2
  }
  structure(S, abs = A)
}

# all pairs i < j of S, best first (ties by i, then j)
pair_oracle_top <- function(S) {
  ij <- which(upper.tri(S), arr.ind = TRUE)
  s <- S[ij]
  o <- order(-s, ij[, 1], ij[, 2])
  data.frame(i = ij[o, 1], j = ij[o, 2], score = s[o])
}

std_matrix <- function(m, p, seed) {
  set.seed(seed)
  x <- scale(matrix(rnorm(m * p), m))
  attributes(x) <- list(dim = c(m, p))
  x
}

centred_label <- function(y) {
  m <- length(y)
  H <- diag(m) - 1 / m
  H %*% tcrossprod(y) %*% H
}

# The screen's top k against the oracle's: each score to float precision,
# the scores descending, and the same pairs where the k-th and (k+1)-th
# scores are apart.
expect_top_matches <- function(r, S, k) {
  top <- pair_oracle_top(S)
  # float rounding: a few units of 2^-24 of the sum of the terms' magnitudes
  tol <- 1e-5 * max(if (is.null(attr(S, "abs"))) abs(S) else attr(S, "abs"))
  n <- min(k, nrow(top))
  expect_length(r$i, n)
  expect_true(all(r$i < r$j))
  expect_lt(max(abs(r$score - S[cbind(r$i, r$j)])), tol)
  expect_false(is.unsorted(rev(r$score)))
  if (n < nrow(top) && top$score[n] - top$score[n + 1] > 4 * tol) {
    expect_setequal(paste(r$i, r$j), paste(top$i[1:n], top$j[1:n]))
  } else if (n == nrow(top)) {
    expect_setequal(paste(r$i, r$j), paste(top$i, top$j))
  }
}

test_that("the Gaussian screen finds the top pairs of the oracle", {
  # 150 features: two tiles of 96, a diagonal and an off-diagonal tile pair
  x <- std_matrix(10, 150, 1)
  W <- centred_label(rep(c(-1, 1), 5))
  S <- pair_oracle_scores(x, W)
  for (simd in c(TRUE, FALSE)) {
    r <- bahsic:::pair_top(x, W, 40, threads = 1L, simd = simd)
    expect_top_matches(r, S, 40)
  }
  # another width
  r <- bahsic:::pair_top(x, W, 25, gamma = 1.3, threads = 1L)
  expect_top_matches(r, pair_oracle_scores(x, W, 1.3), 25)
})

test_that("the Gaussian screen takes any symmetric weights, negative ones too", {
  x <- std_matrix(7, 30, 2)
  set.seed(3)
  W <- matrix(rnorm(49), 7)
  W <- W + t(W)
  S <- pair_oracle_scores(x, W)
  expect_true(any(S[upper.tri(S)] < 0))
  expect_top_matches(bahsic:::pair_top(x, W, 20, threads = 1L), S, 20)
  # all pairs: the lowest (negative) scores come last
  r <- bahsic:::pair_top(x, -W, 1000, threads = 1L)
  expect_top_matches(r, -S, 1000)
  # a W of an extreme scale: scaled into float's range and back
  r <- bahsic:::pair_top(x, W * 2^200, 10, threads = 1L)
  expect_lt(max(abs(r$score / 2^200 - S[cbind(r$i, r$j)])), 1e-4 * max(abs(S)))
})

test_that("k beyond the number of pairs, p = 2, p = 1 and tiny m", {
  x <- std_matrix(6, 5, 4)
  W <- centred_label(c(1, 2, 0, 5, 3, 1))
  S <- pair_oracle_scores(x, W)
  r <- bahsic:::pair_top(x, W, 1000, threads = 1L)
  expect_length(r$score, 10)
  expect_top_matches(r, S, 1000)
  r2 <- bahsic:::pair_top(x[, 1:2], W, 3, threads = 1L)
  expect_identical(c(r2$i, r2$j), c(1L, 2L))
  expect_lt(abs(r2$score - S[1, 2]), 1e-5 * max(abs(S)))
  r1 <- bahsic:::pair_top(x[, 1, drop = FALSE], W, 3, threads = 1L)
  expect_identical(r1, list(i = integer(), j = integer(), score = numeric()))
  # m = 2: Kc of every feature is the same up to its kernel value
  x2 <- matrix(c(-1, 1, 0.3, -0.3, 2, -2), 2)
  W2 <- centred_label(c(0, 1))
  expect_top_matches(bahsic:::pair_top(x2, W2, 5, threads = 1L), pair_oracle_scores(x2, W2), 5)
})

test_that("tied scores come in the order of i, then j", {
  x <- std_matrix(8, 20, 5)
  x[, c(7, 12, 3)] <- x[, 1]
  W <- centred_label(c(1, 1, 1, 1, 0, 0, 0, 0))
  r <- bahsic:::pair_top(x, W, 190, threads = 1L)
  expect_identical(order(-r$score, r$i, r$j), seq_along(r$score))
  # the copies give exactly equal scores against a fourth feature
  s <- function(i, j) r$score[r$i == min(i, j) & r$j == max(i, j)]
  expect_identical(s(1, 5), s(3, 5))
  expect_identical(s(7, 5), s(12, 5))
})

test_that("the linear screen finds the top pairs of its formula", {
  x <- std_matrix(20, 150, 6)
  set.seed(7)
  U <- matrix(rnorm(40), 20)
  cc <- c(1, -0.3)
  S <- pair_oracle_lowrank(x, U, cc)
  for (simd in c(TRUE, FALSE)) {
    r <- bahsic:::pair_top_lowrank(x, U, cc, 30, threads = 1L, simd = simd)
    expect_top_matches(r, S, 30)
  }
  # rank 1, two classes: u = the centred class indicator; the linear kernel's
  # interaction sum_ab W_ab (x_ai x_bi)(x_aj x_bj) with W = u u'
  u <- rep(c(-0.5, 0.5), 10)
  S1 <- crossprod(x, u * x)^2
  expect_top_matches(bahsic:::pair_top_lowrank(x, u, 1, 15, threads = 1L), S1, 15)
  W <- tcrossprod(u)
  expect_equal(S1[2, 9], sum(W * tcrossprod(x[, 2]) * tcrossprod(x[, 9])))
})

test_that("the screens give identical results for 1, 2 and 4 threads", {
  # 300 features at m = 30: ten tile pairs, enough work for threads
  x <- std_matrix(30, 300, 8)
  W <- centred_label(rep(1:3, 10))
  set.seed(9)
  U <- matrix(rnorm(360), 30) # 12 terms: enough work for threads
  cc <- seq(2, -1, length.out = 12)
  for (simd in c(TRUE, FALSE)) {
    r1 <- bahsic:::pair_top(x, W, 200, threads = 1L, simd = simd)
    expect_identical(bahsic:::pair_top(x, W, 200, threads = 2L, simd = simd), r1)
    expect_identical(bahsic:::pair_top(x, W, 200, threads = 4L, simd = simd), r1)
    l1 <- bahsic:::pair_top_lowrank(x, U, cc, 500, threads = 1L, simd = simd)
    expect_identical(bahsic:::pair_top_lowrank(x, U, cc, 500, threads = 2L, simd = simd), l1)
    expect_identical(bahsic:::pair_top_lowrank(x, U, cc, 500, threads = 4L, simd = simd), l1)
  }
  expect_top_matches(r1, pair_oracle_scores(x, W), 200)
  expect_top_matches(l1, pair_oracle_lowrank(x, U, cc), 500)
  # one list holding all 44,850 pairs, sorted
  all1 <- bahsic:::pair_top_lowrank(x, U, cc, 44850L, threads = 1L)
  expect_top_matches(all1, pair_oracle_lowrank(x, U, cc), 44850L)
  # lists long enough that the threads sort them before the merge, from 66
  # tile pairs: the same pairs in the same order (3 and 4 lists where the
  # machine has the cores: the C side takes no more threads than cores;
  # `tools/harness.sh check` merges 4 lists on any machine)
  xb <- std_matrix(30, 1000, 12)
  big1 <- bahsic:::pair_top_lowrank(xb, U, cc, 20000L, threads = 1L)
  expect_top_matches(big1, pair_oracle_lowrank(xb, U, cc), 20000L)
  for (nt in c(3L, 4L)) {
    expect_identical(bahsic:::pair_top_lowrank(xb, U, cc, 20000L, threads = nt), big1)
  }
  # all scores 0: the pairs in the order of i, then j, from every thread's list
  z1 <- bahsic:::pair_top_lowrank(x, U, rep(0, 12), 20000L, threads = 1L)
  expect_identical(paste(z1$i, z1$j)[1:3], c("1 2", "1 3", "1 4"))
  expect_identical(order(z1$i, z1$j), seq_along(z1$i))
  expect_identical(bahsic:::pair_top_lowrank(x, U, rep(0, 12), 20000L, threads = 4L), z1)
})

test_that("the screen's memory is counted and refused above the budget", {
  # the float vectors of 12,625 features at m = 128: 417 MB and the work
  b <- bahsic:::pair_top_bytes(128, 12625, 1000, threads = 2L)
  expect_gt(b, 4 * 8256 * 12625)
  expect_lt(b, 1.1 * 4 * 8256 * 12672)
  expect_lt(bahsic:::pair_top_bytes(128, 12625, 1000, rank = 1L), 0.1 * b)
  old <- options(bahsic.max_memory = "5 MB")
  on.exit(options(old))
  x <- std_matrix(128, 200, 10)
  expect_error(bahsic:::pair_top(x, diag(128), 5), "memory budget")
  expect_error(bahsic:::check_pair_memory(128, 12625, 10), "Screening all pairs of 12625 features")
})

test_that("the screens answer for any thread count, as for one", {
  x <- std_matrix(12, 40, 11)
  W <- centred_label(rep(0:1, 6))
  one <- bahsic:::pair_top(x, W, 30, threads = 1L)
  for (th in list(.Machine$integer.max, 100000L, 1e9)) {
    expect_identical(bahsic:::pair_top(x, W, 30, threads = th), one)
    expect_identical(bahsic:::pair_top_lowrank(x, rep(0.5, 12), 1, 30, threads = th),
                     bahsic:::pair_top_lowrank(x, rep(0.5, 12), 1, 30, threads = 1L))
  }
})

test_that("a time limit stops the screen from inside", {
  skip_on_cran()
  skip_if(under_valgrind(), "under valgrind: minutes, not seconds")
  # 6,000 features at m = 100: 9 10^10 multiply-adds, seconds of work
  x <- std_matrix(100, 6000, 12)
  W <- centred_label(rep(0:1, 50))
  expect_time_limit(under_time_limit(function() bahsic:::pair_top(x, W, 10, threads = 1L)),
                    "pair_top")
  expect_time_limit(under_time_limit(function() {
    bahsic:::pair_top_lowrank(x[, rep(1:6000, 4)], matrix(rnorm(1000), 100), rep(1, 10), 10,
                              threads = 1L)
  }), "pair_top_lowrank")
})
