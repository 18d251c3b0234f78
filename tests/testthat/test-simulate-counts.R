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
  expect_error(simulate_counts(10, 5, 2, size = 0), "'size' must be one positive number")
})
