# mRMR with HSIC (mrmr(), the MID criterion of Peng, Long and Ding 2005),
# with every HSIC normalised (the default) and as it is (normalize = FALSE),
# beside fohsic() (Song et al. 2012, Algorithm 2), the per-feature HSIC
# ranking (feature_scores(method = "hsic"), relevance alone) and, where it
# is installed, praznik::MRMR() (mutual information on discretised data):
#
#   (a) the time of one selection of n_top features on all samples, 1 thread
#   (b) the overlap of those selections (features in common, of n_top)
#   (c) cross-validated error of a Gaussian SVM (C = 1, median width) on the
#       top n features of each selector, chosen on the training folds only
#       (evaluate_selection(), `folds` folds, 2 repeats), with the overlap
#       of the folds' lists
#   (d) for the two mrmr() arms on all samples: the share of the features
#       added after the first whose criterion was negative, the median over
#       them of their mean redundancy over their relevance (1 - contribution:
#       above 1, redundancy outweighs relevance) and the median rank of
#       their relevance among all features (1: the most relevant)
#
# on Golub (38 x 3051, ALL/AML) and, if the Bioconductor package ALL is
# installed, ALL B vs T (128 samples) and ALL's B-cell BCR/ABL vs NEG (79
# samples), each on its 1000 genes of largest variance (an unsupervised
# prefilter made once). The two families measure
# dependence differently (HSIC of kernels against mutual information of
# binned values), so only the errors, overlaps and times compare.
#
# Usage, after installing the package: Rscript inst/bench/bench-mrmr.R [n_top] [folds]

suppressPackageStartupMessages(library(bahsic))

options(width = 120)
args <- commandArgs(trailingOnly = TRUE)
n_top <- if (length(args) >= 1L) as.integer(args[1L]) else 20L
folds <- if (length(args) >= 2L) as.integer(args[2L]) else 5L
sizes <- sort(unique(c(5L, 10L, n_top)))
has_praznik <- requireNamespace("praznik", quietly = TRUE)
cat(sprintf("praznik: %s\n", if (has_praznik) {
  as.character(utils::packageVersion("praznik"))
} else {
  "not installed (left out)"
}))

# the selectors as functions of (x, y, n): names of the n selected, best first
selectors <- list(
  mrmr = function(x, y, n) mrmr(x, y, n_features = n, threads = 1L)$ranking,
  "mrmr (normalize = FALSE)" = function(x, y, n) {
    mrmr(x, y, n_features = n, normalize = FALSE, threads = 1L)$ranking
  },
  fohsic = function(x, y, n) fohsic(x, y, n_features = n, threads = 1L)$ranking,
  hsic = function(x, y, n) {
    top_features(feature_scores(x, y, method = "hsic", threads = 1L), n = n)$feature
  }
)
if (has_praznik) {
  selectors$praznik <- function(x, y, n) {
    names(praznik::MRMR(as.data.frame(x), y, k = n, threads = 1L)$selection)
  }
}

bench_data <- function(name, x, y) {
  cat(sprintf("\n==== %s: %d samples x %d genes (%s) ====\n", name, nrow(x), ncol(x),
              paste(names(table(y)), table(y), sep = " ", collapse = ", ")))
  picks <- list()
  times <- numeric()
  for (s in names(selectors)) {
    t0 <- proc.time()[["elapsed"]]
    picks[[s]] <- selectors[[s]](x, y, n_top)
    times[[s]] <- proc.time()[["elapsed"]] - t0
  }
  cat(sprintf("(a) seconds for %d features on all samples (1 thread):\n", n_top))
  print(round(times, 3))
  ov <- outer(names(picks), names(picks),
              Vectorize(function(a, b) length(intersect(picks[[a]], picks[[b]]))))
  dimnames(ov) <- list(names(picks), names(picks))
  cat(sprintf("(b) features in common among the top %d:\n", n_top))
  print(ov)
  sel <- lapply(selectors, function(f) {
    force(f)
    function(x, y) f(x, y, max(sizes))
  })
  set.seed(1)
  t0 <- proc.time()[["elapsed"]]
  ev <- evaluate_selection(x, y, selectors = sel, n_features = sizes, folds = folds,
                           repeats = 2, tune = list(C = 1, sigma = "median"), threads = 1L)
  cat(sprintf("(c) %d-fold cross-validation (%.1f s):\n", folds,
              proc.time()[["elapsed"]] - t0))
  print(ev)
  cat(sprintf("(d) the criterion of the features added after the first (top %d):\n", n_top))
  print(mrmr_balance(x, y))
  invisible(list(picks = picks, times = times, evaluation = ev))
}

# (d): how relevance and redundancy weigh in the two mrmr() arms
mrmr_balance <- function(x, y) {
  rows <- lapply(c(TRUE, FALSE), function(normalize) {
    fit <- mrmr(x, y, n_features = n_top, normalize = normalize, threads = 1L)
    f <- fit$features
    added <- f[!is.na(f$rank) & f$rank > 1L, ]
    data.frame(normalize = normalize, negative = mean(added$score < 0),
               redundancy_over_relevance = stats::median(1 - added$contribution),
               relevance_rank = stats::median(rank(-f$relevance)[!is.na(f$rank)]))
  })
  do.call(rbind, rows)
}

gx <- golub$x
bench_data("Golub", gx, golub$y)

if (requireNamespace("ALL", quietly = TRUE) && requireNamespace("Biobase", quietly = TRUE)) {
  data("ALL", package = "ALL", envir = environment())
  xa <- t(Biobase::exprs(ALL))
  ya <- factor(substr(ALL$BT, 1, 1))
  top_var <- function(x) x[, order(-apply(x, 2, stats::var))[1:1000]]
  bench_data("ALL B vs T, 1000 genes of largest variance", top_var(xa), ya)
  b <- substr(ALL$BT, 1, 1) == "B" & ALL$mol.biol %in% c("BCR/ABL", "NEG")
  bench_data("ALL B-cell BCR/ABL vs NEG, 1000 genes of largest variance", top_var(xa[b, ]),
             factor(ALL$mol.biol[b]))
} else {
  cat("\nALL (Bioconductor) is not installed: left out\n")
}
