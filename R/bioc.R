#' Add per-gene scores to a Bioconductor object
#'
#' Scores every feature (gene, probe set) of an `ExpressionSet` or a
#' `SummarizedExperiment` with [feature_scores()] and returns the object with
#' the results as new columns of its feature annotation, `fData()` or
#' `rowData()`, next to the gene symbols already there, as the results of
#' genefilter or limma are commonly merged into `rowData()`. With `fit`, the
#' columns added are a selection's instead ([bahsic()], [fohsic()], ...).
#'
#' Every column of the score table but `feature` is added (`score`, `rank`
#' and those the method adds, such as p-values), named `prefix` followed by
#' the column's name: with the default prefix `bahsic_score`, `bahsic_rank`,
#' ... To keep the results of two methods, give each its own prefix
#' (`prefix = "mt_"`). The rows are matched to the features by position,
#' which the scores keep (their names are checked against the row names).
#' The annotation columns that [feature_scores()] itself copies from the
#' object are not added again.
#'
#' With `fit` (a `bahsic_selection` made from the same object), the columns
#' are the selection's `rank`, `score` and `contribution` (see [selection]),
#' matched by feature name; a feature the selection does not hold gets `NA`.
#'
#' @param object an `ExpressionSet` (Biobase) or a `SummarizedExperiment`
#'   (or a class extending it, such as a `SingleCellExperiment`).
#' @param y the outcome, as for [feature_scores()]: a vector with one value
#'   per sample, or the name of a column of `pData()` / `colData()`. Not
#'   used with `fit`.
#' @param method the score, as for [feature_scores()]; `NULL` lets it choose
#'   from the outcome. Not used with `fit`.
#' @param ... further arguments of [feature_scores()] (`assay`, `kernel`,
#'   `threads`, ...).
#' @param prefix a string put before the name of every column added.
#' @param overwrite `TRUE` to replace columns of the same names; by default
#'   an existing column is an error.
#' @param fit `NULL`, or a selection whose ranks and contributions to add
#'   instead of scores.
#' @return `object`, with the columns added to `fData(object)` or
#'   `rowData(object)`.
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
#'   eset <- add_feature_scores(eset, fit = fit, prefix = "fit_")
#'   fd <- Biobase::fData(eset)
#'   head(fd[order(fd$fit_rank), ])
#' }
#' # a SummarizedExperiment works the same, with rowData() for fData()
#' @export
add_feature_scores <- function(object, y, method = NULL, ..., prefix = "bahsic_",
                               overwrite = FALSE, fit = NULL) {
  passed <- score_dot_args()
  check_dots(..., .fn = "add_feature_scores", .allow = passed,
             .formals = c(names(formals(add_feature_scores)), passed))
  kind <- bioc_kind(object)
  if (!is.character(prefix) || length(prefix) != 1L || is.na(prefix)) {
    stop("'prefix' must be a single string, such as \"bahsic_\" or \"mt_\".", call. = FALSE)
  }
  check_flag(overwrite, "overwrite")
  fdata <- bioc_feature_data(object, kind)
  if (!is.null(fit)) {
    if (!inherits(fit, "bahsic_selection")) {
      stop(sprintf("'fit' must be a selection (from bahsic(), fohsic(), ...), not a %s.",
                   class(fit)[1L]), call. = FALSE)
    }
    if (!missing(y) || !is.null(method) || ...length() > 0L) {
      stop(paste0("With 'fit', the columns come from the selection: leave out 'y', 'method' ",
                  "and the arguments of feature_scores()."), call. = FALSE)
    }
    new <- fit_columns(fit, rownames(object), nrow(object))
  } else {
    if (missing(y)) {
      stop(paste0("'y' is missing: give the outcome (a vector, or the name of a column of ",
                  "the sample data), or a selection as 'fit'."), call. = FALSE)
    }
    new <- score_columns(feature_scores(object, y, method = method, ...), fdata,
                         rownames(object), nrow(object))
  }
  names(new) <- paste0(prefix, names(new))
  clash <- intersect(names(new), colnames(fdata))
  if (length(clash) > 0L && !overwrite) {
    stop(sprintf(paste0("The feature data already have column%s %s: use overwrite = TRUE to ",
                        "replace %s, or another 'prefix'."),
                 if (length(clash) > 1L) "s" else "", paste(clash, collapse = ", "),
                 if (length(clash) > 1L) "them" else "it"), call. = FALSE)
  }
  for (nm in names(new)) fdata[[nm]] <- new[[nm]]
  if (kind == "ExpressionSet") {
    Biobase::fData(object) <- fdata
  } else {
    SummarizedExperiment::rowData(object) <- fdata
  }
  object
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

bioc_feature_data <- function(object, kind) {
  if (kind == "ExpressionSet") Biobase::fData(object) else SummarizedExperiment::rowData(object)
}

# The score table's columns but `feature` and the annotation it copied from
# the object (under its own name or prefixed, annotate_features()), in the
# object's row order.
score_columns <- function(s, fdata, rows, d) {
  if (nrow(s) != d || (!is.null(rows) && !identical(s$feature, rows))) {
    stop("The scores do not line up with the rows of 'object' (internal error).", call. = FALSE)
  }
  ann <- names(feature_annotation(fdata, d))
  drop <- c("feature", ann, paste0("annotation_", ann))
  out <- as.data.frame(s)[setdiff(names(s), drop)]
  attr(out, "method") <- NULL
  rownames(out) <- NULL
  out
}

# A selection's rank, score and contribution by feature name.
fit_columns <- function(fit, rows, d) {
  f <- fit$features
  idx <- if (is.null(rows)) seq_len(d) else match(rows, f$feature)
  if (is.null(rows) && nrow(f) != d || all(is.na(idx))) {
    stop(paste0("'fit' holds none of the features of 'object': give the selection made ",
                "from this object."), call. = FALSE)
  }
  data.frame(rank = f$rank[idx], score = f$score[idx], contribution = f$contribution[idx])
}
