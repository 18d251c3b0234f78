# Quadratic mutual information with Parzen windows (Song et al. 2012,
# section 6.7; Torr 2003): the L2 distance between the Parzen
# estimates of p(x, y) and p(x) p(y) is m^-2 tr(kappa H nu H), the biased
# HSIC of the kernel pair kappa (data) and nu (labels).

#' Parzen-window kernels and quadratic mutual information
#'
#' Torr's (2003) quadratic mutual information is the \eqn{L_2} distance
#' between the joint density and the product of the marginals,
#' \eqn{I(x, y) = \int\int (p(x, y) - p(x) p(y))^2 \, dx \, dy}. With the
#' Parzen-window estimates \eqn{\hat p(x) = m^{-1} \sum_i \kappa_x(x_i - x)},
#' \eqn{\hat p(y)} and \eqn{\hat p(x, y) = m^{-1} \sum_i \kappa_x(x_i - x)
#' \kappa_y(y_i - y)} the plug-in estimate is (section 6.7 of Song et al.
#' 2012)
#' \deqn{\|\hat p(x, y) - \hat p(x) \hat p(y)\|^2 = m^{-2}
#' \mathrm{tr}(\kappa H \nu H),}
#' with \eqn{\kappa_{ij} = \int \kappa_x(x_i - x) \kappa_x(x_j - x) dx} and
#' \eqn{\nu} likewise: the biased HSIC of the pair \eqn{(\kappa, \nu)} times
#' \eqn{(m - 1)^2 / m^2}.
#'
#' For a Gaussian window of bandwidth \eqn{h} in \eqn{d} dimensions (the
#' density of \eqn{N(0, h^2 I)}), \eqn{\kappa_{ij}} is the density of
#' \eqn{N(0, 2 h^2 I)} at \eqn{x_i - x_j}, \eqn{(4 \pi h^2)^{-d/2}
#' \exp(-\|x_i - x_j\|^2 / (4 h^2))}. `kernel_parzen(h)` is that kernel
#' without its constant, a Gaussian kernel with \eqn{\sigma = 1 / (4 h^2)};
#' the constant \eqn{(4 \pi h^2)^{-d/2}} does not change which features are
#' selected and `qmi()` applies it. For class labels the Parzen "window" is
#' the counting measure and \eqn{\nu_{ij} = \delta(y_i = y_j)}, the sum over
#' classes replacing the integral over \eqn{y}: `label_kernel_parzen()`
#' gives that unweighted delta kernel for a factor outcome
#' (`label_kernel_multiclass("indicator")`) and the Gaussian window for a
#' numeric one. So, for a numeric outcome,
#' `hsic(x, y, kernel_parzen(hx), label_kernel_parzen(hy), estimator =
#' "biased")$estimate * (m - 1)^2 / m^2` times \eqn{(4 \pi h_x^2)^{-d_x/2}
#' (4 \pi h_y^2)^{-d_y/2}} is `qmi(x, y, hx, hy)` (for classes drop the
#' second constant).
#'
#' **Bandwidth** `NULL`: the median rule \eqn{h = (\mathrm{median}_{i < j}
#' \|x_i - x_j\|^2)^{1/2} / 2}, which makes \eqn{\sigma = 1 / (4h^2)} the median
#' heuristic of [kernel_gaussian()], so that a `NULL` bandwidth gives the
#' same window in `qmi()`, [hsic()], [bahsic()] and [fohsic()]. (Scott's
#' rule for density estimation, \eqn{h = s \, m^{-1/(d+4)}} with \eqn{s} the
#' standard deviation of standardised-scale data, gives a similar width for
#' small \eqn{m} and a narrower one for large \eqn{m}; pass it as a number
#' if you prefer it.)
#'
#' **In the selectors**: [bahsic()] and [fohsic()] keep a Parzen window's
#' bandwidth fixed whatever their `sigma` argument (the `"dimension"` and
#' `"optimize"` policies would replace it), on the standardised features
#' when `standardize = TRUE`. [randsel()] keeps a given bandwidth, but with
#' `bandwidth = NULL` applies its own width rule. The factor form of
#' `label_kernel_parzen()` is chosen where an entry point resolves its label
#' kernel (hsic(), the selectors); [feature_scores()] and
#' [label_kernel_matrix()] take it for numeric outcomes only: for classes
#' pass `label_kernel_multiclass("indicator")`.
#'
#' @param bandwidth the window's bandwidth \eqn{h} (positive), or `NULL` for
#'   the median rule (see Details).
#' @param x samples x features, as for [hsic()].
#' @param y the outcome: a factor (classes) or a numeric vector or matrix.
#' @param bandwidth_x,bandwidth_y bandwidths of the windows on `x` and on a
#'   numeric `y` (ignored for classes), or `NULL` for the median rule.
#' @inheritParams hsic
#' @return `kernel_parzen()`: a `bahsic_kernel`; `label_kernel_parzen()`: a
#'   `bahsic_label_kernel`; `qmi()`: an object of class `bahsic_qmi`, a list
#'   with `estimate` (the quadratic mutual information), `bandwidth_x`,
#'   `bandwidth_y` (`NA` for classes), `m`, `d_x`, `d_y` (the dimensions; `NA`
#'   for classes) and `hsic0`, the biased HSIC of the kernel pair without the
#'   constants.
#' @references Torr, P. H. S. (2003). Solving Markov random fields using
#'   semidefinite programming. AISTATS.
#'
#'   Song, L., Smola, A., Gretton, A., Bedo, J. and Borgwardt, K. (2012).
#'   Feature selection via dependence maximization. JMLR 13, 1393-1434.
#' @family kernels
#' @family hsic
#' @examples
#' set.seed(1)
#' x <- rnorm(30)
#' y <- x^2 + rnorm(30, sd = 0.2)
#' qmi(x, y, bandwidth_x = 0.5, bandwidth_y = 0.5)
#' qmi(x, factor(x > 0))
#' # the same number from hsic() with the Parzen kernel pair
#' h <- hsic(x, y, kernel = kernel_parzen(0.5), kernel_y = label_kernel_parzen(0.5),
#'           estimator = "biased")$estimate
#' h * (29 / 30)^2 / (4 * pi * 0.5^2)
#' @name parzen
NULL

#' @rdname parzen
#' @export
kernel_parzen <- function(bandwidth = NULL, ...) {
  check_dots(...)
  check_bandwidth(bandwidth, "bandwidth")
  k <- new_kernel("gaussian", sigma = if (!is.null(bandwidth)) 1 / (4 * bandwidth^2),
                  label = paste0("Parzen window product kernel exp(-||x - x'||^2 / (4 h^2)), h = ",
                                 format_bandwidth(bandwidth)))
  class(k) <- c("bahsic_parzen", class(k))
  k
}

format_bandwidth <- function(bandwidth) {
  if (is.null(bandwidth)) "sqrt(median squared distance) / 2" else format(bandwidth)
}

#' @rdname parzen
#' @export
label_kernel_parzen <- function(bandwidth = NULL, ...) {
  check_dots(...)
  check_bandwidth(bandwidth, "bandwidth")
  k <- new_label_kernel("regression", kernel = kernel_parzen(bandwidth),
                        label = paste0("Parzen label kernel: delta(y = y') for classes, ",
                                       "exp(-||y - y'||^2 / (4 h^2)) for numbers, h = ",
                                       format_bandwidth(bandwidth)))
  class(k) <- c("bahsic_parzen_label", class(k))
  k
}

# The counting-measure window of class labels: nu_ij = delta(y_i = y_j).
# resolve_label_kernel() puts it in place of label_kernel_parzen() for a factor.
parzen_class_kernel <- function() {
  k <- label_kernel_multiclass("indicator")
  k$label <- "Parzen label kernel for classes: delta(y = y') (multiclass, indicator)"
  k
}

check_bandwidth <- function(value, arg) {
  if (is.null(value)) return(invisible())
  if (!is.numeric(value) || length(value) != 1L || !is.finite(value) || value <= 0) {
    stop(sprintf("'%s' must be a single positive finite number, or NULL for the median rule.",
                 arg), call. = FALSE)
  }
  invisible()
}

# (4 pi h^2)^(-d/2): the integral of the product of two Gaussian windows of
# bandwidth h in d dimensions at distance 0 (the density of N(0, 2 h^2 I)).
parzen_constant <- function(h, d) (4 * pi * h^2)^(-d / 2)

# The bandwidth of a resolved Parzen (Gaussian) kernel: sigma = 1 / (4 h^2).
parzen_bandwidth <- function(kernel) 1 / (2 * sqrt(kernel$params$sigma))

#' @rdname parzen
#' @export
qmi <- function(x, y, bandwidth_x = NULL, bandwidth_y = NULL, na_action = c("fail", "omit"),
                assay = 1L, threads = default_threads(), ...) {
  check_dots(...)
  check_bandwidth(bandwidth_x, "bandwidth_x")
  check_bandwidth(bandwidth_y, "bandwidth_y")
  prep <- hsic_prepare(x, y, kernel_parzen(bandwidth_x), list(
    kernel_y = label_kernel_parzen(bandwidth_y), na_action = arg_match(na_action),
    assay = assay, threads = threads, min_m = 2L, min_what = "qmi()", outcome_what = "hsic()",
    check_inputs = function(pr) refuse_survival_values(pr$y, "qmi()")))
  if (is.factor(prep$y) && !is.null(bandwidth_y)) {
    # classes take the counting measure's window, which has no bandwidth
    stop_unused("bandwidth_y", "a numeric outcome", "class labels")
  }
  lab <- prep$label
  m <- prep$m
  hsic0 <- .Call(C_hsic_stats, prep$K, label_arg(lab))[1L]
  hx <- parzen_bandwidth(attr(prep$K, "kernel"))
  d_x <- ncol(prep$x)
  classes <- is.factor(prep$y)
  hy <- if (classes) NA_real_ else parzen_bandwidth(lab$kernel$params$kernel)
  d_y <- if (classes) NA_integer_ else NCOL(prep$y)
  const <- parzen_constant(hx, d_x) * if (classes) 1 else parzen_constant(hy, d_y)
  # m^-2 tr(kappa H nu H) with tr(KHLH) = (m - 1)^2 HSIC0
  structure(list(estimate = const * hsic0 * (m - 1)^2 / m^2, bandwidth_x = hx,
                 bandwidth_y = hy, m = m, d_x = d_x, d_y = d_y, hsic0 = hsic0),
            class = "bahsic_qmi")
}

#' @export
print.bahsic_qmi <- function(x, digits = max(3L, getOption("digits") - 3L), ...) {
  check_dots(..., .fn = "print", .allow = print_dot_args)
  cat(sprintf("Quadratic mutual information (Parzen windows) = %s, m = %d samples\n",
              format(x$estimate, digits = digits), x$m))
  cat(sprintf("  x: %d dimension(s), bandwidth %s\n", x$d_x,
              format(x$bandwidth_x, digits = digits)))
  if (is.na(x$d_y)) {
    cat("  y: classes (delta window)\n")
  } else {
    cat(sprintf("  y: %d dimension(s), bandwidth %s\n", x$d_y,
                format(x$bandwidth_y, digits = digits)))
  }
  invisible(x)
}
