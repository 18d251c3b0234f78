# caret's rfe() and sbf() with bahsic's lists of functions (R/adapter-caret.R).
# The oracles are bahsic() and feature_scores() called directly on the same
# rows: whatever caret does around them, the features it reports must be the
# ones they pick.

x <- golub$x[, 1:100]
y <- golub$y

# caret's knn with a fixed k and no tuning: fast, and no randomness of its own
knn_args <- function() {
  list(method = "knn", tuneGrid = data.frame(k = 3),
       trControl = caret::trainControl(method = "none"))
}

# Called from the global environment, as a user does. caret's loop attaches
# caret (foreach's `.packages`) and with it ggplot2 and lattice: quietly, and
# detached after, so that the search path of the other tests is left as it was.
in_global <- function(fun, args) {
  before <- search()
  on.exit(for (pkg in setdiff(search(), before)) detach(pkg, character.only = TRUE))
  suppressPackageStartupMessages(do.call(fun, args, envir = globalenv()))
}

run_rfe <- function(x, y, ctrl, sizes) {
  in_global(caret::rfe, c(list(x = x, y = y, sizes = sizes, rfeControl = ctrl), knn_args()))
}

run_sbf <- function(x, y, ctrl) {
  in_global(caret::sbf, c(list(x = x, y = y, sbfControl = ctrl), knn_args()))
}

test_that("rank() is BAHSIC's ranking in caret's shape, for a matrix or a data frame", {
  fit <- bahsic(x, y, threads = 1)
  for (xx in list(x, as.data.frame(x, optional = TRUE))) {
    imp <- bahsic_rfe_funcs$rank(NULL, xx, y)
    expect_identical(names(imp), c("Overall", "var"))
    expect_identical(imp$var, selected(fit))
    expect_identical(rownames(imp), selected(fit))
    expect_identical(imp$Overall, -seq_len(ncol(x)))
  }
  # the constructor's arguments reach bahsic()
  funs <- bahsic_rfe_functions(drop = 0, kernel = kernel_laplace(), threads = 1)
  expect_identical(funs$rank(NULL, x[, 1:30], y)$var,
                   selected(bahsic(x[, 1:30], y, drop = 0, kernel = kernel_laplace(),
                                   threads = 1)))
  # a numeric outcome
  z <- x[, 1] + x[, 2]^2
  expect_identical(bahsic_rfe_funcs$rank(NULL, x[, 3:40], z)$var, selected(bahsic(x[, 3:40], z)))
})

test_that("caret::rfe() keeps BAHSIC's top features, on every resample and at the end", {
  skip_peer("caret")
  m <- nrow(x)
  # resubstitution: one "resample" of all samples, so the final features are
  # BAHSIC's top ones on the whole data
  ctrl <- caret::rfeControl(functions = bahsic_rfe_funcs, index = list(all = seq_len(m)),
                            indexOut = list(all = seq_len(m)))
  set.seed(1)
  res <- run_rfe(x, y, ctrl, c(2, 5, 10))
  expect_true(res$optsize %in% c(2, 5, 10, 100))
  expect_identical(res$optVariables, selected(bahsic(x, y), res$optsize))
  expect_identical(caret::predictors(res), res$optVariables)

  # 3-fold cross-validation, x as a data frame: each fold's ranking is
  # BAHSIC's on its training rows, cut at every size
  xd <- as.data.frame(x, optional = TRUE)
  ctrl <- caret::rfeControl(functions = bahsic_rfe_funcs, method = "cv", number = 3)
  set.seed(2)
  res <- run_rfe(xd, y, ctrl, c(2, 5, 10))
  v <- res$variables
  for (fold in names(res$control$index)) {
    rows <- res$control$index[[fold]]
    top <- selected(bahsic(x[rows, ], y[rows]))
    for (size in c(100, 10, 5, 2)) {
      kept <- v[v$Resample == fold & v$Variables == size, ]
      expect_identical(kept$var, top[seq_len(size)], info = paste(fold, size))
      expect_identical(kept$Overall, -seq_len(size), info = paste(fold, size))
    }
  }
  # and the final features are those of the largest mean Overall over the
  # rows of `variables` (caret::pickVars(): a fold counts once for every
  # size that kept the feature); ties may be broken either way
  chosen <- res$optVariables
  expect_length(chosen, res$optsize)
  mean_overall <- tapply(v$Overall, v$var, mean)
  expect_gte(min(mean_overall[chosen]), max(mean_overall[setdiff(colnames(x), chosen)]))
  # the same resamples with a matrix give the same result
  set.seed(2)
  res_matrix <- run_rfe(x, y, ctrl, c(2, 5, 10))
  expect_identical(res_matrix$optVariables, res$optVariables)
  expect_identical(res_matrix$variables, res$variables)
})

test_that("score() gives feature_scores()' p-values, one feature or all at once", {
  p_all <- feature_scores(x, y, method = "hsic")$p_value
  s <- hsic_sbf_funcs$score(x, y)
  expect_identical(names(s), colnames(x))
  expect_equal(unname(s), p_all, tolerance = 1e-12)
  # caret's default, sbfControl(multivariate = FALSE): one column at a time
  one <- vapply(as.data.frame(x[, 1:10]), hsic_sbf_funcs$score, double(1), y = y)
  expect_equal(unname(one), p_all[1:10], tolerance = 1e-12)
  f_t <- hsic_sbf_functions(method = "t", var_equal = TRUE)
  expect_equal(unname(f_t$score(as.data.frame(x), y)),
               feature_scores(x, y, method = "t", var_equal = TRUE)$p_value)
  expect_equal(f_t$score(x[, 7], y),
               feature_scores(x, y, method = "t", var_equal = TRUE)$p_value[7])
  # limma's moderated t needs all features at once
  f_mt <- hsic_sbf_functions(method = "mt")
  expect_equal(unname(f_mt$score(x, y)), feature_scores(x, y, method = "mt")$p_value)
  expect_error(f_mt$score(x[, 1], y), "multivariate = TRUE", fixed = TRUE)
})

test_that("filter() keeps p < cutoff after the adjustment, and no NA", {
  p <- c(a = 0.001, b = 0.02, c = 0.049, d = 0.05, e = NA, f = 0.3)
  expect_identical(hsic_sbf_funcs$filter(p, NULL, NULL),
                   c(a = TRUE, b = TRUE, c = TRUE, d = FALSE, e = FALSE, f = FALSE))
  f <- hsic_sbf_functions(cutoff = 0.1, adjust = "BH")
  adj <- stats::p.adjust(p, "BH")
  expect_identical(f$filter(p, NULL, NULL), !is.na(adj) & adj < 0.1)
  # unnamed scores take the names of x
  expect_identical(names(f$filter(unname(p), x[, 1:6], y)), colnames(x)[1:6])
})

test_that("caret::sbf() keeps the features with p < cutoff on each resample and at the end", {
  skip_peer("caret")
  ctrl <- caret::sbfControl(functions = hsic_sbf_funcs, method = "cv", number = 3,
                            multivariate = TRUE)
  set.seed(3)
  res <- run_sbf(as.data.frame(x, optional = TRUE), y, ctrl)
  p <- feature_scores(x, y, method = "hsic")$p_value
  expect_identical(res$optVariables, colnames(x)[p < 0.05])
  expect_gt(length(res$optVariables), 0L)
  for (i in seq_along(res$control$index)) {
    rows <- res$control$index[[i]]
    p_fold <- feature_scores(x[rows, ], y[rows], method = "hsic")$p_value
    expect_identical(res$variables[[i]], colnames(x)[p_fold < 0.05], info = i)
  }
  # caret's default: one feature per call of score(); the same features
  ctrl1 <- caret::sbfControl(functions = hsic_sbf_funcs, method = "cv", number = 3)
  set.seed(3)
  res1 <- run_sbf(as.data.frame(x[, 1:20], optional = TRUE), y, ctrl1)
  expect_identical(res1$optVariables, colnames(x)[1:20][p[1:20] < 0.05])
  expect_gt(length(res1$optVariables), 0L)
  for (i in seq_along(res1$control$index)) {
    rows <- res1$control$index[[i]]
    p_fold <- feature_scores(x[rows, 1:20], y[rows], method = "hsic")$p_value
    expect_identical(res1$variables[[i]], colnames(x)[1:20][p_fold < 0.05], info = i)
  }
  # with a matrix, caret would hand score() the cells one by one
  expect_error(run_sbf(x[, 1:20], y, ctrl1), "multivariate = TRUE")
  # Benjamini-Hochberg over all features of the data, and another method
  ctrl_bh <- caret::sbfControl(functions = hsic_sbf_functions(method = "mt", adjust = "BH",
                                                              cutoff = 0.01),
                               method = "cv", number = 3, multivariate = TRUE)
  set.seed(3)
  res_bh <- run_sbf(x, y, ctrl_bh)
  adj <- stats::p.adjust(feature_scores(x, y, method = "mt")$p_value, "BH")
  expect_identical(res_bh$optVariables, colnames(x)[adj < 0.01])
})

test_that("a filter that keeps no feature gives caret's null model, not an error", {
  skip_peer("caret")
  funs <- hsic_sbf_functions(cutoff = 1e-300)
  ctrl <- caret::sbfControl(functions = funs, method = "cv", number = 3, multivariate = TRUE)
  set.seed(4)
  res <- run_sbf(x[, 1:20], y, ctrl)
  expect_identical(res$optVariables, character(0))
  expect_s3_class(res$fit, "nullModel")
  majority <- names(which.max(table(y)))
  pred <- predict(res, x[1:5, 1:20])
  expect_identical(as.character(pred$pred), rep(majority, 5))
})

test_that("the constructors check their arguments before any resampling", {
  expect_error(bahsic_rfe_functions(dorp = 0.2),
               "bahsic_rfe_functions() has no argument 'dorp'. Did you mean 'drop'?", fixed = TRUE)
  expect_error(bahsic_rfe_functions(kernal = kernel_linear()), "Did you mean 'kernel'?",
               fixed = TRUE)
  expect_error(bahsic_rfe_functions(n_features = 5), "'n_features'.*rfe\\(\\)'s 'sizes'")
  expect_error(bahsic_rfe_functions(y = y), "does not pass 'y'")
  expect_error(bahsic_rfe_functions(unsupervised = TRUE), "does not pass 'unsupervised'")
  expect_error(bahsic_rfe_functions(0.2), "must be named", fixed = TRUE)
  expect_error(bahsic_rfe_functions(drop = 0.1, drop = 0.2), "'drop' more than once",
               fixed = TRUE)
  expect_error(bahsic_rfe_functions(drop = 1.5), "'drop' must be a fraction", fixed = TRUE)
  expect_error(bahsic_rfe_functions(estimator = "unbaised"), "'estimator'", fixed = TRUE)
  expect_error(bahsic_rfe_functions(kernel = kernel_linear(), sigma = "optimize"),
               "sigma = \"optimize\" is not used with a linear kernel", fixed = TRUE)
  expect_identical(attr(bahsic_rfe_functions(estimator = "unb"), "settings"),
                   list(estimator = "unbiased"))

  expect_error(hsic_sbf_functions(n_prem = 100),
               "hsic_sbf_functions() has no argument 'n_prem'. Did you mean 'n_perm'?",
               fixed = TRUE)
  expect_error(hsic_sbf_functions(cutfof = 0.1), "Did you mean 'cutoff'?", fixed = TRUE)
  expect_error(hsic_sbf_functions(method = "limma"), "Did you mean \"mt\"?", fixed = TRUE)
  expect_error(hsic_sbf_functions(method = "lin"), "give 'n_perm'", fixed = TRUE)
  expect_error(hsic_sbf_functions(method = "t", kernel = kernel_linear()),
               "'kernel' is not used with method = \"t\"", fixed = TRUE)
  expect_error(hsic_sbf_functions(method = "t", n_perm = 100), "'n_perm' is not used",
               fixed = TRUE)
  expect_error(hsic_sbf_functions(cutoff = 0), "'cutoff' must be", fixed = TRUE)
  expect_error(hsic_sbf_functions(cutoff = c(0.01, 0.05)), "'cutoff' must be", fixed = TRUE)
  expect_error(hsic_sbf_functions(adjust = "maxT"), "'adjust' = \"maxT\" is not one of",
               fixed = TRUE)
  expect_error(hsic_sbf_functions(assay = 2), "does not pass 'assay'", fixed = TRUE)
  expect_error(hsic_sbf_functions(var_equal = NA, method = "t"), "'var_equal' must be TRUE",
               fixed = TRUE)
  expect_error(hsic_sbf_functions(method = "lin", n_perm = 200), NA)
})

test_that("the exported lists are the constructors' defaults, with caret's functions", {
  expect_identical(names(bahsic_rfe_funcs),
                   c("summary", "fit", "pred", "rank", "selectSize", "selectVar"))
  expect_identical(names(hsic_sbf_funcs), c("summary", "fit", "pred", "score", "filter"))
  expect_identical(attr(bahsic_rfe_functions(), "settings"), attr(bahsic_rfe_funcs, "settings"))
  expect_identical(attr(hsic_sbf_functions(), "settings"), attr(hsic_sbf_funcs, "settings"))
  expect_output(print(bahsic_rfe_functions(drop = 0.05)),
                "features ranked by bahsic(drop = 0.05)", fixed = TRUE)
  expect_output(print(hsic_sbf_functions(method = "mt", adjust = "BH")),
                "p < 0.05 from feature_scores(method = \"mt\"), adjusted by \"BH\"", fixed = TRUE)
  expect_error(print(hsic_sbf_funcs, colour = TRUE), "no argument 'colour'", fixed = TRUE)
  skip_peer("caret")
  # the functions that are caret's own give what caret's do
  perf <- data.frame(Variables = c(2, 5, 10), Accuracy = c(0.8, 0.9, 0.9))
  expect_identical(bahsic_rfe_funcs$selectSize(perf, "Accuracy", TRUE),
                   caret::caretFuncs$selectSize(perf, "Accuracy", TRUE))
  d <- data.frame(obs = y, pred = rev(y))
  expect_identical(hsic_sbf_funcs$summary(d, levels(y)), caret::caretSBF$summary(d, levels(y)))
})

test_that("score() of a matrix cell by cell steers to multivariate = TRUE only", {
  msg <- tryCatch(hsic_sbf_funcs$score(x[1, 1], y), error = conditionMessage)
  expect_match(msg, "with a matrix 'x', sbf\\(\\) needs caret::sbfControl\\(multivariate = TRUE\\)")
  # not towards a data frame, whose one call per feature is many times slower
  expect_no_match(msg, "data frame")
})

test_that("score() of a factor column says that the features must be numeric", {
  f <- factor(rep(c("u", "v"), length.out = length(y)))
  expect_error(hsic_sbf_funcs$score(f, y),
               "caret called score\\(\\) with a factor column of 'x': the features must be numeric")
  expect_error(hsic_sbf_funcs$score(as.character(f), y), "with a character column")
  skip_on_cran()
  # the same through caret's sbf(), by default one column per call
  xf <- as.data.frame(x[, 1:5])
  xf$f <- f
  ctrl <- caret::sbfControl(functions = hsic_sbf_funcs, method = "cv", number = 2)
  expect_error(run_sbf(xf, y, ctrl), "with a factor column of 'x'")
})

test_that("the caret functions take covariates and a block as columns of x", {
  skip_if_not_installed("caret")
  skip_if_not(identical(bahsic:::score_table$t$design, "adjusts"),
              "method = \"t\" does not adjust for a design on this branch")
  set.seed(13)
  np <- 16L
  pair <- factor(rep(seq_len(np), each = 2L))
  yy <- factor(rep(c("a", "b"), np))
  xx <- matrix(stats::rnorm(2L * np * 10L), 2L * np, 10L,
               dimnames = list(NULL, paste0("g", 1:10)))
  xx[, 1:2] <- xx[, 1:2] + 1.5 * (yy == "b")
  xd <- data.frame(xx, batch = factor(rep(c("b1", "b2"), each = np)), pair = pair)
  funcs <- hsic_sbf_functions(method = "t", covariates = "batch", block = "pair")
  p <- funcs$score(xd, yy)
  s <- feature_scores(xx, yy, method = "t", covariates = xd["batch"], block = pair)
  expect_equal(unname(p[colnames(xx)]), s$p_value)
  expect_true(all(is.na(p[c("batch", "pair")])))
  expect_false(any(funcs$filter(p, xd, yy)[c("batch", "pair")]))
  expect_error(funcs$score(xd$g1, yy), "multivariate = TRUE")
  expect_error(funcs$score(xd[1:9], yy), "'batch', 'pair' are not in the x caret passed")
  expect_error(hsic_sbf_functions(covariates = ~ batch), "names of the columns of x")
  # a resampled sbf() whose folds keep the pairs together (caret's groupKFold)
  ctrl <- caret::sbfControl(functions = funcs, method = "cv", multivariate = TRUE,
                            index = caret::groupKFold(pair, k = 4))
  sf <- run_sbf(xd, yy, ctrl)
  expect_false(any(c("batch", "pair") %in% unlist(sf$variables)))
})

test_that("rank() and score() refuse a censored outcome by name", {
  skip_if_not_installed("survival")
  set.seed(41)
  s <- simulate_survival(30, p = 6, censoring = 0.3)
  msg <- "caret's rfe/sbf do not support a censored survival outcome"
  expect_error(bahsic_rfe_funcs$rank(NULL, s$x, s$y), msg, fixed = TRUE)
  expect_error(hsic_sbf_funcs$score(s$x, s$y), msg, fixed = TRUE)
  expect_error(hsic_sbf_funcs$score(s$x[, 1], s$y), msg, fixed = TRUE)
})

test_that("caret::rfe() and caret::sbf() with a censored outcome stop with that message", {
  skip_peer("caret")
  skip_if_not_installed("survival")
  set.seed(42)
  s <- simulate_survival(30, p = 6, censoring = 0.3)
  x <- as.data.frame(s$x)
  msg <- "caret's rfe/sbf do not support a censored survival outcome"
  expect_error(caret::rfe(x, s$y, sizes = 2L,
                          rfeControl = caret::rfeControl(functions = bahsic_rfe_funcs, number = 2L)),
               msg, fixed = TRUE)
  expect_error(caret::sbf(x, s$y,
                          sbfControl = caret::sbfControl(functions = hsic_sbf_funcs, number = 2L)),
               msg, fixed = TRUE)
})
