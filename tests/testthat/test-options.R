# The options of the package (R/options.R): one reader per option, which
# checks the value where it is read and names the option and its valid
# values in its error; ?bahsic_options lists every option.

with_option <- function(name, value, code) {
  old <- options(structure(list(value), names = name))
  on.exit(options(old))
  code
}

test_that("unset options give their documented defaults", {
  old <- options(bahsic.max_memory = NULL, bahsic.simd = NULL, bahsic.series = NULL,
                 bahsic.threads = NULL)
  on.exit(options(old))
  expect_identical(option_max_memory(), 8 * 1024^3)
  expect_true(option_simd())
  expect_identical(option_series(), -1L)
  expect_null(option_threads())
})

test_that("the memory budget takes bytes and sizes with units", {
  sizes <- list("1GB" = 1e9, "512MB" = 512e6, "512 mb" = 512e6, "8 GiB" = 8 * 1024^3,
                "1.5GiB" = 1.5 * 1024^3, "100kB" = 1e5, "2TB" = 2e12, "64KiB" = 65536,
                "9" = 9, " 1e6 B " = 1e6)
  for (s in names(sizes)) {
    expect_identical(with_option("bahsic.max_memory", s, option_max_memory()), sizes[[s]],
                     label = s)
  }
  expect_identical(with_option("bahsic.max_memory", 16e9, option_max_memory()), 16e9)
  expect_identical(with_option("bahsic.max_memory", 2^34, option_max_memory()), 2^34)
  expect_identical(with_option("bahsic.max_memory", 1000L, option_max_memory()), 1000)
  expect_identical(with_option("bahsic.max_memory", Inf, option_max_memory()), Inf)
})

bad_values <- list(
  bahsic.max_memory = list("a", NA, NA_character_, 0, -1, NaN, c(TRUE, TRUE), TRUE,
                           c(1e9, 2e9), "16G", "1 GBB", "-1GB", list(1e9), matrix(1e9)),
  bahsic.simd = list("x", NA, 0, 1, c(TRUE, TRUE), "TRUE", list(TRUE)),
  bahsic.series = list("x", NA, 0, 4, 1.5, c(TRUE, FALSE), "TRUE"),
  bahsic.threads = list("2", NA, 0, -1, 1.5, Inf, c(1, 2), TRUE)
)
readers <- list(bahsic.max_memory = option_max_memory, bahsic.simd = option_simd,
                bahsic.series = option_series, bahsic.threads = option_threads)

test_that("every reader refuses a value outside its valid ones, naming the option", {
  for (name in names(bad_values)) {
    for (v in bad_values[[name]]) {
      expect_error(with_option(name, v, readers[[name]]()),
                   sprintf("The option %s is .*; it must be .*see \\?bahsic_options", name),
                   label = paste(name, deparse(v)))
    }
  }
})

test_that("valid values of simd, series and threads are read as documented", {
  expect_false(with_option("bahsic.simd", FALSE, option_simd()))
  expect_identical(with_option("bahsic.series", FALSE, option_series()), 0L)
  expect_identical(with_option("bahsic.series", 2, option_series()), 2L)
  expect_identical(with_option("bahsic.threads", 1, option_threads()), 1L)
  expect_identical(with_option("bahsic.threads", 1, default_threads()), 1L)
})

test_that("bahsic.threads above the cores warns as the argument does", {
  cap <- max_threads()
  expect_warning(n <- with_option("bahsic.threads", 1e9, default_threads()),
                 "options\\(bahsic.threads = 1e\\+09\\) is more than the [0-9]+ cores? this session may use")
  expect_identical(n, cap)
  expect_warning(with_option("bahsic.threads", 1e9, hsic(matrix(rnorm(40), 20), rnorm(20))),
                 "bahsic.threads = 1e\\+09")
})

test_that("a budget that is not one stops the call, it never switches the guard off", {
  x <- matrix(rnorm(40), 20)
  y <- factor(rep(1:2, 10))
  for (v in list("a", "9x", NA)) {
    expect_error(with_option("bahsic.max_memory", v, hsic(x, y)), "The option bahsic.max_memory is")
    expect_error(with_option("bahsic.max_memory", v, bahsic(x, y)), "The option bahsic.max_memory is")
    expect_error(with_option("bahsic.max_memory", v, kernel_matrix(kernel_gaussian(), x)),
                 "The option bahsic.max_memory is")
  }
  # a size with a unit is a budget for every function alike (hsic() holds
  # no m x m matrix: its kernels are made a panel at a time)
  for (f in list(function(x, y) kernel_matrix(kernel_gaussian(), x), bahsic)) {
    expect_error(with_option("bahsic.max_memory", "1KB", f(x, y)),
                 "above the memory budget .*option bahsic.max_memory")
  }
  expect_s3_class(with_option("bahsic.max_memory", "1GB", hsic(x, y)), "bahsic_hsic")
})

test_that("simd and series garbage stops the functions that read them", {
  x <- matrix(rnorm(200), 20)
  y <- factor(rep(1:2, 10))
  expect_error(with_option("bahsic.simd", "x", hsic(x, y)), "The option bahsic.simd is \"x\"")
  expect_error(with_option("bahsic.simd", NA, bahsic(x, y)), "The option bahsic.simd is NA")
  expect_error(with_option("bahsic.series", "x", bahsic(x, y)), "The option bahsic.series is")
})

test_that("?bahsic_options lists every option the package reads, each read by one reader", {
  ns <- asNamespace("bahsic")
  read_by <- list()
  for (f in ls(ns, all.names = TRUE)) {
    fun <- get(f, envir = ns)
    if (!is.function(fun)) next
    text <- paste(deparse(fun), collapse = "\n")
    opts <- regmatches(text, gregexpr("getOption\\(\"bahsic\\.[A-Za-z_.]+\"", text))[[1L]]
    for (o in unique(sub("getOption\\(\"", "", sub("\"$", "", opts)))) {
      read_by[[o]] <- c(read_by[[o]], f)
    }
  }
  expect_setequal(names(read_by), c("bahsic.max_memory", "bahsic.simd", "bahsic.series",
                                    "bahsic.threads"))
  for (o in names(read_by)) expect_length(read_by[[o]], 1L)
  rd <- tools::Rd_db("bahsic")[["bahsic_options.Rd"]]
  text <- paste(capture.output(tools::Rd2txt(rd, options = list(underline_titles = FALSE))),
                collapse = " ")
  for (o in names(read_by)) expect_match(text, o, fixed = TRUE)
})

# ---- sizes checked before the work starts ----------------------------------------
# Every value below would allocate tens of GiB to TiB: the checks must fire
# first, naming the argument (the budget is the default 8 GiB).

test_that("counts that allocate beyond the memory budget stop first, naming the argument", {
  old <- options(bahsic.max_memory = NULL)
  on.exit(options(old))
  set.seed(1)
  x <- matrix(rnorm(400), 20)
  y <- factor(rep(1:2, 10))
  budget <- "above the memory budget of 8.0 GiB \\(option bahsic.max_memory\\)"
  expect_error(feature_scores(x, y, method = "hsic", n_perm = 1e9),
               paste0("n_perm = 1,000,000,000 needs .*permutations of 20 samples.*", budget,
                      ".*smaller 'n_perm'"))
  expect_error(hsic_test(x, y, method = "permutation", n_perm = 1e9),
               paste0("n_perm = 1,000,000,000 needs .*", budget))
  fit <- bahsic(x, y)
  expect_error(selection_test(fit, n = 2, n_perm = 1e9), paste0("n_perm = .* needs .*", budget))
  expect_error(simulate_counts(n_cells = 1e9), paste0("n_cells = .* needs .*counts.*", budget))
  expect_error(simulate_counts(n_genes = 1e9), paste0("n_genes = .* needs .*counts.*", budget))
  expect_error(simulate_quad(n = 1e9), paste0("n = 1e\\+09 needs .*", budget))
  expect_error(simulate_xor(n = 1e9), "n = 1e\\+09 needs")
  expect_error(simulate_weston(100, d = 1e9), paste0("d = 1e\\+09 needs .*", budget))
  expect_error(hsic(x, y, approx = approx_rff(n_features = 1e9)),
               paste0("n_features = .* needs .*random frequencies.*", budget))
  expect_error(bahsic(x, y, approx = approx_rff(n_features = 2e9)),
               paste0("n_features = .* needs .*random frequencies.*", budget))
  expect_error(hsic(x, y, approx = approx_block(size = 4, n_partitions = 1e9)),
               paste0("n_partitions = .* needs .*", budget))
  expect_error(randsel(x, y, n_boot = 1e9), paste0("randsel\\(\\) needs .*", budget, ".*'n_boot'"))
  expect_error(stability_selection(x, y, n_features = 2, n_subsamples = 1e9),
               paste0("n_subsamples = .* needs .*", budget))
  expect_error(evaluate_selection(x, y, repeats = 1e9), paste0("repeats = .* needs .*", budget))
})

test_that("counts beyond R's integers say so, naming the argument", {
  x <- matrix(rnorm(400), 20)
  y <- factor(rep(1:2, 10))
  limit <- "is more than 2147483647 \\(.Machine\\$integer.max\\)"
  expect_error(hsic_test(x, y, method = "permutation", n_perm = 1e12), paste0("'n_perm' = 1e\\+12 ", limit))
  expect_error(feature_scores(x, y, method = "hsic", n_perm = 1e12), paste0("'n_perm' = 1e\\+12 ", limit))
  expect_error(simulate_quad(n = 1e12), paste0("'n' = 1e\\+12 ", limit))
  expect_error(simulate_weston(100, d = 1e12), paste0("'d' = 1e\\+12 ", limit))
  expect_error(simulate_counts(n_cells = 1e12), paste0("'n_cells' = 1e\\+12 ", limit))
  expect_error(approx_rff(n_features = 1e12), paste0("'n_features' = 1e\\+12 ", limit))
  expect_error(approx_ichol(max_rank = 1e12), paste0("'max_rank' = 1e\\+12 ", limit))
})

test_that("the size checks read the budget option in any of its forms", {
  x <- matrix(rnorm(400), 20)
  y <- factor(rep(1:2, 10))
  # 1e5 permutations of 20 samples: about 9.6 MB
  expect_error(with_option("bahsic.max_memory", "1MB",
                           hsic_test(x, y, method = "permutation", n_perm = 1e5)),
               "n_perm = 100,000 needs .*above the memory budget")
  expect_error(with_option("bahsic.max_memory", "1 KiB", simulate_xor(100)),
               "n = 100 needs .*above the memory budget")
  expect_length(with_option("bahsic.max_memory", "1GB", simulate_xor(100))$y, 100L)
})
