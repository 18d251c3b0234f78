test_that("both estimators equal their explicit matrix formulas (full label kernel)", {
  set.seed(11)
  x <- matrix(rnorm(40), 20, 2)
  y <- x[, 1]^2 + rnorm(20, sd = 0.3)
  K <- oracle_gauss(x, 0.4)
  L <- oracle_gauss(y, 1.3)
  kx <- kernel_gaussian(0.4)
  ky <- label_kernel_regression(kernel_gaussian(1.3))
  h1 <- hsic(x, y, kernel = kx, kernel_y = ky)
  h0 <- hsic(x, y, kernel = kx, kernel_y = ky, estimator = "biased")
  expect_equal(h1$estimate, oracle_hsic1(K, L), tolerance = 1e-12)
  expect_equal(h0$estimate, oracle_hsic0(K, L), tolerance = 1e-12)
  expect_equal(h0$hsic1, h1$estimate)
})

test_that("the low-rank label factor gives the same numbers as its expanded matrix", {
  d <- toy_binary(m = 25)
  for (lk in list(label_kernel_binary(), label_kernel_binary(FALSE),
                  label_kernel_pam(), label_kernel_multiclass("one_vs_rest"))) {
    L <- label_kernel_matrix(lk, d$y)
    a <- hsic(d$x, d$y, kernel_y = lk)
    b <- hsic(d$x, d$y, kernel_y = label_kernel_regression(kernel_precomputed(L)))
    expect_equal(a$hsic0, b$hsic0, tolerance = 1e-12)
    expect_equal(a$hsic1, b$hsic1, tolerance = 1e-12)
    expect_equal(a$se, b$se, tolerance = 1e-10)
  }
})

test_that("HSIC1 and its variance equal the explicit U-statistic (eq. 10-15)", {
  set.seed(5)
  for (m in c(5, 7)) {
    x <- matrix(rnorm(m * 2), m, 2)
    y <- rnorm(m) + x[, 1]
    K <- oracle_gauss(x, 0.5)
    L <- oracle_gauss(y, 0.7)
    u <- oracle_ustat(K, L)
    h <- hsic(x, y, kernel = kernel_gaussian(0.5),
              kernel_y = label_kernel_regression(kernel_gaussian(0.7)))
    expect_equal(h$estimate, u$hsic1, tolerance = 1e-12)
    expect_equal(h$se^2, u$variance, tolerance = 1e-10)
  }
  # and with a low-rank (binary) label kernel
  y <- factor(c(1, 1, 2, 2, 2, 1))
  x <- matrix(rnorm(12), 6, 2)
  L <- label_kernel_matrix(label_kernel_binary(), y)
  u <- oracle_ustat(oracle_gauss(x, 1), L)
  h <- hsic(x, y, kernel = kernel_gaussian(1))
  expect_equal(h$estimate, u$hsic1, tolerance = 1e-12)
  expect_equal(h$se^2, max(u$variance, 0), tolerance = 1e-10)
})

test_that("HSIC agrees with dHSIC", {
  skip_peer("dHSIC")
  set.seed(3)
  m <- 60
  x <- matrix(rnorm(m * 3), m, 3)
  y <- matrix(x[, 1] + rnorm(m), m, 1)
  h <- hsic(x, y[, 1], estimator = "biased")
  sx <- h$kernel$params$sigma
  sy <- h$kernel_y$params$kernel$params$sigma
  # same median heuristic: dHSIC's bandwidth b has exp(-d^2 / (2 b^2))
  d <- dHSIC::dhsic(x, y, kernel = "gaussian.fixed",
                    bandwidth = c(sqrt(1 / (2 * sx)), sqrt(1 / (2 * sy))))
  expect_equal(h$estimate * (m - 1)^2 / m^2, d$dHSIC, tolerance = 1e-10)
  expect_equal(sx, 1 / median(dist(x)^2))
})

test_that("HSIC is invariant to permuting the samples, >= 0 when biased, symmetric", {
  set.seed(8)
  x <- matrix(rnorm(60), 30, 2)
  z <- matrix(rnorm(60), 30, 2) + x
  perm <- sample(30)
  k <- kernel_gaussian(0.3)
  a <- hsic(x, z, kernel = k, kernel_y = label_kernel_regression(k))
  b <- hsic(x[perm, ], z[perm, ], kernel = k, kernel_y = label_kernel_regression(k))
  expect_equal(a$estimate, b$estimate, tolerance = 1e-12)
  expect_equal(a$se, b$se, tolerance = 1e-10)
  s <- hsic(z, x, kernel = k, kernel_y = label_kernel_regression(k))
  expect_equal(a$estimate, s$estimate, tolerance = 1e-12)
  for (seed in 1:5) {
    set.seed(seed)
    w <- matrix(rnorm(40), 20, 2)
    expect_gte(hsic(w, rnorm(20), estimator = "biased")$estimate, -1e-15)
  }
})

test_that("formula, data.frame and integer inputs reach the same estimate", {
  set.seed(4)
  df <- data.frame(a = rnorm(20), b = rnorm(20))
  df$y <- df$a + rnorm(20, sd = 0.2)
  m1 <- hsic(y ~ a + b, data = df)
  m2 <- hsic(df[, c("a", "b")], df$y)
  m3 <- hsic(as.matrix(df[, 1:2]), df$y)
  expect_equal(m1$estimate, m2$estimate)
  expect_equal(m2$estimate, m3$estimate)
  xi <- matrix(sample(1:5, 40, TRUE), 20, 2)
  expect_equal(hsic(xi, df$y)$estimate, hsic(xi * 1.0, df$y)$estimate)
  expect_s3_class(m1, "bahsic_hsic")
  expect_output(print(m1), "unbiased estimator")
})

test_that("hsic() on Bioconductor containers turns genes x samples around", {
  skip_peer("Biobase")
  d <- toy_binary(m = 12, d = 5)
  rownames(d$x) <- paste0("s", 1:12)
  eset <- Biobase::ExpressionSet(t(d$x), phenoData = Biobase::AnnotatedDataFrame(
    data.frame(cls = d$y, row.names = paste0("s", 1:12))))
  colnames(d$x) <- rownames(Biobase::exprs(eset))
  expect_equal(hsic(eset, "cls")$estimate, hsic(unname(d$x), d$y)$estimate)
  expect_equal(hsic(eset, d$y)$estimate, hsic(d$x, d$y)$estimate)
  expect_error(hsic(eset, "nope"), "not a column of the sample data")
  skip_peer("SummarizedExperiment")
  se <- SummarizedExperiment::SummarizedExperiment(
    assays = list(counts = t(d$x)), colData = data.frame(cls = d$y))
  expect_equal(hsic(se, "cls")$estimate, hsic(d$x, d$y)$estimate)
})

test_that("the gamma test matches Gretton et al.'s formulas written out", {
  set.seed(21)
  m <- 40
  x <- matrix(rnorm(m * 2), m, 2)
  y <- x[, 1] + rnorm(m)
  k <- kernel_gaussian(0.5)
  ky <- label_kernel_regression(kernel_gaussian(0.8))
  tst <- hsic_test(x, y, kernel = k, kernel_y = ky)
  K <- oracle_gauss(x, 0.5)
  L <- oracle_gauss(y, 0.8)
  H <- diag(m) - 1 / m
  Kc <- H %*% K %*% H
  Lc <- H %*% L %*% H
  stat <- sum(Kc * Lc) / m
  v <- (Kc * Lc / 6)^2
  v <- (sum(v) - sum(diag(v))) / m / (m - 1)
  v <- v * 72 * (m - 4) * (m - 5) / m / (m - 1) / (m - 2) / (m - 3)
  Kt <- K - diag(diag(K))
  Lt <- L - diag(diag(L))
  mux <- sum(Kt) / m / (m - 1)
  muy <- sum(Lt) / m / (m - 1)
  mh <- (1 + mux * muy - mux - muy) / m
  al <- mh^2 / v
  bet <- v * m / mh
  expect_equal(unname(tst$statistic), stat, tolerance = 1e-10)
  expect_equal(tst$p.value, pgamma(stat, shape = al, scale = bet, lower.tail = FALSE),
               tolerance = 1e-8)
  expect_s3_class(tst, "htest")
  expect_lt(tst$p.value, 0.01)
  # the low-rank label path gives the same statistic as the expanded kernel
  cls <- factor(y > 0)
  a <- hsic_test(x, cls, kernel = k)
  b <- hsic_test(x, cls, kernel = k, kernel_y = label_kernel_regression(
    kernel_precomputed(label_kernel_matrix(label_kernel_binary(), cls))))
  expect_equal(a$p.value, b$p.value, tolerance = 1e-10)
  expect_error(hsic_test(x[1:5, ], y[1:5]), "at least 6 samples")
  skip_peer("dHSIC")
  bw <- c(sqrt(1 / (2 * 0.5)), sqrt(1 / (2 * 0.8)))
  d <- dHSIC::dhsic.test(x, matrix(y), method = "gamma", kernel = "gaussian.fixed",
                         bandwidth = bw)
  expect_equal(unname(tst$statistic), unname(d$statistic), tolerance = 1e-10)
})

test_that("the permutation test is reproducible and uses the permuted labels", {
  set.seed(2)
  m <- 25
  x <- matrix(rnorm(m * 2), m, 2)
  y <- factor(rep(c("u", "v"), length.out = m))
  set.seed(99)
  a <- hsic_test(x, y, method = "permutation", n_perm = 50)
  set.seed(99)
  b <- hsic_test(x, y, method = "permutation", n_perm = 50)
  expect_identical(a$p.value, b$p.value)
  # oracle: recompute each permuted statistic with hsic() on permuted labels
  set.seed(99)
  perms <- vapply(1:50, function(i) sample.int(m), integer(m))
  obs <- hsic(x, y, estimator = "biased")$estimate
  sig <- hsic(x, y, estimator = "biased")$kernel
  null <- apply(perms, 2, function(p) hsic(x, y[p], kernel = sig,
                                           estimator = "biased")$estimate)
  expect_equal(a$p.value, (1 + sum(null >= obs - 1e-12)) / 51)
  expect_equal(unname(a$statistic), obs)
  # strong dependence: the smallest attainable p-value
  z <- factor(x[, 1] > 0)
  set.seed(1)
  expect_equal(hsic_test(x, z, method = "permutation", n_perm = 99)$p.value, 0.01)
  set.seed(1)
  u <- hsic_test(x, z, method = "permutation", n_perm = 20, estimator = "unbiased")
  expect_named(u$statistic, "HSIC1")
})

test_that("weight_matrix() turns both estimators into one weighted sum of K", {
  d <- toy_binary(m = 15)
  for (lk in list(label_kernel_binary(), label_kernel_regression(kernel_gaussian(1)))) {
    y <- if (lk$type == "binary") d$y else d$x[, 2]
    lab <- bahsic:::label_gram(lk, y)
    K <- kernel_matrix(kernel_gaussian(0.2), d$x)
    L <- if (is.null(lab$Y)) lab$L else tcrossprod(lab$Y)
    expect_equal(sum(K * bahsic:::weight_matrix(lab, 15, "biased")), oracle_hsic0(K, L),
                 tolerance = 1e-12)
    expect_equal(sum(K * bahsic:::weight_matrix(lab, 15, "unbiased")), oracle_hsic1(K, L),
                 tolerance = 1e-12)
  }
})

test_that("the HSIC sums are exact for kernels of an extreme scale (powers of two)", {
  # a kernel times 2^900 or 2^-900: the C code brings it back to a scale of 1
  # by a power of two before the sums whose products over- or underflow, so
  # the estimates, standard error, gamma moments and permutation statistics
  # scale exactly; only the variance itself leaves the range of doubles
  set.seed(31)
  m <- 30
  x <- matrix(rnorm(m * 3), m, 3)
  K <- unclass(kernel_matrix(kernel_linear(), x))[, ]
  L <- unclass(kernel_matrix(kernel_gaussian(0.5), x[, 1, drop = FALSE] + rnorm(m)))[, ]
  Y <- cbind(rep(c(1, 0), m / 2), rep(c(0, 1), m / 2))
  perms <- vapply(1:20, function(i) sample.int(m), integer(m))
  for (lab in list(list(L = L, Y = NULL), list(L = NULL, Y = Y))) {
    st0 <- .Call(bahsic:::C_hsic_stats, K, bahsic:::label_arg(lab))
    g0 <- .Call(bahsic:::C_hsic_gamma, K, bahsic:::label_arg(lab))
    p0 <- .Call(bahsic:::C_hsic_perm, K, bahsic:::label_arg(lab), perms)
    expect_identical(st0[4L], sqrt(max(st0[3L], 0)))
    expect_identical(g0[4:5], c(g0[2L]^2 / g0[3L], g0[3L] / g0[2L]))
    for (k in c(900, -900)) {
      st <- .Call(bahsic:::C_hsic_stats, K * 2^k, bahsic:::label_arg(lab))
      expect_identical(st[c(1L, 2L, 4L)], st0[c(1L, 2L, 4L)] * 2^k)
      expect_identical(st[3L], if (k > 0) Inf else 0)
      g <- .Call(bahsic:::C_hsic_gamma, K * 2^k, bahsic:::label_arg(lab))
      expect_identical(g[c(1L, 2L, 5L)], g0[c(1L, 2L, 5L)] * 2^k)
      expect_identical(g[4L], g0[4L])
      expect_identical(.Call(bahsic:::C_hsic_perm, K * 2^k, bahsic:::label_arg(lab), perms), p0 * 2^k)
    }
  }
  # a linear label kernel on an outcome of an extreme scale: the factor side
  Yt <- Y * 2^-500
  g <- .Call(bahsic:::C_hsic_gamma, K, list(Y = Yt))
  g0 <- .Call(bahsic:::C_hsic_gamma, K, list(Y = Y))
  expect_identical(g[4L], g0[4L])
  expect_identical(g[c(1L, 5L)], g0[c(1L, 5L)] * 2^-1000)
})

test_that("hsic() and hsic_test() give no NaN with the linear and inverse-distance kernels at extreme scales", {
  set.seed(32)
  m <- 40
  x <- matrix(rnorm(m * 3), m, 3)
  y <- x[, 1]^2 + rnorm(m, sd = 0.3)
  lin <- kernel_linear()
  h0 <- hsic(x, y, kernel = lin)
  g0 <- hsic_test(x, y, kernel = lin)
  set.seed(1)
  q0 <- hsic_test(x, y, kernel = lin, method = "permutation", n_perm = 30)
  # about 1e140: the linear kernel near 1e280, exact for a power of two
  big <- x * 2^465
  h <- hsic(big, y, kernel = lin)
  expect_identical(c(h$estimate, h$se, h$hsic0, h$hsic1),
                   c(h0$estimate, h0$se, h0$hsic0, h0$hsic1) * 2^930)
  g <- hsic_test(big, y, kernel = lin)
  expect_identical(g$p.value, g0$p.value)
  expect_identical(g$statistic, g0$statistic * 2^930)
  expect_identical(g$parameter, g0$parameter * c(1, 2^930))
  set.seed(1)
  q <- hsic_test(big, y, kernel = lin, method = "permutation", n_perm = 30)
  expect_identical(q$p.value, q0$p.value)
  expect_identical(q$statistic, q0$statistic * 2^930)
  # about 1e-155: a kernel of subnormal numbers, finite and close
  tiny <- x * 1e-155
  h <- hsic(tiny, y, kernel = lin)
  expect_equal(c(h$estimate, h$se) * 1e155 * 1e155, c(h0$estimate, h0$se), tolerance = 1e-8)
  g <- hsic_test(tiny, y, kernel = lin)
  expect_equal(g$p.value, g0$p.value, tolerance = 1e-8)
  # the inverse-distance kernel: finite at both scales (at 1e-155 it is
  # constant, 1 / eps, to double precision: the gamma test says so)
  inv <- kernel_inverse_distance()
  for (s in c(1e-155, 1e140)) {
    h <- hsic(x * s, y, kernel = inv)
    expect_true(all(is.finite(c(h$estimate, h$se, h$hsic0, h$hsic1))))
    set.seed(1)
    q <- hsic_test(x * s, y, kernel = inv, method = "permutation", n_perm = 30)
    expect_true(is.finite(q$p.value))
  }
  expect_true(is.finite(hsic_test(x * 1e140, y, kernel = inv)$p.value))
  expect_warning(g <- hsic_test(x * 1e-155, y, kernel = inv), "A kernel is constant")
  expect_true(is.na(g$p.value) && !is.nan(g$p.value))
})

test_that("HSIC agrees with dHSIC at m = 1500, for equal widths and with dHSIC's median", {
  skip_on_cran()
  skip_peer("dHSIC")
  set.seed(31)
  m <- 1500
  x <- matrix(rnorm(m * 10), m, 10)
  y <- matrix(x[, 1] * x[, 2] + rnorm(m), m, 1)
  h <- hsic(x, y[, 1], estimator = "biased")
  sx <- h$kernel$params$sigma
  sy <- h$kernel_y$params$kernel$params$sigma
  # equal widths: dHSIC's bandwidth b has exp(-d^2 / (2 b^2))
  d <- dHSIC::dhsic(x, y, kernel = "gaussian.fixed",
                    bandwidth = c(sqrt(1 / (2 * sx)), sqrt(1 / (2 * sy))))
  expect_equal(h$estimate * (m - 1)^2 / m^2, d$dHSIC, tolerance = 1e-10)
  # dHSIC's median heuristic: the rows in an order drawn by sample(), the
  # first 1000 of them, the upper of the two middle squared distances
  set.seed(32)
  g <- dHSIC::dhsic(x, y, kernel = "gaussian")
  set.seed(32)
  rows <- sample(seq_len(m))[1:1000]
  d2 <- sort(as.vector(stats::dist(x[rows, ]))^2)
  expect_equal(g$bandwidth[1], sqrt(0.5 * d2[length(d2) / 2 + 1]), tolerance = 1e-12)
  # a random sample of the rows against evenly spaced ones: close, not equal
  gx <- 1 / (2 * g$bandwidth[1]^2)
  expect_equal(sx, gx, tolerance = 0.02)
  expect_false(sx == gx)
  # with dHSIC's widths, its value
  gy <- 1 / (2 * g$bandwidth[2]^2)
  hg <- hsic(x, y[, 1], estimator = "biased", kernel = kernel_gaussian(gx),
             kernel_y = label_kernel_regression(kernel_gaussian(gy)))
  expect_equal(hg$estimate * (m - 1)^2 / m^2, g$dHSIC, tolerance = 1e-10)
})

test_that("hsic_test() takes a whole number of permutations, as feature_scores() does", {
  set.seed(1)
  x <- matrix(rnorm(40), 20)
  y <- rnorm(20)
  for (n in list(2.5, 0, -1, NA, "10", c(10, 20))) {
    expect_error(hsic_test(x, y, method = "permutation", n_perm = n),
                 "'n_perm' must be a whole number of at least 1", info = format(n))
    expect_error(feature_scores(x, y, method = "hsic", n_perm = n),
                 "'n_perm' must be a whole number of at least 1", info = format(n))
  }
})

test_that("hsic() and the gamma test from panels of K give K's statistics to the last bit, on 1 and 2 threads", {
  # C_hsic_stats_x / C_hsic_gamma_x make K's columns a panel at a time
  # (at m = 1100 three panels, with the width of the median on 1000 samples)
  # and must equal C_hsic_stats / C_hsic_gamma of the whole K, bit for bit;
  # hsic() with a numeric outcome makes L's columns so too (its width the
  # median over all pairs, from the sorted outcome; the rounded outcome has
  # ties)
  set.seed(41)
  # under valgrind the first two: K and L in several panels, and one panel
  cases <- test_cases(list(
    list(m = 1050L, d = 2L, kernel = kernel_gaussian(), y = function(x) round(x[, 1] + rnorm(nrow(x)), 1)),
    list(m = 61L, d = 5L, kernel = kernel_gaussian(sigma = 0.3),
         y = function(x) x[, 1]^2 + rnorm(nrow(x))),
    list(m = 1100L, d = 3L, kernel = kernel_gaussian(), y = function(x) factor(x[, 1] > 0)),
    list(m = 1100L, d = 2L, kernel = kernel_laplace(),
         y = function(x) factor(sample(c("a", "b", "c"), nrow(x), TRUE))),
    list(m = 45L, d = 4L, kernel = kernel_linear(), y = function(x) x[, 2] + rnorm(nrow(x))),
    list(m = 33L, d = 3L, kernel = kernel_polynomial(degree = 2),
         y = function(x) factor(x[, 1] > 0)),
    # odd m, panels of an odd width (251 columns on 1 thread, one on 2): the
    # symmetric panels' lanes of the column sums cross panels of both parities
    list(m = 1005L, d = 3L, kernel = kernel_gaussian(),
         y = function(x) x[, 1] * x[, 2] + rnorm(nrow(x))),
    # m <= 1000: hsic()'s width the median over all pairs, from
    # C_median_pairwise where gram() takes it from K's distances: the same
    # width to the last bit, with several features and with one (its own
    # path, sorted gaps), on data with ties
    list(m = 200L, d = 4L, kernel = kernel_gaussian(), y = function(x) x[, 1] * x[, 2] + rnorm(nrow(x))),
    list(m = 150L, d = 1L, kernel = kernel_laplace(), x = function(x) round(x, 1),
         y = function(x) factor(x[, 1] + rnorm(nrow(x)) > 0))))
  for (cs in cases) {
    x <- matrix(rnorm(cs$m * cs$d), cs$m, cs$d)
    if (!is.null(cs$x)) x <- cs$x(x)
    y <- cs$y(x)
    pr <- bahsic:::hsic_prepare(x, y, cs$kernel, list(
      kernel_y = NULL, na_action = "fail", assay = 1L, threads = 1L, min_m = 6L,
      min_what = "x", outcome_what = "hsic()"))
    lab <- bahsic:::label_arg(pr$label)
    kern <- attr(pr$K, "kernel")
    st <- .Call(bahsic:::C_hsic_stats, pr$K, lab)
    g <- .Call(bahsic:::C_hsic_gamma, pr$K, lab)
    for (threads in 1:2) {
      opts <- bahsic:::gram_opts(kern, threads)
      expect_identical(.Call(bahsic:::C_hsic_stats_x, x, opts, lab, NULL, NULL), st)
      expect_identical(.Call(bahsic:::C_hsic_gamma_x, x, opts, lab, NULL, NULL), g)
    }
    h1 <- hsic(x, y, kernel = cs$kernel, threads = 1L)
    h2 <- hsic(x, y, kernel = cs$kernel, threads = 2L)
    expect_identical(c(h1$hsic0, h1$hsic1, h1$se), unname(st[c(1L, 2L, 4L)]))
    expect_identical(h1$kernel, kern)
    expect_identical(h1$kernel_y, pr$label$kernel)
    expect_identical(h2[names(h2) != "call"], h1[names(h1) != "call"])
    t1 <- hsic_test(x, y, kernel = cs$kernel, threads = 1L)
    t2 <- hsic_test(x, y, kernel = cs$kernel, threads = 2L)
    expect_identical(unname(c(t1$statistic, t1$parameter)), unname(g[c(1L, 4L, 5L)]))
    expect_identical(t2, t1)
  }
})

test_that("hsic() with class labels from panels of K equals the matrix formulas, 2 and 3 classes", {
  # m = 1037 > 1000 with a given width: K made a panel at a time, each above
  # its last column (259 columns a panel on one thread, the last of one
  # column; a single panel wider than m on two); the label a factor Y with
  # L = Y Y', written out here from eq. 17-18 of Song et al. (2012)
  set.seed(44)
  m <- 1037L
  x <- matrix(rnorm(m * 3), m, 3)
  K <- oracle_gauss(x, 0.4)
  H <- diag(m) - 1 / m
  y2 <- factor(x[, 1] + rnorm(m) > 0)
  y3 <- factor(sample(c("a", "b", "c"), m, TRUE))
  # binary, balanced: +-1 / the class size, the second level positive
  v <- ifelse(y2 == levels(y2)[2], 1, -1) / as.vector(table(y2)[y2])
  # multiclass, balanced: 1 / sqrt(class size) in the sample's class
  Y3 <- outer(as.character(y3), levels(y3), "==") / rep(sqrt(as.vector(table(y3))), each = m)
  cases <- list(list(y = y2, Y = matrix(v, m, 1L), ky = label_kernel_binary()),
                list(y = y3, Y = Y3, ky = label_kernel_multiclass()))
  Kt <- K
  diag(Kt) <- 0
  for (cs in cases) {
    L <- tcrossprod(cs$Y)
    Lt <- L
    diag(Lt) <- 0
    # eq. 4: tr(K H L H) / (m - 1)^2 with L = Y Y', as tr((HY)' K (HY))
    HY <- H %*% cs$Y
    hsic0 <- sum(HY * (K %*% HY)) / (m - 1)^2
    # eq. 5 (oracle_hsic1() with its traces of products as sums)
    hsic1 <- (sum(Kt * Lt) + sum(Kt) * sum(Lt) / ((m - 1) * (m - 2)) -
                2 / (m - 2) * sum(rowSums(Kt) * rowSums(Lt))) / (m * (m - 3))
    # the unbiased estimate of independent labels (~1e-7) is a difference of
    # terms some 1e4 times larger: its error is measured on their scale (the
    # oracle's BLAS may sum in another order, e.g. under valgrind)
    size <- sum(abs(Kt * Lt)) / (m * (m - 3))
    for (threads in 1:2) {
      h <- hsic(x, cs$y, kernel = kernel_gaussian(0.4), kernel_y = cs$ky, threads = threads)
      expect_equal(h$hsic0, hsic0, tolerance = 1e-10)
      expect_lt(abs(h$hsic1 - hsic1), 1e-10 * size)
    }
  }
})

test_that("the median heuristic on 1000 samples is the same on 1 and 2 threads", {
  set.seed(42)
  x <- matrix(rnorm(300 * 6), 300, 6)
  for (sq in c(TRUE, FALSE)) {
    expect_identical(.Call(bahsic:::C_median_pairwise, x, sq, 2L),
                     .Call(bahsic:::C_median_pairwise, x, sq, 1L))
  }
})

test_that("the median heuristic on work larger than the kept buffer is R's median", {
  # C_median_pairwise on 3,000 rows of two features: 4.5 million distances
  # and the 3,000 x 3,000 cross products, 108 MB, beyond the 64 MiB that
  # src/scratch_call.c keeps between calls: its work comes from R_alloc
  skip_if(under_valgrind(), "under valgrind: 4.5 million distances in R")
  set.seed(45)
  x <- matrix(rnorm(6000), 3000, 2)
  expect_identical(.Call(bahsic:::C_median_pairwise, x, TRUE, 1L), median(stats::dist(x)^2))
  expect_identical(.Call(bahsic:::C_median_pairwise, x, FALSE, 1L), median(stats::dist(x)))
  # the kept buffer neither grew past its cap nor stayed marked in use
  after <- .Call(bahsic:::C_scratch_info)
  expect_lte(after[1], 64 * 2^20)
  expect_identical(after[2], 0)
})
