# The codes that cross .Call (R/codes.R): R's mirror against the C tables
# (src/codes.h), and the check of each entry point that takes a kernel,
# policy or direction code against codes it does not accept.

test_that("bk_codes is what the C tables say", {
  expect_identical(.Call(bahsic:::C_codes), bahsic:::bk_codes)
})

test_that("kernel_code(), policy_code() and direction_code() read bk_codes", {
  codes <- bahsic:::bk_codes
  expect_identical(bahsic:::kernel_code(kernel_gaussian()), codes$kernel[["gaussian"]])
  expect_identical(bahsic:::kernel_code(kernel_inverse_distance()),
                   codes$kernel[["inverse_distance"]])
  expect_identical(bahsic:::kernel_code(kernel_clinical()), codes$kernel[["clinical"]])
  expect_null(names(bahsic:::kernel_code(kernel_linear())))
  expect_error(bahsic:::kernel_code(list(name = "ridge")), "kernel 'ridge' has no C code")
  expect_identical(bahsic:::policy_code("optimize"), codes$policy[["optimize"]])
  expect_identical(bahsic:::direction_code("bahsic"), codes$direction[["backward"]])
  expect_identical(bahsic:::direction_code("fohsic"), codes$direction[["forward"]])
})

# Every entry point that takes a kernel code, called with small valid
# arguments but the code; each accepts the kernels listed (the sets of
# src/codes.h, written out again here) and must refuse every other code with
# an R error that names it.
codes_m <- 6L
codes_args <- function() {
  set.seed(11)
  z <- matrix(rnorm(codes_m * 3L), codes_m)
  x <- tcrossprod(z) + diag(codes_m) # square, positive definite: also a kernel matrix
  y <- rep(c(1, -1), length.out = codes_m)
  list(x = x, W = tcrossprod(y) / codes_m^2, Y = cbind(y == 1, y == -1) + 0)
}
select_control <- function(direction = 0, policy = 0) {
  c(direction, policy, 1, 0, 0, 1, 0, 0)
}
ridge_control <- function(direction = 0, policy = 0) {
  c(1, direction, 0, 0, 0, policy, 1)
}
entry_points <- list(
  C_gram = function(code, a) .Call(bahsic:::C_gram, a$x, code, 1, 1, 1L),
  C_feature_dot = function(code, a) {
    .Call(bahsic:::C_feature_dot, a$x, code, 1, 1, a$W, 1L, FALSE)
  },
  C_ichol = function(code, a) .Call(bahsic:::C_ichol, a$x, code, 1, 1, 1e-6, 3L),
  C_select = function(code, a) {
    .Call(bahsic:::C_select, a$x, a$W, c(code, 1, 1), 2^(-1:1), select_control(),
          integer(ncol(a$x)), NULL, NULL, NULL)
  },
  C_ridge_select = function(code, a) {
    .Call(bahsic:::C_ridge_select, a$x, a$W, c(code, 1, 1), 2^(-1:1), ridge_control())
  },
  C_randsel_iter = function(code, a) {
    .Call(bahsic:::C_randsel_iter, a$x, 0:5, 0L, NULL, a$Y, c(code, 1, 1), c(2, 4, 1, 0))
  },
  C_randsel_align = function(code, a) {
    set.seed(12)
    seeds <- .Call(bahsic:::C_randsel_seeds, 2)
    .Call(bahsic:::C_randsel_align, a$x, 0:5, 0L, NULL, a$Y, c(code, 1, 1), c(2, 4, 1, 0),
          seeds)
  }
)
data_kernels <- c("linear", "polynomial", "gaussian", "laplace", "inverse_distance")
accepted <- list(
  C_gram = data_kernels, C_feature_dot = data_kernels, C_ridge_select = data_kernels,
  C_ichol = c(data_kernels, "precomputed"),
  C_select = c("polynomial", "gaussian", "laplace", "inverse_distance", "clinical"),
  C_randsel_iter = data_kernels, C_randsel_align = data_kernels
)

test_that("each entry point accepts its kernel codes", {
  a <- codes_args()
  codes <- bahsic:::bk_codes$kernel
  for (f in names(entry_points)) {
    for (k in accepted[[f]]) {
      res <- tryCatch({
        entry_points[[f]](codes[[k]], a)
        "no error"
      }, error = conditionMessage)
      expect_identical(res, "no error", info = paste(f, k))
    }
  }
})

test_that("each entry point refuses any other kernel code, naming it", {
  a <- codes_args()
  codes <- bahsic:::bk_codes$kernel
  for (f in names(entry_points)) {
    bad <- c(-1L, max(codes) + 1L, 1000L, codes[setdiff(names(codes), accepted[[f]])])
    for (code in unname(bad)) {
      expect_error(entry_points[[f]](code, a), paste0("kernel code ", code, "$"),
                   info = paste(f, code))
    }
  }
})

test_that("the selectors refuse unknown policy and direction codes, naming them", {
  a <- codes_args()
  gauss <- c(bahsic:::bk_codes$kernel[["gaussian"]], 1, 0)
  for (bad in c(-1, 3)) {
    expect_error(.Call(bahsic:::C_select, a$x, a$W, gauss, 1, select_control(policy = bad),
                       NULL, NULL, NULL, NULL), paste0("unknown width policy ", bad, "$"))
    expect_error(.Call(bahsic:::C_ridge_select, a$x, a$W, gauss, 1, ridge_control(policy = bad)),
                 paste0("unknown width policy ", bad, "$"))
  }
  for (bad in c(-1, 2)) {
    expect_error(.Call(bahsic:::C_select, a$x, a$W, gauss, 1, select_control(direction = bad),
                       NULL, NULL, NULL, NULL), paste0("unknown direction code ", bad, "$"))
    expect_error(.Call(bahsic:::C_ridge_select, a$x, a$W, gauss, 1,
                       ridge_control(direction = bad)),
                 paste0("unknown direction code ", bad, "$"))
  }
})
