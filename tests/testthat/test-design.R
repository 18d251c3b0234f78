# The study design core (R/design.R): resolution, checks, projection, permutations.

design_of <- function(covariates = NULL, block = NULL, data = NULL, m = NULL, rows = NULL) {
  m <- m %||% NROW(if (!is.null(data)) data else if (!is.null(block)) block else covariates)
  resolve_design(design_spec(covariates, block, data), m, rows = rows,
                 samples = paste0("s", seq_len(length(rows %||% seq_len(m)))))
}
`%||%` <- function(a, b) if (is.null(a)) b else a

test_that("a formula in the annotation gives lm()'s model matrix and a projection", {
  set.seed(1)
  ann <- data.frame(batch = rep(c("a", "b", "c"), each = 6), age = rnorm(18))
  d <- design_of(~ batch + age, data = ann)
  expect_s3_class(d, "bahsic_design")
  expect_equal(unname(d$Z), unname(model.matrix(~ batch + age, ann)[, -1]))
  expect_equal(d$df, 18L - 4L)
  expect_identical(d$permutation, "residuals")
  v <- rnorm(18)
  expect_equal(design_residuals(d, v), unname(residuals(lm(v ~ batch + age, ann))))
  V <- matrix(rnorm(36), 18)
  expect_equal(unname(design_residuals(d, V)), unname(residuals(lm(V ~ batch + age, ann))))
  y <- factor(rep(c("n", "t"), 9))
  X <- design_model(d, y)
  expect_equal(unname(X[, ]), unname(model.matrix(~ batch + age + y, cbind(ann, y = y))[, ]))
  expect_identical(attr(X, "coef"), 5L)
})

test_that("discrete covariates and blocks give strata, and shuffles stay inside them", {
  ann <- data.frame(batch = factor(rep(1:3, each = 8)), sex = rep(c("f", "m"), 12))
  d <- design_of(~ batch + sex, data = ann)
  expect_identical(d$permutation, "strata")
  expect_identical(nlevels(d$strata), 6L)
  set.seed(2)
  p <- design_shuffle(d)
  expect_identical(sort(p), 1:24)
  expect_true(all(d$strata[p] == d$strata))
  expect_false(identical(p, 1:24))
  b <- design_of(block = rep(1:12, 2))
  expect_identical(b$strata, droplevels(factor(rep(1:12, 2))))
  expect_equal(b$df, 24L - 12L)
  # a continuous covariate with a block: the block alone is the strata
  cb <- design_of(covariates = seq(0, 1, length.out = 24), block = rep(1:12, 2))
  expect_identical(cb$permutation, "residuals")
  expect_identical(nlevels(cb$strata), 12L)
})

test_that("vectors, matrices and data frames are covariates; the rows kept follow", {
  z <- c(3, 1, 4, 1, 5, 9, 2, 6, 5, 3) + 0.5
  expect_equal(unname(design_of(z)$Z[, 1]), z)
  expect_equal(ncol(design_of(cbind(a = z, b = z^2))$Z), 2L)
  d <- design_of(data.frame(z = z), rows = 2:9)
  expect_equal(unname(d$Z[, 1]), z[2:9])
  expect_identical(d$m, 8L)
  s <- design_subset(design_of(factor(rep(1:2, 5))), 1:6)
  expect_identical(s$m, 6L)
})

test_that("bad designs are errors that name the problem", {
  ann <- data.frame(batch = c("a", "a", "b", NA, "b", "a"), age = 1:6)
  expect_error(design_of(~ batch, data = ann), "covariate 'batch' is missing for 1 sample\\(s\\) \\(s4\\)")
  expect_error(design_of(~ batch, data = data.frame(batch = rep("a", 6))), "one level")
  expect_error(design_of(rep(2, 6)), "is constant")
  expect_error(design_of(~ batch), "needs the samples' annotation")
  expect_error(design_of(~ btch, data = ann[-4, ]), "'btch'.*not a column")
  expect_error(design_of(~ age, data = ann, m = 7), "has 6 rows but x has 7 samples")
  expect_error(design_spec(y ~ batch), "one-sided formula")
  expect_error(design_spec(list(1, 2)), "one-sided formula .* not an object of class \"list\"")
  expect_error(design_of(block = c(1, 1, 2, 2, 3)), "1 block\\(s\\) have one sample \\(3\\)")
  expect_error(design_of(block = rep(1, 6)), "one level")
  expect_error(design_of(block = "patient", m = 6), "not a column")
  expect_error(design_of(factor(1:6)), "6 independent columns .* for 6 samples")
})

test_that("an outcome the design determines is an error that says which samples", {
  ann <- data.frame(batch = rep(c("b1", "b2", "b3", "b4"), each = 5))
  d <- design_of(~ batch, data = ann)
  y <- factor(ifelse(ann$batch %in% c("b1", "b2"), "normal", "tumour"))
  expect_error(design_check_outcome(d, y),
               "every sample of class \"normal\" \\(10: s1, .*batches of their own \\(b1, b2\\)")
  expect_error(design_check_outcome(d, as.numeric(ann$batch == "b3")), "combination of the covariates")
  expect_silent(design_check_outcome(d, factor(rep(c("n", "t"), 10))))
  # every block of one class: repeated samples of a patient
  rep_block <- design_of(block = rep(1:5, each = 4))
  expect_error(design_check_outcome(rep_block, factor(rep(c("n", "t"), c(8, 12)))),
               "every block holds one class .* give evaluate_selection\\(\\) folds that do")
  # blocks that hold one class inform the variance only
  b <- design_of(block = rep(1:5, each = 4))
  expect_warning(design_check_outcome(b, factor(c(rep(c("n", "t"), 8), rep("n", 4)))),
                 "1 of 5 blocks hold one class only \\(5\\)")
})

test_that("the confounding error says which comparisons the design allows", {
  # three classes: normals in a batch of their own, biopsies sharing one with
  # cancers
  ann <- data.frame(batch = factor(c(rep(1, 4), rep(2, 6), rep(3, 4), rep(4, 4), rep(5, 6))))
  y <- factor(c(rep("C", 10), rep("N", 4), rep("B", 4), rep(c("B", "C"), 3)))
  d <- design_of(~ batch, data = ann)
  err <- tryCatch(design_check_outcome(d, y), error = conditionMessage)
  expect_match(err, "every sample of class \"N\" \\(4: s11, .*\\) is in a batch of its own \\(3\\)")
  expect_match(err, "What can be estimated: \"B\" vs \"C\" \\(within 5\\)", fixed = FALSE)
  expect_match(err, "Not estimable given the design: \"B\" vs \"N\"; \"C\" vs \"N\"\\.")
})

test_that("a numeric covariate of a few whole numbers is taken as a trend, with a warning", {
  expect_warning(design_of(data.frame(batch = rep(1:4, 3))),
                 "'batch' is numeric with 4 distinct whole values.*factor\\(batch\\)")
  expect_silent(design_of(data.frame(age = c(31, 45, 52, 38, 60, 41, 29, 55, 47, 36, 62, 50))))
})

test_that("covariates by column name, and a transposed covariate matrix", {
  ann <- data.frame(batch = rep(c("a", "b", "c"), 4), age = seq(30, 63, by = 3))
  by_name <- design_of(c("batch", "age"), data = ann)
  expect_equal(by_name$Z, design_of(~ batch + age, data = ann)$Z)
  expect_error(design_of(c("batch", "sex"), data = ann), "names \"sex\", not a column")
  expect_error(design_of("batch", m = 12), "not a column of the samples' annotation \\(there is none\\)")
  expect_error(design_of(t(as.matrix(ann$age)), m = 12), "transpose it with t\\(\\)")
  # the outcome itself as a covariate
  y <- factor(ann$batch == "a")
  expect_error(design_check_outcome(design_of(~ y, data = data.frame(y = y)), y),
               "same partition of the samples: a covariate or block is the outcome itself")
})

test_that("a formula call's covariates are not features", {
  set.seed(3)
  dat <- data.frame(g1 = rnorm(12), g2 = rnorm(12), batch = rep(c("a", "b"), 6), age = 1:12)
  f <- formula_without(y ~ ., c("batch", "age"), dat)
  expect_identical(attr(terms(f), "term.labels"), c("g1", "g2"))
  expect_identical(formula_without(y ~ g1 + g2, "batch", dat), y ~ g1 + g2)
  expect_error(formula_without(y ~ batch, "batch", dat), "Every term of the formula is a covariate")
})

test_that("feature_scores() refuses a design by the method's name where it cannot adjust", {
  set.seed(4)
  x <- matrix(rnorm(60), 12)
  y <- factor(rep(c("a", "b"), 6))
  no <- names(Filter(function(r) !identical(r$design, "adjusts"), score_table))
  skip_if(!length(no), "every method adjusts")
  ok <- methods_for_outcome(y)
  for (meth in intersect(no, ok)) {
    expect_error(feature_scores(x, y, method = meth, covariates = seq(0, 1, length.out = 12)),
                 sprintf("method = \"%s\" .* cannot adjust for covariates or blocks", meth))
  }
})

test_that("feature_scores() says in an attribute which design it adjusted for", {
  set.seed(6)
  x <- matrix(rnorm(120), 12, 10)
  y <- factor(rep(c("a", "b"), 6))
  ann <- data.frame(batch = rep(c("u", "v", "w"), 4))
  s <- feature_scores(x, y, method = "t", covariates = ~ batch, data = ann)
  expect_identical(attr(s, "design"), "~batch")
  expect_null(attr(feature_scores(x, y, method = "t"), "design"))
})

test_that("a covariates formula finds its variables where model.frame() does", {
  set.seed(7)
  x <- matrix(rnorm(120), 12, 10)
  y <- factor(rep(c("a", "b"), 6))
  age <- seq(31, 64, by = 3)
  # the formula made inside a function, the variable one environment up
  inner <- function() feature_scores(x, y, method = "t", covariates = ~ age)
  expect_identical(attr(inner(), "design"), "~age")
  expect_equal(inner()$statistic,
               feature_scores(x, y, method = "t", covariates = data.frame(age = age))$statistic)
  # a function of that name is not a variable
  expect_error(feature_scores(x, y, method = "t", covariates = ~ mean),
               "needs the samples' annotation")
})
