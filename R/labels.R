# Kernels on labels (section 5.2 of Song et al. (2012), section 4 of
# Song et al. (2007)). Classification kernels have rank at most the
# number of classes, so they are kept as a factor Y (m x c) with L = Y Y' and
# never expanded to m x m.

new_label_kernel <- function(type, ..., label) {
  structure(list(type = type, params = list(...), label = label),
            class = "bahsic_label_kernel")
}

#' Kernels on labels
#'
#' Label kernels for HSIC (section 5.2 of Song et al. 2012). For
#' classification they are low-rank, \eqn{L = Y Y^\top} with one column of
#' \eqn{Y} per class (one for binary problems), and are kept in that form.
#'
#' * `label_kernel_binary()`: \eqn{l(y, y') = y y'} with \eqn{y \in \{\pm
#'   1\}} (eq. 16), or with `balanced = TRUE` the class-size weighted
#'   \eqn{y / m_y} (eq. 17), which makes HSIC the (biased) maximum mean
#'   discrepancy and removes the effect of unequal class sizes. The second
#'   factor level is the positive class.
#' * `label_kernel_multiclass()`: `"balanced"` is \eqn{l(y, y') =
#'   \delta_{y y'} / m_y} (eq. 18 with \eqn{c_y = 1/m_y});
#'   `"one_vs_rest"` is eq. 19, one "one versus the rest" column per class
#'   with entries \eqn{1/m_k} in class k and \eqn{-1/(m - m_k)} elsewhere (the
#'   left map of eq. 14 of Song et al. 2007); `"block"` is the right map of
#'   that eq. 14, \eqn{e_y / \sqrt{m_y}}, which selects features that recover
#'   the block structure of the kernel matrix. Note that `"block"` and
#'   `"balanced"` give the same kernel matrix: the two papers reach one
#'   kernel from two directions, and both names are kept so either paper can
#'   be followed. `"indicator"` is the unweighted delta kernel \eqn{l(y, y') =
#'   \delta_{y y'}} (\eqn{Y} the class indicator), the Parzen window of class
#'   labels in the quadratic mutual information (see [qmi()]).
#' * `label_kernel_regression()`: any data kernel applied to a numeric
#'   outcome (eq. 20 for the Gaussian); a linear kernel is kept as the factor
#'   \eqn{Y = y}. A numeric matrix outcome (several responses) works too.
#' * `label_kernel_pam()`: the shrunken-centroid map \eqn{\psi(y) = e_y /
#'   m_y} (eq. 27-28), for which HSIC with a linear data kernel is the sum
#'   over classes of the squared distances between class centroids and the
#'   overall centroid. With `standardize = TRUE` the class columns are also
#'   divided by pamr's \eqn{\sqrt{1/m_k - 1/m}}, so that with features
#'   scaled by \eqn{1/(s_j + s_0)} HSIC reproduces pamr's standardised
#'   statistic.
#'
#' When `kernel_y = NULL` is given to [hsic()] or [feature_scores()], the
#' label kernel is picked from the outcome by [default_label_kernel()].
#'
#' @param balanced weight each class by the inverse of its size (eq. 17).
#' @param type which multiclass map, see Details.
#' @param kernel a data kernel (e.g. [kernel_gaussian()], [kernel_linear()])
#'   applied to the numeric outcome.
#' @param standardize divide the class columns by \eqn{\sqrt{1/m_k - 1/m}}
#'   as pamr does.
#' @param ... not used: an argument that is none of the above is an error that
#'   names it and suggests the closest name.
#' @return An object of class `bahsic_label_kernel`.
#' @family kernels
#' @examples
#' y <- factor(c("a", "a", "b", "b", "b"))
#' label_kernel_binary()
#' label_kernel_matrix(label_kernel_binary(), y)
#' label_kernel_matrix(label_kernel_multiclass("one_vs_rest"), factor(c(1, 1, 2, 3, 3)))
#' label_kernel_matrix(label_kernel_regression(kernel_linear()), c(0.5, 1, 2))
#' @name label_kernels
NULL

#' @rdname label_kernels
#' @export
label_kernel_binary <- function(balanced = TRUE, ...) {
  check_dots(...)
  check_flag(balanced, "balanced")
  new_label_kernel("binary", balanced = balanced,
                   label = if (balanced) {
                     "binary label kernel, classes weighted by 1/size (eq. 17)"
                   } else {
                     "binary label kernel y y' with y = +-1 (eq. 16)"
                   })
}

#' @rdname label_kernels
#' @export
label_kernel_multiclass <- function(type = c("balanced", "one_vs_rest", "block", "indicator"), ...) {
  check_dots(...)
  type <- arg_match(type)
  new_label_kernel("multiclass", map = type,
                   label = sprintf("multiclass label kernel (%s)", type))
}

#' @rdname label_kernels
#' @export
label_kernel_regression <- function(kernel = kernel_gaussian(), ...) {
  check_dots(...)
  check_kernel(kernel, "kernel", where = "as a label kernel")
  new_label_kernel("regression", kernel = kernel,
                   label = paste("regression label kernel:", kernel$label))
}

#' @rdname label_kernels
#' @export
label_kernel_pam <- function(standardize = FALSE, ...) {
  check_dots(...)
  check_flag(standardize, "standardize")
  new_label_kernel("pam", standardize = standardize,
                   label = sprintf("shrunken-centroid label kernel e_y / m_y%s (eq. 28)",
                                   if (standardize) ", pamr-standardised" else ""))
}

#' Precomputed label kernel
#'
#' A label kernel given as its m x m matrix \eqn{L}, for labels no built-in
#' kernel describes: structured outputs (strings, graphs, trees), a kernel on
#' a graph of the samples, a kernel computed by another program. HSIC and the
#' selectors then measure the dependence of the features on whatever
#' similarity of the samples \eqn{L} encodes (section 5 of Song et al. 2012:
#' any positive definite kernel on the labels may be used). `L` is the labels:
#' with it, `y` may be `NULL` (otherwise `y` only needs one value per
#' sample). Row and column i of `L` belong to sample (row) i of `x`; with
#' `na_action = "omit"` the rows and columns of the samples kept are used.
#'
#' This is [label_kernel_regression()] of [kernel_precomputed()]`(L)` under
#' its own label. It works in [hsic()], [hsic_test()], [bahsic()],
#' [fohsic()], [randsel()], [l1_hsic()] and [l1_lsmi()] (whose label basis
#' functions are then columns of \eqn{L}). The exact paths and `approx =
#' "block"` use \eqn{L} as it is; `approx = "ichol"` and `"rff"` factor it by
#' pivoted incomplete Cholesky (\eqn{O(m r^2)}, `tol` and `max_rank` of
#' [approx_ichol()]; `"rff"` uses the defaults of [approx_ichol()]). \eqn{L}
#' is held in memory: \eqn{8 m^2} bytes.
#'
#' @param L the m x m label kernel matrix: square, finite and symmetric
#'   (within a relative tolerance of 1e-10). Positive semi-definiteness is not
#'   checked (HSIC is defined for any symmetric L, but its interpretation as
#'   a dependence measure needs a kernel).
#' @param ... not used: an argument that is none of the above is an error that
#'   names it and suggests the closest name.
#' @return An object of class `bahsic_label_kernel`.
#' @family kernels
#' @examples
#' set.seed(1)
#' # labels that are strings: a 2-mer spectrum kernel, computed in base R
#' m <- 40
#' motif <- sample(c("AC", "GT"), m, replace = TRUE)
#' s <- vapply(seq_len(m), function(i) paste0(paste(sample(c("A", "C", "G", "T"), 6,
#'                                                   replace = TRUE), collapse = ""),
#'                                             motif[i]), "")
#' kmers <- function(z) table(factor(substring(z, 1:(nchar(z) - 1), 2:nchar(z)),
#'                                   levels = outer(c("A", "C", "G", "T"),
#'                                                  c("A", "C", "G", "T"), paste0)))
#' counts <- t(vapply(s, function(z) as.vector(kmers(z)), numeric(16)))
#' L <- tcrossprod(counts)
#' x <- matrix(rnorm(m * 5), m, 5)
#' x[, 2] <- x[, 2] + 2 * (motif == "GT")
#' hsic(x[, 2], NULL, kernel_y = label_kernel_precomputed(L))
#' fit <- bahsic(x, NULL, kernel_y = label_kernel_precomputed(L))
#' selected(fit, 1)
#' # samples on a graph: a diffusion kernel on a path of m samples
#' A <- matrix(0, m, m)
#' A[cbind(1:(m - 1), 2:m)] <- A[cbind(2:m, 1:(m - 1))] <- 1
#' e <- eigen(diag(rowSums(A)) - A, symmetric = TRUE)
#' Ld <- e$vectors %*% (exp(-2 * e$values) * t(e$vectors))
#' x[, 4] <- sin(seq_len(m) / 6) + rnorm(m, sd = 0.1)
#' hsic(x[, 4], NULL, kernel_y = label_kernel_precomputed(Ld))
#' @export
label_kernel_precomputed <- function(L, ...) {
  check_dots(...)
  if (!is.matrix(L) || !(is.numeric(L) || is.logical(L))) {
    stop("'L' must be a numeric matrix: the m x m label kernel matrix (samples x samples).",
         call. = FALSE)
  }
  if (nrow(L) != ncol(L)) {
    stop(sprintf("'L' must be square (samples x samples); it is %d x %d.", nrow(L), ncol(L)),
         call. = FALSE)
  }
  if (nrow(L) < 2L) stop("'L' must be at least 2 x 2 (one row per sample).", call. = FALSE)
  if (!all(is.finite(L))) {
    stop("'L' has missing or infinite values: a label kernel matrix must be finite.",
         call. = FALSE)
  }
  storage.mode(L) <- "double"
  if (!isSymmetric(unname(L), tol = 1e-10 * max(1, max(abs(L))))) {
    stop(paste0("'L' must be symmetric (L[i, j] == L[j, i]); for a nearly symmetric ",
                "matrix use (L + t(L)) / 2."), call. = FALSE)
  }
  kernel_y <- label_kernel_regression(kernel_precomputed(unname(L)))
  kernel_y$label <- sprintf("precomputed label kernel (%d x %d)", nrow(L), nrow(L))
  kernel_y
}

is_precomputed_label <- function(kernel_y) {
  inherits(kernel_y, "bahsic_label_kernel") && kernel_y$type == "regression" &&
    kernel_y$params$kernel$name == "precomputed"
}

#' Default label kernel for an outcome
#'
#' A two-level factor gets [label_kernel_binary()] (balanced), a factor with
#' more levels [label_kernel_multiclass()] (balanced), a numeric outcome
#' [label_kernel_regression()] with a Gaussian kernel, a censored survival
#' outcome (`survival::Surv`) [label_kernel_survival()].
#'
#' @param y the outcome (factor, character, logical or numeric).
#' @param ... not used: an argument that is none of the above is an error that
#'   names it and suggests the closest name.
#' @return A `bahsic_label_kernel`.
#' @family kernels
#' @examples
#' default_label_kernel(factor(c("B", "T", "B")))
#' default_label_kernel(rnorm(5))
#' @export
default_label_kernel <- function(y, ...) {
  check_dots(...)
  if (is_surv(y)) return(label_kernel_survival())
  if (is.character(y) || is.logical(y)) y <- factor(y)
  if (is.factor(y)) {
    if (nlevels(droplevels(y)) <= 2L) label_kernel_binary() else label_kernel_multiclass()
  } else if (is.numeric(y)) {
    label_kernel_regression(kernel_gaussian())
  } else {
    stop("'y' must be a factor, character, logical or numeric.", call. = FALSE)
  }
}

#' @export
print.bahsic_label_kernel <- function(x, ...) {
  check_dots(..., .fn = "print", .allow = print_dot_args)
  cat(x$label, "\n", sep = "")
  invisible(x)
}

check_flag <- function(value, arg) {
  if (!is.logical(value) || length(value) != 1L || is.na(value)) {
    stop(sprintf("'%s' must be TRUE or FALSE.", arg), call. = FALSE)
  }
  invisible()
}

#' Label kernel matrix
#'
#' The m x m matrix \eqn{L} of a label kernel on an outcome. Internally
#' classification kernels stay in factor form; this expands them, for
#' inspection and for use with [kernel_precomputed()].
#'
#' @param kernel_y a label kernel.
#' @param y the outcome, one value per sample.
#' @param ... not used: an argument that is none of the above is an error that
#'   names it and suggests the closest name.
#' @return The m x m label kernel matrix.
#' @family kernels
#' @examples
#' label_kernel_matrix(label_kernel_pam(), factor(c("a", "b", "b")))
#' @export
label_kernel_matrix <- function(kernel_y, y, ...) {
  check_dots(...)
  if (!inherits(kernel_y, "bahsic_label_kernel")) {
    stop("'kernel_y' must be a label kernel such as label_kernel_binary().", call. = FALSE)
  }
  n_y <- if (is.matrix(y)) nrow(y) else length(y)
  y <- as_outcome(y, matrix(0, n_y, 1L))
  check_outcome(y)
  check_memory(n_y, 1.5)
  lab <- label_gram(kernel_y, y)
  if (is.null(lab$Y)) lab$L else tcrossprod(lab$Y)
}

# The label side of the HSIC entry points (C_hsic_stats, C_hsic_perm,
# C_hsic_gamma; the randSel options): list(L = ) for a full Gram matrix,
# list(Y = ) for its factor, from what label_gram() returns.
label_arg <- function(lab) {
  if (is.null(lab$Y)) list(L = lab$L) else list(Y = lab$Y)
}

# list(L = m x m or NULL, Y = m x c or NULL, kernel = the resolved label
# kernel). y has passed as_outcome() and check_outcome().
label_gram <- function(kernel_y, y, threads = 1L) {
  type <- kernel_y$type
  if (type == "survival") return(survival_label_gram(kernel_y, y))
  if (type %in% c("binary", "multiclass", "pam")) {
    if (!is.factor(y)) {
      stop(sprintf(paste0("The %s label kernel needs class labels (a factor); 'y' is numeric. ",
                          "Use label_kernel_regression() or pass factor(y)."), type), call. = FALSE)
    }
    counts <- tabulate(y, nlevels(y))
    m <- length(y)
    Y <- switch(type,
      binary = {
        if (nlevels(y) != 2L) {
          stop(sprintf(paste0("label_kernel_binary() needs two classes; 'y' has %d. ",
                              "Use label_kernel_multiclass()."), nlevels(y)), call. = FALSE)
        }
        # eq. 16: +-1, the second level positive; eq. 17: divided by the class size
        v <- ifelse(as.integer(y) == 2L, 1, -1)
        if (kernel_y$params$balanced) v <- v / counts[as.integer(y)]
        matrix(v, ncol = 1L)
      },
      multiclass = {
        ind <- class_indicator(y)
        switch(kernel_y$params$map,
          # eq. 18 with c_y = 1 / m_y, and eq. 14 (right) of Song et al. (2007)
          balanced = , block = sweep(ind, 2L, sqrt(counts), "/"),
          indicator = ind,
          # eq. 19: 1 / m_k in class k, -1 / (m - m_k) elsewhere
          one_vs_rest = {
            out <- sweep(ind, 2L, counts, "/")
            out[ind == 0] <- (-1 / (m - counts))[col(ind)[ind == 0]]
            out
          })
      },
      pam = {
        # eq. 28: psi(y) = e_y / m_y; pamr also divides by sqrt(1/m_k - 1/m)
        scale <- counts
        if (kernel_y$params$standardize) scale <- scale * sqrt(1 / counts - 1 / m)
        sweep(class_indicator(y), 2L, scale, "/")
      })
    return(list(L = NULL, Y = Y, kernel = kernel_y))
  }
  # regression: a data kernel on the numeric outcome, or a precomputed label
  # kernel, which works for any outcome (classes, structured labels)
  kern <- kernel_y$params$kernel
  if (kern$name == "precomputed") {
    L <- gram(kern, matrix(0, NROW(y), 1L))
    attr(L, "kernel") <- NULL
    return(list(L = L, Y = NULL, kernel = kernel_y))
  }
  ymat <- regression_outcome(y)
  if (kern$name == "linear") {
    return(list(L = NULL, Y = ymat, kernel = kernel_y))
  }
  L <- gram(kern, ymat, threads, arg = "y")
  kernel_y$params$kernel <- attr(L, "kernel")
  attr(L, "kernel") <- NULL
  list(L = L, Y = NULL, kernel = kernel_y)
}

# The outcome of a regression label kernel as an m x k matrix (no names),
# checked: numeric and not constant.
regression_outcome <- function(y) {
  if (is_surv(y)) {
    stop(paste0("label_kernel_regression() would read a censored survival outcome as two ",
                "numbers per sample (time, event); use label_kernel_survival()."), call. = FALSE)
  }
  if (is.factor(y)) {
    stop(paste0("label_kernel_regression() needs a numeric outcome; 'y' is a factor. ",
                "Use label_kernel_binary() or label_kernel_multiclass()."), call. = FALSE)
  }
  check_varying_outcome(y)
  unname(if (is.matrix(y)) y else matrix(y, ncol = 1L))
}

class_indicator <- function(y) {
  ind <- matrix(0, length(y), nlevels(y), dimnames = list(NULL, levels(y)))
  ind[cbind(seq_along(y), as.integer(y))] <- 1
  ind
}

# The label kernel an entry point uses: the caller's, or default_label_kernel(y)
# for NULL.
resolve_label_kernel <- function(kernel_y, y) {
  # label_kernel_parzen(): the counting-measure window for classes (R/qmi.R)
  if (inherits(kernel_y, "bahsic_parzen_label") && is.factor(y)) return(parzen_class_kernel())
  if (is.null(kernel_y)) return(default_label_kernel(y))
  if (!inherits(kernel_y, "bahsic_label_kernel")) {
    stop("'kernel_y' must be a label kernel such as label_kernel_binary(), or NULL.",
         call. = FALSE)
  }
  kernel_y
}
