# linear_scores() and its C core (src/scores.c): every statistic against a
# plain-R oracle, then against limma, genefilter and pamr where installed.

# Element-wise agreement relative to max(1, |expected|), NAs in the same
# places; equal values (Inf included) agree.
expect_close <- function(object, expected, tol = 1e-8) {
  object <- unname(as.vector(object))
  expected <- unname(as.vector(expected))
  expect_identical(is.na(object), is.na(expected))
  ok <- !is.na(expected) & object != expected
  err <- abs(object[ok] - expected[ok]) / pmax(1, abs(expected[ok]))
  expect_lt(max(c(0, err)), tol)
}

random_data <- function(m = 14, d = 6, n2 = 8, seed = 1) {
  set.seed(seed)
  x <- matrix(rnorm(m * d), m, d,
              dimnames = list(NULL, paste0("f", seq_len(d))))
  y <- factor(rep(c("lo", "hi"), c(m - n2, n2)), levels = c("lo", "hi"))
  x[y == "hi", 1] <- x[y == "hi", 1] + 1.5
  list(x = x, y = y)
}

# ---- C core --------------------------------------------------------------------

moments_r <- function(x, cls, k) {
  n <- tabulate(cls, k)
  mean <- ss <- matrix(0, k, ncol(x))
  for (j in seq_len(ncol(x))) {
    for (g in seq_len(k)) {
      v <- x[cls == g, j]
      mean[g, j] <- if (length(v)) mean(v) else NaN
      ss[g, j] <- sum((v - mean(v))^2)
    }
  }
  list(n = n, mean = mean, ss = ss)
}

# C_feature_moments(), its moments put back into the data's units
moments_c <- function(x, cls, k) {
  mom <- .Call(C_feature_moments, x, as.integer(cls), k)
  list(n = mom$n, mean = .Call(C_scale_pow2, mom$mean, mom$expo, 1L),
       ss = .Call(C_scale_pow2, mom$ss, mom$expo, 2L))
}

test_that("C_feature_moments matches plain R", {
  set.seed(3)
  x <- matrix(rnorm(40 * 7, mean = 5), 40, 7)
  cls <- sample(rep(1:3, c(10, 13, 17)))
  got <- moments_c(x, cls, 3L)
  want <- moments_r(x, cls, 3L)
  expect_named(got, c("n", "mean", "ss"))
  expect_identical(got$n, want$n)
  expect_equal(got$mean, want$mean, tolerance = 1e-13)
  expect_equal(got$ss, want$ss, tolerance = 1e-13)
})

# The mean of each feature over all samples (limma's AveExpr, the `mean`
# column), which C_feature_moments() gives from the class means: the numbers
# of this R, which it replaces, at every scale, with zero and empty classes.
test_that("C_feature_moments' average is the class means weighted by their sizes", {
  average_r <- function(mom) {
    pooled <- colSums(mom$mean * mom$n) / sum(mom$n)
    .Call(C_scale_pow2, pooled, mom$expo, 1L)
  }
  set.seed(31)
  for (k in 1:4) {
    for (scale in c(1, 1e-300, 1e-170, 3e170, 1e300, 2^-1070)) {
      x <- matrix(rnorm(37 * 60, mean = 5), 37, 60) * scale
      x[, 3] <- 0
      x[, 4] <- x[1, 4]
      x[, 5] <- round(x[, 5])
      cls <- sample(seq_len(k), 37, TRUE)
      if (k > 2L) cls[cls == 2L] <- 1L
      mom <- .Call(C_feature_moments, x, cls, k)
      expect_identical(mom$average, average_r(mom))
    }
  }
})

test_that("C_feature_moments is exact on integer values and a single feature", {
  set.seed(4)
  x <- matrix(as.double(sample(0:2, 30 * 3, TRUE)), 30, 3)
  cls <- rep(1:2, 15)
  got <- moments_c(x, cls, 2L)
  want <- moments_r(x, cls, 2L)
  expect_identical(got$n, c(15L, 15L))
  expect_equal(got$mean, want$mean, tolerance = 1e-14)
  expect_equal(got$ss, want$ss, tolerance = 1e-14)

  one <- x[, 2, drop = FALSE]
  got1 <- moments_c(one, cls, 2L)
  expect_identical(dim(got1$mean), c(2L, 1L))
  expect_equal(got1$mean[, 1], got$mean[, 2])
  expect_equal(got1$ss[, 1], got$ss[, 2])
})

test_that("C_feature_moments: constant classes are exact, empty classes NaN", {
  # 0.1 does not survive summing and dividing by 3; the shift makes it exact
  x <- cbind(rep(0.1, 6), c(0.1, 0.1, 0.1, 0.7, 0.7, 0.7), 1:6)
  cls <- rep(c(1L, 3L), each = 3)
  got <- moments_c(x, cls, 3L)
  expect_identical(got$n, c(3L, 0L, 3L))
  expect_identical(got$mean[c(1, 3), 1:2], matrix(c(0.1, 0.1, 0.1, 0.7), 2))
  expect_identical(got$ss[, 1:2], matrix(0, 3, 2))
  expect_true(all(is.nan(got$mean[2, ])))
  expect_identical(got$ss[, 3], c(2, 0, 2))

  zero <- moments_c(matrix(0, 4, 0), c(1L, 2L, 2L, 2L), 2L)
  expect_identical(zero$n, c(1L, 3L))
  expect_identical(dim(zero$ss), c(2L, 0L))
})

test_that("C_feature_moments rejects bad input", {
  x <- matrix(rnorm(6), 3)
  expect_error(moments_c(x, c(1L, 2L, 3L), 2L), "1..2")
  expect_error(moments_c(x, c(1L, 2L), 2L), "one class per row")
  expect_error(moments_c(x, c(1L, NA, 2L), 2L), "without NA")
  expect_error(moments_c(matrix(1:6, 3), 1:3, 3L), "double")
  expect_error(moments_c(x, 1:3, 0L), "positive")
})

test_that("C_feature_cor matches cor(), with NaN for constant columns", {
  set.seed(5)
  x <- matrix(rnorm(25 * 4), 25, 4)
  x[, 2] <- round(x[, 2] * 3)
  y <- rnorm(25)
  expect_equal(.Call(C_feature_cor, x, y)$score, drop(cor(x, y)), tolerance = 1e-13)
  expect_equal(.Call(C_feature_cor, x[, 3, drop = FALSE], y)$score, cor(x[, 3], y),
               tolerance = 1e-13)
  x[, 4] <- 0.1
  got <- .Call(C_feature_cor, x, y)$score
  expect_true(is.nan(got[4]))
  expect_true(all(is.finite(got[1:3])))
  expect_true(all(is.nan(.Call(C_feature_cor, x, rep(2, 25))$score)))
  expect_identical(.Call(C_feature_cor, cbind(y, -y), y)$score, c(1, -1))
  expect_error(.Call(C_feature_cor, x, y[-1])$score, "one value per row")
})

# the binary exponent e of max |v| (max |v| in [2^(e-1), 2^e)), NA for zeros
pow2_exponent <- function(v) {
  mx <- max(abs(v))
  if (mx == 0) NA_integer_ else as.integer(floor(log2(mx)) + 1)
}

test_that("C_feature_moments: moments in units of 2^expo, constants, first non-finite", {
  set.seed(13)
  x <- matrix(rnorm(20 * 6, mean = 4), 20, 6)
  x[, 2] <- x[, 2] * 1e-200
  x[, 3] <- 0
  x[, 4] <- -2.5
  x[, 5] <- x[, 5] * 1e200
  x[, 6] <- 2^(0:19)
  cls <- rep(1:2, 10)
  got <- .Call(C_feature_moments, x, cls, 2L)
  expect_named(got, c("n", "mean", "ss", "expo", "constant", "bad", "average"))
  expo <- vapply(1:6, function(j) pow2_exponent(x[, j]), integer(1))
  expect_identical(got$expo, expo)
  expect_identical(got$constant, c(FALSE, FALSE, TRUE, TRUE, FALSE, FALSE))
  expect_identical(got$bad, 0)
  # the oracle on each column divided by its power of two
  unit <- 2^ifelse(is.na(expo), 0, expo)
  want <- moments_r(sweep(x, 2, unit, "/"), cls, 2L)
  expect_equal(got$mean, want$mean, tolerance = 1e-14)
  expect_equal(got$ss, want$ss, tolerance = 1e-14)
  # and in the data's units, where they are doubles
  plain <- moments_c(x, cls, 2L)
  expect_identical(plain$mean, .Call(C_scale_pow2, got$mean, got$expo, 1L))
  expect_identical(plain$ss, .Call(C_scale_pow2, got$ss, got$expo, 2L))
  expect_equal(plain$mean[, -5], moments_r(x, cls, 2L)$mean[, -5], tolerance = 1e-14)
  # in its own unit the spread of the 1e-200 feature is a double; in the
  # data's, 1e-400, it is not
  expect_true(all(got$ss[, 2] > 0))
  expect_identical(plain$ss[, 2], c(0, 0))

  x[3, 4] <- NaN
  x[7, 5] <- Inf
  bad <- .Call(C_feature_moments, x, cls, 2L)
  expect_identical(bad$bad, 3 * 20 + 3)
  expect_false(bad$constant[4])
  expect_identical(.Call(C_feature_moments, x[, 5:6], cls, 2L)$bad, 7)
})

test_that("C_scale_pow2 multiplies column j by 2^(power * shift[j]) exactly", {
  v <- matrix(c(0.75, -0.5, 3, 1, 0.5, NaN), 2, 3)
  shift <- c(-1100L, 700L, NA)
  expect_identical(.Call(C_scale_pow2, v, shift, 1L),
                   cbind(v[, 1] * 2^-550 * 2^-550, v[, 2] * 2^700, v[, 3]))
  expect_identical(.Call(C_scale_pow2, v, shift, 2L)[, 2], v[, 2] * 2^700 * 2^700)
  expect_identical(.Call(C_scale_pow2, c(1.5, 2), c(3L, -2L), 1L), c(12, 0.5))
  expect_error(.Call(C_scale_pow2, v, 1:2, 1L), "one value per column")
  expect_error(.Call(C_scale_pow2, v, shift, 3L), "1 or 2")
})

test_that("C_feature_cor: the correlation at any scale of x and y, constants, non-finite", {
  set.seed(14)
  x <- matrix(rnorm(25 * 3), 25, 3)
  x[, 3] <- 0.1
  y <- rnorm(25)
  want <- c(drop(cor(x[, 1:2], y)), NaN)
  got <- .Call(C_feature_cor, x, y)
  expect_equal(got$score, want, tolerance = 1e-13)
  expect_identical(got$constant, c(FALSE, FALSE, TRUE))
  expect_identical(got$bad, 0)
  for (s in c(1e-170, 1e170)) {
    expect_equal(.Call(C_feature_cor, x * s, y)$score, want, tolerance = 1e-13)
    expect_equal(.Call(C_feature_cor, x, y * s)$score, want, tolerance = 1e-13)
  }
  expect_identical(.Call(C_feature_cor, x * 2^-900, y * 2^900)$score, got$score)
  x[4, 2] <- NA
  expect_identical(.Call(C_feature_cor, x, y)$bad, 25 + 4)
})

# ---- statistics against plain R -------------------------------------------------

test_that("pc is the signed Pearson correlation; constant feature NA", {
  dat <- random_data()
  yy <- rnorm(nrow(dat$x))
  x <- dat$x
  x[, 3] <- 2
  got <- linear_scores(x, yy, "pc")
  expect_null(got$extra)
  expect_named(got$score, colnames(x))
  want <- vapply(seq_len(ncol(x)), function(j) {
    if (j == 3) NA_real_ else cor(x[, j], yy)
  }, numeric(1))
  expect_close(got$score, want, 1e-12)
})

test_that("lin is the mean difference, level 2 minus level 1", {
  dat <- random_data()
  got <- linear_scores(dat$x, dat$y, "lin")
  want <- colMeans(dat$x[dat$y == "hi", ]) - colMeans(dat$x[dat$y == "lo", ])
  expect_close(got$score, want, 1e-12)
  expect_gt(got$score[1], 0)
})

test_that("t is Welch's t of eq. (24), or the pooled t", {
  dat <- random_data()
  x <- dat$x
  hi <- dat$y == "hi"
  welch <- vapply(seq_len(ncol(x)), function(j) {
    unname(t.test(x[hi, j], x[!hi, j])$statistic)
  }, numeric(1))
  pooled <- vapply(seq_len(ncol(x)), function(j) {
    unname(t.test(x[hi, j], x[!hi, j], var.equal = TRUE)$statistic)
  }, numeric(1))
  expect_close(linear_scores(x, dat$y, "t")$score, welch, 1e-12)
  expect_close(linear_scores(x, dat$y, "t", var_equal = TRUE)$score, pooled,
               1e-12)
})

test_that("snr is the mean difference over the sum of the sds", {
  dat <- random_data(seed = 2)
  x <- dat$x
  hi <- dat$y == "hi"
  want <- (colMeans(x[hi, ]) - colMeans(x[!hi, ])) /
    (apply(x[hi, ], 2, sd) + apply(x[!hi, ], 2, sd))
  expect_close(linear_scores(x, dat$y, "snr")$score, want, 1e-12)
})

test_that("zero within-class variance: NA for a constant feature, +-Inf for a separating one", {
  dat <- random_data()
  x <- dat$x
  x[, 2] <- 0.3
  x[, 4] <- ifelse(dat$y == "hi", 0.7, 0.1)
  sign4 <- sign(mean(x[dat$y == levels(dat$y)[2], 4]) - mean(x[dat$y == levels(dat$y)[1], 4]))
  for (args in list(list("t"), list("t", TRUE), list("snr"))) {
    s <- do.call(linear_scores, c(list(x, dat$y), args))$score
    expect_true(is.na(s[2]))
    expect_identical(unname(s[4]), sign4 * Inf)
    expect_true(all(is.finite(s[-c(2, 4)])))
  }
  # one class constant: Welch is still defined
  x[dat$y == "lo", 5] <- 1
  expect_true(is.finite(linear_scores(x, dat$y, "t")$score[5]))
})

pam_r <- function(x, y) {
  m <- nrow(x)
  lev <- levels(y)
  cen <- sapply(lev, function(l) colMeans(x[y == l, , drop = FALSE]))
  ss <- rowSums(sapply(lev, function(l) {
    xl <- x[y == l, , drop = FALSE]
    colSums(sweep(xl, 2, colMeans(xl))^2)
  }))
  s <- sqrt(ss / (m - length(lev)))
  s <- s + median(s)
  mk <- sqrt(1 / as.vector(table(y)) - 1 / m)
  d <- sweep((cen - colMeans(x)) / s, 2, mk, "/")
  list(d = d, score = rowSums(d^2))
}

test_that("pam: standardised centroid differences, three classes", {
  set.seed(6)
  x <- matrix(rnorm(21 * 5), 21, 5)
  y <- factor(rep(c("a", "b", "c"), c(5, 7, 9)))
  x[y == "c", 2] <- x[y == "c", 2] - 2
  got <- linear_scores(x, y, "pam")
  want <- pam_r(x, y)
  expect_close(got$score, want$score, 1e-12)
  expect_named(got$extra, c("d_a", "d_b", "d_c"))
  expect_identical(nrow(got$extra), 5L)
  expect_close(as.matrix(got$extra), want$d, 1e-12)
})

test_that("pam score is tr(KHLH) with scaled features and map e_y / (m_y mk_y)", {
  # eq. (27-28) of Song et al. (2012)
  set.seed(7)
  x <- matrix(rnorm(15 * 4), 15, 4)
  y <- factor(rep(1:3, c(4, 5, 6)))
  m <- nrow(x)
  got <- linear_scores(x, y, "pam")
  ss <- rowSums(sapply(levels(y), function(l) {
    xl <- x[y == l, , drop = FALSE]
    colSums(sweep(xl, 2, colMeans(xl))^2)
  }))
  sd0 <- sqrt(ss / (m - 3))
  xs <- sweep(x, 2, sd0 + median(sd0), "/")
  n <- as.vector(table(y))
  psi <- diag(1 / (n * sqrt(1 / n - 1 / m)))[as.integer(y), ]
  h <- diag(m) - 1 / m
  hsic_tr <- sum(diag(xs %*% t(xs) %*% h %*% psi %*% t(psi) %*% h))
  expect_equal(sum(got$score), hsic_tr, tolerance = 1e-12)
})

test_that("linear_scores checks the labels", {
  dat <- random_data()
  three <- factor(rep(1:3, length.out = nrow(dat$x)))
  expect_error(linear_scores(dat$x, three, "t"), "exactly 2 levels")
  expect_error(linear_scores(dat$x, as.numeric(dat$y), "mt"), "factor")
  expect_error(linear_scores(dat$x, dat$y, "pc"), "numeric")
  expect_error(linear_scores(dat$x, dat$y[-1], "lin"), "one value per row")
  single <- factor(c("a", rep("b", nrow(dat$x) - 1)))
  expect_error(linear_scores(dat$x, single, "t"), "at least 2")
  expect_error(linear_scores(dat$x, single, "snr"), "at least 2")
  expect_true(all(is.finite(linear_scores(dat$x, single, "t",
                                          var_equal = TRUE)$score)))
  expect_error(linear_scores(dat$x, dat$y, "nope"))
})

# ---- peers -----------------------------------------------------------------------

limma_fit <- function(x, y) {
  # limma warns about zero variances; the oracle's warnings are not ours
  suppressWarnings(
    limma::eBayes(limma::lmFit(t(x), stats::model.matrix(~y)))
  )
}

expect_limma <- function(x, y) {
  fit <- limma_fit(x, y)
  mt <- linear_scores(x, y, "mt")
  lods <- linear_scores(x, y, "lods")
  expect_close(mt$score, fit$t[, 2])
  expect_close(lods$score, fit$lods[, 2])
  expect_close(lods$extra$t, fit$t[, 2])
  prior <- attr(mt, "prior")
  expect_close(prior[c("df_prior", "s2_prior")],
               c(fit$df.prior, fit$s2.prior))
  # B's prior variance: with lods (mt does not compute B)
  expect_close(attr(lods, "prior")["var_prior"], fit$var.prior[2])
  expect_identical(attr(lods, "prior")[c("df_prior", "s2_prior")], prior)
  invisible(fit)
}

test_that("mt and lods agree with limma on small random data", {
  skip_peer("limma")
  dat <- random_data(m = 12, d = 40, n2 = 5, seed = 8)
  expect_limma(dat$x, dat$y)
})

test_that("mt and lods agree with limma, 500 genes x 30 samples, constant gene", {
  skip_peer("limma")
  set.seed(9)
  sds <- sqrt(4 / rchisq(500, 4))
  x <- matrix(rnorm(30 * 500, sd = rep(sds, each = 30)), 30, 500)
  y <- factor(rep(c("ctl", "trt"), c(11, 19)))
  x[y == "trt", 1:25] <- x[y == "trt", 1:25] + 2
  fit <- expect_limma(x, y)
  expect_true(is.finite(fit$df.prior))

  x[, 7] <- 3.3
  x[, 8] <- ifelse(y == "trt", 1.1, 0.2)
  mt <- linear_scores(x, y, "mt")$score
  expect_true(all(is.finite(mt)))
  expect_equal(unname(mt[7]), 0)
  expect_limma(x, y)
})

test_that("mt and lods agree with limma when d0 is infinite", {
  skip_peer("limma")
  # homoscedastic genes: the log-variances vary less than chi-square predicts
  set.seed(1)
  x <- matrix(rnorm(10 * 200), 10, 200)
  y <- factor(rep(1:2, c(4, 6)))
  fit <- expect_limma(x, y)
  expect_identical(fit$df.prior, Inf)
  expect_identical(unname(attr(linear_scores(x, y, "mt"), "prior")[1]), Inf)
})

test_that("mt and lods agree with limma for a single feature", {
  skip_peer("limma")
  dat <- random_data(d = 1)
  expect_limma(dat$x, dat$y)
})

test_that("pooled t is minus genefilter::rowttests (level 1 - level 2)", {
  skip_peer("genefilter")
  dat <- random_data(m = 20, d = 30, n2 = 13, seed = 10)
  rt <- genefilter::rowttests(t(dat$x), dat$y)
  got <- linear_scores(dat$x, dat$y, "t", var_equal = TRUE)$score
  expect_close(got, -rt$statistic, 1e-10)
})

pamr_delta <- function(x, y) {
  utils::capture.output(
    fit <- pamr::pamr.train(list(x = t(x), y = y), threshold = 0)
  )
  delta <- (fit$centroids - fit$centroid.overall) / fit$sd
  unname(sweep(delta, 2, fit$se.scale, "/"))
}

test_that("pam agrees with pamr at threshold 0, two and three classes", {
  skip_peer("pamr")
  dat <- random_data(m = 20, d = 30, n2 = 12, seed = 11)
  got <- linear_scores(dat$x, dat$y, "pam")
  delta <- pamr_delta(dat$x, dat$y)
  expect_close(as.matrix(got$extra), delta, 1e-10)
  expect_close(got$score, rowSums(delta^2), 1e-10)

  set.seed(12)
  x <- matrix(rnorm(24 * 50), 24, 50)
  y <- factor(rep(c("B", "T", "X"), c(6, 8, 10)))
  x[y == "X", 1:5] <- x[y == "X", 1:5] + 1
  got <- linear_scores(x, y, "pam")
  delta <- pamr_delta(x, y)
  expect_named(got$extra, c("d_B", "d_T", "d_X"))
  expect_close(as.matrix(got$extra), delta, 1e-10)
  expect_close(got$score, rowSums(delta^2), 1e-10)
})

test_that("two_sided_t (in C, with R's pt()) is 2 * pt(-|t|, df); 0 for +-Inf, NA for NA", {
  set.seed(14)
  t <- c(stats::rt(500, 4) * 3, Inf, -Inf, NA, NaN, 0, -0, 1e-300, 1e300)
  oracle <- function(t, df) {
    p <- 2 * stats::pt(-abs(t), df)
    p[is.infinite(t)] <- 0
    p[is.na(t)] <- NA_real_
    p
  }
  for (df in list(126, 1.5, Inf, stats::runif(length(t), 1, 50))) {
    expect_identical(two_sided_t(t, df), oracle(t, df))
  }
  df <- rep(10, length(t))
  df[1:3] <- c(NA, NaN, 0)
  expect_identical(two_sided_t(t, df), suppressWarnings(oracle(t, df)))
  expect_identical(two_sided_t(numeric(0), 3), numeric(0))
})

test_that("score_t (t and p-values in C) gives the numbers of its R oracle score_t_r", {
  set.seed(16)
  for (m in c(4L, 5L, 9L, 40L, 201L)) {
    x <- matrix(stats::rnorm(m * 60), m)
    x[, 1] <- 3                                   # constant: NA
    x[, 2] <- rep(c(1, 2), length.out = m)        # spread only between classes
    x[, 3:8] <- x[, 3:8] * 10^rep(c(-200, -20, 0, 20, 200, 300), each = m)
    y <- factor(rep(c("a", "b"), c(2L, m - 2L)))
    if (m > 5L) y <- factor(sample(rep(c("a", "b"), c(m %/% 3L, m - m %/% 3L))))
    x[, 2] <- as.double(y)                        # no spread within the classes: +-Inf
    x[y == "a", 9] <- 1                           # no spread in class a only
    mom <- class_moments(x, y)
    for (eq in c(FALSE, TRUE)) {
      got <- score_t(mom, eq, "t")
      want <- score_t_r(mom, eq, "t")
      expect_identical(got, want)
      expect_true(is.na(got$score[1]) && is.na(got$p_value[1]))
      expect_identical(abs(got$score[2]), Inf)
      expect_identical(got$p_value[2], 0)
    }
  }
  # the checks of the R side stay: Welch needs two samples per class
  mom <- class_moments(matrix(stats::rnorm(20), 5), factor(c("a", "b", "b", "b", "b")))
  expect_error(score_t(mom, FALSE, "t"), "at least 2 sample")
  expect_silent(score_t(mom, TRUE, "t"))
  # a broken oracle would be seen: the Welch df of a changed class size differs
  mom <- class_moments(matrix(stats::rnorm(40), 10), factor(rep(c("a", "b"), c(3L, 7L))))
  bad <- mom
  bad$n <- bad$n + c(1L, 0L)
  expect_false(identical(score_t(bad, FALSE, "t")$p_value, score_t_r(mom, FALSE, "t")$p_value))
})

test_that("C_feature_cor: columns scored four at a time give the numbers of one at a time", {
  set.seed(15)
  x <- matrix(stats::rnorm(23 * 11), 23)
  x[, 3] <- 2
  x[, 6] <- x[, 6] * 1e-300
  x[, 7] <- x[, 7] * 1e300
  y <- stats::rnorm(23)
  all <- .Call(C_feature_cor, x, y)
  one <- lapply(seq_len(ncol(x)), function(j) .Call(C_feature_cor, x[, j, drop = FALSE], y))
  for (what in c("score", "constant", "average")) {
    expect_identical(all[[what]], unlist(lapply(one, `[[`, what)))
  }
  x[4, 10] <- NA
  x[2, 11] <- Inf
  expect_identical(.Call(C_feature_cor, x, y)$bad, 23 * 9 + 4)
})

test_that("C_mean_diff is the difference of the class means in the data's units", {
  set.seed(17)
  x <- matrix(stats::rnorm(30 * 40), 30) * 10^rep(c(-300, -5, 0, 7, 300), each = 30 * 8)
  x[, 40] <- 0                                  # a column of zeros: no exponent
  y <- factor(rep(c("a", "b"), c(12L, 18L)))
  mom <- class_moments(x, y)
  want <- .Call(C_scale_pow2, mean_diff(mom), mom$expo, 1L)
  expect_identical(.Call(C_mean_diff, mom$mean, mom$expo), want)
  expect_equal(want, colMeans(x[y == "b", ]) - colMeans(x[y == "a", ]), tolerance = 1e-12)
  expect_error(.Call(C_mean_diff, mom$ss[1, , drop = FALSE], mom$expo), "2 x d")
})

test_that("correlation_test (t and p-values in C) gives the numbers of its R oracle", {
  set.seed(18)
  r <- c(stats::runif(2000, -1, 1), -1, 1, 0, -0, NA, 1 - 1e-16, 1e-300, 0.9999999)
  for (m in c(3, 4, 10, 128, 1e6)) {
    expect_identical(correlation_test(r, m), correlation_test_r(r, m))
  }
  expect_identical(correlation_test(r, 2), correlation_test_r(r, 2))  # no df: NA p-values
  got <- correlation_test(c(1, -1), 10)
  expect_identical(got$statistic, c(Inf, -Inf))
  expect_identical(got$p_value, c(0, 0))
  expect_false(identical(correlation_test(r, 11)$p_value, correlation_test_r(r, 10)$p_value))
})

# limma's prior (fit_f_dist()) and the moderated t (moderated_t()) do their
# vector work in C with R's arithmetic: the numbers of the R code they
# replace, kept as fit_f_dist_r() and moderated_t_r(), to the last bit.
f_dist_sums_r <- function(s2, fallback, dg, lg) {
  v <- pmax(s2[is.finite(s2)], 0)
  med <- stats::median(v)
  w <- pmax(v, 1e-5 * (if (med == 0) fallback else med))
  e <- log(w) - dg + lg
  e_mean <- mean(e)
  c(length(v), med, e_mean, sum((e - e_mean)^2), mean(w))
}

test_that("C_f_dist_sums is R's pmax(), median(), log(), mean() and sum()", {
  set.seed(41)
  for (n in c(2L, 3L, 4L, 5L, 50L, 51L, 2000L, 2001L)) {
    for (scale in c(1, 1e-150, 1e150, 1e-300, 1e300)) {
      s2 <- stats::rchisq(n, 3) * scale
      s2[sample.int(n, n %/% 5)] <- 0
      if (n > 10L) s2[sample.int(n, 3L)] <- c(NA, Inf, NaN)
      if (n > 10L) s2[sample.int(n, 2L)] <- s2[1L]
      args <- list(s2, 0.25, digamma(3.5), log(3.5))
      got <- do.call(.Call, c(list(C_f_dist_sums), args))
      expect_identical(got, do.call(f_dist_sums_r, args))
    }
  }
  # a zero median takes the fallback; the overflowing sum of mean()
  s2 <- c(0, 0, 0, 2, 5)
  expect_identical(.Call(C_f_dist_sums, s2, 0.5, 1, 0),
                   f_dist_sums_r(s2, 0.5, 1, 0))
  big <- rep(c(1e308, 1.7e308), 10)
  expect_identical(.Call(C_f_dist_sums, big, 1, 0, 0), f_dist_sums_r(big, 1, 0, 0))
  # fewer than two finite values: q alone
  expect_identical(.Call(C_f_dist_sums, c(NA, 3), 1, 0, 0)[1L], 1)
  expect_error(.Call(C_f_dist_sums, 1:3, 1, 0, 0), "double vector")
  expect_error(.Call(C_f_dist_sums, c(1, 2), c(1, 2), 0, 0), "one double")
})

test_that("fit_f_dist() is fit_f_dist_r(): finite and infinite prior df", {
  set.seed(42)
  for (n in c(2L, 3L, 10L, 501L, 5000L)) {
    for (df in c(1, 4, 126)) {
      s2 <- stats::rchisq(n, df) / df * stats::rexp(1)
      s2[sample.int(n, n %/% 7)] <- 0
      expect_identical(fit_f_dist(s2, df), fit_f_dist_r(s2, df))
      expect_identical(fit_f_dist(s2, df, one = 2^-40), fit_f_dist_r(s2, df, one = 2^-40))
    }
  }
  # all equal: no spread of log s2, d0 = Inf and s0^2 their mean
  flat <- rep(0.3, 40)
  expect_identical(fit_f_dist(flat, 5), fit_f_dist_r(flat, 5))
  expect_identical(fit_f_dist(flat, 5)$df2, Inf)
  # one finite value, none; integer variances: R's own path
  expect_identical(fit_f_dist(c(NA, 2), 3), list(scale = 2, df2 = 0))
  expect_error(fit_f_dist(c(NA, Inf), 3), "No finite")
  expect_identical(fit_f_dist(c(1L, 4L, 2L, 9L), 3), fit_f_dist_r(c(1L, 4L, 2L, 9L), 3))
})

test_that("moderated_t() is moderated_t_r() at every scale, with constant features", {
  set.seed(43)
  for (scale in c(1, 1e-200, 1e200, 2^-1000, 1e300)) {
    for (m in c(4L, 9L, 40L)) {
      x <- matrix(stats::rnorm(m * 300, mean = 7), m, 300) * scale
      x[, 5] <- 0
      x[, 6] <- x[1, 6]
      x[, 7:9] <- x[, 7:9] * 1e-30
      y <- factor(rep(c("a", "b"), length.out = m))
      mom <- class_moments(x, y)
      mom$constant <- mom$average <- mom$bad <- NULL
      for (lods in c(FALSE, TRUE)) {
        expect_identical(suppressWarnings(moderated_t(mom, "mt", lods = lods)),
                         suppressWarnings(moderated_t_r(mom, "mt", lods = lods)))
      }
    }
  }
  # every feature constant: no prior to fit
  mom <- class_moments(matrix(1, 6, 3), factor(rep(1:2, 3)))
  expect_identical(moderated_t(mom, "mt", lods = FALSE), moderated_t_r(mom, "mt", lods = FALSE))
})
