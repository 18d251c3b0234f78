# The selector table (R/selector-table.R): every row complete and true to its
# selector, no other R file spelling a selector's name, and the adapters and
# stability_selection() taking exactly the table's selectors.

table_names <- bahsic:::selector_names()

# Fast arguments for one fit of each selector on small data (what it needs,
# and fewer iterations); a selector added to the table needs its entry here.
quick_args <- list(
  bahsic = list(), fohsic = list(), mrmr = list(),
  randsel = list(n_boot = 20L),
  l1_lsmi = list(restarts = 1L, n_basis = 20, folds = 2, max_iter = 20L),
  l1_hsic = list(restarts = 1L, max_iter = 20L),
  hsic_weights = list(lambda = 1e-3, max_iter = 3L),
  clinical_rfe = list()
)

usable_selectors <- function() {
  if (requireNamespace("kernlab", quietly = TRUE)) table_names else
    table_names[!vapply(table_names, function(n) bahsic:::selector_field(n, "clinical"), NA)]
}

# ---- the names in the R sources ---------------------------------------------------

# Where a string literal (or an argument name, e.g. a switch() arm) of a file
# spells a name: the literal is the name, or holds it in quotes (a message
# naming a value); prose that mentions the function, "bahsic()", is not.
# Returns the line of each and why it may stand (NULL: it may not).
spellings <- function(file, name) {
  pd <- utils::getParseData(parse(file, keep.source = TRUE))
  own_file <- any(startsWith(readLines(file), paste(name, "<- function")))
  str <- pd$token == "STR_CONST"
  value <- rep(NA_character_, nrow(pd))
  value[str] <- vapply(pd$text[str], function(t) eval(parse(text = t)), "")
  hit <- (str & (value == name | grepl(sprintf("\"%s\"", name), value, fixed = TRUE))) |
    (pd$token == "SYMBOL_SUB" & pd$text == name)
  lapply(which(hit), function(i) {
    why <- if (own_file) "the selector's own file" else
      spelling_context(pd, pd$id[i], name, value[i])
    list(line = pd$line1[i], context = why)
  })
}

# Why a spelling may stand (NULL: it may not). The allowlist:
# - the selector's own file (where its generic is defined) names it to R
#   (UseMethod(), check_dots(.fn = ), formula_method()) and names its
#   results' `method` (new_selection());
# - R/codes.R's mirror of the kernel table of src/codes.h, whose kernel sets
#   name the C entry points (`randsel`: the kernels randSel's C code takes);
# - a formal argument's default value (the usage shows the user the default
#   selector, as stability_selection(selector = ) does);
# - the package's own name ("bahsic" is a selector and the package): as
#   the package in asNamespace() and the like, `pkg = `, `package(s) = `
#   (also inside a message), and in the recipes step's required_pkgs().
spelling_context <- function(pd, id, name, value) {
  row <- function(i) pd[pd$id == i, ]
  kids <- function(i) {
    k <- pd[pd$parent == i, ]
    k[order(k$line1, k$col1), ]
  }
  chain <- id
  while (tail(chain, 1L) > 0L) chain <- c(chain, row(tail(chain, 1L))$parent)
  top <- kids(chain[length(chain) - 1L])
  owner <- if (nrow(top) && top$token[1L] == "expr") kids(top$id[1L])$text[1L] else ""
  if (owner == "bk_codes") return("the C code's kernel sets")
  for (k in seq_along(chain)[-1L]) {
    parent <- kids(chain[k])
    if (nrow(parent) && parent$token[1L] == "FUNCTION" &&
        chain[k - 1L] != parent$id[nrow(parent)]) return("formal default")
  }
  if (name != "bahsic") return(NULL)
  if (grepl('package = "bahsic"', value, fixed = TRUE)) return("the package's name")
  call <- kids(chain[3L])
  pos <- match(chain[2L], call$id)
  fun <- if (nrow(call) && call$token[1L] == "expr") kids(call$id[1L])$text[1L] else ""
  named <- !is.na(pos) && pos > 2L && call$token[pos - 1L] == "EQ_SUB"
  arg <- if (named) call$text[pos - 2L] else ""
  if (fun %in% c("asNamespace", "getNamespace", "requireNamespace", "getFromNamespace",
                 "mlr3_remove_hook") || arg %in% c("pkg", "package", "packages") ||
      owner == "required_pkgs.step_select_hsic") {
    return("the package's name")
  }
  NULL
}

test_that("no R file but the table spells a selector's name", {
  r_dir <- testthat::test_path("../../R")
  skip_if_not(dir.exists(r_dir), "the package's R sources are not here")
  files <- setdiff(list.files(r_dir, pattern = "[.]R$", full.names = TRUE),
                   file.path(r_dir, "selector-table.R"))
  bad <- character()
  for (f in files) {
    for (name in table_names) {
      for (s in spellings(f, name)) {
        if (is.null(s$context)) bad <- c(bad, sprintf("%s:%d %s", basename(f), s$line, name))
      }
    }
  }
  expect_identical(bad, character())
})

test_that("the check finds a name spelt outside the table", {
  f <- tempfile(fileext = ".R")
  on.exit(unlink(f))
  writeLines(c('pick <- function(m) if (m == "fohsic") 1 else switch(m, randsel = 2, 3)',
               'run <- function(selector = "randsel") asNamespace("bahsic")',
               'msg <- function() stop("selector = \\"randsel\\" needs lambda; see randsel()")',
               'pkgs <- function() c("bahsic", "x")'), f)
  refused <- function(name) vapply(spellings(f, name), function(s) is.null(s$context), NA)
  expect_identical(refused("fohsic"), TRUE)
  expect_identical(refused("randsel"), c(TRUE, FALSE, TRUE))
  expect_identical(refused("bahsic"), c(FALSE, TRUE))
  # the file that defines a selector's generic may name it
  writeLines(c('fohsic <- function(x, ...) UseMethod("fohsic")',
               'fohsic_result <- function(f) new_selection("fohsic", f)'), f)
  expect_identical(refused("fohsic"), c(FALSE, FALSE))
})

# ---- the rows ------------------------------------------------------------------------

test_that("every row is complete, and its function exists and is exported", {
  fields <- c(bahsic:::selector_required, names(bahsic:::selector_defaults))
  exports <- getNamespaceExports("bahsic")
  for (name in table_names) {
    row <- bahsic:::selector_table[[name]]
    expect_setequal(names(row), fields)
    expect_true(is.character(row$title) && length(row$title) == 1L && nzchar(row$title))
    expect_true(length(row$outcomes) > 0L &&
                  all(row$outcomes %in% bahsic:::selector_outcomes))
    expect_true(is.logical(row$random) && length(row$random) == 1L && !is.na(row$random))
    expect_true(length(row$methods) > 0L && all(nzchar(names(row$methods))) &&
                  all(nzchar(row$methods)))
    for (f in c("score", "contribution", "criterion", "path_value")) {
      expect_true(is.character(row[[f]]) && length(row[[f]]) == 1L && nzchar(row[[f]]), info = f)
    }
    expect_true(row$direction %in% c(NA, "backward", "forward"))
    expect_true(row$width_policy %in% c("median", "dimension"))
    expect_true(is.logical(row$clinical) && length(row$clinical) == 1L)
    # the function users call, exported, with the default method the readers take
    expect_true(name %in% exports, info = name)
    expect_true(is.function(getExportedValue("bahsic", name)), info = name)
    fmls <- formals(bahsic:::selector_default(name))
    if (!is.null(row$size)) {
      expect_true(row$size$arg %in% names(fmls), info = name)
      expect_true(row$size$min >= 1L && is.logical(row$size$required))
    }
    expect_true(all(row$needs %in% names(fmls)), info = name)
    for (nm in row$needs) expect_identical(fmls[[nm]], quote(expr = ), info = nm)
  }
  # a result method names one selector
  expect_false(anyDuplicated(names(bahsic:::selector_labels())) > 0L)
})

test_that("each row's outcomes and random draws are its selector's", {
  set.seed(1)
  m <- 24L
  x <- matrix(stats::rnorm(m * 5L), m, dimnames = list(NULL, paste0("g", 1:5)))
  ys <- list(`two classes` = factor(rep(c("a", "b"), m / 2)),
             `several classes` = factor(rep(c("a", "b", "c"), m / 3)),
             numeric = stats::rnorm(m), matrix = matrix(stats::rnorm(2 * m), m), none = NULL)
  for (name in usable_selectors()) {
    row <- bahsic:::selector_table[[name]]
    # the defaults (random draws are the defaults'), but what it needs
    args <- c(bahsic:::selector_size_args(name, 2L),
              quick_args[[name]][row$needs])
    for (o in names(ys)) {
      extra <- if (o == "none") list(unsupervised = TRUE)
      before <- .Random.seed
      fit <- tryCatch(suppressWarnings(do.call(name, c(list(x, ys[[o]]), args, extra))),
                      error = function(e) e)
      expect_identical(inherits(fit, "bahsic_selection"), o %in% row$outcomes,
                       info = paste(name, o))
      if (inherits(fit, "bahsic_selection")) {
        expect_identical(!identical(before, .Random.seed), row$random, info = paste(name, o))
        expect_true(fit$method %in% names(row$methods), info = name)
        expect_identical(bahsic:::selector_info(fit$method)$name, name)
      }
    }
  }
})

# ---- the readers ----------------------------------------------------------------------

test_that("stability_selection() takes exactly the table's selectors", {
  for (name in table_names) {
    sel <- bahsic:::stab_selector(name, quick_args[[name]][bahsic:::selector_field(name, "needs")])
    expect_identical(sel$name, name)
  }
  expect_error(bahsic:::stab_selector("lsmi", list()), "selector")
  expect_error(bahsic:::stab_selector("bahsic_linear", list()), "selector")
  # a needed argument is asked for, by name
  for (name in table_names) {
    for (nm in bahsic:::selector_field(name, "needs")) {
      expect_error(bahsic:::stab_selector(name, list()), sprintf("needs '%s'", nm))
    }
  }
  set.seed(3)
  x <- golub$x[, 1:12]
  for (name in setdiff(usable_selectors(), "clinical_rfe")) {
    fit <- suppressWarnings(do.call(stability_selection,
                                    c(list(x, golub$y, selector = name, n_features = 2,
                                           n_subsamples = 2L), quick_args[[name]])))
    expect_s3_class(fit, "bahsic_selection")
    expect_identical(fit$settings$selector, name)
  }
})

test_that("the adapters take exactly the table's selectors", {
  score_names <- bahsic:::score_methods
  expect_setequal(setdiff(bahsic:::step_methods(), score_names), table_names)
  expect_setequal(names(bahsic:::mlr3_selector_ids()), table_names)
  expect_setequal(setdiff(bahsic:::mlr3_filter_ids(), "hsic"), bahsic:::mlr3_selector_ids())
  expect_setequal(bahsic:::evaluate_selectors(),
                  table_names[!vapply(table_names, function(n) {
                    length(bahsic:::selector_field(n, "needs")) > 0L
                  }, NA)])
  for (name in table_names) {
    needs <- quick_args[[name]][bahsic:::selector_field(name, "needs")]
    expect_s3_class(do.call(bahsic_rfe_functions, c(needs, selector = name)),
                    "bahsic_caret_functions")
  }
  expect_error(bahsic_rfe_functions(selector = "lsmi"), "selector")
  expect_error(bahsic_rfe_functions(selector = "hsic_weights"), "needs 'lambda'")
})

test_that("caret's rank, the recipes step and the mlr3 filter run every selector", {
  x <- golub$x[, 1:8]
  y <- golub$y
  for (name in usable_selectors()) {
    args <- quick_args[[name]]
    set.seed(5)
    funs <- do.call(bahsic_rfe_functions, c(args, selector = name))
    r <- funs$rank(NULL, x, y)
    expect_setequal(r$var, colnames(x))
    expect_true(!is.unsorted(-r$Overall), info = name)
  }
  skip_peer("recipes")
  d <- data.frame(x, y = y)
  for (name in usable_selectors()) {
    set.seed(5)
    rec <- recipes::recipe(y ~ ., data = d)
    rec <- step_select_hsic(rec, recipes::all_predictors(), method = name, top_n = 3,
                            options = quick_args[[name]])
    baked <- recipes::bake(recipes::prep(rec, training = d), new_data = NULL)
    expect_identical(ncol(baked), 4L, info = name)
  }
  skip_peer("mlr3filters")
  requireNamespace("mlr3filters")
  bahsic:::mlr3_register()
  task <- mlr3::as_task_classif(d, target = "y")
  for (name in usable_selectors()) {
    set.seed(5)
    id <- bahsic:::mlr3_selector_ids()[[name]]
    f <- do.call(mlr3filters::flt, c(list(id), quick_args[[name]]))
    scores <- f$calculate(task)$scores
    expect_setequal(names(scores), task$feature_names)
    expect_true(all(scores >= 0), info = name)
  }
})

test_that("evaluate_selection() runs the table's selectors that need no argument", {
  skip_peer("kernlab")
  set.seed(6)
  ev <- evaluate_selection(golub$x[, 1:10], golub$y, selectors = c("fohsic", "l1_hsic"),
                           n_features = 2, folds = 2, classifier = "svm")
  expect_setequal(unique(ev$results$selector), c("fohsic", "l1_hsic"))
  expect_error(evaluate_selection(golub$x[, 1:10], golub$y, selectors = "hsic_weights",
                                  n_features = 2),
               "must be a function")
})
