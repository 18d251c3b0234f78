# Every registered C routine, given garbage, raises an R error: the glue
# checks the types and lengths of what it is handed before the core reads
# it, so a wrapper that passes the wrong thing gets an error, never a crash
# or a read out of bounds (the sanitizer and valgrind runs of this file
# check the second). Each kind of garbage goes into every argument at once.

garbage <- list(
  "NULL" = NULL,
  "a string" = "a",
  "a list" = list(1, 2),
  "a negative integer" = -1L,
  "NaN" = NaN,
  "1e300" = 1e300,
  "a character matrix" = matrix("a", 2, 2),
  "an empty double" = double(0)
)

# What is not garbage for a routine: its arguments' type and length (a
# double vector of any length) fit these kinds, and the routine answers.
valid_for <- list(
  C_codes = names(garbage),                    # takes no argument
  C_scratch_info = names(garbage),             # takes no argument
  C_first_nonfinite = c("NaN", "1e300", "an empty double"),
  C_gamma_upper_tail = c("NaN", "1e300", "an empty double"), # NA, a tail, none
  C_l1_project = "1e300",                      # the projection of 1e300 onto a ball of 1e300
  C_rank_desc = c("NaN", "1e300", "an empty double"),    # NULL for NaN (R sorts), a rank, none
  C_two_sided_t = c("NaN", "1e300", "an empty double"),  # NaN, a p-value, none
  C_first_unnamed = c("a string", "a character matrix"),   # a position
  C_cor_test = "1e300",                                    # r = 1e300 on 1e300 df: NaN
  C_f_dist_sums = c("NaN", "1e300"),          # no finite variance, one: the count alone
  C_mt_posterior = c("NaN", "1e300")          # one feature's t (NA, or 1e300 / 1e300 / ...)
)

test_that("every registered routine refuses garbage with an R error", {
  routines <- getDLLRegisteredRoutines(getLoadedDLLs()[["bahsic"]])$.Call
  ns <- asNamespace("bahsic")
  expect_gt(length(routines), 30L)
  for (name in names(routines)) {
    n_args <- routines[[name]]$numParameters
    routine <- get(name, envir = ns)
    for (kind in names(garbage)) {
      got <- tryCatch({
        suppressWarnings(do.call(.Call, c(list(routine), rep(list(garbage[[kind]]), n_args))))
        "a value"
      }, error = function(e) "an error")
      want <- if (kind %in% valid_for[[name]]) "a value" else "an error"
      expect_identical(got, want, label = sprintf("%s() given %s", name, kind))
    }
  }
})

# A thread count no machine has reaches the C code only from a caller that
# skipped check_threads() (R/threads.R): the glue reduces it to the
# processors the process may use, so libgomp neither aborts R (it cannot
# create 2^31 - 1 threads) nor do per-thread workspaces overflow the stack
# or the heap. The answer is the one thread's, as for any thread count.
huge_threads <- list(max = .Machine$integer.max, big = 100000L, double = 1e9)

test_that("the entry points that take threads answer for any thread count", {
  set.seed(1)
  x <- matrix(rnorm(48), 24)
  gram <- function(th) {
    .Call(C_gram, x, list(kernel = 2L, p1 = NA_real_, p2 = 0, threads = th, simd = TRUE))
  }
  dot <- function(th) {
    .Call(C_feature_dot, x, diag(24), list(kernel = 2L, p1 = 0.5, p2 = 0, threads = th,
                                           simd = TRUE))
  }
  dr <- list(W = matrix(rnorm(10), 5), b = runif(5, 0, 2 * pi))
  F <- matrix(rnorm(24), 24)
  rff <- function(th) {
    .Call(C_rff_hsic, x, F,
          list(W = dr$W, b = dr$b, chunk = 2L, threads = th, simd = TRUE))
  }
  z <- cbind(rnorm(24), sample(0:2, 24, TRUE))
  clin <- function(th) .Call(C_clinical, z, c(0L, 1L), list(threads = th))
  clin_dot <- function(th) .Call(C_clinical_dot, z, c(0L, 1L), diag(24), th)
  vgrad <- function(th) .Call(C_hsic_vgrad, x, c(1, 1), 0.5, diag(24), 0L, th)
  for (f in list(gram, dot, rff, clin, clin_dot, vgrad)) {
    one <- f(1L)
    for (th in huge_threads) expect_identical(f(th), one)
  }
})

test_that("the glue refuses a thread count below 1 or not a whole number", {
  x <- matrix(rnorm(48), 24)
  for (th in list(0L, -1L, NA_integer_, 2.5, NaN, "2")) {
    expect_error(.Call(C_hsic_vgrad, x, c(1, 1), 0.5, diag(24), 0L, th), "threads")
    expect_error(.Call(C_gram, x, list(kernel = 2L, p1 = NA_real_, p2 = 0, threads = th,
                                       simd = TRUE)), "threads")
  }
})

test_that("randsel's workspace estimate refuses subsamples larger than the samples", {
  expect_error(.Call(C_randsel_workspace, 24L, 8L, .Machine$integer.max, 1L),
               "'s' must be a whole number in 1..24")
  # the largest subsample of the largest sample: a number, beyond any memory
  big <- .Call(C_randsel_workspace, .Machine$integer.max, 8L, .Machine$integer.max, 1L)
  expect_true(is.finite(big) && big > 1e18)
  one <- .Call(C_randsel_workspace, 1000L, 50L, 250L, 1L)
  expect_identical(.Call(C_randsel_workspace, 1000L, 50L, 250L, .Machine$integer.max),
                   .Call(C_randsel_workspace, 1000L, 50L, 250L, 1000000L))
  expect_gte(.Call(C_randsel_workspace, 1000L, 50L, 250L, 1000000L), one)
})

test_that("every entry point with a parallel region answers when its C loop is handed 100000 threads", {
  # check_threads() replaced, so that the count reaches C unreduced
  ns <- asNamespace("bahsic")
  real <- ns$check_threads
  set_check <- function(f) {
    unlockBinding("check_threads", ns)
    assign("check_threads", f, envir = ns)
    lockBinding("check_threads", ns)
  }
  on.exit(set_check(real))
  set.seed(1)
  x <- matrix(rnorm(24 * 10), 24, dimnames = list(NULL, paste0("g", 1:10)))
  y <- factor(rep(c("a", "b"), 12))
  z <- data.frame(a = rnorm(24), b = factor(rep(1:3, 8)))
  seeded <- function(f) function() {
    set.seed(2)
    f()
  }
  calls <- list(
    bahsic = function() bahsic(x, y)$ranking,
    fohsic = function() fohsic(x, y)$ranking,
    bahsic_rff = seeded(function() bahsic(x, y, approx = approx_rff(n_features = 20))$ranking),
    randsel = seeded(function() randsel(x, y, n_boot = 50)$ranking),
    hsic = function() hsic(x, y)$estimate,
    hsic_test = function() hsic_test(x, y)$p.value,
    hsic_rff = seeded(function() hsic(x, y, approx = approx_rff(n_features = 20))$estimate),
    scores_hsic = seeded(function() feature_scores(x, y, method = "hsic", n_perm = 20)$p_value),
    scores_maxt = seeded(function() {
      feature_scores(x, y, method = "t", adjust = "maxT", n_perm = 20)$adj_p_value
    }),
    kernel_matrix = function() kernel_matrix(kernel_gaussian(), x),
    clinical = function() kernel_matrix(kernel_clinical(), z),
    hsic_weights = function() hsic_weights(x, y, lambda = 0, max_iter = 3)$ranking,
    qmi = function() qmi(x, y)$estimate
  )
  for (name in names(calls)) {
    set_check(function(threads) 1L)
    one <- calls[[name]]()
    set_check(function(threads) 100000L)
    expect_identical(calls[[name]](), one, label = name)
  }
})

# C_select's table of modes keeps R's rules on which kernel, width policy and
# direction each estimator takes (check_select_approx()) as a safety net: a
# wrapper that skips them gets an error naming the mode, never a silently
# changed selection (such as a max_rank above the number of samples cut down).
test_that("C_select refuses the combinations R refuses, and a max_rank above m", {
  codes <- bahsic:::bk_codes
  set.seed(3)
  m <- 12L
  x <- matrix(rnorm(m * 4), m)
  y <- rep(c(1, -1), length.out = m)
  opts <- function(mode, ...) {
    common <- list(mode = codes$mode[[mode]], kernel = codes$kernel[["gaussian"]], p1 = 0.5,
                   p2 = 0, direction = codes$direction[["backward"]],
                   policy = codes$policy[["fixed"]], grid = 2^(-1:1), grid_relative = TRUE,
                   step = 0, n_target = 0L, threads = 1L, verbose = FALSE, simd = FALSE,
                   series = 0L)
    own <- switch(mode,
      exact = list(W = tcrossprod(y) / m^2),
      rff = list(omega = matrix(rnorm(20), 5), phase = runif(5), F = cbind(y), unbiased = FALSE),
      ichol = list(tol = 0, max_rank = 3L, F = cbind(y), unbiased = FALSE)
    )
    utils::modifyList(c(common, own), list(...))
  }
  run <- function(o) .Call(bahsic:::C_select, x, o)
  # the valid calls answer
  for (mode in c("exact", "rff", "ichol")) expect_length(run(opts(mode))$rank, 4L)
  expect_error(run(opts("rff", policy = codes$policy[["optimize"]])),
               "mode 'rff' does not take the 'optimize' width")
  expect_error(run(opts("ichol", direction = codes$direction[["forward"]])),
               "mode 'ichol' does not take FOHSIC")
  expect_error(run(opts("rff", kernel = codes$kernel[["polynomial"]], p1 = 2, p2 = 1)),
               "mode 'rff' needs a Gaussian or Laplace kernel")
  expect_error(run(opts("ichol", max_rank = m + 1L)), "max_rank")
  bad_mode <- opts("exact")
  bad_mode$mode <- 9L
  expect_error(run(bad_mode), "unknown mode code 9")
})
