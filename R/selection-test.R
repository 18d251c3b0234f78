# selection_test(): a permutation p-value for the HSIC of the top n features
# of a selection that accounts for the selection, by re-running the selector
# on every permuted outcome (Song et al. 2012, section 10 asks whether a selected set
# is more dependent on the labels than chance; the naive test of the
# selected features answers a different question).

#' Significance of a selected feature set, reselecting within permutations
#'
#' Tests whether the top `n` features of a selection depend on the outcome
#' more than the top `n` features the same selector finds when the outcome
#' carries no information. The statistic is \eqn{T} = HSIC of the top `n`
#' features of `fit` and the outcome. For each of `n_perm` permutations
#' \eqn{b} of the outcome (drawn with R's random number generator:
#' [set.seed()] reproduces the p-value), the same selector is re-run with the
#' same settings on the permuted outcome \eqn{y_b}, its own top `n` features
#' are taken, and \eqn{T_b} = HSIC of those and \eqn{y_b}. The p-value is
#' \eqn{(1 + \#\{T_b \ge T\}) / (1 + B)} (ties within a relative
#' \eqn{\sqrt{\epsilon}}, as in [hsic_test()]).
#'
#' **A censored survival outcome** (`survival::Surv(time, event)`) is
#' permuted by whole samples: each sample's pair (time, event) moves
#' together, as the kernel log-rank test permutes it (under independence and
#' censoring independent of the features the pairs are exchangeable), and
#' the statistic uses the fit's label kernel, by default
#' [label_kernel_survival()]. With a design the pairs are permuted within
#' its strata.
#'
#' **Why not [hsic_test()] on the selected features?** The selector picked
#' the `n` features, out of many, *because* their HSIC with this outcome is
#' large. Under independence the permuted outcome has not been through that
#' search, so the naive permutation (or gamma) test compares a maximum with
#' ordinary values: its p-values are far too small (selection bias). On 12
#' pure-noise data sets of 30 samples and 40 features, the naive
#' 19-permutation test of BAHSIC's top 3 gave the smallest possible p-value,
#' 0.05, in 11, while `selection_test()` gave 0.25 to 0.95 (the test file
#' checks this). Re-selecting within each permutation puts the search into the
#' null distribution, so under independence the p-value of `selection_test()`
#' is uniform.
#'
#' **The HSIC of a top-n set** is defined once, from the fit's settings:
#' the selector's kernel (`settings$kernel`; a Gaussian kernel when the
#' selector has none, as for [l1_hsic()] and [l1_lsmi()]), with, for the
#' Gaussian and Laplace kernels, the width of the selector's policy at `n`
#' features: `sigma = "dimension"` (and [randsel()] with no width) gives
#' \eqn{1/(2n)} (Laplace \eqn{1/\sqrt{2n}}) on standardised features, as on
#' BAHSIC's path; `"fixed"` (or a kernel with a given width) the fit's width;
#' otherwise (`"optimize"`, the l1 selectors) the median heuristic on the
#' `n` features. The label kernel is the fit's (`settings$kernel_y`, or
#' [default_label_kernel()]), the estimator the fit's (biased if it has
#' none), and the features are standardised when the fit standardised them.
#' The statistic is computed exactly (\eqn{O(m^2)} memory) whatever
#' approximation the selector used.
#'
#' **Re-running the selector.** `fit$call` is evaluated again with `x` and
#' `y` replaced (as [update()] does: the call's `x` and `y`, or `formula` and
#' `data`, are evaluated in the caller's environment unless `x` and `y` are
#' given; so is every other argument of the call). For [bahsic()] and
#' [fohsic()] each re-run stops early with `n_features = n`: the top-n set is
#' the same as that of the full ranking (the rounds down to the first
#' surviving set of at most `n` features are the same, and the stopped run
#' removes the first features of that round's batch in the order the full run
#' ranks them), so \eqn{T} and \eqn{T_b} are computed by the same procedure.
#' A precomputed label kernel is permuted together with the outcome. Each
#' re-run starts from its own seed, drawn beforehand on the main thread, so
#' selectors that draw random numbers ([randsel()], [l1_hsic()],
#' [l1_lsmi()], the `"block"` and `"rff"` approximations) give the same
#' p-value under [set.seed()] for every back end.
#'
#' **Study designs.** With `covariates` and `block` (see [design]), or when
#' they are not given and the fit's call has them, the outcome is permuted
#' within the design's strata: the levels of its discrete covariates crossed
#' with the blocks (within each pair, patient or batch), never across them,
#' so that the null distribution keeps the outcome's association with the
#' design and the test asks whether the selected features depend on the
#' outcome *given* the design (for discrete covariates and blocks the
#' permutation test is exact). The re-runs of the selector use the fit's own
#' arguments, its covariates included; `covariates` given here change only
#' the permutations (e.g. a stratified test of an unadjusted selection). A
#' continuous covariate has no strata: an error that asks for a discrete
#' version (`covariates = ~ cut(age, 4)`). The statistic is the HSIC of the
#' top-`n` set and the outcome as without a design.
#'
#' **Cost**: `n_perm` selections, each stopped at `n` features where the
#' selector allows it, plus `n_perm + 1` HSIC values of an `n`-feature set.
#' Measured on one core (`inst/bench/bench-selection-test.R`) on the Golub
#' data of the package (38 samples): with the first 1000 genes, `n = 10`,
#' `n_perm = 100`, BAHSIC took 2.1 s (0.02 s per permutation, the cost of one
#' BAHSIC stopped at 10 features) and FOHSIC 0.5 s; with all 3051 genes
#' BAHSIC took 0.06 s per permutation. The cost
#' grows with the features and with \eqn{m^2}: with many features, filter
#' them first by a rule that does not look at the outcome (e.g. the most
#' variable genes), or let BAHSIC drop more per iteration (`drop`), and use
#' `parallel`. A filter that looks at the outcome (such as the top genes by
#' [feature_scores()]) is part of the selection: unless it is repeated on
#' every permuted outcome, the p-value is again too small.
#'
#' @param fit a selection ([bahsic_selection][selection]) with a call, from
#'   [bahsic()], [fohsic()], [randsel()], [l1_hsic()], [l1_lsmi()], [clinical_rfe()]
#'   or another selector of the package.
#' @param n size of the top set to test, from 1 to the number of ranked
#'   features.
#' @param n_perm number of permutations (each one a full selection).
#' @param x,y the data of the fit; `NULL` (default) evaluates the fit's call
#'   in the caller's environment. Give them when that environment no longer
#'   has the data. They must have as many samples as the fit.
#' @eval roxygen_parallel("the permutations (one selection each)")
#' @template design-args
#' @template design-data
#' @param ... further arguments of the selector for the re-runs that do not
#'   change the selection, e.g. `threads = 2`.
#' @return An object of class `htest` with `statistic` (HSIC0 or HSIC1 of
#'   the top-n set), `parameter` (`n`, `n_perm`), `p.value`, `method`,
#'   `data.name`, and `null`, the `n_perm` statistics of the re-selected
#'   sets, and `features`, the tested features.
#' @family selection
#' @family hsic
#' @eval roxygen_progress("the permutations (one selection each)")
#' @examples
#' set.seed(1)
#' sim <- simulate_xor(60)
#' fit <- bahsic(sim$x, sim$y, drop = 0.3)
#' selection_test(fit, n = 2, n_perm = 19)
#' @export
selection_test <- function(fit, n, n_perm = 100L, x = NULL, y = NULL, parallel = NULL,
                           covariates = NULL, block = NULL, data = NULL, ...) {
  spec <- design_spec(covariates, block, data)
  if (!inherits(fit, "bahsic_selection")) {
    stop("'fit' must be a selection from bahsic(), fohsic(), randsel(), l1_hsic(), ... (class bahsic_selection).",
         call. = FALSE)
  }
  k <- length(fit$ranking)
  if (missing(n) || !is.numeric(n) || length(n) != 1L || !is.finite(n) || n != round(n) ||
      n < 1 || n > k) {
    stop(sprintf(paste0("'n' must be a whole number from 1 to %d, the number of features ",
                        "the fit ranked (of %d)."), k, nrow(fit$features)), call. = FALSE)
  }
  n <- as.integer(n)
  n_perm <- check_whole(n_perm, "n_perm", 1L)
  run <- check_parallel(parallel)
  if (is.null(fit$call)) {
    stop(paste0("'fit' has no call to re-run: selection_test() repeats the selection on ",
                "permuted outcomes, so 'fit' must come from a selector such as bahsic()."),
         call. = FALSE)
  }
  if (isTRUE(fit$settings$unsupervised)) {
    stop(paste0("'fit' is an unsupervised selection (unsupervised = TRUE): there is no outcome to permute, ",
                "so selection_test() does not apply."), call. = FALSE)
  }
  if (is.null(x) != is.null(y)) stop("Give both 'x' and 'y', or neither.", call. = FALSE)
  env <- parent.frame()
  rerun <- rerun_setup(fit, x, y, env, list(...), n, !is.null(parallel), spec)
  design <- selection_test_design(rerun$d$design)
  stat <- top_stat_setup(fit, n, rerun$d)
  m <- stat$m
  if (!is.null(fit$settings$n_samples) && m != fit$settings$n_samples) {
    stop(sprintf(paste0("The data have %d samples but the fit was made on %d: give the x and y ",
                        "of the fit."), m, fit$settings$n_samples), call. = FALSE)
  }
  if (!identical(rerun$d$features, fit$features$feature)) {
    stop("The data's features are not those of the fit: give the x and y of the fit.",
         call. = FALSE)
  }

  obs <- top_stat(stat, match(selected(fit, n), stat$features), seq_len(m))
  check_perm_size(n_perm, m)
  # the permutations, then one seed per re-run, all on the main thread
  perms <- vapply(seq_len(n_perm), function(i) {
    if (is.null(design)) sample.int(m) else design_shuffle(design)
  }, integer(m))
  if (m == 1L) perms <- matrix(perms, nrow = 1L)
  seeds <- sample.int(.Machine$integer.max, n_perm)
  kinds <- RNGkind()
  # a bar over the permutations; the selections inside report nothing
  bar <- progress_start(n_perm)
  on.exit(progress_end(bar), add = TRUE)
  null <- if (is.null(parallel) && is.null(bar)) {
    selection_perm(seq_len(n_perm), perms, seeds, kinds, rerun, stat, n)
  } else {
    # chunks of permutations in order (one each in this session, for the
    # bar): the serial run's statistics
    chunks <- chunk_units(n_perm, if (is.null(parallel)) 1L else 5L)
    unlist(run(chunks, ship(selection_perm, perms, seeds, kinds, rerun, stat, n),
               progress = bar, amounts = lengths(chunks)))
  }
  p <- perm_p_value(obs, null)
  out <- list(statistic = stats::setNames(obs, if (stat$unbiased) "HSIC1" else "HSIC0"),
              parameter = c(n = n, n_perm = n_perm), p.value = p,
              method = sprintf(paste0("HSIC of the top %d features of %s, selection repeated ",
                                      "on %d permutations"), n, method_label(fit$method), n_perm),
              data.name = rerun$data_name, null.value = c(HSIC = 0), alternative = "greater",
              null = null, features = selected(fit, n))
  if (!is.null(design)) {
    out$method <- paste0(out$method, " within strata (", design$text, ")")
  }
  class(out) <- "htest"
  out
}

# The design within whose strata the outcome is permuted (NULL: none). A
# continuous covariate has no strata to permute within: an error that says
# what to give instead.
selection_test_design <- function(design) {
  if (is.null(design) || design$permutation == "strata") return(design)
  stop(paste0("selection_test() cannot permute within a continuous covariate: it permutes ",
              "the outcome within strata (the levels of discrete covariates and the blocks), and ",
              "a continuous covariate has none. Give selection_test() a discrete version, e.g. ",
              "covariates = ~ cut(age, 4) with data = <the samples' annotation>; the selector ",
              "is still re-run with the fit's own covariates."), call. = FALSE)
}

# ---- re-running the selector ---------------------------------------------------

# What a re-run needs: the selector, its evaluated arguments, the data as the
# selector takes them (xr) and normalised (d), and the outcome to permute.
rerun_setup <- function(fit, x, y, env, extra, n, outer_parallel, spec = NULL) {
  call <- fit$call
  fname <- as.character(call[[1L]])
  fun <- rerun_selector(call, fname, env)
  kernel <- fit$settings$kernel
  clinical <- inherits(kernel, "bahsic_kernel") && is_clinical(kernel)
  given <- !is.null(x)
  src <- rerun_data(call, x, y, env, clinical)
  if (given) {
    src$data_name <- paste(deparse1(substitute(x, parent.frame())), "and",
                           deparse1(substitute(y, parent.frame())))
  }
  args <- rerun_args(src$args, extra, env, fun, fname, outer_parallel)
  # the permutations' design: selection_test()'s own, else the fit's
  if (is.null(spec)) spec <- design_spec(args$covariates, args$block, args$data)
  # bahsic() and fohsic() stop at n features: the same top-n set as the full
  # ranking (see ?selection_test)
  if (on_schedule(fit$method) && "n_features" %in% attr(args, "formals")) {
    args$n_features <- n
  }
  attr(args, "formals") <- NULL
  if (is.null(src$y)) {
    stop(paste0("'fit' is an unsupervised selection (no outcome): there is no outcome to ",
                "permute, so selection_test() does not apply."), call. = FALSE)
  }
  rerun <- rerun_inputs(fun, args, src$x, src$y, clinical, src$data_name, spec)
  own <- isTRUE(selector_field(fit$method, "hsic_select")) &&
    identical(fun, get(fit$method, envir = asNamespace("bahsic")))
  if (own) {
    rerun$problem <- rerun_problem(fit$method, rerun)
  }
  rerun
}

# BAHSIC and FOHSIC re-run from one problem: the arguments as the method
# takes them (hsic_select()'s list, checked once), the data prepared once
# (normalised, standardised: prepare_problem() without the labels); each
# permutation then makes only its labels (and their draws: blocks, random
# features) and runs the loop (problem_top()).
rerun_problem <- function(method, rerun) {
  capture <- get(paste0(method, ".default"), envir = asNamespace("bahsic"))
  body(capture) <- call("select_args", quote(environment()),
                        selector_step_arg(method),
                        quote(arg_match(estimator)), quote(if (!missing(sigma)) arg_match(sigma)))
  environment(capture) <- asNamespace("bahsic")
  args <- do.call(capture, c(list(rerun$x, rerun$y), rerun$args), quote = TRUE)
  args <- check_select_args(method, args)
  spec <- select_spec(method, args)
  base <- spec
  base$labels <- "none"
  base$kernel_y <- if (rerun$pre_y) NULL else spec$kernel_y
  pr <- suppressWarnings(prepare_problem(rerun$x, rerun$y, base))
  list(method = method, args = args, spec = spec, problem = pr)
}

# The top n features BAHSIC or FOHSIC finds on the problem with the outcome
# permuted by perm.
problem_top <- function(rp, perm, n, kernel_y) {
  pr <- rp$problem
  y <- pr$y
  pr$y <- if (is.matrix(y)) y[perm, , drop = FALSE] else y[perm]
  pr$kernel_y <- resolve_label_kernel(kernel_y, pr$y)
  pr <- problem_labels(pr, rp$spec)
  k <- problem_kernel(pr, rp$args$kernel, rp$args$sigma)
  run <- run_screened(rp$method, pr, k, rp$args)
  fit <- select_result(rp$method, pr, k, run$res, rp$args, call(rp$method), run$screen)
  selected(fit, n)
}

# The selector of the fit's call: the package's own by name, else the call's.
rerun_selector <- function(call, fname, env) {
  fun <- if (length(fname) == 1L && exists(fname, envir = asNamespace("bahsic"), mode = "function")) {
    get(fname, envir = asNamespace("bahsic"), mode = "function")
  } else {
    tryCatch(eval(call[[1L]], env), error = function(e) NULL)
  }
  if (!is.function(fun)) {
    stop(sprintf("The selector of 'fit' (%s) cannot be found: attach the package that has it.",
                 paste(deparse(call[[1L]]), collapse = "")), call. = FALSE)
  }
  fun
}

# The data of the fit (x and y given, or the call's x and y, or formula and
# data, evaluated in env), the name of the data, and the call's other
# arguments, unevaluated.
rerun_data <- function(call, x, y, env, clinical) {
  args <- as.list(call)[-1L]
  nm <- names(args)
  if (is.null(nm)) nm <- rep("", length(args))
  formula_fit <- "formula" %in% nm ||
    (length(args) > 0L && !nzchar(nm[1L]) && is.call(args[[1L]]) &&
     identical(args[[1L]][[1L]], as.name("~")))
  if (formula_fit) {
    if (!nzchar(nm[1L])) nm[1L] <- "formula"
    names(args) <- nm
    drop <- c("formula", "data", "subset", "na.action")
    data_name <- paste(deparse1(args$formula), if (!is.null(args$data)) {
      paste("in", deparse1(args$data))
    })
  } else {
    drop <- c("x", "y")
    data_name <- paste(deparse1(call[["x", exact = TRUE]]), "and",
                       deparse1(call[["y", exact = TRUE]]))
  }
  if (is.null(x)) {
    if (formula_fit) {
      cov <- if (!is.null(args$covariates)) eval(args$covariates, env)
      xy <- tryCatch(formula_inputs(as.call(c(call[[1L]], args)), env, frame = clinical,
                                    covariates = cov),
                     error = function(e) rerun_error(e))
      # the design is read from the formula's data (the rows it kept)
      if (!is.null(cov) || !is.null(args$block)) {
        args$data <- xy$data
        drop <- setdiff(drop, "data")
      }
    } else {
      if (is.null(call[["x", exact = TRUE]]) || is.null(call[["y", exact = TRUE]])) {
        stop("The call of 'fit' has no 'x' and 'y' to evaluate: give them to selection_test().",
             call. = FALSE)
      }
      xy <- tryCatch(list(x = eval(call[["x", exact = TRUE]], env),
                          y = eval(call[["y", exact = TRUE]], env)),
                     error = function(e) rerun_error(e))
    }
    x <- xy$x
    y <- xy$y
  }
  list(x = x, y = y, data_name = data_name,
       args = args[!names(args) %in% drop | !nzchar(names(args))])
}

# The call's other arguments evaluated in env, with the further arguments of
# selection_test() (each one of the selector's own), verbose off and, under
# an outer back end, no inner one. attr "formals": the selector's arguments.
rerun_args <- function(args, extra, env, fun, fname, outer_parallel) {
  args <- tryCatch(lapply(args, eval, envir = env), error = function(e) {
    stop(sprintf(paste0("An argument of the fit's call cannot be evaluated here (%s): run ",
                        "selection_test() where the fit was made."), conditionMessage(e)),
         call. = FALSE)
  })
  args[names(extra)] <- extra
  fmls <- names(formals(fun))
  if (!is.null(fmls)) {
    # the S3 default method's arguments, for the options a generic passes on
    def <- get0(paste0(fname, ".default"), envir = asNamespace("bahsic"), mode = "function")
    if (!is.null(def)) fmls <- union(fmls, names(formals(def)))
  }
  # the further arguments go to the selector: each must be one of its own
  nms <- names(extra)
  if (length(extra) && (is.null(nms) || any(!nzchar(nms)))) {
    stop("selection_test() passes '...' to the selector: name every further argument.",
         call. = FALSE)
  }
  for (nm in nms) {
    if (!nm %in% fmls) {
      unknown_arg_error(nm, "selection_test", c(names(formals(selection_test)), fmls),
                        hint = sprintf(paste0("Further arguments go to the selector %s(), ",
                                              "which has no '%s' either."), fname, nm))
    }
  }
  if ("verbose" %in% fmls) args$verbose <- FALSE
  if (outer_parallel && "parallel" %in% fmls) args["parallel"] <- list(NULL)
  attr(args, "formals") <- fmls
  args
}

# The data normalised once (d); what the selector is handed on every re-run
# (the normalised matrix, or the clinical kernel's data frame as it is).
rerun_inputs <- function(fun, args, x, y, clinical, data_name, spec = NULL) {
  na_action <- if (is.character(args$na_action)) args$na_action[1L] else "fail"
  assay <- if (is.null(args$assay)) 1L else args$assay
  d <- normalise_inputs(x, y, na_action = arg_match(na_action, c("fail", "omit")),
                        assay = assay, clinical = clinical, design = spec)
  # the selector takes the normalised matrix (as it would normalise x to it:
  # no second pass over a Bioconductor or out-of-memory source); the clinical
  # kernel encodes its data frame itself, so it gets x as it is
  if (clinical) {
    if (nrow(d$x) != NROW(x)) {
      stop(paste0("selection_test() with the clinical kernel needs data without missing ",
                  "values: drop those samples before selecting."), call. = FALSE)
    }
    xr <- x
  } else {
    xr <- d$x
    attr(xr, "clinical") <- NULL
    args$na_action <- NULL
    args$assay <- NULL
  }
  # a precomputed label kernel is permuted with the outcome
  ky <- args$kernel_y
  pre_y <- inherits(ky, "bahsic_label_kernel") && identical(ky$type, "regression") &&
    identical(ky$params$kernel$name, "precomputed")
  list(fun = fun, args = args, x = xr, y = d$y, d = d, pre_y = pre_y, data_name = data_name)
}

rerun_error <- function(e) {
  stop(sprintf(paste0("The data of the fit's call cannot be evaluated here (%s): give x and y ",
                      "to selection_test()."), conditionMessage(e)), call. = FALSE)
}

# The statistics of the permutations bs: each re-run from its own seed.
selection_perm <- function(bs, perms, seeds, kinds, rerun, stat, n) {
  vapply(bs, function(b) {
    perm <- perms[, b]
    top <- with_seed(seeds[b], kinds, rerun_top(rerun, perm, n))
    top_stat(stat, match(top, stat$features), perm)
  }, numeric(1))
}

# The top n features the selector finds on the outcome permuted by perm.
rerun_top <- function(rerun, perm, n) {
  y <- rerun$y
  yb <- if (is.matrix(y)) y[perm, , drop = FALSE] else y[perm]
  args <- rerun$args
  if (rerun$pre_y) {
    L <- args$kernel_y$params$kernel$params$K
    args$kernel_y <- label_kernel_regression(kernel_precomputed(L[perm, perm, drop = FALSE]))
  }
  if (!is.null(rerun$problem)) {
    return(suppressWarnings(problem_top(rerun$problem, perm, n, args$kernel_y)))
  }
  fit <- suppressWarnings(do.call(rerun$fun, c(list(rerun$x, yb), args), quote = TRUE))
  selected(fit, n)
}

# ---- the statistic: HSIC of a top-n set -------------------------------------------

# Everything the statistic of a set needs, fixed once from the fit: the
# (standardised) data, the kernel with its width for n features, the label
# matrices on the unpermuted outcome, the estimator.
top_stat_setup <- function(fit, n, d) {
  s <- fit$settings
  kernel <- s$kernel
  if (!inherits(kernel, "bahsic_kernel")) kernel <- kernel_gaussian()
  xs <- d$x
  clinical <- is_clinical(kernel)
  if (!clinical && isTRUE(s$standardize)) {
    xs <- .Call(C_standardize_columns, unname(xs), 1L)[[1L]]
  }
  kernel <- top_kernel(fit, kernel, n)
  kernel_y <- resolve_label_kernel(if (inherits(s$kernel_y, "bahsic_label_kernel")) s$kernel_y,
                                   d$y)
  check_memory(nrow(xs), 3)
  lab <- label_gram(kernel_y, d$y)
  estimator <- if (identical(s$estimator, "unbiased")) "unbiased" else "biased"
  list(x = xs, features = d$features, kernel = kernel, L = lab$L, Y = lab$Y,
       unbiased = estimator == "unbiased", m = nrow(xs),
       categorical = if (clinical) as.integer(attr(d$x, "clinical")$categorical))
}

# The kernel of the statistic for n features (see ?selection_test): a width
# kernel takes the width of the fit's policy at n features -- "dimension"
# (and randsel() with no width) the selectors' dimension_width(), "fixed"
# (or a kernel with a given width) the fit's, otherwise the median
# heuristic on the n features (sigma NULL).
top_kernel <- function(fit, kernel, n) {
  if (!kernel_has(kernel, "width")) return(kernel)
  s <- fit$settings
  policy <- if (is.character(s$sigma) && length(s$sigma) == 1L && !is.na(s$sigma)) {
    s$sigma
  } else if (!is.null(kernel$params$sigma)) {
    "fixed"
  } else {
    # the selector's own (randsel(): "dimension"), else the median heuristic
    selector_field(fit$method, "width_policy", "median")
  }
  kernel$params$sigma <- switch(policy,
    # standardised features: E ||x - x'||^2 = 2 n (as in src/select.c)
    dimension = dimension_width(kernel, n),
    fixed = kernel$params$sigma,
    NULL)
  kernel
}

# HSIC of the features `cols` against the outcome permuted by perm.
top_stat <- function(stat, cols, perm) {
  xs <- stat$x[, cols, drop = FALSE]
  K <- if (!is.null(stat$categorical)) {
    clinical_matrix(xs, stat$categorical[cols])
  } else {
    gram(stat$kernel, xs)
  }
  label <- if (is.null(stat$Y)) {
    list(L = stat$L[perm, perm, drop = FALSE])
  } else {
    list(Y = stat$Y[perm, , drop = FALSE])
  }
  st <- .Call(C_hsic_stats, unname(K), label)
  if (stat$unbiased) st[2L] else st[1L]
}
