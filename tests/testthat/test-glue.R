# Every registered C routine, given garbage, raises an R error: the glue
# checks the types and lengths of what it is handed before the core reads
# it, so a wrapper that passes the wrong thing gets an error, never a crash
# or a read out of bounds (the sanitizer and valgrind runs of this file
# check the second). Each kind of garbage goes into every argument at once.

garbage <- list(
  "NULL" = NULL,
  "a string" = "a",
  "a list" = list(1, 2),
  "a negative integer" = -1L,
  "NaN" = NaN,
  "1e300" = 1e300,
  "a character matrix" = matrix("a", 2, 2),
  "an empty double" = double(0)
)

# What is not garbage for a routine: its arguments' type and length (a
# double vector of any length) fit these kinds, and the routine answers.
valid_for <- list(
  C_codes = names(garbage),                    # takes no argument
  C_first_nonfinite = c("NaN", "1e300", "an empty double"),
  C_l1_project = "1e300"                       # the projection of 1e300 onto a ball of 1e300
)

test_that("every registered routine refuses garbage with an R error", {
  routines <- getDLLRegisteredRoutines(getLoadedDLLs()[["bahsic"]])$.Call
  ns <- asNamespace("bahsic")
  expect_gt(length(routines), 30L)
  for (name in names(routines)) {
    n_args <- routines[[name]]$numParameters
    routine <- get(name, envir = ns)
    for (kind in names(garbage)) {
      got <- tryCatch({
        suppressWarnings(do.call(.Call, c(list(routine), rep(list(garbage[[kind]]), n_args))))
        "a value"
      }, error = function(e) "an error")
      want <- if (kind %in% valid_for[[name]]) "a value" else "an error"
      expect_identical(got, want, label = sprintf("%s() given %s", name, kind))
    }
  }
})
