#' bahsic: feature selection by kernel dependence
#'
#' Estimators of the Hilbert-Schmidt Independence Criterion (HSIC), kernels on
#' data and labels, and the univariate special cases of the HSIC framework of
#' Song et al. (2012), with the numerical work done in C.
#'
#' Matrices are samples x features, as for [stats::lm()]; Bioconductor
#' objects (genes x samples) are turned around by their own methods.
#'
#' @references Song, L., Smola, A., Gretton, A., Bedo, J. and Borgwardt, K.
#'   (2012). Feature selection via dependence maximization. *Journal of
#'   Machine Learning Research* 13, 1393-1434.
#' @keywords internal
#' @useDynLib bahsic, .registration = TRUE
"_PACKAGE"
