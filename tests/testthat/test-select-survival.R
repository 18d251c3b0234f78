# The selectors with a censored survival outcome: bahsic() (with its screen),
# fohsic() and mrmr() take survival::Surv(time, event) through the survival
# label kernel, also under a study design, through a formula and from a
# Bioconductor object's sample data; l1_lsmi() and clinical_rfe() refuse it
# by name (their rows of the selector table leave "survival" out).

test_that("BAHSIC finds the planted log-linear and U-shaped genes of a censored outcome", {
  skip_if_not_installed("survival")
  skip_statistical_under_checkers("BAHSIC on 200 genes")
  set.seed(7)  # the U-shaped gene is seeded in 5 of seeds 1 to 8 at this size
  s <- simulate_survival(100, 200, n_linear = 1, n_u = 1, censoring = 0.3, effect = 1.5)
  fit <- bahsic(s$x, s$y, threads = 1L)
  expect_identical(fit$settings$kernel_y$type, "survival")
  # the screen seeds both genes (the U-shaped one by the Gaussian kernel's
  # per-gene test), and BAHSIC ranks them first
  expect_true(all(c(s$truth$linear, s$truth$u) %in% fit$screen$seeds))
  expect_setequal(utils::head(fit$ranking, 2L), c(s$truth$linear, s$truth$u))
})

test_that("bahsic(), fohsic() and mrmr() take a Surv outcome, with a design too", {
  skip_if_not_installed("survival")
  set.seed(3)
  s <- simulate_survival(60, 12, n_linear = 1, n_u = 0, effect = 1.5, censoring = 0.3)
  z <- stats::rnorm(60)
  batch <- factor(rep(c("a", "b", "c"), 20))
  for (f in list(bahsic, fohsic, mrmr)) {
    fit <- f(s$x, s$y, n_features = 2L, threads = 1L)
    expect_s3_class(fit$outcome$y, "Surv")
    expect_identical(fit$settings$kernel_y$type, "survival")
    expect_identical(fit$ranking[1L], s$truth$linear)
    adj <- f(s$x, s$y, n_features = 2L, threads = 1L, covariates = data.frame(z = z),
             block = batch)
    expect_s3_class(adj$outcome$y, "Surv")
    expect_identical(adj$ranking[1L], s$truth$linear)
  }
  # the design leaves the Surv outcome to its projected label
  expect_identical(design_outcome(list(), s$y), s$y)
})

test_that("a selection with a Surv outcome prints, summarises and plots it", {
  skip_if_not_installed("survival")
  set.seed(3)
  s <- simulate_survival(40, 8, n_linear = 1, n_u = 0, censoring = 0.3)
  fit <- bahsic(s$x, s$y, threads = 1L)
  events <- sum(unclass(s$y)[, 2L])
  expect_output(print(fit), sprintf("outcome: a censored survival outcome, %d events", events),
                fixed = TRUE)
  expect_output(print(summary(fit)), "censored survival outcome", fixed = TRUE)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_silent(plot(fit))
  # the approximate paths take the survival label too
  for (approx in list(approx_block(size = 20L), "ichol", "rff")) {
    expect_s3_class(bahsic(s$x, s$y, approx = approx, threads = 1L)$outcome$y, "Surv")
  }
})

test_that("a formula Surv(time, status) ~ . leaves time and status out of the features", {
  skip_if_not_installed("survival")
  set.seed(3)
  s <- simulate_survival(40, 8, n_linear = 1, n_u = 0, effect = 1.5, censoring = 0.3)
  d <- data.frame(time = unclass(s$y)[, 1L], status = unclass(s$y)[, 2L], s$x)
  Surv <- survival::Surv
  fit <- bahsic(Surv(time, status) ~ ., data = d, n_features = 2L, threads = 1L)
  expect_setequal(fit$features$feature, colnames(s$x))
  expect_s3_class(fit$outcome$y, "Surv")
  direct <- bahsic(s$x, s$y, n_features = 2L, threads = 1L)
  expect_identical(fit$ranking, direct$ranking)
  expect_identical(mrmr(Surv(time, status) ~ ., data = d, n_features = 2L)$ranking,
                   mrmr(s$x, s$y, n_features = 2L)$ranking)
})

test_that("an ExpressionSet or SummarizedExperiment with a Surv column in its sample data is selected on", {
  skip_if_not_installed("survival")
  skip_peer("Biobase")
  set.seed(3)
  s <- simulate_survival(40, 8, n_linear = 1, n_u = 0, effect = 1.5, censoring = 0.3)
  rownames(s$x) <- paste0("s", seq_len(40))
  pd <- data.frame(age = stats::rnorm(40), row.names = rownames(s$x))
  pd$os <- s$y
  es <- Biobase::ExpressionSet(t(s$x), phenoData = Biobase::AnnotatedDataFrame(pd))
  fit <- fohsic(es, y = "os", n_features = 2L, threads = 1L)
  expect_s3_class(fit$outcome$y, "Surv")
  expect_identical(fit$ranking, fohsic(s$x, s$y, n_features = 2L, threads = 1L)$ranking)
  skip_peer("SummarizedExperiment")
  se <- SummarizedExperiment::SummarizedExperiment(assays = list(exprs = t(s$x)))
  se$os <- s$y
  fit_se <- fohsic(se, y = "os", n_features = 2L, threads = 1L)
  expect_s3_class(fit_se$outcome$y, "Surv")
  expect_identical(fit_se$ranking, fit$ranking)
})

test_that("selectors whose row leaves survival out refuse it by name, from the table", {
  skip_if_not_installed("survival")
  set.seed(3)
  s <- simulate_survival(30, 6, censoring = 0.3)
  expect_false("survival" %in% selector_field("l1_lsmi", "outcomes"))
  expect_error(l1_lsmi(s$x, s$y, n_features = 2L),
               "l1_lsmi\\(\\) fits the density ratio.*'y' has a censored survival outcome\\. Use bahsic\\(\\), fohsic\\(\\), mrmr\\(\\)")
  expect_error(lsmi(s$x, s$y), "lsmi\\(\\) estimates the density.*censored survival outcome")
  expect_error(qmi(s$x, s$y), "qmi\\(\\) estimates the density.*censored survival outcome")
  skip_peer("kernlab")
  expect_error(clinical_rfe(s$x, s$y),
               "clinical_rfe\\(\\) classifies two classes with an SVM.*censored survival outcome")
})
