# The toy data of the l1-LSMI slides (R/simulate-lsmi.R).

test_that("each generator follows its definition", {
  set.seed(1)
  s <- simulate_andor(200)
  x <- s$x
  expect_identical(dim(x), c(200L, 10L))
  expect_identical(colnames(x), paste0("X", 1:10))
  expect_true(all(x %in% c(0, 1)))
  expect_identical(as.integer(as.character(s$y)),
                   as.integer((x[, 1] & x[, 2]) | (x[, 3] & x[, 4])))
  expect_identical(s$relevant, 1:4)
  # the copies differ from y in about 20% of the bits
  flips <- mean(x[, 8:10] != as.integer(as.character(s$y)))
  expect_gt(flips, 0.1)
  expect_lt(flips, 0.3)
  exact <- simulate_andor(50, flip = 0)
  expect_identical(exact$x[, 8:10], matrix(as.numeric(as.character(exact$y)), 50, 3,
                                           dimnames = list(NULL, paste0("X", 8:10))))

  s <- simulate_xor10(300)
  expect_identical(as.integer(as.character(s$y)), as.integer(xor(s$x[, 1], s$x[, 2])))
  expect_gt(mean(s$x[, 6:10]), mean(s$x[, 1:5]))
  expect_identical(s$relevant, 1:2)

  s <- simulate_quad(100)
  expect_true(is.numeric(s$y))
  resid <- s$y - (s$x[, 1]^2 + s$x[, 2]) / (0.5 + (s$x[, 2] + 1.5)^2)
  expect_lt(sd(resid), 0.2)
  expect_lte(max(abs(s$x[, 9] - 0.5 * s$x[, 1])), 1)
  expect_lte(max(abs(s$x[, 10] - 0.5 * s$x[, 2])), 1)

  s <- simulate_3clusters(90)
  expect_identical(levels(s$y), c("1", "2", "3"))
  expect_identical(as.vector(table(s$y)), c(30L, 30L, 30L))
  expect_true(all(s$x[, 4:10] >= 0 & s$x[, 4:10] <= 1))
  # X1, X2 separate the classes: nearest centre gives the class
  centres <- rbind(c(0.2, 0.2), c(0.8, 0.2), c(0.5, 0.8))
  nearest <- apply(s$x[, 1:2], 1, function(p) which.min(colSums((t(centres) - p)^2)))
  expect_identical(nearest, as.integer(s$y))
})

test_that("the generators are reproducible and check their arguments", {
  set.seed(3)
  a <- simulate_quad(20)
  set.seed(3)
  expect_identical(simulate_quad(20), a)
  expect_error(simulate_andor(3), "'n'")
  expect_error(simulate_andor(10, flip = 2), "'flip'")
  expect_error(simulate_3clusters(10, sd = 0), "'sd'")
  expect_error(simulate_xor10("a"), "'n'")
})
