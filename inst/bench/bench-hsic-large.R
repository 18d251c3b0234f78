# hsic() at m = 100,000 samples, d = 50 features, Gaussian kernel (median
# heuristic), binary labels with a planted dependence: the approximations of
# ?approximations, which need no m x m matrix (exact HSIC would need two
# 80 GB matrices here). The target: under 10 s and under 1 GB with
# approx = "ichol" or "block".
#
# For each approximation: elapsed seconds (best of `reps` runs), the peak
# memory of the R process (VmHWM of /proc/self/status, Linux only, so a
# separate R process per approximation keeps the peaks apart) and R's own
# gc() maximum, and the relative error against exact HSIC on a 2000-sample
# subset (the same subset for the exact and the approximate estimate).
#
# approx = "rff" makes its n_features = 500 random features 32 columns at a
# time (?approximations), never the m x 500 matrix: its peak is printed next
# to ichol's in the closing lines (time and VmHWM of each, and their ratio).
#
# Usage, after installing the package:
#   Rscript inst/bench/bench-hsic-large.R [m] [reps] [names]
# names: a comma-separated subset of ichol,rff,block (default all), each run
# in a child process; a single name runs that approximation in this process
# (what the children do):
#   Rscript inst/bench/bench-hsic-large.R [m] [reps] ichol|rff|block

suppressPackageStartupMessages(library(bahsic))

args <- commandArgs(trailingOnly = TRUE)
m <- if (length(args) >= 1L) as.integer(args[1L]) else 100000L
reps <- if (length(args) >= 2L) as.integer(args[2L]) else 2L
only <- if (length(args) >= 3L) args[3L] else NA_character_
d <- 50L

# y depends on x1 and x2 through a nonlinear function, not on x3..x50
make_data <- function(m) {
  set.seed(7)
  x <- matrix(rnorm(m * d), m, d)
  f <- sin(2 * x[, 1]) + x[, 2]^2 - 1
  y <- factor(ifelse(f + rnorm(m, sd = 0.5) > 0, "up", "down"))
  list(x = x, y = y)
}

vm_hwm_mb <- function() {
  st <- tryCatch(readLines("/proc/self/status"), error = function(e) character())
  line <- grep("^VmHWM:", st, value = TRUE)
  if (length(line)) as.numeric(gsub("[^0-9]", "", line)) / 1024 else NA_real_
}

approximations <- list(ichol = approx_ichol(), rff = approx_rff(),
                       block = approx_block(size = 200L))

run_one <- function(name) {
  dat <- make_data(m)
  a <- approximations[[name]]
  invisible(gc(reset = TRUE))
  times <- numeric(reps)
  for (r in seq_len(reps)) {
    set.seed(11)
    times[r] <- system.time(fit <- hsic(dat$x, dat$y, approx = a))[["elapsed"]]
  }
  g <- gc()
  gcmax <- sum(g[, 6L]) # the "max used" (Mb) of Ncells and Vcells
  peak <- vm_hwm_mb()
  # the relative error on a 2000-sample subset, exact against approximate
  sub <- round(seq(1, m, length.out = min(2000L, m)))
  ex <- hsic(dat$x[sub, ], dat$y[sub])
  set.seed(11)
  ap <- hsic(dat$x[sub, ], dat$y[sub], approx = a)
  cat(sprintf("RESULT %s %.6g %.6g\n", name, min(times), peak))
  cat(sprintf(paste0("%-6s m = %d: %6.2f s (best of %d), peak %6.0f MB (VmHWM), R max used %6.0f MB; ",
                     "HSIC1 = %.4g (se %.2g)%s;\n       on 2000 samples: exact HSIC1 %.4g, approx %.4g, ",
                     "relative error %.3g (HSIC0: %.3g)\n"),
              name, m, min(times), reps, peak, gcmax, fit$estimate, fit$se,
              if (!is.null(fit$rank)) sprintf(", rank %d", fit$rank[["x"]]) else "",
              ex$hsic1, ap$hsic1, abs(ap$hsic1 - ex$hsic1) / abs(ex$hsic1),
              abs(ap$hsic0 - ex$hsic0) / abs(ex$hsic0)))
}

names_run <- if (is.na(only)) names(approximations) else strsplit(only, ",", fixed = TRUE)[[1L]]
stopifnot(all(names_run %in% names(approximations)))
if (length(names_run) == 1L && !is.na(only)) {
  run_one(only)
} else {
  cat(sprintf("hsic(), Gaussian kernel, m = %d, d = %d, binary labels; %s\n", m, d, R.version.string))
  cat(sprintf("data x: %.0f MB (m x d doubles)\n", 8 * m * d / 1024^2))
  rscript <- file.path(R.home("bin"), "Rscript")
  script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  res <- list()
  for (name in names_run) {
    # a fresh process each, so that VmHWM is this approximation's peak
    out <- system2(rscript, c(shQuote(script), m, reps, name), stdout = TRUE)
    line <- grep("^RESULT ", out, value = TRUE)
    cat(grep("^RESULT ", out, value = TRUE, invert = TRUE), sep = "\n")
    if (length(line)) {
      f <- strsplit(line, " ", fixed = TRUE)[[1L]]
      res[[name]] <- c(time = as.numeric(f[3L]), peak = as.numeric(f[4L]))
    }
  }
  if (all(c("ichol", "rff") %in% names(res))) {
    cat(sprintf(paste0("rff vs ichol at m = %d: time %.2f s vs %.2f s (%.2fx), ",
                       "peak %.0f MB vs %.0f MB (%.2fx)\n"),
                m, res$rff[["time"]], res$ichol[["time"]], res$rff[["time"]] / res$ichol[["time"]],
                res$rff[["peak"]], res$ichol[["peak"]], res$rff[["peak"]] / res$ichol[["peak"]]))
  }
}
