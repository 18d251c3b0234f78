#' Feature selection by HSIC: BAHSIC and FOHSIC
#'
#' `bahsic()` is backward elimination (Algorithm 1 of Song et al. 2012):
#' starting from all features it repeatedly removes the features whose
#' removal leaves the largest HSIC between the remaining features and the
#' outcome, so the features that survive longest rank first. `fohsic()` is
#' forward selection (Algorithm 2): it repeatedly adds the features that
#' make the HSIC of the selected set largest. Both rank every feature (or
#' stop at `n_features`) and return a [`bahsic_selection`][selected] object.
#'
#' **Kernel widths** (section 4.1, step 3 of the algorithms) are set at the
#' start of every iteration:
#' * `"dimension"`: for standardised features the expected squared distance
#'   between two samples is twice the number of features s, so the Gaussian
#'   width is \eqn{\sigma = 1/(2s)} (Laplace: \eqn{1/\sqrt{2s}}); s is the
#'   size of the surviving set for BAHSIC and of the selected set plus the
#'   candidate for FOHSIC.
#' * `"optimize"`: the width in `sigma_grid` that maximises HSIC of the
#'   current set (BAHSIC: the surviving features; FOHSIC: the selected ones,
#'   or all features in the first iteration); by default the grid is the
#'   median-heuristic width of that set times \eqn{2^{-3}, \ldots, 2^3}.
#' * `"fixed"`: the kernel's own `sigma` throughout (with `sigma = NULL`, the
#'   median heuristic on all standardised features, once).
#' Kernels without a width (linear, polynomial, inverse distance, clinical)
#' are used as given (`"fixed"`): `"dimension"` and `"optimize"` are errors
#' with them, as `sigma_grid` is with a policy other than `"optimize"`.
#'
#' **Linear kernel**: HSIC then decomposes over features (section 5.1.1),
#' BAHSIC and FOHSIC both reduce to ranking the features by their own
#' contribution \eqn{x_j^\top W x_j}, and that is what is done, in one pass;
#' the scores and path are those the algorithm would report.
#'
#' **Cost**: each iteration scores every candidate with one pass over the
#' \eqn{m(m-1)/2} pairs of samples, from the squared distances of the
#' current set, which are updated (not recomputed) as features leave or
#' join. With `drop = 0.1` the total is about \eqn{10 d} candidate passes.
#' `drop = 0` (one feature at a time) costs about \eqn{d^2 / 2}.
#'
#' **Ties** in the criterion are broken by column order: the feature that
#' comes first in `x` ranks better.
#'
#' **Unsupervised selection** (section 10 of Song et al. 2012: "using the
#' full data set X as the labels"): with `unsupervised = TRUE` (and no `y`),
#' or a one-sided formula `~ .`, the labels are the data themselves, standardised (every feature
#' centred and scaled to unit variance, a constant one kept at 0), with a
#' Gaussian label kernel whose width is the median heuristic
#' (`label_kernel_regression(kernel_gaussian())`; `kernel_y` overrides it,
#' e.g. `label_kernel_regression(kernel_linear())`). The selected features
#' are those whose kernel keeps the most dependence with the whole data: on
#' data driven by a few latent factors, features that cover the factors.
#' Everything else (width policies, `approx`) is as with an outcome, and
#' `settings$unsupervised` is `TRUE`. Memory: the labels are a second \eqn{m
#' \times d} copy of the data, and on the exact path their Gaussian kernel
#' is an \eqn{m \times m} matrix (with `approx = "block"` only its blocks,
#' with `"ichol"` and `"rff"` a factor of it). With
#' `kernel_y = `[label_kernel_precomputed()]`(L)` and `y = NULL`, \eqn{L}
#' is the labels instead of the data. A `y` that is `NULL` otherwise is an
#' error, not unsupervised selection: it is more often a column that is not
#' in the data (`pheno$class` for a column `Class`) than a wish.
#'
#' **Many samples** (`approx`): the exact loop keeps \eqn{m(m-1)/2} squared
#' distances and weights, so its memory grows as \eqn{m^2} (20,000 samples:
#' 8 GB). With `approx = "block"` (or [approx_block()]) HSIC of every
#' candidate set is the block estimate: the samples are split at random
#' (`sample.int()`, so `set.seed()` fixes it) into blocks of `size`, the last
#' one taking the remainder, and the HSIC estimates within the blocks are
#' averaged. The same loop then runs over the pairs within blocks only: a
#' candidate costs \eqn{O(mB)} instead of \eqn{O(m^2)} and the memory is
#' \eqn{O(mB)} besides the data. With `n_partitions > 1` the blocks of all
#' partitions are averaged; the data are then copied once per partition
#' (`n_partitions` times \eqn{m \times d} doubles). As in [hsic()] with
#' `approx = "block"` (the same blocks under the same seed), the kernels are
#' fixed on all samples before the blocks are formed: the label kernel's
#' class weights from all samples, a regression label kernel's width and a
#' `"fixed"` width without `sigma` by the median heuristic on at most 1000
#' samples. The blocks used are returned in `settings$blocks` (sample indices
#' per block). With `size >= m` the block estimate is the exact one, and the
#' result is that of `approx = "exact"`.
#'
#' With `approx = "rff"` (or [approx_rff()], Gaussian and Laplace kernels,
#' `sigma = "dimension"` or `"fixed"`) the kernel of every set is replaced by
#' \eqn{D} random Fourier features (Rahimi and Recht 2007): \eqn{D}
#' standard frequencies per feature are drawn once (R's RNG, as [hsic()]
#' draws them), the projections of the current set on them (\eqn{m \times
#' D}) are updated as features leave or join, a candidate's features
#' \eqn{\sqrt{2/D}\cos(\cdot + b)} are formed at the iteration's width and
#' HSIC0 or HSIC1 is computed from them and the label factor as in
#' [hsic()] (section 2.6): \eqn{O(m D s)} per candidate (s the rank of the
#' label kernel), \eqn{O(m D)} memory per thread. Each candidate evaluates
#' \eqn{mD} cosines, so for a full ranking `"block"` is much faster; `"rff"`
#' suits fewer candidates (`n_features`, or FOHSIC with few features to add).
#'
#' With `approx = "ichol"` (or [approx_ichol()], `bahsic()` only, any kernel
#' but the linear and clinical ones; widths by `"dimension"` or `"fixed"`)
#' every iteration factors the kernel of the surviving set by pivoted
#' incomplete Cholesky (section 2.6; `tol`, `max_rank` r) and keeps its
#' pivots: a candidate's kernel is the Nystrom approximation on those
#' pivots, its columns at the pivots updated from the set's
#' (\eqn{O(m r)}), factored in the same pivot order (\eqn{O(m r^2)}) and
#' scored with the label factor as in [hsic()]; \eqn{O(m r)} memory per
#' thread besides a copy of the data. The rank cap of every iteration is the
#' rank of the factor of all features at the first iteration's width, which
#' is computed first: when its residual trace is above 1% of the kernel's
#' trace, `bahsic()` warns once (see [approximations]). No approximation is
#' available with [kernel_clinical()].
#'
#' @inheritParams hsic
#' @param kernel kernel on the features, see [kernels]; not a precomputed
#'   kernel (features are removed and added, so the kernel must be a function
#'   of them). With [kernel_clinical()], `x` may be a data frame with factor
#'   columns, and every candidate is scored in O(1) from per-feature terms
#'   (see [kernel_clinical()]).
#' @param estimator `"biased"` (HSIC0, the paper's choice for selection) or
#'   `"unbiased"` (HSIC1).
#' @param sigma width policy for Gaussian and Laplace kernels: `"dimension"`,
#'   `"optimize"` or `"fixed"`, see Details.
#' @param sigma_grid for `sigma = "optimize"`: positive widths to choose from;
#'   `NULL` for a grid around the median heuristic.
#' @param drop fraction of the surviving features removed per iteration, in
#'   \[0, 1); at least one feature is removed; 0 removes one at a time.
#' @param add for `fohsic()`: fraction of the remaining features added per
#'   iteration, in \[0, 1); 0 adds one at a time.
#' @param n_features stop when this many features remain (`bahsic()`) or are
#'   selected (`fohsic()`); `NULL` ranks all features.
#' @param standardize centre and scale every feature to unit variance first
#'   (the `"dimension"` policy assumes it).
#' @param threads number of threads for the candidate loop; the result does
#'   not depend on it. Default and limit: see \link{threads}.
#' @param verbose report every iteration (size of the set, HSIC, width) as a message.
#' @param approx `"exact"`, `"block"`, `"rff"` or `"ichol"` (`bahsic()`
#'   only), or an approximation from [approx_block()], [approx_rff()] or
#'   [approx_ichol()]; see Details and [approximations].
#' @param unsupervised `TRUE` to select without an outcome, the data being
#'   their own labels (see Details); `y` is then left out (or `NULL`). A `y`
#'   that is `NULL` without it is an error.
#' @return An object of class `bahsic_selection`, see [selected()].
#' @references Song, L., Smola, A., Gretton, A., Bedo, J. and Borgwardt, K.
#'   (2012). Feature selection via dependence maximization. JMLR 13,
#'   1393-1434.
#' @family selection
#' @seealso \link{input-checks} for what each kind of bad input gives.
#' @examples
#' fit <- bahsic(golub$x[, 1:200], golub$y)
#' fit
#' selected(fit, 5)
#' set.seed(1)
#' sim <- simulate_xor(100)
#' bahsic(sim$x, sim$y, n_features = 2)
#' fohsic(sim$x, sim$y, n_features = 5, kernel = kernel_gaussian())
#' # the block estimator: O(m B) per candidate instead of O(m^2)
#' set.seed(2)
#' sim <- simulate_xor(400)
#' fit <- bahsic(sim$x, sim$y, approx = approx_block(size = 50))
#' selected(fit, 2)
#' # unsupervised: two latent factors, each behind 3 of the 8 features
#' set.seed(3)
#' f <- matrix(rnorm(120), 60, 2)
#' x <- cbind(f[, 1] + matrix(rnorm(180, sd = 0.3), 60, 3),
#'            f[, 2] + matrix(rnorm(180, sd = 0.3), 60, 3), matrix(rnorm(120), 60, 2))
#' bahsic(x, unsupervised = TRUE)
#' @export
bahsic <- function(x, ...) {
  check_generic_args("bahsic", if (!missing(x)) x, ...names())
  UseMethod("bahsic")
}

#' @rdname bahsic
#' @export
bahsic.default <- function(x, y, kernel = kernel_gaussian(), kernel_y = NULL,
                           estimator = c("biased", "unbiased"),
                           sigma = c("dimension", "optimize", "fixed"), sigma_grid = NULL,
                           drop = 0.1, n_features = NULL, standardize = TRUE, threads = default_threads(),
                           verbose = FALSE, na_action = c("fail", "omit"), assay = 1L,
                           approx = "exact", unsupervised = FALSE, ...) {
  check_dots(..., .fn = "bahsic")
  hsic_select("bahsic", x, y, kernel = kernel, kernel_y = kernel_y, approx = approx,
              estimator = arg_match(estimator),
              sigma = if (!missing(sigma)) arg_match(sigma),
              sigma_grid = sigma_grid, step = drop, step_arg = "drop",
              n_features = n_features, standardize = standardize, threads = threads,
              verbose = verbose, na_action = na_action, assay = assay, call = match.call(),
              unsupervised = unsupervised)
}

#' @rdname bahsic
#' @export
bahsic.formula <- function(formula, data, subset, na.action, ...) {
  formula_method("bahsic", match.call(), parent.frame(), list(...)[["kernel"]], ...)
}

#' @rdname bahsic
#' @export
fohsic <- function(x, ...) {
  check_generic_args("fohsic", if (!missing(x)) x, ...names())
  UseMethod("fohsic")
}

#' @rdname bahsic
#' @export
fohsic.default <- function(x, y, kernel = kernel_gaussian(), kernel_y = NULL,
                           estimator = c("biased", "unbiased"),
                           sigma = c("dimension", "optimize", "fixed"), sigma_grid = NULL,
                           add = 0.1, n_features = NULL, standardize = TRUE, threads = default_threads(),
                           verbose = FALSE, na_action = c("fail", "omit"), assay = 1L,
                           approx = "exact", unsupervised = FALSE, ...) {
  check_dots(..., .fn = "fohsic")
  hsic_select("fohsic", x, y, kernel = kernel, kernel_y = kernel_y, approx = approx,
              estimator = arg_match(estimator),
              sigma = if (!missing(sigma)) arg_match(sigma),
              sigma_grid = sigma_grid, step = add, step_arg = "add",
              n_features = n_features, standardize = standardize, threads = threads,
              verbose = verbose, na_action = na_action, assay = assay, call = match.call(),
              unsupervised = unsupervised)
}

#' @rdname bahsic
#' @export
fohsic.formula <- function(formula, data, subset, na.action, ...) {
  formula_method("fohsic", match.call(), parent.frame(), list(...)[["kernel"]], ...)
}

# The one path of both selectors: inputs, labels, weights, then the C loop
# (or the one-pass linear case), then the shared result class.
hsic_select <- function(method, x, y, kernel, kernel_y, estimator, sigma, sigma_grid, step,
                        step_arg, n_features, standardize, threads, verbose, na_action, assay,
                        call, approx = "exact", unsupervised = FALSE) {
  check_flag(unsupervised, "unsupervised")
  if (unsupervised && missing(y)) y <- NULL
  check_kernel(kernel, "kernel", ridge = TRUE)
  # the width policy (NULL: not given) applies to kernels with a width, also
  # as the base of kernel_ridge(); a Parzen window keeps its bandwidth (R/qmi.R)
  parzen <- inherits(kernel, "bahsic_parzen")
  base <- if (is_ridge(kernel)) kernel$params$base else kernel
  if (is.null(sigma)) {
    sigma <- if (parzen) "fixed" else "dimension"
  } else if (sigma != "fixed" && !base$name %in% c("gaussian", "laplace")) {
    # "fixed" (the kernel as given) holds for every kernel; a policy that
    # changes a width needs a kernel that has one
    stop_unused(sprintf("sigma = \"%s\"", sigma), "a Gaussian or Laplace kernel",
                sprintf("%s kernel", kernel_noun(base$name)))
  } else if (parzen && sigma != "fixed") {
    stop(sprintf(paste0("sigma = \"%s\" would change the bandwidth of a Parzen window: ",
                        "kernel_parzen() keeps its own (sigma = \"fixed\")."), sigma),
         call. = FALSE)
  }
  if (!is.null(sigma_grid) && sigma != "optimize") {
    stop_unused("sigma_grid", "sigma = \"optimize\"", sprintf("sigma = \"%s\"", sigma))
  }
  if (kernel$name == "precomputed") {
    stop(paste0("'kernel' cannot be a precomputed kernel: ", method, "() removes and adds ",
                "features, so the kernel must be computed from them."), call. = FALSE)
  }
  approx <- resolve_approx(approx)
  if (is_ridge(kernel)) ridge_check_approx(approx)
  block <- approx$name == "block"
  rff <- approx$name == "rff"
  ichol <- approx$name == "ichol"
  clinical <- is_clinical(kernel)
  if (clinical && approx$name != "exact") {
    stop(sprintf(paste0("approx = \"%s\" is not available with kernel_clinical(), which scores ",
                        "every feature from per-feature kernel matrices: use approx = \"exact\"."),
                 approx$name), call. = FALSE)
  }
  if (rff && !kernel$name %in% c("gaussian", "laplace")) {
    stop(sprintf(paste0("approx = \"rff\" (random Fourier features) needs a Gaussian or Laplace ",
                        "kernel; 'kernel' is a %s kernel. Use approx = \"block\"."), kernel$name),
         call. = FALSE)
  }
  if (ichol && method == "fohsic") {
    stop(paste0("approx = \"ichol\" is available in bahsic() only (its pivots come from the ",
                "surviving set; fohsic() starts from the empty set): use approx = \"rff\" or ",
                "\"block\"."), call. = FALSE)
  }
  if (ichol && kernel$name == "linear") {
    stop(paste0("approx = \"ichol\" is not needed with the linear kernel, whose selection ",
                "costs one pass over the samples per feature: use approx = \"exact\"."),
         call. = FALSE)
  }
  if ((rff || ichol) && sigma == "optimize" && kernel$name %in% c("gaussian", "laplace")) {
    stop(sprintf(paste0("sigma = \"optimize\" is not available with approx = \"%s\": use sigma = ",
                        "\"dimension\" or \"fixed\", or approx = \"block\"."), approx$name),
         call. = FALSE)
  }
  if (!is.numeric(step) || length(step) != 1L || !is.finite(step) || step < 0 || step >= 1) {
    stop(sprintf("'%s' must be a fraction in [0, 1): 0.1 %s 10%% of the features per iteration, 0 one at a time.",
                 step_arg, if (step_arg == "drop") "removes" else "adds"), call. = FALSE)
  }
  if (!is.null(sigma_grid) && (!is.numeric(sigma_grid) || length(sigma_grid) == 0L ||
                               any(!is.finite(sigma_grid)) || any(sigma_grid <= 0))) {
    stop("'sigma_grid' must be a vector of positive widths, or NULL for a grid around the median heuristic.",
         call. = FALSE)
  }
  check_flag(standardize, "standardize")
  check_flag(verbose, "verbose")
  threads <- check_threads(threads)

  d <- normalise_inputs(x, y, na_action = arg_match(na_action, c("fail", "omit")),
                        assay = assay, clinical = clinical, require_y = FALSE)
  # unsupervised (the standardised data are the labels), or the labels are a
  # precomputed label kernel
  d <- resolve_outcome(d, kernel_y, unsupervised)
  kernel_y <- d$kernel_y
  xs <- d$x
  m <- nrow(xs)
  p <- ncol(xs)
  check_min_samples(m, if (estimator == "unbiased") 4L else 3L,
                    sprintf("%s() with the %s estimator", method, estimator),
                    if (estimator == "unbiased") "Use estimator = \"biased\", which needs 3.")
  if (!is.null(n_features)) {
    if (!is.numeric(n_features) || length(n_features) != 1L || !is.finite(n_features) ||
        n_features < 1 || n_features > p || n_features != round(n_features)) {
      stop(sprintf("'n_features' must be a whole number from 1 to %d (the number of features), or NULL.",
                   p), call. = FALSE)
    }
  }
  # the clinical kernel scales by range itself
  if (clinical) standardize <- FALSE
  if (standardize) xs <- standardize_columns(xs, d$features)
  check_kernel_range(kernel, xs)
  kernel_y <- resolve_label_kernel(kernel_y, d$y)
  blocks <- NULL
  if (block) {
    blocks <- block_partition(m, approx$params$size, approx$params$n_partitions)
    check_block_memory(blocks, approx$params$size)
    # the partitions stacked: row i of xs is sample blocks$rows[i]
    if (!identical(blocks$rows, seq_len(m))) xs <- xs[blocks$rows, , drop = FALSE]
    bw <- block_weights(kernel_y, d$y, blocks, estimator, threads)
    lab_kernel <- bw$kernel
  } else if (ichol) {
    fy <- label_factor(kernel_y, d$y, approx, warn = FALSE)
    lab_kernel <- fy$kernel
  } else if (rff) {
    # the standard frequencies and phases, drawn as rff_features() draws
    # them (so hsic(approx = "rff") under the same seed uses the same ones):
    # N(0, 1), then for the Laplace kernel divided by |N(0, 1)| per feature
    n_rff <- approx$params$n_features
    omega <- matrix(stats::rnorm(n_rff * p), n_rff, p)
    if (kernel$name == "laplace") omega <- omega / abs(stats::rnorm(n_rff))
    phase <- stats::runif(n_rff, 0, 2 * pi)
    fy <- label_factor(kernel_y, d$y, approx)
    lab_kernel <- fy$kernel
    check_select_factor_memory(m, p, n_rff, ncol(fy$F), threads, approx)
  } else {
    check_memory(m, 5, approximable = TRUE)
    lab <- label_gram(kernel_y, d$y, threads)
    lab_kernel <- lab$kernel
    W <- weight_matrix(lab, m, estimator)
  }

  width <- kernel$name %in% c("gaussian", "laplace")
  policy <- if (width) sigma else "fixed"
  if (width && policy == "fixed" && is.null(kernel$params$sigma)) {
    # all samples on the exact path, as before; at most 1000 on the block path
    kernel$params$sigma <- median_sigma(xs, kernel$name == "gaussian",
                                        n_max = if (approx$name == "exact") m else 1000L)
  }

  if (is_ridge(kernel)) {
    # section 6.6: RFE / forward selection with ridge regression (kernel-ridge.R)
    res <- ridge_select(method, xs, W, kernel, sigma, sigma_grid, step, n_features, verbose)
    kernel <- res$kernel
  } else if (kernel$name == "linear") {
    s <- if (block) {
      block_feature_dot(xs, bw, threads)
    } else {
      .Call(C_feature_dot, xs, W, linear_dot_opts(threads))
    }
    res <- linear_select(method, s, step, n_features)
  } else {
    # the options of C_select, read by name in C (src/select_call.c): the
    # common ones, then the estimator's own
    mode <- if (block) "block" else if (rff) "rff" else if (ichol) "ichol" else "exact"
    par <- kernel_param(kernel)
    opts <- list(mode = mode_code(mode), kernel = kernel_code(kernel),
                 p1 = as.double(par[1L]), p2 = as.double(par[2L]),
                 direction = direction_code(method), policy = policy_code(policy),
                 grid = if (is.null(sigma_grid)) 2^(-3:3) else sort(as.double(sigma_grid)),
                 grid_relative = is.null(sigma_grid), step = as.double(step),
                 n_target = if (is.null(n_features)) 0L else n_features, threads = threads,
                 verbose = verbose, simd = use_simd())
    unbiased <- estimator == "unbiased"
    opts <- c(opts, switch(mode,
      exact = c(list(W = W), if (clinical) list(categorical = clinical_flags(xs))),
      block = list(blocks = blocks$row0, W = bw$W),
      rff = list(omega = omega, phase = phase, F = fy$F, unbiased = unbiased),
      ichol = list(tol = as.double(approx$params$tol),
                   max_rank = ichol_select_rank(xs, kernel, policy, approx, fy, threads),
                   F = fy$F, unbiased = unbiased)
    ))
    res <- .Call(C_select, xs, opts)
  }

  features <- data.frame(feature = d$features,
                         rank = ifelse(res$rank > 0L, res$rank, NA_integer_),
                         score = ifelse(is.nan(res$score), NA_real_, res$score),
                         iteration = ifelse(res$iteration > 0L, res$iteration, NA_integer_),
                         stringsAsFactors = FALSE)
  path <- as.data.frame(res$path)
  names(path) <- c("iteration", "n_features", "hsic", "sigma")
  path$sigma[is.nan(path$sigma)] <- NA_real_
  path$iteration <- as.integer(path$iteration)
  path$n_features <- as.integer(path$n_features)
  settings <- list(kernel = kernel, kernel_y = lab_kernel, estimator = estimator,
                   sigma = if (width) sigma else NA_character_, sigma_grid = sigma_grid,
                   step = step, n_features = n_features, standardize = standardize,
                   n_samples = m, threads = threads, approx = approx$label)
  # the blocks of samples (indices into the rows of x), to reproduce the estimate
  if (block) settings$blocks <- blocks$list
  if (d$unsupervised) settings$unsupervised <- TRUE
  names(settings)[names(settings) == "step"] <- step_arg
  # report the call as the user wrote it: bahsic(...), not bahsic.default(...)
  call[[1L]] <- as.name(method)
  new_selection(method, features, path, settings, call)
}

standardize_columns <- function(x, features) {
  # in C, one pass per column: the same numbers as sweep() with colMeans()
  # and colSums(), without their m x d temporaries
  res <- .Call(C_standardize_columns, x)
  constant <- res[[2L]]
  if (any(constant)) {
    warning(sprintf(paste0("%d constant feature%s (%s%s) cannot be standardised: ",
                           "kept at 0, they carry no information about the outcome."),
                    sum(constant), if (sum(constant) > 1) "s" else "",
                    paste(utils::head(features[constant], 3), collapse = ", "),
                    if (sum(constant) > 3) ", ..." else ""), call. = FALSE)
  }
  res[[1L]]
}

# Section 5.1.1: with a linear kernel HSIC(T) = sum_{j in T} s_j with
# s_j = x_j' W x_j, so HSIC(S \ {j}) = HSIC(S) - s_j and HSIC(S+ U {j}) =
# HSIC(S+) + s_j: the elimination (or addition) order is the order of s_j,
# whatever the schedule. Walk the schedule to report the same scores and
# path as Algorithm 1 or 2 would.
linear_select <- function(method, s, step, n_features) {
  p <- length(s)
  rank <- integer(p)
  score <- rep(NA_real_, p)
  iteration <- integer(p)
  path <- matrix(numeric(0), 0L, 4L)
  batch_size <- function(n) max(1L, floor(step * n))
  if (method == "bahsic") {
    # eliminate the smallest s_j first; ties: the higher index first
    elim <- order(s, -seq_len(p))
    target <- if (is.null(n_features)) 0L else n_features
    left <- p
    pos <- 0L
    it <- 0L
    while (left > target) {
      it <- it + 1L
      surv <- elim[(pos + 1L):p]
      h <- sum(s[surv])
      k <- min(batch_size(left), left - target)
      out <- elim[pos + seq_len(k)]
      score[out] <- h - s[out]
      iteration[out] <- it
      path <- rbind(path, c(it, left, h, NA))
      pos <- pos + k
      left <- left - k
    }
    if (left > 0L) {
      it <- it + 1L
      surv <- elim[(pos + 1L):p]
      h <- sum(s[surv])
      score[surv] <- h - s[surv]
      iteration[surv] <- it
      path <- rbind(path, c(it, left, h, NA))
    }
    ranked <- rev(elim)
    rank[ranked] <- seq_len(p)
  } else {
    # add the largest s_j first; ties: the lower index first
    add <- order(-s, seq_len(p))
    target <- if (is.null(n_features)) p else n_features
    nsel <- 0L
    it <- 0L
    while (nsel < target) {
      it <- it + 1L
      h <- sum(s[add[seq_len(nsel)]])
      k <- min(batch_size(p - nsel), target - nsel)
      new <- add[nsel + seq_len(k)]
      score[new] <- h + s[new]
      iteration[new] <- it
      rank[new] <- nsel + seq_len(k)
      nsel <- nsel + k
      path <- rbind(path, c(it, nsel, sum(s[add[seq_len(nsel)]]), NA))
    }
  }
  list(rank = rank, score = score, iteration = iteration, path = path)
}

# The block estimator's weights: HSIC of the stacked data is
# sum_b sum(K_b o W_b) / n_blocks, W_b = weight_matrix() of the label kernel
# on block b. The label kernel is fixed on all samples first, as hsic() does
# with approx = "block" (hsic_block()): class weights from all samples, a
# regression kernel's width by the median heuristic on at most 1000 outcomes
# (resolve_width_approx()), a precomputed label kernel restricted to the
# block; never an m x m matrix. Returns list(W = c(packed within-block
# W_b / n_blocks, their diagonals), Wb = the list of W_b / n_blocks,
# kernel = the resolved label kernel).
block_weights <- function(kernel_y, y, blocks, estimator, threads) {
  lab <- block_label_source(kernel_y, y, threads)
  nb <- length(blocks$list)
  Wb <- lapply(blocks$list, function(i) weight_matrix(lab$block(i), length(i), estimator) / nb)
  W <- c(unlist(lapply(Wb, function(w) w[upper.tri(w)]), use.names = FALSE),
         unlist(lapply(Wb, diag), use.names = FALSE))
  list(W = W, Wb = Wb, kernel = lab$kernel)
}

# The options of C_feature_dot (read by name in C, src/gram_call.c) for the
# linear kernel: s_j = x_j' W x_j.
linear_dot_opts <- function(threads) {
  list(kernel = bk_codes$kernel[["linear"]], p1 = 0, p2 = 0, threads = threads,
       simd = use_simd())
}

# Linear kernel on the block path: s_j = sum_b x_jb' W_b x_jb (x stacked).
block_feature_dot <- function(x, bw, threads) {
  s <- numeric(ncol(x))
  start <- 0L
  for (w in bw$Wb) {
    rows <- start + seq_len(nrow(w))
    s <- s + .Call(C_feature_dot, x[rows, , drop = FALSE], w, linear_dot_opts(threads))
    start <- start + nrow(w)
  }
  s
}
