#' Recursive feature elimination with the clinical kernel: RFE-SVM and RFE-MKL
#'
#' `clinical_rfe()` is Algorithm 1 of Paul and Dupont: starting from all features it
#' trains a classifier on the clinical kernel ([kernel_clinical()]) of the
#' surviving features, removes the fraction `drop` of them that are least
#' important (at least one), and repeats until none is left; the features
#' removed last rank first.
#'
#' **`importance = "svm"` (RFE-SVM, eq. 5-7).** A non-linear SVM is trained
#' on the precomputed kernel with kernlab's `ksvm()`; with \eqn{v_i =
#' \alpha_i y_i} its dual solution, \eqn{W^2(\alpha) = v^\top K v} and the
#' importance of feature f is \eqn{J(f) = |W^2(\alpha) -
#' W^2_{(-f)}(\alpha)|}, without re-training. The clinical kernel on the s
#' surviving features is the average of the per-feature kernels \eqn{K_f},
#' so the kernel without f is \eqn{K_{(-f)} = (s K - K_f) / (s - 1)} and
#' everything follows from the quadratic forms \eqn{q_f = v^\top K_f v},
#' computed in C for all f in one pass over the pairs of support vectors:
#' \eqn{J(f) = |q_f - W^2| / (s - 1)}, the literal form, `j_svm = "paper"`.
#' Its absolute value does not suit an average kernel: a feature counts as
#' important when its \eqn{q_f} is far from the mean \eqn{W^2 = \bar q} in
#' either direction, so among a few features the strongest can look least
#' important (it is closest to a mean it dominates), and with two features
#' both always tie. `j_svm = "share"` instead removes the feature's share
#' of the average without re-averaging, \eqn{K_{(-f)} = K - K_f / s},
#' which gives \eqn{J(f) = q_f / s}: Guyon et al.'s criterion for a sum of
#' kernels, monotone in \eqn{q_f} (and so the order of eq. 6 without its
#' absolute value). The default, `"share"`, is the better of the two by
#' measurement (10 x 5-fold cross-validated balanced classification rate of
#' an SVM on the top 5 features, 3-4 on data with 5-7;
#' `inst/bench/bench-clinical.R` in the sources): over eight clinical data
#' sets (birth weight, Cleveland heart disease, Wisconsin breast cancer, Pima
#' diabetes, 1984 house votes, GBSG2 breast cancer, melanoma, stage C
#' prostate cancer) it averaged 0.764 against 0.753 for `"paper"`, from
#' -0.03 (melanoma) to +0.08 (heart: 0.82 against 0.74), with more stable top
#' sets (mean Kuncheva index 0.69 against 0.52), and on simulated mixed data
#' it ranked a planted strong continuous and a planted strong categorical
#' feature first in 38 of 50 draws, `"paper"` in none.
#' The last feature (s = 1) has \eqn{J = W^2}. A constant feature (one value or one level)
#' has importance 0 and so leaves first: its \eqn{J} would only measure the
#' rescaling of the average kernel by \eqn{s / (s - 1)}.
#'
#' **`importance = "mkl"` (RFE-MKL, eq. 8).** The kernel is a convex
#' combination \eqn{\sum_f \mu_f K_f} (\eqn{\mu_f \ge 0}, \eqn{\sum \mu_f =
#' 1}) whose weights are learnt by SimpleMKL's reduced-gradient descent
#' (Rakotomamonjy et al. 2008) on the SVM dual optimum \eqn{J(\mu)}, whose
#' gradient is \eqn{-q_f / 2} (the same C routine): from uniform weights
#' (the clinical kernel), a descent direction on the simplex, a step found by
#' halving from the largest feasible one until \eqn{J} decreases (one SVM per
#' trial), until the duality gap \eqn{(\max_f q_f - \sum_f \mu_f q_f) / 2} is
#' below `mkl_control$gap` times \eqn{J}, after `mkl_control$max_iter`
#' steps, or when no step decreases \eqn{J}. The last happens on data with
#' many tied samples (categorical features), where the SVM dual has many
#' optima and its gradient is only a subgradient; the path reports the gap
#' reached (`mkl_gap`). The importance of f is \eqn{\mu_f}; features at equal weight (often
#' 0) are ordered by \eqn{q_f}.
#'
#' Ties in the importance (to a relative 1e-10) go to the feature that comes
#' first in `x`. Only two classes are supported. The SVMs are trained on
#' \eqn{K + 10^{-4} I} (`ksvm(tol = 3e-3, shrinking = FALSE)`): with tied
#' samples (categorical data) the clinical kernel is singular and varies
#' little, and kernlab's solver with its defaults could take seconds per SVM
#' and stop far from the optimum; \eqn{W^2} and the importances use \eqn{K}
#' itself.
#'
#' **Time and interrupts.** Every iteration computes the kernel of the
#' surviving features and trains one SVM, so `drop = 0` costs one SVM per
#' feature: on the ALL data (128 samples, the first 5000 genes) that is
#' 5000 SVMs and a few minutes, against 38 SVMs and about a second with
#' `drop = 0.2`. Ctrl-C (or a [setTimeLimit()]) stops `clinical_rfe()` between
#' iterations and inside the kernels, which check between blocks of columns;
#' kernlab's SVM solver does not check, so one SVM runs to its end first
#' (milliseconds on a hundred samples, one to a few seconds on 500 to 2000).
#'
#' **Study designs**: `clinical_rfe()` refuses `covariates` and `block`: it
#' trains an SVM on the class labels, and an SVM adjusted for covariates is
#' another model, not a projection of its labels (and the clinical kernel's
#' columns cannot be residualised on the covariates). [bahsic()] on numeric
#' features (factors as dummy columns, as its formula interface codes them)
#' ranks by dependence given the design.
#'
#' @inheritParams bahsic
#' @param x samples x features: a data frame with numeric (continuous),
#'   factor, character or logical (categorical) and ordered-factor columns (see
#'   [kernel_clinical()]), or a numeric matrix (all continuous); or a formula
#'   `outcome ~ features` with `data`, whose variables are taken as they are.
#' @param y the outcome: two classes (a factor, character or logical vector).
#'   `clinical_rfe()` is a classifier only: no numeric or matrix outcome, no `y = NULL`
#'   and no label kernel (a `kernel_y` is an error); for those use [bahsic()],
#'   [fohsic()] or [randsel()].
#' @param importance `"svm"` (eq. 5-7) or `"mkl"` (eq. 8).
#' @param kernel the kernel; only [kernel_clinical()], whose decomposition
#'   into per-feature kernels both importances use.
#' @param drop fraction of the surviving features removed per iteration, in
#'   \[0, 1); at least one is removed; 0.2 as in the paper. `drop = 0`
#'   removes one feature per iteration: one SVM per feature (see Details
#'   for the time this takes on thousands of features).
#' @param C the SVM's cost of constraint violation (positive).
#' @param j_svm for `"svm"`: `"share"` (the default: the kernel without f's
#'   share, \eqn{J(f) = q_f / s}) or `"paper"` (eq. 6-7 as written, the
#'   kernel without f re-averaged over the other features); see Details.
#' @param mkl_control for `"mkl"`: `list(max_iter = 20, gap = 0.01)`, the
#'   largest number of descent steps per RFE iteration and the relative
#'   duality gap at which they stop.
#' @param threads number of threads for the kernel and the quadratic forms;
#'   the result does not depend on it. Default and limit: see \link{threads}.
#' @param verbose report every iteration as a message.
#' @return An object of class `bahsic_selection` (see [selected()]) with
#'   method `"rfe_svm"` or `"rfe_mkl"`. `features$score` is the importance
#'   when the feature was removed and `features$contribution` its share of
#'   the importances of that iteration's survivors (see [selection]).
#'   `path` has one row per iteration with
#'   `n_features` at its start, `hsic` and `sigma` `NA` (not used) and
#'   `objective` (the SVM dual objective \eqn{\sum_i \alpha_i - W^2/2}),
#'   `w2` (\eqn{W^2}), `n_sv` (support vectors) and `train_error`; for MKL
#'   also `mkl_iter` and `mkl_gap`. The further element `importance` is a
#'   features x iterations matrix of the importances (`NA` once removed).
#' @references Paul, J. and Dupont, P. Kernel methods for mixed feature
#'   selection. ESANN 2014, Algorithm 1 and eq. 5-8.
#'
#'   Guyon, I., Weston, J., Barnhill, S. and Vapnik, V. (2002). Gene
#'   selection for cancer classification using support vector machines.
#'   Machine Learning 46, 389-422.
#'
#'   Rakotomamonjy, A., Bach, F., Canu, S. and Grandvalet, Y. (2008).
#'   SimpleMKL. JMLR 9, 2491-2521.
#' @family selection
#' @seealso [bcr()] and [kuncheva_index()] to evaluate a selection.
#' @eval roxygen_progress("the features eliminated")
#' @examples
#' if (requireNamespace("kernlab", quietly = TRUE) &&
#'     requireNamespace("MASS", quietly = TRUE)) {
#'   bw <- MASS::birthwt
#'   bw$race <- factor(bw$race, labels = c("white", "black", "other"))
#'   for (v in c("smoke", "ht", "ui")) bw[[v]] <- factor(bw[[v]])
#'   fit <- clinical_rfe(factor(low) ~ age + lwt + race + smoke + ptl + ht + ui + ftv,
#'                       data = bw)
#'   fit
#'   selected(fit, 3)
#'   clinical_rfe(factor(low) ~ age + lwt + race + smoke + ui, data = bw, importance = "mkl")
#' }
#' @export
clinical_rfe <- function(x, ...) {
  check_generic_args("clinical_rfe", if (!missing(x)) x, ...names())
  UseMethod("clinical_rfe")
}

#' @rdname clinical_rfe
#' @export
clinical_rfe.default <- function(x, y, importance = c("svm", "mkl"),
                                 kernel = kernel_clinical(), drop = 0.2, C = 1,
                                 j_svm = c("share", "paper"), mkl_control = list(),
                                 threads = default_threads(), verbose = FALSE,
                                 na_action = c("fail", "omit"), assay = 1L, covariates = NULL,
                                 block = NULL, data = NULL, ...) {
  check_dots(..., .fn = "clinical_rfe")
  refuse_design("clinical_rfe", covariates, block, data)
  call <- match.call()
  importance <- arg_match(importance)
  if (importance == "mkl" && !missing(j_svm)) {
    stop_unused("j_svm", "importance = \"svm\"", "importance = \"mkl\"")
  }
  if (importance == "svm" && !missing(mkl_control)) {
    stop_unused("mkl_control", "importance = \"mkl\"", "importance = \"svm\"")
  }
  j_svm <- arg_match(j_svm)
  check_kernel(kernel, "kernel", where = "in clinical_rfe()")
  if (!is_clinical(kernel)) {
    stop(paste0("clinical_rfe() supports only kernel = kernel_clinical(): both importances ",
                "use its decomposition into one kernel per feature."), call. = FALSE)
  }
  if (!is.numeric(drop) || length(drop) != 1L || !is.finite(drop) || drop < 0 || drop >= 1) {
    stop("'drop' must be a fraction in [0, 1): 0.2 removes 20% of the features per iteration, 0 one at a time.",
         call. = FALSE)
  }
  check_positive(C, "C")
  ctl <- rfe_mkl_control(mkl_control)
  check_flag(verbose, "verbose")
  threads <- check_threads(threads)
  check_kernlab()
  d <- normalise_inputs(x, y, na_action = arg_match(na_action), assay = assay,
                        clinical = TRUE)
  y <- d$y
  # numbers, a matrix, survival: the table's refusal; several classes: below
  if (!is.factor(y)) check_selector_outcome("clinical_rfe", y)
  if (nlevels(y) != 2L) {
    stop(sprintf(paste0("clinical_rfe() supports two classes; 'y' has %d (%s). Select two, ",
                        "or compare one class against the rest."),
                 nlevels(y), paste(utils::head(levels(y), 5L), collapse = ", ")), call. = FALSE)
  }
  if (any(tabulate(y) < 2L)) {
    stop(sprintf("Each class needs at least 2 samples for an SVM; class \"%s\" has %d.",
                 levels(y)[which.min(tabulate(y))], min(tabulate(y))), call. = FALSE)
  }
  z <- d$x
  m <- nrow(z)
  # the kernel, its copy with the ridge, kernlab's kernelMatrix and solver
  # copies, and v v' on the support vectors: 7.4 m x m matrices of R heap at
  # the peak of one iteration (measured with gc() at m = 2000)
  check_memory(m, 7.5)
  flags <- clinical_flags(z)
  constant <- apply(z, 2L, function(v) all(v == v[1L]))
  if (all(constant)) {
    stop("Every feature of 'x' is constant: the kernel is constant and there is nothing to rank.",
         call. = FALSE)
  }
  res <- rfe_loop(z, flags, y, importance, drop, C, j_svm, ctl, threads, verbose)
  imp <- res$history
  # contribution: the importance when removed as a share of the importances
  # of that iteration's survivors (RFE-SVM "share": of W^2; RFE-MKL: mu_f)
  total <- colSums(imp, na.rm = TRUE)[res$iteration]
  features <- data.frame(feature = d$features, rank = res$rank, score = res$score,
                         iteration = res$iteration, contribution = safe_ratio(res$score, total),
                         stringsAsFactors = FALSE)
  dimnames(imp) <- list(d$features, paste0("iteration", seq_len(ncol(imp))))
  settings <- list(kernel = kernel, importance = importance, drop = drop, C = C,
                   j_svm = if (importance == "svm") j_svm,
                   mkl_max_iter = if (importance == "mkl") ctl$max_iter,
                   mkl_gap = if (importance == "mkl") ctl$gap, n_samples = m,
                   threads = threads)
  settings <- settings[!vapply(settings, is.null, logical(1))]
  call[[1L]] <- as.name("clinical_rfe")
  new_selection(paste0("rfe_", importance), features, res$path, settings, call,
                importance = imp, annotation = d$annotation, outcome = selection_outcome(d))
}

# The SVMs are kernlab's.
check_kernlab <- function() {
  if (!have_namespace("kernlab")) {
    stop(paste0("clinical_rfe() trains its SVMs with the kernlab package: install it with ",
                "install.packages(\"kernlab\") (Debian: apt-get install r-cran-kernlab)."),
         call. = FALSE)
  }
}

#' @rdname clinical_rfe
#' @export
clinical_rfe.formula <- function(formula, data, subset, na.action, ...) {
  formula_method("clinical_rfe", match.call(), parent.frame(), kernel_clinical(), ...)
}

rfe_mkl_control <- function(control) {
  if (!is.list(control) || (length(control) && is.null(names(control))) ||
      length(setdiff(names(control), c("max_iter", "gap")))) {
    stop("'mkl_control' must be a list with elements max_iter and/or gap.", call. = FALSE)
  }
  ctl <- utils::modifyList(list(max_iter = 20L, gap = 0.01), control)
  if (!is.numeric(ctl$max_iter) || length(ctl$max_iter) != 1L || !is.finite(ctl$max_iter) ||
      ctl$max_iter < 0 || ctl$max_iter != round(ctl$max_iter)) {
    stop("'mkl_control$max_iter' must be a whole number >= 0.", call. = FALSE)
  }
  if (!is.numeric(ctl$gap) || length(ctl$gap) != 1L || !is.finite(ctl$gap) || ctl$gap < 0) {
    stop("'mkl_control$gap' must be a number >= 0.", call. = FALSE)
  }
  ctl
}

# One SVM on a precomputed kernel: v = alpha * y on the support vectors sv,
# W^2 = v' K v (eq. 5) and the dual objective sum(alpha) - W^2 / 2. With
# tied samples, as categorical data have, the clinical kernel is singular and
# varies little (K_ii + K_jj - 2 K_ij of order 0.01); kernlab's SMO with its
# defaults then took up to 7 s per SVM on MASS::birthwt and could stop far
# from the optimum (a dual objective of 87.8 instead of 117.8). The solver
# gets K + 1e-4 I (1e-4 of the unit diagonal; changes the objective by about
# 1e-4 relative), no shrinking and a KKT tolerance of 3e-3, which on those
# kernels solve in milliseconds with the objective within 1e-5 relative of a
# tol = 1e-4 solve.
rfe_ridge <- 1e-4
rfe_svm_tol <- 3e-3
rfe_svm <- function(K, y, C, fit = TRUE) {
  diag(K) <- diag(K) + rfe_ridge
  fit <- kernlab::ksvm(kernlab::as.kernelMatrix(K), y, type = "C-svc", C = C, fit = fit,
                       tol = rfe_svm_tol, shrinking = FALSE)
  diag(K) <- diag(K) - rfe_ridge
  sv <- kernlab::alphaindex(fit)[[1L]]
  v <- kernlab::coef(fit)[[1L]]
  w2 <- sum(v * (K[sv, sv, drop = FALSE] %*% v))
  list(sv = sv, v = v, w2 = w2, objective = sum(abs(v)) - w2 / 2,
       train_error = if (length(kernlab::error(fit))) kernlab::error(fit) else NA_real_)
}

# q_f = v' K_f v for every column f of z (restricted to the support vectors).
rfe_quad <- function(z, flags, s, threads) {
  .Call(C_clinical_dot, z[s$sv, , drop = FALSE], flags, tcrossprod(s$v), threads)
}

# eq. 6-7, J(f) = |W^2 - W^2_(-f)|, with K_(-f) = (p K - K_f) / (p - 1)
# ("paper") or K - K_f / p ("share").
jsvm_importance <- function(q, w2, j_svm) {
  p <- length(q)
  if (p == 1L) return(w2)
  if (j_svm == "share") return(abs(q) / p)
  abs(w2 - (sum(q) - q) / (p - 1))
}

# eq. 8: SimpleMKL-style reduced gradient on the simplex of the per-feature
# kernel weights, the SVM dual optimum J(mu) as objective (one SVM per
# evaluation), dJ/dmu_f = -q_f / 2.
mkl_weights <- function(z, flags, y, C, ctl, threads) {
  p <- ncol(z)
  eval_at <- function(mu, fit = FALSE) {
    K <- clinical_matrix(z, flags, threads, weight = mu)
    s <- rfe_svm(K, y, C, fit = fit)
    s$q <- rfe_quad(z, flags, s, threads)
    s$mu <- mu
    s
  }
  cur <- eval_at(rep(1 / p, p), fit = TRUE)
  gap <- 0
  it <- 0L
  while (p > 1L) {
    gap <- (max(cur$q) - sum(cur$mu * cur$q)) / 2
    if (gap <= ctl$gap * abs(cur$objective) || it >= ctl$max_iter) break
    mu <- cur$mu
    g <- -cur$q / 2
    u <- which.max(mu)
    # reduced gradient: move along the simplex, weights at 0 may only grow
    D <- -(g - g[u])
    D[mu <= 0 & D < 0] <- 0
    D[u] <- 0
    D[u] <- -sum(D)
    if (max(abs(D)) <= 1e-12 * max(abs(g))) break
    neg <- D < 0
    step <- min(-mu[neg] / D[neg])
    improved <- FALSE
    for (try in seq_len(8L)) {
      new <- pmax(mu + step * D, 0)
      new[new < 1e-12] <- 0
      new <- new / sum(new)
      cand <- eval_at(new)
      if (cand$objective < cur$objective - 1e-12 * abs(cur$objective)) {
        improved <- TRUE
        break
      }
      step <- step / 2
    }
    it <- it + 1L
    if (!improved) break
    cur <- cand
  }
  # the training error of the final weights (trial SVMs skip it)
  if (it > 0L) cur <- eval_at(cur$mu, fit = TRUE)
  cur$mkl_iter <- it
  cur$gap <- gap
  cur
}

# Algorithm 1 of Paul and Dupont (ESANN 2014) on the encoded data z.
rfe_loop <- function(z, flags, y, importance, drop, C, j_svm, ctl, threads, verbose) {
  p <- ncol(z)
  constant <- apply(z, 2L, function(v) all(v == v[1L]))
  active <- seq_len(p)
  rank <- rep(NA_integer_, p)
  score <- rep(NA_real_, p)
  iteration <- rep(NA_integer_, p)
  # the importances of each iteration, on its surviving features; one matrix
  # at the end (growing it by cbind() copied p x iterations numbers every
  # iteration: quadratic in p with drop = 0)
  history <- list()
  path <- list()
  eliminated <- integer(0)
  it <- 0L
  # a bar over the features to eliminate (R/progress.R)
  bar <- progress_start(p)
  on.exit(progress_end(bar), add = TRUE)
  while (length(active) > 0L) {
    it <- it + 1L
    s <- length(active)
    za <- z[, active, drop = FALSE]
    fa <- flags[active]
    if (importance == "svm") {
      fit <- rfe_svm(clinical_matrix(za, fa, threads), y, C)
      q <- rfe_quad(za, fa, fit, threads)
      imp <- jsvm_importance(q, fit$w2, j_svm)
      # a constant feature carries no information; its J would only measure
      # the rescaling of the average kernel by s / (s - 1)
      imp[constant[active]] <- 0
      key <- cbind(imp, 0)
    } else {
      fit <- mkl_weights(za, fa, y, C, ctl, threads)
      q <- fit$q
      imp <- fit$mu
      key <- cbind(imp, q)
    }
    history[[it]] <- list(active = active, imp = imp)
    row <- data.frame(iteration = it, n_features = s, hsic = NA_real_, sigma = NA_real_,
                      objective = fit$objective, w2 = fit$w2, n_sv = length(fit$sv),
                      train_error = fit$train_error)
    if (importance == "mkl") {
      row$mkl_iter <- fit$mkl_iter
      row$mkl_gap <- fit$gap
    }
    path[[it]] <- row
    if (verbose) {
      message(sprintf("RFE-%s iteration %d: %d features, objective %.6g, %d support vectors",
                      toupper(importance), it, s, fit$objective, length(fit$sv)))
    }
    # least important first; ties (to 1e-10 relative): the later column first
    rel <- function(v) {
      sc <- max(abs(v))
      if (sc > 0) round(v / (1e-10 * sc)) else v
    }
    ord <- order(rel(key[, 1L]), rel(key[, 2L]), -active)
    k <- min(s, max(1L, floor(drop * s)))
    out <- active[ord[seq_len(k)]]
    score[out] <- imp[ord[seq_len(k)]]
    iteration[out] <- it
    eliminated <- c(eliminated, out)
    active <- setdiff(active, out)
    progress_tick(bar, k)
  }
  rank[rev(eliminated)] <- seq_len(p)
  imp <- matrix(NA_real_, p, it)
  for (i in seq_len(it)) imp[history[[i]]$active, i] <- history[[i]]$imp
  list(rank = rank, score = score, iteration = iteration, history = imp,
       path = do.call(rbind, path))
}
