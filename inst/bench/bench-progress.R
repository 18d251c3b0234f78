# The cost of progress bars (R/progress.R): bahsic() on ALL (128 x 12625,
# B vs T; the full BAHSIC ranking with the defaults, Algorithm 1 of Song et
# al. 2012, section 4) and hsic_test(method = "permutation") with 2000
# permutations (its serial path runs the permutations in about 100 chunks
# when a bar is on), each
#
#   off      progressr off (options(progressr.enable = FALSE), its default
#            outside an interactive session): no bar, the plain path
#   nohandl  progressr on, no handler: the updates are signalled, nobody
#            listens
#   void     progressr::with_progress(handlers = handler_void()): a handler
#            that draws nothing
#   txtbar   with_progress(handlers = handler_txtprogressbar(file = nullfile())):
#            a text bar, drawn into the null device
#
# The conditions are timed in turn within each repeat (so that a change of
# load on the machine hits all of them), best of `reps` elapsed times; the
# overhead is best(condition) / best(off) - 1 in %. The results of every
# condition are checked identical() to "off", and the number of updates of
# one run is printed.
#
# Usage, after installing the package: Rscript inst/bench/bench-progress.R [reps]

suppressPackageStartupMessages({
  library(bahsic)
  library(ALL)
})

args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args)) as.integer(args[1L]) else 7L
stopifnot(!is.na(reps), reps >= 1L)

data(ALL, package = "ALL")
x <- t(Biobase::exprs(ALL))
y <- factor(substr(as.character(ALL$BT), 1L, 1L))
set.seed(1)
xt <- matrix(rnorm(200 * 5), 200, 5)
yt <- xt[, 1] + rnorm(200)

workloads <- list(
  "bahsic(ALL)" = function() bahsic(x, y),
  "hsic_test(perm 2000)" = function() {
    set.seed(2)
    hsic_test(xt, yt, method = "permutation", n_perm = 2000)
  }
)

conditions <- list(
  off = function(f) {
    old <- options(progressr.enable = FALSE)
    on.exit(options(old))
    f()
  },
  nohandl = function(f) {
    old <- options(progressr.enable = TRUE)
    on.exit(options(old))
    f()
  },
  void = function(f) {
    progressr::with_progress(f(), handlers = progressr::handler_void(), enable = TRUE)
  },
  txtbar = function(f) {
    progressr::with_progress(f(), handlers = progressr::handler_txtprogressbar(file = nullfile()),
                             enable = TRUE)
  }
)

count_updates <- function(f) {
  old <- options(progressr.enable = TRUE)
  on.exit(options(old))
  n <- 0L
  withCallingHandlers(f(), progression = function(c) {
    if (identical(c$type, "update")) n <<- n + 1L
  })
  n
}

cat(sprintf("R %s, progressr %s, %d repeats, load: %s\n", getRversion(),
            packageVersion("progressr"), reps, paste(readLines("/proc/loadavg", warn = FALSE), collapse = "")))
for (w in names(workloads)) {
  f <- workloads[[w]]
  ref <- conditions$off(f)
  times <- matrix(NA_real_, reps, length(conditions), dimnames = list(NULL, names(conditions)))
  for (r in seq_len(reps)) {
    for (cn in names(conditions)) {
      res <- NULL
      times[r, cn] <- system.time(res <- conditions[[cn]](f))[["elapsed"]]
      if (!identical(res, ref)) stop(sprintf("%s under '%s' differs from the run without progress", w, cn))
    }
  }
  best <- apply(times, 2L, min)
  med <- apply(times, 2L, stats::median)
  cat(sprintf("\n%s: %d updates per run; results identical in every condition\n", w, count_updates(f)))
  cat(sprintf("  %-8s best %7.3f s  median %7.3f s  overhead (best) %+6.2f %%  (median) %+6.2f %%\n",
              names(best), best, med, 100 * (best / best[["off"]] - 1),
              100 * (med / med[["off"]] - 1)), sep = "")
}

# The bar's own cost, apart from the run's noise (the "off" runs above differ by a percent or
# two from one repeat to the next, as much as the overheads): a bar of BAHSIC's size on ALL
# (12,625 x ~10 candidate steps) ticked 90 times, as the C loop's iterations tick it, with the
# handlers above, per bar (mean of 200); relative to the best "off" time of bahsic(ALL).
direct_cost <- function() {
  one <- function(steps, ticks) {
    pr <- bahsic:::progress_start(steps)
    for (k in seq_len(ticks)) bahsic:::progress_tick(pr, steps / ticks)
    bahsic:::progress_finish(pr)
    bahsic:::progress_end(pr)
  }
  old <- options(progressr.enable = TRUE)
  on.exit(options(old))
  nul <- file(nullfile(), "w")
  on.exit(close(nul), add = TRUE)
  handlers <- list(nohandl = NULL, void = progressr::handler_void(),
                   txtbar = progressr::handler_txtprogressbar(file = nul))
  vapply(handlers, function(h) {
    run <- if (is.null(h)) function() one(12625 * 10, 90) else
      function() progressr::with_progress(one(12625 * 10, 90), handlers = h)
    system.time(for (i in 1:200) run())[["elapsed"]] / 200
  }, double(1))
}
ref_off <- min(vapply(seq_len(3L), function(i) system.time(workloads[[1L]]())[["elapsed"]],
                      double(1)))
cost <- direct_cost()
cat(sprintf("\nthe bar alone (90 ticks, mean of 200): %s\n",
            paste(sprintf("%s %.2f ms (%.2f %% of bahsic(ALL), %.3f s)", names(cost), 1e3 * cost,
                          100 * cost / ref_off, ref_off), collapse = "; ")))
