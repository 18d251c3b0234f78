# Misspelt, unknown and ambiguous arguments: one test per exported function
# and per registered method, generated from the installed NAMESPACE, so that
# a new export cannot escape it. Every function must stop on a name it does
# not take (naming it, never dropping it in `...`), and suggest the formal
# argument a near-miss of its name was meant to be.

ns_file <- parseNamespaceFile("bahsic", dirname(system.file(package = "bahsic")))
# the exported lists of functions for caret (R/adapter-caret.R) are not functions;
# their constructors are tested here, the lists in test-adapter-caret.R
exports <- setdiff(sort(ns_file$exports), c("bahsic_rfe_funcs", "hsic_sbf_funcs"))
s3 <- ns_file$S3methods

# A misspelling of `name` that is not a prefix of any formal (R would accept
# a unique prefix): the last two letters swapped.
misspell <- function(name) {
  n <- nchar(name)
  paste0(substr(name, 1L, n - 2L), substr(name, n, n), substr(name, n - 1L, n - 1L))
}

# The arguments a call of `f` matches by name: for a generic, those of its
# default method (and the generic's own).
call_formals <- function(name) {
  f <- getExportedValue("bahsic", name)
  own <- names(formals(f))
  default <- get0(paste0(name, ".default"), envir = asNamespace("bahsic"))
  all <- if (is.null(default)) own else union(own, names(formals(default)))
  setdiff(all, "...")
}

# The arguments a function needs before it can look at the others:
# selection_test() passes its `...` to the selector of its fit.
set.seed(1)
x <- golub$x[, 1:10]
y <- golub$y
lead_args <- list(selection_test = list(fit = bahsic(x, y, threads = 1), n = 1),
                  selected = list(bahsic(x, y, threads = 1)))

for (name in exports) {
  local({
    fn <- name
    test_that(sprintf("%s() stops on an argument it does not have", fn), {
      skip_if(under_valgrind(), "under valgrind: R code only (names are checked before any C call)")
      f <- getExportedValue("bahsic", fn)
      lead <- lead_args[[fn]]
      f_lead <- function(...) do.call(f, c(lead, list(...)))
      expect_true(is.function(f))
      expect_true("..." %in% names(formals(f)),
                  info = sprintf("%s() needs `...` to catch a misspelt argument", fn))
      err <- tryCatch(f_lead(not_an_argument_zzz = 1), error = conditionMessage)
      expect_match(err, "has no argument 'not_an_argument_zzz'", fixed = TRUE,
                   info = fn)
      # a near miss of every formal long enough to misspell is suggested
      for (arg in call_formals(fn)) {
        wrong <- misspell(arg)
        if (nchar(arg) < 4L || wrong == arg) next
        args <- stats::setNames(list(1), wrong)
        err <- tryCatch(do.call(f_lead, args), error = conditionMessage)
        expect_match(err, sprintf("has no argument '%s'. Did you mean '%s'?", wrong, arg),
                     fixed = TRUE, info = sprintf("%s(%s = )", fn, wrong))
      }
    })
  })
}

test_that("the generics name an ambiguous prefix instead of R's 'matches multiple'", {
  x <- golub$x[, 1:5]
  expect_error(hsic(x, golub$y, kern = kernel_linear()),
               "'kern' matches several arguments of hsic\\(\\): 'kernel', 'kernel_y'")
  expect_error(bahsic(x, golub$y, s = "fixed"), "'s' matches several arguments of bahsic\\(\\)")
  # a unique prefix is accepted, as everywhere in R
  fit <- bahsic(x, golub$y, n_feat = 2, threads = 1)
  expect_identical(fit$settings$n_features, 2)
})

test_that("names users bring from elsewhere are suggested", {
  x <- golub$x[, 1:20]
  y <- golub$y
  expect_error(feature_scores(x, y, method = "t", var.equal = TRUE),
               "has no argument 'var.equal'. Did you mean 'var_equal'?", fixed = TRUE)
  expect_error(hsic(x, y, kernel_x = kernel_linear()), "Did you mean 'kernel'?", fixed = TRUE)
  expect_error(randsel(x, y, nboot = 10), "Did you mean 'n_boot'?", fixed = TRUE)
  expect_error(hsic_test(x, y, nperm = 10), "Did you mean 'n_perm'?", fixed = TRUE)
  expect_error(bahsic(x, y, dorp = 0.2), "Did you mean 'drop'?", fixed = TRUE)
  expect_error(feature_scores(x, y, metod = "t"), "Did you mean 'method'?", fixed = TRUE)
  expect_error(selected(bahsic(x, y, threads = 1), m = 3), "Did you mean 'n'?", fixed = TRUE)
  expect_error(kernel_gaussian(sigam = 1), "Did you mean 'sigma'?", fixed = TRUE)
  expect_error(evaluate_selection(x, y, n_featurs = 3), "Did you mean 'n_features'?",
               fixed = TRUE)
  # an argument of the formula interface given to the matrix one says so
  expect_error(bahsic(x, y, data = 1), "belongs to the formula interface")
  # and the formula interface passes the rest on to the default method's check
  df <- data.frame(y = y, x)
  expect_error(bahsic(y ~ ., data = df, dorp = 0.2), "Did you mean 'drop'?", fixed = TRUE)
  # extra unnamed arguments
  expect_error(kernel_linear(1), "1 more unnamed argument")
})

test_that("a choice outside its list names the argument and suggests one", {
  x <- golub$x[, 1:20]
  y <- golub$y
  expect_error(feature_scores(x, y, method = "limma"),
               "'method' = \"limma\" is not one of \"pc\", .*Did you mean \"mt\"?")
  expect_error(feature_scores(x, y, method = "welch"), "Did you mean \"t\"?", fixed = TRUE)
  expect_error(hsic(x, y, estimator = "unbaised"),
               "'estimator' = \"unbaised\" is not one of \"unbiased\", \"biased\". Did you mean \"unbiased\"?",
               fixed = TRUE)
  expect_error(bahsic(x, y, sigma = "dim", threads = 1), NA)
  expect_error(bahsic(x, y, sigma = 1), "'sigma' must be one string")
  expect_error(hsic(x, y, na_action = "drop"), "'na_action' = \"drop\" is not one of")
  expect_error(label_kernel_multiclass("ovr"), "'type' = \"ovr\" is not one of")
})

test_that("arguments the call does not use are errors, not silently dropped", {
  x <- golub$x[, 1:20]
  y <- golub$y
  expect_error(feature_scores(x, y, method = "mt", var_equal = TRUE),
               "'var_equal' is not used with method = \"mt\"")
  expect_error(feature_scores(x, y, method = "t", kernel = kernel_linear()),
               "'kernel' is not used with method = \"t\"")
  expect_error(feature_scores(x, y, method = "mmd", kernel_y = label_kernel_binary()),
               "'kernel_y' is not used with method = \"mmd\"")
  expect_error(feature_scores(x, y, method = "kta", estimator = "unbiased"),
               "'estimator' is not used")
  expect_error(hsic_test(x, y, n_perm = 10), "'n_perm' is not used with the gamma test")
  expect_error(hsic_test(x, y, estimator = "unbiased"), "'estimator' is not used")
  expect_error(bahsic(x, y, kernel = kernel_linear(), sigma = "optimize"),
               "sigma = \"optimize\" is not used with a linear kernel")
  expect_error(bahsic(x, y, kernel = kernel_inverse_distance(), sigma = "dimension"),
               "is not used with an inverse-distance kernel")
  # "fixed", the kernel as given, holds for every kernel
  expect_error(bahsic(x, y, kernel = kernel_linear(), sigma = "fixed", threads = 1), NA)
  expect_error(bahsic(x, y, sigma_grid = c(0.1, 1)),
               "'sigma_grid' is not used with sigma = \"dimension\"")
  expect_error(bahsic(x, y, sigma = "optimize", sigma_grid = c(0.1, 1), threads = 1), NA)
  expect_error(qmi(x[, 1:2], y, bandwidth_y = 1), "'bandwidth_y' is not used with class labels")
  expect_error(evaluate_selection(x, y, selectors = "t", classifier = "none", tune = list()),
               "'tune' is not used with classifier = \"none\"")
  skip_peer("kernlab")
  expect_error(evaluate_selection(x, y, selectors = "t", tune = list(C = 1, sigma = "median"),
                                  inner_folds = 3),
               "'inner_folds' is not used with a single pair")
})

# The methods of generics from base R, each called on an object of its class.
test_that("every registered method stops on an argument it does not have", {
  set.seed(1)
  x <- golub$x[, 1:30]
  y <- golub$y
  fit <- bahsic(x, y, threads = 1)
  ev <- evaluate_selection(x, y, selectors = "t", n_features = 2, folds = 2,
                           classifier = "none")
  objects <- list(
    bahsic_selection = fit,
    summary.bahsic_selection = summary(fit),
    bahsic_hsic = hsic(x[, 1:3], y, threads = 1),
    bahsic_kernel = kernel_linear(),
    bahsic_label_kernel = label_kernel_binary(),
    bahsic_approx = approx_block(),
    bahsic_lsmi = lsmi(x[, 1:2], y, n_basis = 10, folds = 2),
    bahsic_qmi = qmi(x[, 1:2], y),
    bahsic_evaluation = ev,
    bahsic_caret_functions = hsic_sbf_funcs,
    summary.bahsic_evaluation = summary(ev),
    bahsic_pairs = pair_scores(x[, 1:6], y, top = 3, threads = 1),
    bahsic_design = resolve_design(design_spec(block = rep(seq_len(nrow(x) / 2), 2)), nrow(x))
  )
  # the recipes step (its print method), when recipes is installed
  if (requireNamespace("recipes", quietly = TRUE)) {
    objects$step_select_hsic <- step_select_hsic(recipes::recipe(y ~ ., data = data.frame(y, x)),
                                                 recipes::all_predictors(), top_n = 2)$steps[[1]]
  }
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  for (i in seq_len(nrow(s3))) {
    generic <- s3[i, 1L]
    cls <- s3[i, 2L]
    # methods of a suggested package's generic (S3method(recipes::prep, ...)), registered when
    # it loads: tested with that package in their own file (test-adapter-*.R)
    if (ncol(s3) >= 4L && !is.na(s3[i, 4L])) next
    if (cls == "step_select_hsic" && !requireNamespace("recipes", quietly = TRUE)) next
    # ours, or exported again (selected(), stabs' generic): above
    if (exists(generic, envir = asNamespace("bahsic"), inherits = FALSE) ||
        generic %in% ns_file$exports) next
    obj <- objects[[cls]]
    expect_false(is.null(obj), info = sprintf("no test object of class %s for %s()", cls, generic))
    if (is.null(obj)) next
    if (generic == "plot" && cls == "bahsic_evaluation") {
      # plot() needs the errors of a classifier
      # (not under valgrind: kernlab's code, not ours)
      if (!requireNamespace("kernlab", quietly = TRUE) || under_valgrind()) next
      obj <- evaluate_selection(x, y, selectors = "t", n_features = 2, folds = 2,
                                tune = list(C = 1, sigma = "median"))
    }
    f <- get(generic, envir = baseenv())
    if (generic == "plot") f <- graphics::plot
    err <- tryCatch({
      utils::capture.output(f(obj, not_an_argument_zzz = 1))
      "no error"
    }, error = conditionMessage)
    expect_match(err, "no argument 'not_an_argument_zzz'", fixed = TRUE,
                 info = sprintf("%s.%s", generic, cls))
  }
  # what R itself passes to print methods and data.frame() is accepted
  expect_output(print(fit, digits = 3), "BAHSIC")
  expect_s3_class(as.data.frame(fit, stringsAsFactors = FALSE), "data.frame")
})
