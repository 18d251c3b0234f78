#' Stability selection for any selector
#'
#' Runs a selector on many random halves of the samples and keeps the
#' features it selects in most of them (Meinshausen and Bühlmann 2010), with
#' complementary pairs of halves (Shah and Samworth 2013): the features whose
#' selection probability reaches `cutoff` are the stable set, and the
#' expected number of falsely selected features (the per-family error rate,
#' PFER) is bounded.
#'
#' **Subsamples.** With `sampling = "complementary"` (Shah and Samworth
#' 2013, section 2) each of the `n_subsamples` draws splits the samples into
#' two disjoint halves of \eqn{\lfloor m/2 \rfloor} samples, and the selector
#' runs on both: \eqn{2B} fits. With `"subsample"` (Meinshausen and Bühlmann
#' 2010, section 2.2) each draw is one half: \eqn{B} fits. For a factor
#' outcome the halves are stratified by class: each class is split evenly
#' between the two halves (an odd sample of a class goes to a half at
#' random), so every half holds every class. For a censored survival
#' outcome (`survival::Surv(time, event)`) they are stratified by event in
#' the same way, so that each half holds half the events (at least 4 events
#' are needed: 2 per half), and the selector ranks each half through the
#' survival label kernel ([label_kernel_survival()]). The draws, and then one seed
#' per fit, come from R's random number generator in this session, so
#' `set.seed()` before the call reproduces it and the result is the same
#' for every `parallel` back end and number of workers (a random selector,
#' e.g. `"randsel"`, runs each fit from its own seed).
#'
#' **Study designs.** With `covariates` and `block` (see [design]) every
#' half keeps each block's samples together (no pair or patient split
#' between the two halves of a draw), and the halves are stratified by the
#' outcome's classes (or events) and the levels of the design's discrete covariates: the
#' blocks (the samples, without a block) of each stratum are split evenly
#' between the halves, as the samples of each class are without a design.
#' Every class needs samples in two blocks or more. Each fit gets the design
#' of its half as `covariates` (the covariates' columns on its rows, less
#' those constant there) and `block`; a selector that cannot adjust is an
#' error before any fit, by its name, and a selector function gets them
#' when it has arguments named `covariates` and `block` (else it selects
#' without the design, with a warning).
#'
#' *The error bound with blocks.* Shah and Samworth (2013, section 2)
#' bound the PFER for complementary halves of \eqn{\lfloor m/2 \rfloor}
#' samples each. Halves that keep blocks together can differ in size, by at
#' most the size of the largest block (pairs split into an even number of
#' pairs per stratum give equal halves). The fits' sizes are reported in
#' `path$n_samples` (and `subsamples` is then a list, one vector of samples
#' per fit); when they differ by more than 2 samples (or 5% of the samples)
#' a warning says that the bound is approximate. The bound also treats the
#' samples as exchangeable: with blocks it holds for the blocks as the units
#' (each half is a random half of the blocks of each stratum), which is the
#' resampling that matches a blocked design.
#'
#' **Constant features** (one value over all the samples) carry no
#' information about the outcome: they are left out of the fits, with one
#' warning, and have selection probability 0; the error bound counts the p
#' features that vary, and `n_features` must be below that p. When every
#' feature is constant there is nothing to select: an error. (With the
#' clinical kernel, and `"clinical_rfe"`, the columns go to the selector as given.)
#' A warning of the selector in some fits (e.g. a feature constant within a
#' half) is given once, with the number of fits that gave it. For the other
#' kinds of bad input see \link{input-checks}.
#'
#' **Selection probability** of a feature: the fraction of the fits whose
#' top `n_features` (q) contained it. The stable set is the features with
#' probability at least `cutoff`, ranked by probability (ties by the mean
#' rank within the fits, then by column order); `score` is their
#' probability, and the column `probability` holds it for every feature.
#'
#' **Error bound.** Of `n_features`, `cutoff` and `pfer` give two (as in
#' [stabs::stabsel()]); the third comes from
#' [stabs::stabsel_parameters()]. `assumption = "none"` is the bound of
#' Meinshausen and Bühlmann (2010, theorem 1), \eqn{q^2 / ((2\pi - 1) p)};
#' `"unimodal"` and `"r-concave"` are the sharper bounds of Shah and
#' Samworth (2013, equations 8 and 9), which hold for complementary pairs
#' under those assumptions on the distribution of the selection
#' probabilities. `sampling = "subsample"` allows only `"none"`. The bound
#' is on the expected number of noise features in the stable set, under the
#' exchangeability assumption of Meinshausen and Bühlmann (2010, theorem 1)
#' for `"none"`; it is stored in `settings$pfer`.
#'
#' **Selectors.** A name: `"bahsic"`, `"fohsic"` and `"mrmr"` (run with
#' `n_features = q`, so BAHSIC stops when q features survive), `"randsel"` (`stop_at =
#' q`), `"l1_lsmi"` and `"l1_hsic"` (`n_features = q`), `"clinical_rfe"` and
#' `"hsic_weights"` (their top q), or a method of [feature_scores()] (`"t"`,
#' `"mt"`, `"pc"`, `"hsic"`, ...: the top q by rank); `...` goes to that
#' selector (e.g. `kernel`, `n_boot`, `lambda`), and an argument it does not
#' take is an error. `hsic_weights()` may give fewer than q non-zero
#' weights: those are then its selection. Or a `function(x, y, n)` of a
#' subsample (a numeric samples x features matrix with column names and the
#' outcome) returning the names or column numbers of at most `n` selected
#' features, best first; `...` goes to it too.
#'
#' @param x samples x features: a numeric matrix or data frame, a `Matrix` or
#'   `DelayedMatrix`, an `ExpressionSet` or a `SummarizedExperiment` (see
#'   \link{input-classes}); for the formula method, a formula `y ~ .`.
#' @param y the outcome: a factor, a numeric vector or matrix; for a
#'   Bioconductor object also the name of a column of its sample data.
#' @param selector the name of a selector or of a [feature_scores()] method,
#'   or a `function(x, y, n)`; see Details.
#' @param n_features q, the number of features each fit selects, at most
#'   the number of features that vary minus one.
#' @param cutoff the selection probability a stable feature reaches, in
#'   (0.5, 1].
#' @param pfer the bound on the expected number of false selections to
#'   reach: give it instead of `n_features` (q is then the largest with that
#'   bound) or instead of `cutoff` (with `n_features`; `cutoff` is then the
#'   smallest with that bound).
#' @param n_subsamples B, the number of draws: pairs of complementary halves
#'   (\eqn{2B} fits) or single halves (\eqn{B} fits).
#' @param sampling `"complementary"` (pairs of disjoint halves, Shah and
#'   Samworth 2013) or `"subsample"` (single halves, Meinshausen and
#'   Bühlmann 2010).
#' @param assumption the assumption of the error bound: `"unimodal"`,
#'   `"r-concave"` or `"none"` (see Details).
#' @eval roxygen_parallel("the fits", paste("one after another in this R session, or across",
#'   "`threads` forked workers (see `threads`)"))
#' @param threads threads for the fits: by default [default_threads()]. With
#'   no `parallel` back end the fits of a selector run across that many
#'   forked worker processes of 1 thread each (`parallel::mclapply()`, on
#'   Linux and macOS; on Windows, which cannot fork, one after another, each
#'   on that many threads); the fits of a [feature_scores()] method, which
#'   take less time than starting a worker, run one after another on that
#'   many threads; with `parallel`, 1 per worker unless given (see
#'   \link{threads}). The result is the same either way. Small fits do not
#'   feed many threads: on 16 cores BAHSIC ran the 32 fits of halves of the 39
#'   ALL samples of `inst/bench/bench-stability.R` 9.3 times faster than on
#'   one thread with the fits across 16 threads, and 1.56 times faster with
#'   16 threads inside each fit (the C core without R). The workers share `x`
#'   and the other large vectors of this session (copy-on-write); each holds
#'   one fit at a time (its half of the samples and the selector's
#'   workspace) and copies the pages of this session's small R objects that
#'   its garbage collector marks (some 100 MB in a session with ALL loaded),
#'   so the peak memory is this session's plus `threads` times that. Each
#'   worker checks its fit's workspace against its share of the memory
#'   budget (option `bahsic.max_memory` divided by the number of workers), so
#'   the fits together stay within it; a fit over its share is an error that
#'   says so. Ctrl-C stops the workers; an error in a fit stops the run with
#'   that error.
#' @param na_action `"fail"` (an error on missing values) or `"omit"` (drop
#'   the samples with missing values first).
#' @param assay for a `SummarizedExperiment`: which assay.
#' @template design-args
#' @param data for the default method, a data frame of the samples'
#'   annotation in which a `covariates` formula (and a `block` given by name)
#'   is evaluated; for the formula method, the formula's data (the
#'   covariates are read from it).
#' @param formula,subset,na.action the formula interface: `y ~ .` with
#'   the data frame `data`, as in [stats::lm()].
#' @param ... further arguments of the selector (see Details).
#' @return An object of class `bahsic_selection` (see [selected()]) with
#'   method `"stability"`: `features` ranks the stable set (`score` its
#'   selection probability) and has further columns `probability` (every
#'   feature) and `mean_rank` (its mean position in the fits' selections,
#'   q + 1 when not selected); `path` has one row per fit (`iteration` the
#'   fit, `n_features` how many it selected, `hsic` and `sigma` `NA`,
#'   `draw` the draw it belongs to, `n_samples` its samples); `settings`
#'   holds `selector`, `q`, `cutoff`, `pfer` (the bound), `B`, `sampling`,
#'   `assumption`, `n_fits`; and two further elements: `subsamples`, the
#'   samples of every fit (a matrix, one column per fit), and `selections`,
#'   the features every fit selected (a list of names, best first).
#'   `selected()` gives the stable set, `plot()` the selection probabilities.
#' @references Meinshausen, N. and Bühlmann, P. (2010). Stability selection.
#'   JRSS B 72, 417-473.
#'
#'   Shah, R. D. and Samworth, R. J. (2013). Variable selection with error
#'   control: another look at stability selection. JRSS B 75, 55-80.
#' @family selection
#' @seealso [evaluate_selection()] for the stability of top lists across
#'   cross-validation folds.
#' @eval roxygen_progress("the fits")
#' @examples
#' set.seed(1)
#' x <- golub$x[, 1:300]
#' fit <- stability_selection(x, golub$y, selector = "t", n_features = 10,
#'                            n_subsamples = 20)
#' fit
#' selected(fit)
#' plot(fit)
#' @export
stability_selection <- function(x, ...) {
  # the selector's own arguments travel in `...`: only the others are checked
  # here (with the selector's suggested for a near miss of one of them)
  sel_formals <- stab_selector_formals(stab_dots_selector(...), reserved = TRUE)
  own <- setdiff(...names(), sel_formals)
  stab_near_miss(own, sel_formals, stab_dots_selector(...))
  check_generic_args("stability_selection", if (!missing(x)) x, own)
  UseMethod("stability_selection")
}

#' @rdname stability_selection
#' @export
stability_selection.default <- function(x, y, selector = "bahsic", n_features, cutoff = 0.75,
                                        pfer = NULL, n_subsamples = 50L,
                                        sampling = c("complementary", "subsample"),
                                        assumption = c("unimodal", "r-concave", "none"),
                                        parallel = NULL, threads = default_threads(),
                                        na_action = c("fail", "omit"), assay = 1L,
                                        covariates = NULL, block = NULL, data = NULL, ...) {
  call <- match.call()
  spec <- design_spec(covariates, block, data)
  call[[1L]] <- as.name("stability_selection")
  sel <- stab_selector(selector, list(...))
  if (sel$name %in% score_methods) {
    check_one_row_per_feature(sel$name, sel$args, "stability_selection()")
  }
  sampling <- arg_match(sampling)
  if (sampling == "subsample") {
    if (!missing(assumption) && arg_match(assumption) != "none") {
      stop_unused(sprintf("assumption = \"%s\"", arg_match(assumption)),
                  "sampling = \"complementary\"", "sampling = \"subsample\"")
    }
    assumption <- "none"
  } else {
    assumption <- arg_match(assumption)
  }
  n_subsamples <- check_whole(n_subsamples, "n_subsamples", 1L)
  if (!is.null(parallel) && missing(threads)) threads <- 1L
  threads <- check_threads(threads)

  d <- stab_inputs(x, y, arg_match(na_action), assay, sel$clinical, spec)
  stab_check_design(sel, d$design)
  # constant features are left out of the fits (see stab_varying())
  varying <- stab_varying(d, sel$clinical)
  params <- stab_parameters(sum(varying), if (!missing(n_features)) n_features,
                            if (!missing(cutoff)) cutoff, pfer, n_subsamples, sampling,
                            assumption, n_constant = sum(!varying))
  q <- params$q

  # the draws, then one seed per fit, all from the caller's stream, in this order
  check_size(n_subsamples * (4 * as.double(NROW(d$y)) + 1024), "n_subsamples", n_subsamples,
             sprintf("the halves of %d samples and two fits' results a draw", NROW(d$y)))
  subsamples <- stab_subsamples(d$y, n_subsamples, sampling, d$design)
  if (sel$name %in% score_methods) stab_check_outcome(sel, d$y)
  n_fits <- if (is.list(subsamples)) length(subsamples) else ncol(subsamples)
  seeds <- sample.int(.Machine$integer.max, n_fits)
  workers <- stab_workers(sel, parallel, threads, n_fits)
  run <- if (workers > 1L) fork_parallel(workers) else check_parallel(parallel)
  if (workers > 1L) threads <- 1L
  # a bar over the fits; the selections inside report nothing
  bar <- progress_start(n_fits)
  on.exit(progress_end(bar), add = TRUE)
  fits <- run(seq_len(n_fits),
              ship(stab_fit, x = d$x[, varying, drop = FALSE], y = d$y, subsamples = subsamples,
                   seeds = seeds, kinds = RNGkind(), sel = sel, q = q, threads = threads,
                   design = d$design),
              progress = bar)
  stab_warn_fits(fits)
  # column numbers of the fits' data back to those of 'x'
  picks <- lapply(fits, function(f) which(varying)[f$picks])
  stab_result(d, picks, subsamples, sel, params, sampling, call)
}

#' @rdname stability_selection
#' @export
stability_selection.formula <- function(formula, data, subset, na.action, ...) {
  formula_method("stability_selection", match.call(), parent.frame(),
                 list(...)[["kernel"]], ...)
}

# The built-in selectors are those of the selector table (R/selector-table.R),
# each fit called by run_selector().

# The arguments stability_selection() sets itself in every fit: a user's
# value for them would contradict q, the subsample or the back end.
stab_reserved <- c("x", "y", "...", "n_features", "stop_at", "threads", "parallel", "method",
                   "na_action", "assay", "unsupervised", "covariates", "block", "data")

# `selector` from the generic's `...` (by name only; the default otherwise).
stab_dots_selector <- function(...) {
  i <- match("selector", ...names())
  if (is.na(i)) eval(formals(stability_selection.default)$selector) else ...elt(i)
}

# A name close to an argument of the selector and to none of
# stability_selection(): an error that suggests the selector's.
stab_near_miss <- function(names, sel_formals, selector) {
  mine <- setdiff(c(names(formals(stability_selection.default)),
                    names(formals(stability_selection.formula))), "...")
  for (nm in names[!is.na(names) & nzchar(names)]) {
    if (any(startsWith(mine, nm)) || !is.null(closest_name(nm, mine))) next
    best <- closest_name(nm, sel_formals)
    if (!is.null(best)) {
      stop(sprintf("stability_selection() has no argument '%s'. Did you mean '%s' (of the selector %s)?",
                   nm, best, if (is.function(selector)) "function" else selector), call. = FALSE)
    }
  }
  invisible()
}

# The names a selector takes in `...` (reserved = TRUE: also those
# stability_selection() sets itself); NULL: any (a function with `...`).
stab_selector_formals <- function(selector, reserved = FALSE) {
  if (is.function(selector)) {
    f <- names(formals(selector))
    if ("..." %in% f) return(NULL)
    return(f[-seq_len(min(3L, length(f)))])
  }
  if (!is.character(selector) || length(selector) != 1L || is.na(selector)) return(character())
  fn <- if (selector %in% score_methods) "feature_scores" else selector
  def <- get0(paste0(fn, ".default"), envir = topenv(environment(stab_selector_formals)),
              inherits = FALSE)
  if (!is.function(def) || !selector %in% c(selector_names(), score_methods)) return(character())
  setdiff(names(formals(def)), if (reserved) c("x", "y", "...") else stab_reserved)
}

# The selector as list(name, label, fun or NULL, args, takes_threads, clinical),
# its further arguments checked against it.
stab_selector <- function(selector, args) {
  if (is.function(selector)) {
    if (length(formals(selector)) < 3L && !"..." %in% names(formals(selector))) {
      stop("A 'selector' function must take (x, y, n): the subsample, its outcome and the ",
           "number of features to select.", call. = FALSE)
    }
    name <- "function"
  } else {
    name <- arg_match(selector, c(selector_names(), score_methods), aliases = score_aliases,
                      arg_name = "selector")
  }
  allowed <- stab_selector_formals(if (is.function(selector)) selector else name)
  nms <- names(args)
  if (length(args) && (is.null(nms) || any(!nzchar(nms)))) {
    extra_position_error("stability_selection", sum(if (is.null(nms)) TRUE else !nzchar(nms)))
  }
  if (!is.null(allowed)) {
    for (nm in nms) {
      if (nm %in% stab_reserved) {
        stop(sprintf(paste0("'%s' is set by stability_selection() in every fit (the number ",
                            "of features from 'n_features', the method from 'selector'); ",
                            "remove it."), nm), call. = FALSE)
      }
      if (!nm %in% allowed) {
        unknown_arg_error(nm, if (name == "function") "the selector function" else
                            if (name %in% score_methods) "feature_scores" else name, allowed)
      }
    }
  }
  fn <- if (name %in% score_methods) "feature_scores" else name
  takes_threads <- name != "function" &&
    "threads" %in% names(formals(get(paste0(fn, ".default"), mode = "function")))
  clinical <- isTRUE(selector_field(name, "clinical")) || is_clinical(args$kernel)
  for (nm in setdiff(selector_field(name, "needs"), names(args))) {
    stop(sprintf("selector = \"%s\" needs '%s' (see ?%s): give it in the call.", name, nm, name),
         call. = FALSE)
  }
  list(name = name, label = if (name == "function") "function" else name,
       fun = if (is.function(selector)) selector, args = args, takes_threads = takes_threads,
       clinical = clinical)
}

# The data once: a samples x features matrix with distinct feature names (a
# clinical table as given, its rows those kept), and the outcome.
stab_inputs <- function(x, y, na_action, assay, clinical, design = NULL) {
  d <- normalise_inputs(x, y, na_action = na_action, assay = assay, clinical = clinical,
                        design = design)
  if (clinical) {
    if (!is.matrix(x) && !is.data.frame(x)) {
      stop("With the clinical kernel 'x' must be a matrix or a data frame.", call. = FALSE)
    }
    # each fit encodes its own subsample, as a call on it would
    x <- if (is.null(d$rows)) x else x[d$rows, , drop = FALSE]
    d$x <- x
    d$features <- colnames(x)
  }
  if (is.null(d$features)) d$features <- paste0("V", seq_len(ncol(d$x)))
  colnames(d$x) <- d$features
  if (anyDuplicated(d$features)) {
    stop(sprintf("The features of 'x' need distinct names: \"%s\" appears twice.",
                 d$features[anyDuplicated(d$features)]), call. = FALSE)
  }
  d
}

# A score method's outcome checks on the whole outcome, before any fit, in
# the words of stability_selection() (its 'selector' is the method).
stab_check_outcome <- function(sel, y) {
  args <- sel$args[intersect(names(sel$args), c("var_equal", "estimator"))]
  tryCatch(do.call(check_score_outcome, c(list(sel$name, y, NROW(y)), args,
                                          list(args = sel$args))),
           error = function(e) {
             stop(gsub("method = \"", "selector = \"", conditionMessage(e), fixed = TRUE),
                  call. = FALSE)
           })
  invisible()
}

# Which features vary over the samples. A constant feature carries no
# information about the outcome, yet a selector that ranks every feature
# would pick it in turn when q reaches it (and every fit would warn about
# it): it is left out of the fits, with one warning here, and its selection
# probability is 0. The error bound then counts the p features that vary.
# (Not for the clinical kernel, whose table keeps every column as given and
# which handles a constant column itself.)
stab_varying <- function(d, clinical) {
  if (clinical) return(rep(TRUE, length(d$features)))
  constant <- constant_features(d$x)
  if (all(constant)) {
    stop(sprintf(paste0("Every feature of 'x' is constant (%d feature%s): there is nothing to ",
                        "select. Check that the right data were given."),
                 length(constant), if (length(constant) > 1L) "s" else ""), call. = FALSE)
  }
  if (any(constant)) {
    warning(sprintf(paste0("%d constant feature%s (%s%s): left out of the fits, selection ",
                           "probability 0. Remove them before the call to silence this warning."),
                    sum(constant), if (sum(constant) > 1L) "s" else "",
                    paste(utils::head(d$features[constant], 3L), collapse = ", "),
                    if (sum(constant) > 3L) ", ..." else ""), call. = FALSE)
  }
  !constant
}

# The warnings of the fits, each distinct one once (not once per fit), with
# the number of fits that gave it: e.g. a feature that is constant within
# some halves but not over all the samples.
stab_warn_fits <- function(fits) {
  msgs <- lapply(fits, function(f) unique(f$warnings))
  all_msgs <- unlist(msgs)
  for (w in unique(all_msgs)) {
    warning(sprintf("In %d of %d fits: %s", sum(all_msgs == w), length(fits), w), call. = FALSE)
  }
  invisible()
}

# q, cutoff and the bound on the PFER from two of (n_features, cutoff, pfer),
# by stabs::stabsel_parameters(). NULL: not given. p counts the features that
# vary; n_constant those left out.
stab_parameters <- function(p, n_features, cutoff, pfer, B, sampling, assumption,
                            n_constant = 0L) {
  if (!is.null(n_features) && !is.null(cutoff) && !is.null(pfer)) {
    stop("Give two of 'n_features', 'cutoff' and 'pfer': the third follows from them.",
         call. = FALSE)
  }
  varying <- if (n_constant > 0L) {
    sprintf(" that vary (%d %s constant)", n_constant, if (n_constant == 1L) "is" else "are")
  } else {
    ""
  }
  if (p < 2L) {
    stop(sprintf("'x' has one feature%s: there is nothing to select from.", varying),
         call. = FALSE)
  }
  if (is.null(n_features) && is.null(pfer)) {
    stop("Give 'n_features' (features per fit) or 'pfer' (the error bound to reach).",
         call. = FALSE)
  }
  if (is.null(cutoff) && (is.null(n_features) || is.null(pfer))) cutoff <- 0.75
  args <- list(p = p, B = B, assumption = assumption,
               sampling.type = if (sampling == "complementary") "SS" else "MB")
  if (!is.null(n_features)) {
    if (!is.numeric(n_features) || length(n_features) != 1L || !is.finite(n_features) ||
        n_features != round(n_features) || n_features < 1 || n_features >= p) {
      stop(sprintf(paste0("'n_features' must be a whole number from 1 to %d, fewer than the ",
                          "%d features%s (stability needs features left out)."), p - 1L, p,
                   varying),
           call. = FALSE)
    }
    args$q <- as.integer(n_features)
  }
  if (!is.null(cutoff)) {
    if (!is.numeric(cutoff) || length(cutoff) != 1L || !is.finite(cutoff) ||
        cutoff <= 0.5 || cutoff > 1) {
      stop("'cutoff' must be a single number in (0.5, 1], e.g. 0.75.", call. = FALSE)
    }
    args$cutoff <- as.double(cutoff)
  }
  if (!is.null(pfer)) {
    if (!is.numeric(pfer) || length(pfer) != 1L || !is.finite(pfer) || pfer <= 0) {
      stop("'pfer' must be a single positive number, e.g. 1 (one false selection expected).",
           call. = FALSE)
    }
    args$PFER <- as.double(pfer)
  }
  if (assumption == "r-concave" && !is.null(args$q) && !is.null(args$cutoff) &&
      args$cutoff <= args$q / p) {
    stop("With assumption = \"r-concave\" 'cutoff' must be above n_features / p.", call. = FALSE)
  }
  par <- tryCatch(do.call(stabs::stabsel_parameters, args),
                  error = function(e) stab_bound_error(e, args, pfer, p, varying, assumption))
  q <- as.integer(par$q)
  if (q < 1L) {
    stop(sprintf(paste0("'pfer' = %s is too small for cutoff %s: not one feature per fit ",
                        "keeps the bound. Raise 'pfer' or 'cutoff'."),
                 format(pfer), format(par$cutoff)), call. = FALSE)
  }
  if (q >= p) {
    stop(sprintf("'pfer' = %s allows %d features per fit of the %d%s: lower 'pfer'.",
                 format(pfer), q, p, varying), call. = FALSE)
  }
  list(q = q, cutoff = as.double(par$cutoff), pfer = as.double(par$PFER),
       assumption = par$assumption)
}

# stabs could not find the bound: say which inputs to change.
stab_bound_error <- function(e, args, pfer, p, varying, assumption) {
  if (is.null(pfer)) {
    # n_features and cutoff given: the sharper bounds hold only for a cutoff
    # high enough for q / p (Shah and Samworth 2013, equations 8 and 9)
    stop(sprintf(paste0("The error bound (assumption = \"%s\") is undefined for ",
                        "n_features = %d of the %d features%s with cutoff %s (stabs: %s). ",
                        "Lower 'n_features', raise 'cutoff' or use assumption = \"none\"."),
                 assumption, args$q, p, varying, format(args$cutoff), conditionMessage(e)),
         call. = FALSE)
  }
  # stabs' search for q or the cutoff fails when no value keeps the bound
  stop(sprintf(paste0("No %s keeps the PFER bound 'pfer' = %s with %s (stabs: %s). Raise ",
                      "'pfer'%s."), if (is.null(args$q)) "number of features per fit" else "cutoff",
               format(pfer), if (is.null(args$q)) sprintf("cutoff %s", format(args$cutoff)) else
                 sprintf("n_features = %d", args$q), conditionMessage(e),
               if (is.null(args$q)) " or 'cutoff'" else " or lower 'n_features'"),
       call. = FALSE)
}

# One half of the samples and its complement, stratified by class for a
# factor outcome: each class is split evenly, and the classes' odd samples
# are shared between the halves at random; both halves have floor(m / 2)
# samples. Returns the two index vectors.
stab_halves <- function(strata, m) {
  a <- integer(0)
  b <- integer(0)
  odd <- integer(0)
  for (s in strata) {
    s <- s[sample.int(length(s))]
    h <- length(s) %/% 2L
    a <- c(a, s[seq_len(h)])
    b <- c(b, s[h + seq_len(h)])
    if (length(s) %% 2L == 1L) odd <- c(odd, s[length(s)])
  }
  odd <- odd[sample.int(length(odd))]
  h <- length(odd) %/% 2L
  list(sort(c(a, odd[seq_len(h)])), sort(c(b, odd[h + seq_len(h)])))
}

# The samples of every fit, one column per fit (complementary: the two
# halves of draw b are columns 2b - 1 and 2b).
stab_subsamples <- function(y, B, sampling, design = NULL) {
  m <- NROW(y)
  if (m < 6L) {
    stop(sprintf(paste0("Stability selection fits on halves of the samples: %d samples give ",
                        "halves of %d; give at least 6 samples."), m, m %/% 2L), call. = FALSE)
  }
  # a censored outcome: every half needs events, split evenly between halves
  if (is_surv(y)) check_surv_events(y, 4L, "Stability selection (2 events in every half)")
  if (!is.null(design)) return(stab_design_subsamples(y, B, sampling, design))
  strata <- if (is.factor(y)) split(seq_len(m), y) else
    if (is_surv(y)) split(seq_len(m), surv_event(y)) else list(seq_len(m))
  if (is.factor(y)) {
    n <- lengths(strata)
    if (any(n < 2L)) {
      stop(sprintf(paste0("Class \"%s\" of 'y' has %d sample%s: each half of the samples needs ",
                          "every class, so every class needs at least 2 samples. Drop that ",
                          "class's samples or merge it with another class."),
                   names(n)[which.min(n)], min(n), if (min(n) == 1L) "" else "s"),
           call. = FALSE)
    }
  }
  halves <- lapply(seq_len(B), function(b) {
    h <- stab_halves(strata, m)
    if (sampling == "complementary") h else h[1L]
  })
  out <- do.call(cbind, unlist(halves, recursive = FALSE))
  dimnames(out) <- NULL
  out
}

# The forked workers of the fits (1: one after another, the threads inside
# each fit). No back end: the fits of a selector across `threads` forked
# workers of 1 thread each where R can fork (fork_workers()); a
# feature_scores() method's fit takes less time than forking a worker
# (inst/bench/bench-stability.R), so its threads stay inside.
stab_workers <- function(sel, parallel, threads, n_fits) {
  if (!is.null(parallel) || sel$name %in% score_methods) return(1L)
  fork_workers(threads, n_fits)
}

# One fit: the selector on the subsample `i`, from its own seed; list(picks,
# warnings): the column indices of its (at most q) features, best first, and
# the messages of its warnings (given once for all the fits by
# stab_warn_fits(), whatever the back end).
stab_fit <- function(i, x, y, subsamples, seeds, kinds, sel, q, threads, design = NULL) {
  rows <- stab_rows(subsamples, i)
  xs <- x[rows, , drop = FALSE]
  ys <- if (is.matrix(y)) y[rows, , drop = FALSE] else y[rows]
  if (is.factor(ys)) ys <- droplevels(ys)
  features <- colnames(x)
  warnings <- character()
  value <- withCallingHandlers(
    with_seed(seeds[i], kinds, stab_run(sel, xs, ys, q, threads, design_fit_args(design, rows))),
    warning = function(w) {
      warnings <<- c(warnings, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
  list(picks = stab_picks(value, features, q, sel$label), warnings = warnings)
}

stab_run <- function(sel, x, y, q, threads, design_args = list()) {
  a <- sel$args
  th <- if (sel$takes_threads) threads
  if (identical(sel$name, "function")) {
    return(do.call(sel$fun, c(list(x, y, q), a, design_args_for(sel$fun, design_args))))
  }
  a <- c(a, design_args)
  if (sel$name %in% selector_names()) return(run_selector(sel$name, x, y, q, th, a))
  th <- if (!is.null(th)) list(threads = th)
  do.call("feature_scores", c(list(x, y, method = sel$name), th, a))
}

# A fit's answer as at most q column indices, best first.
stab_picks <- function(value, features, q, label) {
  r <- if (inherits(value, "bahsic_selection")) {
    value$ranking
  } else if (is.data.frame(value) && all(c("feature", "rank") %in% names(value))) {
    ok <- !is.na(value$rank)
    as.character(value$feature[ok][order(value$rank[ok])])
  } else {
    value
  }
  idx <- if (is.character(r) && is.null(dim(r))) {
    match(r, features)
  } else if (is.numeric(r) && is.null(dim(r)) && all(r == round(r), na.rm = TRUE)) {
    ifelse(r >= 1 & r <= length(features), as.integer(r), NA_integer_)
  } else {
    stop(sprintf(paste0("The selector (%s) must return feature names or column numbers, a ",
                        "selection or a feature_scores() data frame."), label), call. = FALSE)
  }
  if (anyNA(idx)) {
    stop(sprintf("The selector (%s) returned features that are not in 'x'.", label),
         call. = FALSE)
  }
  if (anyDuplicated(idx)) {
    stop(sprintf("The selector (%s) selected a feature twice.", label), call. = FALSE)
  }
  if (label == "function" && length(idx) > q) {
    stop(sprintf("The selector function returned %d features; it must return at most n = %d.",
                 length(idx), q), call. = FALSE)
  }
  idx[seq_len(min(q, length(idx)))]
}

# Selection probabilities and the stable set, as the shared result class.
stab_result <- function(d, picks, subsamples, sel, params, sampling, call) {
  p <- length(d$features)
  q <- params$q
  n_fits <- length(picks)
  counts <- tabulate(unlist(picks), p)
  probability <- counts / n_fits
  # position within each fit's selection, q + 1 where not selected
  pos_sum <- rep((q + 1) * n_fits, p)
  for (pk in picks) {
    pos_sum[pk] <- pos_sum[pk] - (q + 1) + seq_along(pk)
  }
  mean_rank <- pos_sum / n_fits
  # integer counts against the cutoff: no rounding of k / n_fits decides a feature
  stable <- counts >= params$cutoff * n_fits - 1e-9
  ord <- order(-counts, mean_rank, seq_len(p))
  ord <- ord[stable[ord]]
  rank <- rep(NA_integer_, p)
  rank[ord] <- seq_along(ord)
  features <- data.frame(feature = d$features, rank = rank,
                         score = ifelse(stable, probability, NA_real_),
                         iteration = NA_integer_, probability = probability,
                         mean_rank = mean_rank, stringsAsFactors = FALSE)
  fits <- seq_len(n_fits)
  path <- data.frame(iteration = fits, n_features = lengths(picks), hsic = NA_real_,
                     sigma = NA_real_,
                     draw = if (sampling == "complementary") (fits + 1L) %/% 2L else fits,
                     n_samples = if (is.list(subsamples)) lengths(subsamples) else nrow(subsamples))
  settings <- list(selector = sel$label, q = q, cutoff = params$cutoff, pfer = params$pfer,
                   B = if (sampling == "complementary") n_fits %/% 2L else n_fits,
                   sampling = sampling, assumption = params$assumption, n_fits = n_fits,
                   n_samples = NROW(d$y))
  settings$design <- d$design$text  # (no element without a design)
  new_selection("stability", features, path, settings, call, subsamples = subsamples,
                selections = lapply(picks, function(pk) d$features[pk]),
                annotation = d$annotation, outcome = selection_outcome(d))
}

# The selection probabilities, sorted, with the cutoff and the stable set.
plot_stability <- function(x, top = 10L, labels = NULL, ...) {
  f <- x$features
  o <- order(-f$probability, f$mean_rank, seq_len(nrow(f)))
  prob <- f$probability[o]
  stable <- !is.na(f$rank[o])
  s <- x$settings
  n <- length(prob)
  log_x <- n > 50L
  k <- min(top, n, max(sum(prob > 0), 1L))
  lab <- if (k > 0L) feature_labels(x, o[seq_len(k)], labels) else character(0)
  # the names of the top genes stand above their bars, pushed up where they
  # would overlap (ranks 8 to 12 are a few pixels apart on a log axis): the
  # y axis gets the headroom they need
  cex_lab <- 0.7
  place <- function(top_y) {
    stack_labels(bar_inches(seq_len(k), c(1, n), log_x), prob[seq_len(k)],
                 graphics::strwidth(lab, units = "inches", cex = cex_lab),
                 graphics::strheight("Mg", units = "inches", cex = cex_lab), c(0, top_y))
  }
  top_y <- 1
  for (i in 1:4) top_y <- max(1, place(top_y)$top)
  args <- utils::modifyList(
    list(x = seq_len(n), y = prob, type = "h", log = if (log_x) "x" else "",
         ylim = c(0, top_y), yaxt = "n", col = ifelse(stable, "red3", "grey50"), lwd = 2,
         xlab = sprintf("features by selection probability%s", if (log_x) " (log scale)" else ""),
         ylab = "selection probability",
         main = sprintf("Stability selection (%s): %d stable feature%s", s$selector,
                        sum(stable), if (sum(stable) == 1L) "" else "s"),
         sub = sprintf("q = %d, %d fits (%s), PFER <= %s (%s)", s$q, s$n_fits, s$sampling,
                       format(s$pfer, digits = 3L), s$assumption)),
    list(...))
  do.call(graphics::plot, args)
  if (identical(args$yaxt, "n") && !"yaxt" %in% names(list(...))) {
    graphics::axis(2, at = pretty(c(0, 1)))
  }
  graphics::abline(h = s$cutoff, lty = 2, col = "grey30")
  # inside the box at its right end, where the bars are lowest
  usr <- graphics::par("usr")
  graphics::text(if (log_x) 10^usr[2L] else usr[2L], s$cutoff, sprintf("cutoff %s", format(s$cutoff)),
                 adj = c(1.05, -0.4), cex = 0.7, col = "grey30")
  if (k > 0L) {
    y <- place(args$ylim[2L])$y
    raised <- y - prob[seq_len(k)] > 1.5 * graphics::strheight("Mg", cex = cex_lab)
    if (any(raised)) {
      graphics::segments(which(raised), prob[seq_len(k)][raised], which(raised), y[raised],
                         lty = 3, col = "grey60")
    }
    graphics::text(seq_len(k), y, lab, pos = 4, offset = 0.2, cex = cex_lab, xpd = NA,
                   col = ifelse(stable[seq_len(k)], "red3", "grey30"))
  }
  invisible()
}

# Positions of `at` (x data values) in inches from the left of the plot
# region that plot() will set up for the data range `range` (R's "r" axis
# style: the range widened by 4%).
bar_inches <- function(at, range, log_x) {
  tr <- if (log_x) log10 else identity
  r <- tr(range)
  if (diff(r) == 0) r <- r + c(-0.5, 0.5)
  usr <- r + c(-1, 1) * 0.04 * diff(r)
  (tr(at) - usr[1L]) / diff(usr) * graphics::par("pin")[1L]
}

# Heights for labels that start at x (inches) and stand above bars of height
# p (data units, sorted in decreasing order): each label just above its bar,
# and raised above any later label it would overlap (from the last label to
# the first). Returns the label centres `y` and the `top` of the highest
# label, in data units for the y range `ylim` (widened by 4%, as plot()).
stack_labels <- function(x, p, width, height, ylim) {
  usr <- ylim + c(-1, 1) * 0.04 * diff(ylim)
  h <- 1.45 * height / graphics::par("pin")[2L] * diff(usr)  # a line, in data units
  k <- length(p)
  y <- p + 0.6 * h
  for (i in rev(seq_len(k))) {
    later <- seq_len(k) > i & x < x[i] + width[i] + 0.05
    if (any(later)) y[i] <- max(y[i], y[later] + h)
  }
  list(y = y, top = if (k) max(y) + 0.6 * h else ylim[2L])
}
