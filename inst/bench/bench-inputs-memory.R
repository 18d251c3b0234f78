# Memory of out-of-memory and sparse inputs (?`input-classes`): a
# SingleCellExperiment of 2,000 cells x 20,000 genes whose logcounts assay is
# an HDF5 file on disk (HDF5Array) or a sparse dgCMatrix (10% non-zero).
#
# For each mode, in a fresh R process (so the peaks are its own): the size of
# the result, R's heap peak (gc() "max used" of Ncells + Vcells after
# gc(reset = TRUE)), the process peak (VmHWM of /proc/self/status) and the
# elapsed seconds:
#   normalise     bahsic's normaliser: the dense 2000 x 20000 samples x
#                 features matrix hsic() and the selectors work on, built a
#                 block of genes at a time
#   asmatrix      what realising it whole costs: t(as.matrix(assay))
#   scores        feature_scores(method = "mt"): block by block, never the
#                 whole dense matrix (default block size)
#   scores_block  the same with block_size = 1000 genes
#
# Needs HDF5Array and SingleCellExperiment (and Matrix). Usage, after
# installing the package:
#   Rscript inst/bench/bench-inputs-memory.R [hdf5|sparse|all]

args <- commandArgs(trailingOnly = TRUE)
what <- if (length(args) >= 1L) args[1L] else "all"
n_cells <- 2000L
n_genes <- 20000L

vm_hwm_mb <- function() {
  st <- tryCatch(readLines("/proc/self/status"), error = function(e) character())
  line <- grep("^VmHWM:", st, value = TRUE)
  if (length(line)) as.numeric(gsub("[^0-9]", "", line)) / 1024 else NA_real_
}

# the container: genes x cells, as Bioconductor stores it
make_sce <- function(kind, h5) {
  suppressPackageStartupMessages(library(SingleCellExperiment))
  a <- if (kind == "hdf5") {
    HDF5Array::HDF5Array(h5, "logcounts")
  } else {
    set.seed(1)
    s <- Matrix::rsparsematrix(n_genes, n_cells, density = 0.1,
                               rand.x = function(n) log1p(stats::rpois(n, 2) + 1))
    rownames(s) <- sprintf("gene%05d", seq_len(n_genes))
    s
  }
  SingleCellExperiment(assays = list(logcounts = a),
                       colData = DataFrame(group = factor(rep_len(c("a", "b"), n_cells))))
}

run_one <- function(kind, mode, h5) {
  suppressPackageStartupMessages(library(bahsic))
  sce <- make_sce(kind, h5)
  invisible(gc(reset = TRUE))
  g0 <- gc(reset = TRUE)
  h0 <- vm_hwm_mb()
  sec <- system.time(res <- switch(mode,
    normalise = bahsic:::normalise_inputs(sce, "group", assay = "logcounts")$x,
    asmatrix = t(as.matrix(SummarizedExperiment::assay(sce, "logcounts"))),
    scores = feature_scores(sce, "group", method = "mt", assay = "logcounts"),
    scores_block = feature_scores(sce, "group", method = "mt", assay = "logcounts",
                                  block_size = 1000)))[["elapsed"]]
  g <- gc()
  cat(sprintf("%-6s %-12s result %6.1f MB | R heap before %6.1f MB, peak %6.1f MB | VmHWM %5.0f -> %5.0f MB | %5.1f s\n",
              kind, mode, as.numeric(utils::object.size(res)) / 2^20, sum(g0[, 2L]),
              sum(g[, 6L]), h0, vm_hwm_mb(), sec))
}

if (length(args) == 4L && args[1L] == "--one") {
  run_one(args[2L], args[3L], args[4L])
} else {
  for (p in c("HDF5Array", "SingleCellExperiment", "Matrix")) {
    if (!requireNamespace(p, quietly = TRUE)) stop("this benchmark needs ", p)
  }
  h5 <- tempfile(fileext = ".h5")
  on.exit(unlink(h5))
  kinds <- if (what == "all") c("hdf5", "sparse") else what
  if ("hdf5" %in% kinds) {
    # genes x cells logcounts written a block of genes at a time
    suppressPackageStartupMessages(library(HDF5Array))
    set.seed(1)
    sink <- HDF5RealizationSink(c(n_genes, n_cells), type = "double", filepath = h5,
                                name = "logcounts", level = 1L,
                                dimnames = list(sprintf("gene%05d", seq_len(n_genes)), NULL))
    grid <- rowAutoGrid(sink, nrow = 2000L)
    for (b in seq_along(grid)) {
      vp <- grid[[b]]
      sink <- write_block(sink, vp, matrix(log1p(stats::rpois(prod(dim(vp)), 0.5)), nrow(vp)))
    }
    close(sink)
  }
  cat(sprintf("%d cells x %d genes; %s\n", n_cells, n_genes, R.version.string))
  rscript <- file.path(R.home("bin"), "Rscript")
  script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  for (kind in kinds) {
    for (mode in c("normalise", "asmatrix", "scores", "scores_block")) {
      system2(rscript, c(shQuote(script), "--one", kind, mode, shQuote(h5)))
    }
  }
}
