# Cost of stability_selection() (complementary pairs, Shah and Samworth 2013)
# on ALL, BCR/ABL vs NEG (79 x 12625), n_subsamples = 50 (100 fits on halves
# of 39 samples), q = 20, with selector "mt" (limma's moderated t) and
# "bahsic" (BAHSIC stopped at q = 20 features, drop = 0.1): 1 and 2 threads
# per fit in this session, and 2 future multisession workers of 1 thread.
# Prints the minimum and median elapsed seconds of `reps` runs of each
# (default 3 for "mt", 1 for "bahsic"), and the stable set of each run.
#
#   Rscript inst/bench/bench-stability.R [LIB] [reps_mt] [reps_bahsic]
#
# The machine is shared: run when `uptime` shows a load below 1.
args <- commandArgs(trailingOnly = TRUE)
lib <- if (length(args) >= 1L) args[1L] else .libPaths()[1L]
reps <- c(mt = 3L, bahsic = 1L)
if (length(args) >= 2L) reps[["mt"]] <- as.integer(args[2L])
if (length(args) >= 3L) reps[["bahsic"]] <- as.integer(args[3L])
suppressPackageStartupMessages({
  library(bahsic, lib.loc = lib)
  library(ALL)
})
.libPaths(c(lib, .libPaths())) # the future workers load this build
data(ALL)
# the B-cell samples of the two groups, as in limma's and genefilter's vignettes
keep <- grepl("^B", as.character(ALL$BT)) & ALL$mol.biol %in% c("BCR/ABL", "NEG")
x <- t(Biobase::exprs(ALL)[, keep])
y <- factor(ALL$mol.biol[keep])
cat(sprintf("ALL BCR/ABL vs NEG: %d x %d; load before: %s\n", nrow(x), ncol(x),
            paste(round(as.numeric(strsplit(sub(".*average: ", "", system("uptime", intern = TRUE)),
                                              ", ")[[1]]), 2), collapse = " ")))
invisible(bahsic(x[1:39, 1:500], y[1:39], n_features = 20, threads = 2L)) # warm up

run <- function(selector, threads, parallel) {
  set.seed(1)
  el <- system.time(fit <- stability_selection(x, y, selector = selector, n_features = 20,
                                               n_subsamples = 50, threads = threads,
                                               parallel = parallel))[["elapsed"]]
  list(elapsed = el, stable = selected(fit), pfer = fit$settings$pfer)
}

have_future <- requireNamespace("future", quietly = TRUE) &&
  requireNamespace("future.apply", quietly = TRUE)
for (selector in c("mt", "bahsic")) {
  configs <- list(list("1 thread", 1L, NULL), list("2 threads", 2L, NULL))
  if (have_future) configs <- c(configs, list(list("2 future workers x 1 thread", 1L, "future")))
  for (cf in configs) {
    if (identical(cf[[3L]], "future")) {
      old <- future::plan(future::multisession, workers = 2)
      invisible(future.apply::future_lapply(1:2, function(i) i)) # start the workers
    }
    r <- lapply(seq_len(reps[[selector]]), function(i) run(selector, cf[[2L]], cf[[3L]]))
    if (identical(cf[[3L]], "future")) future::plan(old)
    el <- vapply(r, `[[`, numeric(1), "elapsed")
    cat(sprintf("%-7s %-28s min %7.2f s  median %7.2f s (%d run%s); PFER <= %s; stable: %s\n",
                selector, cf[[1L]], min(el), stats::median(el), length(el),
                if (length(el) > 1L) "s" else "", format(r[[1L]]$pfer),
                paste(r[[1L]]$stable, collapse = " ")))
  }
}
