# The selectors of the package, one row each: what the rest of the code
# knows about a selector is read from here (stability_selection(),
# evaluate_selection(), the caret / recipes / mlr3 adapters, the result
# class's labels and wording, selection_test(), the progress bar of the
# selection schedule), so adding a selector is its R file, its row and its
# tests. tests/testthat/test-selector-table.R checks that no other R file
# spells a selector's name as a string and that every row is complete.
#
# A row (selector_row()), named by the selector's exported generic, the
# function users call (with its default and formula methods):
# title:        what it does, in a few words (the mlr3 filter's label).
# outcomes:     the outcomes it takes, of selector_outcomes.
# random:       whether a fit with its defaults draws random numbers (from
#               R's stream, so set.seed() repeats it).
# methods:      the `method` of its results, each with its label for print,
#               plot and the adapters (a selector with variants has several).
# score:        what `features$score` of a result holds.
# contribution: how it reports each feature's contribution
#               (`features$contribution`).
# criterion:    what the path's values are, and the path column holding them
#               (path_value).
# direction:    "backward" or "forward" for a selector of the one selection
#               schedule (src/schedule.c), with its step fraction `drop` or
#               `add`; NA otherwise.
# hsic_select:  it runs through hsic_select() (its arguments gathered by
#               select_args()), so selection_test() re-runs it from one
#               prepared problem.
# check_args:   NULL, or function(env, estimator, sigma, name) that checks
#               its arguments (in `env`, with its defaults) before any data,
#               as the selector does (caret's constructor calls it).
# size:         the argument that stops it at q features and its smallest
#               value, and whether it must be given; NULL: it ranks every
#               feature and callers keep the top q. A forward selector, or
#               one that must be given it, gets every feature for a full
#               ranking.
# needs:        further arguments it needs from the caller (no default).
# clinical:     its `x` is a table of mixed columns for the clinical kernel.
# width_policy: the width of its kernel when its settings record none.
# refuses:      arguments it does not take on purpose, each with what to say
#               where the closest name would mislead (unknown_arg_error()).
# mlr3_id:      the key of its filter in mlr3filters' dictionary (NULL: its
#               name; another where mlr3filters has a filter of that name).
# design:       "adjusts": it takes a study design (covariates, block;
#               R/design.R); or a sentence saying why it cannot, with which
#               it refuses one by name (check_selector_design()).
# outcome_why:  named by the outcome kinds it does not take (of
#               selector_outcomes), why not: the sentence with which it refuses
#               one by name (check_selector_outcome()); a kind not named gets
#               the outcomes it takes.

# The outcomes a selector may take: two classes, several classes, a
# numeric vector, a numeric matrix (several outputs), a censored survival
# outcome (through label_kernel_survival()), none (unsupervised).
selector_outcomes <- c(score_outcomes, "none")  # the score table's words (R/score-table.R)

# The fields every row gives, and the others with their defaults.
selector_required <- c("title", "outcomes", "random", "methods", "score", "contribution")
selector_defaults <- list(criterion = "HSIC", path_value = "hsic", direction = NA_character_,
                          hsic_select = FALSE, check_args = NULL, size = NULL,
                          needs = character(), clinical = FALSE, width_policy = "median",
                          refuses = character(), mlr3_id = NULL,
                          design = "it has no form adjusted for covariates or blocks in this version.",
                          outcome_why = character())

selector_row <- function(...) {
  row <- list(...)
  stopifnot(all(selector_required %in% names(row)),
            all(names(row) %in% c(selector_required, names(selector_defaults))),
            all(row$outcomes %in% selector_outcomes), is.logical(row$random),
            all(names(row$outcome_why) %in% setdiff(selector_outcomes, row$outcomes)),
            length(row$random) == 1L, is.character(row$methods), !is.null(names(row$methods)),
            is.null(row$direction) || row$direction %in% c("backward", "forward"))
  c(row, selector_defaults[setdiff(names(selector_defaults), names(row))])
}

# The size argument of a selector that stops at q features: its name, its
# smallest value and whether the caller must give it.
selector_size <- function(arg, min = 1L, required = FALSE) {
  list(arg = arg, min = min, required = required)
}

weight_meaning <- c(score = "its weight", contribution = "its share of the total weight")

# The checks of bahsic() and fohsic() before any data (check_select_args(),
# R/select-hsic.R), and of mrmr() (check_mrmr_args(), R/select-mrmr.R).
check_schedule_args <- function(env, estimator, sigma, name) {
  check_select_args(name, select_args(env, selector_step_arg(name), estimator, sigma))
}
check_mrmr_env <- function(env, estimator, sigma, name) {
  env$estimator <- estimator
  env$sigma <- sigma
  check_mrmr_args(mrmr_arg_list(as.list(env), all = TRUE))
}

selector_table <- list(
  bahsic = selector_row(title = "BAHSIC backward elimination",
    outcomes = selector_outcomes, random = FALSE, methods = c(bahsic = "BAHSIC"),
    score = "HSIC of the surviving features without it, when it was eliminated",
    contribution = "share of its surviving set's HSIC lost without it; the last one left: 100%",
    direction = "backward", hsic_select = TRUE, check_args = check_schedule_args,
    size = selector_size("n_features"), design = "adjusts"),
  fohsic = selector_row(title = "FOHSIC forward selection",
    outcomes = selector_outcomes, random = FALSE, methods = c(fohsic = "FOHSIC"),
    score = "HSIC of the selected features with it, when it was added",
    contribution = "share of HSIC gained when it was added; the first ones added: 100%",
    direction = "forward", hsic_select = TRUE, check_args = check_schedule_args,
    size = selector_size("n_features"), design = "adjusts"),
  mrmr = selector_row(title = "mRMR with HSIC",
    outcomes = score_outcomes, random = FALSE,
    methods = c(mrmr = "mRMR"),
    score = "its relevance minus its mean redundancy with the features selected before it",
    contribution = "that criterion as a share of its relevance; the first one added: 100%",
    direction = "forward", check_args = check_mrmr_env, size = selector_size("n_features"),
    mlr3_id = "mrmr_hsic", design = "adjusts"),
  randsel = selector_row(title = "randSel: HSIC of random feature subsets",
    outcomes = selector_outcomes, random = TRUE, methods = c(randsel = "randSel"),
    score = "its contribution to the subsets' alignment when it was ranked",
    contribution = "its score relative to the mean alignment of its iteration",
    size = selector_size("stop_at", min = 2L), criterion = "mean alignment",
    width_policy = "dimension", design = "adjusts"),
  l1_lsmi = selector_row(title = "l1-LSMI feature weighting",
    outcomes = setdiff(selector_outcomes, "survival"), random = TRUE,
    methods = c(l1_lsmi = "l1-LSMI"),
    outcome_why = c(survival = paste0(
      "fits the density ratio of the features and the outcome's values, and a censored ",
      "time is only a bound on the survival time, not its value")),
    score = weight_meaning[["score"]], contribution = weight_meaning[["contribution"]],
    size = selector_size("n_features", required = TRUE),
    design = paste0("it estimates mutual information by fitting the density ratio of the ",
                    "features and the outcome (least-squares mutual information), which has no ",
                    "label kernel to project off the covariates; the conditional form would fit ",
                    "that ratio given the covariates, which this version does not. Use ",
                    "l1_hsic(), the same search with HSIC.")),
  l1_hsic = selector_row(title = "l1-HSIC feature weighting",
    outcomes = selector_outcomes, random = TRUE, methods = c(l1_hsic = "l1-HSIC"),
    score = weight_meaning[["score"]], contribution = weight_meaning[["contribution"]],
    size = selector_size("n_features", required = TRUE), design = "adjusts"),
  hsic_weights = selector_row(title = "HSIC feature weighting",
    outcomes = selector_outcomes, random = FALSE,
    methods = c(hsic_weights = "HSIC feature weighting"),
    score = weight_meaning[["score"]], contribution = weight_meaning[["contribution"]],
    needs = "lambda", refuses = c(approx = paste0(
      "Every step needs the exact gradient over all pairs of samples. Use fewer samples, or ",
      "bahsic() with an approximation.")), design = "adjusts"),
  clinical_rfe = selector_row(title = "Recursive feature elimination with the clinical kernel",
    outcomes = "two classes", random = FALSE,
    outcome_why = c(numeric = "classifies: 'y' must be two classes (a factor, character or logical)",
                    matrix = "classifies: 'y' must be two classes (a factor, character or logical)",
                    survival = paste0("classifies two classes with an SVM, which has no form ",
                                      "for censored survival times")),
    methods = c(rfe_svm = "RFE-SVM", rfe_mkl = "RFE-MKL"),
    score = "its importance when it was removed",
    contribution = "share of the importances of its iteration; the last one left: 100%",
    clinical = TRUE, criterion = "SVM dual objective", path_value = "objective",
    refuses = c(kernel_y = paste0(
      "It trains an SVM classifier on two classes, whose labels are +-1. For a label kernel ",
      "(regression, several outputs, a precomputed label kernel) use bahsic(), fohsic() or ",
      "randsel().")),
    design = paste0("it trains an SVM on the +-1 class labels, and an SVM adjusted for ",
                    "covariates or blocks is another model, not a projection of its labels. Use ",
                    "bahsic(y ~ ., data = d, covariates = ...) on numeric features (factors as ",
                    "dummy columns), which ranks by dependence given the design."))
)

# ---- readers ---------------------------------------------------------------------

# A design (design_spec(); NULL for none) given to a selector that cannot adjust:
# the error that names it, says why and lists those that can.
check_selector_design <- function(name, design) {
  if (is.null(design)) return(invisible())
  why <- selector_field(name, "design")
  if (identical(why, "adjusts")) return(invisible())
  can <- names(Filter(function(r) identical(r$design, "adjusts"), selector_table))
  design_refuse(sprintf("%s()", name),
                paste0(why, if (length(can)) {
                  sprintf(" Selectors that adjust: %s.", paste0(can, "()", collapse = ", "))
                }))
}

# The outcome y (NULL: none, or a precomputed label kernel) given to the
# selector `name`: the error that names it and the outcome where its row does
# not take that kind, with the selectors that do.
check_selector_outcome <- function(name, y) {
  if (is.null(y)) return(invisible())
  kind <- outcome_kind(y)
  outcomes <- selector_field(name, "outcomes")
  if (kind %in% outcomes) return(invisible())
  why <- selector_field(name, "outcome_why")
  why <- if (kind %in% names(why)) {
    why[[kind]]
  } else {
    sprintf("takes %s", paste(setdiff(outcomes, "none"), collapse = ", "))
  }
  stop_selector_outcome(sprintf("%s()", name), why, y)
}

# The error of `what` (a function, "qmi()") that does not take the outcome y
# because of `why`, with the selectors that take its kind after the
# functions `also`.
stop_selector_outcome <- function(what, why, y, also = character()) {
  kind <- outcome_kind(y)
  can <- c(also, paste0(names(Filter(function(r) kind %in% r$outcomes, selector_table)), "()"))
  stop(sprintf("%s %s; 'y' has %s.%s", what, why, outcome_words(y),
               if (length(can)) {
                 sprintf(" Use %s, which take%s it.", paste(can, collapse = ", "),
                         if (length(can) == 1L) "s" else "")
               } else ""), call. = FALSE)
}

# An estimator of mutual information from the outcome's values (lsmi(),
# qmi()) given a censored survival outcome: the error that names it.
refuse_survival_values <- function(y, what) {
  if (!is_surv(y)) return(invisible())
  stop_selector_outcome(what, paste0(
    "estimates the density of the outcome's values, and a censored time is only a bound on ",
    "the survival time, not its value"), y, also = c("hsic()", "feature_scores()"))
}

# The names of the selectors.
selector_names <- function() names(selector_table)

# The row of a selector, by its name or by the `method` of one of its
# results (NULL for neither: a stability selection, a user's function).
selector_info <- function(name) {
  if (!is.character(name) || length(name) != 1L || is.na(name)) return(NULL)
  row <- selector_table[[name]]
  if (!is.null(row)) return(c(list(name = name), row))
  for (nm in names(selector_table)) {
    row <- selector_table[[nm]]
    if (name %in% names(row$methods)) return(c(list(name = nm), row))
  }
  NULL
}

# One field of a selector's row (by name or result method); `default` for
# a name the table does not know.
selector_field <- function(name, field, default = NULL) {
  row <- selector_info(name)
  if (is.null(row)) default else row[[field]]
}

# Every result method of every selector with its label.
selector_labels <- function() {
  unlist(unname(lapply(selector_table, `[[`, "methods")))
}

# The selector's default method (the function whose arguments the adapters
# and stability_selection() check against).
selector_default <- function(name) {
  get(paste0(name, ".default"), envir = topenv(environment(selector_default)), mode = "function")
}

# Whether the selector runs on the one selection schedule (src/schedule.c:
# bahsic() and fohsic() through hsic_select(), mrmr() with its own scorer),
# and whether backward there.
on_schedule <- function(name) !is.na(selector_field(name, "direction", NA))
is_backward <- function(name) identical(selector_field(name, "direction"), "backward")

# Its step argument in the selection schedule: the fraction eliminated or
# added per iteration.
selector_step_arg <- function(name) {
  if (on_schedule(name)) {
    switch(selector_field(name, "direction"), backward = "drop", forward = "add")
  }
}

# The arguments that stop the selector at q features; q = NULL: a full
# ranking of the p features (every feature for a forward selector or one
# that must be told, no argument for the others, which rank all anyway).
selector_size_args <- function(name, q, p = q) {
  size <- selector_field(name, "size")
  if (is.null(size)) return(list())
  all <- size$required || identical(selector_field(name, "direction"), "forward")
  if (is.null(q) && !all) return(list())
  stats::setNames(list(max(size$min, if (is.null(q)) p else q)), size$arg)
}

# One fit of a selector: fun(x, y, <size for q>, <threads>, <args>), called
# by name (so its result's call names it); `threads` only where it takes them.
run_selector <- function(name, x, y, q, threads = NULL, args = list(), p = ncol(x)) {
  takes <- "threads" %in% names(formals(selector_default(name)))
  th <- if (!is.null(threads) && takes) list(threads = threads)
  do.call(name, c(list(x, y), selector_size_args(name, q, p), th, args))
}
