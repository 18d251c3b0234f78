# A verbose selection loop interrupted from inside: the time limit is set at
# its first message (the loop has started), and R raises it at the next
# interrupt check, as it would raise Ctrl-C. Returns the condition (or the
# value, if the loop ran to its end) and the number of messages seen.
interrupt_loop <- function(code, limit = 0.3) {
  iterations <- 0L
  on.exit(setTimeLimit(elapsed = Inf), add = TRUE)
  err <- tryCatch(
    withCallingHandlers(
      code,
      message = function(msg) {
        iterations <<- iterations + 1L
        if (iterations == 1L) setTimeLimit(elapsed = limit, transient = FALSE)
        invokeRestart("muffleMessage")
      }
    ),
    error = function(e) e
  )
  setTimeLimit(elapsed = Inf)
  list(error = err, iterations = iterations)
}

# Runs code() under an elapsed-time limit of `limit` seconds set just before
# it (R raises the limit at its interrupt checks, as it raises Ctrl-C).
# Returns the error, or "ran to its end" when code() returned first.
under_time_limit <- function(code, limit = 0.2) {
  on.exit(setTimeLimit(elapsed = Inf), add = TRUE)
  out <- tryCatch({
    setTimeLimit(elapsed = limit, transient = FALSE)
    code()
    "ran to its end"
  }, error = function(e) e)
  setTimeLimit(elapsed = Inf)
  out
}

# R's time-limit error (in the C locale of the tests)
expect_time_limit <- function(out, label) {
  got <- if (inherits(out, "error")) conditionMessage(out) else if (is.character(out)) out else
    "a value (the call ran to its end)"
  expect_match(got, "reached elapsed time limit", label = label)
}
