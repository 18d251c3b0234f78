# evaluate_selection(): stratified CV with selection inside the training
# folds, a Gaussian SVM, stability of the top lists; parallel runs identical.

# two classes, `informative` shifted features among d (names g1..gd)
toy_eval <- function(m = 40, d = 60, informative = 3L, shift = 2, seed = 1) {
  t <- toy_binary(m, d, seed, informative = informative, shift = shift)
  colnames(t$x) <- paste0("g", seq_len(d))
  rownames(t$x) <- paste0("s", seq_len(m))
  t
}
fixed_svm <- list(C = 100, sigma = "median")

test_that("the folds are stratified, cover every sample once and follow set.seed()", {
  y <- factor(rep(c("a", "b", "c"), c(23, 11, 6)))
  set.seed(3)
  f <- bahsic:::cv_folds(y, 5)
  expect_setequal(f, 1:5)
  counts <- table(f, y)
  expect_true(all(apply(counts, 2, function(v) max(v) - min(v) <= 1)))
  set.seed(3)
  expect_identical(bahsic:::cv_folds(y, 5), f)
  # a numeric outcome: every fold spans the range
  set.seed(4)
  yr <- rnorm(50)
  fr <- bahsic:::cv_folds(yr, 5)
  expect_true(all(tapply(yr, fr, min) < stats::quantile(yr, 0.15)))
  expect_true(all(tapply(yr, fr, max) > stats::quantile(yr, 0.85)))
})

test_that("the caller's folds are used as given (grouped cross-validation)", {
  t <- toy_eval(m = 24, d = 10)
  group <- rep(c("p1", "p2", "p3", "p4"), each = 6)
  seen <- new.env()
  seen$rows <- list()
  spy <- function(x, y) {
    seen$rows[[length(seen$rows) + 1L]] <- rownames(x)
    colnames(x)
  }
  ev <- evaluate_selection(t$x, t$y, selectors = list(spy = spy), n_features = 2,
                           folds = group, classifier = "none")
  expect_identical(unname(ev$folds[, 1]), rep(1:4, each = 6))
  for (k in 1:4) expect_setequal(seen$rows[[k]], rownames(t$x)[group != group[6 * k]])
  expect_error(evaluate_selection(t$x, t$y, selectors = "t", n_features = 2, folds = group,
                                  repeats = 2, classifier = "none"), "use repeats = 1")
  expect_error(evaluate_selection(t$x, t$y, selectors = "t", n_features = 2, folds = group[-1],
                                  classifier = "none"), "the fold of each of the 24 samples")
  expect_error(evaluate_selection(t$x, t$y, selectors = "t", n_features = 2,
                                  folds = rep("a", 24), classifier = "none"), "a single fold")
})

test_that("the selectors see the training fold only", {
  skip_peer("kernlab")
  t <- toy_eval()
  seen <- new.env()
  seen$rows <- list()
  spy <- function(x, y) {
    seen$rows[[length(seen$rows) + 1L]] <- rownames(x)
    s <- feature_scores(x, y, method = "t")
    s$feature[order(s$rank)]
  }
  set.seed(5)
  ev <- evaluate_selection(t$x, t$y, selectors = list(spy = spy), n_features = 3, folds = 4,
                           repeats = 2, tune = fixed_svm)
  expect_length(seen$rows, 8L)
  i <- 0L
  for (r in 1:2) for (k in 1:4) {
    i <- i + 1L
    expect_setequal(seen$rows[[i]], rownames(t$x)[ev$folds[, r] != k])
  }
})

test_that("errors equal a plain-R oracle: ksvm on the standardised top features, median width", {
  skip_peer("kernlab")
  t <- toy_eval(m = 36, d = 30, informative = 2, shift = 1)
  set.seed(6)
  ev <- evaluate_selection(t$x, t$y, selectors = c("t", "pam"), n_features = c(2, 5),
                           folds = 4, tune = fixed_svm)
  for (s in c("t", "pam")) for (n in c(2, 5)) for (k in 1:4) {
    tr <- ev$folds[, 1] != k
    sc <- feature_scores(t$x[tr, ], t$y[tr], method = s)
    top <- sc$feature[order(sc$rank)][seq_len(n)]
    expect_identical(ev$rankings[[s]][[k]], sc$feature[order(sc$rank)])
    z <- scale(t$x[tr, top, drop = FALSE])
    zt <- scale(t$x[!tr, top, drop = FALSE], attr(z, "scaled:center"), attr(z, "scaled:scale"))
    w <- stats::median(stats::dist(z))
    fit <- kernlab::ksvm(unclass(z)[, , drop = FALSE], t$y[tr], type = "C-svc", kernel = "rbfdot",
                         kpar = list(sigma = 1 / (2 * w^2)), C = 100, scaled = FALSE)
    pred <- kernlab::predict(fit, zt)
    row <- ev$results[ev$results$selector == s & ev$results$n_features == n &
                        ev$results$fold == k, ]
    expect_equal(row$error, mean(pred != t$y[!tr]), info = paste(s, n, k))
    expect_equal(row$balanced_error, 1 - as.numeric(bcr(t$y[!tr], pred)), info = paste(s, n, k))
  }
  # the stability table: overlap and Kuncheva's index of the fold top lists
  tops <- lapply(ev$rankings$t, `[`, 1:2)
  st <- ev$stability[ev$stability$selector == "t" & ev$stability$n_features == 2, ]
  expect_identical(st$overlap, length(Reduce(intersect, tops)))
  expect_equal(st$kuncheva, kuncheva_index(tops, k = 2, n_features = 30))
})

test_that("no leakage: permuted labels give chance error, selection on all samples would not", {
  skip_peer("kernlab")
  # pure noise, many features: choosing the top 5 with the test samples in
  # view finds features that separate them by chance
  set.seed(7)
  m <- 40
  x <- matrix(rnorm(m * 400), m, 400, dimnames = list(NULL, paste0("g", 1:400)))
  y <- factor(sample(rep(c("a", "b"), m / 2)))
  ev <- evaluate_selection(x, y, selectors = "t", n_features = 5, folds = 5, repeats = 3,
                           tune = fixed_svm)
  honest <- mean(ev$results$balanced_error)
  expect_gt(honest, 0.35)
  # the leaky protocol, for contrast: the same folds, the ranking from all samples
  s <- feature_scores(x, y, method = "t")
  leak_rank <- s$feature[order(s$rank)]
  leaky <- evaluate_selection(x, y, selectors = list(leak = function(x, y) leak_rank),
                              n_features = 5, folds = 5, repeats = 3, tune = fixed_svm)
  expect_lt(mean(leaky$results$balanced_error), honest - 0.1)
  # and real signal is found: the shifted features give a low error
  t <- toy_eval(m = 40, d = 400, informative = 3, shift = 3)
  set.seed(8)
  good <- evaluate_selection(t$x, t$y, selectors = "t", n_features = 3, folds = 5,
                             tune = fixed_svm)
  expect_lt(mean(good$results$error), 0.2)
})

test_that("built-in names, functions and every kind of answer are accepted", {
  skip_peer("kernlab")
  t <- toy_eval(m = 30, d = 20)
  set.seed(9)
  ev <- evaluate_selection(t$x, t$y, n_features = c(2, 4), folds = 3, tune = fixed_svm,
                           selectors = list(
                             bahsic = "bahsic", fohsic = "fohsic", lin = "bahsic_linear",
                             dis = "bahsic_dis", mt = "mt",
                             sel = function(x, y) bahsic(x, y, kernel = kernel_linear()),
                             df = function(x, y) feature_scores(x, y, method = "snr"),
                             idx = function(x, y) order(-abs(feature_scores(x, y, method = "lin")$score))))
  expect_setequal(unique(ev$results$selector),
                  c("bahsic", "fohsic", "lin", "dis", "mt", "sel", "df", "idx"))
  expect_identical(nrow(ev$results), 8L * 2L * 3L)
  expect_true(all(ev$results$error >= 0 & ev$results$error <= 1))
  expect_null(attributes(ev$results$balanced_error))
  # fohsic ranks max(n_features) features, the others all of them
  expect_true(all(lengths(ev$rankings$fohsic) == 4L))
  expect_true(all(lengths(ev$rankings$bahsic) == 20L))
  # a built-in name and the function it stands for rank alike
  expect_identical(ev$rankings$sel, ev$rankings$lin)
  expect_true(all(vapply(ev$rankings$idx, is.character, logical(1))))
})

test_that("the inner grid search picks a pair from the grid; classifier = \"none\" only ranks", {
  skip_peer("kernlab")
  t <- toy_eval(m = 30, d = 15)
  set.seed(10)
  ev <- evaluate_selection(t$x, t$y, selectors = "t", n_features = 3, folds = 3,
                           tune = list(C = c(1, 100), sigma = c(1, "median")), inner_folds = 3)
  expect_true(all(ev$results$C %in% c(1, 100)))
  expect_true(all(ev$results$sigma %in% c("1", "median")))
  set.seed(10)
  none <- evaluate_selection(t$x, t$y, selectors = "t", n_features = 3, folds = 3,
                             classifier = "none")
  expect_true(all(is.na(none$results$error)))
  expect_identical(none$rankings, ev$rankings)
  expect_identical(none$stability, ev$stability)
  expect_error(plot(none), "no classifier")
})

test_that("multiclass: one versus the rest; regression: 1 - r^2 and RMSE", {
  skip_peer("kernlab")
  set.seed(11)
  sim <- simulate_multiclass(80)
  colnames(sim$x) <- paste0("f", seq_len(ncol(sim$x)))
  ev <- evaluate_selection(sim$x, sim$y, selectors = c("pam", "bahsic"), n_features = 2,
                           folds = 4, tune = fixed_svm)
  expect_lt(mean(ev$results$error), 0.4)  # chance: 0.75
  expect_true(all(is.finite(ev$results$balanced_error)))
  # the one-versus-rest rule on its own: three well separated classes
  set.seed(12)
  ctr <- rbind(c(0, 0), c(6, 0), c(0, 6))
  cls <- factor(rep(c("u", "v", "w"), each = 15))
  z <- ctr[as.integer(cls), ] + matrix(rnorm(90, sd = 0.5), 45)
  pred <- bahsic:::svm_fit_predict(z[-(1:3 * 15), ], cls[-(1:3 * 15)], z[1:3 * 15, ], 10, "median")
  expect_identical(as.character(pred), c("u", "v", "w"))

  set.seed(13)
  reg <- simulate_regression(100)
  colnames(reg$x) <- paste0("f", seq_len(ncol(reg$x)))
  truth <- function(x, y) c("f1", "f2", setdiff(colnames(x), c("f1", "f2")))
  evr <- evaluate_selection(reg$x, reg$y, selectors = list(pc = "pc", truth = truth),
                            n_features = c(2, 5), folds = 4, inner_folds = 3,
                            tune = list(C = 10, sigma = c(0.3, "median")))
  expect_true(all(is.na(evr$results$balanced_error)))
  expect_true(all(evr$results$error >= 0 & evr$results$error <= 1))
  expect_true(all(evr$results$rmse > 0))
  # the SVR on the two relevant features explains most of the variance
  # (y = x1 exp(-x1^2 - x2^2) + noise); the noise features only dilute it
  best <- summary(evr)
  expect_lt(best$error[best$selector == "truth" & best$n_features == 2], 0.5)
  expect_lt(best$error[best$selector == "truth" & best$n_features == 2],
            best$error[best$selector == "truth" & best$n_features == 5])
  expect_error(plot(evr, type = "balanced_error"), "no balanced error")
})

test_that("summary(), print() and plot() report the folds' means", {
  skip_peer("kernlab")
  t <- toy_eval(m = 30, d = 20)
  set.seed(14)
  ev <- evaluate_selection(t$x, t$y, selectors = c("t", "lin"), n_features = c(2, 5),
                           folds = 3, repeats = 2, tune = fixed_svm)
  s <- summary(ev)
  expect_identical(nrow(s), 4L)
  r <- ev$results[ev$results$selector == "lin" & ev$results$n_features == 5, ]
  expect_equal(s$error[s$selector == "lin" & s$n_features == 5], mean(r$error))
  expect_equal(s$error_sd[s$selector == "lin" & s$n_features == 5], sd(r$error))
  st <- ev$stability[ev$stability$selector == "lin" & ev$stability$n_features == 5, ]
  expect_identical(nrow(st), 2L)
  expect_equal(s$overlap[s$selector == "lin" & s$n_features == 5], mean(st$overlap))
  out <- capture.output(print(ev))
  expect_match(out[1], "3-fold cross-validation x 2 repeats, classification \\(30 samples, 20 features\\)")
  pdf(NULL)
  on.exit(dev.off())
  expect_identical(plot(ev), s)
})

test_that("future and BiocParallel give the serial results, and the caller's RNG is untouched", {
  skip_peer("kernlab")
  skip_if(under_valgrind(), "under valgrind: future's and BiocParallel's code, not ours")
  t <- toy_eval(m = 30, d = 25)
  sel <- list(t = "t", rs = function(x, y) randsel(x, y, n_boot = 20))
  run <- function(parallel) {
    set.seed(15)
    ev <- evaluate_selection(t$x, t$y, selectors = sel, n_features = 3, folds = 3,
                             tune = fixed_svm, parallel = parallel)
    list(ev = ev, after = runif(1))
  }
  serial <- run(NULL)
  if (requireNamespace("future.apply", quietly = TRUE) && requireNamespace("future", quietly = TRUE)) {
    old <- future::plan(future::sequential)
    fut <- run("future")
    future::plan(old)
    expect_identical(fut$ev$results, serial$ev$results)
    expect_identical(fut$ev$rankings, serial$ev$rankings)
  }
  if (requireNamespace("BiocParallel", quietly = TRUE)) {
    bp <- run(BiocParallel::SerialParam())
    expect_identical(bp$ev$results, serial$ev$results)
    expect_identical(bp$ev$rankings, serial$ev$rankings)
    if (.Platform$OS.type == "unix") {
      mc <- run(BiocParallel::MulticoreParam(2))
      expect_identical(mc$ev$results, serial$ev$results)
      expect_identical(mc$ev$rankings, serial$ev$rankings)
    }
  }
  # the folds' own seeds leave the caller's stream where the draws of the
  # folds and seeds left it, whatever ran in the folds
  none <- {
    set.seed(15)
    evaluate_selection(t$x, t$y, selectors = list(t = "t"), n_features = 3, folds = 3,
                       classifier = "none")
    runif(1)
  }
  expect_identical(serial$after, none)
})

test_that("bad arguments are refused with a message that says what to do", {
  t <- toy_eval(m = 20, d = 10)
  expect_error(evaluate_selection(t$x, t$y, selectors = "nope", classifier = "none", n_features = 2),
               "Selector 'nope' must be a function\\(x, y\\) or one of")
  expect_error(evaluate_selection(t$x, t$y, selectors = list(function(x, y) 1:3),
                                  classifier = "none", n_features = 2),
               "Every selector needs a distinct name")
  expect_error(evaluate_selection(t$x, t$y, selectors = list(f = function(x, y) "g1"),
                                  classifier = "none", n_features = 2),
               "Selector 'f' ranked 1 features, fewer than max\\(n_features\\) = 2")
  expect_error(evaluate_selection(t$x, t$y, selectors = list(f = function(x, y) c("g1", "zz")),
                                  classifier = "none", n_features = 2),
               "Selector 'f' returned features not in 'x': zz")
  expect_error(evaluate_selection(t$x, t$y, selectors = list(f = function(x, y) list(1)),
                                  classifier = "none", n_features = 2),
               "Selector 'f' must return a selection")
  expect_error(evaluate_selection(t$x, t$y, selectors = "t", folds = 21, classifier = "none",
                                  n_features = 2), "'folds' = 21 is more than the 20 samples")
  expect_error(evaluate_selection(t$x, t$y, selectors = "t", folds = 1, classifier = "none",
                                  n_features = 2), "'folds' must be a whole number of at least 2")
  expect_error(evaluate_selection(t$x, t$y, selectors = "t", n_features = 11,
                                  classifier = "none"),
               "'n_features' must be whole numbers between 1 and the 10 features")
  expect_error(evaluate_selection(t$x, t$y, selectors = "t", n_features = 2,
                                  tune = list(C = -1, sigma = 1)), "'tune\\$C' must be positive")
  expect_error(evaluate_selection(t$x, t$y, selectors = "t", n_features = 2,
                                  tune = list(C = 1, sigma = "wide")), "'tune\\$sigma' must be")
  expect_error(evaluate_selection(t$x, t$y, selectors = "t", n_features = 2, classifier = "none",
                                  parallel = 2), "'parallel' must be NULL")
  expect_error(evaluate_selection(t$x, cbind(1:20, 20:1), selectors = "t", n_features = 2,
                                  classifier = "none"), "needs one outcome")
  x_na <- t$x
  x_na[3, 2] <- NA
  expect_error(evaluate_selection(x_na, t$y, selectors = "t", n_features = 2, classifier = "none"),
               "missing values")
  y3 <- factor(c(rep("a", 9), rep("b", 9), "c", "c"))
  expect_warning(evaluate_selection(t$x, y3, selectors = "pam", n_features = 2, folds = 4,
                                    classifier = "none"),
                 "class 'c' has fewer samples than the 4 folds: some test folds miss it")
})
