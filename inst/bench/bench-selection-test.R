# Cost of selection_test(): n_perm selections of the permuted outcome, each
# stopped at n features where the selector allows it (bahsic(), fohsic()).
# On the Golub data shipped with the package (38 samples x 3051 genes,
# ALL / AML):
#
#   (a) BAHSIC (defaults: Gaussian, sigma = "dimension", drop = 0.1) on the
#       first 1000 genes, n = 10, n_perm = 100; with the cost of one full
#       ranking and of one ranking stopped at 10 features for reference
#   (b) FOHSIC on the same genes, n = 10, n_perm = 100
#   (c) BAHSIC on all 3051 genes, n = 10, n_perm = 20, and the time per
#       permutation
#
# and, for each, the naive permutation test of the selected genes
# (hsic_test()), which ignores the selection.
#
# Usage, after installing the package: Rscript inst/bench/bench-selection-test.R

suppressPackageStartupMessages(library(bahsic))

x <- golub$x
y <- golub$y
cat(sprintf("golub: %d samples x %d genes; classes %s\n", nrow(x), ncol(x),
            paste(sprintf("%s = %d", levels(y), tabulate(y)), collapse = ", ")))

secs <- function(expr) {
  expr <- substitute(expr)
  env <- parent.frame()
  t <- system.time(value <- eval(expr, env))[["elapsed"]]
  list(sec = t, value = value)
}

report <- function(label, fit, n, n_perm) {
  set.seed(1)
  st <- secs(selection_test(fit, n = n, n_perm = n_perm))
  set.seed(1)
  naive <- hsic_test(x[, selected(fit, n)], y, method = "permutation", n_perm = 1000,
                     estimator = "biased")
  cat(sprintf(paste0("%s: selection_test(n = %d, n_perm = %d) %.1f s (%.3f s per permutation); ",
                     "p = %.3f (naive hsic_test of the same genes: p = %.4f)\n"),
              label, n, n_perm, st$sec, st$sec / n_perm, st$value$p.value, naive$p.value))
}

x1000 <- x[, 1:1000]
full <- secs(bahsic(x1000, y))
stopped <- secs(bahsic(x1000, y, n_features = 10))
cat(sprintf("one BAHSIC on 1000 genes: full ranking %.3f s, stopped at 10 features %.3f s\n",
            full$sec, stopped$sec))
report("(a) BAHSIC, 1000 genes", full$value, 10, 100)
report("(b) FOHSIC, 1000 genes", fohsic(x1000, y, n_features = 10), 10, 100)
report("(c) BAHSIC, 3051 genes", bahsic(x, y), 10, 20)
