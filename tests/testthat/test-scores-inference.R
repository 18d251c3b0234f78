# feature_scores()' inference columns: statistic, effect, mean, p_value,
# adj_p_value, against stats::t.test(), stats::cor.test(), genefilter's
# rowttests(), limma's topTable() (Smyth 2004) and plain-R permutation loops;
# top_features().

# |object - expected| / |expected| (absolute where expected is 0), NAs equal
expect_rel <- function(object, expected, tol = 1e-8, info = NULL) {
  object <- unname(as.vector(object))
  expected <- unname(as.vector(expected))
  expect_identical(is.na(object), is.na(expected), info = info)
  ok <- !is.na(expected) & object != expected
  err <- abs(object[ok] - expected[ok]) / ifelse(expected[ok] == 0, 1, abs(expected[ok]))
  expect_lt(max(c(0, err)), tol, label = paste("relative error", info))
}

sim_two <- function(m = 20, d = 60, n2 = 8, seed = 1) {
  set.seed(seed)
  y <- factor(rep(c("ctl", "trt"), c(m - n2, n2)), levels = c("ctl", "trt"))
  x <- matrix(rnorm(m * d, mean = 5), m, d, dimnames = list(NULL, paste0("g", seq_len(d))))
  x[y == "trt", 1:min(6, d)] <- x[y == "trt", 1:min(6, d)] + 1.5
  list(x = x, y = y)
}

limma_table <- function(x, y, coef = 2) {
  fit <- suppressWarnings(limma::eBayes(limma::lmFit(t(x), stats::model.matrix(~y))))
  limma::topTable(fit, coef = coef, number = Inf, sort.by = "none")
}

test_that("t: Welch's t, df and p-value as stats::t.test() per gene", {
  dat <- sim_two()
  s <- feature_scores(dat$x, dat$y, method = "t")
  ref <- t(apply(dat$x, 2, function(v) {
    r <- stats::t.test(v ~ dat$y)
    c(r$statistic, r$p.value, -diff(r$estimate))
  }))
  # t.test() reports level 1 minus level 2: minus ours
  expect_rel(s$statistic, -ref[, 1])
  expect_rel(s$p_value, ref[, 2])
  expect_rel(s$effect, -ref[, 3])
  expect_identical(s$statistic, s$score)
  expect_rel(s$mean, colMeans(dat$x))
  expect_rel(s$adj_p_value, stats::p.adjust(ref[, 2], "BH"))
})

test_that("t with var_equal = TRUE: the p-values of genefilter::rowttests()", {
  skip_peer("genefilter")
  dat <- sim_two(m = 15, n2 = 4, seed = 2)
  s <- feature_scores(dat$x, dat$y, method = "t", var_equal = TRUE)
  rt <- genefilter::rowttests(t(dat$x), dat$y)
  expect_rel(s$statistic, -rt$statistic)
  expect_rel(s$p_value, rt$p.value)
  expect_rel(s$effect, -rt$dm)
  one <- stats::t.test(dat$x[, 1] ~ dat$y, var.equal = TRUE)$p.value
  expect_rel(s$p_value[1], one)
})

test_that("mt and lods: t, P.Value, adj.P.Val, logFC, AveExpr and B of limma::topTable()", {
  skip_peer("limma")
  for (dat in list(sim_two(), sim_two(m = 9, d = 200, n2 = 4, seed = 3))) {
    tt <- limma_table(dat$x, dat$y)
    mt <- feature_scores(dat$x, dat$y, method = "mt")
    lods <- feature_scores(dat$x, dat$y, method = "lods")
    for (s in list(mt, lods)) {
      expect_rel(s$statistic, tt$t)
      expect_rel(s$p_value, tt$P.Value)
      expect_rel(s$adj_p_value, tt$adj.P.Val)
      expect_rel(s$effect, tt$logFC)
      expect_rel(s$mean, tt$AveExpr)
    }
    expect_rel(lods$score, tt$B)
    expect_identical(lods$t, lods$statistic)
  }
})

test_that("mt on golub agrees with limma; top_features(fdr =) is topTable(p.value =)", {
  skip_peer("limma")
  s <- feature_scores(golub$x, golub$y, method = "mt", adjust = "BH")
  tt <- limma_table(golub$x, golub$y)
  expect_rel(s$p_value, tt$P.Value)
  expect_rel(s$adj_p_value, tt$adj.P.Val)
  fit <- limma::eBayes(limma::lmFit(t(golub$x), stats::model.matrix(~golub$y)))
  lim <- limma::topTable(fit, coef = 2, number = Inf, p.value = 0.05)
  top <- top_features(s, fdr = 0.05)
  expect_gt(nrow(top), 10)
  expect_setequal(top$feature, rownames(lim))
  # ordered by rank = by |moderated t| = by p-value
  expect_identical(top$rank, sort(top$rank))
  expect_identical(top$feature, rownames(lim))
})

test_that("mt with three classes is limma's moderated F (topTable(coef = 2:3))", {
  skip_peer("limma")
  set.seed(4)
  m <- 24
  y <- factor(rep(c("a", "b", "c"), c(6, 8, 10)))
  x <- matrix(rnorm(m * 150, sd = rep(sqrt(2 / rchisq(150, 3)), each = m)), m, 150)
  x[y == "b", 1:10] <- x[y == "b", 1:10] + 2
  x[, 11] <- 2.5
  colnames(x) <- paste0("p", 1:150)
  expect_warning(s <- feature_scores(x, y, method = "mt"), "constant")
  tt <- limma_table(x, y, coef = 2:3)
  # the constant feature: F = 0 exactly (limma: a rounding error, ~1e-28)
  expect_identical(s$statistic[11], 0)
  expect_lt(tt$F[11], 1e-20)
  expect_rel(s$statistic[-11], tt$F[-11])
  expect_identical(s$score, s$statistic)
  expect_rel(s$p_value, tt$P.Value)
  expect_rel(s$adj_p_value, tt$adj.P.Val)
  expect_rel(s$mean, tt$AveExpr)
  expect_false("effect" %in% names(s))
  # the F of a single feature by plain R: one-way ANOVA F with the moderated
  # variance (df.prior, s2.prior from limma)
  fit <- limma::eBayes(limma::lmFit(t(x), stats::model.matrix(~y)))
  j <- 3
  between <- sum(tabulate(y) * (tapply(x[, j], y, mean) - mean(x[, j]))^2)
  expect_rel(s$statistic[j], between / 2 / fit$s2.post[j])
  expect_lt(stats::median(s$rank[1:10]), 10)
})

test_that("pc: t, p-value and correlation of stats::cor.test()", {
  set.seed(5)
  m <- 17
  yv <- rnorm(m)
  x <- matrix(rnorm(m * 30), m, 30)
  x[, 1] <- x[, 1] + 2 * yv
  x[, 2] <- 3 * yv + 1   # r = 1: t = Inf, p = 0
  expect_warning(s <- feature_scores(x, yv, method = "pc"),
                 "1 feature is an exact linear function of the outcome \\(V2\\)")
  ref <- t(apply(x[, -2], 2, function(v) {
    r <- stats::cor.test(v, yv)
    c(r$statistic, r$p.value, r$estimate, r$parameter)
  }))
  expect_identical(unname(ref[1, 4]), m - 2)
  expect_rel(s$statistic[-2], ref[, 1])
  expect_rel(s$p_value[-2], ref[, 2])
  expect_rel(s$effect[-2], ref[, 3])
  expect_identical(s$effect, s$score)
  expect_identical(s$statistic[2], Inf)
  expect_identical(s$p_value[2], 0)
  # on golub, the second class indicator
  g <- feature_scores(golub$x[, 1:100], golub$y, method = "pc")
  ind <- as.numeric(golub$y == "AML")
  expect_rel(g$p_value[1:20],
             sapply(1:20, function(j) stats::cor.test(golub$x[, j], ind)$p.value))
})

test_that("adjust: every stats::p.adjust() method; constant features NA and not counted", {
  dat <- sim_two(d = 40)
  dat$x[, 7] <- 1
  dat$x[, 9] <- -2
  for (method in c("BH", "BY", "holm", "bonferroni", "none")) {
    s <- suppressWarnings(feature_scores(dat$x, dat$y, method = "t", adjust = method))
    expect_true(all(is.na(s[c(7, 9), c("score", "statistic", "p_value", "adj_p_value")])))
    ok <- -c(7, 9)
    expect_identical(s$adj_p_value[ok], stats::p.adjust(s$p_value[ok], method), info = method)
    expect_identical(attr(s, "adjust"), method)
  }
  # n = 38 for Bonferroni: the constant features do not count
  expect_equal(s$p_value[1] * 38, stats::p.adjust(s$p_value, "bonferroni")[1])
  # mt scores a constant feature 0: p = 1, as limma
  mt <- suppressWarnings(feature_scores(dat$x, dat$y, method = "mt"))
  expect_identical(mt$p_value[c(7, 9)], c(1, 1))
})

# plain-R permutation p-values with the same permutations as feature_scores()
# draws (n_perm calls of sample.int(m) after set.seed(seed))
perm_oracle <- function(x, y, stat, n_perm, seed) {
  set.seed(seed)
  perms <- replicate(n_perm, sample.int(nrow(x)))
  obs <- abs(stat(x, y))
  count <- numeric(ncol(x))
  for (b in seq_len(n_perm)) count <- count + (abs(stat(x, y[perms[, b]])) >= obs)
  unname((1 + count) / (1 + n_perm))
}

test_that("lin and snr: permutation p-values equal a plain-R loop with the same permutations", {
  dat <- sim_two(m = 16, d = 25, n2 = 7, seed = 6)
  lin <- function(x, y) {
    colMeans(x[y == "trt", , drop = FALSE]) - colMeans(x[y == "ctl", , drop = FALSE])
  }
  snr <- function(x, y) {
    sd2 <- function(cl) apply(x[y == cl, , drop = FALSE], 2, stats::sd)
    lin(x, y) / (sd2("trt") + sd2("ctl"))
  }
  set.seed(11)
  s <- feature_scores(dat$x, dat$y, method = "lin", n_perm = 199)
  expect_identical(s$p_value, perm_oracle(dat$x, dat$y, lin, 199, 11))
  expect_identical(s$adj_p_value, stats::p.adjust(s$p_value, "BH"))
  expect_identical(s$statistic, s$score)
  expect_true(all(s$p_value >= 1 / 200))
  expect_lt(mean(s$p_value[1:6]), mean(s$p_value[7:25]))
  set.seed(12)
  r <- feature_scores(dat$x, dat$y, method = "snr", n_perm = 99, adjust = "holm")
  expect_identical(r$p_value, perm_oracle(dat$x, dat$y, snr, 99, 12))
  expect_identical(r$adj_p_value, stats::p.adjust(r$p_value, "holm"))
  # the same p-values whatever the blocks
  set.seed(11)
  expect_identical(feature_scores(dat$x, dat$y, method = "lin", n_perm = 199, block_size = 4),
                   s)
})

test_that("pam: permutation p-values recompute s0 on each permutation", {
  set.seed(7)
  m <- 18
  y <- factor(rep(c("p", "q", "r"), each = 6))
  x <- matrix(rnorm(m * 12), m, 12)
  x[y == "q", 1] <- x[y == "q", 1] + 3
  pam <- function(x, y) {
    n <- tabulate(y)
    cm <- sapply(levels(y), function(l) colMeans(x[y == l, , drop = FALSE]))
    s <- sqrt(colSums((x - t(cm)[as.integer(y), ])^2) / (nrow(x) - nlevels(y)))
    s <- s + stats::median(s)
    colSums((t(cm - colMeans(x)) / sqrt(1 / n - 1 / nrow(x)))^2) / (s)^2
  }
  set.seed(13)
  s <- feature_scores(x, y, method = "pam", n_perm = 99, block_size = 5)
  expect_equal(s$score, pam(x, y), tolerance = 1e-12)
  expect_identical(s$p_value, perm_oracle(x, y, pam, 99, 13))
  expect_identical(s$p_value[1], 1 / 100)
  expect_false("effect" %in% names(s))
})

test_that("lin, snr and pam without n_perm have no p-value columns", {
  dat <- sim_two()
  for (method in c("lin", "snr")) {
    s <- feature_scores(dat$x, dat$y, method = method)
    expect_false(any(c("p_value", "adj_p_value") %in% names(s)))
    expect_identical(names(s), c("feature", "score", "rank", "statistic", "effect", "mean"))
    expect_null(attr(s, "adjust"))
    expect_error(feature_scores(dat$x, dat$y, method = method, adjust = "BH"),
                 "no analytic null distribution.*Give 'n_perm'")
  }
  expect_error(top_features(feature_scores(dat$x, dat$y, method = "lin"), fdr = 0.1),
               "'fdr' needs adjusted p-values.*method = \"lin\"")
})

test_that("the kernel methods: statistic = score, a one-sided HSIC p-value, no effect or mean", {
  dat <- sim_two(d = 5)
  s <- feature_scores(dat$x, dat$y, method = "mmd")
  expect_identical(s$statistic, s$score)
  expect_identical(names(s), c("feature", "score", "rank", "statistic", "p_value", "adj_p_value"))
  expect_true(all(s$p_value > 0 & s$p_value <= 1))
  expect_equal(s$adj_p_value, p.adjust(s$p_value, "BH"))
  h <- feature_scores(dat$x, dat$y, method = "hsic", adjust = "holm")
  expect_equal(h$adj_p_value, p.adjust(h$p_value, "holm"))
  set.seed(5)
  hp <- feature_scores(dat$x, dat$y, method = "hsic", n_perm = 99)
  expect_identical(hp$score, h$score)
  # permutation p-values are multiples of 1 / (1 + n_perm)
  expect_equal(hp$p_value * 100, round(hp$p_value * 100), tolerance = 1e-12)
})

test_that("column order, class and attributes", {
  dat <- sim_two()
  s <- feature_scores(dat$x, dat$y, method = "lods")
  expect_identical(names(s), c("feature", "score", "rank", "statistic", "effect", "mean",
                               "p_value", "adj_p_value", "t"))
  expect_s3_class(s, c("bahsic_scores", "data.frame"), exact = TRUE)
  expect_identical(attr(s, "method"), "lods")
  expect_identical(attr(s, "adjust"), "BH")
})

test_that("the annotation of an ExpressionSet sits next to the feature names", {
  skip_peer("Biobase")
  dat <- sim_two(d = 8)
  rownames(dat$x) <- paste0("s", seq_len(nrow(dat$x)))
  fdata <- data.frame(symbol = paste0("GENE", 1:8), chr = rep(c("1", "X"), 4),
                      row.names = colnames(dat$x))
  eset <- Biobase::ExpressionSet(
    t(dat$x),
    phenoData = Biobase::AnnotatedDataFrame(data.frame(cls = dat$y, row.names = rownames(dat$x))),
    featureData = Biobase::AnnotatedDataFrame(fdata))
  s <- feature_scores(eset, "cls", method = "mt")
  expect_identical(names(s)[1:4], c("feature", "symbol", "chr", "score"))
  expect_identical(s$symbol, fdata$symbol)
  plain <- feature_scores(dat$x, dat$y, method = "mt")
  for (col in names(plain)) expect_identical(s[[col]], plain[[col]], info = col)
  top <- top_features(s, n = 3)
  expect_identical(top$symbol, fdata$symbol[order(plain$rank)][1:3])
})

test_that("top_features(): by rank, at an FDR, the first n", {
  dat <- sim_two(d = 50)
  s <- feature_scores(dat$x, dat$y, method = "t")
  expect_identical(top_features(s)$feature, s$feature[order(s$rank)])
  t5 <- top_features(s, n = 5)
  expect_identical(t5$rank, 1:5)
  expect_identical(rownames(t5), as.character(1:5))
  f <- top_features(s, fdr = 0.05)
  expect_true(all(f$adj_p_value <= 0.05))
  expect_identical(nrow(f), sum(s$adj_p_value <= 0.05))
  expect_identical(top_features(s, n = 2, fdr = 0.05), utils::head(f, 2))
  expect_identical(nrow(top_features(s, fdr = 0)), 0L)
  expect_identical(attr(f, "method"), "t")
  expect_error(top_features(s, fdr = 2), "'fdr' must be one number between 0 and 1")
  expect_error(top_features(s, n = -1), "'n' must be a whole number")
  expect_error(top_features(s$score), "'scores' must be a data frame from feature_scores()")
})

test_that("top_features() takes topTable()'s four: n, fdr, lfc and sort_by", {
  dat <- sim_two(d = 50)
  s <- feature_scores(dat$x, dat$y, method = "mt")
  big <- abs(s$effect) >= 1
  expect_identical(top_features(s, lfc = 1)$feature, s$feature[big][order(s$rank[big])])
  both <- top_features(s, fdr = 0.05, lfc = 1)
  expect_true(all(both$adj_p_value <= 0.05 & abs(both$effect) >= 1))
  expect_identical(nrow(top_features(s, lfc = 0)), nrow(s))
  # each order, ties by rank
  expect_identical(top_features(s, sort_by = "score"), top_features(s))
  by_p <- top_features(s, sort_by = "p_value")
  expect_identical(by_p$feature, s$feature[order(s$p_value, s$rank)])
  expect_identical(top_features(s, sort_by = "P"), by_p)
  by_e <- top_features(s, n = 7, sort_by = "logFC")
  expect_identical(by_e$feature, s$feature[order(-abs(s$effect), s$rank)][1:7])
  expect_identical(top_features(s, sort_by = "t")$feature,
                   s$feature[order(-abs(s$statistic), s$rank)])
  expect_identical(top_features(s, sort_by = "AveExpr")$feature,
                   s$feature[order(-s$mean, s$rank)])
  expect_identical(top_features(s, sort_by = "none")$feature, s$feature)
  # refused by name where the column is missing, and limma's own names
  h <- feature_scores(dat$x[, 1:5], dat$y, method = "hsic")
  expect_error(top_features(h, lfc = 1),
               "'lfc' keeps .* these scores \\(method = \"hsic\"\\) have no effect column")
  expect_error(top_features(h, sort_by = "logFC"),
               "sort_by = \"effect\" needs the column 'effect'.*method = \"hsic\".*\"p_value\"")
  expect_error(top_features(s, sort_by = "B"), "sort_by = \"B\" is limma's B statistic \\(log odds\\), the score of method = \"lods\"")
  expect_error(top_features(s, lfc = -1), "'lfc' must be one number >= 0")
  expect_error(top_features(s, sort_by = "pval"), "Did you mean \"p_value\"")
  expect_error(top_features(s, number = 3), "limma's 'number' as 'n': write n = ")
  expect_error(top_features(s, p.value = 0.1), "limma's 'p.value' as 'fdr'")
  expect_error(top_features(s, sort.by = "P"), "limma's 'sort.by' as 'sort_by'")
  skip_peer("limma")
  fit <- limma::eBayes(limma::lmFit(t(dat$x), stats::model.matrix(~dat$y)))
  for (by in c("logFC", "P", "t", "B", "AveExpr")) {
    lim <- limma::topTable(fit, coef = 2, number = 10, p.value = 0.5, lfc = 0.5, sort.by = by)
    sc <- if (by == "B") feature_scores(dat$x, dat$y, method = "lods") else s
    got <- top_features(sc, n = 10, fdr = 0.5, lfc = 0.5, sort_by = by)
    expect_identical(got$feature, rownames(lim), info = by)
  }
})

test_that("argument errors name the argument and say what to do", {
  dat <- sim_two(d = 5)
  expect_error(feature_scores(dat$x, dat$y, method = "lin", n_perm = 0),
               "'n_perm' must be a whole number of at least 1")
  expect_error(feature_scores(dat$x, dat$y, method = "lin", n_perm = 2.5),
               "'n_perm' must be a whole number")
  expect_error(feature_scores(dat$x, dat$y, method = "t", n_perm = 10),
               "'n_perm' is not used with method = \"t\", whose p-values are analytic")
  expect_error(feature_scores(dat$x, dat$y, method = "pam", n_perm = -1),
               "'n_perm' must be a whole number")
  expect_error(feature_scores(dat$x, dat$y, method = "t", adjust = "fdr2"),
               "'adjust' = \"fdr2\" is not one of \"BH\"")
  expect_error(feature_scores(dat$x, dat$y, method = "lods", adjust = "maxT"),
               "adjust = \"maxT\" is available for method")
  y3 <- factor(rep(1:3, length.out = nrow(dat$x)))
  expect_error(feature_scores(dat$x, y3, method = "mt", adjust = "maxT"),
               "not method = \"mt\" with 3 classes")
  expect_error(feature_scores(dat$x, as.numeric(dat$y), method = "pam"),
               paste0("method = \"pam\" compares classes.*'y' has a numeric outcome\\. Use method = ",
                      "\"pc\", \"mt\", \"lods\", \"kta\" or \"hsic\""))
  if (!exists("permutation_pvalues", mode = "function")) {
    expect_error(feature_scores(dat$x, dat$y, method = "t", adjust = "maxT"),
                 "adjust = \"maxT\" is not available yet")
  }
})

test_that("effect and mean are in the data's units; the p-values do not see the scale", {
  dat <- sim_two(d = 12)
  for (method in c("t", "mt", "lin", "pam")) {
    base <- feature_scores(dat$x, dat$y, method = method)
    exact <- feature_scores(dat$x * 2^-600, dat$y, method = method)
    expect_identical(exact$effect, base$effect * 2^-600, info = method)
    expect_identical(exact$mean, base$mean * 2^-600, info = method)
    tiny <- feature_scores(dat$x * 1e-160, dat$y, method = method)
    expect_rel(tiny$effect / 1e-160, base$effect, 1e-12, info = method)
    expect_rel(tiny$mean / 1e-160, base$mean, 1e-12, info = method)
    # lin's statistic is the mean difference, in the data's units
    unit <- if (method == "lin") 1e-160 else 1
    expect_rel(tiny$statistic / unit, base$statistic, 1e-12, info = method)
    if (!is.null(base$p_value)) expect_rel(tiny$p_value, base$p_value, 1e-10, info = method)
  }
})

test_that("adjust = \"maxT\" gives the step-down maxT of permutation_pvalues() on the same labellings", {
  dat <- sim_two(d = 30)
  for (method in c("t", "mt", "lin")) {
    set.seed(11)
    s <- feature_scores(dat$x, dat$y, method = method, adjust = "maxT", n_perm = 200)
    set.seed(11)
    ref <- bahsic:::permutation_pvalues(dat$x, dat$y, method, n_perm = 200L)
    expect_equal(s$p_value, unname(ref$p_value), tolerance = 1e-15)
    expect_equal(s$adj_p_value, unname(ref$adj_p_value), tolerance = 1e-15)
    expect_true(all(s$adj_p_value >= s$p_value))
  }
  expect_error(feature_scores(dat$x, dat$y, method = "hsic", adjust = "maxT"),
               "adjust = \"maxT\" is available for method")
})
