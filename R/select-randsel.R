#' Randomised feature selection: randSel
#'
#' `randsel()` is Algorithm 1 of Athanasakis, Shawe-Taylor and
#' Fernandez-Reyes (randSel). Every iteration draws `n_boot` random
#' subsamples of the samples; each is scored by the centred kernel-target
#' alignment of a random half of the surviving features and of that half plus
#' one more feature. The contribution of a feature (Definition 3.2) is the
#' mean alignment of the half-plus-one sets that contain it minus the mean
#' alignment of the halves that do not. The bottom `cull` fraction of the
#' features by contribution is then removed (culled), until `stop_at`
#' features remain. Optionally, a feature that is among the top `fix_top`
#' fraction of contributors `fix_times` iterations in a row is fixed: it is
#' never culled, and is part of every set from then on.
#'
#' **Alignment**: \eqn{A(K, L) = \langle K_c, L_c \rangle_F / (\|K_c\|_F
#' \|L_c\|_F)} with \eqn{K_c = HKH} (Cortes et al. 2012; section 2 of the
#' paper), computed on the subsample in \eqn{O(s^2)} from row means. A
#' constant kernel, or a subsample with a single class, has alignment 0.
#'
#' **Label kernel**: as for [bahsic()], `kernel_y = NULL` picks
#' [default_label_kernel()] (two classes: the balanced binary kernel of eq. 17
#' of Song et al. 2012; more: the balanced multiclass kernel; numeric: a
#' Gaussian kernel with the median-heuristic width). It is computed once on
#' all samples and restricted to each subsample.
#'
#' **Kernel width**: every set of one iteration uses the same width
#' (Proposition 3.4 compares a set with and without a feature at equal
#' width). With `kernel_gaussian()` (no `sigma`) it is \eqn{1 / (2 s)}
#' for standardised features, s the size of the half (plus the fixed
#' features), the "dimension" rule of [bahsic()]; Laplace:
#' \eqn{1/\sqrt{2s}}. A kernel with a given `sigma` keeps it throughout.
#'
#' **Draws**: per bootstrap, s of the m samples and then \eqn{h + 1} of
#' the n free features, \eqn{h = \lfloor n/2 \rfloor}, each subset
#' equally likely: the first h are the half, all h + 1 the half plus one. So
#' the two sets are matched as in the remark after Definition 3.2 (each is
#' uniform of its size, as Algorithm 1 asks). Each bootstrap draws from its
#' own xoshiro256++ stream, whose seed comes from R's random number
#' generator on the main thread: `set.seed()` reproduces a result, for any
#' number of `threads`, and the draws run in parallel with the rest.
#'
#' **Ranking**: fixed features first (in the order they were fixed), then
#' the final survivors by their last contribution, then the culled features,
#' the latest culled first, each iteration's by contribution. Ties go to the
#' feature that comes first in `x`. `score` is the feature's contribution in
#' the iteration it was culled, fixed or last scored; `iteration` that
#' iteration.
#'
#' **Cost**: an iteration with n free features costs about
#' \eqn{n_{boot} s^2 n / 4} multiply-adds (s = subsample size), and the
#' iterations shrink by `cull`, so about \eqn{n_{boot} s^2 n / (4\,
#' cull)} in all. On the ALL data (128 x 12625, 1000 subsamples of 32) that
#' is 1.3e10 and takes about as long as [bahsic()]'s full ranking with one
#' thread; bootstraps run in parallel with `threads`.
#'
#' **What it finds** (`inst/bench/bench-nonlinear.R targets`, m = 100,
#' planted genes among N(0, 1) genes, the defaults): a feature's contribution
#' is measured against random halves of the surviving features, whose kernel
#' with the "dimension" width is nearly constant while thousands survive (as
#' in BAHSIC's first iterations, see [bahsic()], "Screen"), so the early
#' culls are close to linear. Ten genes shifted between two classes among
#' 2,000 were recalled in the top 10 at 86% (limma's moderated t 94%); an XOR
#' pair among 2,000 ranked 235th to 1,972nd (its worse gene, 20 repeats, never
#' in the top 20) and a gene with a U-shaped effect on the log survival time
#' among 12,625 ranked 5,192nd to 12,145th (5 repeats). For such signal use
#' [bahsic()] with its screen, [pair_scores()] for pairs, or
#' `feature_scores(method = "hsic")` for genes alone.
#'
#' **Parallel runs**: in one R process an iteration's bootstraps run on
#' `threads` C threads. With `parallel`, they are split into chunks of 256
#' that go to the workers of the back end (each running its chunks on
#' `threads` threads, 1 by default), together with the columns of `x` still
#' in play, once per task of the back end (on the ALL data, 128 x 12625, 13
#' MB per task in the first iteration, a quarter less each iteration after).
#' The seeds of the bootstraps are drawn in this session before, and the
#' contributions summed here after, in bootstrap order, so the result is the
#' serial one to the last bit for every back end and number of workers. (On a
#' cluster of mixed processors, `options(bahsic.simd = FALSE)` makes every
#' worker use the same portable loop, where the AVX2 one would round
#' differently.) Worth it when an iteration's share per worker takes much
#' longer than shipping the data: many bootstraps, several machines.
#'
#' **Study designs** (`covariates`, `block`; see [design]): as in [bahsic()]
#' the features (and a numeric outcome) are residualised on the design on all
#' samples and the label kernel is projected off it, \eqn{PLP}, then
#' restricted to each subsample; the alignment's centring within a subsample
#' does not repeat the projection, so there the label is orthogonal to the
#' covariates only approximately. `settings$design` records the design.
#'
#' @inheritParams bahsic
#' @eval roxygen_parallel("the bootstraps of each iteration")
#' @param kernel kernel on the features, see [kernels] (not precomputed).
#' @param n_boot number of random subsamples per iteration (the paper used
#'   3000 on its artificial data, 5000-10000 on real data).
#' @param subsample size of each subsample as a fraction of the samples, in
#'   (0, 1]; at least 2 samples are drawn.
#' @param cull fraction of the free (not fixed) features removed per
#'   iteration, in (0, 1); at least one is removed.
#' @param fix_top,fix_times fix a feature once it has been among the top
#'   `fix_top` fraction (in (0, 1]) of the contributors `fix_times`
#'   consecutive iterations; both `NULL` (default) for no fixing.
#' @param stop_at stop when this many features remain (or fewer than two
#'   are left free).
#' @param threads number of threads over the bootstraps; the result does not
#'   depend on it. Default and limit: see \link{threads}.
#' @return An object of class `bahsic_selection` (see [selected()]) with
#'   method `"randsel"`, whose `features` has a further logical column
#'   `fixed` and a column `contribution` (`score` relative to the
#'   iteration's mean alignment, see [selection]), whose `path` has one row
#'   per iteration (`n_features` surviving
#'   at its start, `hsic` the mean centred alignment of its half-plus-one
#'   sets, `sigma` the width) and which has two further elements:
#'   `contributions`, a features x iterations matrix of the contributions
#'   (`NA` where a feature was no longer scored; plot its rows against the
#'   iteration for the paper's Figure 1), and `fixed`, the names of the fixed
#'   features.
#' @references Athanasakis, D., Shawe-Taylor, J. and Fernandez-Reyes, D.
#'   Learning non-linear feature maps (randSel). Algorithm 1, Definitions
#'   3.2-3.5, Table 1.
#'
#'   Cortes, C., Mohri, M. and Rostamizadeh, A. (2012). Algorithms for
#'   learning kernels based on centered alignment. JMLR 13, 795-828.
#' @family selection
#' @seealso \link{input-checks} for what each kind of bad input gives.
#' @eval roxygen_progress("the features culled, iteration by iteration")
#' @examples
#' set.seed(1)
#' sim <- simulate_xor(100)
#' fit <- randsel(sim$x, sim$y, n_boot = 200)
#' fit
#' selected(fit, 2)
#' matplot(t(fit$contributions), type = "l", lty = 1,
#'         col = ifelse(rownames(fit$contributions) %in% c("X1", "X2"), "red", "grey"),
#'         xlab = "iteration", ylab = "contribution")
#' @export
randsel <- function(x, ...) {
  check_generic_args("randsel", if (!missing(x)) x, ...names())
  UseMethod("randsel")
}

#' @rdname randsel
#' @export
randsel.default <- function(x, y, n_boot = 1000, subsample = 0.25, cull = 0.25,
                            fix_top = NULL, fix_times = NULL, kernel = kernel_gaussian(),
                            kernel_y = NULL, stop_at = 2, standardize = TRUE, threads = default_threads(),
                            parallel = NULL, verbose = FALSE, na_action = c("fail", "omit"),
                            assay = 1L, unsupervised = FALSE, covariates = NULL, block = NULL,
                            data = NULL, ...) {
  check_dots(..., .fn = "randsel")
  design <- selector_design_spec("randsel", covariates, block, data)
  check_selector_design("randsel", design)
  check_flag(unsupervised, "unsupervised")
  if (unsupervised && missing(y)) y <- NULL
  call <- match.call()
  check_kernel(kernel, "kernel", where = "in randsel()")
  if (is_clinical(kernel)) {
    stop("randsel() does not take the clinical kernel yet; use bahsic(), fohsic() or clinical_rfe().",
         call. = FALSE)
  }
  if (kernel$name == "precomputed") {
    stop(paste0("'kernel' cannot be a precomputed kernel: randsel() draws subsets of ",
                "features, so the kernel must be computed from them."), call. = FALSE)
  }
  check_randsel_args(n_boot, subsample, cull, fix_top, fix_times, stop_at)
  fixing <- !is.null(fix_top)
  check_flag(standardize, "standardize")
  check_flag(verbose, "verbose")
  if (!is.null(parallel) && missing(threads)) threads <- 1L
  threads <- check_threads(threads)
  run <- if (!is.null(parallel)) check_parallel(parallel)
  pr <- prepare_problem(x, y, list(
    na_action = arg_match(na_action), assay = assay, kernel_y = kernel_y,
    unsupervised = unsupervised, min_m = 3L, min_what = "randsel()", selector = "randsel",
    standardize = standardize, threads = threads, labels = "gram",
    memory = function(pr) randsel_budget(pr, randsel_size(subsample, pr$m), n_boot),
    design = design))

  release <- hold_parallel(parallel)
  on.exit(release(), add = TRUE)
  ctl <- list(n_boot = as.integer(n_boot), s = randsel_size(subsample, pr$m), cull = cull,
              fix_top = if (fixing) fix_top, fix_times = if (fixing) as.integer(fix_times),
              stop_at = as.integer(stop_at), verbose = verbose)
  # a bar over the features to cull (stop_at are left)
  bar <- progress_start(ncol(pr$x) - ctl$stop_at)
  on.exit(progress_end(bar), add = TRUE)
  ctl$progress <- bar
  res <- randsel_loop(pr, kernel, ctl, run)
  settings <- list(kernel = kernel, kernel_y = pr$kernel_y, n_boot = as.integer(n_boot),
                   subsample = subsample, subsample_size = ctl$s, cull = cull,
                   fix_top = fix_top, fix_times = fix_times, stop_at = as.integer(stop_at),
                   standardize = standardize, n_samples = pr$m, threads = threads)
  if (pr$unsupervised) settings$unsupervised <- TRUE
  settings <- design_settings(settings, pr$design)
  call[[1L]] <- as.name("randsel")
  randsel_result(pr, res, settings, call)
}

# randSel's own arguments (the bootstrap, culling, fixing and stopping rules).
check_randsel_args <- function(n_boot, subsample, cull, fix_top, fix_times, stop_at) {
  if (!is.numeric(n_boot) || length(n_boot) != 1L || !is.finite(n_boot) || n_boot < 1 ||
      n_boot != round(n_boot) || n_boot > 1e9) {
    stop(paste0("'n_boot' must be a whole number from 1 to 1e9, e.g. 1000 subsamples per ",
                "iteration."), call. = FALSE)
  }
  if (!is.numeric(subsample) || length(subsample) != 1L || !is.finite(subsample) ||
      subsample <= 0 || subsample > 1) {
    stop("'subsample' must be a fraction in (0, 1]: 0.25 draws a quarter of the samples.",
         call. = FALSE)
  }
  if (!is.numeric(cull) || length(cull) != 1L || !is.finite(cull) || cull <= 0 || cull >= 1) {
    stop("'cull' must be a fraction in (0, 1): 0.25 removes a quarter of the features per iteration.",
         call. = FALSE)
  }
  if (is.null(fix_top) != is.null(fix_times)) {
    stop("Give both 'fix_top' and 'fix_times' to fix features, or neither.", call. = FALSE)
  }
  if (!is.null(fix_top)) {
    if (!is.numeric(fix_top) || length(fix_top) != 1L || !is.finite(fix_top) ||
        fix_top <= 0 || fix_top > 1) {
      stop("'fix_top' must be a fraction in (0, 1], e.g. 0.05 for the top 5% of contributors.",
           call. = FALSE)
    }
    if (!is.numeric(fix_times) || length(fix_times) != 1L || !is.finite(fix_times) ||
        fix_times < 1 || fix_times != round(fix_times)) {
      stop("'fix_times' must be a whole number of at least 1 (consecutive iterations).",
           call. = FALSE)
    }
  }
  if (!is.numeric(stop_at) || length(stop_at) != 1L || !is.finite(stop_at) || stop_at < 1 ||
      stop_at != round(stop_at)) {
    stop("'stop_at' must be a whole number of at least 1 (features left at the end).",
         call. = FALSE)
  }
}

# The samples per subsample: a fraction of m, at least 2.
randsel_size <- function(subsample, m) min(m, max(2L, as.integer(round(subsample * m))))

# Before anything m x m: a full label kernel (with the median heuristic's
# workspace) and what one iteration allocates: the blocked columns and every
# thread's workspace, (q + 3) s^2 doubles for a batch of q bootstraps of s
# samples; and the seeds and two alignments of each of the n_boot bootstraps.
randsel_budget <- function(pr, s, n_boot) {
  m <- pr$m
  p <- pr$p
  threads <- pr$threads
  kernel_y <- pr$kernel_y
  full_label <- kernel_y$type == "regression" && kernel_y$params$kernel$name != "linear"
  check_budget(8 * 1.5 * full_label * as.double(m)^2 +
                 .Call(C_randsel_workspace, m, p, s, threads) + 24 * n_boot,
               m, "randsel()", sprintf("%d features, subsamples of %d, %d thread%s", p, s,
                                       threads, if (threads == 1L) "" else "s"),
               "Use a smaller 'subsample' or 'n_boot', fewer threads, or raise the option.")
}

# The shared result class, with randSel's contributions per iteration and
# its fixed features.
randsel_result <- function(pr, res, settings, call) {
  # contribution: the feature's contribution (Definition 3.2) relative to
  # the mean alignment of that iteration's half-plus-one sets (the path)
  h <- res$path$hsic[match(res$iteration, res$path$iteration)]
  features <- data.frame(feature = pr$features, rank = res$rank, score = res$score,
                         iteration = res$iteration, contribution = safe_ratio(res$score, h),
                         fixed = res$fixed, stringsAsFactors = FALSE)
  contributions <- res$history
  dimnames(contributions) <- list(pr$features, if (ncol(contributions)) {
    paste0("iteration", seq_len(ncol(contributions)))
  })
  new_selection("randsel", features, res$path, settings, call,
                contributions = contributions, fixed = pr$features[res$fixed_order],
                annotation = pr$annotation, outcome = selection_outcome(pr))
}

#' @rdname randsel
#' @export
randsel.formula <- function(formula, data, subset, na.action, ...) {
  formula_method("randsel", match.call(), parent.frame(), NULL, ...)
}

# C_randsel_iter through a parallel back end: the seeds of the bootstraps
# drawn here, their alignments computed by the workers in chunks of
# randsel_chunk bootstraps (C_randsel_align), the contributions added here in
# bootstrap order (C_randsel_contrib). Each bootstrap's alignments depend on
# its seed alone, so the result is C_randsel_iter's to the last bit. x: the
# columns in play (fixed first), shipped once per task of the back end.
randsel_chunk <- 256L

randsel_iter_parallel <- function(run, x, lab, opts) {
  dimnames(x) <- NULL
  seeds <- .Call(C_randsel_seeds, opts$n_boot)
  units <- lapply(chunk_units(ncol(seeds), randsel_chunk), function(i) seeds[, i, drop = FALSE])
  align <- function(seeds, x, opts) {
    .Call(C_randsel_align, x, seq_len(ncol(x)) - 1L, seeds, opts)
  }
  parts <- run(units, ship(align, x, c(opts, label_arg(lab))))
  a_half <- unlist(lapply(parts, `[[`, "a_half"))
  a_plus <- unlist(lapply(parts, `[[`, "a_plus"))
  contribution <- .Call(C_randsel_contrib, seeds, a_half, a_plus,
                        list(n_samples = nrow(x), subsample = opts$subsample,
                             n_free = ncol(x) - opts$n_fixed))
  list(contribution = contribution, a_half = a_half, a_plus = a_plus)
}

# The width of one iteration: every set uses it (Proposition 3.4).
randsel_width <- function(kernel, size) {
  par <- kernel_param(kernel)
  if (kernel_has(kernel, "width") && is.null(kernel$params$sigma)) {
    size <- max(1, size)
    par[1L] <- dimension_width(kernel, size)
  }
  par
}

# Order of a set of features by contribution, best first: NA last, ties by
# the lower column index.
by_contribution <- function(idx, contrib) idx[order(-contrib, idx, na.last = TRUE)]

# Algorithm 1: iterations in R (culling and fixing are cheap bookkeeping),
# each iteration's bootstraps in C (C_randsel_iter), or through the back end
# run (check_parallel(); randsel_iter_parallel()).
randsel_loop <- function(pr, kernel, ctl, run) {
  xs <- pr$x
  lab <- pr$label
  threads <- pr$threads
  fix_top <- ctl$fix_top
  fix_times <- ctl$fix_times
  stop_at <- ctl$stop_at
  cull <- ctl$cull
  p <- ncol(xs)
  surv <- seq_len(p)
  fixed <- integer(0)
  streak <- integer(p)
  score <- rep(NA_real_, p)
  iteration <- rep(NA_integer_, p)
  history <- matrix(NA_real_, p, 0L)
  culled <- list()
  path <- data.frame(iteration = integer(0), n_features = integer(0), hsic = numeric(0),
                     sigma = numeric(0))
  code <- kernel_code(kernel)
  it <- 0L
  repeat {
    free <- setdiff(surv, fixed)
    if (length(surv) <= stop_at || length(free) < 2L) break
    it <- it + 1L
    h <- length(free) %/% 2L
    par <- randsel_width(kernel, h + length(fixed))
    # the options of C_randsel_iter and C_randsel_align, read by name in C
    # (src/randsel_call.c): one list for the serial and the parallel paths
    opts <- list(kernel = code, p1 = as.double(par[1L]), p2 = as.double(par[2L]),
                 n_fixed = length(fixed), n_boot = ctl$n_boot, subsample = ctl$s,
                 threads = threads, simd = option_simd())
    res <- if (is.null(run)) {
      .Call(C_randsel_iter, xs, as.integer(c(fixed, free) - 1L), c(opts, label_arg(lab)))
    } else {
      randsel_iter_parallel(run, xs[, c(fixed, free), drop = FALSE], lab, opts)
    }
    contrib <- res$contribution
    history <- cbind(history, NA_real_)
    history[free, it] <- contrib
    score[free] <- contrib
    iteration[free] <- it
    sigma <- if (kernel_has(kernel, "width")) par[1L] else NA_real_
    path[it, ] <- list(it, length(surv), mean(res$a_plus), sigma)
    newly <- integer(0)
    if (!is.null(fix_top)) {
      ranked <- by_contribution(free, contrib[match(free, free)])
      top <- ranked[seq_len(max(1L, ceiling(fix_top * length(free))))]
      top <- top[!is.na(score[top])]
      streak[setdiff(free, top)] <- 0L
      streak[top] <- streak[top] + 1L
      newly <- by_contribution(top[streak[top] >= fix_times], score[top[streak[top] >= fix_times]])
      fixed <- c(fixed, newly)
    }
    cand <- setdiff(free, newly)
    k <- min(max(1L, floor(cull * length(cand))), length(surv) - stop_at, length(cand))
    if (k > 0L) {
      # the lowest contributions, NA first; ties: the later column goes first
      out <- cand[order(score[cand], -cand, na.last = FALSE)][seq_len(k)]
      culled[[length(culled) + 1L]] <- by_contribution(out, score[out])
      surv <- setdiff(surv, out)
    }
    if (ctl$verbose) {
      message(sprintf("randSel iteration %d: %d features, mean alignment %.6g, %d culled%s",
                      it, path$n_features[it], path$hsic[it], k,
                      if (length(newly)) sprintf(", %d fixed", length(newly)) else ""))
    }
    progress_tick(ctl$progress, k)
  }
  progress_finish(ctl$progress)
  final <- by_contribution(setdiff(surv, fixed), score[setdiff(surv, fixed)])
  order_all <- c(fixed, final, unlist(rev(culled)))
  rank <- integer(p)
  rank[order_all] <- seq_len(p)
  path$iteration <- as.integer(path$iteration)
  path$n_features <- as.integer(path$n_features)
  list(rank = rank, score = score, iteration = iteration, fixed = seq_len(p) %in% fixed,
       fixed_order = fixed, history = history, path = path)
}
