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
#' * `bahsic.max_memory` (bytes, default 8 GiB): the memory budget for the
#'   m x m workspaces. Every function that builds them counts what it will hold
#'   at its peak, in m x m double matrices (8 m^2 bytes each), and stops with an
#'   error *before allocating* when that exceeds the budget: [kernel_matrix()]
#'   1 (1.5 with the median heuristic), [label_kernel_matrix()] 1.5, [hsic()]
#'   and [hsic_test()] 1.5, or 3 with a full (non-linear regression) label
#'   kernel, [feature_scores()] with a kernel method 2.5 (3.5), [bahsic()] and
#'   [fohsic()] 5, [l1_hsic()] and [hsic_weights()] 5, [qmi()] as [hsic()],
#'   [clinical_rfe()] 7.5 (the SVM solver's copies), [randsel()] its label kernel
#'   and every thread's workspace (about `threads` times (q + 3) matrices of
#'   the subsample's size, q the bootstraps per batch).
#'   [lsmi()] and [l1_lsmi()] count the median heuristic's pairwise distances
#'   (0.5 matrix, 1.5 with more than one column; `lsmi()` needs them for its
#'   default grid of widths and for a numeric outcome) and their m x
#'   `n_basis` design matrices. At m = 10,000 one matrix is 0.75 GiB. Raise the option on a
#'   machine with more memory, or use an approximation (`approx =`, see
#'   [approximations]), which needs no m x m matrix; its m x r factors (the
#'   default rank of `approx_ichol()` is lowered to fit), the selectors'
#'   per-thread m x r buffers, and the pairs within blocks of the selectors'
#'   block path, count against the same budget. The budget also limits the dense samples x
#'   features matrix built from a sparse or out-of-memory input (see
#'   \link{input-classes}).
#' * `bahsic.threads`: the default number of threads, see \link{threads}.
#' * `bahsic.simd` (default `TRUE`): let the selectors, and the Gram matrices
#'   of [hsic()] and [kernel_matrix()], use their AVX2 loops on CPUs that have
#'   them; `FALSE` forces the portable loops (same results to rounding).
#' * `bahsic.series` (default `TRUE`): the series screen of [bahsic()] and
#'   [fohsic()] with the Gaussian kernel and the exact estimator (see
#'   [bahsic()], "Series screen"); `FALSE` scores every candidate exactly, with
#'   the same ranking and path. 1, 2 or 3 fix the number of series terms of
#'   the first screen (for benchmarks).
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
