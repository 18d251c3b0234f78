# bahsic() and fohsic(): Algorithms 1 and 2 of Song et al. (2012)
# (section 4) against a brute-force plain-R oracle that follows the shared
# specification of the algorithms to the letter and recomputes every
# HSIC(sigma, T) from scratch with an explicit Gram matrix.

# ---- the oracle -------------------------------------------------------------

# spec 1: centre and divide by sd() (n - 1); constant columns stay at 0
oracle_standardize <- function(x) {
  xs <- x
  for (j in seq_len(ncol(x))) {
    s <- stats::sd(x[, j])
    xs[, j] <- if (s > 0) (x[, j] - mean(x[, j])) / s else 0
  }
  xs
}

oracle_gram <- function(kernel, z, sigma) {
  switch(kernel$name,
    gaussian = exp(-sigma * as.matrix(stats::dist(z))^2),
    laplace = exp(-sigma * as.matrix(stats::dist(z))),
    inverse_distance = 1 / (as.matrix(stats::dist(z)) + kernel$params$eps),
    linear = z %*% t(z),
    polynomial = (z %*% t(z) + kernel$params$offset)^kernel$params$degree,
    stop("no oracle for kernel ", kernel$name)
  )
}

# spec 3: HSIC(sigma, T) = sum(K_T * W); 0 for the empty set
oracle_hsic_set <- function(xs, set, kernel, sigma, W) {
  if (length(set) == 0L) return(0)
  sum(oracle_gram(kernel, xs[, sort(set), drop = FALSE], sigma) * W)
}

# median heuristic over the pairs a < b: Gaussian 1 / median squared distance,
# Laplace 1 / median distance; the package's fallback (bk_median_triangle() in
# src/gram.c) when more than half of the pairs coincide: the median over the
# distinct pairs, and a width of 1 when all samples coincide
oracle_median_sigma <- function(kernel, z) {
  dd <- as.vector(stats::dist(z))
  if (kernel$name == "gaussian") dd <- dd^2
  med <- stats::median(dd)
  if (med == 0) med <- if (any(dd > 0)) stats::median(dd[dd > 0]) else 1
  1 / med
}

# Algorithm 1 (direction = "backward") or 2 ("forward"); `step` is drop or add.
# Returns rank, score, iteration (input feature order) and the path.
oracle_select <- function(x, y, direction = c("backward", "forward"),
                          kernel = kernel_gaussian(), kernel_y = NULL,
                          estimator = "biased", sigma_policy = "dimension",
                          sigma_grid = NULL, step = 0, n_features = NULL,
                          standardize = TRUE) {
  direction <- match.arg(direction)
  m <- nrow(x)
  d <- ncol(x)
  xs <- if (standardize) oracle_standardize(x) else x
  if (is.null(kernel_y)) kernel_y <- default_label_kernel(y)
  W <- bahsic:::weight_matrix(bahsic:::label_gram(kernel_y, y), m, estimator)
  H <- function(set, sigma) oracle_hsic_set(xs, set, kernel, sigma, W)

  # spec 4: the width policy on the reference set R; s = number of features
  # of the sets being scored
  has_width <- kernel$name %in% c("gaussian", "laplace")
  fixed_sigma <- if (!has_width) {
    NA_real_
  } else if (!is.null(kernel$params$sigma)) {
    kernel$params$sigma
  } else {
    oracle_median_sigma(kernel, xs)
  }
  width <- function(R, s) {
    if (!has_width || sigma_policy == "fixed") return(fixed_sigma)
    if (sigma_policy == "dimension") {
      return(if (kernel$name == "gaussian") 1 / (2 * s) else 1 / sqrt(2 * s))
    }
    grid <- if (!is.null(sigma_grid)) {
      sigma_grid
    } else {
      oracle_median_sigma(kernel, xs[, R, drop = FALSE]) * 2^(-3:3)
    }
    h <- vapply(grid, function(g) H(R, g), numeric(1))
    min(grid[h == max(h)])
  }

  rank <- rep(NA_integer_, d)
  score <- rep(NA_real_, d)
  iteration <- rep(NA_integer_, d)
  path <- data.frame(iteration = integer(), n_features = integer(),
                     hsic = numeric(), sigma = numeric())
  it <- 0L

  if (direction == "backward") {
    S <- seq_len(d)
    batches <- list()
    while (length(S) > 0L && (is.null(n_features) || length(S) > n_features)) {
      it <- it + 1L
      sigma <- width(S, length(S))
      cj <- vapply(S, function(j) H(setdiff(S, j), sigma), numeric(1))
      path[it, ] <- list(it, length(S), H(S, sigma), sigma)
      k <- max(1, floor(step * length(S)))
      if (!is.null(n_features)) k <- min(k, length(S) - n_features)
      # the largest c_j leave; ties: the higher index leaves first
      out <- order(-cj, -S)[seq_len(k)]
      batches[[it]] <- list(j = S[out], c = cj[out], it = it)
      S <- S[-out]
    }
    if (length(S) > 0L) {
      # stopped at n_features: one more candidate pass ranks the survivors;
      # it is an iteration of its own (no elimination) with its path row
      it <- it + 1L
      sigma <- width(S, length(S))
      cj <- vapply(S, function(j) H(setdiff(S, j), sigma), numeric(1))
      path[it, ] <- list(it, length(S), H(S, sigma), sigma)
      batches[[it]] <- list(j = S, c = cj, it = it)
    }
    r <- 0L
    for (b in rev(batches)) {
      # within a batch the smaller c_j ranks better; ties: the lower index
      for (i in order(b$c, b$j)) {
        r <- r + 1L
        rank[b$j[i]] <- r
        score[b$j[i]] <- b$c[i]
        iteration[b$j[i]] <- b$it
      }
    }
  } else {
    Sd <- integer()
    rest <- seq_len(d)
    target <- if (is.null(n_features)) d else n_features
    while (length(Sd) < target) {
      it <- it + 1L
      sigma <- width(if (length(Sd)) Sd else seq_len(d), length(Sd) + 1L)
      cj <- vapply(rest, function(j) H(c(Sd, j), sigma), numeric(1))
      k <- max(1, floor(step * length(rest)))
      if (!is.null(n_features)) k <- min(k, n_features - length(Sd))
      # the largest c_j join; ties: the lower index first
      inn <- order(-cj, rest)[seq_len(k)]
      rank[rest[inn]] <- length(Sd) + seq_len(k)
      score[rest[inn]] <- cj[inn]
      iteration[rest[inn]] <- it
      Sd <- c(Sd, rest[inn])
      rest <- rest[-inn]
      path[it, ] <- list(it, length(Sd), H(Sd, sigma), sigma)
    }
  }
  list(rank = rank, score = score, iteration = iteration, path = path)
}

# ---- helpers ----------------------------------------------------------------

# BAHSIC itself: screen = "none" (the screen that seeds it is tested in
# test-select-screen.R)
run_engine <- function(direction, x, y, step, ...) {
  if (direction == "backward") {
    bahsic(x, y, drop = step, screen = "none", ...)
  } else {
    fohsic(x, y, add = step, ...)
  }
}

expect_oracle <- function(fit, orc, info) {
  expect_s3_class(fit, "bahsic_selection")
  expect_identical(fit$features$rank, orc$rank, info = info)
  expect_equal(fit$features$score, orc$score, tolerance = 1e-10, info = info)
  expect_identical(fit$features$iteration, orc$iteration, info = info)
  expect_identical(as.integer(fit$path$iteration), orc$path$iteration, info = info)
  expect_identical(as.integer(fit$path$n_features), orc$path$n_features, info = info)
  expect_equal(fit$path$hsic, orc$path$hsic, tolerance = 1e-10, info = info)
  expect_equal(fit$path$sigma, orc$path$sigma, tolerance = 1e-10, info = info)
}

check_against_oracle <- function(x, y, direction, step = 0, kernel = kernel_gaussian(),
                                 kernel_y = NULL, estimator = "biased",
                                 sigma_policy = "dimension", sigma_grid = NULL,
                                 n_features = NULL, standardize = TRUE, info = "") {
  # a width policy goes only with a kernel that has a width ("fixed" with any)
  width <- kernel$name %in% c("gaussian", "laplace")
  fit <- run_engine(direction, x, y, step, kernel = kernel, kernel_y = kernel_y,
                    estimator = estimator,
                    sigma = if (width || sigma_policy == "fixed") sigma_policy else "fixed",
                    sigma_grid = sigma_grid, n_features = n_features, standardize = standardize)
  if (under_valgrind()) {
    # the C engine runs in every configuration; the plain-R oracle (all R,
    # slow under valgrind) is compared in the ordinary test runs
    expect_s3_class(fit, "bahsic_selection")
    return(invisible(fit))
  }
  orc <- oracle_select(x, y, direction, kernel = kernel, kernel_y = kernel_y,
                       estimator = estimator, sigma_policy = sigma_policy,
                       sigma_grid = sigma_grid, step = step, n_features = n_features,
                       standardize = standardize)
  info <- sprintf("%s %s, %s, sigma %s, step %g, n_features %s: %s", direction,
                  kernel$name, estimator, sigma_policy, step,
                  format(n_features %||% "NULL"), info)
  expect_oracle(fit, orc, info)
  invisible(fit)
}

`%||%` <- function(a, b) if (is.null(a)) b else a

# m samples x d features with a few relevant features for each outcome type
select_data <- function(outcome, m = 20, d = 8, seed = 1) {
  set.seed(seed)
  x <- matrix(rnorm(m * d), m, d, dimnames = list(NULL, paste0("f", seq_len(d))))
  if (outcome == "binary") {
    y <- factor(rep(c("ctrl", "case"), length.out = m))
    x[y == "case", 2] <- x[y == "case", 2] + 1.2
    x[, 5] <- x[, 5] * ifelse(y == "case", 2, 0.5)   # a difference in spread only
  } else if (outcome == "multiclass") {
    y <- factor(rep(c("a", "b", "c"), length.out = m))
    x[y == "b", 3] <- x[y == "b", 3] + 1.5
    x[y == "c", 6] <- x[y == "c", 6] - 1.5
  } else {
    y <- x[, 1] + x[, 4]^2 + rnorm(m, sd = 0.3)
  }
  list(x = x, y = y)
}

# ---- the engine against the oracle -------------------------------------------

test_that("standardize_columns() (C) gives sweep()'s numbers bit for bit and zeroes constant columns", {
  set.seed(11)
  x <- matrix(rnorm(7 * 6, mean = 1e3), 7, 6, dimnames = list(paste0("s", 1:7), paste0("g", 1:6)))
  x[, 2] <- 5
  x[, 5] <- c(1e8, 1e8 + 1, rep(1e8, 5))
  # the R idiom it replaces
  r_way <- function(x) {
    xc <- sweep(x, 2L, colMeans(x), check.margin = FALSE)
    s <- sqrt(colSums(xc^2) / (nrow(x) - 1))
    s[s == 0] <- 1
    sweep(xc, 2L, s, "/", check.margin = FALSE)
  }
  expect_warning(xs <- bahsic:::standardize_columns(x, colnames(x)),
                 "1 constant feature \\(g2\\) cannot be standardised")
  expect_identical(xs, r_way(x))
  expect_identical(dimnames(xs), dimnames(x))
  expect_true(all(xs[, 2] == 0))
  expect_equal(xs, oracle_standardize(x), tolerance = 1e-12)
  expect_equal(unname(apply(xs[, -2], 2, stats::sd)), rep(1, 5), tolerance = 1e-12)
  # the columns on threads (enough work for them): the same numbers
  big <- matrix(rnorm(200 * 800, mean = 5), 200)
  big[, 3] <- 1
  one <- suppressWarnings(bahsic:::standardize_columns(big, paste0("g", 1:800), 1L))
  expect_identical(one, suppressWarnings(r_way(big)))
  expect_identical(suppressWarnings(bahsic:::standardize_columns(big, paste0("g", 1:800), 2L)),
                   one)
  expect_error(.Call(bahsic:::C_standardize_columns, big, NA_integer_), "'threads' must be")
})

test_that("standardize_columns() is the same at any scale of a feature; selectors follow", {
  set.seed(12)
  x <- matrix(rnorm(15 * 5, mean = 2), 15, 5, dimnames = list(NULL, paste0("g", 1:5)))
  x[, 5] <- round(x[, 5])
  y <- factor(rep(1:3, 5))
  x[y == 2, 1] <- x[y == 2, 1] + 1.5
  xs <- bahsic:::standardize_columns(x, colnames(x))
  scaled <- sweep(x, 2, c(1e-170, 1e170, 2^-600, 1e-300, 1), "*")
  # no column of scaled underflows to constant (sums of squares near 1e-340)
  # or overflows (1e340)
  expect_silent(got <- bahsic:::standardize_columns(scaled, colnames(x)))
  expect_equal(got, xs, tolerance = 1e-14)
  expect_identical(got[, 3], xs[, 3])
  expect_identical(bahsic:::standardize_columns(x * 2^-600, colnames(x)), xs)
  tiny <- x * 1e-170
  fit <- expect_silent(bahsic(tiny, y))
  expect_identical(selected(fit), selected(bahsic(x, y)))
  set.seed(3)
  a <- randsel(x * 2^-600, y, n_boot = 10L)
  set.seed(3)
  expect_identical(a$features, randsel(x, y, n_boot = 10L)$features)
})

test_that("one feature per step: ranking, c_j and path equal the oracle's", {
  for (outcome in c("binary", "multiclass", "regression")) {
    dat <- select_data(outcome, seed = match(outcome, c("binary", "multiclass", "regression")))
    for (direction in c("backward", "forward")) {
      for (estimator in c("biased", "unbiased")) {
        for (policy in c("dimension", "optimize", "fixed")) {
          check_against_oracle(dat$x, dat$y, direction, step = 0, estimator = estimator,
                               sigma_policy = policy, info = outcome)
        }
      }
    }
  }
})

test_that("batches (drop / add = 0.25) and n_features = 3 follow the oracle", {
  dat <- select_data("binary", m = 20, d = 9, seed = 11)
  for (direction in c("backward", "forward")) {
    for (policy in c("dimension", "optimize")) {
      check_against_oracle(dat$x, dat$y, direction, step = 0.25, sigma_policy = policy)
      check_against_oracle(dat$x, dat$y, direction, step = 0, n_features = 3,
                           sigma_policy = policy)
      check_against_oracle(dat$x, dat$y, direction, step = 0.25, n_features = 3,
                           sigma_policy = policy, estimator = "unbiased")
    }
  }
  # the defaults (drop / add = 0.1) on more features: batches of 1 and 2
  dat <- select_data("multiclass", m = 20, d = 24, seed = 12)
  check_against_oracle(dat$x, dat$y, "backward", step = 0.1)
  check_against_oracle(dat$x, dat$y, "forward", step = 0.1)
})

test_that("FOHSIC leaves the features it never adds unranked", {
  dat <- select_data("regression", seed = 13)
  fit <- check_against_oracle(dat$x, dat$y, "forward", step = 0, n_features = 3)
  expect_identical(sum(!is.na(fit$features$rank)), 3L)
  expect_true(all(is.na(fit$features$score[is.na(fit$features$rank)])))
  # BAHSIC ranks every feature, survivors above the eliminated ones
  fit <- check_against_oracle(dat$x, dat$y, "backward", step = 0, n_features = 3)
  expect_setequal(fit$features$rank, 1:8)
  # n_features = d: no elimination, one candidate pass ranks them all
  check_against_oracle(dat$x, dat$y, "backward", step = 0.1, n_features = 8)
})

test_that("Laplace, inverse-distance and polynomial kernels follow the oracle", {
  dat <- select_data("binary", seed = 21)
  reg <- select_data("regression", seed = 22)
  for (direction in c("backward", "forward")) {
    for (policy in c("dimension", "optimize", "fixed")) {
      check_against_oracle(dat$x, dat$y, direction, kernel = kernel_laplace(),
                           sigma_policy = policy)
    }
    check_against_oracle(reg$x, reg$y, direction, kernel = kernel_laplace(sigma = 0.3),
                         sigma_policy = "fixed", estimator = "unbiased")
    check_against_oracle(dat$x, dat$y, direction, kernel = kernel_inverse_distance(),
                         sigma_policy = "fixed")
    check_against_oracle(reg$x, reg$y, direction, kernel = kernel_inverse_distance(eps = 0.5),
                         sigma_policy = "fixed", estimator = "unbiased", step = 0.25)
    check_against_oracle(dat$x, dat$y, direction, kernel = kernel_polynomial(degree = 2),
                         sigma_policy = "fixed")
    check_against_oracle(reg$x, reg$y, direction,
                         kernel = kernel_polynomial(degree = 3, offset = 0.5),
                         sigma_policy = "fixed", estimator = "unbiased")
    # kernels without a width have no policy: asking for one is an error
    expect_error(run_engine(direction, dat$x, dat$y, 0, kernel = kernel_polynomial(degree = 2),
                            sigma = "optimize"),
                 "sigma = \"optimize\" is not used with a polynomial kernel")
  }
})

test_that("a given width, a given grid, other label kernels and raw data follow the oracle", {
  dat <- select_data("binary", seed = 31)
  reg <- select_data("regression", seed = 32)
  for (direction in c("backward", "forward")) {
    check_against_oracle(dat$x, dat$y, direction, kernel = kernel_gaussian(sigma = 0.05),
                         sigma_policy = "fixed")
    check_against_oracle(dat$x, dat$y, direction, sigma_policy = "optimize",
                         sigma_grid = c(0.01, 0.03, 0.1, 0.3, 1))
    check_against_oracle(reg$x, reg$y, direction, sigma_policy = "optimize",
                         sigma_grid = c(0.5, 0.02, 0.1), estimator = "unbiased")
    check_against_oracle(dat$x, dat$y, direction,
                         kernel_y = label_kernel_binary(balanced = FALSE))
    check_against_oracle(reg$x, reg$y, direction,
                         kernel_y = label_kernel_regression(kernel_linear()))
    x_raw <- dat$x * rep(c(1, 3, 0.5, 2, 1, 1, 4, 0.2), each = nrow(dat$x)) + 1
    check_against_oracle(x_raw, dat$y, direction, standardize = FALSE,
                         sigma_policy = "fixed")
  }
})

test_that("more samples and features, odd sizes, many downdates follow the oracle", {
  # m odd and not a multiple of a vector width; d not a multiple of 4; with
  # drop = 0.1 on 41 features the surviving set is downdated many times
  set.seed(33)
  m <- 67
  x <- matrix(rnorm(m * 13), m, 13)
  y <- factor(sample(c("p", "q", "r"), m, replace = TRUE))
  x[y == "q", 7] <- x[y == "q", 7] + 1
  for (direction in c("backward", "forward")) {
    check_against_oracle(x, y, direction, step = 0.1, sigma_policy = "optimize")
    check_against_oracle(x, y, direction, step = 0, kernel = kernel_laplace(),
                         estimator = "unbiased")
  }
  set.seed(34)
  x <- matrix(rnorm(30 * 41), 30, 41)
  z <- x[, 40]^2 + x[, 2] + rnorm(30, sd = 0.2)
  for (direction in c("backward", "forward")) {
    check_against_oracle(x, z, direction, step = 0.1)
    check_against_oracle(x, z, direction, step = 0.1, kernel = kernel_polynomial(3),
                         sigma_policy = "fixed")
  }
})

test_that("degenerate sizes follow the oracle", {
  set.seed(35)
  x <- matrix(rnorm(24), 12, 2)
  y <- factor(rep(c("a", "b"), 6))
  for (direction in c("backward", "forward")) {
    check_against_oracle(x[, 1, drop = FALSE], y, direction)          # one feature
    check_against_oracle(x, y, direction, sigma_policy = "optimize")  # two features
    check_against_oracle(x[1:3, ], factor(c("a", "b", "b")), direction)  # m = 3, biased
    check_against_oracle(x[1:4, ], factor(c("a", "b", "b", "a")), direction,
                         estimator = "unbiased")                      # m = 4, unbiased
  }
  dat <- select_data("binary", seed = 36)
  check_against_oracle(dat$x, dat$y, "forward", step = 0.25, n_features = 8)
  # a numeric matrix outcome (several responses) with the default Gaussian label kernel
  ymat <- cbind(dat$x[, 1] + rnorm(20, sd = 0.1), dat$x[, 6]^2)
  check_against_oracle(dat$x, ymat, "backward", step = 0)
  check_against_oracle(dat$x, ymat, "forward", step = 0, sigma_policy = "optimize")
})

test_that("tied (discrete) data follow the oracle", {
  # genotype-like features: many pairs of samples coincide on the remaining
  # features, where the distance is exactly 0 and the inverse-distance kernel
  # is 1 / eps; and more than half of the pairs can coincide on a small
  # reference set, where the median heuristic falls back to the distinct pairs
  x8 <- matrix(c(0, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1,
                 1, 1, 1, 0, 0, 0, 0, 0), 8, 3)
  y8 <- factor(rep(c("a", "b"), 4))
  check_against_oracle(x8, y8, "backward", kernel = kernel_inverse_distance(),
                       n_features = 2, info = "m = 8 binary")
  set.seed(37)
  m <- 20
  y <- factor(rep(c("a", "b"), length.out = m))
  x <- matrix(sample(0:2, m * 6, replace = TRUE), m, 6)
  x[y == "b", 1] <- pmin(x[y == "b", 1] + 1, 2)
  set.seed(5)
  xb <- matrix(rbinom(16 * 5, 1, 0.25), 16, 5)
  yb <- factor(rep(c("a", "b"), 8))
  xb[yb == "b", 1] <- rbinom(8, 1, 0.7)
  for (direction in c("backward", "forward")) {
    check_against_oracle(x, y, direction, kernel = kernel_inverse_distance(), info = "0/1/2")
    check_against_oracle(x, y, direction, kernel = kernel_laplace(), sigma_policy = "fixed",
                         info = "0/1/2")
    check_against_oracle(x, y, direction, sigma_policy = "optimize", info = "0/1/2")
    check_against_oracle(xb, yb, direction, sigma_policy = "optimize", info = "sparse 0/1")
    check_against_oracle(xb, yb, direction, kernel = kernel_laplace(),
                         sigma_policy = "optimize", info = "sparse 0/1")
  }
})

test_that("the path's sigma is NA (not NaN) for kernels without a width", {
  dat <- select_data("binary", seed = 38)
  for (kernel in list(kernel_polynomial(), kernel_inverse_distance(), kernel_linear())) {
    for (fit in list(bahsic(dat$x, dat$y, kernel = kernel),
                     fohsic(dat$x, dat$y, kernel = kernel, n_features = 3))) {
      # (expect_identical() does not tell NaN from NA)
      expect_true(all(is.na(fit$path$sigma)), info = kernel$name)
      expect_false(any(is.nan(fit$path$sigma)), info = kernel$name)
    }
  }
})

test_that("a constant feature warns and is scored as a zero column", {
  dat <- select_data("binary", seed = 41)
  dat$x[, 4] <- 3
  expect_warning(bahsic(dat$x, dat$y), "constant")
  expect_warning(fohsic(dat$x, dat$y), "constant")
  suppressWarnings({
    check_against_oracle(dat$x, dat$y, "backward", step = 0)
    check_against_oracle(dat$x, dat$y, "forward", step = 0)
  })
})

# ---- linear kernel: section 5.1.1 -------------------------------------------

test_that("with a linear kernel both rank by x_j' W x_j (section 5.1.1)", {
  for (outcome in c("binary", "multiclass", "regression")) {
    dat <- select_data(outcome, m = 20, d = 10, seed = 51)
    x <- dat$x
    y <- dat$y
    xs <- oracle_standardize(x)
    for (estimator in c("biased", "unbiased")) {
      W <- bahsic:::weight_matrix(bahsic:::label_gram(default_label_kernel(y), y),
                                 nrow(x), estimator)
      s <- vapply(seq_len(ncol(x)), function(j) sum(xs[, j] * (W %*% xs[, j])), numeric(1))
      expected <- integer(ncol(x))
      expected[order(-s, seq_along(s))] <- seq_along(s)
      fs <- feature_scores(xs, y, method = "hsic", kernel = kernel_linear(),
                           estimator = estimator)
      expect_equal(fs$score, s, tolerance = 1e-10)
      expect_identical(fs$rank, expected)
      info <- paste(outcome, estimator)
      for (step in c(0, 0.1, 0.3)) {
        b <- bahsic(x, y, kernel = kernel_linear(), estimator = estimator, drop = step)
        f <- fohsic(x, y, kernel = kernel_linear(), estimator = estimator, add = step)
        expect_identical(b$features$rank, expected, info = info)
        expect_identical(f$features$rank, expected, info = info)
        # the general path (a polynomial kernel that is the linear one) agrees
        p <- bahsic(x, y, kernel = kernel_polynomial(degree = 1, offset = 0),
                    estimator = estimator, drop = step)
        expect_identical(p$features$rank, expected, info = info)
        expect_equal(p$features$score, b$features$score, tolerance = 1e-10, info = info)
        expect_equal(p$path, b$path, tolerance = 1e-10, info = info)
        p <- fohsic(x, y, kernel = kernel_polynomial(degree = 1, offset = 0),
                    estimator = estimator, add = step)
        expect_equal(p$features$score, f$features$score, tolerance = 1e-10, info = info)
        expect_equal(p$path, f$path, tolerance = 1e-10, info = info)
      }
      # and it reports what Algorithm 1/2 would have (spec 9)
      check_against_oracle(x, y, "backward", kernel = kernel_linear(), estimator = estimator,
                           step = 0.25, info = outcome)
      check_against_oracle(x, y, "forward", kernel = kernel_linear(), estimator = estimator,
                           step = 0, n_features = 4, info = outcome)
      check_against_oracle(x, y, "backward", kernel = kernel_linear(), estimator = estimator,
                           step = 0, n_features = 4, info = outcome)
    }
  }
  # the binary centroid special case: method "hsic" with the linear kernel
  dat <- select_data("binary", m = 20, d = 10, seed = 52)
  b <- bahsic(dat$x, dat$y, kernel = kernel_linear())
  fs <- feature_scores(scale(dat$x), dat$y, method = "hsic", kernel = kernel_linear())
  expect_identical(b$features$rank, order(order(-fs$score, seq_along(fs$score))))
})

# ---- ties, threads ------------------------------------------------------------

test_that("a duplicated column ranks below its lower-index twin", {
  for (seed in 61:63) {
    dat <- select_data("binary", m = 20, d = 9, seed = seed)
    x <- dat$x
    for (twin in c(2, 3)) {    # a relevant and an irrelevant feature
      x[, 9] <- x[, twin]
      for (kernel in list(kernel_gaussian(), kernel_laplace(), kernel_linear(),
                          kernel_polynomial(2))) {
        for (step in c(0, 0.25)) {
          info <- sprintf("seed %d, twin %d, %s, step %g", seed, twin, kernel$name, step)
          b <- bahsic(x, dat$y, kernel = kernel, drop = step)
          f <- fohsic(x, dat$y, kernel = kernel, add = step)
          expect_lt(b$features$rank[twin], b$features$rank[9], label = info)
          expect_lt(f$features$rank[twin], f$features$rank[9], label = info)
        }
      }
    }
  }
})

test_that("1 and 2 threads give identical results", {
  set.seed(71)
  m <- 60
  d <- 40
  x <- matrix(rnorm(m * d), m, d)
  y <- factor(rep(c("u", "v"), length.out = m))
  x[y == "v", 1:3] <- x[y == "v", 1:3] + 1
  z <- x[, 5] + x[, 6]^2 + rnorm(m, sd = 0.5)
  same <- function(a, b) {
    expect_identical(a$features, b$features)
    expect_identical(a$path, b$path)
  }
  same(bahsic(x, y, threads = 1), bahsic(x, y, threads = 2))
  same(bahsic(x, y, sigma = "optimize", estimator = "unbiased", threads = 1),
       bahsic(x, y, sigma = "optimize", estimator = "unbiased", threads = 2))
  same(bahsic(x, z, kernel = kernel_laplace(), drop = 0, threads = 1),
       bahsic(x, z, kernel = kernel_laplace(), drop = 0, threads = 2))
  same(fohsic(x, y, threads = 1), fohsic(x, y, threads = 2))
  same(fohsic(x, z, add = 0, sigma = "optimize", threads = 1),
       fohsic(x, z, add = 0, sigma = "optimize", threads = 2))
  same(bahsic(x, y, kernel = kernel_polynomial(), threads = 1),
       bahsic(x, y, kernel = kernel_polynomial(), threads = 2))
})

# ---- inputs -----------------------------------------------------------------

test_that("the result lists every input feature once, in input order", {
  dat <- select_data("binary", seed = 81)
  for (fit in list(bahsic(dat$x, dat$y), fohsic(dat$x, dat$y, n_features = 3))) {
    expect_identical(fit$features$feature, colnames(dat$x))
    ranked <- !is.na(fit$features$rank)
    expect_identical(fit$ranking,
                     fit$features$feature[ranked][order(fit$features$rank[ranked])])
  }
})

test_that("the formula and Bioconductor interfaces equal the matrix call", {
  dat <- select_data("multiclass", seed = 91)
  df <- data.frame(cls = dat$y, dat$x)
  same <- function(a, b) {
    expect_identical(a$features, b$features)
    expect_identical(a$path, b$path)
  }
  same(bahsic(cls ~ ., data = df), bahsic(dat$x, dat$y))
  same(fohsic(cls ~ ., data = df, add = 0), fohsic(dat$x, dat$y, add = 0))
  same(bahsic(cls ~ f1 + f3 + f6, data = df, drop = 0),
       bahsic(dat$x[, c(1, 3, 6)], dat$y, drop = 0))

  skip_peer("Biobase")
  x <- dat$x
  rownames(x) <- paste0("s", seq_len(nrow(x)))
  pd <- Biobase::AnnotatedDataFrame(data.frame(cls = dat$y, row.names = rownames(x)))
  eset <- Biobase::ExpressionSet(assayData = t(x), phenoData = pd)
  same(bahsic(eset, "cls"), bahsic(x, dat$y))
  same(bahsic(eset, dat$y, sigma = "optimize"), bahsic(x, dat$y, sigma = "optimize"))
  same(fohsic(eset, "cls", add = 0), fohsic(x, dat$y, add = 0))
})

test_that("bad inputs give errors that name the problem", {
  dat <- select_data("binary", seed = 101)
  x <- dat$x
  y <- dat$y
  expect_error(bahsic(x, y, drop = 1), "drop")
  expect_error(bahsic(x, y, drop = -0.1), "drop")
  expect_error(bahsic(x, y, drop = NA), "drop")
  expect_error(fohsic(x, y, add = 1), "add")
  expect_error(fohsic(x, y, add = -0.1), "add")
  expect_error(bahsic(x, y, n_features = 0), "n_features")
  expect_error(bahsic(x, y, n_features = 9), "n_features")
  expect_error(fohsic(x, y, n_features = 0), "n_features")
  expect_error(fohsic(x, y, n_features = 9), "n_features")
  expect_error(bahsic(x, y, n_features = 2.5), "n_features")
  expect_error(bahsic(x, y, sigma = "optimize", sigma_grid = c(0.1, -1)), "sigma_grid")
  expect_error(bahsic(x, y, sigma = "optimize", sigma_grid = c(0, 1)), "sigma_grid")
  expect_error(fohsic(x, y, sigma = "optimize", sigma_grid = c(0.1, NA)), "sigma_grid")
  expect_error(bahsic(x, y, sigma = "wide"), "dimension")   # match.arg lists the choices
  expect_error(bahsic(x, y, estimator = "fast"), "unbiased")
  expect_error(bahsic(x, y, kernel = kernel_precomputed(diag(nrow(x)))), "precomputed")
  expect_error(fohsic(x, y, kernel = kernel_precomputed(diag(nrow(x)))), "precomputed")
  expect_error(bahsic(x, y, kernel = "gaussian"), "kernel")
  expect_error(bahsic(x, y, threads = 0), "threads")
  x_na <- x
  x_na[3, 2] <- NA
  expect_error(bahsic(x_na, y), "missing")
  expect_error(fohsic(x_na, y), "missing")
  expect_error(bahsic(t(x), y), "t\\(x\\)")
  expect_error(bahsic(x, y[-1]), "samples")
})

test_that("the AVX2 loop and the baseline loop agree (option bahsic.simd)", {
  set.seed(12)
  sim <- simulate_regression(60)
  a <- bahsic(sim$x, sim$y)
  old <- options(bahsic.simd = FALSE)
  on.exit(options(old))
  b <- bahsic(sim$x, sim$y)
  expect_identical(a$ranking, b$ranking)
  expect_equal(a$features$score, b$features$score, tolerance = 1e-12)
  expect_equal(a$path, b$path, tolerance = 1e-12)
  f1 <- fohsic(sim$x, sim$y, sigma = "optimize")
  options(bahsic.simd = TRUE)
  f2 <- fohsic(sim$x, sim$y, sigma = "optimize")
  expect_identical(f1$ranking, f2$ranking)
  expect_equal(f1$features$score, f2$features$score, tolerance = 1e-12)
})

test_that("verbose = TRUE reports every iteration", {
  set.seed(13)
  sim <- simulate_xor(40)
  msgs <- capture_messages(bahsic(sim$x, sim$y, verbose = TRUE, drop = 0.5, screen = "none"))
  expect_match(msgs[1], "BAHSIC iteration 1: 22 features")
  # 22 -> 11 -> 6 -> 3 -> 2 -> 1: an iteration each, the last ranks the survivor
  expect_length(msgs, 6L)
  msgs <- capture_messages(fohsic(sim$x, sim$y, verbose = TRUE, add = 0.5,
                                  kernel = kernel_ridge(1)))
  expect_match(msgs[1], "FOHSIC iteration 1: 11 features")
})
