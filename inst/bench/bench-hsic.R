# Benchmark: hsic() (biased, Gaussian kernels, median heuristic) against
# dHSIC::dhsic() at m = 2000, 3000, 5000 samples, d = 50 features. Run after
# installing the package, on an otherwise idle machine (check `uptime`):
#   Rscript inst/bench/bench-hsic.R [m ...]
# Prints, per m, the median elapsed seconds over `reps` runs of
#   hsic()             bahsic, one thread: the data kernel's width by the median
#                      heuristic on 1000 evenly spaced samples (m > 1000), the
#                      label kernel's on all samples; with the AVX2 loops of the
#                      Gram matrix (option bahsic.simd, the default) and without
#   dhsic()            kernel = "gaussian": dHSIC's median heuristic on 1000
#                      random samples (single-threaded C++)
# and their ratio (target: hsic() <= 0.3 times dhsic()); then both at the same
# fixed widths (those hsic() chose) and the relative difference of the values
# (dhsic reports tr(KHLH) / m^2 = HSIC0 (m - 1)^2 / m^2); and the median
# heuristic itself on 1000 samples and on all m (C_median_pairwise).
suppressPackageStartupMessages({
  library(bahsic)
  library(dHSIC)
})
args <- commandArgs(trailingOnly = TRUE)
ms <- if (length(args)) as.integer(args) else c(2000L, 3000L, 5000L)
d <- 50
reps <- 5

timed <- function(f, n = reps) {
  median(vapply(seq_len(n), function(i) system.time(f())[["elapsed"]], numeric(1)))
}

cat(sprintf("load average at start: %s\n", paste(
  tryCatch(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3], error = function(e) "?"),
  collapse = " ")))
for (m in ms) {
  set.seed(1)
  x <- matrix(rnorm(m * d), m, d)
  y <- matrix(x[, 1] * x[, 2] + rnorm(m), m, 1)
  h <- hsic(x, y[, 1], estimator = "biased", threads = 1L)
  sx <- h$kernel$params$sigma
  sy <- h$kernel_y$params$kernel$params$sigma
  bw <- c(sqrt(1 / (2 * sx)), sqrt(1 / (2 * sy)))
  ours <- h$estimate * (m - 1)^2 / m^2
  ref <- dhsic(x, y, kernel = "gaussian.fixed", bandwidth = bw)$dHSIC

  t_ours <- timed(function() hsic(x, y[, 1], estimator = "biased", threads = 1L))
  old <- options(bahsic.simd = FALSE)
  t_base <- timed(function() hsic(x, y[, 1], estimator = "biased", threads = 1L))
  options(old)
  t_ours2 <- timed(function() hsic(x, y[, 1], estimator = "biased", threads = 2L))
  t_dhsic <- timed(function() dhsic(x, y, kernel = "gaussian"), 3L)
  kx <- kernel_gaussian(sx)
  ky <- label_kernel_regression(kernel_gaussian(sy))
  t_fixed <- timed(function() hsic(x, y[, 1], estimator = "biased", kernel = kx, kernel_y = ky,
                                   threads = 1L))
  t_dhsic_fixed <- timed(function() dhsic(x, y, kernel = "gaussian.fixed", bandwidth = bw), 3L)
  rows <- round(seq(1, m, length.out = 1000))
  t_med_sub <- timed(function() .Call(bahsic:::C_median_pairwise, x[rows, ], TRUE, 1L))
  t_med_all <- timed(function() .Call(bahsic:::C_median_pairwise, x, TRUE, 1L), 3L)

  cat(sprintf("m = %d, d = %d\n", m, d))
  cat(sprintf("  %-58s %7.3f s\n", c(
    "hsic(), median heuristic, 1 thread, AVX2 loops",
    "hsic(), median heuristic, 1 thread, baseline loops",
    "hsic(), median heuristic, 2 threads, AVX2 loops",
    "dhsic(), kernel = \"gaussian\" (median heuristic)",
    "hsic(), fixed widths, 1 thread",
    "dhsic(), kernel = \"gaussian.fixed\", same widths",
    "median heuristic of the data kernel on 1000 samples",
    "median heuristic of the data kernel on all samples"),
    c(t_ours, t_base, t_ours2, t_dhsic, t_fixed, t_dhsic_fixed, t_med_sub, t_med_all)), sep = "")
  cat(sprintf("  ratio hsic() / dhsic(): %.2f (median heuristic), %.2f (fixed widths); target <= 0.3\n",
              t_ours / t_dhsic, t_fixed / t_dhsic_fixed))
  cat(sprintf("  same widths: hsic() %.15g, dhsic() %.15g, relative difference %.2e\n",
              ours, ref, abs(ours - ref) / abs(ref)))
}
