#' BAHSIC and per-feature HSIC tests inside caret's resampling
#'
#' caret's [caret::rfe()] and [caret::sbf()] resample a whole feature
#' selection: the features are chosen on each resample's training part and
#' the model is judged on the held-out part, so the estimate of performance
#' includes the selection (Ambroise and McLachlan 2002). Both take the
#' selection as a list of functions (`functions =` of [caret::rfeControl()]
#' and [caret::sbfControl()]); these are such lists.
#'
#' **`bahsic_rfe_funcs`** (made by `bahsic_rfe_functions()`; with
#' `selector = ` another selector, e.g. `"mrmr"`, the full forward order of
#' [mrmr()], that selector's ranking in place of BAHSIC's) for
#' `caret::rfe()`: its `rank` runs [bahsic()] on the resample's training
#' data and returns caret's data frame of importances, `Overall` and `var`,
#' most important first, with `Overall` minus BAHSIC's rank (1 for the
#' feature eliminated last, so larger is more important, as caret expects).
#' With `rfeControl(rerank = FALSE)`, caret's default, `rank` is called once
#' per resample on all features: BAHSIC's own backward elimination (Song et
#' al. 2012, Algorithm 1) is the ranking, and caret cuts it at each of
#' `sizes`. caret then picks the size with the best resampled performance
#' and the features with the largest mean `Overall` over the rows of the
#' result's `variables` ([caret::pickVars()]), in which a resample counts
#' once for every size at which it kept the feature: a consensus of the
#' resamples' BAHSIC ranks that favours features ranked high often. With
#' `rerank = TRUE`, BAHSIC is run again on the surviving features at every
#' size. `fit` trains the model on the chosen features with
#' [caret::train()], which receives `rfe()`'s `...` (e.g. `method =
#' "svmRadial"`, `"lda"`, `"knn"`, `trControl`, `tuneGrid`); `pred`,
#' `selectSize` ([caret::pickSizeBest()]), `selectVar` and `summary`
#' ([caret::defaultSummary()]) are those of [caret::caretFuncs]. Note that
#' `rfe()` also fits and judges the model on all features (the largest
#' size), on every resample.
#'
#' **`hsic_sbf_funcs`** (made by `hsic_sbf_functions()`) for `caret::sbf()`:
#' its `score` gives each feature's p-value from [feature_scores()] (by
#' default `method = "hsic"`, the per-feature HSIC test), its `filter` keeps
#' the features whose p-value, adjusted over all features by
#' [stats::p.adjust()] with `adjust`, is below `cutoff` (missing p-values,
#' e.g. of a feature constant on a resample, are not kept). `fit` and `pred`
#' are those of [caret::caretSBF]: [caret::train()] with `sbf()`'s `...`,
#' and, as there, when no feature passes the filter the model is
#' [caret::nullModel()] (the most frequent class, or the mean), so that a
#' resample without a feature does not stop `sbf()`. Give
#' `sbfControl(multivariate = TRUE)`: `score` then scores all features in
#' one call of [feature_scores()]. By default caret calls `score` once per
#' feature, which gives the same p-values for `"hsic"`, `"t"`, `"pc"`,
#' `"mmd"` and `"kta"` (each feature's test is its own) but costs one call
#' per feature; limma's moderated t (`"mt"`, `"lods"`) and `"pam"` borrow
#' strength across features and are an error there. With a matrix `x`,
#' `multivariate = TRUE` is needed: otherwise caret's `sbf()` hands `score`
#' the matrix's cells one at a time (it loops with `vapply()`, which is
#' meant for a data frame's columns), and `score` stops with an error that
#' says so. A data frame works without it, one call per feature, but
#' thousands of genes then take many times longer: give `multivariate =
#' TRUE` for a data frame too. The columns must be numeric: a factor column
#' is an error that says so.
#'
#' **Covariates and blocks.** caret hands the functions `x` and `y` only,
#' so the design travels as columns of `x`: `covariates` names the columns
#' to adjust for (e.g. `c("batch", "age")`; in a data frame `x` a factor
#' column is a factor) and `block` the column naming each sample's pair or
#' patient. On every resample they are read from the rows caret passes and
#' given to the selector or to [feature_scores()] as `covariates` (a data
#' frame) and `block` (see [design]); they are not features: `sbf()`'s
#' filter never keeps them (so its model does not see them), and `rfe()`'s
#' ranking puts them last, unranked (caret's `rank` must rank every column:
#' they enter the model only at the size of all columns). `sbf()` needs
#' `sbfControl(multivariate = TRUE)` then. A selector or method that cannot
#' adjust is an error when the list is made. Keeping a patient's samples in
#' one resample is caret's part: give `index = caret::groupKFold(patient)`
#' to `rfeControl()` or `sbfControl()`.
#'
#' **Censored survival outcomes** are not supported: caret's `rfe()` and
#' `sbf()` do not handle a `survival::Surv` outcome (their summaries would
#' stop with "Invalid operation on a survival time"), so every function of
#' these lists that receives the outcome refuses one by name. Use
#' [bahsic()] or [feature_scores()] on the `Surv` outcome and
#' [evaluate_selection()] (a ridge Cox model scored by concordance) directly.
#'
#' The arguments given to the constructors are checked when the list is
#' made, before any resampling: a misspelt name or a value [bahsic()] or
#' [feature_scores()] would refuse is an error then. Arguments that the
#' resampling sets are refused: `x` and `y` (each resample's data), for
#' BAHSIC `n_features` (the sizes are `caret::rfe()`'s `sizes`), `unsupervised`
#' and `assay` (caret passes a matrix or a data frame), and `method` and
#' `adjust` of [feature_scores()] are the constructor's own.
#'
#' caret passes `x` as it was given (a matrix, or a data frame whose columns
#' must be numeric) and `y` as a factor (classification) or a numeric vector.
#' bahsic's own recursive feature elimination (RFE-SVM and RFE-MKL of Paul
#' and Dupont) is [clinical_rfe()], a name of its own: `rfe()` is caret's
#' whichever of the two packages is attached first. caret's `rfe()` and
#' `sbf()` attach caret to the search path as they run (the example detaches
#' it again).
#'
#' @param selector for `bahsic_rfe_functions()`: the selector whose ranking
#'   `rank` returns, [bahsic()] by default, or another selector of the
#'   package by name (`"fohsic"`, `"mrmr"`, `"randsel"`, `"l1_lsmi"`,
#'   `"l1_hsic"`, `"hsic_weights"`, `"clinical_rfe"`; each ranks every
#'   feature: a forward selector, or one that needs the number of features,
#'   is given all of them).
#' @param ... for `bahsic_rfe_functions()`: arguments of the selector (by
#'   name, e.g. `drop = 0.05`, `kernel = kernel_laplace()`); for
#'   `hsic_sbf_functions()`: further arguments of [feature_scores()] (e.g.
#'   `n_perm`, `kernel`, `var_equal`); for `print()`: not used.
#' @param method the [feature_scores()] method whose p-values filter the
#'   features: `"hsic"` (default), or any other with p-values, e.g. `"mt"`,
#'   `"t"`, `"pc"`, `"mmd"`; `"lin"`, `"snr"` and `"pam"` need `n_perm`.
#' @param cutoff a feature is kept when its (adjusted) p-value is below
#'   `cutoff`, in (0, 1].
#' @param adjust a method of [stats::p.adjust()] applied to the p-values of
#'   all features of a resample before the cutoff: `"none"` (default, as
#'   caret's own `caretSBF`), `"BH"`, `"BY"`, `"holm"`, `"hochberg"`,
#'   `"hommel"` or `"bonferroni"`.
#' @param covariates `NULL` (default), or the names of the columns of `x`
#'   to adjust for (see "Covariates and blocks").
#' @param block `NULL` (default), or the name of the column of `x` naming
#'   each sample's block (pair, patient).
#' @return A list of functions of class `bahsic_caret_functions`: `summary`,
#'   `fit`, `pred`, `rank`, `selectSize`, `selectVar` for
#'   `caret::rfeControl(functions = )`; `summary`, `fit`, `pred`, `score`,
#'   `filter` for `caret::sbfControl(functions = )`. Its attribute
#'   `"settings"` holds the arguments given.
#' @references Song, L., Smola, A., Gretton, A., Bedo, J. and Borgwardt, K.
#'   (2012). Feature selection via dependence maximization. JMLR 13,
#'   1393-1434.
#'
#'   Ambroise, C. and McLachlan, G. J. (2002). Selection bias in gene
#'   extraction on the basis of microarray gene-expression data. PNAS 99,
#'   6562-6566.
#' @seealso [bahsic()], [feature_scores()], [stability_selection()].
#' @examples
#' if (requireNamespace("caret", quietly = TRUE)) {
#'   attached <- "package:caret" %in% search()
#'   x <- golub$x[, 1:100]
#'   # 3-fold cross-validation of BAHSIC + a 3-nearest-neighbour classifier
#'   set.seed(1)
#'   ctrl <- caret::rfeControl(functions = bahsic_rfe_funcs, method = "cv", number = 3)
#'   fit <- caret::rfe(x, golub$y, sizes = c(2, 5, 10), rfeControl = ctrl,
#'                     method = "knn", tuneGrid = data.frame(k = 3),
#'                     trControl = caret::trainControl(method = "none"))
#'   fit
#'   # BAHSIC options: remove 5% of the features per iteration
#'   bahsic_rfe_functions(drop = 0.05)
#'
#'   # filter by the per-feature HSIC test at 5% FDR
#'   set.seed(1)
#'   sctrl <- caret::sbfControl(functions = hsic_sbf_functions(adjust = "BH"),
#'                              method = "cv", number = 3, multivariate = TRUE)
#'   sf <- caret::sbf(x, golub$y, sbfControl = sctrl, method = "knn",
#'                    tuneGrid = data.frame(k = 3),
#'                    trControl = caret::trainControl(method = "none"))
#'   sf
#'   # caret's rfe() and sbf() attach caret as they run: leave the search path as it was
#'   if (!attached) detach("package:caret")
#' }
#' @name caret-functions
NULL

# Arguments of bahsic() that the resampling sets, and why.
rfe_reserved_args <- c(
  x = "rfe() passes each resample's training data",
  y = "rfe() passes each resample's outcome",
  n_features = "the subset sizes are rfe()'s 'sizes'",
  unsupervised = "rfe() selects for an outcome",
  assay = "caret passes a matrix or a data frame",
  data = "the covariates are columns of x, named by 'covariates'"
)

sbf_reserved_args <- c(
  x = "sbf() passes each resample's training data",
  y = "sbf() passes each resample's outcome",
  assay = "caret passes a matrix or a data frame",
  data = "the covariates are columns of x, named by 'covariates'"
)

sbf_adjust_methods <- c("none", "BH", "BY", "holm", "hochberg", "hommel", "bonferroni")

#' @rdname caret-functions
#' @export
bahsic_rfe_functions <- function(..., selector = "bahsic", covariates = NULL, block = NULL) {
  selector <- arg_match(selector, selector_names(), arg_name = "selector")
  reserved <- rfe_reserved_args
  size <- selector_field(selector, "size")$arg
  if (!is.null(size)) reserved[[size]] <- "the subset sizes are rfe()'s 'sizes'"
  args <- adapter_args(list(...), "bahsic_rfe_functions", selector, selector_default(selector),
                       reserved, own = c("selector", "covariates", "block"))
  design <- caret_design_names(covariates, block)
  check_resample_design(selector, if (length(design)) design)
  for (nm in setdiff(selector_field(selector, "needs"), names(args))) {
    stop(sprintf("selector = \"%s\" needs '%s': give it, e.g. bahsic_rfe_functions(%s = ).",
                 selector, nm, nm), call. = FALSE)
  }
  rfe_function_list(check_rfe_selector_args(args, selector), selector, design)
}

#' @rdname caret-functions
#' @export
hsic_sbf_functions <- function(method = "hsic", cutoff = 0.05, adjust = "none", ...,
                               covariates = NULL, block = NULL) {
  method <- arg_match(method, score_methods, aliases = score_aliases)
  if (!is.numeric(cutoff) || length(cutoff) != 1L || is.na(cutoff) || cutoff <= 0 ||
        cutoff > 1) {
    stop("'cutoff' must be one number in (0, 1], the p-value below which a feature is kept.",
         call. = FALSE)
  }
  adjust <- arg_match(adjust, sbf_adjust_methods)
  args <- adapter_args(list(...), "hsic_sbf_functions", "feature_scores",
                       feature_scores.default, sbf_reserved_args,
                       own = c("method", "cutoff", "adjust", "covariates", "block"))
  design <- caret_design_names(covariates, block)
  check_resample_design(method, if (length(design)) design)
  sbf_function_list(method, cutoff, adjust, check_sbf_score_args(method, args), design)
}

# The arguments a constructor passes on to `target()` (by name, each once,
# each a formal of `target_fun`, none of `reserved`): an error that names a
# wrong one, and suggests the closest formal (or the constructor's `own`).
adapter_args <- function(args, fn, target, target_fun, reserved, own = character()) {
  if (!length(args)) return(list())
  nms <- names(args)
  if (is.null(nms) || any(!nzchar(nms))) {
    stop(sprintf("Every argument of %s() after its own is passed to %s() and must be named ",
                 fn, target), sprintf("(e.g. %s).", if (on_schedule(target)) {
                   paste(selector_step_arg(target), "= 0.05")
                 } else {
                   "n_perm = 1000"
                 }), call. = FALSE)
  }
  dup <- nms[duplicated(nms)]
  if (length(dup)) {
    stop(sprintf("%s() was given '%s' more than once.", fn, dup[1L]), call. = FALSE)
  }
  for (nm in nms) {
    if (nm %in% names(reserved)) {
      stop(sprintf("%s() does not pass '%s' to %s(): %s. Remove it.", fn, nm, target,
                   reserved[[nm]]), call. = FALSE)
    }
  }
  allowed <- setdiff(names(formals(target_fun)), c("...", names(reserved), own))
  for (nm in nms) {
    if (!nm %in% allowed) {
      unknown_arg_error(nm, fn, c(own, allowed),
                        hint = if (length(own)) {
                          sprintf("Its arguments are %s and those of %s().",
                                  paste0("'", own, "'", collapse = ", "), target)
                        } else {
                          sprintf("Its arguments are those of %s().", target)
                        })
    }
  }
  args
}

# The values given for a selector checked as it checks them before it reads
# any data (its row's check_args: bahsic(), fohsic(), mrmr()), with its
# defaults for the others; estimator and sigma matched to their choices.
# The other selectors check theirs at the first resample.
check_rfe_selector_args <- function(args, selector) {
  check <- selector_field(selector, "check_args")
  if (!length(args) || is.null(check)) return(args)
  def <- selector_default(selector)
  fmls <- formals(def)
  env <- new.env(parent = environment(def))
  for (nm in setdiff(names(fmls), c("x", "y", "..."))) {
    value <- if (nm %in% names(args)) args[[nm]] else eval(fmls[[nm]], env)
    assign(nm, value, envir = env)
  }
  estimator <- arg_match(env$estimator, eval(fmls$estimator), arg_name = "estimator")
  sigma <- if ("sigma" %in% names(args)) {
    arg_match(args$sigma, eval(fmls$sigma), arg_name = "sigma")
  }
  check(env, estimator, sigma, selector)
  if ("estimator" %in% names(args)) args$estimator <- estimator
  if (!is.null(sigma)) args$sigma <- sigma
  args
}

# The feature_scores() arguments checked as feature_scores() checks them
# before it reads any data, and the method must give p-values.
check_sbf_score_args <- function(method, args) {
  check_one_row_per_feature(method, args, "hsic_sbf_functions()")
  # the arguments of some methods only (score_table)
  own <- score_method_formals()
  given <- stats::setNames(own %in% names(args), own)
  if (given[["kernel"]]) check_kernel(args$kernel, "kernel")
  check_score_arguments(method, given, if (given[["kernel"]]) args$kernel else kernel_gaussian())
  if (given[["estimator"]]) {
    args$estimator <- arg_match(args$estimator, c("biased", "unbiased"), arg_name = "estimator")
  }
  if (given[["var_equal"]]) check_flag(args$var_equal, "var_equal")
  if (!is.null(args$n_perm)) args$n_perm <- check_whole(args$n_perm, "n_perm", 1L)
  if (!is.null(args$block_size)) args$block_size <- check_whole(args$block_size, "block_size", 1L)
  if (!is.null(args$threads)) args$threads <- check_threads(args$threads)
  if (!is.null(args$na_action)) {
    args$na_action <- arg_match(args$na_action, c("fail", "omit"), arg_name = "na_action")
  }
  if (!is.null(args$parallel)) check_parallel(args$parallel)
  check_inference_args(method, NULL, "none", FALSE, args$n_perm)
  if (score_row(method)$p_values == "permutation" && is.null(args$n_perm)) {
    stop(sprintf(paste0("method = \"%s\" has p-values only from permutations of the labels: ",
                        "give 'n_perm' (e.g. n_perm = 1000), or choose a method with ",
                        "p-values without them (%s)."), method,
                 methods_words(function(r) r$p_values %in% c("analytic", "kernel test"), ", ")),
         call. = FALSE)
  }
  args
}

# caret's list for rfe(), ranking by the selector (a name of the selector
# table) with `args`. The exported default is made by this builder at
# install time (R/ files are collated alphabetically, so this file's top
# level cannot call the checkers of the others); the constructor checks first.
rfe_function_list <- function(args, selector, design = list()) {
  force(args)
  force(selector)
  force(design)
  rank <- function(object, x, y) {
    caret_refuse_surv(y)
    # `object` (the model on all features) is not used: the ranking is the
    # selector's, of every feature (a selector that must be told how many
    # gets them all); the design's columns come last, unranked
    dz <- caret_design(x, design)
    x <- dz$x
    size <- selector_size_args(selector, NULL, ncol(x))
    call <- as.call(c(list(as.name(selector), quote(x), quote(y)), size, args,
                      caret_design_symbols(dz$args)))
    covariates <- dz$args$covariates
    block <- dz$args$block
    fit <- eval(call)
    rank <- fit$features$rank
    rank[is.na(rank)] <- length(rank) + 1L  # not ranked (a weight of zero): last
    ord <- order(rank)
    vars <- c(colnames(x)[ord], dz$columns)
    overall <- c(-rank[ord], rep(-(length(rank) + 2L), length(dz$columns)))
    data.frame(Overall = overall, var = vars, row.names = vars, stringsAsFactors = FALSE)
  }
  out <- list(
    summary = function(data, lev = NULL, model = NULL) {
      caret_refuse_surv(data$obs)
      caret::defaultSummary(data, lev, model)
    },
    fit = function(x, y, first, last, ...) {
      caret_refuse_surv(y)
      caret::train(x, y, ...)
    },
    pred = function(object, x) caret::caretFuncs$pred(object, x),
    rank = rank,
    selectSize = function(x, metric, maximize) caret::pickSizeBest(x, metric, maximize),
    selectVar = function(y, size) caret::pickVars(y, size)
  )
  structure(out, class = "bahsic_caret_functions", settings = c(args, design),
            for_caret = "rfe", selector = selector)
}

# caret's list for sbf(), filtering by the p-values of feature_scores().
sbf_function_list <- function(method, cutoff, adjust, args, design = list()) {
  force(method)
  force(cutoff)
  force(adjust)
  force(args)
  force(design)
  score <- function(x, y) {
    caret_refuse_surv(y)
    one <- is.null(dim(x))
    if (one && length(design)) {
      stop(paste0("With covariates or a block, caret must score all columns at once (the ",
                  "design's columns with the features): use caret::sbfControl(functions = ",
                  "..., multivariate = TRUE)."), call. = FALSE)
    }
    if (one) {
      # sbfControl(multivariate = FALSE), caret's default: one feature per call
      # a statistic that borrows strength across features (limma's prior,
      # pamr's s0, score_table's `borrows`): no p-value from one feature alone
      if (score_row(method)$borrows) {
        stop(sprintf(paste0("method = \"%s\" pools information across features, so caret ",
                            "must score them all at once: use caret::sbfControl(functions = ",
                            "..., multivariate = TRUE)."), method), call. = FALSE)
      }
      if (length(x) != length(y)) {
        # caret's sbf() applies vapply() to x: on a matrix it loops over the cells
        stop(paste0("caret called score() with ", length(x), " value", if (length(x) != 1L) "s",
                    " for ", length(y), " samples: with a matrix 'x', sbf() needs ",
                    "caret::sbfControl(multivariate = TRUE), which scores all features in ",
                    "one call of feature_scores()."), call. = FALSE)
      }
      if (!is.numeric(x) && !is.logical(x)) {
        # a factor or text column (caret hands the column as it is)
        stop(sprintf(paste0("caret called score() with a %s column of 'x': the features must ",
                            "be numeric. Code a factor as numbers (e.g. the dummy columns of ",
                            "model.matrix()) or leave it out of 'x'."), class(x)[1L]),
             call. = FALSE)
      }
      x <- matrix(as.double(x), ncol = 1L, dimnames = list(NULL, "x"))
    }
    dz <- caret_design(x, design)
    all_columns <- colnames(x)
    x <- dz$x
    covariates <- dz$args$covariates
    block <- dz$args$block
    call <- as.call(c(list(quote(feature_scores), quote(x), quote(y), method = method), args,
                      caret_design_symbols(dz$args)))
    p <- eval(call)$p_value
    if (one) return(p)
    names(p) <- colnames(x)
    # the design's columns are not features: no p-value, never kept
    if (length(dz$columns)) p <- stats::setNames(p[all_columns], all_columns)
    p
  }
  filter <- function(score, x, y) {
    p <- if (adjust == "none") score else stats::p.adjust(score, adjust)
    keep <- !is.na(p) & p < cutoff
    names(keep) <- if (!is.null(names(score))) names(score) else colnames(x)
    keep
  }
  out <- list(
    summary = function(data, lev = NULL, model = NULL) {
      caret_refuse_surv(data$obs)
      caret::defaultSummary(data, lev, model)
    },
    fit = function(x, y, ...) {
      caret_refuse_surv(y)
      caret::caretSBF$fit(x, y, ...)
    },
    pred = function(object, x) caret::caretSBF$pred(object, x),
    score = score,
    filter = filter
  )
  settings <- c(list(method = method, cutoff = cutoff, adjust = adjust), args, design)
  structure(out, class = "bahsic_caret_functions", settings = settings, for_caret = "sbf")
}

# caret's rfe() and sbf() have no censored outcomes: a Surv outcome is refused
# by name, by every function of the lists that sees the outcome (caret catches
# errors of the resamples' fits and goes on to summary()).
caret_refuse_surv <- function(y) {
  if (is_surv(y)) {
    stop(paste0("caret's rfe/sbf do not support a censored survival outcome (survival::Surv); ",
                "use bahsic() / evaluate_selection() directly."), call. = FALSE)
  }
  invisible()
}

#' @rdname caret-functions
#' @export
bahsic_rfe_funcs <- rfe_function_list(list(), eval(formals(bahsic_rfe_functions)$selector))

#' @rdname caret-functions
#' @export
hsic_sbf_funcs <- sbf_function_list("hsic", 0.05, "none", list())

#' @rdname caret-functions
#' @param x a list made by `bahsic_rfe_functions()` or `hsic_sbf_functions()`.
#' @export
print.bahsic_caret_functions <- function(x, ...) {
  check_dots(..., .fn = "print", .allow = print_dot_args)
  settings <- attr(x, "settings")
  shown <- vapply(settings, format_adapter_value, "")
  if (identical(attr(x, "for_caret"), "rfe")) {
    cat(sprintf("caret functions for caret::rfe(): features ranked by %s(%s)\n",
                attr(x, "selector"), paste(names(shown), shown, sep = " = ", collapse = ", ")))
    cat("use: caret::rfeControl(functions = <this>); the model: caret::train() with rfe()'s ...\n")
  } else {
    cat(sprintf(paste0("caret functions for caret::sbf(): features with p < %s from ",
                       "feature_scores(%s)%s\n"),
                format(settings$cutoff),
                paste(names(shown)[-(2:3)], shown[-(2:3)], sep = " = ", collapse = ", "),
                if (settings$adjust == "none") "" else
                  sprintf(", adjusted by \"%s\"", settings$adjust)))
    cat(paste0("use: caret::sbfControl(functions = <this>, multivariate = TRUE); ",
               "the model: caret::train() with sbf()'s ...\n"))
  }
  invisible(x)
}

format_adapter_value <- function(value) {
  if (inherits(value, c("bahsic_kernel", "bahsic_label_kernel"))) return(value$label)
  if (is.atomic(value) && length(value) <= 3L) return(paste(deparse(value), collapse = ""))
  sprintf("<%s>", class(value)[1L])
}

# The design of the caret functions: the names of the columns of x that are
# covariates and the block (caret hands the functions x and y only, so the
# design travels as columns of x, subset with the rows of every resample).
caret_design_names <- function(covariates, block) {
  for (arg in c("covariates", "block")) {
    v <- get(arg)
    if (!is.null(v) && (!is.character(v) || anyNA(v) || !length(v) ||
                        (arg == "block" && length(v) != 1L))) {
      stop(sprintf(paste0("'%s' must be %s of the columns of x (caret passes x and y only, ",
                          "so the design travels as columns of x), e.g. %s = %s."), arg,
                   if (arg == "block") "the name of one" else "the names", arg,
                   if (arg == "block") "\"patient\"" else "c(\"batch\", \"age\")"),
           call. = FALSE)
    }
  }
  Filter(Negate(is.null), list(covariates = covariates, block = block))
}

# x without the design's columns, and the design read from them:
# list(x, args = list(covariates = <a data frame>, block = <a vector>), columns).
caret_design <- function(x, design) {
  if (!length(design)) return(list(x = x, args = list(), columns = character()))
  cols <- c(design$covariates, design$block)
  bad <- setdiff(cols, colnames(x))
  if (length(bad)) {
    stop(sprintf(paste0("The design's column%s %s %s not in the x caret passed: keep the ",
                        "covariates and the block as columns of x."),
                 if (length(bad) > 1L) "s" else "", paste0("'", bad, "'", collapse = ", "),
                 if (length(bad) > 1L) "are" else "is"), call. = FALSE)
  }
  args <- list()
  if (!is.null(design$covariates)) {
    args$covariates <- as.data.frame(x[, design$covariates, drop = FALSE])
  }
  if (!is.null(design$block)) args$block <- x[, design$block, drop = TRUE]
  keep <- !colnames(x) %in% cols
  list(x = x[, keep, drop = FALSE], args = args, columns = cols)
}

# The design's arguments as symbols of the caller's locals (`covariates`,
# `block`), so that a call kept in a result stays short.
caret_design_symbols <- function(args) {
  stats::setNames(lapply(names(args), as.name), names(args))
}
