# bahsic() and fohsic() with approx = "block" (the block estimator: the
# selection loop of src/select.c over a list of blocks) and approx = "rff"
# (random Fourier features of every candidate set) and approx = "ichol"
# (Nystrom on the pivots of each iteration's set), against plain-R oracles
# on small data.

# oracle_hsic0() and oracle_hsic1(): helper-oracles.R

# The balanced binary (eq. 17, the second level +1) or multiclass (eq. 18)
# label kernel, class weights from all samples
oracle_label <- function(y) {
  n <- as.vector(table(y))[as.integer(y)]
  if (nlevels(y) == 2L) {
    v <- ifelse(as.integer(y) == 2L, 1, -1) / n
    return(tcrossprod(v))
  }
  outer(as.integer(y), as.integer(y), "==") / sqrt(outer(n, n))
}

oracle_kernel <- function(z, kernel, sigma) {
  D2 <- as.matrix(stats::dist(z))^2
  switch(kernel, gaussian = exp(-sigma * D2), laplace = exp(-sigma * sqrt(D2)),
         polynomial = (tcrossprod(z) + 1)^2)
}

# Block estimate of a feature set: the average over the blocks of the HSIC
# within each block, the label kernel that of all samples restricted to it
oracle_block_hsic <- function(x, y, blocks, kernel = "gaussian", sigma = 0.1,
                              estimator = oracle_hsic0) {
  L <- oracle_label(y)
  mean(vapply(blocks, function(i) {
    estimator(oracle_kernel(x[i, , drop = FALSE], kernel, sigma), L[i, i])
  }, numeric(1)))
}

small_problem <- function(m = 40, d = 6, seed = 1) {
  set.seed(seed)
  x <- scale(matrix(stats::rnorm(m * d), m, d))
  colnames(x) <- paste0("f", seq_len(d))
  y <- factor(ifelse(x[, 1] + x[, 2]^2 + stats::rnorm(m, sd = 0.5) > 1, "b", "a"))
  list(x = x, y = y)
}

test_that("block with size >= m is the exact selection, bit for bit", {
  set.seed(2)
  sim <- simulate_xor(60)
  for (kernel in list(kernel_gaussian(), kernel_laplace(), kernel_polynomial(2))) {
    exact <- bahsic(sim$x, sim$y, kernel = kernel, screen = "none")
    blk <- bahsic(sim$x, sim$y, kernel = kernel, approx = approx_block(size = 60))
    expect_identical(blk$features, exact$features)
    expect_identical(blk$path, exact$path)
  }
  exact <- fohsic(sim$x, sim$y, sigma = "optimize")
  blk <- fohsic(sim$x, sim$y, sigma = "optimize", approx = approx_block(size = 100))
  expect_identical(blk$features, exact$features)
  expect_identical(blk$path, exact$path)
  exact <- bahsic(sim$x, sim$y, kernel = kernel_linear())
  blk <- bahsic(sim$x, sim$y, kernel = kernel_linear(), approx = approx_block(size = 60))
  expect_identical(blk$features, exact$features)
})

test_that("the blocks are a random partition, the last taking the remainder", {
  sim <- small_problem(m = 43)
  set.seed(5)
  fit <- bahsic(sim$x, sim$y, approx = approx_block(size = 10))
  b <- fit$settings$blocks
  expect_identical(lengths(b), c(10L, 10L, 10L, 13L))
  expect_setequal(unlist(b), 1:43)
  set.seed(5)
  expect_identical(unlist(b), sample.int(43))
  expect_match(fit$settings$approx, "block estimator (size = 10", fixed = TRUE)
  fit2 <- bahsic(sim$x, sim$y, approx = approx_block(size = 10, n_partitions = 3))
  b2 <- fit2$settings$blocks
  expect_length(b2, 12L)
  for (p in 0:2) expect_setequal(unlist(b2[4 * p + 1:4]), 1:43)
})

test_that("BAHSIC candidate scores are the average per-block HSIC (plain-R oracle)", {
  sim <- small_problem(m = 43)
  cases <- list(
    list(kernel = kernel_gaussian(sigma = 0.1), name = "gaussian", sigma = 0.1,
         estimator = "biased", fn = oracle_hsic0, partitions = 1L),
    list(kernel = kernel_laplace(sigma = 0.3), name = "laplace", sigma = 0.3,
         estimator = "unbiased", fn = oracle_hsic1, partitions = 1L),
    list(kernel = kernel_polynomial(2), name = "polynomial", sigma = NA,
         estimator = "biased", fn = oracle_hsic0, partitions = 2L))
  for (cs in test_cases(cases)) {
    set.seed(11)
    # n_features = d: the one pass over the survivors scores every candidate
    fit <- bahsic(sim$x, sim$y, kernel = cs$kernel, estimator = cs$estimator,
                  sigma = "fixed", standardize = FALSE, n_features = 6,
                  approx = approx_block(size = 10, n_partitions = cs$partitions))
    blocks <- fit$settings$blocks
    expect_length(blocks, 4L * cs$partitions)
    want <- vapply(1:6, function(j) {
      oracle_block_hsic(sim$x[, -j, drop = FALSE], sim$y, blocks, cs$name, cs$sigma, cs$fn)
    }, numeric(1))
    expect_equal(fit$features$score, want, tolerance = 1e-10)
    expect_equal(fit$path$hsic, oracle_block_hsic(sim$x, sim$y, blocks, cs$name, cs$sigma,
                                                  cs$fn), tolerance = 1e-10)
  }
})

test_that("FOHSIC scores and the 'optimize' width on the block path match the oracle", {
  sim <- small_problem(m = 40)
  set.seed(3)
  fit <- fohsic(sim$x, sim$y, sigma = "optimize", standardize = FALSE, add = 0.999,
                approx = approx_block(size = 10))
  blocks <- fit$settings$blocks
  # the width: the grid around the median within-block squared distance of
  # all features (the reference set of the first iteration) that maximises
  # the block HSIC of that set
  d2 <- unlist(lapply(blocks, function(i) {
    D <- as.matrix(stats::dist(sim$x[i, ]))^2
    D[upper.tri(D)]
  }))
  grid <- 2^(-3:3) / stats::median(d2)
  h <- vapply(grid, function(s) oracle_block_hsic(sim$x, sim$y, blocks, "gaussian", s),
              numeric(1))
  sigma <- grid[which.max(h)]
  expect_equal(fit$path$sigma[1], sigma, tolerance = 1e-12)
  first <- which(fit$features$iteration == 1L)
  expect_length(first, 5L)
  want <- vapply(first, function(j) {
    oracle_block_hsic(sim$x[, j, drop = FALSE], sim$y, blocks, "gaussian", sigma)
  }, numeric(1))
  expect_equal(fit$features$score[first], want, tolerance = 1e-10)
})

test_that("multiclass labels with a class missing from some blocks match the oracle", {
  set.seed(4)
  x <- scale(matrix(stats::rnorm(40 * 4), 40, 4))
  y <- factor(c(rep("a", 19), rep("b", 19), "c", "c"))
  set.seed(8)
  fit <- bahsic(x, y, kernel = kernel_gaussian(sigma = 0.2), sigma = "fixed",
                standardize = FALSE, n_features = 4, approx = approx_block(size = 10))
  blocks <- fit$settings$blocks
  expect_true(any(vapply(blocks, function(i) !any(y[i] == "c"), logical(1))))
  want <- vapply(1:4, function(j) {
    oracle_block_hsic(x[, -j, drop = FALSE], y, blocks, "gaussian", 0.2)
  }, numeric(1))
  expect_equal(fit$features$score, want, tolerance = 1e-10)
})

test_that("the first BAHSIC set's block HSIC is hsic(approx = \"block\") under the same seed", {
  sim <- small_problem(m = 57)
  for (est in c("biased", "unbiased")) {
    set.seed(9)
    h <- hsic(sim$x, sim$y, kernel = kernel_gaussian(sigma = 0.1), estimator = est,
              approx = approx_block(size = 12, n_partitions = 2))
    set.seed(9)
    fit <- bahsic(sim$x, sim$y, kernel = kernel_gaussian(sigma = 0.1), sigma = "fixed",
                  estimator = est, standardize = FALSE,
                  approx = approx_block(size = 12, n_partitions = 2))
    expect_equal(fit$path$hsic[1], h$estimate, tolerance = 1e-10)
  }
})

test_that("block selection is reproducible under set.seed and the same for 1 and 2 threads", {
  set.seed(6)
  sim <- simulate_xor(1200)
  set.seed(1)
  a <- bahsic(sim$x, sim$y, approx = approx_block(size = 100))
  set.seed(1)
  b <- bahsic(sim$x, sim$y, approx = approx_block(size = 100), threads = 2L)
  expect_identical(a$features, b$features)
  expect_identical(a$path, b$path)
  set.seed(2)
  c <- bahsic(sim$x, sim$y, approx = approx_block(size = 100))
  expect_false(identical(a$settings$blocks, c$settings$blocks))
  set.seed(1)
  f1 <- fohsic(sim$x, sim$y, approx = approx_block(size = 100, n_partitions = 2),
               n_features = 5)
  set.seed(1)
  f2 <- fohsic(sim$x, sim$y, approx = approx_block(size = 100, n_partitions = 2),
               n_features = 5, threads = 2L)
  expect_identical(f1$features, f2$features)
})

test_that("block BAHSIC ranks the planted features on top (m = 1000)", {
  skip_on_cran()
  skip_if(under_valgrind(), "slow under valgrind")
  set.seed(7)
  sim <- simulate_xor(1000)
  fit <- bahsic(sim$x, sim$y, approx = approx_block(size = 100))
  expect_setequal(selected(fit, 2), c("X1", "X2"))
  # a numeric outcome: the regression label kernel, its width from all outcomes
  set.seed(7)
  x <- matrix(stats::rnorm(1000 * 10), 1000, 10)
  y <- sin(2 * x[, 3]) + x[, 7]^2 + stats::rnorm(1000, sd = 0.2)
  fit <- bahsic(x, y, approx = "block")
  expect_setequal(selected(fit, 2), c("V3", "V7"))
})

# ---- approx = "rff" -------------------------------------------------------------

# Random Fourier features of x for the standard draws omega (D x d) and
# phases b, at the width sigma
oracle_rff <- function(x, omega, b, kernel, sigma) {
  scale <- if (kernel == "gaussian") sqrt(2 * sigma) else sigma
  proj <- x %*% t(scale * omega)
  sqrt(2 / nrow(omega)) * cos(sweep(proj, 2L, b, "+"))
}

test_that("rff candidate scores are HSIC of the random features (plain-R oracle)", {
  sim <- small_problem(m = 40)
  L <- oracle_label(sim$y)
  D <- 30L
  cases <- list(list(kernel = kernel_gaussian(sigma = 0.1), name = "gaussian", sigma = 0.1,
                     estimator = "biased", fn = oracle_hsic0),
                list(kernel = kernel_laplace(sigma = 0.4), name = "laplace", sigma = 0.4,
                     estimator = "unbiased", fn = oracle_hsic1))
  for (cs in test_cases(cases)) {
    set.seed(21)
    fit <- bahsic(sim$x, sim$y, kernel = cs$kernel, estimator = cs$estimator, sigma = "fixed",
                  standardize = FALSE, n_features = 6, approx = approx_rff(D))
    set.seed(21)
    omega <- matrix(stats::rnorm(D * 6), D, 6)
    if (cs$name == "laplace") omega <- omega / abs(stats::rnorm(D))
    b <- stats::runif(D, 0, 2 * pi)
    want <- vapply(1:6, function(j) {
      Z <- oracle_rff(sim$x[, -j, drop = FALSE], omega[, -j, drop = FALSE], b, cs$name, cs$sigma)
      cs$fn(tcrossprod(Z), L)
    }, numeric(1))
    expect_equal(fit$features$score, want, tolerance = 1e-9)
    Z <- oracle_rff(sim$x, omega, b, cs$name, cs$sigma)
    expect_equal(fit$path$hsic, cs$fn(tcrossprod(Z), L), tolerance = 1e-9)
    expect_match(fit$settings$approx, "random Fourier features (n_features = 30)", fixed = TRUE)
  }
})

test_that("rff FOHSIC with the 'dimension' width matches the oracle, and hsic(approx = \"rff\")", {
  sim <- small_problem(m = 40)
  L <- oracle_label(sim$y)
  set.seed(22)
  fit <- fohsic(sim$x, sim$y, standardize = FALSE, add = 0.999, approx = approx_rff(25))
  set.seed(22)
  omega <- matrix(stats::rnorm(25 * 6), 25, 6)
  b <- stats::runif(25, 0, 2 * pi)
  first <- which(fit$features$iteration == 1L)
  # FOHSIC's "dimension" width for a candidate added to the empty set: 1 / (2 * 1)
  want <- vapply(first, function(j) {
    oracle_hsic0(tcrossprod(oracle_rff(sim$x[, j, drop = FALSE], omega[, j, drop = FALSE], b,
                                       "gaussian", 0.5)), L)
  }, numeric(1))
  expect_equal(fit$features$score[first], want, tolerance = 1e-9)
  # the full set's HSIC: the same draws as hsic() makes under the same seed,
  # scaled by the width in R (hsic) and in C (bahsic) alike, for every kernel
  # with random features in the kernel table
  for (name in bahsic:::kernels_with("rff")) {
    kernel <- get(paste0("kernel_", name), envir = asNamespace("bahsic"))(sigma = 0.2)
    set.seed(23)
    h <- hsic(sim$x, sim$y, kernel = kernel, estimator = "biased", approx = approx_rff(40))
    set.seed(23)
    fit <- bahsic(sim$x, sim$y, kernel = kernel, sigma = "fixed", standardize = FALSE,
                  approx = approx_rff(40))
    expect_equal(fit$path$hsic[1], h$estimate, tolerance = 1e-10, info = name)
  }
})

test_that("rff selection: the same for 1 and 2 threads; planted features on top", {
  set.seed(24)
  sim <- simulate_xor(300)
  set.seed(1)
  a <- bahsic(sim$x, sim$y, approx = approx_rff(200))
  set.seed(1)
  b <- bahsic(sim$x, sim$y, approx = approx_rff(200), threads = 2L)
  expect_identical(a$features, b$features)
  expect_identical(a$path, b$path)
  skip_on_cran()
  skip_if(under_valgrind(), "slow under valgrind")
  expect_setequal(selected(a, 2), c("X1", "X2"))
  set.seed(2)
  fit <- bahsic(sim$x, sim$y, kernel = kernel_laplace(), approx = approx_rff(200))
  expect_setequal(selected(fit, 2), c("X1", "X2"))
})

# ---- approx = "ichol" (BAHSIC) -----------------------------------------------------

test_that("ichol at full rank is the exact selection", {
  set.seed(31)
  sim <- simulate_xor(80)
  for (cs in test_cases(list(list(kernel_gaussian(), "biased"), list(kernel_laplace(), "unbiased"),
                             list(kernel_polynomial(2), "biased")))) {
    exact <- bahsic(sim$x, sim$y, kernel = cs[[1]], estimator = cs[[2]], screen = "none")
    fit <- bahsic(sim$x, sim$y, kernel = cs[[1]], estimator = cs[[2]],
                  approx = approx_ichol(tol = 1e-14, max_rank = 80))
    expect_equal(fit$features$score, exact$features$score, tolerance = 1e-6)
    expect_equal(fit$path$hsic, exact$path$hsic, tolerance = 1e-6)
    expect_identical(fit$features$rank[1:2], exact$features$rank[1:2])
  }
})

test_that("ichol candidate scores are HSIC of the Nystrom kernel on the set's pivots (oracle)", {
  sim <- small_problem(m = 40)
  L <- oracle_label(sim$y)
  for (cs in test_cases(list(list(kernel_gaussian(sigma = 0.1), "gaussian", 0.1, "biased",
                                  oracle_hsic0),
                             list(kernel_laplace(sigma = 0.3), "laplace", 0.3, "unbiased",
                                  oracle_hsic1)))) {
    # (rank 8 leaves a large residual: the call warns)
    fit <- suppressWarnings(bahsic(sim$x, sim$y, kernel = cs[[1]], sigma = "fixed",
                                   estimator = cs[[4]], standardize = FALSE, n_features = 6,
                                   approx = approx_ichol(tol = 1e-8, max_rank = 8)))
    # the pivots of the incomplete Cholesky of the whole set
    p <- kernel_param(cs[[1]])
    piv <- .Call(C_ichol, sim$x, list(kernel = kernel_code(cs[[1]]), p1 = p[1L], p2 = p[2L],
                                      tol = 1e-8, max_rank = 8L))$pivots
    expect_length(piv, 8L)
    nystrom <- function(K) K[, piv] %*% solve(K[piv, piv], K[piv, ])
    want <- vapply(1:6, function(j) {
      cs[[5]](nystrom(oracle_kernel(sim$x[, -j, drop = FALSE], cs[[2]], cs[[3]])), L)
    }, numeric(1))
    expect_equal(fit$features$score, want, tolerance = 1e-8)
    expect_equal(fit$path$hsic, cs[[5]](nystrom(oracle_kernel(sim$x, cs[[2]], cs[[3]])), L),
                 tolerance = 1e-8)
  }
})

test_that("ichol selection: the same for 1 and 2 threads; planted features on top", {
  set.seed(32)
  sim <- simulate_xor(300)
  expect_warning(a <- bahsic(sim$x, sim$y, approx = approx_ichol(max_rank = 40)),
                 "residual trace")
  expect_warning(b <- bahsic(sim$x, sim$y, approx = approx_ichol(max_rank = 40), threads = 2L),
                 "residual trace")
  expect_identical(a$features, b$features)
  expect_identical(a$path, b$path)
  expect_match(a$settings$approx, "incomplete Cholesky", fixed = TRUE)
  skip_on_cran()
  skip_if(under_valgrind(), "slow under valgrind")
  expect_setequal(selected(a, 2), c("X1", "X2"))
})

test_that("ichol: the rank of the loop is the whole set's factor's, and one warning per call", {
  set.seed(34)
  sim <- simulate_xor(120)
  n <- 0L
  fit <- withCallingHandlers(
    bahsic(sim$x, sim$y, drop = 0, approx = approx_ichol(max_rank = 10)),
    warning = function(w) {
      n <<- n + 1L
      expect_match(conditionMessage(w), "of [0-9.]+% at rank 10 in the data kernel")
      invokeRestart("muffleWarning")
    })
  # 22 rounds (one feature at a time), one warning, before the loop
  expect_identical(nrow(fit$path), 22L)
  expect_identical(n, 1L)
  # the first round's HSIC is that of the factor of all features at the
  # width of the "dimension" policy, 1 / (2 p), that the warning was about
  xs <- standardize_columns(sim$x, colnames(sim$x))
  G <- .Call(C_ichol, xs, list(kernel = kernel_code(kernel_gaussian()), p1 = 1 / (2 * 22),
                               p2 = 0, tol = 1e-3, max_rank = 10L))$G
  Y <- label_gram(label_kernel_binary(), sim$y)$Y
  expect_equal(fit$path$hsic[1], .Call(C_lowrank_hsic, G, Y)[1], tolerance = 1e-10)
  # an accurate factor (tol reached before the cap) does not warn
  expect_no_warning(bahsic(sim$x, sim$y, approx = approx_ichol(max_rank = 120)))
})

test_that("approximations the selectors do not take give clear errors", {
  sim <- small_problem()
  expect_error(fohsic(sim$x, sim$y, approx = approx_ichol()), "available in bahsic\\(\\) only")
  expect_error(bahsic(sim$x, sim$y, sigma = "optimize", approx = "ichol"),
               "sigma = \"optimize\" is not available with approx = \"ichol\"")
  expect_error(bahsic(sim$x, sim$y, kernel = kernel_linear(), approx = "ichol"),
               "not needed with the linear kernel")
  expect_error(bahsic(sim$x, sim$y, approx = "fast"), "'approx' must be one of")
  expect_error(bahsic(sim$x, sim$y, kernel = kernel_polynomial(2), approx = "rff"),
               "needs a Gaussian or Laplace kernel")
  expect_error(bahsic(sim$x, sim$y, sigma = "optimize", approx = "rff"),
               "sigma = \"optimize\" is not available with approx = \"rff\"")
  df <- data.frame(a = stats::rnorm(40), b = factor(rep(1:2, 20)))
  for (a in c("block", "rff", "ichol")) {
    expect_error(bahsic(df, sim$y, kernel = kernel_clinical(), approx = a),
                 "kernel_clinical\\(\\)")
  }
})
