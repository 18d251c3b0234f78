# Property tests: randomised cases from fixed seeds, each checking an
# invariant that must hold for every input, not a value computed for one.
# The cases are drawn with R's RNG so a failure names its seed and case and
# can be replayed with prop_case(seed). Under valgrind only the first few
# cases of each loop run (test_cases(), helper-skips.R).

# One random problem: sizes, kernel, outcome type and label kernel.
# psd_only: only kernels that are positive semi-definite (biased HSIC >= 0
# needs both K and L psd; the inverse-distance kernel is not).
prop_case <- function(seed, m_range = 6:30, d_range = 1:5, psd_only = FALSE) {
  set.seed(seed)
  m <- if (length(m_range) == 1L) m_range else sample(m_range, 1L)
  d <- if (length(d_range) == 1L) d_range else sample(d_range, 1L)
  x <- matrix(rnorm(m * d), m, d, dimnames = list(NULL, paste0("f", seq_len(d))))
  kernels <- list(
    kernel_gaussian(), kernel_gaussian(runif(1, 0.1, 2)), kernel_laplace(),
    kernel_linear(), kernel_polynomial(degree = sample(1:3, 1L), offset = runif(1)),
    kernel_inverse_distance()
  )
  if (psd_only) kernels <- kernels[-6L]
  kernel <- kernels[[sample(length(kernels), 1L)]]
  type <- sample(c("binary", "multiclass", "regression"), 1L)
  # every class at least twice, in random order
  y <- switch(type,
    binary = factor(sample(rep_len(c("a", "b"), m))),
    multiclass = factor(sample(rep_len(c("a", "b", "c"), m))),
    regression = x[, 1] + rnorm(m)
  )
  kernel_y <- switch(type,
    binary = sample(list(label_kernel_binary(), label_kernel_binary(FALSE)), 1L)[[1L]],
    multiclass = label_kernel_multiclass(sample(c("balanced", "one_vs_rest", "block"), 1L)),
    regression = sample(list(label_kernel_regression(kernel_gaussian()),
                             label_kernel_regression(kernel_linear())), 1L)[[1L]]
  )
  list(seed = seed, x = x, y = y, kernel = kernel, kernel_y = kernel_y,
       info = sprintf("seed %d: m = %d, d = %d, %s kernel, %s outcome, %s", seed, m, d,
                      kernel$name, type, kernel_y$type))
}

test_that("HSIC does not depend on the order of the samples", {
  for (seed in test_cases(1:25, n = 5L)) {
    cs <- prop_case(seed)
    p <- sample(nrow(cs$x))
    for (est in c("biased", "unbiased")) {
      a <- hsic(cs$x, cs$y, kernel = cs$kernel, kernel_y = cs$kernel_y, estimator = est)
      b <- hsic(cs$x[p, , drop = FALSE], cs$y[p], kernel = cs$kernel,
                kernel_y = cs$kernel_y, estimator = est)
      expect_equal(b$estimate, a$estimate, tolerance = 1e-10,
                   label = paste(cs$info, est, "permuted"))
      expect_equal(b$se, a$se, tolerance = 1e-8, label = paste(cs$info, est, "se"))
    }
  }
})

test_that("the biased HSIC of positive semi-definite kernels is never negative", {
  for (seed in test_cases(101:140, n = 5L)) {
    cs <- prop_case(seed, m_range = 2:25, psd_only = TRUE)
    # an outcome unrelated to x as well: the estimate is then near 0, where a
    # sign error would show
    if (is.numeric(cs$y)) cs$y <- sample(cs$y)
    h <- hsic(cs$x, cs$y, kernel = cs$kernel, kernel_y = cs$kernel_y,
              estimator = "biased")
    K <- kernel_matrix(cs$kernel, cs$x)
    L <- label_kernel_matrix(cs$kernel_y, cs$y)
    scale <- max(abs(K)) * max(abs(L))
    expect_gte(h$estimate, -1e-12 * scale, label = cs$info)
    expect_equal(h$estimate, oracle_hsic0(K, L), tolerance = 1e-10, label = cs$info)
  }
})

test_that("the unbiased HSIC is the U-statistic over all quadruples (m = 4..8)", {
  for (seed in test_cases(201:215, n = 2L)) {
    cs <- prop_case(seed, m_range = 4:8, d_range = 1:3)
    K <- kernel_matrix(cs$kernel, cs$x)
    L <- label_kernel_matrix(cs$kernel_y, cs$y)
    u <- oracle_ustat(K, L)
    h <- hsic(cs$x, cs$y, kernel = cs$kernel, kernel_y = cs$kernel_y)
    tol <- 1e-10 * max(1, max(abs(K)) * max(abs(L)))
    expect_equal(h$estimate, u$hsic1, tolerance = tol, label = cs$info)
    expect_equal(h$se^2, max(u$variance, 0), tolerance = tol, label = cs$info)
  }
})

# The unbiased estimator leaves out the diagonals of K and L; it must not get
# there by subtracting them, or a kernel with a huge diagonal (inverse
# distance with a tiny eps) loses every digit (found by the test above with
# eps = 1e-6, where 6 digits were lost).
test_that("the unbiased HSIC does not depend on the diagonal of K", {
  for (seed in test_cases(601:610, n = 5L)) {
    cs <- prop_case(seed, m_range = 5:20)
    K <- kernel_matrix(cs$kernel, cs$x)
    L <- label_kernel_matrix(cs$kernel_y, cs$y)
    diag(K) <- 0
    want <- oracle_hsic1(K, L)
    for (eps in c(1e-3, 1e-8, 1e-12)) {
      Kp <- K
      diag(Kp) <- 1 / eps
      h <- hsic(cs$x, cs$y, kernel = kernel_precomputed(Kp), kernel_y = cs$kernel_y)
      expect_equal(h$estimate, want, tolerance = 1e-10, label = paste(cs$info, eps))
    }
  }
})

# A selector's input with its columns shuffled and renamed: the feature that
# was column j must get the same rank, score and iteration.
test_that("selectors do not depend on the order or names of the features", {
  sel_kernels <- list(kernel_gaussian(), kernel_laplace(), kernel_linear(),
                      kernel_polynomial(), kernel_inverse_distance())
  for (seed in test_cases(301:316, n = 5L)) {
    cs <- prop_case(seed, m_range = 8:20, d_range = 2:9)
    kernel <- sel_kernels[[(seed %% length(sel_kernels)) + 1L]]
    d <- ncol(cs$x)
    p <- sample(d)
    xp <- cs$x[, p, drop = FALSE]
    colnames(xp) <- paste0("renamed", seq_len(d))
    step <- sample(c(0, 0.3), 1L)
    for (method in c("bahsic", "fohsic")) {
      sigma <- sample(c("dimension", "optimize", "fixed"), 1L)
      # a width policy needs a kernel with a width
      if (!kernel$name %in% c("gaussian", "laplace")) sigma <- "fixed"
      args <- list(kernel = kernel, kernel_y = cs$kernel_y, sigma = sigma)
      args[[if (method == "bahsic") "drop" else "add"]] <- step
      a <- do.call(method, c(list(cs$x, cs$y), args))
      b <- do.call(method, c(list(xp, cs$y), args))
      info <- paste(cs$info, method, "with kernel", kernel$name, sigma, "step", step)
      # b's feature k is a's feature p[k]
      expect_identical(b$features$rank, a$features$rank[p], label = info)
      expect_equal(b$features$score, a$features$score[p], tolerance = 1e-10, label = info)
      expect_identical(b$features$iteration, a$features$iteration[p], label = info)
      expect_equal(b$path, a$path, tolerance = 1e-10, label = info)
    }
  }
})

test_that("selectors rank every feature exactly once, or stop where asked", {
  for (seed in test_cases(401:430, n = 5L)) {
    cs <- prop_case(seed, m_range = 5:15, d_range = 1:12)
    d <- ncol(cs$x)
    n <- if (seed %% 3 == 0) sample(d, 1L) else NULL
    step <- sample(c(0, 0.1, 0.5, 0.9), 1L)
    kernel <- if (cs$kernel$name == "linear") kernel_gaussian() else cs$kernel
    for (method in c("bahsic", "fohsic")) {
      fit <- if (method == "bahsic") {
        bahsic(cs$x, cs$y, kernel = kernel, kernel_y = cs$kernel_y, drop = step,
               n_features = n)
      } else {
        fohsic(cs$x, cs$y, kernel = kernel, kernel_y = cs$kernel_y, add = step,
               n_features = n)
      }
      info <- sprintf("%s, %s, step %g, n_features %s", cs$info, method, step,
                      if (is.null(n)) "NULL" else n)
      f <- fit$features
      expect_identical(f$feature, colnames(cs$x), label = info)
      ranked <- !is.na(f$rank)
      # BAHSIC ranks all (the survivors first); FOHSIC ranks the n it adds
      k <- if (method == "fohsic" && !is.null(n)) n else d
      expect_identical(sort(f$rank[ranked]), seq_len(k), label = info)
      expect_identical(is.na(f$iteration), !ranked, label = info)
      expect_identical(length(fit$ranking), k, label = info)
      expect_false(anyDuplicated(fit$ranking) > 0L, label = info)
      expect_true(all(is.finite(f$score[ranked])), label = info)
      expect_identical(length(selected(fit, n = k)), k, label = info)
    }
  }
})

# The candidate loops only start threads above a million pairs x candidates
# (BK_PAR_MIN_PAIRS in src/select.c), so the data are big enough for the
# parallel branch: m = 200 gives 19900 pairs, times 60 candidates.
test_that("the number of threads never changes a result", {
  set.seed(501)
  m <- 200
  d <- 60
  x <- matrix(rnorm(m * d), m, d)
  y <- factor(sample(rep_len(c("u", "v", "w"), m)))
  x[y == "v", 1:3] <- x[y == "v", 1:3] + 1
  z <- x[, 5] + x[, 6]^2 + rnorm(m, sd = 0.5)
  cases <- list(
    list(bahsic, list(x, y)),
    list(bahsic, list(x, z, kernel = kernel_laplace(), sigma = "optimize")),
    list(bahsic, list(x, y, kernel = kernel_inverse_distance(), estimator = "unbiased")),
    list(fohsic, list(x, z, n_features = 10)),
    list(fohsic, list(x, y, kernel = kernel_polynomial(), add = 0, n_features = 4))
  )
  for (cs in cases) {
    a <- do.call(cs[[1]], c(cs[[2]], threads = 1L))
    b <- do.call(cs[[1]], c(cs[[2]], threads = 2L))
    expect_identical(b$features, a$features)
    expect_identical(b$path, a$path)
  }
  for (k in list(kernel_gaussian(), kernel_laplace(), kernel_polynomial())) {
    expect_identical(hsic(x, z, kernel = k, threads = 2L)$estimate,
                     hsic(x, z, kernel = k, threads = 1L)$estimate)
    expect_identical(kernel_matrix(k, x, threads = 2L), kernel_matrix(k, x, threads = 1L))
  }
  yb <- droplevels(factor(y, levels = c("u", "v", "w"), labels = c("u", "v", "v")))
  for (method in c("hsic", "mmd", "kta")) {
    expect_identical(feature_scores(x, yb, method = method, threads = 2L),
                     feature_scores(x, yb, method = method, threads = 1L))
  }
})
