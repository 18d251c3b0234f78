# The linear scores with a study design (R/scores-design.R): equal to limma,
# lm, t.test(paired = TRUE) and the partial correlation; maxT within strata.

# expr evaluated after set.seed(seed) (lazy evaluation)
seeded <- function(seed, expr) {
  set.seed(seed)
  expr
}

design_data <- function(m = 24, p = 60, seed = 1) {
  set.seed(seed)
  batch <- factor(rep(c("a", "b", "c"), length.out = m))
  y <- factor(rep(c("n", "t"), each = m / 2))
  age <- round(rnorm(m, 50, 10))
  x <- matrix(rnorm(m * p), m, p, dimnames = list(NULL, paste0("g", seq_len(p))))
  x <- x + outer(as.integer(batch), rnorm(p)) + outer(age / 10, rnorm(p, sd = 0.3))
  x[, 1:6] <- x[, 1:6] + (y == "t")
  list(x = x, y = y, batch = batch, age = age, m = m, p = p)
}

# limma's topTable() columns against ours
expect_top_table <- function(s, tt, f = FALSE) {
  stat <- if (f) "F" else "t"
  expect_equal(s$statistic, tt[[stat]], tolerance = 1e-8)
  expect_equal(s$p_value, tt$P.Value, tolerance = 1e-8)
  expect_equal(s$adj_p_value, tt$adj.P.Val, tolerance = 1e-8)
  expect_equal(s$mean, tt$AveExpr, tolerance = 1e-8)
  if (!f) expect_equal(s$effect, tt$logFC, tolerance = 1e-8)
}

top_table <- function(fit, coef) {
  limma::topTable(fit, coef = coef, number = Inf, sort.by = "none")
}

test_that("mt and lods with covariates equal limma's ~ covariates + y", {
  skip_if_not_installed("limma")
  d <- design_data()
  fit <- limma::eBayes(limma::lmFit(t(d$x), model.matrix(~ batch + age + y, d)))
  tt <- top_table(fit, "yt")
  cov <- data.frame(batch = d$batch, age = d$age)
  s <- feature_scores(d$x, d$y, method = "mt", covariates = cov)
  expect_top_table(s, tt)
  expect_equal(s$score, tt$t, tolerance = 1e-8)
  b <- feature_scores(d$x, d$y, method = "lods", covariates = ~ batch + age, data = cov)
  expect_top_table(b, tt)
  expect_equal(b$score, tt$B, tolerance = 1e-8)
  expect_equal(b$t, tt$t, tolerance = 1e-8)
})

test_that("limma's design matrix with coef or contrast, and trend = TRUE, equal limma", {
  skip_if_not_installed("limma")
  d <- design_data()
  des <- model.matrix(~ batch + age + y, d)
  fit <- limma::lmFit(t(d$x), des)
  s <- feature_scores(d$x, design = des, coef = "yt")
  expect_top_table(s, top_table(limma::eBayes(fit), "yt"))
  expect_identical(s$statistic, feature_scores(d$x, design = des, coef = 5L)$statistic)
  tr <- feature_scores(d$x, design = des, coef = "yt", trend = TRUE)
  expect_top_table(tr, top_table(limma::eBayes(fit, trend = TRUE), "yt"))
  expect_equal(feature_scores(d$x, d$y, method = "mt", trend = TRUE)$statistic,
               top_table(limma::eBayes(limma::lmFit(t(d$x), model.matrix(~ y, d)),
                                       trend = TRUE), 2)$t, tolerance = 1e-8)
  # a cell-means design and a contrast (limma::contrasts.fit())
  g <- factor(rep(c("a", "b", "c", "d"), each = 6))
  dm <- model.matrix(~ 0 + g + age, data.frame(g = g, age = d$age))
  cm <- matrix(c(-1, 1, 0, 0, 0), dimnames = list(colnames(dm), "b - a"))
  ct <- limma::eBayes(limma::contrasts.fit(limma::lmFit(t(d$x), dm), cm))
  expect_top_table(feature_scores(d$x, design = dm, contrast = cm), top_table(ct, 1))
  # several coefficients: the moderated F
  f <- feature_scores(d$x, method = "mt", design = dm, contrast = cbind(cm, c(-1, 0, 1, 0, 0)))
  ct2 <- limma::eBayes(limma::contrasts.fit(limma::lmFit(t(d$x), dm),
                                            cbind(cm, c(-1, 0, 1, 0, 0))))
  expect_top_table(f, top_table(ct2, 1:2), f = TRUE)
})

test_that("robust = TRUE equals limma's eBayes(robust = TRUE)", {
  skip_if_not_installed("limma")
  skip_if_not_installed("statmod") # limma's robust prior needs it
  d <- design_data(p = 300)
  set.seed(7)
  # variances that differ between features, some of them outlying
  x <- d$x * rep(exp(rnorm(300, sd = 0.5)), each = d$m)
  x[, 11:20] <- x[, 11:20] * 6
  des <- model.matrix(~ batch + y, d)
  fit <- limma::eBayes(limma::lmFit(t(x), des), robust = TRUE)
  expect_gt(diff(range(fit$df.prior)), 0.5)
  b <- feature_scores(x, d$y, method = "lods", covariates = d$batch, robust = TRUE)
  tt <- top_table(fit, "yt")
  expect_top_table(b, tt)
  expect_equal(b$score, tt$B, tolerance = 1e-8)
  # equal variances: the prior df infinite, the outliers' shrunk
  e <- matrix(stats::rnorm(d$m * 300), d$m)
  fe <- limma::eBayes(limma::lmFit(t(e), des), robust = TRUE)
  expect_top_table(feature_scores(e, design = des, coef = "yt", robust = TRUE),
                   top_table(fe, "yt"))
  expect_error(feature_scores(x, d$y, method = "mt", robust = TRUE, trend = TRUE),
               "not in this version")
})

test_that("mt with several classes is limma's moderated F; a numeric y the slope's t", {
  skip_if_not_installed("limma")
  d <- design_data()
  g <- factor(rep(c("a", "b", "c", "d"), each = 6))
  fit <- limma::eBayes(limma::lmFit(t(d$x), model.matrix(~ batch + g, data.frame(g, d["batch"]))))
  s <- feature_scores(d$x, g, method = "mt", covariates = d$batch)
  expect_top_table(s, top_table(fit, 4:6), f = TRUE)
  z <- d$age + rnorm(d$m)
  fz <- limma::eBayes(limma::lmFit(t(d$x), model.matrix(~ batch + z, data.frame(z, d["batch"]))))
  expect_top_table(feature_scores(d$x, z, method = "mt", covariates = d$batch),
                   top_table(fz, "z"))
  expect_top_table(feature_scores(d$x, z, method = "mt"),
                   top_table(limma::eBayes(limma::lmFit(t(d$x), model.matrix(~ z))), "z"))
})

test_that("mt with a block is limma's ~ block + y", {
  skip_if_not_installed("limma")
  d <- design_data()
  pair <- factor(rep(seq_len(d$m / 2), 2))
  fit <- limma::eBayes(limma::lmFit(t(d$x), model.matrix(~ pair + y, d)))
  expect_top_table(feature_scores(d$x, d$y, method = "mt", block = pair), top_table(fit, "yt"))
})

test_that("t with covariates is lm's t; with pairs the paired t test", {
  d <- design_data()
  s <- feature_scores(d$x, d$y, method = "t", covariates = data.frame(batch = d$batch, age = d$age))
  co <- t(vapply(seq_len(d$p), function(j) {
    summary(stats::lm(d$x[, j] ~ d$batch + d$age + d$y))$coefficients["d$yt", ]
  }, numeric(4)))
  expect_equal(s$statistic, unname(co[, 3]), tolerance = 1e-8)
  expect_equal(s$score, unname(co[, 3]), tolerance = 1e-8)
  expect_equal(s$p_value, unname(co[, 4]), tolerance = 1e-8)
  expect_equal(s$effect, unname(co[, 1]), tolerance = 1e-8)
  pair <- factor(rep(seq_len(d$m / 2), 2))
  p <- feature_scores(d$x, d$y, method = "t", block = pair)
  tt <- vapply(seq_len(d$p), function(j) {
    r <- stats::t.test(d$x[d$y == "t", j], d$x[d$y == "n", j], paired = TRUE)
    c(r$statistic, r$p.value, r$estimate)
  }, numeric(3))
  expect_equal(p$statistic, tt[1, ], tolerance = 1e-8)
  expect_equal(p$p_value, tt[2, ], tolerance = 1e-8)
  expect_equal(p$effect, tt[3, ], tolerance = 1e-8)
})

test_that("pc with covariates is the partial correlation with lm's t test", {
  d <- design_data()
  z <- d$age + rnorm(d$m, sd = 5)
  s <- feature_scores(d$x, z, method = "pc", covariates = d$batch)
  rx <- stats::resid(stats::lm(d$x ~ d$batch))
  rz <- stats::resid(stats::lm(z ~ d$batch))
  expect_equal(s$score, unname(drop(stats::cor(rx, rz))), tolerance = 1e-8)
  expect_equal(s$effect, s$score)
  co <- t(vapply(seq_len(d$p), function(j) {
    summary(stats::lm(d$x[, j] ~ d$batch + z))$coefficients["z", 3:4]
  }, numeric(2)))
  expect_equal(s$statistic, unname(co[, 1]), tolerance = 1e-8)
  expect_equal(s$p_value, unname(co[, 2]), tolerance = 1e-8)
  # two classes: the second class indicator, as without covariates
  s2 <- feature_scores(d$x, d$y, method = "pc", covariates = d$batch)
  t2 <- feature_scores(d$x, d$y, method = "t", covariates = d$batch)
  expect_equal(s2$statistic, t2$statistic, tolerance = 1e-10)
})

# maxT's raw p-values by a pure-R oracle: the labellings of design_shuffle()
# (within the strata) in the same draws, lm's t of each permuted outcome
# (Freedman-Lane: fitted values plus permuted residuals of y on the design).
maxt_oracle <- function(x, y, Z, strata, n_perm, seed) {
  set.seed(seed)
  y01 <- as.double(y == levels(y)[2L])
  fy <- stats::fitted(stats::lm(y01 ~ Z))
  ry <- y01 - fy
  tstat <- function(v) {
    apply(x, 2L, function(col) summary(stats::lm(col ~ Z + v))$coefficients["v", 3])
  }
  obs <- abs(tstat(y01))
  count <- numeric(ncol(x))
  for (b in seq_len(n_perm)) {
    idx <- seq_along(y)
    if (b > 1L) {
      if (is.null(strata)) {
        idx <- sample.int(length(y))
      } else {
        for (g in split(idx, strata)) idx[g] <- g[sample.int(length(g))]
      }
    }
    count <- count + (abs(tstat(fy + ry[idx])) >= obs * (1 - 1e-8))
  }
  unname(count / n_perm)
}

test_that("maxT with a design permutes within strata or permutes residuals", {
  d <- design_data(m = 16, p = 8)
  n_perm <- 40L
  set.seed(3)
  s <- feature_scores(d$x, d$y, method = "t", covariates = d$batch, adjust = "maxT",
                      n_perm = n_perm, threads = 1L)
  Z <- model.matrix(~ d$batch)[, -1L]
  expect_equal(s$p_value, maxt_oracle(d$x, d$y, Z, d$batch, n_perm, 3))
  expect_true(all(diff(s$adj_p_value[order(s$rank)]) >= 0))
  expect_true(all(s$adj_p_value >= s$p_value))
  set.seed(4)
  r <- feature_scores(d$x, d$y, method = "pc", covariates = d$age, adjust = "maxT",
                      n_perm = n_perm, threads = 1L)
  expect_equal(r$p_value, maxt_oracle(d$x, d$y, d$age, NULL, n_perm, 4))
  # the same for 1 and 2 threads, for every method
  for (method in c("t", "pc", "mt")) {
    one <- seeded(5, feature_scores(d$x, d$y, method = method, covariates = d$batch,
                                        adjust = "maxT", n_perm = 30L, threads = 1L))
    two <- seeded(5, feature_scores(d$x, d$y, method = method, covariates = d$batch,
                                        adjust = "maxT", n_perm = 30L, threads = 2L))
    expect_identical(one, two)
  }
})

test_that("maxT with a block keeps every permutation inside the blocks", {
  d <- design_data(m = 16, p = 8)
  pair <- factor(rep(seq_len(8), 2))
  set.seed(6)
  s <- feature_scores(d$x, d$y, method = "t", block = pair, adjust = "maxT", n_perm = 30L,
                      threads = 1L)
  B <- model.matrix(~ pair)[, -1L]
  expect_equal(s$p_value, maxt_oracle(d$x, d$y, B, pair, 30L, 6))
})

test_that("bad designs for the linear fits are errors that say what to do", {
  d <- design_data(p = 10)
  des <- model.matrix(~ batch + y, d)
  expect_error(feature_scores(d$x, design = des, coef = 9), "'coef' must name columns")
  expect_error(feature_scores(d$x, design = des, coef = "yx"), "'coef' must name columns")
  expect_error(feature_scores(d$x, design = des), "say which coefficient")
  expect_error(feature_scores(d$x, design = des[-1, ], coef = 4), "one row per|rows")
  expect_error(feature_scores(d$x, d$y, design = des, coef = 4), "not both")
  expect_error(feature_scores(d$x, design = des, coef = 4, covariates = d$batch),
               "put the covariates in its columns")
  expect_error(feature_scores(d$x, design = cbind(des, des[, 2]), coef = 4), "rank")
  expect_error(feature_scores(d$x, design = des, coef = 4, contrast = c(0, 0, 0, 1)),
               "not both")
  expect_error(feature_scores(d$x, design = des, contrast = c(0, 1)), "one row per")
  expect_error(feature_scores(d$x, d$y, method = "mt", covariates = d$batch, coef = 2),
               "go with design")
  expect_error(feature_scores(d$x, d$y, method = "t", trend = TRUE), "'trend' is not used")
  expect_error(feature_scores(d$x, d$y, method = "pc", robust = TRUE), "'robust' is not used")
  expect_error(feature_scores(d$x, method = "t", design = des, coef = 4),
               "'design' is not used")
  expect_error(feature_scores(d$x, design = des, coef = 2:3, method = "lods"),
               "tests one coefficient")
  expect_error(feature_scores(d$x, design = des, coef = 4, adjust = "maxT"),
               "with a design matrix")
  expect_error(feature_scores(d$x, d$y, method = "mt", covariates = d$batch, trend = TRUE,
                              adjust = "maxT"), "does not take trend")
  expect_error(feature_scores(d$x, d$y, method = "snr", covariates = d$batch),
               "cannot adjust.*method = \"t\"")
})

test_that("the projection of the fits (C) is F' x", {
  set.seed(8)
  x <- matrix(rnorm(13 * 7), 13)
  for (r in c(1L, 3L, 4L, 5L, 9L)) {
    basis <- matrix(rnorm(13 * r), 13)
    expect_equal(.Call(bahsic:::C_feature_project, x, basis), crossprod(basis, x),
                 tolerance = 1e-14)
  }
  expect_identical(dim(.Call(bahsic:::C_feature_project, x[, 0L, drop = FALSE], basis)),
                   c(9L, 0L))
})

test_that("constant and exactly fitted features, blocks of features, omitted samples", {
  skip_if_not_installed("limma")
  d <- design_data(p = 20)
  x <- d$x
  x[, 1] <- 3
  x[, 2] <- as.integer(d$batch) + 2 * (d$y == "t")
  expect_warning(mt <- feature_scores(x, d$y, method = "mt", covariates = d$batch),
                 "constant feature \\(g1\\)")
  expect_identical(mt$statistic[1], 0)
  expect_warning(expect_warning(t <- feature_scores(x, d$y, method = "t", covariates = d$batch),
                                "constant feature"), "separates the classes perfectly \\(g2\\)")
  expect_true(is.na(t$score[1]) && t$statistic[2] == Inf && t$rank[2] == 1L)
  expect_equal(t$effect[2], 2)
  expect_identical(suppressWarnings(feature_scores(x, d$y, method = "mt", covariates = d$batch,
                                                   block_size = 3)), mt)
  des <- model.matrix(~ batch + y, d)
  xn <- d$x
  xn[3, 5] <- NA
  expect_warning(s <- feature_scores(xn, design = des, coef = "yt", na_action = "omit"),
                 "dropped 1 of 24")
  fit <- limma::eBayes(limma::lmFit(t(d$x[-3, ]), des[-3, ]))
  expect_equal(s$statistic, top_table(fit, "yt")$t, tolerance = 1e-8)
})
