# clinical_rfe(): Algorithm 1 of Paul and Dupont (ESANN 2014) with the importances of
# eq. 5-7 (SVM) and eq. 8 (MKL).

toy_rfe <- function(m = 30, seed = 1) {
  set.seed(seed)
  y <- factor(rep(c("a", "b"), length.out = m))
  df <- data.frame(signal = rnorm(m) + 1.5 * (y == "b"),
                   noise = rnorm(m),
                   group = factor(ifelse(runif(m) < ifelse(y == "b", 0.8, 0.2), "g1", "g2")),
                   colour = sample(c("red", "green", "blue"), m, TRUE),
                   level = factor(sample(1:3, m, TRUE), ordered = TRUE),
                   stringsAsFactors = FALSE)
  list(x = df, y = y)
}

# the clinical kernel of some columns of an encoded matrix, straight from eq. 3-4
oracle_encoded_kernel <- function(z, cat) {
  m <- nrow(z)
  K <- matrix(0, m, m)
  for (f in seq_len(ncol(z))) {
    K <- K + if (cat[f]) outer(z[, f], z[, f], "==") else 1 - abs(outer(z[, f], z[, f], "-"))
  }
  K / ncol(z)
}

test_that("J_SVM from C matches eq. 5-7 computed from the ksvm solution", {
  skip_if_not_installed("kernlab")
  for (seed in test_cases(1:2, 1L)) {
    d <- toy_rfe(seed = seed)
    enc <- normalise_inputs(d$x, d$y, clinical = TRUE)
    z <- enc$x
    cat <- attr(z, "clinical")$categorical
    K <- oracle_encoded_kernel(z, cat)
    s <- rfe_svm(K, d$y, C = 1)
    v <- numeric(nrow(z))
    v[s$sv] <- s$v
    # eq. 5 and 7, re-computing the kernel without each feature
    w2 <- drop(v %*% K %*% v)
    w2_minus <- vapply(seq_len(ncol(z)), function(f) {
      drop(v %*% oracle_encoded_kernel(z[, -f, drop = FALSE], cat[-f]) %*% v)
    }, numeric(1))
    expect_equal(s$w2, w2, tolerance = 1e-10)
    q <- rfe_quad(z, as.integer(cat), s, 1L)
    expect_equal(jsvm_importance(q, s$w2, "paper"), abs(w2 - w2_minus), tolerance = 1e-9)
    expect_identical(rfe_quad(z, as.integer(cat), s, 2L), q)
    # the first iteration of clinical_rfe(j_svm = "paper") uses exactly these importances
    fit <- clinical_rfe(d$x, d$y, j_svm = "paper")
    expect_equal(unname(fit$importance[, 1]), abs(w2 - w2_minus), tolerance = 1e-9)
    # "share": the kernel without f's share, K - K_f / p, re-computed
    p <- ncol(z)
    w2_share <- vapply(seq_len(p), function(f) {
      Kf <- oracle_encoded_kernel(z[, f, drop = FALSE], cat[f])
      drop(v %*% (K - Kf / p) %*% v)
    }, numeric(1))
    expect_equal(jsvm_importance(q, s$w2, "share"), w2 - w2_share, tolerance = 1e-9)
    expect_equal(unname(clinical_rfe(d$x, d$y)$importance[, 1]), w2 - w2_share, tolerance = 1e-9)
  }
})

test_that("clinical_rfe() ranks by reverse elimination and returns the common result class", {
  skip_if_not_installed("kernlab")
  d <- toy_rfe(m = 40)
  fit <- clinical_rfe(d$x, d$y, drop = 0, j_svm = "paper")
  expect_s3_class(fit, "bahsic_selection")
  expect_identical(fit$method, "rfe_svm")
  expect_setequal(fit$ranking, names(d$x))
  # one feature per iteration: the feature removed in iteration i ranks p - i + 1
  expect_equal(fit$path$n_features, 5:1)
  expect_equal(fit$features$rank, 6L - fit$features$iteration)
  expect_true(all(is.na(fit$path$hsic)) && all(is.na(fit$path$sigma)))
  expect_true(all(fit$path$objective > 0))
  # eq. 6-7 with an average kernel: with two features left both importances tie
  last2 <- fit$importance[fit$features$iteration >= 4, 4]
  expect_length(last2, 2L)
  expect_equal(last2[[1]], last2[[2]])
  # "share" (the default) ranks by q_f: the strong continuous and categorical
  # signals lead
  fs <- clinical_rfe(d$x, d$y, drop = 0)
  expect_setequal(fs$ranking[1:2], c("signal", "group"))
  expect_identical(fs$settings$j_svm, "share")
  expect_identical(fit$settings$j_svm, "paper")
  # the importance recorded when removed is the smallest of that iteration
  for (it in 1:4) {
    out <- fit$features$feature[fit$features$iteration == it]
    expect_equal(min(fit$importance[, it], na.rm = TRUE), fit$importance[out, it])
  }
  # drop = 0.2 removes max(1, floor(0.2 s)) per iteration
  f2 <- clinical_rfe(d$x, d$y)
  expect_equal(f2$path$n_features, 5:1)
  expect_output(print(f2), "RFE-SVM feature selection: 40 samples, 5 features, 5 ranked")
  expect_output(print(summary(f2)), "objective")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_identical(plot(f2, chosen = "signal"), f2)
  # the formula takes factors as they are
  df <- cbind(d$x, cls = d$y)
  expect_identical(clinical_rfe(cls ~ ., data = df)$ranking, f2$ranking)
  # a numeric matrix: all continuous
  xm <- as.matrix(d$x[c("signal", "noise")])
  fm <- clinical_rfe(xm, d$y)
  expect_identical(fm$ranking[1], "signal")
  # a constant feature leaves first, with importance 0, in both forms
  d$x$const <- 1
  for (j in c("share", "paper")) {
    expect_warning(fc <- clinical_rfe(d$x, d$y, drop = 0, j_svm = j), "constant feature \\(const\\)")
    expect_identical(fc$features$iteration[fc$features$feature == "const"], 1L)
    expect_identical(fc$features$score[fc$features$feature == "const"], 0)
  }
})

test_that("MKL weights are a convex combination that does not raise the SVM objective", {
  skip_if_not_installed("kernlab")
  d <- toy_rfe(m = 30, seed = 2)
  enc <- normalise_inputs(d$x, d$y, clinical = TRUE)
  z <- enc$x
  flags <- clinical_flags(z)
  w <- mkl_weights(z, flags, d$y, C = 1, ctl = list(max_iter = 5, gap = 0.01), threads = 1L)
  expect_true(all(w$mu >= 0))
  expect_equal(sum(w$mu), 1)
  uniform <- rfe_svm(clinical_matrix(z, flags, 1L), d$y, C = 1)
  expect_lte(w$objective, uniform$objective + 1e-8)
  # under valgrind the time would go into kernlab's solver, not our code
  skip_if(under_valgrind(), "under valgrind: kernlab's code, not ours")
  fit <- clinical_rfe(d$x, d$y, importance = "mkl", drop = 0.5, mkl_control = list(max_iter = 3))
  expect_identical(fit$method, "rfe_mkl")
  expect_setequal(fit$ranking, names(d$x))
  for (it in seq_len(ncol(fit$importance))) {
    mu <- fit$importance[, it]
    expect_true(all(mu[!is.na(mu)] >= 0))
    expect_equal(sum(mu, na.rm = TRUE), 1)
  }
  expect_true(all(c("mkl_iter", "mkl_gap") %in% names(fit$path)))
})

test_that("clinical_rfe() gives clear errors for bad input", {
  skip_if_not_installed("kernlab")
  d <- toy_rfe()
  expect_error(clinical_rfe(d$x, factor(rep("a", 30))), "single class")
  expect_error(clinical_rfe(d$x, factor(rep(c("a", "b", "c"), 10))), "two classes; 'y' has 3 \\(a, b, c\\)")
  expect_error(clinical_rfe(d$x, rnorm(30)), "'y' must be two classes")
  expect_error(clinical_rfe(d$x, factor(c("a", rep("b", 29)))), "class \"a\" has 1")
  expect_error(clinical_rfe(d$x, d$y, kernel = kernel_gaussian()), "supports only kernel = kernel_clinical")
  expect_error(clinical_rfe(d$x, d$y, drop = 1), "'drop' must be a fraction")
  expect_error(clinical_rfe(d$x, d$y, C = 0), "'C' must be a single positive")
  expect_error(clinical_rfe(d$x, d$y, importance = "rf"), "'importance' = \"rf\" is not one of")
  expect_error(clinical_rfe(d$x, d$y, importance = "mkl", mkl_control = list(iters = 3)), "'mkl_control' must be a list")
  expect_error(clinical_rfe(d$x, d$y, mkl_control = list(max_iter = 3)),
               "'mkl_control' is not used with importance = \"svm\"")
  expect_error(clinical_rfe(d$x, d$y, importance = "mkl", j_svm = "paper"),
               "'j_svm' is not used with importance = \"mkl\"")
  const <- data.frame(a = rep(1, 30), b = factor(rep("x", 30)))
  expect_error(suppressWarnings(clinical_rfe(const, d$y)), "Every feature of 'x' is constant")
  d$x$noise[3] <- NA
  expect_error(clinical_rfe(d$x, d$y), "missing values \\(NA/NaN\\), first at feature 'noise', sample '3'")
  expect_warning(fit <- clinical_rfe(d$x, d$y, na_action = "omit"), "dropped 1 of 30")
  expect_identical(fit$settings$n_samples, 29L)
})

test_that("clinical_rfe() on real mixed clinical data (MASS::birthwt) is invariant to the sample order", {
  skip_peer("kernlab")
  skip_if_not_installed("MASS")
  bw <- MASS::birthwt
  bw$race <- factor(bw$race, labels = c("white", "black", "other"))
  for (v in c("smoke", "ht", "ui")) bw[[v]] <- factor(bw[[v]], labels = c("no", "yes"))
  x <- bw[c("age", "lwt", "race", "smoke", "ptl", "ht", "ui", "ftv")]
  y <- factor(bw$low, labels = c("normal", "low"))
  fit <- clinical_rfe(x, y)
  expect_setequal(fit$ranking, names(x))
  set.seed(11)
  perm <- sample(nrow(x))
  fit_p <- clinical_rfe(x[perm, ], y[perm])
  # the SVM solver stops at a tolerance that depends on the order, so the
  # importances agree only roughly; the ranking is the same
  expect_identical(fit_p$ranking, fit$ranking)
  # bahsic with the clinical kernel on the same data: the same under permutation too
  b <- bahsic(x, y, kernel = kernel_clinical())
  expect_identical(bahsic(x[perm, ], y[perm], kernel = kernel_clinical())$ranking, b$ranking)
})

# Mixed data with two planted features, a strong continuous and a strong
# categorical one, beside weak and noise features of both kinds.
planted_rfe <- function(seed, m = 80) {
  set.seed(seed)
  y <- factor(rep(c("a", "b"), length.out = m))
  b <- y == "b"
  x <- data.frame(
    num_weak = rnorm(m) + 0.3 * b,
    cat_noise1 = factor(sample(c("x", "y"), m, TRUE)),
    num_strong = rnorm(m) + 2 * b,
    cat_weak = factor(ifelse(runif(m) < ifelse(b, 0.6, 0.4), "p", "q")),
    num_noise = runif(m),
    cat_strong = factor(ifelse(runif(m) < ifelse(b, 0.85, 0.15), "yes", "no")),
    cat_noise2 = factor(sample(c("x", "y", "z"), m, TRUE)))
  list(x = x, y = y)
}

test_that("clinical_rfe() ranks a strong continuous and a strong categorical feature first by default", {
  skip_if_not_installed("kernlab")
  planted <- c("num_strong", "cat_strong")
  for (seed in test_cases(1:5, 1L)) {
    d <- planted_rfe(seed)
    # the pair is far ahead of the rest for a univariate test too
    p <- c(num_strong = t.test(d$x$num_strong ~ d$y)$p.value,
           cat_strong = fisher.test(table(d$x$cat_strong, d$y))$p.value)
    expect_true(all(p < 1e-5))
    fit <- clinical_rfe(d$x, d$y)
    expect_identical(fit$settings$j_svm, "share")
    expect_setequal(fit$ranking[1:2], planted)
    # eq. 6-7 as written ranks the pair first in none of these draws: with
    # the absolute value, features whose q_f lies far below the mean (noise)
    # count as important as those far above it, and in the last iterations
    # the strong features sit closest to the mean they dominate
    paper <- clinical_rfe(d$x, d$y, j_svm = "paper")
    expect_false(setequal(paper$ranking[1:2], planted))
  }
})

# The kernels of clinical_rfe() on many features and samples are long C calls: they
# check for an interrupt between blocks of columns (src/clinical_call.c), so
# a time limit (the same path as Ctrl-C) stops them from inside. The limit is
# set right before the call, and the call never returns. (Without the checks
# the C code ran to its end, seconds later, and returned its result.)
test_that("the clinical kernels stop on an interrupt from inside the C code", {
  skip_on_cran()
  skip_if(under_valgrind(), "under valgrind: a large kernel")
  set.seed(3)
  m <- 1500
  p <- 1200
  z <- matrix(runif(m * p), m, p)
  z[, 1:200] <- sample(1:3, m * 200, TRUE)
  flags <- rep(c(1L, 0L), c(200L, p - 200L))
  W <- tcrossprod(rnorm(m))
  small <- z[1:20, 1:5]
  before <- clinical_matrix(small, flags[1:5], 1L)
  before_dot <- .Call(C_clinical_dot, small, flags[1:5], W[1:20, 1:20], 1L)
  on.exit(setTimeLimit(elapsed = Inf), add = TRUE)
  for (threads in 1:2) {
    returned <- FALSE
    err <- tryCatch({
      setTimeLimit(elapsed = 0.1, transient = FALSE)
      K <- clinical_matrix(z, flags, threads)
      returned <- TRUE
    }, error = function(e) e)
    setTimeLimit(elapsed = Inf)
    expect_s3_class(err, "error")
    expect_match(conditionMessage(err), "time limit")
    expect_false(returned)
    err <- tryCatch({
      setTimeLimit(elapsed = 0.1, transient = FALSE)
      q <- .Call(C_clinical_dot, z, flags, W, threads)
      returned <- TRUE
    }, error = function(e) e)
    setTimeLimit(elapsed = Inf)
    expect_s3_class(err, "error")
    expect_match(conditionMessage(err), "time limit")
    expect_false(returned)
    # the session still works and gives the same answers
    expect_identical(clinical_matrix(small, flags[1:5], 1L), before)
    expect_identical(.Call(C_clinical_dot, small, flags[1:5], W[1:20, 1:20], 1L), before_dot)
  }
  # blocks do not change the numbers: the blockwise kernel against the oracle
  zs <- z[1:200, c(1:3, 201:203)]
  expect_equal(clinical_matrix(zs, flags[c(1:3, 201:203)], 2L),
               oracle_encoded_kernel(zs, flags[c(1:3, 201:203)] == 1L), tolerance = 1e-12)
})

# clinical_rfe() one feature at a time on 300 features: 300 SVMs and kernels. The time
# limit is set by the handler of the first progress message, so it starts
# inside the loop, and it stops the run there, as Ctrl-C would.
test_that("a long clinical_rfe() run can be interrupted and the session stays usable", {
  skip_if_not_installed("kernlab")
  set.seed(8)
  m <- 60
  d <- 300
  x <- matrix(rnorm(m * d), m, d, dimnames = list(NULL, paste0("g", seq_len(d))))
  y <- factor(rep_len(c("a", "b"), m))
  small <- toy_rfe()
  before <- clinical_rfe(small$x, small$y)
  on.exit(setTimeLimit(elapsed = Inf), add = TRUE)
  run <- interrupt_loop(clinical_rfe(x, y, drop = 0, verbose = TRUE))
  expect_s3_class(run$error, "error")
  expect_match(conditionMessage(run$error), "time limit")
  # it stopped inside the loop: after the first iteration, before the last
  expect_gte(run$iterations, 1L)
  expect_lt(run$iterations, d)
  # the session still works and gives the same answers as before
  expect_identical(clinical_rfe(small$x, small$y), before)
})
