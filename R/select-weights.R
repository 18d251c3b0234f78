# Feature weighting by HSIC, appendix A of Song et al. (2012)
# (eqs. 32-33): maximise HSIC(w) - lambda 1'(1 - exp(-alpha w)) over w >= 0
# by the convex-concave procedure. The value and gradient over the m^2 pairs
# are in C (bk_hsic_vgrad() in src/lsmi.c, the loop of the l1-HSIC
# gradient); the outer CCCP loop and its concave subproblems are here.

#' Feature weighting by HSIC (appendix A of Song et al. 2012)
#'
#' `hsic_weights()` learns a non-negative weight \eqn{w_j} for every feature,
#' with the features scaled as \eqn{x \mapsto w \circ x}, by maximising
#' \deqn{\mathrm{HSIC}(w) - \lambda \sum_j (1 - e^{-\alpha w_j}),
#'   \qquad w \ge 0,}
#' eqs. (32)-(33) of Song et al. (2012): HSIC of the weighted features and
#' the labels with a relaxed \eqn{\ell_0} penalty on \eqn{w}. The kernel is
#' Gaussian, \eqn{K_{ab}(w) = \exp(-\sigma \sum_j w_j^2 (x_{aj} -
#' x_{bj})^2)}, and \eqn{\mathrm{HSIC}(w) = \sum_{ab} K_{ab}(w) W_{ab}} with
#' \eqn{W} the weight matrix of the chosen estimator (HSIC0
#' \eqn{\mathrm{tr}(KHLH)/(m-1)^2} or HSIC1, both linear in \eqn{K}). The
#' features are ranked by their final weight.
#'
#' **The convex-concave procedure** (Yuille and Rangarajan 2003), as the
#' appendix proposes, with the terms of positive coefficient in the convex
#' part and those of negative coefficient in the concave part. It is exact
#' in the squared weights \eqn{v_j = w_j^2 \ge 0}: there every
#' \eqn{\exp(-\sigma a_{ab}^\top v)} (with \eqn{a_{ab}} the squared
#' differences of samples \eqn{a} and \eqn{b}) is convex, and so is the
#' penalty term \eqn{\lambda e^{-\alpha \sqrt{v_j}}} (the exponential of a
#' convex function). The objective is \eqn{C(v) + V(v)} with
#' \deqn{C(v) = \sum_{W_{ab} > 0} W_{ab} e^{-\sigma a_{ab}^\top v} + \lambda
#'   \sum_j e^{-\alpha \sqrt{v_j}}}{C(v) = sum_{W_ab > 0} W_ab exp(-sigma
#'   a_ab'v) + lambda sum_j exp(-alpha sqrt(v_j))}
#' convex and \eqn{V(v) = \sum_{W_{ab} < 0} W_{ab} e^{-\sigma a_{ab}^\top v}
#' - \lambda d} concave. Each outer step replaces \eqn{C} by its tangent at
#' the current \eqn{v_t}, a lower bound that touches at \eqn{v_t}, and
#' maximises \eqn{\nabla C(v_t)^\top v + V(v)} over \eqn{v \ge 0}, a concave
#' problem solved by L-BFGS-B ([stats::optim()]) from \eqn{v_t}; so the
#' objective never decreases from one outer step to the next. It is bounded:
#' \eqn{\nabla C \le 0} and \eqn{V} is increasing and bounded above. The
#' derivative of the penalty in \eqn{v_j} is \eqn{-\infty} at \eqn{v_j = 0},
#' so **a weight that reaches 0 stays 0** (with `lambda = 0` it may come
#' back). The procedure starts at \eqn{w = 1} and stops when the objective
#' changes by less than `tol` relative to its size, or after `max_iter` outer
#' steps.
#'
#' **Choosing `lambda`**: the penalty is on the scale of HSIC, at most
#' \eqn{\lambda} per feature, so a feature keeps a non-zero weight only if
#' it adds about \eqn{\lambda} of HSIC. HSIC at \eqn{w = 1} (all features,
#' reported as `settings$hsic_start`) is the natural unit, but the weighting
#' can raise HSIC far above it (15-fold on the XOR data of the examples, 10
#' features), so useful values range from about `hsic_start` to some 100
#' times it; try a few on that grid and watch `n_features` in `path`. With
#' `lambda = 0` the objective is HSIC alone; features that only add noise
#' lower HSIC, and their weights can still reach 0. Note that HSIC here
#' includes the \eqn{1/(m-1)^2} of HSIC0; the appendix writes
#' \eqn{\mathrm{tr}(KHLH)} without it. The procedure finds a local maximum:
#' a `lambda` so large that the penalty outweighs all of HSIC sets every
#' weight to 0.
#'
#' **Width**: `sigma` of [kernel_gaussian()], or by the median heuristic on
#' the (standardised) features, that is at \eqn{w = 1}; it is held fixed,
#' the weights do the rest.
#'
#' **Labels**: as in [bahsic()]: a matrix `y` for several responses,
#' `kernel_y = label_kernel_precomputed(L)` for labels given by their kernel,
#' and `unsupervised = TRUE` for weighting without an outcome (the standardised data are the
#' labels). `settings$sigma` is the width used; `settings$kernel` is the
#' kernel as given.
#'
#' **Cost**: every evaluation of HSIC and its gradient is one pass over the
#' \eqn{m^2} pairs, \eqn{O(m^2 d)} (plus an \eqn{m \times m \times d} matrix
#' product), with \eqn{O(m^2)} memory; each outer step takes one such pass
#' for the convex part and one per L-BFGS-B evaluation of the concave part.
#' There is no approximation for many samples.
#'
#' The appendix itself notes that this approach "does not perform as well
#' as the backward elimination procedure": prefer [bahsic()] for selection;
#' `hsic_weights()` is here for completeness and for the weights.
#'
#' **Result**: `features` ranks all features by their final weight (the
#' `score`); features whose weight is 0 follow, by the outer step at which
#' their weight reached 0 (later is better; the step is the `iteration`
#' column, NA for the others), then by their weight at the step before, then
#' by column order. Constant features get weight 0 and come last. `path`
#' has one row per outer step, from the start (`iteration` 0): `n_features`
#' the number of non-zero weights, `hsic` HSIC(w), `sigma` the width and
#' `objective` the penalised objective.
#'
#' **Study designs** (`covariates`, `block`; see [design]): as in [bahsic()]
#' the features (and a numeric outcome) are residualised on the design and
#' \eqn{W} becomes \eqn{PLP/(m-1)^2}, so the weighted kernel's HSIC is the
#' dependence given the design; the unbiased estimator is refused with a
#' design.
#' `settings$design` records it.
#'
#' @inheritParams bahsic
#' @param lambda penalty on the number of non-zero weights, \eqn{\ge 0}, on
#'   the scale of HSIC (see Details).
#' @param alpha sharpness of the relaxed \eqn{\ell_0} penalty
#'   \eqn{1 - e^{-\alpha w}}; the appendix suggests 5.
#' @param kernel a Gaussian kernel, [kernel_gaussian()] (the only kernel the
#'   appendix decomposes into convex and concave parts).
#' @param max_iter largest number of outer (CCCP) steps.
#' @param tol stop when the objective changes by less than `tol` times its
#'   absolute value.
#' @param threads number of threads for the exponentials of the kernel; the
#'   result does not depend on it. Default and limit: see \link{threads}.
#' @return An object of class `bahsic_selection` (see [selected()]) with
#'   method `"hsic_weights"`, `score` the final weight, `contribution` its
#'   share of the total weight (see [selection]), and a further element
#'   `weights`, the named weight vector. `settings` holds `lambda`, `alpha`,
#'   `sigma`, `estimator`, `converged`, `iterations`, `hsic_start` (HSIC at
#'   \eqn{w = 1}) and the other arguments.
#' @references Song, L., Smola, A., Gretton, A., Bedo, J. and Borgwardt, K.
#'   (2012). Feature selection via dependence maximization. JMLR 13,
#'   1393-1434 (appendix A).
#'
#'   Yuille, A. L. and Rangarajan, A. (2003). The concave-convex procedure.
#'   *Neural Computation* 15, 915-936.
#' @family selection
#' @seealso [l1_hsic()] for weights under an \eqn{\ell_1} constraint;
#'   \link{input-checks} for what each kind of bad input gives.
#' @eval roxygen_progress("the iterations of the convex-concave procedure")
#' @examples
#' set.seed(1)
#' sim <- simulate_xor(100)
#' x <- sim$x[, 1:6]
#' # HSIC of all features, the unit of lambda
#' h1 <- hsic_weights(x, sim$y, lambda = 0, max_iter = 1)$settings$hsic_start
#' fit <- hsic_weights(x, sim$y, lambda = 3 * h1)
#' fit
#' round(fit$weights, 3)
#' selected(fit, 2)
#' fit$path
#' @export
hsic_weights <- function(x, ...) {
  check_generic_args("hsic_weights", if (!missing(x)) x, ...names())
  UseMethod("hsic_weights")
}

#' @rdname hsic_weights
#' @export
hsic_weights.default <- function(x, y, lambda, alpha = 5, kernel = kernel_gaussian(),
                                 kernel_y = NULL, estimator = c("biased", "unbiased"),
                                 standardize = TRUE, max_iter = 100L, tol = 1e-6, threads = default_threads(),
                                 na_action = c("fail", "omit"), assay = 1L,
                                 unsupervised = FALSE, covariates = NULL, block = NULL,
                                 data = NULL, ...) {
  check_dots(..., .fn = "hsic_weights")
  design <- selector_design_spec("hsic_weights", covariates, block, data)
  check_selector_design("hsic_weights", design)
  check_flag(unsupervised, "unsupervised")
  if (unsupervised && missing(y)) y <- NULL
  if (missing(lambda)) {
    stop(paste0("'lambda' is missing: give the penalty on the number of non-zero weights, ",
                "on the scale of HSIC: a few times HSIC of all features, which ",
                "hsic_weights(x, y, lambda = 0, max_iter = 1)$settings$hsic_start gives."),
         call. = FALSE)
  }
  if (!is.numeric(lambda) || length(lambda) != 1L || !is.finite(lambda) || lambda < 0) {
    stop("'lambda' must be a single finite number >= 0 (0: no penalty).", call. = FALSE)
  }
  if (!is.numeric(alpha) || length(alpha) != 1L || !is.finite(alpha) || alpha <= 0) {
    stop("'alpha' must be a single positive number (the appendix suggests 5).", call. = FALSE)
  }
  check_kernel(kernel, "kernel")
  if (kernel$name != "gaussian") {
    stop(sprintf(paste0("'kernel' must be a Gaussian kernel, kernel_gaussian(); it is a %s ",
                        "kernel. Only the Gaussian kernel is decomposed into convex and ",
                        "concave parts (appendix A)."), kernel$name), call. = FALSE)
  }
  estimator <- arg_match(estimator)
  check_design_estimator(design, estimator, "hsic_weights()")
  max_iter <- check_whole(max_iter, "max_iter", 1L)
  if (!is.numeric(tol) || length(tol) != 1L || !is.finite(tol) || tol < 0) {
    stop("'tol' must be a single number >= 0.", call. = FALSE)
  }
  check_flag(standardize, "standardize")
  threads <- check_threads(threads)
  lambda <- as.double(lambda)
  alpha <- as.double(alpha)

  pr <- prepare_problem(x, y, weights_spec(estimator, standardize, threads,
                                           list(na_action = arg_match(na_action), assay = assay,
                                                kernel_y = kernel_y, unsupervised = unsupervised,
                                                design = design)))
  xa <- pr$x[, pr$varying, drop = FALSE]
  # the width of the weighted kernel; settings keep the kernel as given (a
  # width left to the median heuristic stays NULL there)
  sigma <- kernel$params$sigma
  if (is.null(sigma)) sigma <- median_sigma(xa, TRUE, n_max = pr$m)
  sigma <- as.double(sigma)
  W <- pr$W
  hv <- function(w, part) .Call(C_hsic_vgrad, xa, w, sigma, W, part, threads)
  res <- weights_cccp(hv, ncol(xa), lambda, alpha, max_iter, tol)
  res$path$sigma <- sigma
  settings <- list(kernel = kernel, kernel_y = pr$kernel_y, estimator = estimator,
                   lambda = lambda, alpha = alpha, sigma = sigma,
                   hsic_start = res$path$hsic[1L], converged = res$converged,
                   iterations = nrow(res$path) - 1L, max_iter = max_iter, tol = tol,
                   standardize = standardize, n_samples = pr$m, threads = threads)
  if (pr$unsupervised) settings$unsupervised <- TRUE
  settings <- design_settings(settings, pr$design)
  call <- match.call()
  call[[1L]] <- as.name("hsic_weights")
  weights_result(pr, res, settings, call)
}

# The problem of hsic_weights() (prepare_problem()): the varying columns
# recorded before standardising, W for the estimator. `inputs`: na_action,
# assay, kernel_y, unsupervised, design.
weights_spec <- function(estimator, standardize, threads, inputs) {
  unbiased <- estimator == "unbiased"
  c(inputs, list(
    min_m = if (unbiased) 4L else 3L,
    min_what = sprintf("hsic_weights() with the %s estimator", estimator), selector = "hsic_weights",
    min_hint = if (unbiased) "Use estimator = \"biased\", which needs 3.",
    check_inputs = function(pr) if (is.numeric(pr$y)) check_varying_outcome(pr$y),
    drop_constant = TRUE, standardize = standardize,
    check_x = function(pr) {
      if (!any(pr$varying)) {
        stop("Every feature of 'x' is constant: there is nothing to weight.", call. = FALSE)
      }
    },
    estimator = estimator, threads = threads, labels = "W",
    # before anything m x m is allocated: first the median heuristic's
    # distances (1.5 m x m), then the label kernel and weight_matrix()'s
    # temporaries (4 with the label kernel), then W, the label kernel and
    # C_hsic_vgrad()'s workspace (3); R's peak heap at m = 2000 is 5.02 m x m
    # matrices with a regression label kernel, 4.02 with classes (gc())
    memory = function(pr) check_memory(pr$m, 5, approximable = FALSE)))
}

# The weights of the varying features back on all features, ranked.
weights_result <- function(pr, res, settings, call) {
  p <- pr$p
  varying <- pr$varying
  weights <- numeric(p)
  weights[varying] <- res$w
  zero_at <- integer(p)
  zero_at[varying] <- res$zero_at
  prev <- numeric(p)
  prev[varying] <- res$prev
  ord <- order(-weights, -zero_at, -prev, seq_len(p))
  rank <- integer(p)
  rank[ord] <- seq_len(p)
  names(weights) <- pr$features
  # contribution: the feature's share of the total weight
  features <- data.frame(feature = pr$features, rank = rank, score = unname(weights),
                         iteration = ifelse(zero_at > 0L, zero_at, NA_integer_),
                         contribution = safe_ratio(unname(weights), sum(abs(weights))),
                         stringsAsFactors = FALSE)
  new_selection("hsic_weights", features, res$path, settings, call, weights = weights,
                annotation = pr$annotation, outcome = selection_outcome(pr))
}

#' @rdname hsic_weights
#' @export
hsic_weights.formula <- function(formula, data, subset, na.action, ...) {
  formula_method("hsic_weights", match.call(), parent.frame(), NULL, ...)
}

# The penalty of eq. 33, lambda 1'(1 - exp(-alpha w)), and its derivative in
# v = w^2 where w > 0: -lambda alpha exp(-alpha w) / (2 w).
weights_penalty <- function(w, lambda, alpha) lambda * sum(1 - exp(-alpha * w))

weights_penalty_vgrad <- function(w, lambda, alpha) {
  -lambda * alpha * exp(-alpha * w) / (2 * w)
}

# The convex-concave procedure in v = w^2 (see the documentation): hv(w,
# part) gives sum(W' o K(w)) and its gradient in v for W' = W (part 0), its
# positive part (1) or its negative part (-1). Returns the weights, the step
# at which each weight reached 0 (0: never) and its weight the step before,
# the path and whether the relative change fell below tol.
weights_cccp <- function(hv, d, lambda, alpha, max_iter, tol) {
  w <- rep(1, d)
  start <- hv(w, 0L)
  hsic_w <- start$value
  obj <- hsic_w - weights_penalty(w, lambda, alpha)
  zero_at <- integer(d)
  prev <- numeric(d)
  rows <- list(c(0, d, hsic_w, obj))
  converged <- FALSE
  pos <- hv(w, 1L)
  # a bar over max_iter steps, completed when the steps converge before
  bar <- progress_start(max_iter)
  on.exit(progress_end(bar), add = TRUE)
  for (t in seq_len(max_iter)) {
    # free: the weights the step may move; with lambda > 0 a zero weight
    # has an infinitely steep penalty and stays 0
    free <- if (lambda > 0) w > 0 else rep(TRUE, d)
    g <- pos$gradient
    if (lambda > 0) g[free] <- g[free] + weights_penalty_vgrad(w[free], lambda, alpha)
    v0 <- w^2
    # the concave subproblem: max g'v + V(v) over v >= 0 (V without its
    # constant -lambda d), with the free entries of v moving
    memo <- new.env(parent = emptyenv())
    neg_at <- function(vf) {
      if (!identical(memo$v, vf)) {
        v <- v0
        # L-BFGS-B can hand over -0 or a rounding residue below the bound
        v[free] <- pmax(vf, 0)
        memo$v <- vf
        memo$res <- hv(sqrt(v), -1L)
      }
      memo$res
    }
    surrogate <- function(vf) sum(g[free] * vf) + neg_at(vf)$value
    s0 <- surrogate(v0[free])
    scale <- max(abs(s0), .Machine$double.xmin)
    opt <- stats::optim(v0[free], fn = function(vf) -surrogate(vf),
                        gr = function(vf) -(g[free] + neg_at(vf)$gradient[free]),
                        method = "L-BFGS-B", lower = 0,
                        control = list(fnscale = scale, factr = 1e5, pgtol = 0, maxit = 200L))
    v_new <- v0
    v_new[free] <- pmax(opt$par, 0)
    # L-BFGS-B only accepts steps that decrease its objective; keep v_t if
    # the surrogate did not improve (rounding)
    if (-opt$value < s0) v_new <- v0
    w_new <- sqrt(v_new)
    # tiny weights are zeros that L-BFGS-B stopped short of: the penalty's
    # slope there is far steeper than anything HSIC can offset
    if (lambda > 0) w_new[w_new < 1e-10 * max(w_new, 1)] <- 0
    newly <- w > 0 & w_new == 0
    zero_at[newly] <- t
    prev[newly] <- w[newly]
    zero_at[w_new > 0] <- 0L
    pos <- hv(w_new, 1L)
    # the concave part at w_new: L-BFGS-B has usually evaluated it last
    neg <- if (identical(memo$v, v_new[free]) && identical(w_new, sqrt(v_new))) {
      memo$res$value
    } else {
      hv(w_new, -1L)$value
    }
    hsic_w <- pos$value + neg
    obj_new <- hsic_w - weights_penalty(w_new, lambda, alpha)
    rows[[t + 1L]] <- c(t, sum(w_new > 0), hsic_w, obj_new)
    change <- abs(obj_new - obj)
    w <- w_new
    obj_prev <- obj
    obj <- obj_new
    progress_tick(bar)
    if (change <= tol * max(abs(obj_prev), abs(obj_new)) || all(w == 0)) {
      converged <- TRUE
      break
    }
  }
  progress_finish(bar)
  list(w = w, zero_at = zero_at, prev = prev, path = weights_path(rows), converged = converged)
}

# The path of weights_cccp(): its rows c(iteration, n_features, hsic,
# objective) as the selections' path table.
weights_path <- function(rows) {
  path <- as.data.frame(do.call(rbind, rows))
  names(path) <- c("iteration", "n_features", "hsic", "objective")
  path$iteration <- as.integer(path$iteration)
  path$n_features <- as.integer(path$n_features)
  path$sigma <- NA_real_
  path[c("iteration", "n_features", "hsic", "sigma", "objective")]
}
