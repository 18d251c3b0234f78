# hsic(approx = approx_rff()) with a numeric outcome at large m: both kernels
# Gaussian (median heuristic), so both sides are n_features = 500 random
# Fourier features. The label's features are made in blocks of rows in C as
# the data's are (?approximations), never the m x 500 matrix.
#
# Targets (each printed with met / not met):
#   * peak memory: the call's growth of the R process's resident peak
#     (VmHWM after the call minus VmHWM before it, the data already made) at
#     most 5 times the data (x and y, 8 m (d + 1) bytes);
#   * the same statistics as the whole label-feature path to 1e-9 relative
#     (checked on m = 5000 here: the old path holds the m x 500 matrix);
#   * the same bits for 1 and 2 threads and for two row-block sizes.
#
# One run per process (VmHWM is the process's peak): run it once per m.
# Usage, after installing the package:
#   Rscript inst/bench/bench-rff-label.R [m] [d] [threads]
# Measured on a shared 2-core machine (load 7 to 11, so elapsed times are
# inflated; CPU seconds of the call, 1 thread), growth of VmHWM over the call:
#   m = 200,000, d = 5: before (72b8295, the label's m x 500 matrix whole)
#     43.4 s, +1590 MB; after 13.2 s, +29 MB (target 46 MB: met)
#   m = 1,000,000, d = 5: before 237.6 s, +7916 MB; after 65.0 s, +50 MB
#     (target 229 MB: met)
#   the m = 5000 checks: identical for 1 and 2 threads and rows 256, 37 and
#   5000; 4.6e-14 relative to the whole-matrix path.

suppressPackageStartupMessages(library(bahsic))

args <- commandArgs(trailingOnly = TRUE)
m <- if (length(args) >= 1L) as.integer(args[1L]) else 200000L
d <- if (length(args) >= 2L) as.integer(args[2L]) else 5L
threads <- if (length(args) >= 3L) as.integer(args[3L]) else 1L

vm_hwm_mb <- function() {
  st <- tryCatch(readLines("/proc/self/status"), error = function(e) character())
  line <- grep("^VmHWM:", st, value = TRUE)
  if (length(line)) as.numeric(gsub("[^0-9]", "", line)) / 1024 else NA_real_
}

make_data <- function(m, d) {
  set.seed(7)
  x <- matrix(rnorm(m * d), m, d)
  y <- sin(2 * x[, 1]) + x[, 2]^2 + rnorm(m, sd = 0.5)
  list(x = x, y = y)
}

target <- function(what, ok) cat(sprintf("TARGET %-58s %s\n", what, if (isTRUE(ok)) "met" else "NOT met"))

cat(sprintf("hsic(approx = approx_rff()), numeric outcome, m = %d, d = %d, %d thread(s); %s\n",
            m, d, threads, R.version.string))
dat <- make_data(m, d)
data_mb <- 8 * m * (d + 1) / 1024^2
invisible(gc(reset = TRUE))
before <- vm_hwm_mb()
set.seed(11)
tm <- system.time(fit <- hsic(dat$x, dat$y, approx = approx_rff(), threads = threads))
after <- vm_hwm_mb()
g <- gc()
cat(sprintf(paste0("m = %d: %.2f s elapsed (user %.2f, system %.2f); VmHWM %.0f MB before, ",
                   "%.0f MB after (+%.0f MB); R max used %.0f MB; data %.0f MB\n"),
            m, tm[["elapsed"]], tm[["user.self"]], tm[["sys.self"]], before, after,
            after - before, sum(g[, 6L]), data_mb))
cat(sprintf("HSIC1 = %.6g (se %.3g), HSIC0 = %.6g\n", fit$hsic1, fit$se, fit$hsic0))
target(sprintf("peak growth <= 5 x data (%.0f MB <= %.0f MB)", after - before, 5 * data_mb),
       after - before <= 5 * data_mb)

# the checks on a small problem: the whole-matrix path (the label's m x 500
# features made whole, then bk_rff_hsic(), as before) against the blocks
ns <- asNamespace("bahsic")
if (exists("rff_hsic2", ns)) {
  sm <- make_data(5000L, d)
  ym <- matrix(sm$y)
  set.seed(3)
  dr <- ns$rff_draw(kernel_gaussian(sigma = 1 / (2 * d)), d, 500L)
  dry <- ns$rff_draw(kernel_gaussian(sigma = 0.5), 1L, 500L)
  whole <- ns$rff_hsic(sm$x, .Call(ns$C_rff, ym, dry$W, dry$b), dr, approx_rff())
  run <- function(th, rows) ns$rff_hsic2(sm$x, ym, dr, dry, approx_rff(), th, rows)
  a <- run(1L, 256L)
  target("1 and 2 threads, row blocks 256, 37 and 5000: identical",
         identical(a, run(2L, 256L)) && identical(a, run(1L, 37L)) && identical(a, run(2L, 5000L)))
  rel <- max(abs(a - whole) / abs(whole))
  cat(sprintf("largest relative difference to the whole-matrix path: %.3g\n", rel))
  target("the whole-matrix path's statistics to 1e-9 relative", rel <= 1e-9)
}
