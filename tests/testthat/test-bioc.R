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
    # the default prefix is the method's name
    expect_identical(names(fd), c("symbol", paste0("t_", extra)))
    for (col in extra) expect_identical(fd[[paste0("t_", col)]], s[[col]])
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
                 "already have columns t_score, t_rank.*overwrite = TRUE")
    again <- add_feature_scores(out, "class", method = "pc", prefix = "t_", overwrite = TRUE)
    fd3 <- if (methods::is(again, "ExpressionSet")) Biobase::fData(again) else
      SummarizedExperiment::rowData(again)
    expect_identical(fd3$t_score, feature_scores(d$x, d$y, method = "pc")$score)
  }
})

test_that("add_feature_scores() adds a selection's ranks and contributions", {
  skip_peer("SummarizedExperiment")
  d <- bioc_data()
  se <- make_se(d)
  fit <- fohsic(se, "class", n_features = 3L, threads = 1L)
  out <- add_feature_scores(se, fit = fit)
  rd <- SummarizedExperiment::rowData(out)
  idx <- match(rownames(se), fit$features$feature)
  expect_identical(rd$fohsic_rank, fit$features$rank[idx])
  expect_identical(rd$fohsic_contribution, fit$features$contribution[idx])
  expect_identical(sum(!is.na(rd$fohsic_rank)), 3L)
  # the outcome may come with the fit: the one it was made with
  expect_identical(add_feature_scores(se, "class", fit = fit), out)
  expect_identical(add_feature_scores(se, d$y, fit = fit), out)
  expect_error(add_feature_scores(se, rev(d$y), fit = fit),
               "'y' is not the outcome 'fit' was made with: leave out 'y'")
  expect_error(add_feature_scores(se, d$y[-1], fit = fit),
               "'y' has 23 values but the SummarizedExperiment has 24 samples \\(columns\\)")
  expect_error(add_feature_scores(se, "class", method = "t", fit = fit),
               "With 'fit'.*leave out 'method'")
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
  expect_identical(SummarizedExperiment::rowData(out)$t_score,
                   feature_scores(se, "class", method = "t", var_equal = TRUE)$score)
})

# ---- write-backs that lose nothing ----------------------------------------------

# The feature data of both containers with columns named like the results
# (score, rank, p_value), which must not hide a result column; the
# SummarizedExperiment's row names repeat (g1, g2, g1, g2, ...).
clashing_objects <- function(d) {
  ann <- data.frame(symbol = d$symbol, score = 0.5, rank = 99L, p_value = 1,
                    row.names = colnames(d$x))
  eset <- Biobase::ExpressionSet(
    t(d$x),
    phenoData = Biobase::AnnotatedDataFrame(data.frame(class = d$y, row.names = rownames(d$x))),
    featureData = Biobase::AnnotatedDataFrame(ann))
  se <- SummarizedExperiment::SummarizedExperiment(
    assays = list(exprs = t(d$x)), rowData = ann,
    colData = data.frame(class = d$y, row.names = rownames(d$x)))
  rownames(se) <- rep(c("g1", "g2"), length.out = nrow(se))
  list(eset = eset, se = se)
}

feature_data <- function(obj) {
  if (methods::is(obj, "ExpressionSet")) {
    Biobase::fData(obj)
  } else {
    as.data.frame(SummarizedExperiment::rowData(obj, use.names = FALSE), optional = TRUE)
  }
}

# feature data, row by row, after the object's own columns are untouched
expect_kept_annotation <- function(fd, d) {
  expect_identical(fd$symbol, d$symbol)
  expect_identical(fd$score, rep(0.5, length(d$symbol)))
  expect_identical(fd$rank, rep(99L, length(d$symbol)))
  expect_identical(fd$p_value, rep(1, length(d$symbol)))
}

# a call on the SummarizedExperiment warns of its repeated row names
quiet_dups <- function(expr) {
  withCallingHandlers(expr, warning = function(w) {
    if (grepl("duplicated feature names", conditionMessage(w))) invokeRestart("muffleWarning")
  })
}

test_that("every score method's columns are written back, each value to its feature", {
  skip_peer("Biobase")
  skip_peer("SummarizedExperiment")
  d <- bioc_data()
  for (obj in clashing_objects(d)) {
    # the methods of a two-class outcome (a censored outcome's cox has its own tests)
    for (m in bahsic:::score_methods_with(function(r) "two classes" %in% r$outcomes)) {
      s <- quiet_dups(feature_scores(obj, "class", method = m, threads = 1L))
      out <- quiet_dups(add_feature_scores(obj, "class", method = m, threads = 1L))
      fd <- feature_data(out)
      # every column of the method's own, from `score` on, under the prefix m_
      cols <- names(s)[-seq_len(match("score", names(s)) - 1L)]
      expect_true(all(c("score", "rank") %in% cols))
      expect_setequal(setdiff(names(fd), c("symbol", "score", "rank", "p_value")),
                      paste0(m, "_", cols))
      for (col in cols) {
        expect_identical(fd[[paste0(m, "_", col)]], s[[col]],
                         label = sprintf("%s: %s of %s", class(obj), col, m))
      }
      # the values of the matrix, feature by feature
      expect_identical(fd[[paste0(m, "_score")]],
                       feature_scores(d$x, d$y, method = m, threads = 1L)$score)
      expect_kept_annotation(fd, d)
    }
  }
})

# The selectors: the stability selector's list, and stability selection
# itself. The RFE selector is found under its name in this version.
selector_function <- function(name) {
  if (name %in% c("rfe", "clinical_rfe")) {
    name <- if (exists("clinical_rfe", asNamespace("bahsic"))) "clinical_rfe" else "rfe"
  }
  get(name, asNamespace("bahsic"))
}

selector_args <- list(
  bahsic = list(threads = 1L),
  fohsic = list(n_features = 4L, threads = 1L),
  randsel = list(n_boot = 20L, threads = 1L),
  l1_lsmi = list(n_features = 2, restarts = 1L, n_basis = 10, folds = 3),
  l1_hsic = list(n_features = 2, restarts = 1L),
  hsic_weights = list(lambda = 1e-3, max_iter = 5L),
  rfe = list(drop = 0.3, threads = 1L),
  clinical_rfe = list(drop = 0.3, threads = 1L),
  stability_selection = list(selector = "bahsic", n_features = 3, n_subsamples = 3L)
)

test_that("every selector's columns are written back, each value to its feature", {
  skip_peer("Biobase")
  skip_peer("SummarizedExperiment")
  d <- bioc_data()
  selectors <- c(bahsic:::selector_names(), "stability_selection")
  if (!requireNamespace("kernlab", quietly = TRUE)) {
    selectors <- setdiff(selectors, c("rfe", "clinical_rfe"))
  }
  for (name in selectors) {
    for (obj in clashing_objects(d)) {
      set.seed(7)
      fit <- quiet_dups(do.call(selector_function(name),
                                c(list(obj, "class"), selector_args[[name]])))
      # with the outcome the fit was made with (checked), by position
      out <- add_feature_scores(obj, "class", fit = fit)
      fd <- feature_data(out)
      cols <- setdiff(names(fit$features), c("feature", fit$annotation))
      expect_true(all(c("rank", "score") %in% cols))
      for (col in cols) {
        expect_identical(fd[[paste0(fit$method, "_", col)]], fit$features[[col]],
                         label = sprintf("%s: %s of %s", class(obj), col, name))
      }
      expect_kept_annotation(fd, d)
      expect_error(add_feature_scores(obj, rev(d$y), fit = fit),
                   "'y' is not the outcome 'fit' was made with", info = name)
    }
  }
})

test_that("repeated row names: each row gets its own values, or an error says why", {
  skip_peer("SummarizedExperiment")
  d <- bioc_data()
  se <- make_se(d)
  rownames(se) <- rep(c("g1", "g2"), 5)
  expect_warning(fit <- bahsic(se, "class", threads = 1L), "duplicated feature names")
  out <- add_feature_scores(se, fit = fit)
  rd <- SummarizedExperiment::rowData(out, use.names = FALSE)
  expect_identical(rd$bahsic_rank, bahsic(d$x, d$y, threads = 1L)$features$rank)
  expect_identical(anyDuplicated(rd$bahsic_rank), 0L)
  # a selection of some of the rows cannot be told apart by name
  expect_warning(part <- bahsic(se[1:6, ], "class", threads = 1L), "duplicated")
  expect_error(add_feature_scores(se, fit = part),
               "'object' has repeated row names \\(g1, g2\\).*make.unique")
  # unique names: a selection of some rows is matched by name
  sub <- make_se(d)
  fit6 <- bahsic(sub[3:8, ], "class", threads = 1L)
  rd6 <- SummarizedExperiment::rowData(add_feature_scores(sub, fit = fit6))
  expect_identical(rd6$bahsic_rank[3:8], fit6$features$rank)
  expect_true(all(is.na(rd6$bahsic_rank[-(3:8)])))
})

test_that("a missing row name is renamed with a warning, and the scores written back", {
  skip_peer("SummarizedExperiment")
  d <- bioc_data()
  se <- make_se(d)
  rownames(se)[1L] <- NA
  expect_warning(s <- feature_scores(se, "class", method = "t"),
                 "'x' has features without a name \\(row 1\\): named V1")
  expect_identical(s$feature[1:2], c("V1", "probe2"))
  expect_identical(s$score, feature_scores(d$x, d$y, method = "t")$score)
  out <- suppressWarnings(add_feature_scores(se, "class", method = "t"))
  expect_identical(SummarizedExperiment::rowData(out, use.names = FALSE)$t_score, s$score)
  expect_warning(fit <- bahsic(se, "class", threads = 1L), "without a name")
  expect_identical(SummarizedExperiment::rowData(add_feature_scores(se, fit = fit),
                                                 use.names = FALSE)$bahsic_rank,
                   fit$features$rank)
})

test_that("the default prefixes keep a method and a selection apart", {
  skip_peer("Biobase")
  d <- bioc_data()
  eset <- make_eset(d)
  out <- add_feature_scores(eset, "class", method = "mt")
  fit <- bahsic(eset, "class", threads = 1L)
  out <- add_feature_scores(out, "class", fit = fit)
  fd <- Biobase::fData(out)
  expect_true(all(c("mt_score", "mt_rank", "bahsic_score", "bahsic_rank") %in% names(fd)))
  expect_identical(fd$bahsic_rank, fit$features$rank)
  expect_identical(fd$mt_rank, feature_scores(d$x, d$y, method = "mt")$rank)
})

test_that("a prefix is used as given by both containers", {
  skip_peer("Biobase")
  skip_peer("SummarizedExperiment")
  d <- bioc_data()
  for (obj in list(make_eset(d), make_se(d))) {
    out <- add_feature_scores(obj, "class", method = "t", prefix = "my t ")
    fd <- feature_data(out)
    expect_true(all(c("my t score", "my t rank") %in% names(fd)), info = class(obj))
    expect_identical(fd[["my t score"]], feature_scores(d$x, d$y, method = "t")$score)
  }
})

test_that("an ExpressionSet's outcome of the wrong length asks for one value per sample", {
  skip_peer("Biobase")
  d <- bioc_data()
  eset <- make_eset(d)
  expect_error(feature_scores(eset, d$y[1:10]),
               paste0("'y' has 10 values but the ExpressionSet has 24 samples \\(columns\\), ",
                      "and 10 features \\(rows\\)\\. Give one value per sample.*pData\\(\\)"))
  expect_error(bahsic(eset, d$y[1:5]), "the ExpressionSet has 24 samples \\(columns\\)\\.")
  expect_no_match(tryCatch(bahsic(eset, d$y[1:10]), error = conditionMessage), "t\\(x\\)")
})

test_that("as.data.frame(scores = ) keeps a method's p_value beside an annotation p_value", {
  skip_peer("Biobase")
  d <- bioc_data()
  eset <- clashing_objects(d)$eset
  fit <- bahsic(eset, "class", threads = 1L)
  df <- as.data.frame(fit, scores = "t", data = eset, y = "class")
  s <- feature_scores(d$x, d$y, method = "t")
  idx <- match(df$feature, s$feature)
  for (col in setdiff(names(s), "feature")) {
    expect_identical(df[[paste0("t_", col)]], s[[col]][idx], info = col)
  }
  expect_identical(df$p_value, rep(1, nrow(df)))
})

test_that("bahsic(na_action = ) outside its choices names the argument, not its list", {
  d <- bioc_data()
  expect_error(bahsic(d$x, d$y, na_action = "drop"),
               "^'na_action' = \"drop\" is not one of \"fail\", \"omit\"\\.")
})

test_that("an outcome given with a fit made without one is refused", {
  skip_peer("SummarizedExperiment")
  d <- bioc_data()
  se <- make_se(d)
  fit <- bahsic(se, NULL, unsupervised = TRUE, threads = 1L)
  expect_null(fit$outcome)
  expect_error(add_feature_scores(se, "class", fit = fit),
               "'fit' was made without an outcome \\(unsupervised = TRUE\\).*leave out 'y'")
  rd <- SummarizedExperiment::rowData(add_feature_scores(se, fit = fit))
  expect_identical(rd$bahsic_rank, fit$features$rank)
})

test_that("add_feature_scores() adjusts for a design from the sample data and records it", {
  skip_peer("Biobase")
  skip_peer("SummarizedExperiment")
  skip_if_not(identical(bahsic:::score_table$t$design, "adjusts"),
              "method = \"t\" does not adjust for a design on this branch")
  d <- bioc_data()
  batch <- factor(rep(c("b1", "b2", "b3"), 8))
  pair <- factor(rep(seq_len(12), 2))
  for (obj in list(make_eset(d), make_se(d))) {
    if (methods::is(obj, "ExpressionSet")) {
      Biobase::pData(obj)$batch <- batch
      Biobase::pData(obj)$pair <- pair
    } else {
      SummarizedExperiment::colData(obj)$batch <- batch
      SummarizedExperiment::colData(obj)$pair <- pair
    }
    out <- add_feature_scores(obj, "class", method = "t", covariates = ~ batch, block = "pair")
    s <- feature_scores(d$x, d$y, method = "t", covariates = data.frame(batch = batch),
                        block = pair)
    fd <- as.data.frame(if (methods::is(obj, "ExpressionSet")) Biobase::fData(out) else
      SummarizedExperiment::rowData(out))
    expect_equal(fd$t_score, s$score)
    rec <- if (methods::is(obj, "ExpressionSet")) Biobase::notes(out) else
      methods::slot(out, "metadata")
    expect_identical(rec$bahsic_scores$t_$method, "t")
    expect_match(rec$bahsic_scores$t_$design, "^~ ?batch; block \\(12 blocks\\)$")
    # without a design the record says so, next to the method
    out2 <- add_feature_scores(out, "class", method = "t", prefix = "plain_")
    rec2 <- if (methods::is(obj, "ExpressionSet")) Biobase::notes(out2) else
      methods::slot(out2, "metadata")
    expect_identical(rec2$bahsic_scores$plain_, list(method = "t", design = "none"))
    expect_identical(rec2$bahsic_scores$t_, rec$bahsic_scores$t_)
  }
  expect_error(add_feature_scores(make_se(d), fit = bahsic(make_se(d), "class"), block = pair),
               "leave out 'method', the arguments of feature_scores\\(\\) and the design")
})
