# l1-LSMI and l1-HSIC: feature weights by gradient projection onto the
# positive l1 ball, Jitkrittum (2012), slides ("l1-penalized Feature
# Weight Learning", "l1-LSMI (proposed method)", "Gradient Projection
# Algorithm to Solve l1-LSMI"). The search over the radius z and the
# restarts are here; the criterion and its gradient (and the projection) are
# in src/lsmi.c.

#' Feature selection by l1-penalised feature weights: l1-LSMI and l1-HSIC
#'
#' `l1_lsmi()` and `l1_hsic()` learn non-negative feature weights \eqn{w}
#' that maximise a dependence criterion \eqn{f(\mathrm{diag}(w) x, y)}
#' subject to \eqn{1^\top w \le z} (Jitkrittum 2012): \eqn{f} is [lsmi()]
#' for `l1_lsmi()` and the biased HSIC \eqn{\mathrm{tr}(KHLH)/(m-1)^2} with a
#' Gaussian kernel on the weighted features for `l1_hsic()`. The radius
#' \eqn{z} is searched so that exactly `n_features` weights are non-zero;
#' those features are selected.
#'
#' **Gradient projection** (slide "Gradient Projection Algorithm"): from
#' \eqn{w_0}, \eqn{w_{t+1} = \pi_z(w_t + s_t \nabla f(w_t))} with step
#' \eqn{s_t = 1/\sqrt{t}}, \eqn{t = 1, 2, \dots} (the slide starts at
#' \eqn{t = 0}, where the step is undefined), \eqn{\pi_z} the Euclidean
#' projection onto \eqn{\{w \ge 0, 1^\top w \le z\}}, until at most one
#' weight is non-zero, \eqn{\|\nabla f\|_2 <} `tol_grad`, the criterion
#' changes by less than `tol_progress`, or `max_iter` steps.
#'
#' **Search for z** (slide "l1-LSMI"): from \eqn{z} = `z_start`, \eqn{z} is
#' doubled until the solution has at least `n_features` non-zero weights;
#' if it has more, \eqn{z} is bisected between the last two values (at most
#' `max_bisect` times) until exactly `n_features` are non-zero. Each value
#' of \eqn{z} is solved afresh from \eqn{w = z w_0}. If the bisection does
#' not hit `n_features` exactly, the solution with the fewest non-zero
#' weights above `n_features` is kept and its smallest weights are set to 0
#' (reported as `exact = FALSE` in `settings` and in `path`). All of this is
#' repeated from `restarts` initial \eqn{w_0} (the first uniform, the others
#' uniform random on the simplex) and the restart with the largest
#' criterion is returned.
#'
#' **Kernel parameters**: the slides choose LSMI's \eqn{(\sigma, \lambda)}
#' by cross-validation but do not say where in the search. Here they are
#' chosen for every \eqn{z} at the start point \eqn{z w_0} by the CV of
#' [lsmi()] (width grid: the median distance of \eqn{\mathrm{diag}(z w_0)
#' x} times `sigma_factors`) and then held fixed during that gradient
#' ascent (the CV score is not differentiable). Likewise `l1_hsic()` takes
#' the Gaussian width of the package's median heuristic,
#' \eqn{\exp(-\gamma\|\cdot\|^2)} with \eqn{\gamma = 1/\mathrm{median}}
#' squared distance of \eqn{\mathrm{diag}(z w_0) x}, and the label kernel
#' from [default_label_kernel()] (or `kernel_y`). Centres, folds and
#' initial weights are drawn once per call with R's random number
#' generator: [set.seed()] reproduces a selection.
#'
#' **Outcomes**: `y` may be a numeric matrix (several responses): LSMI then
#' uses a Gaussian on the standardised response vectors, `l1_hsic()` the
#' label kernel on them. A censored survival outcome (`survival::Surv()`):
#' `l1_hsic()` takes it through [label_kernel_survival()]; `l1_lsmi()` refuses
#' it (it fits the density ratio of the outcome's values, and a censored time
#' is only a bound on the survival time). With `unsupervised = TRUE` both select without an outcome, with the
#' standardised data as the labels (see [bahsic()]), or use a precomputed
#' label kernel given as `kernel_y`.
#'
#' Because the gradient of either criterion with respect to \eqn{w_j} is
#' proportional to \eqn{w_j}, a weight that reaches 0 stays 0; constant
#' features (which carry no information) get weight 0 from the start.
#'
#' **Result**: `features` ranks all features by their final weight (the
#' `score`); features with weight 0 are ordered by their weight in the
#' solution with the most non-zero weights of the chosen restart's search,
#' then by their position in `x`. `path` has one row per value of \eqn{z}
#' solved: `n_features` non-zero weights, `hsic` the criterion (LSMI or
#' HSIC, whichever is optimised), `sigma` the width, and `restart`, `z`,
#' `lambda`, `steps`.
#'
#' **Study designs** (`covariates`, `block`; see [design]): `l1_hsic()`
#' maximises HSIC of the features residualised on the design with the label
#' projected off it (\eqn{W = PLP/(m-1)^2}, as in [bahsic()]) and records it
#' in `settings$design`.
#' `l1_lsmi()` refuses a design: it fits the density ratio of the features
#' and the outcome, which has no label kernel to project; its conditional
#' form (the ratio given the covariates) is not in this version.
#'
#' @inheritParams bahsic
#' @param n_features number of features to select (non-zero weights), from
#'   1 to the number of features.
#' @param restarts number of initial weight vectors.
#' @param n_basis,folds number of LSMI basis functions and CV folds, see
#'   [lsmi()].
#' @param lambda LSMI regularisation grid for the CV.
#' @param sigma_factors LSMI width grid, as multiples of the median distance
#'   of the weighted data at the start point of each \eqn{z}.
#' @param kernel_y label kernel for `l1_hsic()`, see [label_kernels]; `NULL`
#'   for [default_label_kernel()]. `l1_lsmi()` takes only `NULL` (its own
#'   delta or Gaussian basis functions on `y`) or
#'   [label_kernel_precomputed()]`(L)`, whose columns at the centres are then
#'   the label basis functions \eqn{\phi_y}.
#' @param max_iter,tol_grad,tol_progress stopping rules of the gradient
#'   projection.
#' @param z_start first radius \eqn{z} of the search.
#' @param max_bisect largest number of bisection steps.
#' @return An object of class `bahsic_selection` (see [selected()]) with
#'   method `"l1_lsmi"` or `"l1_hsic"`, `score` the final weight,
#'   `contribution` its share of the total weight (see [selection]), and a
#'   further element `weights`, the named weight vector (exactly
#'   `n_features` non-zero). `settings` holds the chosen `z`, `restarts`,
#'   `exact` and the other arguments.
#' @references Jitkrittum, W. (2012). Feature selection via
#'   l1-penalized squared-loss mutual information. Slides, Sugiyama
#'   laboratory, Tokyo Institute of Technology (slides "l1-LSMI (proposed
#'   method)", "Gradient Projection Algorithm to Solve l1-LSMI", "HSIC").
#'
#'   Duchi, J., Shalev-Shwartz, S., Singer, Y. and Chandra, T. (2008).
#'   Efficient projections onto the l1-ball for learning in high dimensions.
#'   *ICML 2008*, 272-279.
#' @family selection
#' @family lsmi
#' @seealso \link{input-checks} for what each kind of bad input gives.
#' @eval roxygen_progress("the restarts (and the radii each one tries)")
#' @examples
#' set.seed(1)
#' sim <- simulate_xor10(200)
#' fit <- l1_lsmi(sim$x, sim$y, n_features = 2, restarts = 1, n_basis = 50)
#' fit
#' fit$weights
#' selected(fit, 2)
#' fit_h <- l1_hsic(sim$x, sim$y, n_features = 2, restarts = 1)
#' selected(fit_h, 2)
#' @export
l1_lsmi <- function(x, ...) {
  check_generic_args("l1_lsmi", if (!missing(x)) x, ...names())
  UseMethod("l1_lsmi")
}

#' @rdname l1_lsmi
#' @export
l1_lsmi.default <- function(x, y, n_features, restarts = 3L, n_basis = 100, folds = 5,
                            lambda = 10^(-3:0), sigma_factors = 2^seq(-2, 1, by = 0.5),
                            max_iter = 100L, tol_grad = 1e-6, tol_progress = 1e-6,
                            z_start = 1, max_bisect = 12L, standardize = TRUE,
                            verbose = FALSE, na_action = c("fail", "omit"), assay = 1L,
                            kernel_y = NULL, unsupervised = FALSE, covariates = NULL,
                            block = NULL, data = NULL, ...) {
  check_dots(..., .fn = "l1_lsmi")
  refuse_design("l1_lsmi", covariates, block, data)
  check_flag(unsupervised, "unsupervised")
  if (unsupervised && missing(y)) y <- NULL
  check_grid(lambda, "lambda")
  check_grid(sigma_factors, "sigma_factors")
  if (!is.null(kernel_y) && !is_precomputed_label(kernel_y)) {
    stop(paste0("l1_lsmi() takes kernel_y = NULL (its delta or Gaussian basis functions on y) ",
                "or label_kernel_precomputed(L); for another label kernel use l1_hsic()."),
         call. = FALSE)
  }
  prep <- l1_prepare(x, y, n_features, l1_controls(restarts, max_iter, tol_grad, tol_progress,
                                                    z_start, max_bisect, standardize, verbose),
                     list(na_action = arg_match(na_action), assay = assay, kernel_y = kernel_y,
                          unsupervised = unsupervised, min_what = "l1_lsmi()", labels = "none",
                          selector = "l1_lsmi"))
  check_lsmi_sizes(n_basis, folds, prep$m)
  check_lsmi_memory("l1_lsmi()", prep$m, ncol(prep$x), n_basis, folds,
                    if (is_precomputed_label(prep$kernel_y)) NULL else prep$y, median_x = TRUE)
  xs <- prep$x
  basis <- lsmi_basis(prep$y, prep$m, n_basis, folds,
                      L = if (is_precomputed_label(prep$kernel_y)) {
                        prep$kernel_y$params$kernel$params$K
                      })
  cen <- xs[basis$centres, , drop = FALSE]
  lambdas <- as.double(lambda)
  # (sigma, lambda) by CV at the start point of each z, then fixed
  criterion <- function(w_start) {
    xw <- sweep(xs, 2L, w_start, "*", check.margin = FALSE)
    sq <- .Call(C_lsmi_sqdist, xs, cen, w_start)
    cv <- lsmi_cv(sq, basis, lsmi_sigma_grid(xw, sigma_factors), lambdas)
    list(sigma = cv$sigma, lambda = cv$lambda,
         f = function(w) .Call(C_lsmi_grad, xs, cen, w, cv$sigma, cv$lambda, basis$phiy, basis$Gy))
  }
  res <- l1_search(criterion, prep)
  settings <- list(n_features = prep$n_features, z = res$z, restarts = prep$restarts,
                   exact = res$exact, n_basis = length(basis$centres), folds = as.integer(folds),
                   lambda_grid = lambdas, sigma_factors = as.double(sigma_factors),
                   max_iter = prep$max_iter, tol_grad = tol_grad, tol_progress = tol_progress,
                   z_start = z_start, standardize = standardize, n_samples = prep$m)
  if (is_precomputed_label(prep$kernel_y)) settings$kernel_y <- prep$kernel_y
  l1_result("l1_lsmi", prep, res, settings, match.call())
}

#' @rdname l1_lsmi
#' @export
l1_lsmi.formula <- function(formula, data, subset, na.action, ...) {
  formula_method("l1_lsmi", match.call(), parent.frame(), NULL, ...)
}

#' @rdname l1_lsmi
#' @export
l1_hsic <- function(x, ...) {
  check_generic_args("l1_hsic", if (!missing(x)) x, ...names())
  UseMethod("l1_hsic")
}

#' @rdname l1_lsmi
#' @export
l1_hsic.default <- function(x, y, n_features, kernel_y = NULL, restarts = 3L,
                            max_iter = 100L, tol_grad = 1e-6, tol_progress = 1e-6,
                            z_start = 1, max_bisect = 12L, standardize = TRUE,
                            verbose = FALSE, na_action = c("fail", "omit"), assay = 1L,
                            unsupervised = FALSE, covariates = NULL, block = NULL, data = NULL,
                            ...) {
  check_dots(..., .fn = "l1_hsic")
  design <- selector_design_spec("l1_hsic", covariates, block, data)
  check_selector_design("l1_hsic", design)
  check_flag(unsupervised, "unsupervised")
  if (unsupervised && missing(y)) y <- NULL
  # HSIC0 = sum(K * W), W = HLH / (m - 1)^2 (slide "HSIC"); before it, the
  # label kernel, weight_matrix()'s temporaries (4 m x m with the label
  # kernel), then W, the label kernel and the median heuristic's distances
  # and cross products (1.5) or C_l1hsic_grad()'s m x m workspace: R's peak
  # heap at m = 2000 is 5.05 m x m matrices (gc())
  prep <- l1_prepare(x, y, n_features, l1_controls(restarts, max_iter, tol_grad, tol_progress,
                                                    z_start, max_bisect, standardize, verbose),
                     list(na_action = arg_match(na_action), assay = assay, kernel_y = kernel_y,
                          unsupervised = unsupervised, min_what = "l1_hsic()", labels = "W", selector = "l1_hsic",
                          estimator = "biased", threads = 1L,
                          memory = function(pr) check_memory(pr$m, 5), design = design))
  xs <- prep$x
  m <- prep$m
  W <- prep$W
  criterion <- function(w_start) {
    xw <- sweep(xs, 2L, w_start, "*", check.margin = FALSE)
    med <- .Call(C_median_pairwise, xw, TRUE, 1L)
    gamma <- if (is.finite(med) && med > 0) 1 / med else 1
    list(sigma = gamma, lambda = NA_real_,
         f = function(w) .Call(C_l1hsic_grad, xs, w, gamma, W))
  }
  res <- l1_search(criterion, prep)
  settings <- list(kernel_y = prep$kernel_y, n_features = prep$n_features, z = res$z,
                   restarts = prep$restarts, exact = res$exact, max_iter = prep$max_iter,
                   tol_grad = tol_grad, tol_progress = tol_progress, z_start = z_start,
                   standardize = standardize, n_samples = m)
  settings <- design_settings(settings, prep$design)
  l1_result("l1_hsic", prep, res, settings, match.call())
}

#' @rdname l1_lsmi
#' @export
l1_hsic.formula <- function(formula, data, subset, na.action, ...) {
  formula_method("l1_hsic", match.call(), parent.frame(), NULL, ...)
}

# The controls shared by both selectors, checked.
l1_controls <- function(restarts, max_iter, tol_grad, tol_progress, z_start, max_bisect,
                        standardize, verbose) {
  restarts <- check_whole(restarts, "restarts", 1L)
  max_iter <- check_whole(max_iter, "max_iter", 1L)
  max_bisect <- check_whole(max_bisect, "max_bisect", 0L)
  for (arg in c("tol_grad", "tol_progress")) {
    v <- get(arg)
    if (!is.numeric(v) || length(v) != 1L || !is.finite(v) || v < 0) {
      stop(sprintf("'%s' must be a single number >= 0.", arg), call. = FALSE)
    }
  }
  check_positive(z_start, "z_start")
  check_flag(standardize, "standardize")
  check_flag(verbose, "verbose")
  list(restarts = restarts, max_iter = max_iter, tol_grad = tol_grad,
       tol_progress = tol_progress, z_start = z_start, max_bisect = max_bisect,
       standardize = standardize, verbose = verbose)
}

# The problem both selectors solve (prepare_problem()), with their controls
# `ctl` (l1_controls()); `spec`: the inputs and the labels (l1_hsic(): W).
# Constant features (after standardize_columns(), which warns about them)
# are left out of the optimisation: their weight is 0.
l1_prepare <- function(x, y, n_features, ctl, spec) {
  if (missing(n_features)) {
    stop("'n_features' is missing: give the number of features to select.", call. = FALSE)
  }
  spec <- c(spec, list(
    min_m = 4L, drop_constant = TRUE, standardize = ctl$standardize,
    check_inputs = function(pr) {
      p <- pr$p
      if (!is.numeric(n_features) || length(n_features) != 1L || !is.finite(n_features) ||
          n_features < 1 || n_features > p || n_features != round(n_features)) {
        stop(sprintf("'n_features' must be a whole number from 1 to %d (the number of features).",
                     p), call. = FALSE)
      }
      if (is.numeric(pr$y) && !is_precomputed_label(pr$kernel_y)) check_varying_outcome(pr$y)
    },
    check_x = function(pr) {
      n_varying <- sum(pr$varying)
      if (n_features > n_varying) {
        stop(sprintf(paste0("'n_features' = %d but only %d feature%s vary: a constant feature ",
                            "carries no information. Ask for at most %d."),
                     n_features, n_varying, if (n_varying == 1L) "" else "s",
                     n_varying), call. = FALSE)
      }
    }))
  pr <- prepare_problem(x, y, spec)
  # x: the varying features only; their weights are optimised
  c(list(x = pr$x[, pr$varying, drop = FALSE], y = pr$y, kernel_y = pr$kernel_y,
         unsupervised = pr$unsupervised, features = pr$features, m = pr$m, p = pr$p,
         active = which(pr$varying), n_features = as.integer(n_features), W = pr$W,
         annotation = pr$annotation, rows = pr$rows, design = pr$design), ctl)
}

# Gradient projection for one z (slide "Gradient Projection Algorithm"):
# w_{t+1} = pi_z(w_t + grad / sqrt(t)), with the three stopping rules.
l1_ascent <- function(f, w, z, prep) {
  w <- .Call(C_l1_project, w, z)
  cur <- f(w)
  steps <- 0L
  for (t in seq_len(prep$max_iter)) {
    w_new <- .Call(C_l1_project, w + cur$gradient / sqrt(t), z)
    nxt <- f(w_new)
    steps <- t
    done <- sum(w_new > 0) <= 1L || sqrt(sum(nxt$gradient^2)) < prep$tol_grad ||
      abs(nxt$value - cur$value) < prep$tol_progress
    w <- w_new
    cur <- nxt
    if (done) break
  }
  list(w = w, value = cur$value, steps = steps)
}

# The search of slide "l1-LSMI": double z until s(z) >= k, then bisect until
# s(z) == k; repeated from `restarts` initial weights. criterion(w_start)
# returns list(sigma, lambda, f) with f(w) = list(value, gradient) for the
# weights of the active features.
l1_search <- function(criterion, prep) {
  k <- prep$n_features
  d <- length(prep$active)
  path <- list()
  best <- NULL
  # a bar of one step per restart; the number of radii a restart tries is
  # not known before, so each one advances it by half of what is left of
  # the restart's step, and the restart's end by the rest
  bar <- progress_start(prep$restarts)
  on.exit(progress_end(bar), add = TRUE)
  for (r in seq_len(prep$restarts)) {
    left <- 1
    w0 <- l1_start(r, d)
    widest <- NULL
    solve <- function(z) {
      crit <- criterion(w0 * z)
      sol <- l1_ascent(crit$f, w0 * z, z, prep)
      sol$n <- sum(sol$w > 0)
      sol$z <- z
      path[[length(path) + 1L]] <<- data.frame(
        iteration = length(path) + 1L, n_features = sol$n, hsic = sol$value,
        sigma = crit$sigma, restart = r, z = z, lambda = crit$lambda, steps = sol$steps)
      if (is.null(widest) || sol$n > widest$n) widest <<- sol
      progress_tick(bar, left / 2)
      left <<- left / 2
      if (prep$verbose) {
        message(sprintf("restart %d, z = %.6g: %d non-zero weights, criterion %.6g, %d steps",
                        r, z, sol$n, sol$value, sol$steps))
      }
      sol
    }
    z <- prep$z_start
    sol <- solve(z)
    doublings <- 0L
    while (sol$n < k && doublings < 60L) {
      z <- 2 * z
      doublings <- doublings + 1L
      sol <- solve(z)
    }
    exact <- sol$n == k
    if (sol$n > k) {
      hi <- sol
      z_hi <- z
      z_lo <- if (doublings > 0L) z / 2 else 0
      for (i in seq_len(prep$max_bisect)) {
        mid <- (z_lo + z_hi) / 2
        sol <- solve(mid)
        if (sol$n == k) break
        if (sol$n > k) {
          z_hi <- mid
          hi <- sol
        } else {
          z_lo <- mid
        }
      }
      exact <- sol$n == k
      if (!exact) {
        # keep the k largest weights of the closest solution above k
        sol <- hi
        keep <- order(-sol$w, seq_len(d))[seq_len(k)]
        sol$w[-keep] <- 0
      }
    }
    if (sol$n < k) {
      stop(sprintf(paste0("No radius z up to %g gave %d non-zero weights (at most %d): ",
                          "ask for fewer features."), z, k, sol$n), call. = FALSE)
    }
    sol$exact <- exact
    sol$restart <- r
    sol$widest <- widest$w
    if (is.null(best) || sol$value > best$value) best <- sol
    path[[length(path)]]$exact <- exact
    progress_tick(bar, left)
  }
  progress_finish(bar)
  list(w = best$w, widest = best$widest, z = best$z, value = best$value, exact = best$exact,
       restart = best$restart, path = l1_path_table(path))
}

# The rows of l1_search()'s path in one table; `exact` is NA on the rows of
# radii tried before a restart's last.
l1_path_table <- function(path) {
  do.call(rbind, lapply(path, function(row) {
    if (is.null(row$exact)) row$exact <- NA
    row
  }))
}

# The start of restart r: equal weights first, then random ones (the
# caller's generator) on the simplex.
l1_start <- function(r, d) {
  if (r == 1L) return(rep(1 / d, d))
  u <- stats::runif(d)
  u / sum(u)
}

l1_result <- function(method, prep, res, settings, call) {
  p <- prep$p
  weights <- numeric(p)
  weights[prep$active] <- res$w
  widest <- numeric(p)
  widest[prep$active] <- res$widest
  ord <- order(-weights, -widest, seq_len(p))
  rank <- integer(p)
  rank[ord] <- seq_len(p)
  names(weights) <- prep$features
  # contribution: the feature's share of the total weight
  features <- data.frame(feature = prep$features, rank = rank, score = unname(weights),
                         iteration = NA_integer_,
                         contribution = safe_ratio(unname(weights), sum(abs(weights))),
                         stringsAsFactors = FALSE)
  call[[1L]] <- as.name(method)
  settings$restart_chosen <- res$restart
  if (prep$unsupervised) settings$unsupervised <- TRUE
  new_selection(method, features, res$path, settings, call, weights = weights,
                annotation = prep$annotation, outcome = selection_outcome(prep))
}
