test_that("binary label kernels are eq. 16 and eq. 17", {
  y <- factor(c("n", "p", "p", "n", "p"))
  v <- c(-1, 1, 1, -1, 1)
  expect_equal(label_kernel_matrix(label_kernel_binary(FALSE), y), tcrossprod(v))
  w <- ifelse(v > 0, 1 / 3, -1 / 2)
  expect_equal(label_kernel_matrix(label_kernel_binary(), y), tcrossprod(w))
  expect_error(label_kernel_matrix(label_kernel_binary(), factor(1:3)), "two classes")
})

test_that("multiclass label kernels are eq. 18, eq. 19 and the block map", {
  y <- factor(c("a", "b", "c", "a", "b", "a"))
  m <- 6
  mk <- c(a = 3, b = 2, c = 1)
  same <- outer(as.character(y), as.character(y), "==")
  bal <- label_kernel_matrix(label_kernel_multiclass("balanced"), y)
  expect_equal(bal, same / mk[as.character(y)], ignore_attr = TRUE)
  expect_equal(label_kernel_matrix(label_kernel_multiclass("block"), y), bal)
  # eq. 19 written as psi(y) = m / (m_y (m - m_y)) e_y - z
  z <- 1 / (m - mk)
  psi <- t(sapply(as.character(y), function(k) m / (mk[k] * (m - mk[k])) * (names(mk) == k) - z))
  expect_equal(label_kernel_matrix(label_kernel_multiclass("one_vs_rest"), y), tcrossprod(psi),
               ignore_attr = TRUE)
})

test_that("the pam map is e_y / m_y, optionally pamr-standardised", {
  y <- factor(c(1, 1, 2, 2, 2, 3))
  m <- 6
  mk <- c(2, 3, 1)
  psi <- diag(3)[as.integer(y), ] / mk[as.integer(y)]
  expect_equal(label_kernel_matrix(label_kernel_pam(), y), tcrossprod(psi))
  sc <- sqrt(1 / mk - 1 / m)
  psi2 <- sweep(diag(3)[as.integer(y), ], 2, mk * sc, "/")
  expect_equal(label_kernel_matrix(label_kernel_pam(TRUE), y), tcrossprod(psi2))
})

test_that("regression label kernels apply a data kernel to y, linear kept low-rank", {
  y <- c(0.1, 2, -1, 0.5)
  expect_equal(label_kernel_matrix(label_kernel_regression(kernel_linear()), y), tcrossprod(y))
  expect_equal(label_kernel_matrix(label_kernel_regression(kernel_gaussian(2)), y),
               exp(-2 * as.matrix(dist(y))^2), ignore_attr = TRUE)
  lab <- bahsic:::label_gram(label_kernel_regression(kernel_linear()), y)
  expect_null(lab$L)
  ymat <- cbind(y, y^2)
  expect_equal(label_kernel_matrix(label_kernel_regression(kernel_linear()), ymat),
               tcrossprod(ymat), ignore_attr = TRUE)
  expect_error(label_kernel_matrix(label_kernel_regression(), factor(1:2)), "numeric outcome")
})

test_that("the default label kernel follows the outcome", {
  expect_equal(default_label_kernel(factor(1:2))$type, "binary")
  expect_true(default_label_kernel(factor(1:2))$params$balanced)
  expect_equal(default_label_kernel(c("a", "b", "c"))$type, "multiclass")
  expect_equal(default_label_kernel(c("a", "b", "c"))$params$map, "balanced")
  r <- default_label_kernel(1:3 + 0.5)
  expect_equal(r$type, "regression")
  expect_equal(r$params$kernel$name, "gaussian")
  expect_error(default_label_kernel(list()), "factor")
  expect_error(label_kernel_binary(NA), "TRUE or FALSE")
  expect_error(label_kernel_multiclass("nope"), "'type' = \"nope\" is not one of \"balanced\"")
  expect_error(label_kernel_regression("gaussian"), "must be a kernel")
  expect_error(label_kernel_matrix(kernel_linear(), 1:3), "label kernel")
  expect_output(print(label_kernel_pam()), "shrunken-centroid")
})
