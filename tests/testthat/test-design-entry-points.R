# Every entry point, every selector of the selector table and every method of
# the score table takes a study design (`covariates`, `block`): they are
# formals of its default method, and a call with a design either runs or
# refuses by name (the error names the function or method and says that it
# cannot adjust; see ?design).

# Paired samples (one of each class per pair) in three batches that vary
# within the pairs, a numeric outcome beside the classes.
design_case <- function() {
  set.seed(31)
  m <- 24L
  x <- matrix(stats::rnorm(m * 8L), m, 8L,
              dimnames = list(paste0("s", seq_len(m)), paste0("g", seq_len(8L))))
  y <- factor(rep(c("a", "b"), m / 2L))
  x[, 1] <- x[, 1] + 1.5 * (y == "b")
  list(x = x, y = y, z = x[, 2] + stats::rnorm(m), batch = factor(rep(c("b1", "b2", "b3"), 8L)),
       pair = factor(rep(seq_len(m / 2L), each = 2L)))
}

# The function whose formals a user's call reaches: the default method of a
# generic, else the function.
entry_function <- function(name) {
  ns <- asNamespace("bahsic")
  get0(paste0(name, ".default"), envir = ns, inherits = FALSE) %||%
    get(name, envir = ns, mode = "function")
}
`%||%` <- function(a, b) if (is.null(a)) b else a

expect_design_formals <- function(name) {
  f <- names(formals(entry_function(name)))
  expect_true(all(c("covariates", "block") %in% f),
              label = sprintf("covariates and block are formals of %s", name))
}

# The call runs, or stops with an error that says it cannot adjust and names
# one of `names` (the function or its method).
expect_runs_or_refuses <- function(expr, names) {
  msg <- tryCatch({
    suppressWarnings(force(expr))
    NULL
  }, error = function(e) conditionMessage(e))
  if (is.null(msg)) {
    succeed()
    return(invisible())
  }
  expect_true(grepl("cannot adjust", msg, fixed = TRUE) &&
                any(vapply(names, grepl, NA, x = msg, fixed = TRUE)),
              label = sprintf("%s: runs or refuses by name (it said: %s)", names[1L], msg))
}

entry_points <- c("feature_scores", "hsic", "hsic_test", "bahsic", "fohsic", "randsel",
                  "hsic_weights", "l1_hsic", "mrmr", "stability_selection", "selection_test",
                  "evaluate_selection", "add_feature_scores")

test_that("every entry point, selector and score method has covariates and block", {
  for (name in unique(c(entry_points, selector_names()))) expect_design_formals(name)
  # the score methods are reached through feature_scores()
  expect_design_formals("feature_scores")
})

test_that("every score method with a design runs or refuses by name", {
  d <- design_case()
  for (method in score_methods) {
    outcomes <- score_table[[method]]$outcomes
    y <- if ("two classes" %in% outcomes) {
      d$y
    } else if ("numeric" %in% outcomes) {
      d$z
    } else {
      if (!requireNamespace("survival", quietly = TRUE)) next
      survival::Surv(seq_along(d$z), rep_len(c(1, 0, 1), length(d$z)))
    }
    expect_runs_or_refuses(
      feature_scores(d$x, y, method = method, covariates = d$batch, block = d$pair),
      c(sprintf("method = \"%s\"", method), method))
  }
})

test_that("every selector with a design runs or refuses by name", {
  d <- design_case()
  for (name in selector_names()) {
    if (isTRUE(selector_field(name, "clinical")) && !requireNamespace("kernlab", quietly = TRUE)) {
      next
    }
    needs <- list(lambda = 1e-3)[selector_field(name, "needs")]
    expect_runs_or_refuses(
      run_selector(name, d$x, d$y, 2L, threads = 1L,
                   args = c(needs, list(covariates = d$batch, block = d$pair))),
      sprintf("%s()", name))
  }
})

test_that("the other entry points with a design run or refuse by name", {
  d <- design_case()
  x <- d$x
  y <- d$y
  design <- list(covariates = d$batch, block = d$pair)
  with_design <- function(fun, ...) do.call(fun, c(list(...), design))
  expect_runs_or_refuses(with_design(hsic, x[, 1:2], y), "hsic()")
  expect_runs_or_refuses(with_design(hsic_test, x[, 1:2], y), "hsic_test()")
  expect_runs_or_refuses(with_design(hsic_test, x[, 1:2], y, method = "permutation", n_perm = 19L),
                         "hsic_test()")
  expect_runs_or_refuses(
    with_design(stability_selection, x, y, selector = "t", n_features = 2L, n_subsamples = 2L),
    c("stability_selection()", "method = \"t\""))
  expect_runs_or_refuses(
    with_design(evaluate_selection, x, y, selectors = "t", n_features = 2L, folds = 3L,
                classifier = "none"),
    c("evaluate_selection()", "method = \"t\""))
  fit <- bahsic(x, y, threads = 1L)
  expect_runs_or_refuses(with_design(selection_test, fit, n = 2L, n_perm = 3L),
                         "selection_test()")
})

test_that("add_feature_scores() with a design runs or refuses by name", {
  skip_peer("SummarizedExperiment")
  d <- design_case()
  se <- SummarizedExperiment::SummarizedExperiment(
    assays = list(exprs = t(d$x)),
    colData = data.frame(class = d$y, batch = d$batch, pair = d$pair, row.names = rownames(d$x)))
  expect_runs_or_refuses(add_feature_scores(se, "class", method = "t", covariates = ~ batch,
                                            block = "pair"),
                         c("add_feature_scores()", "method = \"t\""))
})
