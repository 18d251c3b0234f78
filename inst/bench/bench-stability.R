# Cost of stability_selection() (complementary pairs, Shah and Samworth 2013)
# on ALL, BCR/ABL vs NEG (79 x 12625), n_subsamples = 50 by default (100 fits on halves
# of 39 samples), q = 20, with selector "mt" (limma's moderated t) and
# "bahsic" (BAHSIC stopped at q = 20 features, drop = 0.1), in four ways:
# "threads inside" (the fits one after another, each on 1 or 2 threads),
# "fits across" (2 forked workers of 1 thread each), both forced by
# replacing the internal stab_workers(), the package's default with
# threads = 2 (fits across for a selector, threads inside for a
# feature_scores() method) and 2 future multisession workers of 1 thread
# (with 1 thread, fits across is the run of threads inside). Prints the
# minimum and median elapsed seconds of `reps` runs of each (default 3 for
# "mt", 1 for "bahsic"), the stable set, asserts that
# every configuration gives the identical result (the whole selection
# object) and prints which of threads inside and fits across is faster at
# 2 threads, which backs the default's choice.
#
#   Rscript inst/bench/bench-stability.R [LIB] [reps_mt] [reps_bahsic] [n_subsamples]
#
# (n_subsamples, default 50: fewer for a quick run on a busy machine.)
#
# The machine is shared: run when `uptime` shows a load below 1.
args <- commandArgs(trailingOnly = TRUE)
lib <- if (length(args) >= 1L) args[1L] else .libPaths()[1L]
reps <- c(mt = 3L, bahsic = 1L)
if (length(args) >= 2L) reps[["mt"]] <- as.integer(args[2L])
if (length(args) >= 3L) reps[["bahsic"]] <- as.integer(args[3L])
B <- if (length(args) >= 4L) as.integer(args[4L]) else 50L
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
cat(sprintf("ALL BCR/ABL vs NEG: %d x %d, %d subsamples; load before: %s\n", nrow(x), ncol(x), B,
            paste(round(as.numeric(strsplit(sub(".*average: ", "", system("uptime", intern = TRUE)),
                                              ", ")[[1]]), 2), collapse = " ")))
invisible(bahsic(x[1:39, 1:500], y[1:39], n_features = 20, threads = 2L)) # warm up

run <- function(selector, threads, parallel) {
  set.seed(1)
  el <- system.time(fit <- stability_selection(x, y, selector = selector, n_features = 20,
                                               n_subsamples = B, threads = threads,
                                               parallel = parallel))[["elapsed"]]
  list(elapsed = el, fit = fit, stable = selected(fit), pfer = fit$settings$pfer)
}

# "threads inside": the fits one after another, each on `threads`; "fits
# across": forked workers of 1 thread each, for every selector; "default":
# the package's choice (stab_workers())
default <- get("stab_workers", envir = asNamespace("bahsic"))
inside <- function(sel, parallel, threads, n_fits) 1L
across <- function(sel, parallel, threads, n_fits) {
  if (is.null(parallel)) get("fork_workers", envir = asNamespace("bahsic"))(threads, n_fits) else 1L
}
set_workers <- function(f) utils::assignInNamespace("stab_workers", f, "bahsic")

have_future <- requireNamespace("future", quietly = TRUE) &&
  requireNamespace("future.apply", quietly = TRUE)
medians <- list()
for (selector in c("mt", "bahsic")) {
  configs <- list(list("threads inside, 1 thread", 1L, NULL, inside),
                  list("threads inside, 2 threads", 2L, NULL, inside),
                  list("fits across, 1 thread", 1L, NULL, across),
                  list("fits across, 2 forked workers", 2L, NULL, across),
                  list("default, threads = 2", 2L, NULL, default))
  if (have_future) {
    configs <- c(configs, list(list("2 future workers x 1 thread", 1L, "future", default)))
  }
  ref <- NULL
  for (cf in configs) {
    set_workers(cf[[4L]])
    if (identical(cf[[3L]], "future")) {
      old <- future::plan(future::multisession, workers = 2)
      invisible(future.apply::future_lapply(1:2, function(i) i)) # start the workers
    }
    r <- lapply(seq_len(reps[[selector]]), function(i) run(selector, cf[[2L]], cf[[3L]]))
    if (identical(cf[[3L]], "future")) future::plan(old)
    set_workers(default)
    for (ri in r) {
      if (is.null(ref)) ref <- ri$fit
      if (!identical(ri$fit, ref)) {
        stop(sprintf("%s, %s: a result differs from the first", selector, cf[[1L]]))
      }
    }
    el <- vapply(r, `[[`, numeric(1), "elapsed")
    medians[[selector]][[cf[[1L]]]] <- stats::median(el)
    cat(sprintf("%-7s %-30s min %7.2f s  median %7.2f s (%d run%s); PFER <= %s; stable: %s\n",
                selector, cf[[1L]], min(el), stats::median(el), length(el),
                if (length(el) > 1L) "s" else "", format(r[[1L]]$pfer),
                paste(r[[1L]]$stable, collapse = " ")))
  }
  cat(sprintf("%-7s identical results in every configuration: TRUE\n", selector))
}
for (selector in names(medians)) {
  md <- medians[[selector]]
  ins <- md[["threads inside, 2 threads"]]
  acr <- md[["fits across, 2 forked workers"]]
  one <- md[["threads inside, 1 thread"]]
  cat(sprintf(paste0("%-7s 2 threads: threads inside %.2fx, fits across %.2fx over 1 thread: ",
                     "faster: %s (%.2fx of threads inside); the default ran in %.2f s\n"),
              selector, one / ins, one / acr,
              if (acr <= ins) "fits across" else "threads inside", ins / acr,
              md[["default, threads = 2"]]))
}
