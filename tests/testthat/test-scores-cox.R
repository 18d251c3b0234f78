# feature_scores(method = "cox"): the Cox score test of each feature alone.

# A small outcome with tied death and censoring times, a binary feature, a
# feature far from 0 and a constant-free random rest.
cox_data <- function(m = 36L, p = 5L, seed = 3L) {
  set.seed(seed)
  x <- matrix(rnorm(m * p), m, p, dimnames = list(NULL, paste0("g", seq_len(p))))
  x[, 2L] <- rbinom(m, 1L, 0.5)
  x[, 3L] <- x[, 3L] * 1e3 + 5e4
  list(x = x, y = survival::Surv(sample(1:10, m, TRUE), rbinom(m, 1L, 0.7)),
       data = data.frame(z = rnorm(m), g = factor(rep(c("a", "b", "c"), length.out = m)),
                         bl = factor(rep(1:3, each = m / 3L))))
}

# coxph()'s score test of x_j at beta = 0 (the covariates at their fit) and
# its one-step coefficient.
coxph_score <- function(y, xj, ties, data, rhs = NULL, by_block = FALSE) {
  data$xj <- xj
  # coxph() finds its special strata() by name
  strata <- survival::strata
  rhs0 <- c(rhs, if (isTRUE(by_block)) "strata(bl)")
  init <- if (length(rhs)) {
    f0 <- survival::coxph(stats::reformulate(rhs0, "y"), data = data, ties = ties)
    c(stats::coef(f0), 0)
  } else 0
  f <- function(iter) {
    suppressWarnings(survival::coxph(stats::reformulate(c(rhs0, "xj"), "y"), data = data,
                                     ties = ties, init = init,
                                     control = survival::coxph.control(iter.max = iter)))
  }
  fit1 <- f(1L)
  c(score = f(0L)$score, effect = unname(utils::tail(stats::coef(fit1), 1L)))
}

test_that("cox is coxph()'s score test, with its one-step log hazard ratio", {
  skip_if_not_installed("survival")
  d <- cox_data()
  s <- feature_scores(d$x, d$y, method = "cox")
  expect_named(s, c("feature", "score", "rank", "statistic", "effect", "mean", "p_value",
                    "adj_p_value"))
  expect_identical(attr(s, "method"), "cox")
  ref <- vapply(1:3, function(j) coxph_score(d$y, d$x[, j], "efron", d$data), c(0, 0))
  expect_equal(s$statistic[1:3], unname(ref[1L, ]), tolerance = 1e-8)
  expect_equal(s$effect[1:3], unname(ref[2L, ]), tolerance = 1e-8)
  # score: the signed root; p-value: chi-square on 1 df; mean: the feature's
  expect_equal(s$score^2, s$statistic, tolerance = 1e-12)
  expect_identical(sign(s$score), sign(s$effect))
  expect_equal(s$p_value, stats::pchisq(s$statistic, 1, lower.tail = FALSE))
  expect_equal(s$adj_p_value, stats::p.adjust(s$p_value, "BH"))
  expect_equal(s$mean, unname(colMeans(d$x)))
  expect_identical(s$rank, rank(-abs(s$score), ties.method = "first"))
  # the default for a Surv outcome, with a message
  expect_message(s0 <- feature_scores(d$x, d$y), "method = \"cox\"")
  expect_identical(s0, s)
})

test_that("cox equals coxph() for every tie method, with covariates and with strata", {
  skip_peer("survival")
  d <- cox_data()
  for (ties in c("efron", "breslow", "exact")) {
    s <- feature_scores(d$x, d$y, method = "cox", ties = ties)
    ref <- vapply(seq_len(ncol(d$x)), function(j) coxph_score(d$y, d$x[, j], ties, d$data),
                  c(0, 0))
    expect_equal(s$statistic, unname(ref[1L, ]), tolerance = 1e-8)
    expect_equal(s$effect, unname(ref[2L, ]), tolerance = 1e-8)
    sb <- feature_scores(d$x, d$y, method = "cox", ties = ties, block = d$data$bl)
    ref <- vapply(seq_len(ncol(d$x)), function(j) {
      coxph_score(d$y, d$x[, j], ties, d$data, by_block = TRUE)
    }, c(0, 0))
    expect_equal(sb$statistic, unname(ref[1L, ]), tolerance = 1e-8)
    if (ties == "exact") next  # with covariates: tied deaths refused (below)
    sc <- feature_scores(d$x, d$y, method = "cox", ties = ties, covariates = ~ z + g,
                         data = d$data)
    ref <- vapply(seq_len(ncol(d$x)), function(j) {
      coxph_score(d$y, d$x[, j], ties, d$data, rhs = c("z", "g"))
    }, c(0, 0))
    expect_equal(sc$statistic, unname(ref[1L, ]), tolerance = 1e-8)
    expect_equal(sc$effect, unname(ref[2L, ]), tolerance = 1e-8)
    expect_identical(attr(sc, "design"), "~z + g")
    sbc <- feature_scores(d$x, d$y, method = "cox", ties = ties, covariates = ~ z,
                          block = "bl", data = d$data)
    ref <- vapply(seq_len(ncol(d$x)), function(j) {
      coxph_score(d$y, d$x[, j], ties, d$data, rhs = "z", by_block = TRUE)
    }, c(0, 0))
    expect_equal(sbc$statistic, unname(ref[1L, ]), tolerance = 1e-8)
  }
})

test_that("times equal within rounding are tied, as coxph() takes them", {
  skip_if_not_installed("survival")
  d <- cox_data()
  time <- d$y[, 1L] * (1 + (seq_along(d$y[, 1L]) %% 2) * 1e-13)
  y <- survival::Surv(time, d$y[, 2L])
  s <- feature_scores(d$x[, 1:2], y, method = "cox", ties = "exact")
  expect_equal(s$statistic, feature_scores(d$x[, 1:2], d$y, method = "cox",
                                           ties = "exact")$statistic, tolerance = 1e-10)
  g <- d$x[, 2L]
  expect_equal(s$statistic[2L], survival::survdiff(y ~ g)$chisq, tolerance = 1e-10)
})

test_that("exact ties give survdiff()'s log-rank test for a binary feature; Efron and Breslow do not", {
  skip_if_not_installed("survival")
  d <- cox_data()
  g <- d$x[, 2L]
  expect_true(any(duplicated(survival::Surv(d$y[, 1L], d$y[, 2L])[d$y[, 2L] == 1, 1L])))
  lr <- survival::survdiff(d$y ~ g)$chisq
  s <- function(ties, ...) feature_scores(d$x[, 2L, drop = FALSE], d$y, method = "cox",
                                          ties = ties, ...)$statistic
  expect_equal(s("exact"), lr, tolerance = 1e-10)
  expect_false(isTRUE(all.equal(s("efron"), lr, tolerance = 1e-6)))
  expect_false(isTRUE(all.equal(s("breslow"), lr, tolerance = 1e-6)))
  # stratified: survdiff(y ~ g + strata(block))
  bl <- d$data$bl
  strata <- survival::strata
  expect_equal(s("exact", block = bl), survival::survdiff(d$y ~ g + strata(bl))$chisq,
               tolerance = 1e-10)
})

test_that("cox does not depend on the scale or blocks of the features, and NA for a constant one", {
  skip_if_not_installed("survival")
  d <- cox_data()
  s <- feature_scores(d$x, d$y, method = "cox")
  s2 <- feature_scores(d$x * 2^-600, d$y, method = "cox", block_size = 2L)
  expect_equal(s2$statistic, s$statistic, tolerance = 1e-12)
  expect_equal(s2$effect, s$effect * 2^600, tolerance = 1e-12)
  x <- cbind(d$x, flat = 1)
  expect_warning(sf <- feature_scores(x, d$y, method = "cox"), "1 constant feature \\(flat\\)")
  expect_true(all(is.na(unlist(sf[6L, c("score", "statistic", "effect", "p_value")]))))
  expect_identical(sf$rank[6L], 6L)
  x[3L, 1L] <- NA
  expect_error(feature_scores(x, d$y, method = "cox"), "missing")
})

test_that("cox: clear errors", {
  skip_if_not_installed("survival")
  d <- cox_data()
  y1 <- survival::Surv(1:36, c(1, rep(0, 35)))
  expect_error(feature_scores(d$x, y1, method = "cox"),
               "method = \"cox\" \\(the Cox score test\\) needs at least 2 events; 'y' has 1")
  expect_error(feature_scores(d$x, rnorm(36), method = "cox"),
               "method = \"cox\" needs a censored survival outcome.*'y' has a numeric outcome")
  expect_error(feature_scores(d$x, factor(rep(1:2, 18)), method = "cox"),
               "needs a censored survival outcome")
  expect_error(feature_scores(d$x, d$y, method = "t"), "Use method = \"cox\"")
  expect_error(feature_scores(d$x, d$y, method = "coxph"), "Did you mean \"cox\"")
  expect_error(feature_scores(d$x, d$y, method = "cox", ties = "breslo"), NA)
  expect_error(feature_scores(d$x, d$y, method = "cox", ties = "peto"), "'ties' = \"peto\"")
  expect_error(feature_scores(d$x, d$y, method = "mt", ties = "exact"),
               "'ties' is not used with method = \"mt\"")
  expect_error(feature_scores(d$x, d$y, method = "cox", covariates = ~ z, data = d$data,
                              ties = "exact"), "ties = \"exact\" with covariates")
  # without tied deaths the three tie methods are one
  y_distinct <- survival::Surv(seq_len(36) + 0.5, d$y[, 2L])
  se <- feature_scores(d$x, y_distinct, method = "cox", covariates = ~ z, data = d$data,
                       ties = "exact")
  sb <- feature_scores(d$x, y_distinct, method = "cox", covariates = ~ z, data = d$data,
                       ties = "breslow")
  expect_equal(se$statistic, sb$statistic, tolerance = 1e-12)
  expect_error(feature_scores(d$x, d$y, method = "cox", adjust = "maxT"),
               "adjust = \"maxT\" is available for")
  expect_error(feature_scores(d$x, d$y, method = "cox", n_perm = 10), "analytic")
})
