# A planted non-linear or linear signal among many noise genes.

signals <- c("xor", "xor_numeric", "u_numeric", "u_class", "u_hazard", "ring", "linear")
n_truth <- c(xor = 2L, xor_numeric = 2L, u_numeric = 1L, u_class = 1L, u_hazard = 1L,
             ring = 2L, linear = 10L)

test_that("every signal returns an n x p matrix named X1..Xp, its outcome and its planted genes", {
  for (s in signals) {
    for (rho in c(0, 0.5)) {
      sim <- simulate_nonlinear(30, p = 120, signal = s, rho = rho)
      expect_named(sim, c("x", "y", "truth"))
      expect_true(is.matrix(sim$x) && is.double(sim$x))
      expect_identical(dim(sim$x), c(30L, 120L))
      expect_identical(colnames(sim$x), paste0("X", 1:120))
      expect_true(all(is.finite(sim$x)))
      expect_length(sim$y, 30L)
      expect_length(sim$truth, n_truth[[s]])
      expect_true(all(sim$truth %in% colnames(sim$x)))
      expect_false(anyDuplicated(sim$truth) > 0)
      if (s %in% c("xor", "u_class", "ring", "linear")) {
        expect_identical(levels(sim$y), c("-1", "+1"))
      } else {
        expect_type(sim$y, "double")
        expect_true(all(is.finite(sim$y)))
      }
    }
  }
  expect_length(simulate_nonlinear(20, p = 40, signal = "linear", n_linear = 3)$truth, 3L)
})

test_that("draws are reproducible under set.seed() and the planted genes move between seeds", {
  set.seed(5)
  a <- simulate_nonlinear(20, p = 500, signal = "xor", rho = 0.3)
  set.seed(5)
  b <- simulate_nonlinear(20, p = 500, signal = "xor", rho = 0.3)
  expect_identical(a, b)
  set.seed(1)
  truths <- replicate(20, simulate_nonlinear(10, p = 500, signal = "xor")$truth)
  # not always the first columns: 20 draws of 2 positions among 500
  expect_gt(length(unique(as.vector(truths))), 30L)
  expect_false(all(truths %in% c("X1", "X2")))
})

test_that("the planted relation holds", {
  set.seed(2)
  sim <- simulate_nonlinear(200, p = 50, signal = "xor")
  g <- sim$x[, sim$truth]
  expect_identical(sim$y == "+1", sign(g[, 1]) * sign(g[, 2]) > 0)

  sim <- simulate_nonlinear(200, p = 50, signal = "ring")
  r <- rowSums(sim$x[, sim$truth]^2)
  expect_identical(sim$y == "+1", r > median(r))
  expect_identical(as.vector(table(sim$y)), c(100L, 100L))

  sim <- simulate_nonlinear(200, p = 50, signal = "u_class")
  expect_identical(sim$y == "+1", abs(sim$x[, sim$truth]) > median(abs(sim$x[, sim$truth])))

  sim <- simulate_nonlinear(100, p = 50, signal = "xor_numeric", noise = 0)
  expect_equal(sim$y, sim$x[, sim$truth[1]] * sim$x[, sim$truth[2]])
  sim <- simulate_nonlinear(100, p = 50, signal = "u_numeric", noise = 0)
  expect_equal(sim$y, sim$x[, sim$truth]^2)
})

test_that("the signals have the documented distributions", {
  skip_if(under_valgrind(), "under valgrind: R code only")
  set.seed(3)
  # continuous XOR: residual sd is the noise, each gene alone uncorrelated with y
  sim <- simulate_nonlinear(4000, p = 10, signal = "xor_numeric")
  g <- sim$x[, sim$truth]
  expect_equal(sd(sim$y - g[, 1] * g[, 2]), 1, tolerance = 0.05)
  expect_lt(max(abs(cor(g, sim$y))), 0.05)
  # U-shaped hazard: log T = -1.5 x^2 + log E with E standard exponential
  sim <- simulate_nonlinear(4000, p = 10, signal = "u_hazard")
  x1 <- sim$x[, sim$truth]
  expect_equal(unname(coef(lm(sim$y ~ I(x1^2)))[2]), -1.5, tolerance = 0.05)
  expect_equal(mean(sim$y + 1.5 * x1^2), -0.5772, tolerance = 0.05) # E log E = -Euler's gamma
  # linear genes: the class means differ by `effect`, alternating in sign
  sim <- simulate_nonlinear(4000, p = 30, signal = "linear", n_linear = 4, effect = 0.8)
  diffs <- apply(sim$x[, sim$truth], 2, function(v) diff(tapply(v, sim$y, mean)))
  expect_equal(unname(diffs), c(0.8, -0.8, 0.8, -0.8), tolerance = 0.1)
  noise <- setdiff(colnames(sim$x), sim$truth)
  expect_lt(max(abs(apply(sim$x[, noise], 2, function(v) diff(tapply(v, sim$y, mean))))), 0.15)
  # the genes are standard normal
  sim <- simulate_nonlinear(2000, p = 60, signal = "xor", rho = 0.4)
  expect_equal(mean(sim$x), 0, tolerance = 0.05)
  expect_equal(sd(as.vector(sim$x)), 1, tolerance = 0.03)
})

test_that("blocks of correlated genes have the requested correlation", {
  skip_if(under_valgrind(), "under valgrind: R code only")
  set.seed(4)
  sim <- simulate_nonlinear(3000, p = 100, signal = "u_numeric", rho = 0.6, block_size = 40)
  noise <- !colnames(sim$x) %in% sim$truth
  block <- (seq_len(100) - 1L) %/% 40L + 1L
  cm <- cor(sim$x)
  same <- outer(block, block, "==") & outer(noise, noise, "&")
  diag(same) <- FALSE
  other <- outer(block, block, "!=")
  expect_equal(mean(cm[same]), 0.6, tolerance = 0.05)
  expect_lt(abs(mean(cm[other])), 0.05)
  # the last block is the remainder (20 genes), and rho = 0 gives independent genes
  expect_identical(as.vector(table(block)), c(40L, 40L, 20L))
  cm0 <- cor(simulate_nonlinear(3000, p = 40, signal = "xor")$x)
  expect_lt(max(abs(cm0[upper.tri(cm0)])), 0.1)
  # the planted genes of a pair sit in different blocks when there are enough
  for (i in 1:20) {
    sim <- simulate_nonlinear(10, p = 100, signal = "xor", rho = 0.5, block_size = 25)
    j <- as.integer(sub("X", "", sim$truth))
    expect_false(((j[1] - 1L) %/% 25L) == ((j[2] - 1L) %/% 25L))
  }
})

test_that("bad arguments are errors that name the argument", {
  expect_error(simulate_nonlinear(3), "'n' \\(the number of samples\\) must be a single whole number")
  expect_error(simulate_nonlinear(20, p = 1), "'p' \\(the number of genes\\) must be a single whole number of at least 2")
  expect_error(simulate_nonlinear(20, p = 5, signal = "linear"), "'p' .* at least 10")
  expect_error(simulate_nonlinear(20, p = 10.5), "'p'")
  expect_error(simulate_nonlinear(20, signal = "xr"), "'signal'")
  expect_error(simulate_nonlinear(20, signal = "spiral"), "'signal'")
  expect_error(simulate_nonlinear(20, rho = 1), "'rho' \\(the within-block correlation\\) must be a single number in \\[0, 1\\)")
  expect_error(simulate_nonlinear(20, rho = -0.1), "'rho'")
  expect_error(simulate_nonlinear(20, rho = NA), "'rho'")
  expect_error(simulate_nonlinear(20, noise = -1), "'noise' must be a single non-negative")
  expect_error(simulate_nonlinear(20, block_size = 1), "'block_size' .* at least 2")
  expect_error(simulate_nonlinear(20, signal = "linear", n_linear = 0), "'n_linear' .* at least 1")
  expect_error(simulate_nonlinear(20, effect = 0), "'effect' must be a single positive")
  expect_error(simulate_nonlinear(20, sd = 1), "sd")
  expect_error(simulate_nonlinear(20, p = 1e12), "'p' = 1e\\+12 is more than")
  expect_error(simulate_nonlinear(100, p = 1e9), "p = 1,000,000,000 needs")
})
