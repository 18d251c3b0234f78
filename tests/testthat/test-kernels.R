test_that("every data kernel's Gram matrix equals its definition", {
  set.seed(1)
  x <- matrix(rnorm(7 * 3), 7, 3)
  D2 <- as.matrix(dist(x))^2
  G <- tcrossprod(x)
  expect_equal(unclass(kernel_matrix(kernel_linear(), x))[, ], G, tolerance = 1e-14,
               ignore_attr = TRUE)
  expect_equal(kernel_matrix(kernel_polynomial(3, 0.5), x), (G + 0.5)^3, tolerance = 1e-13,
               ignore_attr = TRUE)
  expect_equal(kernel_matrix(kernel_gaussian(0.7), x), exp(-0.7 * D2), tolerance = 1e-14,
               ignore_attr = TRUE)
  expect_equal(kernel_matrix(kernel_laplace(0.7), x), exp(-0.7 * sqrt(D2)), tolerance = 1e-14,
               ignore_attr = TRUE)
  expect_equal(kernel_matrix(kernel_inverse_distance(0.01), x), 1 / (sqrt(D2) + 0.01),
               tolerance = 1e-13, ignore_attr = TRUE)
  K <- tcrossprod(x) + diag(7)
  expect_equal(kernel_matrix(kernel_precomputed(K), x), K, ignore_attr = TRUE)
})

test_that("the median heuristic matches R's median over distinct pairs", {
  set.seed(2)
  for (m in c(2, 3, 8, 9)) {
    x <- matrix(rnorm(m * 2), m, 2)
    g <- attr(kernel_matrix(kernel_gaussian(), x), "kernel")
    l <- attr(kernel_matrix(kernel_laplace(), x), "kernel")
    expect_equal(g$params$sigma, 1 / median(dist(x)^2))
    expect_equal(l$params$sigma, 1 / median(dist(x)))
  }
  # ties: integer data where most pairs coincide fall back to distinct pairs
  x <- matrix(c(rep(0, 9), 1), ncol = 1)
  g <- attr(kernel_matrix(kernel_gaussian(), x), "kernel")
  expect_equal(g$params$sigma, 1)
  # identical samples: a constant kernel, finite
  expect_true(all(kernel_matrix(kernel_gaussian(), matrix(3, 5, 2)) == 1))
})

test_that("quickselect returns order statistics on tied and sorted data", {
  set.seed(3)
  for (v in list(rnorm(101), rep(1, 20), 1:50, 50:1, sample(rep(1:3, 30)))) {
    x <- matrix(as.double(v), ncol = 1)
    expect_equal(.Call(bahsic:::C_median_pairwise, x, TRUE, 1L), median(dist(x)^2))
  }
  x <- matrix(rnorm(30), 10, 3)
  expect_equal(.Call(bahsic:::C_median_columns, x, FALSE, 1L),
               apply(x, 2, function(col) median(dist(col))))
})

test_that("Gram matrices are symmetric and the same for 1 and 2 threads", {
  set.seed(4)
  x <- matrix(rnorm(300 * 5), 300, 5)
  for (k in list(kernel_linear(), kernel_gaussian(0.1), kernel_inverse_distance())) {
    K1 <- kernel_matrix(k, x, threads = 1)
    K2 <- kernel_matrix(k, x, threads = 2)
    expect_identical(K1, K2)
    expect_true(isSymmetric(unclass(K1)[, ]))
  }
})

test_that("kernel constructors validate their parameters", {
  expect_error(kernel_gaussian(-1), "positive")
  expect_error(kernel_gaussian(c(1, 2)), "single positive")
  expect_error(kernel_laplace(Inf), "finite")
  expect_error(kernel_polynomial(degree = 1.5), "whole number")
  expect_error(kernel_polynomial(offset = -1), ">= 0")
  expect_error(kernel_inverse_distance(0), "positive")
  expect_error(kernel_precomputed(matrix(1:6, 2)), "square")
  expect_error(kernel_precomputed(matrix(c(1, 2, 3, 4), 2)), "symmetric")
  expect_error(kernel_precomputed(matrix(NA_real_, 2, 2)), "missing")
  expect_error(kernel_matrix(kernel_precomputed(diag(3)), matrix(0, 4, 1)), "3 x 3")
  expect_error(kernel_matrix("linear", diag(2)), "must be a kernel")
  expect_output(print(kernel_gaussian()), "median heuristic")
  expect_output(print(kernel_polynomial(3)), "\\^3")
  expect_s3_class(kernel_laplace(2), "bahsic_kernel")
})

test_that("the vectorised exp is within a few ulp of exp() over the kernel range", {
  v <- c(0, 10^seq(-12, log10(707.9), length.out = 3000), seq(700, 800, by = 0.37))
  x <- matrix(c(0, sqrt(v)), ncol = 1)
  K <- kernel_matrix(kernel_gaussian(1), x)
  t2 <- (x[-1, 1] - 0)^2
  got <- K[1, -1]
  want <- exp(-t2)
  ok <- t2 <= 708
  expect_lt(max(abs(got[ok] - want[ok]) / want[ok]), 4 * .Machine$double.eps)
  expect_true(all(got[!ok] == 0))
  expect_true(all(abs(got[!ok] - want[!ok]) < 1e-300))
  L <- kernel_matrix(kernel_laplace(1), x)
  expect_lt(max(abs(L[1, -1][ok] - exp(-sqrt(t2[ok]))) / exp(-sqrt(t2[ok]))),
            4 * .Machine$double.eps)
})

test_that("the scan for non-finite values finds the first one and the largest |value|", {
  # (blocks of 512 values, four at a time, then the rest: every position of
  # the first bad value, in a block's body and tail, and of the maximum)
  set.seed(3)
  scan <- function(v) .Call(bahsic:::C_first_nonfinite, v)
  for (n in c(1L, 3L, 4L, 5L, 511L, 512L, 513L, 1027L, 2050L)) {
    v <- stats::rnorm(n) * 10^stats::runif(n, -300, 300)
    expect_identical(scan(v), c(0, max(abs(v))))
    for (at in unique(c(1L, 2L, 4L, 5L, n %/% 2L, 509L, 512L, 513L, n - 1L, n))) {
      if (at < 1L || at > n) next
      w <- v
      w[at] <- -abs(v[at]) * 1e10 # the largest, negative
      expect_identical(scan(w), c(0, max(abs(w))))
      for (bad in c(NA, NaN, Inf, -Inf)) {
        w[at] <- bad
        later <- min(n, at + 700L)
        if (later > at) w[later] <- NaN
        expect_identical(scan(w)[1L], as.double(at))
        w <- v
      }
    }
  }
})

test_that("data checks find the first bad value and reject overflowing magnitudes", {
  x <- matrix(1:6 + 0.5, 3, 2, dimnames = list(c("s1", "s2", "s3"), c("a", "b")))
  expect_equal(.Call(bahsic:::C_first_nonfinite, x), c(0, 6.5))
  x[2, 2] <- NaN
  expect_equal(.Call(bahsic:::C_first_nonfinite, x)[1], 5)
  expect_error(kernel_matrix(kernel_linear(), x), "feature 'b', sample 's2'")
  expect_error(kernel_matrix(kernel_linear(), matrix(c(1, 2e150), 2)), "beyond 1e150")
  y <- cbind(a = c(1, 1, 1), b = c(1, 2, 1), c = c(2, 2, 2))
  expect_equal(.Call(bahsic:::C_constant_columns, y), c(TRUE, FALSE, TRUE))
  expect_equal(.Call(bahsic:::C_constant_columns, y[1, , drop = FALSE]), c(TRUE, TRUE, TRUE))
})

test_that("C_scale_columns divides each column by the power of two of its largest |value|", {
  x <- cbind(c(3, -5, 1), c(0.25, 0.5, -0.125), 0, c(1e-310, 4e-320, 0), c(-1e300, 2, 7))
  # the oracle: 2^e with max |x_j| in [2^(e-1), 2^e), at most 2^-1021 (so 1 / 2^e is a double)
  unit <- apply(x, 2, function(v) {
    mx <- max(abs(v))
    if (mx == 0) 1 else 2^max(-1021, floor(log2(mx)) + 1)
  })
  got <- .Call(bahsic:::C_scale_columns, x, 1L)
  expect_identical(got[, -4], sweep(x, 2, unit, "/")[, -4])
  expect_identical(got[, 4], x[, 4] * 2^1000 * 2^21)
  mx <- apply(abs(got), 2, max)
  expect_true(all(mx < 1))
  expect_true(all(mx[c(1, 2, 5)] >= 0.5))
  # the same for any rescaling of a column by a power of two
  expect_identical(.Call(bahsic:::C_scale_columns, x[, 1:2] * 2^-700, 2L), got[, 1:2])
  # the columns on threads (enough work for them): the same numbers
  set.seed(3)
  big <- matrix(rnorm(300 * 2000) * 10^runif(2000, -5, 5)[rep(1:2000, each = 300)], 300)
  expect_identical(.Call(bahsic:::C_scale_columns, big, 2L),
                   .Call(bahsic:::C_scale_columns, big, 1L))
  expect_error(.Call(bahsic:::C_scale_columns, big, 0L), "'threads' must be")
})

test_that("the per-feature median of the gaps is exact on tied and rounded data", {
  set.seed(7)
  for (i in 1:100) {
    m <- sample(2:15, 1)
    v <- matrix(round(rnorm(m), 1), ncol = 1)
    expect_identical(.Call(bahsic:::C_median_columns, v, TRUE, 1L), median(dist(v)^2))
    expect_identical(.Call(bahsic:::C_median_columns, v, FALSE, 1L), median(dist(v)))
  }
})

test_that("kernel_matrix() takes every input class of the one data path", {
  set.seed(3)
  x <- matrix(rnorm(40), 10, 4, dimnames = list(paste0("s", 1:10), paste0("g", 1:4)))
  K <- kernel_matrix(kernel_gaussian(), x, threads = 1)
  skip_if_not_installed("Matrix")
  expect_identical(kernel_matrix(kernel_gaussian(), Matrix::Matrix(x, sparse = TRUE), threads = 1), K)
  expect_identical(kernel_matrix(kernel_gaussian(), as.data.frame(x), threads = 1), K)
  x[2, 3] <- NA
  expect_error(kernel_matrix(kernel_gaussian(), x), "missing values \\(NA/NaN\\), first at feature 'g3'")
})

test_that("the distance kernels are exact on data of any scale (powers of two)", {
  # x * 2^k is exact, and so are the distances of the copy the C code
  # rescales by a power of two when x's scale is extreme: the Gram matrix of
  # the median heuristic is the same, bit for bit, and its width scales
  set.seed(11)
  x <- matrix(rnorm(40 * 3), 40, 3)
  ref <- list(gaussian = kernel_matrix(kernel_gaussian(), x),
              laplace = kernel_matrix(kernel_laplace(), x))
  sigma <- function(K) attr(K, "kernel")$params$sigma
  for (k in c(-1000, -500, -300, 300, 480)) {
    xs <- x * 2^k
    if (k > -510) {
      K <- kernel_matrix(kernel_gaussian(), xs)
      expect_identical(as.vector(K), as.vector(ref$gaussian), label = paste("Gaussian, 2 ^", k))
      expect_identical(sigma(K), sigma(ref$gaussian) * 2^(-2 * k))
    }
    K <- kernel_matrix(kernel_laplace(), xs)
    expect_identical(as.vector(K), as.vector(ref$laplace), label = paste("Laplace, 2 ^", k))
    expect_identical(sigma(K), sigma(ref$laplace) * 2^-k)
    # fixed widths, in the data's units
    if (k > -510) {
      expect_identical(as.vector(kernel_matrix(kernel_gaussian(0.3 * 2^(-2 * k)), xs)),
                       as.vector(kernel_matrix(kernel_gaussian(0.3), x)))
    }
    expect_identical(as.vector(kernel_matrix(kernel_laplace(0.3 * 2^-k), xs)),
                     as.vector(kernel_matrix(kernel_laplace(0.3), x)))
    # the inverse-distance kernel is not scale-free: 1 / (|x - x'| + eps) scales
    expect_identical(as.vector(kernel_matrix(kernel_inverse_distance(0.01 * 2^k), xs)),
                     as.vector(kernel_matrix(kernel_inverse_distance(0.01), x)) * 2^-k)
  }
  # on their own scale per feature too (feature_scores())
  cls <- factor(rep(c("a", "b"), 20))
  for (k in c(-1000, 480)) {
    expect_identical(feature_scores(x * 2^k, cls, method = "hsic", kernel = kernel_laplace()),
                     feature_scores(x, cls, method = "hsic", kernel = kernel_laplace()))
  }
  expect_identical(feature_scores(x * 2^-500, cls, method = "mmd"),
                   feature_scores(x, cls, method = "mmd"))
  # and where the scale is not a power of two, the same to rounding
  expect_equal(hsic(x * 1e-155, x[, 1], kernel = kernel_laplace())$estimate,
               hsic(x, x[, 1], kernel = kernel_laplace())$estimate, tolerance = 1e-10)
})

test_that("a median-heuristic width beyond double precision is an error that says to rescale", {
  set.seed(12)
  x <- matrix(rnorm(30 * 3), 30, 3, dimnames = list(NULL, c("g1", "g2", "g3")))
  y <- x[, 1] + rnorm(30)
  cls <- factor(rep(c("a", "b"), 15))
  tiny <- x * 1e-155 # squared distances near 1e-310: 1 / median overflows
  small <- paste0("cannot set a kernel width for 'x': its values are so small \\(largest ",
                  "[0-9.e-]+\\).*Rescale 'x', e.g. with scale\\(\\) or by multiplying it")
  expect_error(kernel_matrix(kernel_gaussian(), tiny), small)
  expect_error(hsic(tiny, y), small)
  expect_error(hsic_test(tiny, y), small)
  expect_error(hsic_test(tiny, y, method = "permutation", n_perm = 10), small)
  # the approximate paths' width (median_sigma()) and LSMI's grid
  expect_error(hsic(tiny, y, approx = "ichol"), small)
  expect_error(hsic(tiny, y, approx = "rff"), small)
  expect_error(bahsic:::lsmi_sigma_grid(x * 1e-160), small)
  # per-feature widths are not reported: feature_scores() rescales each
  # feature by a power of two and scores it at an ordinary scale
  expect_equal(feature_scores(tiny, cls, method = "hsic"),
               feature_scores(x, cls, method = "hsic"), tolerance = 1e-10)
  expect_equal(feature_scores(cbind(x, g4 = x[, 1] * 1e-160), cls, method = "mmd")$score,
               feature_scores(cbind(x, g4 = x[, 1]), cls, method = "mmd")$score,
               tolerance = 1e-10)
  # the other way round (the data checks refuse such values before a kernel
  # sees them; the helper says so too)
  expect_error(bahsic:::pairwise_median(x * 2^600, TRUE),
               "its values are so large .* by dividing it by a power of ten")
  # within range: finite widths, as before
  expect_equal(bahsic:::pairwise_median(x, TRUE), median(dist(x)^2))
  expect_true(all(is.finite(bahsic:::lsmi_sigma_grid(x * 1e-150))))
  expect_identical(bahsic:::median_sigma(x * 2^-500, TRUE), bahsic:::median_sigma(x, TRUE) * 2^1000)
})

# The median of the pairwise (squared) distances, as the C code defines it:
# the mean of the two middle values, over the pairs that differ when more than
# half coincide. v: the n values of the pairs.
oracle_pair_median <- function(v) {
  middle <- function(v) {
    v <- sort(v)
    n <- length(v)
    0.5 * (v[(n + 1) %/% 2] + v[n %/% 2 + 1])
  }
  med <- middle(v)
  if (med == 0 && any(v > 0)) middle(v[v > 0]) else med
}

test_that("the median heuristic's selection is exact when most pairs share a bucket", {
  # over 2^20 squared distances within one bucket of their top 16 bits (as in
  # high-dimensional data, whose distances concentrate), split again by the
  # next bits; and two values only, left to the last bits. A second, zero
  # column keeps the several-feature path; the oracle squares the same exact
  # differences.
  set.seed(13)
  m <- 2100
  two_clusters <- c(sample(0:1024, m / 2, TRUE), 1.1 * 2^30 + sample(0:1024, m / 2, TRUE))
  binary <- as.double(runif(m) < 0.6)
  # (under valgrind the first data and the even count only: the R oracle's
  # sort of 2^21 values is most of the time there)
  for (v in test_cases(list(two_clusters, binary), 1L)) {
    for (n in test_cases(c(m, m - 1), 1L)) { # an even and an odd number of pairs
      g <- outer(v[seq_len(n)], v[seq_len(n)], "-")
      d2 <- g[upper.tri(g)]^2
      x <- cbind(v[seq_len(n)], 0)
      expect_identical(.Call(bahsic:::C_median_pairwise, x, TRUE, 1L), oracle_pair_median(d2))
      expect_identical(.Call(bahsic:::C_median_pairwise, x, FALSE, 1L),
                       oracle_pair_median(sqrt(d2)))
    }
  }
})

test_that("a linear or polynomial kernel that would overflow is an error naming its degree", {
  set.seed(14)
  m <- 50
  x <- matrix(rnorm(m * 20), m, 20)
  y <- x[, 1] + rnorm(m)
  overflow <- paste0("The polynomial kernel of degree 200 overflows on 'x': its largest value.*",
                     "Use a lower degree, or rescale 'x'")
  expect_error(kernel_matrix(kernel_polynomial(degree = 200), x), overflow)
  expect_error(kernel_matrix(kernel_polynomial(degree = 20), x * 1e20),
               "polynomial kernel of degree 20 overflows")
  expect_error(hsic(x, y, kernel = kernel_polynomial(degree = 200)), overflow)
  # per feature the largest value is that of one coordinate: no overflow
  # here, one at ten times the scale
  expect_true(all(is.finite(feature_scores(x, y, method = "hsic",
                                           kernel = kernel_polynomial(degree = 200))$score)))
  expect_error(feature_scores(x * 10, y, method = "hsic", kernel = kernel_polynomial(degree = 200)),
               "polynomial kernel of degree 200 overflows")
  expect_error(hsic_test(x, y, kernel = kernel_polynomial(degree = 200)), overflow)
  # the selectors check the standardised data before the C loop
  expect_error(bahsic(x, y, kernel = kernel_polynomial(degree = 200)), overflow)
  expect_error(fohsic(x, y, kernel = kernel_polynomial(degree = 200), n_features = 2), overflow)
  expect_error(bahsic(x * 1e20, y, kernel = kernel_polynomial(degree = 20), standardize = FALSE),
               "degree 20 overflows")
  # the bound is the largest value, on the diagonal: a degree just within the
  # limit (m^2 values below 2^1000) gives finite kernels and estimates
  top <- max(rowSums(x^2)) + 1
  degree <- floor((1000 - 2 * log2(m)) / log2(top))
  K <- kernel_matrix(kernel_polynomial(degree = degree), x)
  expect_true(all(is.finite(K)))
  expect_equal(max(K), top^degree, tolerance = 1e-12)
  h <- hsic(x, y, kernel = kernel_polynomial(degree = degree))
  expect_true(is.finite(h$estimate) && is.finite(h$se) && h$se > 0)
  expect_true(is.finite(hsic_test(x, y, kernel = kernel_polynomial(degree = degree))$p.value))
  expect_error(kernel_matrix(kernel_polynomial(degree = degree + 2), x),
               sprintf("degree %d overflows", degree + 2))
  # the linear kernel within the data checks' range (|x| <= 1e150; 1e149, not
  # the limit itself, which R's parser may round above 1e150 under valgrind)
  expect_error(kernel_matrix(kernel_linear(), matrix(1e149, 4, 300)),
               "The linear kernel overflows on 'x': its largest value, max_i \\|\\|x_i\\|\\|\\^2")
  expect_true(all(is.finite(kernel_matrix(kernel_linear(), x * 1e140))))
})

# squared distances between the rows of x, summed in R over the features
oracle_sqdist <- function(x) {
  x <- as.matrix(x)
  D2 <- matrix(0, nrow(x), nrow(x))
  for (j in seq_len(ncol(x))) D2 <- D2 + outer(x[, j], x[, j], "-")^2
  D2
}

# the median over the pairs a < b of a distance matrix
oracle_pair_median <- function(D) median(D[upper.tri(D)])

test_that("the Gram matrix's AVX2 loops give the baseline loops' values, for 1 and 2 threads", {
  set.seed(21)
  # m odd and not a multiple of 4 (the loops' tails), d with and without a
  # remainder after the sweeps of four features, one feature
  kernels <- list(kernel_gaussian(), kernel_laplace(), kernel_gaussian(0.07), kernel_laplace(0.4),
                  kernel_inverse_distance(), kernel_polynomial(3), kernel_linear())
  with_simd <- function(simd, code) {
    old <- options(bahsic.simd = simd)
    on.exit(options(old))
    code
  }
  for (case in test_cases(list(c(37, 1), c(101, 6), c(130, 8)))) {
    x <- matrix(rnorm(case[1] * case[2]), case[1], case[2])
    for (k in kernels) {
      base <- with_simd(FALSE, kernel_matrix(k, x, threads = 1L))
      fast <- with_simd(TRUE, kernel_matrix(k, x, threads = 1L))
      fast2 <- with_simd(TRUE, kernel_matrix(k, x, threads = 2L))
      expect_identical(fast, base)
      expect_identical(fast2, fast)
    }
    # and both are the plain-R kernels
    D2 <- oracle_sqdist(x)
    s <- 1 / oracle_pair_median(D2)
    K <- kernel_matrix(kernel_gaussian(), x)
    expect_equal(attr(K, "kernel")$params$sigma, s, tolerance = 1e-13)
    expect_equal(unclass(K), exp(-s * D2), tolerance = 1e-13, ignore_attr = TRUE)
    s <- 1 / oracle_pair_median(sqrt(D2))
    K <- kernel_matrix(kernel_laplace(), x)
    expect_equal(attr(K, "kernel")$params$sigma, s, tolerance = 1e-13)
    expect_equal(unclass(K), exp(-s * sqrt(D2)), tolerance = 1e-13, ignore_attr = TRUE)
  }
})

test_that("above 1000 samples the median heuristic takes 1000 evenly spaced samples", {
  skip_on_cran()
  set.seed(22)
  m <- 1500
  x <- matrix(rnorm(m * 5), m, 5)
  rows <- round(seq(1, m, length.out = 1000))
  D2 <- oracle_sqdist(x)
  seed <- .Random.seed
  K <- kernel_matrix(kernel_gaussian(), x)
  # deterministic: no random numbers drawn
  expect_identical(.Random.seed, seed)
  s <- attr(K, "kernel")$params$sigma
  expect_equal(s, 1 / oracle_pair_median(D2[rows, rows]), tolerance = 1e-13)
  expect_false(isTRUE(all.equal(s, 1 / oracle_pair_median(D2), tolerance = 1e-6)))
  expect_match(attr(K, "kernel")$label, "median heuristic on 1000 samples", fixed = TRUE)
  expect_equal(unclass(K), exp(-s * D2), tolerance = 1e-13, ignore_attr = TRUE)
  KL <- kernel_matrix(kernel_laplace(), x)
  sl <- attr(KL, "kernel")$params$sigma
  expect_equal(sl, 1 / oracle_pair_median(sqrt(D2[rows, rows])), tolerance = 1e-13)
  expect_equal(unclass(KL), exp(-sl * sqrt(D2)), tolerance = 1e-13, ignore_attr = TRUE)
  # the same width as the approximations' (median_sigma()) and as hsic()'s
  expect_identical(s, bahsic:::median_sigma(x, TRUE))
  y <- x[, 1]^2 + rnorm(m)
  h <- hsic(x, y)
  expect_identical(h$kernel$params$sigma, s)
  expect_identical(h$estimate, hsic(x, y, kernel = kernel_gaussian(s))$estimate)
  # hsic_test() shares the data kernel; the label kernel keeps all samples
  expect_identical(hsic_test(x, y)$statistic, hsic_test(x, y, kernel = kernel_gaussian(s))$statistic)
  expect_equal(h$kernel_y$params$kernel$params$sigma, 1 / oracle_pair_median(oracle_sqdist(y)),
               tolerance = 1e-13)
  # an explicit width is used as given
  K <- kernel_matrix(kernel_gaussian(0.2), x)
  expect_equal(unclass(K), exp(-0.2 * D2), tolerance = 1e-13, ignore_attr = TRUE)
  # at 1000 samples every pair counts
  K <- kernel_matrix(kernel_gaussian(), x[1:1000, ])
  expect_equal(attr(K, "kernel")$params$sigma, 1 / oracle_pair_median(D2[1:1000, 1:1000]),
               tolerance = 1e-13)
  # when the 1000 samples all coincide, the median over all samples
  z <- matrix(0, m, 2)
  z[-rows, ] <- rnorm(2 * (m - 1000))
  K <- kernel_matrix(kernel_gaussian(), z)
  expect_equal(attr(K, "kernel")$params$sigma, 1 / oracle_pair_median(oracle_sqdist(z)),
               tolerance = 1e-13)
  # the selectors keep the median over all samples
  expect_equal(bahsic:::problem_kernel(list(x = x, m = m, mode = "exact"), kernel_gaussian(),
                                       "fixed")$kernel$params$sigma,
               1 / oracle_pair_median(D2), tolerance = 1e-13)
})

# ---- the rule for ties: numerical residue beside zeros -------------------------

# The median heuristic's median by its rule for ties (?kernels, "Ties and
# numerical residue"), in plain R: q, the squared distances of the pairs; a
# pair ties when its squared distance is at most .Machine$double.eps times the
# largest (its distance at most sqrt(.Machine$double.eps), all.equal()'s
# tolerance, times the largest), and when the middle values are ties the
# median is over the pairs that are not. squared = FALSE: the median of the
# distances.
oracle_tie_median <- function(q, squared = TRUE) {
  middle <- function(v) {
    v <- sort(v)
    n <- length(v)
    c(v[(n + 1) %/% 2], v[n %/% 2 + 1])
  }
  mid <- middle(q)
  tie <- .Machine$double.eps * max(q)
  if (mid[2L] <= tie) {
    if (all(q <= tie)) return(0)
    mid <- middle(q[q > tie])
  }
  if (!squared) mid <- sqrt(mid)
  0.5 * (mid[1L] + mid[2L])
}

# the squared distances of the pairs a < b of one feature, as the C code
# computes them (the square of the exact difference)
pair_sq <- function(v) {
  g <- outer(v, v, "-")^2
  g[upper.tri(g)]
}

# A gene as single-cell quantification leaves it: 0 in 65% of the samples,
# a residue between 10^lo and 1e-8 in most others, expressed (0.5 to 3.5) in a
# few. lo = -170: the median of residue against zeros is subnormal.
residue_gene <- function(m, lo = -134) {
  v <- numeric(m)
  i <- sample(m)
  n0 <- round(0.65 * m)
  n_big <- max(2L, round(0.04 * m))
  res <- i[seq.int(n0 + 1L, m - n_big)]
  v[res] <- 10^stats::runif(length(res), lo, -8)
  v[i[seq.int(m - n_big + 1L, m)]] <- c(3.5, stats::runif(n_big - 1L, 0.5, 3.5))
  v
}

test_that("every median heuristic follows the rule for ties on residue genes (plain-R oracle)", {
  set.seed(21)
  for (m in c(271, 40, 41)) { # even and odd numbers of pairs
    for (lo in c(-134, -170)) {
      v <- residue_gene(m, lo)
      q <- pair_sq(v)
      med <- oracle_tie_median(q)
      # the width is set by the expressed samples, far from the residue's
      expect_gt(med, 1e-4)
      x1 <- matrix(v, ncol = 1)
      # one feature (the sorted gaps), the triangle of several (a zero
      # column adds nothing), and the Gram matrix's own
      expect_identical(.Call(bahsic:::C_median_columns, x1, TRUE, 1L), med)
      expect_identical(.Call(bahsic:::C_median_columns, x1, FALSE, 1L), oracle_tie_median(q, FALSE))
      expect_identical(.Call(bahsic:::C_median_pairwise, x1, TRUE, 1L), med)
      expect_identical(.Call(bahsic:::C_median_pairwise, cbind(v, 0), TRUE, 1L), med)
      expect_identical(.Call(bahsic:::C_median_pairwise, cbind(v, 0), FALSE, 1L),
                       oracle_tie_median(q, FALSE))
      K <- kernel_matrix(kernel_gaussian(), x1, threads = 1)
      expect_identical(attr(K, "kernel")$params$sigma, 1 / med)
      K <- kernel_matrix(kernel_laplace(), x1, threads = 1)
      expect_identical(attr(K, "kernel")$params$sigma, 1 / oracle_tie_median(q, FALSE))
      # the approximations' width
      expect_identical(bahsic:::median_sigma(x1, TRUE), 1 / med)
      # all the residue ties with 0: the width of the gene with it set to 0
      # (to the rounding of 3.5 - 1e-9)
      v0 <- ifelse(v < 1e-6, 0, v)
      expect_equal(med, oracle_tie_median(pair_sq(v0)), tolerance = 1e-8)
    }
  }
  # a feature whose values are all residue has its own width; one that is
  # constant but for exact zeros none (width 1, a constant kernel)
  v <- c(rep(0, 20), 10^seq(-120, -9, length.out = 10))
  expect_identical(.Call(bahsic:::C_median_columns, matrix(v, ncol = 1), TRUE, 1L),
                   oracle_tie_median(pair_sq(v)))
  expect_identical(.Call(bahsic:::C_median_columns, matrix(0, 9, 1), TRUE, 1L), 0)
  expect_true(all(kernel_matrix(kernel_gaussian(), matrix(0, 9, 1)) == 1))
})

test_that("one feature's median (its sorted gaps narrowed by counts, then gathered) is the oracle's", {
  # sizes around and far beyond what the selection gathers at the end (m
  # gaps), so that the counts' narrowing, the gathering and the fallback for
  # many equal gaps all run; shapes whose gaps are smooth, heavy-tailed,
  # tied or mostly zero
  set.seed(23)
  shapes <- list(normal = function(m) rnorm(m), cauchy = function(m) rcauchy(m),
                 outlier = function(m) c(rnorm(m - 1), 1e6),
                 lognormal = function(m) exp(rnorm(m, sd = 5)),
                 integers = function(m) as.double(sample(0:4, m, TRUE)),
                 two_points = function(m) as.double(sample(c(-1, 1), m, TRUE)),
                 mostly_zero = function(m) replace(numeric(m), sample(m, max(1, m %/% 8)), 1),
                 repeated = function(m) rep(rnorm(5), length.out = m),
                 rounded = function(m) round(rnorm(m), 2))
  # (under valgrind two sizes and three shapes: the oracle's sorts are most
  # of the time there)
  for (m in test_cases(c(257, 3, 2, 17, 256, 700), 2L)) {
    for (name in test_cases(names(shapes), 3L)) {
      v <- shapes[[name]](m)
      q <- pair_sq(v)
      x1 <- matrix(v, ncol = 1)
      what <- sprintf("%s, m = %d", name, m)
      expect_identical(.Call(bahsic:::C_median_pairwise, x1, TRUE, 1L), oracle_tie_median(q),
                       label = what)
      expect_identical(.Call(bahsic:::C_median_pairwise, x1, FALSE, 1L),
                       oracle_tie_median(q, FALSE), label = what)
    }
  }
  # every column on its own, on one thread or two: each its oracle's
  x <- sapply(rep(names(shapes), length.out = 400), function(name) shapes[[name]](150))
  x[, 1] <- x[, 1] * 2^700 # a column rescaled before its median
  ref <- vapply(seq_len(ncol(x)), function(j) {
    .Call(bahsic:::C_median_pairwise, x[, j, drop = FALSE], TRUE, 1L)
  }, 0)
  expect_identical(ref[-1], unname(apply(x[, -1], 2, function(v) oracle_tie_median(pair_sq(v)))))
  expect_identical(.Call(bahsic:::C_median_columns, x, TRUE, 1L), ref)
  expect_identical(.Call(bahsic:::C_median_columns, x, TRUE, 2L), ref)
  expect_error(.Call(bahsic:::C_median_columns, x, TRUE, 0L), "threads")
})

test_that("the median of many distances (bracketed by a sample, counted, gathered) is the oracle's", {
  # from 2^18 distances the selection brackets the middle ones by a sample,
  # counts and gathers on the threads; ties (the rule for ties, a bracket of
  # one value) and skewed values included. A zero column keeps the
  # several-feature path, and the oracle squares the same exact differences.
  set.seed(24)
  shapes <- list(normal = function(m) rnorm(m), integers = function(m) as.double(sample(0:3, m, TRUE)),
                 mostly_zero = function(m) replace(numeric(m), sample(m, m %/% 5), 1),
                 residue = function(m) residue_gene(m), repeated = function(m) rep(rnorm(3), length.out = m),
                 cauchy = function(m) rcauchy(m), lognormal = function(m) exp(rnorm(m, sd = 5)))
  for (m in c(900, 902)) { # an even and an odd number of pairs
    for (name in test_cases(names(shapes), 1L)) {
      v <- shapes[[name]](m)
      q <- pair_sq(v)
      x <- cbind(v, 0)
      for (threads in 1:2) {
        what <- sprintf("%s, m = %d, %d thread(s)", name, m, threads)
        expect_identical(.Call(bahsic:::C_median_pairwise, x, TRUE, threads), oracle_tie_median(q),
                         label = what)
        expect_identical(.Call(bahsic:::C_median_pairwise, x, FALSE, threads),
                         oracle_tie_median(q, FALSE), label = what)
      }
    }
  }
})

test_that("the rule for ties leaves the width of every ordinary feature as the plain median", {
  # the plain median of the pairs, over those that differ when more than half
  # coincide: what the median heuristic has always been
  plain <- function(q) if (median(q) == 0 && any(q > 0)) median(q[q > 0]) else median(q)
  set.seed(22)
  m <- 57
  genes <- list(normal = rnorm(m), rounded = round(rnorm(m), 1), log_counts = log1p(rpois(m, 0.4)),
                counts = as.double(rpois(m, 3)), outlier = c(rnorm(m - 1), 1e6),
                lognormal = exp(rnorm(m, sd = 5)), binary = as.double(runif(m) < 0.2),
                offset = 1e6 + rnorm(m), sparse = c(rep(0, 50), 1e-3 * (1:7)))
  for (name in names(genes)) {
    v <- genes[[name]]
    q <- pair_sq(v)
    x1 <- matrix(v, ncol = 1)
    expect_identical(.Call(bahsic:::C_median_columns, x1, TRUE, 1L), plain(q), label = name)
    expect_identical(.Call(bahsic:::C_median_pairwise, cbind(v, 0), TRUE, 1L), plain(q), label = name)
    expect_identical(attr(kernel_matrix(kernel_gaussian(), x1), "kernel")$params$sigma,
                     1 / plain(q), label = name)
  }
  # several features: the triangle of the Gram matrix, against R's dist()
  x <- matrix(rnorm(40 * 5), 40, 5)
  expect_equal(attr(kernel_matrix(kernel_gaussian(), x), "kernel")$params$sigma,
               1 / median(dist(x)^2), tolerance = 1e-14)
})

test_that("residue genes get a width in feature_scores(), hsic(), hsic_test() and kernel_matrix(), dense and sparse", {
  set.seed(23)
  m <- 271
  res <- sapply(c(-134, -170, -150), function(lo) residue_gene(m, lo))
  x <- cbind(res, matrix(rnorm(m * 3), m, 3))
  colnames(x) <- paste0("g", 1:6)
  hours <- rep(c(0, 12, 24, 48, 72), length.out = m)
  cls <- factor(ifelse(hours < 30, "early", "late"))
  xs <- Matrix::Matrix(x, sparse = TRUE)
  expect_s4_class(xs, "dgCMatrix")
  for (method in c("hsic", "mmd", "kta")) {
    y <- if (method == "hsic") hours else cls
    fs <- feature_scores(x, y, method = method, threads = 1)
    expect_true(all(is.finite(fs$score)), label = method)
    expect_identical(feature_scores(xs, y, method = method, threads = 1), fs)
    # each residue gene scored with the oracle's width, given as a fixed one
    for (j in 1:3) {
      sigma <- 1 / oracle_tie_median(pair_sq(x[, j]))
      fixed <- feature_scores(x[, j, drop = FALSE], y, method = method,
                              kernel = kernel_gaussian(sigma), threads = 1)
      expect_equal(fs$score[j], fixed$score, tolerance = 1e-10, label = paste(method, j))
    }
    # the residue as 0, to rounding
    x0 <- x
    x0[, 1:3][x0[, 1:3] < 1e-6] <- 0
    expect_equal(fs$score, feature_scores(x0, y, method = method, threads = 1)$score,
                 tolerance = 1e-7)
    # the ordinary genes as on their own
    expect_identical(fs$score[4:6],
                     feature_scores(x[, 4:6], y, method = method, threads = 1)$score)
  }
  for (j in 1:3) {
    v <- x[, j, drop = FALSE]
    sigma <- 1 / oracle_tie_median(pair_sq(x[, j]))
    h <- hsic(v, hours, threads = 1)
    expect_identical(h$kernel$params$sigma, sigma)
    expect_true(is.finite(h$estimate))
    expect_identical(hsic(xs[, j, drop = FALSE], hours, threads = 1)$estimate, h$estimate)
    tt <- hsic_test(v, hours, threads = 1)
    expect_true(tt$p.value >= 0 && tt$p.value <= 1)
    expect_identical(hsic_test(xs[, j, drop = FALSE], hours, threads = 1)$p.value, tt$p.value)
    K <- kernel_matrix(kernel_gaussian(), xs[, j, drop = FALSE], threads = 1)
    expect_identical(attr(K, "kernel")$params$sigma, sigma)
    # as the outcome: the regression label kernel's width
    h <- hsic(x[, 4:6], x[, j], threads = 1)
    expect_identical(h$kernel_y$params$kernel$params$sigma, sigma)
    # the approximations
    expect_identical(hsic(v, hours, approx = "rff", threads = 1)$kernel$params$sigma, sigma)
  }
})

test_that("the selectors' width policy follows the rule for ties within blocks", {
  # "optimize" takes its grid relative to the median over the pairs within
  # the blocks (approx = "block"); the residue gene, last left, gets a width
  # on the grid around the oracle's
  set.seed(24)
  m <- 60
  v <- residue_gene(m, -170)
  x <- cbind(g1 = v, g2 = rnorm(m), g3 = rnorm(m))
  y <- factor(ifelse(v > 0.1, "on", "off"))
  fit <- bahsic(x, y, sigma = "optimize", approx = approx_block(size = 20), threads = 1)
  expect_identical(fit$features$feature[fit$features$rank == 1], "g1")
  z <- (v - mean(v)) / stats::sd(v)
  q <- unlist(lapply(fit$settings$blocks, function(b) pair_sq(z[b])))
  ratio <- log2(utils::tail(fit$path$sigma, 1) * oracle_tie_median(q))
  expect_lt(min(abs(ratio - (-3:3))), 1e-8)
})

test_that("a precomputed kernel may be a Matrix, and must be positive semi-definite", {
  set.seed(3)
  x <- matrix(rnorm(40), 20, 2)
  K <- tcrossprod(x)
  skip_if_not_installed("Matrix")
  for (Km in list(Matrix::Matrix(K, sparse = TRUE), Matrix::Matrix(K))) {
    expect_identical(kernel_precomputed(Km)$params$K, K)
  }
  expect_error(kernel_precomputed(-K),
               paste0("'K' is not a kernel matrix: its diagonal entry K\\[[0-9]+, [0-9]+\\] = ",
                      "-[0-9.]+ is negative.*Matrix::nearPD"))
  expect_error(hsic_test(x, rnorm(20), kernel = kernel_precomputed(-K)), "is negative")
  # a positive diagonal but an entry beyond sqrt(K[i, i] K[j, j])
  bad <- diag(3)
  bad[1, 2] <- bad[2, 1] <- 2
  expect_error(kernel_precomputed(bad),
               paste0("not positive semi-definite: \\|K\\[2, 1\\]\\| = 2 exceeds ",
                      "sqrt\\(K\\[2, 2\\] K\\[1, 1\\]\\) = 1"))
  # indefinite but within those bounds: a warning naming the eigenvalues
  ind <- matrix(c(1, 0.9, -0.9, 0.9, 1, 0.9, -0.9, 0.9, 1), 3)
  expect_warning(kernel_precomputed(ind),
                 "not positive semi-definite: its smallest eigenvalue is -0\\.8, its largest 1\\.9")
  # rounding errors pass
  expect_no_warning(kernel_precomputed(K - 1e-12 * diag(20)))
  expect_error(kernel_precomputed(data.frame(a = 1:2, b = 1:2)),
               "'K' must be a square numeric matrix \\(samples x samples\\), not a data.frame")
})
