#' Approximate HSIC for many samples
#'
#' Exact HSIC needs the \eqn{m \times m} kernel matrices: \eqn{O(m^2)} time
#' and memory, 20 GB per matrix at \eqn{m = 50{,}000}. These constructors
#' choose an approximation for the `approx` argument of [hsic()],
#' [bahsic()] and [fohsic()]; a string (`"exact"`, `"ichol"`, `"rff"`,
#' `"block"`) gives the defaults below.
#'
#' * `approx_ichol()`: pivoted incomplete Cholesky factorisation
#'   \eqn{K \approx GG^\top} with \eqn{G} of size \eqn{m \times r} (Song et
#'   al. 2012, section 2.6; Fine and Scheinberg 2001), computed from the data
#'   one kernel column per pivot, never forming \eqn{K}. The pivot is the
#'   sample with the largest residual diagonal; the factorisation stops when
#'   that is at most `tol` times the largest diagonal of \eqn{K}, or at
#'   `max_rank` columns. HSIC0 and HSIC1 then cost \eqn{O(m r^2)} time and
#'   \eqn{O(m r)} memory (Lemmas 6-7 of section 2.6).
#' * `approx_rff()`: random Fourier features (Rahimi and Recht 2007) for the
#'   Gaussian and Laplace kernels, \eqn{K \approx ZZ^\top} with `n_features`
#'   columns; the frequencies are drawn from R's random number generator, so
#'   `set.seed()` makes the result reproducible.
#' * `approx_block()`: the block estimator (Zaremba, Gretton and Blaschko
#'   2013): the samples are split at random into disjoint blocks of `size`
#'   samples, HSIC is estimated within each block and averaged, optionally
#'   over `n_partitions` independent partitions; \eqn{O(m B)} time.
#'
#' @param tol for `approx_ichol()`: stop when the largest residual diagonal
#'   is at most `tol` times the largest diagonal of the kernel matrix.
#' @param max_rank for `approx_ichol()`: the largest number of columns.
#' @param n_features for `approx_rff()`: the number of random features.
#' @param size for `approx_block()`: the number of samples per block
#'   (at least 4); the last block takes the remainder when `m` is not a
#'   multiple.
#' @param n_partitions for `approx_block()`: the number of random
#'   partitions averaged.
#' @return An object of class `bahsic_approx`.
#' @references Song, L., Smola, A., Gretton, A., Bedo, J. and Borgwardt, K.
#'   (2012). Feature selection via dependence maximization. JMLR 13,
#'   1393-1434.
#'
#'   Rahimi, A. and Recht, B. (2007). Random features for large-scale kernel
#'   machines. NIPS 20.
#'
#'   Zaremba, W., Gretton, A. and Blaschko, M. (2013). B-tests: low variance
#'   kernel two-sample tests. NIPS 26.
#' @name approximations
#' @family hsic
#' @examples
#' approx_ichol(tol = 1e-4)
#' approx_block(size = 50)
#' @export
approx_exact <- function() {
  new_approx("exact", list(), "exact (m x m kernel matrices)")
}

#' @rdname approximations
#' @export
approx_ichol <- function(tol = 1e-6, max_rank = 200L) {
  check_positive_number(tol, "tol")
  max_rank <- check_whole(max_rank, "max_rank", 1L)
  new_approx("ichol", list(tol = tol, max_rank = max_rank),
             sprintf("incomplete Cholesky (tol = %g, max_rank = %d)", tol, max_rank))
}

#' @rdname approximations
#' @export
approx_rff <- function(n_features = 500L) {
  n_features <- check_whole(n_features, "n_features", 1L)
  new_approx("rff", list(n_features = n_features),
             sprintf("random Fourier features (n_features = %d)", n_features))
}

#' @rdname approximations
#' @export
approx_block <- function(size = 100L, n_partitions = 1L) {
  size <- check_whole(size, "size", 4L)
  n_partitions <- check_whole(n_partitions, "n_partitions", 1L)
  new_approx("block", list(size = size, n_partitions = n_partitions),
             sprintf("block estimator (size = %d, n_partitions = %d)", size, n_partitions))
}

new_approx <- function(name, params, label) {
  structure(list(name = name, params = params, label = label), class = "bahsic_approx")
}

#' @export
print.bahsic_approx <- function(x, ...) {
  cat("HSIC approximation: ", x$label, "\n", sep = "")
  invisible(x)
}

approx_names <- c("exact", "ichol", "rff", "block")

# The approximation an entry point uses: a bahsic_approx, or one of
# approx_names for its defaults.
resolve_approx <- function(approx, arg = "approx") {
  if (inherits(approx, "bahsic_approx")) return(approx)
  if (is.character(approx) && length(approx) == 1L && !is.na(approx) &&
      approx %in% approx_names) {
    return(switch(approx, exact = approx_exact(), ichol = approx_ichol(), rff = approx_rff(),
                  block = approx_block()))
  }
  stop(sprintf(paste0("'%s' must be one of \"exact\", \"ichol\", \"rff\", \"block\", or an ",
                      "approximation from approx_ichol(), approx_rff() or approx_block()."), arg),
       call. = FALSE)
}

check_positive_number <- function(v, arg) {
  if (!is.numeric(v) || length(v) != 1L || !is.finite(v) || v <= 0) {
    stop(sprintf("'%s' must be one positive number.", arg), call. = FALSE)
  }
  invisible(v)
}

# The median-heuristic width 1 / median(distance) (squared distances for the
# Gaussian kernel), from at most n_max evenly spaced samples, so that it
# needs no O(m^2) memory on the approximate paths; on all samples when
# m <= n_max. 1 when the distances are all 0 (the kernel is then constant
# whatever the width).
median_sigma <- function(x, squared, n_max = 1000L) {
  m <- nrow(x)
  if (m > n_max) x <- x[unique(round(seq(1, m, length.out = n_max))), , drop = FALSE]
  med <- .Call(C_median_pairwise, x, squared)
  if (is.finite(med) && med > 0) 1 / med else 1
}
