# The rank scores of feature_scores() (R/scores-rank.R, src/ranks.c):
# Wilcoxon rank-sum and Kruskal-Wallis against stats::wilcox.test() and
# stats::kruskal.test(), the AUC and the marker table against plain-R
# oracles, the sparse path against the dense one.

# data with ties within and across classes, zeros, negative values
tied_data <- function(m = 40, d = 30, K = 2, seed = 1) {
  set.seed(seed)
  x <- matrix(round(rnorm(m * d), 1), m, d, dimnames = list(NULL, paste0("g", seq_len(d))))
  x[sample(length(x), length(x) %/% 3)] <- 0
  x[, 3] <- x[, 3] + 2 * (seq_len(m) %% K)
  y <- factor(letters[(seq_len(m) - 1L) %% K + 1L])
  y <- y[sample.int(m)]
  list(x = x, y = y)
}

wilcox_ref <- function(x, y, a, b) {
  t(vapply(seq_len(ncol(x)), function(j) {
    w <- suppressWarnings(stats::wilcox.test(x[a, j], x[b, j], exact = FALSE, correct = TRUE))
    c(unname(w$statistic), w$p.value)
  }, numeric(2)))
}

# the AUC from its definition: P(X > Y) + P(X = Y) / 2 over all pairs
auc_oracle <- function(u, v) mean(outer(u, v, ">") + outer(u, v, "==") / 2)

test_that("wilcoxon equals wilcox.test(exact = FALSE, correct = TRUE), level 2 against 1", {
  for (seed in 1:3) {
    d <- tied_data(seed = seed)
    s <- feature_scores(d$x, d$y, method = "wilcoxon")
    ref <- wilcox_ref(d$x, d$y, d$y == "b", d$y == "a")
    expect_equal(s$statistic, ref[, 1], tolerance = 1e-8)
    expect_equal(s$p_value, ref[, 2], tolerance = 1e-8)
    expect_equal(s$adj_p_value, stats::p.adjust(ref[, 2], "BH"), tolerance = 1e-8)
    # the score is the signed deviate: ranking by |score| is ranking by p
    expect_equal(2 * stats::pnorm(-abs(s$score)), s$p_value, tolerance = 1e-12)
    # (within 1/2 of n1 n2 / 2 the continuity correction makes it 0)
    shift <- s$statistic - 20 * 20 / 2
    far <- abs(shift) > 0.5
    expect_identical(sign(s$score[far]), sign(shift[far]))
    expect_true(all(s$score[!far] == 0))
    auc <- vapply(seq_len(ncol(d$x)), function(j) {
      auc_oracle(d$x[d$y == "b", j], d$x[d$y == "a", j])
    }, numeric(1))
    expect_equal(s$effect, auc, tolerance = 1e-12)
    expect_equal(s$mean, unname(colMeans(d$x)), tolerance = 1e-12)
    expect_identical(s$rank, rank_scores(s$score, "wilcoxon"))
  }
})

test_that("wilcoxon and kruskal equal the base tests on golub to 1e-8", {
  x <- golub$x[, 1:300]
  y <- golub$y
  s <- feature_scores(x, y, method = "wilcoxon")
  lv <- levels(y)
  ref <- wilcox_ref(x, y, y == lv[2], y == lv[1])
  expect_equal(s$statistic, ref[, 1], tolerance = 1e-8)
  expect_equal(s$p_value, ref[, 2], tolerance = 1e-8)
  k <- feature_scores(x, y, method = "kruskal")
  kr <- t(vapply(seq_len(ncol(x)), function(j) {
    r <- stats::kruskal.test(x[, j], y)
    c(unname(r$statistic), r$p.value)
  }, numeric(2)))
  expect_equal(k$statistic, kr[, 1], tolerance = 1e-8)
  expect_equal(k$p_value, kr[, 2], tolerance = 1e-8)
})

test_that("kruskal equals kruskal.test() with ties, for 2 to 5 classes", {
  for (K in 2:5) {
    d <- tied_data(m = 37, K = K, seed = K)
    s <- feature_scores(d$x, d$y, method = "kruskal")
    ref <- t(vapply(seq_len(ncol(d$x)), function(j) {
      r <- stats::kruskal.test(d$x[, j], d$y)
      c(unname(r$statistic), r$p.value)
    }, numeric(2)))
    expect_equal(s$statistic, ref[, 1], tolerance = 1e-8)
    expect_equal(s$score, ref[, 1], tolerance = 1e-8)
    expect_equal(s$p_value, ref[, 2], tolerance = 1e-8)
    expect_null(s$effect)
    expect_identical(s$rank, rank_scores(s$score, "kruskal"))
  }
})

test_that("the C rank sums equal rank() and table() with few and many classes", {
  set.seed(5)
  for (K in c(1L, 3L, 9L, 12L)) {
    m <- 50
    x <- matrix(sample(c(-1, 0, 0.5, 2, rnorm(5)), m * 6, TRUE), m, 6)
    x[, 6] <- 3
    cls <- sample.int(K, m, TRUE)
    got <- .Call(C_rank_sums, x, list(cls = cls, ncls = K, threads = 1L))
    for (j in seq_len(ncol(x))) {
      r <- rank(x[, j])
      want <- vapply(seq_len(K), function(k) sum(r[cls == k]), numeric(1))
      expect_identical(got$rsum[, j], want)
      tt <- table(x[, j])
      expect_identical(got$ties[j], sum(as.double(tt)^3 - as.double(tt)))
      expect_equal(got$sum[, j], vapply(seq_len(K), function(k) sum(x[cls == k, j]), 1))
      expect_identical(got$pos[, j], vapply(seq_len(K), function(k) sum(x[cls == k, j] > 0), 1))
    }
    expect_identical(got$constant, c(rep(FALSE, 5), TRUE))
  }
})

test_that("one_vs_rest equals wilcox.test of each class against the others", {
  d <- tied_data(m = 45, K = 3, seed = 7)
  mk <- feature_scores(d$x, d$y, method = "wilcoxon", one_vs_rest = TRUE, adjust = "holm")
  expect_s3_class(mk, "bahsic_markers")
  expect_identical(nrow(mk), 3L * ncol(d$x))
  expect_identical(levels(mk$class), levels(d$y))
  for (k in levels(d$y)) {
    r <- mk[mk$class == k, ]
    inn <- d$y == k
    ref <- wilcox_ref(d$x, d$y, inn, !inn)
    expect_identical(r$feature, colnames(d$x))
    expect_equal(r$statistic, ref[, 1], tolerance = 1e-8)
    expect_equal(r$p_value, ref[, 2], tolerance = 1e-8)
    expect_equal(r$adj_p_value, stats::p.adjust(ref[, 2], "holm"), tolerance = 1e-8)
    auc <- vapply(seq_len(ncol(d$x)), function(j) auc_oracle(d$x[inn, j], d$x[!inn, j]), 1)
    expect_equal(r$auc, auc, tolerance = 1e-12)
    expect_equal(r$log_fc, unname(colMeans(d$x[inn, ]) - colMeans(d$x[!inn, ])),
                 tolerance = 1e-12)
    expect_equal(r$detected_in, unname(colMeans(d$x[inn, ] > 0)))
    expect_equal(r$detected_out, unname(colMeans(d$x[!inn, ] > 0)))
    expect_identical(r$rank, rank_scores(r$score, "wilcoxon"))
  }
  # two classes: the class of level 2 against the rest is the two-class test
  d2 <- tied_data(seed = 8)
  two <- feature_scores(d2$x, d2$y, method = "wilcoxon")
  mk2 <- feature_scores(d2$x, d2$y, method = "wilcoxon", one_vs_rest = TRUE)
  b <- mk2[mk2$class == "b", ]
  expect_identical(b$statistic, two$statistic)
  expect_identical(b$p_value, two$p_value)
  expect_identical(b$auc, two$effect)
})

test_that("a sparse dgCMatrix gives the dense result, without being made dense", {
  skip_if_not_installed("Matrix")
  d <- tied_data(m = 60, d = 25, K = 3, seed = 11)
  x <- d$x
  x[, 5] <- 0
  sp <- methods::as(x, "CsparseMatrix")
  # a stored zero counts with the zeros that are not stored
  z <- sp
  z@x[1] <- 0
  xz <- as.matrix(z)
  expect_identical(suppressWarnings(feature_scores(z, d$y, method = "kruskal")),
                   suppressWarnings(feature_scores(xz, d$y, method = "kruskal")))
  for (method in c("wilcoxon", "kruskal")) {
    y <- if (method == "wilcoxon") droplevels(factor(d$y == "a")) else d$y
    dense <- suppressWarnings(feature_scores(x, y, method = method))
    sparse <- suppressWarnings(feature_scores(sp, y, method = method))
    expect_identical(sparse, dense)
  }
  expect_identical(suppressWarnings(feature_scores(sp, d$y, method = "wilcoxon",
                                                   one_vs_rest = TRUE)),
                   suppressWarnings(feature_scores(x, d$y, method = "wilcoxon",
                                                   one_vs_rest = TRUE)))
  # the block the scorer sees is sparse
  src <- score_row("kruskal")$source(normalise_inputs(sp, d$y, blocks = TRUE)$source)
  expect_s4_class(read_block(src, 1:3, check = FALSE, names = FALSE), "dgCMatrix")
  # a genes x samples sparse assay of a SummarizedExperiment: the same
  if (requireNamespace("SummarizedExperiment", quietly = TRUE)) {
    se <- SummarizedExperiment::SummarizedExperiment(list(counts = Matrix::t(sp)))
    expect_identical(suppressWarnings(feature_scores(se, d$y, method = "kruskal"))$statistic,
                     suppressWarnings(feature_scores(x, d$y, method = "kruskal"))$statistic)
  }
  # a missing value in the sparse data is found and named
  sp@x[4] <- NA
  expect_error(feature_scores(sp, d$y, method = "kruskal"), "'x' has missing values")
})

test_that("thread counts and block sizes change nothing", {
  d <- tied_data(m = 50, d = 200, K = 3, seed = 3)
  for (method in c("wilcoxon", "kruskal")) {
    y <- if (method == "wilcoxon") factor(d$y == "a") else d$y
    one <- feature_scores(d$x, y, method = method, threads = 1)
    expect_identical(feature_scores(d$x, y, method = method, threads = 2), one)
    expect_identical(feature_scores(d$x, y, method = method, block_size = 7), one)
  }
  mk <- feature_scores(d$x, d$y, method = "wilcoxon", one_vs_rest = TRUE, threads = 1)
  expect_identical(feature_scores(d$x, d$y, method = "wilcoxon", one_vs_rest = TRUE,
                                  threads = 2, block_size = 13), mk)
  # many classes take the other path of src/ranks.c: the same result too
  y12 <- factor(rep_len(1:12, 50))
  expect_identical(feature_scores(d$x, y12, method = "kruskal", threads = 2, block_size = 9),
                   feature_scores(d$x, y12, method = "kruskal", threads = 1))
})

test_that("constant features: score NA, ranked last, with a warning", {
  d <- tied_data(seed = 4)
  d$x[, 2] <- 7
  for (method in c("wilcoxon", "kruskal")) {
    expect_warning(s <- feature_scores(d$x, d$y, method = method),
                   "1 constant feature \\(g2\\): score NA, ranked last")
    expect_true(is.na(s$score[2]) && is.na(s$statistic[2]) && is.na(s$p_value[2]))
    expect_identical(s$rank[2], ncol(d$x))
    expect_true(all(is.finite(s$score[-2])))
  }
  expect_warning(mk <- feature_scores(d$x, d$y, method = "wilcoxon", one_vs_rest = TRUE),
                 "1 constant feature \\(g2\\)")
  expect_true(all(is.na(mk$p_value[mk$feature == "g2"])))
})

test_that("the rank methods refuse what they cannot use", {
  d <- tied_data(K = 3)
  expect_error(feature_scores(d$x, d$y, method = "wilcoxon"),
               "compares two classes; 'y' has 3.*\"kruskal\".*one_vs_rest = TRUE")
  expect_error(feature_scores(d$x, rnorm(40), method = "kruskal"),
               "compares classes.*'y' has a numeric outcome")
  expect_error(feature_scores(d$x, d$y, method = "t", one_vs_rest = TRUE), "one_vs_rest")
  expect_error(feature_scores(d$x, d$y, method = "kruskal", one_vs_rest = TRUE), "one_vs_rest")
  expect_error(feature_scores(d$x, d$y, method = "wilcoxon", one_vs_rest = NA), "one_vs_rest")
  expect_error(feature_scores(d$x, d$y, method = "kruskal", n_perm = 10), "n_perm")
  expect_error(feature_scores(d$x, d$y, method = "kruskal", adjust = "maxT"), "maxT")
  expect_error(feature_scores(d$x, d$y, method = "mann_whitney"), "wilcoxon")
})

test_that("a time limit stops the rank sums from inside", {
  skip_on_cran()
  skip_if(under_valgrind(), "under valgrind: minutes, not seconds")
  set.seed(31)
  # about a second of sorting on one thread, checked every 10-30 ms
  x <- matrix(rnorm(2000 * 6000), 2000)
  y <- factor(rep(c("a", "b"), 1000))
  small <- tied_data()
  before <- feature_scores(small$x, small$y, method = "wilcoxon")
  expect_time_limit(under_time_limit(function() {
    feature_scores(x, y, method = "wilcoxon", threads = 1)
  }), "wilcoxon")
  expect_identical(feature_scores(small$x, small$y, method = "wilcoxon"), before)
})

test_that("top_features() cuts a marker table class by class, lfc by log_fc", {
  set.seed(11)
  x <- matrix(rnorm(30 * 12), 30, 12, dimnames = list(NULL, paste0("g", 1:12)))
  y <- factor(rep(c("a", "b", "c"), each = 10))
  x[y == "b", 3] <- x[y == "b", 3] + 3
  mk <- feature_scores(x, y, method = "wilcoxon", one_vs_rest = TRUE)
  top <- top_features(mk, n = 2)
  expect_s3_class(top, "bahsic_markers")
  expect_identical(as.character(top$class), rep(c("a", "b", "c"), each = 2))
  for (k in levels(y)) {
    part <- mk[mk$class == k, ]
    expect_identical(top$feature[top$class == k], part$feature[order(part$rank)][1:2])
  }
  expect_identical(top_features(mk, n = 1)$feature[2], "g3")
  cut <- top_features(mk, lfc = 1)
  expect_true(all(abs(cut$log_fc) >= 1))
  expect_identical(nrow(cut), sum(abs(mk$log_fc) >= 1))
  fdr <- top_features(mk, fdr = 0.5)
  expect_identical(nrow(fdr), sum(mk$adj_p_value <= 0.5))
  # the two-class table's effect is the AUC: no lfc there
  s <- feature_scores(x[y != "c", ], droplevels(y[y != "c"]), method = "wilcoxon")
  expect_error(top_features(s, lfc = 1), "the AUC, not a difference of means")
})

test_that("the callers that rank features refuse one_vs_rest up front", {
  x <- matrix(rnorm(30 * 6), 30, 6, dimnames = list(NULL, paste0("g", 1:6)))
  y <- factor(rep(c("a", "b", "c"), each = 10))
  expect_error(stability_selection(x, y, selector = "wilcoxon", one_vs_rest = TRUE,
                                   n_features = 2, n_subsamples = 2L),
               "stability_selection\\(\\) ranks the features.*one_vs_rest = TRUE")
  expect_error(hsic_sbf_functions(method = "wilcoxon", one_vs_rest = TRUE),
               "hsic_sbf_functions\\(\\) ranks the features")
  skip_peer("recipes")
  expect_error(recipes::recipe(y ~ ., data = data.frame(x, y = y)) |>
                 step_select_hsic(recipes::all_predictors(), method = "wilcoxon",
                                  options = list(one_vs_rest = TRUE)),
               "step_select_hsic\\(\\) ranks the features")
})
