# Progress through progressr (R/progress.R): every long function signals
# updates of class "progression" that a handler turns into a bar. Counted
# here with a calling handler: at least one update, at most about 101, the
# amounts summing to the steps the bar announced, one bar per call (the
# outermost), and the same result as without progress.

# Run code with progressr on (its default is off outside an interactive
# session) and count what it signals: the bars started ("initiate"), the
# updates, the sum of their amounts and the steps of the first bar.
count_progress <- function(code) {
  old <- options(progressr.enable = TRUE)
  on.exit(options(old), add = TRUE)
  bars <- 0L
  updates <- 0L
  amount <- 0
  steps <- NA_real_
  value <- withCallingHandlers(code, progression = function(c) {
    if (identical(c$type, "initiate")) {
      bars <<- bars + 1L
      if (bars == 1L) steps <<- c$steps
    } else if (identical(c$type, "update")) {
      updates <<- updates + 1L
      amount <<- amount + c$amount
    }
  })
  list(value = value, bars = bars, updates = updates, amount = amount, steps = steps)
}

# One bar, 1 to 101 updates, complete at the end.
expect_one_complete_bar <- function(got) {
  expect_identical(got$bars, 1L)
  expect_gte(got$updates, 1L)
  expect_lte(got$updates, 101L)
  expect_equal(got$amount, got$steps)
}

# The value of a call from set.seed(seed), without progress and with it,
# and what the progress run signalled.
both_ways <- function(seed, code) {
  code <- substitute(code)
  env <- parent.frame()
  set.seed(seed)
  plain <- eval(code, env)
  set.seed(seed)
  got <- count_progress(eval(code, env))
  got$plain <- plain
  got
}

prog_data <- function(m = 40, p = 60, seed = 1) {
  set.seed(seed)
  x <- matrix(rnorm(m * p), m, p, dimnames = list(NULL, paste0("g", seq_len(p))))
  y <- factor(ifelse(x[, 1] + x[, 2] + rnorm(m, sd = 0.5) > 0, "a", "b"))
  list(x = x, y = y, y_num = x[, 1] - x[, 2] + rnorm(m, sd = 0.3))
}

test_that("the rate limit: one update per 1% of the steps, and the end", {
  old <- options(progressr.enable = TRUE)
  on.exit(options(old), add = TRUE)
  run <- function(steps, ticks, amount, interval = 0) {
    bar <- bahsic:::progress_start(steps)
    on.exit(bahsic:::progress_end(bar), add = TRUE)
    bar$interval <- interval
    for (i in seq_len(ticks)) bahsic:::progress_tick(bar, amount)
    bahsic:::progress_finish(bar)
  }
  got <- count_progress(run(1000, 1000, 1))
  expect_identical(got$updates, 100L)
  expect_equal(got$amount, 1000)
  # ticks that overshoot are clamped at the steps
  got <- count_progress(run(10, 7, 3))
  expect_equal(got$amount, 10)
  expect_lte(got$updates, 4L)
  # fewer steps than 100: one update each
  got <- count_progress(run(7, 7, 1))
  expect_identical(got$updates, 7L)
  # at most one update per interval (an hour here): only the last one
  got <- count_progress(run(1000, 1000, 1, interval = 3600))
  expect_identical(got$updates, 1L)
  expect_equal(got$amount, 1000)
  # a nested bar is none, and the outer one is released at the end
  got <- count_progress({
    outer <- bahsic:::progress_start(5)
    inner <- bahsic:::progress_start(3)
    held <- bahsic:::progress_state$held
    bahsic:::progress_end(inner)
    bahsic:::progress_end(outer)
    list(inner = inner, held = held)
  })
  expect_null(got$value$inner)
  expect_true(got$value$held)
  expect_false(bahsic:::progress_state$held)
  expect_identical(got$bars, 1L)
})

test_that("progressr off: no bar and no condition", {
  old <- options(progressr.enable = FALSE)
  on.exit(options(old), add = TRUE)
  d <- prog_data()
  n <- 0L
  withCallingHandlers(bahsic(d$x, d$y), progression = function(c) n <<- n + 1L)
  expect_identical(n, 0L)
  expect_null(bahsic:::progress_start(10))
})

test_that("select_work() counts the candidates the C loop scores", {
  # BAHSIC on 10 features, halves: 10 + 5 + 3 + 2 + 1 candidates
  expect_equal(bahsic:::select_work("bahsic", 10, 0.5, NULL), 10 + 5 + 3 + 2 + 1)
  # down to 4: 10 + 5 candidates, then one pass over the 4 that are left
  expect_equal(bahsic:::select_work("bahsic", 10, 0.5, 4L), 10 + 5 + 4)
  # FOHSIC one at a time up to 3 of 10: 10 + 9 + 8
  expect_equal(bahsic:::select_work("fohsic", 10, 0, 3L), 10 + 9 + 8)
})

test_that("bahsic() and fohsic(): a complete bar, the same selection", {
  d <- prog_data(p = 150)
  calls <- list(
    quote(bahsic(d$x, d$y)),
    quote(bahsic(d$x, d$y, drop = 0)),
    quote(bahsic(d$x, d$y, n_features = 7)),
    quote(fohsic(d$x, d$y, add = 0, n_features = 40)),
    quote(fohsic(d$x, d$y_num)),
    quote(mrmr(d$x, d$y, n_features = 30)),
    quote(bahsic(d$x, d$y, kernel = kernel_linear())),
    quote(bahsic(d$x, d$y, kernel = kernel_ridge(1), n_features = 140)),
    quote(bahsic(d$x, d$y, approx = approx_rff(50)))
  )
  for (cl in calls) {
    got <- eval(bquote(both_ways(3, .(cl))))
    expect_one_complete_bar(got)
    expect_identical(got$value, got$plain)
  }
  # one feature per iteration on 150 features: 150 iterations, at most
  # ~100 updates
  got <- count_progress(bahsic(d$x, d$y, drop = 0))
  expect_one_complete_bar(got)
})

test_that("randsel(), l1_lsmi(), l1_hsic(), clinical_rfe(), hsic_weights(): complete bars, same results", {
  # under valgrind, bahsic()/fohsic() above reach the C side of the bar; these are R
  skip_if(under_valgrind(), "under valgrind: the bars of the R loops")
  d <- prog_data(m = 30, p = 20)
  got <- both_ways(4, randsel(d$x, d$y, n_boot = 100))
  expect_one_complete_bar(got)
  expect_identical(got$value, got$plain)

  got <- both_ways(5, l1_lsmi(d$x[, 1:6], d$y_num, n_features = 2, restarts = 2, n_basis = 20,
                              folds = 3))
  expect_one_complete_bar(got)
  expect_identical(got$value, got$plain)

  got <- both_ways(5, l1_hsic(d$x[, 1:6], d$y_num, n_features = 2, restarts = 2))
  expect_one_complete_bar(got)
  expect_identical(got$value, got$plain)

  got <- both_ways(6, clinical_rfe(d$x[, 1:8], d$y))
  expect_one_complete_bar(got)
  expect_identical(got$value, got$plain)

  got <- both_ways(6, hsic_weights(d$x[, 1:5], d$y_num, lambda = 0.01, max_iter = 20))
  expect_one_complete_bar(got)
  expect_identical(got$value, got$plain)
})

test_that("hsic_test() and feature_scores() with permutations: complete bars, same results", {
  # under valgrind, bahsic()/fohsic() above reach the C side of the bar; these are R
  skip_if(under_valgrind(), "under valgrind: the bars of the R loops")
  d <- prog_data(m = 30, p = 250)
  got <- both_ways(7, hsic_test(d$x[, 1:3], d$y_num, method = "permutation", n_perm = 999))
  expect_one_complete_bar(got)
  expect_identical(got$value, got$plain)

  for (args in list(list(method = "hsic", n_perm = 200), list(method = "mmd", n_perm = 50),
                    list(method = "lin", n_perm = 200), list(method = "pam", n_perm = 50),
                    list(method = "t", adjust = "maxT", n_perm = 500))) {
    got <- both_ways(8, do.call(feature_scores, c(list(d$x, d$y), args)))
    expect_one_complete_bar(got)
    expect_identical(got$value, got$plain)
  }
  # without permutations there is nothing long: no bar
  got <- count_progress(feature_scores(d$x, d$y, method = "t"))
  expect_identical(got$bars, 0L)
})

test_that("nested long functions: only the outermost call reports", {
  # under valgrind, bahsic()/fohsic() above reach the C side of the bar; these are R
  skip_if(under_valgrind(), "under valgrind: the bars of the R loops")
  d <- prog_data(m = 30, p = 30)
  got <- both_ways(9, evaluate_selection(d$x, d$y, selectors = c("bahsic", "t"),
                                         n_features = 2, folds = 3, classifier = "none"))
  expect_one_complete_bar(got)
  expect_equal(got$steps, 3)
  expect_identical(got$value, got$plain)

  got <- both_ways(10, stability_selection(d$x, d$y, selector = "bahsic", n_features = 3,
                                           n_subsamples = 5))
  expect_one_complete_bar(got)
  expect_equal(got$steps, 10) # complementary halves: two fits per subsample
  expect_identical(got$value, got$plain)

  fit <- bahsic(d$x, d$y, drop = 0.3)
  got <- both_ways(11, selection_test(fit, n = 2, n_perm = 19))
  expect_one_complete_bar(got)
  expect_equal(got$steps, 19)
  expect_identical(got$value, got$plain)
  expect_false(bahsic:::progress_state$held)
})

test_that("an error or an interrupt releases the bar", {
  d <- prog_data()
  old <- options(progressr.enable = TRUE)
  on.exit(options(old), add = TRUE)
  expect_error(hsic_test(d$x[, 1:2], d$y_num[-1], method = "permutation"))
  expect_false(bahsic:::progress_state$held)

  # Ctrl-C, as in test-guards.R: the time limit set at the first verbose
  # message stops the C loop at its next check, with the bar on (progressr
  # is on: the loop's tick calls the bar's function)
  set.seed(7)
  x <- matrix(rnorm(300 * 400), 300, 400)
  y <- factor(rep_len(c("a", "b"), 300))
  on.exit(setTimeLimit(elapsed = Inf), add = TRUE)
  run <- interrupt_loop(bahsic(x, y, drop = 0, verbose = TRUE))
  expect_s3_class(run$error, "error")
  expect_match(conditionMessage(run$error), "time limit")
  expect_gte(run$iterations, 1L)
  expect_lt(run$iterations, 400L)
  expect_false(bahsic:::progress_state$held)
  # the next call has its bar
  got <- count_progress(bahsic(d$x, d$y))
  expect_one_complete_bar(got)
})

test_that("progress from parallel workers reaches this session; results unchanged", {
  skip_on_cran()
  skip_if(under_valgrind(), "under valgrind: the workers' R, not our code")
  skip_if_not_installed("BiocParallel")
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  lib <- dirname(find.package("bahsic"))
  old_libs <- Sys.getenv("R_LIBS")
  Sys.setenv(R_LIBS = paste(unique(c(lib, .libPaths())), collapse = .Platform$path.sep))
  on.exit(Sys.setenv(R_LIBS = old_libs), add = TRUE)

  d <- prog_data(m = 30, p = 20)
  runs <- function(parallel) {
    list(
      test = both_ways(4, hsic_test(d$x[, 1:3], d$y_num, method = "permutation", n_perm = 450,
                                    parallel = parallel)),
      stab = both_ways(5, stability_selection(d$x, d$y, selector = "bahsic", n_features = 3,
                                              n_subsamples = 4, threads = 1L,
                                              parallel = parallel))
    )
  }
  serial <- runs(NULL)
  check <- function(got, max_updates) {
    for (nm in names(got)) {
      expect_identical(got[[nm]]$bars, 1L)
      expect_gte(got[[nm]]$updates, 1L)
      expect_lte(got[[nm]]$updates, max_updates)
      expect_equal(got[[nm]]$amount, got[[nm]]$steps)
      expect_identical(got[[nm]]$value, serial[[nm]]$value)
      expect_identical(got[[nm]]$plain, serial[[nm]]$value)
    }
  }

  old_plan <- future::plan(future::multisession, workers = 2)
  on.exit(future::plan(old_plan), add = TRUE)
  check(runs("future"), 101L)
  future::plan(future::sequential)

  # BiocParallel relays nothing: chunks, an update after each (at most 20)
  snow <- BiocParallel::SnowParam(workers = 2, type = "SOCK")
  check(runs(snow), 20L)
})
