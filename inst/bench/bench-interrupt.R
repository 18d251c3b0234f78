# How soon the long calls stop when interrupted: a time limit
# (setTimeLimit(), which R raises at its interrupt checks, as it raises
# Ctrl-C) expires `at` seconds into the call, and the script reports when the
# error arrived. The C loops check for interrupts between blocks of some
# 10-50 ms of work (bk_pace(), src/common.h) on the main thread, and the
# R-level loops between their steps; the target is a delay (the time the
# error arrived minus the limit) of well under a second.
#
# Usage, after installing the package:
#   Rscript inst/bench/bench-interrupt.R [cases] [threads] [full]
# cases: a regular expression on the case names below (default: all);
# threads: the threads of the calls that take them (default 1); full: "full"
# also times each call without a limit (the sizes are chosen so that each
# takes 5 s or more on one core of a 2020s laptop). Each line: the case, the
# limit, the time the error arrived, the delay, and the error's message (or
# "ran to its end"). Elapsed times on a shared machine are noisy: run it
# when the load is low.

suppressPackageStartupMessages(library(bahsic))

args <- commandArgs(trailingOnly = TRUE)
pattern <- if (length(args) >= 1L) args[1L] else "."
threads <- if (length(args) >= 2L) as.integer(args[2L]) else 1L
full <- length(args) >= 3L && args[3L] == "full"

# Each case builds its data when it runs (so that only the cases asked for
# take memory) and returns the call to time.
cases <- list(
  kernel_matrix = function() {
    x <- matrix(rnorm(9000 * 500), 9000)
    function() kernel_matrix(kernel_gaussian(), x, threads = threads)
  },
  hsic = function() {
    x <- matrix(rnorm(9000 * 500), 9000)
    y <- rnorm(9000)
    function() hsic(x, y, threads = threads)
  },
  hsic_sigma = function() {
    x <- matrix(rnorm(9000 * 500), 9000)
    y <- rnorm(9000)
    function() hsic(x, y, kernel = kernel_gaussian(sigma = 1), threads = threads)
  },
  hsic_test_gamma = function() {
    x <- matrix(rnorm(9000 * 500), 9000)
    y <- rnorm(9000)
    function() hsic_test(x, y, threads = threads)
  },
  qmi = function() {
    x <- matrix(rnorm(9000 * 500), 9000)
    y <- rnorm(9000)
    function() qmi(x, y, threads = threads)
  },
  bahsic = function() {
    x <- matrix(rnorm(3000 * 200), 3000)
    y <- factor(rep_len(c("a", "b"), 3000))
    function() bahsic(x, y, threads = threads)
  },
  fohsic = function() {
    x <- matrix(rnorm(3000 * 200), 3000)
    y <- factor(rep_len(c("a", "b"), 3000))
    function() fohsic(x, y, n_features = 60, threads = threads)
  },
  mrmr = function() {
    x <- matrix(rnorm(128 * 12625), 128)
    y <- factor(rep_len(c("a", "b"), 128))
    function() mrmr(x, y, n_features = 50, threads = threads)
  },
  ichol = function() {
    x <- matrix(rnorm(50000 * 10), 50000)
    y <- rnorm(50000)
    function() hsic(x, y, approx = approx_ichol(tol = 1e-12, max_rank = 3000),
                    threads = threads)
  },
  lsmi = function() {
    x <- matrix(rnorm(4e4), 8000)
    y <- rnorm(8000)
    function() lsmi(x, y, n_basis = 2000)
  },
  lsmi_small = function() {
    x <- matrix(rnorm(2e4), 4000)
    y <- rnorm(4000)
    function() lsmi(x, y, n_basis = 1000)
  }
)

# Runs f() under a time limit of `at` seconds; the time the call ended and
# how (the error's message, or "ran to its end").
limited <- function(f, at) {
  t0 <- proc.time()[["elapsed"]]
  setTimeLimit(elapsed = at, transient = FALSE)
  what <- tryCatch({
    f()
    "ran to its end"
  }, error = function(e) conditionMessage(e))
  setTimeLimit(elapsed = Inf)
  list(stopped = proc.time()[["elapsed"]] - t0, what = what)
}

for (name in grep(pattern, names(cases), value = TRUE)) {
  set.seed(1)
  f <- cases[[name]]()
  if (full) {
    cat(sprintf("%-16s full run %.2f s\n", name, system.time(f())[["elapsed"]]))
    invisible(gc())
  }
  for (at in c(0.5, 1)) {
    r <- limited(f, at)
    cat(sprintf("%-16s threads = %d: limit %.1f s, stopped at %.2f s (delay %.2f s): %s\n",
                name, threads, at, r$stopped, r$stopped - at, r$what))
    invisible(gc())
  }
  rm(f)
  invisible(gc())
}
