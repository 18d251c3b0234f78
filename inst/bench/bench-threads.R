# The measurement behind the default number of threads (?threads): every
# function with a `threads` argument timed with 1, 2, ... up to the cores of
# the machine, best of `reps` runs, and the speed-up over one thread. The
# results are identical for every thread count (asserted). Then the targets
# of the speed-up on 16 threads (BAHSIC on ALL >= 8x, on golub >= 3x, maxT on
# ALL with 1,000 labellings >= 12x), judged only on a machine with 16 cores
# or more (on fewer the speed-up on all of them is printed, not judged).
# These times include R's own part of each call; the standalone harness of
# the C core (tools/harness/) times the C loops alone.
#
#   Rscript inst/bench/bench-threads.R [reps] [regexp]   (default 3, all)

suppressPackageStartupMessages(library(bahsic))
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args)) as.integer(args[1L]) else 3L
keep <- if (length(args) >= 2L) args[2L] else "."
cores <- parallel::detectCores()
counts <- unique(c(1L, 2L, if (cores >= 16L) 16L, cores))
counts <- counts[counts <= cores]

best <- function(f) {
  times <- vapply(seq_len(reps), function(i) system.time(v <<- f())[["elapsed"]], 0)
  list(sec = min(times), value = v)
}

set.seed(1)
m2 <- 2000
x2 <- matrix(stats::rnorm(m2 * 50), m2, 50)
y2 <- x2[, 1]^2 + stats::rnorm(m2)
all_x <- NULL
if (requireNamespace("ALL", quietly = TRUE)) {
  env <- new.env()
  utils::data("ALL", package = "ALL", envir = env)
  all_x <- t(Biobase::exprs(env$ALL))
  all_y <- factor(substr(env$ALL$BT, 1, 1))
}
runs <- list(
  "hsic(), m = 2000, d = 50" = function(t) hsic(x2, y2, threads = t)$estimate,
  "hsic_test(), m = 2000" = function(t) hsic_test(x2[, 1:5], y2, threads = t)$p.value,
  "kernel_matrix(), m = 2000" = function(t) sum(kernel_matrix(kernel_gaussian(), x2, threads = t)),
  "feature_scores(hsic), golub" = function(t) {
    feature_scores(golub$x, golub$y, method = "hsic", threads = t)$score
  },
  "bahsic(), golub 38 x 3051" = function(t) bahsic(golub$x, golub$y, threads = t)$ranking,
  "randsel(), golub, n_boot = 300" = function(t) {
    set.seed(2)
    randsel(golub$x, golub$y, n_boot = 300, threads = t)$ranking
  }
)
if (!is.null(all_x)) {
  runs[["bahsic(), ALL 128 x 12625"]] <- function(t) bahsic(all_x, all_y, threads = t)$ranking
  # per-gene HSIC: each gene's own median-heuristic width, then its score
  runs[["feature_scores(hsic), ALL"]] <- function(t) {
    feature_scores(all_x, all_y, method = "hsic", threads = t)$score
  }
  runs[["maxT, ALL, 1000 labellings"]] <- function(t) {
    set.seed(3)
    bahsic:::permutation_pvalues(all_x, all_y, "t", n_perm = 1000L, threads = t)$adj_p_value
  }
}
runs <- runs[grepl(keep, names(runs))]

cat(sprintf("%d cores; best of %d runs; seconds, and speed-up over 1 thread\n", cores, reps))
rows <- list()
for (nm in names(runs)) {
  res <- lapply(counts, function(t) best(function() runs[[nm]](t)))
  same <- all(vapply(res, function(r) identical(r$value, res[[1L]]$value), TRUE))
  if (!same) stop(nm, ": results differ between thread counts")
  sec <- vapply(res, `[[`, 0, "sec")
  rows[[nm]] <- data.frame(run = nm, t(stats::setNames(sec, paste0("t", counts))),
                           t(stats::setNames(round(sec[1L] / sec, 2), paste0("x", counts))),
                           check.names = FALSE)
}
out <- do.call(rbind, rows)
rownames(out) <- NULL
print(out, row.names = FALSE, digits = 3)

# the targets on 16 threads
targets <- c("bahsic(), ALL 128 x 12625" = 8, "bahsic(), golub 38 x 3051" = 3,
             "maxT, ALL, 1000 labellings" = 12)
cat("\ntargets: speed-up on 16 threads over 1\n")
for (nm in intersect(names(targets), names(rows))) {
  r <- rows[[nm]]
  if (cores >= 16L) {
    got <- r[["x16"]]
    cat(sprintf("  %-28s %5.2fx  target >= %gx: %s\n", nm, got, targets[[nm]],
                if (got >= targets[[nm]]) "met" else "NOT met"))
  } else {
    cat(sprintf("  %-28s %5.2fx on %d threads; target >= %gx on 16: not judged on %d cores\n",
                nm, r[[paste0("x", cores)]], cores, targets[[nm]], cores))
  }
}
