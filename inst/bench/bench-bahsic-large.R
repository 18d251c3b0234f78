# BAHSIC for many samples: the block estimator (approx = approx_block()) on
# synthetic single-cell-like counts.
#
# Data: simulate_counts(m, d, 20, 3 types, fold_change = c(1.3, 2.5)): negative
# binomial counts (dispersion 2) with log-normal gene means and cell size
# factors; 20 planted informative genes (expressed: base means log-normal
# around 2.7 counts per cell), each up by its fold change in one or two of the three types.
# Normalised as in single-cell work: log1p(counts / library size * 1e4).
# BAHSIC: Gaussian kernel, sigma = "dimension", drop = 0.1, biased
# estimator, approx = approx_block(size), full ranking.
#
# Printed per run: m, d, block size, threads, elapsed seconds of bahsic()
# alone (not the simulation), how many of the 20 planted genes are in the top
# 50, and the rank, fold change and mean of any it misses.
#
# Usage, after installing the package:
#   Rscript inst/bench/bench-bahsic-large.R target  [threads] [size]
#       m = 20,000, d = 2,000 (the issue's target: under 10 minutes, planted
#       genes in the top 50)
#   Rscript inst/bench/bench-bahsic-large.R growth  [threads] [size] [d]
#       m = 2,500, 5,000, 10,000, 20,000, 40,000 at fixed d (default 2,000):
#       the time should grow linearly in m (the cost is O(m B) per candidate)
#   Rscript inst/bench/bench-bahsic-large.R lowrank [threads] [m] [d]
#       m = 5,000, d = 200: the block estimator (size 100) beside
#       approx_rff(n_features = 200) and approx_ichol(max_rank = 50)
#   Rscript inst/bench/bench-bahsic-large.R sizes   [threads] [m] [d]
#       block sizes 25, 50, 100, 200, 400 at one m (default 5,000), and the
#       exact estimator when m <= 5,000: recovery against time, for the
#       choice of the default size

suppressPackageStartupMessages(library(bahsic))

args <- commandArgs(trailingOnly = TRUE)
mode <- if (length(args) >= 1L) args[1L] else "target"
threads <- if (length(args) >= 2L) as.integer(args[2L]) else 2L
stopifnot(mode %in% c("target", "growth", "sizes", "lowrank"), !is.na(threads), threads >= 1L)

# the package's generator: 20 marker genes with fold changes from 1.3 to 2.5,
# each up in one or two of the three types
make_data <- function(m, d) {
  set.seed(1)
  simulate_counts(m, d, n_informative = 20L, n_types = 3L, fold_change = c(1.3, 2.5))
}

# size = NA: the exact estimator; approx: another approximation than the block
# estimator (size is then unused)
run <- function(m, d, size, threads, approx = NULL) {
  sim <- make_data(m, d)
  set.seed(42)
  if (is.null(approx)) approx <- if (is.na(size)) "exact" else approx_block(size = size)
  sec <- system.time(
    fit <- bahsic(sim$x, sim$y, approx = approx, drop = 0.1, threads = threads)
  )[["elapsed"]]
  top <- selected(fit, 50)
  label <- if (is.character(approx)) approx else switch(approx$name,
    block = sprintf("block(%d)", approx$params$size),
    rff = sprintf("rff(%d)", approx$params$n_features),
    ichol = sprintf("ichol(%d)", approx$params$max_rank))
  cat(sprintf("m = %6d  d = %5d  %-11s  threads = %d  %8.1f s  planted in top 50: %2d / 20\n",
              m, d, label, threads, sec, sum(sim$informative %in% top)))
  for (g in setdiff(sim$informative, top)) {
    cat(sprintf("    missed %s: rank %d, fold change %.2f, mean count %.3f\n", g,
                fit$features$rank[fit$features$feature == g], sim$fold_change[[g]], sim$mean[[g]]))
  }
  rm(sim, fit)
  invisible(gc())
  sec
}

if (mode == "target") {
  size <- if (length(args) >= 3L) as.integer(args[3L]) else 100L
  invisible(run(20000L, 2000L, size, threads))
} else if (mode == "growth") {
  size <- if (length(args) >= 3L) as.integer(args[3L]) else 100L
  d <- if (length(args) >= 4L) as.integer(args[4L]) else 2000L
  ms <- c(2500L, 5000L, 10000L, 20000L, 40000L)
  sec <- vapply(ms, run, numeric(1), d = d, size = size, threads = threads)
  fit <- stats::lm(sec ~ ms)
  cat(sprintf("seconds per 1,000 samples: %s\n",
              paste(sprintf("%.2f", 1000 * sec / ms), collapse = ", ")))
  cat(sprintf("linear fit: %.2f s + %.3f s per 1,000 samples, R^2 = %.4f\n",
              stats::coef(fit)[1L], 1000 * stats::coef(fit)[2L], summary(fit)$r.squared))
} else if (mode == "lowrank") {
  m <- if (length(args) >= 3L) as.integer(args[3L]) else 5000L
  d <- if (length(args) >= 4L) as.integer(args[4L]) else 200L
  run(m, d, 100L, threads)
  run(m, d, NA, threads, approx_rff(n_features = 200))
  invisible(run(m, d, NA, threads, approx_ichol(max_rank = 50)))
} else {
  m <- if (length(args) >= 3L) as.integer(args[3L]) else 5000L
  d <- if (length(args) >= 4L) as.integer(args[4L]) else 2000L
  for (size in c(25L, 50L, 100L, 200L, 400L)) run(m, d, size, threads)
  # the exact estimator beside them (m x m matrices: small m only)
  if (m <= 5000L) invisible(run(m, d, NA_integer_, threads))
}
