# Loading Matrix, DelayedArray, HDF5Array and SingleCellExperiment takes
# seconds: those tests are behind skip_on_cran() and skip_peer() (valgrind).
#
# Sparse and out-of-memory inputs (R/inputs.R: block_source(), read_block(),
# source_matrix()) and feature_scores() by feature blocks (R/scores.R): every
# class gives exactly the result of the dense samples x features matrix, for
# any block size and back end, and the data are only ever read a block at a
# time.

# samples x features, about half the entries zero (so a sparse matrix is
# worth it), one informative feature, names on the features
sparse_toy <- function(m = 24, d = 11, seed = 7) {
  dat <- toy_binary(m = m, d = d, seed = seed, informative = 3L, shift = 2)
  x <- dat$x
  x[abs(x) < 0.6] <- 0
  rownames(x) <- paste0("s", seq_len(m))
  list(x = x, y = dat$y, num = x[, 3L] + seq_len(m) / m)
}

# the parts of a result that do not record the call
strip_call <- function(fit) {
  fit <- unclass(fit)
  fit$call <- NULL
  fit
}

# Everything the entry points compute on `input` equals their result on the
# dense matrix `x` (assay and y as the entry point takes them).
expect_same_results <- function(input, x, y, y_input = y, assay = 1L) {
  expect_identical(strip_call(hsic(input, y_input, assay = assay)), strip_call(hsic(x, y)))
  expect_identical(strip_call(bahsic(input, y_input, assay = assay)),
                   strip_call(bahsic(x, y)))
  for (method in c("t", "mt", "pam", "hsic")) {
    expect_identical(feature_scores(input, y_input, method = method, assay = assay),
                     feature_scores(x, y, method = method))
  }
}

# A DelayedArray seed that refuses to deliver more than `max_cells` values at
# once: realising the whole matrix (as.matrix(), t(), a whole-matrix anyNA())
# is an error, reading blocks of a few features is not.
limited_delayed <- function(x, max_cells) {
  env <- new.env()
  methods::setClass("LimitedSeed", representation(x = "matrix", max_cells = "numeric"),
                    where = env)
  methods::setMethod("dim", "LimitedSeed", function(x) dim(x@x), where = env)
  methods::setMethod("dimnames", "LimitedSeed", function(x) dimnames(x@x), where = env)
  methods::setMethod(DelayedArray::extract_array, "LimitedSeed", function(x, index) {
    index <- lapply(seq_along(index), function(k) {
      if (is.null(index[[k]])) seq_len(dim(x@x)[k]) else index[[k]]
    })
    if (prod(lengths(index)) > x@max_cells) {
      stop(sprintf("asked for %d values at once", prod(lengths(index))))
    }
    x@x[index[[1L]], index[[2L]], drop = FALSE]
  }, where = env)
  DelayedArray::DelayedArray(methods::new("LimitedSeed", x = x, max_cells = max_cells))
}

test_that("a dgCMatrix gives the results of the dense matrix", {
  skip_on_cran()
  skip_peer("Matrix")
  dat <- sparse_toy()
  xs <- Matrix::Matrix(dat$x, sparse = TRUE)
  expect_s4_class(xs, "dgCMatrix")
  expect_same_results(xs, dat$x, dat$y)
  expect_identical(feature_scores(xs, dat$num, method = "pc"),
                   feature_scores(dat$x, dat$num, method = "pc"))
  # a dense Matrix too
  expect_identical(strip_call(hsic(Matrix::Matrix(dat$x, sparse = FALSE), dat$y)),
                   strip_call(hsic(dat$x, dat$y)))
})

test_that("a DelayedMatrix gives the results of the dense matrix", {
  skip_on_cran()
  skip_peer("DelayedArray")
  dat <- sparse_toy()
  expect_same_results(DelayedArray::DelayedArray(dat$x), dat$x, dat$y)
})

test_that("an HDF5-backed SummarizedExperiment gives the results of the dense matrix", {
  skip_on_cran()
  skip_peer("HDF5Array")
  skip_if_not_installed("SummarizedExperiment")
  dat <- sparse_toy()
  path <- tempfile(fileext = ".h5")
  on.exit(unlink(path))
  h5 <- HDF5Array::writeHDF5Array(t(dat$x), filepath = path, name = "counts",
                                  with.dimnames = TRUE)
  expect_s4_class(h5, "DelayedMatrix")
  se <- SummarizedExperiment::SummarizedExperiment(
    assays = list(counts = h5),
    colData = data.frame(group = dat$y, row.names = rownames(dat$x)))
  expect_same_results(se, dat$x, dat$y, y_input = "group", assay = "counts")
})

test_that("a SingleCellExperiment's logcounts (sparse or delayed) give the dense results", {
  skip_on_cran()
  skip_peer("SingleCellExperiment")
  dat <- sparse_toy()
  gx <- t(dat$x)
  sce <- SingleCellExperiment::SingleCellExperiment(
    assays = list(counts = Matrix::Matrix(round(exp(gx)), sparse = TRUE),
                  logcounts = Matrix::Matrix(gx, sparse = TRUE)),
    colData = data.frame(label = dat$y))
  expect_same_results(sce, dat$x, dat$y, y_input = "label", assay = "logcounts")
  SummarizedExperiment::assay(sce, "logcounts") <- DelayedArray::DelayedArray(gx)
  expect_identical(feature_scores(sce, "label", method = "lods", assay = "logcounts"),
                   feature_scores(dat$x, dat$y, method = "lods"))
})

test_that("feature_scores() is identical for block sizes 1, 7 and all features", {
  dat <- sparse_toy(d = 23)
  num <- dat$x[, 5L] + rnorm(nrow(dat$x))
  # a censored outcome for the methods of survival alone
  cens <- if (requireNamespace("survival", quietly = TRUE)) {
    survival::Surv(exp(num), rep(c(1, 1, 0), length.out = length(num)))
  }
  for (method in score_methods) {
    if (identical(bahsic:::score_row(method)$outcomes, "survival") && is.null(cens)) next
    y <- if (method == "pc") num else if (method == "cox") cens else dat$y
    whole <- feature_scores(dat$x, y, method = method, block_size = ncol(dat$x))
    for (size in c(1, 7)) {
      expect_identical(feature_scores(dat$x, y, method = method, block_size = size), whole,
                       info = sprintf("%s, block_size = %d", method, size))
    }
  }
  expect_identical(feature_scores(dat$x, dat$y, method = "t", block_size = 1000),
                   feature_scores(dat$x, dat$y, method = "t"))
  expect_error(feature_scores(dat$x, dat$y, block_size = 0), "'block_size' must be a whole")
})

test_that("blocks of a DelayedMatrix: identical scores, constant features named", {
  skip_on_cran()
  skip_peer("DelayedArray")
  dat <- sparse_toy(d = 23)
  dat$x[, c(2L, 17L)] <- 1
  dx <- DelayedArray::DelayedArray(dat$x)
  for (method in c("lin", "mt", "pam", "mmd")) {
    expect_warning(want <- feature_scores(dat$x, dat$y, method = method),
                   "2 constant features \\(g2, g17\\)")
    expect_warning(feature_scores(dx, dat$y, method = method, block_size = 7),
                   "2 constant features \\(g2, g17\\)")
    for (size in c(1, 7, 23)) {
      expect_identical(
        suppressWarnings(feature_scores(dx, dat$y, method = method, block_size = size)), want)
    }
  }
})

test_that("the whole DelayedArray is never realised at once", {
  skip_on_cran()
  skip_peer("DelayedArray")
  dat <- sparse_toy(d = 23)
  m <- nrow(dat$x)
  # at most 7 features of samples at a time
  dx <- limited_delayed(dat$x, max_cells = 7 * m)
  expect_error(as.matrix(dx), "asked for")
  expect_identical(feature_scores(dx, dat$y, method = "mt", block_size = 7),
                   feature_scores(dat$x, dat$y, method = "mt"))
  # the normaliser of hsic() and the selectors: blocks of the auto block size
  old <- DelayedArray::getAutoBlockSize()
  on.exit(DelayedArray::setAutoBlockSize(old))
  DelayedArray::setAutoBlockSize(5 * 8 * m)
  expect_identical(strip_call(hsic(dx, dat$y)), strip_call(hsic(dat$x, dat$y)))
  expect_identical(feature_scores(dx, dat$y, method = "pam"),
                   feature_scores(dat$x, dat$y, method = "pam"))
  # genes x cells in a SummarizedExperiment: blocks of genes, turned around
  skip_if_not_installed("SummarizedExperiment")
  se <- SummarizedExperiment::SummarizedExperiment(
    assays = list(x = limited_delayed(t(dat$x), max_cells = 7 * m)))
  expect_identical(strip_call(bahsic(se, dat$y)), strip_call(bahsic(dat$x, dat$y)))
})

test_that("NA in a DelayedArray or a dgCMatrix is reported as for a matrix", {
  skip_on_cran()
  skip_peer("DelayedArray")
  skip_if_not_installed("Matrix")
  skip_if_not_installed("SummarizedExperiment")
  dat <- sparse_toy(d = 23)
  dat$x[4L, 12L] <- NA
  msg <- "'x' has missing values \\(NA/NaN\\), first at feature 'g12', sample 's4'"
  expect_error(hsic(dat$x, dat$y), msg)
  dx <- DelayedArray::DelayedArray(dat$x)
  expect_error(hsic(dx, dat$y), msg)
  expect_error(bahsic(dx, dat$y), msg)
  expect_error(feature_scores(dx, dat$y, block_size = 5), msg)
  expect_error(hsic(Matrix::Matrix(dat$x, sparse = TRUE), dat$y), msg)
  se <- SummarizedExperiment::SummarizedExperiment(
    assays = list(x = DelayedArray::DelayedArray(t(dat$x))))
  expect_error(feature_scores(se, dat$y), msg)
  # na_action = "omit" drops the sample, as for the matrix
  omit <- function(f, x, ...) {
    expect_warning(out <- f(x, dat$y, na_action = "omit", ...), "dropped 1 of 24 samples")
    out
  }
  expect_identical(omit(feature_scores, dx, method = "t", block_size = 5),
                   omit(feature_scores, dat$x, method = "t"))
  expect_identical(strip_call(omit(hsic, dx)), strip_call(omit(hsic, dat$x)))
  dat$x[4L, 12L] <- Inf
  expect_error(feature_scores(DelayedArray::DelayedArray(dat$x), dat$y, block_size = 3),
               "'x' has infinite values, first at feature 'g12', sample 's4'")
})

test_that("the dense matrix of a block source counts against the memory budget", {
  skip_on_cran()
  skip_peer("DelayedArray")
  dat <- sparse_toy()
  old <- options(bahsic.max_memory = 1000)
  on.exit(options(old))
  dx <- DelayedArray::DelayedArray(dat$x)
  expect_error(hsic(dx, dat$y), "dense 24 x 11 .* above the memory budget.*feature_scores\\(\\)")
  # feature_scores() never builds it
  options(old)
  want <- feature_scores(dat$x, dat$y, method = "lin")
  options(bahsic.max_memory = 1000)
  expect_identical(feature_scores(dx, dat$y, method = "lin", block_size = 3), want)
})

test_that("bad block inputs get clear errors", {
  skip_on_cran()
  skip_peer("DelayedArray")
  chr <- DelayedArray::DelayedArray(matrix(letters[1:6], 3))
  expect_error(hsic(chr, 1:3), "'x' is a character matrix")
  expect_error(hsic(DelayedArray::DelayedArray(matrix(0, 3, 0)), 1:3), "no features")
  # unnamed and duplicated features, as for a matrix
  x <- matrix(rnorm(40), 10, dimnames = list(NULL, c("a", "a", "", "b")))
  y <- rep(0:1, 5)
  expect_identical(
    suppressWarnings(feature_scores(DelayedArray::DelayedArray(x), y, method = "pc"))$feature,
    suppressWarnings(feature_scores(x, y, method = "pc"))$feature)
  expect_warning(expect_warning(feature_scores(DelayedArray::DelayedArray(x), y, method = "pc"),
                                "duplicated feature names"), "features without a name")
})

test_that("feature blocks on workers give the serial result", {
  skip_on_cran()
  skip_peer("BiocParallel")
  skip_if_not_installed("DelayedArray")
  dat <- sparse_toy(d = 23)
  dx <- DelayedArray::DelayedArray(dat$x)
  want <- feature_scores(dat$x, dat$y, method = "mt")
  expect_identical(feature_scores(dx, dat$y, method = "mt", block_size = 4,
                                  parallel = BiocParallel::SerialParam()), want)
  # the first missing value in feature order, whichever worker met it
  dat$x[2L, c(9L, 20L)] <- NA
  expect_error(feature_scores(DelayedArray::DelayedArray(dat$x), dat$y, block_size = 4,
                              parallel = BiocParallel::SerialParam()),
               "first at feature 'g9', sample 's2'")
  if (requireNamespace("future.apply", quietly = TRUE)) {
    expect_identical(feature_scores(dx, dat$y, method = "mt", block_size = 4,
                                    parallel = "future"), want)
  }
  skip_on_os("windows")
  expect_identical(feature_scores(dx, dat$y, method = "mt", block_size = 4,
                                  parallel = BiocParallel::MulticoreParam(2)), want)
})
