# Interrupts and time limits inside long steps. The C loops check between
# blocks of some 10-50 ms of work, on the main thread, so a time limit (raised
# at those checks, as Ctrl-C is) stops a call soon after it expires. Each
# call below would run for several seconds; the limit of 0.2 s is set just
# before it, so the tests are quick when the checks work. A call that
# returns before the limit is raised reads "ran to its end": C code without
# checks returns to R before anything can stop it.

test_that("a time limit stops the heavy C steps from inside", {
  skip_on_cran()
  skip_if(under_valgrind(), "under valgrind: minutes, not seconds")
  set.seed(29)
  x <- matrix(rnorm(10000 * 5), 10000)
  G <- matrix(rnorm(10000 * 700), 10000)
  F <- matrix(rnorm(10000 * 700), 10000)
  n <- 4000
  b <- 1000
  phix <- matrix(runif(n * b), n)
  phiy <- matrix(runif(n * b), n)
  fold <- rep_len(1:5, n)
  small <- toy_binary()
  before <- hsic(small$x, small$y)
  calls <- list(
    # the incomplete Cholesky factor, some 10^10 operations (its columns)
    ichol = function() {
      .Call(bahsic:::C_ichol, x, list(kernel = bahsic:::bk_codes$kernel[["gaussian"]],
                                      p1 = 0.5, p2 = 0, tol = 1e-12, max_rank = 1500L))
    },
    # the low-rank HSIC sums, m r s = 5 10^9
    lowrank = function() .Call(bahsic:::C_lowrank_hsic, G, F),
    # LSMI's cross-validation: b x b products and Cholesky factors
    lsmi_cv = function() {
      .Call(bahsic:::C_lsmi_cv, phix, phiy, fold, 2^(-2:1), 10^(-3:1))
    },
    lsmi_fit = function() .Call(bahsic:::C_lsmi_fit, phix, phiy, 0.1)
  )
  for (f in names(calls)) {
    expect_time_limit(under_time_limit(calls[[f]]), f)
    # the session still works and gives the same answers as before
    expect_identical(hsic(small$x, small$y), before)
  }
})

# The second iteration of these selections scores hundreds of candidates on
# 2000 samples, a second or more (the series screen off, so that every
# candidate is scored; bahsic()'s screen of genes and pairs off, as it runs
# before the first iteration). interrupt_loop() sets the limit at the first
# iteration's message; each message comes before its iteration's interrupt
# check, so a run stopped from inside the second iteration has printed one
# message, and one stopped only after it (checks between iterations alone)
# two.
test_that("a time limit stops a BAHSIC or FOHSIC iteration from inside", {
  skip_on_cran()
  skip_if(under_valgrind(), "under valgrind: minutes, not seconds")
  old <- options(bahsic.series = FALSE)
  on.exit(options(old), add = TRUE)
  set.seed(30)
  x <- matrix(rnorm(2000 * 600), 2000)
  y <- factor(rep_len(c("a", "b"), 2000))
  runs <- list(
    bahsic = interrupt_loop(bahsic(x, y, drop = 0.5, screen = "none", verbose = TRUE, threads = 1),
                            limit = 0.2),
    fohsic = interrupt_loop(fohsic(x, y, add = 0.5, verbose = TRUE, threads = 1), limit = 0.2)
  )
  for (f in names(runs)) {
    expect_time_limit(runs[[f]]$error, f)
    expect_identical(runs[[f]]$iterations, 1L, label = paste(f, "iterations finished"))
  }
})

# mrmr()'s first iteration is three passes over the pairs of samples of
# every feature (relevances, each feature's HSIC with itself, the first
# feature's redundancies), many seconds here: a run stopped from inside it
# has printed no iteration message.
test_that("a time limit stops mrmr() inside its passes over the features", {
  skip_on_cran()
  skip_if(under_valgrind(), "under valgrind: minutes, not seconds")
  set.seed(32)
  x <- matrix(rnorm(1000 * 3000), 1000)
  y <- factor(rep_len(c("a", "b"), 1000))
  messages <- 0L
  out <- withCallingHandlers(
    under_time_limit(function() mrmr(x, y, n_features = 2, verbose = TRUE, threads = 1),
                     limit = 0.5),
    message = function(msg) {
      messages <<- messages + 1L
      invokeRestart("muffleMessage")
    }
  )
  expect_time_limit(out, "mrmr")
  expect_identical(messages, 0L)
})

test_that("lsmi() stops on a time limit", {
  skip_on_cran()
  skip_if(under_valgrind(), "under valgrind: minutes, not seconds")
  set.seed(31)
  x <- matrix(rnorm(4000 * 5), 4000)
  y <- rnorm(4000)
  expect_time_limit(under_time_limit(function() lsmi(x, y, n_basis = 1000)), "lsmi")
})

# requireNamespace() turns every error of loading a package into FALSE, a
# time limit too, so a time limit reached while kernlab loaded read as
# "install kernlab". have_namespace() lets the time limit through.
test_that("a time limit reached while a package loads stays a time limit", {
  skip_on_cran()
  loaded <- loadedNamespaces()
  pkgs <- c("boot", "class", "KernSmooth", "nnet", "rpart", "spatial", "foreign")
  pkgs <- pkgs[!pkgs %in% loaded & vapply(pkgs, function(p) nzchar(system.file(package = p)),
                                           logical(1))]
  skip_if(length(pkgs) == 0L, "no installed package left to load")
  out <- under_time_limit(function() {
    # some 0.1 s without an interrupt check, so that the limit has expired
    # when the loading checks
    invisible(sort(stats::runif(2e6)))
    bahsic:::have_namespace(pkgs[1L])
  }, limit = 0.001)
  expect_time_limit(out, "have_namespace()")
  expect_false(bahsic:::have_namespace("bahsicNoSuchPackage"))
})

# The user-facing messages, in a fresh R where kernlab is not loaded yet: the
# limit expires while clinical_rfe() or evaluate_selection() loads it (or earlier),
# and the error says so instead of asking to install kernlab.
test_that("clinical_rfe() and evaluate_selection() under a time limit say that it was reached", {
  skip_on_cran()
  skip_if_not_installed("kernlab")
  code <- c(
    "suppressPackageStartupMessages(library(bahsic))",
    "set.seed(1); x <- matrix(rnorm(400), 40); y <- factor(rep(c('a', 'b'), 20))",
    "f <- list(clinical_rfe = function() clinical_rfe(x, y),",
    "  evaluate_selection = function() evaluate_selection(x, y, selectors = 't',",
    "                                                     n_features = 2, folds = 2))",
    "for (n in names(f)) {",
    "  invisible(sort(runif(2e6)))",
    "  setTimeLimit(elapsed = 0.001)",
    "  r <- tryCatch({f[[n]](); 'ran to its end'}, error = conditionMessage)",
    "  setTimeLimit(elapsed = Inf)",
    "  cat(n, ': ', r, '\\n', sep = '')",
    "  if ('kernlab' %in% loadedNamespaces()) unloadNamespace('kernlab')",
    "}")
  script <- tempfile(fileext = ".R")
  on.exit(unlink(script), add = TRUE)
  writeLines(code, script)
  out <- system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", shQuote(script)),
                 stdout = TRUE, stderr = TRUE,
                 env = c(paste0("R_LIBS=", paste(.libPaths(), collapse = .Platform$path.sep)),
                         "LANGUAGE=en", "LC_ALL=C"))
  expect_length(grep("^(clinical_rfe|evaluate_selection): ", out), 2L)
  expect_match(out[grepl("^clinical_rfe: ", out)], "time limit")
  expect_match(out[grepl("^evaluate_selection: ", out)], "time limit")
  expect_false(any(grepl("install", out)))
})

# hsic() and the gamma test keep their work buffer between calls
# (src/scratch_call.c); a time limit raised inside the panels' loop must give
# it back, or every later call would fall back to fresh memory
test_that("a time limit inside hsic() gives its kept work buffer back", {
  skip_on_cran()
  skip_if(under_valgrind(), "under valgrind: minutes, not seconds")
  set.seed(31)
  small <- toy_binary()
  before <- hsic(small$x, small$y)
  info <- .Call(bahsic:::C_scratch_info)
  expect_gt(info[1], 0)
  expect_identical(info[2], 0)
  m <- 30000
  x <- matrix(rnorm(m * 3), m, 3)
  y <- x[, 1] + rnorm(m)
  for (f in list(hsic = function() hsic(x, y, threads = 1L),
                 gamma = function() hsic_test(x, y, threads = 1L))) {
    expect_time_limit(under_time_limit(f), "hsic")
    expect_identical(.Call(bahsic:::C_scratch_info)[2], 0)
    expect_identical(hsic(small$x, small$y), before)
  }
})
