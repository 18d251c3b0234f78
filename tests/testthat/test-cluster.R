# Every resampling loop on a two-worker socket cluster on this machine
# (R/parallel.R): the folds of evaluate_selection(), the fits of
# stability_selection(), the permutations of hsic_test(), feature_scores()
# (n_perm, and adjust = "maxT"), selection_test() and the bootstraps of
# randsel(), through future (the session's plan, and a plan passed as
# `parallel`) and BiocParallel::SnowParam(2). Each run is identical() to the
# serial one from the same set.seed(), and the caller's random numbers go on
# where the serial run leaves them.

# A small problem: two informative features of 10, two classes and a number.
cluster_data <- function(m = 30, seed = 11) {
  set.seed(seed)
  x <- matrix(rnorm(m * 10), m, 10, dimnames = list(NULL, paste0("g", 1:10)))
  y <- factor(ifelse(x[, 1] - x[, 2] + rnorm(m, sd = 0.5) > 0, "a", "b"))
  list(x = x, y = y, y_num = x[, 3] + rnorm(m, sd = 1))
}

# A run from set.seed(seed): its value and the next number of the caller's stream.
from_seed <- function(seed, code) {
  set.seed(seed)
  value <- code
  list(value = value, after = stats::runif(1))
}

# Every loop, on one back end. stability_selection() and randsel() record their threads,
# which are 1 by default with a back end: the serial run is given 1 too.
cluster_runs <- function(d, fit, parallel) {
  list(
    evaluate = from_seed(1, evaluate_selection(d$x, d$y, selectors = c("t", "randsel"),
                                               n_features = 2, folds = 3,
                                               classifier = "none", parallel = parallel)),
    stability = from_seed(2, stability_selection(d$x, d$y, selector = "randsel",
                                                 n_features = 3, n_subsamples = 4,
                                                 n_boot = 60, threads = 1L,
                                                 parallel = parallel)),
    hsic_test = from_seed(3, hsic_test(d$x[, 3:4], d$y_num, method = "permutation",
                                       n_perm = 300, parallel = parallel)),
    # three blocks of features, each with the same 50 permutations
    scores_perm = from_seed(4, feature_scores(d$x, d$y, method = "snr", n_perm = 50,
                                              block_size = 4, parallel = parallel)),
    scores_kernel = from_seed(5, feature_scores(d$x, d$y_num, method = "hsic", n_perm = 40,
                                                block_size = 5, parallel = parallel)),
    scores_maxt = from_seed(6, feature_scores(d$x, d$y, method = "t", adjust = "maxT",
                                              n_perm = 200, parallel = parallel)),
    selection_test = from_seed(7, selection_test(fit, n = 2, n_perm = 6, x = d$x, y = d$y,
                                                 parallel = parallel)),
    randsel = from_seed(8, randsel(d$x, d$y, n_boot = 300, threads = 1L, parallel = parallel))
  )
}

expect_runs_identical <- function(got, serial, label) {
  for (what in names(serial)) {
    expect_identical(got[[what]]$value, serial[[what]]$value,
                     label = paste(label, what, "result"))
    expect_identical(got[[what]]$after, serial[[what]]$after,
                     label = paste(label, what, "random numbers after"))
  }
}

test_that("'parallel' says what it accepts", {
  d <- cluster_data()
  run <- function(parallel) {
    hsic_test(d$x[, 1:2], d$y_num, method = "permutation", n_perm = 10, parallel = parallel)
  }
  accepted <- "'parallel' must be NULL, \"future\" or a BiocParallel BiocParallelParam"
  expect_error(run(2), accepted, fixed = TRUE)
  expect_error(run(2), "future::tweak(future::multisession, workers = n)", fixed = TRUE)
  expect_error(run("multisession"), "pass the function: future::multisession", fixed = TRUE)
  expect_error(run("SnowParam"), "BiocParallel::SnowParam(2)", fixed = TRUE)
  expect_error(run(list()), "it is an object of class list.", fixed = TRUE)
  expect_error(run(NA), "it is an object of class logical.", fixed = TRUE)
})

test_that("a future plan as 'parallel' holds for the call only, even when it fails", {
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  d <- cluster_data()
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  # within the function that reads 'parallel', the plan given is the session's
  # plan; when it returns, the caller's plan is back
  during <- function(parallel) {
    run <- bahsic:::check_parallel(parallel)
    list(plan = class(future::plan()), value = run(1:3, function(i) i^2))
  }
  got <- during(future::tweak(future::sequential, label = "probe"))
  expect_identical(got$value, list(1, 4, 9))
  expect_true("tweaked" %in% got$plan)
  expect_false(inherits(future::plan(), "tweaked"))
  expect_true(inherits(future::plan(), "sequential"))
  # an argument refused after 'parallel' was read
  expect_error(hsic_test(d$x[, 1:2], d$y_num, method = "permutation", n_perm = -1,
                         parallel = future::tweak(future::sequential, label = "probe")),
               "'n_perm'")
  expect_false(inherits(future::plan(), "tweaked"))
})

test_that("every resampling loop on a two-worker socket cluster gives the serial result", {
  skip_on_cran()
  skip_statistical_under_checkers("two R workers running the package")
  skip_if_not_installed("BiocParallel")
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  # the workers are new R processes: they find bahsic where this session did
  # (as in test-parallel.R)
  lib <- dirname(find.package("bahsic"))
  old_libs <- Sys.getenv("R_LIBS")
  Sys.setenv(R_LIBS = paste(unique(c(lib, .libPaths())), collapse = .Platform$path.sep))
  on.exit(Sys.setenv(R_LIBS = old_libs), add = TRUE)

  d <- cluster_data()
  fit <- bahsic(d$x, d$y, drop = 0.3)
  serial <- cluster_runs(d, fit, NULL)
  # the runs are not trivial: the draws change them
  expect_false(identical(serial$hsic_test$value$p.value,
                         from_seed(30, hsic_test(d$x[, 3:4], d$y_num, method = "permutation",
                                                 n_perm = 300))$value$p.value))

  cl <- parallel::makePSOCKcluster(2)
  on.exit(parallel::stopCluster(cl), add = TRUE)
  old_plan <- future::plan(future::cluster, workers = cl)
  on.exit(future::plan(old_plan), add = TRUE)
  # the workers run this package
  expect_identical(unlist(parallel::clusterEvalQ(cl, find.package("bahsic"))),
                   rep(find.package("bahsic"), 2L))
  expect_runs_identical(cluster_runs(d, fit, "future"), serial, "plan(cluster)")

  # the plan as the argument, from a sequential session plan, which comes back
  future::plan(future::sequential)
  expect_runs_identical(cluster_runs(d, fit, future::tweak(future::cluster, workers = cl)),
                        serial, "tweak(cluster)")
  expect_true(inherits(future::plan(), "sequential"))
  # the caller's cluster is still up
  expect_identical(parallel::clusterEvalQ(cl, 1L), list(1L, 1L))

  snow <- BiocParallel::SnowParam(workers = 2, type = "SOCK")
  BiocParallel::bpstart(snow)
  on.exit(BiocParallel::bpstop(snow), add = TRUE)
  expect_runs_identical(cluster_runs(d, fit, snow), serial, "SnowParam(2)")
})

test_that("maxT's batches through a back end add up to the serial p-values", {
  d <- cluster_data(m = 12)
  in_order <- function(i, f, ...) lapply(i, f) # a back end that keeps the order
  reversed <- function(i, f, ...) rev(lapply(rev(i), f)) # one that runs the units backwards
  for (method in c("t", "mt", "snr", "pc")) {
    y <- if (method == "pc") d$y_num else d$y
    for (n_perm in c(250L, 5000L)) { # drawn; every labelling once (choose(12, 6) = 924)
      serial <- from_seed(9, bahsic:::permutation_pvalues(d$x, y, method, n_perm = n_perm))
      for (run in list(in_order, reversed)) {
        got <- from_seed(9, bahsic:::permutation_pvalues(d$x, y, method, n_perm = n_perm,
                                                         run = run))
        expect_identical(got, serial)
      }
    }
  }
})
