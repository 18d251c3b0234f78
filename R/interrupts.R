# Interrupts and time limits from R code. The C loops check between blocks
# of work (bk_pace(), src/common.h); R's evaluator checks only every so
# many evaluations, so R code made of few but long vector steps (m x m
# matrices) checks between them with check_interrupt(). Sys.sleep(0)
# processes Ctrl-C and the limits of setTimeLimit() and returns at once.
check_interrupt <- function() Sys.sleep(0)

# Whether an error is R's time limit (setTimeLimit(), setSessionTimeLimit()):
# its messages, as R words them in the session's language.
is_time_limit <- function(e) {
  limits <- c("reached elapsed time limit", "reached CPU time limit",
              "reached session elapsed time limit", "reached session CPU time limit")
  conditionMessage(e) %in% c(limits, gettext(limits, domain = "R"))
}

# requireNamespace() for a package a function needs: TRUE when it loads,
# FALSE when it is not installed (or does not load). requireNamespace()
# turns every error of the loading into FALSE, so that a time limit reached
# while the package loads would read as "not installed": here R's
# time-limit error goes on to the caller as it is (an interrupt is no error,
# and goes on anyway).
have_namespace <- function(pkg) {
  tryCatch({
    suppressPackageStartupMessages(loadNamespace(pkg))
    TRUE
  }, error = function(e) {
    if (is_time_limit(e)) stop(e)
    FALSE
  })
}
