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
