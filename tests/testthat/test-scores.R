# feature_scores(): the special cases of section 6 of Song et al. (2012)
# as HSIC with the kernel and preprocessing the paper names.

hsic0_scaled <- function(x, y, kernel, kernel_y) {
  m <- NROW(x)
  hsic(x, y, kernel = kernel, kernel_y = kernel_y, estimator = "biased")$estimate *
    (m - 1)^2
}

test_that("pc squared is HSIC0 (m-1)^2 of unit-norm centred data, linear kernels (eq. 22-23)", {
  set.seed(1)
  m <- 25
  x <- matrix(rnorm(m * 4), m, 4)
  y <- x[, 1] + rnorm(m)
  s <- feature_scores(x, y, method = "pc")
  expect_equal(s$score, drop(cor(x, y)), tolerance = 1e-12)
  unit <- function(v) (v - mean(v)) / sqrt(sum((v - mean(v))^2))
  for (j in 1:4) {
    h <- hsic0_scaled(unit(x[, j]), unit(y), kernel_linear(),
                      label_kernel_regression(kernel_linear()))
    expect_equal(s$score[j]^2, h, tolerance = 1e-10)
  }
  # a two-class factor is coded as the indicator of the second class
  cls <- factor(y > 0)
  expect_equal(feature_scores(x, cls, method = "pc")$score, drop(cor(x, as.numeric(y > 0))))
})

test_that("lin squared is HSIC0 (m-1)^2 with the balanced binary label kernel", {
  d <- toy_binary(m = 21, d = 5)
  s <- feature_scores(d$x, d$y, method = "lin")
  mdiff <- colMeans(d$x[d$y == "b", ]) - colMeans(d$x[d$y == "a", ])
  expect_equal(s$score, unname(mdiff), tolerance = 1e-12)
  for (j in 1:5) {
    expect_equal(s$score[j]^2, hsic0_scaled(d$x[, j], d$y, kernel_linear(),
                                            label_kernel_binary()), tolerance = 1e-10)
  }
})

test_that("pam is HSIC0 (m-1)^2 with the pam label kernel (eq. 27-28)", {
  set.seed(3)
  m <- 24
  y <- factor(rep(c("p", "q", "r"), c(6, 8, 10)))
  x <- matrix(rnorm(m * 5), m, 5)
  x[y == "q", 2] <- x[y == "q", 2] + 2
  # the paper's map on raw data: sum over classes of squared centroid distances
  for (j in 1:5) {
    centroid <- tapply(x[, j], y, mean) - mean(x[, j])
    expect_equal(hsic0_scaled(x[, j], y, kernel_linear(), label_kernel_pam()),
                 sum(centroid^2), tolerance = 1e-10)
  }
  # pamr's standardisation: features scaled by 1 / (s_j + s0), classes by mk
  s <- feature_scores(x, y, method = "pam")
  within <- sapply(1:5, function(j) sum((x[, j] - ave(x[, j], y))^2))
  sj <- sqrt(within / (m - 3))
  s0 <- median(sj)
  for (j in 1:5) {
    expect_equal(s$score[j], hsic0_scaled(x[, j] / (sj[j] + s0), y, kernel_linear(),
                                          label_kernel_pam(standardize = TRUE)),
                 tolerance = 1e-10)
  }
  expect_true(all(c("d_p", "d_q", "d_r") %in% names(s)))
  expect_equal(s$score, rowSums(s[, c("d_p", "d_q", "d_r")]^2), tolerance = 1e-12)
  expect_equal(s$rank[2], 1L)
})

test_that("mmd is the biased MMD and HSIC0 (m-1)^2 with the balanced label kernel (eq. 26)", {
  d <- toy_binary(m = 18, d = 4)
  s <- feature_scores(d$x, d$y, method = "mmd", kernel = kernel_gaussian(0.5))
  pos <- d$y == "b"
  for (j in 1:4) {
    K <- oracle_gauss(d$x[, j], 0.5)
    mmd <- mean(K[pos, pos]) + mean(K[!pos, !pos]) - 2 * mean(K[pos, !pos])
    expect_equal(s$score[j], mmd, tolerance = 1e-12)
    expect_equal(s$score[j], hsic0_scaled(d$x[, j], d$y, kernel_gaussian(0.5),
                                          label_kernel_binary()), tolerance = 1e-10)
  }
  # median heuristic per feature: the same as hsic() on that feature alone
  s2 <- feature_scores(d$x, d$y, method = "mmd")
  expect_equal(s2$score[3], hsic0_scaled(d$x[, 3], d$y, kernel_gaussian(),
                                         label_kernel_binary()), tolerance = 1e-10)
})

test_that("kta is the unnormalised alignment tr(K y y')", {
  d <- toy_binary(m = 16, d = 3)
  v <- ifelse(d$y == "b", 1, -1)
  for (k in list(kernel_laplace(0.3), kernel_polynomial(2), kernel_inverse_distance(0.1))) {
    s <- feature_scores(d$x, d$y, method = "kta", kernel = k)
    oracle <- sapply(1:3, function(j) sum(kernel_matrix(k, d$x[, j]) * tcrossprod(v)))
    expect_equal(s$score, oracle, tolerance = 1e-12)
  }
})

test_that("per-feature hsic equals hsic() of each feature, both estimators, all outcomes", {
  set.seed(6)
  m <- 20
  x <- matrix(rnorm(m * 4), m, 4)
  outcomes <- list(factor(rep(1:2, 10)), factor(rep(1:4, 5)), x[, 1]^2 + rnorm(m))
  for (y in outcomes) {
    for (est in c("biased", "unbiased")) {
      s <- feature_scores(x, y, method = "hsic", estimator = est)
      each <- sapply(1:4, function(j) hsic(x[, j], y, estimator = est)$estimate)
      expect_equal(s$score, each, tolerance = 1e-10)
    }
  }
})

test_that("ranks put the largest |signed| or largest score first, ties to the lower index", {
  d <- toy_binary(m = 30, d = 6)
  x <- cbind(d$x, d$x[, 1])
  colnames(x)[7] <- "copy"
  s <- feature_scores(x, d$y, method = "t")
  expect_equal(s$rank[1], 1L)
  expect_equal(s$rank[7], 2L)
  expect_equal(sort(s$rank), 1:7)
  neg <- feature_scores(-x, d$y, method = "t")
  expect_equal(neg$rank, s$rank)
  expect_equal(names(s)[1:3], c("feature", "score", "rank"))
  expect_equal(s$feature, colnames(x))
  expect_equal(attr(s, "method"), "t")
})

test_that("scores are the same for 1 and 2 threads", {
  d <- toy_binary(m = 40, d = 30)
  a <- feature_scores(d$x, d$y, method = "hsic", threads = 1)
  b <- feature_scores(d$x, d$y, method = "hsic", threads = 2)
  expect_identical(a, b)
})

test_that("constant features warn and get NA or 0 as documented", {
  d <- toy_binary(m = 12, d = 3)
  x <- cbind(d$x, const = 5)
  expect_warning(s <- feature_scores(x, d$y, method = "t"), "1 constant feature \\(const\\)")
  expect_true(is.na(s$score[4]))
  expect_equal(s$rank[4], 4L)
  expect_warning(s <- feature_scores(x, d$y, method = "hsic"), "no dependence")
  expect_equal(s$score[4], 0, tolerance = 1e-15)
  expect_warning(s <- feature_scores(x, as.numeric(d$y), method = "pc"), "constant")
  expect_true(is.na(s$score[4]))
})

test_that("feature_scores() rejects outcomes a method cannot use", {
  d <- toy_binary(m = 12, d = 3)
  y3 <- factor(rep(1:3, 4))
  expect_error(feature_scores(d$x, y3, method = "t"), "compares two classes; 'y' has 3 classes")
  expect_error(feature_scores(d$x, rnorm(12), method = "lin"), "numeric outcome")
  expect_error(feature_scores(d$x, rnorm(12), method = "pam"), "needs class labels")
  expect_error(feature_scores(d$x, y3, method = "pc"), "numeric or two-class")
  y1 <- factor(c("a", rep("b", 11)))
  expect_error(feature_scores(d$x, y1, method = "t"), "class \"a\" has 1")
  expect_error(feature_scores(d$x, cbind(1:12, 12:1), method = "pc"), "single outcome")
  expect_error(feature_scores(d$x, d$y, method = "mmd", kernel = kernel_precomputed(diag(12))),
               "cannot be applied to single features")
  expect_error(feature_scores(d$x, d$y, method = "nope"), "'method' = \"nope\" is not one of")
  expect_error(feature_scores(t(d$x), d$y), "t\\(x\\)")
})

test_that("formula and ExpressionSet interfaces give the matrix result", {
  d <- toy_binary(m = 14, d = 3)
  df <- data.frame(d$x, cls = d$y)
  a <- feature_scores(cls ~ ., data = df, method = "t")
  b <- feature_scores(d$x, d$y, method = "t")
  expect_equal(a$score, b$score)
  expect_equal(a$feature, b$feature)
  skip_peer("Biobase")
  rownames(d$x) <- paste0("s", 1:14)
  eset <- Biobase::ExpressionSet(t(d$x), phenoData = Biobase::AnnotatedDataFrame(
    data.frame(cls = d$y, row.names = rownames(d$x))))
  e <- feature_scores(eset, "cls", method = "t")
  expect_equal(e$score, b$score)
  expect_equal(e$feature, colnames(d$x))
})

test_that("the shipped Golub data set has the documented shape", {
  expect_equal(dim(golub$x), c(38L, 3051L))
  expect_equal(levels(golub$y), c("ALL", "AML"))
  expect_equal(as.vector(table(golub$y)), c(27L, 11L))
  expect_true(all(is.finite(golub$x)))
})

# ---- scale -----------------------------------------------------------------------
# Each feature's sums of squares are taken in units of a power of two of its
# own (src/scores.c, src/checks.c): exact, so a rescaling of the data by a
# power of two changes no bit of a scale-free score, and no square underflows
# or overflows at x * 1e-170 or x * 1e170 (where the plain sums are 0 or Inf
# and every feature looked constant).

scale_data <- function(seed = 11) {
  set.seed(seed)
  m <- 24
  x <- matrix(rnorm(m * 9, mean = 3), m, 9, dimnames = list(NULL, paste0("g", 1:9)))
  y <- factor(rep(c("a", "b"), c(10, 14)))
  x[y == "b", 1:2] <- x[y == "b", 1:2] + 1.2
  # a feature of integers, one that varies only in one class, and one whose
  # values span 2^40
  x[, 4] <- round(x[, 4] * 3)
  x[y == "a", 5] <- 2.5
  x[, 6] <- x[, 6] * 2^(seq_len(m) %% 41)
  list(x = x, y = y, y3 = factor(rep(c("p", "q", "r"), 8)), num = x[, 1] + rnorm(m))
}

# method (with its arguments) -> the outcome it takes
scale_cases <- list(
  list(method = "pc", y = "num"), list(method = "t", y = "y"),
  list(method = "t", y = "y", var_equal = TRUE), list(method = "snr", y = "y"),
  list(method = "mt", y = "y"), list(method = "pam", y = "y3"),
  list(method = "pam", y = "y"), list(method = "mmd", y = "y"),
  list(method = "mmd", y = "y", kernel = kernel_laplace()),
  list(method = "kta", y = "y"), list(method = "hsic", y = "y3"),
  list(method = "hsic", y = "num", estimator = "unbiased")
)

scores_at <- function(dat, case, s, ...) {
  args <- case[setdiff(names(case), "y")]
  do.call(feature_scores, c(list(dat$x * s, dat[[case$y]]), args, list(...)))
}

# the columns in the data's units (mean, and effect but for pc, where it is
# the correlation) put back in those of x * 1
in_units <- function(got, s) {
  cols <- if (identical(attr(got, "method"), "pc")) "mean" else c("effect", "mean")
  for (col in intersect(cols, names(got))) got[[col]] <- got[[col]] / s
  got
}

test_that("scale-free scores are the same at x * 2^-600 (exactly), 1e-170 and 1e170", {
  dat <- scale_data()
  for (case in test_cases(scale_cases)) {
    what <- paste(unlist(lapply(case, format)), collapse = " ")
    base <- scores_at(dat, case, 1)
    expect_true(all(is.finite(base$score)), info = what)
    if (case$method %in% c("mt", "pam")) {
      # they compare features: in the data's units at ordinary scales (as limma
      # and pamr), in a common power-of-two unit beyond, equal to rounding
      got <- expect_silent(scores_at(dat, case, 2^-600))
      expect_equal(in_units(got, 2^-600), base, tolerance = 1e-13, info = what)
    } else {
      expect_identical(in_units(expect_silent(scores_at(dat, case, 2^-600)), 2^-600), base,
                       info = what)
    }
    for (s in c(1e-170, 1e170, 1e-300)) {
      got <- expect_silent(scores_at(dat, case, s))
      expect_equal(got$score, base$score, tolerance = 1e-12, info = paste(what, s))
      expect_identical(got$rank[abs(got$score - base$score) < 1e-12 * abs(base$score)],
                       base$rank[abs(got$score - base$score) < 1e-12 * abs(base$score)])
    }
  }
})

test_that("the centroid difference scales with the data, exactly by powers of two", {
  dat <- scale_data()
  base <- feature_scores(dat$x, dat$y, method = "lin")
  for (s in c(2^-600, 2^600)) {
    got <- feature_scores(dat$x * s, dat$y, method = "lin")
    expect_identical(got$score, base$score * s)
    expect_identical(got$rank, base$rank)
  }
  for (s in c(1e-170, 1e170)) {
    got <- expect_silent(feature_scores(dat$x * s, dat$y, method = "lin"))
    expect_equal(got$score / s, base$score, tolerance = 1e-13)
  }
})

test_that("scale-free scores of a block source are those of the matrix at any scale", {
  dat <- scale_data()
  for (case in test_cases(scale_cases[c(2, 5, 6, 8)])) {
    for (s in c(1, 1e-170)) {
      expect_identical(scores_at(dat, case, s, block_size = 2), scores_at(dat, case, s))
    }
  }
  skip_if_not_installed("Matrix")
  xs <- Matrix::Matrix(dat$x * 1e-170, sparse = TRUE)
  expect_identical(feature_scores(xs, dat$y, method = "mt", block_size = 4),
                   feature_scores(dat$x * 1e-170, dat$y, method = "mt"))
})

test_that("a constant feature is constant at any scale, and only it", {
  dat <- scale_data()
  x <- cbind(dat$x, const = 7)
  for (s in c(1, 2^-600, 1e-170, 1e170)) {
    for (method in c("t", "mt", "hsic")) {
      expect_warning(got <- feature_scores(x * s, dat$y, method = method),
                     "1 constant feature \\(const\\)")
    }
    expect_warning(got <- feature_scores(x * s, dat$num, method = "pc"), "\\(const\\)")
    expect_identical(is.na(got$score), rep(c(FALSE, TRUE), c(9, 1)))
  }
})

test_that("B follows limma at every scale where limma computes, and stays finite beyond", {
  skip_peer("limma")
  set.seed(9)
  sds <- sqrt(4 / rchisq(300, 4))
  x <- matrix(rnorm(30 * 300, sd = rep(sds, each = 30)), 30, 300)
  y <- factor(rep(c("ctl", "trt"), c(11, 19)))
  x[y == "trt", 1:15] <- x[y == "trt", 1:15] + 2
  fit_at <- function(s) limma::eBayes(limma::lmFit(t(x * s), stats::model.matrix(~y)))
  # limma bounds the sd of a true log-fold change by stdev.coef.lim = c(0.1, 4)
  # in the data's units, so B depends on the scale of the data (the moderated
  # t does not)
  for (s in c(1e-90, 1e-3, 1, 1e3, 1e90)) {
    fit <- fit_at(s)
    # far above the units of the prior every B is the same number: a warning
    if (s > 1e10) {
      expect_warning(got <- feature_scores(x * s, y, method = "lods"), "no digits left")
    } else {
      expect_silent(got <- feature_scores(x * s, y, method = "lods"))
    }
    expect_equal(got$score, unname(fit$lods[, 2]), tolerance = 1e-12, info = format(s))
    expect_equal(got$t, unname(fit$t[, 2]), tolerance = 1e-12, info = format(s))
  }
  # large scales: v0 at its upper limit, ~0, and B -> log(p / (1 - p))
  # (they are ranked by |t| then, as the moderated t ranks them)
  expect_warning(big <- feature_scores(x * 1e170, y, method = "lods"),
                 "B \\(method = \"lods\"\\) is the same number for 300 features")
  expect_equal(big$score, rep(log(0.01 / 0.99), 300), tolerance = 1e-12)
  expect_identical(big$rank, feature_scores(x, y, method = "mt")$rank)
  # tiny scales: v0 at its lower limit 0.1^2 / s0^2, beyond the doubles at
  # 2^-600 (s0^2 in the data's units is limma's at scale 1 times 2^-1200);
  # limma's B formula in logs
  fit <- fit_at(1)
  su <- fit$stdev.unscaled[1, 2]
  df_total <- fit$df.total[1]
  log_v0 <- log(0.1^2) - log(fit$s2.prior) + 1200 * log(2)
  log_r <- log_v0 - 2 * log(su) + log1p(exp(2 * log(su) - log_v0))
  t2 <- fit$t[, 2]^2
  want <- log(0.01 / 0.99) - log_r / 2 +
    (1 + df_total) / 2 * log((t2 + df_total) / (t2 * exp(-log_r) + df_total))
  got <- feature_scores(x * 2^-600, y, method = "lods")
  expect_equal(got$score, unname(want), tolerance = 1e-12)
  expect_equal(got$t, feature_scores(x, y, method = "lods")$t, tolerance = 1e-13)
})

test_that("values beyond 1e150 are taken where the scores rescale, refused by fixed kernels", {
  dat <- scale_data()
  big <- dat$x * 1e200
  expect_silent(feature_scores(big, dat$y, method = "t"))
  expect_silent(feature_scores(big, dat$y, method = "hsic"))
  for (k in list(kernel_gaussian(1), kernel_linear(), kernel_polynomial(2))) {
    expect_error(feature_scores(big, dat$y, method = "kta", kernel = k), "beyond 1e150")
  }
  # the rescaling has no effect on a kernel with a fixed width
  expect_equal(feature_scores(dat$x, dat$y, method = "mmd", kernel = kernel_gaussian(0.3))$score,
               feature_scores(dat$x * 2^-10, dat$y, method = "mmd",
                              kernel = kernel_gaussian(0.3 * 2^20))$score,
               tolerance = 1e-14)
})

test_that("feature_scores() reads a dense double matrix in place: no copy of x", {
  skip_if_not(capabilities("profmem"))
  set.seed(2)
  x <- matrix(rnorm(200 * 300), 200, 300, dimnames = list(NULL, paste0("g", 1:300)))
  y <- factor(rep(1:2, 100))
  ynum <- rnorm(200)
  big <- 8 * length(x) / 2
  for (run in list(function() feature_scores(x, y, method = "t"),
                   function() feature_scores(x, y, method = "mt"),
                   function() feature_scores(x, ynum, method = "pc"))) {
    run()
    f <- tempfile()
    utils::Rprofmem(f, threshold = big)
    run()
    utils::Rprofmem(NULL)
    allocations <- if (file.exists(f)) readLines(f) else character()
    unlink(f)
    expect_length(grep("^[0-9]+ ?:", allocations), 0L)
  }
})

# ---- ranks and the BH adjustment in C -------------------------------------------

# keys with ties, NA, +-Inf and -0, in that mix
messy_keys <- function(n, digits) {
  k <- round(stats::rnorm(n), digits)
  k[sample.int(n, n %/% 10)] <- NA
  k[sample.int(n, n %/% 20)] <- Inf
  k[sample.int(n, n %/% 20)] <- -Inf
  k[sample.int(n, n %/% 20)] <- -0
  k
}

test_that("C_rank_desc gives the ranks of order(-key, -tie, na.last = TRUE, method = \"radix\")", {
  oracle <- function(key, tie = NULL) {
    ord <- if (is.null(tie)) {
      order(-key, na.last = TRUE, method = "radix")
    } else {
      order(-key, -tie, na.last = TRUE, method = "radix")
    }
    rank <- integer(length(key))
    rank[ord] <- seq_along(ord)
    rank
  }
  set.seed(11)
  for (n in c(0L, 1L, 2L, 7L, 300L, 3000L)) {
    for (digits in c(0L, 2L, 15L)) {
      k <- messy_keys(n, digits)
      tie <- round(stats::runif(n), 1)
      tie[sample.int(n, n %/% 10)] <- NA
      for (key in list(k, abs(k), k * 1e-300, k * 1e300)) {
        expect_identical(.Call(C_rank_desc, key, NULL), oracle(key))
        expect_identical(.Call(C_rank_desc, key, tie), oracle(key, tie))
        expect_identical(rank_scores(key, "t"), oracle(abs(key)))
      }
    }
  }
  # a NaN that is not NA: R's own order
  expect_null(.Call(C_rank_desc, c(1, NaN, NA), NULL))
  expect_identical(rank_scores(c(1, NaN, NA, 3), "t"), oracle(c(1, NaN, NA, 3)))
})

test_that("C_p_adjust_bh is stats::p.adjust(p, \"BH\"): ties, NA, NaN, 0, one or no p-value", {
  set.seed(12)
  for (n in c(0L, 1L, 2L, 5L, 400L, 5000L)) {
    p <- stats::runif(n)
    p[sample.int(n, n %/% 4)] <- p[1L]
    p[sample.int(n, n %/% 10)] <- 0
    p[sample.int(n, n %/% 10)] <- NA
    p[sample.int(n, n %/% 20)] <- NaN
    expect_identical(.Call(C_p_adjust_bh, p, NULL), stats::p.adjust(p, "BH"))
    expect_identical(adjust_p_values(p, "BH"), stats::p.adjust(p, "BH"))
    expect_identical(adjust_p_values(p, "holm"), stats::p.adjust(p, "holm"))
  }
  expect_identical(.Call(C_p_adjust_bh, c(NA, 0.2, NA), NULL), c(NA, 0.2, NA))
  # zeros of both signs keep theirs, as cummin() leaves them (identical()
  # takes -0 for 0: 1 / p tells them apart)
  for (p in list(c(0, -0, 0.5), c(-0, 0, 0.5), c(0.5, -0, 0, -0, 1))) {
    expect_identical(1 / .Call(C_p_adjust_bh, p, NULL), 1 / stats::p.adjust(p, "BH"))
  }
})

# With the features' ranks, p-values in the ranks' order (one df) are
# adjusted without a sort; any others are sorted: p.adjust()'s numbers
# either way.
test_that("C_p_adjust_bh along the ranks is stats::p.adjust(p, \"BH\")", {
  set.seed(13)
  for (n in c(2L, 5L, 400L, 5000L)) {
    stat <- round(stats::rnorm(n, sd = 3), 1)
    stat[sample.int(n, max(1L, n %/% 50))] <- Inf
    stat[sample.int(n, n %/% 10)] <- NA
    p <- 2 * stats::pnorm(-abs(stat))
    p[is.na(stat)] <- NA
    rank <- rank_scores(stat, "t")
    bh <- stats::p.adjust(p, "BH")
    expect_identical(.Call(C_p_adjust_bh, p, rank), bh)
    expect_identical(adjust_p_values(p, "BH", rank), bh)
    # a NaN where the statistic is not NA
    q <- p
    q[which(!is.na(stat))[1L]] <- NaN
    expect_identical(.Call(C_p_adjust_bh, q, rank), stats::p.adjust(q, "BH"))
    # not in the ranks' order, no permutation, a -0: sorted, the same numbers
    r2 <- rank
    r2[which(rank == 1L)] <- 2L
    r3 <- rank
    r3[which(rank == n)] <- n + 1L
    for (r in list(rev(rank), sample(rank), r2, r3, rank - 1L)) {
      expect_identical(.Call(C_p_adjust_bh, p, r), bh)
    }
    z <- p
    z[is.infinite(stat)] <- -0
    expect_identical(1 / .Call(C_p_adjust_bh, z, rank), 1 / stats::p.adjust(z, "BH"))
  }
  expect_error(.Call(C_p_adjust_bh, 0.5, 1), "integer vector")
  expect_error(.Call(C_p_adjust_bh, c(0.5, 0.2), 1L), "as long as")
})

test_that("t, mt and pc: the same scores, ranks and p-values for 1 and 2 threads", {
  set.seed(13)
  x <- matrix(stats::rnorm(30 * 200), 30)
  y <- factor(rep(c("a", "b"), c(18, 12)))
  for (method in c("t", "mt", "pc")) {
    one <- feature_scores(x, y, method = method, threads = 1)
    expect_identical(feature_scores(x, y, method = method, threads = 2), one)
  }
})
