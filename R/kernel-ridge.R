# The ridge-regression kernel of section 6.6 of Song et al. (2012):
# Kbar = K (K + lambda I)^-1, with which BAHSIC is recursive feature
# elimination with ridge regression. Its Gram matrix (gram()) and the
# selection loop of bahsic()/fohsic() (ridge_select(); the linear base in C,
# src/ridge.c) live here.

#' Ridge-regression kernel
#'
#' The data kernel \eqn{\bar K = K (K + \lambda I)^{-1}} of section 6.6 of
#' Song et al. (2012), with \eqn{K} the Gram matrix of a `base` kernel. For
#' the linear base, \eqn{K = VV^\top} with \eqn{V} the samples x features
#' data, it is \eqn{\bar K = V (V^\top V + \lambda I)^{-1} V^\top}, the hat
#' matrix of ridge regression (eq. 29 and after): the fitted values of a
#' ridge regression of \eqn{y} on \eqn{V} are \eqn{\bar K y}. With the
#' biased estimator and the linear regression label kernel,
#' \eqn{\mathrm{HSIC} = y^\top H \bar K H y / (m - 1)^2}, and for centred
#' \eqn{y} and \eqn{V} this is \eqn{(y^\top y - J^*) / (m - 1)^2} with
#' \eqn{J^* = \min_w \|y - Vw\|^2 + \lambda \|w\|^2} the ridge objective at
#' its optimum. So BAHSIC with this kernel (remove the feature whose removal
#' leaves the largest HSIC) is recursive feature elimination with ridge
#' regression (remove the feature whose removal increases \eqn{J^*} least),
#' and FOHSIC is forward selection with ridge regression.
#'
#' The Gram matrix is computed as \eqn{I - \lambda (K + \lambda I)^{-1}}
#' through the Cholesky factor of \eqn{K + \lambda I}, so it is exactly
#' symmetric; the cost is \eqn{O(m^3)} on top of the base kernel.
#'
#' **Where it works**: [kernel_matrix()], [hsic()] and [hsic_test()], and
#' [bahsic()] and [fohsic()], all with `approx = "exact"` (the kernel
#' couples all samples through the inverse, so neither blocks nor low-rank
#' factors of the base kernel approximate it). [randsel()], [clinical_rfe()],
#' [feature_scores()], the `l1_*()` selectors and label kernels do not take
#' it, and say so.
#'
#' **Selection cost**: in `bahsic()` and `fohsic()`, \eqn{\mathrm{HSIC}(S)
#' = \mathrm{tr}(W) - \lambda \mathrm{tr}(A_S W)} with \eqn{A_S = (K_S +
#' \lambda I)^{-1}} and \eqn{W} the weights of the estimator. For the linear
#' base a feature leaves or joins by a rank-one update of \eqn{A_S}
#' (Sherman-Morrison), so every candidate costs \eqn{O(m^2)}, the order of
#' the other kernels' candidates, and each iteration adds one Cholesky
#' factorisation (\eqn{O(m^3)}) that makes \eqn{A_S} afresh. For any other
#' base every candidate needs its own inverse: \eqn{O(m^2 s + m^3)} per
#' candidate (s features in the set), in the same C loop; fine for tens of samples
#' and features, slow beyond. The base kernel's width follows the `sigma`
#' policy of the selectors. The `threads` argument is not used (the products
#' go through R's BLAS).
#'
#' @param lambda ridge penalty, a single positive finite number.
#' @param base the kernel \eqn{K} on the data, see [kernels]: not a
#'   precomputed, clinical or ridge kernel.
#' @param ... not used: an argument that is none of the above is an error that
#'   names it and suggests the closest name.
#' @return An object of class `bahsic_kernel`.
#' @references Song, L., Smola, A., Gretton, A., Bedo, J. and Borgwardt, K.
#'   (2012). Feature selection via dependence maximization. JMLR 13,
#'   1393-1434, section 6.6.
#' @family kernels
#' @examples
#' set.seed(1)
#' x <- matrix(rnorm(60), 20, 3)
#' y <- x[, 1] + rnorm(20, sd = 0.5)
#' k <- kernel_ridge(lambda = 1)
#' K <- kernel_matrix(k, x)
#' # the ridge hat matrix
#' all.equal(K, x %*% solve(crossprod(x) + diag(3)) %*% t(x), check.attributes = FALSE)
#' hsic(x, y, kernel = k, kernel_y = label_kernel_regression(kernel_linear()))
#' # BAHSIC with it is recursive feature elimination with ridge regression
#' bahsic(x, y, kernel = k, kernel_y = label_kernel_regression(kernel_linear()), drop = 0)
#' @export
kernel_ridge <- function(lambda, base = kernel_linear(), ...) {
  check_dots(...)
  if (missing(lambda)) {
    stop("'lambda' (the ridge penalty) is missing: give a positive number, e.g. kernel_ridge(1).",
         call. = FALSE)
  }
  check_positive(lambda, "lambda")
  if (!inherits(base, "bahsic_kernel")) {
    stop("'base' must be a kernel such as kernel_linear() or kernel_gaussian().", call. = FALSE)
  }
  if (base$name %in% c("precomputed", "clinical", "ridge")) {
    stop(sprintf(paste0("'base' cannot be a %s kernel: kernel_ridge() needs a kernel computed ",
                        "from the features, such as kernel_linear() or kernel_gaussian()%s."),
                 base$name,
                 if (base$name == "precomputed") {
                   "; for a precomputed K use kernel_precomputed(K %*% solve(K + lambda * diag(nrow(K))))"
                 } else ""),
         call. = FALSE)
  }
  new_kernel("ridge", lambda = as.double(lambda), base = base,
             label = sprintf("ridge kernel K (K + %g I)^-1, K the %s", lambda, base$label))
}

is_ridge <- function(kernel) {
  inherits(kernel, "bahsic_kernel") && identical(kernel$name, "ridge")
}

# Every path but kernel_matrix(), hsic(), hsic_test(), bahsic() and fohsic()
# (check_kernel(ridge = TRUE)) stops here, naming what works.
ridge_unsupported <- function(where) {
  stop(sprintf(paste0("kernel_ridge() cannot be used %s. It works in kernel_matrix(), hsic(), ",
                      "hsic_test(), bahsic() and fohsic(), all with approx = \"exact\"."), where),
       call. = FALSE)
}

ridge_check_approx <- function(approx) {
  if (approx$name != "exact") {
    stop(sprintf(paste0("approx = \"%s\" is not available with kernel_ridge(), whose kernel ",
                        "couples all samples through (K + lambda I)^-1: use approx = \"exact\"."),
                 approx$name), call. = FALSE)
  }
  invisible()
}

# Kbar = K (K + lambda I)^-1 = I - lambda (K + lambda I)^-1 from A = (K +
# lambda I)^-1 by Cholesky (chol2inv() fills both triangles from one: the
# result is exactly symmetric).
ridge_inverse <- function(K, lambda) {
  m <- nrow(K)
  R <- tryCatch(chol(K + diag(lambda, m)), error = function(e) {
    stop(sprintf(paste0("kernel_ridge(): K + lambda I is not positive definite with lambda = %g ",
                        "(the base kernel is not positive semi-definite, or lambda is too ",
                        "small for the rounding of K): increase 'lambda'."), lambda),
         call. = FALSE)
  })
  chol2inv(R)
}

ridge_gram <- function(kernel, x, threads = 1L) {
  m <- nrow(x)
  # K, the Cholesky factor and the inverse
  check_memory(m, 3)
  lambda <- kernel$params$lambda
  K <- gram(kernel$params$base, x, threads)
  kernel$params$base <- attr(K, "kernel")
  kernel$label <- sprintf("ridge kernel K (K + %g I)^-1, K the %s", lambda,
                          kernel$params$base$label)
  Kbar <- -lambda * ridge_inverse(unname(K), lambda)
  diag(Kbar) <- diag(Kbar) + 1
  if (!is.null(rownames(x))) dimnames(Kbar) <- list(rownames(x), rownames(x))
  attr(Kbar, "kernel") <- kernel
  Kbar
}

# bahsic()/fohsic() with a ridge kernel on the standardised data x and the
# weights W, in C (src/ridge.c): the linear base by rank-one updates, any
# other by one inverse per candidate, widths of a Gaussian or Laplace base
# by the policy as in the other selectors. Returns what the C selector
# returns (rank, score, iteration, path) and the kernel with its width
# resolved. `progress`: NULL or the function the C loop's tick calls
# (progress_select(), R/progress.R).
ridge_select <- function(method, x, W, kernel, sigma, sigma_grid, step, n_features, verbose,
                         progress = NULL) {
  lambda <- kernel$params$lambda
  base <- kernel$params$base
  width <- kernel_has(base, "width")
  policy <- if (width) sigma else "fixed"
  if (width && policy == "fixed" && is.null(base$params$sigma)) {
    base$params$sigma <- median_sigma(x, kernel_has(base, "squared"), n_max = nrow(x))
    kernel$params$base <- base
  }
  grid <- if (is.null(sigma_grid)) 2^(-3:3) else sort(as.double(sigma_grid))
  par <- kernel_param(base)
  # read by name in C (src/ridge_call.c)
  opts <- list(lambda = as.double(lambda), kernel = kernel_code(base),
               p1 = as.double(par[1L]), p2 = as.double(par[2L]),
               direction = direction_code(method), step = as.double(step),
               n_target = if (is.null(n_features)) 0L else n_features, verbose = verbose,
               policy = policy_code(policy), grid = grid, grid_relative = is.null(sigma_grid))
  if (!is.null(progress)) opts$progress <- progress
  res <- .Call(C_ridge_select, x, W, opts)
  c(res, list(kernel = kernel))
}
