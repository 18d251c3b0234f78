# The one data path. Every exported entry point (matrix, data.frame, formula,
# ExpressionSet, SummarizedExperiment) ends in normalise_inputs(), which
# returns a finite double matrix of samples x features, the outcome and the
# names; nothing after it needs to know where the data came from.

#' Normalise x and y to a samples x features matrix and an outcome
#'
#' @param x matrix, data.frame, Matrix (e.g. dgCMatrix), DelayedMatrix,
#'   ExpressionSet or SummarizedExperiment (see ?`input-classes`).
#' @param y outcome: factor, character, logical, numeric vector, numeric
#'   matrix or right-censored survival::Surv object (kept as it is, see
#'   R/survival.R); for Bioconductor objects also the name of a column of the
#'   sample data.
#' @param na_action "fail" or "omit" (drop samples with NA / NaN).
#' @param assay for SummarizedExperiment: which assay.
#' @param require_y whether y must be given.
#' @param clinical encode x for the clinical kernel (kernel_clinical()):
#'   factor / character / logical columns become level codes, continuous ones
#'   are divided by their range after the NA handling; x then carries the
#'   attribute "clinical" (see R/kernel-clinical.R).
#' @param blocks FALSE: x is the dense samples x features matrix. TRUE: x is
#'   NULL and `source` delivers it a block of features at a time (see
#'   block_source()), for callers that work feature by feature
#'   (feature_scores()); a block is checked for missing and infinite values
#'   when it is read (read_block()) or, by feature_scores(), in the pass
#'   that scores it. A dense matrix is then neither checked nor copied here.
#' @param design NULL or the study design as given (design_spec()), resolved
#'   here once the samples are known (resolve_design(): the sample data of a
#'   Bioconductor container, the rows kept) and checked against the outcome.
#' @return list(x, y, features, samples, source, rows, m0, annotation, design):
#'   `annotation` is the feature annotation of a Bioconductor container
#'   (feature_annotation()) or NULL; `design` the resolved design or NULL.
#' @noRd
normalise_inputs <- function(x, y, na_action = c("fail", "omit"),
                             assay = 1L, require_y = TRUE, clinical = FALSE,
                             blocks = FALSE, design = NULL) {
  na_action <- arg_match(na_action)
  if (missing(y)) stop(missing_y_message(), call. = FALSE)
  if (is.null(y) && require_y) stop(null_y_message(), call. = FALSE)
  # Everything but an ordinary matrix or data frame -- Bioconductor containers,
  # Matrix and DelayedArray matrices -- is a source of feature blocks.
  src <- NULL
  annotation <- NULL
  container <- NULL
  sample_data <- NULL
  bio <- bioc_source(x, y, assay)
  if (!is.null(bio)) {
    src <- bio$source
    y <- bio$y
    annotation <- bio$annotation
    container <- bio$container
    sample_data <- bio$sample_data
  } else if (is_block_matrix(x)) {
    src <- block_source(x)
  }
  if (!is.null(src) && clinical) {
    # clinical tables are small: the kernel's encoding works on the whole matrix
    x <- source_matrix(src, check = FALSE)
    src <- NULL
  }
  if (is.null(src)) {
    # in blocks, the source names the features (and warns about their names)
    x <- if (clinical) clinical_columns(x) else as_feature_matrix(x, name = !blocks)
    m <- nrow(x)
    d <- ncol(x)
  } else {
    m <- src$m
    d <- src$d
  }
  if (!is.null(y)) y <- as_outcome(y, x, m, d, container)
  # the samples kept (NULL: all), for a precomputed label kernel (resolve_outcome())
  m0 <- m
  rows <- NULL

  if (na_action == "omit") {
    bad <- if (is.null(src)) rowSums(is.na(x)) > 0 else source_na_rows(src)
    if (!is.null(y)) bad <- bad | outcome_missing(y)
    if (any(bad)) {
      warning(sprintf("na_action = \"omit\": dropped %d of %d samples with missing values.",
                      sum(bad), m), call. = FALSE)
      if (is.null(src)) {
        keep <- attributes(x)[c("categorical", "levels")]
        x <- x[!bad, , drop = FALSE]
        if (clinical) attributes(x)[c("categorical", "levels")] <- keep
      } else {
        src <- source_rows(src, which(!bad))
      }
      if (!is.null(y)) y <- if (is.matrix(y)) y[!bad, , drop = FALSE] else y[!bad]
      if (is.factor(y)) y <- droplevels(y)
      rows <- which(!bad)
    }
  }
  if (is.null(src)) {
    # a matrix in memory is checked whole, unless it goes out in blocks: then
    # like any other source, a block at a time
    if (!blocks || clinical) check_finite_x(x)
    if (clinical) x <- clinical_scale(x)
    if (blocks) src <- block_source(x, checked = clinical)
  } else if (!blocks) {
    x <- source_matrix(src)
  }
  if (!is.null(y)) check_outcome(y)
  samples <- if (blocks) src$samples else rownames(x)
  design <- input_design(design, m0, rows, sample_data, samples, y)
  if (blocks) {
    return(list(x = NULL, y = y, features = src$features, samples = samples,
                source = src, rows = rows, m0 = m0, annotation = annotation, design = design))
  }
  list(x = x, y = y, features = colnames(x), samples = samples, source = NULL,
       rows = rows, m0 = m0, annotation = annotation, design = design)
}

# The study design resolved on the samples kept and checked against the outcome.
input_design <- function(design, m0, rows, sample_data, samples, y) {
  if (is.null(design)) return(NULL)
  m <- if (is.null(rows)) m0 else length(rows)
  design <- resolve_design(design, m0, rows, sample_data, samples %||% as.character(seq_len(m)))
  design_check_outcome(design, y)
  design
}

missing_y_message <- function() {
  paste0("'y' is missing: give the outcome, one value per sample. To select features without ",
         "an outcome (the data are their own labels), say so with unsupervised = TRUE in ",
         "bahsic(), fohsic(), randsel(), l1_hsic(), l1_lsmi() or hsic_weights(); with a ",
         "precomputed label kernel (kernel_y = label_kernel_precomputed(L)), L is the labels ",
         "and y may be NULL.")
}

# A NULL outcome is more often a column that is not there than a choice.
null_y_message <- function(more = "") {
  paste0("'y' is NULL: give the outcome, one value per sample. (A column that is not in the ",
         "data, e.g. pheno$class for a column named Class, is NULL.)", more)
}

# The outcome the label kernel sees, after normalise_inputs() (`d`), for the
# entry points that take y = NULL; one path for all of them. Returns d with
# y the outcome, kernel_y the label kernel (NULL still means the default)
# and unsupervised TRUE or FALSE.
# * A precomputed label kernel (label_kernel_precomputed()) is the labels: it
#   must have one row per sample of x (before na_action = "omit", which then
#   keeps the rows and columns of the samples kept); y may be NULL, and
#   otherwise only its length counts.
# * unsupervised = TRUE (Song et al. 2012, section 10: "using the full data
#   set X as the labels"), asked for explicitly, with y NULL or missing: the
#   outcome is the m x d matrix of the standardised features (a constant one
#   kept at 0), with a Gaussian label kernel by the median heuristic unless
#   kernel_y says otherwise.
# * Otherwise y = NULL is an error: it is more often a column that is not
#   there (pheno$class for a column Class) than a wish for unsupervised
#   selection. `what` names a caller that has no unsupervised use.
resolve_outcome <- function(d, kernel_y, unsupervised = FALSE, what = NULL) {
  if (is_precomputed_label(kernel_y)) {
    if (unsupervised) {
      stop(paste0("unsupervised = TRUE and a precomputed label kernel: the kernel's L is the ",
                  "labels. Drop one of them."), call. = FALSE)
    }
    L <- kernel_y$params$kernel$params$K
    if (nrow(L) != d$m0) {
      stop(sprintf(paste0("'kernel_y' is a precomputed %d x %d label kernel but 'x' has %d ",
                          "samples: give one row and column of L per sample, in the order of ",
                          "the rows of 'x'."), nrow(L), nrow(L), d$m0), call. = FALSE)
    }
    if (!is.null(d$rows)) {
      kernel_y$params$kernel$params$K <- L[d$rows, d$rows, drop = FALSE]
    }
    # the kernel uses y for its length only
    m <- if (is.null(d$rows)) d$m0 else length(d$rows)
    y <- if (is.null(d$y)) as.double(seq_len(m)) else d$y
    return(outcome_into(d, y, kernel_y, FALSE))
  }
  if (!is.null(d$y)) {
    if (unsupervised) {
      stop(paste0("unsupervised = TRUE but 'y' is given: unsupervised selection uses the data ",
                  "as their own labels. Drop 'y' to select without it, or unsupervised = TRUE to use it."),
           call. = FALSE)
    }
    return(outcome_into(d, d$y, kernel_y, FALSE))
  }
  if (!is.null(what)) {
    stop(null_y_message(sprintf(paste0(" %s needs an outcome, or a precomputed label kernel ",
                                       "kernel_y = label_kernel_precomputed(L), with which y ",
                                       "may be NULL."), what)), call. = FALSE)
  }
  if (!unsupervised) {
    stop(null_y_message(paste0(" To select features without an outcome, say so: ",
                               "unsupervised = TRUE.")), call. = FALSE)
  }
  outcome_into(d, unsupervised_outcome(d$x),
               if (is.null(kernel_y)) label_kernel_regression(kernel_gaussian()) else kernel_y,
               TRUE)
}

outcome_into <- function(d, y, kernel_y, unsupervised) {
  d$y <- y
  d["kernel_y"] <- list(kernel_y)
  d$unsupervised <- unsupervised
  d
}

# The labels of unsupervised selection: the standardised data (m x d, a
# second copy of them), constant features at 0.
unsupervised_outcome <- function(x) {
  if (!is.null(attr(x, "clinical"))) {
    stop(paste0("unsupervised = TRUE (selection without an outcome) is not available with kernel_clinical(): ",
                "give the outcome."), call. = FALSE)
  }
  y <- .Call(C_standardize_columns, x, 1L)[[1L]]
  if (all(y == 0)) {
    stop(paste0("unsupervised = TRUE: every feature of 'x' is constant, so the ",
                "data carry no dependence to keep."), call. = FALSE)
  }
  unname(y)
}

#' Inputs: the classes of `x` every entry point accepts
#'
#' Every entry point ([hsic()], [hsic_test()], [feature_scores()],
#' [bahsic()], [fohsic()], [randsel()], [clinical_rfe()], [lsmi()], [l1_lsmi()],
#' [l1_hsic()], [evaluate_selection()]) takes `x` as one of
#' \describe{
#'   \item{samples x features}{a numeric (or logical) matrix or data frame; a
#'     `Matrix` matrix, dense or sparse (e.g. a `dgCMatrix`); a
#'     `DelayedMatrix` (DelayedArray package, e.g. an HDF5-backed
#'     `HDF5Matrix`).}
#'   \item{features x samples (genes x cells)}{an `ExpressionSet` (its
#'     `exprs()`), a `SummarizedExperiment` or `SingleCellExperiment` (the
#'     assay `assay`, by name or number, e.g. `assay = "logcounts"`), whose
#'     assay may be an ordinary matrix, a sparse `dgCMatrix` or a
#'     `DelayedMatrix`. `y` may then name a column of the sample data
#'     (`colData()`).}
#' }
#' Sparse and out-of-memory matrices are read a block of features at a time:
#' each block is made dense (and, for the Bioconductor containers, turned
#' round to samples x features) and checked on its own (missing and infinite
#' values, feature names), so the whole matrix is never realised in another
#' form. The selectors and [hsic()] need the dense samples x features matrix
#' (their C core reads every feature of a sample) and build it block by block
#' in one preallocated matrix, in blocks of at most a tenth of the features:
#' their peak memory is that matrix plus a few blocks.
#' [feature_scores()] scores each block as it is read and never holds more
#' than one block of the data (argument `block_size`; its blocks can run on
#' workers through `parallel`). With `na_action = "omit"` the data are read
#' twice, first for the samples with missing values. The dense matrix of
#' [hsic()] and the selectors counts against the memory budget (option
#' `bahsic.max_memory`, see [bahsic_options]): above it the error suggests
#' filtering the features first with [feature_scores()]. The default block holds
#' `DelayedArray::getAutoBlockSize()` bytes when DelayedArray is loaded, 100
#' MB otherwise.
#'
#' @name input-classes
#' @seealso \link{input-checks} for what each kind of bad input gives.
#' @examples
#' x <- golub$x[, 1:50]
#' if (requireNamespace("Matrix", quietly = TRUE)) {
#'   xs <- Matrix::Matrix(x, sparse = TRUE)
#'   all.equal(feature_scores(xs, golub$y), feature_scores(x, golub$y))
#' }
NULL

# Bioconductor containers are genes x samples: a source that turns each block
# around, with the outcome looked up in the sample data when it is given by
# name.
bioc_source <- function(x, y, assay) {
  if (is_s4(x, "ExpressionSet")) {
    if (!requireNamespace("Biobase", quietly = TRUE)) {
      stop("An ExpressionSet needs the Biobase package: install it from Bioconductor.",
           call. = FALSE)
    }
    pdata <- Biobase::pData(x)
    fdata <- Biobase::fData(x)
    a <- Biobase::exprs(x)
  } else if (is_s4(x, "SummarizedExperiment")) {
    if (!requireNamespace("SummarizedExperiment", quietly = TRUE)) {
      stop("A SummarizedExperiment needs the SummarizedExperiment package.", call. = FALSE)
    }
    # (a Surv column of colData() is looked up there: as.data.frame() of the
    # DataFrame renames a matrix-like column)
    pdata <- SummarizedExperiment::colData(x)
    # use.names = FALSE: rowData() stops at a missing row name, which the
    # features are named for below (feature_names(), with a warning)
    fdata <- SummarizedExperiment::rowData(x, use.names = FALSE)
    a <- SummarizedExperiment::assay(x, assay, withDimnames = TRUE)
  } else {
    return(NULL)
  }
  src <- block_source(a, transposed = TRUE)
  if (is.character(y) && length(y) == 1L && src$m != 1L) y <- sample_column(pdata, y)
  list(source = src, y = y, annotation = feature_annotation(fdata, src$d),
       container = class(x)[1L], sample_data = as.data.frame(pdata))
}

# The outcome given as the name `y` of a column of the sample data.
sample_column <- function(pdata, y) {
  if (!y %in% names(pdata)) {
    stop(sprintf("'y' = \"%s\" is not a column of the sample data; columns are: %s.",
                 y, paste(utils::head(names(pdata), 20), collapse = ", ")), call. = FALSE)
  }
  pdata[[y]]
}

# The feature annotation of a Bioconductor container (fData, rowData) as a
# data.frame of its atomic columns (gene symbols, chromosomes, ...), one row
# per feature in feature order; NULL when there is none. List columns
# (GRanges, nested tables) are left out: they do not fit a results table.
feature_annotation <- function(fdata, d) {
  if (is.null(fdata) || ncol(fdata) == 0L || nrow(fdata) != d) return(NULL)
  cols <- lapply(seq_len(ncol(fdata)), function(k) fdata[[k]])
  keep <- vapply(cols, function(v) is.atomic(v) && is.null(dim(v)) && length(v) == d,
                 logical(1))
  if (!any(keep)) return(NULL)
  ann <- as.data.frame(cols[keep], stringsAsFactors = FALSE, optional = TRUE)
  names(ann) <- colnames(fdata)[keep]
  for (k in seq_along(ann)) if (is.factor(ann[[k]])) ann[[k]] <- as.character(ann[[k]])
  rownames(ann) <- NULL
  ann
}

# A results table (one row per feature, in feature order, first column
# `feature`) with the feature annotation next to the feature names. An
# annotation column named like a column of the table is prefixed with
# "annotation_".
annotate_features <- function(df, annotation) {
  if (is.null(annotation)) return(df)
  clash <- names(annotation) %in% names(df)
  names(annotation)[clash] <- paste0("annotation_", names(annotation)[clash])
  out <- cbind(df[1L], annotation, df[-1L])
  rownames(out) <- NULL
  out
}

# ---- sources of feature blocks ------------------------------------------------
# A source delivers the samples x features matrix a block of features at a
# time, whatever holds it: an ordinary matrix, a Matrix (sparse or dense), a
# DelayedArray (in memory or on disk), samples x features or, from a
# Bioconductor container, features x samples. It is a list of
#   m, d        samples and features (after the rows selection)
#   features    the feature names (unique, none empty)
#   samples     the sample names or NULL
#   rows        NULL or the samples kept (na_action = "omit")
#   checked     TRUE when the whole matrix has been checked (no block check)
#   read(j, rows)  the dense double block of features j, samples x features
# read() subsets the container by features and realises only that block, so
# peak memory is one block; a genes x cells block is transposed on its own.
# Everything that reads uses read_block(), the one reader.

# methods::is() for the S4 classes of the containers: a plain matrix or data
# frame is not one, and is() costs a class lookup each time.
is_s4 <- function(x, class) isS4(x) && methods::is(x, class)

is_block_matrix <- function(x) {
  (is_s4(x, "Matrix") || is_s4(x, "DelayedArray")) && length(dim(x)) == 2L
}

block_source <- function(a, transposed = FALSE, checked = FALSE) {
  if (length(dim(a)) != 2L) {
    stop(sprintf("'x' must be a matrix (2 dimensions), not a %d-dimensional %s.",
                 length(dim(a)), class(a)[1L]), call. = FALSE)
  }
  type <- block_type(a)
  if (!type %in% c("double", "integer", "logical")) {
    stop(sprintf(paste0("'x' is a %s matrix (%s): give numbers. Convert it with ",
                        "storage.mode() or type() <- \"double\"."), type, class(a)[1L]),
         call. = FALSE)
  }
  dn <- dimnames(a)
  m <- if (transposed) ncol(a) else nrow(a)
  d <- if (transposed) nrow(a) else ncol(a)
  if (d == 0L) {
    stop(sprintf("'x' has no features (zero %s).", if (transposed) "rows" else "columns"),
         call. = FALSE)
  }
  if (m == 0L) {
    stop(sprintf("'x' has no samples (zero %s).", if (transposed) "columns" else "rows"),
         call. = FALSE)
  }
  features <- feature_names(dn[[if (transposed) 1L else 2L]], d,
                            if (transposed) "row" else "column")
  samples <- dn[[if (transposed) 2L else 1L]]
  # only `a` and `transposed` in this closure: it is what a worker receives
  read <- function(j, rows = NULL) {
    # every feature of a dense double matrix: the matrix itself, not a copy
    if (!transposed && is.null(rows) && is.double(a) && is.matrix(a) && !isS4(a) &&
        is_all_columns(j, ncol(a))) {
      return(a)
    }
    b <- if (transposed) {
      if (is.null(rows)) a[j, , drop = FALSE] else a[j, rows, drop = FALSE]
    } else {
      if (is.null(rows)) a[, j, drop = FALSE] else a[rows, j, drop = FALSE]
    }
    b <- as.matrix(b)
    if (transposed) b <- t(b)
    if (!is.double(b)) storage.mode(b) <- "double"
    b
  }
  list(m = m, d = d, features = features, samples = samples, rows = NULL,
       checked = checked, read = read, read_sparse = sparse_reader(a, transposed))
}

# For a dgCMatrix, read(j, rows) that keeps the block sparse (a samples x
# features dgCMatrix), for the scorers that take one (the rank scores,
# R/scores-rank.R); NULL for any other matrix.
sparse_reader <- function(a, transposed) {
  if (!is_s4(a, "dgCMatrix")) return(NULL)
  function(j, rows = NULL) {
    if (transposed) {
      b <- if (is.null(rows)) a[j, , drop = FALSE] else a[j, rows, drop = FALSE]
      return(Matrix::t(b))
    }
    if (is.null(rows)) a[, j, drop = FALSE] else a[rows, j, drop = FALSE]
  }
}

block_type <- function(a) {
  if (is_s4(a, "DelayedArray")) return(DelayedArray::type(a))
  if (is_s4(a, "Matrix")) {
    return(if (is_s4(a, "dMatrix")) "double" else if (is_s4(a, "lMatrix") ||
                                                      is_s4(a, "nMatrix")) {
      "logical"
    } else {
      class(a)[1L]
    })
  }
  typeof(a)
}

# The dense samples x features block of features j (indices into the
# features of src), named (unless `names` is FALSE: the dimnames of the
# source's matrix, or none; setting them may copy the whole matrix) and,
# unless the source was checked whole, checked for missing, infinite and huge
# values as check_finite_x() checks a matrix.
read_block <- function(src, j, check = TRUE, names = TRUE) {
  b <- src$read(j, src$rows)
  if (names) {
    dn <- list(src$samples, src$features[j])
    if (!identical(dimnames(b), dn)) dimnames(b) <- dn
  }
  if (check && !src$checked) check_finite_x(b, src$features[j], src$samples)
  b
}

# Whether the indices j are 1..n, in order (the sortedness test is O(1) for
# the sequences of feature_blocks(); a comparison with seq_len(n) would
# expand both).
is_all_columns <- function(j, n) {
  length(j) == n && n > 0L && is.numeric(j) && !anyNA(j) && j[1L] == 1 && j[n] == n &&
    !is.unsorted(j, strictly = TRUE) && (is.integer(j) || all(j == trunc(j)))
}

# Features 1..d in consecutive blocks of `size`.
feature_blocks <- function(d, size) {
  # (size - 1) a double: s + size cannot overflow the integers
  lapply(seq.int(1L, d, by = size), function(s) s:min(d, s + (size - 1)))
}

# Features per block: DelayedArray's automatic block size (in bytes) when the
# package is loaded (a user's setAutoBlockSize() is honoured), else 100 MB.
auto_block_size <- function(m) {
  bytes <- if (isNamespaceLoaded("DelayedArray")) DelayedArray::getAutoBlockSize() else 1e8
  as.integer(max(1, min(.Machine$integer.max, floor(bytes / (8 * max(1, m))))))
}

# The whole samples x features matrix, written block by block into one
# preallocated matrix: peak memory is the result and one block, never a
# second copy of the data (as.matrix() of a DelayedArray, t() of a genes x
# cells matrix would be).
source_matrix <- function(src, check = TRUE, block_size = matrix_block_size(src)) {
  budget <- option_max_memory()
  need <- 8 * as.double(src$m) * src$d
  if (need > budget) {
    stop(sprintf(paste0("The dense %d x %d (samples x features) matrix needs %.1f GiB, above the ",
                        "memory budget of %.1f GiB (option bahsic.max_memory). Keep fewer ",
                        "features first: feature_scores() reads them a block at a time ",
                        "(e.g. keep its top genes, by any of its methods), or raise ",
                        "the option if the machine has the memory."),
                 src$m, src$d, need / 1024^3, budget / 1024^3), call. = FALSE)
  }
  x <- matrix(0, src$m, src$d, dimnames = list(src$samples, src$features))
  blocks <- feature_blocks(src$d, block_size)
  for (j in blocks) {
    x[, j] <- read_block(src, j, check)
    # R frees a large vector only at a collection, and with the result in
    # the heap its next one is far off: without this the spent blocks (and
    # their transposes) pile up to another copy of the result before they
    # are freed. A minor collection is cheap next to reading a block.
    if (length(blocks) > 1L && 8 * src$m * block_size > 1e6) {
      invisible(gc(verbose = FALSE, full = FALSE))
    }
  }
  x
}

# Features per block of source_matrix(): the automatic block, but at most a
# tenth of the features, as reading a block holds a few copies of it (the
# container's subset, the dense block, its transpose): the peak stays near
# the result, not the result plus a few 100 MB blocks.
matrix_block_size <- function(src) {
  min(auto_block_size(src$m), max(1L, ceiling(src$d / 10)))
}

# The samples with a missing value in any feature, block by block.
source_na_rows <- function(src, block_size = auto_block_size(src$m)) {
  bad <- logical(src$m)
  for (j in feature_blocks(src$d, block_size)) {
    bad <- bad | rowSums(is.na(read_block(src, j, check = FALSE))) > 0
  }
  bad
}

# Keep the samples `keep` (indices among the source's current samples).
source_rows <- function(src, keep) {
  src$rows <- if (is.null(src$rows)) keep else src$rows[keep]
  src$samples <- src$samples[keep]
  src$m <- length(keep)
  src
}

# Feature names: V1, V2, ... when there are none; an empty or missing name
# becomes V<j> and duplicates are made unique, each with a warning.
feature_names <- function(cn, d, where = "column") {
  if (is.null(cn)) return(paste0("V", seq_len(d)))
  if (!is.character(cn)) cn <- as.character(cn)
  # a feature without a name could not be reported in the results
  unnamed <- if (.Call(C_first_unnamed, cn) > 0) which(is.na(cn) | cn == "")
  if (length(unnamed)) {
    warning(sprintf("'x' has features without a name (%s%s %s): named %s.",
                    where, if (length(unnamed) > 1L) "s" else "",
                    paste(utils::head(unnamed, 5), collapse = ", "),
                    paste(utils::head(paste0("V", unnamed), 5), collapse = ", ")),
            call. = FALSE)
    cn[unnamed] <- paste0("V", unnamed)
  }
  if (anyDuplicated(cn)) {
    dup <- unique(cn[duplicated(cn)])
    warning(sprintf("'x' has duplicated feature names (%s): made unique with make.unique().",
                    paste(utils::head(dup, 5), collapse = ", ")), call. = FALSE)
    cn <- make.unique(cn)
  }
  cn
}

# name = FALSE: the column names are left as they are (a caller that names
# the features itself spares the copy of x that assigning them makes).
as_feature_matrix <- function(x, name = TRUE) {
  if (is.data.frame(x)) {
    ok <- vapply(x, function(col) is.numeric(col) || is.logical(col), logical(1))
    if (!all(ok)) {
      stop(sprintf(paste0("'x' has non-numeric columns (%s): convert them to numbers ",
                          "or use the formula interface, which codes factors as dummies."),
                   paste(utils::head(names(x)[!ok], 5), collapse = ", ")), call. = FALSE)
    }
    rn <- attr(x, "row.names")
    x <- as.matrix(x)
    if (is.integer(rn)) rownames(x) <- NULL
  }
  if (is.vector(x) && is.atomic(x) && !is.character(x)) {
    x <- matrix(x, ncol = 1L, dimnames = list(names(x), NULL))
  }
  if (is.matrix(x) && !(is.numeric(x) || is.logical(x))) {
    stop(sprintf(paste0("'x' is a %s matrix: give numbers. If the text holds numbers, ",
                        "convert it with storage.mode(x) <- \"double\"; if a column holds ",
                        "sample names, make them the row names instead."), typeof(x)),
         call. = FALSE)
  }
  if (!is.matrix(x) || !(is.numeric(x) || is.logical(x))) {
    stop(sprintf("'x' must be a numeric matrix or data.frame (samples x features), not %s.",
                 class(x)[1L]), call. = FALSE)
  }
  if (ncol(x) == 0L) stop("'x' has no features (zero columns).", call. = FALSE)
  if (nrow(x) == 0L) stop("'x' has no samples (zero rows).", call. = FALSE)
  if (!is.double(x)) storage.mode(x) <- "double"
  if (name) {
    cn <- feature_names(colnames(x), ncol(x))
    if (!identical(cn, colnames(x))) colnames(x) <- cn
  }
  x
}

# container: the class of a Bioconductor 'x' (genes x samples), or NULL for
# a samples x features matrix; it decides what a wrong length suggests.
as_outcome <- function(y, x, m = nrow(x), d = ncol(x), container = NULL) {
  if (is.data.frame(y)) y <- if (ncol(y) == 1L) y[[1L]] else as.matrix(y)
  n_y <- if (is.matrix(y)) nrow(y) else length(y)
  if (n_y != m && !is.null(container)) {
    stop(sprintf(paste0("'y' has %d values but the %s has %d samples (columns)%s. Give one ",
                        "value per sample, in the order of its columns, or the name of a ",
                        "column of its sample data (%s)."),
                 n_y, container, m, if (n_y == d) sprintf(", and %d features (rows)", d) else "",
                 if (container == "ExpressionSet") "pData()" else "colData()"), call. = FALSE)
  }
  if (n_y != m) {
    hint <- if (n_y == d) {
      paste0(" 'x' looks like features x samples (genes in rows): pass t(x) so that ",
             "samples are rows, as for lm().")
    } else {
      " Give one value of 'y' per row of 'x', in the same order."
    }
    stop(sprintf("'y' has %d values but 'x' has %d samples (rows).%s", n_y, m, hint),
         call. = FALSE)
  }
  # a censored survival outcome is its own kind, not a two-column matrix (R/survival.R)
  if (is_surv(y)) return(surv_outcome(y))
  if (is.character(y) || is.logical(y)) y <- factor(y)
  if (is.factor(y)) {
    unused <- levels(y)[tabulate(y, nlevels(y)) == 0L]
    if (length(unused)) {
      warning(sprintf("'y' has unused factor levels (%s): dropped.",
                      paste(unused, collapse = ", ")), call. = FALSE)
      y <- droplevels(y)
    }
    return(y)
  }
  if (is.numeric(y)) {
    if (is.matrix(y)) {
      storage.mode(y) <- "double"
    } else {
      y <- as.double(y)
    }
    return(y)
  }
  stop(sprintf("'y' must be a factor, character, logical, numeric or a survival::Surv object, not %s.", class(y)[1L]),
       call. = FALSE)
}

# No NA, NaN or Inf in x, and no value whose square would overflow in the
# squared distances of a kernel; features and samples name the columns and
# rows in the error.
check_finite_x <- function(x, features = colnames(x), samples = rownames(x)) {
  scan <- .Call(C_first_nonfinite, x)
  if (scan[1L] > 0) nonfinite_error(x, scan[1L], features, samples)
  if (scan[2L] > 1e150) too_large_error()
  invisible()
}

too_large_error <- function() {
  stop("'x' has values beyond 1e150 in absolute value: rescale it (e.g. log or scale()).",
       call. = FALSE)
}

# The error for the non-finite value at position `first` (column-major) of x.
nonfinite_error <- function(x, first, features = colnames(x), samples = rownames(x)) {
  where <- c((first - 1) %% nrow(x) + 1, (first - 1) %/% nrow(x) + 1)
  value <- x[where[1L], where[2L]]
  sample <- samples[where[1L]]
  if (is.null(sample)) sample <- as.character(where[1L])
  what <- if (is.na(value)) "missing values (NA/NaN)" else "infinite values"
  fix <- if (is.na(value)) {
    " Impute them, drop the feature, or use na_action = \"omit\" to drop the samples."
  } else {
    " Replace them with finite numbers."
  }
  stop(sprintf("'x' has %s, first at feature '%s', sample '%s'.%s", what,
               features[where[2L]], sample, fix), call. = FALSE)
}

# The samples whose outcome is missing (a Surv outcome: its time or its event).
outcome_missing <- function(y) {
  if (is_surv(y)) return(is.na(surv_time(y)) | is.na(surv_event(y)))
  if (is.matrix(y)) rowSums(is.na(y)) > 0 else is.na(y)
}

check_outcome <- function(y) {
  if (is_surv(y)) return(check_surv_outcome(y))
  if (anyNA(y)) {
    stop("'y' has missing values: remove those samples or use na_action = \"omit\".",
         call. = FALSE)
  }
  m <- NROW(y)
  if (m < 2L) {
    stop(sprintf("There %s %d sample%s: dependence on the outcome needs at least 2.",
                 if (m == 1L) "is" else "are", m, if (m == 1L) "" else "s"), call. = FALSE)
  }
  if (is.factor(y) && nlevels(y) < 2L) {
    stop(sprintf(paste0("'y' has a single class (\"%s\"): dependence on the outcome needs at ",
                        "least two. Check that the right samples or column were selected."),
                 levels(y)[1L]), call. = FALSE)
  }
  if (is.numeric(y) && !all(is.finite(y))) {
    stop("'y' has infinite values: replace them with finite numbers.", call. = FALSE)
  }
  invisible()
}

# The regression analogue of a single class: a kernel on a constant outcome
# is constant, so every dependence is 0 and every correlation undefined.
# Checked where the outcome is used as numbers (not in check_outcome(), since
# a precomputed label kernel uses 'y' only for its length).
check_varying_outcome <- function(y) {
  ym <- as.matrix(y)
  if (all(ym == ym[rep(1L, nrow(ym)), , drop = FALSE])) {
    stop(sprintf(paste0("'y' is constant (every value is %s): dependence on the outcome ",
                        "needs it to vary. Check that the right column was selected."),
                 format(ym[1L, 1L])), call. = FALSE)
  }
  invisible()
}

check_min_samples <- function(m, need, why, hint = NULL) {
  if (m < need) {
    stop(sprintf("%s needs at least %d samples; there are %d.%s", why, need, m,
                 if (is.null(hint)) "" else paste0(" ", hint)), call. = FALSE)
  }
  invisible()
}

# An m x m workspace is allocated before any kernel is computed: refuse a
# request that cannot fit the budget instead of letting the allocation fail
# half-way (or the machine swap). n_matrices: the m x m double matrices the
# caller holds at its peak (the median heuristic's packed triangle counts 0.5);
# documented in ?bahsic_options (option bahsic.max_memory). approximable: the
# caller takes `approx`, so the message names the approximations.
check_memory <- function(m, n_matrices = 2, approximable = FALSE) {
  budget <- option_max_memory()
  need <- n_matrices * 8 * as.double(m)^2
  if (need > budget) {
    fix <- if (approximable) {
      paste0("Use an approximation that needs no m x m matrix: approx = \"ichol\", \"rff\" ",
             "or \"block\" (see ?approximations); or fewer samples, or raise the option ",
             "if the machine has the memory.")
    } else {
      "Use fewer samples, or raise the option if the machine has the memory."
    }
    stop(sprintf(paste0("%d samples need %.1f GiB for %g m x m kernel matrices, above the ",
                        "memory budget of %.1f GiB (option bahsic.max_memory). %s"),
                 m, need / 1024^3, n_matrices, budget / 1024^3, fix), call. = FALSE)
  }
  invisible()
}

# The formula method of every entry point `name` (bahsic, hsic, ...): x and y
# from the formula go to name.default() with the other arguments. With the
# clinical kernel (`kernel`) the variables are passed as they are, not
# dummy-coded. A result that keeps its call gets the formula call, named
# after the generic as the default methods do.
formula_method <- function(name, call, env, kernel, ...) {
  args <- list(...)
  xy <- formula_inputs(call, env, frame = is_clinical(kernel), covariates = args$covariates)
  fun <- get(paste0(name, ".default"), mode = "function")
  # the design reads the formula's data (the rows the formula kept)
  if (!is.null(args$covariates) || !is.null(args$block)) {
    if (!is.null(args$data)) {
      stop("'data' is the formula's data: the covariates are read from it.", call. = FALSE)
    }
    if ("data" %in% names(formals(fun))) args$data <- xy$data
  }
  # a one-sided formula (~ .) is the explicit request for unsupervised
  # selection where the entry point has it (and no precomputed label kernel
  # is the labels instead)
  if (is.null(xy$y) && "unsupervised" %in% names(formals(fun)) &&
      is.null(args$unsupervised) && !is_precomputed_label(args$kernel_y)) {
    args$unsupervised <- TRUE
  }
  fit <- do.call(fun, c(list(xy$x, xy$y), args))
  if (is.list(fit) && "call" %in% names(fit)) {
    call[[1L]] <- as.name(name)
    fit$call <- call
  }
  fit
}

# The formula interface, the base-R way: model.frame() for the response and
# the predictors, model.matrix() without the intercept for x (factors become
# dummy columns, as in lm()). frame = TRUE (the clinical kernel, which takes
# factors as they are): x is the data frame of the formula's variables. A
# covariates formula's variables are not features (terms that use them are
# dropped, from `.` too); `data` is the formula's data at the rows it kept.
formula_inputs <- function(call, env, frame = FALSE, covariates = NULL) {
  mf <- call[c(1L, match(c("formula", "data", "subset", "na.action"), names(call), 0L))]
  names(mf)[2L] <- "formula"
  mf[[1L]] <- quote(stats::model.frame)
  mf$drop.unused.levels <- TRUE
  data <- if ("data" %in% names(call)) eval(call$data, env)
  if (inherits(covariates, "formula")) {
    mf$formula <- formula_without(eval(mf$formula, env), all.vars(covariates), data)
  }
  mf <- eval(mf, env)
  if (is.data.frame(data)) data <- data[rownames(mf), , drop = FALSE]
  # a one-sided formula (~ features) has no response: y = NULL, which the
  # selectors read as unsupervised selection (formula_method())
  y <- stats::model.response(mf)
  mt <- attr(mf, "terms")
  if (frame) {
    labels <- attr(mt, "term.labels")
    if (!all(labels %in% names(mf))) {
      stop(sprintf(paste0("With the clinical kernel the formula takes variables as they are: ",
                          "interactions such as %s are not supported; add such a column to ",
                          "'data' instead."),
                   labels[!labels %in% names(mf)][1L]), call. = FALSE)
    }
    x <- mf[labels]
    attr(x, "terms") <- NULL
    return(list(x = x, y = y, data = data))
  }
  attr(mt, "intercept") <- 0L
  x <- stats::model.matrix(mt, mf)
  attr(x, "assign") <- NULL
  attr(x, "contrasts") <- NULL
  list(x = x, y = y, data = data)
}

# The formula without the terms that use `vars` (the covariates), `.` expanded
# in `data` first.
formula_without <- function(formula, vars, data) {
  tt <- stats::terms(formula, data = if (is.data.frame(data)) data)
  labels <- attr(tt, "term.labels")
  used <- vapply(labels, function(l) any(all.vars(str2lang(l)) %in% vars), NA)
  if (!any(used)) return(formula)
  if (all(used)) {
    stop(sprintf(paste0("Every term of the formula is a covariate (%s): no feature is left. ",
                        "Features go in the formula, variables to adjust for in 'covariates'."),
                 paste(vars, collapse = ", ")), call. = FALSE)
  }
  response <- if (attr(tt, "response")) formula[[2L]]
  stats::reformulate(labels[!used], response = response, env = environment(formula))
}

# A single whole number of at least `lo`, as an integer.
check_whole <- function(v, arg, lo) {
  if (!is.numeric(v) || length(v) != 1L || !is.finite(v) || v < lo || v != round(v)) {
    stop(sprintf("'%s' must be a whole number of at least %d.", arg, lo), call. = FALSE)
  }
  check_int_limit(v, arg)
  as.integer(v)
}
