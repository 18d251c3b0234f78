# Cost and resampled accuracy of the caret adapters on the Golub data (38 x
# 3051, ALL vs AML), 5-fold cross-validation, a 3-nearest-neighbour model
# (caret's knn3, k fixed, no tuning: the time is the selection's):
#   * caret::rfe() with bahsic_rfe_funcs (BAHSIC ranks each fold's training
#     part once, Song et al. 2012, Algorithm 1), sizes 2, 5, 10, 20, 50;
#   * caret::sbf() with hsic_sbf_funcs (the per-feature HSIC test, p < 0.05),
#     multivariate = TRUE (one call of feature_scores() per fold), and
#     caret's own caretSBF (one anova() of lm() per feature);
#   * on the first 500 genes, hsic_sbf_funcs with multivariate = TRUE and
#     FALSE (caret's default: one call of score() per feature, on a data
#     frame), which pick the same features at a different cost.
# Prints the minimum and median elapsed seconds of `reps` runs of each
# (default 3), the resampled accuracy and the number of features chosen.
#
#   Rscript inst/bench/bench-caret.R [LIB] [reps]
#
# The machine is shared: run when `uptime` shows a load below 1.
args <- commandArgs(trailingOnly = TRUE)
lib <- if (length(args) >= 1L) args[1L] else .libPaths()[1L]
reps <- if (length(args) >= 2L) as.integer(args[2L]) else 3L
suppressPackageStartupMessages({
  library(bahsic, lib.loc = lib)
  library(caret)
})
x <- golub$x
y <- golub$y
xd <- as.data.frame(x, optional = TRUE)
cat(sprintf("Golub: %d x %d; load before: %s\n", nrow(x), ncol(x),
            sub(".*average: ", "", system("uptime", intern = TRUE))))

knn <- list(method = "knn", tuneGrid = data.frame(k = 3),
            trControl = caret::trainControl(method = "none"))
folds <- function() {
  set.seed(1)
  caret::createFolds(y, k = 5, returnTrain = TRUE)
}

cases <- list(
  "rfe, bahsic_rfe_funcs" = function() {
    ctrl <- caret::rfeControl(functions = bahsic_rfe_funcs, index = folds())
    fit <- do.call(caret::rfe, c(list(x, y, sizes = c(2, 5, 10, 20, 50), rfeControl = ctrl), knn))
    best <- fit$results[fit$results$Variables == fit$optsize, ]
    c(accuracy = best$Accuracy, n = fit$optsize)
  },
  "sbf, hsic_sbf_funcs, multivariate" = function() {
    ctrl <- caret::sbfControl(functions = hsic_sbf_funcs, index = folds(), multivariate = TRUE)
    fit <- do.call(caret::sbf, c(list(x, y, sbfControl = ctrl), knn))
    c(accuracy = fit$results$Accuracy, n = length(fit$optVariables))
  },
  "sbf, caretSBF (anova per feature)" = function() {
    ctrl <- caret::sbfControl(functions = caret::caretSBF, index = folds())
    fit <- do.call(caret::sbf, c(list(xd, y, sbfControl = ctrl), knn))
    c(accuracy = fit$results$Accuracy, n = length(fit$optVariables))
  },
  "500 genes: sbf, hsic_sbf_funcs, multivariate" = function() {
    ctrl <- caret::sbfControl(functions = hsic_sbf_funcs, index = folds(), multivariate = TRUE)
    fit <- do.call(caret::sbf, c(list(xd[, 1:500], y, sbfControl = ctrl), knn))
    c(accuracy = fit$results$Accuracy, n = length(fit$optVariables))
  },
  "500 genes: sbf, hsic_sbf_funcs, per feature" = function() {
    ctrl <- caret::sbfControl(functions = hsic_sbf_funcs, index = folds())
    fit <- do.call(caret::sbf, c(list(xd[, 1:500], y, sbfControl = ctrl), knn))
    c(accuracy = fit$results$Accuracy, n = length(fit$optVariables))
  }
)

for (nm in names(cases)) {
  times <- numeric(reps)
  for (r in seq_len(reps)) {
    times[r] <- system.time(res <- cases[[nm]]())[["elapsed"]]
  }
  cat(sprintf("%-46s min %6.2f s  median %6.2f s  accuracy %.3f  features %d\n", nm,
              min(times), stats::median(times), res[["accuracy"]], as.integer(res[["n"]])))
}
