# Timing of l1_lsmi() and l1_hsic() (the slides of Jitkrittum (2012)) on a
# 400 x 50 problem: the and-or toy data of the slides (10 features, k = 4)
# with 40 more Bernoulli(0.5) noise features. Target: l1-LSMI under 30 s
# with the defaults (3 restarts, 100 basis functions, 5-fold CV over
# 7 widths x 4 lambdas at every radius z).
#
# Also the cost of the pieces: one gradient of LSMI and of HSIC in the
# weights (src/lsmi.c), and one CV of lsmi() at n = 400.
#
# Usage, after installing the package: Rscript inst/bench/bench-lsmi.R [seed]

suppressPackageStartupMessages(library(bahsic))

args <- commandArgs(trailingOnly = TRUE)
seed <- if (length(args)) as.integer(args[1L]) else 1L

set.seed(seed)
sim <- simulate_andor(400)
x <- cbind(sim$x, matrix(stats::rbinom(400 * 40, 1L, 0.5), 400, 40,
                         dimnames = list(NULL, paste0("N", 1:40))))
y <- sim$y
cat(sprintf("and-or + 40 noise features: %d samples x %d features, k = 4\n", nrow(x), ncol(x)))

timed <- function(expr) {
  t <- system.time(value <- expr)[["elapsed"]]
  list(sec = t, value = value)
}
f_measure <- function(sel, rel) {
  tp <- length(intersect(sel, rel))
  if (tp == 0L) return(0)
  2 * (tp / length(sel)) * (tp / length(rel)) / (tp / length(sel) + tp / length(rel))
}
rel <- colnames(x)[sim$relevant]

set.seed(seed)
a <- timed(l1_lsmi(x, y, n_features = 4))
cat(sprintf("%-40s %7.2f s  %3d radii solved  selected %s  F = %.2f\n",
            "l1_lsmi(), defaults", a$sec, nrow(a$value$path),
            paste(selected(a$value, 4), collapse = ","), f_measure(selected(a$value, 4), rel)))
set.seed(seed)
h <- timed(l1_hsic(x, y, n_features = 4))
cat(sprintf("%-40s %7.2f s  %3d radii solved  selected %s  F = %.2f\n",
            "l1_hsic(), defaults", h$sec, nrow(h$value$path),
            paste(selected(h$value, 4), collapse = ","), f_measure(selected(h$value, 4), rel)))

# the pieces
xs <- scale(x)
w <- rep(1 / 50, 50)
cen <- xs[sort(sample.int(400, 100)), ]
phiy <- outer(as.integer(y), as.integer(y)[sort(sample.int(400, 100))], "==") + 0
Gy <- crossprod(phiy)
reps <- 200L
g <- timed(for (i in seq_len(reps)) .Call(bahsic:::C_lsmi_grad, xs, cen, w, 1, 0.01, phiy, Gy))
cat(sprintf("%-40s %7.3f ms\n", "LSMI value + gradient (b = 100)", 1000 * g$sec / reps))
W <- bahsic:::weight_matrix(bahsic:::label_gram(default_label_kernel(y), y), 400, "biased")
g <- timed(for (i in seq_len(reps)) .Call(bahsic:::C_l1hsic_grad, xs, w, 0.5, W))
cat(sprintf("%-40s %7.3f ms\n", "HSIC value + gradient", 1000 * g$sec / reps))
l <- timed(lsmi(x, y, n_basis = 200))
cat(sprintf("%-40s %7.3f s  (7 x 5 grid, 5 folds)\n", "lsmi(), n_basis = 200", l$sec))
