# The table of score methods (R/score-table.R): complete rows, the only place
# that spells a method's name, and what reads it.

score_table <- bahsic:::score_table

test_that("every row of the score table is complete and consistent", {
  fields <- c(setdiff(names(formals(bahsic:::score_method)), "..."),
              names(bahsic:::score_method_defaults))
  kinds <- bahsic:::score_outcomes
  expect_identical(names(score_table), bahsic:::score_methods)
  for (name in names(score_table)) {
    row <- score_table[[name]]
    expect_setequal(names(row), fields)
    expect_identical(row$name, name)
    expect_true(is.character(row$label) && length(row$label) == 1L && nzchar(row$label))
    expect_true(is.character(row$doc) && length(row$doc) == 1L && nzchar(row$doc))
    expect_true(length(row$outcomes) > 0L && all(row$outcomes %in% kinds))
    expect_true(all(row$default_for %in% row$outcomes))
    expect_true(is.function(row$scorer))
    expect_true(row$p_values %in% bahsic:::score_p_sources)
    expect_true(is.logical(row$signed) && length(row$signed) == 1L)
    expect_true(is.logical(row$borrows) && is.logical(row$constant_na))
    expect_true(all(row$uses %in% names(formals(bahsic:::feature_scores.default))))
    expect_true(is.null(row$moments) || is.function(row$moments))
    expect_true(row$min_samples$n >= 2L)
    if (!is.null(row$maxt)) {
      expect_true(all(row$maxt$outcomes %in% row$outcomes))
      expect_true(is.character(row$maxt$mode) && is.logical(row$maxt$unit_norm))
    }
    if (row$family == "kernel") {
      expect_true("kernel" %in% row$uses)
      expect_true(all(c("label", "weights", "permuted") %in% names(row$kernel)))
    }
  }
  # each kind of outcome has exactly one default method
  for (kind in kinds) {
    expect_length(bahsic:::score_methods_with(function(r) kind %in% r$default_for), 1L)
  }
  # a name or an alias means one method only
  all_names <- c(names(score_table), names(bahsic:::score_aliases))
  expect_false(anyDuplicated(all_names) > 0L)
})

# Where a method's name (of three or more letters) or an alias is also
# something else, a file may spell it: each entry says what it is there.
name_allowlist <- list(
  # the function hsic(), its generic and formula method
  list(name = "hsic", file = "hsic.R"),
  # the column "hsic" of a selection's path (the HSIC of each step), also
  # named by the selector table (its rows' path_value)
  list(name = "hsic", file = "select-hsic.R"),
  list(name = "hsic", file = "select-weights.R"),
  list(name = "hsic", file = "selection.R"),
  list(name = "hsic", file = "select-mrmr.R"),
  # the default path column of a selector's row
  list(name = "hsic", file = "selector-table.R"),
  # the mlr3 filter "hsic" (mlr_filters_hsic), and the default method of the
  # adapters, written out in their exported signatures (their usage)
  list(name = "hsic", file = "adapter-mlr3.R"),
  list(name = "hsic", file = "adapter-caret.R"),
  list(name = "hsic", file = "adapter-recipes.R"),
  # label_kernel_pam()'s type, a label kernel of the same name
  list(name = "pam", file = "labels.R"),
  # a default selector of evaluate_selection(), in its exported signature
  list(name = "pam", file = "evaluate.R"),
  # the C mode of src/maxt.c that sums the permuted class (the maxT of a
  # design), named as the table's maxt field names it
  list(name = "lin", file = "scores-design.R")
)

# The string literals of an R file, with their lines.
string_literals <- function(file) {
  pd <- utils::getParseData(parse(file, keep.source = TRUE))
  pd <- pd[pd$token == "STR_CONST", ]
  data.frame(line = pd$line1, value = vapply(pd$text, function(t) eval(str2lang(t)), ""),
             stringsAsFactors = FALSE)
}

test_that("no file of R/ but the table spells a score method's name", {
  r_dir <- testthat::test_path("../../R")
  skip_if_not(file.exists(file.path(r_dir, "score-table.R")),
              "the package sources (R/) are not next to the tests")
  names3 <- c(names(score_table), names(bahsic:::score_aliases))
  names3 <- unique(names3[nchar(names3) >= 3L])
  files <- setdiff(list.files(r_dir, "\\.R$"), "score-table.R")
  allowed <- vapply(name_allowlist, function(a) paste(a$name, a$file), "")
  found <- character()
  for (f in files) {
    lit <- string_literals(file.path(r_dir, f))
    for (n in names3) {
      # the whole literal ("lods"), or the name quoted inside a message
      # ("method = \"lods\" ...")
      hit <- lit$value == n | grepl(paste0("\"", n, "\""), lit$value, fixed = TRUE)
      if (any(hit) && !paste(n, f) %in% allowed) {
        found <- c(found, sprintf("%s:%s \"%s\"", f, paste(lit$line[hit], collapse = ","), n))
      }
    }
  }
  expect_identical(found, character())
})

test_that("the adapters, stability selection and evaluation take the table's methods (mlr3: exactly them)", {
  methods <- names(score_table)
  recipes_scores <- setdiff(bahsic:::step_methods(), bahsic:::step_selectors())
  expect_setequal(recipes_scores, methods)
  expect_true(all(methods %in% bahsic:::builtin_selectors()))
  # each method's arguments reach stability_selection() (those of feature_scores())
  for (m in methods) expect_true(all(score_table[[m]]$uses %in% bahsic:::stab_selector_formals(m)))
  # caret's sbf() functions take every method (with n_perm where its p-values need it)
  for (m in methods) {
    perm <- score_table[[m]]$p_values == "permutation"
    expect_s3_class(hsic_sbf_functions(method = m, n_perm = if (perm) 10L), "bahsic_caret_functions")
    if (perm) expect_error(hsic_sbf_functions(method = m), "give 'n_perm'")
  }
  skip_peer("mlr3filters")
  flt <- mlr3filters::flt("hsic")
  expect_setequal(flt$param_set$levels$method, methods)
})

test_that("the method list of ?feature_scores is made from the table", {
  doc <- bahsic:::score_method_docs()
  expect_identical(doc[1:2], c("@details", "\\describe{"))
  for (m in names(score_table)) {
    expect_true(any(startsWith(doc, sprintf("  \\item{`\"%s\"`}", m))))
  }
})

test_that("the checks read the table: arguments, outcomes, p-values", {
  set.seed(1)
  x <- matrix(rnorm(60), 12, 5)
  y <- factor(rep(c("a", "b"), 6))
  y3 <- factor(rep(c("a", "b", "c"), 4))
  for (m in names(score_table)) {
    row <- score_table[[m]]
    for (arg in setdiff(bahsic:::score_method_arguments(), row$uses)) {
      users <- bahsic:::score_methods_with(function(r) arg %in% r$uses)
      expect_error(bahsic:::check_score_arguments(m, stats::setNames(TRUE, arg), NULL),
                   sprintf("'%s' is not used with method = \"%s\"; it applies to method = \"%s\"",
                           arg, m, users[1L]), fixed = TRUE)
    }
    # an outcome the row does not take is an error naming the methods that do
    if (!"several classes" %in% row$outcomes) {
      expect_error(suppressWarnings(feature_scores(x, y3, method = m)),
                   sprintf("method = \"%s\" .*'y' has 3 classes\\. Use method = \"%s\"", m,
                           bahsic:::score_methods_with(function(r) {
                             "several classes" %in% r$default_for
                           })))
    }
    if (row$p_values == "analytic") {
      yy <- if ("numeric" %in% row$outcomes) {
        rnorm(12)
      } else if ("survival" %in% row$outcomes) {
        survival::Surv(1:12, rep(c(0, 1), 6))
      } else y
      expect_error(feature_scores(x, yy, method = m, n_perm = 10),
                   "whose p-values are analytic")
    }
  }
  signed <- bahsic:::score_methods_with(function(r) r$signed)
  expect_identical(bahsic:::signed_methods, signed)
})
