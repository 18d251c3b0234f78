# Least-squares mutual information (LSMI), Jitkrittum (2012), slides "LSMI",
# "Delta Kernel for Classification Task" and "Model Selection by Cross
# Validation". The design matrices, the CV loop and the solves are in
# src/lsmi.c; this file chooses the centres, folds and grids.

#' Least-squares mutual information
#'
#' Estimates the squared-loss mutual information \eqn{I_s(X, Y) = \frac12
#' \iint (p(x, y) / (p(x) p(y)) - 1)^2 p(x) p(y)\,dx\,dy} by LSMI (Suzuki et
#' al. 2009), as on the slides of Jitkrittum (2012): the density ratio is
#' modelled as \eqn{g(x, y) = \alpha^\top \varphi(x, y)} with `n_basis`
#' product basis functions \eqn{\varphi_l(x, y) = \exp(-\|x -
#' x_{c(l)}\|^2 / (2\sigma^2))\, \phi^y_l(y)} centred at randomly chosen
#' samples \eqn{c(l)}; \eqn{\hat\alpha = (\hat H + \lambda I)^{-1} \hat h}
#' and \eqn{\widehat{I}_s = \hat h^\top \hat\alpha / 2 - 1/2}, with
#' \eqn{\hat H = n^{-2} \sum_{i, i'} \varphi(x_i, y_{i'})
#' \varphi(x_i, y_{i'})^\top} and \eqn{\hat h = n^{-1} \sum_i
#' \varphi(x_i, y_i)}.
#'
#' **Outcome basis**: for classes the delta kernel \eqn{\phi^y_l(y) =
#' \delta(y, y_{c(l)})}; for a numeric outcome a Gaussian on the
#' standardised outcome. The slides use one \eqn{\sigma} for both
#' \eqn{x} and \eqn{y}; here the outcome's width is fixed at the median
#' distance between the standardised outcomes and only the width on
#' \eqn{x} is cross-validated, so that the outcome side does not change
#' when [l1_lsmi()] rescales the features.
#'
#' **Model selection**: \eqn{(\sigma, \lambda)} minimise the K-fold
#' cross-validated squared loss \eqn{\widehat J^{(K\text{-CV})} = K^{-1}
#' \sum_k (\hat\alpha_{-k}^\top \hat H_k \hat\alpha_{-k} / 2 - \hat h_k^\top
#' \hat\alpha_{-k})} (slide "Model Selection by Cross Validation") over the
#' grid `sigma` x `lambda`. The default `sigma` grid is the median distance
#' between the (standardised) samples times \eqn{2^{-2}, 2^{-1.5}, \dots,
#' 2}. Centres and folds are drawn with R's random number generator, so
#' [set.seed()] reproduces an estimate.
#'
#' The slide writes the regularised objective as \eqn{\alpha^\top \hat H
#' \alpha / 2 - \hat h^\top \alpha + \lambda \alpha^\top \alpha} but its
#' solution as \eqn{(\hat H + \lambda I)^{-1} \hat h}; the solution is what
#' is computed (it is the usual LSMI, with penalty \eqn{\lambda
#' \alpha^\top\alpha / 2}).
#'
#' @inheritParams hsic
#' @param sigma Gaussian width(s) on the features: `NULL` for the default
#'   grid, or positive numbers (one number: no search over widths).
#' @param lambda regularisation parameter(s), positive; the default grid is
#'   \eqn{10^{-3}, \dots, 10}.
#' @param n_basis number of basis functions (centres), at most the number of
#'   samples.
#' @param folds number of cross-validation folds, from 2 to the number of
#'   samples.
#' @param standardize scale every feature to mean 0 and standard deviation 1
#'   first.
#' @return An object of class `bahsic_lsmi`: a list with `estimate`, the
#'   chosen `sigma` and `lambda`, `cv` (a data.frame of every `sigma`,
#'   `lambda` and its CV `score`, smaller is better), `n_basis`, `folds`, `m`
#'   (samples) and the call.
#' @references Jitkrittum, W. (2012). Feature selection via
#'   l1-penalized squared-loss mutual information. Slides, Sugiyama
#'   laboratory, Tokyo Institute of Technology (slides "LSMI", "Delta Kernel
#'   for Classification Task", "Model Selection by Cross Validation").
#'
#'   Suzuki, T., Sugiyama, M., Kanamori, T. and Sese, J. (2009). Mutual
#'   information estimation reveals global associations between stimuli and
#'   biological processes. *BMC Bioinformatics* 10(S-1).
#' @family lsmi
#' @seealso [l1_lsmi()] for feature selection with LSMI.
#' @examples
#' set.seed(1)
#' x <- matrix(rnorm(300), 100, 3)
#' y <- x[, 1]^2 + rnorm(100, sd = 0.2)
#' lsmi(x[, 1], y, n_basis = 50)
#' lsmi(x[, 2:3], y, n_basis = 50)
#' cls <- factor(x[, 2] > 0)
#' lsmi(x, cls, n_basis = 50, lambda = c(0.01, 0.1))
#' @export
lsmi <- function(x, ...) {
  check_generic_args("lsmi", if (!missing(x)) x, ...names())
  UseMethod("lsmi")
}

#' @rdname lsmi
#' @export
lsmi.default <- function(x, y, sigma = NULL, lambda = NULL, n_basis = 200, folds = 5,
                         standardize = TRUE, na_action = c("fail", "omit"), assay = 1L,
                         ...) {
  check_dots(..., .fn = "lsmi")
  check_grid(sigma, "sigma")
  check_grid(lambda, "lambda")
  check_flag(standardize, "standardize")
  d <- normalise_inputs(x, y, na_action = arg_match(na_action), assay = assay)
  refuse_survival_values(d$y, "lsmi()")
  xs <- d$x
  m <- nrow(xs)
  check_min_samples(m, 4L, "lsmi()")
  check_lsmi_sizes(n_basis, folds, m)
  check_lsmi_memory("lsmi()", m, ncol(xs), n_basis, folds, d$y, median_x = is.null(sigma))
  if (standardize) xs <- standardize_columns(xs, d$features)
  basis <- lsmi_basis(d$y, m, n_basis, folds, gram = FALSE)
  sq <- .Call(C_lsmi_sqdist, xs, xs[basis$centres, , drop = FALSE], rep(1, ncol(xs)))
  sigmas <- if (is.null(sigma)) lsmi_sigma_grid(xs) else as.double(sigma)
  lambdas <- if (is.null(lambda)) 10^(-3:1) else as.double(lambda)
  cv <- lsmi_cv(sq, basis, sigmas, lambdas)
  fit <- .Call(C_lsmi_fit, .Call(C_lsmi_gauss, sq, cv$sigma), basis$phiy, cv$lambda)
  call <- match.call()
  call[[1L]] <- as.name("lsmi")
  structure(list(estimate = fit$estimate, sigma = cv$sigma, lambda = cv$lambda,
                 cv = cv$table, n_basis = length(basis$centres), folds = as.integer(folds),
                 m = m, call = call),
            class = "bahsic_lsmi")
}

#' @rdname lsmi
#' @export
lsmi.formula <- function(formula, data, subset, na.action, ...) {
  formula_method("lsmi", match.call(), parent.frame(), NULL, ...)
}

#' @export
print.bahsic_lsmi <- function(x, digits = max(3L, getOption("digits") - 3L), ...) {
  check_dots(..., .fn = "print", .allow = print_dot_args)
  cat(sprintf("LSMI (least-squares mutual information) = %s, m = %d samples\n",
              format(x$estimate, digits = digits), x$m))
  cat(sprintf("  sigma = %s, lambda = %s, chosen by %d-fold CV over %d x %d values; %d basis functions\n",
              format(x$sigma, digits = digits), format(x$lambda, digits = digits), x$folds,
              length(unique(x$cv$sigma)), length(unique(x$cv$lambda)), x$n_basis))
  invisible(x)
}

check_grid <- function(value, arg) {
  if (is.null(value)) return(invisible())
  if (!is.numeric(value) || length(value) == 0L || any(!is.finite(value)) || any(value <= 0)) {
    stop(sprintf("'%s' must be positive numbers (a grid to choose from by CV), or NULL for the default grid.",
                 arg), call. = FALSE)
  }
  invisible()
}

check_lsmi_sizes <- function(n_basis, folds, m) {
  if (!is.numeric(n_basis) || length(n_basis) != 1L || !is.finite(n_basis) || n_basis < 1 ||
      n_basis != round(n_basis)) {
    stop("'n_basis' must be a whole number of at least 1, e.g. 200 basis functions.",
         call. = FALSE)
  }
  if (!is.numeric(folds) || length(folds) != 1L || !is.finite(folds) || folds < 2 ||
      folds > m || folds != round(folds)) {
    stop(sprintf("'folds' must be a whole number from 2 to %d (the number of samples).", m),
         call. = FALSE)
  }
  invisible()
}

# What lsmi() and l1_lsmi() hold at their peak, refused above the memory
# budget before anything is allocated: the medians of the pairwise
# distances (median_pairwise_doubles(); on x for the default grid of widths,
# which l1_lsmi() recomputes for every radius, and on a numeric outcome for
# its basis functions), six m x b design matrices (the outcome's and its
# distances, the distances to the centres, C_lsmi_cv()'s or C_lsmi_grad()'s
# two, the fit's), the b x b Gram matrices of the K folds, and copies of the
# data (weighted, standardised, and C_lsmi_grad()'s m x d). Against R's peak
# heap (gc()) at m = 2000, 5 features: 40.0 MB counted for 40.8 MB (numeric
# outcome, widths given), 57.1 for 58.9 (l1_lsmi()), 24.4 for 21.7 (classes,
# widths given), 70.7 for 53.8 (the default grid). y: the outcome (numeric:
# its columns are the outcome's median); median_x: whether the default grid
# is computed.
check_lsmi_memory <- function(what, m, d, n_basis, folds, y, median_x) {
  b <- min(as.double(n_basis), m)
  d_y <- if (is.numeric(y)) NCOL(y) else 0L
  med <- max(if (median_x) median_pairwise_doubles(m, d) else 0,
             if (d_y > 0L) median_pairwise_doubles(m, d_y) else 0)
  need <- 8 * (med + 6 * as.double(m) * b + (2 * folds + 9) * b^2 + 3 * as.double(m) * d)
  fix <- if (median_x && what == "lsmi()") {
    paste0("Give the widths with 'sigma' (the default grid takes the median of all ",
           "m (m - 1) / 2 distances), use fewer samples or a smaller 'n_basis', or raise ",
           "the option if the machine has the memory.")
  } else {
    paste0("Use fewer samples or a smaller 'n_basis', or raise the option if the machine ",
           "has the memory.")
  }
  detail <- if (med > 0) "the median heuristic's m (m - 1) / 2 pairwise distances" else
    "no median heuristic"
  check_budget(need, m, what,
               sprintf("%s; %g basis functions: m x %g design matrices", detail, b, b), fix)
}

# Centres (sample indices), folds and the outcome's design matrix, which do
# not depend on the features or their weights: drawn and computed once.
# phiy: the delta kernel for classes, a Gaussian on the standardised
# outcome (width: the median distance) for numbers (a matrix outcome: on the
# standardised response vectors), the columns of L for a precomputed label
# kernel L. Gy = Phi_y' Phi_y (gram = TRUE; l1_lsmi()'s gradient needs it,
# lsmi() does not: for thousands of basis functions it is one BLAS call of
# seconds that no interrupt reaches).
lsmi_basis <- function(y, m, n_basis, folds, L = NULL, gram = TRUE) {
  b <- as.integer(min(n_basis, m))
  centres <- sort(sample.int(m, b))
  fold <- sample(rep_len(seq_len(folds), m))
  if (!is.null(L)) {
    # a precomputed label kernel: its columns at the centres are the basis
    # functions, as the delta and Gaussian kernels' are
    phiy <- L[, centres, drop = FALSE]
  } else if (is.factor(y)) {
    phiy <- .Call(C_lsmi_delta, as.integer(y), centres)
  } else {
    check_varying_outcome(y)
    ys <- scale(as.matrix(y))
    ys[, attr(ys, "scaled:scale") == 0] <- 0
    ys <- matrix(as.double(ys), nrow(ys))
    med <- .Call(C_median_pairwise, ys, TRUE, 1L)
    sigma_y <- if (is.finite(med) && med > 0) sqrt(med) else 1
    phiy <- .Call(C_lsmi_gauss, .Call(C_lsmi_sqdist, ys, ys[centres, , drop = FALSE],
                                      rep(1, ncol(ys))), sigma_y)
  }
  list(centres = centres, fold = as.integer(fold), phiy = phiy,
       Gy = if (gram) crossprod(phiy))
}

# The median distance between the samples times 2^(-2), ..., 2.
lsmi_sigma_grid <- function(x, factors = 2^seq(-2, 1, by = 0.5)) {
  med <- pairwise_median(x, TRUE)
  med <- if (is.finite(med) && med > 0) sqrt(med) else 1
  med * factors
}

# CV over the grid (C_lsmi_cv), its minimum (ties: the smaller lambda, then
# the smaller sigma) and the table.
lsmi_cv <- function(sq, basis, sigmas, lambdas) {
  score <- .Call(C_lsmi_cv, sq, basis$phiy, basis$fold, sigmas, lambdas)
  best <- which(score == min(score), arr.ind = TRUE)
  best <- best[order(best[, 2L], best[, 1L]), , drop = FALSE][1L, ]
  list(sigma = sigmas[best[1L]], lambda = lambdas[best[2L]],
       table = data.frame(sigma = rep(sigmas, length(lambdas)),
                          lambda = rep(lambdas, each = length(sigmas)),
                          score = as.vector(score)))
}
