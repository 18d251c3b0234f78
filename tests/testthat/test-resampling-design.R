# Resampling that respects the study design: folds and halves keep blocks
# together, are stratified by the design's discrete covariates, every fit gets
# the design of its rows, and selection_test() permutes within strata.

# Paired samples (one of each class per pair) whose features carry a huge
# pair effect and no class signal.
paired_data <- function(seed, np = 20, p = 20) {
  set.seed(seed)
  pair <- factor(rep(seq_len(np), each = 2))
  y <- factor(rep(c("a", "b"), np))
  x <- matrix(stats::rnorm(np * p, sd = 5), np, p)[as.integer(pair), ] +
    matrix(stats::rnorm(2 * np * p, sd = 0.3), 2 * np, p)
  colnames(x) <- paste0("g", seq_len(p))
  list(x = x, y = y, pair = pair)
}

blocks_together <- function(groups, block) {
  all(vapply(split(groups, block), function(g) length(unique(g)) == 1L, NA))
}

test_that("the leak: with block = pair the cross-validated error is honest (near chance)", {
  skip_if_not_installed("kernlab")
  d <- paired_data(1)
  seen <- list()
  top5 <- function(x, y, covariates = NULL, block = NULL) {
    seen[[length(seen) + 1L]] <<- block
    colnames(x)[1:5]
  }
  tune <- list(C = 1, sigma = "median")
  # random folds split the pairs: the test sample's partner, of the other
  # class, sits in the training fold and the SVM predicts the partner's class
  leaky <- evaluate_selection(d$x, d$y, selectors = list(top5 = top5), n_features = 5,
                              folds = 5, tune = tune)
  expect_gt(mean(leaky$results$error), 0.7)
  honest <- evaluate_selection(d$x, d$y, selectors = list(top5 = top5), n_features = 5,
                               folds = 5, tune = tune, block = d$pair)
  expect_gte(mean(honest$results$error), 0.35)
  expect_lte(mean(honest$results$error), 0.65)
  # no pair is split between a training and a test fold
  expect_true(blocks_together(honest$folds[, 1], d$pair))
  # every fit got the blocks of its training rows: whole pairs
  # (the leaky run's selector got no block: `seen[[i]] <<- NULL` adds nothing)
  expect_length(seen, 5L)
  expect_true(all(vapply(seen, function(b) all(table(b) == 2L), NA)))
  expect_match(paste(utils::capture.output(print(honest)), collapse = "\n"),
               "design: block \\(20 blocks\\)")
})

test_that("evaluate_selection() folds are stratified by a batch and refuse folds that split a block", {
  d <- paired_data(2)
  batch <- factor(rep(c("b1", "b2"), each = 20))
  ev <- evaluate_selection(d$x, d$y, selectors = list(top = function(x, y, covariates, block) {
    expect_s3_class(covariates$covariate, "factor")
    colnames(x)[1:3]
  }), n_features = 3, folds = 4, classifier = "none", covariates = batch, block = d$pair)
  f <- ev$folds[, 1]
  expect_true(blocks_together(f, d$pair))
  # each fold holds 5 pairs: the 10 pairs of each batch spread 2 or 3 per fold
  per_fold <- table(f, batch) / 2
  expect_true(all(per_fold >= 2 & per_fold <= 3))
  split_pairs <- rep(1:2, 20)
  expect_error(evaluate_selection(d$x, d$y, selectors = list(top = function(x, y) colnames(x)[1:3]),
                                  n_features = 3, folds = split_pairs, classifier = "none",
                                  block = d$pair),
               "block.*different folds")
  # a selector function without design arguments ranks without it, with a warning
  expect_warning(evaluate_selection(d$x, d$y, selectors = list(top = function(x, y) colnames(x)[1:3]),
                                    n_features = 3, folds = 4, classifier = "none",
                                    block = d$pair),
                 "takes no 'covariates' or 'block'")
})

test_that("stability halves keep blocks together and are balanced by batch", {
  d <- paired_data(3)
  batch <- factor(rep(c("b1", "b2"), each = 20))
  sel <- function(x, y, n, covariates = NULL, block = NULL) {
    stopifnot(all(table(block) == 2L), nlevels(covariates$covariate) == 2L)
    colnames(x)[seq_len(n)]
  }
  st <- stability_selection(d$x, d$y, selector = sel, n_features = 3, n_subsamples = 6,
                            covariates = batch, block = d$pair)
  expect_equal(dim(st$subsamples), c(20L, 12L))
  for (i in seq_len(ncol(st$subsamples))) {
    rows <- st$subsamples[, i]
    expect_true(all(table(droplevels(d$pair[rows])) == 2L))
    expect_equal(as.vector(table(batch[rows])), c(10L, 10L))
  }
  # complementary: the two halves of a draw share no pair
  expect_length(intersect(d$pair[st$subsamples[, 1]], d$pair[st$subsamples[, 2]]), 0L)
  expect_equal(st$settings$design, "~ covariate; block (20 blocks)")
  # blocks of unequal sizes: halves of unequal sizes, reported and warned about
  blk <- factor(c(rep(1:5, each = 2), rep(6:8, each = 10)))
  y2 <- factor(c(rep(c("a", "b"), 5), rep(c("a", "b"), 15)))
  sel_block <- function(x, y, n, block) colnames(x)[seq_len(n)]
  expect_warning(st2 <- stability_selection(d$x, y2, selector = sel_block, n_features = 3,
                                            n_subsamples = 3, block = blk),
                 "differ in size")
  expect_type(st2$subsamples, "list")
  expect_equal(st2$path$n_samples, lengths(st2$subsamples))
  for (rows in st2$subsamples) {
    kept <- droplevels(blk[rows])
    expect_equal(as.vector(table(kept)), as.vector(table(blk)[levels(kept)]))
  }
})

test_that("selection_test() permutes within blocks and strata", {
  d <- paired_data(4, np = 12, p = 12)
  batch <- factor(rep(c("b1", "b2"), each = 12))
  x <- d$x
  y <- d$y
  pair <- d$pair
  ys <- list()
  mysel <- function(x, y, covariates = NULL, block = NULL) {
    ys[[length(ys) + 1L]] <<- y
    bahsic(x, y, n_features = 2, threads = 1L)
  }
  fit <- bahsic(x, y, threads = 1L)
  fit$call <- quote(mysel(x = x, y = y))
  set.seed(1)
  tt <- selection_test(fit, n = 2, n_perm = 6, block = pair)
  expect_length(ys, 6L)
  # within pairs: every pair keeps one sample of each class
  for (yb in ys) expect_true(all(table(pair, yb) == 1L))
  expect_match(tt$method, "within strata")
  # the design of the fit's call, when selection_test() is given none
  ys <- list()
  fit$call <- quote(mysel(x = x, y = y, covariates = batch))
  selection_test(fit, n = 2, n_perm = 5)
  for (yb in ys) expect_equal(as.vector(table(batch, yb)), as.vector(table(batch, y)))
  expect_error(selection_test(fit, n = 2, n_perm = 5, covariates = stats::rnorm(24)),
               "selection_test\\(\\) cannot permute within a continuous covariate")
})

test_that("blocks too few for the folds or the halves are errors that say so", {
  d <- paired_data(5, np = 6, p = 6)
  top <- function(x, y, covariates = NULL, block = NULL) colnames(x)[1:2]
  # (a warning too: each class has fewer samples than folds)
  expect_error(suppressWarnings(evaluate_selection(d$x, d$y, selectors = list(top = top),
                                                   n_features = 2, folds = 7,
                                                   classifier = "none", block = d$pair)),
               "'folds' = 7 is more than the 6 blocks")
  # a class whose samples are all in one block cannot reach both halves
  y <- factor(c("a", "b", rep("a", 10)))
  blk <- factor(rep(1:6, each = 2))
  expect_error(suppressWarnings(stability_selection(d$x, y, selector = function(x, y, n, block) {
    colnames(x)[seq_len(n)]
  }, n_features = 2, n_subsamples = 2, block = blk)), "Class \"b\" of 'y' is in 1 block")
})
