# The accuracy and cost of approx = "ichol" (pivoted incomplete Cholesky,
# Song et al. 2012, section 2.6) against its rank and its tolerance, and the
# relation between the residual trace(K - GG') / trace(K) and the error of
# HSIC0 and HSIC1: what the default of approx_ichol() (tol = 1e-3, at most
# 500 columns) and its warning (residual above 1%) rest on.
#
# Data: m samples of d standard normal features (d = 1, 5, 20, 50) and of 50
# features that are noisy copies of 5 latent ones ("50 (5 latent)"); the
# outcome depends on x1 (and x2): yr = sin(2 x1) + x2^2 - 1 + N(0, 0.25), yc
# = yr above its median. Label kernels: the binary label kernel of yc
# (exactly rank 1) and the Gaussian regression label kernel of yr (factored
# by ichol as well). Data kernel: Gaussian, median heuristic.
#
# 1. Error against rank: one factorisation to the largest rank (tol = 0) per
#    design; its first r columns are what max_rank = r gives (the pivots do
#    not depend on max_rank), so HSIC at every r comes from the same factor.
#    The reference is the exact HSIC with the same widths (the data and label
#    kernels resolved as the approximation resolves them: median over at most
#    1000 samples), so that the error is the factorisation's alone.
# 2. The rank and error at which tol (largest residual diagonal <= tol times
#    the largest diagonal) stops, from the same factor.
# 3. Elapsed seconds of hsic(approx = approx_ichol(tol = 1e-12, max_rank = r))
#    (best of `reps` runs; the rank actually reached in brackets).
# 4. The defaults as a user meets them: hsic(x, y, approx = "ichol") against
#    hsic(x, y), the rank reached, the residual, the elapsed seconds and
#    whether it warned. Above 1000 samples the two differ also by their
#    widths (the approximate paths take the median heuristic over 1000 evenly
#    spaced samples, exact hsic() over all): about 1% at m = 2000 for 1 and 5
#    features, where the factor itself is within 0.05% (tables 1 and 2).
#
# Usage, after installing the package:
#   Rscript inst/bench/bench-ichol.R [m values, comma-separated] [reps] [tables]
# e.g. Rscript inst/bench/bench-ichol.R 2000,10000 3 (about 10 minutes on one
# core; the exact references at m = 10,000 need about 3 GB), or only the
# timings: Rscript inst/bench/bench-ichol.R 2000,10000 5 3.

suppressPackageStartupMessages(library(bahsic))
ns <- asNamespace("bahsic")

args <- commandArgs(trailingOnly = TRUE)
ms <- if (length(args) >= 1L) as.integer(strsplit(args[1L], ",")[[1L]]) else c(2000L, 10000L)
reps <- if (length(args) >= 2L) as.integer(args[2L]) else 3L
tables <- if (length(args) >= 3L) as.integer(strsplit(args[3L], "")[[1L]]) else 1:4
designs <- c("1", "5", "20", "50", "50 (5 latent)")
ranks <- c(25, 50, 100, 200, 300, 500, 700, 1000, 1500, 2000, 3000)
tols <- c(1e-2, 1e-3, 1e-4, 1e-6)
options(bahsic.max_memory = 16 * 1024^3)

make_data <- function(design, m) {
  set.seed(1)
  x <- if (design == "50 (5 latent)") {
    z <- matrix(rnorm(m * 5), m, 5)
    z[, rep(1:5, 10)] + 0.3 * matrix(rnorm(m * 50), m, 50)
  } else {
    d <- as.integer(design)
    matrix(rnorm(m * d), m, d)
  }
  yr <- sin(2 * x[, 1]) + (if (ncol(x) > 1L) x[, 2]^2 - 1 else 0) + rnorm(m, sd = 0.5)
  list(x = x, yr = yr, yc = factor(yr > stats::median(yr)))
}

best_time <- function(expr_fn, n) {
  min(vapply(seq_len(n), function(i) system.time(expr_fn())[["elapsed"]], numeric(1)))
}

fmt <- function(df) {
  for (k in intersect(c("residual", "max_diag"), names(df))) df[[k]] <- sprintf("%.4f", df[[k]])
  for (k in intersect(c("err0", "err1"), names(df))) df[[k]] <- sprintf("%+.2f%%", 100 * df[[k]])
  df
}

# Tables 1 and 2, and the ratio of the error to the residual trace.
accuracy <- function() {
  acc <- list()
  stops <- list()
  for (m in ms) {
    rmax <- min(m, 3000L)
    for (design in designs) {
      dat <- make_data(design, m)
      kx <- ns$resolve_width_approx(kernel_gaussian(), dat$x)
      p <- ns$kernel_param(kx)
      f <- .Call(ns$C_ichol, dat$x, list(kernel = ns$kernel_code(kx), p1 = p[1L], p2 = p[2L],
                                         tol = 0, max_rank = rmax))
      G <- f$G
      rr <- ncol(G)
      # residual trace and largest residual diagonal after every column
      rho <- 1 - cumsum(colSums(G^2)) / f$trace
      rowsq <- numeric(m)
      maxdiag <- numeric(rr)
      for (j in seq_len(rr)) {
        rowsq <- rowsq + G[, j]^2
        maxdiag[j] <- max(1 - rowsq)
      }
      for (lab in c("binary", "regression")) {
        y <- if (lab == "binary") dat$yc else dat$yr
        ky <- ns$resolve_label_kernel(NULL, y)
        fy <- ns$label_factor(ky, y, approx_ichol(tol = 1e-12, max_rank = 1000L), warn = FALSE)
        ex <- hsic(dat$x, y, kx, fy$kernel)
        err_at <- function(r) {
          st <- .Call(ns$C_lowrank_hsic, G[, seq_len(r), drop = FALSE], fy$F)
          c(st[1L] / ex$hsic0 - 1, st[2L] / ex$hsic1 - 1)
        }
        for (r in ranks[ranks <= rr]) {
          e <- err_at(r)
          acc[[length(acc) + 1L]] <- data.frame(m = m, d = design, label = lab, rank = r,
                                                residual = rho[r], max_diag = maxdiag[r],
                                                err0 = e[1L], err1 = e[2L])
        }
        for (tol in tols) {
          r <- which(maxdiag <= tol)[1L]
          capped <- is.na(r)
          if (capped) r <- rr
          e <- err_at(r)
          stops[[length(stops) + 1L]] <- data.frame(
            m = m, d = design, label = lab, tol = tol,
            rank = if (capped) sprintf(">%d", rr) else as.character(r),
            residual = rho[r], err0 = e[1L], err1 = e[2L])
        }
      }
      cat(sprintf("[m = %d, d = %s done]\n", m, design), file = stderr())
    }
  }
  acc <- do.call(rbind, acc)
  stops <- do.call(rbind, stops)

  cat("\n## 1. Relative error of HSIC0 and HSIC1 against the rank (same widths as exact)\n\n")
  print(fmt(acc), row.names = FALSE)

  cat("\n## 2. Where tol stops (largest residual diagonal <= tol x largest diagonal)\n\n")
  print(fmt(stops), row.names = FALSE)

  cat("\n## Residual trace against error: |error| / residual over the rows with residual >= 0.5%\n\n")
  big <- acc[acc$residual >= 0.005, ]
  ratio <- pmax(abs(big$err0), abs(big$err1)) / big$residual
  summ <- aggregate(ratio, by = list(m = big$m, d = big$d),
                    FUN = function(v) c(max = max(v), median = stats::median(v)))
  summ <- data.frame(m = summ$m, d = summ$d, max_ratio = sprintf("%.2f", summ$x[, "max"]),
                     median_ratio = sprintf("%.2f", summ$x[, "median"]))
  print(summ, row.names = FALSE)
  small <- acc$residual <= 0.01
  cat(sprintf(paste0("overall: max %.2f, median %.2f over %d rows; rows with residual <= 1%%: ",
                     "largest |error| %.2f%%\n"),
              max(ratio), stats::median(ratio), length(ratio),
              100 * max(abs(c(acc$err0[small], acc$err1[small])))))
}

timings <- function() {
  cat("\n## 3. Elapsed seconds of hsic(approx = approx_ichol(tol = 1e-12, max_rank = r)),",
      "binary labels\n\n")
  tim <- list()
  for (m in ms) {
    for (design in c("5", "20", "50")) {
      dat <- make_data(design, m)
      for (r in c(100, 200, 500, 1000, 2000)) {
        if (r > m) next
        a <- approx_ichol(tol = 1e-12, max_rank = r)
        fit <- suppressWarnings(hsic(dat$x, dat$yc, approx = a))
        t <- best_time(function() suppressWarnings(hsic(dat$x, dat$yc, approx = a)),
                       if (r >= 2000) 1L else reps)
        tim[[length(tim) + 1L]] <- data.frame(m = m, d = design, max_rank = r,
                                              rank = fit$rank[["x"]], seconds = round(t, 2))
      }
    }
  }
  print(do.call(rbind, tim), row.names = FALSE)
}

defaults <- function() {
  cat("\n## 4. The default: hsic(x, y, approx = \"ichol\") against hsic(x, y)\n\n")
  dflt <- list()
  for (m in ms) {
    for (design in designs) {
      dat <- make_data(design, m)
      for (lab in c("binary", "regression")) {
        y <- if (lab == "binary") dat$yc else dat$yr
        ex <- hsic(dat$x, y)
        warned <- FALSE
        fit <- withCallingHandlers(hsic(dat$x, y, approx = "ichol"), warning = function(w) {
          warned <<- TRUE
          invokeRestart("muffleWarning")
        })
        t <- best_time(function() suppressWarnings(hsic(dat$x, y, approx = "ichol")), reps)
        dflt[[length(dflt) + 1L]] <- data.frame(
          m = m, d = design, label = lab, rank = fit$rank[["x"]],
          residual = sprintf("%.4f", fit$residual[["x"]]),
          err0 = sprintf("%+.2f%%", 100 * (fit$hsic0 / ex$hsic0 - 1)),
          err1 = sprintf("%+.2f%%", 100 * (fit$hsic1 / ex$hsic1 - 1)),
          seconds = round(t, 2), warned = warned)
      }
    }
  }
  print(do.call(rbind, dflt), row.names = FALSE)
}

if (any(1:2 %in% tables)) accuracy()
if (3L %in% tables) timings()
if (4L %in% tables) defaults()
cat(sprintf("\nR %s, bahsic %s, %s; load average at the end: %s\n", getRversion(),
            utils::packageVersion("bahsic"), Sys.info()[["machine"]],
            paste(tryCatch(readLines("/proc/loadavg"), error = function(e) "NA"))))
