# Benchmark: hsic() (biased, Gaussian kernels, median heuristic) against
# dHSIC::dhsic(), and the time hsic() and the gamma hsic_test() spend in the
# operating system at large m. Run after installing the package, once on an
# otherwise idle machine (check `uptime`) and once on a loaded one (e.g. with
# two busy processes per core beside it):
#   Rscript inst/bench/bench-hsic.R [dhsic|memory|factor] [m ...]
# (all three parts by default, each at its own m).
#
# Part "dhsic" (default m = 500, 1000, 2000, 4000, 8000; d = 50 features, a
# numeric outcome): per m, the median CPU seconds (user + system; elapsed
# with BENCH_ELAPSED=1) over `reps` runs of
#   hsic()             bahsic, one thread: the data kernel's width by the median
#                      heuristic on 1000 evenly spaced samples (m > 1000), the
#                      label kernel's on all samples; with the AVX2 loops of the
#                      Gram matrix (option bahsic.simd, the default) and without
#   dhsic()            kernel = "gaussian": dHSIC's median heuristic on 1000
#                      random samples (single-threaded C++)
# and their ratio (target: hsic() <= 0.3 times dhsic() at every m, one
# thread); then both at the same fixed widths (those hsic() chose) and the
# relative difference of the values (dhsic reports tr(KHLH) / m^2 = HSIC0
# (m - 1)^2 / m^2); and the median heuristic itself on 1000 samples (one and
# two threads) and on all m, and the outcome's on all m (C_median_pairwise).
#
# Part "memory" (default m = 1000, 2000, 4000, 8000, 16000; d = 20, a numeric
# outcome, whose Gaussian label kernel is a full m x m one, and two classes):
# per m, hsic() and the gamma hsic_test() on one thread: user and system
# seconds (proc.time(), medians of 3 runs, 1 at m = 16,000) and the minor
# page faults (/proc/self/stat, Linux). Targets: at most 10% of the time in
# the system at m = 16,000; the time (user + system) growing with exponent
# at most 2.1 from m = 1,000 to 16,000 (least squares of log time on log m;
# the elapsed exponent is printed beside it, which a loaded machine blurs).
# hsic() and the gamma test make K (and a full L) a panel of columns at a
# time, never whole: ?hsic_test and R/hsic.R say why.
#
# Part "factor" (default m = 2000, 5000, 8000; d = 50, two classes, the
# Gaussian kernels' defaults): per m, hsic() with the class labels on one
# thread, user and system seconds (medians of `reps` runs): K made in
# symmetric panels (half of its values), as for a numeric outcome. Run it
# with two builds (R_LIBS) to compare them.
suppressPackageStartupMessages({
  library(bahsic)
  library(dHSIC)
})
args <- commandArgs(trailingOnly = TRUE)
part <- if (length(args) && args[1L] %in% c("dhsic", "memory", "factor")) args[1L] else "all"
if (part != "all") args <- args[-1L]
ms <- if (length(args)) as.integer(args) else c(500L, 1000L, 2000L, 4000L, 8000L)
ms_memory <- if (length(args)) as.integer(args) else c(1000L, 2000L, 4000L, 8000L, 16000L)
ms_factor <- if (length(args)) as.integer(args) else c(2000L, 5000L, 8000L)
d <- 50
reps <- 5
met <- function(ok) if (isTRUE(ok)) "met" else "NOT MET"

# the median over n runs of the CPU seconds (user + system) of f(): on one
# thread what it costs, which a machine shared with other work blurs far
# less than the elapsed time (set BENCH_ELAPSED=1 for elapsed seconds); a
# call of a few milliseconds is repeated k times per run, so that each run
# takes some 0.2 s (the CPU clock ticks in milliseconds)
timed <- function(f, n = reps) {
  secs <- function(t) {
    if (nzchar(Sys.getenv("BENCH_ELAPSED"))) t[["elapsed"]] else t[["user.self"]] + t[["sys.self"]]
  }
  k <- max(1L, min(1000L, ceiling(0.2 / max(secs(system.time(f())), 1e-3))))
  one <- function() secs(system.time(for (i in seq_len(k)) f())) / k
  median(vapply(seq_len(n), function(i) one(), numeric(1)))
}

cat(sprintf("load average at start: %s\n", paste(
  tryCatch(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3], error = function(e) "?"),
  collapse = " ")))
ratios <- c()
if (part %in% c("all", "dhsic")) for (m in ms) {
  set.seed(1)
  x <- matrix(rnorm(m * d), m, d)
  y <- matrix(x[, 1] * x[, 2] + rnorm(m), m, 1)
  h <- hsic(x, y[, 1], estimator = "biased", threads = 1L)
  sx <- h$kernel$params$sigma
  sy <- h$kernel_y$params$kernel$params$sigma
  bw <- c(sqrt(1 / (2 * sx)), sqrt(1 / (2 * sy)))
  ours <- h$estimate * (m - 1)^2 / m^2
  ref <- dhsic(x, y, kernel = "gaussian.fixed", bandwidth = bw)$dHSIC

  t_ours <- timed(function() hsic(x, y[, 1], estimator = "biased", threads = 1L))
  old <- options(bahsic.simd = FALSE)
  t_base <- timed(function() hsic(x, y[, 1], estimator = "biased", threads = 1L))
  options(old)
  t_ours2 <- timed(function() hsic(x, y[, 1], estimator = "biased", threads = 2L))
  t_dhsic <- timed(function() dhsic(x, y, kernel = "gaussian"), 3L)
  kx <- kernel_gaussian(sx)
  ky <- label_kernel_regression(kernel_gaussian(sy))
  t_fixed <- timed(function() hsic(x, y[, 1], estimator = "biased", kernel = kx, kernel_y = ky,
                                   threads = 1L))
  t_dhsic_fixed <- timed(function() dhsic(x, y, kernel = "gaussian.fixed", bandwidth = bw), 3L)
  rows <- round(seq(1, m, length.out = 1000))
  t_med_sub <- timed(function() .Call(bahsic:::C_median_pairwise, x[rows, ], TRUE, 1L))
  t_med_all <- timed(function() .Call(bahsic:::C_median_pairwise, x, TRUE, 1L), 3L)
  t_med_sub2 <- timed(function() .Call(bahsic:::C_median_pairwise, x[rows, ], TRUE, 2L))
  t_med_y <- timed(function() .Call(bahsic:::C_median_pairwise, y, TRUE, 1L))

  cat(sprintf("m = %d, d = %d\n", m, d))
  cat(sprintf("  %-58s %7.3f s\n", c(
    "hsic(), median heuristic, 1 thread, AVX2 loops",
    "hsic(), median heuristic, 1 thread, baseline loops",
    "hsic(), median heuristic, 2 threads, AVX2 loops (CPU of both)",
    "dhsic(), kernel = \"gaussian\" (median heuristic)",
    "hsic(), fixed widths, 1 thread",
    "dhsic(), kernel = \"gaussian.fixed\", same widths",
    "median heuristic of the data kernel on 1000 samples",
    "median heuristic of the data kernel on all samples",
    "the same on 1000 samples, 2 threads (CPU of both)",
    "median heuristic of the outcome (one column), all samples"),
    c(t_ours, t_base, t_ours2, t_dhsic, t_fixed, t_dhsic_fixed, t_med_sub, t_med_all, t_med_sub2,
      t_med_y)), sep = "")
  ratios[as.character(m)] <- t_ours / t_dhsic
  cat(sprintf("  ratio hsic() / dhsic(): %.2f (median heuristic), %.2f (fixed widths); target <= 0.3: %s\n",
              t_ours / t_dhsic, t_fixed / t_dhsic_fixed, met(t_ours / t_dhsic <= 0.3)))
  cat(sprintf("  same widths: hsic() %.15g, dhsic() %.15g, relative difference %.2e\n",
              ours, ref, abs(ours - ref) / abs(ref)))
}
if (length(ratios)) {
  cat(sprintf("TARGET hsic() <= 0.3 x dhsic() at every m (%s), one thread: worst %.2f at m = %s: %s\n",
              paste(names(ratios), collapse = ", "), max(ratios), names(which.max(ratios)),
              met(all(ratios <= 0.3))))
}

# ---- part "memory": time in the loops, not in the system ----------------------
minflt <- function() {
  st <- tryCatch(readLines("/proc/self/stat"), error = function(e) "")
  f <- strsplit(sub("^.*\\) ", "", st), " ")[[1L]]
  if (length(f) >= 8L) as.numeric(f[8L]) else NA_real_ # field 10: minflt
}
# user, system and elapsed seconds and minor faults of f(): medians of n runs
usage <- function(f, n) {
  r <- vapply(seq_len(n), function(i) {
    invisible(gc())
    p0 <- minflt()
    t <- system.time(f())
    c(t[["user.self"]], t[["sys.self"]], t[["elapsed"]], minflt() - p0)
  }, numeric(4))
  stats::setNames(apply(r, 1L, stats::median), c("user", "system", "elapsed", "faults"))
}
if (part %in% c("all", "memory")) {
  dm <- 20L
  cat(sprintf("\nmemory path: d = %d, one thread; load average at start: %s\n", dm, paste(
    tryCatch(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3], error = function(e) "?"),
    collapse = " ")))
  calls <- list(
    "hsic(), numeric outcome" = function(x, y, cls) hsic(x, y, threads = 1L),
    "hsic(), two classes" = function(x, y, cls) hsic(x, cls, threads = 1L),
    "hsic_test() gamma, numeric" = function(x, y, cls) hsic_test(x, y, threads = 1L),
    "hsic_test() gamma, classes" = function(x, y, cls) hsic_test(x, cls, threads = 1L))
  res <- list()
  for (m in ms_memory) {
    set.seed(1)
    x <- matrix(rnorm(m * dm), m, dm)
    y <- x[, 1] * x[, 2] + rnorm(m)
    cls <- factor(x[, 1] + rnorm(m) > 0)
    for (nm in names(calls)) {
      u <- usage(function() calls[[nm]](x, y, cls), if (m >= 16000L) 1L else 3L)
      res[[nm]] <- rbind(res[[nm]], c(m = m, u))
      cat(sprintf("  m = %5d  %-28s user %7.3f s  system %6.3f s (%4.1f%%)  elapsed %7.3f s  %9.0f faults\n",
                  m, nm, u[["user"]], u[["system"]], 100 * u[["system"]] / (u[["user"]] + u[["system"]]),
                  u[["elapsed"]], u[["faults"]]))
    }
  }
  top <- max(ms_memory)
  for (nm in names(res)) {
    r <- res[[nm]]
    cpu <- r[, "user"] + r[, "system"]
    share <- r[r[, "m"] == top, "system"] / cpu[r[, "m"] == top]
    slope <- if (nrow(r) >= 2L) unname(stats::coef(stats::lm(log(cpu) ~ log(r[, "m"])))[2L]) else NA
    slope_e <- if (nrow(r) >= 2L) unname(stats::coef(stats::lm(log(r[, "elapsed"]) ~ log(r[, "m"])))[2L]) else NA
    cat(sprintf("TARGET %-28s system share at m = %d: %.1f%% (<= 10%%: %s); exponent of user + system from m = %d to %d: %.2f (<= 2.1: %s; elapsed %.2f)\n",
                nm, top, 100 * share, met(top == 16000L && share <= 0.10), min(r[, "m"]), top,
                slope, met(min(r[, "m"]) <= 1000L && top >= 16000L && slope <= 2.1), slope_e))
  }
  if (top < 16000L || min(ms_memory) > 1000L) {
    cat("(the targets are judged from m = 1000 to 16,000: run with those m to judge them)\n")
  }
}

# ---- part "factor": hsic() with class labels ---------------------------------
if (part %in% c("all", "factor")) {
  cat(sprintf("\nfactor label: d = %d, two classes, one thread, medians of %d runs; load average at start: %s\n",
              d, reps, paste(tryCatch(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3],
                                      error = function(e) "?"), collapse = " ")))
  for (m in ms_factor) {
    set.seed(1)
    x <- matrix(rnorm(m * d), m, d)
    cls <- factor(x[, 1] * x[, 2] + rnorm(m) > 0)
    u <- usage(function() hsic(x, cls, threads = 1L), reps)
    cat(sprintf("  m = %5d  hsic(), two classes  user %7.3f s  system %6.3f s  user + system %7.3f s  elapsed %7.3f s\n",
                m, u[["user"]], u[["system"]], u[["user"]] + u[["system"]], u[["elapsed"]]))
  }
}
