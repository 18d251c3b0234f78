# bcr() and kuncheva_index(), against values worked out by hand.

test_that("bcr() is the mean recall over the classes of truth", {
  truth <- factor(c("a", "a", "a", "a", "b", "b"))
  pred <- factor(c("a", "a", "a", "b", "b", "a"))
  # recall a = 3/4, b = 1/2
  expect_equal(as.numeric(bcr(truth, pred)), (3 / 4 + 1 / 2) / 2)
  expect_equal(attr(bcr(truth, pred), "recall"), c(a = 3 / 4, b = 1 / 2))
  # as text: characters and a factor with other levels compare the same
  expect_equal(bcr(as.character(truth), as.character(pred)), bcr(truth, pred))
  expect_equal(as.numeric(bcr(truth, factor(pred, levels = c("b", "a", "z")))), 5 / 8)
  # three classes: recalls 1, 0, 1/2
  expect_equal(as.numeric(bcr(c(1, 2, 3, 3), c(1, 1, 3, 1))), (1 + 0 + 1 / 2) / 3)
  # all right / all wrong
  expect_equal(as.numeric(bcr(truth, truth)), 1)
  expect_equal(as.numeric(bcr(c(TRUE, FALSE), c(FALSE, TRUE))), 0)
  # the majority-class predictor scores 1/2 however unbalanced the classes
  expect_equal(as.numeric(bcr(rep(c("x", "y"), c(90, 10)), rep("x", 100))), 0.5)
})

test_that("bcr() leaves out classes absent from truth and counts unknown predictions as errors", {
  truth <- factor(c("a", "a", "b"), levels = c("a", "b", "c"))
  pred <- c("a", "z", "b")
  expect_equal(attr(bcr(truth, pred), "recall"), c(a = 1 / 2, b = 1))
  expect_equal(as.numeric(bcr(truth, pred)), 3 / 4)
})

test_that("bcr() rejects bad input clearly", {
  expect_error(bcr(c("a", "b"), "a"), "'truth' has 2 values but 'predicted' has 1")
  expect_error(bcr(c("a", NA), c("a", "b")), "missing values")
  expect_error(bcr(character(0), character(0)), "empty")
  expect_error(bcr(list("a"), "a"), "'truth' must be a vector of classes")
  expect_error(bcr(matrix("a", 1, 1), "a"), "'truth' must be a vector of classes")
})

test_that("kuncheva_index() matches Kuncheva's formula worked by hand", {
  r1 <- c("g1", "g2", "g3", "g4")
  r2 <- c("g2", "g1", "g5", "g3")
  r3 <- c("g6", "g7", "g8", "g9")
  n <- 10
  expect_equal(kuncheva_index(list(r1, r2), k = 2, n_features = n), 1)
  # top-3: r = 2, (2 * 10 - 9) / (3 * 7)
  expect_equal(kuncheva_index(list(r1, r2), k = 3, n_features = n), 11 / 21)
  # disjoint top-2 sets: (0 - 4) / (2 * 8)
  expect_equal(kuncheva_index(list(r1, r3), k = 2, n_features = n), -1 / 4)
  # three rankings: the mean over the three pairs (k = 3)
  pairs <- c((2 * n - 9) / 21, (0 - 9) / 21, (0 - 9) / 21)
  expect_equal(kuncheva_index(list(r1, r2, r3), k = 3, n_features = n), mean(pairs))
  # indices work as names do
  expect_equal(kuncheva_index(list(c(1, 2, 3), c(2, 1, 4)), k = 2, n_features = 5), 1)
})

test_that("kuncheva_index() takes selections and their number of features", {
  x <- matrix(rnorm(200), 20, 10, dimnames = list(NULL, paste0("g", 1:10)))
  y <- factor(rep(c("a", "b"), 10))
  x[y == "b", 1:2] <- x[y == "b", 1:2] + 2
  f1 <- bahsic(x, y, kernel = kernel_linear())
  f2 <- bahsic(x[c(2:20, 1), ], y[c(2:20, 1)], kernel = kernel_linear())
  ki <- kuncheva_index(list(f1, f2), k = 3)
  r <- length(intersect(selected(f1, 3), selected(f2, 3)))
  expect_equal(ki, (r * 10 - 9) / (3 * 7))
  expect_equal(kuncheva_index(list(f1, selected(f2)), k = 3, n_features = 10), ki)
})

test_that("kuncheva_index() rejects bad input clearly", {
  r1 <- c("a", "b", "c")
  expect_error(kuncheva_index(list(r1), 2, 5), "at least two rankings")
  expect_error(kuncheva_index(r1, 2, 5), "at least two rankings")
  expect_error(kuncheva_index(list(r1, r1), 2), "Give 'n_features'")
  expect_error(kuncheva_index(list(r1, r1), 5, 5), "'k' must be a whole number from 1 to 4")
  expect_error(kuncheva_index(list(r1, r1), 0, 5), "'k' must be")
  expect_error(kuncheva_index(list(r1, c("a", "b")), 3, 5), "rankings\\[\\[2\\]\\] ranks 2 features")
  expect_error(kuncheva_index(list(r1, c("a", "a", "b")), 2, 5), "twice")
  expect_error(kuncheva_index(list(r1, c("a", NA)), 1, 5), "without NA")
})
