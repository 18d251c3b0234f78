# The per-feature tests of independence of feature_scores()' kernel methods
# (kernel_block_scorer(), R/scores-kernel.R; src/kernel_test.c):
#
# 1. Calibration of the gamma p-values (the gamma with the exact permutation
#    mean and variance of tr(K H L H), Kazi-Aoual et al. 1995): 2,000 null
#    genes, independent of the outcome, N(0, 1) ("normal") or exp(N(0, 1))
#    ("lognormal"), for m = 10, 20, 40, 60, 100, 200 samples, Gaussian and
#    Laplace kernels with the per-feature median heuristic, and a two-class
#    outcome with balanced classes, unbalanced ones (a quarter in the first)
#    or a numeric N(0, 1) outcome. Per cell: the Kolmogorov-Smirnov distance D
#    of the p-values from the uniform (for 2,000 uniform p-values, D exceeds
#    0.030 with probability 0.05) and the fraction below 0.05.
# 2. Cost: on ALL (Chiaretti et al. 2004; 128 x 12,625, B vs T lineage) and
#    the package's golub (38 x 3,051), method = "hsic", Gaussian kernel: the
#    time of the scores alone (score_s: the median-heuristic width per
#    feature, width_s, then C_feature_dot, dot_s) and of the scores with their
#    gamma p-values as feature_scores() makes them (both_s: the widths, then
#    C_feature_hsic_test, which gives the score from the kernel it makes for
#    the test) on the whole matrix, the ratio both / score (what the p-values
#    add), and the time of 100 permutations on 500 genes. Each time is the
#    best and the median of `reps` runs (best_*, med_*); the load average is
#    printed (the machine is shared: run it at a load < 1).
#
# Run after installing the package:
#   Rscript inst/bench/bench-kernel-test.R [reps] [threads] [all|calibration|cost]

suppressPackageStartupMessages(library(bahsic))
ns <- asNamespace("bahsic")
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args) >= 1L) as.integer(args[1L]) else 5L
threads <- if (length(args) >= 2L) as.integer(args[2L]) else 1L
part <- if (length(args) >= 3L) match.arg(args[3L], c("all", "calibration", "cost")) else "all"

ks_d <- function(p) unname(suppressWarnings(stats::ks.test(p, "punif")$statistic))

if (part %in% c("all", "calibration")) {
  cat("== calibration: 2,000 null genes per cell ==\n")
  set.seed(2008)
  rows <- list()
  for (m in c(10L, 20L, 40L, 60L, 100L, 200L)) {
    outcomes <- list(balanced = factor(rep(c("a", "b"), each = m / 2)),
                     unbalanced = factor(rep(c("a", "b"), c(m %/% 4, m - m %/% 4))),
                     numeric = rnorm(m))
    for (kname in c("gaussian", "laplace")) {
      kernel <- if (kname == "gaussian") kernel_gaussian() else kernel_laplace()
      for (gname in c("normal", "lognormal")) {
        x <- matrix(rnorm(m * 2000L), m)
        if (gname == "lognormal") x <- exp(x)
        for (oname in names(outcomes)) {
          p <- ns$kernel_block_scorer(outcomes[[oname]], m, "hsic", kernel, NULL, "biased",
                                      threads)(x)$p_value
          rows[[length(rows) + 1L]] <- data.frame(m = m, kernel = kname, genes = gname,
                                                  outcome = oname, D = round(ks_d(p), 4),
                                                  p05 = round(mean(p < 0.05), 4))
        }
      }
    }
  }
  cal <- do.call(rbind, rows)
  print(cal, row.names = FALSE)
  cat("\nworst D per m:\n")
  print(tapply(cal$D, cal$m, max))
  cat("worst |P(p < 0.05) - 0.05| per m:\n")
  print(tapply(abs(cal$p05 - 0.05), cal$m, max))
}

# the cost of the p-values next to the score pass, as feature_dot_scorer()
# runs them on a block (here the whole matrix)
cost <- function(name, x, y, reps) {
  m <- nrow(x)
  x <- x[, apply(x, 2L, stats::var) > 0, drop = FALSE]
  kernel <- kernel_gaussian()
  # best and median elapsed time of reps runs
  times <- function(f) {
    t <- vapply(seq_len(reps), function(i) system.time(f())[["elapsed"]], double(1))
    c(best = min(t), med = stats::median(t))
  }
  lab <- ns$label_gram(default_label_kernel(y), y, threads)
  W <- ns$weight_matrix(lab, m, "biased")
  test <- ns$test_label_side(if (is.null(lab$Y)) lab$L else tcrossprod(lab$Y), m)
  b <- .Call(ns$C_scale_columns, x, threads)
  opts <- list(kernel = ns$kernel_code(kernel), p1 = ns$feature_sigmas("gaussian", b, threads), p2 = 0,
               threads = threads, simd = ns$option_simd())
  constant <- rep(FALSE, ncol(b))
  t_width <- times(function() ns$feature_sigmas("gaussian", .Call(ns$C_scale_columns, x, threads), threads))
  t_dot <- times(function() .Call(ns$C_feature_dot, b, W, opts))
  # the score pass as a block of feature_scores() runs it
  t_score <- times(function() {
    bs <- .Call(ns$C_scale_columns, x, threads)
    .Call(ns$C_feature_dot, bs, W, utils::modifyList(opts, list(p1 = ns$feature_sigmas("gaussian", bs, threads))))
  })
  # the scores with their p-values, as a block of feature_scores() runs them
  t_both <- times(function() {
    bs <- .Call(ns$C_scale_columns, x, threads)
    o <- utils::modifyList(opts, list(p1 = ns$feature_sigmas("gaussian", bs, threads)))
    ns$feature_dot_tested(bs, W, o, test, constant)
  })
  # 100 permutations on the first 500 genes
  set.seed(1)
  tp <- test
  tp$Wt <- W
  tp$perms <- matrix(vapply(1:100, function(i) sample.int(m), integer(m)) - 1L, nrow = m)
  o500 <- opts
  o500$p1 <- opts$p1[1:500]
  t_perm <- times(function() ns$feature_dot_tested(b[, 1:500], W, o500, tp, constant[1:500]))
  data.frame(data = name, m = m, genes = ncol(x), threads = threads,
             width_s = t_width[["best"]], dot_s = t_dot[["best"]],
             best_score_s = t_score[["best"]], best_both_s = t_both[["best"]],
             best_ratio = round(t_both[["best"]] / t_score[["best"]], 2),
             med_score_s = t_score[["med"]], med_both_s = t_both[["med"]],
             med_ratio = round(t_both[["med"]] / t_score[["med"]], 2),
             perm100_500genes_s = t_perm[["best"]])
}

if (part %in% c("all", "cost")) {
  cat("\n== cost (best and median of", reps, "runs), load:", readLines("/proc/loadavg"), "==\n")
  res <- list(cost("golub", golub$x, golub$y, reps))
  if (requireNamespace("ALL", quietly = TRUE)) {
    e <- new.env()
    utils::data("ALL", package = "ALL", envir = e)
    res[[2]] <- cost("ALL", t(Biobase::exprs(e$ALL)), factor(substr(e$ALL$BT, 1, 1)), reps)
  }
  print(do.call(rbind, res), row.names = FALSE)
  cat("load after:", readLines("/proc/loadavg"), "\n")
}
