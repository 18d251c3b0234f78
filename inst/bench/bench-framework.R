# Cost and outcome of the rest of the framework (Song et al. 2012, sections
# 6.6, 6.7, 10 and Appendix A), each
# best of `repeats` runs (default 3), one thread:
#
#   (a) kernel_ridge(): BAHSIC's full ranking of the first 500 Golub genes
#       (38 samples) with the linear base, drop = 0.1 and drop = 0 (RFE with
#       ridge regression, one gene at a time), against the Gaussian kernel;
#       and the Gaussian base (one inverse per candidate) on 50 genes
#   (b) hsic_weights() on XOR (simulate_xor(m), 22 features, m = 100 and
#       400), lambda = 3 x HSIC at w = 1: time, outer steps, and whether X1
#       and X2 carry the weight; BAHSIC on the same data for comparison
#   (c) unsupervised BAHSIC (unsupervised = TRUE) on the first 1000 Golub genes
#   (d) qmi() between each of the first 1000 Golub genes and the classes
#
# Usage, after installing the package:
#   Rscript inst/bench/bench-framework.R [repeats]

suppressPackageStartupMessages(library(bahsic))
args <- commandArgs(trailingOnly = TRUE)
repeats <- if (length(args) >= 1L) as.integer(args[1L]) else 3L

best <- function(expr) {
  expr <- substitute(expr)
  env <- parent.frame()
  times <- numeric(repeats)
  for (r in seq_len(repeats)) {
    times[r] <- system.time(value <- eval(expr, env))[["elapsed"]]
  }
  list(sec = min(times), value = value)
}
line <- function(what, t, extra = "") {
  cat(sprintf("  %-58s %7.3f s%s\n", what, t, extra))
}

cat(sprintf("bench-framework.R: best of %d, one thread\n", repeats))

cat("(a) kernel_ridge(), Golub (38 samples)\n")
x500 <- golub$x[, 1:500]
r1 <- best(bahsic(x500, golub$y, kernel = kernel_ridge(1)))
line("bahsic(kernel_ridge(1)), 500 genes, drop = 0.1", r1$sec)
r2 <- best(bahsic(x500, golub$y, kernel = kernel_ridge(1), drop = 0))
line("bahsic(kernel_ridge(1)), 500 genes, drop = 0 (RFE-ridge)", r2$sec)
r3 <- best(bahsic(x500, golub$y, drop = 0))
line("bahsic(kernel_gaussian()), 500 genes, drop = 0", r3$sec)
r4 <- best(bahsic(golub$x[, 1:50], golub$y, kernel = kernel_ridge(1, kernel_gaussian())))
line("bahsic(kernel_ridge(1, kernel_gaussian())), 50 genes", r4$sec)
cat(sprintf("  top 5 of RFE-ridge and of Gaussian BAHSIC share %d genes\n",
            length(intersect(selected(r2$value, 5), selected(r3$value, 5)))))

cat("(b) hsic_weights() on XOR, 22 features\n")
for (m in c(100L, 400L)) {
  set.seed(1)
  sim <- simulate_xor(m)
  h1 <- hsic(sim$x, sim$y, estimator = "biased")$estimate
  w <- best(hsic_weights(sim$x, sim$y, lambda = 3 * h1))
  fw <- w$value
  share <- sum(fw$weights[c("X1", "X2")]) / sum(fw$weights)
  line(sprintf("hsic_weights(), m = %d", m), w$sec,
       sprintf("  %d outer steps, %d non-zero weights, top 2 %s, X1+X2 carry %.0f%%",
               fw$settings$iterations, sum(fw$weights > 0),
               paste(selected(fw, 2), collapse = " "), 100 * share))
  b <- best(bahsic(sim$x, sim$y))
  line(sprintf("bahsic(), m = %d", m), b$sec,
       sprintf("  top 2 %s", paste(selected(b$value, 2), collapse = " ")))
}

cat("(c) unsupervised BAHSIC, Golub\n")
x1000 <- golub$x[, 1:1000]
u <- best(bahsic(x1000, unsupervised = TRUE))
line("bahsic(unsupervised = TRUE), 1000 genes", u$sec)

cat("(d) qmi(), Golub\n")
q <- best(vapply(seq_len(1000), function(j) qmi(x1000[, j], golub$y)$estimate, 0))
line("qmi() of each of 1000 genes with the classes", q$sec)
