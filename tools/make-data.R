# Build data/golub.rda from Bioconductor's multtest (LGPL), which ships the Golub et al. (1999)
# leukaemia training set already preprocessed (see R/data.R for what was done to it).
#
#   Rscript tools/make-data.R        (from the repository root; needs r-bioc-multtest)
#
# The result is deterministic: running it again gives the same object.

if (!requireNamespace("multtest", quietly = TRUE)) {
  stop("multtest is not installed: run bash tools/install-deps.sh", call. = FALSE)
}
if (!dir.exists("data")) {
  stop("run from the repository root (no data/ directory here)", call. = FALSE)
}

env <- new.env()
utils::data("golub", package = "multtest", envir = env)
expr <- env$golub # genes x samples, 3051 x 38
cl <- env$golub.cl # 0 = ALL, 1 = AML
gnames <- env$golub.gnames # columns: index, description ("ID"), probe id ("Name")

stopifnot(
  identical(dim(expr), c(3051L, 38L)),
  length(cl) == ncol(expr), all(cl %in% c(0, 1)),
  nrow(gnames) == nrow(expr), ncol(gnames) == 3L
)

probe <- make.unique(as.character(gnames[, 3]))
x <- t(expr) # samples x genes, as everywhere in bahsic
storage.mode(x) <- "double"
dimnames(x) <- list(sprintf("S%02d", seq_len(nrow(x))), probe)

golub <- list(
  x = x,
  y = factor(ifelse(cl == 0, "ALL", "AML"), levels = c("ALL", "AML")),
  genes = data.frame(
    probe = probe,
    description = as.character(gnames[, 2]),
    stringsAsFactors = FALSE
  )
)

stopifnot(
  identical(dim(golub$x), c(38L, 3051L)),
  identical(as.vector(table(golub$y)), c(27L, 11L)),
  !anyDuplicated(colnames(golub$x)),
  identical(golub$genes$probe, colnames(golub$x))
)

out <- file.path("data", "golub.rda")
save(golub, file = out, compress = "xz")
message(sprintf("wrote %s: %.0f kB", out, file.size(out) / 1024))
