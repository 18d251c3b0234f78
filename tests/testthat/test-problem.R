pb_spec <- function(...) {
  utils::modifyList(list(na_action = "fail", assay = 1L, kernel = kernel_gaussian(),
                         check_range = TRUE, kernel_y = NULL, unsupervised = FALSE, min_m = 3L,
                         min_what = "test", standardize = TRUE, estimator = "biased",
                         threads = 1L, labels = "W"), list(...))
}

test_that("prepare_problem() standardises once and its W gives HSIC0 as hsic() does", {
  set.seed(1)
  x <- matrix(rnorm(30 * 4, sd = 3), 30, 4, dimnames = list(NULL, paste0("f", 1:4)))
  y <- factor(rep(c("a", "b", "c"), 10))
  pr <- bahsic:::prepare_problem(x, y, pb_spec())
  expect_s3_class(pr, "bahsic_problem")
  expect_identical(c(pr$m, pr$p), c(30L, 4L))
  expect_identical(pr$features, colnames(x))
  xc <- sweep(x, 2L, colMeans(x))
  expect_equal(unname(pr$x), unname(sweep(xc, 2L, sqrt(colSums(xc^2) / 29), "/")))
  # sum(K * W) is HSIC0 of the standardised data (eq. 4), computed apart by hsic()
  K <- kernel_matrix(kernel_gaussian(0.3), pr$x)
  h0 <- hsic(pr$x, y, kernel = kernel_gaussian(0.3), estimator = "biased")$estimate
  expect_equal(sum(K * pr$W), h0)
  # the unbiased W gives HSIC1 (eq. 5)
  pu <- bahsic:::prepare_problem(x, y, pb_spec(estimator = "unbiased"))
  h1 <- hsic(pr$x, y, kernel = kernel_gaussian(0.3), estimator = "unbiased")$estimate
  expect_equal(sum(K * pu$W), h1)
})

test_that("prepare_problem() on the block path stacks the partitions' samples", {
  set.seed(2)
  x <- matrix(rnorm(40 * 3), 40, 3)
  y <- rnorm(40)
  set.seed(3)
  pr <- bahsic:::prepare_problem(x, y, pb_spec(labels = "block", approx = approx_block(size = 10)))
  expect_identical(pr$mode, "block")
  full <- bahsic:::prepare_problem(x, y, pb_spec(labels = "none"))
  expect_identical(pr$x, full$x[pr$blocks$rows, , drop = FALSE])
  expect_length(pr$blocks$list, 4L)
})

test_that("selection_test() re-running BAHSIC from its problem is re-running bahsic()", {
  set.seed(4)
  sim <- simulate_counts(n_cells = 120, n_genes = 20)
  fit <- bahsic(sim$x, sim$y, approx = approx_block(size = 40), drop = 0.3)
  # by hand: permutations, seeds, then bahsic() on each permuted outcome
  m <- nrow(sim$x)
  set.seed(5)
  perms <- vapply(1:4, function(i) sample.int(m), integer(m))
  seeds <- sample.int(.Machine$integer.max, 4)
  tops <- lapply(1:4, function(b) {
    set.seed(seeds[b])
    selected(suppressWarnings(bahsic(sim$x, sim$y[perms[, b]], approx = approx_block(size = 40),
                                     drop = 0.3, n_features = 2)), 2)
  })
  rerun <- bahsic:::rerun_setup(fit, sim$x, sim$y, environment(), list(), 2L, FALSE)
  expect_false(is.null(rerun$problem))
  mine <- lapply(1:4, function(b) {
    bahsic:::with_seed(seeds[b], RNGkind(), bahsic:::rerun_top(rerun, perms[, b], 2L))
  })
  expect_identical(mine, tops)
})
