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
  # the data as R has it (the harness standardises it as prepare_problem()
  # does: asserted here)
  xs <- .Call(bahsic:::C_standardize_columns, x, 1L)[[1L]]
  if (!identical(unname(captured$x), unname(xs))) {
    stop(name, ": C_select's x is not C_standardize_columns() of the data")
  }
  wbin(d, "xraw", x)
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

# ---- the default bahsic(): every C routine of the call, replayed ---------------
# (the nonlinear screen's per-gene tests, pair screen and pair tests, then
# BAHSIC on the seeds and on the other genes). Every .Call() of
# bahsic(x, y, threads = 1) is recorded, in order, with its arguments and
# result, and written as a tape (tape.txt) that the harness replays routine
# after routine: an argument is a value seen before (the result or argument
# of an earlier call, `ref`), some of a value's columns (`sub`, by the
# columns' names: R's x[, idx]) or, only where neither, a file (`lit`). A
# result gets a checksum of its bytes (two sums over its 16-bit words, one
# weighted by the word's position modulo 4096), which the harness's result
# must match. What R does between the calls (its p-value adjustments, which
# genes pass, the subsets) is R's part and not replayed: the harness times
# the routines alone. The routines that do no numeric work on the data
# (C_first_unnamed on the names, C_pair_top_bytes's memory estimate) are
# left out of the tape.
record_calls <- function(expr) {
  rec <- new.env()
  rec$calls <- list()
  recorder <- function(.NAME, ...) {
    args <- list(...)
    res <- do.call(.Call, c(list(.NAME), args))
    rec$calls[[length(rec$calls) + 1L]] <- list(name = .NAME$name, args = args, res = res)
    res
  }
  rewrite <- function(e) {
    if (is.call(e)) {
      if (identical(e[[1L]], as.name(".Call"))) e[[1L]] <- recorder
      for (i in seq_along(e)) {
        if (!(is.name(e[[i]]) && !nzchar(as.character(e[[i]]))) && !is.null(e[[i]])) {
          e[[i]] <- rewrite(e[[i]])
        }
      }
    }
    e
  }
  saved <- list()
  on.exit(for (nm in names(saved)) {
    unlockBinding(nm, ns)
    assign(nm, saved[[nm]], envir = ns)
    lockBinding(nm, ns)
  })
  for (nm in ls(ns, all.names = TRUE)) {
    f <- get(nm, envir = ns)
    if (!is.function(f) || is.primitive(f) ||
        !any(grepl(".Call(", deparse(body(f)), fixed = TRUE))) next
    saved[[nm]] <- f
    body(f) <- rewrite(body(f))
    unlockBinding(nm, ns)
    assign(nm, f, envir = ns)
    lockBinding(nm, ns)
  }
  value <- force(expr)
  list(value = value, calls = rec$calls)
}

# the checksum of a double, integer or logical vector's bytes (see above)
checksum <- function(v) {
  r <- if (is.double(v)) writeBin(as.vector(v), raw(), endian = "little") else
    writeBin(as.integer(v), raw(), size = 4L, endian = "little")
  u <- readBin(r, "integer", n = length(r) %/% 2L, size = 2L, signed = FALSE,
               endian = "little")
  if (length(u) > 3e7) stop("checksum: a value of more than 60 MB")
  k <- (seq_along(u) - 1L) %% 4096L
  c(sum(as.double(u)), sum(as.double(u) * k))
}

write_tape <- function(name, calls, skip = c("C_first_unnamed", "C_pair_top_bytes"),
                       known = list()) {
  d <- wdir(name)
  values <- list() # id -> list(v = plain vector, dim, names = colnames)
  lines <- character()
  nfile <- 0L
  lit <- function(v) {
    # (a value another workload has written already: its file)
    for (k in names(known)) {
      if (identical(as.vector(v), as.vector(known[[k]]), num.eq = FALSE)) return(k)
    }
    nfile <<- nfile + 1L
    f <- sprintf("v%03d", nfile)
    wbin(d, f, if (is.logical(v)) as.integer(v) else v)
    f
  }
  plain <- function(v) {
    list(v = as.vector(if (is.logical(v)) as.integer(v) else v), dim = dim(v),
         names = colnames(v))
  }
  add <- function(v) {
    values[[length(values) + 1L]] <<- plain(v)
    length(values)
  }
  find_same <- function(pv) {
    for (id in rev(seq_along(values))) {
      w <- values[[id]]
      if (identical(w$dim, pv$dim) && typeof(w$v) == typeof(pv$v) &&
          length(w$v) == length(pv$v) && identical(w$v, pv$v, num.eq = FALSE)) return(id)
    }
    0L
  }
  find_sub <- function(pv) {
    if (length(pv$dim) != 2L || is.null(pv$names)) return(NULL)
    for (id in rev(seq_along(values))) {
      w <- values[[id]]
      if (length(w$dim) != 2L || w$dim[1L] != pv$dim[1L] || is.null(w$names) ||
          typeof(w$v) != typeof(pv$v)) next
      idx <- match(pv$names, w$names)
      if (anyNA(idx) || anyDuplicated(w$names)) next
      sub <- matrix(w$v, w$dim[1L])[, idx, drop = FALSE]
      if (identical(as.vector(sub), pv$v, num.eq = FALSE)) return(list(id = id, idx = idx))
    }
    NULL
  }
  arg_line <- function(pos, nm, v) {
    if (is.null(v)) return(sprintf("arg %d %s 0 null", pos, nm))
    if (is.character(v)) stop(name, ": a character argument")
    pv <- plain(v)
    id <- if (length(pv$v) >= 16L) find_same(pv) else 0L
    if (id > 0L) return(sprintf("arg %d %s %d ref", pos, nm, id))
    s <- if (length(pv$v) >= 16L) find_sub(pv)
    if (!is.null(s)) {
      new <- add(v)
      return(sprintf("arg %d %s %d sub %d %s", pos, nm, new, s$id, lit(s$idx)))
    }
    new <- add(v)
    sprintf("arg %d %s %d lit %s", pos, nm, new, lit(v))
  }
  n_calls <- 0L
  for (cl in calls) {
    if (cl$name %in% skip) next
    n_calls <- n_calls + 1L
    lines <- c(lines, sprintf("call %s %d", cl$name, length(cl$args)))
    for (a in seq_along(cl$args)) {
      v <- cl$args[[a]]
      if (is.list(v)) {
        for (nm in names(v)) lines <- c(lines, arg_line(a, nm, v[[nm]]))
      } else {
        lines <- c(lines, arg_line(a, "-", v))
      }
    }
    res <- if (is.list(cl$res)) cl$res else list(value = cl$res)
    if (is.null(names(res))) names(res) <- seq_along(res)
    for (nm in names(res)) {
      v <- res[[nm]]
      if (is.null(v)) {
        lines <- c(lines, sprintf("out %s 0 null", nm))
        next
      }
      id <- add(v)
      dd <- if (is.null(dim(v))) c(length(v), 1L) else dim(v)
      s <- checksum(v)
      lines <- c(lines, sprintf("out %s %d %d %d %d %.0f %.0f", nm, id,
                                if (is.double(v)) 2L else 1L, dd[1L], dd[2L], s[1L], s[2L]))
    }
  }
  writeLines(c(sprintf("tape %d", n_calls), lines), file.path(d, "tape.txt"))
  size <- sum(file.size(list.files(d, full.names = TRUE)))
  cat(sprintf("%s: %d calls replayed, %d files, %.1f MB\n", name, n_calls, nfile, size / 2^20))
}

rec <- record_calls(bahsic(all_x, all_y, threads = 1L))
write_tape("default_all", rec$calls, known = list("../bahsic_all/xraw" = all_x))
rec <- record_calls(bahsic(golub$x, golub$y, threads = 1L))
write_tape("default_golub", rec$calls, known = list("../bahsic_golub/xraw" = golub$x))
