# Benchmark: hsic() (biased, Gaussian kernels) against dHSIC::dhsic() at
# m = 2000, d = 50. Run after installing the package:
#   Rscript inst/bench/bench-hsic.R
# Prints median elapsed seconds over repetitions and the agreement of the
# estimates (dhsic reports tr(KHLH) / m^2 = HSIC0 (m - 1)^2 / m^2).
suppressPackageStartupMessages({
  library(bahsic)
  library(dHSIC)
})
set.seed(1)
m <- 2000
d <- 50
x <- matrix(rnorm(m * d), m, d)
y <- matrix(x[, 1] * x[, 2] + rnorm(m), m, 1)
reps <- 5

timed <- function(f) {
  t <- vapply(seq_len(reps), function(i) system.time(f())[["elapsed"]], numeric(1))
  median(t)
}

h <- hsic(x, y[, 1], estimator = "biased")
sx <- h$kernel$params$sigma
sy <- h$kernel_y$params$kernel$params$sigma
bw <- c(sqrt(1 / (2 * sx)), sqrt(1 / (2 * sy)))
ref <- dhsic(x, y, kernel = "gaussian.fixed", bandwidth = bw)$dHSIC
cat(sprintf("m = %d, d = %d: HSIC0 (m-1)^2/m^2 = %.12g, dhsic = %.12g, relative difference %.2e\n",
            m, d, h$estimate * (m - 1)^2 / m^2, ref,
            abs(h$estimate * (m - 1)^2 / m^2 - ref) / ref))

t_ours <- timed(function() hsic(x, y[, 1], estimator = "biased"))
t_ours_fixed <- timed(function() hsic(x, y[, 1], estimator = "biased", kernel = kernel_gaussian(sx),
                           kernel_y = label_kernel_regression(kernel_gaussian(sy))))
t_ours2 <- timed(function() hsic(x, y[, 1], estimator = "biased", threads = 2))
t_dhsic <- timed(function() dhsic(x, y, kernel = "gaussian"))
t_dhsic_fixed <- timed(function() dhsic(x, y, kernel = "gaussian.fixed", bandwidth = bw))
cat(sprintf("%-52s %8.3f s\n", c(
  "bahsic::hsic, median heuristic, 1 thread",
  "bahsic::hsic, fixed widths, 1 thread",
  "bahsic::hsic, median heuristic, 2 threads",
  "dHSIC::dhsic, kernel = \"gaussian\" (median heuristic)",
  "dHSIC::dhsic, kernel = \"gaussian.fixed\""),
  c(t_ours, t_ours_fixed, t_ours2, t_dhsic, t_dhsic_fixed)), sep = "")
cat(sprintf("speed-up over dhsic: %.1fx (median heuristic), %.1fx (fixed widths); target >= 2x\n",
            t_dhsic / t_ours, t_dhsic_fixed / t_ours_fixed))
