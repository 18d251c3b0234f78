# How soon kernel_matrix(), hsic() and hsic_test() stop when interrupted: a
# time limit (setTimeLimit(), which R raises at its interrupt checks, as it
# raises Ctrl-C) expires `at` seconds into the call, and the script reports
# when the error arrived. The Gram matrix, the median heuristic and the HSIC
# sums check for interrupts between blocks (src/gram.c, src/hsic.c); before
# they did, these calls at m = 20,000 ran to their end.
#
# Usage, after installing the package:
#   Rscript inst/bench/bench-interrupt.R [m] [d] [threads]
# Each line: the call's full time, then for each limit the time the error
# arrived and the latency (that time minus the limit). Elapsed times on a
# shared machine are noisy: run it when the load is low.

suppressPackageStartupMessages(library(bahsic))

args <- commandArgs(trailingOnly = TRUE)
m <- if (length(args) >= 1L) as.integer(args[1L]) else 20000L
d <- if (length(args) >= 2L) as.integer(args[2L]) else 10L
threads <- if (length(args) >= 3L) as.integer(args[3L]) else 1L

set.seed(1)
x <- matrix(rnorm(m * d), m, d)
y <- factor(rep_len(c("a", "b"), m))
calls <- list(
  kernel_matrix = function() kernel_matrix(kernel_gaussian(), x, threads = threads),
  hsic = function() hsic(x, y, threads = threads),
  hsic_test = function() hsic_test(x, y, threads = threads)
)
for (f in names(calls)) {
  full <- system.time(calls[[f]]())[["elapsed"]]
  invisible(gc())
  for (at in c(0.5, 1, 1.5)) {
    t0 <- proc.time()[["elapsed"]]
    setTimeLimit(elapsed = at, transient = TRUE)
    what <- tryCatch({
      calls[[f]]()
      "ran to its end"
    }, error = function(e) conditionMessage(e))
    stopped <- proc.time()[["elapsed"]] - t0
    setTimeLimit(elapsed = Inf)
    cat(sprintf("%-13s m = %d, d = %d, threads = %d: full %.2f s; limit %.1f s, stopped at %.2f s (latency %.2f s): %s\n",
                f, m, d, threads, full, at, stopped, stopped - at, what))
    invisible(gc())
  }
}
