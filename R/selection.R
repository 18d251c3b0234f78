# The result class shared by every selector (bahsic(), fohsic(), and the ones
# to come): one constructor that validates, and the print / summary / plot /
# as.data.frame / selected() methods, so a user who has learnt one selector
# reads the output of all of them.

# method:   short string, "bahsic", "fohsic", ...
# features: data.frame in input feature order: feature (chr), rank (int, 1 =
#           most relevant, NA = not ranked), score (dbl, NA if not ranked),
#           iteration (int, NA if not ranked), optionally contribution (dbl,
#           the selector's normalised per-feature contribution; NA if
#           absent or not ranked); further columns are kept.
# path:     data.frame(iteration, n_features, hsic, sigma), one row per
#           iteration, possibly none; further columns are kept.
# settings: named list; print and summary show its scalar entries.
# call:     the matched call (or NULL).
# ...:      further named elements a selector adds (randsel(): contributions,
#           fixed), kept as they are after the standard ones.
# annotation: NULL, or a data frame with one row per feature in input order
#           (the problem's `annotation`, feature_annotation()): its columns
#           go right after `feature`, and the element `annotation` names them.
# outcome:  NULL, or the outcome the selection was made with
#           (selection_outcome()), kept as the element `outcome` so that
#           add_feature_scores() can check a `y` given with the fit.
# Whole-number doubles are accepted where integers are asked for, so a C
# routine may return either.
new_selection <- function(method, features, path, settings = list(), call = NULL, ...,
                          annotation = NULL, outcome = NULL) {
  if (!is.character(method) || length(method) != 1L || is.na(method) || !nzchar(method)) {
    stop(sprintf("'method' must be a single non-empty string such as \"%s\".",
                 selector_names()[1L]), call. = FALSE)
  }
  features <- check_selection_features(features)
  path <- check_selection_path(path)
  if (!is.list(settings) || is.object(settings) ||
      (length(settings) > 0L && (is.null(names(settings)) || any(!nzchar(names(settings)))))) {
    stop("'settings' must be a list whose every element is named.", call. = FALSE)
  }
  if (!is.null(call) && !is.call(call)) {
    stop("'call' must be a call (from match.call()) or NULL.", call. = FALSE)
  }
  extra <- list(...)
  std <- c("method", "features", "path", "settings", "call", "ranking", "annotation", "outcome")
  if (length(extra) > 0L &&
      (is.null(names(extra)) || any(!nzchar(names(extra))) || any(names(extra) %in% std))) {
    stop("Further elements of a selection must be named, and not as the standard ones.",
         call. = FALSE)
  }
  ranked <- !is.na(features$rank)
  ranking <- features$feature[ranked][order(features$rank[ranked])]
  annotated <- selection_annotation(features, annotation)
  structure(c(list(method = method, features = annotated$features, path = path,
                   settings = settings, call = call, ranking = ranking),
              if (!is.null(annotated$columns)) list(annotation = annotated$columns),
              if (!is.null(outcome)) list(outcome = outcome), extra),
            class = "bahsic_selection")
}

# The outcome a selection records (new_selection()): `y` as the selector
# used it (after na_action = "omit") and `rows`, the samples of 'x' it
# kept (NULL: all). NULL without an outcome of the user's: unsupervised
# selection (the data are the labels) or a precomputed label kernel.
selection_outcome <- function(d) {
  if (isTRUE(d$unsupervised) || is_precomputed_label(d$kernel_y) || is.null(d$y)) return(NULL)
  list(y = d$y, rows = d$rows)
}

# The annotation columns (feature_annotation(), R/inputs.R) right after
# `feature` (annotate_features(): a name that clashes is prefixed); returns
# the table and the names the annotation columns have in it (NULL: none).
selection_annotation <- function(features, annotation) {
  if (is.null(annotation) || ncol(annotation) == 0L) {
    return(list(features = features, columns = NULL))
  }
  if (!is.data.frame(annotation) || nrow(annotation) != nrow(features)) {
    stop(sprintf("'annotation' must be a data frame with one row per feature (%d), or NULL.",
                 nrow(features)), call. = FALSE)
  }
  out <- annotate_features(features, annotation)
  list(features = out, columns = names(out)[1L + seq_len(ncol(annotation))])
}

check_selection_features <- function(features) {
  if (!is.data.frame(features)) {
    stop("'features' must be a data.frame with columns feature, rank, score and iteration.",
         call. = FALSE)
  }
  need <- c("feature", "rank", "score", "iteration")
  missing_cols <- setdiff(need, names(features))
  if (length(missing_cols) > 0L) {
    stop(sprintf("'features' lacks column%s %s.", if (length(missing_cols) > 1L) "s" else "",
                 paste(missing_cols, collapse = ", ")), call. = FALSE)
  }
  if (nrow(features) == 0L) {
    stop("'features' has no rows: a selection needs at least one feature.", call. = FALSE)
  }
  feature <- features$feature
  if (!is.character(feature)) {
    stop("'features$feature' must be a character vector of feature names.", call. = FALSE)
  }
  bad <- is.na(feature) | !nzchar(feature)
  if (any(bad)) {
    stop(sprintf("'features$feature' must name every feature; row %d has no name.",
                 which(bad)[1L]), call. = FALSE)
  }
  dup <- duplicated(feature)
  if (any(dup)) {
    stop(sprintf(paste0("'features$feature' must list every feature exactly once; ",
                        "\"%s\" appears %d times."),
                 feature[dup][1L], sum(feature == feature[dup][1L])), call. = FALSE)
  }
  rank <- as_whole(features$rank, "features$rank")
  iteration <- as_whole(features$iteration, "features$iteration")
  if (!is.numeric(features$score)) {
    stop("'features$score' must be numeric.", call. = FALSE)
  }
  score <- as.double(features$score)

  ranked <- !is.na(rank)
  k <- sum(ranked)
  if (!identical(sort(rank[ranked]), seq_len(k))) {
    stop(sprintf(paste0("'features$rank' must hold the ranks 1 to %d, each once, for the %d ",
                        "ranked features (NA for the others)."), k, k), call. = FALSE)
  }
  if (any(!ranked & (!is.na(score) | !is.na(iteration)))) {
    stop(sprintf("Unranked feature \"%s\" must have NA score and iteration.",
                 feature[!ranked & (!is.na(score) | !is.na(iteration))][1L]), call. = FALSE)
  }
  if (any(iteration < 1L, na.rm = TRUE)) {
    stop("'features$iteration' must be at least 1 (iterations count from 1).", call. = FALSE)
  }
  contribution <- features$contribution
  if (is.null(contribution)) contribution <- rep(NA_real_, nrow(features))
  if (!is.numeric(contribution) && !all(is.na(contribution))) {
    stop("'features$contribution' must be numeric (NA allowed).", call. = FALSE)
  }
  features$rank <- rank
  score[!ranked] <- NA_real_
  features$score <- score
  features$iteration <- iteration
  contribution <- as.double(contribution)
  contribution[!ranked] <- NA_real_
  features$contribution <- contribution
  rownames(features) <- NULL
  need <- c(need, "contribution")
  features[c(need, setdiff(names(features), need))]
}

# x / total, NA where the total is not a positive finite number: the
# normalisations of the contribution column.
safe_ratio <- function(x, total) {
  total <- rep_len(as.double(total), length(x))
  ok <- is.finite(total) & total > 0
  out <- rep(NA_real_, length(x))
  out[ok] <- x[ok] / total[ok]
  out
}

check_selection_path <- function(path) {
  need <- c("iteration", "n_features", "hsic", "sigma")
  if (!is.data.frame(path) || length(setdiff(need, names(path))) > 0L) {
    stop("'path' must be a data.frame with columns iteration, n_features, hsic and sigma.",
         call. = FALSE)
  }
  path$iteration <- as_whole(path$iteration, "path$iteration")
  path$n_features <- as_whole(path$n_features, "path$n_features")
  if (anyNA(path$iteration) || anyNA(path$n_features) || any(path$n_features < 0L)) {
    stop("'path$iteration' and 'path$n_features' must be non-missing and non-negative.",
         call. = FALSE)
  }
  for (col in c("hsic", "sigma")) {
    if (!is.numeric(path[[col]]) && !all(is.na(path[[col]]))) {
      stop(sprintf("'path$%s' must be numeric (NA allowed).", col), call. = FALSE)
    }
    path[[col]] <- as.double(path[[col]])
  }
  rownames(path) <- NULL
  path[c(need, setdiff(names(path), need))]
}

# Integer-valued numbers (or all NA) -> integer, else an error naming `arg`.
as_whole <- function(value, arg) {
  # (a plain integer vector, as the selectors hand in, is returned as it is)
  if (is.integer(value) && is.null(attributes(value))) return(value)
  if (is.logical(value) && all(is.na(value))) return(rep(NA_integer_, length(value)))
  if (!is.numeric(value) || any(is.infinite(value)) ||
      any(value != round(value), na.rm = TRUE) ||
      any(abs(value) > .Machine$integer.max, na.rm = TRUE)) {
    stop(sprintf("'%s' must hold whole numbers (or NA).", arg), call. = FALSE)
  }
  as.integer(value)
}

method_label <- function(method) {
  labels <- c(selector_labels(), stability = "Stability")
  if (method %in% names(labels)) labels[[method]] else toupper(method)
}

# The settings that fit on a line: kernels by their label, scalars as they are
# (NA and non-scalar ones are left out).
format_settings <- function(settings, digits = 4L) {
  show <- setdiff(names(settings), "n_samples")
  out <- character(0)
  for (nm in show) {
    value <- settings[[nm]]
    text <- if (inherits(value, c("bahsic_kernel", "bahsic_label_kernel"))) {
      lab <- value$label
      sigma <- value$params$sigma
      if (is.numeric(sigma) && length(sigma) == 1L) {
        lab <- sprintf("%s (sigma = %s)", lab, format(sigma, digits = digits))
      }
      lab
    } else if (is.atomic(value) && length(value) == 1L && !is.na(value)) {
      if (is.numeric(value)) format(value, digits = digits) else as.character(value)
    } else {
      NULL
    }
    if (!is.null(text)) out[nm] <- text
  }
  out
}

# "a; b; c" over as many lines as the console width needs, breaking between
# items only.
pack_items <- function(items, width = getOption("width", 80L)) {
  lines <- character(0)
  line <- ""
  for (item in items) {
    if (nzchar(line) && nchar(line) + 2L + nchar(item) > width) {
      lines <- c(lines, paste0(line, ";"))
      line <- ""
    }
    line <- if (nzchar(line)) paste0(line, "; ", item) else paste0("  ", item)
  }
  c(lines, line)
}

selection_header <- function(x) {
  m <- x$settings$n_samples
  y <- x$outcome$y
  sprintf("%s feature selection%s: %s%d features, %d ranked\n%s", method_label(x$method),
          if (isTRUE(x$settings$unsupervised)) " (unsupervised: the data are the labels)" else "",
          if (is.numeric(m) && length(m) == 1L) sprintf("%d samples, ", as.integer(m)) else "",
          nrow(x$features), length(x$ranking),
          # the kind of outcome where the label kernel's name does not say it
          if (is_surv(y)) sprintf("  outcome: %s, %d events\n", outcome_words(y),
                                  as.integer(sum(surv_event(y)))) else "")
}

# Ranked features first, by rank; unranked ones after, in input order.
features_by_rank <- function(x) {
  f <- x$features
  f <- f[order(f$rank, seq_len(nrow(f)), na.last = TRUE), , drop = FALSE]
  rownames(f) <- NULL
  f
}

# The best `top` ranked features, as a data frame (rank, feature, the first
# two annotation columns, score, contribution, iteration).
top_ranked <- function(x, top) {
  f <- features_by_rank(x)
  cols <- c("rank", "feature", utils::head(x$annotation, 2L), "score", "contribution",
            "iteration")
  f <- utils::head(f[!is.na(f$rank), intersect(cols, names(f)), drop = FALSE], top)
  # a column a selector does not fill (a stability selection's contribution
  # and iteration) is left out rather than shown as a column of NA
  empty <- vapply(f, function(v) all(is.na(v)), logical(1)) &
    names(f) %in% c("contribution", "iteration")
  f[!empty]
}

# Contributions as percentages of two significant digits: "100%", "19%", "0.44%".
format_percent <- function(share) {
  paste0(trimws(formatC(100 * share, digits = 2L, format = "fg")), "%")
}

# What a selector's `score` and `contribution` are (?selection), in words
# for the printed table and the plots: the selectors' are in their rows of
# the selector table (R/selector-table.R), a stability selection's here.
stability_meanings <- c(score = "its selection probability", contribution = NA)

# What a result's score and contribution mean, by its `method`.
selection_meaning <- function(method, what) {
  if (identical(method, "stability")) return(stability_meanings[[what]])
  selector_field(method, what)
}

score_meaning <- function(method) {
  selection_meaning(method, "score")
}

contribution_meaning <- function(method) {
  v <- selection_meaning(method, "contribution")
  if (is.null(v) || is.na(v)) "the share of the selector's criterion it carried when ranked" else v
}

print_top <- function(top, n_ranked, digits, method = "") {
  if (n_ranked == 0L) {
    cat("No feature ranked.\n")
    return(invisible())
  }
  if (nrow(top) == 0L) return(invisible())
  cat(sprintf("Top %d of %d ranked features:\n", nrow(top), n_ranked))
  top$score <- format(top$score, digits = digits)
  if (!is.null(top$contribution)) {
    top$contribution <- ifelse(is.finite(top$contribution), format_percent(top$contribution),
                               "NA")
  }
  print(top, row.names = FALSE, right = TRUE)
  notes <- c(if (!is.null(score_meaning(method))) paste("score:", score_meaning(method)),
             if (!is.null(top$contribution)) {
               paste("contribution:", contribution_meaning(method))
             })
  if (length(notes)) cat(strwrap(notes, exdent = 2L, width = getOption("width")), sep = "\n")
  invisible()
}

#' Results of a feature selection
#'
#' Every selector of the package ([bahsic()], [fohsic()], ...) returns an
#' object of class `bahsic_selection`, and these methods read it.
#'
#' The object is a list with
#' \describe{
#'   \item{`method`}{the selector, e.g. `"bahsic"`.}
#'   \item{`features`}{a data frame in the input feature order: `feature`
#'     (name), then the feature annotation of a Bioconductor input (see
#'     `annotation` below), `rank` (1 = most relevant, `NA` = not ranked),
#'     `score` (the selector's criterion when the feature was eliminated or
#'     added, e.g. HSIC of the set without it for BAHSIC), `iteration`
#'     (when) and `contribution` (below).}
#'   \item{`path`}{a data frame, one row per iteration: `iteration`,
#'     `n_features` (size of the surviving set for BAHSIC, of the selected
#'     set for FOHSIC), `hsic` (HSIC of that set) and `sigma` (the kernel
#'     width used, `NA` for kernels without one).}
#'   \item{`settings`}{the kernels, estimator, width policy and other
#'     choices, and `n_samples`.}
#'   \item{`call`}{the call.}
#'   \item{`ranking`}{names of the ranked features, most relevant first.}
#'   \item{`annotation`}{only when the input was an `ExpressionSet` or a
#'     `SummarizedExperiment` with feature annotation: the names of its
#'     atomic `fData()` / `rowData()` columns (gene symbols, chromosomes,
#'     ...), which `features` holds right after `feature` (a name that is
#'     also a column of the table is prefixed with `annotation_`).}
#'   \item{`outcome`}{when the selection was made for an outcome (not
#'     unsupervised, no precomputed label kernel): a list of `y`, the outcome
#'     as used, and `rows`, the samples kept by `na_action = "omit"` (`NULL`:
#'     all), so that [add_feature_scores()] can check an outcome given with
#'     the selection.}
#' }
#'
#' **Contribution.** `contribution` says how much of the selector's
#' criterion the feature carried when it was ranked, normalised so that
#' selections of different sizes and data compare; `NA` for features not
#' ranked, and where the normaliser is not positive. Its meaning per
#' selector:
#' * [bahsic()] (Song et al. 2012, Algorithm 1): the share of HSIC lost
#'   when the feature was eliminated, \eqn{(\mathrm{HSIC}(S) -
#'   \mathrm{HSIC}(S \setminus \{j\})) / \mathrm{HSIC}(S)}, S the surviving
#'   set of that iteration, both at its kernel width (`path$hsic` and
#'   `score`). The features left at `n_features` are scored against their
#'   own set the same way; the last feature of a full ranking scores 1.
#'   Negative: HSIC rose without the feature (it hid the dependence).
#' * [fohsic()] (Algorithm 2): the share of HSIC gained when the feature was
#'   added, \eqn{(\mathrm{HSIC}(S_+ \cup \{j\}) - \mathrm{HSIC}(S_+)) /
#'   \mathrm{HSIC}(S_+ \cup \{j\})}, \eqn{S_+} the set selected before that
#'   iteration, both at its width. The first iteration adds to the empty
#'   set, so its features (a fraction `add` of all) score 1; `score` orders
#'   them. When the width changed since the previous iteration,
#'   \eqn{\mathrm{HSIC}(S_+)} is computed again at the new width (with
#'   `approx = "rff"` it is not, and the contribution is `NA`).
#' * [mrmr()] (Peng, Long and Ding 2005): the MID criterion when the
#'   feature was added (`score`: its relevance minus its mean redundancy with
#'   the features selected before it) as a share of its relevance; the first
#'   feature scores 1. Negative: more redundant than relevant.
#' * [randsel()]: the feature's contribution (`score`, Definition 3.2 of
#'   Athanasakis et al.) relative to the mean alignment of that iteration's
#'   half-plus-one sets (`path$hsic`).
#' * [l1_lsmi()], [l1_hsic()] and [hsic_weights()]: the feature's share of
#'   the total weight, \eqn{|w_j| / \sum_k |w_k|} (the weights are
#'   non-negative; they sum to 1).
#' * [clinical_rfe()]: the importance when the feature was removed as a share of the
#'   importances of that iteration's surviving features: with
#'   `j_svm = "share"` the share of \eqn{W^2} lost, with `importance =
#'   "mkl"` the kernel weight \eqn{\mu_f}; the last feature scores 1.
#' BAHSIC, FOHSIC, randSel and RFE normalise within an iteration, so their
#' contributions rank the features of one iteration; across iterations they
#' say how much of its set's dependence a feature carried when it left (or
#' joined), not a share of one total: they do not sum to 1.
#'
#' **One table with the per-gene statistics.** `as.data.frame(fit, scores =
#' "mt", data = x, y = y)` adds to the selection table the columns of
#' [feature_scores]`(x, y, method = "mt", ...)` (all but `feature` and the
#' annotation, named after the method: `mt_score`, `mt_rank` and any
#' p-values), matched by feature name. The selection does not keep the data,
#' so `data` and `y` are the `x` and `y` it was made from.
#'
#' `print()` shows the settings and the 10 best features (with the first two
#' annotation columns), `summary()` the settings, the head and tail of the
#' path and the 20 best features; both print the contribution in percent and
#' end the table with a line on what its `score` and `contribution` are for
#' that selector. For BAHSIC the score of rank 1 is 0 (HSIC of the empty set
#' that is left without it) and scores need not fall with the rank: read the
#' contribution.
#' `as.data.frame()` gives `features` ordered by rank, unranked features
#' last. `selected()` gives the names of the `n` best features.
#'
#' @param x,object a `bahsic_selection` object.
#' @param digits number of significant digits to print.
#' @param top number of best features to show.
#' @param row.names,optional ignored; for compatibility with the generic.
#' @param scores for `as.data.frame()`: `NULL`, or the name of a method of
#'   [feature_scores()] (`"mt"`, `"t"`, `"hsic"`, ...) whose per-feature
#'   statistics to join, as columns named after the method (`mt_score`,
#'   `mt_p_value`, ...). A table of scores already made is joined with
#'   `merge(as.data.frame(fit), table, by = "feature")` instead.
#' @param data,y for `as.data.frame()` with `scores`: the data (`x`) and the
#'   outcome the selection was made from.
#' @param ... for `as.data.frame()` with `scores`: further arguments of
#'   [feature_scores()] (`kernel`, `threads`, ...). Otherwise not used: a
#'   name other than those R's own `print()` and `data.frame()` pass to
#'   every method is an error.
#' @return `print()` returns `x` invisibly; `summary()` an object of class
#'   `summary.bahsic_selection`; `as.data.frame()` a data frame with columns
#'   `feature`, the annotation, `rank`, `score`, `iteration`, `contribution`
#'   (and any the selector adds), and with `scores` the joined statistics.
#' @family selection
#' @examples
#' fit <- bahsic(golub$x[, 1:40], golub$y)
#' fit
#' summary(fit)
#' head(as.data.frame(fit))
#' # the selection and limma's moderated t in one table
#' if (requireNamespace("limma", quietly = TRUE)) {
#'   head(as.data.frame(fit, scores = "mt", data = golub$x[, 1:40], y = golub$y))
#' }
#' selected(fit, 5)
#' @name selection
NULL

#' @rdname selection
#' @export
print.bahsic_selection <- function(x, digits = max(3L, getOption("digits") - 3L),
                                   top = 10L, ...) {
  check_dots(..., .fn = "print", .allow = print_dot_args)
  cat(selection_header(x))
  s <- format_settings(x$settings, digits)
  if (length(s) > 0L) cat(pack_items(paste(names(s), s, sep = ": ")), sep = "\n")
  print_top(top_ranked(x, top), length(x$ranking), digits, x$method)
  invisible(x)
}

#' @rdname selection
#' @export
summary.bahsic_selection <- function(object, top = 20L, ...) {
  check_dots(..., .fn = "summary")
  structure(list(header = selection_header(object), method = object$method,
                 call = object$call,
                 settings = format_settings(object$settings),
                 path = object$path,
                 top = top_ranked(object, top),
                 n_ranked = length(object$ranking)),
            class = "summary.bahsic_selection")
}

#' @rdname selection
#' @export
print.summary.bahsic_selection <- function(x, digits = max(3L, getOption("digits") - 3L), ...) {
  check_dots(..., .fn = "print", .allow = print_dot_args)
  cat(x$header)
  if (!is.null(x$call)) {
    cat("Call: ", paste(deparse(x$call, width.cutoff = 500L), collapse = " "), "\n", sep = "")
  }
  if (length(x$settings) > 0L) {
    cat("Settings:\n")
    cat(sprintf("  %-*s %s\n", max(nchar(names(x$settings))) + 1L,
                paste0(names(x$settings), ":"), x$settings), sep = "")
  }
  path <- x$path
  if (nrow(path) == 0L) {
    cat("Path: no iterations recorded.\n")
  } else {
    cat(sprintf("Path (%d iteration%s):\n", nrow(path), if (nrow(path) > 1L) "s" else ""))
    shown <- path
    for (col in c("hsic", "sigma")) shown[[col]] <- format(shown[[col]], digits = digits)
    if (nrow(shown) > 10L) {
      out <- utils::capture.output(print(rbind(utils::head(shown, 5L), utils::tail(shown, 5L)),
                                       row.names = FALSE, right = TRUE))
      out <- c(out[1:6], "   ...", out[7:11])
      cat(out, sep = "\n")
    } else {
      print(shown, row.names = FALSE, right = TRUE)
    }
  }
  print_top(x$top, x$n_ranked, digits, if (is.null(x$method)) "" else x$method)
  invisible(x)
}

#' @rdname selection
#' @export
as.data.frame.bahsic_selection <- function(x, row.names = NULL, optional = FALSE, ...,
                                           scores = NULL, data = NULL, y = NULL) {
  if (is.null(scores)) {
    if (!is.null(data) || !is.null(y)) {
      stop("'data' and 'y' are used with 'scores' only: give scores = \"mt\" (or another method of feature_scores()), or leave them out.",
           call. = FALSE)
    }
    check_dots(..., .fn = "as.data.frame", .allow = "stringsAsFactors")
    return(features_by_rank(x))
  }
  if (!is.character(scores) || length(scores) != 1L || is.na(scores)) {
    stop(sprintf(paste0("'scores' must be the name of a method of feature_scores(), such as ",
                        "\"mt\", not %s. To join a table of scores already made, merge ",
                        "it by feature: merge(as.data.frame(fit), table, by = \"feature\")."),
                 describe_value(scores)), call. = FALSE)
  }
  if (is.null(data)) {
    stop(paste0("'data' is missing: joining scores = \"", scores, "\" needs the data the ",
                "selection was made from, as data = (the selector's x) and y =."), call. = FALSE)
  }
  join_scores(x, data, y, scores, ...)
}

# A value in a message: its class and length, never the value deparsed.
describe_value <- function(v) {
  if (is.null(v)) return("NULL")
  if (is.data.frame(v)) return(sprintf("a data frame (%d x %d)", nrow(v), ncol(v)))
  if (length(v) == 1L && is.atomic(v)) return(sprintf("%s %s", class(v)[1L], format(v)))
  sprintf("a %s of length %d", class(v)[1L], length(v))
}

# The selection table by rank with the columns of feature_scores(data, y,
# method = scores, ...) but `feature` and the annotation, each named after
# the method ("mt_score", "mt_rank", ...), matched by feature name.
join_scores <- function(fit, data, y, scores, ...) {
  passed <- score_dot_args()
  check_dots(..., .fn = "as.data.frame", .allow = c(passed, "stringsAsFactors"),
             .formals = c(names(formals(as.data.frame.bahsic_selection)), passed))
  dots <- list(...)
  dots$stringsAsFactors <- NULL
  s <- do.call(feature_scores, c(list(data, y, method = scores), dots))
  method <- attr(s, "method")
  if (is.null(method)) method <- scores
  f <- features_by_rank(fit)
  idx <- match(f$feature, s$feature)
  if (anyNA(idx)) {
    stop(sprintf(paste0("'data' is not the data of the selection: it lacks feature%s %s. ",
                        "Give the x the selection was made from."),
                 if (sum(is.na(idx)) > 1L) "s" else "",
                 paste(utils::head(f$feature[is.na(idx)], 3L), collapse = ", ")), call. = FALSE)
  }
  # the annotation feature_scores() copied sits between `feature` and `score`
  # (annotate_features()): every column from `score` on is the method's own
  cols <- names(s)[-seq_len(match("score", names(s)) - 1L)]
  add <- as.data.frame(s)[idx, cols, drop = FALSE]
  names(add) <- paste0(method, "_", cols)
  out <- cbind(f, add)
  rownames(out) <- NULL
  out
}

#' Names of the selected features
#'
#' The `n` most relevant features of a selection, best first.
#'
#' `selected()` is the generic of the stabs package, which bahsic imports and
#' exports again with a method for its selections: whichever of the two
#' packages is attached last, `selected()` gives the features of a bahsic
#' selection and those of a [stabs::stabsel()] result alike.
#'
#' @param object a selection, e.g. from [bahsic()].
#' @param n how many; `NULL` (default) gives every ranked feature.
#' @param ... not used: an argument other than `object` and `n` is an error.
#' @return A character vector of feature names.
#' @family selection
#' @examples
#' fit <- bahsic(golub$x[, 1:40], golub$y)
#' selected(fit, 3)
#' golub$x[, selected(fit, 3)][1:5, ]
#' @name selected
#' @usage selected(object, ...)
#' @importFrom stabs selected
#' @export selected
NULL

#' @rdname selected
#' @export
selected.bahsic_selection <- function(object, n = NULL, ...) {
  check_dots(..., .fn = "selected")
  if (is.null(n)) return(object$ranking)
  k <- length(object$ranking)
  if (!is.numeric(n) || length(n) != 1L || !is.finite(n) || n != round(n) || n < 0) {
    stop("'n' must be a single whole number >= 0, or NULL for every ranked feature.",
         call. = FALSE)
  }
  if (n > k) {
    stop(sprintf("'n' = %d is more than the %d ranked feature%s; use n <= %d or n = NULL.",
                 as.integer(n), k, if (k == 1L) "" else "s", k), call. = FALSE)
  }
  object$ranking[seq_len(n)]
}

#' Plot a feature selection
#'
#' Draws HSIC of the surviving (BAHSIC) or selected (FOHSIC) feature set
#' against the number of features in it, on a log axis, with the largest
#' value marked. The kernel width of each iteration is shown too: in the
#' subtitle when it is constant, on the right axis (dashed) when the width
#' policy changes it. With `chosen`, a second panel shows the ranks of those
#' features (for instance the known relevant features of a simulation, see
#' [simulate_xor()], or the top genes by another score) on a log axis of the
#' selector's rank (e.g. "BAHSIC rank"), each point labelled with its rank and
#' its contribution in percent (see "Contribution" in [selection]: how much of
#' the selector's criterion the feature carried when it was ranked). The
#' dotted line, labelled below the axis, is at rank n for n chosen features:
#' a selector that ranked all of them first would put every point left of it.
#' Unranked features are drawn as open circles at the right edge.
#'
#' A [stability_selection()] draws instead every feature's selection
#' probability, sorted, with the cutoff (dashed, labelled inside the box), the
#' stable features in red and the names of the top ten above their bars,
#' raised where they would overlap (`chosen` is not used there).
#'
#' @section Gene symbols: The chosen features are labelled by gene symbol
#'   when the selection carries one, so that a figure shows CD3E rather than
#'   38319_at. A symbol column is an annotation column of the selection's
#'   `features` table (the `fData()` or `rowData()` of an annotated
#'   `ExpressionSet` or `SummarizedExperiment` given as `x`) whose name,
#'   ignoring case, dots and underscores, is `symbol`, `genesymbol` or
#'   `hgncsymbol` (so `symbol`, `SYMBOL`, `Symbol`, `gene_symbol`,
#'   `Gene.Symbol`, `hgnc_symbol`; also with the prefix `annotation_`); the
#'   first such column is used. A feature whose symbol is missing or empty
#'   keeps its name, and a symbol shared by several of the chosen features
#'   (two probes of one gene) is followed by the feature name in parentheses.
#'   `labels` overrides the rule, for instance for a matrix input whose
#'   symbols come from an annotation package.
#'
#' @param x a `bahsic_selection` object.
#' @param chosen `NULL`, or the features whose ranks to show: names, or
#'   column indices of the input data.
#' @param chosen_label what the chosen features are, for the title of their
#'   panel ("Ranks of the <chosen_label>"), e.g. `"moderated t top 20"` or
#'   `"planted features"`. Only with `chosen`.
#' @param labels `NULL` (the gene symbol rule below), or a character vector
#'   of labels for the features: named by feature name, or unnamed with one
#'   label per feature of the selection (in input order). Only with
#'   `chosen`, or for a stability selection (the labels of its top genes).
#' @param ... graphical parameters for the path panel (`main`, `col`, `xlab`,
#'   `ylim`, ...).
#' @return `x`, invisibly.
#' @family selection
#' @examples
#' fit <- bahsic(golub$x[, 1:40], golub$y)
#' plot(fit)
#' plot(fit, chosen = c(1, 5, 10), chosen_label = "genes 1, 5 and 10")
#' @export
plot.bahsic_selection <- function(x, chosen = NULL, chosen_label = "chosen features",
                                  labels = NULL, ...) {
  check_graphics_dots(..., .fn = "plot")
  if (identical(x$method, "stability")) {
    if (!is.null(chosen)) stop_unused("chosen", "the other selectors", "a stability selection")
    if (!missing(chosen_label)) {
      stop_unused("chosen_label", "the other selectors", "a stability selection")
    }
    plot_stability(x, labels = labels, ...)
    return(invisible(x))
  }
  if (is.null(chosen)) {
    if (!missing(chosen_label)) stop_unused("chosen_label", "'chosen'", "no 'chosen' features")
    if (!is.null(labels)) stop_unused("labels", "'chosen'", "no 'chosen' features")
  }
  idx <- if (is.null(chosen)) NULL else chosen_index(x, chosen)
  if (!is.null(idx)) {
    if (!is.character(chosen_label) || length(chosen_label) != 1L || is.na(chosen_label) ||
        !nzchar(chosen_label)) {
      stop("'chosen_label' must be a single non-empty string, such as \"moderated t top 20\".",
           call. = FALSE)
    }
    labels <- feature_labels(x, idx, labels)
    op <- graphics::par(mfrow = c(1L, 2L))
    on.exit(graphics::par(op), add = TRUE)
  }
  plot_path(x, ...)
  if (!is.null(idx)) plot_chosen_ranks(x, idx, labels, chosen_label)
  invisible(x)
}

# The symbol columns of a selection (see ?plot.bahsic_selection, "Gene
# symbols"): names that, lower-cased without dots, underscores and an
# "annotation_" prefix, are one of these.
symbol_column_keys <- c("symbol", "genesymbol", "hgncsymbol")

symbol_column <- function(x) {
  cols <- x$annotation
  if (is.null(cols)) return(NULL)
  key <- gsub("[._]", "", sub("^annotation_", "", tolower(cols)))
  hit <- cols[key %in% symbol_column_keys]
  hit <- hit[vapply(hit, function(k) is.character(x$features[[k]]) ||
                      is.factor(x$features[[k]]), logical(1))]
  if (length(hit)) hit[1L] else NULL
}

# Labels of the features idx: `labels` given by the user, else the symbol
# column, else the feature names; a missing symbol falls back to the name,
# a symbol shared by several of them gets the name in parentheses.
feature_labels <- function(x, idx, labels = NULL) {
  features <- x$features$feature
  if (!is.null(labels)) {
    if (!is.character(labels) && !is.factor(labels)) {
      stop("'labels' must be a character vector of feature labels, or NULL.", call. = FALSE)
    }
    labels <- stats::setNames(as.character(labels), names(labels))
    if (!is.null(names(labels))) {
      lab <- unname(labels[match(features[idx], names(labels))])
    } else if (length(labels) == length(features)) {
      lab <- labels[idx]
    } else {
      stop(sprintf(paste0("'labels' has %d elements: give one per feature (%d), or name ",
                          "them by feature."), length(labels), length(features)), call. = FALSE)
    }
  } else {
    col <- symbol_column(x)
    lab <- if (is.null(col)) features[idx] else as.character(x$features[[col]][idx])
  }
  lab <- trimws(lab)
  miss <- is.na(lab) | !nzchar(lab)
  lab[miss] <- features[idx][miss]
  dup <- !miss & (duplicated(lab) | duplicated(lab, fromLast = TRUE))
  lab[dup] <- sprintf("%s (%s)", lab[dup], features[idx][dup])
  lab
}

chosen_index <- function(x, chosen) {
  features <- x$features$feature
  if (is.character(chosen)) {
    idx <- match(chosen, features)
    if (anyNA(idx)) {
      stop(sprintf("'chosen' names features that are not in the selection: %s.",
                   paste(utils::head(chosen[is.na(idx)], 3L), collapse = ", ")), call. = FALSE)
    }
  } else if (is.numeric(chosen)) {
    if (any(!is.finite(chosen)) || any(chosen != round(chosen)) ||
        any(chosen < 1 | chosen > length(features))) {
      stop(sprintf("'chosen' column indices must be whole numbers from 1 to %d.",
                   length(features)), call. = FALSE)
    }
    idx <- as.integer(chosen)
  } else {
    stop("'chosen' must be feature names or column indices, or NULL.", call. = FALSE)
  }
  if (length(idx) == 0L) stop("'chosen' is empty; give at least one feature.", call. = FALSE)
  unique(idx)
}

plot_path <- function(x, ...) {
  path <- x$path
  criterion <- "HSIC"
  # the selector's criterion (clinical_rfe() has no HSIC: its path has the SVM
  # dual objective instead)
  value <- selector_field(x$method, "path_value", "hsic")
  if (is.numeric(path[[value]])) {
    path$hsic <- path[[value]]
    criterion <- selector_field(x$method, "criterion", "HSIC")
  }
  path <- path[path$n_features > 0L & is.finite(path$hsic), , drop = FALSE]
  main <- sprintf("%s: %s of the %s set", method_label(x$method), criterion,
                  if (identical(selector_field(x$method, "direction"), "forward")) "selected" else
                    "surviving")
  if (nrow(path) == 0L) {
    graphics::plot.new()
    graphics::title(main = main)
    graphics::text(0.5, 0.5, "no iterations recorded")
    return(invisible())
  }
  path <- path[order(path$n_features), , drop = FALSE]
  sigma <- path$sigma
  finite_sigma <- is.finite(sigma) & sigma > 0
  varying <- sum(finite_sigma) > 1L && diff(range(sigma[finite_sigma])) > 0
  sub <- if (any(finite_sigma) && !varying) {
    sprintf("sigma = %s", format(sigma[finite_sigma][1L], digits = 3L))
  }
  if (varying) {
    # room on the right for the width axis
    op <- graphics::par(mar = pmax(graphics::par("mar"), c(0, 0, 0, 4.1)))
    on.exit(graphics::par(op), add = TRUE)
  }
  # headroom above the maximum for its label, so that it stays inside the box
  yr <- range(path$hsic)
  room <- 0.15 * max(diff(yr), abs(yr[2L]) * 0.1, 1e-12)
  args <- utils::modifyList(
    list(x = path$n_features, y = path$hsic, type = "o", pch = 19, cex = 0.7, log = "x",
         xlim = c(1, max(2L, path$n_features)), ylim = yr + c(0, room),
         xlab = "number of features (log scale)", ylab = criterion, main = main, sub = sub,
         cex.main = fit_cex(main, graphics::par("cex.main"))),
    list(...))
  do.call(graphics::plot, args)
  best <- which.max(path$hsic)
  mark_maximum(path$n_features[best], path$hsic[best])
  if (varying) {
    ns <- path$n_features[finite_sigma]
    s <- sigma[finite_sigma]
    usr <- graphics::par("usr")
    # map sigma (log) onto the HSIC axis range
    ls <- log10(s)
    lr <- if (diff(range(ls)) > 0) range(ls) else range(ls) + c(-0.5, 0.5)
    # below the headroom of the "max at" label
    top <- min(usr[4], yr[2L])
    to_y <- function(v) usr[3] + (v - lr[1]) / diff(lr) * (top - usr[3])
    graphics::lines(ns, to_y(ls), lty = 2, col = "grey40")
    # whole powers of ten when two fit, each label formatted on its own (a
    # common format() gives every label the digits of the smallest)
    ticks <- seq(ceiling(lr[1]), floor(lr[2]))
    if (length(ticks) < 2L) ticks <- pretty(lr)
    ticks <- ticks[ticks >= lr[1] & ticks <= lr[2]]
    if (length(ticks) < 2L) ticks <- lr
    graphics::axis(4, at = to_y(ticks), labels = formatC(10^ticks, digits = 2L, format = "g"),
                   las = 1, col.axis = "grey40", cex.axis = 0.8)
    graphics::mtext("kernel width sigma (dashed)", side = 4, line = 3, col = "grey40",
                    cex = 0.8)
  }
  invisible()
}

# A title's cex, shrunk (down to 60%) so that it fits the width of the
# figure region: two panels side by side on a small device.
fit_cex <- function(text, cex) {
  width <- graphics::strwidth(text, units = "inches", cex = cex, font = 2L)
  room <- 0.95 * graphics::par("fin")[1L]
  if (width <= room) cex else max(0.6 * cex, cex * room / width)
}

# The circle and "max at n" label of the path's maximum. The label sits above
# the circle, left-aligned when the point is in the left half of the (log)
# x axis and right-aligned otherwise, so that it never leaves the plot.
mark_maximum <- function(n, value) {
  graphics::points(n, value, pch = 1, cex = 2, col = "red3", lwd = 2)
  usr <- graphics::par("usr")
  lx <- if (graphics::par("xlog")) log10(n) else n
  right_half <- lx > mean(usr[1:2])
  graphics::text(n, value + 1.6 * graphics::strheight("M", cex = 0.8),
                 sprintf("max at %d", n), adj = c(if (right_half) 1 else 0, 0),
                 col = "red3", cex = 0.8)
}

plot_chosen_ranks <- function(x, idx, labels, chosen_label) {
  f <- x$features[idx, , drop = FALSE]
  f$label <- labels
  d <- nrow(x$features)
  k <- length(x$ranking)
  f <- f[order(f$rank, na.last = TRUE), , drop = FALSE]
  n <- nrow(f)
  unranked <- is.na(f$rank)
  xmax <- max(2L, d)
  pos <- ifelse(unranked, xmax, f$rank)
  op <- graphics::par(mar = c(5.1, min(12, 1.5 + 0.6 * max(nchar(f$label))), 4.1, 1.1))
  on.exit(graphics::par(op), add = TRUE)
  ypos <- rev(seq_len(n))
  # a line of headroom for the label of the dotted line
  graphics::plot(pos, ypos, log = "x", xlim = c(1, xmax), ylim = c(0.5, n + 1.5),
                 yaxt = "n", pch = ifelse(unranked, 1, 19), col = "navy",
                 xlab = "", ylab = "",
                 main = "", las = 1)
  # title and axis label centred on the whole panel: the names' margin would
  # push plot-centred ones off the device
  mid <- graphics::grconvertX(0.5, from = "nfc", to = "user")
  main <- paste("Ranks of the", chosen_label)
  graphics::mtext(main, side = 3, line = 1.5, font = 2, at = mid, xpd = NA,
                  cex = graphics::par("cex") * fit_cex(main, graphics::par("cex.main")))
  xlab <- if (k == d) sprintf("%s rank (log scale; all %d ranked)", method_label(x$method), d) else
    sprintf("%s rank (log scale; %d ranked of %d)", method_label(x$method), k, d)
  graphics::mtext(xlab, side = 1, line = graphics::par("mgp")[1L], at = mid, xpd = NA,
                  cex = graphics::par("cex") * fit_cex(xlab, graphics::par("cex.lab")))
  graphics::abline(h = ypos, col = "grey90", lty = 3)
  graphics::abline(v = n, lty = 3, col = "grey40")
  # the dotted line: where all n would lie if the selection ranked them first
  graphics::text(n, n + 1, sprintf("rank %d", n), offset = 0.3, cex = 0.7, col = "grey30",
                 pos = if (log10(n) > mean(graphics::par("usr")[1:2])) 2L else 4L)
  note <- sprintf("dotted line: rank %d, left of which all %d lie if ranked first", n, n)
  graphics::mtext(note, side = 1, line = graphics::par("mgp")[1L] + 1.2, at = mid, xpd = NA,
                  col = "grey30", cex = graphics::par("cex") * min(0.75, fit_cex(note, 0.75)))
  # mtext, not axis(): axis() drops labels that would overlap
  graphics::mtext(f$label, side = 2, at = ypos, las = 1, line = 0.5,
                  cex = max(0.4, min(0.9, 16 / n)))
  # rank numbers right of the points in the left half of the axis, left of
  # them in the right half, so that none runs off the panel
  # with the contribution where the selector has one (?selection), as a
  # percentage: "3 (10%)"
  right_half <- log10(pos) > mean(graphics::par("usr")[1:2])
  shown <- as.character(f$rank)
  share <- if (is.numeric(f$contribution)) f$contribution else rep(NA_real_, n)
  has <- !unranked & is.finite(share)
  shown[has] <- sprintf("%s (%s)", shown[has], format_percent(share[has]))
  graphics::text(pos, ypos, ifelse(unranked, "not ranked", shown),
                 pos = ifelse(unranked | right_half, 2L, 4L), cex = 0.8, xpd = NA)
  if (any(has)) {
    note <- sprintf("rank (contribution: %s)", contribution_meaning(x$method))
    graphics::mtext(note, side = 3, line = 0.3, at = mid, xpd = NA, col = "grey30",
                    cex = graphics::par("cex") * min(0.75, fit_cex(note, 0.75)))
  }
  invisible()
}
