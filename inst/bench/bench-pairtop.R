# Benchmark: the float32 screen of all pairs of features (src/pairtop.c), the
# core of pair_scores(). Run after installing the package, on an otherwise
# idle machine (check `uptime`):
#   Rscript inst/bench/bench-pairtop.R [reps]
# Prints, per size (p features at m samples: 2,000 at 100 and 12,625 at 128,
# the ALL data's genes), per thread count (1 and 2) and screen, the median
# elapsed and CPU seconds over `reps` runs (default 3; 1 at p = 12,625) and the
# multiply-adds per elapsed second:
#   gaussian   the interaction of every pair, sum_ab W_ab Kc^i_ab Kc^j_ab:
#              the m (m + 1) / 2 packed entries of each doubly centred
#              Gaussian kernel (built here too) against each other's, p^2 / 2
#              x m (m + 1) / 2 multiply-adds
#   linear     the linear kernel's rank-1 form (two classes), p^2 / 2 x m
# and the top pair found, a planted product pair (class = sign(x1 x2)).
suppressPackageStartupMessages(library(bahsic))
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args)) as.integer(args[1]) else 3L
ns <- asNamespace("bahsic")

cat(sprintf("load average at start: %s\n", paste(
  tryCatch(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3], error = function(e) "?"),
  collapse = " ")))
cat(sprintf("AVX2 copy: %s\n", getOption("bahsic.simd", TRUE)))

timed <- function(f, n) {
  t <- vapply(seq_len(n), function(i) {
    st <- system.time(r <<- f())
    c(st[["elapsed"]], st[["user.self"]] + st[["sys.self"]])
  }, numeric(2))
  list(elapsed = median(t[1, ]), cpu = median(t[2, ]), value = r)
}

for (size in list(c(2000, 100), c(12625, 128))) {
  p <- size[1]
  m <- size[2]
  set.seed(1)
  x <- matrix(rnorm(m * p), m, p)
  y <- sign(x[, 1] * x[, 2])
  x <- scale(x)
  attributes(x) <- list(dim = c(m, p))
  u <- (y - mean(y)) / m
  W <- tcrossprod(u)
  n_rep <- if (p > 5000) 1L else reps
  for (threads in 1:2) {
    g <- timed(function() ns$pair_top(x, W, 100L, threads = threads), n_rep)
    macs <- p * (p - 1) / 2 * m * (m + 1) / 2
    cat(sprintf(paste0("p = %5d, m = %3d, threads = %d, gaussian: %7.2f s elapsed, %7.2f s CPU, ",
                       "%.3g multiply-adds/s; top pair (%d, %d)\n"),
                p, m, threads, g$elapsed, g$cpu, macs / g$elapsed, g$value$i[1], g$value$j[1]))
    l <- timed(function() ns$pair_top_lowrank(x, u, 1, 100L, threads = threads), n_rep)
    macs <- p * (p - 1) / 2 * m
    cat(sprintf(paste0("p = %5d, m = %3d, threads = %d, linear:   %7.2f s elapsed, %7.2f s CPU, ",
                       "%.3g multiply-adds/s\n"),
                p, m, threads, l$elapsed, l$cpu, macs / l$elapsed))
  }
}
