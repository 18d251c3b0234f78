# The shared result class: built by hand through bahsic:::new_selection(), so
# these tests do not depend on any selector.

toy_features <- function() {
  data.frame(feature = c("a", "b", "c", "d", "e"),
             rank = c(3L, 1L, NA, 2L, 4L),
             score = c(0.3, 0.1, NA, 0.2, 0.4),
             iteration = c(2L, 3L, NA, 3L, 1L),
             stringsAsFactors = FALSE)
}

toy_path <- function() {
  data.frame(iteration = 1:3, n_features = c(5L, 4L, 2L), hsic = c(0.01, 0.02, 0.05),
             sigma = c(0.1, 0.125, 0.25))
}

toy_settings <- function() {
  list(kernel = kernel_gaussian(), kernel_y = label_kernel_binary(), estimator = "biased",
       sigma = "dimension", drop = 0.1, n_features = NULL, standardize = TRUE,
       n_samples = 30L)
}

toy_selection <- function(features = toy_features(), path = toy_path(),
                          settings = toy_settings(), method = "bahsic") {
  bahsic:::new_selection(method, features, path, settings, quote(bahsic(x = x, y = y)))
}

test_that("new_selection() stores the parts and the ranking", {
  fit <- toy_selection()
  expect_s3_class(fit, "bahsic_selection")
  expect_named(fit, c("method", "features", "path", "settings", "call", "ranking"))
  expect_identical(fit$ranking, c("b", "d", "a", "e"))
  expect_identical(fit$features$feature, c("a", "b", "c", "d", "e"))
  expect_type(fit$features$rank, "integer")
  expect_type(fit$features$score, "double")
  expect_type(fit$features$iteration, "integer")
  expect_identical(fit$path, toy_path())
  expect_identical(fit$call, quote(bahsic(x = x, y = y)))
})

test_that("new_selection() accepts whole doubles and NA logicals, keeps extra columns", {
  f <- toy_features()
  f$rank <- as.double(f$rank)
  f$iteration <- as.double(f$iteration)
  f$extra <- letters[1:5]
  p <- toy_path()
  p$n_features <- as.double(p$n_features)
  p$sigma <- NA
  fit <- toy_selection(f, p)
  expect_type(fit$features$rank, "integer")
  expect_type(fit$features$iteration, "integer")
  expect_identical(names(fit$features), c("feature", "rank", "score", "iteration", "contribution",
                                           "extra"))
  expect_type(fit$path$n_features, "integer")
  expect_type(fit$path$sigma, "double")
  expect_true(all(is.na(fit$path$sigma)))
})

test_that("new_selection() allows a 0-row path, no ranked feature and empty settings", {
  f <- toy_features()
  f$rank <- NA_integer_
  f$score <- NA_real_
  f$iteration <- NA_integer_
  fit <- bahsic:::new_selection("fohsic", f, toy_path()[0, ], list(), NULL)
  expect_identical(fit$ranking, character(0))
  expect_identical(nrow(fit$path), 0L)
  expect_null(fit$call)
})

test_that("new_selection() rejects a missing or duplicated feature", {
  f <- toy_features()
  f$feature[3] <- NA
  expect_error(toy_selection(f), "row 3 has no name")
  f$feature[3] <- ""
  expect_error(toy_selection(f), "row 3 has no name")
  f <- toy_features()
  f$feature[5] <- "a"
  expect_error(toy_selection(f), "exactly once; \"a\" appears 2 times")
  expect_error(toy_selection(toy_features()[0, ]), "no rows")
  expect_error(toy_selection(toy_features()[, -2]), "lacks column rank")
  f <- toy_features()
  f$feature <- factor(f$feature)
  expect_error(toy_selection(f), "character vector")
  expect_error(toy_selection(as.list(toy_features())), "must be a data.frame")
})

test_that("new_selection() rejects bad ranks", {
  f <- toy_features()
  f$rank[5] <- 3L
  expect_error(toy_selection(f), "ranks 1 to 4, each once")
  f$rank[5] <- 5L
  expect_error(toy_selection(f), "ranks 1 to 4, each once")
  f$rank[5] <- 0L
  expect_error(toy_selection(f), "ranks 1 to 4, each once")
  f$rank <- c(3.5, 1, NA, 2, 4)
  expect_error(toy_selection(f), "'features\\$rank' must hold whole numbers")
  f$rank <- as.character(toy_features()$rank)
  expect_error(toy_selection(f), "'features\\$rank' must hold whole numbers")
  f <- toy_features()
  f$score[3] <- 1
  expect_error(toy_selection(f), "Unranked feature \"c\" must have NA score")
  f <- toy_features()
  f$iteration[1] <- 0L
  expect_error(toy_selection(f), "at least 1")
  f <- toy_features()
  f$score <- as.character(f$score)
  expect_error(toy_selection(f), "'features\\$score' must be numeric")
})

test_that("new_selection() checks method, path, settings and call", {
  expect_error(bahsic:::new_selection(c("a", "b"), toy_features(), toy_path(), list(), NULL),
               "'method' must be a single non-empty string")
  expect_error(bahsic:::new_selection("", toy_features(), toy_path(), list(), NULL),
               "'method'")
  expect_error(toy_selection(path = toy_path()[, -3]), "columns iteration, n_features, hsic")
  p <- toy_path()
  p$n_features[2] <- NA
  expect_error(toy_selection(path = p), "non-missing and non-negative")
  p <- toy_path()
  p$hsic <- as.character(p$hsic)
  expect_error(toy_selection(path = p), "'path\\$hsic' must be numeric")
  expect_error(toy_selection(settings = list(1, 2)), "every element is named")
  expect_error(bahsic:::new_selection("bahsic", toy_features(), toy_path(), list(), "call"),
               "'call' must be a call")
})

test_that("print() shows method, sizes, settings and the top features", {
  fit <- toy_selection()
  expect_output(print(fit), "BAHSIC feature selection: 30 samples, 5 features, 4 ranked")
  expect_output(print(fit), "estimator: biased")
  expect_output(print(fit), "sigma: dimension")
  expect_output(print(fit), "drop: 0.1")
  expect_output(print(fit), "Gaussian kernel")
  expect_output(print(fit), "Top 4 of 4 ranked features")
  out <- capture.output(print(fit))
  # best first: b, d, a, e; the unranked c is not listed
  rows <- grep("^ +[0-9]+ +[a-e] ", out, value = TRUE)
  expect_identical(sub("^ +[0-9]+ +([a-e]) .*", "\\1", rows), c("b", "d", "a", "e"))
  expect_output(print(fit, top = 2), "Top 2 of 4 ranked features")
  expect_output(vis <- withVisible(print(fit)))
  expect_false(vis$visible)
  expect_identical(vis$value, fit)
  fohsic_fit <- toy_selection(method = "fohsic", settings = list())
  expect_output(print(fohsic_fit), "^FOHSIC feature selection: 5 features, 4 ranked")
})

test_that("print() says what the score and the contribution mean, the contribution in %", {
  fit <- bahsic(golub$x[, 1:20], golub$y, threads = 1)
  expect_output(print(fit), "score: HSIC of the surviving features without it, when it was")
  expect_output(print(fit), "contribution: share of its surviving set's HSIC lost without it")
  out <- capture.output(print(fit))
  rows <- grep("^ +[0-9]+ +[^ ]+ +[-0-9.e]+ +[-0-9.]+% ", out, value = TRUE)
  expect_length(rows, 10L)
  expect_true(all(grepl(" [-0-9.]+% ", rows)))
  expect_match(rows[1L], " 100% ")   # the last feature left carries all of its set's HSIC
  expect_output(print(fohsic(golub$x[, 1:20], golub$y, n_features = 3, threads = 1)),
                "contribution: share of HSIC gained when it was added")
  expect_output(print(summary(fit)), "contribution: share of its surviving set's HSIC lost")
  # a selection without contributions says what its score is, and no more
  expect_output(print(toy_selection()), "score: HSIC of the surviving features")
  expect_false(any(grepl("^contribution:", capture.output(print(toy_selection())))))
})

test_that("print() copes with no ranked feature", {
  f <- toy_features()
  f$rank <- NA_integer_
  f$score <- NA_real_
  f$iteration <- NA_integer_
  fit <- toy_selection(f)
  expect_output(print(fit), "No feature ranked")
})

test_that("summary() returns its class and prints settings, path and top features", {
  fit <- toy_selection()
  s <- summary(fit)
  expect_s3_class(s, "summary.bahsic_selection")
  expect_identical(s$top$feature, c("b", "d", "a", "e"))
  expect_identical(s$n_ranked, 4L)
  expect_output(print(s), "Call: bahsic\\(x = x, y = y\\)")
  expect_output(print(s), "Settings:")
  expect_output(print(s), "standardize: TRUE")
  expect_output(print(s), "Path \\(3 iterations\\)")
  expect_output(print(s), "Top 4 of 4 ranked features")
  expect_identical(nrow(summary(fit, top = 1)$top), 1L)

  # a long path is cut to its head and tail
  long <- data.frame(iteration = 1:30, n_features = 30:1, hsic = seq(0.1, 3, by = 0.1),
                     sigma = NA_real_)
  out <- capture.output(print(summary(toy_selection(path = long))))
  expect_true(any(grepl("^ +\\.\\.\\.$", out)))
  expect_true(any(grepl("^ +30 +1 ", out)))
  expect_false(any(grepl("^ +15 +16 ", out)))

  empty <- toy_selection(path = toy_path()[0, ])
  expect_output(print(summary(empty)), "no iterations recorded")
})

test_that("as.data.frame() orders by rank, unranked last", {
  df <- as.data.frame(toy_selection())
  expect_s3_class(df, "data.frame")
  expect_identical(df$feature, c("b", "d", "a", "e", "c"))
  expect_identical(df$rank, c(1:4, NA))
  expect_identical(names(df), c("feature", "rank", "score", "iteration", "contribution"))
  expect_identical(rownames(df), as.character(1:5))
})

test_that("selected() gives the top n names and checks n", {
  fit <- toy_selection()
  expect_identical(selected(fit), c("b", "d", "a", "e"))
  expect_identical(selected(fit, 2), c("b", "d"))
  expect_identical(selected(fit, 4L), c("b", "d", "a", "e"))
  expect_identical(selected(fit, 0), character(0))
  expect_error(selected(fit, 1000), "'n' = 1000 is more than the 4 ranked features")
  expect_error(selected(fit, 5), "use n <= 4 or n = NULL")
  expect_error(selected(fit, -1), "'n' must be a single whole number")
  expect_error(selected(fit, 1.5), "'n' must be a single whole number")
  expect_error(selected(fit, c(1, 2)), "'n' must be a single whole number")
  expect_error(selected(fit, NA), "'n' must be a single whole number")
})

test_that("plot() draws paths, with and without chosen features, on any path", {
  pdf(NULL)
  on.exit(dev.off())
  fit <- toy_selection()
  expect_invisible(plot(fit))
  expect_identical(plot(fit), fit)
  expect_silent(plot(fit, chosen = c("a", "c")))
  expect_silent(plot(fit, chosen = c(2, 4)))
  expect_silent(plot(fit, main = "custom title", col = "red"))

  # constant, all-NA and partly-NA widths
  p <- toy_path()
  p$sigma <- 0.5
  expect_silent(plot(toy_selection(path = p)))
  p$sigma <- NA_real_
  expect_silent(plot(toy_selection(path = p), chosen = 1))
  p$sigma <- c(NA, 0.1, 0.2)
  expect_silent(plot(toy_selection(path = p)))

  # no iterations, a single iteration, a single feature
  expect_silent(plot(toy_selection(path = toy_path()[0, ]), chosen = "b"))
  expect_silent(plot(toy_selection(path = toy_path()[1, ])))
  one <- data.frame(feature = "a", rank = 1L, score = 0.5, iteration = 1L)
  expect_silent(plot(toy_selection(one, toy_path()[1, ]), chosen = "a"))

  # the graphics state is restored
  expect_identical(par("mfrow"), c(1L, 1L))
})

test_that("plot() checks 'chosen'", {
  pdf(NULL)
  on.exit(dev.off())
  fit <- toy_selection()
  expect_error(plot(fit, chosen = "z"), "not in the selection: z")
  expect_error(plot(fit, chosen = 6), "from 1 to 5")
  expect_error(plot(fit, chosen = 1.5), "from 1 to 5")
  expect_error(plot(fit, chosen = TRUE), "names or column indices")
  expect_error(plot(fit, chosen = character(0)), "is empty")
})

test_that("as.data.frame(scores = ) names a value that is not a method by its class", {
  set.seed(1)
  x <- matrix(rnorm(200), 20, dimnames = list(NULL, paste0("g", 1:10)))
  y <- factor(rep(c("a", "b"), 10))
  fit <- bahsic(x, y, threads = 1L)
  tab <- feature_scores(x, y, method = "t")
  msg <- tryCatch(as.data.frame(fit, scores = tab, data = x, y = y), error = conditionMessage)
  expect_match(msg, paste0("'scores' must be the name of a method of feature_scores\\(\\), such ",
                           "as \"mt\", not a data frame \\(10 x 8\\)\\. .*merge\\(as.data.frame\\(fit\\), ",
                           "table, by = \"feature\"\\)"))
  expect_lt(nchar(msg), 300L)
  expect_error(as.data.frame(fit, scores = c("t", "mt"), data = x, y = y),
               "not a character of length 2")
  expect_error(as.data.frame(fit, scores = 1, data = x, y = y), "not numeric 1")
  # the join keeps every column of the method's own
  df <- as.data.frame(fit, scores = "t", data = x, y = y)
  expect_identical(df$t_p_value, tab$p_value[match(df$feature, tab$feature)])
})
