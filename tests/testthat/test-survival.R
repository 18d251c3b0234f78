# The censored survival outcome as the normaliser keeps it (R/survival.R).

test_that("a Surv outcome is its own kind of outcome, not a numeric matrix", {
  skip_if_not_installed("survival")
  y <- survival::Surv(c(5, 8, 2, 9, 4, 7), c(1, 0, 1, 1, 0, 1))
  x <- matrix(rnorm(12), 6, 2)
  out <- as_outcome(y, x)
  expect_s3_class(out, "Surv")
  expect_identical(outcome_kind(out), "survival")
  expect_identical(default_label_kernel(out)$type, "survival")
  expect_identical(surv_time(out), c(5, 8, 2, 9, 4, 7))
  expect_identical(surv_event(out), c(1, 0, 1, 1, 0, 1))
})

test_that("other censoring, negative times, missing values and no events are errors", {
  skip_if_not_installed("survival")
  x <- matrix(rnorm(8), 4, 2)
  expect_error(as_outcome(survival::Surv(c(1, 2, 3, 4), c(1, 1, 0, 1), type = "left"), x),
               "\"left\" censoring; only right-censored")
  expect_error(as_outcome(survival::Surv(c(1, 2, 3, 4), c(2, 3, 4, 5), type = "interval2"), x),
               "\"interval\" censoring; only right-censored")
  expect_error(as_outcome(survival::Surv(c(1, 2, 3, 4), c(2, 3, 4, 5), c(1, 1, 0, 1)), x),
               "\"counting\" censoring")
  expect_error(as_outcome(survival::Surv(c(1, -2, 3, 4), c(1, 1, 0, 1)), x),
               "negative or infinite survival time \\(first at sample 2")
  expect_error(check_outcome(survival::Surv(c(1, NA, 3, 4), c(1, 1, 0, 1))),
               "missing survival times \\(first at sample 2\\)")
  bad <- suppressWarnings(survival::Surv(c(1, 2, 3, 4), c(1, 5, 0, 1)))
  expect_error(check_outcome(bad), "missing event indicators .*event code other than 0/1")
  expect_error(check_outcome(survival::Surv(c(1, 2, 3, 4), c(0, 0, 0, 0))),
               "no events: all 4 survival times are censored")
  # no sample outlives another: every log-rank score is 0
  expect_error(check_outcome(survival::Surv(rep(0, 4), rep(1, 4))),
               "carries no information on survival: .*all 4 times are 0")
  expect_error(check_outcome(survival::Surv(c(1, 2, 5, 5), c(0, 0, 1, 1))),
               "carries no information on survival: .*censored times all precede the events")
  expect_silent(check_outcome(survival::Surv(c(5, 5, 5, 5), c(0, 1, 1, 0))))
  expect_error(check_surv_events(survival::Surv(1:4, c(1, 0, 0, 0)), 2L, "The test"),
               "The test needs at least 2 events; 'y' has 1 \\(of 4 samples\\)")
})

test_that("na_action = \"omit\" drops samples with a missing time and keeps a Surv outcome", {
  skip_if_not_installed("survival")
  y <- survival::Surv(c(5, NA, 2, 9, 4, 7), c(1, 0, 1, 1, 0, 1))
  x <- matrix(rnorm(12), 6, 2)
  expect_warning(d <- normalise_inputs(x, y, na_action = "omit"), "dropped 1 of 6")
  expect_s3_class(d$y, "Surv")
  expect_identical(surv_time(d$y), c(5, 2, 9, 4, 7))
})

test_that("the log-rank scores are the martingale residuals of the null Cox model", {
  skip_if_not_installed("survival")
  set.seed(3)
  time <- round(rexp(40), 1)  # tied times
  event <- rbinom(40, 1, 0.7)
  y <- survival::Surv(time, event)
  fit <- survival::coxph(y ~ 1, ties = "breslow")
  expect_equal(surv_scores(y), unname(stats::residuals(fit, type = "martingale")),
               tolerance = 1e-12)
  g <- rep(1:2, 20)
  # within strata: the residuals of each stratum's own model
  within <- numeric(40)
  for (k in 1:2) {
    i <- g == k
    within[i] <- stats::residuals(survival::coxph(y[i] ~ 1, ties = "breslow"), type = "martingale")
  }
  expect_equal(surv_scores(y, g), within, tolerance = 1e-12)
  # the score at beta = 0 with Breslow's ties is sum_i x_i a_i
  x <- rnorm(40)
  fit_x <- survival::coxph(y ~ x, ties = "breslow", init = 0, iter.max = 0)
  u <- sum(x * surv_scores(y))
  info <- 1 / fit_x$var[1, 1]
  expect_equal(u^2 / info, unname(fit_x$score), tolerance = 1e-10)
})

test_that("simulate_survival() censors about the fraction asked for", {
  skip_if_not_installed("survival")
  set.seed(1)
  sim <- simulate_survival(400, p = 30, n_linear = 2, n_u = 1, censoring = 0.6)
  expect_s3_class(sim$y, "Surv")
  expect_equal(dim(sim$x), c(400L, 30L))
  expect_lt(abs(mean(surv_event(sim$y) == 0) - 0.6), 0.08)
  expect_length(sim$truth$linear, 2L)
  expect_length(sim$truth$u, 1L)
  expect_length(sim$truth$z, 0L)
  dep <- simulate_survival(50, p = 30, censoring_effect = 1, n_z = 5)
  expect_length(dep$truth$z, 5L)
  expect_error(simulate_survival(50, censoring = 1), "'censoring' must be a single number in \\[0, 0.95\\]")
  expect_error(simulate_survival(50, p = 1, n_linear = 1, n_u = 1), "'p'")
})
