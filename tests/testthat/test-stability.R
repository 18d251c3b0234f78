# stability_selection() (R/stability.R): complementary pairs of halves (Shah
# and Samworth 2013), selection probabilities, the error bound of
# stabs::stabsel_parameters(), and the same result for every back end.

stab_noise <- function(m = 100, p = 400) {
  x <- matrix(stats::rnorm(m * p), m, p, dimnames = list(NULL, paste0("g", seq_len(p))))
  list(x = x, y = factor(rep(c("a", "b"), length.out = m)))
}

# Welch's t in plain R, the oracle of selector = "t": the top n by |t|, ties
# by column order.
welch_top <- function(x, y, n) {
  a <- y == levels(y)[1L]
  t <- apply(x, 2L, function(v) {
    (mean(v[!a]) - mean(v[a])) / sqrt(stats::var(v[!a]) / sum(!a) + stats::var(v[a]) / sum(a))
  })
  order(-abs(t), seq_along(t))[seq_len(n)]
}

test_that("the halves are disjoint, of floor(m / 2) samples, and stratified by class", {
  set.seed(1)
  y <- factor(c(rep("a", 13), rep("b", 8), rep("c", 6)))
  s <- bahsic:::stab_subsamples(y, 20L, "complementary")
  expect_identical(dim(s), c(13L, 40L))
  for (b in seq_len(20)) {
    h1 <- s[, 2 * b - 1]
    h2 <- s[, 2 * b]
    expect_length(intersect(h1, h2), 0L)
    expect_false(anyDuplicated(h1) > 0)
    for (h in list(h1, h2)) {
      n <- as.vector(table(y[h]))
      # a class of n_k samples gives floor(n_k / 2) (+ 1 for its odd sample)
      expect_true(all(n >= c(6, 4, 3) & n <= c(7, 4, 3)))
    }
  }
  # single halves for "subsample"
  expect_identical(dim(bahsic:::stab_subsamples(y, 7L, "subsample")), c(13L, 7L))
  # a numeric outcome: any halves
  s <- bahsic:::stab_subsamples(stats::rnorm(11), 3L, "complementary")
  expect_identical(dim(s), c(5L, 6L))
  expect_length(intersect(s[, 1], s[, 2]), 0L)
})

test_that("the probabilities are the fraction of fits selecting a feature (oracle: Welch's t in R)", {
  set.seed(2)
  d <- stab_noise(30, 25)
  d$x[, 3] <- d$x[, 3] + 1.5 * (d$y == "b")
  fit <- stability_selection(d$x, d$y, selector = "t", n_features = 4, n_subsamples = 10)
  expect_s3_class(fit, "bahsic_selection")
  expect_identical(fit$method, "stability")
  expect_identical(ncol(fit$subsamples), 20L)
  counts <- integer(25)
  for (i in seq_len(20)) {
    rows <- fit$subsamples[, i]
    top <- welch_top(d$x[rows, ], droplevels(d$y[rows]), 4)
    expect_identical(fit$selections[[i]], colnames(d$x)[top])
    counts[top] <- counts[top] + 1L
  }
  f <- fit$features
  expect_equal(f$probability, counts / 20)
  stable <- counts / 20 >= 0.75
  expect_identical(!is.na(f$rank), stable)
  expect_equal(f$score[stable], f$probability[stable])
  expect_true(all(is.na(f$score[!stable])))
  expect_true("g3" %in% selected(fit))
  expect_identical(selected(fit), fit$ranking)
  # ranked by probability
  expect_false(is.unsorted(rev(f$probability[match(selected(fit), f$feature)])))
  expect_identical(fit$path$n_features, rep(4L, 20))
  expect_identical(fit$path$draw, rep(1:10, each = 2))
})

test_that("the bound is stabs::stabsel_parameters()'s, for any two of n_features, cutoff, pfer", {
  set.seed(3)
  d <- stab_noise(20, 50)
  fit <- stability_selection(d$x, d$y, selector = "t", n_features = 5, n_subsamples = 5)
  ref <- stabs::stabsel_parameters(p = 50, q = 5, cutoff = 0.75, B = 5, sampling.type = "SS",
                                   assumption = "unimodal")
  expect_equal(fit$settings$pfer, ref$PFER)
  expect_identical(fit$settings$B, 5L)
  fit <- stability_selection(d$x, d$y, selector = "t", pfer = 1, n_subsamples = 5,
                             assumption = "none")
  ref <- stabs::stabsel_parameters(p = 50, cutoff = 0.75, PFER = 1, B = 5,
                                   sampling.type = "SS", assumption = "none")
  expect_identical(fit$settings$q, as.integer(ref$q))
  expect_equal(fit$settings$pfer, ref$PFER)
  fit <- stability_selection(d$x, d$y, selector = "t", pfer = 1, n_features = 4,
                             n_subsamples = 5, sampling = "subsample")
  ref <- stabs::stabsel_parameters(p = 50, q = 4, PFER = 1, B = 5, sampling.type = "MB")
  expect_equal(fit$settings$cutoff, ref$cutoff)
  expect_identical(fit$settings$assumption, "none")
  expect_identical(ncol(fit$subsamples), 5L)
  expect_output(print(fit), "pfer: ", fixed = TRUE)
})

test_that("on pure noise the mean number of stable features stays under the PFER bound", {
  skip_statistical_under_checkers("20 stability selections")
  set.seed(4)
  n_false <- numeric(20)
  for (r in seq_len(20)) {
    d <- stab_noise(100, 400)
    fit <- stability_selection(d$x, d$y, selector = "t", n_features = 10, cutoff = 0.75,
                               n_subsamples = 25)
    n_false[r] <- length(selected(fit))
  }
  bound <- fit$settings$pfer
  expect_gt(bound, 0)
  expect_lt(mean(n_false), bound)
})

test_that("BAHSIC finds both relevant features of simulate_xor(200)", {
  set.seed(5)
  sim <- simulate_xor(200)
  set.seed(6)
  fit <- stability_selection(sim$x, sim$y, n_features = 2, n_subsamples = 10, threads = 1)
  expect_true(all(c("X1", "X2") %in% selected(fit)))
  expect_identical(fit$settings$selector, "bahsic")
  # the threads do not change the result (nor anything in it but the call)
  set.seed(6)
  fit2 <- stability_selection(sim$x, sim$y, n_features = 2, n_subsamples = 10, threads = 2)
  expect_identical(fit[names(fit) != "call"], fit2[names(fit2) != "call"])
})

test_that("a user function selector: names or column numbers, its own arguments", {
  set.seed(6)
  d <- stab_noise(30, 20)
  first <- function(x, y, n) colnames(x)[seq_len(n)]
  fit <- stability_selection(d$x, d$y, selector = first, n_features = 3, n_subsamples = 5)
  expect_identical(selected(fit), c("g1", "g2", "g3"))
  expect_equal(fit$features$probability, rep(c(1, 0), c(3, 17)))
  expect_identical(fit$settings$selector, "function")
  last <- function(x, y, n, from) rev(seq_len(ncol(x)))[seq_len(n)] - from
  fit <- stability_selection(d$x, d$y, selector = last, n_features = 2, n_subsamples = 5,
                             from = 1)
  expect_identical(selected(fit), c("g19", "g18"))
  expect_error(stability_selection(d$x, d$y, selector = first, n_features = 2, n_subsamples = 2,
                                   form = 1), "no argument 'form'", fixed = TRUE)
  too_many <- function(x, y, n) seq_len(n + 1)
  expect_error(stability_selection(d$x, d$y, selector = too_many, n_features = 2,
                                   n_subsamples = 2), "at most n = 2", fixed = TRUE)
  expect_error(stability_selection(d$x, d$y, selector = function(x, y, n) "nope",
                                   n_features = 2, n_subsamples = 2), "not in 'x'")
})

test_that("the formula method and a feature_scores() method with its arguments", {
  set.seed(7)
  d <- stab_noise(30, 6)
  d$x[, 2] <- d$x[, 2] + 2 * (d$y == "b")
  df <- data.frame(cls = d$y, d$x)
  fit <- stability_selection(cls ~ ., data = df, selector = "mt", n_features = 1,
                             n_subsamples = 5)
  expect_identical(selected(fit), "g2")
  expect_identical(fit$call[[1L]], as.name("stability_selection"))
  fit <- stability_selection(d$x, d$y, selector = "hsic", n_features = 1, n_subsamples = 3,
                             kernel = kernel_linear())
  expect_identical(selected(fit), "g2")
})

test_that("serial, future and BiocParallel runs give the same result and leave the same stream", {
  skip_on_cran()
  skip_if(under_valgrind(), "under valgrind: starts R workers")
  set.seed(8)
  d <- stab_noise(40, 30)
  d$x[, 5] <- d$x[, 5] + (d$y == "b")
  # a random selector: each fit runs from its own seed
  noisy <- function(x, y, n) {
    a <- y == levels(y)[1L]
    s <- abs(colMeans(x[!a, , drop = FALSE]) - colMeans(x[a, , drop = FALSE])) +
      stats::runif(ncol(x), 0, 0.5)
    order(-s)[seq_len(n)]
  }
  run <- function(parallel) {
    set.seed(9)
    fit <- stability_selection(d$x, d$y, selector = noisy, n_features = 3, n_subsamples = 6,
                               parallel = parallel)
    list(fit = fit, after = stats::runif(1))
  }
  serial <- run(NULL)
  expect_true("g5" %in% serial$fit$features$feature[serial$fit$features$probability > 0.5])
  if (requireNamespace("future", quietly = TRUE) &&
      requireNamespace("future.apply", quietly = TRUE)) {
    old <- future::plan(future::multisession, workers = 2)
    on.exit(future::plan(old), add = TRUE)
    fut <- run("future")
    expect_identical(fut$fit$features, serial$fit$features)
    expect_identical(fut$fit$selections, serial$fit$selections)
    expect_identical(fut$after, serial$after)
  }
  if (requireNamespace("BiocParallel", quietly = TRUE)) {
    bp <- run(BiocParallel::SnowParam(workers = 2, type = "SOCK"))
    expect_identical(bp$fit$features, serial$fit$features)
    expect_identical(bp$fit$subsamples, serial$fit$subsamples)
    expect_identical(bp$after, serial$after)
  }
})

test_that("bad input gives errors that name the argument", {
  set.seed(10)
  d <- stab_noise(20, 10)
  ss <- function(...) stability_selection(d$x, d$y, selector = "t", n_subsamples = 2, ...)
  expect_error(ss(n_features = 10), "'n_features' must be a whole number from 1 to 9")
  expect_error(ss(n_features = 0), "'n_features'")
  expect_error(ss(n_features = 2, cutoff = 0.5), "'cutoff' must be a single number in (0.5, 1]",
               fixed = TRUE)
  expect_error(ss(n_features = 2, cutoff = 1.2), "'cutoff'")
  expect_error(ss(), "Give 'n_features'")
  expect_error(ss(n_features = 2, cutoff = 0.8, pfer = 1), "Give two of")
  expect_error(ss(pfer = -1), "'pfer' must be a single positive number")
  expect_error(ss(pfer = 1e-4), "Raise 'pfer'")
  expect_error(stability_selection(d$x, d$y, selector = "t", n_features = 2, n_subsamples = 0),
               "'n_subsamples'")
  expect_error(ss(n_features = 2, sampling = "subsample", assumption = "unimodal"),
               "not used with sampling = \"subsample\"", fixed = TRUE)
  expect_error(ss(n_features = 2, sampling = "boot"), "'sampling'")
  expect_error(stability_selection(d$x[1:5, ], d$y[1:5], selector = "t", n_features = 2),
               "at least 6 samples")
  y1 <- factor(c("a", rep("b", 19)))
  expect_error(stability_selection(d$x, y1, selector = "t", n_features = 2),
               "Class \"a\" of 'y' has 1 sample")
  expect_error(stability_selection(d$x, d$y, n_features = 2, selector = "bahsci"),
               "Did you mean \"bahsic\"?",
               fixed = TRUE)
  expect_error(stability_selection(d$x, d$y, selector = "bahsic", n_features = 2, kernal = 1),
               "Did you mean 'kernel'", fixed = TRUE)
  expect_error(stability_selection(d$x, d$y, selector = "randsel", n_features = 2,
                                   stop_at = 3), "'stop_at' is set by stability_selection()",
               fixed = TRUE)
  expect_error(stability_selection(d$x, d$y, selector = "hsic_weights", n_features = 2),
               "needs 'lambda'")
  expect_error(ss(n_features = 2, kernel = kernel_linear()), "'kernel' is not used with")
  expect_error(stability_selection(d$x, d$y, selector = function(x) 1, n_features = 2),
               "must take (x, y, n)", fixed = TRUE)
  dup <- d$x
  colnames(dup)[2] <- "g1"
  # the normaliser makes duplicated names unique, as for every selector
  expect_warning(fit <- stability_selection(dup, d$y, selector = "t", n_features = 2,
                                            n_subsamples = 2), "duplicated feature names")
  expect_false(anyDuplicated(fit$features$feature) > 0)
})

test_that("plot() draws the probabilities and refuses 'chosen'", {
  set.seed(11)
  d <- stab_noise(20, 12)
  fit <- stability_selection(d$x, d$y, selector = "t", n_features = 2, n_subsamples = 3)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_identical(plot(fit), fit)
  expect_identical(plot(fit, main = "mine", col = "blue"), fit)
  expect_error(plot(fit, chosen = 1), "'chosen' is not used")
  expect_error(plot(fit, colour = 2), "no argument 'colour'")
})

# ---- a censored survival outcome ---------------------------------------------------

test_that("with a Surv outcome the halves are stratified by event", {
  skip_if_not_installed("survival")
  set.seed(11)
  s <- simulate_survival(61, p = 10, censoring = 0.4)
  h <- stab_subsamples(s$y, 4, "complementary")
  ev <- apply(h, 2, function(r) sum(surv_event(s$y[r])))
  k <- sum(surv_event(s$y))
  # each pair of halves shares the events evenly
  expect_true(all(abs(ev[c(TRUE, FALSE)] - ev[c(FALSE, TRUE)]) <= 1))
  expect_true(all(ev >= floor(k / 2) - 1))
  few <- survival::Surv(surv_time(s$y), c(1, 1, 1, rep(0, 58)))
  expect_error(stability_selection(s$x, few, selector = "fohsic", n_features = 2,
                                   n_subsamples = 2),
               "Stability selection \\(2 events in every half\\) needs at least 4 events; 'y' has 3")
  # a selector without survival refuses by name, before any fit
  expect_error(stability_selection(s$x, s$y, selector = "t", n_features = 2, n_subsamples = 2),
               "selector = \"t\" compares two classes")
})

test_that("with a Surv outcome and a block, halves keep blocks and split the events", {
  skip_if_not_installed("survival")
  set.seed(12)
  s <- simulate_survival(60, p = 10, censoring = 0.3)
  blk <- factor(rep(seq_len(30), each = 2))
  top <- function(x, y, n, covariates = NULL, block = NULL) {
    order(-abs(drop(crossprod(x, surv_scores(y)))))[seq_len(n)]
  }
  st <- stability_selection(s$x, s$y, selector = top, n_features = 2, n_subsamples = 3,
                            block = blk)
  halves <- if (is.list(st$subsamples)) st$subsamples else
    lapply(seq_len(ncol(st$subsamples)), function(i) st$subsamples[, i])
  for (h in halves) {
    expect_true(all(table(droplevels(blk[h])) == 2L))
  }
  ev <- vapply(halves, function(h) sum(surv_event(s$y[h])), 0)
  expect_true(all(abs(ev[c(TRUE, FALSE)] - ev[c(FALSE, TRUE)]) <= 2))
  blk6 <- factor(rep(seq_len(10), each = 6))
  one <- survival::Surv(surv_time(s$y), as.numeric(blk6 == "1"))
  expect_error(stability_selection(s$x, one, selector = top, n_features = 2, n_subsamples = 2,
                                   block = blk6),
               "The events of 'y' are all in one block")
})

test_that("stability selection with a Surv outcome finds the planted log-linear gene", {
  skip_if_not_installed("survival")
  skip_statistical_under_checkers("stability selection with a Surv outcome")
  set.seed(13)
  s <- simulate_survival(80, p = 30, effect = 1.5, n_u = 0, censoring = 0.3)
  st <- stability_selection(s$x, s$y, selector = "fohsic", n_features = 3, n_subsamples = 5)
  expect_identical(selected(st, 1), s$truth$linear)
})

test_that("stability selection by BAHSIC takes a Surv outcome", {
  skip_if_not_installed("survival")
  skip_statistical_under_checkers("stability selection with a Surv outcome")
  set.seed(13)
  s <- simulate_survival(80, p = 30, effect = 1.5, n_u = 0, censoring = 0.3)
  st <- stability_selection(s$x, s$y, selector = "bahsic", n_features = 3, n_subsamples = 5)
  expect_identical(selected(st, 1), s$truth$linear)
})

test_that("the fits across forked workers give the result of the fits one after another", {
  skip_on_os("windows") # no fork: the fits run one after another there
  skip_if(under_valgrind(), "under valgrind: R's forked workers, not our code")
  skip_if(bahsic:::max_threads() < 2L, "one core")
  expect_identical(bahsic:::fork_workers(2L, 10L), 2L)
  # R CMD check's limit of 2 cores (_R_CHECK_LIMIT_CORES_) caps the workers
  limit <- toupper(Sys.getenv("_R_CHECK_LIMIT_CORES_"))
  expect_identical(bahsic:::fork_workers(8L, 3L),
                   if (nzchar(limit) && limit != "FALSE") 2L else 3L)
  expect_identical(bahsic:::fork_workers(1L, 10L), 1L)
  # a selector's fits go across; a feature_scores() method's, or with a back end, stay
  expect_identical(bahsic:::stab_workers(list(name = "bahsic"), NULL, 2L, 10L), 2L)
  expect_identical(bahsic:::stab_workers(list(name = "mt"), NULL, 2L, 10L), 1L)
  expect_identical(bahsic:::stab_workers(list(name = "bahsic"), "future", 2L, 10L), 1L)
  # a forked child runs its fits one after another
  expect_identical(parallel::mclapply(1:2, function(i) bahsic:::fork_workers(2L, 10L),
                                      mc.cores = 2L), list(1L, 1L))
  set.seed(8)
  d <- stab_noise(30, 40)
  d$x[, 5] <- d$x[, 5] + (d$y == "b")
  # a random selector: each fit runs from its own seed
  noisy <- function(x, y, n) {
    a <- y == levels(y)[1L]
    s <- abs(colMeans(x[!a, , drop = FALSE]) - colMeans(x[a, , drop = FALSE])) +
      stats::runif(ncol(x), 0, 0.5)
    order(-s)[seq_len(n)]
  }
  run <- function(selector, threads, parallel = NULL, bar = TRUE) {
    old <- options(progressr.enable = bar)
    on.exit(options(old))
    set.seed(9)
    fit <- stability_selection(d$x, d$y, selector = selector, n_features = 3, n_subsamples = 5,
                               threads = threads, parallel = parallel)
    fit$call <- NULL
    list(fit = fit, after = stats::runif(1))
  }
  for (selector in list("bahsic", noisy)) {
    one <- run(selector, 1L)
    expect_identical(run(selector, 2L), one)               # forked, a bar: chunks
    expect_identical(run(selector, 2L, bar = FALSE), one)  # forked, one mclapply()
  }
  skip_if_not_installed("future.apply")
  expect_identical(run(noisy, 2L, parallel = future::sequential), run(noisy, 1L))
})

test_that("forked workers share the memory budget, and a fit over its share says so", {
  skip_on_os("windows")
  skip_if(bahsic:::max_threads() < 2L, "one core")
  d <- stab_noise(20, 10)
  old <- options(bahsic.max_memory = "1 GiB")
  on.exit(options(old))
  # each worker sees its share of the budget, and the session's option is unchanged
  share <- function(x, y, n) {
    if (getOption("bahsic.max_memory") != 1024^3 / 2) stop("not the worker's share")
    seq_len(n)
  }
  set.seed(1)
  expect_no_error(stability_selection(d$x, d$y, selector = share, n_features = 2,
                                      n_subsamples = 4, threads = 2L))
  expect_identical(getOption("bahsic.max_memory"), "1 GiB")
  # a fit over its share: the selector's own error, with the share and what to do
  big <- function(x, y, n) {
    bahsic:::check_size(0.75 * 1024^3, "n", n, "a test's workspace")
    seq_len(n)
  }
  expect_error(stability_selection(d$x, d$y, selector = big, n_features = 2, n_subsamples = 4,
                                   threads = 2L),
               "2 forked workers run the fits at once, each within 0.5 GiB, its share of the budget of 1.0 GiB",
               fixed = TRUE)
  # one after another (threads = 1) the whole budget is the fit's
  expect_no_error(stability_selection(d$x, d$y, selector = big, n_features = 2,
                                      n_subsamples = 4, threads = 1L))
})

test_that("an error in a forked worker stops the run with its message", {
  skip_on_os("windows")
  skip_if(bahsic:::max_threads() < 2L, "one core")
  d <- stab_noise(20, 10)
  bad <- function(x, y, n) stop("no fit on this half")
  set.seed(1)
  expect_error(stability_selection(d$x, d$y, selector = bad, n_features = 2, n_subsamples = 4,
                                   threads = 2L), "no fit on this half")
  # a worker killed (as by the out-of-memory killer) is an error, not a result
  die <- function(x, y, n) {
    tools::pskill(Sys.getpid(), tools::SIGKILL)
    seq_len(n)
  }
  expect_error(stability_selection(d$x, d$y, selector = die, n_features = 2, n_subsamples = 2,
                                   threads = 2L), "got no result from their forked worker")
})
