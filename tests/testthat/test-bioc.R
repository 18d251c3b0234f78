# Feature annotation in the selections of Bioconductor inputs, and
# add_feature_scores() on ExpressionSet and SummarizedExperiment.

bioc_data <- function() {
  set.seed(21)
  m <- 24L
  d <- 10L
  x <- matrix(rnorm(m * d), m, d,
              dimnames = list(paste0("s", seq_len(m)), paste0("probe", seq_len(d))))
  y <- factor(rep(c("ctl", "trt"), each = m / 2))
  x[, 3] <- x[, 3] + 2 * (y == "trt")
  symbol <- paste0("GENE", LETTERS[seq_len(d)])
  list(x = x, y = y, symbol = symbol)
}

make_eset <- function(d) {
  Biobase::ExpressionSet(
    t(d$x),
    phenoData = Biobase::AnnotatedDataFrame(data.frame(class = d$y, row.names = rownames(d$x))),
    featureData = Biobase::AnnotatedDataFrame(data.frame(symbol = d$symbol,
                                                         row.names = colnames(d$x))))
}

make_se <- function(d) {
  SummarizedExperiment::SummarizedExperiment(
    assays = list(exprs = t(d$x)),
    rowData = data.frame(symbol = d$symbol, row.names = colnames(d$x)),
    colData = data.frame(class = d$y, row.names = rownames(d$x)))
}

expect_annotated <- function(fit, d) {
  f <- fit$features
  expect_identical(names(f)[1:2], c("feature", "symbol"))
  expect_identical(fit$annotation, "symbol")
  expect_identical(f$symbol, d$symbol[match(f$feature, colnames(d$x))])
  df <- as.data.frame(fit)
  expect_identical(df$symbol, d$symbol[match(df$feature, colnames(d$x))])
  expect_output(print(fit), "symbol")
  expect_output(print(summary(fit)), "GENEC")
}

test_that("selections of an ExpressionSet carry its feature annotation", {
  skip_peer("Biobase")
  d <- bioc_data()
  eset <- make_eset(d)
  plain <- bahsic(d$x, d$y, threads = 1L)
  fit <- bahsic(eset, "class", threads = 1L)
  expect_annotated(fit, d)
  # the same ranks, scores and contributions as from the matrix
  cols <- c("feature", "rank", "score", "iteration", "contribution")
  expect_identical(fit$features[cols], plain$features[cols])
  expect_annotated(fohsic(eset, "class", n_features = 4L, threads = 1L), d)
  set.seed(3)
  expect_annotated(randsel(eset, "class", n_boot = 20, threads = 1L), d)
  set.seed(5)
  expect_annotated(l1_hsic(eset, "class", n_features = 2, restarts = 1L), d)
})

test_that("selections of a SummarizedExperiment carry its rowData annotation", {
  skip_peer("SummarizedExperiment")
  d <- bioc_data()
  se <- make_se(d)
  expect_annotated(bahsic(se, "class", threads = 1L), d)
  expect_annotated(fohsic(se, "class", n_features = 4L, threads = 1L), d)
  set.seed(3)
  expect_annotated(randsel(se, "class", n_boot = 20, threads = 1L), d)
  set.seed(5)
  expect_annotated(l1_hsic(se, "class", n_features = 2, restarts = 1L), d)
  # the join keeps one copy of the annotation
  fit <- bahsic(se, "class", threads = 1L)
  df <- as.data.frame(fit, scores = "t", data = se, y = "class")
  expect_identical(sum(grepl("symbol", names(df))), 1L)
  expect_true(all(c("t_score", "t_rank") %in% names(df)))
})

test_that("clinical_rfe() of a SummarizedExperiment carries the annotation", {
  skip_peer("SummarizedExperiment")
  skip_if_not_installed("kernlab")
  d <- bioc_data()
  expect_annotated(clinical_rfe(make_se(d), "class", drop = 0.3, threads = 1L), d)
})

test_that("add_feature_scores() adds the scores to fData and rowData", {
  skip_peer("Biobase")
  skip_peer("SummarizedExperiment")
  d <- bioc_data()
  s <- feature_scores(d$x, d$y, method = "t")
  extra <- setdiff(names(s), "feature")
  for (obj in list(make_eset(d), make_se(d))) {
    out <- add_feature_scores(obj, "class", method = "t")
    fd <- if (methods::is(out, "ExpressionSet")) Biobase::fData(out) else
      as.data.frame(SummarizedExperiment::rowData(out))
    expect_identical(names(fd), c("symbol", paste0("bahsic_", extra)))
    for (col in extra) expect_identical(fd[[paste0("bahsic_", col)]], s[[col]])
    expect_identical(fd$symbol, d$symbol)
    expect_identical(rownames(fd), colnames(d$x))
    expect_true(methods::validObject(out))
    # the outcome as a vector, and the prefix
    out2 <- add_feature_scores(obj, d$y, method = "t", prefix = "welch_")
    fd2 <- if (methods::is(out2, "ExpressionSet")) Biobase::fData(out2) else
      SummarizedExperiment::rowData(out2)
    expect_identical(fd2$welch_score, s$score)
    # an existing column: an error, unless overwrite = TRUE
    expect_error(add_feature_scores(out, "class", method = "t"),
                 "already have columns bahsic_score, bahsic_rank.*overwrite = TRUE")
    again <- add_feature_scores(out, "class", method = "pc", overwrite = TRUE)
    fd3 <- if (methods::is(again, "ExpressionSet")) Biobase::fData(again) else
      SummarizedExperiment::rowData(again)
    expect_identical(fd3$bahsic_score, feature_scores(d$x, d$y, method = "pc")$score)
  }
})

test_that("add_feature_scores() adds a selection's ranks and contributions", {
  skip_peer("SummarizedExperiment")
  d <- bioc_data()
  se <- make_se(d)
  fit <- fohsic(se, "class", n_features = 3L, threads = 1L)
  out <- add_feature_scores(se, fit = fit, prefix = "fohsic_")
  rd <- SummarizedExperiment::rowData(out)
  idx <- match(rownames(se), fit$features$feature)
  expect_identical(rd$fohsic_rank, fit$features$rank[idx])
  expect_identical(rd$fohsic_contribution, fit$features$contribution[idx])
  expect_identical(sum(!is.na(rd$fohsic_rank)), 3L)
  expect_error(add_feature_scores(se, "class", fit = fit), "With 'fit'.*leave out 'y'")
  expect_error(add_feature_scores(se, fit = list()), "'fit' must be a selection")
})

test_that("add_feature_scores() refuses other objects and a missing outcome", {
  d <- bioc_data()
  expect_error(add_feature_scores(d$x, d$y),
               "'object' must be an ExpressionSet or a SummarizedExperiment, not a matrix")
  expect_error(add_feature_scores(as.data.frame(d$x), d$y), "not a data.frame")
  skip_peer("SummarizedExperiment")
  se <- make_se(d)
  expect_error(add_feature_scores(se), "'y' is missing")
  expect_error(add_feature_scores(se, "class", prefix = NA), "'prefix' must be a single string")
  expect_error(add_feature_scores(se, "class", overwrite = "yes"), "overwrite")
})

test_that("add_feature_scores() names a misspelt argument of feature_scores()", {
  skip_peer("SummarizedExperiment")
  se <- make_se(bioc_data())
  expect_error(add_feature_scores(se, "class", method = "t", var_eqaul = TRUE),
               "has no argument 'var_eqaul'. Did you mean 'var_equal'?", fixed = TRUE)
  out <- add_feature_scores(se, "class", method = "t", var_equal = TRUE, threads = 1L)
  expect_identical(SummarizedExperiment::rowData(out)$bahsic_score,
                   feature_scores(se, "class", method = "t", var_equal = TRUE)$score)
})
