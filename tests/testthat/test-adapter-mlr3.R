# The mlr3 filters flt("hsic") and flt("bahsic") (R/adapter-mlr3.R) and their
# registration from .onLoad (R/zzz.R). The oracle for the scores is the
# package's own feature_scores() and bahsic() on the same matrix and outcome.

mlr3_golub_task <- function(p = 40L) {
  d <- data.frame(golub$x[, seq_len(p)], y = golub$y)
  mlr3::as_task_classif(d, target = "y", id = "golub")
}

# Features as a matrix in the task's feature order, with the task's names.
task_matrix <- function(task) {
  x <- as.matrix(task$data(cols = task$feature_names))
  storage.mode(x) <- "double"
  x
}

mlr3_scores <- function(filter, task) {
  filter$calculate(task)
  filter$scores
}

# The methods whose score is signed (level 2 minus level 1, or a correlation):
# the filter takes their absolute value. Written out here, not taken from the
# package, so that a change there fails this test.
signed <- c("pc", "lin", "t", "snr", "mt")

expect_scores_match <- function(got, s, method) {
  want <- stats::setNames(if (method %in% signed) abs(s$score) else s$score, s$feature)
  expect_setequal(names(got), s$feature)
  expect_equal(got[s$feature], want, tolerance = 1e-12)
  # mlr3 lists the features best first: the order of feature_scores()' rank
  expect_identical(names(got), s$feature[order(s$rank)])
}

test_that("flt('hsic') gives feature_scores() for every method on a two-class task", {
  skip_peer("mlr3filters")
  task <- mlr3_golub_task()
  x <- task_matrix(task)
  for (method in c("pc", "lin", "t", "snr", "mt", "lods", "pam", "mmd", "kta", "hsic")) {
    got <- mlr3_scores(mlr3filters::flt("hsic", method = method), task)
    s <- feature_scores(x, golub$y, method = method)
    expect_scores_match(got, s, method)
  }
  # the default is per-feature HSIC
  expect_identical(mlr3filters::flt("hsic")$param_set$values$method, "hsic")
  expect_equal(mlr3_scores(mlr3filters::flt("hsic"), task),
               mlr3_scores(mlr3filters::flt("hsic", method = "hsic"), task))
})

test_that("flt('hsic') passes its parameters on to feature_scores()", {
  skip_peer("mlr3filters")
  task <- mlr3_golub_task(20L)
  x <- task_matrix(task)
  f <- mlr3filters::flt("hsic", kernel = kernel_laplace(), estimator = "unbiased",
                        kernel_y = label_kernel_binary(balanced = FALSE), threads = 1L)
  s <- feature_scores(x, golub$y, method = "hsic", kernel = kernel_laplace(),
                      estimator = "unbiased", kernel_y = label_kernel_binary(balanced = FALSE))
  expect_scores_match(mlr3_scores(f, task), s, "hsic")
  s <- feature_scores(x, golub$y, method = "t", var_equal = TRUE)
  expect_scores_match(mlr3_scores(mlr3filters::flt("hsic", method = "t", var_equal = TRUE), task),
                      s, "t")
  # threads do not change the scores
  expect_identical(mlr3_scores(mlr3filters::flt("hsic", threads = 1L), task),
                   mlr3_scores(mlr3filters::flt("hsic", threads = 2L), task))
})

test_that("flt('hsic') scores several classes and a numeric outcome", {
  skip_peer("mlr3filters")
  set.seed(11)
  m <- 45L
  y3 <- factor(rep(c("a", "b", "c"), each = 15L))
  x <- matrix(rnorm(m * 8L), m, 8L, dimnames = list(NULL, paste0("g", 1:8)))
  x[, 2] <- x[, 2] + 2 * (y3 == "b")
  task3 <- mlr3::as_task_classif(data.frame(x, y = y3), target = "y")
  for (method in c("mt", "pam", "kta", "hsic")) {
    s <- feature_scores(x, y3, method = method)
    expect_scores_match(mlr3_scores(mlr3filters::flt("hsic", method = method), task3), s, method)
  }
  yr <- x[, 3]^2 + 0.5 * x[, 5] + rnorm(m, sd = 0.3)
  taskr <- mlr3::as_task_regr(data.frame(x, y = yr), target = "y")
  for (method in c("pc", "hsic")) {
    s <- feature_scores(x, yr, method = method)
    expect_scores_match(mlr3_scores(mlr3filters::flt("hsic", method = method), taskr), s, method)
  }
  # the quadratic relation is found by HSIC, not by the correlation
  expect_identical(names(mlr3_scores(mlr3filters::flt("hsic"), taskr))[1], "g3")
})

test_that("flt('hsic') takes integer features as numbers", {
  skip_peer("mlr3filters")
  set.seed(12)
  m <- 30L
  y <- factor(rep(c("lo", "hi"), each = 15L), levels = c("lo", "hi"))
  xi <- matrix(rpois(m * 5L, 4), m, 5L, dimnames = list(NULL, paste0("n", 1:5)))
  xi[, 1] <- xi[, 1] + 3L * (y == "hi")
  expect_type(xi, "integer")
  d <- data.frame(xi, z = rnorm(m), y = y)
  task <- mlr3::as_task_classif(d, target = "y")
  expect_setequal(task$feature_types$type, c("integer", "numeric"))
  x <- cbind(xi, z = d$z)
  storage.mode(x) <- "double"
  for (method in c("t", "hsic")) {
    s <- feature_scores(x[, task$feature_names], y, method = method)
    expect_scores_match(mlr3_scores(mlr3filters::flt("hsic", method = method), task), s, method)
  }
  b <- bahsic(x[, task$feature_names], y)
  got <- mlr3_scores(mlr3filters::flt("bahsic"), task)
  expect_identical(names(got), b$ranking)
})

test_that("flt('bahsic') scores p + 1 - rank of bahsic() on the same data", {
  skip_peer("mlr3filters")
  task <- mlr3_golub_task()
  x <- task_matrix(task)
  fit <- bahsic(x, golub$y)
  got <- mlr3_scores(mlr3filters::flt("bahsic"), task)
  p <- ncol(x)
  expect_length(got, p)
  expect_equal(got[fit$features$feature],
               stats::setNames(p + 1 - fit$features$rank, fit$features$feature))
  expect_identical(names(got), fit$ranking)
  expect_identical(unname(got), as.double(rev(seq_len(p))))
  # parameters are bahsic()'s arguments
  fit2 <- bahsic(x, golub$y, sigma = "fixed", drop = 0, kernel = kernel_laplace())
  got2 <- mlr3_scores(mlr3filters::flt("bahsic", sigma = "fixed", drop = 0,
                                       kernel = kernel_laplace()), task)
  expect_identical(names(got2), fit2$ranking)
  expect_false(identical(fit$ranking, fit2$ranking))
  # nfeat does not change the ranking of the features that are kept
  f <- mlr3filters::flt("bahsic")
  f$calculate(task, nfeat = 5L)
  expect_identical(names(f$scores), fit$ranking)
})

test_that("flt('bahsic') ranks the features of a regression and a multiclass task", {
  skip_peer("mlr3filters")
  set.seed(13)
  m <- 60L
  x <- matrix(rnorm(m * 10L), m, 10L, dimnames = list(NULL, paste0("v", 1:10)))
  yr <- sin(2 * x[, 4]) + x[, 7] + rnorm(m, sd = 0.2)
  taskr <- mlr3::as_task_regr(data.frame(x, y = yr), target = "y")
  fit <- bahsic(x, yr)
  got <- mlr3_scores(mlr3filters::flt("bahsic"), taskr)
  expect_identical(names(got), fit$ranking)
  expect_setequal(names(got)[1:2], c("v4", "v7"))
  y3 <- factor(sample(rep(c("a", "b", "c"), each = 20L)))
  x[, 9] <- x[, 9] + 3 * (y3 == "c")
  task3 <- mlr3::as_task_classif(data.frame(x, y = y3), target = "y")
  fit3 <- bahsic(x, y3, threads = 1L)
  got3 <- mlr3_scores(mlr3filters::flt("bahsic", threads = 2L), task3)
  expect_identical(names(got3), fit3$ranking)
  expect_identical(names(got3)[1], "v9")
})

test_that("bad parameters are errors that name them", {
  skip_peer("mlr3filters")
  flt <- mlr3filters::flt
  task <- mlr3_golub_task(10L)
  expect_error(flt("hsic", method = "welch"), "method")
  expect_error(flt("hsic", metod = "t"), "metod")
  expect_error(flt("bahsic", drop = 2), "drop")
  expect_error(flt("bahsic", sigma = "median"), "sigma")
  # what the method does not use, and what the task does not fit: the
  # errors of feature_scores() and bahsic()
  expect_error(flt("hsic", method = "t", kernel = kernel_laplace())$calculate(task),
               "'kernel' is not used with method = \"t\"")
  expect_error(flt("hsic", method = "pc", estimator = "unbiased")$calculate(task),
               "'estimator' is not used")
  expect_error(flt("bahsic", drop = 1)$calculate(task), "'drop' must be a fraction")
  expect_error(flt("bahsic", kernel = "gaussian")$calculate(task), "'kernel' must be a kernel")
  set.seed(14)
  taskr <- mlr3::as_task_regr(data.frame(golub$x[, 1:5], y = rnorm(38)), target = "y")
  expect_error(flt("hsic", method = "t")$calculate(taskr), "compares two classes")
})

test_that("factor features and missing values are refused by mlr3 itself", {
  skip_peer("mlr3filters")
  d <- data.frame(golub$x[, 1:5], f = factor(rep(c("a", "b"), 19L)), y = golub$y)
  task <- mlr3::as_task_classif(d, target = "y")
  for (id in c("hsic", "bahsic")) {
    expect_error(mlr3filters::flt(id)$calculate(task), "unsupported feature types: factor")
  }
  d <- data.frame(golub$x[, 1:5], y = golub$y)
  d[3, 2] <- NA
  task <- mlr3::as_task_classif(d, target = "y")
  for (id in c("hsic", "bahsic")) {
    expect_error(mlr3filters::flt(id)$calculate(task), "missing values")
    expect_false("missings" %in% mlr3filters::flt(id)$properties)
  }
})

test_that("the filters describe themselves as mlr3filters expects", {
  skip_peer("mlr3filters")
  tab <- mlr3filters::as.data.table(mlr3filters::mlr_filters)
  tab <- tab[tab$key %in% c("hsic", "bahsic"), ]
  expect_identical(sort(tab$key), c("bahsic", "hsic"))
  for (i in seq_len(nrow(tab))) {
    expect_identical(tab$task_types[[i]], c("classif", "regr"))
    expect_identical(tab$feature_types[[i]], c("integer", "numeric"))
    expect_identical(tab$packages[[i]], "bahsic")
  }
  f <- mlr3filters::flt("bahsic")
  expect_s3_class(f, "Filter")
  expect_identical(f$man, "bahsic::mlr_filters_bahsic")
  expect_identical(mlr3filters::flt("hsic")$man, "bahsic::mlr_filters_hsic")
  expect_true(all(c("threads") %in% f$param_set$ids(tags = "threads")))
  # a clone scores as the original
  task <- mlr3_golub_task(10L)
  expect_identical(mlr3_scores(f$clone(deep = TRUE), task), mlr3_scores(f, task))
})

# Runs `code` (lines of R) in a new R process with this session's library
# paths; returns what it wrote to stdout.
run_fresh_r <- function(code) {
  script <- tempfile(fileext = ".R")
  on.exit(unlink(script))
  writeLines(code, script)
  rscript <- file.path(R.home("bin"), "Rscript")
  out <- suppressWarnings(system2(rscript, c("--vanilla", shQuote(script)), stdout = TRUE,
                                  stderr = FALSE,
                                  env = paste0("R_LIBS=", shQuote(paste(.libPaths(),
                                                                        collapse = .Platform$path.sep)))))
  out
}

test_that("flt() finds the filters whether mlr3filters is loaded before or after bahsic", {
  skip_peer("mlr3filters")
  skip_on_cran()
  found <- 'cat("found", paste(mlr3filters::mlr_filters$has(c("hsic", "bahsic")), collapse = " "), "\\n")'
  hooks <- 'cat("hooks", length(getHook(packageEvent("mlr3filters", "onLoad"))), "\\n")'
  out <- run_fresh_r(c(
    "suppressPackageStartupMessages(library(mlr3filters))",
    "library(bahsic)",
    found,
    'cat("class", class(flt("hsic"))[1], class(flt("bahsic"))[1], "\\n")'
  ))
  expect_true("found TRUE TRUE " %in% out)
  expect_true("class FilterHSIC FilterBAHSIC " %in% out)

  out <- run_fresh_r(c(
    "library(bahsic)",
    'cat("loaded", isNamespaceLoaded("mlr3filters"), "\\n")',
    hooks,
    "suppressPackageStartupMessages(library(mlr3filters))",
    found,
    'd <- data.frame(golub$x[, 1:6], y = golub$y)',
    'f <- flt("hsic")$calculate(mlr3::as_task_classif(d, target = "y"))',
    'cat("scored", length(f$scores), "\\n")',
    # unloading bahsic removes the entries and the hook; loading it again
    # registers them once more, with one hook
    'unloadNamespace("bahsic")',
    found, hooks,
    "invisible(loadNamespace('bahsic'))",
    found, hooks,
    # mlr3filters loaded anew (a fresh dictionary) gets them from the hook
    'detach("package:mlr3filters", unload = TRUE)',
    "invisible(loadNamespace('mlr3filters'))",
    found
  ))
  expect_identical(out, c("loaded FALSE ", "hooks 1 ", "found TRUE TRUE ", "scored 6 ",
                          "found FALSE FALSE ", "hooks 0 ", "found TRUE TRUE ", "hooks 1 ",
                          "found TRUE TRUE "))
})

test_that("loading bahsic survives a broken mlr3filters dictionary", {
  skip_peer("mlr3filters")
  skip_on_cran()
  out <- run_fresh_r(c(
    "ns <- loadNamespace('mlr3filters')",
    # an mlr_filters that cannot take entries: registration must fail silently
    "unlockBinding('mlr_filters', ns)",
    "assign('mlr_filters', NULL, envir = ns)",
    "ok <- tryCatch({ invisible(loadNamespace('bahsic')); TRUE }, error = function(e) FALSE)",
    'cat("loaded", ok, "\\n")'
  ))
  expect_identical(out, "loaded TRUE ")
})

test_that("the filters read covariates and a block from the task's columns", {
  skip_if_not_installed("mlr3filters")
  skip_if_not(identical(bahsic:::score_table$t$design, "adjusts"),
              "method = \"t\" does not adjust for a design on this branch")
  set.seed(12)
  np <- 16L
  pair <- rep(seq_len(np), each = 2L)
  y <- factor(rep(c("a", "b"), np))
  x <- matrix(stats::rnorm(2L * np * 10L), 2L * np, 10L,
              dimnames = list(NULL, paste0("g", 1:10)))
  x[, 1:2] <- x[, 1:2] + 1.5 * (y == "b")
  d <- data.frame(x, batch = factor(rep(c("b1", "b2"), each = np)), pair = pair, y = y)
  task <- mlr3::as_task_classif(d, target = "y", id = "paired")
  task$set_col_roles("batch", roles = character())
  task$set_col_roles("pair", roles = "group")
  f <- mlr3filters::flt("hsic", method = "t", covariates = "batch", block = "pair")
  got <- mlr3_scores(f, task)
  s <- feature_scores(x, y, method = "t", covariates = d["batch"], block = pair)
  expect_scores_match(got, s, "t")
  # a covariate that is also a feature is not scored: NA, last
  task2 <- mlr3::as_task_classif(d[c(paste0("g", 1:10), "y")], target = "y", id = "plain")
  f2 <- mlr3filters::flt("hsic", method = "t", covariates = "g10")
  got2 <- mlr3_scores(f2, task2)
  expect_true(is.na(got2[["g10"]]))
  expect_identical(names(got2)[10L], "g10")
  expect_error(mlr3_scores(mlr3filters::flt("hsic", covariates = "nope"), task),
               "'nope', not a column of task 'paired'")
})

test_that("a survival task is refused by name", {
  # survival tasks need mlr3proba (not on CRAN): the filters declare classif
  # and regr only; one that reaches the task's data is refused
  task <- list(task_type = "surv", id = "relapse")
  expect_error(mlr3_task_data(task), "Task 'relapse' is a survival task", fixed = TRUE)
})
