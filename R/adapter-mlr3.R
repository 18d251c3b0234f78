#' mlr3 filters: per-feature HSIC scores and the BAHSIC ranking
#'
#' With \pkg{mlr3filters} installed, bahsic adds its filters to
#' `mlr3filters::mlr_filters`, so that `mlr3filters::flt("hsic")`,
#' `mlr3filters::flt("bahsic")` and a filter for each other selector of the
#' package (`flt("fohsic")`, `flt("mrmr_hsic")`, `flt("randsel")`,
#' `flt("l1_lsmi")`, `flt("l1_hsic")`, `flt("hsic_weights", lambda = )`,
#' `flt("clinical_rfe")`)
#' score the features of an mlr3 task (and can
#' be used wherever mlr3 takes a filter, e.g. in mlr3pipelines'
#' `po("filter")`). Both take classification tasks (two or more classes) and
#' regression tasks with numeric and integer features and no missing values;
#' a task with factor features or missing values is refused by mlr3filters
#' itself. As for every mlr3 filter, a higher score means a more important
#' feature, and `$scores` lists the features from best to worst.
#'
#' \describe{
#'   \item{`flt("hsic")`}{each feature scored on its own by [feature_scores()]
#'     with `method` (default `"hsic"`: HSIC of the feature alone with a
#'     Gaussian kernel of median-heuristic width and the default label
#'     kernel, Song et al. 2012, section 6). The score is
#'     `feature_scores()$score`, in absolute value for the signed methods
#'     (`"pc"`, `"lin"`, `"t"`, `"snr"` and two-class `"mt"`, whose sign
#'     only says which class is higher), so that the filter orders the
#'     features as the `rank` column of [feature_scores()] does. The other
#'     methods' scores are used as they are: larger is more dependent (for
#'     `"lods"`, the B statistic, a log-odds that may be negative). A
#'     constant feature has an `NA` score with `"pc"`, `"t"` and `"snr"` and
#'     comes last. The methods must fit the task (`"t"` needs two classes,
#'     `"pc"` a numeric or two-class outcome, `"pam"` classes, ...): see
#'     [feature_scores()]; a mismatch is [feature_scores()]'s error.}
#'   \item{`flt("bahsic")`}{the ranking of backward elimination, [bahsic()]
#'     with its defaults (Song et al. 2012, Algorithm 1). The score is
#'     \eqn{p + 1 - r} for the feature ranked \eqn{r} among the task's
#'     \eqn{p} features: \eqn{p} for the feature that survives longest,
#'     1 for the first one eliminated. Only the order carries information;
#'     the score is not a measure of dependence. BAHSIC always ranks every
#'     feature: the `nfeat` of `$calculate()` is not passed on as
#'     `n_features`, because stopping early changes the order of the
#'     features that are kept (the survivors are then ordered by the last
#'     iteration's criterion rather than eliminated one batch after
#'     another).}
#'   \item{the other selectors' filters}{the same score from the ranking of
#'     that selector with its defaults; a feature it leaves unranked (a
#'     weight of zero) scores 0. [l1_lsmi()] and [l1_hsic()] are asked for
#'     every feature. A forward selector ([fohsic()], [mrmr()]) stops at the
#'     `nfeat` of `$calculate()` when given (the order of the features it
#'     selects does not depend on where it stops), and otherwise selects
#'     every feature. [mrmr()]'s filter is `flt("mrmr_hsic")`: mlr3filters'
#'     own `flt("mrmr")` is praznik's, on mutual information.
#'     [clinical_rfe()]'s filter takes classification tasks only.}
#' }
#'
#' **Parameters** (`flt("hsic", method = "t")`, or `$param_set$set_values()`)
#' are the arguments of the same name of [feature_scores()] and [bahsic()],
#' with their defaults when not set:
#' \describe{
#'   \item{`flt("hsic")`}{`method` (set to `"hsic"`), `kernel`, `kernel_y`,
#'     `estimator`, `var_equal`, `threads`.}
#'   \item{`flt("bahsic")`}{`kernel`, `kernel_y`, `estimator`, `sigma` (the
#'     kernel width policy, `"dimension"`, `"optimize"` or `"fixed"`),
#'     `sigma_grid`, `drop`, `standardize`, `threads`, `approx`.}
#'   \item{the other selectors' filters}{the arguments of the selector but
#'     the data, the number of features, `verbose`, `na_action`, `assay`,
#'     `unsupervised` and `parallel`.}
#' }
#' **Covariates and blocks.** Every filter has two further parameters,
#' `covariates` (names of the task's columns to adjust for) and `block` (the
#' name of the column naming each sample's pair or patient); the filter
#' reads them from the task, in its row order, and passes them on as
#' `covariates` (a data frame) and `block` (see [design]); a method or
#' selector that cannot adjust refuses by name. mlr3 has no column role for
#' covariates, so they are named by this parameter: best as columns without
#' a role (`task$set_col_roles("batch", roles = character())`), which mlr3
#' keeps in the task's data but gives to no learner; a covariate that is also
#' a feature is not scored (its score is `NA`, so it comes last and
#' `po("filter")` may drop it). mlr3's `group` role is the block of
#' resampling (mlr3 keeps a group's rows in one fold); it is not taken as
#' the block by itself, since a group that determines the outcome (one class
#' per patient) groups the resampling but cannot be adjusted for: give
#' `block = task$col_roles$group` to adjust for it. The `stratum` role
#' stratifies mlr3's resampling and is not used by the filters.
#'
#' **Censored survival outcomes.** The filters take classification and
#' regression tasks only: survival tasks need mlr3proba (its `TaskSurv`),
#' which is not on CRAN, so the filters do not declare the task type `surv`
#' (mlr3filters refuses such a task), and a survival task that reaches them
#' is an error by name. Rank genes against a `survival::Surv` outcome with
#' [feature_scores()], [bahsic()] or [fohsic()] directly.
#'
#' A parameter that the chosen method does not use (a `kernel` with
#' `method = "t"`) is an error when the scores are calculated, as it is in
#' [feature_scores()]. `threads` is tagged `"threads"`, so
#' `mlr3::set_threads()` sets it; the scores do not depend on it.
#' `approx = "block"` and `approx_rff()` draw random numbers from the
#' caller's generator (`set.seed()` makes them reproducible).
#'
#' **Registration.** The filters are registered when bahsic is loaded if
#' mlr3filters is loaded already, and otherwise as soon as mlr3filters is
#' loaded, in either order; loading bahsic never loads mlr3filters, and
#' unloading bahsic removes its entries.
#'
#' @name mlr_filters_hsic
#' @aliases mlr_filters_bahsic mlr_filters_mrmr_hsic
#' @references Song, L., Smola, A., Gretton, A., Bedo, J. and Borgwardt, K.
#'   (2012). Feature selection via dependence maximization. JMLR 13,
#'   1393-1434.
#' @seealso [feature_scores()], [bahsic()].
#' @examples
#' if (requireNamespace("mlr3filters", quietly = TRUE)) {
#'   d <- data.frame(golub$x[, 1:100], y = golub$y)
#'   task <- mlr3::as_task_classif(d, target = "y")
#'   filter <- mlr3filters::flt("hsic")
#'   filter$calculate(task)
#'   print(head(mlr3filters::as.data.table(filter)))
#'   # limma's moderated t, in absolute value
#'   print(head(mlr3filters::flt("hsic", method = "mt")$calculate(task)$scores))
#'   # the BAHSIC ranking: 100 for the best of the 100 features, 1 for the worst
#'   print(head(mlr3filters::flt("bahsic")$calculate(task)$scores))
#' }
NULL

# R6 gives every method `self` and `super`; R CMD check's code analysis sees
# the methods inside the make_filter_*() functions and would call them
# undefined globals.
utils::globalVariables(c("self", "super"))

# The filters and how to build each one: the scores' and one per selector
# of the selector table (R/selector-table.R). The R6 classes exist only once
# mlr3filters is loaded, so they are made on first use and kept here.
mlr3_filter_ids <- function() c("hsic", mlr3_selector_ids())
mlr3_generators <- new.env(parent = emptyenv())

# The filter key of each selector, named by the selector.
mlr3_selector_ids <- function() {
  vapply(selector_names(), function(name) {
    id <- selector_field(name, "mlr3_id")
    if (is.null(id)) name else id
  }, "")
}

mlr3_filter_generator <- function(id) {
  gen <- mlr3_generators[[id]]
  if (is.null(gen)) {
    sel <- names(mlr3_selector_ids())[mlr3_selector_ids() == id]
    gen <- if (length(sel)) make_filter_selector(sel) else make_filter_hsic()
    assign(id, gen, envir = mlr3_generators)
  }
  gen
}

# What mlr_filters holds for `id`: a constructor (mlr3misc dictionaries take
# a function as well as a generator), so that registering builds no class.
mlr3_filter_constructor <- function(id) {
  force(id)
  structure(function(...) mlr3_filter_generator(id)$new(...), bahsic_filter = id)
}

# The task as bahsic's inputs: the samples x features matrix (integer
# features as doubles) and the outcome, in the task's row order; with the
# filter's parameters `covariates` and `block` (names of the task's columns),
# `design`: list(covariates = <those columns>, block = <that column>), and
# those columns are not scored.
mlr3_task_data <- function(task, values = list()) {
  if (identical(task$task_type, "surv")) {
    stop(sprintf(paste0("Task '%s' is a survival task: bahsic's mlr3 filters take classification ",
                        "and regression tasks (survival tasks need mlr3proba, which is not on ",
                        "CRAN); use feature_scores(), bahsic() or fohsic() with the ",
                        "survival::Surv outcome directly."), task$id), call. = FALSE)
  }
  design <- mlr3_design(task, values)
  features <- setdiff(task$feature_names, design$columns)
  cols <- task$data(cols = features)
  # unlist() of the columns rather than as.matrix() of the data.table, which
  # is slow for thousands of columns (golub's 3,051 genes: 1 against 12 ms,
  # median of 9 runs)
  x <- matrix(as.double(unlist(cols, use.names = FALSE)), nrow = nrow(cols),
              dimnames = list(NULL, features))
  list(x = x, y = task$truth(), features = features, design = design$args)
}

# The filter's parameter values but the design's.
mlr3_plain_values <- function(values) values[setdiff(names(values), c("covariates", "block"))]

# The design of a filter: `covariates` (names of columns of the task, features
# or columns without a role) and `block` (one column's name, e.g. the task's
# group column) read from the task in its row order.
mlr3_design <- function(task, values) {
  cov <- values$covariates
  blk <- values$block
  if (is.null(cov) && is.null(blk)) return(list(args = list(), columns = character()))
  ids <- task$col_info$id
  for (arg in c("covariates", "block")) {
    v <- values[[arg]]
    if (is.null(v)) next
    if (!is.character(v) || anyNA(v) || (arg == "block" && length(v) != 1L)) {
      stop(sprintf(paste0("The filter's '%s' must be %s of the task's columns, e.g. %s = %s."),
                   arg, if (arg == "block") "the name of one" else "the names",
                   arg, if (arg == "block") "task$col_roles$group" else "\"batch\""),
           call. = FALSE)
    }
    bad <- setdiff(v, ids)
    if (length(bad)) {
      stop(sprintf("The filter's '%s' names %s, not a column of task '%s'.", arg,
                   paste0("'", bad, "'", collapse = ", "), task$id), call. = FALSE)
    }
    if (any(v %in% task$target_names)) {
      stop(sprintf("The filter's '%s' names the target '%s'.", arg,
                   intersect(v, task$target_names)[1L]), call. = FALSE)
    }
  }
  args <- list()
  if (!is.null(cov)) args$covariates <- as.data.frame(task$data(cols = cov))[cov]
  if (!is.null(blk)) args$block <- task$data(cols = blk)[[blk]]
  list(args = args, columns = c(cov, blk))
}

# fun(x, y, <the filter's parameter values>), fun and the data passed by name
# so that a call kept in a result or shown in a message is short.
mlr3_call <- function(fun, d, values) {
  x <- d$x
  y <- d$y
  do.call(fun, c(list(quote(x), quote(y)), values))
}

mlr3_kernel_param <- function() paradox::p_uty(tags = "calculate")

make_filter_hsic <- function() {
  R6::R6Class("FilterHSIC",
    inherit = mlr3filters::Filter,
    public = list(
      initialize = function() {
        param_set <- paradox::ps(
          method = paradox::p_fct(score_methods, init = "hsic", tags = c("calculate", "required")),
          kernel = mlr3_kernel_param(),
          kernel_y = mlr3_kernel_param(),
          estimator = paradox::p_fct(c("biased", "unbiased"), default = "biased",
                                     tags = "calculate"),
          var_equal = paradox::p_lgl(default = FALSE, tags = "calculate"),
          threads = paradox::p_int(lower = 1L, tags = c("calculate", "threads")),
          covariates = mlr3_kernel_param(),
          block = mlr3_kernel_param()
        )
        super$initialize(id = "hsic", task_types = c("classif", "regr"),
                         param_set = param_set, feature_types = c("integer", "numeric"),
                         packages = "bahsic", label = "Per-feature HSIC and its special cases",
                         man = "bahsic::mlr_filters_hsic")
      }
    ),
    private = list(
      .calculate = function(task, nfeat) {
        values <- self$param_set$get_values()
        d <- mlr3_task_data(task, values)
        s <- mlr3_call("feature_scores", d, c(mlr3_plain_values(values), d$design))
        score <- if (score_row(attr(s, "method"))$signed) abs(s$score) else s$score
        stats::setNames(score, d$features)
      }
    )
  )
}

# The filter of a selector: its parameters are the arguments of the
# selector's default method (mlr3_selector_params()); the score is p + 1 - r
# for the feature ranked r of the task's p features (0: not ranked). It
# ranks every feature: `nfeat` is not passed on, as stopping early changes
# the order of the features kept; a selector that needs the number of
# features gets them all.
make_filter_selector <- function(name) {
  id <- mlr3_selector_ids()[[name]]
  R6::R6Class(paste0("Filter", toupper(gsub("_", "", id, fixed = TRUE))),
    inherit = mlr3filters::Filter,
    public = list(
      initialize = function() {
        outcomes <- selector_field(name, "outcomes")
        super$initialize(id = id, task_types = c("classif", if ("numeric" %in% outcomes) "regr"),
                         param_set = mlr3_selector_params(name),
                         feature_types = c("integer", "numeric"), packages = "bahsic",
                         label = selector_field(name, "title"),
                         man = "bahsic::mlr_filters_bahsic")
      }
    ),
    private = list(
      .calculate = function(task, nfeat) {
        values <- self$param_set$get_values()
        d <- mlr3_task_data(task, values)
        # a forward selector's order does not depend on where it stops
        p <- length(d$features)
        forward <- identical(selector_field(name, "direction"), "forward")
        size <- selector_size_args(name, if (forward && !is.null(nfeat)) min(nfeat, p), p)
        fit <- mlr3_call(name, d, c(size, mlr3_plain_values(values), d$design))
        score <- length(fit$features$rank) + 1 - fit$features$rank
        score[is.na(score)] <- 0
        stats::setNames(score, d$features)
      }
    )
  )
}

# The parameters of a selector's filter: the arguments of its default method
# but the data, the size of the selection and what a task does not have,
# typed where the default says the type (choices, a flag, the schedule's
# step fraction, threads); an argument without default that the selector
# needs is required.
mlr3_selector_params <- function(name) {
  fmls <- formals(selector_default(name))
  skip <- c("x", "y", "...", "verbose", "na_action", "assay", "unsupervised", "parallel",
            selector_field(name, "size")$arg, "covariates", "block", "data")
  params <- lapply(stats::setNames(nm = setdiff(names(fmls), skip)), function(nm) {
    mlr3_param(nm, fmls[[nm]], identical(nm, selector_step_arg(name)),
               nm %in% selector_field(name, "needs"))
  })
  # the design: names of the task's columns (mlr3_task_data())
  params$covariates <- mlr3_kernel_param()
  params$block <- mlr3_kernel_param()
  do.call(paradox::ps, params)
}

mlr3_param <- function(nm, default, fraction, required) {
  tags <- c("calculate", if (required) "required")
  if (nm == "threads") return(paradox::p_int(lower = 1L, tags = c(tags, "threads")))
  if (fraction) return(paradox::p_dbl(lower = 0, upper = 1, default = default, tags = tags))
  if (is.call(default) && identical(default[[1L]], as.name("c")) &&
      all(vapply(as.list(default)[-1L], is.character, NA))) {
    levels <- eval(default)
    return(paradox::p_fct(levels, default = levels[[1L]], tags = tags))
  }
  if (is.logical(default) && length(default) == 1L && !is.na(default)) {
    return(paradox::p_lgl(default = default, tags = tags))
  }
  if (is.call(default) || is.symbol(default)) return(paradox::p_uty(tags = tags))
  paradox::p_uty(default = default, tags = tags)
}

# Adds the filters to mlr3filters' dictionary. Called with mlr3filters
# loaded (from .onLoad or from mlr3filters' load hook); never fails, since
# a failure here would fail the loading of bahsic or of mlr3filters.
mlr3_register <- function() {
  tryCatch({
    filters <- utils::getFromNamespace("mlr_filters", "mlr3filters")
    for (id in mlr3_filter_ids()) filters$add(id, mlr3_filter_constructor(id))
  }, error = function(e) NULL)
  invisible()
}

# Removes the entries this package added (not an entry another package has
# put under the same key since).
mlr3_unregister <- function() {
  if (!isNamespaceLoaded("mlr3filters")) return(invisible())
  tryCatch({
    filters <- utils::getFromNamespace("mlr_filters", "mlr3filters")
    for (id in mlr3_filter_ids()) {
      item <- get0(id, envir = filters$items, inherits = FALSE)
      if (identical(attr(item$value, "bahsic_filter"), id)) filters$remove(id)
    }
  }, error = function(e) NULL)
  invisible()
}

mlr3_hook_event <- function() packageEvent("mlr3filters", "onLoad")

# The hook, made in a frame that holds `pkgname`: mlr3 extension packages
# recognise their own hooks by environment(hook)$pkgname.
mlr3_hook <- function(pkgname) {
  force(pkgname)
  function(...) mlr3_register()
}

mlr3_is_own_hook <- function(hook, pkgname) {
  env <- environment(hook)
  is.environment(env) && identical(get0("pkgname", envir = env, inherits = FALSE), pkgname) &&
    identical(body(hook), body(mlr3_hook(pkgname)))
}

mlr3_remove_hook <- function(pkgname) {
  hooks <- getHook(mlr3_hook_event())
  own <- vapply(hooks, mlr3_is_own_hook, NA, pkgname = pkgname)
  if (any(own)) setHook(mlr3_hook_event(), hooks[!own], action = "replace")
  invisible()
}
