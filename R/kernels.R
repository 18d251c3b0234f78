# Kernels on data. Each constructor returns an object of class
# "bahsic_kernel": a name, validated parameters, and nothing computed yet; the
# Gram matrix is made in C by kernel_matrix().

new_kernel <- function(name, ..., label) {
  structure(list(name = name, params = list(...), label = label),
            class = "bahsic_kernel")
}

check_positive <- function(value, arg, allow_null = FALSE) {
  if (allow_null && is.null(value)) return(invisible())
  if (!is.numeric(value) || length(value) != 1L || !is.finite(value) || value <= 0) {
    stop(sprintf("'%s' must be a single positive finite number%s.", arg,
                 if (allow_null) " or NULL (median heuristic)" else ""), call. = FALSE)
  }
  invisible()
}

#' Kernels on data
#'
#' Constructors for the kernels on samples that HSIC and the selectors use
#' (section 5.1 of Song et al. 2012). The Gaussian and Laplace kernels follow
#' kernlab's parameterisation, \eqn{\exp(-\sigma \|x - x'\|^2)} and
#' \eqn{\exp(-\sigma \|x - x'\|)}; `sigma = NULL` picks the width by the
#' median heuristic from the data the kernel is applied to:
#' \eqn{\sigma = 1 / \mathrm{median}\|x_i - x_j\|^2} (Gaussian; the same
#' kernel as dHSIC's median bandwidth) and
#' \eqn{\sigma = 1 / \mathrm{median}\|x_i - x_j\|} (Laplace), the median
#' taken over pairs of distinct samples (over the pairs that do not tie when
#' more than half do, as in discrete data; see "Ties and numerical residue").
#' The inverse-distance ("dis") kernel
#' is \eqn{1 / (\|x - x'\| + \epsilon)}.
#'
#' **Ties and numerical residue.** Every median heuristic of the package
#' (these kernels with `sigma = NULL` in [kernel_matrix()], [hsic()],
#' [hsic_test()], the per-feature widths of [feature_scores()], the label
#' kernels, the approximations and the selectors' width policies) follows one
#' rule: two samples whose distance is at most \eqn{1.5 \times 10^{-8}}
#' (`sqrt(.Machine$double.eps)`) times the largest distance between any two
#' samples (squared distance at most `.Machine$double.eps` times the largest)
#' count as tied, as samples with equal values do. When the middle of all
#' pairwise distances is such a tie (more than half the pairs tie), the
#' median is taken over the pairs that do not tie. A gene that is 0 in most
#' cells, between 1e-134 and 1e-8 in most others (the residue of the
#' quantification) and up to 3.5 in a few gets a width set by its expressed
#' cells against the others, not 1 / 8e-314 (the median of residue against
#' zeros, beyond double precision). The threshold is relative to the largest
#' distance, so the rule, like the kernel, does not change when the data are
#' shifted or rescaled; it is the tolerance under which [all.equal()] calls
#' two numbers equal, far below the resolution of any measurement and above
#' such residue (1e-8 beside 3.5 is 3e-9 of the largest distance). The width of every feature whose middle distance is above it
#' is the median over all pairs, as it always was, and a gene with residue
#' gets the width (and the scores, to about 1e-8) of the same gene with the
#' residue set to 0. Only the samples' coincidence leaves no width: when all
#' samples are equal the kernel is constant and the width is set to 1 (any
#' gives the same, zero, dependence). The rule sees each feature on its own
#' scale: a gene whose values are all residue (largest 1e-8) is scored on its
#' residue; set values below a threshold to 0 first (`x[x < 1e-6] <- 0`)
#' where residue is known to carry no signal.
#'
#' **The median heuristic on many samples.** Above 1000 samples,
#' [kernel_matrix()], [hsic()] and [hsic_test()] take the median over the
#' pairs of 1000 evenly spaced samples, rows `round(seq(1, m, length.out =
#' 1000))` (as the approximations of [hsic()] do, see [approximations]), not
#' over all \eqn{m(m - 1)/2} pairs: deterministic, no random numbers drawn,
#' and spread over the whole data when its rows are sorted by class or batch.
#' Its cost does not grow with m: the 499,500 distances of the 1000 samples
#' and one selection among them, 0.007 s for 50 features (one x86-64 core),
#' where the median over all pairs took 0.25 s at m = 5000 (12.5 million
#' distances; `inst/bench/bench-hsic.R` times both). The width
#' then differs a little from the median over all pairs (a median of a
#' sample of the pairs). dHSIC's median heuristic likewise uses 1000
#' samples, but random ones (the first 1000 of the rows in an order drawn by
#' [sample()]) and the upper of the two middle distances, so its width
#' changes with the seed. With \eqn{m \le 1000}, where every pair is used,
#' and for an explicit `sigma`, nothing changes. The selectors ([bahsic()],
#' [fohsic()], [randsel()], ...), [feature_scores()] and the label kernels of
#' [label_kernel_regression()] keep the median over all samples. When all
#' pairs of the 1000 samples coincide, the median is taken over all samples.
#'
#' The distance kernels work on data of any scale: where the squared
#' distances would over- or underflow (values beyond about \eqn{2^{\pm 256}}),
#' they are computed on the data multiplied by a power of two, which is exact,
#' so the kernel is the same to the last bit. Only a median-heuristic width
#' that is itself beyond double precision (squared distances near 1e-310, as
#' for data whose largest differences are near 1e-155) is an error, which
#' asks to rescale `x` ([feature_scores()] rescales each feature itself, so
#' its per-feature widths always exist). The linear
#' and polynomial kernels are checked before any \eqn{m \times m} work: their
#' largest value, \eqn{(\max_i \|x_i\|^2 + \mathrm{offset})^\mathrm{degree}}
#' on the diagonal, summed over the \eqn{m^2} pairs must stay within double
#' precision, or an error names the degree and asks for a lower one or
#' rescaled data.
#'
#' @param degree,offset polynomial kernel \eqn{(\langle x, x'\rangle +
#'   \mathrm{offset})^\mathrm{degree}}; `degree` a positive whole number,
#'   `offset` >= 0.
#' @param sigma kernel width parameter (positive), or `NULL` for the median
#'   heuristic.
#' @param eps positive constant that keeps the inverse-distance kernel finite
#'   on the diagonal.
#' @param K a symmetric numeric matrix, samples x samples, in the order of the
#'   rows of the data it goes with: an ordinary matrix, or a `Matrix` (dense
#'   or sparse, e.g. a `dgCMatrix`), which is made dense. A kernel matrix is
#'   positive semi-definite. One that cannot be is an error: a negative
#'   diagonal entry (\eqn{K_{ii} = \|\phi(x_i)\|^2 \ge 0}) or an entry beyond
#'   \eqn{\sqrt{K_{ii} K_{jj}}} (Cauchy-Schwarz), such as `-tcrossprod(x)`. Up
#'   to 500 samples its eigenvalues are computed too, and a smallest
#'   eigenvalue below \eqn{-10^{-6}} times the largest is a warning (some
#'   similarities used as kernels, such as the inverse distance, can be
#'   indefinite; HSIC is then not a measure of dependence). The checks allow
#'   rounding errors of \eqn{10^{-6}} of the largest value.
#' @param ... not used: an argument that is none of the above is an error that
#'   names it and suggests the closest name.
#' @return An object of class `bahsic_kernel`.
#' @family kernels
#' @examples
#' x <- matrix(rnorm(40), 10, 4)
#' k <- kernel_gaussian()
#' k
#' K <- kernel_matrix(k, x)
#' dim(K)
#' kernel_matrix(kernel_polynomial(degree = 3), x)[1:3, 1:3]
#' @name kernels
NULL

#' @rdname kernels
#' @export
kernel_linear <- function(...) {
  check_dots(...)
  new_kernel("linear", label = "linear kernel <x, x'>")
}

#' @rdname kernels
#' @export
kernel_polynomial <- function(degree = 2, offset = 1, ...) {
  check_dots(...)
  if (!is.numeric(degree) || length(degree) != 1L || !is.finite(degree) ||
      degree < 1 || degree != round(degree)) {
    stop("'degree' must be a positive whole number.", call. = FALSE)
  }
  if (!is.numeric(offset) || length(offset) != 1L || !is.finite(offset) || offset < 0) {
    stop("'offset' must be a single finite number >= 0.", call. = FALSE)
  }
  new_kernel("polynomial", degree = as.double(degree), offset = as.double(offset),
             label = sprintf("polynomial kernel (<x, x'> + %g)^%g", offset, degree))
}

#' @rdname kernels
#' @export
kernel_gaussian <- function(sigma = NULL, ...) {
  check_dots(...)
  check_positive(sigma, "sigma", allow_null = TRUE)
  new_kernel("gaussian", sigma = sigma, label = "Gaussian kernel exp(-sigma ||x - x'||^2)")
}

#' @rdname kernels
#' @export
kernel_laplace <- function(sigma = NULL, ...) {
  check_dots(...)
  check_positive(sigma, "sigma", allow_null = TRUE)
  new_kernel("laplace", sigma = sigma, label = "Laplace kernel exp(-sigma ||x - x'||)")
}

#' @rdname kernels
#' @export
kernel_inverse_distance <- function(eps = 1e-6, ...) {
  check_dots(...)
  check_positive(eps, "eps")
  new_kernel("inverse_distance", eps = as.double(eps),
             label = sprintf("inverse-distance kernel 1 / (||x - x'|| + %g)", eps))
}

#' @rdname kernels
#' @export
kernel_precomputed <- function(K, ...) {
  check_dots(...)
  # a Matrix (sparse or dense) is made dense: the kernel is used whole
  if (methods::is(K, "Matrix") && length(dim(K)) == 2L) K <- as.matrix(K)
  if (!is.matrix(K) || !(is.numeric(K) || is.logical(K)) || nrow(K) != ncol(K)) {
    stop(sprintf(paste0("'K' must be a square numeric matrix (samples x samples), not %s. ",
                        "Give the kernel matrix as a matrix (as.matrix(K))."),
                 if (is.matrix(K)) sprintf("a %d x %d %s matrix", nrow(K), ncol(K), typeof(K))
                 else sprintf("a %s", class(K)[1L])), call. = FALSE)
  }
  if (!all(is.finite(K))) stop("'K' has missing or infinite values.", call. = FALSE)
  storage.mode(K) <- "double"
  if (!isSymmetric(unname(K), tol = 1e-10 * max(1, max(abs(K))))) {
    stop("'K' must be symmetric: a kernel matrix has K[i, j] == K[j, i].", call. = FALSE)
  }
  check_semidefinite(K)
  new_kernel("precomputed", K = K,
             label = sprintf("precomputed %d x %d kernel matrix", nrow(K), nrow(K)))
}

# A precomputed kernel matrix must be positive semi-definite. Two necessary
# conditions, O(m^2): no negative diagonal entry, and every |K[i, j]| at most
# sqrt(K[i, i] K[j, j]) (Cauchy-Schwarz); their violation is an error. Up
# to 500 samples (0.1 s) the smallest eigenvalue too, a warning when below
# -1e-6 times the largest, as an indefinite similarity is sometimes used as a
# kernel on purpose. Tolerance: 1e-6 of the largest value.
check_semidefinite <- function(K) {
  m <- nrow(K)
  scale <- max(abs(K))
  if (scale == 0) return(invisible())
  tol <- 1e-6 * scale
  fix <- paste0("Give a kernel matrix (e.g. tcrossprod(x), not -tcrossprod(x)), or make it ",
                "one, e.g. with Matrix::nearPD(K)$mat or by setting its negative ",
                "eigenvalues to 0.")
  dg <- diag(K)
  if (any(dg < -tol)) {
    i <- which.min(dg)
    stop(sprintf(paste0("'K' is not a kernel matrix: its diagonal entry K[%d, %d] = %s is ",
                        "negative, and a kernel has K[i, i] >= 0. %s"), i, i, format(dg[i]), fix),
         call. = FALSE)
  }
  root <- sqrt(pmax(dg, 0))
  for (j in feature_blocks(m, 256L)) {
    bound <- outer(root, root[j]) + tol
    bad <- which(abs(K[, j, drop = FALSE]) > bound, arr.ind = TRUE)
    if (nrow(bad)) {
      i <- bad[1L, 1L]
      k <- j[bad[1L, 2L]]
      stop(sprintf(paste0("'K' is not positive semi-definite: |K[%d, %d]| = %s exceeds ",
                          "sqrt(K[%d, %d] K[%d, %d]) = %s, which no kernel matrix does. %s"),
                   i, k, format(abs(K[i, k])), i, i, k, k, format(root[i] * root[k]), fix),
           call. = FALSE)
    }
  }
  if (m <= 500L) {
    ev <- eigen(K, symmetric = TRUE, only.values = TRUE)$values
    if (ev[m] < -1e-6 * max(abs(ev))) {
      warning(sprintf(paste0("'K' is not positive semi-definite: its smallest eigenvalue is ",
                             "%s, its largest %s. HSIC with an indefinite kernel is not a ",
                             "measure of dependence (it can be negative). %s"),
                      format(ev[m], digits = 3), format(ev[1L], digits = 3), fix),
              call. = FALSE)
    }
  }
  invisible()
}

#' @export
print.bahsic_kernel <- function(x, ...) {
  check_dots(..., .fn = "print", .allow = print_dot_args)
  cat(x$label, "\n", sep = "")
  if (kernel_has(x, "width")) {
    sigma <- x$params$sigma
    cat("  sigma = ", if (is.null(sigma)) "median heuristic" else format(sigma), "\n", sep = "")
  }
  invisible(x)
}

#' Gram matrix of a kernel
#'
#' Computes \eqn{K_{ij} = k(x_i, x_j)} in C for the rows (samples) of `x`.
#'
#' @param kernel a kernel from [kernel_gaussian()] and friends.
#' @param x samples x features: a numeric matrix or data.frame (a vector is
#'   one feature), a `Matrix` (e.g. sparse `dgCMatrix`) or `DelayedMatrix`,
#'   or a Bioconductor container (genes x samples, turned around), as
#'   everywhere in the package (\link{input-classes}); for
#'   [kernel_clinical()] a data frame may also have factor, character and
#'   logical columns.
#' @param threads number of threads for the C loops; the result does not
#'   depend on it. Default and limit: see \link{threads}.
#' @param ... not used: an argument that is none of the above is an error that
#'   names it and suggests the closest name.
#' @return The m x m Gram matrix, with attribute `"kernel"` holding the kernel
#'   with its width filled in when it was chosen by the median heuristic.
#' @family kernels
#' @examples
#' x <- matrix(rnorm(20), 5, 4)
#' K <- kernel_matrix(kernel_gaussian(sigma = 0.1), x)
#' all.equal(K[1, 2], exp(-0.1 * sum((x[1, ] - x[2, ])^2)))
#' @export
kernel_matrix <- function(kernel, x, threads = default_threads(), ...) {
  check_dots(...)
  check_kernel(kernel, "kernel", ridge = TRUE)
  threads <- check_threads(threads)
  # the one data path: sparse and out-of-memory matrices and Bioconductor
  # containers as everywhere else (?input-classes)
  x <- normalise_inputs(x, NULL, require_y = FALSE, clinical = is_clinical(kernel))$x
  gram(kernel, x, threads = threads, sample_median = TRUE)
}

# ridge: whether the caller takes kernel_ridge() (R/kernel-ridge.R); where: how
# the error for a caller that does not names it ("in randsel()").
check_kernel <- function(kernel, arg, ridge = FALSE, where = "here") {
  if (!inherits(kernel, "bahsic_kernel")) {
    stop(sprintf("'%s' must be a kernel such as kernel_gaussian() or kernel_linear().", arg),
         call. = FALSE)
  }
  if (!ridge && identical(kernel$name, "ridge")) ridge_unsupported(where)
  invisible()
}

# The median heuristic in C already falls back to the median over the pairs
# that do not tie when more than half do (discrete data, or residue near 0
# beside expressed values: the rule for ties, ?kernels and src/kernels.h); a
# median of 0 is left only when all samples are identical, where the kernel
# is constant and any width gives the same, zero, dependence: use 1. NaN:
# the feature's scale leaves no representable width (pairwise_median(); not
# reached from feature_scores(), which rescales each feature first).
feature_sigmas <- function(name, x, threads) {
  med <- .Call(C_median_columns, x, kernel_has(name, "squared"), threads)
  bad <- which(is.nan(med))
  if (length(bad)) {
    features <- colnames(x)[bad]
    if (is.null(features)) features <- as.character(bad)
    stop_width_range(x[, bad, drop = FALSE], kernel_has(name, "squared"), "x", features)
  }
  med[!is.finite(med) | med <= 0] <- 1
  1 / med
}

# The median of the pairwise squared distances (squared = TRUE) or distances
# between the rows of x, the median heuristic's: NA for fewer than 2 samples,
# 0 when all samples coincide. C computes it on x rescaled by a power of two
# when x's scale is extreme (exactly: the same number for ordinary data); an
# error when the median or its inverse, the width, is not a representable
# (normal) double in x's units.
pairwise_median <- function(x, squared, arg = "x", threads = 1L) {
  med <- .Call(C_median_pairwise, x, squared, threads)
  if (is.nan(med)) stop_width_range(x, squared, arg)
  med
}

# The error for data whose median heuristic width cannot be represented:
# x on so small a scale that 1 / median overflows (squared distances near
# 1e-310), or so large a one that it underflows. features: the columns of
# per-feature widths that fail.
stop_width_range <- function(x, squared, arg, features = NULL) {
  top <- max(abs(range(x)))
  small <- top < 1
  where <- if (is.null(features)) {
    sprintf("'%s'", arg)
  } else {
    sprintf("feature%s %s%s of '%s'", if (length(features) > 1L) "s" else "",
            paste0("'", utils::head(features, 3L), "'", collapse = ", "),
            if (length(features) > 3L) sprintf(" and %d more", length(features) - 3L) else "",
            arg)
  }
  stop(sprintf(paste0("The median heuristic cannot set a kernel width for %s: its values are so ",
                      "%s (largest %s) that the width 1 / median %sdistance between samples ",
                      "is beyond the range of double precision. Rescale '%s', e.g. with scale() ",
                      "or by %s it by a power of ten."),
               where, if (small) "small" else "large", format(top, digits = 3L),
               if (squared) "squared " else "", arg,
               if (small) "multiplying" else "dividing"),
       call. = FALSE)
}

# Stops before any m x m work when a linear or polynomial kernel would
# overflow on x. Its largest value is on the diagonal: |<x_i, x_j> + offset|
# <= max_i ||x_i||^2 + offset (Cauchy-Schwarz, offset >= 0), so
# (max_i ||x_i||^2 + offset)^degree bounds it, in O(m d) and in logs. HSIC
# sums m^2 kernel values (the C code rescales the products and squares of an
# extreme kernel, src/hsic.c, but not these sums): m^2 times the bound must
# stay below 2^1000, which leaves the label kernel room up to 2^23 within the
# largest double, about 2^1024.
check_kernel_range <- function(kernel, x, arg = "x") {
  if (identical(kernel$name, "ridge")) kernel <- kernel$params$base
  if (!kernel$name %in% c("linear", "polynomial") || nrow(x) == 0L || ncol(x) == 0L) {
    return(invisible())
  }
  polynomial <- kernel$name == "polynomial"
  degree <- if (polynomial) kernel$params$degree else 1
  offset <- if (polynomial) kernel$params$offset else 0
  top <- max(rowSums(x * x)) + offset
  log2_top <- degree * log2(top)
  m <- nrow(x)
  if (log2_top <= 1000 - 2 * log2(m)) return(invisible())
  size <- sprintf(paste0("is about 10^%.0f, and HSIC sums %d^2 such values: the sum must stay below ",
                         "about 10^301 (2^1000, with room for the label kernel)"),
                  log2_top * log10(2), m)
  if (polynomial) {
    stop(sprintf(paste0("The polynomial kernel of degree %g overflows on '%s': its largest value, ",
                        "(max_i ||x_i||^2 + offset)^degree = %s^%g, %s. Use a lower degree, or rescale ",
                        "'%s' so that max_i ||x_i||^2 + offset is nearer 1 (e.g. scale(%s) / ",
                        "sqrt(ncol(%s)))."),
                 degree, arg, format(top, digits = 3L), degree, size, arg, arg, arg),
         call. = FALSE)
  }
  stop(sprintf(paste0("The linear kernel overflows on '%s': its largest value, max_i ||x_i||^2 = %s, ",
                      "%s. Rescale '%s', e.g. with scale() or by dividing it by a power of ten."),
               arg, format(top, digits = 3L), size, arg),
       call. = FALSE)
}

kernel_param <- function(kernel) {
  switch(kernel$name,
         polynomial = c(kernel$params$degree, kernel$params$offset),
         gaussian = , laplace = c(if (is.null(kernel$params$sigma)) NA_real_ else
                                    kernel$params$sigma, 0),
         inverse_distance = c(kernel$params$eps, 0),
         c(0, 0))
}

# The samples the median heuristic of hsic(), hsic_test() and
# kernel_matrix() looks at: all m up to median_max_rows, else
# median_max_rows evenly spaced ones, the rows the approximate paths use
# (median_sigma(), R/approx.R): deterministic, no random numbers drawn, and
# spread over the whole data when its rows are sorted (by class, batch or
# time), where the first rows would not be.
median_max_rows <- 1000L
median_rows <- function(m, n_max = median_max_rows) {
  if (m <= n_max) seq_len(m) else unique(round(seq(1, m, length.out = n_max)))
}

# A kernel whose width is left to the median heuristic, with the width of
# the median over median_rows(m) when m > median_max_rows: O(n^2 d) for n =
# median_max_rows instead of a selection among m (m - 1) / 2 distances. The
# kernel as it is otherwise (gram() then takes the median from K's own
# distances), and when all pairs among those samples coincide (the median
# over all samples is then gram()'s).
sample_median_width <- function(kernel, x, arg = "x", threads = 1L) {
  if (nrow(x) <= median_max_rows) return(kernel)
  median_heuristic_kernel(kernel, x, arg, threads)
}

# The kernel with the median heuristic's width where it has a width left
# to set: the median over median_rows(m), all pairs up to median_max_rows
# (from the same distances and selection as C_gram's, so gram()'s width to
# the last bit), and gram()'s label. Unchanged when that median is 0 (all
# pairs coinciding: gram()'s fallback decides).
median_heuristic_kernel <- function(kernel, x, arg = "x", threads = 1L) {
  if (!kernel_has(kernel, "width") || !is.null(kernel$params$sigma)) return(kernel)
  m <- nrow(x)
  sampled <- m > median_max_rows
  if (sampled) x <- x[median_rows(m), , drop = FALSE]
  med <- pairwise_median(x, kernel_has(kernel, "squared"), arg, threads)
  if (med > 0) kernel <- median_width_kernel(kernel, 1 / med, if (sampled) median_max_rows)
  kernel
}

# hsic()'s kernel for its statistics from the data (C_hsic_stats_x, which
# holds a panel of K's columns, not K): the kernel with its width resolved as
# gram() resolves it (over median_rows(m): all pairs up to median_max_rows,
# from the same distances as C_gram's, so the same width to the last bit),
# or NULL where the Gram matrix is made whole: a precomputed, ridge or
# clinical kernel, and all sampled pairs coinciding (gram()'s fallback).
# Every m goes through the panels: at m = 500 and 1,000 the panels, in a
# work buffer kept between calls (src/scratch_call.c), cost less than the fresh
# pages of K and L (inst/bench/bench-hsic.R).
gram_panel_kernel <- function(kernel, x, arg = "x", threads = 1L) {
  if (!gram_panel_likely(kernel, nrow(x))) return(NULL)
  check_kernel_range(kernel, x, arg)
  kernel <- median_heuristic_kernel(kernel, x, arg, threads)
  if (kernel_has(kernel, "width") && is.null(kernel$params$sigma)) return(NULL)
  kernel
}

# Whether gram_panel_kernel() will give a kernel for m samples, as far as
# the kernel and m tell (all sampled pairs coinciding aside)
gram_panel_likely <- function(kernel, m) {
  m >= 2L && !kernel$name %in% c("precomputed", "ridge", "clinical")
}

# The kernel with the width sigma of the median heuristic (1 / the median)
# and gram()'s label for it: over all pairs, or (on) over the pairs of that
# many samples
median_width_kernel <- function(kernel, sigma, on = NULL) {
  kernel$params$sigma <- sigma
  kernel$label <- paste0(kernel$label, " (sigma by the median heuristic",
                         if (!is.null(on)) sprintf(" on %d samples", on), ")")
  kernel
}

# The options of C_gram and C_hsic_stats_x, read by name in C
# (src/gram_call.c), for a kernel whose width is given or NA (the median)
gram_opts <- function(kernel, threads) {
  p <- kernel_param(kernel)
  list(kernel = kernel_code(kernel), p1 = as.double(p[1L]), p2 = as.double(p[2L]),
       threads = threads, simd = option_simd())
}

# Gram matrix of a (possibly unresolved) kernel on a validated double matrix;
# arg names x in errors. sample_median: a width left to the median heuristic
# is the median over median_rows(m) (hsic(), hsic_test(), kernel_matrix());
# FALSE, over all pairs (the label kernels and what the selectors compute).
gram <- function(kernel, x, threads = 1L, arg = "x", sample_median = FALSE) {
  m <- nrow(x)
  if (kernel$name == "precomputed") {
    K <- kernel$params$K
    if (nrow(K) != m) {
      stop(sprintf("The precomputed kernel is %d x %d but the data have %d samples.",
                   nrow(K), nrow(K), m), call. = FALSE)
    }
    return(structure(K, kernel = kernel))
  }
  if (kernel$name == "ridge") return(ridge_gram(kernel, x, threads))
  if (kernel$name == "clinical") {
    check_memory(m, 1)
    return(clinical_gram(kernel, x, threads))
  }
  check_kernel_range(kernel, x, arg)
  if (sample_median) kernel <- sample_median_width(kernel, x, arg, threads)
  median_width <- kernel_has(kernel, "width") && is.null(kernel$params$sigma)
  # K, and the packed distances of the median heuristic
  check_memory(m, 1 + 0.5 * median_width)
  if (median_width && m < 2L) kernel$params$sigma <- 1
  # with p1 = NA the C code sets the width by the median heuristic from the
  # distances it computes anyway (on x rescaled by a power of two when x's
  # scale is extreme)
  opts <- gram_opts(kernel, threads)
  K <- .Call(C_gram, x, opts)
  if (median_width) {
    sigma <- attr(K, "p1")
    if (is.nan(sigma)) {
      # all samples identical: the kernel is constant whatever the width
      sigma <- 1
      opts$p1 <- sigma
      K <- .Call(C_gram, x, opts)
    } else if (!(sigma >= .Machine$double.xmin && sigma <= .Machine$double.xmax)) {
      stop_width_range(x, kernel_has(kernel, "squared"), arg)
    }
    kernel <- median_width_kernel(kernel, sigma)
  }
  attr(K, "p1") <- NULL
  if (!is.null(rownames(x))) dimnames(K) <- list(rownames(x), rownames(x))
  attr(K, "kernel") <- kernel
  K
}
