#' Interacting pairs of features
#'
#' Scores every pair of features (genes) by what it shows about the outcome
#' beyond its two features alone, and tests each reported pair. It finds
#' what no per-feature test can: two genes that predict the class only
#' jointly, as in an XOR pattern (class = sign(x1) sign(x2)), where neither
#' gene alone differs between the classes.
#'
#' **The two statistics.** Each feature j, standardised, has its own kernel
#' matrix \eqn{K^j} (by default the Gaussian
#' \eqn{K^j_{ab} = \exp(-(x_{aj} - x_{bj})^2 / 4)}) and its doubly centred
#' \eqn{K_c^j = H K^j H}, \eqn{H = I - 11^\top/m}. The product kernel
#' \eqn{K^i \circ K^j} is the kernel of the pair: for the Gaussian kernel it
#' is the Gaussian kernel on the two features at the "dimension" width of a
#' set of two, \eqn{\sigma = 1/(2 \cdot 2)} (see [bahsic()]). Written with
#' \eqn{K^j = K_c^j + } (terms that are constant along one sample), the
#' product splits like an analysis of variance into a constant, a main effect
#' of each feature and the second-order part \eqn{M = K_c^i \circ K_c^j},
#' which is positive semi-definite (the Schur product of two such matrices).
#' The result reports, for a pair (i, j), with \eqn{W = HLH / (m - 1)^2}
#' made from the label kernel \eqn{L} as [hsic()] makes it:
#' * `interaction`: \eqn{T_{ij} = \sum_{ab} W_{ab} K_{c,ab}^i K_{c,ab}^j},
#'   the biased HSIC (HSIC0, Song et al. 2012, eq. 4) of the kernel \eqn{M}:
#'   what the pair shows beyond its two features. The pairs are ranked by
#'   it, because a gene that is strong alone makes the HSIC of every pair it
#'   is in large, but not their interactions.
#' * `hsic`: the pair's own HSIC0 with the product kernel, the test of
#'   independence of the pair and the outcome; it equals
#'   `hsic(x[, c(i, j)], y, kernel = kernel_gaussian(sigma = 1/4),
#'   estimator = "biased")` on standardised data.
#'
#' With [kernel_linear()] the centred kernel of a feature is \eqn{x_j
#' x_j^\top} and both statistics are \eqn{z^\top W z} for the product
#' \eqn{z = x_i \circ x_j}: the test of a product term, as in a linear model
#' with an interaction.
#'
#' **P-values.** Each statistic \eqn{T = \mathrm{tr}(A B)} (\eqn{A} the
#' centred pair kernel, \eqn{B = HLH}) is compared with a gamma distribution
#' shifted to three moments: its exact mean and variance over the
#' permutations of the samples, as the per-feature kernel tests of
#' [feature_scores()] use them (in the spirit of Gretton et al. 2008, section
#' 3), and the skewness
#' \eqn{8\,\mathrm{tr}(A^3)\mathrm{tr}(B^3) / (2\,\mathrm{tr}(A^2)
#' \mathrm{tr}(B^2))^{3/2}} of the weighted sum of chi-squares that
#' \eqn{T} tends to; where the two-moment gamma is the more skewed, it is
#' used as it is. The far tail matters here, as there are millions of pairs
#' to adjust for: the two-moment gamma alone is too light there (at p =
#' 2,000, m = 100, a null pair had 3.3e-6 where 200,000 permutations gave
#' 7e-5, and the top null pairs reached BH-adjusted p-values of 0.02); the
#' shifted fit gave 3.4e-5 for that pair. A statistic below the shifted
#' gamma's lower end has p-value 1. On null data (m = 60, 30 genes, 4,350
#' pairs) the fractions of p-values below 0.001, 0.01, 0.05 and 0.3 were
#' 0.0007, 0.007, 0.045 and 0.29 for the interaction (0.0007, 0.011, 0.058
#' and 0.30 for the pair's test); 9% of the interaction's p-values were 1,
#' and below 0.5 they were uniform (Kolmogorov-Smirnov distance 0.024).
#' `adjust = "BH"` adjusts across all \eqn{p(p - 1)/2} pairs, from the
#' p-values of the candidates only: a pair that was not re-scored is
#' counted as never reaching the threshold, which can only raise the
#' adjusted p-values, so they are conservative (equal to [stats::p.adjust()]
#' over all pairs when every pair is a candidate). `adjust = "maxT"`
#' adjusts the interaction for the family-wise error over all pairs by the
#' single-step maxT of Westfall and Young (1993): for each of `n_perm`
#' labellings of the outcome (the observed one first, the others drawn with
#' R's generator: use [set.seed()]) the screen finds the largest interaction
#' of all pairs, and a pair's adjusted p-value is the fraction of labellings
#' whose largest interaction reaches its own (at least `1 / n_perm`). It
#' costs `n_perm` screens (at p = 2,000 and m = 100 about 0.6 s each on one
#' core), hence the default of 200 labellings. The maximum is taken over all
#' pairs, not over the candidates: the candidates are the pairs largest on
#' the observed labels, so under permuted labels their maximum is that of
#' ordinary null pairs, and a maximum over them alone gave a null pair an
#' adjusted p-value of 0.001 at p = 2,000. With `"maxT"`, the pair's own
#' test (`adj_p_value`) is adjusted by BH (the screen ranks interactions).
#'
#' **Computation.** All pairs are screened in single precision by a
#' register-blocked product of the matrix of the features' centred kernel
#' vectors (\eqn{m(m + 1)/2} entries each) with itself, weighted by \eqn{W}:
#' about \eqn{p^2 m^2 / 4} multiply-adds for the Gaussian kernel; with the
#' linear kernel, \eqn{W} is first factored by its eigen-decomposition,
#' truncated at its numerical rank \eqn{r} (the classes less one for a
#' classification label kernel), and the screen costs \eqn{p^2 m r}. The
#' `candidates` best pairs of the screen are then scored exactly in double
#' precision, their p-values computed, and the `top` best of them by exact
#' interaction reported. Memory: the kernel vectors, \eqn{2 p m^2} bytes for
#' the Gaussian kernel (417 MB for p = 12,625 and m = 128), counted against
#' the option `bahsic.max_memory` (see [bahsic_options]). Time of the
#' Gaussian screen of all pairs of 12,625 features at m = 128 (about
#' 6.5e11 multiply-adds): 17 s of processor time on one thread of a 2-core
#' AMD EPYC (shared machine, `inst/bench/bench-pairtop.R`); on an idle
#' 16-core Intel Xeon, in a standalone build of the C screen, 23.0 s on one
#' thread, 6.1 s on 4, 3.1 s on 8 and 2.0 s on 16, the same pairs and scores
#' for every thread count. The linear screen of the same data takes under a
#' second.
#'
#' @inheritParams hsic
#' @param kernel [kernel_gaussian()] (the product kernel; `sigma = NULL`, the
#'   default, takes the "dimension" width 1/4 of a set of two standardised
#'   features) or [kernel_linear()].
#' @param top number of pairs reported.
#' @param candidates number of pairs of the screen re-scored exactly (at
#'   least `top`); `NULL`: `max(10 * top, 1000)`, at most all pairs. The
#'   screen's order is that of the exact scores up to single-precision
#'   rounding: at p = 2,000, m = 100 the top 100 pairs (and their
#'   BH-adjusted p-values) were the same with 100, 200, 2,000 and 20,000
#'   candidates. More candidates make the BH adjustment less conservative
#'   where many pairs have small p-values, and cost time (each needs
#'   \eqn{m^3} operations for the skewness).
#' @param adjust adjustment of the p-values for the number of pairs, see
#'   "P-values": `"BH"`, `"maxT"` or `"none"`.
#' @param n_perm labellings of `adjust = "maxT"` (the observed one included),
#'   each a screen of all pairs; an error with another `adjust`.
#' @param standardize `TRUE`: centre and scale every feature first.
#' @param threads number of threads; the result does not depend on it.
#' @return A data frame of class `bahsic_pairs`, one row per reported pair by
#'   decreasing interaction: `feature1`, `feature2` (names), `index1`,
#'   `index2` (columns of `x`), `interaction`, `interaction_p`,
#'   `interaction_adj`, `hsic`, `p_value`, `adj_p_value` (the pair's test)
#'   and `rank`. Attributes: `call`, `kernel` (width filled in), `kernel_y`,
#'   `m`, `p`, `n_pairs` (all pairs), `n_candidates` (pairs re-scored),
#'   `adjust`, `n_perm` (maxT) and `data`, the data [plot()] shows.
#' @references Song, L., Smola, A., Gretton, A., Bedo, J. and Borgwardt, K.
#'   (2012). Feature selection via dependence maximization. JMLR 13,
#'   1393-1434.
#'
#'   Gretton, A., Fukumizu, K., Teo, C. H., Song, L., Schoelkopf, B. and
#'   Smola, A. (2008). A kernel statistical test of independence. NIPS 20.
#'
#'   Westfall, P. H. and Young, S. S. (1993). Resampling-Based Multiple
#'   Testing. Wiley.
#' @family hsic
#' @seealso \link{input-checks} for what each kind of bad input gives.
#' @examples
#' set.seed(1)
#' x <- matrix(rnorm(100 * 40), 100, 40, dimnames = list(NULL, paste0("g", 1:40)))
#' cls <- factor(ifelse(x[, 3] * x[, 7] > 0, "A", "B"))
#' pairs <- pair_scores(x, cls, top = 5)
#' pairs
#' plot(pairs)
#' @export
pair_scores <- function(x, ...) {
  check_generic_args("pair_scores", if (!missing(x)) x, ...names())
  UseMethod("pair_scores")
}

#' @rdname pair_scores
#' @export
pair_scores.default <- function(x, y, kernel = kernel_gaussian(), kernel_y = NULL, top = 100L,
                                candidates = NULL, adjust = c("BH", "maxT", "none"),
                                n_perm = 200L, standardize = TRUE, threads = default_threads(),
                                na_action = c("fail", "omit"), assay = 1L, ...) {
  check_dots(..., .fn = "pair_scores")
  adjust <- arg_match(adjust)
  if (adjust != "maxT" && !missing(n_perm)) stop_unused("n_perm", "adjust = \"maxT\"",
                                                       sprintf("adjust = \"%s\"", adjust))
  if (adjust == "maxT") n_perm <- check_whole(n_perm, "n_perm", 1L)
  kernel <- pair_kernel(kernel)
  top <- check_whole(top, "top", 1L)
  if (!is.null(candidates)) candidates <- check_whole(candidates, "candidates", 1L)
  check_flag(standardize, "standardize")
  threads <- check_threads(threads)
  raw <- NULL
  pr <- prepare_problem(x, y, list(
    kernel = kernel, kernel_y = kernel_y, na_action = na_action, assay = assay,
    threads = threads, min_m = 6L, min_what = "pair_scores()", min_first = TRUE,
    min_hint = "The gamma approximation of the pairs' tests needs them.",
    outcome_what = "pair_scores()", standardize = standardize, estimator = "biased",
    labels = "gram", check_range = TRUE,
    check_inputs = function(pr) {
      raw <<- pr$x
      check_pair_inputs(pr, kernel, top, candidates, threads)
    }))
  n_pairs <- pr$p * (pr$p - 1) / 2
  k <- pair_candidates(pr$p, top, candidates)
  labels <- pair_labels(pr)
  res <- pair_rescore(pr, kernel, pair_screen(pr, kernel, k, labels), labels, adjust, n_perm)
  out <- pair_frame(res, pr, top, n_pairs)
  structure(out, class = c("bahsic_pairs", "data.frame"), call = match.call(), kernel = kernel,
            kernel_y = pr$kernel_y, m = pr$m, p = pr$p, n_pairs = n_pairs,
            n_candidates = length(res$i), adjust = adjust,
            n_perm = if (adjust == "maxT") n_perm,
            data = pair_data(raw, pr, out))
}

#' @rdname pair_scores
#' @export
pair_scores.formula <- function(formula, data, subset, na.action, ...) {
  formula_method("pair_scores", match.call(), parent.frame(), list(...)[["kernel"]], ...)
}

# The kernels pair_scores() takes, with the Gaussian width of a set of two
# features ("dimension") filled in.
pair_kernel <- function(kernel) {
  check_kernel(kernel, "kernel")
  if (!kernel$name %in% pair_kernels) {
    stop(sprintf(paste0("pair_scores() takes kernel_gaussian() (the product kernel) or ",
                        "kernel_linear(); not %s kernel."), kernel_noun(kernel$name)),
         call. = FALSE)
  }
  if (kernel$name == "gaussian" && is.null(kernel$params$sigma)) {
    kernel <- kernel_gaussian(sigma = dimension_width(kernel, 2))
  }
  kernel
}

pair_kernels <- c("gaussian", "linear")

# The pairs re-scored exactly: `candidates`, at least `top`; by default
# max(10 top, 1000); at most all pairs.
pair_candidates <- function(p, top, candidates) {
  k <- if (is.null(candidates)) max(10 * top, 1000) else max(candidates, top)
  min(p * (p - 1) / 2, k)
}

# The checks of the data before anything is computed: two features or more,
# none constant, `top` within the pairs, and the screen's memory.
check_pair_inputs <- function(pr, kernel, top, candidates, threads) {
  p <- pr$p
  if (p < 2L) {
    stop(sprintf("pair_scores() needs at least 2 features; 'x' has %d.", p), call. = FALSE)
  }
  constant <- .Call(C_constant_columns, pr$x)
  if (any(constant)) {
    stop(sprintf(paste0("%d feature%s of 'x' %s constant (%s%s): a constant feature has no ",
                        "pairs to score. Remove %s first, e.g. x[, apply(x, 2, sd) > 0]."),
                 sum(constant), if (sum(constant) > 1) "s" else "",
                 if (sum(constant) > 1) "are" else "is",
                 paste(utils::head(pr$features[constant], 3), collapse = ", "),
                 if (sum(constant) > 3) ", ..." else "", if (sum(constant) > 1) "them" else "it"),
         call. = FALSE)
  }
  n_pairs <- p * (p - 1) / 2
  if (top > n_pairs) {
    stop(sprintf("'top' = %d is more than the %s pairs of %d features: use top <= %s.",
                 top, format(n_pairs, big.mark = ","), p, format(n_pairs, big.mark = ",")),
         call. = FALSE)
  }
  # the screen's kernel vectors (the linear screen's rank is known only with
  # the labels: pair_top_lowrank() checks it)
  if (kernel$name == "gaussian") {
    check_pair_memory(pr$m, p, pair_candidates(p, top, candidates), threads)
  }
  invisible()
}

# The label side of the pairs: W = HLH / (m - 1)^2 (the screen's weights)
# and the per-feature tests' label side (test_label_side(), its Lc scaled
# by `scale`, a power of two).
pair_labels <- function(pr) {
  lab <- pr$label
  L <- if (is.null(lab$Y)) lab$L else tcrossprod(lab$Y)
  test <- test_label_side(L, pr$m)
  top <- max(abs(L))
  test$scale <- if (is.finite(top) && top > 0) 2^-ceiling(log2(top)) else 1
  list(W = weight_matrix(lab, pr$m, "biased"), test = test)
}

# The candidates: the k pairs with the largest interaction by the screen
# (pair_top(), src/pairtop.c, in single precision; list(i, j, score),
# 1-based columns), W given as H L H (the scores only rank).
pair_screen <- function(pr, kernel, k, labels) {
  x <- pair_centred(pr$x)
  W <- labels$W * (pr$m - 1)^2
  if (kernel$name == "linear") {
    f <- pair_lowrank(W)
    return(pair_top_lowrank(x, f$U, f$c, k, pr$threads))
  }
  pair_top(x, W, k, gamma = kernel$params$sigma, threads = pr$threads)
}

# x with its columns centred (a linear kernel's centred kernel is x_j x_j'
# then; standardised data are centred already)
pair_centred <- function(x) {
  if (all(abs(colMeans(x)) <= 1e-12 * pmax(1, apply(abs(x), 2L, max)))) return(x)
  sweep(x, 2L, colMeans(x))
}

# W = sum_t c_t u_t u_t', the eigen-decomposition of the centred label
# weights truncated at its numerical rank (eigenvalues beyond m eps times the
# largest in absolute value are 0 up to rounding).
pair_lowrank <- function(W) {
  e <- eigen(W, symmetric = TRUE)
  keep <- abs(e$values) > nrow(W) * .Machine$double.eps * max(abs(e$values))
  list(U = e$vectors[, keep, drop = FALSE], c = e$values[keep])
}

# The candidates scored exactly (C_pair_scores, src/pairscore.c): both
# statistics, their gamma p-values and the adjusted ones, by decreasing
# exact interaction (ties by the columns).
pair_rescore <- function(pr, kernel, cand, labels, adjust, n_perm) {
  m <- pr$m
  test <- labels$test
  opts <- list(i = as.integer(cand$i), j = as.integer(cand$j), kernel = kernel_code(kernel),
               p1 = as.double(kernel_param(kernel)[1L]), p2 = as.double(kernel_param(kernel)[2L]),
               Lc = test$Lc, tb = test$tb, ub = test$ub, wb = test$wb,
               tb2 = sum(test$Lc * test$Lc), tb3 = sum((test$Lc %*% test$Lc) * test$Lc),
               threads = pr$threads)
  out <- .Call(C_pair_scores, pr$x, opts)
  unit <- 1 / (test$scale * (m - 1)^2)
  o <- order(-out[, 1L], cand$i, cand$j)
  out <- out[o, , drop = FALSE]
  res <- list(i = cand$i[o], j = cand$j[o], interaction = out[, 1L] * unit,
              interaction_p = pair_gamma_p(out[, 3L], out[, 2L]), hsic = out[, 4L] * unit,
              p_value = pair_gamma_p(out[, 6L], out[, 5L]))
  n_pairs <- pr$p * (pr$p - 1) / 2
  # BH over all pairs from the candidates' p-values: p.adjust(n = ) takes
  # the pairs not re-scored as never below a threshold (conservative); the
  # pair's test also with maxT (the screen ranks interactions only)
  method <- if (adjust == "none") "none" else "BH"
  res$interaction_adj <- stats::p.adjust(res$interaction_p, method, n = n_pairs)
  res$adj_p_value <- stats::p.adjust(res$p_value, method, n = n_pairs)
  if (adjust == "maxT") {
    res$interaction_adj <- pair_maxt(pr, kernel, labels, res$interaction, n_perm)
  }
  res
}

# The upper tail of the gamma with the shape, at z (the statistic over the
# scale); a gamma undefined (NaN shape) gives NA.
pair_gamma_p <- function(z, shape) {
  p <- rep(NA_real_, length(z))
  ok <- !is.nan(shape) & !is.na(shape)
  p[ok] <- stats::pgamma(z[ok], shape = shape[ok], lower.tail = FALSE)
  p
}

# maxT over all pairs (Westfall and Young 1993, single step): for each
# labelling the largest interaction of all pairs, by the screen with k = 1
# (pair_screen(), single precision), against each candidate's exact
# interaction; the observed labelling is the first and counts for every
# pair, as in mt.maxT(). A permuted maximum within the screen's rounding of
# the statistic (relative 1e-4) counts: conservative. The labellings are
# drawn here from the caller's generator.
pair_maxt <- function(pr, kernel, labels, interaction, n_perm) {
  check_perm_size(n_perm, pr$m)
  top <- rep(Inf, n_perm)
  for (b in seq_len(n_perm)[-1L]) {
    perm <- sample.int(pr$m)
    lb <- list(W = labels$W[perm, perm, drop = FALSE])
    top[b] <- pair_screen(pr, kernel, 1L, lb)$score[1L] / (pr$m - 1)^2
    check_interrupt()
  }
  vapply(interaction, function(t) mean(top >= t * (1 - 1e-4)), numeric(1))
}

# The reported rows: the `top` best candidates.
pair_frame <- function(res, pr, top, n_pairs) {
  k <- seq_len(min(top, length(res$i)))
  data.frame(feature1 = pr$features[res$i[k]], feature2 = pr$features[res$j[k]],
             index1 = as.integer(res$i[k]), index2 = as.integer(res$j[k]),
             interaction = res$interaction[k], interaction_p = res$interaction_p[k],
             interaction_adj = res$interaction_adj[k], hsic = res$hsic[k],
             p_value = res$p_value[k], adj_p_value = res$adj_p_value[k], rank = k,
             stringsAsFactors = FALSE)
}

# What plot() shows: the features of the reported pairs as given (before
# standardising) and the outcome.
pair_data <- function(raw, pr, out) {
  cols <- sort(unique(c(out$index1, out$index2)))
  x <- raw[, cols, drop = FALSE]
  colnames(x) <- pr$features[cols]
  list(x = x, y = pr$y)
}

#' @export
print.bahsic_pairs <- function(x, n = 10L, digits = max(3L, getOption("digits") - 3L), ...) {
  check_dots(..., .fn = "print", .allow = print_dot_args)
  a <- attributes(x)
  cat(sprintf(paste0("Interacting pairs: %d of %s pairs of %s features (%s re-scored exactly), ",
                     "m = %d samples\n"),
              nrow(x), format(a$n_pairs, big.mark = ","), format(a$p, big.mark = ","),
              format(a$n_candidates, big.mark = ","), a$m))
  cat("  kernel: ", a$kernel$label, format_sigma(a$kernel), "; label kernel: ",
      a$kernel_y$label, "\n", sep = "")
  cat(sprintf("  ranked by interaction; p-values adjusted by %s%s\n", a$adjust,
              if (identical(a$adjust, "maxT")) sprintf(" (%d labellings)", a$n_perm) else ""))
  shown <- as.data.frame(unclass(x), stringsAsFactors = FALSE)[seq_len(min(n, nrow(x))), ,
                                                                drop = FALSE]
  shown$index1 <- shown$index2 <- NULL
  print(shown, digits = digits, row.names = FALSE)
  if (nrow(x) > n) cat(sprintf("  ... %d more pairs\n", nrow(x) - n))
  invisible(x)
}

#' @rdname pair_scores
#' @param which for `plot()`: the rank of the pair to show.
#' @details `plot()` shows one pair as it is usually looked at: the two
#'   features' values (as given, before standardising) against each other,
#'   the samples coloured by class, or by the numeric outcome from low
#'   (blue) to high (red).
#' @export
plot.bahsic_pairs <- function(x, which = 1L, ...) {
  check_graphics_dots(..., .fn = "plot")
  which <- check_whole(which, "which", 1L)
  if (which > nrow(x)) {
    stop(sprintf("'which' = %d, but the result has %d pairs: use which <= %d.",
                 which, nrow(x), nrow(x)), call. = FALSE)
  }
  d <- attr(x, "data")
  f1 <- x$feature1[which]
  f2 <- x$feature2[which]
  y <- d$y
  if (is.factor(y)) {
    pal <- grDevices::hcl.colors(max(2L, nlevels(y)), "Dark 3")[seq_len(nlevels(y))]
    col <- pal[as.integer(y)]
  } else {
    v <- if (is.matrix(y)) y[, 1L] else as.numeric(y)
    ramp <- grDevices::colorRampPalette(c("#2166AC", "grey80", "#B2182B"))(64)
    col <- ramp[cut(v, 64L, labels = FALSE)]
  }
  main <- sprintf("rank %d: interaction p = %s, pair p = %s", which,
                  format(x$interaction_p[which], digits = 2), format(x$p_value[which], digits = 2))
  args <- utils::modifyList(list(x = d$x[, f1], y = d$x[, f2], col = col, pch = 19,
                                 xlab = f1, ylab = f2, main = main), list(...))
  do.call(graphics::plot, args)
  if (is.factor(y)) {
    graphics::legend("topright", legend = levels(y), col = pal, pch = 19, bg = "white",
                     cex = 0.8)
  }
  invisible(x)
}
