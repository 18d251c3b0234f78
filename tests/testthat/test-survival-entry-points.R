# Every entry point that takes an outcome, every selector of the selector
# table and every method of the score table, given a censored survival
# outcome survival::Surv(time, event), either recognises it (its result is
# not that of the same call with the two columns time and event as a numeric
# matrix, and a selection records the Surv outcome) or refuses it by name (the
# error names the function or the method and "a censored survival outcome").

# A small censored outcome with a log-linear and a U-shaped gene.
survival_case <- function() {
  set.seed(33)
  s <- simulate_survival(30, 6, n_linear = 1, n_u = 1, censoring = 0.3)
  rownames(s$x) <- paste0("s", seq_len(nrow(s$x)))
  s$y_matrix <- matrix(unclass(s$y)[, 1:2], ncol = 2L, dimnames = list(NULL, c("time", "status")))
  s
}

# What a result says, without the call that made it and the outcome it
# recorded: two results that agree here were computed alike.
result_numbers <- function(r) {
  if (is.list(r) && !is.data.frame(r)) {
    r[c("call", "outcome", "data.name")] <- NULL
  }
  r
}

# fun(y) with the Surv outcome runs and recognises it, or stops with an error
# that says "censored survival outcome" and names one of `names`.
expect_survival_or_refuses <- function(fun, y, y_matrix, names) {
  set.seed(1)
  r <- tryCatch(suppressWarnings(fun(y)), error = function(e) e)
  label <- names[1L]
  if (inherits(r, "error")) {
    msg <- conditionMessage(r)
    expect_true(grepl("censored survival outcome", msg, fixed = TRUE) &&
                  any(vapply(names, grepl, NA, x = msg, fixed = TRUE)),
                label = sprintf("%s: refuses a Surv outcome by name (it said: %s)", label, msg))
    return(invisible("refused"))
  }
  if (inherits(r, "bahsic_selection")) {
    expect_true(inherits(r$outcome$y, "Surv"),
                label = sprintf("%s: its selection records the Surv outcome", label))
  }
  set.seed(1)
  r_matrix <- tryCatch(suppressWarnings(fun(y_matrix)), error = function(e) e)
  expect_false(isTRUE(all.equal(result_numbers(r), result_numbers(r_matrix))),
               label = sprintf("%s: a Surv outcome is not read as the matrix (time, event)",
                               label))
  invisible("recognised")
}

test_that("every score method recognises a Surv outcome or refuses it by name", {
  skip_if_not_installed("survival")
  s <- survival_case()
  for (method in score_methods) {
    expect_survival_or_refuses(function(y) feature_scores(s$x, y, method = method),
                               s$y, s$y_matrix, sprintf("method = \"%s\"", method))
  }
})

test_that("every selector recognises a Surv outcome or refuses it by name", {
  skip_if_not_installed("survival")
  s <- survival_case()
  for (name in selector_names()) {
    if (isTRUE(selector_field(name, "clinical")) && !requireNamespace("kernlab", quietly = TRUE)) {
      next
    }
    needs <- list(lambda = 1e-3)[selector_field(name, "needs")]
    what <- expect_survival_or_refuses(
      function(y) run_selector(name, s$x, y, 2L, threads = 1L, args = needs),
      s$y, s$y_matrix, sprintf("%s()", name))
    # the table says which: a selector that takes it lists "survival"
    expect_identical(what == "recognised", "survival" %in% selector_field(name, "outcomes"),
                     label = sprintf("%s() against its row's outcomes", name))
  }
})

test_that("the other entry points recognise a Surv outcome or refuse it by name", {
  skip_if_not_installed("survival")
  s <- survival_case()
  x <- s$x
  check <- function(fun, names) expect_survival_or_refuses(fun, s$y, s$y_matrix, names)
  check(function(y) hsic(x[, 1:2], y), "hsic()")
  check(function(y) hsic_test(x[, 1:2], y), "hsic_test()")
  check(function(y) hsic_test(x[, 1:2], y, method = "permutation", n_perm = 19L), "hsic_test()")
  check(function(y) qmi(x[, 1:2], y), "qmi()")
  check(function(y) lsmi(x[, 1:2], y, n_basis = 10L, folds = 2L), "lsmi()")
  check(function(y) pair_scores(x, y, top = 3L, threads = 1L), "pair_scores()")
  check(function(y) default_label_kernel(y), "default_label_kernel()")
  check(function(y) stability_selection(x, y, n_features = 2L, n_subsamples = 2L),
        c("stability_selection()", "bahsic()"))
  check(function(y) evaluate_selection(x, y, selectors = "t", n_features = 2L, folds = 3L),
        c("evaluate_selection()", "method = \"t\""))
  check(function(y) selection_test(bahsic(x, y, threads = 1L), n = 2L, n_perm = 3L),
        c("selection_test()", "bahsic()"))
  skip_peer("SummarizedExperiment")
  se <- SummarizedExperiment::SummarizedExperiment(assays = list(exprs = t(x)))
  for (method in score_methods) {
    check(function(y) {
      se$os <- y
      SummarizedExperiment::rowData(add_feature_scores(se, "os", method = method))
    }, c("add_feature_scores()", sprintf("method = \"%s\"", method)))
  }
})

test_that("the adapters recognise a Surv outcome or refuse it by name", {
  skip_if_not_installed("survival")
  s <- survival_case()
  x <- as.data.frame(s$x)
  if (requireNamespace("caret", quietly = TRUE)) {
    rfe_ctrl <- caret::rfeControl(functions = bahsic_rfe_functions(), method = "cv", number = 2L)
    expect_survival_or_refuses(function(y) caret::rfe(x, y, sizes = 2L, rfeControl = rfe_ctrl),
                               s$y, s$y_matrix, c("bahsic_rfe_functions()", "caret"))
    sbf_ctrl <- caret::sbfControl(functions = hsic_sbf_functions(), method = "cv", number = 2L)
    expect_survival_or_refuses(function(y) caret::sbf(x, y, sbfControl = sbf_ctrl),
                               s$y, s$y_matrix, c("hsic_sbf_functions()", "caret"))
  }
  if (requireNamespace("recipes", quietly = TRUE)) {
    expect_survival_or_refuses(function(y) {
      d <- x
      d$y <- y
      rec <- step_select_hsic(recipes::recipe(y ~ ., data = d), recipes::all_predictors(),
                              top_n = 2L)
      # the step's scores of the genes
      generics::tidy(recipes::prep(rec), number = 1L)
    }, s$y, s$y_matrix, "step_select_hsic()")
  }
})
