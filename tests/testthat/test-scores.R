# feature_scores(): the special cases of section 6 of 004_cafd97bfb60132b1.txt
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
  expect_error(feature_scores(d$x, rnorm(12), method = "mt"), "numeric outcome")
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
