# Mixed-data feature selection (003_6ec3b1f7786f1d71.txt) on a real clinical
# data set: MASS::birthwt (189 births, outcome low birth weight < 2.5 kg,
# 59 low / 130 normal; bwt, the weight itself, left out). Features: age and
# lwt (mother's weight) continuous; race (3 levels), smoke, ht
# (hypertension), ui (uterine irritability) categorical; ptl (previous
# premature labours, 0-3) and ftv (physician visits, 0-6) counts, taken as
# continuous. MASS is a recommended package, so the data are always there.
#
# Repeated stratified 5-fold cross-validation. In every training fold each
# method ranks the 8 features; an SVM on the clinical kernel of the top 5
# (kernlab, C = 1, classes weighted by 1 / size so that the minority class
# counts) is trained on the fold and scored on the test fold by BCR, the
# paper's measure. Stability: Kuncheva's index of the top-5 sets over all
# folds. Methods:
#   rfe_svm        rfe(importance = "svm"), eq. 5-7 as written (j_svm = "paper")
#   rfe_svm_share  rfe(importance = "svm", j_svm = "share"), J = q_f / s
#   rfe_mkl        rfe(importance = "mkl") (only with the argument mkl; slow)
#   bahsic         bahsic(kernel = kernel_clinical())
#   t_fisher       baseline: p-values of Welch's t-test (continuous) and
#                  Fisher's exact test (categorical), one ranking by p-value
#   all            all 8 features (no selection), for reference
#
# Usage, after installing the package (with kernlab):
#   Rscript inst/bench/bench-clinical.R [repeats] [mkl]
# e.g. Rscript inst/bench/bench-clinical.R 10

suppressPackageStartupMessages({
  library(bahsic)
  library(kernlab)
})

args <- commandArgs(trailingOnly = TRUE)
repeats <- if (length(args) >= 1L) as.integer(args[1L]) else 10L
with_mkl <- length(args) >= 2L && args[2L] == "mkl"
stopifnot(!is.na(repeats), repeats >= 1L)
k_top <- 5L

bw <- MASS::birthwt
bw$race <- factor(bw$race, labels = c("white", "black", "other"))
for (v in c("smoke", "ht", "ui")) bw[[v]] <- factor(bw[[v]], labels = c("no", "yes"))
x <- bw[c("age", "lwt", "race", "smoke", "ptl", "ht", "ui", "ftv")]
y <- factor(bw$low, labels = c("normal", "low"))
categorical <- vapply(x, is.factor, logical(1))
cat(sprintf("birthwt: %d samples x %d features (%d continuous, %d categorical); %s\n",
            nrow(x), ncol(x), sum(!categorical), sum(categorical),
            paste(sprintf("%s = %d", levels(y), tabulate(y)), collapse = ", ")))

t_fisher_ranking <- function(x, y) {
  p <- vapply(names(x), function(f) {
    v <- x[[f]]
    if (is.factor(v)) stats::fisher.test(table(v, y))$p.value
    else stats::t.test(v ~ y)$p.value
  }, numeric(1))
  names(x)[order(p, seq_along(p))]
}

rankers <- list(
  rfe_svm = function(x, y) selected(rfe(x, y, importance = "svm")),
  rfe_svm_share = function(x, y) selected(rfe(x, y, importance = "svm", j_svm = "share")),
  bahsic = function(x, y) selected(bahsic(x, y, kernel = kernel_clinical())),
  t_fisher = t_fisher_ranking,
  all = function(x, y) names(x)
)
if (with_mkl) {
  rankers <- append(rankers, list(rfe_mkl = function(x, y) {
    selected(rfe(x, y, importance = "mkl"))
  }), after = 2L)
}

# SVM on the clinical kernel of the chosen features, ranges and levels from
# the training fold
svm_bcr <- function(train, test, feats) {
  K <- unclass(kernel_matrix(kernel_clinical(), x[train, feats, drop = FALSE]))
  attr(K, "kernel") <- NULL
  w <- stats::setNames(length(train) / (2 * tabulate(y[train])), levels(y))
  fit <- ksvm(as.kernelMatrix(K), y[train], type = "C-svc", C = 1, class.weights = w)
  Kt <- bahsic:::clinical_cross(x[test, feats, drop = FALSE], x[train, feats, drop = FALSE])
  pred <- predict(fit, as.kernelMatrix(Kt[, SVindex(fit), drop = FALSE]))
  as.numeric(bcr(y[test], pred))
}

folds_of <- function(seed) {
  set.seed(seed)
  f <- integer(length(y))
  for (lev in levels(y)) {
    idx <- which(y == lev)
    f[idx] <- sample(rep_len(1:5, length(idx)))
  }
  f
}

res <- list()
rankings <- stats::setNames(vector("list", length(rankers)), names(rankers))
secs <- stats::setNames(numeric(length(rankers)), names(rankers))
for (r in seq_len(repeats)) {
  folds <- folds_of(r)
  for (k in 1:5) {
    train <- which(folds != k)
    test <- which(folds == k)
    for (nm in names(rankers)) {
      t0 <- proc.time()[["elapsed"]]
      ranking <- rankers[[nm]](x[train, ], y[train])
      secs[nm] <- secs[nm] + proc.time()[["elapsed"]] - t0
      feats <- if (nm == "all") names(x) else ranking[seq_len(k_top)]
      rankings[[nm]] <- c(rankings[[nm]], list(ranking))
      res[[length(res) + 1L]] <- data.frame(method = nm, rep = r, fold = k,
                                            bcr = svm_bcr(train, test, feats))
    }
  }
}
res <- do.call(rbind, res)

cat(sprintf("\n%d x 5-fold CV; SVM (clinical kernel, C = 1, balanced class weights) on the top %d features\n",
            repeats, k_top))
cat(sprintf("%-14s %8s %8s %10s %12s  %s\n", "method", "BCR", "sd", "Kuncheva", "s/ranking",
            "top 5 most often chosen"))
for (nm in names(rankers)) {
  b <- res$bcr[res$method == nm]
  ki <- if (nm == "all") NA else kuncheva_index(rankings[[nm]], k = k_top, n_features = ncol(x))
  tops <- table(unlist(lapply(rankings[[nm]], `[`, seq_len(k_top))))
  top <- names(sort(tops, decreasing = TRUE))[seq_len(k_top)]
  cat(sprintf("%-14s %8.3f %8.3f %10s %12.4f  %s\n", nm, mean(b), stats::sd(b),
              if (is.na(ki)) "-" else sprintf("%.3f", ki),
              secs[[nm]] / (5 * repeats), if (nm == "all") "-" else paste(top, collapse = ", ")))
}
full <- rfe(x, y)
cat("\nrfe(importance = \"svm\") on all 189 births, ranking: ",
    paste(selected(full), collapse = ", "), "\n", sep = "")
cat("rfe(importance = \"svm\", j_svm = \"share\"):          ",
    paste(selected(rfe(x, y, j_svm = "share")), collapse = ", "), "\n", sep = "")
cat("t / Fisher baseline:                            ",
    paste(t_fisher_ranking(x, y), collapse = ", "), "\n", sep = "")
