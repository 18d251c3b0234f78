# The tidymodels adapter: a recipes step that keeps the features bahsic
# ranks best, and the dials parameter that tunes how many. recipes, dials,
# generics, rlang and tibble are suggested, never imported: the step's
# methods are registered lazily (S3method(recipes::prep, ...) in NAMESPACE),
# so library(bahsic) neither needs nor loads them, and every call into them
# is recipes::, dials::, ... inside a function body after need_package().

# The methods the step takes: a per-feature score of feature_scores() (every
# row of score_table) or a selector (the selector table, R/selector-table.R),
# whose ranking it keeps the top of.
step_selectors <- function() selector_names()
step_methods <- function() c(score_methods, step_selectors())

# The arguments of the function behind `method` that `options` may carry:
# not the data, the method or the size of the selection (the step's own
# arguments), nor what a recipe does not have (an assay, no outcome).
step_option_names <- function(method) {
  fn <- if (method %in% step_selectors()) selector_default(method) else feature_scores.default
  setdiff(names(formals(fn)), c("x", "y", "method", "n_features", step_size_arg(method), "assay",
                                "unsupervised", "...", "covariates", "block", "data"))
}

# The argument of a selector that the step's `top_n` sets (NULL: none).
step_size_arg <- function(method) {
  if (method %in% step_selectors()) selector_field(method, "size")$arg
}

step_function_name <- function(method) {
  if (method %in% step_selectors()) paste0(method, "()") else "feature_scores()"
}

need_package <- function(pkg, what) {
  if (!requireNamespace(pkg, quietly = TRUE)) {
    stop(sprintf("%s needs the package '%s': install.packages(\"%s\").", what, pkg, pkg),
         call. = FALSE)
  }
  invisible()
}

# tune() marks an argument to be tuned: its value arrives later, through
# recipes' update() (tune::finalize_recipe()).
is_tune <- function(x) is.call(x) && identical(x[[1L]], as.name("tune"))

# Whether the step's scores come with adjusted p-values (which `threshold`
# cuts): the methods with analytic or gamma p-values, and the centroid, signal
# to noise and pam with permutations (see ?feature_scores, "Statistics and
# p-values"). The selectors rank feature sets and give none.
step_has_p_values <- function(method, options) {
  if (method %in% step_selectors()) return(FALSE)
  if (score_row(method)$p_values == "permutation") {
    return(!is.null(options$n_perm) || identical(options$adjust, "maxT"))
  }
  TRUE
}

# A named entry of the step's `...` is a misspelt argument, not a selector:
# recipes refuses to rename columns, and would say so only at prep().
check_step_dots <- function(dot_names, fn, formals) {
  if (is.null(dot_names)) return(invisible())
  bad <- dot_names[!is.na(dot_names) & nzchar(dot_names)]
  if (length(bad)) unknown_arg_error(bad[1L], fn, formals)
  invisible()
}

check_step_outcome <- function(outcome) {
  if (!is.null(outcome) &&
      (!is.character(outcome) || length(outcome) != 1L || is.na(outcome) || !nzchar(outcome))) {
    stop(paste0("'outcome' must be the name of the outcome column, e.g. outcome = \"y\", ",
                "or NULL for the recipe's one outcome."), call. = FALSE)
  }
  invisible()
}

# top_n: NULL or a whole number >= 1; threshold: NA (or NULL) or a number in
# [0, 1]; at least one of them. tune() placeholders pass at step creation
# and are refused at prep(), where a value must have replaced them.
check_step_size <- function(top_n, threshold, method, options, at_prep = FALSE) {
  if (at_prep && (is_tune(top_n) || is_tune(threshold))) {
    stop(paste0("step_select_hsic(): 'top_n' or 'threshold' is still tune(): give it a value ",
                "(tune::finalize_recipe(), or update() on the step) before prep()."),
         call. = FALSE)
  }
  no_top <- is.null(top_n)
  no_threshold <- is.null(threshold) || (length(threshold) == 1L && is.atomic(threshold) &&
                                           is.na(threshold))
  if (no_top && no_threshold) {
    stop(paste0("step_select_hsic() needs 'top_n' (how many features to keep, e.g. top_n = 20) ",
                "or 'threshold' (the largest adjusted p-value kept, e.g. threshold = 0.05)."),
         call. = FALSE)
  }
  if (!no_top && !is_tune(top_n)) top_n <- check_whole(top_n, "top_n", 1L)
  if (!no_threshold && !is_tune(threshold)) {
    if (!is.numeric(threshold) || length(threshold) != 1L || is.na(threshold) ||
        threshold < 0 || threshold > 1) {
      stop(paste0("'threshold' must be one number between 0 and 1 (the largest adjusted ",
                  "p-value kept, e.g. threshold = 0.05), or NA to keep by 'top_n' only."),
           call. = FALSE)
    }
    if (!step_has_p_values(method, options)) {
      how <- if (method %in% step_selectors()) {
        "a selector ranks features without p-values: use 'top_n'"
      } else {
        sprintf(paste0("its p-values come from permutations: give options = list(n_perm = ",
                       "1000), or use 'top_n'"))
      }
      stop(sprintf("'threshold' cuts adjusted p-values, and method = \"%s\" gives none: %s.",
                   method, how), call. = FALSE)
    }
  }
  list(top_n = if (no_top) NULL else top_n, threshold = if (no_threshold) NA else threshold)
}

# options: a named list of arguments of feature_scores() or of the selector;
# a name it does not take is an error that names it and suggests the closest.
check_step_options <- function(options, method) {
  fn <- step_function_name(method)
  if (!is.list(options) || is.object(options) ||
      (length(options) && (is.null(names(options)) || any(!nzchar(names(options)))))) {
    stop(sprintf(paste0("'options' must be a list of named arguments of %s, e.g. ",
                        "options = list(threads = 1)."), fn), call. = FALSE)
  }
  own <- c(method = "method", n_features = "top_n", x = "the recipe's predictors",
           y = "outcome", assay = "the recipe's columns", unsupervised = "outcome",
           covariates = "covariates", block = "block", data = "covariates")
  if (!is.null(step_size_arg(method))) own[[step_size_arg(method)]] <- "top_n"
  allowed <- step_option_names(method)
  for (nm in names(options)) {
    if (nm %in% allowed) next
    if (nm %in% names(own)) {
      stop(sprintf("'options' has '%s', which the step sets itself: give %s instead.", nm,
                   if (own[[nm]] %in% c("method", "top_n", "outcome", "covariates", "block")) {
                     sprintf("step_select_hsic(%s = )", own[[nm]])
                   } else {
                     own[[nm]]
                   }), call. = FALSE)
    }
    hint <- did_you_mean(nm, allowed)
    if (!nzchar(hint)) hint <- sprintf(" It takes %s.", paste0("'", allowed, "'", collapse = ", "))
    stop(sprintf("'options' has '%s', which %s with method = \"%s\" does not take.%s",
                 nm, fn, method, hint), call. = FALSE)
  }
  if (any(duplicated(names(options)))) {
    stop(sprintf("'options' names '%s' twice.", names(options)[duplicated(names(options))][1L]),
         call. = FALSE)
  }
  if (!method %in% step_selectors()) {
    check_one_row_per_feature(method, options, "step_select_hsic()")
  }
  for (nm in setdiff(if (method %in% step_selectors()) selector_field(method, "needs"),
                     names(options))) {
    stop(sprintf("method = \"%s\" needs '%s': give it in 'options', e.g. options = list(%s = ).",
                 method, nm, nm), call. = FALSE)
  }
  invisible()
}

#' Feature selection by HSIC in a tidymodels recipe
#'
#' A recipes step that learns, when the recipe is prepared, which of the
#' selected predictors to keep from their dependence on the outcome, and
#' removes the others from the data it bakes: the features ranked best by a
#' per-feature score of [feature_scores()] (per-feature HSIC by default) or
#' by the BAHSIC or FOHSIC selection of [bahsic()] and [fohsic()] (Song et al.
#' 2012, sections 3 and 4, Algorithms 1 and 2). The number kept, `top_n`, can
#' be tuned with tune and dials (see [top_n_features()]).
#'
#' **Which features are kept.** For a score method the step computes
#' `feature_scores(x, y, method = method, <options>)` on the training data
#' and keeps `top_features(scores, n = top_n, fdr = threshold)$feature`: the
#' features whose adjusted p-value (`adj_p_value`, Benjamini and Hochberg's by
#' default; `options = list(adjust = "none")` cuts the raw p-value) is at most
#' `threshold`, then the `top_n` best ranked of them. `threshold` is on the
#' adjusted p-value because a p-value means the same for every method and
#' every number of features, where the scores have each their own scale; with
#' thousands of genes the unadjusted p-value would keep hundreds of false
#' positives. `lin`, `snr` and `pam` have p-values only with
#' `options = list(n_perm = )`; with a selector (`"bahsic"`, `"fohsic"`,
#' ...), which ranks feature sets without p-values, only `top_n` applies: the
#' step keeps `selected(fit, top_n)` of `bahsic(x, y, n_features = top_n,
#' <options>)` (BAHSIC's elimination stops at `top_n` survivors; FOHSIC adds
#' `top_n` features; [randsel()] gets `stop_at = top_n`, [hsic_weights()] and
#' [clinical_rfe()] rank every feature). A `top_n` above the number of predictors keeps them all,
#' as a tuning grid may ask for more than a resample has.
#'
#' When no feature passes `threshold`, the step removes every selected
#' predictor and warns. The outcome is never a candidate, even when the
#' selectors in `...` include it. Case weights are not used.
#'
#' **Covariates and blocks.** `covariates` chooses the columns to adjust
#' for, as recipes' selectors do: give them a role of their own with
#' `recipes::update_role(batch, age, new_role = "covariate")` and write
#' `covariates = recipes::has_role("covariate")`, or name them
#' (`covariates = c(batch, age)`). `block` chooses one column, the pair or
#' patient of each sample (e.g. `update_role(patient, new_role = "block")`
#' and `block = recipes::has_role("block")`). At `prep()` they go to
#' [feature_scores()] or the selector as `covariates` (a data frame of
#' those columns, factors as factors) and `block` (see [design]); those
#' columns are never candidates, never scored and never removed, even when
#' the selectors in `...` include them. A method that cannot adjust refuses
#' by name at `prep()`. Keeping a patient's samples in one resample is the
#' resampling's job (e.g. rsample's `group_vfold_cv(group = patient)`).
#'
#' **Methods.** The step has `prep()`, `bake()`, `print()`, `tidy()`,
#' `tunable()` and `required_pkgs()` methods, registered when recipes (and
#' generics) are loaded; bahsic does not need recipes otherwise.
#' `tidy()` gives one row per candidate feature: `terms`, `score`, `rank` (1
#' = best), `p_value` and `adj_p_value` (`NA` for methods without p-values),
#' `selected` (whether it is kept) and `id`; before `prep()`, the selectors
#' of `...` in `terms` and `NA` in the other columns, as recipes' own steps do.
#' `tunable()` lists `top_n` (parameter [top_n_features()]) and, for methods
#' with p-values, `threshold` ([dials::threshold()], whose range \[0, 1\] is
#' that of a p-value).
#'
#' @param recipe a recipe, from `recipes::recipe()`.
#' @param ... selectors of the candidate predictors, e.g.
#'   `recipes::all_predictors()` or `recipes::all_numeric_predictors()` (see
#'   `?recipes::selections`); they must be numeric. A named entry is an error
#'   (a misspelt argument).
#' @param outcome the name of the outcome column (a factor of classes, a
#'   character vector, a number, or a censored survival outcome: a column
#'   made with `survival::Surv(time, status)`, as in `data$surv <- Surv(time,
#'   status); recipe(surv ~ ., data)`, which recipes passes on as it is), or
#'   `NULL` (default) for the recipe's one variable with role `"outcome"`. A
#'   `Surv` column is scored through [label_kernel_survival()] (the methods
#'   and selectors that take a censored outcome; the others refuse it by
#'   name). Time and status given as two outcome columns are two outcomes:
#'   make one `Surv` column of them.
#' @param role not used: the step makes no new columns (recipes' convention
#'   for filters).
#' @param trained,exclude set by `prep()`: whether the step is trained, and
#'   the names of the predictors it removes. Leave them alone.
#' @param method `"hsic"` (default: HSIC of each feature with the outcome,
#'   Gaussian kernel with its median width), another per-feature score of
#'   [feature_scores()] (`"mt"`, `"t"`, `"pc"`, `"lin"`, `"snr"`, `"lods"`,
#'   `"pam"`, `"mmd"`, `"kta"`), or a selector of the package: `"bahsic"`,
#'   `"fohsic"`, `"mrmr"`, `"randsel"`, `"l1_lsmi"`, `"l1_hsic"`, `"hsic_weights"`
#'   (with `options = list(lambda = )`) or `"clinical_rfe"`.
#' @param top_n how many features to keep (a whole number, tunable), or
#'   `NULL` to keep every feature that passes `threshold`.
#' @param threshold `NA` (default), or the largest adjusted p-value kept, in
#'   \[0, 1\] (tunable); only for methods with p-values.
#' @param options a named list of further arguments of [feature_scores()]
#'   (e.g. `kernel`, `adjust`, `n_perm`, `threads`) or of the selector
#'   (e.g. `kernel`, `drop`, `threads` of [bahsic()]). A name
#'   the function does not take is an error when the step is made; the
#'   values are checked by that function at `prep()`.
#' @param skip `TRUE` to apply the step when the recipe is prepared but not
#'   when new data are baked (recipes' `skip`).
#' @param id a unique identifier of the step.
#' @param covariates `NULL` (default), or recipes selectors of the columns to
#'   adjust for (e.g. `recipes::has_role("covariate")`); see "Covariates and
#'   blocks". After `prep()`, their names.
#' @param block `NULL` (default), or a recipes selector of the one column
#'   naming each sample's block (pair, patient). After `prep()`, its name.
#' @return The recipe with the step added. The step, of class
#'   `c("step_select_hsic", "step")`, keeps after `prep()` the table of
#'   `tidy()` in its element `scores`.
#' @references Song, L., Smola, A., Gretton, A., Bedo, J. and Borgwardt, K.
#'   (2012). Feature selection via dependence maximization. *Journal of
#'   Machine Learning Research* 13, 1393-1434.
#' @family tidymodels
#' @seealso [feature_scores()], [top_features()], [bahsic()].
#' @examplesIf requireNamespace("recipes", quietly = TRUE)
#' library(recipes)
#' golub_df <- data.frame(y = golub$y, golub$x[, 1:500], check.names = FALSE)
#' rec <- recipe(y ~ ., data = golub_df) |>
#'   step_select_hsic(all_predictors(), outcome = "y", top_n = 20)
#' rec
#' tidy(rec, number = 1)
#' trained <- prep(rec)
#' trained
#' dim(bake(trained, new_data = NULL))
#' head(tidy(trained, number = 1))
#' # limma's moderated t: the genes at a 1% false discovery rate
#' rec_mt <- recipe(y ~ ., data = golub_df) |>
#'   step_select_hsic(all_predictors(), method = "mt", threshold = 0.01)
#' ncol(bake(prep(rec_mt), new_data = NULL)) - 1
#' @export
step_select_hsic <- function(recipe, ..., outcome = NULL, role = NA, trained = FALSE,
                             method = "hsic", top_n = NULL, threshold = NA,
                             options = list(), exclude = NULL, skip = FALSE,
                             id = recipes::rand_id("select_hsic"), covariates = NULL,
                             block = NULL) {
  check_step_dots(...names(), "step_select_hsic",
                  setdiff(names(formals(step_select_hsic)), "..."))
  need_package("recipes", "step_select_hsic()")
  need_package("rlang", "step_select_hsic()")
  method <- arg_match(method, step_methods(), aliases = score_aliases)
  check_step_outcome(outcome)
  check_step_options(options, method)
  size <- check_step_size(top_n, threshold, method, options)
  check_flag(trained, "trained")
  check_flag(skip, "skip")
  recipes::add_step(
    recipe,
    step_select_hsic_new(list(terms = rlang::quos(...), outcome = outcome, role = role,
                              trained = trained, method = method, top_n = size$top_n,
                              threshold = size$threshold, options = options,
                              exclude = exclude, scores = NULL, skip = skip, id = id,
                              covariates = step_design_quo(rlang::enquo(covariates)),
                              block = step_design_quo(rlang::enquo(block))))
  )
}

# The step object from its fields (all of step_select_hsic_fields, by name).
step_select_hsic_new <- function(fields) {
  stopifnot(setequal(names(fields), step_select_hsic_fields))
  do.call(recipes::step, c(list(subclass = "select_hsic"), fields), quote = TRUE)
}

step_select_hsic_fields <- c("terms", "outcome", "role", "trained", "method", "top_n",
                             "threshold", "options", "exclude", "scores", "skip", "id",
                             "covariates", "block")

# A design argument of the step (covariates, block) as recipes' selectors:
# NULL for none, else a list of one quosure (recipes_eval_select() at prep();
# after prep(), the names of the columns it chose).
step_design_quo <- function(quo) {
  if (rlang::quo_is_null(quo)) NULL else list(quo)
}

# The design columns at prep(): the covariates' and the block's names (the
# block one column), neither the outcome.
step_design_columns <- function(x, training, info, outcome) {
  pick <- function(q) {
    if (is.null(q)) return(character())
    if (is.character(q)) return(q)
    recipes::recipes_eval_select(q, training, info)
  }
  cov <- pick(x$covariates)
  blk <- pick(x$block)
  if (length(blk) > 1L) {
    stop(sprintf("step_select_hsic(): 'block' must choose one column, not %d (%s).",
                 length(blk), paste(blk, collapse = ", ")), call. = FALSE)
  }
  if (outcome %in% c(cov, blk)) {
    stop(sprintf("step_select_hsic(): the outcome '%s' cannot be a covariate or the block.",
                 outcome), call. = FALSE)
  }
  list(covariates = unname(cov), block = unname(blk))
}

# The outcome column: the one named, or the recipe's one outcome.
step_outcome_name <- function(outcome, training, info) {
  if (is.null(outcome)) {
    outcomes <- info$variable[info$role %in% "outcome"]
    if (length(outcomes) != 1L) {
      stop(sprintf(paste0("step_select_hsic() needs an outcome: the recipe has %s, so give ",
                          "outcome = \"<column>\".%s"),
                   if (length(outcomes)) {
                     sprintf("%d (%s)", length(outcomes), paste(outcomes, collapse = ", "))
                   } else {
                     "none"
                   }, if (length(outcomes) == 2L) {
                     # (time, status) as two outcomes: one Surv column is the survival outcome
                     paste0(" For a censored survival outcome make one column of the two, ",
                            "data$surv <- survival::Surv(time, status), and use surv ~ .")
                   } else ""), call. = FALSE)
    }
    outcome <- outcomes
  }
  if (!outcome %in% names(training)) {
    stop(sprintf("'outcome' = \"%s\" is not a column of the training data.%s", outcome,
                 did_you_mean(outcome, names(training), quote = "\"")), call. = FALSE)
  }
  outcome
}

# The per-feature table of tidy(): terms, score, rank, p_value, adj_p_value,
# selected.
step_score_table <- function(terms, score, rank, p_value, adj_p_value, selected) {
  data.frame(terms = terms, score = score, rank = rank, p_value = p_value,
             adj_p_value = adj_p_value, selected = selected, stringsAsFactors = FALSE)
}

# Learns the features to keep: the scores or the selection on the training
# data, then the top of them (see ?step_select_hsic, "Which features are
# kept").
step_select_hsic_fit <- function(x, y, method, top_n, threshold, options, design = list()) {
  p <- ncol(x)
  options <- c(options, design)
  if (method %in% step_selectors()) {
    n <- if (is.null(top_n)) p else min(top_n, p)
    fit <- run_selector(method, x, y, n, args = options)
    keep <- selected(fit, n)
    f <- fit$features
    return(step_score_table(f$feature, f$score, f$rank, NA_real_, NA_real_,
                            f$feature %in% keep))
  }
  s <- do.call("feature_scores", c(list(x, y, method = method), options))
  keep <- top_features(s, n = top_n, fdr = if (is.na(threshold)) NULL else threshold)$feature
  na_col <- rep(NA_real_, nrow(s))
  step_score_table(s$feature, s$score, s$rank,
                   if (is.null(s$p_value)) na_col else s$p_value,
                   if (is.null(s$adj_p_value)) na_col else s$adj_p_value,
                   s$feature %in% keep)
}

#' @exportS3Method recipes::prep
prep.step_select_hsic <- function(x, training, info = NULL, ...) {
  # `...`: recipes passes its own arguments to every step's method
  size <- check_step_size(x$top_n, x$threshold, x$method, x$options, at_prep = TRUE)
  check_step_options(x$options, x$method)
  outcome <- step_outcome_name(x$outcome, training, info)
  cols <- recipes::recipes_eval_select(x$terms, training, info)
  # the design's columns are neither scored nor removed
  dc <- step_design_columns(x, training, info, outcome)
  cols <- setdiff(cols, c(outcome, dc$covariates, dc$block))
  design <- list()
  if (length(dc$covariates)) design$covariates <- as.data.frame(training[dc$covariates])
  if (length(dc$block)) design$block <- training[[dc$block]]
  scores <- NULL
  exclude <- character()
  if (length(cols)) {
    recipes::check_type(training[, cols], types = c("double", "integer"))
    xm <- as.matrix(training[, cols])
    scores <- step_select_hsic_fit(xm, training[[outcome]], x$method, size$top_n,
                                   size$threshold, x$options, design)
    exclude <- scores$terms[!scores$selected]
    if (!any(scores$selected)) {
      warning(sprintf(paste0("step_select_hsic(): no feature has an adjusted p-value at most ",
                             "'threshold' = %g; the step removes all %d candidates. Raise ",
                             "'threshold' or use 'top_n'."), size$threshold, length(cols)),
              call. = FALSE)
    }
  }
  step_select_hsic_new(list(terms = x$terms, outcome = outcome, role = x$role, trained = TRUE,
                            method = x$method, top_n = size$top_n, threshold = size$threshold,
                            options = x$options, exclude = exclude, scores = scores,
                            skip = x$skip, id = x$id,
                            covariates = if (length(dc$covariates)) dc$covariates,
                            block = if (length(dc$block)) dc$block))
}

#' @exportS3Method recipes::bake
bake.step_select_hsic <- function(object, new_data, ...) {
  # removes the features not kept; those kept need not all be there (a
  # filter, as recipes' step_corr and step_zv)
  if (length(object$exclude)) {
    new_data <- new_data[, !(names(new_data) %in% object$exclude), drop = FALSE]
  }
  new_data
}

#' @export
print.step_select_hsic <- function(x, width = max(20, options()$width - 36), ...) {
  # form_width: what print.recipe() passes to every step
  check_dots(..., .fn = "print", .formals = c("x", "width", print_dot_args),
             .allow = c("form_width", print_dot_args))
  need_package("recipes", "Printing a step_select_hsic")
  size <- c(if (!is.null(x$top_n) && !is_tune(x$top_n)) sprintf("top %d", x$top_n),
            if (is_tune(x$top_n)) "top_n = tune()",
            if (is_tune(x$threshold)) "threshold = tune()",
            if (!is_tune(x$threshold) && !is.na(x$threshold)) {
              sprintf("adjusted p <= %g", x$threshold)
            })
  kept <- if (x$trained && !is.null(x$scores)) {
    sprintf(": kept %d of %d, removed", sum(x$scores$selected), nrow(x$scores))
  } else if (x$trained) {
    ": no candidates, removed"
  } else {
    " on"
  }
  given <- if (x$trained && (is.character(x$covariates) || is.character(x$block))) {
    sprintf(" given %s", paste(c(x$covariates, if (!is.null(x$block)) {
      paste("block", x$block)
    }), collapse = ", "))
  } else {
    ""
  }
  title <- sprintf("HSIC feature selection (%s, %s%s)%s ", x$method,
                   paste(size, collapse = ", "), given, kept)
  recipes::print_step(x$exclude, x$terms, x$trained, title, width)
  invisible(x)
}

# A data frame as a tibble, as recipes' tidy() methods return.
as_step_tibble <- function(df) {
  need_package("tibble", "tidy() of a step_select_hsic")
  tibble::as_tibble(df)
}

#' @exportS3Method generics::tidy
tidy.step_select_hsic <- function(x, ...) {
  if (x$trained) {
    res <- if (is.null(x$scores)) {
      step_score_table(character(), double(), integer(), double(), double(), logical())
    } else {
      x$scores
    }
  } else {
    terms <- recipes::sel2char(x$terms)
    na <- rep(NA_real_, length(terms))
    res <- step_score_table(terms, na, rep(NA_integer_, length(terms)), na, na,
                            rep(NA, length(terms)))
  }
  res$id <- rep(x$id, nrow(res))
  as_step_tibble(res)
}

#' @exportS3Method generics::tunable
tunable.step_select_hsic <- function(x, ...) {
  name <- "top_n"
  call_info <- list(list(pkg = "bahsic", fun = "top_n_features"))
  if (step_has_p_values(x$method, x$options)) {
    name <- c(name, "threshold")
    call_info <- c(call_info, list(list(pkg = "dials", fun = "threshold")))
  }
  res <- data.frame(name = name, stringsAsFactors = FALSE)
  res$call_info <- call_info
  res$source <- "recipe"
  res$component <- "step_select_hsic"
  res$component_id <- x$id
  as_step_tibble(res)
}

#' @exportS3Method generics::required_pkgs
required_pkgs.step_select_hsic <- function(x, ...) {
  "bahsic"
}

#' Number of features to keep: a dials tuning parameter
#'
#' The parameter `top_n` of [step_select_hsic()] for tune and dials: a whole
#' number from 1 to, by default, the number of predictors, which
#' `dials::finalize()` (and tune, which calls it) reads from the data. It
#' is dials' `num_terms()` with its own name and label, so that a grid and
#' its plots say "# Selected Features" for the step next to a model's number
#' of terms.
#'
#' For expression data with thousands of genes, a range such as
#' `c(5L, 200L)` with `trans = scales::transform_log10()` spreads a grid
#' where it matters.
#'
#' @param range two whole numbers, the smallest and largest number of
#'   features; the upper one `dials::unknown()` (default) until finalised.
#' @param trans `NULL` (default: a linear scale) or a transformation from the
#'   scales package.
#' @param ... not used: an argument other than `range` and `trans` is an
#'   error.
#' @return A dials quantitative parameter, class `c("quant_param", "param")`.
#' @family tidymodels
#' @examplesIf requireNamespace("dials", quietly = TRUE)
#' p <- top_n_features()
#' p
#' p <- dials::finalize(p, golub$x[, 1:100])
#' p
#' dials::grid_regular(p, levels = 4)
#' top_n_features(range = c(5L, 50L))
#' @export
top_n_features <- function(range = c(1L, dials::unknown()), trans = NULL, ...) {
  check_dots(..., .fn = "top_n_features")
  need_package("dials", "top_n_features()")
  dials::new_quant_param(type = "integer", range = range, inclusive = c(TRUE, TRUE),
                         trans = trans, label = c(top_n_features = "# Selected Features"),
                         finalize = dials::get_p)
}
