#' Minimum-redundancy maximum-relevance selection with HSIC
#'
#' `mrmr()` selects features forward by the MID criterion of Peng, Long and
#' Ding (2005, section 2.3): at every step it adds the feature \eqn{j} with
#' the largest relevance minus mean redundancy,
#' \deqn{\mathrm{HSIC}(x_j, y) - \frac{1}{|S|} \sum_{s \in S}
#'   \mathrm{HSIC}(x_j, x_s),}
#' \eqn{S} the features selected so far, with HSIC in place of mutual
#' information as the measure of dependence. Relevance uses the label kernel
#' as in [fohsic()]; redundancy is HSIC between two single features, each
#' with the feature kernel. A feature that repeats one already selected has
#' the same relevance but a large redundancy, so it is passed over where
#' [fohsic()] or a ranking by [feature_scores()] may take it next.
#'
#' **Scales.** HSIC with the label kernel and HSIC between two features
#' with the feature kernel are on different scales (with the default
#' kernels on golub, the redundancies are a hundred times the relevances or
#' more, and the criterion would be minimum redundancy alone). With `normalize = TRUE`
#' (the default) every HSIC is divided by the geometric mean of the two
#' variables' HSIC with themselves, \eqn{\mathrm{HSIC}(a, b) /
#' \sqrt{\mathrm{HSIC}(a, a)\,\mathrm{HSIC}(b, b)}} (the centred kernel
#' alignment of Cortes, Mohri and Rostamizadeh 2012, in \[0, 1\] for the
#' biased estimator), so that relevance and redundancy share a scale; a
#' constant feature then scores 0 in the first step and -1 after it.
#' `normalize = FALSE` takes HSIC as it is. inst/bench/bench-mrmr.R: with
#' `normalize = FALSE`, on golub and on ALL (B vs T, and BCR/ABL vs NEG, each
#' on its 1000 genes of largest variance) the criterion of every gene added
#' after the first was negative, its mean redundancy a median 150 to 750
#' times its relevance, the 20 genes among the least relevant (median
#' relevance rank 2858 of 3051 on golub) and their 5-fold cross-validated
#' error 0.25 on golub and 0.17 on BCR/ABL vs NEG, against 0.07 and 0.11
#' with `normalize = TRUE` (whose criteria stayed positive, the redundancy a
#' median 0.57 to 0.83 times the relevance).
#'
#' **Kernels.** The feature kernel is applied to single features, at the
#' width [fohsic()] gives a set of one feature: with `sigma = "dimension"`
#' \eqn{\sigma = 1/2} for the Gaussian kernel (\eqn{1/\sqrt{2}} for the
#' Laplace kernel) on standardised features; `sigma = "fixed"` takes the
#' kernel's own `sigma`, which must then be given. Kernels without a width
#' (linear, polynomial, inverse distance) are used as given.
#'
#' **Cost.** The relevances cost one pass over the \eqn{m(m-1)/2} pairs of
#' samples per feature, once (with `normalize`, a second pass of about the
#' same cost gives each feature's HSIC with itself). When a feature joins the selection, its
#' centred kernel matrix is formed once and one pass over the pairs gives
#' its HSIC with every feature, kept as a running sum: each selected
#' feature costs \eqn{O(d m^2)} (with `threads`), and the memory is one
#' \eqn{m \times m} matrix besides the weights of the labels. Selecting
#' `n_features` features costs about `n_features` times [feature_scores()]
#' with `method = "hsic"`. `add > 0` adds a fraction of the remaining
#' features per step, each scored against the set selected before the step.
#'
#' **Result.** The common [`bahsic_selection`][selected] object:
#' `features$score` is the MID criterion of the feature when it was added
#' (for the first feature, its relevance); `features$contribution` is that
#' criterion as a share of its relevance (1 for the first feature: what of
#' its dependence with the outcome is not shared with the features selected
#' before it); `features$relevance` is \eqn{\mathrm{HSIC}(x_j, y)} of every
#' feature (normalised with `normalize`). `path$hsic` is the selected set's mean relevance minus its mean
#' redundancy over pairs of distinct features (the criterion of eq. 7 of
#' Peng et al. with its sums as means), `path$sigma` the width.
#'
#' **Study designs** (`covariates`, `block`; see [design]): as in [bahsic()]
#' the features (and a numeric outcome) are residualised on the design and
#' the relevance of a feature is its HSIC with the label projected off it
#' (\eqn{PLP}; the normalisation uses the projected label's HSIC with
#' itself); the redundancy is that of the residualised features. The unbiased
#' estimator is refused with a design. `settings$design` records it.
#'
#' @inheritParams bahsic
#' @param sigma width policy for Gaussian and Laplace kernels, for a single
#'   feature: `"dimension"` or `"fixed"`, see Details.
#' @param normalize `TRUE` to divide every HSIC by the geometric mean of the
#'   two variables' HSIC with themselves, see Details.
#' @param add fraction of the remaining features added per iteration, in
#'   \[0, 1); 0 (the default, the greedy search of Peng et al.) adds one at
#'   a time.
#' @param n_features the number of features to select, from 1 to the number
#'   of features (default 50, or all when there are fewer); `NULL` ranks all
#'   features (costly for many: see Details).
#' @return An object of class `bahsic_selection`, see [selected()] and
#'   [selection]; `features` has the extra column `relevance`.
#' @references Peng, H., Long, F. and Ding, C. (2005). Feature selection
#'   based on mutual information: criteria of max-dependency, max-relevance,
#'   and min-redundancy. IEEE Transactions on Pattern Analysis and Machine
#'   Intelligence 27(8), 1226-1238.
#'
#'   Cortes, C., Mohri, M. and Rostamizadeh, A. (2012). Algorithms for
#'   learning kernels based on centered alignment. JMLR 13, 795-828.
#' @family selection
#' @seealso \link{input-checks} for what each kind of bad input gives.
#' @eval roxygen_progress("the features added")
#' @examples
#' fit <- mrmr(golub$x[, 1:300], golub$y, n_features = 10)
#' fit
#' selected(fit, 5)
#' # a copy of the first feature is relevant, but redundant
#' x <- cbind(golub$x[, 1:300], copy = golub$x[, selected(fit, 1)])
#' selected(mrmr(x, golub$y, n_features = 3), 3)
#' @export
mrmr <- function(x, ...) {
  check_generic_args("mrmr", if (!missing(x)) x, ...names())
  UseMethod("mrmr")
}

#' @rdname mrmr
#' @export
mrmr.default <- function(x, y, kernel = kernel_gaussian(), kernel_y = NULL,
                         estimator = c("biased", "unbiased"), sigma = c("dimension", "fixed"),
                         normalize = TRUE, add = 0, n_features = 50L, standardize = TRUE,
                         threads = default_threads(), verbose = FALSE,
                         na_action = c("fail", "omit"), assay = 1L, covariates = NULL,
                         block = NULL, data = NULL, ...) {
  check_dots(..., .fn = "mrmr")
  v <- mget(setdiff(names(formals()), c("x", "y", "...")))
  v$estimator <- arg_match(estimator)
  v["sigma"] <- list(if (!missing(sigma)) arg_match(sigma))
  args <- check_mrmr_args(mrmr_arg_list(v, all = missing(n_features)))
  pr <- prepare_problem(x, y, mrmr_spec(args))
  res <- run_mrmr(pr, args)
  mrmr_result(pr, res, args, match.call())
}

#' @rdname mrmr
#' @export
mrmr.formula <- function(formula, data, subset, na.action, ...) {
  formula_method("mrmr", match.call(), parent.frame(), list(...)[["kernel"]], ...)
}

# The values of mrmr.default()'s arguments (a named list; sigma NULL: not
# given) as the list check_select_args() reads; all: n_features not given.
mrmr_arg_list <- function(v, all) {
  list(kernel = v$kernel, kernel_y = v$kernel_y, estimator = v$estimator, sigma = v$sigma,
       sigma_grid = NULL, normalize = v$normalize, step = v$add, step_arg = "add",
       n_features = v$n_features, all = all, standardize = v$standardize, threads = v$threads,
       verbose = v$verbose, na_action = v$na_action, assay = v$assay, approx = "exact",
       unsupervised = FALSE, design = selector_design_spec("mrmr", v$covariates, v$block, v$data))
}

# The arguments of mrmr.default() checked as fohsic()'s are
# (check_select_args(), R/select-hsic.R), and what mrmr() does not take.
check_mrmr_args <- function(args) {
  kernel <- args$kernel
  check_kernel(kernel, "kernel", where = "in mrmr()")
  if (is_clinical(kernel) || inherits(kernel, "bahsic_parzen")) {
    stop(sprintf(paste0("mrmr() takes a kernel on single numeric features such as ",
                        "kernel_gaussian(); 'kernel' is %s kernel."), kernel_noun(kernel$name)),
         call. = FALSE)
  }
  check_flag(args$normalize, "normalize")
  args <- check_select_args("mrmr", args)
  if (args$sigma == "fixed" && kernel_has(kernel, "width") && is.null(kernel$params$sigma)) {
    stop(paste0("sigma = \"fixed\" in mrmr() needs the kernel's own width, e.g. ",
                "kernel_gaussian(sigma = 0.5); or use sigma = \"dimension\"."), call. = FALSE)
  }
  args
}

# The problem of mrmr(): the labels' weights W on the exact path.
mrmr_spec <- function(args) {
  spec <- select_spec("mrmr", args)
  # the default size: 50, or every feature when there are fewer
  spec$check_inputs <- function(pr) {
    if (!args$all) check_select_n(args$n_features, pr$p)
  }
  # W, the kernel of a selected feature and the pair workspace of the
  # per-feature pass
  spec$memory <- function(pr) check_memory(pr$m, 4)
  spec
}

# The C scorer (src/scorer_mrmr.c) run by the selection schedule.
run_mrmr <- function(pr, args) {
  n <- args$n_features
  if (args$all && !is.null(n)) n <- min(n, pr$p)
  bar <- progress_start(select_work("mrmr", pr$p, args$step, n))
  on.exit(progress_end(bar), add = TRUE)
  tick <- progress_select(bar, "mrmr", pr$p)
  kernel <- args$kernel
  par <- kernel_param(kernel)
  opts <- list(kernel = kernel_code(kernel), p1 = as.double(par[1L]), p2 = as.double(par[2L]),
               policy = policy_code(args$sigma), unbiased = pr$estimator == "unbiased",
               ynorm = if (args$normalize) mrmr_label_norm(pr) else 0,
               W = pr$W, step = as.double(args$step),
               n_target = if (is.null(n)) 0L else as.integer(n), threads = pr$threads,
               verbose = args$verbose, simd = option_simd())
  res <- .Call(C_mrmr, pr$x, c(opts, if (!is.null(tick)) list(progress = tick)))
  progress_finish(bar)
  res$n_features <- n
  res$ynorm <- opts$ynorm
  res
}

# sqrt(HSIC(y, y)) of the labels, which normalises the relevances.
mrmr_label_norm <- function(pr) {
  L <- if (is.null(pr$label$Y)) pr$label$L else tcrossprod(pr$label$Y)
  h <- sum(L * pr$W)
  if (!(is.finite(h) && h > 0)) {
    stop(paste0("The label kernel has no variation on these samples (HSIC of the outcome with ",
                "itself is not positive): nothing to normalise by. Use normalize = FALSE."),
         call. = FALSE)
  }
  sqrt(h)
}

# The common result class from the scorer's ranks, criteria and path.
mrmr_result <- function(pr, res, args, call) {
  features <- data.frame(feature = pr$features,
                         rank = ifelse(res$rank > 0L, res$rank, NA_integer_),
                         score = ifelse(is.nan(res$score), NA_real_, res$score),
                         iteration = ifelse(res$iteration > 0L, res$iteration, NA_integer_),
                         stringsAsFactors = FALSE)
  # the MID criterion as a share of the relevance
  relevance <- res$relevance
  if (args$normalize) {
    relevance <- ifelse(res$self > 0, relevance / sqrt(pmax(res$self, 0)) / res$ynorm, 0)
  }
  features$contribution <- safe_ratio(features$score, relevance)
  features$relevance <- relevance
  path <- as.data.frame(res$path)
  names(path) <- c("iteration", "n_features", "hsic", "sigma")
  path$sigma[is.nan(path$sigma)] <- NA_real_
  path$iteration <- as.integer(path$iteration)
  path$n_features <- as.integer(path$n_features)
  width <- kernel_has(args$kernel, "width")
  settings <- list(kernel = args$kernel, kernel_y = pr$kernel_y, estimator = pr$estimator,
                   sigma = if (width) args$sigma else NA_character_,
                   normalize = args$normalize, add = args$step,
                   n_features = res$n_features, standardize = pr$standardize,
                   n_samples = pr$m, threads = pr$threads)
  settings <- design_settings(settings, pr$design)
  call[[1L]] <- as.name("mrmr")
  new_selection("mrmr", features, path, settings, call, annotation = pr$annotation,
                outcome = selection_outcome(pr))
}
