# bahsic()'s screen (screen = "nonlinear", the default) against screen = "none"
# and limma: planted signal among N(0, 1) noise genes, m = 100, rank of the
# planted pair's worse member (or of the single gene), recall of 10 linear
# genes in the top 20, seeds on null data, and time.
#   Rscript inst/bench/bench-screen.R [p] [repeats] [kinds, comma-separated] [first repeat]
# Times: elapsed and CPU (user + system) seconds of one call with threads = 1.
#   Rscript inst/bench/bench-screen.R widths
# instead ranks the planted XOR pair and U-shaped gene among 2,000 genes
# with screen = "none" and each width policy (5 repeats).
suppressPackageStartupMessages(library(bahsic))
args <- commandArgs(trailingOnly = TRUE)
if (length(args) && args[1L] == "widths") {
  m <- 100L
  p <- 2000L
  policies <- list(dimension = list(), optimize = list(sigma = "optimize"),
                   fixed_median = list(sigma = "fixed"),
                   fixed_narrow = list(sigma = "fixed", kernel = kernel_gaussian(sigma = 1 / 20)))
  for (kind in c("xor", "u")) for (nm in names(policies)) {
    r <- vapply(1:5, function(rep) {
      set.seed(100 + rep)
      x <- matrix(rnorm(m * p), m)
      pl <- sample.int(p, if (kind == "xor") 2L else 1L)
      y <- if (kind == "xor") {
        factor(sign(x[, pl[1L]]) * sign(x[, pl[2L]]))
      } else {
        log(stats::rexp(m, rate = exp(1.5 * x[, pl]^2)))
      }
      fit <- do.call(bahsic, c(list(x, y, screen = "none", threads = 1L), policies[[nm]]))
      max(fit$features$rank[pl])
    }, numeric(1))
    cat(sprintf("%-4s %-13s ranks: %s\n", kind, nm, paste(r, collapse = ", ")))
  }
  xs <- scale(matrix(rnorm(m * p), m))
  d2 <- as.matrix(stats::dist(xs))^2
  off <- exp(-d2 / (2 * p))[upper.tri(d2)]
  cat(sprintf("dimension width, %d genes: off-diagonal kernel mean %.4f, sd %.4f\n",
              p, mean(off), stats::sd(off)))
  quit(save = "no")
}
p <- if (length(args)) as.integer(args[1L]) else 2000L
reps <- if (length(args) > 1L) as.integer(args[2L]) else 10L
first <- if (length(args) > 3L) as.integer(args[4L]) else 1L
m <- 100L
gen <- function(kind) {
  x <- matrix(rnorm(m * p), m)
  colnames(x) <- paste0("g", seq_len(p))
  pl <- sample.int(p, if (kind == "linear") 10L else if (kind == "u") 1L else 2L)
  a <- x[, pl[1L]]
  b <- if (length(pl) > 1L) x[, pl[2L]]
  y <- switch(kind,
    xor = factor(sign(a) * sign(b)),
    xor_cont = a * b + rnorm(m),
    ring = factor(a^2 + b^2 > 2 * log(2)),
    u = log(stats::rexp(m, rate = exp(1.5 * a^2))),
    null = factor(rep(1:2, length.out = m)),
    linear = {
      cl <- factor(rep(1:2, length.out = m))
      x[, pl] <- x[, pl] + 0.8 * (cl == "2")
      cl
    })
  list(x = x, y = y, planted = pl)
}
worst <- function(fit, pl) max(fit$features$rank[pl])
recall <- function(ranking, pl, top = 20L) mean(pl %in% ranking[seq_len(top)])
kinds <- if (length(args) > 2L) strsplit(args[3L], ",")[[1L]] else c("xor", "xor_cont", "ring", "u", "linear", "null")
for (kind in kinds) {
  out <- vapply(first - 1L + seq_len(reps), function(r) {
    set.seed(1000L * r + nchar(kind))
    d <- gen(kind)
    t1 <- system.time(f1 <- bahsic(d$x, d$y, threads = 1L))
    t0 <- system.time(f0 <- bahsic(d$x, d$y, screen = "none", threads = 1L))
    lim <- if (kind == "linear") {
      design <- stats::model.matrix(~ d$y)
      fit <- limma::eBayes(limma::lmFit(t(d$x), design))
      recall(colnames(d$x)[order(fit$p.value[, 2L])], colnames(d$x)[d$planted])
    } else NA
    c(default = if (kind == "linear") recall(f1$ranking, colnames(d$x)[d$planted]) else worst(f1, d$planted),
      none = if (kind == "linear") recall(f0$ranking, colnames(d$x)[d$planted]) else worst(f0, d$planted),
      limma = lim, seeds = length(f1$screen$seeds), pairs = nrow(f1$screen$pairs),
      t_default = t1[["elapsed"]], t_none = t0[["elapsed"]],
      c_default = t1[["user.self"]] + t1[["sys.self"]], c_none = t0[["user.self"]] + t0[["sys.self"]])
  }, numeric(9))
  cat(sprintf("p = %d, %s (%d repeats):\n", p, kind, reps))
  if (kind == "linear") {
    cat(sprintf("  recall of 10 linear genes in top 20: default %.3f, none %.3f, limma %.3f\n",
                mean(out["default", ]), mean(out["none", ]), mean(out["limma", ])))
  } else {
    cat(sprintf("  rank (default): %s\n  rank (none):    %s\n",
                paste(out["default", ], collapse = " "), paste(out["none", ], collapse = " ")))
    if (kind != "null") {
      cat(sprintf("  top 20: default %d/%d, none %d/%d; top 10: default %d/%d\n",
                  sum(out["default", ] <= 20), reps, sum(out["none", ] <= 20), reps,
                  sum(out["default", ] <= 10), reps))
    }
  }
  cat(sprintf(paste0("  seeds: %s; pairs: %s\n  time (s, 1 thread, median): default %.2f, ",
                     "none %.2f elapsed; default %.2f, none %.2f CPU\n"),
              paste(out["seeds", ], collapse = " "), paste(out["pairs", ], collapse = " "),
              stats::median(out["t_default", ]), stats::median(out["t_none", ]),
              stats::median(out["c_default", ]), stats::median(out["c_none", ])))
}
