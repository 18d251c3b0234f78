# mrmr() (R/select-mrmr.R, src/scorer_mrmr.c): the C scorer's order against
# a plain-R greedy MID search on per-feature Gram matrices.

# HSIC0 (tr(A H B H) / (m - 1)^2) or HSIC1 (Song et al. 2012, eq. 5) of two
# m x m kernel matrices, written from their definitions
oracle_hsic <- function(A, B, unbiased = FALSE) {
  m <- nrow(A)
  if (!unbiased) {
    H <- diag(m) - 1 / m
    return(sum(diag(A %*% H %*% B %*% H)) / (m - 1)^2)
  }
  diag(A) <- 0
  diag(B) <- 0
  (sum(A * B) + sum(A) * sum(B) / ((m - 1) * (m - 2)) - 2 / (m - 2) * sum(A %*% B)) /
    (m * (m - 3))
}

# Greedy MID (Peng, Long and Ding 2005): relevance HSIC(x_j, y) minus the
# mean HSIC(x_j, x_s) over the selected s, on each standardised feature's
# Gaussian kernel of width sigma, normalised by sqrt(HSIC(a, a) HSIC(b, b))
# when asked; ties to the lower index.
mrmr_oracle <- function(x, L, n, sigma = 0.5, normalize = TRUE, unbiased = FALSE) {
  xs <- scale(x)
  K <- lapply(seq_len(ncol(xs)), function(j) exp(-sigma * outer(xs[, j], xs[, j], "-")^2))
  h <- function(A, B) oracle_hsic(A, B, unbiased)
  nrm <- if (normalize) sqrt(vapply(K, function(A) h(A, A), 0)) else rep(1, length(K))
  rel <- vapply(K, h, 0, B = L) / nrm / if (normalize) sqrt(h(L, L)) else 1
  sel <- integer()
  score <- numeric()
  red <- numeric(length(K))
  for (it in seq_len(n)) {
    cand <- setdiff(seq_along(K), sel)
    crit <- rel[cand] - if (length(sel)) red[cand] / length(sel) else 0
    best <- cand[order(-crit, cand)[1L]]
    sel <- c(sel, best)
    score <- c(score, crit[cand == best])
    red <- red + vapply(K, h, 0, B = K[[best]]) / (nrm * nrm[best])
  }
  list(selected = sel, score = score, relevance = rel)
}

mrmr_toy <- function(m = 20, d = 8, seed = 1) {
  set.seed(seed)
  y <- factor(rep(c("a", "b"), length.out = m))
  x <- matrix(rnorm(m * d), m, d, dimnames = list(NULL, paste0("g", seq_len(d))))
  x[y == "b", 1:3] <- x[y == "b", 1:3] + c(1.5, 1, 0.7)
  x[, 4] <- x[, 1] + rnorm(m, sd = 0.3)
  list(x = x, y = y, L = outer(y, y, "==") + 0)
}

test_that("mrmr() selects in the order of the plain-R greedy MID search", {
  d <- mrmr_toy()
  for (normalize in c(TRUE, FALSE)) {
    for (estimator in c("biased", "unbiased")) {
      fit <- mrmr(d$x, NULL, kernel_y = label_kernel_precomputed(d$L), n_features = 6,
                  normalize = normalize, estimator = estimator, threads = 1L)
      ref <- mrmr_oracle(d$x, d$L, 6, normalize = normalize, unbiased = estimator == "unbiased")
      expect_identical(fit$ranking, colnames(d$x)[ref$selected])
      expect_equal(fit$features$score[ref$selected], ref$score, tolerance = 1e-10)
      expect_equal(fit$features$relevance, ref$relevance, tolerance = 1e-10)
    }
  }
})

test_that("mrmr() ranks every feature in the oracle's order, exact ties to the lower index", {
  d <- mrmr_toy(m = 16, d = 7, seed = 3)
  # two identical columns (neither the most relevant), and a third copy
  d$x[, 6] <- d$x[, 5]
  d$x[, 7] <- d$x[, 5]
  fit <- mrmr(d$x, NULL, kernel_y = label_kernel_precomputed(d$L), n_features = NULL,
              threads = 1L)
  ref <- mrmr_oracle(d$x, d$L, 7)
  expect_identical(fit$ranking, colnames(d$x)[ref$selected])
  # the copies come in column order
  expect_lt(fit$features$rank[5], fit$features$rank[6])
  expect_lt(fit$features$rank[6], fit$features$rank[7])
  # a Laplace kernel and a width given by the user follow the same rules
  fl <- mrmr(d$x, NULL, kernel = kernel_laplace(sigma = 0.8), sigma = "fixed",
             kernel_y = label_kernel_precomputed(d$L), n_features = 3, threads = 1L)
  expect_identical(fl$settings$sigma, "fixed")
  expect_equal(unique(fl$path$sigma), 0.8)
})

test_that("with linear kernels, normalised HSIC is the squared correlation", {
  # HSIC(a, b) / sqrt(HSIC(a, a) HSIC(b, b)) of one-dimensional linear
  # kernels is cor(a, b)^2: greedy MID on squared correlations
  set.seed(4)
  x <- matrix(rnorm(30 * 6), 30, 6, dimnames = list(NULL, paste0("g", 1:6)))
  y <- x[, 1] + x[, 2] + rnorm(30, sd = 0.5)
  x[, 3] <- x[, 1] + rnorm(30, sd = 0.2)
  fit <- mrmr(x, y, kernel = kernel_linear(), kernel_y = label_kernel_regression(kernel_linear()),
              n_features = 4, threads = 1L)
  r2 <- cor(x)^2
  rel <- drop(cor(x, y))^2
  expect_equal(fit$features$relevance, unname(rel), tolerance = 1e-10)
  sel <- integer()
  for (it in 1:4) {
    cand <- setdiff(1:6, sel)
    crit <- rel[cand] - if (length(sel)) rowMeans(r2[cand, sel, drop = FALSE]) else 0
    sel <- c(sel, cand[which.max(crit)])
  }
  expect_identical(fit$ranking, colnames(x)[sel])
  expect_true(is.na(fit$settings$sigma))
})

test_that("the first feature is the most relevant one, with contribution 1", {
  d <- mrmr_toy(seed = 2)
  fit <- mrmr(d$x, d$y, n_features = 3, threads = 1L)
  rel <- fit$features$relevance
  expect_identical(fit$ranking[1L], colnames(d$x)[which.max(rel)])
  expect_equal(fit$features$score[which.max(rel)], max(rel))
  expect_equal(fit$features$contribution[which.max(rel)], 1)
  # the unnormalised criterion starts from HSIC as feature_scores() gives it
  # (Gaussian kernel of width 1/2 on the standardised features)
  raw <- mrmr(d$x, d$y, n_features = 1, normalize = FALSE, threads = 1L)
  fs <- feature_scores(scale(d$x), d$y, method = "hsic", kernel = kernel_gaussian(sigma = 0.5),
                       threads = 1L)
  expect_equal(raw$features$relevance, fs$score, tolerance = 1e-10)
  expect_identical(raw$ranking, fs$feature[which.max(fs$score)])
})

test_that("mrmr() passes over a copy of a selected feature that relevance alone takes next", {
  x <- golub$x[, 1:100]
  fit0 <- mrmr(x, golub$y, n_features = 1, threads = 1L)
  top <- fit0$ranking
  xc <- cbind(x, copy = x[, top])
  fit <- mrmr(xc, golub$y, n_features = 3, threads = 1L)
  expect_identical(fit$ranking[1L], top)
  expect_false("copy" %in% fit$ranking)
  # by relevance alone the copy ties with the first and comes second
  by_rel <- fit$features$feature[order(-fit$features$relevance, seq_len(ncol(xc)))]
  expect_identical(by_rel[1:2], c(top, "copy"))
})

test_that("mrmr() gives the same result on 1 and 2 threads", {
  x <- golub$x[, 1:1000]
  f1 <- mrmr(x, golub$y, n_features = 6, threads = 1L)
  f2 <- mrmr(x, golub$y, n_features = 6, threads = 2L)
  expect_identical(f1$features, f2$features)
  expect_identical(f1$path, f2$path)
  u1 <- mrmr(x[, 1:300], golub$y, n_features = 4, estimator = "unbiased", add = 0.01,
             threads = 1L)
  u2 <- mrmr(x[, 1:300], golub$y, n_features = 4, estimator = "unbiased", add = 0.01,
             threads = 2L)
  expect_identical(u1$features, u2$features)
})

test_that("mrmr() returns the common result class, its formula method the same", {
  d <- mrmr_toy()
  fit <- mrmr(d$x, d$y, threads = 1L)
  expect_s3_class(fit, "bahsic_selection")
  expect_identical(fit$method, "mrmr")
  # the default size: 50, or every feature when there are fewer
  expect_identical(length(fit$ranking), ncol(d$x))
  expect_identical(nrow(fit$path), ncol(d$x))
  expect_identical(fit$path$n_features, seq_len(ncol(d$x)))
  expect_equal(fit$path$hsic[1L], max(fit$features$relevance))
  dat <- data.frame(d$x, cls = d$y)
  ff <- mrmr(cls ~ ., data = dat, threads = 1L)
  expect_identical(ff$ranking, fit$ranking)
  expect_match(paste(capture.output(print(fit)), collapse = "\n"), "relevance minus")
  # add > 0: a batch per iteration, ranked by the criterion against the set before it
  fb <- mrmr(d$x, d$y, add = 0.3, n_features = 5, threads = 1L)
  expect_identical(fb$ranking[1:2], colnames(d$x)[order(-fb$features$relevance)[1:2]])
})

test_that("mrmr() runs in stability selection, evaluation and the adapters", {
  x <- golub$x[, 1:60]
  set.seed(1)
  st <- stability_selection(x, golub$y, selector = "mrmr", n_features = 3, n_subsamples = 2L,
                            threads = 1L)
  expect_s3_class(st, "bahsic_selection")
  set.seed(1)
  ev <- evaluate_selection(x, golub$y, selectors = "mrmr", n_features = 2, folds = 2,
                           classifier = "none", threads = 1L)
  expect_identical(unique(ev$results$selector), "mrmr")
  rk <- bahsic_rfe_functions(selector = "mrmr")$rank(NULL, x, golub$y)
  expect_identical(rk$var[1:3], mrmr(x, golub$y, n_features = 3, threads = 1L)$ranking)
  expect_identical(nrow(rk), ncol(x))
  expect_error(bahsic_rfe_functions(selector = "mrmr", drop = 0.1), "no argument 'drop'")
  skip_if_not_installed("recipes")
  rec <- recipes::recipe(y ~ ., data = data.frame(x, y = golub$y))
  rec <- step_select_hsic(rec, recipes::all_predictors(), method = "mrmr", top_n = 3,
                          options = list(threads = 1L))
  kept <- setdiff(names(recipes::bake(recipes::prep(rec), NULL)), "y")
  expect_setequal(kept, make.names(mrmr(x, golub$y, n_features = 3, threads = 1L)$ranking))
})

test_that("flt(\"mrmr_hsic\") scores mrmr()'s order", {
  skip_if_not_installed("mlr3filters")
  x <- golub$x[, 1:40]
  colnames(x) <- make.names(colnames(x))
  task <- mlr3::as_task_classif(data.frame(x, y = golub$y), target = "y")
  f <- mlr3filters::flt("mrmr_hsic", threads = 1L)
  f$calculate(task, nfeat = 4)
  fit <- mrmr(x, golub$y, n_features = 4, threads = 1L)
  expect_identical(names(f$scores)[1:4], fit$ranking)
  expect_true(all(f$scores[-(1:4)] == 0))
})

test_that("a time limit stops mrmr() within an iteration or two; verbose reports each one", {
  skip_on_cran()
  skip_if(under_valgrind(), "under valgrind: minutes, not seconds")
  set.seed(30)
  x <- matrix(rnorm(1200 * 400), 1200)
  y <- factor(rep_len(c("a", "b"), 1200))
  # every iteration is a pass over 400 x 720,000 pairs (some 0.5 s), paced
  # with interrupt checks; 50 of them would take half a minute
  run <- interrupt_loop(mrmr(x, y, n_features = 50, normalize = FALSE, verbose = TRUE,
                             threads = 1L), limit = 0.1)
  # R tests its time limits at every check of the passes (bk_check_limits()),
  # so the run stops inside the second iteration (the third at the latest
  # on a machine fast enough to finish it in 0.1 s)
  expect_time_limit(run$error, "mrmr")
  expect_lte(run$iterations, 2L)
  d <- mrmr_toy()
  msgs <- capture_messages(mrmr(d$x, d$y, n_features = 2, verbose = TRUE, threads = 1L))
  expect_match(msgs, "mRMR iteration [12]: [12] features")
  expect_length(msgs, 2L)
})

test_that("mrmr() refuses bad arguments with a message that says what to do", {
  d <- mrmr_toy()
  expect_error(mrmr(d$x, d$y, n_features = 0), "'n_features' must be a whole number from 1 to 8")
  expect_error(mrmr(d$x, d$y, n_features = 9), "from 1 to 8")
  expect_error(mrmr(d$x, d$y, add = 1), "'add' must be a fraction in \\[0, 1\\)")
  expect_error(mrmr(d$x, d$y, sigma = "optimize"), "not one of \"dimension\", \"fixed\"")
  expect_error(mrmr(d$x, d$y, sigma = "fixed"), "needs the kernel's own width")
  expect_error(mrmr(d$x, d$y, normalize = NA), "normalize")
  expect_error(mrmr(d$x, d$y, kernel = kernel_clinical()), "single numeric features")
  expect_error(mrmr(d$x, d$y, kernel = kernel_ridge(1)), "kernel_ridge\\(\\) cannot be used in mrmr")
  expect_error(mrmr(d$x, d$y, kernel = kernel_precomputed(diag(20))), "precomputed kernel")
  expect_error(mrmr(d$x, d$y, n_featurs = 2), "Did you mean 'n_features'")
  expect_error(mrmr(d$x, d$y, sigma_grid = 1), "no argument 'sigma_grid'")
  expect_error(mrmr(d$x, d$y[-1]), "y")
})

test_that("C_mrmr reads its options by name and refuses what it does not take", {
  d <- mrmr_toy()
  x <- scale(d$x)
  W <- diag(nrow(x))
  opts <- list(kernel = 2L, p1 = NA_real_, p2 = 0, policy = 1L, unbiased = FALSE, ynorm = 0,
               W = W, step = 0, n_target = 2L, threads = 1L, verbose = FALSE, simd = TRUE)
  res <- .Call(bahsic:::C_mrmr, x, opts)
  expect_identical(names(res), c("rank", "score", "iteration", "path", "relevance", "self"))
  expect_identical(sum(res$rank > 0L), 2L)
  expect_error(.Call(bahsic:::C_mrmr, x, c(opts, extra = 1)), "extra")
  expect_error(.Call(bahsic:::C_mrmr, x, modifyList(opts, list(policy = 2L))),
               "\"dimension\" or \"fixed\"")
  expect_error(.Call(bahsic:::C_mrmr, x, modifyList(opts, list(kernel = 5L))),
               "unsupported kernel code 5")
  expect_error(.Call(bahsic:::C_mrmr, x, modifyList(opts, list(step = 1))), "'step'")
})

test_that("the normalising pass gives the same values with and without the AVX2 loops", {
  # each feature's HSIC with itself (the relevances over it): the baseline
  # loops and, where the CPU has them, the AVX2 + FMA copies, for the one-loop
  # Gaussian, the mapped Laplace and a Gaussian whose arguments need the clamp
  d <- mrmr_toy(m = 30, d = 8, seed = 5)
  d$x[, 8] <- c(rep(0, 29), 1e3)
  kernels <- list(kernel_gaussian(), kernel_laplace(), kernel_gaussian(sigma = 50))
  for (k in kernels) {
    fits <- lapply(c(FALSE, TRUE), function(simd) {
      old <- options(bahsic.simd = simd)
      on.exit(options(old))
      mrmr(d$x, d$y, kernel = k, sigma = if (is.null(k$params$sigma)) "dimension" else "fixed",
           n_features = 4, threads = 1L)
    })
    expect_identical(fits[[1]]$ranking, fits[[2]]$ranking)
    expect_equal(fits[[1]]$features$relevance, fits[[2]]$features$relevance, tolerance = 1e-12)
    expect_equal(fits[[1]]$features$score, fits[[2]]$features$score, tolerance = 1e-12)
  }
})
