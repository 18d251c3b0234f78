test_that("simulate_counts() has the documented shape, names and classes", {
  set.seed(3)
  sim <- simulate_counts(60, 40, n_informative = 4, n_types = 3)
  expect_identical(dim(sim$counts), c(60L, 40L))
  expect_identical(dim(sim$x), dim(sim$counts))
  expect_true(is.integer(sim$counts) || all(sim$counts == round(sim$counts)))
  expect_true(all(sim$counts >= 0))
  expect_identical(colnames(sim$x), sprintf("gene%05d", 1:40))
  expect_identical(rownames(sim$x), paste0("cell", 1:60))
  expect_identical(levels(sim$y), c("type1", "type2", "type3"))
  expect_identical(as.vector(table(sim$y)), c(20L, 20L, 20L))
  expect_length(sim$informative, 4L)
  expect_identical(sim$fold_change, stats::setNames(rep(3, 4), sim$informative))
  expect_identical(names(sim$mean), colnames(sim$x))
  expect_true(all(sim$informative %in% colnames(sim$x)))
  # x is log(1 + 1e4 * counts / library size)
  lib <- rowSums(sim$counts)
  expect_equal(sim$x, log1p(sim$counts / lib * 1e4))
  set.seed(3)
  expect_identical(simulate_counts(60, 40, n_informative = 4, n_types = 3), sim)
})

test_that("simulate_counts(): the informative genes, and only they, depend on the type", {
  set.seed(4)
  sim <- simulate_counts(3000, 30, n_informative = 6, n_types = 2, fold_change = 3, size = 5)
  norm <- sim$counts / rowSums(sim$counts) * mean(rowSums(sim$counts))
  ratio <- colMeans(norm[sim$y == "type1", ]) / colMeans(norm[sim$y == "type2", ])
  lr <- abs(log(ratio))
  informative <- colnames(sim$x) %in% sim$informative
  # up by 3 in one of the two types: |log ratio| near log(3) = 1.1
  expect_true(all(lr[informative] > 0.8))
  # (genes with a mean count below 0.5 are too sparse for a ratio of means)
  expressed <- colMeans(sim$counts) > 0.5
  expect_gt(sum(!informative & expressed), 10)
  expect_true(all(lr[!informative & expressed] < 0.3))
})

test_that("simulate_counts() rejects bad arguments", {
  expect_error(simulate_counts(3), "'n_cells' must be a whole number of at least 4")
  expect_error(simulate_counts(10, 5, n_informative = 6), "'n_genes' must be a whole number of at least 6")
  expect_error(simulate_counts(10, 5, 2, n_types = 1), "'n_types'")
  expect_error(simulate_counts(10, 5, 2, fold_change = 1), "'fold_change' must be one number above 1")
  expect_error(simulate_counts(10, 5, 2, fold_change = c(0.5, 2)), "or a range c\\(low, high\\)")
  expect_error(simulate_counts(10, 5, 2, size = 0), "'size' must be one positive number")
})

test_that("simulate_counts(): a fold-change range is spread over the informative genes", {
  set.seed(5)
  sim <- simulate_counts(2000, 12, n_informative = 3, n_types = 2, fold_change = c(1.5, 3.5),
                         size = 50)
  expect_equal(unname(sim$fold_change), c(1.5, 2.5, 3.5))
  g <- sim$informative
  # the size factors do not depend on the type: raw mean counts show the fold changes
  ratio <- colMeans(sim$counts[sim$y == "type1", g]) / colMeans(sim$counts[sim$y == "type2", g])
  # up in one type or the other: the ratio or its inverse
  r <- pmax(ratio, 1 / ratio)
  expect_identical(order(r), 1:3)
  expect_true(all(abs(log(r) - log(sim$fold_change)) < 0.15))
})
