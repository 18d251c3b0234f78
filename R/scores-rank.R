# The rank scores of feature_scores(): the Wilcoxon rank-sum (Mann-Whitney)
# test for two classes, the Kruskal-Wallis test for several, and the
# one-versus-rest marker table of single-cell analyses (each class against
# the others). All three come from one pass over the data in C
# (src/ranks.c): per feature the sum of the mid-ranks of each class, the tie
# correction sum(t^3 - t), and per class the sum of the values and the
# number of values > 0. A sparse dgCMatrix is ranked without being made
# dense (its zeros are one tie block). The statistics are then O(classes)
# per feature, here, with the formulas of stats::wilcox.test() (exact =
# FALSE, correct = TRUE) and stats::kruskal.test() (Hollander and Wolfe
# 1999, sections 4.1 and 6.1).
#
# Direction: for two classes the statistic is that of level 2 against level
# 1 of `y` -- wilcox.test(x[y == level2], x[y == level1]) -- the package's
# direction for effects (R/scores-linear.R); in the marker table, each class
# against the rest.

# DOC: (for ?feature_scores, the rank methods; kept in a block of its own)
#' @section Rank scores:
#' \describe{
#'   \item{`"wilcoxon"`}{the Wilcoxon rank-sum (Mann-Whitney) test of two
#'     classes, level 2 of `y` against level 1, with the normal
#'     approximation, ties corrected: `statistic` is W and `p_value` the
#'     p-value of `wilcox.test(x[y == level2], x[y == level1], exact =
#'     FALSE, correct = TRUE)`; `score` is the continuity-corrected normal
#'     deviate \eqn{z = (W - n_1 n_2 / 2 \mp 1/2) / \sigma}{z = (W - n1 n2 / 2
#'     -+ 1/2) / sigma} (\eqn{\sigma}{sigma} with the correction for ties),
#'     signed (positive when level 2 tends to be larger), so that ranking by
#'     \eqn{|z|} is ranking by p-value; `effect` is the area under the ROC
#'     curve \eqn{W / (n_1 n_2)}{W / (n1 n2)}, the probability that a sample
#'     of level 2 exceeds one of level 1 (ties counting one half). The
#'     Hodges-Lehmann shift would cost \eqn{m^2} operations per feature and
#'     is not given.}
#'   \item{`"kruskal"`}{the Kruskal-Wallis test of two or more classes:
#'     `statistic` and `score` are H, `p_value` that of
#'     [stats::kruskal.test()] (chi-squared on the number of classes less one
#'     degrees of freedom, ties corrected); no `effect`.}
#' }
#' Both have p-values always (adjusted by `adjust`, not `"maxT"`; `n_perm`
#' is an error), a `mean` column (the mean over all samples), and rank by
#' \eqn{|z|} and H.
#' Both are computed in C from the mid-ranks of each feature (one sort per
#' feature); a sparse `dgCMatrix` is ranked without being made dense, its
#' zeros forming one group of ties. A constant feature has no test (every
#' rank ties): score, statistic and p-value `NA`, ranked last, with a
#' warning. The Wilcoxon scores of the 12,625 genes of 128 arrays of the
#' ALL data take about 0.06 s of processor time on one thread, a third of
#' that of `matrixTests::row_wilcoxon_twosample()` (`inst/bench/bench-scores.R`
#' in the sources).
#'
#' **Markers, one class against the rest** (`one_vs_rest = TRUE`, method
#' `"wilcoxon"`, two or more classes): the marker table of single-cell
#' analyses, from the same single pass. One row per feature and class, the
#' class's samples against all others, with columns `feature`, `class`,
#' `score` (the signed normal deviate, positive when the class is higher),
#' `rank` (within the class, as the `rank` of the scores), `statistic`
#' (W of `wilcox.test(x[y == class], x[y != class])`), `p_value`,
#' `adj_p_value` (adjusted by `adjust` over the features, within each
#' class), `auc` (the area under the ROC curve of the class against the
#' rest), `log_fc` (the mean of the class minus the mean of the rest: the
#' log fold change when the data are on a log scale, e.g. log-normalised
#' counts; it is not a log of anything otherwise), `detected_in` and
#' `detected_out` (the fraction of the samples in and out of the class
#' with a value above 0). The rows are ordered by class, then feature; the
#' result has class `bahsic_markers`.
#' @param one_vs_rest for `method = "wilcoxon"`: `TRUE` tests each class
#'   of `y` against all the others and returns the marker table (section
#'   "Rank scores"), for two or more classes.
#' @name feature_scores
#' @rdname feature_scores
#' @examples
#' # rank scores: Wilcoxon (ALL against AML), Kruskal-Wallis, markers
#' w <- feature_scores(golub$x[, 1:200], golub$y, method = "wilcoxon")
#' head(top_features(w, sort_by = "p_value"), 3)
#' y3 <- factor(rep(c("a", "b", "c"), length.out = nrow(golub$x)))
#' head(feature_scores(golub$x[, 1:200], y3, method = "kruskal"), 3)
#' mk <- feature_scores(golub$x[, 1:200], y3, method = "wilcoxon", one_vs_rest = TRUE)
#' head(mk[mk$rank <= 2, ])
NULL

# The block scorer of the rank methods (their rows of score_table,
# R/score-table.R), shaped as kernel_block_scorer(): a function of a block
# (dense, or a samples x features dgCMatrix) that gives its part -- score,
# statistic, p_value, effect, average, constant and bad -- from the rank sums
# by `stats` (wilcoxon_stats(), kruskal_stats()), and, for the marker table,
# the rank sums and class sums themselves (`keep_sums`).
rank_block_scorer <- function(y, stats, threads, keep_sums = FALSE) {
  cls <- as.integer(y)
  K <- nlevels(y)
  n <- tabulate(cls, K)
  function(b) {
    part <- rank_sums(b, cls, K, threads)
    if (part$bad > 0) return(part)
    part$average <- colSums(part$sum) / sum(n)
    # the marker table makes its statistics from the sums of all blocks
    if (keep_sums) return(part)
    out <- stats(part, n)
    part[c("rsum", "ties", "sum", "pos")] <- NULL
    c(out, part)
  }
}

# The rank sums of a block (src/ranks.c): rsum and sum (K x d), pos (K x d),
# ties, constant, bad (as C_feature_moments()).
rank_sums <- function(b, cls, K, threads) {
  opts <- list(cls = cls, ncls = K, threads = threads)
  if (methods::is(b, "dgCMatrix")) {
    return(.Call(C_rank_sums, b@x, c(opts, list(nrow = nrow(b), p = b@p, i = b@i))))
  }
  .Call(C_rank_sums, b, opts)
}

# Class k (its rank sum r, n1 samples) against the other n2: W, the
# continuity-corrected normal deviate and the AUC, as stats::wilcox.test(
# exact = FALSE, correct = TRUE); NA where every value ties (sigma 0).
wilcoxon_one <- function(r, n1, n2, ties) {
  W <- r - n1 * (n1 + 1) / 2
  z <- W - n1 * n2 / 2
  sigma <- sqrt((n1 * n2 / 12) * ((n1 + n2 + 1) - ties / ((n1 + n2) * (n1 + n2 - 1))))
  z <- (z - sign(z) * 0.5) / sigma
  z[!is.finite(z)] <- NA_real_
  list(score = z, statistic = W, p_value = 2 * stats::pnorm(-abs(z)), effect = W / (n1 * n2))
}

wilcoxon_stats <- function(part, n) {
  wilcoxon_one(part$rsum[2L, ], n[2L], n[1L], part$ties)
}

# H of stats::kruskal.test(), over the classes with samples, and its
# chi-squared p-value; NA where every value ties.
kruskal_stats <- function(part, n) {
  k <- n > 0
  N <- sum(n)
  rs <- part$rsum[k, , drop = FALSE]
  H <- colSums(rs^2 / n[k])
  H <- (12 * H / (N * (N + 1)) - 3 * (N + 1)) / (1 - part$ties / (N^3 - N))
  H[!is.finite(H)] <- NA_real_
  list(score = H, statistic = H, p_value = stats::pchisq(H, sum(k) - 1L, lower.tail = FALSE))
}

# A source whose blocks of a dgCMatrix stay sparse (sparse_reader(),
# R/inputs.R); any other source as it is.
rank_source <- function(src) {
  if (!is.null(src$read_sparse)) src$read <- src$read_sparse
  src
}

# A two-class rank test on several classes: only one class against the rest
# (the check of its row of score_table; the table checks that y is classes).
check_one_vs_rest <- function(method, y, m, args) {
  if (!is.null(args$one_vs_rest)) check_flag(args$one_vs_rest, "one_vs_rest")
  if (!isTRUE(args$one_vs_rest) && nlevels(y) != 2L) {
    all_at_once <- setdiff(score_methods_with(function(r) {
      r$family == "rank" && "several classes" %in% r$outcomes
    }), method)
    stop(sprintf(paste0("method = \"%s\" compares two classes; 'y' has %d. Use method = ",
                        "%s for all of them at once, or one_vs_rest = TRUE for each class ",
                        "against the others."), method, nlevels(y),
                 paste0(quoted_list(all_at_once), " (", score_labels[all_at_once], ")",
                        collapse = " or ")),
         call. = FALSE)
  }
  invisible()
}

# The marker table: each class against the rest, from the rank sums and
# class sums of every block (rank_block_scorer(keep_sums = TRUE)), one row
# per feature and class (see the section "Rank scores" of ?feature_scores).
rank_markers <- function(parts, y, features, adjust, method) {
  n <- tabulate(y, nlevels(y))
  m <- sum(n)
  glue <- function(name) do.call(cbind, lapply(parts, `[[`, name))
  rsum <- glue("rsum")
  sums <- glue("sum")
  pos <- glue("pos")
  ties <- part_column(parts, "ties")
  constant <- part_column(parts, "constant")
  if (any(constant)) warn_constant(features, constant, method, NA_real_)
  rows <- lapply(seq_along(n)[n > 0], function(k) {
    s <- wilcoxon_one(rsum[k, ], n[k], m - n[k], ties)
    p <- s$p_value
    data.frame(feature = features, class = levels(y)[k], score = s$score,
               rank = rank_scores(s$score, method), statistic = s$statistic,
               p_value = p, adj_p_value = stats::p.adjust(p, adjust), auc = s$effect,
               log_fc = sums[k, ] / n[k] - (colSums(sums) - sums[k, ]) / (m - n[k]),
               detected_in = pos[k, ] / n[k],
               detected_out = (colSums(pos) - pos[k, ]) / (m - n[k]),
               stringsAsFactors = FALSE)
  })
  out <- do.call(rbind, rows)
  out$class <- factor(out$class, levels(y))
  rownames(out) <- NULL
  class(out) <- c("bahsic_markers", "data.frame")
  attr(out, "method") <- method
  attr(out, "adjust") <- adjust
  out
}
