# pair_scores(): the interaction and the pair's HSIC of every pair against a
# plain-R oracle, the gamma p-values on null data, the adjustments, and what
# the screen finds.

# The oracle: for standardised x (scale()), the Gaussian kernel of each
# feature alone at width sigma (kernlab's parametrisation), W = HLH/(m-1)^2,
# T_ij = sum W o Kc^i o Kc^j and HSIC0 of the product kernel, every pair.
pair_oracle <- function(x, L, sigma = 1 / 4, linear = FALSE) {
  m <- nrow(x)
  p <- ncol(x)
  H <- diag(m) - 1 / m
  W <- H %*% L %*% H / (m - 1)^2
  K <- lapply(seq_len(p), function(j) {
    if (linear) tcrossprod(x[, j]) else exp(-sigma * outer(x[, j], x[, j], "-")^2)
  })
  Kc <- lapply(K, function(k) H %*% k %*% H)
  ij <- which(upper.tri(diag(p)), arr.ind = TRUE)
  ij <- ij[order(ij[, 1L], ij[, 2L]), , drop = FALSE]
  data.frame(index1 = ij[, 1L], index2 = ij[, 2L],
             interaction = apply(ij, 1L, function(r) sum(W * Kc[[r[1]]] * Kc[[r[2]]])),
             hsic = apply(ij, 1L, function(r) sum(W * K[[r[1]]] * K[[r[2]]])))
}

# the result, as a plain data frame ordered by the pair
by_pair <- function(r) {
  d <- as.data.frame(unclass(r))[c("index1", "index2", "interaction", "hsic")]
  d <- d[order(d$index1, d$index2), ]
  rownames(d) <- NULL
  d
}

pair_toy <- function(m = 40, p = 8, seed = 1) {
  set.seed(seed)
  x <- matrix(rnorm(m * p), m, p, dimnames = list(NULL, paste0("g", seq_len(p))))
  y <- factor(ifelse(x[, 2] * x[, min(5L, p)] > 0, "a", "b"))
  list(x = x, y = y, m = m, p = p)
}

test_that("every pair's interaction and HSIC equal the plain-R oracle (Gaussian and linear)", {
  d <- pair_toy()
  n <- d$p * (d$p - 1) / 2
  L <- label_kernel_matrix(default_label_kernel(d$y), d$y)
  r <- pair_scores(d$x, d$y, top = n)
  expect_s3_class(r, "bahsic_pairs")
  expect_identical(nrow(r), as.integer(n))
  expect_equal(by_pair(r), pair_oracle(scale(d$x), L), tolerance = 1e-10)
  # sorted by the interaction, ranks 1..n, names from the columns
  expect_identical(r$rank, seq_len(n))
  expect_false(is.unsorted(rev(r$interaction)))
  expect_identical(r$feature1, colnames(d$x)[r$index1])
  expect_identical(r$feature2, colnames(d$x)[r$index2])
  rl <- pair_scores(d$x, d$y, kernel = kernel_linear(), top = n)
  expect_equal(by_pair(rl), pair_oracle(scale(d$x), L, linear = TRUE), tolerance = 1e-10)
  # a numeric outcome, another width
  yn <- d$x[, 1] * d$x[, 3] + rnorm(d$m, sd = 0.5)
  Ln <- label_kernel_matrix(default_label_kernel(yn), yn)
  rn <- pair_scores(d$x, yn, kernel = kernel_gaussian(sigma = 0.7), top = n)
  expect_equal(by_pair(rn), pair_oracle(scale(d$x), Ln, sigma = 0.7), tolerance = 1e-10)
})

test_that("the pair's HSIC is hsic() of the two features, and dHSIC's", {
  d <- pair_toy(m = 30, p = 5, seed = 3)
  xs <- scale(d$x)
  r <- pair_scores(d$x, d$y, top = 10)
  for (k in c(1L, 5L, 10L)) {
    h <- hsic(xs[, c(r$index1[k], r$index2[k])], d$y, kernel = kernel_gaussian(sigma = 1 / 4),
              estimator = "biased")
    expect_equal(r$hsic[k], h$estimate, tolerance = 1e-12)
  }
  skip_peer("dHSIC")
  # dHSIC: tr(KHLH) / m^2 with exp(-||x - x'||^2 / (2 bw^2)), bw = sqrt(2) for
  # sigma = 1/4; the label kernel 1(y_a = y_b), dHSIC's "discrete"
  L <- outer(as.integer(d$y), as.integer(d$y), "==") * 1
  r <- pair_scores(d$x, d$y, kernel_y = label_kernel_precomputed(L), top = 10)
  for (k in c(1L, 10L)) {
    dh <- dHSIC::dhsic(X = xs[, c(r$index1[k], r$index2[k])], Y = as.numeric(d$y),
                       kernel = c("gaussian.fixed", "discrete"), bandwidth = c(sqrt(2), 1))
    expect_equal(r$hsic[k], dh$dHSIC * d$m^2 / (d$m - 1)^2, tolerance = 1e-10)
  }
})

test_that("the p-values are the shifted gamma fits of the permutation moments and skewness", {
  d <- pair_toy(m = 30, p = 4, seed = 5)
  xs <- scale(d$x)
  r <- pair_scores(d$x, d$y, top = 6)
  L <- label_kernel_matrix(default_label_kernel(d$y), d$y)
  m <- d$m
  H <- diag(m) - 1 / m
  B <- H %*% L %*% H
  tr <- function(A) sum(diag(A))
  # the exact permutation mean and variance of T = tr(A B), A, B centred
  # (Kazi-Aoual et al. 1995); the skewness of sum_kl lambda_k mu_l chi^2_1;
  # the gamma shifted to those three moments, or the plain gamma with the
  # first two when its tail is the heavier
  perm_fit <- function(K) {
    A <- H %*% K %*% H
    u <- function(A) (m - 1) * sum(A * A) - tr(A)^2
    w <- function(A) m * (m + 1) * sum(diag(A)^2) - (m - 1) * (tr(A)^2 + 2 * sum(A * A))
    mu <- tr(A) * tr(B) / (m - 1)
    v <- 2 * u(A) * u(B) / ((m + 1) * (m - 1)^2 * (m - 2)) +
      w(A) * w(B) / ((m + 1) * m * (m - 1) * (m - 2) * (m - 3))
    skew <- 8 * tr(A %*% A %*% A) * tr(B %*% B %*% B) / (2 * tr(A %*% A) * tr(B %*% B))^1.5
    k <- min(mu^2 / v, 4 / skew^2)
    b <- sqrt(v / k)
    stats::pgamma((sum(A * B) - (mu - k * b)) / b, shape = k, lower.tail = FALSE)
  }
  for (k in 1:6) {
    Ki <- exp(-outer(xs[, r$index1[k]], xs[, r$index1[k]], "-")^2 / 4)
    Kj <- exp(-outer(xs[, r$index2[k]], xs[, r$index2[k]], "-")^2 / 4)
    expect_equal(r$interaction_p[k], perm_fit((H %*% Ki %*% H) * (H %*% Kj %*% H)),
                 tolerance = 1e-8)
    expect_equal(r$p_value[k], perm_fit(Ki * Kj), tolerance = 1e-8)
  }
})

test_that("BH equals p.adjust() over all pairs when all are candidates, and is conservative", {
  d <- pair_toy(m = 40, p = 12, seed = 2)
  n <- d$p * (d$p - 1) / 2
  r <- pair_scores(d$x, d$y, top = n)
  expect_equal(r$interaction_adj, stats::p.adjust(r$interaction_p, "BH"))
  expect_equal(r$adj_p_value, stats::p.adjust(r$p_value, "BH"))
  # from 20 candidates: never below the adjustment over all pairs
  r20 <- pair_scores(d$x, d$y, top = 5, candidates = 20)
  expect_identical(attr(r20, "n_candidates"), 20L)
  full <- r[match(paste(r20$index1, r20$index2), paste(r$index1, r$index2)), ]
  expect_equal(r20$interaction, full$interaction)
  expect_true(all(r20$interaction_adj >= full$interaction_adj - 1e-15))
  expect_true(all(r20$adj_p_value >= full$adj_p_value - 1e-15))
  rn <- pair_scores(d$x, d$y, top = n, adjust = "none")
  expect_identical(rn$interaction_adj, rn$interaction_p)
})

# Null data, 10 data sets of m = 60 and 30 genes (4,350 pairs; the pairs of
# one data set share genes, so their p-values are dependent: pooling data
# sets narrows the spread of the statistics below). A statistic below the
# lower end of its shifted gamma has p-value 1 (about 9% of the
# interaction's): the interaction's p-values are checked below 0.5, where
# they must be uniform. Measured over 60 seeds (this block with
# set.seed(1..60)), mean +- sd (max): Kolmogorov-Smirnov distance of the
# interaction's p-values below 0.5 from the uniform 0.024 +- 0.0064 (0.040);
# fractions below 0.05 and 0.01 0.048 +- 0.0034 and 0.0095 +- 0.0014; at 1
# 0.090 +- 0.005; the pair's test: distance 0.045 +- 0.019 (0.108), below
# 0.05 0.048 +- 0.013. Each bound below is more than 5 standard deviations
# from the mean, so a chance failure at another seed has probability below
# 1e-4.
test_that("the raw p-values are uniform on null data", {
  skip_statistical_under_checkers("null p-values of 4,350 pairs")
  set.seed(20)
  p_int <- p_pair <- numeric(0)
  for (k in 1:10) {
    x <- matrix(rnorm(60 * 30), 60, 30)
    y <- factor(rep(c("a", "b"), each = 30))
    r <- pair_scores(x, y, top = 435, threads = 1)
    p_int <- c(p_int, r$interaction_p)
    p_pair <- c(p_pair, r$p_value)
  }
  ks <- function(p) unname(suppressWarnings(stats::ks.test(p, "punif"))$statistic)
  expect_lt(ks(p_int[p_int < 0.5] / 0.5), 0.06)
  expect_lt(abs(mean(p_int < 0.05) - 0.05), 0.02)
  expect_lt(abs(mean(p_int < 0.01) - 0.01), 0.008)
  expect_lt(mean(p_int == 1), 0.12)
  expect_lt(ks(p_pair), 0.15)
  expect_lt(abs(mean(p_pair < 0.05) - 0.05), 0.07)
})

test_that("an XOR pair among noise genes ranks first; a strong single gene's pairs do not", {
  set.seed(4)
  m <- 100
  x <- matrix(rnorm(m * 60), m, 60, dimnames = list(NULL, paste0("g", 1:60)))
  y <- factor(ifelse(x[, 17] * x[, 42] > 0, "a", "b"))
  r <- pair_scores(x, y, top = 5, candidates = 100)
  expect_identical(c(r$feature1[1], r$feature2[1]), c("g17", "g42"))
  expect_lt(r$interaction_adj[1], 1e-6)
  expect_gt(r$interaction_adj[2], 0.05)
  # a gene that is strong alone: every pair with it has a small p-value for
  # the pair's test, but not for the interaction (measured over 30 seeds at
  # m = 60, 30 genes: of its 29 pairs' interaction p-values 0.3% were below
  # 0.05, mean 0.66: conservative there, not uniform)
  set.seed(5)
  y2 <- factor(rep(c("a", "b"), each = 30))
  x2 <- matrix(rnorm(60 * 30), 60, 30)
  x2[y2 == "b", 1] <- x2[y2 == "b", 1] + 2
  r2 <- pair_scores(x2, y2, top = 435)
  with1 <- r2$index1 == 1L | r2$index2 == 1L
  expect_true(all(r2$p_value[with1] < 1e-4))
  expect_true(all(r2$interaction_adj[with1] > 0.5))
  expect_lt(mean(r2$interaction_p[with1] < 0.05), 0.1)
})

test_that("maxT: the largest interaction of all pairs under permuted labels, as a plain-R oracle", {
  d <- pair_toy(m = 40, p = 10, seed = 6)
  L <- label_kernel_matrix(default_label_kernel(d$y), d$y)
  set.seed(1)
  r <- pair_scores(d$x, d$y, top = 10, candidates = 30, adjust = "maxT", n_perm = 50)
  set.seed(1)
  r2 <- pair_scores(d$x, d$y, top = 10, candidates = 30, adjust = "maxT", n_perm = 50,
                    threads = 2)
  expect_identical(as.data.frame(unclass(r)), as.data.frame(unclass(r2)))
  expect_identical(attr(r, "n_perm"), 50L)
  # the oracle: the same labellings (the observed one first, counting for
  # every pair), the largest exact interaction of all 45 pairs under each
  set.seed(1)
  top <- c(Inf, vapply(2:50, function(b) {
    perm <- sample.int(d$m)
    max(pair_oracle(scale(d$x), L[perm, perm])$interaction)
  }, numeric(1)))
  want <- vapply(r$interaction, function(t) mean(top >= t * (1 - 1e-4)), numeric(1))
  expect_equal(r$interaction_adj, want)
  # the planted pair (2, 5) first, at the smallest value; a null pair not
  expect_identical(c(r$index1[1], r$index2[1]), c(2L, 5L))
  expect_identical(r$interaction_adj[1], 1 / 50)
  expect_gt(r$interaction_adj[2], 0.05)
  # the pair's test by BH, as without maxT
  set.seed(1)
  rb <- pair_scores(d$x, d$y, top = 10, candidates = 30)
  expect_identical(r$adj_p_value, rb$adj_p_value)
  expect_error(pair_scores(d$x, d$y, n_perm = 10), "'n_perm' is not used with adjust = \"BH\"")
})

test_that("threads, inputs and the formula give the same result", {
  d <- pair_toy(m = 40, p = 30, seed = 7)
  r1 <- pair_scores(d$x, d$y, top = 20, candidates = 100, threads = 1)
  r2 <- pair_scores(d$x, d$y, top = 20, candidates = 100, threads = 2)
  expect_identical(as.data.frame(unclass(r1)), as.data.frame(unclass(r2)))
  df <- data.frame(cls = d$y, d$x)
  rf <- pair_scores(cls ~ ., data = df, top = 20, candidates = 100)
  expect_identical(as.data.frame(unclass(rf)), as.data.frame(unclass(r1)))
  rd <- pair_scores(as.data.frame(d$x), d$y, top = 20, candidates = 100)
  expect_identical(as.data.frame(unclass(rd)), as.data.frame(unclass(r1)))
})

test_that("print() and plot() show the pairs", {
  d <- pair_toy()
  r <- pair_scores(d$x, d$y, top = 12)
  expect_output(print(r), "Interacting pairs: 12 of 28 pairs of 8 features")
  expect_output(print(r), "\\.\\.\\. 2 more pairs")
  # the data kept for plot(): the reported pairs' features as given
  dat <- attr(r, "data")
  expect_identical(dat$x[, "g2"], d$x[, "g2"])
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_identical(plot(r), r)
  expect_identical(plot(r, which = 3, main = "third"), r)
  yn <- d$x[, 1] * d$x[, 3] + rnorm(d$m, sd = 0.5)
  expect_silent(plot(pair_scores(d$x, yn, top = 3)))
  expect_error(plot(r, which = 13), "'which' = 13, but the result has 12 pairs")
  expect_error(plot(r, colour = "red"), "colour")
})

test_that("bad arguments are errors that name them", {
  d <- pair_toy(m = 20, p = 4)
  expect_error(pair_scores(d$x, d$y, top = 7), "'top' = 7 is more than the 6 pairs of 4 features")
  expect_error(pair_scores(d$x, d$y, kernel = kernel_laplace()),
               "takes kernel_gaussian\\(\\) .* or kernel_linear\\(\\); not a laplace kernel")
  expect_error(pair_scores(d$x[, 1, drop = FALSE], d$y), "needs at least 2 features")
  expect_error(pair_scores(d$x[1:5, ], d$y[1:5]), "needs at least 6 samples; there are 5")
  x <- d$x
  x[, 3] <- 1
  expect_error(pair_scores(x, d$y), "1 feature of 'x' is constant \\(g3\\)")
  expect_error(pair_scores(d$x, d$y, adjust = "holm"), "'adjust' = \"holm\" is not one of")
  expect_error(pair_scores(d$x, d$y, topp = 3), "topp")
  # the screen's kernel vectors, 4 m (m + 1) / 2 bytes per feature: 2 MB here
  big <- pair_toy(m = 100, p = 100)
  old <- options(bahsic.max_memory = 1e6)
  on.exit(options(old), add = TRUE)
  expect_error(pair_scores(big$x, big$y, top = 3),
               "pairs of 100 features at 100 samples needs .*option bahsic.max_memory")
})
