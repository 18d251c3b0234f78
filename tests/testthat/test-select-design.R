# The selectors under a study design (R/select-design.R): the label projected
# off the covariates and blocks, the confounded-study check, the refusals.

rank_of <- function(fit, genes) fit$features$rank[match(genes, fit$features$feature)]

test_that("bahsic() with covariates drops the batch genes and finds the within-batch signal", {
  skip_statistical_under_checkers("two selections of 300 genes on a confounded study")
  set.seed(1)
  sim <- bahsic:::simulate_confounded()
  none <- bahsic(sim$x, sim$y, threads = 1L)
  adj <- bahsic(sim$x, sim$y, threads = 1L, covariates = ~ batch, data = sim$data)
  # with the covariates: the XOR pair and the linear gene are the top 3 (the
  # pair seeded by the screen), no batch gene is a seed, and the batch genes
  # rank as the noise genes do (residualised on the batch, they are noise)
  expect_setequal(selected(adj, 3), sim$truth)
  expect_length(intersect(adj$screen$seeds, sim$batch_genes), 0L)
  expect_gt(median(rank_of(adj, sim$batch_genes)), 75)
  expect_true(all(c("xor1", "xor2") %in% adj$screen$seeds))
  # without them the batch genes are selected: most of the top 10
  expect_gte(length(intersect(selected(none, 10), sim$batch_genes)), 7L)
  expect_lt(median(rank_of(none, sim$batch_genes)), 20)
  expect_true(any(sim$batch_genes %in% none$screen$seeds))
  expect_identical(adj$settings$design, "~batch")
  expect_output(print(adj), "design: ~batch")
})

test_that("every selector that adjusts ranks the within-batch gene first given the batch", {
  set.seed(1)
  sim <- bahsic:::simulate_confounded(n = 80, p = 40, n_batch_genes = 8)
  args <- list(fohsic = list(), mrmr = list(n_features = 40), randsel = list(n_boot = 100),
               hsic_weights = list(lambda = 0, max_iter = 5), l1_hsic = list(n_features = 5,
                                                                             restarts = 1))
  for (name in names(args)) {
    none <- do.call(name, c(list(sim$x, sim$y), args[[name]]))
    adj <- do.call(name, c(list(sim$x, sim$y, covariates = ~ batch, data = sim$data),
                           args[[name]]))
    expect_identical(rank_of(adj, "linear"), 1L, label = name)
    expect_gt(median(rank_of(adj, sim$batch_genes)), median(rank_of(none, sim$batch_genes)),
              label = name)
    expect_identical(adj$settings$design, "~batch", label = name)
  }
})

test_that("the exact path: residualised genes against W = P L P / (m - 1)^2", {
  set.seed(3)
  sim <- bahsic:::simulate_confounded(n = 60, p = 12, n_batch_genes = 4)
  fit <- bahsic(sim$x, sim$y, kernel = kernel_linear(), covariates = sim$batch)
  # the linear kernel ranks by x_j' W x_j: the squared covariance of the gene
  # residualised on the batch and standardised with the label features
  # projected off the batch
  Y <- bahsic:::label_gram(label_kernel_binary(), sim$y)$Y
  PY <- residuals(lm(Y ~ sim$batch))
  s <- colSums(scale(residuals(lm(sim$x ~ sim$batch))) * PY)^2
  expect_identical(selected(fit, 12), colnames(sim$x)[order(-s)])
  # approx = "block" with one block of all samples is the exact estimate
  blk <- bahsic(sim$x, sim$y, covariates = sim$batch, screen = "none",
                approx = approx_block(size = 60))
  ex <- bahsic(sim$x, sim$y, covariates = sim$batch, screen = "none")
  expect_identical(blk$ranking, ex$ranking)
  expect_equal(blk$features$score, ex$features$score, tolerance = 1e-10)
  # the low-rank paths take the projected label factor
  set.seed(4)
  rff <- bahsic(sim$x, sim$y, covariates = sim$batch, approx = approx_rff(n_features = 50))
  expect_identical(rff$settings$design, "~ covariate")
  ic <- bahsic(sim$x, sim$y, covariates = sim$batch, approx = "ichol")
  expect_setequal(ic$ranking, colnames(sim$x))
})

test_that("without a design every result stays as it was", {
  set.seed(5)
  sim <- bahsic:::simulate_confounded(n = 40, p = 30, n_batch_genes = 4)
  expect_identical(bahsic(sim$x, sim$y, covariates = NULL, block = NULL)[c("features", "path")],
                   bahsic(sim$x, sim$y)[c("features", "path")])
  expect_null(bahsic(sim$x, sim$y)$settings$design)
})

test_that("every selector takes covariates and block, or refuses by name", {
  set.seed(6)
  sim <- bahsic:::simulate_confounded(n = 48, p = 10, n_batch_genes = 2)
  pair <- factor(rep(seq_len(24), each = 2))
  small <- list(bahsic = list(), fohsic = list(), mrmr = list(n_features = 3),
                randsel = list(n_boot = 20), hsic_weights = list(lambda = 0, max_iter = 2),
                l1_hsic = list(n_features = 2, restarts = 1), l1_lsmi = list(n_features = 2),
                clinical_rfe = list())
  expect_setequal(names(small), bahsic:::selector_names())
  for (name in bahsic:::selector_names()) {
    design <- bahsic:::selector_field(name, "design")
    for (d in list(list(covariates = ~ batch, data = sim$data), list(block = pair))) {
      call <- c(list(sim$x, sim$y), d, small[[name]])
      if (identical(design, "adjusts")) {
        fit <- suppressWarnings(do.call(name, call))
        expect_s3_class(fit, "bahsic_selection")
        expect_type(fit$settings$design, "character")
      } else {
        expect_error(do.call(name, call),
                     sprintf("%s() cannot adjust for covariates or blocks", name), fixed = TRUE)
      }
    }
  }
})

test_that("formula calls drop the covariates' columns from the features", {
  set.seed(7)
  sim <- bahsic:::simulate_confounded(n = 48, p = 8, n_batch_genes = 2)
  d <- data.frame(y = sim$y, batch = sim$batch, sim$x)
  fit <- bahsic(y ~ ., data = d, covariates = ~ batch)
  expect_false(any(grepl("batch", fit$features$feature) & !fit$features$feature %in%
                     sim$batch_genes))
  expect_setequal(fit$features$feature, colnames(sim$x))
  expect_identical(fit$settings$design, "~batch")
  m <- mrmr(y ~ ., data = d, covariates = ~ batch, n_features = 3)
  expect_identical(m$settings$design, "~batch")
  expect_error(l1_lsmi(y ~ ., data = d, covariates = ~ batch, n_features = 2),
               "l1_lsmi() cannot adjust", fixed = TRUE)
})

test_that("the unbiased estimator and block partitions with a block are refused", {
  set.seed(8)
  sim <- bahsic:::simulate_confounded(n = 40, p = 6, n_batch_genes = 2)
  expect_error(bahsic(sim$x, sim$y, covariates = sim$batch, estimator = "unbiased"),
               "bahsic() with estimator = \"unbiased\" cannot adjust", fixed = TRUE)
  expect_error(hsic_weights(sim$x, sim$y, lambda = 0, covariates = sim$batch,
                            estimator = "unbiased"),
               "hsic_weights() with estimator = \"unbiased\" cannot adjust", fixed = TRUE)
  expect_error(fohsic(sim$x, sim$y, block = rep(1:20, 2), approx = "block"),
               "approx = \"block\" and a block cannot adjust", fixed = TRUE)
  expect_error(bahsic(sim$x, sim$y, covariates = sim$batch, approx = approx_block(size = 5)),
               "a block of 5 samples cannot be adjusted", fixed = TRUE)
  # the samples' annotation without a covariate formula or block to read in it
  expect_error(randsel(sim$x, sim$y, data = sim$data),
               "'data' belongs to the formula interface, randsel(y ~ ., data = d)", fixed = TRUE)
})

test_that("the screen under blocks seeds no null gene (its tests re-checked within the pairs)", {
  skip_statistical_under_checkers("a screen of 300 null genes in pairs")
  set.seed(5)
  pair <- rep(1:20, 2)
  y <- factor(rep(c("n", "t"), each = 20))
  # a strong pair effect and no effect of y: the one-pass gamma with the
  # moments of all permutations seeded dozens of such genes
  x <- matrix(rnorm(40 * 300), 40, 300) + 3 * matrix(rnorm(20 * 300), 20, 300)[pair, ]
  colnames(x) <- paste0("g", 1:300)
  fit <- bahsic(x, y, block = pair, threads = 1)
  expect_length(fit$screen$seeds, 0L)
  # the re-check's permutations come from a fixed seed: the caller's stream is
  # untouched and the result the same whatever it is
  set.seed(1)
  before <- .Random.seed
  a <- bahsic(x[, 1:40], y, block = pair, threads = 1)
  expect_identical(.Random.seed, before)
  set.seed(2)
  expect_identical(bahsic(x[, 1:40], y, block = pair, threads = 1)$features, a$features)
  # without a design nothing is re-checked
  expect_identical(screen_recheck(list(design = NULL), x, kernel_gaussian(), y, NULL, 0.01), 0.01)
})
