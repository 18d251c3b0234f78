#' Hilbert-Schmidt Independence Criterion
#'
#' Estimates the dependence between the samples' features `x` and their
#' outcome `y` by HSIC (Song et al. 2012, section 2). The unbiased estimator
#' HSIC1 is eq. 5; the biased estimator HSIC0 is
#' \eqn{\mathrm{tr}(KHLH) / (m - 1)^2} (eq. 4). Both are computed in
#' \eqn{O(m^2)} time from the Gram matrices (\eqn{O(m^2 c)} with a
#' classification label kernel of \eqn{c} classes), without forming the
#' centring matrix. The standard error is the square root of the variance of
#' HSIC1 (eq. 15), computed in \eqn{O(m^2)} through the vector \eqn{h} of
#' section 2.5; it describes the estimator under dependence (under
#' independence the U-statistic is degenerate: use [hsic_test()]).
#'
#' Note the scaling: dHSIC's `dhsic()` reports \eqn{\mathrm{tr}(KHLH) / m^2},
#' which is HSIC0 times \eqn{(m - 1)^2 / m^2}.
#'
#' **Which estimator.** `hsic()` estimates a value, so its default is the
#' unbiased HSIC1; the selectors, the per-feature scores and the tests rank
#' or compare values at one sample size and use the biased HSIC0, the
#' paper's choice for selection, which is never negative. Both are always
#' returned (`hsic0`, `hsic1`). Measured by `inst/bench/bench-defaults.R`
#' (Gaussian kernels, median widths, 20 data sets): on independent data the
#' mean HSIC0 was 0.035 at m = 10 and 0.0008 at m = 400 while HSIC1 averaged
#' about 0; on a dependent pair HSIC0 was 6.6, 1.8 and 1.0 times the value at
#' m = 10, 50 and 400, HSIC1 within the spread of its estimates (0.76-1.38
#' times); ranking 2,000 genes by per-feature HSIC with either estimator
#' found the same share of true genes (0.704 and 0.707 of the top 100).
#'
#' For many samples, `approx` avoids the \eqn{m \times m} matrices (see
#' [approximations]): `"ichol"` factors both kernels by pivoted incomplete
#' Cholesky, \eqn{K \approx GG^\top} (\eqn{m \times r}), and computes HSIC0,
#' HSIC1 and the variance of HSIC1 from the factors (section 2.6) in
#' \eqn{O(m r (d + r) + m r s)} time and \eqn{O(m (r + s))} memory, where
#' \eqn{s} is the rank of the label factor (the number of classes, 1 for the
#' binary kernel); `"rff"` does the same with random Fourier features of the
#' Gaussian or Laplace kernel, \eqn{O(m D d)}; `"block"` averages the exact
#' estimates within random blocks of \eqn{B} samples, \eqn{O(m B)}, with
#' the standard error from the spread of the block estimates. Classification
#' label kernels and the linear regression kernel are exactly low rank and are
#' used as they are; other regression label kernels are factored like the data
#' kernel. A width left to the median heuristic (`sigma = NULL`) is taken
#' from at most 1000 evenly spaced samples (all of them when \eqn{m \le
#' 1000}), as on the exact path (see "The median heuristic on many samples"
#' in [kernels]). With `"rff"` and `"block"` the result
#' depends on R's random number generator: use [set.seed()]. A precomputed
#' kernel cannot be approximated by `"ichol"` or `"rff"`. The default
#' `"exact"` is the computation above; when its matrices would exceed the
#' memory budget (option `bahsic.max_memory`) the error names the
#' approximations. Without covariates it holds no \eqn{m \times m} matrix
#' (a precomputed, ridge or clinical kernel aside): \eqn{K} (and a label
#' kernel on a one-column outcome) is made a panel of columns at a time,
#' some 1 MiB of them per thread (at most 16 MiB, so that each thread's
#' share is still in its core's cache when it is summed), and summed as it
#' is made, the same numbers to the last bit in \eqn{O(m)} memory, with no
#' time lost to the system's zeroing of fresh pages. The panels and the
#' median heuristic's distances live in a work buffer that the session
#' keeps between calls (at most 64 MiB of address space, of which only the
#' pages a call touched stay in memory), so repeated calls, as in
#' cross-validation, fault in no fresh memory: some 0.005 s a call at
#' m = 500, d = 50 on one thread (`inst/bench/bench-hsic.R`). On a busy
#' machine, where threads wait for cores that other processes hold, the
#' panels' threads are watched and the rest of the call runs on one thread
#' once they lose.
#'
#' @param x samples x features: a numeric matrix or data.frame, a `Matrix`
#'   (e.g. sparse `dgCMatrix`) or `DelayedMatrix` (e.g. HDF5-backed), an
#'   `ExpressionSet` or a `SummarizedExperiment` / `SingleCellExperiment`
#'   (genes x samples, turned around; its assay may be sparse or a
#'   `DelayedMatrix`, read in blocks of genes: see \link{input-classes}), or
#'   a formula `outcome ~ features` with `data`.
#' @param y the outcome, one value per sample: a factor (or character,
#'   logical) for classes, a numeric vector or matrix (one row per sample,
#'   several responses) for regression. For Bioconductor objects also the
#'   name of a column of the sample data. `NULL` with a precomputed label
#'   kernel (`kernel_y = `[label_kernel_precomputed()]`(L)`, which is then the
#'   labels). `y` has no default: leaving it out, or a `NULL` without a
#'   precomputed label kernel, is an error (a column that is not in the data
#'   is `NULL`); the selectors select without an outcome only when asked,
#'   with `unsupervised = TRUE` (see [bahsic()]).
#' @param kernel kernel on the samples' features, see [kernels]; with
#'   [kernel_clinical()] `x` may be a data frame with factor columns.
#' @param kernel_y label kernel, see [label_kernels]; `NULL` picks one from
#'   `y` with [default_label_kernel()].
#' @param estimator `"unbiased"` (HSIC1, needs at least 4 samples; the
#'   default of `hsic()`) or `"biased"` (HSIC0; the default of the
#'   selectors and scores): see "Which estimator" in Details.
#' @param na_action `"fail"` (default) stops at missing values; `"omit"` drops
#'   the samples that have them.
#' @param assay for a `SummarizedExperiment`, the assay to use.
#' @param threads number of threads for the Gram matrices; the result does
#'   not depend on it. Default and limit: see \link{threads}.
#' @param approx `"exact"` (the default), `"ichol"`, `"rff"`, `"block"`, or
#'   an approximation from [approx_ichol()], [approx_rff()] or
#'   [approx_block()] with its settings; see Details.
#' @template design-args
#' @param data for the formula interface, the data of the formula, as in
#'   [stats::lm()] (a `covariates` formula is evaluated in it too); for the
#'   default method, a data frame of the samples' annotation, one row per
#'   sample, in which a `covariates` formula (and a `block` given by name) is
#'   evaluated.
#' @param formula,subset,na.action formula interface, as in [stats::lm()].
#' @param ... for the formula interface, the arguments of the default method.
#'   A name that is none of the arguments documented here is an error that
#'   names it and suggests the closest; a unique prefix is accepted, as
#'   everywhere in R.
#' @return An object of class `bahsic_hsic`: a list with `estimate`,
#'   `estimator`, `se`, both estimates `hsic0` and `hsic1`, `m`, the kernels
#'   used (with widths filled in), the call and the approximation `approx`;
#'   with `"ichol"` and `"rff"` also `rank`, the columns of the data and label
#'   factors, with `"ichol"` `residual`, their residual traces
#'   \eqn{\mathrm{tr}(K - GG^\top) / \mathrm{tr}(K)} (`NA` for a label factor
#'   that is exact or random features), and with `"block"` `n_blocks`, the
#'   blocks per partition.
#' @references Song, L., Smola, A., Gretton, A., Bedo, J. and Borgwardt, K.
#'   (2012). Feature selection via dependence maximization. JMLR 13,
#'   1393-1434.
#' @family hsic
#' @seealso \link{input-checks} for what each kind of bad input gives.
#' @examples
#' set.seed(1)
#' x <- matrix(rnorm(200), 50, 4)
#' y <- x[, 1]^2 + rnorm(50, sd = 0.1)
#' hsic(x, y)
#' hsic(x[, 2:4], y)
#' cls <- factor(ifelse(x[, 1] > 0, "up", "down"))
#' hsic(x, cls, kernel = kernel_linear(), estimator = "biased")
#' # no m x m matrices: incomplete Cholesky, and blocks of 25 samples
#' hsic(x, y, approx = "ichol")
#' hsic(x, y, approx = approx_block(size = 25))
#' # given a batch that shifts both x and the outcome
#' batch <- factor(rep(c("a", "b"), each = 25))
#' xb <- x + (batch == "b") * 2
#' yb <- y + (batch == "b") * 2
#' hsic(xb, yb, estimator = "biased")
#' hsic(xb, yb, covariates = batch)
#' @export
hsic <- function(x, ...) {
  check_generic_args("hsic", if (!missing(x)) x, ...names())
  UseMethod("hsic")
}

#' @rdname hsic
#' @export
hsic.default <- function(x, y, kernel = kernel_gaussian(), kernel_y = NULL,
                         estimator = c("unbiased", "biased"),
                         na_action = c("fail", "omit"), assay = 1L, threads = default_threads(),
                         approx = "exact", covariates = NULL, block = NULL, data = NULL, ...) {
  check_dots(..., .fn = "hsic")
  design <- design_spec(covariates, block, data)
  estimator <- hsic_design_estimator(design, estimator, !missing(estimator))
  approx <- resolve_approx(approx)
  if (!is.null(design) && approx$name == "block") {
    design_refuse("hsic(approx = \"block\")", paste0(
      "its random blocks of samples cut across the design's strata and blocks. Use approx = ",
      "\"ichol\" or \"rff\", whose label factor is projected off the covariates."))
  }
  if (approx$name != "exact") {
    return(hsic_approx(x, y, kernel, kernel_y, estimator, approx, match.call(),
                       list(na_action = na_action, assay = assay, threads = threads,
                            design = design)))
  }
  unbiased <- estimator == "unbiased"
  prep <- hsic_prepare(x, y, kernel, list(
    kernel_y = kernel_y, na_action = na_action, assay = assay, threads = threads,
    min_m = if (unbiased) 4L else 2L, min_what = sprintf("The %s HSIC estimator", estimator),
    min_hint = if (unbiased) "Use estimator = \"biased\", which needs 2.",
    outcome_what = "hsic()", approximable = TRUE, design = design, panel = is.null(design),
    panel_label = TRUE))
  lab <- prep$label
  if (!is.null(prep$design)) return(hsic_design_result(prep, approx, match.call()))
  # the same numbers, to the last bit, with or without K (C_hsic_stats_x)
  st <- hsic_from(prep, "stats")
  m <- prep$m
  # st[4]: sqrt(max(variance, 0)), representable where the variance may not be
  se <- if (m >= 4L) st[4L] else NA_real_
  structure(list(estimate = if (estimator == "unbiased") st[2L] else st[1L],
                 estimator = estimator, se = se, hsic0 = st[1L],
                 hsic1 = if (m >= 4L) st[2L] else NA_real_, m = m,
                 kernel = if (is.null(prep$K)) prep$kernel_x else attr(prep$K, "kernel"),
                 kernel_y = lab$kernel,
                 call = match.call(), approx = approx),
            class = "bahsic_hsic")
}

#' @rdname hsic
#' @export
hsic.formula <- function(formula, data, subset, na.action, ...) {
  formula_method("hsic", match.call(), parent.frame(), list(...)[["kernel"]], ...)
}

#' @export
print.bahsic_hsic <- function(x, digits = max(3L, getOption("digits") - 3L), ...) {
  check_dots(..., .fn = "print", .allow = print_dot_args)
  cat(sprintf("HSIC (%s estimator) = %s, standard error %s, m = %d samples\n",
              x$estimator, format(x$estimate, digits = digits),
              format(x$se, digits = digits), x$m))
  cat("  data kernel:  ", x$kernel$label, format_sigma(x$kernel), "\n", sep = "")
  cat("  label kernel: ", x$kernel_y$label, "\n", sep = "")
  if (!is.null(x$design)) {
    cat("  design: ", x$design$text, " (label kernel residualised: tr(K P L P) / df^2, df = ",
        x$design$df, ")\n", sep = "")
  }
  if (!is.null(x$approx) && x$approx$name != "exact") {
    cat("  approximation: ", x$approx$label, sep = "")
    if (!is.null(x$rank)) {
      cat(sprintf("; %s %d and %d", if (x$approx$name == "rff") "features" else "ranks",
                  x$rank[["x"]], x$rank[["y"]]))
    }
    if (!is.null(x$n_blocks)) cat(sprintf("; %d blocks", x$n_blocks))
    cat("\n")
  }
  invisible(x)
}

format_sigma <- function(kernel) {
  sigma <- kernel$params$sigma
  if (is.null(sigma)) "" else sprintf(", sigma = %s", format(sigma, digits = 4))
}

# Shared by hsic(), hsic_test() and qmi(): the problem (prepare_problem())
# with the data kernel's Gram matrix K and the label Gram matrix (label).
# spec: kernel_y, na_action, assay, threads, min_m, min_what, min_hint,
# outcome_what, approximable (the memory error names the approximations) and
# panel: TRUE (hsic() and the gamma test without a design) for no K where the statistics can be
# had from the data, a panel of K's columns at a time (C_hsic_stats_x): then
# kernel_x, the kernel with its width, instead of K.
#
# Why panels, not K: K is 8 m^2 bytes of fresh pages (2 GB at m = 16,000),
# and the system's time to fault them in and zero them (and, with the
# huge-page hint, to compact memory for them) took most of hsic()'s time at
# that size (the packed triangle would halve that; a K-sized buffer kept
# between calls would hold it for the session). Every sum of the
# statistics runs over K's columns in order, so a panel of them (some
# 1 MiB a thread, at most 16 MiB: src/hsic.c's panel_cols()), made and
# used while in cache, gives every number to the last bit, with no m x m
# buffer and no pass over memory K's size. With a label of full columns (a one-column
# outcome, a full L) and a low-rank one (classes) a panel is made above its
# last column only, each element once, and a column's terms below its
# diagonal are taken from the later panels' rows in the same order
# (symmetric panels, src/hsic.c); in the gamma test a panel is both
# triangles, each element twice (its sum runs over K's elements in order):
# cheaper than the faults. The panels live in a work buffer of at most
# 64 MiB kept between calls (src/scratch_call.c), so that a call at small m
# (cross-validation's many calls) faults in no fresh pages either; hence
# panels at every m, not only above median_max_rows. The gamma test
# needs K's row means before its main sum, so it makes the panels twice. The
# label side is low rank (Y, m x c) for classes and the linear kernel; a full
# label L stays. The permutation test keeps K, which it rereads many times.
hsic_prepare <- function(x, y, kernel, spec) {
  check_kernel(kernel, "kernel", ridge = TRUE)
  spec$threads <- check_threads(spec$threads)
  approximable <- isTRUE(spec$approximable)
  panel <- isTRUE(spec$panel)
  pr <- prepare_problem(x, y, c(spec, list(
    kernel = kernel, min_first = TRUE, labels = if (panel) "kernel" else "gram", gram = !panel,
    memory = function(pr) {
      kernel_y <- pr$kernel_y
      full_label <- kernel_y$type == "regression" && kernel_y$params$kernel$name != "linear"
      # K and a full label kernel L, each with the median heuristic's
      # workspace, unless made a panel (at most 16 MiB) at a time
      panel_x <- panel && gram_panel_likely(kernel, pr$m)
      panel_y <- panel_x && isTRUE(spec$panel_label) && label_panel_likely(kernel_y, pr$y)
      check_memory(pr$m, 1.5 * ((!panel_x) + (full_label && !panel_y)),
                   approximable = approximable)
    })))
  if (panel) {
    pr$kernel_x <- gram_panel_kernel(kernel, pr$x, threads = pr$threads)
    if (is.null(pr$kernel_x)) {
      # where only K gives the width (gram() counts K against the budget)
      pr$K <- gram(kernel, pr$x, pr$threads, sample_median = TRUE)
    }
    pr$label <- if (is.null(pr$K) && isTRUE(spec$panel_label)) {
      panel_label(pr$kernel_y, pr$y, pr$threads)
    } else {
      label_gram(pr$kernel_y, pr$y, pr$threads)
    }
    pr$kernel_y <- pr$label$kernel
  }
  pr
}

# A statistic of hsic_prepare()'s problem ("stats": C_hsic_stats's four
# numbers, "gamma": C_hsic_gamma's five): from the data (C_hsic_stats_x,
# C_hsic_gamma_x) where it holds no K, the outcome as data where its label
# does (panel_label()), else from K; the same numbers to the last bit. The
# routines are named in each .Call (R CMD check resolves them there).
hsic_from <- function(prep, what = c("stats", "gamma")) {
  what <- match.arg(what)
  lab <- prep$label
  if (!is.null(prep$K)) {
    return(switch(what, stats = .Call(C_hsic_stats, prep$K, label_arg(lab)),
                  gamma = .Call(C_hsic_gamma, prep$K, label_arg(lab))))
  }
  opts <- gram_opts(prep$kernel_x, prep$threads)
  from_y <- !is.null(lab$src)
  label <- if (!from_y) label_arg(lab)
  y <- if (from_y) lab$src
  yopts <- if (from_y) gram_opts(lab$kernel$params$kernel, prep$threads)
  switch(what, stats = .Call(C_hsic_stats_x, prep$x, opts, label, y, yopts),
         gamma = .Call(C_hsic_gamma_x, prep$x, opts, label, y, yopts))
}

# Whether panel_label() will give the outcome rather than L, as far as the
# label kernel and the outcome tell (a median of 0 aside)
label_panel_likely <- function(kernel_y, y) {
  kernel_y$type == "regression" && NCOL(y) == 1L && !is_surv(y) && !is.factor(y) &&
    !kernel_y$params$kernel$name %in% c("precomputed", "linear", "ridge", "clinical")
}

# The label of hsic()'s statistics from the data (C_hsic_stats_x):
# label_gram()'s, but a regression kernel on a one-column outcome comes as
# the outcome itself, list(L = NULL, Y = NULL, src = the m x 1 outcome,
# kernel = the label kernel with its width), its L made a panel at a time
# in C, the width that of gram(): the median over all pairs, taken from the
# sorted outcome (O(m log m), no pairs held) with the same value.
panel_label <- function(kernel_y, y, threads) {
  if (!label_panel_likely(kernel_y, y)) return(label_gram(kernel_y, y, threads))
  ymat <- regression_outcome(y)
  kern <- kernel_y$params$kernel
  check_kernel_range(kern, ymat, "y")
  if (kernel_has(kern, "width") && is.null(kern$params$sigma)) {
    med <- if (nrow(ymat) >= 2L) pairwise_median(ymat, kernel_has(kern, "squared"), "y")
    # all outcomes equal, or a single one: gram()'s fallback
    if (!isTRUE(med > 0)) return(label_gram(kernel_y, y, threads))
    kern <- median_width_kernel(kern, 1 / med)
  }
  kernel_y$params$kernel <- kern
  list(L = NULL, Y = NULL, src = ymat, kernel = kernel_y)
}

#' Test of independence by HSIC
#'
#' Tests the null hypothesis that `x` and `y` are independent with the HSIC
#' statistic. `method = "gamma"` approximates the null distribution of
#' \eqn{m \cdot \mathrm{tr}(KHLH)/m^2} by a gamma distribution with matched
#' mean and variance (Gretton et al. 2008); it is fast and works well for
#' moderate to large m. `method = "permutation"` permutes the outcome
#' `n_perm` times with R's random number generator (reproducible under
#' [set.seed()]) and reports the proportion of permuted statistics at least
#' as large as the observed one, counting the observed one:
#' \eqn{(1 + \#\{T_b \ge T\}) / (1 + B)}.
#'
#' Like [hsic()], the gamma test without covariates makes the kernel
#' matrices a panel of columns at a time (twice: first for their row
#' means), never whole; the permutation test holds \eqn{K}, which it
#' rereads for every permutation.
#'
#' The gamma test follows Gretton et al.'s reference code (`hsicTestGamma`):
#' null mean \eqn{(\bar k_{ii} - \mu_x)(\bar l_{ii} - \mu_y)/m} and null
#' variance from the centred Gram matrices. `dHSIC::dhsic.test(method =
#' "gamma")` has the same statistic but estimates the two moments
#' differently (Pfister et al. 2018), so its p-values differ somewhat.
#'
#' **Parallel runs**: the Gram matrices are computed in this session (on
#' `threads` C threads) and so are the permutations, from R's random number
#' generator. With `method = "permutation"` and `parallel`, the permutations
#' go to the workers of the back end in chunks of 100, with the two kernel
#' matrices (once per task); their statistics come back in order, so the
#' p-value is the serial one whatever the back end. The gamma test has no
#' permutations: `n_perm`, `estimator` and `parallel` are errors with it.
#'
#' **Covariates and blocks**: with `covariates` or `block` the test is of
#' independence given the design: the features and a numeric outcome are
#' residualised on it, the statistic is \eqn{\mathrm{tr}(KPLP)}, the
#' permutations stay within the strata (exact for discrete covariates and
#' blocks) or permute the outcome's residuals (Freedman and Lane 1983) for a
#' continuous covariate, and the gamma test matches the moments of those
#' permutations. See "Covariates and blocks" in [hsic()] for the details and
#' the measured calibration.
#'
#' @inheritParams hsic
#' @eval roxygen_parallel("the permutations")
#' @param method `"gamma"` or `"permutation"`.
#' @param n_perm number of permutations.
#' @param estimator statistic of the permutation test (the gamma test always
#'   uses the biased statistic).
#' @return An object of class `htest`.
#' @references Gretton, A., Fukumizu, K., Teo, C. H., Song, L., Schoelkopf,
#'   B. and Smola, A. (2008). A kernel statistical test of independence. NIPS
#'   20.
#' @family hsic
#' @eval roxygen_progress("the permutations of `method = \"permutation\"`")
#' @examples
#' set.seed(2)
#' x <- matrix(rnorm(100), 50, 2)
#' y <- x[, 1] + rnorm(50)
#' hsic_test(x, y)
#' hsic_test(x, y, method = "permutation", n_perm = 200)
#' # x and y both shifted by a batch, independent within the batches
#' batch <- factor(rep(c("a", "b"), each = 25))
#' xb <- x[, 2] + (batch == "b") * 2
#' yb <- rnorm(50) + (batch == "b") * 2
#' hsic_test(xb, yb)
#' hsic_test(xb, yb, covariates = batch)
#' hsic_test(xb, yb, covariates = batch, method = "permutation", n_perm = 200)
#' @export
hsic_test <- function(x, ...) {
  check_generic_args("hsic_test", if (!missing(x)) x, ...names())
  UseMethod("hsic_test")
}

#' @rdname hsic_test
#' @export
hsic_test.default <- function(x, y, kernel = kernel_gaussian(), kernel_y = NULL,
                              method = c("gamma", "permutation"), n_perm = 1000L,
                              estimator = c("biased", "unbiased"),
                              na_action = c("fail", "omit"), assay = 1L, threads = default_threads(),
                              parallel = NULL, covariates = NULL, block = NULL, data = NULL,
                              ...) {
  check_dots(..., .fn = "hsic_test")
  design <- design_spec(covariates, block, data)
  method <- arg_match(method)
  if (method == "gamma") {
    # the gamma approximation has its own statistic (the biased one) and no draws
    if (!missing(n_perm)) stop_unused("n_perm", "method = \"permutation\"", "the gamma test")
    if (!missing(estimator)) stop_unused("estimator", "method = \"permutation\"", "the gamma test")
    if (!missing(parallel)) stop_unused("parallel", "method = \"permutation\"", "the gamma test")
  }
  estimator <- arg_match(estimator)
  if (!is.null(design)) estimator <- hsic_design_estimator(design, estimator, !missing(estimator))
  run <- check_parallel(parallel)
  # as feature_scores() checks it: 2.5 is an error, not 2 permutations
  check_whole(n_perm, "n_perm", 1L)
  dname <- paste(deparse1(substitute(x)), "and", deparse1(substitute(y)))
  min_m <- if (method == "gamma") 6L else if (estimator == "unbiased") 4L else 2L
  hint <- if (method == "gamma") {
    "Use method = \"permutation\", which needs 2 (4 with estimator = \"unbiased\")."
  } else if (estimator == "unbiased") {
    "Use estimator = \"biased\", which needs 2."
  }
  prep <- hsic_prepare(x, y, kernel, list(
    kernel_y = kernel_y, na_action = na_action, assay = assay, threads = threads,
    min_m = min_m, min_what = sprintf("The %s test", method), min_hint = hint,
    outcome_what = "hsic_test()", design = design,
    panel = is.null(design) && method == "gamma", panel_label = TRUE))
  lab <- prep$label
  m <- prep$m
  if (!is.null(prep$design) && method == "gamma") {
    g <- design_gamma(prep$K, lab, prep$design)
    out <- list(statistic = c("tr(K P L P) / m" = g$stat / m),
                parameter = c(shape = g$shape, scale = g$scale / m), p.value = g$p,
                estimate = c(HSIC0 = g$stat / prep$design$df^2),
                method = paste0("HSIC test of independence given ", prep$design$text,
                                " (gamma approximation, permutation moments)"))
  } else if (method == "gamma") {
    # g: the statistic, its null mean and variance, and the gamma distribution
    # with those moments (shape, scale; NaN when the mean or variance is 0)
    g <- hsic_from(prep, "gamma")
    stat <- g[1L]
    if (is.nan(g[4L])) {
      warning("A kernel is constant on these data: the gamma approximation is undefined.",
              call. = FALSE)
      shape <- scale <- p <- NA_real_
    } else {
      shape <- g[4L]
      scale <- g[5L]
      p <- stats::pgamma(stat, shape = shape, scale = scale, lower.tail = FALSE)
    }
    out <- list(statistic = c("m * HSIC_b" = stat), parameter = c(shape = shape, scale = scale),
                p.value = p, estimate = c(HSIC0 = stat / m * m^2 / (m - 1)^2),
                method = "HSIC test of independence (gamma approximation)")
  } else {
    out <- hsic_perm_test(prep, as.integer(n_perm), estimator, parallel, run)
    if (!is.null(prep$design)) {
      # tr(K P L P) / df^2, as hsic() reports it (C divides by (m - 1)^2)
      out$statistic <- out$statistic * (m - 1)^2 / prep$design$df^2
      out$method <- sprintf("HSIC test of independence given %s (%d permutations %s)",
                            prep$design$text, n_perm, design_perm_words(prep$design))
    }
  }
  out$data.name <- dname
  out$null.value <- c(HSIC = 0)
  out$alternative <- "greater"
  class(out) <- "htest"
  out
}

# The permutation test of hsic_test(): n_perm permutations of the labels drawn
# here (the caller's generator), their statistics in C, serially or in
# chunks through the back end `run` (check_parallel()) with a bar.
hsic_perm_test <- function(prep, n_perm, estimator, parallel, run) {
  lab <- prep$label
  m <- prep$m
  check_perm_size(n_perm, m)
  if (!is.null(prep$design)) {
    # tr(PKP pi W pi'): labels permuted within the strata, or their residuals
    # (R/design-kernel.R)
    perms <- design_perms(prep$design, n_perm)
    lab <- design_label(prep$design, lab)
    prep$K <- design_weights(prep$design, prep$K)
  } else {
    perms <- vapply(seq_len(n_perm), function(i) sample.int(m), integer(m))
  }
  if (m == 1L) perms <- matrix(perms, nrow = 1L)
  obs <- .Call(C_hsic_stats, prep$K, label_arg(lab))
  k <- if (estimator == "unbiased") 2L else 1L
  bar <- progress_start(n_perm)
  on.exit(progress_end(bar), add = TRUE)
  null <- if (is.null(parallel) && is.null(bar)) {
    .Call(C_hsic_perm, prep$K, label_arg(lab), perms)
  } else {
    # each permutation's statistics depend on it alone: chunks of them, in
    # order, are the serial run's (in this session, about 100 chunks for
    # the bar)
    size <- if (is.null(parallel)) max(1L, ceiling(n_perm / 100)) else 100L
    chunks <- chunk_units(n_perm, size)
    units <- lapply(chunks, function(i) perms[, i, drop = FALSE])
    perm_stats <- function(perms, K, label) .Call(C_hsic_perm, K, label, perms)
    do.call(cbind, run(units, ship(perm_stats, prep$K, label_arg(lab)),
                       progress = bar, amounts = lengths(chunks)))
  }
  null <- null[k, ]
  stat <- obs[k]
  # the size of the sums' terms, ||K|| ||L|| / (m - 1)^2: what a tie is
  # measured against (a statistic that is 0 up to rounding is a tie)
  # (norm(, "F") is LAPACK's dlange: scaled, no overflow at extreme scales)
  norm_l <- if (is.null(lab$Y)) norm(lab$L, "F") else norm(crossprod(lab$Y), "F")
  p <- perm_p_value(stat, null, norm(prep$K, "F") * norm_l / max(1, m - 1)^2)
  list(statistic = stats::setNames(stat, if (k == 2L) "HSIC1" else "HSIC0"),
       parameter = c(n_perm = n_perm), p.value = p,
       method = sprintf("HSIC test of independence (%d permutations)", n_perm))
}

#' @rdname hsic_test
#' @export
hsic_test.formula <- function(formula, data, subset, na.action, ...) {
  formula_method("hsic_test", match.call(), parent.frame(), list(...)[["kernel"]], ...)
}

# The permutation p-value (1 + #{T_b >= T}) / (1 + B), with a tolerance
# relative to `scale`, the size of the statistics or of the terms they sum,
# so that ties with the observed value count at any scale of the data (an
# absolute tolerance made every permuted statistic a tie at x * 1e-155).
perm_p_value <- function(obs, null, scale = max(abs(obs), abs(null))) {
  tol <- sqrt(.Machine$double.eps) * scale
  (1 + sum(null >= obs - tol)) / (1 + length(null))
}

# The weight matrix W with estimate(K) = sum(K * W): both estimators are
# linear in K, so one W made from the labels scores every candidate kernel
# in a single pass over its pairs (feature_scores(), and the selectors).
# Each m x m step is followed by an interrupt check (check_interrupt()).
weight_matrix <- function(lab, m, estimator = c("biased", "unbiased")) {
  estimator <- arg_match(estimator)
  L <- if (is.null(lab$Y)) lab$L else tcrossprod(lab$Y)
  check_interrupt()
  if (estimator == "biased") {
    # HSIC0 = tr(K HLH) / (m - 1)^2
    Lc <- L - rowMeans(L)
    check_interrupt()
    cm <- colMeans(Lc)
    Lc <- t(Lc)
    check_interrupt()
    Lc <- t(Lc - cm)
    check_interrupt()
    return(Lc / (m - 1)^2)
  }
  # eq. 5 with tr(K~L~), 1'K~1 and 1'K~L~1 written as sums of K_ab over a != b
  diag(L) <- 0
  l1 <- rowSums(L)
  W <- L + sum(l1) / ((m - 1) * (m - 2))
  check_interrupt()
  W <- W - outer(l1, l1, "+") / (m - 2)
  check_interrupt()
  diag(W) <- 0
  W / (m * (m - 3))
}
