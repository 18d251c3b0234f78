# Size guards and interrupts: a request too big for the memory budget stops
# before it allocates, and a long selection can be interrupted, leaving the
# session usable.

# Every entry point that builds an m x m workspace, called on m samples.
guarded_calls <- function(m) {
  set.seed(1)
  x <- matrix(rnorm(2 * m), m, 2)
  y <- factor(rep_len(c("a", "b"), m))
  z <- rnorm(m)
  list(
    hsic = function() hsic(x, y),
    hsic_regression = function() hsic(x, z),
    hsic_test = function() hsic_test(x, y),
    kernel_matrix = function() kernel_matrix(kernel_gaussian(), x),
    label_kernel_matrix = function() label_kernel_matrix(label_kernel_binary(), y),
    feature_scores = function() feature_scores(x, y, method = "hsic"),
    feature_scores_mmd = function() feature_scores(x, y, method = "mmd"),
    bahsic = function() bahsic(x, y),
    fohsic = function() fohsic(x, z, n_features = 1)
  )
}

test_that("a workspace over the memory budget is refused before it is allocated", {
  # 10^5 samples: one m x m matrix is 75 GiB, far over the default budget of
  # 8 GiB (and over this machine's memory, so an attempt to allocate would
  # fail with R's own "cannot allocate" error, not this message). The data
  # themselves are 1.6 MB.
  old <- options(bahsic.max_memory = NULL)
  on.exit(options(old), add = TRUE)
  calls <- guarded_calls(1e5)
  # hsic() and the gamma test hold no m x m matrix there (their kernels a
  # panel of columns at a time): see the test below
  for (f in setdiff(names(calls), c("hsic", "hsic_regression", "hsic_test"))) {
    # nothing of m x m size was allocated: R's peak stayed far below one
    # matrix (gc()'s "max used" column, in MB; not under valgrind, where a
    # full collection of R's heap takes seconds and checks R's code, not ours)
    if (!under_valgrind()) gc(reset = TRUE)
    expect_error(calls[[f]](), "above the memory budget of 8.0 GiB \\(option bahsic.max_memory\\)",
                 label = f)
    if (!under_valgrind()) expect_lt(sum(gc()[, 6L]), 2000, label = f)
  }
})

test_that("hsic() and the gamma test make their kernels a panel at a time, within a budget below one matrix", {
  # K (and the numeric outcome's L) made a panel of columns at a time at
  # every m, so a budget of 1 MB, below one 400 x 400 matrix (1.28 MB) or
  # one 1100 x 1100 (9.7 MB), does not stop them (at m = 1100 the width on
  # 1000 samples, at 400 on all); the permutation test keeps K and is
  # refused
  old <- options(bahsic.max_memory = 1e6)
  on.exit(options(old), add = TRUE)
  for (m in c(400, 1100)) {
    calls <- guarded_calls(m)
    for (f in c("hsic", "hsic_regression", "hsic_test")) {
      expect_error(calls[[f]](), NA, info = paste(f, m))
    }
    set.seed(3)
    x <- matrix(rnorm(2 * m), m, 2)
    expect_error(hsic_test(x, x[, 1], method = "permutation", n_perm = 2),
                 "above the memory budget")
  }
})

test_that("the budget is the option's, and the message names the size", {
  old <- options(bahsic.max_memory = 1e6) # bytes: 1 MB
  on.exit(options(old), add = TRUE)
  calls <- guarded_calls(400) # one 400 x 400 matrix is 1.28 MB
  # (hsic() and the gamma test hold none: the test above)
  for (f in setdiff(names(calls), c("hsic", "hsic_regression", "hsic_test"))) {
    expect_error(calls[[f]](), "400 samples need .* GiB for [0-9.]+ m x m kernel matrices",
                 label = f)
  }
  # 5 matrices of 100 x 100 are 0.4 MB: within the same budget
  calls <- guarded_calls(100)
  for (f in names(calls)) {
    expect_no_error(calls[[f]]())
  }
})

test_that("over the budget, the exact paths name the approximations, and blocks are checked too", {
  old <- options(bahsic.max_memory = 1e6) # bytes: 1 MB
  on.exit(options(old), add = TRUE)
  set.seed(3)
  x <- matrix(rnorm(400 * 3), 400, 3)
  y <- factor(rep_len(c("a", "b"), 400))
  for (f in list(function() bahsic(x, y), function() fohsic(x, y))) {
    expect_error(f(), "Use an approximation that needs no m x m matrix: approx = \"ichol\"")
  }
  # the approximations stay within the same budget
  expect_no_error(suppressWarnings(hsic(x, y, approx = approx_ichol(max_rank = 20))))
  expect_no_error(bahsic(x, y, approx = approx_block(size = 50)))
  # a block of all 400 samples holds the same pairs as the exact path
  expect_error(bahsic(x, y, approx = approx_block(size = 400)),
               "approx_block\\(size = 400\\) needs .* GiB for the pairs of samples within blocks")
})

# BAHSIC one feature at a time on 400 features: 400 iterations of up to 400
# candidate passes over 45k pairs, several seconds of C. The time limit is set
# by the handler of the first progress message, so it starts inside the C loop
# (whatever the setup cost, e.g. under valgrind), and R's interrupt check after
# each iteration (R_CheckUserInterrupt() in src/select_call.c) raises it: the
# same path as Ctrl-C.
test_that("a long BAHSIC run can be interrupted and the session stays usable", {
  set.seed(7)
  m <- 300
  d <- 400
  x <- matrix(rnorm(m * d), m, d)
  y <- factor(rep_len(c("a", "b"), m))
  small <- toy_binary()
  before <- bahsic(small$x, small$y)
  on.exit(setTimeLimit(elapsed = Inf), add = TRUE)
  for (threads in 1:2) {
    run <- interrupt_loop(bahsic(x, y, drop = 0, verbose = TRUE, threads = threads))
    expect_s3_class(run$error, "error")
    expect_match(conditionMessage(run$error), "time limit")
    # it stopped inside the loop: after the first iteration, before the last
    expect_gte(run$iterations, 1L)
    expect_lt(run$iterations, d)
    # the session still works and gives the same answers as before
    expect_identical(bahsic(small$x, small$y), before)
  }
})

# ---- the memory budget of the entry points without m x m kernel matrices ----
# LSMI and l1-LSMI (the median heuristic's pairwise distances and the m x b
# design matrices), l1-HSIC, hsic_weights() and qmi() (m x m weights and
# kernels), approx = "ichol" (its rank cap) and the selectors' low-rank loops
# (m x r buffers per thread): each estimates its peak before allocating.

budget_calls <- function(m) {
  set.seed(2)
  x <- matrix(rnorm(2 * m), m, 2)
  y <- factor(rep_len(c("a", "b"), m))
  z <- rnorm(m)
  list(
    lsmi = function() lsmi(x, y),
    # classes and given widths need no median; a numeric outcome's basis does
    lsmi_numeric = function() lsmi(x, z, sigma = 1, lambda = 0.1),
    l1_lsmi = function() l1_lsmi(x, y, n_features = 1, restarts = 1),
    l1_hsic = function() l1_hsic(x, y, n_features = 1, restarts = 1),
    hsic_weights = function() hsic_weights(x, y, lambda = 0.1),
    qmi = function() qmi(x, z),
    qmi_classes = function() qmi(x, y)
  )
}

test_that("LSMI, l1-HSIC, feature weights and QMI are refused over the budget before allocating", {
  # 10^5 samples: the pairwise distances alone are 37 GiB, the m x m
  # matrices 75 GiB each; the data are 1.6 MB
  old <- options(bahsic.max_memory = NULL)
  on.exit(options(old), add = TRUE)
  calls <- budget_calls(1e5)
  for (f in names(calls)) {
    if (!under_valgrind()) gc(reset = TRUE) # (as above)
    expect_error(calls[[f]](), "above the memory budget of 8.0 GiB \\(option bahsic.max_memory\\)",
                 label = f)
    if (!under_valgrind()) expect_lt(sum(gc()[, 6L]), 2000, label = f)
  }
  # what to do: lsmi()'s default grid of widths is the part to give
  expect_error(calls$lsmi(), "Give the widths with 'sigma'")
  expect_error(calls$lsmi_numeric(), "the median heuristic's m \\(m - 1\\) / 2 pairwise distances")
})

test_that("the LSMI budget counts the design matrices, and small problems pass", {
  set.seed(5)
  x <- matrix(rnorm(600 * 2), 600, 2)
  y <- factor(rep_len(c("a", "b"), 600))
  # classes, widths given: no median, 4 m x b design matrices and the folds'
  # b x b Gram matrices; 200 basis functions need about 4 MB
  old <- options(bahsic.max_memory = 2e6)
  on.exit(options(old), add = TRUE)
  expect_error(lsmi(x, y, sigma = 1, lambda = 0.1),
               "lsmi\\(\\) needs .* GiB for 600 samples \\(no median heuristic; 200 basis")
  expect_no_error(lsmi(x, y, sigma = 1, lambda = 0.1, n_basis = 20))
  # the default grid adds the medians of all 179,700 pairs
  expect_error(lsmi(x, y, n_basis = 20), "Give the widths with 'sigma'")
  options(bahsic.max_memory = 1e7)
  expect_no_error(lsmi(x, y, n_basis = 20))
  expect_no_error(l1_lsmi(x, y, n_features = 1, restarts = 1, n_basis = 20))
})

test_that("approx = \"ichol\" and the selectors' low-rank loops stay within the budget", {
  set.seed(6)
  m <- 400
  x <- matrix(rnorm(m * 2), m, 2)
  y <- factor(rep_len(c("a", "b"), m))
  # the default rank cap is lowered to what the budget allows; below one
  # column it is refused
  old <- options(bahsic.max_memory = 16 * m * 8)
  on.exit(options(old), add = TRUE)
  fit <- suppressWarnings(hsic(x, y, approx = "ichol"))
  expect_lte(fit$rank[["x"]], 8L)
  options(bahsic.max_memory = 8 * m)
  expect_error(hsic(x, y, approx = "ichol"), "option bahsic.max_memory")
  # bahsic(): the factor of the whole set (16 m r bytes at most) fits, the
  # loop's buffers (a copy of the data, two m x r matrices, and per thread
  # two more and the workspace of bk_lowrank_hsic()) do not
  r <- 20
  options(bahsic.max_memory = 1.5 * 16 * m * r)
  expect_error(bahsic(x, y, approx = approx_ichol(max_rank = r), threads = 1),
               "approx = \"ichol\" needs .* GiB for 400 samples with 20 factor columns on 1 thread, above the memory budget .*option bahsic.max_memory")
  options(bahsic.max_memory = 2e5)
  expect_error(bahsic(x, y, approx = approx_rff(50), threads = 2),
               "approx = \"rff\" needs .* on 2 threads.*smaller 'n_features'")
  options(bahsic.max_memory = 1e7)
  expect_no_error(suppressWarnings(bahsic(x, y, approx = approx_ichol(max_rank = r))))
  expect_no_error(bahsic(x, y, approx = approx_rff(50), threads = 2))
})

test_that("randsel() counts every thread's workspace and clinical_rfe() the SVM's copies", {
  set.seed(5)
  m <- 200
  x <- matrix(rnorm(m * 6), m, 6)
  y <- factor(rep_len(c("a", "b"), m))
  old <- options(bahsic.max_memory = 2e6)
  on.exit(options(old), add = TRUE)
  # subsamples of every sample on two threads: (q + 3) m^2 doubles per thread
  expect_error(randsel(x, y, subsample = 1, n_boot = 4, threads = 2),
               "randsel\\(\\) needs .* GiB for 200 samples \\(6 features, subsamples of 200, 2 threads\\).*option bahsic.max_memory")
  expect_no_error(randsel(x, y, subsample = 0.1, n_boot = 4, threads = 1))
  skip_if_not_installed("kernlab")
  options(bahsic.max_memory = 7 * 8 * m^2)
  expect_error(clinical_rfe(as.data.frame(x), y), "7.5 m x m kernel matrices.*option bahsic.max_memory")
})

# The whole-matrix paths: the Gram matrix (its cross products, the median
# heuristic's selection, the kernel function, the mirror), the HSIC sums and
# the gamma moments run in blocks with R_CheckUserInterrupt() between them
# (src/gram_call.c, src/hsic_call.c). 5000 samples x 1500 features are a few
# seconds of C, most of it in the Gram matrix; the time limit, set just
# before the call, is raised by the first check after it expires: the same
# path as Ctrl-C. Without the checks the call would run to its end and
# return (R checks the limit only between its own evaluations).
test_that("kernel_matrix(), hsic(), hsic_test() and kernel scores stop on an interrupt inside the C code", {
  skip_on_cran()
  skip_if(under_valgrind(), "under valgrind: minutes, not seconds")
  set.seed(5)
  m <- 5000
  x <- matrix(rnorm(m * 1500), m, 1500)
  y <- factor(rep_len(c("a", "b"), m))
  small <- toy_binary()
  before <- hsic(small$x, small$y)
  calls <- list(
    kernel_matrix = function(threads) kernel_matrix(kernel_gaussian(), x, threads = threads),
    hsic = function(threads) hsic(x, y, threads = threads),
    hsic_test = function(threads) hsic_test(x, y, threads = threads),
    # per-feature HSIC: chunks of features between checks (bk_feature_dot())
    feature_scores = function(threads) feature_scores(x, y, method = "hsic", threads = threads)
  )
  on.exit(setTimeLimit(elapsed = Inf), add = TRUE)
  for (f in names(calls)) {
    for (threads in 1:2) {
      err <- tryCatch({
        setTimeLimit(elapsed = 0.5, transient = FALSE)
        calls[[f]](threads)
      }, error = function(e) e)
      setTimeLimit(elapsed = Inf)
      expect_s3_class(err, "error")
      expect_match(if (inherits(err, "error")) conditionMessage(err) else "ran to its end",
                   "time limit", label = paste(f, threads))
      # the session still works and gives the same answers as before
      expect_identical(hsic(small$x, small$y), before)
    }
  }
})
