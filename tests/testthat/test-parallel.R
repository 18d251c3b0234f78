# Parallel back ends (R/parallel.R): randsel()'s bootstraps, hsic_test()'s
# permutations and evaluate_selection()'s folds through future and
# BiocParallel give the serial result, bit for bit.

# A small problem for randsel() and hsic_test(): two informative features of 12.
par_data <- function(m = 40, seed = 1) {
  set.seed(seed)
  x <- matrix(rnorm(m * 12), m, 12, dimnames = list(NULL, paste0("g", 1:12)))
  y <- factor(ifelse(x[, 1] + x[, 2] + rnorm(m, sd = 0.5) > 0, "a", "b"))
  list(x = x, y = y)
}

# A run from set.seed(seed), and the next number of the caller's stream.
seeded <- function(seed, code) {
  set.seed(seed)
  value <- code
  list(value = value, after = stats::runif(1))
}

expect_same_selection <- function(a, b) {
  expect_identical(a$value$features, b$value$features)
  expect_identical(a$value$contributions, b$value$contributions)
  expect_identical(a$value$path, b$value$path)
  expect_identical(a$after, b$after)
}

test_that("C_randsel_seeds draws two 32-bit halves per bootstrap from R's generator", {
  set.seed(5)
  seeds <- .Call(bahsic:::C_randsel_seeds, 7)
  set.seed(5)
  u <- stats::runif(14)
  expect_identical(seeds, matrix(floor(u * 2^32), 2L, 7L))
})

test_that("C_randsel_align and C_randsel_contrib in chunks are C_randsel_iter", {
  d <- par_data(30)
  x <- d$x
  Y <- cbind(as.double(d$y == "a"), as.double(d$y == "b"))
  cols <- c(4L, 0:3, 5:11) # one fixed feature (column 5), 11 free
  opts <- list(kernel = bahsic:::kernel_code(kernel_gaussian()), p1 = 0.1, p2 = 0,
               n_fixed = 1L, n_boot = 300L, subsample = 8L, threads = 1L, simd = TRUE,
               Y = Y)
  set.seed(9)
  ref <- .Call(bahsic:::C_randsel_iter, x, cols, opts)
  after_ref <- runif(1)
  set.seed(9)
  seeds <- .Call(bahsic:::C_randsel_seeds, 300)
  expect_identical(runif(1), after_ref)
  # the same options, bar the threads: chunks of the 300 bootstraps
  parts <- lapply(list(1:7, 8:256, 257:300), function(i) {
    .Call(bahsic:::C_randsel_align, x, cols, seeds[, i, drop = FALSE],
          utils::modifyList(opts, list(threads = 2L)))
  })
  a_half <- unlist(lapply(parts, `[[`, "a_half"))
  a_plus <- unlist(lapply(parts, `[[`, "a_plus"))
  expect_identical(a_half, ref$a_half)
  expect_identical(a_plus, ref$a_plus)
  sizes <- list(n_samples = 30L, subsample = 8L, n_free = 11L)
  contrib <- .Call(bahsic:::C_randsel_contrib, seeds, a_half, a_plus, sizes)
  expect_identical(contrib, ref$contribution)

  # oracle: Definition 3.2 in plain R from the draws of the same seeds
  set.seed(9)
  draws <- .Call(bahsic:::C_randsel_draws, 300, 30, 8, 11, 5)
  oracle <- vapply(seq_len(11), function(j) {
    with_j <- colSums(draws$feat == j) > 0
    half_j <- colSums(draws$feat[1:5, , drop = FALSE] == j) > 0
    mean(a_plus[with_j]) - mean(a_half[!half_j])
  }, numeric(1))
  expect_equal(contrib, oracle, tolerance = 1e-12)

  # degenerate: one bootstrap. Only its extra feature has both a set with it
  # and a half without it; the others' contributions are NaN
  c1 <- .Call(bahsic:::C_randsel_contrib, seeds[, 1, drop = FALSE], a_half[1], a_plus[1],
              sizes)
  expect_identical(which(!is.nan(c1)), draws$feat[6, 1])
  expect_identical(c1[draws$feat[6, 1]], a_plus[1] - a_half[1])
  expect_error(.Call(bahsic:::C_randsel_contrib, seeds[, 1:2], a_half[1], a_plus[1], sizes),
               "'seeds' must be a 2 x 1 double matrix")
  expect_error(.Call(bahsic:::C_randsel_align, x, cols, seeds + 2^32, opts),
               "'seeds' must hold whole numbers")
  expect_error(.Call(bahsic:::C_randsel_align, x, cols, seeds,
                     utils::modifyList(opts, list(n_boot = 299L))),
               "'seeds' must be a 2-row double matrix of 1..n_boot (299) columns", fixed = TRUE)
})

test_that("chunk_units() splits by size alone and ship() carries only its arguments", {
  expect_identical(bahsic:::chunk_units(5L, 2L), list(1:2, 3:4, 5L))
  expect_identical(bahsic:::chunk_units(3L, 100L), list(1:3))
  big <- matrix(0, 500, 500) # 2 MB in the caller's frame, not needed by f
  f <- bahsic:::ship(function(u, a) u + a, 1)
  expect_identical(f(2), 3)
  expect_lt(length(serialize(f, NULL)), 1e5)
  expect_identical(dim(big), c(500L, 500L))
})

test_that("randsel(): future and BiocParallel in this session give the serial result", {
  # the C routines are checked above; here the time would go into the back ends' code
  skip_if(under_valgrind(), "under valgrind: future's and BiocParallel's code, not ours")
  d <- par_data()
  run <- function(parallel, threads = 1L, ...) {
    seeded(3, randsel(d$x, d$y, n_boot = 300, threads = threads, parallel = parallel, ...))
  }
  serial <- run(NULL, threads = 2L)
  serial_fix <- run(NULL, fix_top = 0.2, fix_times = 2)
  if (requireNamespace("BiocParallel", quietly = TRUE)) {
    expect_same_selection(run(BiocParallel::SerialParam()), serial)
    expect_same_selection(run(BiocParallel::SerialParam(), fix_top = 0.2, fix_times = 2),
                          serial_fix)
  }
  if (requireNamespace("future.apply", quietly = TRUE)) {
    old <- future::plan(future::sequential)
    on.exit(future::plan(old))
    expect_same_selection(run("future", threads = 2L), serial)
  }
  expect_error(randsel(d$x, d$y, n_boot = 10, parallel = 2),
               "'parallel' must be NULL, \"future\" or a BiocParallel")
})

test_that("hsic_test(): permutations through a back end give the serial p-value", {
  skip_if(under_valgrind(), "under valgrind: future's and BiocParallel's code, not ours")
  d <- par_data()
  y <- d$x[, 1] + rnorm(40, sd = 2)
  for (estimator in c("biased", "unbiased")) {
    run <- function(parallel) {
      seeded(4, hsic_test(d$x[, 1:3], y, method = "permutation", n_perm = 250,
                          estimator = estimator, parallel = parallel))
    }
    serial <- run(NULL)
    if (requireNamespace("BiocParallel", quietly = TRUE)) {
      expect_identical(run(BiocParallel::SerialParam()), serial)
    }
    if (requireNamespace("future.apply", quietly = TRUE)) {
      old <- future::plan(future::sequential)
      expect_identical(run("future"), serial)
      future::plan(old)
    }
  }
  expect_error(hsic_test(d$x, y, method = "permutation", parallel = "snow"),
               "'parallel' must be NULL")
})

test_that("a two-worker socket cluster gives the serial results", {
  skip_on_cran()
  skip_if(under_valgrind(), "under valgrind: the workers' R, not our code")
  skip_if_not_installed("BiocParallel")
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  # the workers are new R processes: they find bahsic where this session did
  lib <- dirname(find.package("bahsic"))
  old_libs <- Sys.getenv("R_LIBS")
  Sys.setenv(R_LIBS = paste(unique(c(lib, .libPaths())), collapse = .Platform$path.sep))
  on.exit(Sys.setenv(R_LIBS = old_libs), add = TRUE)

  d <- par_data()
  y_num <- d$x[, 2] + rnorm(40, sd = 2)
  runs <- function(parallel) {
    list(
      test = seeded(4, hsic_test(d$x[, 1:3], y_num, method = "permutation", n_perm = 250,
                                 parallel = parallel)),
      sel = seeded(3, randsel(d$x, d$y, n_boot = 300, parallel = parallel)),
      ev = seeded(6, evaluate_selection(d$x, d$y, selectors = c("t", "randsel"),
                                        n_features = 2, folds = 3, classifier = "none",
                                        parallel = parallel))
    )
  }
  check <- function(got, serial) {
    expect_identical(got$test, serial$test)
    expect_same_selection(got$sel, serial$sel)
    expect_identical(got$ev$value$rankings, serial$ev$value$rankings)
    expect_identical(got$ev$value$stability, serial$ev$value$stability)
    expect_identical(got$ev$after, serial$ev$after)
  }
  serial <- runs(NULL)

  snow <- BiocParallel::SnowParam(workers = 2, type = "SOCK")
  BiocParallel::bpstart(snow)
  on.exit(BiocParallel::bpstop(snow), add = TRUE)
  check(runs(snow), serial)

  old_plan <- future::plan(future::multisession, workers = 2)
  on.exit(future::plan(old_plan), add = TRUE)
  check(runs("future"), serial)
  future::plan(future::sequential)
})
