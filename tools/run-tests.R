# Run the testthat suite against the INSTALLED bahsic (install it first: R CMD INSTALL .).
#
#   Rscript tools/run-tests.R [--expect-lib=DIR]
#
# BAHSIC_TEST_FILTER=regexp runs only the test files that match (testthat's filter).
# --expect-lib=DIR: fail unless bahsic is loaded from library DIR (the sanitizer and valgrind
# scripts pass the library of their special build, so the ordinary install is never tested by
# mistake).
#
# Progress and every failure are printed as the tests run; the very last line is
#
#   N passed, N failed, N skipped
#
# counted in EXPECTATIONS (testthat's own unit, the numbers of its summary line):
#   passed  = expectations that succeeded,
#   failed  = expectations that failed + tests stopped by an error (an error counts once, also
#             an error at the top level of a test file, outside test_that()),
#   skipped = skips (a skip ends its test, so this is also the number of skipped tests).
# Exit status 1 if anything failed or errored, or if the suite could not run at all (no test
# files, package not installed); 0 otherwise. Warnings are reported but do not fail the run.

summary_line <- function(passed, failed, skipped) {
  cat(sprintf("%d passed, %d failed, %d skipped\n", passed, failed, skipped))
}

# Find the repository root from this script's own path, so it runs from any directory.
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
root <- if (length(script) == 1L) {
  normalizePath(file.path(dirname(script), ".."))
} else {
  getwd()
}
test_path <- file.path(root, "tests", "testthat")

if (!requireNamespace("testthat", quietly = TRUE)) {
  message("testthat is not installed: run bash tools/install-deps.sh")
  summary_line(0L, 1L, 0L)
  quit(status = 1)
}
if (!requireNamespace("bahsic", quietly = TRUE)) {
  message("bahsic is not installed: run R CMD INSTALL . from ", root)
  summary_line(0L, 1L, 0L)
  quit(status = 1)
}
if (!length(list.files(test_path, pattern = "^test.*\\.[rR]$"))) {
  message("no test files in ", test_path)
  summary_line(0L, 1L, 0L)
  quit(status = 1)
}

expect_lib <- sub("^--expect-lib=", "",
                  grep("^--expect-lib=", commandArgs(TRUE), value = TRUE))
if (length(expect_lib) == 1L &&
    normalizePath(dirname(find.package("bahsic"))) != normalizePath(expect_lib)) {
  message("bahsic is installed in ", dirname(find.package("bahsic")), ", not in ", expect_lib)
  summary_line(0L, 1L, 0L)
  quit(status = 1)
}

message("Testing bahsic ", utils::packageVersion("bahsic"), " installed in ",
        dirname(find.package("bahsic")))

# The slow and statistical tests (skip_on_cran()) run here: this is the
# project's own CI, not CRAN's.
Sys.setenv(NOT_CRAN = "true")
reporter <- testthat::ProgressReporter$new(show_praise = FALSE, max_failures = Inf)
results <- tryCatch(
  testthat::test_dir(
    test_path,
    filter = if (nzchar(Sys.getenv("BAHSIC_TEST_FILTER"))) Sys.getenv("BAHSIC_TEST_FILTER"),
    package = "bahsic",
    load_package = "installed",
    reporter = reporter,
    stop_on_failure = FALSE,
    stop_on_warning = FALSE
  ),
  error = function(e) {
    message("the test run stopped: ", conditionMessage(e))
    NULL
  }
)
if (is.null(results)) {
  summary_line(0L, 1L, 0L)
  quit(status = 1)
}

df <- as.data.frame(results)
passed <- sum(df$passed)
failed <- sum(df$failed) + sum(df$error)
skipped <- sum(df$skipped)
if (nrow(df) == 0L) {
  message("no test was run")
  failed <- max(failed, 1L)
}

summary_line(passed, failed, skipped)
quit(status = if (failed > 0L) 1L else 0L)
