# The codes that cross .Call (R/codes.R): bk_codes as read from the C
# tables (src/codes.h), what R names in them (kernels, properties, sets,
# policies, modes, spectral measures) against what the tables hold, and the
# check of each entry point that takes a kernel, policy or direction code
# against codes it does not accept.

test_that("bk_codes is what the C tables say, read at load", {
  from_c <- .Call(bahsic:::C_codes)
  codes <- bahsic:::bk_codes
  expect_setequal(ls(codes), names(from_c))
  expect_identical(mget(names(from_c), envir = codes), from_c)
  # one entry per kernel in each of the kernel columns, codes distinct
  for (col in c("kernel_props", "kernel_sets", "kernel_spectra")) {
    expect_identical(names(codes[[col]]), names(codes$kernel), info = col)
  }
  for (tab in c("kernel", "policy", "direction", "mode", "spectrum")) {
    expect_false(anyDuplicated(codes[[tab]]) > 0L, info = tab)
  }
})

# A kernel with random features draws them from its row's spectral measure:
# C refuses to compile a row flagged rff without one (codes.h); R must have
# the draw of every measure such a row names (rff_spectra), and a kernel
# without random features names none.
test_that("every kernel with random features has a spectral measure R can draw", {
  codes <- bahsic:::bk_codes
  spectra <- bahsic:::rff_spectra
  expect_setequal(names(spectra), setdiff(names(codes$spectrum), "none"))
  for (name in names(codes$kernel)) {
    spectrum <- bahsic:::kernel_spectrum(name)
    if (bahsic:::kernel_has(name, "rff")) {
      expect_true(spectrum %in% names(spectra), info = name)
      expect_true(is.function(spectra[[spectrum]]$scale) && is.function(spectra[[spectrum]]$mix),
                  info = name)
    } else {
      expect_identical(spectrum, "none", info = name)
    }
  }
  expect_identical(bahsic:::kernel_spectrum(kernel_gaussian()), "normal")
  expect_identical(bahsic:::kernel_spectrum("laplace"), "cauchy")
  expect_identical(bahsic:::kernel_spectrum(kernel_ridge(1)), "none") # no C code
  expect_error(bahsic:::rff_frequencies(kernel_polynomial(2), 3, 2),
               "the polynomial kernel has no spectral measure")
  # the standard draws: z, then per frequency the mixing draw
  set.seed(5)
  W <- bahsic:::rff_frequencies(kernel_laplace(), 3, 2)
  set.seed(5)
  z <- matrix(rnorm(6), 3, 2)
  expect_identical(W, z / abs(rnorm(3)))
})

# The calls to the functions `funs` in the package's functions (nested
# calls included), to read what R names in the tables.
ns_calls <- function(funs) {
  ns <- asNamespace("bahsic")
  out <- list()
  walk <- function(e) {
    if (!is.call(e)) return()
    if (is.symbol(e[[1L]]) && as.character(e[[1L]]) %in% funs) out[[length(out) + 1L]] <<- e
    for (i in seq_along(e)) if (is.call(e[[i]])) walk(e[[i]])
  }
  for (name in ls(ns, all.names = TRUE)) {
    f <- get(name, envir = ns)
    if (is.function(f) && !is.primitive(f)) walk(body(f))
  }
  out
}

# The string literals given as argument `arg` (a position) to the calls.
call_literals <- function(calls, arg) {
  lits <- lapply(calls, function(e) if (length(e) >= arg + 1L) e[[arg + 1L]])
  unique(unlist(Filter(is.character, lits)))
}

# The tables are read by name: a kernel constructor's name without a row, or
# a property, set, policy or mode that R names and the tables lack, would be
# an error only when that line runs.
test_that("every kernel, property, set, policy and mode R names has a row in the C tables", {
  codes <- bahsic:::bk_codes
  made <- call_literals(ns_calls("new_kernel"), 1L)
  expect_true(all(c("gaussian", "laplace", "linear") %in% made))
  # kernel_ridge() is built in R on a base kernel that has a row
  expect_setequal(setdiff(made, "ridge"), intersect(made, names(codes$kernel)))
  props <- c(call_literals(ns_calls("kernel_has"), 2L),
             call_literals(ns_calls(c("kernels_with", "kernels_phrase")), 1L))
  expect_true(all(c("width", "squared", "rff") %in% props))
  expect_true(all(props %in% names(codes$kprop)), info = paste(props, collapse = " "))
  sets <- call_literals(ns_calls("kernels_in"), 1L)
  expect_true(all(sets %in% names(codes$kset)), info = paste(sets, collapse = " "))
  expect_true(all(call_literals(ns_calls("policy_code"), 1L) %in% names(codes$policy)))
  expect_true(all(call_literals(ns_calls("mode_code"), 1L) %in% names(codes$mode)))
})

# The messages name the kernels of a property from the table, in R and in
# C's safety net alike.
test_that("the kernels with random features or a width are named from the table", {
  expect_identical(bahsic:::kernels_with("rff"), c("gaussian", "laplace"))
  expect_identical(bahsic:::kernels_phrase("rff"), "a Gaussian or Laplace kernel")
  expect_identical(bahsic:::kernels_phrase("distance"),
                   "a Gaussian, Laplace or Inverse-distance kernel")
  expect_identical(bahsic:::kernels_phrase("length"), "an Inverse-distance kernel")
})

test_that("kernel_code(), policy_code() and direction_code() read bk_codes", {
  codes <- bahsic:::bk_codes
  expect_identical(bahsic:::kernel_code(kernel_gaussian()), codes$kernel[["gaussian"]])
  expect_identical(bahsic:::kernel_code(kernel_inverse_distance()),
                   codes$kernel[["inverse_distance"]])
  expect_identical(bahsic:::kernel_code(kernel_clinical()), codes$kernel[["clinical"]])
  expect_null(names(bahsic:::kernel_code(kernel_linear())))
  expect_error(bahsic:::kernel_code(list(name = "ridge")), "kernel 'ridge' has no C code")
  expect_identical(bahsic:::policy_code("optimize"), codes$policy[["optimize"]])
  expect_identical(bahsic:::direction_code("bahsic"), codes$direction[["backward"]])
  expect_identical(bahsic:::direction_code("fohsic"), codes$direction[["forward"]])
})

# Every entry point that takes a kernel code, called with small valid
# arguments but the code; each accepts the kernels listed (the sets of
# src/codes.h, written out again here) and must refuse every other code with
# an R error that names it.
codes_m <- 6L
codes_args <- function() {
  set.seed(11)
  z <- matrix(rnorm(codes_m * 3L), codes_m)
  x <- tcrossprod(z) + diag(codes_m) # square, positive definite: also a kernel matrix
  y <- rep(c(1, -1), length.out = codes_m)
  list(x = x, W = tcrossprod(y) / codes_m^2, Y = cbind(y == 1, y == -1) + 0)
}
# small valid options of C_select (the exact mode) and C_ridge_select, as
# the R wrappers build them; arguments replace or add options by name
select_opts <- function(a, ...) {
  codes <- bahsic:::bk_codes
  utils::modifyList(list(mode = codes$mode[["exact"]], kernel = codes$kernel[["gaussian"]],
                         p1 = 1, p2 = 0, direction = 0L, policy = 0L, grid = 2^(-1:1),
                         grid_relative = TRUE, step = 0, n_target = 0L, threads = 1L,
                         verbose = FALSE, simd = FALSE, series = 0L, W = a$W), list(...))
}
ridge_opts <- function(...) {
  utils::modifyList(list(lambda = 1, kernel = bahsic:::bk_codes$kernel[["gaussian"]],
                         p1 = 1, p2 = 0, direction = 0L, step = 0, n_target = 0L,
                         verbose = FALSE, policy = 0L, grid = 2^(-1:1),
                         grid_relative = TRUE), list(...))
}
# small valid options of C_randsel_iter and C_randsel_align (one list for
# both, as randsel_loop() builds it) and of C_randsel_contrib
randsel_opts <- function(...) {
  utils::modifyList(list(kernel = bahsic:::bk_codes$kernel[["gaussian"]], p1 = 1, p2 = 0,
                         n_fixed = 0L, n_boot = 2L, subsample = 4L, threads = 1L,
                         simd = FALSE), list(...))
}
contrib_opts <- function(...) {
  utils::modifyList(list(n_samples = codes_m, subsample = 4L, n_free = 6L), list(...))
}
# small valid options of the kernel entry points C_gram, C_feature_dot and
# C_ichol, as kernel_matrix(), feature_scores() and approx_ichol() build them
gram_opts <- function(...) {
  utils::modifyList(list(kernel = bahsic:::bk_codes$kernel[["gaussian"]], p1 = 1, p2 = 1,
                         threads = 1L, simd = FALSE), list(...))
}
dot_opts <- function(...) {
  utils::modifyList(list(kernel = bahsic:::bk_codes$kernel[["gaussian"]], p1 = 1, p2 = 1,
                         threads = 1L, simd = FALSE), list(...))
}
ichol_opts <- function(...) {
  utils::modifyList(list(kernel = bahsic:::bk_codes$kernel[["gaussian"]], p1 = 1, p2 = 1,
                         tol = 1e-6, max_rank = 3L), list(...))
}
entry_points <- list(
  C_gram = function(code, a) .Call(bahsic:::C_gram, a$x, gram_opts(kernel = code)),
  C_feature_dot = function(code, a) {
    .Call(bahsic:::C_feature_dot, a$x, a$W, dot_opts(kernel = code))
  },
  C_ichol = function(code, a) .Call(bahsic:::C_ichol, a$x, ichol_opts(kernel = code)),
  C_select = function(code, a) {
    # the clinical kernel takes its flag per column as well
    flags <- if (code == bahsic:::bk_codes$kernel[["clinical"]]) integer(ncol(a$x))
    .Call(bahsic:::C_select, a$x,
          select_opts(a, kernel = code, p1 = 1, p2 = 1, categorical = flags))
  },
  C_ridge_select = function(code, a) {
    .Call(bahsic:::C_ridge_select, a$x, a$W, ridge_opts(kernel = code, p1 = 1, p2 = 1))
  },
  C_randsel_iter = function(code, a) {
    .Call(bahsic:::C_randsel_iter, a$x, 0:5, randsel_opts(kernel = code, p2 = 1, Y = a$Y))
  },
  C_randsel_align = function(code, a) {
    set.seed(12)
    seeds <- .Call(bahsic:::C_randsel_seeds, 2)
    .Call(bahsic:::C_randsel_align, a$x, 0:5, seeds,
          randsel_opts(kernel = code, p2 = 1, Y = a$Y))
  }
)
# The kernels each entry point takes, from the table's sets as R reads them
# (bk_codes$kernel_sets), so that a new kernel row needs no change here; the
# sets of today's kernels are written out once more below, as a check of
# the table itself.
data_kernels <- bahsic:::kernels_in("data")
accepted <- list(
  C_gram = data_kernels, C_feature_dot = data_kernels, C_ridge_select = data_kernels,
  C_ichol = c(data_kernels, "precomputed"),
  C_select = bahsic:::kernels_in("select"),
  C_randsel_iter = bahsic:::kernels_in("randsel"), C_randsel_align = bahsic:::kernels_in("randsel")
)

test_that("kernels_in() lists the kernels of each set of entry points", {
  today <- c("linear", "polynomial", "gaussian", "laplace", "inverse_distance")
  expect_true(all(today %in% bahsic:::kernels_in("data")))
  expect_true(all(today %in% bahsic:::kernels_in("randsel")))
  expect_true(all(c(today[-1L], "clinical") %in% bahsic:::kernels_in("select")))
  expect_false(any(c("linear", "precomputed") %in% bahsic:::kernels_in("select")))
  expect_false(any(c("clinical", "precomputed") %in% bahsic:::kernels_in("data")))
})

test_that("each entry point accepts its kernel codes", {
  a <- codes_args()
  codes <- bahsic:::bk_codes$kernel
  for (f in names(entry_points)) {
    for (k in accepted[[f]]) {
      res <- tryCatch({
        entry_points[[f]](codes[[k]], a)
        "no error"
      }, error = conditionMessage)
      expect_identical(res, "no error", info = paste(f, k))
    }
  }
})

test_that("each entry point refuses any other kernel code, naming it", {
  a <- codes_args()
  codes <- bahsic:::bk_codes$kernel
  for (f in names(entry_points)) {
    bad <- c(-1L, max(codes) + 1L, 1000L, codes[setdiff(names(codes), accepted[[f]])])
    for (code in unname(bad)) {
      expect_error(entry_points[[f]](code, a), paste0("kernel code ", code, "$"),
                   info = paste(f, code))
    }
  }
})

test_that("the selectors refuse unknown policy, direction and mode codes, naming them", {
  a <- codes_args()
  for (bad in c(-1, 3)) {
    expect_error(.Call(bahsic:::C_select, a$x, select_opts(a, policy = bad)),
                 paste0("unknown width policy ", bad, "$"))
    expect_error(.Call(bahsic:::C_ridge_select, a$x, a$W, ridge_opts(policy = bad)),
                 paste0("unknown width policy ", bad, "$"))
  }
  for (bad in c(-1, 2)) {
    expect_error(.Call(bahsic:::C_select, a$x, select_opts(a, direction = bad)),
                 paste0("unknown direction code ", bad, "$"))
    expect_error(.Call(bahsic:::C_ridge_select, a$x, a$W, ridge_opts(direction = bad)),
                 paste0("unknown direction code ", bad, "$"))
  }
  for (bad in c(-1L, max(bahsic:::bk_codes$mode) + 1L)) {
    expect_error(.Call(bahsic:::C_select, a$x, select_opts(a, mode = bad)),
                 paste0("unknown mode code ", bad, "$"))
  }
})

test_that("mode_code() reads bk_codes", {
  codes <- bahsic:::bk_codes$mode
  for (m in c("exact", "block", "rff", "ichol")) {
    expect_identical(bahsic:::mode_code(m), codes[[m]])
  }
})

# The checks of an entry point that reads named options: `call(o)` runs the
# valid list `o` and gives a value of `type`; each option missing, `extra`
# (a name it does not read), `twice` (an option given a second time), the
# list unnamed or unlisted, and each value of `bad[[name]]` for option
# `name` are R errors that name the entry point `f` and the option.
expect_options_checked <- function(f, call, o, type, bad, extra, twice) {
  expect_type(call(o), type)
  for (name in names(o)) {
    expect_error(call(o[names(o) != name]), paste0(f, ": option '", name, "' missing"),
                 fixed = TRUE, info = paste(f, name))
  }
  expect_error(call(c(o, extra)), paste0(f, ": unknown option '", names(extra), "'"),
               fixed = TRUE)
  expect_error(call(c(o, twice)), paste0(f, ": option '", names(twice), "' given twice"),
               fixed = TRUE)
  expect_error(call(unname(o)), "named list", info = f)
  expect_error(call(unlist(o)), "named list", info = f)
  for (name in names(bad)) {
    for (v in bad[[name]]) {
      o2 <- o
      o2[[name]] <- v
      expect_error(call(o2), paste0(f, ": option '", name, "' must be"),
                   fixed = TRUE, info = paste(f, name, deparse(v)))
    }
  }
}

# The options of C_select and C_ridge_select cross .Call as named lists read
# by name: a missing one, one neither reads (a misspelt name), one given
# twice, and one of the wrong type, length or value are R errors that name
# it. The valid lists run, so each case changes one thing.
test_that("the selectors' options are read by name and checked, naming the option", {
  a <- codes_args()
  entries <- list(
    C_select = function(o) .Call(bahsic:::C_select, a$x, o),
    C_ridge_select = function(o) .Call(bahsic:::C_ridge_select, a$x, a$W, o)
  )
  valid <- list(C_select = select_opts(a), C_ridge_select = ridge_opts())
  bad_values <- list(
    step = list("0", c(0, 0), NaN, NA_real_, Inf),
    n_target = list(-1L, ncol(a$x) + 1L, 0.5, NaN, 2^40, "1", integer(0)),
    p2 = list(NA_real_, NaN, 1L),
    p1 = list(NaN, Inf, c(1, 1)),
    verbose = list(NA, 1, c(TRUE, FALSE)),
    grid_relative = list(NA, "yes"),
    grid = list(1:3),
    policy = list(NA_integer_, NaN, 1e10, 0.5),
    kernel = list(NA_real_, Inf, "gaussian")
  )
  for (f in names(entries)) {
    expect_options_checked(f, entries[[f]], valid[[f]], "list", bad_values,
                           extra = list(stpe = 0.1), twice = list(step = 0.1))
  }
  # the entry points' own options
  expect_error(entries$C_ridge_select(ridge_opts(lambda = NaN)),
               "C_ridge_select: option 'lambda' must be", fixed = TRUE)
  expect_error(entries$C_select(select_opts(a, threads = 0L)),
               "C_select: option 'threads' must be", fixed = TRUE)
  expect_error(entries$C_select(select_opts(a, simd = NA)),
               "C_select: option 'simd' must be", fixed = TRUE)
  for (bad in list(4L, -2L, NA_integer_, 1.5))
    expect_error(entries$C_select(select_opts(a, series = bad)),
                 "C_select: option 'series' must be", fixed = TRUE)
  # the series screen (-1: terms chosen per iteration) ranks as the exact loop
  ex <- entries$C_select(select_opts(a, step = 0.2))
  se <- entries$C_select(select_opts(a, step = 0.2, series = -1L))
  expect_identical(se$rank, ex$rank)
  expect_identical(se$path, ex$path)
  expect_error(entries$C_select(select_opts(a, W = a$W[-1L, ])),
               "C_select: option 'W' must be a double matrix with 6 row(s) and 6 column(s)",
               fixed = TRUE)
  # an option of another mode is not read by this one
  expect_error(entries$C_select(select_opts(a, tol = 1e-6)),
               "C_select: unknown option 'tol'", fixed = TRUE)
  expect_error(entries$C_select(select_opts(a, categorical = integer(ncol(a$x)))),
               "C_select: unknown option 'categorical'", fixed = TRUE)
})

test_that("each mode of C_select reads its own options by name", {
  a <- codes_args()
  m <- codes_m
  d <- ncol(a$x)
  codes <- bahsic:::bk_codes$mode
  common <- select_opts(a)
  common$W <- NULL
  F <- matrix(rep(c(1, -1), length.out = m) / m, m, 1L)
  set.seed(13)
  per_mode <- list(
    block = list(blocks = c(0L, 3L, 6L), W = list(diag(3) - 1 / 3, diag(3) - 1 / 3)),
    rff = list(omega = matrix(rnorm(4 * d), 4, d), phase = runif(4, 0, 2 * pi), F = F,
               unbiased = FALSE),
    ichol = list(tol = 1e-6, max_rank = 4L, F = F, unbiased = FALSE)
  )
  for (mode in names(per_mode)) {
    o <- c(utils::modifyList(common, list(mode = codes[[mode]])), per_mode[[mode]])
    expect_type(.Call(bahsic:::C_select, a$x, o), "list")
    for (name in names(per_mode[[mode]])) {
      expect_error(.Call(bahsic:::C_select, a$x, o[names(o) != name]),
                   paste0("C_select: option '", name, "' missing"), fixed = TRUE,
                   info = paste(mode, name))
    }
    expect_error(.Call(bahsic:::C_select, a$x, c(o, list(W = a$W))),
                 if (mode == "block") "given twice" else "unknown option 'W'",
                 fixed = TRUE, info = mode)
  }
  # the block weights: one square matrix per block, packed in C
  o <- c(utils::modifyList(common, list(mode = codes[["block"]])), per_mode$block)
  o$W <- rep(0.1, 3 + 3 + m)
  expect_error(.Call(bahsic:::C_select, a$x, o),
               "C_select: option 'W' must be a list of 2 block matrices", fixed = TRUE)
  o$W <- list(diag(3), diag(2))
  expect_error(.Call(bahsic:::C_select, a$x, o),
               "C_select: option 'W': block 2 must be a 3 x 3 double matrix", fixed = TRUE)
  o <- c(utils::modifyList(common, list(mode = codes[["ichol"]])), per_mode$ichol)
  o$max_rank <- NaN
  expect_error(.Call(bahsic:::C_select, a$x, o), "C_select: option 'max_rank' must be",
               fixed = TRUE)
  o$max_rank <- 4L
  o$unbiased <- NA
  expect_error(.Call(bahsic:::C_select, a$x, o), "C_select: option 'unbiased' must be",
               fixed = TRUE)
  o <- c(utils::modifyList(common, list(mode = codes[["rff"]])), per_mode$rff)
  o$phase <- o$phase[-1L]
  expect_error(.Call(bahsic:::C_select, a$x, o),
               "C_select: option 'phase' must be a double vector of length 4", fixed = TRUE)
  # a kernel without random features: the message names those with, from the table
  o <- c(utils::modifyList(common, list(mode = codes[["rff"]], p2 = 1,
                                        kernel = bahsic:::bk_codes$kernel[["polynomial"]])),
         per_mode$rff)
  expect_error(.Call(bahsic:::C_select, a$x, o),
               paste("mode 'rff' needs", bahsic:::kernels_phrase("rff")),
               fixed = TRUE)
})

# The options of the randSel entry points, read by name likewise: each
# missing one, a misspelt one, one given twice, and NaN or out-of-range
# values are R errors that name the option (and the entry point).
test_that("the randSel entry points' options are read by name and checked, naming the option", {
  a <- codes_args()
  set.seed(12)
  seeds <- .Call(bahsic:::C_randsel_seeds, 2)
  entries <- list(
    C_randsel_iter = function(o) .Call(bahsic:::C_randsel_iter, a$x, 0:5, o),
    C_randsel_align = function(o) .Call(bahsic:::C_randsel_align, a$x, 0:5, seeds, o),
    C_randsel_contrib = function(o) .Call(bahsic:::C_randsel_contrib, seeds, c(0.1, 0.2),
                                          c(0.3, 0.4), o)
  )
  valid <- list(C_randsel_iter = randsel_opts(Y = a$Y), C_randsel_align = randsel_opts(Y = a$Y),
                C_randsel_contrib = contrib_opts())
  bad_values <- list(
    C_randsel_iter = list(
      kernel = list(NA_real_, NaN, Inf, "gaussian"),
      p1 = list(NaN, NA_real_, Inf, 1L, c(1, 1)),
      p2 = list(NaN, NA_real_, -Inf),
      n_fixed = list(-1L, 7L, NaN, 0.5, 2^40),
      n_boot = list(0L, NaN, NA_integer_, 1e10, 1.5, "2", integer(0)),
      subsample = list(1L, NaN, codes_m + 1L, -4L, 2^40),
      threads = list(0L, NaN, NA_integer_, 1.5),
      simd = list(NA, 1, c(TRUE, FALSE)),
      Y = list(a$Y[-1L, ], "a", as.vector(a$Y))
    ),
    C_randsel_contrib = list(
      n_samples = list(1L, NaN, NA_integer_, 2^40, "6"),
      subsample = list(1L, NaN, codes_m + 1L),
      n_free = list(0L, NaN, -1L, 2.5)
    )
  )
  bad_values$C_randsel_align <- bad_values$C_randsel_iter
  for (f in names(entries)) {
    expect_options_checked(f, entries[[f]], valid[[f]],
                           if (f == "C_randsel_contrib") "double" else "list", bad_values[[f]],
                           extra = list(subsampel = 4L), twice = list(subsample = 4L))
  }
  # the label kernel: its m x m matrix L instead of the factor Y, not both
  # (the same bootstraps: C_randsel_iter draws its seeds from R's generator)
  set.seed(13)
  with_L <- entries$C_randsel_iter(randsel_opts(L = tcrossprod(a$Y)))
  set.seed(13)
  expect_equal(with_L, entries$C_randsel_iter(randsel_opts(Y = a$Y)), tolerance = 1e-12)
  expect_error(entries$C_randsel_iter(randsel_opts(L = tcrossprod(a$Y), Y = a$Y)),
               "C_randsel_iter: give one of the options 'L' and 'Y', not both", fixed = TRUE)
  expect_error(entries$C_randsel_iter(randsel_opts(L = a$Y)),
               "C_randsel_iter: option 'L' must be a double matrix with 6 row(s) and 6 column(s)",
               fixed = TRUE)
  # an option of C_select is not one the randSel entry points read
  expect_error(entries$C_randsel_iter(randsel_opts(step = 0.1, Y = a$Y)),
               "C_randsel_iter: unknown option 'step'", fixed = TRUE)
  # the kernel's parameters and the subsample as randsel() computes them run
  expect_type(entries$C_randsel_iter(randsel_opts(n_fixed = 5L, subsample = codes_m, Y = a$Y)),
              "list")
  expect_error(entries$C_randsel_iter(randsel_opts(n_fixed = 6L, Y = a$Y)), "no free feature")
})

# The options of the kernel entry points (C_gram, C_feature_dot, C_ichol),
# read by name likewise: each missing one, a misspelt one, one given twice,
# and NaN or out-of-range values are R errors that name the option.
test_that("the kernel entry points' options are read by name and checked, naming the option", {
  a <- codes_args()
  d <- ncol(a$x)
  drop_opt <- function(o, name) o[names(o) != name]
  entries <- list(
    C_gram = function(o) .Call(bahsic:::C_gram, a$x, o),
    C_feature_dot = function(o) .Call(bahsic:::C_feature_dot, a$x, a$W, o),
    C_ichol = function(o) .Call(bahsic:::C_ichol, a$x, o)
  )
  valid <- list(C_gram = gram_opts(), C_feature_dot = dot_opts(), C_ichol = ichol_opts())
  common_bad <- list(
    kernel = list(NA_real_, NaN, Inf, "gaussian", 1.5),
    p2 = list(NaN, NA_real_, Inf, 1L, c(1, 1))
  )
  bad_values <- list(
    C_gram = c(common_bad, list(
      p1 = list(NaN, Inf, -Inf, 1L, c(1, 1), "1"),
      threads = list(0L, -1L, NaN, NA_integer_, 1.5, 2^40, "1"),
      simd = list(NA, 1, c(TRUE, FALSE), "TRUE")
    )),
    C_feature_dot = c(common_bad, list(
      p1 = list(NaN, NA_real_, Inf, 1L, c(1, 1), rep(1, d + 1L), c(rep(1, d - 1L), NaN),
                numeric(0)),
      threads = list(0L, NaN, NA_integer_, 1.5, 2^40),
      simd = list(NA, 1, c(TRUE, FALSE), "TRUE")
    )),
    C_ichol = c(common_bad, list(
      p1 = list(NaN, NA_real_, Inf, 1L, c(1, 1)),
      tol = list(NaN, NA_real_, -1, Inf, 1L, c(0, 0)),
      max_rank = list(0L, -3L, NaN, NA_integer_, 2.5, 2^40, "3")
    ))
  )
  for (f in names(entries)) {
    expect_options_checked(f, entries[[f]], valid[[f]], if (f == "C_ichol") "list" else "double",
                           bad_values[[f]], extra = list(thraeds = 1L), twice = list(p2 = 1))
  }
  codes <- bahsic:::bk_codes$kernel
  # an option of another entry point is not read by this one
  expect_error(entries$C_gram(gram_opts(tol = 1e-6)), "C_gram: unknown option 'tol'",
               fixed = TRUE)
  expect_error(entries$C_ichol(ichol_opts(threads = 1L)), "C_ichol: unknown option 'threads'",
               fixed = TRUE)
  # p1 = NA (the median heuristic) is for a kernel with a width, and C_gram's only
  K <- entries$C_gram(gram_opts(p1 = NA_real_))
  expect_equal(attr(K, "p1"), 1 / median(stats::dist(a$x)^2))
  expect_error(entries$C_gram(gram_opts(kernel = codes[["polynomial"]], p1 = NA_real_)),
               "C_gram: option 'p1' must be finite for kernel code", fixed = TRUE)
  # C_feature_dot: one parameter, or a width per feature, each feature's own
  s <- entries$C_feature_dot(dot_opts(p1 = 2^-(1:d)))
  one <- vapply(seq_len(d), function(j) {
    entries$C_feature_dot(dot_opts(p1 = 2^-j))[j]
  }, numeric(1))
  expect_identical(s, one)
  # C_ichol: the precomputed kernel reads its (unused) parameters too
  expect_type(entries$C_ichol(ichol_opts(kernel = codes[["precomputed"]])), "list")
  expect_error(entries$C_ichol(drop_opt(ichol_opts(kernel = codes[["precomputed"]]), "p1")),
               "C_ichol: option 'p1' missing", fixed = TRUE)
})

test_that("kernel_has() and dimension_width() read the kernels' properties", {
  has <- bahsic:::kernel_has
  expect_true(has(kernel_gaussian(), "width") && has("laplace", "width"))
  expect_false(has(kernel_polynomial(2), "width") || has("inverse_distance", "width"))
  expect_true(has(kernel_gaussian(), "squared"))
  expect_false(has(kernel_laplace(), "squared"))
  expect_true(has("inverse_distance", "distance") && has("inverse_distance", "length"))
  expect_false(has(kernel_linear(), "distance"))
  expect_identical(c(has("gaussian", "rff"), has("laplace", "rff"), has("polynomial", "rff")),
                   c(TRUE, TRUE, FALSE))
  expect_false(has(kernel_ridge(1), "width")) # no C code, no properties
  expect_identical(bahsic:::dimension_width(kernel_gaussian(), 8), 1 / 16)
  expect_identical(bahsic:::dimension_width(kernel_laplace(), 8), 1 / 4)
})

# The HSIC statistics take the label side as one named list, list(L = ) or
# list(Y = ), read by name like the options.
test_that("the HSIC entry points read the label as list(L = ) or list(Y = )", {
  a <- codes_args()
  L <- tcrossprod(a$Y)
  perms <- cbind(seq_len(codes_m), rev(seq_len(codes_m)))
  calls <- list(
    C_hsic_stats = function(label) .Call(bahsic:::C_hsic_stats, a$x, label),
    C_hsic_gamma = function(label) .Call(bahsic:::C_hsic_gamma, a$x, label),
    C_hsic_perm = function(label) .Call(bahsic:::C_hsic_perm, a$x, label, perms)
  )
  for (f in names(calls)) {
    # the factor and the full matrix give the same statistics
    expect_equal(calls[[f]](list(Y = a$Y)), calls[[f]](list(L = L)), tolerance = 1e-12,
                 info = f)
    expect_error(calls[[f]](list(L = L, Y = a$Y)),
                 paste0(f, ": give one of the options 'L' and 'Y', not both"), fixed = TRUE)
    expect_error(calls[[f]](list()), paste0(f, ": option 'Y' missing (or 'L')"), fixed = TRUE)
    expect_error(calls[[f]](list(L = L[-1L, ])), paste0(f, ": option 'L' must be"),
                 fixed = TRUE)
    expect_error(calls[[f]](list(Y = a$Y, y = 1)), paste0(f, ": unknown option 'y'"),
                 fixed = TRUE)
    expect_error(calls[[f]](L), "named list", info = f)
  }
})
