# The bad-input table: every kind of bad input x every entry point, each with
# its decided outcome -- an error whose message says what to do, a warning
# and a defined value, or a defined value -- as documented in ?input-checks
# (R/input-checks.R). One row per (case, function) below; a function a case
# does not decide is an error in the table itself, so a new entry point or a
# new case cannot be left out silently.

# ---- the entry points ----------------------------------------------------------

score_call <- function(method) {
  force(method)
  function(x, y, ...) feature_scores(x, y, method = method, ...)
}

callers <- list(
  "hsic()" = function(x, y, ...) hsic(x, y, ...),
  'hsic(estimator = "biased")' = function(x, y, ...) hsic(x, y, estimator = "biased", ...),
  "hsic_test()" = function(x, y, ...) hsic_test(x, y, ...),
  'hsic_test(method = "permutation")' = function(x, y, ...) {
    set.seed(42)
    hsic_test(x, y, method = "permutation", n_perm = 19L, ...)
  },
  "bahsic()" = function(x, y, ...) bahsic(x, y, ...),
  'bahsic(estimator = "unbiased")' = function(x, y, ...) bahsic(x, y, estimator = "unbiased", ...),
  "bahsic(kernel = kernel_linear())" = function(x, y, ...) {
    bahsic(x, y, kernel = kernel_linear(), ...)
  },
  "fohsic()" = function(x, y, ...) fohsic(x, y, ...),
  "mrmr()" = function(x, y, ...) mrmr(x, y, ...),
  "randsel()" = function(x, y, ...) {
    set.seed(42)
    randsel(x, y, n_boot = 20L, ...)
  },
  "lsmi()" = function(x, y, ...) {
    set.seed(42)
    lsmi(x, y, n_basis = 20, folds = 2, ...)
  },
  "l1_lsmi()" = function(x, y, ...) {
    set.seed(42)
    l1_lsmi(x, y, n_features = 1, restarts = 1L, n_basis = 20, folds = 2, max_iter = 20L, ...)
  },
  "l1_hsic()" = function(x, y, ...) {
    set.seed(42)
    l1_hsic(x, y, n_features = 1, restarts = 1L, max_iter = 20L, ...)
  },
  "bahsic(kernel = kernel_clinical())" = function(x, y, ...) {
    bahsic(x, y, kernel = kernel_clinical(), ...)
  },
  "hsic(kernel = kernel_clinical())" = function(x, y, ...) {
    hsic(x, y, kernel = kernel_clinical(), ...)
  },
  "hsic_weights()" = function(x, y, ...) hsic_weights(x, y, lambda = 1e-4, max_iter = 3L, ...),
  "bahsic(kernel = kernel_ridge(1))" = function(x, y, ...) {
    bahsic(x, y, kernel = kernel_ridge(1), ...)
  },
  "qmi()" = function(x, y, ...) qmi(x, y, ...),
  # toy data have 4 features: 6 pairs
  "pair_scores()" = function(x, y, ...) pair_scores(x, y, top = 3L, ...),
  "clinical_rfe()" = function(x, y, ...) clinical_rfe(x, y, ...),
  'clinical_rfe(importance = "mkl")' = function(x, y, ...) clinical_rfe(x, y, importance = "mkl", ...),
  # a score selector and a selector, on a few pairs of halves each
  "stability_selection()" = function(x, y, ...) {
    set.seed(42)
    stability_selection(x, y, selector = "t", n_features = 1, n_subsamples = 3L, ...)
  },
  'stability_selection(selector = "bahsic")' = function(x, y, ...) {
    set.seed(42)
    stability_selection(x, y, selector = "bahsic", n_features = 1, n_subsamples = 2L, ...)
  }
)
# clinical_rfe() trains kernlab's SVM: not without kernlab, nor under valgrind (its
# code, not ours, and slow there)
if (!requireNamespace("kernlab", quietly = TRUE) || under_valgrind()) {
  callers <- callers[!startsWith(names(callers), "clinical_rfe(")]
}
# every method of the score table (R/score-table.R) meets every case, but those
# of censored survival outcomes alone (their bad input: test-scores-cox.R)
score_methods <- bahsic:::score_methods_with(function(r) !identical(r$outcomes, "survival"))
for (method in score_methods) {
  callers[[sprintf('feature_scores(method = "%s")', method)]] <- score_call(method)
}
callers[['feature_scores(method = "t", var_equal = TRUE)']] <- function(x, y, ...) {
  feature_scores(x, y, method = "t", var_equal = TRUE, ...)
}
callers[['feature_scores(method = "hsic", estimator = "unbiased")']] <- function(x, y, ...) {
  feature_scores(x, y, method = "hsic", estimator = "unbiased", ...)
}

fs <- function(...) sprintf('feature_scores(method = "%s")', c(...))
HSIC <- c("hsic()", 'hsic(estimator = "biased")', "qmi()")
TESTS <- c("hsic_test()", 'hsic_test(method = "permutation")')
SELECT <- c("bahsic()", 'bahsic(estimator = "unbiased")', "bahsic(kernel = kernel_linear())",
            "fohsic()", "randsel()", "hsic_weights()", "bahsic(kernel = kernel_ridge(1))",
            "mrmr()")
T_POOLED <- 'feature_scores(method = "t", var_equal = TRUE)'
FS_HSIC_U <- 'feature_scores(method = "hsic", estimator = "unbiased")'
GAMMA_UNDEFINED <- "the gamma approximation of the p-values .* is undefined .*Give 'n_perm'"
# the methods that compare classes and take no numeric outcome (their rows)
CLASS_ONLY <- c(fs(bahsic:::score_methods_with(function(r) !"numeric" %in% r$outcomes)),
                T_POOLED)
# those of two classes only, and the rank scores
TWO_CLASS <- c(fs(bahsic:::score_methods_with(function(r) identical(r$outcomes, "two classes"))),
               T_POOLED)
RANKS <- fs(bahsic:::score_methods_with(function(r) r$family == "rank"))
L1 <- c("l1_lsmi()", "l1_hsic()")
RFE <- c("clinical_rfe()", 'clinical_rfe(importance = "mkl")')
CLINICAL <- c("bahsic(kernel = kernel_clinical())", "hsic(kernel = kernel_clinical())", RFE)
LSMI <- c("lsmi()", L1)
STAB <- c("stability_selection()", 'stability_selection(selector = "bahsic")')
# a study design: refused by name before the data is read, or after its checks
REFUSED <- "cannot adjust for covariates or blocks"
REFUSE_FIRST <- c("lsmi()", "l1_lsmi()", "qmi()", "pair_scores()", RFE,
                  'bahsic(estimator = "unbiased")')
REFUSE_AFTER <- c(fs(bahsic:::score_methods_with(function(r) !identical(r$design, "adjusts"))),
                  FS_HSIC_U, "bahsic(kernel = kernel_clinical())", "hsic(kernel = kernel_clinical())")

# ---- data and checks -----------------------------------------------------------

toy <- function(m = 12, d = 4, n_a = m %/% 2, seed = 1) {
  set.seed(seed)
  y <- factor(rep(c("a", "b"), c(n_a, m - n_a)))
  x <- matrix(rnorm(m * d), m, d, dimnames = list(NULL, paste0("g", seq_len(d))))
  x[y == "b", 1] <- x[y == "b", 1] + 1.5
  list(x = x, y = y)
}

# What a call did: its value, its error message and its warnings. (testthat's
# expect_error() and expect_warning() record a backtrace of every condition
# they catch: for the ~400 error and warning rows of the table that was most
# of this file's run time.)
observe <- function(expr) {
  warnings <- character()
  error <- NULL
  value <- withCallingHandlers(
    tryCatch(expr, error = function(e) {
      error <<- conditionMessage(e)
      NULL
    }),
    warning = function(w) {
      warnings <<- c(warnings, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
  list(value = value, error = error, warnings = warnings)
}

# The decided outcome: an error whose message matches, or a value with no
# warning, or a value with warnings that all match (so no other warning slips
# through). Plain expect() keeps the ~500 rows fast, and its message names
# the call and what it gave.
expect_outcome <- function(out, kind, pattern, fun) {
  got <- if (!is.null(out$error)) {
    sprintf("the error \"%s\"", out$error)
  } else if (length(out$warnings)) {
    sprintf("a value with the warning%s \"%s\"", if (length(out$warnings) > 1L) "s" else "",
            paste(out$warnings, collapse = "\" and \""))
  } else {
    "a value without a warning"
  }
  ok <- switch(kind,
    error = !is.null(out$error) && grepl(pattern, out$error),
    warning = is.null(out$error) && length(out$warnings) > 0L && all(grepl(pattern, out$warnings)),
    value = is.null(out$error) && length(out$warnings) == 0L)
  want <- switch(kind, error = "an error matching", warning = "a value with a warning matching",
                 value = "a value without a warning")
  expect(ok, sprintf("%s should give %s%s; it gave %s.", fun, want,
                     if (kind == "value") "" else sprintf(" /%s/", pattern), got))
}

# the parts of a result that a repair of the input must not change
core <- function(res) {
  if (inherits(res, "bahsic_hsic")) return(res[c("estimate", "se", "hsic0", "hsic1", "m")])
  if (inherits(res, "bahsic_qmi")) return(res[c("estimate", "m")])
  if (inherits(res, "htest")) return(unclass(res)[c("statistic", "parameter", "p.value")])
  if (inherits(res, "bahsic_selection")) return(res[c("features", "path")])
  if (inherits(res, "bahsic_lsmi")) return(res[c("estimate", "sigma", "lambda", "cv")])
  # feature_scores(): the columns in the data's units (effect, mean) scale with
  # it (test-scores-inference.R); the rest must not
  if (inherits(res, "bahsic_scores")) return(res[setdiff(names(res), c("effect", "mean"))])
  # pair_scores(): the columns (its attributes keep the data as given)
  if (inherits(res, "bahsic_pairs")) return(stats::setNames(lapply(names(res), function(n) res[[n]]),
                                                             names(res)))
  res
}

# the result of every entry point is defined, and lists every feature exactly
# once, in input order (one plain expect(): this runs for ~200 rows)
expect_defined <- function(res, features) {
  lists_all <- function(feature, rank) {
    identical(feature, features) && identical(sort(rank), seq_along(features))
  }
  ok <- if (inherits(res, c("bahsic_hsic", "bahsic_lsmi", "bahsic_qmi"))) {
    is.finite(res$estimate)
  } else if (inherits(res, "htest")) {
    isTRUE(res$p.value >= 0 && res$p.value <= 1)
  } else if (inherits(res, "bahsic_selection") && identical(res$method, "stability")) {
    # every feature with its selection probability; the stable set (those
    # reaching the cutoff) ranked 1..k, the others NA
    f <- res$features
    stable <- !is.na(f$rank)
    identical(f$feature, features) && all(f$probability >= 0 & f$probability <= 1) &&
      identical(sort(f$rank), seq_len(sum(stable))) &&
      identical(stable, f$probability >= res$settings$cutoff - 1e-9)
  } else if (inherits(res, "bahsic_selection")) {
    lists_all(res$features$feature, res$features$rank)
  } else if (inherits(res, "bahsic_pairs")) {
    # pairs of two different features, ranked 1..n, finite scores, p-values
    nrow(res) > 0L && all(c(res$feature1, res$feature2) %in% features) &&
      all(res$index1 < res$index2) && identical(res$rank, seq_len(nrow(res))) &&
      all(is.finite(c(res$interaction, res$hsic))) &&
      all(c(res$interaction_p, res$p_value) >= 0 & c(res$interaction_p, res$p_value) <= 1)
  } else {
    lists_all(res$feature, res$rank) && all(is.finite(res$score))
  }
  expect(ok, sprintf("The %s result is not finite, or does not rank each of the %d features once.",
                     class(res)[1L], length(features)))
}

defined <- function(res, run, input) expect_defined(res, colnames(input$x))
defined_or_value <- function(res, run, input) {
  if (inherits(res, c("bahsic_hsic", "bahsic_qmi"))) {
    expect_true(is.finite(res$estimate))
  } else {
    defined(res, run, input)
  }
}

# the result equals that of the repaired input (the repair applied by hand)
same_as_ref <- function(res, run, input) {
  expect_equal(core(res), core(run(input$ref$x, input$ref$y)))
}

# ---- the table -----------------------------------------------------------------

rule <- function(funs, kind = c("error", "warning", "value"), pattern = NULL, check = NULL) {
  list(funs = funs, kind = match.arg(kind), pattern = pattern, check = check)
}

bad_input <- list(
  list(case = "NA in x", input = function() {
    d <- toy()
    d$x[3, 2] <- NA
    d
  }, rules = list(
    rule("*", "error", paste0("'x' has missing values \\(NA/NaN\\), first at feature 'g2', ",
                              "sample '3'\\..*na_action = \"omit\"")))),

  list(case = "NA in x, na_action = \"omit\"", args = list(na_action = "omit"),
       input = function() {
         d <- toy()
         d$ref <- list(x = d$x[-3, ], y = d$y[-3])
         d$x[3, 2] <- NA
         d
       }, rules = list(
         rule("*", "warning", "na_action = \"omit\": dropped 1 of 12 samples", same_as_ref))),

  list(case = "NaN in x", input = function() {
    d <- toy()
    d$x[5, 3] <- NaN
    d
  }, rules = list(
    rule("*", "error", "'x' has missing values \\(NA/NaN\\), first at feature 'g3', sample '5'"))),

  list(case = "Inf in x", input = function() {
    d <- toy()
    d$x[2, 4] <- -Inf
    d
  }, rules = list(
    rule("*", "error", paste0("'x' has infinite values, first at feature 'g4', sample '2'\\. ",
                              "Replace them with finite numbers")))),

  list(case = "NA in y", input = function() {
    d <- toy()
    d$y[4] <- NA
    d
  }, rules = list(
    rule("*", "error",
         "'y' has missing values: remove those samples or use na_action = \"omit\""))),

  list(case = "Inf in a numeric y", input = function() {
    d <- toy()
    d$y <- c(Inf, seq_len(11))
    d
  }, rules = list(
    rule("*", "error", "'y' has infinite values: replace them with finite numbers"))),

  # a constant feature adds 0 to every squared distance: HSIC of the set is
  # that without it; the scores give it NA (no spread) or no dependence
  list(case = "a constant feature", input = function() {
    d <- toy(n_a = 5)
    d$ref <- list(x = d$x[, -2], y = d$y)
    d$x[, 2] <- 5
    d
  }, rules = list(
    # its pairs cannot be scored (a constant kernel): remove it
    rule("pair_scores()", "error",
         "1 feature of 'x' is constant \\(g2\\): a constant feature has no pairs to score"),
    # left out of the fits: probability 0, the others as without it
    rule(STAB, "warning",
         "^1 constant feature \\(g2\\): left out of the fits, selection probability 0\\.",
         function(res, run, input) {
           expect_defined(res, colnames(input$x))
           expect_identical(res$features$probability[2], 0)
           expect_identical(res$features$mean_rank[2], res$settings$q + 1)
           ref <- run(input$ref$x, input$ref$y)
           cols <- c("feature", "rank", "score", "probability", "mean_rank")
           expect_equal(unname(as.list(res$features[-2, cols])),
                        unname(as.list(ref$features[cols])))
           expect_equal(res$path, ref$path)
         }),
    # the Parzen normaliser (4 pi h^2)^(-d/2) counts every dimension, a
    # constant one too: a value, not that of the data without it
    rule("qmi()", "value", check = defined_or_value),
    rule(c(HSIC, TESTS), "value", check = same_as_ref),
    # the clinical kernel keeps it (kernel 1 on it) so that it is ranked
    rule(CLINICAL, "warning", "1 constant feature \\(g2\\): the clinical kernel is 1 for every pair",
         defined_or_value),
    # left out of the optimisation: weight 0
    rule(L1, "warning", "1 constant feature \\(g2\\) cannot be standardised",
         function(res, run, input) {
           expect_defined(res, colnames(input$x))
           expect_identical(unname(res$weights[2]), 0)
         }),
    rule("lsmi()", "warning", "1 constant feature \\(g2\\) cannot be standardised",
         function(res, run, input) expect_true(is.finite(res$estimate))),
    rule("bahsic(kernel = kernel_linear())", "warning",
         "1 constant feature \\(g2\\) cannot be standardised", function(res, run, input) {
           expect_defined(res, colnames(input$x))
           expect_identical(res$features$rank[2], 4L)   # x_j' W x_j = 0 is eliminated first
         }),
    rule(SELECT, "warning", "1 constant feature \\(g2\\) cannot be standardised", defined),
    rule(c(fs("pc", "t", "snr"), T_POOLED, RANKS), "warning",
         "1 constant feature \\(g2\\): score NA, ranked last", function(res, run, input) {
           expect_true(is.na(res$score[2]))
           expect_identical(res$rank[2], 4L)
           expect_true(all(is.finite(res$score[-2])))
         }),
    rule(fs("kta"), "warning", "1 constant feature \\(g2\\): no dependence on the outcome",
         function(res, run, input) {
           # tr(K L) of K = 1 1' with y = +-1: (m_b - m_a)^2, 0 only for balanced classes
           expect_equal(res$score[2], (7 - 5)^2, tolerance = 1e-12)
         }),
    rule(fs("lods"), "warning", "1 constant feature \\(g2\\): no dependence on the outcome",
         function(res, run, input) {
           expect_identical(res$t[2], 0)
           expect_true(is.finite(res$score[2]))
         }),
    rule(c(fs("lin", "mt", "pam", "mmd", "hsic"), FS_HSIC_U), "warning",
         "1 constant feature \\(g2\\): no dependence on the outcome", function(res, run, input) {
           expect_equal(res$score[2], 0, tolerance = 1e-12)
           expect_true(all(is.finite(res$score)))
         }))),

  list(case = "every feature constant", input = function() {
    d <- toy(n_a = 5)
    d$x[] <- rep(c(1, 2, 3, 4), each = 12)
    d
  }, rules = list(
    rule("pair_scores()", "error", "4 features of 'x' are constant \\(g1, g2, g3, \\.\\.\\.\\)"),
    rule(STAB, "error",
         "Every feature of 'x' is constant \\(4 features\\): there is nothing to select"),
    rule(HSIC, "value", check = function(res, run, input) expect_equal(res$estimate, 0)),
    rule(L1, "error", "'n_features' = 1 but only 0 features vary"),
    rule(RFE, "error", "Every feature of 'x' is constant: the kernel is constant"),
    rule("hsic_weights()", "error", "Every feature of 'x' is constant: there is nothing to weight"),
    rule(CLINICAL, "warning", "4 constant features \\(g1, g2, g3, \\.\\.\\.\\): the clinical kernel is 1",
         defined_or_value),
    # no dependence: LSMI near 0 (its regularisation can make it slightly negative)
    rule("lsmi()", "warning", "4 constant features \\(g1, g2, g3, \\.\\.\\.\\) cannot be standardised",
         function(res, run, input) expect_lt(abs(res$estimate), 1e-3)),
    rule("hsic_test()", "warning", "the gamma approximation is undefined",
         function(res, run, input) expect_true(is.na(res$p.value))),
    rule('hsic_test(method = "permutation")', "value",
         check = function(res, run, input) expect_equal(res$p.value, 1)),
    # every feature ties: ranked in column order
    rule(SELECT, "warning",
         "4 constant features \\(g1, g2, g3, \\.\\.\\.\\) cannot be standardised",
         function(res, run, input) expect_identical(res$features$rank, 1:4)),
    rule(c(fs("pc", "t", "snr", "pam"), T_POOLED, RANKS), "warning", "score NA, ranked last",
         function(res, run, input) {
           expect_true(all(is.na(res$score)))
           expect_identical(res$rank, 1:4)
         }),
    rule(fs("kta"), "warning", "no dependence on the outcome",
         function(res, run, input) expect_equal(res$score, rep(4, 4), tolerance = 1e-12)),
    rule(fs("lods"), "warning", "no dependence on the outcome", function(res, run, input) {
      expect_true(all(is.finite(res$score)))
      expect_equal(res$t, rep(0, 4))
    }),
    rule(c(fs("lin", "mt", "mmd", "hsic"), FS_HSIC_U), "warning", "no dependence on the outcome",
         function(res, run, input) expect_equal(res$score, rep(0, 4), tolerance = 1e-12)))),

  # the strongest evidence there is: first, whatever the method; an infinite
  # t or signal to noise ratio (p-value 0) with a warning that names it
  list(case = "a perfectly separating feature", input = function() {
    d <- toy()
    d$x[, 3] <- as.integer(d$y == "b")
    d
  }, rules = list(
    rule(c(fs("t", "snr"), T_POOLED), "warning",
         "^1 feature separates the classes perfectly \\(g3\\).*ranked first",
         function(res, run, input) {
           expect_identical(res$rank[3], 1L)
           expect_identical(res$score[3], Inf)
           expect_identical(res$effect[3], 1)
           if (!is.null(res$p_value)) expect_identical(res$p_value[3], 0)
         }),
    rule(fs("pc"), "warning", "^1 feature is an exact linear function of the outcome \\(g3\\)",
         function(res, run, input) {
           expect_identical(res$rank[3], 1L)
           expect_identical(c(res$score[3], res$statistic[3], res$p_value[3]), c(1, Inf, 0))
         }),
    rule("stability_selection()", "warning",
         "^In 6 of 6 fits: 1 feature separates the classes perfectly \\(g3\\)",
         function(res, run, input) {
           expect_identical(res$features$probability[3], 1)
           expect_identical(res$features$rank[3], 1L)
         }),
    # finite scores that rank by their value: the centroid difference in the
    # data's units (g1's larger shift, 1.5 plus noise, comes first), pam with
    # its offset s0 > 0 in the denominator
    rule(fs("lin", "pam"), "value", check = function(res, run, input) {
      expect_defined(res, colnames(input$x))
      expect_identical(res$rank[c(1, 3)], 1:2)
    }),
    rule(fs(score_methods), "value", check = function(res, run, input) {
      expect_defined(res, colnames(input$x))
      expect_identical(res$rank[3], 1L)
    }),
    rule("*", "value", check = defined_or_value))),

  list(case = "a single class", input = function() {
    d <- toy()
    d$y <- factor(rep("a", 12))
    d
  }, rules = list(
    rule("*", "error", "'y' has a single class \\(\"a\"\\).*needs at least two"))),

  # several classes: the tests of two classes say what to use instead
  list(case = "three classes", input = function() {
    d <- toy()
    d$y <- factor(rep(c("a", "b", "c"), 4))
    d
  }, rules = list(
    rule(fs("wilcoxon"), "error",
         "\"wilcoxon\" compares two classes; 'y' has 3\\. Use .*\"kruskal\".*one_vs_rest = TRUE"),
    # the moderated F
    rule(fs("mt"), "value", check = defined),
    rule(TWO_CLASS, "error", "compares two classes; 'y' has 3 classes"),
    rule(fs(bahsic:::score_methods_with(function(r) setequal(r$outcomes, c("two classes", "numeric")))),
         "error", "needs a numeric or two-class outcome"),
    rule(RFE, "error", "clinical_rfe\\(\\) supports two classes; 'y' has 3 \\(a, b, c\\)"),
    rule("stability_selection()", "error", "^selector = \"t\" compares two classes"),
    rule("*", "value", check = defined_or_value))),

  list(case = "a constant numeric outcome", input = function() {
    d <- toy()
    d$y <- rep(2.5, 12)
    d
  }, rules = list(
    rule(CLASS_ONLY, "error",
         "compares (two )?classes.*; 'y' has a numeric outcome\\. Use method = .*factor\\(y\\)"),
    # checked once on the whole outcome, in the words of stability_selection()
    rule("stability_selection()", "error",
         "^selector = \"t\" compares two classes; 'y' has a numeric outcome.*factor\\(y\\)"),
    rule(RFE, "error", "clinical_rfe\\(\\) classifies: 'y' must be two classes"),
    rule("*", "error", "'y' is constant \\(every value is 2\\.5\\).*needs it to vary"))),

  # HSIC and the mean-based scores need no variance; Welch's t and the signal
  # to noise ratio need one in each class; the pooled ones pool the classes
  list(case = "one sample in a class", input = function() toy(n_a = 1),
       rules = list(
         # each half needs every class
         rule(STAB, "error", paste0("Class \"a\" of 'y' has 1 sample: each half of the samples ",
                                    "needs every class.*Drop that class's samples")),
         rule(fs("t", "snr"), "error",
              "at least 2 samples per class; class \"a\" has 1\\. Use .*method = \"mt\""),
         rule(RFE, "error", "Each class needs at least 2 samples for an SVM; class \"a\" has 1"),
         rule(T_POOLED, "value", check = function(res, run, input) {
           x <- input$x
           y <- input$y
           want <- vapply(seq_len(ncol(x)), function(j) {
             unname(stats::t.test(x[y == "b", j], x[y == "a", j], var.equal = TRUE)$statistic)
           }, numeric(1))
           expect_equal(res$score, want, tolerance = 1e-10)
         }),
         rule(fs("mt", "lods"), "value", check = function(res, run, input) {
           expect_defined(res, colnames(input$x))
           skip_peer("limma")
           fit <- limma::eBayes(limma::lmFit(t(input$x), stats::model.matrix(~ input$y)))
           want <- if (attr(res, "method") == "mt") fit$t[, 2] else fit$lods[, 2]
           expect_equal(res$score, unname(want), tolerance = 1e-8)
         }),
         rule("*", "value", check = defined))),

  list(case = "fewer than 4 samples (m = 3)", input = function() toy(m = 3, n_a = 2),
       rules = list(
         rule(STAB, "error", paste0("fits on halves of the samples: 3 samples give halves of 1; ",
                                    "give at least 6 samples")),
         rule(c("hsic()", 'bahsic(estimator = "unbiased")', FS_HSIC_U, CLINICAL[2]), "error",
              "needs at least 4 samples; there are 3\\. Use estimator = \"biased\""),
         rule("hsic_test()", "error",
              "needs at least 6 samples; there are 3\\. Use method = \"permutation\""),
         rule(LSMI, "error", "needs at least 4 samples; there are 3"),
         rule("pair_scores()", "error", "pair_scores\\(\\) needs at least 6 samples; there are 3"),
         rule(RFE, "error", "Each class needs at least 2 samples for an SVM; class \"b\" has 1"),
         rule(fs("t", "snr"), "error", "class \"b\" has 1"),
         # the scores, with a word on the gamma p-values (NA below 4 samples)
         rule(fs("hsic"), "warning", GAMMA_UNDEFINED, check = function(res, run, input) {
           want <- vapply(seq_len(ncol(input$x)), function(j) {
             hsic(input$x[, j], input$y, estimator = "biased")$estimate
           }, numeric(1))
           expect_equal(res$score, want, tolerance = 1e-12)
           expect_true(all(is.na(res$p_value)))
         }),
         rule(fs("mmd", "kta"), "warning", GAMMA_UNDEFINED, check = function(res, run, input) {
           expect_defined(res, colnames(input$x))
           expect_true(all(is.na(res$p_value)))
         }),
         rule("*", "value", check = defined))),

  list(case = "fewer than 4 samples (m = 2)", input = function() toy(m = 2, n_a = 1),
       rules = list(
         rule(STAB, "error", paste0("fits on halves of the samples: 2 samples give halves of 1; ",
                                    "give at least 6 samples")),
         rule(c("hsic()", FS_HSIC_U, CLINICAL[2]), "error",
              "needs at least 4 samples; there are 2\\. Use estimator = \"biased\""),
         rule("hsic_test()", "error", "needs at least 6 samples; there are 2"),
         rule(LSMI, "error", "needs at least 4 samples; there are 2"),
         rule("pair_scores()", "error", "pair_scores\\(\\) needs at least 6 samples; there are 2"),
         rule(RFE, "error", "Each class needs at least 2 samples for an SVM; class \"a\" has 1"),
         rule(CLINICAL[1], "error", "needs at least 3 samples; there are 2"),
         rule('bahsic(estimator = "unbiased")', "error", "needs at least 4 samples; there are 2"),
         rule("randsel()", "error", "randsel\\(\\) needs at least 3 samples; there are 2"),
         rule(SELECT, "error", "with the biased estimator needs at least 3 samples; there are 2"),
         rule(fs("t", "snr"), "error", "class \"a\" has 1"),
         rule(c(fs("mt", "lods", "pam"), T_POOLED), "error",
              paste0("pools the variance within classes, so it needs more samples \\(2\\) ",
                     "than classes \\(2\\)")),
         # every correlation of 2 samples is +-1, its t test has 0 df
         rule(fs("pc"), "error", "method = \"pc\" .*needs at least 3 samples; there are 2"),
         rule(fs("mmd", "kta", "hsic"), "warning", GAMMA_UNDEFINED, check = defined),
         rule("*", "value", check = defined))),

  list(case = "fewer than 4 samples (m = 1)", input = function() {
    list(x = matrix(1:4, 1, dimnames = list(NULL, paste0("g", 1:4))), y = factor("a"))
  }, rules = list(
    rule("*", "error", "There is 1 sample: dependence on the outcome needs at least 2"))),

  list(case = "unused factor levels", input = function() {
    d <- toy()
    d$ref <- list(x = d$x, y = d$y)
    d$y <- factor(d$y, levels = c("a", "z", "b"))
    d
  }, rules = list(
    rule("*", "warning", "'y' has unused factor levels \\(z\\): dropped", same_as_ref))),

  list(case = "a character column", input = function() {
    d <- toy()
    d$x <- data.frame(id = sprintf("s%02d", 1:12), d$x)
    d
  }, rules = list(
    # the clinical kernel takes it as a categorical feature
    rule(CLINICAL, "value", check = defined_or_value),
    rule("*", "error", "'x' has non-numeric columns \\(id\\): convert them.*formula interface"))),

  list(case = "a character matrix", input = function() {
    d <- toy()
    d$x <- array(format(d$x), dim(d$x))
    d
  }, rules = list(
    rule("*", "error", "'x' is a character matrix: give numbers.*storage\\.mode"))),

  list(case = "duplicated feature names", input = function() {
    d <- toy()
    d$ref <- list(x = d$x, y = d$y)
    colnames(d$ref$x) <- c("g", "g.1", "h", "k")
    colnames(d$x) <- c("g", "g", "h", "k")
    d
  }, rules = list(
    rule("*", "warning", "'x' has duplicated feature names \\(g\\): made unique", same_as_ref))),

  list(case = "features without a name", input = function() {
    d <- toy()
    d$ref <- list(x = d$x, y = d$y)
    colnames(d$ref$x) <- c("g1", "V2", "g3", "V4")
    colnames(d$x) <- c("g1", "", "g3", NA)
    d
  }, rules = list(
    rule("*", "warning", "'x' has features without a name \\(columns 2, 4\\): named V2, V4",
         same_as_ref))),

  list(case = "an integer matrix", input = function() {
    d <- toy()
    d$x[] <- round(4 * d$x)
    d$ref <- list(x = d$x, y = d$y)
    storage.mode(d$x) <- "integer"
    d
  }, rules = list(
    rule("*", "value", check = function(res, run, input) {
      expect_true(is.integer(input$x))
      expect_identical(core(res), core(run(input$ref$x, input$ref$y)))
    }))),

  list(case = "zero columns", input = function() {
    d <- toy()
    d$x <- d$x[, 0]
    d
  }, rules = list(rule("*", "error", "'x' has no features \\(zero columns\\)"))),

  list(case = "d much larger than m (10 x 5000)", input = function() {
    set.seed(3)
    x <- matrix(rnorm(10 * 5000), 10, 5000, dimnames = list(NULL, paste0("f", 1:5000)))
    list(x = x, y = factor(rep(c("a", "b"), 5)))
  }, rules = list(
    # mrmr() selects 50 by default: every feature listed, the first 50 ranked
    rule("mrmr()", "value", check = function(res, run, input) {
      expect_identical(res$features$feature, colnames(input$x))
      expect_identical(sort(res$features$rank), 1:50)
    }),
    rule("*", "value", check = defined))),

  list(case = "length mismatch", input = function() {
    d <- toy()
    d$y <- d$y[1:9]
    d
  }, rules = list(
    rule("*", "error", paste0("'y' has 9 values but 'x' has 12 samples \\(rows\\)\\. ",
                              "Give one value of 'y' per row of 'x'")))),

  list(case = "y is NULL (a column that is not there)", input = function() {
    d <- toy()
    pheno <- data.frame(Class = d$y)
    d$y <- pheno$class
    d
  }, rules = list(
    rule(c(HSIC, TESTS), "error", "'y' is NULL: give the outcome.*needs an outcome.*label_kernel_precomputed"),
    rule(c(SELECT, L1), "error", "'y' is NULL: give the outcome.*unsupervised = TRUE"),
    rule("*", "error", "'y' is NULL: give the outcome, one value per sample"))),

  list(case = "a misspelt argument (na_actoin)", args = list(na_actoin = "omit"),
       input = toy, rules = list(
    rule("*", "error", "has no argument 'na_actoin'\\. Did you mean 'na_action'\\?"))),

  list(case = "threads = 1e6", args = list(threads = 1e6), input = toy, rules = list(
    rule(LSMI, "error", "has no argument 'threads'"),
    rule("*", "warning", "threads = 1e\\+06 is more than the [0-9]+ cores? this session may use",
         check = defined_or_value))),

  # options (case$options, set around the call): checked where they are read
  list(case = "options(bahsic.max_memory = \"a\")", options = list(bahsic.max_memory = "a"),
       input = toy, rules = list(
    # the per-gene statistics hold no m x m matrix and do not read the budget
    rule(c(fs("pc", "lin", "t", "snr", "mt", "lods", "pam"), T_POOLED, RANKS), "value",
         check = defined),
    rule("*", "error", paste0("The option bahsic.max_memory is \"a\"; it must be a positive ",
                              "number of bytes .* or a size such as \"16GB\"")))),

  list(case = "options(bahsic.threads = 1e9)", options = list(bahsic.threads = 1e9),
       input = toy, rules = list(
    rule(LSMI, "value", check = defined),
    rule("*", "warning", "options\\(bahsic.threads = 1e\\+09\\) is more than the [0-9]+ cores?",
         check = defined_or_value))),

  list(case = "data of tiny scale (x * 1e-160)", input = function() {
    d <- toy()
    d$ref <- list(x = d$x, y = d$y)
    d$x <- d$x * 1e-160
    d
  }, rules = list(
    # the clinical kernel divides by the range; the selectors, LSMI and the
    # scores standardise or rescale each feature: the result is that at scale 1
    # the mean difference is in the data's units and B's prior limits too
    # (as limma's): finite values
    rule(fs("lin", "lods"), "value", check = defined),
    rule(c(CLINICAL, SELECT, LSMI, STAB, fs(score_methods), T_POOLED, FS_HSIC_U, "pair_scores()"),
         "value",
         check = function(res, run, input) {
           expect_equal(core(res), core(run(input$ref$x, input$ref$y)), tolerance = 1e-8)
         }),
    # a median-heuristic width of the whole data is not a double in these units
    rule("*", "error", "cannot set a kernel width for 'x': its values are so small.*Rescale 'x'"))),

  # B's prior is in the data's units (limma's stdev.coef.lim): far above them
  # every B is the same number; the others are scale-free or in the data's units
  list(case = "data of large scale (x * 1e20)", input = function() {
    d <- toy()
    d$ref <- list(x = d$x, y = d$y)
    d$x <- d$x * 1e20
    d
  }, rules = list(
    rule(fs("lods"), "warning", "B \\(method = \"lods\"\\) is the same number for 4 features",
         function(res, run, input) {
           expect_identical(res$rank, feature_scores(input$x, input$y, method = "mt")$rank)
         }),
    rule("*", "value", check = defined_or_value))),

  list(case = "a sparse matrix (dgCMatrix)", input = function() {
    d <- toy()
    d$ref <- list(x = d$x, y = d$y)
    if (requireNamespace("Matrix", quietly = TRUE)) d$x <- Matrix::Matrix(d$x, sparse = TRUE)
    d
  }, rules = list(rule("*", "value", check = same_as_ref))),

  list(case = "a choice outside its list (na_action = \"drop\")", args = list(na_action = "drop"),
       input = toy, rules = list(
    rule("*", "error", "^'na_action' = \"drop\" is not one of \"fail\", \"omit\"\\."))),

  list(case = "a SummarizedExperiment with a missing row name", input = function() {
    d <- toy()
    d$ref <- list(x = d$x, y = d$y)
    colnames(d$ref$x)[1L] <- "V1"
    if (requireNamespace("SummarizedExperiment", quietly = TRUE)) {
      d$x <- SummarizedExperiment::SummarizedExperiment(list(e = t(d$x)))
      rownames(d$x)[1L] <- NA
    } else {
      colnames(d$x)[1L] <- NA
    }
    d
  }, rules = list(
    rule("*", "warning", "'x' has features without a name \\((row|column) 1\\): named V1",
         same_as_ref))),

  list(case = "an ExpressionSet with y of the wrong length", input = function() {
    d <- toy()
    if (requireNamespace("Biobase", quietly = TRUE)) d$x <- Biobase::ExpressionSet(t(d$x))
    d$y <- d$y[1:4]
    d
  }, rules = list(
    rule("*", "error", "'y' has 4 values but (the ExpressionSet|'x') has 12 samples"))),

  list(case = "the transposed gene matrix", input = function() {
    d <- toy(d = 30)
    d$x <- t(d$x)
    d
  }, rules = list(
    rule("*", "error", paste0("'y' has 12 values but 'x' has 30 samples.*looks like features x ",
                              "samples \\(genes in rows\\): pass t\\(x\\)")))),

  # zero in most samples, numerical residue (1e-170 to 1e-9) in others and
  # expressed in two: the median of its squared distances, residue against
  # zeros, is subnormal; the rule for ties of the median heuristic (?kernels)
  # ties the residue with 0, so the width is set by the expressed samples
  list(case = "a feature of zeros and numerical residue", input = function() {
    d <- toy()
    d$x[, 2] <- c(0, 2.9, 0, 1e-160, 0, 0, 3.5, 0, 3e-9, 0, 1e-170, 0)
    d
  }, rules = list(rule("*", "value", check = defined_or_value))),

  # ---- study designs (?design): the design is checked with the data, where
  # the function takes one; the functions without a form adjusted for a
  # design refuse it by name, before the data (REFUSE_FIRST) or after its
  # checks (REFUSE_AFTER)
  list(case = "NA in a covariate", args = list(covariates = c(NA, seq(0.1, 1.1, by = 0.1))),
       input = toy, rules = list(
    rule(REFUSE_FIRST, "error", REFUSED),
    rule("*", "error", paste0("covariate 'covariate' is missing for 1 sample\\(s\\) \\(1\\): ",
                              "fill it in")))),

  list(case = "a covariate with one level", args = list(covariates = factor(rep("u", 12))),
       input = toy, rules = list(
    rule(REFUSE_FIRST, "error", REFUSED),
    rule("*", "error", "covariate 'covariate' has one level \\(\"u\"\\).*nothing to adjust for"))),

  list(case = "an outcome the covariates determine",
       args = list(covariates = factor(rep(c("u", "v"), each = 6))), input = toy, rules = list(
    rule(REFUSE_FIRST, "error", REFUSED),
    rule("*", "error", paste0("The outcome is confounded with the design.*the same partition ",
                              "of the samples: a covariate or block is the outcome itself")))),

  list(case = "a block with one sample", args = list(block = c(1:6, 1:5, 7)), input = toy,
       rules = list(
    rule(REFUSE_FIRST, "error", REFUSED),
    rule("*", "error", "2 block\\(s\\) have one sample \\(6, 7\\): a block needs two or more"))),

  list(case = "blocks that do not cross the outcome",
       args = list(block = c(1, 2, 3, 4, 5, 5, 1, 2, 3, 4, 6, 6)), input = toy, rules = list(
    rule(c(REFUSE_FIRST, REFUSE_AFTER), "error", REFUSED),
    # on all samples, and again in the fits whose halves hold such a block
    rule(STAB, "warning", "blocks hold one class only \\((5|6|5, 6)\\): they inform the variance",
         check = defined_or_value),
    rule("*", "warning", "^2 of 6 blocks hold one class only \\(5, 6\\): they inform the variance",
         check = defined_or_value))),

  list(case = "a continuous covariate", args = list(covariates = seq(0.1, 1.2, by = 0.1)),
       input = toy, rules = list(
    rule(c(REFUSE_FIRST, REFUSE_AFTER), "error", REFUSED),
    rule("*", "value", check = defined_or_value))),

  # ---- censored survival outcomes (survival::Surv): the normaliser checks them
  # before any method reads them
  list(case = "a left-censored survival outcome", requires = "survival", r_only = TRUE,
       input = function() {
    d <- toy()
    d$y <- survival::Surv(seq(1, 12), rep(c(1, 0), 6), type = "left")
    d
  }, rules = list(rule("*", "error", "\"left\" censoring; only right-censored outcomes"))),

  list(case = "a survival outcome without events", requires = "survival", r_only = TRUE,
       input = function() {
    d <- toy()
    d$y <- survival::Surv(seq(1, 12), rep(0, 12))
    d
  }, rules = list(rule("*", "error", "'y' has no events: all 12 survival times are censored")))
)

# ---- one test per (case, function) ---------------------------------------------

rule_for <- function(case, fun) {
  for (r in case$rules) if (identical(r$funs, "*") || fun %in% r$funs) return(r)
  stop(sprintf("The bad-input table does not decide case '%s' for %s.", case$case, fun))
}

# One row: the call on the case's input, and its decided outcome.
check_row <- function(case, fun, r) {
  # a case whose input needs a suggested package (its field `requires`); one
  # that R code refuses before any C code runs (`r_only`) is not run under
  # valgrind, where only the C paths matter
  if (!is.null(case$requires)) skip_if_not_installed(case$requires)
  if (isTRUE(case$r_only) && under_valgrind()) skip("R-only checks, not run under valgrind")
  if (!is.null(case$options)) {
    old <- options(case$options)
    on.exit(options(old))
  }
  input <- case$input()
  run <- function(x, y) do.call(callers[[fun]], c(list(x, y), case$args))
  out <- observe(run(input$x, input$y))
  expect_outcome(out, r$kind, r$pattern, fun)
  if (r$kind != "error" && is.null(out$error)) r$check(out$value, run, input)
}

# One test per (case, function); under valgrind one test per case with the
# same rows inside, as testthat's set-up of each test -- R code, not ours --
# is most of the time there (the failure messages still name the function).
n_rows <- 0L
for (case in bad_input) {
  rules <- lapply(stats::setNames(nm = names(callers)), function(fun) rule_for(case, fun))
  n_rows <- n_rows + length(rules)
  if (under_valgrind()) {
    local({
      case <- case
      rules <- rules
      test_that(sprintf("%s: every entry point gives its decided outcome", case$case), {
        for (fun in names(rules)) check_row(case, fun, rules[[fun]])
      })
    })
    next
  }
  for (fun in names(rules)) {
    local({
      case <- case
      fun <- fun
      r <- rules[[fun]]
      test_that(sprintf("%s: %s gives %s", case$case, fun,
                        switch(r$kind, error = "an error", warning = "a warning and a value",
                               value = "a value")), {
        check_row(case, fun, r)
      })
    })
  }
}

# A warning of the selector in some fits comes once, not once per fit: here
# a feature that varies by one sample only, so it is constant in the 3 halves
# (one of each complementary pair) without that sample.
test_that("stability_selection() gives a warning of its fits once, counting them", {
  d <- toy()
  d$x[, 2] <- c(rep(0, 11), 1)
  set.seed(42)
  out <- observe(stability_selection(d$x, d$y, selector = "t", n_features = 1,
                                     n_subsamples = 3L))
  expect_null(out$error)
  expect_identical(out$warnings, paste0("In 3 of 6 fits: 1 constant feature (g2): score NA, ",
                                        "ranked last. Remove them before scoring to silence ",
                                        "this warning."))
  without_12 <- colSums(out$value$subsamples == 12L) == 0L
  expect_identical(sum(without_12), 3L)
  # never selected where it is constant: its NA score ranks last
  picked_g2 <- vapply(out$value$selections, function(s) "g2" %in% s, logical(1))
  expect_false(any(picked_g2[without_12]))
})

test_that("the table decides every case for every entry point", {
  expect_identical(n_rows, length(bad_input) * length(callers))
  expect_true(all(c("hsic", "hsic_test", "bahsic", "fohsic", "feature_scores",
                    "stability_selection") %in%
                    vapply(names(callers), function(n) sub("\\(.*", "", n), "")))
  expect_true(all(fs(score_methods) %in% names(callers)))
  expect_true(all(bahsic:::score_methods_with(function(r) "two classes" %in% r$outcomes) %in%
                    score_methods))
  # every selector of the selector table has its entry points here (the
  # clinical ones only with kernlab, see above)
  selectors <- bahsic:::selector_names()
  if (!any(startsWith(names(callers), "clinical_rfe("))) {
    selectors <- selectors[!vapply(selectors, bahsic:::selector_field, NA, "clinical")]
  }
  called <- vapply(names(callers), function(n) sub("\\(.*", "", n), "")
  expect_true(all(selectors %in% called), info = paste(setdiff(selectors, called), collapse = ", "))
})
