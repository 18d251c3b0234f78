# Exports the inputs and R's results of the workloads of the standalone
# harness (tools/harness/harness.c): the exact arguments the R functions hand
# to the C core, captured with trace() on the internal functions that build
# them, and R's rankings and statistics, which the harness asserts it
# reproduces bit for bit at every thread count.
#
#   Rscript tools/harness/export.R DIR [LIB]
#
# DIR gets one subdirectory per workload, each with binary arrays (*.bin: an
# int32 header type (1 integer, 2 double), nrow, ncol; then the values,
# little-endian) and opts.txt (name value, doubles printed with 17 digits).
# Needs the ALL package (Bioconductor) for the ALL workloads.
args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1L) stop("usage: Rscript tools/harness/export.R DIR [LIB]")
out <- args[1L]
lib <- if (length(args) >= 2L) args[2L] else NULL
suppressPackageStartupMessages({
  library(bahsic, lib.loc = lib)
  library(ALL)
})
ns <- asNamespace("bahsic")
dir.create(out, recursive = TRUE, showWarnings = FALSE)

wbin <- function(dir, name, v) {
  con <- file(file.path(dir, paste0(name, ".bin")), "wb")
  on.exit(close(con))
  int <- is.integer(v) || is.logical(v)
  dd <- if (is.matrix(v)) dim(v) else c(length(v), 1L)
  writeBin(as.integer(c(if (int) 1L else 2L, dd)), con, size = 4L, endian = "little")
  if (int) {
    writeBin(as.integer(v), con, size = 4L, endian = "little")
  } else {
    writeBin(as.double(v), con, size = 8L, endian = "little")
  }
}
wopts <- function(dir, opts) {
  lines <- vapply(names(opts), function(n) {
    v <- opts[[n]]
    txt <- if (is.double(v)) {
      ifelse(is.na(v), "NA", sprintf("%.17g", v))
    } else if (is.character(v)) {
      v
    } else {
      as.character(as.integer(v))
    }
    paste(n, paste(txt, collapse = " "))
  }, "")
  writeLines(lines, file.path(dir, "opts.txt"))
}
wdir <- function(name) {
  d <- file.path(out, name)
  dir.create(d, showWarnings = FALSE)
  d
}

# ---- BAHSIC (the exact Gaussian mode): x as C_select gets it, W, options -----
captured <- NULL
capture_select <- function() {
  captured <<- list(n = 0L)
  suppressMessages({
    trace("select_opts", where = ns, print = FALSE, exit = quote({
      captured$x <<- pr$x
      captured$opts <<- returnValue()
      captured$n <<- captured$n + 1L
    }))
    trace("run_select", where = ns, print = FALSE, exit = quote({
      captured$res <<- returnValue()
    }))
  })
}
uncapture_select <- function() {
  suppressMessages({
    untrace("select_opts", where = ns)
    untrace("run_select", where = ns)
  })
}
export_select <- function(name, x, y, ...) {
  capture_select()
  on.exit(uncapture_select())
  fit <- bahsic(x, y, threads = 1L, ...)
  if (captured$n != 1L) stop(name, ": C_select was called ", captured$n, " times")
  o <- captured$opts
  if (o$mode != bahsic:::mode_code("exact")) stop(name, ": not the exact mode")
  d <- wdir(name)
  wbin(d, "x", captured$x)
  wbin(d, "W", o$W)
  wopts(d, o[c("kernel", "p1", "p2", "direction", "policy", "grid", "grid_relative", "step",
               "n_target", "simd", "series")])
  # R's result, as C_select returned it (rank 0 = not ranked)
  wbin(d, "rank", captured$res$rank)
  wbin(d, "path", t(captured$res$path))
  cat(sprintf("%s: %d x %d, %d path rows\n", name, nrow(captured$x), ncol(captured$x),
              nrow(fit$path)))
}

data(ALL)
all_x <- t(Biobase::exprs(ALL))
all_y <- factor(substr(ALL$BT, 1, 1))
# the elimination loop alone (screen = "none": the nonlinear screen before it
# is the pair screen and per-gene tests, timed by inst/bench/bench-screen.R),
# with the series screen (the default) and without it
export_select("bahsic_all", all_x, all_y, screen = "none")
old <- options(bahsic.series = FALSE)
capture_select()
fit <- bahsic(all_x, all_y, threads = 1L, screen = "none")
uncapture_select()
options(old)
wbin(file.path(out, "bahsic_all"), "rank_exact", captured$res$rank)
wbin(file.path(out, "bahsic_all"), "path_exact", t(captured$res$path))
export_select("bahsic_golub", golub$x, golub$y, screen = "none")

# ---- stability selection's fits: BAHSIC to 20 features on 100 halves --------
# (inst/bench/bench-stability.R's workload: complementary halves of the 79
# B-lineage BCR/ABL and NEG arrays; the elimination loop of each fit)
keep <- grepl("^B", as.character(ALL$BT)) & ALL$mol.biol %in% c("BCR/ABL", "NEG")
sx <- t(Biobase::exprs(ALL)[, keep])
sy <- factor(ALL$mol.biol[keep])
set.seed(1)
m <- nrow(sx)
half <- floor(m / 2)
n_pairs <- 50L
d <- wdir("stability")
wbin(d, "xraw", sx)
rows <- matrix(0L, half, 2L * n_pairs)
W <- array(0, c(half, half, 2L * n_pairs))
rank <- matrix(0L, ncol(sx), 2L * n_pairs)
colmask <- matrix(0L, ncol(sx), 2L * n_pairs)
ncols <- integer(2L * n_pairs)
capture_select()
for (b in seq_len(n_pairs)) {
  perm <- sample.int(m)
  for (h in 1:2) {
    idx <- sort(perm[if (h == 1L) seq_len(half) else half + seq_len(half)])
    k <- 2L * (b - 1L) + h
    fit <- bahsic(sx[idx, ], sy[idx], n_features = 20L, threads = 1L, screen = "none")
    rows[, k] <- idx - 1L
    W[, , k] <- captured$opts$W
    cols <- match(colnames(captured$x), colnames(sx))
    same <- identical(unname(captured$x),
                      unname(.Call(bahsic:::C_standardize_columns, sx[idx, cols], 1L)[[1L]]))
    if (!same) stop("stability: the standardised half is not C_standardize_columns()'s")
    # the columns C saw (R's screen of constant and uninformative genes), as a
    # 0/1 mask, and C's ranks over them
    colmask[, k] <- seq_len(ncol(sx)) %in% cols
    rank[seq_along(cols), k] <- captured$res$rank
    ncols[k] <- length(cols)
    if (k == 1L) o1 <- captured$opts
  }
}
uncapture_select()
wbin(d, "rows", rows)
if (!all(colmask == 1L)) stop("stability: a fit saw a subset of the genes")
wbin(d, "ncols", ncols)
wbin(d, "W", matrix(W, half * half, 2L * n_pairs))
wbin(d, "rank", rank)
wopts(d, o1[c("kernel", "p1", "p2", "direction", "policy", "grid", "grid_relative", "step",
              "n_target", "simd", "series")])
cat(sprintf("stability: %d fits on halves of %d x %d\n", 2L * n_pairs, half, ncol(sx)))

# ---- hsic(): m = 5000, d = 50, a numeric outcome ----------------------------------
set.seed(1)
mh <- 5000L
xh <- matrix(stats::rnorm(mh * 50L), mh, 50L)
yh <- xh[, 1]^2 + stats::rnorm(mh)
# what the statistics are computed from: the data and the outcome as
# hsic_prepare() hands them on, and the two widths (the data's by the median
# on median_rows(m), the outcome's over all pairs)
hs <- NULL
trace("hsic_from", where = ns, print = FALSE, tracer = quote({
  hs <<- list(x = prep$x, sigma1 = prep$kernel_x$params$sigma, y = prep$label$src,
              sigma2 = prep$label$kernel$params$kernel$params$sigma)
}))
est <- hsic(xh, yh, threads = 1L)
untrace("hsic_from", where = ns)
if (is.null(hs$y)) stop("hsic(): the outcome's label was not made from the outcome")
d <- wdir("hsic")
wbin(d, "z1", hs$x)
wbin(d, "z2", hs$y)
cat(sprintf("hsic(): %d x %d, sigma %.6g; outcome sigma %.6g\n", nrow(hs$x), ncol(hs$x),
            hs$sigma1, hs$sigma2))
wbin(d, "median_rows", as.integer(bahsic:::median_rows(mh) - 1L))
wopts(d, list(kernel = bahsic:::kernel_code(kernel_gaussian()), sigma1 = hs$sigma1,
              sigma2 = hs$sigma2, estimate = est$estimate))

# ---- maxT: Welch's t on ALL BCR/ABL vs NEG, 1,000 labellings ------------------
mt <- list(perm = list(), raw = 0, adj = 0)
trace("maxt_count", where = ns, print = FALSE, exit = quote({
  mt$prep <<- prep
  mt$opts <<- opts
  mt$perm[[length(mt$perm) + 1L]] <<- perm
  mt$raw <<- mt$raw + returnValue()$raw
  mt$adj <<- mt$adj + returnValue()$adj
}))
set.seed(1)
pv <- bahsic:::permutation_pvalues(sx, sy, "t", n_perm = 1000L, threads = 1L)
untrace("maxt_count", where = ns)
d <- wdir("maxt")
wbin(d, "xt", mt$prep$xt)
wbin(d, "cls", mt$prep$opts$cls)
wbin(d, "perm", do.call(cbind, mt$perm) - 1L)
wbin(d, "order", mt$opts$order)
wbin(d, "thr", mt$opts$thr)
wbin(d, "raw", as.integer(mt$raw))
wbin(d, "adj", as.integer(mt$adj))
wopts(d, list(method = mt$prep$opts$method))
cat(sprintf("maxt: %d x %d, %d labellings (method %s)\n", ncol(sx), nrow(sx),
            ncol(do.call(cbind, mt$perm)), mt$prep$opts$method))
