# bahsic()'s screen (R/select-screen.R): seeds from per-gene HSIC and from
# pairs whose interaction is significant, ranked first.

xor_among_noise <- function(seed, m = 100L, p = 200L, planted = c(37L, 150L)) {
  set.seed(seed)
  x <- matrix(rnorm(m * p), m)
  colnames(x) <- paste0("g", seq_len(p))
  list(x = x, y = factor(sign(x[, planted[1L]]) * sign(x[, planted[2L]])), planted = planted)
}

test_that("screen = \"none\" is BAHSIC as before the screen (a stored ranking)", {
  fit <- bahsic(golub$x[, 1:300], golub$y, screen = "none", threads = 1L)
  # bahsic(golub$x[, 1:300], golub$y) before the screen existed
  expect_identical(fit$ranking[1:12], c(
    "D14874_at", "D10495_at", "D26308_at", "D14658_at", "D16469_at", "D38524_at",
    "D63880_at", "D63476_at", "D38548_at", "D43948_at", "AJ000480_at",
    "AFFX-HUMTFRR/M11507_5_at"))
  expect_null(fit$screen)
  expect_null(fit$settings$screen)
})

test_that("the default ranks an XOR pair among 200 noise genes first; screen = \"none\" does not", {
  d <- xor_among_noise(1L)
  fit <- bahsic(d$x, d$y, threads = 1L)
  none <- bahsic(d$x, d$y, screen = "none", threads = 1L)
  expect_true(all(fit$features$rank[d$planted] <= 5L))
  expect_true(all(none$features$rank[d$planted] > 5L))
  expect_identical(sort(c(fit$screen$pairs$index1[1L], fit$screen$pairs$index2[1L])), d$planted)
  expect_true(all(fit$screen$pairs$adj_p_value <= 0.05))
  expect_match(fit$settings$screen, "^nonlinear, 2 genes seeded \\(1 pair")
  expect_output(print(fit), "screen: nonlinear, 2 genes seeded")
  # a full ranking, and a path that goes on from the others' run to the seeds'
  expect_setequal(fit$features$rank, seq_len(ncol(d$x)))
  expect_identical(fit$path$iteration, seq_len(nrow(fit$path)))
  expect_identical(tail(fit$path$n_features, 2L), 2:1)
})

test_that("the screen's pair statistic is the linear HSIC of the product gene, tested as a gene", {
  d <- xor_among_noise(1L)
  fit <- bahsic(d$x, d$y, threads = 1L)
  pr <- fit$screen$pairs[1L, ]
  W <- bahsic:::weight_matrix(bahsic:::label_gram(default_label_kernel(d$y), d$y), 100L)
  # the genes standardised, less their class means
  xs <- scale(d$x)
  xs <- xs - apply(xs, 2L, function(g) ave(g, d$y))
  z <- xs[, pr$index1] * xs[, pr$index2]
  expect_equal(pr$interaction, drop(crossprod(z, W %*% z)), tolerance = 1e-10)
  # and of the bounded genes tanh(1.5 x), less their class means
  b <- tanh(1.5 * xs)
  b <- b - apply(b, 2L, function(g) ave(g, d$y))
  zb <- b[, pr$index1] * b[, pr$index2]
  expect_equal(pr$interaction_bounded, drop(crossprod(zb, W %*% zb)), tolerance = 1e-10)
  fs <- feature_scores(cbind(z = z, zb = zb), d$y, method = "hsic", kernel = kernel_linear())
  expect_equal(pr$p_value, min(1, 2 * min(fs$p_value)), tolerance = 1e-10)
  # BH as one of the 19,900 pairs
  expect_lte(pr$adj_p_value, pr$p_value * 200 * 199 / 2 * (1 + 1e-12))
  expect_gte(pr$adj_p_value, pr$p_value)
})

test_that("the screen's candidate pairs are the top ratios of a plain-R screen", {
  set.seed(4)
  x <- scale(matrix(rnorm(30 * 12), 30))
  W <- bahsic:::weight_matrix(bahsic:::label_gram(default_label_kernel(factor(rep(1:3, 10))),
                                                  factor(rep(1:3, 10))), 30L)
  f <- bahsic:::screen_label_factor(W)
  expect_length(f$values, 2L)
  got <- bahsic:::screen_candidate_pairs(x, f, 10L, 1L)
  ratio <- outer(seq_len(12), seq_len(12), Vectorize(function(i, j) {
    z <- x[, i] * x[, j]
    drop(crossprod(z, W %*% z)) / sqrt(sum(x[, i]^4) * sum(x[, j]^4))
  }))
  ratio[lower.tri(ratio, diag = TRUE)] <- -Inf
  top <- order(-ratio)[1:10]
  expect_identical(got$i, as.integer(row(ratio)[top]))
  expect_identical(got$j, as.integer(col(ratio)[top]))
  # the screen runs in float32 (the candidates are then tested exactly in double)
  expect_equal(got$ratio, ratio[top], tolerance = 1e-5)
})

test_that("on null data without a seed the default is screen = \"none\"", {
  set.seed(5)
  x <- matrix(rnorm(60 * 150), 60)
  y <- factor(rep(1:2, 30))
  fit <- bahsic(x, y, threads = 1L)
  none <- bahsic(x, y, screen = "none", threads = 1L)
  expect_length(fit$screen$seeds, 0L)
  expect_identical(fit$features, none$features)
  expect_identical(fit$path, none$path)
  expect_match(fit$settings$screen, "^nonlinear, 0 genes seeded")
})

test_that("a U-shaped gene (numeric outcome) is seeded and ranked first", {
  set.seed(6)
  x <- matrix(rnorm(100 * 300), 100)
  y <- log(stats::rexp(100, rate = exp(1.5 * x[, 40]^2)))
  fit <- bahsic(x, y, threads = 1L)
  expect_true(40L %in% fit$screen$genes$index)
  expect_identical(fit$features$rank[40], 1L)
})

test_that("threads = 1 and 2 give the same screen and ranking", {
  d <- xor_among_noise(2L, p = 600L)
  f1 <- bahsic(d$x, d$y, threads = 1L)
  f2 <- suppressWarnings(bahsic(d$x, d$y, threads = 2L))
  expect_identical(f1$features, f2$features)
  expect_identical(f1$path, f2$path)
  expect_identical(f1$screen, f2$screen)
})

test_that("n_features stops the others' run or the seeds' run", {
  d <- xor_among_noise(1L)
  full <- bahsic(d$x, d$y, threads = 1L)
  one <- bahsic(d$x, d$y, n_features = 1L, threads = 1L)
  expect_identical(one$features$rank[d$planted], full$features$rank[d$planted])
  five <- bahsic(d$x, d$y, n_features = 5L, threads = 1L)
  expect_identical(selected(five, 2), selected(full, 2))
})

test_that("screen applies where it can; asked for elsewhere it is an error that says why", {
  d <- xor_among_noise(1L, p = 30L, planted = c(3L, 7L))
  lin <- bahsic(d$x, d$y, kernel = kernel_linear(), threads = 1L)
  expect_null(lin$screen)
  expect_error(bahsic(d$x, d$y, kernel = kernel_linear(), screen = "nonlinear"),
               "screen = \"nonlinear\" needs the Gaussian or Laplace kernel.*screen = \"none\"")
  expect_error(bahsic(d$x, d$y, estimator = "unbiased", screen = "nonlinear"),
               "needs estimator = \"biased\"")
  expect_error(bahsic(d$x, d$y, approx = "block", screen = "nonlinear"),
               "needs approx = \"exact\"")
  expect_error(bahsic(d$x, d$y, screen = "pairs"), "'screen'")
  expect_error(bahsic(d$x, d$y, screen = NA), "'screen' must be \"nonlinear\"")
  expect_error(fohsic(d$x, d$y, screen = "none"), "fohsic\\(\\) has no argument 'screen'")
})

test_that("the screen's column passes in C are the R expressions they replace, bit for bit", {
  set.seed(7)
  x <- matrix(rnorm(9 * 6, sd = 3), 9, dimnames = list(paste0("s", 1:9), paste0("g", 1:6)))
  x[, 2] <- 0            # a constant gene
  x[1:3, 3] <- c(1, -1, 0)
  x[, 4] <- x[, 4] * 1e-150 # tiny values
  expect_identical(.Call(bahsic:::C_centre_columns, x), sweep(x, 2L, colMeans(x)))
  i <- c(1L, 6L, 3L, 3L)
  j <- c(2L, 5L, 3L, 6L)
  y <- unname(x)
  for (threads in 1:2) {
    expect_identical(.Call(bahsic:::C_bounded_columns, x, threads), tanh(1.5 * x))
    expect_identical(.Call(bahsic:::C_column_products, x, i, j, threads), x[, i] * x[, j])
    expect_identical(.Call(bahsic:::C_column_products, x, integer(), integer(), threads),
                     x[, integer()] * x[, integer()])
    expect_identical(.Call(bahsic:::C_column_products, y, i, j, threads), y[, i] * y[, j])
  }
  expect_error(.Call(bahsic:::C_column_products, x, 7L, 1L, 1L), "outside the 6 columns")
  expect_error(.Call(bahsic:::C_column_products, x, 1L, c(1L, 2L), 1L), "same length")
  expect_error(.Call(bahsic:::C_bounded_columns, x, 0L), "'threads' must be")
  # enough work for threads (the passes go parallel from 1e6 operations):
  # the same numbers on 1 and 2
  set.seed(8)
  big <- matrix(rnorm(200 * 700, sd = 2), 200)
  for (threads in 1:2) {
    expect_identical(.Call(bahsic:::C_bounded_columns, big, threads), tanh(1.5 * big))
  }
})

test_that("the pair screen divides the genes as it packs them, as R's expression does", {
  # scale = TRUE screens x / rep(sqrt(ifelse(q > 0, q, 1)), each = nrow(x)),
  # q = sqrt(colSums(x^4)), without that copy: the same pairs and scores as
  # the screen of the copy (the floats of the same quotients)
  set.seed(7)
  x <- matrix(rnorm(9 * 40, sd = 3), 9)
  x[, 2] <- 0            # a constant gene: q = 0, kept at 0
  x[1:3, 3] <- c(1, -1, 0)  # the special cases of R's `^`
  x[, 4] <- x[, 4] * 1e-150 # tiny values
  x[, 5] <- x[, 5] * 1e150  # and large ones
  U <- matrix(rnorm(18), 9)
  cc <- c(1.5, 0.25)
  screened <- function(xx, UU) {
    q <- sqrt(colSums(xx^4))
    xs <- xx / rep(sqrt(ifelse(q > 0, q, 1)), each = nrow(xx))
    want <- bahsic:::pair_top_lowrank(xs, UU, cc, 300L, threads = 1L)
    for (threads in 1:2) {
      expect_identical(bahsic:::pair_top_lowrank(xx, UU, cc, 300L, threads = threads,
                                                 scale = TRUE), want)
    }
    want
  }
  want <- screened(x, U)
  screened(matrix(rnorm(200 * 700, sd = 2), 200), matrix(rnorm(400), 200))
  # scale = FALSE leaves the genes as they are: other scores
  plain <- bahsic:::pair_top_lowrank(x, U, cc, 300L)
  expect_identical(lengths(plain), lengths(want))
  expect_false(identical(plain$score, want$score))
  expect_error(bahsic:::pair_top_lowrank(x, U, cc, 5L, scale = NA), "'scale' must be TRUE or FALSE")
})

test_that("columns less their part along a basis in C are v - Q %*% crossprod(Q, v), bit for bit", {
  # R's matrix products with the reference BLAS that R ships: every entry a
  # sum from 0 in the order of the rows (Q'v) or of Q's columns (Q C), each
  # product rounded before it is added; the package's loop keeps that order
  # whatever BLAS R is linked to, so the comparison holds where R's BLAS
  # sums so (checked below: another BLAS, or one built to fuse multiply and
  # add, sums otherwise) and where the compiler does not fuse them either
  # (x86-64 without FMA flags, as R builds packages)
  skip_if_not(R.version$arch == "x86_64", "products may be fused on this architecture")
  a <- matrix(c(1e16, 1, -1e16, 1, 3e-8, 1e8, -7, 2^-30), 8, 2)
  b <- matrix(c(1, 1, 1, 1, 1e8, 3, -1e-8, 5, 1 / 3, 7, 1e-3, 2, 9, -4, 1e10, 1), 8, 2)
  plain <- matrix(0, 2, 2)
  for (i in 1:2) for (j in 1:2) for (k in 1:8) plain[i, j] <- plain[i, j] + a[k, i] * b[k, j]
  skip_if_not(identical(crossprod(a, b), plain), "R's BLAS sums in another order")
  expr <- function(v, Q, centre) {
    if (centre) v <- sweep(v, 2L, colMeans(v))
    v - Q %*% crossprod(Q, v)
  }
  set.seed(11)
  n <- 0L
  for (m in test_cases(c(1L, 2L, 5L, 38L, 129L))) for (r in 0:4) for (d in c(1L, 3L, 40L)) {
    if (r > m) next
    Q <- if (r) qr.Q(qr(matrix(rnorm(m * r), m, r))) else matrix(0, m, 0L)
    for (scale in c(1, 1e200, 1e-300)) {
      v <- matrix(rnorm(m * d, sd = 3) * scale, m, d)
      if (d > 1L) v[, 2L] <- 7  # a constant column
      for (dn in list(NULL, list(NULL, paste0("g", seq_len(d))),
                      list(paste0("s", seq_len(m)), paste0("g", seq_len(d))))) {
        dimnames(v) <- dn
        for (transform in c("none", "centre", "bounded")) {
          want <- expr(if (transform == "bounded") tanh(1.5 * v) else v, Q, transform != "none")
          expect_identical(bahsic:::project_out(v, Q, transform), want)
          n <- n + 1L
        }
      }
    }
  }
  expect_equal(n, if (under_valgrind()) 405L else 1620L)
  # the columns on threads (enough work for them): the same numbers
  Q <- qr.Q(qr(matrix(rnorm(300 * 3), 300, 3)))
  v <- matrix(rnorm(300 * 400), 300, 400)
  for (transform in c("none", "centre", "bounded")) {
    want <- expr(if (transform == "bounded") tanh(1.5 * v) else v, Q, transform != "none")
    for (threads in 1:2) expect_identical(bahsic:::project_out(v, Q, transform, threads), want)
  }
  # where R's products take their own loops (a neighbouring pair's sum is not
  # finite: NaN, Inf, values near the largest double), the C pass steps aside
  Q <- qr.Q(qr(matrix(rnorm(20), 10, 2)))
  v <- matrix(rnorm(30), 10, 3)
  v_nan <- v
  v_nan[4, 2] <- NaN
  v_big <- v * 1.5e308
  for (w in list(v_nan, v_big)) {
    expect_null(.Call(bahsic:::C_project_out, w, Q, 0L, 1L))
    expect_identical(bahsic:::project_out(w, Q), suppressWarnings(expr(w, Q, FALSE)))
  }
  Q_inf <- Q
  Q_inf[3, 1] <- Inf
  expect_null(.Call(bahsic:::C_project_out, v, Q_inf, 0L, 1L))
  expect_identical(bahsic:::project_out(v, Q_inf), expr(v, Q_inf, FALSE))
  # a design's residuals of a vector: the expression's unnamed vector
  des <- list(Q = Q)
  y <- stats::setNames(rnorm(10), letters[1:10])
  expect_identical(bahsic:::design_residuals(des, y), drop(y - Q %*% crossprod(Q, y)))
  expect_null(names(bahsic:::design_residuals(des, y)))
  expect_identical(bahsic:::design_residuals(des, 1:10), drop(1:10 - Q %*% crossprod(Q, 1:10)))
  expect_error(.Call(bahsic:::C_project_out, v, Q[1:9, ], 0L, 1L), "'Q' has 9 rows for the 10 rows")
  # a value near the largest double after centring: R's own loops, here too
  w <- v
  w[1, 1] <- 1e308
  w[2, 1] <- -1e308
  expect_null(.Call(bahsic:::C_project_out, w, Q, 1L, 1L))
  expect_identical(bahsic:::project_out(w, Q, "centre"), suppressWarnings(expr(w, Q, TRUE)))
})

test_that("the gamma upper tails in C are stats::pgamma()'s, NA where the test is undefined", {
  z <- c(0, 0.5, 3, 40, 1e3, Inf, NA, NaN, 2, 2)
  shape <- c(1, 0.3, 2.5, 4, 7, 2, 2, 2, NaN, 1e-3)
  ok <- !is.nan(shape)
  want <- rep(NA_real_, length(z))
  want[ok] <- stats::pgamma(z[ok], shape = shape[ok], lower.tail = FALSE)
  expect_identical(.Call(bahsic:::C_gamma_upper_tail, z, shape), want)
  expect_warning(got <- .Call(bahsic:::C_gamma_upper_tail, 1, -1), "NaNs produced")
  expect_identical(got, suppressWarnings(stats::pgamma(1, -1, lower.tail = FALSE)))
  expect_error(.Call(bahsic:::C_gamma_upper_tail, 1, c(1, 2)), "same length")
})
