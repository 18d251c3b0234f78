#' bahsic: feature selection by kernel dependence
#'
#' Estimators of the Hilbert-Schmidt Independence Criterion (HSIC), kernels on
#' data and labels, the univariate special cases of the HSIC framework, and
#' the BAHSIC and FOHSIC selectors of Song et al. (2012), with the numerical
#' work done in C.
#'
#' Matrices are samples x features, as for [stats::lm()]; Bioconductor
#' objects (genes x samples) are turned around by their own methods. Start
#' with [feature_scores()] for per-gene statistics, [bahsic()] for selection
#' and [hsic()] / [hsic_test()] for the dependence of a whole set.
#'
#' @section Options:
#' `bahsic.max_memory` (the memory budget, default 8 GiB), `bahsic.threads`,
#' `bahsic.simd` and `bahsic.series`: their defaults and valid values are
#' listed in \link{bahsic_options}.
#'
#' Sizes are `ptrdiff_t` (64-bit) throughout the C code, so index arithmetic
#' on m^2 pairs cannot overflow `int` for any matrix R can hold.
#'
#' @references Song, L., Smola, A., Gretton, A., Bedo, J. and Borgwardt, K.
#'   (2012). Feature selection via dependence maximization. *Journal of
#'   Machine Learning Research* 13, 1393-1434.
#' @keywords internal
#' @docType package
#' @name bahsic-package
#' @aliases bahsic-package
#' @useDynLib bahsic, .registration = TRUE
NULL
