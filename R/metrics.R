# Metrics of the evaluation in Paul and Dupont (2014), section 4: the
# balanced classification rate of a classifier and Kuncheva's consistency
# index of a set of feature rankings. Plain R: they are cheap.

#' Balanced classification rate
#'
#' The mean over the classes of the recall (the proportion of a class's
#' samples predicted as that class): for two classes the average of
#' sensitivity and specificity, the measure Paul and Dupont report. Unlike
#' accuracy it is not inflated by a large class, and it extends to more
#' classes as it stands.
#'
#' The classes are those that occur in `truth`. A level of a factor `truth`
#' with no sample has no recall and is left out of the mean (as happens in a
#' small test fold); a predicted class that does not occur in `truth`
#' counts as an error for the samples given it.
#'
#' @param truth the true classes: a factor, character, logical or integer
#'   vector.
#' @param predicted the predicted classes, the same length, compared with
#'   `truth` as text.
#' @param ... not used: an argument that is none of the above is an error that
#'   names it and suggests the closest name.
#' @return A number in \[0, 1\], with attribute `recall`, the recall of
#'   each class.
#' @references Paul, J. and Dupont, P. Kernel methods for mixed feature
#'   selection. ESANN 2014, section 4.
#' @family metrics
#' @examples
#' truth <- factor(c("a", "a", "a", "a", "b", "b"))
#' pred <- factor(c("a", "a", "a", "b", "b", "a"))
#' bcr(truth, pred) # (3/4 + 1/2) / 2
#' mean(truth == pred) # accuracy, for comparison
#' @export
bcr <- function(truth, predicted, ...) {
  check_dots(...)
  ok_type <- function(v) is.factor(v) || is.character(v) || is.logical(v) || is.numeric(v)
  if (!ok_type(truth) || !is.null(dim(truth))) {
    stop("'truth' must be a vector of classes (factor, character, logical or integer).",
         call. = FALSE)
  }
  if (!ok_type(predicted) || !is.null(dim(predicted))) {
    stop("'predicted' must be a vector of classes (factor, character, logical or integer).",
         call. = FALSE)
  }
  if (length(truth) != length(predicted)) {
    stop(sprintf("'truth' has %d values but 'predicted' has %d: give one prediction per sample.",
                 length(truth), length(predicted)), call. = FALSE)
  }
  if (length(truth) == 0L) stop("'truth' is empty: there is nothing to score.", call. = FALSE)
  if (anyNA(truth) || anyNA(predicted)) {
    stop("'truth' and 'predicted' must not have missing values: drop those samples first.",
         call. = FALSE)
  }
  t <- as.character(truth)
  p <- as.character(predicted)
  classes <- if (is.factor(truth)) intersect(levels(truth), t) else sort(unique(t))
  recall <- vapply(classes, function(k) mean(p[t == k] == k), numeric(1))
  structure(mean(recall), recall = recall)
}

#' Kuncheva's consistency index of feature rankings
#'
#' The stability of a feature selector over resamplings of the data
#' (Kuncheva 2007): for two subsets A and B of size k out of n features,
#' with \eqn{r = |A \cap B|},
#' \deqn{KI(A, B) = \frac{r n - k^2}{k (n - k)},}
#' which is 1 for identical sets and about 0 for sets drawn at random (it
#' corrects the overlap for chance). The index of several rankings is the
#' average over all pairs of their top-k sets, as in Paul and Dupont's
#' evaluation.
#'
#' @param rankings a list of at least two rankings, each a character vector
#'   of feature names (or a vector of feature indices) best first, or a
#'   selection from [bahsic()], [clinical_rfe()] and the other selectors.
#' @param k the size of the top sets compared, \eqn{1 \le k < n}.
#' @param n_features the total number of features n; `NULL` takes it from
#'   the selections (all of which must agree), and is an error for plain
#'   rankings.
#' @param ... not used: an argument that is none of the above is an error that
#'   names it and suggests the closest name.
#' @return The mean index over the pairs, a number in \[-1, 1\].
#' @references Kuncheva, L. I. (2007). A stability index for feature
#'   selection. Proc. IASTED AIAP, 390-395.
#'
#'   Paul, J. and Dupont, P. Kernel methods for mixed feature selection.
#'   ESANN 2014, section 4.
#' @family metrics
#' @examples
#' r1 <- c("g1", "g2", "g3", "g4")
#' r2 <- c("g2", "g1", "g5", "g3")
#' # top-2 sets agree: KI = 1; top-3 sets share 2 of 3 features out of 10
#' kuncheva_index(list(r1, r2), k = 2, n_features = 10)
#' kuncheva_index(list(r1, r2), k = 3, n_features = 10) # (2 * 10 - 9) / (3 * 7)
#' @export
kuncheva_index <- function(rankings, k, n_features = NULL, ...) {
  check_dots(...)
  if (inherits(rankings, "bahsic_selection") || !is.list(rankings) || length(rankings) < 2L) {
    stop("'rankings' must be a list of at least two rankings or selections.", call. = FALSE)
  }
  sizes <- integer(0)
  sets <- lapply(seq_along(rankings), function(i) {
    r <- rankings[[i]]
    if (inherits(r, "bahsic_selection")) {
      sizes <<- c(sizes, nrow(r$features))
      return(r$ranking)
    }
    if (!(is.character(r) || is.numeric(r)) || anyNA(r)) {
      stop(sprintf(paste0("rankings[[%d]] must be a character vector of feature names (or ",
                          "feature indices) without NA, or a selection."), i), call. = FALSE)
    }
    r
  })
  if (is.null(n_features)) {
    if (length(sizes) != length(rankings)) {
      stop("Give 'n_features', the total number of features the rankings were drawn from.",
           call. = FALSE)
    }
    if (length(unique(sizes)) != 1L) {
      stop("The selections have different numbers of features; give 'n_features'.",
           call. = FALSE)
    }
    n_features <- sizes[1L]
  }
  if (!is.numeric(n_features) || length(n_features) != 1L || !is.finite(n_features) ||
      n_features != round(n_features) || n_features < 2) {
    stop("'n_features' must be a whole number of at least 2.", call. = FALSE)
  }
  if (!is.numeric(k) || length(k) != 1L || !is.finite(k) || k != round(k) || k < 1 ||
      k >= n_features) {
    stop(sprintf(paste0("'k' must be a whole number from 1 to %d (n_features - 1): the index ",
                        "is undefined when the sets hold every feature."), n_features - 1),
         call. = FALSE)
  }
  tops <- lapply(seq_along(sets), function(i) {
    s <- sets[[i]]
    if (length(s) < k) {
      stop(sprintf("rankings[[%d]] ranks %d features, fewer than k = %d.", i, length(s), k),
           call. = FALSE)
    }
    top <- s[seq_len(k)]
    if (anyDuplicated(top)) {
      stop(sprintf("rankings[[%d]] lists a feature twice in its top %d.", i, k), call. = FALSE)
    }
    top
  })
  pairs <- utils::combn(length(tops), 2L)
  n <- n_features
  ki <- apply(pairs, 2L, function(ij) {
    r <- length(intersect(tops[[ij[1L]]], tops[[ij[2L]]]))
    (r * n - k^2) / (k * (n - k))
  })
  mean(ki)
}
