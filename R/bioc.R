#' Add per-gene scores to a Bioconductor object
#'
#' Scores every feature (gene, probe set) of an `ExpressionSet` or a
#' `SummarizedExperiment` with [feature_scores()] and returns the object with
#' the results as new columns of its feature annotation, `fData()` or
#' `rowData()`, next to the gene symbols already there, as the results of
#' genefilter or limma are commonly merged into `rowData()`. With `fit`, the
#' columns added are a selection's instead ([bahsic()], [fohsic()], ...).
#'
#' Every column of the score table but `feature` and the annotation it
#' copied is added (`score`, `rank` and those the method adds, such as
#' p-values), named `prefix` followed by the column's name: with the default
#' prefix, the method's name and `_`, `mt_score`, `mt_rank`, ... for
#' `method = "mt"`, so that the results of two methods, or of a method and a
#' selection, sit side by side. Columns of the object's own annotation named
#' like a result column (`score`, `rank`, `p_value`) are kept and do not hide
#' a result column. The rows are matched to the features by position, which
#' the scores keep, so row names that are missing or repeated (which the
#' scores make unique, with a warning) still get each row its own values.
#'
#' With `fit` (a `bahsic_selection` made from the same object), the columns
#' are those of the selection's `features` table but `feature` and the
#' annotation: `rank`, `score`, `iteration`, `contribution` (see
#' [selection]) and those the selector adds (such as stability selection's
#' `probability`), named by default after the selector (`bahsic_rank`,
#' `fohsic_rank`, `stability_probability`, ...). A selection made from this
#' very object (every row, in this order) is matched by position; one made
#' from other data is matched by feature name, which then needs unique row
#' names, and a row the selection does not hold gets `NA`. An outcome given
#' with `fit` must be the one the selection was made with: it is checked.
#'
#' **The design and the record.** `covariates` (a one-sided formula such
#' as `~ batch`, evaluated in the object's `pData()` / `colData()`, or a
#' table or vector with one row per sample) and `block` (a vector, or the
#' name of a sample-data column) go to [feature_scores()], which adjusts
#' the scores for them (see [design]; a method that cannot adjust refuses
#' by name). Every call records what it added in the object's metadata,
#' `metadata(object)$bahsic_scores` for a `SummarizedExperiment` and
#' `notes(object)$bahsic_scores` for an `ExpressionSet`: one entry per
#' column prefix, `list(method = , design = )`, where `design` is the
#' design's text as its `print()` shows it (`"~ batch; block (20 blocks)"`)
#' or `"none"`. With `fit`, the design is the one the selection recorded.
#'
#' A `prefix` is used as given, for both containers: a name that is not
#' syntactic (`"my score "`) is kept, as `fData()` and `rowData()` allow,
#' and is reached with `$` in backquotes.
#'
#' @param object an `ExpressionSet` (Biobase) or a `SummarizedExperiment`
#'   (or a class extending it, such as a `SingleCellExperiment`).
#' @param y the outcome, as for [feature_scores()]: a vector with one value
#'   per sample, or the name of a column of `pData()` / `colData()`. With
#'   `fit` it may be left out; if given, it must be the selection's outcome.
#' @param method the score, as for [feature_scores()]; `NULL` lets it choose
#'   from the outcome. Not used with `fit`.
#' @param ... further arguments of [feature_scores()] (`assay`, `kernel`,
#'   `threads`, ...).
#' @param prefix a string put before the name of every column added; `NULL`
#'   (default): the name of the score method or of the selector followed by
#'   `_` (`"mt_"`, `"hsic_"`, `"bahsic_"`, `"stability_"`, ...).
#' @param overwrite `TRUE` to replace columns of the same names; by default
#'   an existing column is an error.
#' @param fit `NULL`, or a selection whose ranks and contributions to add
#'   instead of scores.
#' @template design-args
#' @return `object`, with the columns added to `fData(object)` or
#'   `rowData(object)`, and the method and design recorded in its metadata.
#' @family scores
#' @seealso [feature_scores()]; [as.data.frame()][selection] of a selection
#'   with `scores =` for one table with the selection and the scores.
#' @examples
#' if (requireNamespace("Biobase", quietly = TRUE)) {
#'   x <- golub$x[, 1:50]
#'   eset <- Biobase::ExpressionSet(
#'     t(x),
#'     phenoData = Biobase::AnnotatedDataFrame(
#'       data.frame(class = golub$y, row.names = rownames(x))),
#'     featureData = Biobase::AnnotatedDataFrame(
#'       data.frame(symbol = paste0("G", 1:50), row.names = colnames(x))))
#'   eset <- add_feature_scores(eset, "class", method = "t")
#'   head(Biobase::fData(eset))
#'   fit <- bahsic(eset, "class")
#'   eset <- add_feature_scores(eset, "class", fit = fit)
#'   fd <- Biobase::fData(eset)
#'   head(fd[order(fd$bahsic_rank), ])
#' }
#' # a SummarizedExperiment works the same, with rowData() for fData()
#' @export
add_feature_scores <- function(object, y, method = NULL, ..., prefix = NULL,
                               overwrite = FALSE, fit = NULL, covariates = NULL, block = NULL) {
  passed <- score_dot_args()
  check_dots(..., .fn = "add_feature_scores", .allow = passed,
             .formals = c(names(formals(add_feature_scores)), passed))
  kind <- bioc_kind(object)
  if (!is.null(prefix) && (!is.character(prefix) || length(prefix) != 1L || is.na(prefix))) {
    stop("'prefix' must be a single string, such as \"mt_\", or NULL for the method's name.",
         call. = FALSE)
  }
  check_flag(overwrite, "overwrite")
  fdata <- bioc_feature_data(object, kind)
  rows <- rownames(object)
  if (!is.null(fit)) {
    if (!inherits(fit, "bahsic_selection")) {
      stop(sprintf("'fit' must be a selection (from bahsic(), fohsic(), ...), not a %s.",
                   class(fit)[1L]), call. = FALSE)
    }
    if (!is.null(method) || ...length() > 0L || !is.null(covariates) || !is.null(block)) {
      stop(paste0("With 'fit', the columns come from the selection: leave out 'method', ",
                  "the arguments of feature_scores() and the design (the selection's own ",
                  "is recorded)."), call. = FALSE)
    }
    if (!missing(y)) check_fit_outcome(fit, object, kind, y)
    new <- fit_columns(fit, rows, nrow(object))
    label <- fit$method
    design_text <- fit_design_text(fit)
  } else {
    if (missing(y)) {
      stop(paste0("'y' is missing: give the outcome (a vector, or the name of a column of ",
                  "the sample data), or a selection as 'fit'."), call. = FALSE)
    }
    s <- feature_scores(object, y, method = method, covariates = covariates, block = block, ...)
    new <- score_columns(s, rows, nrow(object))
    label <- attr(s, "method")
    design_text <- attr(s, "design")
  }
  if (is.null(prefix)) prefix <- paste0(label, "_")
  names(new) <- paste0(prefix, names(new))
  clash <- intersect(names(new), colnames(fdata))
  if (length(clash) > 0L && !overwrite) {
    stop(sprintf(paste0("The feature data already have column%s %s: use overwrite = TRUE to ",
                        "replace %s, or another 'prefix'."),
                 if (length(clash) > 1L) "s" else "", paste(clash, collapse = ", "),
                 if (length(clash) > 1L) "them" else "it"), call. = FALSE)
  }
  for (nm in names(new)) fdata[[nm]] <- new[[nm]]
  object <- set_feature_data(object, kind, fdata)
  record_scores(object, kind, prefix, label, design_text)
}

# What add_feature_scores() added, recorded in the object's metadata: per
# prefix of the columns, the method (or selector) and the design it used
# ("none", or the design's text as print() of a design shows it). An
# ExpressionSet keeps it in notes() (its experiment data's notes), a
# SummarizedExperiment in metadata(); both under `bahsic_scores`.
record_scores <- function(object, kind, prefix, label, design_text) {
  entry <- list(method = label, design = design_text %||% "none")
  if (kind == "ExpressionSet") {
    notes <- Biobase::notes(object)
    notes$bahsic_scores[[prefix]] <- entry
    Biobase::notes(object) <- notes
  } else {
    # the metadata() slot of every S4Vectors Vector (S4Vectors itself is not
    # a dependency of the package)
    md <- methods::slot(object, "metadata")
    md$bahsic_scores[[prefix]] <- entry
    methods::slot(object, "metadata") <- md
  }
  object
}

# The design a selection was made with, in words (NULL: none recorded).
fit_design_text <- function(fit) {
  d <- fit$settings$design
  if (inherits(d, "bahsic_design")) d$text else if (is.character(d) && length(d) == 1L) d
}

# The arguments of feature_scores() that add_feature_scores() and
# as.data.frame(fit, scores = ) pass on in their `...`.
score_dot_args <- function() {
  setdiff(names(formals(feature_scores.default)), c("x", "y", "method", "..."))
}

# "ExpressionSet" or "SummarizedExperiment", or an error naming `object`.
bioc_kind <- function(object) {
  if (methods::is(object, "ExpressionSet")) {
    if (!requireNamespace("Biobase", quietly = TRUE)) {
      stop("add_feature_scores() needs the Biobase package for an ExpressionSet: install it with BiocManager::install(\"Biobase\").",
           call. = FALSE)
    }
    return("ExpressionSet")
  }
  if (methods::is(object, "SummarizedExperiment")) {
    if (!requireNamespace("SummarizedExperiment", quietly = TRUE)) {
      stop("add_feature_scores() needs the SummarizedExperiment package: install it with BiocManager::install(\"SummarizedExperiment\").",
           call. = FALSE)
    }
    return("SummarizedExperiment")
  }
  stop(sprintf(paste0("'object' must be an ExpressionSet or a SummarizedExperiment, not a %s. ",
                      "For a matrix or data frame, use feature_scores() and keep its table."),
               class(object)[1L]), call. = FALSE)
}

# The feature annotation as it is, also with missing row names (rowData()
# would stop at them: use.names = FALSE).
bioc_feature_data <- function(object, kind) {
  if (kind == "ExpressionSet") {
    Biobase::fData(object)
  } else {
    SummarizedExperiment::rowData(object, use.names = FALSE)
  }
}

# `object` with the feature annotation `fdata`. Both containers keep column
# names as given, also one that is not syntactic ("my t score"); only
# as.data.frame() of a rowData() makes such a name syntactic (optional = TRUE
# keeps it).
set_feature_data <- function(object, kind, fdata) {
  if (kind == "ExpressionSet") {
    Biobase::fData(object) <- fdata
  } else {
    SummarizedExperiment::rowData(object) <- fdata
  }
  object
}

# The names the features of `object` get in the scores and selections made
# from it (feature_names(), which makes a missing or repeated name unique,
# and warns where the data are read).
object_feature_names <- function(rows, d) suppressWarnings(feature_names(rows, d))

# The score table's columns after `feature` and the annotation that
# feature_scores() copied from the object (annotate_features(): it sits
# between `feature` and `score`, a name that clashes prefixed), in the
# object's row order, which the scores keep.
score_columns <- function(s, rows, d) {
  if (nrow(s) != d || !identical(s$feature, object_feature_names(rows, d))) {
    stop("The scores do not line up with the rows of 'object' (internal error).", call. = FALSE)
  }
  out <- as.data.frame(s)[-seq_len(match("score", names(s)) - 1L)]
  attr(out, "method") <- NULL
  attr(out, "adjust") <- NULL
  rownames(out) <- NULL
  out
}

# A selection's columns (those of its features table but `feature` and the
# annotation), one row per row of the object: by position when the
# selection was made from this object (every row, in order, under the names
# the scores give them), else by name, which needs unique row names.
fit_columns <- function(fit, rows, d) {
  f <- fit$features
  if (nrow(f) == d && identical(f$feature, object_feature_names(rows, d))) {
    idx <- seq_len(d)
  } else if (!is.null(rows) && !anyNA(rows) && all(nzchar(rows)) && !anyDuplicated(rows)) {
    idx <- match(rows, f$feature)
    if (all(is.na(idx))) {
      stop(paste0("'fit' holds none of the features of 'object': give the selection made ",
                  "from this object."), call. = FALSE)
    }
  } else {
    dup <- unique(rows[duplicated(rows) & !is.na(rows)])
    what <- if (is.null(rows)) "no row names" else if (length(dup)) {
      sprintf("repeated row names (%s)", paste(utils::head(dup, 3L), collapse = ", "))
    } else {
      "missing or empty row names"
    }
    stop(sprintf(paste0("'object' has %s and 'fit' was not made from all its rows in this ",
                        "order, so the features of 'fit' cannot be told apart: give the ",
                        "selection made from this object, or make the row names unique ",
                        "(rownames(object) <- make.unique(rownames(object))) before selecting."),
                 what), call. = FALSE)
  }
  drop <- c("feature", fit$annotation)
  out <- f[idx, setdiff(names(f), drop), drop = FALSE]
  rownames(out) <- NULL
  out
}

# An outcome given with `fit` must be the one the selection was made with
# (new_selection()'s `outcome`: the outcome used and the samples kept).
check_fit_outcome <- function(fit, object, kind, y) {
  rec <- fit$outcome
  if (is.null(rec)) {
    why <- if (isTRUE(fit$settings$unsupervised)) {
      "was made without an outcome (unsupervised = TRUE)"
    } else {
      "does not record an outcome (a precomputed label kernel, or made elsewhere)"
    }
    stop(sprintf("'fit' %s, so 'y' cannot be checked against it: leave out 'y'.", why),
         call. = FALSE)
  }
  m <- ncol(object)
  if (is.character(y) && length(y) == 1L && m != 1L) {
    y <- sample_column(bioc_sample_data(object, kind), y)
  }
  y <- as_outcome(y, NULL, m, nrow(object), container = kind)
  if (!is.null(rec$rows)) y <- if (is.matrix(y)) y[rec$rows, , drop = FALSE] else y[rec$rows]
  if (!same_outcome(y, rec$y)) {
    stop(paste0("'y' is not the outcome 'fit' was made with: leave out 'y' (the columns come ",
                "from the selection), or give the selection made with this outcome."),
         call. = FALSE)
  }
  invisible()
}

same_outcome <- function(a, b) {
  if (NROW(a) != NROW(b) || is.factor(a) != is.factor(b)) return(FALSE)
  if (is.factor(a)) return(identical(as.character(a), as.character(b)))
  isTRUE(all.equal(unname(as.matrix(a)), unname(as.matrix(b)), check.attributes = FALSE))
}

bioc_sample_data <- function(object, kind) {
  if (kind == "ExpressionSet") {
    Biobase::pData(object)
  } else {
    as.data.frame(SummarizedExperiment::colData(object))
  }
}
