# The corners of every per-feature score of feature_scores() (R/scores.R),
# looped over the method list score_methods, so that a method added to it is
# covered: a feature that separates the classes perfectly (no spread within
# the classes, different means), one constant in one class only, a constant
# one, and ties. The rule for the separating feature: it ranks first
# (several by the difference of their class means, then in feature order),
# its analytic p-value is 0, its effect the finite difference, and a warning
# names it.

# The methods of two classes (those of survival outcomes alone have no classes
# to separate: test-scores-cox.R).
score_methods <- bahsic:::score_methods_with(function(r) "two classes" %in% r$outcomes)

# g1, g4, g5 separate the classes (differences 1, -3, 1; g5 a copy of g1), g2
# is constant in class a only, g3 constant.
corner_data <- function(m = 20) {
  set.seed(3)
  y <- factor(rep(c("a", "b"), each = m / 2))
  x <- matrix(rnorm(m * 8), m, 8, dimnames = list(NULL, paste0("g", 1:8)))
  x[, 1] <- rep(0:1, each = m / 2)
  x[, 2] <- c(rep(0, m / 2), rnorm(m / 2))
  x[, 3] <- 5
  x[, 4] <- rep(c(0, -3), each = m / 2)
  x[, 5] <- x[, 1]
  list(x = x, y = y, sep = c(1L, 4L, 5L))
}

# feature_scores() with its warnings collected (not printed)
scores_warnings <- function(...) {
  warnings <- character()
  value <- withCallingHandlers(feature_scores(...), warning = function(w) {
    warnings <<- c(warnings, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  list(value = value, warnings = warnings)
}

# the order the rule gives the separating features: by their score, then
# (infinite scores) by the difference of their class means, then in feature
# order
expected_top <- function(s, d) {
  sep <- d$sep
  key <- if (attr(s, "method") %in% signed_methods) abs(s$score) else s$score
  diffs <- abs(colMeans(d$x[d$y == "b", sep]) - colMeans(d$x[d$y == "a", sep]))
  if (!any(is.infinite(s$statistic[sep]))) diffs[] <- 0
  paste0("g", sep[order(-key[sep], -diffs, sep)])
}

test_that("every method ranks the separating features first, in the rule's order", {
  d <- corner_data()
  for (method in score_methods) {
    for (var_equal in if (method == "t") c(FALSE, TRUE) else FALSE) {
      args <- list(d$x, d$y, method = method, threads = 1)
      if (var_equal) args$var_equal <- TRUE
      got <- do.call(scores_warnings, args)
      s <- got$value
      info <- paste(method, var_equal)
      top <- s$feature[order(s$rank)][1:3]
      expect_setequal(top, c("g1", "g4", "g5"))
      expect_identical(top, expected_top(s, d), info = info)
      infinite <- is.infinite(s$statistic[d$sep])
      if (any(infinite)) {
        # an infinite statistic: ordered by the difference, named in a warning
        expect_true(all(infinite), info = info)
        expect_identical(top, c("g4", "g1", "g5"), info = info)
        expect_true(any(grepl("^3 features .*\\(g1, g4, g5\\).*ranked first", got$warnings)),
                    info = info)
      } else {
        expect_false(any(grepl("ranked first", got$warnings)), info = info)
      }
      if ("p_value" %in% names(s)) {
        # (the gamma p-values of the kernel methods depend on each feature's
        # kernel, not on the score alone: not always the smallest)
        p <- s$p_value[d$sep]
        expect_true(all(p < 1e-4), info = info)
        if (any(infinite)) {
          expect_identical(p, c(0, 0, 0), info = info)
          expect_identical(s$adj_p_value[d$sep], c(0, 0, 0), info = info)
        }
      }
      if ("effect" %in% names(s) && method != "pc") {
        # the rank scores' effect is the AUC: 1 or 0 for a separating feature
        want <- if (method == "wilcoxon") c(1, 0, 1) else c(1, -3, 1)
        expect_equal(s$effect[d$sep], want, info = info)
      }
      # the constant feature: NA and last, or finite and not first
      expect_true(any(grepl("1 constant feature \\(g3\\)", got$warnings)), info = info)
      if (is.na(s$score[3])) expect_identical(s$rank[3], 8L, info = info)
      # one class constant: a finite score
      expect_true(is.finite(s$score[2]), info = info)
    }
  }
})

test_that("the separating gene of the probe is first for t and snr, as for every method", {
  set.seed(1)
  x <- matrix(rnorm(200), 20)
  x[, 1] <- rep(0:1, each = 10)
  y <- factor(rep(c("a", "b"), each = 10))
  for (method in score_methods) {
    s <- suppressWarnings(feature_scores(x, y, method = method, threads = 1))
    expect_identical(s$rank[1], 1L, info = method)
    expect_false(is.na(s$score[1]), info = method)
  }
  expect_warning(s <- feature_scores(x, y, method = "t"),
                 "^1 feature separates the classes perfectly \\(V1\\)")
  expect_identical(unlist(s[1, c("score", "statistic", "effect", "p_value", "adj_p_value")],
                          use.names = FALSE), c(Inf, Inf, 1, 0, 0))
  # a logical matrix: the same
  xl <- matrix(x > 0, 20)
  xl[, 1] <- rep(c(FALSE, TRUE), each = 10)
  for (method in c("t", "snr")) {
    expect_warning(sl <- feature_scores(xl, y, method = method), "separates the classes")
    expect_identical(sl$rank[1], 1L)
    expect_identical(sl$score[1], Inf)
    expect_equal(sl[-1], suppressWarnings(feature_scores(xl * 1, y, method = method))[-1])
  }
})

test_that("Welch and pooled t agree with t.test() where it is defined, genefilter where not", {
  d <- corner_data()
  s <- suppressWarnings(feature_scores(d$x, d$y, method = "t"))
  sp <- suppressWarnings(feature_scores(d$x, d$y, method = "t", var_equal = TRUE))
  for (j in c(2L, 6L)) {
    # one class constant, and an ordinary feature (t.test: first minus second)
    for (eq in c(FALSE, TRUE)) {
      tt <- stats::t.test(d$x[, j] ~ d$y, var.equal = eq)
      got <- if (eq) sp else s
      expect_equal(got$statistic[j], -unname(tt$statistic), tolerance = 1e-12)
      expect_equal(got$p_value[j], tt$p.value, tolerance = 1e-10)
    }
  }
  # t.test() refuses the separating feature
  expect_error(stats::t.test(d$x[, 1] ~ d$y), "essentially constant")
  skip_peer("genefilter")
  gf <- genefilter::rowttests(t(d$x), d$y)
  # its t is first minus second class: -Inf, p-value 0; NaN for the constant one
  expect_identical(gf$statistic[d$sep], -sp$statistic[d$sep])
  expect_identical(gf$p.value[d$sep], sp$p_value[d$sep])
  expect_true(is.nan(gf$statistic[3]) && is.na(sp$statistic[3]))
})

test_that("permutation p-values and maxT give a separating feature the smallest p-value", {
  d <- corner_data()
  for (method in score_methods) {
    s <- tryCatch(suppressWarnings(feature_scores(d$x, d$y, method = method, n_perm = 99,
                                                  threads = 1)),
                  error = function(e) NULL)
    if (is.null(s)) next # a method whose p-values are analytic
    expect_true(all(s$p_value[d$sep] == min(s$p_value, na.rm = TRUE)), info = method)
    expect_true(all(s$p_value[d$sep] <= 2 / 100), info = method)
  }
  for (method in c("t", "lin", "snr", "mt", "pc")) {
    set.seed(4)
    s <- suppressWarnings(feature_scores(d$x, d$y, method = method, adjust = "maxT",
                                         n_perm = 200))
    expect_identical(sort(s$rank[d$sep]), 1:3, info = method)
    expect_true(all(s$p_value[d$sep] <= 2 / 200), info = method)
    # (the centroid difference is in the data's units: a difference of 1 is
    # not the largest a permutation of the other features gives)
    if (method != "lin") expect_true(all(s$adj_p_value[d$sep] <= 2 / 200), info = method)
    expect_true(is.na(s$p_value[3]) || s$p_value[3] == 1, info = method)
  }
})

test_that("pc: an exact linear function of the outcome has t = Inf, p = 0, ordered by range", {
  set.seed(5)
  y <- rnorm(15)
  x <- matrix(rnorm(15 * 5), 15, 5, dimnames = list(NULL, paste0("g", 1:5)))
  x[, 2] <- 1 + 2 * y
  x[, 4] <- -5 * y
  expect_warning(s <- feature_scores(x, y, method = "pc"),
                 "^2 features are exact linear functions of the outcome \\(g2, g4\\)")
  expect_identical(s$feature[order(s$rank)][1:2], c("g4", "g2"))
  expect_identical(s$score[c(2, 4)], c(1, -1))
  expect_identical(s$statistic[c(2, 4)], c(Inf, -Inf))
  expect_identical(s$p_value[c(2, 4)], c(0, 0))
  # a correlation short of 1 stays finite
  x[, 2] <- x[, 2] + 1e-6 * rnorm(15)
  expect_true(is.finite(suppressWarnings(feature_scores(x, y, method = "pc"))$statistic[2]))
})

test_that("pam and mt with more classes: separating features first, by their spread", {
  set.seed(6)
  y <- factor(rep(c("a", "b", "c"), c(6, 7, 7)))
  x <- matrix(rnorm(20 * 10), 20, 10, dimnames = list(NULL, paste0("g", 1:10)))
  x[, c(1, 4:6)] <- 0 # constant: pam's s0 is 0 (more than half without spread)
  x[, 2] <- as.integer(y) - 1
  x[, 3] <- c(rep(0, 6), rep(1, 14))
  got <- scores_warnings(x, y, method = "pam")
  s <- got$value
  expect_identical(s$feature[order(s$rank)][1:2], c("g2", "g3"))
  expect_identical(s$score[2:3], c(Inf, Inf))
  expect_true(all(is.na(s$score[c(1, 4:6)])))
  expect_true(any(grepl("2 features separate the classes perfectly \\(g2, g3\\)",
                        got$warnings)))
  # the moderated F borrows the prior variance: finite, and first
  s <- suppressWarnings(feature_scores(x, y, method = "mt"))
  expect_true(all(is.finite(s$score)))
  expect_identical(sort(s$rank[2:3]), 1:2)
})

test_that("stability selection and the recipes step keep the separating gene", {
  set.seed(1)
  x <- matrix(rnorm(24 * 10), 24, dimnames = list(NULL, paste0("g", 1:10)))
  y <- factor(rep(c("a", "b"), each = 12))
  x[, 7] <- rep(0:1, each = 12)
  fit <- suppressWarnings(stability_selection(x, y, selector = "t", n_features = 1,
                                              n_subsamples = 4L, threads = 1))
  expect_identical(fit$features$probability[7], 1)
  expect_identical(fit$features$rank[7], 1L)
  expect_identical(top_features(suppressWarnings(feature_scores(x, y, method = "t")),
                                n = 1, fdr = 0.05)$feature, "g7")
  skip_peer("recipes")
  dat <- data.frame(y = y, x)
  tr <- suppressWarnings(recipes::prep(
    step_select_hsic(recipes::recipe(y ~ ., data = dat), recipes::all_predictors(),
                     method = "t", top_n = 1)))
  expect_identical(setdiff(names(recipes::bake(tr, new_data = NULL)), "y"), "g7")
})

test_that("too few samples: pc refuses 2, the kernel tests warn below 4", {
  x <- matrix(c(1, 2, 3, 4, 6, 5), 2)
  expect_error(feature_scores(x, c(1, 2), method = "pc"),
               "method = \"pc\" .* needs at least 3 samples; there are 2\\. Use method = \"kta\" or \"hsic\"")
  expect_error(feature_scores(x, factor(c("a", "b")), method = "pc"),
               "needs at least 3 samples; there are 2\\. Use method = \"lin\", \"mmd\", \"kta\", \"hsic\"")
  x3 <- matrix(c(1, 2, 4, 3, 1, 2), 3)
  y3 <- factor(c("a", "b", "b"))
  for (method in c("mmd", "kta", "hsic")) {
    expect_warning(s <- feature_scores(x3, y3, method = method),
                   "With 3 samples the gamma approximation .* is undefined .*Give 'n_perm'")
    expect_true(all(is.na(s$p_value)))
    set.seed(1)
    expect_silent(s <- feature_scores(x3, y3, method = method, n_perm = 19))
    expect_true(all(s$p_value > 0 & s$p_value <= 1))
  }
})

test_that("lods at a scale where B has no digits left: a warning, ranked by |t|", {
  set.seed(7)
  x <- matrix(rnorm(20 * 50), 20, 50)
  y <- factor(rep(c("a", "b"), each = 10))
  expect_silent(at1 <- feature_scores(x, y, method = "lods"))
  expect_warning(big <- feature_scores(x * 1e20, y, method = "lods"),
                 "B \\(method = \"lods\"\\) is the same number for 50 features .*method = \"mt\"")
  expect_identical(length(unique(big$score)), 1L)
  expect_identical(big$rank, at1$rank)
  expect_identical(big$rank, feature_scores(x, y, method = "mt")$rank)
})

test_that("ties keep the feature order for every method", {
  set.seed(8)
  x <- matrix(rnorm(16 * 4), 16, 4)
  x <- cbind(x, x[, 2], x[, 2])
  y <- factor(rep(c("a", "b"), each = 8))
  for (method in score_methods) {
    s <- feature_scores(x, y, method = method, threads = 1)
    r <- s$rank[c(2, 5, 6)]
    expect_identical(r, sort(r), info = method)
    expect_identical(diff(r), c(1L, 1L), info = method)
  }
})
