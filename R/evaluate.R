#' Cross-validated error and stability of feature selectors
#'
#' `evaluate_selection()` compares selectors the way the papers do (Song et
#' al. 2012, section 7.2 and Tables 1, 3 and 4): in stratified K-fold
#' cross-validation each selector ranks the features on the training fold
#' only, a support vector machine is trained on the top `n` features of that
#' ranking and scored on the held-out fold. Besides the error it reports how
#' stable the top-`n` lists are across the folds: the number of features
#' common to all of them (the "overlap" of Tables 3-4) and Kuncheva's index
#' ([kuncheva_index()]).
#'
#' **Selectors.** Built-in names: the selectors of the package that need no
#' further argument, `"bahsic"`, `"fohsic"`, `"mrmr"`, `"randsel"`,
#' `"l1_lsmi"`, `"l1_hsic"` and `"clinical_rfe"` (their defaults: Gaussian
#' kernel for the first four), `"bahsic_linear"` ([bahsic()] with
#' [kernel_linear()], the paper's "lin" as a selector), `"bahsic_dis"`
#' ([bahsic()] with [kernel_inverse_distance()], the paper's "dis"), and
#' every method of [feature_scores()]: `"pc"`, `"lin"`, `"t"`, `"snr"`,
#' `"mt"`, `"lods"`, `"pam"`, `"mmd"`, `"kta"`, `"hsic"`. Any other
#' selector is a function `function(x, y)` of the training fold (a numeric
#' samples x features matrix with column names and the outcome) that returns
#' a selection (as [bahsic()] does), a [feature_scores()] data frame, or the
#' feature names (or column numbers) in rank order; it needs to rank at
#' least `max(n_features)` features. FOHSIC is run with `n_features =
#' max(n_features)`, since it adds one feature per step, and so are
#' [mrmr()], also forward, and [l1_lsmi()] and [l1_hsic()], which need the
#' number.
#'
#' **Classifier.** A support vector machine with the Gaussian kernel
#' \eqn{k(x, x') = \exp(-\|x - x'\|^2 / (2 \sigma^2))} from kernlab's
#' `ksvm()` on the top `n` features, each standardised with the training
#' fold's mean and standard deviation: C-classification for a factor
#' outcome, one-versus-the-rest for more than two classes (the class with
#' the largest decision value wins), epsilon regression (\eqn{\epsilon =
#' 0.1} on the outcome standardised with the training fold's mean and
#' standard deviation) for a numeric one.
#' `tune` gives the grid of the cost `C` and the width `sigma`; the default
#' is the paper's grid (section 9.2), searched by stratified cross-validation
#' with `inner_folds` folds inside each training fold (on the features that
#' fold selected; the first pair with the smallest inner error wins). A
#' `sigma` of `"median"` is the median distance between the training
#' samples (section 7.2.3). With one `C` and one `sigma` there is no inner
#' search: `tune = list(C = 100, sigma = "median")` with `n_features = 5`
#' is the protocol of Table 1. `classifier = "none"` skips the classifier
#' and reports only the rankings and their stability.
#'
#' **Study designs.** With `covariates` and `block` (see [design]) the
#' resampling respects the design. The folds keep every block's samples
#' together (no patient in both a training and a test fold, no pair split),
#' and are stratified by the outcome's classes and the levels of the
#' design's discrete covariates (a batch is spread evenly over the folds):
#' blocks are dealt out to the folds as samples are without them, so folds
#' of blocks of different sizes differ in size. `folds` given as a vector
#' must not split a block (an error names it). Every selector ranks the
#' training fold with the design of its rows: a built-in selector or
#' [feature_scores()] method gets `covariates` (the covariates' columns on
#' those rows, less those constant there, such as a batch absent from the
#' fold) and `block` (the blocks of those rows); one that cannot adjust is an
#' error before any fold, by its name. A selector function gets them when it
#' has arguments named `covariates` and `block` (`function(x, y, covariates
#' = NULL, block = NULL)`); one without them ranks without the design, with a
#' warning. **The classifier does not see the covariates**: the SVM is
#' trained on the selected features alone, as they are, so the error is that
#' of a predictor built from the selected genes (the design shapes which
#' genes are chosen and how the samples are split, not the prediction). A
#' block that determines the outcome (a patient's repeated samples, all of
#' one class) cannot be adjusted for (the normaliser says so): give it as
#' `folds` instead, e.g. `folds = patient` (one fold per patient) or
#' `folds = <a fold number for each patient, repeated over its samples>`.
#'
#' **Censored survival outcomes.** With a right-censored
#' `survival::Surv(time, event)` outcome the folds are stratified by event
#' (the events, and the censored samples, each dealt out evenly over the
#' folds, in order of time; with a design, by event together with the
#' design's strata), so that every test fold has events: with `folds` a
#' number, at least 2 events per fold are needed (an error says how many
#' folds the events allow), and folds given as a vector must each hold an
#' event. The selectors rank the training fold through the survival label
#' kernel ([label_kernel_survival()]); the default `selectors` are
#' `"bahsic"` and the default [feature_scores()] method of a `Surv` outcome.
#' In place of the SVM (`classifier = "ridge_cox"`, the default for a
#' `Surv` outcome; `"svm"` is an error) a Cox model with a ridge penalty,
#' `survival::coxph(y ~ ridge(genes, theta = 1, scale = FALSE))` (Efron's
#' ties), is fitted on the top `n` genes of the training fold, each
#' standardised with the training fold's mean and standard deviation: the
#' penalty \eqn{\theta/2 \sum_j \beta_j^2} is a normal prior with standard
#' deviation \eqn{1/\sqrt{\theta}} = 1 on each gene's log hazard ratio per
#' standard deviation, which keeps the fit finite with more genes than
#' events in a fold. The same model is used whatever else is installed;
#' `tune = list(theta = )` sets another fixed penalty. Its linear predictor
#' on the test fold is scored by `survival::concordance()`: `concordance`
#' is Harrell's C (the fraction of comparable pairs whose predicted risk is
#' ordered as their times) and `concordance_uno` Uno's C (`timewt =
#' "n/G2"`, each pair weighted by the inverse square of the test fold's
#' censoring survival function; Uno, Cai, Pencina, D'Agostino and Wei
#' 2011), which does not depend on the censoring distribution as
#' Harrell's does. Both are reported; `summary()` and `print()` show both,
#' and `plot()` draws Harrell's C unless half the samples or more are
#' censored, when it draws Uno's. 0.5 is chance and higher is better (unlike
#' the errors). A fold without comparable pairs has no concordance (`NA`,
#' left out of the means).
#'
#' **Errors.** Classification: `error` is the fraction of misclassified
#' test samples and `balanced_error` is \eqn{1 -} [bcr()]. Regression:
#' `error` is \eqn{1 - r^2} between predictions and outcomes (the
#' "percentage of variance not explained" of Table 1), `rmse` the root
#' mean squared error, `balanced_error` `NA`.
#'
#' **Randomness and parallel runs.** The folds, and then one seed per fold,
#' are drawn from R's random number generator, so `set.seed()` before the
#' call reproduces it; each fold (its selectors, e.g. [randsel()], and its
#' inner folds) runs from its own seed, so the results are the same whether
#' the folds run one after another, through `future.apply` (`parallel =
#' "future"`, on the back end set by `future::plan()`) or through
#' BiocParallel (`parallel =` a `BiocParallelParam`, e.g.
#' `BiocParallel::MulticoreParam(2)`).
#'
#' @inheritParams bahsic
#' @param x samples x features: a numeric matrix or data frame, a `Matrix` or
#'   `DelayedMatrix`, an `ExpressionSet` or a `SummarizedExperiment` (genes x
#'   samples, turned around; see \link{input-classes}); for the methods, a
#'   `bahsic_evaluation`.
#' @param y the outcome: a factor (two or more classes), a numeric vector
#'   (regression) or a right-censored `survival::Surv(time, event)` (see
#'   "Censored survival outcomes"); for a Bioconductor object also the name of
#'   a column of its sample data.
#' @param selectors a character vector of built-in selector names, or a
#'   named list of names and functions; see Details.
#' @param n_features the sizes of the top lists to evaluate.
#' @param folds number of cross-validation folds (at least 2), or the fold
#'   of every sample (a vector of length `nrow(x)`, any values: e.g. the
#'   patient or the batch, for folds that keep them together; then
#'   `repeats = 1`).
#' @param repeats number of repeats of the cross-validation, each with new
#'   folds.
#' @param classifier `"svm"`, `"none"` or, for a censored survival outcome,
#'   `"ridge_cox"` (its default: a ridge Cox model scored by concordance).
#' @param tune `list(C = , sigma = )`: the grid of the SVM's cost and
#'   Gaussian width (`"median"` allowed for the width); with `classifier =
#'   "ridge_cox"`, `list(theta = )`, the ridge penalty (default 1).
#' @param inner_folds folds of the inner cross-validation that chooses `C`
#'   and `sigma` when `tune` has more than one pair.
#' @template design-args
#' @template design-data
#' @eval roxygen_parallel("the folds (each with its selectors and inner folds)")
#' @param threads threads of the built-in selectors that take them
#'   (`"bahsic"`, `"fohsic"`, `"mrmr"`, `"randsel"`, `"clinical_rfe"`,
#'   `"bahsic_linear"`, `"bahsic_dis"`): by default
#'   [default_threads()], or 1 per worker with `parallel` (see \link{threads}).
#' @return An object of class `bahsic_evaluation`, a list with
#'   \describe{
#'     \item{`results`}{a data frame with one row per selector, number of
#'       features, repeat and fold: `selector`, `n_features`, `rep`, `fold`,
#'       `error`, `balanced_error` and, for regression, `rmse`; and for the
#'       tuned SVM the chosen `C` and `sigma`; for a censored outcome
#'       `concordance` (Harrell's C) and `concordance_uno` (Uno's C) in
#'       place of the errors.}
#'     \item{`stability`}{one row per selector, number of features and
#'       repeat: `overlap` (features common to the top lists of all folds)
#'       and `kuncheva` ([kuncheva_index()] of those lists).}
#'     \item{`rankings`}{per selector, the ranking of every fold (repeat 1's
#'       folds first).}
#'     \item{`folds`}{the fold of every sample, one column per repeat.}
#'     \item{`settings`, `call`}{the arguments.}
#'   }
#'   `summary()` averages over folds and repeats (mean and standard
#'   deviation of the errors, or of the concordances), `plot()` draws the
#'   mean error (or concordance) against the number of features, one line
#'   per selector, with error bars of one standard deviation (see "The
#'   plot").
#' @references Harrell, F. E., Lee, K. L. and Mark, D. B. (1996).
#'   Multivariable prognostic models. *Statistics in Medicine* 15, 361-387.
#'
#'   Uno, H., Cai, T., Pencina, M. J., D'Agostino, R. B. and Wei, L. J.
#'   (2011). On the C-statistics for evaluating overall adequacy of risk
#'   prediction procedures with censored survival data. *Statistics in
#'   Medicine* 30, 1105-1117.
#' @seealso [bcr()], [kuncheva_index()], the selectors [bahsic()],
#'   [fohsic()], [randsel()] and [feature_scores()].
#' @eval roxygen_progress("the folds (of every repeat)")
#' @examples
#' \donttest{
#' if (requireNamespace("kernlab", quietly = TRUE)) {
#'   set.seed(1)
#'   x <- golub$x[, 1:300]
#'   ev <- evaluate_selection(x, golub$y, selectors = c("bahsic", "t", "pam"),
#'                            n_features = c(5, 10), folds = 5,
#'                            tune = list(C = 100, sigma = "median"))
#'   ev
#'   plot(ev)
#' }
#' if (requireNamespace("survival", quietly = TRUE)) {
#'   set.seed(1)
#'   sim <- simulate_survival(100, p = 50, censoring = 0.3)
#'   ev <- evaluate_selection(sim$x, sim$y, selectors = c("fohsic", "hsic"),
#'                            n_features = c(2, 5), folds = 5)
#'   ev
#'   plot(ev)
#' }
#' }
#' @export
evaluate_selection <- function(x, y, selectors = c("bahsic", "t", "pam"),
                               n_features = c(5, 10, 20), folds = 10, repeats = 1,
                               classifier = c("svm", "none", "ridge_cox"),
                               tune = list(C = c(0.1, 1, 10, 100, 1000),
                                           sigma = c(1, 10, 100, 1000)),
                               inner_folds = 5, parallel = NULL, threads = default_threads(),
                               assay = 1L, covariates = NULL, block = NULL, data = NULL, ...) {
  check_dots(...)
  spec <- design_spec(covariates, block, data)
  call <- match.call()
  inner_given <- !missing(inner_folds)
  classifier_given <- !missing(classifier)
  classifier <- arg_match(classifier)
  tune_given <- !missing(tune)
  check_unused_tune(classifier, tune_given, inner_given)
  d <- evaluate_inputs(x, y, assay, spec)
  x <- d$x
  y <- d$y
  # a censored outcome: a ridge Cox model and its concordance (R/evaluate-survival.R)
  classifier <- evaluate_classifier(y, classifier, classifier_given, tune, tune_given,
                                    inner_given)
  if (is_surv(y) && missing(selectors)) selectors <- surv_default_selectors()
  design <- d$design
  m <- nrow(x)
  p <- ncol(x)
  repeats <- check_whole(repeats, "repeats", 1L)
  inner_folds <- check_whole(inner_folds, "inner_folds", 2L)
  # workers sharing the machine: one thread each unless the caller says otherwise
  if (!is.null(parallel) && missing(threads)) threads <- 1L
  threads <- check_threads(threads)
  check_size(repeats * (8 * as.double(m) + 1024), "repeats", repeats,
             sprintf("the folds of %d samples and their results, per repeat", m))
  fo <- evaluate_folds(folds, repeats, m)
  folds <- fo$folds
  given <- fo$given
  if (!is.null(given)) check_folds_blocks(given, design)
  if (is_surv(y)) check_fold_events(y, fo)
  n_features <- evaluate_sizes(n_features, p)
  sel <- resolve_selectors(selectors, max(n_features), threads, design)
  if (is.factor(y)) warn_small_classes(y, folds)
  grid <- if (classifier == "svm") evaluate_grid(tune, inner_given) else
    if (classifier == "ridge_cox") cox_theta(if (tune_given) tune)
  run <- check_parallel(parallel)

  # the folds of every repeat, then one seed per (repeat, fold), all drawn
  # here, in this order
  fold_of <- if (is.null(given)) {
    vapply(seq_len(repeats), function(r) {
      if (is.null(design)) cv_folds(y, folds) else design_folds(y, folds, design)
    }, integer(m))
  } else {
    given
  }
  fold_of <- matrix(fold_of, m, repeats, dimnames = list(rownames(x), paste0("rep", seq_len(repeats))))
  tasks <- expand.grid(fold = seq_len(folds), rep = seq_len(repeats))[, c("rep", "fold")]
  seeds <- sample.int(.Machine$integer.max, nrow(tasks))
  kinds <- RNGkind()
  one_task <- function(i) {
    r <- tasks$rep[i]
    k <- tasks$fold[i]
    train <- fold_of[, r] != k
    with_seed(seeds[i], kinds, evaluate_fold(x, y, train, fold_selectors(sel, design, train),
                                      n_features, classifier, grid, inner_folds, r, k))
  }
  # a bar over the (repeat, fold) tasks; the selections inside report nothing
  bar <- progress_start(nrow(tasks))
  on.exit(progress_end(bar), add = TRUE)
  out <- run(seq_len(nrow(tasks)), one_task, progress = bar)

  settings <- list(selectors = names(sel), n_features = n_features,
                   folds = folds, repeats = repeats, classifier = classifier,
                   tune = tune, inner_folds = inner_folds,
                   outcome = evaluation_outcome(y), n_samples = m, n_total = p)
  settings$design <- design$text  # (no element without a design)
  if (is_surv(y)) settings <- c(settings, surv_evaluation_settings(y, grid))
  evaluation_result(out, sel, tasks, fold_of, call, settings)
}

# The SVM's settings given with classifier = "none": an error.
check_unused_tune <- function(classifier, tune_given, inner_given) {
  if (classifier != "none") return(invisible())
  if (tune_given) stop_unused("tune", "classifier = \"svm\"", "classifier = \"none\"")
  if (inner_given) stop_unused("inner_folds", "classifier = \"svm\"", "classifier = \"none\"")
  invisible()
}

# The sizes of the top lists: whole numbers from 1 to p, sorted, once each.
evaluate_sizes <- function(n_features, p) {
  if (!is.numeric(n_features) || length(n_features) == 0L || anyNA(n_features) ||
      any(n_features != round(n_features)) || any(n_features < 1) || any(n_features > p)) {
    stop(sprintf("'n_features' must be whole numbers between 1 and the %d features.", p),
         call. = FALSE)
  }
  sort(unique(as.integer(n_features)))
}

# The data of evaluate_selection(): one outcome, features with distinct names.
evaluate_inputs <- function(x, y, assay, design = NULL) {
  d <- normalise_inputs(x, y, assay = assay, design = design)
  if (is_surv(d$y)) return(evaluate_feature_names(d))
  if (is.matrix(d$y)) {
    stop("evaluate_selection() needs one outcome: a factor or a numeric vector, not a matrix.",
         call. = FALSE)
  }
  evaluate_feature_names(d)
}

evaluate_feature_names <- function(d) {
  if (is.null(colnames(d$x))) colnames(d$x) <- paste0("V", seq_len(ncol(d$x)))
  if (anyDuplicated(colnames(d$x))) {
    stop("The features of 'x' need distinct names: the rankings are compared by name.",
         call. = FALSE)
  }
  d
}

# The number of folds, and the fold of each sample when the caller gave them.
evaluate_folds <- function(folds, repeats, m) {
  given <- NULL
  if (length(folds) > 1L) {
    # the caller's folds, e.g. one per patient or batch
    if (length(folds) != m || anyNA(folds)) {
      stop(sprintf(paste0("'folds' must be a number of folds or the fold of each of the %d ",
                          "samples, without NA."), m), call. = FALSE)
    }
    labels <- levels(factor(folds))
    given <- as.integer(factor(folds))
    folds <- max(given)
    if (folds < 2L) stop("'folds' names a single fold: give at least two.", call. = FALSE)
    if (repeats > 1L) {
      stop("With the folds given, the repeats would all be the same: use repeats = 1.",
           call. = FALSE)
    }
  } else {
    folds <- check_whole(folds, "folds", 2L)
    if (folds > m) {
      stop(sprintf("'folds' = %d is more than the %d samples: use folds <= %d.", folds, m, m),
           call. = FALSE)
    }
  }
  list(folds = folds, given = given, labels = if (!is.null(given)) labels)
}

warn_small_classes <- function(y, folds) {
  small <- tabulate(y, nlevels(y)) < folds
  if (any(small)) {
    warning(sprintf(paste0("class%s %s %s fewer samples than the %d folds: some test folds ",
                           "miss %s."), if (sum(small) > 1) "es" else "",
                    paste(sQuote(levels(y)[small], FALSE), collapse = ", "),
                    if (sum(small) > 1) "have" else "has", folds,
                    if (sum(small) > 1) "them" else "it"), call. = FALSE)
  }
}

# The (C, sigma) grid of the SVM.
evaluate_grid <- function(tune, inner_given) {
  if (!have_namespace("kernlab")) {
    stop("classifier = \"svm\" needs the kernlab package: install.packages(\"kernlab\"), ",
         "or use classifier = \"none\".", call. = FALSE)
  }
  grid <- tune_grid(tune)
  # one (C, sigma) pair needs no inner cross-validation to choose it
  if (nrow(grid) == 1L && inner_given) {
    stop_unused("inner_folds", "a 'tune' grid of more than one (C, sigma) pair",
                "a single pair")
  }
  grid
}

# The tasks' results together, the rankings per selector and their stability.
evaluation_result <- function(out, sel, tasks, fold_of, call, settings) {
  results <- do.call(rbind, lapply(out, `[[`, "results"))
  rownames(results) <- NULL
  rankings <- lapply(stats::setNames(nm = names(sel)), function(s) {
    lapply(out, function(o) o$rankings[[s]])
  })
  stability <- selection_stability(rankings, tasks$rep, settings$n_features,
                                   settings$n_total)
  structure(list(results = results, stability = stability, rankings = rankings,
                 folds = fold_of, settings = settings, call = call),
            class = "bahsic_evaluation")
}

# Stratified folds: the samples ordered by outcome (ties and classes in random
# order), then folds dealt out in turn, so every class (every stretch of a
# numeric outcome) is spread evenly over the folds.
cv_folds <- function(y, k) {
  m <- length(y)
  o <- if (is_surv(y)) {
    # censored: events and censored samples each spread evenly (by time)
    order(surv_event(y), surv_time(y), stats::runif(m))
  } else {
    order(if (is.factor(y)) as.integer(y) else y, stats::runif(m))
  }
  f <- integer(m)
  f[o] <- sample.int(k)[rep_len(seq_len(k), m)]
  f
}

# (a function: R/score-table.R, where score_methods lives, is collated after this file)
builtin_selectors <- function() {
  c(evaluate_selectors(), "bahsic_linear", "bahsic_dis", score_methods)
}

# The selectors of the selector table (R/selector-table.R) that run on the
# training fold alone: those that need no further argument.
evaluate_selectors <- function() {
  Filter(function(name) !length(selector_field(name, "needs")), selector_names())
}

# Turn 'selectors' into a named list of functions(x, y, design_args) -> ranking
# (design_args: the fold's covariates and block, design_fit_args()).
resolve_selectors <- function(selectors, n_max, threads, design = NULL) {
  if (is.character(selectors)) {
    selectors <- stats::setNames(as.list(selectors), selectors)
  }
  if (!is.list(selectors) || length(selectors) == 0L) {
    stop("'selectors' must be a character vector of selector names or a named list of names ",
         "and functions.", call. = FALSE)
  }
  nm <- names(selectors)
  if (is.null(nm) || any(is.na(nm) | !nzchar(nm)) || anyDuplicated(nm)) {
    stop(sprintf(paste0("Every selector needs a distinct name: list(%s = \"%s\", ",
                        "mine = function(x, y) ...)."),
                 selector_names()[1L], selector_names()[1L]), call. = FALSE)
  }
  lapply(stats::setNames(nm = nm), function(s) {
    f <- selectors[[s]]
    if (is.function(f)) {
      warn_function_design(f, sprintf("'%s'", s), design)
      return(function(x, y, design_args) {
        a <- design_args_for(f, design_args)
        if (length(a)) do.call(f, c(list(x, y), a)) else f(x, y)
      })
    }
    if (!is.character(f) || length(f) != 1L || !f %in% builtin_selectors()) {
      stop(sprintf("Selector '%s' must be a function(x, y) or one of %s.", s,
                   paste(sprintf("\"%s\"", builtin_selectors()), collapse = ", ")), call. = FALSE)
    }
    # (the two kernels of BAHSIC are checked by bahsic() itself, at the first fold)
    check_resample_design(f, design)
    builtin_selector(f, n_max, threads)
  })
}

builtin_selector <- function(name, n_max, threads) {
  force(n_max)
  force(threads)
  if (name %in% selector_names()) {
    # a forward selector stops at n_max (the ranking of the features it
    # added); one that must be told how many gets n_max; the others rank all
    q <- if (identical(selector_field(name, "direction"), "forward") ||
             isTRUE(selector_field(name, "size")$required)) n_max
    return(function(x, y, design_args = list()) {
      run_selector(name, x, y, q, threads, args = design_args)
    })
  }
  switch(name,
    bahsic_linear = function(x, y, design_args = list()) {
      do.call(bahsic, c(list(x, y, kernel = kernel_linear(), threads = threads), design_args))
    },
    bahsic_dis = function(x, y, design_args = list()) {
      do.call(bahsic, c(list(x, y, kernel = kernel_inverse_distance(), threads = threads),
                        design_args))
    },
    function(x, y, design_args = list()) {
      do.call(feature_scores, c(list(x, y, method = name), design_args))
    }
  )
}

# A selector's answer as feature names in rank order.
as_ranking <- function(value, features, name, n_max) {
  r <- if (inherits(value, "bahsic_selection")) {
    value$ranking
  } else if (is.data.frame(value) && all(c("feature", "rank") %in% names(value))) {
    ok <- !is.na(value$rank)
    as.character(value$feature[ok][order(value$rank[ok])])
  } else if (is.numeric(value) && is.null(dim(value))) {
    if (anyNA(value) || any(value != round(value)) || any(value < 1 | value > length(features))) {
      stop(sprintf("Selector '%s' returned column numbers outside 1..%d.", name,
                   length(features)), call. = FALSE)
    }
    features[value]
  } else if (is.character(value) && is.null(dim(value))) {
    value
  } else {
    stop(sprintf(paste0("Selector '%s' must return a selection, a feature_scores() data frame, ",
                        "or feature names in rank order."), name), call. = FALSE)
  }
  bad <- setdiff(r, features)
  if (length(bad)) {
    stop(sprintf("Selector '%s' returned features not in 'x': %s.", name,
                 paste(utils::head(bad, 3), collapse = ", ")), call. = FALSE)
  }
  if (anyDuplicated(r)) stop(sprintf("Selector '%s' ranked a feature twice.", name), call. = FALSE)
  if (length(r) < n_max) {
    stop(sprintf("Selector '%s' ranked %d features, fewer than max(n_features) = %d.", name,
                 length(r), n_max), call. = FALSE)
  }
  r
}

tune_grid <- function(tune) {
  if (!is.list(tune) || !all(c("C", "sigma") %in% names(tune))) {
    stop("'tune' must be list(C = , sigma = ): the SVM's costs and Gaussian widths.", call. = FALSE)
  }
  C <- tune$C
  if (!is.numeric(C) || length(C) == 0L || anyNA(C) || any(!is.finite(C) | C <= 0)) {
    stop("'tune$C' must be positive numbers.", call. = FALSE)
  }
  sigma <- tune$sigma
  ok <- length(sigma) > 0L && all(vapply(as.list(sigma), function(s) {
    identical(s, "median") || (is.numeric(s) && is.finite(s) && s > 0) ||
      (is.character(s) && suppressWarnings(is.finite(as.numeric(s))) && as.numeric(s) > 0)
  }, logical(1)))
  if (!ok) stop("'tune$sigma' must be positive numbers or \"median\".", call. = FALSE)
  g <- expand.grid(sigma = as.character(sigma), C = C, stringsAsFactors = FALSE)[, c("C", "sigma")]
  g
}

# One outer fold: every selector ranks the training samples, an SVM per top
# list is scored on the test samples.
evaluate_fold <- function(x, y, train, sel, n_features, classifier, grid, inner_folds, r, k) {
  xtr <- x[train, , drop = FALSE]
  ytr <- y[train]
  if (is.factor(ytr)) ytr <- droplevels(ytr)
  rankings <- lapply(stats::setNames(nm = names(sel)), function(s) {
    as_ranking(sel[[s]](xtr, ytr), colnames(x), s, max(n_features))
  })
  rows <- list()
  for (s in names(sel)) {
    for (n in n_features) {
      feats <- rankings[[s]][seq_len(n)]
      row <- data.frame(selector = s, n_features = n, rep = r, fold = k,
                        error = NA_real_, balanced_error = NA_real_,
                        stringsAsFactors = FALSE)
      if (is_surv(y)) row <- surv_evaluation_row(row)
      if (!is.factor(y) && !is_surv(y)) row$rmse <- NA_real_
      if (classifier == "ridge_cox") {
        row[c("concordance", "concordance_uno")] <- as.list(cox_evaluate(
          x[train, feats, drop = FALSE], ytr, x[!train, feats, drop = FALSE], y[!train], grid))
      }
      if (classifier == "svm") {
        fit <- svm_evaluate(x[train, feats, drop = FALSE], ytr, x[!train, feats, drop = FALSE],
                            y[!train], grid, inner_folds)
        row$error <- fit$error
        row$balanced_error <- fit$balanced_error
        if (!is.factor(y)) row$rmse <- fit$rmse
        row$C <- fit$C
        row$sigma <- fit$sigma
      }
      rows[[length(rows) + 1L]] <- row
    }
  }
  list(results = do.call(rbind, rows), rankings = rankings)
}

# Tune (C, sigma) by inner CV when the grid has more than one pair, then
# train on all of xtr and score on xte.
svm_evaluate <- function(xtr, ytr, xte, yte, grid, inner_folds) {
  best <- 1L
  if (nrow(grid) > 1L) {
    inner <- cv_folds(ytr, min(inner_folds, length(ytr)))
    err <- vapply(seq_len(nrow(grid)), function(g) {
      mean(vapply(sort(unique(inner)), function(j) {
        tr <- inner != j
        yt <- if (is.factor(ytr)) droplevels(ytr[tr]) else ytr[tr]
        if (is.factor(yt) && nlevels(yt) < 2L) return(NA_real_)
        pred <- svm_fit_predict(xtr[tr, , drop = FALSE], yt, xtr[!tr, , drop = FALSE],
                                grid$C[g], grid$sigma[g])
        if (is.factor(ytr)) mean(as.character(pred) != as.character(ytr[!tr]))
        else mean((pred - ytr[!tr])^2)
      }, numeric(1)), na.rm = TRUE)
    }, numeric(1))
    best <- which.min(err)
    if (length(best) == 0L) best <- 1L
  }
  pred <- svm_fit_predict(xtr, ytr, xte, grid$C[best], grid$sigma[best])
  out <- list(C = grid$C[best], sigma = grid$sigma[best])
  if (is.factor(yte)) {
    out$error <- mean(as.character(pred) != as.character(yte))
    out$balanced_error <- 1 - as.numeric(bcr(as.character(yte), as.character(pred)))
  } else {
    r <- if (length(yte) > 1L && stats::sd(pred) > 0 && stats::sd(yte) > 0) stats::cor(pred, yte) else 0
    out$error <- 1 - r^2
    out$balanced_error <- NA_real_
    out$rmse <- sqrt(mean((pred - yte)^2))
  }
  out
}

# The training and test features standardised with the training fold's mean
# and standard deviation (a constant feature is only centred).
fold_standardise <- function(xtr, xte) {
  centre <- colMeans(xtr)
  s <- sqrt(colSums(sweep(xtr, 2L, centre)^2) / max(1L, nrow(xtr) - 1L))
  s[!is.finite(s) | s == 0] <- 1
  list(train = sweep(sweep(xtr, 2L, centre), 2L, s, "/"),
       test = sweep(sweep(xte, 2L, centre), 2L, s, "/"))
}

# A Gaussian-kernel SVM on the training fold's standardised features.
svm_fit_predict <- function(xtr, ytr, xte, C, sigma) {
  z <- fold_standardise(xtr, xte)
  xtr <- z$train
  xte <- z$test
  width <- if (identical(sigma, "median")) {
    dd <- as.vector(stats::dist(xtr))
    w <- if (length(dd)) stats::median(dd) else 1
    if (w > 0) w else 1
  } else {
    as.numeric(sigma)
  }
  kpar <- list(sigma = 1 / (2 * width^2))
  fit1 <- function(yy, type) {
    kernlab::ksvm(xtr, yy, type = type, kernel = "rbfdot", kpar = kpar, C = C,
                  scaled = FALSE)
  }
  if (!is.factor(ytr)) {
    # the outcome standardised too, so that the tube (epsilon = 0.1) is on
    # its scale
    my <- mean(ytr)
    sy <- stats::sd(ytr)
    if (!is.finite(sy) || sy == 0) sy <- 1
    return(my + sy * as.vector(kernlab::predict(fit1((ytr - my) / sy, "eps-svr"), xte)))
  }
  lev <- levels(ytr)
  present <- lev[tabulate(ytr, length(lev)) > 0]
  if (length(present) == 1L) return(factor(rep(present, nrow(xte)), levels = lev))
  if (length(present) == 2L) {
    f <- fit1(droplevels(ytr), "C-svc")
    return(factor(as.character(kernlab::predict(f, xte)), levels = lev))
  }
  # one versus the rest: the class whose SVM gives the largest decision value
  dec <- vapply(present, function(cl) {
    yy <- factor(ifelse(ytr == cl, "in", "out"), levels = c("in", "out"))
    f <- fit1(yy, "C-svc")
    # kernlab's sign convention depends on the data: orient by the training fit
    dtr <- as.vector(kernlab::predict(f, xtr, type = "decision"))
    ptr <- kernlab::predict(f, xtr)
    dir <- if (any(ptr == "in")) sign(mean(dtr[ptr == "in"])) else -sign(mean(dtr))
    if (dir == 0) dir <- 1
    dir * as.vector(kernlab::predict(f, xte, type = "decision"))
  }, numeric(nrow(xte)))
  dec <- matrix(dec, nrow(xte))
  factor(present[max.col(dec, ties.method = "first")], levels = lev)
}

# Overlap and Kuncheva's index of the top-n lists of the folds of each repeat.
selection_stability <- function(rankings, rep_of, n_features, p) {
  rows <- list()
  for (s in names(rankings)) {
    for (n in n_features) {
      for (r in sort(unique(rep_of))) {
        tops <- lapply(rankings[[s]][rep_of == r], `[`, seq_len(n))
        ki <- if (length(tops) >= 2L && n < p) kuncheva_index(tops, k = n, n_features = p) else NA_real_
        rows[[length(rows) + 1L]] <- data.frame(
          selector = s, n_features = n, rep = r,
          overlap = length(Reduce(intersect, tops)), kuncheva = as.numeric(ki),
          stringsAsFactors = FALSE)
      }
    }
  }
  do.call(rbind, rows)
}

#' @rdname evaluate_selection
#' @param object a `bahsic_evaluation` (for `summary()`; `print()` and
#'   `plot()` take it as `x`).
#' @param ... for `plot()`, graphical parameters passed to
#'   [graphics::matplot()]; not used by `summary()` and `print()` (an
#'   argument there is an error).
#' @export
summary.bahsic_evaluation <- function(object, ...) {
  check_dots(..., .fn = "summary")
  res <- object$results
  keys <- unique(res[c("selector", "n_features")])
  rows <- lapply(seq_len(nrow(keys)), function(i) {
    s <- keys$selector[i]
    n <- keys$n_features[i]
    e <- res[res$selector == s & res$n_features == n, ]
    st <- object$stability[object$stability$selector == s & object$stability$n_features == n, ]
    sdv <- function(v) if (sum(!is.na(v)) > 1L) stats::sd(v, na.rm = TRUE) else NA_real_
    perf <- if (identical(object$settings$outcome, "survival")) {
      surv_summary_columns(e, sdv)
    } else {
      list(error = mean(e$error), error_sd = sdv(e$error),
           balanced_error = mean(e$balanced_error), balanced_error_sd = sdv(e$balanced_error))
    }
    data.frame(selector = s, n_features = n, perf,
               overlap = mean(st$overlap), kuncheva = mean(st$kuncheva),
               stringsAsFactors = FALSE)
  })
  out <- do.call(rbind, rows)
  rownames(out) <- NULL
  structure(out, class = c("summary.bahsic_evaluation", "data.frame"),
            settings = object$settings)
}

#' @rdname evaluate_selection
#' @param digits decimal places printed.
#' @export
print.summary.bahsic_evaluation <- function(x, digits = 3, ...) {
  check_dots(..., .fn = "print", .allow = print_dot_args)
  st <- attr(x, "settings")
  cat(sprintf("Selection evaluated by %d-fold cross-validation%s, %s (%d samples, %d features)\n",
              st$folds, if (st$repeats > 1L) sprintf(" x %d repeats", st$repeats) else "",
              st$outcome, st$n_samples, st$n_total))
  if (!is.null(st$design)) {
    cat(sprintf("design: %s (folds keep blocks together; the classifier does not see it)\n",
                st$design))
  }
  cat(if (st$classifier == "none") "no classifier: stability only\n" else
        if (st$outcome == "survival") surv_print_header(st) else
        if (st$outcome == "regression") "error: 1 - r^2 of a Gaussian SVR\n" else
        "error: misclassification rate of a Gaussian SVM; balanced: 1 - BCR\n")
  # mean (sd) in one column each, so that the table stays narrow
  f <- function(v) formatC(v, digits = digits, format = "f")
  ms <- function(mu, sdv) ifelse(is.na(sdv), f(mu), paste0(f(mu), " (", f(sdv), ")"))
  y <- data.frame(selector = x$selector, n = x$n_features, stringsAsFactors = FALSE)
  if (st$classifier == "ridge_cox") {
    y[["Harrell's C (sd)"]] <- ms(x$concordance, x$concordance_sd)
    y[["Uno's C (sd)"]] <- ms(x$concordance_uno, x$concordance_uno_sd)
  } else if (st$classifier != "none") {
    y[["error (sd)"]] <- ms(x$error, x$error_sd)
    if (st$outcome != "regression") y[["balanced (sd)"]] <- ms(x$balanced_error, x$balanced_error_sd)
  }
  y$overlap <- x$overlap
  y$kuncheva <- round(x$kuncheva, digits)
  print(y, digits = digits, row.names = FALSE)
  invisible(x)
}

#' @rdname evaluate_selection
#' @export
print.bahsic_evaluation <- function(x, ...) {
  print(summary(x), ...)
  invisible(x)
}

#' @rdname evaluate_selection
#' @param type for `plot()`: `"error"` or `"balanced_error"`; for a censored
#'   outcome `"concordance"` (Harrell's C) or `"concordance_uno"` (Uno's C),
#'   by default Harrell's unless half the samples or more are censored.
#' @section The plot: `plot()` draws, for each selector, the mean
#'   cross-validated error against the number of features, with error bars
#'   of plus and minus one standard deviation of the fold errors (over the
#'   folds of every repeat, the `error_sd` of `summary()`; cut at 0), the
#'   selectors side by side at each number of features so that their bars do
#'   not hide each other, and the legend to the right of the plotting region,
#'   outside the data. The bars show the spread of the fold errors, not a
#'   standard error of their mean: the folds share most of their training
#'   samples, so their errors are correlated and sd / sqrt(folds) would
#'   understate the uncertainty of the mean (Bengio and Grandvalet 2004, *No
#'   unbiased estimator of the variance of K-fold cross-validation*, JMLR 5,
#'   section 3). For a censored outcome it draws the mean concordance in the
#'   same way (bars cut at 1, a dotted line at 0.5, chance; higher is
#'   better). It returns the summary table invisibly.
#' @export
plot.bahsic_evaluation <- function(x, type = c("error", "balanced_error", "concordance",
                                              "concordance_uno"), ...) {
  check_graphics_dots(..., .fn = "plot")
  type_given <- !missing(type)
  type <- arg_match(type)
  if (x$settings$classifier == "none") {
    stop("This evaluation has no classifier (classifier = \"none\"): there is no error to plot.",
         call. = FALSE)
  }
  # a censored outcome: concordance, higher is better (R/evaluate-survival.R)
  surv <- identical(x$settings$outcome, "survival")
  type <- evaluation_plot_type(x$settings, type, type_given)
  if (type == "balanced_error" && x$settings$outcome == "regression") {
    stop("A regression has no balanced error: use type = \"error\".", call. = FALSE)
  }
  s <- summary(x)
  sels <- unique(s$selector)
  ns <- sort(unique(s$n_features))
  by_selector <- function(col) {
    matrix(vapply(sels, function(k) {
      sk <- s[s$selector == k, ]
      sk[[col]][match(ns, sk$n_features)]
    }, numeric(length(ns))), length(ns))
  }
  mat <- by_selector(type)
  bars <- error_bars(ns, mat, by_selector(paste0(type, "_sd")))
  if (surv) bars$y1 <- pmin(bars$y1, 1)
  ylab <- if (surv) concordance_label(type) else if (x$settings$outcome == "regression") "1 - r^2" else
    if (type == "error") "error rate" else "balanced error"
  k <- x$settings$folds * x$settings$repeats
  # room in the right margin for the legend: about half a line per character
  op <- graphics::par(mar = c(5.1, 4.1, 4.1, 2.1 + 0.5 * max(nchar(sels)) + 3))
  on.exit(graphics::par(op), add = TRUE)
  args <- utils::modifyList(
    list(x = matrix(bars$x, length(ns)), y = mat, type = "b", pch = seq_along(sels),
         lty = seq_along(sels), col = seq_along(sels), xaxt = "n", xlab = "number of features", ylab = ylab,
         ylim = range(if (surv) 0.5 else 0, bars$y0, bars$y1, mat, na.rm = TRUE),
         main = sprintf("Cross-validated %s of the top features", if (surv) "concordance" else "error"),
         sub = as.expression(bquote(paste("bars: mean ", phantom() %+-% phantom(), " 1 sd of the ",
                                          .(k), .(if (surv) " fold concordances" else " fold errors"))))),
    list(...))
  do.call(graphics::matplot, args)
  # chance: a concordance of 0.5
  if (surv) graphics::abline(h = 0.5, lty = 3, col = "grey50")
  graphics::axis(1, at = ns)
  ok <- is.finite(bars$y0) & is.finite(bars$y1)
  if (any(ok)) {
    b <- bars[ok, , drop = FALSE]
    graphics::segments(b$x, b$y0, b$x, b$y1, col = b$selector)
    for (end in c("y0", "y1")) {
      graphics::segments(b$x - bars$cap[1L], b[[end]], b$x + bars$cap[1L], b[[end]],
                         col = b$selector)
    }
  }
  usr <- graphics::par("usr")
  graphics::legend(usr[2L], usr[4L], legend = sels, pch = seq_along(sels),
                   lty = seq_along(sels), col = seq_along(sels), bty = "n", xpd = NA)
  invisible(s)
}

# The error bars of plot.bahsic_evaluation(): one row per number of
# features and selector (column of `mean`), at x dodged by selector, from
# mean - sd (not below 0) to mean + sd; NA where sd is NA (one fold).
error_bars <- function(ns, mean, sd) {
  k <- ncol(mean)
  step <- if (length(ns) > 1L) min(diff(ns)) else 1
  offset <- (seq_len(k) - (k + 1) / 2) * 0.06 * step
  x <- outer(ns, offset, `+`)
  out <- data.frame(selector = rep(seq_len(k), each = length(ns)), x = c(x),
                    y0 = pmax(c(mean - sd), 0), y1 = c(mean + sd))
  out$cap <- 0.02 * step
  out
}
