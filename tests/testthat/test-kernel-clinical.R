# kernel_clinical(): eq. 3-4 of Paul and Dupont (2014), and its use by
# hsic(), bahsic() and fohsic().

# eq. 3-4 written out, one pair and one feature at a time; ordered factors
# on their level codes, ranges from the data.
oracle_clinical <- function(df) {
  m <- nrow(df)
  p <- ncol(df)
  K <- matrix(0, m, m)
  for (f in seq_len(p)) {
    v <- df[[f]]
    continuous <- is.numeric(v) || is.ordered(v)
    if (is.ordered(v)) v <- as.integer(v)
    r <- if (continuous) max(v) - min(v) else NA
    for (i in seq_len(m)) for (j in seq_len(m)) {
      K[i, j] <- K[i, j] + if (!continuous) {
        as.numeric(as.character(v[i]) == as.character(v[j]))
      } else if (r == 0) {
        1
      } else {
        (r - abs(v[i] - v[j])) / r
      }
    }
  }
  K / p
}

toy_mixed <- function(m = 12, seed = 1) {
  set.seed(seed)
  data.frame(age = round(rnorm(m, 50, 10)),
             dose = runif(m),
             sex = factor(sample(c("f", "m"), m, TRUE)),
             site = sample(c("a", "b", "c"), m, TRUE),
             smoker = sample(c(TRUE, FALSE), m, TRUE),
             grade = factor(sample(c("low", "mid", "high"), m, TRUE),
                            levels = c("low", "mid", "high"), ordered = TRUE),
             stringsAsFactors = FALSE)
}

test_that("kernel_matrix() with the clinical kernel matches eq. 3-4", {
  for (seed in test_cases(1:3)) {
    df <- toy_mixed(seed = seed)
    K <- kernel_matrix(kernel_clinical(), df)
    expect_equal(unclass(K)[, ], oracle_clinical(df), ignore_attr = TRUE, tolerance = 1e-14)
    enc <- attr(K, "kernel")$params
    expect_equal(unname(enc$categorical), c(FALSE, FALSE, TRUE, TRUE, TRUE, FALSE))
  }
  # the worked example of the help page
  df <- data.frame(age = c(23, 35, 51, 44), sex = factor(c("f", "m", "m", "f")),
                   stage = factor(c("I", "II", "III", "II"), ordered = TRUE))
  expect_equal(kernel_matrix(kernel_clinical(), df)[1, 2], (1 - 12 / 28 + 0 + 0.5) / 3)
  # a numeric matrix is all continuous
  x <- matrix(rnorm(30), 10, 3)
  expect_equal(unclass(kernel_matrix(kernel_clinical(), x))[, ],
               oracle_clinical(as.data.frame(x)), ignore_attr = TRUE, tolerance = 1e-14)
})

test_that("the clinical kernel has the properties the paper relies on", {
  df <- toy_mixed(m = 15)
  K <- unclass(kernel_matrix(kernel_clinical(), df))
  attr(K, "kernel") <- NULL
  expect_equal(diag(K), rep(1, 15))
  expect_true(isSymmetric(K))
  expect_true(all(K >= 0 & K <= 1))
  # positive semi-definite: 1 - |a - b| = min(a, b) + min(1 - a, 1 - b) on [0, 1]
  expect_gt(min(eigen(K, symmetric = TRUE, only.values = TRUE)$values), -1e-10)
  # every feature weighs the same: invariant to units and to level names
  df2 <- df
  df2$age <- df2$age * 12 + 3
  df2$site <- c(a = "zz", b = "aa", c = "mm")[df2$site]
  expect_equal(unclass(kernel_matrix(kernel_clinical(), df2))[, ], K, ignore_attr = TRUE)
  # samples permuted: the kernel is permuted
  perm <- sample(15)
  expect_equal(unclass(kernel_matrix(kernel_clinical(), df[perm, ]))[, ], K[perm, perm],
               ignore_attr = TRUE)
  # same bits for 1 and 2 threads
  expect_identical(kernel_matrix(kernel_clinical(), df, threads = 2L),
                   kernel_matrix(kernel_clinical(), df, threads = 1L))
})

test_that("the weighted sum of per-feature kernels (eq. 8) and the per-feature sums match eq. 4", {
  df <- toy_mixed(m = 10, seed = 5)
  z <- normalise_inputs(df, NULL, require_y = FALSE, clinical = TRUE)$x
  flags <- clinical_flags(z)
  per_feature <- lapply(seq_along(df), function(f) oracle_clinical(df[f]))
  w <- c(0.5, 0, 0.2, 0.1, 0.15, 0.05)
  expect_equal(clinical_matrix(z, flags, 1L, weight = w),
               Reduce(`+`, Map(`*`, w, per_feature)), tolerance = 1e-14)
  set.seed(5)
  W <- crossprod(matrix(rnorm(100), 10))
  expect_equal(.Call(C_clinical_dot, z, flags, W, 1L),
               vapply(per_feature, function(Kf) sum(W * Kf), numeric(1)), tolerance = 1e-12)
  expect_identical(.Call(C_clinical_dot, z, flags, W, 2L), .Call(C_clinical_dot, z, flags, W, 1L))
})

test_that("a constant column gets kernel 1, with a warning that names it", {
  df <- toy_mixed()
  df$unit <- 7
  df$centre <- factor("x")
  expect_warning(K <- kernel_matrix(kernel_clinical(), df), "2 constant features \\(unit, centre\\)")
  K0 <- kernel_matrix(kernel_clinical(), toy_mixed())
  expect_equal(unclass(K)[, ], (6 * unclass(K0)[, ] + 2) / 8, ignore_attr = TRUE)
  expect_equal(unclass(K)[, ], oracle_clinical(df), ignore_attr = TRUE)
})

test_that("only the clinical kernel lets non-numeric columns through", {
  df <- toy_mixed()
  expect_error(kernel_matrix(kernel_gaussian(), df), "non-numeric columns \\(sex, site, grade\\)")
  y <- factor(rep(c("u", "v"), 6))
  expect_error(hsic(df, y), "non-numeric columns")
  df$when <- as.Date("2020-01-01") + 1:12
  expect_error(kernel_matrix(kernel_clinical(), df), "cannot use \\(when\\)")
  expect_error(feature_scores(toy_mixed(), y, method = "hsic", kernel = kernel_clinical()),
               "does not take the clinical kernel")
  expect_error(randsel(toy_mixed(), y, kernel = kernel_clinical()),
               "does not take the clinical kernel")
})

test_that("hsic() with the clinical kernel is HSIC of its Gram matrix", {
  df <- toy_mixed(m = 20, seed = 4)
  y <- factor(rep(c("u", "v"), 10))
  K <- oracle_clinical(df)
  L <- label_kernel_matrix(label_kernel_binary(), y)
  for (est in c("biased", "unbiased")) {
    h <- hsic(df, y, kernel = kernel_clinical(), estimator = est)
    hp <- hsic(df$dose, y, kernel = kernel_precomputed(K), estimator = est)
    expect_equal(h$estimate, hp$estimate, tolerance = 1e-12)
  }
  expect_equal(hsic(df, y, kernel = kernel_clinical(), estimator = "biased")$estimate,
               oracle_hsic0(K, unclass(L)[, ]), tolerance = 1e-12)
  t1 <- hsic_test(df, y, kernel = kernel_clinical())
  expect_s3_class(t1, "htest")
})

test_that("the formula interface keeps factors as they are for the clinical kernel", {
  df <- toy_mixed(m = 20, seed = 2)
  df$y <- factor(rep(c("u", "v"), 10))
  h1 <- hsic(y ~ age + sex + site + grade, data = df, kernel = kernel_clinical())
  h2 <- hsic(df[c("age", "sex", "site", "grade")], df$y, kernel = kernel_clinical())
  expect_equal(h1$estimate, h2$estimate)
  h3 <- hsic(y ~ ., data = df, kernel = kernel_clinical())
  expect_equal(h3$estimate, hsic(df[1:6], df$y, kernel = kernel_clinical())$estimate)
  b1 <- bahsic(y ~ ., data = df, kernel = kernel_clinical())
  expect_identical(b1$ranking, bahsic(df[1:6], df$y, kernel = kernel_clinical())$ranking)
  expect_error(hsic(y ~ age * sex, data = df, kernel = kernel_clinical()),
               "interactions such as age:sex")
  # other kernels still expand factors into dummy columns
  expect_silent(hsic(y ~ age + sex, data = df))
})

test_that("missing values follow na_action with the clinical kernel", {
  df <- toy_mixed(m = 20, seed = 3)
  y <- factor(rep(c("u", "v"), 10))
  df$sex[4] <- NA
  expect_error(hsic(df, y, kernel = kernel_clinical()),
               "missing values \\(NA/NaN\\), first at feature 'sex', sample '4'")
  expect_error(kernel_matrix(kernel_clinical(), df), "missing values")
  expect_warning(h <- hsic(df, y, kernel = kernel_clinical(), na_action = "omit"),
                 "dropped 1 of 20")
  # ranges from the samples kept
  expect_equal(h$estimate, hsic(df[-4, ], y[-4], kernel = kernel_clinical())$estimate)
})

test_that("the cross kernel of new samples uses the training ranges and levels", {
  df <- toy_mixed(m = 12)
  K <- kernel_matrix(kernel_clinical(), df)
  expect_equal(clinical_cross(df, df), unclass(K)[, ], ignore_attr = TRUE, tolerance = 1e-14)
  new <- df[1:2, ]
  new$age <- c(max(df$age) + 100, min(df$age))
  new$site <- c("unseen", new$site[2])
  Kx <- clinical_cross(new, df)
  expect_equal(dim(Kx), c(2L, 12L))
  expect_true(all(Kx >= 0 & Kx <= 1))
  # an unseen level equals no training level; an age beyond the range is at the maximum
  far <- df[which.max(df$age), ]
  expect_lt(Kx[1, which.max(df$age)], 1)
  expect_equal(Kx[1, ], clinical_cross(transform(new[1, ], age = max(df$age)), df)[1, ])
})

# BAHSIC / FOHSIC with the clinical kernel against plain-R elimination and
# addition, one feature at a time, from Gram matrices of eq. 3-4.
oracle_select_clinical <- function(df, y, backward, estimator = oracle_hsic0) {
  L <- unclass(label_kernel_matrix(label_kernel_binary(), y))[, ]
  h <- function(cols) if (length(cols) == 0L) 0 else estimator(oracle_clinical(df[cols]), L)
  p <- ncol(df)
  score <- numeric(p)
  path <- numeric(0)
  if (backward) {
    S <- seq_len(p)
    out <- integer(0)
    while (length(S)) {
      path <- c(path, h(S))
      cand <- vapply(S, function(j) h(setdiff(S, j)), numeric(1))
      j <- S[which.max(cand)]
      score[j] <- max(cand)
      out <- c(out, j)
      S <- setdiff(S, j)
    }
    ranking <- rev(out)
  } else {
    S <- integer(0)
    while (length(S) < p) {
      R <- setdiff(seq_len(p), S)
      cand <- vapply(R, function(j) h(c(S, j)), numeric(1))
      j <- R[which.max(cand)]
      score[j] <- max(cand)
      S <- c(S, j)
      path <- c(path, h(S))
    }
    ranking <- S
  }
  list(ranking = names(df)[ranking], score = score, path = path)
}

test_that("bahsic() and fohsic() with the clinical kernel match plain-R selection", {
  for (seed in test_cases(1:3)) {
    df <- toy_mixed(m = 16, seed = seed)
    set.seed(seed)
    y <- factor(ifelse(df$dose + (df$sex == "m") + rnorm(16, sd = 0.3) > 1, "u", "v"))
    ob <- oracle_select_clinical(df, y, backward = TRUE)
    fb <- bahsic(df, y, kernel = kernel_clinical(), drop = 0)
    expect_identical(fb$ranking, ob$ranking)
    expect_equal(fb$features$score, ob$score, tolerance = 1e-10)
    expect_equal(fb$path$hsic, ob$path, tolerance = 1e-10)
    expect_true(all(is.na(fb$path$sigma)))
    of <- oracle_select_clinical(df, y, backward = FALSE)
    ff <- fohsic(df, y, kernel = kernel_clinical(), add = 0)
    expect_identical(ff$ranking, of$ranking)
    expect_equal(ff$features$score, of$score, tolerance = 1e-10)
    expect_equal(ff$path$hsic, of$path, tolerance = 1e-10)
    # batches and a stop give the same order; threads do not matter
    expect_identical(bahsic(df, y, kernel = kernel_clinical(), drop = 0.5)$ranking, ob$ranking)
    # stopping at 2 ranks the 2 survivors by one more pass: the same order
    expect_identical(bahsic(df, y, kernel = kernel_clinical(), n_features = 2)$ranking,
                     ob$ranking)
    expect_identical(bahsic(df, y, kernel = kernel_clinical(), threads = 2L)$features,
                     bahsic(df, y, kernel = kernel_clinical(), threads = 1L)$features)
    # the unbiased estimator is linear in the kernel too
    ou <- oracle_select_clinical(df, y, backward = TRUE, estimator = oracle_hsic1)
    fu <- bahsic(df, y, kernel = kernel_clinical(), drop = 0, estimator = "unbiased")
    expect_identical(fu$ranking, ou$ranking)
    expect_equal(fu$path$hsic, ou$path, tolerance = 1e-10)
  }
})

test_that("C_clinical reads its options by name: train and weight optional, the rest refused", {
  df <- toy_mixed(m = 8, seed = 3)
  z <- normalise_inputs(df, NULL, require_y = FALSE, clinical = TRUE)$x
  flags <- clinical_flags(z)
  gram <- .Call(C_clinical, z, flags, list(threads = 1L))
  expect_identical(gram, clinical_matrix(z, flags))
  # the kernel between z[1:3, ] and z is those rows of the Gram matrix
  cross <- .Call(C_clinical, z[1:3, , drop = FALSE], flags, list(threads = 1L, train = z))
  expect_equal(cross, gram[1:3, ], tolerance = 1e-15)
  w <- rep(1 / ncol(z), ncol(z))
  expect_equal(.Call(C_clinical, z, flags, list(weight = w, threads = 2L)), gram,
               tolerance = 1e-14)
  expect_error(.Call(C_clinical, z, flags, list()), "C_clinical: option 'threads' missing",
               fixed = TRUE)
  expect_error(.Call(C_clinical, z, flags, list(threads = 1L, wieght = w)),
               "C_clinical: unknown option 'wieght'", fixed = TRUE)
  expect_error(.Call(C_clinical, z, flags, list(threads = 1L, weight = w[-1])),
               "C_clinical: option 'weight'", fixed = TRUE)
  expect_error(.Call(C_clinical, z, flags, list(threads = 1L, train = z[, -1])),
               "C_clinical: option 'train'", fixed = TRUE)
  expect_error(.Call(C_clinical, z, flags, list(threads = 0L)),
               "C_clinical: option 'threads' must be", fixed = TRUE)
})
