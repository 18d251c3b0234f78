# step_select_hsic(): the recipes step against the package's own functions
# on the same training data (feature_scores(), top_features(), bahsic(),
# fohsic()) and against plain-R cuts of their tables; the dials parameter
# as tune would use it (tune itself is not installed: tunable(), the
# parameter object, finalize(), a grid, update() of the step).

golub_frame <- function(p = 60L, rows = seq_len(38L)) {
  data.frame(y = golub$y[rows], golub$x[rows, seq_len(p)], check.names = FALSE)
}

# Plain R: the `n` best ranked features of a score table, among those with
# adj_p_value <= fdr.
oracle_top <- function(s, n = NULL, fdr = NULL) {
  keep <- if (is.null(fdr)) rep(TRUE, nrow(s)) else !is.na(s$adj_p_value) & s$adj_p_value <= fdr
  f <- s$feature[keep][order(s$rank[keep])]
  if (is.null(n)) f else f[seq_len(min(n, length(f)))]
}

# What print() shows, on standard output (recipes 1.0.x) or as cli messages
# (later versions print steps through cli).
printed <- function(obj) {
  msgs <- character()
  out <- utils::capture.output(withCallingHandlers(print(obj), message = function(m) {
    msgs <<- c(msgs, conditionMessage(m))
    invokeRestart("muffleMessage")
  }))
  paste(c(out, msgs), collapse = "\n")
}

kept_columns <- function(rec, new_data = NULL) {
  setdiff(names(recipes::bake(rec, new_data = new_data)), "y")
}

test_that("library(bahsic) does not load recipes, and the step's methods are found once it is", {
  skip_peer("recipes")
  skip_on_cran()
  code <- paste0(
    "library(bahsic); a <- 'recipes' %in% loadedNamespaces(); ",
    "loadNamespace('recipes'); ",
    "m <- c(prep = 'recipes', bake = 'recipes', tidy = 'generics', tunable = 'generics', ",
    "required_pkgs = 'generics'); ",
    "b <- all(vapply(names(m), function(g) !is.null(utils::getS3method(g, 'step_select_hsic', ",
    "optional = TRUE, envir = asNamespace(m[[g]]))), NA)); ",
    "cat(a, b)")
  out <- system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", "-e", shQuote(code)),
                 stdout = TRUE, stderr = FALSE,
                 env = paste0("R_LIBS=", paste(.libPaths(), collapse = .Platform$path.sep)))
  expect_identical(utils::tail(out, 1L), "FALSE TRUE")
  expect_false("recipes" %in% names(getNamespaceImports("bahsic")))
})

test_that("prep() keeps the top_n features of feature_scores() and bake() removes the others", {
  skip_peer("recipes")
  d <- golub_frame()
  rec <- recipes::recipe(y ~ ., data = d) |>
    step_select_hsic(recipes::all_predictors(), outcome = "y", top_n = 7, options = list(threads = 1))
  tr <- recipes::prep(rec)
  s <- feature_scores(golub$x[, 1:60], golub$y, method = "hsic", threads = 1)
  expect_identical(sort(kept_columns(tr)), sort(top_features(s, n = 7)$feature))
  expect_identical(sort(kept_columns(tr)), sort(oracle_top(s, 7)))
  # the predictors kept in their order, and the outcome (last, where recipes puts it)
  baked <- recipes::bake(tr, new_data = NULL)
  expect_identical(names(baked), c(intersect(names(d), oracle_top(s, 7)), "y"))
  expect_equal(as.matrix(baked[, oracle_top(s, 7)]), golub$x[, oracle_top(s, 7)],
               ignore_attr = TRUE)
})

test_that("bake() on new data keeps the columns learnt on the training data", {
  skip_peer("recipes")
  train <- golub_frame(rows = 1:30)
  test <- golub_frame(rows = 31:38)
  tr <- recipes::recipe(y ~ ., data = train) |>
    step_select_hsic(recipes::all_predictors(), method = "t", top_n = 5) |>
    recipes::prep()
  s <- feature_scores(golub$x[1:30, 1:60], golub$y[1:30], method = "t")
  expect_identical(kept_columns(tr, test), kept_columns(tr))
  expect_setequal(kept_columns(tr, test), oracle_top(s, 5))
  expect_identical(nrow(recipes::bake(tr, new_data = test)), 8L)
  # new data without the outcome (a test set to predict)
  expect_setequal(names(recipes::bake(tr, new_data = test[, -1])), oracle_top(s, 5))
})

test_that("threshold keeps the features at that adjusted p-value, top_n the best of them", {
  skip_peer("recipes")
  d <- golub_frame(200L)
  s <- feature_scores(golub$x[, 1:200], golub$y, method = "mt")
  rec <- recipes::recipe(y ~ ., data = d)
  at_fdr <- recipes::prep(step_select_hsic(rec, recipes::all_predictors(), method = "mt",
                                           threshold = 0.01))
  expect_setequal(kept_columns(at_fdr), oracle_top(s, fdr = 0.01))
  expect_setequal(kept_columns(at_fdr), top_features(s, fdr = 0.01)$feature)
  expect_gt(length(kept_columns(at_fdr)), 5L)
  both <- recipes::prep(step_select_hsic(rec, recipes::all_predictors(), method = "mt",
                                         threshold = 0.01, top_n = 5))
  expect_setequal(kept_columns(both), oracle_top(s, 5, fdr = 0.01))
  # the raw p-value with adjust = "none"
  s_raw <- feature_scores(golub$x[, 1:200], golub$y, method = "mt", adjust = "none")
  raw <- recipes::prep(step_select_hsic(rec, recipes::all_predictors(), method = "mt",
                                        threshold = 0.01, options = list(adjust = "none")))
  expect_setequal(kept_columns(raw), s_raw$feature[s_raw$p_value <= 0.01])
  expect_gt(length(kept_columns(raw)), length(kept_columns(at_fdr)))
  # permutation p-values for the centroid difference, from the caller's random numbers
  set.seed(3)
  s_lin <- feature_scores(golub$x[, 1:200], golub$y, method = "lin", n_perm = 99,
                          adjust = "none")
  # (the step's id is drawn from the random numbers too: made before the seed)
  rec_lin <- step_select_hsic(rec, recipes::all_predictors(), method = "lin", threshold = 0.02,
                              options = list(n_perm = 99, adjust = "none"))
  set.seed(3)
  lin <- recipes::prep(rec_lin)
  expect_setequal(kept_columns(lin), s_lin$feature[s_lin$p_value <= 0.02])
  expect_gt(length(kept_columns(lin)), 0L)
})

test_that("no feature at the threshold: every candidate is removed, with a warning", {
  skip_peer("recipes")
  d <- golub_frame(5L)
  rec <- recipes::recipe(y ~ ., data = d) |>
    step_select_hsic(recipes::all_predictors(), method = "mt", threshold = 0)
  expect_warning(tr <- recipes::prep(rec), "removes all 5 candidates")
  expect_identical(names(recipes::bake(tr, new_data = NULL)), "y")
})

test_that("the selectors keep selected() of bahsic() and fohsic() stopped at top_n", {
  skip_peer("recipes")
  d <- golub_frame(40L)
  x <- golub$x[, 1:40]
  rec <- recipes::recipe(y ~ ., data = d)
  for (method in c("bahsic", "fohsic")) {
    tr <- recipes::prep(step_select_hsic(rec, recipes::all_predictors(), method = method,
                                         top_n = 4, options = list(threads = 1)))
    fit <- do.call(method, list(x, golub$y, n_features = 4, threads = 1))
    expect_setequal(kept_columns(tr), selected(fit, 4))
    td <- recipes::tidy(tr, number = 1)
    expect_identical(td$terms, colnames(x))
    expect_identical(td$rank, fit$features$rank)
    expect_true(all(is.na(td$p_value)))
    expect_identical(sum(td$selected), 4L)
  }
  # options reach the selector
  tr <- recipes::prep(step_select_hsic(rec, recipes::all_predictors(), method = "bahsic",
                                       top_n = 3, options = list(kernel = kernel_linear())))
  fit <- bahsic(x, golub$y, n_features = 3, kernel = kernel_linear())
  expect_setequal(kept_columns(tr), selected(fit, 3))
})

test_that("a numeric outcome works, and outcome = NULL takes the recipe's outcome", {
  skip_peer("recipes")
  set.seed(11)
  sim <- simulate_regression(n = 40)
  d <- data.frame(sim$x, resp = sim$y)
  for (method in c("hsic", "pc")) {
    tr <- recipes::recipe(resp ~ ., data = d) |>
      step_select_hsic(recipes::all_predictors(), method = method, top_n = 3) |>
      recipes::prep()
    s <- feature_scores(sim$x, sim$y, method = method)
    expect_setequal(setdiff(names(recipes::bake(tr, new_data = NULL)), "resp"), oracle_top(s, 3))
  }
  # the outcome is never a candidate, even when everything() selects it
  tr <- recipes::recipe(resp ~ ., data = d) |>
    step_select_hsic(everything(), outcome = "resp", method = "pc", top_n = 3) |>
    recipes::prep()
  expect_false("resp" %in% recipes::tidy(tr, number = 1)$terms)
  expect_true("resp" %in% names(recipes::bake(tr, new_data = NULL)))
})

test_that("tidy() gives the selectors before prep() and the scores after", {
  skip_peer("recipes")
  d <- golub_frame(30L)
  rec <- recipes::recipe(y ~ ., data = d) |>
    step_select_hsic(recipes::all_predictors(), method = "mt", top_n = 4, id = "sel")
  before <- recipes::tidy(rec, number = 1)
  expect_s3_class(before, "tbl_df")
  expect_identical(names(before),
                   c("terms", "score", "rank", "p_value", "adj_p_value", "selected", "id"))
  expect_identical(before$terms, "recipes::all_predictors()")
  expect_true(is.na(before$score) && is.na(before$rank) && is.na(before$selected))
  expect_identical(before$id, "sel")
  after <- recipes::tidy(recipes::prep(rec), number = 1)
  s <- feature_scores(golub$x[, 1:30], golub$y, method = "mt")
  expect_identical(names(after), names(before))
  expect_identical(after$terms, s$feature)
  expect_identical(after$score, s$score)
  expect_identical(after$rank, s$rank)
  expect_identical(after$p_value, s$p_value)
  expect_identical(after$adj_p_value, s$adj_p_value)
  expect_identical(after$selected, s$rank <= 4L)
  expect_true(all(after$id == "sel"))
  # the recipe's own tidy() lists the step
  expect_identical(recipes::tidy(rec)$type, "select_hsic")
})

test_that("print() says what the step does, before and after prep()", {
  skip_peer("recipes")
  d <- golub_frame(10L)
  rec <- recipes::recipe(y ~ ., data = d) |>
    step_select_hsic(recipes::all_predictors(), method = "mt", top_n = 4, threshold = 1)
  expect_match(printed(rec), "HSIC feature selection (mt, top 4, adjusted p <= 1) on",
               fixed = TRUE)
  expect_match(printed(recipes::prep(rec)), "kept 4 of 10, removed", fixed = TRUE)
  expect_error(print(rec$steps[[1]], digts = 3), "Did you mean 'digits'?", fixed = TRUE)
})

test_that("skip = TRUE: the training data are selected, new data are not", {
  skip_peer("recipes")
  train <- golub_frame(20L, rows = 1:30)
  test <- golub_frame(20L, rows = 31:38)
  tr <- recipes::recipe(y ~ ., data = train) |>
    step_select_hsic(recipes::all_predictors(), method = "t", top_n = 3, skip = TRUE) |>
    recipes::prep()
  expect_length(kept_columns(tr), 3L)
  expect_setequal(names(recipes::bake(tr, new_data = test)), names(test))
})

test_that("tunable() lists top_n and threshold with parameters dials can build", {
  skip_peer("recipes")
  skip_peer("dials")
  d <- golub_frame(50L)
  step <- step_select_hsic(recipes::recipe(y ~ ., data = d), recipes::all_predictors(),
                           method = "mt", top_n = 5)$steps[[1]]
  tn <- recipes::tunable(step)
  expect_s3_class(tn, "tbl_df")
  expect_identical(tn$name, c("top_n", "threshold"))
  expect_identical(tn$component, rep("step_select_hsic", 2L))
  expect_identical(tn$component_id, rep(step$id, 2L))
  expect_identical(tn$source, rep("recipe", 2L))
  # what tune does with call_info: call the function with no arguments
  params <- lapply(tn$call_info, function(ci) do.call(getExportedValue(ci$pkg, ci$fun), list()))
  expect_identical(tn$call_info[[1L]], list(pkg = "bahsic", fun = "top_n_features"))
  expect_identical(tn$call_info[[2L]], list(pkg = "dials", fun = "threshold"))
  expect_s3_class(params[[1L]], "quant_param")
  expect_true(dials::has_unknowns(params[[1L]]))
  # finalised on the predictors: from 1 to their number
  top <- dials::finalize(params[[1L]], golub$x[, 1:50])
  expect_identical(top$range, list(lower = 1L, upper = 50L))
  grid <- dials::grid_regular(top, levels = 3)
  expect_identical(grid$top_n_features, c(1L, 25L, 50L))
  expect_identical(unname(top$label), "# Selected Features")
  th <- dials::grid_regular(params[[2L]], levels = 3)
  expect_equal(th$threshold, c(0, 0.5, 1))
  # a selector has no p-values: top_n only
  step_b <- step_select_hsic(recipes::recipe(y ~ ., data = d), recipes::all_predictors(),
                             method = "bahsic", top_n = 5)$steps[[1]]
  expect_identical(recipes::tunable(step_b)$name, "top_n")
  expect_identical(recipes::required_pkgs(step_b), "bahsic")
  # a range of its own, and its checks
  expect_identical(top_n_features(range = c(5L, 40L))$range, list(lower = 5L, upper = 40L))
  expect_error(top_n_features(rnage = c(1L, 5L)), "Did you mean 'range'?", fixed = TRUE)
})

test_that("tune()'s placeholder is refused by prep() and replaced by update()", {
  skip_peer("recipes")
  d <- golub_frame(40L)
  placeholder <- call("tune")  # what tune() / hardhat::tune() returns
  rec <- recipes::recipe(y ~ ., data = d) |>
    step_select_hsic(recipes::all_predictors(), method = "mt", top_n = placeholder)
  # recipes refuses it itself (since 0.1.x); the step says so too when prepared alone
  expect_error(recipes::prep(rec), "tune")
  expect_error(recipes::prep(rec$steps[[1]], training = d, info = rec$term_info),
               "'top_n' or 'threshold' is still tune()", fixed = TRUE)
  expect_match(printed(rec), "top_n = tune()", fixed = TRUE)
  s <- feature_scores(golub$x[, 1:40], golub$y, method = "mt")
  for (n in c(2L, 9L)) {
    rec_n <- rec
    rec_n$steps[[1]] <- stats::update(rec$steps[[1]], top_n = n)
    expect_setequal(kept_columns(recipes::prep(rec_n)), oracle_top(s, n))
  }
  # a grid value above the number of predictors keeps them all
  rec_all <- rec
  rec_all$steps[[1]] <- stats::update(rec$steps[[1]], top_n = 100L)
  expect_setequal(kept_columns(recipes::prep(rec_all)), colnames(golub$x)[1:40])
  # a bad value substituted is an error at prep()
  rec_bad <- rec
  rec_bad$steps[[1]] <- stats::update(rec$steps[[1]], top_n = 0)
  expect_error(recipes::prep(rec_bad), "'top_n' must be a whole number of at least 1",
               fixed = TRUE)
})

test_that("bad arguments are errors that name them", {
  skip_peer("recipes")
  d <- golub_frame(10L)
  rec <- recipes::recipe(y ~ ., data = d)
  pred <- recipes::all_predictors
  expect_error(step_select_hsic(rec, pred()),
               "needs 'top_n' (how many features to keep, e.g. top_n = 20) or 'threshold'",
               fixed = TRUE)
  expect_error(step_select_hsic(rec, pred(), top_n = NULL, threshold = NA), "needs 'top_n'")
  expect_error(step_select_hsic(rec, pred(), method = "hsci", top_n = 3),
               "'method' = \"hsci\" is not one of", fixed = TRUE)
  expect_error(step_select_hsic(rec, pred(), method = "hsci", top_n = 3),
               "Did you mean \"hsic\"?", fixed = TRUE)
  expect_error(step_select_hsic(rec, pred(), method = "limma", top_n = 3),
               "Did you mean \"mt\"?", fixed = TRUE)
  expect_error(step_select_hsic(rec, pred(), top_n = 0), "'top_n' must be a whole number")
  expect_error(step_select_hsic(rec, pred(), top_n = 2.5), "'top_n' must be a whole number")
  expect_error(step_select_hsic(rec, pred(), threshold = 2), "'threshold' must be one number")
  expect_error(step_select_hsic(rec, pred(), method = "bahsic", threshold = 0.05),
               "method = \"bahsic\" gives none", fixed = TRUE)
  expect_error(step_select_hsic(rec, pred(), method = "lin", threshold = 0.05),
               "options = list(n_perm = 1000)", fixed = TRUE)
  expect_error(step_select_hsic(rec, pred(), top_n = 3, options = list(kernal = kernel_linear())),
               "'options' has 'kernal', which feature_scores() with method = \"hsic\" does not take. Did you mean 'kernel'?",
               fixed = TRUE)
  expect_error(step_select_hsic(rec, pred(), method = "fohsic", top_n = 3,
                                options = list(drop = 0.2)),
               "'options' has 'drop', which fohsic() with method = \"fohsic\" does not take. It takes 'kernel', 'kernel_y',",
               fixed = TRUE)
  expect_error(step_select_hsic(rec, pred(), top_n = 3, options = list(n_features = 4)),
               "give step_select_hsic(top_n = ) instead", fixed = TRUE)
  expect_error(step_select_hsic(rec, pred(), top_n = 3, options = list(1)),
               "'options' must be a list of named arguments of feature_scores()", fixed = TRUE)
  expect_error(step_select_hsic(rec, pred(), top_n = 3, outcome = 1),
               "'outcome' must be the name of the outcome column", fixed = TRUE)
  # a misspelt argument is not taken for a selector
  expect_error(step_select_hsic(rec, pred(), top_n = 3, outcom = "y"),
               "step_select_hsic() has no argument 'outcom'. Did you mean 'outcome'?", fixed = TRUE)
  # the method's own checks at prep(): an option it does not use
  expect_error(recipes::prep(step_select_hsic(rec, pred(), method = "mt", top_n = 3,
                                              options = list(var_equal = TRUE))),
               "'var_equal' is not used with method = \"mt\"", fixed = TRUE)
  # a missing outcome
  expect_error(recipes::prep(step_select_hsic(rec, pred(), top_n = 3, outcome = "yy")),
               "'outcome' = \"yy\" is not a column of the training data. Did you mean \"y\"?",
               fixed = TRUE)
  no_outcome <- recipes::recipe(~ ., data = d[, -1])
  expect_error(recipes::prep(step_select_hsic(no_outcome, pred(), top_n = 3)),
               "needs an outcome: the recipe has none, so give outcome = \"<column>\"", fixed = TRUE)
  # a non-numeric candidate
  d_chr <- cbind(d, group = rep(c("a", "b"), 19))
  expect_error(recipes::prep(step_select_hsic(recipes::recipe(y ~ ., data = d_chr), pred(),
                                              top_n = 3)),
               "double|numeric")
})

# Paired samples (one of each class per pair) in two batches, with class
# signal in the first three features.
design_frame_data <- function(np = 16L, p = 12L) {
  set.seed(11)
  pair <- factor(rep(seq_len(np), each = 2L))
  y <- factor(rep(c("a", "b"), np))
  x <- matrix(stats::rnorm(2L * np * p), 2L * np, p,
              dimnames = list(NULL, paste0("g", seq_len(p))))
  x[, 1:3] <- x[, 1:3] + 1.5 * (y == "b")
  data.frame(y = y, x, batch = factor(rep(c("b1", "b2"), each = np)), pair = pair)
}

test_that("step_select_hsic() takes covariates and a block by role: not scored, never removed", {
  skip_if_not_installed("recipes")
  skip_if_not(identical(bahsic:::score_table$t$design, "adjusts"),
              "method = \"t\" does not adjust for a design on this branch")
  d <- design_frame_data()
  rec <- recipes::recipe(y ~ ., data = d) |>
    recipes::update_role(batch, new_role = "covariate") |>
    recipes::update_role(pair, new_role = "block") |>
    step_select_hsic(recipes::all_predictors(), method = "t", top_n = 4,
                     covariates = recipes::has_role("covariate"),
                     block = recipes::has_role("block"))
  trained <- recipes::prep(rec)
  features <- paste0("g", 1:12)
  s <- feature_scores(as.matrix(d[features]), d$y, method = "t",
                      covariates = d["batch"], block = d$pair)
  tab <- recipes::tidy(trained, number = 1)
  expect_setequal(tab$terms, features)
  expect_equal(tab$score[match(s$feature, tab$terms)], s$score)
  baked <- recipes::bake(trained, new_data = NULL)
  expect_setequal(names(baked), c(oracle_top(s, 4), "y", "batch", "pair"))
  expect_identical(trained$steps[[1]]$covariates, "batch")
  expect_identical(trained$steps[[1]]$block, "pair")
  expect_match(printed(trained), "given batch, block pair")
  # covariates that are predictors too are taken out of the candidates
  rec2 <- recipes::recipe(y ~ ., data = d[c("y", features, "batch")]) |>
    step_select_hsic(recipes::all_numeric_predictors(), method = "t", top_n = 4,
                     covariates = c(batch))
  baked2 <- recipes::bake(recipes::prep(rec2), new_data = NULL)
  expect_true("batch" %in% names(baked2))
  # the design goes through the step's own arguments, not options
  expect_error(step_select_hsic(recipes::recipe(y ~ ., data = d), recipes::all_predictors(),
                                top_n = 2, options = list(block = d$pair)),
               "step_select_hsic\\(block = \\)")
})

test_that("a Surv column passes through the recipe as its outcome", {
  skip_if_not_installed("recipes")
  skip_if_not_installed("survival")
  set.seed(31)
  s <- simulate_survival(50, p = 15, censoring = 0.3)
  d <- data.frame(s$x)
  d$surv <- s$y
  rec <- recipes::recipe(surv ~ ., data = d)
  pr <- recipes::prep(step_select_hsic(rec, recipes::all_predictors(), top_n = 3))
  fs <- feature_scores(s$x, s$y, method = "hsic")
  expect_setequal(setdiff(kept_columns(pr), "surv"), oracle_top(fs, 3))
  baked <- recipes::bake(pr, new_data = NULL)
  expect_s3_class(baked$surv, "Surv")
  expect_identical(unclass(baked$surv), unclass(s$y))
  # time and status as two outcomes: the error says to make one Surv column
  d2 <- data.frame(s$x, time = surv_time(s$y), status = surv_event(s$y))
  rec2 <- recipes::recipe(time + status ~ ., data = d2)
  expect_error(recipes::prep(step_select_hsic(rec2, recipes::all_predictors(), top_n = 3)),
               "make one column of the two, data\\$surv <- survival::Surv\\(time, status\\)")
  # a method without survival refuses by name
  expect_error(recipes::prep(step_select_hsic(rec, recipes::all_predictors(), top_n = 3,
                                              method = "t")),
               "compares two classes")
})
