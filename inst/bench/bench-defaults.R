# The measurements behind the defaults of feature_scores() (the method for
# each kind of outcome) and of the HSIC estimators (hsic() unbiased, the
# selectors and per-feature scores biased).
#
#   Rscript inst/bench/bench-defaults.R [reps]      (reps: simulated data sets, default 20)
#
# (1) Two classes: which per-gene statistic finds the differentially expressed
#     genes. Simulated arrays in the setting of Smyth (2004): 2,000 genes, 100
#     of them shifted, gene-wise variances drawn from a scaled inverse
#     chi-square (d0 = 4), 3, 5 and 10 samples per class; the precision of each
#     method's top 100 (the fraction that are truly shifted). Then real data
#     (Golub; ALL BCR/ABL vs NEG, 79 arrays): 5-fold x 2 cross-validated error
#     of a Gaussian SVM on the top 10 and 20 genes, and the Kuncheva stability
#     of the top lists across folds (evaluate_selection(); needs kernlab).
# (2) Several classes: three classes of 4, 8 or 15 samples, 100 of 2,000 genes
#     with one class shifted; and ALL's B-lineage stages B1-B4 (90 arrays).
# (3) A numeric outcome: 2,000 genes, 50 related to the outcome linearly,
#     monotonically (exp) or not monotonically (a quadratic), m = 20 and 60.
# (4) The HSIC estimators: the bias of HSIC0 and HSIC1 at m = 10 ... 400 on
#     independent and on dependent data (against m = 4,000), and the precision
#     of per-feature HSIC with each (the bias does not matter for ranking).
# The figures are quoted in ?feature_scores and ?hsic.

suppressPackageStartupMessages(library(bahsic))
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args)) as.integer(args[1L]) else 20L
options(bahsic.threads = 1L)
quiet <- function(expr) suppressWarnings(suppressMessages(expr))

# precision of the top k of feature_scores(method) for the true features
top_precision <- function(x, y, method, truth, k = length(truth), ...) {
  s <- quiet(feature_scores(x, y, method = method, ...))
  mean(s$feature[order(s$rank)][seq_len(k)] %in% truth)
}

# Smyth (2004)'s simulation: sigma_g^2 = d0 s0^2 / chi2_d0, 100 genes shifted
# by +-2 sigma-free units (a log fold change of 2 in half of them, -2 in the rest)
sim_two <- function(n, d = 2000, n_de = 100, d0 = 4, s0 = 0.5, lfc = 1.5) {
  s2 <- d0 * s0^2 / stats::rchisq(d, d0)
  x <- matrix(stats::rnorm(2 * n * d, sd = rep(sqrt(s2), each = 2 * n)), 2 * n, d)
  de <- seq_len(n_de)
  x[seq_len(n), de] <- x[seq_len(n), de] + rep(sample(c(-1, 1) * lfc, n_de, TRUE), each = n)
  colnames(x) <- paste0("g", seq_len(d))
  list(x = x, y = factor(rep(c("a", "b"), each = n)), truth = colnames(x)[de])
}

sim_multi <- function(n, d = 2000, n_de = 100, d0 = 4, s0 = 0.5, lfc = 1.5) {
  s2 <- d0 * s0^2 / stats::rchisq(d, d0)
  x <- matrix(stats::rnorm(3 * n * d, sd = rep(sqrt(s2), each = 3 * n)), 3 * n, d)
  de <- seq_len(n_de)
  cls <- sample(3L, n_de, replace = TRUE)     # the class each gene marks
  for (j in de) x[(cls[j] - 1L) * n + seq_len(n), j] <- x[(cls[j] - 1L) * n + seq_len(n), j] + lfc
  colnames(x) <- paste0("g", seq_len(d))
  list(x = x, y = factor(rep(c("a", "b", "c"), each = n)), truth = colnames(x)[de])
}

sim_numeric <- function(m, shape, d = 2000, n_rel = 50) {
  y <- stats::rnorm(m)
  x <- matrix(stats::rnorm(m * d), m, d)
  f <- switch(shape, linear = y, monotone = exp(y), quadratic = y^2)
  f <- (f - mean(f)) / stats::sd(f)
  x[, seq_len(n_rel)] <- x[, seq_len(n_rel)] + 0.8 * f
  colnames(x) <- paste0("g", seq_len(d))
  list(x = x, y = y, truth = colnames(x)[seq_len(n_rel)])
}

# the mean precision of `methods` over `reps` data sets sim() draws, seeded
mean_precision <- function(seed, sim, methods) {
  set.seed(seed)
  prec <- vapply(seq_len(reps), function(r) {
    s <- sim()
    vapply(methods, function(mm) top_precision(s$x, s$y, mm, s$truth), 0)
  }, numeric(length(methods)))
  t(round(rowMeans(prec), 3))
}

table_of <- function(rows) {
  out <- do.call(rbind, rows)
  rownames(out) <- NULL
  out
}

cat(sprintf("bahsic %s, %d simulated data sets per setting\n\n",
            utils::packageVersion("bahsic"), reps))

# ---- (1) two classes ----------------------------------------------------------
two_methods <- c("mt", "t", "pc", "snr", "lin", "hsic")
cat("(1) Two classes, simulated (Smyth 2004 setting): precision of the top 100\n")
rows <- list()
for (n in c(3L, 5L, 10L)) {
  rows[[length(rows) + 1L]] <- data.frame(per_class = n, mean_precision(
    100 + n, function() sim_two(n), two_methods))
}
print(table_of(rows), row.names = FALSE)

have_real <- requireNamespace("kernlab", quietly = TRUE)
if (have_real) {
  real_two <- list(golub = list(x = golub$x, y = golub$y))
  if (requireNamespace("ALL", quietly = TRUE)) {
    env <- new.env()
    utils::data("ALL", package = "ALL", envir = env)
    all <- env$ALL
    keep <- all$mol.biol %in% c("BCR/ABL", "NEG")
    real_two$ALL_BCR_NEG <- list(x = t(Biobase::exprs(all)[, keep]),
                                 y = factor(all$mol.biol[keep]))
    b <- grepl("^B[1-4]$", all$BT)
    real_multi <- list(ALL_B1_B4 = list(x = t(Biobase::exprs(all)[, b]),
                                        y = factor(all$BT[b])))
  }
  cat("\n    Real data: 5-fold x 2 CV error of an SVM on the top genes, and stability\n")
  eval_real <- function(data, methods) {
    rows <- list()
    for (nm in names(data)) {
      set.seed(7)
      ev <- quiet(evaluate_selection(data[[nm]]$x, data[[nm]]$y, selectors = methods,
                                     n_features = c(10, 20), folds = 5, repeats = 2,
                                     tune = list(C = 100, sigma = "median")))
      s <- summary(ev)
      st <- stats::aggregate(kuncheva ~ selector + n_features, ev$stability, mean)
      s <- merge(s[c("selector", "n_features", "error", "balanced_error")], st)
      rows[[nm]] <- data.frame(data = nm, s)
    }
    out <- table_of(rows)
    out[order(out$data, out$n_features, out$balanced_error), ]
  }
  print(eval_real(real_two, two_methods), row.names = FALSE, digits = 3)
}

# ---- (2) several classes ------------------------------------------------------
multi_methods <- c("pam", "hsic", "kta")
cat("\n(2) Three classes, simulated: precision of the top 100\n")
rows <- list()
for (n in c(4L, 8L, 15L)) {
  rows[[length(rows) + 1L]] <- data.frame(per_class = n, mean_precision(
    200 + n, function() sim_multi(n), multi_methods))
}
print(table_of(rows), row.names = FALSE)
if (have_real && exists("real_multi")) {
  cat("    Real data:\n")
  print(eval_real(real_multi, multi_methods), row.names = FALSE, digits = 3)
}

# ---- (3) numeric outcome ------------------------------------------------------
num_methods <- c("pc", "hsic")
cat("\n(3) Numeric outcome, simulated: precision of the top 50\n")
rows <- list()
for (shape in c("linear", "monotone", "quadratic")) {
  for (m in c(20L, 60L)) {
    rows[[length(rows) + 1L]] <- data.frame(shape = shape, m = m, mean_precision(
      300 + m, function() sim_numeric(m, shape), num_methods))
  }
}
print(table_of(rows), row.names = FALSE)

# ---- (4) the estimators -------------------------------------------------------
cat("\n(4) HSIC estimators: mean over data sets (Gaussian kernels, median widths)\n")
set.seed(400)
big <- 4000L
dep_x <- function(m) {
  z <- stats::rnorm(m)
  list(x = cbind(z + stats::rnorm(m, sd = 0.5), stats::rnorm(m)), y = z^2 + stats::rnorm(m, sd = 0.3))
}
ref <- dep_x(big)
# the population value of the dependent pair, from one large sample
truth <- hsic(ref$x, ref$y, estimator = "unbiased")$estimate
rows <- list()
for (m in c(10L, 20L, 50L, 100L, 400L)) {
  ind <- t(vapply(seq_len(reps), function(r) {
    h <- hsic(matrix(stats::rnorm(m * 2), m, 2), stats::rnorm(m), estimator = "unbiased")
    c(h$hsic0, h$hsic1)
  }, numeric(2)))
  dep <- t(vapply(seq_len(reps), function(r) {
    d <- dep_x(m)
    h <- hsic(d$x, d$y, estimator = "unbiased")
    c(h$hsic0, h$hsic1)
  }, numeric(2)))
  rows[[length(rows) + 1L]] <- data.frame(
    m = m, independent_HSIC0 = mean(ind[, 1]), independent_HSIC1 = mean(ind[, 2]),
    dependent_HSIC0_over_truth = mean(dep[, 1]) / truth,
    dependent_HSIC1_over_truth = mean(dep[, 2]) / truth)
}
print(table_of(rows), row.names = FALSE, digits = 3)
cat(sprintf("    (truth: HSIC1 at m = %d, %.4g)\n", big, truth))

cat("\n    Per-feature HSIC ranking with each estimator (two classes, 5 per class): precision of the top 100\n")
set.seed(401)
prec <- vapply(seq_len(reps), function(r) {
  s <- sim_two(5L)
  c(biased = top_precision(s$x, s$y, "hsic", s$truth, estimator = "biased"),
    unbiased = top_precision(s$x, s$y, "hsic", s$truth, estimator = "unbiased"))
}, numeric(2))
print(round(rowMeans(prec), 3))
