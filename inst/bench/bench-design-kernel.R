# Kernel dependence given covariates: the three ways of adjusting a kernel
# test for a study design, measured on confounded null genes and on planted
# non-linear effects.
#
#   (a) label-side projection with the data kernel on the raw features:
#                  T = tr(K P L P), P = I - Q Q' on span{1, covariates}; gamma
#                  p-values from the free-permutation moments of the
#                  residualised pair (P K P, P L P) (plain R below).
#   (a+) the package's choice (feature_scores(method = "hsic", covariates = )):
#                  the same with the features residualised first (K on P x);
#                  gamma moments: for classes within strata those of 200
#                  permutations within the strata, otherwise the free
#                  permutations' of the residualised pair; and n_perm
#                  permutations within the strata.
#   (b) "strata":  HSIC stratified within the levels of a discrete covariate,
#                  T = sum_s tr(K_s H L_s H); gamma with the exact mean and
#                  variance of the within-stratum permutations (the sum of
#                  each stratum's Kazi-Aoual moments). A continuous z is cut
#                  into 5 strata at its quintiles.
#   (c) "kci":     residuals in the kernel space (the idea of Zhang, Peters,
#                  Janzing and Schoelkopf 2011): R = eps (K_z + eps I)^-1
#                  (kernel ridge regression on a Gaussian kernel of the
#                  covariates, median width, eps = 1e-3 as in their code),
#                  T = tr(R Kc R R Lc R); gamma with the permutation moments of
#                  the residualised pair (their own null is a weighted sum of
#                  chi-squares; the moments are the same kind as (a)'s).
#   "none":        the unadjusted per-gene test (feature_scores(method = "hsic")).
#
# Calibration: null genes x and an outcome y that both depend on the
# covariate, with x independent of y given it:
#   batch:  4 batches of m / 4; x_j = batch mean (N(0, 1) per batch and gene,
#           times 1.5) + N(0, 1); y two classes with P(class 2) = 0.2, 0.4,
#           0.6, 0.8 in the batches.
#   zlin:   z ~ N(0, 1); x_j = z + N(0, 1); y = z + N(0, 1) (numeric).
#   pairs:  m / 2 patients with one sample of each class; x_j = patient mean
#           (N(0, 3^2)) + N(0, 1); adjusted with block = patient.
#   zsq:    x_j = z^2 + N(0, 1); y = z^2 + N(0, 1), adjusted for ~ z (the
#           projection covers effects linear in the covariates' columns only)
#           and for ~ poly(z, 2).
# Per cell: the Kolmogorov-Smirnov distance D from the uniform and P(p < 0.05)
# (criteria: D < 0.06 and P within 0.02 of 0.05).
# Power (fraction of p < 0.05 over `reps` data sets, batch design as above):
#   u:    one gene with a U-shaped (variance) effect within the batches: class 1
#         N(0, 1), class 2 +-1.5 + N(0, 0.5^2), plus the batch mean;
#   xor:  a pair (x1, x2), y = xor(x1 > batch mean, x2 > batch mean), 10% of
#         labels flipped; the pair tested jointly (2-d Gaussian kernel).
# Gaussian kernels with the median heuristic throughout; binary label kernel
# for classes, Gaussian for the numeric y.
#
# Run after installing the package:
#   Rscript inst/bench/bench-design-kernel.R [quick|full]
# quick: 300 null genes, m = 60, 100 power data sets (10 s); full: 2,000 null
# genes, m = 100, 200 power data sets (about a minute on one core). The
# criteria are meant for full mode: for 300 exactly uniform p-values D
# exceeds 0.078 with probability 0.05 (0.030 for 2,000), and the genes of a
# scenario share one outcome, so quick mode's `pass` column is only a smoke
# test.

suppressPackageStartupMessages(library(bahsic))
ns <- asNamespace("bahsic")
args <- commandArgs(trailingOnly = TRUE)
mode <- match.arg(if (length(args)) args[1L] else "quick", c("quick", "full"))
n_genes <- if (mode == "full") 2000L else 300L
m <- if (mode == "full") 100L else 60L
reps <- if (mode == "full") 200L else 100L

ks_d <- function(p) unname(suppressWarnings(stats::ks.test(p, "punif")$statistic))
summ <- function(p) c(D = ks_d(p), p05 = mean(p < 0.05))

gauss <- function(v) {
  v <- as.matrix(v)
  d2 <- as.matrix(stats::dist(v))^2
  med <- stats::median(d2[upper.tri(d2)])
  exp(-d2 / med)
}
centre <- function(K) {
  r <- rowMeans(K)
  K - outer(r, r, "+") + mean(r)
}
label_gram <- function(y) {
  if (is.factor(y)) {
    Y <- outer(as.integer(y), seq_len(nlevels(y)), `==`) * 1
    Y <- sweep(Y, 2L, sqrt(colSums(Y)), "/")
    return(tcrossprod(Y))
  }
  gauss(y)
}
gamma_p <- function(stat, mean, var) {
  if (!is.finite(var) || var <= 0 || mean <= 0) return(NA_real_)
  stats::pgamma(stat, shape = mean^2 / var, scale = var / mean, lower.tail = FALSE)
}

# the feature sets tested: the columns of a matrix one by one, or a list of sets
feature_sets <- function(x) {
  if (is.list(x)) x else lapply(seq_len(ncol(x)), function(j) x[, j, drop = FALSE])
}

# (b) stratified: per stratum the exact moments of tr(A pi B pi'), summed
strata_p <- function(x, L, strata) {
  idx <- split(seq_along(strata), strata)
  Ls <- lapply(idx, function(i) centre(L[i, i]))
  vapply(feature_sets(x), function(g) {
    stat <- 0; mu <- 0; v <- 0
    for (s in seq_along(idx)) {
      i <- idx[[s]]
      Kc <- centre(gauss(g[i, , drop = FALSE]))
      stat <- stat + sum(Kc * Ls[[s]])
      mo <- ns$perm_moments(Kc, Ls[[s]])
      mu <- mu + mo[["mean"]]
      v <- v + mo[["var"]]
    }
    gamma_p(stat, mu, v)
  }, NA_real_)
}

# (c) kernel-space residuals
kci_p <- function(x, L, zmat, eps = 1e-3) {
  Kz <- centre(gauss(scale(zmat)))
  R <- eps * solve(Kz + eps * diag(nrow(Kz)))
  Lr <- R %*% centre(L) %*% R
  vapply(feature_sets(x), function(g) {
    Kr <- R %*% centre(gauss(g)) %*% R
    mo <- ns$perm_moments(Kr, Lr)
    gamma_p(sum(Kr * Lr), mo[["mean"]], mo[["var"]])
  }, NA_real_)
}
# (c) on a 2-d feature set
kci_p_set <- function(xs, L, zmat) kci_p(list(xs), L, zmat)

label_p <- function(x, y, cov, n_perm = NULL) {
  feature_scores(x, y, method = "hsic", covariates = cov, n_perm = n_perm, adjust = "none")$p_value
}
# (a) with the kernel on the raw features (the first candidate): W = P L(P y) P,
# T = tr(P K P W), gamma with the permutation moments of (P K P, W)
label_raw_p <- function(x, y, Z) {
  Q <- qr.Q(qr(cbind(1, Z)))
  P <- diag(nrow(Q)) - tcrossprod(Q)
  if (!is.factor(y)) y <- drop(P %*% y)
  W <- P %*% label_gram(y) %*% P
  vapply(feature_sets(x), function(g) {
    Kr <- P %*% gauss(g) %*% P
    mo <- ns$perm_moments(Kr, W)
    gamma_p(sum(Kr * W), mo[["mean"]], mo[["var"]])
  }, NA_real_)
}
none_p <- function(x, y) feature_scores(x, y, method = "hsic", adjust = "none")$p_value

row_of <- function(scenario, method, p) {
  s <- summ(p)
  data.frame(scenario = scenario, method = method, D = round(s[["D"]], 4),
             p05 = round(s[["p05"]], 4),
             pass = s[["D"]] < 0.06 && abs(s[["p05"]] - 0.05) <= 0.02)
}

set.seed(2011)
cat(sprintf("== calibration: %d null genes, m = %d ==\n", n_genes, m))
rows <- list()
batch <- factor(rep(1:4, each = m / 4))
t0 <- proc.time()[["elapsed"]]
# batch
mu <- matrix(rnorm(4 * n_genes, sd = 1.5), 4)
x <- mu[as.integer(batch), ] + matrix(rnorm(m * n_genes), m)
y <- factor(rbinom(m, 1, c(0.2, 0.4, 0.6, 0.8)[batch]), labels = c("a", "b"))
L <- label_gram(y)
rows[[length(rows) + 1L]] <- row_of("batch", "none", none_p(x, y))
Zb <- model.matrix(~ batch)[, -1]
rows[[length(rows) + 1L]] <- row_of("batch", "(a) label, raw x", label_raw_p(x, y, Zb))
rows[[length(rows) + 1L]] <- row_of("batch", "(a+) label and x (package)", label_p(x, y, batch))
rows[[length(rows) + 1L]] <- row_of("batch", "(a+) 200 perms within batches",
                                    label_p(x, y, batch, n_perm = 200L))
rows[[length(rows) + 1L]] <- row_of("batch", "(b) strata", strata_p(x, L, batch))
rows[[length(rows) + 1L]] <- row_of("batch", "(c) kci", kci_p(x, L, Zb))
# pairs: m / 2 patients, one sample of each class per patient; x_j = patient
# mean (N(0, 3^2)) + N(0, 1); adjusted with block = patient (the package's
# gamma, and 200 permutations within the pairs)
patient <- factor(rep(seq_len(m / 2), each = 2))
x <- matrix(rnorm(m / 2 * n_genes, sd = 3), m / 2)[as.integer(patient), ] +
  matrix(rnorm(m * n_genes), m)
y <- factor(rep(c("n", "t"), m / 2))
rows[[length(rows) + 1L]] <- row_of("pairs", "none", none_p(x, y))
rows[[length(rows) + 1L]] <- row_of("pairs", "(a+) package, block (gamma)", feature_scores(
  x, y, method = "hsic", block = patient, adjust = "none")$p_value)
rows[[length(rows) + 1L]] <- row_of("pairs", "(a+) 200 perms within pairs", feature_scores(
  x, y, method = "hsic", block = patient, n_perm = 200L, adjust = "none")$p_value)
# z, linear and squared
z <- rnorm(m)
for (sc in c("zlin", "zsq")) {
  f <- if (sc == "zlin") z else z^2
  x <- f + matrix(rnorm(m * n_genes), m)
  y <- f + rnorm(m)
  L <- label_gram(y)
  rows[[length(rows) + 1L]] <- row_of(sc, "none", none_p(x, y))
  rows[[length(rows) + 1L]] <- row_of(sc, "(a) label, raw x, ~ z", label_raw_p(x, y, z))
  rows[[length(rows) + 1L]] <- row_of(sc, "(a+) package, ~ z", label_p(x, y, data.frame(z = z)))
  rows[[length(rows) + 1L]] <- row_of(sc, "(a+) package, ~ z + z^2",
                                      label_p(x, y, data.frame(z = z, z2 = z^2)))
  rows[[length(rows) + 1L]] <- row_of(sc, "(b) strata (z quintiles)",
                                      strata_p(x, L, cut(z, stats::quantile(z, 0:5 / 5),
                                                         include.lowest = TRUE)))
  rows[[length(rows) + 1L]] <- row_of(sc, "(c) kci", kci_p(x, L, z))
}
cal <- do.call(rbind, rows)
print(cal, row.names = FALSE)
cat(sprintf("(calibration %.0f s)\n", proc.time()[["elapsed"]] - t0))

cat(sprintf("== power: %d data sets, m = %d, 4 batches, p < 0.05 ==\n", reps, m))
t0 <- proc.time()[["elapsed"]]
hits <- matrix(0, 2, 5, dimnames = list(c("u", "xor"),
                                        c("none", "(a) raw x", "(a+) package", "(b) strata",
                                          "(c) kci")))
for (r in seq_len(reps)) {
  shift <- rnorm(4, sd = 1.5)[batch]
  # U-shaped gene; the classes depend on the batch
  y <- factor(rbinom(m, 1, c(0.2, 0.4, 0.6, 0.8)[batch]), labels = c("a", "b"))
  e <- ifelse(y == "a", rnorm(m), sample(c(-1.5, 1.5), m, TRUE) + rnorm(m, sd = 0.5))
  g <- matrix(shift + e, m)
  L <- label_gram(y)
  p <- c(none_p(g, y), label_raw_p(g, y, Zb), label_p(g, y, batch), strata_p(g, L, batch),
         kci_p(g, L, model.matrix(~ batch)[, -1]))
  hits["u", ] <- hits["u", ] + (p < 0.05)
  # XOR pair within the batches
  e1 <- rnorm(m)
  e2 <- rnorm(m)
  yx <- xor(e1 > 0, e2 > 0)
  flip <- runif(m) < 0.1
  yx <- factor(ifelse(yx != flip, "b", "a"))
  xs <- cbind(shift + e1, rnorm(4, sd = 1.5)[batch] + e2)
  L <- label_gram(yx)
  p <- c(suppressWarnings(hsic_test(xs, yx)$p.value),
         label_raw_p(list(xs), yx, Zb), hsic_test(xs, yx, covariates = batch)$p.value,
         strata_p(list(xs), L, batch), kci_p_set(xs, L, model.matrix(~ batch)[, -1]))
  hits["xor", ] <- hits["xor", ] + (p < 0.05)
}
print(round(hits / reps, 3))
cat(sprintf("(power %.0f s)\n", proc.time()[["elapsed"]] - t0))
