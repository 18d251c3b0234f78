# evaluate_selection() with a censored survival outcome (R/evaluate-survival.R):
# folds stratified by event, a ridge Cox model per training fold scored by
# survival::concordance() (the oracle: coxph() and concordance() called
# directly on the same rows), the concordance in summary() and plot(), and
# the errors by name.

surv_data <- function(n = 60, p = 20, censoring = 0.3, seed = 1, ...) {
  set.seed(seed)
  simulate_survival(n, p = p, censoring = censoring, ...)
}

test_that("folds are stratified by event: events and censored samples spread evenly", {
  skip_if_not_installed("survival")
  s <- surv_data(61, censoring = 0.4)
  set.seed(2)
  f <- cv_folds(s$y, 5)
  ev <- tapply(surv_event(s$y), f, sum)
  cens <- tapply(1 - surv_event(s$y), f, sum)
  expect_lte(diff(range(ev)), 1)
  expect_lte(diff(range(cens)), 1)
  # a numeric or factor outcome draws its folds as before
  set.seed(2)
  g <- cv_folds(golub$y, 5)
  set.seed(2)
  expect_identical(g, {
    o <- order(as.integer(golub$y), stats::runif(38))
    out <- integer(38)
    out[o] <- sample.int(5)[rep_len(seq_len(5), 38)]
    out
  })
})

test_that("the concordance is that of a ridge coxph() on the fold's top genes", {
  skip_if_not_installed("survival")
  s <- surv_data()
  set.seed(3)
  ev <- evaluate_selection(s$x, s$y, selectors = "hsic", n_features = c(2, 4), folds = 3)
  expect_identical(ev$settings$outcome, "survival")
  expect_identical(ev$settings$classifier, "ridge_cox")
  expect_equal(ev$settings$theta, 1)
  res <- ev$results
  expect_true(all(c("concordance", "concordance_uno") %in% names(res)))
  expect_false(any(c("error", "balanced_error", "rmse") %in% names(res)))
  # every test fold has events
  expect_true(all(tapply(surv_event(s$y), ev$folds[, 1], sum) >= 2))
  for (i in c(1L, 4L)) {
    k <- res$fold[i]
    n <- res$n_features[i]
    train <- ev$folds[, 1] != k
    feats <- ev$rankings$hsic[[k]][seq_len(n)]
    xtr <- s$x[train, feats, drop = FALSE]
    mu <- colMeans(xtr)
    sdv <- apply(xtr, 2, stats::sd)
    ztr <- scale(xtr, mu, sdv)
    zte <- scale(s$x[!train, feats, drop = FALSE], mu, sdv)
    ytr <- s$y[train]
    yte <- s$y[!train]
    fit <- survival::coxph(ytr ~ survival::ridge(ztr, theta = 1, scale = FALSE), ties = "efron")
    lp <- drop(zte %*% stats::coef(fit))
    harrell <- survival::concordance(yte ~ lp, reverse = TRUE)$concordance
    uno <- survival::concordance(yte ~ lp, reverse = TRUE, timewt = "n/G2")$concordance
    expect_equal(res$concordance[i], unname(harrell), tolerance = 1e-10)
    expect_equal(res$concordance_uno[i], unname(uno), tolerance = 1e-10)
  }
  # tune = list(theta = ) sets the penalty
  set.seed(3)
  ev5 <- evaluate_selection(s$x, s$y, selectors = "hsic", n_features = 2, folds = 3,
                            tune = list(theta = 5))
  expect_equal(ev5$settings$theta, 5)
})

test_that("summary(), print() and plot() show the concordance, higher is better", {
  skip_if_not_installed("survival")
  s <- surv_data()
  set.seed(4)
  ev <- evaluate_selection(s$x, s$y, selectors = c("hsic", "fohsic"), n_features = c(2, 3),
                           folds = 3)
  sm <- summary(ev)
  expect_true(all(c("concordance", "concordance_sd", "concordance_uno",
                    "concordance_uno_sd") %in% names(sm)))
  one <- ev$results[ev$results$selector == "hsic" & ev$results$n_features == 2, ]
  expect_equal(sm$concordance[sm$selector == "hsic" & sm$n_features == 2], mean(one$concordance))
  out <- paste(utils::capture.output(print(ev)), collapse = "\n")
  expect_match(out, "Harrell's C", fixed = TRUE)
  expect_match(out, "Uno's C", fixed = TRUE)
  expect_match(out, "higher is better", fixed = TRUE)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_identical(plot(ev), sm)
  expect_identical(plot(ev, type = "concordance_uno"), sm)
  expect_error(plot(ev, type = "error"), "scored by concordance, not by an error")
  # the plotted quantity: Harrell's C, Uno's where half or more are censored
  expect_identical(evaluation_plot_type(ev$settings, "error", FALSE), "concordance")
  heavy <- utils::modifyList(ev$settings, list(censored = 0.6))
  expect_identical(evaluation_plot_type(heavy, "error", FALSE), "concordance_uno")
  expect_match(concordance_label("concordance_uno"), "Uno's C; higher is better", fixed = TRUE)
  # a classification has no concordance
  expect_error(evaluation_plot_type(list(outcome = "classification"), "concordance", TRUE),
               "is for a censored survival outcome")
})

test_that("a censored outcome refuses the SVM, too few events and folds without events", {
  skip_if_not_installed("survival")
  s <- surv_data()
  expect_error(evaluate_selection(s$x, s$y, selectors = "hsic", n_features = 2, folds = 3,
                                  classifier = "svm"),
               "classifier = \"svm\" does not apply to a censored survival outcome")
  expect_error(evaluate_selection(golub$x[, 1:20], golub$y, selectors = "t", n_features = 2,
                                  folds = 3, classifier = "ridge_cox"),
               "classifier = \"ridge_cox\" needs a censored survival outcome")
  expect_error(evaluate_selection(s$x, s$y, selectors = "hsic", n_features = 2, folds = 3,
                                  inner_folds = 3),
               "'inner_folds' is not used with classifier = \"ridge_cox\"")
  expect_error(evaluate_selection(s$x, s$y, selectors = "hsic", n_features = 2, folds = 3,
                                  tune = list(C = 1, sigma = 1)),
               "'tune' must be list(theta = <one positive number>)", fixed = TRUE)
  few <- survival::Surv(surv_time(s$y), c(rep(1, 7), rep(0, 53)))
  expect_error(evaluate_selection(s$x, few, selectors = "hsic", n_features = 2, folds = 5),
               "with 5 folds needs at least 10 events .* 'y' has 7 .* use folds <= 3")
  given <- rep(1:3, length.out = 60)
  y1 <- survival::Surv(surv_time(s$y), as.numeric(given != 3))
  expect_error(evaluate_selection(s$x, y1, selectors = "hsic", n_features = 2, folds = given),
               "'folds' gives 1 fold\\(s\\) without an event \\(3\\)")
  # a score method without survival refuses by name
  expect_error(evaluate_selection(s$x, s$y, selectors = "t", n_features = 2, folds = 3),
               "method = \"t\" compares two classes")
})

test_that("with a block the folds keep blocks together and spread the events", {
  skip_if_not_installed("survival")
  s <- surv_data()
  blk <- factor(rep(seq_len(30), each = 2))
  rank_scores <- function(x, y, covariates = NULL, block = NULL) {
    order(-abs(drop(crossprod(x, surv_scores(y)))))
  }
  set.seed(5)
  ev <- evaluate_selection(s$x, s$y, selectors = list(score = rank_scores), n_features = 2,
                           folds = 3, block = blk)
  f <- ev$folds[, 1]
  expect_true(all(tapply(f, blk, function(v) length(unique(v))) == 1L))
  events <- tapply(surv_event(s$y), f, sum)
  expect_lte(diff(range(events)), 4)
  expect_false(anyNA(ev$results$concordance))
})

test_that("the default selectors of a Surv outcome run and find a planted gene", {
  skip_if_not_installed("survival")
  skip_statistical_under_checkers("cross-validated concordance")
  s <- surv_data(100, p = 30, effect = 1.5, seed = 6)
  set.seed(6)
  ev <- evaluate_selection(s$x, s$y, n_features = 2, folds = 4)
  expect_identical(ev$settings$selectors, surv_default_selectors())
  sm <- summary(ev)
  # two planted genes of strong effect: well above chance (0.5)
  expect_true(all(sm$concordance > 0.6))
})
